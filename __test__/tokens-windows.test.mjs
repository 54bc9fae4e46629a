// Cuts within exact tokens of long strings: from 2^20 units on, a string is copied in
// windows and only its two ends are kept for the search (src/plan.rs plan_tokens_long),
// unless the search needs more; either way its plan must be the one a copy of the whole
// string gives. The whole-string path is reached through planTexts, which plans the
// concatenation of a list (here, of one string) as one copy.
// FC_RUNS sets the runs (each copies a few MiB: a thousandth of them, at least 8).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fc from 'fast-check'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')
const { readLimits } = require('../lib/common/options.js')

const RUNS = Math.max(8, Math.floor(Number(process.env.FC_RUNS ?? 10_000) / 1000))
const LONG = 2 ** 20

const ATOMS = [
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\t',
  ' the',
  ' tokenizer',
  'Hello',
  'HTTP',
  "'s",
  '1234567',
  'é',
  '\u0301',
  '中文字',
  '😀',
  '\ud800',
  '\udc00',
  '/',
  '();',
  '{"a": 1}',
  'QUJDRA==',
  'aaaaaaaaaaaaaaaa',
]
const piece = fc.array(fc.constantFrom(...ATOMS), { maxLength: 40 }).map((a) => a.join(''))

/** A text of at least LONG units: a start, a block repeated, an end. */
const longText = fc
  .record({ start: piece, block: fc.array(fc.constantFrom(...ATOMS), { minLength: 1, maxLength: 60 }), end: piece })
  .map(({ start, block, end }) => {
    const unit = block.join('')
    return start + unit.repeat(Math.ceil(LONG / unit.length)) + end
  })

/** The plan fields a caller sees. */
function view(plan) {
  const { cut, headEnd, tailStart, glue, total, output, omitted, truncatedBy, tokensBound, strategy, tokens } = plan
  return { cut, headEnd, tailStart, glue, total, output, omitted, truncatedBy, tokensBound, strategy, tokens }
}

test('a cut within exact tokens of a long string is the cut of the whole string', () => {
  fc.assert(
    fc.property(
      longText,
      fc.integer({ min: 0, max: 3000 }),
      fc.constantFrom('head', 'tail', 'headTail', 'auto'),
      fc.constantFrom('o200k_base', 'cl100k_base'),
      fc.constantFrom(undefined, 500, 100_000),
      fc.constantFrom(undefined, 2000),
      fc.constantFrom(undefined, '[{omittedBytes} bytes cut]', '[{omitted}: lines {fromLine}-{toLine} of {totalLines}]'),
      (text, maxTokens, strategy, tokenizer, maxChars, maxLines, template) => {
        const limits = readLimits({ maxTokens, tokenizer, maxChars, maxLines }, '', undefined, true)
        const notice = template === undefined ? undefined : native.checkTemplate(template)
        const headRatio = strategy === 'head' ? 1 : strategy === 'tail' ? 0 : 0.5
        const windowed = view(native.planText(text, strategy, limits, headRatio, notice, false))
        const whole = view(native.planTexts([text], text.length, strategy, limits, headRatio, notice, false))
        assert.deepEqual(windowed, whole)
      },
    ),
    { numRuns: RUNS },
  )
})

test('a long string whose start is one piece is cut as the whole string', () => {
  // One piece of 50,000 units at the start, longer than the window a search within 100
  // tokens keeps (about 13,000 units): a head cut's count reads past it, and the string is
  // planned whole.
  const text = 'a'.repeat(50_000) + ' tail\n'.repeat(LONG / 4)
  const limits = readLimits({ maxTokens: 100, tokenizer: 'o200k_base' }, '', undefined, true)
  for (const strategy of ['head', 'tail', 'headTail']) {
    const windowed = view(native.planText(text, strategy, limits, 0.5, undefined, false))
    const whole = view(native.planTexts([text], text.length, strategy, limits, 0.5, undefined, false))
    assert.deepEqual(windowed, whole, strategy)
    assert.ok(windowed.tokens.output <= 100)
  }
})

test('a long string of one-byte chars is cut as the whole string', () => {
  // Latin-1 only: the string is copied as one-byte units.
  const line = 'GET /v1/items?page=3 200 12ms user=alice café naïve\r\n'
  const text = `start ${line.repeat(Math.ceil(LONG / line.length))} end`
  for (const strategy of ['head', 'tail', 'headTail']) {
    for (const maxTokens of [0, 1, 700]) {
      const limits = readLimits({ maxTokens, tokenizer: 'cl100k_base' }, '', undefined, true)
      const windowed = view(native.planText(text, strategy, limits, 0.5, undefined, false))
      const whole = view(native.planTexts([text], text.length, strategy, limits, 0.5, undefined, false))
      assert.deepEqual(windowed, whole, `${strategy} within ${maxTokens}`)
      assert.ok(windowed.tokens.output <= maxTokens)
    }
  }
})
