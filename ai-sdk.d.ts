/**
 * toolclamp/ai-sdk: the Vercel AI SDK middleware that keeps the tool results of each prompt within
 * shares of the context window and retries a call refused as too long.
 *
 * The units and rules in the header of index.d.ts (the root entry) hold here too.
 */

import type { GuardOptions, RecoveryHooks } from './conversation.js'

// The option types of the middleware, declared with the conversation clamp they configure.
export type { GuardOptions, RecoveryHooks } from './conversation.js'

/**
 * Vercel AI SDK: a `LanguageModelV3Middleware` for `wrapLanguageModel`: `transformParams` clamps
 * the tool results of the prompt; `wrapGenerate` and `wrapStream` retry a call refused as too
 * long (an `APICallError`, or a stream opening with an `error` part) with a tighter prompt.
 */
export declare function toolResultsMiddleware(options: GuardOptions & RecoveryHooks): {
  specificationVersion: 'v3'
  transformParams: (options: { params: any; type: string; model: any }) => PromiseLike<any>
  wrapGenerate: (options: any) => PromiseLike<any>
  wrapStream: (options: any) => PromiseLike<any>
}
