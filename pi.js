'use strict'

// toolclamp/pi: pi-agent-core (a context guard, a stream function that retries an overflow),
// pi-coding-agent session transcripts (clamped before persisting, repaired after), and the pi
// extension that `pi install npm:toolclamp` loads.
// Each function lives in the module named beside it (the root entry, index.js, holds the rest).
const piAgent = require('./lib/integrations/pi-agent.js')
const session = require('./lib/integrations/pi-session.js')
const extension = require('./lib/integrations/pi-extension.js')

module.exports = {
  // lib/integrations/pi-agent.js
  toolResultsContextGuard: piAgent.toolResultsContextGuard,
  wrapStreamFnWithOverflowRecovery: piAgent.wrapStreamFnWithOverflowRecovery,
  // lib/integrations/pi-session.js
  guardSessionManager: session.guardSessionManager,
  repairSessionFile: session.repairSessionFile,
  // lib/integrations/pi-extension.js
  toolResultsExtension: extension.toolResultsExtension,
}
