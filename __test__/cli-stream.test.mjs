// The CLI as a stream filter, with real processes: bounded memory on a 1 GiB stream, the
// same text as truncateText, `--strategy head` stopping early, bytes kept as bytes, paging,
// spill files, exit codes and `toolclamp run`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'

const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const { truncateText, readPartial } = require('../index.js')
// The CLI's captures: a head shown early leaves room for the notice of an interruption.
const { openCapture } = require('../lib/commands/capture.js')
const { SPILL_NOTICE } = require('../lib/common/notices.js')
const createCliCapture = (options) => openCapture(options, SPILL_NOTICE, undefined, true)

const CLI = path.join(repoRoot, 'bin', 'toolclamp.js')
const GiB = 1024 ** 3
const MiB = 1024 ** 2
const IS_LINUX = process.platform === 'linux'
// How much more memory a 1 GiB stream may take than a short one, at its peak: the budgets'
// worth and the reads, not the input. Measured against a short stream of the same command,
// so what Node, the runtime and the libc take to start (more on musl, WebAssembly or under
// emulation) is not counted.
const PEAK_GROWTH = 24 * MiB

const scratch = mkdtempSync(path.join(tmpdir(), 'toolclamp-cli-stream-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))

function runCli(args, input, options = {}) {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: repoRoot, input: input ?? '', maxBuffer: 64 * MiB, ...options })
  return {
    status: result.status,
    stdoutBytes: result.stdout,
    stdout: result.stdout.toString('utf8'),
    stderr: result.stderr.toString('utf8'),
  }
}

const BYTES_PER_TOKEN = 3
const TOTALS = /\{(omitted|total|tailStart|toLine|spillPath)/

/**
 * What the CLI prints for `text` with truncateText `options` (those the CLI passes: a line
 * budget alone comes with the default byte budget):
 * - text within the budgets, as it is;
 * - `tail`, `headTail`: truncateText's text, with a newline after it when the input ends with
 *   one that was not kept and it fits;
 * - `head`: the text of a capture with one byte and one char of the budgets kept back for a
 *   newline, ended with one. The head is printed before the end, so with a notice naming
 *   totals it is the capture's settled head (room for 16-digit totals and for the words an
 *   interrupted notice adds: a few bytes less);
 *   with any other notice, truncateText's.
 */
function expectedOutput(text, given) {
  const options = { ...given }
  if (options.maxChars === undefined && options.maxBytes === undefined && options.maxTokens === undefined) options.maxBytes = 51_200
  const result = truncateText(text, options)
  // (With normalize, the text as normalised.)
  if (!result.truncated) return result.text
  const bytes = Math.min(options.maxBytes ?? Infinity, (options.maxTokens ?? Infinity) * BYTES_PER_TOKEN)
  const chars = options.maxChars ?? Infinity
  const endLine = (out) => (out !== '' && !out.endsWith('\n') ? `${out}\n` : out)
  if ((options.strategy ?? 'head') !== 'head') {
    const fits = result.outputBytes < bytes && result.outputChars < chars
    return text.endsWith('\n') && fits ? endLine(result.text) : result.text
  }
  const less = { ...options }
  if (bytes > 0 && bytes < Infinity) {
    delete less.maxTokens
    less.maxBytes = bytes - 1
  }
  if (chars > 0 && chars < Infinity) less.maxChars = chars - 1
  if (options.notice !== undefined && !TOTALS.test(options.notice.replace(/\{\{/g, ''))) return endLine(truncateText(text, less).text)
  const capture = createCliCapture({ ...less, strategy: 'head' })
  capture.write(text)
  capture.settledHead()
  return endLine(capture.end().text)
}

// A node process writing `lines` copies of LINE to stdout as fast as the pipe takes them,
// in writes of about 64 KiB (so the reader's chunks split lines and characters anywhere).
const LINE = 'build step 0042 ✓ héllo wörld 日本語 😀 done\n'
const GENERATOR = `
const line = ${JSON.stringify(LINE)}
const perWrite = Math.floor(65536 / Buffer.byteLength(line))
let left = Number(process.argv[1])
// A CLI that exits before the end closes the pipe: the generator stops, quietly.
process.stdout.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error
  process.exit(0)
})
const block = Buffer.from(line.repeat(perWrite))
function pump() {
  while (left > 0) {
    const n = Math.min(left, perWrite)
    left -= n
    const ok = process.stdout.write(n === perWrite ? block : Buffer.from(line.repeat(n)))
    if (!ok) return process.stdout.once('drain', pump)
  }
  process.stdout.end()
}
pump()
`

// Peak RSS of a process: GNU time's report where it is installed, else the kernel's VmHWM
// read by a module loaded before the CLI (Linux), else not measured.
const GNU_TIME = '/usr/bin/time'
const HWM_PRELOAD = `data:text/javascript,${encodeURIComponent(
  `import fs from 'node:fs'; process.on('exit', () => { const kb = /VmHWM:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]; fs.writeSync(2, 'peak-rss-kb: ' + kb + '\\n') })`,
)}`

/** Runs the CLI on `lines` generated lines piped in; resolves to its output, status and peak RSS. */
function runOnGenerated(lines, args) {
  const haveTime = IS_LINUX && existsSync(GNU_TIME)
  const [command, commandArgs] = haveTime
    ? [GNU_TIME, ['-f', 'peak-rss-kb: %M', process.execPath, CLI, ...args]]
    : [process.execPath, [...(IS_LINUX ? ['--import', HWM_PRELOAD] : []), CLI, ...args]]
  return new Promise((resolve, reject) => {
    const generator = spawn(process.execPath, ['-e', GENERATOR, String(lines)], { stdio: ['ignore', 'pipe', 'inherit'] })
    const cli = spawn(command, commandArgs, { cwd: repoRoot, stdio: [generator.stdout, 'pipe', 'pipe'] })
    // The CLI holds the pipe now: when it exits before the end, the generator must see EPIPE,
    // not block on a reader that this process would otherwise still be.
    generator.stdout.destroy()
    const out = []
    let err = ''
    cli.stdout.on('data', (chunk) => out.push(chunk))
    cli.stderr.on('data', (chunk) => (err += chunk))
    cli.on('error', reject)
    cli.on('close', (status) => {
      generator.kill()
      const match = /peak-rss-kb: (\d+)\n/.exec(err)
      resolve({
        status,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: err.replace(/^peak-rss-kb: \d+\n/m, ''),
        peakRss: match === null ? undefined : Number(match[1]) * 1024,
      })
    })
  })
}

test('a 1 GiB stream is clamped in bounded memory (at most 24 MiB more than a short one at its peak), with exact totals', async (t) => {
  const lineBytes = Buffer.byteLength(LINE)
  const lines = Math.ceil(GiB / lineBytes)
  const cases = [
    // The default notice needs the totals: everything is read. --json gives them.
    { args: ['--json', '--max-lines', '100'], json: true },
    {
      args: ['--strategy', 'tail', '--max-bytes', '8KiB', '--notice', '[cut]'],
      options: { strategy: 'tail', maxBytes: 8192, notice: '[cut]' },
    },
    {
      args: ['--strategy', 'head-tail', '-n', '40', '--notice', '[cut]'],
      options: { strategy: 'headTail', maxLines: 40, notice: '[cut]' },
    },
  ]
  // Elsewhere (no peak RSS to check) the totals are enough.
  for (const { args, json, options } of IS_LINUX ? cases : cases.slice(0, 1)) {
    const result = await runOnGenerated(lines, args)
    const label = args.join(' ')
    assert.equal(result.stderr, '', label)
    assert.equal(result.status, 0, label)
    if (result.peakRss !== undefined) {
      const short = await runOnGenerated(5000, args)
      const growth = result.peakRss - short.peakRss
      const peaks = `peak RSS ${(result.peakRss / MiB).toFixed(1)} MiB, ${(short.peakRss / MiB).toFixed(1)} MiB for 5,000 lines`
      t.diagnostic(`${label}: ${peaks}`)
      assert.ok(growth <= PEAK_GROWTH, `${label}: ${peaks}`)
    }
    if (json) {
      const info = JSON.parse(result.stdout)
      assert.equal(info.totalBytes, lines * lineBytes)
      assert.equal(info.totalLines, lines)
      assert.equal(info.totalChars, lines * LINE.length)
      assert.equal(info.omittedLines, lines - 99)
      // A line budget alone comes with the default byte budget (51,200), which counts too.
      const omitted = `${(lines - 99).toLocaleString('en-US')} lines, ${((lines - 99) * lineBytes).toLocaleString('en-US')} bytes`
      assert.equal(info.text, `${LINE.repeat(99)}[... ${omitted} truncated at the end ...]`)
    } else {
      // With a notice that names no count, what is kept of either end does not depend on
      // how much lies between: a short input with the same ends gives the same text.
      assert.equal(result.stdout, expectedOutput(LINE.repeat(5000), options), label)
    }
  }
})

// Text made of lines of mixed scripts, emoji (surrogate pairs), \r\n, and sometimes long
// enough (repeated) to cross the 64 KiB reads.
const pieces = ['a', 'Z', ' ', '9', 'é', 'ß', '日本', '😀', '✓', '\t', '\r\n', '\n', '\n', '\n', '{', '}', '\r', '\x1b[31m', '\b']
const textArb = fc
  .tuple(fc.array(fc.constantFrom(...pieces), { maxLength: 80, size: 'max' }), fc.constantFrom(1, 1, 1, 30, 3000))
  .map(([parts, repeat]) => parts.join('').repeat(repeat))
const optionsArb = fc.record(
  {
    maxChars: fc.integer({ min: 0, max: 3000 }),
    maxBytes: fc.integer({ min: 0, max: 3000 }),
    maxLines: fc.integer({ min: 0, max: 60 }),
    maxTokens: fc.integer({ min: 0, max: 1000 }),
    strategy: fc.constantFrom('head', 'tail', 'head-tail'),
    headRatio: fc.constantFrom(0, 0.3, 0.5, 1),
    notice: fc.constantFrom('', '[cut]', '[{omitted} of {totalLines} lines, {where}]', '{{{where}}} from {fromLine} at {headEnd}'),
    text: fc.boolean(),
    normalize: fc.boolean(),
    file: fc.boolean(),
  },
  { requiredKeys: ['strategy', 'text', 'file'] },
)

test('prints what truncateText gives for the whole input (random inputs and options)', () => {
  let n = 0
  fc.assert(
    fc.property(textArb, optionsArb, (text, given) => {
      const args = []
      const options = { strategy: { head: 'head', tail: 'tail', 'head-tail': 'headTail' }[given.strategy] }
      for (const [key, flag] of [
        ['maxChars', '--max-chars'],
        ['maxBytes', '--max-bytes'],
        ['maxLines', '--max-lines'],
        ['maxTokens', '--max-tokens'],
      ]) {
        if (given[key] !== undefined) {
          args.push(flag, String(given[key]))
          options[key] = given[key]
        }
      }
      if (Object.keys(options).length === 1) Object.assign(options, { maxBytes: 51200, maxLines: 2000 })
      args.push('--strategy', given.strategy)
      if (given.strategy === 'head-tail' && given.headRatio !== undefined) {
        args.push('--head-ratio', String(given.headRatio))
        options.headRatio = given.headRatio
      }
      if (given.notice !== undefined) {
        args.push(`--notice=${given.notice}`)
        options.notice = given.notice
      }
      if (given.text) args.push('--text')
      if (given.normalize) {
        args.push('--normalize')
        options.normalize = true
      }
      let input = text
      if (given.file) {
        const file = path.join(scratch, `differential-${n++}.txt`)
        writeFileSync(file, text)
        args.push(file)
        input = ''
      }
      const result = runCli(args, input)
      assert.equal(result.stderr, '', args.join(' '))
      assert.equal(result.status, 0)
      assert.deepEqual(result.stdoutBytes, Buffer.from(expectedOutput(text, options)), args.join(' '))
    }),
    { numRuns: 80 },
  )
})

/** `yes | toolclamp ...args`, with `yes` in node so that it runs everywhere. */
function yesInto(args) {
  return new Promise((resolve) => {
    const yes = spawn(
      process.execPath,
      [
        '-e',
        "process.stdout.on('error', () => process.exit(0)); const b = Buffer.from('y\\n'.repeat(32768)); const w = () => process.stdout.write(b, w); w()",
      ],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    )
    const cli = spawn(process.execPath, [CLI, ...args], { stdio: [yes.stdout, 'pipe', 'pipe'] })
    yes.stdout.destroy()
    let out = ''
    let err = ''
    cli.stdout.on('data', (chunk) => (out += chunk))
    cli.stderr.on('data', (chunk) => (err += chunk))
    cli.on('close', (status) => {
      yes.kill()
      resolve({ status, out, err })
    })
  })
}

test('--strategy head on endless input: prints the head and exits at once when the notice names no count', async () => {
  const started = Date.now()
  const result = await yesInto(['--max-lines', '10', '--strategy', 'head', '--notice', '[more]'])
  assert.ok(Date.now() - started < 10_000, 'exits promptly')
  assert.equal(result.err, '')
  assert.equal(result.status, 0)
  assert.equal(result.out, `${'y\n'.repeat(9)}[more]\n`)
  assert.equal(result.out, expectedOutput('y\n'.repeat(100), { maxLines: 10, notice: '[more]' }))

  // With `--notice ''` the output is the head alone.
  const silent = await yesInto(['-n', '3', '--notice', ''])
  assert.equal(silent.status, 0)
  assert.equal(silent.out, 'y\ny\ny\n')
})

test('--strategy head with the default notice prints the head at once and the notice at the end', async () => {
  const cli = spawn(process.execPath, [CLI, '--max-lines', '5'], { stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  cli.stdout.on('data', (chunk) => (out += chunk))
  const exited = new Promise((resolve) => cli.on('close', resolve))
  const firstPart = Array.from({ length: 20_000 }, (_, i) => `${i + 1}\n`).join('')
  cli.stdin.write(firstPart)
  // The head is printed while the input is still open.
  const deadline = Date.now() + 10_000
  while (!out.includes('\n') || out.split('\n').length < 5) {
    assert.ok(Date.now() < deadline, `the head comes before the end of the input; got ${JSON.stringify(out)}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  assert.equal(out, '1\n2\n3\n4\n')
  cli.stdin.end('last\n')
  assert.equal(await exited, 0)
  const whole = `${firstPart}last\n`
  assert.equal(out, expectedOutput(whole, { maxLines: 5 }))
  assert.ok(out.endsWith(' truncated at the end ...]\n'), out)
})

test('the output ends with a newline when the input does, and after a notice at the end; within the budgets', () => {
  const numbers = Array.from({ length: 100 }, (_, i) => i + 1).join('\n')
  for (const strategy of ['tail', 'head-tail']) {
    assert.ok(runCli(['-n', '5', '--strategy', strategy], `${numbers}\n`).stdout.endsWith('\n'), strategy)
    assert.ok(!runCli(['-n', '5', '--strategy', strategy], numbers).stdout.endsWith('\n'), strategy)
  }
  // head: the notice is the last line, whatever the input's end.
  for (const input of [numbers, `${numbers}\n`]) {
    assert.equal(runCli(['-n', '5'], input).stdout, '1\n2\n3\n4\n[... 96 lines truncated at the end ...]\n')
  }
  // The newline is within the budgets: one byte and one char are kept back for it.
  for (const [flag, key] of [
    ['--max-bytes', 'maxBytes'],
    ['--max-chars', 'maxChars'],
  ]) {
    for (const budget of [98, 99, 100, 101]) {
      const out = runCli([flag, String(budget), '--notice', '[cut]'], `${numbers}\n`).stdout
      assert.ok(out.length <= budget, `${flag} ${budget}`)
      assert.ok(out.endsWith('\n[cut]\n'), out)
      assert.equal(out, `${truncateText(`${numbers}\n`, { [key]: budget - 1, notice: '[cut]' }).text}\n`)
    }
    const withTotals = runCli([flag, '100'], `${numbers}\n`).stdout
    assert.ok(withTotals.length <= 100, flag)
    assert.ok(withTotals.endsWith(' truncated at the end ...]\n'), withTotals)
  }
  // Input within the budgets comes back as it is, also when it fills them exactly.
  assert.equal(runCli(['--max-bytes', '10'], '123456789\n').stdout, '123456789\n')
  assert.equal(runCli(['--max-chars', '9'], '123456789').stdout, '123456789')
  assert.equal(runCli(['-n', '5'], '').stdout, '')
})

test('bytes are kept as they came: invalid UTF-8 stays, unless --text', () => {
  const invalid = Buffer.from([0xff, 0xfe, 0x80, 0xc3]) // none of these starts a valid sequence here
  const input = Buffer.concat([
    Buffer.from('head '),
    invalid,
    Buffer.from('\n'),
    Buffer.from('middle line\n'.repeat(5000)),
    Buffer.from('tail '),
    invalid,
    Buffer.from('\n'),
  ])
  const replacement = Buffer.from('\uFFFD')

  const head = runCli(['--max-bytes', '100'], input)
  assert.equal(head.status, 0)
  assert.deepEqual(head.stdoutBytes.subarray(0, 10), input.subarray(0, 10))
  assert.equal(head.stdoutBytes.indexOf(replacement), -1)

  const tail = runCli(['--max-bytes', '100', '--strategy', 'tail'], input)
  assert.equal(tail.status, 0)
  assert.deepEqual(tail.stdoutBytes.subarray(-10), input.subarray(-10))
  assert.equal(tail.stdoutBytes.indexOf(replacement), -1)

  // Across the 64 KiB reads too.
  const big = Buffer.concat([Buffer.from('x'.repeat(65535)), invalid, Buffer.from('y'.repeat(100_000)), invalid])
  const bothEnds = runCli(['--max-bytes', '64KiB', '--strategy', 'head-tail'], big)
  assert.deepEqual(bothEnds.stdoutBytes.subarray(-4), invalid)
  assert.equal(bothEnds.stdoutBytes.indexOf(replacement), -1)

  // Within the budgets: the very bytes.
  assert.deepEqual(runCli(['--max-bytes', '1MiB'], input).stdoutBytes, input)

  const text = runCli(['--max-bytes', '100', '--text'], input)
  assert.equal(text.status, 0)
  assert.ok(text.stdout.startsWith('head \uFFFD'), text.stdout)
  assert.equal(text.stdout, expectedOutput(input.toString('utf8'), { maxBytes: 100 }))
})

/**
 * Starts the CLI with `args`, writes `input` to it and leaves its standard input open (an
 * idle writer, as `tail -f` is), waits until it has read it all, sends `signal`, and
 * resolves with what it printed and how it exited.
 */
async function interruptCli(args, input, signal) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] })
  const out = []
  let stderr = ''
  child.stdout.on('data', (chunk) => out.push(chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  child.stdin.on('error', () => {})
  // More than a socket holds: once it drains, the CLI is in its read loop.
  if (!child.stdin.write(input)) await once(child.stdin, 'drain')
  child.kill(signal)
  const [code, killedBy] = await once(child, 'exit')
  child.stdin.destroy()
  return { code, killedBy, stdout: Buffer.concat(out).toString('utf8'), stderr }
}

test('interrupted by SIGINT, SIGTERM or SIGHUP, a cut output still ends with its notice, counts so far', async () => {
  const lines = Array.from({ length: 60_000 }, (_, i) => `line ${i} ${'x'.repeat(30)}\n`).join('')
  const total = Buffer.byteLength(lines)
  const cases = [
    {
      args: [],
      signal: 'SIGINT',
      code: 130,
      notice: /[\n ]\[\.\.\. [\d,]+ lines, [\d,]+ bytes truncated at the end so far \(input interrupted\) \.\.\.\]\n$/,
    },
    {
      args: ['--tail', '-c', '4k'],
      signal: 'SIGTERM',
      code: 143,
      notice: /^\[\.\.\. [\d,]+ bytes truncated at the start so far \(input interrupted\) \.\.\.\]\n/,
    },
    {
      args: ['--head-tail', '-n', '10'],
      signal: 'SIGHUP',
      code: 129,
      notice: /[\n ]\[\.\.\. [\d,]+ lines, [\d,]+ bytes truncated in the middle so far \(input interrupted\) \.\.\.\]\n/,
    },
    {
      args: ['-n', '3', '--notice', '[cut {omittedLines}]'],
      signal: 'SIGINT',
      code: 130,
      notice: /\n\[cut [\d,]+\] \(input interrupted; counts so far\)\n$/,
    },
  ]
  for (const { args, signal, code, notice } of cases) {
    const result = await interruptCli(args, lines, signal)
    const label = `${args.join(' ')} ${signal}`
    assert.equal(result.code, code, label)
    assert.equal(result.stderr, '', label)
    assert.match(result.stdout, notice, label)
    // Within the budgets, which count the notice's words too.
    const bytes = Number((args.includes('-c') && 4096) || 51_200)
    assert.ok(Buffer.byteLength(result.stdout) <= bytes, label)
    const lineBudget = args.includes('-n') ? Number(args[args.indexOf('-n') + 1]) : 2000
    assert.ok(result.stdout.split('\n').length - 1 <= lineBudget, label)
    // The counts are of what was read, never more than was written.
    const omitted = /([\d,]+) bytes/.exec(result.stdout)
    if (omitted !== null) assert.ok(Number(omitted[1].replaceAll(',', '')) < total, label)
  }
  // Nothing cut: what came, as it came, and no notice.
  const few = await interruptCli(['-n', '100000', '-c', '10M'], lines, 'SIGINT')
  assert.equal(few.code, 130)
  assert.ok(lines.startsWith(few.stdout) && few.stdout.length > 0)
  // --json: the result of what came.
  const json = await interruptCli(['--json', '-n', '3'], lines, 'SIGTERM')
  assert.equal(json.code, 143)
  const info = JSON.parse(json.stdout)
  assert.equal(info.truncated, true)
  assert.ok(info.totalBytes > 0 && info.totalBytes <= total)
  assert.match(info.text, /so far \(input interrupted\)/)
})

test('exit codes: 1 for an input that cannot be read, 2 for usage errors', () => {
  const missing = runCli(['no-such-file.log'])
  assert.equal(missing.status, 1)
  assert.equal(missing.stderr, 'toolclamp: cannot read "no-such-file.log": no such file\n')
  const directory = runCli([scratch])
  assert.equal(directory.status, 1)
  assert.equal(directory.stderr, `toolclamp: cannot read ${JSON.stringify(scratch)}: is a directory\n`)

  if (process.getuid?.() !== 0 && process.platform !== 'win32') {
    const locked = path.join(scratch, 'locked.txt')
    writeFileSync(locked, 'secret\n', { mode: 0o000 })
    const denied = runCli([locked])
    assert.equal(denied.status, 1)
    assert.equal(denied.stderr, `toolclamp: cannot read ${JSON.stringify(locked)}: permission denied\n`)
  }

  for (const args of [
    ['--notice'],
    ['--notice', '{nope}'],
    ['--spill-dir='],
    ['--offset', '0'],
    ['--offset', 'x'],
    ['--column', '-1'],
    ['--offset', '2', '--strategy', 'tail'],
    ['--offset', '2', '--max-chars', '10'],
    ['--column', '2', '--notice', 'x'],
    ['--timeout', '5'],
    ['run'],
    ['run', '--timeout', 'soon', 'true'],
    ['run', '--text', 'true'],
    ['run', '--head-ratio', '0.5', 'true'],
  ]) {
    const result = runCli(args, 'some input\n')
    assert.equal(result.status, 2, `${JSON.stringify(args)}: ${result.stderr}`)
    assert.equal(result.stdout, '')
    assert.match(result.stderr, /^toolclamp: [^\n]+\n$/)
  }
})

test('"did you mean" for mistyped flags', () => {
  const cases = [
    [['--max-byte', '3'], 'unknown option "--max-byte"; did you mean --max-bytes?'],
    [['--stratgey', 'tail'], 'unknown option "--stratgey"; did you mean --strategy?'],
    [['--spill-dri', 'x'], 'unknown option "--spill-dri"; did you mean --spill-dir?'],
    [['--ofset', '3'], 'unknown option "--ofset"; did you mean --offset?'],
    [['--MAX_LINES', '3'], 'unknown option "--MAX_LINES"; did you mean --max-lines?'],
    [['--jsno'], 'unknown option "--jsno"; did you mean --json?'],
    [['run', '--timout', '3', 'true'], 'unknown option "--timout"; did you mean --timeout?'],
    [['--colour'], 'unknown option "--colour" (see --help)'],
    [['--max'], 'unknown option "--max" (see --help)'],
  ]
  for (const [args, message] of cases) {
    const result = runCli(args)
    assert.equal(result.stderr, `toolclamp: ${message}\n`, JSON.stringify(args))
    assert.equal(result.status, 2)
  }
})

test('--json reports the totals of a streamed input', () => {
  const input = `${'ünïcödé line\n'.repeat(10_000)}end`
  const result = runCli(['--json', '--strategy', 'tail', '-n', '3'], input)
  assert.equal(result.status, 0)
  const info = JSON.parse(result.stdout)
  const expected = truncateText(input, { strategy: 'tail', maxLines: 3, maxBytes: 51_200 })
  assert.deepEqual(Object.fromEntries(Object.entries(info).filter(([key]) => key in expected)), JSON.parse(JSON.stringify(expected)))
  assert.equal(info.totalLines, 10_001)
  assert.equal(info.totalBytes, Buffer.byteLength(input))
})

test('--spill-dir saves the whole input to a new 0600 file that the notice names', () => {
  const dir = path.join(scratch, 'spills')
  const input = Buffer.concat([Buffer.from('line\n'.repeat(30_000)), Buffer.from([0xff, 0x0a])])
  const result = runCli(['--spill-dir', dir, '-n', '10'], input)
  assert.equal(result.stderr, '')
  assert.equal(result.status, 0)
  const files = readdirSync(dir)
  assert.equal(files.length, 1)
  const spilled = path.join(dir, files[0])
  assert.match(files[0], /^stdin-.*\.toolclamp-spill\.txt$/)
  assert.ok(result.stdout.includes(spilled), result.stdout)
  if (process.platform !== 'win32') assert.equal(statSync(spilled).mode & 0o777, 0o600)
  assert.equal(readFileSync(spilled).length, input.length)

  // Within the budgets nothing is written; a file's spill is named after it.
  assert.equal(runCli(['--spill-dir', dir, '-n', '10'], 'short\n').stdout, 'short\n')
  const file = path.join(scratch, 'build.log')
  writeFileSync(file, 'x\n'.repeat(100))
  const fromFile = runCli(['--spill-dir', dir, '-n', '10', file])
  assert.equal(fromFile.status, 0)
  assert.equal(readdirSync(dir).length, 2)
  assert.ok(readdirSync(dir).some((name) => name.startsWith('build.log-')))
})

test('--offset and --column page through the input as readPartial does', () => {
  const input = `${Array.from({ length: 300 }, (_, i) => `line ${i + 1} ${'é'.repeat(i % 7)}`).join('\n')}\n${'z'.repeat(5000)}\n`
  const file = path.join(scratch, 'paged.txt')
  writeFileSync(file, input)
  let offset = 1
  let column = 0
  let pages = ''
  let count = 0
  for (;;) {
    const args = ['-n', '50', '-c', '1000', '--offset', String(offset), '--column', String(column)]
    const fromFile = runCli([...args, file])
    const view = readPartial(input, { maxLines: 50, maxBytes: 1000, offset, column })
    assert.equal(fromFile.status, 0, fromFile.stderr)
    assert.equal(fromFile.stdout, view.text)
    if (count === 0) assert.equal(runCli(args, input).stdout, view.text, 'stdin pages alike')
    pages += view.page
    count++
    if (view.nextOffset === null) break
    ;({ nextOffset: offset, nextColumn: column } = view)
  }
  assert.equal(pages, input)
  assert.ok(count > 8)

  const json = JSON.parse(runCli(['--offset', '100', '--json', file]).stdout)
  assert.equal(json.firstLine, 100)
  assert.equal(json.totalLines, 301)

  // A line the input does not have is an argument error, as readPartial says.
  const beyond = runCli(['--offset', '1000', file])
  assert.equal(beyond.status, 2)
  assert.equal(beyond.stderr, 'toolclamp: offset must be a line number from 1 to 301, got 1000\n')
})

test('paging refuses more than 256 MiB of input rather than holding it all', async () => {
  // A file says its size: refused before it is read (a sparse file: no disk needed).
  const sparse = path.join(scratch, 'sparse.log')
  writeFileSync(sparse, '')
  truncateSync(sparse, 300 * MiB)
  const fromFile = runCli(['--offset', '2', sparse])
  assert.equal(fromFile.status, 1)
  assert.equal(
    fromFile.stderr,
    `toolclamp: paging holds the whole input in memory, at most 256 MiB; ${JSON.stringify(sparse)} is larger: clamp it without --offset instead\n`,
  )
  rmSync(sparse)

  // A pipe is read up to the limit.
  const lines = Math.ceil((257 * MiB) / Buffer.byteLength(LINE))
  const result = await runOnGenerated(lines, ['--offset', '2'])
  assert.equal(result.status, 1)
  assert.equal(result.stdout, '')
  assert.match(result.stderr, /^toolclamp: paging holds the whole input in memory, at most 256 MiB; standard input is larger/)
})

test('a reader that stops early is not an error', async () => {
  // `toolclamp --max-bytes 8MiB | head -c 10`
  const cli = spawn(process.execPath, [CLI, '--max-bytes', '8MiB'], { stdio: ['pipe', 'pipe', 'pipe'] })
  let err = ''
  cli.stderr.on('data', (chunk) => (err += chunk))
  cli.stdin.on('error', () => {})
  cli.stdin.end('word '.repeat(2_000_000))
  const [first] = await once(cli.stdout, 'data')
  cli.stdout.destroy()
  const [status] = await once(cli, 'close')
  assert.equal(first.subarray(0, 10).toString(), 'word word ')
  assert.equal(status, 0)
  assert.equal(err, '')
})

test('run: prints what formatExecOutput shows for the command and exits with its code', () => {
  const script = "process.stdout.write('out\\n'.repeat(100)); process.stderr.write('bad thing\\n'); process.exitCode = 3"
  const result = runCli(['run', '-n', '5', '--', process.execPath, '-e', script])
  assert.equal(result.stderr, '')
  assert.equal(result.status, 3)
  assert.match(
    result.stdout,
    /^<stdout>\n\[\.\.\. 96 lines truncated from stdout \.\.\.\]\n(out\n){4}<\/stdout>\n<stderr>\nbad thing\n<\/stderr>\nexit code: 3, duration: [\d,]+ ms\n$/,
  )

  // Options end at the command: its own flags are its own; no `--` needed.
  const flags = runCli(['run', process.execPath, '-e', 'console.log(process.argv.slice(1).join(" "))', '--', '-n', '3'])
  assert.equal(flags.status, 0)
  assert.match(flags.stdout, /^<stdout>\n-n 3\n<\/stdout>/)

  const json = JSON.parse(runCli(['run', '--json', '--', process.execPath, '-e', 'process.exit(4)']).stdout)
  assert.equal(json.exitCode, 4)
  assert.equal(json.timedOut, false)
  assert.match(json.text, /exit code: 4/)

  const missing = runCli(['run', 'toolclamp-no-such-command'])
  assert.equal(missing.status, 1)
  assert.match(missing.stdout, /error: command not found/)

  const slow = runCli(['run', '--timeout', '300ms', '--', process.execPath, '-e', 'setTimeout(() => {}, 60_000)'])
  assert.equal(slow.status, 1)
  assert.match(slow.stdout, /error: timed out after 300 ms/)

  if (process.platform !== 'win32') {
    const signalled = runCli(['run', '--', process.execPath, '-e', "process.kill(process.pid, 'SIGKILL')"])
    assert.equal(signalled.status, 1)
    assert.match(signalled.stdout, /signal: SIGKILL/)
  }
})

test('run: --normalize, --strategy and --spill-dir reach runCommand', () => {
  const progress = runCli([
    'run',
    '--normalize',
    '--',
    process.execPath,
    '-e',
    "process.stdout.write('\\x1b[32mok\\x1b[0m\\n10%\\r55%\\r100%\\n')",
  ])
  assert.match(progress.stdout, /^<stdout>\nok\n100%\n<\/stdout>/)

  const head = runCli(['run', '--strategy', 'head', '-n', '3', '--', process.execPath, '-e', "console.log('a\\nb\\nc\\nd\\ne')"])
  assert.match(head.stdout, /^<stdout>\na\nb\n\[\.\.\. 3 lines truncated from stdout \.\.\.\]\n<\/stdout>/)

  const dir = path.join(scratch, 'run-spills')
  const spilled = runCli(['run', '--spill-dir', dir, '-n', '3', '--', process.execPath, '-e', "console.log('x\\n'.repeat(50))"])
  assert.equal(spilled.status, 0)
  const files = readdirSync(dir)
  assert.equal(files.length, 1)
  assert.match(files[0], /-stdout-/)
  assert.ok(spilled.stdout.includes(path.join(dir, files[0])))
})
