'use strict'

// pi-agent-core (@mariozechner/pi-agent-core) and pi-ai: keeping tool results within the
// context window, in two hooks of the Agent.
//
//   toolResultsContextGuard(options)             → Agent option `transformContext`
//   wrapStreamFnWithOverflowRecovery(fn, opts)   → Agent option `streamFn`
//
// The guard runs before every model call and clamps the tool results of the request to
// their shares of the window (clampToolResultsInMessages). The stream wrapper is the
// backstop: when the provider still answers "prompt is too long" (pi-ai encodes a failed
// request as an assistant message with stopReason 'error' and the provider's errorMessage),
// it retries the call with the tool results rewritten tighter (withContextOverflowRecovery).
// Both rewrite the request only: the agent's transcript keeps every tool result whole.
//
// Nothing here imports pi: the guard is a plain async function and the wrapper returns an
// event stream of its own with the interface the agent loop reads (async iteration and
// result()).

const { mustBe } = require('../common/errors.js')
const { clampMessages, withContextOverflowRecovery } = require('../conversation/messages.js')
const { isContextOverflowError } = require('../conversation/provider-errors.js')
const { messageOf } = require('../common/format.js')
const { readAdapterOptions, recoveryOptions, observe } = require('./adapter-options.js')

/**
 * A `transformContext` for pi-agent-core's Agent: before every model call, the tool results
 * in the messages are clamped to their shares of `contextWindowTokens` (see
 * clampToolResultsInMessages for the options). `onClamp(result)` is called with the clamp's
 * result whenever it changed something. Per pi's contract the function never rejects: a
 * clamp that throws leaves the messages as they were, with a process warning, and an
 * onClamp that throws leaves them as clamped (with a warning).
 */
function toolResultsContextGuard(options) {
  const { own, read } = readAdapterOptions(options, ['onClamp'])
  const { onClamp } = own
  return async function transformContext(messages) {
    let result
    try {
      result = clampMessages(messages, read)
    } catch (error) {
      // pi's contract forbids a throw here; never silently: the stream wrapper is the backstop.
      process.emitWarning(`toolclamp: the context guard could not clamp the tool results: ${messageOf(error)}`)
      return messages
    }
    if (result.changed) observe('onClamp', onClamp, result)
    return result.messages
  }
}

// The end of an assistant response in pi-ai's event protocol, and the message it carries.
const isTerminal = (event) => event.type === 'done' || event.type === 'error'
const messageOfTerminal = (event) => (event.type === 'done' ? event.message : event.error)

/**
 * An event stream with pi-ai's AssistantMessageEventStream interface: `push`, `end`, async
 * iteration, and `result()`, which settles with the final assistant message.
 */
class RelayedEventStream {
  #queue = []
  #waiting = []
  #done = false
  #resolveResult
  #result = new Promise((resolve) => {
    this.#resolveResult = resolve
  })

  push(event) {
    if (this.#done) return
    if (isTerminal(event)) {
      this.#done = true
      this.#resolveResult(messageOfTerminal(event))
    }
    const waiter = this.#waiting.shift()
    if (waiter) waiter({ value: event, done: false })
    else this.#queue.push(event)
  }

  end(result) {
    this.#done = true
    if (result !== undefined) this.#resolveResult(result)
    while (this.#waiting.length > 0) this.#waiting.shift()({ value: undefined, done: true })
  }

  async *[Symbol.asyncIterator]() {
    for (;;) {
      if (this.#queue.length > 0) {
        yield this.#queue.shift()
      } else if (this.#done) {
        return
      } else {
        const next = await new Promise((resolve) => this.#waiting.push(resolve))
        if (next.done) return
        yield next.value
      }
    }
  }

  result() {
    return this.#result
  }
}

/** The assistant message pi-ai makes of a request that failed with `error`. */
function failedMessage(model, error, aborted) {
  return {
    role: 'assistant',
    content: [],
    api: model?.api,
    provider: model?.provider,
    model: model?.id,
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: aborted ? 'aborted' : 'error',
    errorMessage: messageOf(error),
    timestamp: Date.now(),
  }
}

/**
 * Wraps a pi `streamFn` (pi-ai's `streamSimple`, or your own with its signature) so that a
 * response that fails with a context overflow before any content (the provider refused the
 * request) is retried with the tool results of `context.messages` rewritten tighter, up to
 * `maxAttempts` calls in all. Events of a response are held back only until its first
 * content event or its end, so a retried attempt is never seen by the agent; a response that
 * fails otherwise, or after content, passes through as it came. When the attempts run out
 * the last overflow error is the response.
 *
 * Options: `contextWindowTokens` (default: the model's `contextWindow`), `maxAttempts`,
 * the clamp options of clampToolResultsInMessages, and `onRecovered({ attempts, messages })`,
 * called when a retried call got through.
 */
function wrapStreamFnWithOverflowRecovery(streamFn, options = {}) {
  if (typeof streamFn !== 'function') {
    throw mustBe(TypeError, `streamFn`, `a function (pi-ai's streamSimple or one with its signature)`, streamFn)
  }
  const { own, clamp } = readAdapterOptions(options, ['maxAttempts', 'onRecovered'], { window: 200_000 })
  let warned = false
  return function streamWithOverflowRecovery(model, context, streamOptions) {
    const window = clamp.contextWindowTokens ?? model?.contextWindow
    // No window to measure against (a model without contextWindow): the call goes through as
    // it is, never silently.
    if (!(Number.isSafeInteger(window) && window > 0)) {
      if (!warned) {
        warned = true
        process.emitWarning(
          `toolclamp: model ${JSON.stringify(String(model?.id))} has no contextWindow and no contextWindowTokens was given: overflow recovery is off for it`,
        )
      }
      return streamFn(model, context, streamOptions)
    }
    const output = new RelayedEventStream()
    const settings = { ...own, clamp: { ...clamp, contextWindowTokens: window } }
    relay(output, streamFn, settings, model, context, streamOptions).catch((error) => {
      const message = failedMessage(model, error, streamOptions?.signal?.aborted === true)
      output.push({ type: 'error', reason: message.stopReason, error: message })
      output.end(message)
    })
    return output
  }
}

/** One model call through `streamFn`, retried on overflow, relayed into `output`. */
async function relay(output, streamFn, settings, model, context, streamOptions) {
  let last
  // An attempt: the stream, its iterator, and the events held back until the first content
  // event or the end. Throws the response's error when it is an overflow, for the recovery.
  const send = async (messages) => {
    last = undefined
    const request = messages === context.messages ? context : { ...context, messages }
    const stream = await streamFn(model, request, streamOptions)
    const attempt = { stream, iterator: stream[Symbol.asyncIterator](), held: [], ended: false, overflow: undefined }
    last = attempt
    for (;;) {
      const next = await attempt.iterator.next()
      if (next.done) {
        attempt.ended = true
        return attempt
      }
      const event = next.value
      attempt.held.push(event)
      if (event.type === 'start') continue
      if (event.type === 'error' && event.reason === 'error' && isContextOverflowError(event.error)) {
        attempt.overflow = event.error
        throw event.error
      }
      return attempt
    }
  }

  let attempt
  try {
    const recovered = await withContextOverflowRecovery(send, recoveryOptions(settings.clamp, context.messages, settings.maxAttempts))
    attempt = recovered.result
    if (recovered.attempts.length > 1) {
      observe('onRecovered', settings.onRecovered, { attempts: recovered.attempts, messages: recovered.messages })
    }
  } catch (error) {
    // Attempts ran out, or nothing was left to cut: the last overflow is the answer.
    if (last === undefined || last.overflow === undefined) throw error
    attempt = last
  }

  for (const event of attempt.held) output.push(event)
  if (!attempt.ended && !attempt.held.some(isTerminal)) {
    for (;;) {
      const next = await attempt.iterator.next()
      if (next.done) break
      output.push(next.value)
    }
  }
  output.end(await attempt.stream.result())
}

module.exports = { toolResultsContextGuard, wrapStreamFnWithOverflowRecovery }
