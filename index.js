'use strict'

// toolclamp's root entry: what a tool author calls. Integrations and presets have entries of
// their own: toolclamp/conversation, toolclamp/ai-sdk, toolclamp/pi and toolclamp/presets
// (conversation.js, ai-sdk.js, pi.js, presets.js beside this file). Each function lives in
// the module named beside it.
const clamp = require('./lib/text/clamp.js')
const payload = require('./lib/results/payload.js')
const exec = require('./lib/commands/exec.js')
const partial = require('./lib/results/partial.js')
const spill = require('./lib/files/spill.js')
const json = require('./lib/json/json.js')
const capture = require('./lib/commands/capture.js')
const run = require('./lib/commands/run.js')
const native = require('./lib/native.js')

module.exports = {
  // Strings (lib/text/clamp.js)
  stringTruncateHead: clamp.stringTruncateHead,
  stringTruncateTail: clamp.stringTruncateTail,
  stringTruncateHeadTail: clamp.stringTruncateHeadTail,
  truncateText: clamp.truncateText,
  measureText: clamp.measureText,
  // JSON values (lib/json/json.js)
  clampJson: json.clampJson,
  clampJsonText: json.clampJsonText,
  // Tool results (lib/results/payload.js)
  hardTruncateToolPayload: payload.hardTruncateToolPayload,
  hardTruncateToolError: payload.hardTruncateToolError,
  wrapOnUpdate: payload.wrapOnUpdate,
  wrapToolWithHardOutputTruncate: payload.wrapToolWithHardOutputTruncate,
  // Shell commands (lib/commands/exec.js); terminal output as a terminal would finally show
  // it is their `normalize` option, and truncateText's (lib/text/terminal.js)
  formatExecOutput: exec.formatExecOutput,
  // Output captured while it arrives, in bounded memory (lib/commands/capture.js)
  createOutputCapture: capture.createOutputCapture,
  // Commands run with their output captured as it arrives (lib/commands/run.js)
  runCommand: run.runCommand,
  // Paging with a continuation handle (lib/results/partial.js)
  readPartial: partial.readPartial,
  // Spill files (lib/files/spill.js)
  pruneSpillDir: spill.pruneSpillDir,
  // Which build of the addon runs: 'native' or 'wasm' (lib/native.js)
  runtime: native.runtime,
}
