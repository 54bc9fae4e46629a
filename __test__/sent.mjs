// What a framework sends a model of a tool result, as toolclamp's budgets count it: the one
// definition the payload tests measure with. Written from the contract in docs/tool-results.md ("Tool
// results"), not from lib/results/shapes.js or payload.js.
//
// - A string: itself. A number, boolean or BigInt: its JSON (they are sent, though there is
//   nothing to cut); undefined, a function or a symbol: nothing.
// - Content blocks (an array holding a text or media block, or empty): the text of the text
//   blocks as ONE text (their budget is shared as if concatenated), plus each data item among
//   them on its own (a string as it is, a record as its compact JSON). Media blocks, and
//   malformed items (null, numbers, booleans, a text block without text), are not sent as text.
// - Any other array or object: its compact JSON.
// - `{ content, structuredContent?, ...rest }`: `content` as above, structuredContent's JSON,
//   and the JSON of every other enumerable key but `details` (the AI SDK and the OpenAI Agents
//   SDK send the whole object; pi never sends `details`, bounded on its own: DETAILS_MAX_BYTES).
// - AI SDK outputs: a 'text' value as it is, a 'json' value as JSON, 'content' parts as blocks.
//   OpenAI output items: their `output`.
// - LangChain: with responseFormat 'content_and_artifact' the content of the tuple; a
//   ToolMessage its content; a LangGraph Command the content of each ToolMessage its update
//   writes to `messages` (an object's `messages`, a `['messages', ...]` tuple, a root list).
import assert from 'node:assert/strict'

import { measure } from './reference.mjs'

export const DETAILS_MAX_BYTES = 8192
const DEFAULTS = { maxChars: Infinity, maxBytes: 51_200, maxLines: 2_000 }

const TEXT_TYPES = ['text', 'input_text', 'output_text']
const MEDIA_TYPES = [
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
  'input_image',
  'input_file',
  'input_audio',
  'image_url',
]
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

const isObject = (v) => typeof v === 'object' && v !== null
const json = (v) => JSON.stringify(v)

/** The text of a text block (or an embedded resource's), else undefined. */
export function blockText(item) {
  if (!isObject(item)) return undefined
  if (TEXT_TYPES.includes(item.type)) return typeof item.text === 'string' ? item.text : undefined
  if (item.type === 'resource' && isObject(item.resource) && typeof item.resource.text === 'string') return item.resource.text
  return undefined
}

/** A block: a text block (even a malformed one) or a media block holding its media. */
function isBlock(item) {
  if (!isObject(item)) return false
  if (TEXT_TYPES.includes(item.type) || (item.type === 'resource' && blockText(item) !== undefined)) return true
  return MEDIA_TYPES.includes(item.type) && MEDIA_KEYS.some((key) => key in item)
}

export const isBlockList = (list) => list.length === 0 || list.some(isBlock)

/**
 * What a model may read of `value`: `{ texts, pieces }`, where `texts` are block texts (one
 * budget, concatenated) and `pieces` every other text, each measured on its own.
 */
export function sentParts(value, { responseFormat } = {}) {
  const parts = { texts: [], pieces: [] }
  if (responseFormat === 'content_and_artifact' && Array.isArray(value) && value.length === 2) add(parts, value[0])
  else add(parts, value)
  return parts
}

function add(parts, value) {
  if (typeof value === 'string') parts.pieces.push(value)
  else if (typeof value === 'bigint') parts.pieces.push(String(value))
  else if (typeof value === 'number' || typeof value === 'boolean') parts.pieces.push(json(value))
  else if (Array.isArray(value)) {
    if (!isBlockList(value)) return void parts.pieces.push(json(value))
    for (const item of value) {
      const text = blockText(item)
      if (text !== undefined) parts.texts.push(text)
      else if (typeof item === 'string') parts.pieces.push(item)
      else if (isObject(item) && !isBlock(item)) parts.pieces.push(json(item))
    }
  } else if (isObject(value)) addObject(parts, value)
}

function addObject(parts, value) {
  if (value.lc_direct_tool_output === true) {
    if (typeof value.tool_call_id === 'string') return add(parts, value.content)
    for (const message of commandMessages(value.update)) add(parts, message.content)
    return
  }
  if (Array.isArray(value.content) || value.structuredContent !== undefined) {
    if (value.content !== undefined) add(parts, value.content)
    if (value.structuredContent !== undefined) parts.pieces.push(json(value.structuredContent))
    const rest = Object.fromEntries(Object.entries(value).filter(([key]) => !['content', 'structuredContent', 'details'].includes(key)))
    if (Object.keys(rest).length > 0) parts.pieces.push(json(rest))
    return
  }
  const { type } = value
  if (type === 'function_call_output' || type === 'function_call_result') return add(parts, value.output)
  if ((type === 'text' || type === 'error-text') && typeof value.value === 'string') return void parts.pieces.push(value.value)
  if ((type === 'json' || type === 'error-json') && value.value !== undefined) return void parts.pieces.push(json(value.value))
  if (type === 'content' && Array.isArray(value.value)) return add(parts, value.value)
  if (blockText(value) !== undefined) return void parts.texts.push(blockText(value))
  if (isBlock(value)) return
  const text = json(value)
  if (text !== undefined) parts.pieces.push(text)
}

const isToolMessage = (v) => isObject(v) && typeof v.tool_call_id === 'string'
const messagesIn = (v) => (isToolMessage(v) ? [v] : Array.isArray(v) ? v.filter(isToolMessage) : [])

/** The ToolMessages a LangGraph Command's update writes to `messages`. */
function commandMessages(update) {
  if (!isObject(update)) return []
  if (!Array.isArray(update)) return messagesIn(update.messages)
  const tuples = update.every((t) => Array.isArray(t) && t.length === 2 && typeof t[0] === 'string')
  if (!tuples) return messagesIn(update)
  return update.filter(([key]) => key === 'messages').flatMap(([, messages]) => messagesIn(messages))
}

/** The size of what a model may read of `value`: the concatenated block text and each piece. */
export function sentSize(value, options) {
  // Each ToolMessage of a LangGraph Command is a message of its own: its block texts are one
  // text, which does not run on into the next message's.
  if (isObject(value) && value.lc_direct_tool_output === true && typeof value.tool_call_id !== 'string') {
    return commandMessages(value.update)
      .map((message) => sentSize(message.content))
      .reduce((a, m) => ({ chars: a.chars + m.chars, bytes: a.bytes + m.bytes, lines: a.lines + m.lines }), {
        chars: 0,
        bytes: 0,
        lines: 0,
      })
  }
  const { texts, pieces } = sentParts(value, options)
  const all = [texts.join(''), ...pieces].map((s) => measure(s))
  return all.reduce((a, m) => ({ chars: a.chars + m.chars, bytes: a.bytes + m.bytes, lines: a.lines + m.lines }), {
    chars: 0,
    bytes: 0,
    lines: 0,
  })
}

/** The budgets `limits` give a payload clamp: each not given keeps its default. */
export function payloadBudget(limits = {}) {
  const budget = { ...DEFAULTS }
  for (const key of Object.keys(DEFAULTS)) if (limits[key] !== undefined) budget[key] = limits[key]
  return budget
}

export function fitsBudget(size, budget) {
  return size.chars <= budget.maxChars && size.bytes <= budget.maxBytes && size.lines <= budget.maxLines
}

/**
 * Asserts that what a model may read of `value` is within the payload budget of `limits`,
 * and that a `details` value is within DETAILS_MAX_BYTES. Returns the size.
 */
export function assertSentWithin(value, limits = {}, what = '') {
  const size = sentSize(value, limits)
  const budget = payloadBudget(limits)
  assert.ok(size.chars <= budget.maxChars, `${what}${size.chars} chars > ${budget.maxChars}`)
  assert.ok(size.bytes <= budget.maxBytes, `${what}${size.bytes} bytes > ${budget.maxBytes}`)
  assert.ok(size.lines <= budget.maxLines, `${what}${size.lines} lines > ${budget.maxLines}`)
  if (isObject(value) && !Array.isArray(value) && value.details !== undefined) {
    const details = Buffer.byteLength(json(value.details) ?? '')
    assert.ok(details <= DETAILS_MAX_BYTES, `${what}details: ${details} bytes`)
  }
  return size
}
