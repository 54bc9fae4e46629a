// clampJson and clampJsonText: examples, hostile values, and properties on random JSON
// values (fits, valid, same shape, fair, never mutates, identity). FC_RUNS sets the runs
// per property (default 10,000).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'

import { clampJson, clampJsonText } from '../index.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const check = (property) => fc.assert(property, { numRuns: RUNS })

/** Chars, bytes and lines of a rendering, as the limits count them. */
function measure(text) {
  let newlines = 0
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines++
  return { chars: text.length, bytes: Buffer.byteLength(text), lines: text === '' ? 0 : newlines + 1 }
}

function withinLimits(text, { maxChars = Infinity, maxBytes = 51200, maxLines = 2000 }) {
  const m = measure(text)
  return m.chars <= maxChars && m.bytes <= maxBytes && m.lines <= maxLines
}

const isItemsMarker = (v) => typeof v === 'string' && /^\[\.\.\.( [\d,]+ more items)?\]$/.test(v)
const isKeysMarker = (k) => /^…+$/.test(k)
const typeOf = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)

/** `cut` is `original` cut by the clamp: equal, a prefix/suffix, or two ends around a notice. */
function isCutOf(cut, original, markers) {
  if (cut === original) return true
  if (markers === 'none') return original.startsWith(cut) || original.endsWith(cut)
  if (cut === '') return true
  // The short notice: the two ends around it.
  for (const s of cut.matchAll(/\[\.\.\.\]/g)) {
    const head = cut.slice(0, s.index)
    const tail = cut.slice(s.index + 5)
    if (original.startsWith(head) && original.endsWith(tail) && head.length + tail.length < original.length) return true
  }
  const m = /\[\.\.\. ([\d,]+) bytes truncated\]/.exec(cut)
  if (m === null) return false
  const head = cut.slice(0, m.index)
  const tail = cut.slice(m.index + m[0].length)
  const omitted = Number(m[1].replaceAll(',', ''))
  return (
    original.startsWith(head) &&
    original.endsWith(tail) &&
    omitted === Buffer.byteLength(original) - Buffer.byteLength(head) - Buffer.byteLength(tail)
  )
}

/** The reference shape check: `out` keeps the shape of `v` (a JSON value as parsed). */
function sameShape(v, out, strategy, markers) {
  if (typeOf(v) !== typeOf(out)) return false
  if (typeof v === 'string') return isCutOf(out, v, markers)
  if (Array.isArray(v)) {
    const aligned = (front, back) =>
      front.length + back.length <= v.length &&
      front.every((x, i) => sameShape(v[i], x, strategy, markers)) &&
      back.every((x, i) => sameShape(v[v.length - back.length + i], x, strategy, markers))
    // "[...]" is also a string item cut to its shortest form: any item that reads as the
    // marker may be it, or none.
    for (let m = 0; markers === 'inline' && m < out.length; m++) {
      if (isItemsMarker(out[m]) && aligned(out.slice(0, m), out.slice(m + 1))) return true
    }
    if (strategy === 'head') return aligned(out, [])
    if (strategy === 'tail') return aligned([], out)
    for (let p = 0; p <= out.length; p++) if (aligned(out.slice(0, p), out.slice(p))) return true
    return false
  }
  if (typeof v === 'object' && v !== null) {
    const keys = Object.keys(v)
    let at = 0
    for (const [k, x] of Object.entries(out)) {
      if (markers === 'inline' && isKeysMarker(k) && !Object.hasOwn(v, k)) continue
      const pos = keys.indexOf(k, at)
      if (pos === -1) return false
      at = pos + 1
      if (!sameShape(v[k], x, strategy, markers)) return false
    }
    return true
  }
  return Object.is(v, out)
}

// ---- Arbitraries: JSON values as JSON.parse makes them (no -0), with strings that need
// escapes, multi-byte and astral chars, and lone surrogates.
const CHARS = ['a', 'b', ' ', '"', '\\', '\n', '\r', '\t', '\u0001', 'é', '日', '😀', '\uD800', '\uDC00', '…']
const str = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.constantFrom(...CHARS), { maxLength: 20 }).map((a) => a.join('')) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }).map((n) => 'x'.repeat(n)) },
)
const key = fc.oneof(fc.constantFrom('a', 'b', 'stdout', 'stderr', '…', '__proto__', 'a key', ''), str)
const { value: jsonArb } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1e6, max: 1e9 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
    str,
    fc.array(tie('value'), { maxLength: 12 }),
    fc.array(fc.tuple(key, tie('value')), { maxLength: 8 }).map((pairs) => {
      const o = {}
      for (const [k, x] of pairs) Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true })
      return o
    }),
  ),
}))
const budget = (max) => fc.oneof(fc.constant(undefined), fc.constant(Infinity), fc.integer({ min: 0, max }))
const optionsArb = fc.record(
  {
    maxChars: budget(3000),
    maxBytes: budget(3000),
    maxLines: budget(60),
    strategy: fc.constantFrom('head', 'tail', 'headTail'),
    headRatio: fc.double({ min: 0, max: 1, noNaN: true }),
    markers: fc.constantFrom('inline', 'none'),
    space: fc.constantFrom(undefined, 0, 2, '\t', '→'),
  },
  { requiredKeys: [] },
)
const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined))

// ---- Examples

describe('clampJson', () => {
  test('a 5 MB stdout beside a 200-byte stderr keeps all of stderr, and the result parses', () => {
    const result = { command: 'npm test', stdout: 'x'.repeat(5 << 20), stderr: 'e'.repeat(200), exitCode: 1 }
    const clamped = clampJson(result, { maxBytes: 51_200 })
    assert.equal(clamped.truncated, true)
    assert.equal(clamped.value.stderr, result.stderr)
    assert.equal(clamped.value.exitCode, 1)
    assert.equal(clamped.value.command, 'npm test')
    const text = JSON.stringify(clamped.value)
    assert.ok(Buffer.byteLength(text) <= 51_200)
    assert.equal(Buffer.byteLength(text), clamped.outputBytes)
    assert.equal(clamped.totalBytes, Buffer.byteLength(JSON.stringify(result)))
    assert.match(clamped.value.stdout, /^x+\[\.\.\. [\d,]+ bytes truncated\]$/)
    const kept = clamped.value.stdout.indexOf('[')
    assert.deepEqual(clamped.elided, [{ path: '$.stdout', keptBytes: kept, totalBytes: 5 << 20 }])
  })

  test('arrays keep their first items and say how many were dropped', () => {
    const items = Array.from({ length: 1244 }, (_, i) => ({ id: i, msg: `request ${i} handled` }))
    const { value, elided } = clampJson({ items, next: 'cursor' }, { maxBytes: 600 })
    const kept = value.items.length - 1
    assert.equal(value.items.at(-1), `[... ${(1244 - kept).toLocaleString('en-US')} more items]`)
    assert.deepEqual(value.items.slice(0, kept), items.slice(0, kept))
    assert.equal(value.next, 'cursor')
    assert.deepEqual(elided, [{ path: '$.items', kept, total: 1244 }])
  })

  test('headTail keeps the first and the last items', () => {
    const items = Array.from({ length: 100 }, (_, i) => i * 1000)
    const { value } = clampJson(items, { maxBytes: 80, strategy: 'headTail' })
    assert.equal(value[0], 0)
    assert.equal(value.at(-1), 99_000)
    assert.ok(value.some(isItemsMarker))
  })

  test("markers: 'none' adds no items and no keys: only shorter arrays and strings", () => {
    const v = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}` })), total: 200 }
    const { value, elided } = clampJson(v, { maxBytes: 300, markers: 'none' })
    assert.deepEqual(Object.keys(value), ['rows', 'total'])
    assert.ok(value.rows.every((row, i) => row.id === i && row.name === `row ${i}`))
    assert.deepEqual(elided, [{ path: '$.rows', kept: value.rows.length, total: 200 }])
  })

  test('dropped keys are counted under a "…" key', () => {
    const v = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, 'v'.repeat(50)]))
    const { value, elided } = clampJson(v, { maxBytes: 60 })
    const marker = Object.keys(value).find(isKeysMarker)
    assert.match(value[marker], /^\[\.\.\. \d+ more keys\]$/)
    assert.equal(elided.at(-1).path, '$')
    assert.equal(elided.at(-1).totalKeys, 30)
  })

  test('space: the budget is for the indented rendering, lines included', () => {
    const v = { list: Array.from({ length: 50 }, (_, i) => i) }
    const { value, truncated } = clampJson(v, { maxLines: 10, space: 2 })
    assert.equal(truncated, true)
    assert.ok(JSON.stringify(value, null, 2).split('\n').length <= 10)
    const kept = value.list.filter((x) => typeof x === 'number')
    assert.deepEqual(kept, v.list.slice(0, kept.length))
  })

  test('the very same value comes back when it fits', () => {
    const v = { a: [1, 2, 3], b: { c: 'text' } }
    const result = clampJson(v)
    assert.equal(result.value, v)
    const bytes = Buffer.byteLength(JSON.stringify(v))
    assert.deepEqual(result, { value: v, truncated: false, totalBytes: bytes, outputBytes: bytes, elided: [] })
    const big = { text: 'é'.repeat(20_000) } // over the length proof, within 51,200 bytes
    assert.equal(clampJson(big).value, big)
  })

  test('cycles, BigInt, toJSON, throwing getters, revoked proxies, functions and symbols', () => {
    const v = { when: new Date(0), big: 10n, f() {}, s: Symbol('s'), u: undefined, list: [1, () => 1, undefined] }
    v.self = v
    Object.defineProperty(v, 'bad', {
      enumerable: true,
      get: () => {
        throw new Error('nope')
      },
    })
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    v.revoked = proxy
    const result = clampJson(v, { maxBytes: 10_000 })
    assert.deepEqual(result.value, {
      when: '1970-01-01T00:00:00.000Z',
      big: '10',
      list: [1, null, null],
      self: '[Circular]',
      bad: '[Unreadable: nope]',
      revoked: result.value.revoked,
    })
    assert.match(result.value.revoked, /^\[Unreadable: /)
    assert.equal(result.truncated, false)
    // Cut as well as marked.
    const cut = clampJson({ inner: v, log: 'l'.repeat(10_000) }, { maxBytes: 500 })
    assert.ok(Buffer.byteLength(JSON.stringify(cut.value)) <= 500)
    assert.equal(cut.value.inner.self, '[Circular]')
  })

  test('what JSON.stringify makes undefined comes back as it is', () => {
    for (const v of [undefined, () => 1, Symbol('x')]) {
      assert.deepEqual(clampJson(v), { value: v, truncated: false, totalBytes: 0, outputBytes: 0, elided: [] })
    }
  })

  test('deep nesting neither throws nor exceeds the budget', () => {
    let v = 'x'.repeat(1000)
    for (let i = 0; i < 5000; i++) v = [v]
    const result = clampJson(v, { maxBytes: 4000 })
    assert.ok(Buffer.byteLength(JSON.stringify(result.value)) <= 4000)
  })

  test('limits and options fail loudly', () => {
    assert.throws(() => clampJson({}, { maxbytes: 10 }), {
      name: 'TypeError',
      message: 'unknown option "maxbytes"; did you mean "maxBytes"?',
    })
    assert.throws(() => clampJson({}, { markers: 'inline ' }), {
      name: 'TypeError',
      message: 'markers must be "inline" or "none", got "inline "',
    })
    assert.throws(() => clampJson({}, { strategy: 'middle' }), {
      name: 'TypeError',
      message: 'strategy must be "head", "tail" or "headTail", got "middle"',
    })
    assert.throws(() => clampJson({}, { space: 11 }), {
      name: 'RangeError',
      message: 'space must be an integer from 0 to 10 or a string, got 11',
    })
    assert.throws(() => clampJson({}, { maxBytes: -1 }), { name: 'RangeError' })
    assert.throws(() => clampJson({}, null), { name: 'TypeError', message: 'options must be an object, got null' })
    // No JSON value is smaller than 2 bytes but a one-digit number: nothing fits, and no error.
    assert.equal(clampJson(['a', 'b'], { maxBytes: 1 }).value, undefined)
  })
})

describe('clampJsonText', () => {
  test('a text within the limits comes back as it is, whitespace and all', () => {
    const text = '{ "a" : [1, 2] }'
    const result = clampJsonText(text, { maxBytes: 100 })
    assert.equal(result.text, text)
    assert.equal(result.json, true)
    assert.equal(result.truncated, false)
  })

  test('a longer text is parsed, clamped and rendered with space', () => {
    const text = JSON.stringify({ log: 'y'.repeat(300), codes: [1, 2, 3] }, null, 2)
    const result = clampJsonText(text, { maxBytes: 120, space: 2 })
    assert.equal(result.truncated, true)
    assert.ok(Buffer.byteLength(result.text) <= 120)
    assert.deepEqual(JSON.parse(result.text).codes, [1, 2, 3])
    assert.equal(result.outputBytes, Buffer.byteLength(result.text))
  })

  test('a text that is not JSON is clamped as text', () => {
    const result = clampJsonText('not json '.repeat(100), { maxBytes: 100 })
    assert.equal(result.json, false)
    assert.equal(result.truncated, true)
    assert.ok(Buffer.byteLength(result.text) <= 100)
    assert.throws(() => clampJsonText(42), { name: 'TypeError', message: 'text must be a string, got 42' })
  })
})

// ---- Properties

describe('clampJson properties', () => {
  test('fits, valid, same shape, honest counts; the same value when it fits', () => {
    check(
      fc.property(jsonArb, optionsArb, (v, raw) => {
        const options = defined(raw)
        const gap = typeof options.space === 'number' ? ' '.repeat(options.space) : (options.space ?? '')
        const full = JSON.stringify(v, null, gap)
        const result = clampJson(v, options)
        if (withinLimits(full, options)) {
          assert.equal(result.value, v)
          assert.equal(result.truncated, false)
          return
        }
        assert.equal(result.truncated, true)
        const out = JSON.stringify(result.value, null, gap) ?? ''
        assert.ok(withinLimits(out, options), `${out} over ${JSON.stringify(options)}`)
        if (result.value === undefined || (result.value === '[...]' && typeOf(v) !== 'string')) {
          // Not even the value's smallest form fits: "[...]" with inline markers, else nothing.
          const short = (options.markers ?? 'inline') === 'inline' && withinLimits('"[...]"', options)
          assert.equal(result.value, short ? '[...]' : undefined)
          assert.equal(result.outputBytes, short ? 7 : 0)
          assert.deepEqual(result.elided, [{ path: '$', keptBytes: 0, totalBytes: Buffer.byteLength(full) }])
          return
        }
        assert.equal(result.outputBytes, Buffer.byteLength(out))
        assert.equal(result.totalBytes, Buffer.byteLength(full))
        assert.deepEqual(JSON.parse(JSON.stringify(result.value)), result.value)
        assert.ok(sameShape(v, result.value, options.strategy ?? 'head', options.markers ?? 'inline'), `${out} from ${full}`)
        assert.ok(result.elided.length > 0)
      }),
    )
  })

  test('never mutates its input', () => {
    check(
      fc.property(jsonArb, optionsArb, (v, raw) => {
        const before = structuredClone(v)
        try {
          clampJson(v, defined(raw))
        } catch {
          // Limits too small: checked above.
        }
        assert.deepEqual(v, before)
      }),
    )
  })

  test('fair: a member no larger than an equal share of the room is kept whole', () => {
    check(
      fc.property(fc.array(fc.nat({ max: 400 }), { minLength: 1, maxLength: 8 }), fc.nat({ max: 2000 }), (sizes, maxBytes) => {
        const v = Object.fromEntries(sizes.map((n, i) => [`k${i}`, 'v'.repeat(n)]))
        let result
        try {
          result = clampJson(v, { maxBytes })
        } catch {
          return
        }
        const keys = Object.keys(v)
        const overhead = 1 + keys.reduce((sum, k) => sum + k.length + 4, 0)
        // Every member's smallest form: whole, or "[...]" (7 bytes).
        if (overhead + keys.reduce((sum, k) => sum + Math.min(v[k].length + 2, 7), 0) > maxBytes) return
        const share = Math.floor((maxBytes - overhead) / keys.length)
        for (const k of keys) if (v[k].length + 2 <= share) assert.equal(result.value[k], v[k], `${k} within share ${share}`)
      }),
    )
  })

  test("markers: 'none' never adds an item or a key", () => {
    check(
      fc.property(jsonArb, fc.nat({ max: 3000 }), (v, maxBytes) => {
        let result
        try {
          result = clampJson(v, { maxBytes, markers: 'none' })
        } catch {
          return
        }
        // Not even the smallest form fits: nothing at all.
        if (result.value === undefined) return
        const noneAdded = (a, b) => {
          if (Array.isArray(b)) return Array.isArray(a) && b.length <= a.length && b.every((x, i) => noneAdded(a[i], x))
          if (typeof b === 'object' && b !== null) return Object.keys(b).every((k) => Object.hasOwn(a, k) && noneAdded(a[k], b[k]))
          if (typeof b === 'string') return a.startsWith(b) || a.endsWith(b)
          return Object.is(a, b)
        }
        assert.ok(noneAdded(v, result.value), JSON.stringify(result.value))
      }),
    )
  })
})
