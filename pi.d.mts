// Types for the ESM entry of toolclamp/pi (pi.mjs): the same functions as pi.js, named,
// and all of them as the default export.
export * from './pi.js'
import * as entry from './pi.js'
export default entry
