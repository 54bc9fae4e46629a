// Tool results: hardTruncateToolPayload, hardTruncateToolError and the wrappers, one test per
// behaviour of the contract in index.d.ts ("Tool results"). Framework round trips live in
// __test__/frameworks/.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { types } from 'node:util'

import { truncateText, hardTruncateToolPayload, hardTruncateToolError, wrapOnUpdate, wrapToolWithHardOutputTruncate } from '../index.mjs'
import { measure, fits } from './reference.mjs'
import { deepFreeze } from './helpers.mjs'

const DEFAULT_LIMITS = { maxBytes: 51200, maxLines: 2000 }
const ERROR_LIMITS = { maxBytes: 4096, maxLines: 40 }
// How an error message is cut by default: its start and, with 70% of the room, its end.
const ERROR_CUT = { ...ERROR_LIMITS, strategy: 'headTail', headRatio: 0.3, snap: 'line' }

// ---- Helpers

/** `count` lines `${prefix} 1\n`, `${prefix} 2\n`, ... */
const numberedLines = (count, prefix = 'line') => Array.from({ length: count }, (_, i) => `${prefix} ${i + 1}\n`).join('')

const text = (t) => ({ type: 'text', text: t })
const resource = (t, uri = 'file:///notes.txt') => ({ type: 'resource', resource: { uri, mimeType: 'text/plain', text: t } })

/** The text toolclamp reads from a block, or undefined for any other block. */
function textOf(block) {
  if (block?.type === 'text' && typeof block.text === 'string') return block.text
  if (block?.type === 'resource' && typeof block.resource?.text === 'string') return block.resource.text
  return undefined
}

/** All text of a list of blocks, in order, as the budget sees it. */
const joinedText = (blocks) =>
  blocks
    .map(textOf)
    .filter((t) => t !== undefined)
    .join('')

/** A property that fails the test if anything reads it. */
function untouchable(object, key) {
  Object.defineProperty(object, key, {
    enumerable: true,
    get() {
      throw new Error(`${key} must never be read`)
    },
  })
  return object
}

const NOTICE = /\[\.\.\. (.*?) truncated (at the end|at the start|in the middle) \.\.\.\]/

/** The counts a default notice states: `{ lines, chars, bytes }` (absent units undefined). */
function parseNotice(s) {
  const match = NOTICE.exec(s)
  assert.ok(match, `a default notice in ${JSON.stringify(s.slice(0, 200))}`)
  const counts = { notice: match[0], where: match[2] }
  for (const part of match[1].split(', ')) {
    const [number, unit] = part.split(' ')
    counts[unit.replace(/s$/, '') + 's'] = Number(number.replaceAll(',', ''))
  }
  return counts
}

/** Lines of `text` with at least one char kept in `kept` (a prefix of it). */
function linesShownByHead(kept) {
  return kept === '' ? 0 : measure(kept).lines
}

// ---- hardTruncateToolPayload

describe('hardTruncateToolPayload: defaults and shapes', () => {
  test('default budget is 51,200 bytes', () => {
    const atLimit = 'x'.repeat(51200)
    assert.equal(hardTruncateToolPayload(atLimit), atLimit)
    const over = 'é'.repeat(25601) // 51,202 bytes, one line
    const clamped = hardTruncateToolPayload(over)
    assert.notEqual(clamped, over)
    assert.ok(measure(clamped).bytes <= 51200, `${measure(clamped).bytes} bytes`)
    assert.equal(clamped, truncateText(over, { ...DEFAULT_LIMITS, snap: 'line' }).text)
  })

  test('default budget is 2,000 lines', () => {
    const atLimit = 'x\n'.repeat(2000)
    assert.equal(hardTruncateToolPayload(atLimit), atLimit)
    const over = 'x\n'.repeat(2001)
    const clamped = hardTruncateToolPayload(over)
    assert.ok(measure(clamped).lines <= 2000, `${measure(clamped).lines} lines`)
    assert.equal(clamped, truncateText(over, { ...DEFAULT_LIMITS, snap: 'line' }).text)
  })

  test('a string in gives the clamped string out', () => {
    const input = numberedLines(50)
    const clamped = hardTruncateToolPayload(input, { maxLines: 10 })
    assert.equal(typeof clamped, 'string')
    assert.equal(clamped, truncateText(input, { maxLines: 10, snap: 'line' }).text)
  })

  test('an array of blocks in gives a new array of blocks out', () => {
    const input = [text(numberedLines(50))]
    const clamped = hardTruncateToolPayload(input, { maxLines: 10 })
    assert.ok(Array.isArray(clamped))
    assert.notEqual(clamped, input)
    assert.equal(clamped.length, 1)
    assert.equal(clamped[0].text, truncateText(input[0].text, { maxLines: 10, snap: 'line' }).text)
  })

  test('a { content } object gives a new object: same keys, every other value the very same, same prototype', () => {
    const details = { path: 'src/app.ts', truncation: null }
    const structuredContent = { rows: [1, 2, 3] }
    const meta = { 'io.example/trace': 'abc' }
    const tag = Symbol('tag')
    const input = {
      content: [text(numberedLines(50))],
      details,
      structuredContent,
      isError: false,
      _meta: meta,
      somethingUnknown: 7,
      [tag]: 'symbol value',
    }
    const clamped = hardTruncateToolPayload(input, { maxLines: 10 })
    assert.notEqual(clamped, input)
    assert.deepEqual(Reflect.ownKeys(clamped), Reflect.ownKeys(input))
    for (const key of Reflect.ownKeys(input)) {
      if (key !== 'content') assert.equal(clamped[key], input[key], `key ${String(key)}`)
    }
    assert.equal(Object.getPrototypeOf(clamped), Object.prototype)
    assert.ok(measure(clamped.content[0].text).lines <= 10)
  })

  test('a { content } object keeps its prototype: class instances and null-prototype objects', () => {
    class ToolResult {
      constructor(content) {
        this.content = content
        this.details = { kind: 'class' }
      }
      describe() {
        return 'a tool result'
      }
    }
    const instance = new ToolResult([text(numberedLines(50))])
    const clampedInstance = hardTruncateToolPayload(instance, { maxLines: 10 })
    assert.ok(clampedInstance instanceof ToolResult)
    assert.equal(clampedInstance.describe(), 'a tool result')
    assert.equal(clampedInstance.details, instance.details)

    const bare = Object.assign(Object.create(null), { content: [text(numberedLines(50))], isError: true })
    const clampedBare = hardTruncateToolPayload(bare, { maxLines: 10 })
    assert.equal(Object.getPrototypeOf(clampedBare), null)
    assert.equal(clampedBare.isError, true)
  })

  test('a { content } object keeps its non-enumerable keys as the very same values', () => {
    const hidden = { internal: true }
    const input = { content: [text(numberedLines(50))] }
    Object.defineProperty(input, 'hidden', { value: hidden, enumerable: false })
    const clamped = hardTruncateToolPayload(input, { maxLines: 10 })
    assert.deepEqual(Reflect.ownKeys(clamped), Reflect.ownKeys(input))
    assert.equal(clamped.hidden, hidden)
  })

  test('a { content } object parsed from JSON keeps an own "__proto__" key as a key, and its prototype', () => {
    // JSON.parse makes "__proto__" an ordinary own key; copying it must not set the prototype.
    const input = JSON.parse(
      `{"__proto__": {"injected": true}, "content": [{"type": "text", "text": ${JSON.stringify(numberedLines(50))}}]}`,
    )
    assert.ok(Object.hasOwn(input, '__proto__'))
    const clamped = hardTruncateToolPayload(input, { maxLines: 10 })
    assert.equal(Object.getPrototypeOf(clamped), Object.prototype)
    assert.ok(Object.hasOwn(clamped, '__proto__'), 'the own "__proto__" key is kept')
    assert.equal(clamped.injected, undefined)
    assert.deepEqual(Reflect.ownKeys(clamped), Reflect.ownKeys(input))
  })

  test('scalars are returned as they are; any other object is JSON data, clamped', () => {
    const huge = 'x\n'.repeat(40000)
    for (const value of [42, null, undefined, true, 10n, new Map([['content', [text(huge)]]])]) {
      assert.equal(hardTruncateToolPayload(value), value)
    }
    // Objects that carry data outside a `content` array: the JSON clamp, within the budget.
    for (const value of [{ content: huge }, { text: huge }, { content: null, log: huge }, Buffer.from(huge)]) {
      const clamped = hardTruncateToolPayload(value)
      assert.notEqual(clamped, value)
      assert.ok(Buffer.byteLength(JSON.stringify(clamped)) <= 51_200)
      assert.deepEqual(Object.keys(clamped), Object.keys(JSON.parse(JSON.stringify(value))))
    }
  })
})

describe('hardTruncateToolPayload: one budget across all text', () => {
  test('text blocks and embedded resource text share one budget, in order', () => {
    const blocks = [text('a'.repeat(30000)), resource('b'.repeat(30000)), text('c'.repeat(30000))]
    const clamped = hardTruncateToolPayload(blocks)
    const all = joinedText(clamped)
    assert.ok(fits(all, DEFAULT_LIMITS), `${measure(all).bytes} bytes in all`)
    assert.equal(all, truncateText(joinedText(blocks), { ...DEFAULT_LIMITS, snap: 'line' }).text)
    // The first block fits on its own and is kept whole; the resource carries the cut.
    assert.equal(clamped[0], blocks[0])
    assert.match(clamped[1].resource.text, /^b+ \[\.\.\. [\d,]+ bytes truncated at the end \.\.\.\]$/)
    assert.equal(clamped[2].text, '')
  })

  test('lines are counted on the concatenation, not per block', () => {
    // Four blocks without line breaks are one line together: within 3 lines, nothing cut.
    const oneLine = [text('a'), text('b'), resource('c'), text('d')]
    assert.equal(hardTruncateToolPayload(oneLine, { maxLines: 3 }), oneLine)
    // With line breaks they are four lines: cut to fit 3, notice included.
    const fourLines = [text('a\n'), text('b\n'), resource('c\n'), text('d\n')]
    const clamped = hardTruncateToolPayload(fourLines, { maxLines: 3 })
    assert.notEqual(clamped, fourLines)
    assert.ok(measure(joinedText(clamped)).lines <= 3)
    assert.equal(joinedText(clamped), truncateText('a\nb\nc\nd\n', { maxLines: 3, snap: 'line' }).text)
  })

  test('every limit holds for the whole output, notice included', () => {
    const blocks = [text(numberedLines(400, 'alpha')), resource(numberedLines(400, 'beta')), text('日本語😀\n'.repeat(300))]
    for (const limits of [{ maxBytes: 2000 }, { maxLines: 25 }, { maxChars: 700 }, { maxBytes: 3000, maxLines: 30, maxChars: 2500 }]) {
      for (const strategy of ['head', 'tail', 'headTail']) {
        const all = joinedText(hardTruncateToolPayload(blocks, { ...limits, strategy }))
        assert.ok(fits(all, limits), `${JSON.stringify(limits)} ${strategy}: ${JSON.stringify(measure(all))}`)
        assert.equal(all, truncateText(joinedText(blocks), { ...limits, strategy, snap: 'line' }).text)
      }
    }
  })
})

describe('hardTruncateToolPayload: strategies and where the notice goes', () => {
  const blocks = () => [text(numberedLines(10, 'first')), text(numberedLines(10, 'second')), text(numberedLines(10, 'third'))]

  test("'head' keeps the first blocks; the block where the cut falls carries the notice", () => {
    const input = blocks()
    const clamped = hardTruncateToolPayload(input, { maxLines: 15 })
    assert.equal(clamped.length, 3)
    assert.equal(clamped[0], input[0], 'the first block is kept as the very same object')
    assert.ok(clamped[1].text.startsWith('second 1\n'))
    assert.equal(parseNotice(clamped[1].text).where, 'at the end')
    assert.ok(clamped[1].text.endsWith('truncated at the end ...]'))
    assert.equal(clamped[2].text, '', 'a text block past the cut keeps its place, emptied')
    assert.equal(clamped[2].type, 'text')
  })

  test("'tail' keeps the last blocks; the notice starts the block where the cut falls", () => {
    const input = blocks()
    const clamped = hardTruncateToolPayload(input, { maxLines: 15, strategy: 'tail' })
    assert.equal(clamped.length, 3)
    assert.equal(clamped[0].text, '')
    assert.ok(clamped[1].text.startsWith('[... '))
    assert.equal(parseNotice(clamped[1].text).where, 'at the start')
    assert.ok(clamped[1].text.endsWith('second 10\n'))
    assert.equal(clamped[2], input[2], 'the last block is kept as the very same object')
  })

  test("'headTail' keeps both ends, the notice after the kept head, and follows headRatio", () => {
    const input = [text(numberedLines(20, 'first')), text(numberedLines(20, 'middle')), text(numberedLines(20, 'last'))]
    for (const headRatio of [0.25, 0.5, 0.75]) {
      const limits = { maxLines: 21, strategy: 'headTail', headRatio }
      const clamped = hardTruncateToolPayload(input, limits)
      const expected = truncateText(joinedText(input), { ...limits, snap: 'line' })
      assert.equal(joinedText(clamped), expected.text)
      // The head ends in the first block, which carries the notice; the middle is dropped.
      assert.ok(clamped[0].text.startsWith('first 1\n'))
      assert.equal(parseNotice(clamped[0].text).where, 'in the middle')
      assert.equal(clamped[1].text, '')
      assert.ok(clamped[2].text.endsWith('last 20\n'))
      // The head's share of the 20 kept lines follows the ratio.
      const headLines = measure(clamped[0].text).lines - 1
      assert.ok(Math.abs(headLines - 20 * headRatio) <= 1, `headRatio ${headRatio}: ${headLines} head lines`)
    }
  })

  test('the notice counts what was dropped across all blocks', () => {
    const input = [text(numberedLines(100, 'a')), resource(numberedLines(100, 'b')), text(numberedLines(100, 'c'))]
    const all = joinedText(input)
    const total = measure(all)
    const clamped = hardTruncateToolPayload(input, { maxLines: 50, maxBytes: 500 })
    const counts = parseNotice(clamped[0].text)
    const keptHead = clamped[0].text.slice(0, clamped[0].text.indexOf(counts.notice))
    assert.equal(joinedText(clamped.slice(1)), '', 'the cut falls in the first block; the rest is dropped')
    assert.equal(counts.bytes, total.bytes - measure(keptHead).bytes)
    assert.equal(counts.lines, total.lines - linesShownByHead(keptHead))
    assert.ok(counts.lines > 250, 'lines of the later blocks are counted')
  })

  test('a cut in the tail counts the earlier blocks as dropped', () => {
    const input = [text(numberedLines(100, 'a')), text(numberedLines(100, 'b')), text(numberedLines(100, 'c'))]
    const total = measure(joinedText(input))
    const clamped = hardTruncateToolPayload(input, { maxLines: 30, strategy: 'tail' })
    const counts = parseNotice(clamped[2].text)
    const keptTail = clamped[2].text.slice(clamped[2].text.indexOf(counts.notice) + counts.notice.length + 1)
    assert.equal(joinedText(clamped.slice(0, 2)), '')
    assert.equal(counts.lines, total.lines - measure(keptTail).lines)
    assert.equal(counts.lines, 271)
  })
})

describe('hardTruncateToolPayload: blocks it does not read', () => {
  test('non-text blocks are the very same objects at the same index and are never read', () => {
    const image = untouchable({ type: 'image', mimeType: 'image/png' }, 'data')
    const audio = untouchable({ type: 'audio', mimeType: 'audio/wav' }, 'data')
    const link = untouchable({ type: 'resource_link', uri: 'file:///big.bin', name: 'big' }, 'description')
    const blob = { type: 'resource', resource: untouchable({ uri: 'file:///x.bin', mimeType: 'application/octet-stream' }, 'blob') }
    const unknown = untouchable({ type: 'chart' }, 'series')
    const bigImage = { type: 'image', mimeType: 'image/png', data: 'A'.repeat(10 * 1024 * 1024) }
    const input = [text(numberedLines(30)), image, audio, link, blob, unknown, bigImage, text(numberedLines(30))]
    for (const strategy of ['head', 'tail', 'headTail']) {
      const clamped = hardTruncateToolPayload(input, { maxLines: 20, strategy })
      assert.equal(clamped.length, input.length)
      for (let i = 1; i <= 6; i++) assert.equal(clamped[i], input[i], `${strategy}: block ${i}`)
      assert.ok(measure(joinedText(clamped)).lines <= 20)
    }
  })

  test('a 10 MB image beside the text changes nothing about the text', () => {
    const body = numberedLines(5000)
    const image = { type: 'image', mimeType: 'image/png', data: 'A'.repeat(10 * 1024 * 1024) }
    const withImage = hardTruncateToolPayload([text(body), image])
    const withoutImage = hardTruncateToolPayload([text(body)])
    assert.equal(withImage[0].text, withoutImage[0].text)
    assert.equal(withImage[1], image)
  })

  test('malformed blocks are left as they are, without throwing; data among blocks is clamped on its own', () => {
    const huge = numberedLines(5000)
    const malformed = [
      null,
      undefined,
      42,
      'a bare string',
      { type: 'text', text: 42 },
      { type: 'text' },
      { type: 'resource', resource: null },
      { type: 'resource', resource: { uri: 'x', text: 5 } },
      { type: 'resource' },
    ]
    // Not blocks toolclamp knows, but data: each clamped on its own (as text or JSON).
    const data = [{ text: huge }, [text(huge)], huge]
    const input = [text(huge), ...malformed, ...data, text(huge)]
    const clamped = hardTruncateToolPayload(input)
    assert.equal(clamped.length, input.length)
    for (let i = 1; i <= malformed.length; i++) assert.equal(clamped[i], input[i], `block ${i}`)
    assert.ok(fits(joinedText(clamped), DEFAULT_LIMITS))
    for (let i = malformed.length + 1; i <= malformed.length + data.length; i++) {
      assert.notEqual(clamped[i], input[i])
      const rendered = typeof clamped[i] === 'string' ? clamped[i] : JSON.stringify(clamped[i])
      assert.ok(fits(rendered, DEFAULT_LIMITS), `item ${i}`)
    }
    // Only malformed blocks: nothing to clamp, the same array back.
    assert.equal(hardTruncateToolPayload(malformed), malformed)
  })

  test('an array with holes keeps its holes', () => {
    const input = [text(numberedLines(30)), , text(numberedLines(30))] // eslint-disable-line no-sparse-arrays
    const clamped = hardTruncateToolPayload(input, { maxLines: 10 })
    assert.equal(clamped.length, 3)
    assert.ok(!(1 in clamped))
  })

  test('a cut text block keeps its other keys, and a cut resource keeps its uri and other keys', () => {
    const annotations = { audience: ['user'] }
    const input = [
      { type: 'text', text: numberedLines(30), annotations },
      { type: 'resource', resource: { uri: 'file:///log', mimeType: 'text/plain', text: numberedLines(30), extra: 1 }, _meta: { a: 1 } },
    ]
    const clamped = hardTruncateToolPayload(input, { maxLines: 10, strategy: 'tail' })
    assert.deepEqual(Object.keys(clamped[0]), ['type', 'text', 'annotations'])
    assert.equal(clamped[0].annotations, annotations)
    assert.equal(clamped[0].text, '')
    assert.equal(clamped[1]._meta, input[1]._meta)
    assert.deepEqual({ ...clamped[1].resource, text: undefined }, { ...input[1].resource, text: undefined })
    assert.ok(measure(clamped[1].resource.text).lines <= 10)
  })
})

describe('hardTruncateToolPayload: inputs and identity', () => {
  test('a deep-frozen input is clamped without throwing, and correctly', () => {
    for (const strategy of ['head', 'tail', 'headTail']) {
      const input = deepFreeze({
        content: [text(numberedLines(100, 'a')), { type: 'image', data: 'AAAA', mimeType: 'image/png' }, resource(numberedLines(100, 'b'))],
        details: { nested: { deep: [1, 2, 3] } },
        isError: false,
      })
      const snapshot = structuredClone(input)
      const limits = { maxLines: 30, strategy }
      const clamped = hardTruncateToolPayload(input, limits)
      assert.deepEqual(input, snapshot, 'the input is unchanged')
      // `isError` is sent too (`{"isError":false}`, one line): the text gets the other 29.
      assert.equal(joinedText(clamped.content), truncateText(joinedText(input.content), { ...limits, maxLines: 29, snap: 'line' }).text)
      assert.equal(clamped.details, input.details)
      assert.equal(clamped.content[1], input.content[1])
    }
    const frozenString = numberedLines(3000)
    assert.ok(measure(hardTruncateToolPayload(frozenString)).lines <= 2000)
  })

  test('nothing to cut gives back the very same value', () => {
    const string = numberedLines(100)
    const blocks = [text(numberedLines(100)), resource('short'), { type: 'image', data: 'A'.repeat(1e6) }]
    const result = { content: blocks, details: {} }
    assert.equal(hardTruncateToolPayload(string), string)
    assert.equal(hardTruncateToolPayload(blocks), blocks)
    assert.equal(hardTruncateToolPayload(result), result)
    assert.equal(hardTruncateToolPayload(''), '')
    const empty = []
    assert.equal(hardTruncateToolPayload(empty), empty)
    const noText = { content: [{ type: 'image', data: 'A'.repeat(1e6) }] }
    assert.equal(hardTruncateToolPayload(noText), noText)
  })
})

describe('hardTruncateToolPayload: limits', () => {
  test('invalid limits throw a TypeError or RangeError at the call, whatever the payload', () => {
    for (const payload of ['short', numberedLines(5000), [text('x')], 42, null]) {
      assert.throws(() => hardTruncateToolPayload(payload, { maxbytes: 5 }), {
        name: 'TypeError',
        message: 'unknown option "maxbytes"; did you mean "maxBytes"?',
      })
      assert.throws(() => hardTruncateToolPayload(payload, { strategy: 'middle' }), TypeError)
      assert.throws(() => hardTruncateToolPayload(payload, 5), { name: 'TypeError', message: 'limits must be an object, got 5' })
      assert.throws(() => hardTruncateToolPayload(payload, { maxBytes: -1 }), RangeError)
      assert.throws(() => hardTruncateToolPayload(payload, { maxLines: 1.5 }), RangeError)
      assert.throws(() => hardTruncateToolPayload(payload, { strategy: 'headTail', headRatio: 2 }), RangeError)
      assert.throws(() => hardTruncateToolPayload(payload, { notice: '{bogus}' }), TypeError)
    }
  })

  test('limits with only a strategy (or only a notice) keep the default budgets', () => {
    const over = numberedLines(3000)
    const tail = hardTruncateToolPayload(over, { strategy: 'tail' })
    assert.equal(tail, truncateText(over, { ...DEFAULT_LIMITS, strategy: 'tail', snap: 'line' }).text)
    assert.ok(tail.endsWith('line 3000\n'))
    const within = numberedLines(2000)
    assert.equal(hardTruncateToolPayload(within, { strategy: 'tail' }), within)
    const noticed = hardTruncateToolPayload(over, { notice: '[cut]' })
    assert.ok(fits(noticed, DEFAULT_LIMITS) && noticed.endsWith('[cut]'))
  })

  test('a custom notice is used in the block where the cut falls', () => {
    const input = [text(numberedLines(10, 'a')), text(numberedLines(10, 'b'))]
    const clamped = hardTruncateToolPayload(input, { maxLines: 15, notice: '[{omittedLines} more lines of {totalLines}]' })
    assert.equal(clamped[1].text, 'b 1\nb 2\nb 3\nb 4\n[6 more lines of 20]')
  })
})

// ---- hardTruncateToolError

describe('hardTruncateToolError', () => {
  test('returns the very same error when its message fits', () => {
    const error = new RangeError('x'.repeat(4096))
    assert.equal(hardTruncateToolError(error), error)
    const manyLines = new Error(numberedLines(40))
    assert.equal(hardTruncateToolError(manyLines), manyLines)
  })

  test('a long message gives an Error with the same name, a clamped message, the original as cause and a short stack', () => {
    const original = new TypeError('y'.repeat(100000))
    const clamped = hardTruncateToolError(original)
    assert.notEqual(clamped, original)
    assert.ok(clamped instanceof Error)
    assert.equal(clamped.name, 'TypeError')
    assert.equal(clamped.message, truncateText(original.message, ERROR_CUT).text)
    assert.ok(measure(clamped.message).bytes <= 4096)
    assert.equal(clamped.cause, original)
    assert.equal(clamped.stack, clamped.name + ': ' + clamped.message)
    assert.equal(String(clamped), clamped.stack)
  })

  test('the default error budget is 40 lines', () => {
    const original = new Error(numberedLines(41))
    const clamped = hardTruncateToolError(original)
    assert.notEqual(clamped, original)
    assert.ok(measure(clamped.message).lines <= 40)
    assert.equal(clamped.name, 'Error')
    assert.equal(clamped.stack, 'Error: ' + clamped.message)
  })

  test('a custom error class keeps its name; limits and strategy apply', () => {
    class ToolFailure extends Error {
      name = 'ToolFailure'
    }
    const original = new ToolFailure(numberedLines(1000))
    const clamped = hardTruncateToolError(original, { maxLines: 5, strategy: 'tail' })
    assert.equal(clamped.name, 'ToolFailure')
    // Budgets not given keep their defaults: the 4096-byte cap still applies.
    assert.equal(clamped.message, truncateText(original.message, { maxLines: 5, maxBytes: 4096, strategy: 'tail', snap: 'line' }).text)
    assert.equal(clamped.stack, 'ToolFailure: ' + clamped.message)
  })

  test('budgets not given keep their defaults; Infinity lifts one', () => {
    const text = 'x'.repeat(100_000)
    assert.equal(Buffer.byteLength(hardTruncateToolPayload(text, { maxLines: 10 })) <= 51200, true)
    assert.equal(hardTruncateToolPayload(text, { maxLines: 10, maxBytes: Infinity }), text)
  })

  test('an error whose message getter throws is still clamped, not rethrown', () => {
    const error = Object.defineProperty(new Error('x'), 'message', {
      get() {
        throw new Error('boom')
      },
    })
    const clamped = hardTruncateToolError(error)
    assert.ok(clamped instanceof Error)
    assert.match(clamped.message, /boom/)
    assert.equal(clamped.cause, error)
  })

  test('a class-based tool with private fields still works once wrapped', async () => {
    class SecretTool {
      #secret = 's'.repeat(100_000)
      name = 'secret'
      execute() {
        return this.#secret
      }
    }
    const wrapped = wrapToolWithHardOutputTruncate(new SecretTool())
    const out = await wrapped.execute('id', {})
    assert.ok(out.length < 100_000 && out.startsWith('sss'))
  })

  test('non-Error throws become Errors with clamped messages', () => {
    const long = 'z'.repeat(10000)
    const fromString = hardTruncateToolError(long)
    assert.ok(fromString instanceof Error)
    assert.equal(fromString.message, truncateText(long, ERROR_CUT).text)
    assert.equal(fromString.cause, long)

    assert.equal(hardTruncateToolError('short').message, 'short')

    const object = { code: 'E_TOOL', detail: 'd'.repeat(10000) }
    const fromObject = hardTruncateToolError(object)
    assert.equal(fromObject.message, truncateText(JSON.stringify(object), ERROR_CUT).text)
    assert.equal(fromObject.cause, object)
    assert.equal(hardTruncateToolError({ code: 1 }).message, '{"code":1}')
  })

  test('hostile non-Error throws never make it throw', () => {
    const cyclic = { name: 'loop' }
    cyclic.self = cyclic
    const bareCyclic = Object.create(null)
    bareCyclic.self = bareCyclic
    const hostile = {
      toJSON() {
        throw new Error('toJSON')
      },
      toString() {
        throw new Error('toString')
      },
    }
    const cases = [
      ['undefined', undefined],
      ['null', null],
      ['a number', 42],
      ['a symbol', Symbol('tool')],
      ['a bigint', 10n],
      ['a cyclic object', cyclic],
      ['a null-prototype cyclic object', bareCyclic],
      ['an object whose toJSON and toString throw', hostile],
      ['an object holding a bigint', { n: 1n }],
      ['a function', () => {}],
    ]
    for (const [what, value] of cases) {
      let clamped
      assert.doesNotThrow(() => {
        clamped = hardTruncateToolError(value)
      }, what)
      assert.ok(clamped instanceof Error, what)
      assert.equal(typeof clamped.message, 'string', what)
      assert.ok(fits(clamped.message, ERROR_LIMITS), what)
    }
    assert.equal(hardTruncateToolError(undefined).message, 'undefined')
    assert.equal(hardTruncateToolError(Symbol('tool')).message, 'Symbol(tool)')
  })

  test('a revoked proxy thrown as a value does not make it throw', () => {
    // Every operation on a revoked proxy throws, `instanceof` included.
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    let clamped
    assert.doesNotThrow(() => {
      clamped = hardTruncateToolError(proxy)
    })
    assert.ok(clamped instanceof Error)
    assert.equal(clamped.cause, proxy)
    assert.ok(fits(clamped.message, ERROR_LIMITS))
  })

  test('an error class with status and code keeps its class, every own property and its cause', () => {
    class HttpError extends Error {
      constructor(message, options) {
        super(message, options)
        this.name = 'HttpError'
        this.status = 503
        this.code = 'E_UPSTREAM'
      }
    }
    const original = new HttpError(numberedLines(100))
    const before = original.message
    const clamped = hardTruncateToolError(original)
    assert.ok(clamped instanceof HttpError)
    assert.ok(clamped instanceof Error)
    assert.ok(types.isNativeError(clamped))
    assert.equal(clamped.status, 503)
    assert.equal(clamped.code, 'E_UPSTREAM')
    assert.equal(clamped.name, 'HttpError')
    assert.equal(clamped.message, truncateText(before, { ...ERROR_LIMITS, snap: 'line', strategy: 'headTail', headRatio: 0.3 }).text)
    assert.equal(clamped.stack, `HttpError: ${clamped.message}`)
    assert.equal(String(clamped), clamped.stack)
    assert.deepEqual(Object.keys(clamped), Object.keys(original))
    // With no cause of its own, the original is the cause: the whole message stays reachable.
    assert.equal(clamped.cause, original)
    assert.equal(original.message, before, 'the original is not written to')
    // A cause of its own is kept as it is.
    const upstream = new Error('connect ECONNREFUSED')
    const withCause = hardTruncateToolError(new HttpError(numberedLines(100), { cause: upstream }))
    assert.equal(withCause.cause, upstream)
    assert.equal(Object.getOwnPropertyDescriptor(withCause, 'cause').enumerable, false)
  })

  test('getters, frozen errors, class-checking getters and proxies are copied without calling or throwing', () => {
    let calls = 0
    const withGetter = Object.defineProperty(new Error(numberedLines(100)), 'body', {
      enumerable: true,
      get() {
        calls++
        throw new Error('body is a stream')
      },
    })
    const copy = hardTruncateToolError(withGetter)
    assert.equal(calls, 0)
    assert.equal(typeof Object.getOwnPropertyDescriptor(copy, 'body').get, 'function')

    const frozen = Object.freeze(Object.assign(new RangeError(numberedLines(100)), { status: 400 }))
    const fromFrozen = hardTruncateToolError(frozen)
    assert.ok(fromFrozen instanceof RangeError)
    assert.equal(fromFrozen.status, 400)
    assert.ok(fits(fromFrozen.message, ERROR_LIMITS))

    // DOMException's name and code are getters that refuse any other receiver.
    const dom = new DOMException(numberedLines(100), 'AbortError')
    const fromDom = hardTruncateToolError(dom)
    assert.ok(fromDom instanceof DOMException)
    assert.equal(fromDom.name, 'AbortError')
    assert.equal(fromDom.code, 20)
    assert.equal(String(fromDom), `AbortError: ${fromDom.message}`)

    // A proxy that cannot list its keys: an Error of the same name, the original as cause.
    const guarded = new Proxy(new TypeError(numberedLines(100)), {
      ownKeys() {
        throw new Error('no keys')
      },
      getOwnPropertyDescriptor() {
        throw new Error('no descriptors')
      },
    })
    const fromProxy = hardTruncateToolError(guarded)
    assert.equal(fromProxy.name, 'TypeError')
    assert.equal(fromProxy.cause, guarded)
    assert.ok(fits(fromProxy.message, ERROR_LIMITS))
  })

  test('invalid limits throw', () => {
    assert.throws(() => hardTruncateToolError(new Error('x'), { maxbytes: 5 }), { name: 'TypeError', message: /did you mean "maxBytes"/ })
    assert.throws(() => hardTruncateToolError(new Error('x'), 5), { name: 'TypeError', message: 'limits must be an object, got 5' })
  })
})

// ---- wrapOnUpdate

describe('wrapOnUpdate', () => {
  test('undefined in, undefined out', () => {
    assert.equal(wrapOnUpdate(undefined), undefined)
    assert.equal(wrapOnUpdate(undefined, { maxLines: 3 }), undefined)
  })

  test('invalid limits throw at wrap time, even with no onUpdate', () => {
    assert.throws(() => wrapOnUpdate(undefined, { maxbytes: 5 }), {
      name: 'TypeError',
      message: 'unknown option "maxbytes"; did you mean "maxBytes"?',
    })
    assert.throws(() => wrapOnUpdate(() => {}, { strategy: 'middle' }), TypeError)
    assert.throws(() => wrapOnUpdate(() => {}, 5), TypeError)
  })

  test('forwards every partial clamped; partials that fit are the very same values', () => {
    const received = []
    const onUpdate = wrapOnUpdate((partial) => received.push(partial), { maxLines: 10 })
    const small = { content: [text('starting\n')], details: { step: 1 } }
    const big = { content: [text(numberedLines(100))], details: { step: 2 } }
    onUpdate(small)
    onUpdate(big)
    onUpdate(numberedLines(100))
    assert.equal(received[0], small)
    assert.equal(received[1].details, big.details)
    assert.equal(received[1].content[0].text, truncateText(big.content[0].text, { maxLines: 10, snap: 'line' }).text)
    assert.equal(received[2], truncateText(numberedLines(100), { maxLines: 10, snap: 'line' }).text)
  })

  test('keeps `this`, the extra arguments and the return value', () => {
    const self = { name: 'listener' }
    let seen
    const onUpdate = wrapOnUpdate(function (partial, ...rest) {
      seen = { self: this, partial, rest }
      return 'returned'
    })
    const partial = { content: [text('x')] }
    assert.equal(onUpdate.call(self, partial, 1, 'two'), 'returned')
    assert.equal(seen.self, self)
    assert.equal(seen.partial, partial)
    assert.deepEqual(seen.rest, [1, 'two'])
  })

  test('uses the default payload budget', () => {
    let received
    wrapOnUpdate((p) => (received = p))(numberedLines(3000))
    assert.equal(received, truncateText(numberedLines(3000), { ...DEFAULT_LIMITS, snap: 'line' }).text)
  })
})

// ---- wrapToolWithHardOutputTruncate

// An execute function alone (what wrapExecute did in earlier builds): its arguments pass
// through as they are, none is taken for an onUpdate.
describe('wrapToolWithHardOutputTruncate: an execute function alone', () => {
  const big = () => ({ content: [text(numberedLines(100))], details: { rows: 100 } })

  test('a sync value is clamped and returned synchronously', () => {
    const result = big()
    const clamped = wrapToolWithHardOutputTruncate(() => result, { maxLines: 10 })()
    assert.ok(!(clamped instanceof Promise))
    assert.equal(clamped.details, result.details)
    assert.ok(measure(clamped.content[0].text).lines <= 10)
  })

  test('a promise resolves to the clamped result', async () => {
    const clamped = await wrapToolWithHardOutputTruncate(async () => numberedLines(3000))()
    assert.equal(clamped, truncateText(numberedLines(3000), { ...DEFAULT_LIMITS, snap: 'line' }).text)
  })

  test('an async iterable yields every value clamped', async () => {
    const small = { content: [text('working')] }
    const execute = wrapToolWithHardOutputTruncate(
      async function* () {
        yield small
        yield big()
        yield numberedLines(100)
      },
      { maxLines: 10 },
    )
    const values = []
    for await (const value of execute()) values.push(value)
    assert.equal(values.length, 3)
    assert.equal(values[0], small)
    assert.ok(measure(values[1].content[0].text).lines <= 10)
    assert.equal(values[2], truncateText(numberedLines(100), { maxLines: 10, snap: 'line' }).text)
  })

  test('a sync throw is re-thrown synchronously with a clamped message', () => {
    const original = new TypeError(numberedLines(1000))
    const execute = wrapToolWithHardOutputTruncate(() => {
      throw original
    })
    assert.throws(execute, (error) => {
      assert.equal(error.name, 'TypeError')
      assert.equal(error.cause, original)
      assert.ok(fits(error.message, ERROR_LIMITS))
      return true
    })
  })

  test('a rejected promise rejects with a clamped error', async () => {
    const original = new Error('e'.repeat(100000))
    await assert.rejects(
      wrapToolWithHardOutputTruncate(async () => {
        throw original
      })(),
      (error) => error.cause === original && fits(error.message, ERROR_LIMITS),
    )
    await assert.rejects(
      wrapToolWithHardOutputTruncate(() => Promise.reject('r'.repeat(100000)))(),
      (error) => error instanceof Error && fits(error.message, ERROR_LIMITS),
    )
  })

  test('a throw inside an async iterable is re-thrown clamped', async () => {
    const execute = wrapToolWithHardOutputTruncate(async function* () {
      yield 'first'
      throw new Error(numberedLines(1000))
    })
    const seen = []
    await assert.rejects(
      (async () => {
        for await (const value of execute()) seen.push(value)
      })(),
      (error) => fits(error.message, ERROR_LIMITS),
    )
    assert.deepEqual(seen, ['first'])
  })

  test('keeps `this` and the arguments', async () => {
    const self = { prefix: 'p' }
    const execute = wrapToolWithHardOutputTruncate(async function (a, b) {
      return `${this.prefix}:${a}:${b}`
    })
    assert.equal(await execute.call(self, 1, 2), 'p:1:2')
  })

  test('error limits are never above the payload limits', () => {
    const execute = wrapToolWithHardOutputTruncate(
      () => {
        throw new Error('m'.repeat(100000))
      },
      { maxBytes: 1000 },
    )
    assert.throws(execute, (error) => measure(error.message).bytes <= 1000)
  })

  test('invalid limits throw at wrap time', () => {
    assert.throws(() => wrapToolWithHardOutputTruncate(() => {}, { maxbytes: 5 }), {
      name: 'TypeError',
      message: 'unknown option "maxbytes"; did you mean "maxBytes"?',
    })
    assert.throws(() => wrapToolWithHardOutputTruncate(() => {}, { strategy: 'middle' }), TypeError)
    assert.throws(() => wrapToolWithHardOutputTruncate(() => {}, 5), { name: 'TypeError', message: 'limits must be an object, got 5' })
  })

  test('limits may be a function of the execute function; its arguments are passed through as they are', async () => {
    const seen = []
    const execute = async (...args) => {
      seen.push(args)
      return numberedLines(100)
    }
    const wrapped = wrapToolWithHardOutputTruncate(execute, (fn) => (fn === execute ? { maxLines: 3 } : undefined))
    const onUpdate = () => {}
    assert.equal(measure(await wrapped('id', { a: 1 }, undefined, onUpdate)).lines, 3)
    assert.equal(seen[0][3], onUpdate, 'the fourth argument is not wrapped as an onUpdate')
  })

  test('neither a function nor a tool: an exact error', () => {
    for (const [value, shown] of [
      [42, '42'],
      [null, 'null'],
      [undefined, 'undefined'],
      [{}, 'an object'],
    ]) {
      assert.throws(() => wrapToolWithHardOutputTruncate(value), {
        name: 'TypeError',
        code: 'TOOLCLAMP_INVALID_ARGUMENT',
        message: `tool must be a function or an object with an execute function, got ${shown}`,
      })
    }
  })
})

// ---- wrapToolWithHardOutputTruncate

describe('wrapToolWithHardOutputTruncate', () => {
  /** A pi-agent-core style tool whose output and updates are far over the default limits. */
  function loudTool(overrides = {}) {
    return {
      name: 'read',
      label: 'Read',
      description: 'Reads a file',
      parameters: { type: 'object' },
      async execute(toolCallId, params, signal, onUpdate) {
        onUpdate?.({ content: [text(numberedLines(3000, 'partial'))], details: { partial: true } })
        return { content: [text(numberedLines(5000))], details: { toolCallId, params, signal } }
      },
      ...overrides,
    }
  }

  test('every other property is kept: non-enumerable ones, getters, symbols and the prototype', () => {
    const proto = { kind: 'base tool' }
    const tag = Symbol('tag')
    const tool = Object.create(proto)
    const getter = function () {
      return 'computed'
    }
    Object.assign(tool, loudTool(), { [tag]: 'symbol value' })
    Object.defineProperty(tool, 'hidden', { value: { secret: 1 }, enumerable: false })
    Object.defineProperty(tool, 'computed', { get: getter, enumerable: true, configurable: true })
    const wrapped = wrapToolWithHardOutputTruncate(tool)
    assert.equal(Object.getPrototypeOf(wrapped), proto)
    assert.deepEqual(Reflect.ownKeys(wrapped).sort(String), Reflect.ownKeys(tool).sort(String))
    for (const key of Reflect.ownKeys(tool)) {
      if (key === 'execute') continue
      assert.deepEqual(Object.getOwnPropertyDescriptor(wrapped, key), Object.getOwnPropertyDescriptor(tool, key), String(key))
    }
    assert.equal(Object.getOwnPropertyDescriptor(wrapped, 'computed').get, getter)
    assert.notEqual(wrapped.execute, tool.execute)
  })

  test('the original tool is not mutated', async () => {
    const tool = loudTool()
    const before = Object.getOwnPropertyDescriptors(tool)
    const wrapped = wrapToolWithHardOutputTruncate(tool)
    await wrapped.execute('call-1', {})
    assert.deepEqual(Object.getOwnPropertyDescriptors(tool), before)
    const raw = await tool.execute('call-2', {})
    assert.equal(measure(raw.content[0].text).lines, 5000)
  })

  test('a frozen tool can be wrapped', async () => {
    const tool = Object.freeze(loudTool())
    let wrapped
    assert.doesNotThrow(() => {
      wrapped = wrapToolWithHardOutputTruncate(tool)
    })
    const result = await wrapped.execute('call-1', {})
    assert.ok(fits(joinedText(result.content), DEFAULT_LIMITS))
    assert.equal(wrapped.name, 'read')
  })

  test('execute clamps the result and every onUpdate partial, passes its arguments, and runs on the original tool', async () => {
    let self
    const tool = loudTool({
      async execute(toolCallId, params, signal, onUpdate) {
        self = this
        onUpdate?.({ content: [text(numberedLines(3000, 'partial'))], details: { partial: true } })
        onUpdate?.({ content: [text('small')] })
        return { content: [text(numberedLines(5000))], details: { toolCallId, params, signal } }
      },
    })
    const wrapped = wrapToolWithHardOutputTruncate(tool)
    const params = { path: 'x' }
    const signal = new AbortController().signal
    const partials = []
    const result = await wrapped.execute('call-1', params, signal, (p) => partials.push(p))
    // Called as a method of the wrapper, execute runs on the original: private fields work.
    assert.equal(self, tool)
    const other = { name: 'other' }
    await wrapped.execute.call(other, 'call-2', params, signal)
    assert.equal(self, other, 'an explicit `this` is passed through')
    assert.equal(result.details.toolCallId, 'call-1')
    assert.equal(result.details.params, params)
    assert.equal(result.details.signal, signal)
    assert.ok(fits(joinedText(result.content), DEFAULT_LIMITS))
    assert.equal(partials.length, 2)
    assert.ok(fits(joinedText(partials[0].content), DEFAULT_LIMITS))
    assert.equal(partials[0].details.partial, true)
    assert.equal(partials[1].content[0].text, 'small')
    // No onUpdate given: the tool still gets undefined.
    await wrapped.execute('call-2', params)
  })

  test('execute re-throws errors with clamped messages', async () => {
    const original = new TypeError('boom '.repeat(100000))
    const wrapped = wrapToolWithHardOutputTruncate(
      loudTool({
        async execute() {
          throw original
        },
      }),
    )
    await assert.rejects(wrapped.execute('call-1', {}), (error) => {
      assert.equal(error.name, 'TypeError')
      assert.equal(error.cause, original)
      assert.ok(fits(error.message, ERROR_LIMITS))
      return true
    })
  })

  test('limits may be a function of the tool, for per-tool budgets', async () => {
    const seen = []
    const perTool = (t) => {
      seen.push(t)
      return t.name === 'read' ? { maxLines: 10 } : undefined
    }
    const read = loudTool()
    const bash = loudTool({ name: 'bash' })
    const wrappedRead = wrapToolWithHardOutputTruncate(read, perTool)
    const wrappedBash = wrapToolWithHardOutputTruncate(bash, perTool)
    assert.deepEqual(seen, [read, bash])
    const readResult = await wrappedRead.execute('1', {})
    const bashResult = await wrappedBash.execute('2', {})
    assert.ok(measure(readResult.content[0].text).lines <= 10)
    assert.equal(bashResult.content[0].text, truncateText(numberedLines(5000), { ...DEFAULT_LIMITS, snap: 'line' }).text)
  })

  test('error limits are never above the payload limits', async () => {
    const wrapped = wrapToolWithHardOutputTruncate(
      loudTool({
        async execute() {
          throw new Error('e'.repeat(100000))
        },
      }),
      { maxBytes: 1000 },
    )
    await assert.rejects(wrapped.execute('1', {}), (error) => measure(error.message).bytes <= 1000)
    const fewLines = wrapToolWithHardOutputTruncate(
      loudTool({
        execute() {
          throw new Error(numberedLines(100))
        },
      }),
      { maxLines: 7 },
    )
    assert.throws(
      () => fewLines.execute('1', {}),
      (error) => measure(error.message).lines <= 7,
    )
  })

  test('invalid limits throw at wrap time, including ones a limits function returns', () => {
    assert.throws(() => wrapToolWithHardOutputTruncate(loudTool(), { maxbytes: 5 }), {
      name: 'TypeError',
      message: 'unknown option "maxbytes"; did you mean "maxBytes"?',
    })
    assert.throws(() => wrapToolWithHardOutputTruncate(loudTool(), () => ({ strategy: 'middle' })), TypeError)
    assert.throws(() => wrapToolWithHardOutputTruncate(loudTool(), () => 5), TypeError)
  })
})
