'use strict'

// The string API: stringTruncate*, truncateText, measureText. This file reads options,
// takes the O(1) shortcuts that need no reading of the text, and assembles results with
// `slice`: the cut positions, counts and notices all come from the Rust core, through
// lib/native.js. Tool results (any shape a tool returns) are in lib/results/payload.js.

const { mustBe } = require('../common/errors.js')
const { DEFAULT_HEAD_RATIO } = require('../common/defaults.js')
const native = require('../native.js')
const spills = require('../files/spill.js')
const notices = require('../common/notices.js')
const terminal = require('./terminal.js')
const { clampAscii, clampChars } = require('./chars.js')
const { unshared } = require('../common/format.js')
const {
  fitsByLength,
  isPlainObject,
  LIMIT_KEYS,
  readHeadRatio,
  readLimitArgument,
  readLimits,
  readNotice,
  readOptionsObject,
  readSnap,
  readStrategy,
  unknownOption,
} = require('../common/options.js')

function checkText(text) {
  if (typeof text !== 'string') throw mustBe(TypeError, `text`, `a string`, text)
}

function clampString(text, strategy, limits, headRatio, notice, snap = false) {
  if (fitsByLength(text.length, limits)) return text
  if (notice === undefined && !snap && limits.tokens === undefined && (strategy === 'tail' || strategy === 'head')) {
    const clamped = clampInJs(text, strategy, limits)
    if (clamped !== undefined) return clamped
  }
  const plan = native.planText(text, strategy, limits, headRatio, notice, false, snap)
  return plan.cut ? cutText(text, plan) : text
}

/**
 * A head or tail cut with the default notice that is arithmetic (chars.js), or undefined
 * when the core must plan it: by chars alone; or by bytes of an ASCII text that chars and
 * lines cannot bind (each line holds a char, and the text and the result are no longer
 * in chars or lines than in bytes). Never for a text the core must read whole for an
 * earlier notice (native.mustReadWhole).
 */
function clampInJs(text, strategy, { maxChars, maxBytes, maxLines }) {
  const n = text.length
  let clamped
  if (maxBytes === Infinity && maxLines === Infinity) {
    if (native.mustReadWhole(text)) return undefined
    clamped = clampChars(text, strategy, maxChars)
  } else if (maxChars >= n && maxLines >= n && native.isAscii(text) && !native.mustReadWhole(text)) {
    if (n <= maxBytes) return text
    clamped = clampAscii(text, strategy, maxBytes)
  }
  return clamped === undefined ? undefined : unshared(clamped, n)
}

/** The result of a plan that cuts `text`: its kept parts around the glue. */
function cutText(text, plan) {
  return unshared(text.slice(0, plan.headEnd) + plan.glue + text.slice(plan.tailStart), text.length)
}

const NOTICE_OPTIONS = ['notice', 'snap']
const HEAD_TAIL_OPTIONS = ['headRatio', 'notice', 'snap']

/** A one-end clamp: `stringTruncateHead` and `stringTruncateTail`. */
function clampEnd(text, limit, options, strategy) {
  checkText(text)
  const limits = readLimitArgument('limit', limit)
  if (options === undefined) return clampString(text, strategy, limits, 0, undefined)
  const { notice, snap } = readOptionsObject(options, NOTICE_OPTIONS)
  return clampString(text, strategy, limits, 0, readNotice(notice), readSnap(snap, 'none'))
}

function stringTruncateHead(text, limit, options) {
  return clampEnd(text, limit, options, 'head')
}

function stringTruncateTail(text, limit, options) {
  return clampEnd(text, limit, options, 'tail')
}

function stringTruncateHeadTail(text, limit, options) {
  checkText(text)
  const limits = readLimitArgument('limit', limit)
  if (options === undefined) return clampString(text, 'headTail', limits, DEFAULT_HEAD_RATIO, undefined)
  const { headRatio, notice, snap } = readOptionsObject(options, HEAD_TAIL_OPTIONS)
  const ratio = readHeadRatio(headRatio)
  return clampString(text, 'headTail', limits, ratio, readNotice(notice), readSnap(snap, 'none'))
}

/** A `truncateText` result for `text`, the result's text, from a plan of the original. */
function resultOf(text, strategy, plan) {
  const { total, output, omitted } = plan
  return {
    text,
    truncated: plan.cut,
    truncatedBy: plan.tokensBound ? [...native.dimNames(plan.truncatedBy), 'tokens'] : native.dimNames(plan.truncatedBy),
    // 'auto' as the binding resolved it.
    strategy: plan.strategy ?? strategy,
    totalChars: total.chars,
    totalBytes: total.bytes,
    totalLines: total.lines,
    outputChars: output.chars,
    outputBytes: output.bytes,
    outputLines: output.lines,
    omittedChars: omitted.chars,
    omittedBytes: omitted.bytes,
    omittedLines: omitted.lines,
    headEnd: plan.headEnd,
    tailStart: plan.tailStart,
    ...tokensOf(plan),
  }
}

/**
 * A plan's counts in exact tokens, for a result (`{ tokens }`, and `'tokens'` in
 * truncatedBy when they bound the cut), or nothing when no exact tokenizer was used.
 */
function tokensOf(plan) {
  if (plan.tokens === undefined) return undefined
  return { tokens: plan.tokens }
}

/** `truncateText` on options already read: `notice` as `readNotice` returns it. */
function truncateWith(text, limits, strategy, headRatio, notice, snap = false) {
  const plan = native.planText(text, strategy, limits, headRatio, notice, true, snap)
  return resultOf(plan.cut ? cutText(text, plan) : text, strategy, plan)
}

const TRUNCATE_TEXT_OPTIONS = [...LIMIT_KEYS, 'strategy', 'headRatio', 'notice', 'spill', 'snap', 'normalize']

/**
 * truncateText's options, as readOptionsObject reads them. A plain object (its prototype
 * Object.prototype or null, so no option is inherited) is read through its own keys, each
 * once: V8 (Node 20) gives an object built by spread and then a key (`{ ...limits, snap }`)
 * in optimised code a map of its own on every call, and then every named property read (and
 * for...in) misses its cache, about half a microsecond each, where this read costs one pass.
 * (Object.keys allocates less than Object.entries, which made a literal's read twice as
 * slow.) Any other object is read by key.
 */
function readTextOptions(options) {
  const proto = isPlainObject(options) ? Object.getPrototypeOf(options) : undefined
  if (proto !== Object.prototype && proto !== null) return readOptionsObject(options, TRUNCATE_TEXT_OPTIONS)
  const read = {
    maxChars: undefined,
    maxBytes: undefined,
    maxLines: undefined,
    maxTokens: undefined,
    tokenizer: undefined,
    strategy: undefined,
    headRatio: undefined,
    notice: undefined,
    spill: undefined,
    snap: undefined,
    normalize: undefined,
  }
  const keys = Object.keys(options)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]
    const value = options[key]
    switch (key) {
      case 'maxChars':
        read.maxChars = value
        break
      case 'maxBytes':
        read.maxBytes = value
        break
      case 'maxLines':
        read.maxLines = value
        break
      case 'maxTokens':
        read.maxTokens = value
        break
      case 'tokenizer':
        read.tokenizer = value
        break
      case 'strategy':
        read.strategy = value
        break
      case 'headRatio':
        read.headRatio = value
        break
      case 'notice':
        read.notice = value
        break
      case 'spill':
        read.spill = value
        break
      case 'snap':
        read.snap = value
        break
      case 'normalize':
        read.normalize = value
        break
      default:
        throw unknownOption(key, TRUNCATE_TEXT_OPTIONS)
    }
  }
  return read
}

function truncateText(text, options) {
  checkText(text)
  const { maxChars, maxBytes, maxLines, maxTokens, tokenizer, strategy, headRatio, notice, spill, snap, normalize } =
    readTextOptions(options)
  // Terminal output is normalised before it is counted: budgets count what the model reads,
  // and a spill file holds that text, so the lines a notice names are its lines.
  const flags = terminal.readNormalize(normalize)
  const limits = readLimits({ maxChars, maxBytes, maxLines, maxTokens, tokenizer })
  const name = readStrategy(strategy)
  const ratio = readHeadRatio(headRatio)
  const lines = readSnap(snap, 'none')
  const spillTo = spills.readSpill(spill, 'text')
  if (terminal.mayOutgrowString(text, flags)) {
    // Its normalised text might not fit in a string: only the clamped text is built.
    const options = { maxChars, maxBytes, maxLines, maxTokens, tokenizer, strategy: name, headRatio: ratio, notice, snap, normalize }
    if (spillTo !== undefined) options.spill = { dir: spillTo.dir, name: spillTo.name }
    return require('../commands/capture.js').clampNormalized(text, options, limits)
  }
  const shown = terminal.normalizeWith(text, flags)
  if (spillTo === undefined) return truncateWith(shown, limits, name, ratio, readNotice(notice), lines)
  return truncateSpilling(shown, limits, name, ratio, notice, spillTo, lines)
}

/**
 * `truncateWith` that saves the full text to a spill file in `spill.dir` when it cuts. The
 * notice is the caller's as given: it may name the file (`{spillPath}`), and
 * clampAndSpill checks it.
 */
function truncateSpilling(text, limits, strategy, headRatio, notice, spill, snap = false) {
  return spills.clampAndSpill(spill, '', notice, notices.SPILL_NOTICE, undefined, text, (planned) =>
    truncateWith(text, limits, strategy, headRatio, planned, snap),
  )
}

function measureText(text) {
  checkText(text)
  return native.measureText(text)
}

module.exports = {
  stringTruncateHead,
  stringTruncateTail,
  stringTruncateHeadTail,
  truncateText,
  measureText,
  // For the sibling modules, not the public API (index.js lists that).
  checkText,
  clampString,
  resultOf,
  truncateSpilling,
  truncateWith,
}
