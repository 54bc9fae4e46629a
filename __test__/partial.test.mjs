// readPartial (seed 003): the leading banner, the continuation handle, pages that
// reassemble the original exactly (strings and Buffers, a single line longer than a page),
// fail-closed reads, and exact errors. FC_RUNS sets the runs per property (default 10,000).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'

import { readPartial, ToolOutputTooLargeError } from '../index.mjs'
import { measure, isSafeCut } from './reference.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const check = (property) => fc.assert(property, { numRuns: RUNS })
const count = (n) => n.toLocaleString('en-US')

/** Every page from the first, following nextOffset/nextColumn. */
function allPages(text, options = {}) {
  const pages = []
  let view = readPartial(text, options)
  pages.push(view)
  while (view.nextOffset !== null) {
    view = readPartial(text, { ...options, offset: view.nextOffset, column: view.nextColumn })
    pages.push(view)
    if (pages.length > 1e6) throw new Error('paging does not progress')
  }
  return pages
}

/** The reference page: whole lines while they fit; else as many chars of the line as fit. */
function referencePage(text, start, maxBytes, maxLines) {
  let end = start
  let lines = 0
  let bytes = 0
  // Whole lines first.
  while (end < text.length) {
    const nl = text.indexOf('\n', end)
    const lineEnd = nl === -1 ? text.length : nl + 1
    const b = Buffer.byteLength(text.slice(end, lineEnd))
    if (bytes + b > maxBytes || lines + 1 > maxLines) break
    bytes += b
    lines++
    end = lineEnd
  }
  if (end > start || end === text.length) return end
  // A line longer than the page: the longest safe prefix within maxBytes.
  let best = start
  for (let e = start + 1; e <= text.length && text.charCodeAt(e - 1) !== 10; e++) {
    if (Buffer.byteLength(text.slice(start, e)) > maxBytes) break
    if (isSafeCut(text, e)) best = e
  }
  return best
}

const lineText = (n, width = 40) => Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(6, '0')} ${'x'.repeat(width)}\n`).join('')

describe('readPartial', () => {
  test('a text that fits comes back whole, with no banner', () => {
    const text = lineText(10)
    const view = readPartial(text)
    assert.equal(view.text, text)
    assert.equal(view.page, text)
    assert.equal(view.partial, false)
    assert.equal(view.dropped, null)
    assert.equal(view.nextOffset, null)
    assert.equal(view.totalLines, 10)
    assert.equal(view.shownLines, 10)
    assert.deepEqual([view.firstLine, view.lastLine, view.startByte, view.endByte], [1, 10, 0, text.length])
  })

  test('the first page of a large text: banner first, then whole lines', () => {
    const text = lineText(5123) // 48 bytes a line
    const view = readPartial(text)
    const bytes = Buffer.byteLength(text)
    const shown = Math.min(2000, Math.floor(51200 / 48))
    const banner = `[PARTIAL view: lines 1–${count(shown)} of 5,123 shown (bytes 0–${count(shown * 48)} of ${count(bytes)}). Continue with offset=${shown + 1}.]`
    assert.equal(view.text.split('\n')[0], banner)
    assert.equal(view.text, `${banner}\n${view.page}`)
    assert.equal(view.page, text.slice(0, shown * 48))
    assert.equal(view.partial, true)
    assert.equal(view.dropped, 'tail')
    assert.equal(view.nextOffset, shown + 1)
    assert.equal(view.nextColumn, 0)
    assert.equal(view.shownLines, shown)
    assert.equal(view.totalLines, 5123)
  })

  test("the seed's example numbers: 2,000 lines of 5,123", () => {
    const text = lineText(5123, 10) // 18 bytes a line: lines bind before bytes
    const view = readPartial(text)
    assert.equal(
      view.text.split('\n')[0],
      `[PARTIAL view: lines 1–2,000 of 5,123 shown (bytes 0–36,000 of ${count(5123 * 18)}). Continue with offset=2001.]`,
    )
  })

  test('a middle page and the last page', () => {
    const text = lineText(100, 10)
    const middle = readPartial(text, { offset: 21, maxLines: 10 })
    assert.equal(middle.dropped, 'headAndTail')
    assert.equal(middle.page, text.split('\n').slice(20, 30).join('\n') + '\n')
    assert.equal(middle.text.split('\n')[0], `[PARTIAL view: lines 21–30 of 100 shown (bytes 360–540 of 1,800). Continue with offset=31.]`)
    const last = readPartial(text, { offset: 91, maxLines: 10 })
    assert.equal(last.dropped, 'head')
    assert.equal(last.nextOffset, null)
    assert.equal(last.text.split('\n')[0], '[PARTIAL view: lines 91–100 of 100 shown (bytes 1,620–1,800 of 1,800). End of text.]')
    const one = readPartial(text, { offset: 100, maxLines: 10 })
    assert.equal(one.text.split('\n')[0], '[PARTIAL view: line 100 of 100 shown (bytes 1,782–1,800 of 1,800). End of text.]')
  })

  test('a single line longer than a page is paged by column, without losing a byte', () => {
    const line = 'é😀abc'.repeat(20000) // 140,000 chars, 200,000 bytes, one line
    const text = `first\n${line}\nlast\n`
    const pages = allPages(text, { maxBytes: 51200 })
    assert.equal(pages.map((p) => p.page).join(''), text)
    const second = pages[1]
    assert.equal(second.firstLine, 2)
    assert.ok(second.nextColumn > 0)
    assert.match(second.text.split('\n')[0], new RegExp(`Continue with offset=2, column=${second.nextColumn}\\.\\]$`))
    assert.match(pages[2].text.split('\n')[0], /from column [\d,]+ of line 2/)
    for (const p of pages) assert.ok(p.shownBytes <= 51200)
  })

  test('Buffers page by bytes and reassemble the bytes', () => {
    const text = lineText(3000, 20) + '末尾😀'.repeat(30000)
    const bytes = Buffer.from(text)
    const pages = allPages(bytes, { maxBytes: 10000 })
    assert.equal(pages.map((p) => p.page).join(''), text)
    assert.deepEqual(Buffer.concat(pages.map((p) => bytes.subarray(p.startByte, p.endByte))), bytes)
    // Invalid UTF-8 reads as Buffer#toString reads it.
    const bad = Buffer.from([0x61, 0xff, 0x0a, 0x62, 0xc3])
    assert.equal(allPages(bad, { maxBytes: 4 }).map((p) => p.page).join(''), bad.toString('utf8'))
  })

  test("onOverflow: 'error' fails closed", () => {
    const text = lineText(3000)
    assert.throws(
      () => readPartial(text, { onOverflow: 'error' }),
      (e) =>
        e instanceof ToolOutputTooLargeError &&
        e instanceof Error &&
        e.name === 'ToolOutputTooLargeError' &&
        e.code === 'TOOL_OUTPUT_TOO_LARGE' &&
        e.totalBytes === 3000 * 48 &&
        e.totalLines === 3000 &&
        e.maxBytes === 51200 &&
        e.maxLines === 2000 &&
        e.message === 'text too large to read whole: 144,000 bytes, 3,000 lines (limit 51,200 bytes, 2,000 lines per read)',
    )
    assert.equal(readPartial(lineText(10), { onOverflow: 'error' }).partial, false)
    // The rest of a text from an offset is fine when it fits.
    assert.equal(readPartial(text, { offset: 2990, onOverflow: 'error' }).nextOffset, null)
  })

  test('empty text and texts without a final newline', () => {
    assert.equal(readPartial('').text, '')
    assert.equal(readPartial('').totalLines, 0)
    assert.equal(allPages('a\nb', { maxLines: 1 }).map((p) => p.page).join(''), 'a\nb')
    assert.equal(allPages('a\r\nb\r\n', { maxBytes: 4, maxLines: 5 }).map((p) => p.page).join(''), 'a\r\nb\r\n')
  })

  test('invalid options throw, naming the option and value', () => {
    const text = lineText(10)
    const cases = [
      [() => readPartial(5), TypeError, 'text must be a string, Buffer or Uint8Array, got 5'],
      [() => readPartial(text, []), TypeError, 'options must be an object, got an array'],
      [() => readPartial(text, { limit: 5 }), TypeError, 'unknown option "limit"; expected one of maxBytes, maxLines, maxTokens, tokenizer, offset, column, onOverflow'],
      [() => readPartial(text, { maxbytes: 5 }), TypeError, 'unknown option "maxbytes"; did you mean "maxBytes"?'],
      [() => readPartial(text, { maxBytes: 3 }), RangeError, 'maxBytes must be an integer of at least 4 or Infinity, got 3'],
      [() => readPartial(text, { maxLines: 0 }), RangeError, 'maxLines must be an integer of at least 1 or Infinity, got 0'],
      [() => readPartial(text, { offset: 0 }), RangeError, 'offset must be an integer of at least 1, got 0'],
      [() => readPartial(text, { offset: '2' }), TypeError, 'offset must be a number, got "2"'],
      [() => readPartial(text, { column: -1 }), RangeError, 'column must be an integer of at least 0, got -1'],
      [() => readPartial(text, { onOverflow: 'throw' }), TypeError, 'onOverflow must be "partial" or "error", got "throw"'],
      [() => readPartial(text, { offset: 11 }), RangeError, 'offset must be a line number from 1 to 10, got 11'],
      [() => readPartial(text, { offset: 2, column: 48 }), RangeError, 'column must be from 0 to 47 for line 2, got 48'],
      [() => readPartial('a😀b', { column: 2 }), RangeError, 'column 2 splits a character or a \\r\\n pair'],
    ]
    for (const [fn, type, message] of cases) {
      assert.throws(fn, (e) => e instanceof type && e.message === message, message)
    }
  })
})

describe('properties', () => {
  const PIECES = ['a', 'bc', '\n', '\n', '\r\n', '\r', 'é', '日', '😀', '\uD800', '\uDC00', '\0']
  const piece = fc.constantFrom(...PIECES)
  const textArb = fc
    .array(fc.oneof({ weight: 20, arbitrary: piece }, { weight: 1, arbitrary: fc.tuple(piece, fc.nat(120)).map(([p, n]) => p.repeat(n)) }), { maxLength: 100 })
    .map((parts) => parts.join(''))
  const budgets = fc.record({
    maxBytes: fc.oneof(fc.integer({ min: 4, max: 120 }), fc.constant(Infinity)),
    maxLines: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constant(Infinity)),
  })

  test('pages reassemble the text, fit their budgets, cut safely, and report true facts', () => {
    check(
      fc.property(textArb, budgets, (text, { maxBytes, maxLines }) => {
        const pages = allPages(text, { maxBytes, maxLines })
        assert.equal(pages.map((p) => p.page).join(''), text)
        let start = 0
        for (const [i, p] of pages.entries()) {
          const end = start + p.page.length
          assert.equal(end, referencePage(text, start, maxBytes, maxLines), `page ${i} ends where the reference ends`)
          assert.ok(isSafeCut(text, start) && isSafeCut(text, end))
          const m = measure(p.page)
          assert.deepEqual([p.shownChars, p.shownBytes, p.shownLines], [m.chars, m.bytes, m.lines])
          assert.ok(m.bytes <= maxBytes && m.lines <= maxLines)
          const before = text.slice(0, start)
          assert.equal(p.startByte, Buffer.byteLength(before))
          assert.equal(p.endByte, p.startByte + m.bytes)
          // An empty text has no line to show: lines 0–0.
          assert.equal(p.firstLine, text === '' ? 0 : before.split('\n').length)
          assert.equal(p.totalLines, measure(text).lines)
          assert.equal(p.partial, pages.length > 1)
          assert.equal(p.text, p.partial ? `${p.text.split('\n')[0]}\n${p.page}` : text)
          if (p.partial) assert.match(p.text, /^\[PARTIAL view: /)
          start = end
        }
      }),
    )
  })
})

test('maxTokens bounds the estimated tokens of each page (3 bytes a token), at least 2', () => {
  const text = `${'héllo wörld 日本 😀 '.repeat(20)}\n`.repeat(200)
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 3000 }), fc.integer({ min: 1, max: 200 }), (maxTokens, offset) => {
      const view = readPartial(text, { maxTokens, offset })
      assert.ok(Math.ceil(Buffer.byteLength(view.page) / 3) <= maxTokens)
      assert.deepEqual(view, readPartial(text, { maxBytes: maxTokens * 3, offset }))
    }),
  )
  assert.throws(() => readPartial(text, { maxTokens: 1 }), { name: 'RangeError', message: 'maxTokens must be an integer of at least 2 or Infinity, got 1' })
  assert.throws(() => readPartial(text, { maxTokens: 5, tokenizer: 'o200k' }), { name: 'TypeError', message: 'tokenizer must be "estimate", got "o200k"' })
})
