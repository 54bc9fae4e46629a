// Strings far longer than any scratch the binding keeps between calls: a long string is
// planned through bounded windows (its totals counted slice by slice, only its ends kept),
// and must give the same answer as the whole text does in the reference.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { stringTruncateHead, stringTruncateTail, truncateText } from '../index.mjs'
import { defaultNotice, measure, referenceClamp } from './reference.mjs'

const MiB = 1024 * 1024

/** About `bytes` bytes of copied units: `line` repeated, cut to end on `last`. */
function longText(line, unitBytes, bytes, last) {
  const units = bytes / unitBytes
  return line.repeat(Math.ceil(units / line.length)).slice(0, units - last.length) + last
}

const line = 'INFO 2026-11-25 request handled in 12ms path=/api/v1/items\n'
const wideLine = '日本語のログ出力 😀 行\n'

/** `text` with `[... ` in its middle: it may carry notices of an earlier clamp, so it is read whole. */
const bracketed = (text) => `${text.slice(0, text.length >> 1)}[... not a notice\n${text.slice(text.length >> 1)}`

// Long enough to be read in several windows, short enough for the brute-force reference.
for (const [name, text] of [
  ['ASCII', longText(line, 1, 2 * MiB, 'the end')],
  ['CJK and emoji', longText(wideLine, 2, 4 * MiB, '最後 😀')],
  ['holding `[... `', bracketed(longText(line, 1, 2 * MiB, 'the end'))],
]) {
  test(`a long ${name} text is clamped as the reference clamps it, by bytes and lines`, () => {
    const limit = { maxBytes: 60, maxLines: 3 }
    assert.equal(stringTruncateHead(text, limit), referenceClamp(text, limit, 'head').text)
    assert.equal(stringTruncateTail(text, limit), referenceClamp(text, limit, 'tail').text)
  })
}

// Above the 32 MiB a scratch buffer could keep: the same answer as a notice function gets,
// which plans the text copied whole.
for (const [name, text] of [
  ['ASCII', longText(line, 1, 40 * MiB, 'the end')],
  ['CJK and emoji', longText(wideLine, 2, 40 * MiB, '最後 😀')],
]) {
  test(`a 40 MiB ${name} text is clamped as when it is copied whole, with exact totals`, () => {
    for (const strategy of ['head', 'tail', 'headTail']) {
      const limits = { maxBytes: 51200, maxLines: 2000, strategy }
      const windowed = truncateText(text, limits)
      const whole = truncateText(text, { ...limits, notice: (facts) => defaultNotice(facts) })
      assert.deepEqual(windowed, whole, strategy)
      const total = measure(text)
      assert.deepEqual([windowed.totalChars, windowed.totalBytes, windowed.totalLines], [total.chars, total.bytes, total.lines])
    }
  })
}
