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
// - The status line names only what the result gives, in that order, and is left out
//   when it gives none of exitCode, signal and durationMs.

const { isUtf8 } = require('node:buffer')
const { types } = require('node:util')
const { internal } = require('./clamp.js')
const spills = require('./spill.js')

const {
  binding,
  STRATEGY_CODES,
  describe,
  checkKeys,
  isPlainObject,
  readBudget,
  readHeadRatio,
  readNotice,
  clampAndSpill,
  truncateTextChecked,
  resultFromOut,
} = internal

const STREAMS = ['stdout', 'stderr']
const DEFAULT_STREAM_CHARS = 8000
const DEFAULT_NOTICE = '[... {omitted} truncated from {stream} ...]'
const SPILL_NOTICE =
  '[... {omitted} truncated from {stream}; full {stream} saved to {spillPath} (dropped: lines {fromLine}–{toLine}) ...]'
const EXEC_OPTIONS = ['stdout', 'stderr', 'strategy', 'headRatio', 'notice', 'spill']
const LIMIT_KEYS = ['maxChars', 'maxBytes', 'maxLines']
// The keys read from a result. Other keys (execa's `command`, `failed`, ...) are ignored,
// except near misses of these (`exit_code`, `stdOut`).
const RESULT_KEYS = ['stdout', 'stderr', 'exitCode', 'signal', 'durationMs']
const NEAR_MISSES = new Map(RESULT_KEYS.map((key) => [key.toLowerCase(), key]))

/** The budgets of one stream: a number is maxChars; an object sets any of the three. */
function readStreamLimits(name, limit) {
  if (limit === undefined) return { maxChars: DEFAULT_STREAM_CHARS, maxBytes: Infinity, maxLines: Infinity }
  if (typeof limit === 'number') return { maxChars: readBudget(name, limit), maxBytes: Infinity, maxLines: Infinity }
  if (!isPlainObject(limit)) {
    throw new TypeError(
      `${name} must be a number or an object with maxChars, maxBytes or maxLines, got ${describe(limit)}`,
    )
  }
  for (const key in limit) {
    if (!LIMIT_KEYS.includes(key) && Object.hasOwn(limit, key)) {
      const near = LIMIT_KEYS.find((k) => k.toLowerCase() === key.toLowerCase())
      throw new TypeError(
        near
          ? `unknown option ${JSON.stringify(`${name}.${key}`)}; did you mean ${JSON.stringify(`${name}.${near}`)}?`
          : `unknown option ${JSON.stringify(`${name}.${key}`)}; expected one of ${LIMIT_KEYS.join(', ')}`,
      )
    }
  }
  if (limit.maxChars === undefined && limit.maxBytes === undefined && limit.maxLines === undefined) {
    throw new TypeError(`${name} must set at least one of maxChars, maxBytes, maxLines`)
  }
  return {
    maxChars: readBudget(`${name}.maxChars`, limit.maxChars),
    maxBytes: readBudget(`${name}.maxBytes`, limit.maxBytes),
    maxLines: readBudget(`${name}.maxLines`, limit.maxLines),
  }
}

/** `{stream}` in a template becomes the stream's name; `{{` and `}}` stay escapes. */
function templateFor(template, stream) {
  return template.replace(/\{\{|\}\}|\{stream\}/g, (match) => (match === '{stream}' ? stream : match))
}

/**
 * The notice of one stream: the caller's (`user`, a template or function for this stream,
 * undefined when not given) and the one to plan with, in the form the binding takes. A
 * function gets the facts plus `stream`.
 */
function readStreamNotice(notice, stream) {
  let user
  if (notice === undefined) user = undefined
  else if (typeof notice === 'string') user = templateFor(notice, stream)
  else if (typeof notice === 'function') user = (facts) => notice({ ...facts, stream })
  else throw new TypeError(`notice must be a string or a function, got ${describe(notice)}`)
  // Checks a template now, so a bad one fails even when every stream fits.
  return { user, planned: readNotice(user === undefined ? templateFor(DEFAULT_NOTICE, stream) : user) }
}

// The options of a call without any, read once: most callers pass none.
let defaultOptions

function readOptions(options) {
  if (options === undefined) return (defaultOptions ??= readOptions({}))
  if (!isPlainObject(options)) throw new TypeError(`options must be an object, got ${describe(options)}`)
  checkKeys(options, EXEC_OPTIONS)
  const strategy = options.strategy === undefined ? 'tail' : options.strategy
  if (typeof strategy !== 'string' || STRATEGY_CODES[strategy] === undefined) {
    throw new TypeError(`strategy must be "head", "tail" or "headTail", got ${describe(strategy)}`)
  }
  const headRatio = readHeadRatio(options.headRatio)
  const spill = spills.readSpill(options.spill, 'exec')
  const streams = {}
  for (const stream of STREAMS) {
    streams[stream] = {
      ...readStreamLimits(stream, options[stream]),
      notice: readStreamNotice(options.notice, stream),
    }
  }
  return { strategy, headRatio, streams, spill }
}

/** A stream's content: a string or a Uint8Array (a Buffer is one); undefined and null are empty. */
function readStream(result, stream) {
  const value = result[stream]
  if (value === undefined || value === null) return ''
  if (typeof value === 'string' || types.isUint8Array(value)) return value
  throw new TypeError(`result.${stream} must be a string, Buffer or Uint8Array, got ${describe(value)}`)
}

function readResult(result) {
  if (!isPlainObject(result)) {
    throw new TypeError(`result must be an object with stdout and stderr, got ${describe(result)}`)
  }
  // Other keys are the caller's (execa results carry many), but a misspelt one must not
  // silently drop a stream or the exit code.
  for (const key of Object.keys(result)) {
    if (RESULT_KEYS.includes(key)) continue
    const near = NEAR_MISSES.get(key.toLowerCase().replace(/[_-]/g, ''))
    if (near) throw new TypeError(`unknown key ${JSON.stringify(key)} in result; did you mean ${JSON.stringify(near)}?`)
  }
  const { exitCode, signal, durationMs } = result
  if (exitCode !== undefined && exitCode !== null) {
    if (typeof exitCode !== 'number') throw new TypeError(`result.exitCode must be an integer, got ${describe(exitCode)}`)
    if (!Number.isInteger(exitCode)) throw new RangeError(`result.exitCode must be an integer, got ${describe(exitCode)}`)
  }
  if (signal !== undefined && signal !== null && (typeof signal !== 'string' || signal === '')) {
    throw new TypeError(`result.signal must be a signal name such as "SIGTERM", got ${describe(signal)}`)
  }
  if (durationMs !== undefined && durationMs !== null) {
    if (typeof durationMs !== 'number') {
      throw new TypeError(`result.durationMs must be a number, got ${describe(durationMs)}`)
    }
    if (!(Number.isFinite(durationMs) && durationMs >= 0)) {
      throw new RangeError(`result.durationMs must be a finite non-negative number, got ${describe(durationMs)}`)
    }
  }
  return {
    stdout: readStream(result, 'stdout'),
    stderr: readStream(result, 'stderr'),
    exitCode: exitCode ?? undefined,
    signal: signal ?? undefined,
    durationMs: durationMs ?? undefined,
  }
}

/**
 * Clamps a Uint8Array as UTF-8 without decoding it whole. The info mirrors truncateText's
 * result; counts are of the decoded text, offsets are bytes of its UTF-8.
 */
function clampBytes(bytes, limits, strategy, headRatio, notice) {
  // Node's SIMD check is several times faster than validating in Rust; valid bytes (the
  // usual case) are then planned without a second look. (A detached array has length 0,
  // and isUtf8 throws on it.)
  const knownValid = bytes.length === 0 || isUtf8(bytes)
  const text = binding.planBuffer(
    bytes,
    STRATEGY_CODES[strategy],
    limits.maxChars,
    limits.maxBytes,
    limits.maxLines,
    headRatio,
    notice,
    knownValid,
  )
  return resultFromOut(text, strategy)
}

function clampWithNotice(content, limits, strategy, headRatio, notice) {
  if (typeof content !== 'string') return clampBytes(content, limits, strategy, headRatio, notice)
  return truncateTextChecked(content, limits, strategy, headRatio, notice)
}

/**
 * Clamps one stream. With `spill`, a stream that is cut is saved whole (a Buffer as its
 * bytes) to its own file, named in the stream's notice and reported in `info.spill`.
 */
function clampStream(content, limits, strategy, headRatio, spill, stream) {
  const plan = (notice) => clampWithNotice(content, limits, strategy, headRatio, notice)
  if (spill === undefined) return plan(limits.notice.planned)
  return clampAndSpill(spill, `-${stream}`, limits.notice.user, templateFor(SPILL_NOTICE, stream), limits.notice.planned, content, plan)
}

function section(stream, content, text) {
  if (content.length === 0) return `<${stream}>(empty)</${stream}>`
  const lineEnd = text === '' || text.endsWith('\n') ? '' : '\n'
  return `<${stream}>\n${text}${lineEnd}</${stream}>`
}

/** `1234567` → `1,234,567`. */
function groupThousands(n) {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',')
}

function statusLine(exitCode, signal, durationMs) {
  const parts = []
  if (exitCode !== undefined) parts.push(`exit code: ${exitCode}`)
  if (signal !== undefined) parts.push(`signal: ${signal}`)
  if (durationMs !== undefined) parts.push(`duration: ${groupThousands(Math.round(durationMs))} ms`)
  return parts.join(', ')
}

/**
 * The text a model sees for a shell command, with each stream clamped on its own, and
 * what happened to each stream. See the layout at the top of this file.
 */
function formatExecOutput(result, options) {
  const { stdout, stderr, exitCode, signal, durationMs } = readResult(result)
  const { strategy, headRatio, streams, spill } = readOptions(options)
  const stdoutInfo = clampStream(stdout, streams.stdout, strategy, headRatio, spill, 'stdout')
  const stderrInfo = clampStream(stderr, streams.stderr, strategy, headRatio, spill, 'stderr')
  const parts = [section('stdout', stdout, stdoutInfo.text), section('stderr', stderr, stderrInfo.text)]
  const status = statusLine(exitCode, signal, durationMs)
  if (status !== '') parts.push(status)
  return { text: parts.join('\n'), stdout: stdoutInfo, stderr: stderrInfo }
}

module.exports = { formatExecOutput }
