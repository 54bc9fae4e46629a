// hardTruncateToolPayload on real MCP tool results: an McpServer and a Client talking over the
// SDK's in-memory transport, with text, image, embedded resource and resource_link blocks,
// structuredContent checked against an outputSchema, and _meta.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { z } from 'zod'

import { hardTruncateToolPayload } from '../../index.mjs'
import { fastOracle } from '../token-oracle.mjs'

const DEFAULT_MAX_BYTES = 51_200
const DEFAULT_MAX_LINES = 2_000

const HUGE_LOG_BYTES = 3 * 1024 * 1024
const LARGE_REPORT_BYTES = 200 * 1024
const IMAGE_BYTES = 375_000 // about 500 KB once base64-encoded

const BUILD_SUMMARY = 'Build finished: 3 errors, 12 warnings. See report://build/7421 for details.'
const REPORT_URI = 'report://build/7421/report.txt'

/** Log lines with non-ASCII text and emoji (4-byte UTF-8, surrogate pairs in UTF-16), until `targetBytes`. */
function makeLog(prefix, targetBytes) {
  const lines = []
  let bytes = 0
  for (let i = 1; bytes < targetBytes; i++) {
    const line = `${prefix} ${String(i).padStart(6, '0')} worker-${i % 8}: compiled módulo ${i} ✓ 日本語 😀🚀\n`
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

// Built once: every call returns a fresh result object around the same strings.
const HUGE_LOG = makeLog('[build]', HUGE_LOG_BYTES)
const LARGE_REPORT = makeLog('[report]', LARGE_REPORT_BYTES)
const SMALL_LOG = makeLog('[build]', 500)
const SMALL_REPORT = makeLog('[report]', 300)
const PNG_BASE64 = makePngBase64(IMAGE_BYTES)

/** The tool's outputSchema, as a zod raw shape (what McpServer.registerTool accepts). */
const buildOutputShape = {
  status: z.enum(['passed', 'failed']),
  errorCount: z.number().int(),
  warningCount: z.number().int(),
  reportUri: z.string(),
}

/** A tool result with every kind of content block; `size` picks huge or small text. */
function buildResult(size) {
  const huge = size === 'huge'
  return {
    content: [
      { type: 'text', text: huge ? HUGE_LOG : SMALL_LOG },
      { type: 'image', data: PNG_BASE64, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: { uri: REPORT_URI, mimeType: 'text/plain', text: huge ? LARGE_REPORT : SMALL_REPORT },
      },
      {
        type: 'resource_link',
        uri: 'file:///workspace/build/full.log',
        name: 'full.log',
        mimeType: 'text/plain',
        description: 'The complete build log',
      },
      { type: 'text', text: BUILD_SUMMARY },
    ],
    structuredContent: { status: 'failed', errorCount: 3, warningCount: 12, reportUri: REPORT_URI },
    isError: false,
    _meta: { 'example.com/build-id': 'build-7421' },
  }
}

/** A failing tool: a huge stack-trace-like message and isError, no structuredContent. */
function failingResult() {
  return { content: [{ type: 'text', text: makeLog('Error: at frame', 400 * 1024) }], isError: true }
}

/**
 * An MCP server with the two tools; `clamp` is applied to each handler's result, so passing
 * hardTruncateToolPayload clamps on the server side.
 */
function createServer(clamp = (result) => result) {
  const server = new McpServer({ name: 'build-server', version: '1.0.0' })
  server.registerTool(
    'run_build',
    {
      description: 'Runs the build and returns its log, a screenshot and a report',
      inputSchema: { size: z.enum(['huge', 'small']) },
      outputSchema: buildOutputShape,
    },
    async ({ size }) => clamp(buildResult(size)),
  )
  server.registerTool('run_failing_build', { description: 'A build that crashes' }, async () => clamp(failingResult()))
  return server
}

/** A connected client that has listed the tools, so callTool validates structuredContent. */
async function connectClient(t, server, toolWithSchema = 'run_build') {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  await server.connect(serverTransport)
  const client = new Client({ name: 'build-client', version: '1.0.0' })
  await client.connect(clientTransport)
  t.after(() => client.close())
  // The client only validates structuredContent for tools whose outputSchema it has seen.
  const { tools } = await client.listTools()
  assert.ok(tools.find((tool) => tool.name === toolWithSchema).outputSchema, `${toolWithSchema} advertises its outputSchema`)
  return client
}

/** Every text the model would read: text blocks and embedded resource texts, in order. */
function allTexts(result) {
  return result.content.flatMap((block) => {
    if (block.type === 'text') return [block.text]
    if (block.type === 'resource' && typeof block.resource.text === 'string') return [block.resource.text]
    return []
  })
}

function countLines(text) {
  const breaks = text.split('\n').length - 1
  return breaks + (text !== '' && !text.endsWith('\n') ? 1 : 0)
}

function assertWithinDefaultLimits(result) {
  const texts = allTexts(result)
  const totalBytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0)
  assert.ok(totalBytes <= DEFAULT_MAX_BYTES, `all text is ${totalBytes} bytes, over ${DEFAULT_MAX_BYTES}`)
  const totalLines = countLines(texts.join(''))
  assert.ok(totalLines <= DEFAULT_MAX_LINES, `all text is ${totalLines} lines, over ${DEFAULT_MAX_LINES}`)
}

function assertHasTruncationNotice(result) {
  assert.ok(
    allTexts(result).some((text) => /truncated/.test(text)),
    'some text block carries a notice saying it was truncated',
  )
}

/** Non-text blocks and every key other than content come through as the very same values. */
function assertStructureKept(clamped, original) {
  assert.deepEqual(Object.keys(clamped).sort(), Object.keys(original).sort())
  assert.equal(clamped.structuredContent, original.structuredContent)
  assert.equal(clamped.isError, original.isError)
  assert.equal(clamped._meta, original._meta)

  assert.equal(clamped.content.length, original.content.length)
  assert.deepEqual(
    clamped.content.map((block) => block.type),
    original.content.map((block) => block.type),
  )
  original.content.forEach((block, index) => {
    if (block.type === 'image' || block.type === 'resource_link') {
      assert.equal(clamped.content[index], block, `${block.type} block at ${index} is the same object`)
    }
  })
}

function resourceBlockOf(result) {
  return result.content.find((block) => block.type === 'resource')
}

test('client side, head: all text shares one budget, everything else is kept as is', async (t) => {
  const client = await connectClient(t, createServer())
  const original = await client.callTool({ name: 'run_build', arguments: { size: 'huge' } })
  const snapshot = structuredClone(original)

  const clamped = hardTruncateToolPayload(original, { strategy: 'head' })

  assert.notEqual(clamped, original, 'a new result when something was cut')
  assertWithinDefaultLimits(clamped)
  assertHasTruncationNotice(clamped)
  assertStructureKept(clamped, original)

  // Head keeps the start of the first text; text past the cut keeps its place, emptied.
  const [log, , report, , summary] = clamped.content
  assert.ok(log.text.startsWith(HUGE_LOG.slice(0, 1000)), 'the log keeps its start')
  assert.match(log.text, /truncated/, 'the cut falls in the log, so it carries the notice')
  assert.equal(report.resource.text, '')
  assert.equal(summary.text, '')

  const originalReport = resourceBlockOf(original)
  assert.equal(report.resource.uri, originalReport.resource.uri)
  assert.equal(report.resource.mimeType, originalReport.resource.mimeType)

  assert.deepEqual(original, snapshot, 'the input was not mutated')
  assert.equal(hardTruncateToolPayload(clamped), clamped, 'an already-clamped result comes back as is')
  // By default ('auto') the summary at the end, which reports errors, is kept too.
  assert.equal(hardTruncateToolPayload(original).content.at(-1).text, BUILD_SUMMARY)
})

test('client side, tail: the last text survives and earlier text is emptied or cut', async (t) => {
  const client = await connectClient(t, createServer())
  const original = await client.callTool({ name: 'run_build', arguments: { size: 'huge' } })
  const snapshot = structuredClone(original)

  const clamped = hardTruncateToolPayload(original, { strategy: 'tail' })

  assertWithinDefaultLimits(clamped)
  assertHasTruncationNotice(clamped)
  assertStructureKept(clamped, original)

  const [log, , report, , summary] = clamped.content
  assert.equal(summary.text, BUILD_SUMMARY, 'the last text block is kept whole')
  // The report alone is over budget, so the cut falls inside it and its end is kept.
  assert.ok(report.resource.text.endsWith(LARGE_REPORT.slice(-1000)), 'the report keeps its end')
  assert.ok(report.resource.text.length < LARGE_REPORT.length, 'the report was cut')
  assert.equal(report.resource.uri, REPORT_URI)
  assert.equal(report.resource.mimeType, 'text/plain')
  assert.equal(log.text, '', 'the log, before the cut, is emptied')

  assert.deepEqual(original, snapshot, 'the input was not mutated')
  assert.equal(hardTruncateToolPayload(clamped, { strategy: 'tail' }), clamped)
})

test('client side: a small result (large image included) comes back as the very same object', async (t) => {
  const client = await connectClient(t, createServer())
  const original = await client.callTool({ name: 'run_build', arguments: { size: 'small' } })
  // The image alone is far over 50 KiB: non-text blocks are never counted.
  assert.equal(hardTruncateToolPayload(original), original)
  assert.equal(hardTruncateToolPayload(original, { strategy: 'tail' }), original)
})

test('server side: the clamped result passes the SDK output validation on both ends', async (t) => {
  // McpServer validates structuredContent against outputSchema before replying, and the
  // client validates it again in callTool; either would throw on a broken result.
  const client = await connectClient(t, createServer(hardTruncateToolPayload))
  const received = await client.callTool({ name: 'run_build', arguments: { size: 'huge' } })

  assert.equal(received.isError, false)
  assertWithinDefaultLimits(received)
  assertHasTruncationNotice(received)
  assert.deepEqual(received.structuredContent, buildResult('huge').structuredContent)
  assert.deepEqual(received._meta, { 'example.com/build-id': 'build-7421' })
  assert.deepEqual(
    received.content.map((block) => block.type),
    ['text', 'image', 'resource', 'resource_link', 'text'],
  )
  assert.equal(received.content[1].data, PNG_BASE64, 'the image arrives whole')
  assert.deepEqual(received.content[3], buildResult('huge').content[3], 'the resource_link arrives whole')
  assert.equal(resourceBlockOf(received).resource.uri, REPORT_URI)
  assert.equal(resourceBlockOf(received).resource.mimeType, 'text/plain')
})

test('server side within exact tokens: what the client receives counts at most maxTokens, and passes validation', async (t) => {
  const limits = { maxTokens: 2000, tokenizer: 'o200k_base' }
  const client = await connectClient(
    t,
    createServer((result) => hardTruncateToolPayload(result, limits)),
  )
  const received = await client.callTool({ name: 'run_build', arguments: { size: 'huge' } })
  const texts = [...allTexts(received), JSON.stringify(received.structuredContent), JSON.stringify(received._meta)]
  const tokens = texts.reduce((sum, text) => sum + fastOracle('o200k_base', text), 0)
  assert.ok(tokens <= 2000 && tokens > 1000, `${tokens} tokens`)
  assertHasTruncationNotice(received)
  assert.equal(received.content[1].data, PNG_BASE64, 'the image arrives whole')
})

test('an isError result with huge text stays isError and is clamped', async (t) => {
  const client = await connectClient(t, createServer())
  const original = await client.callTool({ name: 'run_failing_build', arguments: {} })
  assert.equal(original.isError, true)
  const snapshot = structuredClone(original)

  const clamped = hardTruncateToolPayload(original)

  assert.equal(clamped.isError, true)
  assertWithinDefaultLimits(clamped)
  assertHasTruncationNotice(clamped)
  assert.ok(clamped.content[0].text.startsWith('Error: at frame 000001'))
  assert.deepEqual(original, snapshot, 'the input was not mutated')
})

test('5 MB of structuredContent: clamped schema-safe on the server, validated by the real client, said in a text block', async (t) => {
  const rowCount = 40_000
  const rows = Array.from({ length: rowCount }, (_, id) => ({ id, path: `src/module-${id}.ts`, message: `unused import in module ${id}` }))
  const report = { status: 'failed', total: rowCount, rows, log: makeLog('[lint]', 2 * 1024 * 1024) }
  assert.ok(Buffer.byteLength(JSON.stringify(report)) > 5_000_000)
  const server = new McpServer({ name: 'lint-server', version: '1.0.0' })
  server.registerTool(
    'lint',
    {
      description: 'Lints the workspace',
      outputSchema: {
        status: z.enum(['passed', 'failed']),
        total: z.number().int(),
        rows: z.array(z.object({ id: z.number().int(), path: z.string(), message: z.string() }).strict()),
        log: z.string(),
      },
    },
    async () => hardTruncateToolPayload({ content: [{ type: 'text', text: JSON.stringify(report) }], structuredContent: report }),
  )
  const client = await connectClient(t, server, 'lint')
  // callTool validates structuredContent against the outputSchema and throws when it does not match.
  const result = await client.callTool({ name: 'lint', arguments: {} })
  const structured = result.structuredContent
  assert.equal(structured.status, 'failed')
  assert.equal(structured.total, rowCount)
  assert.deepEqual(structured.rows, rows.slice(0, structured.rows.length), 'the first rows, whole, and nothing added')
  assert.ok(structured.rows.length > 10)
  assert.ok(report.log.startsWith(structured.log))
  // content and structuredContent share ONE budget (a client may send both to the model): all
  // text, the note included, and the JSON of structuredContent together.
  const structuredJson = JSON.stringify(structured)
  const textBytes = allTexts(result).reduce((sum, text) => sum + Buffer.byteLength(text), 0)
  assert.ok(textBytes + Buffer.byteLength(structuredJson) <= DEFAULT_MAX_BYTES, `${textBytes} + ${Buffer.byteLength(structuredJson)} bytes`)
  assert.ok(countLines(allTexts(result).join('')) + 1 <= DEFAULT_MAX_LINES)
  // The text block that held the report's JSON holds the clamped report's JSON: it still parses.
  assert.equal(result.content.length, 2)
  assert.deepEqual(JSON.parse(result.content[0].text), structured)
  const note = result.content.at(-1).text
  assert.match(note, /^\[structuredContent shortened to [\d,]+ of [\d,]+ bytes: /)
  assert.match(note, new RegExp(`\\$\\.rows: [\\d,]+ of ${rowCount.toLocaleString('en-US')} items`))
  assert.match(note, /\$\.log: [\d,]+ of [\d,]+ bytes/)
})

test('structuredContent mirrored in a text block beside other text: the mirror still parses as what the client validated', async (t) => {
  const rows = Array.from({ length: 20_000 }, (_, id) => ({ id, path: `src/module-${id}.ts` }))
  const report = { status: 'failed', rows }
  const server = new McpServer({ name: 'lint-server', version: '1.0.0' })
  server.registerTool(
    'lint',
    {
      description: 'Lints the workspace',
      outputSchema: { status: z.enum(['passed', 'failed']), rows: z.array(z.object({ id: z.number().int(), path: z.string() }).strict()) },
    },
    // The summary and the log come first: the mirror is not the only text.
    async () =>
      hardTruncateToolPayload({
        content: [
          { type: 'text', text: 'Lint failed.' },
          { type: 'text', text: HUGE_LOG },
          { type: 'text', text: JSON.stringify(report) },
        ],
        structuredContent: report,
      }),
  )
  const client = await connectClient(t, server, 'lint')
  const result = await client.callTool({ name: 'lint', arguments: {} })
  assert.deepEqual(JSON.parse(result.content[2].text), result.structuredContent)
  assert.ok(result.structuredContent.rows.length > 10)
  const textBytes = allTexts(result).reduce((sum, text) => sum + Buffer.byteLength(text), 0)
  assert.ok(textBytes + Buffer.byteLength(JSON.stringify(result.structuredContent)) <= DEFAULT_MAX_BYTES)
})
