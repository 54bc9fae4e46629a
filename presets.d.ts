/**
 * toolclamp/presets: the presets table ({@link TOOL_OUTPUT_PRESETS}: the budgets of known systems
 * and toolclamp's own, each an ordinary limits object the root functions take as it is), and
 * ready-made formats built on the root functions: the tool-output envelope and its limit, Python
 * run results, and per-tool profiles with line indicators.
 *
 * The units and rules in the header of index.d.ts (the root entry) hold here too.
 */

import type { Notice, Snap, SpillOptions, SpillReport, Strategy } from './index.js'

// ---------------------------------------------------------------------------------------
// Presets
// ---------------------------------------------------------------------------------------

/**
 * A preset: budgets and where to cut, an ordinary limits object. `truncateText`,
 * `hardTruncateToolPayload`, `hardTruncateToolError` and `wrapToolWithHardOutputTruncate` take it
 * as it is; spread it to change one thing (`{ ...TOOL_OUTPUT_PRESETS.piBash, maxLines: 500 }`).
 */
export interface ToolOutputPreset {
  readonly maxChars?: number
  readonly maxBytes?: number
  readonly maxLines?: number
  readonly strategy?: Strategy
  readonly headRatio?: number
}

/**
 * The presets, frozen; docs/presets.md says which system each reproduces:
 * - `toolResult`: toolclamp's default for tool results, 51,200 bytes / 2,000 lines (the strategy
 *   is the tool functions' own, `'auto'`, so a failed result still keeps both ends); passing it
 *   changes nothing.
 * - `toolError`: `hardTruncateToolError`'s default, 4,096 bytes / 40 lines, both ends, 30% / 70%.
 * - `piRead`, `piBash`: pi-coding-agent's `read` (the head) and `bash` (the tail), 51,200 bytes /
 *   2,000 lines. OpenClaw runs pi's `read`.
 * - `openclawExec`: OpenClaw's `exec` tool, the last 200,000 chars.
 * - `inspect`: Inspect's tool-output limit, 16,384 bytes, half to each end
 *   (`formatToolOutputEnvelope`'s default).
 * - `read_file`, `run_command`, `list_directory`, `search_files`, `default` (any other tool):
 *   `truncateToolOutput`'s per-tool profiles, both ends, 30% / 70%.
 *
 * @example
 * hardTruncateToolPayload(result, TOOL_OUTPUT_PRESETS.inspect)
 * wrapToolWithHardOutputTruncate(bash, TOOL_OUTPUT_PRESETS.piBash)
 */
export declare const TOOL_OUTPUT_PRESETS: {
  readonly toolResult: { readonly maxBytes: 51200; readonly maxLines: 2000 }
  readonly toolError: { readonly maxBytes: 4096; readonly maxLines: 40; readonly strategy: 'headTail'; readonly headRatio: 0.3 }
  readonly piRead: { readonly maxBytes: 51200; readonly maxLines: 2000; readonly strategy: 'head' }
  readonly piBash: { readonly maxBytes: 51200; readonly maxLines: 2000; readonly strategy: 'tail' }
  readonly openclawExec: { readonly maxChars: 200000; readonly strategy: 'tail' }
  readonly inspect: { readonly maxBytes: 16384; readonly strategy: 'headTail'; readonly headRatio: 0.5 }
  readonly read_file: { readonly maxChars: 50000; readonly maxLines: 500; readonly strategy: 'headTail'; readonly headRatio: 0.3 }
  readonly run_command: { readonly maxChars: 20000; readonly maxLines: 200; readonly strategy: 'headTail'; readonly headRatio: 0.3 }
  readonly list_directory: { readonly maxChars: 10000; readonly maxLines: 100; readonly strategy: 'headTail'; readonly headRatio: 0.3 }
  readonly search_files: { readonly maxChars: 30000; readonly maxLines: 300; readonly strategy: 'headTail'; readonly headRatio: 0.3 }
  readonly default: { readonly maxChars: 20000; readonly maxLines: 200; readonly strategy: 'headTail'; readonly headRatio: 0.3 }
}

// ---------------------------------------------------------------------------------------
// Tool-output envelope
// ---------------------------------------------------------------------------------------

/** Which level set the tool-output byte limit. */
export type ToolOutputLimitSource = 'arg' | 'config' | 'env' | 'default'

/**
 * A run's config: a number of bytes, or an object whose `maxToolOutput` is one. Other keys are
 * allowed (pass your whole config); a misspelt `maxToolOutput` (`max_tool_output`,
 * `maxtooloutput`) throws a `TypeError`.
 */
export type ToolOutputConfig =
  | number
  | {
      /** The limit in UTF-8 bytes: a non-negative integer or `Infinity`. No default: without it the environment decides, then 16384. */
      maxToolOutput?: number
      [key: string]: unknown
    }

/** Where the environment variable is read from (`process.env` when not given). */
export type EnvironmentVariables = Record<string, string | undefined>

export interface ResolveToolOutputLimitOptions {
  /**
   * The explicit limit in UTF-8 bytes: a non-negative integer or `Infinity`. Wins over everything.
   * No default: without it `config` decides, then the environment, then 16384.
   */
  arg?: number
  /** The run's config; used when `arg` is not given. No default: without it the environment decides, then 16384. */
  config?: ToolOutputConfig
  /** Read for `TOOLCLAMP_MAX_TOOL_OUTPUT` when neither `arg` nor `config` gives a limit. @default process.env */
  env?: EnvironmentVariables
}

/** The limit in force and the level that set it. */
export interface ResolvedToolOutputLimit {
  /** UTF-8 bytes; `Infinity` means no limit. */
  value: number
  source: ToolOutputLimitSource
}

/**
 * Picks the tool-output byte limit: `arg` > `config` > the `TOOLCLAMP_MAX_TOOL_OUTPUT`
 * environment variable (`16384`, `16k` = `16KB` = `16KiB`, `1MiB`) > 16 KiB (16384). `undefined` counts as not
 * given. An invalid `arg` or `config` throws a `TypeError`/`RangeError` naming it; an invalid
 * environment value never throws: it is skipped with a process warning (code
 * `TOOLCLAMP_INVALID_MAX_TOOL_OUTPUT`, once per distinct value) and the default applies.
 *
 * @example
 * const { value, source } = resolveToolOutputLimit({ config: runConfig })
 * console.error(`tool output limit: ${value} bytes (from ${source})`)
 */
export declare function resolveToolOutputLimit(options?: ResolveToolOutputLimitOptions): ResolvedToolOutputLimit

export interface ToolOutputEnvelopeOptions {
  /**
   * The explicit limit in UTF-8 bytes (the `arg` level): a non-negative integer or `Infinity`.
   * No default: without it `config` decides, then `TOOLCLAMP_MAX_TOOL_OUTPUT`, then 16384 (16 KiB).
   */
  limit?: number
  /** The run's config (the `config` level). No default: without it the environment decides, then 16384. */
  config?: ToolOutputConfig
  /** Where `TOOLCLAMP_MAX_TOOL_OUTPUT` is read from. @default process.env */
  env?: EnvironmentVariables
}

export interface ToolOutputEnvelope {
  /** The output itself when it fits; otherwise the sentence, the markers and the truncated payload. */
  text: string
  truncated: boolean
  /** UTF-8 bytes of the output given. */
  originalBytes: number
  /** The byte limit applied to the payload between the markers. */
  limit: number
  /** The level that set `limit`. */
  source: ToolOutputLimitSource
}

/**
 * Inspect's tool-output envelope. Output within the limit (UTF-8 bytes, resolved as
 * `resolveToolOutputLimit` does; default 16 KiB) is returned as the very same string.
 * Longer output keeps its start and end (`truncateText` with `maxBytes: limit` and the
 * `'headTail'` strategy, notice included) and is wrapped as:
 *
 * ```text
 * The output of tool "<name>" was too long (N bytes) and was truncated to its first and last parts (M bytes).
 * <START_TOOL_OUTPUT>
 * <payload>
 * <END_TOOL_OUTPUT>
 * ```
 *
 * The payload between the marker lines is at most `limit` bytes, exactly; the sentence and
 * markers come on top. The name is quoted as JSON; N and M have thousands separators.
 *
 * @example
 * const { text, truncated, originalBytes } = formatToolOutputEnvelope('bash', stdout, { limit: 8 * 1024 })
 * messages.push({ role: 'tool', content: text })
 */
export declare function formatToolOutputEnvelope(toolName: string, output: string, options?: ToolOutputEnvelopeOptions): ToolOutputEnvelope

// ---------------------------------------------------------------------------------------
// Python results
// ---------------------------------------------------------------------------------------

/** What a Python run produced. Other keys (a runtime's own fields) are ignored. */
export interface PythonRunResult {
  /** The text of each print() call, in order. */
  printOutput: readonly string[]
  /** The result value: a string is shown as is; anything else as JSON or `util.inspect` text. */
  output?: unknown
  [key: string]: unknown
}

/** Budgets in UTF-16 chars: non-negative integers or `Infinity`. */
export interface PythonResultOptions {
  /** Budget of the joined prints. @default 8000 */
  maxPrintChars?: number
  /** Budget of the result value's text. @default 8000 */
  maxOutputChars?: number
  /** Budget of the whole text, tags included. @default 16000 */
  maxTotalChars?: number
  /** Share of each budget given to the start, from 0 to 1. @default 0.5 */
  headRatio?: number
  /** Where kept text may end: on whole lines (see {@link Snap}). @default 'line' */
  snap?: Snap
  /** Put the text in `<python_result>` tags (for runs fed back as a user message). @default true */
  tags?: boolean
}

/**
 * The text of a Python run for a model's context, at most `maxTotalChars` chars (tags included)
 * however many prints accumulate, in `<python_result>` tags for runs fed back as a user message:
 *
 * ```text
 * <python_result>
 * Print output:
 * <prints joined with "\n", head+tail clamped to maxPrintChars>
 *
 * Result:
 * <the result value's text, head+tail clamped to maxOutputChars>
 * </python_result>
 * ```
 *
 * With `tags: false`, the same text without the tag lines. A section with nothing reads
 * `Print output: (none)` / `Result: (none)` (no prints, no `output`) or `(empty)` (empty text).
 * The result value gets its budget first; the prints get what is left of `maxTotalChars`, so the
 * headings are never cut unless `maxTotalChars` is smaller than they are. Every cut is
 * `stringTruncateHeadTail`'s, with its notice. With the tags, `maxTotalChars` must be at least 33,
 * or a `RangeError` is thrown.
 *
 * @example
 * messages.push({ role: 'user', content: formatPythonResult({ printOutput, output }) })
 * // '<python_result>\nPrint output:\n...\n\nResult:\n...\n</python_result>', at most 16,000 chars
 * @example
 * formatPythonResult({ printOutput: ['loading', 'rows: 3'], output: [1, 2, 3] }, { tags: false })
 * // 'Print output:\nloading\nrows: 3\n\nResult:\n[1,2,3]'
 */
export declare function formatPythonResult(result: PythonRunResult, options?: PythonResultOptions): string

// ---------------------------------------------------------------------------------------
// Per-tool profiles
// ---------------------------------------------------------------------------------------

/**
 * Character and line limits for one tool's output. A key left out comes from the layer below (see
 * {@link resolveToolProfile}): for a tool with a built-in profile, that profile; otherwise your
 * `default`, then the built-in `default` (20,000 chars / 200 lines).
 */
export interface ToolProfile {
  /**
   * Maximum UTF-16 code units.
   * @default 20000 (the built-in `default`; a built-in tool's own: `read_file` 50000, `run_command` 20000, `list_directory` 10000, `search_files` 30000)
   */
  maxChars?: number
  /**
   * Maximum lines.
   * @default 200 (the built-in `default`; a built-in tool's own: `read_file` 500, `run_command` 200, `list_directory` 100, `search_files` 300)
   */
  maxLines?: number
}

/** A resolved profile: which one applied (`'default'` for an unknown tool) and its limits. */
export interface ResolvedToolProfile {
  name: string
  maxChars: number
  maxLines: number
}

/**
 * The limits for a tool, layered: built-in `default` < your `default` < the built-in profile of
 * the tool < your profile of the tool; each layer overrides only the keys it sets.
 *
 * @example
 * resolveToolProfile('read_file', { read_file: { maxLines: 1000 } })
 * // { name: 'read_file', maxChars: 50000, maxLines: 1000 }
 */
export declare function resolveToolProfile(toolName: string, profiles?: Record<string, ToolProfile>): ResolvedToolProfile

export interface TruncateToolOutputOptions {
  /**
   * Your profiles for this session, added to or overriding the built-in ones (see `resolveToolProfile`).
   * No default: the built-in profiles alone (the snake_case keys of {@link TOOL_OUTPUT_PRESETS}).
   */
  profiles?: Record<string, ToolProfile>
  /** Overrides the profile's character limit for this call. No default: the resolved profile's `maxChars`. */
  maxChars?: number
  /** Overrides the profile's line limit for this call. No default: the resolved profile's `maxLines`. */
  maxLines?: number
  /** Share of each budget given to the start: errors and summaries are at the end. @default 0.3 */
  headRatio?: number
  /**
   * The middle marker (see `Notice`). By default the library's notice
   * (`[... 403 lines truncated in the middle ...]`); with `spill`, the default names the file:
   * `'[... {omitted} truncated at the {where}; full output saved to {spillPath} (dropped: lines {fromLine}–{toLine}) ...]'`.
   * @default '[... {omitted} truncated in the middle ...]'
   */
  notice?: Notice
  /**
   * Save the full output to a spill file when it is cut (the file is named after the tool); the
   * marker names it. No default: no file is written unless this is given.
   */
  spill?: SpillOptions & {
    /** Called with the report of the spill (the file written, or why none could be). No default: nothing is called. */
    onSpill?: (report: SpillReport) => void
  }
}

export interface TruncateToolOutputResult {
  /** The output itself when it fits; otherwise the view with indicators. */
  text: string
  truncated: boolean
  profile: ResolvedToolProfile
  /** Of the original output. */
  totalChars: number
  totalLines: number
  /** Lines of the original shown at the start (a last one cut short by the char limit counts). */
  headLines: number
  /** Lines of the original shown at the end. */
  tailLines: number
  /** Of the original: chars dropped, and lines not shown at all. */
  omittedChars: number
  omittedLines: number
  /** `output.slice(headEnd, tailStart)` is exactly what was dropped. */
  headEnd: number
  tailStart: number
  spill?: SpillReport
}

/**
 * Clamps a tool's output to its profile (characters and lines), keeping the start and the end
 * (30% / 70%) with indicators whose counts are of the ORIGINAL output:
 *
 * ```text
 * [First 29 lines of 500]
 * ...
 * [... 403 lines, 16,050 chars truncated in the middle ...]
 * [Last 68 lines of 500]
 * ...
 * ```
 *
 * The whole view, indicators included, stays within both limits. The character stage and the
 * line stage of the pipeline are planned as one cut of the original, so no stage ever counts
 * another's marker.
 *
 * @example
 * const { text } = truncateToolOutput('run_command', log, { spill: { dir: '.agent/artifacts' } })
 */
export declare function truncateToolOutput(toolName: string, output: string, options?: TruncateToolOutputOptions): TruncateToolOutputResult
