// withContextOverflowRecovery around the message arrays of the provider SDKs themselves, with
// a fake `send` in place of the HTTP call: OpenAI Chat Completions, OpenAI Responses and
// Anthropic Messages. The fake provider counts a token per 4 characters of every text in the
// request and throws the error its SDK throws for a request over the window (built with the
// SDK's own error classes, as they are when the API answers 400 or 429).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'

import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'

import { withContextOverflowRecovery } from '../../conversation.mjs'
import { deepFreeze } from '../helpers.mjs'

const WINDOW = 16_000
const CHARS_PER_TOKEN = 4
const headers = new Headers({ 'content-type': 'application/json' })

function buildLog(targetChars) {
  const lines = []
  let chars = 0
  for (let i = 0; chars < targetChars; i++) {
    const line = `${new Date(Date.UTC(2024, 4, 1, 12, 0, 0, i * 7)).toISOString()} ERROR [pool-${i % 4}] connection reset by peer (attempt ${i % 5}) — café ☕\n`
    lines.push(line)
    chars += line.length
  }
  return lines.join('')
}

const LOG = buildLog(240_000)

/** Every string in a request, summed: what the fake provider tokenizes. */
function textLength(value) {
  if (typeof value === 'string') return value.length
  if (Array.isArray(value)) return value.reduce((sum, item) => sum + textLength(item), 0)
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).reduce((sum, [key, item]) => sum + (key === 'type' || key === 'role' ? 0 : textLength(item)), 0)
  }
  return 0
}
const tokensOf = (request) => Math.ceil(textLength(request) / CHARS_PER_TOKEN)

const openAIChatOverflow = (tokens) =>
  OpenAI.APIError.generate(
    400,
    {
      error: {
        message: `This model's maximum context length is ${WINDOW} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
    undefined,
    headers,
  )

const openAIResponsesOverflow = () =>
  OpenAI.APIError.generate(
    400,
    {
      error: {
        message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
        type: 'invalid_request_error',
        param: 'input',
        code: 'context_length_exceeded',
      },
    },
    undefined,
    headers,
  )

const anthropicOverflow = (tokens) =>
  Anthropic.APIError.generate(
    400,
    {
      type: 'error',
      error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${WINDOW} maximum` },
      request_id: 'req_011CTest',
    },
    undefined,
    headers,
  )

const openAIRateLimit = () =>
  OpenAI.APIError.generate(
    429,
    {
      error: {
        message: 'Rate limit reached for gpt-4.1 on tokens per min (TPM): Limit 30000, Used 29000, Requested 9000.',
        type: 'tokens',
        code: 'rate_limit_exceeded',
      },
    },
    undefined,
    headers,
  )

/** A fake API call: records each request, throws `refuse(request, tokens)` if it says so, else answers. */
function fakeSend(refuse) {
  const requests = []
  const send = async (messages) => {
    const tokens = tokensOf(messages)
    requests.push({ messages, tokens })
    const error = refuse(messages, tokens)
    if (error) throw error
    return { id: `resp_${requests.length}`, text: 'The pool is resetting connections.' }
  }
  return { send, requests }
}

const overWindow = (overflow) => (messages, tokens) => (tokens > WINDOW ? overflow(tokens) : undefined)

const SHAPES = [
  {
    name: 'OpenAI Chat Completions',
    overflow: openAIChatOverflow,
    messages: () => [
      { role: 'system', content: 'You are an on-call assistant.' },
      { role: 'user', content: 'Why are checkout requests failing?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'read_logs', arguments: '{"service":"db"}' } },
          { id: 'call_b', type: 'function', function: { name: 'read_logs', arguments: '{"service":"pool"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: LOG },
      { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: LOG }] },
    ],
    toolText: (message) =>
      message.role !== 'tool'
        ? undefined
        : typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => part.text).join(''),
    ids: (messages) => messages.filter((message) => message.role === 'tool').map((message) => message.tool_call_id),
  },
  {
    name: 'OpenAI Responses',
    overflow: openAIResponsesOverflow,
    messages: () => [
      { role: 'developer', content: 'You are an on-call assistant.' },
      { role: 'user', content: [{ type: 'input_text', text: 'Why are checkout requests failing?' }] },
      { type: 'function_call', call_id: 'call_a', name: 'read_logs', arguments: '{"service":"db"}' },
      { type: 'function_call_output', call_id: 'call_a', output: LOG },
    ],
    toolText: (message) => (message.type === 'function_call_output' ? message.output : undefined),
    ids: (messages) => messages.filter((message) => message.type === 'function_call_output').map((message) => message.call_id),
  },
  {
    name: 'Anthropic Messages',
    overflow: anthropicOverflow,
    messages: () => [
      { role: 'user', content: 'Why are checkout requests failing?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading both logs.' },
          { type: 'tool_use', id: 'toolu_a', name: 'read_logs', input: { service: 'db' } },
          { type: 'tool_use', id: 'toolu_b', name: 'read_logs', input: { service: 'pool' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: LOG },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: [{ type: 'text', text: LOG }] },
          { type: 'text', text: 'Also check the pool settings.' },
        ],
      },
    ],
    toolText: (message) => {
      if (message.role !== 'user' || typeof message.content === 'string') return undefined
      const results = message.content.filter((part) => part.type === 'tool_result')
      if (results.length === 0) return undefined
      return results
        .map((part) => (typeof part.content === 'string' ? part.content : part.content.map((block) => block.text).join('')))
        .join('')
    },
    ids: (messages) =>
      messages
        .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
        .filter((part) => part.type === 'tool_result')
        .map((part) => part.tool_use_id),
  },
]

for (const shape of SHAPES) {
  describe(`withContextOverflowRecovery: ${shape.name}`, () => {
    test('control: the request with the whole logs is refused', async () => {
      const { send, requests } = fakeSend(overWindow(shape.overflow))
      await assert.rejects(send(shape.messages()), (error) => error.status === 400 && /context|too long/.test(error.message))
      assert.ok(requests[0].tokens > 3 * WINDOW)
    })

    test('the refused request is sent again with the tool results cut, and gets through', async () => {
      const messages = deepFreeze(shape.messages())
      const { send, requests } = fakeSend(overWindow(shape.overflow))
      const { result, messages: sent, attempts } = await withContextOverflowRecovery(send, { messages, contextWindowTokens: WINDOW })

      assert.equal(result.id, `resp_${requests.length}`)
      assert.equal(requests.length, 2)
      assert.equal(attempts.length, 2)
      assert.equal(requests[0].messages, messages, 'the first call is the request as given')
      assert.equal(requests[1].messages, sent)
      assert.ok(requests[1].tokens <= WINDOW, `${requests[1].tokens} tokens`)

      // Same messages in the same order, the same tool call ids; every other message the same object.
      assert.equal(sent.length, messages.length)
      assert.deepEqual(shape.ids(sent), shape.ids(messages))
      for (const [i, message] of messages.entries()) {
        const before = shape.toolText(message)
        if (before === undefined) {
          assert.equal(sent[i], message)
        } else {
          const after = shape.toolText(sent[i])
          assert.ok(after.length < before.length / 4, `message ${i}: ${after.length} chars`)
          assert.ok(LOG.startsWith(after.slice(0, 200)), `message ${i} keeps the head of the log`)
        }
      }
      // The Anthropic user message keeps its text block after the tool results.
      if (shape.name === 'Anthropic Messages') assert.deepEqual(sent[2].content[2], messages[2].content[2])
    })

    test('a rate limit is thrown as it came, without a retry', async () => {
      const rateLimit = openAIRateLimit()
      const { send, requests } = fakeSend(() => rateLimit)
      await assert.rejects(
        withContextOverflowRecovery(send, { messages: shape.messages(), contextWindowTokens: WINDOW }),
        (error) => error === rateLimit,
      )
      assert.equal(requests.length, 1)
    })
  })
}

// CJK text, which the provider's tokenizer counts 1.4 times as densely as toolclamp's estimate.
const CJK = '用户登录成功，订单已确认。'.repeat(4000)

async function recoverCjk() {
  const messages = [
    { role: 'user', content: 'Summarize the log.' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'read_logs', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'call_a', content: CJK },
  ]
  const requests = []
  const send = async (request) => {
    const tokens = Math.ceil(textLength(request) * 1.4)
    requests.push(tokens)
    if (tokens > WINDOW) throw openAIChatOverflow(tokens)
    return 'ok'
  }
  const recovered = await withContextOverflowRecovery(send, { messages, contextWindowTokens: WINDOW })
  return { ...recovered, requests }
}

test('withContextOverflowRecovery: a provider that counts 1.4 times the estimate is satisfied within maxAttempts', async () => {
  const { result, attempts, requests } = await recoverCjk()
  assert.equal(result, 'ok')
  assert.ok(attempts.length >= 2 && attempts.length <= 3, requests.join(' '))
  assert.ok(requests.at(-1) <= WINDOW)
})

test('withContextOverflowRecovery: a request far over the window keeps the part of the tool result that fits', async () => {
  const { messages } = await recoverCjk()
  const kept = messages[2].content
  assert.ok(CJK.startsWith(kept.slice(0, 100)), kept.slice(0, 200))
  assert.ok(Math.ceil(kept.length * 1.4) >= WINDOW / 10, `${kept.length} chars kept`)
})
