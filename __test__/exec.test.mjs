// formatExecOutput: per-stream clamps, layout, exit status, and Buffers planned as UTF-8
// bytes agreeing with the string path on `buf.toString('utf8')`. FC_RUNS sets the runs per
// property (default 10,000).
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import fc from 'fast-check'
import { spawnSync, execFile } from 'node:child_process'
import { promisify } from 'node:util'

const require = createRequire(import.meta.url)
const { formatExecOutput } = require('../lib/commands/exec.js')

const RUNS = Number(process.env.FC_RUNS ?? 10_000)

function measure(text) {
  const newlines = text.split('\n').length - 1
  const lines = text === '' ? 0 : newlines + (text.endsWith('\n') ? 0 : 1)
  return { chars: text.length, bytes: Buffer.byteLength(text, 'utf8'), lines }
}

function assertWithin(text, limits) {
  const m = measure(text)
  assert.ok(m.chars <= (limits.maxChars ?? Infinity), `${m.chars} chars > ${limits.maxChars}`)
  assert.ok(m.bytes <= (limits.maxBytes ?? Infinity), `${m.bytes} bytes > ${limits.maxBytes}`)
  assert.ok(m.lines <= (limits.maxLines ?? Infinity), `${m.lines} lines > ${limits.maxLines}`)
}

/**
 * The same stream through the Buffer path and through the string path on its decoded
 * text: the same text and info, except that Buffer offsets are bytes of the decoded UTF-8.
 */
function assertBufferMatchesString(bytes, options, stream = 'stdout') {
  const decoded = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  const fromBytes = formatExecOutput({ [stream]: bytes }, options)
  const fromString = formatExecOutput({ [stream]: decoded }, options)
  assert.equal(fromBytes.text, fromString.text)
  const { headEnd, tailStart, ...info } = fromBytes[stream]
  const { headEnd: stringHeadEnd, tailStart: stringTailStart, ...stringInfo } = fromString[stream]
  assert.deepEqual(info, stringInfo)
  assert.equal(headEnd, Buffer.byteLength(decoded.slice(0, stringHeadEnd)), 'headEnd in bytes')
  assert.equal(tailStart, Buffer.byteLength(decoded.slice(0, stringTailStart)), 'tailStart in bytes')
  return fromBytes
}

describe('layout', () => {
  test('both streams, tags on their own lines, status last', () => {
    const r = formatExecOutput({ stdout: 'built\n', stderr: 'warning: unused', exitCode: 0, durationMs: 1234.4 })
    assert.equal(r.text, '<stdout>\nbuilt\n</stdout>\n<stderr>\nwarning: unused\n</stderr>\nexit code: 0, duration: 1,234 ms')
  })

  test('an empty or missing stream is shown as empty', () => {
    for (const empty of ['', Buffer.alloc(0), new Uint8Array(0), undefined, null]) {
      const r = formatExecOutput({ stdout: empty, stderr: empty, exitCode: 0 })
      assert.equal(r.text, '<stdout>(empty)</stdout>\n<stderr>(empty)</stderr>\nexit code: 0')
      assert.equal(r.stdout.text, '')
      assert.equal(r.stdout.truncated, false)
    }
  })

  test('no status line when the result gives no status', () => {
    assert.equal(formatExecOutput({ stdout: 'a' }).text, '<stdout>\na\n</stdout>\n<stderr>(empty)</stderr>')
  })

  test('exit code, signal and duration, each only when given', () => {
    const text = (result) =>
      formatExecOutput({ stdout: '', stderr: '', ...result })
        .text.split('\n')
        .at(-1)
    assert.equal(text({ exitCode: 2 }), 'exit code: 2')
    assert.equal(text({ exitCode: null, signal: 'SIGKILL' }), 'signal: SIGKILL')
    assert.equal(
      text({ exitCode: 143, signal: 'SIGTERM', durationMs: 61_000_000 }),
      'exit code: 143, signal: SIGTERM, duration: 61,000,000 ms',
    )
    assert.equal(text({ durationMs: 0.4 }), 'duration: 0 ms')
    assert.equal(text({ exitCode: -1 }), 'exit code: -1')
  })

  test('other keys of the result are ignored (execa results pass as they are)', () => {
    const r = formatExecOutput({ command: 'make', failed: true, stdout: 'x', stderr: 'y', exitCode: 2, timedOut: false })
    assert.equal(r.text, '<stdout>\nx\n</stdout>\n<stderr>\ny\n</stderr>\nexit code: 2')
  })
})

describe('clamping each stream', () => {
  const huge = 'line of build output\n'.repeat(50_000) + 'FINAL: 3 tests failed\n'

  test('both streams are present when one is huge; the tail is kept', () => {
    const r = formatExecOutput({ stdout: huge, stderr: 'error: linker failed\n', exitCode: 1 })
    assert.ok(r.text.includes('<stderr>\nerror: linker failed\n</stderr>'))
    assert.ok(r.stdout.text.endsWith('FINAL: 3 tests failed\n'))
    assert.match(r.stdout.text, /^\[\.\.\. [\d,]+ chars truncated from stdout \.\.\.\]\n/)
    assert.equal(r.stdout.truncated, true)
    // Whole lines (snap 'line' by default): the kept tail starts a line, within 8,000 chars.
    assert.ok(r.stdout.outputChars <= 8000 && r.stdout.outputChars > 7900, `${r.stdout.outputChars}`)
    assert.match(r.stdout.text, /\.\.\.\]\nline of build output\n/)
    assert.equal(formatExecOutput({ stdout: huge }, { snap: 'none' }).stdout.outputChars, 8000)
    assert.equal(r.stderr.truncated, false)
    assert.ok(r.text.endsWith('</stderr>\nexit code: 1'))
  })

  test('each notice names its stream', () => {
    const r = formatExecOutput({ stdout: huge, stderr: Buffer.from(huge) }, { stdout: 500, stderr: { maxLines: 5 } })
    assert.match(r.stdout.text, /^\[\.\.\. [\d,]+ chars truncated from stdout \.\.\.\]\n/)
    assert.match(r.stderr.text, /^\[\.\.\. 49,997 lines truncated from stderr \.\.\.\]\n/)
    assert.equal(r.stderr.outputLines, 5)
    assert.ok(r.stderr.text.endsWith('FINAL: 3 tests failed\n'))
    assertWithin(r.stdout.text, { maxChars: 500 })
  })

  test('the issue example: 12,000 chars truncated from stdout', () => {
    const r = formatExecOutput({ stdout: 'x'.repeat(20_000) }, { notice: '... ({omittedChars} chars truncated from {stream})' })
    assert.match(r.stdout.text, /^\.\.\. \(12,0\d\d chars truncated from stdout\)\n/)
  })

  test('strategy and headRatio apply to both streams', () => {
    const r = formatExecOutput({ stdout: huge, stderr: huge }, { strategy: 'head', stdout: 100, stderr: 100 })
    assert.ok(r.stdout.text.startsWith('line of build output\n'))
    assert.match(r.stderr.text, /\[\.\.\. [\d,]+ chars truncated from stderr \.\.\.\]$/)
    const ht = formatExecOutput({ stdout: Buffer.from(huge) }, { strategy: 'headTail', headRatio: 0.3, stdout: 300 })
    assert.ok(ht.stdout.text.startsWith('line of build output\n'))
    assert.ok(ht.stdout.text.endsWith('FINAL: 3 tests failed\n'))
    assert.equal(ht.stdout.strategy, 'headTail')
  })

  test('templates: {stream}, escapes, and the usual placeholders', () => {
    const r = formatExecOutput(
      { stdout: huge, stderr: Buffer.from(huge) },
      { stdout: 200, stderr: 200, notice: '{{stream}} {stream}: {omitted} ({where})' },
    )
    assert.match(r.stdout.text, /^\{stream\} stdout: [\d,]+ chars \(start\)\n/)
    assert.match(r.stderr.text, /^\{stream\} stderr: [\d,]+ chars \(start\)\n/)
  })

  test('a notice function gets the facts and the stream', () => {
    const seen = []
    const notice = (facts) => {
      seen.push([facts.stream, facts.where, facts.truncatedBy.join()])
      return `<${facts.omittedLines} lines of ${facts.stream} hidden>`
    }
    const r = formatExecOutput({ stdout: huge, stderr: Buffer.from(huge) }, { stdout: { maxLines: 3 }, stderr: { maxLines: 3 }, notice })
    // 50,001 lines; the notice and the last two are kept.
    assert.ok(r.stdout.text.startsWith('<49999 lines of stdout hidden>\nline of build output\nFINAL'))
    assert.ok(r.stderr.text.startsWith('<49999 lines of stderr hidden>\nline of build output\nFINAL'))
    assert.deepEqual([...new Set(seen.map(String))], ['stdout,start,lines', 'stderr,start,lines'])
  })

  test('a stream that fits is returned whole, with its totals', () => {
    const bytes = Buffer.from('héllo 😀\nworld')
    const r = formatExecOutput({ stdout: bytes })
    assert.deepEqual(r.stdout, {
      text: 'héllo 😀\nworld',
      truncated: false,
      truncatedBy: [],
      strategy: 'tail',
      totalChars: 14,
      totalBytes: 17,
      totalLines: 2,
      outputChars: 14,
      outputBytes: 17,
      outputLines: 2,
      omittedChars: 0,
      omittedBytes: 0,
      omittedLines: 0,
      headEnd: 17,
      tailStart: 17,
    })
  })

  test('a Buffer offset is a byte offset: buf.subarray(headEnd, tailStart) is what was dropped', () => {
    const text = '日本語 line 😀\n'.repeat(100)
    const bytes = Buffer.from(text)
    const r = formatExecOutput({ stdout: bytes }, { stdout: 50 })
    const kept = bytes.subarray(r.stdout.tailStart).toString()
    assert.ok(r.stdout.text.endsWith(kept))
    assert.equal(r.stdout.omittedBytes, r.stdout.tailStart - r.stdout.headEnd)
    assert.equal(bytes.subarray(r.stdout.headEnd, r.stdout.tailStart).toString().length, r.stdout.omittedChars)
  })
})

describe('Buffers and Uint8Arrays', () => {
  test('a Uint8Array, a pooled Buffer and a subarray with an offset', () => {
    const text = 'ok 日本 😀\n'.repeat(20)
    const u8 = new TextEncoder().encode(text)
    assert.equal(formatExecOutput({ stdout: u8 }, { stdout: Infinity }).stdout.text, text)
    assertBufferMatchesString(u8, { stdout: 40 })
    const pooled = Buffer.from('short')
    assert.notEqual(pooled.byteOffset, 0, 'small Buffers come from the pool')
    assert.equal(formatExecOutput({ stdout: pooled }).stdout.text, 'short')
    const sub = Buffer.from('xxxx' + text).subarray(4)
    assert.equal(formatExecOutput({ stdout: sub }, { stdout: Infinity }).stdout.text, text)
    assertBufferMatchesString(sub, { stdout: { maxBytes: 30 } })
  })

  test('memory of a SharedArrayBuffer', () => {
    for (const bytes of [Buffer.from('shared 😀\n'.repeat(50)), Buffer.from('bad \xff 😀\n'.repeat(50), 'latin1')]) {
      const shared = new Uint8Array(new SharedArrayBuffer(bytes.length))
      shared.set(bytes)
      assertBufferMatchesString(shared, { stdout: 33 })
    }
  })

  test('a notice function that writes to or detaches the buffer cannot change the plan', () => {
    const text = 'abc\n'.repeat(1000)
    const bytes = Buffer.from(text)
    const r = formatExecOutput({ stdout: bytes }, { stdout: 50, notice: () => (bytes.fill(0x41), '[cut]') })
    assert.equal(r.stdout.text, '[cut]\n' + 'abc\n'.repeat(11))
    const own = new TextEncoder().encode(text)
    const detach = () => (structuredClone(own.buffer, { transfer: [own.buffer] }), '[cut]')
    const d = formatExecOutput({ stdout: own }, { stdout: 50, notice: detach })
    assert.equal(d.stdout.text, '[cut]\n' + 'abc\n'.repeat(11))
    assert.equal(own.length, 0, 'detached')
    assert.equal(formatExecOutput({ stdout: own }).text, '<stdout>(empty)</stdout>\n<stderr>(empty)</stderr>')
  })

  // Each replaced as `buf.toString('utf8')` replaces it: one U+FFFD per maximal subpart.
  const INVALID = {
    'overlong C0 80': [0xc0, 0x80],
    'overlong C1 BF': [0xc1, 0xbf],
    'overlong E0 80 80': [0xe0, 0x80, 0x80],
    'overlong E0 9F BF': [0xe0, 0x9f, 0xbf],
    'overlong F0 80 80 80': [0xf0, 0x80, 0x80, 0x80],
    'surrogate ED A0 80': [0xed, 0xa0, 0x80],
    'surrogate pair ED A0 BD ED B8 80': [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80],
    'above U+10FFFF F4 90 80 80': [0xf4, 0x90, 0x80, 0x80],
    'F5 80 80 80': [0xf5, 0x80, 0x80, 0x80],
    'F5..FF': [0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff],
    'truncated 2-byte': [0xc3],
    'truncated 3-byte': [0xe6, 0x97],
    'truncated 4-byte': [0xf0, 0x9f, 0x98],
    'truncated then valid': [0xe6, 0xc3, 0xa9],
    'truncated 4-byte then 3-byte': [0xf0, 0x9f, 0xe6, 0x97, 0xa5],
    'lone continuation': [0x80],
    continuations: [0x80, 0xbf, 0x80, 0xbf],
    'truncated before newline': [0xe6, 0x97, 0x0a],
    'CR then invalid then LF': [0x0d, 0xff, 0x0a],
  }

  for (const [name, sequence] of Object.entries(INVALID)) {
    test(`invalid UTF-8 decodes like buf.toString(): ${name}`, () => {
      for (const bytes of [
        Buffer.from(sequence),
        Buffer.concat([Buffer.from('ok 日 '), Buffer.from(sequence), Buffer.from(' 😀 end\n')]),
      ]) {
        const whole = formatExecOutput({ stdout: bytes, stderr: new Uint8Array(bytes) }, { stdout: Infinity, stderr: Infinity })
        assert.equal(whole.stdout.text, bytes.toString('utf8'))
        assert.equal(whole.stderr.text, bytes.toString('utf8'))
        for (let k = 0; k <= bytes.length * 3; k++) {
          assertBufferMatchesString(bytes, { stdout: { maxBytes: k } })
          assertBufferMatchesString(bytes, { stdout: k, strategy: 'head' })
        }
      }
    })
  }

  test('multi-byte chars and invalid bytes cut at every position, every strategy and dimension', () => {
    const bytes = Buffer.concat([
      Buffer.from('a日😀é\r\n'),
      Buffer.from([0xe6, 0x97]),
      Buffer.from('ß語\n😀😀x\r\n'),
      Buffer.from([0xff, 0xed, 0xa0, 0x80]),
      Buffer.from('€ end\n\n𝄞'),
    ])
    const decoded = bytes.toString()
    const m = measure(decoded)
    for (const strategy of ['head', 'tail', 'headTail']) {
      for (let k = 0; k <= m.bytes + 1; k++) {
        for (const limits of [
          { maxChars: k },
          { maxBytes: k },
          { maxLines: k % (m.lines + 2) },
          { maxChars: k, maxBytes: k + 7, maxLines: 4 },
        ]) {
          for (const notice of [undefined, '', '[{omitted} from {stream}]\n']) {
            for (const stream of ['stdout', 'stderr']) {
              const r = assertBufferMatchesString(bytes, { [stream]: limits, strategy, notice }, stream)
              assertWithin(r[stream].text, limits)
            }
          }
        }
      }
    }
  })

  test('property: a Buffer stream equals the string path on buf.toString("utf8")', () => {
    const valid = fc.constantFrom('a', 'Z', ' ', '\n', '\n', '\r\n', '\r', '\0', 'é', 'ß', '日', '€', '\uFFFD', '😀', '𝄞')
    const invalid = fc.constantFrom(...Object.values(INVALID))
    const chunk = fc.oneof(
      { weight: 8, arbitrary: valid.map((s) => [...Buffer.from(s)]) },
      { weight: 2, arbitrary: invalid },
      { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }).map((b) => [b]) },
      { weight: 1, arbitrary: fc.tuple(valid, fc.integer({ min: 2, max: 60 })).map(([s, n]) => [...Buffer.from(s.repeat(n))]) },
    )
    const bytesArb = fc
      .tuple(fc.array(chunk, { maxLength: 60 }), fc.boolean())
      .map(([chunks, asBuffer]) => (asBuffer ? Buffer.from(chunks.flat()) : new Uint8Array(chunks.flat())))
    const budget = (max) => fc.option(fc.oneof(fc.integer({ min: 0, max }), fc.constant(Infinity)), { nil: undefined })
    const limitsArb = fc
      .record({ maxChars: budget(120), maxBytes: budget(200), maxLines: budget(12) })
      .map((l) => (l.maxChars === undefined && l.maxBytes === undefined && l.maxLines === undefined ? { maxChars: 20 } : l))
    const optionsArb = fc.record({
      limits: limitsArb,
      strategy: fc.constantFrom('head', 'tail', 'headTail'),
      headRatio: fc.double({ min: 0, max: 1, noNaN: true }),
      notice: fc.constantFrom(undefined, '', '[... {omitted} truncated from {stream} ...]', '{omittedBytes}/{totalBytes} of {stream}\n'),
      stream: fc.constantFrom('stdout', 'stderr'),
    })
    fc.assert(
      fc.property(bytesArb, optionsArb, (bytes, { limits, strategy, headRatio, notice, stream }) => {
        const r = assertBufferMatchesString(bytes, { [stream]: limits, strategy, headRatio, notice }, stream)
        assertWithin(r[stream].text, limits)
        const m = measure(r[stream].text)
        assert.deepEqual([r[stream].outputChars, r[stream].outputBytes, r[stream].outputLines], [m.chars, m.bytes, m.lines])
      }),
      { numRuns: RUNS },
    )
  })

  test('a 16 MiB Buffer stdout is clamped within its limits', () => {
    const line = Buffer.from('2026-11-22T04:00:00Z step 日本語 ok 😀\n')
    const body = Buffer.alloc(Math.floor((16 * 1024 * 1024) / line.length) * line.length, line)
    const stdout = Buffer.concat([body, Buffer.from('ERROR: 3 tests failed\n')])
    const r = formatExecOutput({ stdout, stderr: 'warning: slow\n', exitCode: 1, durationMs: 93_000 })
    assert.ok(r.stdout.text.endsWith('ERROR: 3 tests failed\n'))
    assertWithin(r.stdout.text, { maxChars: 8000 })
    assert.equal(r.stdout.totalBytes, stdout.length)
    assert.equal(r.stdout.totalLines, body.length / line.length + 1)
    assert.ok(r.text.includes('<stderr>\nwarning: slow\n</stderr>\nexit code: 1, duration: 93,000 ms'))
    const limited = formatExecOutput({ stdout }, { stdout: { maxBytes: 4096, maxLines: 40 }, strategy: 'headTail' })
    assertWithin(limited.stdout.text, { maxBytes: 4096, maxLines: 40 })
    assert.ok(limited.stdout.text.startsWith('2026-11-22T04:00:00Z step 日本語 ok 😀\n'))
    assert.ok(limited.stdout.text.endsWith('ERROR: 3 tests failed\n'))
  })
})

describe('invalid arguments', () => {
  const ok = { stdout: 'x', stderr: 'y' }
  const cases = [
    ['result null', null, undefined, TypeError, /^result must be an object with stdout and stderr, got null$/],
    ['result string', 'out', undefined, TypeError, /^result must be an object/],
    ['stdout number', { stdout: 5 }, undefined, TypeError, /^result\.stdout must be a string, Buffer or Uint8Array, got 5$/],
    ['stderr Uint16Array', { stderr: new Uint16Array(2) }, undefined, TypeError, /^result\.stderr must be/],
    ['stdout array', { stdout: [1, 2] }, undefined, TypeError, /^result\.stdout must be .* got an array$/],
    ['exitCode string', { exitCode: '1' }, undefined, TypeError, /^result\.exitCode must be an integer, got "1"$/],
    ['exitCode fraction', { exitCode: 1.5 }, undefined, RangeError, /^result\.exitCode must be an integer, got 1.5$/],
    ['signal number', { signal: 9 }, undefined, TypeError, /^result\.signal must be a signal name/],
    ['signal empty', { signal: '' }, undefined, TypeError, /^result\.signal must be a signal name/],
    ['durationMs negative', { durationMs: -1 }, undefined, RangeError, /^result\.durationMs must be a finite non-negative number, got -1$/],
    ['durationMs NaN', { durationMs: NaN }, undefined, RangeError, /^result\.durationMs must be a finite/],
    ['durationMs string', { durationMs: '5' }, undefined, TypeError, /^result\.durationMs must be a number/],
    ['misspelt exit_code', { exit_code: 1 }, undefined, TypeError, /^unknown key "exit_code" in result; did you mean "exitCode"\?$/],
    ['misspelt stdOut', { stdOut: 'x' }, undefined, TypeError, /did you mean "stdout"\?$/],
    ['options string', ok, 'tail', TypeError, /^options must be an object, got "tail"$/],
    [
      'unknown option',
      ok,
      { maxChars: 5 },
      TypeError,
      /^unknown option "maxChars"; expected one of stdout, stderr, strategy, headRatio, notice, spill, snap, normalize$/,
    ],
    ['misspelt option', ok, { stdOut: 5 }, TypeError, /^unknown option "stdOut"; did you mean "stdout"\?$/],
    ['stdout negative', ok, { stdout: -1 }, RangeError, /^stdout must be a non-negative integer or Infinity, got -1$/],
    [
      'stdout string',
      ok,
      { stdout: '8000' },
      TypeError,
      /^stdout must be a number or an object with maxChars, maxBytes, maxLines or maxTokens, got "8000"$/,
    ],
    ['stdout empty object', ok, { stdout: {} }, TypeError, /^stdout must set at least one of maxChars, maxBytes, maxLines, maxTokens$/],
    [
      'stderr misspelt key',
      ok,
      { stderr: { maxchars: 5 } },
      TypeError,
      /^unknown option "stderr.maxchars"; did you mean "stderr.maxChars"\?$/,
    ],
    ['stderr unknown key', ok, { stderr: { strategy: 'head' } }, TypeError, /^unknown option "stderr.strategy"; expected one of/],
    [
      'stderr fraction',
      ok,
      { stderr: { maxBytes: 1.5 } },
      RangeError,
      /^stderr\.maxBytes must be a non-negative integer or Infinity, got 1.5$/,
    ],
    ['stderr NaN', ok, { stderr: { maxLines: NaN } }, RangeError, /^stderr\.maxLines must be/],
    ['strategy', ok, { strategy: 'middle' }, TypeError, /^strategy must be "head", "tail", "headTail" or "auto", got "middle"$/],
    ['strategy toString', ok, { strategy: 'toString' }, TypeError, /^strategy must be/],
    ['headRatio', ok, { headRatio: 2 }, RangeError, /^headRatio must be a number from 0 to 1, got 2$/],
    ['notice number', ok, { notice: 5 }, TypeError, /^notice must be a string or a function, got 5$/],
    ['notice template', ok, { notice: '{nope}' }, TypeError, /unknown placeholder \{nope\}/],
  ]
  for (const [name, result, options, type, message] of cases) {
    test(name, () => {
      // Validation never depends on whether a stream needs cutting.
      assert.throws(
        () => formatExecOutput(result, options),
        (e) => e instanceof type && message.test(e.message),
      )
    })
  }

  test('a notice function must return a string', () => {
    for (const stdout of ['x'.repeat(100), Buffer.from('x'.repeat(100))]) {
      assert.throws(() => formatExecOutput({ stdout }, { stdout: 10, notice: () => 5 }), {
        name: 'TypeError',
        message: 'notice function must return a string, got 5',
      })
    }
  })
})

describe('formatExecOutput: results as Node and execa give them', () => {
  const node = process.execPath

  test('spawnSync of a missing command: one line says so instead of two empty tags alone', () => {
    const { text } = formatExecOutput(spawnSync('toolclamp-no-such-command', ['x']))
    assert.equal(
      text,
      '<stdout>(empty)</stdout>\n<stderr>(empty)</stderr>\nerror: command not found (spawnSync toolclamp-no-such-command ENOENT)',
    )
  })

  test('spawnSync over maxBuffer: the kept output, and a line saying it was cut', () => {
    const child = spawnSync(node, ['-e', 'process.stdout.write("x".repeat(3e6))'], { maxBuffer: 1024 * 1024 })
    const { text } = formatExecOutput(child)
    assert.match(text, /\nerror: output exceeded maxBuffer; the command was stopped and its output is cut\nsignal: SIGTERM$/)
  })

  test('spawnSync with a timeout: timed out, killed with the signal', () => {
    const child = spawnSync(node, ['-e', 'setTimeout(() => {}, 10000)'], { timeout: 200 })
    assert.match(formatExecOutput(child).text, /\nerror: timed out, killed with SIGTERM\nsignal: SIGTERM$/)
  })

  test('spawnSync status is the exit code; a plain non-zero exit adds no error line', () => {
    const child = spawnSync(node, ['-e', 'console.error("bad"); process.exitCode = 3'])
    assert.equal(formatExecOutput(child).text, '<stdout>(empty)</stdout>\n<stderr>\nbad\n</stderr>\nexit code: 3')
  })

  test("an execFile callback's error and output, and a promisified execFile's rejection", async () => {
    const viaCallback = await new Promise((resolve) =>
      execFile(node, ['-e', 'console.log("out"); process.exitCode = 3'], (error, stdout, stderr) => resolve({ error, stdout, stderr })),
    )
    assert.equal(formatExecOutput(viaCallback).text, '<stdout>\nout\n</stdout>\n<stderr>(empty)</stderr>\nexit code: 3')
    const rejection = await promisify(execFile)(node, ['-e', 'console.error("err"); process.exitCode = 4']).catch((e) => e)
    assert.ok(rejection instanceof Error)
    assert.equal(formatExecOutput(rejection).text, '<stdout>(empty)</stdout>\n<stderr>\nerr\n</stderr>\nexit code: 4')
    const missing = await promisify(execFile)('toolclamp-no-such-command').catch((e) => e)
    assert.match(formatExecOutput(missing).text, /\nerror: command not found \(spawn toolclamp-no-such-command ENOENT\)$/)
  })

  test('execa-shaped results: exitCode first, timedOut, isCanceled, isTerminated, isMaxBuffer', () => {
    const base = { stdout: 'o', stderr: '', command: 'npm test', failed: true, durationMs: 12 }
    assert.equal(
      formatExecOutput({ ...base, exitCode: 2, status: 9 }).text,
      '<stdout>\no\n</stdout>\n<stderr>(empty)</stderr>\nexit code: 2, duration: 12 ms',
    )
    assert.match(
      formatExecOutput({ ...base, timedOut: true, signal: 'SIGTERM' }).text,
      /\nerror: timed out, killed with SIGTERM\nsignal: SIGTERM, duration: 12 ms$/,
    )
    assert.match(formatExecOutput({ ...base, isCanceled: true }).text, /\nerror: canceled\nduration: 12 ms$/)
    assert.match(formatExecOutput({ ...base, isTerminated: true, signal: 'SIGKILL' }).text, /\nerror: killed with SIGKILL\n/)
    assert.match(formatExecOutput({ ...base, isMaxBuffer: true, exitCode: 1 }).text, /\nerror: output exceeded maxBuffer/)
    // Near misses of the keys read still fail loudly.
    assert.throws(() => formatExecOutput({ ...base, exit_code: 1 }), {
      message: 'unknown key "exit_code" in result; did you mean "exitCode"?',
    })
  })

  test('an error whose message is huge or unreadable gives one bounded line', () => {
    const error = Object.assign(new Error(`spawn ${'x'.repeat(5000)} ENOENT\nmore`), { code: 'ENOENT' })
    const line = formatExecOutput({ error }).text.split('\n').at(-1)
    assert.ok(line.length <= 400, `${line.length}`)
    const hostile = {
      code: 'EIO',
      get message() {
        throw new Error('no')
      },
    }
    Object.setPrototypeOf(hostile, Error.prototype)
    assert.match(formatExecOutput({ error: hostile }).text, /\nerror: \[message unreadable\]$/)
  })
})
