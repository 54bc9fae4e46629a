// The pipelines' types: paging, per-tool profiles, spill files.
import {
  readPartial,
  ToolOutputTooLargeError,
  truncateText,
  hardTruncateToolPayload,
  formatExecOutput,
  pruneSpillDir,
  type PartialView,
  type SpillReport,
} from 'toolclamp'
import { truncateToolOutput, resolveToolProfile, DEFAULT_TOOL_PROFILES, type TruncateToolOutputResult } from 'toolclamp/presets'

const view: PartialView = readPartial('a\nb\n', { maxLines: 1, offset: 1, onOverflow: 'partial' })
const next: number | null = view.nextOffset
const dropped: 'head' | 'tail' | 'headAndTail' | null = view.dropped
const fromBuffer: string = readPartial(Buffer.from('x')).page

try {
  readPartial('x', { onOverflow: 'error' })
} catch (error) {
  if (error instanceof ToolOutputTooLargeError) {
    const sizes: number = error.totalBytes + error.maxLines
    void sizes
  }
}

const out: TruncateToolOutputResult = truncateToolOutput('read_file', 'text', {
  profiles: { read_file: { maxLines: 1000 }, web_fetch: { maxChars: 8000 } },
  spill: { dir: 'artifacts', onSpill: (report: SpillReport) => void report.path },
})
const readFileChars: number = DEFAULT_TOOL_PROFILES.read_file.maxChars
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
// @ts-expect-error the profile table is read-only
DEFAULT_TOOL_PROFILES.read_file.maxChars = 1

export { next, dropped, fromBuffer, out, readFileChars, profileName, savedPath, payload, execSpill, removed }
