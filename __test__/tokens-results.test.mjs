// Exact tokens beyond plain strings: tool results (every text a model reads, each counted on
// its own, data as its compact JSON), JSON values and texts, readPartial pages, and the
// conversation functions. Each result is counted again by the test oracle (js-tiktoken) and
// must be within the limit; a result that fits comes back as the very same value.
// FC_RUNS sets the runs (each run costs a search of a dozen clamps and a few oracle counts).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'

import { clampJson, clampJsonText, hardTruncateToolPayload, readPartial, truncateText, wrapToolWithHardOutputTruncate } from '../index.mjs'
import { clampToolResultsInMessages, countTokens, estimateTokens, withContextOverflowRecovery } from '../conversation.mjs'
import { ENCODINGS, fastOracle, oracle } from './token-oracle.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const CASES = Math.max(60, Math.floor(RUNS / 150))

const WORDS = [
  'alpha',
  'beta',
  ' ',
  '  ',
  '\n',
  '\r\n',
  'QmFzZTY0',
  '数据',
  '表格',
  '😀',
  '👩‍💻',
  'é',
  '12345',
  '{"k":1}',
  '<|endoftext|>',
  '\t',
]
const text = (maxLength) => fc.array(fc.constantFrom(...WORDS), { maxLength }).map((w) => w.join(''))
const encoding = fc.constantFrom(...ENCODINGS)

/** Every text a model reads of a result, each counted on its own, data as compact JSON. */
function tokensOfResult(enc, value) {
  if (typeof value === 'string') return oracle(enc, value)
  if (Array.isArray(value)) return value.reduce((n, b) => n + (b.type === 'text' ? oracle(enc, b.text) : oracle(enc, JSON.stringify(b))), 0)
  let n = 0
  if (value.content !== undefined) n += tokensOfResult(enc, value.content)
  if (value.structuredContent !== undefined) n += oracle(enc, JSON.stringify(value.structuredContent))
  return n
}

const result = fc.oneof(
  text(400),
  fc.array(text(200), { minLength: 1, maxLength: 4 }).map((texts) => texts.map((t) => ({ type: 'text', text: t }))),
  fc.record({ rows: fc.array(text(20), { maxLength: 40 }) }).map((rows) => ({
    content: [{ type: 'text', text: JSON.stringify(rows) }],
    structuredContent: rows,
  })),
)

describe('tool results within exact tokens', () => {
  test('every result a model reads is within maxTokens; one that fits is the same value', () => {
    fc.assert(
      fc.property(result, encoding, fc.integer({ min: 0, max: 300 }), (value, enc, max) => {
        const clamped = hardTruncateToolPayload(value, { maxTokens: max, tokenizer: enc })
        const n = tokensOfResult(enc, clamped)
        assert.ok(n <= max, `${n} > ${max}`)
        if (tokensOfResult(enc, value) <= max && JSON.stringify(value).length * 0 === 0) {
          // Within the tokens and the default byte and line limits: nothing to cut.
          const small = Buffer.byteLength(JSON.stringify(value)) < 40_000
          if (small) assert.equal(clamped, value)
        }
      }),
      { numRuns: CASES },
    )
  })

  test('a string result is cut as truncateText cuts it', () => {
    fc.assert(
      fc.property(text(400), encoding, fc.integer({ min: 0, max: 200 }), (value, enc, max) => {
        const limits = { maxTokens: max, tokenizer: enc }
        assert.equal(hardTruncateToolPayload(value, { ...limits, strategy: 'head' }), truncateText(value, { ...limits, snap: 'line' }).text)
      }),
      { numRuns: CASES },
    )
  })

  test('content blocks keep more as the limit grows, and always what they can within it', () => {
    const blocks = Array.from({ length: 3 }, (_, k) => ({ type: 'text', text: `block ${k}\n${'数据 alpha QmFzZTY0\n'.repeat(200)}` }))
    let last = -1
    for (const max of [20, 60, 150, 400, 1000]) {
      const clamped = hardTruncateToolPayload(blocks, { maxTokens: max, tokenizer: 'o200k_base' })
      const n = tokensOfResult('o200k_base', clamped)
      assert.ok(n <= max && n > max * 0.6, `${n} of ${max}`)
      assert.ok(n > last)
      last = n
    }
  })

  test('a caller counter bounds the result by its own count', () => {
    const counter = (t) => [...t].length
    const blocks = [
      { type: 'text', text: 'ab\n'.repeat(500) },
      { type: 'text', text: 'cd\n'.repeat(500) },
    ]
    const clamped = hardTruncateToolPayload(blocks, { maxTokens: 100, tokenizer: counter })
    const n = clamped.reduce((sum, b) => sum + counter(b.text), 0)
    assert.ok(n <= 100 && n >= 50, `${n}`)
    const tooFew = {
      name: 'RangeError',
      code: 'TOOLCLAMP_OUT_OF_RANGE',
      message: 'maxTokens must be at least 5, what the tokenizer function counts for an empty text, got 3',
    }
    assert.throws(() => hardTruncateToolPayload(blocks, { maxTokens: 3, tokenizer: (t) => t.length + 5 }), tooFew)
    assert.throws(() => truncateText('abc', { maxTokens: 3, tokenizer: (t) => t.length + 5 }), tooFew)
    assert.throws(() => clampJson([1, 2], { maxTokens: 3, tokenizer: (t) => t.length + 5 }), tooFew)
    // A result of several parts may count more than its empty text: the shortest one is over.
    assert.throws(() => hardTruncateToolPayload(blocks, { maxTokens: 5, tokenizer: (t) => t.length + 5 }), {
      name: 'RangeError',
      code: 'TOOLCLAMP_OUT_OF_RANGE',
      message: 'maxTokens is 5, but the tokenizer function counts more than that for the shortest result',
    })
  })

  test('a spill is written once, whole, and named by the kept notice', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-tokens-'))
    try {
      const reports = []
      const blocks = [
        { type: 'text', text: 'first\n'.repeat(3000) },
        { type: 'text', text: 'second 数据\n'.repeat(3000) },
      ]
      const clamped = hardTruncateToolPayload(blocks, {
        maxTokens: 200,
        tokenizer: 'cl100k_base',
        spill: { dir, onSpill: (r) => reports.push(r) },
      })
      assert.ok(tokensOfResult('cl100k_base', clamped) <= 200)
      const files = fs.readdirSync(dir)
      assert.equal(files.length, 1)
      assert.equal(reports.length, 1)
      assert.equal(fs.readFileSync(path.join(dir, files[0]), 'utf8'), blocks[0].text + blocks[1].text)
      assert.ok(clamped.some((b) => b.text.includes(files[0])))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a wrapped tool clamps within exact tokens, its errors too', async () => {
    const tool = wrapToolWithHardOutputTruncate(
      {
        name: 't',
        execute: async (id, params) => {
          if (params.fail) throw new Error(`failed: ${'数据 '.repeat(5000)}`)
          return { content: [{ type: 'text', text: 'QmFzZTY0 '.repeat(5000) }] }
        },
      },
      { maxTokens: 120, tokenizer: 'gpt-4o' },
    )
    const ok = await tool.execute('1', {})
    assert.ok(tokensOfResult('o200k_base', ok) <= 120)
    await assert.rejects(tool.execute('2', { fail: true }), (e) => oracle('o200k_base', e.message) <= 120)
  })

  test('a page under a wrapper within exact tokens continues right after what it keeps', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1} ${'数据 QmFzZTY0 '.repeat((i % 5) + 1)}`)
    const whole = lines.join('\n')
    let offset = 1
    const seen = []
    for (let guard = 0; guard < 1000 && offset !== null; guard++) {
      const page = readPartial(whole, { offset, maxBytes: 4000 })
      const cut = hardTruncateToolPayload(page.text, { maxTokens: 150, tokenizer: 'o200k_base' })
      assert.ok(oracle('o200k_base', cut) <= 150)
      const banner = cut.slice(0, cut.indexOf('\n'))
      const shown = cut.slice(cut.indexOf('\n') + 1)
      seen.push(shown)
      const next = /Continue with offset=(\d+)/.exec(banner)
      offset = next === null ? page.nextOffset : Number(next[1])
      if (next === null && cut === page.text && page.nextOffset === null) break
    }
    assert.equal(seen.join(''), whole)
  })
})

describe('JSON within exact tokens', () => {
  const value = fc.record({
    name: text(30),
    rows: fc.array(fc.record({ id: fc.integer(), note: text(12), big: fc.constant(1e21) }), { maxLength: 30 }),
  })

  test('clampJson: the rendered value is within maxTokens, and its count is reported', () => {
    fc.assert(
      fc.property(value, encoding, fc.integer({ min: 0, max: 300 }), fc.constantFrom(undefined, 2), (v, enc, max, space) => {
        const r = clampJson(v, { maxTokens: max, tokenizer: enc, space })
        const rendered = r.value === undefined ? '' : JSON.stringify(r.value, null, space)
        assert.equal(r.tokens.output, oracle(enc, rendered))
        assert.ok(r.tokens.output <= max)
        if (!r.truncated) assert.equal(r.value, v)
      }),
      { numRuns: CASES },
    )
  })

  test('clampJsonText: kept JSON keeps its exact text and is within maxTokens', () => {
    fc.assert(
      fc.property(value, encoding, fc.integer({ min: 0, max: 300 }), (v, enc, max) => {
        const source = JSON.stringify(v).replaceAll('1e+21', '1000000000000000000000.0')
        const r = clampJsonText(source, { maxTokens: max, tokenizer: enc })
        assert.equal(r.tokens.output, oracle(enc, r.text))
        assert.ok(r.tokens.output <= max)
        if (!r.truncated) assert.equal(r.text, source)
        // Numbers are kept as written, never re-rendered through JS numbers.
        assert.ok(!r.text.includes('1e+21'))
      }),
      { numRuns: CASES },
    )
  })

  test('clampJsonText of a text that is not JSON cuts it as text, exactly', () => {
    const r = clampJsonText(`not json ${'x y 数据 '.repeat(2000)}`, { maxTokens: 100, tokenizer: 'cl100k_base' })
    assert.equal(r.json, false)
    assert.ok(oracle('cl100k_base', r.text) <= 100)
    assert.equal(r.tokens.output, oracle('cl100k_base', r.text))
  })
})

describe('readPartial within exact tokens', () => {
  test('pages are within maxTokens, banner included, and read on without skipping', () => {
    fc.assert(
      fc.property(
        fc.array(text(40), { minLength: 1, maxLength: 60 }),
        encoding,
        fc.integer({ min: 100, max: 250 }),
        fc.boolean(),
        (lines, enc, max, bytes) => {
          const whole = lines.join('\n')
          const input = bytes ? Buffer.from(whole) : whole
          const pages = []
          let at = { offset: 1, column: 0 }
          for (let guard = 0; guard < 10_000; guard++) {
            const p = readPartial(input, { ...at, maxTokens: max, tokenizer: enc })
            assert.equal(p.tokens.output, oracle(enc, p.text))
            assert.ok(p.tokens.output <= max, `${p.tokens.output} > ${max}`)
            pages.push(p.page)
            if (p.nextOffset === null) break
            at = { offset: p.nextOffset, column: p.nextColumn }
          }
          assert.equal(pages.join(''), bytes ? Buffer.from(whole).toString() : whole)
        },
      ),
      { numRuns: Math.max(20, Math.floor(CASES / 3)) },
    )
  })

  test('a limit too small for a banner says so', () => {
    assert.throws(() => readPartial('x\n'.repeat(100), { maxTokens: 5, tokenizer: 'o200k_base' }), {
      name: 'RangeError',
      code: 'TOOLCLAMP_PAGE_TOO_SMALL',
      message: 'maxTokens must be enough tokens for a partial page (its banner line and one character), got 5',
    })
  })
})

describe('conversations in exact tokens', () => {
  const conversation = (texts) => {
    const messages = [{ role: 'user', content: 'go' }]
    texts.forEach((t, i) => {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read', arguments: '{}' } }],
      })
      messages.push({ role: 'tool', tool_call_id: `c${i}`, content: t })
    })
    return messages
  }

  test('tool results are kept within the shares as the tokenizer counts them', () => {
    fc.assert(
      fc.property(
        fc.array(text(300), { minLength: 1, maxLength: 5 }),
        encoding,
        fc.integer({ min: 200, max: 2000 }),
        (texts, enc, window) => {
          const messages = conversation(texts)
          const r = clampToolResultsInMessages(messages, { contextWindowTokens: window, tokenizer: enc, protectRecent: 0 })
          const after = r.messages.filter((m) => m.role === 'tool').map((m) => oracle(enc, m.content))
          const before = texts.map((t) => oracle(enc, t))
          if (r.exact) {
            assert.equal(
              r.tokensBefore,
              before.reduce((a, b) => a + b, 0),
            )
            assert.equal(
              r.tokensAfter,
              after.reduce((a, b) => a + b, 0),
            )
          } else assert.equal(r.messages, messages)
          if (r.fits) {
            assert.ok(after.every((n) => n <= Math.floor(window * 0.5)))
            assert.ok(after.reduce((a, b) => a + b, 0) <= Math.floor(window * 0.75) || !r.exact)
          }
        },
      ),
      { numRuns: Math.max(20, Math.floor(CASES / 3)) },
    )
  })

  test('base64 that the estimate counts at half of the window is cut to fit it', () => {
    const base64 = Buffer.from(Array.from({ length: 48_000 }, (_, i) => (i * 7919) % 251)).toString('base64')
    const messages = conversation([base64])
    const estimated = clampToolResultsInMessages(messages, { contextWindowTokens: 128_000 })
    assert.equal(estimated.changed, false)
    const exact = clampToolResultsInMessages(messages, { contextWindowTokens: 128_000, tokenizer: 'o200k_base', resultShare: 0.2 })
    assert.ok(exact.tokensBefore > 0.2 * 128_000)
    assert.equal(exact.tokensBefore, countTokens(base64, { tokenizer: 'o200k_base' }))
    assert.ok(exact.changed && exact.fits)
    assert.ok(countTokens(exact.messages[2].content, { tokenizer: 'o200k_base' }) <= 0.2 * 128_000)
  })

  test('estimateTokens counts with the tokenizer named', () => {
    const s = 'héllo wörld 数据 QmFzZTY0 😀'
    assert.equal(estimateTokens(s, { tokenizer: 'gpt-4o' }), oracle('o200k_base', s))
    assert.equal(estimateTokens(Buffer.from(s), { tokenizer: 'cl100k_base' }), oracle('cl100k_base', s))
    assert.equal(estimateTokens([{ type: 'text', text: s }], { tokenizer: (t) => t.length }), s.length)
    const message = { role: 'tool', tool_call_id: 'x', content: s }
    assert.equal(
      estimateTokens(message, { tokenizer: 'o200k_base' }),
      oracle('o200k_base', s) + oracle('o200k_base', '{"role":"tool","tool_call_id":"x","content":null}'),
    )
    assert.throws(() => estimateTokens(s, { tokenizer: 'nope' }), { name: 'RangeError', code: 'TOOLCLAMP_OUT_OF_RANGE' })
    assert.throws(() => estimateTokens(s, { maxTokens: 1 }), { name: 'TypeError', code: 'TOOLCLAMP_INVALID_ARGUMENT' })
  })

  test('recovery cuts tighter by exact tokens until the provider takes it', async () => {
    const messages = conversation(['数据 '.repeat(4000), 'QmFzZTY0'.repeat(2000)])
    const limit = 3000
    let calls = 0
    const send = async (sent) => {
      calls++
      const total = sent.reduce((n, m) => n + (typeof m.content === 'string' ? countTokens(m.content, { tokenizer: 'o200k_base' }) : 0), 0)
      if (total > limit)
        throw Object.assign(
          new Error(`This model's maximum context length is ${limit} tokens. However, your messages resulted in ${total} tokens.`),
          { status: 400 },
        )
      return 'ok'
    }
    const r = await withContextOverflowRecovery(send, { messages, contextWindowTokens: 100_000, tokenizer: 'o200k_base', maxAttempts: 4 })
    assert.equal(r.result, 'ok')
    assert.ok(calls >= 2)
  })
})

describe('notices in tokens', () => {
  const template = '[... {omittedTokens} of {totalTokens} tokens cut ...]'

  test('with an exact tokenizer, the counts are the input tokens, and those less the kept parts', () => {
    fc.assert(
      fc.property(
        text(300),
        encoding,
        fc.integer({ min: 0, max: 120 }),
        fc.constantFrom('head', 'tail', 'headTail'),
        (input, enc, max, strategy) => {
          const r = truncateText(input, { maxTokens: max, tokenizer: enc, notice: template, strategy })
          assert.ok(oracle(enc, r.text) <= max)
          if (!r.truncated) return
          const total = oracle(enc, input)
          const kept = oracle(enc, input.slice(0, r.headEnd)) + oracle(enc, input.slice(r.tailStart))
          const said = /\[\.\.\. ([\d,]+) of ([\d,]+) tokens cut \.\.\.\]/.exec(r.text)
          if (said === null) return // No room for the notice.
          assert.equal(said[2], total.toLocaleString('en-US'))
          assert.equal(said[1], Math.max(0, total - kept).toLocaleString('en-US'))
          assert.equal(r.tokens.total, total)
          assert.equal(r.tokens.totalExact, true)
        },
      ),
      { numRuns: CASES },
    )
  })

  test('on a long string too, whose cut otherwise reads only its ends', () => {
    const input = Array.from({ length: 60_000 }, (_, i) => `row ${i}: 数据 QmFzZTY0 ${i * 7}\n`).join('')
    assert.ok(input.length > 2 ** 20)
    const r = truncateText(input, { maxTokens: 300, tokenizer: 'o200k_base', notice: template })
    const total = fastOracle('o200k_base', input)
    const kept = fastOracle('o200k_base', input.slice(0, r.headEnd))
    assert.ok(r.text.endsWith(`[... ${(total - kept).toLocaleString('en-US')} of ${total.toLocaleString('en-US')} tokens cut ...]`))
    assert.ok(fastOracle('o200k_base', r.text) <= 300)
  })

  test('a counter function fills them in by its own count', () => {
    const input = 'abc\n'.repeat(500)
    const out = truncateText(input, { maxTokens: 100, tokenizer: (t) => t.length, notice: template, snap: 'line' })
    const kept = out.headEnd
    assert.match(out.text, new RegExp(`\\[\\.\\.\\. ${(2000 - kept).toLocaleString('en-US')} of 2,000 tokens cut \\.\\.\\.\\]$`))
    assert.ok(out.text.length <= 100)
  })

  test('without a tokenizer they are estimated from the bytes', () => {
    const input = '数据 '.repeat(1000)
    const r = truncateText(input, { maxBytes: 100, notice: '{omittedTokens}/{totalTokens}' })
    const omittedBytes = r.totalBytes - Buffer.byteLength(input.slice(0, r.headEnd))
    assert.ok(
      r.text.endsWith(`${Math.ceil(omittedBytes / 3).toLocaleString('en-US')}/${Math.ceil(r.totalBytes / 3).toLocaleString('en-US')}`),
    )
  })
})

describe('naming a tokenizer', () => {
  const expected = '"estimate", "o200k_base", "cl100k_base", an OpenAI model name or a function'

  test('an encoding by its name in any case; a name it starts or a typo away is suggested', () => {
    assert.equal(truncateText('abc def', { maxTokens: 1, tokenizer: 'O200K_Base' }).tokens.tokenizer, 'o200k_base')
    for (const [name, near] of [
      ['o200k', 'o200k_base'],
      ['cl100k', 'cl100k_base'],
      ['o200k_bse', 'o200k_base'],
    ]) {
      assert.throws(() => truncateText('abc', { maxTokens: 1, tokenizer: name }), {
        name: 'RangeError',
        code: 'TOOLCLAMP_OUT_OF_RANGE',
        message: `tokenizer must be ${expected}, got "${name}"; did you mean "${near}"?`,
      })
    }
    assert.throws(() => truncateText('abc', { maxTokens: 1, tokenizer: 'llama3' }), {
      message: `tokenizer must be ${expected}, got "llama3"`,
    })
  })

  test('a tokenizer with no maxTokens to count is refused, not ignored', () => {
    const alone = (prefix = '') => ({
      name: 'TypeError',
      code: 'TOOLCLAMP_INVALID_ARGUMENT',
      message: `${prefix}tokenizer counts ${prefix}maxTokens: give ${prefix}maxTokens too, or no tokenizer`,
    })
    assert.throws(() => truncateText('abc', { maxBytes: 10, tokenizer: 'o200k_base' }), alone())
    assert.throws(() => hardTruncateToolPayload('abc', { tokenizer: 'gpt-4o' }), alone())
    assert.throws(() => clampJson([1], { tokenizer: (t) => t.length }), alone())
    assert.throws(() => readPartial('abc', { tokenizer: 'cl100k_base' }), alone())
    // The estimate counts nothing either way.
    assert.equal(truncateText('abc', { maxBytes: 10, tokenizer: 'estimate' }).text, 'abc')
  })
})
