// docs/performance.md shows the tables of one bench run: `npm run bench` writes them between
// its two markers and bench/results.md from the same run, both under the same machine header.
// Here the committed files are checked for that shape (one header, the same in both, tables
// with a ratio in every row, the page's tables copied from results.md, no internal words),
// and the generator that writes them is checked on made-up tables.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'

import {
  BEGIN,
  END,
  HEADER,
  RATIO,
  docsSection,
  formatRatio,
  generatedSection,
  isRatioColumn,
  parseTables,
  resultsPage,
  spliceSection,
} from '../bench/report.mjs'

const read = (file) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')
const PAGE = read('docs/performance.md')
const RESULTS = read('bench/results.md')

/** Words of an internal ledger that mean nothing to a reader of the page. */
const LEDGER = [/\bseed/i, /\bissue/i, /\bPASS\b/, /\bMISS\b/]
/** The first such word in `text`, or undefined. */
const internalWord = (text) => LEDGER.map((word) => word.exec(text)?.[0]).find(Boolean)

const headerLines = (text) => text.split('\n').filter((line) => line.startsWith('Measured on '))

/** Everything wrong with a generated section: its header, its tables, its words. */
function sectionProblems(section) {
  const problems = []
  const headers = headerLines(section)
  if (headers.length !== 1) problems.push(`${headers.length} machine headers, not one`)
  else if (!HEADER.test(headers[0])) problems.push(`the header does not name the machine: ${headers[0]}`)
  if (section.split('\n')[0] !== headers[0]) problems.push('the section does not start with its header')
  const internal = internalWord(section)
  if (internal) problems.push(`an internal word: ${internal}`)
  const tables = parseTables(section)
  if (tables.length === 0) problems.push('no table')
  for (const { columns, rows } of tables) {
    const ratios = columns.flatMap((name, i) => (isRatioColumn(name) ? [i] : []))
    if (ratios.length === 0) problems.push(`a table without a ratio column: ${columns.join(' | ')}`)
    if (rows.length === 0) problems.push(`a table without rows: ${columns.join(' | ')}`)
    for (const row of rows) {
      if (row.length !== columns.length) problems.push(`a row of ${row.length} cells under ${columns.length} columns: ${row[0]}`)
      const cells = ratios.map((i) => row[i])
      if (!cells.some((c) => RATIO.test(c)) || !cells.every((c) => RATIO.test(c) || c === '—')) {
        problems.push(`a row without a ratio: ${row.join(' | ')}`)
      }
    }
  }
  return problems
}

test('docs/performance.md has one generated section, between its markers', () => {
  assert.equal(PAGE.split(BEGIN).length, 2, BEGIN)
  assert.equal(PAGE.split(END).length, 2, END)
  assert.ok(PAGE.indexOf(BEGIN) < PAGE.indexOf(END))
  assert.match(PAGE.slice(0, PAGE.indexOf(BEGIN)), /^## Results$/m, 'the section sits under ## Results')
})

test('the generated section: one machine header, no internal words, a ratio in every row', () => {
  assert.deepEqual(sectionProblems(generatedSection(PAGE)), [])
})

test('the page, prose included, has no internal words and no second header', () => {
  assert.equal(internalWord(PAGE), undefined)
  assert.equal(headerLines(PAGE).length, 1)
})

test('bench/results.md is the same run: the same header, and every table of the page in it', () => {
  assert.deepEqual(headerLines(RESULTS), headerLines(PAGE))
  assert.equal(internalWord(RESULTS), undefined)
  const all = parseTables(RESULTS)
  for (const table of parseTables(generatedSection(PAGE))) {
    assert.ok(
      all.some((t) => JSON.stringify(t) === JSON.stringify(table)),
      `not in bench/results.md: ${table.rows[0]?.join(' | ')}`,
    )
  }
  for (const { columns, rows } of all) {
    const ratios = columns.flatMap((name, i) => (isRatioColumn(name) ? [i] : []))
    assert.ok(ratios.length > 0, columns.join(' | '))
    for (const row of rows)
      assert.ok(
        ratios.some((i) => RATIO.test(row[i])),
        row.join(' | '),
      )
  }
})

// ---------------------------------------------------------------------------------------
// The generator, on made-up tables

const HEADER_LINE = 'Measured on Some CPU, 4 cores, 16 GiB RAM, Linux 6.1.0, Node v20.20.2, rustc 1.95.0, on 2026-01-02.'
const TABLES = [
  {
    title: 'Head clamp, 51,200 bytes / 2,000 lines',
    code: '`stringTruncateHead(text, { maxBytes: 51200, maxLines: 2000 })`',
    columns: ['input', 'toolclamp', 'best JS', 'ratio vs best JS'],
    rows: [['ASCII, 1 MiB', '47.0 µs', '152 µs', formatRatio(47, 152)]],
    headline: true,
  },
  {
    title: 'Measuring chars, bytes and lines',
    code: '`measureText(text)`',
    columns: ['input', 'toolclamp', 'best JS', 'ratio vs best JS'],
    rows: [['ASCII, 100 B', '20.0 ns', '10.0 ns', formatRatio(20, 10)]],
  },
]

test('a generated section passes the checks, and holds only the headline tables', () => {
  const section = docsSection(HEADER_LINE, TABLES)
  assert.deepEqual(sectionProblems(section), [])
  assert.deepEqual(
    parseTables(section).map((t) => t.rows[0][0]),
    ['ASCII, 1 MiB'],
  )
  assert.equal(headerLines(resultsPage(HEADER_LINE, ['intro'], TABLES))[0], HEADER_LINE)
  assert.equal(parseTables(resultsPage(HEADER_LINE, ['intro'], TABLES)).length, 2)
})

test('peer columns pass the checks: a time or — in each, and a note under the table', () => {
  const peers = {
    ...TABLES[0],
    columns: ['input', 'toolclamp', 'best JS', 'cli-truncate', 'ratio vs best JS', 'ratio vs cli-truncate'],
    rows: [
      ['ASCII, 1 KiB', '20.0 ns', '10.0 ns', '5.00 ms', formatRatio(20, 10), formatRatio(20e-6, 5)],
      ['ASCII, 1 MiB', '47.0 µs', '152 µs', '—', formatRatio(47, 152), '—'],
    ],
    note: 'Peer columns: the nearest job, not equal output (never checked equal).',
  }
  const section = docsSection(HEADER_LINE, [peers])
  assert.deepEqual(sectionProblems(section), [])
  assert.ok(section.includes(`|\n\n${peers.note}`), 'the note follows its table')
  assert.equal(parseTables(section)[0].rows.length, 2)
})

test('the checks catch a verdict column, a second header and a row without a ratio', () => {
  const verdict = docsSection(HEADER_LINE, [
    { ...TABLES[0], columns: [...TABLES[0].columns, 'target'], rows: [[...TABLES[0].rows[0], 'PASS']] },
  ])
  assert.ok(sectionProblems(verdict).some((p) => p.includes('PASS')))
  assert.ok(sectionProblems(`${docsSection(HEADER_LINE, TABLES)}\n\n${HEADER_LINE}`).some((p) => p.includes('2 machine headers')))
  const blank = docsSection(HEADER_LINE, [{ ...TABLES[0], rows: [['ASCII, 1 MiB', '47.0 µs', '152 µs', '—']] }])
  assert.ok(sectionProblems(blank).some((p) => p.includes('without a ratio')))
})

test('splicing a section keeps every byte of the prose around the markers', () => {
  const before = PAGE.slice(0, PAGE.indexOf(BEGIN) + BEGIN.length)
  const after = PAGE.slice(PAGE.indexOf(END))
  const spliced = spliceSection(PAGE, docsSection(HEADER_LINE, TABLES))
  assert.ok(spliced.startsWith(before))
  assert.ok(spliced.endsWith(after))
  assert.equal(generatedSection(spliced), docsSection(HEADER_LINE, TABLES))
  // The committed page is exactly what splicing its own section gives: nothing stray inside.
  assert.equal(spliceSection(PAGE, generatedSection(PAGE)), PAGE)
  assert.throws(() => spliceSection('# A page without markers\n', 'x'), /no <!-- bench:begin -->/)
})

test('a ratio is toolclamp over the other, in plain digits', () => {
  assert.equal(formatRatio(1, 4), '0.25')
  assert.equal(formatRatio(3, 1), '3.0')
  assert.equal(formatRatio(150, 1), '150')
  assert.equal(formatRatio(0.00034, 1), '0.00034')
  for (const r of [1e-9, 0.004, 0.5, 1, 7.25, 99.9, 12345]) assert.match(formatRatio(r, 1), RATIO)
})
