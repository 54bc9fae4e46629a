// ESM entry of toolclamp/ai-sdk: the same functions as ai-sdk.js, as named exports.
import entry from './ai-sdk.js'

export const { toolResultsMiddleware } = entry
export default entry
