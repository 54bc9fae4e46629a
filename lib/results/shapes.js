'use strict'

// The shapes a tool result takes, in one place. Whatever a tool returns (a string, content
// blocks, an MCP CallToolResult, a pi AgentToolResult, AI SDK outputs, OpenAI output items,
// LangChain messages and Commands, any JSON value), shapeOf says which shape it is and
// mapParts walks what a model reads of it, in order, and rebuilds it with parts replaced.
// The payload clamp and its sizing (payload.js), the conversation clamp
// (conversation/messages.js) and the session guard and repair (integrations/pi-session.js)
// read results only through here, so they cannot disagree on what a result holds.
//
// Nothing here throws, whatever it is given (throwing getters, revoked proxies), and
// nothing is written to: a rebuild copies what changes and returns the very value given
// when nothing did.

const { isArray, read } = require('../common/format.js')

// ---------------------------------------------------------------------------------------
// Content blocks
// ---------------------------------------------------------------------------------------

// Content-block types of the frameworks toolclamp serves: MCP, pi-ai, the AI SDK's
// tool-result content parts, OpenAI's input/output parts, LangChain's standard blocks.
const BLOCK_TYPES = new Set([
  'text',
  'image',
  'audio',
  'resource',
  'resource_link',
  'media',
  'file',
  'image-data',
  'image-url',
  'file-data',
  'file-url',
  'file-id',
  'image-file-id',
  'input_text',
  'output_text',
  'input_image',
  'input_file',
  'input_audio',
  'image_url',
])
// Block types whose text toolclamp reads (see blockText).
const TEXT_TYPES = new Set(['text', 'input_text', 'output_text', 'resource'])
// Where a media block of those frameworks holds what it carries (base64 data, a URL, a file
// id, an MCP resource). A record with a block type and none of these keys (`{ type: 'file',
// path, size }` from a directory listing) is data, not a block.
const MEDIA_KEYS = [
  'data',
  'url',
  'uri',
  'image',
  'image_url',
  'file',
  'file_id',
  'fileId',
  'file_data',
  'file_url',
  'input_audio',
  'resource',
  'source',
  'blob',
]

/** A value's `type` when it is a string; undefined for anything else. */
function typeOf(item) {
  if (typeof item !== 'object' || item === null) return undefined
  let type
  try {
    // A named read, not read(item, 'type'): its own inline cache, far faster on hot paths.
    type = item.type
  } catch {
    return undefined
  }
  return typeof type === 'string' ? type : undefined
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

/** Whether a block has a key media is carried in; checked with `in`, so no getter runs. */
function hasMedia(block) {
  try {
    for (const key of MEDIA_KEYS) if (key in block) return true
  } catch {
    // A proxy that answers no `has`: nothing shows it is media.
  }
  return false
}

/**
 * What an item of a content-block list is to a model: 'text' (a block whose text it reads),
 * 'media' (a media block: sent, never cut), 'piece' (a string, read on its own), 'data' (an
 * object that is no block toolclamp knows: read as its JSON) or 'skip' (null, numbers,
 * booleans, a text block without text: not sent as text).
 */
function itemKind(item, type = typeOf(item)) {
  if (typeof item === 'string') return 'piece'
  if (typeof item !== 'object' || item === null) return 'skip'
  if (!BLOCK_TYPES.has(type)) return 'data'
  if (TEXT_TYPES.has(type)) return blockText(item) === undefined ? 'skip' : 'text'
  return hasMedia(item) ? 'media' : 'data'
}

/**
 * An array is a list of content blocks when an item is a block (text, or media with its
 * data, URL or file id; a malformed text block too), or when it is empty (no blocks:
 * nothing to read). Any other array (strings, records, numbers, booleans, null) is JSON
 * data: a million ids are as much for a model to read as a million strings.
 */
function isBlockList(array) {
  const length = lengthOf(array)
  if (length === 0) return true
  for (let i = 0; i < length; i++) {
    const item = read(array, i)
    const kind = itemKind(item)
    if (kind === 'text' || kind === 'media' || (kind === 'skip' && TEXT_TYPES.has(typeOf(item)))) return true
  }
  return false
}

/**
 * The UTF-16 length of the text a model reads of a list as mapParts walks it (block texts
 * and strings), with `mediaCost` for each media block; NaN when mapParts would read any of
 * it as data (a record among the blocks, or a list that is no block list). isBlockList and
 * mapBlocks in one loop, for the fast paths of results that fit.
 */
function blocksLength(list, mediaCost = 0) {
  // lengthOf's rule, with a read by name (its own inline cache): this runs on every result.
  let length = 0
  try {
    length = list.length
  } catch {}
  if (!(Number.isSafeInteger(length) && length > 0)) length = 0
  let total = 0
  let blocks = length === 0
  for (let i = 0; i < length; i++) {
    let item
    try {
      item = list[i]
    } catch {}
    const text = blockText(item)
    if (text !== undefined) {
      total += text.length
      blocks = true
      continue
    }
    const kind = itemKind(item)
    if (kind === 'data') return Number.NaN
    if (kind === 'piece') total += item.length
    else if (kind === 'media') {
      total += mediaCost
      blocks = true
    } else if (TEXT_TYPES.has(typeOf(item))) blocks = true
  }
  return blocks ? total : Number.NaN
}

// ---------------------------------------------------------------------------------------
// Copies that never throw and never write to the original
// ---------------------------------------------------------------------------------------

/** A list's length; 0 when it cannot be read or is no length. */
function lengthOf(list) {
  const length = read(list, 'length')
  return Number.isSafeInteger(length) && length > 0 ? length : 0
}

/** A plain copy of a list, read item by item (holes stay holes, an unreadable item becomes one). */
function copyList(list) {
  const length = lengthOf(list)
  const copy = new Array(length)
  for (let i = 0; i < length; i++) {
    try {
      if (i in list) copy[i] = list[i]
    } catch {
      // Unreadable here, as it is for any framework: a hole.
    }
  }
  return copy
}

/**
 * A copy of `object` with every own property (non-enumerable ones, getters, an own
 * `__proto__` key) and the prototype, except `key`, which gets `value`. An object whose
 * properties cannot be read becomes `unreadable(error)`: by default `{ [key]: value }`.
 */
function withProperty(object, key, value, unreadable = () => ({ [key]: value })) {
  let descriptors
  let prototype
  try {
    descriptors = Object.getOwnPropertyDescriptors(object)
    prototype = Object.getPrototypeOf(object)
  } catch (error) {
    return unreadable(error)
  }
  descriptors[key] = { value, writable: true, enumerable: true, configurable: true }
  try {
    return Object.create(prototype, descriptors)
  } catch (error) {
    return unreadable(error)
  }
}

/** Whether `object[key]` is an own data property holding `value` (no getter to ask again). */
function holdsOwn(object, key, value) {
  try {
    const descriptor = Object.getOwnPropertyDescriptor(object, key)
    return descriptor !== undefined && 'value' in descriptor && descriptor.value === value
  } catch {
    return false
  }
}

/** A copy of `object` with each `[key, before, after]` change where `after` differs. */
function withChanges(object, changes) {
  let result = object
  for (const [key, before, after] of changes) {
    if (after !== before) result = withProperty(result, key, after)
  }
  return result
}

/** A message with `key` set; a LangChain message keeps its `lc_kwargs` in step. */
function withMessageKey(message, key, value) {
  const copy = withProperty(message, key, value)
  const kwargs = read(message, 'lc_kwargs')
  if (typeof kwargs !== 'object' || kwargs === null || read(kwargs, key) === undefined) return copy
  return withProperty(copy, 'lc_kwargs', withProperty(kwargs, key, value))
}

// ---------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------

// AI SDK ToolResultOutput: { type, value }.
const TEXT_OUTPUTS = new Set(['text', 'error-text'])
const JSON_OUTPUTS = new Set(['json', 'error-json'])
const ERROR_OUTPUTS = new Set(['error-text', 'error-json'])
// OpenAI Agents SDK / Responses API items carrying a tool's output.
const OUTPUT_ITEMS = new Set(['function_call_result', 'function_call_output'])
// The keys of a result with content that are not sent as its other data (pi never sends
// `details`).
const RESULT_KEYS = new Set(['content', 'structuredContent', 'details'])

/**
 * Which shape a tool result has, with what it was told by (each property read once):
 * `{ shape, failed, type, content, structured, value }`, where `value` is the result,
 * `content` what it carries (a result's `content`, an item's `output`, an AI SDK output's
 * `value`) and `structured` a result's structuredContent. The shapes:
 * - 'string': text, as it is;
 * - 'blocks': content blocks (see isBlockList): their texts share one budget, as if
 *   concatenated; media blocks are kept; strings and records among them are read each on
 *   its own;
 * - 'result': an object with a `content` array or `structuredContent` (MCP CallToolResult,
 *   pi AgentToolResult): `content`, structuredContent's JSON and the JSON of every other
 *   enumerable key but `details`;
 * - 'direct': a LangChain direct tool output (`lc_direct_tool_output`): a ToolMessage's
 *   content, or the content of each ToolMessage a LangGraph Command writes to `messages`;
 * - 'item': an OpenAI Agents / Responses function call's output item: its `output`;
 * - 'text-output', 'json-output', 'content-output': AI SDK outputs (`value` text, JSON,
 *   content parts);
 * - 'text-block', 'media-block': one content block;
 * - 'data': anything else sent as JSON (other arrays and objects, BigInt);
 * - 'scalar': null, a number or a boolean: sent as JSON, nothing to cut;
 * - 'nothing': undefined, a function or a symbol: nothing sent.
 * `failed`: the result says it failed (MCP and pi `isError`, an AI SDK error output).
 */
function shapeOf(value) {
  if (typeof value === 'string') return shape('string', value)
  if (isArray(value)) return shape(isBlockList(value) ? 'blocks' : 'data', value)
  if (typeof value === 'object' && value !== null) return objectShape(value)
  if (typeof value === 'bigint') return shape('data', value)
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return shape('scalar', value)
  return shape('nothing', value)
}

function shape(name, value, failed = false, type = undefined, content = undefined, structured = undefined) {
  return { shape: name, failed, type, content, structured, value }
}

function objectShape(result) {
  const type = typeOf(result)
  // Named reads (each its own inline cache), each one's throw read as undefined, as read() does.
  let failed = false
  let direct
  let content
  let structured
  try {
    failed = result.isError === true
  } catch {}
  failed ||= ERROR_OUTPUTS.has(type)
  try {
    direct = result.lc_direct_tool_output
  } catch {}
  if (direct === true) return shape('direct', result, failed, type)
  try {
    content = result.content
  } catch {}
  try {
    structured = result.structuredContent
  } catch {}
  if (isArray(content) || structured !== undefined) return shape('result', result, failed, type, content, structured)
  if (type !== undefined) {
    if (OUTPUT_ITEMS.has(type)) return shape('item', result, failed, type, read(result, 'output'))
    const value = read(result, 'value')
    if (TEXT_OUTPUTS.has(type) && typeof value === 'string') return shape('text-output', result, failed, type, value)
    if (JSON_OUTPUTS.has(type) && value !== undefined) return shape('json-output', result, failed, type, value)
    if (type === 'content' && isArray(value)) return shape('content-output', result, failed, type, value)
    const kind = itemKind(result, type)
    if (kind === 'text') return shape('text-block', result, failed, type)
    if (kind === 'media') return shape('media-block', result, failed, type)
  }
  return shape('data', result, failed, type)
}

/**
 * Whether a result may have other data: an own enumerable key but content,
 * structuredContent and details. for...in allocates nothing (Object.keys makes a list);
 * a result that cannot be listed may, and extrasOf then finds none.
 */
function hasExtras(result) {
  try {
    // Compared one by one: on the one or two keys of most results, faster than a Set.
    for (const key in result) {
      if (key !== 'content' && key !== 'details' && key !== 'structuredContent' && Object.hasOwn(result, key)) return true
    }
  } catch {
    return true
  }
  return false
}

/**
 * A result's other data, as JSON sends it: `{ keys, value }`, its enumerable own keys but
 * content, structuredContent and details, and a plain object of their values (each read
 * once); undefined when there are none or they cannot be listed.
 */
function extrasOf(result) {
  if (!hasExtras(result)) return undefined
  let all
  try {
    all = Object.keys(result)
  } catch {
    return undefined
  }
  // Most results have only content and details: no list is made for them.
  let keys
  for (const key of all) if (!RESULT_KEYS.has(key)) (keys ??= []).push(key)
  if (keys === undefined) return undefined
  const value = {}
  for (const key of keys) {
    // defineProperty: a "__proto__" key is data, as JSON sends it.
    Object.defineProperty(value, key, { value: read(result, key), enumerable: true, writable: true, configurable: true })
  }
  return { keys, value }
}

/**
 * A copy of `object` whose data keys `keys` hold what `data` holds: a key `data` lacks is
 * gone, one it adds follows the others. Data that is no object (a clamp's text) holds no key.
 */
function withData(object, keys, data) {
  const clamped = typeof data === 'object' && data !== null && !isArray(data) ? data : {}
  try {
    const descriptors = Object.getOwnPropertyDescriptors(object)
    for (const key of keys) {
      if (Object.hasOwn(clamped, key)) descriptors[key] = dataProperty(clamped[key])
      else delete descriptors[key]
    }
    for (const key of Object.keys(clamped)) {
      if (!Object.hasOwn(descriptors, key)) descriptors[key] = dataProperty(clamped[key])
    }
    return Object.create(Object.getPrototypeOf(object), descriptors)
  } catch {
    return { ...clamped, content: read(object, 'content') }
  }
}

function dataProperty(value) {
  return { value, writable: true, enumerable: true, configurable: true }
}

// ---------------------------------------------------------------------------------------
// The visitor
// ---------------------------------------------------------------------------------------

/**
 * Walks what a model reads of a tool result, in order, calling `visit(kind, value)` for
 * each part, and returns the result rebuilt with what `visit` returned for each (the very
 * value given when every part came back as it was). The kinds:
 * - 'text': a content block's text (the block texts of a list share one budget);
 * - 'piece': a string read on its own (a string result, an AI SDK text output, a string
 *   among blocks);
 * - 'data': a value read as its compact JSON (structuredContent, a result's other keys as
 *   one object, a record among blocks, any other value);
 * - 'media': a media block, kept whole.
 * A replaced 'text' goes back into its block (withBlockText); a replaced 'data' of a
 * result's other keys gives those keys (withData).
 */
function mapParts(value, visit) {
  const found = shapeOf(value)
  const { content } = found
  switch (found.shape) {
    case 'string':
      return visit('piece', value)
    case 'blocks':
      return mapBlocks(value, visit)
    case 'result':
      return mapResult(value, found, visit)
    case 'direct':
      return mapDirect(value, (message) => mapMessageContent(message, visit))
    case 'item':
      return withChanges(value, [['output', content, mapParts(content, visit)]])
    case 'text-output':
      return withChanges(value, [['value', content, visit('piece', content)]])
    case 'json-output':
      return withChanges(value, [['value', content, visit('data', content)]])
    case 'content-output':
      return withChanges(value, [['value', content, mapParts(content, visit)]])
    case 'text-block': {
      // Read again: a getter that answers no text now leaves nothing to read.
      const text = blockText(value)
      if (text === undefined) return value
      const next = visit('text', text)
      return next === text ? value : withBlockText(value, next)
    }
    case 'media-block':
      return visit('media', value)
    case 'data':
    case 'scalar':
      return visit('data', value)
    default:
      return value
  }
}

/** Calls `visit(kind, value)` for each part of a result, in order (mapParts, nothing replaced). */
function forEachPart(value, visit) {
  mapParts(value, (kind, part) => {
    visit(kind, part)
    return part
  })
}

/** The parts of a result, in order: `[kind, value]` each. */
function partsOf(value) {
  const parts = []
  forEachPart(value, (kind, part) => parts.push([kind, part]))
  return parts
}

/**
 * mapParts of a content-block list: each item by its kind (itemKind), in order, `visit`
 * told its index too.
 */
function mapBlocks(blocks, visit) {
  let result = blocks
  for (let i = 0, n = lengthOf(blocks); i < n; i++) {
    const item = read(blocks, i)
    // A text block's text read once (what itemKind would find 'text').
    const text = blockText(item)
    let next
    if (text !== undefined) {
      const replaced = visit('text', text, i)
      next = replaced === text ? item : withBlockText(item, replaced)
    } else {
      const kind = itemKind(item)
      if (kind === 'skip') continue
      next = visit(kind, item, i)
    }
    if (next === item) continue
    if (result === blocks) result = copyList(blocks)
    result[i] = next
  }
  return result
}

/** mapParts of a result with content: `content`, structuredContent, the other keys; `details` is not sent. */
function mapResult(result, { content, structured }, visit) {
  const nextContent = content === undefined ? undefined : mapParts(content, visit)
  const nextStructured = structured === undefined ? undefined : visit('data', structured)
  const extras = extrasOf(result)
  const nextExtras = extras === undefined ? undefined : visit('data', extras.value)
  const next = withChanges(result, [
    ['content', content, nextContent],
    ['structuredContent', structured, nextStructured],
  ])
  return extras === undefined || nextExtras === extras.value ? next : withData(next, extras.keys, nextExtras)
}

/** mapParts of a ToolMessage: its content when that is a string or a list, else nothing. */
function mapMessageContent(message, visit) {
  const content = read(message, 'content')
  if (typeof content !== 'string' && !isArray(content)) return message
  const next = mapParts(content, visit)
  return next === content ? message : withMessageKey(message, 'content', next)
}

// ---------------------------------------------------------------------------------------
// LangChain: ToolMessages and LangGraph Commands
// ---------------------------------------------------------------------------------------

/** A ToolMessage as a Command's update or a direct output holds one: it answers a tool call. */
function isToolMessage(value) {
  return typeof value === 'object' && value !== null && typeof read(value, 'tool_call_id') === 'string'
}

/** A ToolMessage that says it failed. */
function isFailedMessage(message) {
  return read(message, 'status') === 'error'
}

/**
 * A LangChain direct tool output with `change` applied to the ToolMessage it is, or to each
 * ToolMessage a LangGraph Command's update writes to `messages` (see mapUpdate), in order.
 * The same value when nothing changed.
 */
function mapDirect(result, change) {
  if (isToolMessage(result)) return change(result)
  const update = read(result, 'update')
  const next = mapUpdate(update, change)
  return next === update ? result : withProperty(result, 'update', next)
}

/**
 * A Command's update with `change` applied to each ToolMessage written to `messages`: an
 * object's `messages` key; in a list of `[key, value]` tuples, each `messages` tuple; a list
 * that is no such tuple list (LangGraph writes it to the root channel, as a MessageGraph's
 * messages). A `messages` value may be one message or a list of them. The same update when
 * nothing changed; the rest of the update (graph state, not a message to the model) is
 * left alone.
 */
function mapUpdate(update, change) {
  if (typeof update !== 'object' || update === null) return update
  if (!isArray(update)) {
    const messages = read(update, 'messages')
    const next = mapMessages(messages, change)
    return next === messages ? update : withProperty(update, 'messages', next)
  }
  if (!isTupleList(update)) return mapMessages(update, change)
  let next = update
  const length = lengthOf(update)
  for (let i = 0; i < length; i++) {
    const tuple = read(update, i)
    if (read(tuple, 0) !== 'messages') continue
    const messages = read(tuple, 1)
    const changed = mapMessages(messages, change)
    if (changed === messages) continue
    if (next === update) next = copyList(update)
    const copy = copyList(tuple)
    copy[1] = changed
    next[i] = copy
  }
  return next
}

/** Whether a Command's update is a list of `[key, value]` tuples, as LangGraph tells them. */
function isTupleList(list) {
  const length = lengthOf(list)
  for (let i = 0; i < length; i++) {
    const tuple = read(list, i)
    if (!isArray(tuple) || lengthOf(tuple) !== 2 || typeof read(tuple, 0) !== 'string') return false
  }
  return true
}

/** `change` applied to one ToolMessage or to each in a list; the same value when none changed. */
function mapMessages(messages, change) {
  if (isToolMessage(messages)) return change(messages)
  if (!isArray(messages)) return messages
  let next = messages
  const length = lengthOf(messages)
  for (let i = 0; i < length; i++) {
    const message = read(messages, i)
    if (!isToolMessage(message)) continue
    const changed = change(message)
    if (changed === message) continue
    if (next === messages) next = copyList(messages)
    next[i] = changed
  }
  return next
}

// ---------------------------------------------------------------------------------------
// Conversation messages: where each format holds its tool results
// ---------------------------------------------------------------------------------------

// The role of a pi tool result message (pi-ai's ToolResultMessage, as sessions persist it).
const PI_RESULT_ROLE = 'toolResult'

/**
 * A message's role, read by name: a conversation's few message shapes keep this load fast,
 * where `read`'s keyed load is slow on every one. Undefined when it cannot be read.
 */
function roleOf(message) {
  try {
    return message.role
  } catch {
    return undefined
  }
}

/**
 * A pi tool result message's fields, each read once with `readKey` (which may throw, as the
 * session guard's does): `{ content, toolName, failed }`; undefined for any other message.
 */
function piResultOf(message, readKey = read) {
  if (typeof message !== 'object' || message === null) return undefined
  if (readKey(message, 'role') !== PI_RESULT_ROLE) return undefined
  const content = readKey(message, 'content')
  const toolName = readKey(message, 'toolName')
  // An unreadable isError says nothing: the result is clamped as any other.
  return { content, toolName, failed: read(message, 'isError') === true }
}

/** A LangChain ToolMessage in a conversation: a tool call's answer of type 'tool' (a class's getType, or serialized). */
function isLangChainToolMessage(message, type) {
  if (typeof read(message, 'tool_call_id') !== 'string') return false
  if (type === 'tool') return true
  try {
    const getType = message._getType ?? message.getType
    return typeof getType === 'function' && getType.call(message) === 'tool'
  } catch {
    return false
  }
}

/** Calls `visit(part, index)` for each item of `parts` whose type is `type`. */
function forEachTyped(parts, type, visit) {
  for (let i = 0, n = lengthOf(parts); i < n; i++) {
    const part = read(parts, i)
    if (typeOf(part) === type) visit(part, i)
  }
}

/**
 * Whether a list holds a part of type `type`. Run on every user message of a conversation:
 * each read is by name here (its own inline cache), where lengthOf's and typeOf's, shared by
 * every caller, are slow.
 */
function hasTyped(parts, type) {
  let length = 0
  try {
    length = parts.length
  } catch {}
  if (!Number.isSafeInteger(length)) return false
  for (let i = 0; i < length; i++) {
    try {
      const part = parts[i]
      if (typeof part === 'object' && part !== null && part.type === type) return true
    } catch {}
  }
  return false
}

const NONE = Object.freeze([])

function slot(format, part, holder, key, idKey, failed = false) {
  return { format, part, holder, key, idKey, failed }
}

/**
 * Where one conversation message holds tool results: `{ format, part, holder, key, idKey,
 * failed }` each, where `part` is the index of the content part holding it (-1 for the
 * message itself), `holder` that part or the message, `key` the property holding the
 * payload, `idKey` the one holding the call id, and `failed` whether the message says it
 * failed (the payload may say so too: shapeOf's `failed`).
 */
function resultSlotsOf(message) {
  if (typeof message !== 'object' || message === null || isArray(message)) return NONE
  // Most messages are not tool results: the role alone tells, before anything else is read.
  const role = roleOf(message)
  if (role === 'assistant' || role === 'system' || role === 'developer') return NONE
  if (role === PI_RESULT_ROLE) {
    let failed = false
    try {
      failed = message.isError === true
    } catch {}
    return [slot('pi', -1, message, 'content', 'toolCallId', failed)]
  }
  if (role === 'user') {
    // Anthropic Messages: tool_result blocks in a user message.
    let content
    try {
      content = message.content
    } catch {}
    if (!isArray(content) || !hasTyped(content, 'tool_result')) return NONE
    const found = []
    forEachTyped(content, 'tool_result', (part, i) => {
      found.push(slot('anthropic', i, part, 'content', 'tool_use_id', read(part, 'is_error') === true))
    })
    return found
  }
  const type = read(message, 'type')
  if (role === 'tool') {
    const content = read(message, 'content')
    if (isArray(content) && hasTyped(content, 'tool-result')) {
      // Vercel AI SDK ModelMessage and LanguageModelV3 prompt: tool-result parts.
      const found = []
      forEachTyped(content, 'tool-result', (part, i) => {
        found.push(slot('ai-sdk', i, part, read(part, 'output') !== undefined ? 'output' : 'result', 'toolCallId'))
      })
      return found
    }
    // OpenAI Chat Completions (or a LangChain ToolMessage given a role).
    const langchain = isLangChainToolMessage(message, type)
    return [slot(langchain ? 'langchain' : 'openai-chat', -1, message, 'content', 'tool_call_id', langchain && isFailedMessage(message))]
  }
  if (type === 'function_call_output' || type === 'function_call_result') {
    // OpenAI Responses input item, OpenAI Agents SDK item.
    return [slot('openai-responses', -1, message, 'output', read(message, 'call_id') !== undefined ? 'call_id' : 'callId')]
  }
  if (role === undefined && isLangChainToolMessage(message, type)) {
    return [slot('langchain', -1, message, 'content', 'tool_call_id', isFailedMessage(message))]
  }
  return NONE
}

module.exports = {
  // Blocks
  typeOf,
  blockText,
  withBlockText,
  itemKind,
  blocksLength,
  // Copies
  lengthOf,
  copyList,
  withProperty,
  withChanges,
  withMessageKey,
  holdsOwn,
  // Shapes and the visitor
  shapeOf,
  extrasOf,
  withData,
  mapParts,
  mapBlocks,
  forEachPart,
  partsOf,
  // LangChain
  isFailedMessage,
  mapDirect,
  // Conversations
  roleOf,
  piResultOf,
  forEachTyped,
  resultSlotsOf,
}
