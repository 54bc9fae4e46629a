// Property tests for hardTruncateToolPayload on random lists of content blocks: text blocks,
// embedded resources with text, blocks it must not read, and malformed ones; and on any
// JSON-ish value in any result shape, measured over everything a framework sends (sent.mjs).
// FC_RUNS sets the runs per property (default 10,000).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'

import { truncateText, hardTruncateToolPayload, wrapToolWithHardOutputTruncate } from '../index.mjs'
import { fits } from './reference.mjs'
import { assertSentWithin, DETAILS_MAX_BYTES, fitsBudget, payloadBudget, sentSize } from './sent.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const check = (property) => fc.assert(property, { numRuns: RUNS })

const DEFAULT_BUDGETS = { maxBytes: 51200, maxLines: 2000 }

// ---- Arbitraries

// Line breaks, multi-byte chars, a surrogate pair and both lone surrogates. No '[' or '<':
// a notice is then the only place those appear in an output, which lets the tests find it.
const PIECES = ['a', 'b', 'Z', ' ', '\n', '\r\n', 'é', '日', '😀', '\uD800', '\uDC00']
const piece = fc.constantFrom(...PIECES)
const run = fc.tuple(piece, fc.integer({ min: 2, max: 40 })).map(([p, n]) => p.repeat(n))
const textArb = fc
  .array(fc.oneof({ weight: 12, arbitrary: piece }, { weight: 1, arbitrary: run }), { maxLength: 30 })
  .map((parts) => parts.join(''))

const textBlock = fc.oneof(
  textArb.map((text) => ({ type: 'text', text })),
  textArb.map((text) => ({ type: 'text', text, annotations: { audience: ['user'] } })),
)
const resourceBlock = textArb.map((text) => ({ type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text } }))
// Blocks toolclamp must pass through untouched, though some carry a string `text`.
const opaqueBlock = fc.constantFrom(
  () => ({ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }),
  () => ({ type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' }),
  () => ({ type: 'resource_link', uri: 'file:///big.log', name: 'big.log' }),
  () => ({ type: 'resource', resource: { uri: 'file:///x.bin', blob: 'AAAA' } }),
)
const malformedBlock = fc.constantFrom(
  () => null,
  () => 42,
  () => ({ type: 'text', text: 7 }),
  () => ({ type: 'text' }),
  () => ({ type: 'resource', resource: null }),
  () => ({ type: 'resource', resource: { uri: 'x', text: 5 } }),
)
const blockArb = fc.oneof(
  { weight: 6, arbitrary: textBlock },
  { weight: 3, arbitrary: resourceBlock },
  { weight: 2, arbitrary: opaqueBlock.map((make) => make()) },
  { weight: 1, arbitrary: malformedBlock.map((make) => make()) },
)
// A list is one of blocks when an item is a block; a list of only null and numbers is JSON data.
const isBlock = (item) => typeof item === 'object' && item !== null
const blocksArb = fc.array(blockArb, { maxLength: 8 }).filter((blocks) => blocks.length === 0 || blocks.some(isBlock))

const budget = (max) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(Infinity) },
    { weight: 6, arbitrary: fc.integer({ min: 0, max }) },
  )
const headRatioArb = fc.oneof(fc.constant(undefined), fc.constantFrom(0, 0.5, 1), fc.double({ min: 0, max: 1, noNaN: true }))

function cutMark(facts) {
  return `<<${facts.where}: ${facts.omittedBytes} of ${facts.totalBytes} bytes>>`
}
// Every notice starts with '[' or '<' and ends with ']' or '>', with neither inside.
const noticeArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constantFrom('<<cut>>', '<<{omittedLines} lines, {omittedBytes} bytes dropped at {where}>>') },
  { weight: 1, arbitrary: fc.constant(cutMark) },
)

const limitsArb = fc.record(
  {
    maxChars: budget(200),
    maxBytes: budget(300),
    maxLines: budget(20),
    strategy: fc.constantFrom('head', 'tail', 'headTail'),
    headRatio: headRatioArb,
    notice: noticeArb,
  },
  { requiredKeys: ['strategy'] },
)

/** Blocks as a bare array or inside a tool result with other keys. */
const caseArb = fc.record({ blocks: blocksArb, limits: limitsArb, wrapped: fc.boolean() })

// ---- Helpers

/** The text toolclamp reads from a block, or undefined for any other block. */
function textOf(block) {
  if (typeof block !== 'object' || block === null) return undefined
  if (block.type === 'text' && typeof block.text === 'string') return block.text
  if (block.type === 'resource' && typeof block.resource === 'object' && block.resource !== null) {
    if (typeof block.resource.text === 'string') return block.resource.text
  }
  return undefined
}

const joinedText = (blocks) =>
  blocks
    .map(textOf)
    .filter((t) => t !== undefined)
    .join('')

/** The budgets that apply: each one not given keeps its default. */
function budgetsOf(limits) {
  const budgets = {}
  for (const key of ['maxChars', 'maxBytes', 'maxLines']) {
    const value = limits[key] !== undefined ? limits[key] : DEFAULT_BUDGETS[key]
    if (value !== undefined) budgets[key] = value
  }
  return budgets
}

// The string options a payload clamp plans with: its budgets, and whole lines (its default).
const stringOptions = (limits) => ({ snap: 'line', ...limits, ...budgetsOf(limits) })

function deepFreeze(value) {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

function clampCase({ blocks, limits, wrapped }) {
  const details = { source: 'properties' }
  // details never reach a model (other keys would share the budget: see sent.mjs).
  const input = deepFreeze(wrapped ? { content: blocks, details } : blocks)
  const output = hardTruncateToolPayload(input, limits)
  return { input, output, outBlocks: wrapped ? output.content : output, details }
}

const NOTICE = /\[\.\.\.[^\]]*\]|<<[^<>]*>>/g

/**
 * Splits the outputs of the text blocks into kept text and one glue: the glue is the notice
 * with the line breaks around it. Returns every reading of the outputs as
 * `{ glueBlock, kept: [per block] }`; the line break before or after a notice may belong to
 * the kept text, so there can be several.
 */
function readings(outputs) {
  const found = []
  outputs.forEach((text, k) => {
    for (const match of text.matchAll(NOTICE)) found.push({ k, start: match.index, end: match.index + match[0].length })
  })
  if (found.length === 0) return [{ glueBlock: -1, kept: outputs }]
  assert.equal(found.length, 1, `one notice in all: ${JSON.stringify(outputs)}`)
  const { k, start, end } = found[0]
  const text = outputs[k]
  const result = []
  for (const before of [0, 1]) {
    for (const after of [0, 1]) {
      // The separator before: a line break, or the space before an inline notice.
      if (before && text[start - 1] !== '\n' && text[start - 1] !== ' ') continue
      if (after && text[end] !== '\n') continue
      const kept = [...outputs]
      kept[k] = text.slice(0, start - before) + text.slice(end + after)
      result.push({ glueBlock: k, kept })
    }
  }
  return result
}

/**
 * The cuts (headEnd, tailStart) with headEnd <= tailStart for which `kept` is
 * `joined.slice(0, headEnd) + joined.slice(tailStart)`.
 */
function cutsFor(joined, kept) {
  const n = joined.length
  const m = kept.length
  if (m > n) return []
  let prefix = 0
  while (prefix < m && kept[prefix] === joined[prefix]) prefix++
  let suffix = 0
  while (suffix < m && kept[m - 1 - suffix] === joined[n - 1 - suffix]) suffix++
  const cuts = []
  for (let headEnd = Math.max(0, m - suffix); headEnd <= prefix; headEnd++) cuts.push({ headEnd, tailStart: n - (m - headEnd) })
  return cuts
}

/** What each text block keeps of a cut of the concatenation. */
function keptPerBlock(texts, { headEnd, tailStart }) {
  const kept = []
  let start = 0
  for (const t of texts) {
    const within = (x) => Math.max(0, Math.min(t.length, x - start))
    kept.push(t.slice(0, within(headEnd)) + t.slice(within(tailStart)))
    start += t.length
  }
  return kept
}

// ---- Properties

describe('hardTruncateToolPayload properties', () => {
  test('all output text together is within every limit', () => {
    check(
      fc.property(caseArb, (c) => {
        const { outBlocks } = clampCase(c)
        assert.ok(fits(joinedText(outBlocks), budgetsOf(c.limits)), JSON.stringify(joinedText(outBlocks)))
      }),
    )
  })

  test('order, length and every block it does not read are kept; other keys are the very same values', () => {
    check(
      fc.property(caseArb, (c) => {
        const { input, output, outBlocks, details } = clampCase(c)
        const blocks = c.wrapped ? input.content : input
        assert.equal(outBlocks.length, blocks.length)
        if (c.wrapped) {
          assert.deepEqual(Object.keys(output), ['content', 'details'])
          assert.equal(output.details, details)
        }
        blocks.forEach((block, i) => {
          const before = textOf(block)
          if (before === undefined) {
            assert.equal(outBlocks[i], block, `block ${i} is the very same`)
            return
          }
          const after = textOf(outBlocks[i])
          assert.equal(typeof after, 'string', `block ${i} still carries text`)
          if (after === before) return
          assert.deepEqual(Object.keys(outBlocks[i]), Object.keys(block))
          for (const key of Object.keys(block)) {
            if (key !== 'text' && key !== 'resource') assert.equal(outBlocks[i][key], block[key])
          }
          if (block.type === 'resource') {
            assert.deepEqual(Object.keys(outBlocks[i].resource), Object.keys(block.resource))
            assert.equal(outBlocks[i].resource.uri, block.resource.uri)
          }
        })
      }),
    )
  })

  test('the input is never mutated', () => {
    check(
      fc.property(caseArb, (c) => {
        const snapshot = structuredClone(c.blocks)
        clampCase(c) // deep-frozen first: a write in toolclamp's strict-mode code would throw
        assert.deepEqual(c.blocks, snapshot)
      }),
    )
  })

  test('the very same value back exactly when all text fits', () => {
    check(
      fc.property(caseArb, (c) => {
        const { input, output } = clampCase(c)
        const fitsAlready = fits(joinedText(c.blocks), budgetsOf(c.limits))
        assert.equal(output === input, fitsAlready)
      }),
    )
  })

  test('each block keeps its share of one prefix and one suffix of all text, and one block carries the notice', () => {
    check(
      fc.property(caseArb, (c) => {
        const { outBlocks } = clampCase(c)
        const texts = c.blocks.map(textOf).filter((t) => t !== undefined)
        const outputs = outBlocks.map(textOf).filter((t) => t !== undefined)
        const joined = texts.join('')
        const fitting = readings(outputs).some(({ kept }) =>
          cutsFor(joined, kept.join('')).some((cut) => {
            if (c.limits.strategy === 'head' && cut.tailStart !== joined.length) return false
            if (c.limits.strategy === 'tail' && cut.headEnd !== 0) return false
            const expected = keptPerBlock(texts, cut)
            return expected.every((t, k) => t === kept[k])
          }),
        )
        assert.ok(fitting, `outputs ${JSON.stringify(outputs)} are not a cut of ${JSON.stringify(texts)}`)
      }),
    )
  })

  test('all output text together is truncateText of all input text; the notice sits where the cut falls', () => {
    check(
      fc.property(caseArb, (c) => {
        const { outBlocks } = clampCase(c)
        const texts = c.blocks.map(textOf).filter((t) => t !== undefined)
        const outputs = outBlocks.map(textOf).filter((t) => t !== undefined)
        const joined = texts.join('')
        const expected = truncateText(joined, stringOptions(c.limits))
        assert.equal(outputs.join(''), expected.text)
        if (!expected.truncated) return
        // The block that holds the glue: after the kept head, or else before the kept tail.
        const { headEnd, tailStart } = expected
        const glue = expected.text.slice(headEnd, expected.text.length - (joined.length - tailStart))
        if (glue === '' || (headEnd === 0 && tailStart === joined.length)) return
        let start = 0
        const cutBlock = texts.findIndex((t) => {
          const end = start + t.length
          const holds = headEnd > 0 ? start < headEnd && headEnd <= end : start <= tailStart && tailStart < end
          start = end
          return holds
        })
        const kept = keptPerBlock(texts, expected)
        outputs.forEach((out, k) => {
          if (k !== cutBlock) return assert.equal(out, kept[k], `block ${k}`)
          const headPart = texts[k].slice(0, Math.max(0, headEnd - texts.slice(0, k).join('').length))
          assert.equal(out, headPart + glue + kept[k].slice(headPart.length), `block ${k} carries the notice`)
        })
      }),
    )
  })
})

// ---- Any JSON-ish value in any result shape, measured over everything a framework sends

describe('what a framework sends is within the budget, whatever the value and its shape', () => {
  const lineArb = fc.constantFrom('ok\n', 'café ✓\n', '日本語 😀\n', 'x'.repeat(40) + '\n', '"quoted"\\\n', 'no newline')
  const stringArb = fc.array(lineArb, { maxLength: 60 }).map((lines) => lines.join(''))
  const scalarArb = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null))
  const valueArb = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      stringArb,
      scalarArb,
      // Arrays of only numbers, booleans and null, up to thousands of items.
      fc.array(scalarArb, { maxLength: 2000 }),
      fc.array(tie('value'), { maxLength: 6 }),
      fc.dictionary(fc.constantFrom('log', 'rows', 'id', 'a b', 'ключ', 'type'), tie('value'), { maxKeys: 4 }),
    ),
  })).value
  const text = (t) => ({ type: 'text', text: t })
  const toolMessage = (content) => ({ lc_direct_tool_output: true, tool_call_id: 'call-1', content })
  const messageContent = fc.oneof(stringArb, fc.array(stringArb.map(text), { minLength: 1, maxLength: 3 }))
  // [value, limits extra] for each shape a tool may return.
  const shapeArb = fc.oneof(
    valueArb.map((v) => [v]),
    fc.tuple(stringArb, valueArb).map(([s, v]) => [[text(s), v]]),
    fc.tuple(stringArb, valueArb).map(([s, v]) => [{ content: [text(s)], structuredContent: v }]),
    fc.tuple(stringArb, valueArb).map(([s, v]) => [{ content: [text(s), text(JSON.stringify(v))], structuredContent: v }]),
    fc.tuple(valueArb, fc.boolean()).map(([v, isError]) => [{ content: [], stdout: v, isError }]),
    fc.tuple(stringArb, valueArb).map(([s, v]) => [{ content: [text(s)], details: v }]),
    valueArb.map((v) => [{ type: 'json', value: v }]),
    valueArb.map((v) => [{ type: 'function_call_output', call_id: 'c', output: v }]),
    fc.tuple(valueArb, valueArb).map(([v, artifact]) => [[v, artifact], { responseFormat: 'content_and_artifact' }]),
    messageContent.map((c) => [toolMessage(c)]),
    fc
      .tuple(messageContent, messageContent)
      .map(([a, b]) => [{ lc_direct_tool_output: true, update: { messages: [toolMessage(a), toolMessage(b)] } }]),
    messageContent.map((c) => [{ lc_direct_tool_output: true, update: { messages: toolMessage(c) } }]),
    fc.tuple(messageContent, valueArb).map(([c, v]) => [
      {
        lc_direct_tool_output: true,
        update: [
          ['messages', [toolMessage(c)]],
          ['state', v],
        ],
      },
    ]),
  )
  const size = (min, max) =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant(Infinity) },
      { weight: 6, arbitrary: fc.integer({ min, max }) },
    )
  const limitsArb = fc.record(
    { maxChars: size(64, 4000), maxBytes: size(64, 4000), maxLines: size(3, 80), strategy: fc.constantFrom('head', 'tail', 'headTail') },
    { requiredKeys: [] },
  )
  const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))

  test('hardTruncateToolPayload and wrapToolWithHardOutputTruncate: within the budget, never mutated, the same value when it fits', () => {
    fc.assert(
      fc.property(shapeArb, limitsArb, ([value, extra], limits) => {
        const given = { ...defined(limits), ...extra }
        const snapshot = JSON.stringify(value)
        const clamped = hardTruncateToolPayload(value, given)
        assert.equal(JSON.stringify(value), snapshot, 'mutated')
        assertSentWithin(clamped, given)
        assertSentWithin(wrapToolWithHardOutputTruncate(() => value, given)(), given)
        const detailsFit = Buffer.byteLength(JSON.stringify(value?.details) ?? '') <= DETAILS_MAX_BYTES
        if (detailsFit && fitsBudget(sentSize(value, given), payloadBudget(given)))
          assert.equal(clamped, value, 'fits, yet not the same value')
        // The MCP convention: a text block holding structuredContent's JSON holds the clamped value's.
        if (Array.isArray(value?.content) && value.content.length === 2 && value.structuredContent !== undefined) {
          const mirror = clamped.content[1].text
          if (mirror !== '') assert.equal(mirror, JSON.stringify(clamped.structuredContent))
        }
      }),
      { numRuns: Math.max(50, Math.floor(RUNS / 10)) },
    )
  })
})
