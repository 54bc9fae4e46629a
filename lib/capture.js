'use strict'

// createOutputCapture: a command's output clamped while it arrives, in memory bounded by
// the limits. The Rust core (crates/toolclamp-core/src/capture.rs) decodes, counts and keeps
// the head and tail; its plan of them is exactly the plan of the whole text, so end() gives
// what truncateText would give for everything written. This file reads the options, streams
// the full output to a spill file when asked, and shapes results like truncateText's.

const fs = require('node:fs')
const path = require('node:path')
const { randomBytes } = require('node:crypto')
const { types } = require('node:util')

const native = require('./native.js')
const spills = require('./spill.js')
const terminal = require('./terminal.js')
const { describe } = require('./format.js')
const { resultOf } = require('./clamp.js')
const {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  LIMIT_KEYS,
  readHeadRatio,
  readLimits,
  readNotice,
  readOptionsObject,
  readSnap,
  readStrategy,
} = require('./options.js')

const CAPTURE_OPTIONS = [...LIMIT_KEYS, 'strategy', 'headRatio', 'notice', 'snap', 'spill', 'normalize', 'raw']
const STRATEGIES = ['tail', 'head', 'headTail']

// As truncateText's spill notice: the lines are those of the spill file.
const SPILL_NOTICE =
  '[... {omitted} truncated at the {where}; full output saved to {spillPath} (dropped: lines {fromLine}–{toLine}) ...]'

// A capture whose input was cut short (the CLI on Ctrl-C): its notice counts what came so
// far, and says so. The default notice, as a template, with the words added (a capture's
// strategy says where it cuts: the middle only with headTail).
const INTERRUPTED_DEFAULT = '[... {omitted} truncated at the {where} so far (input interrupted) ...]'
const INTERRUPTED_DEFAULT_MIDDLE = '[... {omitted} truncated in the middle so far (input interrupted) ...]'
const INTERRUPTED = ' (input interrupted; counts so far)'
/** The method that ends a capture as interrupted: an internal one, for the CLI. */
const END_INTERRUPTED = Symbol('toolclamp.endInterrupted')

/** A notice as it reads when the input was interrupted: its counts are of what came. */
function interruptedNotice(notice, strategy) {
  if (notice === undefined) return strategy === 'headTail' ? INTERRUPTED_DEFAULT_MIDDLE : INTERRUPTED_DEFAULT
  if (typeof notice === 'function') return (facts) => `${notice(facts)}${INTERRUPTED}`
  // A caller who asked for no notice gets none.
  return notice === '' ? notice : `${notice}${INTERRUPTED}`
}

/**
 * The limits of a capture. None given: the library's defaults (51,200 bytes, 2,000 lines).
 * Memory is bounded by the byte and char limits, so when neither is set (only `maxLines`),
 * `maxBytes` is 51,200 too.
 */
function readCaptureLimits(options) {
  const { maxChars, maxBytes, maxLines, maxTokens, tokenizer } = options
  if (maxChars === undefined && maxBytes === undefined && maxLines === undefined && maxTokens === undefined) {
    // Read anyway, so that a bad tokenizer fails here as everywhere.
    return readLimits({ maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES, tokenizer })
  }
  const limits = readLimits({ maxChars, maxBytes, maxLines, maxTokens, tokenizer })
  if (limits.maxChars === Infinity && limits.maxBytes === Infinity) limits.maxBytes = DEFAULT_MAX_BYTES
  return limits
}

/**
 * The spill file of a capture: written as the output arrives under a temporary name (0600,
 * created exclusively in `dir`), given its final name only if the result cuts, removed
 * otherwise. Any failure stops the spill and is reported; the capture goes on.
 */
class StreamingSpill {
  constructor(spill) {
    this.spill = spill
    this.file = spills.spillPath(spill)
    this.temp = path.join(spill.dir, `.${path.basename(this.file)}.${randomBytes(4).toString('hex')}.tmp`)
    this.fd = undefined
    this.error = undefined
    try {
      spills.makeDirectory(spill.dir)
      this.fd = fs.openSync(this.temp, 'wx', 0o600)
    } catch (error) {
      this.fail(error)
    }
  }

  get failed() {
    return this.error !== undefined
  }

  write(bytes) {
    if (this.fd === undefined || bytes.length === 0) return
    try {
      let done = 0
      while (done < bytes.length) done += fs.writeSync(this.fd, bytes, done, bytes.length - done)
    } catch (error) {
      this.fail(error)
    }
  }

  /** Keeps the file (`keep`) or removes it; returns the report `{ path }` or `{ path: null, error }`. */
  close(keep) {
    if (this.fd === undefined) return { path: null, error: this.error }
    try {
      fs.closeSync(this.fd)
      this.fd = undefined
      if (keep) spills.linkNew(this.temp, this.file)
      fs.unlinkSync(this.temp)
      return { path: this.file }
    } catch (error) {
      this.fail(error)
      return { path: null, error }
    }
  }

  fail(error) {
    this.error ??= error
    if (this.fd !== undefined) {
      try {
        fs.closeSync(this.fd)
      } catch {
        // Already failing; the first error is the one reported.
      }
      this.fd = undefined
    }
    try {
      fs.unlinkSync(this.temp)
    } catch {
      // Never created, or already gone.
    }
  }
}

function checkChunk(chunk) {
  if (typeof chunk === 'string' || types.isUint8Array(chunk)) return
  throw new TypeError(`chunk must be a string, Buffer or Uint8Array, got ${describe(chunk)}`)
}

/**
 * A capture of output written in chunks (see index.d.ts): `write(chunk)`, `snapshot()`,
 * `end()`, `totals`, and `settledHead()` for a head shown before the end.
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
    throw new TypeError(`strategy must be "tail", "head" or "headTail" for a capture, got ${describe(strategy)}`)
  }
  const ratio = readHeadRatio(headRatio)
  const lineSnap = readSnap(snap, 'none')
  const flags = terminal.readNormalize(normalize)
  if (raw !== undefined && typeof raw !== 'boolean') throw new TypeError(`raw must be a boolean, got ${describe(raw)}`)
  if (raw && flags !== 0) throw new TypeError('raw and normalize cannot be combined: normalised output is text')
  const spillTo = spills.readSpill(spill, 'output', spills.SPILL_KEYS_WITH_CALLBACK)
  // With a spill, the notice may name the file ({spillPath}): spillNotices reads it.
  const checked = spillTo === undefined ? readNotice(notice) : undefined
  const handle = native.captureCreate(name, limits, ratio, flags, raw === true)
  const stream = spillTo === undefined ? undefined : new StreamingSpill(spillTo)
  const notices =
    stream === undefined ? undefined : spills.spillNotices(notice, stream.file, namedDefault, unnamedDefault)
  // The notice to plan with: the one naming the file while the file is being written.
  let interrupted = false
  const noticeNow = () => {
    const now = notices === undefined ? checked : stream.failed ? notices.unnamed : notices.named
    return interrupted ? interruptedNotice(now, name) : now
  }

  let totals = { chars: 0, bytes: 0, lines: 0 }
  let ended
  let reentered = false

  function shape(plan) {
    const result = resultOf(plan.text, name, plan)
    result.strategy = name
    return result
  }

  const capture = {
    write(chunk) {
      checkChunk(chunk)
      if (ended !== undefined) throw new Error('toolclamp: write after end')
      if (typeof chunk !== 'string' && native.byteLengthOf.call(chunk) === 0) return
      if (chunk === '') return
      const echo = stream !== undefined && !stream.failed
      const answer = native.captureWrite(handle, chunk, echo)
      totals = answer.totals
      if (echo) stream.write(answer.added)
    },
    snapshot() {
      if (ended !== undefined) return ended
      return shape(native.captureResult(handle, false, noticeNow(), lineSnap))
    },
    end() {
      if (ended !== undefined) return ended
      if (reentered) throw new Error('toolclamp: end() called from its own notice function')
      reentered = true
      try {
        const echo = stream !== undefined && !stream.failed
        const finished = native.captureFinish(handle, echo)
        totals = finished.totals
        if (echo) stream.write(finished.added)
        let result = shape(native.captureResult(handle, true, noticeNow(), lineSnap))
        if (stream !== undefined) {
          const named = !stream.failed
          const report = stream.close(result.truncated)
          if (result.truncated) {
            // The file could not be kept: the notice must not name it.
            if (named && report.path === null) result = shape(native.captureResult(handle, true, notices.unnamed, lineSnap))
            result.spill = report
            spills.reportSpill(spillTo.onSpill, report)
          }
        }
        ended = result
        return result
      } finally {
        reentered = false
      }
    },
    settledHead() {
      if (name !== 'head' || ended !== undefined) return undefined
      // Room for the notice of an interruption, which the head shown now must leave.
      const head = native.captureSettleHead(handle, interruptible ? interruptedNotice(noticeNow(), name) : noticeNow(), lineSnap)
      return head === null ? undefined : head
    },
    get totals() {
      return { ...totals }
    },
  }
  Object.defineProperty(capture, END_INTERRUPTED, {
    value() {
      if (ended === undefined) interrupted = true
      return capture.end()
    },
  })
  return capture
}

module.exports = { createOutputCapture, openCapture, readCaptureLimits, END_INTERRUPTED, SPILL_NOTICE }
