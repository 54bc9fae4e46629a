// Exact tokens: counts equal to the reference tokenizer (js-tiktoken, the test oracle) on
// every corpus text and on thousands of random strings, for both encodings; cuts under
// maxTokens whose result the oracle counts within the budget, with its own count reported;
// model names, counter functions, and the errors of every option a tokenizer can go wrong in.
// FC_RUNS sets the runs of the cut properties (each run costs a few oracle counts).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Worker } from 'node:worker_threads'
import fc from 'fast-check'

import { formatExecOutput, stringTruncateHead, stringTruncateHeadTail, stringTruncateTail, truncateText } from '../index.mjs'
import { countTokens } from '../conversation.mjs'
import { CORPUS } from './token-corpus.mjs'
import { ENCODINGS, fastOracle, oracle } from './token-oracle.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
// A cut costs a few oracle counts of its result: a hundredth of the runs, at least 100.
const CUT_RUNS = Math.max(100, Math.floor(RUNS / 100))

// Pieces that exercise every alternative of both split patterns, and the seams between them.
const ATOMS = [
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\r',
  '\t',
  '\u3000',
  '\ufeff',
  '\u0085',
  '\u00a0',
  'a',
  'Ab',
  'ABC',
  'xyz',
  "'s",
  "'S",
  "'ll",
  "'Re",
  "'",
  '1',
  '23',
  '4567',
  '٣',
  '½',
  'é',
  'e\u0301',
  '\u0301',
  'ǅ',
  'ʰ',
  '中文',
  '𠀀',
  '😀',
  '👨‍👩‍👧',
  '\ud800',
  '\udc00',
  '/',
  '//',
  '.',
  '!?',
  '<|endoftext|>',
  '<|im_start|>',
  'ſ',
  'K',
  'ß',
  'İ',
  '\u2028',
  'ก',
  'क्षि',
  'مرحبا',
  ' the',
  ' tokenizer',
  'QUJDRA==',
  '0x1f',
  '\x1b[31m',
]
const atom = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...ATOMS) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)) },
)
/** `fn` throws a `Type` with exactly `message`, and the code of its type. */
function throwsExactly(fn, Type, message) {
  const code = Type === RangeError ? 'TOOLCLAMP_OUT_OF_RANGE' : 'TOOLCLAMP_INVALID_ARGUMENT'
  assert.throws(fn, (e) => e instanceof Type && e.message === message && e.code === code, message)
}

const tokenText = (maxLength) => fc.array(atom, { maxLength }).map((parts) => parts.join(''))

describe('counts equal the reference tokenizer', () => {
  for (const encoding of ENCODINGS) {
    test(`${encoding}: every text of the corpus`, () => {
      for (const [kind, text] of Object.entries(CORPUS)) {
        assert.equal(countTokens(text, { tokenizer: encoding }), fastOracle(encoding, text), kind)
        // Where tiktoken's own port can count (no long pieces), it agrees: 2 KiB of each line.
        for (const line of text.split('\n').filter((l) => l.length < 2048)) {
          assert.equal(countTokens(line, { tokenizer: encoding }), oracle(encoding, line), `${kind}: ${line}`)
        }
      }
    })

    test(`${encoding}: 5,000 random strings, every one`, () => {
      // A fixed number of strings, whatever FC_RUNS: equality is the claim, not a sample rate.
      const strings = fc.sample(tokenText(40), { numRuns: 5000, seed: 20261126 })
      let equal = 0
      for (const text of strings) {
        const got = countTokens(text, { tokenizer: encoding })
        assert.equal(got, oracle(encoding, text), JSON.stringify(text))
        equal++
      }
      assert.equal(equal, 5000)
    })
  }

  test('long pieces (runs of one letter, of spaces, of newlines and spaces) count as the reference does', () => {
    // Past 256 bytes a piece is merged another way (crates/toolclamp-core/src/tokens/vocab.rs).
    // The oracle merges a piece in quadratic time or worse: a second for about 1,000 chars.
    for (const text of ['a'.repeat(1000), ' '.repeat(1000), `x${'\n '.repeat(500)}`, 'ab'.repeat(500), 'QUJD'.repeat(300)]) {
      for (const encoding of ENCODINGS) assert.equal(countTokens(text, { tokenizer: encoding }), oracle(encoding, text))
    }
  })

  test('model names count with their encoding', () => {
    const text = CORPUS['English prose'].slice(0, 2000) + CORPUS['CJK, rare'].slice(0, 500)
    for (const model of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-5', 'gpt-5-mini', 'o1', 'o3', 'o4-mini', 'openai/gpt-4o']) {
      assert.equal(countTokens(text, { tokenizer: model }), fastOracle('o200k_base', text), model)
    }
    for (const model of ['gpt-4', 'gpt-4-turbo', 'gpt-3.5-turbo']) {
      assert.equal(countTokens(text, { tokenizer: model }), fastOracle('cl100k_base', text), model)
    }
  })

  test('a worker thread counts with the vocabulary the process loaded', async () => {
    const text = CORPUS['emoji and ZWJ sequences'].slice(0, 4000)
    const url = new URL('../conversation.js', import.meta.url)
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads')
       const { countTokens } = require(workerData.url)
       parentPort.postMessage(countTokens(workerData.text, { tokenizer: 'cl100k_base' }))`,
      { eval: true, workerData: { url: url.pathname, text } },
    )
    const [count] = await new Promise((resolve, reject) => {
      worker.once('message', (m) => resolve([m]))
      worker.once('error', reject)
    })
    await worker.terminate()
    assert.equal(count, fastOracle('cl100k_base', text))
  })
})

describe('cuts under maxTokens', () => {
  const strategies = fc.constantFrom('head', 'tail', 'headTail')

  test('the result has at most maxTokens as the reference counts it, and says how many', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ENCODINGS), tokenText(80), fc.nat(60), strategies, (encoding, text, max, strategy) => {
        const r = truncateText(text, { maxTokens: max, tokenizer: encoding, strategy })
        const real = oracle(encoding, r.text)
        assert.ok(real <= max, `${real} > ${max}`)
        assert.equal(r.tokens.output, real)
        assert.equal(r.tokens.tokenizer, encoding)
        const whole = oracle(encoding, text)
        if (whole <= max) {
          assert.equal(r.text, text)
          assert.equal(r.truncated, false)
        } else {
          assert.ok(r.truncated && r.truncatedBy.includes('tokens'))
          // The kept parts are the input's own, cut at safe places.
          assert.ok(r.text.startsWith(text.slice(0, r.headEnd)) && r.text.endsWith(text.slice(r.tailStart)))
          for (const at of [r.headEnd, r.tailStart]) {
            assert.ok(!(/[\ud800-\udbff]/.test(text[at - 1] ?? '') && /[\udc00-\udfff]/.test(text[at] ?? '')))
            assert.ok(!(text[at - 1] === '\r' && text[at] === '\n'))
          }
        }
        if (r.tokens.totalExact) assert.equal(r.tokens.total, whole)
        else assert.ok(r.tokens.total <= whole)
      }),
      { numRuns: CUT_RUNS },
    )
  })

  test('one more char (head) or one char earlier (tail) would go over', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ENCODINGS), tokenText(80), fc.integer({ min: 12, max: 60 }), (encoding, text, max) => {
        for (const strategy of ['head', 'tail']) {
          const r = truncateText(text, { maxTokens: max, tokenizer: encoding, strategy })
          if (!r.truncated) continue
          // The same clamp by bytes at one more byte than it kept keeps one more char, or a
          // longer notice where one now fits: over the tokens either way.
          const next = truncateText(text, { maxBytes: r.outputBytes + 1, strategy })
          if (next.text !== r.text && (next.headEnd > r.headEnd || next.tailStart < r.tailStart)) {
            assert.ok(oracle(encoding, next.text) > max, `${strategy}: ${JSON.stringify(next.text)} fits`)
          }
        }
      }),
      { numRuns: CUT_RUNS },
    )
  })

  test('the string functions cut within maxTokens and return the text itself when it fits', () => {
    const text = CORPUS['minified JS'].slice(0, 6000)
    for (const [fn, encoding] of [
      [stringTruncateHead, 'o200k_base'],
      [stringTruncateTail, 'cl100k_base'],
      [stringTruncateHeadTail, 'gpt-4o'],
    ]) {
      const out = fn(text, { maxTokens: 300, tokenizer: encoding })
      const tokens = fastOracle(encoding === 'gpt-4o' ? 'o200k_base' : encoding, out)
      assert.ok(tokens <= 300 && tokens > 290, `${fn.name}: ${tokens}`)
      assert.equal(fn(text, { maxTokens: 1_000_000, tokenizer: encoding }), text)
    }
  })

  test('other limits still hold beside tokens', () => {
    const text = CORPUS.Python
    const r = truncateText(text, { maxTokens: 2000, maxLines: 20, tokenizer: 'o200k_base' })
    assert.ok(r.outputLines <= 20 && fastOracle('o200k_base', r.text) <= 2000)
    assert.deepEqual(r.truncatedBy, ['lines'])
  })

  test('a head cut of 16 MiB under 10,000 tokens reads only its start', () => {
    const text = CORPUS['logs with ANSI'].repeat(1024)
    const r = truncateText(text, { maxTokens: 10_000, tokenizer: 'o200k_base' })
    assert.equal(r.tokens.output, fastOracle('o200k_base', r.text))
    assert.ok(r.tokens.output <= 10_000 && r.tokens.output > 9_900)
    // Only the start was counted: the total is a lower bound, a tiny share of the text's.
    assert.equal(r.tokens.totalExact, false)
    assert.ok(r.tokens.total < 100_000, `${r.tokens.total}`)
  })

  test('a counter function is called with candidate results, about log2(bytes) times', () => {
    const text = 'word '.repeat(20_000)
    const seen = []
    const r = truncateText(text, {
      maxTokens: 1000,
      tokenizer: (s) => {
        seen.push(s.length)
        return s.split(' ').length
      },
    })
    assert.ok(r.text.split(' ').length <= 1000)
    assert.equal(r.tokens.output, r.text.split(' ').length)
    assert.ok(seen.length <= 2 * Math.ceil(Math.log2(text.length)) + 2, `${seen.length} calls`)
  })

  test('counting chars as tokens cuts ASCII text as maxChars does', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '.'), maxLength: 200 }), fc.nat(120), (text, max) => {
        for (const strategy of ['head', 'tail']) {
          const byCount = truncateText(text, { maxTokens: max, tokenizer: (s) => s.length, strategy })
          const byChars = truncateText(text, { maxChars: max, strategy })
          assert.equal(byCount.text, byChars.text)
        }
      }),
      { numRuns: CUT_RUNS },
    )
  })

  test('formatExecOutput cuts each stream in exact tokens, a Buffer decoded', () => {
    const stdout = CORPUS['logs with ANSI'].slice(0, 20_000)
    const r = formatExecOutput(
      { stdout: Buffer.from(stdout), stderr: stdout, exitCode: 1 },
      { stdout: { maxTokens: 400, tokenizer: 'o200k_base' }, stderr: { maxTokens: 300, tokenizer: 'cl100k_base' } },
    )
    assert.ok(r.stdout.tokens.output <= 400 && fastOracle('o200k_base', r.stdout.text) === r.stdout.tokens.output)
    assert.ok(r.stderr.tokens.output <= 300 && fastOracle('cl100k_base', r.stderr.text) === r.stderr.tokens.output)
  })
})

describe('errors', () => {
  test('an unknown tokenizer name is a RangeError naming what is taken', () => {
    const expected = '"estimate", "o200k_base", "cl100k_base", an OpenAI model name or a function'
    throwsExactly(() => countTokens('x', { tokenizer: 'claude-3' }), RangeError, `tokenizer must be ${expected}, got "claude-3"`)
    throwsExactly(
      () => truncateText('x', { maxTokens: 1, tokenizer: 'p50k_base' }),
      RangeError,
      `tokenizer must be ${expected}, got "p50k_base"`,
    )
    throwsExactly(() => stringTruncateTail('x', { maxTokens: 1, tokenizer: 5 }), TypeError, `tokenizer must be ${expected}, got 5`)
  })

  test('a counter must return a non-negative integer, synchronously; what it throws goes through', () => {
    const msg = 'tokenizer function must return a non-negative integer, got'
    throwsExactly(() => truncateText('hello world', { maxTokens: 1, tokenizer: () => -1 }), TypeError, `${msg} -1`)
    throwsExactly(() => truncateText('hello world', { maxTokens: 1, tokenizer: () => 1.5 }), TypeError, `${msg} 1.5`)
    throwsExactly(
      () => truncateText('hello world', { maxTokens: 1, tokenizer: async () => 1 }),
      TypeError,
      `${msg} an object (a token counter must be synchronous)`,
    )
    const boom = new Error('boom')
    assert.throws(
      () =>
        truncateText('hello world', {
          maxTokens: 1,
          tokenizer: () => {
            throw boom
          },
        }),
      (e) => e === boom,
    )
  })
})
