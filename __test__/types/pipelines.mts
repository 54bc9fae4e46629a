// The pipelines' types: paging, per-tool profiles, spill files.
import {
  readPartial,
  truncateText,
  hardTruncateToolPayload,
  formatExecOutput,
  pruneSpillDir,
  wrapToolWithHardOutputTruncate,
  type PartialView,
  type SpillReport,
  type ToolOutputTooLargeError,
} from 'toolclamp'
import { truncateToolOutput, resolveToolProfile, TOOL_OUTPUT_PRESETS, type TruncateToolOutputResult } from 'toolclamp/presets'

const view: PartialView = readPartial('a\nb\n', { maxLines: 1, offset: 1, onOverflow: 'partial' })
const next: number | null = view.nextOffset
const dropped: 'head' | 'tail' | 'headAndTail' | null = view.dropped
const fromBuffer: string = readPartial(Buffer.from('x')).page

try {
  readPartial('x', { onOverflow: 'error' })
} catch (error) {
  if ((error as { code?: unknown }).code === 'TOOLCLAMP_TOOL_OUTPUT_TOO_LARGE') {
    const tooLarge = error as ToolOutputTooLargeError
    const sizes: number = tooLarge.totalBytes + tooLarge.maxLines
    void sizes
  }
}

const out: TruncateToolOutputResult = truncateToolOutput('read_file', 'text', {
  profiles: { read_file: { maxLines: 1000 }, web_fetch: { maxChars: 8000 } },
  spill: { dir: 'artifacts', onSpill: (report: SpillReport) => void report.path },
})
const readFileChars: number = TOOL_OUTPUT_PRESETS.read_file.maxChars
const profileName: string = resolveToolProfile('grep').name

const report: SpillReport | undefined = truncateText('x', { maxChars: 1, spill: { dir: 'artifacts', name: 'bash' } }).spill
const savedPath: string | null | undefined = report?.path
const payload: string = hardTruncateToolPayload('x', { spill: { dir: 'artifacts', onSpill: () => {} } })
const execSpill: SpillReport | undefined = formatExecOutput({ stdout: 'x' }, { spill: { dir: 'artifacts' } }).stdout.spill
const removed: string[] = pruneSpillDir('artifacts', { maxAgeMs: 1000 })

// @ts-expect-error onOverflow is 'partial' or 'error'
readPartial('x', { onOverflow: 'throw' })
// @ts-expect-error spill needs a dir
truncateText('x', { maxChars: 1, spill: { name: 'bash' } })
// @ts-expect-error maxAgeMs is required
pruneSpillDir('artifacts', {})
// @ts-expect-error the presets table is read-only
TOOL_OUTPUT_PRESETS.read_file.maxChars = 1
// Each preset is an ordinary limits object: the root functions take it as it is.
const asPayloadLimits: string = hardTruncateToolPayload('x', TOOL_OUTPUT_PRESETS.inspect)
const asTextOptions: string = truncateText('x', TOOL_OUTPUT_PRESETS.piBash).text
const wrappedTool = wrapToolWithHardOutputTruncate({ execute: async () => 'x' }, TOOL_OUTPUT_PRESETS.openclawExec)
const wrappedExecute: (input: { path: string }) => Promise<string> = wrapToolWithHardOutputTruncate(
  async (input: { path: string }) => input.path,
  TOOL_OUTPUT_PRESETS.piRead,
)

export {
  next,
  dropped,
  fromBuffer,
  out,
  readFileChars,
  profileName,
  savedPath,
  payload,
  execSpill,
  removed,
  asPayloadLimits,
  asTextOptions,
  wrappedTool,
  wrappedExecute,
}
