// repairSessionFile when repairs are killed, race, or meet a huge file: a lock whose owner is
// dead is taken over (one taker alone), what a killed repair left is finished by the next one
// (its spill files, new file and journal removed unless it published), no byte of the session
// is lost, and a large session is repaired a chunk at a time in bounded memory.
//
// Kills are real: a child process runs a repair and is sent SIGKILL, either by itself at its
// n-th fs call (every n, so each step is a crash point) or by the test after a random delay.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn, spawnSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'

const require = createRequire(import.meta.url)
const SESSION_MODULE = fileURLToPath(new URL('../lib/integrations/pi-session.js', import.meta.url))
const { repairSessionFile } = require(SESSION_MODULE)
const RUNS = Number(process.env.FC_RUNS ?? 1000)

// ---- Helpers

/** A new directory `name` in `dir`. */
function subdir(dir, name) {
  const made = path.join(dir, name)
  fs.mkdirSync(made)
  return made
}

/** A fresh directory (its real path), removed when the test ends. */
function tempDir(t) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-session-')))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

// A child that runs one repair and prints its outcome as JSON ({ changed } or { code }).
// With CRASH_AT=n it sends itself SIGKILL at its n-th fs call (counted from the repair's
// start); with CRASH_ON=text, at its first fs call whose name and paths ("readdirSync /tmp/x")
// contain the text;
// with STOP_AT=n it writes the file STOP_MARK, then stops (SIGSTOP) at its n-th call until
// SIGCONT. It prints "ready" first, and at the end "calls <n>" (the fs calls it made) and
// "opened <n>" (the call that opened the session to read it, once the lock was taken and
// what killed repairs left was finished).
const CHILD = `'use strict'
const fs = require('node:fs')
const { repairSessionFile } = require(process.env.SESSION_MODULE)
const [file, options] = [process.argv[2], JSON.parse(process.argv[3])]
const crashAt = Number(process.env.CRASH_AT || 0)
const stopAt = Number(process.env.STOP_AT || 0)
const crashOn = process.env.CRASH_ON
const writeMark = fs.writeFileSync
let calls = 0
let opened = 0
for (const key of Object.keys(fs)) {
  const real = fs[key]
  if (!key.endsWith('Sync') || typeof real !== 'function') continue
  fs[key] = function (...args) {
    calls++
    if (calls === crashAt) process.kill(process.pid, 'SIGKILL')
    const label = [key, ...args.filter((arg) => typeof arg === 'string')].join(' ')
    if (crashOn && label.includes(crashOn)) process.kill(process.pid, 'SIGKILL')
    if (calls === stopAt) {
      writeMark(process.env.STOP_MARK, '')
      process.kill(process.pid, 'SIGSTOP')
    }
    if (!opened && key === 'openSync' && args[0] === file && args[1] === 'r') opened = calls
    return real.apply(this, args)
  }
}
process.stdout.write('ready\\n')
let outcome
try {
  outcome = { changed: repairSessionFile(file, options).changed }
} catch (error) {
  outcome = { code: error.code ?? error.message }
}
process.stdout.write('calls ' + calls + '\\nopened ' + opened + '\\n' + JSON.stringify(outcome) + '\\n')
`

let scratch
before(() => {
  scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-crash-')))
  fs.writeFileSync(path.join(scratch, 'child.cjs'), CHILD)
})
after(() => fs.rmSync(scratch, { recursive: true, force: true }))

const childArgs = (file, options) => [path.join(scratch, 'child.cjs'), file, JSON.stringify(options)]
const childEnv = (extra) => ({ ...process.env, SESSION_MODULE, ...extra })

/**
 * Runs the child on `file`; returns its signal, fs calls and outcome. `onReady` is called
 * when it is about to repair, `onStart` with it as soon as it is spawned.
 */
function runChild(file, options, env = {}, onReady = () => {}, onStart = () => {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, childArgs(file, options), { env: childEnv(env) })
    onStart(child)
    let out = ''
    let err = ''
    let ready = false
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', (data) => {
      out += data
      if (!ready && out.includes('ready\n')) {
        ready = true
        onReady(child)
      }
    })
    child.stderr.on('data', (data) => (err += data))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      const count = (name) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(out)?.[1])
      const last = out.trim().split('\n').at(-1)
      resolve({
        signal,
        pid: child.pid,
        calls: count('calls'),
        opened: count('opened'),
        outcome: last?.startsWith('{') ? JSON.parse(last) : undefined,
        stderr: err,
      })
    })
  })
}

/** `fn` of each item, at most `limit` at a time; the results in order. */
async function inPool(items, limit, fn) {
  const results = []
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const at = next++
      results[at] = await fn(items[at])
    }
  }
  await Promise.all(Array.from({ length: limit }, worker))
  return results
}

const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

const messageEntry = (id, parentId, message) => ({
  type: 'message',
  id,
  parentId,
  timestamp: '2025-06-01T10:00:00.000Z',
  message,
})
const toolResult = (toolCallId, toolName, text) => ({
  role: 'toolResult',
  toolCallId,
  toolName,
  content: [{ type: 'text', text }],
  isError: false,
  timestamp: 3,
})
const numbered = (n, prefix) => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join('')

const HEADER = { type: 'session', version: 3, id: 'sess-1', timestamp: '2025-06-01T10:00:00.000Z', cwd: '/srv/app' }
const USER = messageEntry('e1', null, { role: 'user', content: 'Run the build', timestamp: 1 })
const BIG = messageEntry('e2', 'e1', toolResult('call-1', 'bash', numbered(12_000, 'build step')))
const SMALL = messageEntry('e3', 'e2', toolResult('call-2', 'read', 'short output'))
const CUSTOM = { type: 'custom', customType: 'ext', data: { big: 'x'.repeat(20_000) }, id: 'e4', parentId: 'e3' }
const LIMITS = { maxBytes: 4096 }

/** A session file of these entries (a "\r\n" ending and a torn last line among them). */
function writeSession(dir, entries = [HEADER, USER, BIG, SMALL, CUSTOM]) {
  const file = path.join(dir, 'session.jsonl')
  const lines = entries.map((entry, i) => JSON.stringify(entry) + (i === 1 ? '\r\n' : '\n'))
  const bytes = Buffer.from(`${lines.join('')}{"type":"message","id":"e5","mess`)
  fs.writeFileSync(file, bytes)
  return { file, bytes }
}

/** A session with many results over the limits, so a repair of it takes a while. */
function writeLongSession(dir) {
  const entries = [HEADER]
  for (let i = 0; i < 8; i++) {
    entries.push(messageEntry(`r${i}`, null, toolResult(`call-${i}`, 'bash', numbered(3000, `run ${i} step`))))
    entries.push(messageEntry(`u${i}`, null, { role: 'user', content: `go on ${i}`, timestamp: i }))
  }
  return writeSession(dir, entries)
}

const SPILL_PATH = /full output saved to (\S+) \(dropped/
const BACKUP_NAME = /^session\.jsonl\.\d{8}T\d{6}Z-[0-9a-f]{8}\.toolclamp-backup$/

/** The lines of `bytes`, split on "\n" (a "\r" stays in its line). */
const rawLines = (bytes) => bytes.toString('latin1').split('\n')

/**
 * The session in `dir` holds all it held before (`bytes`): each line as it was, or, for a
 * tool result that was clamped, the same entry with content that fits and names a spill file
 * holding the original text whole. Nothing else is in `dir` but the spill directory (only
 * files the session names) and backups, each the original. Returns the backups' names.
 */
function assertIntact(dir, file, bytes, limits = LIMITS) {
  const before = rawLines(bytes)
  const now = rawLines(fs.readFileSync(file))
  assert.equal(now.length, before.length)
  const spillDir = `${file}.toolclamp-spill`
  const named = []
  for (let i = 0; i < before.length; i++) {
    if (now[i] === before[i]) continue
    const was = JSON.parse(Buffer.from(before[i], 'latin1').toString('utf8'))
    const is = JSON.parse(Buffer.from(now[i], 'latin1').toString('utf8'))
    const text = is.message.content[0].text
    assert.ok(Buffer.byteLength(text) <= limits.maxBytes, `line ${i + 1} fits`)
    const spilled = SPILL_PATH.exec(text)[1]
    assert.equal(path.dirname(spilled), spillDir)
    assert.equal(fs.readFileSync(spilled, 'utf8'), was.message.content[0].text, `line ${i + 1}: its spill file`)
    named.push(path.basename(spilled))
    assert.deepEqual({ ...is, message: { ...is.message, content: was.message.content } }, was, 'only content changed')
  }
  const spills = fs.existsSync(spillDir) ? fs.readdirSync(spillDir).sort() : []
  assert.deepEqual(spills, named.sort(), 'the spill directory holds the files the session names, and no other')
  const backups = []
  for (const name of fs.readdirSync(dir)) {
    if (name === 'session.jsonl' || name === 'session.jsonl.toolclamp-spill') continue
    assert.match(name, BACKUP_NAME, 'no lock, claim, temporary file or journal')
    assert.ok(fs.readFileSync(path.join(dir, name)).equals(bytes), 'a backup is the original')
    backups.push(name)
  }
  return backups
}

const BOOT = (() => {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
  } catch {
    return null
  }
})()
const PIDNS = (() => {
  try {
    return fs.readlinkSync('/proc/self/ns/pid')
  } catch {
    return null
  }
})()
const PROC = BOOT !== null
/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks after boot. */
const startOf = (pid) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return null
  }
}

/** A lock record as a repair writes it; by default this process's own. */
function lockText(fields = {}) {
  const owner = {
    id: '0badc0de',
    pid: process.pid,
    host: os.hostname(),
    boot: BOOT,
    pidns: PIDNS,
    start: startOf(process.pid),
    since: '2025-06-01T10:00:00.000Z',
    ...fields,
  }
  return `${JSON.stringify(owner)}\n`
}

/** The pid of a process that has ended (and was reaped). */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid

const lockedMessage = (file, holder) =>
  `${file}.lock exists: another process holds the lock on ${file}${holder}; if no repair is running, remove ${file}.lock and try again`

// ---- Killed repairs

describe('a killed repair', () => {
  test('killed at each of its fs calls: the next repair takes over its lock and completes; no byte lost, nothing left', async (t) => {
    const dir = tempDir(t)
    const { calls } = await runChild(writeSession(subdir(dir, 'probe')).file, LIMITS)
    assert.ok(calls > 40, `the repair makes ${calls} fs calls`)
    const runs = await inPool(range(1, calls), 3, async (n) => {
      const at = subdir(dir, String(n))
      const session = writeSession(at)
      // Half the runs ask for no backup: one killed after its rename must not keep one either.
      const killed = await runChild(session.file, { ...LIMITS, backup: n % 2 === 0 }, { CRASH_AT: String(n) })
      return { n, at, ...session, killed }
    })
    for (const { n, at, file, bytes, killed } of runs) {
      assert.equal(killed.signal, 'SIGKILL', `call ${n}: ${killed.stderr}`)
      // The session is the original or the repaired file, never a mix or a loss.
      assertIntactOrOriginal(file, bytes, `call ${n}`)
      const report = repairSessionFile(file, LIMITS)
      const backups = assertIntact(at, file, bytes)
      assert.ok(backups.length <= 1, `call ${n}: ${backups}`)
      if (report.changed) assert.deepEqual(backups, [path.basename(report.backupPath)])
      assert.equal(repairSessionFile(file, LIMITS).changed, false, `call ${n}: repaired once`)
    }
  })

  test("killed while it takes over a killed repair's lock: the next one finishes both and completes", async (t) => {
    const dir = tempDir(t)
    // The first run is killed as it links its backup: its lock, journal, whole new file and
    // spill file are left. The second is killed at each call until it has finished those.
    const first = subdir(dir, 'first')
    const { file: killed, bytes } = writeSession(first)
    assert.equal((await runChild(killed, LIMITS, { CRASH_ON: '.toolclamp-backup' })).signal, 'SIGKILL')
    const left = fs.readdirSync(first).filter((name) => /\.(lock|tmp|journal)$/.test(name))
    assert.equal(left.length, 3, `${left}`)
    assert.equal(fs.readdirSync(`${killed}.toolclamp-spill`).length, 1)
    // Each run gets a copy of what the first left (the paths in its journal made its own).
    const copy = (name) => {
      const at = path.join(dir, name)
      fs.cpSync(first, at, { recursive: true })
      const journal = path.join(
        at,
        fs.readdirSync(at).find((file) => file.endsWith('.journal')),
      )
      fs.writeFileSync(journal, fs.readFileSync(journal, 'utf8').replaceAll(first, at))
      return { at, file: path.join(at, 'session.jsonl') }
    }
    const { opened: calls } = await runChild(copy('probe').file, LIMITS)
    assert.ok(calls > 10, `${calls} calls`)
    const runs = await inPool(range(1, calls), 3, async (n) => {
      const { at, file } = copy(String(n))
      return { n, at, file, killed: await runChild(file, LIMITS, { CRASH_AT: String(n) }) }
    })
    for (const { n, at, file, killed } of runs) {
      assert.equal(killed.signal, 'SIGKILL', `call ${n}`)
      assert.ok(fs.readFileSync(file).equals(bytes), `call ${n}: the original is untouched`)
      assert.equal(repairSessionFile(file, LIMITS).changed, true, `call ${n}`)
      assert.equal(assertIntact(at, file, bytes).length, 1)
    }
  })

  test('killed at random moments (SIGKILL from outside): the next repair completes; no byte lost, nothing left', async (t) => {
    const dir = tempDir(t)
    // How long a whole repair takes once the child is ready: the kills are drawn within it.
    let started
    const whole = await runChild(writeLongSession(subdir(dir, 'probe')).file, LIMITS, {}, () => {
      started = performance.now()
    })
    const ms = performance.now() - started
    assert.deepEqual(whole.outcome, { changed: true })
    const shares = fc.sample(fc.double({ min: 0, max: 1, noNaN: true }), Math.max(12, Math.min(40, RUNS / 250)))
    // A sample may draw one share twice: each run gets a directory of its own.
    let next = 0
    const runs = await inPool(shares, 3, async (share) => {
      const at = subdir(dir, `after-${next++}-${share}`)
      const session = writeLongSession(at)
      let timer
      const killed = await runChild(session.file, LIMITS, {}, (child) => {
        timer = setTimeout(() => child.kill('SIGKILL'), share * ms)
      })
      clearTimeout(timer)
      return { share, at, ...session, killed }
    })
    for (const { share, at, file, bytes } of runs) {
      assertIntactOrOriginal(file, bytes, `after ${share} of the repair`)
      repairSessionFile(file, LIMITS)
      assert.ok(assertIntact(at, file, bytes).length <= 1)
    }
    const cut = runs.filter((run) => run.killed.signal === 'SIGKILL')
    assert.ok(cut.length > 0, 'some runs were killed midway')
  })
})

/**
 * Right after a kill: the session file is the original, byte for byte, or a repaired file
 * (the kill came after the rename), whose spill files are complete.
 */
function assertIntactOrOriginal(file, bytes, when) {
  const now = fs.readFileSync(file)
  if (now.equals(bytes)) return
  const before = rawLines(bytes)
  const lines = rawLines(now)
  assert.equal(lines.length, before.length, `${when}: whole lines`)
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === before[i]) continue
    const was = JSON.parse(Buffer.from(before[i], 'latin1').toString('utf8')).message.content[0].text
    const text = JSON.parse(Buffer.from(lines[i], 'latin1').toString('utf8')).message.content[0].text
    assert.equal(fs.readFileSync(SPILL_PATH.exec(text)[1], 'utf8'), was, `${when}: line ${i + 1}'s spill file is whole`)
  }
}

// ---- Locks

describe('the lock', () => {
  test("a repair's lock names its owner: id, pid, host, boot id, pid namespace, start time, since when", async (t) => {
    const dir = tempDir(t)
    const { file } = writeSession(dir)
    // Killed right after it took the lock (at its first look at the directory).
    const child = await runChild(file, LIMITS, { CRASH_ON: 'readdirSync ' })
    assert.equal(child.signal, 'SIGKILL')
    assert.deepEqual(fs.readdirSync(dir).sort(), ['session.jsonl', 'session.jsonl.lock'])
    const lock = `${file}.lock`
    const owner = JSON.parse(fs.readFileSync(lock, 'utf8'))
    assert.deepEqual(Object.keys(owner), ['id', 'pid', 'host', 'boot', 'pidns', 'start', 'since'])
    assert.match(owner.id, /^[0-9a-f]{8}$/)
    assert.equal(owner.pid, child.pid)
    assert.equal(owner.host, os.hostname())
    assert.equal(owner.boot, BOOT)
    assert.equal(owner.pidns, PIDNS)
    assert.equal(typeof owner.start, PROC ? 'string' : 'object')
    assert.ok(Math.abs(Date.parse(owner.since) - Date.now()) < 3_600_000)
    assert.equal(fs.statSync(lock).mode & 0o777, 0o600)
    assert.equal(repairSessionFile(file, LIMITS).changed, true, 'taken over')
  })

  test('whose owner is dead, or whose pid now belongs to another process, is taken over', async (t) => {
    const cases = [['no process has its pid', { pid: deadPid(), start: '0' }]]
    if (PROC) {
      cases.push(
        ['its pid was reused (another start time)', { start: '1' }],
        ['the machine booted since', { boot: 'f00dfeed-0000-4000-8000-000000000000' }],
        ['it is a zombie (ended, not yet reaped)', await zombie(t)],
      )
    }
    for (const [why, fields] of cases) {
      const dir = tempDir(t)
      const { file, bytes } = writeSession(dir)
      fs.writeFileSync(`${file}.lock`, lockText(fields), { mode: 0o600 })
      assert.equal(repairSessionFile(file, LIMITS).changed, true, why)
      assert.equal(assertIntact(dir, file, bytes).length, 1, why)
    }
  })

  test('held by a live process, or by one that cannot be checked from here: refused, untouched, the holder named', (t) => {
    const since = '2025-06-01T10:00:00.000Z'
    const cases = [
      ['a live process (this one)', {}, ` (pid ${process.pid} on ${os.hostname()} since ${since})`],
      ['another host', { pid: deadPid(), host: 'build-box-7' }, ` on build-box-7 since ${since})`],
      ['another pid namespace', { pid: deadPid(), start: '0', pidns: 'pid:[1]' }, ` on ${os.hostname()} since ${since})`],
    ]
    for (const [why, fields, holder] of cases) {
      const dir = tempDir(t)
      const { file, bytes } = writeSession(dir)
      const text = lockText(fields)
      fs.writeFileSync(`${file}.lock`, text)
      assert.throws(
        () => repairSessionFile(file, LIMITS),
        (error) => {
          assert.equal(error.code, 'TOOLCLAMP_SESSION_LOCKED', why)
          assert.ok(error.message.startsWith(`${file}.lock exists: another process holds the lock on ${file} (pid `), why)
          assert.ok(error.message.endsWith(`${holder}; if no repair is running, remove ${file}.lock and try again`), why)
          return true
        },
      )
      assert.equal(fs.readFileSync(`${file}.lock`, 'utf8'), text, why)
      assert.ok(fs.readFileSync(file).equals(bytes), why)
      assert.deepEqual(fs.readdirSync(dir).sort(), ['session.jsonl', 'session.jsonl.lock'], why)
    }
    // A lock that names no owner it can read (empty, torn, foreign) is never judged dead.
    for (const text of ['', '{"id":"0badc0de","pid":', '{"pid":1}', 'held by the nightly job\n']) {
      const dir = tempDir(t)
      const { file } = writeSession(dir)
      fs.writeFileSync(`${file}.lock`, text)
      assert.throws(() => repairSessionFile(file, LIMITS), { message: lockedMessage(file, '') })
    }
  })
})

/** The pid and start time of a zombie: `sleep 0` ends at once, and its parent (now `sleep 30`) never reaps it. */
async function zombie(t) {
  const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 30'])
  t.after(() => parent.kill('SIGKILL'))
  const pid = Number((await new Promise((resolve) => parent.stdout.once('data', resolve))).toString())
  while (!/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))) await sleep(5)
  return { pid, start: startOf(pid) }
}

// ---- Two repairs and one dead lock

const STALE_ID = 'deadbeef'

/** A session in a new directory `name` of `dir`, its lock left by a dead repair. */
function staleSession(dir, name, pid) {
  const at = subdir(dir, name)
  const session = writeSession(at)
  const lock = `${session.file}.lock`
  fs.writeFileSync(lock, lockText({ id: STALE_ID, pid, start: '0' }), { mode: 0o600 })
  return { at, lock, ...session }
}

/** The pid named by the lock (or claim) at `name`, if any. */
function pidIn(name) {
  try {
    return JSON.parse(fs.readFileSync(name, 'utf8')).pid
  } catch {
    return undefined
  }
}

/**
 * Whether a repair run now must be refused because `pid` is inside: it holds the lock, or
 * the claim on the dead lock while that lock is still there.
 */
function holds(lock, pid) {
  if (pidIn(lock) === pid) return true
  return pidIn(`${lock}.${STALE_ID}.claim`) === pid && fs.existsSync(lock) && pidIn(lock) !== pid && staleLock(lock)
}
const staleLock = (lock) => {
  try {
    return JSON.parse(fs.readFileSync(lock, 'utf8')).id === STALE_ID
  } catch {
    return false
  }
}

function outcomeOf(run) {
  try {
    return { changed: run().changed }
  } catch (error) {
    return { code: error.code }
  }
}

describe('two repairs that find the same dead lock', () => {
  test('one stopped at any of its fs calls, the other run whole: never both inside; one repairs, nothing is left', async (t) => {
    const dir = tempDir(t)
    const dead = deadPid()
    const probe = staleSession(dir, 'probe', dead)
    const { opened } = await runChild(probe.file, LIMITS)
    assert.ok(opened > 10, `${opened}`)
    for (let j = 1; j <= opened + 2; j++) {
      const { at, lock, file, bytes } = staleSession(dir, String(j), dead)
      const mark = `${at}-stopped`
      let child
      const second = runChild(file, LIMITS, { STOP_AT: String(j), STOP_MARK: mark }, undefined, (spawned) => {
        child = spawned
      })
      while (!fs.existsSync(mark) || (PROC && !/\) T /.test(fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8')))) {
        await sleep(2)
      }
      // The second is stopped at its j-th call; the first runs whole meanwhile.
      const inside = holds(lock, child.pid)
      const first = outcomeOf(() => repairSessionFile(file, LIMITS))
      child.kill('SIGCONT')
      const { outcome } = await second
      if (inside) {
        assert.deepEqual(first, { code: 'TOOLCLAMP_SESSION_LOCKED' }, `call ${j}: the stopped one is inside`)
        assert.deepEqual(outcome, { changed: true }, `call ${j}`)
      } else {
        assert.deepEqual(first, { changed: true }, `call ${j}: the stopped one is not inside`)
        assert.deepEqual(outcome, { changed: false }, `call ${j}`)
      }
      assert.equal(assertIntact(at, file, bytes).length, 1, `call ${j}`)
    }
  })

  test('at any fs call of one, the other runs whole: never both inside; one repairs, nothing is left', (t) => {
    const dir = tempDir(t)
    const dead = deadPid()
    const counted = Object.keys(fs).filter((key) => key.endsWith('Sync') && typeof fs[key] === 'function')
    const originals = new Map(counted.map((key) => [key, fs[key]]))
    /** Runs `run`, calling `at(n)` before its n-th fs call (`at` itself runs unpatched). */
    const interrupted = (run, at) => {
      let calls = 0
      for (const key of counted) {
        fs[key] = function (...args) {
          calls++
          for (const [k, original] of originals) fs[k] = original
          try {
            at(calls)
          } finally {
            for (const k of counted) fs[k] = patched.get(k)
          }
          return originals.get(key).apply(this, args)
        }
      }
      const patched = new Map(counted.map((key) => [key, fs[key]]))
      try {
        return outcomeOf(run)
      } finally {
        for (const [key, original] of originals) fs[key] = original
      }
    }
    let total = 0
    const probe = staleSession(dir, 'probe', dead)
    interrupted(
      () => repairSessionFile(probe.file, LIMITS),
      (n) => (total = n),
    )
    assert.ok(total > 40, `${total}`)
    for (let k = 1; k <= total; k++) {
      const { at, lock, file, bytes } = staleSession(dir, String(k), dead)
      let second
      let inside
      const first = interrupted(
        () => repairSessionFile(file, LIMITS),
        (n) => {
          if (n !== k) return
          inside = holds(lock, process.pid)
          second = outcomeOf(() => repairSessionFile(file, LIMITS))
        },
      )
      if (inside) {
        assert.deepEqual(second, { code: 'TOOLCLAMP_SESSION_LOCKED' }, `call ${k}: the first is inside`)
        assert.deepEqual(first, { changed: true }, `call ${k}`)
      } else {
        assert.deepEqual(second, { changed: true }, `call ${k}: the first is not inside`)
        assert.deepEqual(first, { changed: false }, `call ${k}`)
      }
      assert.equal(assertIntact(at, file, bytes).length, 1, `call ${k}`)
      fs.rmSync(at, { recursive: true })
    }
  })
})

// ---- A large session

const MiB = 1024 * 1024

/**
 * Writes a session of about `size` bytes a line at a time: small entries, 1 MiB entries of
 * other types (across the repair's read chunks), a 600 KB tool result in every eighth
 * block, a "\r\n" ending, two lines over `maxLineBytes` (a tool result and another entry)
 * and a torn last line. Returns its size, the length of the long tool result's line and
 * how many results are over the limits.
 */
function writeLargeSession(file, size, maxLineBytes) {
  const fd = fs.openSync(file, 'w')
  let written = 0
  const line = (entry, ending = '\n') => {
    const bytes = Buffer.from(`${typeof entry === 'string' ? entry : JSON.stringify(entry)}${ending}`)
    fs.writeSync(fd, bytes)
    written += bytes.length
    return bytes.length - ending.length
  }
  const big = numbered(20_000, 'compiling module') // about 600 KB
  const custom = { type: 'custom', customType: 'ext', data: { blob: 'ü'.repeat(MiB / 2) } }
  line(HEADER)
  let results = 0
  for (let block = 0; written < size - 2 * maxLineBytes; block++) {
    const user = messageEntry(`u${block}`, null, { role: 'user', content: `step ${block}`, timestamp: block })
    line(user, block === 3 ? '\r\n' : '\n')
    line(messageEntry(`s${block}`, null, toolResult(`small-${block}`, 'read', `file ${block}\n`.repeat(40))))
    line({ ...custom, id: `c${block}` })
    if (block % 8 === 0) results += line(messageEntry(`b${block}`, null, toolResult(`big-${block}`, 'bash', big))) && 1
  }
  const long = line(messageEntry('huge', null, toolResult('huge-1', 'bash', 'x'.repeat(maxLineBytes + MiB))))
  line({ ...custom, id: 'huge-custom', data: { blob: 'y'.repeat(maxLineBytes + MiB) } })
  line('{"type":"message","id":"torn","mess', '')
  fs.closeSync(fd)
  return { size: written, long, results }
}

/** The lines of a file (split on "\n"), read a chunk at a time. */
function* fileLines(file) {
  const fd = fs.openSync(file, 'r')
  const chunk = Buffer.alloc(4 * MiB)
  let parts = []
  try {
    for (let at = 0, n; (n = fs.readSync(fd, chunk, 0, chunk.length, at)) > 0; at += n) {
      for (let from = 0; ; ) {
        const newline = chunk.subarray(0, n).indexOf(0x0a, from)
        if (newline === -1) {
          parts.push(Buffer.from(chunk.subarray(from, n)))
          break
        }
        parts.push(chunk.subarray(from, newline))
        yield Buffer.concat(parts)
        parts = []
        from = newline + 1
      }
    }
    const last = Buffer.concat(parts)
    if (last.length > 0) yield last
  } finally {
    fs.closeSync(fd)
  }
}

describe('a large session', () => {
  test('a 200 MiB session is repaired a chunk at a time: its peak memory grows by a fraction of its size', (t) => {
    const dir = tempDir(t)
    const file = path.join(dir, 'session.jsonl')
    const maxLineBytes = 8 * MiB
    const { size, long, results } = writeLargeSession(file, 200 * MiB, maxLineBytes)
    // The same kinds of lines, the two long ones included, in a tenth of the size.
    const smallFile = path.join(dir, 'small.jsonl')
    const small = writeLargeSession(smallFile, 20 * MiB, maxLineBytes)
    // A heap of 96 MiB could not hold the file as one string, nor its lines as entries.
    const options = JSON.stringify({ maxBytes: 4096, maxLineBytes })
    const repair = (session) => {
      const code = `const { repairSessionFile } = require(${JSON.stringify(SESSION_MODULE)})
const report = repairSessionFile(${JSON.stringify(session)}, ${options})
process.stdout.write(JSON.stringify({ report, peakKiB: process.resourceUsage().maxRSS }))`
      const child = spawnSync(process.execPath, ['--max-old-space-size=96', '-e', code], { encoding: 'utf8' })
      assert.equal(child.status, 0, child.stderr)
      const { report, peakKiB } = JSON.parse(child.stdout)
      return { report, peak: peakKiB * 1024 }
    }
    const { report, peak } = repair(file)
    const smallPeak = repair(smallFile).peak
    const mib = (bytes) => `${(bytes / MiB).toFixed(0)} MiB`
    t.diagnostic(`${mib(size)} repaired with a peak RSS of ${mib(peak)}; ${mib(small.size)} with ${mib(smallPeak)}`)
    // 180 MiB more of session takes a third as much more memory at most (the heap of 96
    // MiB fills with garbage between collections); what Node, the libc or an emulator take
    // to start is in both.
    assert.ok(peak - smallPeak < 64 * MiB, `peak RSS ${mib(peak)}, ${mib(smallPeak)} for ${mib(small.size)}`)

    // The line over maxLineBytes that holds a tool result is reported, and copied as it is.
    const lines = [...fileLines(report.backupPath)].length
    assert.deepEqual(report.skipped, [
      {
        line: lines - 2,
        toolCallId: null,
        toolName: null,
        reason: `its line is ${long} bytes, over maxLineBytes (${maxLineBytes}), so it was not read`,
      },
    ])
    // Every line is as it was but for the results clamped, whose originals are spilled.
    const clamped = new Map(report.results.map((result) => [result.line, result]))
    assert.equal(clamped.size, results)
    const now = fileLines(file)
    let index = 0
    for (const was of fileLines(report.backupPath)) {
      const is = now.next().value
      index++
      const result = clamped.get(index)
      if (result === undefined) {
        assert.ok(is.equals(was), `line ${index}`)
        continue
      }
      const text = JSON.parse(is).message.content[0].text
      assert.ok(Buffer.byteLength(text) <= 4096)
      assert.equal(SPILL_PATH.exec(text)[1], result.spillPath)
      assert.equal(fs.statSync(result.spillPath).size, Buffer.byteLength(JSON.parse(was).message.content[0].text))
      assert.equal(result.bytesBefore, was.length)
    }
    assert.equal(now.next().done, true)
    assert.equal(index, lines)
  })
})
