'use strict'

// The public API over the native binding. This file validates arguments, takes the O(1)
// shortcuts that need no reading of the text, and assembles results with `slice`: the
// cut positions, counts and notices all come from the Rust core.

const binding = require('./binding.js')

// Results of the last native call (layout mirrored in src/lib.rs).
const out = new Float64Array(binding.RESULT_SLOTS)
binding.init(out)
const HEAD_END = 0
const TAIL_START = 1
const TOTAL = 2
const OUTPUT = 5
const OMITTED = 8
const TRUNCATED_BY = 11

const HEAD = 0
const TAIL = 1
const HEAD_TAIL = 2
// No prototype: 'toString' must not pass as a strategy.
const STRATEGY_CODES = { __proto__: null, head: HEAD, tail: TAIL, headTail: HEAD_TAIL }
const WHERE = ['start', 'end', 'middle']

// A string with a char above U+00FF must be copied as UTF-16; otherwise Latin-1 is exact
// and cheaper. V8 answers this at once for one-byte strings.
const WIDE = /[^\x00-\xff]/

// Above this length a chars-only plan copies two windows instead of the whole string.
const WINDOW_FACTOR = 2

const LIMIT_KEYS = ['maxChars', 'maxBytes', 'maxLines']

function describe(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value)
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'undefined':
      return String(value)
    case 'function':
      return 'a function'
    case 'symbol':
      return 'a symbol'
    default:
      return 'an object'
  }
}

function checkText(text) {
  if (typeof text !== 'string') throw new TypeError(`text must be a string, got ${describe(text)}`)
}

// The budgets of the current call. Module variables rather than an object per call:
// clamping a short string costs a few nanoseconds, and an allocation would dominate it.
let maxChars = Infinity
let maxBytes = Infinity
let maxLines = Infinity

function checkKeys(object, allowed) {
  // for...in allocates nothing; inherited keys are not the caller's options.
  for (const key in object) {
    if (!allowed.includes(key) && Object.hasOwn(object, key)) throw unknownOption(key, allowed)
  }
}

function unknownOption(key, allowed) {
  const near = allowed.find((k) => k.toLowerCase() === key.toLowerCase())
  return new TypeError(
    near
      ? `unknown option ${JSON.stringify(key)}; did you mean ${JSON.stringify(near)}?`
      : `unknown option ${JSON.stringify(key)}; expected one of ${allowed.join(', ')}`,
  )
}

function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function checkBudget(name, value) {
  if (!(value === Infinity || (Number.isInteger(value) && value >= 0))) {
    throw new RangeError(`${name} must be a non-negative integer or Infinity, got ${describe(value)}`)
  }
  return value
}

function readBudget(name, value) {
  if (value === undefined) return Infinity
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`)
  return checkBudget(name, value)
}

/** Reads `maxChars`, `maxBytes`, `maxLines` from an object whose keys were checked. */
function readLimits(object) {
  const chars = object.maxChars
  const bytes = object.maxBytes
  const lines = object.maxLines
  maxChars = readBudget('maxChars', chars)
  maxBytes = readBudget('maxBytes', bytes)
  maxLines = readBudget('maxLines', lines)
  if (chars === undefined && bytes === undefined && lines === undefined) {
    throw new TypeError('at least one of maxChars, maxBytes, maxLines is required')
  }
}

/** The `limit` argument of the string functions: a number (= maxChars) or a limits object. */
function readLimitArgument(limit) {
  if (typeof limit === 'number') {
    maxChars = checkBudget('limit', limit)
    maxBytes = Infinity
    maxLines = Infinity
    return
  }
  if (!isPlainObject(limit)) {
    throw new TypeError(
      `limit must be a number or an object with maxChars, maxBytes or maxLines, got ${describe(limit)}`,
    )
  }
  checkKeys(limit, LIMIT_KEYS)
  readLimits(limit)
}

/** Checks an options object; returns its `notice` in the form the binding takes. */
function readOptions(options, allowed) {
  if (!isPlainObject(options)) throw new TypeError(`options must be an object, got ${describe(options)}`)
  checkKeys(options, allowed)
  return readNotice(options.notice)
}

function readHeadRatio(value) {
  if (value === undefined) return 0.5
  if (typeof value !== 'number') {
    throw new TypeError(`headRatio must be a number from 0 to 1, got ${describe(value)}`)
  }
  if (!(value >= 0 && value <= 1)) {
    throw new RangeError(`headRatio must be a number from 0 to 1, got ${describe(value)}`)
  }
  return value
}

function truncatedByNames(mask) {
  const names = []
  if (mask & 1) names.push('chars')
  if (mask & 2) names.push('bytes')
  if (mask & 4) names.push('lines')
  return names
}

// Templates the core accepted. A bad template must fail on every call, even when the
// text fits and is never planned; the cache spares the native check on repeat calls.
const checkedTemplates = new Set()
const CHECKED_TEMPLATES_MAX = 256

function checkTemplate(template) {
  if (!checkedTemplates.has(template)) {
    binding.checkTemplate(template)
    if (checkedTemplates.size >= CHECKED_TEMPLATES_MAX) checkedTemplates.clear()
    checkedTemplates.add(template)
  }
  return template
}

/**
 * The notice as the binding takes it: undefined (default), a template string, or a
 * function called with positional numbers that builds the caller's facts object.
 */
function readNotice(notice) {
  if (notice === undefined) return notice
  if (typeof notice === 'string') return checkTemplate(notice)
  if (typeof notice !== 'function') {
    throw new TypeError(`notice must be a string or a function, got ${describe(notice)}`)
  }
  return (where, mask, omittedChars, omittedBytes, omittedLines, totalChars, totalBytes, totalLines, headEnd, tailStart) => {
    const text = notice({
      where: WHERE[where],
      truncatedBy: truncatedByNames(mask),
      omittedChars,
      omittedBytes,
      omittedLines,
      totalChars,
      totalBytes,
      totalLines,
      headEnd,
      tailStart,
    })
    if (typeof text !== 'string') {
      throw new TypeError(`notice function must return a string, got ${describe(text)}`)
    }
    return text
  }
}

/**
 * Runs the native planner on the current budgets. Returns the glue (notice and its line
 * breaks) when the text must be cut, `undefined` when it fits; offsets and counts are left
 * in `out`.
 */
function planCut(text, strategy, headRatio, notice, exact) {
  const n = text.length
  if (maxBytes === Infinity && maxLines === Infinity && notice === undefined && !exact && n > WINDOW_FACTOR * maxChars) {
    // Only chars bind: a plan never looks further than maxChars from either end.
    const head = text.slice(0, maxChars)
    const tail = text.slice(n - maxChars)
    const wide = WIDE.test(head) || WIDE.test(tail)
    return binding.planWindows(head, tail, n, wide, strategy, maxChars, headRatio)
  }
  return binding.plan(text, WIDE.test(text), strategy, maxChars, maxBytes, maxLines, headRatio, notice, exact)
}

function clampString(text, strategy, headRatio, notice) {
  const n = text.length
  // Each UTF-16 unit is at most 3 UTF-8 bytes and at most one line: this proves a fit
  // without reading the text.
  if (n <= maxChars && n * 3 <= maxBytes && n <= maxLines) return text
  const glue = planCut(text, strategy, headRatio, notice, false)
  if (glue === undefined) return text
  return text.slice(0, out[HEAD_END]) + glue + text.slice(out[TAIL_START])
}

const NOTICE_OPTIONS = ['notice']
const HEAD_TAIL_OPTIONS = ['headRatio', 'notice']

function stringTruncateHead(text, limit, options) {
  checkText(text)
  readLimitArgument(limit)
  const notice = options === undefined ? undefined : readOptions(options, NOTICE_OPTIONS)
  return clampString(text, HEAD, 0, notice)
}

function stringTruncateTail(text, limit, options) {
  checkText(text)
  readLimitArgument(limit)
  const notice = options === undefined ? undefined : readOptions(options, NOTICE_OPTIONS)
  return clampString(text, TAIL, 0, notice)
}

function stringTruncateHeadTail(text, limit, options) {
  checkText(text)
  readLimitArgument(limit)
  if (options === undefined) return clampString(text, HEAD_TAIL, 0.5, undefined)
  const notice = readOptions(options, HEAD_TAIL_OPTIONS)
  return clampString(text, HEAD_TAIL, readHeadRatio(options.headRatio), notice)
}

const TRUNCATE_TEXT_OPTIONS = [...LIMIT_KEYS, 'strategy', 'headRatio', 'notice']

function truncateText(text, options) {
  checkText(text)
  if (!isPlainObject(options)) throw new TypeError(`options must be an object, got ${describe(options)}`)
  checkKeys(options, TRUNCATE_TEXT_OPTIONS)
  readLimits(options)
  const strategy = options.strategy === undefined ? 'head' : options.strategy
  const code = STRATEGY_CODES[strategy]
  if (typeof strategy !== 'string' || code === undefined) {
    throw new TypeError(`strategy must be "head", "tail" or "headTail", got ${describe(strategy)}`)
  }
  const headRatio = readHeadRatio(options.headRatio)
  const glue = planCut(text, code, headRatio, readNotice(options.notice), true)
  const totalChars = out[TOTAL]
  const totalBytes = out[TOTAL + 1]
  const totalLines = out[TOTAL + 2]
  if (glue === undefined) {
    return {
      text,
      truncated: false,
      truncatedBy: [],
      strategy,
      totalChars,
      totalBytes,
      totalLines,
      outputChars: totalChars,
      outputBytes: totalBytes,
      outputLines: totalLines,
      omittedChars: 0,
      omittedBytes: 0,
      omittedLines: 0,
      headEnd: totalChars,
      tailStart: totalChars,
    }
  }
  const headEnd = out[HEAD_END]
  const tailStart = out[TAIL_START]
  return {
    text: text.slice(0, headEnd) + glue + text.slice(tailStart),
    truncated: true,
    truncatedBy: truncatedByNames(out[TRUNCATED_BY]),
    strategy,
    totalChars,
    totalBytes,
    totalLines,
    outputChars: out[OUTPUT],
    outputBytes: out[OUTPUT + 1],
    outputLines: out[OUTPUT + 2],
    omittedChars: out[OMITTED],
    omittedBytes: out[OMITTED + 1],
    omittedLines: out[OMITTED + 2],
    headEnd,
    tailStart,
  }
}

function measureText(text) {
  checkText(text)
  binding.measure(text, WIDE.test(text))
  return { chars: out[TOTAL], bytes: out[TOTAL + 1], lines: out[TOTAL + 2] }
}

module.exports = {
  stringTruncateHead,
  stringTruncateTail,
  stringTruncateHeadTail,
  truncateText,
  measureText,
}
