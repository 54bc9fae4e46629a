// runCommand holds nothing it does not need and settles when it says it will: a failed spawn
// of any kind (EMFILE included) is a result and leaves no fd behind, even in a tight loop under
// `ulimit -n 64`; a timeout bounds the run even when a process outside the group (setsid, a
// daemon) holds the pipes; `waitForStreams: false` settles when the command exits.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { isAlive } from './helpers.mjs'

const require = createRequire(import.meta.url)
const { runCommand } = require('../lib/commands/run.js')

const NODE = process.execPath
const POSIX = process.platform !== 'win32'
const RUN_JS = require.resolve('../lib/commands/run.js')
const FAST_CHECK = require.resolve('fast-check')
const FD_DIR = fs.existsSync('/proc/self/fd') ? '/proc/self/fd' : '/dev/fd'
const RUNS = Number(process.env.FC_RUNS ?? 100)

let tmp
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-run-lifecycle-'))
})
after(() => {
  fs.rmSync(tmp, { recursive: true, force: true })
})

const openFds = () => fs.readdirSync(FD_DIR).length
const lines = (text) => text.split('\n')

/** Whether a pid is there at all, a zombie included (a reaped process is not). */
function reachable(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

function killQuietly(pid) {
  // A pid read from output that never came is 0 (Number('')), and kill(0) is this process's
  // whole group: the test runner and whatever started it.
  if (!(Number.isSafeInteger(pid) && pid > 0)) return
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // Gone already.
  }
}

describe('a failed spawn is a result and holds nothing once it settles', { skip: !POSIX }, () => {
  // In a node of its own under `ulimit -n 64`, so the test runner is not starved of fds: the
  // table fills after about 20 failed spawns if each holds its two pipes until a later turn
  // of the event loop, and a spawn that fails with EMFILE has no stdio at all.
  const script = (body) => `
    const fs = require('node:fs')
    const fc = require(${JSON.stringify(FAST_CHECK)})
    const { runCommand } = require(${JSON.stringify(RUN_JS)})
    const openFds = () => fs.readdirSync(${JSON.stringify(FD_DIR)}).length
    const noExec = ${JSON.stringify(path.join(os.tmpdir(), `toolclamp-not-executable-${process.pid}.sh`))}
    fs.writeFileSync(noExec, '#!/bin/sh\\necho hi\\n', { mode: 0o644 })
    // Every fd there is, then the function, then every fd back.
    const withFullTable = async (f) => {
      const filler = []
      try {
        for (;;) filler.push(fs.openSync('/dev/null', 'r'))
      } catch (error) {
        if (error.code !== 'EMFILE') throw error
      }
      try {
        return await f()
      } finally {
        for (const fd of filler) fs.closeSync(fd)
      }
    }
    const FAILURES = {
      missing: () => runCommand('toolclamp-no-such-command', ['x']),
      cwd: () => runCommand(process.execPath, ['-e', ''], { cwd: '/toolclamp/no/such/dir' }),
      noExec: () => runCommand(noExec),
      emfile: () => withFullTable(() => runCommand(process.execPath, ['-e', 'console.log(1)'])),
    }
    const errorLine = (r) => r.text.split('\\n')[2]
    ;(async () => {
      // Once, for what libuv opens once and keeps (/dev/null for an ignored stdin).
      await FAILURES.missing()
      const before = openFds()
      const report = { before, leaks: [], lines: {} }
      const seen = (kind, r) => {
        report.lines[kind] ??= new Set()
        report.lines[kind].add(errorLine(r) + (r.exitCode === null ? '' : ' exit ' + r.exitCode))
      }
      ${body}
      report.after = openFds()
      for (const kind in report.lines) report.lines[kind] = [...report.lines[kind]]
      fs.rmSync(noExec)
      console.log(JSON.stringify(report))
    })()
  `
  const runLimited = (body) => {
    const child = spawnSync('sh', ['-c', 'ulimit -n 64 && exec "$0" -e "$1"', NODE, script(body)], {
      encoding: 'utf8',
      env: { ...process.env, FC_RUNS: String(RUNS) },
    })
    assert.equal(child.status, 0, `the node under ulimit -n 64 ended with ${child.status} ${child.signal ?? ''}:\n${child.stderr}`)
    return JSON.parse(child.stdout)
  }
  const EXPECTED = {
    missing: ['error: command not found (spawn toolclamp-no-such-command ENOENT)'],
    cwd: ['error: working directory not found (/toolclamp/no/such/dir)'],
    noExec: [`error: permission denied (spawn ${path.join(os.tmpdir(), `toolclamp-not-executable-${process.pid}.sh`)} EACCES)`],
    emfile: [`error: too many open files (spawn ${NODE} EMFILE)`],
  }

  test('300 failing spawns in a row, then spawns with the fd table full: each a result, no fd left', () => {
    const report = runLimited(`
      for (let i = 0; i < 300; i++) {
        const kind = ['missing', 'cwd', 'noExec'][i % 3]
        seen(kind, await FAILURES[kind]())
        if (openFds() !== before) report.leaks.push([i, openFds()])
      }
      for (let i = 0; i < 20; i++) {
        seen('emfile', await FAILURES.emfile())
        if (openFds() !== before) report.leaks.push(['emfile', i, openFds()])
      }
      // Many at once with the table full: each 'error' must find its listener.
      const all = await withFullTable(() => Promise.all(Array.from({ length: 50 }, FAILURES.emfile)))
      for (const r of all) seen('emfile', r)
    `)
    assert.deepEqual(report.leaks, [])
    assert.equal(report.after, report.before)
    assert.deepEqual(report.lines, EXPECTED)
  })

  test('a burst of failing spawns at once runs out of fds: every one resolves, none held after', () => {
    const report = runLimited(`
      const all = await Promise.all(Array.from({ length: 100 }, () => FAILURES.missing()))
      for (const r of all) seen(errorLine(r).includes('EMFILE') ? 'emfile' : 'missing', r)
    `)
    assert.equal(report.after, report.before)
    assert.deepEqual(report.lines.missing, EXPECTED.missing)
    // Whether some hit EMFILE depends on how many fds node itself holds; those that do say so.
    for (const line of report.lines.emfile ?? []) {
      assert.equal(line, 'error: too many open files (spawn toolclamp-no-such-command EMFILE)')
    }
  })

  test('property: any sequence of failed spawns resolves, each with its line, and leaves the fd count as it was', () => {
    const report = runLimited(`
      const runs = Math.max(20, Math.floor(Number(process.env.FC_RUNS) / 100))
      await fc.assert(
        fc.asyncProperty(fc.array(fc.constantFrom('missing', 'cwd', 'noExec', 'emfile'), { maxLength: 8 }), async (kinds) => {
          for (const kind of kinds) {
            seen(kind, await FAILURES[kind]())
            if (openFds() !== before) throw new Error(kind + ' left ' + (openFds() - before) + ' fds open')
          }
        }),
        { numRuns: runs, seed: Number(process.env.FC_SEED ?? 20261123) || 20261123 },
      )
    `)
    assert.equal(report.after, report.before)
    for (const [kind, seenLines] of Object.entries(report.lines)) assert.deepEqual(seenLines, EXPECTED[kind], kind)
  })
})

describe('a run that rejects', () => {
  test('a notice function that throws: the rejection, and no spill file left open or half written', {
    skip: !fs.existsSync('/proc/self/fd') && !fs.existsSync('/dev/fd'),
  }, async () => {
    const dir = path.join(tmp, 'rejected')
    const before = openFds()
    await assert.rejects(
      runCommand(NODE, ['-e', 'for (let i = 0; i < 2000; i++) console.log(i); console.error("e".repeat(5000))'], {
        stdout: 100,
        stderr: 100,
        spill: { dir },
        notice: (facts) => {
          if (facts.stream === 'stderr') throw new Error('no notice for stderr')
          return 'cut'
        },
      }),
      { message: 'no notice for stderr' },
    )
    assert.equal(openFds(), before)
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      [],
    )
  })
})

describe('a timeout bounds the run, whoever holds the pipes', { skip: !POSIX }, () => {
  // The command starts a process in a session of its own (as `setsid cmd &` or a daemon
  // does) that inherits stdout and stderr, prints its pid, and then exits or keeps running.
  const holder = (thenMain) => `
    const { spawn } = require('node:child_process')
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] })
    holder.unref()
    console.log(holder.pid)
    ${thenMain}
  `
  const NOTE =
    'note: stopped reading the output: a process the kill did not reach (one that left the process group, as setsid and daemons do) still holds it open and was left running'

  test('the command runs on and is killed by the timeout, the holder outside its group stays: settled after the kill', {
    timeout: 30_000,
  }, async () => {
    // The timeout leaves node ample time to start the holder before it fires: at least 1.5 s,
    // and more where a Node takes long to start (under emulation, about 2 s).
    const start = performance.now()
    spawnSync(NODE, ['-e', '0'])
    const timeoutMs = Math.max(1500, Math.ceil(((performance.now() - start) * 4) / 500) * 500)
    const before = openFds()
    const r = await runCommand(NODE, ['-e', holder('setInterval(() => {}, 1000)')], { timeoutMs, forceKillAfterMs: 200 })
    const pid = Number(lines(r.stdout)[0])
    try {
      assert.equal(openFds(), before, 'no fd left behind')
      assert.ok(pid > 0 && isAlive(pid), 'the holder was left running')
      assert.equal(r.timedOut, true)
      assert.equal(r.outputLeftOpen, true)
      assert.equal(r.exitCode, null)
      assert.equal(r.signal, 'SIGTERM')
      const after = `${timeoutMs.toLocaleString('en-US')} ms`
      assert.deepEqual(lines(r.text).slice(-3, -1), [`error: timed out after ${after}; killed the process group with SIGTERM`, NOTE])
      assert.match(lines(r.text).at(-1), /^signal: SIGTERM, duration: [\d,]+ ms$/)
    } finally {
      killQuietly(pid)
    }
  })

  test('an abort settles the same way', { timeout: 30_000 }, async () => {
    const controller = new AbortController()
    const before = openFds()
    const r = await runCommand(NODE, ['-e', holder('setInterval(() => {}, 1000)')], {
      signal: controller.signal,
      forceKillAfterMs: 200,
      updateIntervalMs: 0,
      onUpdate: (update) => {
        if (update.stdout !== '') controller.abort()
      },
    })
    const pid = Number(lines(r.stdout)[0])
    try {
      assert.equal(openFds(), before, 'no fd left behind')
      assert.ok(pid > 0 && isAlive(pid), 'the holder was left running')
      assert.equal(r.aborted, true)
      assert.equal(r.outputLeftOpen, true)
      assert.deepEqual(lines(r.text).slice(-3, -1), ['error: aborted; killed the process group with SIGTERM', NOTE])
    } finally {
      killQuietly(pid)
    }
  })

  test('the command had exited and only the holder keeps the pipes: settled at the stop, nothing to kill', {
    timeout: 30_000,
  }, async () => {
    // Stopped once node has reaped the command (its pid is gone, not a zombie): what still
    // holds the pipes is outside the group.
    const controller = new AbortController()
    let waiting = false
    const before = openFds()
    const r = await runCommand(NODE, ['-e', holder('console.log(process.pid)')], {
      signal: controller.signal,
      updateIntervalMs: 0,
      onUpdate: async (update) => {
        const [, main] = lines(update.stdout).map(Number)
        if (!(main > 0) || waiting) return
        waiting = true
        while (reachable(main)) await new Promise((resolve) => setTimeout(resolve, 10))
        controller.abort()
      },
    })
    const pid = Number(lines(r.stdout)[0])
    try {
      assert.equal(openFds(), before, 'no fd left behind')
      assert.ok(pid > 0 && isAlive(pid), 'the holder was left running')
      assert.equal(r.aborted, true)
      assert.equal(r.outputLeftOpen, true)
      assert.equal(r.exitCode, 0)
      assert.equal(r.signal, null)
      assert.deepEqual(lines(r.text).slice(-3, -1), ['error: aborted; the command had already exited', NOTE])
      assert.match(lines(r.text).at(-1), /^exit code: 0, duration: [\d,]+ ms$/)
    } finally {
      killQuietly(pid)
    }
  })
})

describe('waitForStreams', { skip: !POSIX }, () => {
  test('false: settles when the command exits, with all it wrote, though a background process holds the pipes', {
    timeout: 30_000,
  }, async () => {
    // 300,000 bytes before the exit, more than a pipe holds: all of it is read.
    const script = `
      const { spawn } = require('node:child_process')
      const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: ['ignore', 'inherit', 'inherit'] })
      holder.unref()
      process.stderr.write(holder.pid + '\\n')
      for (let i = 0; i < 3000; i++) process.stdout.write('x'.repeat(99) + '\\n')
      process.exitCode = 3
    `
    const before = openFds()
    const r = await runCommand(NODE, ['-e', script], { waitForStreams: false, stdout: { maxBytes: 1000 } })
    const pid = Number(r.stderr.trim())
    try {
      assert.equal(openFds(), before, 'no fd left behind')
      assert.ok(isAlive(pid), 'the background process was left running')
      assert.equal(r.exitCode, 3)
      assert.equal(r.outputLeftOpen, true)
      assert.equal(r.timedOut, false)
      assert.equal(r.streams.stdout.totalBytes, 300_000)
      assert.deepEqual(lines(r.text).slice(-2, -1), [
        'note: stopped reading the output when the command exited: a background process still holds it open and was left running',
      ])
      assert.match(lines(r.text).at(-1), /^exit code: 3, duration: [\d,]+ ms$/)
    } finally {
      killQuietly(pid)
    }
  })

  test('false with nothing left holding the pipes: the same result as by default', async () => {
    const script = 'console.log("out"); console.error("err"); process.exitCode = 2'
    const waited = await runCommand(NODE, ['-e', script])
    const exited = await runCommand(NODE, ['-e', script], { waitForStreams: false })
    assert.equal(exited.text.replace(/duration: [\d,]+ ms/, ''), waited.text.replace(/duration: [\d,]+ ms/, ''))
    assert.equal(exited.outputLeftOpen, false)
  })

  test('by default, the output of a background job that ends by itself is waited for', async () => {
    const r = await runCommand('sh', ['-c', '(sleep 0.2; echo late) & echo early'])
    assert.equal(r.stdout, 'early\nlate\n')
    assert.equal(r.outputLeftOpen, false)
    assert.doesNotMatch(r.text, /^note:/m)
  })

  test('must be a boolean', () => {
    assert.throws(() => runCommand('ls', [], { waitForStreams: 'no' }), {
      name: 'TypeError',
      message: 'waitForStreams must be a boolean, got "no"',
    })
  })
})
