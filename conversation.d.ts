/**
 * toolclamp/conversation: the tool results of a whole conversation kept within shares of the
 * model's context window, in estimated tokens; tokens estimated or counted exactly
 * (`countTokens`); and what a provider's error says (is the prompt too long?). The framework middleware built on these is in `toolclamp/ai-sdk` and `toolclamp/pi`.
 *
 * The units and rules in the header of index.d.ts (the root entry) hold here too.
 */

import type { hardTruncateToolPayload, Snap, SpillOptions, Strategy, Tokenizer } from './index.js'

// ---------------------------------------------------------------------------------------
// Provider errors
// ---------------------------------------------------------------------------------------

/** What a provider's error says. */
export interface ProviderErrorClass {
  /**
   * `'context_overflow'`: the prompt is longer than the model's context; `'payload_too_large'`: the
   * request body is over the provider's size limit (413, `request_too_large`); `'rate_limit'`: a
   * rate limit, tokens-per-minute limit, quota, billing or overload (shrinking does not help);
   * `'other'`.
   */
  kind: 'context_overflow' | 'payload_too_large' | 'rate_limit' | 'other'
  /** The provider whose wording matched (`'openai'`, `'anthropic'`, `'google'`, ...), when it names one. */
  provider?: string
  /** The context window in tokens, when the message states it. */
  limitTokens?: number
  /**
   * The tokens the request needs, when the message states it: the whole request where the message
   * says so ("you requested 10240 tokens"), else its input plus the completion it reserves when
   * both are counted ("190000 + 32000 > 200000"), else its input.
   */
  requestedTokens?: number
}

/**
 * Classifies an error a model provider returned: a string, an `Error` (its `cause` chain
 * followed), a pi-ai assistant message (`stopReason: 'error'`, `errorMessage`), an AI SDK
 * `APICallError` (`statusCode`, `responseBody`), an AI SDK `RetryError` (by its last error), an
 * OpenAI or Anthropic SDK error (`status`, `error`, `code`) or a plain `{ status, message }`.
 * Reads how a message states an overflow (something exceeds a limit in tokens, "maximum context
 * length is N", an error code such as `context_length_exceeded`) rather than a list of messages;
 * a completion too large alone is not an overflow. Never throws, not even on a revoked Proxy.
 *
 * @example
 * classifyProviderError(new Error('prompt is too long: 208310 tokens > 200000 maximum'))
 * // { kind: 'context_overflow', provider: 'anthropic', limitTokens: 200000, requestedTokens: 208310 }
 */
export declare function classifyProviderError(error: unknown): ProviderErrorClass

/**
 * Whether the request was too long for the model: `'context_overflow'` or `'payload_too_large'`
 * (shrinking the conversation fixes both); never a rate limit. Never throws.
 */
export declare function isContextOverflowError(error: unknown): boolean

// ---------------------------------------------------------------------------------------
// Tool results across a conversation
// ---------------------------------------------------------------------------------------

/**
 * Estimated tokens: one token per 3 UTF-8 bytes, rounded up (a CJK char is one token; ASCII is a
 * token per 3 chars). Real tokenizers count fewer for prose and code and up to two or three
 * times more for base64 and rare CJK: docs/tokens.md has the measured table. A string or bytes
 * by their UTF-8 length; any other value as
 * {@link hardTruncateToolPayload} reads it: text blocks by their text, data as compact JSON, each
 * media part (image, audio, file) as 1,600 tokens. A message (an object with a `role`, or an
 * OpenAI Responses item) or a conversation (an array of them): the content as above, media
 * 1,600 wherever it sits, and the rest of each message (role, ids, tool-call arguments) as JSON.
 * With `options.tokenizer`, every text above is counted by that tokenizer instead (media still
 * 1,600 each).
 *
 * @example
 * estimateTokens('上下左右') // 4
 * estimateTokens('上下左右', { tokenizer: 'o200k_base' }) // 2
 * estimateTokens([{ type: 'text', text: 'abc' }, { type: 'image', data, mimeType: 'image/png' }]) // 1601
 */
export declare function estimateTokens(value: unknown, options?: CountTokensOptions): number

/** Options of `countTokens`. */
export interface CountTokensOptions {
  /** How tokens are counted (see {@link Tokenizer} (from `toolclamp`)). @default 'estimate' */
  tokenizer?: Tokenizer
}

/**
 * Counts the tokens of `text`: estimated (one per 3 UTF-8 bytes, rounded up), or exactly with
 * an OpenAI encoding, a model's name, or your own counter.
 *
 * @example
 * countTokens('Hello, world!', { tokenizer: 'o200k_base' }) // 4
 * countTokens('Hello, world!', { tokenizer: 'gpt-4' }) // 4
 * countTokens('Hello, world!') // 5 (the estimate)
 */
export declare function countTokens(text: string, options?: CountTokensOptions): number

/** How the tool results of a conversation share its model's context window. */
export interface ClampMessagesOptions {
  /** The model's context window, in tokens. Required: no default. */
  contextWindowTokens: number
  /** One tool result may use at most this share of the window (media included). @default 0.3 */
  resultShare?: number
  /** All tool results together may use at most this share; the oldest are cut first. @default 0.5 */
  aggregateShare?: number
  /** A cut keeps at least this many chars of a result, or the result is elided to its marker. @default 2000 */
  minKeepChars?: number
  /** The newest N tool results are cut last. @default 1 */
  protectRecent?: number
  /**
   * Save each cut result's full text first (a file named by its content's SHA-256, 0600, written once,
   * never overwritten), and name it in the notice or the marker. No default: no file is written
   * unless this is given; files are named after the result's tool unless `spill.name` is given.
   */
  spill?: SpillOptions
  /**
   * How a cut result is shortened: its head, or head and tail when its end holds an error (see
   * {@link Strategy}). A result that says it failed (pi `isError`, Anthropic `is_error`, an AI SDK
   * `error-text` / `error-json` output, LangChain `status: 'error'`) keeps both ends, 30% of the room
   * to the head, unless a strategy is given. @default 'auto'
   */
  strategy?: Strategy
  /** Where a cut result's kept text may end: on whole lines, as for tool payloads. @default 'line' */
  snap?: Snap
  /**
   * How every token above is counted: the window's shares, each result's tokens, the reports and
   * recovery's budgets (see {@link Tokenizer} (from `toolclamp`)). With an exact tokenizer, a cut
   * result is cut within its tokens as a model reads it, each text on its own and data as compact
   * JSON. @default 'estimate'
   */
  tokenizer?: Tokenizer
}

/** What became of one tool result. */
export interface ClampedToolResult {
  messageIndex: number
  /** The content part holding it (AI SDK `tool-result` parts, Anthropic `tool_result` blocks). */
  partIndex?: number
  format: 'pi' | 'ai-sdk' | 'openai-chat' | 'openai-responses' | 'anthropic' | 'langchain'
  toolCallId?: string
  toolName?: string
  /** `'elided'`: its text is now a marker saying what was there and how to get it back; media kept. */
  action: 'kept' | 'clamped' | 'elided'
  tokensBefore: number
  tokensAfter: number
  /** The spill file holding its full text. */
  spillPath?: string
  /** Why the spill file could not be written (the notice then says to rerun the tool). */
  spillError?: Error
}

export interface ClampMessagesResult<A extends readonly unknown[]> {
  /** The very array given when nothing changed; otherwise a copy with copies of the changed messages. */
  messages: A
  changed: boolean
  savedTokens: number
  /** Estimated tokens of all tool results before and after. */
  tokensBefore: number
  tokensAfter: number
  /** False only when media and markers alone are over the budgets. */
  fits: boolean
  /**
   * False when lengths alone proved that everything fits: nothing was measured, and the token
   * counts are upper bounds (one token a UTF-16 unit).
   */
  exact: boolean
  results: ClampedToolResult[]
}

/**
 * Keeps the tool results of a conversation within their shares of the context window: each
 * result above `resultShare` is clamped to it; then, while all tool results exceed
 * `aggregateShare`, the OLDEST are cut first (the newest `protectRecent` last), by just what is
 * over, or elided to a marker when less than `minKeepChars` would remain. A result is never
 * deleted: tool-call / tool-result pairs stay intact and in order, images and other media are kept.
 *
 * Formats, detected per message: pi-ai / pi-agent-core (`role: 'toolResult'`), AI SDK
 * `ModelMessage` and `LanguageModelV3Prompt` (`tool-result` parts), OpenAI Chat (`role: 'tool'`),
 * OpenAI Responses (`function_call_output`), Anthropic (`tool_result` blocks in `user` messages),
 * LangChain `ToolMessage`. Never mutates. A result a tool wrapper already cut gets one notice
 * that counts the tool's original output and names the wrapper's spill file, if any.
 */
export declare function clampToolResultsInMessages<A extends readonly unknown[]>(
  messages: A,
  options: ClampMessagesOptions,
): ClampMessagesResult<A>

export interface OverflowRecoveryOptions<A extends readonly unknown[]> extends ClampMessagesOptions {
  /** The conversation `send` first gets. Required. */
  messages: A
  /** Calls in all, the first included. @default 3 */
  maxAttempts?: number
}

export interface OverflowAttempt {
  attempt: number
  /** What the provider's error said; null for the call that succeeded. */
  error: ProviderErrorClass | null
  /** Tokens the rewrite after this attempt saved. */
  savedTokens?: number
}

/**
 * Calls `send(messages)`; when the provider answers that the request is too long
 * ({@link isContextOverflowError}), rewrites the tool results of the original messages tighter
 * (by the excess the error states, or by half) and calls again, at most `maxAttempts` calls.
 * A rate limit or any other error is thrown as it came, as is the last overflow.
 */
export declare function withContextOverflowRecovery<A extends readonly unknown[], R>(
  send: (messages: A) => R | Promise<R>,
  options: OverflowRecoveryOptions<A>,
): Promise<{ result: R; messages: A; attempts: OverflowAttempt[] }>

export interface GuardOptions extends ClampMessagesOptions {
  /**
   * Called with the clamp's result when it changed the request; a throw is a process warning, never
   * a failed call. No default: nothing is called.
   */
  onClamp?: (result: ClampMessagesResult<readonly unknown[]>) => void
}

export interface RecoveryHooks {
  /** Calls in all, the first included. @default 3 */
  maxAttempts?: number
  /**
   * Called when a retried call got through, with the attempts and the messages that did; a throw is
   * a process warning. No default: nothing is called.
   */
  onRecovered?: (info: { attempts: OverflowAttempt[]; messages: unknown[] }) => void
}
