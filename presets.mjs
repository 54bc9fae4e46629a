// ESM entry of toolclamp/presets: the same functions as presets.js, as named exports.
import entry from './presets.js'

export const {
  TOOL_OUTPUT_PRESETS,
  truncateToolOutput,
  resolveToolProfile,
  formatToolOutputEnvelope,
  resolveToolOutputLimit,
  formatPythonResult,
} = entry
export default entry
