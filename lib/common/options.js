'use strict'

// Option reading shared by every function: unknown keys and near misses, budgets, the head
// ratio, strategies, notices, and the default budgets. Each value is read from the
// caller's object exactly once, into locals, so a getter that calls toolclamp (or returns
// something else the second time) cannot change a call's budgets.

const { invalid, mustBe } = require('./errors.js')
const { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, DEFAULT_HEAD_RATIO } = require('./defaults.js')
const { didYouMean, isArray, nearMiss } = require('./format.js')
const native = require('../native.js')
const { ESTIMATE, readTokenizer } = require('../tokens/tokenizers.js')

const LIMIT_KEYS = ['maxChars', 'maxBytes', 'maxLines', 'maxTokens', 'tokenizer']

// Proves a text fits its limits from its length alone (lib/native.js, where planText needs it too).
const { fitsByLength } = native

/** A non-array object; false for a revoked proxy, which no option can be read from. */
function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !isArray(value)
}

/** `unknown option "maxchars"; did you mean "maxChars"?`, keys shown with `prefix` (`stdout.`). */
function unknownOption(key, allowed, prefix = '') {
  const near = didYouMean(key, allowed)
  const name = JSON.stringify(prefix + key)
  return invalid(
    TypeError,
    near === undefined
      ? `unknown option ${name}; expected one of ${allowed.join(', ')}`
      : `unknown option ${name}; did you mean ${JSON.stringify(prefix + near)}?`,
  )
}

/** Throws on an own key of `object` that is not in `allowed`. Inherited keys are not options. */
function checkKeys(object, allowed, prefix = '') {
  // for...in allocates nothing (an option read costs nanoseconds); inherited keys are skipped.
  for (const key in object) {
    if (!allowed.includes(key) && Object.hasOwn(object, key)) throw unknownOption(key, allowed, prefix)
  }
}

/** A budget that is set: a non-negative integer or Infinity. */
function readBudget(name, value) {
  if (typeof value !== 'number') throw mustBe(TypeError, `${name}`, `a number`, value)
  if (!(value === Infinity || (Number.isInteger(value) && value >= 0))) {
    throw mustBe(RangeError, `${name}`, `a non-negative integer or Infinity`, value)
  }
  return value
}

/** A budget that may be left out (`undefined` gives `fallback`). */
function readOptionalBudget(name, value, fallback = Infinity) {
  return value === undefined ? fallback : readBudget(name, value)
}

/**
 * A byte budget with an estimated token budget folded in: one token per `BYTES_PER_TOKEN`
 * UTF-8 bytes, rounded up, so a text fits `maxTokens` estimated tokens exactly when it fits
 * `maxTokens × BYTES_PER_TOKEN` bytes, which the byte planner keeps.
 */
function withTokenBudget(maxBytes, maxTokens, prefix = '') {
  if (maxTokens === undefined) return maxBytes
  const tokens = readBudget(`${prefix}maxTokens`, maxTokens)
  return Math.min(maxBytes, tokens * native.BYTES_PER_TOKEN, tokens === Infinity ? Infinity : Number.MAX_SAFE_INTEGER)
}

/**
 * A tokenizer counts `maxTokens`: without them it would count nothing, and a notice naming
 * tokens would be the estimate while seeming exact. Refused, as the CLI refuses it.
 */
function tokenizerAlone(prefix = '') {
  return invalid(TypeError, `${prefix}tokenizer counts ${prefix}maxTokens: give ${prefix}maxTokens too, or no tokenizer`)
}

const UNBOUNDED = Object.freeze({ maxChars: Infinity, maxBytes: Infinity, maxLines: Infinity })

/**
 * The budgets of options already read (`{ maxChars, maxBytes, maxLines, maxTokens,
 * tokenizer }`): each one not given is its `defaults` one. Estimated tokens become bytes
 * (withTokenBudget); a tokenizer other than the estimate gives `tokens`: `{ max, tokenizer }`
 * (readTokenizer), which the clamp keeps by counting. The one rule every clamp's options
 * follow; `prefix` names them in errors (`stdout.`).
 */
function readBudgets({ maxChars, maxBytes, maxLines, maxTokens, tokenizer }, defaults = UNBOUNDED, prefix = '') {
  return budgetsOf(maxChars, maxBytes, maxLines, maxTokens, tokenizer, defaults, prefix)
}

/** readBudgets of values already read. */
function budgetsOf(maxChars, maxBytes, maxLines, maxTokens, tokenizer, defaults, prefix) {
  const counter = readTokenizer(tokenizer, prefix)
  const bytes = budgetOr(prefix, 'maxBytes', maxBytes, defaults.maxBytes)
  if (counter !== ESTIMATE && maxTokens === undefined) throw tokenizerAlone(prefix)
  const exactMax = counter === ESTIMATE ? Infinity : readBudget(`${prefix}maxTokens`, maxTokens)
  // A counter that counts tokens even for no text leaves no result within fewer.
  if (counter.count !== undefined && exactMax !== Infinity) {
    const empty = counter.count('')
    if (empty > exactMax) {
      throw mustBe(RangeError, `${prefix}maxTokens`, `at least ${empty}, what the tokenizer function counts for an empty text`, exactMax)
    }
  }
  return {
    maxChars: budgetOr(prefix, 'maxChars', maxChars, defaults.maxChars),
    maxBytes: counter === ESTIMATE ? withTokenBudget(bytes, maxTokens, prefix) : bytes,
    maxLines: budgetOr(prefix, 'maxLines', maxLines, defaults.maxLines),
    tokens: exactMax === Infinity ? undefined : { max: exactMax, tokenizer: counter },
  }
}

/**
 * readOptionalBudget of the option `prefix + key`, whose name is built only for an error:
 * a call that reads valid budgets builds no string.
 */
function budgetOr(prefix, key, value, fallback) {
  if (value === undefined) return fallback
  if (typeof value === 'number' && (value === Infinity || (Number.isInteger(value) && value >= 0))) return value
  return readBudget(`${prefix}${key}`, value)
}

/**
 * `maxChars`, `maxBytes` and `maxLines` of an object whose keys were checked, at least one
 * of them or `maxTokens` given (readBudgets); `prefix` names them in errors (`stdout.`).
 */
function readLimits(object, prefix = '', what = 'at least one of maxChars, maxBytes, maxLines, maxTokens is required') {
  const { maxChars, maxBytes, maxLines, maxTokens } = object
  if (maxChars === undefined && maxBytes === undefined && maxLines === undefined && maxTokens === undefined) throw invalid(TypeError, what)
  return budgetsOf(maxChars, maxBytes, maxLines, maxTokens, object.tokenizer, UNBOUNDED, prefix)
}

/**
 * A limit given as a number (maxChars) or as an object setting any of the three budgets.
 * `name` is how the caller calls the argument.
 */
function readLimitArgument(name, limit) {
  if (typeof limit === 'number') return { maxChars: readBudget(name, limit), maxBytes: Infinity, maxLines: Infinity, tokens: undefined }
  if (!isPlainObject(limit)) {
    throw mustBe(TypeError, `${name}`, `a number or an object with maxChars, maxBytes, maxLines or maxTokens`, limit)
  }
  if (name === 'limit') {
    checkKeys(limit, LIMIT_KEYS)
    return readLimits(limit)
  }
  checkKeys(limit, LIMIT_KEYS, `${name}.`)
  return readLimits(limit, `${name}.`, `${name} must set at least one of maxChars, maxBytes, maxLines, maxTokens`)
}

function readHeadRatio(value, fallback = DEFAULT_HEAD_RATIO) {
  if (value === undefined) return fallback
  if (typeof value !== 'number') {
    throw mustBe(TypeError, `headRatio`, `a number from 0 to 1`, value)
  }
  if (!(value >= 0 && value <= 1)) {
    throw mustBe(RangeError, `headRatio`, `a number from 0 to 1`, value)
  }
  return value
}

// A plain copy: includes on a frozen array is slower, and this runs on every call.
const STRATEGIES = [...native.STRATEGIES]
const STRATEGY_LIST = STRATEGIES.map((name) => JSON.stringify(name))
const STRATEGY_NAMES = `${STRATEGY_LIST.slice(0, -1).join(', ')} or ${STRATEGY_LIST.at(-1)}`

/** A strategy name (`fallback` when not given). */
function readStrategy(value, fallback = 'head') {
  const strategy = value === undefined ? fallback : value
  if (typeof strategy !== 'string' || !STRATEGIES.includes(strategy)) {
    throw mustBe(TypeError, `strategy`, `${STRATEGY_NAMES}`, strategy)
  }
  return strategy
}

/**
 * Where kept text may end: 'line' (on whole lines, unless that keeps under 4/5 of the exact
 * cut) or 'none' (at any safe cut). Returns true for 'line'.
 */
function readSnap(value, fallback) {
  const snap = value === undefined ? fallback : value
  if (snap !== 'line' && snap !== 'none') throw mustBe(TypeError, `snap`, `"line" or "none"`, snap)
  return snap === 'line'
}

/** A notice: undefined (the default), a template (checked now, so a bad one fails even when nothing is cut) or a function. */
function readNotice(notice) {
  if (notice === undefined || typeof notice === 'function') return notice
  if (typeof notice === 'string') return native.checkTemplate(notice)
  throw mustBe(TypeError, `notice`, `a string or a function`, notice)
}

/** An options object (or `undefined` when `optional`), with its keys checked. */
function readOptionsObject(options, allowed, optional = false) {
  if (options === undefined && optional) return {}
  if (!isPlainObject(options)) throw mustBe(TypeError, `options`, `an object`, options)
  checkKeys(options, allowed)
  return options
}

module.exports = {
  tokenizerAlone,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  LIMIT_KEYS,
  fitsByLength,
  isPlainObject,
  nearMiss,
  unknownOption,
  checkKeys,
  readBudget,
  readOptionalBudget,
  readBudgets,
  readLimits,
  withTokenBudget,
  readLimitArgument,
  readHeadRatio,
  readStrategy,
  readSnap,
  readNotice,
  readOptionsObject,
}
