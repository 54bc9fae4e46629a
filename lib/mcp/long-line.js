'use strict'

// A JSON-RPC line of megabytes, held once. Read the usual way, such a line is in memory four
// times over: its chunks, the joined bytes, the decoded text and the parsed value (and the
// allocator keeps what each step frees for the next). Here its chunks go to the binding as
// they arrive (src/line.rs), JSON.parse reads only a skeleton of it (the line with its long
// strings left out), and the long strings come back as JS strings over the line's own bytes
// where they are ASCII: the parsed message costs about one copy of the line.

const { randomBytes } = require('node:crypto')
const native = require('../native.js')

// String values at least this long (as written) are left out of the skeleton.
const LONG_STRING_BYTES = 4096
// After this many bytes appended, the chunks they came in are collected (see append).
const COLLECT_EVERY_BYTES = 16 * 1024 * 1024

let gc
/**
 * The garbage collector, when Node lets a running program have it (--expose-gc, set at run
 * time: the CLI's node is started without flags), or null: without it memory is higher, and
 * nothing else differs.
 */
function collector() {
  if (gc === undefined) {
    try {
      require('node:v8').setFlagsFromString('--expose-gc')
      gc = require('node:vm').runInNewContext('gc')
    } catch {}
    if (typeof gc !== 'function') gc = null
  }
  return gc
}

/**
 * A full collection, once a long line is done with: its strings go, and their memory is back
 * before the next line comes. (V8 would collect them only after the next copy is made.)
 */
function collectGarbage() {
  collector()?.()
}

class LongLine {
  constructor() {
    this.handle = native.jsonLineCreate()
    this.length = 0
    // Bytes appended since the last young-generation collection (see append).
    this.sinceCollected = 0
  }

  /**
   * Copies `part` into the line. The chunks a pipe delivers are each a new allocation that V8
   * frees only when it collects its young objects, which it does rarely while they are few:
   * a young-generation collection every 16 MiB lets the allocator reuse their memory, instead
   * of holding them all beside the line (about 1 ms each).
   */
  append(part) {
    native.jsonLineAppend(this.handle, part)
    this.length += part.length
    this.sinceCollected += part.length
    if (this.sinceCollected >= COLLECT_EVERY_BYTES) {
      this.sinceCollected = 0
      collector()?.({ type: 'minor' })
    }
  }

  /**
   * The message the line holds with its long strings still out (markers stand for them: see
   * restore), or undefined when the line is not UTF-8 JSON that JSON.parse takes.
   */
  skeleton() {
    this.marker = `toolclamp-long-string-${randomBytes(12).toString('hex')}-`
    const text = native.jsonLineScan(this.handle, LONG_STRING_BYTES, this.marker)
    if (text === null) return undefined
    // The length as written of each long string, by its index.
    this.lengths = native.jsonLineLengths(this.handle)
    return JSON.parse(text)
  }

  /** The index of the long string `value` (a value of the skeleton) stands for, or undefined. */
  indexOf(value) {
    if (typeof value !== 'string' || !value.startsWith(this.marker)) return undefined
    const index = value.slice(this.marker.length)
    const k = Number(index)
    return String(k) === index && k < this.lengths.length ? k : undefined
  }

  /**
   * `value` (the skeleton) with its long strings put back: the value JSON.parse gives of the
   * whole line. The strings `inPlace` names (true for all of them, or an array of their
   * indices) are decoded where they were written when they hold escapes, at no cost in
   * memory, and bytes() has the line no more.
   */
  restore(value, inPlace = false) {
    const flags = new Uint8Array(this.lengths.length)
    if (inPlace === true) flags.fill(1)
    else if (Array.isArray(inPlace)) for (const k of inPlace) flags[k] = 1
    const strings = native.jsonLineStrings(this.handle, flags)
    return strings.length === 0 ? value : putBack(value, (item) => strings[this.indexOf(item)])
  }

  /** The line's bytes as they came (a Buffer), or null once restore decoded a string in place. */
  bytes() {
    return native.jsonLineBytes(this.handle)
  }

  dispose() {
    native.jsonLineDispose(this.handle)
  }
}

/**
 * Puts long strings back into `value` where `standsFor(item)` gives one, walking it without
 * recursion.
 */
function putBack(value, standsFor) {
  const top = standsFor(value)
  if (top !== undefined) return top
  const stack = [value]
  while (stack.length > 0) {
    const container = stack.pop()
    if (container === null || typeof container !== 'object') continue
    for (const key of Object.keys(container)) {
      const item = container[key]
      const string = typeof item === 'string' ? standsFor(item) : undefined
      // Defined, not assigned: a key `__proto__` that JSON.parse made is a property like any other.
      if (string !== undefined)
        Object.defineProperty(container, key, { value: string, writable: true, enumerable: true, configurable: true })
      else if (item !== null && typeof item === 'object') stack.push(item)
    }
  }
  return value
}

module.exports = { LongLine, LONG_STRING_BYTES, collectGarbage }
