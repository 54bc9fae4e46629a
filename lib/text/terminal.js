'use strict'

// normalizeTerminalOutput and the `normalize` option: terminal output as a model should read
// it, what a terminal would finally show (colours and other escape sequences dropped, `\r`
// redraws and backspaces applied, other control chars shown). The rules live in the Rust
// core (crates/toolclamp-core/src/terminal.rs); this file reads the option.

const { mustBe } = require('../common/errors.js')
const { types } = require('node:util')

const native = require('../native.js')
const { checkKeys, isPlainObject } = require('../common/options.js')

const RULES = native.NORMALIZE_FLAGS
const ALL = (1 << RULES.length) - 1

/**
 * The `normalize` option as flags: `true` (every rule), `false` or undefined (none, 0), or
 * an object turning rules off (`{ ansi, carriageReturns, backspaces, controls }`, each on
 * unless false).
 */
function readNormalize(value) {
  if (value === undefined || value === false) return 0
  if (value === true) return ALL
  if (!isPlainObject(value)) {
    throw mustBe(TypeError, `normalize`, `true, false or an object with ${RULES.join(', ')}`, value)
  }
  checkKeys(value, RULES, 'normalize.')
  let flags = 0
  RULES.forEach((rule, bit) => {
    const on = value[rule]
    if (on !== undefined && typeof on !== 'boolean') {
      throw mustBe(TypeError, `normalize.${rule}`, `a boolean`, on)
    }
    if (on !== false) flags |= 1 << bit
  })
  return flags
}

/** The error of a normalised text longer than a JS string can be. */
function tooLongError() {
  const error = new RangeError(
    `toolclamp: the normalised text would be longer than the ${native.MAX_STRING_LENGTH} chars a JS string can hold; ` +
      'clamp it instead: truncateText or createOutputCapture with normalize keep only what their limits allow',
  )
  error.code = 'TOOLCLAMP_NORMALIZED_TOO_LONG'
  return error
}

/**
 * `text` (a string, or UTF-8 bytes) normalised with `flags`; the same string when nothing
 * changed. Throws TOOLCLAMP_NORMALIZED_TOO_LONG when the normalised text is longer than a
 * string can be (see {@link mayOutgrowString} for who avoids that).
 */
function normalizeWith(text, flags) {
  if (flags === 0) return text
  const normalized = native.normalizeTerminal(text, flags)
  if (normalized === undefined) throw tooLongError()
  return normalized === text ? text : normalized
}

/**
 * Whether `text` normalised with `flags` might be longer than a string can be, by the core's
 * bound on its growth (O(1)): such text is clamped through a capture, never built whole.
 */
function mayOutgrowString(text, flags) {
  return flags !== 0 && native.normalizedMayOutgrowString(text)
}

/** A string or UTF-8 bytes as a terminal would finally show it. */
function normalizeTerminalOutput(text, options) {
  if (typeof text !== 'string' && !types.isUint8Array(text)) {
    throw mustBe(TypeError, `text`, `a string, Buffer or Uint8Array`, text)
  }
  return normalizeWith(text, readNormalize(options ?? true))
}

module.exports = { normalizeTerminalOutput, readNormalize, normalizeWith, mayOutgrowString }
