// Types for the ESM entry of toolclamp/presets (presets.mjs): the same functions as presets.js, named,
// and all of them as the default export.
export * from './presets.js'
import * as entry from './presets.js'
export default entry
