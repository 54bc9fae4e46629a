'use strict'

// The string and tool-result API over the native binding. This file validates arguments,
// takes the O(1) shortcuts that need no reading of the text, and assembles results with
// `slice`: the cut positions, counts and notices all come from the Rust core.

const binding = require('../binding.js')
const spills = require('./spill.js')

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
const STRATEGY_NAMES = ['head', 'tail', 'headTail']
const WHERE = ['start', 'end', 'middle']

// A string with a char above U+00FF must be copied as UTF-16; otherwise Latin-1 is exact
// and cheaper. V8 answers this at once for one-byte strings.
const WIDE = /[^\x00-\xff]/

// Above this length a chars-only plan copies the windows the core names (about a
// thousand units) instead of the whole string.
const WINDOWS_MIN_LENGTH = 2048

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
  return (
    where,
    mask,
    omittedChars,
    omittedBytes,
    omittedLines,
    totalChars,
    totalBytes,
    totalLines,
    headEnd,
    tailStart,
    fromLine,
    toLine,
  ) => {
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
      fromLine,
      toLine,
    })
    if (typeof text !== 'string') {
      throw new TypeError(`notice function must return a string, got ${describe(text)}`)
    }
    return text
  }
}

// The notice when the full text was saved: where, and which lines of the file were dropped
// (the numbers `readPartial`'s `offset` takes).
const SPILL_NOTICE = '[... {omitted} truncated at the {where}; full output saved to {spillPath} (dropped: lines {fromLine}–{toLine}) ...]'

/**
 * The two notices of a call that may spill: `named` names `file`; `unnamed` is used when
 * writing it failed. A template gets `{spillPath}`, a function `facts.spillPath` (null
 * when unnamed).
 */
function spillNotices(notice, file, namedDefault, unnamedDefault) {
  if (notice === undefined) {
    return { named: checkTemplate(spills.templateWithPath(namedDefault, file)), unnamed: unnamedDefault }
  }
  if (typeof notice === 'string') {
    return {
      named: checkTemplate(spills.templateWithPath(notice, file)),
      unnamed: checkTemplate(spills.templateWithPath(notice, '(not saved)')),
    }
  }
  if (typeof notice !== 'function') {
    throw new TypeError(`notice must be a string or a function, got ${describe(notice)}`)
  }
  return {
    named: readNotice((facts) => notice({ ...facts, spillPath: file })),
    unnamed: readNotice((facts) => notice({ ...facts, spillPath: null })),
  }
}

/**
 * Clamps with `plan(notice)` (which returns a `truncateText`-shaped result) and, when it
 * cuts, saves `data` whole to a new spill file in `spill.dir`. The file's name is chosen
 * first, because the notice that names it takes room in the budget; if the file cannot be
 * written, the text is planned again with the notice that names no file. The result
 * carries the report in `spill`, and `spill.onSpill` (when given) receives it.
 */
function clampAndSpill(spill, nameSuffix, notice, namedDefault, unnamedDefault, data, plan) {
  const file = spills.spillPath(spill, nameSuffix)
  const notices = spillNotices(notice, file, namedDefault, unnamedDefault)
  let info = plan(notices.named)
  if (!info.truncated) return info
  const report = spills.writeSpill(file, data)
  if (report.path === null) info = plan(notices.unnamed)
  info.spill = report
  reportSpill(spill.onSpill, report)
  return info
}

/** Reports a spill to the caller's `onSpill`, which must not break the clamp. */
function reportSpill(onSpill, report) {
  if (onSpill === undefined) return
  try {
    onSpill(report)
  } catch (error) {
    const text = isError(error) ? readSafely(error, 'message', () => '[message unreadable]') : thrownText(error)
    process.emitWarning(`toolclamp: spill.onSpill threw: ${typeof text === 'string' ? text : thrownText(text)}`)
  }
}

/**
 * Runs the native planner on the current budgets. Returns the glue (notice and its line
 * breaks) when the text must be cut, `undefined` when it fits; offsets and counts are left
 * in `out`.
 */
function planCut(text, strategy, headRatio, notice, exact) {
  const n = text.length
  if (maxBytes === Infinity && maxLines === Infinity && notice === undefined && !exact && n > WINDOWS_MIN_LENGTH) {
    // Only chars bind: the core names the few hundred units such a plan reads, so a long
    // string is never copied whole.
    binding.charsWindows(n, strategy, maxChars, headRatio)
    const from0 = out[0]
    const from1 = out[2]
    const from2 = out[4]
    const w0 = text.slice(from0, out[1])
    const w1 = text.slice(from1, out[3])
    const w2 = text.slice(from2, out[5])
    const wide = WIDE.test(w0) || WIDE.test(w1) || WIDE.test(w2)
    return binding.planWindows(w0, from0, w1, from1, w2, from2, n, wide, strategy, maxChars, headRatio)
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

const TRUNCATE_TEXT_OPTIONS = [...LIMIT_KEYS, 'strategy', 'headRatio', 'notice', 'spill']

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
  const spill = spills.readSpill(options.spill, 'text')
  if (spill === undefined) return textInfo(text, strategy, planCut(text, code, headRatio, readNotice(options.notice), true))
  const limits = { maxChars, maxBytes, maxLines }
  return clampAndSpill(spill, '', options.notice, SPILL_NOTICE, undefined, text, (notice) =>
    truncateTextChecked(text, limits, strategy, headRatio, notice),
  )
}

/**
 * `truncateText` for sibling modules that already validated everything: `notice` is in
 * the form the binding takes (see readNotice).
 */
function truncateTextChecked(text, limits, strategy, headRatio, notice) {
  maxChars = limits.maxChars
  maxBytes = limits.maxBytes
  maxLines = limits.maxLines
  return textInfo(text, strategy, planCut(text, STRATEGY_CODES[strategy], headRatio, notice, true))
}

/** The result of `truncateText` from the plan left in `out` (`glue` undefined: it fits). */
function textInfo(text, strategy, glue) {
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
  return resultFromOut(text.slice(0, out[HEAD_END]) + glue + text.slice(out[TAIL_START]), strategy)
}

/** A `truncateText`-shaped result for `text` from the counts a full plan left in `out`. */
function resultFromOut(text, strategy) {
  const mask = out[TRUNCATED_BY]
  return {
    text,
    truncated: mask !== 0,
    truncatedBy: truncatedByNames(mask),
    strategy,
    totalChars: out[TOTAL],
    totalBytes: out[TOTAL + 1],
    totalLines: out[TOTAL + 2],
    outputChars: out[OUTPUT],
    outputBytes: out[OUTPUT + 1],
    outputLines: out[OUTPUT + 2],
    omittedChars: out[OMITTED],
    omittedBytes: out[OMITTED + 1],
    omittedLines: out[OMITTED + 2],
    headEnd: out[HEAD_END],
    tailStart: out[TAIL_START],
  }
}

function measureText(text) {
  checkText(text)
  binding.measure(text, WIDE.test(text))
  return { chars: out[TOTAL], bytes: out[TOTAL + 1], lines: out[TOTAL + 2] }
}

// ---------------------------------------------------------------------------------------
// Tool results
// ---------------------------------------------------------------------------------------

const PAYLOAD_DEFAULTS = { maxChars: Infinity, maxBytes: 51200, maxLines: 2000 }
const ERROR_DEFAULTS = { maxChars: Infinity, maxBytes: 4096, maxLines: 40 }
const PAYLOAD_OPTIONS = [...LIMIT_KEYS, 'strategy', 'headRatio', 'notice', 'spill']

/** Payload limits with no options given, validated once. */
function defaultPayloadLimits(defaults) {
  return Object.freeze({
    maxChars: defaults.maxChars,
    maxBytes: defaults.maxBytes,
    maxLines: defaults.maxLines,
    strategy: HEAD,
    headRatio: 0.5,
    notice: undefined,
    spill: undefined,
    noticeOption: undefined,
  })
}

const DEFAULT_PAYLOAD_LIMITS = defaultPayloadLimits(PAYLOAD_DEFAULTS)
const DEFAULT_ERROR_LIMITS = defaultPayloadLimits(ERROR_DEFAULTS)

/**
 * Validates payload limits once (at wrap time for the wrappers) into a plain record:
 * budgets, strategy code, head ratio and notice. Each budget not given keeps its default,
 * so `{ maxLines: 10 }` still caps bytes; `Infinity` lifts a budget.
 */
function readPayloadLimits(limits, defaults, name = 'limits', spillName = 'tool-result') {
  if (limits === undefined) return defaults === PAYLOAD_DEFAULTS ? DEFAULT_PAYLOAD_LIMITS : DEFAULT_ERROR_LIMITS
  if (!isPlainObject(limits)) throw new TypeError(`${name} must be an object, got ${describe(limits)}`)
  checkKeys(limits, PAYLOAD_OPTIONS)
  const strategy = limits.strategy === undefined ? 'head' : limits.strategy
  const code = STRATEGY_CODES[strategy]
  if (typeof strategy !== 'string' || code === undefined) {
    throw new TypeError(`strategy must be "head", "tail" or "headTail", got ${describe(strategy)}`)
  }
  return {
    maxChars: limits.maxChars === undefined ? defaults.maxChars : readBudget('maxChars', limits.maxChars),
    maxBytes: limits.maxBytes === undefined ? defaults.maxBytes : readBudget('maxBytes', limits.maxBytes),
    maxLines: limits.maxLines === undefined ? defaults.maxLines : readBudget('maxLines', limits.maxLines),
    strategy: code,
    headRatio: readHeadRatio(limits.headRatio),
    notice: readNotice(limits.notice),
    spill: spills.readSpill(limits.spill, spillName, spills.SPILL_KEYS_WITH_CALLBACK),
    noticeOption: limits.notice,
  }
}

/** The same limits with no spill: streamed partial results are never written to files. */
function withoutSpill(limits) {
  return limits.spill === undefined ? limits : { ...limits, spill: undefined }
}

/** Error limits never above the payload's own. */
function errorLimitsWithin(payload) {
  return {
    maxChars: Math.min(ERROR_DEFAULTS.maxChars, payload.maxChars),
    maxBytes: Math.min(ERROR_DEFAULTS.maxBytes, payload.maxBytes),
    maxLines: Math.min(ERROR_DEFAULTS.maxLines, payload.maxLines),
    strategy: HEAD,
    headRatio: 0.5,
    notice: payload.notice,
    spill: undefined,
    noticeOption: undefined,
  }
}

function clampWith(text, limits) {
  if (limits.spill !== undefined) return clampSpilling(text, limits)
  maxChars = limits.maxChars
  maxBytes = limits.maxBytes
  maxLines = limits.maxLines
  return clampString(text, limits.strategy, limits.headRatio, limits.notice)
}

/** `clampWith` that saves the full text to a spill file when it cuts. */
function clampSpilling(text, limits) {
  const n = text.length
  if (n <= limits.maxChars && n * 3 <= limits.maxBytes && n <= limits.maxLines) return text
  const strategy = STRATEGY_NAMES[limits.strategy]
  const info = clampAndSpill(limits.spill, '', limits.noticeOption, SPILL_NOTICE, undefined, text, (notice) =>
    truncateTextChecked(text, limits, strategy, limits.headRatio, notice),
  )
  return info.text
}

/** The text a content block carries: a text block's `text` or an embedded resource's `text`. */
function blockText(block) {
  if (typeof block !== 'object' || block === null) return undefined
  if (block.type === 'text' && typeof block.text === 'string') return block.text
  if (block.type === 'resource' && typeof block.resource === 'object' && block.resource !== null) {
    const text = block.resource.text
    if (typeof text === 'string') return text
  }
  return undefined
}

function withBlockText(block, text) {
  if (block.type === 'text') return { ...block, text }
  return { ...block, resource: { ...block.resource, text } }
}

/**
 * Clamps the text of an array of content blocks under one budget, as if the texts were
 * concatenated in order. The core plans the cut of that concatenation; here the cut is
 * mapped back onto the blocks. Returns the same array when nothing was cut.
 */
function clampBlocks(blocks, limits) {
  // Most results fit: prove it from the lengths alone before collecting anything.
  let length = 0
  for (let i = 0; i < blocks.length; i++) {
    const text = blockText(blocks[i])
    if (text !== undefined) length += text.length
  }
  if (length <= limits.maxChars && length * 3 <= limits.maxBytes && length <= limits.maxLines) return blocks
  const texts = []
  const positions = []
  for (let i = 0; i < blocks.length; i++) {
    const text = blockText(blocks[i])
    if (text !== undefined) {
      texts.push(text)
      positions.push(i)
    }
  }
  if (texts.length === 0) return blocks
  let glue
  if (texts.length === 1 || limits.spill !== undefined) {
    // A spill file needs the whole text as one string anyway.
    const joined = texts.length === 1 ? texts[0] : texts.join('')
    const clamped = clampWith(joined, limits)
    if (clamped === joined) return blocks
    glue = clamped.slice(out[HEAD_END], clamped.length - (joined.length - out[TAIL_START]))
  } else {
    // The core reads the blocks end to end; joining them here would allocate a large string.
    let wide = false
    for (let k = 0; k < texts.length && !wide; k++) wide = WIDE.test(texts[k])
    const { maxChars: chars, maxBytes: bytes, maxLines: lines } = limits
    glue = binding.planList(texts, wide, length, limits.strategy, chars, bytes, lines, limits.headRatio, limits.notice, false)
    if (glue === undefined) return blocks
  }
  const headEnd = out[HEAD_END]
  const tailStart = out[TAIL_START]
  // The notice follows the kept head; with no head it precedes the kept tail.
  let glueAt = -1
  for (let k = 0, start = 0; k < texts.length; start += texts[k].length, k++) {
    const end = start + texts[k].length
    if (headEnd > 0 ? start < headEnd && headEnd <= end : start <= tailStart && tailStart < end) {
      glueAt = k
      break
    }
  }
  if (glueAt === -1) glueAt = headEnd > 0 ? texts.length - 1 : 0
  const result = blocks.slice()
  for (let k = 0, start = 0; k < texts.length; start += texts[k].length, k++) {
    const text = texts[k]
    const keptHead = text.slice(0, Math.max(0, Math.min(text.length, headEnd - start)))
    const keptTail = text.slice(Math.max(0, Math.min(text.length, tailStart - start)))
    const next = k === glueAt ? keptHead + glue + keptTail : keptHead + keptTail
    if (next !== text) result[positions[k]] = withBlockText(blocks[positions[k]], next)
  }
  return result
}

/**
 * A copy of `object` with every own property (non-enumerable ones, getters, an own
 * `__proto__` key) and the prototype, except `key`, which gets `value`.
 */
function withProperty(object, key, value) {
  const descriptors = Object.getOwnPropertyDescriptors(object)
  descriptors[key] = { value, writable: true, enumerable: true, configurable: true }
  return Object.create(Object.getPrototypeOf(object), descriptors)
}

function clampPayload(result, limits) {
  if (typeof result === 'string') return clampWith(result, limits)
  if (Array.isArray(result)) return clampBlocks(result, limits)
  if (typeof result === 'object' && result !== null && Array.isArray(result.content)) {
    const content = clampBlocks(result.content, limits)
    if (content === result.content) return result
    return withProperty(result, 'content', content)
  }
  return result
}

function hardTruncateToolPayload(result, limits) {
  return clampPayload(result, readPayloadLimits(limits, PAYLOAD_DEFAULTS))
}

/** Text for any thrown value; never throws (cyclic objects, throwing toJSON, revoked proxies). */
function thrownText(value) {
  if (typeof value === 'string') return value
  if (typeof value === 'object' && value !== null) {
    try {
      const json = JSON.stringify(value)
      if (typeof json === 'string') return json
    } catch {
      // Fall back to String() below.
    }
  }
  try {
    return String(value)
  } catch {
    try {
      return Object.prototype.toString.call(value)
    } catch {
      return `[${typeof value}]`
    }
  }
}

/** `value instanceof Error`, false where asking throws (a revoked proxy). */
function isError(value) {
  try {
    return value instanceof Error
  } catch {
    return false
  }
}

/** An Error named like the original whose stack is only its clamped message. */
function clampedError(name, message, cause) {
  const error = new Error(message, { cause })
  if (name !== 'Error') Object.defineProperty(error, 'name', { value: name, writable: true, configurable: true })
  error.stack = `${name}: ${message}`
  return error
}

/** A property read that never throws (a throwing getter yields `fallback(thrown)`). */
function readSafely(object, key, fallback) {
  try {
    return object[key]
  } catch (thrown) {
    return fallback(thrown)
  }
}

function clampError(error, limits) {
  if (isError(error)) {
    let unreadable = false
    const raw = readSafely(error, 'message', (thrown) => {
      unreadable = true
      return `[message unreadable: ${isError(thrown) ? readSafely(thrown, 'message', () => '') : thrownText(thrown)}]`
    })
    const message = typeof raw === 'string' ? raw : thrownText(raw)
    const clamped = clampWith(message, limits)
    if (unreadable) return clampedError('Error', clamped, error)
    if (clamped === raw) return error
    const name = readSafely(error, 'name', () => 'Error')
    return clampedError(typeof name === 'string' ? name : 'Error', clamped, error)
  }
  return clampedError('Error', clampWith(thrownText(error), limits), error)
}

function hardTruncateToolError(error, limits) {
  return clampError(error, readPayloadLimits(limits, ERROR_DEFAULTS))
}

function wrapWith(onUpdate, limits) {
  if (onUpdate === undefined) return undefined
  if (typeof onUpdate !== 'function') {
    throw new TypeError(`onUpdate must be a function or undefined, got ${describe(onUpdate)}`)
  }
  return function clampedOnUpdate(partial, ...rest) {
    return onUpdate.call(this, clampPayload(partial, limits), ...rest)
  }
}

function wrapOnUpdate(onUpdate, limits) {
  return wrapWith(onUpdate, withoutSpill(readPayloadLimits(limits, PAYLOAD_DEFAULTS)))
}

function isThenable(value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function'
}

async function* clampEach(iterable, limits, errorLimits) {
  try {
    for await (const value of iterable) yield clampPayload(value, limits)
  } catch (error) {
    throw clampError(error, errorLimits)
  }
}

/** Calls `fn` and clamps whatever comes out: a value, a promise, an async iterable, or a throw. */
function callClamped(fn, thisArg, args, limits, errorLimits) {
  let result
  try {
    result = fn.apply(thisArg, args)
  } catch (error) {
    throw clampError(error, errorLimits)
  }
  if (isThenable(result)) {
    return result.then(
      (value) => clampPayload(value, limits),
      (error) => {
        throw clampError(error, errorLimits)
      },
    )
  }
  if (result !== null && typeof result === 'object' && typeof result[Symbol.asyncIterator] === 'function') {
    return clampEach(result, limits, errorLimits)
  }
  return clampPayload(result, limits)
}

function wrapExecute(execute, limits) {
  if (typeof execute !== 'function') throw new TypeError(`execute must be a function, got ${describe(execute)}`)
  const payload = readPayloadLimits(limits, PAYLOAD_DEFAULTS)
  const errors = errorLimitsWithin(payload)
  return function clampedExecute(...args) {
    return callClamped(execute, this, args, payload, errors)
  }
}

function wrapToolWithHardOutputTruncate(tool, limits) {
  if (typeof tool !== 'object' || tool === null || typeof tool.execute !== 'function') {
    throw new TypeError(`tool must be an object with an execute function, got ${describe(tool)}`)
  }
  const toolName = typeof tool.name === 'string' && tool.name !== '' ? tool.name : 'tool-result'
  const payload = readPayloadLimits(typeof limits === 'function' ? limits(tool) : limits, PAYLOAD_DEFAULTS, 'limits', toolName)
  const errors = errorLimitsWithin(payload)
  const updates = withoutSpill(payload)
  const execute = tool.execute
  // Every other property, descriptor and the prototype stay as they are (a frozen tool too).
  const wrapped = withProperty(tool, 'execute', function clampedExecute(toolCallId, params, signal, onUpdate, ...rest) {
    // Called on the copy, run on the original: methods using private fields need it.
    const self = this === wrapped ? tool : this
    return callClamped(execute, self, [toolCallId, params, signal, wrapWith(onUpdate, updates), ...rest], payload, errors)
  })
  return wrapped
}

module.exports = {
  stringTruncateHead,
  stringTruncateTail,
  stringTruncateHeadTail,
  truncateText,
  measureText,
  hardTruncateToolPayload,
  hardTruncateToolError,
  wrapOnUpdate,
  wrapToolWithHardOutputTruncate,
  wrapExecute,
}

// For the other modules of this package (not part of the public API): the binding, the
// array it writes results to, the option helpers (so every module validates and reports
// alike), and the planning and spilling steps the pipelines share.
module.exports.internal = {
  binding,
  out,
  STRATEGY_CODES,
  describe,
  checkKeys,
  isPlainObject,
  readBudget,
  readHeadRatio,
  readNotice,
  checkText,
  WIDE,
  clampAndSpill,
  truncateTextChecked,
  resultFromOut,
}
