// The Vercel AI SDK with toolclamp at both ends, offline (a MockLanguageModelV3 with a 32k-token
// window plays the model):
//
// - at the tool: wrapToolWithHardOutputTruncate bounds what `execute` returns (an object is clamped as JSON, so it
//   still parses and its small fields stay whole), its preliminary results and thrown errors;
// - at the model: toolResultsMiddleware, given to wrapLanguageModel, keeps the tool results of
//   every prompt within shares of the window and retries a call refused as too long.
//
//   node examples/ai-sdk.mjs
import { APICallError, generateText, stepCountIs, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { z } from 'zod'
import { wrapToolWithHardOutputTruncate } from 'toolclamp'
import { estimateTokens } from 'toolclamp/conversation'
import { toolResultsMiddleware } from 'toolclamp/ai-sdk'

// Two tools: a test run returning 5.7 MB of stdout as an object, and a log reader returning 1.6 MB.
const runTests = tool({
  description: 'Run the tests',
  inputSchema: z.object({}),
  execute: wrapToolWithHardOutputTruncate(async () => ({
    stdout: 'PASS src/a.test.ts\n'.repeat(300_000),
    stderr: 'FAIL src/checkout.test.ts',
    exitCode: 1,
  })),
})
const log =
  Array.from({ length: 40_000 }, (_, i) => `GET /api/orders/${i} 200 in ${i % 900}ms\n`).join('') +
  'retrying inventory-service (attempt 5/5)\n'
const readLogs = tool({ description: 'Recent logs of the checkout service', inputSchema: z.object({}), execute: async () => log })

// The mock model: it calls both tools, then answers; it refuses a prompt over its window with the
// APICallError @ai-sdk/openai throws for OpenAI's 400.
const requests = []
const usage = { inputTokens: { total: 0 }, outputTokens: { total: 0 } }
const mock = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const tokens = estimateTokens(JSON.stringify(prompt.map((m) => m.content)))
    requests.push(tokens)
    if (tokens > 32_000) {
      const message = `This model's maximum context length is 32000 tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`
      const responseBody = JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'context_length_exceeded' } })
      throw new APICallError({
        message,
        url: 'https://api.openai.com/v1/chat/completions',
        requestBodyValues: {},
        statusCode: 400,
        responseBody,
      })
    }
    const content = prompt.some((m) => m.role === 'tool')
      ? [{ type: 'text', text: 'checkout.test.ts fails; the inventory service is retried 5 times.' }]
      : [
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'runTests', input: '{}' },
          { type: 'tool-call', toolCallId: 'call_2', toolName: 'readLogs', input: '{}' },
        ]
    return { content, finishReason: { unified: content[0].type === 'text' ? 'stop' : 'tool-calls' }, usage, warnings: [] }
  },
})

const recovered = []
const model = wrapLanguageModel({
  model: mock,
  middleware: toolResultsMiddleware({ contextWindowTokens: 32_000, onRecovered: ({ attempts }) => recovered.push(attempts.length) }),
})
const runbook = 'Check the upstream retries before you scale a service. '.repeat(1_000) // about 18k tokens
const result = await generateText({
  model,
  tools: { runTests, readLogs },
  stopWhen: stepCountIs(2),
  prompt: `Why is checkout failing? Our runbook:\n${runbook}`,
})

const [tests, logs] = result.steps[0].toolResults
console.log(Buffer.byteLength(JSON.stringify(tests.output)), tests.output.stderr, tests.output.exitCode) // 51200 FAIL src/checkout.test.ts 1 (the test run, clamped as JSON by wrapToolWithHardOutputTruncate)
console.log(logs.output === log) // true (the unwrapped tool's result stays whole in the steps; the middleware cuts what is sent)
// The requests: the tool calls; both results within their shares, but over the window with the
// runbook (refused); the retry, cut tighter.
console.log(requests.join(' ')) // 18356 34769 30667
console.log(recovered) // [ 2 ] (attempts)
console.log(result.finishReason, result.text) // stop checkout.test.ts fails; the inventory service is retried 5 times.
