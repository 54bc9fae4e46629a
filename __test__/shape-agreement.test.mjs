// One visitor for every tool-result shape (lib/results/shapes.js): what it says a model reads
// of a result is what the contract in sent.mjs says, and the payload clamp, its sizing, the
// conversation clamp and the session guard and repair all measure that same text. Before
// shapes.js each of them recognised the shapes on its own, and where they disagreed a result
// passed over its budget.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import fc from 'fast-check'

import { hardTruncateToolPayload } from '../index.mjs'
import { clampToolResultsInMessages, estimateTokens } from '../conversation.mjs'
import { sentParts } from './sent.mjs'

const require = createRequire(import.meta.url)
const { partsOf, shapeOf } = require('../lib/results/shapes.js')
const { payloadSize } = require('../lib/results/payload.js')
const { clampMessages, readClampOptions } = require('../lib/conversation/messages.js')
const { guardSessionManager, repairSessionFile } = require('../lib/integrations/pi-session.js')
const native = require('../lib/native.js')

const RUNS = Number(process.env.FC_RUNS ?? 300)
// Each case of the file-writing properties writes and reads files.
const FILE_RUNS = Math.max(20, Math.floor(RUNS / 50))

// ---- Tool results of every shape

// Whole characters only (a spill file holds the text as UTF-8), newlines, JSON's specials.
const text = fc.array(fc.constantFrom('a', 'b', 'é', '😀', ' ', '\n', '{', '"', '\\'), { maxLength: 24 }).map((a) => a.join(''))
const textBlock = fc.record({ type: fc.constantFrom('text', 'input_text', 'output_text'), text })
const resourceBlock = text.map((t) => ({ type: 'resource', resource: { uri: 'file:///a.txt', text: t } }))
const mediaBlock = fc.constantFrom(
  { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
  { type: 'input_image', image_url: 'https://example.com/a.png' },
  { type: 'file', file_id: 'file-1' },
  { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
)
const record = fc.record({ id: fc.nat(99), name: text })
// Items that are no block a model reads: null, a number, a text block without text.
const skipped = fc.constantFrom(null, 7, { type: 'text' })
const item = fc.oneof(textBlock, textBlock, resourceBlock, mediaBlock, text, record, skipped)
// A list of items: content blocks when one is a block, else JSON data.
const list = fc.array(item, { maxLength: 5 })
const blocks = fc.tuple(textBlock, list).map(([block, rest]) => [block, ...rest])
const textParts = fc.array(fc.oneof(textBlock, mediaBlock), { maxLength: 4 })

const mcpResult = fc
  .record(
    {
      content: list,
      structuredContent: record,
      isError: fc.boolean(),
      stdout: text,
      _meta: fc.record({ ms: fc.nat(999) }),
      details: record,
      mirror: fc.boolean(),
    },
    { requiredKeys: ['content'] },
  )
  .map(({ mirror, ...result }) => {
    // The MCP convention: a text block holding structuredContent's JSON.
    if (mirror && result.structuredContent !== undefined) {
      result.content = [...result.content, { type: 'text', text: JSON.stringify(result.structuredContent) }]
    }
    return result
  })
const structuredOnly = fc.record(
  { structuredContent: record, content: fc.option(text, { nil: undefined }) },
  { requiredKeys: ['structuredContent'] },
)
const aiOutput = fc.oneof(
  fc.record({ type: fc.constantFrom('text', 'error-text'), value: text }),
  fc.record({ type: fc.constantFrom('json', 'error-json'), value: fc.oneof(record, text, fc.array(fc.nat())) }),
  fc.record({ type: fc.constant('content'), value: textParts }),
)
const outputItem = fc.record({
  type: fc.constantFrom('function_call_output', 'function_call_result'),
  call_id: fc.constant('call-1'),
  output: fc.oneof(text, blocks, fc.record({ type: fc.constant('text'), text })),
})
const toolMessage = fc.record({
  tool_call_id: fc.constant('call-1'),
  content: fc.oneof(text, blocks),
  status: fc.constantFrom('success', 'error'),
})
const directOutput = fc.oneof(
  toolMessage.map((message) => ({ ...message, lc_direct_tool_output: true })),
  fc.array(toolMessage, { maxLength: 3 }).map((messages) => ({ lc_direct_tool_output: true, update: { messages, step: 1 } })),
  fc.array(toolMessage, { maxLength: 3 }).map((messages) => ({
    lc_direct_tool_output: true,
    update: [
      ['messages', messages],
      ['step', 1],
    ],
  })),
  fc.array(toolMessage, { maxLength: 3 }).map((messages) => ({ lc_direct_tool_output: true, update: messages })),
)
const data = fc.oneof(record, fc.array(text, { maxLength: 4 }), fc.array(fc.nat(), { maxLength: 4 }), fc.integer(), fc.boolean())

const SHAPES = {
  string: text,
  blocks,
  list,
  'MCP result': mcpResult,
  'structuredContent only': structuredOnly,
  'AI SDK output': aiOutput,
  'OpenAI output item': outputItem,
  'one block': fc.oneof(textBlock, resourceBlock, mediaBlock),
  'LangChain direct output': directOutput,
  data,
}
const anyResult = fc.oneof(...Object.values(SHAPES))

// ---- What each one measures

const sum = (texts) => texts.reduce((n, t) => n + t.length, 0)
const utf8 = (texts) => texts.reduce((n, t) => n + Buffer.byteLength(t), 0)

/** What the visitor says a model reads: `{ texts, pieces, media }` (data as its compact JSON). */
function visited(value) {
  const found = { texts: [], pieces: [], media: 0 }
  for (const [kind, part] of partsOf(value)) {
    if (kind === 'text') found.texts.push(part)
    else if (kind === 'piece') found.pieces.push(part)
    else if (kind === 'data') found.pieces.push(JSON.stringify(part))
    else found.media++
  }
  return found
}

/** The chars and UTF-8 bytes of every text a model reads of `value`, by the contract. */
function contractSize(value) {
  const { texts, pieces } = sentParts(value)
  const all = [...texts, ...pieces]
  return { chars: sum(all), bytes: utf8(all) }
}

const EXACT = { maxBytes: Infinity, maxLines: Infinity }
const piMessage = (content) => ({ role: 'toolResult', toolCallId: 'call-1', toolName: 'tool', content, isError: false, timestamp: 1 })

function recordingManager() {
  return {
    appended: [],
    appendMessage(message) {
      this.appended.push(message)
    },
  }
}

function guarded(content, limits) {
  const manager = recordingManager()
  const message = piMessage(content)
  guardSessionManager(manager, limits).appendMessage(message)
  return { message, persisted: manager.appended[0] }
}

describe('the visitor and the contract', () => {
  test('property: for every shape, the parts the visitor walks are the texts sent.mjs says a model reads, in order', () => {
    fc.assert(
      fc.property(anyResult, (value) => {
        const { texts, pieces } = visited(value)
        assert.deepEqual({ texts, pieces }, sentParts(value), shapeOf(value).shape)
      }),
      { numRuns: RUNS },
    )
  })

  test('property: a rebuild that replaces nothing is the very same value; one that does never writes to the original', () => {
    const { mapParts } = require('../lib/results/shapes.js')
    fc.assert(
      fc.property(anyResult, (value) => {
        const before = JSON.stringify(value)
        assert.equal(
          mapParts(value, (_, part) => part),
          value,
        )
        const changed = mapParts(value, (kind, part) => (kind === 'text' || kind === 'piece' ? `${part}!` : part))
        assert.equal(JSON.stringify(value), before, 'the original is unchanged')
        const { texts, pieces } = visited(changed)
        const was = visited(value)
        assert.deepEqual(
          texts,
          was.texts.map((t) => `${t}!`),
        )
        assert.equal(pieces.length, was.pieces.length)
      }),
      { numRuns: RUNS },
    )
  })
})

describe('every consumer measures the same text', () => {
  for (const [name, arbitrary] of Object.entries(SHAPES)) {
    test(`property (${name}): payload sizing, the payload clamp, the conversation clamp and the session guard agree`, () => {
      fc.assert(
        fc.property(arbitrary, (value) => {
          const expected = contractSize(value)
          const { media } = visited(value)
          const { shape } = shapeOf(value)
          // A number or a boolean is read as its JSON, but there is nothing of it to cut.
          const cuts = expected.chars > 0 && shape !== 'scalar'
          // Payload sizing.
          const size = payloadSize(value)
          assert.equal(size.text.chars, expected.chars, 'payloadSize chars')
          assert.equal(size.text.bytes, expected.bytes, 'payloadSize bytes')
          assert.equal(size.media, media, 'payloadSize media')
          // The payload clamp: it cuts exactly when that text is over the budget.
          assert.equal(hardTruncateToolPayload(value, { maxChars: expected.chars, ...EXACT }), value, 'clamp at the size')
          if (cuts) assert.notEqual(hardTruncateToolPayload(value, { maxChars: expected.chars - 1, ...EXACT }), value, 'clamp under it')
          // The conversation clamp: that text's tokens, media at MEDIA_TOKENS each; a bound from
          // lengths is never under it.
          const tokens = native.tokensOfBytes(expected.bytes) + media * native.MEDIA_TOKENS
          // (An output item and a list are a conversation's items to estimateTokens.)
          if (!Array.isArray(value) && shape !== 'item') assert.equal(estimateTokens(value), tokens, 'estimateTokens')
          const messages = [piMessage(value)]
          const measured = clampMessages(messages, readClampOptions({ contextWindowTokens: 1e9 }), Infinity, Infinity, true)
          assert.equal(measured.results[0].tokensBefore, tokens, 'conversation tokens')
          const bounded = clampToolResultsInMessages(messages, { contextWindowTokens: 1e9 })
          assert.ok(bounded.results[0].tokensBefore >= tokens, 'a bound from lengths is an upper bound')
          // The session guard: persisted as it is at the size, cut under it.
          const at = guarded(value, { maxChars: expected.chars, ...EXACT })
          assert.equal(at.persisted, at.message, 'guard at the size')
          if (cuts) assert.notEqual(guarded(value, { maxChars: expected.chars - 1, ...EXACT }).persisted.content, value)
        }),
        { numRuns: Math.max(30, Math.floor(RUNS / 10)) },
      )
    })
  }

  test('property: the text the guard spills of a string or text blocks is the text parts joined, and a repair finds it so', (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-shapes-'))
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
    let n = 0
    const spilled = fc.oneof(
      text.filter((s) => s.length > 1),
      fc.array(fc.oneof(textBlock, resourceBlock, mediaBlock), { minLength: 1, maxLength: 4 }),
    )
    fc.assert(
      fc.property(spilled, (content) => {
        const { texts, pieces } = visited(content)
        const whole = [...texts, ...pieces].join('')
        fc.pre(whole.length > 1)
        const limits = { maxChars: whole.length - 1, ...EXACT, snap: 'none' }
        // The guard writes the spill file of its cut.
        const reports = []
        const spillDir = path.join(dir, `guard-${n}`)
        guarded(content, { ...limits, spill: { dir: spillDir, onSpill: (report) => reports.push(report) } })
        assert.equal(reports.length, 1)
        assert.equal(fs.readFileSync(reports[0].path, 'utf8'), whole)
        // A repair of a session holding the result cuts it and finds its spill file whole.
        const file = path.join(dir, `session-${n++}.jsonl`)
        const entry = { type: 'message', id: 'e1', parentId: null, timestamp: '2025-06-01T10:00:00.000Z', message: piMessage(content) }
        fs.writeFileSync(
          file,
          `${JSON.stringify({ type: 'session', version: 3, id: 's', timestamp: 't', cwd: '/' })}\n${JSON.stringify(entry)}\n`,
        )
        const report = repairSessionFile(file, { ...limits, spill: { dir: path.join(dir, `repair-${n}`) }, backup: false })
        assert.deepEqual(report.skipped, [])
        assert.equal(report.results.length, 1)
        assert.equal(fs.readFileSync(report.results[0].spillPath, 'utf8'), whole)
      }),
      { numRuns: FILE_RUNS },
    )
  })
})

describe('where the consumers used to disagree', () => {
  const window = { contextWindowTokens: 10_000, resultShare: 0.5, aggregateShare: 0.5 }

  test("a tool result's other keys count in a conversation as the payload clamp counts them", () => {
    // An AI SDK (v4) tool-result part holding an MCP CallToolResult as it came: its `stdout`
    // is sent with it, and was left out of the conversation's measure.
    const result = { content: [{ type: 'text', text: 'done' }], stdout: 'x'.repeat(60_000) }
    const messages = [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'run', result }] }]
    const clamped = clampToolResultsInMessages(messages, window)
    assert.equal(clamped.changed, true)
    assert.ok(clamped.results[0].tokensBefore > 20_000, `${clamped.results[0].tokensBefore} tokens`)
    assert.ok(clamped.tokensAfter <= 5_000, `${clamped.tokensAfter} tokens after`)
    assert.ok(estimateTokens(clamped.messages[0].content[0].result) <= 5_000)
  })

  test('a list of strings is JSON data: its string lengths prove nothing fits', () => {
    // ["a","a",...] is 4 bytes an item as JSON, where its strings are 1 char each.
    const payload = Array.from({ length: 4_000 }, () => 'a')
    const messages = [{ role: 'tool', tool_call_id: 'c1', content: payload }]
    const clamped = clampToolResultsInMessages(messages, window)
    assert.equal(clamped.results[0].tokensBefore, estimateTokens(payload))
    assert.equal(clamped.changed, true)
    assert.ok(clamped.fits)
    assert.ok(estimateTokens(clamped.messages[0].content) <= 5_000)
  })

  test("an AI SDK 'json' output holding a string is read with its quotes, as the clamp reads it", () => {
    const output = { type: 'json', value: 'x'.repeat(299) }
    assert.equal(estimateTokens(output), 101) // 301 bytes of JSON
    const cut = hardTruncateToolPayload(output, { maxChars: 300, ...EXACT })
    assert.notEqual(cut, output)
    assert.ok(JSON.stringify(cut.value).length <= 300)
    assert.equal(hardTruncateToolPayload(output, { maxChars: 301, ...EXACT }), output)
  })
})

test('the visitor never throws on hostile values, walking or rebuilding, nor do the consumers reading through it', () => {
  const { mapParts } = require('../lib/results/shapes.js')
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
      has(target, key) {
        if (fails(key)) throw new Error(`no ${String(key)}`)
        return Reflect.has(target, key)
      },
    })
  const revoked = () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    return proxy
  }
  const big = 'x'.repeat(10_000)
  const values = [
    revoked(),
    throwing('structuredContent'),
    throwing('content'),
    throwing('type', { text: big }),
    throwing('text', { type: 'text' }),
    throwing('value', { type: 'json' }),
    throwing('output', { type: 'function_call_result' }),
    throwing('lc_direct_tool_output'),
    throwing('stdout', { content: [{ type: 'text', text: big }] }),
    { content: [{ type: 'text', text: big }], structuredContent: revoked() },
    { content: revoked(), structuredContent: { a: 1 } },
    { content: [revoked(), throwing('type'), failing({ type: 'image', data: 'A' }, () => true)], structuredContent: { log: big } },
    { type: 'content', value: [revoked(), { type: 'text', text: big }] },
    { type: 'resource', resource: revoked() },
    { lc_direct_tool_output: true, tool_call_id: 'c', content: revoked() },
    { lc_direct_tool_output: true, update: { messages: [revoked(), throwing('tool_call_id'), { tool_call_id: 'c', content: big }] } },
    { lc_direct_tool_output: true, update: [failing(['messages', []], (key) => key === '1')] },
    failing([{ type: 'text', text: big }, big, { a: 1 }], (key) => key === '2' || key === 'length'),
  ]
  for (const value of values) {
    partsOf(value)
    mapParts(value, (kind, part) => (kind === 'media' ? part : kind === 'data' ? {} : ''))
    payloadSize(value)
    hardTruncateToolPayload(value, { maxBytes: 100 })
    clampToolResultsInMessages([piMessage(value)], { contextWindowTokens: 100 })
    guarded(value, { maxBytes: 100 })
  }
})
