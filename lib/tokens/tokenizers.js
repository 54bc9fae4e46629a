'use strict'

// Which tokenizer counts a budget's tokens, read once per option: the estimate (the
// default), an OpenAI encoding by its name or a model's, or the caller's own function. An
// encoding's vocabulary is loaded the first time it is named, from the package's vocab/
// folder, and then serves every call, every copy of this module and every worker of the
// process (the binding keeps it).

const { readFileSync } = require('node:fs')
const { join } = require('node:path')
const { brotliDecompressSync } = require('node:zlib')
const { failure, invalid, mustBe } = require('../common/errors.js')
const { describe, didYouMean } = require('../common/format.js')
const native = require('../native.js')

const ESTIMATE = Object.freeze({ name: 'estimate', code: 0, count: undefined, longest: undefined })
const EXPECTED = '"estimate", "o200k_base", "cl100k_base", an OpenAI model name or a function'
const VOCAB_DIR = join(__dirname, '..', '..', 'vocab')

// Tokenizers by the name they were given ('gpt-4o' and 'o200k_base' are one encoding).
const byName = new Map()
const BY_NAME_MAX = 256

/**
 * The tokenizer an option names: ESTIMATE for undefined or 'estimate', else
 * `{ name, code, count, longest }` (`count` only for a caller's function, checked on each
 * call; `longest`, the most UTF-8 bytes one token stands for, only for an encoding).
 * `prefix` names the option in errors (`stdout.`).
 */
function readTokenizer(value, prefix = '') {
  if (value === undefined || value === 'estimate') return ESTIMATE
  if (typeof value === 'function') {
    return { name: 'function', code: native.TOKENIZER_CODES.get('function'), count: checkedCounter(value), longest: undefined }
  }
  if (typeof value !== 'string') throw mustBe(TypeError, `${prefix}tokenizer`, EXPECTED, value)
  const known = byName.get(value)
  if (known !== undefined) return known
  const encoding = native.encodingOf(value)
  if (encoding === null) {
    const near = nearEncoding(value)
    throw mustBe(RangeError, `${prefix}tokenizer`, EXPECTED, value, near === undefined ? '' : `; did you mean "${near}"?`)
  }
  load(encoding)
  const code = native.TOKENIZER_CODES.get(encoding)
  const tokenizer = Object.freeze({ name: encoding, code, count: undefined, longest: native.longestToken(encoding) })
  if (byName.size >= BY_NAME_MAX) byName.clear()
  byName.set(value, tokenizer)
  return tokenizer
}

// The encodings' names, as the binding lists them.
const ENCODINGS = [...native.TOKENIZER_CODES.keys()].filter((name) => native.encodingOf(name) === name)

/** The encoding an unknown name may have meant: one it starts (`o200k`), or a typo away. */
function nearEncoding(name) {
  const lower = name.toLowerCase()
  return ENCODINGS.find((e) => lower.length >= 4 && e.startsWith(lower)) ?? didYouMean(name, ENCODINGS)
}

/** Loads an encoding's vocabulary, unless this process has it. */
function load(encoding) {
  if (native.loadTokenizer(encoding, undefined)) return
  const path = join(VOCAB_DIR, `${encoding}.bin.br`)
  let vocab
  try {
    vocab = brotliDecompressSync(readFileSync(path))
  } catch (cause) {
    throw failure(Error, `the ${encoding} vocabulary could not be read from ${path}: ${cause.message}`, 'TOOLCLAMP_TOKENIZER_UNAVAILABLE', {
      cause,
    })
  }
  native.loadTokenizer(encoding, vocab)
}

/**
 * The caller's counter as the binding calls it: synchronous, and a count of tokens (a
 * non-negative integer) or a clear error.
 */
function checkedCounter(count) {
  return (text) => {
    const n = count(text)
    if (!(Number.isInteger(n) && n >= 0)) {
      const hint = n instanceof Promise ? ' (a token counter must be synchronous)' : ''
      throw invalid(TypeError, `tokenizer function must return a non-negative integer, got ${describe(n)}${hint}`)
    }
    return n
  }
}

/** The tokens of `text` by a tokenizer of readTokenizer. */
function countWith(tokenizer, text) {
  if (tokenizer === ESTIMATE) return native.tokensOfBytes(Buffer.byteLength(text))
  if (tokenizer.count !== undefined) return tokenizer.count(text)
  return native.countTokens(text, tokenizer.name)
}

/** The tokens of `text` by a tokenizer of readTokenizer, or undefined when more than `limit`. */
function countWithin(tokenizer, text, limit) {
  if (tokenizer.count === undefined && tokenizer !== ESTIMATE) return native.countTokens(text, tokenizer.name, limit)
  const n = countWith(tokenizer, text)
  return n <= limit ? n : undefined
}

module.exports = { ESTIMATE, readTokenizer, countWith, countWithin }
