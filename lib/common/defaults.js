'use strict'

// The hard clamp: what one tool result may put in a model's context. The CLI
// reads these without loading the native binding, so they live apart from the options.

const DEFAULT_MAX_BYTES = 51200
const DEFAULT_MAX_LINES = 2000

// Where a tool result is cut: the head, and the end too when it reads as a failure ('auto',
// decided in the Rust core). A result known to have failed (a thrown error, an isError
// result) keeps both ends, most of the room to the end, where the cause is said.
const DEFAULT_TOOL_STRATEGY = 'auto'
const FAILURE_STRATEGY = 'headTail'
const FAILURE_HEAD_RATIO = 0.3
// Where headTail splits the budget when nothing says otherwise: half to each end.
const DEFAULT_HEAD_RATIO = 0.5

module.exports = { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, DEFAULT_TOOL_STRATEGY, FAILURE_STRATEGY, FAILURE_HEAD_RATIO, DEFAULT_HEAD_RATIO }
