'use strict'

// toolclamp/presets: ready-made formats on top of the root functions: per-tool profiles with
// line indicators, the tool-output envelope and its limit, Python run results.
// Each function lives in the module named beside it (the root entry, index.js, holds the rest).
const toolOutput = require('./lib/presets/tool-output.js')
const envelope = require('./lib/presets/envelope.js')
const python = require('./lib/presets/python.js')

module.exports = {
  // lib/presets/tool-output.js
  truncateToolOutput: toolOutput.truncateToolOutput,
  resolveToolProfile: toolOutput.resolveToolProfile,
  DEFAULT_TOOL_PROFILES: toolOutput.DEFAULT_TOOL_PROFILES,
  // lib/presets/envelope.js
  wrapToolOutputEnvelope: envelope.wrapToolOutputEnvelope,
  resolveToolOutputLimit: envelope.resolveToolOutputLimit,
  // lib/presets/python.js
  buildPythonResultText: python.buildPythonResultText,
  formatPythonResult: python.formatPythonResult,
}
