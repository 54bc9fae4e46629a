// snap: 'line' on random texts and limits, against the reference in reference.mjs: every
// result fits and is a prefix and/or suffix of the text around one notice; kept parts sit on
// whole lines unless that keeps under 4/5 of the exact part; and for 'head' and 'tail' with
// the default notice, no longer snapped part fits with its own notice (maximal among
// snapped cuts). FC_RUNS sets the runs per property (default 10,000).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'

import { truncateText, hardTruncateToolPayload, formatExecOutput } from '../index.mjs'
import { defaultNotice, factsForCuts, fits, layoutFits } from './reference.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const check = (property) => fc.assert(property, { numRuns: RUNS })

const PIECES = ['a', 'b', ' ', 'word', '\n', '\n', '\r\n', 'é', '日本', '😀', '\uD800', 'x'.repeat(30)]
const textArb = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((p) => p.join(''))
const budget = (max) => fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max }))
const limitsArb = fc
  .record({ maxChars: budget(200), maxBytes: budget(300), maxLines: budget(12) }, { requiredKeys: [] })
  .map((l) => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)))
  .filter((l) => Object.keys(l).length > 0)
const strategyArb = fc.constantFrom('head', 'tail', 'headTail')

const endsLine = (text, e) => e > 0 && text.charCodeAt(e - 1) === 10
const startsLine = (text, s) => s === 0 || text.charCodeAt(s - 1) === 10

describe("snap: 'line'", () => {
  test('fits, faithful, on whole lines unless that keeps under 4/5, maximal among snapped cuts', () => {
    check(
      fc.property(textArb, limitsArb, strategyArb, (text, limits, strategy) => {
        const r = truncateText(text, { ...limits, strategy, snap: 'line' })
        assert.ok(fits(r.text, limits), `${JSON.stringify(r.text)} over ${JSON.stringify(limits)}`)
        if (!r.truncated) {
          assert.equal(r.text, text)
          return
        }
        const { headEnd: e, tailStart: s } = r
        const n = text.length
        assert.ok(r.text.startsWith(text.slice(0, e)) && r.text.endsWith(text.slice(s)))
        if (e > 0 && !endsLine(text, e)) {
          const lastLineEnd = text.lastIndexOf('\n', e - 1) + 1
          assert.ok(lastLineEnd * 5 < e * 4, `head ${e} not snapped though ${lastLineEnd} keeps 4/5`)
        }
        if (s < n && !startsLine(text, s)) {
          const next = text.indexOf('\n', s)
          const firstLineStart = next === -1 ? n : next + 1
          assert.ok(firstLineStart === n || (n - firstLineStart) * 5 < (n - s) * 4, `tail ${s} not snapped`)
        }
        const facts = factsForCuts(text, limits, strategy)
        const fitsWithOwnNotice = (headEnd, tailStart) =>
          layoutFits(strategy, text, headEnd, tailStart, defaultNotice(facts(headEnd, tailStart)), limits)
        if (strategy === 'head' && (e === 0 || endsLine(text, e))) {
          const next = text.indexOf('\n', e)
          if (next !== -1 && next + 1 < n) assert.ok(!fitsWithOwnNotice(next + 1, n), `head ${e} could keep up to ${next + 1}`)
        }
        if (strategy === 'tail' && s > 0 && (s === n || startsLine(text, s))) {
          const before = text.lastIndexOf('\n', s - 2) + 1
          if (before > 0) assert.ok(!fitsWithOwnNotice(0, before), `tail ${s} could start at ${before}`)
        }
      }),
    )
  })

  test('a tool result is cut on whole lines by default, exactly with snap: none', () => {
    const log = Array.from({ length: 5000 }, (_, i) => `step ${i} finished`).join('\n')
    const [block] = hardTruncateToolPayload([{ type: 'text', text: log }], { maxBytes: 1000 })
    assert.match(block.text, /finished\n\[\.\.\. [\d,]+ (lines, )?[\d,]+ bytes truncated at the end \.\.\.\]$/)
    const [exact] = hardTruncateToolPayload([{ type: 'text', text: log }], { maxBytes: 1000, snap: 'none' })
    assert.ok(exact.text.length > block.text.length)
    const stream = formatExecOutput({ stdout: log }, { stdout: 300 }).stdout.text
    assert.match(stream, /^\[\.\.\. [\d,]+ chars truncated from stdout \.\.\.\]\nstep \d+ finished\n/)
    // One long line: snapping would keep nothing, so the cut is exact.
    assert.ok(hardTruncateToolPayload('z'.repeat(100_000), { maxBytes: 1000 }).startsWith('z'.repeat(900)))
  })

  test('snap must be "line" or "none"', () => {
    assert.throws(() => truncateText('abc', { maxChars: 1, snap: 'lines' }), {
      name: 'TypeError',
      message: 'snap must be "line" or "none", got "lines"',
    })
    assert.throws(() => hardTruncateToolPayload('abc', { snap: true }), {
      name: 'TypeError',
      message: 'snap must be "line" or "none", got true',
    })
  })
})
