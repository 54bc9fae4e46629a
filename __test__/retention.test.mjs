// A small result of a large input is a string of its own: it must not keep the input alive.
// In V8 a `slice` points into the string it was cut from, so a plain `notice + text.slice(-k)`
// keeps all of `text` in memory for as long as the result lives (in an agent, as long as the
// conversation). Each check keeps a few results of inputs of 2 Mi chars each, drops the inputs,
// collects garbage and asks how much of the heap is still in use: the results themselves
// are a few tens of KB, the inputs tens of MB.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

import { stringTruncateHead, stringTruncateHeadTail, stringTruncateTail, truncateText } from '../index.mjs'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc')

const INPUTS = 6
const INPUT_CHARS = 2 * 1024 * 1024

/** About INPUT_CHARS chars of log lines (`kind` 'ascii' or 'wide'), built once per kind. */
function logLines(kind) {
  const word = kind === 'ascii' ? 'status=ok' : '処理完了🙂'
  const lines = []
  for (let i = 0, n = 0; n < INPUT_CHARS; i++) {
    const line = `${i} worker-${i % 7} ${word} latency=${(i * 7919) % 300}ms\n`
    lines.push(line)
    n += line.length
  }
  return lines.join('')
}
const TEMPLATES = { ascii: logLines('ascii'), wide: logLines('wide') }

/** A fresh input: its own flat copy of the kind's lines, on the JS heap (`replace` builds it). */
const input = (seed, kind) => TEMPLATES[kind].replace(/^/, `${seed}:`)

/** Heap in use after collecting garbage, in MiB. */
function heapMiB() {
  gc()
  gc()
  return process.memoryUsage().heapUsed / 1024 / 1024
}

/**
 * How much more the heap grows while `INPUTS` results of `clamp` are kept and their inputs
 * dropped than while as many short constant strings are kept after reading each input. (V8
 * may keep the last string a function read until its next regular-expression match; that
 * is the same either way, and the difference is what the results keep.)
 */
function retainedMiB(clamp, kind) {
  return grownMiB(clamp, kind) - grownMiB((t) => (t.charCodeAt(t.length >> 1) > 0 ? 'x' : 'y'), kind)
}

function grownMiB(clamp, kind) {
  const before = heapMiB()
  const results = []
  for (let k = 0; k < INPUTS; k++) results.push(clamp(input(k, kind)))
  const grown = heapMiB() - before
  // The results are still alive here: they are what is measured.
  assert.ok(results.every((r) => (typeof r === 'string' ? r : r.text).length < 60_000))
  return grown
}

const CALLS = {
  'stringTruncateTail by chars': (t) => stringTruncateTail(t, 8000),
  'stringTruncateHead by chars': (t) => stringTruncateHead(t, 8000),
  'stringTruncateHeadTail by chars': (t) => stringTruncateHeadTail(t, 16000),
  'stringTruncateTail by bytes': (t) => stringTruncateTail(t, { maxBytes: 51200 }),
  'stringTruncateHead by bytes and lines': (t) => stringTruncateHead(t, { maxBytes: 51200, maxLines: 2000 }),
  'truncateText, head + tail': (t) => truncateText(t, { maxBytes: 51200, strategy: 'headTail' }),
}

for (const kind of ['ascii', 'wide']) {
  for (const [name, clamp] of Object.entries(CALLS)) {
    test(`${name} (${kind}): the result does not keep its input alive`, () => {
      // The inputs are 6 x 2 Mi chars (12 to 24 MiB in V8); kept slices would keep them all.
      const grown = retainedMiB(clamp, kind)
      assert.ok(grown < 1, `the heap grew by ${grown.toFixed(1)} MiB more while ${INPUTS} results were kept`)
    })
  }
}

test('the check can fail: plain slices keep their inputs alive', () => {
  const grown = retainedMiB((t) => `[... ${t.length - 8000} chars truncated ...]\n${t.slice(-8000)}`, 'ascii')
  assert.ok(grown > 8, `plain slices kept only ${grown.toFixed(1)} MiB`)
})
