// runCommand with real commands: the same text as spawning, collecting and formatExecOutput;
// a GiB of output in bounded memory; timeouts and aborts that kill the whole process group;
// spawn errors as results; stdin; terminal normalisation; throttled onUpdate; options
// checked at the call.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { execFile, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { waitUntilDead } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { runCommand } = require('../lib/commands/run.js')
const { formatExecOutput } = require('../lib/commands/exec.js')

const NODE = process.execPath
const POSIX = process.platform !== 'win32'
const RUN_JS = require.resolve('../lib/commands/run.js')

let tmp
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-run-'))
})
after(() => {
  fs.rmSync(tmp, { recursive: true, force: true })
})

/** Runs `node -e script` the old way: spawn, collect both streams whole. */
function collect(command, args, { input } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
    const chunks = { stdout: [], stderr: [] }
    child.stdout.on('data', (c) => chunks.stdout.push(c))
    child.stderr.on('data', (c) => chunks.stderr.push(c))
    if (input !== undefined) child.stdin.end(input)
    child.on('close', (exitCode, signal) =>
      resolve({ stdout: Buffer.concat(chunks.stdout), stderr: Buffer.concat(chunks.stderr), exitCode, signal }),
    )
  })
}

const lines = (text) => text.split('\n')

describe('the same text as spawn, collect and formatExecOutput', () => {
  // Mixed UTF-8 on both streams, split across writes anywhere.
  const MIXED = `
    const out = Array.from({ length: 3000 }, (_, i) => 'line ' + i + ' héllo 日本 😀\\n').join('')
    const bytes = Buffer.from(out)
    for (let at = 0; at < bytes.length; at += 997) process.stdout.write(bytes.subarray(at, at + 997))
    process.stderr.write('warn: é\\n'.repeat(500) + 'fatal: no newline at the end')
    process.exitCode = 3
  `
  const PROGRESS = `
    for (let p = 0; p <= 100; p += 5) process.stdout.write('\\x1b[32mfetch\\x1b[0m ' + p + '%\\r')
    process.stdout.write('\\ndone\\n')
    process.stderr.write('\\x1b[31merror\\x1b[0m\\n')
  `
  const cases = [
    ['echo', NODE, ['-e', 'console.log("hello")'], undefined],
    ['nothing at all', NODE, ['-e', ''], undefined],
    ['no final newline', NODE, ['-e', 'process.stdout.write("a\\nb")'], undefined],
    ['mixed UTF-8, defaults', NODE, ['-e', MIXED], undefined],
    ['mixed UTF-8, small budgets', NODE, ['-e', MIXED], { stdout: 500, stderr: { maxLines: 3 } }],
    ['head', NODE, ['-e', MIXED], { strategy: 'head', stdout: { maxBytes: 1000 } }],
    ['headTail, no snap', NODE, ['-e', MIXED], { strategy: 'headTail', headRatio: 0.3, snap: 'none', stdout: 777 }],
    ['a notice template', NODE, ['-e', MIXED], { notice: '<{omitted} cut from {stream}>', stderr: 100 }],
    ['a notice function', NODE, ['-e', MIXED], { notice: (f) => `${f.stream}: -${f.omittedLines} lines`, stdout: 300 }],
    ['tokens', NODE, ['-e', MIXED], { stdout: { maxTokens: 100 } }],
    ['normalize', NODE, ['-e', PROGRESS], { normalize: true }],
    ['normalize, ANSI only', NODE, ['-e', PROGRESS], { normalize: { carriageReturns: false } }],
    ['killed by a signal', NODE, ['-e', 'console.log("bye"); process.kill(process.pid, "SIGKILL")'], undefined],
  ]
  for (const [name, command, args, options] of cases) {
    test(name, async () => {
      const ran = await runCommand(command, args, options)
      const collected = await collect(command, args)
      const expected = formatExecOutput({ ...collected, durationMs: ran.durationMs }, options)
      assert.equal(ran.text, expected.text)
      assert.equal(ran.exitCode, collected.exitCode)
      assert.equal(ran.signal, collected.signal)
      for (const stream of ['stdout', 'stderr']) {
        assert.equal(ran[stream], expected[stream].text, stream)
        for (const key of ['truncated', 'totalChars', 'totalBytes', 'totalLines', 'omittedChars', 'omittedBytes', 'omittedLines']) {
          assert.equal(ran.streams[stream][key], expected[stream][key], `${stream}.${key}`)
        }
      }
      assert.equal(ran.timedOut, false)
      assert.equal(ran.aborted, false)
      assert.deepEqual(ran.spill, { stdout: null, stderr: null })
    })
  }

  test('spill: the same text but for the files named, and the same files', async () => {
    const dir = path.join(tmp, 'spill-differential')
    const options = { stdout: 500, stderr: 200, spill: { dir, name: 'build' } }
    const ran = await runCommand(NODE, ['-e', MIXED], options)
    const collected = await collect(NODE, ['-e', MIXED])
    const expected = formatExecOutput({ ...collected, durationMs: ran.durationMs }, options)
    const files = { stdout: expected.stdout.spill.path, stderr: expected.stderr.spill.path }
    let text = ran.text
    for (const stream of ['stdout', 'stderr']) {
      assert.match(path.basename(ran.spill[stream]), new RegExp(`^build-${stream}-`))
      assert.equal(ran.streams[stream].spill.path, ran.spill[stream])
      assert.ok(fs.readFileSync(ran.spill[stream]).equals(fs.readFileSync(files[stream])), `${stream} file`)
      assert.equal(ran.spill[stream].length, files[stream].length)
      text = text.replaceAll(ran.spill[stream], files[stream])
    }
    assert.equal(text, expected.text)
  })

  test('input on stdin, as a string and as bytes', async () => {
    const script = 'process.stdin.pipe(process.stdout)'
    for (const input of ['abc\nde', Buffer.from('é😀\n'.repeat(10_000))]) {
      const ran = await runCommand(NODE, ['-e', script], { input, stdout: 100 })
      const expected = formatExecOutput(
        { ...(await collect(NODE, ['-e', script], { input })), durationMs: ran.durationMs },
        { stdout: 100 },
      )
      assert.equal(ran.text, expected.text)
      assert.equal(ran.streams.stdout.totalBytes, Buffer.byteLength(input))
    }
  })
})

describe('results', () => {
  test('a spill that cannot be written: the plain notice, naming no file', async () => {
    const blocker = path.join(os.tmpdir(), `toolclamp-run-blocker-${process.pid}`)
    fs.writeFileSync(blocker, 'a file, so no directory can be made under it')
    try {
      const r = await runCommand(process.execPath, ['-e', 'for (let i = 0; i < 5000; i++) console.log(i)'], {
        stdout: 200,
        spill: { dir: path.join(blocker, 'spills') },
      })
      assert.equal(r.spill.stdout, null)
      assert.equal(r.streams.stdout.spill.path, null)
      assert.match(r.text, /^<stdout>\n\[\.\.\. [\d,]+ chars truncated from stdout \.\.\.\]\n/)
      assert.doesNotMatch(r.text, /saved/)
    } finally {
      fs.rmSync(blocker, { force: true })
    }
  })

  test('a command that writes only to stderr', async () => {
    const r = await runCommand(NODE, ['-e', 'process.stderr.write("oops\\n"); process.exit(3)'])
    assert.match(r.text, /^<stdout>\(empty\)<\/stdout>\n<stderr>\noops\n<\/stderr>\nexit code: 3, duration: [\d,]+ ms$/)
    assert.equal(r.stdout, '')
    assert.equal(r.stderr, 'oops\n')
    assert.equal(r.exitCode, 3)
    assert.equal(r.signal, null)
    assert.equal(typeof r.durationMs, 'number')
  })

  test('a command that is not found resolves with one line saying so', async () => {
    const r = await runCommand('toolclamp-no-such-command', ['x'])
    assert.deepEqual(lines(r.text).slice(0, 3), [
      '<stdout>(empty)</stdout>',
      '<stderr>(empty)</stderr>',
      'error: command not found (spawn toolclamp-no-such-command ENOENT)',
    ])
    assert.match(lines(r.text)[3], /^duration: [\d,]+ ms$/)
    assert.equal(r.exitCode, null)
    assert.equal(r.signal, null)
    assert.equal(r.timedOut, false)
    // The line formatExecOutput gives for execFile's result.
    const viaExecFile = await new Promise((resolve) =>
      execFile('toolclamp-no-such-command', ['x'], (error, stdout, stderr) => resolve({ error, stdout, stderr })),
    )
    assert.equal(lines(formatExecOutput(viaExecFile).text)[2], lines(r.text)[2])
  })

  test('a file that is not executable: permission denied (EACCES)', { skip: !POSIX }, async () => {
    const file = path.join(tmp, 'not-executable.sh')
    fs.writeFileSync(file, '#!/bin/sh\necho hi\n', { mode: 0o644 })
    const r = await runCommand(file)
    assert.equal(lines(r.text)[2], `error: permission denied (spawn ${file} EACCES)`)
    assert.equal(r.exitCode, null)
  })

  test('a working directory that is not there is said as such, not as a missing command', async () => {
    const cwd = path.join(tmp, 'no-such-dir')
    const r = await runCommand(NODE, ['-e', ''], { cwd })
    assert.equal(lines(r.text)[2], `error: working directory not found (${cwd})`)
    assert.equal(r.exitCode, null)
  })

  test('cwd and env reach the command; args need no quoting without a shell', async () => {
    const r = await runCommand(NODE, ['-e', 'console.log(process.cwd(), process.env.TC_X, process.argv[1])', '$HOME; echo no'], {
      cwd: tmp,
      env: { ...process.env, TC_X: 'x y' },
    })
    assert.equal(r.stdout, `${fs.realpathSync(tmp)} x y $HOME; echo no\n`)
  })

  test('shell: true runs the command line in a shell', { skip: !POSIX }, async () => {
    const r = await runCommand('echo $((1 + 2)) && echo err >&2', { shell: true })
    assert.equal(r.stdout, '3\n')
    assert.equal(r.stderr, 'err\n')
    assert.equal(r.exitCode, 0)
  })

  test('without input, stdin is closed: a command that reads it sees its end at once', async () => {
    const r = await runCommand(NODE, [
      '-e',
      'let n = 0; process.stdin.on("data", (c) => (n += c.length)).on("end", () => console.log("read", n))',
    ])
    assert.equal(r.stdout, 'read 0\n')
  })

  test('input that the command never reads does not break the run', async () => {
    const r = await runCommand(NODE, ['-e', 'process.exit(0)'], { input: Buffer.alloc(4 * 1024 * 1024) })
    assert.equal(r.exitCode, 0)
  })

  test('a stream with neither a char nor a byte budget is held to 51,200 bytes (memory stays bounded)', async () => {
    const script = 'for (let i = 0; i < 20000; i++) console.log("line " + i)'
    for (const stdout of [{ maxLines: 100_000 }, Infinity]) {
      const r = await runCommand(NODE, ['-e', script], { stdout })
      assert.equal(r.streams.stdout.totalLines, 20_000)
      assert.equal(r.streams.stdout.truncated, true)
      assert.ok(r.streams.stdout.outputBytes <= 51_200)
      assert.ok(r.stdout.endsWith('line 19999\n'))
    }
  })

  test('progress bars redrawn with \\r: with normalize, the final state', async () => {
    const script = `
      for (let p = 0; p <= 100; p += 10) process.stdout.write('\\x1b[1mDownloading\\x1b[0m [' + '#'.repeat(p / 10).padEnd(10) + '] ' + p + '%\\r')
      process.stdout.write('\\nInstalled 3 packages\\n')
    `
    const plain = await runCommand(NODE, ['-e', script])
    assert.ok(plain.stdout.includes('\r'))
    const r = await runCommand(NODE, ['-e', script], { normalize: true })
    assert.equal(r.stdout, 'Downloading [##########] 100%\nInstalled 3 packages\n')
    assert.equal(r.streams.stdout.totalBytes, Buffer.byteLength(r.stdout))
  })

  test('spill: each cut stream streams whole to its own file, named in its notice', async () => {
    const dir = path.join(tmp, 'spill')
    const script = 'for (let i = 0; i < 5000; i++) console.log("row " + i); console.error("short")'
    const r = await runCommand(NODE, ['-e', script], { stdout: 200, spill: { dir } })
    assert.equal(typeof r.spill.stdout, 'string')
    assert.equal(r.spill.stderr, null, 'stderr was not cut')
    assert.equal(path.dirname(r.spill.stdout), dir)
    assert.match(path.basename(r.spill.stdout), /^exec-stdout-/)
    const whole = Array.from({ length: 5000 }, (_, i) => `row ${i}\n`).join('')
    assert.equal(fs.readFileSync(r.spill.stdout, 'utf8'), whole)
    assert.ok(r.stdout.includes(r.spill.stdout), r.stdout)
    assert.ok(r.stdout.includes('truncated from stdout; full stdout saved to'), r.stdout)
    assert.ok(r.stdout.endsWith('row 4999\n'))
  })
})

describe('timeouts and aborts', { skip: !POSIX }, () => {
  test('a command that never ends: timed out, the whole process group killed', async () => {
    // The grandchild's pid is printed first; it holds stdout open too.
    const r = await runCommand('sh', ['-c', 'sleep 1000 & echo $!; sleep 1000'], { timeoutMs: 500 })
    assert.equal(r.timedOut, true)
    assert.equal(r.aborted, false)
    assert.equal(r.exitCode, null)
    assert.equal(r.signal, 'SIGTERM')
    const grandchild = Number(r.stdout.trim())
    assert.ok(grandchild > 0, r.stdout)
    assert.ok(await waitUntilDead(grandchild), `the background sleep ${grandchild} is dead`)
    const tail = lines(r.text).slice(-2)
    assert.equal(tail[0], 'error: timed out after 500 ms; killed the process group with SIGTERM')
    assert.match(tail[1], /^signal: SIGTERM, duration: [\d,]+ ms$/)
    assert.ok(r.durationMs >= 500 && r.durationMs < 30_000, String(r.durationMs))
  })

  test('a group that ignores killSignal gets SIGKILL after forceKillAfterMs', async () => {
    const r = await runCommand('sh', ['-c', 'trap "" TERM; sleep 1000 & echo $!; sleep 1000'], {
      timeoutMs: 300,
      forceKillAfterMs: 300,
    })
    assert.equal(r.timedOut, true)
    assert.equal(r.signal, 'SIGKILL')
    assert.ok(await waitUntilDead(Number(r.stdout.trim())))
    assert.equal(lines(r.text).at(-2), 'error: timed out after 300 ms; killed the process group with SIGTERM, then SIGKILL')
  })

  test('killSignal and a timeout with thousands', async () => {
    const r = await runCommand('sleep', ['1000'], { timeoutMs: 1000, killSignal: 'SIGINT' })
    assert.equal(r.signal, 'SIGINT')
    assert.equal(lines(r.text).at(-2), 'error: timed out after 1,000 ms; killed the process group with SIGINT')
  })

  test('abort via an AbortController, once the command is running', async () => {
    const controller = new AbortController()
    const script = 'sleep 1000 & echo $!; echo ready; sleep 1000'
    const r = await runCommand('sh', ['-c', script], {
      signal: controller.signal,
      updateIntervalMs: 0,
      onUpdate: (update) => {
        if (update.stdout.includes('ready')) controller.abort()
      },
    })
    assert.equal(r.aborted, true)
    assert.equal(r.timedOut, false)
    assert.equal(r.signal, 'SIGTERM')
    assert.ok(await waitUntilDead(Number(lines(r.stdout)[0])))
    assert.equal(lines(r.text).at(-2), 'error: aborted; killed the process group with SIGTERM')
  })

  test('an abort reason of the caller is named', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('the user pressed stop\nmore')), 100)
    const r = await runCommand('sleep', ['1000'], { signal: controller.signal })
    assert.equal(lines(r.text).at(-2), 'error: aborted (the user pressed stop); killed the process group with SIGTERM')
  })

  test('an already aborted signal resolves at once, without spawning', async () => {
    const marker = path.join(tmp, 'spawned')
    const r = await runCommand('sh', ['-c', `touch ${marker}`], { signal: AbortSignal.abort() })
    assert.equal(r.aborted, true)
    assert.equal(r.exitCode, null)
    assert.equal(r.text, '<stdout>(empty)</stdout>\n<stderr>(empty)</stderr>\nerror: aborted before the command started\nduration: 0 ms')
    await new Promise((resolve) => setTimeout(resolve, 100))
    assert.equal(fs.existsSync(marker), false)
  })
})

describe('onUpdate', () => {
  const SLOW = `
    let i = 0
    const timer = setInterval(() => {
      console.log('tick ' + i)
      if (++i === 40) clearInterval(timer)
    }, 25)
  `

  test('called with snapshots while output arrives, at most once per updateIntervalMs', async () => {
    const updates = []
    let settled = false
    let late = 0
    const r = await runCommand(NODE, ['-e', SLOW], {
      updateIntervalMs: 200,
      onUpdate: (update) => {
        if (settled) late++
        updates.push({ at: performance.now(), update })
      },
    })
    settled = true
    // A timer armed before the end must not fire after it: wait out more than an interval.
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.equal(late, 0, 'no update after the run settled')
    assert.equal(r.exitCode, 0)
    assert.ok(updates.length >= 2, `${updates.length} updates`)
    assert.ok(updates.length <= 40)
    for (let k = 1; k < updates.length; k++) {
      // Timed where onUpdate runs, after the snapshot is made: a slow snapshot on a busy
      // machine shortens the next gap a little. Without the interval they would be 25 ms.
      assert.ok(updates[k].at - updates[k - 1].at >= 150, `gap ${updates[k].at - updates[k - 1].at}`)
    }
    let previous = 0
    for (const { update } of updates) {
      assert.match(update.text, /^<stdout>\n(tick \d+\n)+<\/stdout>\n<stderr>\(empty\)<\/stderr>\nduration: [\d,]+ ms$/)
      assert.ok(update.stdout.startsWith('tick 0\n'))
      assert.equal(update.stderr, '')
      assert.equal(update.streams.stdout.totalBytes, Buffer.byteLength(update.stdout))
      assert.ok(update.streams.stdout.totalLines >= previous)
      previous = update.streams.stdout.totalLines
      assert.equal(typeof update.durationMs, 'number')
    }
    // An update may come after the last line and before the exit (a busy machine), never
    // with more than the command wrote.
    assert.ok(previous <= 40, `${previous} lines`)
  })

  test('snapshots are clamped as the final text is: formatExecOutput of the output so far', async () => {
    const updates = []
    await runCommand(NODE, ['-e', SLOW], { stdout: 60, updateIntervalMs: 100, onUpdate: (u) => updates.push(u) })
    assert.ok(updates.some((u) => u.streams.stdout.truncated))
    for (const u of updates) {
      const soFar = Array.from({ length: u.streams.stdout.totalLines }, (_, i) => `tick ${i}\n`).join('')
      assert.equal(u.text, formatExecOutput({ stdout: soFar, durationMs: u.durationMs }, { stdout: 60 }).text)
      assert.ok(u.stdout.length <= 60)
    }
  })

  test('an onUpdate that throws or rejects is reported as a warning; the run goes on', async () => {
    const warnings = []
    const emitWarning = process.emitWarning
    process.emitWarning = (message) => warnings.push(String(message))
    try {
      let calls = 0
      const r = await runCommand(NODE, ['-e', SLOW], {
        updateIntervalMs: 50,
        onUpdate: () => {
          calls++
          if (calls === 1) throw new Error('boom')
          if (calls === 2) return Promise.reject(new Error('async boom'))
        },
      })
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(r.exitCode, 0)
      assert.equal(r.stdout.split('\n').length - 1, 40)
      assert.ok(calls >= 2)
      assert.ok(warnings.includes("toolclamp: runCommand's onUpdate threw: boom"), warnings.join('\n'))
      assert.ok(warnings.includes("toolclamp: runCommand's onUpdate threw: async boom"), warnings.join('\n'))
    } finally {
      process.emitWarning = emitWarning
    }
  })
})

describe('a GiB of output in bounded memory', () => {
  test('1 GiB on stdout and 64 MiB on stderr: exact totals, RSS growth under 128 MiB', { timeout: 60_000 }, () => {
    // In a node of its own, so the test runner's memory does not count. The generator is
    // another process: only runCommand's capture is in the measured one.
    const runner = `
      const { runCommand } = require(${JSON.stringify(RUN_JS)})
      const generator = \`
        const chunk = Buffer.alloc(65536, 'héllo wörld 日本 😀 abcdefghijklmnopqrstuvwxyz0123456789!\\\\n')
        const err = Buffer.alloc(65536, 'warning: ')
        let left = 16384
        const write = () => {
          while (left > 0) {
            left--
            if (left % 16 === 0) process.stderr.write(err)
            if (!process.stdout.write(chunk)) return process.stdout.once('drain', write)
          }
        }
        write()
      \`
      ;(async () => {
        await runCommand(process.execPath, ['-e', 'console.log(1)']) // warm up: the addon loaded, code compiled
        globalThis.gc?.()
        const baseline = process.memoryUsage().rss
        let peak = baseline
        const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20)
        let updates = 0
        const r = await runCommand(process.execPath, ['-e', generator], {
          stdout: { maxBytes: 16384, maxLines: 200 },
          onUpdate: () => updates++,
        })
        clearInterval(sampler)
        peak = Math.max(peak, process.memoryUsage().rss)
        const { streams, exitCode, text } = r
        console.log(JSON.stringify({ baseline, peak, updates, exitCode, textLength: text.length, stdout: streams.stdout, stderr: { ...streams.stderr, text: undefined } }))
      })()
    `
    const child = spawnSync(NODE, ['--expose-gc', '-e', runner], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 })
    assert.equal(child.status, 0, child.stderr)
    const { baseline, peak, updates, exitCode, textLength, stdout, stderr } = JSON.parse(child.stdout)
    assert.equal(exitCode, 0)
    // 64 bytes, 56 chars (the emoji is 2), one line, 1,024 times a chunk, 16,384 chunks.
    const LINE = 'héllo wörld 日本 😀 abcdefghijklmnopqrstuvwxyz0123456789!\n'
    assert.equal(Buffer.byteLength(LINE), 64)
    assert.equal(stdout.totalBytes, 2 ** 30, 'bytes')
    assert.equal(stdout.totalChars, 2 ** 24 * LINE.length, 'chars')
    assert.equal(stdout.totalLines, 2 ** 24, 'lines')
    assert.equal(stdout.text.slice(-LINE.length), LINE)
    assert.equal(stderr.totalBytes, 1024 * 65536, 'stderr bytes')
    assert.equal(stderr.totalLines, 1)
    assert.ok(stdout.truncated && stdout.outputBytes <= 16384 && stdout.outputLines <= 200)
    assert.ok(textLength < 40_000)
    assert.ok(updates >= 1)
    // Keeping the output would grow it by over 1 GiB; read chunks the collector has not
    // reached yet take some tens of MiB, more on a busy machine.
    const growth = peak - baseline
    assert.ok(growth < 128 * 1024 * 1024, `RSS grew by ${(growth / 1024 / 1024).toFixed(1)} MiB`)
  })
})

describe('options are checked at the call, before anything runs', () => {
  test('an unknown option names the one meant', () => {
    assert.throws(() => runCommand('ls', { timeout_ms: 10 }), {
      name: 'TypeError',
      message: 'unknown option "timeout_ms"; did you mean "timeoutMs"?',
    })
    assert.throws(() => runCommand('ls', [], { killsignal: 'SIGINT' }), {
      name: 'TypeError',
      message: 'unknown option "killsignal"; did you mean "killSignal"?',
    })
    assert.throws(() => runCommand('ls', [], { timeout: 10 }), {
      name: 'TypeError',
      message: 'unknown option "timeout"; did you mean "timeoutMs"?',
    })
    assert.throws(() => runCommand('ls', [], { deadline: 10 }), {
      name: 'TypeError',
      message:
        'unknown option "deadline"; expected one of cwd, env, input, shell, timeoutMs, signal, killSignal, forceKillAfterMs, waitForStreams, onUpdate, updateIntervalMs, stdout, stderr, strategy, headRatio, notice, spill, snap, normalize',
    })
    assert.throws(() => runCommand('ls', [], { stdout: { maxchars: 1 } }), {
      message: 'unknown option "stdout.maxchars"; did you mean "stdout.maxChars"?',
    })
  })

  test('invalid values throw', () => {
    const marker = path.join(tmp, 'should-not-exist')
    const invalid = [
      [[''], TypeError, /command must be a non-empty string/],
      [[42], TypeError, /command must be a non-empty string, got 42/],
      [['ls', 'x'], TypeError, /args must be an array of strings, got "x"/],
      [['ls', [1]], TypeError, /args\[0\] must be a string, got 1/],
      [['ls', [], null], TypeError, /options must be an object, got null/],
      [['ls', [], { timeoutMs: 0 }], RangeError, /timeoutMs must be a positive number of milliseconds, got 0/],
      [['ls', [], { timeoutMs: '5' }], TypeError, /timeoutMs must be a number of milliseconds/],
      [['ls', [], { updateIntervalMs: -1 }], RangeError, /updateIntervalMs must be a non-negative/],
      [['ls', [], { forceKillAfterMs: NaN }], RangeError, /forceKillAfterMs must be a non-negative/],
      [['ls', [], { killSignal: 'SIGFOO' }], TypeError, /killSignal must be a signal name/],
      [['ls', [], { signal: {} }], TypeError, /signal must be an AbortSignal/],
      [['ls', [], { input: 5 }], TypeError, /input must be a string, Buffer or Uint8Array, got 5/],
      [['ls', [], { onUpdate: 'x' }], TypeError, /onUpdate must be a function/],
      [['ls', [], { cwd: 5 }], TypeError, /cwd must be a non-empty string/],
      [['ls', [], { env: 'A=1' }], TypeError, /env must be an object/],
      [['ls', [], { shell: 1 }], TypeError, /shell must be a boolean/],
      [['ls', [], { stdout: 'x' }], TypeError, /stdout must be a number or an object/],
      [['ls', [], { strategy: 'middle' }], TypeError, /strategy must be/],
      [['ls', [], { normalize: 'yes' }], TypeError, /normalize must be true, false or an object/],
      [['ls', [], { spill: { dir: '' } }], TypeError, /spill\.dir must be a non-empty string/],
      [['ls', [], { notice: '{bogus}' }], TypeError, /notice template: unknown placeholder \{bogus\}/],
      [['sh', ['-c', `touch ${marker}`], { headRatio: 2 }], RangeError, /headRatio must be a number from 0 to 1/],
    ]
    for (const [args, type, message] of invalid) {
      assert.throws(
        () => runCommand(...args),
        (error) => error instanceof type && message.test(error.message),
        JSON.stringify(args),
      )
    }
    assert.equal(fs.existsSync(marker), false)
  })

  test('args may be left out, options given second', async () => {
    const r = await runCommand(NODE, { input: 'console.log(6 * 7)' })
    assert.equal(r.stdout, '42\n')
  })
})
