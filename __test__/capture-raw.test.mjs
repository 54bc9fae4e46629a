// Raw captures (the CLI's default): bytes are kept as they came, invalid UTF-8 included, and
// counted as `buf.toString()` reads them, so a char budget holds for what a reader decodes and
// a notice's counts are those of the decoded text. Checked against truncateText of the decoded
// text, the simple reference: under char and line budgets the kept bytes decode to its text.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fc from 'fast-check'

const require = createRequire(import.meta.url)
const { createOutputCapture, truncateText } = require('../index.js')

const RUNS = Number(process.env.FC_RUNS ?? 2000)
const check = (property, runs = RUNS) => fc.assert(property, { numRuns: runs })

// Pieces that exercise the decoder: valid chars of every length, stray continuation bytes,
// bytes that never start a char, overlong and surrogate starts, sequences cut short, CR LF.
const PIECES = ['a', '\n', '\r\n', '\r', 'é', '€', '日本', '😀', 'x'.repeat(40)]
  .map((s) => Buffer.from(s))
  .concat(
    [
      [0x80],
      [0xbf],
      [0xc0],
      [0xc1],
      [0xf5],
      [0xff],
      [0xe0, 0x80],
      [0xed, 0xa0],
      [0xf0, 0x80],
      [0xf4, 0x90],
      [0xe2, 0x82],
      [0xf0, 0x9f, 0x98],
      [0xc3],
    ].map((b) => Buffer.from(b)),
  )
const bytesArb = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 120 }).map((parts) => Buffer.concat(parts)),
  fc.uint8Array({ maxLength: 600 }).map((a) => Buffer.from(a)),
)

/** `data` split at `cuts` (any byte positions). */
function chunks(data, cuts) {
  const at = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b)
  const out = []
  let from = 0
  for (const to of [...at, data.length]) {
    out.push(data.subarray(from, to))
    from = to
  }
  return out
}

function rawCapture(data, cuts, options) {
  const capture = createOutputCapture({ ...options, raw: true })
  for (const chunk of chunks(data, cuts)) capture.write(chunk)
  return capture.end()
}

const strategyArb = fc.constantFrom('head', 'tail', 'headTail')

test('raw: under char and line budgets, the kept bytes decode to truncateText of the decoded text', () => {
  check(
    fc.property(
      bytesArb,
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.record({
        maxChars: fc.option(fc.integer({ min: 30, max: 400 }), { nil: undefined }),
        maxLines: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
      }),
      strategyArb,
      (data, cuts, limits, strategy) => {
        const options = {
          maxChars: limits.maxChars ?? 200,
          maxLines: limits.maxLines,
          strategy,
          notice: '[cut {omittedChars} of {totalChars}]',
        }
        const result = rawCapture(data, cuts, options)
        const decoded = data.toString('utf8')
        const expected = truncateText(decoded, options)
        assert.equal(result.totalChars, decoded.length)
        assert.equal(result.truncated, expected.truncated)
        assert.equal(result.text.toString('utf8'), expected.text)
        assert.equal(result.omittedChars, expected.omittedChars)
        assert.equal(result.outputChars, expected.outputChars)
      },
    ),
  )
})

test('raw: never over a char or byte budget as a reader decodes it, and bytes kept as they came', () => {
  check(
    fc.property(
      bytesArb,
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.integer({ min: 0, max: 300 }),
      fc.integer({ min: 0, max: 300 }),
      strategyArb,
      (data, cuts, maxChars, maxBytes, strategy) => {
        const result = rawCapture(data, cuts, { maxChars, maxBytes, strategy })
        assert.ok(result.text.toString('utf8').length <= maxChars, `${result.text.toString('utf8').length} > ${maxChars}`)
        assert.ok(result.text.length <= maxBytes)
        if (!result.truncated) assert.deepEqual(result.text, data)
        assert.equal(result.totalChars, data.toString('utf8').length)
        assert.equal(result.totalBytes, data.length)
      },
    ),
  )
})

test('raw: a stray continuation byte, an overlong start and a cut sequence each count as one char', () => {
  // 0x80 alone, E0 80 (two subparts), F0 9F 98 cut short at the end (one subpart).
  const data = Buffer.concat([Buffer.from('ab'), Buffer.from([0x80, 0xe0, 0x80]), Buffer.from('cd'), Buffer.from([0xf0, 0x9f, 0x98])])
  const whole = rawCapture(data, [], { maxChars: 100 })
  assert.equal(whole.totalChars, data.toString('utf8').length)
  assert.equal(whole.totalChars, 8)
  assert.deepEqual(whole.text, data)
  // Head of 4 chars of the decoded text: 'ab', U+FFFD (0x80), U+FFFD (E0), then the notice.
  const head = rawCapture(data, [3], { maxChars: 40, strategy: 'head', notice: '[cut {omittedChars}]' })
  assert.equal(
    head.text.toString('utf8'),
    truncateText(data.toString('utf8'), { maxChars: 40, strategy: 'head', notice: '[cut {omittedChars}]' }).text,
  )
  // random bytes through the CLI's path: never over --max-chars
  const random = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7919 + 13) % 256))
  for (const strategy of ['head', 'tail', 'headTail']) {
    const r = rawCapture(random, [1000, 2500], { maxChars: 100, strategy })
    assert.ok(r.text.toString('utf8').length <= 100, strategy)
    assert.equal(r.outputChars, r.text.toString('utf8').length, strategy)
  }
})
