'use strict'

// classifyProviderError and isContextOverflowError: what a model provider's error says.
// JS gathers the texts, the HTTP status and the code an error carries, whatever its shape
// (a string, an Error and its `cause` chain, a pi-ai assistant message, an AI SDK
// APICallError, an AI SDK RetryError by its last error, an OpenAI or Anthropic SDK error, a
// plain `{ status, message }`); the Rust core (crates/toolclamp-core/src/overflow.rs) holds
// the rules and classifies. Nothing here throws: every property is read through a guard, and
// a revoked Proxy anywhere is skipped.

const native = require('../native.js')
const { isArray, readSafely } = require('../common/format.js')

// Bounds on what is gathered: a hostile or huge error must not make this slow.
const MAX_DEPTH = 8
const MAX_TEXT = 64 * 1024
// Keys whose string values are texts an error carries; objects under them are walked too.
const TEXT_KEYS = ['message', 'errorMessage', 'name', 'type', 'responseBody', 'body', 'detail', 'details', 'reason']
const NESTED_KEYS = ['error', 'data', 'cause', 'response', 'errors']

/**
 * The error a retry wrapper gave up on: an AI SDK `RetryError` (`lastError`, `errors`) is
 * classified by its last error alone, so a 529 on the first attempt and an overflow on
 * the last is an overflow. `undefined` when `value` wraps no retries.
 */
function lastRetried(value) {
  const read = (key) => readSafely(value, key, () => undefined)
  const last = read('lastError')
  if (last !== undefined && last !== null) return last
  const name = read('name')
  const errors = read('errors')
  if (typeof name !== 'string' || !/RetryError$/.test(name) || !isArray(errors)) return undefined
  const length = readSafely(errors, 'length', () => 0)
  return Number.isInteger(length) && length > 0 ? readSafely(errors, length - 1, () => undefined) : undefined
}

/** `{ texts, status, code }` of `error`, walked to MAX_DEPTH through its nested errors. */
function gather(error) {
  const found = { texts: [], length: 0, status: -1, code: '' }
  const seen = new Set()
  const addText = (text) => {
    if (found.length >= MAX_TEXT || text === '') return
    const part = text.slice(0, MAX_TEXT - found.length)
    found.texts.push(part)
    found.length += part.length
  }
  const walk = (value, depth) => {
    if (typeof value === 'string') return addText(value)
    if (typeof value !== 'object' || value === null || depth > MAX_DEPTH || seen.has(value)) return
    seen.add(value)
    // A revoked Proxy throws on every operation, `Array.isArray` included: it says nothing.
    try {
      walkObject(value, depth)
    } catch {
      // What was gathered before the throw stands.
    }
  }
  const walkObject = (value, depth) => {
    const retried = lastRetried(value)
    if (retried !== undefined) return walk(retried, depth + 1)
    const read = (key) => readSafely(value, key, () => undefined)
    for (const key of ['status', 'statusCode']) {
      const status = read(key)
      if (found.status === -1 && Number.isInteger(status) && status >= 100 && status <= 599) found.status = status
    }
    const code = read('code')
    if (typeof code === 'string' && found.code === '') found.code = code
    if (found.status === -1 && Number.isInteger(code) && code >= 100 && code <= 599) found.status = code
    for (const key of TEXT_KEYS) {
      const text = read(key)
      if (typeof text === 'string') addText(text)
      else if (typeof text === 'object') walk(text, depth + 1)
    }
    for (const key of NESTED_KEYS) {
      const nested = read(key)
      if (isArray(nested)) {
        const length = readSafely(nested, 'length', () => 0)
        for (let i = 0; i < Math.min(Number.isInteger(length) ? length : 0, 8); i++)
          walk(
            readSafely(nested, i, () => undefined),
            depth + 1,
          )
      } else {
        walk(nested, depth + 1)
      }
    }
  }
  walk(error, 0)
  return found
}

/**
 * What a provider's error says: `{ kind, provider?, limitTokens?, requestedTokens? }`, kind
 * one of 'context_overflow', 'payload_too_large', 'rate_limit', 'other'. Never throws.
 */
function classifyProviderError(error) {
  const { texts, status, code } = gather(error)
  const { kind, provider, limitTokens, requestedTokens } = native.classifyError(texts.join('\n'), status, code)
  const result = { kind }
  if (provider !== null) result.provider = provider
  if (limitTokens !== null) result.limitTokens = limitTokens
  if (requestedTokens !== null) result.requestedTokens = requestedTokens
  return result
}

/**
 * Whether the request was too long for the model: a context overflow, or a request body
 * over the provider's size limit (shrinking the conversation fixes both). Never a rate limit.
 */
function isContextOverflowError(error) {
  const { kind } = classifyProviderError(error)
  return kind === 'context_overflow' || kind === 'payload_too_large'
}

module.exports = { classifyProviderError, isContextOverflowError }
