'use strict'

// The proxy: an MCP server started as a child over stdio, and the client on the proxy's own
// stdin and stdout. Lines go through as they came, byte for byte and in order, except the
// answers to the client's tools/call requests (and tasks/result for a task a tools/call
// started), which are clamped (lib/mcp/clamp.js). Every line is handled synchronously, as
// it arrives, so nothing can overtake anything.
//
// The server leads a process group of its own (POSIX): stopping it stops whatever it
// started too. When the server exits, crashes or closes its stdout, every request it left
// unanswered gets a JSON-RPC error and the proxy exits; when the client closes stdin, the
// server's stdin is closed, and the server is given 2 s to exit, then SIGTERM, 2 s more,
// then SIGKILL (what the MCP specification asks of a client, and what the SDK's client does).

const { spawn } = require('node:child_process')
const os = require('node:os')
const { LineSplitter } = require('./framing.js')
const { collectGarbage } = require('./long-line.js')
const { ResultClamp } = require('./clamp.js')
const { formatCount } = require('../common/format.js')

const NEWLINE = Buffer.from('\n')
const GRACE_MS = 2000
// After the server exits, what it wrote before is still read, for at most this long.
const DRAIN_MS = 1000
// The JSON-RPC error of a request the server never answered (the SDK's ConnectionClosed),
// and of one whose answer the proxy could not relay.
const CONNECTION_CLOSED = -32000
const INTERNAL_ERROR = -32603
const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP']
// The most bytes one decoded byte is written as: `\u0041` for `A`.
const MOST_ESCAPED = 6

/** A key for a JSON-RPC id (a string or a number): `"1"` and `1` are different ids. */
function keyOf(id) {
  return typeof id === 'string' ? `s${id}` : `n${id}`
}

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** A short, one-line view of a line that was dropped. */
function preview(text) {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}...` : text)
}

/**
 * This process's peak resident memory, in KiB. On Linux the kernel's VmHWM: getrusage's
 * maxRSS outlives exec there, so a proxy started by a large process would report that
 * process's peak.
 */
function peakRssKiB() {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))
    if (match !== null) return Number(match[1])
  } catch {}
  return process.resourceUsage().maxRSS
}

class McpProxy {
  /**
   * `options`: parseMcpArgs's. `io`: `{ input, output, errors }`, the client's streams
   * (process.stdin, process.stdout and process.stderr by default).
   */
  constructor(options, io = {}) {
    this.options = options
    this.input = io.input ?? process.stdin
    this.output = io.output ?? process.stdout
    this.errors = io.errors ?? process.stderr
    this.clamp = new ResultClamp({ ...options, log: (text) => this.log(text) })
    // The client's requests the server has not answered: key → { id, method, tool, task, cancelled, toolResult }.
    this.pending = new Map()
    // Tasks a tools/call started: taskId → the tool's name.
    this.tasks = new Map()
    this.child = null
    this.finished = false
    // The client closed stdin (it sends nothing more, and may still read), or its stdout broke.
    this.inputEnded = false
    this.outputBroken = false
    this.serverGone = false
  }

  log(text) {
    this.errors.write(`toolclamp mcp: ${String(text).replace(/\s*\n\s*/g, ' ')}\n`)
  }

  /** Starts the server and relays until one side ends; resolves to the exit code. */
  run() {
    return new Promise((resolve) => {
      this.resolve = resolve
      this.startServer()
      this.readClient()
      this.onSignal = (signal) => this.interrupted(signal)
      for (const signal of INTERRUPT_SIGNALS) process.on(signal, this.onSignal)
    })
  }

  startServer() {
    const { command, args } = this.options
    const group = process.platform !== 'win32'
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], detached: group, windowsHide: true })
    this.child = child
    this.group = group
    child.on('error', (error) =>
      this.serverEnded(`could not be started (${error.code === 'ENOENT' ? 'command not found' : error.message})`, 1),
    )
    child.on('exit', (code, signal) => this.serverExited(code, signal))
    // A server gone leaves its stdin broken: its requests are answered when it is seen gone.
    child.stdin.on('error', () => {})
    const { maxMessageBytes } = this.options
    const splitter = new LineSplitter((line) => this.fromServer(line), {
      maxLineBytes: maxMessageBytes,
      onOversized: (line) => this.oversizedFromServer(line),
      onLongLine: (line) => this.longFromServer(line),
    })
    child.stdout.on('data', (chunk) => splitter.push(chunk))
    child.stdout.on('end', () => {
      splitter.end()
      this.stdoutEnded = true
      if (this.exitedWith !== undefined) this.serverEnded(this.exitedWith.reason, this.exitedWith.code)
      // A server that closes its stdout cannot answer: it is stopped, as if the client left.
      else this.stop()
    })
    child.stdout.on('error', () => {})
  }

  readClient() {
    const splitter = new LineSplitter((line) => this.fromClient(line))
    this.input.on('data', (chunk) => splitter.push(chunk))
    this.input.on('end', () => {
      splitter.end()
      this.clientClosed()
    })
    this.input.on('error', () => this.clientClosed())
    this.output.on('error', () => {
      this.outputBroken = true
      this.clientClosed()
    })
  }

  // -------------------------------------------------------------------------------------
  // Client to server: passed on as it came; requests are noted, to know their answers.
  // -------------------------------------------------------------------------------------

  fromClient(line) {
    let message
    try {
      message = JSON.parse(line.toString('utf8'))
    } catch {
      // Not JSON: the server answers it (a parse error), as it would without the proxy.
    }
    if (Array.isArray(message)) for (const item of message) this.noteClientMessage(item)
    else this.noteClientMessage(message)
    this.toServer(line)
  }

  noteClientMessage(message) {
    if (!isObject(message)) return
    const { method, id, params } = message
    if (typeof method !== 'string') return
    if (method === 'notifications/cancelled') {
      // Its answer may still come, and is still clamped; but none is owed any more.
      const entry = isObject(params) ? this.pending.get(keyOf(params.requestId)) : undefined
      if (entry !== undefined) entry.cancelled = true
      return
    }
    if (typeof id !== 'string' && typeof id !== 'number') return
    // toolResult: the answer is a tool's result (a CallToolResult), which is clamped.
    const entry = { id, method, tool: undefined, task: false, cancelled: false, toolResult: method === 'tools/call' }
    if (method === 'tools/call' && isObject(params)) {
      if (typeof params.name === 'string') entry.tool = params.name
      entry.task = params.task !== undefined
    } else if (method === 'tasks/result' && isObject(params) && this.tasks.has(params.taskId)) {
      entry.tool = this.tasks.get(params.taskId)
      entry.toolResult = true
    }
    this.pending.set(keyOf(id), entry)
  }

  toServer(line) {
    if (this.serverGone || this.child === null) return
    const stdin = this.child.stdin
    if (stdin.destroyed || stdin.writableEnded) return
    stdin.write(line)
    if (!stdin.write(NEWLINE) && !this.serverBlocked) {
      // The server reads slowly: the client waits (one listener, however many lines are queued).
      this.serverBlocked = true
      this.input.pause()
      stdin.once('drain', () => {
        this.serverBlocked = false
        this.input.resume()
      })
    }
  }

  // -------------------------------------------------------------------------------------
  // Server to client: answers to tools/call are clamped; the rest goes as it came.
  // -------------------------------------------------------------------------------------

  fromServer(line) {
    this.relay(line, line.length, line.toString('utf8'))
  }

  /**
   * A line of more than 1 MiB, held by the binding (a LongLine). The answer to a tool call
   * that will be clamped is decoded in place: its long strings are read over the line's own
   * bytes, and only what the clamp keeps is copied. Any other message goes out as the bytes
   * that came. A line that is not UTF-8 JSON goes the way of a short one.
   */
  longFromServer(line) {
    let skeleton
    try {
      skeleton = line.skeleton()
      if (skeleton === undefined) return this.fromServer(line.bytes())
      // What the proxy reads of a message it only passes on is its envelope: the skeleton.
      const message = this.readsResult(skeleton) ? line.restore(skeleton, this.decodedInPlace(skeleton, line)) : skeleton
      this.relayMessage(message, line.length, () => line.bytes())
    } catch (error) {
      // Nothing the server sends may stop the proxy; the request waiting for it is answered.
      this.unread(isObject(skeleton) ? skeleton.id : undefined, `was ${formatCount(line.length)} bytes`, `not read (${error.message})`)
    } finally {
      line.dispose()
      // The line and its strings are garbage now: their memory goes back before the next.
      collectGarbage()
    }
  }

  /**
   * Whether the proxy reads the result `message` (a skeleton) carries: a tool's result, or the
   * tools/list whose schemas it learns. Anything else goes out as it came, read no further
   * than its id.
   */
  readsResult(message) {
    if (!isObject(message)) return true
    if (typeof message.method === 'string') return false
    const entry = this.pendingFor(message.id)
    if (entry === undefined) return false
    return entry.method === 'tools/list' || entry.toolResult
  }

  /**
   * The long strings of `message` (a skeleton of `line`) that may be decoded where they were
   * written: none, unless it answers a pending tool call whose text blocks alone are over the
   * tool's byte budget even decoded (a string decoded is at least a sixth of its bytes as
   * written: `\u0041` is one byte). Then those blocks' strings: the clamp cuts the text, and
   * the answer goes out written anew, never as it came, which a line decoded in place no
   * longer is. Any other answer may still go out as it came.
   */
  decodedInPlace(message, line) {
    if (!isObject(message) || !isObject(message.result)) return []
    const entry = this.pendingFor(message.id)
    if (entry === undefined || !entry.toolResult) return []
    const options = this.clamp.optionsFor(entry.tool)
    const { content } = message.result
    if (options === null || !Array.isArray(content)) return []
    const strings = []
    let written = 0
    for (const block of content) {
      const k = isObject(block) && block.type === 'text' ? line.indexOf(block.text) : undefined
      if (k === undefined) continue
      strings.push(k)
      written += line.lengths[k]
    }
    return written > options.maxBytes * MOST_ESCAPED ? strings : []
  }

  /**
   * Relays a line from the server: `raw` (its bytes, or null to encode `text` again) when it
   * goes out unchanged, its clamped answer written again otherwise, nothing when it is no
   * message.
   */
  relay(raw, rawBytes, text) {
    let message
    try {
      message = JSON.parse(text)
    } catch {
      message = undefined
    }
    if (message === null || typeof message !== 'object') {
      // A server's stray print (a log line on stdout): no client could read it as a message.
      if (text !== '' && text !== '\r') {
        this.log(`dropped a line of the server's stdout that is not a JSON-RPC message: ${preview(text)}`)
      }
      return
    }
    this.relayMessage(message, rawBytes, () => raw ?? Buffer.from(text))
  }

  /**
   * Relays `message` (parsed from a line of `rawBytes` bytes): clamped and written again, or
   * as it came, `asItCame()` (null when that is gone: it is then written again, the same value).
   */
  relayMessage(message, rawBytes, asItCame) {
    if (message === null || typeof message !== 'object') {
      this.log(`dropped a line of the server's stdout that is not a JSON-RPC message (${formatCount(rawBytes)} bytes)`)
      return
    }
    let next
    if (Array.isArray(message)) {
      let changed = false
      const answers = message.map((item) => {
        const answer = this.answer(item, rawBytes)
        if (answer !== item) changed = true
        return answer
      })
      next = changed ? answers : message
    } else {
      next = this.answer(message, rawBytes)
    }
    if (next !== message) return this.toClient(Buffer.from(JSON.stringify(next)))
    this.toClient(asItCame() ?? Buffer.from(JSON.stringify(message)))
  }

  /** The client's request the server has not answered with id `id`, if any (an id is a string or a number). */
  pendingFor(id) {
    return typeof id === 'string' || typeof id === 'number' ? this.pending.get(keyOf(id)) : undefined
  }

  /** A message from the server as the client gets it: the same object unless it is a result clamped. */
  answer(message, rawBytes) {
    if (!isObject(message) || typeof message.method === 'string') return message
    const { id } = message
    const entry = this.pendingFor(id)
    if (entry === undefined) return message
    this.pending.delete(keyOf(id))
    if (!Object.hasOwn(message, 'result')) return message
    const { result } = message
    if (entry.method === 'tools/list') {
      this.clamp.learnTools(result)
      return message
    }
    if (entry.method === 'tools/call' && entry.task && isObject(result) && isObject(result.task)) {
      // A task, not a result: its result comes with tasks/result.
      if (typeof result.task.taskId === 'string') this.tasks.set(result.task.taskId, entry.tool)
      return message
    }
    if (!entry.toolResult) return message
    let clamped
    try {
      clamped = this.clamp.clamp(entry.tool, result, rawBytes)
    } catch (error) {
      this.log(`could not clamp the result of ${entry.tool ?? 'a tool'}: ${error.message}`)
      return { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: `toolclamp mcp could not clamp the result: ${error.message}` } }
    }
    if (!clamped.changed) return message
    if (this.options.verbose) {
      const after = Buffer.byteLength(JSON.stringify(clamped.result))
      const note = clamped.note === undefined ? '' : ` (${clamped.note})`
      this.log(`${entry.tool ?? 'a tool'}: result clamped from ${formatCount(rawBytes)} to ${formatCount(after)} bytes${note}`)
    }
    return { ...message, result: clamped.result }
  }

  /**
   * A line longer than --max-message: never held whole, so never relayed. Its id is read
   * from either end (where JSON-RPC writers put it), and a request waiting for it gets an
   * answer that says so: an isError result for a tool call, an error for anything else.
   */
  oversizedFromServer({ head, tail, bytes }) {
    const id = idAtStart(head.toString('utf8')) ?? idAtEnd(tail.toString('utf8'))
    const size = `${formatCount(bytes)} bytes, over --max-message ${formatCount(this.options.maxMessageBytes)}`
    this.unread(id, `was ${size}`, 'too large to read')
  }

  /**
   * A message from the server with id `id` (or none) that could not be relayed: what it `was`,
   * and why not. A request waiting for it gets an answer that says so: an isError result for
   * a tool call, an error for anything else.
   */
  unread(id, was, why) {
    const entry = this.pendingFor(id)
    if (entry === undefined) {
      this.log(`dropped a message from the server that ${was}: ${why}`)
      return
    }
    this.pending.delete(keyOf(id))
    this.log(`the answer to ${entry.method} (${entry.tool ?? ''}) ${was}: ${why}; answered with an error`)
    const text = `[toolclamp: the result of ${entry.tool ?? 'the tool'} ${was}: ${why}]`
    const reply = entry.toolResult
      ? { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }
      : { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: `toolclamp mcp: the answer ${was}: ${why}` } }
    this.toClient(Buffer.from(JSON.stringify(reply)))
  }

  toClient(line) {
    if (this.outputBroken) return
    this.output.write(line)
    if (!this.output.write(NEWLINE) && this.child !== null && !this.clientBlocked) {
      // The client reads slowly: the server waits.
      this.clientBlocked = true
      this.child.stdout.pause()
      this.output.once('drain', () => {
        this.clientBlocked = false
        this.child.stdout.resume()
      })
    }
  }

  // -------------------------------------------------------------------------------------
  // Ends.
  // -------------------------------------------------------------------------------------

  serverExited(code, signal) {
    const reason = signal === null ? `exited with code ${code}` : `was killed by ${signal}`
    this.exitedWith = { reason, code: code ?? 1 }
    if (this.stdoutEnded) return this.serverEnded(reason, code ?? 1)
    // Read what it wrote before it exited, unless a process it started holds its stdout open.
    setTimeout(() => this.serverEnded(reason, code ?? 1), DRAIN_MS)
  }

  /** The server is gone: every request it left unanswered gets an error, then the proxy exits. */
  serverEnded(reason, code) {
    if (this.serverGone) return
    this.serverGone = true
    for (const entry of this.pending.values()) {
      if (entry.cancelled) continue
      const message = `MCP server ${reason} before answering ${entry.method} (toolclamp mcp)`
      this.toClient(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: entry.id, error: { code: CONNECTION_CLOSED, message } })))
    }
    this.pending.clear()
    // Stopped because the client left (or a signal came): a clean end. Otherwise the server's.
    if (this.inputEnded) return this.finish(0)
    this.log(`the server ${reason}`)
    this.finish(code)
  }

  /** The client is done: the server is stopped; what it still answers is relayed meanwhile. */
  clientClosed() {
    if (this.inputEnded) return
    this.inputEnded = true
    this.stop()
  }

  /** Stops the server as a client should: stdin closed, then SIGTERM, then SIGKILL. */
  stop(grace = GRACE_MS) {
    if (this.stopping !== undefined || this.serverGone) return
    this.stopping = true
    if (this.child === null) return this.finish(0)
    this.child.stdin.end()
    const term = setTimeout(() => {
      this.signalServer('SIGTERM')
      setTimeout(() => this.signalServer('SIGKILL'), grace).unref()
    }, grace)
    term.unref()
  }

  interrupted(signal) {
    this.interruptedBy = signal
    this.inputEnded = true
    this.stop(GRACE_MS / 4)
    this.signalServer('SIGTERM')
  }

  /** Sends `signal` to the server's process group (the server alone on Windows). */
  signalServer(signal) {
    const { pid } = this.child ?? {}
    if (pid === undefined) return
    try {
      if (this.group) process.kill(-pid, signal)
      else this.child.kill(signal)
    } catch {
      // Gone already.
    }
  }

  finish(code) {
    if (this.finished) return
    this.finished = true
    for (const signal of INTERRUPT_SIGNALS) process.off(signal, this.onSignal)
    // Whatever the server started and left behind in its group goes with it.
    this.signalServer('SIGTERM')
    if (this.options.verbose) this.log(`peak RSS ${Math.round(peakRssKiB() / 1024)} MiB`)
    const exitCode = this.interruptedBy === undefined ? code : 128 + (os.constants.signals[this.interruptedBy] ?? 0)
    // Exit once everything written has gone out.
    if (this.output.writableEnded || this.output.destroyed) return this.resolve(exitCode)
    this.output.write('', () => this.resolve(exitCode))
  }
}

const ID = '(-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?|"(?:[^"\\\\]|\\\\.)*")'
const ID_AT_START = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${ID}`)
const ID_AT_END = new RegExp(`"id"\\s*:\\s*${ID}\\s*\\}\\s*\\r?$`)

function idOf(match) {
  if (match === null) return undefined
  try {
    return JSON.parse(match[1])
  } catch {
    return undefined
  }
}

/** The id of a JSON-RPC message that starts with it (`{"jsonrpc":"2.0","id":7,...`). */
const idAtStart = (text) => idOf(ID_AT_START.exec(text))
/** The id of a JSON-RPC message that ends with it (`...,"id":7}`, as the SDK writes them). */
const idAtEnd = (text) => idOf(ID_AT_END.exec(text))

/** Runs the proxy on the process's own stdio; resolves to the exit code. */
function runProxy(options, io) {
  return new McpProxy(options, io).run()
}

module.exports = { McpProxy, runProxy, idAtStart, idAtEnd }
