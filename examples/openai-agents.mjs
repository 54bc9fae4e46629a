// The OpenAI Agents SDK with toolclamp at both ends, offline (a scripted Model plays the model
// and records what it is sent):
//
// - at the tool: wrapToolWithHardOutputTruncate bounds what `execute` returns (an object is sent as JSON text, so
//   it is clamped as JSON: it still parses and its small fields stay whole);
// - at the model: a callModelInputFilter runs clampToolResultsInMessages on every turn's input,
//   so the function_call_result items of the whole run stay within shares of the context
//   window (here 128k tokens), including those of tools nobody wrapped.
//
//   node examples/openai-agents.mjs
import { Agent, run, setTracingDisabled, tool, Usage } from '@openai/agents'
import { z } from 'zod'
import { wrapToolWithHardOutputTruncate } from 'toolclamp'
import { clampToolResultsInMessages, estimateTokens } from 'toolclamp/conversation'

setTracingDisabled(true)

// A test runner returning 5.7 MB of stdout, wrapped; a log reader returning 1.4 MB, not wrapped.
const runTests = tool({
  name: 'run_tests',
  description: 'Run the tests',
  parameters: z.object({}),
  execute: wrapToolWithHardOutputTruncate(async () => ({
    stdout: 'PASS src/a.test.ts\n'.repeat(300_000),
    stderr: 'FAIL src/checkout.test.ts',
    exitCode: 1,
  })),
})
const log = Array.from({ length: 40_000 }, (_, i) => `GET /api/orders/${i} 200 in ${i % 900}ms\n`).join('')
const readLogs = tool({
  name: 'read_logs',
  description: 'Recent logs of the checkout service',
  parameters: z.object({}),
  execute: async () => log,
})

/** A Model that calls both tools, then answers; it records the input items of each request. */
const requests = []
const model = {
  async getResponse({ input }) {
    requests.push(input)
    const output =
      requests.length === 1
        ? [
            { type: 'function_call', callId: 'call_1', name: 'run_tests', arguments: '{}', status: 'completed' },
            { type: 'function_call', callId: 'call_2', name: 'read_logs', arguments: '{}', status: 'completed' },
          ]
        : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'checkout.test.ts fails.' }] }]
    return { usage: new Usage(), output }
  },
  async *getStreamedResponse() {
    throw new Error('not streamed in this example')
  },
}

const agent = new Agent({ name: 'ci', instructions: 'You investigate CI failures.', model, tools: [runTests, readLogs] })
const result = await run(agent, 'Why is checkout failing?', {
  // Before every model call: each tool result within 30% of the window, all of them within 50%.
  callModelInputFilter: ({ modelData }) => ({
    ...modelData,
    input: clampToolResultsInMessages(modelData.input, { contextWindowTokens: 128_000 }).messages,
  }),
})

const sent = requests[1].filter((item) => item.type === 'function_call_result')
const tests = JSON.parse(sent[0].output.text)
console.log(tests.stderr, tests.exitCode) // FAIL src/checkout.test.ts 1 (the test run, clamped as JSON: it parses, small fields whole)
console.log(sent.map((item) => estimateTokens(item.output.text)).join(' ')) // 17067 38395 (the test run as wrapToolWithHardOutputTruncate left it; the log cut to 30% of the window)
console.log(estimateTokens(log)) // 461314 (what the log alone would have cost)
console.log(result.finalOutput) // checkout.test.ts fails.
