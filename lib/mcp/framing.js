'use strict'

// MCP over stdio frames JSON-RPC messages as lines: each message is one line of UTF-8 ending
// in `\n` (a `\r` before it is JSON whitespace, kept as it came). Lines are cut here from
// chunks in time linear in the stream: each byte is looked at once (the search for the next
// `\n` starts where the last one ended, never at the start of the line), and a line that
// spans chunks is joined once, when its `\n` arrives. (The SDK's stdio transport appends
// every chunk to one buffer and searches it from the start again: quadratic on a long line,
// and it refuses lines over 10 MB.) A line longer than `maxLineBytes` is not held: only its
// first and last bytes are kept, so that its id can still be read (see proxy.js). With
// `onLongLine`, a line is moved to the binding once it passes 1 MiB (see long-line.js), and
// every chunk after that goes there as it comes: JS holds none of it.

const { LongLine } = require('./long-line.js')

const NEWLINE = 0x0a
// What is kept of each end of a line too long to hold: enough for a JSON-RPC envelope's id.
const END_BYTES = 64 * 1024
// A line longer than this that spans chunks goes to onLongLine, when given, as its parts.
const LONG_LINE_BYTES = 1024 * 1024

/** `head` with the first bytes of `part` added, until it has END_BYTES of them (a bounded copy). */
function headWith(head, part) {
  return head.length < END_BYTES ? Buffer.concat([head, part.subarray(0, END_BYTES - head.length)]) : head
}

/**
 * A splitter of a byte stream into lines. `onLine(line)` receives each line as a Buffer,
 * without its `\n` (any `\r` kept); `onOversized({ head, tail, bytes })` each line longer
 * than `maxLineBytes`, with its first and last bytes (at most 64 KiB each) and its length;
 * `onLongLine(line)`, when given, each line of more than `longLineBytes` (1 MiB) that came in
 * several chunks, as a LongLine (the receiver's to dispose).
 * `push(chunk)` feeds bytes; `end()` hands over what follows the last `\n`, if anything, as
 * a last line. A line handed over is the splitter's no more: it may be a view of a chunk
 * pushed, valid as long as that chunk is not reused.
 */
class LineSplitter {
  constructor(onLine, { maxLineBytes = Infinity, onOversized, onLongLine, longLineBytes = LONG_LINE_BYTES } = {}) {
    this.onLine = onLine
    this.onOversized = onOversized
    this.onLongLine = onLongLine
    this.maxLineBytes = maxLineBytes
    this.longLineBytes = longLineBytes
    this.reset()
  }

  push(chunk) {
    let start = 0
    for (;;) {
      const at = chunk.indexOf(NEWLINE, start)
      if (at === -1) {
        if (start < chunk.length) this.keep(chunk.subarray(start))
        return
      }
      this.finish(chunk.subarray(start, at))
      start = at + 1
    }
  }

  end() {
    if (this.length > 0) this.finish(Buffer.alloc(0))
  }

  /** Adds a part of the line under way. */
  keep(part) {
    this.length += part.length
    if (this.head === null) {
      this.parts.push(part)
    } else {
      this.long?.append(part)
      this.head = headWith(this.head, part)
      this.keepTail(part)
    }
    if (this.oversized) return
    if (this.length > this.maxLineBytes) this.overflow()
    else if (this.long === null && this.onLongLine !== undefined && this.length > this.longLineBytes) this.moveToBinding()
  }

  /** Keeps the last END_BYTES of the line under way: whole parts before them are dropped. */
  keepTail(part) {
    this.tail.push(part)
    this.tailLength += part.length
    while (this.tail.length > 1 && this.tailLength - this.tail[0].length >= END_BYTES) this.tailLength -= this.tail.shift().length
  }

  /** The line under way goes to the binding, and so will every part after: JS keeps its ends only. */
  moveToBinding() {
    this.long = new LongLine()
    this.head = Buffer.alloc(0)
    for (const part of this.parts) {
      this.long.append(part)
      this.head = headWith(this.head, part)
      this.keepTail(part)
    }
    this.parts = []
  }

  /** The line under way is too long to hold: keep its first and its last bytes only (they may overlap). */
  overflow() {
    this.oversized = true
    if (this.long !== null) {
      this.long.dispose()
      this.long = null
      return
    }
    const whole = Buffer.concat(this.parts, this.length)
    this.head = Buffer.from(whole.subarray(0, END_BYTES))
    this.tail = [Buffer.from(whole.subarray(Math.max(0, whole.length - END_BYTES)))]
    this.tailLength = this.tail[0].length
    this.parts = []
  }

  /** The line under way ends with `last`: hand it over. */
  finish(last) {
    if (this.oversized) {
      this.keep(last)
      const tail = Buffer.concat(this.tail, this.tailLength)
      const oversized = { head: this.head, tail: tail.subarray(Math.max(0, tail.length - END_BYTES)), bytes: this.length }
      this.reset()
      this.onOversized?.(oversized)
      return
    }
    if (this.length + last.length > this.maxLineBytes) {
      this.keep(last)
      return this.finish(Buffer.alloc(0))
    }
    if (this.long !== null) {
      const { long } = this
      if (last.length > 0) long.append(last)
      this.reset()
      return this.onLongLine(long)
    }
    if (this.parts.length === 0) {
      this.reset()
      return this.onLine(last)
    }
    const { parts } = this
    const length = this.length + last.length
    parts.push(last)
    this.reset()
    this.onLine(Buffer.concat(parts, length))
  }

  reset() {
    // The parts of the line under way, and its length.
    this.parts = []
    this.length = 0
    // Once the line is not held in parts (in the binding, or over maxLineBytes): its first
    // bytes, and its last ones so far.
    this.head = null
    this.tail = []
    this.tailLength = 0
    // Over longLineBytes, with onLongLine: the line in the binding.
    this.long = null
    // Over maxLineBytes: the line is not held at all.
    this.oversized = false
  }
}

module.exports = { LineSplitter, END_BYTES, LONG_LINE_BYTES }
