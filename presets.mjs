// ESM entry of toolclamp/presets: the same functions as presets.js, as named exports.
import entry from './presets.js'

export const {
  truncateToolOutput,
  resolveToolProfile,
  DEFAULT_TOOL_PROFILES,
  wrapToolOutputEnvelope,
  resolveToolOutputLimit,
  buildPythonResultText,
  formatPythonResult,
} = entry
export default entry
