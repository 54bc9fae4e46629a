// The same package seen from an ES module: the "import" condition of package.json "exports".
import { truncateText, measureText, type TruncateTextResult } from 'toolclamp'

const result: TruncateTextResult = truncateText('a\nb\nc\n', { maxLines: 2, strategy: 'tail' })
const lines: number = measureText(result.text).lines

// @ts-expect-error strategies are spelled exactly
truncateText('x', { maxLines: 2, strategy: 'Tail' })

export { lines }

// The pi extension: a factory of pi's shape, whose ExtensionAPI types `on` per event (as pi's
// does; its own types are not read here, which would type-check all of pi's dependencies).
import { toolResultsExtension, type ExtensionSettings } from 'toolclamp/pi'

interface PiLikeApi {
  on(event: 'tool_result', handler: (event: { content: unknown[] }, ctx: { cwd: string }) => { content?: unknown[] } | undefined): void
  on(
    event: 'context',
    handler: (event: { messages: unknown[] }, ctx: { cwd: string }) => Promise<{ messages?: unknown[] } | undefined>,
  ): void
  registerTool(tool: { name: string }): void
}
type PiLikeFactory = (pi: PiLikeApi) => void | Promise<void>

const piExtension: PiLikeFactory = toolResultsExtension({ maxBytes: 32_768, spillDays: Infinity })
const extensionSettings: ExtensionSettings = toolResultsExtension({ env: { TOOLCLAMP_MAX_LINES: '100' } }).settings
const spillDir: string = extensionSettings.spillDir

// @ts-expect-error it takes an API with `on`
const notAnApi: (pi: { registerTool(): void }) => void = toolResultsExtension()
// @ts-expect-error spillDir is a path
toolResultsExtension({ spillDir: 1 })

export { piExtension, spillDir, notAnApi }
