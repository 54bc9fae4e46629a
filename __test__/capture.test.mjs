// createOutputCapture: output written in chunks split anywhere (strings, Buffers, both) ends
// exactly as truncateText of the whole; snapshots are truncateText of what came so far;
// raw captures keep bytes as they came; a head settles early; the spill file streams the
// whole output; memory stays bounded over a gigabyte; bad options and hostile callers get
// clear errors. FC_RUNS sets the runs per property (default 2,000).
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { Worker } from 'node:worker_threads'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'

import { createOutputCapture, truncateText } from '../index.mjs'
import terminal from '../lib/text/terminal.js'

// The normalisation alone, as the `normalize` option of truncateText and the command functions
// applies it (no longer a public function: see the equivalence property in terminal.test.mjs).
const { normalizeTerminalOutput } = terminal
import { measure, fits, formatCount, FALLBACK_NOTICES } from './reference.mjs'
import { collectWarnings } from './helpers.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 2000)
const check = (property, runs = RUNS) => fc.assert(property, { numRuns: runs })
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)

const DEFAULT_MAX_BYTES = 51200
const DEFAULT_MAX_LINES = 2000
const FFFD = Buffer.from('\uFFFD')

// ---- Inputs

// Every boundary a chunk may split: multi-byte chars, a surrogate pair written whole and in
// halves, lone surrogates, \r\n, escape sequences (CSI, OSC), backspaces, C0 and C1 controls.
const TEXT_PIECES = [
  'a',
  'b',
  'Z',
  ' ',
  '\n',
  '\r\n',
  '\r',
  'é',
  'ÿ',
  '\x80',
  '日',
  '😀',
  '\uD83D',
  '\uDE00',
  '\uD800',
  '\uDC00',
  '\0',
  '\t',
  '\b',
  '\x07',
  '\x1b',
  '\x1b[31m',
  '\x1b[0m',
  '\x1b[K',
  '\x1b[2K',
  '\x1b]0;t\x07',
  '\x1b[3D',
  '[',
  'line\n',
]
// Bytes that are not UTF-8: stray continuation bytes, cut sequences, overlongs, encoded
// surrogates, code points past U+10FFFF, 5-byte forms.
const INVALID_BYTES = [
  [0xff],
  [0xfe],
  [0x80],
  [0xbf],
  [0xc3],
  [0xc0, 0xaf],
  [0xe6, 0x97],
  [0xe6],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf0, 0x9f, 0x98],
  [0xf0, 0x9f],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
].map((b) => Buffer.from(b))
const isSurrogate = (s) => /^[\uD800-\uDFFF]$/.test(s)
/** Byte pieces: the text pieces' UTF-8 (a lone surrogate's is U+FFFD, left out: raw tests look for it) and invalid bytes. */
const BYTE_PIECES = [...TEXT_PIECES.filter((p) => !isSurrogate(p)).map((p) => Buffer.from(p)), ...INVALID_BYTES]

const withRuns = (piece, join) =>
  fc.oneof(
    { weight: 30, arbitrary: piece },
    { weight: 1, arbitrary: fc.tuple(piece, fc.integer({ min: 2, max: 200 })).map(([p, n]) => join(Array(n).fill(p))) },
  )
const textPiece = withRuns(fc.constantFrom(...TEXT_PIECES), (a) => a.join(''))
const bytePiece = withRuns(fc.constantFrom(...BYTE_PIECES), (a) => Buffer.concat(a))
// Mostly tens to hundreds of chars, with a share of tiny inputs where edge cases live.
const sized = (piece, maxLength) =>
  fc.oneof({ weight: 1, arbitrary: fc.array(piece, { maxLength }) }, { weight: 2, arbitrary: fc.array(piece, { maxLength, size: 'max' }) })
const textArb = (maxLength = 100) => sized(textPiece, maxLength).map((a) => a.join(''))
const bytesArb = (maxLength = 100) => sized(bytePiece, maxLength).map((a) => Buffer.concat(a))
/** Where to cut a segment: numbers taken modulo its length + 1, repeats giving empty chunks. */
const cutsArb = fc.array(fc.nat(), { maxLength: 12 })

const stringSegment = fc.record({ kind: fc.constant('string'), data: textArb(), cuts: cutsArb })
const bytesSegment = (data = bytesArb()) =>
  fc.record({ kind: fc.constant('bytes'), data, cuts: cutsArb, view: fc.constantFrom('buffer', 'uint8', 'offset') })
/** Strings only, bytes only, or both in turn. */
const segmentsArb = fc.oneof(
  fc.tuple(stringSegment),
  fc.tuple(bytesSegment()),
  fc.array(fc.oneof(stringSegment, bytesSegment()), { minLength: 2, maxLength: 5 }),
)

/** A Uint8Array over its own memory, or over the middle of a larger buffer with 0xff around it. */
function asView(bytes, view) {
  if (view === 'buffer') return Buffer.from(bytes)
  if (view === 'uint8') return new Uint8Array(bytes)
  const big = Buffer.alloc(bytes.length + 8, 0xff)
  bytes.copy(big, 4)
  return new Uint8Array(big.buffer, big.byteOffset + 4, bytes.length)
}

/** A segment cut into chunks at its cut points. */
function chunksOf(segment) {
  const { data, cuts } = segment
  const at = cuts.map((c) => c % (data.length + 1)).sort((a, b) => a - b)
  const bounds = [0, ...at, data.length]
  const chunks = []
  for (let i = 1; i < bounds.length; i++) {
    const piece = data.slice(bounds[i - 1], bounds[i])
    chunks.push(segment.kind === 'string' ? piece : asView(Buffer.from(piece), segment.view))
  }
  return chunks
}

/**
 * The text of the segments as the capture must decode it: consecutive strings joined and
 * made well-formed (a lone surrogate is U+FFFD), consecutive bytes joined and decoded as
 * Buffer#toString does; a char split between a string and bytes is two invalid halves. An
 * empty chunk writes nothing, so it splits nothing.
 */
function decodedText(all) {
  const segments = all.filter((s) => s.data.length > 0)
  let text = ''
  for (let i = 0; i < segments.length; ) {
    const kind = segments[i].kind
    let j = i
    while (j < segments.length && segments[j].kind === kind) j++
    const run = segments.slice(i, j).map((s) => s.data)
    text += kind === 'string' ? run.join('').toWellFormed() : Buffer.concat(run).toString()
    i = j
  }
  return text
}

// ---- Options

function whereAndCount(facts) {
  return `${facts.where}: ${facts.omittedChars} of ${facts.totalChars} dropped; lines ${facts.fromLine}-${facts.toLine}`
}
// A notice that gets shorter as more is dropped: the planner must still give the same cut.
function parity(facts) {
  return facts.omittedBytes % 2 === 0 ? 'even' : `an odd number of bytes (${facts.omittedBytes}) was dropped`
}
const NOTICES = [
  undefined,
  '',
  '<snip>',
  'cut\n',
  '[{omitted} at the {where}]',
  'lines {fromLine}-{toLine} of {totalLines}',
  '{headEnd}..{tailStart} of {totalBytes} bytes',
  '{{literal}} {omittedChars} chars, {omittedBytes} bytes, {omittedLines} lines',
  '\uD800 lone {totalChars}',
  whereAndCount,
  parity,
]
const NORMALIZE = [undefined, false, true, { ansi: false }, { carriageReturns: false }, { backspaces: false, controls: false }]

const limitsArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.record({ maxLines: fc.integer({ min: 0, max: 30 }) }) },
  { weight: 1, arbitrary: fc.record({ maxChars: fc.constant(Infinity), maxLines: fc.integer({ min: 0, max: 30 }) }) },
  {
    weight: 12,
    arbitrary: fc.record(
      {
        maxChars: fc.integer({ min: 0, max: 200 }),
        maxBytes: fc.integer({ min: 0, max: 250 }),
        maxLines: fc.integer({ min: 0, max: 20 }),
        maxTokens: fc.integer({ min: 0, max: 80 }),
      },
      { requiredKeys: [] },
    ),
  },
)
const headRatioArb = fc.oneof(fc.constant(undefined), fc.constantFrom(0, 0.5, 1), fc.double({ min: 0, max: 1, noNaN: true }))
const optionsArb = fc
  .record({
    limits: limitsArb,
    strategy: fc.constantFrom(undefined, 'tail', 'head', 'headTail'),
    headRatio: headRatioArb,
    notice: fc.constantFrom(...NOTICES),
    snap: fc.constantFrom(undefined, 'line', 'none'),
    normalize: fc.constantFrom(...NORMALIZE),
  })
  .map(({ limits, ...rest }) => ({ ...limits, ...rest }))

const LIMIT_NAMES = ['maxChars', 'maxBytes', 'maxLines', 'maxTokens']
/**
 * truncateText's options for what a capture with `options` keeps: its strategy (tail by
 * default, where truncateText's is head), and its default budgets: 51,200 bytes and 2,000
 * lines with no limit, 51,200 bytes when neither bytes, chars nor tokens are bounded.
 */
function truncateOptions(options) {
  const out = {}
  for (const [key, value] of Object.entries(options)) if (value !== undefined) out[key] = value
  out.strategy = options.strategy ?? 'tail'
  if (LIMIT_NAMES.every((k) => options[k] === undefined)) return { ...out, maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES }
  const bounded = ['maxChars', 'maxBytes', 'maxTokens'].some((k) => options[k] !== undefined && options[k] !== Infinity)
  if (!bounded) out.maxBytes = DEFAULT_MAX_BYTES
  return out
}

const totalsOf = (r) => ({ chars: r.totalChars, bytes: r.totalBytes, lines: r.totalLines })
const show = (value) =>
  JSON.stringify(value, (k, v) => (Buffer.isBuffer(v) || v?.type === 'Buffer' ? `<${Buffer.from(v.data ?? v).toString('hex')}>` : v))

// ---- 1. Exactness

describe('exactness: end() is truncateText of the whole, for any split', () => {
  test('property: strings, Buffers, Uint8Arrays and mixes, any options', () => {
    check(
      fc.property(segmentsArb, optionsArb, (segments, options) => {
        const whole = decodedText(segments)
        const capture = createOutputCapture(options)
        for (const segment of segments) for (const chunk of chunksOf(segment)) capture.write(chunk)
        const expected = truncateText(whole, truncateOptions(options))
        const result = capture.end()
        assert.deepEqual(result, expected)
        assert.deepEqual(capture.totals, totalsOf(expected))
        assert.equal(capture.end(), result, 'end() again: the same object')
      }),
    )
  })

  test('normalize reads stray bytes 0x80–0x9F as Buffer#toString does (U+FFFD), not as C1 controls', () => {
    // end() is truncateText of the bytes as buf.toString() decodes them: a stray 0x80–0x9F
    // byte (alone, or after a lead byte it cannot follow) is U+FFFD, never a C1 control.
    for (const bytes of [
      [0x80, 0x61],
      [0xed, 0xa0, 0x80, 0x61],
      [0xe0, 0x80, 0x80, 0x61],
      [0xf4, 0x90, 0x80, 0x80, 0x61],
    ]) {
      const input = Buffer.from(bytes)
      const c = createOutputCapture({ normalize: true })
      c.write(input)
      const expected = truncateText(input.toString(), {
        normalize: true,
        strategy: 'tail',
        maxBytes: DEFAULT_MAX_BYTES,
        maxLines: DEFAULT_MAX_LINES,
      })
      assert.equal(c.end().text, expected.text, input.toString('hex'))
    }
  })

  test('{headEnd} and {tailStart} in a notice are UTF-16 offsets, as truncateText names them', () => {
    // NoticeFacts.headEnd/tailStart are UTF-16 offsets (truncateText, and the capture's own
    // result fields); the capture renders its notice from byte offsets, so the notice, and
    // with it what fits beside it, differ from truncateText's.
    const text = 'é'.repeat(30)
    const cases = [
      [{ strategy: 'head', notice: '[{headEnd}/{tailStart}]' }, 'ééééééééééé\n[11/30]'],
      [{ strategy: 'tail', notice: '[{headEnd}/{tailStart}]' }, '[0/19]\nééééééééééé'],
      [{ strategy: 'headTail', notice: (f) => `[${f.headEnd}/${f.tailStart}]` }, 'ééééé\n[5/24]\néééééé'],
    ]
    for (const [options, expected] of cases) {
      const o = { maxBytes: 30, ...options }
      assert.equal(truncateText(text, o).text, expected)
      const c = createOutputCapture(o)
      c.write(text)
      assert.equal(c.end().text, expected, options.strategy)
    }
  })

  test('the JSDoc example', () => {
    const capture = createOutputCapture({ maxBytes: 100, maxLines: 3 })
    for (let i = 1; i <= 1000; i++) capture.write(`line ${i}\n`)
    assert.equal(capture.end().text, '[... 998 lines, 8,874 bytes truncated at the start ...]\nline 999\nline 1000\n')
  })

  test('with no limit: 51,200 bytes and 2,000 lines; only maxLines: 51,200 bytes', () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `${i}`.padStart(40, '.') + '\n').join('')
    const c1 = createOutputCapture()
    c1.write(lines)
    const r1 = c1.end()
    assert.deepEqual(r1, truncateText(lines, { strategy: 'tail', maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES }))
    assert.deepEqual(r1.truncatedBy, ['bytes', 'lines'])
    assert.ok(r1.outputLines <= DEFAULT_MAX_LINES && r1.outputBytes <= DEFAULT_MAX_BYTES)
    const long = 'x'.repeat(60_000)
    const c2 = createOutputCapture({ maxLines: 5 })
    c2.write(long)
    const r2 = c2.end()
    assert.deepEqual(r2.truncatedBy, ['bytes'])
    assert.deepEqual(r2, truncateText(long, { strategy: 'tail', maxLines: 5, maxBytes: DEFAULT_MAX_BYTES }))
    const c3 = createOutputCapture({ maxChars: 100 })
    c3.write(long)
    assert.equal(c3.end().outputChars, 100, 'maxChars bounds memory: no byte default')
  })

  test('a char split across chunks in every way decodes once', () => {
    const text = 'é日😀\r\n\x1b[31mx'
    const bytes = Buffer.from(text)
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j++) {
        const c = createOutputCapture({ maxBytes: 1000 })
        c.write(bytes.subarray(0, i))
        c.write(bytes.subarray(i, j))
        c.write(bytes.subarray(j))
        assert.equal(c.end().text, text, `${i}/${j}`)
      }
    }
    for (let i = 0; i <= text.length; i++) {
      const c = createOutputCapture({ maxBytes: 1000 })
      c.write(text.slice(0, i))
      c.write(text.slice(i))
      assert.equal(c.end().text, text, `string ${i}`)
    }
    // A pair split between a string and a Buffer: two halves, each U+FFFD.
    const mixed = createOutputCapture({ maxBytes: 1000 })
    mixed.write('a\uD83D')
    mixed.write(Buffer.from('b'))
    assert.equal(mixed.end().text, 'a\uFFFDb')
    const cutBytes = createOutputCapture({ maxBytes: 1000 })
    cutBytes.write(Buffer.from([0x61, 0xe6, 0x97]))
    cutBytes.write('\u00a5')
    assert.equal(cutBytes.end().text, 'a\uFFFD\u00a5', 'a cut sequence is not finished by a string')
  })
})

// ---- 2. Snapshots and totals

const codePointText = fc.array(fc.constantFrom(...TEXT_PIECES), { maxLength: 120 }).map((a) => a.join(''))
const isHigh = (c) => c >= 0xd800 && c <= 0xdbff

describe('snapshot() and totals while output arrives', () => {
  test('property: a snapshot is truncateText of the text so far; totals exact after every write; end() undisturbed', () => {
    const options = fc.record({
      limits: limitsArb,
      strategy: fc.constantFrom('tail', 'head', 'headTail'),
      headRatio: headRatioArb,
      notice: fc.constantFrom(...NOTICES),
      snap: fc.constantFrom(undefined, 'line', 'none'),
    })
    check(
      fc.property(
        codePointText,
        cutsArb,
        fc.array(fc.boolean(), { maxLength: 13 }),
        fc.array(fc.boolean(), { maxLength: 13 }),
        options,
        (text, cuts, asBytes, snap, opts) => {
          const { limits, ...rest } = opts
          const o = { ...limits, ...rest }
          // Chunks of whole code points (Array.from keeps a pair together, a lone surrogate alone).
          const points = Array.from(text)
          const at = cuts.map((c) => c % (points.length + 1)).sort((a, b) => a - b)
          const bounds = [0, ...at, points.length]
          const capture = createOutputCapture(o)
          let sofar = ''
          let pending = 0
          for (let i = 1; i < bounds.length; i++) {
            const piece = points.slice(bounds[i - 1], bounds[i]).join('')
            const bytes = asBytes[i % Math.max(asBytes.length, 1)] === true
            capture.write(bytes ? Buffer.from(piece) : piece)
            sofar += piece
            // A string that ends with a high surrogate may get its low half next: not yet counted
            // (an empty chunk changes nothing).
            if (piece !== '') pending = !bytes && isHigh(piece.charCodeAt(piece.length - 1)) ? 1 : 0
            const known = sofar.slice(0, sofar.length - pending).toWellFormed()
            assert.deepEqual(capture.totals, measure(known), `totals after ${show(sofar)}`)
            // (A snapshot with a half char pending: see 'snapshot() leaves out a char still cut off'.)
            if (snap[i % Math.max(snap.length, 1)] === true && pending === 0) {
              assert.deepEqual(capture.snapshot(), truncateText(known, truncateOptions(o)), `snapshot after ${show(sofar)}`)
            }
          }
          const result = capture.end()
          assert.deepEqual(result, truncateText(text.toWellFormed(), truncateOptions(o)))
          assert.equal(capture.snapshot(), result, 'a snapshot after end() is the result')
        },
      ),
    )
  })

  test('snapshots of a long stream cost no growth and stay exact', () => {
    const capture = createOutputCapture({ maxBytes: 300, strategy: 'headTail', maxLines: 8 })
    let sofar = ''
    for (let i = 0; i < 2000; i++) {
      const line = `${i} ${'#'.repeat(i % 50)}\n`
      capture.write(i % 2 ? Buffer.from(line) : line)
      sofar += line
      if (i % 97 === 0) assert.deepEqual(capture.snapshot(), truncateText(sofar, { maxBytes: 300, strategy: 'headTail', maxLines: 8 }))
    }
    assert.deepEqual(capture.end(), truncateText(sofar, { maxBytes: 300, strategy: 'headTail', maxLines: 8 }))
  })

  test('normalize: a snapshot leaves out a char or escape still cut off at the end', () => {
    const c = createOutputCapture({ maxBytes: 100, normalize: true })
    c.write(Buffer.from([0x61, 0xe6]))
    assert.equal(c.snapshot().text, 'a')
    c.write(Buffer.from([0x97, 0xa5]))
    c.write('\x1b[3')
    assert.equal(c.snapshot().text, 'a日')
    c.write('1mred\x1b[0m 10%\r')
    assert.equal(c.snapshot().text, normalizeTerminalOutput('a日\x1b[31mred\x1b[0m 10%\r'))
    c.write('done\n')
    assert.equal(c.end().text, normalizeTerminalOutput('a日\x1b[31mred\x1b[0m 10%\rdone\n'))
  })

  test('normalize: totals never run ahead of a snapshot, and end equal to the result', () => {
    // The line being drawn may still be redrawn or erased: totals count finished lines.
    const c = createOutputCapture({ maxBytes: 100, normalize: true })
    const t = (s) => {
      c.write(s)
      const snap = c.snapshot()
      assert.ok(c.totals.chars <= snap.totalChars && c.totals.bytes <= snap.totalBytes && c.totals.lines <= snap.totalLines, show(s))
    }
    t('abc')
    t('\r\x1b[2K')
    t('done\nnext')
    assert.deepEqual(c.totals, { chars: 5, bytes: 5, lines: 1 })
    const r = c.end()
    assert.deepEqual(c.totals, totalsOf(r))
    assert.equal(r.text, 'done\nnext')
  })

  test('snapshot() leaves out a char still cut off at the end', () => {
    // index.d.ts: "as if it ended now (a char or escape sequence still cut off at the end is
    // left out)"; with normalize it is. Without, the half char is in the snapshot as U+FFFD,
    // counted, and gone again once the rest of the char arrives.
    const bytes = createOutputCapture({ maxBytes: 100 })
    bytes.write(Buffer.from([0x61, 0xe6]))
    const snap = bytes.snapshot()
    assert.equal(snap.text, 'a', 'a cut UTF-8 sequence')
    assert.equal(snap.totalChars, bytes.totals.chars)
    const string = createOutputCapture({ maxBytes: 100 })
    string.write('a\uD83D')
    assert.equal(string.snapshot().text, 'a', 'a cut surrogate pair')
    string.write('\uDE00')
    assert.equal(string.end().text, 'a😀')
  })
})

// ---- 3. Raw

const validUtf8 = (b) => Buffer.from(b.toString()).equals(b)
const countLines = (b) => {
  let n = 0
  for (const byte of b) if (byte === 10) n++
  return b.length === 0 ? 0 : n + (b[b.length - 1] === 10 ? 0 : 1)
}

describe('raw: bytes kept as they came', () => {
  const RAW_NOTICE = '⟨cut {omittedBytes} of {totalBytes}⟩'
  const rawOptions = fc.record(
    {
      maxBytes: fc.integer({ min: 0, max: 300 }),
      maxLines: fc.integer({ min: 0, max: 30 }),
      strategy: fc.constantFrom('tail', 'head', 'headTail'),
      headRatio: headRatioArb,
      notice: fc.constantFrom(undefined, RAW_NOTICE),
      snap: fc.constantFrom(undefined, 'line', 'none'),
    },
    { requiredKeys: ['maxBytes', 'strategy'] },
  )

  test('property: the text is a Buffer of slices of the input and a notice, within maxBytes; no U+FFFD', () => {
    check(
      fc.property(fc.array(bytesSegment(bytesArb(120)), { minLength: 1, maxLength: 3 }), rawOptions, (segments, options) => {
        const capture = createOutputCapture({ ...options, raw: true })
        for (const segment of segments) for (const chunk of chunksOf(segment)) capture.write(chunk)
        const input = Buffer.concat(segments.map((s) => s.data))
        const r = capture.end()
        assert.ok(Buffer.isBuffer(r.text))
        assert.equal(r.outputBytes, r.text.length)
        assert.ok(r.text.length <= options.maxBytes, `${r.text.length} bytes > ${options.maxBytes}`)
        assert.equal(r.totalBytes, input.length)
        assert.equal(r.totalLines, countLines(input))
        assert.equal(capture.totals.bytes, input.length)
        if (!input.includes(FFFD)) assert.ok(!r.text.includes(FFFD), `U+FFFD in ${show(r.text)}`)
        if (!r.truncated) {
          assert.ok(r.text.equals(input))
          return
        }
        assert.ok(r.headEnd <= r.tailStart && r.tailStart <= input.length)
        assert.equal(r.omittedBytes, r.tailStart - r.headEnd)
        const head = input.subarray(0, r.headEnd)
        const tail = input.subarray(r.tailStart)
        assert.ok(r.text.subarray(0, head.length).equals(head), 'the head is the input prefix, byte for byte')
        assert.ok(r.text.subarray(r.text.length - tail.length).equals(tail), 'the tail is the input suffix, byte for byte')
        const middle = r.text.subarray(head.length, r.text.length - tail.length)
        assert.ok(validUtf8(middle), 'the notice is text')
        const notice = middle
          .toString()
          .replace(/^[\n ]/, '')
          .replace(/\n$/, '')
        const full =
          options.notice === undefined
            ? new RegExp(
                `^\\[\\.\\.\\. .* truncated ${{ tail: 'at the start', head: 'at the end', headTail: 'in the middle' }[options.strategy]} \\.\\.\\.\\]$`,
              )
            : new RegExp(`^⟨cut ${formatCount(r.omittedBytes)} of ${formatCount(r.totalBytes)}⟩$`)
        assert.ok(full.test(notice) || FALLBACK_NOTICES.includes(notice), `notice ${show(notice)}`)
        // For valid UTF-8, raw is decoding: the same text as truncateText.
        if (validUtf8(input)) {
          const t = truncateText(input.toString(), truncateOptions(options))
          assert.equal(r.text.toString(), t.text)
          assert.deepEqual(
            { ...r, text: undefined, headEnd: undefined, tailStart: undefined },
            { ...t, text: undefined, headEnd: undefined, tailStart: undefined },
          )
          assert.equal(r.headEnd, Buffer.byteLength(input.toString().slice(0, t.headEnd)))
        }
      }),
    )
  })

  test('invalid bytes at both ends are kept exactly', () => {
    const input = Buffer.concat([Buffer.from([0xff, 0xe6, 0x97]), Buffer.alloc(1000, 0x61), Buffer.from([0xed, 0xa0, 0x80, 0xc3])])
    for (const strategy of ['head', 'tail', 'headTail']) {
      const c = createOutputCapture({ maxBytes: 60, raw: true, strategy })
      for (let i = 0; i < input.length; i += 7) c.write(input.subarray(i, i + 7))
      const { text } = c.end()
      if (strategy !== 'tail') assert.ok(text.subarray(0, 3).equals(input.subarray(0, 3)), strategy)
      if (strategy !== 'head') assert.ok(text.subarray(-4).equals(input.subarray(-4)), strategy)
      assert.ok(!text.includes(FFFD))
      assert.ok(text.length <= 60)
    }
    const whole = createOutputCapture({ raw: true })
    whole.write(input.subarray(0, 2))
    whole.write(input.subarray(2))
    assert.ok(whole.end().text.equals(input), 'not cut: the very bytes')
    const snap = createOutputCapture({ raw: true, maxBytes: 10 })
    snap.write(Buffer.from([0x61, 0xff]))
    assert.ok(snap.snapshot().text.equals(Buffer.from([0x61, 0xff])))
  })
})

// ---- 4. settledHead

describe('settledHead()', () => {
  test('a line budget settles the head once the lines run past it, long before the byte budget', () => {
    const capture = createOutputCapture({ strategy: 'head', maxLines: 3, notice: '[more]' })
    let head
    let written = 0
    for (let i = 1; head === undefined && i <= 100; i++) {
      capture.write(`line ${i}\n`)
      written = i
      head = capture.settledHead()
    }
    assert.equal(head, 'line 1\nline 2\n')
    assert.ok(written <= 6, `settled after ${written} lines`)
    for (let i = written + 1; i <= 1000; i++) capture.write(`line ${i}\n`)
    assert.equal(capture.end().text, 'line 1\nline 2\n[more]')
  })

  const lineText = fc
    .array(fc.oneof(textPiece, fc.constant('a longer line of output\n')), { minLength: 20, maxLength: 200 })
    .map((a) => a.join(''))
  const settleOptions = fc.record(
    {
      maxBytes: fc.integer({ min: 0, max: 300 }),
      maxChars: fc.integer({ min: 0, max: 300 }),
      maxLines: fc.integer({ min: 0, max: 20 }),
      notice: fc.constantFrom(undefined, '', '<snip>', '[{omitted}]', '{totalBytes} bytes, {totalLines} lines', whereAndCount),
      snap: fc.constantFrom(undefined, 'line', 'none'),
    },
    { requiredKeys: ['maxBytes'] },
  )

  test('property: undefined while the output fits; then one head that end() keeps, within the limits', () => {
    check(
      fc.property(lineText, cutsArb, fc.boolean(), fc.nat(3), settleOptions, (text, cuts, bytes, repeat, options) => {
        const whole = text.repeat(repeat + 1)
        const segment = { kind: bytes ? 'bytes' : 'string', data: bytes ? Buffer.from(whole) : whole, cuts, view: 'buffer' }
        const o = { ...options, strategy: 'head' }
        const capture = createOutputCapture(o)
        let head
        let written = bytes ? Buffer.alloc(0) : ''
        for (const chunk of chunksOf(segment)) {
          capture.write(chunk)
          written = bytes ? Buffer.concat([written, chunk]) : written + chunk
          const now = capture.settledHead()
          const sofar = bytes ? written.toString() : written.toWellFormed()
          if (fits(sofar, o)) assert.equal(now, undefined, 'nothing settles while the whole output fits')
          if (head !== undefined) assert.equal(now, head, 'a settled head stays')
          if (now !== undefined) {
            assert.equal(typeof now, 'string')
            head = now
            assert.ok(capture.snapshot().text.startsWith(head), 'a snapshot keeps the settled head')
          }
        }
        const r = capture.end()
        const expected = truncateText(whole.toWellFormed(), truncateOptions(o))
        assert.deepEqual(totalsOf(r), totalsOf(expected))
        assert.equal(r.truncated, expected.truncated)
        assert.ok(fits(r.text, o), `end() within the limits: ${show(r.text)}`)
        if (head === undefined) {
          assert.deepEqual(r, expected)
        } else {
          assert.ok(r.text.startsWith(head), `${show(r.text)} starts with ${show(head)}`)
          assert.equal(r.headEnd, head.length)
          // Room is kept for a notice with 16-digit totals: a few bytes less than truncateText,
          // or, where that notice cannot fit at all, a fallback notice after a longer head.
          const notice = r.text.slice(head.length).replace(/^[\n ]/, '')
          assert.ok(
            r.headEnd <= expected.headEnd || FALLBACK_NOTICES.includes(notice),
            `kept ${r.headEnd} > ${expected.headEnd} with ${show(notice)}`,
          )
        }
      }),
      Math.max(1, Math.floor(RUNS / 2)),
    )
  })

  test('settles once the output is well past any head; raw gives a Buffer', () => {
    const c = createOutputCapture({ strategy: 'head', maxBytes: 100 })
    for (let i = 0; i < 1000 && c.settledHead() === undefined; i++) c.write(`line ${i}\n`)
    const head = c.settledHead()
    assert.equal(typeof head, 'string')
    assert.ok(c.totals.bytes < 100 + 4096, `settled after ${c.totals.bytes} bytes`)
    assert.ok(head.startsWith('line 0\nline 1\n'))
    const r = c.end()
    assert.ok(r.text.startsWith(head) && r.outputBytes <= 100)
    assert.match(r.text.slice(head.length), /^[\n ]?\[\.\.\. .* truncated at the end \.\.\.\]$/)

    const raw = createOutputCapture({ strategy: 'head', maxBytes: 50, raw: true })
    raw.write(Buffer.from([0xff, 0x61, 0x0a]))
    raw.write(Buffer.alloc(10_000, 0x62))
    const rawHead = raw.settledHead()
    assert.ok(Buffer.isBuffer(rawHead))
    assert.ok(rawHead.subarray(0, 3).equals(Buffer.from([0xff, 0x61, 0x0a])))
    assert.ok(raw.end().text.subarray(0, rawHead.length).equals(rawHead))
  })

  test('other strategies: always undefined', () => {
    for (const strategy of [undefined, 'tail', 'headTail']) {
      const c = createOutputCapture({ strategy, maxBytes: 50 })
      for (let i = 0; i < 500; i++) {
        c.write(`line ${i}\n`)
        assert.equal(c.settledHead(), undefined, `${strategy} at ${i}`)
      }
      const r = c.end()
      assert.equal(r.truncated, true)
      assert.equal(c.settledHead(), undefined)
    }
  })
})

// ---- 5. Spill

describe('spill', () => {
  let root
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-capture-'))
  })
  after(() => fs.rmSync(root, { recursive: true, force: true }))
  let dirs = 0
  const freshDir = () => path.join(root, `d${++dirs}`)
  const numbered = (n) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')
  const mode = (p) => fs.statSync(p).mode & 0o777
  const SPILL_NOTICE = '[... {omitted} truncated at the {where}; full output saved to {spillPath} (dropped: lines {fromLine}–{toLine}) ...]'

  test('the whole output streams to a private file named in the notice, kept when cut', () => {
    for (const strategy of ['tail', 'head', 'headTail']) {
      const dir = freshDir()
      const text = numbered(500)
      const reports = []
      const c = createOutputCapture({ maxLines: 20, strategy, spill: { dir, name: 'build', onSpill: (r) => reports.push(r) } })
      for (let i = 0; i < text.length; i += 333) {
        const piece = text.slice(i, i + 333)
        c.write(i % 2 ? Buffer.from(piece) : piece)
        // Written as it arrives, under a temporary name.
        const [temp] = fs.readdirSync(dir)
        assert.match(temp, /^\.build-.*\.tmp$/)
        assert.equal(fs.statSync(path.join(dir, temp)).size, i + piece.length)
      }
      const r = c.end()
      assert.equal(r.truncated, true)
      const file = r.spill.path
      assert.equal(path.dirname(file), dir)
      assert.ok(path.basename(file).startsWith('build-'))
      assert.equal(fs.readFileSync(file, 'utf8'), text)
      assert.equal(mode(file), 0o600)
      assert.equal(mode(dir), 0o700)
      assert.deepEqual(fs.readdirSync(dir), [path.basename(file)], 'no temporary file left')
      assert.ok(r.text.includes(`full output saved to ${file}`), r.text)
      assert.deepEqual(r, {
        ...truncateText(text, { maxLines: 20, maxBytes: DEFAULT_MAX_BYTES, strategy, notice: SPILL_NOTICE.replace('{spillPath}', file) }),
        spill: { path: file },
      })
      assert.deepEqual(reports, [{ path: file }], 'onSpill once, with the report')
      assert.equal(c.end(), r)
      assert.deepEqual(reports.length, 1, 'not again on a second end()')
    }
  })

  test('normalised: the file holds the text as counted, and its lines are the notice’s', () => {
    const dir = freshDir()
    const raw = Array.from({ length: 300 }, (_, i) => `\x1b[32m${i}\x1b[0m 10%\r 99%\r\x1b[Kdone ${i}\r\n`).join('')
    const c = createOutputCapture({ maxLines: 10, normalize: true, spill: { dir } })
    const bytes = Buffer.from(raw)
    for (let i = 0; i < bytes.length; i += 17) c.write(bytes.subarray(i, i + 17))
    const r = c.end()
    const shown = normalizeTerminalOutput(raw)
    assert.equal(fs.readFileSync(r.spill.path, 'utf8'), shown)
    const [, from, to] = r.text.match(/\(dropped: lines (\d+)–(\d+)\)/)
    assert.ok(r.text.includes(`saved to ${r.spill.path} `))
    const lines = shown.split('\n')
    assert.deepEqual([Number(from), Number(to)], [1, 291])
    assert.equal(r.text.split('\n').slice(1).join('\n'), lines.slice(291).join('\n'))
    assert.deepEqual(r, {
      ...truncateText(raw, {
        maxLines: 10,
        maxBytes: DEFAULT_MAX_BYTES,
        normalize: true,
        strategy: 'tail',
        notice: SPILL_NOTICE.replace('{spillPath}', r.spill.path),
      }),
      spill: { path: r.spill.path },
    })
  })

  test('not cut: no file kept, no temporary file left, no report', () => {
    const dir = freshDir()
    let called = 0
    const c = createOutputCapture({ maxBytes: 1000, spill: { dir, onSpill: () => called++ } })
    c.write('short\n')
    c.write(Buffer.from('output\n'))
    const r = c.end()
    assert.equal(r.truncated, false)
    assert.equal(r.spill, undefined)
    assert.deepEqual(fs.existsSync(dir) ? fs.readdirSync(dir) : [], [])
    assert.equal(called, 0)
  })

  test('a dir that cannot be made: the clamp is as without spill, the notice names no file', () => {
    const blocker = path.join(freshDir(), 'file')
    fs.mkdirSync(path.dirname(blocker), { recursive: true })
    fs.writeFileSync(blocker, 'not a directory')
    const reports = []
    const text = numbered(100)
    const c = createOutputCapture({ maxLines: 10, spill: { dir: path.join(blocker, 'sub'), onSpill: (r) => reports.push(r) } })
    c.write(text)
    const r = c.end()
    assert.equal(r.spill.path, null)
    assert.match(r.spill.error.code, /ENOTDIR|EEXIST/)
    const { spill, ...rest } = r
    assert.deepEqual(rest, truncateText(text, { maxLines: 10, maxBytes: DEFAULT_MAX_BYTES, strategy: 'tail' }))
    assert.ok(!r.text.includes('saved'))
    assert.equal(reports.length, 1)
    assert.equal(reports[0], spill)
    assert.equal(fs.readFileSync(blocker, 'utf8'), 'not a directory')
  })

  test('a dir removed while writing: the file cannot be kept, the notice is planned again without it', () => {
    const dir = freshDir()
    const reports = []
    const text = numbered(200)
    const c = createOutputCapture({ maxLines: 10, spill: { dir, onSpill: (r) => reports.push(r) } })
    c.write(text.slice(0, 100))
    fs.rmSync(dir, { recursive: true })
    c.write(text.slice(100))
    const r = c.end()
    assert.equal(r.spill.path, null)
    assert.ok(r.spill.error instanceof Error)
    const { spill, ...rest } = r
    assert.deepEqual(
      rest,
      truncateText(text, { maxLines: 10, maxBytes: DEFAULT_MAX_BYTES, strategy: 'tail' }),
      'the default notice, naming no file',
    )
    assert.equal(reports.length, 1)
    assert.equal(fs.existsSync(dir), false, 'nothing recreated')
  })

  test('files already in the dir are left alone; each capture gets a new file', () => {
    const dir = freshDir()
    fs.mkdirSync(dir, { mode: 0o700 })
    fs.writeFileSync(path.join(dir, 'keep.txt'), 'mine')
    const paths = new Set()
    for (let i = 0; i < 5; i++) {
      const c = createOutputCapture({ maxLines: 2, spill: { dir, name: 'same' } })
      c.write(numbered(10 + i))
      const r = c.end()
      assert.equal(fs.readFileSync(r.spill.path, 'utf8'), numbered(10 + i))
      paths.add(r.spill.path)
    }
    assert.equal(paths.size, 5)
    assert.equal(fs.readFileSync(path.join(dir, 'keep.txt'), 'utf8'), 'mine')
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [],
    )
    assert.equal(fs.readdirSync(dir).length, 6)
  })

  test('a notice template with {spillPath} is taken with spill, as truncateText takes it', () => {
    // capture.js checks the caller's notice with readNotice before the spill notices are made,
    // so the {spillPath} placeholder index.d.ts documents "with spill" throws.
    const dir = freshDir()
    const notice = 'dropped {fromLine}-{toLine}, see {spillPath}'
    let c
    assert.doesNotThrow(() => {
      c = createOutputCapture({ maxLines: 10, notice, spill: { dir } })
    })
    c.write(numbered(50))
    const r = c.end()
    assert.equal(r.text.split('\n')[0], `dropped 1-41, see ${r.spill.path}`)
    assert.deepEqual(r, {
      ...truncateText(numbered(50), {
        maxLines: 10,
        maxBytes: DEFAULT_MAX_BYTES,
        strategy: 'tail',
        notice: notice.replace('{spillPath}', r.spill.path),
      }),
      spill: { path: r.spill.path },
    })
  })

  test('a notice function gets facts.spillPath; an onSpill that throws is a warning, not a lost result', async () => {
    const dir = freshDir()
    const seen = new Set()
    let r
    const warnings = await collectWarnings(() => {
      const c = createOutputCapture({
        maxLines: 3,
        spill: {
          dir,
          onSpill: () => {
            throw new Error('boom')
          },
        },
        notice: (facts) => {
          seen.add(facts.spillPath)
          return `@${facts.fromLine}`
        },
      })
      c.write(numbered(50))
      r = c.end()
    })
    assert.deepEqual([...seen], [r.spill.path])
    assert.ok(r.text.startsWith('@1\n'))
    assert.ok(
      warnings.some((w) => w.message.includes('boom')),
      warnings.join('; '),
    )
  })
})

// ---- 6. Memory

// A child process writes `total` bytes in 64 KiB Buffer chunks (one Buffer, one byte changed
// per write), sampling RSS; it reports the growth over its baseline and the exact totals it
// expected, tracked as the bytes change.
const MEMORY_CHILD = `
const { createOutputCapture } = require(${JSON.stringify(ROOT)})
const { normalizeTerminalOutput } = require(${JSON.stringify(`${ROOT}lib/text/terminal.js`)})
const [unitText, optionsJson, totalText] = process.argv.slice(1)
const options = JSON.parse(optionsJson)
const total = Number(totalText)
const unit = Buffer.from(unitText)
if (65536 % unit.length !== 0 || unit[62] !== 0x2e) throw new Error('unit must divide 64 KiB and have a dot at 62')
const measure = (s) => {
  const t = options.normalize ? normalizeTerminalOutput(s) : s
  return { chars: t.length, bytes: Buffer.byteLength(t), newlines: t.split('\\n').length - 1 }
}
// What each variant of a unit (its byte 62 a letter, or the dot) counts.
const letters = Array.from({ length: 26 }, (_, i) => 0x41 + i)
const variant = new Map([[0x2e, measure(unitText)], ...letters.map((l) => { const u = Buffer.from(unit); u[62] = l; return [l, measure(u.toString())] })])
const chunk = Buffer.alloc(65536)
for (let i = 0; i < chunk.length; i++) chunk[i] = unit[i % unit.length]
const units = 65536 / unit.length
const perChunk = { chars: 0, bytes: 0, newlines: 0 }
const add = (m, sign) => { for (const k in perChunk) perChunk[k] += sign * m[k] }
add(variant.get(0x2e), units)
const expected = { chars: 0, bytes: 0, newlines: 0 }
const capture = createOutputCapture(options)
capture.write(chunk)
for (const k in expected) expected[k] += perChunk[k]
const base = process.memoryUsage().rss
let peak = base
const started = Date.now()
for (let i = 1; i < total / 65536; i++) {
  const at = (i % units) * unit.length + 62
  add(variant.get(chunk[at]), -1)
  chunk[at] = letters[i % 26]
  add(variant.get(chunk[at]), 1)
  capture.write(chunk)
  for (const k in expected) expected[k] += perChunk[k]
  if ((i & 127) === 0) peak = Math.max(peak, process.memoryUsage().rss)
}
const result = capture.end()
expected.lines = expected.newlines + (unit[unit.length - 1] === 0x0a ? 0 : 1)
delete expected.newlines
peak = Math.max(peak, process.memoryUsage().rss)
process.stdout.write(JSON.stringify({ growth: peak - base, ms: Date.now() - started, totals: capture.totals, expected, outputBytes: result.outputBytes, truncated: result.truncated }))
`

function runChild(unitText, options, total) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', MEMORY_CHILD, unitText, JSON.stringify(options), String(total)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`child exited ${code}: ${stderr}`))))
  })
}

describe('memory', () => {
  const GiB = 2 ** 30
  const MiB = 2 ** 20
  const pad = (s, bytes) => s + '.'.repeat(bytes - 1 - Buffer.byteLength(s)) + '\n'
  const ascii = pad('x'.repeat(40), 64)
  const utf8 = pad('é日😀 ab ünïcödé ✓ 字', 64)
  const terminal = pad('\x1b[32mé日\x1b[0m 10%\r\x1b[K100% done', 64)

  test('1 GiB in 64 KiB chunks: RSS grows < 64 MiB, totals exact', async (t) => {
    const cases = [
      [ascii, {}],
      [utf8, { strategy: 'headTail', maxChars: 100_000, maxLines: 5000 }],
      [terminal, { strategy: 'head', normalize: true, maxBytes: 200_000 }],
      // One line that never ends, normalised: the normaliser's row wraps.
      [pad('y'.repeat(40), 64).replace('\n', 'z'), { normalize: true, maxBytes: 1000 }],
    ]
    for (const [unit] of cases) assert.equal(Buffer.byteLength(unit), 64)
    const results = await Promise.all(cases.map(([unit, options]) => runChild(unit, options, GiB)))
    for (const [i, r] of results.entries()) {
      const what = `case ${i}: ${r.ms} ms, RSS +${(r.growth / MiB).toFixed(1)} MiB`
      t.diagnostic(what)
      assert.deepEqual(r.totals, r.expected, what)
      assert.ok(r.growth < 64 * MiB, what)
      assert.equal(r.truncated, true)
    }
    assert.equal(results[0].totals.bytes, GiB)
    assert.equal(results[0].totals.lines, GiB / 64)
    assert.equal(results[1].totals.bytes, GiB)
    assert.equal(results[2].totals.lines, GiB / 64)
    assert.deepEqual(results[3].totals, { chars: GiB, bytes: GiB, lines: 1 })
  })
})

// ---- 7. Errors

describe('errors', () => {
  const throwsExactly = (fn, type, message) => assert.throws(fn, (e) => e instanceof type && e.message === message, message)

  test('bad options: exact messages', () => {
    const cases = [
      [{ maxbytes: 5 }, TypeError, 'unknown option "maxbytes"; did you mean "maxBytes"?'],
      [{ max_lines: 5 }, TypeError, 'unknown option "max_lines"; did you mean "maxLines"?'],
      [{ Strategy: 'head' }, TypeError, 'unknown option "Strategy"; did you mean "strategy"?'],
      [
        { foo: 1 },
        TypeError,
        'unknown option "foo"; expected one of maxChars, maxBytes, maxLines, maxTokens, tokenizer, strategy, headRatio, notice, snap, spill, normalize, raw',
      ],
      [{ strategy: 'auto' }, TypeError, 'strategy must be "tail", "head" or "headTail" for a capture, got "auto"'],
      [{ raw: true, normalize: true }, TypeError, 'raw and normalize cannot be combined: normalised output is text'],
      [{ raw: true, normalize: { ansi: false } }, TypeError, 'raw and normalize cannot be combined: normalised output is text'],
      [{ raw: 'yes' }, TypeError, 'raw must be a boolean, got "yes"'],
      [{ maxBytes: -1 }, RangeError, 'maxBytes must be a non-negative integer or Infinity, got -1'],
      [{ maxBytes: 1.5 }, RangeError, 'maxBytes must be a non-negative integer or Infinity, got 1.5'],
      [{ maxBytes: NaN }, RangeError, 'maxBytes must be a non-negative integer or Infinity, got NaN'],
      [{ maxBytes: '5' }, TypeError, 'maxBytes must be a number, got "5"'],
      [{ maxLines: -3 }, RangeError, 'maxLines must be a non-negative integer or Infinity, got -3'],
      [{ headRatio: 2 }, RangeError, 'headRatio must be a number from 0 to 1, got 2'],
      [{ snap: 'word' }, TypeError, 'snap must be "line" or "none", got "word"'],
      [{ notice: 5 }, TypeError, 'notice must be a string or a function, got 5'],
      [{ spill: { dir: '' } }, TypeError, 'spill.dir must be a non-empty string, got ""'],
      [{ spill: { dir: 'x', onSpill: 5 } }, TypeError, 'spill.onSpill must be a function, got 5'],
      [
        { maxBytes: 5, tokenizer: 'gpt' },
        RangeError,
        'tokenizer must be "estimate", "o200k_base", "cl100k_base", an OpenAI model name or a function, got "gpt"',
      ],
    ]
    for (const [options, type, message] of cases) throwsExactly(() => createOutputCapture(options), type, message)
    throwsExactly(() => createOutputCapture(null), TypeError, 'options must be an object, got null')
    assert.throws(() => createOutputCapture({ notice: '{nope}' }), /unknown placeholder \{nope\}/)
    // Fine: raw with normalize off; no options at all.
    assert.doesNotThrow(() => createOutputCapture({ raw: true, normalize: false }))
    assert.doesNotThrow(() => createOutputCapture())
  })

  test('an invalid tokenizer is refused when no limit is given', () => {
    // readCaptureLimits returns the defaults before reading `tokenizer`; truncateText
    // rejects the same value.
    throwsExactly(
      () => createOutputCapture({ tokenizer: 'gpt' }),
      RangeError,
      'tokenizer must be "estimate", "o200k_base", "cl100k_base", an OpenAI model name or a function, got "gpt"',
    )
  })

  test('write: only strings and bytes, never after end', () => {
    const c = createOutputCapture({ maxBytes: 10 })
    for (const [chunk, shown] of [
      [5, '5'],
      [null, 'null'],
      [undefined, 'undefined'],
      [new Uint16Array(2), 'an object'],
      [new ArrayBuffer(2), 'an object'],
    ]) {
      throwsExactly(() => c.write(chunk), TypeError, `chunk must be a string, Buffer or Uint8Array, got ${shown}`)
    }
    c.write('abc')
    assert.deepEqual(c.totals, { chars: 3, bytes: 3, lines: 1 }, 'a bad chunk changed nothing')
    const r = c.end()
    throwsExactly(() => c.write('more'), Error, 'toolclamp: write after end')
    throwsExactly(() => c.write(Buffer.from('more')), Error, 'toolclamp: write after end')
    throwsExactly(() => c.write(''), Error, 'toolclamp: write after end')
    throwsExactly(() => c.write(5), TypeError, 'chunk must be a string, Buffer or Uint8Array, got 5')
    assert.equal(c.end(), r)
    assert.equal(r.text, 'abc')
  })

  test('totals is a copy', () => {
    const c = createOutputCapture({ maxBytes: 10 })
    c.write('ab')
    const t = c.totals
    t.bytes = 99
    assert.deepEqual(c.totals, { chars: 2, bytes: 2, lines: 1 })
  })
})

// ---- 8. Hostile callers

describe('hostile callers', () => {
  const text = Array.from({ length: 40 }, (_, i) => `row ${i}\n`).join('')
  const expectTail = (t, o) => truncateText(t, { strategy: 'tail', ...o })

  test('a notice function that writes to or ends its own capture: a clear error, then the right result', () => {
    let capture
    let calls = 0
    capture = createOutputCapture({
      maxBytes: 60,
      notice: (facts) => {
        if (calls++ === 0) capture.write('sneaky\n')
        return `cut ${facts.omittedBytes}`
      },
    })
    capture.write(text)
    assert.throws(() => capture.end(), { message: 'toolclamp: the capture is in use (called from its own notice function)' })
    assert.deepEqual(capture.totals, measure(text), 'the write did not land')
    const r = capture.end()
    assert.deepEqual(r, expectTail(text, { maxBytes: 60, notice: (f) => `cut ${f.omittedBytes}` }))

    let ender
    ender = createOutputCapture({ maxBytes: 60, notice: () => (ender.end(), 'x') })
    ender.write(text)
    assert.throws(() => ender.end(), { message: 'toolclamp: end() called from its own notice function' })

    // A notice that catches the error still gets the right result.
    let polite
    polite = createOutputCapture({
      maxBytes: 60,
      notice: (facts) => {
        try {
          polite.write('sneaky\n')
        } catch {}
        return `cut ${facts.omittedBytes}`
      },
    })
    polite.write(text)
    assert.deepEqual(polite.end(), expectTail(text, { maxBytes: 60, notice: (f) => `cut ${f.omittedBytes}` }))
  })

  test("a snapshot's notice function that writes or ends: the snapshot is of what came before it", () => {
    const notice = (f) => `cut ${f.omittedBytes}`
    let c
    let n = 0
    c = createOutputCapture({ maxBytes: 60, notice: (f) => (n++ === 0 && c.write('late\n'), notice(f)) })
    c.write(text)
    assert.deepEqual(c.snapshot(), expectTail(text, { maxBytes: 60, notice }))
    assert.deepEqual(c.end(), expectTail(text + 'late\n', { maxBytes: 60, notice }))

    let d
    let m = 0
    d = createOutputCapture({ maxBytes: 60, notice: (f) => (m++ === 0 && d.end(), notice(f)) })
    d.write(text)
    const snap = d.snapshot()
    assert.deepEqual(snap, expectTail(text, { maxBytes: 60, notice }))
    assert.deepEqual(d.end(), expectTail(text, { maxBytes: 60, notice }))
  })

  test('a notice function that drives another capture, of this copy and of a fresh copy of the module', () => {
    const fresh = freshCaptureModule()
    assert.notEqual(fresh.createOutputCapture, createOutputCapture)
    const other = createOutputCapture({ maxBytes: 30 })
    const foreign = fresh.createOutputCapture({ maxBytes: 30, strategy: 'head' })
    let writes = 0
    const notice = (f) => {
      writes++
      other.write(`o${writes}\n`)
      foreign.write(`f${writes}\n`)
      other.snapshot()
      foreign.snapshot()
      return `cut ${f.omittedBytes}`
    }
    const c = createOutputCapture({ maxBytes: 60, notice })
    c.write(text)
    const r = c.end()
    assert.deepEqual(r, expectTail(text, { maxBytes: 60, notice: (f) => `cut ${f.omittedBytes}` }))
    const written = (p) => Array.from({ length: writes }, (_, i) => `${p}${i + 1}\n`).join('')
    assert.deepEqual(other.end(), expectTail(written('o'), { maxBytes: 30 }))
    assert.deepEqual(foreign.end(), truncateText(written('f'), { maxBytes: 30, strategy: 'head' }))
  })

  test('captures of two copies of the module, interleaved, stay independent', () => {
    const fresh = freshCaptureModule()
    const a = createOutputCapture({ maxBytes: 80, strategy: 'headTail' })
    const b = fresh.createOutputCapture({ maxLines: 3, strategy: 'head', normalize: true })
    const c = fresh.createOutputCapture({ maxBytes: 40, raw: true })
    const ta = 'é日😀 a\n'.repeat(50)
    const tb = '\x1b[31mred\x1b[0m\r\n'.repeat(50)
    const tc = Buffer.concat(Array.from({ length: 50 }, () => Buffer.from([0x61, 0xff, 0x0a])))
    const ba = Buffer.from(ta)
    for (let i = 0; i < 200; i++) {
      a.write(ba.subarray(i * 5, i * 5 + 5))
      b.write(tb.slice(i * 3, i * 3 + 3))
      c.write(tc.subarray(i, i + 1))
      if (i % 50 === 0) {
        a.snapshot()
        b.snapshot()
        c.snapshot()
      }
    }
    a.write(ba.subarray(1000))
    b.write(tb.slice(600))
    c.write(tc.subarray(200))
    assert.deepEqual(a.end(), truncateText(ta, { maxBytes: 80, strategy: 'headTail' }))
    assert.deepEqual(b.end(), truncateText(tb, { maxLines: 3, maxBytes: DEFAULT_MAX_BYTES, strategy: 'head', normalize: true }))
    assert.ok(c.end().text.subarray(-12).equals(tc.subarray(-12)))
  })

  test('the binding refuses what is not a capture handle', () => {
    const native = require('../lib/native.js')
    for (const forged of [{}, Buffer.alloc(64), 42, null, () => {}]) {
      assert.throws(() => native.captureWrite(forged, 'x', false), { name: 'TypeError', message: /capture must be a capture handle/ })
      assert.throws(() => native.captureResult(forged, true, undefined, false), TypeError)
    }
  })

  test('getters in the options are read once, their first values used', () => {
    const reads = {}
    const counted = (object, values) => {
      for (const [key, list] of Object.entries(values)) {
        Object.defineProperty(object, key, {
          enumerable: true,
          get() {
            reads[key] = (reads[key] ?? 0) + 1
            return list[Math.min(reads[key], list.length) - 1]
          },
        })
      }
      return object
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-capture-getters-'))
    try {
      const spill = counted({}, { dir: [dir, '/nonexistent/elsewhere'], name: ['first', 'second'] })
      const options = counted(
        {},
        {
          maxBytes: [60, 5],
          maxLines: [undefined, 1],
          strategy: ['head', 'tail'],
          headRatio: [undefined, 7],
          notice: ['[{omitted}]', 42],
          snap: ['none', 'bogus'],
          normalize: [false, true],
          raw: [false, 'x'],
          spill: [spill, 'no'],
        },
      )
      const c = createOutputCapture(options)
      c.write(text)
      c.snapshot()
      c.settledHead()
      const r = c.end()
      assert.deepEqual(reads, {
        maxBytes: 1,
        maxLines: 1,
        strategy: 1,
        headRatio: 1,
        notice: 1,
        snap: 1,
        normalize: 1,
        raw: 1,
        spill: 1,
        dir: 1,
        name: 1,
      })
      assert.equal(r.strategy, 'head')
      assert.ok(r.outputBytes <= 60 && r.outputBytes > 5)
      assert.equal(path.dirname(r.spill.path), dir)
      assert.ok(path.basename(r.spill.path).startsWith('first-'))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test('captures in 4 worker threads give the main thread’s results', async () => {
    const scenarios = Array.from({ length: 12 }, (_, i) => i)
    const here = scenarios.map((i) => runScenario(createOutputCapture, i))
    const code = `
      const { parentPort, workerData } = require('node:worker_threads')
      const { createOutputCapture } = require(${JSON.stringify(ROOT)})
      const scenarioOptions = ${scenarioOptions.toString()}
      const runScenario = ${runScenario.toString()}
      parentPort.postMessage(workerData.map((i) => runScenario(createOutputCapture, i)))
    `
    const workers = Array.from(
      { length: 4 },
      () =>
        new Promise((resolve, reject) => {
          const w = new Worker(code, { eval: true, workerData: scenarios })
          w.once('message', resolve)
          w.once('error', reject)
          w.once('exit', (c) => c !== 0 && reject(new Error(`worker exited ${c}`)))
        }),
    )
    // The main thread keeps capturing meanwhile.
    const during = scenarios.map((i) => runScenario(createOutputCapture, i))
    const answers = await Promise.all(workers)
    assert.deepEqual(during, here)
    for (const answer of answers) assert.deepEqual(answer, here)
    // And the results are right, not just equal.
    for (const i of scenarios)
      assert.deepEqual(here[i].result, truncateText(scenarioText(i).toWellFormed(), scenarioOptions(i)), `scenario ${i}`)
  })
})

/** lib/commands/capture.js loaded again, with fresh copies of lib/ and the binding's loader. */
function freshCaptureModule() {
  const saved = new Map(Object.entries(require.cache))
  for (const key of saved.keys()) if (key.startsWith(ROOT) && !key.includes(`${path.sep}node_modules${path.sep}`)) delete require.cache[key]
  try {
    return require('../lib/commands/capture.js')
  } finally {
    for (const key of Object.keys(require.cache)) if (!saved.has(key)) delete require.cache[key]
    for (const [key, value] of saved) require.cache[key] = value
  }
}

/** The text of scenario `i` (deterministic, self-contained: it runs in workers too). */
function scenarioText(i) {
  let s = ''
  for (let k = 0; k < 300 + i * 40; k++) s += `${k * (i + 1)} ${'é日😀'.slice(0, k % 4)}${k % 7 === 0 ? '\x1b[1m!\x1b[0m' : ''}\r\n`
  return s
}

/** The options of scenario `i` (self-contained: it runs in workers too). */
function scenarioOptions(i) {
  const strategy = ['tail', 'head', 'headTail'][i % 3]
  return { maxBytes: 100 + i * 17, strategy, normalize: i % 2 === 1, notice: i % 4 === 3 ? '{fromLine}-{toLine}' : undefined }
}

/** A capture of scenario `i`, chunked as bytes and strings; self-contained for workers. */
function runScenario(createOutputCapture, i) {
  let s = ''
  for (let k = 0; k < 300 + i * 40; k++) s += `${k * (i + 1)} ${'é日😀'.slice(0, k % 4)}${k % 7 === 0 ? '\x1b[1m!\x1b[0m' : ''}\r\n`
  const c = createOutputCapture(scenarioOptions(i))
  const bytes = Buffer.from(s)
  const step = 7 + i
  // Odd scenarios write bytes (cutting chars), even ones strings (cutting surrogate pairs).
  if (i % 2) for (let at = 0; at < bytes.length; at += step) c.write(bytes.subarray(at, at + step))
  else for (let at = 0; at < s.length; at += step) c.write(s.slice(at, at + step))
  const result = c.end()
  return { result, text: result.text, totals: c.totals }
}
