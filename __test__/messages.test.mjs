// Tool results across a conversation: clampToolResultsInMessages in every message format,
// its budgets against a reference of the rules written here, never mutating, spill files;
// withContextOverflowRecovery; estimateTokens; maxTokens on the limits objects.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import fc from 'fast-check'

import { ToolMessage } from '@langchain/core/messages'
import { truncateText, hardTruncateToolPayload, clampJson, pruneSpillDir } from '../index.mjs'
import { clampToolResultsInMessages, withContextOverflowRecovery, estimateTokens } from '../conversation.mjs'
import { deepFreeze } from './helpers.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 200)

/** The reference estimate: one token per 3 UTF-8 bytes, rounded up. */
const tokensOf = (text) => Math.ceil(Buffer.byteLength(text) / 3)

/** A log of `lines` lines of 80 bytes (79 chars and a newline). */
const log = (lines, c = 'x') => `${c.repeat(79)}\n`.repeat(lines)

const piResult = (id, text, extra = []) => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: 'bash',
  content: [{ type: 'text', text }, ...extra],
  isError: false,
  timestamp: 1,
})
const piCall = (id) => ({ role: 'assistant', content: [{ type: 'toolCall', id, name: 'bash', arguments: { command: 'ls' } }] })

/** The text of a pi tool result's text blocks. */
const piText = (message) =>
  message.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('')

describe('clampToolResultsInMessages', () => {
  test('each result within its share, all within the aggregate, the oldest cut first', () => {
    const messages = deepFreeze([
      { role: 'user', content: 'build it' },
      piCall('a'),
      piResult('a', log(3000)), // 80,000 tokens
      piCall('b'),
      piResult('b', log(3000)),
      piCall('c'),
      piResult('c', log(150)), // 4,000 tokens
    ])
    const {
      messages: out,
      changed,
      results,
      tokensBefore,
      tokensAfter,
      savedTokens,
      fits,
    } = clampToolResultsInMessages(messages, { contextWindowTokens: 200_000 })
    assert.equal(changed, true)
    assert.equal(fits, true)
    // 60,000 a result, 100,000 in all: b keeps its cap, a gives what is over.
    const after = [2, 4, 6].map((i) => tokensOf(piText(out[i])))
    assert.ok(after[0] <= 100_000 - 60_000 - 4_000, `${after}`)
    assert.ok(after[1] <= 60_000 && after[1] > 59_000, `${after}`)
    assert.equal(out[6], messages[6])
    assert.ok(after.reduce((a, b) => a + b) <= 100_000)
    assert.deepEqual(
      results.map((r) => r.action),
      ['clamped', 'clamped', 'kept'],
    )
    assert.deepEqual(
      results.map((r) => r.tokensAfter),
      after,
    )
    assert.equal(tokensBefore, 164_000)
    assert.equal(
      tokensAfter,
      after.reduce((a, b) => a + b),
    )
    assert.equal(savedTokens, tokensBefore - tokensAfter)
    // Pairs intact and in order; everything but the results is the same object.
    assert.equal(out.length, messages.length)
    for (const i of [0, 1, 3, 5]) assert.equal(out[i], messages[i])
    assert.deepEqual(
      out.map((m) => m.toolCallId),
      messages.map((m) => m.toolCallId),
    )
    // Cut on whole lines, with a notice.
    assert.match(piText(out[2]), /^(x{79}\n)+\[\.\.\. [\d,]+ bytes truncated at the end \.\.\.\]$/)
  })

  test('the same array when nothing needs cutting, measured or proven by lengths', () => {
    const small = deepFreeze([piCall('a'), piResult('a', 'ok\n'), { role: 'user', content: 'thanks' }])
    const r = clampToolResultsInMessages(small, { contextWindowTokens: 1000 })
    assert.equal(r.messages, small)
    assert.equal(r.changed, false)
    assert.equal(r.exact, false)
    assert.equal(r.savedTokens, 0)
    // ASCII over the bound of one token a char but within 3 chars a token: measured, kept.
    const measured = deepFreeze([piResult('a', 'y'.repeat(2_000))])
    const m = clampToolResultsInMessages(measured, { contextWindowTokens: 3_000, resultShare: 0.5 })
    assert.equal(m.messages, measured)
    assert.equal(m.exact, true)
    assert.equal(m.results[0].tokensBefore, 667)
  })

  test('elided results keep their media and say how to get the output back', () => {
    const image = { type: 'image', data: 'iVBORw0KGgo='.repeat(10), mimeType: 'image/png' }
    const messages = deepFreeze([piResult('a', log(1000), [image]), piResult('b', log(1000)), piResult('c', log(100))])
    const r = clampToolResultsInMessages(messages, { contextWindowTokens: 100_000, aggregateShare: 0.3, protectRecent: 1 })
    assert.deepEqual(
      r.results.map((x) => x.action),
      ['elided', 'clamped', 'kept'],
    )
    const first = r.messages[0].content
    assert.equal(first.length, 2)
    assert.equal(first[1], image)
    assert.equal(
      first[0].text,
      '[tool output elided to fit the context window: 80,000 chars, 1,000 lines, about 26,667 tokens; rerun the tool to see it again]',
    )
    assert.ok(r.tokensAfter <= 30_000)
  })

  test('spill: the original is saved (0600) and the notice or marker names it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toolclamp-messages-'))
    try {
      const a = log(1000, 'a')
      const b = log(2000, 'b')
      const messages = deepFreeze([piResult('a', a), piResult('b', b)])
      const options = {
        contextWindowTokens: 100_000,
        aggregateShare: 0.45,
        resultShare: 0.4,
        protectRecent: 0,
        // a would keep 5,000 tokens (15,000 chars): fewer than this, so it is elided.
        minKeepChars: 20_000,
        spill: { dir },
      }
      const r = clampToolResultsInMessages(messages, options)
      assert.deepEqual(
        r.results.map((x) => x.action),
        ['elided', 'clamped'],
      )
      const [ra, rb] = r.results
      assert.equal(readFileSync(ra.spillPath, 'utf8'), a)
      assert.equal(readFileSync(rb.spillPath, 'utf8'), b)
      for (const file of [ra.spillPath, rb.spillPath]) {
        assert.equal(path.dirname(file), dir)
        assert.equal(statSync(file).mode & 0o777, 0o600)
        assert.match(path.basename(file), /^bash-/)
      }
      assert.ok(piText(r.messages[0]).endsWith(`the full output is saved in ${ra.spillPath}]`))
      assert.ok(piText(r.messages[1]).includes(`full output saved to ${rb.spillPath}`))
      assert.ok(tokensOf(piText(r.messages[1])) <= 40_000)
      // Clamped again before the next model call: the same files, the same text (a stable
      // prompt for the provider's cache), and no new file.
      const again = clampToolResultsInMessages(messages, options)
      assert.deepEqual(again.messages, r.messages)
      assert.deepEqual(readdirSync(dir).sort(), [ra.spillPath, rb.spillPath].map((f) => path.basename(f)).sort())
      // Old content-named files are pruned like any spill file.
      assert.deepEqual(pruneSpillDir(dir, { maxAgeMs: 0 }).sort(), [ra.spillPath, rb.spillPath].sort())
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('every message format', async () => {
    const big = log(5000)
    const messages = deepFreeze([
      // AI SDK ModelMessage / LanguageModelV3 prompt.
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'ai1', toolName: 'read', output: { type: 'text', value: big } },
          { type: 'tool-result', toolCallId: 'ai2', toolName: 'read', output: { type: 'json', value: { rows: big.split('\n') } } },
          {
            type: 'tool-result',
            toolCallId: 'ai3',
            toolName: 'shot',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: big },
                { type: 'image-data', data: 'AAAA', mediaType: 'image/png' },
              ],
            },
          },
        ],
      },
      // OpenAI Chat Completions.
      { role: 'assistant', content: null, tool_calls: [{ id: 'oc', type: 'function', function: { name: 'read_logs', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'oc', content: big },
      { role: 'tool', tool_call_id: 'oc2', content: [{ type: 'text', text: big }] },
      // OpenAI Responses.
      { type: 'function_call_output', call_id: 'or', output: big },
      // Anthropic Messages.
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'an', content: [{ type: 'text', text: big }] },
          { type: 'tool_result', tool_use_id: 'an2', content: big },
          { type: 'text', text: 'continue' },
        ],
      },
    ])
    const lc = new ToolMessage({ content: big, tool_call_id: 'lc' })
    const all = [...messages, lc]
    const r = clampToolResultsInMessages(all, { contextWindowTokens: 1_000_000, resultShare: 0.01, aggregateShare: 1 })
    assert.deepEqual(
      r.results.map((x) => [x.format, x.toolCallId, x.partIndex]),
      [
        ['ai-sdk', 'ai1', 0],
        ['ai-sdk', 'ai2', 1],
        ['ai-sdk', 'ai3', 2],
        ['openai-chat', 'oc', undefined],
        ['openai-chat', 'oc2', undefined],
        ['openai-responses', 'or', undefined],
        ['anthropic', 'an', 0],
        ['anthropic', 'an2', 1],
        ['langchain', 'lc', undefined],
      ],
    )
    for (const x of r.results) {
      assert.equal(x.action, 'clamped', x.toolCallId)
      assert.ok(x.tokensAfter <= 10_000, `${x.toolCallId}: ${x.tokensAfter}`)
    }
    assert.equal(r.results[3].toolName, 'read_logs', 'named after the call it answers')
    const [ai, , oc, oc2, or, an, out] = r.messages
    assert.equal(ai.content[0].output.type, 'text')
    assert.ok(tokensOf(ai.content[0].output.value) <= 10_000)
    assert.equal(ai.content[1].output.type, 'json')
    assert.ok(tokensOf(JSON.stringify(ai.content[1].output.value)) <= 10_000)
    assert.equal(ai.content[2].output.value[1], messages[0].content[2].output.value[1], 'the image part is kept')
    assert.ok(tokensOf(oc.content) <= 10_000 && tokensOf(oc2.content[0].text) <= 10_000 && tokensOf(or.output) <= 10_000)
    assert.equal(oc.tool_call_id, 'oc')
    assert.equal(an.content[2], messages[5].content[2])
    assert.ok(tokensOf(an.content[0].content[0].text) <= 10_000 && tokensOf(an.content[1].content) <= 10_000)
    assert.ok(out instanceof ToolMessage)
    assert.equal(out.tool_call_id, 'lc')
    assert.ok(tokensOf(out.content) <= 10_000)
    assert.equal(lc.content, big, 'the LangChain message is not mutated')
  })

  test('options fail loudly', () => {
    const cases = [
      [undefined, TypeError, 'options must be an object with contextWindowTokens, got undefined'],
      [{}, TypeError, 'contextWindowTokens is required'],
      [{ contextWindowTokens: 0 }, RangeError, 'contextWindowTokens must be a positive integer, got 0'],
      [{ contextWindowTokens: 1.5 }, RangeError, 'contextWindowTokens must be a positive integer, got 1.5'],
      [{ contextWindowTokens: -1 }, RangeError, 'contextWindowTokens must be a positive integer, got -1'],
      [{ contextWindowTokens: Infinity }, RangeError, 'contextWindowTokens must be a positive integer, got Infinity'],
      [{ contextWindowTokens: '128k' }, TypeError, 'contextWindowTokens must be a positive integer, got "128k"'],
      [{ contextWindowTokens: 100, resultShare: 0 }, RangeError, 'resultShare must be a number above 0 and at most 1, got 0'],
      [{ contextWindowTokens: 100, aggregateShare: '0.5' }, TypeError, 'aggregateShare must be a number above 0 and at most 1, got "0.5"'],
      [{ contextWindowTokens: 100, protectRecent: -1 }, RangeError, 'protectRecent must be a non-negative integer or Infinity, got -1'],
      [{ contextWindowTokens: 100, minKeepChars: Infinity }, RangeError, 'minKeepChars must be a non-negative integer, got Infinity'],
      [{ contextWindowTokens: 100, contextWindow: 5 }, TypeError, /^unknown option "contextWindow"; expected one of contextWindowTokens, /],
      [{ contextwindowtokens: 100 }, TypeError, 'unknown option "contextwindowtokens"; did you mean "contextWindowTokens"?'],
      [{ contextWindowTokens: 100, strategy: 'middle' }, TypeError, 'strategy must be "head", "tail", "headTail" or "auto", got "middle"'],
    ]
    for (const [options, type, message] of cases) {
      assert.throws(
        () => clampToolResultsInMessages([], options),
        (e) => e instanceof type && (typeof message === 'string' ? e.message === message : message.test(e.message)),
        JSON.stringify(options),
      )
    }
    assert.throws(() => clampToolResultsInMessages('hi', { contextWindowTokens: 100 }), {
      name: 'TypeError',
      message: 'messages must be an array, got "hi"',
    })
  })

  test('hostile messages: a throwing getter, a revoked proxy, a cycle', () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    const throwing = {
      role: 'toolResult',
      get content() {
        throw new Error('boom')
      },
    }
    const cyclic = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'x', toolName: 't', output: { type: 'json', value: {} } }] }
    cyclic.content[0].output.value.self = cyclic.content[0].output.value
    cyclic.content[0].output.value.log = log(2000)
    const messages = [proxy, throwing, cyclic, piResult('a', log(2000)), null, 42]
    const r = clampToolResultsInMessages(messages, { contextWindowTokens: 20_000 })
    assert.equal(r.messages[0], proxy)
    assert.equal(r.messages[1], throwing)
    assert.ok(
      r.results.every((x) => x.tokensAfter <= 6_000),
      JSON.stringify(r.results),
    )
    assert.equal(r.messages[4], null)
  })

  test('property: within budget, oldest first, never mutating, as the reference plans', () => {
    const result = fc.record({
      lines: fc.nat({ max: 400 }),
      width: fc.integer({ min: 1, max: 120 }),
      wide: fc.boolean(),
      images: fc.nat({ max: 2 }),
    })
    fc.assert(
      fc.property(
        fc.array(result, { maxLength: 8 }),
        fc.integer({ min: 2_000, max: 40_000 }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.nat({ max: 3 }),
        fc.nat({ max: 3000 }),
        (specs, window, resultShare, aggregateShare, protectRecent, minKeepChars) => {
          const messages = deepFreeze(
            specs.map((s, i) =>
              piResult(
                `t${i}`,
                `${(s.wide ? '界' : 'x').repeat(s.width)}\n`.repeat(s.lines),
                Array.from({ length: s.images }, () => ({ type: 'image', data: 'AAAA', mimeType: 'image/png' })),
              ),
            ),
          )
          const options = { contextWindowTokens: window, resultShare, aggregateShare, protectRecent, minKeepChars }
          const r = clampToolResultsInMessages(messages, options)
          const perResult = Math.floor(window * resultShare)
          const aggregate = Math.floor(window * aggregateShare)
          const cost = (m) => tokensOf(piText(m)) + 1600 * m.content.filter((b) => b.type === 'image').length
          const costs = r.messages.map(cost)
          if (r.exact) {
            assert.deepEqual(
              r.results.map((x) => x.tokensAfter),
              costs,
            )
            assert.equal(
              r.tokensAfter,
              costs.reduce((a, b) => a + b, 0),
            )
          } else {
            // Proven by lengths: nothing measured, the counts bound the estimate.
            assert.equal(r.messages, messages)
            r.results.forEach((x, i) => assert.ok(costs[i] <= x.tokensAfter))
          }
          // Media and markers are all that can stay over.
          const least = (i) => Math.min(tokensOf(piText(messages[i])), 60) + 1600 * specs[i].images
          if (r.fits) {
            assert.ok(r.tokensAfter <= aggregate)
            assert.ok(costs.every((c) => c <= perResult))
          } else {
            assert.ok(
              costs.some((c, i) => c > perResult && r.results[i].action !== 'clamped') ||
                r.results.every((x, i) => x.action !== 'clamped' || costs[i] <= least(i) + 100),
            )
          }
          // Same objects where kept; images kept everywhere.
          r.results.forEach((x, i) => {
            if (x.action === 'kept') assert.equal(r.messages[i], messages[i])
            assert.deepEqual(
              r.messages[i].content.filter((b) => b.type === 'image'),
              messages[i].content.filter((b) => b.type === 'image'),
            )
            assert.equal(r.messages[i].toolCallId, `t${i}`)
          })
          // The oldest first: a result elided by the aggregate pass has no kept-whole older
          // unprotected result that could have given more.
          const protectedFrom = Math.max(0, specs.length - protectRecent)
          const lastElided = r.results.findLastIndex((x, i) => i < protectedFrom && x.action === 'elided' && cost(messages[i]) <= perResult)
          for (let i = 0; i < lastElided; i++) {
            assert.ok(r.results[i].action !== 'kept' || costs[i] <= least(i) + 60, `result ${i} kept whole before ${lastElided} was elided`)
          }
          if (!r.changed) assert.equal(r.messages, messages)
        },
      ),
      { numRuns: Math.min(RUNS, 300) },
    )
  })
})

describe('withContextOverflowRecovery', () => {
  const overflow = (requested, limit) =>
    Object.assign(new Error(`prompt is too long: ${requested} tokens > ${limit} maximum`), { status: 400 })

  test('retries with tighter tool results until the provider accepts', async () => {
    const messages = deepFreeze([piCall('a'), piResult('a', log(4000)), piCall('b'), piResult('b', log(4000))])
    const seen = []
    const limit = 60_000
    const {
      result,
      messages: sent,
      attempts,
    } = await withContextOverflowRecovery(
      async (m) => {
        seen.push(m)
        const tokens = m.reduce((sum, x) => sum + (x.role === 'toolResult' ? tokensOf(piText(x)) : 10), 0)
        if (tokens > limit) throw overflow(tokens, limit)
        return 'answer'
      },
      { messages, contextWindowTokens: 400_000 },
    )
    assert.equal(result, 'answer')
    assert.equal(seen[0], messages, 'the first call sends the messages as given')
    assert.equal(sent, seen.at(-1))
    assert.ok(seen.length >= 2 && seen.length <= 3)
    assert.equal(attempts.length, seen.length)
    assert.equal(attempts[0].error.kind, 'context_overflow')
    assert.equal(attempts[0].error.requestedTokens, 213_354)
    assert.ok(attempts[0].savedTokens > 0)
    assert.equal(attempts.at(-1).error, null)
  })

  test('a rate limit or another error is thrown as it came, after one call', async () => {
    for (const error of [
      Object.assign(new Error('Rate limit reached for gpt-4o: Limit 30000, Used 29000, Requested 5000 tokens per min (TPM)'), {
        status: 429,
      }),
      new Error('socket hang up'),
    ]) {
      let calls = 0
      await assert.rejects(
        withContextOverflowRecovery(
          async () => {
            calls++
            throw error
          },
          { messages: [piResult('a', log(4000))], contextWindowTokens: 10_000 },
        ),
        (e) => e === error,
      )
      assert.equal(calls, 1)
    }
  })

  test('gives up after maxAttempts, or when nothing is left to cut, with the provider error', async () => {
    const error = overflow(300_000, 200_000)
    let calls = 0
    const send = async () => {
      calls++
      throw error
    }
    await assert.rejects(
      withContextOverflowRecovery(send, { messages: [piResult('a', log(4000))], contextWindowTokens: 200_000, maxAttempts: 2 }),
      (e) => e === error,
    )
    assert.equal(calls, 2)
    calls = 0
    await assert.rejects(
      withContextOverflowRecovery(send, { messages: [{ role: 'user', content: 'hi' }], contextWindowTokens: 200_000 }),
      (e) => e === error,
    )
    assert.equal(calls, 1, 'no tool result to cut: no retry')
    await assert.rejects(withContextOverflowRecovery(send, { messages: [], contextWindowTokens: 100, maxAttempts: 0 }), {
      name: 'RangeError',
      message: 'maxAttempts must be an integer of at least 1, got 0',
    })
  })
})

describe('estimateTokens and maxTokens', () => {
  test('estimates: 3 bytes a token, CJK a token a char, media 1,600', () => {
    assert.equal(estimateTokens(''), 0)
    assert.equal(estimateTokens('abcd'), 2)
    assert.equal(estimateTokens('上下左右'), 4)
    assert.equal(estimateTokens(Buffer.from('abcdefg')), 3)
    assert.equal(
      estimateTokens([
        { type: 'text', text: 'abc' },
        { type: 'image', data: 'A'.repeat(10_000), mimeType: 'image/png' },
      ]),
      1601,
    )
    assert.equal(estimateTokens({ type: 'text', value: 'abcdef' }), 2)
    assert.equal(estimateTokens({ a: [1, 2] }), 4) // {"a":[1,2]}
  })

  test('a conversation or a message: media 1,600 wherever it sits, never its base64', () => {
    const screenshot = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(3_000_000) } }
    const user = { role: 'user', content: [{ type: 'text', text: 'what is on screen?' }, screenshot] }
    const rest = (m) => tokensOf(JSON.stringify({ ...m, content: null }))
    assert.equal(estimateTokens(user), tokensOf('what is on screen?') + 1600 + rest(user))
    const answer = { role: 'assistant', content: 'a login form' }
    assert.equal(estimateTokens([user, answer]), estimateTokens(user) + tokensOf('a login form') + rest(answer))
    const pi = piResult('a', 'abc', [{ type: 'image', data: 'A'.repeat(1_000_000), mimeType: 'image/png' }])
    assert.ok(estimateTokens([pi]) < 1700)
    const item = { type: 'function_call_output', call_id: 'c', output: 'x'.repeat(300) }
    assert.equal(estimateTokens([item]), 100 + tokensOf(JSON.stringify({ ...item, output: null })))
  })

  test('property: maxTokens bounds the estimate of what truncateText, payloads and clampJson return', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.nat({ max: 120 }), (text, maxTokens) => {
        const out = truncateText(text, { maxTokens, strategy: 'headTail' }).text
        assert.ok(estimateTokens(out) <= maxTokens)
        assert.equal(estimateTokens(out), tokensOf(out))
        assert.ok(estimateTokens(hardTruncateToolPayload(text, { maxTokens })) <= maxTokens)
        if (maxTokens >= 20) assert.ok(tokensOf(JSON.stringify(clampJson({ text }, { maxTokens }).value)) <= maxTokens)
      }),
      { numRuns: RUNS },
    )
  })
})

test('a tool result that is JSON text is cut as JSON and still parses', () => {
  const text = JSON.stringify({ stdout: 'PASS src/a.test.ts\n'.repeat(100_000), exitCode: 1 })
  const messages = deepFreeze([
    { role: 'user', content: 'go' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 't', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c', content: text },
  ])
  const r = clampToolResultsInMessages(messages, { contextWindowTokens: 32_000 })
  assert.equal(r.results[0].action, 'clamped')
  const kept = r.messages[2].content
  const parsed = JSON.parse(kept)
  assert.equal(parsed.exitCode, 1, 'the small member is kept whole')
  assert.ok(parsed.stdout.startsWith('PASS src/a.test.ts\n'))
  assert.ok(Math.ceil(Buffer.byteLength(kept) / 3) <= 32_000 * 0.3)
  // Text that only starts like JSON is cut as text.
  const notJson = deepFreeze([{ role: 'tool', tool_call_id: 'd', content: `[INFO] ${'line\n'.repeat(100_000)}` }])
  assert.match(clampToolResultsInMessages(notJson, { contextWindowTokens: 32_000 }).messages[0].content, /^\[INFO\] line\n/)
})

test('a result that says it failed keeps its end by default, in every format that says so', () => {
  // A long log whose last line is the error; nothing in the text itself reads as a failure
  // to `auto`, so only the result's own flag can keep it.
  const text = `${'compiling module\n'.repeat(20_000)}the build stopped: E_UPSTREAM\n`
  const last = 'the build stopped: E_UPSTREAM'
  const window = { contextWindowTokens: 20_000 }
  const cases = [
    [{ ...piResult('a', text), isError: true }, (m) => piText(m), { ...piResult('a', text) }],
    [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: text, is_error: true }] },
      (m) => m.content[0].content,
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: text }] },
    ],
    [
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'error-text', value: text } }] },
      (m) => m.content[0].output.value,
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 't', output: { type: 'text', value: text } }] },
    ],
    [
      new ToolMessage({ content: text, tool_call_id: 'a', status: 'error' }),
      (m) => m.content,
      new ToolMessage({ content: text, tool_call_id: 'a' }),
    ],
  ]
  for (const [failed, textOf, succeeded] of cases) {
    const kept = textOf(clampToolResultsInMessages([failed], window).messages[0])
    assert.ok(kept.endsWith(`${last}\n`) || kept.endsWith(last), kept.slice(-200))
    assert.ok(kept.startsWith('compiling module\n'))
    // The head gets about 30% of what is kept.
    const head = kept.slice(0, kept.indexOf('[...'))
    assert.ok(head.length < kept.length * 0.45, `${head.length} of ${kept.length}`)
    // The same result without the flag keeps its head only.
    const plain = textOf(clampToolResultsInMessages([succeeded], window).messages[0])
    assert.ok(!plain.includes(last))
    // A strategy given is used for failures too.
    assert.ok(!textOf(clampToolResultsInMessages([failed], { ...window, strategy: 'head' }).messages[0]).includes(last))
  }
})
