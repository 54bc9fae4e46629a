// Normalisation does not amplify: hostile escapes (far cursor moves above all) give text at
// most MAX_GROWTH bytes a byte plus one screen line, a normalising capture stays small and
// ends exactly as truncateText of the whole, and nothing throws. FC_RUNS sets the runs per
// property (default 1,000; each case is a few hundred KB of normalising at most).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'

import { createOutputCapture, truncateText } from '../index.mjs'
import terminal from '../lib/text/terminal.js'

// The normalisation alone, as the `normalize` option of truncateText and the command functions
// applies it (no longer a public function: see the equivalence property in terminal.test.mjs).
const { normalizeTerminalOutput } = terminal

const RUNS = Number(process.env.FC_RUNS ?? 1000)
const ROOT = fileURLToPath(new URL('..', import.meta.url))

// The bound of crates/toolclamp-core/src/terminal.rs: 4 bytes of text a byte at most (a C1
// char shown as `<U+0085>`), 8 blanks a read, and one screen line of 65,536 cells.
const MAX_GROWTH = 12
const WIDTH = 65536
const bound = (input) => MAX_GROWTH * Buffer.byteLength(input) + WIDTH

const FLOOD = '\x1b[65535Cx\n'
const CAPTURE_DEFAULTS = { strategy: 'tail', maxBytes: 51200, maxLines: 2000 }

test('a flood of far cursor moves written at once to a normalising capture stays small', () => {
  // 1.1 MB that asked for 4 GiB (65,536 columns a line, built whole) and aborted Node.
  const input = FLOOD.repeat(110_000)
  const rss = process.memoryUsage().rss
  const c = createOutputCapture({ normalize: true })
  c.write(input)
  const r = c.end()
  assert.ok(r.totalBytes <= bound(input), `${r.totalBytes} bytes`)
  assert.equal(r.totalLines, 110_000)
  // Hundreds of MB less than before; a generous bound, not a measure.
  assert.ok(process.memoryUsage().rss - rss < 256 * 2 ** 20, 'memory stays bounded')
  assert.deepEqual(r, truncateText(input, { ...CAPTURE_DEFAULTS, normalize: true }))
  // Each line after the first shows `x` 24 blanks in: what its three reads paid for.
  assert.ok(r.text.endsWith(`\n${' '.repeat(24)}x\n`))
})

test('truncateText with normalize on 82 KB of far moves returns, within its budget', () => {
  // It threw a RangeError: "the clamped text would be 537,403,400 chars".
  const input = FLOOD.repeat(8200)
  const r = truncateText(input, { maxBytes: 51200, normalize: true })
  assert.equal(r.truncated, true)
  assert.ok(r.outputBytes <= 51200)
  assert.ok(r.totalBytes <= bound(input))
  assert.equal(normalizeTerminalOutput(input).length, r.totalChars)
})

test('the CLI with --normalize reads a flood of far moves in bounded memory', () => {
  // It peaked at 886 MB on this 1.1 MB file.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-normalize-'))
  try {
    const file = path.join(dir, 'flood.log')
    fs.writeFileSync(file, FLOOD.repeat(110_000))
    const report = path.join(dir, 'rss.cjs')
    fs.writeFileSync(report, "process.on('exit', () => process.stderr.write(`maxRSS ${process.resourceUsage().maxRSS}\\n`))\n")
    const r = spawnSync(process.execPath, ['--require', report, path.join(ROOT, 'bin/toolclamp.js'), '--normalize', file], {
      encoding: 'utf8',
      maxBuffer: 16 * 2 ** 20,
    })
    assert.equal(r.status, 0, r.stderr)
    const kib = Number(r.stderr.match(/maxRSS (\d+)/)[1])
    assert.ok(kib < 256 * 1024, `peak RSS ${kib} KiB`)
    // The CLI keeps the head by default: blanks of the first line, as wide as the screen (a
    // head shown early leaves room for an interrupted notice, so it ends 27 bytes short).
    assert.ok(Buffer.byteLength(r.stdout) <= 51200 && r.stdout.startsWith(' '.repeat(1000)))
    assert.ok(r.stdout.endsWith('[... 109,999 lines, 2,874,424 bytes truncated at the end ...]\n'), r.stdout.slice(-100))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

// Hostile pieces: far moves and column jumps, controls that grow when shown (C0 as `^G`, C1
// as `<U+0085>`), escape sequences cut or left open (CSI, OSC, DCS, SOS/PM/APC), CAN and
// SUB, lone surrogates, and long runs of plain text.
const HOSTILE = [
  '\x1b[65535C',
  '\x1b[65535C',
  '\x1b[999G',
  '\x1b[9C',
  'x',
  'abc',
  ' ',
  '\n',
  '\n',
  '\r',
  '\r\n',
  '\b',
  '\t',
  '\x07',
  '\0',
  '\x85',
  '\x9b31m',
  '\x1b',
  '\x1b[',
  '\x1b[1;2',
  '\x1b[?25h',
  '\x1b[2K',
  '\x1b[1K',
  '\x1b[K',
  '\x1b[3D',
  '\x1b]0;title',
  '\x1b\\',
  '\x1bPq',
  '\x1b_',
  '\x1bX',
  '\x18',
  '\x1b[38:5:1m',
  'é',
  '°',
  '日本',
  '😀',
  '\uD83D',
  '\uDE00',
  'Ü',
]
const hostileArb = fc.array(
  fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(...HOSTILE) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 4000 }).map((n) => 'y'.repeat(n)) },
  ),
  { maxLength: 60 },
)
const optionsArb = fc.record({
  maxBytes: fc.integer({ min: 0, max: 2000 }),
  maxLines: fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 40 })),
  strategy: fc.constantFrom('tail', 'head', 'headTail'),
  normalize: fc.constantFrom(true, { ansi: false }, { carriageReturns: false }, { controls: false, backspaces: false }),
})

test('property: a normalising capture of hostile escapes ends as truncateText of the whole, within the bound', () => {
  fc.assert(
    fc.property(hostileArb, optionsArb, fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(), (pieces, options, cuts, bytes) => {
      const whole = pieces.join('')
      const at = [...new Set(cuts.map((n) => n % (whole.length + 1)))].sort((a, b) => a - b)
      const chunks = [0, ...at].map((from, i) => whole.slice(from, [...at, whole.length][i]))
      // Buffers too, split anywhere: a surrogate pair cut in two is then two U+FFFD.
      const written = bytes ? chunks.map((chunk) => Buffer.from(chunk)) : chunks
      const c = createOutputCapture(options)
      for (const chunk of written) c.write(chunk)
      const r = c.end()
      const expected = truncateText(bytes ? Buffer.concat(written).toString() : whole, options)
      assert.deepEqual(r, expected)
      assert.ok(r.totalBytes <= bound(whole), `${r.totalBytes} bytes from ${Buffer.byteLength(whole)}`)
      assert.ok(Buffer.byteLength(normalizeTerminalOutput(whole, options.normalize)) <= bound(whole))
    }),
    { numRuns: RUNS },
  )
})
