// truncateToolOutput and the per-tool profiles: the limits table, layering of a
// caller's profiles, the indicators' shape, and, as properties over random outputs, that
// the view fits both limits and that every count in it is a count of the original.
// FC_RUNS sets the runs per property (default 10,000).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'

import { truncateToolOutput, resolveToolProfile, TOOL_OUTPUT_PRESETS } from '../presets.mjs'
import { truncateText } from '../index.mjs'
import { measure, isSafeCut } from './reference.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const check = (property) => fc.assert(property, { numRuns: RUNS })

const numbered = (n, width = 30) => Array.from({ length: n }, (_, i) => `line ${i + 1} ${'x'.repeat(width)}\n`).join('')
const count = (n) => n.toLocaleString('en-US')

/**
 * Takes a truncated view apart using the result's offsets, checking that it is exactly
 * `[First H lines of T]\n` + head + marker line(s) + `[Last M lines of T]\n` + tail.
 */
function parseView(output, result) {
  const head = output.slice(0, result.headEnd)
  const tail = output.slice(result.tailStart)
  const T = measure(output).lines
  const first = result.headLines > 0 ? `[First ${count(result.headLines)} lines of ${count(T)}]\n` : ''
  const last = result.tailLines > 0 ? `[Last ${count(result.tailLines)} lines of ${count(T)}]\n` : ''
  const text = result.text
  assert.ok(text.startsWith(first + head), 'starts with the first indicator and the head')
  assert.ok(text.endsWith(last + tail), 'ends with the last indicator and the tail')
  const middle = text.slice(first.length + head.length, text.length - last.length - tail.length)
  return { head, tail, middle, T }
}

describe('profiles', () => {
  test('the limits table (the snake_case presets), and a default for every other tool', () => {
    const names = ['read_file', 'run_command', 'list_directory', 'search_files', 'default']
    const endHeavy = { strategy: 'headTail', headRatio: 0.3 }
    assert.deepEqual(Object.fromEntries(names.map((k) => [k, { ...TOOL_OUTPUT_PRESETS[k] }])), {
      read_file: { maxChars: 50000, maxLines: 500, ...endHeavy },
      run_command: { maxChars: 20000, maxLines: 200, ...endHeavy },
      list_directory: { maxChars: 10000, maxLines: 100, ...endHeavy },
      search_files: { maxChars: 30000, maxLines: 300, ...endHeavy },
      default: { maxChars: 20000, maxLines: 200, ...endHeavy },
    })
    assert.ok(Object.isFrozen(TOOL_OUTPUT_PRESETS) && Object.isFrozen(TOOL_OUTPUT_PRESETS.read_file))
    // The other presets are not tool profiles: a tool named after one gets the default.
    for (const name of ['toolResult', 'toolError', 'piRead', 'piBash', 'openclawExec', 'inspect']) {
      assert.deepEqual(resolveToolProfile(name), { name: 'default', maxChars: 20000, maxLines: 200 }, name)
    }
    assert.deepEqual(resolveToolProfile('read_file'), { name: 'read_file', maxChars: 50000, maxLines: 500 })
    assert.deepEqual(resolveToolProfile('grep'), { name: 'default', maxChars: 20000, maxLines: 200 })
    // Not inherited names: 'toString' and '__proto__' are tools like any other.
    assert.deepEqual(resolveToolProfile('toString'), { name: 'default', maxChars: 20000, maxLines: 200 })
    assert.deepEqual(resolveToolProfile('__proto__'), { name: 'default', maxChars: 20000, maxLines: 200 })
  })

  test("a caller's profile overrides only the keys it sets, and adds tools", () => {
    const profiles = { read_file: { maxLines: 1000 }, web_fetch: { maxChars: 8000 }, default: { maxLines: 50 } }
    assert.deepEqual(resolveToolProfile('read_file', profiles), { name: 'read_file', maxChars: 50000, maxLines: 1000 })
    assert.deepEqual(resolveToolProfile('web_fetch', profiles), { name: 'web_fetch', maxChars: 8000, maxLines: 50 })
    assert.deepEqual(resolveToolProfile('other', profiles), { name: 'default', maxChars: 20000, maxLines: 50 })
    // The built-in profile of a tool wins over the caller's default.
    assert.deepEqual(resolveToolProfile('run_command', profiles), { name: 'run_command', maxChars: 20000, maxLines: 200 })
    assert.deepEqual(profiles.read_file, { maxLines: 1000 }, 'not mutated')
  })

  test('per-call limits override the profile', () => {
    const r = truncateToolOutput('read_file', numbered(50), { maxLines: 10 })
    assert.deepEqual(r.profile, { name: 'read_file', maxChars: 50000, maxLines: 10 })
    assert.ok(measure(r.text).lines <= 10)
  })

  test('invalid profiles and options throw, naming what is wrong', () => {
    const cases = [
      [() => resolveToolProfile(1), TypeError, 'toolName must be a string, got 1'],
      [() => resolveToolProfile('x', []), TypeError, 'profiles must be an object, got an array'],
      [() => resolveToolProfile('x', { x: 5 }), TypeError, 'profiles["x"] must be an object with maxChars and/or maxLines, got 5'],
      [
        () => resolveToolProfile('x', { x: { maxchars: 5 } }),
        TypeError,
        'unknown option "profiles[\\"x\\"].maxchars"; expected one of maxChars, maxLines',
      ],
      [
        () => resolveToolProfile('x', { x: { maxLines: -1 } }),
        RangeError,
        'profiles["x"].maxLines must be a non-negative integer or Infinity, got -1',
      ],
      [() => truncateToolOutput('x', 5), TypeError, 'text must be a string, got 5'],
      [
        () => truncateToolOutput('x', 'y', { maxBytes: 5 }),
        TypeError,
        'unknown option "maxBytes"; expected one of profiles, maxChars, maxLines, headRatio, notice, spill',
      ],
      [() => truncateToolOutput('x', 'y', { maxChars: 1.5 }), RangeError, 'maxChars must be a non-negative integer or Infinity, got 1.5'],
      [() => truncateToolOutput('x', 'y', { headRatio: 2 }), RangeError, 'headRatio must be a number from 0 to 1, got 2'],
      [() => truncateToolOutput('x', 'y', { notice: '{nope}' }), TypeError, /nope/],
    ]
    for (const [fn, type, message] of cases) {
      assert.throws(
        fn,
        (e) => e instanceof type && (typeof message === 'string' ? e.message === message : message.test(e.message)),
        String(message),
      )
    }
  })
})

describe('truncateToolOutput', () => {
  test('a later clamp of the view reads its marker and indicators: counts of the original', () => {
    const output = numbered(500)
    const view = truncateToolOutput('list_directory', output).text
    // The head kept whole, with its indicator; the Last indicator goes with the marker.
    const kept = truncateText(view, { maxLines: 90, strategy: 'headTail', headRatio: 0.5, snap: 'line' }).text
    const lines = kept.split('\n')
    assert.equal(lines[0], '[First 29 lines of 500]')
    assert.equal(lines[29], 'line 29 ' + 'x'.repeat(30))
    const tailLines = lines.length - 32
    assert.equal(lines[30], `[... ${500 - 29 - tailLines} lines truncated in the middle ...]`)
    assert.ok(!lines.slice(31).some((line) => line.startsWith('[')))
    // The head dropped, indicator and all: still the original's count.
    const tail = truncateText(view, { maxLines: 20, strategy: 'tail', snap: 'line' }).text.split('\n')
    assert.equal(tail[0], `[... ${500 - (tail.length - 2)} lines truncated at the start ...]`)
    assert.equal(tail.at(-2), 'line 500 ' + 'x'.repeat(30))
  })

  test('output within the profile is returned as is', () => {
    const output = numbered(100)
    const r = truncateToolOutput('list_directory', output)
    assert.equal(r.text, output)
    assert.equal(r.truncated, false)
    assert.equal(r.totalLines, 100)
    assert.equal(r.omittedLines, 0)
  })

  test("the view's shape: first lines, marker, last lines, counts of the original", () => {
    const output = numbered(500)
    const r = truncateToolOutput('list_directory', output)
    assert.equal(r.truncated, true)
    const lines = r.text.split('\n')
    assert.equal(lines[0], `[First ${r.headLines} lines of 500]`)
    assert.equal(lines[1], 'line 1 ' + 'x'.repeat(30))
    const marker = lines.findIndex((l) => l.startsWith('[... '))
    assert.equal(marker, r.headLines + 1)
    assert.equal(lines[marker], `[... ${r.omittedLines} lines, ${count(r.omittedChars)} chars truncated in the middle ...]`)
    assert.equal(lines[marker + 1], `[Last ${r.tailLines} lines of 500]`)
    assert.equal(lines.at(-2), 'line 500 ' + 'x'.repeat(30))
    // Every original line is shown or counted as dropped, once.
    assert.equal(r.headLines + r.omittedLines + r.tailLines, 500)
    // 30% of the kept lines at the start, the rest at the end; all within 100 lines.
    assert.ok(measure(r.text).lines <= 100)
    assert.ok(Math.abs(r.headLines - 0.3 * (r.headLines + r.tailLines)) <= 1.5, `${r.headLines} / ${r.tailLines}`)
    assert.ok(r.text.length <= 10000)
  })

  test('the character stage: a few enormous lines', () => {
    const output = `${'a'.repeat(60000)}\n${'b'.repeat(60000)}\nerror: the end\n`
    const r = truncateToolOutput('run_command', output)
    assert.ok(r.text.length <= 20000)
    const { head, tail, middle } = parseView(output, r)
    assert.ok(tail.endsWith('error: the end\n'), 'the end is kept')
    // The head ends inside its line: the marker follows it on that line, as every notice does.
    assert.match(middle, /^ \[\.\.\. [\d,]+ chars truncated in the middle \.\.\.\]\n$/)
    assert.equal(head.length + tail.length + r.omittedChars, output.length)
  })

  test('headRatio and a custom marker', () => {
    const r = truncateToolOutput('x', numbered(300), { maxLines: 50, headRatio: 0, notice: '<{omittedLines} gone>' })
    assert.equal(r.headLines, 0)
    assert.ok(r.text.startsWith('<'))
    assert.match(r.text, /^<253 gone>\n\[Last 47 lines of 300\]\n/)
  })

  // Once, maxLines: 3 kept nothing of a long line where 2 and 4 kept about 1,300 chars.
  test('the indicators never cost the text more than their own room', () => {
    const output = 'x'.repeat(5000)
    const kept = (maxLines) => {
      const r = truncateToolOutput('other', output, { maxChars: 1313, maxLines })
      assert.ok(r.text.length <= 1313 && measure(r.text).lines <= maxLines)
      return r.headEnd + output.length - r.tailStart
    }
    const [two, three, four] = [kept(2), kept(3), kept(4)]
    assert.ok(two > 1200, `maxLines 2 keeps ${two}`)
    assert.ok(three >= two, `maxLines 3 keeps ${three}, 2 keeps ${two}`)
    // With room for them, the indicators come back and take only their own length.
    const r = truncateToolOutput('other', output, { maxChars: 1313, maxLines: 4 })
    assert.match(r.text, /\n\[Last 1 lines of 1\]\n/)
    assert.ok(four >= three - '[First 1 lines of 1]\n[Last 1 lines of 1]\n'.length, `${four} vs ${three}`)
  })

  test('the marker names only the limits the output exceeds as given', () => {
    const lines = Array.from({ length: 34 }, (_, i) => `l${i}`).join('\n')
    const r = truncateToolOutput('other', lines, { maxChars: 1000, maxLines: 10 })
    assert.match(r.text, /\n\[\.\.\. \d+ lines truncated in the middle \.\.\.\]\n/)
    const wide = truncateToolOutput('other', 'y'.repeat(3000), { maxChars: 1000, maxLines: 10 })
    assert.match(wide.text, /\[\.\.\. [\d,]+ chars truncated in the middle \.\.\.\]/)
  })

  test('limits too small for the indicators still hold', () => {
    const output = numbered(40)
    for (const [maxChars, maxLines] of [
      [0, 0],
      [5, 1],
      [50, 2],
      [100, 3],
      [Infinity, 1],
    ]) {
      const r = truncateToolOutput('x', output, { maxChars, maxLines })
      const m = measure(r.text)
      assert.ok(m.chars <= maxChars && m.lines <= maxLines, `${maxChars}/${maxLines}: ${JSON.stringify(r.text)}`)
    }
  })
})

describe('properties', () => {
  const PIECES = ['a', 'line of text', '\n', '\n', '\r\n', '日本', '😀', '\uD800', '\uDC00']
  const piece = fc.constantFrom(...PIECES)
  const outputArb = fc
    .array(
      fc.oneof({ weight: 20, arbitrary: piece }, { weight: 1, arbitrary: fc.tuple(piece, fc.nat(200)).map(([p, n]) => p.repeat(n)) }),
      { maxLength: 150 },
    )
    .map((parts) => parts.join(''))
  const limitArb = (max) => fc.oneof(fc.nat(max), fc.constant(Infinity))

  test('the view fits both limits, cuts safely, and every count is of the original', () => {
    check(
      fc.property(outputArb, limitArb(400), limitArb(60), fc.constantFrom(0, 0.3, 0.5, 1), (output, maxChars, maxLines, headRatio) => {
        const r = truncateToolOutput('tool', output, { maxChars, maxLines, headRatio })
        const m = measure(r.text)
        const whole = measure(output)
        assert.equal(r.totalLines, whole.lines)
        assert.equal(r.totalChars, whole.chars)
        if (whole.chars <= maxChars && whole.lines <= maxLines) {
          assert.equal(r.text, output)
          assert.equal(r.truncated, false)
          return
        }
        assert.equal(r.truncated, true)
        assert.ok(m.chars <= maxChars, 'chars')
        assert.ok(m.lines <= maxLines, 'lines')
        assert.ok(isSafeCut(output, r.headEnd) && isSafeCut(output, r.tailStart), 'safe cuts')
        assert.ok(r.headEnd <= r.tailStart)
        assert.equal(r.omittedChars, r.tailStart - r.headEnd)
        if (r.text.startsWith('[First ') || r.text.includes('\n[Last ')) {
          const { head, tail } = parseView(output, r)
          assert.equal(r.headLines, measure(head).lines)
          assert.equal(r.tailLines, measure(tail).lines)
        }
        // Lines wholly dropped: those neither touched by the head nor by the tail.
        const dropped = output.slice(r.headEnd, r.tailStart)
        assert.ok(r.omittedLines <= measure(dropped).lines, 'omitted lines were in the dropped text')
        const shown = r.headLines + r.tailLines + r.omittedLines
        assert.ok(shown === whole.lines || shown === whole.lines + 1, `${shown} vs ${whole.lines}`)
      }),
    )
  })
})
