// JSON text kept as written, and budgets down to nothing. clampJsonText, the JSON-text tool
// results clampToolResultsInMessages cuts and the lines repairSessionFile rewrites never go
// through JS numbers: every kept number, string and key is its source text (big integers,
// 1e400, -0, escapes, duplicate keys). And whatever the budget, a JSON clamp is never over it
// and never silent: when nothing useful fits it says "[...]", or gives nothing when even that
// does not fit. FC_RUNS sets the runs per property (default 10,000; the every-budget
// properties run a hundredth of that).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import fc from 'fast-check'

import { clampJson, clampJsonText, hardTruncateToolPayload } from '../index.mjs'
import { clampToolResultsInMessages } from '../conversation.mjs'
import { repairSessionFile } from '../pi.mjs'
import { measure } from './reference.mjs'

const require = createRequire(import.meta.url)
const { replaceJsonValue } = require('../lib/json/json.js')

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const check = (property, runs = RUNS) => fc.assert(property, { numRuns: runs })
const EVERY_BUDGET_RUNS = Math.max(50, Math.floor(RUNS / 100))

const SHORT = '"[...]"'

// ---- A reference reading of JSON text that keeps every token as written

/**
 * Reads a JSON text (known valid) into nodes holding tokens as written: `{ kind: 'scalar' |
 * 'string', text }`, `{ kind: 'array', items }`, `{ kind: 'object', members: [[key, node]] }`
 * with keys as written (quotes included), duplicates kept, and each node's `span`.
 */
function readRaw(text) {
  let i = 0
  const skip = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++
  }
  const string = () => {
    const start = i++
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1
    i++
    return text.slice(start, i)
  }
  const value = () => {
    skip()
    const start = i
    let node
    if (text[i] === '"') node = { kind: 'string', text: string() }
    else if (text[i] === '[' || text[i] === '{') {
      const open = text[i++]
      const close = open === '[' ? ']' : '}'
      const items = []
      skip()
      if (text[i] === close) i++
      else {
        for (;;) {
          if (open === '{') {
            skip()
            const key = string()
            skip()
            i++ // ':'
            items.push([key, value()])
          } else items.push(value())
          skip()
          if (text[i++] === close) break
        }
      }
      node = open === '[' ? { kind: 'array', items } : { kind: 'object', members: items }
    } else {
      while (i < text.length && !',]} \t\n\r'.includes(text[i])) i++
      node = { kind: 'scalar', text: text.slice(start, i) }
    }
    node.span = [start, i]
    return node
  }
  const root = value()
  skip()
  assert.equal(i, text.length, `trailing text in ${text}`)
  return root
}

/** `JSON.stringify(value, null, gap)` of the tokens as written. */
function render(node, gap = '', depth = 0) {
  const indent = (d) => (gap === '' ? '' : `\n${gap.repeat(d)}`)
  if (node.kind === 'scalar' || node.kind === 'string') return node.text
  const parts = node.kind === 'array' ? node.items : node.members
  if (parts.length === 0) return node.kind === 'array' ? '[]' : '{}'
  const inner = parts.map((part) =>
    node.kind === 'array'
      ? indent(depth + 1) + render(part, gap, depth + 1)
      : `${indent(depth + 1)}${part[0]}${gap === '' ? ':' : ': '}${render(part[1], gap, depth + 1)}`,
  )
  const [open, close] = node.kind === 'array' ? ['[', ']'] : ['{', '}']
  return `${open}${inner.join(',')}${indent(depth)}${close}`
}

const isMarkerString = (token) => /^"(\[\.\.\.\]|\[\.\.\. [\d,]+ more (items|keys)\]|\[\.\.\. [\d,]+ bytes truncated\])"$/.test(token)
const isMarkerKey = (token) => /^"…+"$/.test(token)

/** A string's content (as written) cut from another's: equal, a prefix/suffix, or two ends around a notice. */
function stringCut(cut, original, markers) {
  if (cut === original) return true
  if (markers === 'none') return original.startsWith(cut) || original.endsWith(cut)
  for (const m of cut.matchAll(/\[\.\.\.\]|\[\.\.\. [\d,]+ bytes truncated\]/g)) {
    const head = cut.slice(0, m.index)
    const tail = cut.slice(m.index + m[0].length)
    if (original.startsWith(head) && original.endsWith(tail) && head.length + tail.length < original.length) return true
  }
  return false
}

/** `out` keeps tokens of `src` as written: the same scalars, strings cut from theirs, items and members in order. */
function cutOf(src, out, markers) {
  if (src.kind !== out.kind) return false
  if (src.kind === 'scalar') return src.text === out.text
  if (src.kind === 'string') return stringCut(out.text.slice(1, -1), src.text.slice(1, -1), markers)
  if (src.kind === 'array') {
    const a = src.items
    const b = out.items
    const aligned = (front, back) =>
      front.length + back.length <= a.length &&
      front.every((x, i) => cutOf(a[i], x, markers)) &&
      back.every((x, i) => cutOf(a[a.length - back.length + i], x, markers))
    for (let m = 0; m < b.length; m++) {
      if (markers === 'inline' && b[m].kind === 'string' && isMarkerString(b[m].text) && aligned(b.slice(0, m), b.slice(m + 1))) return true
    }
    for (let p = 0; p <= b.length; p++) if (aligned(b.slice(0, p), b.slice(p))) return true
    return false
  }
  let from = 0
  for (const [key, value] of out.members) {
    const marker = markers === 'inline' && isMarkerKey(key) && value.kind === 'string' && isMarkerString(value.text)
    if (marker && !src.members.some(([k]) => k === key)) continue
    const pos = src.members.findIndex(([k], i) => i >= from && k === key)
    if (pos === -1 || !cutOf(src.members[pos][1], value, markers)) return false
    from = pos + 1
  }
  return true
}

const isJson = (text) => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

function within(text, { maxChars = Infinity, maxBytes = 51_200, maxLines = 2_000 }) {
  const m = measure(text)
  return m.chars <= maxChars && m.bytes <= maxBytes && m.lines <= maxLines
}

// ---- Arbitraries: JSON texts with what JS numbers lose, escapes, duplicate keys, whitespace

const ws = fc.constantFrom('', '', '', '', ' ', '\n  ', '\t', '\r\n')
const numberArb = fc.oneof(
  fc.constantFrom(
    '12345678901234567890',
    '-98765432109876543210',
    '1e400',
    '-1e400',
    '1e-400',
    '-0',
    '-0.0',
    '0.10',
    '1E+2',
    '9007199254740993',
  ),
  fc.integer({ min: -1000, max: 100_000 }).map(String),
)
// No '[' in the content: the cut relation finds notices by it.
const ATOMS = ['a', 'b', ' ', 'é', '中', '😀', '…', '\\n', '\\"', '\\\\', '\\/', '\\u0041', '\\ud83d\\ude00', '\\r\\n', '\\ud800']
const stringArb = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.constantFrom(...ATOMS), { maxLength: 20 }).map((a) => `"${a.join('')}"`) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 1500 }).map((n) => `"${'x'.repeat(n)}"`) },
)
const keyArb = fc.constantFrom('"a"', '"\\u0061"', '"b"', '"id"', '"…"', '"……"', '"a key"', '"__proto__"', '""')
const { value: rawArb } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberArb,
    fc.constantFrom('true', 'false', 'null'),
    stringArb,
    fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 8 }).map((items) => `[${items.map((p) => p.join('')).join(',')}]`),
    fc
      .array(fc.tuple(ws, keyArb, ws, tie('value'), ws), { maxLength: 6 })
      .map((members) => `{${members.map(([a, k, b, v, c]) => `${a}${k}${b}:${v}${c}`).join(',')}}`),
  ),
}))
const jsonTextArb = fc.tuple(ws, rawArb, ws).map((parts) => parts.join(''))
const budget = (max) => fc.oneof(fc.constant(undefined), fc.constant(Infinity), fc.integer({ min: 0, max }))
const optionsArb = fc.record(
  {
    maxChars: budget(2000),
    maxBytes: budget(2000),
    maxLines: budget(40),
    strategy: fc.constantFrom('head', 'tail', 'headTail'),
    headRatio: fc.double({ min: 0, max: 1, noNaN: true }),
    markers: fc.constantFrom('inline', 'none'),
    space: fc.constantFrom(undefined, 0, 2, '\t'),
  },
  { requiredKeys: [] },
)
const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined))
const gapOf = (space) => (typeof space === 'number' ? ' '.repeat(space) : (space ?? ''))

/** Checks one clampJsonText against every promise. */
function checkText(text, options) {
  const result = clampJsonText(text, options)
  const markers = options.markers ?? 'inline'
  assert.equal(result.json, true)
  assert.equal(result.totalBytes, Buffer.byteLength(text))
  if (within(text, options)) {
    assert.deepEqual(result, {
      text,
      json: true,
      truncated: false,
      totalBytes: result.totalBytes,
      outputBytes: result.totalBytes,
      elided: [],
    })
    return result
  }
  const out = result.text
  assert.ok(within(out, options), `${JSON.stringify(out)} over ${JSON.stringify(options)}`)
  assert.equal(result.outputBytes, Buffer.byteLength(out))
  if (result.elided.length === 1 && result.elided[0].path === '$' && result.elided[0].keptBytes === 0 && !out.startsWith('"')) {
    // Nothing of the value fits, not even the short marker.
    assert.equal(out, '')
    assert.ok(markers === 'none' || !within(SHORT, options))
    return result
  }
  assert.ok(isJson(out), `not JSON: ${out}`)
  const src = readRaw(text)
  const kept = readRaw(out)
  // Laid out as JSON.stringify(value, null, space) lays out those tokens.
  assert.equal(out, render(kept, gapOf(options.space)))
  if (!result.truncated) {
    assert.deepEqual(result.elided, [])
    assert.equal(out, render(src, gapOf(options.space)))
  } else if (out !== SHORT || src.kind === 'string') {
    assert.ok(cutOf(src, kept, markers), `${out}\nis not a cut of\n${text}`)
    if (markers === 'inline') assert.ok(out.includes('[...'), `a silent cut: ${out}`)
  }
  return result
}

// ---- Reproductions

describe('JSON text is never read into JS numbers', () => {
  const text = `{"id": 12345678901234567890, "big": 1e400, "zero": -0, "a": 1, "a": 2, "s": "\\u00e9\\/", "log": "${'x'.repeat(500)}"}`

  test('clampJsonText keeps big integers, 1e400, -0, escapes and duplicate keys as written', () => {
    const result = clampJsonText(text, { maxBytes: 200 })
    assert.ok(
      result.text.startsWith('{"id":12345678901234567890,"big":1e400,"zero":-0,"a":1,"a":2,"s":"\\u00e9\\/","log":"xxx'),
      result.text,
    )
    assert.match(result.text, /\[\.\.\. [\d,]+ bytes truncated\]"\}$/)
    assert.equal(result.truncated, true)
    assert.ok(Buffer.byteLength(result.text) <= 200)
  })

  test('clampToolResultsInMessages cuts a JSON-text tool result keeping its tokens as written', () => {
    const payload = `{"id": 12345678901234567890, "cost": 1e400, "z": -0, "a": 1, "a": 2, "log": "${'x'.repeat(100_000)}"}`
    const messages = [
      { role: 'tool', tool_call_id: 'call_1', content: payload },
      { role: 'user', content: 'next' },
    ]
    const result = clampToolResultsInMessages(messages, { contextWindowTokens: 20_000, protectRecent: 0 })
    assert.equal(result.changed, true)
    assert.ok(result.messages[0].content.startsWith('{"id":12345678901234567890,"cost":1e400,"z":-0,"a":1,"a":2,"log":"xxx'))
    assert.equal(result.messages[0].tool_call_id, 'call_1')
  })

  test('repairSessionFile rewrites only the cut text of a line: every other value keeps its bytes', (t) => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-json-')))
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
    const file = path.join(dir, 'session.jsonl')
    const big = 'output line\n'.repeat(20_000)
    const head =
      '{"type":"message","id":"a1b2","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":'
    const tail =
      '},{"type":"image","data":"iVBORw0=","mimeType":"image/png"}],"isError":false,"timestamp":1735689600000,"usage":{"input":12345678901234567890,"cost":1e400,"zero":-0,"ratio":0.10},"x":1,"x":2,"extra":{"k":"\\u00e9"}}}'
    const header = '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}'
    fs.writeFileSync(file, `${header}\n${head}${JSON.stringify(big)}${tail}\n`)
    const report = repairSessionFile(file, { maxBytes: 4_000, backup: false })
    assert.equal(report.changed, true)
    const [first, line, end] = fs.readFileSync(file, 'utf8').split('\n')
    assert.equal(first, header)
    assert.equal(end, '')
    assert.ok(line.startsWith(head) && line.endsWith(tail), line.slice(-300))
    const text = JSON.parse(line).message.content[0].text
    assert.ok(Buffer.byteLength(text) <= 4_000)
    assert.match(text, /output line/)
  })

  test("clampJsonText says json: false for a text that is not JSON, '' included, even within the budget", () => {
    for (const text of ['not json {', '', ' ', '{"a":}', "{'a':1}", 'NaN', '[1,]']) {
      const result = clampJsonText(text)
      assert.equal(result.json, false, JSON.stringify(text))
      assert.equal(result.text, text)
      assert.equal(result.truncated, false)
    }
    // A lone surrogate written raw: JSON.parse reads it, and so does the clamp.
    assert.equal(clampJsonText('"\uD800"').json, true)
  })

  test('clampJsonText never throws on a JSON text, and totalBytes is the text it was given', () => {
    for (let maxBytes = 0; maxBytes < 20; maxBytes++) {
      const result = clampJsonText('["abc","def"]', { maxBytes })
      assert.ok(Buffer.byteLength(result.text) <= maxBytes)
      assert.equal(result.json, true)
    }
    const spaced = `{ "a" :   "${'x'.repeat(100)}" }`
    assert.equal(clampJsonText(spaced, { maxBytes: 50 }).totalBytes, Buffer.byteLength(spaced))
  })

  test('a value nested 10,000 deep is cut honestly, and a { type: "json" } output of it is clamped', () => {
    let deep = 'x'.repeat(100_000)
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const result = clampJson(deep)
    assert.equal(result.truncated, true)
    assert.ok(result.elided.some((e) => e.kept === 0 && e.total === 1 && e.path.startsWith('$[0][0]')))
    assert.ok(Buffer.byteLength(JSON.stringify(result.value)) <= 51_200)
    const output = hardTruncateToolPayload({ type: 'json', value: deep })
    assert.notEqual(output.value, deep)
    assert.ok(Buffer.byteLength(JSON.stringify(output.value)) <= 51_200)
    // As a text: planned without recursion, nothing read into JS.
    const text = `${'['.repeat(10_000)}"${'x'.repeat(100_000)}"${']'.repeat(10_000)}`
    const cut = clampJsonText(text)
    assert.equal(cut.truncated, true)
    assert.ok(cut.elided.length > 0 && Buffer.byteLength(cut.text) <= 51_200)
    assert.ok(isJson(cut.text))
  })
})

describe('budgets too small for JSON', () => {
  const data = { a: 'hello world', b: [1, 2, 3] }

  test('JSON data never becomes a fragment of its text, nor goes over, at any budget under 16 bytes', () => {
    for (let maxBytes = 0; maxBytes <= 16; maxBytes++) {
      const asData = hardTruncateToolPayload(data, { maxBytes })
      const asOutput = hardTruncateToolPayload({ type: 'json', value: data }, { maxBytes })
      const among = hardTruncateToolPayload([{ type: 'text', text: 'ok' }, data], { maxBytes })
      for (const [what, read] of [
        ['data', typeof asData === 'string' ? asData : JSON.stringify(asData)],
        ['output', asOutput.type === 'json' ? JSON.stringify(asOutput.value) : asOutput.value],
      ]) {
        assert.ok(Buffer.byteLength(read) <= maxBytes, `${what} at ${maxBytes}: ${read}`)
        assert.ok(read === '' || read.includes('[...'), `${what} at ${maxBytes} says nothing was cut: ${read}`)
      }
      assert.ok(!['{', '[', '"'].includes(asData), `a fragment at ${maxBytes}`)
      assert.equal(asOutput.type, maxBytes >= 7 ? 'json' : 'text')
      assert.equal(among.length, 2)
    }
  })

  test('clampJson and clampJsonText: "[...]" when the smallest form does not fit, nothing below 7 bytes', () => {
    assert.deepEqual(clampJson(['a', 'b'], { maxBytes: 1 }), {
      value: undefined,
      truncated: true,
      totalBytes: 9,
      outputBytes: 0,
      elided: [{ path: '$', keptBytes: 0, totalBytes: 9 }],
    })
    assert.equal(clampJson(['abc', 'def'], { maxBytes: 8 }).value, '[...]')
    assert.deepEqual(clampJson(['abc', 'def'], { maxBytes: 9 }).value, ['[...]'])
    assert.deepEqual(clampJson({ a: 'bcdefgh', i: [1, 2, 3] }, { maxBytes: 15 }).value, { '…': '[...]' })
    assert.equal(clampJsonText('"abcdefghijk"', { maxBytes: 10 }).text, '"abc[...]"')
    assert.equal(clampJsonText('12345678901234567890', { maxBytes: 10 }).text, SHORT)
    assert.equal(clampJsonText('12345678901234567890', { maxBytes: 10, markers: 'none' }).text, '')
    assert.equal(clampJsonText('[1,2]', { maxLines: 0 }).text, '')
  })
})

// ---- Properties

describe('JSON text fidelity', () => {
  test('every kept token is its source text; the result parses, fits, and is the text itself when it fits', () => {
    check(
      fc.property(jsonTextArb, optionsArb, (text, raw) => {
        checkText(text, defined(raw))
      }),
    )
  })

  test('replaceJsonValue writes only what changed: every other token keeps its bytes', () => {
    check(
      fc.property(jsonTextArb, fc.infiniteStream(fc.boolean()), (text, flips) => {
        const before = JSON.parse(text)
        // Every string leaf flipped or not: the changes an edit must write.
        const iterator = flips[Symbol.iterator]()
        const change = (v) => {
          if (typeof v === 'string') return iterator.next().value ? `${v}!` : v
          if (Array.isArray(v)) {
            const items = v.map(change)
            return items.every((x, i) => x === v[i]) ? v : items
          }
          if (v !== null && typeof v === 'object') {
            const entries = Object.entries(v).map(([k, x]) => [k, change(x)])
            if (entries.every(([k, x]) => x === v[k])) return v
            const o = {}
            for (const [k, x] of entries) Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true })
            return o
          }
          return v
        }
        const after = change(before)
        const edited = replaceJsonValue(text, [], before, after)
        assert.deepEqual(JSON.parse(edited), after)
        if (after === before) assert.equal(edited, text)
        // Scalars are never rewritten: each keeps its text, in order.
        const scalars = (node, out = []) => {
          if (node.kind === 'scalar') out.push(node.text)
          for (const item of node.items ?? []) scalars(item, out)
          for (const [, item] of node.members ?? []) scalars(item, out)
          return out
        }
        assert.deepEqual(scalars(readRaw(edited)), scalars(readRaw(text)))
      }),
    )
  })
})

describe('tiny budgets', () => {
  test('every budget from 0 up: never over, never silent, "[...]" whenever it fits', () => {
    check(
      fc.property(
        jsonTextArb,
        fc.constantFrom('maxBytes', 'maxChars'),
        fc.constantFrom('inline', 'none'),
        fc.constantFrom('head', 'tail', 'headTail'),
        (text, dim, markers, strategy) => {
          const most = Math.min(Buffer.byteLength(text) + 2, 100)
          for (let n = 0; n <= most; n++) {
            const options = { [dim]: n, markers, strategy }
            const result = checkText(text, options)
            if (markers === 'inline' && n >= 7) assert.notEqual(result.text, '', `nothing at ${n}`)
            // The value API keeps the same promise, on the value JSON.parse reads.
            const value = JSON.parse(text)
            const clamped = clampJson(value, options)
            const out = JSON.stringify(clamped.value) ?? ''
            assert.ok(within(out, options), `${out} over ${n}`)
            if (clamped.truncated && markers === 'inline') assert.ok(out === '' || out.includes('[...'), `silent: ${out}`)
            if (clamped.truncated && markers === 'inline' && n >= 7) assert.notEqual(out, '')
          }
        },
      ),
      EVERY_BUDGET_RUNS,
    )
  })
})
