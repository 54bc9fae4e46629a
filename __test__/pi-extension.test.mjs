// toolResultsExtension (toolclamp/pi), the pi extension the package ships, driven as pi drives
// it: a stand-in for pi's ExtensionAPI records the handlers, and the test calls them with
// pi's events. Its settings (options, else TOOLCLAMP_* variables, else the defaults); the
// tool_result handler (nothing returned for a result that fits, so pi keeps the very value;
// a cut result within the budget, its text saved whole first); the context guard (the
// model's window from ctx.model); spill files pruned when a session starts. The real pi CLI
// runs it in __test__/pi-package.test.mjs. FC_RUNS sets the runs of the property (a
// hundredth of it, at least 50: each run may write a spill file).
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import fc from 'fast-check'

import { measureText } from '../index.mjs'
import { estimateTokens } from '../conversation.mjs'
import { toolResultsExtension } from '../pi.mjs'

const RUNS = Math.max(50, Math.floor(Number(process.env.FC_RUNS ?? 5000) / 100))
const work = mkdtempSync(join(tmpdir(), 'toolclamp-pi-extension-'))
after(() => rmSync(work, { recursive: true, force: true }))
let dirs = 0
const freshDir = () => join(work, `spill-${++dirs}`)

/** pi's ExtensionAPI as far as the extension uses it: the handlers it registers, by event. */
function loaded(extension) {
  const handlers = new Map()
  extension({
    on(event, handler) {
      assert.ok(!handlers.has(event), `one handler for ${event}`)
      handlers.set(event, handler)
    },
  })
  return handlers
}

const ctx = (contextWindow) => ({ hasUI: false, model: { provider: 'mock', id: 'mock-model', contextWindow } })
const textResult = (text, extra = {}) => ({
  type: 'tool_result',
  toolName: 'big_output',
  toolCallId: 'call_1',
  input: {},
  content: [{ type: 'text', text }],
  details: {},
  isError: false,
  ...extra,
})
const numbered = (n, label = 'line') => Array.from({ length: n }, (_, i) => `${label} ${i + 1}`).join('\n')

test('the settings: the defaults, above pi’s own 50 KiB and 2,000 lines; the spill directory in pi’s agent dir', () => {
  const { settings } = toolResultsExtension({ env: {} })
  assert.deepEqual(settings, {
    maxBytes: 65_536,
    maxLines: 2500,
    spillDir: join(homedir(), '.pi', 'agent', 'toolclamp-spill'),
    spillDays: 7,
    resultShare: 0.3,
    aggregateShare: 0.5,
    disabled: false,
  })
  assert.ok(Object.isFrozen(settings))
  assert.equal(toolResultsExtension({ env: { PI_CODING_AGENT_DIR: '/srv/pi/agent' } }).settings.spillDir, '/srv/pi/agent/toolclamp-spill')
  assert.equal(toolResultsExtension({ env: { PI_CODING_AGENT_DIR: '~/pi' } }).settings.spillDir, join(homedir(), 'pi', 'toolclamp-spill'))
})

test('the settings: each variable, read as a size, a count, a directory or a number; options win over them', () => {
  const env = {
    TOOLCLAMP_MAX_BYTES: '32k',
    TOOLCLAMP_MAX_LINES: '400',
    TOOLCLAMP_SPILL_DIR: '~/spill',
    TOOLCLAMP_SPILL_DAYS: '1.5',
    TOOLCLAMP_RESULT_SHARE: '0.2',
    TOOLCLAMP_AGGREGATE_SHARE: '.4',
    TOOLCLAMP_DISABLE: '0',
  }
  assert.deepEqual(toolResultsExtension({ env }).settings, {
    maxBytes: 32_768,
    maxLines: 400,
    spillDir: join(homedir(), 'spill'),
    spillDays: 1.5,
    resultShare: 0.2,
    aggregateShare: 0.4,
    disabled: false,
  })
  assert.equal(toolResultsExtension({ env: { TOOLCLAMP_SPILL_DIR: 'rel/spill' } }).settings.spillDir, resolve('rel/spill'))
  const given = { maxBytes: 1000, maxLines: 10, spillDir: '/tmp/x', spillDays: Infinity, resultShare: 1, aggregateShare: 1 }
  assert.deepEqual(toolResultsExtension({ ...given, env }).settings, { ...given, disabled: false })
  // `VAR=` unsets a variable, as in env files.
  assert.equal(toolResultsExtension({ env: { TOOLCLAMP_MAX_BYTES: '' } }).settings.maxBytes, 65_536)
  for (const word of ['1', 'true', 'YES']) assert.equal(toolResultsExtension({ env: { TOOLCLAMP_DISABLE: word } }).settings.disabled, true)
  for (const word of ['0', 'false', 'no', ''])
    assert.equal(toolResultsExtension({ env: { TOOLCLAMP_DISABLE: word } }).settings.disabled, false)
})

test('a variable that cannot be read warns (TOOLCLAMP_INVALID_SETTING) and its default applies', (t) => {
  const emitWarning = t.mock.method(process, 'emitWarning', () => {})
  const env = {
    TOOLCLAMP_MAX_BYTES: '64 KB',
    TOOLCLAMP_MAX_LINES: '2k',
    TOOLCLAMP_SPILL_DAYS: '0',
    TOOLCLAMP_RESULT_SHARE: '1.5',
    TOOLCLAMP_AGGREGATE_SHARE: 'half',
    TOOLCLAMP_DISABLE: 'maybe',
  }
  const { settings } = toolResultsExtension({ env })
  assert.deepEqual(settings, toolResultsExtension({ env: {} }).settings)
  assert.deepEqual(
    emitWarning.mock.calls.map((call) => [call.arguments[0], call.arguments[1].code]),
    [
      ['TOOLCLAMP_MAX_BYTES="64 KB" is not a size like 65536, 64k or 1MiB; using the default, 65,536', 'TOOLCLAMP_INVALID_SETTING'],
      ['TOOLCLAMP_MAX_LINES="2k" is not a whole number of lines; using the default, 2,500', 'TOOLCLAMP_INVALID_SETTING'],
      ['TOOLCLAMP_SPILL_DAYS="0" is not a number of days above 0; using the default, 7', 'TOOLCLAMP_INVALID_SETTING'],
      ['TOOLCLAMP_RESULT_SHARE="1.5" is not a number above 0 and at most 1; using the default, 0.3', 'TOOLCLAMP_INVALID_SETTING'],
      ['TOOLCLAMP_AGGREGATE_SHARE="half" is not a number above 0 and at most 1; using the default, 0.5', 'TOOLCLAMP_INVALID_SETTING'],
      ['TOOLCLAMP_DISABLE="maybe" is not 1, true, yes, 0, false or no; toolclamp stays on', 'TOOLCLAMP_INVALID_SETTING'],
    ],
  )
})

test('an option that cannot be taken throws, naming it', () => {
  const fails = (options, Type, message) => assert.throws(() => toolResultsExtension(options), { name: Type.name, message })
  fails({ maxbytes: 10 }, TypeError, 'unknown option "maxbytes"; did you mean "maxBytes"?')
  fails({ maxBytes: -1 }, RangeError, 'maxBytes must be a non-negative integer or Infinity, got -1')
  fails({ maxLines: '10' }, TypeError, 'maxLines must be a number, got "10"')
  fails({ spillDir: '' }, TypeError, 'spillDir must be a non-empty string, got ""')
  fails({ spillDays: 0 }, RangeError, 'spillDays must be a number of days above 0 (Infinity keeps spill files), got 0')
  fails({ resultShare: 2 }, RangeError, 'resultShare must be a number above 0 and at most 1, got 2')
  fails({ env: 'TOOLCLAMP_MAX_BYTES=1' }, TypeError, 'env must be an object of environment variables, got "TOOLCLAMP_MAX_BYTES=1"')
  fails(42, TypeError, 'options must be an object, got 42')
  assert.throws(() => toolResultsExtension({ env: {} })(undefined), {
    name: 'TypeError',
    message: "pi must be pi's ExtensionAPI (an object with an on method), got undefined",
  })
})

test('TOOLCLAMP_DISABLE=1: the extension registers nothing', () => {
  assert.equal(loaded(toolResultsExtension({ env: { TOOLCLAMP_DISABLE: '1' } })).size, 0)
  assert.deepEqual([...loaded(toolResultsExtension({ env: {} })).keys()].sort(), ['context', 'session_start', 'tool_result'])
})

test('tool_result: a result within the budget gets nothing back (pi keeps the very value); one over it is cut, saved whole first', () => {
  const spillDir = freshDir()
  const handlers = loaded(toolResultsExtension({ maxBytes: 2000, maxLines: 50, spillDir, env: {} }))
  const onResult = handlers.get('tool_result')
  assert.equal(onResult(textResult(numbered(50)), ctx(200_000)), undefined)
  assert.equal(onResult(textResult('x'.repeat(2000)), ctx(200_000)), undefined)
  assert.equal(existsSync(spillDir), false, 'nothing written')

  const text = numbered(10_000)
  const event = textResult(text)
  const frozen = structuredClone(event)
  const patch = onResult(event, ctx(200_000))
  assert.deepEqual(Object.keys(patch), ['content'], 'only the content changes; details and isError stay')
  assert.deepEqual(event, frozen, 'the event is not written to')
  const [block] = patch.content
  const size = measureText(block.text)
  assert.ok(size.bytes <= 2000 && size.lines <= 50, JSON.stringify(size))
  assert.ok(block.text.startsWith('line 1\nline 2\n'))
  const [file] = readdirSync(spillDir)
  assert.match(file, /^big_output-\d{8}T\d{6}Z-[0-9a-f]{16}\.toolclamp-spill\.txt$/)
  assert.equal(
    block.text.split('\n').at(-1),
    `[... 9,951 lines, 98,510 bytes truncated at the end; full output saved to ${join(spillDir, file)} (dropped: lines 50–10000) ...]`,
  )
  assert.equal(readFileSync(join(spillDir, file), 'utf8'), text)
})

test('tool_result: a failed result keeps its end too; images are kept as they are', () => {
  const spillDir = freshDir()
  const onResult = loaded(toolResultsExtension({ maxBytes: 4000, spillDir, env: {} })).get('tool_result')
  const failed = onResult(textResult(`${numbered(5000)}\nError: the cause, at the end`, { toolName: 'bash', isError: true }), ctx(200_000))
  const text = failed.content[0].text
  assert.ok(text.startsWith('line 1\n') && text.endsWith('Error: the cause, at the end'), text.slice(-200))
  assert.match(text, /truncated at the middle; full output saved to \S+\/bash-\S+\.toolclamp-spill\.txt/)
  const image = { type: 'image', data: 'A'.repeat(100_000), mimeType: 'image/png' }
  const withImage = onResult(
    { ...textResult('y\n'.repeat(10_000)), content: [image, { type: 'text', text: 'y\n'.repeat(10_000) }] },
    ctx(200_000),
  )
  assert.equal(withImage.content[0], image)
  assert.ok(Buffer.byteLength(withImage.content[1].text) <= 4000)
})

test('tool_result, property: nothing back exactly when the text fits; else within the budget, the whole text in the spill file', () => {
  const spillDir = freshDir()
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom('a', 'é', '😀', '\n', '\r\n', 'word '), maxLength: 400 }),
      fc.integer({ min: 0, max: 600 }),
      fc.integer({ min: 0, max: 60 }),
      fc.boolean(),
      (text, maxBytes, maxLines, isError) => {
        const onResult = loaded(toolResultsExtension({ maxBytes, maxLines, spillDir, env: {} })).get('tool_result')
        const patch = onResult(textResult(text, { isError }), ctx(200_000))
        const size = measureText(text)
        if (size.bytes <= maxBytes && size.lines <= maxLines) {
          assert.equal(patch, undefined)
          return
        }
        const kept = patch.content[0].text
        const after = measureText(kept)
        assert.ok(after.bytes <= maxBytes && after.lines <= maxLines, JSON.stringify({ after, maxBytes, maxLines }))
        const named = /full output saved to (\S+?\.toolclamp-spill\.txt)/.exec(kept)?.[1]
        if (named !== undefined) assert.equal(readFileSync(named, 'utf8'), text)
      },
    ),
    { numRuns: RUNS },
  )
})

test('context: the tool results of each request are clamped to their shares of ctx.model’s window', async () => {
  const spillDir = freshDir()
  const onContext = loaded(toolResultsExtension({ spillDir, env: {} })).get('context')
  const log = numbered(20_000, 'test passed')
  const messages = [
    { role: 'user', content: 'Run the tests', timestamp: 1 },
    { role: 'toolResult', toolCallId: 'call_1', toolName: 'bash', content: [{ type: 'text', text: log }], isError: false, timestamp: 2 },
  ]
  assert.equal(await onContext({ type: 'context', messages }, ctx(1_000_000)), undefined, 'within its share: nothing back')
  const { messages: sent } = await onContext({ type: 'context', messages }, ctx(32_000))
  assert.equal(sent[0], messages[0])
  const tokens = estimateTokens(sent[1].content[0].text)
  assert.ok(tokens <= 32_000 * 0.3, `${tokens} tokens`)
  const [file] = readdirSync(spillDir)
  assert.equal(readFileSync(join(spillDir, file), 'utf8'), log)
  assert.equal(messages[1].content[0].text, log, 'the messages given are not written to')
})

test('context: a model without a contextWindow goes unguarded, with one warning', async (t) => {
  const emitWarning = t.mock.method(process, 'emitWarning', () => {})
  const onContext = loaded(toolResultsExtension({ spillDir: freshDir(), env: {} })).get('context')
  const messages = [
    { role: 'toolResult', toolCallId: 'a', toolName: 'bash', content: [{ type: 'text', text: 'x\n'.repeat(100_000) }], isError: false },
  ]
  assert.equal(await onContext({ type: 'context', messages }, ctx(undefined)), undefined)
  assert.equal(await onContext({ type: 'context', messages }, ctx(undefined)), undefined)
  assert.deepEqual(
    emitWarning.mock.calls.map((call) => call.arguments[0]),
    ['toolclamp: model mock/mock-model has no contextWindow (undefined): its requests are sent without the context guard'],
  )
  // In pi's UI, the user is told there.
  const notified = []
  const ui = { ...ctx(0), hasUI: true, ui: { notify: (...args) => notified.push(args) } }
  const again = loaded(toolResultsExtension({ spillDir: freshDir(), env: {} })).get('context')
  assert.equal(await again({ type: 'context', messages }, ui), undefined)
  assert.deepEqual(notified, [
    ['toolclamp: model mock/mock-model has no contextWindow (0): its requests are sent without the context guard', 'warning'],
  ])
  assert.equal(emitWarning.mock.callCount(), 1)
})

test('session_start: spill files older than spillDays are removed, once a load; other files stay', () => {
  const spillDir = freshDir()
  const onResult = loaded(toolResultsExtension({ maxLines: 1, spillDir, env: {} })).get('tool_result')
  onResult(textResult('a\nb\nc'), ctx(200_000))
  onResult(textResult('d\ne\nf'), ctx(200_000))
  const [old, recent] = readdirSync(spillDir).sort()
  const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000)
  utimesSync(join(spillDir, old), eightDaysAgo, eightDaysAgo)
  writeFileSync(join(spillDir, 'notes.txt'), 'mine')
  utimesSync(join(spillDir, 'notes.txt'), eightDaysAgo, eightDaysAgo)
  const onStart = loaded(toolResultsExtension({ spillDir, env: {} })).get('session_start')
  onStart({ type: 'session_start', reason: 'startup' }, ctx(200_000))
  assert.deepEqual(readdirSync(spillDir).sort(), [recent, 'notes.txt'].sort())
  // Kept forever with spillDays Infinity.
  utimesSync(join(spillDir, recent), eightDaysAgo, eightDaysAgo)
  loaded(toolResultsExtension({ spillDir, spillDays: Infinity, env: {} })).get('session_start')({}, ctx(200_000))
  assert.deepEqual(readdirSync(spillDir).sort(), [recent, 'notes.txt'].sort())
})
