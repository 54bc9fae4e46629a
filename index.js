'use strict'

// toolclamp's root entry: what a tool author calls. Integrations and presets have entries of
// their own: toolclamp/conversation, toolclamp/ai-sdk, toolclamp/pi and toolclamp/presets
// (conversation.js, ai-sdk.js, pi.js, presets.js beside this file). Each function lives in
// the module named beside it.
const clamp = require('./lib/clamp.js')
const payload = require('./lib/payload.js')
const exec = require('./lib/exec.js')
const partial = require('./lib/partial.js')
const spill = require('./lib/spill.js')
const json = require('./lib/json.js')
const terminal = require('./lib/terminal.js')
const capture = require('./lib/capture.js')
const run = require('./lib/run.js')

module.exports = {
  // Strings (lib/clamp.js)
  stringTruncateHead: clamp.stringTruncateHead,
  stringTruncateTail: clamp.stringTruncateTail,
  stringTruncateHeadTail: clamp.stringTruncateHeadTail,
  truncateText: clamp.truncateText,
  measureText: clamp.measureText,
  // JSON values (lib/json.js)
  clampJson: json.clampJson,
  clampJsonText: json.clampJsonText,
  // Tool results (lib/payload.js)
  hardTruncateToolPayload: payload.hardTruncateToolPayload,
  hardTruncateToolError: payload.hardTruncateToolError,
  wrapOnUpdate: payload.wrapOnUpdate,
  wrapToolWithHardOutputTruncate: payload.wrapToolWithHardOutputTruncate,
  wrapExecute: payload.wrapExecute,
  // Shell commands (lib/exec.js)
  formatExecOutput: exec.formatExecOutput,
  // Terminal output as a terminal would finally show it (lib/terminal.js)
  normalizeTerminalOutput: terminal.normalizeTerminalOutput,
  // Output captured while it arrives, in bounded memory (lib/capture.js)
  createOutputCapture: capture.createOutputCapture,
  // Commands run with their output captured as it arrives (lib/run.js)
  runCommand: run.runCommand,
  // Paging with a continuation handle (lib/partial.js)
  readPartial: partial.readPartial,
  ToolOutputTooLargeError: partial.ToolOutputTooLargeError,
  // Spill files (lib/spill.js)
  pruneSpillDir: spill.pruneSpillDir,
}
