// toolclamp benchmark: every export against pure-JS implementations that return exactly
// the same output (checked before anything is timed; a run where one differs writes nothing).
//
//   npm run bench                          full run, rewrites bench/results.md and the tables
//                                          of docs/performance.md
//   npm run bench -- --quick               few samples per row (smoke run); also BENCH_QUICK=1
//   npm run bench -- --filter head         only the tables whose id or group contains a word
//                                          (repeatable; plain words work too); --list shows them
//   npm run bench -- --out /tmp/bench      write results.md and performance.md there instead
//   npm run bench:peers                    installs OpenClaw and Gemini CLI for their columns
//                                          (bench/peers/package.json; a full run needs them)
//
// A quick or filtered run writes nothing unless given --out: the committed files always hold
// one whole run. Timings are tinybench medians (latency p50) per call, the better of two
// rounds. Calls shorter than ~20 µs are timed in batches and divided, so the timer's own
// cost does not swamp them.

import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Bench } from 'tinybench'
import toolclamp from '../index.js'
import { runConversationCases, runErrorCases } from './conversations.mjs'
import { runFitsCases } from './fits.mjs'
import { runMcpCases } from './mcp.mjs'
import { KINDS, SIZES, makeInput } from './inputs.mjs'
import * as js from './js-impls.mjs'
import { loadPeers } from './peers.mjs'
import { docsSection, formatRatio, formatTime, machineHeader, resultsPage, spliceSection, textTable } from './report.mjs'
import { runRuntimeCases } from './runtimes.mjs'
import { runCaptureCases, runCliCases, runCommandCases, runNormalizeCases } from './streams.mjs'
import { targetsTable } from './targets.mjs'
import { runFirstUseCases, runTokenCountCases, runTokenHeadCases } from './tokens.mjs'

const { values: flags, positionals } = parseArgs({
  options: {
    quick: { type: 'boolean', default: process.env.BENCH_QUICK === '1' },
    filter: { type: 'string', multiple: true, default: [] },
    out: { type: 'string' },
    list: { type: 'boolean', default: false },
  },
  allowPositionals: true,
})
const quick = flags.quick
const filters = [...flags.filter, ...positionals].map((f) => f.toLowerCase())

// ---------------------------------------------------------------------------------------
// String cases: every size × kind of input (bench/inputs.mjs).

const KIB = 1024
const MIB = 1024 * 1024
const LIMITS = { maxBytes: 51200, maxLines: 2000 }

/** The pure-JS competitors by name. */
const JS_IMPLS = Object.fromEntries(Object.entries(js))

/** How the tables name an input kind. */
const KIND_NAMES = { ascii: 'ASCII', cjk: 'CJK + emoji' }

/** An argument as the call would be written: `{ maxBytes: 51200 }`, `'tail'`, `8000`. */
function show(value) {
  if (typeof value === 'string') return `'${value}'`
  if (typeof value !== 'object') return String(value)
  return `{ ${Object.entries(value)
    .map(([k, v]) => `${k}: ${show(v)}`)
    .join(', ')} }`
}

/**
 * A case timing `toolclamp[fn](text, ...args)` against the best pure JS of the same name
 * (`stringTruncateTail` → `js.bestTruncateTail`) and, with `search`, the binary-search JS.
 * `peers` are shipped functions on the nearest job (`{ label: { fn, upTo? } }`): timed, never
 * checked equal, and only on inputs of at most `upTo` bytes; `note` says how each differs.
 */
function stringCase(
  id,
  title,
  fn,
  args,
  { search = false, guarded = false, headline = false, about, peers = {}, note, sizes = SIZES } = {},
) {
  const name = fn.replace(/^string/, '')
  const jsName = (prefix) => prefix + name[0].toUpperCase() + name.slice(1)
  // Looked up once, so no call pays for the lookup.
  const found = { toolclamp: toolclamp[fn], best: JS_IMPLS[jsName('best')] }
  if (search) found.search = JS_IMPLS[jsName('search')]
  if (guarded) found.guarded = JS_IMPLS[jsName('guarded')]
  const impls = {}
  for (const impl of ['toolclamp', 'search', 'best', 'guarded'].filter((k) => k in found)) {
    const f = found[impl]
    assert.equal(typeof f, 'function', `${id}: no ${impl} implementation of ${fn}`)
    impls[impl] = (t) => f(t, ...args)
  }
  const upTo = {}
  for (const [label, peer] of Object.entries(peers)) {
    impls[label] = peer.fn
    upTo[label] = peer.upTo ?? Infinity
  }
  const code = `\`${fn}(${['text', ...args.map(show)].join(', ')})\``
  return {
    id,
    group: 'strings',
    title,
    code,
    about,
    impls,
    headline,
    sizes,
    peers: upTo,
    note: Object.keys(peers).length > 0 ? note : undefined,
  }
}

// Huge inputs for the head clamp: 512 MiB stops just short of the longest string V8 holds
// (2^29 - 24 units). Building 512 MiB of CJK takes a few GB: run with
// `node --max-old-space-size=8192 bench/index.mjs --filter head` if the heap runs out.
const HUGE_SIZES = [
  { label: '128 MiB', bytes: 128 * MIB },
  { label: '512 MiB', bytes: 512 * MIB - 4 * KIB },
]

// ---------------------------------------------------------------------------------------
// Peers: the shipped functions a user would pick instead (bench/peers.mjs), on the nearest job.

const PEERS = await loadPeers()
const { pi, openclaw, gemini, cliTruncate } = PEERS

/** `{ label: { fn, upTo } }` of the peers that are installed (OpenClaw and Gemini CLI are optional). */
const peersOf = (...entries) => Object.fromEntries(entries.filter(([, peer]) => peer !== undefined))
const when = (pkg, make) => (pkg === undefined ? undefined : make(pkg))

// cli-truncate measures display columns over the whole string (it is made for one terminal
// line): one call on 64 KiB of log lines takes seconds, so it is timed up to 1 KiB only.
const CLI_TRUNCATE_UP_TO = 1024

const NEAREST = 'Peer columns: the nearest job, not equal output (never checked equal).'
const WHOLE_LINES =
  "pi's and OpenClaw's `truncateHead`/`truncateTail` keep whole lines only (pi's `truncateTail` cuts inside a line only when the last line alone is over the budget), add no notice (their tools write one afterwards from the report) and return a report object; the time is the call, `.content` is the text."

const HEAD_PEERS = peersOf(
  ['pi truncateHead', { fn: (t) => pi.truncateHead(t, LIMITS).content }],
  ['OpenClaw truncateHead', when(openclaw, (o) => ({ fn: (t) => o.truncateHead(t, LIMITS).content }))],
)

const STRING_CASES = [
  stringCase('head', 'Head clamp, 51,200 bytes / 2,000 lines', 'stringTruncateHead', [LIMITS], {
    search: true,
    headline: true,
    sizes: [...SIZES, ...HUGE_SIZES],
    peers: HEAD_PEERS,
    note: `${NEAREST} ${WHOLE_LINES}`,
  }),
  stringCase('head-report', 'Head clamp, 51,200 bytes / 2,000 lines, with the full report', 'truncateText', [LIMITS], {
    search: true,
    headline: true,
    peers: peersOf(
      ['pi truncateHead', { fn: (t) => pi.truncateHead(t, LIMITS) }],
      ['OpenClaw truncateHead', when(openclaw, (o) => ({ fn: (t) => o.truncateHead(t, LIMITS) }))],
    ),
    note: `${NEAREST} ${WHOLE_LINES.replace(', `.content` is the text', '')} Their reports count totals, kept lines and bytes; neither counts what was dropped in chars.`,
  }),
  stringCase('head-chars', 'Head clamp, 8,000 chars', 'stringTruncateHead', [8000], {
    guarded: true,
    peers: peersOf(
      ['OpenClaw truncateUtf16Safe', when(openclaw, (o) => ({ fn: (t) => o.truncateUtf16Safe(t, 8000) }))],
      ['cli-truncate', { fn: (t) => cliTruncate(t, 8000, { position: 'end' }), upTo: CLI_TRUNCATE_UP_TO }],
    ),
    note: `${NEAREST} OpenClaw's \`truncateUtf16Safe\` keeps whole surrogate pairs but adds no notice and may split \`\\r\\n\`; cli-truncate counts display columns (a CJK char or an emoji is 2), ends with \`…\` instead of a notice, and is timed up to 1 KiB only (one call on 64 KiB of log lines takes seconds).`,
  }),
  stringCase('tail-chars', 'Tail clamp, 8,000 chars', 'stringTruncateTail', [8000], {
    guarded: true,
    headline: true,
    peers: peersOf(
      ['OpenClaw sliceUtf16Safe', when(openclaw, (o) => ({ fn: (t) => o.sliceUtf16Safe(t, -8000) }))],
      ['cli-truncate', { fn: (t) => cliTruncate(t, 8000, { position: 'start' }), upTo: CLI_TRUNCATE_UP_TO }],
    ),
    note: `${NEAREST} OpenClaw's \`sliceUtf16Safe(text, -8000)\` (the tail counterpart of its \`truncateUtf16Safe\`) keeps whole surrogate pairs but adds no notice; cli-truncate counts display columns, starts with \`…\` instead of a notice, and is timed up to 1 KiB only.`,
  }),
  stringCase('headtail-chars', 'Head + tail clamp, 16,000 chars, 30% head', 'stringTruncateHeadTail', [16000, { headRatio: 0.3 }], {
    guarded: true,
    peers: peersOf(
      [
        'Gemini CLI truncateProportionally',
        when(gemini, (g) => ({ fn: (t) => g.truncateProportionally(t, 16000, g.TOOL_TRUNCATION_PREFIX, 0.3) })),
      ],
      [
        'Gemini CLI formatTruncatedToolOutput',
        when(gemini, (g) => ({ fn: (t) => g.formatTruncatedToolOutput(t, 'tool-output.txt', 16000) })),
      ],
      ['cli-truncate', { fn: (t) => cliTruncate(t, 16000, { position: 'middle' }), upTo: CLI_TRUNCATE_UP_TO }],
    ),
    note: `${NEAREST} Gemini CLI's \`truncateProportionally\` cuts by plain \`substring\` (it can split a surrogate pair or \`\\r\\n\`) and writes a fixed prefix line and \`...\` without counts; \`formatTruncatedToolOutput\` keeps a fixed 20% head, splits pairs too, and its notice (with the omitted count) comes on top of the 16,000 chars; cli-truncate counts display columns and is timed up to 1 KiB only.`,
  }),
  stringCase('head-bytes', 'Head clamp, 51,200 bytes', 'stringTruncateHead', [{ maxBytes: 51200 }], {
    guarded: true,
    peers: peersOf(['OpenClaw truncateUtf8Prefix', when(openclaw, (o) => ({ fn: (t) => o.truncateUtf8Prefix(t, 51200) }))]),
    note: `${NEAREST} OpenClaw's \`truncateUtf8Prefix\` encodes the first 51,200 UTF-16 units, drops a char cut in half and decodes the rest: no notice, so it never counts the text.`,
  }),
  stringCase('tail-bytes', 'Tail clamp, 51,200 bytes', 'stringTruncateTail', [{ maxBytes: 51200 }], {
    guarded: true,
    headline: true,
    // 128 MiB: what the notice's count of the whole text costs where OpenClaw's costs nothing.
    sizes: [...SIZES, HUGE_SIZES[0]],
    peers: peersOf(['OpenClaw truncateUtf8Suffix', when(openclaw, (o) => ({ fn: (t) => o.truncateUtf8Suffix(t, 51200) }))]),
    note: `${NEAREST} OpenClaw's \`truncateUtf8Suffix\` encodes the last 51,201 UTF-16 units, drops a char cut in half and decodes the rest: no notice, so it never counts the text; toolclamp's notice names the bytes dropped, a count of the whole text.`,
  }),
  stringCase('tail-bytes-lines', 'Tail clamp, 51,200 bytes / 2,000 lines', 'stringTruncateTail', [LIMITS], {
    peers: peersOf(
      ['pi truncateTail', { fn: (t) => pi.truncateTail(t, LIMITS).content }],
      ['OpenClaw truncateTail', when(openclaw, (o) => ({ fn: (t) => o.truncateTail(t, LIMITS).content }))],
    ),
    note: `${NEAREST} ${WHOLE_LINES}`,
  }),
  stringCase('report-tail', 'Tail clamp, 51,200 bytes / 2,000 lines, with the full report', 'truncateText', [
    { ...LIMITS, strategy: 'tail' },
  ]),
  stringCase('report-headtail', 'Head + tail clamp, 51,200 bytes / 2,000 lines, 30% head, with the full report', 'truncateText', [
    { ...LIMITS, strategy: 'headTail', headRatio: 0.3 },
  ]),
  stringCase('measure', 'Measuring chars, bytes and lines', 'measureText', [], {
    about: 'best JS is `Buffer.byteLength` and an `indexOf` newline count',
  }),
]

// ---------------------------------------------------------------------------------------
// Tool-payload cases: fixed inputs instead of the size × kind grid. Each row has its input,
// the UTF-8 bytes of all its text (which sets the timing budget) and a label.

const textBlock = (text) => ({ type: 'text', text })

/** `text` in blocks of about `bytes` UTF-8 bytes each, cut after a line break. Each block's
 * text is decoded from its own bytes, a flat string like a tool's real output, not a slice
 * that points into one big string. */
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
    blocks.push(textBlock(Buffer.from(text.slice(start, end), 'utf8').toString('utf8')))
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
const EXACT_CODE = "{ snap: 'none', strategy: 'head' }"

const payloadImpls = {
  toolclamp: (result) => toolclamp.hardTruncateToolPayload(result, EXACT),
  best: (result) => js.bestTruncateToolPayload(result),
}

const IMAGE_CHARS = 10_000_000

// pi's `details` stays out of the budget but is bounded to 8 KiB of compact JSON: small
// results carry it, so the best JS for them measures it too (one JSON.stringify, whose
// length proves it fits), as toolclamp does.
const DETAILS_MAX_BYTES = 8 * KIB

const smallPayloadImpls = {
  toolclamp: payloadImpls.toolclamp,
  best: (result) => {
    const details = typeof result === 'object' ? result.details : undefined
    if (details !== undefined && JSON.stringify(details).length * 3 > DETAILS_MAX_BYTES) throw new Error('details do not fit')
    return js.bestTruncateToolPayload(result)
  },
}

// Streams read once per run: 256 partials from 64 KiB to 16 MiB.
const STREAM_OPTIONS = { time: 1000, warmupTime: 0, iterations: 4, warmupIterations: 1 }

const PAYLOAD_CASES = [
  {
    id: 'payload-small',
    title: 'Small tool results, within the default limits',
    code: `\`hardTruncateToolPayload(result, ${EXACT_CODE})\``,
    about: 'best JS measures `details` too (its compact JSON, bounded to 8 KiB), as toolclamp does',
    impls: smallPayloadImpls,
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
    title: 'A tool result with one 1 MiB text block',
    code: `\`hardTruncateToolPayload({ content: [textBlock], details }, ${EXACT_CODE})\``,
    impls: payloadImpls,
    headline: true,
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
    title: 'A tool result of 200 text blocks of ~1 KiB, one budget across all',
    code: `\`hardTruncateToolPayload([...blocks], ${EXACT_CODE})\``,
    impls: payloadImpls,
    headline: true,
    rows: (kind) => [{ label: '200 × 1 KiB blocks', textBytes: 200 * KIB, make: () => textBlocks(makeInput(kind, 200 * KIB), KIB) }],
  },
  {
    id: 'payload-image',
    title: 'A 10 MB base64 image beside 1 MiB of text',
    code: `\`hardTruncateToolPayload([textBlock, imageBlock], ${EXACT_CODE})\``,
    about: 'the image is passed through untouched, so both rows should cost the same',
    impls: payloadImpls,
    rows: (kind) => {
      const text = makeInput(kind, MIB)
      return [
        { label: '1 MiB text', textBytes: MIB, make: () => [textBlock(text)] },
        { label: '1 MiB text + 10 MB image', textBytes: MIB, make: () => [textBlock(text), imageBlock(IMAGE_CHARS)] },
      ]
    },
  },
  {
    id: 'payload-stream',
    title: 'Streaming tool updates: the whole output so far, every 64 KiB up to 16 MiB',
    code: `\`wrapOnUpdate(onUpdate, ${EXACT_CODE})\``,
    about: 'time per whole stream of 256 updates',
    impls: {
      toolclamp: (partials) => streamThrough((onUpdate) => toolclamp.wrapOnUpdate(onUpdate, EXACT), partials),
      best: (partials) => streamThrough(js.bestWrapOnUpdate, partials),
    },
    headline: true,
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
    title: "Command output in Buffers, each stream's last 8,000 chars",
    code: "`formatExecOutput({ stdout, stderr, exitCode }, { snap: 'none', strategy: 'tail' })`",
    about: 'best JS is `buf.toString()` and an O(1) chars tail',
    impls: {
      toolclamp: (result) => toolclamp.formatExecOutput(result, { snap: 'none', strategy: 'tail' }).text,
      best: (result) => js.bestFormatExecOutput(result),
    },
    headline: true,
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
].map((c) => ({ group: 'payload', ...c }))

// JSON values: clampJson against one JSON.stringify of the same value (no pure-JS library
// fits a JSON value into a byte budget and keeps it valid, so there is no competitor that
// returns the same output). Before timing, the result is checked: it parses, fits, and keeps
// the first items.
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
    rows: [
      { label: '10 MB, 54k log records, cut to 51,200 bytes', make: () => logRecords(10_000_000), options: { maxBytes: 51_200 } },
      { label: '1 MB, 5.4k log records, cut to 51,200 bytes', make: () => logRecords(1_000_000), options: { maxBytes: 51_200 } },
    ],
  },
  {
    id: 'json-small',
    rows: [
      {
        label: '120 B object that fits',
        make: () => ({ command: 'ls -la', exitCode: 0, stdout: 'total 8\nREADME.md\n', stderr: '', durationMs: 12 }),
      },
      { label: '900 B, 8 records that fit', make: () => logRecords(800) },
    ],
  },
].map((c) => ({ group: 'json', ...c }))

const JSON_TABLE = {
  title: 'Fitting a JSON value into 51,200 bytes, against one `JSON.stringify`',
  code: '`clampJson(value, { maxBytes: 51200 })`',
  about: 'each result is checked to parse, fit and keep the first record; a value that fits comes back as itself',
  columns: ['input', 'clampJson', 'JSON.stringify', 'ratio vs JSON.stringify'],
  headline: true,
}

/** Checks and times the JSON cases: toolclamp's clampJson and one JSON.stringify. */
async function runJsonCases(cases, failures) {
  const rows = []
  for (const c of cases) {
    for (const row of c.rows) {
      const value = row.make()
      const key = `clampJson, ${row.label}`
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
      rows.push([
        row.label,
        formatTime(medians.toolclamp),
        formatTime(medians.stringify),
        formatRatio(medians.toolclamp, medians.stringify),
      ])
    }
  }
  return rows
}

const IMPL_LABELS = { toolclamp: 'toolclamp', search: 'binary-search JS', best: 'best JS', guarded: 'JS, same guarantees' }

/** How a column names an implementation: a peer's key is its label. */
const labelOf = (name) => IMPL_LABELS[name] ?? name

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

/** Every implementation must return what toolclamp returns (a peer, on the nearest job, only
 * a string or an object). Returns the mismatches. */
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
    if (c.peers && name in c.peers) {
      if (typeof got !== 'string' && typeof got?.content !== 'string') problems.push(`${name} returned ${preview(got)}`)
      continue
    }
    try {
      if (typeof expected === 'string') assert.equal(got, expected)
      else assert.deepEqual(got, expected)
    } catch {
      problems.push(`${labelOf(name)} differs\n    toolclamp: ${preview(expected)}\n    ${name}: ${preview(got)}`)
    }
  }
  return problems
}

// ---------------------------------------------------------------------------------------
// Tables

/** Columns of a case against pure JS: times, then toolclamp's time over each other's. */
function columnsFor(c) {
  const others = Object.keys(c.impls).filter((name) => name !== 'toolclamp')
  return ['input', 'toolclamp', ...others.map(labelOf), ...others.map((name) => `ratio vs ${labelOf(name)}`)]
}

function rowFor(c, label, medians) {
  const others = Object.keys(c.impls).filter((name) => name !== 'toolclamp')
  return [
    label,
    formatTime(medians.toolclamp),
    ...others.map((name) => (medians[name] === undefined ? '—' : formatTime(medians[name]))),
    ...others.map((name) => formatRatio(medians.toolclamp, medians[name])),
  ]
}

const tableOf = (c, rows) => ({
  title: c.title,
  code: c.code,
  about: c.about,
  columns: columnsFor(c),
  rows,
  headline: c.headline,
  note: c.note,
})

/** The case with only the implementations that are timed on `bytes` of input (peers have a cap). */
function withinReach(c, bytes) {
  if (!c.peers) return c
  const impls = Object.fromEntries(Object.entries(c.impls).filter(([name]) => !(name in c.peers) || bytes <= c.peers[name]))
  return { ...c, impls }
}

// ---------------------------------------------------------------------------------------
// Running

/** Checks and times a string case on every size × kind; returns its table. */
async function runStringCase(c, failures) {
  const rows = []
  for (const size of c.sizes) {
    for (const kind of KINDS) {
      const label = `${KIND_NAMES[kind]}, ${size.label}`
      const key = `${c.title}, ${label}`
      const text = makeInput(kind, size.bytes)
      const reach = withinReach(c, size.bytes)
      const problems = checkOutputs(reach, text)
      if (problems.length > 0) {
        failures.push(`${key}:\n  ${problems.join('\n  ')}`)
        continue
      }
      process.stderr.write(`timing ${key}…\n`)
      rows.push(rowFor(c, label, await timeCase(reach, text, size.bytes)))
    }
  }
  return tableOf(c, rows)
}

/** Checks and times every row of a payload case, both kinds; returns its table. */
async function runPayloadCase(c, failures) {
  const rows = []
  for (const kind of KINDS) {
    for (const row of c.rows(kind)) {
      const label = `${row.label}, ${KIND_NAMES[kind]}`
      const key = `${c.title}, ${label}`
      const input = row.make()
      const problems = checkPayloadOutputs(c, input)
      if (problems.length > 0) {
        failures.push(`${key}:\n  ${problems.join('\n  ')}`)
        continue
      }
      process.stderr.write(`timing ${key}…\n`)
      const options = quick ? benchOptions(0) : row.options
      rows.push(rowFor(c, label, await timeCase(c, input, row.textBytes, options)))
    }
  }
  return tableOf(c, rows)
}

/** Warms every string implementation up on the small and mid-size inputs, so the first rows
 * timed do not pay for the JIT learning types the later rows find ready. */
function warmUp(cases) {
  for (const size of SIZES.filter((s) => s.bytes <= 64 * KIB)) {
    for (const kind of KINDS) {
      const text = makeInput(kind, size.bytes)
      const calls = size.bytes <= KIB ? 2000 : 20
      for (const c of cases) {
        for (const fn of Object.values(withinReach(c, size.bytes).impls)) {
          // A slow peer (cli-truncate takes milliseconds on 1 KiB) stops warming after 100 ms.
          const t0 = performance.now()
          try {
            for (let i = 0; i < calls && performance.now() - t0 < 100; i++) sink = fn(text)
          } catch {
            // reported by the output check
          }
        }
      }
    }
  }
}

// Every table: its id and group (what --filter matches), its title (what --list shows) and
// how to run it.
const SECTIONS = [
  ...STRING_CASES.map((c) => ({ ...c, run: (failures) => runStringCase(c, failures) })),
  ...PAYLOAD_CASES.map((c) => ({ ...c, run: (failures) => runPayloadCase(c, failures) })),
  {
    id: 'json',
    group: 'json',
    title: JSON_TABLE.title,
    parts: JSON_CASES,
    run: async (failures, selected) => ({ ...JSON_TABLE, rows: await runJsonCases(JSON_CASES.filter(selected), failures) }),
  },
  {
    id: 'conversation',
    group: 'conversation',
    title: 'Clamping a conversation',
    run: () => runConversationCases({ timeCase, benchOptions, quick }),
  },
  { id: 'fits', group: 'fits', title: 'Inputs that fit: every export', run: () => runFitsCases({ timeCase, benchOptions, quick }) },
  {
    id: 'tokens-count',
    group: 'tokens',
    title: 'Counting exact tokens',
    run: (failures) => runTokenCountCases({ quick, failures }),
  },
  {
    id: 'tokens-head',
    group: 'tokens',
    title: 'A head cut within exact tokens',
    run: (failures) => runTokenHeadCases({ timeCase, failures }),
  },
  { id: 'tokens-load', group: 'tokens', title: 'The first use of a vocabulary', run: () => runFirstUseCases({ quick }) },
  { id: 'provider-errors', group: 'conversation', title: 'Telling a provider error apart', run: () => runErrorCases({ timeCase }) },
  { id: 'capture', group: 'streams', title: 'Capturing streamed output', run: () => runCaptureCases({ quick }) },
  { id: 'run-command', group: 'streams', title: 'Running a command', run: () => runCommandCases({ quick }) },
  // The CLI's --normalize row belongs to the normalisation table: one run gives both.
  { id: 'cli', group: 'streams', title: 'The CLI on a file', run: async (_, __, shared) => (await shared.cli()).table },
  {
    id: 'normalize',
    group: 'streams',
    title: 'Terminal normalisation (runs the CLI too)',
    run: async (_, __, shared) => runNormalizeCases({ quick, cliRow: (await shared.cli()).normalizeRow }),
  },
  { id: 'mcp-proxy', group: 'streams', title: 'The MCP proxy: a small call, big results', run: () => runMcpCases({ quick }) },
  {
    id: 'wasm',
    group: 'runtimes',
    title: 'The WebAssembly build beside the native addon',
    run: (failures) => runRuntimeCases({ quick, failures }),
  },
]

/** The words a section answers to: its id, its group, and the ids of its parts. */
const namesOf = (s) => [s.id, s.group, ...(s.parts ?? []).map((p) => p.id)]

const matches = (names) => filters.length === 0 || filters.some((f) => names.some((n) => n.includes(f)))

async function main() {
  if (flags.list) {
    for (const s of SECTIONS) console.log(`${namesOf(s).join(' ').padEnd(40)} ${s.title ?? ''}`)
    return
  }
  const sections = SECTIONS.filter((s) => matches(namesOf(s)))
  if (sections.length === 0) {
    console.error(`no table matches ${filters.join(', ')}; npm run bench -- --list shows them`)
    process.exit(2)
  }
  // The committed tables always have every peer column.
  const missing = Object.entries({ OpenClaw: openclaw, 'Gemini CLI': gemini }).filter(([, peer]) => peer === undefined)
  if (missing.length > 0) {
    const names = missing.map(([name]) => name).join(' and ')
    if (!quick && filters.length === 0 && !flags.out) {
      console.error(`${names} not installed: npm run bench:peers installs them (bench/peers/package.json)`)
      process.exit(2)
    }
    console.error(`${names} not installed, so their columns are left out (npm run bench:peers installs them)`)
  }
  const subset = filters.length > 0 ? `only ${filters.join(', ')}` : ''
  const note = [quick && 'quick run: few samples', subset].filter(Boolean).join('; ')
  const header = machineHeader({ note })
  console.log(`toolclamp benchmark — ${header}\n`)

  const started = performance.now()
  const failures = []
  warmUp(sections.filter((s) => s.group === 'strings'))
  let cli
  const shared = { cli: () => (cli ??= runCliCases({ quick })) }
  const tables = []
  for (const s of sections) {
    const table = await s.run(failures, (part) => matches([part.id, s.group]), shared)
    if (table.rows.length === 0) continue
    tables.push({ ...table, id: s.id })
    console.log(`${textTable(table)}\n`)
  }
  // The targets first: the page opens with what was met and what was not.
  const targets = targetsTable(tables)
  if (targets.rows.length > 0) {
    tables.unshift(targets)
    console.log(`${textTable(targets)}\n`)
  }
  const minutes = (performance.now() - started) / 60000
  console.log(`${tables.length} tables in ${minutes.toFixed(1)} min`)

  if (failures.length > 0) {
    console.error(`\nOUTPUTS DIFFER (these rows were not timed, and nothing is written):\n${failures.join('\n')}`)
    process.exitCode = 1
    return
  }
  write(header, tables, { partial: quick || filters.length > 0 })
}

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const DOCS = path.join(ROOT, 'docs/performance.md')
const RESULTS = path.join(ROOT, 'bench/results.md')

const INTRO = [
  'Every table times toolclamp against pure JavaScript that returns exactly the same result',
  '(checked before timing). Times are medians per call; a ratio is toolclamp’s time divided by',
  'the other’s: below 1 toolclamp is faster (0.25: a quarter of the time), above 1 slower.',
  'Sizes are UTF-8 bytes of the input: ASCII is log lines of 40–120 chars, CJK + emoji lines',
  'mixing Japanese, emoji and some ASCII. The 100 B and 1 KiB inputs fit every limit used, so',
  'those rows time returning the input unchanged. "Best JS" is the fastest pure JS we could',
  'write for the same job; "binary-search JS" is the straightforward clamp (the line cap, then a',
  'binary search over `Buffer.byteLength` of prefixes).',
]

/** Writes bench/results.md and the section of docs/performance.md, or both into --out. */
function write(header, tables, { partial }) {
  const results = resultsPage(header, INTRO, tables)
  const docs = spliceSection(readFileSync(DOCS, 'utf8'), docsSection(header, tables))
  if (flags.out) {
    mkdirSync(flags.out, { recursive: true })
    writeFileSync(path.join(flags.out, 'results.md'), results)
    writeFileSync(path.join(flags.out, 'performance.md'), docs)
    console.log(`wrote results.md and performance.md in ${flags.out}`)
  } else if (partial) {
    console.log('nothing written: a quick or filtered run writes only with --out DIR')
  } else {
    writeFileSync(RESULTS, results)
    writeFileSync(DOCS, docs)
    console.log('wrote bench/results.md and docs/performance.md')
  }
}

await main()
