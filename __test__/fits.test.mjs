// Inputs that fit: each shortcut a call takes when lengths prove nothing needs cutting must
// answer exactly what the full path answers. FC_RUNS sets the runs per property.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fc from 'fast-check'

import { truncateText, hardTruncateToolPayload, formatExecOutput } from '../index.mjs'
import { clampToolResultsInMessages } from '../conversation.mjs'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')
const shapes = require('../lib/results/shapes.js')

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const check = (property) => fc.assert(property, { numRuns: RUNS })

// Short texts of the units that count differently: line feeds, CR, multi-byte chars,
// surrogate pairs and lone surrogates, and `[... ` (how a notice starts).
const unit = fc.constantFrom('a', 'b', ' ', '\n', '\r', '\r\n', 'é', '日', '😀', '\ud800', '\udc00', '\u2028', '[... ', '\t', '\x1b')
const shortText = fc.array(unit, { maxLength: 120 }).map((units) => units.join(''))
const budget = fc.oneof(fc.nat({ max: 800 }), fc.constant(Infinity))
const limits = fc.record({ maxChars: budget, maxBytes: budget, maxLines: budget })
const strategy = fc.constantFrom('head', 'tail', 'headTail')

/** The property that planText, shortcuts and all, plans each text of `texts` as the binding does. */
const jsPlanIsTheBindings = (texts) =>
  fc.property(texts, limits, strategy, fc.boolean(), (text, limits, strategy, restack) => {
    const got = native.planText(text, strategy, limits, 0.5, undefined, true, false, restack)
    const want = native.planNative(text, strategy, native.STRATEGIES.indexOf(strategy), limits, 0.5, undefined, true, false, restack)
    assert.deepEqual(got, want)
  })

describe('a short text that fits is counted in JS', () => {
  test('its plan is the plan the binding makes', () => {
    check(jsPlanIsTheBindings(shortText))
  })

  test('a one-byte text of up to 2,048 chars that fits: the plan the binding makes', () => {
    const oneByte = fc.constantFrom('a', ' ', '\n', '\r', '\r\n', 'é', '\xff', '\t', '[... ')
    const text = fc.array(oneByte, { minLength: 200, maxLength: 2100 }).map((units) => units.join(''))
    check(jsPlanIsTheBindings(text))
  })

  test('truncateText returns the very text, with the totals the binding counts', () => {
    check(
      fc.property(shortText, (text) => {
        const report = truncateText(text, { maxBytes: 3 * text.length, maxLines: text.length })
        assert.equal(report.text, text)
        const total = native.measureText(text)
        assert.deepEqual([report.totalChars, report.totalBytes, report.totalLines], [total.chars, total.bytes, total.lines])
        assert.deepEqual([report.outputChars, report.outputBytes, report.outputLines], [total.chars, total.bytes, total.lines])
      }),
    )
  })

  test('formatExecOutput reports each stream as truncateText does', () => {
    check(
      fc.property(shortText, shortText, fc.option(fc.integer({ min: -1, max: 255 }), { nil: undefined }), (stdout, stderr, exitCode) => {
        const result = formatExecOutput({ stdout, stderr, exitCode })
        const notice = '[... {omittedChars} chars truncated from stdout ...]'
        const opts = { maxChars: 8000, strategy: 'tail', snap: 'line' }
        assert.deepEqual(result.stdout, truncateText(stdout, { ...opts, notice }))
        assert.equal(result.stdout.text, stdout)
        assert.equal(result.stderr.text, stderr)
      }),
    )
  })
})

// Lists as tools return them: text blocks (some without text), strings, media, records,
// nulls and numbers.
const item = fc.oneof(
  shortText.map((text) => ({ type: 'text', text })),
  shortText.map((text) => ({ type: 'input_text', text })),
  shortText.map((text) => ({ type: 'resource', resource: { uri: 'file:///a', text } })),
  fc.constant({ type: 'text' }),
  shortText,
  fc.constant({ type: 'image', data: 'AAAA', mimeType: 'image/png' }),
  fc.constant({ type: 'image' }),
  fc.record({ id: fc.nat(), name: shortText }),
  fc.constant(null),
  fc.nat(),
)
const list = fc.array(item, { maxLength: 6 })

/** The length the fast paths read, as the full walk (shapes.js forEachPart) finds it. */
function walkedLength(value, mediaCost) {
  let length = 0
  shapes.forEachPart(value, (kind, part) => {
    if (kind === 'text' || kind === 'piece') length += part.length
    else if (kind === 'media') length += mediaCost
    else length = Number.NaN
  })
  return length
}

describe('a list of blocks is bounded in one loop', () => {
  test('blocksLength is the length the full walk finds', () => {
    check(
      fc.property(list, fc.constantFrom(0, 1000), (blocks, mediaCost) => {
        assert.deepEqual(shapes.blocksLength(blocks, mediaCost), walkedLength(blocks, mediaCost))
      }),
    )
  })

  test('a result whose blocks fit by their lengths comes back as itself', () => {
    check(
      fc.property(list, fc.boolean(), (content, withDetails) => {
        const result = withDetails ? { content, details: { exitCode: 0 } } : { content }
        const fits = walkedLength(content, 0) <= Math.floor(51_200 / 3) && walkedLength(content, 0) <= 2000
        if (fits) assert.equal(hardTruncateToolPayload(result), result)
        else hardTruncateToolPayload(result)
      }),
    )
  })
})

describe('a conversation that fits is read in one pass', () => {
  const message = fc.oneof(
    shortText.map((text) => ({ role: 'user', content: [{ type: 'text', text }] })),
    shortText.map((text) => ({ role: 'assistant', content: [{ type: 'text', text }] })),
    fc.record({
      role: fc.constant('toolResult'),
      toolCallId: fc.string({ maxLength: 4 }),
      toolName: fc.constantFrom('bash', 'read'),
      content: list,
      isError: fc.boolean(),
    }),
  )

  test('its report is the full path’s, token counts bounded by lengths', () => {
    check(
      fc.property(fc.array(message, { maxLength: 12 }), (messages) => {
        const answer = clampToolResultsInMessages(messages, { contextWindowTokens: 1_000_000 })
        assert.equal(answer.messages, messages)
        const results = messages.flatMap((m, i) => (m.role === 'toolResult' ? [[i, m]] : []))
        assert.equal(answer.results.length, results.length)
        answer.results.forEach((r, k) => {
          const [index, m] = results[k]
          assert.equal(r.messageIndex, index)
          assert.equal(r.toolCallId, m.toolCallId)
          assert.equal(r.toolName, m.toolName)
          if (!answer.exact) assert.equal(r.tokensBefore, walkedLength(m.content, native.MEDIA_TOKENS))
        })
      }),
    )
  })
})

describe('a capture of short text keeps it until the binding is needed', () => {
  const { createOutputCapture } = require('../index.js')
  const opts = fc.record(
    {
      maxChars: budget,
      maxBytes: budget,
      maxLines: budget,
      strategy: fc.constantFrom('head', 'tail', 'headTail'),
      snap: fc.constantFrom('line', 'none'),
    },
    { requiredKeys: [] },
  )

  test('end() is what the binding’s capture answers, and totals too', () => {
    check(
      fc.property(fc.array(shortText, { maxLength: 4 }), opts, (chunks, options) => {
        const kept = createOutputCapture(options)
        const native = createOutputCapture(options)
        for (const chunk of chunks) {
          kept.write(chunk)
          native.write(chunk)
          // Reading the totals hands what was kept to the binding.
          native.totals
        }
        const got = kept.end()
        assert.deepEqual(got, native.end())
        assert.deepEqual(kept.totals, native.totals)
      }),
    )
  })
})

test('a capture disposed while it keeps short text still reports its totals', () => {
  const { createOutputCapture } = require('../index.js')
  const capture = createOutputCapture()
  capture.write('ab\nc')
  capture.dispose()
  assert.deepEqual(capture.totals, { chars: 4, bytes: 4, lines: 2 })
})

describe('the cheap constructions return what the full ones did', () => {
  const payloads = require('../lib/results/payload.js')
  const options = fc.record(
    {
      maxChars: budget,
      maxBytes: budget,
      maxLines: budget,
      strategy: fc.constantFrom('head', 'tail', 'headTail', 'auto'),
      headRatio: fc.double({ min: 0, max: 1, noNaN: true }),
      snap: fc.constantFrom('line', 'none'),
      responseFormat: fc.constantFrom('content', 'content_and_artifact'),
    },
    { requiredKeys: [] },
  )

  test('payload limits read from an object have the defaults’ shape, and each value given or defaulted', () => {
    const defaults = payloads.readPayloadLimits(undefined, payloads.PAYLOAD_DEFAULTS)
    check(
      fc.property(options, (given) => {
        const read = payloads.readPayloadLimits(given, payloads.PAYLOAD_DEFAULTS)
        assert.deepEqual(Object.keys(read), Object.keys(defaults))
        for (const key of ['maxChars', 'maxBytes', 'maxLines', 'strategy', 'headRatio', 'responseFormat']) {
          assert.equal(read[key], given[key] ?? defaults[key], key)
        }
        assert.equal(read.snap, (given.snap ?? 'line') === 'line')
        assert.equal(read.failure === undefined, given.strategy !== undefined)
      }),
    )
  })

  test('a user message holds as many tool results as it has tool_result parts', () => {
    const part = fc.oneof(
      shortText.map((text) => ({ type: 'text', text })),
      fc.constant({ type: 'tool_result', tool_use_id: 'a', content: 'ok' }),
      fc.constant(null),
      fc.nat(),
    )
    check(
      fc.property(fc.array(part, { maxLength: 5 }), (content) => {
        const slots = shapes.resultSlotsOf({ role: 'user', content })
        assert.equal(slots.length, content.filter((p) => p?.type === 'tool_result').length)
        slots.forEach((slot) => assert.equal(slot.holder, content[slot.part]))
      }),
    )
  })
})

test('a capture’s methods work unbound, and it lists the same own methods', () => {
  const { createOutputCapture } = require('../index.js')
  const capture = createOutputCapture()
  const { write, end } = capture
  write('a\n')
  write('b')
  assert.deepEqual(Object.keys(capture), ['write', 'snapshot', 'end', 'settledHead', 'dispose'])
  assert.deepEqual(capture.totals, { chars: 3, bytes: 3, lines: 2 })
  assert.equal(end().text, 'a\nb')
})
