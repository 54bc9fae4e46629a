'use strict'

// MCP over stdio frames JSON-RPC messages as lines: each message is one line of UTF-8 ending
// in `\n` (a `\r` before it is JSON whitespace, kept as it came). Lines are cut here from
// chunks in time linear in the stream: each byte is looked at once (the search for the next
// `\n` starts where the last one ended, never at the start of the line), and a line that
// spans chunks is joined once, when its `\n` arrives. (The SDK's stdio transport appends
// every chunk to one buffer and searches it from the start again: quadratic on a long line,
// and it refuses lines over 10 MB.) A line longer than `maxLineBytes` is not held: only its
// first and last bytes are kept, so that its id can still be read (see proxy.js).

const NEWLINE = 0x0a
// What is kept of each end of a line too long to hold: enough for a JSON-RPC envelope's id.
const END_BYTES = 64 * 1024
// A line longer than this that spans chunks goes to onLongLine, when given, as its parts.
const LONG_LINE_BYTES = 1024 * 1024

/**
 * A splitter of a byte stream into lines. `onLine(line)` receives each line as a Buffer,
 * without its `\n` (any `\r` kept); `onOversized({ head, tail, bytes })` each line longer
 * than `maxLineBytes`, with its first and last bytes (at most 64 KiB each) and its length;
 * `onLongLine(parts, length)`, when given, each line of more than 1 MiB that came in several
 * chunks, as the array of its parts (the receiver's to empty) and its length.
 * `push(chunk)` feeds bytes; `end()` hands over what follows the last `\n`, if anything, as
 * a last line. A line handed over is the splitter's no more: it may be a view of a chunk
 * pushed, valid as long as that chunk is not reused.
 */
class LineSplitter {
  constructor(onLine, { maxLineBytes = Infinity, onOversized, onLongLine } = {}) {
    this.onLine = onLine
    this.onOversized = onOversized
    this.onLongLine = onLongLine
    this.maxLineBytes = maxLineBytes
    // The parts of the line under way, and their length.
    this.parts = []
    this.length = 0
    // Over maxLineBytes: the line's first bytes, and its last ones so far.
    this.head = null
    this.tail = []
    this.tailLength = 0
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
      if (this.length > this.maxLineBytes) this.overflow()
      return
    }
    // The first bytes, until there are END_BYTES of them (a bounded copy).
    if (this.head.length < END_BYTES) this.head = Buffer.concat([this.head, part.subarray(0, END_BYTES - this.head.length)])
    this.tail.push(part)
    this.tailLength += part.length
    // Only the last END_BYTES are needed: drop whole parts before them.
    while (this.tail.length > 1 && this.tailLength - this.tail[0].length >= END_BYTES) this.tailLength -= this.tail.shift().length
  }

  /** The line under way is too long to hold: keep its first and its last bytes only (they may overlap). */
  overflow() {
    const whole = Buffer.concat(this.parts, this.length)
    this.head = Buffer.from(whole.subarray(0, END_BYTES))
    this.tail = [Buffer.from(whole.subarray(Math.max(0, whole.length - END_BYTES)))]
    this.tailLength = this.tail[0].length
    this.parts = []
  }

  /** The line under way ends with `last`: hand it over. */
  finish(last) {
    if (this.head !== null) {
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
    if (this.parts.length === 0) {
      this.reset()
      return this.onLine(last)
    }
    const { parts } = this
    const length = this.length + last.length
    parts.push(last)
    this.reset()
    // A long line's parts are handed over as they are: the receiver joins them and lets them
    // go (emptying the array), so they are never held beside the line and its text.
    if (this.onLongLine !== undefined && length > LONG_LINE_BYTES) return this.onLongLine(parts, length)
    this.onLine(Buffer.concat(parts, length))
  }

  reset() {
    this.parts = []
    this.length = 0
    this.head = null
    this.tail = []
    this.tailLength = 0
  }
}

module.exports = { LineSplitter, END_BYTES, LONG_LINE_BYTES }
