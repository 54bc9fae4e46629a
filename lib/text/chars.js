'use strict'

// The one-end clamps by chars alone with the default notice, answered in JS in O(1): a
// head or tail cut under `maxChars` is arithmetic, and a call into the binding costs more
// than the whole answer. So is a cut under `maxBytes` alone of an ASCII text (its UTF-8
// length is its length, checked by the caller): with an ASCII notice, every byte is a
// char, and the same arithmetic answers it with the notice the core writes for bytes.
//
// One source of truth. Nothing here decides what a plan is:
// - the notice text is the core's: it is read once, at load, from plans the core makes of a
//   sample text (`learnNotice`), and the fast path is switched off unless the core's notices
//   for two different counts are exactly what it would write (and, for bytes, are ASCII);
// - the cut is the core's contract for `head` and `tail` (crates/toolclamp-core/src/plan/mod.rs,
//   "Head and Tail: exact"): the longest kept part, at a safe cut, whose result with its own
//   notice fits, else the notice alone. That answer is unique, so evaluating it here gives
//   the plan the core gives; __test__/chars-fast.test.mjs holds the two to the same text on
//   random texts, budgets and cuts (surrogates, CRLF, line breaks at the cut), and the byte
//   cut of ASCII texts the same way.
// Everything else goes to the core: `headTail` (its split is the planner's own), budgets
// too small for the default notice (the fallback notices), and a text that may carry an
// earlier notice (restacking, lib/native.js `mayCarryNotice`).

const native = require('../native.js')
const { formatCount } = require('../common/format.js')

const NL = 10
const CR = 13

/** A cut at `i` separates neither a surrogate pair nor `\r\n` (source.rs `is_safe_cut`). */
function isSafeCut(text, i) {
  if (i <= 0 || i >= text.length) return true
  const a = text.charCodeAt(i - 1)
  const b = text.charCodeAt(i)
  return !(((a & 0xfc00) === 0xd800 && (b & 0xfc00) === 0xdc00) || (a === CR && b === NL))
}

/** The length of `formatCount(n)`, without building it. */
function countWidth(n) {
  let digits = 1
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++
  return digits + Math.floor((digits - 1) / 3)
}

/**
 * The default notice of a plain sample text cut by `strategy` under a budget of `unit`
 * ('maxChars' or 'maxBytes') alone, split around its count: `{ before, after }` with the
 * notice `before + formatCount(k) + after`, or undefined when the core's notice for another
 * count does not read so, or a byte notice is not ASCII (then no fast path).
 */
function learnNotice(strategy, unit) {
  const parts = []
  for (const [length, budget] of [
    [3000, 100],
    [1500, 1400],
  ]) {
    const text = 'x'.repeat(length)
    const limits = { maxChars: Infinity, maxBytes: Infinity, maxLines: Infinity, [unit]: budget }
    const plan = native.planText(text, strategy, limits, 0, undefined, false, false, false)
    const kept = plan.headEnd + (length - plan.tailStart)
    // A head cut inside a line gets the inline separator; a tail gets a line break after.
    const notice = strategy === 'head' ? plan.glue.slice(1) : plan.glue.slice(0, -1)
    const count = formatCount(length - kept)
    const at = notice.indexOf(count)
    if (!plan.cut || at < 0 || plan.glue !== (strategy === 'head' ? ` ${notice}` : `${notice}\n`)) return undefined
    if (unit === 'maxBytes' && Buffer.byteLength(notice) !== notice.length) return undefined
    parts.push({ before: notice.slice(0, at), after: notice.slice(at + count.length) })
  }
  const [a, b] = parts
  return a.before === b.before && a.after === b.after ? a : undefined
}

const CHAR_NOTICES = { head: learnNotice('head', 'maxChars'), tail: learnNotice('tail', 'maxChars') }
const BYTE_NOTICES = { head: learnNotice('head', 'maxBytes'), tail: learnNotice('tail', 'maxBytes') }

/**
 * `text` (longer than `maxChars`) cut by `strategy` ('head' or 'tail') under `maxChars`
 * with the default notice, or undefined when the core must plan it.
 */
function clampChars(text, strategy, maxChars) {
  return clampUnits(text, strategy, maxChars, CHAR_NOTICES[strategy])
}

/**
 * An ASCII `text` (UTF-8 length = length > `maxBytes`) cut by `strategy` under `maxBytes`
 * alone with the default notice, or undefined when the core must plan it. The caller checks
 * the text is ASCII; its bytes are its chars, and so are the notice's.
 */
function clampAscii(text, strategy, maxBytes) {
  return clampUnits(text, strategy, maxBytes, BYTE_NOTICES[strategy])
}

/** The cut of `text` under `maxChars` units, with `notice` learnt for that unit. */
function clampUnits(text, strategy, maxChars, notice) {
  if (notice === undefined) return undefined
  const n = text.length
  const fixed = notice.before.length + notice.after.length
  if (strategy === 'tail') {
    // Kept t chars cost t, the line break after the notice 1, the notice fixed + count.
    for (let t = Math.min(n - 1, maxChars - fixed - 2); t >= 1; t--) {
      if (t + 1 + fixed + countWidth(n - t) <= maxChars && isSafeCut(text, n - t)) {
        return `${notice.before}${formatCount(n - t)}${notice.after}\n${text.slice(n - t)}`
      }
    }
  } else {
    // A head that ends inside a line pays for the separator before the notice.
    for (let e = Math.min(n - 1, maxChars - fixed - 1); e >= 1; e--) {
      const open = text.charCodeAt(e - 1) !== NL
      if (e + (open ? 1 : 0) + fixed + countWidth(n - e) <= maxChars && isSafeCut(text, e)) {
        return `${text.slice(0, e)}${open ? ' ' : ''}${notice.before}${formatCount(n - e)}${notice.after}`
      }
    }
  }
  // Nothing kept: the notice alone, if it fits; else a fallback notice (the core's).
  if (fixed + countWidth(n) <= maxChars) return `${notice.before}${formatCount(n)}${notice.after}`
  return undefined
}

module.exports = { clampChars, clampAscii, countWidth }
