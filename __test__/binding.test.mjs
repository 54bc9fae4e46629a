// The native binding on its own, driven as lib/native.js drives it and as it must never be
// driven: every export with wrong, missing and extra arguments. It fails closed: a wrong
// call throws a TypeError or RangeError that names the parameter, and a call that returns
// has written a verdict and an answer that holds (a cut fits its limits; "fits" is true).
// FC_RUNS sets the runs per property (default 10,000).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fc from 'fast-check'

import { measure, fits } from './reference.mjs'

const require = createRequire(import.meta.url)
const binding = require('../binding.js')
const { LAYOUT } = binding
const S = LAYOUT.slots
const RUNS = Number(process.env.FC_RUNS ?? 10_000)

const EXPORTS = {
  checkTemplate: ['template'],
  noticeTemplates: [],
  plan: ['out', 'text', 'wide', 'strategy', 'maxChars', 'maxBytes', 'maxLines', 'headRatio', 'notice', 'exact', 'snap', 'restack'],
  planList: [
    'out',
    'texts',
    'wide',
    'totalLength',
    'strategy',
    'maxChars',
    'maxBytes',
    'maxLines',
    'headRatio',
    'notice',
    'exact',
    'snap',
    'restack',
  ],
  charsWindows: ['out', 'length', 'strategy', 'maxChars', 'headRatio'],
  planWindows: ['out', 'window0', 'from0', 'window1', 'from1', 'window2', 'from2', 'length', 'wide', 'strategy', 'maxChars', 'headRatio'],
  measure: ['out', 'text', 'wide'],
  planBuffer: ['out', 'bytes', 'strategy', 'maxChars', 'maxBytes', 'maxLines', 'headRatio', 'notice', 'snap'],
  planToolOutput: ['out', 'text', 'wide', 'maxChars', 'maxLines', 'headRatio', 'notice'],
  planPage: ['out', 'text', 'wide', 'line', 'column', 'maxBytes', 'maxLines'],
  planPageBuffer: ['out', 'bytes', 'line', 'column', 'maxBytes', 'maxLines'],
  repage: ['out', 'text', 'wide', 'maxChars', 'maxBytes', 'maxLines', 'byteColumns'],
  classifyError: ['out', 'message', 'wide', 'status', 'code'],
  planBudget: ['out', 'sizes', 'perResult', 'aggregate', 'minKeepChars', 'protectRecent'],
  elisionMarker: ['out', 'chars', 'lines', 'tokens', 'spillPath'],
  normalizeTerminal: ['out', 'text', 'wide', 'flags', 'maxLength'],
  normalizeTerminalBuffer: ['out', 'bytes', 'flags', 'maxLength'],
  normalizedBound: ['out', 'length', 'bytes'],
  clampJson: ['out', 'text', 'wide', 'strategy', 'maxChars', 'maxBytes', 'maxLines', 'headRatio', 'inlineMarkers', 'gap'],
  clampJsonText: ['out', 'text', 'strategy', 'maxChars', 'maxBytes', 'maxLines', 'headRatio', 'inlineMarkers', 'gap'],
  locateJson: ['out', 'text', 'wide', 'paths'],
  captureCreate: ['out', 'strategy', 'maxChars', 'maxBytes', 'maxLines', 'headRatio', 'normalize', 'flags', 'raw'],
  captureWrite: ['out', 'capture', 'chunk', 'wide', 'echo'],
  captureFinish: ['out', 'capture', 'echo'],
  captureResult: ['out', 'capture', 'final', 'notice', 'snap'],
  captureSettleHead: ['out', 'capture', 'notice', 'snap'],
  captureDispose: ['out', 'capture'],
}

const isWide = (text) => /[^\x00-\xff]/.test(text)
// The result buffer: an ArrayBuffer of one double per slot, read through a Float64Array.
const newOut = () => new ArrayBuffer(LAYOUT.slotCount * 8)

describe('LAYOUT', () => {
  test('is frozen and names every slot once', () => {
    assert.ok(Object.isFrozen(LAYOUT) && Object.isFrozen(LAYOUT.slots) && Object.isFrozen(LAYOUT.strategies))
    const indices = Object.values(LAYOUT.slots)
    assert.deepEqual(
      [...indices].sort((a, b) => a - b),
      [...Array(LAYOUT.slotCount).keys()],
    )
    assert.deepEqual(LAYOUT.strategies, ['head', 'tail', 'headTail', 'auto'])
    assert.deepEqual(LAYOUT.dims, ['chars', 'bytes', 'lines'])
    assert.deepEqual(LAYOUT.errorKinds, ['context_overflow', 'payload_too_large', 'rate_limit', 'other'])
    assert.deepEqual(LAYOUT.budgetActions, ['keep', 'clamp', 'elide'])
    assert.deepEqual(LAYOUT.budgetFields, ['textTokens', 'textChars', 'fixedTokens', 'markerTokens'])
    assert.equal(LAYOUT.bytesPerToken, 3)
    assert.equal(LAYOUT.mediaTokens, 1600)
    assert.deepEqual(LAYOUT.normalizeFlags, ['ansi', 'carriageReturns', 'backspaces', 'controls'])
    assert.equal(LAYOUT.maxStringLength, require('node:buffer').constants.MAX_STRING_LENGTH)
  })

  test('the binding exports exactly the functions lib/native.js calls', () => {
    assert.equal(binding.SLOT_COUNT, LAYOUT.slotCount)
    const functions = Object.keys(binding).filter((k) => typeof binding[k] === 'function')
    assert.deepEqual(functions.sort(), Object.keys(EXPORTS).sort())
  })

  test("noticeTemplates: the core's templates by name and its placeholders, frozen", () => {
    const { templates, placeholders } = binding.noticeTemplates()
    assert.deepEqual(Object.keys(templates), ['spill', 'stream', 'streamSpill', 'interrupted', 'interruptedMiddle', 'contextCut'])
    assert.equal(templates.stream, '[... {omitted} truncated from {stream} ...]')
    assert.ok(placeholders.includes('omitted') && placeholders.includes('fromLine'))
    assert.ok(Object.isFrozen(templates) && Object.isFrozen(placeholders))
    // Every template is one the core accepts, once {stream} and {spillPath} are filled in.
    for (const template of Object.values(templates)) {
      binding.checkTemplate(template.replaceAll('{stream}', 'stdout').replaceAll('{spillPath}', '/x'))
    }
  })
})

describe('capture handles', () => {
  test('only a handle captureCreate made is read as a capture', () => {
    const out = newOut()
    const handle = binding.captureCreate(out, 1, Infinity, 100, Infinity, 0.5, false, 0, false)
    for (const fake of [{}, null, 1, 'capture', new Uint8Array(8), () => {}]) {
      assert.throws(
        () => binding.captureWrite(out, fake, 'x', false, false),
        (e) => e instanceof TypeError && /capture/.test(e.message),
      )
    }
    binding.captureWrite(out, handle, 'x'.repeat(300), false, false)
    assert.equal(new Float64Array(out)[LAYOUT.slots.totalBytes], 300)
    binding.captureFinish(out, handle, false)
    assert.throws(() => binding.captureWrite(out, handle, 'y', false, false), /write after end/)
    const text = binding.captureResult(out, handle, true, undefined, false)
    assert.equal(new Float64Array(out)[LAYOUT.slots.verdict], LAYOUT.verdicts.cut)
    assert.ok(Buffer.byteLength(text) <= 100 && text.endsWith('x'))
  })

  test('a capture without a byte or char limit is refused: its memory would have no bound', () => {
    assert.throws(() => binding.captureCreate(newOut(), 1, Infinity, Infinity, 10, 0.5, false, 0, false), RangeError)
  })
})

describe('argument checks', () => {
  test('a call with too few or too many arguments is a TypeError saying how many', () => {
    for (const [name, params] of Object.entries(EXPORTS)) {
      const expected = `toolclamp binding: ${name}(${params.join(', ')}) takes ${params.length} arguments, got`
      // (A call with none is the right call of an export that takes none.)
      for (const count of [0, params.length - 1, params.length + 1].filter((n) => n >= 0 && n !== params.length)) {
        assert.throws(
          () => binding[name](...Array(count).fill(0)),
          (e) => e instanceof TypeError && e.message === `${expected} ${count}`,
          `${name} with ${count}`,
        )
      }
    }
  })

  test('wrong types name the parameter', () => {
    const out = newOut()
    const cases = [
      [() => binding.plan(out, 42, false, 0, 10, Infinity, Infinity, 0.5, undefined, false, false, false), 'plan: text must be a string'],
      [
        () => binding.plan(out, 'abc', 'no', 0, 10, Infinity, Infinity, 0.5, undefined, false, false, false),
        'plan: wide must be a boolean',
      ],
      [
        () => binding.plan(out, 'abc', false, '0', 10, Infinity, Infinity, 0.5, undefined, false, false, false),
        'plan: strategy must be a number',
      ],
      [
        () => binding.plan(out, 'abc', false, 0, undefined, Infinity, Infinity, 0.5, undefined, false, false, false),
        'plan: maxChars must be a number',
      ],
      [
        () => binding.plan(out, 'abc', false, 0, 1, Infinity, Infinity, 0.5, 7, false, false, false),
        'plan: notice must be undefined, a string or a function',
      ],
      [
        () => binding.plan([], 'abc', false, 0, 1, Infinity, Infinity, 0.5, undefined, false, false, false),
        `plan: out must be an attached ArrayBuffer of ${LAYOUT.slotCount * 8} bytes`,
      ],
      [
        () =>
          binding.plan(new Float64Array(LAYOUT.slotCount), 'abcdef', false, 0, 1, Infinity, Infinity, 0.5, undefined, false, false, false),
        `plan: out must be an attached ArrayBuffer of ${LAYOUT.slotCount * 8} bytes`,
      ],
      [
        () =>
          binding.plan(
            new SharedArrayBuffer(LAYOUT.slotCount * 8),
            'abcdef',
            false,
            0,
            1,
            Infinity,
            Infinity,
            0.5,
            undefined,
            false,
            false,
            false,
          ),
        `plan: out must be an attached ArrayBuffer of ${LAYOUT.slotCount * 8} bytes`,
      ],
      [
        () => binding.plan(new ArrayBuffer(24), 'abcdef', false, 0, 1, Infinity, Infinity, 0.5, undefined, false, false, false),
        `plan: out must be an attached ArrayBuffer of ${LAYOUT.slotCount * 8} bytes`,
      ],
      [
        () => binding.planBuffer(out, 'abc', 0, 1, Infinity, Infinity, 0.5, undefined, false),
        'planBuffer: bytes must be a Uint8Array or Buffer',
      ],
      [
        () => binding.planBuffer(out, new Uint16Array(4), 0, 1, Infinity, Infinity, 0.5, undefined, false),
        'planBuffer: bytes must be a Uint8Array or Buffer',
      ],
      [
        () => binding.planList(out, 'abc', false, 3, 0, 1, Infinity, Infinity, 0.5, undefined, false, false, false),
        'planList: texts must be an array of strings',
      ],
      [
        () => binding.planList(out, ['a', 1], false, 2, 0, 1, Infinity, Infinity, 0.5, undefined, false, false, false),
        'planList: texts must be an array of strings',
      ],
      [() => binding.plan(out, 'abc', false, 0, 1, Infinity, Infinity, 0.5, undefined, false, false, 1), 'plan: restack must be a boolean'],
    ]
    for (const [fn, message] of cases) {
      assert.throws(fn, (e) => e instanceof TypeError && e.message === `toolclamp binding: ${message}`, message)
    }
  })

  test('values out of range are RangeErrors, never a default', () => {
    const out = newOut()
    const call = (strategy, maxChars, ratio) => () =>
      binding.plan(out, 'abcdef', false, strategy, maxChars, Infinity, Infinity, ratio, undefined, false, false, false)
    const cases = [
      [call(4, 1, 0.5), 'strategy must be a strategy code from 0 to 3, got 4'],
      [call(0.5, 1, 0.5), 'strategy must be a strategy code from 0 to 3, got 0.5'],
      [call(-1, 1, 0.5), 'strategy must be a strategy code from 0 to 3, got -1'],
      [call(NaN, 1, 0.5), 'strategy must be a strategy code from 0 to 3, got NaN'],
      [() => binding.charsWindows(out, 10, 3, 5, 0.5), 'strategy must be a strategy code from 0 to 2, got 3'],
      [call(0, -1, 0.5), 'maxChars must be a non-negative integer or Infinity, got -1'],
      [call(0, NaN, 0.5), 'maxChars must be a non-negative integer or Infinity, got NaN'],
      [call(0, 1.5, 0.5), 'maxChars must be a non-negative integer or Infinity, got 1.5'],
      [call(0, -Infinity, 0.5), 'maxChars must be a non-negative integer or Infinity, got -inf'],
      [call(2, 1, 1.5), 'headRatio must be a number from 0 to 1, got 1.5'],
      [call(2, 1, NaN), 'headRatio must be a number from 0 to 1, got NaN'],
      [
        () => binding.planList(out, ['ab', 'c'], false, 4, 0, 1, Infinity, Infinity, 0.5, undefined, false, false, false),
        "totalLength must be the sum of the strings' lengths, got 4",
      ],
      [
        () => binding.planWindows(out, 'abc', 9, '', 0, '', 0, 10, false, 0, 5, 0.5),
        'window0 must be a window inside the text, got 3 units at 9',
      ],
    ]
    for (const [fn, message] of cases) {
      assert.throws(fn, (e) => e instanceof RangeError && e.message.endsWith(message), message)
    }
  })

  test('a detached result array is refused, not written', () => {
    const out = newOut()
    structuredClone(out, { transfer: [out] })
    assert.throws(
      () => binding.plan(out, 'abcdef', false, 0, 1, Infinity, Infinity, 0.5, undefined, false, false, false),
      (e) => e instanceof TypeError && /out must be an attached ArrayBuffer/.test(e.message),
    )
  })

  test('a thrown notice propagates as it was thrown', () => {
    const boom = new SyntaxError('boom')
    assert.throws(
      () =>
        binding.plan(
          newOut(),
          'x'.repeat(100),
          false,
          0,
          10,
          Infinity,
          Infinity,
          0.5,
          () => {
            throw boom
          },
          false,
          false,
          false,
        ),
      (e) => e === boom,
    )
  })
})

// ---- Fail closed under random calls

const anyValue = fc.oneof(
  fc.constantFrom(undefined, null, true, false, 0, -1, 0.5, 1e300, NaN, Infinity, -Infinity, '', 'abc', 2 ** 53),
  fc.integer({ min: -5, max: 500 }),
  fc.string({ maxLength: 20 }),
  fc.constantFrom([], {}, [1, 2], ['a', 'b'], () => 'x', Symbol('s'), 10n),
  fc.constantFrom(new Float64Array(2), new Uint8Array(3), Buffer.from('abc'), new Float32Array(40), new ArrayBuffer(8)),
)
const PIECES = ['a', 'Z', '\n', '\r\n', '\r', 'é', '日', '😀', '\uD800', '\uDC00', ' ']
const textArb = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((p) => p.join(''))
const budgetArb = fc.oneof(fc.integer({ min: 0, max: 120 }), fc.constant(Infinity))
const noticeArb = fc.constantFrom(undefined, '', '[cut]', '{omitted} at {where}', '<{headEnd}|{tailStart}>', (f) => `${f.omittedChars}`)

/** Arguments for `name` that are all valid, except where `wrong` replaces one. */
function validArgs(name) {
  // Plans take 'auto' (code 3) too, and snap.
  const common = { strategy: fc.integer({ min: 0, max: 2 }), headRatio: fc.double({ min: 0, max: 1, noNaN: true }) }
  const planStrategy = fc.integer({ min: 0, max: 3 })
  switch (name) {
    case 'plan':
      return fc
        .tuple(
          textArb,
          planStrategy,
          budgetArb,
          budgetArb,
          budgetArb,
          common.headRatio,
          noticeArb,
          fc.boolean(),
          fc.boolean(),
          fc.boolean(),
        )
        .map(([text, s, c, b, l, r, n, e, snap, restack]) => [newOut(), text, isWide(text), s, c, b, l, r, n, e, snap, restack])
    case 'planList':
      return fc
        .tuple(
          fc.array(textArb, { maxLength: 4 }),
          planStrategy,
          budgetArb,
          budgetArb,
          budgetArb,
          common.headRatio,
          noticeArb,
          fc.boolean(),
          fc.boolean(),
          fc.boolean(),
        )
        .map(([texts, s, c, b, l, r, n, e, snap, restack]) => [
          newOut(),
          texts,
          texts.some(isWide),
          texts.join('').length,
          s,
          c,
          b,
          l,
          r,
          n,
          e,
          snap,
          restack,
        ])
    case 'planBuffer':
      return fc
        .tuple(textArb, planStrategy, budgetArb, budgetArb, budgetArb, common.headRatio, noticeArb, fc.boolean())
        .map(([text, s, c, b, l, r, n, snap]) => [newOut(), Buffer.from(text), s, c, b, l, r, n, snap])
    case 'measure':
      return textArb.map((text) => [newOut(), text, isWide(text)])
    case 'clampJson':
      return fc
        .tuple(
          fc.jsonValue({ maxDepth: 3 }),
          common.strategy,
          budgetArb,
          budgetArb,
          budgetArb,
          common.headRatio,
          fc.boolean(),
          fc.constantFrom('', '  ', '→'),
        )
        .map(([v, s, c, b, l, r, m, g]) => {
          const text = JSON.stringify(v)
          return [newOut(), text, isWide(text), s, c, b, l, r, m, g]
        })
    case 'clampJsonText':
      // Any text: JSON as JSON.stringify(v, null, 1) writes it, or not JSON at all.
      return fc
        .tuple(
          fc.oneof(
            fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v, null, 1)),
            textArb,
          ),
          common.strategy,
          budgetArb,
          budgetArb,
          budgetArb,
          common.headRatio,
          fc.boolean(),
          fc.constantFrom('', '  ', '→'),
        )
        .map(([text, s, c, b, l, r, m, g]) => [newOut(), text, s, c, b, l, r, m, g])
    case 'planPage':
      return fc
        .tuple(
          textArb,
          fc.integer({ min: 1, max: 5 }),
          fc.integer({ min: 0, max: 3 }),
          fc.integer({ min: 4, max: 300 }),
          fc.integer({ min: 1, max: 5 }),
        )
        .map(([text, line, col, b, l]) => [newOut(), text, isWide(text), line, col, b, l])
    case 'repage':
      // A page under its banner as planPage shows it, or any text.
      return fc
        .tuple(textArb, fc.boolean(), budgetArb, fc.oneof(budgetArb, fc.integer({ min: 100, max: 400 })), budgetArb, fc.boolean())
        .map(([text, asPage, c, b, l, bytes]) => {
          let shown = text
          if (asPage) {
            try {
              const banner = binding.planPage(newOut(), text, isWide(text), 1, 0, 200, 6)
              if (banner !== null) shown = `${banner}\n${text}`
            } catch {
              // Too small for a page: any text will do.
            }
          }
          return [newOut(), shown, isWide(shown), c, b, l, bytes]
        })
    default:
      return fc.constant(null)
  }
}

/** The text the answer of `name(...args)` gives, with the limits it must fit. */
function answerOf(name, args, returned, buffer) {
  const out = new Float64Array(buffer)
  const verdict = out[S.verdict]
  if (name === 'plan' || name === 'planList' || name === 'planBuffer') {
    const text = name === 'plan' ? args[1] : name === 'planList' ? args[1].join('') : Buffer.from(args[1]).toString('utf8')
    const [c, b, l] = name === 'planList' ? args.slice(5, 8) : name === 'plan' ? args.slice(4, 7) : args.slice(3, 6)
    const limits = { maxChars: c, maxBytes: b, maxLines: l }
    if (verdict === LAYOUT.verdicts.fits) {
      assert.ok(fits(text, limits), 'answered "fits" for a text that does not')
      if (name !== 'planBuffer') assert.equal(returned, null)
      return
    }
    assert.equal(verdict, LAYOUT.verdicts.cut, `verdict ${verdict}`)
    const units = name === 'planBuffer' ? null : text
    const result = units === null ? returned : units.slice(0, out[S.headEnd]) + returned + units.slice(out[S.tailStart])
    assert.ok(fits(result, limits), `${JSON.stringify(result)} exceeds ${JSON.stringify(limits)}`)
    // Counts are exact where a budget is set, or everywhere when asked (planBuffer always is).
    const exact = name === 'planBuffer' || args.at(-3) === true
    // The strategy used: the one asked for, or what 'auto' resolved to.
    const code = name === 'planList' ? args[4] : name === 'plan' ? args[3] : args[2]
    const used = LAYOUT.strategies[out[S.strategy]]
    assert.ok(code === 3 ? used === 'head' || used === 'headTail' : used === LAYOUT.strategies[code], `strategy ${used} for ${code}`)
    const m = measure(result)
    const reported = { chars: out[S.outputChars], bytes: out[S.outputBytes], lines: out[S.outputLines] }
    for (const [dim, limit] of [
      ['chars', c],
      ['bytes', b],
      ['lines', l],
    ]) {
      if (exact || limit !== Infinity) assert.equal(reported[dim], m[dim], `output ${dim}`)
    }
    return
  }
  if (name === 'measure') {
    assert.equal(verdict, LAYOUT.verdicts.measured)
    assert.deepEqual([out[S.totalChars], out[S.totalBytes], out[S.totalLines]], Object.values(measure(args[1])))
    return
  }
  if (name === 'planPage') assert.equal(verdict, LAYOUT.verdicts.page)
  if (name === 'repage') {
    if (verdict === LAYOUT.verdicts.fits) return assert.equal(returned, null)
    assert.equal(verdict, LAYOUT.verdicts.page, `verdict ${verdict}`)
    const [text, c, b, l] = [args[1], ...args.slice(3, 6)]
    assert.ok(out[S.pageStart] <= out[S.pageEnd] && out[S.pageEnd] <= text.length)
    if (returned === null) return
    const result = `${returned}\n${text.slice(out[S.pageStart], out[S.pageEnd])}`
    assert.ok(fits(result, { maxChars: c, maxBytes: b, maxLines: l }), `${JSON.stringify(result)} exceeds ${[c, b, l]}`)
  }
  if (name === 'clampJson') {
    const [c, b, l] = args.slice(4, 7)
    const gap = args[9]
    const limits = { maxChars: c, maxBytes: b, maxLines: l }
    const rendered = (v) => (gap === '' ? JSON.stringify(v) : JSON.stringify(v, null, gap))
    if (verdict === LAYOUT.verdicts.fits) {
      assert.equal(returned, null)
      assert.ok(fits(rendered(JSON.parse(args[1])), limits), 'answered "fits" for a value that does not')
      return
    }
    assert.equal(verdict, LAYOUT.verdicts.cut, `verdict ${verdict}`)
    const end = returned.indexOf('\n')
    assert.ok(Array.isArray(JSON.parse(returned.slice(0, end))))
    const text = returned.slice(end + 1)
    const out = text === '' ? '' : rendered(JSON.parse(text))
    assert.ok(fits(out, limits), `${out} exceeds ${JSON.stringify(limits)}`)
    assert.equal(new Float64Array(buffer)[S.outputBytes], Buffer.byteLength(out))
  }
  if (name === 'clampJsonText') {
    const [c, b, l] = args.slice(3, 6)
    const limits = { maxChars: c, maxBytes: b, maxLines: l }
    if (verdict === LAYOUT.verdicts.fits) {
      assert.equal(returned, null)
      assert.ok(fits(args[1], limits), 'answered "fits" for a text that does not')
      return
    }
    assert.equal(verdict, LAYOUT.verdicts.cut, `verdict ${verdict}`)
    const out = returned.slice(returned.indexOf('\n') + 1)
    assert.ok(fits(out, limits), `${out} exceeds ${JSON.stringify(limits)}`)
    assert.equal(new Float64Array(buffer)[S.outputBytes], Buffer.byteLength(out))
    assert.equal(new Float64Array(buffer)[S.totalBytes], Buffer.byteLength(args[1]))
  }
}

describe('fail closed', () => {
  test('valid calls answer, and every answer holds', () => {
    for (const name of ['plan', 'planList', 'planBuffer', 'measure', 'planPage', 'repage', 'clampJson', 'clampJsonText']) {
      fc.assert(
        fc.property(validArgs(name), (args) => {
          let returned
          try {
            returned = binding[name](...args)
          } catch (error) {
            // Only a page outside the text or too small for its banner, or a text that is not JSON, may be refused.
            const refused =
              (name === 'planPage' && error instanceof RangeError) ||
              (name === 'clampJsonText' && error instanceof TypeError && error.message.startsWith('text: not valid JSON'))
            assert.ok(refused, `${name}: ${error}`)
            return
          }
          answerOf(name, args, returned, args[0])
        }),
        { numRuns: Math.ceil(RUNS / 5) },
      )
    }
  })

  test('a call with any argument replaced by a random value throws or answers correctly', () => {
    for (const name of ['plan', 'planList', 'planBuffer', 'measure', 'planPage', 'repage', 'clampJson', 'clampJsonText']) {
      const arb = fc.tuple(validArgs(name), fc.nat(), anyValue)
      fc.assert(
        fc.property(arb, ([args, which, value]) => {
          const i = which % args.length
          const mutated = args.slice()
          mutated[i] = value
          const out = i === 0 ? value : mutated[0]
          if (out instanceof ArrayBuffer && out.byteLength >= LAYOUT.slotCount * 8) new Float64Array(out)[S.verdict] = 0
          let returned
          try {
            returned = binding[name](...mutated)
          } catch (error) {
            assert.ok(error instanceof TypeError || error instanceof RangeError, `${name}: ${error}`)
            assert.match(error.message, /^(toolclamp binding: |notice |offset |column |limits: |text: |maxBytes |maxLines )/)
            return
          }
          // The replacement happened to be valid: the answer must hold for these arguments.
          if (name === 'plan' && mutated[2] !== isWide(mutated[1])) return // Latin-1 claimed for a wide text: not a call native.js makes
          if (name === 'planList' && (!Array.isArray(mutated[1]) || mutated[2] !== mutated[1].some(isWide))) return
          if (name === 'measure' && mutated[2] !== isWide(mutated[1])) return
          if ((name === 'planPage' || name === 'repage') && mutated[2] !== isWide(mutated[1])) return
          if (name === 'clampJson' && mutated[2] !== isWide(mutated[1])) return
          answerOf(name, mutated, returned, out)
        }),
        { numRuns: Math.ceil(RUNS / 5) },
      )
    }
  })
})

describe('locateJson', () => {
  test('answers the spans of the values JSON.parse keeps, and names what is not JSON', () => {
    const out = newOut()
    const text = '{"a": [1, {"b": "x"}], "a": [2]}'
    assert.equal(binding.locateJson(out, text, false, '[["a",0],["a",1],[]]'), '[[29,30],null,[0,32]]')
    assert.equal(new Float64Array(out)[S.verdict], LAYOUT.verdicts.located)
    assert.equal(binding.locateJson(out, '["é", {"日": 1}]', true, '[[1,"日"]]'), '[[12,13]]')
    assert.throws(
      () => binding.locateJson(out, '{', false, '[]'),
      (e) => e instanceof TypeError && e.message === 'text: not valid JSON at position 1',
    )
    for (const paths of ['[[1.5]]', '{}', '[["a",-1]]', '[[true]]', 'x']) {
      assert.throws(
        () => binding.locateJson(out, '{}', false, paths),
        (e) => e instanceof TypeError && e.message.startsWith('paths: not a JSON array of paths of keys and indices'),
        paths,
      )
    }
  })
})

describe('planBudget', () => {
  const out = () => new ArrayBuffer(LAYOUT.slotCount * 8)
  const sizes = (...values) => new Float64Array(values)

  test('answers in place: an action code and the tokens a clamp keeps, per result', () => {
    const r = out()
    const fields = sizes(9_000, 27_000, 0, 40, 100, 300, 0, 40)
    binding.planBudget(r, fields, 5_000, 5_000, 0, 0)
    const slots = new Float64Array(r)
    assert.equal(slots[S.verdict], LAYOUT.verdicts.budgeted)
    assert.deepEqual([...fields.subarray(0, 2)], [LAYOUT.budgetActions.indexOf('clamp'), 4_900])
    assert.deepEqual([...fields.subarray(4, 6)], [LAYOUT.budgetActions.indexOf('keep'), 0])
    assert.deepEqual([slots[S.tokensBefore], slots[S.tokensAfter], slots[S.fits]], [9_100, 5_000, 1])
  })

  test('refuses sizes it cannot trust, and writes no verdict', () => {
    const cases = [
      [new Float64Array(new SharedArrayBuffer(32)), TypeError, /Float64Array over an attached ArrayBuffer/],
      [new Float32Array(4), TypeError, /Float64Array over an attached ArrayBuffer/],
      [[1, 2, 3, 4], TypeError, /Float64Array over an attached ArrayBuffer/],
      [sizes(1, 2, 3), RangeError, /4 numbers per result/],
      [sizes(1, 2, 3, NaN), RangeError, /non-negative integers/],
      [sizes(-1, 2, 3, 4), RangeError, /non-negative integers/],
      [sizes(1.5, 2, 3, 4), RangeError, /non-negative integers/],
    ]
    const detached = new Float64Array(4)
    structuredClone(detached.buffer, { transfer: [detached.buffer] })
    cases.push([detached, TypeError, /Float64Array over an attached ArrayBuffer/])
    for (const [k, [fields, type, message]] of cases.entries()) {
      const r = out()
      assert.throws(
        () => binding.planBudget(r, fields, 10, 10, 0, 0),
        (e) => e instanceof type && message.test(e.message),
        `case ${k}`,
      )
      assert.equal(new Float64Array(r)[S.verdict], 0)
    }
  })
})
