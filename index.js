'use strict'

// toolclamp's public API; each function lives in the module named beside it.
const clamp = require('./lib/clamp.js')
const payload = require('./lib/payload.js')
const envelope = require('./lib/envelope.js')
const python = require('./lib/python.js')
const exec = require('./lib/exec.js')
const partial = require('./lib/partial.js')
const toolOutput = require('./lib/tool-output.js')
const spill = require('./lib/spill.js')
const json = require('./lib/json.js')
const providerErrors = require('./lib/provider-errors.js')
const messages = require('./lib/messages.js')
const piAgent = require('./lib/pi-agent.js')
const aiSdk = require('./lib/ai-sdk.js')
const session = require('./lib/session.js')
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
  // The tool-output envelope and its limit (lib/envelope.js)
  wrapToolOutputEnvelope: envelope.wrapToolOutputEnvelope,
  resolveToolOutputLimit: envelope.resolveToolOutputLimit,
  // Python results (lib/python.js)
  buildPythonResultText: python.buildPythonResultText,
  formatPythonResult: python.formatPythonResult,
  // Shell commands (lib/exec.js)
  formatExecOutput: exec.formatExecOutput,
  // Terminal output as a terminal would finally show it (lib/terminal.js)
  normalizeTerminalOutput: terminal.normalizeTerminalOutput,
  // Output captured while it arrives, in bounded memory (lib/capture.js)
  createOutputCapture: capture.createOutputCapture,
  // Commands run with their output captured as it arrives (lib/run.js)
  runCommand: run.runCommand,
  // Per-tool profiles and the head/tail view with line indicators (lib/tool-output.js)
  truncateToolOutput: toolOutput.truncateToolOutput,
  resolveToolProfile: toolOutput.resolveToolProfile,
  DEFAULT_TOOL_PROFILES: toolOutput.DEFAULT_TOOL_PROFILES,
  // Paging with a continuation handle (lib/partial.js)
  readPartial: partial.readPartial,
  ToolOutputTooLargeError: partial.ToolOutputTooLargeError,
  // Provider errors: is the prompt too long? (lib/provider-errors.js)
  classifyProviderError: providerErrors.classifyProviderError,
  isContextOverflowError: providerErrors.isContextOverflowError,
  // Tool results across a conversation, in estimated tokens (lib/messages.js)
  estimateTokens: messages.estimateTokens,
  clampToolResultsInMessages: messages.clampToolResultsInMessages,
  withContextOverflowRecovery: messages.withContextOverflowRecovery,
  // The same for pi-agent-core (lib/pi-agent.js) and the AI SDK (lib/ai-sdk.js)
  toolResultsContextGuard: piAgent.toolResultsContextGuard,
  wrapStreamFnWithOverflowRecovery: piAgent.wrapStreamFnWithOverflowRecovery,
  toolResultsMiddleware: aiSdk.toolResultsMiddleware,
  // Session transcripts: clamp before persisting, repair what was persisted (lib/session.js)
  guardSessionManager: session.guardSessionManager,
  repairSessionFile: session.repairSessionFile,
  // Spill files (lib/spill.js)
  pruneSpillDir: spill.pruneSpillDir,
}
