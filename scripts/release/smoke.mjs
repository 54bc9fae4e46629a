// The smoke check of an installed toolclamp: run from a project that installed the packed
// tarballs (the release dry run copies it there), on the Node of the target under test. It
// loads the root and every subpath, from ESM and CommonJS, calls every export at least once
// on a small input and checks what comes back by its properties: within the budget, a notice
// where something was cut, the very same value when it fits. Any export it does not call fails
// it, so a new export needs a line here. The last line names the runtime that loaded and
// the addon's files, from the working directory:
//
//   smoke ok: 35 exports of 5 entries; runtime native, node_modules/toolclamp-linux-arm64-musl/toolclamp.linux-arm64-musl.node (linux arm64 musl, Node v22.20.0)
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, join, relative } from 'node:path'

const require = createRequire(join(process.cwd(), 'package.json'))
const ENTRIES = ['toolclamp', 'toolclamp/conversation', 'toolclamp/ai-sdk', 'toolclamp/pi', 'toolclamp/presets']

const modules = {}
for (const specifier of ENTRIES) {
  const esm = await import(specifier)
  const cjs = require(specifier)
  const names = Object.keys(cjs).sort()
  assert.ok(names.length > 0, `${specifier} exports something`)
  assert.deepEqual(
    Object.keys(esm)
      .filter((name) => name !== 'default')
      .sort(),
    names,
    `${specifier}: ESM and CommonJS export the same names`,
  )
  for (const name of names) assert.equal(esm[name], cjs[name], `${specifier}: ${name} is one object from ESM and CommonJS`)
  assert.equal(esm.default, cjs, `${specifier}: the default export is the CommonJS module`)
  modules[specifier] = cjs
}

// Every export goes through `use`, which records it.
const called = new Set()
const use = (specifier, name) => {
  assert.ok(name in modules[specifier], `${specifier} exports ${name}`)
  called.add(`${specifier}#${name}`)
  return modules[specifier][name]
}

const bytes = (text) => Buffer.byteLength(text)
const lines = (text) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0))
const NOTICE = /\[\.\.\.|truncated|elided/
const log = Array.from({ length: 200 }, (_, i) => `step ${i + 1}: compiled src/module_${i}.ts\n`).join('')
const short = 'all tests passed\n'
const work = mkdtempSync(join(tmpdir(), 'toolclamp-smoke-'))

try {
  // Strings.
  for (const name of ['stringTruncateHead', 'stringTruncateTail', 'stringTruncateHeadTail']) {
    const f = use('toolclamp', name)
    const cut = f(log, { maxChars: 120, maxBytes: Infinity })
    assert.ok(cut.length <= 120 && NOTICE.test(cut), `${name}: ${JSON.stringify(cut)}`)
    assert.equal(f(short, 100), short, `${name}: the same string when it fits`)
    assert.equal(f('😀😀😀😀', 3).includes('\ud83d\ud83d'), false, `${name}: no split surrogate pair`)
  }
  const truncateText = use('toolclamp', 'truncateText')
  const text = truncateText(log, { maxLines: 5, maxBytes: 300 })
  assert.ok(text.truncated && text.outputLines <= 5 && text.outputBytes <= 300 && NOTICE.test(text.text), JSON.stringify(text))
  assert.equal(lines(text.text), text.outputLines)
  assert.equal(text.totalLines, 200)
  const fits = truncateText(short, { maxLines: 5 })
  assert.ok(!fits.truncated && fits.text === short)
  assert.deepEqual(use('toolclamp', 'measureText')('héllo\n😀'), { chars: 8, bytes: 11, lines: 2 })

  // JSON.
  const value = { status: 'failed', log, codes: [1, 2, 3] }
  const json = use('toolclamp', 'clampJson')(value, { maxBytes: 200 })
  assert.ok(json.truncated && bytes(JSON.stringify(json.value)) <= 200 && json.value.status === 'failed', JSON.stringify(json))
  assert.equal(use('toolclamp', 'clampJson')(value, { maxBytes: 100_000 }).value, value, 'clampJson: the same value when it fits')
  const jsonText = use('toolclamp', 'clampJsonText')(JSON.stringify(value), { maxBytes: 200 })
  assert.ok(jsonText.json && jsonText.truncated && bytes(jsonText.text) <= 200, JSON.stringify(jsonText))
  assert.equal(JSON.parse(jsonText.text).status, 'failed')

  // Tool results.
  const payload = { content: [{ type: 'text', text: log }], details: { lines: 200 } }
  const hardTruncateToolPayload = use('toolclamp', 'hardTruncateToolPayload')
  const clamped = hardTruncateToolPayload(payload, { maxLines: 5 })
  assert.ok(lines(clamped.content[0].text) <= 5 && NOTICE.test(clamped.content[0].text), clamped.content[0].text)
  assert.deepEqual(clamped.details, payload.details)
  assert.equal(payload.content[0].text, log, 'the payload is not mutated')
  const small = { content: [{ type: 'text', text: short }] }
  assert.equal(hardTruncateToolPayload(small, { maxLines: 5 }), small, 'hardTruncateToolPayload: the same object when it fits')
  const error = use('toolclamp', 'hardTruncateToolError')(new Error(log), { maxBytes: 200 })
  assert.ok(error instanceof Error && bytes(error.message) <= 200 && NOTICE.test(error.message), error.message)
  const partials = []
  use('toolclamp', 'wrapOnUpdate')((partial) => partials.push(partial), { maxLines: 5 })(payload)
  assert.ok(lines(partials[0].content[0].text) <= 5 && NOTICE.test(partials[0].content[0].text))
  const tool = { name: 'read_log', execute: async () => payload }
  const wrapped = use('toolclamp', 'wrapToolWithHardOutputTruncate')(tool, { maxLines: 5 })
  const executed = await wrapped.execute('call-1', {})
  assert.ok(lines(executed.content[0].text) <= 5 && NOTICE.test(executed.content[0].text))

  // Commands.
  const exec = use('toolclamp', 'formatExecOutput')({ stdout: log, stderr: 'oops\n', exitCode: 1 }, { stdout: { maxLines: 10 } })
  assert.ok(exec.stdout.truncated && exec.stdout.outputLines <= 10 && exec.text.includes('exit code: 1'), exec.text)
  assert.ok(exec.text.includes('step 200:'), 'the end of stdout is kept')
  const capture = use('toolclamp', 'createOutputCapture')({ maxLines: 5, spill: { dir: work } })
  for (let i = 0; i < log.length; i += 100) capture.write(log.slice(i, i + 100))
  const captured = capture.end()
  assert.ok(
    captured.truncated && captured.outputLines <= 5 && captured.text.endsWith('step 200: compiled src/module_199.ts\n'),
    captured.text,
  )
  const spilled = readdirSync(work)
  assert.equal(spilled.length, 1, 'the capture spilled its whole output')
  assert.equal(readFileSync(join(work, spilled[0]), 'utf8'), log)
  // Any age is old enough at maxAgeMs 0: the spill file goes.
  assert.deepEqual(
    use('toolclamp', 'pruneSpillDir')(work, { maxAgeMs: 0 }).map((path) => basename(path)),
    spilled,
  )
  assert.deepEqual(readdirSync(work), [])
  // A shell the host has: the command is not run by this Node, so it works under emulation too.
  const script = 'i=1; while [ $i -le 200 ]; do echo "line $i"; i=$((i+1)); done; echo failed >&2; exit 3'
  const run = await use('toolclamp', 'runCommand')('sh', ['-c', script], { stdout: { maxLines: 5 } })
  assert.ok(run.exitCode === 3 && run.stderr === 'failed\n' && run.streams.stdout.outputLines <= 5, JSON.stringify(run))
  assert.ok(run.stdout.endsWith('line 200\n') && NOTICE.test(run.stdout), run.stdout)
  const readPartial = use('toolclamp', 'readPartial')
  const page = readPartial(log, { maxLines: 5 })
  assert.ok(page.partial && page.shownLines <= 5 && page.firstLine === 1 && page.nextOffset === page.lastLine + 1, JSON.stringify(page))
  const next = readPartial(Buffer.from(log), { maxLines: 5, offset: page.nextOffset })
  assert.equal(next.firstLine, page.nextOffset)
  assert.ok(next.page.startsWith(`step ${page.nextOffset}:`), next.page)

  // Conversations.
  assert.equal(use('toolclamp/conversation', 'estimateTokens')('上下左右'), 4)
  assert.equal(use('toolclamp/conversation', 'countTokens')('hello world', { tokenizer: 'o200k_base' }), 2)
  const estimateTokens = modules['toolclamp/conversation'].estimateTokens
  const bigLog = log.repeat(20)
  const messages = [
    { role: 'user', content: 'Why is CI red?' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: bigLog },
  ]
  const clampMessages = use('toolclamp/conversation', 'clampToolResultsInMessages')
  const conversation = clampMessages(messages, { contextWindowTokens: 2_000 })
  assert.equal(conversation.results[0].action, 'clamped')
  assert.ok(estimateTokens(conversation.messages[2].content) <= 0.3 * 2_000, conversation.messages[2].content)
  assert.equal(messages[2].content, bigLog, 'the messages are not mutated')
  assert.equal(clampMessages(messages, { contextWindowTokens: 1_000_000 }).messages, messages, 'the same array when it fits')
  const overflow = (tokens) => Object.assign(new Error(`prompt is too long: ${tokens} tokens > 2000 maximum`), { status: 400 })
  const sent = []
  const send = async (attempt) => {
    sent.push(attempt)
    const tokens = estimateTokens(JSON.stringify(attempt))
    if (tokens > 2_000) throw overflow(tokens)
    return 'answered'
  }
  const recovered = await use('toolclamp/conversation', 'withContextOverflowRecovery')(send, { messages, contextWindowTokens: 2_000 })
  assert.ok(recovered.result === 'answered' && recovered.attempts.length === 2 && sent[0] === messages, JSON.stringify(recovered.attempts))
  const classified = use('toolclamp/conversation', 'classifyProviderError')(overflow(5_000))
  assert.deepEqual(classified, { kind: 'context_overflow', provider: 'anthropic', limitTokens: 2000, requestedTokens: 5000 })
  const isOverflow = use('toolclamp/conversation', 'isContextOverflowError')
  assert.ok(isOverflow(overflow(5_000)) && !isOverflow(Object.assign(new Error('rate limit exceeded'), { status: 429 })))

  // The Vercel AI SDK middleware (a plain object: the SDK is not installed here).
  const middleware = use('toolclamp/ai-sdk', 'toolResultsMiddleware')({ contextWindowTokens: 2_000 })
  const prompt = [
    { role: 'user', content: [{ type: 'text', text: 'Why is CI red?' }] },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'bash', output: { type: 'text', value: bigLog } }] },
  ]
  const params = await middleware.transformParams({ params: { prompt }, type: 'generate' })
  const sdkOutput = params.prompt[1].content[0].output.value
  assert.ok(estimateTokens(sdkOutput) <= 0.3 * 2_000 && NOTICE.test(sdkOutput), sdkOutput)
  assert.equal(prompt[1].content[0].output.value, bigLog)
  const fitting = { prompt: [prompt[0]] }
  assert.equal(await middleware.transformParams({ params: fitting, type: 'generate' }), fitting)
  const generated = await middleware.wrapGenerate({
    params: { prompt },
    doGenerate: async () => Promise.reject(overflow(5_000)),
    model: { doGenerate: async ({ prompt: retried }) => ({ text: `retried with ${estimateTokens(JSON.stringify(retried))} tokens` }) },
  })
  assert.match(generated.text, /^retried with \d+ tokens$/)

  // pi-agent-core and pi-coding-agent (plain objects of their shapes: pi is not installed here).
  const piMessages = [
    { role: 'user', content: 'Why is CI red?', timestamp: 1 },
    { role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text: bigLog }], isError: false, timestamp: 2 },
  ]
  const guarded = await use('toolclamp/pi', 'toolResultsContextGuard')({ contextWindowTokens: 2_000 })(piMessages)
  assert.ok(estimateTokens(guarded[1].content[0].text) <= 0.3 * 2_000 && NOTICE.test(guarded[1].content[0].text))
  const streamFn = (_model, context) => {
    const tokens = estimateTokens(JSON.stringify(context.messages))
    const message = { role: 'assistant', content: [{ type: 'text', text: `seen ${tokens}` }], stopReason: 'stop' }
    const failed = { role: 'assistant', content: [], stopReason: 'error', errorMessage: overflow(tokens).message }
    const events =
      tokens > 2_000
        ? [{ type: 'error', reason: 'error', error: failed }]
        : [
            { type: 'start', partial: message },
            { type: 'done', reason: 'stop', message },
          ]
    return {
      async *[Symbol.asyncIterator]() {
        yield* events
      },
      result: async () => (tokens > 2_000 ? failed : message),
    }
  }
  const piStream = use('toolclamp/pi', 'wrapStreamFnWithOverflowRecovery')(streamFn)(
    { id: 'm', contextWindow: 2_000 },
    { messages: piMessages },
  )
  const piEvents = []
  for await (const event of piStream) piEvents.push(event.type)
  assert.deepEqual(piEvents, ['start', 'done'], 'the refused attempt is not seen, the retry is')
  const appended = []
  const manager = use('toolclamp/pi', 'guardSessionManager')({ appendMessage: (message) => appended.push(message) }, { maxLines: 5 })
  for (const message of piMessages) manager.appendMessage(message)
  assert.equal(appended[0], piMessages[0])
  assert.ok(lines(appended[1].content[0].text) <= 5 && NOTICE.test(appended[1].content[0].text))
  const session = join(work, 'session.jsonl')
  const entry = (id, parentId, message) => ({ type: 'message', id, parentId, timestamp: '2025-06-01T10:00:00.000Z', message })
  const header = { type: 'session', version: 3, id: 's', timestamp: '2025-06-01T10:00:00.000Z', cwd: work }
  const original = [header, entry('e1', null, piMessages[0]), entry('e2', 'e1', piMessages[1])]
    .map((line) => `${JSON.stringify(line)}\n`)
    .join('')
  writeFileSync(session, original)
  const repairSessionFile = use('toolclamp/pi', 'repairSessionFile')
  const report = repairSessionFile(session, { maxLines: 5 })
  assert.ok(report.changed && report.results.length === 1 && readFileSync(report.results[0].spillPath, 'utf8') === bigLog)
  const repaired = JSON.parse(readFileSync(session, 'utf8').trim().split('\n').at(-1)).message.content[0].text
  assert.ok(lines(repaired) <= 5 && NOTICE.test(repaired), repaired)
  assert.equal(repairSessionFile(session, { maxLines: 5 }).changed, false, 'a second repair changes nothing')
  // The pi extension (what `pi install npm:toolclamp` loads), given a stand-in for pi's API.
  const handlers = {}
  use('toolclamp/pi', 'toolResultsExtension')({ maxLines: 5, spillDir: join(work, 'pi-spill') })({
    on: (event, handler) => {
      handlers[event] = handler
    },
  })
  const piContent = [{ type: 'text', text: log }]
  const piResult = await handlers.tool_result({ toolName: 'bash', content: piContent, isError: false }, {})
  const piText = piResult.content[0].text
  assert.ok(lines(piText) <= 5 && NOTICE.test(piText) && piText.includes(join(work, 'pi-spill')), piText)
  const piShort = [{ type: 'text', text: short }]
  assert.equal(await handlers.tool_result({ toolName: 'bash', content: piShort, isError: false }, {}), undefined)

  // Presets.
  const presets = use('toolclamp/presets', 'TOOL_OUTPUT_PRESETS')
  assert.ok(Object.isFrozen(presets) && presets.piBash && presets.default, Object.keys(presets).join(' '))
  const profile = use('toolclamp/presets', 'resolveToolProfile')('read_file')
  assert.equal(profile.maxLines, 500)
  const toolOutput = use('toolclamp/presets', 'truncateToolOutput')('bash', log, { maxLines: 5 })
  assert.ok(toolOutput.truncated && lines(toolOutput.text) <= 5 && NOTICE.test(toolOutput.text), JSON.stringify(toolOutput))
  assert.deepEqual(use('toolclamp/presets', 'resolveToolOutputLimit')({ arg: 1000 }), { value: 1000, source: 'arg' })
  const envelope = use('toolclamp/presets', 'formatToolOutputEnvelope')('bash', log, { limit: 1024 })
  assert.ok(envelope.truncated && envelope.originalBytes === bytes(log) && envelope.text.length < log.length, JSON.stringify(envelope))
  const python = use('toolclamp/presets', 'formatPythonResult')({ printOutput: log.split('\n'), output: [1, 2, 3] }, { maxTotalChars: 400 })
  assert.ok(python.length <= 400 && python.includes('[1,2,3]') && NOTICE.test(python), python)
} finally {
  rmSync(work, { recursive: true, force: true })
}

// Which build loaded: toolclamp's own word.
const runtime = use('toolclamp', 'runtime')
assert.ok(runtime === 'native' || runtime === 'wasm', `runtime is ${runtime}`)

const exported = Object.entries(modules).flatMap(([specifier, module]) => Object.keys(module).map((name) => `${specifier}#${name}`))
assert.deepEqual(
  exported.filter((name) => !called.has(name)),
  [],
  'every export is called',
)

// What loaded: the addon's files, a .node file or what a platform package (toolclamp-<platform>)
// gave, its loader included.
const loaded = Object.keys(require.cache)
const addon = loaded
  .filter((path) => /\.node$/.test(path) || (/[\\/]node_modules[\\/]toolclamp-[^\\/]+[\\/]/.test(path) && !path.endsWith('.json')))
  .map((path) => relative(process.cwd(), path))
const libc = process.report.getReport().header.glibcVersionRuntime ? 'glibc' : 'musl'
const where = `${process.platform} ${process.arch} ${libc}, Node ${process.version}`
console.log(
  `smoke ok: ${exported.length} exports of ${ENTRIES.length} entries; runtime ${runtime}, ${addon.join(' ') || 'no addon file'} (${where})`,
)
