// The O(1) chars-only head and tail clamps of lib/text/chars.js against the core's planner:
// the same text for random texts, budgets and cuts, with surrogates, CRLF, line breaks and
// notice-like text where the cut falls. FC_RUNS sets the runs per property (default 10,000).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { createRequire } from 'node:module'

import { stringTruncateHead, stringTruncateTail, truncateText } from '../index.mjs'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')
const { clampAscii, clampChars, countWidth } = require('../lib/text/chars.js')
const { formatCount } = require('../lib/common/format.js')

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const check = (property) => fc.assert(property, { numRuns: RUNS })

const CHARS_ONLY = (maxChars) => ({ maxChars, maxBytes: Infinity, maxLines: Infinity })

/** The core's plan of the whole text (exact: never through windows), not restacked. */
function planned(text, strategy, maxChars) {
  const plan = native.planText(text, strategy, CHARS_ONLY(maxChars), 0, undefined, true, false, false)
  return plan.cut ? text.slice(0, plan.headEnd) + plan.glue + text.slice(plan.tailStart) : text
}

// Units that matter at a cut: line breaks, CRLF, surrogate pairs and lone halves.
const unit = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('a', 'b', ' ', 'é', '日') },
  { weight: 2, arbitrary: fc.constantFrom('\n', '\r\n', '\r', '😀', '\ud83d', '\ude00', '[... ') },
)
const texts = fc.array(unit, { minLength: 1, maxLength: 400 }).map((units) => units.join(''))

test('countWidth is the width of the count as formatCount writes it', () => {
  check(
    fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (n) => {
      assert.equal(countWidth(n), formatCount(n).length)
    }),
  )
})

test('a chars-only head or tail cut in JS is the core plan of the same text', () => {
  check(
    fc.property(texts, fc.integer({ min: 0, max: 500 }), fc.constantFrom('head', 'tail'), (text, maxChars, strategy) => {
      fc.pre(text.length > maxChars)
      const fast = clampChars(text, strategy, maxChars)
      // Undefined hands the plan to the core (a fallback notice); never a different text.
      if (fast !== undefined) assert.equal(fast, planned(text, strategy, maxChars))
    }),
  )
})

test('the fast path answers every budget with room for the default notice', () => {
  // So the property above compares something: only budgets too small for the notice (the
  // fallbacks) go to the core.
  const text = 'line of a log\r\n'.repeat(200)
  for (const maxChars of [60, 61, 100, 1000, 2999]) {
    for (const strategy of ['head', 'tail']) {
      const fast = clampChars(text, strategy, maxChars)
      assert.equal(typeof fast, 'string', `${strategy} ${maxChars}`)
      assert.equal(fast, planned(text, strategy, maxChars))
    }
  }
  assert.equal(clampChars(text, 'tail', 20), undefined)
})

test('stringTruncateHead and stringTruncateTail by chars are truncateText with the same limit, for long texts too', () => {
  const long = fc
    .tuple(texts, fc.integer({ min: 1, max: 300 }), texts)
    .map(([a, times, b]) => a + 'log line of some length\n'.repeat(times) + b)
  check(
    fc.property(long, fc.integer({ min: 40, max: 3000 }), (text, maxChars) => {
      assert.equal(stringTruncateTail(text, maxChars), truncateText(text, { maxChars, strategy: 'tail' }).text)
      assert.equal(stringTruncateHead(text, maxChars), truncateText(text, { maxChars }).text)
    }),
  )
})

// Bytes alone on ASCII texts: every byte is a char, so the same arithmetic with the notice
// the core writes for bytes.

const BYTES_ONLY = (maxBytes) => ({ maxChars: Infinity, maxBytes, maxLines: Infinity })

/** The core's plan of the whole text under `limits`, not restacked. */
function plannedUnder(text, strategy, limits) {
  const plan = native.planText(text, strategy, limits, 0, undefined, true, false, false)
  return plan.cut ? text.slice(0, plan.headEnd) + plan.glue + text.slice(plan.tailStart) : text
}

// ASCII units that matter at a cut: line breaks, CRLF, lone CRs and notice-like text.
const asciiUnit = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('a', 'b', ' ', '.') },
  { weight: 2, arbitrary: fc.constantFrom('\n', '\r\n', '\r', '[... ', ' ...]') },
)
const asciiTexts = fc.array(asciiUnit, { minLength: 1, maxLength: 400 }).map((units) => units.join(''))

test('a bytes-only head or tail cut of an ASCII text in JS is the core plan of the same text', () => {
  check(
    fc.property(asciiTexts, fc.integer({ min: 0, max: 500 }), fc.constantFrom('head', 'tail'), (text, maxBytes, strategy) => {
      fc.pre(text.length > maxBytes)
      const fast = clampAscii(text, strategy, maxBytes)
      if (fast !== undefined) assert.equal(fast, plannedUnder(text, strategy, BYTES_ONLY(maxBytes)))
    }),
  )
})

test('the bytes fast path answers every budget with room for the default notice', () => {
  const text = 'line of a log\r\n'.repeat(200)
  for (const maxBytes of [60, 61, 100, 1000, 2999]) {
    for (const strategy of ['head', 'tail']) {
      const fast = clampAscii(text, strategy, maxBytes)
      assert.equal(typeof fast, 'string', `${strategy} ${maxBytes}`)
      assert.equal(fast, plannedUnder(text, strategy, BYTES_ONLY(maxBytes)))
    }
  }
  assert.equal(clampAscii(text, 'tail', 20), undefined)
})

test('isAscii is whether the UTF-8 length is the length, for one-byte, Latin-1 and two-byte strings', () => {
  // A two-byte string of Latin-1 chars alone: slicing a two-byte string can make one.
  const twoByteLatin1 = `\u0100${'abc é'.repeat(10)}`.slice(1)
  const twoByteAscii = `\u0100${'abc\n'.repeat(10)}`.slice(1)
  for (const text of ['', 'abc\r\n', 'café', '\xff', twoByteLatin1, twoByteAscii, '日本', '😀', '\ud83d']) {
    assert.equal(native.isAscii(text), Buffer.byteLength(text) === text.length, JSON.stringify(text))
  }
  check(
    fc.property(texts, (text) => {
      assert.equal(native.isAscii(text), Buffer.byteLength(text) === text.length)
    }),
  )
})

test('stringTruncateHead and stringTruncateTail by bytes are truncateText with the same limits, on ASCII, Latin-1 and CJK', () => {
  // truncateText reads every text whole (and restacks earlier notices); the string
  // functions take the JS path on ASCII texts up to RESTACK_SCAN_MAX chars with no notice.
  const kind = fc.constantFrom('ascii', 'latin1', 'cjk')
  const long = fc.tuple(kind, texts, asciiTexts, fc.integer({ min: 1, max: 300 })).map(([k, a, b, times]) => {
    const line = k === 'ascii' ? 'log line of some length\n' : k === 'latin1' ? 'ligne de journal à lire\n' : 'ログの行 😀 line\n'
    return (k === 'ascii' ? b : a) + line.repeat(times) + b
  })
  const extra = fc.constantFrom({}, { maxChars: 1e9 }, { maxLines: 1e9 }, { maxChars: 100_000, maxLines: 100_000 }, { maxLines: 50 })
  check(
    fc.property(long, fc.integer({ min: 0, max: 9000 }), extra, (text, maxBytes, more) => {
      const limit = { maxBytes, ...more }
      assert.equal(stringTruncateTail(text, limit), truncateText(text, { ...limit, strategy: 'tail' }).text)
      assert.equal(stringTruncateHead(text, limit), truncateText(text, limit).text)
    }),
  )
})

test('a bytes-only clamp of a long ASCII text is answered in JS, without planning it in the core', () => {
  const text = 'INFO request handled in 12 ms\r\n'.repeat(40_000)
  const expected = {
    tail: truncateText(text, { maxBytes: 51200, strategy: 'tail' }).text,
    head: truncateText(text, { maxBytes: 51200 }).text,
  }
  const planText = native.planText
  native.planText = () => assert.fail('planned in the core')
  try {
    assert.equal(stringTruncateTail(text, { maxBytes: 51200 }), expected.tail)
    assert.equal(stringTruncateHead(text, { maxBytes: 51200 }), expected.head)
    // A text that fits its byte budget is the very same string.
    assert.equal(stringTruncateTail(text, { maxBytes: text.length }), text)
  } finally {
    native.planText = planText
  }
})

test('a bytes-only clamp of an ASCII text reads it whole for an earlier notice up to the scan limit, as by chars', () => {
  const earlier = stringTruncateTail('x'.repeat(5000), { maxBytes: 100 })
  const line = 'INFO request handled in 12 ms\n'
  const short = earlier + line.repeat(1000)
  // Restacked: the notice counts the original, as truncateText's does.
  assert.equal(stringTruncateTail(short, { maxBytes: 2000 }), truncateText(short, { maxBytes: 2000, strategy: 'tail' }).text)
  // Past RESTACK_SCAN_MAX chars the text is planned as it is, like a chars-only clamp.
  const long = earlier + line.repeat(10_000)
  assert.equal(stringTruncateTail(long, { maxBytes: 2000 }), plannedUnder(long, 'tail', BYTES_ONLY(2000)))
  assert.equal(stringTruncateTail(long, 2000), planned(long, 'tail', 2000))
})
