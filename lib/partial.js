'use strict'

// readPartial: page through a large text with a continuation handle. The core finds the
// page (whole lines when they fit, never a split character) and writes the banner; this
// file validates options, slices the page and names the fields.

const { types } = require('node:util')
const { isUtf8 } = require('node:buffer')
const { internal } = require('./clamp.js')

const { binding, out, describe, checkKeys, isPlainObject, WIDE } = internal

// Slots of `out` after planPage (mirrored in src/lib.rs).
const PAGE_START = 0
const PAGE_END = 1
const TOTAL = 2
const SHOWN = 5
const FIRST_LINE = 8
const LAST_LINE = 9
const START_BYTE = 10
const END_BYTE = 11
const NEXT_LINE = 12
const NEXT_COLUMN = 13

const DEFAULT_MAX_BYTES = 51200
const DEFAULT_MAX_LINES = 2000
const OPTIONS = ['maxBytes', 'maxLines', 'offset', 'column', 'onOverflow']

/** Thrown by `readPartial(text, { onOverflow: 'error' })` when the text does not fit one page. */
class ToolOutputTooLargeError extends Error {
  constructor(facts) {
    const count = (n) => n.toLocaleString('en-US')
    super(
      `text too large to read whole: ${count(facts.totalBytes)} bytes, ${count(facts.totalLines)} lines ` +
        `(limit ${count(facts.maxBytes)} bytes, ${count(facts.maxLines)} lines per read)`,
    )
    this.name = 'ToolOutputTooLargeError'
    this.code = 'TOOL_OUTPUT_TOO_LARGE'
    this.totalBytes = facts.totalBytes
    this.totalLines = facts.totalLines
    this.maxBytes = facts.maxBytes
    this.maxLines = facts.maxLines
    this.offset = facts.offset
  }
}

function readCount(name, value, fallback, min) {
  if (value === undefined) return fallback
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`)
  if (!(value === Infinity || (Number.isInteger(value) && value >= min))) {
    throw new RangeError(`${name} must be an integer of at least ${min} or Infinity, got ${describe(value)}`)
  }
  return value
}

function readPosition(name, value, fallback, min) {
  if (value === undefined) return fallback
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${describe(value)}`)
  if (!(Number.isSafeInteger(value) && value >= min)) {
    throw new RangeError(`${name} must be an integer of at least ${min}, got ${describe(value)}`)
  }
  return value
}

/**
 * One page of `text`: from line `offset` (1-based; `column` chars into it), at most
 * `maxBytes` UTF-8 bytes and `maxLines` lines. A partial page starts with a banner line
 * saying what is shown and how to continue.
 */
function readPartial(text, options = {}) {
  const bytes = typeof text !== 'string' && types.isUint8Array(text)
  if (typeof text !== 'string' && !bytes) {
    throw new TypeError(`text must be a string, Buffer or Uint8Array, got ${describe(text)}`)
  }
  if (!isPlainObject(options)) throw new TypeError(`options must be an object, got ${describe(options)}`)
  checkKeys(options, OPTIONS)
  // A page must hold any one character (4 bytes) and a line, or paging could stall.
  const maxBytes = readCount('maxBytes', options.maxBytes, DEFAULT_MAX_BYTES, 4)
  const maxLines = readCount('maxLines', options.maxLines, DEFAULT_MAX_LINES, 1)
  const offset = readPosition('offset', options.offset, 1, 1)
  const column = readPosition('column', options.column, 0, 0)
  const onOverflow = options.onOverflow === undefined ? 'partial' : options.onOverflow
  if (onOverflow !== 'partial' && onOverflow !== 'error') {
    throw new TypeError(`onOverflow must be "partial" or "error", got ${describe(onOverflow)}`)
  }
  const banner = bytes
    ? binding.planPageBuffer(text, text.length === 0 || isUtf8(text), offset, column, maxBytes, maxLines)
    : binding.planPage(text, WIDE.test(text), offset, column, maxBytes, maxLines)
  const start = out[PAGE_START]
  const end = out[PAGE_END]
  const length = text.length
  const totalLines = out[TOTAL + 2]
  const totalBytes = out[TOTAL + 1]
  if (onOverflow === 'error' && end < length) {
    throw new ToolOutputTooLargeError({ totalBytes, totalLines, maxBytes, maxLines, offset })
  }
  const nextLine = out[NEXT_LINE]
  const page = bytes ? pageText(text, start, end) : start === 0 && end === length ? text : text.slice(start, end)
  const partial = banner !== undefined
  let dropped = null
  if (start > 0 && end < length) dropped = 'headAndTail'
  else if (start > 0) dropped = 'head'
  else if (end < length) dropped = 'tail'
  return {
    text: partial ? `${banner}\n${page}` : page,
    page,
    partial,
    dropped,
    offset,
    column,
    nextOffset: nextLine === 0 ? null : nextLine,
    nextColumn: nextLine === 0 ? null : out[NEXT_COLUMN],
    firstLine: out[FIRST_LINE],
    lastLine: out[LAST_LINE],
    shownLines: out[SHOWN + 2],
    shownBytes: out[SHOWN + 1],
    shownChars: out[SHOWN],
    startByte: out[START_BYTE],
    endByte: out[END_BYTE],
    totalLines,
    totalBytes,
    totalChars: out[TOTAL],
  }
}

/** A page of UTF-8 bytes as text (invalid sequences become U+FFFD). */
function pageText(bytes, start, end) {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8')
}

module.exports = { readPartial, ToolOutputTooLargeError }
