'use strict'

// toolclamp/ai-sdk: the Vercel AI SDK middleware that keeps a prompt's tool results within the
// context window and retries a call refused as too long.
// Each function lives in the module named beside it (the root entry, index.js, holds the rest).
const aiSdk = require('./lib/integrations/ai-sdk.js')

module.exports = {
  // lib/integrations/ai-sdk.js
  toolResultsMiddleware: aiSdk.toolResultsMiddleware,
}
