'use strict'

// pi-coding-agent: toolclamp as a pi extension. The package's pi-extension.mjs (named by the
// "pi" key of package.json) is `export default toolResultsExtension()`, so after
// `pi install npm:toolclamp` every session clamps, through two of pi's extension events:
//
//   tool_result  each tool result (pi's own tools, other extensions' tools, MCP adapters),
//                before pi records it and sends it, to maxBytes and maxLines; the full text
//                is saved first to a spill file the notice names. A result within the
//                limits is left alone: the handler returns nothing, so pi keeps the very
//                value (pi's own tools cut at 50 KiB and 2,000 lines, under the defaults).
//   context      before each model call, the tool results of the request, to their shares
//                of the model's context window (toolResultsContextGuard), so that a resumed
//                session, or many results together, stay within it. Only the request
//                changes: the session keeps what tool_result left.
//
// Settings: options given in code, else environment variables (TOOLCLAMP_MAX_BYTES, ...),
// else the defaults (lib/common/defaults.js). pi has no settings for extensions. A variable
// that cannot be read is a process warning and its default applies: an extension that
// failed to load would leave every result unclamped.
//
// Nothing here imports pi: the factory gets pi's ExtensionAPI and only calls `pi.on`.

const os = require('node:os')
const path = require('node:path')

const { invalid, mustBe } = require('../common/errors.js')
const { CONVERSATION_DEFAULTS, PI_EXTENSION_DEFAULTS } = require('../common/defaults.js')
const { describe, formatCount, messageOf } = require('../common/format.js')
const { readBudget, readOptionsObject } = require('../common/options.js')
const { parseDecimal, parseSize } = require('../common/size.js')
const { hardTruncateFailedPayload, hardTruncateToolPayload } = require('../results/payload.js')
const { pruneSpillDir } = require('../files/spill.js')
const { toolResultsContextGuard } = require('./pi-agent.js')

const DAY_MS = 24 * 60 * 60 * 1000
const SPILL_DIR_NAME = 'toolclamp-spill'
const DEFAULT_SPILL_NAME = 'tool-result'
const DISABLE_VARIABLE = 'TOOLCLAMP_DISABLE'
// pi's own rule for its agent directory (its config.js): this variable, else ~/.pi/agent.
const PI_AGENT_DIR_VARIABLE = 'PI_CODING_AGENT_DIR'
const WARNING_CODE = 'TOOLCLAMP_INVALID_SETTING'

// ---------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------

/** `~` and `~/...` as pi reads them in its own variables; anything else as it is. */
function expandHome(text) {
  if (text === '~') return os.homedir()
  if (text.startsWith('~/')) return path.join(os.homedir(), text.slice(2))
  return text
}

/** A directory named by a setting: non-empty, no NUL; resolved now (pi may change directory). */
function readDir(name, value) {
  if (typeof value !== 'string' || value === '') throw mustBe(TypeError, name, `a non-empty string`, value)
  if (value.includes('\0')) throw invalid(TypeError, `${name} must not contain a NUL character`)
  return path.resolve(value)
}

function readDays(name, value) {
  if (typeof value !== 'number') throw mustBe(TypeError, name, `a number of days above 0`, value)
  if (!(value > 0)) throw mustBe(RangeError, name, `a number of days above 0 (Infinity keeps spill files)`, value)
  return value
}

function readShare(name, value) {
  if (typeof value !== 'number') throw mustBe(TypeError, name, `a number above 0 and at most 1`, value)
  if (!(value > 0 && value <= 1)) throw mustBe(RangeError, name, `a number above 0 and at most 1`, value)
  return value
}

// Each setting: its option, its variable, how a value given in code is checked, how the
// variable's text is read (throwing a plain Error, whose message follows the name), and
// what the default is.
const SETTINGS = [
  {
    key: 'maxBytes',
    variable: 'TOOLCLAMP_MAX_BYTES',
    check: readBudget,
    parse: parseSize,
    expected: 'a size like 65536, 64k or 1MiB',
  },
  {
    key: 'maxLines',
    variable: 'TOOLCLAMP_MAX_LINES',
    check: readBudget,
    parse: (text) => {
      if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new Error()
      return Number(text)
    },
    expected: 'a whole number of lines',
  },
  {
    key: 'spillDir',
    variable: 'TOOLCLAMP_SPILL_DIR',
    check: readDir,
    parse: (text) => readDir('', expandHome(text)),
    expected: 'a directory',
  },
  {
    key: 'spillDays',
    variable: 'TOOLCLAMP_SPILL_DAYS',
    check: readDays,
    parse: (text) => {
      const days = parseDecimal(text)
      if (!(days > 0)) throw new Error()
      return days
    },
    expected: 'a number of days above 0',
  },
  {
    key: 'resultShare',
    variable: 'TOOLCLAMP_RESULT_SHARE',
    check: readShare,
    parse: (text) => readShare('', parseDecimal(text)),
    expected: 'a number above 0 and at most 1',
  },
  {
    key: 'aggregateShare',
    variable: 'TOOLCLAMP_AGGREGATE_SHARE',
    check: readShare,
    parse: (text) => readShare('', parseDecimal(text)),
    expected: 'a number above 0 and at most 1',
  },
]
const OPTIONS = [...SETTINGS.map((setting) => setting.key), 'env']

/** pi's agent directory, as pi finds it: PI_CODING_AGENT_DIR, else ~/.pi/agent. */
function piAgentDir(env) {
  const given = env[PI_AGENT_DIR_VARIABLE]
  if (typeof given === 'string' && given !== '') return path.resolve(expandHome(given))
  return path.join(os.homedir(), '.pi', 'agent')
}

function defaults(env) {
  return {
    maxBytes: PI_EXTENSION_DEFAULTS.maxBytes,
    maxLines: PI_EXTENSION_DEFAULTS.maxLines,
    spillDir: path.join(piAgentDir(env), SPILL_DIR_NAME),
    spillDays: PI_EXTENSION_DEFAULTS.spillDays,
    resultShare: CONVERSATION_DEFAULTS.resultShare,
    aggregateShare: CONVERSATION_DEFAULTS.aggregateShare,
  }
}

/** A variable's text, or undefined when unset (`VAR=` is how env files unset one). */
function variable(env, name) {
  const value = env[name]
  return value === undefined || value === '' ? undefined : String(value)
}

/** A bad variable: a warning that says what it must be and what applies instead. */
function badVariable(name, text, expected, fallback) {
  const shown = typeof fallback === 'number' ? formatCount(fallback) : JSON.stringify(fallback)
  process.emitWarning(`${name}=${JSON.stringify(text)} is not ${expected}; using the default, ${shown}`, { code: WARNING_CODE })
}

/** TOOLCLAMP_DISABLE: 1, true or yes turn the extension off; 0, false, no or unset leave it on. */
function readDisabled(env) {
  const text = variable(env, DISABLE_VARIABLE)
  if (text === undefined) return false
  const word = text.trim().toLowerCase()
  if (['1', 'true', 'yes'].includes(word)) return true
  if (!['0', 'false', 'no'].includes(word)) {
    process.emitWarning(`${DISABLE_VARIABLE}=${JSON.stringify(text)} is not 1, true, yes, 0, false or no; toolclamp stays on`, {
      code: WARNING_CODE,
    })
  }
  return false
}

/**
 * The settings, each from the options, else its variable, else its default. Options are
 * checked and throw; a variable is only read when it decides, and a bad one warns.
 */
function readSettings(options) {
  const given = readOptionsObject(options, OPTIONS, true)
  const env = given.env === undefined ? process.env : given.env
  if (typeof env !== 'object' || env === null) throw mustBe(TypeError, `env`, `an object of environment variables`, env)
  const settings = defaults(env)
  const fromOptions = {}
  for (const { key, check } of SETTINGS) {
    const value = given[key]
    if (value !== undefined) fromOptions[key] = check(key, value)
  }
  for (const { key, variable: name, parse, expected } of SETTINGS) {
    if (key in fromOptions) {
      settings[key] = fromOptions[key]
      continue
    }
    const text = variable(env, name)
    if (text === undefined) continue
    try {
      settings[key] = parse(text)
    } catch {
      badVariable(name, text, expected, settings[key])
    }
  }
  settings.disabled = readDisabled(env)
  return Object.freeze(settings)
}

// ---------------------------------------------------------------------------------------
// The handlers
// ---------------------------------------------------------------------------------------

/** Tells the user: in pi's UI when there is one, else as a process warning (print mode). */
function warn(ctx, message) {
  const text = `toolclamp: ${message}`
  if (ctx?.hasUI === true && typeof ctx.ui?.notify === 'function') {
    try {
      ctx.ui.notify(text, 'warning')
      return
    } catch {
      // Told as a warning instead.
    }
  }
  process.emitWarning(text)
}

/**
 * tool_result: the content clamped (a failed result keeps both ends, most of the room to the
 * end), or undefined when it fits, so pi keeps its very value.
 */
function clampResult(event, settings, ctx) {
  const content = event?.content
  const toolName = typeof event?.toolName === 'string' && event.toolName !== '' ? event.toolName : DEFAULT_SPILL_NAME
  const onSpill = (report) => {
    if (report.path !== null) return
    warn(ctx, `the full output of ${toolName} could not be saved in ${settings.spillDir}: ${messageOf(report.error)}`)
  }
  const limits = {
    maxBytes: settings.maxBytes,
    maxLines: settings.maxLines,
    spill: { dir: settings.spillDir, name: toolName, onSpill },
  }
  const clamped = (event?.isError === true ? hardTruncateFailedPayload : hardTruncateToolPayload)(content, limits)
  return clamped === content ? undefined : { content: clamped }
}

/** Spill files older than spillDays, removed once a load (pi starts, or /reload). */
function prune(settings, ctx) {
  if (settings.spillDays === Infinity) return
  try {
    pruneSpillDir(settings.spillDir, { maxAgeMs: settings.spillDays * DAY_MS })
  } catch (error) {
    warn(ctx, `old spill files in ${settings.spillDir} could not be removed: ${messageOf(error)}`)
  }
}

/**
 * A pi extension (an ExtensionFactory: call it with pi's ExtensionAPI) that clamps every
 * tool result pi sends to the model, and the tool results of each request to their shares of
 * the model's context window. `settings` (a property of the factory) says what it will do.
 */
function toolResultsExtension(options) {
  const settings = readSettings(options)
  // Both clamps read their options once now: settings they would refuse fail here, when the
  // extension is made, never in one of pi's events.
  hardTruncateToolPayload('', { maxBytes: settings.maxBytes, maxLines: settings.maxLines })
  const guardOptions = {
    resultShare: settings.resultShare,
    aggregateShare: settings.aggregateShare,
    spill: { dir: settings.spillDir },
  }
  toolResultsContextGuard({ ...guardOptions, contextWindowTokens: 1 })

  function toolclamp(pi) {
    if (settings.disabled) return
    if (typeof pi !== 'object' || pi === null || typeof pi.on !== 'function') {
      throw mustBe(TypeError, `pi`, `pi's ExtensionAPI (an object with an on method)`, pi)
    }
    let pruned = false
    pi.on('session_start', (_event, ctx) => {
      if (pruned) return
      pruned = true
      prune(settings, ctx)
    })

    pi.on('tool_result', (event, ctx) => clampResult(event, settings, ctx))

    // One guard for each window a model of the session has.
    const guards = new Map()
    const unmeasured = new Set()
    pi.on('context', async (event, ctx) => {
      const model = ctx?.model
      const window = model?.contextWindow
      if (!(Number.isSafeInteger(window) && window > 0)) {
        const id = `${model?.provider}/${model?.id}`
        if (!unmeasured.has(id)) {
          unmeasured.add(id)
          warn(ctx, `model ${id} has no contextWindow (${describe(window)}): its requests are sent without the context guard`)
        }
        return undefined
      }
      let guard = guards.get(window)
      if (guard === undefined) {
        guard = toolResultsContextGuard({ ...guardOptions, contextWindowTokens: window })
        guards.set(window, guard)
      }
      const messages = await guard(event.messages)
      return messages === event.messages ? undefined : { messages }
    })
  }
  Object.defineProperty(toolclamp, 'settings', { value: settings, enumerable: true })
  return toolclamp
}

module.exports = { toolResultsExtension }
