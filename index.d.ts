/**
 * toolclamp: clamp LLM tool output to hard budgets before it enters a model's context.
 *
 * This is the root entry, `toolclamp`: what a tool author calls. The rest has entries of its own,
 * each with its types beside it: `toolclamp/conversation` (conversation.d.ts: tool results across
 * a conversation, provider errors), `toolclamp/ai-sdk` (ai-sdk.d.ts), `toolclamp/pi` (pi.d.ts:
 * pi-agent-core and pi-coding-agent sessions) and `toolclamp/presets` (presets.d.ts: the presets
 * table `TOOL_OUTPUT_PRESETS`, whose presets the functions here take as limits; per-tool profiles,
 * the tool-output envelope, Python results). Types they share (limits, notices,
 * strategies, spill options) are declared here once and imported there.
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
 *   option and the value for invalid limits or options, and for unknown option keys (with
 *   "did you mean" for a key that differs from a known one only in case, `_` or `-`);
 * - reads each option once, so a getter cannot change a call's budgets, and calls made from
 *   inside a call (a notice function, `onSpill`, a getter) never change its result;
 * - keeps a caller's notice exactly as written (lone surrogates included);
 * - clamps a text that already carries a toolclamp notice (a wrapper's result cut again by a
 *   guard) as the original it stands for: one notice, counting what was dropped from the
 *   original in the units the earlier notice named, and naming the spill file it named (see
 *   {@link NoticeFacts} and "Clamps on clamps" in docs/strings.md); captures, Buffer streams,
 *   `truncateToolOutput` and a chars-only `stringTruncate*` of a text over 262,144 chars count
 *   the text they are given instead;
 * - returns results that never keep a much longer input alive in memory.
 */

/** A budget dimension. */
/** A limit a text can exceed. `'tokens'` only where exact tokens bound a cut (see {@link ExactLimits}). */
export type LimitName = 'chars' | 'bytes' | 'lines' | 'tokens'

/**
 * Budgets. Each is a non-negative integer, or `Infinity` for none; `undefined` counts as not
 * given. The string functions, `truncateText` and a stream limit of `formatExecOutput` need at
 * least one and leave the others unlimited; tool payloads, `clampJson` and `readPartial` have
 * defaults of their own (documented on {@link PayloadLimits}, {@link ClampJsonOptions},
 * {@link ReadPartialOptions}).
 */
export interface Limits {
  /** Maximum UTF-16 code units (`s.length`). @default Infinity */
  maxChars?: number
  /** Maximum UTF-8 bytes (`Buffer.byteLength(s, 'utf8')`). @default Infinity */
  maxBytes?: number
  /** Maximum lines. @default Infinity */
  maxLines?: number
  /**
   * Maximum estimated tokens (see `estimateTokens` in `toolclamp/conversation`): one token per 3
   * UTF-8 bytes, rounded up, so this is `maxBytes: 3 * maxTokens`, and `truncatedBy` names
   * `'bytes'` when it binds. It never raises a byte budget: beside `maxBytes` (given or a
   * default) the smaller applies. (Every clamp also counts exact tokens: see {@link ExactLimits}.)
   * @default Infinity
   */
  maxTokens?: number
  /**
   * How tokens are counted. Only `'estimate'` here; an exact tokenizer throws a `TypeError`
   * rather than be ignored. @default 'estimate'
   */
  tokenizer?: 'estimate'
}

/** A number is `maxChars`; an object sets any of the budgets. */
export type Limit = number | Limits

/**
 * How `maxTokens` counts tokens (docs/tokens.md):
 * - `'estimate'`: one token per 3 UTF-8 bytes, rounded up; no tokenizer is loaded;
 * - `'o200k_base'` or `'cl100k_base'` (in any case): OpenAI's encodings, counted exactly (special-token
 *   spellings such as `<|endoftext|>` count as the plain text they are). The vocabulary is
 *   loaded from the package on first use, once per process;
 * - an OpenAI model's name, for its encoding: `gpt-4o`, `gpt-4.1`, `gpt-4.5`, `gpt-5…`, `o1`,
 *   `o3`, `o4-mini`, `gpt-oss…` count with `o200k_base`; `gpt-4`, `gpt-4-turbo`, `gpt-3.5-turbo`
 *   with `cl100k_base` (a provider prefix such as `openai/` is dropped); any other name throws a
 *   `RangeError`;
 * - a function `(text) => number`: your own counter, synchronous, returning a non-negative
 *   integer. It is called with `''` first, then with whole candidate results: about twice
 *   log2 of the text's length times for a string, fewer for tool results, JSON and pages.
 *
 * A tokenizer other than the estimate needs `maxTokens` beside it (it counts them): without
 * one, a `TypeError`.
 */
export type Tokenizer = 'estimate' | 'o200k_base' | 'cl100k_base' | (string & {}) | ((text: string) => number)

/**
 * {@link Limits} whose `maxTokens` may be counted exactly: with a `tokenizer` other than the
 * estimate, the result keeps the longest part whose tokens, notice included, are at most
 * `maxTokens` as that tokenizer counts the text the model receives (where one more char would
 * go over), together with the other limits. A cut reads only about the text it keeps: a head
 * cut of 100 MB under 10,000 tokens tokenizes about 10,000 tokens of it.
 */
export interface ExactLimits extends Omit<Limits, 'tokenizer'> {
  /** How `maxTokens` is counted (see {@link Tokenizer}). @default 'estimate' */
  tokenizer?: Tokenizer
}

/** A number is `maxChars`; an object sets any of the budgets, tokens counted exactly if asked. */
export type ExactLimit = number | ExactLimits

/** The tokens of a result, when `maxTokens` was counted by a tokenizer. */
export interface OutputTokens {
  /** `'o200k_base'`, `'cl100k_base'`, or `'function'` for your own counter. */
  tokenizer: string
  /** Tokens of the result, notice included: exact. */
  output: number
}

/** A result's counts in exact tokens: given when `maxTokens` was counted by a tokenizer. */
export interface TokenCounts extends OutputTokens {
  /**
   * Tokens of the input: exact when `totalExact`; otherwise a lower bound (the cut read only the
   * input's start), or `undefined` when your counter was never called with the whole input.
   */
  total?: number
  totalExact: boolean
}

/**
 * What a notice may say; counts are of the input, in its units. When the input carries a
 * toolclamp notice of an earlier clamp, the counts are of the original it stands for in the
 * units that notice named, and of the text around its gap (lower bounds) in the others; the
 * offsets and line numbers are then the original's as far as that text tells.
 */
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
  /** First line (1-based) of the input that the dropped text touches: the `offset` for `readPartial`. */
  fromLine: number
  /** Last line (1-based) of the input that the dropped text touches. */
  toLine: number
}

/**
 * The notice put where text was dropped, on a line of its own; after a head cut inside a line,
 * a notice that starts with `[...` (the library's, and templates like them) goes at the end of
 * that line after a space, so a later clamp can tell where the kept head ends.
 *
 * - omitted: the default, e.g. `[... 370 lines, 48,113 bytes truncated at the end ...]`;
 * - a template string with placeholders `{omitted}` (`370 lines, 48,113 bytes`), `{where}`,
 *   `{omittedChars}`, `{omittedBytes}`, `{omittedLines}`, `{totalChars}`, `{totalBytes}`,
 *   `{totalLines}` (counts with thousands separators), `{headEnd}`, `{tailStart}`,
 *   `{fromLine}`, `{toLine}` (plain offsets and line numbers), `{totalTokens}` and `{omittedTokens}`
 *   (the input's tokens, and those less the kept text's: exact where a string is cut within
 *   `maxTokens` by an exact `tokenizer`, which then counts the whole input once; elsewhere
 *   estimated, a token per 3 bytes); with `spill`, `{spillPath}`; `{{` and `}}` are literal
 *   braces; an unknown placeholder throws a `TypeError`;
 * - a function of the facts returning the notice. It may be called several times per clamp (at
 *   most 64), with the facts of cuts other than the one returned; the notice in the result is
 *   always the one it returned for the result's own cut.
 *
 * When the limits leave no room for it, `[... truncated ...]`, then `[...]`, then nothing is used.
 * The kept text is the longest whose own notice fits (for `head` and `tail`; for `headTail`,
 * neither end can grow by one more character), for the default notice, every template, and any
 * function whose notice never gets shorter as the counts it reads grow.
 */
export type Notice = string | ((facts: NoticeFacts) => string)

/**
 * Where kept text may end. `'line'`: the kept head ends at the end of a line and the kept tail
 * starts at the start of one, unless that keeps under 4/5 of the chars the exact cut keeps of
 * that part (then that part is cut exactly, so one 10 MB line still shows something); the kept
 * text is then the longest among such cuts. `'none'`: at any safe cut.
 */
export type Snap = 'line' | 'none'

/** Options of `stringTruncateHead` and `stringTruncateTail`. */
export interface NoticeOptions {
  /**
   * The notice put where text was dropped (see {@link Notice}).
   * @default '[... {omitted} truncated at the end ...]' (`stringTruncateHead`; `stringTruncateTail`: `'[... {omitted} truncated at the start ...]'`)
   */
  notice?: Notice
  /** Where kept text may end (see {@link Snap}): the exact cut by default, as for `truncateText`. @default 'none' */
  snap?: Snap
}

/** Options of `stringTruncateHeadTail`. */
export interface HeadTailOptions extends NoticeOptions {
  /** Share of the budget given to the start, from 0 to 1. @default 0.5 */
  headRatio?: number
  /** The notice put between the kept ends (see {@link Notice}). @default '[... {omitted} truncated in the middle ...]' */
  notice?: Notice
}

/**
 * Where text is kept. `'auto'` keeps the head and the tail (`headRatio` to the head) when the
 * last 2,048 chars read as a failure or a summary, the head otherwise; results report the
 * strategy used. Read there, in any case: an error, a stack trace, an exit status, a test
 * summary (`error`, `fail`, `traceback`, `panicked`, `exception`, `fatal`, `exit code`,
 * `exited with`, `passed`, `total`, `summary`, ...), what the C library, shells and coreutils
 * print on failure (`No such file`, `Permission denied`, `command not found`, `Segmentation
 * fault`, `cannot access`, ...), a signal (`Killed`, `Terminated`), a warning (`WARNING:`,
 * `npm warn`) or an errno name (`ECONNRESET`, `ENOENT`, ...); not as part of a name
 * (`gpg-error.h`, `console.warn`). The full list is under "strategy: 'auto'" in docs/strings.md.
 */
export type Strategy = 'head' | 'tail' | 'headTail' | 'auto'

/**
 * The `normalize` option (of `truncateText`, `formatExecOutput`, `createOutputCapture`,
 * `runCommand`): terminal output as a terminal would finally show it, for a model to read: escape sequences
 * dropped (the `vte` parser), `\r` redraws applied (a progress bar redrawn a thousand times is
 * its last state; erase-in-line and moves along the line are applied too), backspaces applied,
 * other control chars shown in caret notation, tabs kept. Plain text comes back as the very
 * same string.
 *
 * The screen is 65,536 columns wide. Blanks left by a cursor move past the end of a line are
 * paid from an allowance: one screen line to start with, and 8 more for each char, control or
 * escape sequence read, so a flood of far moves (`\x1b[65535Cx`) cannot blow the text up: the
 * result is at most 12 UTF-8 bytes per input byte plus one screen line.
 *
 * Budgets then count the normalised text, what the model reads. Text whose normalised form
 * would be longer than a JS string can be (V8: 536,870,888 chars) is clamped without being built.
 * The normalised text alone: `truncateText(text, { maxChars: Infinity, normalize: true }).text`.
 *
 * @example
 * truncateText('\x1b[32mok\x1b[0m\n 10%\r 55%\r100%\n', { maxChars: Infinity, normalize: true }).text // 'ok\n100%\n'
 */
export type Normalize =
  | boolean
  | {
      /** Drop escape sequences (colours, cursor moves, titles, hyperlinks). @default true */
      ansi?: boolean
      /** Apply `\r`: the line is redrawn, as on a terminal; `\r\n` stays a line break. @default true */
      carriageReturns?: boolean
      /** Apply backspaces. @default true */
      backspaces?: boolean
      /** Show other control chars visibly (`^G`); `false` drops them. @default true */
      controls?: boolean
    }

/**
 * Options of {@link createOutputCapture}: the options of `truncateText`, except that the
 * strategy keeps the end by default and cannot be `'auto'`. Memory is bounded by `maxBytes` and
 * `maxChars` (estimated `maxTokens` sets `maxBytes`), or by `maxTokens` counted with an encoding
 * (no result within N of its tokens holds more than N of its longest token, 128 bytes): with
 * none of them, `maxBytes` is 51,200. A tokenizer function bounds nothing: `maxTokens` counted
 * by one needs `maxBytes` or `maxChars` beside it (a `TypeError` otherwise).
 */
export interface OutputCaptureOptions extends ExactLimits {
  /** Maximum UTF-8 bytes kept, notice included. @default 51200 (when no limit is given, or only maxLines) */
  maxBytes?: number
  /** Maximum lines kept, notice included. @default 2000 (when no limit is given) */
  maxLines?: number
  /** Where output is kept: the end, where a command's errors and summary are. @default 'tail' */
  strategy?: 'tail' | 'head' | 'headTail'
  /** With `'headTail'`: share of the budget given to the start, from 0 to 1. @default 0.5 */
  headRatio?: number
  /** The notice put where output was dropped (see {@link Notice}). @default '[... {omitted} truncated at the start ...]' */
  notice?: Notice
  /** Where kept text may end. @default 'none' */
  snap?: Snap
  /**
   * Normalise terminal output as it arrives (see {@link Normalize}): colours dropped,
   * progress bars redrawn with `\r` reduced to their last state. @default false
   */
  normalize?: Normalize
  /**
   * Stream the full output to a new file in `spill.dir` as it arrives (mode 0600, created
   * exclusively under a temporary name); it gets its final name only when the result is cut,
   * and is removed otherwise. The file holds the text as counted (decoded, normalised), so the
   * notice's line numbers are its lines. No default: no file is written unless this is given.
   * @default undefined (files are named `output-…` unless `spill.name` says otherwise)
   */
  spill?: SpillOptions & {
    /** Called with the report when the file was kept (or could not be). No default: nothing is called. */
    onSpill?: (report: SpillReport) => void
  }
  /**
   * Keep bytes as they came: invalid UTF-8 is not replaced with U+FFFD, and results' `text` is a
   * `Buffer`. Chars and lines are still counted as `buf.toString()` reads the bytes (each maximal
   * invalid subpart one char), so `maxChars` holds for the decoded output; bytes are the raw
   * bytes. For byte-faithful output of input that may not be text; cannot be combined with
   * `normalize` or an exact `tokenizer` (tokens count text). @default false
   */
  raw?: boolean
}

/** What {@link createOutputCapture} returns. */
export interface OutputCapture<Text extends string | Uint8Array = string> {
  /**
   * Adds output. A chunk may end anywhere: inside a UTF-8 sequence, a surrogate pair, a `\r\n`
   * or an escape sequence. Strings and bytes may be mixed, but a char split between a string
   * and a Buffer is two invalid halves (U+FFFD each). Throws after `end()`.
   */
  write(chunk: string | Uint8Array): void
  /**
   * The result for what was written so far, as if it ended now (a char or escape sequence still
   * cut off at the end is left out), in O(limits) time: for `onUpdate` while a command runs.
   * Throws when called from the capture's own notice function (the plan would call it again).
   */
  snapshot(): OutputCaptureResult<Text>
  /**
   * Ends the output and returns the result: exactly what `truncateText` gives for everything
   * written, with the same options (for bytes, their text as `buf.toString()` decodes it; lone
   * surrogates read as U+FFFD). Idempotent: later calls return the same object. Frees the
   * capture's memory (the result is kept).
   *
   * Under `maxTokens` counted exactly, output longer than `(maxTokens + 1) × 128` bytes plus
   * 1,024 is not held whole: the result is then `truncateText`'s with `maxBytes` lowered to
   * `(maxTokens + 1) × 128` (a result within the tokens holds fewer bytes anyway, but the
   * notice may name bytes and the cut land a few chars apart), and `tokens.total` is a lower
   * bound.
   */
  end(): OutputCaptureResult<Text>
  /**
   * Strategy `'head'`: once no later output can change the head (the output runs past a limit
   * by a margin: two lines, or 1,024 chars or bytes), the head (without the notice) to show
   * now, e.g. to print before the command ends; `undefined` before that, and for other strategies. After it returned a head, `end()` keeps exactly that
   * head: planned with room for a notice naming totals of up to 16 digits, so it may keep a few
   * bytes less than `truncateText`, or, where that widest notice does not fit the limits, more
   * with a fallback notice (`[... truncated ...]`). Under `maxTokens` counted exactly, always
   * `undefined`: the head's tokens are known only with its notice, at the end.
   */
  settledHead(): Text | undefined
  /**
   * Gives the capture up: its memory is freed and its spill file, if any, closed and removed at
   * once (nothing is kept or reported). Any later `write`, `snapshot`, `end` or `settledHead`
   * throws `toolclamp: the capture was disposed`; `totals` stays readable. Idempotent, and
   * nothing to do after `end()`, which frees the memory itself. A capture dropped without
   * either is cleaned up once collected, which Node-API does only when the event loop turns:
   * a loop that makes many captures without yielding should end or dispose each.
   */
  dispose(): void
  /**
   * Totals of the output so far (decoded and normalised), exact. With `normalize`, a line counts
   * once it ends (until then it may still be redrawn); `snapshot()` shows it as it stands. With
   * `raw`, bytes are the raw bytes and chars those of `buf.toString()` (each maximal invalid
   * subpart one U+FFFD).
   */
  readonly totals: TextMeasure
}

/**
 * A capture's result: as {@link TruncateTextResult}, with `text` a `Buffer` for a `raw` capture
 * (typed as `Uint8Array`, so that these types need no `@types/node`).
 */
export interface OutputCaptureResult<Text extends string | Uint8Array = string> extends Omit<TruncateTextResult, 'text' | 'strategy'> {
  text: Text
  strategy: 'tail' | 'head' | 'headTail'
}

/**
 * Captures output as it arrives (a child process's stdout, a stream) in memory bounded by the
 * limits, whatever its total: a gigabyte passes through in O(limits) memory and O(1) work per
 * byte, with exact totals, and `end()` returns what `truncateText` would return for the whole.
 *
 * @example
 * const capture = createOutputCapture({ maxBytes: 100, maxLines: 3 })
 * for (let i = 1; i <= 1000; i++) capture.write(`line ${i}\n`)
 * capture.end().text // '[... 998 lines, 8,874 bytes truncated at the start ...]\nline 999\nline 1000\n'
 */
export declare function createOutputCapture(options: OutputCaptureOptions & { raw: true }): OutputCapture<Uint8Array>
export declare function createOutputCapture(options?: OutputCaptureOptions & { raw?: false }): OutputCapture<string>
export declare function createOutputCapture(options: OutputCaptureOptions): OutputCapture<string | Uint8Array>

/** Options of `truncateText`: at least one budget (the others are unlimited), and how to cut. */
export interface TruncateTextOptions extends ExactLimits {
  /**
   * Normalise terminal output first (see {@link Normalize}); budgets then count what
   * the model reads, and a spill file holds that text. Text whose normalised form might not
   * fit in a string is clamped as it is normalised (as a capture does), so only the result is
   * built; with neither `maxChars` nor `maxBytes` set, that result is then at most as many
   * bytes as a string can hold chars. @default false
   */
  normalize?: Normalize
  /** Where text is kept: by default the start (the end is dropped). @default 'head' */
  strategy?: Strategy
  /** Where kept text may end: by default the exact cut. @default 'none' */
  snap?: Snap
  /** With `'headTail'`: share of the budget given to the start, from 0 to 1. @default 0.5 */
  headRatio?: number
  /**
   * The notice put where text was dropped (see {@link Notice}). The default says where: `at the end`
   * (`'head'`), `at the start` (`'tail'`), `in the middle` (`'headTail'`); with `spill`,
   * `'[... {omitted} truncated at the {where}; full output saved to {spillPath} (dropped: lines {fromLine}–{toLine}) ...]'`.
   * @default '[... {omitted} truncated at the end ...]'
   */
  notice?: Notice
  /**
   * Save the full input to a new file in `spill.dir` when (and only when) it is cut; the default
   * notice then names the file and the dropped lines:
   * `[... 370 lines truncated at the end; full output saved to /runs/42/text-…toolclamp-spill.txt (dropped: lines 131–500) ...]`.
   * A template gets the path as `{spillPath}`, a function as `facts.spillPath`. No default: no
   * file is written unless this is given; files are named `text-…` unless `spill.name` says otherwise.
   */
  spill?: SpillOptions
}

/**
 * Where spill files go. `dir` is created with mode 0700 if missing; each file is new (mode 0600,
 * written under a temporary name, then linked into place, never replacing a file), named
 * `<name>-<UTC time>-<16 hex>.toolclamp-spill.txt` with `name` reduced to `[A-Za-z0-9._-]`
 * (at most 64 chars), so it always lands directly inside `dir` whatever the tool name holds.
 */
export interface SpillOptions {
  /** The directory the files go to (created if missing). Required: no default. */
  dir: string
  /**
   * Names the file. By default, per function: `truncateText` `text`; `formatExecOutput` `exec`
   * (then `-stdout` / `-stderr`); `truncateToolOutput` the tool name it is given;
   * `wrapToolWithHardOutputTruncate` `tool.name`; `clampToolResultsInMessages` and its adapters,
   * `guardSessionManager` and `repairSessionFile` the result's tool name (or the name of the call it
   * answers); otherwise (`hardTruncateToolPayload`, `hardTruncateToolError`, `wrapToolWithHardOutputTruncate`, a
   * result without a tool name) `tool-result`.
   * @default the tool's name, else 'tool-result' ('text' for truncateText, 'exec' for formatExecOutput)
   */
  name?: string
}

/** What happened to a spill: the file written, or why none could be (the clamp still happened). */
export type SpillReport = { path: string; error?: undefined } | { path: null; error: Error }

/** The clamped text and what happened to it. Field names follow pi-mono's `TruncationResult`. */
export interface TruncateTextResult {
  /** The result: the input itself when nothing was cut. */
  text: string
  truncated: boolean
  /**
   * The limits the input exceeds (empty when not truncated), in the order chars, bytes, lines,
   * then `'tokens'` when exact tokens bound the cut.
   */
  truncatedBy: LimitName[]
  /** The strategy used: `'auto'` resolved to `'head'` or `'headTail'`. */
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
  /** Counts in exact tokens, when `maxTokens` was counted by a tokenizer (see {@link ExactLimits}). */
  tokens?: TokenCounts
  /**
   * With `spill`, when the input was cut: the file holding the full input, or the error that
   * prevented it (the notice then names no file).
   */
  spill?: SpillReport
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
export declare function stringTruncateHead(text: string, limit: ExactLimit, options?: NoticeOptions): string

/**
 * Keeps the end of `text`, where errors and summaries live; the notice goes at the start.
 *
 * @example
 * stringTruncateTail(testLog, 8000)
 * // '[... 42,381 chars truncated at the start ...]\n...last 7,950 chars...'
 */
export declare function stringTruncateTail(text: string, limit: ExactLimit, options?: NoticeOptions): string

/**
 * Keeps both ends of `text`; the notice goes between them.
 *
 * @example
 * stringTruncateHeadTail(output, 16000, { headRatio: 0.3 })
 * // '...first ~4,800 chars...\n[... 12,345 chars truncated in the middle ...]\n...last ~11,150 chars...'
 */
export declare function stringTruncateHeadTail(text: string, limit: ExactLimit, options?: HeadTailOptions): string

/**
 * Clamps `text` and reports what happened, with the offsets needed to fetch what was dropped.
 * The counts and offsets of the result are those of `text` as given, even when its notice
 * counts the original behind an earlier clamp's notice in `text`.
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
// JSON values
// ---------------------------------------------------------------------------------------

/**
 * Options of `clampJson` and `clampJsonText`. Budgets apply to `JSON.stringify(value, null, space)`;
 * defaults `{ maxBytes: 51200, maxLines: 2000 }` (chars unlimited), as for tool payloads. Each
 * budget not given keeps its default; `Infinity` lifts one.
 */
export interface ClampJsonOptions extends ExactLimits {
  /** Maximum UTF-8 bytes of the rendering. @default 51200 */
  maxBytes?: number
  /** Maximum lines of the rendering (more than one only with `space`). @default 2000 */
  maxLines?: number
  /**
   * Which array items and which part of long strings are kept: `'head'` the first, `'tail'` the
   * last, `'headTail'` both ends (`headRatio` of the room to the start). `'auto'` is not taken
   * here (a `TypeError`).
   * @default 'head'
   */
  strategy?: 'head' | 'tail' | 'headTail'
  /** With `'headTail'`: share of the room given to the start, from 0 to 1. @default 0.5 */
  headRatio?: number
  /**
   * `'inline'`: the result says what was cut in band: a string item
   * `"[... 1,234 more items]"` where array items were dropped, a key `"…"` with
   * `"[... 12 more keys]"` where object keys were dropped, `[... 5,241,068 bytes truncated]`
   * inside a cut string; where one does not fit, the short marker `[...]` stands in, so no cut
   * is silent (the smallest form of a value cut is `"[...]"`, `["[...]"]` or `{"…":"[...]"}`).
   * `'none'`: schema-safe, only shorter arrays and shorter strings (a prefix; a suffix with
   * `'tail'`), nothing added; every key is kept while the smallest forms of all values fit.
   * Both report everything in `elided`.
   * @default 'inline'
   */
  markers?: 'inline' | 'none'
  /**
   * `JSON.stringify`'s `space`, as the consumer will render the value: an integer 0–10 or a string
   * of at most 10 chars. By default compact (no indentation, one line).
   * @default 0
   */
  space?: number | string
}

/** One thing `clampJson` shortened, at a JSONPath-like `path` (`$`, `$.items`, `$["a key"][3]`). */
export type JsonElision =
  /** An array keeps `kept` of its `total` items (an item shrunk to fit counts as kept). */
  | { path: string; kept: number; total: number }
  /** An object keeps `keptKeys` of its `totalKeys` keys. */
  | { path: string; keptKeys: number; totalKeys: number }
  /**
   * A string keeps `keptBytes` of its `totalBytes` (UTF-8 of the string's value); or, with path
   * `'$'` and `keptBytes: 0`, nothing of the whole value fits (`totalBytes` of its rendering).
   */
  | { path: string; keptBytes: number; totalBytes: number }

export interface ClampJsonResult<T = unknown> {
  /**
   * The very same value when it fits; else a new JSON value of the same shape whose rendering
   * fits every limit (typed as the input: with inline markers an array may also hold a marker
   * string and an object a `"…"` key). When not even the value's smallest form fits: the string
   * `'[...]'` with inline markers, or `undefined` (nothing) when that does not fit either (under
   * 7 bytes or chars, or no line) and always with `markers: 'none'`.
   */
  value: T
  truncated: boolean
  /** UTF-8 bytes of the value as rendered (with `space`). */
  totalBytes: number
  /** UTF-8 bytes of the result as rendered (with `space`). */
  outputBytes: number
  /**
   * What was shortened, inner values before the container holding them. Empty when nothing was.
   * A value nested too deep for `JSON.stringify` lists each container that became
   * `"[Too deep]"` (`kept: 0` or `keptKeys: 0`), and is `truncated`.
   */
  elided: JsonElision[]
  /**
   * With an exact `tokenizer`: the tokens of the result as rendered (with `space`), which the
   * clamp kept within `maxTokens` by cutting at the largest byte budget whose rendering is.
   */
  tokens?: OutputTokens
}

/**
 * Fits any value `JSON.stringify` accepts into the budget as valid JSON of the same shape: every
 * key of an object that is kept keeps its value's type, arrays keep whole items in order, long
 * strings are cut between whole characters and escapes.
 *
 * Fair: an object's room is shared by water-filling, so a member smaller than an equal share is
 * kept whole and one huge field cannot starve its siblings (a 5 MB `stdout` beside a 200-byte
 * `stderr` keeps all of `stderr`). Arrays keep their first items whole (and last, with
 * `'headTail'`); when no item fits whole, the first is shrunk.
 *
 * Never mutates its input and never throws on a value: a cycle becomes `"[Circular]"`, a BigInt
 * its digits, a throwing getter or `toJSON` `"[Unreadable: message]"`; `toJSON`, `undefined`,
 * functions and symbols are handled as `JSON.stringify` handles them. (Such a value is read a
 * second time to find what threw.) Never over the limits, whatever they are: below the value's
 * smallest form the result is `'[...]'`, or `undefined` when even that does not fit.
 *
 * @example
 * const { value, elided } = clampJson({ command, stdout, stderr, exitCode }, { maxBytes: 16_384 })
 * // elided: [{ path: '$.stdout', keptBytes: 16_200, totalBytes: 5_242_880 }]
 */
export declare function clampJson<T>(value: T, options?: ClampJsonOptions): ClampJsonResult<T>

export interface ClampJsonTextResult {
  /**
   * The text itself when within the limits; else the clamped value rendered with `space` (`"[...]"`
   * or `''` when not even its smallest form fits, as for `clampJson`).
   */
  text: string
  /**
   * False when the text is not JSON (`JSON.parse` would throw; `''` included): it was then clamped
   * as text (`truncateText`, same limits and strategy).
   */
  json: boolean
  /** Whether anything of the value was cut (a text only re-rendered with `space` was not). */
  truncated: boolean
  /** UTF-8 bytes of the text given. */
  totalBytes: number
  /** UTF-8 bytes of `text`. */
  outputBytes: number
  elided: JsonElision[]
}

/**
 * `clampJson` for a JSON text: returned as it is when within the limits; otherwise clamped on
 * its text and rendered with `space`. The text is never read into JS numbers: every number,
 * string and key kept is copied exactly as written (`12345678901234567890`, `1e400`, `-0`,
 * escapes), and duplicate keys are kept. A text that is not JSON is clamped as text
 * (`json: false`). Never throws on a string.
 *
 * @example
 * clampJsonText(await response.text(), { maxBytes: 8192, space: 2 }).text
 */
export declare function clampJsonText(text: string, options?: ClampJsonOptions): ClampJsonTextResult

// ---------------------------------------------------------------------------------------
// Tool results
// ---------------------------------------------------------------------------------------

/**
 * Limits and strategy for tool payloads. Defaults: `{ maxBytes: 51200, maxLines: 2000 }`,
 * `'auto'` (errors: `{ maxBytes: 4096, maxLines: 40 }`, see {@link ToolErrorLimits}). Each budget
 * not given keeps its default, so `{ maxLines: 10 }` still caps bytes; `Infinity` lifts a budget.
 * A preset of `TOOL_OUTPUT_PRESETS` (`toolclamp/presets`) is such limits, taken as it is.
 */
export interface PayloadLimits extends ExactLimits {
  /** Maximum UTF-8 bytes of the text a model reads (50 KiB). @default 51200 */
  maxBytes?: number
  /** Maximum lines of the text a model reads. @default 2000 */
  maxLines?: number
  /**
   * Where text is kept: `'auto'` keeps the end too when it reads as a failure. A result that says
   * it failed (`isError: true`, an AI SDK `error-text` or `error-json` output, a LangChain
   * ToolMessage with `status: 'error'`, a pi tool result message with `isError` in a session) and
   * thrown errors keep both ends, 70% of the room to the end (`'headTail'` with `headRatio` 0.3, or
   * the `headRatio` given), unless a strategy is given. With `'tail'` the last blocks are kept.
   * JSON data takes `'auto'` as `'head'`.
   * @default 'auto'
   */
  strategy?: Strategy
  /** Text for a model is cut on whole lines (see {@link Snap}). @default 'line' */
  snap?: Snap
  /**
   * `'content_and_artifact'` (LangChain's name): the result is a `[content, artifact]` tuple; only
   * the content is clamped, the artifact (which never reaches the model) is left as it is.
   * @default 'content'
   */
  responseFormat?: 'content' | 'content_and_artifact'
  /** With `'headTail'` and `'auto'`: share of the budget given to the start, from 0 to 1. @default 0.5 */
  headRatio?: number
  /**
   * The notice put where text was dropped (see {@link Notice}); the default is `truncateText`'s:
   * `at the start` with `'tail'`, `in the middle` with `'headTail'`, and with `spill` it names the file.
   * @default '[... {omitted} truncated at the end ...]'
   */
  notice?: Notice
  /**
   * Save the full text (all text blocks, concatenated) to a spill file when it is cut, named in the
   * notice as with `truncateText`; `onSpill` receives the report. The wrappers spill final results
   * only, never streamed `onUpdate` partials; `wrapToolWithHardOutputTruncate` names files after `tool.name`.
   * JSON data and `structuredContent` are not spilled (their compact JSON is one line). No default:
   * no file is written unless this is given.
   */
  spill?: SpillOptions & {
    /** Called with the report of each spill (the file written, or why none could be). No default: nothing is called. */
    onSpill?: (report: SpillReport) => void
  }
}

/**
 * Limits for a thrown error's message (`hardTruncateToolError`): as {@link PayloadLimits}, with
 * smaller default budgets, `{ maxBytes: 4096, maxLines: 40 }`, and both ends kept, most of the
 * room to the end, where a message says its cause.
 */
export interface ToolErrorLimits extends PayloadLimits {
  /** Maximum UTF-8 bytes of the message (4 KiB). @default 4096 */
  maxBytes?: number
  /** Maximum lines of the message. @default 40 */
  maxLines?: number
  /** Where the message is kept: its start and its end. @default 'headTail' */
  strategy?: Strategy
  /** Share of the budget given to the start of the message, from 0 to 1. @default 0.3 */
  headRatio?: number
}

/** The blocks toolclamp reads: text, and MCP embedded resources with `text`. Others pass through untouched. */
export interface TextBlock {
  type: 'text' | 'input_text' | 'output_text'
  text: string
  [key: string]: unknown
}

export interface EmbeddedTextResourceBlock {
  type: 'resource'
  resource: { uri: string; text: string; mimeType?: string; [key: string]: unknown }
  [key: string]: unknown
}

/**
 * A media block, kept as the very same object and never read: a known media type (`image`,
 * `audio`, `file`, `resource_link`, `media`, `image-data`, `image-url`, `file-data`, `file-url`,
 * `file-id`, `image-file-id`, `input_image`, `input_file`, `input_audio`, `image_url`, or a
 * `resource` without text) holding its media in one of these keys. A record with such a `type`
 * and none of the keys (`{ type: 'file', path, size }`) is JSON data.
 */
export interface MediaBlock {
  type: string
  data?: unknown
  url?: unknown
  uri?: unknown
  image?: unknown
  image_url?: unknown
  file?: unknown
  file_id?: unknown
  fileId?: unknown
  file_data?: unknown
  file_url?: unknown
  input_audio?: unknown
  resource?: unknown
  source?: unknown
  blob?: unknown
  [key: string]: unknown
}

/**
 * MCP's `CallToolResult` or pi-agent-core's `AgentToolResult`: `content` blocks, and with MCP
 * `structuredContent`, which shares the budget with `content`, as does every other enumerable
 * key (`isError`, `_meta`, ...: a framework may send the whole object as JSON); small ones
 * stay the very same values. pi's `details`, never sent to a model, is bounded to 8 KiB of
 * compact JSON on its own.
 */
export interface ToolResultWithContent {
  content?: unknown[]
  structuredContent?: unknown
  isError?: boolean
  _meta?: Record<string, unknown>
  details?: unknown
  [key: string]: unknown
}

/** The Vercel AI SDK's `ToolResultOutput` (what `toModelOutput` returns), as toolclamp clamps it. */
export type ToolResultOutput =
  /** `value` clamped as text. */
  | { type: 'text' | 'error-text'; value: string; [key: string]: unknown }
  /** `value` clamped as JSON (the model reads `JSON.stringify(value)`). */
  | { type: 'json' | 'error-json'; value: unknown; [key: string]: unknown }
  /** `value`'s parts as content blocks: text parts share the budget, media parts are kept. */
  | { type: 'content'; value: unknown[]; [key: string]: unknown }

/**
 * An OpenAI Responses API `function_call_output` or an OpenAI Agents SDK `function_call_result`
 * item: `output` (a string, `{ type: 'text', text }`, or `input_text` parts beside
 * `input_image` / `input_file` parts) is clamped, the rest kept.
 */
export interface FunctionCallOutputItem {
  type: 'function_call_output' | 'function_call_result'
  output: unknown
  [key: string]: unknown
}

/**
 * What a tool may return, as `hardTruncateToolPayload` tells the shapes apart (any other value
 * is JSON data, clamped with `clampJson`'s inline markers, or a scalar returned as it is).
 */
export type ToolPayload =
  | string
  | Array<TextBlock | EmbeddedTextResourceBlock | MediaBlock | unknown>
  | ToolResultWithContent
  | ToolResultOutput
  | FunctionCallOutputItem

/**
 * Clamps whatever a tool returns so that what a model reads of it is within the budget: the
 * text of a string or of text blocks as it is, and JSON data as its compact `JSON.stringify`.
 *
 * - A string is cut as text.
 * - Content blocks (an array holding a text block or a media block): all text (`text`,
 *   `input_text`, `output_text` blocks and MCP embedded `resource.text`) shares ONE budget, in
 *   order, as if concatenated; the block where the cut falls carries the notice, text blocks
 *   past the cut keep their place with empty text, and media blocks are kept as the very same
 *   objects and never read. Data among them (a bare string, a record) shares the budget with
 *   that text: each gets what it needs when the other leaves room, else half.
 * - `{ content, structuredContent? }` (MCP `CallToolResult`, pi `AgentToolResult`): `content`
 *   as blocks. `structuredContent` shares the budget with `content` (a client may send both):
 *   it gets what it needs when `content` leaves room, else half, and is clamped schema-safe
 *   (`clampJson` with `markers: 'none'`), so an `outputSchema` still validates (and left out when
 *   not even `{}` fits its share); a text block
 *   appended to `content` (one line, at most 512 bytes, inside the budget) says what was
 *   shortened, and a text block holding structuredContent's compact JSON holds the clamped
 *   value's JSON (never cut as text; emptied when the budget cannot hold two copies). Every
 *   other enumerable key (`stdout`, `isError`, `_meta`) is sent as JSON by the AI SDK and the
 *   OpenAI Agents SDK, so it shares the budget: clamped as JSON with inline markers, getting
 *   what the kept content leaves. pi's `details` never reaches a model: outside the budget,
 *   bounded to 8 KiB of compact JSON (schema-safe); smaller details are the very same value.
 * - A `ToolResultOutput` (AI SDK) or a `function_call_output` / `function_call_result` item
 *   (OpenAI) keeps its shape with `value` / `output` clamped. A `'json'` output nothing of whose
 *   value fits (under 7 bytes) becomes `{ type: 'text', value: '' }` (`'error-text'` for
 *   `'error-json'`): a model reads even `""` as 2 bytes.
 * - A LangChain `ToolMessage` returned as it is keeps its class with `content` clamped; a
 *   LangGraph `Command` has its ToolMessages clamped, sharing the budget in order: in
 *   `update.messages` (one message or a list), in a `['messages', ...]` tuple of a tuple-list
 *   update, or in an update that is a list of messages.
 * - With `responseFormat: 'content_and_artifact'`, a `[content, artifact]` tuple has only its
 *   content clamped; the artifact never reaches the model and is the very same value.
 * - A `readPartial` page (a string or the only text block, starting with its banner line) is cut
 *   on whole lines under a banner rewritten to continue right after what is kept.
 * - Any other object or array (records, arrays of strings, numbers, booleans or null), a BigInt: `clampJson` with inline
 *   markers (typed as the input, though an array may then end with a marker string and an
 *   object hold a `"…"` key; the string `'[...]'`, or `''` under 7 bytes, when not even its
 *   smallest form fits). Numbers, booleans, `undefined`, functions: returned as they are.
 *
 * The input is never mutated; when nothing needs cutting the very same value is returned. It
 * never throws on a value: throwing getters and revoked proxies are read once and what can be
 * read of them is clamped.
 *
 * @example
 * const result = await tool.execute(id, params)
 * return hardTruncateToolPayload(result) // 50 KiB and 2000 lines across all text blocks
 */
export declare function hardTruncateToolPayload<C, A>(
  result: [C, A],
  limits: PayloadLimits & { responseFormat: 'content_and_artifact' },
): [C, A]
export declare function hardTruncateToolPayload<T>(result: T, limits?: PayloadLimits): T

/**
 * Clamps a thrown value's message so stacks and megabyte messages stay out of model context.
 * Returns the same error when its message fits (default `{ maxBytes: 4096, maxLines: 40 }`);
 * otherwise a copy: a native `Error` with the original's prototype (its class) and every own
 * property (`status`, `code`, ...), with the clamped `message` (its start and, with 70% of the
 * room, its end, where the cause is said) and a `stack` of just `name: message`. Its `cause` is
 * the original's own, else the original. The original is never written to. A non-Error throw
 * becomes an `Error` with a clamped message and the value as `cause`.
 *
 * @example
 * try { await run() } catch (e) { throw hardTruncateToolError(e) }
 */
export declare function hardTruncateToolError<E extends Error>(error: E, limits?: ToolErrorLimits): E
export declare function hardTruncateToolError(error: unknown, limits?: ToolErrorLimits): Error

/**
 * Wraps a streaming `onUpdate` callback so each partial result is clamped.
 * `undefined` in, `undefined` out.
 *
 * @example
 * execute: (id, params, signal, onUpdate) => inner.execute(id, params, signal, wrapOnUpdate(onUpdate))
 */
export declare function wrapOnUpdate<F extends (partial: any, ...rest: any[]) => unknown>(onUpdate: F, limits?: PayloadLimits): F
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
 * payload limits, and keep the message's end as `hardTruncateToolError` does unless `limits` give a
 * strategy). `limits` may be a function of the tool, for per-tool budgets, or a preset
 * (`TOOL_OUTPUT_PRESETS` from `toolclamp/presets`). A LangChain tool (which runs `func`, not
 * `execute`) is refused: wrap the function given to `tool()` instead.
 *
 * @example
 * const tools = myTools.map((t) => wrapToolWithHardOutputTruncate(t))
 */
export declare function wrapToolWithHardOutputTruncate<T extends ExecutableTool>(
  tool: T,
  limits?: PayloadLimits | ((tool: T) => PayloadLimits | undefined),
): T
/**
 * Wraps an `execute(...args)` function alone, its arguments passed through as they are: one that
 * returns a result, a promise of one, or an async iterable of results (the Vercel AI SDK's
 * `async *execute` preliminary results). Each result is clamped as `hardTruncateToolPayload`
 * clamps it, and a thrown error is re-thrown with a clamped message. For a LangChain tool, wrap the
 * function given to `tool()`, with the same `responseFormat`.
 *
 * @example
 * tool({ description, inputSchema, execute: wrapToolWithHardOutputTruncate(async ({ path }) => readFile(path, 'utf8')) })
 * @example
 * tool(wrapToolWithHardOutputTruncate(search, { responseFormat: 'content_and_artifact' }), { name, schema, responseFormat: 'content_and_artifact' })
 */
export declare function wrapToolWithHardOutputTruncate<F extends (...args: any[]) => any>(
  execute: F,
  limits?: PayloadLimits | ((execute: F) => PayloadLimits | undefined),
): F

// ---------------------------------------------------------------------------------------
// Shell commands
// ---------------------------------------------------------------------------------------

/**
 * A command's result: ours, what `spawnSync` returns, `{ error, stdout, stderr }` from an
 * `execFile` callback, the error a promisified `execFile` rejects with, or an execa result or
 * error: each passes as is. The exit code is the first of `exitCode`, `status`, a numeric `code`
 * (of the result, then of its `error`). When the command did not run or was stopped (ENOENT,
 * EACCES, maxBuffer, a timeout, a kill, a cancel), one `error: ...` line after the streams says
 * so. Other keys are ignored; a near miss of a read key such as `exit_code` or `stdOut` throws.
 */
export interface ExecResult {
  /**
   * A string, or the raw bytes (`Buffer`, `Uint8Array`) as UTF-8: bytes are clamped without being
   * decoded whole, and invalid UTF-8 reads as `buf.toString('utf8')` reads it (U+FFFD).
   * `undefined` and `null` are empty.
   */
  stdout?: string | Uint8Array | null
  stderr?: string | Uint8Array | null
  /** An integer; `null` or omitted when unknown (a process killed by a signal has none). */
  exitCode?: number | null
  /** `spawnSync`'s exit code, used when `exitCode` is not given. */
  status?: number | null
  /** The signal that ended the process, e.g. `'SIGTERM'`. */
  signal?: string | null
  /** Wall time in milliseconds, shown rounded with thousands separators. */
  durationMs?: number | null
  /** A spawn or run error (`spawnSync`'s, an `execFile` callback's): shown as one line. */
  error?: (Error & { code?: string | number; signal?: string | null; killed?: boolean }) | null
  /** A numeric code is an exit code (an `execFile` error used as the result); a string one an error code. */
  code?: string | number | null
  killed?: boolean
  /** execa: the command timed out, was canceled, was terminated by a signal, or hit maxBuffer. */
  timedOut?: boolean
  isCanceled?: boolean
  isTerminated?: boolean
  isMaxBuffer?: boolean
}

/** The facts a notice function gets for one stream. */
export interface ExecNoticeFacts extends NoticeFacts {
  stream: 'stdout' | 'stderr'
}

export interface FormatExecOutputOptions {
  /**
   * Budget for stdout: a number (= maxChars) or `{ maxChars?, maxBytes?, maxLines?, maxTokens? }`
   * (at least one; an object replaces the default, and the budgets it leaves out are unlimited),
   * tokens counted exactly with a `tokenizer` (see {@link ExactLimits}; a Buffer is then decoded,
   * and its offsets are the decoded string's).
   * @default 8000
   */
  stdout?: ExactLimit
  /** Budget for stderr, as for stdout. @default 8000 */
  stderr?: ExactLimit
  /** Where each stream is kept: its end, where errors and summaries are. @default 'tail' */
  strategy?: Strategy
  /** With `'headTail'`: share of each budget given to the start, from 0 to 1. @default 0.5 */
  headRatio?: number
  /** Where kept text may end: each stream is cut on whole lines (see {@link Snap}). @default 'line' */
  snap?: Snap
  /**
   * Normalise each stream as terminal output first (see {@link Normalize}): colours
   * and progress-bar redraws cost nothing. @default false
   */
  normalize?: Normalize
  /**
   * The notice in a cut stream. A template may use `{stream}` besides the usual placeholders (for a
   * Buffer stream `{headEnd}` and `{tailStart}` are byte offsets); a function also gets `stream`.
   * With `spill`, the default names the file (below).
   * @default '[... {omitted} truncated from {stream} ...]'
   */
  notice?: string | ((facts: ExecNoticeFacts) => string)
  /**
   * Save each stream that is cut, whole (a Buffer as its bytes), to its own file (`<name>-stdout-…`,
   * default name `exec`); the stream's notice names it:
   * `[... 12,000 chars truncated from stdout; full stdout saved to … (dropped: lines 1–412) ...]`.
   * Each stream's info reports it in `spill`. No default: no file is written unless this is given.
   */
  spill?: SpillOptions
}

/**
 * What happened to one stream: `truncateText`'s result, with `text` the clamped stream alone.
 * For a Buffer or Uint8Array, counts are of the decoded text, and `headEnd`/`tailStart` are byte
 * offsets into its UTF-8 (so into the buffer itself when it is valid UTF-8:
 * `buf.subarray(headEnd, tailStart)` is what was dropped).
 */
export type ExecStreamInfo = TruncateTextResult

export interface FormatExecOutputResult {
  /** The text for the model; see `formatExecOutput`. */
  text: string
  stdout: ExecStreamInfo
  stderr: ExecStreamInfo
}

/**
 * Formats a shell command's output for a model: each stream clamped on its own (the end of each
 * is kept, by default 8,000 chars), both streams always shown, then the exit status:
 *
 * ```text
 * <stdout>
 * [... 12,000 chars truncated from stdout ...]
 * ...the last 8,000 chars of stdout...
 * </stdout>
 * <stderr>(empty)</stderr>
 * exit code: 1, duration: 1,234 ms
 * ```
 *
 * A missing final newline is added before a closing tag; an empty stream is
 * `<stderr>(empty)</stderr>` (so is a `Uint8Array` whose buffer was detached: it holds no
 * bytes); the status line names only what the result gives (exit code, signal, duration),
 * and is left out when it gives none. Each budget applies to its stream's text, notice
 * included; the tags and status line come on top. A stream whose clamped text would be longer
 * than a JS string can hold (`Infinity` limits on more than ~512 Mi chars) is a `RangeError`.
 *
 * @example
 * const child = spawnSync('npm', ['test'], { maxBuffer: Infinity }) // stdout and stderr are Buffers
 * const { text, stdout } = formatExecOutput(child, { stdout: { maxBytes: 16 * 1024, maxLines: 400 } })
 * if (stdout.truncated) console.log(`dropped ${stdout.omittedLines} lines of stdout`)
 *
 * @example
 * formatExecOutput(await execa('make', { reject: false })) // an execa result passes as is
 */
export declare function formatExecOutput(result: ExecResult, options?: FormatExecOutputOptions): FormatExecOutputResult

/**
 * Options of {@link runCommand}: where and how the command runs, when it is stopped, and the
 * options of `formatExecOutput` for its text (each stream clamped on its own, its end kept).
 */
export interface RunCommandOptions extends Omit<FormatExecOutputOptions, 'strategy' | 'stdout' | 'stderr'> {
  /**
   * Budget for stdout, as `formatExecOutput` takes it, tokens counted exactly with a `tokenizer`
   * (see {@link ExactLimits}): the stream is captured as {@link createOutputCapture} captures it,
   * so `maxTokens` counted by a function needs `maxBytes` or `maxChars` beside it. @default 8000
   */
  stdout?: ExactLimit
  /** Budget for stderr, as for stdout. @default 8000 */
  stderr?: Limit
  /** The working directory. A missing one is an `error: working directory not found (…)` line. @default process.cwd() */
  cwd?: string | URL
  /** The command's whole environment, as `spawn` takes it (not merged with `process.env`). @default process.env */
  env?: Record<string, string | undefined>
  /**
   * Written to the command's stdin, which is then closed. Without it, stdin is closed from the
   * start (`'ignore'`), so a command that reads it sees its end at once instead of waiting.
   * No default: stdin gets nothing.
   */
  input?: string | Uint8Array
  /**
   * Run the command line in a shell: `true` for `/bin/sh` (`cmd.exe` on Windows), or a shell's
   * path. `command` and `args` are then joined with spaces, unquoted: never put untrusted text
   * in them. @default false
   */
  shell?: boolean | string
  /**
   * Stop the command after this many milliseconds: its whole process group gets `killSignal`
   * (then SIGKILL, see `forceKillAfterMs`), `timedOut` is true and the text says
   * `error: timed out after 2,000 ms; killed the process group with SIGTERM`. A positive number;
   * above 2³¹−1 ms (about 24.8 days) it never fires. It bounds the whole run: after the grace
   * (`forceKillAfterMs`), output still held open by a process the kill did not reach (one that
   * left the group: `setsid`, a daemon) is no longer waited for; that process is left running,
   * `outputLeftOpen` is true and a `note: stopped reading the output: …` line follows the error
   * line. When the command had exited and its group is empty, the run settles at the timeout
   * (`error: timed out after 500 ms; the command had already exited`). @default Infinity (no timeout)
   */
  timeoutMs?: number
  /**
   * Stops the command when aborted, as a timeout does (`aborted` is true, the text says
   * `error: aborted; killed the process group with SIGTERM`, naming the abort reason when it is
   * not the default one). Already aborted: nothing is spawned. No default: only the timeout stops it.
   */
  signal?: AbortSignal
  /** The signal a timeout or abort sends to the process group: a name or its number. @default 'SIGTERM' */
  killSignal?: string | number
  /**
   * After `killSignal`, SIGKILL goes to whatever is left of the process group this many
   * milliseconds later (`Infinity`: never). POSIX only; on Windows the tree is killed with
   * `taskkill /T /F` at once. It is also the grace after which a stopped run settles whatever
   * still holds its output open (see `timeoutMs`); `Infinity` waits for the output to end. @default 2000
   */
  forceKillAfterMs?: number
  /**
   * Whether the run waits for stdout and stderr to end (Node's `'close'`) after the command
   * exits. A background process (`server &`) that inherited them keeps them open, and the run
   * with them. `false`: the run settles when the command exits (`'exit'`), once what it wrote
   * before exiting is read; a process still holding the output is left running,
   * `outputLeftOpen` is true and the text says
   * `note: stopped reading the output when the command exited: a background process still holds it open and was left running`.
   * Output written after that is lost, and a background process that writes then gets EPIPE
   * (or SIGPIPE): give it an output of its own (`server > server.log 2>&1 &`). @default true
   */
  waitForStreams?: boolean
  /**
   * Called with the output so far while it arrives, at most once per `updateIntervalMs`, never
   * after the promise settles (there is no final call: the result is the final state). Not
   * awaited; when it throws or rejects, a process warning is emitted and the command goes on.
   * No default: no snapshots are made.
   */
  onUpdate?: (update: RunCommandUpdate) => void | Promise<void>
  /** The least time between two `onUpdate` calls, in milliseconds. @default 250 */
  updateIntervalMs?: number
  /**
   * Where each stream is kept: its end, where errors and summaries are (`'auto'` is refused: a
   * stream's length is not known while it arrives). @default 'tail'
   */
  strategy?: 'tail' | 'head' | 'headTail'
}

/** The output so far, for {@link RunCommandOptions.onUpdate}. */
export interface RunCommandUpdate {
  /** `formatExecOutput`'s text for the output so far: both streams, then `duration: … ms` (no exit status yet). */
  text: string
  /** The clamped stdout so far. */
  stdout: string
  /** The clamped stderr so far. */
  stderr: string
  /** Milliseconds since the command was started. */
  durationMs: number
  /** What happened to each stream so far (totals exact), as `createOutputCapture`'s `snapshot()`. */
  streams: { stdout: OutputCaptureResult; stderr: OutputCaptureResult }
}

/** What {@link runCommand} resolves to. */
export interface RunCommandResult {
  /** The text for the model, laid out as `formatExecOutput` lays it out (see there). */
  text: string
  /** The clamped stdout alone (not the full output), notice included. */
  stdout: string
  /** The clamped stderr alone. */
  stderr: string
  /** The exit code; `null` when the process was ended by a signal or never ran. */
  exitCode: number | null
  /** The signal that ended the process (`'SIGTERM'` after a timeout or abort), or `null`. */
  signal: string | null
  /** The command was stopped by `timeoutMs`. */
  timedOut: boolean
  /** The command was stopped by `signal`, or not started because it was already aborted. */
  aborted: boolean
  /**
   * The run stopped reading output that a process still held open (`waitForStreams: false`, or
   * after a timeout or abort and its grace); the text has a `note: stopped reading the output…`
   * line. That process was left running.
   */
  outputLeftOpen: boolean
  /** Wall time from start to end, in whole milliseconds. */
  durationMs: number
  /** The spill file of each stream that was cut and saved (see `spill`), else `null`. */
  spill: { stdout: string | null; stderr: string | null }
  /**
   * What happened to each stream: `truncateText`'s result for its whole output (exact totals,
   * what was dropped; `spill` reports its file), as `createOutputCapture`'s `end()` returns it.
   */
  streams: { stdout: OutputCaptureResult; stderr: OutputCaptureResult }
}

/**
 * Runs a command and resolves to the text a model sees for it: each stream captured as it
 * arrives in memory bounded by its budget ({@link createOutputCapture}; a gigabyte of output
 * needs a few MiB), then laid out exactly as {@link formatExecOutput} lays out the same output
 * collected whole. By default each stream keeps its last 8,000 chars, on whole lines.
 *
 * No shell unless `shell` is given; stdin is closed unless `input` is given. On POSIX the
 * command leads a process group of its own, so a timeout or an abort stops everything it
 * started (background jobs included): `killSignal` to the group, then SIGKILL to what is
 * left after `forceKillAfterMs`.
 *
 * Never rejects for what happens to the command: a spawn error is a result with `exitCode`
 * `null` and one line saying so (`error: command not found (spawn make ENOENT)`,
 * `error: permission denied (…)`, `error: too many open files (spawn make EMFILE)`), as are a
 * timeout and an abort. Nothing of a failed spawn is held once the promise settles, and a
 * timeout bounds the run even when a process outside the group holds the output open. Invalid options throw at the
 * call, before anything is spawned (an unknown key with "did you mean"); a `notice` function
 * that throws rejects with its error.
 *
 * Unlike `formatExecOutput`, a stream with neither a char nor a byte budget
 * (`stdout: { maxLines: 400 }`) is also held to 51,200 bytes, so that memory stays bounded.
 *
 * @example
 * const { text, exitCode, timedOut } = await runCommand('npm', ['test'], { timeoutMs: 120_000, normalize: true })
 * // text: '<stdout>\n[... 12,000 chars truncated from stdout ...]\n…\n</stdout>\n<stderr>(empty)</stderr>\nexit code: 1, duration: 8,412 ms'
 */
export declare function runCommand(command: string, options?: RunCommandOptions): Promise<RunCommandResult>
export declare function runCommand(command: string, args?: readonly string[], options?: RunCommandOptions): Promise<RunCommandResult>

// ---------------------------------------------------------------------------------------
// PARTIAL views
// ---------------------------------------------------------------------------------------

export interface ReadPartialOptions {
  /**
   * UTF-8 bytes per read, the banner line of a partial page included; at least 4. A partial
   * page needs room for its banner (about 130 bytes): less throws a `RangeError` with code
   * `TOOLCLAMP_PAGE_TOO_SMALL`.
   * @default 51200
   */
  maxBytes?: number
  /** Lines per read, the banner line of a partial page included; at least 1 (2 for a partial page). @default 2000 */
  maxLines?: number
  /**
   * Tokens per page, at least 2, the banner line included. Estimated: `maxBytes: 3 * maxTokens`
   * (see `estimateTokens` in `toolclamp/conversation`), never above `maxBytes` (51,200 unless
   * given). With an exact `tokenizer`: the largest page within both, as the tokenizer counts
   * it; a limit too small for any page at `offset` throws a `RangeError` with code
   * `TOOLCLAMP_PAGE_TOO_SMALL`. Not given: no token budget.
   * @default Infinity
   */
  maxTokens?: number
  /** How `maxTokens` is counted (see {@link Tokenizer}). @default 'estimate' */
  tokenizer?: Tokenizer
  /** First line of the page, 1-based. @default 1 */
  offset?: number
  /**
   * Where in line `offset` the page starts: UTF-16 units for a string, bytes for a Buffer.
   * Only needed to continue a line longer than a page (`nextColumn`).
   * @default 0
   */
  column?: number
  /**
   * `'partial'` returns a page; `'error'` throws a {@link ToolOutputTooLargeError} (code
   * `TOOLCLAMP_TOOL_OUTPUT_TOO_LARGE`) instead when
   * the text from `offset` does not fit one page (for policy files and guardrails, where a silently
   * partial read is a missing rule).
   * @default 'partial'
   */
  onOverflow?: 'partial' | 'error'
}

export interface PartialView {
  /**
   * The page, after a banner line when the view is partial (together within `maxBytes` and
   * `maxLines`); the input itself when it fits whole.
   */
  text: string
  /** The page alone. */
  page: string
  /** Anything of the text is not in this view. */
  partial: boolean
  /** Which parts are not in this view; `null` when none. */
  dropped: 'head' | 'tail' | 'headAndTail' | null
  offset: number
  column: number
  /** Pass back as `offset` (and `nextColumn` as `column`) for the next page; `null` after the last page. */
  nextOffset: number | null
  nextColumn: number | null
  /** Lines the page touches, 1-based, inclusive. */
  firstLine: number
  lastLine: number
  shownLines: number
  shownBytes: number
  shownChars: number
  /** UTF-8 byte offsets of the page in the whole text. */
  startByte: number
  endByte: number
  totalLines: number
  totalBytes: number
  totalChars: number
  /** With an exact `tokenizer`: the tokens of `text`, banner included. */
  tokens?: OutputTokens
}

/**
 * One page of a large text, with the PARTIAL signal in front where the model reads first:
 *
 * ```text
 * [PARTIAL view: lines 1–1,999 of 5,123 shown (bytes 0–51,072 of 310,442). Continue with offset=2000.]
 * ...the page...
 * ```
 *
 * Pages end on line boundaries; a single line longer than a page is paged too (the banner then says
 * `Continue with offset=7, column=51200.`). Reading every page in turn reproduces the text exactly,
 * and no page splits a character. The budgets hold for `text`, banner line included. A wrapper
 * (`wrapToolWithHardOutputTruncate`, `hardTruncateToolPayload`) with a smaller budget cuts such a page on whole lines
 * under a rewritten banner that continues right after what it keeps.
 *
 * @example
 * let view = readPartial(text)
 * while (view.nextOffset !== null) view = readPartial(text, { offset: view.nextOffset, column: view.nextColumn })
 */
export declare function readPartial(text: string | Uint8Array, options?: ReadPartialOptions): PartialView

/**
 * What `readPartial` with `onOverflow: 'error'` throws. Tell it by its code, as every toolclamp
 * error: `error.code === 'TOOLCLAMP_TOOL_OUTPUT_TOO_LARGE'` (a type only; no class to import).
 */
export interface ToolOutputTooLargeError extends Error {
  name: 'ToolOutputTooLargeError'
  code: 'TOOLCLAMP_TOOL_OUTPUT_TOO_LARGE'
  totalBytes: number
  totalLines: number
  maxBytes: number
  maxLines: number
  offset: number
}

// ---------------------------------------------------------------------------------------
// Spill files
// ---------------------------------------------------------------------------------------

/**
 * Removes spill files (and temporary files of interrupted writes) older than `maxAgeMs` from `dir`,
 * recognised by their names; other files, links and directories are never touched. Returns the
 * removed paths; a missing `dir` removes nothing.
 *
 * @example
 * pruneSpillDir('.agent/artifacts', { maxAgeMs: 7 * 24 * 3600 * 1000 })
 */
export declare function pruneSpillDir(dir: string, options: { maxAgeMs: number }): string[]

// ---------------------------------------------------------------------------------------
// The addon
// ---------------------------------------------------------------------------------------

/**
 * Which build of the addon runs: `'native'`, the Node-API addon of this platform's package
 * (toolclamp-linux-x64-gnu and the like), or `'wasm'`, the same Rust code compiled to
 * WebAssembly (the package toolclamp-wasm32-wasi), which runs wherever Node 20 does and
 * gives the same results, more slowly. The native addon is loaded when there is one; the
 * environment variable `TOOLCLAMP_RUNTIME=native` or `TOOLCLAMP_RUNTIME=wasm` loads only
 * that build, and fails with `TOOLCLAMP_NO_ADDON` when it is not installed.
 *
 * @example
 * if (runtime === 'wasm') console.warn('toolclamp runs as WebAssembly here')
 */
export declare const runtime: 'native' | 'wasm'
