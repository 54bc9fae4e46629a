/**
 * toolclamp/pi: pi-agent-core (a `transformContext` that clamps each request's tool results, and
 * a `streamFn` that retries a request refused as too long), pi-coding-agent session transcripts
 * (clamped before they are persisted, repaired after), and the pi extension that
 * `pi install npm:toolclamp` loads.
 *
 * The units and rules in the header of index.d.ts (the root entry) hold here too.
 */

import type { PayloadLimits } from './index.js'
import type { ClampMessagesOptions, GuardOptions, RecoveryHooks } from './conversation.js'

// The option types of the functions here, declared with the conversation clamp they configure.
export type { GuardOptions, RecoveryHooks } from './conversation.js'

// ---------------------------------------------------------------------------------------
// pi-agent-core
// ---------------------------------------------------------------------------------------

/** Options of `wrapStreamFnWithOverflowRecovery`: those of `clampToolResultsInMessages`, the window optional. */
export interface StreamRecoveryOptions extends Omit<ClampMessagesOptions, 'contextWindowTokens'>, RecoveryHooks {
  /**
   * The model's context window, in tokens. By default the `contextWindow` of the model each call
   * is for; a call for a model without one goes through unclamped and unretried (with one process
   * warning).
   * @default model.contextWindow
   */
  contextWindowTokens?: number
}

/**
 * pi-agent-core: a `transformContext` that clamps the tool results of every request to their
 * shares of the window. Only the request changes: the agent's transcript keeps every result.
 * Never rejects (pi's contract): if the clamp throws, the messages go as they were, with a
 * process warning.
 */
export declare function toolResultsContextGuard(options: GuardOptions): <M>(messages: M[], signal?: AbortSignal) => Promise<M[]>

/**
 * pi-agent-core: wraps a `streamFn` (pi-ai's `streamSimple`) so that a response refused as too
 * long before any content is retried with the tool results cut tighter; the agent never sees the
 * refused attempt. `contextWindowTokens` defaults to the model's `contextWindow`.
 */
export declare function wrapStreamFnWithOverflowRecovery<F extends (...args: any[]) => any>(streamFn: F, options?: StreamRecoveryOptions): F

// ---------------------------------------------------------------------------------------
// Session transcripts (pi-coding-agent's JSONL)
// ---------------------------------------------------------------------------------------

/** Payload limits for persisted tool results; `responseFormat` does not apply. */
export type SessionLimits = Omit<PayloadLimits, 'responseFormat'>

/**
 * A guarded pi-coding-agent `SessionManager`: `appendMessage` clamps a `toolResult` message's
 * content to `limits` (default 51,200 bytes / 2,000 lines) before it is persisted; with `spill`,
 * the original text is saved first and the notice names it. Everything else is forwarded to the
 * manager (a Proxy with methods bound to it, so classes with `#private` fields work); the manager
 * and the messages are never mutated. A message field that cannot be read throws, and nothing is
 * persisted.
 *
 * @example
 * const sessionManager = guardSessionManager(SessionManager.create(cwd), { spill: { dir: '.pi/spill' } })
 */
export declare function guardSessionManager<M extends { appendMessage(message: any): unknown }>(
  sessionManager: M,
  limits?: SessionLimits,
): M

export interface RepairOptions extends Omit<SessionLimits, 'spill'> {
  /**
   * Where the originals of cut results are saved (0600, never overwritten), in files named after
   * each result's tool: a directory beside the session file by default.
   * @default { dir: '<file>.toolclamp-spill' }
   */
  spill?: {
    /** The directory. Required when `spill` is given. */
    dir: string
  }
  /** Keep the original file as `<file>.<UTC time>-<8 hex>.toolclamp-backup` (0600). @default true */
  backup?: boolean
  /**
   * The longest line (in bytes, its ending aside) that is read whole: the file is read and written
   * a chunk at a time, so memory peaks at about five times the longest line read. A longer line is
   * copied as it is, unread, and listed in `skipped` when it names a tool result in its first 64 KiB.
   * An integer from 1 to `buffer.constants.MAX_STRING_LENGTH`.
   * @default 67108864 (64 MiB)
   */
  maxLineBytes?: number
}

export interface RepairReport {
  /** False when no tool result was over the limits: then no file was written. */
  changed: boolean
  path: string
  backupPath: string | null
  /** Each tool result rewritten: its line (1-based), sizes of the line in bytes, and its spill file. */
  results: {
    line: number
    toolCallId: string | null
    toolName: string | null
    bytesBefore: number
    bytesAfter: number
    spillPath: string
  }[]
  /**
   * Tool results over the limits left as they were, and why: content not of text and media blocks,
   * invalid UTF-8, or a line over `maxLineBytes` (not read, so `toolCallId` and `toolName` are null).
   */
  skipped: { line: number; toolCallId: string | null; toolName: string | null; reason: string }[]
}

/**
 * Rewrites a pi JSONL session file so that no tool result exceeds `limits`. Every other line stays
 * byte for byte (a torn last line too); each cut original is saved to a spill file first; the
 * rewrite is atomic (temporary file, fsync, rename, directory fsync) and keeps a backup; a second
 * run changes nothing. The file is read and written a chunk at a time (see `maxLineBytes`).
 * Concurrent writers: the repair takes `<file>.lock`, which names its owner (pid, host, start time);
 * a lock whose owner is dead (on this host: no such process, a zombie, or its pid reused since) is
 * taken over, one that cannot be told dead (alive, on another host, of an older version, a
 * directory) is refused with `code: 'TOOLCLAMP_SESSION_LOCKED'`. It aborts with
 * `'TOOLCLAMP_SESSION_CHANGED'` when the file changed while it ran (pi appends without a lock);
 * `'TOOLCLAMP_SPILL_FAILED'` when an original could not be saved. In all three cases the file is
 * left as it was, but for one race: a write that lands between the last check and the rename is
 * kept in the backup, which the `'TOOLCLAMP_SESSION_CHANGED'` error then names. A repair killed
 * midway leaves the original (or, past its rename, the repaired file); the next repair of the file
 * removes what it left: its spill files, backup and temporary files unless it had replaced the file.
 */
export declare function repairSessionFile(path: string, options?: RepairOptions): RepairReport

// ---------------------------------------------------------------------------------------
// The pi extension (pi-coding-agent packages)
// ---------------------------------------------------------------------------------------

/**
 * Settings of `toolResultsExtension`. Each one left out is read from its environment variable
 * (named beside it), else it is the default. A variable that cannot be read is a process warning
 * (`TOOLCLAMP_INVALID_SETTING`) and its default applies; an option that cannot be is an error.
 */
export interface ExtensionOptions {
  /**
   * Maximum UTF-8 bytes of one tool result's text (`TOOLCLAMP_MAX_BYTES`: `65536`, `64k`, `1MiB`).
   * Above pi's own tools' 50 KiB and their notice, so what they return is not cut twice.
   * @default 65536
   */
  maxBytes?: number
  /** Maximum lines of one tool result's text (`TOOLCLAMP_MAX_LINES`). @default 2500 */
  maxLines?: number
  /**
   * Where the full text of a cut result is saved (0700, files 0600, never overwritten), named in
   * the notice (`TOOLCLAMP_SPILL_DIR`, where `~/` is the home directory).
   * @default '<pi agent dir>/toolclamp-spill' (pi's agent dir: PI_CODING_AGENT_DIR, else ~/.pi/agent)
   */
  spillDir?: string
  /**
   * Spill files older than this many days are removed when pi starts (`TOOLCLAMP_SPILL_DAYS`);
   * `Infinity` keeps them.
   * @default 7
   */
  spillDays?: number
  /** One tool result may use at most this share of the model's context window in a request (`TOOLCLAMP_RESULT_SHARE`). @default 0.3 */
  resultShare?: number
  /** All tool results of a request together, the oldest cut first (`TOOLCLAMP_AGGREGATE_SHARE`). @default 0.5 */
  aggregateShare?: number
  /** The environment variables read, `TOOLCLAMP_DISABLE` and `PI_CODING_AGENT_DIR` included. @default process.env */
  env?: Record<string, string | undefined>
}

/** What an extension made by `toolResultsExtension` does: the settings it read, resolved. */
export interface ExtensionSettings {
  readonly maxBytes: number
  readonly maxLines: number
  /** An absolute path. */
  readonly spillDir: string
  readonly spillDays: number
  readonly resultShare: number
  readonly aggregateShare: number
  /** `TOOLCLAMP_DISABLE` is `1`, `true` or `yes`: the extension registers nothing. */
  readonly disabled: boolean
}

/** The part of pi's `ExtensionAPI` the extension uses: `pi.on(event, handler)`. */
export interface PiEventsApi {
  on(event: string, handler: (event: any, ctx: any) => unknown): void
}

/** A pi `ExtensionFactory`: call it with pi's `ExtensionAPI` (pi does, when it loads the extension). */
export interface ToolResultsExtension {
  (pi: PiEventsApi): void
  readonly settings: ExtensionSettings
}

/**
 * A pi extension that clamps every tool result pi sends to the model (pi's tools, other
 * extensions' tools, MCP adapters), through pi's `tool_result` event: text over `maxBytes` or
 * `maxLines` is cut, the full text saved to a spill file the notice names; a result within them
 * is left as it is (the handler returns nothing). And before each model call (`context`), the
 * tool results of the request are clamped to their shares of the model's `contextWindow`, as
 * `toolResultsContextGuard` does; only the request changes. Spill files older than `spillDays`
 * are removed when a session starts. The package's own extension, `pi-extension.mjs`, is
 * `export default toolResultsExtension()`.
 *
 * @example
 * // my-extension.ts, in a pi extension of your own:
 * export default toolResultsExtension({ maxBytes: 32_768, spillDir: '/var/tmp/pi-spill' })
 */
export declare function toolResultsExtension(options?: ExtensionOptions): ToolResultsExtension
