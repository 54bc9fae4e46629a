// hardTruncateToolPayload through the OpenAI Agents SDK (@openai/agents): an Agent run
// with a scripted Model that calls a tool once; the function_call_result item the model gets
// in its next request must be within the budget. Offline: the Model is ours.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { Agent, run, tool, Usage, setTracingDisabled } from '@openai/agents'
import { z } from 'zod'

import { hardTruncateToolPayload, wrapToolWithHardOutputTruncate } from '../../index.mjs'

setTracingDisabled(true)
const BUDGET = 51_200

/** A Model that calls `toolName` first, then answers; it records every request. */
function scriptedModel(toolName) {
  const requests = []
  return {
    requests,
    async getResponse(request) {
      requests.push(request)
      const output =
        requests.length === 1
          ? [{ type: 'function_call', callId: 'call-1', name: toolName, arguments: '{}', status: 'completed' }]
          : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }]
      return { usage: new Usage(), output }
    },
    async *getStreamedResponse() {
      throw new Error('this test does not stream')
    },
  }
}

/** Runs one turn and returns the function_call_result item of the model's second request. */
async function toolResultSentToModel(execute) {
  const model = scriptedModel('run_tests')
  const runTests = tool({ name: 'run_tests', description: 'Runs the tests', parameters: z.object({}), execute })
  const result = await run(new Agent({ name: 'dev', instructions: 'Fix the build.', model, tools: [runTests] }), 'go')
  assert.equal(result.finalOutput, 'done')
  assert.equal(model.requests.length, 2)
  const item = model.requests[1].input.find((i) => i.type === 'function_call_result')
  assert.ok(item, 'the tool result reached the model')
  return item
}

test('a tool returning a 5 MB object: the model gets at most the budget, as JSON that parses', async () => {
  const stdout = 'PASS src/module.test.ts ✓\n'.repeat(200_000)
  const item = await toolResultSentToModel(
    wrapToolWithHardOutputTruncate(async () => ({ stdout, stderr: 'warning: slow test', exitCode: 0 })),
  )
  const text = item.output.text
  assert.ok(Buffer.byteLength(text) <= BUDGET, `${Buffer.byteLength(text)} bytes`)
  const value = JSON.parse(text)
  assert.equal(value.stderr, 'warning: slow test')
  assert.equal(value.exitCode, 0)
  assert.ok(stdout.startsWith(value.stdout.slice(0, 1000)))
})

test('a tool returning { content: [], stdout }: every field the model gets is within the budget', async () => {
  const stdout = 'PASS src/module.test.ts ✓\n'.repeat(200_000)
  const item = await toolResultSentToModel(wrapToolWithHardOutputTruncate(async () => ({ content: [], stdout, exitCode: 0 })))
  const text = item.output.text
  assert.ok(Buffer.byteLength(text) < BUDGET + 20, `${Buffer.byteLength(text)} bytes`)
  const { content, ...rest } = JSON.parse(text)
  assert.deepEqual(content, [])
  assert.ok(Buffer.byteLength(JSON.stringify(rest)) <= BUDGET)
  assert.equal(rest.exitCode, 0)
})

test('a tool returning a 5 MB string or a text output: within the budget', async () => {
  const log = 'line of build output\n'.repeat(250_000)
  for (const returned of [log, { type: 'text', text: log }]) {
    const item = await toolResultSentToModel(wrapToolWithHardOutputTruncate(async () => returned))
    // A string comes back as { type: 'text', text }, a text output as [{ type: 'input_text', text }].
    const text = Array.isArray(item.output) ? item.output.map((part) => part.text).join('') : item.output.text
    assert.ok(Buffer.byteLength(text) <= BUDGET)
    assert.match(text, /truncated at the end/)
  }
})

test('a tool returning an array of records: the model gets JSON text within the budget that parses', async () => {
  const records = Array.from({ length: 200_000 }, (_, id) => ({ id, file: `src/module-${id}.ts`, status: 'ok' }))
  const item = await toolResultSentToModel(wrapToolWithHardOutputTruncate(async () => records))
  const text = item.output.text
  assert.ok(Buffer.byteLength(text) <= BUDGET, `${Buffer.byteLength(text)} bytes`)
  const sent = JSON.parse(text)
  assert.deepEqual(sent.slice(0, 3), records.slice(0, 3))
  assert.match(sent.at(-1), /^\[\.\.\. [\d,]+ more items\]$/)
})

test('text and image outputs: the input_text parts share the budget, the input_image reaches the model whole', async () => {
  const log = 'line of build output\n'.repeat(250_000)
  const image = 'data:image/png;base64,' + 'iVBORw0KGgo='.repeat(50_000)
  const item = await toolResultSentToModel(
    wrapToolWithHardOutputTruncate(async () => [
      { type: 'text', text: log },
      { type: 'image', image },
      { type: 'text', text: log },
    ]),
  )
  assert.deepEqual(
    item.output.map((part) => part.type),
    ['input_text', 'input_image', 'input_text'],
  )
  const text = item.output
    .filter((part) => part.type === 'input_text')
    .map((part) => part.text)
    .join('')
  assert.ok(Buffer.byteLength(text) <= BUDGET, `${Buffer.byteLength(text)} bytes`)
  assert.match(text, /truncated at the end/)
  assert.equal(item.output[1].image, image)
})

test('function_call_output / function_call_result items keep their shape with the output clamped', () => {
  const output = 'x\n'.repeat(100_000)
  const responsesItem = { type: 'function_call_output', call_id: 'call-7', output }
  const clamped = hardTruncateToolPayload(responsesItem)
  assert.equal(clamped.call_id, 'call-7')
  assert.ok(Buffer.byteLength(clamped.output) <= BUDGET)
  const agentsItem = { type: 'function_call_result', callId: 'c', name: 'n', status: 'completed', output: { type: 'text', text: output } }
  const clampedItem = hardTruncateToolPayload(agentsItem)
  assert.equal(clampedItem.output.type, 'text')
  assert.ok(Buffer.byteLength(clampedItem.output.text) <= BUDGET)
  assert.equal(hardTruncateToolPayload(clampedItem), clampedItem)
})
