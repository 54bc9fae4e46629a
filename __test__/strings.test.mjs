// The string API: stringTruncate*, truncateText and measureText against the documented
// examples, every strategy and limit, the default, custom and fallback notices.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'

import { stringTruncateHead, stringTruncateTail, stringTruncateHeadTail, truncateText, measureText } from '../index.mjs'
import {
  measure,
  isSafeCut,
  countLoneSurrogates,
  fits,
  exceededLimits,
  omittedBetween,
  formatCount,
  referenceClamp,
  layoutHead,
  layoutHeadTail,
} from './reference.mjs'

const numberedLines = (count) => Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join('')

/** Checks everything truncateText reports against the reference and the result itself. */
function assertConsistentInfo(input, limit, result, strategy = 'head') {
  const total = measure(input)
  const output = measure(result.text)
  assert.equal(result.strategy, strategy)
  assert.equal(result.totalChars, total.chars)
  assert.equal(result.totalBytes, total.bytes)
  assert.equal(result.totalLines, total.lines)
  assert.equal(result.outputChars, output.chars)
  assert.equal(result.outputBytes, output.bytes)
  assert.equal(result.outputLines, output.lines)
  assert.deepEqual(result.truncatedBy, exceededLimits(input, limit))
  assert.equal(result.truncated, result.truncatedBy.length > 0)
  assert.ok(fits(result.text, limit), 'result within every limit')
  if (!result.truncated) {
    assert.equal(result.text, input)
    assert.equal(result.headEnd, total.chars)
    assert.equal(result.tailStart, total.chars)
    assert.equal(result.omittedChars + result.omittedBytes + result.omittedLines, 0)
    return
  }
  assert.ok(result.headEnd < result.tailStart, 'something was dropped')
  if (strategy === 'head') assert.equal(result.tailStart, total.chars)
  if (strategy === 'tail') assert.equal(result.headEnd, 0)
  const omitted = omittedBetween(input, result.headEnd, result.tailStart)
  assert.equal(result.omittedChars, result.tailStart - result.headEnd)
  assert.equal(result.omittedBytes, omitted.bytes)
  assert.equal(result.omittedLines, omitted.lines)
  assert.ok(result.text.startsWith(input.slice(0, result.headEnd)))
  assert.ok(result.text.endsWith(input.slice(result.tailStart)))
  assert.ok(isSafeCut(input, result.headEnd) && isSafeCut(input, result.tailStart))
}

describe('measureText', () => {
  test('documented examples', () => {
    assert.deepEqual(measureText('héllo\n😀'), { chars: 8, bytes: 11, lines: 2 })
    assert.deepEqual(measureText(''), { chars: 0, bytes: 0, lines: 0 })
    assert.deepEqual(measureText('\n'), { chars: 1, bytes: 1, lines: 1 })
    assert.deepEqual(measureText('a\r\nb'), { chars: 4, bytes: 4, lines: 2 })
    assert.deepEqual(measureText('\uD800'), { chars: 1, bytes: 3, lines: 1 })
  })

  test('agrees with Buffer.byteLength and the line rule', () => {
    const samples = [
      'a',
      'a\n',
      '\n\n\n',
      'é',
      '€',
      '日本語',
      '😀😀',
      '\uDC00\uD800',
      '\uD800\uD800\uDC00',
      '\0\0',
      'x\r',
      '\r\n\r\n',
      'ÿ'.repeat(1000),
      'é😀\n'.repeat(3000),
      '\u0080\u07ff\u0800\uffff',
    ]
    for (const s of samples) assert.deepEqual(measureText(s), measure(s), JSON.stringify(s))
  })
})

describe('identity: text within every limit comes back unchanged', () => {
  const inputs = ['', 'a', 'hello\nworld\n', '😀\r\n\uD800', numberedLines(10)]

  test('string functions return the input', () => {
    for (const input of inputs) {
      const m = measure(input)
      const exact = { maxChars: m.chars, maxBytes: m.bytes, maxLines: m.lines }
      for (const fn of [stringTruncateHead, stringTruncateTail, stringTruncateHeadTail]) {
        assert.equal(fn(input, exact), input)
        assert.equal(fn(input, m.chars), input)
        assert.equal(fn(input, Infinity), input)
        assert.equal(fn(input, { maxLines: m.lines }), input)
      }
    }
  })

  test('truncateText reports nothing cut', () => {
    for (const input of inputs) {
      for (const strategy of ['head', 'tail', 'headTail']) {
        const limit = { maxBytes: measure(input).bytes }
        const r = truncateText(input, { ...limit, strategy })
        assert.equal(r.text, input)
        assert.equal(r.truncated, false)
        assert.deepEqual(r.truncatedBy, [])
        assert.equal(r.headEnd, input.length)
        assert.equal(r.tailStart, input.length)
        assert.equal(r.omittedChars, 0)
        assert.equal(r.omittedBytes, 0)
        assert.equal(r.omittedLines, 0)
        assertConsistentInfo(input, limit, r, strategy)
      }
    }
  })

  test('the empty text fits a zero budget', () => {
    assert.equal(stringTruncateHead('', 0), '')
    assert.equal(stringTruncateTail('', { maxLines: 0 }), '')
    assert.equal(truncateText('', { maxBytes: 0 }).truncated, false)
  })
})

describe('limits', () => {
  const text = numberedLines(200)

  test('a number is maxChars', () => {
    for (const fn of [stringTruncateHead, stringTruncateTail, stringTruncateHeadTail]) {
      assert.equal(fn(text, 300), fn(text, { maxChars: 300 }))
    }
    assert.equal(stringTruncateHead(text, 300), referenceClamp(text, 300, 'head').text)
  })

  test('one, two or three budgets; the tightest wins', () => {
    const cases = [
      { maxChars: 120 },
      { maxBytes: 120 },
      { maxLines: 7 },
      { maxChars: 500, maxLines: 7 },
      { maxBytes: 90, maxLines: 50 },
      { maxChars: 1000, maxBytes: 140, maxLines: 30 },
    ]
    for (const limit of cases) {
      for (const strategy of ['head', 'tail']) {
        const r = truncateText(text, { ...limit, strategy })
        assert.equal(r.text, referenceClamp(text, limit, strategy).text, JSON.stringify({ limit, strategy }))
        assertConsistentInfo(text, limit, r, strategy)
      }
    }
  })

  test('Infinity means no budget in that unit', () => {
    assert.equal(stringTruncateHead(text, { maxChars: Infinity, maxBytes: Infinity }), text)
    assert.equal(stringTruncateHead(text, { maxChars: Infinity, maxLines: 7 }), stringTruncateHead(text, { maxLines: 7 }))
    assert.equal(truncateText(text, { maxLines: Infinity }).truncated, false)
  })

  test('undefined values count as not given', () => {
    const withUndefined = { maxChars: 100, maxBytes: undefined, maxLines: undefined }
    assert.equal(stringTruncateTail(text, withUndefined), stringTruncateTail(text, { maxChars: 100 }))
    assert.equal(
      truncateText(text, { maxLines: 5, strategy: undefined, headRatio: undefined, notice: undefined }).text,
      stringTruncateHead(text, { maxLines: 5 }),
    )
    assert.equal(stringTruncateHeadTail(text, 100, { headRatio: undefined, notice: undefined }), stringTruncateHeadTail(text, 100))
  })

  test('limits exceeded in bytes but not chars are named alone', () => {
    const accents = 'é'.repeat(500)
    const r = truncateText(accents, { maxChars: 600, maxBytes: 600 })
    assert.deepEqual(r.truncatedBy, ['bytes'])
    assert.match(r.text, /é \[\.\.\. [\d,]+ bytes truncated at the end \.\.\.\]$/)
    assertConsistentInfo(accents, { maxChars: 600, maxBytes: 600 }, r)
  })
})

describe('cuts by strategy', () => {
  const text = numberedLines(100)

  test('head keeps whole leading lines and notes what went', () => {
    assert.equal(stringTruncateHead(text, { maxLines: 5 }), 'line 1\nline 2\nline 3\nline 4\n[... 96 lines truncated at the end ...]')
  })

  test('tail keeps whole trailing lines', () => {
    assert.equal(
      stringTruncateTail(text, { maxLines: 5 }),
      '[... 96 lines truncated at the start ...]\nline 97\nline 98\nline 99\nline 100\n',
    )
  })

  test('headTail splits the room between both ends', () => {
    assert.equal(
      stringTruncateHeadTail(text, { maxLines: 5 }),
      'line 1\nline 2\n[... 96 lines truncated in the middle ...]\nline 99\nline 100\n',
    )
  })

  test('default strategy is head', () => {
    const r = truncateText(text, { maxChars: 200 })
    assert.equal(r.strategy, 'head')
    assert.equal(r.text, stringTruncateHead(text, 200))
    assertConsistentInfo(text, { maxChars: 200 }, r, 'head')
  })

  test('truncateText reports offsets that fetch exactly what was dropped', () => {
    for (const strategy of ['head', 'tail', 'headTail']) {
      for (const limit of [{ maxChars: 150 }, { maxLines: 9 }, { maxBytes: 64, maxLines: 3 }]) {
        const r = truncateText(text, { ...limit, strategy })
        assert.equal(r.truncated, true)
        assertConsistentInfo(text, limit, r, strategy)
        const dropped = text.slice(r.headEnd, r.tailStart)
        assert.equal(text.slice(0, r.headEnd) + dropped + text.slice(r.tailStart), text)
      }
    }
  })

  test('a head cut mid-line has the notice on that line, after a space', () => {
    const long = 'x'.repeat(1000)
    const out = stringTruncateHead(long, 100)
    const [kept, notice] = [out.slice(0, out.indexOf(' [')), out.slice(out.indexOf(' [') + 1)]
    assert.ok(kept.length > 0 && /^x+$/.test(kept))
    assert.equal(notice, `[... ${formatCount(1000 - kept.length)} chars truncated at the end ...]`)
    assert.equal(out.length, 100)
  })
})

describe('examples from the design doc', () => {
  const log = Array.from({ length: 400 }, (_, i) => `step ${i}: ok`).join('\n') + '\nFAILED: 1 error'

  test('stringTruncateTail keeps the last chars, notice at the start with the char count', () => {
    const out = stringTruncateTail(log, 200)
    assert.ok(out.length <= 200)
    assert.ok(out.endsWith('\nFAILED: 1 error'))
    const match = /^\[\.\.\. ([\d,]+) chars truncated at the start \.\.\.\]\n/.exec(out)
    assert.ok(match, out)
    const kept = out.slice(match[0].length)
    assert.equal(Number(match[1].replaceAll(',', '')), log.length - kept.length)
    assert.equal(log.slice(log.length - kept.length), kept)
  })

  test('stringTruncateHeadTail keeps both ends with the notice between', () => {
    const out = stringTruncateHeadTail(log, 300)
    assert.ok(out.length <= 300)
    assert.ok(out.startsWith('step 0: ok\n'))
    assert.ok(out.endsWith('FAILED: 1 error'))
    assert.match(out, /[\n ]\[\.\.\. [\d,]+ chars truncated in the middle \.\.\.\]\n/)
  })

  test('short input is unchanged', () => {
    assert.equal(stringTruncateTail('all good', 200), 'all good')
    assert.equal(stringTruncateHeadTail('all good', 200), 'all good')
  })

  test('long input keeps the tail and the notice gives the char count', () => {
    const long = 'a'.repeat(10_000) + 'THE END'
    const out = stringTruncateTail(long, 100)
    assert.ok(out.endsWith('THE END'))
    const kept = out.split('\n')[1]
    assert.equal(out, `[... ${formatCount(long.length - kept.length)} chars truncated at the start ...]\n${kept}`)
    assert.equal(out.length, 100)
  })
})

describe('default notice', () => {
  /** The longest head of `count` x's whose default notice also fits `maxChars`. */
  const expectedHead = (count, maxChars) => {
    for (let kept = maxChars; kept >= 0; kept--) {
      const notice = `[... ${formatCount(count - kept)} chars truncated at the end ...]`
      const out = layoutHead('x'.repeat(kept), notice)
      if (out.length <= maxChars) return out
    }
    throw new Error('unreachable')
  }

  test('exact wording with thousands separators', () => {
    const maxChars = 1000
    const kept = maxChars - 1 - '[... 12,345 chars truncated at the end ...]'.length
    const text = 'x'.repeat(kept + 12_345)
    assert.equal(stringTruncateHead(text, maxChars), 'x'.repeat(kept) + ' [... 12,345 chars truncated at the end ...]')
    assert.equal(stringTruncateHead('x'.repeat(1_234_567), 80), expectedHead(1_234_567, 80))
  })

  test('tail and headTail wording', () => {
    const text = 'y'.repeat(20_000)
    const tail = stringTruncateTail(text, 100)
    assert.match(tail, /^\[\.\.\. 19,9\d\d chars truncated at the start \.\.\.\]\ny+$/)
    const middle = stringTruncateHeadTail(text, 100)
    assert.match(middle, /^y+ \[\.\.\. 19,9\d\d chars truncated in the middle \.\.\.\]\ny+$/)
    assert.equal(middle.length, 100)
  })

  test('units are the limits the input exceeds, in the order lines, chars, bytes', () => {
    const text = 'é\n'.repeat(3000)
    const limit = { maxChars: 200, maxBytes: 200, maxLines: 10 }
    const out = stringTruncateHead(text, limit)
    assert.match(out, /\n\[\.\.\. [\d,]+ lines, [\d,]+ chars, [\d,]+ bytes truncated at the end \.\.\.\]$/)
    assert.equal(out, referenceClamp(text, limit, 'head').text)

    const ascii = 'z'.repeat(5000)
    assert.match(stringTruncateTail(ascii, { maxChars: 100, maxBytes: 100 }), /^\[\.\.\. 4,9\d\d chars, 4,9\d\d bytes truncated/)
    // A single line does not exceed maxLines 1, so lines go unmentioned; but the notice needs
    // that one line, so nothing of the text is kept.
    assert.equal(stringTruncateHead(ascii, { maxChars: 100, maxLines: 1 }), '[... 5,000 chars truncated at the end ...]')
  })

  test('the notice sits on its own line, or on the line of a head cut inside it', () => {
    // A head ending in '\n' needs no separator; after one ending mid-line the notice follows
    // on that line, after a space (a line break there would read as the head's own).
    const byLines = stringTruncateHead(numberedLines(50), { maxLines: 3 })
    assert.equal(byLines, 'line 1\nline 2\n[... 48 lines truncated at the end ...]')
    const midLine = stringTruncateHead('abc'.repeat(100), 60)
    assert.match(midLine, /^(abc)*a?b? \[\.\.\. /)
    // A caller's own notice still goes on a line of its own.
    // A notice ending in '\n' needs no separator before the tail.
    const out = stringTruncateHeadTail('x'.repeat(200), 40, { notice: '--cut--\n' })
    assert.match(out, /^x+\n--cut--\nx+$/)
    assert.equal(out.length, 40)
  })
})

describe('custom notices', () => {
  const text = 'a'.repeat(20_000)

  test('a template gets counts with separators and plain offsets', () => {
    const template = '<<{omittedChars} of {totalChars} chars cut at {where}, resume at {headEnd}>>'
    const out = stringTruncateHead(text, 100, { notice: template })
    // Longest head whose notice, rendered for that head, still fits.
    let expected
    for (let kept = 100; kept >= 0 && expected === undefined; kept--) {
      const notice = `<<${formatCount(20_000 - kept)} of 20,000 chars cut at end, resume at ${kept}>>`
      const candidate = layoutHead('a'.repeat(kept), notice)
      if (candidate.length <= 100) expected = candidate
    }
    assert.equal(out, expected)
  })

  test('all placeholders, and {{ }} as literal braces', () => {
    const input = numberedLines(1000)
    const template =
      '{{{where}}} {omitted} | {omittedChars} {omittedBytes} {omittedLines} | {totalChars} {totalBytes} {totalLines} | {headEnd} {tailStart} {{}}'
    const r = truncateText(input, { maxLines: 10, maxBytes: 5000, strategy: 'headTail', notice: template })
    const f = (n) => formatCount(n)
    const notice =
      `{middle} ${f(r.omittedLines)} lines, ${f(r.omittedBytes)} bytes | ${f(r.omittedChars)} ${f(r.omittedBytes)} ${f(r.omittedLines)} | ` +
      `${f(r.totalChars)} ${f(r.totalBytes)} ${f(r.totalLines)} | ${r.headEnd} ${r.tailStart} {}`
    assert.equal(r.text, layoutHeadTail(input.slice(0, r.headEnd), notice, input.slice(r.tailStart)))
    assert.ok(r.totalChars > 999, 'the test exercises separators')
  })

  test('a function receives facts consistent with the result', () => {
    const input = numberedLines(3000)
    for (const strategy of ['head', 'tail', 'headTail']) {
      const seen = []
      const notice = (facts) => {
        seen.push(facts)
        return `#${JSON.stringify(facts)}#`
      }
      const limit = { maxChars: 4000, maxLines: 60 }
      const r = truncateText(input, { ...limit, strategy, notice })
      assertConsistentInfo(input, limit, r, strategy)
      const facts = JSON.parse(/#(\{.*\})#/.exec(r.text)[1])
      assert.deepEqual(Object.keys(facts).sort(), [
        'fromLine',
        'headEnd',
        'omittedBytes',
        'omittedChars',
        'omittedLines',
        'tailStart',
        'toLine',
        'totalBytes',
        'totalChars',
        'totalLines',
        'truncatedBy',
        'where',
      ])
      // The lines the dropped text touches, 1-based: the line of its first and last char.
      const lineAt = (i) => input.slice(0, i).split('\n').length
      assert.equal(facts.fromLine, lineAt(r.headEnd))
      assert.equal(facts.toLine, lineAt(r.tailStart - 1))
      assert.deepEqual(facts, {
        where: { head: 'end', tail: 'start', headTail: 'middle' }[strategy],
        truncatedBy: r.truncatedBy,
        omittedChars: r.omittedChars,
        omittedBytes: r.omittedBytes,
        omittedLines: r.omittedLines,
        totalChars: r.totalChars,
        totalBytes: r.totalBytes,
        totalLines: r.totalLines,
        headEnd: r.headEnd,
        tailStart: r.tailStart,
        fromLine: facts.fromLine,
        toLine: facts.toLine,
      })
      assert.ok(seen.length >= 1)
      assert.ok(Array.isArray(seen[0].truncatedBy))
    }
  })

  test('an empty notice means no notice and no separators', () => {
    assert.equal(stringTruncateHead('abcdef', 3, { notice: '' }), 'abc')
    assert.equal(stringTruncateTail('abcdef', 3, { notice: '' }), 'def')
    const both = stringTruncateHeadTail('abcdef', 3, { notice: '' })
    assert.ok(['aef', 'abf'].includes(both), both)
  })

  test('a function notice is not called when nothing is cut', () => {
    let calls = 0
    const out = stringTruncateHead('short', 100, {
      notice: () => {
        calls++
        return 'x'
      },
    })
    assert.equal(out, 'short')
    assert.equal(calls, 0)
  })
})

describe('fallback notices when the room is too small', () => {
  const text = 'abcdefghij'.repeat(100)

  test('head', () => {
    assert.equal(stringTruncateHead(text, 0), '')
    assert.equal(stringTruncateHead(text, 3), 'abc')
    assert.equal(stringTruncateHead(text, 5), '[...]')
    assert.equal(stringTruncateHead(text, 7), 'a [...]')
    assert.equal(stringTruncateHead(text, 19), '[... truncated ...]')
    assert.equal(stringTruncateHead(text, 21), 'a [... truncated ...]')
    assert.equal(stringTruncateHead(text, { maxLines: 0 }), '')
    assert.equal(stringTruncateHead(text, { maxBytes: 0 }), '')
  })

  test('tail', () => {
    assert.equal(stringTruncateTail(text, 0), '')
    assert.equal(stringTruncateTail(text, 3), 'hij')
    assert.equal(stringTruncateTail(text, 7), '[...]\nj')
    assert.equal(stringTruncateTail(text, 21), '[... truncated ...]\nj')
  })

  test('headTail and a custom notice that is too long', () => {
    for (const maxChars of [0, 1, 2, 3, 4, 5, 6, 8, 19, 20, 22, 30]) {
      const out = stringTruncateHeadTail(text, maxChars)
      assert.ok(out.length <= maxChars, `${maxChars}: ${JSON.stringify(out)}`)
    }
    assert.equal(stringTruncateHeadTail(text, 5), '[...]')
    const out = stringTruncateHead(text, 100, { notice: 'n'.repeat(500) })
    assert.equal(out, text.slice(0, 80) + ' [... truncated ...]')
  })

  test('tiny budgets never overflow', () => {
    for (let max = 0; max <= 45; max++) {
      for (const strategy of ['head', 'tail', 'headTail']) {
        for (const limit of [{ maxChars: max }, { maxBytes: max }, { maxLines: max % 4 }]) {
          const r = truncateText(text, { ...limit, strategy })
          assert.ok(fits(r.text, limit), JSON.stringify({ limit, strategy, text: r.text }))
          assertConsistentInfo(text, limit, r, strategy)
        }
      }
    }
  })
})

describe('headRatio', () => {
  const text = 'x'.repeat(100_000)

  test('defaults to about half', () => {
    const r = truncateText(text, { maxChars: 1000, strategy: 'headTail' })
    const head = r.headEnd
    const tail = r.totalChars - r.tailStart
    assert.ok(Math.abs(head - tail) <= 2, `head ${head}, tail ${tail}`)
    assert.equal(r.text, stringTruncateHeadTail(text, 1000, { headRatio: 0.5 }))
    assert.equal(r.outputChars, 1000)
  })

  test('0 gives the room to the end, 1 to the start', () => {
    const toEnd = truncateText(text, { maxChars: 500, strategy: 'headTail', headRatio: 0 })
    assert.equal(toEnd.headEnd, 0)
    assert.match(toEnd.text, /^\[\.\.\. [\d,]+ chars truncated in the middle \.\.\.\]\nx+$/)
    const toStart = truncateText(text, { maxChars: 500, strategy: 'headTail', headRatio: 1 })
    assert.equal(toStart.tailStart, text.length)
    assert.match(toStart.text, /^x+ \[\.\.\. [\d,]+ chars truncated in the middle \.\.\.\]$/)
  })

  test('an uneven share by lines', () => {
    const input = numberedLines(1000)
    const r = truncateText(input, { maxLines: 11, strategy: 'headTail', headRatio: 0.3 })
    assert.equal(input.slice(0, r.headEnd), numberedLines(3))
    assert.equal(measure(input.slice(r.tailStart)).lines, 7)
    assertConsistentInfo(input, { maxLines: 11 }, r, 'headTail')
  })
})

describe('unicode and line breaks', () => {
  test('surrogate pairs are never split', () => {
    const emoji = '😀'.repeat(100)
    for (let max = 0; max <= 41; max++) {
      for (const fn of [stringTruncateHead, stringTruncateTail, stringTruncateHeadTail]) {
        for (const notice of [undefined, '']) {
          for (const limit of [{ maxChars: max }, { maxBytes: max }]) {
            const out = fn(emoji, limit, { notice })
            assert.ok(fits(out, limit))
            assert.equal(countLoneSurrogates(out), 0, JSON.stringify({ max, limit, out }))
          }
        }
      }
    }
    assert.equal(stringTruncateHead('😀'.repeat(10), 5, { notice: '' }), '😀😀')
    assert.equal(stringTruncateTail('😀'.repeat(10), 5, { notice: '' }), '😀😀')
    assert.equal(stringTruncateHeadTail('😀'.repeat(10), 5, { notice: '' }), '😀😀')
    assert.equal(stringTruncateHead('😀'.repeat(10), { maxBytes: 7 }, { notice: '' }), '😀')
  })

  test('\\r\\n is never split', () => {
    assert.equal(stringTruncateHead('ab\r\ncd', 3, { notice: '' }), 'ab')
    assert.equal(stringTruncateTail('ab\r\ncd', 3, { notice: '' }), 'cd')
    const crlf = 'a\r\n'.repeat(100)
    for (let max = 0; max <= 60; max++) {
      for (const strategy of ['head', 'tail', 'headTail']) {
        const r = truncateText(crlf, { maxChars: max, strategy })
        assert.ok(isSafeCut(crlf, r.headEnd) && isSafeCut(crlf, r.tailStart), JSON.stringify(r))
        assertConsistentInfo(crlf, { maxChars: max }, r, strategy)
      }
    }
  })

  test('lone surrogates pass through untouched', () => {
    const odd = '\uD800abc\uDC00'
    assert.equal(stringTruncateHead(odd, 100), odd)
    assert.equal(stringTruncateHead('x\uD800' + 'y'.repeat(100), 3, { notice: '' }), 'x\uD800y')
    assert.equal(stringTruncateTail('y'.repeat(100) + '\uDC00z', 3, { notice: '' }), 'y\uDC00z')
    // A lone surrogate is 3 bytes, as Buffer counts it.
    assert.equal(stringTruncateHead('\uD800\uD800\uD800', { maxBytes: 6 }, { notice: '' }), '\uD800\uD800')
  })
})

describe('big and odd inputs do not throw', () => {
  test('10 MB without a newline', () => {
    const text = 'a'.repeat(10_000_000)
    for (const strategy of ['head', 'tail', 'headTail']) {
      const r = truncateText(text, { maxBytes: 4096, maxLines: 50, strategy })
      assert.ok(r.outputBytes <= 4096)
      assert.equal(r.totalLines, 1)
      assert.ok(fits(r.text, { maxBytes: 4096 }))
    }
  })

  test('a million newlines', () => {
    const text = '\n'.repeat(1_000_000)
    const r = truncateText(text, { maxLines: 10, strategy: 'tail' })
    assert.equal(r.totalLines, 1_000_000)
    assert.ok(fits(r.text, { maxLines: 10 }))
    assert.equal(r.text, '[... 999,991 lines truncated at the start ...]\n' + '\n'.repeat(9))
  })

  test('NULs', () => {
    const text = '\0'.repeat(1_000_000)
    const out = stringTruncateHeadTail(text, 100)
    assert.ok(out.length <= 100)
    assert.ok(out.startsWith('\0') && out.endsWith('\0'))
  })

  test('5 MB of emoji', () => {
    const text = '😀'.repeat(1_250_000)
    for (const fn of [stringTruncateHead, stringTruncateTail, stringTruncateHeadTail]) {
      const out = fn(text, { maxChars: 1001, maxBytes: 3001 })
      assert.ok(fits(out, { maxChars: 1001, maxBytes: 3001 }))
      assert.equal(countLoneSurrogates(out), 0)
    }
    assert.deepEqual(measureText(text), { chars: 2_500_000, bytes: 5_000_000, lines: 1 })
  })

  test('100 MB of ASCII with a small byte budget', () => {
    let text = 'x'.repeat(100_000_000)
    const r = truncateText(text, { maxBytes: 1000 })
    assert.ok(r.outputBytes <= 1000)
    assert.equal(r.totalBytes, 100_000_000)
    assert.ok(fits(r.text, { maxBytes: 1000 }))
    text = null
  })
})
