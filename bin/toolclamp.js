#!/usr/bin/env node
'use strict'

const fs = require('node:fs')
const path = require('node:path')

const { parseSize } = require('../lib/size.js')
const { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } = require('../lib/defaults.js')
const { nearMiss } = require('../lib/format.js')

const USAGE = `Usage: toolclamp [options] [file]

Clamps text to budgets in UTF-16 chars, UTF-8 bytes and lines, keeping an
unmodified start and/or end plus one notice saying what was dropped. Reads
<file>, or standard input when no file (or "-") is given, and writes the
clamped text to standard output. Text within every budget is written back
unchanged.

Budgets (any combination; at least one applies):
  --max-chars <size>     maximum UTF-16 code units
  --max-bytes <size>     maximum UTF-8 bytes
  --max-lines <size>     maximum lines
  --max-tokens <size>    maximum estimated tokens (3 UTF-8 bytes a token)
  -c <size>, -n <size>   --max-bytes and --max-lines, as head and tail spell them
  With none of these, the default is --max-bytes 50KiB --max-lines 2000.

  A size is a whole number with an optional binary suffix, in any case:
    k, KB or KiB = 1024, m, MB or MiB = 1048576, g, GB or GiB = 1073741824.
  Examples: 2000, 50k, 50KB, 1MiB.

Where text is kept:
  --strategy <name>      head (default): keep the start, drop the end
                         tail: keep the end, where errors and summaries are
                         head-tail: keep both ends, drop the middle
  --head-ratio <r>       with head-tail: share of the budget given to the
                         start, from 0 to 1 (default 0.5)

Terminal output:
  --normalize            show what a terminal would finally show: colours and
                         other escape sequences dropped, \r redraws (progress
                         bars) and backspaces applied, before anything is counted

Output:
  --json                 print the result and what was cut as JSON
  -h, --help             print this help
  --version              print the version

Flags also accept the --flag=value form. Invalid arguments exit with status 2,
a file that cannot be read with status 1.

Examples:
  cargo test 2>&1 | toolclamp --strategy tail --max-lines 200
  toolclamp --max-bytes 4KiB --strategy head-tail --head-ratio 0.3 build.log
`

const DEFAULT_LIMITS = { maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES }

const SIZE_FLAGS = {
  '--max-chars': 'maxChars',
  '--max-bytes': 'maxBytes',
  '--max-lines': 'maxLines',
  '--max-tokens': 'maxTokens',
  '-c': 'maxBytes',
  '-n': 'maxLines',
}

// Every flag, for "did you mean".
const FLAGS = [...Object.keys(SIZE_FLAGS), '--strategy', '--head-ratio', '--normalize', '--json', '--help', '--version']

// The CLI spells the two-sided strategy the way shell users expect.
const STRATEGIES = { head: 'head', tail: 'tail', 'head-tail': 'headTail' }

const EXIT_USAGE = 2
const EXIT_UNREADABLE = 1

/** An error caused by how the CLI was called; its message is shown as is. */
class CliError extends Error {
  constructor(message, exitCode = EXIT_USAGE) {
    super(message)
    this.name = 'CliError'
    this.exitCode = exitCode
  }
}

function parseHeadRatio(text) {
  // Number() alone would also accept '', '0x1' and ' 1 '.
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text)) return NaN
  return Number(text)
}

/**
 * Turns command-line arguments (without `node` and the script) into
 * `{ options, file, json }`, or `{ help: true }` / `{ version: true }`.
 * `options` is ready for `truncateText`; `file` is null for standard input.
 * Throws a CliError on anything invalid.
 */
function parseArgs(argv) {
  const limits = {}
  let strategyName = 'head'
  let headRatio
  let json = false
  let normalize = false
  const positionals = []

  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]

    if (arg === '--') {
      positionals.push(...argv.slice(index + 1))
      break
    }
    if (arg === '-' || !arg.startsWith('-')) {
      positionals.push(arg)
      continue
    }

    const equalsAt = arg.indexOf('=')
    const flag = arg.startsWith('--') && equalsAt !== -1 ? arg.slice(0, equalsAt) : arg
    const inlineValue = flag === arg ? undefined : arg.slice(equalsAt + 1)

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

    if (Object.hasOwn(SIZE_FLAGS, flag)) {
      const value = takeValue()
      try {
        limits[SIZE_FLAGS[flag]] = parseSize(value)
      } catch {
        throw new CliError(`${flag} expects a size like 2000, 50k or 1MiB, got ${JSON.stringify(value)}`)
      }
    } else if (flag === '--strategy') {
      const value = takeValue()
      if (!Object.hasOwn(STRATEGIES, value)) {
        throw new CliError(`--strategy expects head, tail or head-tail, got ${JSON.stringify(value)}`)
      }
      strategyName = value
    } else if (flag === '--head-ratio') {
      const value = takeValue()
      headRatio = parseHeadRatio(value)
      if (!(headRatio >= 0 && headRatio <= 1)) {
        throw new CliError(`--head-ratio expects a number from 0 to 1, got ${JSON.stringify(value)}`)
      }
    } else if (flag === '--json') {
      refuseValue()
      json = true
    } else if (flag === '--normalize') {
      refuseValue()
      normalize = true
    } else if (flag === '--help' || flag === '-h') {
      refuseValue()
      return { help: true }
    } else if (flag === '--version') {
      refuseValue()
      return { version: true }
    } else {
      const near = nearMiss(flag, FLAGS)
      throw new CliError(
        near === undefined ? `unknown option ${JSON.stringify(flag)} (see --help)` : `unknown option ${JSON.stringify(flag)}; did you mean ${near}?`,
      )
    }
  }

  if (positionals.length > 1) {
    throw new CliError(`expects at most one file, got ${positionals.length}: ${positionals.map((p) => JSON.stringify(p)).join(' ')}`)
  }
  if (headRatio !== undefined && strategyName !== 'head-tail') {
    throw new CliError('--head-ratio only applies to --strategy head-tail')
  }

  const options = Object.keys(limits).length > 0 ? { ...limits } : { ...DEFAULT_LIMITS }
  options.strategy = STRATEGIES[strategyName]
  if (headRatio !== undefined) options.headRatio = headRatio
  if (normalize) options.normalize = true

  const file = positionals.length === 0 || positionals[0] === '-' ? null : positionals[0]
  return { options, file, json }
}

function readFileText(file) {
  try {
    return fs.readFileSync(file).toString('utf8')
  } catch (error) {
    const reasons = {
      ENOENT: 'no such file',
      EISDIR: 'is a directory',
      EACCES: 'permission denied',
    }
    throw new CliError(`cannot read ${JSON.stringify(file)}: ${reasons[error.code] ?? error.message}`, EXIT_UNREADABLE)
  }
}

async function readStdinText() {
  const chunks = []
  for await (const chunk of process.stdin) chunks.push(chunk)
  // Decode once at the end so a multi-byte character split across chunks stays whole.
  return Buffer.concat(chunks).toString('utf8')
}

function writeStdout(text) {
  return new Promise((resolve) => {
    process.stdout.write(text, () => resolve())
  })
}

function reportError(message, exitCode) {
  // Exactly one line, whatever the message holds.
  process.stderr.write(`toolclamp: ${String(message).replace(/\s*\n\s*/g, ' ')}\n`)
  return exitCode
}

/** Runs the CLI; resolves to the exit code. */
async function main(argv) {
  // A reader that stops early (`| head`) is not an error.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw error
  })

  let result
  let json
  try {
    const parsed = parseArgs(argv)
    if (parsed.help) {
      await writeStdout(USAGE)
      return 0
    }
    if (parsed.version) {
      const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'))
      await writeStdout(`${version}\n`)
      return 0
    }

    const { truncateText } = require('../index.js')
    const text = parsed.file === null ? await readStdinText() : readFileText(parsed.file)
    result = truncateText(text, parsed.options)
    json = parsed.json
  } catch (error) {
    // The library throws TypeError/RangeError for values it refuses; those are usage errors too.
    if (error instanceof CliError) return reportError(error.message, error.exitCode)
    if (error instanceof TypeError || error instanceof RangeError) return reportError(error.message, EXIT_USAGE)
    return reportError(error instanceof Error ? error.message : error, 1)
  }

  await writeStdout(json ? `${JSON.stringify(result, null, 2)}\n` : result.text)
  return 0
}

if (require.main === module) {
  main(process.argv.slice(2)).then((exitCode) => {
    // Setting exitCode instead of calling process.exit lets stdout finish draining.
    process.exitCode = exitCode
  })
} else {
  module.exports = { parseSize, parseArgs, main, CliError, DEFAULT_LIMITS }
}
