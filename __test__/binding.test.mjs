// The native binding on its own, driven as lib/native.js drives it and as it must never be
// driven: every export with wrong, missing and extra arguments. It fails closed: a wrong
// call throws a TypeError or RangeError that names the parameter, and a call that returns
// has written a verdict and an answer that holds (a cut fits its limits; "fits" is true).
// Tokens: encodingOf, loadTokenizer (once per process) and countTokens, and plans within
// maxTokens, counted by an encoding as the oracle (js-tiktoken) counts or by the caller's function.
// FC_RUNS sets the runs per property (default 10,000).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { brotliDecompressSync } from 'node:zlib'
import fc from 'fast-check'

import { measure, fits } from './reference.mjs'
import { ENCODINGS, oracle } from './token-oracle.mjs'

const require = createRequire(import.meta.url)
// lib/native.js loads the build TOOLCLAMP_RUNTIME names; binding.js is then that one.
require('../lib/native.js')
const binding = require('../binding.js')
const { LAYOUT } = binding
const S = LAYOUT.slots
const RUNS = Number(process.env.FC_RUNS ?? 10_000)

// Each export's parameters, in order, and the request fields it reads: the binding's own
// table (src/exports.rs), never a copy.
const EXPORTS = LAYOUT.exports

const isWide = (text) => /[^\x00-\xff]/.test(text)
// The result array: an ArrayBuffer of doubles (answer slots, request block, notice facts),
// read through a Float64Array.
const newOut = () => new ArrayBuffer(LAYOUT.bufferLength * 8)

/** Writes `request` (field name → value) into the request block of `out`, when it has one. */
function writeRequest(out, request) {
  if (!(out instanceof ArrayBuffer) || out.byteLength < LAYOUT.bufferLength * 8) return
  const block = new Float64Array(out)
  for (const [field, value] of Object.entries(request)) block[LAYOUT.request[field]] = value
}

/** Calls export `name` as lib/native.js does: the request block first, then the arguments. */
function invoke(name, request, out, ...args) {
  writeRequest(out, request)
  return binding[name](out, ...args)
}

/** A plan's request: strategy head, `maxChars` only, nothing else asked. */
const planRequest = (fields = {}) => ({
  strategy: 0,
  maxChars: 10,
  maxBytes: Infinity,
  maxLines: Infinity,
  headRatio: 0.5,
  exact: false,
  snap: false,
  restack: false,
  maxTokens: Infinity,
  tokenizer: 0,
  ...fields,
})

// ---- Tokens: the encodings, and the oracle's counts to check them against

/** A tokenizer's code in the request block and countTokens (`LAYOUT.tokenizers`). */
const codeOf = (name) => LAYOUT.tokenizers.indexOf(name)
const FUNCTION = codeOf('function')
/** The tokens of `text` by the oracle, special tokens read as text (as the binding does). */
const referenceCount = oracle
/** An encoding's raw vocabulary, read as lib/tokens/tokenizers.js reads it. */
const vocabOf = (name) => brotliDecompressSync(readFileSync(new URL(`../vocab/${name}.bin.br`, import.meta.url)))
// Both encodings serve the whole file: a process loads an encoding once, and what happens
// before that is tested in a process of its own.
for (const name of ENCODINGS) binding.loadTokenizer(newOut(), name, vocabOf(name))

describe('LAYOUT', () => {
  test('is frozen and names every slot once', () => {
    assert.ok(Object.isFrozen(LAYOUT) && Object.isFrozen(LAYOUT.slots) && Object.isFrozen(LAYOUT.strategies))
    const indices = Object.values(LAYOUT.slots)
    assert.deepEqual(
      [...indices].sort((a, b) => a - b),
      [...Array(LAYOUT.slotCount).keys()],
    )
    // The request block and the notice facts follow the answer slots, to the array's end.
    assert.ok(Object.isFrozen(LAYOUT.request) && Object.isFrozen(LAYOUT.facts))
    assert.deepEqual(
      [...Object.values(LAYOUT.request), ...Object.values(LAYOUT.facts)],
      [...Array(LAYOUT.bufferLength - LAYOUT.slotCount).keys()].map((k) => LAYOUT.slotCount + k),
    )
    assert.deepEqual(LAYOUT.strategies, ['head', 'tail', 'headTail', 'auto'])
    assert.deepEqual(LAYOUT.dims, ['chars', 'bytes', 'lines'])
    assert.deepEqual(LAYOUT.errorKinds, ['context_overflow', 'payload_too_large', 'rate_limit', 'other'])
    assert.deepEqual(LAYOUT.budgetActions, ['keep', 'clamp', 'elide'])
    assert.deepEqual(LAYOUT.budgetFields, ['textTokens', 'textChars', 'fixedTokens', 'markerTokens'])
    assert.equal(LAYOUT.bytesPerToken, 3)
    assert.equal(LAYOUT.mediaTokens, 1600)
    assert.deepEqual(LAYOUT.normalizeFlags, ['ansi', 'carriageReturns', 'backspaces', 'controls'])
    // Tokenizer codes: 0 is none (no limit in exact tokens), the last a caller's function.
    assert.ok(Object.isFrozen(LAYOUT.tokenizers))
    assert.deepEqual(LAYOUT.tokenizers, ['none', 'o200k_base', 'cl100k_base', 'function'])
    assert.ok('maxTokens' in LAYOUT.request && 'tokenizer' in LAYOUT.request)
    for (const slot of ['outputTokens', 'totalTokens', 'totalTokensExact', 'tokensBound']) assert.ok(slot in S, slot)
    assert.equal(LAYOUT.maxStringLength, require('node:buffer').constants.MAX_STRING_LENGTH)
  })

  test('publishes every export: its parameters, and request fields the block has', () => {
    assert.ok(Object.isFrozen(EXPORTS))
    for (const [name, signature] of Object.entries(EXPORTS)) {
      assert.deepEqual(Object.keys(signature), ['params', 'request'], name)
      assert.ok(Object.isFrozen(signature.params) && Object.isFrozen(signature.request), name)
      assert.equal(new Set(signature.params).size, signature.params.length, `${name}: a parameter twice`)
      for (const field of signature.request) assert.ok(field in LAYOUT.request, `${name}: ${field}`)
      // The request block is in the result array, so an export that reads one takes it first.
      if (signature.request.length > 0) assert.equal(signature.params[0], 'out', name)
    }
  })

  test('the binding exports exactly the functions its table lists', () => {
    assert.equal(binding.SLOT_COUNT, LAYOUT.slotCount)
    const functions = Object.keys(binding).filter((k) => typeof binding[k] === 'function')
    assert.deepEqual(functions.sort(), Object.keys(EXPORTS).sort())
  })

  test("noticeTemplates: the core's templates by name and its placeholders, frozen", () => {
    const { templates, placeholders } = binding.noticeTemplates()
    assert.deepEqual(Object.keys(templates), ['spill', 'stream', 'streamSpill', 'interrupted', 'interruptedMiddle', 'contextCut'])
    assert.equal(templates.stream, '[... {omitted} truncated from {stream} ...]')
    assert.ok(placeholders.includes('omitted') && placeholders.includes('fromLine'))
    assert.ok(Object.isFrozen(templates) && Object.isFrozen(placeholders))
    // Every template is one the core accepts, once {stream} and {spillPath} are filled in.
    for (const template of Object.values(templates)) {
      binding.checkTemplate(template.replaceAll('{stream}', 'stdout').replaceAll('{spillPath}', '/x'))
    }
  })
})

// ---- lib/native.js against the table

/** Checks of an argument by its parameter's name, for the names that mean one thing. */
const PARAM_CHECKS = {
  out: (v) => v instanceof ArrayBuffer,
  notice: (v) => v === undefined || typeof v === 'string' || typeof v === 'function',
  ...Object.fromEntries(
    ['wide', 'echo', 'final', 'raw', 'normalize', 'byteColumns', 'inlineMarkers'].map((n) => [n, (v) => typeof v === 'boolean']),
  ),
  ...Object.fromEntries(
    ['text', 'message', 'code', 'gap', 'template', 'paths', 'name', 'marker'].map((n) => [n, (v) => typeof v === 'string']),
  ),
  chunk: (v) => typeof v === 'string' || v instanceof Uint8Array,
  inPlace: (v) => v instanceof Uint8Array,
  minLength: (v) => Number.isSafeInteger(v) && v >= 0,
  vocab: (v) => v === undefined || v instanceof Uint8Array,
  tokenCounter: (v) => v === undefined || typeof v === 'function',
  // countTokens counts with an encoding, never none or a function.
  tokenizer: (v) => ENCODINGS.includes(LAYOUT.tokenizers[v]),
  limit: (v) => v === Infinity || (Number.isSafeInteger(v) && v >= 0),
  low: (v) => Number.isSafeInteger(v) && v >= 0,
  high: (v) => Number.isSafeInteger(v) && v >= 0,
  highCount: (v) => Number.isSafeInteger(v) && v >= -1,
  max: (v) => Number.isSafeInteger(v) && v >= 0,
  first: (v) => Number.isSafeInteger(v) && v >= -1,
  count: (v) => typeof v === 'function',
}

/**
 * lib/native.js loaded over a binding that checks each call against LAYOUT.exports before
 * making it: the argument count, the arguments whose name says their type, and that every
 * request field the export reads was written (the block is NaN after each call, as the
 * binding leaves it). `calls` counts the calls by export.
 */
function spiedNative() {
  const bindingPath = require.resolve('../binding.js')
  const nativePath = require.resolve('../lib/native.js')
  const calls = new Map()
  const spy = { ...binding }
  for (const [name, { params, request }] of Object.entries(EXPORTS)) {
    spy[name] = (...args) => {
      assert.equal(args.length, params.length, `${name} called with ${args.length} arguments`)
      for (const [i, param] of params.entries()) {
        assert.ok(PARAM_CHECKS[param]?.(args[i]) ?? true, `${name}: ${param} is ${typeof args[i]}`)
      }
      const block = new Float64Array(args[0])
      const unwritten = request.filter((field) => Number.isNaN(block[LAYOUT.request[field]]))
      assert.deepEqual(unwritten, [], `${name} called without ${unwritten.join(', ')}`)
      // A plan that counts with a function is handed it.
      if (request.includes('tokenizer') && block[LAYOUT.request.tokenizer] === FUNCTION) {
        assert.equal(typeof args.at(-1), 'function', `${name} called without its tokenCounter`)
      }
      calls.set(name, (calls.get(name) ?? 0) + 1)
      try {
        return binding[name](...args)
      } finally {
        for (const index of Object.values(LAYOUT.request)) block[index] = NaN
      }
    }
  }
  const saved = [require.cache[bindingPath], require.cache[nativePath]]
  require.cache[bindingPath] = { id: bindingPath, filename: bindingPath, loaded: true, exports: spy, children: [], paths: [] }
  delete require.cache[nativePath]
  try {
    return { native: require('../lib/native.js'), calls }
  } finally {
    ;[require.cache[bindingPath], require.cache[nativePath]] = saved
  }
}

describe('lib/native.js', () => {
  test('calls every export as the table says', () => {
    const { native, calls } = spiedNative()
    const limits = (maxChars, maxBytes = Infinity, maxLines = Infinity) => ({ maxChars, maxBytes, maxLines })
    let facts
    const notice = (f) => {
      facts = f
      return '[cut]'
    }
    // A call with no request first: the spy then leaves the block NaN for the rest.
    native.measureText('abc')
    native.measureTokens('abc')
    native.checkTemplate('[{omittedChars} cut]')
    native.noticeTemplates()
    native.planText('x'.repeat(100), 'head', limits(10), 0.5, notice, true)
    native.planText('x'.repeat(5000), 'headTail', limits(100), 0.5, undefined, false)
    native.planTexts(['ab', 'cd'], 4, 'tail', limits(2), 0.5, undefined, false, true, false)
    native.planBytes(Buffer.from('y'.repeat(50)), 'auto', limits(Infinity, 10), 0.5, undefined, true)
    native.planToolOutput('a\n'.repeat(100), 50, 5, 0.5, undefined)
    native.planBudget([{ textTokens: 900, textChars: 2700, fixedTokens: 0, markerTokens: 40 }], 100, 100, 0, 0)
    // Tokens: the encoding of a model's name, loaded (the file loaded it: the bytes are not
    // read again), counted, and plans within a number of tokens.
    assert.equal(native.encodingOf('gpt-4o'), 'o200k_base')
    assert.equal(native.loadTokenizer('o200k_base', undefined), true)
    assert.equal(native.loadTokenizer('o200k_base', vocabOf('o200k_base')), true)
    assert.equal(native.countTokens('hello world', 'o200k_base'), 2)
    assert.equal(native.countTokens('hello world', 'o200k_base', 1), undefined)
    // The longest token bounds every search in tokens; the search asks only inside its range.
    assert.ok(native.longestToken('o200k_base') >= 64)
    const asked = []
    const found = native.searchBudget(3, 1000, -1, 77, 50, (budget) => {
      asked.push(budget)
      return budget
    })
    assert.equal(found, 77)
    assert.equal(asked[0], 50)
    assert.ok(asked.every((b) => b > 3 && b < 1000))
    const o200k = { name: 'o200k_base', code: native.TOKENIZER_CODES.get('o200k_base'), count: undefined }
    const words = 'word '.repeat(100)
    const byTokens = native.planText(words, 'head', { ...limits(Infinity), tokens: { max: 5, tokenizer: o200k } }, 0.5, undefined, false)
    const kept = words.slice(0, byTokens.headEnd) + byTokens.glue + words.slice(byTokens.tailStart)
    assert.ok(byTokens.cut && byTokens.tokensBound)
    assert.equal(byTokens.tokens.output, referenceCount('o200k_base', kept))
    assert.ok(byTokens.tokens.output <= 5)
    const byLength = { name: 'function', code: native.TOKENIZER_CODES.get('function'), count: (t) => t.length }
    const texts = ['ab'.repeat(20), 'cd'.repeat(20)]
    const listed = native.planTexts(
      texts,
      80,
      'tail',
      { ...limits(Infinity, 30), tokens: { max: 25, tokenizer: byLength } },
      0.5,
      undefined,
      false,
    )
    assert.ok(listed.cut && listed.tokens.output <= 25)
    // The function only counted cuts (bytes bind first), never the whole text: no total.
    assert.deepEqual([listed.tokens.total, listed.tokens.totalExact], [undefined, false])
    native.elisionMarker(10, 2, 3, null)
    native.normalizeTerminal('a\x1b[1mb', 15)
    native.normalizeTerminal(Buffer.from('abc'), 15)
    native.normalizedMayOutgrowString('abc')
    native.planJson('[1,2,3,4,5]', 'head', limits(6), 0.5, true, '')
    native.planJsonText('[1, 2, 3, 4, 5]', 'tail', limits(8), 0.5, false, ' ')
    native.locateJson('{"a":1}', [['a']])
    native.classifyError('maximum context length exceeded', 400, '')
    const text = 'line\n'.repeat(50)
    const page = native.pageOf(text, 1, 1, 300, 5)
    native.pageOf(Buffer.from(text), 1, 1, 300, 5)
    native.repage(`${page.banner}\n${text.slice(page.pageStart, page.pageEnd)}`, limits(60), false)
    const handle = native.captureCreate('head', limits(Infinity, 100), 0.5, 0, false)
    native.captureWrite(handle, 'x'.repeat(300), false)
    native.captureSettleHead(handle, undefined, false)
    native.captureResult(handle, false, undefined, false)
    native.captureFinish(handle, false)
    native.captureResult(handle, true, undefined, false)
    native.captureDispose(handle)
    const line = native.jsonLineCreate()
    native.jsonLineAppend(line, Buffer.from('{"a":"long string","b":"é"}'))
    assert.equal(native.jsonLineScan(line, 5, 'at-'), '{"a":"at-0","b":"é"}')
    assert.deepEqual(native.jsonLineLengths(line), [11])
    assert.deepEqual(native.jsonLineStrings(line, new Uint8Array([1])), ['long string'])
    assert.equal(native.jsonLineBytes(line).toString(), '{"a":"long string","b":"é"}')
    native.jsonLineDispose(line)
    assert.deepEqual([...calls.keys()].sort(), Object.keys(EXPORTS).sort(), 'every export is called')
    // A notice function gets every fact the binding writes, in the table's order.
    assert.deepEqual(Object.keys(facts), Object.keys(LAYOUT.facts))
    // (The core may try notices for more than one cut; each names the same text.)
    assert.deepEqual(
      [facts.where, facts.truncatedBy, facts.totalChars, facts.totalBytes, facts.totalLines, facts.tailStart],
      ['end', ['chars'], 100, 100, 1, 100],
    )
  })
})

describe('capture handles', () => {
  const keep = { strategy: 1, maxChars: Infinity, maxBytes: 100, maxLines: Infinity, headRatio: 0.5, maxTokens: Infinity, tokenizer: 0 }

  test('only a handle captureCreate made is read as a capture', () => {
    const out = newOut()
    const handle = invoke('captureCreate', keep, out, false, 0, false, undefined)
    for (const fake of [{}, null, 1, 'capture', new Uint8Array(8), () => {}]) {
      assert.throws(
        () => binding.captureWrite(out, fake, 'x', false, false),
        (e) => e instanceof TypeError && /capture/.test(e.message),
      )
    }
    binding.captureWrite(out, handle, 'x'.repeat(300), false, false)
    assert.equal(new Float64Array(out)[LAYOUT.slots.totalBytes], 300)
    binding.captureFinish(out, handle, false)
    assert.throws(() => binding.captureWrite(out, handle, 'y', false, false), /write after end/)
    const text = invoke('captureResult', { snap: false }, out, handle, true, undefined, undefined)
    assert.equal(new Float64Array(out)[LAYOUT.slots.verdict], LAYOUT.verdicts.cut)
    assert.ok(Buffer.byteLength(text) <= 100 && text.endsWith('x'))
  })

  test('a capture without a byte or char limit is refused: its memory would have no bound', () => {
    assert.throws(
      () => invoke('captureCreate', { ...keep, maxBytes: Infinity, maxLines: 10 }, newOut(), false, 0, false, undefined),
      RangeError,
    )
    // A limit in a function's tokens bounds nothing either.
    const byFunction = { ...keep, maxBytes: Infinity, maxTokens: 10, tokenizer: FUNCTION }
    assert.throws(() => invoke('captureCreate', byFunction, newOut(), false, 0, false, () => 1), RangeError)
  })

  test("a limit in an encoding's tokens bounds a capture, which cuts within them", () => {
    const out = newOut()
    const tokens = { ...keep, maxBytes: Infinity, maxTokens: 20, tokenizer: codeOf('o200k_base') }
    const handle = invoke('captureCreate', tokens, out, false, 0, false, undefined)
    binding.captureWrite(out, handle, 'one two three four five six seven eight nine ten\n'.repeat(10_000), false, false)
    const text = invoke('captureResult', { snap: false }, out, handle, true, undefined, undefined)
    const slots = new Float64Array(out)
    assert.equal(slots[LAYOUT.slots.outputTokens], referenceCount('o200k_base', text))
    assert.ok(slots[LAYOUT.slots.outputTokens] <= 20 && slots[LAYOUT.slots.tokensBound] === 1)
    // A raw capture keeps bytes, which need not be text.
    assert.throws(() => invoke('captureCreate', tokens, newOut(), false, 0, true, undefined), TypeError)
  })
})

describe('argument checks', () => {
  test('a call with too few or too many arguments is a TypeError saying how many', () => {
    for (const [name, { params }] of Object.entries(EXPORTS)) {
      const expected = `toolclamp binding: ${name}(${params.join(', ')}) takes ${params.length} arguments, got`
      // (A call with none is the right call of an export that takes none.)
      for (const count of [0, params.length - 1, params.length + 1].filter((n) => n >= 0 && n !== params.length)) {
        assert.throws(
          () => binding[name](...Array(count).fill(0)),
          (e) => e instanceof TypeError && e.message === `${expected} ${count}`,
          `${name} with ${count}`,
        )
      }
    }
  })

  test('wrong types name the parameter', () => {
    const out = newOut()
    const plan =
      (...args) =>
      () =>
        invoke('plan', planRequest({ maxChars: 1 }), ...args, undefined)
    const buffer = (bytes) => () => invoke('planBuffer', planRequest({ maxChars: 1 }), out, bytes, undefined)
    const list = (texts, total) => () => invoke('planList', planRequest({ maxChars: 1 }), out, texts, false, total, undefined, undefined)
    // A plan that counts tokens with a function, `counter`.
    const counted = (counter) => () =>
      invoke('plan', planRequest({ maxTokens: 2, tokenizer: FUNCTION }), out, 'abcdef', false, undefined, counter)
    const countedList = (counter) => () =>
      invoke('planList', planRequest({ maxTokens: 2, tokenizer: FUNCTION }), out, ['ab', 'cdef'], false, 6, undefined, counter)
    const vocabMessage = 'loadTokenizer: vocab must be a Uint8Array or Buffer'
    const outMessage = `plan: out must be an attached ArrayBuffer of ${LAYOUT.bufferLength * 8} bytes`
    const cases = [
      [plan(out, 42, false, undefined), 'plan: text must be a string'],
      [plan(out, 'abc', 'no', undefined), 'plan: wide must be a boolean'],
      [plan(out, 'abc', false, 7), 'plan: notice must be undefined, a string or a function'],
      [plan([], 'abc', false, undefined), outMessage],
      [plan(new Float64Array(LAYOUT.bufferLength), 'abcdef', false, undefined), outMessage],
      [plan(new SharedArrayBuffer(LAYOUT.bufferLength * 8), 'abcdef', false, undefined), outMessage],
      [plan(new ArrayBuffer(24), 'abcdef', false, undefined), outMessage],
      // Room for the answer slots but not for the request block.
      [plan(new ArrayBuffer(LAYOUT.slotCount * 8), 'abcdef', false, undefined), outMessage],
      [buffer('abc'), 'planBuffer: bytes must be a Uint8Array or Buffer'],
      [buffer(new Uint16Array(4)), 'planBuffer: bytes must be a Uint8Array or Buffer'],
      [list('abc', 3), 'planList: texts must be an array of strings'],
      [list(['a', 1], 2), 'planList: texts must be an array of strings'],
      [counted(undefined), 'plan: tokenCounter must be a function'],
      [counted('abc'), 'plan: tokenCounter must be a function'],
      [countedList(5), 'planList: tokenCounter must be a function'],
      // What the function answers must be a count, as a notice function's must be a string.
      [counted(() => '2'), 'plan: tokenCounter must return a non-negative integer, got a string'],
      [counted(() => undefined), 'plan: tokenCounter must return a non-negative integer, got undefined'],
      [counted(() => 1.5), 'plan: tokenCounter must return a non-negative integer, got 1.5'],
      [countedList(() => -1), 'planList: tokenCounter must return a non-negative integer, got -1'],
      [() => binding.encodingOf(42), 'encodingOf: name must be a string'],
      [() => binding.loadTokenizer(out, null, undefined), 'loadTokenizer: name must be a string'],
      // Checked even for an encoding this process has loaded, whose bytes are not read.
      [() => binding.loadTokenizer(out, 'o200k_base', 'bytes'), vocabMessage],
      [() => binding.loadTokenizer(out, 'cl100k_base', new Uint16Array(4)), vocabMessage],
      [() => binding.loadTokenizer(out, 'cl100k_base', null), vocabMessage],
      [() => binding.countTokens(out, 42, false, 1, Infinity), 'countTokens: text must be a string'],
      [() => binding.countTokens(out, 'abc', 'no', 1, Infinity), 'countTokens: wide must be a boolean'],
      [() => binding.countTokens(out, 'abc', false, '1', Infinity), 'countTokens: tokenizer must be a number'],
      [() => binding.longestToken(7), 'longestToken: name must be a string'],
      [() => binding.searchBudget('0', 10, -1, 5, -1, () => 1), 'searchBudget: low must be a number'],
      [() => binding.searchBudget(0, 10, -1, 5, -1, 'count'), 'searchBudget: count must be a function'],
      [() => binding.searchBudget(0, 10, -1, 5, -1, () => true), 'searchBudget: count must return a non-negative integer, got a boolean'],
      [() => binding.searchBudget(0, 10, -1, 5, -1, () => 1.5), 'searchBudget: count must return a non-negative integer, got 1.5'],
    ]
    for (const [fn, message] of cases) {
      assert.throws(fn, (e) => e instanceof TypeError && e.message === `toolclamp binding: ${message}`, message)
    }
  })

  test('values out of range are RangeErrors, never a default', () => {
    const out = newOut()
    const call = (fields) => () => invoke('plan', planRequest(fields), out, 'abcdef', false, undefined, undefined)
    const count = (tokenizer, limit) => () => binding.countTokens(out, 'abc', false, tokenizer, limit)
    const encodingCode = (got) => `tokenizer must be the code of an encoding, got ${got}`
    const cases = [
      [call({ strategy: 4 }), 'strategy must be a strategy code from 0 to 3, got 4'],
      [call({ strategy: 0.5 }), 'strategy must be a strategy code from 0 to 3, got 0.5'],
      [call({ strategy: -1 }), 'strategy must be a strategy code from 0 to 3, got -1'],
      [call({ strategy: NaN }), 'strategy must be a strategy code from 0 to 3, got NaN'],
      [
        () => invoke('charsWindows', { strategy: 3, maxChars: 5, headRatio: 0.5 }, out, 10),
        'strategy must be a strategy code from 0 to 2, got 3',
      ],
      [call({ maxChars: -1 }), 'maxChars must be a non-negative integer or Infinity, got -1'],
      [call({ maxChars: NaN }), 'maxChars must be a non-negative integer or Infinity, got NaN'],
      [call({ maxChars: 1.5 }), 'maxChars must be a non-negative integer or Infinity, got 1.5'],
      [call({ maxChars: -Infinity }), 'maxChars must be a non-negative integer or Infinity, got -inf'],
      [call({ maxBytes: undefined }), 'maxBytes must be a non-negative integer or Infinity, got NaN'],
      [call({ strategy: 2, headRatio: 1.5 }), 'headRatio must be a number from 0 to 1, got 1.5'],
      [call({ strategy: 2, headRatio: NaN }), 'headRatio must be a number from 0 to 1, got NaN'],
      [call({ exact: 2 }), 'exact must be 1 or 0 (a boolean), got 2'],
      [call({ restack: undefined }), 'restack must be 1 or 0 (a boolean), got NaN'],
      [call({ tokenizer: 7 }), 'tokenizer must be a tokenizer code from 0 to 3, got 7'],
      [call({ tokenizer: 0.5 }), 'tokenizer must be a tokenizer code from 0 to 3, got 0.5'],
      [call({ tokenizer: 1, maxTokens: -1 }), 'maxTokens must be a non-negative integer or Infinity, got -1'],
      [call({ tokenizer: 2, maxTokens: 2.5 }), 'maxTokens must be a non-negative integer or Infinity, got 2.5'],
      // Read with no tokenizer too: never ignored.
      [call({ maxTokens: -1 }), 'maxTokens must be a non-negative integer or Infinity, got -1'],
      [
        // No result fits: the function counts tokens even for an empty text.
        () => invoke('plan', planRequest({ maxTokens: 1, tokenizer: FUNCTION }), out, 'abcdef', false, undefined, (t) => t.length + 2),
        'maxTokens must be at least 2, what tokenCounter counts for an empty text, got 1',
      ],
      [
        () => invoke('planList', planRequest({ maxTokens: 0, tokenizer: FUNCTION }), out, [], false, 0, undefined, () => 1),
        'maxTokens must be at least 1, what tokenCounter counts for an empty text, got 0',
      ],
      [() => binding.loadTokenizer(out, 'p50k', undefined), 'loadTokenizer: name must be an encoding\'s name, got "p50k"'],
      [() => binding.longestToken('gpt-4o'), 'longestToken: name must be an encoding\'s name, got "gpt-4o"'],
      [() => binding.searchBudget(0, 1.5, -1, 5, -1, () => 1), 'searchBudget: high must be a non-negative integer, got 1.5'],
      [() => binding.searchBudget(0, 10, -1, 5, -2, () => 1), 'searchBudget: first must be a non-negative integer, got -2'],
      // A model's name is encodingOf's to read; loadTokenizer takes the encoding's.
      [() => binding.loadTokenizer(out, 'gpt-4o', undefined), 'loadTokenizer: name must be an encoding\'s name, got "gpt-4o"'],
      [count(0, Infinity), encodingCode(0)],
      [count(FUNCTION, Infinity), encodingCode(FUNCTION)],
      [count(7, Infinity), encodingCode(7)],
      [count(1.5, Infinity), 'countTokens: tokenizer must be a non-negative integer, got 1.5'],
      [count(1, NaN), 'countTokens: limit must be a non-negative integer or Infinity, got NaN'],
      [count(1, -1), 'countTokens: limit must be a non-negative integer or Infinity, got -1'],
      [
        () => invoke('planList', planRequest({ maxChars: 1 }), out, ['ab', 'c'], false, 4, undefined, undefined),
        "totalLength must be the sum of the strings' lengths, got 4",
      ],
      [
        () => invoke('planWindows', { strategy: 0, maxChars: 5, headRatio: 0.5 }, out, 'abc', 9, '', 0, '', 0, 10, false),
        'window0 must be a window inside the text, got 3 units at 9',
      ],
    ]
    for (const [fn, message] of cases) {
      assert.throws(fn, (e) => e instanceof RangeError && e.message.endsWith(message), message)
    }
  })

  test('the request block is read once per call: a field left unwritten is refused, never read stale', () => {
    const out = newOut()
    assert.equal(typeof invoke('plan', planRequest({ maxChars: 2 }), out, 'abcdef', false, undefined, undefined), 'string')
    for (const index of Object.values(LAYOUT.request)) assert.ok(Number.isNaN(new Float64Array(out)[index]))
    assert.throws(
      () => binding.plan(out, 'abcdef', false, undefined, undefined),
      (e) => e instanceof RangeError && e.message.startsWith('toolclamp binding: plan: ') && e.message.endsWith('got NaN'),
    )
    // Each field on its own, even one the others make moot (maxTokens with no tokenizer).
    const calls = {
      plan: () => binding.plan(out, 'abcdef', false, undefined, undefined),
      planList: () => binding.planList(out, ['abc', 'def'], false, 6, undefined, undefined),
    }
    for (const [name, call] of Object.entries(calls)) {
      for (const field of EXPORTS[name].request) {
        const { [field]: _, ...others } = planRequest({ maxChars: 2 })
        writeRequest(out, others)
        assert.throws(
          call,
          (e) =>
            e instanceof RangeError &&
            e.message.startsWith(`toolclamp binding: ${name}: ${field} must be `) &&
            e.message.endsWith('got NaN'),
          `${name} without ${field}`,
        )
      }
    }
  })

  test('a notice function reads the facts of its cut from the result array; a call it makes does not change the plan', () => {
    const out = newOut()
    const seen = []
    const notice = () => {
      const values = new Float64Array(out)
      seen.push(Object.fromEntries(Object.entries(LAYOUT.facts).map(([name, index]) => [name, values[index]])))
      // A call into the binding from the notice reuses the array and its request block.
      invoke('plan', planRequest({ strategy: 1, maxChars: 1, restack: true }), out, 'zzzz', false, undefined, undefined)
      return '[cut]'
    }
    const glue = invoke('plan', planRequest({ maxChars: 12 }), out, 'x'.repeat(100), false, notice, undefined)
    const values = new Float64Array(out)
    assert.equal(values[S.verdict], LAYOUT.verdicts.cut)
    assert.equal('x'.repeat(values[S.headEnd]).length + glue.length, 12)
    assert.equal(values[S.strategy], 0)
    // The core may try notices for more than one cut; each names this text's facts.
    assert.ok(seen.length >= 1)
    for (const facts of seen) {
      assert.equal(LAYOUT.positions[facts.where], 'end')
      assert.deepEqual([facts.truncatedBy, facts.totalChars, facts.totalBytes, facts.tailStart], [1, 100, 100, 100])
    }
  })

  test('a detached result array is refused, not written', () => {
    const out = newOut()
    structuredClone(out, { transfer: [out] })
    assert.throws(
      () => invoke('plan', planRequest({ maxChars: 1 }), out, 'abcdef', false, undefined, undefined),
      (e) => e instanceof TypeError && /out must be an attached ArrayBuffer/.test(e.message),
    )
  })

  test('a thrown notice propagates as it was thrown', () => {
    const boom = new SyntaxError('boom')
    const notice = () => {
      throw boom
    }
    assert.throws(
      () => invoke('plan', planRequest(), newOut(), 'x'.repeat(100), false, notice, undefined),
      (e) => e === boom,
    )
  })

  test('a thrown token counter propagates as it was thrown, and nothing more is counted', () => {
    const boom = new SyntaxError('boom')
    for (const failAt of [1, 2, 5]) {
      let calls = 0
      const counter = (text) => {
        if (++calls === failAt) throw boom
        return text.length
      }
      const request = planRequest({ maxChars: Infinity, maxTokens: 10, tokenizer: FUNCTION })
      assert.throws(
        () => invoke('plan', request, newOut(), 'x'.repeat(100), false, undefined, counter),
        (e) => e === boom,
      )
      assert.equal(calls, failAt)
      calls = 0
      assert.throws(
        () => invoke('planList', request, newOut(), ['x'.repeat(50), 'y'.repeat(50)], false, 100, undefined, counter),
        (e) => e === boom,
      )
      assert.equal(calls, failAt)
    }
  })
})

// ---- Tokens

/**
 * Runs `source` (CommonJS, with `binding` and a result array `out` in scope) in a Node
 * process of its own, where no encoding is loaded yet: what it prints, parsed as JSON, and
 * what it wrote to stderr.
 */
function inFreshProcess(source) {
  const script = [
    `const binding = require(${JSON.stringify(require.resolve('../binding.js'))})`,
    'const out = new ArrayBuffer(binding.LAYOUT.bufferLength * 8)',
    'const attempt = (f) => { try { return f() } catch (e) { return `${e.constructor.name}: ${e.message}` } }',
    source,
  ].join('\n')
  const { stdout, stderr, status } = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' })
  assert.equal(status, 0, stderr)
  return { answer: JSON.parse(stdout), stderr }
}

describe('tokens', () => {
  test("encodingOf: the encoding of an encoding's name or an OpenAI model's, else null", () => {
    const cases = {
      o200k_base: 'o200k_base',
      cl100k_base: 'cl100k_base',
      'gpt-4o': 'o200k_base',
      'gpt-4o-mini': 'o200k_base',
      'gpt-4': 'cl100k_base',
      'gpt-3.5-turbo': 'cl100k_base',
      p50k_base: null,
      p50k: null,
      'claude-sonnet-4': null,
      '': null,
      ' o200k_base': null,
    }
    for (const [name, encoding] of Object.entries(cases)) assert.equal(binding.encodingOf(name), encoding, name)
  })

  test('a process loads an encoding once: before, nothing counts with it; damaged bytes load nothing; after, bytes are not read', () => {
    const vocab = fileURLToPath(new URL('../vocab/cl100k_base.bin.br', import.meta.url))
    const { answer, stderr } = inFreshProcess(`
      const { readFileSync } = require('node:fs')
      const { brotliDecompressSync } = require('node:zlib')
      const { request, slots } = binding.LAYOUT
      const plan = () => {
        const block = new Float64Array(out)
        const fields = { strategy: 0, maxChars: Infinity, maxBytes: Infinity, maxLines: Infinity, headRatio: 0.5,
          exact: 0, snap: 0, restack: 0, maxTokens: 5, tokenizer: 2 }
        for (const [field, value] of Object.entries(fields)) block[request[field]] = value
        return binding.plan(out, 'hello world', false, undefined, undefined)
      }
      const count = () => (binding.countTokens(out, 'hello world', false, 2, Infinity), new Float64Array(out)[slots.totalTokens])
      console.log(JSON.stringify([
        attempt(() => binding.loadTokenizer(out, 'cl100k_base', undefined)),
        attempt(count),
        attempt(plan),
        attempt(() => binding.loadTokenizer(out, 'cl100k_base', new Uint8Array(3))),
        attempt(() => binding.loadTokenizer(out, 'cl100k_base', Buffer.from('abc'))),
        attempt(() => binding.loadTokenizer(out, 'cl100k_base', undefined)),
        attempt(() => binding.loadTokenizer(out, 'cl100k_base', brotliDecompressSync(readFileSync(${JSON.stringify(vocab)})))),
        attempt(() => binding.loadTokenizer(out, 'cl100k_base', new Uint8Array(3))),
        attempt(count),
        attempt(plan),
        attempt(() => binding.loadTokenizer(out, 'o200k_base', undefined)),
        // Well-formed bytes of the other encoding are refused too: they would count wrong for good.
        attempt(() => binding.loadTokenizer(out, 'o200k_base', brotliDecompressSync(readFileSync(${JSON.stringify(vocab)})))),
        attempt(() => binding.loadTokenizer(out, 'o200k_base', undefined)),
      ]))
    `)
    const damaged = 'Error: toolclamp: the cl100k_base vocabulary is damaged: the vocabulary'
    assert.deepEqual(answer, [
      false,
      'Error: toolclamp internal error: the cl100k_base vocabulary is not loaded',
      'Error: toolclamp internal error: the cl100k_base vocabulary is not loaded',
      `${damaged} has no token for the single byte 0x00`,
      `${damaged} ends inside rank 0: its token has 97 bytes, 2 are left`,
      false,
      true,
      // Loaded: the damaged bytes are not read.
      true,
      2,
      null,
      // One encoding loaded is not the other.
      false,
      'Error: toolclamp: the o200k_base vocabulary is damaged: it has 100256 ranks where o200k_base has 199998',
      false,
    ])
    assert.equal(stderr, '')
  })

  test('a loaded encoding keeps its vocabulary: bytes given again are not read', () => {
    const out = newOut()
    for (const name of ENCODINGS) {
      assert.equal(binding.loadTokenizer(out, name, undefined), true)
      assert.equal(binding.loadTokenizer(out, name, new Uint8Array(3)), true)
      assert.equal(binding.loadTokenizer(out, name, vocabOf(ENCODINGS.find((other) => other !== name))), true)
      binding.countTokens(out, 'hello world', false, codeOf(name), Infinity)
      assert.equal(new Float64Array(out)[S.totalTokens], 2)
    }
  })

  test('countTokens counts as the oracle does, and stops over its limit', () => {
    const arb = fc.tuple(fc.constantFrom(...ENCODINGS), tokenTextArb, fc.option(fc.integer({ min: 0, max: 40 }), { nil: Infinity }))
    fc.assert(
      fc.property(arb, ([name, text, limit]) => {
        const out = newOut()
        assert.equal(binding.countTokens(out, text, isWide(text), codeOf(name), limit), undefined)
        const values = new Float64Array(out)
        const expected = referenceCount(name, text)
        assert.equal(values[S.verdict], LAYOUT.verdicts.fits)
        const answer = [values[S.fits], values[S.totalTokens]]
        assert.deepEqual(answer, expected <= limit ? [1, expected] : [0, -1], `${name} of ${JSON.stringify(text)}`)
      }),
      { numRuns: Math.ceil(RUNS / 5) },
    )
  })

  test('a cut within maxTokens of an encoding keeps at most that many tokens, and says how many', () => {
    const text = Array.from({ length: 400 }, (_, k) => TOKEN_PIECES[(k * 7) % TOKEN_PIECES.length]).join('')
    const out = newOut()
    const values = new Float64Array(out)
    for (const name of ENCODINGS) {
      const total = referenceCount(name, text)
      for (const strategy of [0, 1, 2]) {
        for (const maxTokens of [0, 1, 7, 50, total - 1]) {
          const request = planRequest({ strategy, maxChars: Infinity, maxTokens, tokenizer: codeOf(name) })
          const glue = invoke('plan', request, out, text, true, undefined, undefined)
          const result = text.slice(0, values[S.headEnd]) + glue + text.slice(values[S.tailStart])
          const tokens = referenceCount(name, result)
          const at = `${name}, strategy ${strategy}, ${maxTokens} tokens`
          assert.equal(values[S.verdict], LAYOUT.verdicts.cut, at)
          assert.ok(tokens <= maxTokens, `${at}: ${tokens}`)
          assert.deepEqual([values[S.outputTokens], values[S.tokensBound]], [tokens, 1], at)
          // Only tokens bound it: no dimension of the caller's did.
          assert.equal(values[S.truncatedBy], 0, at)
          if (maxTokens === 0) assert.equal(result, '', at)
          // The count of the text is exact or a lower bound, as it says.
          assert.ok(values[S.totalTokensExact] === 1 ? values[S.totalTokens] === total : values[S.totalTokens] <= total, at)
        }
        // Within its tokens, the text fits: its count is exact.
        const request = planRequest({ strategy, maxChars: Infinity, maxTokens: total, tokenizer: codeOf(name) })
        assert.equal(invoke('plan', request, out, text, true, undefined, undefined), null)
        assert.deepEqual(
          [values[S.verdict], values[S.outputTokens], values[S.totalTokens], values[S.totalTokensExact]],
          [LAYOUT.verdicts.fits, total, total, 1],
        )
      }
    }
  })

  test("a plan that counts with the caller's function calls it with each candidate result, and keeps one it counted", () => {
    const text = 'hello world, and more words after it\n'.repeat(20)
    for (const strategy of [0, 1, 2]) {
      const counted = new Map()
      const counter = (t) => {
        assert.equal(typeof t, 'string')
        counted.set(t, referenceCount('o200k_base', t))
        return counted.get(t)
      }
      const out = newOut()
      const values = new Float64Array(out)
      const request = planRequest({ strategy, maxChars: Infinity, maxTokens: 12, tokenizer: FUNCTION })
      const glue = invoke('plan', request, out, text, false, undefined, counter)
      const result = text.slice(0, values[S.headEnd]) + glue + text.slice(values[S.tailStart])
      assert.ok(counted.has(result), 'the result was counted')
      assert.ok(counted.get(result) <= 12)
      assert.deepEqual([values[S.outputTokens], values[S.tokensBound]], [counted.get(result), 1])
      // The whole text was the first candidate: its count is the function's, exact.
      assert.deepEqual([values[S.totalTokens], values[S.totalTokensExact]], [counted.get(text), 1])
      // The encoding agrees where the function counts as it does.
      invoke('plan', { ...request, tokenizer: codeOf('o200k_base') }, out, text, false, undefined, undefined)
      assert.equal(values[S.outputTokens], counted.get(result))
    }
  })

  test('a counter that throws, answers no count, or counts tokens for an empty text is refused as it should be, with no panic', () => {
    const { answer, stderr } = inFreshProcess(`
      const { request } = binding.LAYOUT
      const plan = (maxTokens, counter) => {
        const block = new Float64Array(out)
        const fields = { strategy: 0, maxChars: Infinity, maxBytes: Infinity, maxLines: Infinity, headRatio: 0.5,
          exact: 0, snap: 0, restack: 0, maxTokens, tokenizer: 3 }
        for (const [field, value] of Object.entries(fields)) block[request[field]] = value
        return binding.plan(out, 'hello world '.repeat(10), false, undefined, counter)
      }
      console.log(JSON.stringify([
        attempt(() => plan(5, () => { throw new SyntaxError('boom') })),
        attempt(() => plan(5, () => NaN)),
        attempt(() => plan(0, (t) => t.length + 1)),
        attempt(() => plan(5, (t) => t.length)),
      ]))
    `)
    assert.deepEqual(answer, [
      'SyntaxError: boom',
      'TypeError: toolclamp binding: plan: tokenCounter must return a non-negative integer, got NaN',
      'RangeError: toolclamp binding: plan: maxTokens must be at least 1, what tokenCounter counts for an empty text, got 0',
      // A counter that counts answers as ever: the notice alone is 5 chars.
      '[...]',
    ])
    assert.equal(stderr, '')
  })
})

// ---- Fail closed under random calls

const anyValue = fc.oneof(
  fc.constantFrom(undefined, null, true, false, 0, -1, 0.5, 1e300, NaN, Infinity, -Infinity, '', 'abc', 2 ** 53),
  fc.integer({ min: -5, max: 500 }),
  fc.string({ maxLength: 20 }),
  fc.constantFrom([], {}, [1, 2], ['a', 'b'], () => 'x', Symbol('s'), 10n),
  fc.constantFrom(new Float64Array(2), new Uint8Array(3), Buffer.from('abc'), new Float32Array(40), new ArrayBuffer(8)),
)
// What a request field may hold: anything a Float64Array takes (it coerces to a double).
const anyField = fc.oneof(
  fc.constantFrom(undefined, null, true, false, 0, 1, 2, 3, 4, -1, 0.5, 1e300, NaN, Infinity, -Infinity, '', '3', 2 ** 53),
  fc.integer({ min: -5, max: 500 }),
  fc.double(),
)
const asDouble = (value) => new Float64Array([value])[0]
const PIECES = ['a', 'Z', '\n', '\r\n', '\r', 'é', '日', '😀', '\uD800', '\uDC00', ' ']
const textArb = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((p) => p.join(''))
const budgetArb = fc.oneof(fc.integer({ min: 0, max: 120 }), fc.constant(Infinity))
const noticeArb = fc.constantFrom(undefined, '', '[cut]', '{omitted} at {where}', '<{headEnd}|{tailStart}>', () => '[cut here]')
const headRatioArb = fc.double({ min: 0, max: 1, noNaN: true })
// Plans take 'auto' (code 3) too; JSON clamps do not.
const keepArb = (maxStrategy) =>
  fc.record({
    strategy: fc.integer({ min: 0, max: maxStrategy }),
    maxChars: budgetArb,
    maxBytes: budgetArb,
    maxLines: budgetArb,
    headRatio: headRatioArb,
  })
// Texts for tokenizers: words, numbers, contractions, spaces, specials, long runs, any script.
const TOKEN_PIECES = [
  ...['hello', ' world', 'Hello', "'s", "'LL", "don't", '123', '4567', '_x', '...', '!?'],
  ...[' ', '  ', '\t', '\n', '\n\n', '\r\n'],
  ...['é', 'ñandú', 'Ω', '日本語', '😀', '👍🏽', '\uD800', '\uDC00'],
  // Special tokens are text like any other; a long piece is merged with a heap.
  ...['<|endoftext|>', '<|fim_prefix|>', 'x'.repeat(80), ' '.repeat(40), '9'.repeat(20)],
]
const tokenTextArb = fc.array(fc.constantFrom(...TOKEN_PIECES), { maxLength: 40 }).map((p) => p.join(''))
// Counters a caller may hand a plan: each counts an empty text as no tokens.
const COUNTERS = [(t) => t.length, (t) => Buffer.byteLength(t) >> 1, (t) => referenceCount('cl100k_base', t)]
// No limit in tokens (maxTokens is read all the same), an encoding's, or a function's.
const tokensArb = fc.oneof(
  fc.record({ maxTokens: budgetArb, tokenizer: fc.constant(0), counter: fc.constant(undefined) }),
  fc.record({
    maxTokens: fc.oneof(fc.integer({ min: 0, max: 30 }), budgetArb),
    tokenizer: fc.constantFrom(1, 2),
    counter: fc.constant(undefined),
  }),
  fc.record({ maxTokens: fc.integer({ min: 0, max: 30 }), tokenizer: fc.constant(FUNCTION), counter: fc.constantFrom(...COUNTERS) }),
)
const textPlanArb = fc
  .tuple(keepArb(3), fc.boolean(), fc.boolean(), fc.boolean(), tokensArb)
  .map(([keep, exact, snap, restack, { counter, ...tokens }]) => ({ request: { ...keep, exact, snap, restack, ...tokens }, counter }))
const planTextArb = fc.oneof(textArb, tokenTextArb)

/** A valid call of `name`: `{ args, request }`, the arguments after `out` included. */
function validCall(name) {
  switch (name) {
    case 'plan':
      return fc
        .tuple(planTextArb, noticeArb, textPlanArb)
        .map(([text, notice, { request, counter }]) => ({ args: [newOut(), text, isWide(text), notice, counter], request }))
    case 'planList':
      return fc.tuple(fc.array(planTextArb, { maxLength: 4 }), noticeArb, textPlanArb).map(([texts, notice, { request, counter }]) => ({
        args: [newOut(), texts, texts.some(isWide), texts.join('').length, notice, counter],
        request,
      }))
    case 'planBuffer':
      return fc
        .tuple(textArb, noticeArb, keepArb(3), fc.boolean())
        .map(([text, notice, keep, snap]) => ({ args: [newOut(), Buffer.from(text), notice], request: { ...keep, snap } }))
    case 'measure':
      return textArb.map((text) => ({ args: [newOut(), text, isWide(text)], request: {} }))
    case 'clampJson':
      return fc.tuple(fc.jsonValue({ maxDepth: 3 }), keepArb(2), fc.boolean(), fc.constantFrom('', '  ', '→')).map(([v, request, m, g]) => {
        const text = JSON.stringify(v)
        return { args: [newOut(), text, isWide(text), m, g], request }
      })
    case 'clampJsonText':
      // Any text: JSON as JSON.stringify(v, null, 1) writes it, or not JSON at all.
      return fc
        .tuple(
          fc.oneof(
            fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v, null, 1)),
            textArb,
          ),
          keepArb(2),
          fc.boolean(),
          fc.constantFrom('', '  ', '→'),
        )
        .map(([text, request, m, g]) => ({ args: [newOut(), text, m, g], request }))
    case 'planPage':
      return fc
        .tuple(
          textArb,
          fc.integer({ min: 1, max: 5 }),
          fc.integer({ min: 0, max: 3 }),
          fc.integer({ min: 4, max: 300 }),
          fc.integer({ min: 1, max: 5 }),
        )
        .map(([text, line, col, b, l]) => ({ args: [newOut(), text, isWide(text), line, col, b, l], request: {} }))
    case 'repage':
      // A page under its banner as planPage shows it, or any text.
      return fc
        .tuple(textArb, fc.boolean(), budgetArb, fc.oneof(budgetArb, fc.integer({ min: 100, max: 400 })), budgetArb, fc.boolean())
        .map(([text, asPage, maxChars, maxBytes, maxLines, bytes]) => {
          let shown = text
          if (asPage) {
            try {
              const banner = binding.planPage(newOut(), text, isWide(text), 1, 0, 200, 6)
              if (banner !== null) shown = `${banner}\n${text}`
            } catch {
              // Too small for a page: any text will do.
            }
          }
          return { args: [newOut(), shown, isWide(shown), bytes], request: { maxChars, maxBytes, maxLines } }
        })
    default:
      return fc.constant(null)
  }
}

/** The limits a call's request block asks for. */
const limitsOf = (request) => ({ maxChars: request.maxChars, maxBytes: request.maxBytes, maxLines: request.maxLines })

/** Checks the answer of `name` to a call (`{ args, request }`, request as doubles) that returned. */
function answerOf(name, { args, request }, returned, buffer) {
  const out = new Float64Array(buffer)
  const verdict = out[S.verdict]
  if (name === 'plan' || name === 'planList' || name === 'planBuffer') {
    const text = name === 'plan' ? args[1] : name === 'planList' ? args[1].join('') : Buffer.from(args[1]).toString('utf8')
    const limits = limitsOf(request)
    if (verdict === LAYOUT.verdicts.fits) {
      assert.ok(fits(text, limits), 'answered "fits" for a text that does not')
      if (name !== 'planBuffer') assert.equal(returned, null)
      if (name !== 'planBuffer') tokensHold({ args, request }, text, text, out)
      return
    }
    assert.equal(verdict, LAYOUT.verdicts.cut, `verdict ${verdict}`)
    const units = name === 'planBuffer' ? null : text
    const result = units === null ? returned : units.slice(0, out[S.headEnd]) + returned + units.slice(out[S.tailStart])
    assert.ok(fits(result, limits), `${JSON.stringify(result)} exceeds ${JSON.stringify(limits)}`)
    // Counts are exact where a budget is set, or everywhere when asked (planBuffer always is).
    const exact = name === 'planBuffer' || request.exact === 1
    // The strategy used: the one asked for, or what 'auto' resolved to.
    const code = request.strategy
    const used = LAYOUT.strategies[out[S.strategy]]
    assert.ok(code === 3 ? used === 'head' || used === 'headTail' : used === LAYOUT.strategies[code], `strategy ${used} for ${code}`)
    const m = measure(result)
    const reported = { chars: out[S.outputChars], bytes: out[S.outputBytes], lines: out[S.outputLines] }
    for (const dim of LAYOUT.dims) {
      const limit = limits[`max${dim[0].toUpperCase()}${dim.slice(1)}`]
      if (exact || limit !== Infinity) assert.equal(reported[dim], m[dim], `output ${dim}`)
    }
    if (name !== 'planBuffer') tokensHold({ args, request }, text, result, out)
    return
  }
  if (name === 'measure') {
    assert.equal(verdict, LAYOUT.verdicts.measured)
    assert.deepEqual([out[S.totalChars], out[S.totalBytes], out[S.totalLines]], Object.values(measure(args[1])))
    return
  }
  if (name === 'planPage') assert.equal(verdict, LAYOUT.verdicts.page)
  if (name === 'repage') {
    if (verdict === LAYOUT.verdicts.fits) return assert.equal(returned, null)
    assert.equal(verdict, LAYOUT.verdicts.page, `verdict ${verdict}`)
    const text = args[1]
    assert.ok(out[S.pageStart] <= out[S.pageEnd] && out[S.pageEnd] <= text.length)
    if (returned === null) return
    const result = `${returned}\n${text.slice(out[S.pageStart], out[S.pageEnd])}`
    assert.ok(fits(result, limitsOf(request)), `${JSON.stringify(result)} exceeds ${JSON.stringify(request)}`)
  }
  if (name === 'clampJson') {
    const limits = limitsOf(request)
    const gap = args[4]
    const rendered = (v) => (gap === '' ? JSON.stringify(v) : JSON.stringify(v, null, gap))
    if (verdict === LAYOUT.verdicts.fits) {
      assert.equal(returned, null)
      assert.ok(fits(rendered(JSON.parse(args[1])), limits), 'answered "fits" for a value that does not')
      return
    }
    assert.equal(verdict, LAYOUT.verdicts.cut, `verdict ${verdict}`)
    const end = returned.indexOf('\n')
    assert.ok(Array.isArray(JSON.parse(returned.slice(0, end))))
    const text = returned.slice(end + 1)
    const out = text === '' ? '' : rendered(JSON.parse(text))
    assert.ok(fits(out, limits), `${out} exceeds ${JSON.stringify(limits)}`)
    assert.equal(new Float64Array(buffer)[S.outputBytes], Buffer.byteLength(out))
  }
  if (name === 'clampJsonText') {
    const limits = limitsOf(request)
    if (verdict === LAYOUT.verdicts.fits) {
      assert.equal(returned, null)
      assert.ok(fits(args[1], limits), 'answered "fits" for a text that does not')
      return
    }
    assert.equal(verdict, LAYOUT.verdicts.cut, `verdict ${verdict}`)
    const out = returned.slice(returned.indexOf('\n') + 1)
    assert.ok(fits(out, limits), `${out} exceeds ${JSON.stringify(limits)}`)
    assert.equal(new Float64Array(buffer)[S.outputBytes], Buffer.byteLength(out))
    assert.equal(new Float64Array(buffer)[S.totalBytes], Buffer.byteLength(args[1]))
  }
}

/**
 * Checks the tokens of a plan's answer (`result`, of `text`) when its request limits them:
 * the result is within maxTokens as its tokenizer counts, the one whose count outputTokens
 * holds, and the text's count is exact when it says so (else a lower bound, or -1 when a
 * function never counted it whole).
 */
function tokensHold({ args, request }, text, result, out) {
  const tokenizer = LAYOUT.tokenizers[request.tokenizer]
  if (tokenizer === 'none') return
  const count = tokenizer === 'function' ? args.at(-1) : (t) => referenceCount(tokenizer, t)
  const tokens = count(result)
  assert.ok(tokens <= request.maxTokens, `${JSON.stringify(result)} has ${tokens} ${tokenizer} tokens, over ${request.maxTokens}`)
  assert.equal(out[S.outputTokens], tokens, 'outputTokens')
  const exact = out[S.totalTokensExact]
  assert.ok(exact === 0 || exact === 1)
  if (exact === 1) assert.equal(out[S.totalTokens], count(text), 'totalTokens')
  else if (tokenizer === 'function') assert.equal(out[S.totalTokens], -1)
  else assert.ok(out[S.totalTokens] >= 0 && out[S.totalTokens] <= count(text), `totalTokens ${out[S.totalTokens]}`)
  // Tokens bind only a cut, and only one whose result is not the whole text.
  if (out[S.tokensBound] === 1) assert.equal(out[S.verdict], LAYOUT.verdicts.cut)
  else assert.equal(out[S.tokensBound], 0)
}

/** The request as the binding reads it: each field as the double the array holds. */
const asRead = (request) => Object.fromEntries(Object.entries(request).map(([field, value]) => [field, asDouble(value)]))

const RANDOM_CALLS = ['plan', 'planList', 'planBuffer', 'measure', 'planPage', 'repage', 'clampJson', 'clampJsonText']

describe('fail closed', () => {
  test('valid calls answer, and every answer holds', () => {
    for (const name of RANDOM_CALLS) {
      fc.assert(
        fc.property(validCall(name), (call) => {
          let returned
          try {
            returned = invoke(name, call.request, ...call.args)
          } catch (error) {
            // Only a page outside the text or too small for its banner, or a text that is not JSON, may be refused.
            const refused =
              (name === 'planPage' && error instanceof RangeError) ||
              (name === 'clampJsonText' && error instanceof TypeError && error.message.startsWith('text: not valid JSON'))
            assert.ok(refused, `${name}: ${error}`)
            return
          }
          answerOf(name, { args: call.args, request: asRead(call.request) }, returned, call.args[0])
        }),
        { numRuns: Math.ceil(RUNS / 5) },
      )
    }
  })

  test('a call with any argument or request field replaced by a random value throws or answers correctly', () => {
    for (const name of RANDOM_CALLS) {
      const arb = fc.tuple(validCall(name), fc.nat(), anyValue, anyField)
      fc.assert(
        fc.property(arb, ([call, which, value, field]) => {
          const fields = Object.keys(call.request)
          const i = which % (call.args.length + fields.length)
          const mutated = call.args.slice()
          const request = { ...call.request }
          if (i < mutated.length) mutated[i] = value
          else request[fields[i - mutated.length]] = field
          const out = mutated[0]
          if (out instanceof ArrayBuffer && out.byteLength >= LAYOUT.bufferLength * 8) new Float64Array(out)[S.verdict] = 0
          let returned
          try {
            returned = invoke(name, request, ...mutated)
          } catch (error) {
            assert.ok(error instanceof TypeError || error instanceof RangeError, `${name}: ${error}`)
            assert.match(error.message, /^(toolclamp binding: |notice |offset |column |limits: |text: |maxBytes |maxLines )/)
            return
          }
          // The replacement happened to be valid: the answer must hold for these arguments.
          if (name === 'plan' && mutated[2] !== isWide(mutated[1])) return // Latin-1 claimed for a wide text: not a call native.js makes
          if (name === 'planList' && (!Array.isArray(mutated[1]) || mutated[2] !== mutated[1].some(isWide))) return
          if (name === 'measure' && mutated[2] !== isWide(mutated[1])) return
          if ((name === 'planPage' || name === 'repage') && mutated[2] !== isWide(mutated[1])) return
          if (name === 'clampJson' && mutated[2] !== isWide(mutated[1])) return
          answerOf(name, { args: mutated, request: asRead(request) }, returned, out)
        }),
        { numRuns: Math.ceil(RUNS / 5) },
      )
    }
  })
})

describe('locateJson', () => {
  test('answers the spans of the values JSON.parse keeps, and names what is not JSON', () => {
    const out = newOut()
    const text = '{"a": [1, {"b": "x"}], "a": [2]}'
    assert.equal(binding.locateJson(out, text, false, '[["a",0],["a",1],[]]'), '[[29,30],null,[0,32]]')
    assert.equal(new Float64Array(out)[S.verdict], LAYOUT.verdicts.located)
    assert.equal(binding.locateJson(out, '["é", {"日": 1}]', true, '[[1,"日"]]'), '[[12,13]]')
    assert.throws(
      () => binding.locateJson(out, '{', false, '[]'),
      (e) => e instanceof TypeError && e.message === 'text: not valid JSON at position 1',
    )
    for (const paths of ['[[1.5]]', '{}', '[["a",-1]]', '[[true]]', 'x']) {
      assert.throws(
        () => binding.locateJson(out, '{}', false, paths),
        (e) => e instanceof TypeError && e.message.startsWith('paths: not a JSON array of paths of keys and indices'),
        paths,
      )
    }
  })
})

describe('planBudget', () => {
  const out = newOut
  const sizes = (...values) => new Float64Array(values)

  test('answers in place: an action code and the tokens a clamp keeps, per result', () => {
    const r = out()
    const fields = sizes(9_000, 27_000, 0, 40, 100, 300, 0, 40)
    binding.planBudget(r, fields, 5_000, 5_000, 0, 0)
    const slots = new Float64Array(r)
    assert.equal(slots[S.verdict], LAYOUT.verdicts.budgeted)
    assert.deepEqual([...fields.subarray(0, 2)], [LAYOUT.budgetActions.indexOf('clamp'), 4_900])
    assert.deepEqual([...fields.subarray(4, 6)], [LAYOUT.budgetActions.indexOf('keep'), 0])
    assert.deepEqual([slots[S.tokensBefore], slots[S.tokensAfter], slots[S.fits]], [9_100, 5_000, 1])
  })

  test('refuses sizes it cannot trust, and writes no verdict', () => {
    const cases = [
      [new Float64Array(new SharedArrayBuffer(32)), TypeError, /Float64Array over an attached ArrayBuffer/],
      [new Float32Array(4), TypeError, /Float64Array over an attached ArrayBuffer/],
      [[1, 2, 3, 4], TypeError, /Float64Array over an attached ArrayBuffer/],
      [sizes(1, 2, 3), RangeError, /4 numbers per result/],
      [sizes(1, 2, 3, NaN), RangeError, /non-negative integers/],
      [sizes(-1, 2, 3, 4), RangeError, /non-negative integers/],
      [sizes(1.5, 2, 3, 4), RangeError, /non-negative integers/],
    ]
    const detached = new Float64Array(4)
    structuredClone(detached.buffer, { transfer: [detached.buffer] })
    cases.push([detached, TypeError, /Float64Array over an attached ArrayBuffer/])
    for (const [k, [fields, type, message]] of cases.entries()) {
      const r = out()
      assert.throws(
        () => binding.planBudget(r, fields, 10, 10, 0, 0),
        (e) => e instanceof type && message.test(e.message),
        `case ${k}`,
      )
      assert.equal(new Float64Array(r)[S.verdict], 0)
    }
  })
})
