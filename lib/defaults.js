'use strict'

// The hard clamp of seed 004: what one tool result may put in a model's context. The CLI
// reads these without loading the native binding, so they live apart from the options.

const DEFAULT_MAX_BYTES = 51200
const DEFAULT_MAX_LINES = 2000

module.exports = { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES }
