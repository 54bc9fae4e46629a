'use strict'

// runCommand: runs a command and gives the text a model sees for it, as formatExecOutput
// lays it out, without ever holding the whole output. Each stream goes through its own
// bounded capture (lib/commands/capture.js) as it arrives, with the budgets, strategy,
// notice and spill formatExecOutput reads from the same options; the layout is
// formatExecOutput's (exec.formatClamped), so the text is the same as spawning, collecting
// both streams and calling formatExecOutput on them.
//
// The child leads a process group of its own (POSIX), so a timeout or an abort can stop
// everything it started: the group gets `killSignal`, then SIGKILL if anything in it is
// still alive `forceKillAfterMs` later. On Windows the tree is killed with taskkill.
//
// A spawn error (ENOENT, EACCES, EMFILE, a missing cwd), a timeout and an abort are results,
// said in one `error: ...` line of the text, never rejections (only a notice function of the
// caller's that throws rejects, with its error). Invalid options throw at the call, before
// anything is spawned. Nothing is held once the promise settles: this end of every pipe is
// closed when the run settles, not when Node gets to it.
//
// The run settles on the child's 'close' (it exited and its output ended), except when
// something else holds the output open: with `waitForStreams: false`, when the command exits;
// after a stop, once the command has exited and its group is empty or the grace is over. It
// then reads what the command wrote before it exited, closes its end of the pipes, leaves the
// holder running, and says so in a `note:` line.
//
// One difference from formatExecOutput, for bounded memory: a stream with neither a char nor
// a byte budget (`stdout: { maxLines: 400 }`, `stdout: Infinity`) is held to 51,200 bytes,
// as any capture is, unless an encoding's tokens bound it; tokens counted by a function need
// a char or byte budget beside them.

const { invalid, mustBe } = require('../common/errors.js')
const { spawn, execFile } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const { types } = require('node:util')

const { checkCounterBound, openCapture } = require('./capture.js')
const exec = require('./exec.js')
const native = require('../native.js')
const notices = require('../common/notices.js')
const { formatCount, isArray, isError, messageOf } = require('../common/format.js')
const { isPlainObject, readOptionsObject } = require('../common/options.js')

const IS_WINDOWS = process.platform === 'win32'
const STREAMS = ['stdout', 'stderr']
const RUN_OPTIONS = [
  'cwd',
  'env',
  'input',
  'shell',
  'timeoutMs',
  'signal',
  'killSignal',
  'forceKillAfterMs',
  'waitForStreams',
  'onUpdate',
  'updateIntervalMs',
  ...exec.EXEC_OPTIONS,
]
const DEFAULT_KILL_SIGNAL = 'SIGTERM'
const DEFAULT_FORCE_KILL_AFTER_MS = 2000
const DEFAULT_UPDATE_INTERVAL_MS = 250
// setTimeout fires at once for delays above this (about 24.8 days): a longer timeout never fires.
const MAX_TIMER_MS = 2 ** 31 - 1
// How long a run waits, after a kill, for the killed members of the group to be gone
// before it says something else holds the output.
const GROUP_EXIT_WAIT_MS = 2_000
const SIGNAL_NAMES = new Map(Object.entries(os.constants.signals).map(([name, number]) => [number, name]))

function readCommand(command) {
  if (typeof command !== 'string' || command === '') {
    throw mustBe(TypeError, `command`, `a non-empty string`, command)
  }
  if (command.includes('\0')) throw invalid(TypeError, 'command must not contain a NUL character')
  return command
}

function readArgs(args) {
  if (args === undefined) return []
  if (!isArray(args)) throw mustBe(TypeError, `args`, `an array of strings`, args)
  const list = [...args]
  list.forEach((arg, k) => {
    if (typeof arg !== 'string') throw mustBe(TypeError, `args[${k}]`, `a string`, arg)
    if (arg.includes('\0')) throw invalid(TypeError, `args[${k}] must not contain a NUL character`)
  })
  return list
}

/** A duration option: a non-negative number of milliseconds (`positive`: above 0), or Infinity. */
function readMs(name, value, fallback, positive = false) {
  if (value === undefined) return fallback
  if (typeof value !== 'number') throw mustBe(TypeError, `${name}`, `a number of milliseconds`, value)
  if (!(positive ? value > 0 : value >= 0)) {
    throw mustBe(RangeError, `${name}`, `a ${positive ? 'positive' : 'non-negative'} number of milliseconds`, value)
  }
  return value
}

/** A signal name (`'SIGTERM'`) or number, as its name. */
function readKillSignal(value) {
  if (value === undefined) return DEFAULT_KILL_SIGNAL
  if (typeof value === 'string' && Object.hasOwn(os.constants.signals, value)) return value
  if (typeof value === 'number' && SIGNAL_NAMES.has(value)) return SIGNAL_NAMES.get(value)
  throw mustBe(TypeError, `killSignal`, `a signal name such as "SIGTERM" or its number`, value)
}

function readAbortSignal(signal) {
  if (signal === undefined) return undefined
  const isSignal =
    typeof signal === 'object' && signal !== null && typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function'
  if (!isSignal) throw mustBe(TypeError, `signal`, `an AbortSignal`, signal)
  return signal
}

function readCwd(cwd) {
  if (cwd === undefined) return undefined
  if (cwd instanceof URL) {
    if (cwd.protocol !== 'file:') throw invalid(TypeError, `cwd must be a path or a file: URL, got ${JSON.stringify(cwd.href)}`)
    return cwd
  }
  if (typeof cwd !== 'string' || cwd === '') throw mustBe(TypeError, `cwd`, `a non-empty string or a file: URL`, cwd)
  if (cwd.includes('\0')) throw invalid(TypeError, 'cwd must not contain a NUL character')
  return cwd
}

function readEnv(env) {
  if (env === undefined) return undefined
  if (!isPlainObject(env)) throw mustBe(TypeError, `env`, `an object of environment variables`, env)
  return env
}

function readInput(input) {
  if (input === undefined || typeof input === 'string' || types.isUint8Array(input)) return input
  throw mustBe(TypeError, `input`, `a string, Buffer or Uint8Array`, input)
}

function readShell(shell) {
  if (shell === undefined) return false
  if (typeof shell === 'boolean' || (typeof shell === 'string' && shell !== '')) return shell
  throw mustBe(TypeError, `shell`, `a boolean or the path of a shell`, shell)
}

function readWaitForStreams(value) {
  if (value === undefined) return true
  if (typeof value === 'boolean') return value
  throw mustBe(TypeError, `waitForStreams`, `a boolean`, value)
}

function readOnUpdate(onUpdate) {
  if (onUpdate === undefined || typeof onUpdate === 'function') return onUpdate
  throw mustBe(TypeError, `onUpdate`, `a function`, onUpdate)
}

/** The `normalize` flags as the option object they were read from (the capture reads options). */
function normalizeOption(flags) {
  if (flags === 0) return false
  return Object.fromEntries(native.NORMALIZE_FLAGS.map((rule, bit) => [rule, (flags & (1 << bit)) !== 0]))
}

/**
 * The capture options of one stream, from formatExecOutput's options as readExecOptions
 * read them: the stream's budgets, the strategy, the line snap, the stream's notice (its
 * default names the stream, and with `spill` the file) and its own spill file
 * (`<name>-stdout-…`).
 */
function captureOptions(read, stream) {
  const { maxChars, maxBytes, maxLines, notice, tokens } = read.streams[stream]
  const options = {
    maxChars,
    maxBytes,
    maxLines,
    // A limit in exact tokens, as read (estimated tokens are in maxBytes already).
    maxTokens: tokens?.max,
    tokenizer: tokens === undefined ? undefined : (tokens.tokenizer.count ?? tokens.tokenizer.name),
    strategy: read.strategy,
    headRatio: read.headRatio,
    snap: read.snap ? 'line' : 'none',
    // With a spill, the capture picks the default: the one naming the file, or the plain one
    // when the file could not be written (a notice must never name a file that is not there).
    notice: notice.user ?? (read.spill === undefined ? notices.templateFor(notices.STREAM_NOTICE, stream) : undefined),
    normalize: normalizeOption(read.normalize),
  }
  if (read.spill !== undefined) options.spill = { dir: read.spill.dir, name: `${read.spill.name}-${stream}` }
  return options
}

/** Everything runCommand needs, read and checked at the call; each option read once. */
function readRun(command, args, options) {
  const {
    cwd,
    env,
    input,
    shell,
    timeoutMs,
    signal,
    killSignal,
    forceKillAfterMs,
    waitForStreams,
    onUpdate,
    updateIntervalMs,
    stdout,
    stderr,
    strategy,
    headRatio,
    notice,
    spill,
    snap,
    normalize,
  } = readOptionsObject(options, RUN_OPTIONS, true)
  const read = exec.readExecOptions({ stdout, stderr, strategy, headRatio, notice, spill, snap, normalize })
  for (const stream of STREAMS) checkCounterBound(read.streams[stream], `${stream}.`)
  return {
    command: readCommand(command),
    args: readArgs(args),
    cwd: readCwd(cwd),
    env: readEnv(env),
    input: readInput(input),
    shell: readShell(shell),
    timeoutMs: readMs('timeoutMs', timeoutMs, Infinity, true),
    signal: readAbortSignal(signal),
    killSignal: readKillSignal(killSignal),
    forceKillAfterMs: readMs('forceKillAfterMs', forceKillAfterMs, DEFAULT_FORCE_KILL_AFTER_MS),
    waitForStreams: readWaitForStreams(waitForStreams),
    onUpdate: readOnUpdate(onUpdate),
    updateIntervalMs: readMs('updateIntervalMs', updateIntervalMs, DEFAULT_UPDATE_INTERVAL_MS),
    capture: { stdout: captureOptions(read, 'stdout'), stderr: captureOptions(read, 'stderr') },
  }
}

/**
 * Runs `command` with `args` and resolves to the text a model sees for it; see the top of
 * this file. `args` may be left out: `runCommand('ls', { cwd })`.
 */
function runCommand(command, args, options) {
  if (options === undefined && args !== undefined && !isArray(args) && isPlainObject(args)) {
    options = args
    args = undefined
  }
  const run = readRun(command, args, options)
  // Made now, so that whatever the capture refuses throws at the call too.
  const capture = (stream) =>
    openCapture(
      run.capture[stream],
      notices.templateFor(notices.STREAM_SPILL_NOTICE, stream),
      notices.templateFor(notices.STREAM_NOTICE, stream),
    )
  const captures = { stdout: capture('stdout'), stderr: capture('stderr') }
  return new Promise((resolve, reject) => start(run, captures, resolve, reject))
}

/** How the process group was killed, for the error line. */
function killedWith(run, forced) {
  const what = IS_WINDOWS ? 'killed the process tree' : `killed the process group with ${run.killSignal}`
  return forced && !IS_WINDOWS ? `${what}, then SIGKILL` : what
}

/** Why an abort happened, when the caller gave a reason of its own. */
function abortReason(signal) {
  const { reason } = signal
  if (reason === undefined) return ''
  if (isError(reason) && reason.name === 'AbortError') return ''
  const line = isError(reason) ? exec.firstLine(reason) : exec.firstLine(new Error(messageOf(reason)))
  return line === '' ? '' : ` (${line})`
}

/**
 * The error line of a spawn error: formatExecOutput's, except for a cwd that is not there
 * and a full file table, said in words.
 */
function spawnErrorLine(run, error) {
  if (error?.code === 'EMFILE') return `error: too many open files (${exec.firstLine(error)})`
  if (error?.code === 'ENFILE') return `error: too many open files in the system (${exec.firstLine(error)})`
  if (error?.code === 'ENOENT' && run.cwd !== undefined) {
    let found
    try {
      found = fs.statSync(run.cwd).isDirectory()
    } catch {
      found = false
    }
    if (!found) return `error: working directory not found (${String(run.cwd instanceof URL ? run.cwd.href : run.cwd)})`
  }
  return exec.errorLine({}, error, undefined) ?? `error: ${exec.firstLine(error)}`
}

/** Runs the command: see CommandRun for the steps. */
function start(run, captures, resolve, reject) {
  new CommandRun(run, captures, resolve, reject).start()
}

/**
 * One run of a command, from the spawn to the settled promise, in steps: `start` (checks,
 * then `spawn`), `wireOutput` and `wireInput` (the child's pipes to the captures), `wireExit`
 * and `armStops` (the timeout and the abort), `stop` and `forceKill` (the kill of the group),
 * and `settle` (or `drain`, then `settle`) with `result`. The state is fields, not closures,
 * so each step reads on its own.
 */
class CommandRun {
  constructor(run, captures, resolve, reject) {
    this.run = run
    this.captures = captures
    this.resolve = resolve
    this.reject = reject
    this.started = performance.now()
    this.child = undefined
    this.finished = false
    this.stopped = undefined // 'timeout' | 'abort' | 'capture'
    this.nothingToKill = false // the stop found the command exited and its group empty
    this.forced = false
    this.exited = undefined // { code, signal } once the command itself has exited
    this.letGoWanted = false // settle once the command has exited, without waiting for the pipes
    this.draining = false
    this.received = 0 // bytes read, to tell when reading has caught up after the exit
    this.spawnError = undefined
    this.captureError = undefined
    this.timeoutTimer = undefined
    this.forceTimer = undefined
    this.backstopTimer = undefined
    this.updateTimer = undefined
    this.lastUpdate = -Infinity
    // One function, so the listener added in armStops is the one settle removes.
    this.onAbort = () => this.stop('abort')
  }

  /** How long the command ran, in whole ms: 0 when it was never spawned (nothing ran). */
  elapsed() {
    if (this.child === undefined) return 0
    return Math.round(performance.now() - this.started)
  }

  // ---- spawn

  /** What runs before the spawn can settle the run on its own; otherwise spawn and wire. */
  start() {
    const { run } = this
    if (run.signal?.aborted) {
      this.stopped = 'abort'
      this.settle(undefined, undefined, `error: aborted${abortReason(run.signal)} before the command started`)
      return
    }
    const full = fileTableFull(run)
    if (full !== undefined) {
      this.settle(undefined, undefined, spawnErrorLine(run, full))
      return
    }
    if (!this.spawn()) return
    this.wireOutput()
    this.wireInput()
    this.wireExit()
    this.armStops()
  }

  /** Spawns the child as the leader of a process group (POSIX); false when the run settled instead. */
  spawn() {
    const { run } = this
    try {
      this.child = spawn(run.command, run.args, {
        cwd: run.cwd,
        env: run.env,
        shell: run.shell,
        stdio: [run.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        detached: !IS_WINDOWS,
        windowsHide: true,
      })
    } catch (error) {
      // Node throws at once for some bad values (an env value it cannot pass, ...).
      this.settle(undefined, undefined, spawnErrorLine(run, error))
      return false
    }
    // First, before anything else can throw: a spawn that failed emits 'error' on the next
    // tick, and an 'error' without a listener ends the host process. After EMFILE or ENFILE
    // the child has no stdio at all.
    this.child.on('error', (error) => {
      if (this.child.pid === undefined) {
        this.spawnError = error
        this.settle(undefined, undefined, spawnErrorLine(run, error))
      }
      // Otherwise a failed kill: the timers and 'close' still end the run.
    })
    return true
  }

  // ---- the streams and the captures

  /** Each output stream into its capture, counting what arrives. */
  wireOutput() {
    for (const stream of STREAMS) {
      const readable = this.child[stream]
      if (!readable) continue
      readable.on('data', (chunk) => this.write(stream, chunk))
      readable.on('error', () => {
        // A read error ends the stream; 'close' still comes.
      })
    }
  }

  write(stream, chunk) {
    this.received += chunk.length
    if (this.captureError !== undefined || this.finished) return
    try {
      this.captures[stream].write(chunk)
    } catch (error) {
      // Not expected; the command is not left running unseen because of it.
      this.captureError = error
      this.stop('capture')
      return
    }
    this.outputArrived()
  }

  wireInput() {
    const { stdin } = this.child
    if (!stdin) return
    // A command that exits without reading its input closes the pipe: EPIPE, not a crash.
    stdin.on('error', () => {})
    stdin.end(this.run.input)
  }

  // At most one onUpdate per interval: at once when the last was long enough ago, else at
  // the end of the interval (so the last output before a quiet spell is shown too).
  outputArrived() {
    if (this.run.onUpdate === undefined || this.updateTimer !== undefined || this.finished) return
    const wait = this.lastUpdate + this.run.updateIntervalMs - performance.now()
    if (wait <= 0) this.sendUpdate()
    else this.updateTimer = setTimeout(() => this.sendUpdate(), wait)
  }

  sendUpdate() {
    this.updateTimer = undefined
    if (this.finished) return
    // A timer may fire up to a millisecond early: the interval holds all the same.
    const early = this.lastUpdate + this.run.updateIntervalMs - performance.now()
    if (early > 0) {
      this.updateTimer = setTimeout(() => this.sendUpdate(), early)
      return
    }
    this.lastUpdate = performance.now()
    let returned
    try {
      returned = this.run.onUpdate(this.update())
    } catch (error) {
      warnUpdate(error)
      return
    }
    // A promise it returns is not waited for, but its rejection is reported, not left unhandled.
    if (returned !== null && typeof returned === 'object' && typeof returned.then === 'function') {
      Promise.resolve(returned).catch(warnUpdate)
    }
  }

  /** What onUpdate gets: the text so far, laid out as the result's. */
  update() {
    const stdout = this.captures.stdout.snapshot()
    const stderr = this.captures.stderr.snapshot()
    const durationMs = this.elapsed()
    const { text } = exec.formatClamped({ stdout, stderr, durationMs })
    return { text, stdout: stdout.text, stderr: stderr.text, durationMs, streams: { stdout, stderr } }
  }

  // ---- the exit, the timeout and the abort

  wireExit() {
    const { child, run } = this
    child.on('exit', (code, signal) => {
      this.exited = { code, signal }
      // After a stop, an empty group means that whatever still holds the pipes left it: no
      // grace brings their end.
      if (!run.waitForStreams || (this.stopped !== undefined && !IS_WINDOWS && !groupAlive(child.pid))) this.letGoWanted = true
      if (this.letGoWanted) this.drain()
    })
    // The usual end: the command exited and its output ended.
    child.on('close', (code, signal) => {
      if (this.spawnError !== undefined) return
      this.settle(code ?? undefined, signal ?? undefined, this.stopLine())
    })
  }

  armStops() {
    const { run } = this
    // A timeout longer than a timer can wait never fires (setTimeout would fire at once).
    if (run.timeoutMs !== Infinity && run.timeoutMs <= MAX_TIMER_MS) {
      this.timeoutTimer = setTimeout(() => this.stop('timeout'), run.timeoutMs)
    }
    run.signal?.addEventListener('abort', this.onAbort, { once: true })
  }

  // ---- the kill of the group

  /** Kills the group for `reason`, then SIGKILL after the grace (see forceKill). */
  stop(reason) {
    if (this.finished || this.stopped !== undefined) return
    this.stopped = reason
    const reached = killTree(this.child, this.run.killSignal)
    if (!reached && this.exited !== undefined) {
      // The command had exited and its group is empty: what holds the pipes left the group,
      // no kill reaches it, and there is nothing to give a grace to.
      this.nothingToKill = true
      this.letGo()
      return
    }
    if (this.run.forceKillAfterMs === Infinity) return
    const grace = Math.min(this.run.forceKillAfterMs, MAX_TIMER_MS)
    this.forceTimer = setTimeout(() => this.forceKill(grace), grace)
  }

  forceKill(grace) {
    const { child } = this
    this.forceTimer = undefined
    if (!IS_WINDOWS && child.pid !== undefined && groupAlive(child.pid)) {
      if (!this.finished) this.forced = true
      killTree(child, 'SIGKILL')
    }
    if (this.finished) return
    // The grace is over: the run settles once the command has exited, whatever still holds
    // the pipes. Should even SIGKILL not end it (it cannot be signalled, or is stuck in the
    // kernel), the run settles another grace later, its exit status unknown.
    this.letGo()
    if (this.exited === undefined) {
      this.backstopTimer = setTimeout(() => {
        this.exited = {}
        this.drain()
      }, grace)
    }
  }

  /** The error line of a stop (or of a failed capture), with how the group was killed. */
  stopLine() {
    const { run } = this
    const how = this.nothingToKill ? 'the command had already exited' : killedWith(run, this.forced)
    if (this.captureError !== undefined) return `error: capturing the output failed (${exec.firstLine(this.captureError)}); ${how}`
    if (this.stopped === 'timeout') return `error: timed out after ${formatCount(run.timeoutMs)} ms; ${how}`
    if (this.stopped === 'abort') return `error: aborted${abortReason(run.signal)}; ${how}`
    return undefined
  }

  // ---- settling

  letGo() {
    this.letGoWanted = true
    if (this.exited !== undefined) this.drain()
  }

  // Reads what the command wrote before it exited, then settles without waiting for the
  // pipes any longer: this end of each is closed and the text says why.
  drain() {
    if (this.draining || this.finished) return
    this.draining = true
    const drainStarted = performance.now()
    let turns = 0
    let seen = -1
    const turn = () => {
      if (this.finished) return
      const { child } = this
      // Both streams at their end (or failed): 'close' follows, nothing holds this run.
      if (STREAMS.every((stream) => !child[stream] || child[stream].readableEnded || child[stream].destroyed)) return
      // After a kill, members of the group may still be dying (on a busy machine the kernel
      // takes a while to run a killed process to its exit): their ends of the pipes close as
      // they go. Wait for the group to empty; a zombie never leaves it, hence the cap.
      if (this.stopped !== undefined && performance.now() - drainStarted < GROUP_EXIT_WAIT_MS && groupAlive(child.pid)) {
        setTimeout(turn, 5)
        return
      }
      // Everything the command wrote was in the pipes when it exited, and a turn of the event
      // loop reads it all (libuv reads up to 2 MiB per wake, more than a pipe holds): after a
      // turn in which nothing arrived, what may still come is a holder's.
      if (turns >= 2 && (this.received === seen || turns >= 32)) {
        this.settleHeldOpen()
        return
      }
      seen = this.received
      turns++
      setImmediate(turn)
    }
    setImmediate(turn)
  }

  /** Settles with what was read while something else still holds the output open. */
  settleHeldOpen() {
    const note =
      this.stopped === undefined
        ? 'note: stopped reading the output when the command exited: a background process still holds it open and was left running'
        : 'note: stopped reading the output: a process the kill did not reach (one that left the process group, as setsid and daemons do) still holds it open and was left running'
    const error = this.stopped === undefined ? note : `${this.stopLine()}\n${note}`
    this.settle(this.exited.code ?? undefined, this.exited.signal ?? undefined, error, true)
  }

  /** Settles the run once: its timers and listeners gone, its pipes closed, its captures ended. */
  settle(exitCode, signal, error, outputLeftOpen = false) {
    if (this.finished) return
    this.finished = true
    this.clearTimers()
    this.releaseStdio()
    let results
    try {
      results = { stdout: this.captures.stdout.end(), stderr: this.captures.stderr.end() }
    } catch (thrown) {
      // A notice function of the caller's threw: its error, as formatExecOutput would throw
      // it. Neither capture keeps its buffers or a spill file open or half written.
      this.captures.stdout.dispose()
      this.captures.stderr.dispose()
      this.reject(thrown)
      return
    }
    this.resolve(this.result(results, exitCode, signal, error, outputLeftOpen))
  }

  clearTimers() {
    const { child, forceTimer } = this
    clearTimeout(this.timeoutTimer)
    clearTimeout(this.updateTimer)
    clearTimeout(this.backstopTimer)
    this.run.signal?.removeEventListener('abort', this.onAbort)
    // Members of the group may still be shutting down after the signal: the SIGKILL stays
    // due for them, without keeping this process alive.
    if (forceTimer !== undefined) {
      if (child?.pid !== undefined && groupAlive(child.pid)) forceTimer.unref()
      else clearTimeout(forceTimer)
    }
  }

  // Closes this end of every pipe at once: nothing is held after the promise settles, even
  // where Node would close them a turn of the event loop later (a failed spawn) or only when
  // every holder of the other end is gone (a background process).
  releaseStdio() {
    for (const stream of ['stdin', ...STREAMS]) this.child?.[stream]?.destroy()
  }

  /** What runCommand resolves to, from the ended captures. */
  result(results, exitCode, signal, error, outputLeftOpen) {
    const durationMs = this.elapsed()
    const { text } = exec.formatClamped({ stdout: results.stdout, stderr: results.stderr, error, exitCode, signal, durationMs })
    return {
      text,
      stdout: results.stdout.text,
      stderr: results.stderr.text,
      exitCode: exitCode ?? null,
      signal: signal ?? null,
      timedOut: this.stopped === 'timeout',
      aborted: this.stopped === 'abort',
      outputLeftOpen,
      durationMs,
      spill: { stdout: results.stdout.spill?.path ?? null, stderr: results.stderr.spill?.path ?? null },
      streams: results,
    }
  }
}

// The fds a spawn opens at most: a socket pair per piped stream and the pipe that reports
// exec's failure. Node's spawn, failing with EMFILE after it opened the stdio pipes (with 4
// or 5 fds free, 6 or 7 with stdin piped), returns without closing them: 2 or 3 fds lost.
const SPAWN_FDS = 6
const SPAWN_FDS_WITH_INPUT = 8

/**
 * An EMFILE or ENFILE error, as spawn gives it, when the file table has no room for a whole
 * spawn: such a spawn is not begun. POSIX only (a Windows spawn opens no fds).
 */
function fileTableFull(run) {
  if (IS_WINDOWS) return undefined
  const opened = []
  let full
  try {
    const needed = run.input === undefined ? SPAWN_FDS : SPAWN_FDS_WITH_INPUT
    while (opened.length < needed) opened.push(fs.openSync('/dev/null', 'r'))
  } catch (error) {
    if (error.code === 'EMFILE' || error.code === 'ENFILE') {
      const file = run.shell === false ? run.command : typeof run.shell === 'string' ? run.shell : '/bin/sh'
      full = Object.assign(new Error(`spawn ${file} ${error.code}`), { code: error.code, errno: error.errno, syscall: `spawn ${file}` })
    }
    // Any other failure (no /dev/null here) says nothing of the table: spawn as usual.
  } finally {
    for (const fd of opened) fs.closeSync(fd)
  }
  return full
}

function warnUpdate(error) {
  process.emitWarning(`toolclamp: runCommand's onUpdate threw: ${messageOf(error)}`)
}

/** Whether any process of the group led by `pid` is still there (zombies included). */
function groupAlive(pid) {
  if (IS_WINDOWS) return false
  try {
    process.kill(-pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

/**
 * Sends `signal` to the child's process group (POSIX) or kills its tree (Windows). Whether
 * it reached a process (on Windows: whether the child was there to kill).
 */
function killTree(child, signal) {
  if (child?.pid === undefined) return false
  if (IS_WINDOWS) {
    if (child.exitCode !== null || child.signalCode !== null) return false
    execFile('taskkill', ['/pid', String(child.pid), '/T', '/F'], { windowsHide: true }, (error) => {
      if (error) {
        try {
          child.kill(signal)
        } catch {
          // Gone already.
        }
      }
    })
    return true
  }
  try {
    process.kill(-child.pid, signal)
    return true
  } catch (error) {
    if (error.code === 'ESRCH') return false
    // The group cannot be signalled (EPERM): the child itself at least.
    try {
      return child.kill(signal)
    } catch {
      return false
    }
  }
}

module.exports = { runCommand, RUN_OPTIONS, captureOptions }
