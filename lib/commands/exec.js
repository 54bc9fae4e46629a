'use strict'

// formatExecOutput: the text a model sees for a shell command. Each stream is clamped on
// its own (its end by default, where errors and summaries are), so a huge stdout never
// pushes stderr out; both streams are always shown, then the exit status.
//
// Strings go through truncateText. A Buffer or Uint8Array is planned as UTF-8 bytes in
// Rust and only the kept text is decoded: a child process's 16 MiB never becomes a string.
//
// Layout, parts joined by '\n' (no trailing newline):
//
//   <stdout>
//   [... 12,000 chars truncated from stdout ...]
//   ...the kept end of stdout...
//   </stdout>
//   <stderr>(empty)</stderr>
//   exit code: 1, signal: SIGTERM, duration: 1,234 ms
//
// - A stream's text sits between its tags on lines of its own; a missing final newline is
//   added before the closing tag. (Limits too small for any text or notice leave
//   `<stdout>\n</stdout>`.)
// - An empty stream ('', an empty Buffer, undefined or null) is `<stdout>(empty)</stdout>`.
// - When the command did not run or was stopped (a spawn error such as ENOENT, output over
//   maxBuffer, a timeout, a kill or cancel), one line after the streams says so:
//   `error: command not found (spawn npm ENOENT)`, `error: timed out, killed with SIGTERM`.
//   A plain non-zero exit is no error line: the status line says it.
// - The status line names only what the result gives, in that order, and is left out
//   when it gives none of exitCode, signal and durationMs.
//
// Accepted results: ours ({ stdout, stderr, exitCode, signal, durationMs }), spawnSync's
// (status, signal, error), an execFile callback's error and output ({ error, stdout,
// stderr }) or its promisified rejection (an Error carrying stdout, stderr, code, signal,
// killed), and execa's results and errors (exitCode, signal, timedOut, isCanceled,
// isTerminated, isMaxBuffer). The exit code is the first of exitCode, status, a numeric
// `code` of the result, a numeric `code` of its error.

const { invalid, mustBe } = require('../common/errors.js')
const { DEFAULT_HEAD_RATIO, EXEC_STREAM_MAX_CHARS } = require('../common/defaults.js')
const { types } = require('node:util')
const native = require('../native.js')
const spills = require('../files/spill.js')
const notices = require('../common/notices.js')
const { resultOf, truncateWith } = require('../text/clamp.js')
const terminal = require('../text/terminal.js')
const { formatCount, isError, messageOf, read } = require('../common/format.js')
const {
  isPlainObject,
  nearMiss,
  readLimitArgument,
  readHeadRatio,
  readSnap,
  readStrategy,
  readNotice,
  readOptionsObject,
} = require('../common/options.js')

const STREAMS = ['stdout', 'stderr']
const EXEC_OPTIONS = ['stdout', 'stderr', 'strategy', 'headRatio', 'notice', 'spill', 'snap', 'normalize']
// The keys read from a result. Other keys (execa's `command`, `failed`, ...) are ignored,
// except near misses of these (`exit_code`, `stdOut`).
const RESULT_KEYS = ['stdout', 'stderr', 'exitCode', 'signal', 'durationMs']
// Keys Node and execa results carry that are read too, or known and ignored: never near misses.
const KNOWN_KEYS = [
  ...RESULT_KEYS,
  'status',
  'error',
  'code',
  'killed',
  'timedOut',
  'isCanceled',
  'isTerminated',
  'isMaxBuffer',
  'failed',
  'shortMessage',
  'originalMessage',
  'output',
  'pid',
  'cmd',
  'command',
  'escapedCommand',
  'all',
  'stdio',
]
// How long an error's explanation may be: one line of a few hundred chars.
const ERROR_LINE = { maxChars: 300, maxBytes: Infinity, maxLines: Infinity }

/** The budgets of one stream: a number is maxChars; an object sets any of the three. */
function readStreamLimits(name, limit) {
  if (limit === undefined) return { maxChars: EXEC_STREAM_MAX_CHARS, maxBytes: Infinity, maxLines: Infinity }
  return readLimitArgument(name, limit)
}

/**
 * The notice of one stream: the caller's (`user`, a template or function for this stream,
 * undefined when not given) and the one to plan with, in the form the binding takes. A
 * function gets the facts plus `stream`.
 */
function readStreamNotice(notice, stream) {
  let user
  if (notice === undefined) user = undefined
  else if (typeof notice === 'string') user = notices.templateFor(notice, stream)
  else if (typeof notice === 'function') user = (facts) => notice({ ...facts, stream })
  else throw mustBe(TypeError, `notice`, `a string or a function`, notice)
  // Checks a template now, so a bad one fails even when every stream fits.
  return { user, planned: readNotice(user === undefined ? notices.templateFor(notices.STREAM_NOTICE, stream) : user) }
}

// The options of a call without any, read once: most callers pass none.
let defaultOptions

function readOptions(options) {
  if (options === undefined) return (defaultOptions ??= readOptions({}))
  return readExecOptions(readOptionsObject(options, EXEC_OPTIONS))
}

/**
 * The options of EXEC_OPTIONS from an object whose keys were checked (runCommand's, which
 * has more): each value read once.
 */
function readExecOptions({ strategy, headRatio, spill, notice, stdout, stderr, snap, normalize }) {
  const limits = { stdout, stderr }
  const streams = {}
  for (const stream of STREAMS) {
    streams[stream] = { ...readStreamLimits(stream, limits[stream]), notice: readStreamNotice(notice, stream) }
  }
  return {
    strategy: readStrategy(strategy, 'tail'),
    headRatio: readHeadRatio(headRatio),
    // Output for a model: whole lines by default.
    snap: readSnap(snap, 'line'),
    streams,
    spill: spills.readSpill(spill, 'exec'),
    // Terminal output as a terminal would finally show it, before anything is counted.
    normalize: terminal.readNormalize(normalize),
  }
}

/** A stream's content: a string or a Uint8Array (a Buffer is one); undefined and null are empty. */
function readStream(result, stream) {
  const value = result[stream]
  if (value === undefined || value === null) return ''
  if (typeof value === 'string' || types.isUint8Array(value)) return value
  throw mustBe(TypeError, `result.${stream}`, `a string, Buffer or Uint8Array`, value)
}

/** A property of an error or result, or undefined when it cannot be read. */
function quietly(object, key) {
  if (typeof object !== 'object' || object === null) return undefined
  return read(object, key)
}

/** The first line of an error's message, bounded. */
function firstLine(error) {
  const message = messageOf(error).trim().split('\n', 1)[0]
  return truncateWith(message, ERROR_LINE, 'head', DEFAULT_HEAD_RATIO, undefined).text
}

/**
 * What went wrong around the command, in one line for the model, or undefined: a spawn
 * error (ENOENT, EACCES), output over maxBuffer, a timeout, a kill or cancel. A plain
 * non-zero exit is no error here: the status line says it.
 *
 * `error` is the result's `error` (spawnSync, an execFile callback's first argument passed
 * along), or the result itself when it is an Error (a rejected promisified execFile, an
 * ExecaError).
 */
function errorLine(result, error, signal) {
  const code = quietly(error, 'code')
  const timedOut = quietly(result, 'timedOut') === true || code === 'ETIMEDOUT'
  const killedBy = signal ?? quietly(error, 'signal') ?? undefined
  if (code === 'ENOENT') return `error: command not found (${firstLine(error)})`
  if (code === 'EACCES') return `error: permission denied (${firstLine(error)})`
  if (code === 'ENOBUFS' || code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER' || quietly(result, 'isMaxBuffer') === true) {
    return 'error: output exceeded maxBuffer; the command was stopped and its output is cut'
  }
  if (timedOut) return `error: timed out${killedBy ? `, killed with ${killedBy}` : ''}`
  if (quietly(result, 'isCanceled') === true) return `error: canceled${killedBy ? `, killed with ${killedBy}` : ''}`
  if ((quietly(error, 'killed') === true || quietly(result, 'isTerminated') === true) && killedBy) {
    return `error: killed with ${killedBy}`
  }
  // An error with no exit code and no signal: the command never ran or never finished.
  if (isError(error) && typeof code !== 'number' && code !== undefined && !killedBy) return `error: ${firstLine(error)}`
  return undefined
}

function readResult(result) {
  if (!isPlainObject(result)) {
    throw mustBe(TypeError, `result`, `an object with stdout and stderr`, result)
  }
  // Other keys are the caller's (execa results carry many), but a misspelt one must not
  // silently drop a stream or the exit code.
  for (const key of Object.keys(result)) {
    if (KNOWN_KEYS.includes(key)) continue
    const near = nearMiss(key, RESULT_KEYS)
    if (near !== undefined) throw invalid(TypeError, `unknown key ${JSON.stringify(key)} in result; did you mean ${JSON.stringify(near)}?`)
  }
  // Exit code, first found: exitCode (execa, ours), status (spawnSync), a numeric code
  // (an execFile error used as the result), the numeric code of result.error.
  const error = isError(result) ? result : quietly(result, 'error')
  const status = quietly(result, 'status')
  const resultCode = quietly(result, 'code')
  const errorCode = typeof resultCode === 'number' ? undefined : quietly(error, 'code')
  const numericCode = typeof resultCode === 'number' ? resultCode : typeof errorCode === 'number' ? errorCode : undefined
  const exitCode = result.exitCode ?? (typeof status === 'number' ? status : undefined) ?? numericCode
  const signal = result.signal ?? (typeof quietly(error, 'signal') === 'string' ? quietly(error, 'signal') : undefined)
  const { durationMs } = result
  if (exitCode !== undefined && exitCode !== null) {
    if (typeof exitCode !== 'number') throw mustBe(TypeError, `result.exitCode`, `an integer`, exitCode)
    if (!Number.isInteger(exitCode)) throw mustBe(RangeError, `result.exitCode`, `an integer`, exitCode)
  }
  if (signal !== undefined && signal !== null && (typeof signal !== 'string' || signal === '')) {
    throw mustBe(TypeError, `result.signal`, `a signal name such as "SIGTERM"`, signal)
  }
  if (durationMs !== undefined && durationMs !== null) {
    if (typeof durationMs !== 'number') {
      throw mustBe(TypeError, `result.durationMs`, `a number`, durationMs)
    }
    if (!(Number.isFinite(durationMs) && durationMs >= 0)) {
      throw mustBe(RangeError, `result.durationMs`, `a finite non-negative number`, durationMs)
    }
  }
  return {
    stdout: readStream(result, 'stdout'),
    stderr: readStream(result, 'stderr'),
    exitCode: exitCode ?? undefined,
    signal: signal ?? undefined,
    durationMs: durationMs ?? undefined,
    error: errorLine(result, error, signal ?? undefined),
  }
}

/**
 * Clamps a stream's content: a string with truncateText's plan, a Uint8Array as UTF-8
 * without decoding it whole (counts of the decoded text, offsets in bytes of its UTF-8).
 */
function clampWithNotice(content, limits, strategy, headRatio, notice, snap) {
  if (typeof content === 'string') return truncateWith(content, limits, strategy, headRatio, notice, snap)
  if (limits.tokens !== undefined) {
    // Exact tokens count the text a model reads: the bytes are decoded, and the offsets are
    // the decoded string's.
    return truncateWith(native.bufferView(content).toString('utf8'), limits, strategy, headRatio, notice, snap)
  }
  const plan = native.planBytes(content, strategy, limits, headRatio, notice, snap)
  return resultOf(plan.text, strategy, plan)
}

/**
 * Clamps one stream. With `spill`, a stream that is cut is saved whole (a Buffer as its
 * bytes) to its own file, named in the stream's notice and reported in `info.spill`.
 */
function clampStream(content, limits, strategy, headRatio, snap, spill, stream) {
  const plan = (notice) => clampWithNotice(content, limits, strategy, headRatio, notice, snap)
  if (spill === undefined) return plan(limits.notice.planned)
  return spills.clampAndSpill(
    spill,
    `-${stream}`,
    limits.notice.user,
    notices.templateFor(notices.STREAM_SPILL_NOTICE, stream),
    limits.notice.planned,
    content,
    plan,
  )
}

/** A stream between its tags; `info` is its clamp result (an empty stream has no bytes). */
function section(stream, info) {
  const { text } = info
  if (info.totalBytes === 0) return `<${stream}>(empty)</${stream}>`
  const lineEnd = text === '' || text.endsWith('\n') ? '' : '\n'
  return `<${stream}>\n${text}${lineEnd}</${stream}>`
}

function statusLine(exitCode, signal, durationMs) {
  let line = ''
  if (exitCode !== undefined) line = `exit code: ${exitCode}`
  if (signal !== undefined) line += `${line === '' ? '' : ', '}signal: ${signal}`
  if (durationMs !== undefined) line += `${line === '' ? '' : ', '}duration: ${formatCount(Math.round(durationMs))} ms`
  return line
}

/**
 * The text a model sees for a shell command, with each stream clamped on its own, and
 * what happened to each stream. See the layout at the top of this file.
 */
function formatExecOutput(result, options) {
  const read = readResult(result)
  const { exitCode, signal, durationMs, error } = read
  const opts = readOptions(options)
  const { strategy, headRatio, snap, streams, spill, normalize } = opts
  const clamp = (stream) => {
    const content = read[stream]
    // Normalised text that might not fit in a string: only the clamped text is built.
    if (terminal.mayOutgrowString(content, normalize)) return clampNormalizedStream(content, opts, stream)
    return clampStream(terminal.normalizeWith(content, normalize), streams[stream], strategy, headRatio, snap, spill, stream)
  }
  return formatClamped({ stdout: clamp('stdout'), stderr: clamp('stderr'), error, exitCode, signal, durationMs })
}

/** One stream clamped normalised through a capture, as runCommand clamps it. */
function clampNormalizedStream(content, read, stream) {
  const options = require('./run.js').captureOptions(read, stream)
  const named = notices.templateFor(notices.STREAM_SPILL_NOTICE, stream)
  const unnamed = notices.templateFor(notices.STREAM_NOTICE, stream)
  return require('./capture.js').clampNormalized(content, options, read.streams[stream], named, unnamed)
}

/**
 * The layout of formatExecOutput from streams already clamped: `stdout` and `stderr` are
 * clamp results (truncateText's shape; a capture's `end()` or `snapshot()`), `error` the
 * error line or undefined, and the status as readResult reads it (undefined when unknown).
 */
function formatClamped({ stdout, stderr, error, exitCode, signal, durationMs }) {
  // Joined with +, not an array's join: a few short parts, and join costs more than the rest of a small call.
  let text = `${section('stdout', stdout)}\n${section('stderr', stderr)}`
  if (error !== undefined) text += `\n${error}`
  const status = statusLine(exitCode ?? undefined, signal ?? undefined, durationMs ?? undefined)
  if (status !== '') text += `\n${status}`
  return { text, stdout, stderr }
}

module.exports = {
  formatExecOutput,
  // For lib/commands/run.js, not the public API: the same options and layout for a command
  // whose streams were captured as they came.
  EXEC_OPTIONS,
  readExecOptions,
  errorLine,
  firstLine,
  formatClamped,
}
