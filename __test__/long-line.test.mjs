// A long JSON-RPC line held by the binding (lib/mcp/long-line.js over src/line.rs and the
// core's json_line): its skeleton with the long strings put back is the value JSON.parse
// gives of the whole line, however it was written (escapes spelled any way JSON allows, lone
// surrogates, odd whitespace, duplicate keys, `__proto__`) and however it was chunked; its
// bytes come back as they came; it is refused exactly when JSON.parse refuses it (or it is
// not UTF-8); handles that are not its own, disposed, read or used from a worker fail
// clearly; the strings it makes outlive it. Then the proxy (`toolclamp mcp`) with long lines:
// a 40 MiB result clamped with the line held once, and long answers that pass byte for byte.
// FC_RUNS sets the runs (a tenth of it, at least 50).
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { isUtf8 } from 'node:buffer'
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import fc from 'fast-check'

const require = createRequire(import.meta.url)
const { LongLine, LONG_STRING_BYTES } = require('../lib/mcp/long-line.js')
const native = require('../lib/native.js')

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const RUNS = Math.max(50, Math.floor(Number(process.env.FC_RUNS ?? 1000) / 10))

// ---------------------------------------------------------------------------------------
// An exact comparison: -0 is not 0, own keys in the same order, `__proto__` an own property.
// ---------------------------------------------------------------------------------------

/** Fails with the path where `actual` and `expected` differ (no recursion: deep values are fine). */
function assertSame(actual, expected) {
  const stack = [[actual, expected, '$']]
  while (stack.length > 0) {
    const [a, b, at] = stack.pop()
    if (a === null || typeof a !== 'object' || b === null || typeof b !== 'object') {
      if (!Object.is(a, b)) assert.fail(`differs at ${at}: ${describe(a)} is not ${describe(b)}`)
      continue
    }
    assert.equal(Array.isArray(a), Array.isArray(b), `an array or not at ${at}`)
    assert.equal(Object.getPrototypeOf(a), Object.getPrototypeOf(b), `the prototype at ${at}`)
    const keys = Reflect.ownKeys(a)
    assert.deepEqual(keys, Reflect.ownKeys(b), `the own keys, in order, at ${at}`)
    for (const key of keys) {
      const da = Object.getOwnPropertyDescriptor(a, key)
      const db = Object.getOwnPropertyDescriptor(b, key)
      assert.deepEqual([da.enumerable, da.writable, da.configurable], [db.enumerable, db.writable, db.configurable], `${at}.${String(key)}`)
      stack.push([da.value, db.value, `${at}[${JSON.stringify(key)}]`])
    }
  }
}

function describe(v) {
  if (typeof v === 'string') return v.length > 60 ? `a string of ${v.length} (${JSON.stringify(v.slice(0, 40))}...)` : JSON.stringify(v)
  return Object.is(v, -0) ? '-0' : String(v)
}

test('the comparison tells apart what deepStrictEqual does not', () => {
  // Key order: deepStrictEqual takes both.
  assert.deepStrictEqual({ a: 1, b: 2 }, { b: 2, a: 1 })
  assert.throws(() => assertSame({ a: 1, b: 2 }, { b: 2, a: 1 }), /own keys/)
  assert.throws(() => assertSame([-0], [0]), /-0 is not 0/)
  // `__proto__` as JSON.parse makes it (an own property) against a prototype set.
  const own = JSON.parse('{"__proto__":{"x":1}}')
  assert.throws(() => assertSame(own, { __proto__: { x: 1 } }), /own keys|prototype/)
  assertSame(JSON.parse('{"__proto__":{"x":-0},"a":[1e400]}'), JSON.parse('{"__proto__":{"x":-0.0},"a":[1E+401]}'))
})

// ---------------------------------------------------------------------------------------
// Texts: a value (a tree, so that keys can repeat) written by JSON.stringify's rules or by a
// writer that spells every escape and space JSON allows, with its long strings noted.
// ---------------------------------------------------------------------------------------

const SPECIAL = ['"', '\\', '/', '\b', '\f', '\n', '\r', '\t', '\u0000', '\u001f', '\u007f', ' ', 'A', '~']
const LATIN1 = ['é', 'ÿ', '\u0080', '\u00a0', 'ß']
const WIDE = ['Ā', '漢字', '😀', '\u2028', '\uffff', '\ud800', '\udc00', '\udbff\udfff', '\ude00\ud83d']
const asciiPiece = fc.oneof(fc.constantFrom(...SPECIAL), fc.string({ unit: 'binary-ascii', maxLength: 6 }))
const anyPiece = fc.oneof(
  asciiPiece,
  fc.constantFrom(...LATIN1, ...WIDE),
  fc.string({ maxLength: 4 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 4 }),
)

/** A string of at least `min` UTF-16 units (so at least as many bytes as written), made by repeating pieces. */
const repeated = (pieces, min, max) =>
  fc.tuple(fc.array(pieces, { minLength: 1, maxLength: 5 }), fc.integer({ min, max })).map(([parts, length]) => {
    const unit = parts.join('') || 'x'
    return unit.repeat(Math.ceil(length / unit.length))
  })

const longString = fc.oneof(
  repeated(fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 8 }), LONG_STRING_BYTES + 1, 12_000),
  repeated(asciiPiece, LONG_STRING_BYTES + 1, 12_000),
  repeated(fc.oneof(asciiPiece, fc.constantFrom(...LATIN1)), LONG_STRING_BYTES + 1, 12_000),
  repeated(anyPiece, LONG_STRING_BYTES + 1, 12_000),
  // About the threshold: long or not depends on how it is written.
  repeated(anyPiece, 700, LONG_STRING_BYTES + 2),
)
const shortString = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...SPECIAL, ...LATIN1, ...WIDE, ''))
const NUMBERS = ['-0', '0', '-0.0', '1e400', '-1e400', '12345678901234567890', '1E+2', '1e-400', '0.1e-0', '-12.5E3', '5e-324']
const number = fc.oneof(
  fc.constantFrom(...NUMBERS),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.integer().map(String),
)
const KEYS = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'a', '', '0', '1', '10', '-1', '4294967295']
const key = fc.oneof(fc.constantFrom(...KEYS), shortString, fc.constant('k'.repeat(LONG_STRING_BYTES + 10)))

/** A JS value of fc.jsonValue as a tree. */
function treeOf(v) {
  if (Array.isArray(v)) return { t: 'arr', items: v.map(treeOf) }
  if (v !== null && typeof v === 'object') return { t: 'obj', entries: Object.keys(v).map((k) => [k, treeOf(v[k])]) }
  if (typeof v === 'string') return { t: 'str', s: v }
  if (typeof v === 'number') return { t: 'num', n: JSON.stringify(v) }
  return { t: 'lit', v: JSON.stringify(v) }
}

const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    fc.array(tie('tree'), { maxLength: 5 }).map((items) => ({ t: 'arr', items })),
    fc.array(fc.tuple(key, tie('tree')), { maxLength: 5 }).map((entries) => ({ t: 'obj', entries })),
  ),
  leaf: fc.oneof(
    fc.constantFrom('true', 'false', 'null').map((v) => ({ t: 'lit', v })),
    number.map((n) => ({ t: 'num', n })),
    shortString.map((s) => ({ t: 'str', s })),
    longString.map((s) => ({ t: 'str', s })),
    fc.jsonValue({ maxDepth: 2 }).map(treeOf),
  ),
}))

/** A small deterministic generator (mulberry32), so that a writer's choices shrink with its seed. */
function random(seed) {
  let a = seed >>> 0
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * n
  }
}

const SHORT_ESCAPES = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/** `\uXXXX` in lower or upper case hex. */
function uEscape(unit, pick) {
  const hex = unit.toString(16).padStart(4, '0')
  return `\\u${pick(2) < 1 ? hex : hex.toUpperCase()}`
}

/** A string written with escapes spelled at random (`\/`, `\u0041`, upper-case hex, `\u00e9` for é). */
function oddString(s, pick) {
  let out = '"'
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i)
    const ch = s[i]
    const roll = pick(16)
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A pair: as UTF-8 or as two escapes.
      out += roll < 12 ? s.slice(i, i + 2) : uEscape(unit, pick) + uEscape(s.charCodeAt(i + 1), pick)
      i++
    } else if (unit >= 0xd800 && unit <= 0xdfff) out += uEscape(unit, pick)
    else if (ch === '/') out += roll < 8 ? '/' : roll < 13 ? '\\/' : uEscape(unit, pick)
    else if (Object.hasOwn(SHORT_ESCAPES, ch)) out += roll < 12 ? SHORT_ESCAPES[ch] : uEscape(unit, pick)
    else if (unit < 0x20) out += uEscape(unit, pick)
    else out += roll < 14 ? ch : uEscape(unit, pick)
  }
  return `${out}"`
}

const SPACES = ['', '', '', ' ', '\t', '\n', '\r\n', ' \r\n\t ']

/**
 * `node` written as text: by JSON.stringify's rules, or (`odd`) with escapes and spaces
 * spelled at random. Notes each string value: its bytes as written, whether it is ASCII
 * decoded and whether it holds an escape as written.
 */
function write(node, odd, seed) {
  const pick = random(seed)
  const space = () => (odd ? SPACES[Math.floor(pick(SPACES.length))] : '')
  const str = (s) => (odd ? oddString(s, pick) : JSON.stringify(s))
  const strings = []
  const out = []
  const stack = [node]
  while (stack.length > 0) {
    const item = stack.pop()
    if (typeof item === 'string') {
      out.push(item)
      continue
    }
    switch (item.t) {
      case 'lit':
        out.push(item.v)
        break
      case 'num':
        out.push(item.n)
        break
      case 'str': {
        const written = str(item.s)
        strings.push({ bytes: Buffer.byteLength(written) - 2, ascii: /^[\0-\x7f]*$/.test(item.s), escaped: written.includes('\\') })
        out.push(written)
        break
      }
      case 'arr': {
        const parts = [`[${space()}`]
        item.items.forEach((child, i) => {
          if (i > 0) parts.push(`${space()},${space()}`)
          parts.push(child)
        })
        parts.push(`${space()}]`)
        stack.push(...parts.reverse())
        break
      }
      default: {
        const parts = [`{${space()}`]
        item.entries.forEach(([k, child], i) => {
          if (i > 0) parts.push(`${space()},${space()}`)
          parts.push(`${str(k)}${space()}:${space()}`, child)
        })
        parts.push(`${space()}}`)
        stack.push(...parts.reverse())
      }
    }
  }
  const text = `${space()}${out.join('')}${space()}`
  return { text, strings }
}

/** `bytes` cut at `cuts` (any integers: taken modulo the length), as views of one buffer. */
function chunked(bytes, cuts) {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks = []
  let from = 0
  for (const to of [...at, bytes.length]) {
    chunks.push(bytes.subarray(from, to))
    from = to
  }
  return chunks
}

function lineOf(chunks) {
  const line = new LongLine()
  for (const chunk of chunks) line.append(chunk)
  return line
}

const written = fc.record({ node: tree, odd: fc.boolean(), seed: fc.integer(), cuts: fc.array(fc.nat(), { maxLength: 8 }) })

test('differential: the skeleton with its strings put back is what JSON.parse gives, any spelling, any chunks, bytes as they came', () => {
  fc.assert(
    fc.property(written, ({ node, odd, seed, cuts }) => {
      const { text, strings } = write(node, odd, seed)
      const bytes = Buffer.from(text)
      const expected = JSON.parse(text)
      const long = strings.filter((s) => s.bytes >= LONG_STRING_BYTES)
      for (const inPlace of [false, true]) {
        const line = lineOf(chunked(bytes, cuts))
        try {
          assert.equal(line.length, bytes.length)
          const skeleton = line.skeleton()
          assert.notEqual(skeleton, undefined, 'a text JSON.parse takes is taken')
          // (restore puts the strings back into the skeleton itself: measured before)
          const skeletonLength = JSON.stringify(skeleton).length
          const value = line.restore(skeleton, inPlace)
          assertSame(value, expected)
          if (long.length === 0) assert.equal(value, skeleton, 'without a long string, the very skeleton')
          else assert.ok(skeletonLength < text.length - long.length * 1000, 'the skeleton leaves the long strings out')
          const decodedInPlace = inPlace && long.some((s) => s.ascii && s.escaped)
          const got = line.bytes()
          if (decodedInPlace) assert.equal(got, null)
          else assert.ok(got !== null && bytes.equals(got), 'the bytes as they came')
        } finally {
          line.dispose()
        }
      }
    }),
    { numRuns: RUNS },
  )
})

test('differential: a deep nest, a long string as the whole text, a long key, many long strings', () => {
  const cases = [
    `${'['.repeat(100_000)}"${'a'.repeat(5000)}"${']'.repeat(100_000)}`,
    `"${'\\u0041\\/'.repeat(1000)}"`,
    `{"${'k'.repeat(10_000)}":"${'v'.repeat(5000)}","__proto__":"${'\\n'.repeat(3000)}","__proto__":"${'é'.repeat(3000)}"}`,
    JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ [`k${i}`]: String(i).repeat(4096) }))),
  ]
  for (const text of cases) {
    for (const inPlace of [false, true]) {
      const line = lineOf([Buffer.from(text)])
      assertSame(line.restore(line.skeleton(), inPlace), JSON.parse(text))
      line.dispose()
    }
  }
})

// ---------------------------------------------------------------------------------------
// Rejection: what JSON.parse refuses, or bytes that are not UTF-8.
// ---------------------------------------------------------------------------------------

const BYTES = [0x00, 0x1f, 0x22, 0x5c, 0x2c, 0x5d, 0x7d, 0x3a, 0x75, 0x78, 0x30, 0x2d, 0x2e, 0x65, 0x20, 0x0a, 0x0b]
const BAD_UTF8 = [0x80, 0xbf, 0xc0, 0xc3, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff]
const mutation = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom('replace', 'insert', 'delete'),
  byte: fc.oneof(fc.constantFrom(...BYTES, ...BAD_UTF8), fc.integer({ min: 0, max: 255 })),
  // An escape or a surrogate written raw: ED A0 80 is U+D800 as (invalid) UTF-8.
  extra: fc.constantFrom([], [0xa0, 0x80], [0x5c, 0x75], [0x5c], [0x22], [0xef, 0xbb, 0xbf]),
})

function mutate(bytes, mutations) {
  const out = [...bytes]
  for (const { at, kind, byte, extra } of mutations) {
    const i = at % (out.length + 1)
    if (kind === 'delete') out.splice(i, 1 + extra.length)
    else if (kind === 'insert') out.splice(i, 0, byte, ...extra)
    else out.splice(i, 1, byte, ...extra)
  }
  return Buffer.from(out)
}

/** Small texts mostly (mutations are per byte), a long string now and then. */
const { tree: smallTree } = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small' },
    tie('leaf'),
    fc.array(tie('tree'), { maxLength: 3 }).map((items) => ({ t: 'arr', items })),
    fc
      .array(
        fc.tuple(
          key.filter((k) => k.length < 100),
          tie('tree'),
        ),
        { maxLength: 3 },
      )
      .map((entries) => ({ t: 'obj', entries })),
  ),
  leaf: fc.oneof(
    { arbitrary: fc.constantFrom('true', 'false', 'null').map((v) => ({ t: 'lit', v })), weight: 2 },
    { arbitrary: number.map((n) => ({ t: 'num', n })), weight: 3 },
    { arbitrary: shortString.map((s) => ({ t: 'str', s })), weight: 3 },
    { arbitrary: fc.constant({ t: 'str', s: `${'é\n'.repeat(1500)}😀` }), weight: 1 },
  ),
}))

test('rejection: skeleton() is undefined exactly when JSON.parse throws or the bytes are not UTF-8', () => {
  fc.assert(
    fc.property(
      smallTree,
      fc.boolean(),
      fc.integer(),
      fc.array(mutation, { minLength: 1, maxLength: 3 }),
      fc.array(fc.nat(), { maxLength: 4 }),
      (node, odd, seed, mutations, cuts) => {
        const bytes = mutate(Buffer.from(write(node, odd, seed).text), mutations)
        let parsed
        let refused = !isUtf8(bytes)
        if (!refused) {
          try {
            parsed = JSON.parse(bytes.toString())
          } catch {
            refused = true
          }
        }
        const line = lineOf(chunked(bytes, cuts))
        try {
          const skeleton = line.skeleton()
          assert.equal(skeleton === undefined, refused, `${JSON.stringify(bytes.toString('latin1'))}`)
          if (!refused) assertSame(line.restore(skeleton, true), parsed)
        } finally {
          line.dispose()
        }
      },
    ),
    { numRuns: RUNS * 4 },
  )
})

test('rejection: near misses', () => {
  const refused = [
    '',
    ' ',
    '\ufeff1',
    '[1,]',
    '{"a":1,}',
    '01',
    '-',
    '1.',
    '.5',
    '1e',
    '+1',
    'NaN',
    '"\\x"',
    '"\\u12G4"',
    '"\t"',
    '[1]]',
    '1 2',
    "'a'",
    '\u000b1',
  ]
  for (const text of refused) {
    assert.throws(() => JSON.parse(text), `${JSON.stringify(text)} JSON.parse refuses`)
    const line = lineOf([Buffer.from(text)])
    assert.equal(line.skeleton(), undefined, JSON.stringify(text))
    line.dispose()
  }
  for (const bytes of [
    [0x22, 0xff, 0x22],
    [0x22, 0xed, 0xa0, 0x80, 0x22],
    [0x22, 0xc3, 0x22],
    [0x31, 0x80],
  ]) {
    const line = lineOf([Buffer.from(bytes)])
    assert.equal(line.skeleton(), undefined, String(bytes))
    line.dispose()
  }
})

// ---------------------------------------------------------------------------------------
// Lifecycle and hostile use.
// ---------------------------------------------------------------------------------------

/** A line with every kind of long string: ASCII as written, ASCII escaped, Latin-1, wide. */
const KINDS = JSON.stringify({
  plain: 'a'.repeat(5000),
  escaped: 'x\n"/'.repeat(2000),
  latin1: 'café '.repeat(2000),
  wide: '漢字😀\ud800'.repeat(2000),
})

test('lifecycle: read once, disposed once, its errors clear', () => {
  const line = lineOf([Buffer.from(KINDS)])
  const value = line.restore(line.skeleton(), true)
  assertSame(value, JSON.parse(KINDS))
  assert.throws(() => line.append(Buffer.from(' ')), { name: 'Error', message: 'toolclamp: the JSON line was read already' })
  // Scanned again: its bytes were decoded in place, they are no JSON text now.
  assert.throws(() => line.skeleton(), { message: 'toolclamp: the JSON line was read already' })
  assert.equal(line.bytes(), null)
  line.dispose()
  line.dispose()
  const disposed = { name: 'Error', message: 'toolclamp: the JSON line was disposed' }
  assert.throws(() => line.append(Buffer.from('1')), disposed)
  assert.throws(() => line.skeleton(), disposed)
  assert.throws(() => line.restore({}, true), disposed)
  assert.throws(() => line.bytes(), disposed)

  // Not decoded in place: scanned again, the same value.
  const copied = lineOf([Buffer.from(KINDS)])
  assertSame(copied.restore(copied.skeleton(), false), JSON.parse(KINDS))
  assert.equal(copied.bytes().toString(), KINDS)
  assert.throws(() => copied.restore(copied.skeleton(), false), { message: 'toolclamp: the JSON line was read already' })
  copied.dispose()

  // Bytes read first: the line is frozen, nothing more is appended; its long strings are
  // not made over bytes JS can write to.
  const read = lineOf([Buffer.from('[1,'), Buffer.from('2]')])
  assert.deepEqual(read.bytes(), Buffer.from('[1,2]'))
  assert.throws(() => read.append(Buffer.from(' ')), { message: 'toolclamp: the JSON line was read already' })
  assert.deepEqual(read.restore(read.skeleton(), true), [1, 2])
  read.dispose()
  const long = lineOf([Buffer.from(KINDS)])
  long.bytes()
  assert.throws(() => long.restore(long.skeleton(), false), { message: 'toolclamp: the JSON line was read already' })
  long.dispose()
})

test('hostile: handles not its own, chunks not bytes, a detached buffer, a handle posted to a worker', () => {
  const capture = native.captureCreate('head', { maxChars: Infinity, maxBytes: 100, maxLines: Infinity }, 0.5, 0, false)
  const notOurs = { name: 'TypeError', message: /: line must be a JSON line handle$/ }
  for (const fake of [{}, null, undefined, 1, 'x', new Uint8Array(4), capture]) {
    assert.throws(() => native.jsonLineAppend(fake, Buffer.from('1')), notOurs)
    assert.throws(() => native.jsonLineScan(fake, 4096, 'm'), notOurs)
    assert.throws(() => native.jsonLineStrings(fake, new Uint8Array(1)), notOurs)
    assert.throws(() => native.jsonLineBytes(fake), notOurs)
    assert.throws(() => native.jsonLineLengths(fake), notOurs)
    assert.throws(() => native.jsonLineDispose(fake), notOurs)
  }
  native.captureDispose(capture)
  const line = new LongLine()
  const buffer = new ArrayBuffer(8)
  const view = new Uint8Array(buffer)
  structuredClone(buffer, { transfer: [buffer] })
  assert.throws(() => line.append(view), {
    name: 'TypeError',
    message: 'toolclamp binding: jsonLineAppend: chunk must be a Uint8Array whose buffer is not detached',
  })
  assert.throws(() => line.append('text'), { name: 'TypeError', message: /chunk must be a Uint8Array or Buffer/ })
  line.append(new Uint8Array(0))
  line.append(Buffer.from('"a"'))
  assert.equal(line.skeleton(), 'a')
  assert.throws(() => structuredClone(line.handle), { name: 'DataCloneError' })
  line.dispose()
})

test('strings and bytes outlive the line: disposed, let go, collected, memory reused', () => {
  const v8 = require('node:v8')
  v8.setFlagsFromString('--expose-gc')
  const gc = require('node:vm').runInNewContext('gc')
  const expected = JSON.parse(KINDS)
  let line = lineOf([Buffer.from(KINDS)])
  const kept = line.restore(line.skeleton(), false)
  const bytes = line.bytes()
  let other = lineOf([Buffer.from(KINDS)])
  const inPlace = other.restore(other.skeleton(), true)
  line.dispose()
  other.dispose()
  line = null
  other = null
  for (let round = 0; round < 3; round++) {
    gc()
    // Memory freed is taken again, and written over.
    const junk = Array.from({ length: 64 }, (_, i) => Buffer.alloc(64 * 1024, i))
    const texts = Array.from({ length: 64 }, (_, i) => String.fromCharCode(65 + (i % 26)).repeat(50_000))
    assert.equal(junk.length + texts.length, 128)
    gc()
  }
  assertSame(kept, expected)
  assertSame(inPlace, expected)
  assert.equal(bytes.toString(), KINDS)
})

test('a line used from a worker thread (the addon loaded there)', async () => {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads')
    const { LongLine } = require(workerData.module)
    const line = new LongLine()
    line.append(Buffer.from(workerData.text))
    const value = line.restore(line.skeleton(), true)
    line.dispose()
    parentPort.postMessage(value)
  `
  const worker = new Worker(source, { eval: true, workerData: { module: path.join(ROOT, 'lib/mcp/long-line.js'), text: KINDS } })
  const value = await new Promise((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  await worker.terminate()
  assertSame(value, JSON.parse(KINDS))
})

test("a second copy of lib/native.js (its cache entries gone) reads the first copy's handles as its own", () => {
  const ours = Object.keys(require.cache).filter((k) => k.startsWith(ROOT) && !k.includes('node_modules'))
  const saved = Object.fromEntries(ours.map((k) => [k, require.cache[k]]))
  for (const k of ours) delete require.cache[k]
  let second
  try {
    second = require('../lib/native.js')
  } finally {
    for (const k of Object.keys(require.cache)) if (k.startsWith(ROOT) && !k.includes('node_modules')) delete require.cache[k]
    Object.assign(require.cache, saved)
  }
  assert.notEqual(second, native)
  assert.notEqual(second.jsonLineScan, native.jsonLineScan)
  // Both ways: the same code under one tag, so the handle is read as the same line.
  const first = native.jsonLineCreate()
  second.jsonLineAppend(first, Buffer.from(KINDS))
  const skeleton = JSON.parse(native.jsonLineScan(first, LONG_STRING_BYTES, 'm-'))
  assert.deepEqual(skeleton, { plain: 'm-0', escaped: 'm-1', latin1: 'm-2', wide: 'm-3' })
  assert.deepEqual(second.jsonLineStrings(first, new Uint8Array(0)), Object.values(JSON.parse(KINDS)))
  native.jsonLineDispose(first)
  assert.throws(() => second.jsonLineBytes(first), { message: 'toolclamp: the JSON line was disposed' })
})

// ---------------------------------------------------------------------------------------
// The proxy with long lines.
// ---------------------------------------------------------------------------------------

const BIN = path.join(ROOT, 'bin/toolclamp.js')
const RAW_SERVER = path.join(ROOT, '__test__/fixtures/mcp-raw-server.mjs')
const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } }

// Proxies still running when the tests end (a test failed half way): stopped, with their servers.
const running = new Set()
after(() => {
  for (const child of running) child.kill('SIGTERM')
})

/** The proxy before the raw server, driven by lines: `call` answers a line as its bytes; `close` gives its stderr. */
function rawProxy(proxy = []) {
  const child = spawn(process.execPath, [BIN, 'mcp', '--verbose', ...proxy, '--', process.execPath, RAW_SERVER], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  running.add(child)
  child.on('exit', () => running.delete(child))
  const lines = []
  const waiting = []
  let pending = []
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  child.stdout.on('data', (chunk) => {
    for (let start = 0; ; ) {
      const at = chunk.indexOf(10, start)
      if (at === -1) {
        if (start < chunk.length) pending.push(chunk.subarray(start))
        break
      }
      lines.push(Buffer.concat([...pending, chunk.subarray(start, at + 1)]))
      pending = []
      start = at + 1
    }
    while (waiting.length > 0 && lines.length > 0) waiting.shift()(lines.shift())
  })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  const next = () => (lines.length > 0 ? Promise.resolve(lines.shift()) : new Promise((resolve) => waiting.push(resolve)))
  return {
    async call(id, method, params) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
      return next()
    },
    async close() {
      child.stdin.end()
      await exited
      return stderr
    },
  }
}

async function started(proxy = []) {
  const p = rawProxy(proxy)
  await p.call(1, 'initialize', INITIALIZE)
  await p.call(2, 'tools/list', {})
  return p
}

/** The peak RSS (MiB) the proxy reported, and its answer, for a `big` result of `mib` MiB. */
async function bigRun(mib) {
  const p = await started()
  const answer = await p.call(3, 'tools/call', { name: 'big', arguments: { mib } })
  const stderr = await p.close()
  const peak = /peak RSS (\d+) MiB/.exec(stderr)
  assert.ok(peak, `the peak is reported: ${stderr}`)
  return { peak: Number(peak[1]), answer }
}

test('proxy: a 40 MiB result is clamped, the line held about once (peak RSS against a 2 MiB result)', async () => {
  const small = await bigRun(2)
  const large = await bigRun(40)
  assert.ok(large.answer.length < 60_000, `${large.answer.length} bytes`)
  const text = JSON.parse(large.answer).result.content[0].text
  assert.match(text, /^00000000 INFO request handled/)
  assert.match(text, /\[\.\.\. [\d,]+ lines, [\d,]+ bytes truncated at the end \.\.\.\]/)
  // Measured 51 to 52 MiB over the 2 MiB run's 58 to 59 (the line once, decoded in place,
  // with the chunks not yet collected and the clamp's work; 94 MiB for 80 MiB): a second
  // copy of the line would add 40 more.
  const over = large.peak - small.peak
  assert.ok(over < 1.5 * 40, `peak RSS ${large.peak} MiB, ${over} MiB over a 2 MiB result's ${small.peak} MiB`)
})

/** A 3 MiB answer in its own spelling: odd escapes, an ASCII text all escapes, non-ASCII, CRLF. */
function oddAnswer(id, text) {
  return `{ "jsonrpc" : "2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"${text}"}],"_meta":{"a\\/b":"\\u00E9"}}}\r\n`
}
// 13 bytes as written, 5 decoded.
const ESCAPED_TEXT = '\\u0041\\/\\"x\\n'.repeat(300_000)
const MIXED_TEXT = 'é \\u00e9 漢字 😀 \\ud83d\\ude00 \\/ \\u0041'.repeat(80_000)

test('proxy: long answers the clamp does not change go out byte for byte', async () => {
  const p = await started(['--tool', 'raw=100m', '--tool', 'echo=off'])
  // An answer to a method that is no tool call.
  const line = oddAnswer('r-1', ESCAPED_TEXT)
  assert.ok(line.length > 3 * 1024 * 1024)
  assert.deepEqual(await p.call('r-1', 'fixture/raw', { line }), Buffer.from(line))
  const mixed = oddAnswer('r-2', MIXED_TEXT)
  assert.deepEqual(await p.call('r-2', 'fixture/raw', { line: mixed }), Buffer.from(mixed))
  // A tool call whose budget holds it.
  const call = oddAnswer(4, ESCAPED_TEXT)
  assert.deepEqual(await p.call(4, 'tools/call', { name: 'raw', arguments: { line: call } }), Buffer.from(call))
  await p.close()
  // A tool left alone.
  const off = await started(['--tool', 'raw=off'])
  const answer = oddAnswer(5, MIXED_TEXT)
  assert.deepEqual(await off.call(5, 'tools/call', { name: 'raw', arguments: { line: answer } }), Buffer.from(answer))
  await off.close()
})

test('proxy: a long tool answer over its byte budget as written, within it decoded, goes out byte for byte', async () => {
  // 3.7 MiB as written, 1.4 MiB of text decoded: the budget of 2 MiB holds it.
  const p = await started(['--tool', 'raw=2m'])
  const line = oddAnswer(4, ESCAPED_TEXT)
  assert.deepEqual(await p.call(4, 'tools/call', { name: 'raw', arguments: { line } }), Buffer.from(line))
  await p.close()
})

test('proxy: a long tool answer whose bulk the clamp leaves (an image) goes out byte for byte; its text over the budget is cut', async () => {
  const p = await started([])
  // Base64 as some encoders write it (`/` as `\/`), beside a short text: nothing to cut.
  const data = 'QUJD\\/+9z'.repeat(400_000)
  const image = `{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"a chart"},{"type":"image","mimeType":"image/png","data":"${data}"}]}}`
  assert.deepEqual(await p.call(6, 'tools/call', { name: 'raw', arguments: { line: `${image}\n` } }), Buffer.from(`${image}\n`))
  // The same with a text over the budget: cut, and written anew.
  const cut = image.replace('"a chart"', `"${ESCAPED_TEXT}"`).replace('"id":6', '"id":7')
  const answer = JSON.parse((await p.call(7, 'tools/call', { name: 'raw', arguments: { line: `${cut}\n` } })).toString())
  const text = answer.result.content[0].text
  assert.ok(Buffer.byteLength(text) <= 51_200 && /\[\.\.\. /.test(text), 'the text is cut with a notice')
  assert.equal(answer.result.content[1].data, JSON.parse(`"${data}"`), 'the image is whole')
  await p.close()
})
