// normalizeTerminalOutput and the `normalize` option of truncateText and formatExecOutput:
// what a terminal would finally show, the same for a string and its UTF-8 bytes, budgets
// counting the normalised text, and exact errors for a bad option.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { constants } from 'node:buffer'
import { truncateText, formatExecOutput } from '../index.mjs'
import terminal from '../lib/text/terminal.js'

// The normalisation alone, as the `normalize` option of truncateText and the command functions
// applies it (no longer a public function: see the equivalence property in terminal.test.mjs).
const { normalizeTerminalOutput } = terminal

const { MAX_STRING_LENGTH } = constants

const RUNS = Number(process.env.FC_RUNS ?? 1000)

test('what a terminal finally shows', () => {
  assert.equal(normalizeTerminalOutput('\x1b[1;31merror\x1b[0m: bad\n'), 'error: bad\n')
  assert.equal(normalizeTerminalOutput('10%\r50%\r100%\ndone\n'), '100%\ndone\n')
  assert.equal(normalizeTerminalOutput('downloading\r\x1b[Kdone'), 'done')
  assert.equal(normalizeTerminalOutput('downloading\rdone'), 'doneloading', 'as a terminal leaves it')
  assert.equal(normalizeTerminalOutput('a\r\nb'), 'a\nb')
  assert.equal(normalizeTerminalOutput('ab\x08c'), 'ac')
  assert.equal(normalizeTerminalOutput('a\x07b\tc'), 'a^Gb\tc')
  assert.equal(normalizeTerminalOutput(Buffer.from('\x1b]0;title\x07ok 日本 😀')), 'ok 日本 😀')
  assert.equal(normalizeTerminalOutput(new Uint8Array(0)), '')
})

test('plain text comes back as the very same string', () => {
  const plain = 'héllo 日本 😀\n  indented\n\nlast'
  assert.equal(normalizeTerminalOutput(plain), plain)
  assert.equal(normalizeTerminalOutput(''), '')
})

test('each rule can be turned off', () => {
  assert.equal(normalizeTerminalOutput('a\rb', { carriageReturns: false }), 'a\nb')
  assert.equal(normalizeTerminalOutput('ab\x08c', { backspaces: false }), 'ab^Hc')
  assert.equal(normalizeTerminalOutput('a\x07b', { controls: false }), 'ab')
  assert.equal(normalizeTerminalOutput('\x1b[31mred', { ansi: false }), '^[[31mred')
  assert.equal(normalizeTerminalOutput('\x1b[31mred', false), '\x1b[31mred')
})

test('bad options fail loudly, with exact messages', () => {
  const cases = [
    [() => normalizeTerminalOutput(42), TypeError, 'text must be a string, Buffer or Uint8Array, got 42'],
    [
      () => normalizeTerminalOutput('x', 'yes'),
      TypeError,
      'normalize must be true, false or an object with ansi, carriageReturns, backspaces, controls, got "yes"',
    ],
    [() => normalizeTerminalOutput('x', { ansi: 1 }), TypeError, 'normalize.ansi must be a boolean, got 1'],
    [
      () => normalizeTerminalOutput('x', { colors: false }),
      TypeError,
      'unknown option "normalize.colors"; expected one of ansi, carriageReturns, backspaces, controls',
    ],
    [() => normalizeTerminalOutput('x', { Ansi: false }), TypeError, 'unknown option "normalize.Ansi"; did you mean "normalize.ansi"?'],
    [
      () => truncateText('x', { maxChars: 1, normalize: 'on' }),
      TypeError,
      'normalize must be true, false or an object with ansi, carriageReturns, backspaces, controls, got "on"',
    ],
  ]
  for (const [fn, type, message] of cases) assert.throws(fn, (e) => e instanceof type && e.message === message, message)
})

test('property: a string and its UTF-8 bytes give the same text; no escape or raw \\r is left', () => {
  const piece = fc.constantFrom(
    'abc',
    '日本',
    '😀',
    '\r',
    '\n',
    '\r\n',
    '\b',
    '\x1b[K',
    '\x1b[2K',
    '\x1b[1;32m',
    '\x1b]0;t\x07',
    '\x1b[5D',
    '\x07',
    '\t',
    ' ',
  )
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
      const text = pieces.join('')
      const shown = normalizeTerminalOutput(text)
      assert.equal(normalizeTerminalOutput(Buffer.from(text)), shown)
      assert.ok(!shown.includes('\x1b') && !shown.includes('\r'))
      assert.equal(normalizeTerminalOutput(shown), shown, 'normalised text is a fixed point')
    }),
    { numRuns: RUNS },
  )
})

// normalizeTerminalOutput is no longer exported: the `normalize` option of truncateText with no
// budget to bind gives the same text, for every rule set, so nothing was lost with it.
test('property: truncateText(text, { maxChars: Infinity, normalize }).text is the normalised text', () => {
  const piece = fc.oneof(
    fc.constantFrom('abc', '日本', '😀', '\r', '\n', '\r\n', '\b', '\x1b[K', '\x1b[1;32m', '\x1b]0;t\x07', '\x1b[5D', '\x07', '\t', '\x85'),
    fc.string({ maxLength: 6 }),
  )
  const rules = fc.oneof(
    fc.constant(true),
    fc.record(
      { ansi: fc.boolean(), carriageReturns: fc.boolean(), backspaces: fc.boolean(), controls: fc.boolean() },
      { requiredKeys: [] },
    ),
  )
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 60 }), rules, (pieces, normalize) => {
      const text = pieces.join('')
      const result = truncateText(text, { maxChars: Infinity, normalize })
      assert.equal(result.text, normalizeTerminalOutput(text, normalize))
      assert.equal(result.truncated, false)
    }),
    { numRuns: RUNS },
  )
})

test('truncateText and formatExecOutput count what the model reads', () => {
  const bar = Array.from({ length: 500 }, (_, i) => `\x1b[2K\r[${'#'.repeat(i % 40)}] ${i + 1}/500`).join('') + '\n\x1b[32mdone\x1b[0m\n'
  const r = truncateText(bar, { maxBytes: 200, normalize: true })
  assert.equal(r.truncated, false)
  assert.equal(r.text, `[${'#'.repeat(499 % 40)}] 500/500\ndone\n`)
  assert.equal(r.totalBytes, Buffer.byteLength(r.text))
  // Without it, the redraws are the text.
  assert.equal(truncateText(bar, { maxBytes: 200 }).truncated, true)
  const { text } = formatExecOutput({ stdout: Buffer.from(bar), stderr: '\x1b[33mwarn\x1b[0m\n', exitCode: 0 }, { normalize: true })
  assert.equal(text, `<stdout>\n[${'#'.repeat(19)}] 500/500\ndone\n</stdout>\n<stderr>\nwarn\n</stderr>\nexit code: 0`)
})

test('blanks a cursor move leaves are paid from an allowance, so far moves cannot amplify', () => {
  // Ordinary column moves show as on a terminal.
  assert.equal(normalizeTerminalOutput('name\x1b[20Gsize\x1b[30C\x1b[32mok\x1b[0m\n'), `name${' '.repeat(15)}size${' '.repeat(30)}ok\n`)
  // The allowance starts at one screen line (65,536 cells); each char, control or sequence
  // read adds 8 to it. A flood of far moves drains it, then each `x` lands 24 blanks in.
  const flood = '\x1b[65535Cx\n'.repeat(1000)
  const lines = normalizeTerminalOutput(flood).split('\n')
  assert.equal(lines[0], `${' '.repeat(65535)}x`)
  assert.equal(lines[1], `${' '.repeat(25)}x`)
  assert.equal(lines[999], `${' '.repeat(24)}x`)
  assert.equal(normalizeTerminalOutput(Buffer.from(flood)), lines.join('\n'))
})

// Each C1 control is shown as `<U+0085>`: 70,000,000 of them normalise to 560,000,000
// chars, more than a string can hold (V8: 536,870,888).
test('text whose normalised form is longer than a string can be: normalizeTerminalOutput says so, the clamps keep what fits', () => {
  const c1 = '\x85'.repeat(70e6)
  assert.throws(
    () => normalizeTerminalOutput(c1),
    (e) =>
      e instanceof RangeError &&
      e.code === 'TOOLCLAMP_NORMALIZED_TOO_LONG' &&
      e.message ===
        `toolclamp: the normalised text would be longer than the ${MAX_STRING_LENGTH} chars a JS string can hold; ` +
          'clamp it instead: truncateText or createOutputCapture with normalize keep only what their limits allow',
  )
  const r = truncateText(c1, { maxChars: 1000, strategy: 'tail', notice: '', normalize: true })
  assert.equal(r.text, '<U+0085>'.repeat(125))
  assert.deepEqual([r.totalChars, r.totalLines, r.outputChars, r.truncated], [560e6, 1, 1000, true])
  const { text, stdout } = formatExecOutput({ stdout: c1, stderr: '', exitCode: 0 }, { normalize: true, stdout: { maxBytes: 100 } })
  assert.ok(Buffer.byteLength(stdout.text) <= 100 && stdout.totalChars === 560e6 && text.startsWith('<stdout>\n'))
})

test('property: truncateText with normalize never throws and keeps to its budget, on hostile strings', () => {
  const piece = fc.oneof(
    fc.constantFrom(
      '\x85',
      '\x9b31m',
      '\x1b[65535C',
      '\x1b[999G',
      '\x1b[5D',
      '\r',
      '\r\n',
      '\n',
      '\b',
      '\x07\x00\x7f',
      '\x1b',
      '\x1b[',
      '\x1b]0;t',
      '😀',
      '日本',
      '\ud800',
      '\udc00',
      'é',
    ),
    fc.string({ maxLength: 8 }),
    fc.integer({ min: 1, max: 300 }).map((n) => 'y'.repeat(n)),
  )
  const limits = fc
    .record(
      { maxChars: fc.integer({ min: 0, max: 400 }), maxBytes: fc.integer({ min: 0, max: 400 }), maxLines: fc.integer({ min: 0, max: 8 }) },
      { requiredKeys: [] },
    )
    .filter((l) => Object.keys(l).length > 0)
  const strategy = fc.constantFrom('head', 'tail', 'headTail', 'auto')
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 80 }), limits, strategy, (pieces, l, s) => {
      const text = pieces.join('')
      const r = truncateText(text, { ...l, strategy: s, normalize: true })
      assert.equal(r.text.length, r.outputChars)
      if (l.maxChars !== undefined) assert.ok(r.outputChars <= l.maxChars || r.text === '')
      if (l.maxBytes !== undefined) assert.ok(Buffer.byteLength(r.text) <= l.maxBytes || r.text === '')
      assert.equal(r.totalChars, normalizeTerminalOutput(text).length)
    }),
    { numRuns: RUNS },
  )
})
