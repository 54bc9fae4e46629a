// ESM entry: the same functions as the CommonJS entry (index.js), as named exports.
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
  formatExecOutput,
  createOutputCapture,
  runCommand,
  readPartial,
  pruneSpillDir,
  runtime,
} = toolclamp
export default toolclamp
