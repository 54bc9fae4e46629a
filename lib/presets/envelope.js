'use strict'

// The tool-output envelope Inspect puts around oversized tool output, and the precedence
// that picks its byte limit: explicit argument > config > environment variable > 16 KiB.
// The cut itself (byte-based, head and tail kept, notice included) is truncateText's.

const { invalid, mustBe } = require('../common/errors.js')
const { truncateText } = require('../text/clamp.js')
const { parseSize } = require('../common/size.js')
const { formatCount } = require('../common/format.js')
const { checkKeys, isPlainObject, nearMiss, readBudget } = require('../common/options.js')
const { TOOL_OUTPUT_PRESETS } = require('../common/defaults.js')

// The preset `inspect`: 16 KiB, half to each end; `limit` replaces its byte budget.
const INSPECT = TOOL_OUTPUT_PRESETS.inspect
const DEFAULT_TOOL_OUTPUT_LIMIT = INSPECT.maxBytes
const LIMIT_ENV_VARIABLE = 'TOOLCLAMP_MAX_TOOL_OUTPUT'
const CONFIG_KEY = 'maxToolOutput'

const START_MARKER = '<START_TOOL_OUTPUT>'
const END_MARKER = '<END_TOOL_OUTPUT>'

const RESOLVE_OPTIONS = ['arg', 'config', 'env']
const ENVELOPE_OPTIONS = ['limit', 'config', 'env']

function checkLimit(name, value) {
  if (typeof value !== 'number') throw mustBe(TypeError, `${name}`, `a number of bytes`, value)
  return readBudget(name, value)
}

/** The limit a config gives, or undefined when it gives none. */
function readConfigLimit(config) {
  if (config === undefined) return undefined
  if (typeof config === 'number') return checkLimit('config', config)
  if (!isPlainObject(config)) {
    throw mustBe(TypeError, `config`, `a number or an object with ${CONFIG_KEY}`, config)
  }
  // The config is the caller's own object and may hold other settings, so other keys are
  // allowed; a misspelt maxToolOutput (max_tool_output, maxtooloutput) must not be ignored.
  for (const key of Object.keys(config)) {
    if (nearMiss(key, [CONFIG_KEY]) !== undefined) {
      throw invalid(TypeError, `unknown option ${JSON.stringify(key)} in config; did you mean ${JSON.stringify(CONFIG_KEY)}?`)
    }
  }
  const value = config[CONFIG_KEY]
  return value === undefined ? undefined : checkLimit(`config.${CONFIG_KEY}`, value)
}

// Each bad value is reported once: the limit may be resolved on every tool call.
const reportedEnvValues = new Set()

/** The limit the environment gives, or undefined. A bad value warns and never throws. */
function readEnvLimit(env) {
  const raw = env[LIMIT_ENV_VARIABLE]
  // `VAR=` is the usual way to unset a variable in env files.
  if (raw === undefined || raw === '') return undefined
  const text = String(raw)
  try {
    return parseSize(text)
  } catch {
    if (!reportedEnvValues.has(text)) {
      reportedEnvValues.add(text)
      process.emitWarning(`${LIMIT_ENV_VARIABLE}=${JSON.stringify(text)} is not a size like 16384, 16k or 1MiB; using the default`, {
        code: 'TOOLCLAMP_INVALID_MAX_TOOL_OUTPUT',
      })
    }
    return undefined
  }
}

/**
 * Applies the precedence; `argName` is how the caller named the explicit limit. Every value
 * given is checked, even one a higher level overrides, so a bad setting fails at once; the
 * environment variable is only read when it is the level that decides.
 */
function resolveLimit(arg, argName, config, env) {
  const fromArg = arg === undefined ? undefined : checkLimit(argName, arg)
  const fromConfig = readConfigLimit(config)
  if (env !== undefined && (typeof env !== 'object' || env === null)) {
    throw mustBe(TypeError, `env`, `an object of environment variables`, env)
  }
  if (fromArg !== undefined) return { value: fromArg, source: 'arg' }
  if (fromConfig !== undefined) return { value: fromConfig, source: 'config' }
  const fromEnv = readEnvLimit(env === undefined ? process.env : env)
  if (fromEnv !== undefined) return { value: fromEnv, source: 'env' }
  return { value: DEFAULT_TOOL_OUTPUT_LIMIT, source: 'default' }
}

function resolveToolOutputLimit(options) {
  if (options === undefined) return resolveLimit(undefined, 'arg', undefined, undefined)
  if (!isPlainObject(options)) throw mustBe(TypeError, `options`, `an object`, options)
  checkKeys(options, RESOLVE_OPTIONS)
  return resolveLimit(options.arg, 'arg', options.config, options.env)
}

function formatToolOutputEnvelope(toolName, output, options) {
  if (typeof toolName !== 'string') throw mustBe(TypeError, `toolName`, `a string`, toolName)
  if (typeof output !== 'string') throw mustBe(TypeError, `output`, `a string`, output)
  let resolved
  if (options === undefined) {
    resolved = resolveLimit(undefined, 'limit', undefined, undefined)
  } else {
    if (!isPlainObject(options)) throw mustBe(TypeError, `options`, `an object`, options)
    checkKeys(options, ENVELOPE_OPTIONS)
    resolved = resolveLimit(options.limit, 'limit', options.config, options.env)
  }
  const limit = resolved.value
  const originalBytes = Buffer.byteLength(output, 'utf8')
  if (originalBytes <= limit) {
    // Like Inspect: output within the limit goes to the model as it is, with no envelope.
    return { text: output, truncated: false, originalBytes, limit, source: resolved.source }
  }
  const payload = truncateText(output, { ...INSPECT, maxBytes: limit })
  const sentence =
    `The output of tool ${JSON.stringify(toolName)} was too long ` +
    `(${formatCount(originalBytes)} bytes) and was truncated to its first and last parts ` +
    `(${formatCount(payload.outputBytes)} bytes).`
  return {
    text: `${sentence}\n${START_MARKER}\n${payload.text}\n${END_MARKER}`,
    truncated: true,
    originalBytes,
    limit,
    source: resolved.source,
  }
}

module.exports = { formatToolOutputEnvelope, resolveToolOutputLimit }
