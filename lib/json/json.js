'use strict'

// clampJson and clampJsonText: a JSON value fitted into a budget, still valid JSON of the
// same shape. JS only stringifies the value and parses the answer; what is kept (fair
// shares between an object's members, whole array items in order, strings cut between
// whole characters) is planned by the Rust core (crates/toolclamp-core/src/json/), on the
// JSON text: a JSON text given by a user is never read into JS numbers, so every token it
// keeps is the very text it had. replaceJsonValue edits a JSON text the same way.

const { internal, invalid, mustBe } = require('../common/errors.js')
const { DEFAULT_HEAD_RATIO } = require('../common/defaults.js')
const native = require('../native.js')
const { truncateWith } = require('../text/clamp.js')
const { fitTokens } = require('../tokens/fit.js')
const { countWithin } = require('../tokens/tokenizers.js')
const { messageOf } = require('../common/format.js')
const {
  checkKeys,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  fitsByLength,
  isPlainObject,
  LIMIT_KEYS,
  readBudgets,
  readHeadRatio,
} = require('../common/options.js')

const JSON_OPTIONS = [...LIMIT_KEYS, 'strategy', 'headRatio', 'markers', 'space']
const JSON_STRATEGIES = ['head', 'tail', 'headTail']
const MARKERS = ['inline', 'none']
// Deeper than this the fallback walk (for values JSON.stringify throws on) stops.
const MAX_WALK_DEPTH = 1000

function readChoice(name, value, choices, fallback) {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !choices.includes(value)) {
    const names = choices.map((c) => JSON.stringify(c))
    throw mustBe(TypeError, `${name}`, `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`, value)
  }
  return value
}

/** JSON.stringify's `space`, checked: an integer 0–10 or a string of at most 10 chars. */
function readGap(space) {
  if (space === undefined) return ''
  if (typeof space === 'number') {
    if (!(Number.isInteger(space) && space >= 0 && space <= 10)) {
      throw mustBe(RangeError, `space`, `an integer from 0 to 10 or a string`, space)
    }
    return ' '.repeat(space)
  }
  if (typeof space === 'string') {
    if (space.length > 10) throw invalid(RangeError, `space must be at most 10 chars, got ${space.length}`)
    return space
  }
  throw mustBe(TypeError, `space`, `a number or a string`, space)
}

/** The options of clampJson / clampJsonText, read once into a record. */
function readJsonOptions(options) {
  if (options === undefined) return DEFAULT_JSON_OPTIONS
  if (!isPlainObject(options)) throw mustBe(TypeError, `options`, `an object`, options)
  checkKeys(options, JSON_OPTIONS)
  const { strategy, headRatio, markers, space } = options
  return {
    ...readBudgets(options, DEFAULT_JSON_OPTIONS),
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
  headRatio: DEFAULT_HEAD_RATIO,
  markers: 'inline',
  gap: '',
})

// ---------------------------------------------------------------------------------------
// Stringifying any value
// ---------------------------------------------------------------------------------------

const NO_CUTS = Object.freeze([])

/**
 * `JSON.stringify(value)` for any value, and the value it renders. When
 * JSON.stringify throws (a cycle, a BigInt, a throwing getter or toJSON, a revoked Proxy,
 * nesting too deep), the value is walked again into plain data in which each of those is a
 * marker string, and that data is rendered instead; `cuts` lists the containers nested too
 * deep that became "[Too deep]" (as elisions: nothing of them is kept). `text` is undefined
 * for what JSON.stringify gives undefined (undefined, a function, a symbol).
 */
function stringifyAny(value) {
  if (memo === undefined || typeof value !== 'object' || value === null) return stringifyOnce(value)
  let found = memo.get(value)
  if (found === undefined) memo.set(value, (found = stringifyOnce(value)))
  return found
}

// While a limit in exact tokens clamps one value many times (one clamp per byte budget the
// search tries: lib/tokens/fit.js), each object is stringified once, and every clamp reads
// the same text of it. Set only inside withStringifiedOnce.
let memo

/** `fn()`, with each object stringifyAny reads meanwhile stringified once. */
function withStringifiedOnce(fn) {
  if (memo !== undefined) return fn()
  memo = new Map()
  try {
    return fn()
  } finally {
    memo = undefined
  }
}

function stringifyOnce(value) {
  try {
    return { text: JSON.stringify(value), value, cuts: NO_CUTS }
  } catch {
    let plain
    const cuts = []
    try {
      plain = toPlainJson(value, cuts)
    } catch (error) {
      plain = `[Unserializable: ${messageOf(error)}]`
    }
    return { text: JSON.stringify(plain), value: plain, cuts }
  }
}

function unreadable(error) {
  return `[Unreadable: ${messageOf(error)}]`
}

/** A path as the core writes them: `$`, `.key` for an identifier, else `["key"]`, `[3]`. */
function pathText(steps) {
  let path = '$'
  for (const step of steps) {
    if (typeof step === 'number') path += `[${step}]`
    else path += /^[A-Za-z_$][\w$]*$/.test(step) ? `.${step}` : `[${JSON.stringify(step)}]`
  }
  return path
}

/**
 * Plain JSON data for `value`, as JSON.stringify would write it, where a cycle is
 * "[Circular]", a BigInt its decimal digits, anything that throws "[Unreadable: message]"
 * and nesting beyond MAX_WALK_DEPTH "[Too deep]" (each listed in `cuts`).
 */
function toPlainJson(root, cuts) {
  const ancestors = []
  const steps = []
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
    if (depth >= MAX_WALK_DEPTH) {
      const path = pathText(steps)
      if (Array.isArray(value)) cuts.push({ path, kept: 0, total: value.length })
      else cuts.push({ path, keptKeys: 0, totalKeys: Object.keys(value).length })
      return '[Too deep]'
    }
    ancestors.push(value)
    try {
      if (Array.isArray(value)) {
        const length = value.length
        const items = []
        for (let i = 0; i < length; i++) {
          let item
          steps.push(i)
          try {
            item = walk(String(i), value[i], depth + 1)
          } catch (error) {
            item = unreadable(error)
          } finally {
            steps.pop()
          }
          items.push(item === undefined ? null : item)
        }
        return items
      }
      const object = {}
      for (const key of Object.keys(value)) {
        let item
        steps.push(key)
        try {
          item = walk(key, value[key], depth + 1)
        } catch (error) {
          item = unreadable(error)
        } finally {
          steps.pop()
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
  // 'text', and 'value': nothing of the value kept (its bytes as rendered).
  return { path, keptBytes: kept, totalBytes: total }
}

/** The core's answer: its elisions (a JSON array on one line), then the value's text. */
function readAnswer(answer) {
  const end = answer.indexOf('\n')
  return { elided: JSON.parse(answer.slice(0, end)).map(elision), text: answer.slice(end + 1) }
}

function fitsResult(value, totalBytes) {
  return { value, truncated: false, totalBytes, outputBytes: totalBytes, elided: [] }
}

/** A rendered value kept whole: truncated only when the walk of a value too deep cut it. */
function wholeResult(rendered, totalBytes, cuts) {
  if (cuts.length === 0) return fitsResult(rendered, totalBytes)
  return { value: rendered, truncated: true, totalBytes, outputBytes: totalBytes, elided: [...cuts] }
}

/**
 * clampJson on options already read: `limits` has maxChars, maxBytes, maxLines, strategy
 * and headRatio (payload limits do); `markers` is 'inline' or 'none'; `gap` the
 * indentation the consumer renders with ('' for compact). `value` is undefined in the
 * result when no form of the value fits (see the core's rules for tiny budgets).
 */
function clampJsonWith(value, limits, markers, gap = '') {
  // Compact: the core prices the gap (which need not be JSON whitespace). `rendered` is
  // `value` unless JSON.stringify threw on it (then plain data with markers, and `cuts`
  // lists what nesting too deep lost).
  const { text, value: rendered, cuts } = stringifyAny(value)
  if (text === undefined) return fitsResult(value, 0)
  if (gap === '' && fitsByLength(text.length, limits)) return wholeResult(rendered, Buffer.byteLength(text), cuts)
  const strategy = JSON_STRATEGIES.includes(limits.strategy) ? limits.strategy : 'head'
  const plan = native.planJson(text, strategy, limits, limits.headRatio, markers === 'inline', gap)
  if (!plan.cut) return wholeResult(rendered, plan.total.bytes, cuts)
  const answer = readAnswer(plan.answer)
  return {
    value: answer.text === '' ? undefined : JSON.parse(answer.text),
    truncated: true,
    totalBytes: plan.total.bytes,
    outputBytes: plan.output.bytes,
    elided: cuts.length === 0 ? answer.elided : [...answer.elided, ...cuts],
  }
}

function clampJson(value, options) {
  const o = readJsonOptions(options)
  if (o.tokens === undefined) return clampJsonWith(value, o, o.markers, o.gap)
  // What a model reads: the value rendered as the consumer renders it.
  const count = (r, limit) => countWithin(o.tokens.tokenizer, renderedText(r.value, o.gap), limit)
  const at = (bytes) => clampJsonWith(value, { ...o, maxBytes: bytes, tokens: undefined }, o.markers, o.gap)
  return withStringifiedOnce(() =>
    withTokenCount(fitTokens(o.tokens, { cap: o.maxBytes, total: (r) => r.totalBytes }, at, count), o.tokens),
  )
}

/** The text of a clamped value as rendered with `gap` ('' for none). */
function renderedText(value, gap) {
  return value === undefined ? '' : (JSON.stringify(value, null, gap) ?? '')
}

/** A result cut within a limit in exact tokens (lib/tokens/fit.js), with its count: `tokens: { tokenizer, output }`. */
function withTokenCount(fitted, tokens) {
  const { result } = fitted
  return { ...result, tokens: { tokenizer: tokens.tokenizer.name, output: fitted.tokens } }
}

/** The error the core throws for a text that is not JSON. */
function isNotJson(error) {
  return error instanceof TypeError && error.message.startsWith('text: not valid JSON')
}

/**
 * clampJson for a JSON text. A text within the limits comes back as it is; a longer one
 * is clamped by the core on its text (every number, string and key kept is copied as
 * written, duplicate keys included) and rendered with `space`; a text that is not JSON
 * (`JSON.parse` would throw) is clamped as text (`truncateText` with the same limits and
 * strategy) and says `json: false`. `totalBytes` is the text's.
 */
function clampJsonText(text, options) {
  if (typeof text !== 'string') throw mustBe(TypeError, `text`, `a string`, text)
  const o = readJsonOptions(options)
  if (o.tokens === undefined) return clampJsonTextWith(text, o)
  const at = (bytes) => clampJsonTextWith(text, { ...o, maxBytes: bytes, tokens: undefined })
  const first = at(o.maxBytes)
  // Not JSON: cut as text, where the core counts the tokens itself.
  if (!first.json) return clampJsonTextWith(text, o)
  const count = (r, limit) => countWithin(o.tokens.tokenizer, r.text, limit)
  return withTokenCount(fitTokens(o.tokens, { cap: o.maxBytes, total: first.totalBytes }, at, count), o.tokens)
}

/** clampJsonText with options already read. */
function clampJsonTextWith(text, o) {
  let plan
  try {
    plan = native.planJsonText(text, o.strategy, o, o.headRatio, o.markers === 'inline', o.gap)
  } catch (error) {
    if (!isNotJson(error)) throw error
    const cut = truncateWith(text, o, o.strategy, o.headRatio, undefined)
    return {
      text: cut.text,
      json: false,
      truncated: cut.truncated,
      totalBytes: cut.totalBytes,
      outputBytes: cut.outputBytes,
      elided: [],
      ...(cut.tokens === undefined ? undefined : { tokens: cut.tokens }),
    }
  }
  const totalBytes = plan.total.bytes
  if (!plan.cut) return { text, json: true, truncated: false, totalBytes, outputBytes: totalBytes, elided: [] }
  const answer = readAnswer(plan.answer)
  return {
    text: answer.text,
    json: true,
    truncated: answer.elided.length > 0,
    totalBytes,
    outputBytes: plan.output.bytes,
    elided: answer.elided,
  }
}

// ---------------------------------------------------------------------------------------
// Editing a JSON text in place
// ---------------------------------------------------------------------------------------

function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function sameKeys(a, b) {
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  return ka.length === kb.length && ka.every((key, i) => key === kb[i])
}

/**
 * The places where `after` differs from `before` (values as JSON.parse makes them), as
 * `[path, value]`: as deep as both keep their shape (the same keys, the same length), so
 * an edit replaces no more than what changed.
 */
function changedValues(before, after, path, edits) {
  if (before === after) return
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    for (let i = 0; i < before.length; i++) changedValues(before[i], after[i], [...path, i], edits)
    return
  }
  if (isRecord(before) && isRecord(after) && sameKeys(before, after)) {
    for (const key of Object.keys(before)) changedValues(before[key], after[key], [...path, key], edits)
    return
  }
  edits.push([path, after])
}

/**
 * The JSON `text` with the value at `path` (keys and indices) changed from `before` to
 * `after`, where `before` is what JSON.parse read there. Only what differs is written
 * anew, as JSON.stringify writes it; every other byte of the text stays as it was (numbers
 * such as 12345678901234567890 or 1e400, escapes, duplicate keys, whitespace). A path
 * names the member JSON.parse keeps, the last of duplicates.
 */
function replaceJsonValue(text, path, before, after) {
  const edits = []
  changedValues(before, after, path, edits)
  if (edits.length === 0) return text
  const spans = native.locateJson(
    text,
    edits.map(([at]) => at),
  )
  const order = edits.map((_, k) => k)
  for (const k of order) {
    const json = JSON.stringify(edits[k][1])
    if (spans[k] === null || json === undefined) {
      throw internal(`no JSON value to replace at ${pathText(edits[k][0])}`)
    }
  }
  // The edits are of disjoint values: spliced in the order of the text.
  order.sort((a, b) => spans[a][0] - spans[b][0])
  const parts = []
  let at = 0
  for (const k of order) {
    parts.push(text.slice(at, spans[k][0]), JSON.stringify(edits[k][1]))
    at = spans[k][1]
  }
  parts.push(text.slice(at))
  return parts.join('')
}

module.exports = { clampJson, clampJsonText, clampJsonWith, replaceJsonValue, stringifyAny, withStringifiedOnce }
