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
const { clampChars, countWidth } = require('../lib/text/chars.js')
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
