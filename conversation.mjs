// ESM entry of toolclamp/conversation: the same functions as conversation.js, as named exports.
import entry from './conversation.js'

export const {
  estimateTokens,
  countTokens,
  clampToolResultsInMessages,
  withContextOverflowRecovery,
  classifyProviderError,
  isContextOverflowError,
} = entry
export default entry
