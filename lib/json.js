'use strict'

// clampJson and clampJsonText: a JSON value fitted into a budget, still valid JSON of the
// same shape. JS only stringifies the value and parses the answer; what is kept (fair
// shares between an object's members, whole array items in order, strings cut between
// whole characters) is planned by the Rust core (crates/toolclamp-core/src/json.rs).

const native = require('./native.js')
const { truncateWith } = require('./clamp.js')
const { describe, messageOf } = require('./format.js')
const {
  checkKeys,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  fitsByLength,
  isPlainObject,
  LIMIT_KEYS,
  readHeadRatio,
  readOptionalBudget,
  withTokenBudget,
} = require('./options.js')

const JSON_OPTIONS = [...LIMIT_KEYS, 'strategy', 'headRatio', 'markers', 'space']
const JSON_STRATEGIES = ['head', 'tail', 'headTail']
const MARKERS = ['inline', 'none']
// Deeper than this the fallback walk (for values JSON.stringify throws on) stops.
const MAX_WALK_DEPTH = 1000

function readChoice(name, value, choices, fallback) {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !choices.includes(value)) {
    const names = choices.map((c) => JSON.stringify(c))
    throw new TypeError(`${name} must be ${names.slice(0, -1).join(', ')} or ${names.at(-1)}, got ${describe(value)}`)
  }
  return value
}

/** JSON.stringify's `space`, checked: an integer 0–10 or a string of at most 10 chars. */
function readGap(space) {
  if (space === undefined) return ''
  if (typeof space === 'number') {
    if (!(Number.isInteger(space) && space >= 0 && space <= 10)) {
      throw new RangeError(`space must be an integer from 0 to 10 or a string, got ${describe(space)}`)
    }
    return ' '.repeat(space)
  }
  if (typeof space === 'string') {
    if (space.length > 10) throw new RangeError(`space must be at most 10 chars, got ${space.length}`)
    return space
  }
  throw new TypeError(`space must be a number or a string, got ${describe(space)}`)
}

/** The options of clampJson / clampJsonText, read once into a record. */
function readJsonOptions(options) {
  if (options === undefined) return DEFAULT_JSON_OPTIONS
  if (!isPlainObject(options)) throw new TypeError(`options must be an object, got ${describe(options)}`)
  checkKeys(options, JSON_OPTIONS)
  const { maxChars, maxBytes, maxLines, maxTokens, tokenizer, strategy, headRatio, markers, space } = options
  return {
    maxChars: readOptionalBudget('maxChars', maxChars, Infinity),
    maxBytes: withTokenBudget(readOptionalBudget('maxBytes', maxBytes, DEFAULT_MAX_BYTES), maxTokens, tokenizer),
    maxLines: readOptionalBudget('maxLines', maxLines, DEFAULT_MAX_LINES),
    strategy: readChoice('strategy', strategy, JSON_STRATEGIES, 'head'),
    headRatio: readHeadRatio(headRatio),
    markers: readChoice('markers', markers, MARKERS, 'inline'),
    gap: readGap(space),
  }
}

const DEFAULT_JSON_OPTIONS = Object.freeze({
  maxChars: Infinity,
  maxBytes: DEFAULT_MAX_BYTES,
  maxLines: DEFAULT_MAX_LINES,
  strategy: 'head',
  headRatio: 0.5,
  markers: 'inline',
  gap: '',
})

// ---------------------------------------------------------------------------------------
// Stringifying any value
// ---------------------------------------------------------------------------------------

/**
 * `JSON.stringify(value)` for any value, and the value it renders. When
 * JSON.stringify throws (a cycle, a BigInt, a throwing getter or toJSON, a revoked Proxy,
 * nesting too deep), the value is walked again into plain data in which each of those is a
 * marker string, and that data is rendered instead. `text` is undefined for what
 * JSON.stringify gives undefined (undefined, a function, a symbol).
 */
function stringifyAny(value) {
  try {
    return { text: JSON.stringify(value), value }
  } catch {
    let plain
    try {
      plain = toPlainJson(value)
    } catch (error) {
      plain = `[Unserializable: ${messageOf(error)}]`
    }
    return { text: JSON.stringify(plain), value: plain }
  }
}

function unreadable(error) {
  return `[Unreadable: ${messageOf(error)}]`
}

/**
 * Plain JSON data for `value`, as JSON.stringify would write it, where a cycle is
 * "[Circular]", a BigInt its decimal digits, anything that throws "[Unreadable: message]"
 * and nesting beyond MAX_WALK_DEPTH "[Too deep]".
 */
function toPlainJson(root) {
  const ancestors = []
  const walk = (holderKey, value, depth) => {
    try {
      if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
        const toJSON = value.toJSON
        if (typeof toJSON === 'function') value = toJSON.call(value, holderKey)
      }
      if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf()
      if (value instanceof BigInt) value = value.valueOf()
    } catch (error) {
      return unreadable(error)
    }
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return value
      case 'number':
        return Number.isFinite(value) ? value : null
      case 'bigint':
        return value.toString()
      case 'object':
        break
      default:
        return undefined
    }
    if (value === null) return null
    if (ancestors.includes(value)) return '[Circular]'
    if (depth >= MAX_WALK_DEPTH) return '[Too deep]'
    ancestors.push(value)
    try {
      if (Array.isArray(value)) {
        const length = value.length
        const items = []
        for (let i = 0; i < length; i++) {
          let item
          try {
            item = walk(String(i), value[i], depth + 1)
          } catch (error) {
            item = unreadable(error)
          }
          items.push(item === undefined ? null : item)
        }
        return items
      }
      const object = {}
      for (const key of Object.keys(value)) {
        let item
        try {
          item = walk(key, value[key], depth + 1)
        } catch (error) {
          item = unreadable(error)
        }
        // defineProperty: a "__proto__" key is data, as JSON.parse makes it.
        if (item !== undefined) Object.defineProperty(object, key, { value: item, enumerable: true, writable: true, configurable: true })
      }
      return object
    } catch (error) {
      return unreadable(error)
    } finally {
      ancestors.pop()
    }
  }
  return walk('', root, 0)
}

// ---------------------------------------------------------------------------------------
// Clamping
// ---------------------------------------------------------------------------------------

/** One shortening the core reported, as the public API shows it. */
function elision([kind, path, kept, total]) {
  if (kind === 'items') return { path, kept, total }
  if (kind === 'keys') return { path, keptKeys: kept, totalKeys: total }
  return { path, keptBytes: kept, totalBytes: total }
}

function fitsResult(value, totalBytes) {
  return { value, truncated: false, totalBytes, outputBytes: totalBytes, elided: [] }
}

/**
 * clampJson on options already read: `limits` has maxChars, maxBytes, maxLines, strategy
 * and headRatio (payload limits do); `markers` is 'inline' or 'none'; `gap` the
 * indentation the consumer renders with ('' for compact).
 */
function clampJsonWith(value, limits, markers, gap = '') {
  // Compact: the core prices the gap (which need not be JSON whitespace). `rendered` is
  // `value` unless JSON.stringify threw on it (then plain data with markers).
  const { text, value: rendered } = stringifyAny(value)
  if (text === undefined) return fitsResult(value, 0)
  if (gap === '' && fitsByLength(text.length, limits)) return fitsResult(rendered, Buffer.byteLength(text))
  const strategy = JSON_STRATEGIES.includes(limits.strategy) ? limits.strategy : 'head'
  const plan = native.planJson(text, strategy, limits, limits.headRatio, markers === 'inline', gap)
  if (!plan.cut) return fitsResult(rendered, plan.total.bytes)
  const [clamped, elided] = JSON.parse(plan.answer)
  return {
    value: clamped,
    truncated: true,
    totalBytes: plan.total.bytes,
    outputBytes: plan.output.bytes,
    elided: elided.map(elision),
  }
}

function clampJson(value, options) {
  const o = readJsonOptions(options)
  return clampJsonWith(value, o, o.markers, o.gap)
}

/**
 * clampJson for a JSON text. A text within the limits comes back as it is; a longer one
 * is parsed, clamped and rendered with `space`; a text that is not JSON is clamped as
 * text (`truncateText` with the same limits and strategy) and says `json: false`.
 */
function clampJsonText(text, options) {
  if (typeof text !== 'string') throw new TypeError(`text must be a string, got ${describe(text)}`)
  const o = readJsonOptions(options)
  const whole = (totalBytes) => ({ text, json: true, truncated: false, totalBytes, outputBytes: totalBytes, elided: [] })
  if (fitsByLength(text.length, o)) return whole(Buffer.byteLength(text))
  const measured = native.measureText(text)
  if (measured.chars <= o.maxChars && measured.bytes <= o.maxBytes && measured.lines <= o.maxLines) {
    return whole(measured.bytes)
  }
  let parsed
  try {
    parsed = JSON.parse(text)
  } catch {
    const cut = truncateWith(text, o, o.strategy, o.headRatio, undefined)
    return {
      text: cut.text,
      json: false,
      truncated: cut.truncated,
      totalBytes: cut.totalBytes,
      outputBytes: cut.outputBytes,
      elided: [],
    }
  }
  const result = clampJsonWith(parsed, o, o.markers, o.gap)
  const rendered = JSON.stringify(result.value, null, o.gap)
  return {
    text: rendered,
    json: true,
    truncated: result.truncated,
    totalBytes: result.totalBytes,
    outputBytes: result.truncated ? result.outputBytes : Buffer.byteLength(rendered),
    elided: result.elided,
  }
}

module.exports = { clampJson, clampJsonText, clampJsonWith, stringifyAny }
