'use strict'

// `toolclamp mcp` arguments: the budgets (as the CLI spells them), per-tool budgets, and the
// server's command after `--`. Read without the native addon; the budgets are checked by the
// clamp's own option reading when the proxy starts (lib/mcp/clamp.js).

const path = require('node:path')
const { parseDecimal, readSizeFlag } = require('../common/size.js')
const { didYouMean, unknownOptionMessage } = require('../common/format.js')
const { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } = require('../common/defaults.js')

// The longest line V8 can turn into a string (2^29 - 24 UTF-16 units; a line of UTF-8 bytes
// is never more units than bytes): a message longer than this could not be parsed at all.
const MAX_MESSAGE_BYTES = 2 ** 29 - 24

const SIZE_FLAGS = { '--max-bytes': 'maxBytes', '--max-lines': 'maxLines', '--max-chars': 'maxChars', '--max-tokens': 'maxTokens' }
const VALUE_FLAGS = ['--strategy', '--head-ratio', '--tokenizer', '--notice', '--spill-dir', '--tool', '--max-message']
const SWITCHES = ['--verbose', '--help', '-h', '--version']
const FLAGS = [...Object.keys(SIZE_FLAGS), ...VALUE_FLAGS, ...SWITCHES]

// The strategies as the CLI spells them; `auto` is the tool-result clamp's default.
const STRATEGIES = { auto: 'auto', head: 'head', tail: 'tail', 'head-tail': 'headTail' }

// What `--tool <name>:<key>=<value>` may set.
const TOOL_KEYS = { 'max-bytes': 'maxBytes', 'max-lines': 'maxLines', 'max-chars': 'maxChars', 'max-tokens': 'maxTokens' }
const TOOL_OTHER_KEYS = ['strategy', 'head-ratio']
const TOOL_ALL_KEYS = [...Object.keys(TOOL_KEYS), ...TOOL_OTHER_KEYS]

/** An error in how `toolclamp mcp` was called: its message is shown as is, exit status 2. */
class McpUsageError extends Error {
  constructor(message) {
    super(message)
    this.name = 'McpUsageError'
    this.exitCode = 2
  }
}

function readSize(flag, value) {
  return readSizeFlag(flag, value, (message) => new McpUsageError(message))
}

function readStrategy(flag, value) {
  if (!Object.hasOwn(STRATEGIES, value)) {
    throw new McpUsageError(`${flag} expects auto, head, tail or head-tail, got ${JSON.stringify(value)}`)
  }
  return STRATEGIES[value]
}

function readHeadRatio(flag, value) {
  const ratio = parseDecimal(value)
  if (!(ratio >= 0 && ratio <= 1)) throw new McpUsageError(`${flag} expects a number from 0 to 1, got ${JSON.stringify(value)}`)
  return ratio
}

function unknownOption(flag, flags) {
  return new McpUsageError(unknownOptionMessage(flag, flags, 'toolclamp mcp --help'))
}

/**
 * `--tool` values: `<name>=<size>` (its byte budget), `<name>=off` (its results pass as they
 * are), `<name>:<key>=<value>` with a key of max-bytes, max-lines, max-chars, max-tokens,
 * strategy or head-ratio. Read into `tools`, a Map of name to the settings given.
 */
function readTool(value, tools) {
  const equalsAt = value.lastIndexOf('=')
  if (equalsAt <= 0) {
    throw new McpUsageError(`--tool expects <name>=<size>, <name>=off or <name>:<key>=<value>, got ${JSON.stringify(value)}`)
  }
  const left = value.slice(0, equalsAt)
  const given = value.slice(equalsAt + 1)
  // A tool name may hold a colon: only a known key after the last one is a key.
  const colonAt = left.lastIndexOf(':')
  const key = colonAt === -1 ? undefined : left.slice(colonAt + 1)
  let name = left
  let setting = 'size'
  if (key !== undefined && /^[a-z-]+$/.test(key)) {
    if (!TOOL_ALL_KEYS.includes(key)) {
      const near = didYouMean(key, TOOL_ALL_KEYS)
      throw new McpUsageError(
        `--tool ${JSON.stringify(value)}: unknown key ${JSON.stringify(key)}; ` +
          (near === undefined ? `expected one of ${TOOL_ALL_KEYS.join(', ')}` : `did you mean ${near}?`),
      )
    }
    name = left.slice(0, colonAt)
    setting = key
  }
  if (name === '') throw new McpUsageError(`--tool expects a tool name before "=", got ${JSON.stringify(value)}`)
  const tool = tools.get(name) ?? { limits: {} }
  tools.set(name, tool)
  const flag = `--tool ${name}`
  if (setting === 'size') {
    if (given === 'off') tool.off = true
    else tool.limits.maxBytes = readSize(flag, given)
  } else if (Object.hasOwn(TOOL_KEYS, setting)) {
    tool.limits[TOOL_KEYS[setting]] = readSize(`${flag}:${setting}`, given)
  } else if (setting === 'strategy') {
    tool.strategy = readStrategy(`${flag}:strategy`, given)
  } else {
    tool.headRatio = readHeadRatio(`${flag}:head-ratio`, given)
  }
}

/**
 * The budgets given, as the clamp takes them: none given is the default (50 KiB and 2,000
 * lines); a line budget alone comes with the default byte budget, as the CLI's does (one
 * line can be any length); any other budget given lifts the ones not given.
 */
function budgets(limits) {
  const given = Object.keys(limits)
  if (given.length === 0) return { maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES }
  const lifted = { maxChars: Infinity, maxBytes: Infinity, maxLines: Infinity, ...limits }
  if (given.length === 1 && given[0] === 'maxLines') lifted.maxBytes = DEFAULT_MAX_BYTES
  return lifted
}

/**
 * `toolclamp mcp` arguments (after `mcp`) into `{ command, args, limits, tools, spillDir,
 * verbose, maxMessageBytes }`, or `{ help: true }` / `{ version: true }`. `limits` are the
 * clamp's for every tool (`hardTruncateToolPayload`'s, without `spill`); `tools` maps a
 * tool's name to its own, or to null when its results pass as they are. Throws an
 * McpUsageError on anything invalid.
 */
function parseMcpArgs(argv) {
  const state = { limits: {}, tools: new Map(), verbose: false, maxMessageBytes: MAX_MESSAGE_BYTES }
  let index = 0
  for (; index < argv.length; index++) {
    const arg = argv[index]
    if (arg === '--') {
      index++
      break
    }
    if (!arg.startsWith('-') || arg === '-') break
    const equalsAt = arg.startsWith('--') ? arg.indexOf('=') : -1
    const flag = equalsAt === -1 ? arg : arg.slice(0, equalsAt)
    const inline = equalsAt === -1 ? undefined : arg.slice(equalsAt + 1)
    if (!FLAGS.includes(flag)) throw unknownOption(flag, FLAGS)
    if (SWITCHES.includes(flag)) {
      if (inline !== undefined) throw new McpUsageError(`${flag} does not take a value`)
      if (flag === '--help' || flag === '-h') return { help: true }
      if (flag === '--version') return { version: true }
      state.verbose = true
      continue
    }
    let value = inline
    if (value === undefined) {
      value = argv[++index]
      if (value === undefined) throw new McpUsageError(`${flag} expects a value`)
    }
    readFlag(state, flag, value)
  }
  const rest = argv.slice(index)
  if (rest.length === 0 || rest[0] === '') {
    throw new McpUsageError('mcp expects the server command: toolclamp mcp [options] -- <command> [args...]')
  }
  if (state.headRatio !== undefined && state.strategy !== 'headTail') {
    throw new McpUsageError('--head-ratio only applies to --strategy head-tail')
  }
  if (
    state.tokenizer !== undefined &&
    state.limits.maxTokens === undefined &&
    ![...state.tools.values()].some((t) => t.limits.maxTokens !== undefined)
  ) {
    throw new McpUsageError('--tokenizer only applies with --max-tokens')
  }
  const limits = withShared(state, budgets(state.limits), state.strategy, state.headRatio)
  const tools = new Map()
  for (const [name, tool] of state.tools) {
    if (tool.off) {
      tools.set(name, null)
      continue
    }
    const own = Object.keys(tool.limits).length > 0 ? budgets(tool.limits) : budgets(state.limits)
    const strategy = tool.strategy ?? state.strategy
    const headRatio = tool.headRatio ?? (tool.strategy === undefined ? state.headRatio : undefined)
    if (headRatio !== undefined && strategy !== 'headTail') {
      throw new McpUsageError(`--tool ${name}:head-ratio only applies to the head-tail strategy`)
    }
    tools.set(name, withShared(state, own, strategy, headRatio))
  }
  return {
    command: rest[0],
    args: rest.slice(1),
    limits,
    tools,
    spillDir: state.spillDir === undefined ? undefined : path.resolve(state.spillDir),
    verbose: state.verbose,
    maxMessageBytes: state.maxMessageBytes,
  }
}

function readFlag(state, flag, value) {
  if (Object.hasOwn(SIZE_FLAGS, flag)) state.limits[SIZE_FLAGS[flag]] = readSize(flag, value)
  else if (flag === '--strategy') state.strategy = readStrategy(flag, value)
  else if (flag === '--head-ratio') state.headRatio = readHeadRatio(flag, value)
  else if (flag === '--tokenizer') state.tokenizer = value
  else if (flag === '--notice') state.notice = value
  else if (flag === '--tool') readTool(value, state.tools)
  else if (flag === '--max-message') {
    const bytes = readSize(flag, value)
    if (bytes < 1 || bytes > MAX_MESSAGE_BYTES) {
      throw new McpUsageError(`--max-message expects a size from 1 to ${MAX_MESSAGE_BYTES} bytes, got ${JSON.stringify(value)}`)
    }
    state.maxMessageBytes = bytes
  } else {
    if (value === '') throw new McpUsageError('--spill-dir expects a directory, got ""')
    state.spillDir = value
  }
}

/** Budgets with the strategy, head ratio, tokenizer and notice every tool shares. */
function withShared(state, limits, strategy, headRatio) {
  const options = { ...limits }
  if (strategy !== undefined) options.strategy = strategy
  if (headRatio !== undefined) options.headRatio = headRatio
  if (state.tokenizer !== undefined && options.maxTokens !== undefined) options.tokenizer = state.tokenizer
  if (state.notice !== undefined) options.notice = state.notice
  return options
}

module.exports = { parseMcpArgs, McpUsageError, MAX_MESSAGE_BYTES, FLAGS }
