// Tool results of every shape: what hardTruncateToolPayload clamps in each, and that what a model
// reads of the result (text as it is, JSON data as its compact JSON) is within the budget. The
// round trips through the real frameworks live in __test__/frameworks/.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'

import { ToolMessage } from '@langchain/core/messages'
import { Command } from '@langchain/langgraph'

import { hardTruncateToolPayload, wrapToolWithHardOutputTruncate } from '../index.mjs'
import { measure } from './reference.mjs'
import { deepFreeze } from './helpers.mjs'
import { assertSentWithin, fitsBudget, payloadBudget, sentSize } from './sent.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 300)
const DEFAULTS = { maxChars: Infinity, maxBytes: 51_200, maxLines: 2_000 }

// ---- Helpers

const numberedLines = (count, prefix = 'line') => Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}\n`).join('')
const HUGE = numberedLines(300_000) // 3.5 MB, 300,000 lines
const text = (t) => ({ type: 'text', text: t })
const bytes = (s) => Buffer.byteLength(s)
const jsonBytes = (value) => bytes(JSON.stringify(value))

/** What a model may read of `value` (see sent.mjs) is within the budget; returns its size. */
function assertWithin(value, limits = DEFAULTS, options = {}) {
  return assertSentWithin(value, { ...limits, ...options })
}

/**
 * `clamped` is `original` shortened schema-safe with the head kept: the same kind of value,
 * objects with a subset of the keys, arrays a prefix of the items, strings a prefix, and
 * nothing added.
 */
function assertHeadOf(clamped, original, path = '$') {
  if (typeof original === 'string') {
    assert.equal(typeof clamped, 'string', path)
    assert.ok(original.startsWith(clamped), `${path}: not a prefix`)
  } else if (Array.isArray(original)) {
    assert.ok(Array.isArray(clamped) && clamped.length <= original.length, path)
    clamped.forEach((item, i) => assertHeadOf(item, original[i], `${path}[${i}]`))
  } else if (original !== null && typeof original === 'object') {
    assert.ok(clamped !== null && typeof clamped === 'object' && !Array.isArray(clamped), path)
    for (const key of Object.keys(clamped)) {
      assert.ok(Object.hasOwn(original, key), `${path}.${key} was added`)
      assertHeadOf(clamped[key], original[key], `${path}.${key}`)
    }
  } else assert.equal(clamped, original, path)
}

// ---- JSON data

describe('JSON data: any object or non-block array', () => {
  test('a 5 MB object: its compact JSON within the budget, small fields whole, idempotent', () => {
    const input = deepFreeze({ command: 'npm test', stdout: HUGE, stderr: 'FAIL src/a.test.js', exitCode: 1 })
    const clamped = hardTruncateToolPayload(input)
    assert.notEqual(clamped, input)
    assert.ok(jsonBytes(clamped) <= DEFAULTS.maxBytes)
    assert.deepEqual(Object.keys(clamped), Object.keys(input))
    assert.equal(clamped.stderr, input.stderr)
    assert.equal(clamped.exitCode, 1)
    assert.ok(HUGE.startsWith(clamped.stdout.slice(0, clamped.stdout.indexOf('[... '))))
    assert.equal(hardTruncateToolPayload(clamped), clamped)
  })

  test('arrays of strings and of records are JSON data, ending with a marker of what was left out', () => {
    const lines = deepFreeze(HUGE.split('\n'))
    const records = deepFreeze(lines.slice(0, 100_000).map((line, id) => ({ id, line })))
    for (const input of [lines, records]) {
      const clamped = hardTruncateToolPayload(input)
      assert.ok(jsonBytes(clamped) <= DEFAULTS.maxBytes)
      assert.deepEqual(clamped.slice(0, 10), input.slice(0, 10))
      assert.match(clamped.at(-1), /^\[\.\.\. [\d,]+ more items\]$/)
    }
  })

  test('arrays of only numbers, booleans and null are JSON data, clamped like any array', async () => {
    const ids = deepFreeze(Array.from({ length: 1_000_000 }, (_, i) => i)) // 6.9 MB of JSON
    const flags = deepFreeze(Array.from({ length: 100_000 }, (_, i) => (i % 3 === 0 ? null : i % 3 === 1)))
    for (const [input, clamped] of [
      [ids, hardTruncateToolPayload(ids)],
      [flags, await wrapToolWithHardOutputTruncate(async () => flags)()],
    ]) {
      assert.ok(jsonBytes(clamped) <= DEFAULTS.maxBytes, `${jsonBytes(clamped)} bytes`)
      assert.deepEqual(clamped.slice(0, 10), input.slice(0, 10))
      assert.match(clamped.at(-1), /^\[\.\.\. [\d,]+ more items\]$/)
    }
    // Small ones fit and come back as they are.
    const small = [1, 2, null, true]
    assert.equal(hardTruncateToolPayload(small), small)
  })

  test('records with a block type but no media in them are data; media blocks are left alone', () => {
    // A directory listing: `type: 'file'` with no data, URL or file id in it.
    const listing = Array.from({ length: 100_000 }, (_, i) => ({ type: 'file', path: `src/module-${i}.ts`, size: i }))
    const clamped = hardTruncateToolPayload(listing)
    assert.ok(jsonBytes(clamped) <= DEFAULTS.maxBytes)
    assert.deepEqual(clamped[0], listing[0])
    // Real media blocks (data, url, file id) are never read or cut, however large.
    const image = { type: 'image', data: 'A'.repeat(5_000_000), mimeType: 'image/png' }
    const media = [image, { type: 'file', file: { url: 'https://example.com/a.pdf' } }, { type: 'image-url', url: 'https://x/y.png' }]
    assert.equal(hardTruncateToolPayload(media), media)
  })

  test('values that fit come back as the very same value; scalars as they are', () => {
    const values = [{ a: 1, b: [1, 2, 'x'] }, ['a', 'b'], [{ id: 1 }], new Date(0), new Map([['k', HUGE]]), 42, null, true, undefined, 10n]
    for (const value of values) assert.equal(hardTruncateToolPayload(value), value)
  })

  test('a class instance with a toJSON is clamped as the JSON it renders', () => {
    class Report {
      toJSON() {
        return { log: HUGE }
      }
    }
    const clamped = hardTruncateToolPayload(new Report())
    assert.ok(jsonBytes(clamped) <= DEFAULTS.maxBytes)
    assert.ok(HUGE.startsWith(clamped.log.slice(0, 1000)))
  })
})

// ---- Data among blocks

describe('data among content blocks', () => {
  test('block text and data items share ONE budget', () => {
    const record = { rows: HUGE.split('\n') }
    const input = deepFreeze([text(HUGE), record, HUGE, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }])
    const clamped = hardTruncateToolPayload(input)
    assert.equal(clamped.length, input.length)
    assert.equal(clamped[3], input[3])
    const size = assertWithin(clamped)
    // What one part leaves, the other uses: the budget is not split and half wasted.
    assert.ok(size.bytes > DEFAULTS.maxBytes * 0.9, `only ${size.bytes} bytes used`)
    assert.ok(clamped[0].text.length > 1000 && JSON.stringify(clamped[1]).length > 1000, 'both parts keep something')
  })

  test('a small data item among huge text gets what it needs and is kept whole', () => {
    const note = { summary: 'ok', failures: 0 }
    const input = [text(HUGE), note, 'a bare note']
    const clamped = hardTruncateToolPayload(input)
    assert.equal(clamped[1], note)
    assert.equal(clamped[2], 'a bare note')
    assertWithin(clamped)
  })
})

// ---- MCP structuredContent

describe('MCP CallToolResult.structuredContent', () => {
  const rows = Array.from({ length: 40_000 }, (_, id) => ({ id, path: `src/module-${id}.ts`, message: `unused import ${id}` }))
  const report = deepFreeze({ status: 'failed', total: rows.length, rows, log: HUGE })

  test('content, the note and structuredContent together stay within the budget; structuredContent keeps the head, adds nothing', () => {
    // isError and _meta are sent too (as JSON, one line): 4 lines leave the note its line.
    for (const limits of [undefined, { maxBytes: 4096 }, { maxChars: 3000 }, { maxLines: 5 }, { maxBytes: 300, maxLines: 4 }]) {
      for (const isError of [false, true]) {
        const input = deepFreeze({ content: [text(`Lint failed.\n${HUGE}`)], structuredContent: report, isError, _meta: { id: 7 } })
        const clamped = hardTruncateToolPayload(input, limits)
        assertWithin(clamped, limits)
        assert.equal(clamped.isError, isError)
        assert.equal(clamped._meta, input._meta)
        assert.ok(clamped.content.at(-1).text.startsWith('[structuredContent shortened'), JSON.stringify(limits))
        if (!isError) {
          assertHeadOf(clamped.structuredContent, report)
          continue
        }
        // A failed result keeps both ends ('headTail'): the last rows too, nothing added.
        assert.deepEqual(
          Object.keys(clamped.structuredContent),
          Object.keys(report).filter((key) => key in clamped.structuredContent),
        )
        const kept = clamped.structuredContent.rows
        if (kept !== undefined && kept.length > 1) assert.deepEqual([kept[0], kept.at(-1)], [rows[0], rows.at(-1)])
      }
    }
  })

  test('the note says what was shortened, on one line of at most 512 bytes, and how many more places', () => {
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`field_${i}`, 'x'.repeat(2000)]))
    const clamped = hardTruncateToolPayload({ content: [], structuredContent: many })
    const note = clamped.content.at(-1).text
    assert.match(note, /^\[structuredContent shortened to [\d,]+ of [\d,]+ bytes: \$\.field_0: [\d,]+ of 2,000 bytes; .*; [\d,]+ more\]$/)
    assert.ok(bytes(note) <= 512 && !note.includes('\n'))
    assertWithin(clamped)
  })

  test("a text block holding structuredContent's JSON (the MCP convention) holds the clamped value's JSON", () => {
    const input = { content: [text(JSON.stringify(report))], structuredContent: report }
    const clamped = hardTruncateToolPayload(input)
    assert.deepEqual(JSON.parse(clamped.content[0].text), clamped.structuredContent)
    assert.ok(clamped.structuredContent.rows.length > 10)
    assert.match(clamped.content[1].text, /\$\.rows: [\d,]+ of 40,000 items/)
    assertWithin(clamped)
  })

  test('the text block mirroring structuredContent parses as the clamped value, whatever other blocks hold', () => {
    const mirror = (value) => text(JSON.stringify(value))
    const report = deepFreeze({ status: 'failed', rows: rows.slice(0, 3000), log: HUGE.slice(0, 200_000) })
    const cases = [
      [text(HUGE), mirror(report)],
      [mirror(report), text(HUGE)],
      [text('Lint failed.'), mirror(report), text(HUGE), { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }],
      [text('x'.repeat(30_000)), mirror(report)],
    ]
    for (const limits of [undefined, { maxBytes: 4096 }, { maxLines: 5 }, { maxChars: 2000, strategy: 'tail' }]) {
      for (const content of cases) {
        const input = deepFreeze({ content, structuredContent: report })
        const clamped = hardTruncateToolPayload(input, limits)
        assertWithin(clamped, limits)
        const at = content.findIndex((block) => block.text === JSON.stringify(report))
        assert.deepEqual(JSON.parse(clamped.content[at].text), clamped.structuredContent, JSON.stringify(limits))
      }
    }
    // Only content over budget: the mirror is never cut as text.
    const small = { status: 'ok', total: 3 }
    const fromSmall = hardTruncateToolPayload({ content: [text(HUGE), mirror(small)], structuredContent: small })
    assert.equal(fromSmall.content[1].text, JSON.stringify(small))
    assertWithin(fromSmall)
    // Too small for the JSON twice: the mirror is emptied, never cut.
    const tiny = hardTruncateToolPayload({ content: [mirror(small), text(HUGE)], structuredContent: small }, { maxLines: 1 })
    assert.equal(tiny.content[0].text, '')
    assertWithin(tiny, { maxLines: 1 })
  })

  test('small structuredContent is kept whole and content gets the rest of the budget', () => {
    const structured = { status: 'failed', errors: 3 }
    const wide = numberedLines(20_000, 'x'.repeat(200))
    const clamped = hardTruncateToolPayload({ content: [text(wide)], structuredContent: structured })
    assert.equal(clamped.structuredContent, structured)
    assert.equal(clamped.content.length, 1, 'no note: structuredContent was not shortened')
    const size = assertWithin(clamped)
    assert.ok(size.bytes > DEFAULTS.maxBytes - 512, `${size.bytes} bytes`)
  })

  test('a result that fits comes back as the very same object; no content gets a content with the note', () => {
    const small = { content: [text('ok')], structuredContent: { ok: true } }
    assert.equal(hardTruncateToolPayload(small), small)
    const clamped = hardTruncateToolPayload({ structuredContent: report })
    assert.equal(clamped.content.length, 1)
    assert.match(clamped.content[0].text, /^\[structuredContent shortened/)
  })

  test('limits too small for any JSON form never throw and are never exceeded: structuredContent is {} or gone', () => {
    for (const maxBytes of [0, 1, 2, 3, 4, 5, 40]) {
      const clamped = hardTruncateToolPayload({ content: [text(HUGE)], structuredContent: report }, { maxBytes })
      // {} when its share holds 2 bytes; under that, no JSON fits: it is left out.
      assert.ok(clamped.structuredContent === undefined || typeof clamped.structuredContent === 'object')
      assertWithin(clamped, { maxBytes })
    }
  })
})

// ---- AI SDK

describe('AI SDK ToolResultOutput', () => {
  test("'text' and 'error-text' values are clamped as text, 'json' and 'error-json' as JSON", () => {
    for (const type of ['text', 'error-text']) {
      const clamped = hardTruncateToolPayload(deepFreeze({ type, value: HUGE }))
      assert.equal(clamped.type, type)
      assert.ok(bytes(clamped.value) <= DEFAULTS.maxBytes)
      // An error keeps its end too.
      assert.match(clamped.value, type === 'text' ? /truncated at the end/ : /truncated in the middle/)
    }
    for (const type of ['json', 'error-json']) {
      const value = { log: HUGE, code: 2 }
      const clamped = hardTruncateToolPayload(deepFreeze({ type, value }))
      assert.equal(clamped.type, type)
      assert.ok(jsonBytes(clamped.value) <= DEFAULTS.maxBytes)
      assert.equal(clamped.value.code, 2)
    }
  })

  test("'content' parts: text parts share the budget, media parts are the same objects", () => {
    const media = { type: 'image-data', data: 'A'.repeat(1_000_000), mediaType: 'image/png' }
    const input = deepFreeze({ type: 'content', value: [text(HUGE), media, text(HUGE)] })
    const clamped = hardTruncateToolPayload(input)
    assert.equal(clamped.value[1], media)
    assertWithin(clamped.value)
  })

  test('any other output type is JSON data with its keys kept', () => {
    const input = { type: 'execution-denied', reason: HUGE }
    const clamped = hardTruncateToolPayload(input)
    assert.equal(clamped.type, 'execution-denied')
    assert.ok(jsonBytes(clamped) <= DEFAULTS.maxBytes)
  })
})

// ---- OpenAI Agents / Responses

describe('OpenAI Agents SDK and Responses API output items', () => {
  test('function_call_output with a string, function_call_result with a text output or input_text parts', () => {
    const responses = hardTruncateToolPayload(deepFreeze({ type: 'function_call_output', call_id: 'c1', output: HUGE }))
    assert.equal(responses.call_id, 'c1')
    assert.ok(bytes(responses.output) <= DEFAULTS.maxBytes)
    const item = (output) => deepFreeze({ type: 'function_call_result', callId: 'c1', name: 'run', status: 'completed', output })
    const single = hardTruncateToolPayload(item({ type: 'text', text: HUGE }))
    assert.equal(single.output.type, 'text')
    assert.ok(bytes(single.output.text) <= DEFAULTS.maxBytes)
    const image = { type: 'input_image', image: 'data:image/png;base64,' + 'A'.repeat(100_000) }
    const parts = hardTruncateToolPayload(item([{ type: 'input_text', text: HUGE }, image, { type: 'input_text', text: HUGE }]))
    assert.equal(parts.output[1], image)
    assertWithin(parts.output)
    assert.equal(parts.callId, 'c1')
  })

  test('an object output (sent as JSON text) is clamped as JSON', () => {
    const clamped = hardTruncateToolPayload({ type: 'function_call_result', callId: 'c', output: { stdout: HUGE } })
    assert.ok(jsonBytes(clamped.output) <= DEFAULTS.maxBytes)
  })
})

// ---- LangChain

describe("LangChain: responseFormat 'content_and_artifact', ToolMessage and Command", () => {
  test('of a [content, artifact] tuple only the content is clamped; the artifact is the same object', async () => {
    const artifact = { matches: HUGE.split('\n') }
    const limits = { responseFormat: 'content_and_artifact' }
    for (const content of [HUGE, [text(HUGE), text(HUGE)], { log: HUGE }]) {
      const [clamped, kept] = hardTruncateToolPayload(deepFreeze([content, artifact]), limits)
      assert.equal(kept, artifact)
      assertWithin(clamped, DEFAULTS)
    }
    const small = ['ok', artifact]
    assert.equal(hardTruncateToolPayload(small, limits), small)
    // Through wrapToolWithHardOutputTruncate, as LangChain's tool() calls it.
    const [content, fromTool] = await wrapToolWithHardOutputTruncate(async () => [HUGE, artifact], limits)({})
    assert.ok(bytes(content) <= DEFAULTS.maxBytes)
    assert.equal(fromTool, artifact)
  })

  test('without responseFormat a 2-item array is data; a bad responseFormat throws when wrapping', () => {
    const pair = [HUGE, { matches: 1 }]
    const clamped = hardTruncateToolPayload(pair)
    assert.ok(jsonBytes(clamped) <= DEFAULTS.maxBytes)
    assert.throws(
      () => wrapToolWithHardOutputTruncate(async () => 1, { responseFormat: 'artifact' }),
      /responseFormat must be "content" or "content_and_artifact"/,
    )
  })

  test('a ToolMessage returned as it is keeps its class and artifact, with its content clamped', () => {
    const artifact = { rows: 5 }
    const message = new ToolMessage({ content: HUGE, tool_call_id: 'call-1', artifact })
    const clamped = hardTruncateToolPayload(message)
    assert.ok(clamped instanceof ToolMessage)
    assert.ok(ToolMessage.isInstance(clamped))
    assert.equal(clamped.tool_call_id, 'call-1')
    assert.equal(clamped.artifact, artifact)
    assert.ok(bytes(clamped.content) <= DEFAULTS.maxBytes)
    assert.equal(clamped.lc_kwargs.content, clamped.content)
    assert.equal(message.content, HUGE, 'the original is not mutated')
  })

  test("a Command's ToolMessages are clamped; the rest of its update is left alone", () => {
    const state = { files: HUGE }
    const command = new Command({ update: { messages: [new ToolMessage({ content: HUGE, tool_call_id: 'call-1' })], state } })
    const clamped = hardTruncateToolPayload(command)
    assert.ok(clamped instanceof Command)
    assert.equal(clamped.lc_direct_tool_output, true)
    assert.ok(bytes(clamped.update.messages[0].content) <= DEFAULTS.maxBytes)
    assert.equal(clamped.update.state, state)
    assert.equal(command.update.messages[0].content, HUGE)
  })

  test("a Command's update in every form LangGraph takes: one ToolMessage, [key, value] tuples, a root list", () => {
    const big = 'x\n'.repeat(450_000) // 900 KB
    const message = () => new ToolMessage({ content: big, tool_call_id: 'call-1' })
    const state = { files: HUGE }
    const single = deepFreeze(new Command({ update: { messages: message(), state } }))
    const fromSingle = hardTruncateToolPayload(single)
    assert.ok(fromSingle instanceof Command)
    assert.ok(ToolMessage.isInstance(fromSingle.update.messages))
    assert.ok(bytes(fromSingle.update.messages.content) <= DEFAULTS.maxBytes)
    assert.equal(fromSingle.update.state, state)
    assert.equal(single.update.messages.content, big, 'the original is not mutated')

    const tuples = deepFreeze(
      new Command({
        update: [
          ['messages', [message()]],
          ['state', state],
          ['other', message()],
        ],
      }),
    )
    const fromTuples = hardTruncateToolPayload(tuples)
    assert.ok(Array.isArray(fromTuples.update) && fromTuples.update.every((t) => Array.isArray(t) && t.length === 2))
    assert.deepEqual(
      fromTuples._updateAsTuples().map(([key]) => key),
      ['messages', 'state', 'other'],
    )
    assert.ok(bytes(fromTuples.update[0][1][0].content) <= DEFAULTS.maxBytes)
    assert.equal(fromTuples.update[1], tuples.update[1], 'other channels are left alone')
    assert.equal(fromTuples.update[2], tuples.update[2], 'only the messages channel reaches the model')

    const oneTuple = hardTruncateToolPayload(new Command({ update: [['messages', message()]] }))
    assert.ok(bytes(oneTuple.update[0][1].content) <= DEFAULTS.maxBytes)
    // A list that is no tuple list goes to the root channel: a list of messages.
    const root = hardTruncateToolPayload(new Command({ update: [message()] }))
    assert.ok(bytes(root.update[0].content) <= DEFAULTS.maxBytes)

    // Several ToolMessages share the budget, in order.
    const two = hardTruncateToolPayload(new Command({ update: { messages: [message(), message()] } }))
    const total = two.update.messages.reduce((sum, m) => sum + bytes(m.content), 0)
    assert.ok(total <= DEFAULTS.maxBytes, `${total} bytes`)
    assert.ok(measure(two.update.messages[0].content).lines + measure(two.update.messages[1].content).lines <= DEFAULTS.maxLines)
  })

  test('wrapping a LangChain tool object says to wrap its function instead', async () => {
    const { tool } = await import('@langchain/core/tools')
    const { z } = await import('zod')
    const langChainTool = tool(async () => 'ok', { name: 'a', description: 'b', schema: z.object({}) })
    assert.throws(
      () => wrapToolWithHardOutputTruncate(langChainTool),
      /^TypeError: tool must be a function or an object with an execute function, got .*; for a LangChain tool, wrap the function given to tool\(\) instead, with the same responseFormat$/,
    )
    // The function given to tool() is wrapped as it is.
    const wrapped = tool(
      wrapToolWithHardOutputTruncate(async () => 'ok'),
      { name: 'a', description: 'b', schema: z.object({}) },
    )
    assert.equal(await wrapped.invoke({}), 'ok')
  })
})

// ---- pi details

test('pi AgentToolResult: details never reach the model; small ones are the very same value, large ones bounded to 8 KiB', () => {
  const small = { lines: 300_000, path: 'build.log' }
  const fromSmall = hardTruncateToolPayload({ content: [text(HUGE)], details: small })
  assert.equal(fromSmall.details, small)
  assertWithin(fromSmall)
  // OpenClaw caps the details it persists at 8 KiB; toolclamp bounds them the same way,
  // schema-safe (shorter strings and arrays, nothing added), outside the model's budget.
  const details = deepFreeze({ exitCode: 1, log: HUGE, files: HUGE.split('\n') })
  const clamped = hardTruncateToolPayload({ content: [text('done')], details })
  assert.ok(jsonBytes(clamped.details) <= 8192, `${jsonBytes(clamped.details)} bytes`)
  assert.ok(jsonBytes(clamped.details) > 8000, 'the bound is used, not wasted')
  assertHeadOf(clamped.details, details)
  assert.equal(clamped.details.exitCode, 1)
  assert.equal(clamped.content[0].text, 'done', 'details take nothing from the budget')
})

// ---- Every field a framework sends

describe('results with content: every field a framework sends shares the budget', () => {
  test('{ content: [], stdout } : stdout is clamped as JSON data; small keys stay whole', () => {
    const input = deepFreeze({ content: [], stdout: 'x\n'.repeat(500_000), exitCode: 2, isError: true })
    const clamped = hardTruncateToolPayload(input)
    assertWithin(clamped)
    assert.equal(clamped.content, input.content)
    assert.equal(clamped.exitCode, 2)
    assert.equal(clamped.isError, true)
    assert.deepEqual(Object.keys(clamped), Object.keys(input))
    // A failed result (isError) keeps both ends of its data: the marker stands in the middle.
    assert.match(clamped.stdout, /^x\n[^]*\[\.\.\. [\d,]+ bytes truncated\][^]*x\n$/)
    assert.match(hardTruncateToolPayload({ ...input, isError: false }).stdout, /\[\.\.\. [\d,]+ bytes truncated\]$/)
    // Through wrapToolWithHardOutputTruncate, as the AI SDK and the OpenAI Agents SDK call it.
    assertWithin(wrapToolWithHardOutputTruncate(() => input)())
  })

  test('content text and other keys share the budget; many keys end with a marker key', () => {
    const input = {
      content: [text(HUGE)],
      log: HUGE,
      ...Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 'v'.repeat(40)])),
    }
    const clamped = hardTruncateToolPayload(input)
    const size = assertWithin(clamped)
    assert.ok(size.bytes > DEFAULTS.maxBytes * 0.9, `only ${size.bytes} bytes used`)
    assert.ok(clamped.content[0].text.length > 1000, 'content keeps its share')
    assert.match(clamped['…'], /^\[\.\.\. [\d,]+ more keys\]$/)
    // A non-enumerable key is never sent as JSON: kept as it is.
    const hidden = Object.defineProperty({ content: [text(HUGE)] }, 'raw', { value: HUGE, enumerable: false })
    assert.equal(hardTruncateToolPayload(hidden).raw, HUGE)
  })

  test('tiny limits leave no other data rather than go over', () => {
    const clamped = hardTruncateToolPayload({ content: [text('abc')], stdout: HUGE }, { maxBytes: 3 })
    assertWithin(clamped, { maxBytes: 3 })
  })
})

// ---- Hostile values

describe('hostile values', () => {
  const throwing = (key, object = {}) =>
    Object.defineProperty(object, key, {
      enumerable: true,
      get() {
        throw new Error(`no ${key}`)
      },
    })
  const failing = (list, fails) =>
    new Proxy(list, {
      get(target, key, receiver) {
        if (fails(key)) throw new Error(`no ${String(key)}`)
        return Reflect.get(target, key, receiver)
      },
    })
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    return proxy
  }

  test('throwing getters and revoked proxies in every shape never make the clamp throw', () => {
    const values = [
      revoked(),
      throwing('structuredContent'),
      throwing('content'),
      throwing('value', { type: 'json' }),
      throwing('output', { type: 'function_call_result' }),
      throwing('lc_direct_tool_output'),
      { content: [text(HUGE)], structuredContent: revoked() },
      { content: revoked(), structuredContent: { a: 1 } },
      { content: [revoked(), text(HUGE), throwing('type')], structuredContent: { log: HUGE } },
      { type: 'json', value: revoked() },
      { type: 'content', value: [revoked(), text(HUGE)] },
      { type: 'function_call_output', output: [throwing('text'), { type: 'input_text', text: HUGE }] },
      { lc_direct_tool_output: true, tool_call_id: 'c', content: revoked() },
      { lc_direct_tool_output: true, update: { messages: [revoked(), { tool_call_id: 'c', content: HUGE }] } },
      [text(HUGE), throwing('bad', { big: HUGE })],
      // Lists whose index, length or methods throw.
      failing([text(HUGE), `data ${HUGE}`, { a: 1 }], (key) => key === '2'),
      failing([text(HUGE), HUGE], (key) => key === 'slice' || key === 'length'),
      { content: failing([text(HUGE), text(HUGE)], (key) => key === '1'), structuredContent: { log: HUGE } },
      { lc_direct_tool_output: true, update: { messages: failing([{ tool_call_id: 'c', content: HUGE }], (key) => key === 'map') } },
    ]
    for (const value of values) {
      for (const limits of [undefined, { maxBytes: 0 }, { maxLines: 1 }, { responseFormat: 'content_and_artifact' }]) {
        hardTruncateToolPayload(value, limits)
      }
    }
  })

  test('what a hostile value carries that can be read is clamped, never passed whole', () => {
    // A getter that would hand the framework 5 MB is read once, and the copy holds the clamp.
    let reads = 0
    const once = {
      get structuredContent() {
        reads++
        return { log: HUGE }
      },
    }
    const clamped = hardTruncateToolPayload(once)
    assert.equal(reads, 1)
    assert.ok(jsonBytes(clamped.structuredContent) <= DEFAULTS.maxBytes)
    // An object JSON.stringify throws on but which carries 5 MB: its readable data, clamped.
    const mixed = throwing('bad', { big: HUGE })
    const fromMixed = hardTruncateToolPayload(mixed)
    assert.ok(jsonBytes(fromMixed) <= DEFAULTS.maxBytes)
    assert.match(fromMixed.bad, /^\[Unreadable: no bad\]$/)
  })

  test('the properties that pick a shape are each read once', () => {
    const counting = (target) => {
      const counts = {}
      const proxy = new Proxy(target, {
        get(object, key, receiver) {
          if (typeof key === 'string') counts[key] = (counts[key] ?? 0) + 1
          return Reflect.get(object, key, receiver)
        },
      })
      return { proxy, counts }
    }
    const shapes = [
      [{ content: [text(HUGE)], structuredContent: { log: HUGE } }, ['content', 'structuredContent']],
      [{ type: 'json', value: { log: HUGE } }, ['type', 'value']],
      [{ type: 'function_call_output', output: HUGE }, ['type', 'output']],
      [{ content: [text(HUGE)], details: { a: 1 } }, ['content', 'details']],
    ]
    for (const [target, keys] of shapes) {
      const { proxy, counts } = counting(target)
      hardTruncateToolPayload(proxy)
      for (const key of keys) assert.ok((counts[key] ?? 0) <= 1, `${key} read ${counts[key]} times`)
    }
  })
})

// ---- Properties

describe('properties', () => {
  const line = fc.constantFrom('ok\n', 'café ✓\n', '日本語 😀\n', 'x'.repeat(40) + '\n', '"quoted"\\\n')
  const textArb = fc.array(line, { maxLength: 300 }).map((lines) => lines.join(''))
  const dataArb = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      textArb,
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 6 }),
      fc.dictionary(fc.constantFrom('log', 'rows', 'id', 'name', 'a b', 'ключ'), tie('value'), { maxKeys: 4 }),
    ),
  })).value
  const blocksArb = fc.array(
    fc.oneof(
      { weight: 5, arbitrary: textArb.map(text) },
      { weight: 1, arbitrary: fc.constant({ type: 'image', data: 'A'.repeat(5000), mimeType: 'image/png' }) },
      { weight: 1, arbitrary: textArb },
      { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('log', 'id'), textArb, { maxKeys: 2 }) },
    ),
    { minLength: 1, maxLength: 5 },
  )
  const shapeArb = fc.oneof(
    textArb,
    dataArb,
    // A list with no block in it (only strings and records) is JSON data.
    blocksArb,
    fc.tuple(blocksArb, dataArb).map(([content, structuredContent]) => ({ content, structuredContent })),
    // Every other key a framework sends shares the budget; details are bounded on their own.
    fc.tuple(blocksArb, textArb, fc.boolean()).map(([content, stdout, isError]) => ({ content, stdout, isError })),
    fc.tuple(blocksArb, dataArb).map(([content, details]) => ({ content, details })),
    dataArb.map((value) => ({ type: 'json', value })),
    textArb.map((t) => ({ type: 'function_call_output', output: t })),
  )
  const budget = (min, max) => fc.oneof(fc.constant(undefined), fc.constant(Infinity), fc.integer({ min, max }))
  const limitsArb = fc.record(
    {
      maxChars: budget(64, 4000),
      maxBytes: budget(64, 4000),
      maxLines: budget(3, 80),
      strategy: fc.constantFrom('head', 'tail', 'headTail'),
    },
    { requiredKeys: [] },
  )

  test('any shape: within the budget, never mutated, the same value back when it fits, stable on a second clamp', () => {
    fc.assert(
      fc.property(shapeArb, limitsArb, (value, limits) => {
        const given = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined))
        const snapshot = JSON.stringify(value)
        const clamped = hardTruncateToolPayload(value, given)
        assert.equal(JSON.stringify(value), snapshot, 'mutated')
        const detailsFit = Buffer.byteLength(JSON.stringify(value?.details) ?? '') <= 8192
        if (fitsBudget(sentSize(value), payloadBudget(given)) && detailsFit) assert.equal(clamped, value, 'fits, yet not the same value')
        assertSentWithin(clamped, given)
        assertSentWithin(hardTruncateToolPayload(clamped, given), given)
      }),
      { numRuns: RUNS },
    )
  })
})
