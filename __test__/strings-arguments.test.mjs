// The string API refuses what it cannot honour, with exact messages: texts that are not
// strings, limits out of range, unknown option keys (with the one meant), notice templates.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { stringTruncateHead, stringTruncateTail, stringTruncateHeadTail, truncateText, measureText } from '../index.mjs'

// Every check runs on short text too: a typo in an option must fail on every call, not only
// on the rare call whose text happens to be cut.
const SHORT = 'x'
const LONG = 'y'.repeat(5000)

const stringFunctions = { stringTruncateHead, stringTruncateTail, stringTruncateHeadTail }

/** The same call through each string function and truncateText with each strategy. */
function everyEntryPoint(text, limit, extraOptions = {}) {
  const limits = typeof limit === 'number' ? { maxChars: limit } : limit
  return [
    ['stringTruncateHead', () => stringTruncateHead(text, limit, extraOptions)],
    ['stringTruncateTail', () => stringTruncateTail(text, limit, extraOptions)],
    ['stringTruncateHeadTail', () => stringTruncateHeadTail(text, limit, extraOptions)],
    ...['head', 'tail', 'headTail'].map((strategy) => [
      `truncateText ${strategy}`,
      () => truncateText(text, { ...limits, strategy, ...extraOptions }),
    ]),
  ]
}

function throwsExactly(fn, name, message, label = '') {
  assert.throws(fn, (error) => {
    assert.equal(error.name, name, label)
    assert.equal(error.message, message, label)
    assert.ok(error instanceof (name === 'TypeError' ? TypeError : RangeError), label)
    return true
  })
}

describe('text', () => {
  const badTexts = [
    [42, '42'],
    [true, 'true'],
    [NaN, 'NaN'],
    [null, 'null'],
    [undefined, 'undefined'],
    [Buffer.from('abc'), 'an object'],
    [['a'], 'an array'],
    [() => 'a', 'a function'],
    [{ toString: () => 'a' }, 'an object'],
    [new String('a'), 'an object'],
  ]

  for (const [value, shown] of badTexts) {
    test(`not a string: ${shown}`, () => {
      const message = `text must be a string, got ${shown}`
      throwsExactly(() => measureText(value), 'TypeError', message, 'measureText')
      throwsExactly(() => truncateText(value, { maxChars: 10 }), 'TypeError', message, 'truncateText')
      for (const [label, fn] of Object.entries(stringFunctions)) {
        throwsExactly(() => fn(value, 10), 'TypeError', message, label)
      }
    })
  }
})

describe('limit', () => {
  const typeMessage = (shown) => `limit must be a number or an object with maxChars, maxBytes, maxLines or maxTokens, got ${shown}`

  test('missing or of the wrong type', () => {
    const cases = [
      [undefined, 'undefined'],
      [null, 'null'],
      ['100', '"100"'],
      [true, 'true'],
      [[100], 'an array'],
      [() => 100, 'a function'],
    ]
    for (const [value, shown] of cases) {
      for (const [label, fn] of Object.entries(stringFunctions)) {
        throwsExactly(() => fn(SHORT, value), 'TypeError', typeMessage(shown), label)
      }
    }
  })

  test('a number that is not a non-negative integer', () => {
    for (const [value, shown] of [
      [-1, '-1'],
      [1.5, '1.5'],
      [NaN, 'NaN'],
      [-Infinity, '-Infinity'],
    ]) {
      for (const [label, fn] of Object.entries(stringFunctions)) {
        throwsExactly(() => fn(SHORT, value), 'RangeError', `limit must be a non-negative integer or Infinity, got ${shown}`, label)
      }
    }
  })

  test('a budget of the wrong type', () => {
    const cases = [
      ['maxBytes', '50k', '"50k"'],
      ['maxChars', null, 'null'],
      ['maxLines', true, 'true'],
      ['maxChars', [1], 'an array'],
      ['maxBytes', {}, 'an object'],
    ]
    for (const [key, value, shown] of cases) {
      for (const [label, fn] of everyEntryPoint(SHORT, { [key]: value })) {
        throwsExactly(fn, 'TypeError', `${key} must be a number, got ${shown}`, label)
      }
    }
  })

  test('a budget that is not a non-negative integer', () => {
    const cases = [
      ['maxLines', -3, '-3'],
      ['maxChars', 2.5, '2.5'],
      ['maxBytes', NaN, 'NaN'],
      ['maxLines', -Infinity, '-Infinity'],
    ]
    for (const [key, value, shown] of cases) {
      for (const [label, fn] of everyEntryPoint(SHORT, { maxChars: 10, [key]: value })) {
        throwsExactly(fn, 'RangeError', `${key} must be a non-negative integer or Infinity, got ${shown}`, label)
      }
    }
  })

  test('no budget at all', () => {
    const message = 'at least one of maxChars, maxBytes, maxLines, maxTokens is required'
    for (const limit of [{}, { maxChars: undefined }, { maxChars: undefined, maxBytes: undefined, maxLines: undefined }]) {
      for (const [label, fn] of everyEntryPoint(SHORT, limit)) throwsExactly(fn, 'TypeError', message, label)
    }
    throwsExactly(() => truncateText(SHORT, { strategy: 'tail', notice: 'n' }), 'TypeError', message)
  })
})

describe('unknown option keys', () => {
  test('a near miss gets a suggestion', () => {
    const cases = [
      [() => stringTruncateHead(SHORT, { maxbytes: 10 }), 'maxbytes', 'maxBytes'],
      [() => stringTruncateTail(SHORT, { MaxChars: 10 }), 'MaxChars', 'maxChars'],
      [() => stringTruncateHeadTail(SHORT, { MAXLINES: 10 }), 'MAXLINES', 'maxLines'],
      [() => stringTruncateHead(SHORT, 10, { Notice: 'n' }), 'Notice', 'notice'],
      [() => stringTruncateHeadTail(SHORT, 10, { headratio: 0.5 }), 'headratio', 'headRatio'],
      [() => truncateText(SHORT, { maxChars: 10, Strategy: 'tail' }), 'Strategy', 'strategy'],
      [() => truncateText(SHORT, { maxchars: 10 }), 'maxchars', 'maxChars'],
      [() => truncateText(SHORT, { maxChars: 10, HEADRATIO: 0.5 }), 'HEADRATIO', 'headRatio'],
    ]
    for (const [fn, given, meant] of cases) {
      throwsExactly(fn, 'TypeError', `unknown option "${given}"; did you mean "${meant}"?`, given)
    }
  })

  // One rule everywhere: case, '_' and '-' do not count.
  test('a key that differs only in case, _ or - is a near miss', () => {
    const cases = [
      [() => truncateText(SHORT, { maxChars: 10, max_chars: 1 }), 'max_chars', 'maxChars'],
      [() => truncateText(SHORT, { maxChars: 10, 'head-ratio': 1 }), 'head-ratio', 'headRatio'],
      [() => stringTruncateHead(SHORT, { MAX_LINES: 3 }), 'MAX_LINES', 'maxLines'],
    ]
    for (const [fn, given, meant] of cases) {
      throwsExactly(fn, 'TypeError', `unknown option "${given}"; did you mean "${meant}"?`, given)
    }
  })

  // The same rule as the CLI's flags: else the one key within two edits (one for a key of up
  // to four letters), when only one is.
  test('a typo within two edits of one key gets that key', () => {
    const cases = [
      [() => truncateText(SHORT, { maxByte: 10 }), 'maxByte', 'maxBytes'],
      [() => truncateText(SHORT, { maxLiens: 10 }), 'maxLiens', 'maxLines'],
      [() => truncateText(SHORT, { maxChars: 10, stratgey: 'tail' }), 'stratgey', 'strategy'],
      [() => truncateText(SHORT, { maxChars: 10, notce: 'n' }), 'notce', 'notice'],
    ]
    for (const [fn, given, meant] of cases) {
      throwsExactly(fn, 'TypeError', `unknown option "${given}"; did you mean "${meant}"?`, given)
    }
    // Two edits from a four-letter key (snap), or more than two from any: no guess.
    const keys = 'maxChars, maxBytes, maxLines, maxTokens, tokenizer, strategy, headRatio, notice, spill, snap, normalize'
    throwsExactly(() => truncateText(SHORT, { maxChars: 10, nop: 1 }), 'TypeError', `unknown option "nop"; expected one of ${keys}`, 'nop')
    throwsExactly(
      () => truncateText(SHORT, { maxChars: 10, maxXxxes: 1 }),
      'TypeError',
      `unknown option "maxXxxes"; expected one of ${keys}`,
      'maxXxxes',
    )
  })

  test('otherwise the keys valid for that call are listed', () => {
    const limitKeys = 'maxChars, maxBytes, maxLines, maxTokens, tokenizer'
    const cases = [
      [() => stringTruncateHead(SHORT, { maxChars: 10, foo: 1 }), 'foo', limitKeys],
      [() => stringTruncateTail(SHORT, { maxChars: 10, notice: 'n' }), 'notice', limitKeys],
      [() => stringTruncateHeadTail(SHORT, { maxLines: 3, strategy: 'head' }), 'strategy', limitKeys],
      [() => stringTruncateHead(SHORT, 10, { foo: 1 }), 'foo', 'notice, snap'],
      [() => stringTruncateTail(SHORT, 10, { headRatio: 0.5 }), 'headRatio', 'notice, snap'],
      [() => stringTruncateHead(SHORT, 10, { maxChars: 5 }), 'maxChars', 'notice, snap'],
      [() => stringTruncateHeadTail(SHORT, 10, { foo: 1 }), 'foo', 'headRatio, notice, snap'],
      [() => stringTruncateHeadTail(SHORT, 10, { strategy: 'tail' }), 'strategy', 'headRatio, notice, snap'],
      [() => truncateText(SHORT, { maxChars: 10, foo: 1 }), 'foo', `${limitKeys}, strategy, headRatio, notice, spill, snap, normalize`],
    ]
    for (const [fn, given, expected] of cases) {
      throwsExactly(fn, 'TypeError', `unknown option "${given}"; expected one of ${expected}`, given)
    }
  })
})

describe('options', () => {
  test('not an object', () => {
    for (const [value, shown] of [
      [5, '5'],
      ['notice', '"notice"'],
      [[], 'an array'],
      [true, 'true'],
    ]) {
      for (const [label, fn] of Object.entries(stringFunctions)) {
        throwsExactly(() => fn(SHORT, 10, value), 'TypeError', `options must be an object, got ${shown}`, label)
      }
    }
  })

  test('truncateText needs its options object', () => {
    throwsExactly(() => truncateText(SHORT), 'TypeError', 'options must be an object, got undefined')
    throwsExactly(() => truncateText(SHORT, null), 'TypeError', 'options must be an object, got null')
    throwsExactly(() => truncateText(SHORT, 10), 'TypeError', 'options must be an object, got 10')
    throwsExactly(() => truncateText(SHORT, [10]), 'TypeError', 'options must be an object, got an array')
  })

  test('headRatio out of range or not a number', () => {
    const ranges = [
      [1.5, '1.5'],
      [-0.1, '-0.1'],
      [NaN, 'NaN'],
      [Infinity, 'Infinity'],
    ]
    for (const [value, shown] of ranges) {
      const message = `headRatio must be a number from 0 to 1, got ${shown}`
      throwsExactly(() => stringTruncateHeadTail(SHORT, 10, { headRatio: value }), 'RangeError', message)
      for (const strategy of ['head', 'tail', 'headTail']) {
        throwsExactly(() => truncateText(SHORT, { maxChars: 10, strategy, headRatio: value }), 'RangeError', message, strategy)
      }
    }
    for (const [value, shown] of [
      ['x', '"x"'],
      [null, 'null'],
      [{}, 'an object'],
    ]) {
      const message = `headRatio must be a number from 0 to 1, got ${shown}`
      throwsExactly(() => stringTruncateHeadTail(SHORT, 10, { headRatio: value }), 'TypeError', message)
      throwsExactly(() => truncateText(SHORT, { maxChars: 10, headRatio: value }), 'TypeError', message)
    }
  })

  test('strategy', () => {
    for (const [value, shown] of [
      ['middle', '"middle"'],
      ['HEAD', '"HEAD"'],
      ['head-tail', '"head-tail"'],
      [5, '5'],
      [null, 'null'],
    ]) {
      throwsExactly(
        () => truncateText(SHORT, { maxChars: 10, strategy: value }),
        'TypeError',
        `strategy must be "head", "tail", "headTail" or "auto", got ${shown}`,
      )
    }
  })

  test('notice of the wrong type', () => {
    for (const [value, shown] of [
      [5, '5'],
      [null, 'null'],
      [{}, 'an object'],
      [['a'], 'an array'],
      [false, 'false'],
    ]) {
      for (const [label, fn] of everyEntryPoint(SHORT, 10, { notice: value })) {
        throwsExactly(fn, 'TypeError', `notice must be a string or a function, got ${shown}`, label)
      }
    }
  })
})

describe('notice templates', () => {
  test('an unknown placeholder', () => {
    const message =
      'notice template: unknown placeholder {nope} (known: {omitted}, {where}, {omittedChars}, {omittedBytes}, ' +
      '{omittedLines}, {totalChars}, {totalBytes}, {totalLines}, {headEnd}, {tailStart}, {fromLine}, {toLine}, ' +
      '{omittedTokens}, {totalTokens})'
    for (const text of [SHORT, LONG]) {
      for (const [label, fn] of everyEntryPoint(text, 10, { notice: 'cut {nope} here' })) {
        throwsExactly(fn, 'TypeError', message, label)
      }
    }
  })

  test('an unclosed brace', () => {
    const message = "notice template: unclosed '{' (write '{{' for a literal brace)"
    for (const text of [SHORT, LONG]) {
      for (const [label, fn] of everyEntryPoint(text, 10, { notice: 'cut {omitted' })) {
        throwsExactly(fn, 'TypeError', message, label)
      }
    }
  })
})

describe('notice functions', () => {
  test('must return a string', () => {
    for (const [value, shown] of [
      [5, '5'],
      [null, 'null'],
      [undefined, 'undefined'],
      [{}, 'an object'],
    ]) {
      for (const [label, fn] of everyEntryPoint(LONG, 100, { notice: () => value })) {
        throwsExactly(fn, 'TypeError', `notice function must return a string, got ${shown}`, label)
      }
    }
  })

  test('an error thrown inside propagates unchanged', () => {
    class NoticeFailure extends Error {}
    const failure = new NoticeFailure('boom')
    for (const [label, fn] of everyEntryPoint(LONG, 100, {
      notice: () => {
        throw failure
      },
    })) {
      assert.throws(fn, (error) => error === failure, label)
    }
  })

  test('the library keeps working after a notice function threw', () => {
    assert.throws(() =>
      stringTruncateHead(LONG, 100, {
        notice: () => {
          throw new Error('x')
        },
      }),
    )
    assert.equal(stringTruncateHead(LONG, 100, { notice: 'cut' }), 'y'.repeat(96) + '\ncut')
  })
})

describe('error codes', () => {
  test('a value of the wrong kind is TOOLCLAMP_INVALID_ARGUMENT, one out of range TOOLCLAMP_OUT_OF_RANGE', () => {
    assert.throws(() => truncateText(5), { name: 'TypeError', code: 'TOOLCLAMP_INVALID_ARGUMENT', message: 'text must be a string, got 5' })
    assert.throws(() => truncateText('x', { maxChars: -1 }), { name: 'RangeError', code: 'TOOLCLAMP_OUT_OF_RANGE' })
    assert.throws(() => truncateText('x', { maxChars: '5' }), { name: 'TypeError', code: 'TOOLCLAMP_INVALID_ARGUMENT' })
  })

  test('every "must be ..., got" error in lib/ is made by the one error factory', () => {
    const root = fileURLToPath(new URL('../lib/', import.meta.url))
    const files = readdirSync(root, { recursive: true }).filter((f) => f.endsWith('.js') && !f.endsWith('errors.js'))
    assert.ok(files.length > 20)
    for (const file of files) {
      const source = readFileSync(join(root, file), 'utf8')
      assert.doesNotMatch(source, /new (Type|Range)Error\(`[^`]* must be [^`]*, got /, file)
    }
  })
})

describe('truncateText reads its options object the same however it is built', () => {
  const text = 'line of a log\n'.repeat(400)
  const limits = { maxBytes: 2000, maxLines: 50 }
  const expected = truncateText(text, { maxBytes: 2000, maxLines: 50, snap: 'line' })

  test('spread with a key added, on every call of optimised code, reads as the literal', () => {
    // V8 gives such an object a map of its own on each call once the caller is optimised.
    for (let i = 0; i < 3000; i++) assert.deepEqual(truncateText(text, { ...limits, snap: 'line' }), expected)
  })

  test('a null-prototype object, an inherited option and a getter', () => {
    assert.deepEqual(truncateText(text, Object.assign(Object.create(null), limits, { snap: 'line' })), expected)
    // An object whose prototype is not Object.prototype has its inherited options read.
    assert.deepEqual(truncateText(text, Object.assign(Object.create({ snap: 'line' }), limits)), expected)
    class Options {
      get maxBytes() {
        return 2000
      }
    }
    const fromClass = Object.assign(new Options(), { maxLines: 50, snap: 'line' })
    assert.deepEqual(truncateText(text, fromClass), expected)
    let reads = 0
    const counted = {
      ...limits,
      get snap() {
        reads++
        return 'line'
      },
    }
    assert.deepEqual(truncateText(text, counted), expected)
    assert.equal(reads, 1)
  })

  test('an unknown key of a spread object is refused with the key meant', () => {
    for (let i = 0; i < 3; i++) {
      assert.throws(() => truncateText(text, { ...limits, maxbytes: 1 }), {
        name: 'TypeError',
        code: 'TOOLCLAMP_INVALID_ARGUMENT',
        message: 'unknown option "maxbytes"; did you mean "maxBytes"?',
      })
    }
  })
})
