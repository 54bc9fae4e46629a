'use strict'

// The string and tool-result API. This file reads options, takes the O(1) shortcuts that
// need no reading of the text, and assembles results with `slice`: the cut positions,
// counts and notices all come from the Rust core, through lib/native.js.

const native = require('./native.js')
const spills = require('./spill.js')
const json = require('./json.js')
const { describe, formatCount, textOf, isArray, isError, readSafely, messageOf, unshared } = require('./format.js')
const {
  checkKeys,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  fitsByLength,
  isPlainObject,
  LIMIT_KEYS,
  readHeadRatio,
  readLimitArgument,
  readLimits,
  readNotice,
  readOptionalBudget,
  readOptionsObject,
  readSnap,
  readStrategy,
} = require('./options.js')

function checkText(text) {
  if (typeof text !== 'string') throw new TypeError(`text must be a string, got ${describe(text)}`)
}

function clampString(text, strategy, limits, headRatio, notice, snap = false) {
  if (fitsByLength(text.length, limits)) return text
  const plan = native.planText(text, strategy, limits, headRatio, notice, false, snap)
  return plan.cut ? cutText(text, plan) : text
}

/** The result of a plan that cuts `text`: its kept parts around the glue. */
function cutText(text, plan) {
  return unshared(text.slice(0, plan.headEnd) + plan.glue + text.slice(plan.tailStart), text.length)
}

const NOTICE_OPTIONS = ['notice', 'snap']
const HEAD_TAIL_OPTIONS = ['headRatio', 'notice', 'snap']

/** A one-end clamp: `stringTruncateHead` and `stringTruncateTail`. */
function clampEnd(text, limit, options, strategy) {
  checkText(text)
  const limits = readLimitArgument('limit', limit)
  if (options === undefined) return clampString(text, strategy, limits, 0, undefined)
  const { notice, snap } = readOptionsObject(options, NOTICE_OPTIONS)
  return clampString(text, strategy, limits, 0, readNotice(notice), readSnap(snap, 'none'))
}

function stringTruncateHead(text, limit, options) {
  return clampEnd(text, limit, options, 'head')
}

function stringTruncateTail(text, limit, options) {
  return clampEnd(text, limit, options, 'tail')
}

function stringTruncateHeadTail(text, limit, options) {
  checkText(text)
  const limits = readLimitArgument('limit', limit)
  if (options === undefined) return clampString(text, 'headTail', limits, 0.5, undefined)
  const { headRatio, notice, snap } = readOptionsObject(options, HEAD_TAIL_OPTIONS)
  const ratio = readHeadRatio(headRatio)
  return clampString(text, 'headTail', limits, ratio, readNotice(notice), readSnap(snap, 'none'))
}

/** A `truncateText` result for `text`, the result's text, from a plan of the original. */
function resultOf(text, strategy, plan) {
  const { total, output, omitted } = plan
  return {
    text,
    truncated: plan.cut,
    truncatedBy: native.dimNames(plan.truncatedBy),
    // 'auto' as the binding resolved it.
    strategy: plan.strategy ?? strategy,
    totalChars: total.chars,
    totalBytes: total.bytes,
    totalLines: total.lines,
    outputChars: output.chars,
    outputBytes: output.bytes,
    outputLines: output.lines,
    omittedChars: omitted.chars,
    omittedBytes: omitted.bytes,
    omittedLines: omitted.lines,
    headEnd: plan.headEnd,
    tailStart: plan.tailStart,
  }
}

/** `truncateText` on options already read: `notice` as `readNotice` returns it. */
function truncateWith(text, limits, strategy, headRatio, notice, snap = false) {
  const plan = native.planText(text, strategy, limits, headRatio, notice, true, snap)
  return resultOf(plan.cut ? cutText(text, plan) : text, strategy, plan)
}

// The notice when the full text was saved: where, and which lines of the file were dropped
// (the numbers `readPartial`'s `offset` takes).
const SPILL_NOTICE =
  '[... {omitted} truncated at the {where}; full output saved to {spillPath} (dropped: lines {fromLine}–{toLine}) ...]'

const TRUNCATE_TEXT_OPTIONS = [...LIMIT_KEYS, 'strategy', 'headRatio', 'notice', 'spill', 'snap']

function truncateText(text, options) {
  checkText(text)
  const { maxChars, maxBytes, maxLines, strategy, headRatio, notice, spill, snap } = readOptionsObject(
    options,
    TRUNCATE_TEXT_OPTIONS,
  )
  const limits = readLimits({ maxChars, maxBytes, maxLines })
  const name = readStrategy(strategy)
  const ratio = readHeadRatio(headRatio)
  const lines = readSnap(snap, 'none')
  const spillTo = spills.readSpill(spill, 'text')
  if (spillTo === undefined) return truncateWith(text, limits, name, ratio, readNotice(notice), lines)
  return truncateSpilling(text, limits, name, ratio, notice, spillTo, lines)
}

/**
 * `truncateWith` that saves the full text to a spill file in `spill.dir` when it cuts. The
 * notice is the caller's as given: it may name the file (`{spillPath}`), and
 * clampAndSpill checks it.
 */
function truncateSpilling(text, limits, strategy, headRatio, notice, spill, snap = false) {
  return spills.clampAndSpill(spill, '', notice, SPILL_NOTICE, undefined, text, (planned) =>
    truncateWith(text, limits, strategy, headRatio, planned, snap),
  )
}

function measureText(text) {
  checkText(text)
  return native.measureText(text)
}

// ---------------------------------------------------------------------------------------
// Tool results
// ---------------------------------------------------------------------------------------

const PAYLOAD_DEFAULTS = Object.freeze({ maxChars: Infinity, maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES })
const ERROR_DEFAULTS = Object.freeze({ maxChars: Infinity, maxBytes: 4096, maxLines: 40 })
const PAYLOAD_OPTIONS = [...LIMIT_KEYS, 'strategy', 'headRatio', 'notice', 'spill', 'responseFormat', 'snap']
const RESPONSE_FORMATS = ['content', 'content_and_artifact']

/** Limits with nothing given but the budgets. */
function limitsRecord(budgets) {
  return Object.freeze({
    strategy: 'head',
    headRatio: 0.5,
    notice: undefined,
    responseFormat: 'content',
    // Text going to a model through a tool is cut on whole lines.
    snap: true,
    ...budgets,
    spill: undefined,
  })
}

const DEFAULT_PAYLOAD_LIMITS = limitsRecord(PAYLOAD_DEFAULTS)
const DEFAULT_ERROR_LIMITS = limitsRecord(ERROR_DEFAULTS)

/**
 * Reads payload limits once (at wrap time for the wrappers) into a frozen record: budgets,
 * strategy, head ratio, notice and spill. Each budget not given keeps its default, so
 * `{ maxLines: 10 }` still caps bytes; `Infinity` lifts a budget.
 */
function readPayloadLimits(limits, defaults, spillName = 'tool-result') {
  if (limits === undefined) return defaults === PAYLOAD_DEFAULTS ? DEFAULT_PAYLOAD_LIMITS : DEFAULT_ERROR_LIMITS
  if (!isPlainObject(limits)) throw new TypeError(`limits must be an object, got ${describe(limits)}`)
  checkKeys(limits, PAYLOAD_OPTIONS)
  const { maxChars, maxBytes, maxLines, strategy, headRatio, notice, spill, responseFormat, snap } = limits
  const spillTo = spills.readSpill(spill, spillName, spills.SPILL_KEYS_WITH_CALLBACK)
  if (responseFormat !== undefined && !RESPONSE_FORMATS.includes(responseFormat)) {
    throw new TypeError(`responseFormat must be "content" or "content_and_artifact", got ${describe(responseFormat)}`)
  }
  return Object.freeze({
    responseFormat: responseFormat ?? 'content',
    snap: readSnap(snap, 'line'),
    maxChars: readOptionalBudget('maxChars', maxChars, defaults.maxChars),
    maxBytes: readOptionalBudget('maxBytes', maxBytes, defaults.maxBytes),
    maxLines: readOptionalBudget('maxLines', maxLines, defaults.maxLines),
    strategy: readStrategy(strategy),
    headRatio: readHeadRatio(headRatio),
    // With a spill file the notice may name it ({spillPath}); clampAndSpill checks it.
    notice: spillTo === undefined ? readNotice(notice) : notice,
    spill: spillTo,
  })
}

/** The same limits with no spill: streamed partial results are never written to files. */
function withoutSpill(limits) {
  if (limits.spill === undefined) return limits
  return Object.freeze({ ...limits, spill: undefined, notice: spills.unsavedNotice(limits.notice) })
}

/** Error limits never above the payload's own. */
function errorLimitsWithin(payload) {
  return limitsRecord({
    maxChars: Math.min(ERROR_DEFAULTS.maxChars, payload.maxChars),
    maxBytes: Math.min(ERROR_DEFAULTS.maxBytes, payload.maxBytes),
    maxLines: Math.min(ERROR_DEFAULTS.maxLines, payload.maxLines),
    notice: withoutSpill(payload).notice,
  })
}

function clampWith(text, limits) {
  if (limits.spill === undefined) {
    return clampString(text, limits.strategy, limits, limits.headRatio, limits.notice, limits.snap)
  }
  if (fitsByLength(text.length, limits)) return text
  return truncateSpilling(text, limits, limits.strategy, limits.headRatio, limits.notice, limits.spill, limits.snap)
    .text
}

/**
 * The text a content block carries: a text block's `text` or an embedded resource's
 * `text`. Each property is read once; a block that cannot be read (a throwing getter, a
 * revoked proxy) carries no text and is left as it is.
 */
function blockText(block) {
  try {
    if (typeof block !== 'object' || block === null) return undefined
    const type = block.type
    if (type === 'text' || type === 'input_text' || type === 'output_text') {
      const text = block.text
      return typeof text === 'string' ? text : undefined
    }
    if (type === 'resource') {
      const resource = block.resource
      if (typeof resource !== 'object' || resource === null) return undefined
      const text = resource.text
      return typeof text === 'string' ? text : undefined
    }
  } catch {
    // Unreadable: not a block this clamp can shorten.
  }
  return undefined
}

/**
 * A copy of `block` carrying `text`. A block whose properties cannot be copied becomes a
 * plain text block: what it carried was readable and is cut, so it must not pass whole.
 */
function withBlockText(block, text) {
  try {
    if (block.type !== 'resource') return { ...block, text }
    return { ...block, resource: { ...block.resource, text } }
  } catch {
    return { type: 'text', text }
  }
}

/**
 * Clamps the text of an array of content blocks under one budget, as if the texts were
 * concatenated in order. The core plans the cut of that concatenation; here the cut is
 * mapped back onto the blocks. Returns the same array when nothing was cut.
 */
function clampBlocks(blocks, limits) {
  // Most results fit: proven from the lengths alone, before anything is collected.
  let length = 0
  for (let i = 0; i < blocks.length; i++) {
    const text = blockText(blocks[i])
    if (text !== undefined) length += text.length
  }
  if (fitsByLength(length, limits)) return blocks
  // Planned on what this second read returns (a getter may answer differently each time).
  const texts = []
  const positions = []
  length = 0
  for (let i = 0; i < blocks.length; i++) {
    const text = blockText(blocks[i])
    if (text !== undefined) {
      texts.push(text)
      positions.push(i)
      length += text.length
    }
  }
  if (texts.length === 0 || fitsByLength(length, limits)) return blocks
  let headEnd
  let tailStart
  let glue
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
  const result = blocks.slice()
  for (let k = 0, start = 0; k < texts.length; start += texts[k].length, k++) {
    const text = texts[k]
    const keptHead = text.slice(0, Math.max(0, Math.min(text.length, headEnd - start)))
    const keptTail = text.slice(Math.max(0, Math.min(text.length, tailStart - start)))
    const next = unshared(k === glueAt ? keptHead + glue + keptTail : keptHead + keptTail, text.length)
    if (next !== text) result[positions[k]] = withBlockText(blocks[positions[k]], next)
  }
  return result
}

/**
 * A copy of `object` with every own property (non-enumerable ones, getters, an own
 * `__proto__` key) and the prototype, except `key`, which gets `value`. An object whose
 * properties cannot be read becomes `{ [key]: value }`.
 */
function withProperty(object, key, value) {
  try {
    const descriptors = Object.getOwnPropertyDescriptors(object)
    descriptors[key] = { value, writable: true, enumerable: true, configurable: true }
    return Object.create(Object.getPrototypeOf(object), descriptors)
  } catch {
    return { [key]: value }
  }
}

/** `result.content` when it is an array; undefined when it is not or cannot be read. */
function contentOf(result) {
  try {
    const content = result.content
    return Array.isArray(content) ? content : undefined
  } catch {
    return undefined
  }
}

// Content-block types of the frameworks toolclamp serves: MCP, pi-ai, the AI SDK's
// tool-result content parts, OpenAI's input/output parts, LangChain's standard blocks. An
// array counts as content blocks when one of its items has such a type (and none is a
// string); any other array is JSON data.
const BLOCK_TYPES = new Set([
  'text', 'image', 'audio', 'resource', 'resource_link', 'media', 'file', 'image-data', 'image-url', 'file-data',
  'file-url', 'file-id', 'image-file-id', 'input_text', 'output_text', 'input_image', 'input_file', 'input_audio',
  'refusal', 'image_url', 'reasoning',
])
// Block types whose text toolclamp reads (see blockText).
const TEXT_TYPES = new Set(['text', 'input_text', 'output_text', 'resource'])
// AI SDK ToolResultOutput: { type, value }.
const TEXT_OUTPUTS = new Set(['text', 'error-text'])
const JSON_OUTPUTS = new Set(['json', 'error-json'])
// OpenAI Agents SDK / Responses API items carrying a tool's output.
const OUTPUT_ITEMS = new Set(['function_call_result', 'function_call_output'])

/** A property read that never throws (undefined when it cannot be read). */
function read(object, key) {
  try {
    return object[key]
  } catch {
    return undefined
  }
}

function typeOf(item) {
  if (typeof item !== 'object' || item === null) return undefined
  const type = read(item, 'type')
  return typeof type === 'string' ? type : undefined
}

/**
 * An array is a list of content blocks when an item has a block type (text, image, ...),
 * or when it holds nothing a clamp could shorten (only null, numbers, booleans: malformed
 * blocks). Any other array (strings, records) is JSON data.
 */
function isBlockList(array) {
  let blocks = false
  let data = false
  for (let i = 0; i < array.length; i++) {
    const item = read(array, i)
    if (BLOCK_TYPES.has(typeOf(item))) blocks = true
    else if (isData(item)) data = true
  }
  return blocks || !data
}

/** A value that is not a content block toolclamp knows but can carry text: a string, an object of another type. */
function isData(item) {
  if (typeof item === 'string') return true
  if (typeof item !== 'object' || item === null) return false
  return !BLOCK_TYPES.has(typeOf(item))
}

/**
 * Content blocks: their text shares the budget (clampBlocks). An item among them that is
 * no block toolclamp knows but carries data (a bare string, an object of another type or
 * none) is clamped on its own, as text or JSON, so it cannot carry a huge payload past
 * the clamp.
 */
function clampBlockList(blocks, limits) {
  let result = clampBlocks(blocks, limits)
  for (let i = 0; i < result.length; i++) {
    const item = result[i]
    if (item !== read(blocks, i) || !isData(item)) continue
    const clamped = typeof item === 'string' ? clampWith(item, limits) : clampData(item, limits)
    if (clamped !== item) {
      if (result === blocks) result = blocks.slice()
      result[i] = clamped
    }
  }
  return result
}

/**
 * JSON data: the JSON clamp with in-band markers. A value that fits comes back as it is,
 * even one JSON.stringify throws on (a revoked proxy, a throwing getter): there is nothing
 * to cut, and what the framework makes of it is unchanged.
 */
function clampData(value, limits) {
  let clamped
  try {
    clamped = json.clampJsonWith(value, limits, 'inline')
  } catch {
    // No JSON form fits limits this small (a few bytes): the clamp of its text, as text.
    return clampWith(json.stringifyAny(value).text ?? '', limits)
  }
  return clamped.truncated ? clamped.value : value
}

/** A copy of `object` with `changes` (key → value) when any differs, else `object`. */
function withChanges(object, changes) {
  let result = object
  for (const [key, value] of changes) {
    if (value !== read(object, key)) result = withProperty(result, key, value)
  }
  return result
}

/**
 * MCP CallToolResult.structuredContent, clamped schema-safe (markers 'none') under the same
 * budget as `content`: they are two renderings of one result, and a client sends one of
 * them to the model. What was shortened is said in a text block appended to `content`.
 */
function clampStructured(result, content, limits) {
  const structured = read(result, 'structuredContent')
  const clampedContent = content === undefined ? undefined : clampBlockList(content, limits)
  if (typeof structured !== 'object' || structured === null) {
    return clampedContent === content ? result : withProperty(result, 'content', clampedContent)
  }
  let clamped
  try {
    clamped = json.clampJsonWith(structured, limits, 'none')
  } catch {
    // Limits of a few bytes hold no form of it: an empty object, said in the note.
    clamped = { value: {}, truncated: true, totalBytes: NaN, outputBytes: 2, elided: [{ path: '$', keptKeys: 0, totalKeys: NaN }] }
  }
  if (!clamped.truncated && clampedContent === content) return result
  let blocks = clampedContent
  if (clamped.truncated) {
    const said = clamped.elided.slice(0, 8).map(describeElision).join('; ')
    const more = clamped.elided.length > 8 ? `; and ${clamped.elided.length - 8} more` : ''
    const note = clampString(
      `[structuredContent shortened to ${formatCount(clamped.outputBytes)} of ${formatCount(clamped.totalBytes)} bytes: ${said}${more}]`,
      'head',
      { maxChars: Infinity, maxBytes: Math.min(1024, limits.maxBytes), maxLines: Math.min(4, limits.maxLines) },
      0,
      undefined,
    )
    blocks = [...(clampedContent ?? []), { type: 'text', text: note }]
  }
  return withChanges(result, [
    ['content', blocks],
    ['structuredContent', clamped.value],
  ])
}

function describeElision(e) {
  if (e.kept !== undefined) return `${e.path}: ${formatCount(e.kept)} of ${formatCount(e.total)} items`
  if (e.keptKeys !== undefined) return `${e.path}: ${formatCount(e.keptKeys)} of ${formatCount(e.totalKeys)} keys`
  return `${e.path}: ${formatCount(e.keptBytes)} of ${formatCount(e.totalBytes)} bytes`
}

/** An object a tool returned: which of its shapes it has decides what is clamped. */
function clampObject(result, limits) {
  const content = contentOf(result)
  if (content !== undefined || read(result, 'structuredContent') !== undefined) {
    // MCP CallToolResult, pi AgentToolResult ({ content, details }: details never reach the model).
    return clampStructured(result, content, limits)
  }
  const type = typeOf(result)
  if (type !== undefined) {
    const value = read(result, 'value')
    // AI SDK ToolResultOutput.
    if (TEXT_OUTPUTS.has(type) && typeof value === 'string') return withChanges(result, [['value', clampWith(value, limits)]])
    if (JSON_OUTPUTS.has(type)) return withChanges(result, [['value', clampData(value, limits)]])
    if (type === 'content' && Array.isArray(value)) return withChanges(result, [['value', clampBlockList(value, limits)]])
    // OpenAI Agents: a function call's output item.
    if (OUTPUT_ITEMS.has(type)) return withChanges(result, [['output', clampPayload(read(result, 'output'), limits)]])
    // A single content block ({ type: 'text', text }).
    if (TEXT_TYPES.has(type)) {
      const clamped = clampBlockList([result], limits)
      return clamped[0]
    }
    if (BLOCK_TYPES.has(type)) return result
  }
  return clampData(result, limits)
}

/** LangChain's content_and_artifact tuple: the content is clamped, the artifact left as it is. */
function clampContentAndArtifact(result, limits) {
  if (!isArray(result) || result.length !== 2) return clampPayload(result, limits)
  const content = read(result, 0)
  const clamped = clampPayload(content, limits)
  return clamped === content ? result : [clamped, read(result, 1)]
}

function clampPayload(result, limits) {
  if (typeof result === 'string') return clampWith(result, limits)
  if (isArray(result)) return isBlockList(result) ? clampBlockList(result, limits) : clampData(result, limits)
  if (typeof result === 'object' && result !== null) return clampObject(result, limits)
  if (typeof result === 'bigint') return clampData(result, limits)
  // Numbers, booleans, undefined, functions, symbols: nothing to cut.
  return result
}

/** The clamp of a tool's final result, in the response format the limits name. */
function clampResult(result, limits) {
  return limits.responseFormat === 'content_and_artifact'
    ? clampContentAndArtifact(result, limits)
    : clampPayload(result, limits)
}

function hardTruncateToolPayload(result, limits) {
  return clampResult(result, readPayloadLimits(limits, PAYLOAD_DEFAULTS))
}

/** An Error named like the original whose stack is only its clamped message. */
function clampedError(name, message, cause) {
  const error = new Error(message, { cause })
  if (name !== 'Error') Object.defineProperty(error, 'name', { value: name, writable: true, configurable: true })
  error.stack = `${name}: ${message}`
  return error
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
    if (unreadable) return clampedError('Error', clamped, error)
    if (clamped === raw) return error
    const name = readSafely(error, 'name', () => 'Error')
    return clampedError(typeof name === 'string' ? name : 'Error', clamped, error)
  }
  return clampedError('Error', clampWith(messageOf(error), limits), error)
}

function hardTruncateToolError(error, limits) {
  return clampError(error, readPayloadLimits(limits, ERROR_DEFAULTS))
}

function wrapWith(onUpdate, limits) {
  if (onUpdate === undefined) return undefined
  if (typeof onUpdate !== 'function') {
    throw new TypeError(`onUpdate must be a function or undefined, got ${describe(onUpdate)}`)
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
  if (typeof execute !== 'function') throw new TypeError(`execute must be a function, got ${describe(execute)}`)
  const payload = readPayloadLimits(limits, PAYLOAD_DEFAULTS)
  const errors = errorLimitsWithin(payload)
  return function clampedExecute(...args) {
    return callClamped(execute, this, args, payload, errors)
  }
}

function wrapToolWithHardOutputTruncate(tool, limits) {
  const execute = typeof tool === 'object' && tool !== null ? tool.execute : undefined
  if (typeof execute !== 'function') {
    throw new TypeError(`tool must be an object with an execute function, got ${describe(tool)}`)
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
  stringTruncateHead,
  stringTruncateTail,
  stringTruncateHeadTail,
  truncateText,
  measureText,
  hardTruncateToolPayload,
  hardTruncateToolError,
  wrapOnUpdate,
  wrapToolWithHardOutputTruncate,
  wrapExecute,
  // For the sibling modules, not the public API (index.js lists that).
  checkText,
  resultOf,
  truncateWith,
}
