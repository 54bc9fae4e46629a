// The same package seen from an ES module: the "import" condition of package.json "exports".
import { truncateText, measureText, type TruncateTextResult } from 'toolclamp'

const result: TruncateTextResult = truncateText('a\nb\nc\n', { maxLines: 2, strategy: 'tail' })
const lines: number = measureText(result.text).lines

// @ts-expect-error strategies are spelled exactly
truncateText('x', { maxLines: 2, strategy: 'Tail' })

export { lines }
