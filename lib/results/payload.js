'use strict'

// Tool results: hardTruncateToolPayload, hardTruncateToolError and the wrappers. Whatever
// a tool returns (a string, content blocks, an MCP CallToolResult with structuredContent,
// AI SDK outputs, OpenAI Agents items, LangChain tuples and messages, any JSON value) is
// clamped to one budget. Strings are cut by lib/text/clamp.js, JSON data by
// lib/json/json.js; shapes.js tells the shapes apart and walks them, this file shares the
// budget among a result's parts and maps the cuts back onto them.

const { mustBe } = require('../common/errors.js')
const native = require('../native.js')
const spills = require('../files/spill.js')
const notices = require('../common/notices.js')
const json = require('../json/json.js')
const partial = require('./partial.js')
const { fitTokens } = require('../tokens/fit.js')
const { countWithin } = require('../tokens/tokenizers.js')
const { clampString, truncateSpilling } = require('../text/clamp.js')
const { DEFAULT_TOOL_STRATEGY, DEFAULT_HEAD_RATIO, DETAILS_MAX_BYTES, TOOL_OUTPUT_PRESETS } = require('../common/defaults.js')
const { formatCount, textOf, isArray, isError, readSafely, messageOf, unshared, read } = require('../common/format.js')
const {
  blockText,
  blocksLength,
  copyList,
  extrasOf,
  forEachPart,
  isFailedMessage,
  lengthOf,
  mapBlocks,
  mapDirect,
  shapeOf,
  typeOf,
  withBlockText,
  withChanges,
  withData,
  withMessageKey,
  withProperty,
} = require('./shapes.js')
const {
  checkKeys,
  fitsByLength,
  isPlainObject,
  LIMIT_KEYS,
  readBudgets,
  readHeadRatio,
  readNotice,
  readSnap,
  readStrategy,
} = require('../common/options.js')

// The presets toolResult and toolError (lib/common/defaults.js). A strategy the caller gives
// is used as it is, for failures too.
const PAYLOAD_DEFAULTS = Object.freeze({
  maxChars: Infinity,
  ...TOOL_OUTPUT_PRESETS.toolResult,
  strategy: DEFAULT_TOOL_STRATEGY,
  headRatio: DEFAULT_HEAD_RATIO,
})
// A result known to have failed is cut as a thrown error is: both ends, most room to the end.
const ERROR_DEFAULTS = Object.freeze({ maxChars: Infinity, ...TOOL_OUTPUT_PRESETS.toolError })
const FAILURE_DEFAULTS = Object.freeze({ strategy: ERROR_DEFAULTS.strategy, headRatio: ERROR_DEFAULTS.headRatio })
const PAYLOAD_OPTIONS = [...LIMIT_KEYS, 'strategy', 'headRatio', 'notice', 'spill', 'responseFormat', 'snap']
const RESPONSE_FORMATS = ['content', 'content_and_artifact']

/**
 * A limits record: every payload limit, in one order, so every record shares one shape
 * (each read of a field stays monomorphic) and is built without a spread (a spread in the
 * middle of a literal costs more than the rest of a small call). Not frozen: freezing costs
 * more than a small call's whole clamp, and no record leaves this library (none is ever
 * written to).
 */
function record(responseFormat, snap, maxChars, maxBytes, maxLines, strategy, headRatio, notice, spill, failure, tokens) {
  return { responseFormat, snap, maxChars, maxBytes, maxLines, strategy, headRatio, notice, spill, failure, tokens }
}

/**
 * Limits with nothing given but the budgets and the strategy (`defaults`). `failure` is the
 * strategy and head ratio for a failed result (forFailure); undefined: these limits' own.
 * Text going to a model through a tool is cut on whole lines.
 */
function limitsRecord(defaults, failure) {
  const { maxChars, maxBytes, maxLines, strategy, headRatio, notice, tokens } = defaults
  return record('content', true, maxChars, maxBytes, maxLines, strategy, headRatio, notice, undefined, failure, tokens)
}

/** `limits` for a result that failed (isError, a thrown error): their `failure` strategy. */
function forFailure(limits) {
  const failure = limits.failure
  if (failure === undefined || (failure.strategy === limits.strategy && failure.headRatio === limits.headRatio)) return limits
  return Object.freeze({ ...limits, strategy: failure.strategy, headRatio: failure.headRatio })
}

const DEFAULT_PAYLOAD_LIMITS = limitsRecord(PAYLOAD_DEFAULTS, FAILURE_DEFAULTS)
const DEFAULT_ERROR_LIMITS = limitsRecord(ERROR_DEFAULTS, undefined)

/**
 * Reads payload limits once (at wrap time for the wrappers) into a frozen record: budgets,
 * strategy, head ratio, notice and spill. Each budget not given keeps its default, so
 * `{ maxLines: 10 }` still caps bytes; `Infinity` lifts a budget.
 */
function readPayloadLimits(limits, defaults, spillName = 'tool-result') {
  if (limits === undefined) return defaults === PAYLOAD_DEFAULTS ? DEFAULT_PAYLOAD_LIMITS : DEFAULT_ERROR_LIMITS
  if (!isPlainObject(limits)) throw mustBe(TypeError, `limits`, `an object`, limits)
  checkKeys(limits, PAYLOAD_OPTIONS)
  const { strategy, headRatio, notice, spill, responseFormat, snap } = limits
  const spillTo = spills.readSpill(spill, spillName, spills.SPILL_KEYS_WITH_CALLBACK)
  if (responseFormat !== undefined && !RESPONSE_FORMATS.includes(responseFormat)) {
    throw mustBe(TypeError, `responseFormat`, `"content" or "content_and_artifact"`, responseFormat)
  }
  const snapLines = readSnap(snap, 'line')
  const { maxChars, maxBytes, maxLines, tokens } = readBudgets(limits, defaults)
  return record(
    responseFormat ?? 'content',
    snapLines,
    maxChars,
    maxBytes,
    maxLines,
    readStrategy(strategy, defaults.strategy),
    readHeadRatio(headRatio, defaults.headRatio),
    // With a spill file the notice may name it ({spillPath}); clampAndSpill checks it.
    spillTo === undefined ? readNotice(notice) : notice,
    spillTo,
    // A strategy given is used for failures too; a head ratio given is theirs too.
    strategy === undefined ? failureWith(headRatio) : undefined,
    tokens,
  )
}

/** How a failed result is cut when no strategy is given: FAILURE_DEFAULTS, with the head ratio given. */
function failureWith(headRatio) {
  return headRatio === undefined ? FAILURE_DEFAULTS : Object.freeze({ ...FAILURE_DEFAULTS, headRatio: readHeadRatio(headRatio) })
}

/** The same limits with no spill: streamed partial results are never written to files. */
function withoutSpill(limits) {
  if (limits.spill === undefined) return limits
  return Object.freeze({ ...limits, spill: undefined, notice: notices.unsavedNotice(limits.notice) })
}

/** Error limits never above the payload's own, with the payload's strategy for failures. */
function errorLimitsWithin(payload) {
  const { strategy, headRatio } = forFailure(payload)
  const limits = {
    maxChars: Math.min(ERROR_DEFAULTS.maxChars, payload.maxChars),
    maxBytes: Math.min(ERROR_DEFAULTS.maxBytes, payload.maxBytes),
    maxLines: Math.min(ERROR_DEFAULTS.maxLines, payload.maxLines),
    strategy,
    headRatio,
    notice: withoutSpill(payload).notice,
    tokens: payload.tokens,
  }
  return limitsRecord(limits, undefined)
}

function clampWith(text, limits) {
  if (limits.tokens !== undefined && partial.isPage(text)) return clampPageByTokens(text, limits)
  const page = fitPageWith(text, limits)
  if (page !== undefined) return page
  if (limits.spill === undefined) {
    return clampString(text, limits.strategy, limits, limits.headRatio, limits.notice, limits.snap)
  }
  if (fitsByLength(text.length, limits)) return text
  return truncateSpilling(text, limits, limits.strategy, limits.headRatio, limits.notice, limits.spill, limits.snap).text
}

/**
 * A readPartial page (its banner line, then the page) within `limits`: cut on whole lines
 * under a banner that continues right after what is kept, whatever the strategy, notice and
 * spill (a page is read on by its continuation, never skipped); with no room for a banner,
 * the page alone, cut as text (no banner is better than one naming the wrong line).
 * Undefined for any other text, and for one that fits.
 */
function fitPageWith(text, limits) {
  if (fitsByLength(text.length, limits)) return undefined
  const fitted = partial.fitPage(text, limits)
  if (fitted === undefined) return undefined
  if (fitted.text !== undefined) return fitted.text
  return clampString(fitted.page, limits.strategy, limits, limits.headRatio, limits.notice, limits.snap)
}

/**
 * A readPartial page within a limit in exact tokens: fitPageWith at the largest byte budget
 * whose result is within it (fitByTokens).
 */
function clampPageByTokens(text, limits) {
  const count = (page, limit) => countWithin(limits.tokens.tokenizer, page, limit)
  return fitByTokens(limits, Buffer.byteLength(text), (within) => clampWith(text, within), count)
}

/** `limits` with the byte budget `maxBytes` and no limit in tokens. */
function withBytes(limits, maxBytes) {
  return { ...limits, maxBytes, tokens: undefined }
}

/**
 * Clamps the text of an array of content blocks under one budget, as if the texts were
 * concatenated in order. The core plans the cut of that concatenation; here the cut is
 * mapped back onto the blocks. Returns the same array when nothing was cut.
 */
function clampBlocks(blocks, limits) {
  // Most results fit: proven from the lengths alone, before anything is collected.
  let length = 0
  mapBlocks(blocks, (kind, part) => {
    if (kind === 'text') length += part.length
    return part
  })
  if (fitsByLength(length, limits)) return blocks
  // Planned on what this second read returns (a getter may answer differently each time).
  const texts = []
  const positions = []
  length = 0
  mapBlocks(blocks, (kind, part, i) => {
    if (kind === 'text') {
      texts.push(part)
      positions.push(i)
      length += part.length
    }
    return part
  })
  if (texts.length === 0 || fitsByLength(length, limits)) return blocks
  let headEnd
  let tailStart
  let glue
  if (texts.length === 1) {
    // One text, a readPartial page: cut as a page.
    const page = fitPageWith(texts[0], limits)
    if (page !== undefined) {
      if (page === texts[0]) return blocks
      const result = copyList(blocks)
      result[positions[0]] = withBlockText(read(blocks, positions[0]), page)
      return result
    }
  }
  if (texts.length === 1 || limits.spill !== undefined) {
    // A spill file needs the whole text as one string anyway.
    const joined = texts.length === 1 ? texts[0] : texts.join('')
    if (limits.spill === undefined) {
      const plan = native.planText(joined, limits.strategy, limits, limits.headRatio, limits.notice, false, limits.snap)
      if (!plan.cut) return blocks
      ;({ headEnd, tailStart, glue } = plan)
    } else {
      const info = truncateSpilling(joined, limits, limits.strategy, limits.headRatio, limits.notice, limits.spill, limits.snap)
      if (!info.truncated) return blocks
      ;({ headEnd, tailStart } = info)
      glue = info.text.slice(headEnd, info.text.length - (joined.length - tailStart))
    }
  } else {
    // The core reads the blocks end to end; joining them here would allocate a large string.
    const plan = native.planTexts(texts, length, limits.strategy, limits, limits.headRatio, limits.notice, false, limits.snap)
    if (!plan.cut) return blocks
    ;({ headEnd, tailStart, glue } = plan)
  }
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
  const result = copyList(blocks)
  for (let k = 0, start = 0; k < texts.length; start += texts[k].length, k++) {
    const text = texts[k]
    const keptHead = text.slice(0, Math.max(0, Math.min(text.length, headEnd - start)))
    const keptTail = text.slice(Math.max(0, Math.min(text.length, tailStart - start)))
    const next = unshared(k === glueAt ? keptHead + glue + keptTail : keptHead + keptTail, text.length)
    if (next !== text) result[positions[k]] = withBlockText(read(blocks, positions[k]), next)
  }
  return result
}

// ---------------------------------------------------------------------------------------
// What a model reads, measured: text as it is, JSON data as its compact JSON text.
// ---------------------------------------------------------------------------------------

const NOTHING = Object.freeze({ chars: 0, bytes: 0, lines: 0 })
const DIMENSIONS = [
  ['chars', 'maxChars'],
  ['bytes', 'maxBytes'],
  ['lines', 'maxLines'],
]

function sizeOfText(text) {
  return text.length === 0 ? NOTHING : native.measureText(text)
}

function plus(a, b) {
  return { chars: a.chars + b.chars, bytes: a.bytes + b.bytes, lines: a.lines + b.lines }
}

function fitsSize(size, limits) {
  return size.chars <= limits.maxChars && size.bytes <= limits.maxBytes && size.lines <= limits.maxLines
}

/**
 * A value's compact JSON (nothing for what JSON leaves out): a string too is data here (an
 * AI SDK 'json' output's value, structuredContent), read with its quotes.
 */
function sizeOfData(value) {
  const { text } = json.stringifyAny(value)
  return text === undefined ? NOTHING : sizeOfText(text)
}

/** A string's text, anything else's compact JSON: what a model reads of an item among blocks. */
function sizeOfItem(value) {
  return typeof value === 'string' ? sizeOfText(value) : sizeOfData(value)
}

/**
 * What a model reads of a result, as the visitor (shapes.js mapParts) walks it: `{ texts,
 * pieces, media }`, the block texts (one budget: see sizeOfTexts), the size of every other
 * part read on its own (strings as they are, data as compact JSON) and the count of media
 * parts (images, audio, files).
 */
function partsSize(value) {
  const found = { texts: [], pieces: NOTHING, media: 0 }
  forEachPart(value, (kind, part) => {
    if (kind === 'text') found.texts.push(part)
    else if (kind === 'piece') found.pieces = plus(found.pieces, sizeOfText(part))
    else if (kind === 'data') found.pieces = plus(found.pieces, sizeOfData(part))
    else found.media++
  })
  return found
}

/** What a model reads of a result as clampPayload cuts it: block texts as one text, and every other part. */
function sizeOfPayload(value) {
  if (typeof value === 'string') return sizeOfText(value)
  const { texts, pieces } = partsSize(value)
  return plus(sizeOfTexts(texts), pieces)
}

/** The texts of a list's text blocks, in order. */
function blockTexts(blocks) {
  const texts = []
  mapBlocks(blocks, (kind, part) => {
    if (kind === 'text') texts.push(part)
    return part
  })
  return texts
}

/**
 * Block texts as one budget counts them: concatenated, so a line that one block leaves open
 * goes on in the next. (A lone surrogate at a block's end that pairs with one at the next
 * block's start is counted as two, 2 bytes over: an overcount, never an undercount.)
 */
function sizeOfTexts(texts) {
  let chars = 0
  let bytes = 0
  let newlines = 0
  let open = false
  for (const text of texts) {
    if (text === '') continue
    const size = sizeOfText(text)
    const ends = text.charCodeAt(text.length - 1) === 10
    chars += size.chars
    bytes += size.bytes
    newlines += ends ? size.lines : size.lines - 1
    open = !ends
  }
  return { chars, bytes, lines: newlines + (open ? 1 : 0) }
}

/**
 * What the clamp of a tool result can cut, and what it keeps whatever happens: `{ text,
 * media }`, the text as a model reads it (each block text, string and data part measured on
 * its own) and the count of media parts, read through the shapes as clampPayload reads them.
 */
function payloadSize(result) {
  const { texts, pieces, media } = partsSize(result)
  let text = pieces
  for (const part of texts) text = plus(text, sizeOfText(part))
  return { text, media }
}

/** `limits` with `used` taken off each budget. */
function limitsLeft(limits, used) {
  return Object.freeze({
    ...limits,
    maxChars: Math.max(0, limits.maxChars - used.chars),
    maxBytes: Math.max(0, limits.maxBytes - used.bytes),
    maxLines: Math.max(0, limits.maxLines - used.lines),
  })
}

// ---------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------

/**
 * Content blocks: their text shares the budget (clampBlocks). Items among them that are no
 * block toolclamp knows but carry data (a bare string, an object of another type or none)
 * share the budget with that text as structuredContent does with `content` (see share), and
 * are clamped in order within their part, as text or JSON, so none carries a payload past
 * the clamp.
 */
function clampBlockList(blocks, limits) {
  const data = []
  mapBlocks(blocks, (kind, item, i) => {
    if (kind === 'piece' || kind === 'data') data.push(dataItem(i, item, limits))
    return item
  })
  if (data.length === 0) return clampBlocks(blocks, limits)
  const text = sizeOfTexts(blockTexts(blocks))
  let need = NOTHING
  for (const { size } of data) need = plus(need, size)
  if (fitsSize(plus(text, need), limits)) return blocks
  // The text is cut within its share; the data gets what the kept text leaves.
  let result = clampBlocks(blocks, share(limits, text, need, NOTHING, false).content)
  let used = sizeOfTexts(blockTexts(result))
  for (const { index, item, size } of data) {
    if (size === NOTHING) continue
    const room = limitsLeft(limits, used)
    const clamped = typeof item === 'string' ? clampWith(item, room) : clampData(item, room)
    used = plus(used, clamped === item ? size : sizeOfItem(clamped))
    if (clamped !== item) {
      if (result === blocks) result = copyList(blocks)
      result[index] = clamped
    }
  }
  return result
}

/**
 * A data item among blocks and what a model reads of it: its text, or its compact JSON.
 * One JSON.stringify throws on (a revoked proxy, a throwing getter) cannot be sent as JSON
 * by any framework: a small one costs nothing and is left as it is.
 */
function dataItem(index, item, limits) {
  if (typeof item === 'string') return { index, item, size: sizeOfText(item) }
  const { text, value: rendered } = json.stringifyAny(item)
  if (text === undefined) return { index, item, size: NOTHING }
  const size = sizeOfText(text)
  return { index, item, size: rendered !== item && fitsSize(size, limits) ? NOTHING : size }
}

/**
 * JSON data: the JSON clamp with in-band markers. A value that fits comes back as it is,
 * even one JSON.stringify throws on (a revoked proxy, a throwing getter): there is nothing
 * to cut, and what the framework makes of it is unchanged. When not even "[...]" fits (a
 * few bytes), nothing does: the empty string.
 */
function clampData(value, limits) {
  const clamped = json.clampJsonWith(value, limits, 'inline')
  if (!clamped.truncated) return value
  return clamped.value === undefined ? '' : clamped.value
}

/**
 * An AI SDK 'json' or 'error-json' output: its value clamped as JSON data. A model reads the
 * value's JSON, where even "" is 2 bytes: when nothing of the value fits, the output is an
 * empty text output of the same kind.
 */
function clampJsonOutput(result, type, value, limits) {
  const clamped = json.clampJsonWith(value, limits, 'inline')
  if (!clamped.truncated) return result
  if (clamped.value !== undefined) return withChanges(result, [['value', value, clamped.value]])
  const textType = type === 'error-json' ? 'error-text' : 'text'
  return withChanges(result, [
    ['type', type, textType],
    ['value', value, ''],
  ])
}

// The note appended to `content` when structuredContent was shortened: at most 512 chars and
// bytes (an eighth of a smaller budget) and one line, inside the budget.
const NOTE_MAX = 512
const NOTE_MIN = '[structuredContent shortened]'
const NOTE_ITEMS = 64

/** The room kept for the note, or NOTHING when the budget is too small to say anything. */
function noteRoom(limits) {
  const chars = Math.min(NOTE_MAX, Math.floor(limits.maxChars / 8))
  const bytes = Math.min(NOTE_MAX, Math.floor(limits.maxBytes / 8))
  if (chars < NOTE_MIN.length || bytes < NOTE_MIN.length || limits.maxLines < 3) return NOTHING
  return { chars, bytes, lines: 1 }
}

/**
 * `[structuredContent shortened to 51,187 of 5,612,402 bytes: $.rows: 1,204 of 40,000 items;
 * $.log: 812 of 2,097,152 bytes]`: as many shortenings as fit in `room`, then how many more.
 */
function noteOf(clamped, room) {
  if (room === NOTHING) return undefined
  const head = `[structuredContent shortened to ${formatCount(clamped.outputBytes)} of ${formatCount(clamped.totalBytes)} bytes`
  const items = clamped.elided.slice(0, NOTE_ITEMS).map(describeElision)
  const total = clamped.elided.length
  const fits = (text) => text.length <= room.chars && Buffer.byteLength(text) <= room.bytes
  const compose = (kept, said) => {
    if (kept === total) return `${head}${said}]`
    return kept === 0 ? `${head}: ${formatCount(total)} places]` : `${head}${said}; ${formatCount(total - kept)} more]`
  }
  let said = ''
  let kept = 0
  while (kept < items.length) {
    const next = `${said}${kept === 0 ? ': ' : '; '}${items[kept]}`
    if (!fits(compose(kept + 1, next))) break
    said = next
    kept++
  }
  const note = compose(kept, said)
  return fits(note) ? note : NOTE_MIN
}

/** A path as the note shows it: on one line, whatever the keys hold. */
function showPath(path) {
  return String(path).replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function describeElision(e) {
  const path = showPath(e.path)
  if (e.kept !== undefined) return `${path}: ${formatCount(e.kept)} of ${formatCount(e.total)} items`
  if (e.keptKeys !== undefined) return `${path}: ${formatCount(e.keptKeys)} of ${formatCount(e.totalKeys)} keys`
  return `${path}: ${formatCount(e.keptBytes)} of ${formatCount(e.totalBytes)} bytes`
}

/**
 * The budget shared between `content` (needing `c`) and structuredContent (needing `s`), after
 * `reserved` for the note: each gets what it needs when the other leaves room, else half.
 * Compact JSON is one line (`oneLine`), so structuredContent takes one line and `content` the
 * rest. Block text and the data among blocks share a budget the same way.
 */
function share(limits, c, s, reserved, oneLine = true) {
  const content = {}
  const structured = {}
  for (const [dim, key] of DIMENSIONS) {
    const room = Math.max(0, limits[key] - reserved[dim])
    let mine
    if ((oneLine && dim === 'lines') || c[dim] + s[dim] <= room) mine = Math.min(s[dim], room)
    else {
      const half = Math.floor(room / 2)
      mine = s[dim] <= half ? s[dim] : c[dim] <= half ? room - c[dim] : half
    }
    structured[key] = mine
    content[key] = room - mine
  }
  return { content: Object.freeze({ ...limits, ...content }), structured: Object.freeze({ ...limits, ...structured }) }
}

/** structuredContent under `limits`, schema-safe; undefined when not even `{}` fits. */
function clampStructuredValue(structured, limits) {
  return json.clampJsonWith(structured, limits, 'none')
}

/** `list` with `block` appended. */
function appended(list, block) {
  const copy = copyList(list)
  copy.push(block)
  return copy
}

// pi's `details`: kept for a UI and logs, bounded to DETAILS_MAX_BYTES (lib/common/defaults.js).
const DETAILS_LIMITS = limitsRecord({
  maxChars: Infinity,
  maxBytes: DETAILS_MAX_BYTES,
  maxLines: Infinity,
  strategy: 'head',
  headRatio: DEFAULT_HEAD_RATIO,
})
/**
 * An object with a `content` array or `structuredContent` (MCP CallToolResult, pi
 * AgentToolResult). Every field a framework may send to a model shares ONE budget: the
 * content blocks, structuredContent (see clampContentParts), and every other enumerable key
 * (`stdout`, `isError`, `_meta`: the AI SDK and the OpenAI Agents SDK send the whole object
 * as JSON), which is clamped as JSON data with inline markers (see share). `details`, which
 * pi never sends, stays outside the budget but is bounded to DETAILS_MAX_BYTES, schema-safe.
 * Non-enumerable keys (never in JSON) are kept as they are.
 */
function clampWithContent(result, content, structured, limits) {
  let details
  try {
    // A named read (its own inline cache); a throwing getter reads as undefined, as read() does.
    details = result.details
  } catch {}
  const extras = extrasOf(result)
  let clamped = { content, structured }
  let clampedExtras
  // Most results are blocks that fit: proven from their lengths, before anything is measured.
  const fits = structured === undefined && extras === undefined && fitsByLength(textLength(content), limits)
  const parts = fits ? undefined : contentParts(content, structured)
  const x = extras === undefined ? NOTHING : sizeOfData(extras.value)
  if (!fits && !fitsSize(plus(parts.size, x), limits)) {
    // The content is cut within its share; the other data gets what the kept content leaves.
    clamped = clampContentParts(parts, x === NOTHING ? limits : share(limits, parts.need, x, NOTHING).content)
    const room = limitsLeft(limits, clamped.content === content && clamped.structured === structured ? parts.size : sizeOfParts(clamped))
    // Limits too small for any JSON object leave no other data.
    if (!fitsSize(x, room)) clampedExtras = clampData(extras.value, room)
  }
  const bounded = details === undefined ? undefined : boundDetails(details)
  const same = clamped.content === content && clamped.structured === structured && bounded === details
  const next = same
    ? result
    : withChanges(result, [
        ['content', content, clamped.content],
        ['structuredContent', structured, clamped.structured],
        ['details', details, bounded],
      ])
  // Data that came back as text (tiny limits) leaves no other key.
  return clampedExtras === undefined ? next : withData(next, extras.keys, clampedExtras)
}

/**
 * The UTF-16 length of all the text a model reads of `value` (block texts and strings), or
 * NaN when a part is data, which only its JSON measures: fitsByLength of it proves the
 * whole fits (a media part costs no text).
 */
function textLength(value) {
  if (isArray(value)) return blocksLength(value)
  let length = 0
  forEachPart(value, (kind, part) => {
    if (kind === 'text' || kind === 'piece') length += part.length
    else if (kind === 'data') length = NaN
  })
  return length
}

/** What a model reads of clamped content and structuredContent. */
function sizeOfParts({ content, structured }) {
  const blocks = content === undefined ? NOTHING : sizeOfPayload(content)
  return structured === undefined ? blocks : plus(blocks, sizeOfData(structured))
}

/** `details` within DETAILS_MAX_BYTES of compact JSON: the same value when it is. */
function boundDetails(details) {
  const { text } = json.stringifyAny(details)
  if (text === undefined || fitsByLength(text.length, DETAILS_LIMITS)) return details
  const bytes = Buffer.byteLength(text)
  if (bytes <= DETAILS_MAX_BYTES) return details
  return clampStructuredValue(details, DETAILS_LIMITS, bytes).value
}

/**
 * `content` and structuredContent as the budget sees them: `{ content, structured, text,
 * mirror, others, need }`. `text` is structuredContent's compact JSON; `mirror` the index of
 * the first text block of `content` holding exactly that text (the MCP convention), else -1;
 * `others` is `content` with that block's text emptied (it is rewritten from the clamped
 * value, never cut as text); `need` what all of it takes: the other blocks, and the JSON once
 * for structuredContent and once more for its mirror.
 */
function contentParts(content, structured) {
  const text = structured === undefined ? undefined : json.stringifyAny(structured).text
  const parts = { content, structured, text, mirror: -1, others: content, need: NOTHING, json: NOTHING }
  if (text !== undefined) {
    parts.json = { chars: text.length, bytes: Buffer.byteLength(text), lines: text === '' ? 0 : 1 }
    parts.mirror = mirrorOf(content, text)
    if (parts.mirror !== -1) {
      parts.others = copyList(content)
      parts.others[parts.mirror] = withBlockText(read(content, parts.mirror), '')
    }
  }
  const c = parts.others === undefined ? NOTHING : sizeOfPayload(parts.others)
  parts.need = plus(c, copies(parts.json, parts.mirror === -1 ? 1 : 2))
  // What a model reads of it all, exactly: the blocks (the mirror's text in its place) and
  // the JSON. `need` counts the mirror as a line of its own: at most one line more.
  parts.size = parts.mirror === -1 ? parts.need : plus(sizeOfPayload(content), parts.json)
  return parts
}

/** The index of the first text block of `content` whose text is `text`, or -1. */
function mirrorOf(content, text) {
  if (!isArray(content)) return -1
  const length = lengthOf(content)
  for (let i = 0; i < length; i++) {
    const block = read(content, i)
    if (typeOf(block) === 'text' && blockText(block) === text) return i
  }
  return -1
}

function copies(size, n) {
  return { chars: size.chars * n, bytes: size.bytes * n, lines: size.lines * n }
}

/** `limits` with each budget halved (rounded down), for one of two equal copies. */
function halved(limits) {
  return Object.freeze({
    ...limits,
    maxChars: Math.floor(limits.maxChars / 2),
    maxBytes: Math.floor(limits.maxBytes / 2),
    maxLines: Math.floor(limits.maxLines / 2),
  })
}

/**
 * `content` and structuredContent under one budget: `{ content, structured }`, the same values
 * when nothing was cut. They are two renderings of one result and a client may send either
 * or both to the model: each gets what it needs when the other leaves room, else half.
 * structuredContent is clamped schema-safe (markers 'none': only shorter arrays and strings),
 * and a text block appended to `content` says what was shortened, inside the budget. The
 * mirror block (see contentParts) holds the compact JSON of the clamped value, so it still
 * parses whatever the other blocks hold; when the budget cannot hold that JSON twice
 * (`maxLines: 1`, a few bytes) the mirror's text is emptied rather than cut.
 */
function clampContentParts(parts, limits) {
  const { content, structured, others, mirror } = parts
  if (parts.text === undefined) return { content: clampPayload(content, limits), structured }
  const same = { content, structured }
  if (fitsSize(parts.size, limits)) return same
  const s = copies(parts.json, mirror === -1 ? 1 : 2)
  const c = limitsLeftSize(parts.need, s)
  const whole = share(limits, c, s, NOTHING)
  if (fitsSize(s, whole.structured)) {
    // structuredContent fits its share: only the other blocks are cut.
    return { content: withMirror(parts, others === undefined ? undefined : clampPayload(others, whole.content), parts.text), structured }
  }
  const room = noteRoom(limits)
  const mine = share(limits, c, s, room).structured
  let clamped = clampStructuredValue(structured, mirror === -1 ? mine : halved(mine), parts.json.bytes)
  // Not even `{}` fits: structuredContent is left out (undefined), and takes nothing.
  let kept = JSON.stringify(clamped.value) ?? ''
  let keptSize = { chars: kept.length, bytes: clamped.outputBytes, lines: kept === '' ? 0 : 1 }
  let mirrorText = kept
  if (mirror !== -1) {
    if (fitsSize(copies(keptSize, 2), mine)) keptSize = copies(keptSize, 2)
    else {
      // No room for two copies: one, and an empty mirror.
      clamped = clampStructuredValue(structured, mine, parts.json.bytes)
      kept = JSON.stringify(clamped.value) ?? ''
      keptSize = { chars: kept.length, bytes: clamped.outputBytes, lines: kept === '' ? 0 : 1 }
      mirrorText = ''
    }
  }
  // `content` gets what the note and the clamped structuredContent leave.
  const left = limitsLeft(limits, plus(room, keptSize))
  const clampedOthers = others === undefined ? undefined : clampPayload(others, left)
  const note = noteOf(clamped, room)
  let blocks = withMirror(parts, clampedOthers, mirrorText)
  if (note !== undefined && (blocks === undefined || isArray(blocks))) {
    blocks = appended(blocks ?? [], { type: 'text', text: note })
  }
  return { content: blocks, structured: clamped.value }
}

/** `a` less `b`, per dimension, never below 0. */
function limitsLeftSize(a, b) {
  return { chars: Math.max(0, a.chars - b.chars), bytes: Math.max(0, a.bytes - b.bytes), lines: Math.max(0, a.lines - b.lines) }
}

/**
 * The clamp of `others` with the mirror block put back holding `text`: the original content
 * when nothing changed.
 */
function withMirror(parts, clampedOthers, text) {
  const { content, others, mirror } = parts
  if (mirror === -1) return clampedOthers
  const block = read(content, mirror)
  const next = text === parts.text ? block : withBlockText(block, text)
  if (clampedOthers === others && next === block) return content
  // Both lists are this clamp's own copies.
  clampedOthers[mirror] = next
  return clampedOthers
}

/**
 * A message LangChain takes as it is (ToolMessage): its content clamped (as a failure with
 * `status: 'error'`), lc_kwargs kept in step.
 */
function clampMessage(message, limits) {
  const content = read(message, 'content')
  if (typeof content !== 'string' && !isArray(content)) return message
  const clamped = clampPayload(content, isFailedMessage(message) ? forFailure(limits) : limits)
  return clamped === content ? message : withMessageKey(message, 'content', clamped)
}

/**
 * A LangChain direct tool output (`lc_direct_tool_output`), which LangChain passes on as it
 * is: a ToolMessage has its content clamped; a LangGraph Command the content of each
 * ToolMessage its update writes to `messages`, in every form LangGraph takes (shapes.js
 * mapDirect). The ToolMessages of one Command share the budget, in order: each gets what
 * the ones before it left. Anything else of that kind, and the rest of a Command's update
 * (graph state, not a message to the model), is left alone.
 */
function clampDirectOutput(result, limits) {
  let left = limits
  return mapDirect(result, (message) => {
    const clamped = clampMessage(message, left)
    left = limitsLeft(left, sizeOfPayload(read(clamped, 'content')))
    return clamped
  })
}

/** LangChain's content_and_artifact tuple: the content is clamped, the artifact left as it is. */
function clampContentAndArtifact(result, limits) {
  if (!isArray(result) || read(result, 'length') !== 2) return clampPayload(result, limits)
  const content = read(result, 0)
  const clamped = clampPayload(content, limits)
  return clamped === content ? result : [clamped, read(result, 1)]
}

/**
 * A tool result clamped by its shape (shapes.js shapeOf). One that says it failed (MCP and
 * pi `isError`, an AI SDK `error-text` or `error-json` output) is clamped as a failure
 * (forFailure).
 */
function clampPayload(result, given) {
  // A string is a string's shape, never failed: the commonest result, told without a shape
  // record. The core cuts it within a limit in tokens too.
  if (typeof result === 'string') return clampWith(result, given)
  return given.tokens === undefined ? clampShape(result, given) : clampByTokens(result, given)
}

/** clampPayload of anything but a string, with no limit in tokens. */
function clampShape(result, given) {
  const found = shapeOf(result)
  const limits = found.failed ? forFailure(given) : given
  const { content } = found
  switch (found.shape) {
    case 'string':
      return clampWith(result, limits)
    case 'blocks':
      return clampBlockList(result, limits)
    case 'data':
      return clampData(result, limits)
    case 'direct':
      return clampDirectOutput(result, limits)
    case 'result':
      return clampWithContent(result, content, found.structured, limits)
    case 'item':
      // OpenAI Agents / Responses: a function call's output item.
      return withChanges(result, [['output', content, clampPayload(content, limits)]])
    case 'text-output':
      return withChanges(result, [['value', content, clampWith(content, limits)]])
    case 'json-output':
      return clampJsonOutput(result, found.type, content, limits)
    case 'content-output':
      return withChanges(result, [['value', content, clampPayload(content, limits)]])
    case 'text-block':
      return clampBlocks([result], limits)[0]
    default:
      // A media block (kept), numbers, booleans, null, undefined, functions, symbols: nothing to cut.
      return result
  }
}

/**
 * A tool result within a limit in exact tokens (`limits.tokens`): its clamp at the largest
 * byte budget whose result is within the limit as a model reads it (tokensOfPayload,
 * fitByTokens).
 */
function clampByTokens(result, limits) {
  return json.withStringifiedOnce(() => searchByTokens(result, limits))
}

function searchByTokens(result, limits) {
  const count = (value, limit) => tokensOfPayload(value, limits.tokens.tokenizer, limit)
  return fitByTokens(limits, payloadSize(result).text.bytes, (within) => clampShape(result, within), count)
}

/**
 * `clamp(within)` with `within` the limits at the largest byte budget whose result `count`
 * finds within `limits.tokens` (lib/tokens/fit.js); `total` is the bytes of all it could
 * keep. A spill file is named once and written once, by the clamp that is kept: the clamps
 * the search tries name the same file and write nothing.
 */
function fitByTokens(limits, total, clamp, count) {
  const { tokens } = limits
  const range = { cap: limits.maxBytes, total }
  if (limits.spill === undefined) return fitTokens(tokens, range, (bytes) => clamp(withBytes(limits, bytes)), count).result
  const spill = spills.repeatableSpill(limits.spill)
  const at = (bytes, dry) => clamp({ ...withBytes(limits, bytes), spill: spill.run(dry) })
  const { bytes } = fitTokens(tokens, range, (b) => at(b, true), count)
  const kept = at(bytes, false)
  if (count(kept, tokens.max) !== undefined) return kept
  // The file could not be written: its notice names none, and counts again.
  return fitByTokens(withoutSpill(limits), total, clamp, count)
}

/**
 * The tokens a model reads of a (clamped) result, each text counted on its own and data as
 * its compact JSON, or undefined once more than `limit`.
 */
function tokensOfPayload(value, tokenizer, limit) {
  let total = 0
  const add = (text) => {
    // An empty text is no token of an encoding; a caller's counter is asked about it too.
    if (total > limit || (text === '' && tokenizer.count === undefined)) return
    const n = countWithin(tokenizer, text, limit - total)
    total = n === undefined ? Infinity : total + n
  }
  if (typeof value === 'string') add(value)
  else {
    forEachPart(value, (kind, part) => {
      if (kind === 'text' || kind === 'piece') add(part)
      else if (kind === 'data') add(json.stringifyAny(part).text ?? '')
    })
  }
  return total <= limit ? total : undefined
}

/** The clamp of a tool's final result, in the response format the limits name. */
function clampResult(result, limits) {
  return limits.responseFormat === 'content_and_artifact' ? clampContentAndArtifact(result, limits) : clampPayload(result, limits)
}

function hardTruncateToolPayload(result, limits) {
  return clampResult(result, readPayloadLimits(limits, PAYLOAD_DEFAULTS))
}

/** hardTruncateToolPayload for a result that failed (a pi tool result message with isError). */
function hardTruncateFailedPayload(result, limits) {
  return clampResult(result, forFailure(readPayloadLimits(limits, PAYLOAD_DEFAULTS)))
}

/** An Error named like the original whose stack is only its clamped message. */
function clampedError(name, message, cause) {
  const error = new Error(message, { cause })
  if (name !== 'Error') Object.defineProperty(error, 'name', { value: name, writable: true, configurable: true })
  error.stack = `${name}: ${message}`
  return error
}

/** A data property as Error's own `message`, `stack` and `cause` are: writable, not enumerable. */
function hidden(value) {
  return { value, writable: true, enumerable: false, configurable: true }
}

/**
 * A copy of `error` with `message` and `stack` clamped: a native Error (so `util.inspect`,
 * `isNativeError` and `Error.captureStackTrace` treat it as one) with the original's
 * prototype, so `instanceof` its class holds, and every own property of the original
 * (`status`, `code`, getters as they are, `cause`); with no own `cause`, the original is
 * the cause, so the full message stays reachable. The original is never written to.
 * Undefined when the original's properties or prototype cannot be read (a revoked proxy).
 */
function copyOfError(error, name, message) {
  let descriptors
  let prototype
  try {
    descriptors = Object.getOwnPropertyDescriptors(error)
    prototype = Object.getPrototypeOf(error)
  } catch {
    return undefined
  }
  descriptors.message = { ...hidden(message), enumerable: descriptors.message?.enumerable === true }
  descriptors.stack = hidden(`${name}: ${message}`)
  if (!Object.hasOwn(descriptors, 'cause')) descriptors.cause = hidden(error)
  try {
    const copy = new Error(message)
    // The stack first, while the prototype is Error's: replacing V8's lazy stack formats it,
    // and that reads `name` (a DOMException's getter throws on any other receiver).
    Object.defineProperty(copy, 'stack', descriptors.stack)
    Object.setPrototypeOf(copy, prototype)
    Object.defineProperties(copy, descriptors)
    keepBrandedGetters(copy, error, name)
    return copy
  } catch {
    // A prototype that refuses (a proxy's trap) or a descriptor that cannot be defined.
    return undefined
  }
}

/**
 * Makes each getter of the copy's class that refuses the copy (it checks the receiver's
 * class, as DOMException's `name` and `code` do) an own value read from the original, and
 * `copy.name` read `name` (it reaches the model in `String(error)`). Getters that throw on
 * the original too stay as they are.
 */
function keepBrandedGetters(copy, error, name) {
  let holder = Object.getPrototypeOf(copy)
  for (let depth = 0; depth < 16 && holder !== null && holder !== Error.prototype && holder !== Object.prototype; depth++) {
    for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(holder))) {
      if (typeof descriptor.get !== 'function' || Object.hasOwn(copy, key) || readsOn(copy, key)) continue
      let value
      try {
        value = error[key]
      } catch {
        continue
      }
      Object.defineProperty(copy, key, hidden(value))
    }
    holder = Object.getPrototypeOf(holder)
  }
  if (!readsOn(copy, 'name') || copy.name !== name) Object.defineProperty(copy, 'name', hidden(name))
}

/** Whether reading `object[key]` returns rather than throws. */
function readsOn(object, key) {
  try {
    void object[key]
    return true
  } catch {
    return false
  }
}

function clampError(error, limits) {
  if (isError(error)) {
    let unreadable = false
    const raw = readSafely(error, 'message', (thrown) => {
      unreadable = true
      return `[message unreadable: ${isError(thrown) ? readSafely(thrown, 'message', () => '') : textOf(thrown)}]`
    })
    const message = typeof raw === 'string' ? raw : textOf(raw)
    const clamped = clampWith(message, limits)
    if (!unreadable && clamped === raw) return error
    const readName = readSafely(error, 'name', () => 'Error')
    const name = typeof readName === 'string' ? readName : 'Error'
    return copyOfError(error, name, clamped) ?? clampedError(name, clamped, error)
  }
  return clampedError('Error', clampWith(messageOf(error), limits), error)
}

function hardTruncateToolError(error, limits) {
  return clampError(error, readPayloadLimits(limits, ERROR_DEFAULTS))
}

function wrapWith(onUpdate, limits) {
  if (onUpdate === undefined) return undefined
  if (typeof onUpdate !== 'function') {
    throw mustBe(TypeError, `onUpdate`, `a function or undefined`, onUpdate)
  }
  return function clampedOnUpdate(partial, ...rest) {
    return onUpdate.call(this, clampResult(partial, limits), ...rest)
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
    for await (const value of iterable) yield clampResult(value, limits)
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
      (value) => clampResult(value, limits),
      (error) => {
        throw clampError(error, errorLimits)
      },
    )
  }
  if (result !== null && typeof result === 'object' && typeof result[Symbol.asyncIterator] === 'function') {
    return clampEach(result, limits, errorLimits)
  }
  return clampResult(result, limits)
}

function wrapExecute(execute, limits) {
  if (typeof execute !== 'function') throw mustBe(TypeError, `execute`, `a function`, execute)
  const payload = readPayloadLimits(limits, PAYLOAD_DEFAULTS)
  const errors = errorLimitsWithin(payload)
  return function clampedExecute(...args) {
    return callClamped(execute, this, args, payload, errors)
  }
}

function wrapToolWithHardOutputTruncate(tool, limits) {
  // An execute function alone (the AI SDK's, LangChain's func, the OpenAI Agents SDK's): its
  // arguments are passed through as they are.
  if (typeof tool === 'function') return wrapExecute(tool, typeof limits === 'function' ? limits(tool) : limits)
  const execute = typeof tool === 'object' && tool !== null ? tool.execute : undefined
  if (typeof execute !== 'function') {
    // A LangChain tool runs `func`, not `execute`: say what wraps it instead.
    const hint =
      typeof tool === 'object' && tool !== null && isArray(read(tool, 'lc_namespace'))
        ? '; for a LangChain tool, wrap the function given to tool() instead, with the same responseFormat'
        : ''
    throw mustBe(TypeError, `tool`, `a function or an object with an execute function`, tool, `${hint}`)
  }
  const name = tool.name
  const toolName = typeof name === 'string' && name !== '' ? name : 'tool-result'
  const payload = readPayloadLimits(typeof limits === 'function' ? limits(tool) : limits, PAYLOAD_DEFAULTS, toolName)
  const errors = errorLimitsWithin(payload)
  const updates = withoutSpill(payload)
  // Every other property, descriptor and the prototype stay as they are (a frozen tool too).
  const wrapped = withProperty(tool, 'execute', function clampedExecute(toolCallId, params, signal, onUpdate, ...rest) {
    // Called on the copy, run on the original: methods using private fields need it.
    const self = this === wrapped ? tool : this
    return callClamped(execute, self, [toolCallId, params, signal, wrapWith(onUpdate, updates), ...rest], payload, errors)
  })
  return wrapped
}

module.exports = {
  FAILURE_DEFAULTS,
  forFailure,
  hardTruncateToolPayload,
  PAYLOAD_OPTIONS, // the option names, for lib/integrations/pi-session.js (not the public API)
  hardTruncateFailedPayload, // for lib/integrations/pi-session.js too
  // For the sibling modules, not the public API (index.js lists that).
  clampPayload,
  payloadSize,
  tokensOfPayload,
  readPayloadLimits,
  PAYLOAD_DEFAULTS,
  hardTruncateToolError,
  wrapOnUpdate,
  wrapToolWithHardOutputTruncate,
}
