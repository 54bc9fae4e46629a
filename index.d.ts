/**
 * toolclamp: clamp LLM tool output to hard budgets before it enters a model's context.
 *
 * Units, everywhere:
 * - a **char** is a UTF-16 code unit (`s.length`);
 * - a **byte** is a UTF-8 byte as `Buffer.byteLength(s, 'utf8')` counts it (a lone surrogate is 3);
 * - **lines**: 0 for `''`, else the number of `\n` plus 1 if the text does not end with `\n`
 *   (`\r\n` is one line break).
 *
 * Every function here:
 * - returns the very same string when the text is within every limit;
 * - otherwise returns an unmodified prefix and/or suffix of the text plus one notice, and the
 *   whole result, notice included, is within every limit (a shorter notice, down to none, is
 *   used when a limit is too small for the full one);
 * - never cuts inside a surrogate pair or between `\r` and `\n`;
 * - never throws on a string, whatever it holds; throws `TypeError`/`RangeError` naming the
 *   option and the value for invalid limits or options, and for unknown option keys.
 */

/** A budget dimension. */
export type LimitName = 'chars' | 'bytes' | 'lines'

/**
 * Budgets. Each is a non-negative integer, or `Infinity` for none; at least one is required.
 * `undefined` counts as not given.
 */
export interface Limits {
  /** Maximum UTF-16 code units (`s.length`). */
  maxChars?: number
  /** Maximum UTF-8 bytes (`Buffer.byteLength(s, 'utf8')`). */
  maxBytes?: number
  /** Maximum lines. */
  maxLines?: number
}

/** A number is `maxChars`; an object sets any of the three budgets. */
export type Limit = number | Limits

/** What a notice may say; counts are of the input, in its units. */
export interface NoticeFacts {
  /** Which part of the text was dropped. */
  where: 'start' | 'end' | 'middle'
  /** The limits the input exceeds, in the order chars, bytes, lines. */
  truncatedBy: LimitName[]
  omittedChars: number
  omittedBytes: number
  omittedLines: number
  totalChars: number
  totalBytes: number
  totalLines: number
  /** UTF-16 offset where the dropped text starts. */
  headEnd: number
  /** UTF-16 offset where the kept tail starts. */
  tailStart: number
}

/**
 * The notice put where text was dropped, on a line of its own.
 *
 * - omitted: the default, e.g. `[... 370 lines, 48,113 bytes truncated at the end ...]`;
 * - a template string with placeholders `{omitted}` (`370 lines, 48,113 bytes`), `{where}`,
 *   `{omittedChars}`, `{omittedBytes}`, `{omittedLines}`, `{totalChars}`, `{totalBytes}`,
 *   `{totalLines}` (counts with thousands separators), `{headEnd}`, `{tailStart}` (plain
 *   offsets); `{{` and `}}` are literal braces; an unknown placeholder throws a `TypeError`;
 * - a function of the facts returning the notice.
 *
 * When the limits leave no room for it, `[... truncated ...]`, then `[...]`, then nothing is used.
 */
export type Notice = string | ((facts: NoticeFacts) => string)

export interface NoticeOptions {
  notice?: Notice
}

export interface HeadTailOptions extends NoticeOptions {
  /** Share of the budget given to the start, from 0 to 1. Default 0.5. */
  headRatio?: number
}

/** Where `truncateText` keeps text. */
export type Strategy = 'head' | 'tail' | 'headTail'

export interface TruncateTextOptions extends Limits {
  /** Default `'head'`: keep the start, drop the end. */
  strategy?: Strategy
  /** With `'headTail'`: share of the budget given to the start, from 0 to 1. Default 0.5. */
  headRatio?: number
  notice?: Notice
}

/** The clamped text and what happened to it. Field names follow pi-mono's `TruncationResult`. */
export interface TruncateTextResult {
  /** The result: the input itself when nothing was cut. */
  text: string
  truncated: boolean
  /** The limits the input exceeds (empty when not truncated), in the order chars, bytes, lines. */
  truncatedBy: LimitName[]
  strategy: Strategy
  totalChars: number
  totalBytes: number
  totalLines: number
  outputChars: number
  outputBytes: number
  outputLines: number
  omittedChars: number
  omittedBytes: number
  omittedLines: number
  /**
   * UTF-16 offset into the input where the dropped text starts: `input.slice(headEnd, tailStart)`
   * is exactly what was dropped (the continuation handle). Equal to `totalChars` when nothing was cut.
   */
  headEnd: number
  /** UTF-16 offset into the input where the kept tail starts. */
  tailStart: number
}

/** Chars, bytes and lines of a text, in one pass. */
export interface TextMeasure {
  chars: number
  bytes: number
  lines: number
}

/**
 * Keeps the start of `text`; the notice goes at the end.
 *
 * @example
 * stringTruncateHead(fileContents, { maxBytes: 50 * 1024, maxLines: 2000 })
 * // '...first 2000 lines...\n[... 3,123 lines, 250,880 bytes truncated at the end ...]'
 */
export declare function stringTruncateHead(text: string, limit: Limit, options?: NoticeOptions): string

/**
 * Keeps the end of `text`, where errors and summaries live; the notice goes at the start.
 *
 * @example
 * stringTruncateTail(testLog, 8000)
 * // '[... 42,381 chars truncated at the start ...]\n...last 7,950 chars...'
 */
export declare function stringTruncateTail(text: string, limit: Limit, options?: NoticeOptions): string

/**
 * Keeps both ends of `text`; the notice goes between them.
 *
 * @example
 * stringTruncateHeadTail(output, 16000, { headRatio: 0.3 })
 * // '...first ~4,800 chars...\n[... 12,345 chars truncated in the middle ...]\n...last ~11,150 chars...'
 */
export declare function stringTruncateHeadTail(text: string, limit: Limit, options?: HeadTailOptions): string

/**
 * Clamps `text` and reports what happened, with the offsets needed to fetch what was dropped.
 *
 * @example
 * const r = truncateText(log, { maxBytes: 51200, maxLines: 2000, strategy: 'tail' })
 * if (r.truncated) console.log(`dropped ${r.omittedLines} lines; full text kept in chars 0..${r.tailStart}`)
 */
export declare function truncateText(text: string, options: TruncateTextOptions): TruncateTextResult

/**
 * Counts chars, bytes and lines in one pass.
 *
 * @example
 * measureText('héllo\n😀') // { chars: 8, bytes: 11, lines: 2 }
 */
export declare function measureText(text: string): TextMeasure

// ---------------------------------------------------------------------------------------
// Tool results
// ---------------------------------------------------------------------------------------

/**
 * Limits and strategy for tool payloads. Defaults: `{ maxBytes: 51200, maxLines: 2000 }`, head
 * (errors: `{ maxBytes: 4096, maxLines: 40 }`). Each budget not given keeps its default, so
 * `{ maxLines: 10 }` still caps bytes; `Infinity` lifts a budget.
 */
export interface PayloadLimits extends Limits {
  /** Default `'head'`. With `'tail'` the last blocks are kept. */
  strategy?: Strategy
  /** With `'headTail'`: share of the budget given to the start, from 0 to 1. Default 0.5. */
  headRatio?: number
  notice?: Notice
}

/** The blocks toolclamp reads: text, and MCP embedded resources with `text`. Others pass through untouched. */
export interface TextBlock {
  type: 'text'
  text: string
  [key: string]: unknown
}

export interface EmbeddedTextResourceBlock {
  type: 'resource'
  resource: { uri: string; text: string; mimeType?: string; [key: string]: unknown }
  [key: string]: unknown
}

/**
 * Clamps a tool result at the tool boundary: a string, an array of content blocks, or an object
 * with a `content` array (pi-agent-core's `AgentToolResult`, MCP's `CallToolResult`).
 *
 * All text (`text` blocks and embedded `resource.text`) shares ONE budget, in order, as if
 * concatenated; the block where the cut falls carries the notice, text blocks past the cut keep
 * their place with empty text, and non-text blocks (images, audio, links, blobs) are kept as the
 * very same objects and never read. Every other key of the result (`details`,
 * `structuredContent`, `isError`, `_meta`, ...) is kept as the very same value. The input is
 * never mutated; when nothing needs cutting the very same value is returned. Anything else
 * (numbers, malformed blocks) is returned as is.
 *
 * @example
 * const result = await tool.execute(id, params)
 * return hardTruncateToolPayload(result) // 50 KiB and 2000 lines across all text blocks
 */
export declare function hardTruncateToolPayload<T>(result: T, limits?: PayloadLimits): T

/**
 * Clamps a thrown value's message so stacks and megabyte messages stay out of model context.
 * Returns the same error when its message fits (default `{ maxBytes: 4096, maxLines: 40 }`);
 * otherwise an `Error` with the same `name`, the clamped `message`, the original as `cause`, and a
 * `stack` of just `name: message`. A non-Error throw becomes an `Error` with a clamped message.
 *
 * @example
 * try { await run() } catch (e) { throw hardTruncateToolError(e) }
 */
export declare function hardTruncateToolError(error: unknown, limits?: PayloadLimits): Error

/**
 * Wraps a streaming `onUpdate` callback so each partial result is clamped.
 * `undefined` in, `undefined` out.
 *
 * @example
 * execute: (id, params, signal, onUpdate) => inner.execute(id, params, signal, wrapOnUpdate(onUpdate))
 */
export declare function wrapOnUpdate<F extends (partial: any, ...rest: any[]) => unknown>(
  onUpdate: F,
  limits?: PayloadLimits,
): F
export declare function wrapOnUpdate(onUpdate: undefined, limits?: PayloadLimits): undefined
export declare function wrapOnUpdate<F extends (partial: any, ...rest: any[]) => unknown>(
  onUpdate: F | undefined,
  limits?: PayloadLimits,
): F | undefined

/** A tool with pi-agent-core's `execute(toolCallId, params, signal?, onUpdate?)` shape. */
export interface ExecutableTool {
  execute: (toolCallId: string, params: any, signal?: AbortSignal, onUpdate?: (partial: any) => void) => unknown
}

/**
 * Wraps a pi-agent-core `AgentTool` (or any tool of that shape): every other property, descriptor
 * and the prototype are kept, the original runs as `this` (so private fields work), and `execute` clamps the final result, every `onUpdate` partial and any thrown error (re-thrown
 * with a clamped message; error limits are `{ maxBytes: 4096, maxLines: 40 }`, never above the
 * payload limits). `limits` may be a function of the tool, for per-tool budgets.
 *
 * @example
 * const tools = myTools.map((t) => wrapToolWithHardOutputTruncate(t))
 */
export declare function wrapToolWithHardOutputTruncate<T extends ExecutableTool>(
  tool: T,
  limits?: PayloadLimits | ((tool: T) => PayloadLimits | undefined),
): T

/**
 * Wraps any `execute(...args)` that returns a result, a promise of one, or an async iterable of
 * results (the Vercel AI SDK's `async *execute` preliminary results): each result is clamped, and
 * a thrown error is re-thrown with a clamped message.
 *
 * @example
 * tool({ description, inputSchema, execute: wrapExecute(async ({ path }) => readFile(path, 'utf8')) })
 */
export declare function wrapExecute<F extends (...args: any[]) => any>(execute: F, limits?: PayloadLimits): F
