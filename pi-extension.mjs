// The pi extension of the toolclamp package: `pi install npm:toolclamp` loads this file (the
// "pi" key of package.json). It clamps every tool result pi sends to the model, and the tool
// results of each request to their shares of the model's context window; TOOLCLAMP_*
// environment variables set its budgets (docs/pi.md).
import { toolResultsExtension } from './pi.mjs'

export default toolResultsExtension()
