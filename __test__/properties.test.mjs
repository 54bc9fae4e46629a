// Property tests: the library against the brute-force reference on random texts, limits,
// strategies and notices. FC_RUNS sets the runs per property (default 10,000).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'

import { stringTruncateHead, stringTruncateTail, stringTruncateHeadTail, truncateText, measureText } from '../index.mjs'
import {
  measure,
  isSafeCut,
  countLoneSurrogates,
  fits,
  exceededLimits,
  omittedBetween,
  noticeFacts,
  renderNotice,
  layout,
  layoutFits,
  FALLBACK_NOTICES,
  referenceHead,
  referenceTail,
  referenceClamp,
} from './reference.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const check = (property) => fc.assert(property, { numRuns: RUNS })

// ---- Arbitraries

// Line breaks of every kind, multi-byte chars, a surrogate pair, both lone surrogates and NUL:
// every boundary the library must respect or count.
const PIECES = ['a', 'b', 'Z', ' ', '\n', '\r\n', '\r', 'é', '日', '😀', '\uD800', '\uDC00', '\0']
const piece = fc.constantFrom(...PIECES)
const longRun = fc.tuple(piece, fc.integer({ min: 2, max: 300 })).map(([p, n]) => p.repeat(n))
const pieces = fc.oneof({ weight: 30, arbitrary: piece }, { weight: 1, arbitrary: longRun })
// Mostly texts of tens to hundreds of chars, with a share of tiny ones where edge cases live.
const textArb = fc
  .oneof(
    { weight: 1, arbitrary: fc.array(pieces, { maxLength: 120 }) },
    { weight: 2, arbitrary: fc.array(pieces, { maxLength: 120, size: 'max' }) },
  )
  .map((parts) => parts.join(''))

const budget = (max) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(Infinity) },
    { weight: 6, arbitrary: fc.integer({ min: 0, max }) },
  )
const hasBudget = (limits) => Object.values(limits).some((v) => v !== undefined)
const limitsArb = fc.record({ maxChars: budget(200), maxBytes: budget(300), maxLines: budget(30) }, { requiredKeys: [] }).filter(hasBudget)
/** What string functions take: a number (maxChars) or a limits object. */
const limitArgArb = fc.oneof({ weight: 4, arbitrary: limitsArb }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 200 }) })
const toLimits = (limit) => (typeof limit === 'number' ? { maxChars: limit } : limit)

const strategyArb = fc.constantFrom('head', 'tail', 'headTail')
const headRatioArb = fc.oneof(fc.constant(undefined), fc.constantFrom(0, 0.5, 1), fc.double({ min: 0, max: 1, noNaN: true }))

// Named so that counterexamples say which notice was used.
function whereAndCount(facts) {
  return `${facts.where}: ${facts.omittedChars} of ${facts.totalChars} dropped`
}
function fixedText() {
  return '<snip>'
}

/** Notices whose length can only shrink as more text is kept (or that never change). */
const steadyNoticeArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '',
      '[cut]',
      '--8<--\n',
      'two\nlines',
      '日本😀',
      'n'.repeat(80),
      '{omitted} dropped at {where}',
      '{omittedChars}/{totalChars} chars, {omittedLines}/{totalLines} lines, {omittedBytes}/{totalBytes} bytes',
      '{{literal}} {totalLines}\n',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(whereAndCount, fixedText) },
)
/** Adds a notice that names the offsets, which grow or shrink with what is kept. */
const noticeArb = fc.oneof({ weight: 8, arbitrary: steadyNoticeArb }, { weight: 1, arbitrary: fc.constant('<{headEnd}|{tailStart}>') })

const caseArb = (notice = noticeArb) =>
  fc.record({ text: textArb, limits: limitsArb, strategy: strategyArb, headRatio: headRatioArb, notice })

const clamp = (c) => truncateText(c.text, { ...c.limits, strategy: c.strategy, headRatio: c.headRatio, notice: c.notice })

// ---- Helpers over a result

const keptHead = (c, r) => c.text.slice(0, r.headEnd)
const keptTail = (c, r) => c.text.slice(r.tailStart)
const glueOf = (c, r) => r.text.slice(r.headEnd, r.text.length - (c.text.length - r.tailStart))

/**
 * The notice in the result: the caller's notice rendered from the result's own facts, or a
 * fallback, laid out by the separator rule. Undefined when the glue is neither.
 */
function noticeUsed(c, r) {
  const facts = noticeFacts(c.text, c.limits, r.strategy, r.headEnd, r.tailStart)
  const rendered = renderNotice(c.notice, facts)
  const candidates = [rendered, ...FALLBACK_NOTICES]
  const notice = candidates.find((n) => layout(r.strategy, c.text, r.headEnd, r.tailStart, n) === r.text)
  return { notice, rendered }
}

const deepFreeze = (value) => {
  if (value !== null && typeof value === 'object') {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

// ---- Properties

describe('properties', () => {
  test('text within every limit is returned unchanged', () => {
    const slack = fc.oneof(fc.constant(undefined), fc.constant(Infinity), fc.nat(5))
    const arb = textArb.chain((text) => {
      const m = measure(text)
      const above = (slackValue, size) => (slackValue === undefined || slackValue === Infinity ? slackValue : size + slackValue)
      return fc
        .record({ maxChars: slack, maxBytes: slack, maxLines: slack }, { requiredKeys: [] })
        .filter(hasBudget)
        .map((s) => {
          const limits = {}
          if ('maxChars' in s) limits.maxChars = above(s.maxChars, m.chars)
          if ('maxBytes' in s) limits.maxBytes = above(s.maxBytes, m.bytes)
          if ('maxLines' in s) limits.maxLines = above(s.maxLines, m.lines)
          return { text, limits }
        })
    })
    check(
      fc.property(arb, strategyArb, steadyNoticeArb, ({ text, limits }, strategy, notice) => {
        assert.equal(stringTruncateHead(text, limits, { notice }), text)
        assert.equal(stringTruncateTail(text, limits, { notice }), text)
        assert.equal(stringTruncateHeadTail(text, limits, { notice }), text)
        const r = truncateText(text, { ...limits, strategy, notice })
        const m = measure(text)
        assert.deepEqual(r, {
          text,
          truncated: false,
          truncatedBy: [],
          strategy,
          totalChars: m.chars,
          totalBytes: m.bytes,
          totalLines: m.lines,
          outputChars: m.chars,
          outputBytes: m.bytes,
          outputLines: m.lines,
          omittedChars: 0,
          omittedBytes: 0,
          omittedLines: 0,
          headEnd: m.chars,
          tailStart: m.chars,
        })
      }),
    )
  })

  test('every result is within every limit', () => {
    check(
      fc.property(caseArb(), (c) => {
        const r = clamp(c)
        assert.ok(fits(r.text, c.limits), `measure ${JSON.stringify(measure(r.text))}`)
      }),
    )
  })

  test('a result is a prefix, the notice with its line breaks, and a suffix', () => {
    check(
      fc.property(caseArb(), (c) => {
        const r = clamp(c)
        if (!r.truncated) {
          assert.equal(r.text, c.text)
          return
        }
        assert.ok(r.headEnd < r.tailStart && r.tailStart <= c.text.length)
        if (r.strategy === 'head') assert.equal(r.tailStart, c.text.length)
        if (r.strategy === 'tail') assert.equal(r.headEnd, 0)
        const head = keptHead(c, r)
        const tail = keptTail(c, r)
        assert.ok(r.text.length >= head.length + tail.length)
        assert.ok(r.text.startsWith(head) && r.text.endsWith(tail))
        const { notice, rendered } = noticeUsed(c, r)
        assert.notEqual(
          notice,
          undefined,
          `glue ${JSON.stringify(glueOf(c, r))} is not the laid-out notice ${JSON.stringify(rendered)} nor a fallback`,
        )
      }),
    )
  })

  test('cuts are safe and create no lone surrogate', () => {
    check(
      fc.property(caseArb(), (c) => {
        const r = clamp(c)
        assert.ok(isSafeCut(c.text, r.headEnd), `headEnd ${r.headEnd}`)
        assert.ok(isSafeCut(c.text, r.tailStart), `tailStart ${r.tailStart}`)
        const parts = [keptHead(c, r), glueOf(c, r), keptTail(c, r)]
        const loneInParts = parts.reduce((sum, p) => sum + countLoneSurrogates(p), 0)
        assert.ok(countLoneSurrogates(r.text) <= loneInParts)
        if (!r.truncated) assert.equal(countLoneSurrogates(r.text), countLoneSurrogates(c.text))
      }),
    )
  })

  test('truncateText reports what the reference measures', () => {
    check(
      fc.property(caseArb(), fc.boolean(), (c, omitStrategy) => {
        const options = { ...c.limits, headRatio: c.headRatio, notice: c.notice }
        if (!omitStrategy) options.strategy = c.strategy
        const r = truncateText(c.text, options)
        const total = measure(c.text)
        const output = measure(r.text)
        assert.equal(r.strategy, omitStrategy ? 'head' : c.strategy)
        assert.deepEqual(r.truncatedBy, exceededLimits(c.text, c.limits))
        assert.equal(r.truncated, r.truncatedBy.length > 0)
        assert.deepEqual(
          [r.totalChars, r.totalBytes, r.totalLines, r.outputChars, r.outputBytes, r.outputLines],
          [total.chars, total.bytes, total.lines, output.chars, output.bytes, output.lines],
        )
        const omitted = r.truncated ? omittedBetween(c.text, r.headEnd, r.tailStart) : { chars: 0, bytes: 0, lines: 0 }
        assert.deepEqual([r.omittedChars, r.omittedBytes, r.omittedLines], [omitted.chars, omitted.bytes, omitted.lines])
        assert.equal(r.omittedChars, r.tailStart - r.headEnd)
        assert.deepEqual(measureText(c.text), total)
      }),
    )
  })

  // docs/strings.md: the stringTruncate* functions are shorthands of truncateText(...).text, with
  // every option they take (snap included) meaning the same.
  test('string functions return truncateText(...).text', () => {
    const fns = { head: stringTruncateHead, tail: stringTruncateTail, headTail: stringTruncateHeadTail }
    const snapArb = fc.constantFrom(undefined, 'line', 'none')
    check(
      fc.property(caseArb(), limitArgArb, fc.boolean(), snapArb, (c, limit, withOptions, snap) => {
        let options
        if (withOptions)
          options = c.strategy === 'headTail' ? { headRatio: c.headRatio, notice: c.notice, snap } : { notice: c.notice, snap }
        const out = fns[c.strategy](c.text, limit, options)
        const expected = truncateText(c.text, { ...toLimits(limit), strategy: c.strategy, ...options }).text
        assert.equal(out, expected)
      }),
    )
  })

  test('options objects are never mutated', () => {
    const snapshot = (value) =>
      JSON.stringify(value, (_, v) => (typeof v === 'function' ? `fn:${v.name}` : v === Infinity ? 'Infinity' : v))
    check(
      fc.property(caseArb(), (c) => {
        const options = deepFreeze({ ...c.limits, strategy: c.strategy, headRatio: c.headRatio, notice: c.notice })
        const before = snapshot(options)
        truncateText(c.text, options)
        assert.equal(snapshot(options), before)

        const limits = deepFreeze({ ...c.limits })
        const noticeOptions = deepFreeze(c.strategy === 'headTail' ? { headRatio: c.headRatio, notice: c.notice } : { notice: c.notice })
        const limitsBefore = snapshot(limits)
        const noticeBefore = snapshot(noticeOptions)
        const fn = { head: stringTruncateHead, tail: stringTruncateTail, headTail: stringTruncateHeadTail }[c.strategy]
        fn(c.text, limits, noticeOptions)
        assert.equal(snapshot(limits), limitsBefore)
        assert.equal(snapshot(noticeOptions), noticeBefore)
      }),
    )
  })

  test('head and tail keep as much as the notice they use allows', () => {
    check(
      fc.property(
        caseArb(steadyNoticeArb).filter((c) => c.strategy !== 'headTail'),
        (c) => {
          const r = clamp(c)
          if (!r.truncated) return
          const { notice } = noticeUsed(c, r)
          assert.notEqual(notice, undefined, 'the glue is a known notice')
          const best = (c.strategy === 'head' ? referenceHead : referenceTail)(c.text, c.limits, notice)
          assert.deepEqual(
            { headEnd: r.headEnd, tailStart: r.tailStart },
            { headEnd: best.headEnd, tailStart: best.tailStart },
            `notice ${JSON.stringify(notice)}`,
          )
        },
      ),
    )
  })

  // Contract: crates/toolclamp-core/src/plan/mod.rs module docs. For 'head' and 'tail' the result is
  // exactly the brute-force reference's: the caller's notice when any cut fits with the notice
  // rendered from its own facts, else the first fallback some cut fits with; the longest part among
  // the cuts that fit with their own notice. Every notice here behaves like a template.
  test('head and tail keep exactly what the reference keeps', () => {
    check(
      fc.property(
        caseArb().filter((c) => c.strategy !== 'headTail'),
        (c) => {
          const r = clamp(c)
          const expected = referenceClamp(c.text, c.limits, c.strategy, c.notice)
          assert.deepEqual(
            { text: r.text, headEnd: r.headEnd, tailStart: r.tailStart },
            { text: expected.text, headEnd: expected.headEnd, tailStart: expected.tailStart },
            `reference notice ${JSON.stringify(expected.notice)}`,
          )
        },
      ),
    )
  })

  /**
   * Asserts no one-step-longer head or tail would fit, each with the notice `noticeAt` gives
   * for its cut (`(headEnd, tailStart) => notice`).
   */
  function assertNoRoomLeft(c, r, noticeAt) {
    const fitsWith = (headEnd, tailStart) => layoutFits('headTail', c.text, headEnd, tailStart, noticeAt(headEnd, tailStart), c.limits)
    let longerHead = r.headEnd + 1
    while (!isSafeCut(c.text, longerHead)) longerHead++
    if (longerHead <= r.tailStart) assert.ok(!fitsWith(longerHead, r.tailStart), `head could end at ${longerHead}`)
    let longerTail = r.tailStart - 1
    while (!isSafeCut(c.text, longerTail)) longerTail--
    if (longerTail >= r.headEnd) assert.ok(!fitsWith(r.headEnd, longerTail), `tail could start at ${longerTail}`)
  }

  // Neither kept part can grow by one safe step and still fit: with the notice the grown cut would
  // carry when the caller's notice (template or function) is used, else with the notice used.
  test('headTail: neither kept part can grow by one safe step with the notice it would carry', () => {
    check(
      fc.property(
        caseArb().filter((c) => c.strategy === 'headTail'),
        (c) => {
          const r = clamp(c)
          if (!r.truncated) return
          const { notice, rendered } = noticeUsed(c, r)
          assert.notEqual(notice, undefined, 'the glue is a known notice')
          const follows = c.notice !== undefined && notice === rendered
          const noticeAt = (headEnd, tailStart) =>
            follows ? renderNotice(c.notice, noticeFacts(c.text, c.limits, 'headTail', headEnd, tailStart)) : notice
          assertNoRoomLeft(c, r, noticeAt)
        },
      ),
    )
  })

  // Once, the planner jumped from a head of 16 to 18 and never tried 17.
  test('notices that follow the cut: the longest part that fits with its own notice', () => {
    const r = truncateText('a\n'.repeat(10), { maxChars: 19, notice: '{fromLine}' })
    assert.equal(r.headEnd, 17)
    assert.equal(r.text, `${'a\n'.repeat(8)}a\n9`)
    const offsets = truncateText('x'.repeat(100), { maxChars: 18, notice: '<{headEnd}|{tailStart}>' })
    assert.equal(offsets.text, `${'x'.repeat(9)}\n<9|100>`)
  })

  // Only notices that cannot grow as more text is kept: with those, a longer part that fits
  // with the same notice would also fit with its own, so the library left room unused.
  test('headTail: neither kept part can grow by one more safe step with the notice used', () => {
    check(
      fc.property(
        caseArb(steadyNoticeArb).filter((c) => c.strategy === 'headTail' && c.notice !== ''),
        (c) => {
          const r = clamp(c)
          if (!r.truncated) return
          const { notice } = noticeUsed(c, r)
          assert.notEqual(notice, undefined, 'the glue is a known notice')
          // The no-notice case has its own test below.
          if (notice !== '') assertNoRoomLeft(c, r, () => notice)
        },
      ),
    )
  })

  // With no notice the head and tail meet on one line, which then counts once.
  test('headTail without a notice: neither kept part can grow by one more safe step', () => {
    check(
      fc.property(
        caseArb(fc.constant('')).filter((c) => c.strategy === 'headTail'),
        (c) => {
          const r = clamp(c)
          if (!r.truncated) return
          assert.equal(r.text, keptHead(c, r) + keptTail(c, r))
          assertNoRoomLeft(c, r, () => '')
        },
      ),
    )
  })
})
