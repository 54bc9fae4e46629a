// Types for the ESM entry of toolclamp/ai-sdk (ai-sdk.mjs): the same functions as ai-sdk.js, named,
// and all of them as the default export.
export * from './ai-sdk.js'
import * as entry from './ai-sdk.js'
export default entry
