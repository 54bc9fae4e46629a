// How a bench run is written down: the machine header, the tables as Markdown and as plain
// text, and the generated part of docs/performance.md (between two markers, the prose
// around them stays as written).

import { execFileSync } from 'node:child_process'
import os from 'node:os'

export const BEGIN = '<!-- bench:begin -->'
export const END = '<!-- bench:end -->'

/** The header line both files start their tables with; `note` says how the run was cut short. */
export function machineHeader({ date = new Date(), note = '' } = {}) {
  const cpus = os.cpus()
  const cpu = cpus[0]?.model.replace(/\s+/g, ' ').trim() || 'unknown CPU'
  const ram = `${Math.round(os.totalmem() / 2 ** 30)} GiB RAM`
  // The kernel's version number only: a distribution's build suffix says nothing to a reader.
  const kernel = os.release().match(/^\d+(\.\d+)*/)?.[0] ?? os.release()
  const parts = [cpu, `${cpus.length} cores`, ram, `${os.type()} ${kernel}`, `Node ${process.version}`]
  const rustc = rustcVersion()
  if (rustc) parts.push(rustc)
  return `Measured on ${parts.join(', ')}, on ${date.toISOString().slice(0, 10)}${note ? ` (${note})` : ''}.`
}

function rustcVersion() {
  try {
    return execFileSync('rustc', ['--version'], { encoding: 'utf8', timeout: 5000 }).match(/^rustc \S+/)?.[0]
  } catch {
    return undefined
  }
}

/** The header format, for the test that reads the committed page. */
export const HEADER = /^Measured on .+, \d+ cores, \d+ GiB RAM, .+, Node v\d+\S*(, rustc \S+)?, on \d{4}-\d{2}-\d{2}( \(.+\))?\.$/

// ---------------------------------------------------------------------------------------
// Numbers

/** A median in ms as the tables print it: three significant digits, in ns to s. */
export function formatTime(ms) {
  // Rounded first, so 999.6 µs reads 1.00 ms, not 1.00e+3 µs.
  const ns = Number((ms * 1e6).toPrecision(3))
  if (ns < 1000) return `${ns.toPrecision(3)} ns`
  if (ns < 1e6) return `${(ns / 1e3).toPrecision(3)} µs`
  if (ns < 1e9) return `${(ns / 1e6).toPrecision(3)} ms`
  return `${(ns / 1e9).toPrecision(3)} s`
}

/** toolclamp's time over another's: below 1 toolclamp is faster (0.25: a quarter of the time). */
export function formatRatio(mine, other) {
  const r = mine / other
  if (!Number.isFinite(r)) return '—'
  // Two significant digits; from 99.5 on, whole numbers (toPrecision would write 1.0e+2).
  return r >= 99.5 ? r.toFixed(0) : r.toPrecision(2)
}

/** A ratio cell: a plain number. */
export const RATIO = /^\d+(\.\d+)?(e-\d+)?$/

/** Columns that hold ratios start with this word. */
export const isRatioColumn = (name) => name.startsWith('ratio')

// ---------------------------------------------------------------------------------------
// Tables
//
// A table is { title, code?, about?, columns, rows, headline?, note? }: `title` says in words
// what is measured, `code` the call, `about` a line or two on the input or the check, `note` a
// paragraph under the table (how the peers' jobs differ); the first column names the input.
// `headline` tables also go to docs/performance.md.

function markdownTable({ columns, rows }) {
  const align = columns.map((_, i) => (i === 0 ? ':--' : '--:'))
  return [columns, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n')
}

/** A table as the console shows it: columns padded, the first left-aligned. */
export function textTable({ title, code, columns, rows, note }) {
  const widths = columns.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) =>
    cells
      .map((s, i) => (i === 0 ? s.padEnd(widths[i]) : s.padStart(widths[i])))
      .join('  ')
      .trimEnd()
  const heading = code ? `${title}: ${code.replaceAll('`', '')}` : title
  const table = [heading, line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)]
  return [...table, ...(note ? [note.replaceAll('`', '')] : [])].join('\n')
}

/** The Markdown of some tables, each under a heading of `level` (`###`). */
export function markdownTables(tables, level) {
  const out = []
  for (const t of tables) {
    out.push(`${level} ${t.title}`, '')
    if (t.code || t.about) out.push([t.code, t.about].filter(Boolean).join(': '), '')
    out.push(markdownTable(t), '')
    if (t.note) out.push(t.note, '')
  }
  return out.join('\n')
}

/** bench/results.md: the header, then every table. */
export function resultsPage(header, intro, tables) {
  return [
    '# Benchmark results',
    '',
    header,
    '',
    ...intro,
    '',
    'The tables of docs/performance.md are the headline rows of this same run.',
    '',
    markdownTables(tables, '##'),
  ]
    .join('\n')
    .replace(/\n+$/, '\n')
}

/** The generated section of docs/performance.md (under its `## Results`): the same header,
 * then the headline tables. */
export function docsSection(header, tables) {
  return [
    header,
    '',
    markdownTables(
      tables.filter((t) => t.headline),
      '###',
    ).trimEnd(),
  ].join('\n')
}

/** `page` with what lies between the markers replaced by `section`; throws without markers. */
export function spliceSection(page, section) {
  const begin = page.indexOf(BEGIN)
  const end = page.indexOf(END)
  if (begin === -1 || end < begin) throw new Error(`the page has no ${BEGIN} … ${END} section`)
  return `${page.slice(0, begin + BEGIN.length)}\n${section}\n${page.slice(end)}`
}

/** What lies between the markers, or undefined. */
export function generatedSection(page) {
  const begin = page.indexOf(BEGIN)
  const end = page.indexOf(END)
  return begin === -1 || end < begin ? undefined : page.slice(begin + BEGIN.length, end).trim()
}

/** The Markdown tables of a text: { columns, rows } each, rows as trimmed cells. */
export function parseTables(markdown) {
  const tables = []
  let current
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      current = undefined
      continue
    }
    const cells = line
      .replace(/^\|\s?|\s?\|$/g, '')
      .split(' | ')
      .map((c) => c.trim())
    if (!current) {
      current = { columns: cells, rows: [] }
      tables.push(current)
    } else if (!cells.every((c) => /^:?-+:?$/.test(c))) current.rows.push(cells)
  }
  return tables
}
