// readPartial: the leading banner, the continuation handle, pages that
// reassemble the original exactly (strings and Buffers, a single line longer than a page),
// fail-closed reads, and exact errors. FC_RUNS sets the runs per property (default 10,000).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'

import { readPartial, hardTruncateToolPayload, wrapToolWithHardOutputTruncate } from '../index.mjs'
import { measure, isSafeCut } from './reference.mjs'
import { truncateText } from '../index.mjs'

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

  test('the first page of a large text: banner first, then whole lines, together within the budget', () => {
    const text = lineText(5123) // 48 bytes a line
    const view = readPartial(text)
    const bytes = Buffer.byteLength(text)
    // The banner line (104 bytes and its line break) takes its room from the budget.
    const shown = Math.floor((51200 - 105) / 48)
    const banner = `[PARTIAL view: lines 1–${count(shown)} of 5,123 shown (bytes 0–${count(shown * 48)} of ${count(bytes)}). Continue with offset=${shown + 1}.]`
    assert.equal(Buffer.byteLength(banner), 104)
    assert.ok(Buffer.byteLength(view.text) <= 51200)
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

  test('lines bind before bytes: the banner takes one of the 2,000 lines', () => {
    const text = lineText(5123, 10) // 18 bytes a line
    const view = readPartial(text)
    assert.equal(
      view.text.split('\n')[0],
      `[PARTIAL view: lines 1–1,999 of 5,123 shown (bytes 0–35,982 of ${count(5123 * 18)}). Continue with offset=2000.]`,
    )
    assert.equal(measure(view.text).lines, 2000)
  })

  test('the page with its banner fits every limit, and a budget too small for a banner says what it takes', () => {
    // As reported: 51,281 bytes on defaults, 91 for maxBytes: 4, 2 lines for maxLines: 1.
    const file = Array.from({ length: 5000 }, (_, i) => `row ${i + 1}: ${'x'.repeat(50)}`).join('\n')
    const view = readPartial(file)
    assert.ok(Buffer.byteLength(view.text) <= 51200, `${Buffer.byteLength(view.text)} bytes`)
    assert.ok(measure(view.text).lines <= 2000)
    for (const options of [{ maxBytes: 4 }, { maxBytes: 120 }]) {
      assert.throws(
        () => readPartial(file, options),
        (e) =>
          e instanceof RangeError &&
          e.code === 'TOOLCLAMP_PAGE_TOO_SMALL' &&
          e.message === `maxBytes ${options.maxBytes} cannot hold a partial page: the least one here takes 125 bytes with its banner line`,
      )
    }
    const least = readPartial(file, { maxBytes: 125 })
    assert.equal(Buffer.byteLength(least.text), 125)
    assert.equal(least.lastLine, 1)
    assert.throws(() => readPartial(file, { maxLines: 1 }), {
      name: 'RangeError',
      code: 'TOOLCLAMP_PAGE_TOO_SMALL',
      message: 'maxLines 1 cannot hold a partial page: its banner takes a line of its own, so give at least 2',
    })
    // A text that fits whole needs no banner, under any budget.
    assert.equal(readPartial('ok', { maxBytes: 4, maxLines: 1 }).text, 'ok')
  })

  test('a middle page and the last page', () => {
    const text = lineText(100, 10)
    // 11 lines: the banner and 10 of the text.
    const middle = readPartial(text, { offset: 21, maxLines: 11 })
    assert.equal(middle.dropped, 'headAndTail')
    assert.equal(middle.page, text.split('\n').slice(20, 30).join('\n') + '\n')
    assert.equal(middle.text.split('\n')[0], `[PARTIAL view: lines 21–30 of 100 shown (bytes 360–540 of 1,800). Continue with offset=31.]`)
    const last = readPartial(text, { offset: 91, maxLines: 11 })
    assert.equal(last.dropped, 'head')
    assert.equal(last.nextOffset, null)
    assert.equal(last.text.split('\n')[0], '[PARTIAL view: lines 91–100 of 100 shown (bytes 1,620–1,800 of 1,800). End of text.]')
    const one = readPartial(text, { offset: 100, maxLines: 11 })
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
    assert.equal(
      allPages(bad, { maxLines: 2 })
        .map((p) => p.page)
        .join(''),
      bad.toString('utf8'),
    )
  })

  // The error is told by its code, as every toolclamp error is (no class to import).
  test("onOverflow: 'error' fails closed", () => {
    const text = lineText(3000)
    assert.throws(
      () => readPartial(text, { onOverflow: 'error' }),
      (e) =>
        e instanceof Error &&
        e.name === 'ToolOutputTooLargeError' &&
        e.code === 'TOOLCLAMP_TOOL_OUTPUT_TOO_LARGE' &&
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
    assert.equal(
      allPages('a\nb', { maxLines: 2 })
        .map((p) => p.page)
        .join(''),
      'a\nb',
    )
    assert.equal(
      allPages('a\r\nb\r\n', { maxBytes: 100, maxLines: 5 })
        .map((p) => p.page)
        .join(''),
      'a\r\nb\r\n',
    )
  })

  test('invalid options throw, naming the option and value', () => {
    const text = lineText(10)
    const cases = [
      [() => readPartial(5), TypeError, 'text must be a string, Buffer or Uint8Array, got 5'],
      [() => readPartial(text, []), TypeError, 'options must be an object, got an array'],
      [
        () => readPartial(text, { limit: 5 }),
        TypeError,
        'unknown option "limit"; expected one of maxBytes, maxLines, maxTokens, tokenizer, offset, column, onOverflow',
      ],
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
    .array(
      fc.oneof({ weight: 20, arbitrary: piece }, { weight: 1, arbitrary: fc.tuple(piece, fc.nat(120)).map(([p, n]) => p.repeat(n)) }),
      { maxLength: 100 },
    )
    .map((parts) => parts.join(''))
  const budgets = fc.record({
    maxBytes: fc.oneof(fc.integer({ min: 130, max: 400 }), fc.constant(Infinity)),
    maxLines: fc.oneof(fc.integer({ min: 2, max: 12 }), fc.constant(Infinity)),
  })

  test('pages reassemble the text, fit their budgets with their banners, cut safely, and report true facts', () => {
    check(
      fc.property(textArb, budgets, (text, { maxBytes, maxLines }) => {
        let pages
        try {
          pages = allPages(text, { maxBytes, maxLines })
        } catch (error) {
          // A long line far into a text: its banner and one character take more than maxBytes.
          assert.equal(error.code, 'TOOLCLAMP_PAGE_TOO_SMALL', error.message)
          assert.ok(Number(/takes (\d+) bytes/.exec(error.message)[1]) > maxBytes)
          return
        }
        assert.equal(pages.map((p) => p.page).join(''), text)
        let start = 0
        for (const [i, p] of pages.entries()) {
          const end = start + p.page.length
          // The page is the reference page of the room its banner leaves, or shorter (a longer
          // page would have a longer banner).
          const banner = p.partial ? Buffer.byteLength(p.text.split('\n')[0]) + 1 : 0
          const room = referencePage(text, start, maxBytes - banner, maxLines - (p.partial ? 1 : 0))
          assert.ok(end <= room && (end > start || text === ''), `page ${i} ends within the room its banner leaves`)
          assert.ok(isSafeCut(text, start) && isSafeCut(text, end))
          const m = measure(p.page)
          assert.deepEqual([p.shownChars, p.shownBytes, p.shownLines], [m.chars, m.bytes, m.lines])
          const all = measure(p.text)
          assert.ok(all.bytes <= maxBytes && all.lines <= maxLines, `page ${i} and its banner: ${JSON.stringify(all)}`)
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

test('maxTokens bounds the estimated tokens of each page and its banner (3 bytes a token), at least 2', () => {
  const text = `${'héllo wörld 日本 😀 '.repeat(20)}\n`.repeat(200)
  fc.assert(
    fc.property(fc.integer({ min: 60, max: 3000 }), fc.integer({ min: 1, max: 200 }), (maxTokens, offset) => {
      const view = readPartial(text, { maxTokens, offset })
      assert.ok(Math.ceil(Buffer.byteLength(view.text) / 3) <= maxTokens)
      assert.deepEqual(view, readPartial(text, { maxBytes: maxTokens * 3, offset }))
    }),
  )
  assert.throws(() => readPartial(text, { maxTokens: 1 }), {
    name: 'RangeError',
    message: 'maxTokens must be an integer of at least 2 or Infinity, got 1',
  })
  assert.throws(() => readPartial(text, { maxTokens: 5, tokenizer: 'o200k' }), {
    name: 'RangeError',
    message:
      'tokenizer must be "estimate", "o200k_base", "cl100k_base", an OpenAI model name or a function, got "o200k"; did you mean "o200k_base"?',
  })
})

// ---- A page under a tool wrapper with a smaller budget

const CONTINUE = /^\[PARTIAL view: .*(?:Continue with offset=(\d+)(?:, column=(\d+))?|(End of text))\.\]$/

/**
 * Reads `source` from line `offset` as a model would through a read_file tool whose result
 * `wrap` clamps: page after page, following each continuation. Returns the wrapped texts.
 */
function readThrough(source, readOptions, wrap, offset = 1) {
  const texts = []
  let at = { offset, column: 0 }
  for (;;) {
    const text = wrap(readPartial(source, { ...readOptions, ...at }).text)
    texts.push(text)
    if (!text.startsWith('[PARTIAL view: ')) return texts
    const match = CONTINUE.exec(text.slice(0, text.indexOf('\n')))
    assert.ok(match, `a banner that says how to continue: ${text.slice(0, 200)}`)
    if (match[3] !== undefined) return texts
    at = { offset: Number(match[1]), column: Number(match[2] ?? 0) }
    if (texts.length > 100_000) throw new Error('paging does not progress')
  }
}

/** What the pages show, without their banners. */
const shownOf = (texts) => texts.map((t) => (t.startsWith('[PARTIAL view: ') ? t.slice(t.indexOf('\n') + 1) : t)).join('')

/** The text from the start of line `offset` (1-based). */
function fromLine(text, offset) {
  let at = 0
  for (let line = 1; line < offset; line++) at = text.indexOf('\n', at) + 1
  return text.slice(at)
}

describe('a page cut further by a tool wrapper', () => {
  const file = Array.from({ length: 5000 }, (_, i) => `row ${i + 1}: ${'x'.repeat(50)}`).join('\n')

  test('the continuation stays true: the wrapper cuts the page on whole lines under a rewritten banner', async () => {
    // As reported: a wrapper cut the page at line 1,022 while its banner said offset=1026.
    const wrapped = await wrapToolWithHardOutputTruncate(async () => readPartial(file).text)()
    assert.equal(wrapped, readPartial(file).text, 'on the same budget the page fits the wrapper')
    const smaller = await wrapToolWithHardOutputTruncate(async () => readPartial(file).text, { maxLines: 500 })()
    const lines = smaller.split('\n')
    assert.equal(lines[0], '[PARTIAL view: lines 1–499 of 5,000 shown (bytes 0–29,832 of 303,892). Continue with offset=500.]')
    assert.equal(lines.at(-2), 'row 499: ' + 'x'.repeat(50))
    assert.equal(measure(smaller).lines, 500)
    // The same through a content block and any strategy or notice: a page is never cut in the middle.
    const block = hardTruncateToolPayload(
      { content: [{ type: 'text', text: readPartial(file).text }] },
      { maxBytes: 10_000, strategy: 'tail', notice: '<cut>' },
    )
    assert.match(block.content[0].text, /^\[PARTIAL view: lines 1–\d+ of 5,000 shown .*Continue with offset=\d+\.\]\nrow 1: /)
    assert.ok(Buffer.byteLength(block.content[0].text) <= 10_000)
    // Reading on through the wrapper visits every line once, in order.
    const texts = readThrough(file, {}, (text) => hardTruncateToolPayload(text, { maxBytes: 7000, maxLines: 120 }))
    assert.equal(shownOf(texts), file)
  })

  test('a line longer than the room is cut inside, with its column in UTF-16 units or, for a Buffer, in bytes', () => {
    const long = `head\n${'é日😀a'.repeat(3000)}\ntail\n`
    for (const source of [long, Buffer.from(long)]) {
      const texts = readThrough(source, { maxBytes: 20_000 }, (text) => hardTruncateToolPayload(text, { maxBytes: 1000 }))
      assert.equal(shownOf(texts), long)
      for (const text of texts) assert.ok(Buffer.byteLength(text) <= 1000)
      assert.ok(texts.some((t) => /from column [\d,]+ of line 2, up to column/.test(t)))
    }
  })

  test('with no room for a banner, the page is cut as text, without a banner to mislead', () => {
    const page = readPartial(file).text
    const cut = hardTruncateToolPayload(page, { maxBytes: 100 })
    assert.ok(!cut.includes('PARTIAL view'), cut)
    assert.ok(cut.startsWith('row 1: ') && Buffer.byteLength(cut) <= 100)
    const oneLine = hardTruncateToolPayload(page, { maxLines: 1 })
    assert.ok(!oneLine.includes('Continue with'), oneLine)
    // A text that only looks like a page is cut as any text.
    const lookalike = `[PARTIAL view: lines 1–3 of 9 shown (bytes 0–6 of 18). Continue with offset=4.]\n${'z\n'.repeat(100)}`
    assert.equal(hardTruncateToolPayload(lookalike, { maxLines: 10 }), truncateText(lookalike, { maxLines: 10, snap: 'line' }).text)
  })

  test('property: following the wrapped pages visits every line exactly once, in order, each page within both budgets', () => {
    const PIECES = ['a', 'bc', ' ', '\n', '\n', '\r\n', 'é', '日', '😀']
    const piece = fc.constantFrom(...PIECES)
    const fileArb = fc
      .array(
        fc.oneof({ weight: 20, arbitrary: piece }, { weight: 1, arbitrary: fc.tuple(piece, fc.nat(200)).map(([p, n]) => p.repeat(n)) }),
        {
          minLength: 1,
          maxLength: 200,
        },
      )
      .map((parts) => parts.join(''))
    const budget = (min, max) =>
      fc.oneof({ weight: 4, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constant(undefined) })
    const readArb = fc.record({ maxBytes: budget(400, 3000), maxLines: budget(2, 60) }, { requiredKeys: [] })
    // Room for a banner line and one more (an MCP result's isError takes a line too).
    const wrapArb = fc.record({ maxChars: budget(250, 2000), maxBytes: budget(250, 2000), maxLines: budget(3, 40) }, { requiredKeys: [] })
    const shapeArb = fc.constantFrom('string', 'block', 'mcp')
    const shaped = {
      string: (t) => t,
      block: (t) => [{ type: 'text', text: t }],
      mcp: (t) => ({ content: [{ type: 'text', text: t }], isError: false }),
    }
    const textOf = { string: (r) => r, block: (r) => r[0].text, mcp: (r) => r.content[0].text }
    fc.assert(
      fc.property(fileArb, readArb, wrapArb, fc.nat(), fc.boolean(), shapeArb, (file, read, wrap, start, asBuffer, shape) => {
        const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
        const lines = measure(file).lines
        const offset = 1 + (start % Math.max(1, lines))
        const tool = wrapToolWithHardOutputTruncate((text) => shaped[shape](text), defined(wrap))
        const source = asBuffer ? Buffer.from(file) : file
        // A text read whole has no banner: a wrapper that cuts it cuts it as any text.
        if (!readPartial(source, { ...defined(read), offset }).partial) return
        const texts = readThrough(source, defined(read), (text) => textOf[shape](tool(text)), offset)
        assert.equal(shownOf(texts), fromLine(asBuffer ? Buffer.from(file).toString() : file, offset))
        const budget = { maxChars: 2 ** 53, maxBytes: 51_200, maxLines: 2000, ...defined(wrap) }
        const readBudget = { maxBytes: 51_200, maxLines: 2000, ...defined(read) }
        const mcp = shape === 'mcp' ? 1 : 0 // `{"isError":false}`, one line and 17 bytes of the budget
        for (const text of texts) {
          const m = measure(text)
          assert.ok(
            m.chars + 17 * mcp <= budget.maxChars && m.bytes + 17 * mcp <= budget.maxBytes && m.lines + mcp <= budget.maxLines,
            `${JSON.stringify(m)} over ${JSON.stringify(budget)}`,
          )
          assert.ok(m.bytes <= readBudget.maxBytes && m.lines <= readBudget.maxLines)
        }
      }),
      { numRuns: Math.max(50, Math.floor(RUNS / 5)) },
    )
  })
})
