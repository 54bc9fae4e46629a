'use strict'

// Text made from values, for messages and for the model: counts with thousands separators,
// a value named in an error message, and any value as text. None of these ever throws,
// whatever it is given (revoked proxies, throwing getters and toJSON, cycles, BigInt).
// And results cut from a text that do not keep that text alive.

const { inspect } = require('node:util')

/** `1234567` → `1,234,567`. */
function formatCount(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

/** A value as an error message names it: a string quoted, a number as it is, else its kind. */
function describe(value) {
  if (value === null) return 'null'
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
      return isArray(value) ? 'an array' : 'an object'
  }
}

/** `Array.isArray`, false where asking throws (a revoked proxy). */
function isArray(value) {
  try {
    return Array.isArray(value)
  } catch {
    return false
  }
}

/** Arrays and objects made by literals or JSON.parse: the values JSON shows in full. */
function isPlainData(value) {
  if (Array.isArray(value)) return true
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * Any value as text. Strings are kept as they are, other primitives go through String
 * (JSON would make NaN "null" and throw on BigInt), plain data through JSON, and whatever
 * JSON cannot show faithfully (cycles, Map, class instances, functions, revoked proxies)
 * through util.inspect.
 */
function textOf(value) {
  if (typeof value === 'string') return value
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    try {
      return String(value)
    } catch {
      return `[${typeof value}]` // a Symbol
    }
  }
  try {
    if (isPlainData(value)) {
      const json = JSON.stringify(value)
      if (typeof json === 'string') return json
    }
  } catch {
    // A cycle, a BigInt inside, or a throwing toJSON or getter: inspect shows it instead.
  }
  try {
    return inspect(value)
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

/** A property read that never throws (a throwing getter yields `fallback(thrown)`). */
function readSafely(object, key, fallback) {
  try {
    return object[key]
  } catch (thrown) {
    return fallback(thrown)
  }
}

/** What a thrown value says: an Error's message, or the value as text. */
function messageOf(thrown) {
  if (!isError(thrown)) return textOf(thrown)
  const message = readSafely(thrown, 'message', () => '[message unreadable]')
  return typeof message === 'string' ? message : textOf(message)
}

/**
 * `part`, cut from a text of `sourceLength` units, as a string of its own. V8 makes slices
 * (and so concatenations of slices) that point into their source and keep all of it
 * alive: a 50 KB result would keep a 100 MB tool output in memory for as long as the
 * conversation holds the result. Copied only when the dropped part is large, so what a
 * result keeps alive is at most twice its length plus 64 Ki units.
 */
function unshared(part, sourceLength) {
  if (sourceLength - part.length <= Math.max(part.length, 65536)) return part
  // Prepending flattens the concatenation into a new string; the slice then points into that.
  return (' ' + part).slice(1)
}

/** How a key is compared for "did you mean": case, `_` and `-` do not count. */
function normalizeKey(key) {
  return key.toLowerCase().replace(/[_-]/g, '')
}

/**
 * The key of `candidates` that `key` misspells, if any: the one near-miss rule, for option
 * keys and the CLI's flags alike (here because the CLI reads it without the addon).
 */
function nearMiss(key, candidates) {
  const normal = normalizeKey(key)
  return candidates.find((candidate) => candidate !== key && normalizeKey(candidate) === normal)
}

module.exports = { unshared, formatCount, describe, isArray, textOf, isError, readSafely, messageOf, nearMiss }
