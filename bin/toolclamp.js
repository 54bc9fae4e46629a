#!/usr/bin/env node
'use strict'

// The toolclamp command. Input is read in chunks into one reused buffer and fed to a
// bounded capture (lib/commands/capture.js), so memory follows the budgets, not the input: a 1 GB
// stream is clamped in about as much memory as an empty one. Bytes go through as bytes
// (invalid UTF-8 included) unless --text asks for decoded text.

const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')

const { parseDecimal, parseSize, readSizeFlag } = require('../lib/common/size.js')
const { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } = require('../lib/common/defaults.js')
const { didYouMean, unknownOptionMessage } = require('../lib/common/format.js')

const USAGE = `Usage: toolclamp [options] [file]
       toolclamp run [options] [--] <command> [args...]
       toolclamp mcp [options] -- <server command> [args...]

Clamps text to budgets in UTF-16 chars, UTF-8 bytes, lines and tokens,
keeping an unmodified start and/or end plus one notice saying what was
dropped. Reads <file>, or standard input when no file (or "-") is given, and
writes the clamped text to standard output. The input is read in chunks:
memory follows the budgets, not the input's size. Text within every budget
is written back unchanged, and kept text byte for byte (invalid UTF-8
included) unless --text is given. The output ends with a newline when the
input does; with --strategy head a cut output always does (its notice is the
last line), within the budgets: one byte and one char of them are kept for
it.

Budgets (any combination; at least one applies):
  --max-chars <size>     maximum UTF-16 code units
  --max-bytes <size>     maximum UTF-8 bytes
  --max-lines <size>     maximum lines (alone, it comes with --max-bytes 50KiB:
                         memory follows the byte and char budgets)
  --max-tokens <size>    maximum tokens: estimated (3 UTF-8 bytes a token), or
                         counted exactly with --tokenizer
  --tokenizer <name>     what counts --max-tokens: o200k_base, cl100k_base, an
                         OpenAI model name (gpt-4o, gpt-4) or estimate (the
                         default). An exact tokenizer reads the input as text
                         (as --text does), and with head prints the start only
                         at the end, once its notice is known
  -c <size>, -n <size>   --max-bytes and --max-lines, as head and tail spell them
                         (also --bytes=<size>, --lines=<size>, -c20, -n5 and -5)
  With none of these, the default is --max-bytes 50KiB --max-lines 2000.

  A size is a whole number with an optional binary suffix, in any case:
    k, KB or KiB = 1024, m, MB or MiB = 1048576, g, GB or GiB = 1073741824.
  Examples: 2000, 50k, 50KB, 1MiB.

Where text is kept:
  --strategy <name>      head (default): keep the start, drop the end
                         tail: keep the end, where errors and summaries are
                         head-tail: keep both ends, drop the middle
  --head, --tail, --head-tail
                         the same as --strategy head, tail or head-tail
  --head-ratio <r>       with head-tail: share of the budget given to the
                         start, from 0 to 1 (default 0.5)
  With head, the start is printed as soon as it is complete. When the notice
  needs no count of the whole input (see --notice), toolclamp then stops
  reading, as head does; otherwise it reads on and prints the notice at the
  end (the start printed early leaves room for counts of up to 16 digits, so
  it may be a few bytes shorter than the budgets would allow).

The notice:
  --notice <template>    the line put where text was dropped; "" for none.
                         Placeholders: {omitted}, {where}, {omittedChars},
                         {omittedBytes}, {omittedLines}, {totalChars},
                         {totalBytes}, {totalLines}, {headEnd}, {tailStart},
                         {fromLine}, {toLine}, {omittedTokens} and
                         {totalTokens} (estimated, 3 UTF-8 bytes a token),
                         and {spillPath} with --spill-dir; {{ and }} are
                         literal braces.
                         Default: "[... {omitted} truncated at the end ...]"
                         (at the start with tail, in the middle with
                         head-tail; with --spill-dir it names the file)
  --spill-dir <dir>      when the input is cut, save all of it to a new file
                         in <dir> (mode 0600, never replacing a file; <dir> is
                         created if missing); the default notice names the file

Paging (instead of clamping):
  --offset <line>        print the page that starts at line <line> (from 1),
                         at most --max-bytes and --max-lines long, after a
                         banner saying how to continue when there is more
  --column <n>           start <n> UTF-16 chars into that line, as a banner's
                         "Continue with offset=7, column=51200" says
  Paging holds the whole input in memory, so it takes at most 256 MiB, and
  shows it as text (invalid UTF-8 as U+FFFD).

Terminal output:
  --normalize            show what a terminal would finally show: colours and
                         other escape sequences dropped, \\r redraws (progress
                         bars) and backspaces applied, before anything is counted

Output:
  --text                 decode the input as UTF-8 first: invalid bytes become
                         U+FFFD (by default they are kept as they are)
  --json                 print the result and what was cut as JSON
  -h, --help             print this help
  --version              print the version

Running a command:
  toolclamp run [options] [--] <command> [args...]
  runs <command> with [args...] (no shell; its standard input is empty) and
  prints what a model would see: stdout and stderr, each clamped on its own
  (by default its last 8000 chars are kept), then the exit status. Exits with
  the command's exit code, or 1 when it could not start, was killed or timed out.
  Options: the budgets above (each applies to each stream), --strategy (default
  tail), --head-ratio, --notice ({stream} is the stream's name), --normalize,
  --spill-dir, --json, and
  --timeout <time>       stop the command (its whole process group) after
                         <time>: seconds, or with a unit: 500ms, 30s, 2m, 1h

Clamping an MCP server's tool results:
  toolclamp mcp [options] -- <server command> [args...]
  runs the MCP server (stdio) and stands between it and the client: every
  tools/call result is clamped (by default to 50KiB and 2000 lines), the rest
  passes through as it is. See toolclamp mcp --help.

Flags also accept the --flag=value form. Invalid arguments exit with status 2,
a file that cannot be read with status 1. (A file named "run" or "mcp" is read
as ./run or ./mcp, or after --.)

Interrupted (SIGINT, SIGTERM, SIGHUP) or cut off by a read error, toolclamp
stops reading and still prints the clamped output of what came, its notice
marked "so far (input interrupted)"; it then exits with 128 + the signal's
number (130 for Ctrl-C), or 1 after a read error.

Examples:
  cargo test 2>&1 | toolclamp --strategy tail --max-lines 200
  toolclamp --max-bytes 4KiB --strategy head-tail --head-ratio 0.3 build.log
  toolclamp --offset 2001 build.log
  toolclamp run --max-lines 200 --timeout 10m -- npm test
`

const DEFAULT_LIMITS = { maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES }

const SIZE_FLAGS = {
  '--max-chars': 'maxChars',
  '--max-bytes': 'maxBytes',
  '--max-lines': 'maxLines',
  '--max-tokens': 'maxTokens',
  '-c': 'maxBytes',
  '-n': 'maxLines',
  // GNU head and tail's long spellings of -c and -n.
  '--bytes': 'maxBytes',
  '--lines': 'maxLines',
}

// --head, --tail and --head-tail: shorthands of --strategy, as a head/tail user would guess.
const STRATEGY_FLAGS = { '--head': 'head', '--tail': 'tail', '--head-tail': 'head-tail' }

// Every flag, for "did you mean".
const COMMON_FLAGS = [
  ...Object.keys(SIZE_FLAGS),
  '--strategy',
  ...Object.keys(STRATEGY_FLAGS),
  '--head-ratio',
  '--tokenizer',
  '--notice',
  '--spill-dir',
  '--normalize',
  '--json',
  '--help',
  '--version',
]
const CLAMP_FLAGS = [...COMMON_FLAGS, '--text', '--offset', '--column']
const RUN_FLAGS = [...COMMON_FLAGS, '--timeout']

// The CLI spells the two-sided strategy the way shell users expect.
const STRATEGIES = { head: 'head', tail: 'tail', 'head-tail': 'headTail' }

// Placeholders whose value is known once the kept head is: a notice made of these (and
// text) is the same whatever follows, so `--strategy head` can stop reading at once.
const HEAD_ONLY_PLACEHOLDERS = new Set(['where', 'fromLine', 'headEnd'])

// Pipes and streams are read into one reused buffer of this size (a pipe hands over at most
// what it holds, 64 KiB on Linux, a read; an asynchronous read costs a thread-pool round trip,
// so fewer, larger reads win).
const CHUNK_BYTES = 1024 * 1024
// A regular file is read synchronously in chunks of this size, which stay in the CPU's cache
// while the capture counts them: a 1 GiB file in 0.23 s where 1 MiB reads took 0.30 s.
const FILE_CHUNK_BYTES = 64 * 1024
// Paging hands readPartial the whole input: this much at most.
const PAGE_INPUT_MAX = 256 * 1024 * 1024

const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP']

const EXIT_USAGE = 2
const EXIT_UNREADABLE = 1
const EXIT_FAILED = 1

/** An error caused by how the CLI was called; its message is shown as is. */
class CliError extends Error {
  constructor(message, exitCode = EXIT_USAGE) {
    super(message)
    this.name = 'CliError'
    this.exitCode = exitCode
  }
}

/** A line number or column: a plain whole number. */
function parsePosition(flag, text, min) {
  const value = /^\d+$/.test(text) ? Number(text) : NaN
  if (!(Number.isSafeInteger(value) && value >= min)) {
    throw new CliError(`${flag} expects a whole number of at least ${min}, got ${JSON.stringify(text)}`)
  }
  return value
}

const TIME_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** `--timeout`: seconds, or a number with ms, s, m or h; in milliseconds. */
function parseDuration(flag, text) {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text)
  const ms = match === null ? NaN : Math.round(Number(match[1]) * TIME_UNITS[match[2] ?? 's'])
  if (!(ms > 0 && Number.isSafeInteger(ms))) {
    throw new CliError(`${flag} expects a time like 30, 30s, 500ms or 2m, got ${JSON.stringify(text)}`)
  }
  return ms
}

function unknownOption(flag, flags) {
  return new CliError(unknownOptionMessage(flag, flags, '--help'))
}

/**
 * An argument as a flag and the value written into it: `--max-bytes=20` and `-c20` (as GNU
 * head and tail take it) give the value, `-20` is `-n 20` (their old spelling of a line
 * count), anything else has no value of its own.
 */
function splitFlag(arg) {
  if (arg.startsWith('--')) {
    const equalsAt = arg.indexOf('=')
    return equalsAt === -1 ? { flag: arg, inlineValue: undefined } : { flag: arg.slice(0, equalsAt), inlineValue: arg.slice(equalsAt + 1) }
  }
  if (/^-\d/.test(arg)) return { flag: '-n', inlineValue: arg.slice(1) }
  if (arg.length > 2 && (arg.startsWith('-n') || arg.startsWith('-c'))) return { flag: arg.slice(0, 2), inlineValue: arg.slice(2) }
  return { flag: arg, inlineValue: undefined }
}

function readSize(flag, value) {
  // GNU's "+N" (from line N on) and "-N" (all but the last N) are other jobs: say which flag does each.
  if (/^[+-]\d/.test(value)) {
    const hint =
      value[0] === '+'
        ? `--offset ${value.slice(1)} prints the input from line ${value.slice(1)} on`
        : 'toolclamp keeps at most a count, it cannot drop a count'
    throw new CliError(`${flag} expects a size like 2000, 50k or 1MiB, got ${JSON.stringify(value)} (${hint})`)
  }
  return readSizeFlag(flag, value, (message) => new CliError(message))
}

/** A --tokenizer name: an encoding's, an OpenAI model's, or estimate. */
function readTokenizerName(value) {
  if (value === 'estimate' || require('../lib/native.js').encodingOf(value) !== null) return value
  throw new CliError(`--tokenizer expects o200k_base, cl100k_base, an OpenAI model name or estimate, got ${JSON.stringify(value)}`)
}

/** Whether `options` count tokens with an encoding, not the estimate. */
function exactTokens(options) {
  return options.tokenizer !== undefined && options.tokenizer !== 'estimate'
}

/** --tokenizer says what counts --max-tokens: alone it would do nothing. */
function checkTokenizer(state) {
  if (state.tokenizer !== undefined && state.limits.maxTokens === undefined) {
    throw new CliError('--tokenizer only applies with --max-tokens')
  }
}

/** One strategy per call: `--head --tail` is a contradiction, not a last-one-wins. */
function setStrategy(state, flag, value) {
  if (state.strategy !== undefined && state.strategy !== value) {
    throw new CliError(`${flag} contradicts the strategy given before it (${state.strategy})`)
  }
  state.strategy = value
}

/**
 * Reads the flags of `argv` into `state` until the first positional that `onPositional`
 * says ends the options (it returns true), or `--`. Returns the arguments left over.
 */
function readFlags(argv, flags, state, onPositional) {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]

    if (arg === '--') return argv.slice(index + 1)
    if (arg === '-' || !arg.startsWith('-')) {
      if (onPositional(arg)) return argv.slice(index)
      continue
    }

    const { flag, inlineValue } = splitFlag(arg)

    const takeValue = () => {
      if (inlineValue !== undefined) return inlineValue
      const next = argv[index + 1]
      if (next === undefined) throw new CliError(`${flag} expects a value`)
      index++
      return next
    }
    const refuseValue = () => {
      if (inlineValue !== undefined) throw new CliError(`${flag} does not take a value`)
    }

    if (flag === '--help' || flag === '-h') {
      refuseValue()
      state.help = true
      return []
    }
    if (flag === '--version') {
      refuseValue()
      state.version = true
      return []
    }
    if (!flags.includes(flag)) throw unknownOption(flag, flags)

    if (Object.hasOwn(SIZE_FLAGS, flag)) {
      state.limits[SIZE_FLAGS[flag]] = readSize(flag, takeValue())
    } else if (Object.hasOwn(STRATEGY_FLAGS, flag)) {
      refuseValue()
      setStrategy(state, flag, STRATEGY_FLAGS[flag])
    } else if (flag === '--strategy') {
      const value = takeValue()
      if (!Object.hasOwn(STRATEGIES, value)) {
        throw new CliError(`--strategy expects head, tail or head-tail, got ${JSON.stringify(value)}`)
      }
      setStrategy(state, flag, value)
    } else if (flag === '--head-ratio') {
      const value = takeValue()
      state.headRatio = parseDecimal(value)
      if (!(state.headRatio >= 0 && state.headRatio <= 1)) {
        throw new CliError(`--head-ratio expects a number from 0 to 1, got ${JSON.stringify(value)}`)
      }
    } else if (flag === '--tokenizer') {
      state.tokenizer = readTokenizerName(takeValue())
    } else if (flag === '--notice') {
      state.notice = takeValue()
    } else if (flag === '--spill-dir') {
      const value = takeValue()
      if (value === '') throw new CliError('--spill-dir expects a directory, got ""')
      state.spillDir = value
    } else if (flag === '--offset') {
      state.offset = parsePosition(flag, takeValue(), 1)
    } else if (flag === '--column') {
      state.column = parsePosition(flag, takeValue(), 0)
    } else if (flag === '--timeout') {
      state.timeoutMs = parseDuration(flag, takeValue())
    } else {
      // The switches: --json, --normalize, --text.
      refuseValue()
      state[flag.slice(2)] = true
    }
  }
  return []
}

function newState() {
  return { limits: {}, help: false, version: false, json: false, normalize: false, text: false }
}

/**
 * Turns command-line arguments (without `node` and the script) into
 * `{ options, file, json, text, page }`, or `{ help: true }` / `{ version: true }`.
 * `options` is ready for `truncateText` and `createOutputCapture` (`raw` aside), or, when
 * `page` is true (--offset or --column), for `readPartial` (`normalize` aside). `file` is
 * null for standard input. Throws a CliError on anything invalid.
 */
function parseArgs(argv) {
  const state = newState()
  const positionals = []
  const positional = (arg) => {
    positionals.push(arg)
    return false
  }
  positionals.push(...readFlags(argv, CLAMP_FLAGS, state, positional))
  if (state.help) return { help: true }
  if (state.version) return { version: true }

  if (positionals.length > 1) {
    throw new CliError(`expects at most one file, got ${positionals.length}: ${positionals.map((p) => JSON.stringify(p)).join(' ')}`)
  }
  if (state.headRatio !== undefined && state.strategy !== 'head-tail') {
    throw new CliError('--head-ratio only applies to --strategy head-tail')
  }
  checkTokenizer(state)
  const file = positionals.length === 0 || positionals[0] === '-' ? null : positionals[0]
  const page = state.offset !== undefined || state.column !== undefined

  if (page) {
    // readPartial pages by bytes, lines and tokens; the rest has no meaning for a page.
    const clampOnly = [
      ['maxChars', '--max-chars'],
      ['strategy', '--strategy'],
      ['notice', '--notice'],
      ['spillDir', '--spill-dir'],
    ]
    for (const [key, flag] of clampOnly) {
      if ((key === 'maxChars' ? state.limits[key] : state[key]) !== undefined) {
        throw new CliError(`${flag} does not apply to paging (--offset, --column)`)
      }
    }
    const options = { ...state.limits, offset: state.offset ?? 1, column: state.column ?? 0 }
    if (state.tokenizer !== undefined) options.tokenizer = state.tokenizer
    if (state.normalize) options.normalize = true
    return { options, file, json: state.json, text: state.text, page: true }
  }

  const options = Object.keys(state.limits).length > 0 ? { ...state.limits } : { ...DEFAULT_LIMITS }
  // Memory follows the byte and char budgets, so one of them always applies: a line budget
  // alone comes with the default byte budget (as the capture would add it).
  if (options.maxChars === undefined && options.maxBytes === undefined && options.maxTokens === undefined) {
    options.maxBytes = DEFAULT_MAX_BYTES
  }
  if (state.tokenizer !== undefined) options.tokenizer = state.tokenizer
  options.strategy = STRATEGIES[state.strategy ?? 'head']
  if (state.headRatio !== undefined) options.headRatio = state.headRatio
  if (state.notice !== undefined) options.notice = state.notice
  if (state.spillDir !== undefined) {
    options.spill = { dir: state.spillDir, name: file === null ? 'stdin' : path.basename(file) }
  }
  if (state.normalize) options.normalize = true
  return { options, file, json: state.json, text: state.text, page: false }
}

// What a shell would read as more than a program's name.
const SHELL_SYNTAX = /[\s|&;<>()$`\\"'*?~{}[\]]/

/**
 * Whether `command` is a shell line given as one argument (`toolclamp run "make | cat"`)
 * rather than a program: it has shell syntax and no program of that name exists.
 */
function looksLikeShellLine(command) {
  if (!SHELL_SYNTAX.test(command)) return false
  if (command.includes('/')) return !fs.existsSync(command)
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)
  return !dirs.some((dir) => fs.existsSync(path.join(dir, command)))
}

/** `text` as one shell word. */
function shellQuote(text) {
  return `'${text.replaceAll("'", `'\\''`)}'`
}

/**
 * `toolclamp run` arguments (after `run`) into `{ command, args, options, json }`, or
 * `{ help: true }` / `{ version: true }`. `options` is ready for `runCommand`.
 */
function parseRunArgs(argv) {
  const state = newState()
  const rest = readFlags(argv, RUN_FLAGS, state, () => true)
  if (state.help) return { help: true }
  if (state.version) return { version: true }
  if (rest.length === 0) throw new CliError('run expects a command: toolclamp run [options] -- <command> [args...]')
  if (rest[0] === '') throw new CliError('run expects a command, got ""')
  if (rest.length === 1 && looksLikeShellLine(rest[0])) {
    throw new CliError(
      `run starts a program without a shell, and ${JSON.stringify(rest[0])} is a shell line, not a program: ` +
        `toolclamp run -- sh -c ${shellQuote(rest[0])}`,
    )
  }
  if (state.headRatio !== undefined && state.strategy !== 'head-tail') {
    throw new CliError('--head-ratio only applies to --strategy head-tail')
  }
  checkTokenizer(state)

  const options = {}
  if (Object.keys(state.limits).length > 0) {
    const limits = state.tokenizer === undefined ? state.limits : { ...state.limits, tokenizer: state.tokenizer }
    options.stdout = { ...limits }
    options.stderr = { ...limits }
  }
  if (state.strategy !== undefined) options.strategy = STRATEGIES[state.strategy]
  if (state.headRatio !== undefined) options.headRatio = state.headRatio
  if (state.notice !== undefined) options.notice = state.notice
  if (state.spillDir !== undefined) options.spill = { dir: state.spillDir, name: path.basename(rest[0]) }
  if (state.normalize) options.normalize = true
  if (state.timeoutMs !== undefined) options.timeoutMs = state.timeoutMs
  return { command: rest[0], args: rest.slice(1), options, json: state.json }
}

// ---------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------

const READ_ERRORS = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'no such file',
  ELOOP: 'too many symbolic links',
}

function unreadable(file, error) {
  const what = file === null ? 'standard input' : JSON.stringify(file)
  return new CliError(`cannot read ${what}: ${READ_ERRORS[error.code] ?? error.message}`, EXIT_UNREADABLE)
}

/**
 * The input, chunk by chunk: `next()` gives `{ done, value }` or a promise of it, `chunks` the
 * same as an async sequence. A chunk is valid until the next is asked for (a regular file's
 * are views of one reused buffer).
 *
 * A regular file is read synchronously, 64 KiB at a time: no thread-pool round trip and no
 * promise per chunk (a third of the time on a 1 GiB file), and a chunk that stays in the
 * CPU's cache while the capture counts it. A pipe or a socket is read as a stream, from the
 * event loop: a read blocked in the thread pool on an idle pipe would hold the process past
 * its end until the writer wrote again (process.exit waits for it), so a stopped clamp could
 * not exit while `tail -f` is quiet. Anything else (a device) is read in 1 MiB reads.
 */
function openInput(file) {
  let fd = null
  let ownFd = false
  let closed = false
  let stream = null

  const close = () => {
    if (closed) return
    closed = true
    if (stream !== null) stream.close()
    else if (ownFd && fd !== null) fs.close(fd, () => {})
  }

  /** Opens the input: the kind of file it is, and the stream to read a pipe or socket from. */
  const open = () => {
    if (file === null) {
      fd = 0
    } else {
      fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
      ownFd = true
    }
    const stat = fs.fstatSync(fd)
    if (stat.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' })
    if (stat.isFile()) return 'file'
    if (stat.isFIFO() || stat.isSocket()) {
      stream = streamReader(fd)
      return 'stream'
    }
    return 'device'
  }

  const fileBuffer = Buffer.allocUnsafe(FILE_CHUNK_BYTES)
  const deviceBuffer = Buffer.allocUnsafe(CHUNK_BYTES)
  let kind
  const next = () => {
    if (kind === undefined) kind = open()
    if (kind === 'file') {
      const bytesRead = fs.readSync(fd, fileBuffer, 0, FILE_CHUNK_BYTES, null)
      return bytesRead === 0 ? { done: true, value: undefined } : { done: false, value: fileBuffer.subarray(0, bytesRead) }
    }
    if (kind === 'stream') return stream.next()
    return new Promise((resolve, reject) => {
      fs.read(fd, deviceBuffer, 0, CHUNK_BYTES, null, (error, bytesRead) => {
        if (error) reject(error)
        else resolve(bytesRead === 0 ? { done: true, value: undefined } : { done: false, value: deviceBuffer.subarray(0, bytesRead) })
      })
    })
  }

  async function* chunks() {
    try {
      for (;;) {
        let step = next()
        if (step instanceof Promise) step = await step
        if (step.done) return
        yield step.value
      }
    } finally {
      close()
    }
  }
  return { chunks: chunks(), next, close }
}

/**
 * A pipe or socket read from the event loop into one reused buffer (net.Socket's `onread`):
 * `next()` as openInput's. The socket is paused while a chunk is out, so the next read waits
 * until the reader asks for it; memory stays one buffer however fast the writer is.
 */
function streamReader(fd) {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES)
  // Steps not asked for yet: a chunk, then perhaps the end or an error.
  const ready = []
  let waiting = null
  const deliver = (step) => {
    if (waiting === null) return ready.push(step)
    const { resolve, reject } = waiting
    waiting = null
    if (step instanceof Error) reject(step)
    else resolve(step)
  }
  const socket = new net.Socket({
    fd,
    readable: true,
    writable: false,
    onread: {
      buffer,
      callback(bytesRead) {
        deliver({ done: false, value: buffer.subarray(0, bytesRead) })
        // Paused until the chunk is used: the next read overwrites the buffer.
        return false
      },
    },
  })
  socket.on('end', () => deliver({ done: true, value: undefined }))
  socket.on('error', (error) => deliver(error))
  return {
    next() {
      if (ready.length > 0) {
        const step = ready.shift()
        if (step instanceof Error) throw step
        return step
      }
      socket.resume()
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject }
      })
    },
    close: () => socket.destroy(),
  }
}

/** Reads all of the input into one Buffer, refusing more than `max` bytes. */
async function readAll(file, max) {
  const tooLarge = () =>
    new CliError(
      `paging holds the whole input in memory, at most ${max / 1024 / 1024} MiB; ` +
        `${file === null ? 'standard input' : JSON.stringify(file)} is larger: clamp it without --offset instead`,
      EXIT_FAILED,
    )
  // A file says its size: refused before anything is read. (A failing stat is left to the read.)
  let stat
  try {
    stat = file === null ? fs.fstatSync(0) : fs.statSync(file)
  } catch {
    stat = undefined
  }
  if (stat?.isFile() && stat.size > max) throw tooLarge()

  const input = openInput(file)
  const parts = []
  let size = 0
  try {
    for await (const chunk of input.chunks) {
      size += chunk.length
      if (size > max) throw tooLarge()
      parts.push(Buffer.from(chunk))
    }
  } catch (error) {
    if (error instanceof CliError) throw error
    throw unreadable(file, error)
  } finally {
    input.close()
  }
  return Buffer.concat(parts, size)
}

/** Whether a notice template has a placeholder whose value needs the whole input. */
function noticeNeedsTotals(notice) {
  // The default notice says how much was cut.
  if (notice === undefined) return true
  for (let at = 0; at < notice.length; at++) {
    const ch = notice[at]
    if ((ch === '{' || ch === '}') && notice[at + 1] === ch) {
      at++
    } else if (ch === '{') {
      const close = notice.indexOf('}', at)
      // Malformed: the capture refuses it; until then, assume the worst.
      if (close === -1) return true
      if (!HEAD_ONLY_PLACEHOLDERS.has(notice.slice(at + 1, close))) return true
      at = close
    }
  }
  return false
}

// ---------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------

function writeStdout(data) {
  return new Promise((resolve) => {
    if (data.length === 0) return resolve()
    process.stdout.write(data, () => resolve())
  })
}

const NEWLINE = 0x0a

function endsWithNewline(data) {
  if (data.length === 0) return false
  return typeof data === 'string' ? data.charCodeAt(data.length - 1) === NEWLINE : data[data.length - 1] === NEWLINE
}

/** The part of the final text after the head already printed. */
function after(text, head) {
  return typeof text === 'string' ? text.slice(head.length) : text.subarray(head.length)
}

function reportError(message, exitCode) {
  // Exactly one line, whatever the message holds.
  process.stderr.write(`toolclamp: ${String(message).replace(/\s*\n\s*/g, ' ')}\n`)
  return exitCode
}

// ---------------------------------------------------------------------------------------
// The modes
// ---------------------------------------------------------------------------------------

/**
 * The byte budget `options` sets, estimated tokens included (3 bytes a token), or Infinity.
 * Tokens counted exactly set none: a text's bytes do not tell its tokens.
 */
function byteBudget(options) {
  const { BYTES_PER_TOKEN } = require('../lib/native.js')
  const tokens = options.maxTokens === undefined || exactTokens(options) ? Infinity : options.maxTokens * BYTES_PER_TOKEN
  return Math.min(options.maxBytes ?? Infinity, tokens)
}

/**
 * `options` with one byte, one char and one exact token of the budgets kept back for a
 * final newline (the newline adds no line, and at most one token), or `options` itself
 * when no budget counts bytes, chars or exact tokens.
 */
function reserveNewline(options) {
  const bytes = byteBudget(options)
  const reserveBytes = bytes > 0 && bytes !== Infinity
  const reserveChars = options.maxChars > 0 && options.maxChars !== Infinity
  const reserveToken = exactTokens(options) && options.maxTokens > 0 && options.maxTokens !== Infinity
  if (!reserveBytes && !reserveChars && !reserveToken) return options
  const { maxTokens, ...less } = options
  if (bytes !== Infinity) less.maxBytes = reserveBytes ? bytes - 1 : bytes
  if (reserveChars) less.maxChars = options.maxChars - 1
  if (exactTokens(options)) less.maxTokens = reserveToken ? maxTokens - 1 : maxTokens
  return less
}

// The longest token of both exact encodings, in UTF-8 bytes (__test__/capture-tokens checks it).
const LONGEST_TOKEN_BYTES = 128

/**
 * Whether counts are surely over a budget of `options`: truncateText then cuts. Exact tokens
 * are surely over once the bytes are more than that many of the longest token.
 */
function overBudget(totals, options) {
  const tokenBytes = exactTokens(options) ? options.maxTokens * LONGEST_TOKEN_BYTES : Infinity
  return (
    totals.chars > (options.maxChars ?? Infinity) ||
    totals.bytes > Math.min(byteBudget(options), tokenBytes) ||
    totals.lines > (options.maxLines ?? Infinity)
  )
}

/**
 * Clamps the input as it streams in.
 *
 * The output is truncateText's text for the whole input, with one rule for the end: a cut
 * with `head` (its notice last) always ends with a newline, as a line does, and within the
 * budgets: its capture is given one byte and one char less (reserveNewline). Input within
 * the budgets must still come back whole, so a second capture with the full budgets reads
 * along until the input is over them. With `tail` and `head-tail` the output ends as the
 * input does.
 */
async function clamp(parsed) {
  const { openCapture, END_INTERRUPTED } = require('../lib/commands/capture.js')
  const { SPILL_NOTICE } = require('../lib/common/notices.js')
  // Ended early by a signal or a read error, its notice says so: room is kept for that.
  const createOutputCapture = (o) => openCapture(o, SPILL_NOTICE, undefined, true)
  const { options, file, json } = parsed
  // JSON has no bytes to be faithful to, nor has normalised output: their text is decoded.
  // Exact tokens count text, so their input is decoded too.
  const raw = !parsed.text && !json && options.normalize === undefined && !exactTokens(options)
  const head = options.strategy === 'head' && !json
  const clampOptions = head ? reserveNewline(options) : options
  const capture = createOutputCapture({ ...clampOptions, raw })
  // Used only when the input fits, when nothing is spilled: no spill file of its own.
  const { spill, ...wholeOptions } = options
  let whole = clampOptions === options ? null : createOutputCapture({ ...wholeOptions, raw })

  // With head, the kept start is final long before the end: print it then, and stop there
  // when nothing printed later depends on what follows (a spill file must hold everything,
  // so it reads on too).
  const stopEarly = head && spill === undefined && !noticeNeedsTotals(options.notice)

  const input = openInput(file)
  const stop = interruption()
  let printed
  let stopped = false
  let lastByte = -1
  // Why the input ended early: a signal's name, or the error reading it after some came.
  let interrupted
  let readError
  try {
    for (let chunks = 0; ; chunks++) {
      let step
      try {
        step = input.next()
        // A regular file is read synchronously: let a signal in every 16 MiB or so.
        if (!(step instanceof Promise) && chunks % 256 === 255) step = Promise.resolve(step)
        if (step instanceof Promise) step = await Promise.race([step, stop.signalled])
      } catch (error) {
        if (capture.totals.bytes === 0) throw unreadable(file, error)
        readError = unreadable(file, error)
        interrupted = 'read error'
        break
      }
      if (step.signal !== undefined) {
        interrupted = step.signal
        break
      }
      if (step.done) break
      const chunk = step.value
      capture.write(chunk)
      lastByte = chunk[chunk.length - 1]
      if (whole !== null) {
        whole.write(chunk)
        if (overBudget(whole.totals, options)) whole = null
      }
      if (head && printed === undefined) {
        printed = capture.settledHead()
        if (printed !== undefined) await writeStdout(printed)
      }
      // Only once the input is surely cut: `whole` may still have to print it all.
      if (stopEarly && printed !== undefined && whole === null) {
        stopped = true
        break
      }
    }
  } finally {
    stop.dispose()
    input.close()
  }

  const end = (c) => (interrupted === undefined ? c.end() : c[END_INTERRUPTED]())
  if (json) {
    await writeStdout(`${JSON.stringify(end(capture), null, 2)}\n`)
    return finishInterrupted(interrupted, readError, 0)
  }
  const fits = whole === null ? undefined : whole.end()
  const clamped = end(capture)
  const result = fits !== undefined && !fits.truncated ? fits : clamped
  // The input fits, but not the budgets kept back for a newline: no spill of an uncut input.
  if (result !== clamped && clamped.spill?.path) fs.rmSync(clamped.spill.path, { force: true })
  const rest = printed === undefined ? result.text : after(result.text, printed)
  await writeStdout(rest)
  const last = rest.length > 0 ? rest : (printed ?? rest)
  if (result.truncated && last.length > 0 && !endsWithNewline(last)) {
    // head: room was kept for it. tail, head-tail: the kept end is the input's, unless the
    // budgets leave room for no text at all; then only if it fits.
    if (
      head ||
      (lastByte === NEWLINE &&
        !overBudget({ chars: result.outputChars + 1, bytes: result.outputBytes + 1, lines: 0 }, options) &&
        (result.tokens === undefined || result.tokens.output < options.maxTokens))
    ) {
      await writeStdout('\n')
    }
  }
  if (result.spill?.error !== undefined) {
    // The output is right (its notice names no file); the file the user asked for is missing.
    reportError(`could not save the whole input in ${JSON.stringify(spill.dir)}: ${result.spill.error.message}`, 0)
  }
  if (interrupted !== undefined) return { exitNow: finishInterrupted(interrupted, readError, 0) }
  return stopped ? { exitNow: 0 } : 0
}

/**
 * Resolves `signalled` with `{ signal }` on the first SIGINT, SIGTERM or SIGHUP, so that the
 * clamp stops reading and still ends its output with a notice (an upstream `tail -f` or a
 * Ctrl-C must not leave the head shown without one). `dispose` restores the defaults.
 */
function interruption() {
  let onSignal
  const signalled = new Promise((resolve) => {
    onSignal = (signal) => resolve({ signal })
  })
  for (const signal of INTERRUPT_SIGNALS) process.once(signal, onSignal)
  return {
    signalled,
    dispose: () => {
      for (const signal of INTERRUPT_SIGNALS) process.off(signal, onSignal)
    },
  }
}

/** The exit code after an interruption: a shell's 128 + the signal's number, 1 for a read error. */
function finishInterrupted(interrupted, readError, code) {
  if (interrupted === undefined) return code
  if (readError !== undefined) return reportError(readError.message, readError.exitCode)
  return 128 + (require('node:os').constants.signals[interrupted] ?? 0)
}

/** One page of the input, with readPartial. */
async function page(parsed) {
  const { readPartial } = require('../index.js')
  const { normalizeTerminalOutput } = require('../lib/text/terminal.js')
  const { normalize, ...options } = parsed.options
  const data = await readAll(parsed.file, PAGE_INPUT_MAX)
  // readPartial decodes a Buffer itself; normalising gives it text.
  const view = readPartial(normalize ? normalizeTerminalOutput(data) : data, options)
  await writeStdout(parsed.json ? `${JSON.stringify(view, null, 2)}\n` : view.text)
  return 0
}

/** `toolclamp run`: runs the command and prints what a model sees for it. */
async function run(parsed) {
  const { runCommand } = require('../lib/commands/run.js')
  const controller = new AbortController()
  // The command leads a process group of its own, so a Ctrl-C at the terminal reaches only
  // us: pass it on, and still print what the command said.
  const onSignal = (signal) => controller.abort(new Error(`toolclamp got ${signal}`))
  for (const signal of INTERRUPT_SIGNALS) process.on(signal, onSignal)
  let result
  try {
    result = await runCommand(parsed.command, parsed.args, { ...parsed.options, signal: controller.signal })
  } finally {
    for (const signal of INTERRUPT_SIGNALS) process.off(signal, onSignal)
  }
  if (parsed.json) {
    const { streams, ...rest } = result
    await writeStdout(`${JSON.stringify(rest, null, 2)}\n`)
  } else {
    await writeStdout(result.text.endsWith('\n') ? result.text : `${result.text}\n`)
  }
  const clean = !result.timedOut && !result.aborted && result.signal === null && Number.isInteger(result.exitCode)
  return clean ? result.exitCode : EXIT_FAILED
}

async function usage() {
  await writeStdout(USAGE)
  return 0
}

async function version() {
  const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'))
  await writeStdout(`${version}\n`)
  return 0
}

/**
 * Runs the CLI; resolves to the exit code, or `{ exitNow: code }` when the process should
 * exit at once (reading stopped early: a producer like `yes` must not keep it alive).
 */
async function main(argv) {
  // The MCP proxy handles its own streams (a client that goes away stops the server).
  if (argv[0] === 'mcp') return require('../lib/mcp/cli.js').main(argv.slice(1), version)

  // A reader that stops early (`| head`) is not an error.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })

  try {
    if (argv[0] === 'run') {
      const parsed = parseRunArgs(argv.slice(1))
      if (parsed.help) return await usage()
      if (parsed.version) return await version()
      return await run(parsed)
    }
    const parsed = parseArgs(argv)
    if (parsed.help) return await usage()
    if (parsed.version) return await version()
    return parsed.page ? await page(parsed) : await clamp(parsed)
  } catch (error) {
    // The library throws TypeError/RangeError for values it refuses; those are usage errors too.
    if (error instanceof CliError) return reportError(error.message, error.exitCode)
    if (error instanceof TypeError || error instanceof RangeError) return reportError(error.message, EXIT_USAGE)
    return reportError(error instanceof Error ? error.message : error, EXIT_FAILED)
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((exitCode) => {
    if (typeof exitCode === 'object') process.exit(exitCode.exitNow)
    // Setting exitCode instead of calling process.exit lets stdout finish draining.
    process.exitCode = exitCode
  })
} else {
  module.exports = { parseSize, parseArgs, parseRunArgs, noticeNeedsTotals, didYouMean, main, CliError, DEFAULT_LIMITS }
}
