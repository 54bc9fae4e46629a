// toolclamp as a pi package, with the real pi CLI, offline. The package is packed as it is
// published and installed as a user installs it, `pi install npm:toolclamp`: pi runs npm, and
// npm fetches from a registry on 127.0.0.1 that serves this package's tarballs (the main one
// and this platform's) and its dependencies' (packed from node_modules). The model is an OpenAI-compatible server on 127.0.0.1 (chat
// completions, streamed), configured in an agent directory of the test's own (models.json);
// HOME is a temporary directory, so nothing of the machine's is read.
//
// The model asks for two tools at once, each with 5 MB of output: big_output, the custom tool
// of a test extension (__test__/fixtures/pi-big-tool.mjs), and bash printing a 5 MB file. The
// request after the tools ran is what reached the model: without the package, all 5 MB of the
// custom tool's output (bash is cut by pi itself); with it, the custom tool's output is cut
// to the budget with a notice naming the spill file that holds all of it, and bash's comes
// as pi made it (under the budget: no second notice). TOOLCLAMP_* variables change the
// budget and the spill directory, or turn the package off. Then the session of the run
// without the package is resumed with the package, on a model with a small window: the
// context guard cuts the tool results of the history to their shares of it.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { estimateTokens } from '../conversation.mjs'
import { measureText } from '../index.mjs'
import { pack, packMain, repoRoot, stagePlatform } from '../scripts/release/packages.mjs'
import { bigOutput } from './fixtures/pi-big-tool.mjs'

const FIXTURE = fileURLToPath(new URL('./fixtures/pi-big-tool.mjs', import.meta.url))
const PI_ROOT = dirname(dirname(fileURLToPath(import.meta.resolve('@mariozechner/pi-coding-agent'))))
const PI_BIN = join(PI_ROOT, JSON.parse(readFileSync(join(PI_ROOT, 'package.json'), 'utf8')).bin.pi)
const MANIFEST = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'))

// The budget the package applies by default (docs/pi.md), and pi's own tools' (50 KiB).
const MAX_BYTES = 65_536
const MAX_LINES = 2500
const PI_MAX_BYTES = 50 * 1024
// The model of the context guard's run: a small window, and the default shares of it.
const SMALL_WINDOW = 16_000
const RESULT_SHARE = 0.3
const AGGREGATE_SHARE = 0.5

const CALL_TOOLS = 'Read the build log and the test log.'
const BIG_CALL = 'call_big'
const BASH_CALL = 'call_bash'

/** This host's platform package: linux-x64-gnu, darwin-arm64, win32-x64-msvc, ... */
function hostPlatform() {
  const { platform, arch } = process
  if (platform === 'linux') return `linux-${arch}-${process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl'}`
  return platform === 'win32' ? `win32-${arch}-msvc` : `${platform}-${arch}`
}

// ---------------------------------------------------------------------------------------
// The registry and the model: one server on 127.0.0.1
// ---------------------------------------------------------------------------------------

/** A registry's document of one package: its manifest and where its tarball is. */
function packument(manifest, tarball, url) {
  const bytes = tarball === undefined ? undefined : readFileSync(tarball)
  const dist = { tarball: url }
  if (bytes !== undefined) {
    dist.integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`
    dist.shasum = createHash('sha1').update(bytes).digest('hex')
  }
  return {
    name: manifest.name,
    'dist-tags': { latest: manifest.version },
    versions: { [manifest.version]: { ...manifest, scripts: undefined, dist } },
  }
}

/** The text a message holds (a string, or text parts). */
function textOf(content) {
  if (typeof content === 'string') return content
  return Array.isArray(content) ? content.map((part) => part.text ?? '').join('') : ''
}

/** The chunks of one streamed chat completion (OpenAI's format). */
function completion(model, delta, finish) {
  const base = { id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 0, model }
  return [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', ...delta }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] },
    { ...base, choices: [], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } },
  ]
}

/**
 * The model: asked CALL_TOOLS, it calls big_output and bash (cat of `bigFile`) at once;
 * anything else it answers with text, ending the turn.
 */
function reply(body, bigFile) {
  const last = body.messages.at(-1)
  if (last.role === 'user' && textOf(last.content).includes(CALL_TOOLS)) {
    const call = (index, id, name, args) => ({ index, id, type: 'function', function: { name, arguments: JSON.stringify(args) } })
    const calls = [call(0, BIG_CALL, 'big_output', {}), call(1, BASH_CALL, 'bash', { command: `cat ${bigFile}` })]
    return completion(body.model, { content: null, tool_calls: calls }, 'tool_calls')
  }
  return completion(body.model, { content: 'The build failed.' }, 'stop')
}

async function startServer(bigFile) {
  const requests = [] // each chat completion request: { bytes, body }
  const packages = new Map() // registry: name -> { document, tarball }
  const server = createServer(async (req, res) => {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    const url = new URL(req.url, 'http://127.0.0.1')
    if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
      const raw = Buffer.concat(chunks)
      const body = JSON.parse(raw.toString('utf8'))
      requests.push({ bytes: raw.length, body })
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      for (const chunk of reply(body, bigFile)) res.write(`data: ${JSON.stringify(chunk)}\n\n`)
      res.end('data: [DONE]\n\n')
      return
    }
    const name = decodeURIComponent(url.pathname.replace(/^\/registry\//, ''))
    const tarball = [...packages.values()].find((p) => p.file !== undefined && url.pathname === `/registry/-/${basename(p.file)}`)
    if (req.method === 'GET' && tarball !== undefined) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(tarball.file))
    } else if (req.method === 'GET' && packages.has(name)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packages.get(name).document))
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}')
    }
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const origin = `http://127.0.0.1:${server.address().port}`
  return {
    origin,
    requests,
    /** Serves `manifest` at /registry/<name>, with `file` (a tarball) if given. */
    publish(manifest, file) {
      const url = `${origin}/registry/-/${basename(file ?? `${manifest.name}-${manifest.version}.tgz`)}`
      packages.set(manifest.name, { document: packument(manifest, file, url), file })
    },
    close() {
      server.closeAllConnections()
      server.close()
    },
  }
}

// ---------------------------------------------------------------------------------------
// pi, run as a user runs it
// ---------------------------------------------------------------------------------------

const children = new Set()

/** Runs pi to its end (never synchronously: the server answers in this process). */
function runPi(args, { env, cwd }) {
  const child = spawn(process.execPath, [PI_BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (data) => {
    stdout += data
  })
  child.stderr.setEncoding('utf8').on('data', (data) => {
    stderr += data
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      children.delete(child)
      resolve({ code, signal, stdout, stderr })
    })
  })
}

function assertRan(run, what) {
  assert.equal(run.code, 0, `${what} exited ${run.code ?? run.signal}:\n${run.stdout}\n${run.stderr}`)
}

/** The tool results of a chat completion request, by tool call id. */
function toolResults(body) {
  return new Map(body.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, textOf(m.content)]))
}

const SPILL_PATH = /full output saved to (\S+?\.toolclamp-spill\.txt)/
const PI_FULL_OUTPUT = /Full output: (\S+?)\]/

let work
let server
let bigFile
let bigText
let project
let plain // the agent dir of pi without the package: { dir, env }
let guarded // and with it, installed by `pi install npm:toolclamp`
let sessionDir // the sessions of the run without the package

/** An agent dir of pi's own: the mock model, no compaction or retries (they would call the model). */
function agentDir(name) {
  const dir = join(work, name)
  mkdirSync(dir, { recursive: true })
  const model = (id, contextWindow) => ({ id, contextWindow, maxTokens: 4096, input: ['text'] })
  const provider = {
    baseUrl: `${server.origin}/v1`,
    api: 'openai-completions',
    apiKey: 'mock-key',
    compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
    models: [model('mock-model', 200_000), model('mock-small', SMALL_WINDOW)],
  }
  writeFileSync(join(dir, 'models.json'), JSON.stringify({ providers: { mock: provider } }, null, 2))
  const settings = { compaction: { enabled: false }, retry: { enabled: false }, quietStartup: true }
  writeFileSync(join(dir, 'settings.json'), JSON.stringify(settings, null, 2))
  const home = join(work, `${name}-home`)
  mkdirSync(home)
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: join(work, 'tmp'),
    PI_CODING_AGENT_DIR: dir,
    PI_OFFLINE: '1',
    PI_SKIP_VERSION_CHECK: '1',
    PI_TELEMETRY: '0',
    // npm, as pi runs it for `pi install npm:...`: this registry, a global prefix and a cache of the test's own.
    npm_config_registry: `${server.origin}/registry/`,
    npm_config_prefix: join(work, `${name}-npm-global`),
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  }
  return { dir, env }
}

const PI_ARGS = ['--offline', '--no-context-files', '--no-skills', '--no-prompt-templates', '--no-themes', '--provider', 'mock']

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'toolclamp-pi-package-'))
  mkdirSync(join(work, 'tmp'))
  project = join(work, 'project')
  mkdirSync(project)
  bigText = bigOutput('test log')
  bigFile = join(project, 'test.log')
  writeFileSync(bigFile, bigText)
  server = await startServer(bigFile)

  // The registry: the main package, packed as `npm publish` packs it, and this platform's.
  const platform = hostPlatform()
  const main = packMain(work)
  assert.ok(
    main.files.some((f) => f.path === 'pi-extension.mjs'),
    `the extension is packed: ${main.files.map((f) => f.path).join(', ')}`,
  )
  server.publish(MANIFEST, main.path)
  for (const name of readdirSync(join(repoRoot, 'npm'))) {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'npm', name, 'package.json'), 'utf8'))
    server.publish(manifest, name === platform ? pack(stagePlatform({ platform }, join(work, platform)), work).path : undefined)
  }
  // And the main package's dependencies, at the versions installed here, packed from node_modules.
  const published = new Set()
  const publishInstalled = (name) => {
    if (published.has(name)) return
    published.add(name)
    const dir = join(repoRoot, 'node_modules', name)
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    server.publish(manifest, pack(dir, work, ['--ignore-scripts']).path)
    for (const dependency of Object.keys(manifest.dependencies ?? {})) publishInstalled(dependency)
  }
  for (const dependency of Object.keys(MANIFEST.dependencies ?? {})) publishInstalled(dependency)

  plain = agentDir('plain')
  guarded = agentDir('guarded')
  sessionDir = join(work, 'sessions')
})

after(() => {
  for (const child of children) child.kill('SIGKILL')
  server?.close()
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
})

let withoutPackage // the tool results the model got without the package

test('without the package, pi sends a custom tool’s 5 MB output whole; bash’s is cut by pi itself', { timeout: 120_000 }, async (t) => {
  const before = server.requests.length
  const run = await runPi([...PI_ARGS, '--model', 'mock-model', '--session-dir', sessionDir, '-e', FIXTURE, '-p', CALL_TOOLS], {
    env: plain.env,
    cwd: project,
  })
  assertRan(run, 'pi')
  const requests = server.requests.slice(before)
  assert.equal(requests.length, 2, 'the tool calls, then the request with their results')
  const results = toolResults(requests[1].body)
  withoutPackage = results
  const big = results.get(BIG_CALL)
  assert.equal(big, bigOutput(), 'the custom tool’s output, whole')
  const bash = results.get(BASH_CALL)
  const full = PI_FULL_OUTPUT.exec(bash)?.[1]
  assert.ok(full !== undefined, `pi names its own full output: ${bash.slice(-300)}`)
  assert.equal(readFileSync(full, 'utf8'), bigText)
  assert.ok(Buffer.byteLength(bash) <= PI_MAX_BYTES + 512, `pi's own cut of bash: ${Buffer.byteLength(bash)} bytes`)
  t.diagnostic(
    `without the package: request ${requests[1].bytes} bytes; big_output ${Buffer.byteLength(big)} bytes, ${measureText(big).lines} lines; ` +
      `bash ${Buffer.byteLength(bash)} bytes, ${measureText(bash).lines} lines (pi's own cut, ending ${JSON.stringify(bash.slice(-120))})`,
  )
})

test('`pi install npm:toolclamp` installs the package from the registry, and pi loads it', { timeout: 120_000 }, async () => {
  const install = await runPi(['install', 'npm:toolclamp'], { env: guarded.env, cwd: project })
  assertRan(install, 'pi install')
  const settings = JSON.parse(readFileSync(join(guarded.dir, 'settings.json'), 'utf8'))
  assert.deepEqual(settings.packages, ['npm:toolclamp'])
  assert.equal(settings.compaction.enabled, false, 'the rest of settings.json is kept')
  const installed = join(guarded.env.npm_config_prefix, process.platform === 'win32' ? '' : 'lib', 'node_modules')
  assert.deepEqual(JSON.parse(readFileSync(join(installed, 'toolclamp', 'package.json'), 'utf8')).pi, MANIFEST.pi)
  // npm installs a global package's optional dependencies inside it.
  assert.ok(existsSync(join(installed, 'toolclamp', 'node_modules', `toolclamp-${hostPlatform()}`)), 'with the platform package npm picked')
  const list = await runPi(['list'], { env: guarded.env, cwd: project })
  assertRan(list, 'pi list')
  assert.match(list.stdout, /npm:toolclamp/)
})

let withPackage

test('with the package, the custom tool’s output reaches the model within the budget, with a notice naming its spill file', {
  timeout: 120_000,
}, async (t) => {
  const before = server.requests.length
  const run = await runPi([...PI_ARGS, '--model', 'mock-model', '--no-session', '-e', FIXTURE, '-p', CALL_TOOLS], {
    env: guarded.env,
    cwd: project,
  })
  assertRan(run, 'pi')
  assert.doesNotMatch(run.stderr, /toolclamp|Warning/, 'no warning')
  const requests = server.requests.slice(before)
  assert.equal(requests.length, 2)
  const results = toolResults(requests[1].body)
  withPackage = results

  const big = results.get(BIG_CALL)
  const size = measureText(big)
  assert.ok(size.bytes <= MAX_BYTES && size.lines <= MAX_LINES, `within the budget: ${JSON.stringify(size)}`)
  assert.ok(big.startsWith(bigOutput().slice(0, 10_000)), 'the start of the output, as it was')
  // An honest notice: what was dropped, and where all of it is.
  const notice = big.split('\n').at(-1)
  assert.match(
    notice,
    /^\[\.\.\. [\d,]+ lines, [\d,]+ bytes truncated at the end; full output saved to \S+ \(dropped: lines [\d,]+–[\d,]+\) \.\.\.\]$/,
  )
  const spill = SPILL_PATH.exec(notice)[1]
  assert.equal(dirname(spill), join(guarded.dir, 'toolclamp-spill'), 'in the agent dir')
  assert.equal(readFileSync(spill, 'utf8'), bigOutput(), 'the spill file holds the whole output')
  if (process.platform !== 'win32') {
    assert.equal(statSync(dirname(spill)).mode & 0o777, 0o700, 'a private directory')
    assert.equal(statSync(spill).mode & 0o777, 0o600, 'a private file')
  }

  // bash: pi's own cut, under the budget, reaches the model as pi made it (no second notice).
  const bash = results.get(BASH_CALL)
  assert.doesNotMatch(bash, /toolclamp-spill/)
  const withoutPath = (text) => text.replace(PI_FULL_OUTPUT, 'Full output: <file>]')
  assert.equal(withoutPath(bash), withoutPath(withoutPackage.get(BASH_CALL)))
  assert.equal(readFileSync(PI_FULL_OUTPUT.exec(bash)[1], 'utf8'), bigText)

  t.diagnostic(
    `with the package: request ${requests[1].bytes} bytes; big_output ${size.bytes} bytes, ${size.lines} lines ` +
      `(was ${Buffer.byteLength(withoutPackage.get(BIG_CALL))} bytes); bash ${Buffer.byteLength(bash)} bytes, as without`,
  )
})

test('TOOLCLAMP_* variables set the budget and the spill directory; below pi’s own budget, bash’s output is cut again', {
  timeout: 120_000,
}, async () => {
  const spillDir = join(work, 'my-spill')
  const env = { ...guarded.env, TOOLCLAMP_MAX_BYTES: '16k', TOOLCLAMP_MAX_LINES: '300', TOOLCLAMP_SPILL_DIR: spillDir }
  const before = server.requests.length
  const run = await runPi([...PI_ARGS, '--model', 'mock-model', '--no-session', '-e', FIXTURE, '-p', CALL_TOOLS], { env, cwd: project })
  assertRan(run, 'pi')
  const requests = server.requests.slice(before)
  assert.equal(requests.length, 2)
  const results = toolResults(requests[1].body)
  for (const [id, text] of results) {
    const size = measureText(text)
    assert.ok(size.bytes <= 16_384 && size.lines <= 300, `${id}: ${JSON.stringify(size)}`)
    assert.equal(dirname(SPILL_PATH.exec(text)[1]), spillDir, id)
  }
  assert.equal(readFileSync(SPILL_PATH.exec(results.get(BIG_CALL))[1], 'utf8'), bigOutput())
  // bash: the spill file holds what pi returned, whose notice names pi's file with all of it.
  const piCut = readFileSync(SPILL_PATH.exec(results.get(BASH_CALL))[1], 'utf8')
  assert.equal(
    piCut.replace(PI_FULL_OUTPUT, 'Full output: <file>]'),
    withoutPackage.get(BASH_CALL).replace(PI_FULL_OUTPUT, 'Full output: <file>]'),
  )
  assert.equal(readFileSync(PI_FULL_OUTPUT.exec(piCut)[1], 'utf8'), bigText)

  // TOOLCLAMP_DISABLE=1: installed, and off.
  const off = await runPi([...PI_ARGS, '--model', 'mock-model', '--no-session', '-e', FIXTURE, '-p', CALL_TOOLS], {
    env: { ...guarded.env, TOOLCLAMP_DISABLE: '1' },
    cwd: project,
  })
  assertRan(off, 'pi')
  assert.equal(toolResults(server.requests.at(-1).body).get(BIG_CALL), bigOutput())
})

test('a session resumed with the package on a small window: the tool results of its history fit their shares', {
  timeout: 120_000,
}, async (t) => {
  assert.ok(withoutPackage !== undefined && withPackage !== undefined, 'the runs above made the session')
  const [session] = readdirSync(sessionDir, { recursive: true }).filter((name) => String(name).endsWith('.jsonl'))
  assert.ok(session !== undefined, 'the run without the package left its session')
  const before = server.requests.length
  const run = await runPi([...PI_ARGS, '--model', 'mock-small', '--session', join(sessionDir, session), '-p', 'What failed?'], {
    env: guarded.env,
    cwd: project,
  })
  assertRan(run, 'pi')
  const requests = server.requests.slice(before)
  assert.equal(requests.length, 1)
  const { body, bytes } = requests[0]
  const results = toolResults(body)
  assert.deepEqual([...results.keys()].sort(), [BASH_CALL, BIG_CALL])
  const tokens = new Map([...results].map(([id, text]) => [id, estimateTokens(text)]))
  for (const [id, count] of tokens) assert.ok(count <= SMALL_WINDOW * RESULT_SHARE, `${id}: ${count} tokens`)
  const total = [...tokens.values()].reduce((a, b) => a + b, 0)
  assert.ok(total <= SMALL_WINDOW * AGGREGATE_SHARE, `all tool results: ${total} tokens`)
  // The whole request fits the window too (the system prompt and the prompts are small).
  const all = estimateTokens(body.messages.map((m) => textOf(m.content)).join('\n'))
  assert.ok(all <= SMALL_WINDOW, `the request: ${all} tokens`)
  // The custom tool's 5 MB, saved whole before it was cut.
  const spill = SPILL_PATH.exec(results.get(BIG_CALL))?.[1]
  assert.ok(spill !== undefined, results.get(BIG_CALL).slice(-400))
  assert.equal(readFileSync(spill, 'utf8'), bigOutput())
  t.diagnostic(
    `resumed on a ${SMALL_WINDOW}-token window: request ${bytes} bytes, about ${all} tokens; ` +
      `big_output ${tokens.get(BIG_CALL)} tokens (was ${estimateTokens(withoutPackage.get(BIG_CALL))}), ` +
      `bash ${tokens.get(BASH_CALL)} tokens (was ${estimateTokens(withoutPackage.get(BASH_CALL))})`,
  )
})
