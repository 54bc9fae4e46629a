// Types for the ESM entry (index.mjs): the same functions as the CommonJS entry, named, and
// the whole API as the default export.
export * from './index.js'
import * as toolclamp from './index.js'
export default toolclamp
