// classifyProviderError and isContextOverflowError on errors as the SDKs throw them: the
// table of provider messages is tested in the core (overflow.rs); here, that the texts,
// status and code are found in every shape, and that nothing makes it throw.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'

import { classifyProviderError, isContextOverflowError } from '../conversation.mjs'

const OPENAI = "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens."
const ANTHROPIC = 'prompt is too long: 208310 tokens > 200000 maximum'

describe('classifyProviderError', () => {
  test('a string, an Error and its cause chain', () => {
    assert.deepEqual(classifyProviderError(ANTHROPIC), {
      kind: 'context_overflow',
      provider: 'anthropic',
      limitTokens: 200000,
      requestedTokens: 208310,
    })
    const wrapped = new Error('agent step failed', { cause: new Error('request failed', { cause: new Error(OPENAI) }) })
    assert.deepEqual(classifyProviderError(wrapped), {
      kind: 'context_overflow',
      provider: 'openai',
      limitTokens: 128000,
      requestedTokens: 130532,
    })
  })

  test('a pi-ai assistant message that ended in an error', () => {
    const message = {
      role: 'assistant',
      content: [],
      stopReason: 'error',
      errorMessage: `400 ${JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: ANTHROPIC } })}`,
    }
    assert.equal(classifyProviderError(message).provider, 'anthropic')
    assert.equal(isContextOverflowError(message), true)
  })

  test("an AI SDK APICallError: statusCode and responseBody's error.code", () => {
    const error = Object.assign(new Error('Bad Request'), {
      name: 'AI_APICallError',
      statusCode: 400,
      responseBody: JSON.stringify({
        error: { message: 'Invalid request', type: 'invalid_request_error', code: 'context_length_exceeded' },
      }),
    })
    assert.equal(classifyProviderError(error).kind, 'context_overflow')
  })

  test('OpenAI and Anthropic SDK errors: status, error, code', () => {
    const openai = Object.assign(new Error('400 Bad request'), {
      status: 400,
      code: 'context_length_exceeded',
      error: { message: 'Bad request' },
    })
    assert.equal(classifyProviderError(openai).kind, 'context_overflow')
    const anthropic = Object.assign(new Error('413'), {
      status: 413,
      error: { type: 'error', error: { type: 'request_too_large', message: 'Request exceeds the maximum size' } },
    })
    assert.deepEqual(classifyProviderError(anthropic), { kind: 'payload_too_large', provider: 'anthropic' })
    assert.equal(isContextOverflowError(anthropic), true)
  })

  test('rate limits and quotas are never overflows, whatever the status', () => {
    const tpm = {
      status: 413,
      message: 'Request too large for model `llama-3.3-70b` on tokens per minute (TPM): Limit 6000, Requested 9000',
    }
    assert.deepEqual(classifyProviderError(tpm), { kind: 'rate_limit' })
    assert.equal(isContextOverflowError(tpm), false)
    assert.equal(classifyProviderError({ status: 429, message: 'slow down' }).kind, 'rate_limit')
    assert.equal(
      classifyProviderError(new Error('ThrottlingException: Too many tokens, please wait before trying again.')).kind,
      'rate_limit',
    )
    assert.equal(
      classifyProviderError({ error: { code: 'insufficient_quota', message: 'You exceeded your current quota' } }).kind,
      'rate_limit',
    )
  })

  test('other errors, and anything that is no error', () => {
    assert.deepEqual(classifyProviderError({ status: 401, message: 'invalid api key' }), { kind: 'other' })
    for (const value of [undefined, null, 42, true, Symbol('s'), () => 1, [], {}]) {
      assert.deepEqual(classifyProviderError(value), { kind: 'other' })
      assert.equal(isContextOverflowError(value), false)
    }
  })

  test('hostile errors: throwing getters, revoked proxies, cycles, huge messages', () => {
    const throwing = {
      get message() {
        throw new Error('no')
      },
      status: 413,
    }
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

// Texts collected from providers' SDKs, servers, documentation and the issues where their
// users quoted them, each with its source: every one is classified as recorded.
const COLLECTED = JSON.parse(readFileSync(new URL('./fixtures/provider-errors.json', import.meta.url), 'utf8'))

describe('classifyProviderError on collected provider texts', () => {
  test('the collection: over 100 texts, every kind, each with a public source', () => {
    assert.ok(COLLECTED.length > 100)
    for (const kind of ['context_overflow', 'payload_too_large', 'rate_limit', 'other'])
      assert.ok(
        COLLECTED.some((c) => c.kind === kind),
        kind,
      )
    for (const { text, source } of COLLECTED) {
      const named =
        typeof source.url === 'string'
          ? /^https:\/\//.test(source.url)
          : /^[\w.-]+\/[\w.-]+$/.test(source.repo) && typeof source.path === 'string'
      assert.ok(named, text)
    }
  })

  test('each text gives its kind, and its limit and requested tokens where it states them', () => {
    const wrong = []
    for (const c of COLLECTED) {
      const error = { message: c.text, ...(c.status === undefined ? {} : { status: c.status }) }
      const got = classifyProviderError(error)
      const want = { kind: got.kind === c.kind ? c.kind : `${c.kind}`, limitTokens: c.limitTokens, requestedTokens: c.requestedTokens }
      const same =
        got.kind === c.kind &&
        (c.kind !== 'context_overflow' || (got.limitTokens === want.limitTokens && got.requestedTokens === want.requestedTokens))
      if (!same) wrong.push(`${JSON.stringify(got)} for ${c.kind}: ${c.text}`)
    }
    assert.deepEqual(wrong, [])
  })

  test("the issue's examples: overflows, rate limits, and a large completion that is neither", () => {
    const overflow = (text) => assert.equal(classifyProviderError(text).kind, 'context_overflow', text)
    overflow('Input tokens exceed the configured limit of 272000 tokens')
    overflow('input length and `max_tokens` exceed context limit: 190000 + 32000 > 200000')
    overflow('prompt token count of 140000 exceeds the limit of 128000')
    overflow('The number of tokens to keep from the initial prompt is greater than the context length')
    overflow('too many tokens: size limit exceeded by 1134 tokens')
    overflow("Requested token count exceeds the model's maximum context length")
    overflow('请求失败：超出最大上下文长度')
    assert.equal(classifyProviderError('Request payload size exceeds the limit: 20971520 bytes.').kind, 'payload_too_large')
    assert.equal(isContextOverflowError('Request payload size exceeds the limit: 20971520 bytes.'), true)
    assert.equal(classifyProviderError('Throttling error: Too many tokens, please wait before trying again.').kind, 'rate_limit')
    assert.equal(classifyProviderError({ status: 429, message: 'Resource exhausted. Please try again later.' }).kind, 'rate_limit')
    assert.equal(classifyProviderError('Resource exhausted').kind, 'rate_limit')
    assert.equal(
      classifyProviderError('max_tokens is too large: 100000. This model supports at most 16384 completion tokens').kind,
      'other',
    )
  })

  test('numbers are read where the text states them: "you requested" is the whole request', () => {
    const text =
      "This model's maximum context length is 4097 tokens, however you requested 10240 tokens (10000 in your prompt; 240 for the completion)."
    assert.deepEqual(classifyProviderError(text), {
      kind: 'context_overflow',
      provider: 'openai',
      limitTokens: 4097,
      requestedTokens: 10240,
    })
    const sum = classifyProviderError('input length and `max_tokens` exceed context limit: 190000 + 32000 > 200000')
    assert.deepEqual([sum.limitTokens, sum.requestedTokens], [200000, 222000])
  })
})

describe('classifyProviderError on retries and hostile errors', () => {
  const apiError = (statusCode, message) => Object.assign(new Error(message), { name: 'AI_APICallError', statusCode })
  const retryError = (errors) =>
    Object.assign(new Error(`Failed after ${errors.length} attempts. Last error: ${errors.at(-1).message}`), {
      name: 'AI_RetryError',
      reason: 'maxRetriesExceeded',
      errors,
      lastError: errors.at(-1),
    })

  test('an AI SDK RetryError is classified by its last error', () => {
    const overloaded = apiError(529, 'Overloaded')
    const tooLong = apiError(400, 'prompt is too long: 208310 tokens > 200000 maximum')
    assert.deepEqual(classifyProviderError(retryError([overloaded, tooLong])), {
      kind: 'context_overflow',
      provider: 'anthropic',
      limitTokens: 200000,
      requestedTokens: 208310,
    })
    assert.equal(isContextOverflowError(retryError([overloaded, tooLong])), true)
    assert.equal(classifyProviderError(retryError([tooLong, overloaded])).kind, 'rate_limit')
    // Without `lastError`, its `errors` array's last one; a message alone, from its "Last error:".
    const { lastError, ...rest } = retryError([overloaded, tooLong])
    assert.equal(
      classifyProviderError(Object.assign(new Error(rest.message), { name: rest.name, errors: rest.errors })).kind,
      'context_overflow',
    )
    assert.equal(
      classifyProviderError(new Error('Failed after 2 attempts. Last error: Overloaded. Last error: prompt is too long')).kind,
      'context_overflow',
    )
    assert.equal(lastError, tooLong)
  })

  test('a revoked Proxy anywhere in the chain never makes it throw', () => {
    const revoked = () => {
      const { proxy, revoke } = Proxy.revocable({}, {})
      revoke()
      return proxy
    }
    const tooLong = 'prompt is too long: 208310 tokens > 200000 maximum'
    const shapes = [
      revoked(),
      { message: tooLong, cause: revoked() },
      { message: tooLong, errors: [revoked(), revoked()] },
      { message: tooLong, error: revoked() },
      { message: tooLong, data: [revoked()] },
      Object.assign(new Error(tooLong), { name: 'AI_RetryError', errors: revoked() }),
      Object.assign(new Error('Failed'), { name: 'AI_RetryError', lastError: revoked() }),
      Object.assign(new Error('Failed'), { name: 'AI_RetryError', errors: [revoked()] }),
      new Error('outer', { cause: new Error('inner', { cause: revoked() }) }),
    ]
    for (const shape of shapes) {
      const result = classifyProviderError(shape)
      assert.ok(['context_overflow', 'other'].includes(result.kind))
      isContextOverflowError(shape)
    }
    assert.equal(classifyProviderError({ message: tooLong, cause: revoked() }).kind, 'context_overflow')
  })

  test('never throws on nested errors with revoked proxies and throwing getters anywhere', () => {
    const hostile = fc.oneof(
      fc.constant('revoked'),
      fc.constant('throws'),
      fc.constant('prompt is too long: 9 tokens > 8 maximum'),
      fc.constant('Overloaded'),
      fc.string(),
    )
    const build = (tree) => {
      if (tree === 'revoked') {
        const { proxy, revoke } = Proxy.revocable({}, {})
        revoke()
        return proxy
      }
      if (tree === 'throws')
        return Object.defineProperty({}, 'message', {
          get() {
            throw new Error('no')
          },
        })
      if (typeof tree === 'string') return tree
      const [key, children] = tree
      const built = children.map(build)
      if (key === 'errors') return Object.assign(new Error('retry'), { name: 'AI_RetryError', errors: built })
      if (key === 'array') return built
      return Object.assign(new Error('wrap'), { [key]: built[0] })
    }
    const tree = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        hostile,
        fc.tuple(
          fc.constantFrom('cause', 'error', 'lastError', 'errors', 'array', 'data'),
          fc.array(tie('node'), { minLength: 1, maxLength: 3 }),
        ),
      ),
    })).node
    fc.assert(
      fc.property(tree, (t) => {
        const result = classifyProviderError(build(t))
        assert.ok(['context_overflow', 'payload_too_large', 'rate_limit', 'other'].includes(result.kind))
      }),
      { numRuns: Math.max(50, Math.ceil(Number(process.env.FC_RUNS ?? 10_000) / 20)) },
    )
  })
})
