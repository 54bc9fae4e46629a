// toolclamp benchmark: every export against pure-JS implementations that return exactly
// the same output (checked before anything is timed).
//
//   node bench/index.mjs              full run (a few minutes), writes bench/results.md
//   node bench/index.mjs --quick      smoke run (under 30 s); also BENCH_QUICK=1
//   node bench/index.mjs seed004 tail only the cases whose id contains one of the words
//   node bench/index.mjs payload      only the tool-payload cases
//   node bench/index.mjs conversation only the conversation and provider-error cases
//   node bench/index.mjs stream       only the capture, runCommand, CLI and normalisation cases
//   node bench/index.mjs normalize    only the normalisation cases (the CLI's included)
//
// Timings are tinybench medians (latency p50) per call, the better of two rounds. Calls
// shorter than ~20 µs are timed in batches and divided, so the timer's own cost does not
// swamp them.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { Bench } from 'tinybench'
import toolclamp from '../index.js'
import { KINDS, SIZES, makeInput } from './inputs.mjs'
import * as js from './js-impls.mjs'
import { CONVERSATION_COLUMNS, ERROR_COLUMNS, runConversationCases } from './conversations.mjs'
import {
  CAPTURE_COLUMNS,
  CLI_COLUMNS,
  NORMALIZE_COLUMNS,
  RUN_COLUMNS,
  runCaptureCases,
  runCliCases,
  runCommandCases,
  runNormalizeCases,
} from './streams.mjs'

const args = process.argv.slice(2)
const quick = args.includes('--quick') || process.env.BENCH_QUICK === '1'
const filters = args.filter((a) => !a.startsWith('--'))

// ---------------------------------------------------------------------------------------
// Cases

const SEED_LIMITS = { maxBytes: 51200, maxLines: 2000 }
const BYTES_ONLY = { maxBytes: 51200 }
const TAIL_OPTIONS = { ...SEED_LIMITS, strategy: 'tail' }
const HEAD_TAIL_OPTIONS = { ...SEED_LIMITS, strategy: 'headTail', headRatio: 0.3 }
const RATIO_03 = { headRatio: 0.3 }
const KIB = 1024
const MIB = 1024 * 1024

/** Targets of the seed-004 job: minimum speed-ups over (b) and (a), by size and kind. */
function seedTargets(size, kind) {
  const checks = []
  if (size >= 64 * KIB) checks.push({ vs: 'best', min: kind === 'ascii' ? 3 : 8 })
  if (size === MIB) checks.push({ vs: 'seed', min: 10 })
  return checks
}

/** Every other case: toolclamp must not be slower than the best JS. */
const notSlower = () => [{ vs: 'best', min: 1 }]

const CASES = [
  {
    id: 'seed004-head',
    title: 'seed 004 job: `stringTruncateHead(text, { maxBytes: 51200, maxLines: 2000 })`',
    impls: {
      toolclamp: (t) => toolclamp.stringTruncateHead(t, SEED_LIMITS),
      seed: (t) => js.seedTruncateHead(t, SEED_LIMITS),
      best: (t) => js.bestTruncateHead(t, SEED_LIMITS),
    },
    targets: seedTargets,
  },
  {
    id: 'seed004-truncateText',
    title: 'seed 004 job with the full report: `truncateText(text, { maxBytes: 51200, maxLines: 2000 })`',
    impls: {
      toolclamp: (t) => toolclamp.truncateText(t, SEED_LIMITS),
      seed: (t) => js.seedTruncateText(t, SEED_LIMITS),
      best: (t) => js.bestTruncateText(t, SEED_LIMITS),
    },
    targets: seedTargets,
  },
  {
    id: 'tail-chars',
    title: '`stringTruncateTail(text, 8000)` (chars only)',
    impls: {
      toolclamp: (t) => toolclamp.stringTruncateTail(t, 8000),
      best: (t) => js.bestTruncateTail(t, 8000),
    },
    targets: notSlower,
  },
  {
    id: 'headtail-chars',
    title: '`stringTruncateHeadTail(text, 16000, { headRatio: 0.3 })` (chars only)',
    impls: {
      toolclamp: (t) => toolclamp.stringTruncateHeadTail(t, 16000, RATIO_03),
      best: (t) => js.bestTruncateHeadTail(t, 16000, RATIO_03),
    },
    targets: notSlower,
  },
  {
    id: 'tail-bytes-only',
    title: '`stringTruncateTail(text, { maxBytes: 51200 })` (bytes only)',
    impls: {
      toolclamp: (t) => toolclamp.stringTruncateTail(t, BYTES_ONLY),
      best: (t) => js.bestTruncateTail(t, BYTES_ONLY),
    },
    targets: notSlower,
  },
  {
    id: 'tail-bytes-lines',
    title: '`stringTruncateTail(text, { maxBytes: 51200, maxLines: 2000 })`',
    impls: {
      toolclamp: (t) => toolclamp.stringTruncateTail(t, SEED_LIMITS),
      best: (t) => js.bestTruncateTail(t, SEED_LIMITS),
    },
    targets: notSlower,
  },
  {
    id: 'truncateText-tail',
    title: "`truncateText(text, { maxBytes: 51200, maxLines: 2000, strategy: 'tail' })`",
    impls: {
      toolclamp: (t) => toolclamp.truncateText(t, TAIL_OPTIONS),
      best: (t) => js.bestTruncateText(t, TAIL_OPTIONS),
    },
    targets: notSlower,
  },
  {
    id: 'truncateText-headTail',
    title: "`truncateText(text, { maxBytes: 51200, maxLines: 2000, strategy: 'headTail', headRatio: 0.3 })`",
    impls: {
      toolclamp: (t) => toolclamp.truncateText(t, HEAD_TAIL_OPTIONS),
      best: (t) => js.bestTruncateText(t, HEAD_TAIL_OPTIONS),
    },
    targets: notSlower,
  },
  {
    id: 'measureText',
    title: '`measureText(text)` (best JS: `Buffer.byteLength` + an `indexOf` newline count)',
    impls: {
      toolclamp: (t) => toolclamp.measureText(t),
      best: (t) => js.bestMeasureText(t),
    },
    targets: notSlower,
  },
]

// ---------------------------------------------------------------------------------------
// Tool-payload cases: fixed inputs instead of the size × kind grid. Each row has its input,
// the UTF-8 bytes of all its text (which sets the target) and a label.

const textBlock = (text) => ({ type: 'text', text })

/** `text` in blocks of about `bytes` UTF-8 bytes each, cut after a line break. */
function textBlocks(text, bytes) {
  const blocks = []
  let start = 0
  while (start < text.length) {
    let end = start
    let size = 0
    while (end < text.length && size < bytes) {
      const next = text.indexOf('\n', end)
      const stop = next === -1 ? text.length : next + 1
      size += Buffer.byteLength(text.slice(end, stop), 'utf8')
      end = stop
    }
    blocks.push(textBlock(text.slice(start, end)))
    start = end
  }
  return blocks
}

/** A base64 image block of `chars` chars: the size a screenshot tool returns. */
function imageBlock(chars) {
  const raw = Buffer.alloc((chars / 4) * 3)
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24
  return { type: 'image', mimeType: 'image/png', data: raw.toString('base64') }
}

/**
 * What a streaming tool passes to onUpdate: its whole output so far, every `step` UTF-8 bytes
 * of `text` (cut at whole chars), as `{ content, details }`.
 */
function accumulatedPartials(text, step) {
  const partials = []
  let bytes = 0
  let mark = step
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3
    if (pair) i++
    if (bytes >= mark) {
      partials.push({ content: [textBlock(text.slice(0, i + 1))], details: { bytesSoFar: bytes } })
      mark += step
    }
  }
  return partials
}

/** The clamped partials a listener receives through the wrapped onUpdate. */
function streamThrough(wrap, partials) {
  const received = []
  const onUpdate = wrap((partial) => received.push(partial))
  for (const partial of partials) onUpdate(partial)
  return received
}

// Tool-facing functions cut on whole lines by default, and keep the end too when it reads
// as a failure ('auto'); the pure-JS competitors make the exact cut of the head, so these
// rows ask toolclamp for that too (the same job, equal outputs).
const EXACT = { snap: 'none', strategy: 'head' }

const payloadImpls = {
  toolclamp: (result) => toolclamp.hardTruncateToolPayload(result, EXACT),
  best: (result) => js.bestTruncateToolPayload(result),
}

/** At least 3x from 64 KiB of text; not slower on small payloads. */
const payloadTargets = (textBytes) => [{ vs: 'best', min: textBytes >= 64 * KIB ? 3 : 1 }]

const IMAGE_CHARS = 10_000_000

// Streams read once per run: 256 partials from 64 KiB to 16 MiB.
const STREAM_OPTIONS = { time: 1000, warmupTime: 0, iterations: 4, warmupIterations: 1 }

const PAYLOAD_CASES = [
  {
    id: 'payload-small',
    title: '`hardTruncateToolPayload(result)` on small results, within the default limits',
    impls: payloadImpls,
    rows: (kind) => [
      { label: '100 B string', textBytes: 100, make: () => makeInput(kind, 100) },
      {
        label: '1 KiB: 2 text blocks + image',
        textBytes: KIB,
        make: () => ({ content: [...textBlocks(makeInput(kind, KIB), 512), imageBlock(4000)], details: { exitCode: 0 } }),
      },
    ],
  },
  {
    id: 'payload-text-1mib',
    title: '`hardTruncateToolPayload({ content: [one 1 MiB text block], details })`',
    impls: payloadImpls,
    rows: (kind) => [
      {
        label: '1 MiB text block',
        textBytes: MIB,
        make: () => ({ content: [textBlock(makeInput(kind, MIB))], details: { path: 'app.log' } }),
      },
    ],
  },
  {
    id: 'payload-200-blocks',
    title: '`hardTruncateToolPayload([...200 text blocks of ~1 KiB])` (one budget across all)',
    impls: payloadImpls,
    rows: (kind) => [{ label: '200 × 1 KiB blocks', textBytes: 200 * KIB, make: () => textBlocks(makeInput(kind, 200 * KIB), KIB) }],
  },
  {
    id: 'payload-image',
    title: '`hardTruncateToolPayload([1 MiB text, 10 MB base64 image])`: the image must cost nothing',
    impls: payloadImpls,
    rows: (kind) => {
      const text = makeInput(kind, MIB)
      return [
        { label: '1 MiB text', textBytes: MIB, make: () => [textBlock(text)] },
        {
          label: '1 MiB text + 10 MB image',
          textBytes: MIB,
          make: () => [textBlock(text), imageBlock(IMAGE_CHARS)],
          sameCostAs: '1 MiB text',
        },
      ]
    },
  },
  {
    id: 'payload-stream',
    title:
      '`wrapOnUpdate(onUpdate)` over a stream: the accumulated output every 64 KiB up to 16 MiB (time per whole stream of 256 updates)',
    impls: {
      toolclamp: (partials) => streamThrough((onUpdate) => toolclamp.wrapOnUpdate(onUpdate, EXACT), partials),
      best: (partials) => streamThrough(js.bestWrapOnUpdate, partials),
    },
    rows: (kind) => [
      {
        label: '256 updates, 64 KiB…16 MiB',
        textBytes: 16 * MIB,
        make: () => accumulatedPartials(makeInput(kind, 16 * MIB), 64 * KIB),
        options: STREAM_OPTIONS,
      },
    ],
  },
  {
    id: 'exec-buffer',
    title:
      "`formatExecOutput({ stdout: Buffer, stderr: Buffer, exitCode }, { snap: 'none' })` (each stream's last 8,000 chars); best JS (b) is `buf.toString()` plus the O(1) chars tail",
    impls: {
      toolclamp: (result) => toolclamp.formatExecOutput(result, EXACT).text,
      best: (result) => js.bestFormatExecOutput(result),
    },
    targets: () => [{ vs: 'best', min: 1 }],
    rows: (kind) =>
      [
        ['16 MiB stdout Buffer', 16 * MIB],
        ['1 MiB stdout Buffer', MIB],
      ].map(([label, bytes]) => ({
        label,
        textBytes: bytes,
        make: () => ({ stdout: Buffer.from(makeInput(kind, bytes)), stderr: Buffer.from('warning: deprecated\n'), exitCode: 1 }),
      })),
  },
]

// JSON values: clampJson against one JSON.stringify of the same value (the issue's yardstick:
// no pure-JS library fits a JSON value into a byte budget and keeps it valid, so there is no
// competitor that returns the same output). Before timing, the result is checked: it parses,
// fits, and keeps the first items.
function logRecords(bytes) {
  const records = []
  let n = 0
  while (n < bytes) {
    const i = records.length
    const record = {
      ts: new Date(1_700_000_000_000 + i * 1000).toISOString(),
      level: i % 7 ? 'info' : 'error',
      msg: `request handled path=/api/v1/items/${i} status=200 latency_ms=${i % 97}`,
      requestId: `req-${i.toString(16).padStart(12, '0')}`,
      tags: ['api', 'v1'],
      n: i,
    }
    records.push(record)
    n += JSON.stringify(record).length + 1
  }
  return records
}

const JSON_CASES = [
  {
    id: 'json-records',
    title: '`clampJson(records, { maxBytes: 51200 })` on an array of log records, against one `JSON.stringify(records)`',
    rows: [
      { label: '10 MB, 54k records', make: () => logRecords(10_000_000), options: { maxBytes: 51_200 }, max: 3 },
      { label: '1 MB, 5.4k records', make: () => logRecords(1_000_000), options: { maxBytes: 51_200 }, max: 3 },
    ],
  },
  {
    id: 'json-small',
    title: '`clampJson(value)` on small values that fit, against one `JSON.stringify(value)`',
    rows: [
      {
        label: '120 B object',
        make: () => ({ command: 'ls -la', exitCode: 0, stdout: 'total 8\nREADME.md\n', stderr: '', durationMs: 12 }),
        max: 1.5,
      },
      { label: '900 B, 8 records', make: () => logRecords(800), max: 1.5 },
    ],
  },
]

/** Checks and times the JSON cases: toolclamp's clampJson and one JSON.stringify. */
async function runJsonCases(cases, results, failures) {
  for (const c of cases) {
    for (const row of c.rows) {
      const value = row.make()
      const key = `${c.id} ${row.label}`
      const clamped = toolclamp.clampJson(value, row.options)
      const text = JSON.stringify(clamped.value)
      const limit = row.options?.maxBytes ?? 51_200
      if (Buffer.byteLength(text) > limit || (row.options === undefined && clamped.value !== value)) {
        failures.push(`${key}: the result does not fit, or a value that fits came back changed`)
        continue
      }
      if (Array.isArray(value) && clamped.truncated) assert.deepEqual(clamped.value[0], value[0])
      process.stderr.write(`timing ${key}…\n`)
      const bytes = Buffer.byteLength(JSON.stringify(value))
      const medians = await timeCase(
        { impls: { toolclamp: (v) => toolclamp.clampJson(v, row.options), stringify: (v) => JSON.stringify(v) } },
        value,
        bytes,
        quick ? benchOptions(0) : undefined,
      )
      const ratio = medians.toolclamp / medians.stringify
      const pass = ratio <= row.max
      results.push([
        row.label,
        formatTime(medians.toolclamp),
        formatTime(medians.stringify),
        `${ratio.toFixed(2)}x`,
        `${pass ? 'PASS' : 'MISS'} ≤${row.max}x`,
      ])
    }
  }
}

const JSON_COLUMNS = ['input', 'clampJson', 'JSON.stringify', 'clampJson / stringify', 'target']

/** A time within this factor of another counts as the same cost. */
const NOISE = 1.25

/**
 * Outputs where toolclamp itself is believed wrong, excluded from the check and the timing:
 * `${caseId} ${sizeLabel} ${kind}` → why. Empty: every output agrees.
 */
const KNOWN_TOOLCLAMP_BUGS = new Map([])

const IMPL_LABELS = { toolclamp: 'toolclamp', seed: 'seed port (a)', best: 'best JS (b)' }

// ---------------------------------------------------------------------------------------
// Timing

/** tinybench settings by input size: big inputs get fewer, longer samples. */
function benchOptions(bytes) {
  if (quick) return { time: 25, warmupTime: 5, iterations: 3, warmupIterations: 1 }
  if (bytes <= 1 * KIB) return { time: 400, warmupTime: 60, iterations: 32, warmupIterations: 8 }
  if (bytes <= 64 * KIB) return { time: 500, warmupTime: 80, iterations: 32, warmupIterations: 8 }
  if (bytes <= 1 * MIB) return { time: 800, warmupTime: 120, iterations: 16, warmupIterations: 4 }
  return { time: 2000, warmupTime: 250, iterations: 8, warmupIterations: 2 }
}

// Results are stored here so the engine cannot drop a call whose result is never read.
// biome-ignore lint/correctness/noUnusedVariables: written on purpose, never read
let sink

/** How many calls one sample should batch so that it lasts about 20 µs. */
function batchSize(fn, text) {
  const t0 = performance.now()
  let calls = 0
  while (performance.now() - t0 < 2 && calls < 100000) {
    sink = fn(text)
    calls++
  }
  const perCall = (performance.now() - t0) / calls
  return Math.max(1, Math.min(10000, Math.round(0.02 / perCall)))
}

/** A tinybench task function: `batch` calls per sample, reporting the time per call. */
function batched(fn, text, batch) {
  if (batch === 1) return () => fn(text)
  return () => {
    const t0 = performance.now()
    for (let i = 0; i < batch; i++) sink = fn(text)
    const dt = performance.now() - t0
    return { overriddenDuration: dt / batch, overriddenIterationCost: dt }
  }
}

/**
 * Medians per implementation. The time budget is split into rounds, the second running
 * the tasks in reverse order, and each implementation keeps its best round's median: a
 * burst of load from elsewhere on the machine then spoils one round, not the result.
 */
async function timeCase(c, text, bytes, options = benchOptions(bytes)) {
  const rounds = quick ? 1 : 2
  const tasks = Object.entries(c.impls).map(([name, fn]) => [name, batched(fn, text, batchSize(fn, text))])
  const medians = {}
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({ ...options, time: options.time / rounds, throws: true })
    for (const [name, fn] of round % 2 === 0 ? tasks : [...tasks].reverse()) bench.add(name, fn)
    await bench.run()
    for (const task of bench.tasks) medians[task.name] = Math.min(medians[task.name] ?? Infinity, task.result.latency.p50)
  }
  return medians
}

// ---------------------------------------------------------------------------------------
// Checking

function preview(value) {
  const s = typeof value === 'string' ? value : JSON.stringify(value)
  return s.length > 300 ? `${JSON.stringify(s.slice(0, 140))} … ${JSON.stringify(s.slice(-140))} (${s.length} chars)` : JSON.stringify(s)
}

/**
 * Payloads: beyond equal values, every block toolclamp returns as the very same object must
 * be the very same in the other output too (identity is part of the contract).
 */
function checkPayloadOutputs(c, input) {
  const problems = checkOutputs(c, input)
  if (problems.length > 0 || typeof input !== 'object') return problems
  const blocksOf = (value) => (Array.isArray(value) ? value : value.content)
  const inputBlocks = blocksOf(input)
  if (!Array.isArray(inputBlocks) || !inputBlocks.every((b) => b?.type)) return problems // a stream
  const expected = c.impls.toolclamp(input)
  for (const [name, fn] of Object.entries(c.impls)) {
    const got = blocksOf(fn(input))
    blocksOf(expected).forEach((block, i) => {
      if ((block === inputBlocks[i]) !== (got[i] === inputBlocks[i])) problems.push(`${IMPL_LABELS[name]}: block ${i} identity differs`)
    })
  }
  return problems
}

/** Every implementation must return what toolclamp returns. Returns the mismatches. */
function checkOutputs(c, text) {
  let expected
  try {
    expected = c.impls.toolclamp(text)
  } catch (e) {
    return [`toolclamp threw: ${e.message}`]
  }
  const problems = []
  for (const [name, fn] of Object.entries(c.impls)) {
    if (name === 'toolclamp') continue
    const got = fn(text)
    try {
      if (typeof expected === 'string') assert.equal(got, expected)
      else assert.deepEqual(got, expected)
    } catch {
      problems.push(`${IMPL_LABELS[name]} differs\n    toolclamp: ${preview(expected)}\n    ${name}: ${preview(got)}`)
    }
  }
  return problems
}

// ---------------------------------------------------------------------------------------
// Formatting

function formatTime(ms) {
  // Rounded first, so 999.6 µs reads 1.00 ms, not 1.00e+3 µs.
  const ns = Number((ms * 1e6).toPrecision(3))
  if (ns < 1000) return `${ns.toPrecision(3)} ns`
  if (ns < 1e6) return `${(ns / 1e3).toPrecision(3)} µs`
  if (ns < 1e9) return `${(ns / 1e6).toPrecision(3)} ms`
  return `${(ns / 1e9).toPrecision(3)} s`
}

/** How toolclamp compares with another implementation, from their medians. */
function formatRatio(other, mine) {
  const r = other / mine
  const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))
  return r >= 1 ? `${fmt(r)}x faster` : `${fmt(1 / r)}x slower`
}

function targetText(check, medians) {
  const ratio = medians[check.vs] / medians.toolclamp
  const pass = ratio >= check.min
  const what =
    check.min === 1 ? `not slower than ${check.vs === 'best' ? '(b)' : '(a)'}` : `≥${check.min}x vs ${check.vs === 'best' ? '(b)' : '(a)'}`
  return { pass, text: `${pass ? 'PASS' : 'MISS'} ${what}` }
}

function columnsFor(c) {
  const cols = ['size', 'kind', 'toolclamp']
  if (c.impls.seed) cols.push('seed port (a)')
  cols.push('best JS (b)')
  if (c.impls.seed) cols.push('toolclamp vs (a)')
  cols.push('toolclamp vs (b)', 'target')
  return cols
}

function rowFor(c, r) {
  if (r.excluded) {
    const row = [r.size, r.kind, 'excluded']
    while (row.length < columnsFor(c).length - 1) row.push('')
    row.push(r.excluded)
    return row
  }
  const m = r.medians
  const row = [r.size, r.kind, formatTime(m.toolclamp)]
  if (c.impls.seed) row.push(formatTime(m.seed))
  row.push(formatTime(m.best))
  if (c.impls.seed) row.push(formatRatio(m.seed, m.toolclamp))
  row.push(formatRatio(m.best, m.toolclamp))
  row.push(r.targets.map((t) => t.text).join('; ') || '–')
  return row
}

function textTable(cols, rows) {
  const widths = cols.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) =>
    cells
      .map((s, i) => (i < 2 ? s.padEnd(widths[i]) : s.padStart(widths[i])))
      .join('  ')
      .trimEnd()
  return [line(cols), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

function markdownTable(cols, rows) {
  const align = cols.map((_, i) => (i < 2 ? ':--' : i === cols.length - 1 ? ':--' : '--:'))
  return [cols, align, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n')
}

// ---------------------------------------------------------------------------------------
// Main

async function main() {
  const selected = (c) => filters.length === 0 || filters.some((f) => c.id.toLowerCase().includes(f.toLowerCase()))
  const cases = CASES.filter(selected)
  const payloadCases = PAYLOAD_CASES.filter(selected)
  const jsonCases = JSON_CASES.filter(selected)
  const conversations = filters.length === 0 || filters.some((f) => 'conversation'.includes(f.toLowerCase()))
  const streams = filters.length === 0 || filters.some((f) => 'streams'.includes(f.toLowerCase()))
  const normalizing = streams || filters.some((f) => 'normalize'.includes(f.toLowerCase()))
  if (cases.length === 0 && payloadCases.length === 0 && jsonCases.length === 0 && !conversations && !normalizing) {
    console.error(
      `no case matches ${filters.join(', ')}; cases: ${[...CASES, ...PAYLOAD_CASES, ...JSON_CASES].map((c) => c.id).join(', ')}`,
    )
    process.exit(2)
  }
  // The size × kind grid is only built when a string case needs it.
  const gridSizes = cases.length > 0 ? SIZES : []
  const cpus = os.cpus()
  const machine = `Node ${process.version}, ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores`
  console.log(`toolclamp benchmark${quick ? ' (quick)' : ''} — ${machine}`)
  console.log('Sizes are UTF-8 bytes of the input; times are medians per call.\n')

  const started = performance.now()
  const results = new Map([...cases, ...payloadCases].map((c) => [c.id, []]))
  const failures = []

  // Warm every implementation up on the small and mid-size inputs first, so the first
  // rows timed do not pay for the JIT learning types the later rows find ready.
  for (const size of gridSizes.filter((s) => s.bytes <= 64 * KIB)) {
    for (const kind of KINDS) {
      const text = makeInput(kind, size.bytes)
      const calls = size.bytes <= KIB ? 2000 : 20
      for (const c of cases) {
        for (const fn of Object.values(c.impls)) {
          try {
            for (let i = 0; i < calls; i++) sink = fn(text)
          } catch {
            // reported by the output check below
          }
        }
      }
    }
  }

  for (const size of gridSizes) {
    for (const kind of KINDS) {
      const text = makeInput(kind, size.bytes)
      for (const c of cases) {
        const key = `${c.id} ${size.label} ${kind}`
        const known = KNOWN_TOOLCLAMP_BUGS.get(key)
        if (known) {
          results.get(c.id).push({ size: size.label, kind, excluded: `toolclamp bug: ${known}` })
          continue
        }
        const problems = checkOutputs(c, text)
        if (problems.length > 0) {
          failures.push(`${key}:\n  ${problems.join('\n  ')}`)
          results.get(c.id).push({ size: size.label, kind, excluded: 'outputs differ' })
          continue
        }
        process.stderr.write(`timing ${key}…\n`)
        const medians = await timeCase(c, text, size.bytes)
        const targets = c.targets(size.bytes, kind).map((t) => targetText(t, medians))
        results.get(c.id).push({ size: size.label, kind, medians, targets })
      }
    }
  }

  for (const c of payloadCases) await runPayloadCase(c, results.get(c.id), failures)
  const jsonRows = []
  await runJsonCases(jsonCases, jsonRows, failures)
  const { conversationRows, errorRows } = conversations
    ? await runConversationCases({ timeCase, formatTime, benchOptions, quick })
    : { conversationRows: [], errorRows: [] }
  const captureRows = streams ? runCaptureCases({ quick }) : []
  const runRows = streams ? runCommandCases({ quick }) : []
  const normalizeRows = normalizing ? runNormalizeCases({ quick }) : []
  const cliRows = normalizing ? await runCliCases({ quick, normalizeRows }) : []

  const seconds = ((performance.now() - started) / 1000).toFixed(0)
  let passes = 0
  let misses = 0
  const md = [
    `Measured on ${machine}${quick ? ' (quick run: few samples)' : ''}.`,
    '',
    'Sizes are UTF-8 bytes of the input: `ascii` is log lines of 40–120 chars, `cjk` lines mixing',
    'Japanese, emoji and some ASCII. Times are medians per call (tinybench; the better of two',
    'rounds). (a) is a pure-JS port of the seed design (line cap, then a binary search over',
    '`Buffer.byteLength` of slices); (b) is the fastest pure JS we could write. Every',
    'implementation returns exactly what toolclamp returns, checked before timing. The 100 B',
    'and 1 KiB inputs are within the 51,200-byte / 2,000-line and 8,000 / 16,000-char limits,',
    'so those rows time returning the input unchanged.',
  ]
  for (const c of cases) {
    const cols = columnsFor(c)
    const rows = results.get(c.id).map((r) => rowFor(c, r))
    for (const r of results.get(c.id)) {
      for (const t of r.targets ?? []) t.pass ? passes++ : misses++
    }
    console.log(`${c.id}: ${c.title.replaceAll('`', '')}`)
    console.log(textTable(cols, rows))
    console.log('')
    md.push('', `### ${c.title}`, '', markdownTable(cols, rows))
  }
  if (payloadCases.length > 0) {
    md.push(
      '',
      '## Tool payloads and command output',
      '',
      'Best JS (b) for payloads runs the best-JS string clamp on the concatenation of all text and',
      'maps the cut back onto the blocks as toolclamp does; both return equal results with the same',
      'blocks kept as the very same objects, checked before timing. Defaults: 51,200 bytes, 2,000 lines.',
      "toolclamp runs with `snap: 'none'`: the exact cut the competitors make (its default cuts on whole lines).",
    )
  }
  for (const c of payloadCases) {
    const cols = ['input', ...columnsFor(c).slice(1)]
    const rows = results.get(c.id).map((r) => rowFor(c, r))
    for (const r of results.get(c.id)) {
      for (const t of r.targets ?? []) t.pass ? passes++ : misses++
    }
    console.log(`${c.id}: ${c.title.replaceAll('`', '')}`)
    console.log(textTable(cols, rows))
    console.log('')
    md.push('', `### ${c.title}`, '', markdownTable(cols, rows))
  }
  if (jsonRows.length > 0) {
    for (const row of jsonRows) row[4].startsWith('PASS') ? passes++ : misses++
    console.log('json: clampJson against one JSON.stringify of the same value')
    console.log(textTable(JSON_COLUMNS, jsonRows))
    console.log('')
    md.push(
      '',
      '## JSON values',
      '',
      'clampJson against one `JSON.stringify` of the same value, which it also has to do: no pure-JS',
      'library returns the same output to compare with. Each result is checked before timing (it',
      'parses, fits 51,200 bytes, keeps the first record; a value that fits comes back as itself).',
      '',
      markdownTable(JSON_COLUMNS, jsonRows),
    )
  }
  if (conversationRows.length > 0) {
    for (const row of [...conversationRows, ...errorRows]) row.at(-1).startsWith('PASS') ? passes++ : misses++
    console.log('conversation: clampToolResultsInMessages({ contextWindowTokens: 200000 }) against one JSON.stringify of the messages')
    console.log(textTable(CONVERSATION_COLUMNS, conversationRows))
    console.log('')
    console.log('provider errors: classifyProviderError per call')
    console.log(textTable(ERROR_COLUMNS, errorRows))
    console.log('')
    md.push(
      '',
      '## Conversations and provider errors',
      '',
      '`clampToolResultsInMessages(messages, { contextWindowTokens: 200000 })` on pi-agent-core',
      'conversations, against one `JSON.stringify` of the same messages (what sending them costs',
      'anyway). Each result is checked before timing: every tool result within 30% of the window',
      'and all within 50% (by an independent count of 3 UTF-8 bytes a token), or the very same',
      'array back when nothing needs cutting. `classifyProviderError` per call on 1 KiB errors,',
      'each checked for its kind.',
      '',
      markdownTable(CONVERSATION_COLUMNS, conversationRows),
      '',
      markdownTable(ERROR_COLUMNS, errorRows),
    )
  }
  if (captureRows.length + runRows.length + cliRows.length + normalizeRows.length > 0) {
    for (const row of [...captureRows, ...runRows, ...cliRows, ...normalizeRows]) row.at(-1).startsWith('PASS') ? passes++ : misses++
    console.log('streams: createOutputCapture({ maxBytes: 51200, maxLines: 2000, strategy: tail }) per whole stream')
    console.log(textTable(CAPTURE_COLUMNS, captureRows))
    console.log('')
    console.log('runCommand: a child writing log lines, against spawn + collected output + formatExecOutput (separate processes)')
    console.log(textTable(RUN_COLUMNS, runRows))
    console.log('')
    console.log('CLI: toolclamp --strategy tail --max-lines 2000 <file> against wc -l <file> (/usr/bin/time)')
    console.log(textTable(CLI_COLUMNS, cliRows))
    console.log('')
    console.log('normalize: createOutputCapture({ ..., normalize: true }) and the CLI --normalize, against the same without')
    console.log(textTable(NORMALIZE_COLUMNS, normalizeRows))
    console.log('')
    md.push(
      '',
      '## Streams',
      '',
      "`createOutputCapture({ maxBytes: 51200, maxLines: 2000, strategy: 'tail' })` fed a whole stream in",
      '64 KiB Buffers (which split chars, as pipes do), against keeping every chunk and clamping once',
      'at the end (`Buffer.concat`, `toString`, then `truncateText` or the best pure-JS clamp), and',
      'against `Buffer.concat` alone. Outputs are checked equal before timing; past 256 MiB the whole',
      'output no longer fits in a JS string, so only the capture runs.',
      '',
      markdownTable(CAPTURE_COLUMNS, captureRows),
      '',
      '`runCommand` against `spawn` with collected output and `formatExecOutput`, each run in its own',
      "process (peak RSS is that process's `maxRSS`, the child command excluded); texts checked equal.",
      '',
      markdownTable(RUN_COLUMNS, runRows),
      '',
      'The CLI on a file against `wc -l` on it, wall time and peak RSS from `/usr/bin/time`.',
      '',
      markdownTable(CLI_COLUMNS, cliRows),
      '',
      '### Terminal normalisation',
      '',
      'The same capture with `normalize: true`, against it without, fed a pool of distinct 64 KiB',
      'Buffers of varied log lines (plain, or coloured per field with column jumps and `\\r` progress',
      'bars), cycled through; and 1 MiB of far cursor moves, whose normalised text once grew 6,500',
      'times. MB/s is input bytes per second with `normalize`. The CLI row runs `--normalize` on the',
      'file of the CLI table, against the same command without it. Outputs are checked equal to',
      "`truncateText(whole, { normalize: true })` (the CLI's to its output without `--normalize`).",
      '',
      markdownTable(NORMALIZE_COLUMNS, normalizeRows),
    )
  }
  console.log(`targets: ${passes} PASS, ${misses} MISS; ${seconds} s`)
  md.push('', `Targets: ${passes} PASS, ${misses} MISS.`, '')

  if (failures.length > 0) {
    console.error(`\nOUTPUTS DIFFER (these rows were not timed):\n${failures.join('\n')}`)
  }
  if (!quick && filters.length === 0) {
    const path = fileURLToPath(new URL('./results.md', import.meta.url))
    writeFileSync(path, md.join('\n'))
    console.log('wrote bench/results.md')
  } else {
    console.log('bench/results.md not written (quick or filtered run)')
  }
  if (failures.length > 0) process.exitCode = 1
}

/** Checks and times every row of a payload case, both kinds, into `results`. */
async function runPayloadCase(c, results, failures) {
  for (const kind of KINDS) {
    const rows = c.rows(kind)
    const timed = new Map()
    for (const row of rows) {
      const key = `${c.id} ${row.label} ${kind}`
      const input = row.make()
      const problems = checkPayloadOutputs(c, input)
      if (problems.length > 0) {
        failures.push(`${key}:\n  ${problems.join('\n  ')}`)
        results.push({ size: row.label, kind, excluded: 'outputs differ' })
        continue
      }
      process.stderr.write(`timing ${key}…\n`)
      const options = quick ? benchOptions(0) : row.options
      const medians = await timeCase(c, input, row.textBytes, options)
      timed.set(row.label, medians)
      const targets = (c.targets ? c.targets(row) : payloadTargets(row.textBytes)).map((t) => targetText(t, medians))
      const base = row.sameCostAs && timed.get(row.sameCostAs)
      if (base) {
        const ratio = medians.toolclamp / base.toolclamp
        const pass = ratio <= NOISE
        targets.push({ pass, text: `${pass ? 'PASS' : 'MISS'} same cost as ${row.sameCostAs} (${ratio.toFixed(2)}x)` })
      }
      results.push({ size: row.label, kind, medians, targets })
    }
  }
}

await main()
