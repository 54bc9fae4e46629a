'use strict'

// Every error toolclamp throws for an argument it cannot take is made here: one wording
// ("X must be Y, got Z"), and a code a caller can test without reading the message:
// TOOLCLAMP_INVALID_ARGUMENT for a TypeError (the wrong kind of value),
// TOOLCLAMP_OUT_OF_RANGE for a RangeError (the right kind, a value outside what is allowed).
// Every other error of toolclamp's own is made by `failure`, with a code of its own
// (docs/design.md lists them all).

const { describe } = require('./format.js')

const CODES = new Map([
  [TypeError, 'TOOLCLAMP_INVALID_ARGUMENT'],
  [RangeError, 'TOOLCLAMP_OUT_OF_RANGE'],
])

/** `new Type("<what> must be <expected>, got <value, described><after>")`, with its code. */
function mustBe(Type, what, expected, value, after = '') {
  return invalid(Type, `${what} must be ${expected}, got ${describe(value)}${after}`)
}

/** `new Type(message)` with its code, for a message that tells the value its own way. */
function invalid(Type, message) {
  const error = new Type(message)
  error.code = CODES.get(Type)
  return error
}

/** `new Type(message, options)` with `code`, for an error that is not about an argument. */
function failure(Type, message, code, options) {
  const error = new Type(message, options)
  error.code = code
  return error
}

/** The error for an answer toolclamp should never give: a bug to report, never a result. */
function internal(message) {
  return failure(Error, `toolclamp internal error: ${message}`, 'TOOLCLAMP_INTERNAL_ERROR')
}

module.exports = { mustBe, invalid, failure, internal, CODES }
