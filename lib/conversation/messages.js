'use strict'

// Tool results across a conversation: clampToolResultsInMessages keeps them within a share
// of the model's context window, and withContextOverflowRecovery retries a request the
// provider rejected as too long with the tool results cut tighter.
//
// This file takes the tool results from the message formats of the frameworks toolclamp
// serves (where each holds them, and what a model reads of them: lib/results/shapes.js)
// and puts the shortened ones back; the Rust core (budget.rs) decides which to cut and by
// how much, lib/results/payload.js cuts them.

const { invalid, mustBe } = require('../common/errors.js')
const { types } = require('node:util')

const native = require('../native.js')
const spills = require('../files/spill.js')
const notices = require('../common/notices.js')
const payloads = require('../results/payload.js')
const { stringifyAny, clampJsonText } = require('../json/json.js')
const { classifyProviderError } = require('./provider-errors.js')
const { isArray, read, textOf } = require('../common/format.js')
const { checkKeys, isPlainObject, readBudget, readOptionsObject, readSnap, readStrategy } = require('../common/options.js')
const { ESTIMATE, countWith, readTokenizer } = require('../tokens/tokenizers.js')

const { CONVERSATION_DEFAULTS, DEFAULT_TOOL_STRATEGY, DEFAULT_HEAD_RATIO } = require('../common/defaults.js')

const {
  blocksLength,
  copyList,
  forEachPart,
  forEachTyped,
  itemKind,
  lengthOf,
  resultSlotsOf,
  roleOf,
  shapeOf,
  typeOf,
  withMessageKey,
  withProperty,
} = require('../results/shapes.js')

const CLAMP_OPTIONS = [
  'contextWindowTokens',
  'resultShare',
  'aggregateShare',
  'minKeepChars',
  'protectRecent',
  'spill',
  'strategy',
  'snap',
  'tokenizer',
]
const RECOVERY_OPTIONS = ['messages', 'maxAttempts', ...CLAMP_OPTIONS]

const DEFAULTS = CONVERSATION_DEFAULTS

// ---------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------

function readShare(name, value, fallback) {
  if (value === undefined) return fallback
  if (typeof value !== 'number') throw mustBe(TypeError, `${name}`, `a number above 0 and at most 1`, value)
  if (!(value > 0 && value <= 1)) throw mustBe(RangeError, `${name}`, `a number above 0 and at most 1`, value)
  return value
}

function readCount(name, value, fallback) {
  if (value === undefined) return fallback
  const count = readBudget(name, value)
  if (count === Infinity) throw invalid(RangeError, `${name} must be a non-negative integer, got Infinity`)
  return count
}

/** `maxAttempts`: calls in all, the first included, a whole number from 1. */
function readMaxAttempts(value) {
  if (value === undefined) return DEFAULTS.maxAttempts
  if (!(Number.isSafeInteger(value) && value >= 1)) {
    const Type = typeof value === 'number' ? RangeError : TypeError
    throw mustBe(Type, `maxAttempts`, `an integer of at least 1`, value)
  }
  return value
}

/** The options of clampToolResultsInMessages, read once: budgets in tokens and how to cut. */
function readClampOptions(options) {
  if (!isPlainObject(options)) throw mustBe(TypeError, `options`, `an object with contextWindowTokens`, options)
  checkKeys(options, CLAMP_OPTIONS)
  const { contextWindowTokens, resultShare, aggregateShare, minKeepChars, protectRecent, spill, strategy, snap, tokenizer } = options
  if (contextWindowTokens === undefined) throw invalid(TypeError, 'contextWindowTokens is required')
  const window = contextWindowTokens
  if (typeof window !== 'number') throw mustBe(TypeError, `contextWindowTokens`, `a positive integer`, window)
  if (!(Number.isSafeInteger(window) && window > 0)) {
    throw mustBe(RangeError, `contextWindowTokens`, `a positive integer`, window)
  }
  const shares = {
    result: readShare('resultShare', resultShare, DEFAULTS.resultShare),
    aggregate: readShare('aggregateShare', aggregateShare, DEFAULTS.aggregateShare),
  }
  return {
    perResult: Math.floor(window * shares.result),
    aggregate: Math.floor(window * shares.aggregate),
    minKeepChars: readCount('minKeepChars', minKeepChars, DEFAULTS.minKeepChars),
    protectRecent: readCount('protectRecent', protectRecent, DEFAULTS.protectRecent),
    spill: spills.readSpill(spill, 'tool-result'),
    strategy: readStrategy(strategy, DEFAULT_TOOL_STRATEGY),
    // How a failed result is cut: as the tool layer cuts one, unless a strategy is given.
    failure: strategy === undefined ? payloads.FAILURE_DEFAULTS : undefined,
    snap: readSnap(snap, 'line'),
    // What counts every token above: the estimate, or an exact tokenizer.
    tokenizer: readTokenizer(tokenizer),
  }
}

// ---------------------------------------------------------------------------------------
// Finding tool results
// ---------------------------------------------------------------------------------------

function namedContent(message) {
  try {
    return message.content
  } catch {
    return undefined
  }
}

function namedToolCallId(message) {
  try {
    return message.toolCallId
  } catch {
    return undefined
  }
}

function namedToolName(message) {
  try {
    return message.toolName
  } catch {
    return undefined
  }
}

/**
 * The tool results in one message (at `index`), pushed onto `found`: `{ index, format, part, key, payload,
 * toolCallId, toolName, bound }` each, where `part` is the index of the content part holding
 * it (-1 for the message itself), `key` the property holding the payload, and `bound` its
 * tokens bounded by lengths (set by clampMessages). Where each format holds them is
 * shapes.js resultSlotsOf.
 */
function toolResultsOf(message, index, found) {
  const slots = resultSlotsOf(message)
  for (let k = 0; k < slots.length; k++) {
    const { format, part, holder, key, idKey, failed } = slots[k]
    const pi = format === 'pi'
    // pi's keys by name (their own inline caches), every other format's through read().
    const payload = pi ? namedContent(holder) : read(holder, key)
    if (payload === undefined) continue
    const id = pi ? namedToolCallId(holder) : read(holder, idKey)
    const name = (pi ? namedToolName(holder) : read(holder, 'toolName')) ?? read(holder, 'name')
    found.push({
      index,
      format,
      part,
      key,
      payload,
      toolCallId: typeof id === 'string' ? id : undefined,
      toolName: typeof name === 'string' ? name : undefined,
      // A result that says it failed keeps its end too, where the error usually is.
      // (Only an object that is no list can say so: shapeOf is not asked about others.)
      failed: failed || (typeof payload === 'object' && payload !== null && !isArray(payload) && shapeOf(payload).failed),
      bound: undefined,
    })
  }
}

// ---------------------------------------------------------------------------------------
// Measuring, cutting, eliding
// ---------------------------------------------------------------------------------------

/**
 * Names the results that carry no tool name (OpenAI, Anthropic, LangChain) after the call
 * they answer: OpenAI Chat and LangChain `tool_calls`, Responses `function_call` items,
 * Anthropic `tool_use` blocks. For the report and the spill files' names.
 */
function nameFromCalls(messages, found) {
  if (found.every((result) => result.toolName !== undefined || result.toolCallId === undefined)) return
  const names = new Map()
  const note = (id, name) => {
    if (typeof id === 'string' && typeof name === 'string') names.set(id, name)
  }
  for (let i = 0, n = lengthOf(messages); i < n; i++) {
    const message = read(messages, i)
    if (typeof message !== 'object' || message === null) continue
    if (read(message, 'type') === 'function_call') note(read(message, 'call_id'), read(message, 'name'))
    const calls = read(message, 'tool_calls')
    if (isArray(calls)) {
      for (let k = 0, m = lengthOf(calls); k < m; k++) {
        const call = read(calls, k)
        if (typeof call !== 'object' || call === null) continue
        const fn = read(call, 'function')
        note(read(call, 'id'), typeof fn === 'object' && fn !== null ? read(fn, 'name') : read(call, 'name'))
      }
    }
    if (roleOf(message) === 'assistant') {
      const content = read(message, 'content')
      if (isArray(content)) forEachTyped(content, 'tool_use', (block) => note(read(block, 'id'), read(block, 'name')))
    }
  }
  for (const result of found) {
    if (result.toolName === undefined && result.toolCallId !== undefined) result.toolName = names.get(result.toolCallId)
  }
}

/** `{ textTokens, textChars, textLines, fixedTokens }` of a payload, tokens by `tokenizer`. */
function sizeOf(payload, tokenizer = ESTIMATE) {
  const { text, media } = payloads.payloadSize(payload)
  return {
    textTokens: tokenizer === ESTIMATE ? native.tokensOfBytes(text.bytes) : payloads.tokensOfPayload(payload, tokenizer, Infinity),
    textChars: text.chars,
    textLines: text.lines,
    fixedTokens: media * native.MEDIA_TOKENS,
  }
}

/**
 * An upper bound of a payload's tokens read from lengths alone (a UTF-16 unit is at most 3
 * UTF-8 bytes, one estimated token; a media part MEDIA_TOKENS), or undefined when only
 * measuring tells (a part read as JSON). For an encoding, whose token is at least a byte,
 * a unit is at most 3 tokens (boundFor); a caller's counter has no bound.
 */
function boundFor(payload, tokenizer) {
  if (tokenizer === ESTIMATE) return boundOf(payload)
  if (tokenizer.count !== undefined) return undefined
  const bound = boundOf(payload)
  return bound === undefined ? undefined : bound * 3
}

function boundOf(payload) {
  if (typeof payload === 'string') return payload.length
  if (isArray(payload)) {
    const bound = blocksLength(payload, native.MEDIA_TOKENS)
    return Number.isNaN(bound) ? undefined : bound
  }
  let bound = 0
  forEachPart(payload, (kind, part) => {
    if (kind === 'media') bound += native.MEDIA_TOKENS
    else if (kind !== 'data') bound += part.length
    else bound = NaN
  })
  return Number.isNaN(bound) ? undefined : bound
}

/** The text a model would have read of a payload, as saved to a spill file: its parts, data as indented JSON. */
function fullTextOf(payload) {
  if (typeof payload === 'string') return payload
  const texts = []
  forEachPart(payload, (kind, part) => {
    if (kind === 'text' || kind === 'piece') texts.push(part)
    else if (kind === 'data') texts.push(jsonText(part))
  })
  return texts.join('\n')
}

function jsonText(value) {
  try {
    return JSON.stringify(value, null, 2) ?? ''
  } catch {
    return textOf(value)
  }
}

/** Blocks with their text replaced by one text block of `marker`; media kept, in place. */
function elideBlocks(blocks, marker, textBlock) {
  const kept = []
  let placed = false
  for (let i = 0, n = lengthOf(blocks); i < n; i++) {
    const item = read(blocks, i)
    const kind = itemKind(item)
    if (kind === 'media') {
      kept.push(item)
    } else if (kind !== 'skip') {
      if (!placed) kept.push(textBlock(marker))
      placed = true
    }
  }
  if (!placed) kept.unshift(textBlock(marker))
  return kept
}

/** The payload with its text replaced by `marker`, in the payload's own shape; media kept. */
function elide(payload, marker) {
  if (typeof payload === 'string' || !(typeof payload === 'object' && payload !== null)) return marker
  if (isArray(payload)) {
    const first = typeOf(read(payload, 0))
    // A text part as this list writes them: OpenAI Responses input_text, else { type: 'text' }.
    const textType = first === 'input_text' || first === 'output_text' ? first : 'text'
    return elideBlocks(payload, marker, (text) => ({ type: textType, text }))
  }
  const type = typeOf(payload)
  if (type === 'content' && isArray(read(payload, 'value'))) {
    return withProperty(
      payload,
      'value',
      elideBlocks(read(payload, 'value'), marker, (text) => ({ type: 'text', text })),
    )
  }
  // An AI SDK output: an error stays an error.
  if (type === 'error-text' || type === 'error-json') return { type: 'error-text', value: marker }
  if (type === 'text' || type === 'json') return { type: 'text', value: marker }
  return marker
}

/**
 * A tool result that is JSON text (what OpenAI Agents and LangChain send for an object a
 * tool returned), cut as JSON so it still parses: the JSON clamp's in-band markers say what
 * was left out. Undefined for anything else, which is cut as text.
 */
function clampJsonString(payload, options, tokens) {
  if (typeof payload !== 'string' || !/^\s*[[{]/.test(payload.slice(0, 64))) return undefined
  const strategy = options.strategy === 'auto' ? 'head' : options.strategy
  const { tokenizer } = options
  const budget =
    tokenizer === ESTIMATE
      ? { maxBytes: tokens * native.BYTES_PER_TOKEN }
      : { maxBytes: Infinity, maxTokens: tokens, tokenizer: tokenizer.count ?? tokenizer.name }
  let clamped
  try {
    clamped = clampJsonText(payload, { ...budget, maxLines: Infinity, strategy })
  } catch {
    return undefined // No JSON form fits a budget this small: cut as text.
  }
  return clamped.json ? clamped.text : undefined
}

/**
 * Payload limits that cut a result's text to `tokens` tokens of the options' tokenizer. A
 * failed result, unless a strategy was given, is cut as the tool layer cuts failures: both
 * ends kept.
 */
function cutLimits(options, tokens, notice, failed) {
  const exact = options.tokenizer !== ESTIMATE
  const limits = Object.freeze({
    responseFormat: 'content',
    snap: options.snap,
    maxChars: Infinity,
    maxBytes: exact ? Infinity : tokens * native.BYTES_PER_TOKEN,
    maxLines: Infinity,
    strategy: options.strategy,
    headRatio: DEFAULT_HEAD_RATIO,
    notice,
    spill: undefined,
    failure: options.failure,
    tokens: exact ? { max: tokens, tokenizer: options.tokenizer } : undefined,
  })
  return failed ? payloads.forFailure(limits) : limits
}

// ---------------------------------------------------------------------------------------
// The clamp
// ---------------------------------------------------------------------------------------

/** The messages with each changed tool result put back, copying only what changed. */
function rebuild(messages, found, changes) {
  const result = copyList(messages)
  const byMessage = new Map()
  for (let k = 0; k < found.length; k++) {
    if (changes[k] === undefined) continue
    const at = found[k].index
    if (!byMessage.has(at)) byMessage.set(at, [])
    byMessage.get(at).push(k)
  }
  for (const [at, ks] of byMessage) {
    const message = read(messages, at)
    let parts
    let next = message
    for (const k of ks) {
      const { part, key } = found[k]
      if (part === -1) {
        next = withMessageKey(next, key, changes[k])
      } else {
        parts ??= copyList(read(message, 'content'))
        parts[part] = withProperty(parts[part], key, changes[k])
      }
    }
    if (parts !== undefined) next = withMessageKey(next, 'content', parts)
    result[at] = next
  }
  return result
}

/**
 * The clamp with options already read; `perResult` and `aggregate` in tokens. With `exact`,
 * tokens are measured even when lengths alone show that everything fits.
 */
function clampMessages(messages, options, perResult = options.perResult, aggregate = options.aggregate, exact = false) {
  if (!isArray(messages)) throw mustBe(TypeError, `messages`, `an array`, messages)
  const found = []
  for (let i = 0, n = lengthOf(messages); i < n; i++) {
    let message
    try {
      // A named index read, not read(): its own inline cache, on every message.
      message = messages[i]
    } catch {}
    toolResultsOf(message, i, found)
  }
  // Most conversations fit: proven from lengths alone, without measuring.
  let bound = 0
  for (const result of found) {
    const b = (result.bound = boundFor(result.payload, options.tokenizer))
    if (b === undefined || b > perResult || (bound += b) > aggregate) {
      bound = undefined
      break
    }
  }
  if (bound !== undefined && !exact) return unchanged(messages, found)
  nameFromCalls(messages, found)
  const { tokenizer } = options
  const sizes = found.map(({ payload }) => sizeOf(payload, tokenizer))
  // Markers sized with a spill path of the length the real one will have (it is named by
  // the content, hashed only for the results that are cut).
  const markerTokens = sizes.map((size, k) => {
    const path = options.spill === undefined ? null : spills.contentSpillPath(nameFor(options.spill, found[k].toolName))
    return markerTokensOf(native.elisionMarker(size.textChars, size.textLines, size.textTokens, path), tokenizer)
  })
  const plan = native.planBudget(
    sizes.map((size, k) => ({ ...size, markerTokens: markerTokens[k] })),
    perResult,
    aggregate,
    options.minKeepChars,
    options.protectRecent,
  )
  const changes = new Array(found.length)
  const results = found.map((result, k) => {
    const { action, tokens } = plan.actions[k]
    const report = keptReport(result, sizes[k].textTokens + sizes[k].fixedTokens)
    if (action === 'keep') return report
    // The original is saved before anything that names it is written.
    let path = null
    if (options.spill !== undefined) {
      const text = fullTextOf(result.payload)
      const saved = spills.writeSpillOnce(spills.contentSpillPath(nameFor(options.spill, result.toolName), text), text)
      path = saved.path
      if (saved.error !== undefined) report.spillError = saved.error
      if (path !== null) report.spillPath = path
    }
    let next
    if (action === 'elide') {
      const { textChars, textLines, textTokens } = sizes[k]
      next = elide(result.payload, native.elisionMarker(textChars, textLines, textTokens, path).text)
      report.action = 'elided'
    } else {
      const notice = path === null ? undefined : notices.templateWithPath(notices.CONTEXT_CUT_NOTICE, path)
      next =
        clampJsonString(result.payload, options, tokens) ??
        payloads.clampPayload(result.payload, cutLimits(options, tokens, notice, result.failed))
      report.action = 'clamped'
    }
    if (next === result.payload) {
      report.action = 'kept'
      return report
    }
    changes[k] = next
    const after = sizeOf(next, tokenizer)
    report.tokensAfter = after.textTokens + after.fixedTokens
    return report
  })
  const changed = changes.some((c) => c !== undefined)
  const tokensBefore = results.reduce((sum, r) => sum + r.tokensBefore, 0)
  const tokensAfter = results.reduce((sum, r) => sum + r.tokensAfter, 0)
  return {
    messages: changed ? rebuild(messages, found, changes) : messages,
    changed,
    savedTokens: tokensBefore - tokensAfter,
    tokensBefore,
    tokensAfter,
    fits: tokensAfter <= aggregate && results.every((r) => r.tokensAfter <= perResult),
    exact: true,
    results,
  }
}

/** The tokens of an elision marker (`{ text, tokens }` of native.elisionMarker, `tokens` estimated). */
function markerTokensOf(marker, tokenizer) {
  return tokenizer === ESTIMATE ? marker.tokens : countWith(tokenizer, marker.text)
}

/** The report of a result left as it is, of `tokens` tokens. */
function keptReport(result, tokens) {
  return {
    messageIndex: result.index,
    partIndex: result.part === -1 ? undefined : result.part,
    format: result.format,
    toolCallId: result.toolCallId,
    toolName: result.toolName,
    action: 'kept',
    tokensBefore: tokens,
    tokensAfter: tokens,
  }
}

function nameFor(spill, toolName) {
  return toolName === undefined || spill.name !== 'tool-result' ? spill : { ...spill, name: toolName }
}

/**
 * The answer for messages whose tool results fit by their lengths. Nothing was measured:
 * the token counts are those bounds (`exact: false`), at least the estimate.
 */
function unchanged(messages, found) {
  const results = new Array(found.length)
  let tokens = 0
  for (let k = 0; k < found.length; k++) {
    results[k] = keptReport(found[k], found[k].bound)
    tokens += found[k].bound
  }
  return { messages, changed: false, savedTokens: 0, tokensBefore: tokens, tokensAfter: tokens, fits: true, exact: false, results }
}

/**
 * The tokens of a text or a value, by the estimate (see budget.rs) or the tokenizer the
 * options name: a string or bytes as their text; any other value as clampPayload reads it,
 * text as it is, data as its compact JSON, each media part (an image, audio, a file) as
 * `MEDIA_TOKENS`; a message or a conversation as what each message says, and the rest of
 * it (role, ids, tool-call arguments) as JSON.
 */
function estimateTokens(value, options) {
  const given = readOptionsObject(options, ESTIMATE_OPTIONS, true)
  return tokensOf(value, readTokenizer(given.tokenizer))
}

const ESTIMATE_OPTIONS = ['tokenizer']

function tokensOf(value, tokenizer) {
  if (typeof value === 'string') return textTokens(value, tokenizer)
  if (types.isUint8Array(value)) {
    if (tokenizer === ESTIMATE) return native.tokensOfBytes(native.byteLengthOf.call(value))
    return countWith(tokenizer, native.bufferView(value).toString('utf8'))
  }
  if (isArray(value) && isConversation(value)) {
    let tokens = 0
    for (let i = 0, n = lengthOf(value); i < n; i++) tokens += messageTokens(read(value, i), tokenizer)
    return tokens
  }
  if (isMessage(value)) return messageTokens(value, tokenizer)
  const size = sizeOf(value, tokenizer)
  return size.textTokens + size.fixedTokens
}

function textTokens(text, tokenizer) {
  if (text.length === 0) return 0
  return tokenizer === ESTIMATE ? native.measureTokens(text).tokens : countWith(tokenizer, text)
}

// The keys where a message of the formats above holds what it says.
const MESSAGE_BODIES = ['content', 'output']

/** A message of a conversation: an object with a string `role`, or a Responses item. */
function isMessage(value) {
  if (typeof value !== 'object' || value === null || isArray(value)) return false
  const role = roleOf(value)
  if (typeof role === 'string') return true
  const type = read(value, 'type')
  return type === 'message' || type === 'function_call' || type === 'function_call_output' || type === 'reasoning'
}

/** Whether a list is a conversation (its first item a message), not data. */
function isConversation(list) {
  return lengthOf(list) > 0 && isMessage(read(list, 0))
}

/**
 * A message's tokens: what it says (`content` or `output`) as clampPayload reads it, media
 * as MEDIA_TOKENS wherever it sits, and the rest (role, ids, tool-call arguments) as JSON.
 */
function messageTokens(message, tokenizer) {
  if (!isMessage(message)) return typeof message === 'string' ? textTokens(message, tokenizer) : sizeOf(message, tokenizer).textTokens
  let tokens = 0
  let rest = message
  for (const key of MESSAGE_BODIES) {
    const body = read(message, key)
    if (body === undefined || body === null) continue
    const size = sizeOf(body, tokenizer)
    tokens += size.textTokens + size.fixedTokens
    rest = withProperty(rest, key, null)
  }
  return tokens + textTokens(stringifyAny(rest).text ?? '', tokenizer)
}

/**
 * Keeps the tool results of a conversation within a share of the context window: each
 * within `resultShare`, all together within `aggregateShare`, the oldest cut first.
 * Returns `{ messages, changed, savedTokens, tokensBefore, tokensAfter, fits, exact, results }`;
 * `messages` is the very array given when nothing changed. Never mutates. `exact` is false
 * when lengths alone proved that everything fits: then nothing was measured, and the token
 * counts are upper bounds (a UTF-16 unit a token).
 */
function clampToolResultsInMessages(messages, options) {
  return clampMessages(messages, readClampOptions(options))
}

// ---------------------------------------------------------------------------------------
// Recovery
// ---------------------------------------------------------------------------------------

/**
 * The tool-result budget for the next attempt after the provider said the request it got
 * was too long, from the estimated tokens of the tool results sent (`tokensSent`):
 * - the excess the error states, taken off the tool results with a quarter more (for the
 *   difference between the estimate and the provider's tokenizer) and 2% of the window
 *   for the answer;
 * - when that excess is more than all the tool results (a provider that counts denser
 *   than the estimate: CJK, emoji), the tool results scaled by limit / requested, less 2%;
 * - halved when the error states no numbers.
 */
function tighterBudget(tokensSent, classification) {
  const { limitTokens, requestedTokens } = classification
  if (!(limitTokens > 0 && requestedTokens > limitTokens)) return Math.floor(tokensSent / 2)
  const left = tokensSent - Math.ceil((requestedTokens - limitTokens) * 1.25 + limitTokens * 0.02)
  if (left > 0) return left
  return Math.floor(((tokensSent * limitTokens) / requestedTokens) * 0.98)
}

/**
 * Calls `send(messages)`; when the provider answers that the request is too long, cuts the
 * tool results tighter and sends again, at most `maxAttempts` calls in all. A rate limit or
 * any other error is thrown as it came. Resolves to `{ result, messages, attempts }`:
 * the messages of the call that succeeded and what each attempt did.
 */
async function withContextOverflowRecovery(send, options) {
  if (typeof send !== 'function') throw mustBe(TypeError, `send`, `a function`, send)
  if (!isPlainObject(options)) throw mustBe(TypeError, `options`, `an object with messages and contextWindowTokens`, options)
  checkKeys(options, RECOVERY_OPTIONS)
  const { messages, maxAttempts: attemptsGiven, ...clampGiven } = options
  if (!isArray(messages)) throw mustBe(TypeError, `messages`, `an array`, messages)
  const maxAttempts = readMaxAttempts(attemptsGiven)
  const clampOptions = readClampOptions(clampGiven)
  const attempts = []
  let current = messages
  let perResult = clampOptions.perResult
  let aggregate = clampOptions.aggregate
  // Estimated tokens of the tool results in the messages sent last.
  let tokensSent
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await send(current)
      attempts.push({ attempt, error: null })
      return { result, messages: current, attempts }
    } catch (error) {
      const classification = classifyProviderError(error)
      const overflow = classification.kind === 'context_overflow' || classification.kind === 'payload_too_large'
      attempts.push({ attempt, error: classification })
      if (!overflow || attempt >= maxAttempts) throw error
      tokensSent ??= clampMessages(messages, clampOptions, Infinity, Infinity, true).tokensAfter
      // The shares first, then tighter by what the provider said was over.
      aggregate = Math.min(aggregate, tighterBudget(tokensSent, classification))
      perResult = Math.min(perResult, aggregate)
      // Cut from the original messages each time, so notices never stack.
      const clamped = clampMessages(messages, clampOptions, perResult, aggregate, true)
      // Nothing more to cut: another call would fail the same way.
      if (clamped.tokensAfter >= tokensSent) throw error
      attempts[attempts.length - 1].savedTokens = clamped.savedTokens
      tokensSent = clamped.tokensAfter
      current = clamped.messages
    }
  }
}

module.exports = {
  estimateTokens,
  clampToolResultsInMessages,
  withContextOverflowRecovery,
  // For the framework adapters, not the public API (index.js lists that).
  readClampOptions,
  readMaxAttempts,
  clampMessages,
  tighterBudget,
  CLAMP_OPTIONS,
}
