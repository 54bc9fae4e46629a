// ESM entry of toolclamp/pi: the same functions as pi.js, as named exports.
import entry from './pi.js'

export const { toolResultsContextGuard, wrapStreamFnWithOverflowRecovery, guardSessionManager, repairSessionFile, toolResultsExtension } =
  entry
export default entry
