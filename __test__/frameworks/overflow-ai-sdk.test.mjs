// toolResultsMiddleware with the Vercel AI SDK (v6), offline: a mock model with a 32k-token
// window counts the tokens of every prompt it is sent and, like OpenAI, throws an
// APICallError (400, context_length_exceeded) when the prompt does not fit. The model calls a
// tool that returns a 400 KB log (about 100k tokens), then answers once it has seen it.
//
// transformParams clamps the tool results of every prompt; wrapGenerate and wrapStream retry a
// prompt still refused, with the tool results cut tighter. Control runs without the
// middleware fail with the provider's error, so these tests fail if the middleware stops working.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'

import { APICallError, generateText, streamText, stepCountIs, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test'
import { z } from 'zod'

import { toolResultsMiddleware } from '../../lib/integrations/ai-sdk.js'
import { collectWarnings } from '../helpers.mjs'

const WINDOW = 32_000
const CHARS_PER_TOKEN = 4
const ANSWER = 'The checkout service is retrying its inventory calls.'
const TOOL_NAME = 'readLogs'

function buildServiceLog(targetChars) {
  const messages = [
    'GET /api/orders/{id} 200 in {ms}ms',
    'Zahlung für Bestellung {id} bestätigt ✅',
    'retrying upstream call to inventory-service (attempt 2/5) ⚠️',
    '用户 {id} 登录成功',
  ]
  const lines = []
  let chars = 0
  for (let i = 0; chars < targetChars; i++) {
    const time = new Date(Date.UTC(2024, 4, 1, 12, 0, 0, i * 7)).toISOString()
    const line = `${time} INFO [worker-${i % 8}] ${messages[i % messages.length].replace('{id}', String(10000 + i)).replace('{ms}', String(i % 900))}\n`
    lines.push(line)
    chars += line.length
  }
  return lines.join('')
}

const LOG = buildServiceLog(400_000)

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}

/** The text of a tool result's output, as the provider would send it. */
function outputText(output) {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value
    case 'content':
      return output.value.map((item) => (item.type === 'text' ? item.text : '')).join('')
    default:
      return JSON.stringify(output.value ?? '')
  }
}

/** The text of a LanguageModelV3 prompt message. */
function messageText(message) {
  if (typeof message.content === 'string') return message.content
  return message.content
    .map((part) => {
      if (part.type === 'text' || part.type === 'reasoning') return part.text
      if (part.type === 'tool-call') return part.toolName + (typeof part.input === 'string' ? part.input : JSON.stringify(part.input))
      if (part.type === 'tool-result') return outputText(part.output)
      return ''
    })
    .join('')
}

const promptTokens = (prompt) => Math.ceil(prompt.reduce((sum, message) => sum + messageText(message).length, 0) / CHARS_PER_TOKEN)
const toolResultParts = (prompt) =>
  prompt.filter((message) => message.role === 'tool').flatMap((message) => message.content.filter((part) => part.type === 'tool-result'))
const toolResultTokens = (part) => Math.ceil(outputText(part.output).length / CHARS_PER_TOKEN)

/** The APICallError @ai-sdk/openai throws for OpenAI's 400 on a prompt over the window. */
function openAIOverflow(tokens, prompt) {
  const message = `This model's maximum context length is ${WINDOW} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`
  const error = { message, type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' }
  return new APICallError({
    message,
    url: 'https://api.openai.com/v1/chat/completions',
    requestBodyValues: { model: 'gpt-4.1', messages: prompt },
    statusCode: 400,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify({ error }),
    data: { error },
    isRetryable: false,
  })
}

function openAIRateLimit() {
  const message = 'Rate limit reached for gpt-4.1 in organization org-123 on tokens per min (TPM): Limit 30000, Used 29000, Requested 9000.'
  const error = { message, type: 'tokens', param: null, code: 'rate_limit_exceeded' }
  return new APICallError({
    message,
    url: 'https://api.openai.com/v1/chat/completions',
    requestBodyValues: {},
    statusCode: 429,
    responseBody: JSON.stringify({ error }),
    data: { error },
  })
}

/**
 * What the model does with a prompt: refuses it (`refuse(prompt, tokens)` returns an error
 * to throw), calls the tool when no tool result is in it, else answers.
 */
const overWindow = (prompt, tokens) => (tokens > WINDOW ? openAIOverflow(tokens, prompt) : undefined)

function decide(prompt, refuse) {
  const tokens = promptTokens(prompt)
  const refusal = refuse(prompt, tokens)
  if (refusal) throw refusal
  return toolResultParts(prompt).length === 0 ? 'call' : 'answer'
}

function generatingModel(refuse = overWindow) {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) =>
      decide(prompt, refuse) === 'call'
        ? {
            content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: TOOL_NAME, input: JSON.stringify({ service: 'checkout' }) }],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          }
        : { content: [{ type: 'text', text: ANSWER }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
  })
}

const callParts = [
  { type: 'tool-call', toolCallId: 'call-1', toolName: TOOL_NAME, input: JSON.stringify({ service: 'checkout' }) },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
]
const answerParts = [
  { type: 'text-start', id: 'answer' },
  { type: 'text-delta', id: 'answer', delta: ANSWER },
  { type: 'text-end', id: 'answer' },
  { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
]

/**
 * A streaming model. `refusal: 'reject'` throws the overflow from doStream, as providers do
 * when the HTTP request fails; `'error-part'` opens a stream with it as an `error` part.
 */
function streamingModel({ refusal = 'reject', refuse = overWindow } = {}) {
  return new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      const prelude = [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: 'resp-1', modelId: 'gpt-4.1' },
      ]
      let action
      try {
        action = decide(prompt, refuse)
      } catch (error) {
        if (refusal === 'reject') throw error
        return { stream: convertArrayToReadableStream([...prelude, { type: 'error', error }]) }
      }
      return { stream: convertArrayToReadableStream([...prelude, ...(action === 'call' ? callParts : answerParts)]) }
    },
  })
}

const logTool = tool({
  description: 'Returns the recent logs of a service.',
  inputSchema: z.object({ service: z.string() }),
  execute: async () => LOG,
})

/** A prompt with a document of `tokens` tokens pasted in, so that less room is left for the log. */
const promptWithDocument = (tokens) => `What do the checkout logs say? Our runbook:\n${buildServiceLog(tokens * CHARS_PER_TOKEN)}`

function run(model, { middleware, prompt = 'What do the checkout logs say?', stream = false, ...rest } = {}) {
  const options = {
    model: middleware === undefined ? model : wrapLanguageModel({ model, middleware }),
    prompt,
    tools: { [TOOL_NAME]: logTool },
    stopWhen: stepCountIs(2),
    ...rest,
  }
  // streamText logs a stream's errors unless told otherwise; the tests read them from the
  // full stream instead.
  return stream ? streamText({ onError: () => {}, ...options }) : generateText(options)
}

function assertToolResultsWithinShares(prompt) {
  let total = 0
  for (const part of toolResultParts(prompt)) {
    const tokens = toolResultTokens(part)
    assert.ok(tokens <= 0.3 * WINDOW, `a tool result of ${tokens} tokens`)
    total += tokens
  }
  assert.ok(total <= 0.5 * WINDOW, `tool results of ${total} tokens`)
}

describe('toolResultsMiddleware with generateText', () => {
  test('control: without the middleware the prompt with the log is refused', async () => {
    const model = generatingModel()
    await assert.rejects(run(model), (error) => {
      assert.ok(APICallError.isInstance(error))
      assert.equal(error.statusCode, 400)
      assert.match(error.responseBody, /context_length_exceeded/)
      return true
    })
    assert.equal(model.doGenerateCalls.length, 2)
    assert.ok(promptTokens(model.doGenerateCalls[1].prompt) > 3 * WINDOW)
  })

  test('transformParams: the log reaches the model within its share of the window, and no call is refused', async () => {
    const model = generatingModel()
    const clamps = []
    const recoveries = []
    const middleware = toolResultsMiddleware({
      contextWindowTokens: WINDOW,
      onClamp: (result) => clamps.push(result),
      onRecovered: (info) => recoveries.push(info),
    })
    const result = await run(model, { middleware })

    assert.equal(result.text, ANSWER)
    assert.equal(model.doGenerateCalls.length, 2)
    const sent = model.doGenerateCalls[1].prompt
    assert.ok(promptTokens(sent) <= WINDOW)
    assertToolResultsWithinShares(sent)
    const [part] = toolResultParts(sent)
    assert.equal(part.toolName, TOOL_NAME)
    assert.equal(part.output.type, 'text')
    assert.ok(LOG.startsWith(part.output.value.slice(0, 1000)), 'the head of the log is kept')

    assert.equal(clamps.length, 1)
    assert.equal(clamps[0].messages, sent)
    assert.equal(recoveries.length, 0)
    // The SDK's own record of the step keeps the whole result: only the prompt was rewritten.
    assert.equal(result.steps[0].toolResults[0].output, LOG)
  })

  test('wrapGenerate: a prompt still over the window is refused, then retried with the log cut tighter', async () => {
    // A 28k-token runbook in the prompt leaves less than the log's share of a 32k window.
    const model = generatingModel()
    const recoveries = []
    const prompt = promptWithDocument(28_000)
    const result = await run(model, {
      middleware: toolResultsMiddleware({ contextWindowTokens: WINDOW, onRecovered: (info) => recoveries.push(info) }),
      prompt,
    })

    assert.equal(result.text, ANSWER)
    const calls = model.doGenerateCalls
    assert.ok(calls.length >= 3 && calls.length <= 4, `${calls.length} calls`)
    assert.ok(promptTokens(calls[1].prompt) > WINDOW, 'the clamped prompt was still over the window')
    assertToolResultsWithinShares(calls[1].prompt)
    const final = calls.at(-1).prompt
    assert.ok(promptTokens(final) <= WINDOW, `the last prompt has ${promptTokens(final)} tokens`)
    assert.ok(toolResultTokens(toolResultParts(final)[0]) < toolResultTokens(toolResultParts(calls[1].prompt)[0]))
    // The runbook is never cut: only tool results are.
    assert.equal(messageText(final.find((message) => message.role === 'user')), prompt)

    assert.equal(recoveries.length, 1)
    assert.equal(recoveries[0].attempts.length, calls.length - 1)
    assert.equal(recoveries[0].messages, final)
  })

  test('control: the same runbook without the middleware is refused', async () => {
    const model = generatingModel()
    await assert.rejects(
      run(model, { prompt: promptWithDocument(28_000) }),
      (error) => APICallError.isInstance(error) && error.statusCode === 400,
    )
  })

  test('a rate limit passes through untouched and is not retried', async () => {
    const rateLimit = openAIRateLimit()
    const model = generatingModel((prompt) => (toolResultParts(prompt).length > 0 ? rateLimit : undefined))
    await assert.rejects(run(model, { middleware: toolResultsMiddleware({ contextWindowTokens: WINDOW }), maxRetries: 0 }), (error) => {
      assert.equal(error, rateLimit)
      return true
    })
    assert.equal(model.doGenerateCalls.length, 2)
  })

  test('when every retry is refused, the last refusal is thrown after maxAttempts calls', async () => {
    const model = generatingModel((prompt, tokens) =>
      toolResultParts(prompt).length > 0 ? openAIOverflow(tokens + WINDOW, prompt) : undefined,
    )
    const middleware = toolResultsMiddleware({ contextWindowTokens: WINDOW, maxAttempts: 2 })
    await assert.rejects(run(model, { middleware }), (error) => {
      assert.ok(APICallError.isInstance(error))
      assert.match(error.message, new RegExp(`resulted in ${promptTokens(model.doGenerateCalls.at(-1).prompt) + WINDOW} tokens`))
      return true
    })
    assert.equal(model.doGenerateCalls.length, 1 + 2)
  })

  test('options are checked when the middleware is made', () => {
    assert.throws(() => toolResultsMiddleware(), TypeError)
    assert.throws(() => toolResultsMiddleware({}), TypeError)
    assert.throws(() => toolResultsMiddleware({ contextWindowTokens: WINDOW, maxAttempts: 1.5 }), RangeError)
    assert.throws(() => toolResultsMiddleware({ contextWindowTokens: WINDOW, onClamp: true }), TypeError)
    assert.throws(() => toolResultsMiddleware({ contextWindowTokens: WINDOW, resultshare: 0.2 }), /did you mean "resultShare"/)
    assert.throws(() => toolResultsMiddleware({ contextWindowTokens: WINDOW, onrecovered() {} }), /did you mean "onRecovered"/)
    const middleware = toolResultsMiddleware({ contextWindowTokens: WINDOW })
    assert.equal(middleware.specificationVersion, 'v3')
    for (const hook of ['transformParams', 'wrapGenerate', 'wrapStream']) assert.equal(typeof middleware[hook], 'function')
  })
})

describe('toolResultsMiddleware with streamText', () => {
  /** Runs streamText to its end: the text, and the error parts of the full stream. */
  async function drain(result) {
    const errors = []
    let text = ''
    for await (const part of result.fullStream) {
      if (part.type === 'error') errors.push(part.error)
      if (part.type === 'text-delta') text += part.text
    }
    return { text, errors }
  }

  for (const refusal of ['reject', 'error-part']) {
    const how = refusal === 'reject' ? 'doStream rejects' : 'the stream opens with an error part'

    test(`control (${how}): without the middleware the stream ends in the refusal`, async () => {
      const model = streamingModel({ refusal })
      const { text, errors } = await drain(run(model, { stream: true }))
      assert.equal(text, '')
      assert.equal(errors.length, 1)
      assert.ok(APICallError.isInstance(errors[0]))
      assert.equal(errors[0].statusCode, 400)
      assert.equal(model.doStreamCalls.length, 2)
    })

    test(`wrapStream (${how}): the refused prompt is retried with the log cut tighter`, async () => {
      const model = streamingModel({ refusal })
      const prompt = promptWithDocument(28_000)
      const { text, errors } = await drain(
        run(model, { stream: true, prompt, middleware: toolResultsMiddleware({ contextWindowTokens: WINDOW }) }),
      )
      assert.deepEqual(errors, [])
      assert.equal(text, ANSWER)
      const calls = model.doStreamCalls
      assert.ok(calls.length >= 3 && calls.length <= 4, `${calls.length} calls`)
      assert.ok(promptTokens(calls[1].prompt) > WINDOW)
      assert.ok(promptTokens(calls.at(-1).prompt) <= WINDOW)
    })
  }

  test('wrapStream: when every retry is refused, the last refused stream is the answer', async () => {
    const model = streamingModel({
      refusal: 'error-part',
      refuse: (prompt, tokens) => (toolResultParts(prompt).length > 0 ? openAIOverflow(tokens + WINDOW, prompt) : undefined),
    })
    const { errors } = await drain(
      run(model, { stream: true, middleware: toolResultsMiddleware({ contextWindowTokens: WINDOW, maxAttempts: 2 }) }),
    )
    assert.equal(model.doStreamCalls.length, 1 + 2)
    assert.equal(errors.length, 1)
    assert.match(errors[0].message, new RegExp(`resulted in ${promptTokens(model.doStreamCalls.at(-1).prompt) + WINDOW} tokens`))
  })

  test('wrapStream: when the attempts run out, the caller reads the last refused stream as the model sent it', async () => {
    const refusal = openAIOverflow(WINDOW + 1, [])
    const parts = [
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: 'resp-9' },
      { type: 'error', error: refusal },
    ]
    const streams = []
    const model = new MockLanguageModelV3({
      doStream: async () => {
        const stream = convertArrayToReadableStream(parts)
        streams.push(stream)
        return { stream, response: { headers: { 'x-request-id': `req-${streams.length}` } } }
      },
    })
    const middleware = toolResultsMiddleware({ contextWindowTokens: WINDOW, maxAttempts: 2 })
    const prompt = [
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: TOOL_NAME, output: { type: 'text', value: LOG } }] },
    ]
    const params = { prompt }
    const result = await middleware.wrapStream({ doStream: () => model.doStream(params), doGenerate: undefined, params, model })

    assert.equal(model.doStreamCalls.length, 2)
    assert.equal(result.response.headers['x-request-id'], 'req-2')
    const read = []
    for await (const part of result.stream) read.push(part)
    assert.deepEqual(read, parts)
    assert.equal(read[2].error, refusal)
  })

  test('transformParams: a prompt within its shares is passed on as the same object', async () => {
    const middleware = toolResultsMiddleware({ contextWindowTokens: WINDOW })
    const params = {
      prompt: [
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: TOOL_NAME, output: { type: 'text', value: 'ok' } }],
        },
      ],
    }
    assert.equal(await middleware.transformParams({ type: 'stream', params, model: undefined }), params)
  })

  test('wrapStream: a rate limit in the stream is passed through and not retried', async () => {
    const rateLimit = openAIRateLimit()
    const model = streamingModel({
      refusal: 'error-part',
      refuse: (prompt) => (toolResultParts(prompt).length > 0 ? rateLimit : undefined),
    })
    const { errors } = await drain(run(model, { stream: true, middleware: toolResultsMiddleware({ contextWindowTokens: WINDOW }) }))
    assert.equal(model.doStreamCalls.length, 2)
    assert.deepEqual(errors, [rateLimit])
  })
})

test('an onClamp or onRecovered that throws is a warning, never a failed call', async () => {
  const prompt = [
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'text', value: 'x\n'.repeat(300_000) } }],
    },
  ]
  const overflow = new APICallError({
    message: 'prompt is too long: 300000 tokens > 200000 maximum',
    url: 'https://api.example/v1/messages',
    requestBodyValues: {},
    statusCode: 400,
  })
  const warnings = (
    await collectWarnings(async () => {
      const middleware = toolResultsMiddleware({
        contextWindowTokens: 200_000,
        onClamp: () => {
          throw new Error('observer bug in onClamp')
        },
        onRecovered: () => {
          throw new Error('observer bug in onRecovered')
        },
      })
      const params = await middleware.transformParams({ params: { prompt }, type: 'generate', model: {} })
      assert.notEqual(params.prompt, prompt, 'the prompt was clamped')
      const model = { doGenerate: async () => ({ content: [{ type: 'text', text: 'answer' }] }) }
      const result = await middleware.wrapGenerate({ doGenerate: () => Promise.reject(overflow), params: { prompt }, model })
      assert.deepEqual(result.content, [{ type: 'text', text: 'answer' }])
    })
  ).map((w) => w.message)
  assert.deepEqual(warnings, [
    'toolclamp: onClamp threw: observer bug in onClamp',
    'toolclamp: onRecovered threw: observer bug in onRecovered',
  ])
})
