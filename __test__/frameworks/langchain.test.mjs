// hardTruncateToolPayload through LangChain 1.x: a createAgent run with a fake tool-calling
// model; the tool's result reaches the model's next call as a ToolMessage, offline.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { createAgent, tool, FakeToolCallingModel, ToolMessage } from 'langchain'
import { Command } from '@langchain/langgraph'
import { z } from 'zod'

import { wrapToolWithHardOutputTruncate } from '../../index.mjs'

const BUDGET = 51_200

/** A fake model that calls `toolName` once, then answers; it records every message list it is sent. */
class RecordingModel extends FakeToolCallingModel {
  constructor(toolName, calls = []) {
    super({ toolCalls: [[{ name: toolName, args: {}, id: 'call-1' }], []] })
    this.toolName = toolName
    this.calls = calls
  }

  // The agent binds the tools to a copy: the copy records into the same list.
  bindTools(tools) {
    const bound = new RecordingModel(this.toolName, this.calls)
    bound.tools = tools
    return bound
  }

  async _generate(messages, options, runManager) {
    this.calls.push(messages)
    return super._generate(messages, options, runManager)
  }
}

/** Runs one agent turn and returns the ToolMessage the model was sent on its second call. */
async function toolMessageSentToModel(toolObject) {
  const model = new RecordingModel(toolObject.name)
  const agent = createAgent({ model, tools: [toolObject] })
  await agent.invoke({ messages: [{ role: 'user', content: 'go' }] })
  assert.equal(model.calls.length, 2)
  const sent = model.calls[1].find((m) => m.getType?.() === 'tool' || m._getType?.() === 'tool')
  assert.ok(sent, 'a ToolMessage reached the model')
  return sent
}

const bytesOf = (content) => Buffer.byteLength(typeof content === 'string' ? content : JSON.stringify(content))

test('a tool returning a 5 MB object: the ToolMessage the model gets is within the budget and parses', async () => {
  const stdout = 'test passed ✓\n'.repeat(400_000)
  const lint = tool(
    wrapToolWithHardOutputTruncate(async () => ({ command: 'npm test', stdout, stderr: 'FAIL src/a.test.js', exitCode: 1 })),
    { name: 'run_tests', description: 'Runs the tests', schema: z.object({}) },
  )
  const message = await toolMessageSentToModel(lint)
  assert.ok(bytesOf(message.content) <= BUDGET, `${bytesOf(message.content)} bytes`)
  const value = typeof message.content === 'string' ? JSON.parse(message.content) : message.content
  assert.equal(value.stderr, 'FAIL src/a.test.js')
  assert.equal(value.exitCode, 1)
  assert.ok(stdout.startsWith(value.stdout.slice(0, 1000)))
})

test("responseFormat 'content_and_artifact': the content is clamped, the artifact left alone", async () => {
  const text = 'match: src/module.ts:12 unused import\n'.repeat(200_000)
  const artifact = { matches: 200_000, files: ['src/module.ts'] }
  const search = tool(
    wrapToolWithHardOutputTruncate(async () => [text, artifact], { responseFormat: 'content_and_artifact' }),
    { name: 'search', description: 'Searches the code', schema: z.object({}), responseFormat: 'content_and_artifact' },
  )
  const message = await toolMessageSentToModel(search)
  assert.equal(typeof message.content, 'string')
  assert.ok(Buffer.byteLength(message.content) <= BUDGET)
  assert.match(message.content, /truncated at the end/)
  assert.equal(message.artifact, artifact)
})

test('a 5 MB string, content blocks or an array of records: the ToolMessage the model gets is within the budget', async () => {
  const log = 'match: src/module.ts:12 unused import\n'.repeat(150_000)
  const records = log.split('\n').map((line, id) => ({ id, line }))
  const image = { type: 'image', url: 'https://example.com/screenshot.png' }
  const shapes = [log, [{ type: 'text', text: log }, image, { type: 'text', text: log }], records]
  for (const [i, returned] of shapes.entries()) {
    const search = tool(
      wrapToolWithHardOutputTruncate(async () => returned),
      { name: `search_${i}`, description: 'Searches', schema: z.object({}) },
    )
    const message = await toolMessageSentToModel(search)
    if (i === 1) {
      // Blocks stay blocks: the model reads their texts, which share the budget; the image
      // reaches it as it was.
      assert.ok(Array.isArray(message.content))
      assert.deepEqual(message.content[1], image)
      const text = message.content
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('')
      assert.ok(Buffer.byteLength(text) <= BUDGET, `${Buffer.byteLength(text)} bytes`)
      assert.match(text, /truncated at the end/)
      continue
    }
    assert.equal(typeof message.content, 'string')
    assert.ok(bytesOf(message.content) <= BUDGET, `shape ${i}: ${bytesOf(message.content)} bytes`)
    if (i === 2) {
      // Records are sent as JSON: clamped as JSON, so the text still parses.
      const sent = JSON.parse(message.content)
      assert.deepEqual(sent.slice(0, 3), records.slice(0, 3))
      assert.match(sent.at(-1), /^\[\.\.\. [\d,]+ more items\]$/)
    }
  }
})

test('a ToolMessage or a Command returned as it is reaches the model clamped, the artifact kept', async () => {
  const log = 'warning: deprecated API in src/module.ts\n'.repeat(150_000)
  const artifact = { warnings: 150_000 }
  const direct = tool(
    wrapToolWithHardOutputTruncate(async (_, config) => new ToolMessage({ content: log, tool_call_id: config.toolCall.id, artifact })),
    { name: 'direct', description: 'Returns a ToolMessage', schema: z.object({}) },
  )
  const message = await toolMessageSentToModel(direct)
  assert.ok(bytesOf(message.content) <= BUDGET)
  assert.equal(message.artifact, artifact)
  const command = tool(
    wrapToolWithHardOutputTruncate(
      async (_, config) => new Command({ update: { messages: [new ToolMessage({ content: log, tool_call_id: config.toolCall.id })] } }),
    ),
    { name: 'command', description: 'Returns a Command', schema: z.object({}) },
  )
  const fromCommand = await toolMessageSentToModel(command)
  assert.ok(bytesOf(fromCommand.content) <= BUDGET)
  // Warnings at its end: 'auto' keeps the end too.
  assert.match(fromCommand.content, /truncated in the middle/)
})

test('a Command whose update holds one ToolMessage, or is a list of [key, value] tuples, reaches the model clamped', async () => {
  const log = 'compiled src/module.ts in 12 ms\n'.repeat(32_000) // 1 MB
  const forms = {
    // update.messages: one ToolMessage, not a list (the messages reducer takes either).
    single: (id) => new Command({ update: { messages: new ToolMessage({ content: log, tool_call_id: id }) } }),
    // update as the [key, value] tuples LangGraph writes to its channels.
    tuples: (id) => new Command({ update: [['messages', [new ToolMessage({ content: log, tool_call_id: id })]]] }),
    tupleOfOne: (id) => new Command({ update: [['messages', new ToolMessage({ content: log, tool_call_id: id })]] }),
  }
  for (const [name, make] of Object.entries(forms)) {
    const command = tool(
      wrapToolWithHardOutputTruncate(async (_, config) => make(config.toolCall.id)),
      { name, description: 'Returns a Command', schema: z.object({}) },
    )
    const sent = await toolMessageSentToModel(command)
    assert.ok(bytesOf(sent.content) <= BUDGET, `${name}: ${bytesOf(sent.content)} bytes`)
    assert.match(sent.content, /truncated at the end/, name)
  }
})

test('without the wrapper the same tool sends the model all 5 MB (what the clamp prevents)', async () => {
  const stdout = 'x'.repeat(5_000_000)
  const raw = tool(async () => ({ stdout }), { name: 'raw', description: 'Unclamped', schema: z.object({}) })
  const message = await toolMessageSentToModel(raw)
  assert.ok(bytesOf(message.content) > 5_000_000)
})
