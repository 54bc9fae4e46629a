// Stream cases: createOutputCapture against collecting the chunks and clamping once at the
// end; runCommand against spawn + collected output + formatExecOutput; the CLI on a 1 GiB
// file against `wc -l`. Every pair is checked for equal output before it is timed. Each
// timed run of the process cases is its own child process, so its peak RSS is its own.

import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { createWriteStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import toolclamp from '../index.js'
import * as js from './js-impls.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const CHUNK = 64 * 1024
const MIB = 1024 * 1024
const LIMITS = { maxBytes: 51200, maxLines: 2000, strategy: 'tail' }

/** A 64 KiB chunk of log lines: `ascii`, or `mixed` (accents, CJK, emoji). */
function chunkOf(kind) {
  const line =
    kind === 'ascii'
      ? (i) => `${String(i).padStart(8, '0')} INFO  [worker-${i % 8}] request handled path=/api/v1/items status=200\n`
      : (i) => `${String(i).padStart(8, '0')} 情報 wörker-${i % 8} 要求を処理しました 😀 status=200\n`
  let text = ''
  for (let i = 0; Buffer.byteLength(text) < CHUNK * 2; i++) text += line(i)
  // Cut at 64 KiB exactly: chunks then split chars, as pipes do.
  return Buffer.from(text).subarray(0, CHUNK)
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

function timeMs(fn, runs) {
  const times = []
  let result
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now()
    result = fn()
    times.push(performance.now() - t0)
  }
  return { ms: median(times), result }
}

const captureAll = (chunk, count) => {
  const capture = toolclamp.createOutputCapture(LIMITS)
  for (let i = 0; i < count; i++) capture.write(chunk)
  return capture.end().text
}

// What a caller without a capture does: keep every chunk, then clamp once.
const collectThenClamp = (chunk, count) => {
  const chunks = []
  for (let i = 0; i < count; i++) chunks.push(chunk)
  return toolclamp.truncateText(Buffer.concat(chunks).toString(), LIMITS).text
}

const collectThenBestJs = (chunk, count) => {
  const chunks = []
  for (let i = 0; i < count; i++) chunks.push(chunk)
  return js.bestTruncateText(Buffer.concat(chunks).toString(), LIMITS).text
}

const concatOnly = (chunk, count) => {
  const chunks = []
  for (let i = 0; i < count; i++) chunks.push(chunk)
  return Buffer.concat(chunks).length
}

export const CAPTURE_COLUMNS = ['input', 'capture', 'GB/s', 'collect + truncateText', 'collect + best JS', 'Buffer.concat', 'target']

export function runCaptureCases({ quick }) {
  const rows = []
  const sizes = quick ? [16, 64] : [16, 256, 1024]
  for (const kind of ['ascii', 'mixed']) {
    const chunk = chunkOf(kind)
    for (const mib of sizes) {
      const count = (mib * MIB) / CHUNK
      // Past 256 MiB the whole output is no longer a JS string (V8's limit is 512 Mi chars):
      // there only the capture runs.
      const comparable = mib <= 256
      if (comparable) {
        const expected = collectThenClamp(chunk, count)
        assert.equal(captureAll(chunk, count), expected, `capture ${kind} ${mib} MiB`)
        assert.equal(collectThenBestJs(chunk, count), expected, `best JS ${kind} ${mib} MiB`)
      }
      process.stderr.write(`timing capture ${kind} ${mib} MiB…\n`)
      const runs = quick ? 3 : mib >= 256 ? 5 : 9
      const capture = timeMs(() => captureAll(chunk, count), runs).ms
      const collect = comparable ? timeMs(() => collectThenClamp(chunk, count), runs).ms : undefined
      const bestJs = comparable ? timeMs(() => collectThenBestJs(chunk, count), runs).ms : undefined
      const concat = comparable ? timeMs(() => concatOnly(chunk, count), runs).ms : undefined
      const rate = (mib * MIB) / 1e9 / (capture / 1000)
      const minRate = kind === 'ascii' ? 2 : 1
      const pass = rate >= minRate && (collect === undefined || capture <= collect)
      const fmt = (ms) => (ms === undefined ? '—' : `${ms.toFixed(1)} ms`)
      rows.push([
        `${mib} MiB ${kind}, 64 KiB Buffers`,
        fmt(capture),
        rate.toFixed(1),
        fmt(collect),
        fmt(bestJs),
        fmt(concat),
        `${pass ? 'PASS' : 'MISS'} ≥${minRate} GB/s${comparable ? ', ≤ collect' : ''}`,
      ])
    }
  }
  return rows
}

// ---------------------------------------------------------------------------------------
// runCommand

// Writes `mib` MiB of log lines to stdout, 64 KiB at a time, waiting for the pipe.
const GENERATOR = `
const mib = Number(process.argv[1]);
const line = (i) => String(i).padStart(8, '0') + ' INFO  [worker-' + (i % 8) + '] request handled path=/api/v1/items status=200\\n';
let text = ''; for (let i = 0; text.length < 65536 * 2; i++) text += line(i);
const chunk = Buffer.from(text).subarray(0, 65536);
let left = mib * 16;
function more() { while (left > 0) { left--; if (!process.stdout.write(chunk)) return process.stdout.once('drain', more) } }
more();
`

// One run in a child process: prints { ms, maxRssMiB, text }.
const RUNNER = `
const path = require('node:path');
const { spawn } = require('node:child_process');
const toolclamp = require(path.resolve(process.argv[1], 'index.js'));
const { runCommand } = require(path.resolve(process.argv[1], 'lib/run.js'));
const [, , how, mib, generator] = process.argv;
const args = ['-e', generator, mib];
const t0 = performance.now();
const done = (text) => {
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, maxRssMiB: process.resourceUsage().maxRSS / 1024, text }));
};
if (how === 'runCommand') {
  runCommand(process.execPath, args).then((r) => done(r.text));
} else {
  const child = spawn(process.execPath, args);
  const out = []; const err = [];
  child.stdout.on('data', (c) => out.push(c));
  child.stderr.on('data', (c) => err.push(c));
  child.on('close', (exitCode, signal) => {
    done(toolclamp.formatExecOutput({ stdout: Buffer.concat(out), stderr: Buffer.concat(err), exitCode, signal }).text);
  });
}
`

function runOnce(how, mib) {
  const out = execFileSync(process.execPath, ['-e', RUNNER, ROOT, how, String(mib), GENERATOR], {
    maxBuffer: 64 * MIB,
    encoding: 'utf8',
  })
  return JSON.parse(out)
}

export const RUN_COLUMNS = ['output', 'runCommand', 'peak RSS', 'spawn + collect + formatExecOutput', 'peak RSS', 'target']

export function runCommandCases({ quick }) {
  if (!existsSync(path.join(ROOT, 'lib/run.js'))) return []
  const rows = []
  for (const mib of quick ? [16] : [16, 256]) {
    const a = runOnce('runCommand', mib)
    const b = runOnce('collect', mib)
    // runCommand's status line names the duration it measured; the rest must be equal.
    const timeless = (text) => text.replace(/, duration: [\d,.]+ m?s$/, '')
    assert.equal(timeless(a.text), timeless(b.text), `runCommand ${mib} MiB`)
    process.stderr.write(`timing runCommand ${mib} MiB…\n`)
    const runs = quick ? 1 : 5
    const ra = Array.from({ length: runs }, () => runOnce('runCommand', mib))
    const rb = Array.from({ length: runs }, () => runOnce('collect', mib))
    const ms = (xs) => median(xs.map((x) => x.ms))
    const rss = (xs) => Math.max(...xs.map((x) => x.maxRssMiB))
    const pass = ms(ra) <= ms(rb) * 1.05 && rss(ra) <= 128
    rows.push([
      `${mib} MiB of log lines`,
      `${ms(ra).toFixed(0)} ms`,
      `${rss(ra).toFixed(0)} MiB`,
      `${ms(rb).toFixed(0)} ms`,
      `${rss(rb).toFixed(0)} MiB`,
      `${pass ? 'PASS' : 'MISS'} no slower (5%), bounded`,
    ])
  }
  return rows
}

// ---------------------------------------------------------------------------------------
// CLI on a file

/** Wall time (ms) and peak RSS (MiB, from GNU time) of a command. */
function timed(command, args) {
  const t0 = performance.now()
  const r = spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], { encoding: 'utf8', maxBuffer: 64 * MIB })
  const ms = performance.now() - t0
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr}`)
  const kib = Number(r.stderr.trim().split('\n').at(-1))
  return { ms, rssMiB: kib / 1024, stdout: r.stdout }
}

async function writeFile(file, mib) {
  const chunk = chunkOf('ascii')
  const stream = createWriteStream(file)
  for (let i = 0; i < mib * 16; i++) {
    if (!stream.write(chunk)) await new Promise((resolve) => stream.once('drain', resolve))
  }
  await new Promise((resolve, reject) => stream.end((error) => (error ? reject(error) : resolve())))
}

export const CLI_COLUMNS = ['input', 'toolclamp --max-lines 2000', 'peak RSS', 'wc -l', 'ratio', 'target']

export async function runCliCases({ quick }) {
  if (!existsSync('/usr/bin/time')) return []
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolclamp-bench-'))
  const rows = []
  try {
    const mib = quick ? 64 : 1024
    const file = path.join(dir, 'big.log')
    await writeFile(file, mib)
    assert.equal(statSync(file).size, mib * MIB)
    const cli = path.join(ROOT, 'bin/toolclamp.js')
    const args = [cli, '--strategy', 'tail', '--max-lines', '2000', file]
    const runs = quick ? 1 : 5
    // The last lines of the file are what tail keeps.
    const first = timed(process.execPath, args)
    const tail = execFileSync('tail', ['-n', '5', file], { encoding: 'utf8' })
    assert.ok(first.stdout.endsWith(tail), 'CLI output ends with the file')
    const cliRuns = [first, ...Array.from({ length: runs - 1 }, () => timed(process.execPath, args))]
    const wcRuns = Array.from({ length: runs }, () => timed('wc', ['-l', file]))
    const cliMs = median(cliRuns.map((r) => r.ms))
    const wcMs = median(wcRuns.map((r) => r.ms))
    const rss = Math.max(...cliRuns.map((r) => r.rssMiB))
    const ratio = cliMs / wcMs
    const pass = ratio <= 2 && rss <= 64
    rows.push([
      `${mib} MiB file of log lines`,
      `${cliMs.toFixed(0)} ms`,
      `${rss.toFixed(0)} MiB`,
      `${wcMs.toFixed(0)} ms`,
      `${ratio.toFixed(2)}x`,
      `${pass ? 'PASS' : 'MISS'} ≤2x wc -l, ≤64 MiB`,
    ])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return rows
}
