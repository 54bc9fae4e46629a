// What a capture holds and when it lets go: end() and dispose() free its memory and spill
// file at once; a capture dropped unfinished gives back its fd and .tmp file once collected;
// the memory of its buffers is known to V8, so captures that keep megabytes are collected in
// time; a notice function that calls back into its capture gets a clear error, not a stack
// overflow. FC_RUNS sets the runs of the property (a hundredth of it, at least 50).
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import fc from 'fast-check'

import { createOutputCapture, runtime, truncateText } from '../index.mjs'

const require = createRequire(import.meta.url)
const CAPTURE_JS = require.resolve('../lib/commands/capture.js')
const NODE = process.execPath
const RUNS = Math.max(50, Math.floor(Number(process.env.FC_RUNS ?? 2000) / 100))
const FD_DIR = fs.existsSync('/proc/self/fd') ? '/proc/self/fd' : '/dev/fd'
const HAS_FD_DIR = fs.existsSync(FD_DIR)

let tmp
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-capture-lifecycle-'))
})
after(() => {
  fs.rmSync(tmp, { recursive: true, force: true })
})

const openFds = () => fs.readdirSync(FD_DIR).length
const text = Array.from({ length: 400 }, (_, i) => `row ${i}\n`).join('')

/** Runs `script` in a node of its own and returns what it printed as JSON. */
function runNode(args, script) {
  const child = spawnSync(NODE, [...args, '-e', script], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 })
  assert.equal(child.status, 0, child.stderr)
  return JSON.parse(child.stdout)
}

describe('a notice function that calls back into its own capture', () => {
  // Each method that plans (and so calls the notice function), each method called from it.
  const outers = ['snapshot', 'end', 'settledHead']
  const inners = ['snapshot', 'settledHead']
  for (const outer of outers) {
    for (const inner of inners) {
      test(`${inner}() from ${outer}()'s notice: a clear error, then the right result`, () => {
        let capture
        let calls = 0
        const notice = (f) => `cut ${f.omittedBytes}`
        capture = createOutputCapture({
          maxBytes: 60,
          strategy: 'head',
          notice: (f) => {
            if (calls++ === 0) capture[inner]()
            return notice(f)
          },
        })
        capture.write(text)
        assert.throws(() => capture[outer](), { name: 'Error', message: `toolclamp: ${inner}() called from its own notice function` })
        assert.deepEqual(capture.end(), truncateText(text, { maxBytes: 60, strategy: 'head', notice }))
      })
    }
  }

  test('a notice function that always calls snapshot(): the error, every time, and the capture still ends', () => {
    let capture
    capture = createOutputCapture({ maxBytes: 60, notice: () => (capture.snapshot(), 'x') })
    capture.write(text)
    for (let k = 0; k < 3; k++)
      assert.throws(() => capture.snapshot(), { message: 'toolclamp: snapshot() called from its own notice function' })
    assert.throws(() => capture.end(), { message: 'toolclamp: snapshot() called from its own notice function' })
    capture.dispose()
    assert.throws(() => capture.end(), { message: 'toolclamp: the capture was disposed' })
  })

  test("dispose() from end()'s notice: refused as any change to the capture is; from a snapshot's, it frees it", () => {
    let capture
    let calls = 0
    capture = createOutputCapture({ maxBytes: 60, notice: () => (calls++ === 0 && capture.dispose(), 'x') })
    capture.write(text)
    assert.throws(() => capture.end(), { message: 'toolclamp: the capture is in use (called from its own notice function)' })
    assert.equal(capture.end().text.slice(0, 2), 'x\n')

    let other
    other = createOutputCapture({ maxBytes: 60, notice: () => (other.dispose(), 'x') })
    other.write(text)
    assert.equal(other.snapshot().text.slice(0, 2), 'x\n', 'the snapshot is of what came before')
    assert.throws(() => other.write('more'), { message: 'toolclamp: the capture was disposed' })
  })
})

describe('dispose()', () => {
  test('frees the capture: every later use throws, totals stay readable, a second dispose does nothing', () => {
    const capture = createOutputCapture({ maxBytes: 60, strategy: 'head' })
    capture.write(text)
    const totals = capture.totals
    assert.equal(capture.dispose(), undefined)
    assert.equal(capture.dispose(), undefined)
    for (const use of [() => capture.write('x'), () => capture.snapshot(), () => capture.end(), () => capture.settledHead()]) {
      assert.throws(use, { name: 'Error', message: 'toolclamp: the capture was disposed' })
    }
    assert.deepEqual(capture.totals, totals)
  })

  test('after end(): nothing changes, end() and snapshot() still give the result', () => {
    const capture = createOutputCapture({ maxBytes: 60 })
    capture.write(text)
    const result = capture.end()
    capture.dispose()
    assert.equal(capture.end(), result)
    assert.equal(capture.snapshot(), result)
    assert.throws(() => capture.write('x'), { message: 'toolclamp: write after end' })
  })

  test('with a spill: the .tmp file is removed and its fd closed at once; no file is kept or reported', { skip: !HAS_FD_DIR }, () => {
    const dir = path.join(tmp, 'dispose-spill')
    const reported = []
    const before = openFds()
    const captures = Array.from({ length: 50 }, () =>
      createOutputCapture({ maxBytes: 60, spill: { dir, onSpill: (r) => reported.push(r) } }),
    )
    for (const capture of captures) capture.write(text)
    assert.equal(openFds(), before + 50)
    assert.equal(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')).length, 50)
    for (const capture of captures) capture.dispose()
    assert.equal(openFds(), before)
    assert.deepEqual(fs.readdirSync(dir), [])
    assert.deepEqual(reported, [])
  })

  test("property: any sequence of writes, snapshots, ends and disposes; the results are truncateText's, and nothing is held once it ended or was disposed", {
    skip: !HAS_FD_DIR,
  }, () => {
    const op = fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .string({ maxLength: 80, unit: fc.constantFrom('a', 'é', '\n', '😀', 'row ') })
          .map((chunk) => ({ op: 'write', chunk })),
      },
      { weight: 1, arbitrary: fc.constantFrom({ op: 'snapshot' }, { op: 'end' }, { op: 'dispose' }, { op: 'settledHead' }) },
    )
    const options = fc.record({
      maxBytes: fc.integer({ min: 20, max: 200 }),
      strategy: fc.constantFrom('tail', 'head', 'headTail'),
      spill: fc.boolean(),
    })
    let n = 0
    fc.assert(
      fc.property(options, fc.array(op, { maxLength: 20 }), ({ maxBytes, strategy, spill }, ops) => {
        const dir = path.join(tmp, `property-${n++}`)
        const before = openFds()
        const capture = createOutputCapture({ maxBytes, strategy, ...(spill ? { spill: { dir } } : {}) })
        // The model: what was written, and whether it ended or was disposed.
        let written = ''
        let state = 'open'
        const expected = () => truncateText(written, { maxBytes, strategy })
        // With a spill the notice names the file and takes room of its own: the totals and
        // whether it cut are truncateText's (capture.test.mjs compares the texts).
        const facts = (r) => [r.truncated, r.totalChars, r.totalBytes, r.totalLines]
        for (const { op: name, chunk } of ops) {
          if (state === 'disposed' && name !== 'dispose') {
            assert.throws(() => capture[name](chunk), { message: 'toolclamp: the capture was disposed' })
            continue
          }
          if (name === 'write') {
            if (state === 'ended') assert.throws(() => capture.write(chunk), { message: 'toolclamp: write after end' })
            else {
              capture.write(chunk)
              written += chunk
            }
          } else if (name === 'dispose') {
            capture.dispose()
            if (state === 'open') state = 'disposed'
          } else if (name === 'end' || name === 'snapshot') {
            const r = capture[name]()
            if (name === 'end') state = 'ended'
            if (!spill) assert.deepEqual(r, expected())
            else assert.deepEqual(facts(r), facts(expected()))
          } else capture.settledHead()
        }
        assert.deepEqual(capture.totals, {
          chars: [...written].reduce((k, c) => k + c.length, 0),
          bytes: Buffer.byteLength(written),
          lines: expected().totalLines,
        })
        if (state === 'open') capture.dispose()
        assert.equal(openFds(), before, 'no fd held')
        const left = fs.existsSync(dir) ? fs.readdirSync(dir) : []
        assert.deepEqual(
          left.filter((f) => f.endsWith('.tmp')),
          [],
          'no .tmp file left',
        )
        fs.rmSync(dir, { recursive: true, force: true })
      }),
      { numRuns: RUNS },
    )
  })
})

describe('the binding', () => {
  test('captureDispose frees a handle for good: every later call with it throws, a second dispose does nothing', () => {
    // lib/native.js loads the build TOOLCLAMP_RUNTIME names; binding.js is then that one.
    require('../lib/native.js')
    const binding = require('../binding.js')
    const { LAYOUT } = binding
    const out = new ArrayBuffer(LAYOUT.bufferLength * 8)
    // The request block (src/exports.rs): the fields each call reads, written by name.
    const request = (fields) => {
      for (const [name, value] of Object.entries(fields)) new Float64Array(out)[LAYOUT.request[name]] = value
    }
    request({ strategy: 1, maxChars: Infinity, maxBytes: 100, maxLines: Infinity, headRatio: 0.5 })
    const handle = binding.captureCreate(out, false, 0, false, undefined)
    binding.captureWrite(out, handle, 'x'.repeat(300), false, false)
    assert.equal(binding.captureDispose(out, handle), undefined)
    assert.equal(new Float64Array(out)[LAYOUT.slots.totalBytes], 300, 'answers the last totals')
    assert.equal(binding.captureDispose(out, handle), undefined)
    const snapped = (call) => () => {
      request({ snap: 0 })
      return call()
    }
    for (const call of [
      () => binding.captureWrite(out, handle, 'y', false, false),
      () => binding.captureFinish(out, handle, false),
      snapped(() => binding.captureResult(out, handle, true, undefined, undefined)),
      snapped(() => binding.captureResult(out, handle, false, undefined, undefined)),
      snapped(() => binding.captureSettleHead(out, handle, undefined)),
    ]) {
      assert.throws(call, { name: 'Error', message: 'toolclamp: the capture was disposed' })
    }
  })
})

describe('captures that are dropped unfinished', () => {
  test('1,000 with a spill, collected: every fd closed and every .tmp file removed', { skip: !HAS_FD_DIR }, () => {
    const dir = path.join(tmp, 'abandoned')
    const report = runNode(
      ['--expose-gc'],
      `
      const fs = require('node:fs')
      const { createOutputCapture } = require(${JSON.stringify(CAPTURE_JS)})
      const openFds = () => fs.readdirSync(${JSON.stringify(FD_DIR)}).length
      const temps = () => fs.readdirSync(${JSON.stringify(dir)}).filter((f) => f.endsWith('.tmp')).length
      ;(async () => {
        const before = openFds()
        ;(() => {
          for (let i = 0; i < 1000; i++) createOutputCapture({ maxBytes: 100, spill: { dir: ${JSON.stringify(dir)} } }).write('x'.repeat(500))
        })()
        const held = { fds: openFds() - before, temps: temps() }
        // Collected, then the registry's callbacks run on later turns of the event loop.
        let turns = 0
        while ((openFds() > before || temps() > 0) && turns++ < 100) {
          globalThis.gc()
          await new Promise((resolve) => setTimeout(resolve, 1))
        }
        console.log(JSON.stringify({ held, fds: openFds() - before, temps: temps(), files: fs.readdirSync(${JSON.stringify(dir)}).length }))
      })()
    `,
    )
    assert.deepEqual(report.held, { fds: 1000, temps: 1000 }, 'held while the captures live')
    assert.deepEqual({ fds: report.fds, temps: report.temps, files: report.files }, { fds: 0, temps: 0, files: 0 })
  })
})

describe('memory', () => {
  test('captures written and ended (or disposed) in a synchronous loop free their buffers at once: RSS stays bounded', {
    timeout: 120_000,
  }, () => {
    // Node-API frees a collected capture only once the loop yields; end() and dispose() do
    // not wait for that. 100,000 captures held about 250 MB here before they did.
    const report = runNode(
      [],
      `
      const { createOutputCapture } = require(${JSON.stringify(CAPTURE_JS)})
      for (let i = 0; i < 2000; i++) createOutputCapture({ maxBytes: 1000 }).end() // warm up
      const base = process.memoryUsage().rss
      let peak = base
      for (let i = 0; i < 100000; i++) {
        const capture = createOutputCapture({ maxBytes: 1000 })
        capture.write('hello world\\n'.repeat(10))
        if (i % 2 === 0) capture.end()
        else capture.dispose()
        if (i % 1000 === 0) peak = Math.max(peak, process.memoryUsage().rss)
      }
      console.log(JSON.stringify({ growth: Math.max(peak, process.memoryUsage().rss) - base }))
    `,
    )
    assert.ok(report.growth < 128 * 1024 * 1024, `RSS grew by ${(report.growth / 2 ** 20).toFixed(1)} MiB`)
  })

  // Native only: as WebAssembly a capture's memory is the module's, which Node-API cannot
  // report to V8 (docs/install.md says so): a dropped capture is freed at V8's next full
  // collection, however late, and end() or dispose() frees it at once.
  const wasm = runtime === 'wasm' && 'the WebAssembly build cannot tell V8 what a capture holds'
  test('captures that keep megabytes and are dropped are collected in time: V8 knows their size', { timeout: 120_000, skip: wasm }, () => {
    // Each keeps 3 MiB that V8 would not see: its own heap grows by a few hundred bytes per
    // capture, far too little to collect them before gigabytes are held.
    const report = runNode(
      [],
      `
      const { createOutputCapture } = require(${JSON.stringify(CAPTURE_JS)})
      const chunk = 'x'.repeat(1 << 20)
      ;(async () => {
        const base = process.memoryUsage().rss
        let peak = base
        for (let i = 0; i < 300; i++) {
          const capture = createOutputCapture({ maxBytes: 1 << 20, strategy: 'headTail' })
          for (let k = 0; k < 3; k++) capture.write(chunk)
          await new Promise((resolve) => setImmediate(resolve))
          peak = Math.max(peak, process.memoryUsage().rss)
        }
        console.log(JSON.stringify({ growth: peak - base }))
      })()
    `,
    )
    assert.ok(
      report.growth < 384 * 1024 * 1024,
      `RSS grew by ${(report.growth / 2 ** 20).toFixed(1)} MiB (about 900 MiB without the report)`,
    )
  })
})
