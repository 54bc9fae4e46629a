'use strict'

// Every default budget and split of the tool-output functions, named once. The CLI reads
// these without loading the native binding, so they live apart from the options.
//
// One model: a preset is an ordinary limits object (budgets, strategy, head ratio) that
// truncateText, hardTruncateToolPayload and the wrappers take as it is. The functions with
// a format of their own (truncateToolOutput's indicators, the envelope, Python results) read
// their defaults from the same table. docs/presets.md says which system each one reproduces.

const KIB = 1024

// The hard clamp: what one tool result may put in a model's context, pi-coding-agent's
// budget (50 KiB, 2,000 lines, whichever comes first).
const DEFAULT_MAX_BYTES = 50 * KIB
const DEFAULT_MAX_LINES = 2000

// Where headTail splits the budget when nothing says otherwise: half to each end.
const DEFAULT_HEAD_RATIO = 0.5
// Where the end matters most (a failure's cause, a run's summary): 30% to the start, 70% to
// the end. Thrown errors, results known to have failed, and the per-tool profiles.
const END_HEAVY_HEAD_RATIO = 0.3

// Where a tool result is cut: the head, and the end too when it reads as a failure ('auto',
// decided in the Rust core). A result known to have failed keeps both ends, as a thrown
// error's message does (the preset toolError).
const DEFAULT_TOOL_STRATEGY = 'auto'

// A thrown error's message: a few lines, both ends, most of the room to the end.
const ERROR_MAX_BYTES = 4 * KIB
const ERROR_MAX_LINES = 40

// Inspect's tool-output limit, its envelope's default (half to each end).
const INSPECT_MAX_BYTES = 16 * KIB
// OpenClaw's exec tool: the last 200,000 chars of a command's output.
const OPENCLAW_EXEC_MAX_CHARS = 200000

// formatExecOutput: each stream's tail when the caller gives no limit for it.
const EXEC_STREAM_MAX_CHARS = 8000

// pi's `details` on a tool result: never sent to a model, so outside the budget, but
// bounded as OpenClaw bounds the details it persists: at most 8 KiB of compact JSON.
const DETAILS_MAX_BYTES = 8 * KIB

// clampToolResultsInMessages and withContextOverflowRecovery: the share of the context window
// one tool result and all of them together may take, the chars an elided result keeps at
// least, the newest results never cut, and the recovery's attempts.
const CONVERSATION_DEFAULTS = Object.freeze({
  resultShare: 0.3,
  aggregateShare: 0.5,
  minKeepChars: 2000,
  protectRecent: 1,
  maxAttempts: 3,
})

// The pi extension (toolResultsExtension; the package's pi-extension.mjs, which
// `pi install npm:toolclamp` loads): what one tool result may put in the model's context.
// pi's own tools stop at 50 KiB and 2,000 lines and then add a notice of their own (a blank
// line and a line naming the rest); these budgets sit above that, so what pi's tools return
// reaches the model as pi made it, with no second notice, and the cut falls on results
// nothing cut before (other extensions' tools, MCP adapters). Spill files are kept a week.
const PI_EXTENSION_DEFAULTS = Object.freeze({ maxBytes: 64 * KIB, maxLines: 2500, spillDays: 7 })

// Python run results (formatPythonResult): the prints, the result value, the whole.
const PYTHON_MAX_PRINT_CHARS = 8000
const PYTHON_MAX_OUTPUT_CHARS = 8000
const PYTHON_MAX_TOTAL_CHARS = 16000

/** A per-tool profile of truncateToolOutput as a preset: both ends, most of the room to the end. */
function profile(maxChars, maxLines) {
  return Object.freeze({ maxChars, maxLines, strategy: 'headTail', headRatio: END_HEAVY_HEAD_RATIO })
}

/**
 * The presets, frozen. `toolResult` and `toolError` are toolclamp's own defaults (passing
 * them changes nothing; `toolResult` sets no strategy, so a failed result still keeps both
 * ends); the snake_case keys are truncateToolOutput's profiles, keyed by tool name, with
 * `default` for every other tool.
 */
const TOOL_OUTPUT_PRESETS = Object.freeze({
  toolResult: Object.freeze({ maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES }),
  toolError: Object.freeze({
    maxBytes: ERROR_MAX_BYTES,
    maxLines: ERROR_MAX_LINES,
    strategy: 'headTail',
    headRatio: END_HEAVY_HEAD_RATIO,
  }),
  piRead: Object.freeze({ maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES, strategy: 'head' }),
  piBash: Object.freeze({ maxBytes: DEFAULT_MAX_BYTES, maxLines: DEFAULT_MAX_LINES, strategy: 'tail' }),
  openclawExec: Object.freeze({ maxChars: OPENCLAW_EXEC_MAX_CHARS, strategy: 'tail' }),
  inspect: Object.freeze({ maxBytes: INSPECT_MAX_BYTES, strategy: 'headTail', headRatio: DEFAULT_HEAD_RATIO }),
  read_file: profile(50000, 500),
  run_command: profile(20000, 200),
  list_directory: profile(10000, 100),
  search_files: profile(30000, 300),
  default: profile(20000, 200),
})

/** The keys of TOOL_OUTPUT_PRESETS that are truncateToolOutput's built-in profiles. */
const TOOL_PROFILE_NAMES = Object.freeze(['read_file', 'run_command', 'list_directory', 'search_files', 'default'])

module.exports = {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  DEFAULT_TOOL_STRATEGY,
  DEFAULT_HEAD_RATIO,
  END_HEAVY_HEAD_RATIO,
  EXEC_STREAM_MAX_CHARS,
  CONVERSATION_DEFAULTS,
  PI_EXTENSION_DEFAULTS,
  DETAILS_MAX_BYTES,
  PYTHON_MAX_PRINT_CHARS,
  PYTHON_MAX_OUTPUT_CHARS,
  PYTHON_MAX_TOTAL_CHARS,
  TOOL_OUTPUT_PRESETS,
  TOOL_PROFILE_NAMES,
}
