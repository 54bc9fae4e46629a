// Captures and runCommand under maxTokens counted by an exact tokenizer: whatever the chunks,
// the result has at most maxTokens as the reference counts them, one more char would go over,
// and it is truncateText's result for the whole output (with maxBytes lowered to what the
// tokens can hold, once the capture dropped text); a function's tokens need a byte or char
// limit beside them. FC_RUNS sets the runs (each run costs a few clamps and oracle counts).
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { brotliDecompressSync } from 'node:zlib'
import fc from 'fast-check'

import { createOutputCapture, runCommand, truncateText } from '../index.mjs'
import { ENCODINGS, oracle } from './token-oracle.mjs'

const { normalizeTerminalOutput } = createRequire(import.meta.url)('../lib/text/terminal.js')

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const CUT_RUNS = Math.max(50, Math.floor(RUNS / 100))

// The longest token of both encodings, in bytes: a capture keeps what (maxTokens + 1) of them hold.
const MAX_TOKEN_BYTES = 128
// Bytes a capture keeps past what a plan reads (CAPTURE_MARGIN in the core).
const MARGIN = 1024

const ATOMS = [' ', 'a', 'word', ' the', 'Tokenizer', '42', '\n', '\r\n', '\t', '中文字', 'é', '😀', '👩‍💻', '();', '==', "'s"]
const ANSI = ['\x1b[31m', '\x1b[0m', '\r', '\b', '\x1b[2K']

/** Output of random atoms, repeated to well past what small limits keep. */
const output = (ansi) =>
  fc
    .tuple(fc.array(fc.constantFrom(...ATOMS, ...(ansi ? ANSI : [])), { maxLength: 40 }), fc.integer({ min: 1, max: 200 }))
    .map(([atoms, times]) => atoms.join('').repeat(times))

/** `text` in chunks split anywhere: strings (a pair may be split) or UTF-8 bytes (a sequence may be). */
function chunksOf(text, cuts, asBytes) {
  const whole = asBytes ? Buffer.from(text) : text
  const at = [...new Set(cuts.map((c) => Math.floor(c * whole.length)))].sort((a, b) => a - b)
  const chunks = []
  let from = 0
  for (const to of [...at, whole.length]) {
    if (to > from) chunks.push(whole.slice(from, to))
    from = to
  }
  return chunks
}

function captureOf(chunks, options) {
  const capture = createOutputCapture(options)
  for (const chunk of chunks) capture.write(chunk)
  return capture.end()
}

const strategies = fc.constantFrom('head', 'tail', 'headTail')
const splitting = fc.tuple(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }), fc.boolean())

/** No cut between the two units of a pair or of a CRLF. */
function assertSafeCut(text, at) {
  assert.ok(!(/[\ud800-\udbff]/.test(text[at - 1] ?? '') && /[\udc00-\udfff]/.test(text[at] ?? '')), `pair split at ${at}`)
  assert.ok(!(text[at - 1] === '\r' && text[at] === '\n'), `CRLF split at ${at}`)
}

describe('captures under exact tokens', () => {
  test('the longest token of both encodings is 128 bytes, as these tests and the CLI take it', () => {
    for (const encoding of ENCODINGS) {
      // The raw vocabulary: each token as one length byte, then its bytes (scripts/build-vocab.mjs).
      const raw = brotliDecompressSync(readFileSync(new URL(`../vocab/${encoding}.bin.br`, import.meta.url)))
      let longest = 0
      for (let at = 0; at < raw.length; at += 1 + raw[at]) longest = Math.max(longest, raw[at])
      assert.equal(longest, MAX_TOKEN_BYTES, encoding)
    }
  })

  test('the result is within maxTokens, counted as reported, and is the whole output cut as truncateText cuts it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ENCODINGS),
        output(true),
        fc.boolean(),
        fc.oneof(fc.nat(8), fc.nat(40)),
        strategies,
        splitting,
        (encoding, text, normalize, max, strategy, [cuts, asBytes]) => {
          const options = { maxTokens: max, tokenizer: encoding, strategy, ...(normalize ? { normalize: true } : {}) }
          const r = captureOf(chunksOf(text, cuts, asBytes), options)
          const real = oracle(encoding, r.text)
          assert.ok(real <= max, `${real} > ${max}`)
          assert.equal(r.tokens.output, real)
          assert.equal(r.tokens.tokenizer, encoding)
          const shown = normalize ? normalizeTerminalOutput(text) : text
          // Kept whole, the capture is truncateText of the whole output; with text dropped,
          // of the whole output with maxBytes lowered to what maxTokens + 1 tokens can hold.
          const bound = (max + 1) * MAX_TOKEN_BYTES
          const keptWhole = Buffer.byteLength(shown) <= bound + MARGIN
          const expected = truncateText(text, keptWhole ? options : { ...options, maxBytes: bound })
          if (keptWhole) {
            assert.deepEqual(r, expected)
          } else {
            assert.equal(r.text, expected.text)
            assert.equal(r.tokens.output, expected.tokens.output)
            assert.equal(r.tokens.totalExact, false)
          }
          if (!r.truncated) return
          assert.ok(r.truncatedBy.includes('tokens'))
          assert.ok(r.text.startsWith(shown.slice(0, r.headEnd)) && r.text.endsWith(shown.slice(r.tailStart)))
          assertSafeCut(shown, r.headEnd)
          assertSafeCut(shown, r.tailStart)
          if (strategy === 'headTail') return
          // One more char (head) or one char earlier (tail) goes over: the clamp by bytes at
          // one byte more than the result keeps more, or a longer notice, never within.
          const next = truncateText(text, { maxBytes: r.outputBytes + 1, strategy, ...(normalize ? { normalize: true } : {}) })
          if (next.text !== r.text && (next.headEnd > r.headEnd || next.tailStart < r.tailStart)) {
            assert.ok(oracle(encoding, next.text) > max, `${strategy}: ${JSON.stringify(next.text)} fits`)
          }
        },
      ),
      { numRuns: CUT_RUNS },
    )
  })

  test('a snapshot is cut within the tokens too, and is the end when nothing more comes', () => {
    const capture = createOutputCapture({ maxTokens: 60, tokenizer: 'gpt-4o', strategy: 'headTail' })
    for (let i = 0; i < 2000; i++) capture.write(`step ${i}: 中文 😀 done\n`)
    const snapshot = capture.snapshot()
    assert.ok(oracle('o200k_base', snapshot.text) <= 60)
    assert.deepEqual(capture.end(), snapshot)
    assert.equal(snapshot.tokens.tokenizer, 'o200k_base')
  })

  test('a limit in tokens alone bounds the capture: 16 MiB in, the kept ends out', () => {
    const capture = createOutputCapture({ maxTokens: 100, tokenizer: 'cl100k_base', strategy: 'tail' })
    const line = 'log line with some words, numbers 12345 and 中文\n'
    const chunk = line.repeat(Math.ceil(65_536 / line.length))
    while (capture.totals.bytes < 16 << 20) capture.write(chunk)
    const r = capture.end()
    assert.ok(r.tokens.output <= 100 && r.tokens.output > 90, `${r.tokens.output}`)
    assert.ok(r.text.endsWith(line))
    assert.deepEqual(r.truncatedBy, ['tokens'])
    // The total is a lower bound: the capture never held the text to count it.
    assert.equal(r.tokens.totalExact, false)
    assert.ok(r.tokens.total >= (16 << 20) / MAX_TOKEN_BYTES)
  })

  test('a tokenizer function counts candidate results beside a byte limit', () => {
    const words = (s) => s.split(' ').length
    const seen = []
    const r = captureOf(['one two three four five '.repeat(2000)], {
      maxTokens: 50,
      maxBytes: 10_000,
      tokenizer: (s) => {
        seen.push(s)
        return words(s)
      },
    })
    assert.equal(r.tokens.output, words(r.text))
    assert.ok(r.tokens.output <= 50 && r.tokens.output > 45)
    assert.equal(r.tokens.tokenizer, 'function')
    assert.ok(seen.includes(r.text))
  })

  test('what a capture cannot count exactly is refused, with its reason', () => {
    const unbounded =
      'maxBytes or maxChars is required with a tokenizer function: a capture keeps only what its limits allow, and how much text one token of a function stands for is unknown'
    assert.throws(() => createOutputCapture({ maxTokens: 10, tokenizer: () => 1 }), {
      name: 'TypeError',
      code: 'TOOLCLAMP_INVALID_ARGUMENT',
      message: unbounded,
    })
    assert.throws(() => runCommand('true', { stdout: { maxTokens: 10, tokenizer: () => 1 } }), {
      name: 'TypeError',
      code: 'TOOLCLAMP_INVALID_ARGUMENT',
      message: unbounded.replace('maxBytes or maxChars', 'stdout.maxBytes or stdout.maxChars'),
    })
    assert.throws(() => createOutputCapture({ maxTokens: 10, tokenizer: 'o200k_base', raw: true }), {
      name: 'TypeError',
      code: 'TOOLCLAMP_INVALID_ARGUMENT',
      message: 'raw and an exact tokenizer cannot be combined: tokens count text',
    })
    // With a byte or char limit beside it, a function is taken.
    createOutputCapture({ maxTokens: 10, maxChars: 100, tokenizer: () => 1 }).dispose()
  })
})

describe('runCommand under exact tokens', () => {
  test("each stream of a real child process is cut within its own tokenizer's tokens", async () => {
    const script =
      'for (let i = 0; i < 20000; i++) { console.log("line " + i + " 中文 😀"); if (i % 4 === 0) console.error("warning " + i) }'
    const r = await runCommand(process.execPath, ['-e', script], {
      stdout: { maxTokens: 200, tokenizer: 'o200k_base' },
      stderr: { maxTokens: 80, tokenizer: 'cl100k_base' },
      strategy: 'headTail',
    })
    assert.equal(r.exitCode, 0)
    const { stdout, stderr } = r.streams
    assert.equal(stdout.tokens.output, oracle('o200k_base', r.stdout))
    assert.ok(stdout.tokens.output <= 200 && stdout.tokens.output > 150, `${stdout.tokens.output}`)
    assert.equal(stderr.tokens.output, oracle('cl100k_base', r.stderr))
    assert.ok(stderr.tokens.output <= 80)
    assert.ok(stdout.truncatedBy.includes('tokens') && r.stdout.includes('line 0 ') && r.stdout.includes('line 19999 '))
  })
})
