'use strict'

// readPartial: page through a large text with a continuation handle. The core finds the
// page (whole lines when they fit, never a split character) and writes the banner; this
// file validates options, slices the page and names the fields.

const { mustBe } = require('../common/errors.js')
const { types } = require('node:util')
const native = require('../native.js')
const { formatCount, unshared } = require('../common/format.js')
const { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, readOptionsObject, tokenizerAlone, withTokenBudget } = require('../common/options.js')
const { fitTokens } = require('../tokens/fit.js')
const { ESTIMATE, countWithin, readTokenizer } = require('../tokens/tokenizers.js')

const OPTIONS = ['maxBytes', 'maxLines', 'maxTokens', 'tokenizer', 'offset', 'column', 'onOverflow']

/** Thrown by `readPartial(text, { onOverflow: 'error' })` when the text does not fit one page. */
class ToolOutputTooLargeError extends Error {
  constructor(facts) {
    super(
      `text too large to read whole: ${formatCount(facts.totalBytes)} bytes, ${formatCount(facts.totalLines)} lines ` +
        `(limit ${formatCount(facts.maxBytes)} bytes, ${formatCount(facts.maxLines)} lines per read)`,
    )
    this.name = 'ToolOutputTooLargeError'
    this.code = 'TOOLCLAMP_TOOL_OUTPUT_TOO_LARGE'
    this.totalBytes = facts.totalBytes
    this.totalLines = facts.totalLines
    this.maxBytes = facts.maxBytes
    this.maxLines = facts.maxLines
    this.offset = facts.offset
  }
}

function readCount(name, value, fallback, min) {
  if (value === undefined) return fallback
  if (typeof value !== 'number') throw mustBe(TypeError, `${name}`, `a number`, value)
  if (!(value === Infinity || (Number.isInteger(value) && value >= min))) {
    throw mustBe(RangeError, `${name}`, `an integer of at least ${min} or Infinity`, value)
  }
  return value
}

function readPosition(name, value, fallback, min) {
  if (value === undefined) return fallback
  if (typeof value !== 'number') throw mustBe(TypeError, `${name}`, `a number`, value)
  if (!(Number.isSafeInteger(value) && value >= min)) {
    throw mustBe(RangeError, `${name}`, `an integer of at least ${min}`, value)
  }
  return value
}

/**
 * One page of `text`: from line `offset` (1-based; `column` chars into it), at most
 * `maxBytes` UTF-8 bytes and `maxLines` lines. A partial page starts with a banner line
 * saying what is shown and how to continue.
 */
function readPartial(text, options) {
  if (typeof text !== 'string' && !types.isUint8Array(text)) {
    throw mustBe(TypeError, `text`, `a string, Buffer or Uint8Array`, text)
  }
  // An array with no bytes (also one whose buffer was detached) is the empty text.
  if (typeof text !== 'string' && native.byteLengthOf.call(text) === 0) text = ''
  const bytes = typeof text !== 'string'
  const given = readOptionsObject(options, OPTIONS, true)
  // A page must hold any one character (4 bytes) and a line, or paging could stall.
  // maxTokens is 3 bytes a token: at least 2 tokens, for the same reason.
  const maxTokens = given.maxTokens === undefined ? undefined : readCount('maxTokens', given.maxTokens, undefined, 2)
  const tokenizer = readTokenizer(given.tokenizer)
  if (tokenizer !== ESTIMATE && maxTokens === undefined) throw tokenizerAlone()
  const exact = tokenizer !== ESTIMATE && maxTokens !== undefined && maxTokens !== Infinity
  const byteLimit = readCount('maxBytes', given.maxBytes, DEFAULT_MAX_BYTES, 4)
  const maxBytes = exact ? byteLimit : withTokenBudget(byteLimit, maxTokens)
  const maxLines = readCount('maxLines', given.maxLines, DEFAULT_MAX_LINES, 1)
  const offset = readPosition('offset', given.offset, 1, 1)
  const column = readPosition('column', given.column, 0, 0)
  const { onOverflow: overflow } = given
  const onOverflow = overflow === undefined ? 'partial' : overflow
  if (onOverflow !== 'partial' && onOverflow !== 'error') {
    throw mustBe(TypeError, `onOverflow`, `"partial" or "error"`, onOverflow)
  }
  const tokens = exact ? { max: maxTokens, tokenizer } : undefined
  const p =
    tokens === undefined ? pageOf(text, offset, column, maxBytes, maxLines) : pageByTokens(text, offset, column, maxBytes, maxLines, tokens)
  const start = p.pageStart
  const end = p.pageEnd
  // The length the binding read: a Uint8Array subclass's own `length` is not asked.
  const length = bytes ? native.byteLengthOf.call(text) : text.length
  if (onOverflow === 'error' && end < length) {
    throw new ToolOutputTooLargeError({ totalBytes: p.total.bytes, totalLines: p.total.lines, maxBytes, maxLines, offset })
  }
  const page = bytes ? pageText(text, start, end) : start === 0 && end === length ? text : unshared(text.slice(start, end), length)
  const partial = p.banner !== null
  if (partial && bytes) rememberBufferBanner(p.banner)
  let dropped = null
  if (start > 0 && end < length) dropped = 'headAndTail'
  else if (start > 0) dropped = 'head'
  else if (end < length) dropped = 'tail'
  return {
    text: partial ? `${p.banner}\n${page}` : page,
    page,
    partial,
    dropped,
    offset,
    column,
    nextOffset: p.nextLine === 0 ? null : p.nextLine,
    nextColumn: p.nextLine === 0 ? null : p.nextColumn,
    firstLine: p.firstLine,
    lastLine: p.lastLine,
    shownLines: p.shown.lines,
    shownBytes: p.shown.bytes,
    shownChars: p.shown.chars,
    startByte: p.startByte,
    endByte: p.endByte,
    totalLines: p.total.lines,
    totalBytes: p.total.bytes,
    totalChars: p.total.chars,
    ...(p.tokens === undefined ? undefined : { tokens: p.tokens }),
  }
}

/**
 * The largest page within `tokens` (`{ max, tokenizer }`, an exact tokenizer), banner
 * included, and within `maxBytes` and `maxLines`: the page of the largest byte budget
 * whose page is within (lib/tokens/fit.js). `tokens` is added to the page's answer.
 */
function pageByTokens(text, offset, column, maxBytes, maxLines, tokens) {
  const bytes = typeof text === 'string' ? Buffer.byteLength(text) : native.byteLengthOf.call(text)
  // Below `maxBytes`, a budget too small for a partial page has no page: over, as it were.
  const at = (budget) => {
    if (budget === maxBytes) return pageOf(text, offset, column, budget, maxLines)
    try {
      return pageOf(text, offset, column, budget, maxLines)
    } catch (error) {
      if (error.code === 'TOOLCLAMP_PAGE_TOO_SMALL') return undefined
      throw error
    }
  }
  const count = (p, limit) => (p === undefined ? undefined : countWithin(tokens.tokenizer, shownText(text, p), limit))
  const tooSmall = () => {
    const error = mustBe(RangeError, 'maxTokens', `enough tokens for a partial page (its banner line and one character)`, tokens.max)
    error.code = 'TOOLCLAMP_PAGE_TOO_SMALL'
    return error
  }
  // A page shows at most the text and its banner line (under BANNER_MAX bytes).
  const total = bytes + BANNER_MAX
  // Budgets too small for a banner have no page; the least that has one is searched first.
  const low = native.searchBudget(0, Math.min(maxBytes, total), -1, 0, -1, (budget) => (at(budget) === undefined ? 0 : 1)) + 1
  const fitted = fitTokens(tokens, { cap: maxBytes, total, low }, at, count, tooSmall)
  fitted.result.tokens = { tokenizer: tokens.tokenizer.name, output: fitted.tokens }
  return fitted.result
}

/** What a page shows: its banner line, when it has one, and the page. */
function shownText(text, p) {
  const page = typeof text === 'string' ? text.slice(p.pageStart, p.pageEnd) : pageText(text, p.pageStart, p.pageEnd)
  return p.banner === null ? page : `${p.banner}\n${page}`
}

/**
 * native.pageOf, whose RangeError for a budget too small for a partial page (its banner
 * line and one character) gets the code TOOLCLAMP_PAGE_TOO_SMALL.
 */
function pageOf(text, offset, column, maxBytes, maxLines) {
  try {
    return native.pageOf(text, offset, column, maxBytes, maxLines)
  } catch (error) {
    if (error instanceof RangeError && / cannot hold a partial page: /.test(error.message)) error.code = 'TOOLCLAMP_PAGE_TOO_SMALL'
    throw error
  }
}

// ---------------------------------------------------------------------------------------
// A page cut further: a tool wrapper whose budget is below the page's cuts the page itself,
// on whole lines, under a banner that continues right after what it keeps.
// ---------------------------------------------------------------------------------------

const BANNER_START = '[PARTIAL view: '
// More bytes than any banner line takes (its words, and ten numbers of up to 16 digits).
const BANNER_MAX = 512
// The banners of the latest pages of Buffers, whose columns count bytes, not UTF-16 units: a
// wrapper cutting such a page inside a line names its column in bytes. A page of a string,
// or one this library did not make (or made more than this many pages ago), counts units.
const BUFFER_BANNERS = new Set()
const BUFFER_BANNERS_KEPT = 64

function rememberBufferBanner(banner) {
  BUFFER_BANNERS.delete(banner)
  BUFFER_BANNERS.add(banner)
  if (BUFFER_BANNERS.size > BUFFER_BANNERS_KEPT) BUFFER_BANNERS.delete(BUFFER_BANNERS.values().next().value)
}

/** Whether `text` may be a page as readPartial shows one (it starts with a banner). */
function isPage(text) {
  return text.startsWith(BANNER_START)
}

/**
 * `text` within `limits` (maxChars, maxBytes, maxLines) when it is a page as readPartial
 * shows one (its banner line, then the page, nothing else): `{ text }`, the page cut on
 * whole lines (a line longer than the room is cut inside) under a banner saying what is
 * shown now and where to continue, so following it skips nothing; the same string when it
 * fits. `{ page }` when the limits cannot hold a banner line and one character: the page
 * without its banner, to be cut as plain text. Undefined when `text` is no such page.
 */
function fitPage(text, limits) {
  if (!isPage(text)) return undefined
  const newline = text.indexOf('\n')
  const byteColumns = newline !== -1 && BUFFER_BANNERS.has(text.slice(0, newline))
  const cut = native.repage(text, limits, byteColumns)
  if (cut === undefined) return undefined
  if (cut.banner === null) return { page: text.slice(cut.pageStart) }
  if (cut.pageEnd === text.length && cut.pageStart === cut.banner.length + 1 && text.startsWith(cut.banner)) return { text }
  return { text: `${cut.banner}\n${text.slice(cut.pageStart, cut.pageEnd)}` }
}

/** A page of UTF-8 bytes as text (invalid sequences become U+FFFD). */
function pageText(bytes, start, end) {
  return native.bufferView(bytes).toString('utf8', start, end)
}

module.exports = { readPartial, ToolOutputTooLargeError, fitPage, isPage }
