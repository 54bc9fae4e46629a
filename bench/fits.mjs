// Inputs that fit: the per-call cost of each export on a small input with nothing to cut,
// the common case in an agent (every tool call and every model call passes through them).
// Each competitor is the fastest pure JS that returns the very same result (checked with
// deepEqual before timing): it knows the input fits its limits and only reports it.

import assert from 'node:assert/strict'
import toolclamp from '../index.js'
import { clampToolResultsInMessages } from '../conversation.mjs'
import { conversation } from './conversations.mjs'
import { formatRatio, formatTime } from './report.mjs'

/** Lines as toolclamp counts them: line feeds, plus one for an open last line. */
function countLines(s) {
  let k = 0
  for (let p = s.indexOf('\n'); p !== -1; p = s.indexOf('\n', p + 1)) k++
  return s.length === 0 ? 0 : s.charCodeAt(s.length - 1) === 10 ? k : k + 1
}

/** truncateText's report of a text that fits, counted in JS. */
function fitReport(text, strategy) {
  const n = text.length
  const bytes = Buffer.byteLength(text)
  const lines = countLines(text)
  return {
    text,
    truncated: false,
    truncatedBy: [],
    strategy,
    totalChars: n,
    totalBytes: bytes,
    totalLines: lines,
    outputChars: n,
    outputBytes: bytes,
    outputLines: lines,
    omittedChars: 0,
    omittedBytes: 0,
    omittedLines: 0,
    headEnd: n,
    tailStart: n,
  }
}

const LIMITS = { maxBytes: 51200, maxLines: 2000 }
const fitsUnread = (n, limits) => n * 3 <= limits.maxBytes && n <= limits.maxLines

/** The fastest JS truncateText when the text fits (the bench only times texts that fit). */
function jsTruncateText(text, limits) {
  if (Buffer.byteLength(text) > limits.maxBytes || countLines(text) > limits.maxLines) throw new Error('does not fit')
  return fitReport(text, 'head')
}

/**
 * A result's other keys (structuredContent, `stdout`, `_meta`) share its budget as JSON and
 * `details` is bounded on its own: the same job knows there are none, or measures them.
 */
function jsToolPayload(result) {
  for (const key in result) if (key !== 'content' && key !== 'details') throw new Error('other data: not timed here')
  const { details } = result
  if (details !== undefined && JSON.stringify(details).length * 3 > 8192) throw new Error('details: not timed here')
  let length = 0
  for (const block of result.content) if (block.type === 'text') length += block.text.length
  if (!fitsUnread(length, LIMITS)) throw new Error('does not fit')
  return result
}

function jsSection(name, report) {
  if (report.totalBytes === 0) return `<${name}>(empty)</${name}>`
  return `<${name}>\n${report.text}${report.text.endsWith('\n') ? '' : '\n'}</${name}>`
}

function jsExecOutput({ stdout = '', stderr = '' }) {
  if (stdout.length > 8000 || stderr.length > 8000) throw new Error('does not fit')
  const out = fitReport(stdout, 'tail')
  const err = fitReport(stderr, 'tail')
  return { text: `${jsSection('stdout', out)}\n${jsSection('stderr', err)}`, stdout: out, stderr: err }
}

/** A capture in JS: keep the chunks, join them at the end. */
function jsCapture(text) {
  const chunks = []
  chunks.push(text)
  const all = chunks.join('')
  if (Buffer.byteLength(all) > LIMITS.maxBytes || countLines(all) > LIMITS.maxLines) throw new Error('does not fit')
  return fitReport(all, 'tail')
}

function tcCapture(text) {
  const capture = toolclamp.createOutputCapture()
  capture.write(text)
  return capture.end()
}

/**
 * clampToolResultsInMessages's answer for pi messages whose results fit by their lengths.
 * The same job finds tool results in any format it takes: a user message may hold
 * Anthropic tool_result parts, so its parts are looked at too (none are, in these inputs).
 */
function jsConversation(messages, { contextWindowTokens }) {
  const perResult = Math.floor(contextWindowTokens * 0.3)
  const aggregate = Math.floor(contextWindowTokens * 0.5)
  const results = []
  let tokens = 0
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (m.role === 'user') {
      for (const part of m.content) if (part.type === 'tool_result') throw new Error('Anthropic results: not timed here')
    }
    if (m.role !== 'toolResult') continue
    let bound = 0
    for (const block of m.content) bound += block.text.length
    if (bound > perResult || (tokens += bound) > aggregate) throw new Error('does not fit')
    results.push({
      messageIndex: i,
      partIndex: undefined,
      format: 'pi',
      toolCallId: m.toolCallId,
      toolName: m.toolName,
      action: 'kept',
      tokensBefore: bound,
      tokensAfter: bound,
    })
  }
  return { messages, changed: false, savedTokens: 0, tokensBefore: tokens, tokensAfter: tokens, fits: true, exact: false, results }
}

const TEXT = `total 8\ndrwxr-xr-x  2 user user 4096 Nov 25 10:00 .\n-rw-r--r--  1 user user  120 Nov 25 10:00 a.txt\n`
const SMALL_JSON = { command: 'ls -la', exitCode: 0, stdout: 'total 8\nREADME.md\n', stderr: '', durationMs: 12 }

function jsClampJson(value) {
  const text = JSON.stringify(value)
  if (text.length * 3 > 51200) throw new Error('does not fit')
  return { value, truncated: false, totalBytes: Buffer.byteLength(text), outputBytes: Buffer.byteLength(text), elided: [] }
}

const WINDOW = { contextWindowTokens: 200_000 }
const HUGE_WINDOW = { contextWindowTokens: 1_000_000_000 }

export const FITS_CASES = [
  {
    label: '`truncateText(text, { maxBytes, maxLines })`, 100 B',
    make: () => TEXT,
    toolclamp: (t) => toolclamp.truncateText(t, LIMITS),
    js: (t) => jsTruncateText(t, LIMITS),
  },
  {
    label: '`hardTruncateToolPayload({ content: [textBlock] })`, 100 B',
    make: () => ({ content: [{ type: 'text', text: TEXT }] }),
    toolclamp: (r) => toolclamp.hardTruncateToolPayload(r),
    js: jsToolPayload,
  },
  {
    label: '`formatExecOutput({ stdout })`, 100 B',
    make: () => ({ stdout: TEXT }),
    toolclamp: (r) => toolclamp.formatExecOutput(r),
    js: jsExecOutput,
  },
  { label: '`createOutputCapture()` + `write` + `end`, 100 B', make: () => TEXT, toolclamp: tcCapture, js: jsCapture },
  {
    label: '`clampToolResultsInMessages`, 15 messages, 5 results of 100 B',
    make: () => conversation(15, 5, 100),
    toolclamp: (m) => clampToolResultsInMessages(m, WINDOW),
    js: (m) => jsConversation(m, WINDOW),
  },
  {
    label: '`clampToolResultsInMessages`, 2,000 messages, 500 results, 34 MB, within budget',
    make: () => conversation(2000, 500, 68_000),
    toolclamp: (m) => clampToolResultsInMessages(m, HUGE_WINDOW),
    js: (m) => jsConversation(m, HUGE_WINDOW),
    big: true,
  },
  {
    label: '`clampJson(value)`, 120 B object',
    make: () => SMALL_JSON,
    toolclamp: (v) => toolclamp.clampJson(v),
    js: jsClampJson,
  },
]

/** Checks and times each call that fits against its pure-JS twin; returns the table. */
export async function runFitsCases({ timeCase, benchOptions, quick }) {
  const rows = []
  for (const c of FITS_CASES) {
    const input = c.make()
    assert.deepEqual(c.toolclamp(input), c.js(input), c.label)
    process.stderr.write(`timing ${c.label}…\n`)
    const options = quick ? benchOptions(0) : c.big ? { time: 3000, warmupTime: 300, iterations: 8, warmupIterations: 2 } : undefined
    const medians = await timeCase({ impls: { toolclamp: c.toolclamp, best: c.js } }, input, 100, options)
    rows.push([c.label, formatTime(medians.toolclamp), formatTime(medians.best), formatRatio(medians.toolclamp, medians.best)])
  }
  return {
    title: 'Inputs that fit: the cost of a call with nothing to cut',
    about: 'best JS returns the very same result, knowing the input fits; checked equal before timing',
    columns: ['call', 'toolclamp', 'best JS', 'ratio vs best JS'],
    rows,
  }
}
