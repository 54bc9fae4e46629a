// End-to-end checks with the Vercel AI SDK (v6), offline: a scripted mock model calls a tool,
// and we inspect what the SDK sends back to the model on the next step. That prompt is where an
// unclamped tool result would blow the context window, so that is where we assert the limits.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'

import { generateText, streamText, tool, stepCountIs } from 'ai'
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test'
import { z } from 'zod'

import { wrapToolWithHardOutputTruncate, hardTruncateToolPayload } from '../../index.mjs'

// The documented defaults: payloads { maxBytes: 51200, maxLines: 2000 }, errors { maxBytes: 4096, maxLines: 40 }.
const PAYLOAD_MAX_BYTES = 51200
const PAYLOAD_MAX_LINES = 2000
const ERROR_MAX_BYTES = 4096
const ERROR_MAX_LINES = 40

const NOTICE = /\[\.\.\. .+ truncated at the end \.\.\.\]/
const MIDDLE_NOTICE = /\[\.\.\. .+ truncated in the middle \.\.\.\]/

const byteLength = (text) => Buffer.byteLength(text, 'utf8')

/** Lines as toolclamp counts them: every '\n', plus one for a final line without it. */
function lineCount(text) {
  let newlines = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines++
  return newlines + (text.length > 0 && !text.endsWith('\n') ? 1 : 0)
}

function assertWithin(text, maxBytes, maxLines) {
  assert.equal(typeof text, 'string')
  assert.ok(byteLength(text) <= maxBytes, `${byteLength(text)} bytes > ${maxBytes}`)
  assert.ok(lineCount(text) <= maxLines, `${lineCount(text)} lines > ${maxLines}`)
}

/** About 5 MB of service logs, with multi-byte text so bytes and chars differ. */
function buildServiceLog(targetBytes) {
  const messages = [
    'GET /api/orders/{id} 200 in {ms}ms',
    'cache miss for key user:{id}:profile, fetching from primary',
    'Zahlung für Bestellung {id} bestätigt ✅',
    'retrying upstream call to inventory-service (attempt 2/5) ⚠️',
    '用户 {id} 登录成功',
    'slow query on orders_by_customer took {ms}ms 🐢',
  ]
  const lines = []
  let bytes = 0
  for (let i = 0; bytes < targetBytes; i++) {
    const time = new Date(Date.UTC(2024, 4, 1, 12, 0, 0, i * 7)).toISOString()
    const level = i % 17 === 0 ? 'WARN ' : 'INFO '
    const message = messages[i % messages.length].replace('{id}', String(10000 + i)).replace('{ms}', String(i % 900))
    const line = `${time} ${level}[worker-${i % 8}] ${message}\n`
    lines.push(line)
    bytes += byteLength(line)
  }
  return lines.join('')
}

const FIVE_MEGABYTES = 5 * 1024 * 1024
const hugeLog = buildServiceLog(FIVE_MEGABYTES)

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}
const TOOL_CALL_ID = 'call-1'
const TOOL_NAME = 'readLogs'
const TOOL_INPUT = JSON.stringify({ service: 'checkout' })

function logTool(execute, options = {}) {
  return tool({
    description: 'Returns the recent logs of a service.',
    inputSchema: z.object({ service: z.string() }),
    execute,
    ...options,
  })
}

/**
 * Runs two steps with generateText: the model calls the tool, then answers. Returns the
 * tool-result part of the prompt the model received on the second call.
 */
async function toolResultSentToModel(execute, toolOptions) {
  const model = new MockLanguageModelV3({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: TOOL_CALL_ID, toolName: TOOL_NAME, input: TOOL_INPUT }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      {
        content: [{ type: 'text', text: 'The checkout service looks healthy.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    ],
  })
  await generateText({
    model,
    prompt: 'What do the checkout logs say?',
    tools: { [TOOL_NAME]: logTool(execute, toolOptions) },
    stopWhen: stepCountIs(2),
  })
  assert.equal(model.doGenerateCalls.length, 2)
  return findToolResultPart(model.doGenerateCalls[1].prompt)
}

function findToolResultPart(prompt) {
  const toolMessage = prompt.find((message) => message.role === 'tool')
  assert.ok(toolMessage, 'the second prompt has a tool message')
  const part = toolMessage.content.find((p) => p.type === 'tool-result' && p.toolCallId === TOOL_CALL_ID)
  assert.ok(part, 'the tool message has the tool result')
  return part
}

/** The text of a tool output as toolclamp sees it: a string, or the text blocks of `content`. */
function textOf(output) {
  if (typeof output === 'string') return output
  return output.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('')
}

describe('Vercel AI SDK: generateText', () => {
  test('a 5 MB string result reaches the model clamped', async () => {
    const part = await toolResultSentToModel(wrapToolWithHardOutputTruncate(async () => hugeLog))
    // The SDK sends a string result as { type: 'text', value }.
    assert.equal(part.output.type, 'text')
    assertWithin(part.output.value, PAYLOAD_MAX_BYTES, PAYLOAD_MAX_LINES)
    assert.match(part.output.value, NOTICE)
    assert.ok(hugeLog.startsWith(part.output.value.slice(0, part.output.value.lastIndexOf('\n[...'))))
  })

  test('control: without wrapToolWithHardOutputTruncate the whole 5 MB reaches the model', async () => {
    const part = await toolResultSentToModel(async () => hugeLog)
    assert.equal(part.output.type, 'text')
    assert.ok(byteLength(part.output.value) > PAYLOAD_MAX_BYTES)
  })

  test('a { content: [...] } result is clamped across its text blocks, other keys kept', async () => {
    const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }
    const part = await toolResultSentToModel(
      wrapToolWithHardOutputTruncate(async () => ({
        content: [{ type: 'text', text: hugeLog }, image, { type: 'text', text: 'summary: 0 errors' }],
        isError: false,
      })),
    )
    // The SDK sends an object result as { type: 'json', value }.
    assert.equal(part.output.type, 'json')
    const { content, isError } = part.output.value
    assert.equal(isError, false)
    assert.equal(content.length, 3)
    assert.deepEqual(content[1], image)
    // The summary at the end reads as one ('auto'), so it is kept whole; the cut falls in the first block.
    assert.deepEqual(content[2], { type: 'text', text: 'summary: 0 errors' })
    assertWithin(textOf(part.output.value), PAYLOAD_MAX_BYTES, PAYLOAD_MAX_LINES)
    assert.match(content[0].text, MIDDLE_NOTICE)
  })

  test('{ content: [], stdout } reaches the model with every field it sends within the budget', async () => {
    // The SDK sends the whole object as JSON: stdout shares the budget with content.
    const part = await toolResultSentToModel(wrapToolWithHardOutputTruncate(async () => ({ content: [], stdout: hugeLog, exitCode: 1 })))
    assert.equal(part.output.type, 'json')
    const { content, ...rest } = part.output.value
    assert.deepEqual(content, [])
    assert.equal(rest.exitCode, 1)
    assert.ok(byteLength(JSON.stringify(rest)) <= PAYLOAD_MAX_BYTES, `${byteLength(JSON.stringify(rest))} bytes`)
    assert.ok(byteLength(JSON.stringify(part.output.value)) < PAYLOAD_MAX_BYTES + 20, 'the envelope adds only its content key')
    assert.match(rest.stdout, /\[\.\.\. [\d,]+ bytes truncated\]$/)
  })

  test('a 5 MB object result reaches the model as JSON within the budget, small fields whole', async () => {
    const result = { service: 'checkout', log: hugeLog, exitCode: 1, stderr: 'Error: payment declined' }
    const part = await toolResultSentToModel(wrapToolWithHardOutputTruncate(async () => result))
    assert.equal(part.output.type, 'json')
    const value = part.output.value
    assert.ok(Buffer.byteLength(JSON.stringify(value)) <= PAYLOAD_MAX_BYTES)
    assert.equal(value.service, 'checkout')
    assert.equal(value.exitCode, 1)
    assert.equal(value.stderr, result.stderr)
    assert.ok(hugeLog.startsWith(value.log.slice(0, value.log.indexOf('[... '))))
    assert.match(value.log, /\[\.\.\. [\d,]+ bytes truncated\]$/)
  })

  test('an array of strings and a ToolResultOutput reach the model within the budget', async () => {
    const lines = hugeLog.split('\n')
    const part = await toolResultSentToModel(wrapToolWithHardOutputTruncate(async () => lines))
    const sent = part.output.value
    assert.ok(Buffer.byteLength(JSON.stringify(sent)) <= PAYLOAD_MAX_BYTES)
    assert.deepEqual(sent.slice(0, 3), lines.slice(0, 3))
    assert.match(sent.at(-1), /^\[\.\.\. [\d,]+ more items\]$/)
    // toModelOutput shapes: { type: 'text' | 'json' | 'content', value }.
    const text = hardTruncateToolPayload({ type: 'text', value: hugeLog })
    assert.ok(Buffer.byteLength(text.value) <= PAYLOAD_MAX_BYTES)
    const json = hardTruncateToolPayload({ type: 'json', value: { log: hugeLog } })
    assert.ok(Buffer.byteLength(JSON.stringify(json.value)) <= PAYLOAD_MAX_BYTES)
    const content = hardTruncateToolPayload({ type: 'content', value: [{ type: 'text', text: hugeLog }] })
    assert.ok(Buffer.byteLength(content.value[0].text) <= PAYLOAD_MAX_BYTES)
  })

  test('an array of 5 MB of records reaches the model as JSON within the budget that parses', async () => {
    const records = hugeLog.split('\n').map((line, i) => ({ i, line }))
    const part = await toolResultSentToModel(wrapToolWithHardOutputTruncate(async () => records))
    assert.equal(part.output.type, 'json')
    const sent = JSON.stringify(part.output.value)
    assert.ok(Buffer.byteLength(sent) <= PAYLOAD_MAX_BYTES, `${Buffer.byteLength(sent)} bytes`)
    assert.deepEqual(JSON.parse(sent).slice(0, 5), records.slice(0, 5))
  })

  test('toModelOutput content parts through hardTruncateToolPayload: text within the budget, the image part whole', async () => {
    const image = { type: 'image-data', data: 'iVBORw0KGgo='.repeat(50_000), mediaType: 'image/png' }
    const part = await toolResultSentToModel(async () => hugeLog, {
      toModelOutput: ({ output }) => hardTruncateToolPayload({ type: 'content', value: [{ type: 'text', text: output }, image] }),
    })
    assert.equal(part.output.type, 'content')
    const [textPart, imagePart] = part.output.value
    assertWithin(textPart.text, PAYLOAD_MAX_BYTES, PAYLOAD_MAX_LINES)
    assert.match(textPart.text, NOTICE)
    assert.deepEqual(imagePart, image)
  })

  test('a thrown error with a 1 MB message reaches the model clamped', async () => {
    const hugeMessage = 'upstream said: ' + hugeLog.slice(0, 1024 * 1024)
    const part = await toolResultSentToModel(
      wrapToolWithHardOutputTruncate(async () => {
        throw new Error(hugeMessage)
      }),
    )
    // The SDK turns a thrown error into { type: 'error-text', value: error.message }.
    assert.equal(part.output.type, 'error-text')
    assertWithin(part.output.value, ERROR_MAX_BYTES, ERROR_MAX_LINES)
    // Its start and, with most of the room, its end.
    assert.match(part.output.value, MIDDLE_NOTICE)
    assert.ok(part.output.value.startsWith('upstream said: '))
    assert.ok(part.output.value.endsWith(hugeMessage.slice(hugeMessage.lastIndexOf('\n'))))
  })

  test('control: without wrapToolWithHardOutputTruncate the 1 MB error message reaches the model', async () => {
    const part = await toolResultSentToModel(async () => {
      throw new Error(hugeLog.slice(0, 1024 * 1024))
    })
    assert.equal(part.output.type, 'error-text')
    assert.ok(byteLength(part.output.value) > ERROR_MAX_BYTES)
  })
})

describe('Vercel AI SDK: streamText with preliminary tool results', () => {
  const streamPrelude = [{ type: 'stream-start', warnings: [] }]

  test('every value an async *execute yields is clamped, preliminary and final', async () => {
    const model = new MockLanguageModelV3({
      doStream: [
        {
          stream: convertArrayToReadableStream([
            ...streamPrelude,
            { type: 'tool-call', toolCallId: TOOL_CALL_ID, toolName: TOOL_NAME, input: TOOL_INPUT },
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
          ]),
        },
        {
          stream: convertArrayToReadableStream([
            ...streamPrelude,
            { type: 'text-start', id: 'answer' },
            { type: 'text-delta', id: 'answer', delta: 'Done.' },
            { type: 'text-end', id: 'answer' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
          ]),
        },
      ],
    })

    // Progress as strings and as { content } objects, then the final result (the last value).
    const yielded = [
      'reading logs...',
      hugeLog.slice(0, 1024 * 1024),
      { content: [{ type: 'text', text: hugeLog.slice(0, 2 * 1024 * 1024) }] },
      { content: [{ type: 'text', text: hugeLog }], isError: false },
    ]
    const execute = wrapToolWithHardOutputTruncate(async function* streamLogs() {
      for (const value of yielded) yield value
    })

    const result = streamText({
      model,
      prompt: 'What do the checkout logs say?',
      tools: { [TOOL_NAME]: logTool(execute) },
      stopWhen: stepCountIs(2),
    })
    const toolResults = []
    for await (const part of result.fullStream) {
      if (part.type === 'tool-result') toolResults.push(part)
      if (part.type === 'error' || part.type === 'tool-error') assert.fail(`unexpected ${part.type}: ${part.error}`)
    }

    const preliminary = toolResults.filter((part) => part.preliminary === true)
    const final = toolResults.filter((part) => part.preliminary !== true)
    assert.equal(preliminary.length, yielded.length)
    assert.equal(final.length, 1)

    // The small first value fits and passes through unchanged; every large one carries the notice.
    assert.equal(preliminary[0].output, yielded[0])
    for (const part of [...preliminary, ...final]) {
      assertWithin(textOf(part.output), PAYLOAD_MAX_BYTES, PAYLOAD_MAX_LINES)
    }
    for (const part of [...preliminary.slice(1), ...final]) assert.match(textOf(part.output), NOTICE)
    assert.deepEqual(final[0].output, preliminary.at(-1).output)
    assert.equal(final[0].output.isError, false)

    // And the final result is what the model gets on the next step.
    assert.equal(model.doStreamCalls.length, 2)
    const sent = findToolResultPart(model.doStreamCalls[1].prompt)
    assert.equal(sent.output.type, 'json')
    assertWithin(textOf(sent.output.value), PAYLOAD_MAX_BYTES, PAYLOAD_MAX_LINES)
  })
})
