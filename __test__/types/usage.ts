// Type-level checks of index.d.ts, compiled with `tsc -p` in strict mode (never run).
// The package is imported by its own name, so resolution goes through package.json "exports".
import { stringTruncateHead, stringTruncateTail, stringTruncateHeadTail, truncateText, measureText, readPartial } from 'toolclamp'
import type {
  HeadTailOptions,
  Limit,
  LimitName,
  Limits,
  Notice,
  NoticeFacts,
  NoticeOptions,
  Strategy,
  TextMeasure,
  TruncateTextOptions,
  TruncateTextResult,
} from 'toolclamp'

const text = 'some tool output\n'.repeat(1000)

// Limits: a number, or any of the three budgets.
const byChars: Limit = 8000
const byAll: Limits = { maxChars: 8000, maxBytes: 50 * 1024, maxLines: 2000 }
const noBudgetTyped: Limits = {}
const unbounded: Limit = { maxLines: Infinity }

const head: string = stringTruncateHead(text, byChars)
const tail: string = stringTruncateTail(text, byAll, { notice: '[... {omitted} cut ...]' })
const middle: string = stringTruncateHeadTail(text, unbounded, { headRatio: 0.3 })

// A notice function gets typed facts.
const describeCut: Notice = (facts: NoticeFacts): string => {
  const where: 'start' | 'end' | 'middle' = facts.where
  const units: LimitName[] = facts.truncatedBy
  const numbers: number[] = [
    facts.omittedChars,
    facts.omittedBytes,
    facts.omittedLines,
    facts.totalChars,
    facts.totalBytes,
    facts.totalLines,
    facts.headEnd,
    facts.tailStart,
  ]
  return `${where} ${units.join('+')} ${numbers.join(',')}`
}
const noticeOptions: NoticeOptions = { notice: describeCut }
const headTailOptions: HeadTailOptions = { headRatio: 0.5, notice: describeCut }
stringTruncateHead(text, 100, noticeOptions)
stringTruncateHeadTail(text, 100, headTailOptions)
stringTruncateTail(text, 100)

const strategy: Strategy = 'headTail'
const options: TruncateTextOptions = { maxBytes: 51200, maxLines: 2000, strategy, headRatio: 0.25, notice: describeCut }
const result: TruncateTextResult = truncateText(text, options)
const resultText: string = result.text
const truncated: boolean = result.truncated
const by: LimitName[] = result.truncatedBy
const exact = truncateText(text, { maxTokens: 100, tokenizer: 'o200k_base' })
const exactTokens: number | undefined = exact.tokens?.output
const exactPayload: unknown = hardTruncateToolPayload({ content: [] }, { maxTokens: 25_000, tokenizer: 'o200k_base' })
const exactJson: number | undefined = clampJson({ a: 1 }, { maxTokens: 100, tokenizer: 'cl100k_base' }).tokens?.output
const exactPage: number | undefined = readPartial(text, { maxTokens: 1000, tokenizer: 'gpt-5' }).tokens?.output
export { exactPayload, exactJson, exactPage }
const counted: number = stringTruncateTail(text, { maxTokens: 10, tokenizer: (t: string) => t.length }).length + (exactTokens ?? 0)
const used: Strategy = result.strategy
const offsets: [number, number] = [result.headEnd, result.tailStart]
const counts: number[] = [
  result.totalChars,
  result.totalBytes,
  result.totalLines,
  result.outputChars,
  result.outputBytes,
  result.outputLines,
  result.omittedChars,
  result.omittedBytes,
  result.omittedLines,
]
const dropped: string = text.slice(result.headEnd, result.tailStart)

const measured: TextMeasure = measureText('héllo\n😀')
const { chars, bytes, lines }: { chars: number; bytes: number; lines: number } = measured

// Wrong usage must not compile.

// @ts-expect-error an unknown strategy
truncateText(text, { maxChars: 10, strategy: 'middle' })
// @ts-expect-error a string limit
stringTruncateHead(text, '100')
// @ts-expect-error a string budget
stringTruncateTail(text, { maxBytes: '50k' })
// @ts-expect-error headRatio is not an option of stringTruncateHead
stringTruncateHead(text, 10, { headRatio: 0.5 })
// @ts-expect-error a notice function returns a string
stringTruncateTail(text, 10, { notice: () => 5 })
// @ts-expect-error a notice is a string or a function
stringTruncateHeadTail(text, 10, { notice: 5 })
// @ts-expect-error truncateText needs its options
truncateText(text)
// @ts-expect-error text must be a string
measureText(5)
// @ts-expect-error the result's counts are numbers
const wrongType: string = result.totalChars
// @ts-expect-error where is one of three words
const wrongWhere: NoticeFacts['where'] = 'both'
// @ts-expect-error an unknown limit key
stringTruncateHead(text, { maxChars: 10, maxbytes: 10 })

export {
  head,
  tail,
  middle,
  noBudgetTyped,
  resultText,
  truncated,
  by,
  counted,
  used,
  offsets,
  counts,
  dropped,
  chars,
  bytes,
  lines,
  wrongType,
  wrongWhere,
}

// JSON values
import { clampJson, clampJsonText } from 'toolclamp'
import type { ClampJsonOptions, ClampJsonResult, ClampJsonTextResult, JsonElision } from 'toolclamp'

const jsonOptions: ClampJsonOptions = { maxBytes: 16_384, strategy: 'headTail', markers: 'none', space: 2 }
const clampedRun: ClampJsonResult<{ stdout: string; code: number }> = clampJson({ stdout: 'x', code: 1 }, jsonOptions)
const keptStdout: string = clampedRun.value.stdout
const firstElision: JsonElision | undefined = clampedRun.elided[0]
const elidedPath: string | undefined = firstElision?.path
const jsonText: ClampJsonTextResult = clampJsonText('{"a":1}')
const wasJson: boolean = jsonText.json
// @ts-expect-error markers is 'inline' or 'none'
clampJson({}, { markers: 'schema' })
// @ts-expect-error clampJsonText takes a string
clampJsonText({ a: 1 })
// @ts-expect-error clampJson has no 'auto' strategy (it throws a TypeError)
clampJson({}, { strategy: 'auto' })

export { keptStdout, elidedPath, wasJson }

// formatExecOutput takes spawnSync's result as it is
import { formatExecOutput } from 'toolclamp'
import { spawnSync } from 'node:child_process'
const execText: string = formatExecOutput(spawnSync('ls', { maxBuffer: Infinity })).text
export { execText }

// snap, auto, responseFormat
import { hardTruncateToolPayload, truncateText as truncate } from 'toolclamp'
import type { Snap } from 'toolclamp'
const lineSnap: Snap = 'line'
const autoResult = truncate('text', { maxLines: 1, strategy: 'auto', snap: lineSnap })
const usedStrategy: 'head' | 'tail' | 'headTail' | 'auto' = autoResult.strategy
hardTruncateToolPayload(['content', { artifact: true }], { responseFormat: 'content_and_artifact', snap: 'none' })
// @ts-expect-error snap is 'line' or 'none'
truncate('text', { maxLines: 1, snap: 'lines' })
export { usedStrategy }

// Tool result shapes: a [content, artifact] tuple keeps its types; the shapes are exported
import type { ToolPayload, ToolResultOutput, FunctionCallOutputItem, ToolResultWithContent } from 'toolclamp'
const tuple = hardTruncateToolPayload(['matches', { count: 1 }] as [string, { count: number }], {
  responseFormat: 'content_and_artifact',
})
const artifactCount: number = tuple[1].count
const modelOutput: ToolResultOutput = hardTruncateToolPayload<ToolResultOutput>({ type: 'json', value: { rows: [1, 2] } })
const outputItem: FunctionCallOutputItem = hardTruncateToolPayload({ type: 'function_call_output' as const, call_id: 'c', output: 'x' })
const callToolResult: ToolResultWithContent = hardTruncateToolPayload({
  content: [{ type: 'text', text: 'x' }],
  structuredContent: { a: 1 },
})
const payload: ToolPayload = hardTruncateToolPayload<ToolPayload>([{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }])
// @ts-expect-error a text ToolResultOutput holds a string
const badOutput: ToolResultOutput = { type: 'text', value: 1 }
// @ts-expect-error responseFormat is 'content' or 'content_and_artifact'
hardTruncateToolPayload('x', { responseFormat: 'artifact' })
// Error limits are payload limits with smaller defaults: the same object serves both.
import { hardTruncateToolError } from 'toolclamp'
import type { PayloadLimits, ToolErrorLimits } from 'toolclamp'
const sharedLimits: PayloadLimits = { maxLines: 100, snap: 'none' }
const errorLimits: ToolErrorLimits = sharedLimits
const clampedError: Error = hardTruncateToolError(new Error('x'), sharedLimits)
// An Error subclass comes back typed as itself (the copy keeps its class).
class HttpError extends Error {
  status = 503
}
const httpStatus: number = hardTruncateToolError(new HttpError('x')).status
export { artifactCount, modelOutput, outputItem, callToolResult, payload, badOutput, errorLimits, clampedError, httpStatus }

// Provider errors
import { classifyProviderError, isContextOverflowError } from 'toolclamp/conversation'
import type { ProviderErrorClass } from 'toolclamp/conversation'
const providerClass: ProviderErrorClass = classifyProviderError(new Error('prompt is too long'))
const overflowKind: 'context_overflow' | 'payload_too_large' | 'rate_limit' | 'other' = providerClass.kind
const shouldShrink: boolean = isContextOverflowError({ status: 413 })
export { overflowKind, shouldShrink }

import { truncateText as truncateTextByTokens } from 'toolclamp'
import { estimateTokens, clampToolResultsInMessages, withContextOverflowRecovery } from 'toolclamp/conversation'
import { toolResultsMiddleware } from 'toolclamp/ai-sdk'
import { toolResultsContextGuard, wrapStreamFnWithOverflowRecovery } from 'toolclamp/pi'
import type { ClampMessagesResult, OverflowAttempt } from 'toolclamp/conversation'
import type { StreamRecoveryOptions } from 'toolclamp/pi'
interface ChatMessage {
  role: 'user' | 'tool'
  content: string
  tool_call_id?: string
}
const chat: ChatMessage[] = [{ role: 'tool', tool_call_id: 'a', content: 'x'.repeat(10) }]
const clampedChat: ClampMessagesResult<ChatMessage[]> = clampToolResultsInMessages(chat, { contextWindowTokens: 128_000, resultShare: 0.2 })
const firstMessage: ChatMessage | undefined = clampedChat.messages[0]
// Read-only conversations are taken as they are.
const frozenChat: readonly ChatMessage[] = Object.freeze([...chat])
const frozenResult: readonly ChatMessage[] = clampToolResultsInMessages(frozenChat, { contextWindowTokens: 128_000 }).messages
const tokens: number = estimateTokens('abc') + truncateTextByTokens('abc', { maxTokens: 10, tokenizer: 'estimate' }).outputBytes
const exactChat: number =
  estimateTokens(chat, { tokenizer: 'gpt-4o' }) +
  clampToolResultsInMessages(chat, { contextWindowTokens: 128_000, tokenizer: (t: string) => t.length }).tokensAfter
async function recovered(): Promise<string> {
  const { result, attempts }: { result: string; attempts: OverflowAttempt[] } = await withContextOverflowRecovery(
    async (messages: readonly ChatMessage[]) => `${messages.length}`,
    { messages: chat, contextWindowTokens: 128_000, maxAttempts: 2 },
  )
  return result + attempts.length
}
const guard = toolResultsContextGuard({ contextWindowTokens: 200_000, onClamp: (r) => r.savedTokens })
const streamFn = wrapStreamFnWithOverflowRecovery((model: string, context: { messages: unknown[] }) => ({ model, context }), {
  maxAttempts: 2,
})
const middleware = toolResultsMiddleware({ contextWindowTokens: 1_000_000 })
// The stream wrapper's window defaults to the model's; any clamp option may be given.
const streamOptions: StreamRecoveryOptions = { resultShare: 0.2, strategy: 'head', onRecovered: ({ attempts }) => attempts.length }
wrapStreamFnWithOverflowRecovery((model: string) => model, streamOptions)
// @ts-expect-error contextWindowTokens is required
clampToolResultsInMessages(chat, { resultShare: 0.2 })
export { firstMessage, frozenResult, tokens, exactChat, recovered, guard, streamFn, middleware }

import { guardSessionManager, repairSessionFile } from 'toolclamp/pi'
import type { RepairReport } from 'toolclamp/pi'
class FakeSessionManager {
  appendMessage(message: unknown): string {
    return String(message)
  }
}
const guardedManager: FakeSessionManager = guardSessionManager(new FakeSessionManager(), { maxBytes: 8192, spill: { dir: '/tmp/x' } })
const repairReport: () => RepairReport = () =>
  repairSessionFile('session.jsonl', { maxTokens: 10_000, backup: false, maxLineBytes: 16 * 1024 * 1024 })
// @ts-expect-error a session manager has appendMessage
guardSessionManager({})
export { guardedManager, repairReport }

import { truncateText as truncateShown, formatExecOutput as formatExec } from 'toolclamp'
const shownText: string = truncateShown('\x1b[1mok\x1b[0m', { maxChars: Infinity, normalize: { controls: false } }).text
const normalizedExecText: string = formatExec({ stdout: 'x' }, { normalize: true }).text
// @ts-expect-error a rule is a boolean
truncateShown('x', { maxChars: Infinity, normalize: { ansi: 1 } })
export { shownText, normalizedExecText }
