'use strict'

// createOutputCapture: a command's output clamped while it arrives, in memory bounded by
// the limits. The Rust core (crates/toolclamp-core/src/capture.rs) decodes, counts and keeps
// the head and tail; its plan of them is exactly the plan of the whole text, so end() gives
// what truncateText would give for everything written. This file reads the options, streams
// the full output to a spill file when asked, and shapes results like truncateText's.
//
// What a capture holds goes as soon as it is not needed: end() and dispose() free the native
// buffers and close (and keep or remove) the spill file; a capture dropped without either
// gets its spill file closed and removed once it is collected, and its buffers freed by the
// binding's finalizer.

const { failure, invalid, mustBe } = require('../common/errors.js')
const { types } = require('node:util')

const native = require('../native.js')
const spills = require('../files/spill.js')
const { TempFile } = require('../files/publish.js')
const { interruptedNotice, spillNotices, SPILL_NOTICE } = require('../common/notices.js')
const terminal = require('../text/terminal.js')
const { resultOf } = require('../text/clamp.js')
const {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  LIMIT_KEYS,
  fitsByLength,
  readHeadRatio,
  readLimits,
  readNotice,
  readOptionsObject,
  readSnap,
  readStrategy,
} = require('../common/options.js')

// Up to this many units of text a capture keeps them itself before it needs the binding.
const SHORT_MAX = 256
const SURROGATE = /[\ud800-\udfff]/

const CAPTURE_OPTIONS = [...LIMIT_KEYS, 'strategy', 'headRatio', 'notice', 'snap', 'spill', 'normalize', 'raw']
const STRATEGIES = ['tail', 'head', 'headTail']

// The spill notice is truncateText's (SPILL_NOTICE): the lines are those of the
// spill file. A capture whose input was cut short (the CLI on Ctrl-C) has a notice that
// counts what came so far, and says so (interruptedNotice).
/** The method that ends a capture as interrupted: an internal one, for the CLI. */
const END_INTERRUPTED = Symbol('toolclamp.endInterrupted')

/**
 * The limits of a capture. None given: the library's defaults (51,200 bytes, 2,000 lines).
 * Memory is bounded by the byte and char limits, or by a limit in an encoding's tokens (no
 * token of it stands for more than its longest), so when none of them is set (only
 * `maxLines`), `maxBytes` is 51,200 too. A tokenizer function bounds nothing: a limit in
 * its tokens needs a byte or char limit beside it.
 */
function readCaptureLimits(options) {
  const { maxChars, maxBytes, maxLines, maxTokens, tokenizer } = options
  if (maxChars === undefined && maxBytes === undefined && maxLines === undefined && maxTokens === undefined) {
    // Read anyway, so that a bad tokenizer fails here as everywhere.
    return readLimits({ maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES, tokenizer })
  }
  const limits = readLimits({ maxChars, maxBytes, maxLines, maxTokens, tokenizer })
  checkCounterBound(limits)
  if (limits.maxChars === Infinity && limits.maxBytes === Infinity && limits.tokens === undefined) limits.maxBytes = DEFAULT_MAX_BYTES
  return limits
}

/**
 * Throws when `limits` (as read) cut by a tokenizer function's tokens with neither bytes nor
 * chars limited: how much text one of its tokens stands for is unknown, so nothing would
 * bound what a capture keeps. `prefix` names the options (`stdout.`).
 */
function checkCounterBound(limits, prefix = '') {
  if (limits.tokens?.tokenizer.count === undefined || limits.maxChars !== Infinity || limits.maxBytes !== Infinity) return
  throw invalid(
    TypeError,
    `${prefix}maxBytes or ${prefix}maxChars is required with a tokenizer function: a capture keeps only what its limits allow, and how much text one token of a function stands for is unknown`,
  )
}

// A capture with a spill that is dropped without end() or dispose() would keep its fd and
// its .tmp file as long as this process lives: once it is collected, they are let go of
// (the registry holds the TempFile, which holds nothing of the capture).
const abandoned = new FinalizationRegistry((temp) => temp.discard())

/**
 * The spill file of a capture: written as the output arrives under a temporary name (0600,
 * created exclusively in `dir`), published whole (lib/files/publish.js) only if the result
 * cuts, removed otherwise. Any failure stops the spill and is reported; the capture goes on.
 */
class StreamingSpill {
  constructor(spill) {
    this.spill = spill
    this.file = spills.spillPath(spill)
    this.temp = undefined
    this.error = undefined
    try {
      spills.makeDirectory(spill.dir)
      this.temp = new TempFile(this.file)
    } catch (error) {
      this.fail(error)
    }
  }

  get failed() {
    return this.error !== undefined
  }

  write(bytes) {
    if (this.temp === undefined || bytes.length === 0) return
    try {
      this.temp.write(bytes)
    } catch (error) {
      this.fail(error)
    }
  }

  /** Keeps the file (`keep`) or removes it; returns the report `{ path }` or `{ path: null, error }`. */
  close(keep) {
    const { temp } = this
    if (temp === undefined) return { path: null, error: this.error }
    if (!keep) {
      this.discard()
      return { path: this.file }
    }
    try {
      temp.publish()
      this.temp = undefined
      return { path: this.file }
    } catch (error) {
      this.fail(error)
      return { path: null, error }
    }
  }

  /** Gives the file up: closed and removed, nothing reported. */
  discard() {
    this.temp?.discard()
    this.temp = undefined
  }

  fail(error) {
    this.error ??= error
    // Already failing; the first error is the one reported.
    this.discard()
  }
}

/**
 * What createOutputCapture returns. Its methods are the capture's own closures, so they
 * work unbound too (`stream.on('data', capture.write)`); `totals` and the interrupted end
 * are on the prototype. Made by a class, not an object literal: a literal with a getter,
 * or a property defined on it afterwards, costs several times a whole short capture.
 */
class OutputCapture {
  #totals
  #endInterrupted

  constructor(write, snapshot, end, settledHead, dispose, totals, endInterrupted) {
    this.write = write
    this.snapshot = snapshot
    this.end = end
    this.settledHead = settledHead
    this.dispose = dispose
    this.#totals = totals
    this.#endInterrupted = endInterrupted
  }

  get totals() {
    return this.#totals()
  }

  [END_INTERRUPTED]() {
    return this.#endInterrupted()
  }
}

function checkChunk(chunk) {
  if (typeof chunk === 'string' || types.isUint8Array(chunk)) return
  throw mustBe(TypeError, `chunk`, `a string, Buffer or Uint8Array`, chunk)
}

/**
 * A capture of output written in chunks (see index.d.ts): `write(chunk)`, `snapshot()`,
 * `end()`, `totals`, `settledHead()` for a head shown before the end, and `dispose()`.
 */
function createOutputCapture(options = {}) {
  return openCapture(options, SPILL_NOTICE, undefined)
}

/**
 * createOutputCapture with the default notices of a spill: `namedDefault` names the file,
 * `unnamedDefault` serves when it could not be written (runCommand's name the stream).
 * An `interruptible` capture may be ended with [END_INTERRUPTED]: a head it settles leaves
 * room for that notice.
 */
function openCapture(options, namedDefault, unnamedDefault, interruptible = false) {
  const opts = readOptionsObject(options, CAPTURE_OPTIONS)
  const { strategy, headRatio, notice, snap, spill, normalize, raw } = opts
  const limits = readCaptureLimits(opts)
  const name = readStrategy(strategy, 'tail')
  if (!STRATEGIES.includes(name)) {
    throw mustBe(TypeError, `strategy`, `"tail", "head" or "headTail" for a capture`, strategy)
  }
  const ratio = readHeadRatio(headRatio)
  const lineSnap = readSnap(snap, 'none')
  const flags = terminal.readNormalize(normalize)
  if (raw !== undefined && typeof raw !== 'boolean') throw mustBe(TypeError, `raw`, `a boolean`, raw)
  if (raw && flags !== 0) throw invalid(TypeError, 'raw and normalize cannot be combined: normalised output is text')
  if (raw && limits.tokens !== undefined) throw invalid(TypeError, 'raw and an exact tokenizer cannot be combined: tokens count text')
  const spillTo = spills.readSpill(spill, 'output', spills.SPILL_KEYS_WITH_CALLBACK)
  // With a spill, the notice may name the file ({spillPath}): spillNotices reads it.
  const checked = spillTo === undefined ? readNotice(notice) : undefined
  // Short text written as strings is kept here until it no longer fits by its length, or
  // until the binding is needed: a capture of a few lines that fit ends without it (see
  // end). Not with a spill (written as output comes), normalisation or raw bytes.
  let pending = spillTo === undefined && flags === 0 && raw !== true ? [] : undefined
  let pendingLength = 0
  let handle = pending === undefined ? native.captureCreate(name, limits, ratio, flags, raw === true) : undefined
  /** The native capture, made now and fed what was kept here, if it was not yet. */
  function opened() {
    if (handle === undefined) {
      handle = native.captureCreate(name, limits, ratio, flags, false)
      const chunks = pending
      pending = undefined
      for (const chunk of chunks) totals = native.captureWrite(handle, chunk, false).totals
    }
    return handle
  }
  const stream = spillTo === undefined ? undefined : new StreamingSpill(spillTo)
  const notices = stream === undefined ? undefined : spillNotices(notice, stream.file, namedDefault, unnamedDefault)
  // The notice to plan with: the one naming the file while the file is being written.
  let interrupted = false
  const noticeNow = () => {
    const now = notices === undefined ? checked : stream.failed ? notices.unnamed : notices.named
    return interrupted ? interruptedNotice(now, name) : now
  }

  let totals = { chars: 0, bytes: 0, lines: 0 }
  let ended
  let disposed = false
  // The method whose plan may be calling the notice function right now. A snapshot() or
  // settledHead() from there would plan again, call the notice again, and never end; an
  // end() from end()'s own notice could not return its result.
  let planning
  // Whether `abandoned` holds the capture (only with a spill file being written).
  let registered = false

  /** Runs a native call of `method` that may call the notice function. */
  function plan(method, call) {
    const outer = planning
    planning = method
    try {
      return call()
    } finally {
      planning = outer
    }
  }

  /** Whether `length` units of text kept here still fit by their length alone. */
  function fitsPending(length) {
    return length <= SHORT_MAX && fitsByLength(length, limits)
  }

  /**
   * end() of a capture whose text was all kept here: truncateText's plan of it, which is
   * the capture's (a capture plans exactly the whole text), taken without the binding when
   * the text fits (native.planText counts a short text that fits). Undefined when the
   * binding must plan it: a text that may carry a notice (which a capture reads as text)
   * or holds a surrogate (a lone one, which a capture decodes as U+FFFD).
   */
  function endShort() {
    const text = pending.length === 1 ? pending[0] : pending.join('')
    if (text.includes('[... ') || SURROGATE.test(text)) return undefined
    const plan = native.planText(text, name, limits, ratio, noticeNow(), true, lineSnap, false)
    if (plan.cut) return undefined
    const { chars, bytes, lines } = plan.total
    totals = { chars, bytes, lines }
    return shape(plan, text)
  }

  function refuseReentry(method) {
    if (planning === undefined || (method === 'end' && planning !== 'end')) return
    throw failure(Error, `toolclamp: ${method}() called from its own notice function`, 'TOOLCLAMP_REENTRANT_CALL')
  }

  function refuseDisposed() {
    if (disposed) throw failure(Error, 'toolclamp: the capture was disposed', 'TOOLCLAMP_CAPTURE_DISPOSED')
  }

  /** A plan's result, truncateText's shape; `text` is the plan's own unless given. */
  function shape(plan, text = plan.text) {
    const result = resultOf(text, name, plan)
    result.strategy = name
    return result
  }

  /**
   * Lets go of what the capture holds: the native buffers (first: refused while a plan of
   * this capture is under way), the spill file unless kept, the registration.
   */
  function release() {
    // Text still kept here is counted first: `totals` go on saying what was written.
    if (pending !== undefined && pendingLength > 0 && ended === undefined) opened()
    pending = undefined
    if (handle !== undefined) native.captureDispose(handle)
    stream?.discard()
    if (registered) abandoned.unregister(capture)
  }

  const capture = new OutputCapture(
    function write(chunk) {
      checkChunk(chunk)
      if (ended !== undefined) throw failure(Error, 'toolclamp: write after end', 'TOOLCLAMP_CAPTURE_ENDED')
      refuseDisposed()
      if (typeof chunk !== 'string' && native.byteLengthOf.call(chunk) === 0) return
      if (chunk === '') return
      if (pending !== undefined && typeof chunk === 'string' && fitsPending(pendingLength + chunk.length)) {
        pending.push(chunk)
        pendingLength += chunk.length
        return
      }
      const echo = stream !== undefined && !stream.failed
      const answer = native.captureWrite(opened(), chunk, echo)
      totals = answer.totals
      if (echo) stream.write(answer.added)
    },
    function snapshot() {
      refuseReentry('snapshot')
      if (ended !== undefined) return ended
      refuseDisposed()
      return shape(plan('snapshot', () => native.captureResult(opened(), false, noticeNow(), lineSnap, limits.tokens)))
    },
    function end() {
      refuseReentry('end')
      if (ended !== undefined) return ended
      refuseDisposed()
      const short = pending === undefined ? undefined : endShort()
      if (short !== undefined) {
        ended = short
        release()
        return short
      }
      const echo = stream !== undefined && !stream.failed
      const finished = native.captureFinish(opened(), echo)
      totals = finished.totals
      if (echo) stream.write(finished.added)
      let result = shape(plan('end', () => native.captureResult(handle, true, noticeNow(), lineSnap, limits.tokens)))
      let report
      if (stream !== undefined) {
        const named = !stream.failed
        report = stream.close(result.truncated)
        if (result.truncated && named && report.path === null) {
          // The file could not be kept: the notice must not name it.
          result = shape(plan('end', () => native.captureResult(handle, true, notices.unnamed, lineSnap, limits.tokens)))
        }
        if (result.truncated) result.spill = report
      }
      ended = result
      // Nothing more is asked of the native capture: its buffers go now, not when it is collected.
      release()
      if (report !== undefined && result.truncated) spills.reportSpill(spillTo.onSpill, report)
      return result
    },
    function settledHead() {
      refuseReentry('settledHead')
      if (ended !== undefined) return undefined
      refuseDisposed()
      if (name !== 'head') return undefined
      // Room for the notice of an interruption, which the head shown now must leave.
      const settleNotice = interruptible ? interruptedNotice(noticeNow(), name) : noticeNow()
      const head = plan('settledHead', () => native.captureSettleHead(opened(), settleNotice, lineSnap))
      return head === null ? undefined : head
    },
    function dispose() {
      if (disposed || ended !== undefined) return
      release()
      disposed = true
    },
    function totalsNow() {
      if (pending !== undefined && pendingLength > 0) opened()
      return { ...totals }
    },
    function endInterrupted() {
      if (ended === undefined) interrupted = true
      return capture.end()
    },
  )
  if (stream?.temp !== undefined) {
    abandoned.register(capture, stream.temp, capture)
    registered = true
  }
  return capture
}

// ---------------------------------------------------------------------------------------
// Clamping text whose normalised form might not fit in a string: through a capture, which
// keeps only what the limits allow, so only the clamped text is ever built.

/** A long string is fed in slices of this many units (a pair split between two is joined). */
const FEED_UNITS = 1 << 24

/**
 * The end kept to resolve `auto`: more than the core's auto window (2,048 units) reads, so
 * the end it reads is that of the whole text.
 */
const AUTO_END_CHARS = 1 << 16

function feed(capture, text) {
  if (typeof text !== 'string') return capture.write(text)
  for (let at = 0; at < text.length; at += FEED_UNITS) capture.write(text.slice(at, at + FEED_UNITS))
}

function captured(text, options, namedDefault, unnamedDefault) {
  const capture = openCapture(options, namedDefault, unnamedDefault)
  try {
    feed(capture, text)
    return capture.end()
  } finally {
    capture.dispose()
  }
}

/** `auto` as it reads the end of `text` normalised: 'head' or 'headTail'. */
function autoOfEnd(text, normalize, headRatio) {
  const options = { maxChars: AUTO_END_CHARS, strategy: 'tail', notice: '', normalize }
  const end = captured(text, options, SPILL_NOTICE, undefined).text
  const plan = native.planText(end, 'auto', { maxChars: 0, maxBytes: Infinity, maxLines: Infinity }, headRatio, '', true)
  return plan.strategy === 'headTail' ? 'headTail' : 'head'
}

/**
 * The clamp of `text` (a string or UTF-8 bytes) normalised, through a capture with
 * `options` (a capture's; `strategy` may be 'auto', `headRatio` is read, `limits` are the
 * limits as read): the result truncateText gives for the normalised text, in memory bounded
 * by the limits. With neither chars nor bytes limited, the capture keeps at most as many
 * bytes as a string can hold units, so that the result is a string.
 */
function clampNormalized(text, options, limits, namedDefault = SPILL_NOTICE, unnamedDefault = undefined) {
  const { strategy, headRatio, normalize } = options
  const unbounded = limits.maxChars === Infinity && limits.maxBytes === Infinity
  const resolved = {
    ...options,
    ...(unbounded ? { maxBytes: native.MAX_STRING_LENGTH } : {}),
    strategy: strategy === 'auto' ? autoOfEnd(text, normalize, headRatio) : strategy,
  }
  return captured(text, resolved, namedDefault, unnamedDefault)
}

module.exports = { createOutputCapture, openCapture, readCaptureLimits, checkCounterBound, clampNormalized, END_INTERRUPTED }
