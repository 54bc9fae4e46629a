// The WebAssembly build beside the native addon, on the main jobs. A process loads one build,
// so each build runs the jobs in a child process of its own (TOOLCLAMP_RUNTIME=native, then
// wasm); the children hand back a digest of each job's result, which must be equal before
// their times are compared.
//
//   node bench/runtimes.mjs child [--quick]     what each child runs: prints JSON

import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { Bench } from 'tinybench'
import { makeInput } from './inputs.mjs'
import { formatRatio, formatTime } from './report.mjs'

const MIB = 1024 * 1024
const LIMITS = { maxBytes: 51200, maxLines: 2000 }
/** The most the WebAssembly build should take, in native times. */
const WASM_BUDGET = 3

/** The jobs, each `[label, make(toolclamp) → () => result]`: the input is made before timing. */
function jobs(toolclamp, quick) {
  const sizes = quick ? [MIB] : [MIB, 16 * MIB]
  const size = (bytes) => `${bytes / MIB} MiB`
  const list = []
  for (const kind of ['ascii', 'cjk']) {
    const name = kind === 'ascii' ? 'ASCII' : 'CJK + emoji'
    for (const bytes of sizes) {
      const text = makeInput(kind, bytes)
      list.push([
        `stringTruncateHead, 51,200 bytes / 2,000 lines, ${name}, ${size(bytes)}`,
        () => toolclamp.stringTruncateHead(text, LIMITS),
      ])
      list.push([
        `stringTruncateTail, 51,200 bytes / 2,000 lines, ${name}, ${size(bytes)}`,
        () => toolclamp.stringTruncateTail(text, LIMITS),
      ])
    }
    const block = makeInput(kind, MIB)
    const payload = { content: [{ type: 'text', text: block }] }
    list.push([`hardTruncateToolPayload, one 1 MiB text block, ${name}`, () => toolclamp.hardTruncateToolPayload(payload)])
  }
  // A command's output in 64 KiB Buffers, captured as it streams: 16 MiB of log lines.
  const chunks = []
  const lines = Buffer.from(makeInput('ascii', 16 * MIB))
  for (let at = 0; at < lines.length; at += 64 * 1024) chunks.push(lines.subarray(at, at + 64 * 1024))
  list.push([
    'createOutputCapture, 16 MiB ASCII in 64 KiB Buffers, tail',
    () => {
      const capture = toolclamp.createOutputCapture({ ...LIMITS, strategy: 'tail' })
      for (const chunk of chunks) capture.write(chunk)
      return capture.end()
    },
  ])
  return list
}

const digest = (value) =>
  createHash('sha256')
    .update(JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v)))
    .digest('hex')

/** In a child: each job's result digest and median time, as JSON on stdout. */
async function child(quick) {
  const toolclamp = (await import('../index.js')).default
  const found = []
  for (const [label, run] of jobs(toolclamp, quick)) {
    const sum = digest(run())
    const bench = new Bench({ time: quick ? 100 : 1000, iterations: quick ? 3 : 10, warmupIterations: 2 })
    bench.add(label, run)
    await bench.run()
    found.push({ label, digest: sum, ms: bench.tasks[0].result.latency.p50 })
  }
  process.stdout.write(JSON.stringify({ runtime: toolclamp.runtime, found }))
}

/** Runs the jobs under `runtime` in a child process. */
function runUnder(runtime, quick) {
  const script = fileURLToPath(import.meta.url)
  const args = [script, 'child', ...(quick ? ['--quick'] : [])]
  const result = spawnSync(process.execPath, args, {
    env: { ...process.env, TOOLCLAMP_RUNTIME: runtime },
    encoding: 'utf8',
    maxBuffer: 16 * MIB,
  })
  if (result.status !== 0) throw new Error(`the ${runtime} run failed:\n${result.stderr}`)
  const report = JSON.parse(result.stdout)
  if (report.runtime !== runtime) throw new Error(`asked for ${runtime}, ran ${report.runtime}`)
  return report.found
}

/** The table: each job's time natively and as WebAssembly, with their ratio. */
export function runRuntimeCases({ quick, failures }) {
  process.stderr.write('timing the native and WebAssembly builds…\n')
  const native = runUnder('native', quick)
  const wasm = runUnder('wasm', quick)
  const rows = []
  native.forEach((n, i) => {
    const w = wasm[i]
    if (w.label !== n.label || w.digest !== n.digest) {
      failures.push(`runtimes: ${n.label}: the WebAssembly build's result differs from the native one`)
      return
    }
    rows.push([n.label, formatTime(n.ms), formatTime(w.ms), formatRatio(w.ms, n.ms), formatRatio(w.ms / n.ms, WASM_BUDGET)])
  })
  return {
    title: 'The WebAssembly build beside the native addon',
    headline: true,
    code: '`TOOLCLAMP_RUNTIME=native` and `TOOLCLAMP_RUNTIME=wasm`',
    about:
      'the same calls on the same inputs, each build in a process of its own; results are checked equal (by a digest of each) before timing',
    columns: ['job', 'native', 'WebAssembly', 'ratio vs native', `ratio vs ${WASM_BUDGET}× native`],
    rows,
    note: `The last ratio is the WebAssembly build’s slowdown over ${WASM_BUDGET}, the most it should be: at most 1 meets it.`,
  }
}

if (process.argv[2] === 'child') await child(process.argv.includes('--quick'))
