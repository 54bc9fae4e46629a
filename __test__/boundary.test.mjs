// The JS <-> native boundary fails closed: each case here once handed back more than the
// budget, a wrong count, or an internal error. A second copy of the package, worker
// threads, re-entrant callbacks and getters, hostile payload blocks, detached and lying
// arrays, results too long for a string, and memory after a huge call.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'

import { measure, fits } from './reference.mjs'

const require = createRequire(import.meta.url)
const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const tc = require('../index.js')

/** Loads a fresh copy of the package, as Jest's and Vitest's per-file registries do. */
function freshCopy() {
  const saved = { ...require.cache }
  for (const key of Object.keys(require.cache)) {
    if (key.startsWith(repoRoot) && !key.includes(`${path.sep}node_modules${path.sep}`)) delete require.cache[key]
  }
  const copy = require('../index.js')
  // Restore the first copy's modules, so the rest of this file keeps using them.
  for (const key of Object.keys(require.cache)) delete require.cache[key]
  Object.assign(require.cache, saved)
  return copy
}

/** Checks a library copy against the reference on a few clamps of every kind. */
function checkCopy(lib, label) {
  assert.deepEqual(lib.measureText('abc'), { chars: 3, bytes: 3, lines: 1 }, label)
  const big = 'x'.repeat(5000)
  const r = lib.truncateText(big, { maxBytes: 100 })
  assert.ok(r.truncated && r.outputBytes <= 100 && Buffer.byteLength(r.text) === r.outputBytes, label)
  assert.ok(fits(lib.stringTruncateTail('日本\n'.repeat(500), { maxBytes: 99, maxLines: 7 }), { maxBytes: 99, maxLines: 7 }), label)
  assert.ok(lib.formatExecOutput({ stdout: Buffer.from('ab\n'.repeat(3000)) }, { stdout: 120 }).stdout.outputChars <= 120, label)
  // 10 lines: the banner and 9 of the text.
  const page = lib.readPartial('line\n'.repeat(100), { maxLines: 10 })
  assert.equal(page.lastLine, 9, label)
}

describe('copies of the module', () => {
  test('two copies in one thread each clamp, interleaved', () => {
    const second = freshCopy()
    assert.notEqual(second.truncateText, tc.truncateText, 'a separate copy was loaded')
    for (let round = 0; round < 3; round++) {
      checkCopy(tc, 'first copy')
      checkCopy(second, 'second copy')
    }
    // The case that once broke: the first copy after the second was loaded.
    assert.deepEqual(tc.measureText('abc'), { chars: 3, bytes: 3, lines: 1 })
    assert.ok(tc.truncateText('x'.repeat(5000), { maxBytes: 100 }).text.length <= 100)
  })

  test('8 worker threads at once each clamp correctly', async () => {
    const source = `
      const { parentPort, workerData } = require('node:worker_threads')
      const tc = require(workerData.index)
      let failures = 0
      for (let i = 0; i < 300; i++) {
        const n = 1000 + ((i * 7919 + workerData.id * 104729) % 20000)
        const text = (workerData.id % 2 ? '日本😀\\n' : 'abc\\n').repeat(n >> 2)
        const maxBytes = 50 + (i % 400)
        const r = tc.truncateText(text, { maxBytes, strategy: ['head', 'tail', 'headTail'][i % 3] })
        if (Buffer.byteLength(r.text) > maxBytes || r.outputBytes !== Buffer.byteLength(r.text)) failures++
        if (r.totalChars !== text.length || r.totalBytes !== Buffer.byteLength(text)) failures++
        const m = tc.measureText(text)
        if (m.chars !== text.length) failures++
      }
      parentPort.postMessage(failures)
    `
    const index = path.join(repoRoot, 'index.js')
    const runs = Array.from({ length: 8 }, (_, id) => {
      const worker = new Worker(source, { eval: true, workerData: { index, id } })
      return new Promise((resolve, reject) => {
        worker.once('message', resolve)
        worker.once('error', reject)
      })
    })
    // The main thread keeps clamping meanwhile.
    checkCopy(tc, 'main thread')
    assert.deepEqual(await Promise.all(runs), [0, 0, 0, 0, 0, 0, 0, 0])
  })
})

describe('re-entrant callbacks and getters', () => {
  test('an onSpill that clamps cannot change the payload it reports on', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolclamp-reentry-'))
    try {
      const blocks = [
        { type: 'text', text: 'a'.repeat(300) },
        { type: 'text', text: 'b'.repeat(300) },
      ]
      const onSpill = () => {
        tc.truncateText('z'.repeat(10), { maxChars: 100 })
        tc.measureText('q'.repeat(77))
      }
      const out = tc.hardTruncateToolPayload(blocks, { maxChars: 200, spill: { dir, onSpill } })
      const total = out.reduce((n, b) => n + b.text.length, 0)
      assert.ok(total <= 200, `kept ${total} chars`)
      assert.ok(out.some((b) => b.text.includes('saved to')))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('a notice function that calls toolclamp keeps the outer clamp', () => {
    const notice = (facts) => {
      tc.truncateText('y'.repeat(5000), { maxBytes: 10, strategy: 'tail' })
      tc.hardTruncateToolPayload([{ type: 'text', text: 'w'.repeat(70000) }])
      return `[${facts.omittedChars} cut]`
    }
    for (const strategy of ['head', 'tail', 'headTail']) {
      const r = tc.truncateText('x'.repeat(1000), { maxChars: 50, strategy, notice })
      assert.equal(r.text.length, r.outputChars)
      assert.ok(r.outputChars <= 50)
      assert.equal(r.omittedChars, 1000 - (r.headEnd + 1000 - r.tailStart))
      assert.ok(r.text.includes(`[${r.omittedChars} cut]`))
    }
    const exec = tc.formatExecOutput({ stdout: Buffer.from('x'.repeat(1000)) }, { stdout: 50, notice })
    assert.ok(exec.stdout.outputChars <= 50)
  })

  test('option getters that call toolclamp cannot switch the clamp off', () => {
    const options = {
      maxBytes: 10,
      get notice() {
        tc.stringTruncateHead('a', 1000)
        tc.truncateText('b'.repeat(100), { maxChars: 1000 })
        return undefined
      },
      get headRatio() {
        tc.measureText('c'.repeat(10))
        return 0.5
      },
    }
    const r = tc.truncateText('x'.repeat(100), options)
    assert.equal(r.truncated, true)
    assert.ok(Buffer.byteLength(r.text) <= 10)
    const limits = {
      get maxChars() {
        tc.stringTruncateTail('d'.repeat(5000), 4000)
        return 20
      },
    }
    assert.ok(tc.stringTruncateHead('x'.repeat(100), limits).length <= 20)
    assert.ok(
      tc.stringTruncateHeadTail('x'.repeat(100), 20, {
        get notice() {
          tc.measureText('e')
          return '<>'
        },
      }).length <= 20,
    )
  })

  test('a Proxy for options whose traps call toolclamp changes nothing', () => {
    const options = new Proxy(
      { maxBytes: 10, strategy: 'tail' },
      {
        get(target, key) {
          tc.truncateText('p'.repeat(400), { maxChars: 1000 })
          return target[key]
        },
        ownKeys(target) {
          tc.measureText('o'.repeat(40))
          return Reflect.ownKeys(target)
        },
      },
    )
    const r = tc.truncateText('x'.repeat(100), options)
    assert.equal(r.truncated, true)
    assert.equal(r.strategy, 'tail')
    assert.ok(Buffer.byteLength(r.text) <= 10)
    const blocks = new Proxy([{ type: 'text', text: 'y'.repeat(500) }], {
      get(target, key) {
        tc.hardTruncateToolPayload([{ type: 'text', text: 'z'.repeat(70000) }])
        return target[key]
      },
    })
    const out = tc.hardTruncateToolPayload(blocks, { maxChars: 50 })
    assert.ok(out[0].text.length <= 50)
  })

  test('getters read once: a value that changes on the second read is not used', () => {
    let reads = 0
    const options = {
      get maxChars() {
        reads++
        return reads === 1 ? 10 : Infinity
      },
    }
    const r = tc.truncateText('x'.repeat(100), options)
    assert.equal(reads, 1)
    assert.ok(r.text.length <= 10)
  })

  test('payload blocks whose getters call toolclamp are clamped against their own budget', () => {
    const block = {
      type: 'text',
      get text() {
        tc.truncateText('q'.repeat(3000), { maxChars: 5 })
        return 'x'.repeat(500)
      },
    }
    const out = tc.hardTruncateToolPayload([block, { type: 'text', text: 'y'.repeat(500) }], { maxChars: 300 })
    assert.ok(out.reduce((n, b) => n + b.text.length, 0) <= 300)
  })
})

describe('hostile payloads', () => {
  test('revoked proxies and throwing getters among blocks are left as they are', () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    const throwing = {
      type: 'text',
      get text() {
        throw new Error('no')
      },
    }
    const throwingType = Object.defineProperty({}, 'type', {
      get() {
        throw new Error('no type')
      },
    })
    const blocks = [proxy, throwing, throwingType, { type: 'text', text: 'x'.repeat(500) }]
    const out = tc.hardTruncateToolPayload(blocks, { maxChars: 100 })
    assert.equal(out[0], proxy)
    assert.equal(out[1], throwing)
    assert.equal(out[2], throwingType)
    assert.ok(out[3].text.length <= 100)
    // A revoked proxy as the whole result is no payload toolclamp can read.
    assert.equal(tc.hardTruncateToolPayload(proxy), proxy)
  })

  test('a block that cannot be copied becomes a plain text block, cut', () => {
    const hostile = new Proxy(
      { type: 'text', text: 'x'.repeat(500) },
      {
        ownKeys() {
          throw new Error('no keys')
        },
      },
    )
    const [out] = tc.hardTruncateToolPayload([hostile], { maxChars: 100 })
    assert.equal(out.type, 'text')
    assert.ok(out.text.length <= 100)
  })

  test('a result whose content getter throws is left as it is', () => {
    const result = {
      get content() {
        throw new Error('no')
      },
    }
    assert.equal(tc.hardTruncateToolPayload(result), result)
  })
})

describe('arrays', () => {
  test('a detached Uint8Array reads as the empty text it now is', () => {
    const bytes = new TextEncoder().encode('abc\n'.repeat(100))
    structuredClone(bytes.buffer, { transfer: [bytes.buffer] })
    const page = tc.readPartial(bytes)
    assert.equal(page.text, '')
    assert.equal(page.totalBytes, 0)
    assert.equal(tc.formatExecOutput({ stdout: bytes }).text, '<stdout>(empty)</stdout>\n<stderr>(empty)</stderr>')
  })

  test('a Uint8Array whose length getter lies is read by its real length', () => {
    class Lying extends Uint8Array {
      get length() {
        return 3
      }
    }
    const bytes = new Lying(Buffer.from('line\n'.repeat(100)))
    const page = tc.readPartial(bytes, { maxLines: 11 }) // the banner and 10 lines
    assert.equal(page.totalBytes, 500)
    assert.equal(page.page, 'line\n'.repeat(10))
    assert.equal(page.dropped, 'tail')
    const exec = tc.formatExecOutput({ stdout: bytes }, { stdout: 20 })
    assert.equal(exec.stdout.totalBytes, 500)
    assert.ok(exec.stdout.outputChars <= 20)
  })

  test('a clamped Buffer longer than a JS string can hold is a RangeError, not undefined', () => {
    const { constants } = require('node:buffer')
    const huge = Buffer.alloc(constants.MAX_STRING_LENGTH + 1000, 0x61)
    assert.throws(
      () => tc.formatExecOutput({ stdout: huge }, { stdout: Infinity }),
      (error) => error instanceof RangeError && /more than the 536870888 a JS string can hold/.test(error.message),
    )
    // With a limit it clamps as ever.
    assert.ok(tc.formatExecOutput({ stdout: huge }, { stdout: 1000 }).stdout.outputChars <= 1000)
  })
})

describe('notices', () => {
  test('lone surrogates in a caller notice are kept as written', () => {
    for (const notice of ['\uD800 cut {omitted}', 'a\uDC00b\uE000', '\uDBFF']) {
      const r = tc.truncateText('x'.repeat(100), { maxChars: 40, notice })
      assert.ok(r.text.includes(notice.replace('{omitted}', '')), JSON.stringify(r.text))
      assert.equal(r.outputChars, r.text.length)
      assert.equal(r.outputBytes, Buffer.byteLength(r.text))
    }
    const fn = () => 'x\uD83D'
    const r = tc.truncateText('y'.repeat(100), { maxChars: 40, notice: fn })
    assert.ok(r.text.endsWith('\nx\uD83D'))
    const bytes = tc.formatExecOutput({ stdout: Buffer.from('z'.repeat(100)) }, { stdout: 40, notice: '\uDC00!' })
    assert.ok(bytes.stdout.text.startsWith('\uDC00!\n'))
  })
})

describe('spill directories', () => {
  test('a directory procfs will never create is reported, not retried forever', () => {
    if (process.platform !== 'linux') return
    const started = Date.now()
    const r = tc.truncateText('x'.repeat(1000), { maxChars: 100, spill: { dir: '/proc/toolclamp-test/spill' } })
    assert.equal(r.spill.path, null)
    assert.ok(r.spill.error instanceof Error)
    assert.ok(r.text.length <= 100)
    assert.ok(Date.now() - started < 10_000)
  })
})

describe('memory', () => {
  test('a 100M-char call leaves no large buffer behind', () => {
    // In a child process, so this file's own allocations do not blur the numbers.
    const script = `
      const tc = require(${JSON.stringify(path.join(repoRoot, 'index.js'))})
      const rss = () => { global.gc(); global.gc(); return process.memoryUsage().rss }
      tc.truncateText('日'.repeat(1000), { maxBytes: 100 })
      const before = rss()
      // In a function, so no variable of this script holds the text once it returns.
      const clampHuge = () => tc.truncateText('日本'.repeat(5e7), { maxBytes: 1000 })
      const r = clampHuge()
      if (r.totalChars !== 1e8 || r.outputBytes > 1000) throw new Error('wrong result')
      const after = rss()
      console.log(JSON.stringify({ before, after, kept: r.text.length }))
    `
    const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' })
    assert.equal(child.status, 0, child.stderr)
    const { before, after } = JSON.parse(child.stdout)
    // The call copies 200 MB of UTF-16; what stays must be far less than one such copy.
    assert.ok(after - before < 64 * 2 ** 20, `RSS grew by ${((after - before) / 2 ** 20).toFixed(0)} MiB`)
  })
})

test('measures agree with the reference after all of the above', () => {
  const text = 'a\r\nb😀\uD800日\n'.repeat(50)
  assert.deepEqual(tc.measureText(text), measure(text))
})
