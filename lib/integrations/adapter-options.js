'use strict'

// Options of the framework adapters (lib/integrations/pi-agent.js and ai-sdk.js): each
// adapter takes a few keys of its own (callbacks, maxAttempts) and hands every other key to
// the clamp of lib/conversation/messages.js, which checks them. All are read once, when the
// adapter is made, so a mistake throws there and not in the middle of an agent run.

const { mustBe } = require('../common/errors.js')
const { messageOf } = require('../common/format.js')
const { checkKeys, isPlainObject } = require('../common/options.js')
const { readClampOptions, readMaxAttempts, CLAMP_OPTIONS } = require('../conversation/messages.js')

/**
 * `{ own, clamp, read }`: the values of `ownKeys`, the clamp options as given (for
 * withContextOverflowRecovery) and as read by readClampOptions (for clampMessages). When
 * the caller may leave `contextWindowTokens` out, `window` stands in for it in the check.
 */
function readAdapterOptions(options, ownKeys, { window } = {}) {
  if (!isPlainObject(options)) throw mustBe(TypeError, `options`, `an object`, options)
  // Checked here too, so that a misspelt key of the adapter's own is named with its near miss.
  checkKeys(options, [...CLAMP_OPTIONS, ...ownKeys])
  const own = {}
  const clamp = {}
  for (const key of Object.keys(options)) {
    if (ownKeys.includes(key)) own[key] = options[key]
    else clamp[key] = options[key]
  }
  for (const key of ['onClamp', 'onRecovered']) {
    if (own[key] !== undefined && typeof own[key] !== 'function') {
      throw mustBe(TypeError, `${key}`, `a function`, own[key])
    }
  }
  // Checked here too, so a bad value fails when the adapter is made, not at the first call.
  if (own.maxAttempts !== undefined) readMaxAttempts(own.maxAttempts)
  const checked = window !== undefined && clamp.contextWindowTokens === undefined ? { ...clamp, contextWindowTokens: window } : clamp
  return { own, clamp, read: readClampOptions(checked) }
}

/** The options of withContextOverflowRecovery: the clamp options, the messages, maxAttempts if set. */
function recoveryOptions(clamp, messages, maxAttempts) {
  const options = { ...clamp, messages }
  if (maxAttempts !== undefined) options.maxAttempts = maxAttempts
  return options
}

/**
 * Calls the caller's observer `onClamp` or `onRecovered` with `value`. It must not turn a
 * clamped or recovered call into a failure: a throw becomes a process warning.
 */
function observe(name, callback, value) {
  if (callback === undefined) return
  try {
    callback(value)
  } catch (error) {
    process.emitWarning(`toolclamp: ${name} threw: ${messageOf(error)}`)
  }
}

module.exports = { readAdapterOptions, recoveryOptions, observe }
