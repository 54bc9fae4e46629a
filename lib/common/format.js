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

/** A property read that never throws: undefined when it cannot be read (a throwing getter, a revoked Proxy). */
function read(object, key) {
  try {
    return object[key]
  } catch {
    return undefined
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
 * The key of `candidates` that `key` writes differently, if any: case, `_` and `-` aside, the
 * same key. (A near miss of a key that is read is an error where keys are not checked
 * otherwise, as in exec results: no typo distance there, `stdio` is not `stdout`.)
 */
function nearMiss(key, candidates) {
  const normal = normalizeKey(key)
  return candidates.find((candidate) => candidate !== key && normalizeKey(candidate) === normal)
}

/** Optimal string alignment distance: a swap of two neighbours is one edit. */
function editDistance(a, b) {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0][j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2][j - 2] + 1)
      rows[i][j] = best
    }
  }
  return rows[a.length][b.length]
}

/**
 * "Did you mean": the one rule for unknown option keys and the CLI's flags (here because the
 * CLI reads it without the addon). A near miss ({@link nearMiss}), else the one candidate
 * within two edits (one for a key of up to 4 letters), case, `_` and `-` aside.
 */
function didYouMean(key, candidates) {
  const near = nearMiss(key, candidates)
  if (near !== undefined) return near
  const normal = normalizeKey(key)
  const reach = normal.length <= 4 ? 1 : 2
  let best
  let bestDistance = Infinity
  let ties = 0
  for (const candidate of candidates) {
    const other = normalizeKey(candidate)
    // One-letter flags (-n, -c) are never a guess.
    if (other.length <= 2) continue
    const distance = editDistance(normal, other)
    if (distance < bestDistance) [best, bestDistance, ties] = [candidate, distance, 0]
    else if (distance === bestDistance) ties++
  }
  return bestDistance <= reach && ties === 0 ? best : undefined
}

/** What a command line says of an unknown `flag`: the one of `flags` meant, or where help is. */
function unknownOptionMessage(flag, flags, help) {
  const near = didYouMean(flag, flags)
  return near === undefined
    ? `unknown option ${JSON.stringify(flag)} (see ${help})`
    : `unknown option ${JSON.stringify(flag)}; did you mean ${near}?`
}

module.exports = {
  read,
  unshared,
  formatCount,
  describe,
  isArray,
  textOf,
  isError,
  readSafely,
  messageOf,
  nearMiss,
  didYouMean,
  unknownOptionMessage,
}
