// TOOL_OUTPUT_PRESETS: one model for the tool-output functions. Each preset is an ordinary
// limits object the root functions take as it is; toolclamp's own defaults are presets
// (passing them changes nothing); the formats with a layout of their own (the envelope, the
// per-tool profiles) cut as their preset does. FC_RUNS sets the runs per property.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'

import { hardTruncateToolError, hardTruncateToolPayload, truncateText, wrapToolWithHardOutputTruncate } from '../index.mjs'
import { TOOL_OUTPUT_PRESETS, formatToolOutputEnvelope, truncateToolOutput } from '../presets.mjs'
import { fits, measure } from './reference.mjs'

const RUNS = Math.max(50, Number(process.env.FC_RUNS ?? 1000) / 10)

const NAMES = [
  'toolResult',
  'toolError',
  'piRead',
  'piBash',
  'openclawExec',
  'inspect',
  'read_file',
  'run_command',
  'list_directory',
  'search_files',
  'default',
]
const lines = (n, width = 40) => Array.from({ length: n }, (_, i) => `${i + 1} `.padEnd(width, 'x')).join('\n')

/** The budgets a preset sets, as the reference's limits (a budget not set is unlimited). */
const budgetOf = (preset) => ({
  maxChars: preset.maxChars ?? Infinity,
  maxBytes: preset.maxBytes ?? Infinity,
  maxLines: preset.maxLines ?? Infinity,
})

describe('the table', () => {
  test('its presets, frozen, each an ordinary limits object', () => {
    assert.deepEqual(Object.keys(TOOL_OUTPUT_PRESETS), NAMES)
    assert.ok(Object.isFrozen(TOOL_OUTPUT_PRESETS))
    for (const name of NAMES) {
      const preset = TOOL_OUTPUT_PRESETS[name]
      assert.ok(Object.isFrozen(preset), name)
      for (const key of Object.keys(preset))
        assert.ok(['maxChars', 'maxBytes', 'maxLines', 'strategy', 'headRatio'].includes(key), `${name}.${key}`)
    }
    assert.deepEqual({ ...TOOL_OUTPUT_PRESETS.toolResult }, { maxBytes: 51200, maxLines: 2000 })
    assert.deepEqual({ ...TOOL_OUTPUT_PRESETS.toolError }, { maxBytes: 4096, maxLines: 40, strategy: 'headTail', headRatio: 0.3 })
    assert.deepEqual({ ...TOOL_OUTPUT_PRESETS.piRead }, { maxBytes: 51200, maxLines: 2000, strategy: 'head' })
    assert.deepEqual({ ...TOOL_OUTPUT_PRESETS.piBash }, { maxBytes: 51200, maxLines: 2000, strategy: 'tail' })
    assert.deepEqual({ ...TOOL_OUTPUT_PRESETS.openclawExec }, { maxChars: 200000, strategy: 'tail' })
    assert.deepEqual({ ...TOOL_OUTPUT_PRESETS.inspect }, { maxBytes: 16384, strategy: 'headTail', headRatio: 0.5 })
  })

  test('every preset is taken as it is by truncateText, the tool-result functions and the wrapper', async () => {
    const text = lines(30_000)
    for (const name of NAMES) {
      const preset = TOOL_OUTPUT_PRESETS[name]
      const budget = budgetOf(preset)
      assert.ok(fits(truncateText(text, preset).text, budget), `truncateText ${name}`)
      assert.ok(fits(hardTruncateToolPayload(text, preset), budget), `hardTruncateToolPayload ${name}`)
      assert.ok(fits(hardTruncateToolError(new Error(text), preset).message, budget), `hardTruncateToolError ${name}`)
      const tool = wrapToolWithHardOutputTruncate({ name: 'bash', execute: async () => text }, preset)
      assert.ok(fits(await tool.execute('call', {}), budget), `wrapToolWithHardOutputTruncate(tool) ${name}`)
      const execute = wrapToolWithHardOutputTruncate(async () => text, preset)
      assert.ok(fits(await execute({}), budget), `wrapToolWithHardOutputTruncate(execute) ${name}`)
    }
  })
})

describe("toolclamp's own defaults are presets", () => {
  // A text, a failed MCP result (which keeps both ends by default), blocks and JSON data.
  const listing = lines(5000)
  const results = [
    listing,
    `${listing}\nls: cannot access '/nonexistent': No such file or directory\nexit code: 2`,
    { content: [{ type: 'text', text: `${listing}\nupload stopped: quota reached` }], isError: true },
    { type: 'error-text', value: `quota reached\n${listing}` },
    Array.from({ length: 20_000 }, (_, i) => ({ id: i, path: `src/module_${i}.ts` })),
  ]

  test('toolResult: hardTruncateToolPayload(result, toolResult) is hardTruncateToolPayload(result)', () => {
    for (const result of results) {
      assert.deepEqual(hardTruncateToolPayload(result, TOOL_OUTPUT_PRESETS.toolResult), hardTruncateToolPayload(result))
    }
  })

  test('toolError: hardTruncateToolError(error, toolError) is hardTruncateToolError(error)', () => {
    const error = new Error(`upload failed\n${lines(300)}\nroot cause: ECONNRESET`)
    const clamped = hardTruncateToolError(error, TOOL_OUTPUT_PRESETS.toolError)
    assert.equal(clamped.message, hardTruncateToolError(error).message)
    assert.ok(clamped.message.endsWith('root cause: ECONNRESET'))
  })

  test('property: the defaults and their presets give the same result on any text', () => {
    const text = fc
      .array(fc.oneof(fc.constantFrom('a', 'é', '😀', '\n', '\r\n', 'error: boom\n', 'exit code: 1'), fc.string({ maxLength: 4 })), {
        maxLength: 400,
      })
      .map((pieces) => pieces.join('').repeat(40))
    fc.assert(
      fc.property(text, fc.boolean(), (t, failed) => {
        const result = failed ? { content: [{ type: 'text', text: t }], isError: true } : t
        assert.deepEqual(hardTruncateToolPayload(result, TOOL_OUTPUT_PRESETS.toolResult), hardTruncateToolPayload(result))
        assert.equal(hardTruncateToolError(t, TOOL_OUTPUT_PRESETS.toolError).message, hardTruncateToolError(t).message)
      }),
      { numRuns: RUNS },
    )
  })
})

describe('the systems the presets reproduce', () => {
  test('piRead keeps the head, piBash the tail, both 51,200 bytes / 2,000 lines', () => {
    const text = lines(5000)
    const read = truncateText(text, TOOL_OUTPUT_PRESETS.piRead)
    const bash = truncateText(text, TOOL_OUTPUT_PRESETS.piBash)
    assert.ok(read.text.startsWith('1 x'))
    assert.ok(bash.text.endsWith('5000 xxxx'.padEnd(40, 'x')))
    assert.deepEqual(
      [read.truncatedBy, bash.truncatedBy],
      [
        ['bytes', 'lines'],
        ['bytes', 'lines'],
      ],
    )
    assert.equal(measure(read.text).bytes <= 51200 && measure(bash.text).lines <= 2000, true)
  })

  test('openclawExec keeps the last 200,000 chars', () => {
    const text = 'y'.repeat(150_000) + 'z'.repeat(150_000)
    const kept = truncateText(text, TOOL_OUTPUT_PRESETS.openclawExec)
    assert.equal(kept.text.length, 200_000)
    assert.ok(kept.text.endsWith('z'.repeat(150_000)))
  })

  test("inspect: the envelope's payload is truncateText with the preset, its limit the preset's", () => {
    const output = 'build step\n'.repeat(5000) + 'error: linker failed\n'
    const envelope = formatToolOutputEnvelope('bash', output, { env: {} })
    assert.equal(envelope.limit, TOOL_OUTPUT_PRESETS.inspect.maxBytes)
    const payload = envelope.text.split('<START_TOOL_OUTPUT>\n')[1].split('\n<END_TOOL_OUTPUT>')[0]
    assert.equal(payload, truncateText(output, TOOL_OUTPUT_PRESETS.inspect).text)
    const limited = formatToolOutputEnvelope('bash', output, { limit: 4096 })
    assert.ok(limited.text.includes(truncateText(output, { ...TOOL_OUTPUT_PRESETS.inspect, maxBytes: 4096 }).text))
  })

  test("the per-tool profiles: truncateToolOutput's budget and split are its preset's", () => {
    const output = lines(5000)
    for (const name of ['read_file', 'run_command', 'list_directory', 'search_files']) {
      const preset = TOOL_OUTPUT_PRESETS[name]
      const view = truncateToolOutput(name, output)
      assert.deepEqual(view.profile, { name, maxChars: preset.maxChars, maxLines: preset.maxLines })
      assert.ok(fits(view.text, budgetOf(preset)), name)
      // 30% / 70%: the same view with the preset's head ratio given.
      assert.equal(truncateToolOutput(name, output, { headRatio: preset.headRatio }).text, view.text)
      assert.ok(view.tailLines > view.headLines, `${name}: most of the room to the end`)
    }
    const other = truncateToolOutput('grep', output)
    assert.deepEqual(other.profile, {
      name: 'default',
      maxChars: TOOL_OUTPUT_PRESETS.default.maxChars,
      maxLines: TOOL_OUTPUT_PRESETS.default.maxLines,
    })
  })
})
