// wrapToolWithHardOutputTruncate inside a real pi-agent-core Agent, offline: pi-ai's faux provider
// plays the model, which calls a tool and answers once it has seen the tool result. The tool
// streams growing partial results through onUpdate, then returns a 5 MB log, an image and details;
// a second tool throws an Error with a 1 MB message. Control runs without the wrapper show that
// the same tools overflow the limits, so these tests fail if the wrapping stops working.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'

import { Agent } from '@mariozechner/pi-agent-core'
import { Type, fauxAssistantMessage, fauxText, fauxToolCall, registerFauxProvider } from '@mariozechner/pi-ai'

import { wrapToolWithHardOutputTruncate } from '../../index.mjs'

const PAYLOAD_MAX_BYTES = 51_200
const PAYLOAD_MAX_LINES = 2_000
const ERROR_MAX_BYTES = 4_096
const ERROR_MAX_LINES = 40

const LOG_BYTES = 5 * 1024 * 1024
const SCREENSHOT_BYTES = 1024 * 1024
const ERROR_MESSAGE_BYTES = 1024 * 1024

/** Lines as the limits count them: one per '\n', plus a last line without one. */
function countLines(text) {
  let newlines = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines++
  return newlines + (text.length > 0 && !text.endsWith('\n') ? 1 : 0)
}

function textBlocksOf(content) {
  return content.filter((block) => block.type === 'text')
}

/** Bytes summed over the text blocks, and lines of their concatenation. */
function measureTextBlocks(content) {
  const texts = textBlocksOf(content).map((block) => block.text)
  return {
    bytes: texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0),
    lines: countLines(texts.join('')),
  }
}

function isOverPayloadLimits(content) {
  const { bytes, lines } = measureTextBlocks(content)
  return bytes > PAYLOAD_MAX_BYTES || lines > PAYLOAD_MAX_LINES
}

function assertWithinLimits(content, maxBytes, maxLines, what) {
  const { bytes, lines } = measureTextBlocks(content)
  assert.ok(bytes <= maxBytes, `${what}: ${bytes} bytes > ${maxBytes}`)
  assert.ok(lines <= maxLines, `${what}: ${lines} lines > ${maxLines}`)
}

/** A CI build log with non-ASCII text and emoji (4-byte UTF-8, surrogate pairs in UTF-16). */
function makeBuildLog(targetBytes) {
  const steps = [
    (i) => `INFO  [worker-${i % 8}] compiling src/módulo_${i}.rs ✓`,
    (i) => `DEBUG [cache] hit ratio ${(i % 100) / 100} — key=${(i * 2654435761) >>> 0}`,
    (i) => `WARN  [lint] unused variable \`größe_${i}\` in tests/日本語_${i}.rs 😀`,
    (i) => `INFO  [deploy] uploaded artifact #${i} 🚀 (${(i * 37) % 9000} KiB)`,
  ]
  const lines = []
  let bytes = 0
  for (let i = 1; bytes < targetBytes; i++) {
    const time = new Date(Date.UTC(2024, 4, 1, 12, 0, 0, i * 7)).toISOString()
    const line = `${time} ${steps[i % steps.length](i)}\n`
    lines.push(line)
    bytes += Buffer.byteLength(line)
  }
  return lines.join('')
}

function makePngBase64(byteCount) {
  const bytes = Buffer.alloc(byteCount)
  for (let i = 0; i < byteCount; i++) bytes[i] = (i * 31 + 7) & 0xff
  return bytes.toString('base64')
}

/** The log up to the end of the line holding byte-ish offset `at`, so no emoji is cut in half. */
function logPrefix(log, at) {
  const lineEnd = log.indexOf('\n', at)
  return lineEnd === -1 ? log : log.slice(0, lineEnd + 1)
}

// Built once; every call returns fresh result objects around these strings.
const BUILD_LOG = makeBuildLog(LOG_BYTES)
const SCREENSHOT_BASE64 = makePngBase64(SCREENSHOT_BYTES)
const HUGE_ERROR_MESSAGE = 'Command failed: cargo build --release (exit code 101)\n' + makeBuildLog(ERROR_MESSAGE_BYTES)

// Partial results grow from well under to far over the limits (the log is streamed as it comes in).
const PARTIAL_LOG_SIZES = [4_000, 30_000, 200_000, 1_500_000, LOG_BYTES]

/**
 * The tool the model calls. It keeps what it sent, so tests can compare the agent's view with
 * the tool's own output.
 */
function makeBuildLogTool() {
  const sent = { partials: [], result: undefined }
  const tool = {
    name: 'read_build_log',
    label: 'Read build log',
    description: 'Returns the log and the failure screenshot of a CI build.',
    parameters: Type.Object({ buildId: Type.String() }),
    async execute(toolCallId, params, signal, onUpdate) {
      for (const size of PARTIAL_LOG_SIZES) {
        const partial = {
          content: [{ type: 'text', text: logPrefix(BUILD_LOG, size) }],
          details: { buildId: params.buildId, streaming: true },
        }
        sent.partials.push(partial)
        onUpdate?.(partial)
        await new Promise((resolve) => setImmediate(resolve))
      }
      sent.result = {
        content: [
          { type: 'text', text: `Build ${params.buildId} failed. Full log follows.\n` },
          { type: 'text', text: BUILD_LOG },
          { type: 'image', data: SCREENSHOT_BASE64, mimeType: 'image/png' },
        ],
        details: { buildId: params.buildId, exitCode: 101, logBytes: Buffer.byteLength(BUILD_LOG) },
      }
      return sent.result
    },
  }
  return { tool, sent }
}

function makeFailingTool() {
  return {
    name: 'run_build',
    label: 'Run build',
    description: 'Runs the build and returns its summary.',
    parameters: Type.Object({ target: Type.String() }),
    async execute() {
      throw new Error(HUGE_ERROR_MESSAGE)
    },
  }
}

const fauxProviders = []
after(() => {
  for (const faux of fauxProviders) faux.unregister()
})

/**
 * One agent run: the faux model calls `tool` with `args`, then answers after seeing the result.
 * Returns the transcript, every agent event, and the tool result as the model received it.
 */
async function runAgentWithTool(tool, args) {
  const faux = registerFauxProvider()
  fauxProviders.push(faux)
  let toolResultSeenByModel
  faux.setResponses([
    fauxAssistantMessage(fauxToolCall(tool.name, args, { id: 'call_1' }), { stopReason: 'toolUse' }),
    (context) => {
      toolResultSeenByModel = context.messages.find((message) => message.role === 'toolResult')
      return fauxAssistantMessage(fauxText('The build failed; see the log above.'))
    },
  ])

  const agent = new Agent({
    initialState: { systemPrompt: 'You investigate CI failures.', model: faux.getModel(), tools: [tool] },
  })
  const events = []
  agent.subscribe((event) => {
    events.push(event)
  })
  await agent.prompt('Why did build 7421 fail?')

  assert.equal(agent.state.errorMessage, undefined)
  const messages = agent.state.messages
  const toolResults = messages.filter((message) => message.role === 'toolResult')
  assert.equal(toolResults.length, 1)
  assert.equal(messages.at(-1).role, 'assistant')
  assert.equal(messages.at(-1).stopReason, 'stop')
  assert.equal(faux.getPendingResponseCount(), 0)
  return { toolResult: toolResults[0], events, toolResultSeenByModel }
}

function eventsOfType(events, type) {
  return events.filter((event) => event.type === type)
}

test('the wrapped tool keeps its other properties and leaves the original alone', () => {
  const { tool } = makeBuildLogTool()
  const originalExecute = tool.execute
  const wrapped = wrapToolWithHardOutputTruncate(tool)

  assert.notEqual(wrapped, tool)
  assert.equal(wrapped.name, tool.name)
  assert.equal(wrapped.label, tool.label)
  assert.equal(wrapped.description, tool.description)
  assert.equal(wrapped.parameters, tool.parameters)
  assert.equal(typeof wrapped.execute, 'function')
  assert.notEqual(wrapped.execute, originalExecute)
  assert.equal(tool.execute, originalExecute)
})

test('a 5 MB log with an image: the transcript, the model and every update stay within the limits', async () => {
  const { tool, sent } = makeBuildLogTool()
  const { toolResult, events, toolResultSeenByModel } = await runAgentWithTool(wrapToolWithHardOutputTruncate(tool), { buildId: '7421' })

  assert.equal(toolResult.toolName, 'read_build_log')
  assert.equal(toolResult.isError, false)
  assertWithinLimits(toolResult.content, PAYLOAD_MAX_BYTES, PAYLOAD_MAX_LINES, 'toolResult')
  const text = textBlocksOf(toolResult.content)
    .map((block) => block.text)
    .join('')
  assert.match(text, /truncated/)
  assert.ok(text.startsWith('Build 7421 failed. Full log follows.\n'), 'the head of the output is kept')

  // The image is never read or cut, and stays in place after the text.
  const originalImage = sent.result.content[2]
  const image = toolResult.content.find((block) => block.type === 'image')
  assert.ok(image, 'the image block is in the tool result')
  assert.equal(image.data, SCREENSHOT_BASE64)
  assert.equal(image.mimeType, 'image/png')
  assert.equal(image, originalImage)
  assert.equal(toolResult.content.length, sent.result.content.length)
  assert.equal(toolResult.content.at(-1), image)

  // pi-agent-core copies `details` onto the toolResult message by reference.
  assert.equal(toolResult.details, sent.result.details)

  // What the model was sent in its next request is the same clamped message.
  assert.ok(toolResultSeenByModel, 'the model saw a tool result')
  assert.deepEqual(toolResultSeenByModel.content, toolResult.content)

  // tool_execution_end carries the same clamped result.
  const [end] = eventsOfType(events, 'tool_execution_end')
  assert.equal(end.isError, false)
  assertWithinLimits(end.result.content, PAYLOAD_MAX_BYTES, PAYLOAD_MAX_LINES, 'tool_execution_end')

  // Every streamed partial reached listeners clamped, though the tool sent some far over the limits.
  const updates = eventsOfType(events, 'tool_execution_update')
  assert.equal(updates.length, PARTIAL_LOG_SIZES.length)
  assert.ok(
    sent.partials.some((partial) => isOverPayloadLimits(partial.content)),
    'some partials were over the limits',
  )
  for (const [i, update] of updates.entries()) {
    assertWithinLimits(update.partialResult.content, PAYLOAD_MAX_BYTES, PAYLOAD_MAX_LINES, `update ${i}`)
    assert.equal(update.partialResult.details, sent.partials[i].details)
  }
  // Partials already within the limits pass through untouched.
  assert.equal(updates[0].partialResult, sent.partials[0])
})

test('control: without the wrapper the same tool overflows the transcript and the updates', async () => {
  const { tool } = makeBuildLogTool()
  const { toolResult, events } = await runAgentWithTool(tool, { buildId: '7421' })

  assert.ok(isOverPayloadLimits(toolResult.content), 'the unwrapped tool result is over the limits')
  assert.ok(measureTextBlocks(toolResult.content).bytes > LOG_BYTES)
  const updates = eventsOfType(events, 'tool_execution_update')
  assert.ok(
    updates.some((update) => isOverPayloadLimits(update.partialResult.content)),
    'some unwrapped updates are over the limits',
  )
})

// pi-agent-core catches a throw from execute and makes an error tool result of `error.message`:
// { content: [{ type: 'text', text: message }], details: {} } with isError: true.
test('a thrown 1 MB error becomes an error tool result clamped to the error limits', async () => {
  const { toolResult, events, toolResultSeenByModel } = await runAgentWithTool(wrapToolWithHardOutputTruncate(makeFailingTool()), {
    target: 'release',
  })

  assert.equal(toolResult.toolName, 'run_build')
  assert.equal(toolResult.isError, true)
  assert.equal(textBlocksOf(toolResult.content).length, 1)
  assertWithinLimits(toolResult.content, ERROR_MAX_BYTES, ERROR_MAX_LINES, 'error toolResult')
  const [{ text }] = textBlocksOf(toolResult.content)
  assert.ok(text.startsWith('Command failed: cargo build --release (exit code 101)\n'))
  assert.match(text, /truncated/)

  const [end] = eventsOfType(events, 'tool_execution_end')
  assert.equal(end.isError, true)
  assertWithinLimits(end.result.content, ERROR_MAX_BYTES, ERROR_MAX_LINES, 'error tool_execution_end')
  assert.deepEqual(toolResultSeenByModel.content, toolResult.content)
})

test('control: without the wrapper the thrown error reaches the transcript whole', async () => {
  const { toolResult } = await runAgentWithTool(makeFailingTool(), { target: 'release' })

  assert.equal(toolResult.isError, true)
  const [{ text }] = textBlocksOf(toolResult.content)
  assert.equal(text, HUGE_ERROR_MESSAGE)
  const { bytes, lines } = measureTextBlocks(toolResult.content)
  assert.ok(bytes > ERROR_MAX_BYTES && lines > ERROR_MAX_LINES)
})

test('a 5 MB object as JSON text and details: the model gets at most the budget, details are bounded to 8 KiB', async () => {
  const rows = Array.from({ length: 60_000 }, (_, id) => ({ id, path: `src/module-${id}.ts`, status: 'ok' }))
  const details = { rows }
  const tool = {
    name: 'list_modules',
    label: 'List modules',
    description: 'Lists every module with its status.',
    parameters: Type.Object({ buildId: Type.String() }),
    async execute() {
      return { content: [{ type: 'text', text: JSON.stringify(details) }], details }
    },
  }
  assert.ok(Buffer.byteLength(JSON.stringify(details)) > 3_000_000)
  const { toolResult, toolResultSeenByModel } = await runAgentWithTool(wrapToolWithHardOutputTruncate(tool), { buildId: '7421' })
  assertWithinLimits(toolResultSeenByModel.content, PAYLOAD_MAX_BYTES, PAYLOAD_MAX_LINES, 'model')
  // details never reach the model (pi-ai's providers do not send them): outside the budget,
  // bounded to 8 KiB as OpenClaw bounds the details it persists, schema-safe.
  const kept = toolResult.details.rows
  assert.ok(Buffer.byteLength(JSON.stringify(toolResult.details)) <= 8192)
  assert.ok(kept.length > 100 && kept.length < rows.length)
  assert.deepEqual(kept, rows.slice(0, kept.length))
  // Small details stay by reference.
  const small = { buildId: '7421' }
  const smallTool = {
    ...tool,
    name: 'small',
    async execute() {
      return { content: [{ type: 'text', text: 'ok' }], details: small }
    },
  }
  const fromSmall = await runAgentWithTool(wrapToolWithHardOutputTruncate(smallTool), { buildId: '7421' })
  assert.equal(fromSmall.toolResult.details, small)
})
