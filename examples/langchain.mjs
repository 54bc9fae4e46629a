// A LangChain agent (createAgent) with toolclamp at both ends, offline (a fake tool-calling
// model plays the model and records what it is sent):
//
// - at the tool: the function given to tool() is wrapped with wrapToolWithHardOutputTruncate, with the tool's
//   responseFormat, so the ToolMessage content is clamped and the artifact left alone;
// - at the model: a middleware runs clampToolResultsInMessages on every model call, so the
//   tool results of the whole conversation stay within shares of the context window (here
//   32k tokens), including those of tools nobody wrapped. The agent's state keeps them whole.
//
//   node examples/langchain.mjs
import { AIMessage, createAgent, createMiddleware, FakeToolCallingModel, tool } from 'langchain'
import { z } from 'zod'
import { measureText, wrapToolWithHardOutputTruncate } from 'toolclamp'
import { clampToolResultsInMessages, estimateTokens } from 'toolclamp/conversation'

// A search tool returning 1.9 MB of matches and an artifact, wrapped; a log reader returning
// 1.4 MB, not wrapped.
const search = tool(
  wrapToolWithHardOutputTruncate(async ({ query }) => [`${query}: src/checkout.ts:12\n`.repeat(70_000), { matches: 70_000 }], {
    responseFormat: 'content_and_artifact',
  }),
  { name: 'search', description: 'Search the code', schema: z.object({ query: z.string() }), responseFormat: 'content_and_artifact' },
)
const log = Array.from({ length: 40_000 }, (_, i) => `GET /api/orders/${i} 200 in ${i % 900}ms\n`).join('')
const readLogs = tool(async () => log, { name: 'read_logs', description: 'Recent logs of the checkout service', schema: z.object({}) })

// Before every model call: each tool result within 30% of the window, all of them within 50%.
const toolResultsGuard = createMiddleware({
  name: 'ToolResultsGuard',
  wrapModelCall: (request, handler) =>
    handler({ ...request, messages: clampToolResultsInMessages(request.messages, { contextWindowTokens: 32_000 }).messages }),
})

/** A fake model that calls both tools, then answers; it records the tokens of each request. */
class Model extends FakeToolCallingModel {
  constructor(requests = []) {
    super({
      toolCalls: [
        [
          { name: 'search', args: { query: 'TODO' }, id: 'call_1' },
          { name: 'read_logs', args: {}, id: 'call_2' },
        ],
      ],
    })
    this.requests = requests
  }

  bindTools(tools) {
    return Object.assign(new Model(this.requests), { tools })
  }

  async _generate(messages, options, runManager) {
    this.requests.push(estimateTokens(JSON.stringify(messages.map((m) => m.content))))
    if (this.requests.length === 1) return super._generate(messages, options, runManager)
    const message = new AIMessage('The TODOs are in src/checkout.ts; the orders API answers in under a second.')
    return { generations: [{ text: message.content, message }] }
  }
}

const model = new Model()
const agent = createAgent({ model, tools: [search, readLogs], middleware: [toolResultsGuard] })
const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'Where are the TODOs, and is checkout slow?' }] })

const [, , searchMessage, logsMessage, answer] = messages
console.log(measureText(searchMessage.content).lines, searchMessage.artifact.matches) // 2000 70000 (the wrapped tool's ToolMessage; the artifact untouched)
console.log(logsMessage.content === log) // true (the unwrapped tool's result, whole in the agent's state)
console.log(model.requests.join(' ')) // 16 16579 (the tool calls; then both results within their shares of the window)
console.log(estimateTokens(log)) // 461314 (what the log alone would have cost the second request)
console.log(answer.content) // The TODOs are in src/checkout.ts; the orders API answers in under a second.
