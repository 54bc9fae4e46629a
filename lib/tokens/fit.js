'use strict'

// A limit in exact tokens for the clamps that cut in JS (tool results, JSON, pages): such
// a clamp keeps its result within a number of UTF-8 bytes, and its result's tokens are
// counted as the model will read them. The byte budget is searched by the core
// (native.searchBudget): the largest one whose result is within the limit. A string cut
// alone never comes here: the core counts its candidates itself, reading only their ends.

const { internal, invalid } = require('../common/errors.js')
const native = require('../native.js')

/**
 * The result of `clampAt(bytes)` for the largest byte budget up to `range.cap` whose result
 * is within `tokens.max` tokens (`tokens` of lib/common/options.js budgetsOf), as
 * `countOf(result, limit)` counts them (undefined once over `limit`). `clampAt(b)` must
 * keep at most `b` UTF-8 bytes. `range.total` is the bytes of everything it could keep (a
 * budget of `total` keeps what `cap` keeps), or a function that reads them from the result
 * at `cap`; `range.low`, when given, is the least budget that has a result (a page needs
 * room for its banner). Returns `{ result, tokens, bytes, byTokens }`: the result, its
 * tokens, the budget it was cut with, and whether tokens bound the cut. When not even the
 * lowest budget's result is within, `tooSmall(tokens, bytes)` is thrown.
 */
function fitTokens(tokens, range, clampAt, countOf, tooSmall = overAtLowEnd) {
  const { max, tokenizer } = tokens
  const { cap, total } = range
  // Counted up to a few times the limit: enough to tell the search where to aim.
  const reach = max * 4 + 16
  const countUpTo = (candidate) => countOf(candidate, reach) ?? reach + 1
  let result = clampAt(cap)
  let counted = countUpTo(result)
  if (counted <= max) return { result, tokens: counted, bytes: cap, byTokens: false }
  // An encoding's token is at least one byte, so a result of `max` bytes is within; one of
  // more than (max + 1) × its longest token is over. A caller's counter promises neither.
  const exact = tokenizer.count === undefined
  const high = Math.min(cap, typeof total === 'function' ? total(result) : total)
  const low = Math.max(range.low ?? 0, exact ? Math.min(max, high) : 0)
  const first = exact ? Math.min(high, (max + 1) * tokenizer.longest) : -1
  // The count at `cap` stands for the one at `high` when they are the same budget.
  const highCount = high === cap ? counted : -1
  let at = -1
  const bytes = native.searchBudget(low, high, highCount, max, first, (budget) => {
    const candidate = clampAt(budget)
    const n = countUpTo(candidate)
    if (n <= max) {
      result = candidate
      counted = n
      at = budget
    }
    return n
  })
  if (at !== bytes) {
    // The low end, never asked: nothing above it was within.
    result = clampAt(bytes)
    counted = countUpTo(result)
    if (counted > max) throw tooSmall(tokens, bytes)
  }
  return { result, tokens: counted, bytes, byTokens: true }
}

/** Nothing is within: a caller's counter that counts tokens even for an empty result. */
function overAtLowEnd(tokens, bytes) {
  if (tokens.tokenizer.count === undefined) {
    return internal(`a result cut to ${bytes} bytes is over ${tokens.max} ${tokens.tokenizer.name} tokens`)
  }
  return invalid(RangeError, `maxTokens is ${tokens.max}, but the tokenizer function counts more than that for the shortest result`)
}

module.exports = { fitTokens }
