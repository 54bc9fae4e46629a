// classifyProviderError and isContextOverflowError on errors as the SDKs throw them: the
// table of provider messages is tested in the core (overflow.rs); here, that the texts,
// status and code are found in every shape, and that nothing makes it throw.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'

import { classifyProviderError, isContextOverflowError } from '../index.mjs'

const OPENAI = "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens."
const ANTHROPIC = 'prompt is too long: 208310 tokens > 200000 maximum'

describe('classifyProviderError', () => {
  test('a string, an Error and its cause chain', () => {
    assert.deepEqual(classifyProviderError(ANTHROPIC), { kind: 'context_overflow', provider: 'anthropic', limitTokens: 200000, requestedTokens: 208310 })
    const wrapped = new Error('agent step failed', { cause: new Error('request failed', { cause: new Error(OPENAI) }) })
    assert.deepEqual(classifyProviderError(wrapped), { kind: 'context_overflow', provider: 'openai', limitTokens: 128000, requestedTokens: 130532 })
  })

  test('a pi-ai assistant message that ended in an error', () => {
    const message = { role: 'assistant', content: [], stopReason: 'error', errorMessage: `400 ${JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: ANTHROPIC } })}` }
    assert.equal(classifyProviderError(message).provider, 'anthropic')
    assert.equal(isContextOverflowError(message), true)
  })

  test("an AI SDK APICallError: statusCode and responseBody's error.code", () => {
    const error = Object.assign(new Error('Bad Request'), {
      name: 'AI_APICallError',
      statusCode: 400,
      responseBody: JSON.stringify({ error: { message: 'Invalid request', type: 'invalid_request_error', code: 'context_length_exceeded' } }),
    })
    assert.equal(classifyProviderError(error).kind, 'context_overflow')
  })

  test('OpenAI and Anthropic SDK errors: status, error, code', () => {
    const openai = Object.assign(new Error('400 Bad request'), { status: 400, code: 'context_length_exceeded', error: { message: 'Bad request' } })
    assert.equal(classifyProviderError(openai).kind, 'context_overflow')
    const anthropic = Object.assign(new Error('413'), { status: 413, error: { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum size' } } })
    assert.deepEqual(classifyProviderError(anthropic), { kind: 'payload_too_large', provider: 'anthropic' })
    assert.equal(isContextOverflowError(anthropic), true)
  })

  test('rate limits and quotas are never overflows, whatever the status', () => {
    const tpm = { status: 413, message: 'Request too large for model `llama-3.3-70b` on tokens per minute (TPM): Limit 6000, Requested 9000' }
    assert.deepEqual(classifyProviderError(tpm), { kind: 'rate_limit' })
    assert.equal(isContextOverflowError(tpm), false)
    assert.equal(classifyProviderError({ status: 429, message: 'slow down' }).kind, 'rate_limit')
    assert.equal(classifyProviderError(new Error('ThrottlingException: Too many tokens, please wait before trying again.')).kind, 'rate_limit')
    assert.equal(classifyProviderError({ error: { code: 'insufficient_quota', message: 'You exceeded your current quota' } }).kind, 'rate_limit')
  })

  test('other errors, and anything that is no error', () => {
    assert.deepEqual(classifyProviderError({ status: 401, message: 'invalid api key' }), { kind: 'other' })
    for (const value of [undefined, null, 42, true, Symbol('s'), () => 1, [], {}]) {
      assert.deepEqual(classifyProviderError(value), { kind: 'other' })
      assert.equal(isContextOverflowError(value), false)
    }
  })

  test('hostile errors: throwing getters, revoked proxies, cycles, huge messages', () => {
    const throwing = { get message() { throw new Error('no') }, status: 413 }
    assert.deepEqual(classifyProviderError(throwing), { kind: 'payload_too_large' })
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    assert.deepEqual(classifyProviderError(proxy), { kind: 'other' })
    const cyclic = new Error(ANTHROPIC)
    cyclic.cause = cyclic
    assert.equal(classifyProviderError(cyclic).kind, 'context_overflow')
    const huge = new Error('x'.repeat(10_000_000) + ANTHROPIC)
    assert.equal(classifyProviderError(huge).kind, 'other', 'only the first 64 KiB of text is read')
  })

  test('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true }), (value) => {
        const result = classifyProviderError(value)
        assert.ok(['context_overflow', 'payload_too_large', 'rate_limit', 'other'].includes(result.kind))
      }),
      { numRuns: Math.ceil(Number(process.env.FC_RUNS ?? 10_000) / 10) },
    )
  })
})
