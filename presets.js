'use strict'

// toolclamp/presets: the presets table (budgets of known systems and toolclamp's own, each
// an ordinary limits object the root functions take) and ready-made formats on top of the
// root functions: per-tool profiles with line indicators, the tool-output envelope and its
// limit, Python run results. Each function lives in the module named beside it (the root
// entry, index.js, holds the rest).
const defaults = require('./lib/common/defaults.js')
const toolOutput = require('./lib/presets/tool-output.js')
const envelope = require('./lib/presets/envelope.js')
const python = require('./lib/presets/python.js')

module.exports = {
  // lib/common/defaults.js
  TOOL_OUTPUT_PRESETS: defaults.TOOL_OUTPUT_PRESETS,
  // lib/presets/tool-output.js
  truncateToolOutput: toolOutput.truncateToolOutput,
  resolveToolProfile: toolOutput.resolveToolProfile,
  // lib/presets/envelope.js
  formatToolOutputEnvelope: envelope.formatToolOutputEnvelope,
  resolveToolOutputLimit: envelope.resolveToolOutputLimit,
  // lib/presets/python.js
  formatPythonResult: python.formatPythonResult,
}
