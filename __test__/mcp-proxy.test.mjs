// `toolclamp mcp`, the clamping MCP proxy, driven as a client drives it: the SDK's Client over
// stdio (and raw JSON-RPC lines for the byte-level checks) in front of real servers nobody here
// wrote (@modelcontextprotocol/server-filesystem and server-everything, run from node_modules)
// and two small fixtures (__test__/fixtures/mcp-*.mjs) for what no real server does on demand:
// a 30 MB answer, garbage on stdout, a crash, an outputSchema the clamp cannot keep. Then the
// framing and the clamp in-process, as properties: any chunking frames a stream as the whole
// stream does, and a clamped result is always within its budget and valid against its schema
// (or failed closed). FC_RUNS sets the runs (a tenth of it, at least 50).
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const require = createRequire(import.meta.url)
const { LineSplitter } = require('../lib/mcp/framing.js')
const { ResultClamp } = require('../lib/mcp/clamp.js')
const { parseMcpArgs } = require('../lib/mcp/options.js')
const { McpProxy, idAtStart, idAtEnd } = require('../lib/mcp/proxy.js')
const Ajv = require('ajv')
const addFormats = require('ajv-formats')

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = path.join(ROOT, 'bin/toolclamp.js')
const RAW_SERVER = path.join(ROOT, '__test__/fixtures/mcp-raw-server.mjs')
const STRUCTURED_SERVER = path.join(ROOT, '__test__/fixtures/mcp-structured-server.mjs')
const RUNS = Math.max(50, Math.floor(Number(process.env.FC_RUNS ?? 1000) / 10))
const BUDGET = { maxBytes: 51200, maxLines: 2000 }

/** The bin of an installed package, as its package.json names it (no npx at test time). */
function serverBin(pkg) {
  const dir = path.join(ROOT, 'node_modules', pkg)
  const { bin } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
  return path.join(dir, typeof bin === 'string' ? bin : Object.values(bin)[0])
}
const FILESYSTEM = serverBin('@modelcontextprotocol/server-filesystem')
const EVERYTHING = serverBin('@modelcontextprotocol/server-everything')

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-mcp-'))
after(() => fs.rmSync(work, { recursive: true, force: true }))

/** The argv of the proxy in front of `server` (a script run by node) with `args`. */
const proxied = (server, args = [], proxy = []) => [BIN, 'mcp', ...proxy, '--', process.execPath, server, ...args]

/** An SDK client connected through the proxy (or `direct`ly) to a node script, with its stderr collected. */
async function connect(server, args = [], { proxy = [], direct = false, capabilities = {}, handlers = [] } = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: direct ? [server, ...args] : proxied(server, args, proxy),
    stderr: 'pipe',
  })
  const stderr = []
  transport.stderr.on('data', (chunk) => stderr.push(chunk))
  const client = new Client({ name: 'toolclamp-test', version: '1.0.0' }, { capabilities })
  for (const [schema, handler] of handlers) client.setRequestHandler(schema, handler)
  await client.connect(transport)
  return { client, transport, stderr: () => Buffer.concat(stderr).toString('utf8') }
}

/** What a model reads of a tool result: its block texts in order, and structuredContent's compact JSON. */
function readOf(result) {
  const texts = (result.content ?? []).flatMap((b) =>
    b.type === 'text' ? [b.text] : b.type === 'resource' && b.resource.text ? [b.resource.text] : [],
  )
  const structured = result.structuredContent === undefined ? '' : JSON.stringify(result.structuredContent)
  const text = texts.join('')
  const lines = (t) => (t === '' ? 0 : t.split('\n').length - (t.endsWith('\n') ? 1 : 0))
  return { bytes: Buffer.byteLength(text) + Buffer.byteLength(structured), lines: lines(text) + lines(structured), text: texts }
}

function assertWithin(result, budget = BUDGET) {
  const read = readOf(result)
  assert.ok(read.bytes <= budget.maxBytes, `${read.bytes} bytes over ${budget.maxBytes}`)
  assert.ok(read.lines <= budget.maxLines, `${read.lines} lines over ${budget.maxLines}`)
  return read
}

/** The spill file a notice names. */
function spillNamed(text) {
  const match = /(\/\S+?\.toolclamp-spill\.txt)/.exec(text)
  assert.ok(match, `a spill file is named in: ${text.slice(0, 400)}`)
  return match[1]
}

/** Validates `value` against `schema` with ajv set up as the SDK's client sets it up. */
function validates(schema, value) {
  const ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true })
  addFormats(ajv)
  const validate = ajv.compile(schema)
  return validate(value) ? true : validate.errors
}

/** Whether a process is alive. */
function alive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function until(condition, what, ms = 10_000) {
  const end = Date.now() + ms
  while (!condition()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

// ---------------------------------------------------------------------------------------
// server-filesystem: a 50 MB file and a large directory.
// ---------------------------------------------------------------------------------------

test('server-filesystem through the proxy: a 50 MB file and a large directory come back within the budget, whole in spill files', async (t) => {
  const files = path.join(work, 'files')
  const spillDir = path.join(work, 'spill-fs')
  const many = path.join(files, 'many')
  fs.mkdirSync(many, { recursive: true })
  const line = (i) => `${String(i).padStart(8, '0')} the quick brown fox jumps over the lazy dog, é 漢字 😀\n`
  const parts = []
  for (let i = 0, bytes = 0; bytes < 50 * 1024 * 1024; i++) {
    parts.push(line(i))
    bytes += Buffer.byteLength(parts[i])
  }
  const big = parts.join('')
  parts.length = 0
  fs.writeFileSync(path.join(files, 'big.txt'), big)
  for (let d = 0; d < 20; d++) {
    fs.mkdirSync(path.join(many, `dir_${d}`))
    for (let f = 0; f < 150; f++) fs.writeFileSync(path.join(many, `dir_${d}`, `file_${String(f).padStart(4, '0')}.ts`), '')
  }

  const { client, transport } = await connect(FILESYSTEM, [files], { proxy: ['--spill-dir', spillDir] })
  const proxyPid = transport.pid
  try {
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    for (const name of ['read_text_file', 'read_file', 'directory_tree', 'list_directory']) assert.ok(byName.has(name), name)

    await t.test('read_text_file of 50 MB: within the budget, valid structuredContent, the file whole in the spill file', async () => {
      const result = await client.callTool({ name: 'read_text_file', arguments: { path: path.join(files, 'big.txt') } })
      const read = assertWithin(result)
      assert.ok(big.startsWith(read.text[0].slice(0, 20_000)), 'the start of the file is kept as it is')
      assert.match(read.text[0], /\[\.\.\. .*truncated/)
      assert.equal(fs.readFileSync(spillNamed(read.text[0]), 'utf8'), big, 'the spill file holds the whole text')
      // structuredContent shortened, still valid, and said so; all of it saved.
      assert.equal(validates(byName.get('read_text_file').outputSchema, result.structuredContent), true)
      assert.ok(big.startsWith(result.structuredContent.content))
      assert.ok(result.structuredContent.content.length < big.length)
      const notes = read.text.slice(1).join('\n')
      assert.match(notes, /\[structuredContent shortened to [\d,]+ of [\d,]+ bytes: \$\.content: /)
      assert.match(notes, /\[the whole structuredContent is saved in /)
      const savedStructured = /saved in (\S+?)\]/.exec(notes)[1]
      assert.equal(JSON.parse(fs.readFileSync(savedStructured, 'utf8')).content, big)
    })

    await t.test('directory_tree of 3,000 entries: within the budget, the tree whole in the spill file', async () => {
      const result = await client.callTool({ name: 'directory_tree', arguments: { path: many } })
      const read = assertWithin(result)
      const tree = JSON.parse(fs.readFileSync(spillNamed(read.text[0]), 'utf8'))
      assert.equal(tree.length, 20)
      assert.equal(tree.flatMap((dir) => dir.children).length, 3000)
    })

    await t.test('list_directory of 3,000 files: within 2,000 lines', async () => {
      const dir = path.join(many, 'dir_0')
      for (let f = 150; f < 3000; f++) fs.writeFileSync(path.join(dir, `more_${f}.ts`), '')
      const result = await client.callTool({ name: 'list_directory', arguments: { path: dir } })
      const read = assertWithin(result)
      assert.ok(read.lines > 500, `${read.lines} lines kept`)
      const listed = fs.readFileSync(spillNamed(read.text[0]), 'utf8').split('\n')
      assert.equal(listed.length, 3000)
    })

    await t.test('a small file passes unchanged', async () => {
      fs.writeFileSync(path.join(files, 'small.txt'), 'hello\n')
      const result = await client.callTool({ name: 'read_text_file', arguments: { path: path.join(files, 'small.txt') } })
      assert.deepEqual(result, { content: [{ type: 'text', text: 'hello\n' }], structuredContent: { content: 'hello\n' } })
    })
  } finally {
    await client.close()
  }
  await until(() => !alive(proxyPid), 'the proxy to exit')
})

// ---------------------------------------------------------------------------------------
// server-everything: progress, cancellation, sampling, elicitation, roots, resources,
// structured output; every message but tool results the same as without the proxy.
// ---------------------------------------------------------------------------------------

const SAMPLED = { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled through the proxy' } }
const everythingOptions = () => ({
  capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } },
  handlers: [
    [CreateMessageRequestSchema, async () => SAMPLED],
    [ElicitRequestSchema, async () => ({ action: 'decline' })],
    [ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///tmp/project', name: 'project' }] })],
  ],
})

test('server-everything through the proxy: progress, cancellation, sampling, elicitation, roots, resources and structured output', async (t) => {
  const { client } = await connect(EVERYTHING, [], everythingOptions())
  try {
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))

    await t.test('progress notifications of a long operation arrive', async () => {
      const progress = []
      const result = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, {
        onprogress: (p) => progress.push(p),
      })
      // The last one may be dropped by the SDK's client itself: it handles a notification a
      // tick later than the answer right behind it, and by then the call is over.
      assert.deepEqual(progress.map((p) => [p.progress, p.total]).slice(0, 2), [
        [1, 3],
        [2, 3],
      ])
      assert.match(result.content[0].text, /Long running operation completed/)
    })

    await t.test('a call the client cancels ends at once, and the connection goes on', async () => {
      const controller = new AbortController()
      const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 4, steps: 40 } }, undefined, {
        signal: controller.signal,
        onprogress: () => controller.abort('enough'),
      })
      await assert.rejects(call)
      assert.deepEqual(await client.ping(), {})
    })

    await t.test('sampling: the server asks the client for a message, through the proxy', async () => {
      const result = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello' } })
      assert.match(result.content[0].text, /sampled through the proxy/)
    })

    await t.test('elicitation: the server asks the client, the answer goes back', async () => {
      const result = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} })
      assert.match(result.content.map((b) => b.text).join('\n'), /decline/i)
    })

    await t.test('roots: the server asks for the client roots', async () => {
      const result = await client.callTool({ name: 'get-roots-list', arguments: {} })
      assert.match(result.content.map((b) => b.text).join('\n'), /file:\/\/\/tmp\/project/)
    })

    await t.test('resources: an embedded resource, resource links and a read', async () => {
      const embedded = await client.callTool({ name: 'get-resource-reference', arguments: { resourceType: 'Text', resourceId: 2 } })
      const block = embedded.content.find((b) => b.type === 'resource')
      assert.match(block.resource.text, /^Resource 2: /)
      const links = await client.callTool({ name: 'get-resource-links', arguments: { count: 3 } })
      assert.equal(links.content.filter((b) => b.type === 'resource_link').length, 3)
      const read = await client.readResource({ uri: block.resource.uri })
      assert.match(read.contents[0].text, /^Resource 2: /)
    })

    await t.test('structured output: structuredContent valid against the outputSchema', async () => {
      const result = await client.callTool({ name: 'get-structured-content', arguments: { location: 'Chicago' } })
      assert.deepEqual(result.structuredContent, { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 })
      assert.equal(validates(byName.get('get-structured-content').outputSchema, result.structuredContent), true)
    })
  } finally {
    await client.close()
  }
})

test('server-everything: every message is the same through the proxy as without it', async () => {
  /** The same conversation, on a connection of its own. */
  const converse = async (direct) => {
    const { client } = await connect(EVERYTHING, [], { ...everythingOptions(), direct })
    try {
      const seen = {
        serverVersion: client.getServerVersion(),
        capabilities: client.getServerCapabilities(),
        instructions: client.getInstructions(),
        tools: await client.listTools(),
        resources: await client.listResources(),
        templates: await client.listResourceTemplates(),
        prompts: await client.listPrompts(),
        simplePrompt: await client.getPrompt({ name: 'simple-prompt' }),
        argsPrompt: await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Paris', state: 'Texas' } }),
        ping: await client.ping(),
        setLevel: await client.setLoggingLevel('debug'),
        completion: await client.complete({
          ref: { type: 'ref/prompt', name: 'completable-prompt' },
          argument: { name: 'department', value: 'E' },
        }),
        image: await client.callTool({ name: 'get-tiny-image', arguments: {} }),
        structured: await client.callTool({ name: 'get-structured-content', arguments: { location: 'New York' } }),
        echo: await client.callTool({ name: 'echo', arguments: { message: 'é 漢字 😀' } }),
        sum: await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }),
      }
      const document = seen.resources.resources.find((r) => r.uri.startsWith('demo://resource/static/document/'))
      seen.document = await client.readResource({ uri: document.uri })
      const error = await client.callTool({ name: 'no-such-tool', arguments: {} }).catch((e) => e)
      seen.unknownTool = error instanceof Error ? { code: error.code, message: error.message } : error
      seen.unknownMethod = await client
        .request({ method: 'no/such-method', params: {} }, CreateMessageRequestSchema)
        .catch((e) => ({ code: e.code, message: e.message }))
      return seen
    } finally {
      await client.close()
    }
  }
  const [direct, through] = await Promise.all([converse(true), converse(false)])
  assert.ok(direct.tools.tools.length > 10)
  assert.ok(direct.document.contents[0].text.length > 0)
  assert.deepEqual(through, direct)
})

// ---------------------------------------------------------------------------------------
// Raw JSON-RPC lines: byte for byte, garbage, cancellation, a 30 MB result, the end.
// ---------------------------------------------------------------------------------------

// Proxies still running when the tests end (a test failed half way): stopped, with their servers.
const running = new Set()
after(() => {
  for (const child of running) child.kill('SIGTERM')
})

/** The proxy in front of `server`, driven by lines: `send(object or string)`, `next()` the next line. */
function rawProxy(server, proxy = [], args = []) {
  const child = spawn(process.execPath, proxied(server, args, proxy), { stdio: ['pipe', 'pipe', 'pipe'] })
  running.add(child)
  child.on('exit', () => running.delete(child))
  const lines = []
  const waiting = []
  let pending = Buffer.alloc(0)
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  child.stdout.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk])
    for (let at = pending.indexOf(10); at !== -1; at = pending.indexOf(10)) {
      lines.push(pending.subarray(0, at + 1))
      pending = pending.subarray(at + 1)
      while (waiting.length > 0 && lines.length > 0) waiting.shift()(lines.shift())
    }
  })
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  return {
    child,
    exited,
    stderr: () => stderr,
    send: (message) => child.stdin.write(typeof message === 'string' ? message : `${JSON.stringify(message)}\n`),
    next: () => (lines.length > 0 ? Promise.resolve(lines.shift()) : new Promise((resolve) => waiting.push(resolve))),
    async call(id, method, params) {
      this.send({ jsonrpc: '2.0', id, method, params })
      return JSON.parse((await this.next()).toString('utf8'))
    },
  }
}

const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } }

test('raw lines: byte for byte both ways, garbage dropped, a cancel reaches the server, a 30 MB result clamped, and the end stops everything', async () => {
  // What reached the server is read back whole: that tool's results pass as they are.
  const proxy = rawProxy(RAW_SERVER, ['--tool', 'received=off'])
  const init = await proxy.call(1, 'initialize', INITIALIZE)
  assert.equal(init.result.serverInfo.name, 'raw-fixture')
  await proxy.call(2, 'tools/list', {})

  // An answer in the server's own spelling (spaces, key order, escapes, CRLF) comes as it was.
  const spelled = '{ "result" : {"z":1,"a":"\\u00e9\\ud83d\\ude00 é 漢字"} , "id":"x-1","jsonrpc":"2.0"}\r\n'
  proxy.send({ jsonrpc: '2.0', id: 'x-1', method: 'fixture/raw', params: { line: spelled } })
  assert.deepEqual(await proxy.next(), Buffer.from(spelled))
  // A tool result within the budget too, as the server wrote it.
  const small = '{"jsonrpc":"2.0","id":3,"result":{"content":[{"text":"ok \\u00e9","type":"text"}],"isError":false}}\r\n'
  proxy.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'raw', arguments: { line: small } } })
  assert.deepEqual(await proxy.next(), Buffer.from(small))

  // A long answer (over 1 MiB, read in many chunks, decoded and let go) comes as it was too.
  const long = `{"jsonrpc":"2.0","id":"long","result":{"contents":[{"uri":"file:///x","text":"${'é 漢字 😀 \\u00e9 \\n'.repeat(100_000)}"}]}}\r\n`
  proxy.send({ jsonrpc: '2.0', id: 'long', method: 'fixture/raw', params: { line: long } })
  assert.ok(Buffer.byteLength(long) > 2_000_000)
  assert.deepEqual(await proxy.next(), Buffer.from(long))

  // The client's own spelling reaches the server as it was.
  const odd = '{"method":"notifications/odd" , "jsonrpc":"2.0","params":{"é":"\\u00e9"}}\n'
  proxy.send(odd)
  // A call left waiting, then cancelled: the cancel reaches the server.
  proxy.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'hang' } })
  const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'enough' } }
  proxy.send(cancel)
  const received = JSON.parse((await proxy.call(6, 'tools/call', { name: 'received' })).result.content[0].text)
  assert.ok(received.includes(odd.slice(0, -1)), 'the odd line reached the server as written')
  assert.ok(received.includes(JSON.stringify(cancel)), 'the cancel reached the server')

  // Garbage on the server's stdout: dropped and logged; the answer after it arrives.
  const garbage = await proxy.call(7, 'tools/call', { name: 'garbage' })
  assert.equal(garbage.result.content[0].text, 'after the garbage')
  // (stderr is a pipe of its own: it may come after stdout)
  await until(() => proxy.stderr().includes('not a JSON-RPC message: "this is not JSON"'), 'the garbage to be logged')

  // A result of about 30 MB: clamped within the budget, the end of it noted.
  const big = await proxy.call(8, 'tools/call', { name: 'big', arguments: { mib: 30 } })
  const read = assertWithin(big.result)
  assert.match(read.text[0], /^00000000 INFO request handled/)
  assert.match(read.text[0], /\[\.\.\. [\d,]+ lines, [\d,]+ bytes truncated at the end \.\.\.\]/)

  // A process the server started, and a call still waiting when the client leaves.
  const serverPid = Number((await proxy.call(9, 'tools/call', { name: 'pid' })).result.content[0].text)
  const forkedPid = Number((await proxy.call(10, 'tools/call', { name: 'fork' })).result.content[0].text)
  assert.ok(alive(serverPid) && alive(forkedPid))
  proxy.send({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'hang' } })
  proxy.child.stdin.end()
  const left = JSON.parse((await proxy.next()).toString())
  assert.equal(left.id, 11)
  assert.equal(left.error.code, -32000)
  assert.match(left.error.message, /MCP server (exited with code 0|was killed by SIGTERM) before answering tools\/call/)
  assert.deepEqual(await proxy.exited, { code: 0, signal: null })
  await until(() => !alive(serverPid) && !alive(forkedPid), 'the server and the process it started to be gone')
})

test('a server killed mid-call: the client gets an error for the call, and the proxy exits', async () => {
  const { client, transport } = await connect(RAW_SERVER)
  const proxyPid = transport.pid
  const serverPid = Number((await client.callTool({ name: 'pid', arguments: {} })).content[0].text)
  const call = client.callTool({ name: 'hang', arguments: {} })
  await new Promise((resolve) => setTimeout(resolve, 100))
  process.kill(serverPid, 'SIGKILL')
  await assert.rejects(call, /MCP server was killed by SIGKILL before answering tools\/call/)
  await until(() => !alive(proxyPid), 'the proxy to exit')
  await client.close()
})

test('a server that exits mid-call: the call gets an error, the proxy exits with its code', async () => {
  const proxy = rawProxy(RAW_SERVER)
  await proxy.call(1, 'initialize', INITIALIZE)
  proxy.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hang' } })
  const answer = await proxy.call(3, 'tools/call', { name: 'exit' })
  const answers = [answer, JSON.parse((await proxy.next()).toString())].sort((a, b) => a.id - b.id)
  assert.deepEqual(
    answers.map((a) => [a.id, a.error.code, a.error.message]),
    [
      [2, -32000, 'MCP server exited with code 3 before answering tools/call (toolclamp mcp)'],
      [3, -32000, 'MCP server exited with code 3 before answering tools/call (toolclamp mcp)'],
    ],
  )
  assert.deepEqual(await proxy.exited, { code: 3, signal: null })
  await until(() => proxy.stderr().includes('toolclamp mcp: the server exited with code 3'), 'the exit to be logged')
})

test('a server that cannot be started: each request gets an error, the proxy exits with 1', async () => {
  const child = spawn(process.execPath, [BIN, 'mcp', '--', path.join(work, 'no-such-server')], { stdio: ['pipe', 'pipe', 'pipe'] })
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE })}\n`)
  const out = []
  const err = []
  child.stdout.on('data', (c) => out.push(c))
  child.stderr.on('data', (c) => err.push(c))
  const code = await new Promise((resolve) => child.on('close', resolve))
  assert.equal(code, 1)
  assert.match(Buffer.concat(err).toString(), /the server could not be started \(command not found\)/)
  // The request may have come before the server was seen gone, or not at all.
  for (const line of Buffer.concat(out).toString().split('\n').filter(Boolean)) assert.equal(JSON.parse(line).error.code, -32000)
})

// ---------------------------------------------------------------------------------------
// structuredContent over the budget: shortened and valid, or failed closed.
// ---------------------------------------------------------------------------------------

test('structuredContent over the budget: shortened within its outputSchema, or an isError result naming the saved file', async (t) => {
  const spillDir = path.join(work, 'spill-structured')
  const { client } = await connect(STRUCTURED_SERVER, [], { proxy: ['--spill-dir', spillDir] })
  try {
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))

    await t.test('report: rows dropped, still valid (the SDK client checked it too), all of it saved', async () => {
      const result = await client.callTool({ name: 'report', arguments: { rows: 20_000 } })
      assertWithin(result)
      assert.equal(result.isError, undefined)
      assert.equal(result.structuredContent.total, 20_000)
      assert.ok(result.structuredContent.rows.length > 100 && result.structuredContent.rows.length < 20_000)
      assert.equal(validates(byName.get('report').outputSchema, result.structuredContent), true)
      // The text block mirroring structuredContent holds the clamped value's JSON.
      assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent)
      const notes = result.content.map((b) => b.text).join('\n')
      assert.match(notes, /\$\.rows: [\d,]+ of 20,000 items/)
      const saved = /saved in (\S+?)\]/.exec(notes)[1]
      assert.equal(JSON.parse(fs.readFileSync(saved, 'utf8')).rows.length, 20_000)
    })

    await t.test('strict-report: no shortening keeps minItems, so the call fails closed and says where the result is', async () => {
      const result = await client.callTool({ name: 'strict-report', arguments: { rows: 20_000 } })
      assertWithin(result)
      assert.equal(result.isError, true)
      assert.equal(result.structuredContent, undefined)
      const { text } = result.content[0]
      assert.match(text, /^\[toolclamp: the result of strict-report \([\d,]+ bytes\) is too large for its budget/)
      assert.match(text, /\$\/rows must NOT have fewer than 5000 items/)
      const saved = /The whole result is saved in (\S+?)\.\]$/.exec(text)[1]
      assert.equal(JSON.parse(fs.readFileSync(saved, 'utf8')).structuredContent.rows.length, 20_000)
    })

    await t.test('a report within the budget passes unchanged', async () => {
      const result = await client.callTool({ name: 'report', arguments: { rows: 5 } })
      assert.equal(result.structuredContent.rows.length, 5)
      assert.equal(result.content.length, 1)
    })
  } finally {
    await client.close()
  }
  // Without a spill directory, the failure says how to keep such results.
  const { client: plain } = await connect(STRUCTURED_SERVER)
  try {
    await plain.listTools()
    const result = await plain.callTool({ name: 'strict-report', arguments: { rows: 20_000 } })
    assert.equal(result.isError, true)
    assert.match(
      result.content[0].text,
      /Run toolclamp mcp with --spill-dir <dir> to keep such results in a file, or --tool strict-report=off/,
    )
  } finally {
    await plain.close()
  }
})

test('per-tool budgets: a tool of its own size, a tool left alone', async () => {
  const { client } = await connect(RAW_SERVER, [], {
    proxy: ['--max-lines', '100', '--tool', 'big=4k', '--tool', 'echo=off', '--tool', 'received:max-lines=3'],
  })
  try {
    await client.listTools()
    const big = await client.callTool({ name: 'big', arguments: { mib: 1 } })
    assertWithin(big, { maxBytes: 4096, maxLines: Infinity })
    const message = 'x'.repeat(100_000)
    const echo = await client.callTool({ name: 'echo', arguments: { message } })
    assert.equal(JSON.parse(echo.content[0].text).message, message)
  } finally {
    await client.close()
  }
})

test('toolclamp mcp --help, and arguments it refuses', async () => {
  const run = (args) =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, 'mcp', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      const out = []
      const err = []
      child.stdout.on('data', (c) => out.push(c))
      child.stderr.on('data', (c) => err.push(c))
      child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }))
    })
  const help = await run(['--help'])
  assert.equal(help.code, 0)
  for (const flag of [
    '--max-bytes',
    '--max-lines',
    '--max-chars',
    '--max-tokens',
    '--tokenizer',
    '--strategy',
    '--head-ratio',
    '--notice',
    '--spill-dir',
    '--tool',
    '--max-message',
    '--verbose',
  ]) {
    assert.ok(help.stdout.includes(flag), flag)
  }
  const refused = [
    [['--max-byte', '5', '--', 'x'], 'toolclamp mcp: unknown option "--max-byte"; did you mean --max-bytes?'],
    [
      ['--tool', 'read_file:max-line=5', '--', 'x'],
      'toolclamp mcp: --tool "read_file:max-line=5": unknown key "max-line"; did you mean max-lines?',
    ],
    [['--max-bytes', '5k'], 'toolclamp mcp: mcp expects the server command: toolclamp mcp [options] -- <command> [args...]'],
    [['--strategy', 'middle', '--', 'x'], 'toolclamp mcp: --strategy expects auto, head, tail or head-tail, got "middle"'],
    [['--max-tokens', '10', '--tokenizer', 'o300k', '--', 'x'], 'toolclamp mcp: tokenizer must be'],
  ]
  for (const [args, message] of refused) {
    const { code, stderr } = await run(args)
    assert.equal(code, 2, args.join(' '))
    assert.ok(stderr.startsWith(message), `${args.join(' ')}: ${stderr}`)
  }
})

// ---------------------------------------------------------------------------------------
// In-process properties: the framing, and the clamp.
// ---------------------------------------------------------------------------------------

/** Frames `chunks` with a LineSplitter: the lines and oversized lines, as plain values. */
function frame(chunks, maxLineBytes, longLineBytes) {
  const out = []
  const splitter = new LineSplitter((line) => out.push(['line', Buffer.from(line).toString('hex')]), {
    maxLineBytes,
    onOversized: ({ head, tail, bytes }) => out.push(['oversized', bytes, head.toString('hex'), tail.toString('hex')]),
    // Lines moved to the binding (all but the shortest, when given) come back whole.
    longLineBytes,
    onLongLine:
      longLineBytes === undefined
        ? undefined
        : (line) => {
            out.push(['line', line.bytes().toString('hex')])
            line.dispose()
          },
  })
  for (const chunk of chunks) splitter.push(chunk)
  splitter.end()
  return out
}

/** The reference: the whole stream split at every \n, the rest a last line. */
function reference(stream, maxLineBytes) {
  const out = []
  let start = 0
  const emit = (line) => {
    if (line.length > maxLineBytes)
      out.push([
        'oversized',
        line.length,
        line.subarray(0, 65536).toString('hex'),
        line.subarray(Math.max(0, line.length - 65536)).toString('hex'),
      ])
    else out.push(['line', line.toString('hex')])
  }
  for (let at = stream.indexOf(10); at !== -1; at = stream.indexOf(10, start)) {
    emit(stream.subarray(start, at))
    start = at + 1
  }
  if (start < stream.length) emit(stream.subarray(start))
  return out
}

const messageText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.json({ maxDepth: 2 }),
  fc.constantFrom('é漢字😀', '\u2028\u2029', '{"id":1}', ''),
)

test('framing: any chunking of a stream (\\r\\n endings, UTF-8 split anywhere) gives the lines of the whole stream, long lines held by the binding or not', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(messageText, fc.boolean()), { maxLength: 12 }),
      fc.boolean(),
      fc.array(fc.nat(), { maxLength: 20 }),
      fc.constantFrom(Infinity, 8, 64),
      fc.constantFrom(undefined, 0, 4, 16),
      (messages, lastOpen, cuts, maxLineBytes, longLineBytes) => {
        let text = messages.map(([m, crlf]) => `${m.replaceAll('\n', ' ')}${crlf ? '\r\n' : '\n'}`).join('')
        if (lastOpen) text += 'tail without newline é'
        const stream = Buffer.from(text)
        const points = [...new Set(cuts.map((c) => (stream.length === 0 ? 0 : c % (stream.length + 1))))].sort((a, b) => a - b)
        const chunks = []
        let from = 0
        for (const p of points) {
          chunks.push(stream.subarray(from, p))
          from = p
        }
        chunks.push(stream.subarray(from))
        assert.deepEqual(frame(chunks, maxLineBytes, longLineBytes), reference(stream, maxLineBytes))
      },
    ),
    { numRuns: RUNS * 10 },
  )
})

test('framing: a line over the limit is never held; its ends and length are', () => {
  const line = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":42,"result":{"text":"'), Buffer.alloc(300_000, 0x61), Buffer.from('"}}')])
  const chunks = []
  for (let at = 0; at < line.length; at += 4096) chunks.push(line.subarray(at, at + 4096))
  chunks.push(Buffer.from('\n{"id":1}\n'))
  const out = frame(chunks, 100_000)
  assert.deepEqual(out[0].slice(0, 2), ['oversized', line.length])
  assert.equal(Buffer.from(out[0][2], 'hex').length, 65536)
  assert.equal(idAtStart(Buffer.from(out[0][2], 'hex').toString()), 42)
  assert.deepEqual(out[1], ['line', Buffer.from('{"id":1}').toString('hex')])
  assert.equal(idAtEnd('..."x"}],"isError":false},"jsonrpc":"2.0","id":"a\\"b"}\r'), 'a"b')
  // A line over 1 MiB in many chunks comes held by the binding, whole.
  const long = Buffer.alloc(3 * 1024 * 1024 + 5, 0x62)
  const handed = []
  const splitter = new LineSplitter((l) => handed.push(['line', l.length]), {
    onLongLine: (l) => {
      handed.push(['long', l.length, l.bytes().equals(long)])
      l.dispose()
    },
  })
  for (let at = 0; at < long.length; at += 65536) splitter.push(long.subarray(at, at + 65536))
  splitter.push(Buffer.from('\nshort\n'))
  assert.deepEqual(handed, [
    ['long', long.length, true],
    ['line', 5],
  ])
  assert.equal(idAtEnd('"text":"a"}'), undefined)
})

test('the clamp: any result within its budget, structuredContent valid against its schema or failed closed', () => {
  const schemaOf = (minRows) => ({
    type: 'object',
    properties: {
      total: { type: 'number' },
      rows: { type: 'array', items: { type: 'string' }, minItems: minRows },
      note: { type: 'string', minLength: 1 },
    },
    required: ['total', 'rows'],
  })
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: 'grapheme', maxLength: 300 }), { maxLength: 6 }),
      fc.option(fc.array(fc.string({ unit: 'grapheme-ascii', maxLength: 80 }), { maxLength: 200 }), { nil: undefined }),
      fc.option(fc.string({ minLength: 1, maxLength: 200 }), { nil: undefined }),
      fc.nat({ max: 50 }),
      fc.record({ maxBytes: fc.integer({ min: 64, max: 6000 }), maxLines: fc.integer({ min: 3, max: 400 }) }),
      fc.boolean(),
      (texts, rows, note, minRows, budget, mirror) => {
        const structured = rows === undefined ? undefined : { total: rows.length, rows, ...(note === undefined ? {} : { note }) }
        const content = texts.map((text) => ({ type: 'text', text }))
        if (structured !== undefined && mirror) content.unshift({ type: 'text', text: JSON.stringify(structured) })
        const result = structured === undefined ? { content } : { content, structuredContent: structured }
        const schema = schemaOf(structured === undefined ? 0 : Math.min(minRows, rows.length))
        const clamp = new ResultClamp({
          ...parseMcpArgs(['--max-bytes', String(budget.maxBytes), '--max-lines', String(budget.maxLines), '--', 'x']),
          log: () => {},
        })
        clamp.learnTools({ tools: [{ name: 't', inputSchema: { type: 'object' }, outputSchema: schema }] })
        const before = JSON.stringify(result)
        const { result: out, changed } = clamp.clamp('t', result, before.length)
        assert.equal(JSON.stringify(result), before, 'the input is not changed')
        if (!changed) assert.equal(out, result)
        assertWithin(out, budget)
        if (out.structuredContent !== undefined) assert.equal(validates(schema, out.structuredContent), true)
        else if (structured !== undefined) assert.equal(out.isError, true)
      },
    ),
    { numRuns: RUNS },
  )
})

test('a message the proxy cannot read or relay answers the request waiting for it, and stops nothing', () => {
  const written = []
  const logged = []
  const output = { write: (chunk) => written.push(String(chunk)) && true, on() {}, once() {} }
  const proxy = new McpProxy(parseMcpArgs(['--', 'x']), { output, errors: { write: (t) => logged.push(t) } })
  const ask = (id, method, params) => proxy.noteClientMessage({ jsonrpc: '2.0', id, method, params })
  ask(1, 'tools/call', { name: 'big' })
  ask(2, 'resources/read', { uri: 'file:///x' })
  // A long line whose strings cannot be made: the tool call gets an isError result.
  const failing = {
    length: 3_000_000,
    skeleton: () => ({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'marker' }] } }),
    indexOf: () => undefined,
    lengths: [],
    restore: () => {
      throw new RangeError('Invalid string length')
    },
    bytes: () => null,
    dispose: () => {},
  }
  assert.doesNotThrow(() => proxy.longFromServer(failing))
  const toolAnswer = JSON.parse(written.filter((t) => t !== '\n').at(-1))
  assert.deepEqual(toolAnswer, {
    jsonrpc: '2.0',
    id: 1,
    result: {
      content: [{ type: 'text', text: '[toolclamp: the result of big was 3,000,000 bytes: not read (Invalid string length)]' }],
      isError: true,
    },
  })
  // Any other request gets an error; a message nobody waits for is only logged.
  proxy.unread(2, 'was 600,000,000 bytes, over --max-message 536,870,912', 'too large to read')
  assert.deepEqual(JSON.parse(written.filter((t) => t !== '\n').at(-1)).error, {
    code: -32603,
    message: 'toolclamp mcp: the answer was 600,000,000 bytes, over --max-message 536,870,912: too large to read',
  })
  const before = written.length
  proxy.unread(3, 'was 9 bytes', 'not read')
  assert.equal(written.length, before)
  assert.match(logged.at(-1), /^toolclamp mcp: dropped a message from the server that was 9 bytes: not read\n$/)
  assert.equal(proxy.pending.size, 0)
})
