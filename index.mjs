// ESM entry: the same functions as the CommonJS entry, as named exports.
import toolclamp from './index.js'

export const { stringTruncateHead, stringTruncateTail, stringTruncateHeadTail, truncateText, measureText } = toolclamp
export default toolclamp
