// Types for the ESM entry of toolclamp/conversation (conversation.mjs): the same functions as conversation.js, named,
// and all of them as the default export.
export * from './conversation.js'
import * as entry from './conversation.js'
export default entry
