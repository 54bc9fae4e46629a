// Context-overflow recovery inside a real pi-agent-core Agent, offline: pi-ai's faux provider
// plays a model with a small context window. It counts the tokens of every request the way a
// provider would and, like Anthropic, answers "prompt is too long: N tokens > M maximum" when
// the request does not fit. The model calls a tool that returns a 400 KB build log (about
// 100k tokens, five times the window), then answers once it has seen the result.
//
// wrapStreamFnWithOverflowRecovery retries the refused call with the tool result clamped;
// toolResultsContextGuard clamps before every call, so no call is refused. Control runs
// without them end in the provider's error, so these tests fail if the adapters stop working.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'

import { Agent } from '@mariozechner/pi-agent-core'
import { Type, fauxAssistantMessage, fauxText, fauxToolCall, registerFauxProvider, streamSimple } from '@mariozechner/pi-ai'

import { toolResultsContextGuard, wrapStreamFnWithOverflowRecovery } from '../../lib/integrations/pi-agent.js'
import { collectWarnings } from '../helpers.mjs'

const WINDOW = 20_000
const CHARS_PER_TOKEN = 4
const LOG_BYTES = 400_000
const ANSWER = 'The build failed on a lint warning treated as an error.'

/** A CI build log, mostly ASCII, with some non-ASCII text and emoji. */
function makeBuildLog(targetChars) {
  const steps = [
    (i) => `INFO  [worker-${i % 8}] compiling src/módulo_${i}.rs ✓`,
    (i) => `DEBUG [cache] hit ratio ${(i % 100) / 100} key=${(i * 2654435761) >>> 0}`,
    (i) => `WARN  [lint] unused variable \`größe_${i}\` in tests/case_${i}.rs 😀`,
    (i) => `INFO  [deploy] uploaded artifact #${i} (${(i * 37) % 9000} KiB)`,
  ]
  const lines = []
  let chars = 0
  for (let i = 1; chars < targetChars; i++) {
    const line = `${new Date(Date.UTC(2024, 4, 1, 12, 0, 0, i * 7)).toISOString()} ${steps[i % steps.length](i)}\n`
    lines.push(line)
    chars += line.length
  }
  return lines.join('')
}

const BUILD_LOG = makeBuildLog(LOG_BYTES)

const textOfBlocks = (content) =>
  typeof content === 'string'
    ? content
    : content
        .filter((block) => block.type === 'text')
        .map((block) => block.text)
        .join('')

/** The text of a pi-ai message, as a provider would tokenize it. */
function messageText(message) {
  if (message.role === 'assistant') {
    return message.content
      .map((block) => (block.type === 'text' ? block.text : block.type === 'toolCall' ? JSON.stringify(block.arguments) + block.name : ''))
      .join('')
  }
  return textOfBlocks(message.content)
}

/** The provider's count of a request: a token per 4 characters of every text in it. */
function requestTokens(context) {
  const chars = (context.systemPrompt ?? '').length + context.messages.reduce((sum, message) => sum + messageText(message).length, 0)
  return Math.ceil(chars / CHARS_PER_TOKEN)
}

const toolResultsOf = (messages) => messages.filter((message) => message.role === 'toolResult')
const toolResultTokens = (message) => Math.ceil(textOfBlocks(message.content).length / CHARS_PER_TOKEN)

/** What pi-ai's Anthropic provider makes of Anthropic's 400 for a request over the window. */
function anthropicOverflow(tokens, limit) {
  const body = {
    type: 'error',
    error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${limit} maximum` },
  }
  return fauxAssistantMessage([], { stopReason: 'error', errorMessage: `400 ${JSON.stringify(body)}` })
}

function anthropicRateLimit() {
  const body = {
    type: 'error',
    error: {
      type: 'rate_limit_error',
      message: 'This request would exceed the rate limit for your organization of 40,000 input tokens per minute.',
    },
  }
  return fauxAssistantMessage([], { stopReason: 'error', errorMessage: `429 ${JSON.stringify(body)}` })
}

function makeBuildLogTool() {
  return {
    name: 'read_build_log',
    label: 'Read build log',
    description: 'Returns the log of a CI build.',
    parameters: Type.Object({ buildId: Type.String() }),
    async execute(toolCallId, params) {
      return { content: [{ type: 'text', text: BUILD_LOG }], details: { buildId: params.buildId } }
    },
  }
}

const fauxProviders = []
after(() => {
  for (const faux of fauxProviders) faux.unregister()
})

/**
 * The model: `toolCalls` calls of the log tool, one a turn, then the answer. It refuses, as
 * `refuse(context)` says, any request over the window. Every request is recorded with its
 * token count.
 */
function scriptModel({
  toolCalls = 1,
  refuse = (context, tokens) => (tokens > WINDOW ? anthropicOverflow(tokens, WINDOW) : undefined),
} = {}) {
  const faux = registerFauxProvider({ models: [{ id: 'faux-small', contextWindow: WINDOW }] })
  fauxProviders.push(faux)
  const requests = []
  const step = (context) => {
    const tokens = requestTokens(context)
    requests.push({ messages: context.messages, tokens })
    const refusal = refuse(context, tokens)
    if (refusal) return refusal
    const done = toolResultsOf(context.messages).length
    if (done < toolCalls) {
      return fauxAssistantMessage(fauxToolCall('read_build_log', { buildId: `74${21 + done}` }, { id: `call_${done + 1}` }), {
        stopReason: 'toolUse',
      })
    }
    return fauxAssistantMessage(fauxText(ANSWER))
  }
  faux.setResponses(Array.from({ length: 12 }, () => step))
  return { model: faux.getModel('faux-small'), requests }
}

async function runAgent(model, agentOptions, prompt = 'Why did build 7421 fail?') {
  const agent = new Agent({
    initialState: { systemPrompt: 'You investigate CI failures.', model, tools: [makeBuildLogTool()] },
    ...agentOptions,
  })
  const events = []
  agent.subscribe((event) => {
    events.push(event)
  })
  await agent.prompt(prompt)
  return { agent, events, last: agent.state.messages.at(-1) }
}

/** The assistant messages the agent was given, as message_end events. */
const assistantMessagesSeen = (events) =>
  events.filter((event) => event.type === 'message_end' && event.message.role === 'assistant').map((event) => event.message)

test('the faux provider refuses the request with the whole log: the control run ends in its error', async () => {
  const { model, requests } = scriptModel()
  const { agent, last } = await runAgent(model)

  assert.equal(requests.length, 2)
  assert.ok(requests[1].tokens > 4 * WINDOW, `${requests[1].tokens} tokens`)
  assert.equal(last.role, 'assistant')
  assert.equal(last.stopReason, 'error')
  assert.match(agent.state.errorMessage, /prompt is too long: \d+ tokens > 20000 maximum/)
})

test('wrapStreamFnWithOverflowRecovery: the refused call is retried with the tool result clamped, and the agent finishes', async () => {
  const { model, requests } = scriptModel()
  const recoveries = []
  const streamFn = wrapStreamFnWithOverflowRecovery(streamSimple, { onRecovered: (info) => recoveries.push(info) })
  const { agent, events, last } = await runAgent(model, { streamFn })

  assert.equal(agent.state.errorMessage, undefined)
  assert.equal(last.role, 'assistant')
  assert.equal(last.stopReason, 'stop')
  assert.equal(textOfBlocks(last.content), ANSWER)

  // The tool call, the refused request, and its retry.
  assert.equal(requests.length, 3)
  assert.ok(requests[1].tokens > WINDOW)
  const [refused] = toolResultsOf(requests[1].messages)
  assert.equal(textOfBlocks(refused.content), BUILD_LOG)
  assert.ok(requests[2].tokens <= WINDOW, `the retry has ${requests[2].tokens} tokens`)
  const [retried] = toolResultsOf(requests[2].messages)
  const retriedText = textOfBlocks(retried.content)
  assert.ok(retriedText.length < BUILD_LOG.length / 4)
  assert.ok(BUILD_LOG.startsWith(retriedText.slice(0, 1000)), 'the head of the log is kept')
  assert.equal(retried.toolCallId, refused.toolCallId)
  assert.equal(retried.toolName, 'read_build_log')
  // Everything else in the request is as the agent sent it.
  assert.equal(requests[2].messages.length, requests[1].messages.length)
  for (const [i, message] of requests[1].messages.entries()) {
    if (message.role !== 'toolResult') assert.equal(requests[2].messages[i], message)
  }

  assert.equal(recoveries.length, 1)
  assert.equal(recoveries[0].attempts.length, 2)
  assert.equal(recoveries[0].messages, requests[2].messages)

  // The agent never saw the refusal: two assistant messages, a tool call and the answer.
  assert.deepEqual(
    assistantMessagesSeen(events).map((message) => message.stopReason),
    ['toolUse', 'stop'],
  )
  // Only the request was rewritten: the transcript keeps the whole tool result.
  const [kept] = toolResultsOf(agent.state.messages)
  assert.equal(textOfBlocks(kept.content), BUILD_LOG)
})

test('wrapStreamFnWithOverflowRecovery: a rate limit is not retried and reaches the agent as it came', async () => {
  const { model, requests } = scriptModel({
    refuse: (context) => (toolResultsOf(context.messages).length > 0 ? anthropicRateLimit() : undefined),
  })
  const { agent, last } = await runAgent(model, { streamFn: wrapStreamFnWithOverflowRecovery(streamSimple) })

  assert.equal(requests.length, 2)
  assert.equal(last.stopReason, 'error')
  assert.match(agent.state.errorMessage, /^429 .*rate_limit_error/)
})

test('wrapStreamFnWithOverflowRecovery: an error after content has streamed is not retried', async () => {
  const { model, requests } = scriptModel({
    refuse: (context, tokens) =>
      toolResultsOf(context.messages).length > 0
        ? fauxAssistantMessage(fauxText('Looking at the log'), {
            stopReason: 'error',
            errorMessage: `400 prompt is too long: ${tokens} tokens > ${WINDOW} maximum`,
          })
        : undefined,
  })
  const { agent, events, last } = await runAgent(model, { streamFn: wrapStreamFnWithOverflowRecovery(streamSimple) })

  assert.equal(requests.length, 2)
  assert.equal(last.stopReason, 'error')
  assert.equal(textOfBlocks(last.content), 'Looking at the log')
  assert.match(agent.state.errorMessage, /prompt is too long/)
  assert.ok(events.some((event) => event.type === 'message_update' && event.assistantMessageEvent.type === 'text_delta'))
})

test('wrapStreamFnWithOverflowRecovery: when every retry is refused, the last refusal is the answer after maxAttempts calls', async () => {
  // A provider that refuses any request with a tool result in it, whatever its size.
  const { model, requests } = scriptModel({
    refuse: (context, tokens) => (toolResultsOf(context.messages).length > 0 ? anthropicOverflow(tokens + WINDOW, WINDOW) : undefined),
  })
  const { agent, events, last } = await runAgent(model, { streamFn: wrapStreamFnWithOverflowRecovery(streamSimple, { maxAttempts: 3 }) })

  const refusals = requests.length - 1
  assert.ok(refusals >= 2 && refusals <= 3, `${refusals} calls with the tool result`)
  assert.equal(last.stopReason, 'error')
  // The answer is the last refusal (each names its own request's size).
  assert.equal(agent.state.errorMessage, anthropicOverflow(requests.at(-1).tokens + WINDOW, WINDOW).errorMessage)
  assert.equal(assistantMessagesSeen(events).length, 2)
})

test('wrapStreamFnWithOverflowRecovery: contextWindowTokens defaults to the model\u2019s contextWindow; an option overrides it', async () => {
  // With a window of 100k tokens set by hand the tool result is not cut to fit 20k: the retry
  // keeps more of the log than a retry measured against the model's window does.
  const measured = scriptModel()
  await runAgent(measured.model, { streamFn: wrapStreamFnWithOverflowRecovery(streamSimple) })
  const byHand = scriptModel()
  await runAgent(byHand.model, {
    streamFn: wrapStreamFnWithOverflowRecovery(streamSimple, { contextWindowTokens: 100_000, maxAttempts: 2 }),
  })

  const retriedTokens = ({ requests }) => toolResultTokens(toolResultsOf(requests[2].messages)[0])
  assert.ok(retriedTokens(byHand) > retriedTokens(measured), `${retriedTokens(byHand)} vs ${retriedTokens(measured)}`)
})

test('wrapStreamFnWithOverflowRecovery: options are checked when the wrapper is made', () => {
  assert.throws(() => wrapStreamFnWithOverflowRecovery(undefined), TypeError)
  assert.throws(() => wrapStreamFnWithOverflowRecovery(streamSimple, { maxAttempts: 0 }), RangeError)
  assert.throws(() => wrapStreamFnWithOverflowRecovery(streamSimple, { onRecovered: 'log' }), TypeError)
  assert.throws(() => wrapStreamFnWithOverflowRecovery(streamSimple, { resultshare: 0.2 }), /did you mean "resultShare"/)
  assert.throws(() => wrapStreamFnWithOverflowRecovery(streamSimple, { maxattempts: 2 }), /did you mean "maxAttempts"/)
  // maxAttempts is the wrapper's: the guard only clamps.
  assert.throws(() => toolResultsContextGuard({ contextWindowTokens: WINDOW, maxAttempts: 2 }), /unknown option "maxAttempts"/)
})

test('toolResultsContextGuard: every model call keeps its tool results within their shares of the window', async () => {
  // Three turns, each adding a 100k-token tool result; without the guard the second request
  // is already refused (see the control above).
  const { model, requests } = scriptModel({ toolCalls: 3 })
  const clamps = []
  const transformContext = toolResultsContextGuard({ contextWindowTokens: WINDOW, onClamp: (result) => clamps.push(result) })
  const { agent, last } = await runAgent(model, { transformContext })

  assert.equal(agent.state.errorMessage, undefined)
  assert.equal(last.stopReason, 'stop')
  assert.equal(requests.length, 4)
  for (const [i, { messages, tokens }] of requests.entries()) {
    assert.ok(tokens <= WINDOW, `request ${i}: ${tokens} tokens`)
    const results = toolResultsOf(messages)
    assert.equal(results.length, i)
    let total = 0
    for (const result of results) {
      const resultTokens = toolResultTokens(result)
      assert.ok(resultTokens <= 0.3 * WINDOW, `request ${i}: a tool result of ${resultTokens} tokens`)
      // Cut to its head, or (the oldest, when there is no room) replaced by a note that says so.
      const text = textOfBlocks(result.content)
      assert.ok(BUILD_LOG.startsWith(text.slice(0, 500)) || /elided/.test(text), text.slice(0, 200))
      total += resultTokens
    }
    assert.ok(total <= 0.5 * WINDOW, `request ${i}: tool results of ${total} tokens`)
  }
  // With three results the oldest gives way first.
  const lastResults = toolResultsOf(requests[3].messages).map(toolResultTokens)
  assert.ok(lastResults[0] < lastResults[1] && lastResults[1] <= lastResults[2], lastResults.join(' '))

  assert.equal(clamps.length, 3)
  for (const clamp of clamps) assert.equal(clamp.changed, true)
  // The transcript keeps the tool results whole.
  for (const result of toolResultsOf(agent.state.messages)) assert.equal(textOfBlocks(result.content), BUILD_LOG)
})

test('toolResultsContextGuard: messages within their shares come back as they were; options are checked when it is made', async () => {
  const guard = toolResultsContextGuard({ contextWindowTokens: WINDOW })
  const messages = [
    { role: 'user', content: 'Why did build 7421 fail?', timestamp: 1 },
    {
      role: 'toolResult',
      toolCallId: 'call_1',
      toolName: 'read_build_log',
      content: [{ type: 'text', text: 'ok' }],
      isError: false,
      timestamp: 2,
    },
  ]
  assert.equal(await guard(messages), messages)
  assert.throws(() => toolResultsContextGuard({}), TypeError)
  assert.throws(() => toolResultsContextGuard({ contextWindowTokens: WINDOW, onClamp: 1 }), TypeError)
})

test('toolResultsContextGuard with wrapStreamFnWithOverflowRecovery: a request over the window for other reasons is recovered', async () => {
  // The user pastes a 17k-token spec into a 20k window: the guard keeps the tool result within
  // its share of the window, but with the spec the request is still over it. The provider
  // refuses, and the wrapper retries with the tool result cut tighter.
  const spec = makeBuildLog(17_000 * CHARS_PER_TOKEN)
  const { model, requests } = scriptModel()
  const { agent, last } = await runAgent(
    model,
    {
      transformContext: toolResultsContextGuard({ contextWindowTokens: WINDOW }),
      streamFn: wrapStreamFnWithOverflowRecovery(streamSimple),
    },
    `Why did build 7421 fail? The spec:\n${spec}`,
  )

  assert.equal(agent.state.errorMessage, undefined)
  assert.equal(last.stopReason, 'stop')
  assert.ok(requests.length >= 3, `${requests.length} requests`)
  assert.ok(requests[1].tokens > WINDOW, `${requests[1].tokens} tokens`)
  assert.ok(toolResultTokens(toolResultsOf(requests[1].messages)[0]) <= 0.3 * WINDOW)
  assert.ok(requests.at(-1).tokens <= WINDOW)
  // The spec is never cut: only tool results are.
  assert.equal(textOfBlocks(requests.at(-1).messages[0].content), `Why did build 7421 fail? The spec:\n${spec}`)
})

test('wrapStreamFnWithOverflowRecovery: a model with no window passes through, with one warning', async () => {
  const warnings = (
    await collectWarnings(async () => {
      const calls = []
      const inner = (model, context) => {
        calls.push(context)
        return { marker: 'inner stream' }
      }
      const wrapped = wrapStreamFnWithOverflowRecovery(inner)
      const context = { messages: [] }
      assert.deepEqual(wrapped({ id: 'no-window' }, context), { marker: 'inner stream' })
      assert.deepEqual(wrapped({ id: 'no-window' }, context), { marker: 'inner stream' })
      assert.deepEqual(calls, [context, context])
    })
  ).map((w) => w.message)
  assert.deepEqual(warnings, [
    'toolclamp: model "no-window" has no contextWindow and no contextWindowTokens was given: overflow recovery is off for it',
  ])
})
