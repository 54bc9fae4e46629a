'use strict'

// The Vercel AI SDK (ai 5 and 6): a LanguageModelV3 middleware for wrapLanguageModel that
// keeps the tool results of every call within their shares of the context window, and
// retries a call the provider refused as too long with the tool results rewritten tighter.
//
//   const model = wrapLanguageModel({ model: openai('gpt-4.1'),
//     middleware: toolResultsMiddleware({ contextWindowTokens: 1_000_000 }) })
//
// transformParams clamps the `tool` messages of params.prompt (clampToolResultsInMessages);
// wrapGenerate and wrapStream hand the call to withContextOverflowRecovery, which retries on
// a context overflow (an APICallError with the provider's message, or an `error` part a
// stream opens with) and passes every other error through untouched. Nothing here imports
// the SDK: the middleware is a plain object of that shape.

const { clampMessages, withContextOverflowRecovery } = require('../conversation/messages.js')
const { isContextOverflowError } = require('../conversation/provider-errors.js')
const { readAdapterOptions, recoveryOptions, observe } = require('./adapter-options.js')

// Stream parts that say nothing of the answer yet: held back until one that does.
const PREAMBLE_PARTS = new Set(['stream-start', 'response-metadata', 'raw'])

/**
 * A LanguageModelV3Middleware. Options: `contextWindowTokens` (required), `maxAttempts`,
 * the clamp options of clampToolResultsInMessages, `onClamp(result)` (called when
 * transformParams changed the prompt) and `onRecovered({ attempts, messages })` (called when
 * a retried call got through; `messages` is the prompt that did).
 */
function toolResultsMiddleware(options) {
  const { own, clamp, read } = readAdapterOptions(options, ['maxAttempts', 'onClamp', 'onRecovered'])
  const { maxAttempts, onClamp, onRecovered } = own

  async function recover(params, call) {
    const recovered = await withContextOverflowRecovery(call, recoveryOptions(clamp, params.prompt, maxAttempts))
    if (recovered.attempts.length > 1) observe('onRecovered', onRecovered, { attempts: recovered.attempts, messages: recovered.messages })
    return recovered.result
  }

  return {
    specificationVersion: 'v3',

    async transformParams({ params }) {
      const result = clampMessages(params.prompt, read)
      if (!result.changed) return params
      observe('onClamp', onClamp, result)
      return { ...params, prompt: result.messages }
    },

    // The first attempt is the SDK's own call; a retry calls the model below with the new prompt.
    async wrapGenerate({ doGenerate, params, model }) {
      return recover(params, (prompt) => (prompt === params.prompt ? doGenerate() : model.doGenerate({ ...params, prompt })))
    },

    async wrapStream({ doStream, params, model }) {
      let last
      const send = async (prompt) => {
        // A retry: the stream that opened with the overflow is not read any further.
        if (last !== undefined) last.result.stream.cancel().catch(() => {})
        last = undefined
        const result = await (prompt === params.prompt ? doStream() : model.doStream({ ...params, prompt }))
        last = await openStream(result)
        if (last.overflow !== undefined) throw last.overflow
        return last.result
      }
      try {
        return await recover(params, send)
      } catch (error) {
        // Attempts ran out on a stream that opened with an overflow: that stream is the answer.
        if (last?.overflow === undefined) throw error
        return last.result
      }
    },
  }
}

/**
 * Reads `result.stream` up to its first part that is not preamble. `{ result, overflow }`:
 * the result with a stream that replays what was read, and the error of an `error` part
 * when that first part is a context overflow.
 */
async function openStream(result) {
  const reader = result.stream.getReader()
  const held = []
  let ended = false
  for (;;) {
    const next = await reader.read()
    if (next.done) {
      ended = true
      break
    }
    held.push(next.value)
    if (!PREAMBLE_PARTS.has(next.value?.type)) break
  }
  const first = held.at(-1)
  const overflow = first?.type === 'error' && isContextOverflowError(first.error) ? first.error : undefined
  const stream = new ReadableStream({
    start(controller) {
      for (const part of held) controller.enqueue(part)
      if (ended) controller.close()
    },
    async pull(controller) {
      if (ended) return
      const next = await reader.read()
      if (next.done) {
        ended = true
        controller.close()
      } else {
        controller.enqueue(next.value)
      }
    },
    cancel(reason) {
      return reader.cancel(reason)
    },
  })
  return { result: { ...result, stream }, overflow }
}

module.exports = { toolResultsMiddleware }
