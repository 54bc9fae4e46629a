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
import { formatRatio } from './report.mjs'

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

// Each run writes its own pool of distinct chunks (bench/streams.mjs `chunkPool`), cycled
// when the output is larger than the pool: 64 MiB of chunks, more than any CPU cache holds.
const POOL_CHUNKS = 1024

const captureAll = (pool, count) => {
  const capture = toolclamp.createOutputCapture(LIMITS)
  for (let i = 0; i < count; i++) capture.write(pool[i % pool.length])
  return capture.end().text
}

/** What a caller without a capture does: keep every chunk, then clamp once. */
const collect = (pool, count) => {
  const chunks = []
  for (let i = 0; i < count; i++) chunks.push(pool[i % pool.length])
  return chunks
}

const collectThenClamp = (pool, count) => toolclamp.truncateText(Buffer.concat(collect(pool, count)).toString(), LIMITS).text

const collectThenBestJs = (pool, count) => js.bestTruncateText(Buffer.concat(collect(pool, count)).toString(), LIMITS).text

const concatOnly = (pool, count) => Buffer.concat(collect(pool, count)).length

/**
 * One pool of `count` distinct chunks of `kind` for each of `runs` runs: copies of one varied
 * text (made once), each in fresh memory and shifted by a few KiB, so no run writes the chunks
 * of another and chunk boundaries fall elsewhere in every run.
 */
function freshPools(base, count, runs) {
  return Array.from({ length: runs }, (_, k) => {
    const shift = (k * 4099) % CHUNK
    const copy = Buffer.from(base.subarray(shift, shift + count * CHUNK))
    return Array.from({ length: count }, (_, i) => copy.subarray(i * CHUNK, (i + 1) * CHUNK))
  })
}

/** The median of `fn(pools[k])` over the runs, each run on its own pool. */
function timeRuns(fn, pools) {
  return median(pools.map((pool) => timeMs(() => fn(pool), 1).ms))
}

const millis = (x) => (x === undefined ? '—' : `${x.toFixed(1)} ms`)

export function runCaptureCases({ quick }) {
  const rows = []
  const sizes = quick ? [16, 64] : [16, 256, 1024]
  for (const kind of ['ascii', 'mixed']) {
    const base = Buffer.concat(chunkPool(kind === 'ascii' ? 'plain' : 'mixed', POOL_CHUNKS + 1, kind === 'ascii' ? 3 : 4))
    for (const mib of sizes) {
      const count = (mib * MIB) / CHUNK
      const runs = quick ? 3 : mib >= 256 ? 5 : 9
      // Fresh, varied chunks for every run: a capture never sees the same Buffer twice in a run,
      // nor a run's chunks again in the next.
      const pools = freshPools(base, Math.min(count, POOL_CHUNKS), runs)
      // Past 256 MiB the whole output is no longer a JS string (V8's limit is 512 Mi chars):
      // there only the capture and Buffer.concat run.
      const comparable = mib <= 256
      if (comparable) {
        const expected = collectThenClamp(pools[0], count)
        assert.equal(captureAll(pools[0], count), expected, `capture ${kind} ${mib} MiB`)
        assert.equal(collectThenBestJs(pools[0], count), expected, `best JS ${kind} ${mib} MiB`)
      }
      process.stderr.write(`timing capture ${kind} ${mib} MiB…\n`)
      const capture = timeRuns((pool) => captureAll(pool, count), pools)
      const collected = comparable ? timeRuns((pool) => collectThenClamp(pool, count), pools) : undefined
      const bestJs = comparable ? timeRuns((pool) => collectThenBestJs(pool, count), pools) : undefined
      const concat = timeRuns((pool) => concatOnly(pool, count), pools)
      rows.push([
        `${mib} MiB ${kind === 'ascii' ? 'ASCII' : 'mixed UTF-8'} log lines in 64 KiB Buffers`,
        millis(capture),
        ((mib * MIB) / 1e9 / (capture / 1000)).toFixed(1),
        millis(collected),
        millis(bestJs),
        millis(concat),
        bestJs === undefined ? '—' : formatRatio(capture, bestJs),
        formatRatio(capture, concat),
      ])
    }
  }
  return {
    title: 'Capturing a command’s output as it streams, 51,200 bytes / 2,000 lines, tail',
    code: "`createOutputCapture({ maxBytes: 51200, maxLines: 2000, strategy: 'tail' })`",
    about:
      'against keeping every chunk and clamping once at the end (`Buffer.concat`, `toString`, then `truncateText` or the best pure-JS clamp), and against `Buffer.concat` alone; each run writes its own 64 KiB Buffers of varied log lines (up to 64 MiB of distinct chunks, cycled past that), which split lines and chars as pipes do; outputs are checked equal first; past 256 MiB the whole output no longer fits in a JS string, so only the capture and `Buffer.concat` run',
    columns: [
      'input',
      'capture',
      'GB/s',
      'collect + truncateText',
      'collect + best JS',
      'Buffer.concat',
      'ratio vs collect + best JS',
      'ratio vs Buffer.concat',
    ],
    rows,
    headline: true,
  }
}

// ---------------------------------------------------------------------------------------
// Normalisation: createOutputCapture({ normalize: true }) on plain and ANSI-heavy output

/** A small seeded generator, so every run times the same varied text. */
function random(seed) {
  let x = seed >>> 0 || 1
  return (n) => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % n
  }
}

const WORDS = ['request', 'handled', 'cache', 'miss', 'retry', 'user', 'session', 'query', 'took', 'bytes', 'ok', 'queued']
const LEVELS = [
  ['INFO', 32],
  ['WARN', 33],
  ['DEBUG', 2],
  ['ERROR', 31],
]

const JA = ['要求を処理しました', 'キャッシュ', '接続', '再試行', 'タイムアウト', '完了', 'エラー', 'ユーザー']
const EMOJI = ['😀', '✅', '❌', '🚀', '⚠️', '📦']

/** A log line of 40–120 chars: `plain`, `mixed` (accents, Japanese, emoji) or `ansi` (coloured
 * as a terminal logger writes it). */
function logLine(pick, i, kind) {
  if (kind === 'mixed') {
    const words = Array.from({ length: 2 + pick(6) }, () => (pick(3) === 0 ? WORDS[pick(WORDS.length)] : JA[pick(JA.length)])).join(' ')
    const time = `12:${String(pick(60)).padStart(2, '0')}:${String(pick(60)).padStart(2, '0')}`
    return `${time} 情報 wörker-${pick(16)} ${words} ${EMOJI[pick(EMOJI.length)]} id=${i} status=${200 + pick(300)}\n`
  }
  const ansi = kind === 'ansi'
  const words = Array.from({ length: 3 + pick(10) }, () => WORDS[pick(WORDS.length)]).join(' ')
  const [level, colour] = LEVELS[pick(LEVELS.length)]
  const time = `12:${String(pick(60)).padStart(2, '0')}:${String(pick(60)).padStart(2, '0')}.${pick(1000)}`
  if (!ansi) return `${time} ${level.padEnd(5)} [worker-${pick(16)}] ${words} id=${i} status=${200 + pick(300)}\n`
  // Colours per field, a column jump, and now and then a progress bar redrawn with \r.
  if (pick(8) === 0) {
    return (
      Array.from({ length: 4 }, (_, k) => `\r\x1b[2K\x1b[36m[${'#'.repeat(k * 5)}${' '.repeat(20 - k * 5)}]\x1b[0m ${k * 25}%`).join('') +
      '\n'
    )
  }
  return `\x1b[2m${time}\x1b[0m \x1b[${colour}m${level.padEnd(5)}\x1b[0m [\x1b[36mworker-${pick(16)}\x1b[39m] ${words}\x1b[60G\x1b[1mid=${i}\x1b[22m status=\x1b[33m${200 + pick(300)}\x1b[39m\n`
}

/**
 * `count` distinct 64 KiB Buffers of log lines (cut at 64 KiB exactly, so they split lines
 * and escapes as pipes do): a pool cycled through, so no run times one chunk again and again.
 */
function chunkPool(kind, count, seed) {
  const pick = random(seed)
  const chunks = []
  let line = 0
  let carry = Buffer.alloc(0)
  while (chunks.length < count) {
    let text = ''
    while (text.length < CHUNK * 1.1) text += logLine(pick, line++, kind)
    let bytes = Buffer.concat([carry, Buffer.from(text)])
    while (bytes.length >= CHUNK && chunks.length < count) {
      chunks.push(bytes.subarray(0, CHUNK))
      bytes = bytes.subarray(CHUNK)
    }
    carry = bytes
  }
  return chunks
}

const captureOf = (pool, count, options) => {
  const capture = toolclamp.createOutputCapture({ ...LIMITS, ...options })
  for (let i = 0; i < count; i++) capture.write(pool[i % pool.length])
  return capture.end()
}

const wholeOf = (pool, count) => {
  const chunks = []
  for (let i = 0; i < count; i++) chunks.push(pool[i % pool.length])
  return Buffer.concat(chunks).toString()
}

export function runNormalizeCases({ quick, cliRow }) {
  const rows = []
  const sizes = quick ? [16] : [64, 256]
  const poolSize = quick ? 256 : 1024
  for (const kind of ['plain', 'ANSI-heavy']) {
    const pool = chunkPool(kind === 'plain' ? 'plain' : 'ansi', poolSize, kind === 'plain' ? 1 : 2)
    for (const mib of sizes) {
      const count = (mib * MIB) / CHUNK
      const expected = toolclamp.truncateText(wholeOf(pool, count), { ...LIMITS, normalize: true })
      assert.deepEqual(captureOf(pool, count, { normalize: true }), expected, `normalize ${kind} ${mib} MiB`)
      process.stderr.write(`timing normalize ${kind} ${mib} MiB…\n`)
      const runs = quick ? 3 : 7
      const on = timeMs(() => captureOf(pool, count, { normalize: true }), runs).ms
      const off = timeMs(() => captureOf(pool, count, {}), runs).ms
      rows.push([
        `${mib} MiB ${kind} log lines, capture`,
        millis(on),
        ((mib * MIB) / 1e6 / (on / 1000)).toFixed(0),
        millis(off),
        formatRatio(on, off),
      ])
    }
  }
  // Far cursor moves: ten bytes a line that once drew 65,536 columns each.
  const flood = Buffer.from('\x1b[65535Cx\n'.repeat(MIB / 10))
  const floodChunks = Array.from({ length: Math.ceil(flood.length / CHUNK) }, (_, i) => flood.subarray(i * CHUNK, (i + 1) * CHUNK))
  const expected = toolclamp.truncateText(flood.toString(), { ...LIMITS, normalize: true })
  assert.deepEqual(captureOf(floodChunks, floodChunks.length, { normalize: true }), expected, 'normalize far moves')
  process.stderr.write('timing normalize far moves…\n')
  const on = timeMs(() => captureOf(floodChunks, floodChunks.length, { normalize: true }), quick ? 3 : 7).ms
  const off = timeMs(() => captureOf(floodChunks, floodChunks.length, {}), quick ? 3 : 7).ms
  rows.push([
    `1 MiB of far cursor moves (\`\\x1b[65535Cx\\n\`), capture`,
    millis(on),
    (flood.length / 1e6 / (on / 1000)).toFixed(0),
    millis(off),
    formatRatio(on, off),
  ])
  if (cliRow) rows.push(cliRow)
  return {
    title: 'Terminal normalisation: the same output with and without `normalize`',
    code: '`createOutputCapture({ ..., normalize: true })` and `toolclamp --normalize`',
    about:
      'distinct 64 KiB Buffers of varied log lines, plain or coloured per field with column jumps and `\\r` progress bars; MB/s is input bytes per second with `normalize`; outputs are checked equal to `truncateText(whole, { normalize: true })`, the CLI’s to its output without `--normalize`',
    columns: ['input', 'with normalize', 'MB/s', 'without normalize', 'ratio vs without'],
    rows,
    headline: true,
  }
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

// A child process's own peak memory in MiB (VmHWM), for the scripts the benchmarks spawn:
// Linux's maxRSS of a child also counts the memory of the process it was forked from.
export const PEAK_MIB_SOURCE = `
const peakMiB = () => {
  try {
    const kib = /VmHWM:\\s+(\\d+) kB/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'));
    if (kib) return Number(kib[1]) / 1024;
  } catch {}
  return process.resourceUsage().maxRSS / 1024;
};`

// One run in a child process: prints { ms, maxRssMiB, text }. The peak is the process's own
// (VmHWM): Linux's maxRSS of a child also counts the memory of the process it was forked
// from, which here is the benchmark with its large inputs.
const RUNNER = `
const path = require('node:path');
${PEAK_MIB_SOURCE}
const { spawn } = require('node:child_process');
const toolclamp = require(path.resolve(process.argv[1], 'index.js'));
const { runCommand } = require(path.resolve(process.argv[1], 'lib/commands/run.js'));
const [, , how, mib, generator] = process.argv;
const args = ['-e', generator, mib];
const t0 = performance.now();
const done = (text) => {
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, maxRssMiB: peakMiB(), text }));
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

export function runCommandCases({ quick }) {
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
    rows.push([
      `${mib} MiB of log lines`,
      `${ms(ra).toFixed(0)} ms`,
      `${rss(ra).toFixed(0)} MiB`,
      `${ms(rb).toFixed(0)} ms`,
      `${rss(rb).toFixed(0)} MiB`,
      formatRatio(ms(ra), ms(rb)),
    ])
  }
  return {
    title: 'Running a command, against spawn with collected output',
    code: '`runCommand(command, args)`',
    about:
      'against `spawn`, every chunk kept, then `formatExecOutput`; each run is its own process (peak RSS is its own peak resident memory, the child command excluded, the start of Node included); texts are checked equal',
    columns: ['output', 'runCommand', 'peak RSS', 'spawn + collect + formatExecOutput', 'peak RSS', 'ratio vs spawn + collect'],
    rows,
    headline: true,
  }
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

/** The CLI's table, and its --normalize row for the normalisation table. */
export async function runCliCases({ quick }) {
  const table = {
    title: 'The CLI on a file, against `wc -l` on it',
    code: '`toolclamp --strategy tail --max-lines 2000 file`',
    about: 'wall time and peak RSS from `/usr/bin/time`; the output is checked to end with the file',
    columns: ['input', 'toolclamp', 'peak RSS', 'wc -l', 'ratio vs wc -l'],
    rows: [],
    headline: true,
  }
  if (!existsSync('/usr/bin/time')) return { table }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'toolclamp-bench-'))
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
    table.rows.push([
      `${mib} MiB file of log lines`,
      `${cliMs.toFixed(0)} ms`,
      `${rss.toFixed(0)} MiB`,
      `${wcMs.toFixed(0)} ms`,
      formatRatio(cliMs, wcMs),
    ])
    // The same file normalised: plain text passes the parser by.
    const normalizeArgs = [cli, '--normalize', '--strategy', 'tail', '--max-lines', '2000', file]
    const shown = timed(process.execPath, normalizeArgs)
    assert.equal(shown.stdout, first.stdout, 'plain text normalises to itself')
    const normalizeRuns = [shown, ...Array.from({ length: runs - 1 }, () => timed(process.execPath, normalizeArgs))]
    const normalizeMs = median(normalizeRuns.map((r) => r.ms))
    const normalizeRow = [
      `${mib} MiB file of log lines, CLI --normalize`,
      `${normalizeMs.toFixed(0)} ms`,
      ((mib * MIB) / 1e6 / (normalizeMs / 1000)).toFixed(0),
      `${cliMs.toFixed(0)} ms`,
      formatRatio(normalizeMs, cliMs),
    ]
    return { table, normalizeRow }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
