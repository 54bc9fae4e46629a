// ESM entry: the same functions as the CommonJS entry, as named exports.
import toolclamp from './index.js'

export const {
  stringTruncateHead,
  stringTruncateTail,
  stringTruncateHeadTail,
  truncateText,
  measureText,
  clampJson,
  clampJsonText,
  hardTruncateToolPayload,
  hardTruncateToolError,
  wrapOnUpdate,
  wrapToolWithHardOutputTruncate,
  wrapExecute,
  wrapToolOutputEnvelope,
  resolveToolOutputLimit,
  buildPythonResultText,
  formatPythonResult,
  formatExecOutput,
  truncateToolOutput,
  resolveToolProfile,
  DEFAULT_TOOL_PROFILES,
  readPartial,
  ToolOutputTooLargeError,
  pruneSpillDir,
  classifyProviderError,
  isContextOverflowError,
  estimateTokens,
  clampToolResultsInMessages,
  withContextOverflowRecovery,
} = toolclamp
export default toolclamp
