// The text of a Python run (prints and result value) and its <python_result> message, bounded
// however many prints accumulate. FC_RUNS sets the runs per property (default 10,000).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fc from 'fast-check'

const require = createRequire(import.meta.url)
const { formatPythonResult } = require('../lib/presets/python.js')

/**
 * The text without its tags: formatPythonResult with `tags: false`. Options that are not an
 * object go as they are, so their errors are formatPythonResult's own.
 */
function untaggedText(result, options) {
  if (options === undefined) return formatPythonResult(result, { tags: false })
  return typeof options === 'object' && options !== null
    ? formatPythonResult(result, { ...options, tags: false })
    : formatPythonResult(result, options)
}
const { stringTruncateHeadTail } = require('../lib/text/clamp.js')

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const check = (property) => fc.assert(property, { numRuns: RUNS })

const OPEN_TAG = '<python_result>\n'
const CLOSE_TAG = '\n</python_result>'
const TAGS_CHARS = OPEN_TAG.length + CLOSE_TAG.length
const MIDDLE_NOTICE = /[\n ]\[\.\.\. [\d,]+ chars truncated in the middle \.\.\.\]\n/

/** The two sections of a built text whose headings were kept (test texts never print "Result:"). */
function sections(text) {
  assert.ok(text.startsWith('Print output:'), 'the print heading comes first')
  const at = text.indexOf('\n\nResult:')
  assert.ok(at !== -1, 'the result heading is kept')
  return { prints: text.slice(0, at), result: text.slice(at + 2) }
}

const sectionBody = (section, label) => {
  assert.ok(section.startsWith(`${label}\n`), `${label} has a body`)
  return section.slice(label.length + 1)
}

describe('formatPythonResult with tags: false', () => {
  test('the layout: prints joined by newlines, then the result value', () => {
    assert.equal(
      untaggedText({ printOutput: ['loading data', 'rows: 3'], output: '[1, 2, 3]' }),
      'Print output:\nloading data\nrows: 3\n\nResult:\n[1, 2, 3]',
    )
  })

  test('absent and empty sections say so', () => {
    assert.equal(untaggedText({ printOutput: [] }), 'Print output: (none)\n\nResult: (none)')
    assert.equal(untaggedText({ printOutput: [], output: '' }), 'Print output: (none)\n\nResult: (empty)')
    assert.equal(untaggedText({ printOutput: [''], output: 'ok' }), 'Print output: (empty)\n\nResult:\nok')
    assert.equal(untaggedText({ printOutput: ['', ''] }), 'Print output:\n\n\n\nResult: (none)')
  })

  test('other keys of the run result are ignored', () => {
    assert.equal(untaggedText({ printOutput: ['hi'], output: 1, toolCallCount: 4 }), 'Print output:\nhi\n\nResult:\n1')
  })

  test('any result value becomes text, and nothing throws', () => {
    const cyclic = { name: 'node' }
    cyclic.self = cyclic
    const { proxy: revoked, revoke } = Proxy.revocable({}, {})
    revoke()
    const cases = [
      [42, '42'],
      [-0, '0'],
      [NaN, 'NaN'],
      [Infinity, 'Infinity'],
      [12345678901234567890n, '12345678901234567890'],
      [true, 'true'],
      [null, 'null'],
      [Symbol('s'), 'Symbol(s)'],
      [{ a: [1, 'x'], b: null }, '{"a":[1,"x"],"b":null}'],
      [[1, 'two', { three: 3 }], '[1,"two",{"three":3}]'],
      [Object.assign(Object.create(null), { k: 'v' }), '{"k":"v"}'],
      [cyclic, "<ref *1> { name: 'node', self: [Circular *1] }"],
      [{ big: 1n }, '{ big: 1n }'],
      [new Map([['k', 1]]), "Map(1) { 'k' => 1 }"],
      [new Set([1]), 'Set(1) { 1 }'],
      [revoked, '<Revoked Proxy>'],
      [
        {
          toJSON() {
            throw new Error('no JSON')
          },
        },
        '{ toJSON: [Function: toJSON] }',
      ],
      [function answer() {}, '[Function: answer]'],
    ]
    for (const [value, text] of cases) {
      assert.equal(untaggedText({ printOutput: [], output: value }), `Print output: (none)\n\nResult:\n${text}`)
    }
    const error = untaggedText({ printOutput: [], output: new TypeError('bad input') })
    assert.ok(error.startsWith('Print output: (none)\n\nResult:\nTypeError: bad input'))
  })

  test('truncation plan: prints are clamped head+tail to 8,000 chars', () => {
    const printOutput = Array.from({ length: 2000 }, (_, i) => `step ${i} done`)
    const text = untaggedText({ printOutput, output: 'ok' })
    const body = sectionBody(sections(text).prints, 'Print output:')
    assert.ok(body.length <= 8000)
    assert.ok(body.length >= 8000 - 60, 'the budget is used')
    assert.ok(body.startsWith('step 0 done\nstep 1 done\n'), 'the first prints are kept')
    assert.ok(body.endsWith('step 1998 done\nstep 1999 done'), 'the last prints are kept')
    assert.match(body, MIDDLE_NOTICE)
    assert.ok(text.endsWith('\n\nResult:\nok'))
  })

  test('truncation plan: the result value is clamped head+tail to 8,000 chars', () => {
    const output = `HEAD${'v'.repeat(50_000)}TAIL`
    const text = untaggedText({ printOutput: ['hello'], output })
    const body = sectionBody(sections(text).result, 'Result:')
    assert.ok(body.length <= 8000 && body.length >= 8000 - 60)
    assert.ok(body.startsWith('HEAD') && body.endsWith('TAIL'))
    assert.match(body, MIDDLE_NOTICE)
    assert.ok(text.startsWith('Print output:\nhello\n\nResult:\n'))
  })

  test('truncation plan: both large, the whole stays within 16,000 chars and keeps both headings', () => {
    const printOutput = Array.from({ length: 5000 }, (_, i) => `log line ${i}`)
    const text = untaggedText({ printOutput, output: 'r'.repeat(100_000) })
    assert.ok(text.length <= 16_000)
    assert.ok(text.length >= 16_000 - 120, 'the budget is used')
    const { prints, result } = sections(text)
    // The result value is the answer: it keeps its full 8,000; the prints get what is left.
    assert.equal(sectionBody(result, 'Result:'), stringTruncateHeadTail('r'.repeat(100_000), 8000))
    assert.ok(sectionBody(prints, 'Print output:').length <= 8000)
    assert.equal(text.match(/truncated in the middle/g).length, 2, 'one notice per section, no third cut')
  })

  test('truncation plan: many print() calls stay bounded', () => {
    const printOutput = Array.from({ length: 100_000 }, () => 'tick 😀 日本\r')
    const text = untaggedText({ printOutput, output: { done: true } })
    assert.ok(text.length <= 16_000)
    assert.ok(text.endsWith('\n\nResult:\n{"done":true}'))
  })

  test('the three limits and headRatio can be overridden', () => {
    const printOutput = ['p'.repeat(500)]
    const output = 'o'.repeat(500)
    const text = untaggedText({ printOutput, output }, { maxPrintChars: 100, maxOutputChars: 200 })
    const { prints, result } = sections(text)
    assert.equal(sectionBody(prints, 'Print output:'), stringTruncateHeadTail('p'.repeat(500), 100, { snap: 'line' }))
    assert.equal(sectionBody(result, 'Result:'), stringTruncateHeadTail(output, 200, { snap: 'line' }))

    const small = untaggedText({ printOutput, output }, { maxTotalChars: 150 })
    assert.ok(small.length <= 150)
    sections(small)

    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`)
    const tailOnly = untaggedText({ printOutput: lines }, { maxPrintChars: 60, headRatio: 0 })
    assert.equal(
      sectionBody(sections(tailOnly).prints, 'Print output:'),
      stringTruncateHeadTail(lines.join('\n'), 60, { headRatio: 0, snap: 'line' }),
    )

    const unlimited = untaggedText({ printOutput, output }, { maxPrintChars: Infinity, maxOutputChars: Infinity, maxTotalChars: Infinity })
    assert.equal(unlimited, `Print output:\n${printOutput[0]}\n\nResult:\n${output}`)
  })

  test('a total too small for the headings is still a hard bound', () => {
    for (const maxTotalChars of [0, 1, 5, 10, 20, 30]) {
      const text = untaggedText({ printOutput: ['abc'.repeat(100)], output: 'x' }, { maxTotalChars })
      assert.ok(text.length <= maxTotalChars, `${text.length} > ${maxTotalChars}`)
    }
  })

  test('invalid arguments and options throw, naming them', () => {
    const cases = [
      [() => untaggedText(undefined), TypeError, 'result must be an object with a printOutput array, got undefined'],
      [() => untaggedText(['x']), TypeError, 'result must be an object with a printOutput array, got an array'],
      [() => untaggedText({ output: 1 }), TypeError, 'result.printOutput must be an array of strings, got undefined'],
      [() => untaggedText({ printOutput: 'x' }), TypeError, 'result.printOutput must be an array of strings, got "x"'],
      [() => untaggedText({ printOutput: ['a', 2] }), TypeError, 'result.printOutput[1] must be a string, got 2'],
      [() => untaggedText({ printOutput: [] }, 8000), TypeError, 'options must be an object, got 8000'],
      [
        () => untaggedText({ printOutput: [] }, { maxChars: 10 }),
        TypeError,
        'unknown option "maxChars"; expected one of maxPrintChars, maxOutputChars, maxTotalChars, headRatio, snap, tags',
      ],
      [
        () => untaggedText({ printOutput: [] }, { maxtotalchars: 10 }),
        TypeError,
        'unknown option "maxtotalchars"; did you mean "maxTotalChars"?',
      ],
      [
        () => untaggedText({ printOutput: [] }, { maxPrintChars: -1 }),
        RangeError,
        'maxPrintChars must be a non-negative integer or Infinity, got -1',
      ],
      [() => untaggedText({ printOutput: [] }, { maxOutputChars: '8k' }), TypeError, 'maxOutputChars must be a number, got "8k"'],
      [
        () => untaggedText({ printOutput: [] }, { maxTotalChars: 1.5 }),
        RangeError,
        'maxTotalChars must be a non-negative integer or Infinity, got 1.5',
      ],
      [() => untaggedText({ printOutput: [] }, { headRatio: 2 }), RangeError, 'headRatio must be a number from 0 to 1, got 2'],
    ]
    for (const [call, type, message] of cases) assert.throws(call, { name: type.name, message })
  })
})

describe('formatPythonResult', () => {
  test('wraps the text in <python_result> tags on lines of their own', () => {
    assert.equal(
      formatPythonResult({ printOutput: ['hello', 'world'], output: 42 }),
      '<python_result>\nPrint output:\nhello\nworld\n\nResult:\n42\n</python_result>',
    )
  })

  test('maxTotalChars bounds the whole message, tags included', () => {
    const run = { printOutput: Array.from({ length: 10_000 }, (_, i) => `print ${i}`), output: 'x'.repeat(20_000) }
    const message = formatPythonResult(run)
    assert.ok(message.length <= 16_000)
    assert.ok(message.startsWith(OPEN_TAG) && message.endsWith(CLOSE_TAG))
    assert.equal(message, OPEN_TAG + untaggedText(run, { maxTotalChars: 16_000 - TAGS_CHARS }) + CLOSE_TAG)
    assert.ok(formatPythonResult(run, { maxTotalChars: 500 }).length <= 500)
    assert.equal(formatPythonResult(run, { maxTotalChars: TAGS_CHARS }), OPEN_TAG + CLOSE_TAG)
  })

  test('a total too small for the tags throws', () => {
    assert.throws(() => formatPythonResult({ printOutput: [] }, { maxTotalChars: TAGS_CHARS - 1 }), {
      name: 'RangeError',
      message: `maxTotalChars must be at least ${TAGS_CHARS} to hold the <python_result> tags, got ${TAGS_CHARS - 1}`,
    })
  })

  test('tags: false is the same text without the tag lines, any total allowed; tags must be a boolean', () => {
    const run = { printOutput: ['hi'], output: 1 }
    assert.equal(formatPythonResult(run, { tags: true }), `${OPEN_TAG}Print output:\nhi\n\nResult:\n1${CLOSE_TAG}`)
    assert.equal(formatPythonResult(run), formatPythonResult(run, { tags: true }), 'tags: true is the default (@default true)')
    assert.equal(formatPythonResult(run, { tags: false }), 'Print output:\nhi\n\nResult:\n1')
    assert.equal(formatPythonResult(run, { tags: false, maxTotalChars: 5 }).length <= 5, true)
    assert.throws(() => formatPythonResult(run, { tags: 'no' }), {
      name: 'TypeError',
      code: 'TOOLCLAMP_INVALID_ARGUMENT',
      message: 'tags must be a boolean, got "no"',
    })
  })

  test('options are checked as without the tags', () => {
    assert.throws(() => formatPythonResult({ printOutput: [] }, { limit: 5 }), /unknown option "limit"/)
    assert.throws(() => formatPythonResult({}), /result.printOutput must be an array of strings/)
  })
})

// ---- Properties

// Line breaks of every kind, multi-byte chars, a surrogate pair, both lone surrogates and NUL.
const PIECES = ['a', 'Z', ' ', '\n', '\r\n', '\r', 'é', '日', '本', '😀', '👍🏽', '\uD800', '\uDC00', '\0']
const piece = fc.constantFrom(...PIECES)
const longRun = fc.tuple(piece, fc.integer({ min: 2, max: 500 })).map(([p, n]) => p.repeat(n))
const textArb = fc
  .array(fc.oneof({ weight: 20, arbitrary: piece }, { weight: 1, arbitrary: longRun }), { maxLength: 60 })
  .map((parts) => parts.join(''))
// A few prints of any size, or very many copies of one (a print loop).
const printsArb = fc.oneof(
  { weight: 3, arbitrary: fc.array(textArb, { maxLength: 20 }) },
  { weight: 1, arbitrary: fc.tuple(textArb, fc.integer({ min: 0, max: 2000 })).map(([text, n]) => Array(n).fill(text)) },
)
const outputArb = fc.oneof(
  { weight: 4, arbitrary: textArb },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.anything({ withBigInt: true, withMap: true, withSet: true, withNullPrototype: true }) },
)
const budget = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 400 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 20_000 }) },
  { weight: 1, arbitrary: fc.constant(Infinity) },
)
const optionsArb = fc.record(
  {
    maxPrintChars: budget,
    maxOutputChars: budget,
    maxTotalChars: budget,
    headRatio: fc.double({ min: 0, max: 1, noNaN: true }),
  },
  { requiredKeys: [] },
)

describe('properties', () => {
  test('the text is within maxTotalChars (default 16,000), whatever is printed or returned', () => {
    check(
      fc.property(printsArb, outputArb, fc.option(optionsArb, { nil: undefined }), (printOutput, output, options) => {
        const maxTotalChars = options?.maxTotalChars ?? 16_000
        const text = untaggedText({ printOutput, output }, options)
        assert.ok(text.length <= maxTotalChars, `${text.length} > ${maxTotalChars}`)
      }),
    )
  })

  test('the <python_result> message is within maxTotalChars too: the tags add nothing to the bound', () => {
    check(
      fc.property(printsArb, outputArb, optionsArb, (printOutput, output, options) => {
        const maxTotalChars = options.maxTotalChars ?? 16_000
        fc.pre(maxTotalChars >= TAGS_CHARS)
        const message = formatPythonResult({ printOutput, output }, options)
        assert.ok(message.length <= maxTotalChars, `${message.length} > ${maxTotalChars}`)
        assert.ok(message.startsWith(OPEN_TAG) && message.endsWith(CLOSE_TAG))
      }),
    )
  })

  test('each section is within its own limit, and both headings survive when the total has room for them', () => {
    check(
      fc.property(fc.array(textArb, { minLength: 1, maxLength: 20 }), textArb, optionsArb, (printOutput, output, options) => {
        const joined = printOutput.join('\n')
        const headingsChars =
          (joined === '' ? 'Print output: (empty)' : 'Print output:\n').length +
          2 +
          (output === '' ? 'Result: (empty)' : 'Result:\n').length
        fc.pre((options.maxTotalChars ?? 16_000) >= headingsChars)
        const { prints, result } = sections(untaggedText({ printOutput, output }, options))
        if (joined !== '') assert.ok(sectionBody(prints, 'Print output:').length <= (options.maxPrintChars ?? 8000))
        if (output !== '') assert.ok(sectionBody(result, 'Result:').length <= (options.maxOutputChars ?? 8000))
      }),
    )
  })

  test('within every limit, prints and result are shown in full', () => {
    check(
      fc.property(fc.array(textArb, { minLength: 1, maxLength: 10 }), textArb, (printOutput, output) => {
        const joined = printOutput.join('\n')
        fc.pre(joined !== '' && output !== '')
        const options = { maxPrintChars: joined.length, maxOutputChars: output.length, maxTotalChars: joined.length + output.length + 24 }
        assert.equal(untaggedText({ printOutput, output }, options), `Print output:\n${joined}\n\nResult:\n${output}`)
      }),
    )
  })
})
