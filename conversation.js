'use strict'

// toolclamp/conversation: the tool results of a whole conversation kept within shares of the
// context window, tokens estimated or counted, and what a provider's error says (is the
// prompt too long?).
// Each function lives in the module named beside it (the root entry, index.js, holds the rest).
const messages = require('./lib/conversation/messages.js')
const providerErrors = require('./lib/conversation/provider-errors.js')
const tokens = require('./lib/tokens/count.js')

module.exports = {
  // lib/conversation/messages.js
  estimateTokens: messages.estimateTokens,
  // lib/tokens/count.js
  countTokens: tokens.countTokens,
  clampToolResultsInMessages: messages.clampToolResultsInMessages,
  withContextOverflowRecovery: messages.withContextOverflowRecovery,
  // lib/conversation/provider-errors.js
  classifyProviderError: providerErrors.classifyProviderError,
  isContextOverflowError: providerErrors.isContextOverflowError,
}
