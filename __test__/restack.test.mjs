// Clamps stacked on clamps: a tool wrapper, then a conversation guard, then a session repair
// (or truncateText twice, or a head cut of a tail cut). The last text carries ONE notice
// whose counts are those of the ORIGINAL output, naming the spill file the first clamp
// saved, within the last clamp's budget. FC_RUNS sets the runs of the property (default
// 10,000, scaled down: each run may write spill and session files).
//
// A head that ended inside a line has its notice on that line, after a space (a line break
// there could not be told from the head's own; crates/toolclamp-core/src/restack.rs), so
// every count is exact.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'

import { Agent, run, setTracingDisabled, tool, Usage } from '@openai/agents'
import { z } from 'zod'

import {
  createOutputCapture,
  formatExecOutput,
  hardTruncateToolPayload,
  measureText,
  stringTruncateHead,
  stringTruncateHeadTail,
  stringTruncateTail,
  truncateText,
  wrapToolWithHardOutputTruncate,
} from '../index.mjs'
import { clampToolResultsInMessages } from '../conversation.mjs'
import { repairSessionFile } from '../pi.mjs'
import { measure } from './reference.mjs'

setTracingDisabled(true)

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
const SPILLS = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-restack-'))
after(() => fs.rmSync(SPILLS, { recursive: true, force: true }))

// ---------------------------------------------------------------------------------------
// Reading a notice, independently of the core
// ---------------------------------------------------------------------------------------

const COUNT = '[1-9]\\d{0,2}(?:,\\d{3})*'
const PHRASE = `(${COUNT} (?:line|char|byte)s?(?:, ${COUNT} (?:line|char|byte)s?){0,2})`
const COUNTED = new RegExp(`^\\[\\.\\.\\. ${PHRASE} (?:truncated|of this tool output) `)
const PATH = / saved to (.+?)(?: \(dropped: lines (\d+)–(\d+)\))? \.\.\.\]$/

const isNotice = (s) => s === '[...]' || s === '[... truncated ...]' || COUNTED.test(s)

/**
 * The notices of the library in `text` (counted or not): `{ line, start, end, inline }`, on
 * a line of their own or at the end of a line after a space (`inline`).
 */
function noticeLines(text) {
  const found = []
  let start = 0
  for (const line of text.split('\n')) {
    if (line.startsWith('[... ') || line === '[...]') {
      found.push({ line, start, end: start + line.length, inline: false })
    } else {
      // The last one that reads: the head before it may hold anything.
      for (let at = line.lastIndexOf(' [...'); at > 0; at = line.lastIndexOf(' [...', at - 1)) {
        if (!isNotice(line.slice(at + 1))) continue
        found.push({ line: line.slice(at + 1), start: start + at + 1, end: start + line.length, inline: true })
        break
      }
    }
    start += line.length + 1
  }
  return found
}

/** What a counted notice says: `{ lines, chars, bytes }` (those it names), its path and line numbers. */
function readNotice(line) {
  const match = COUNTED.exec(line)
  if (match === null) return undefined
  const counts = {}
  for (const part of match[1].split(', ')) {
    const [n, unit] = part.split(' ')
    counts[unit.replace(/s$/, '') + 's'] = Number(n.replaceAll(',', ''))
  }
  const saved = PATH.exec(line)
  const spillPath = saved === null || saved[1] === '(not saved)' ? null : saved[1]
  return { counts, spillPath, lineNumbers: saved !== null && saved[2] !== undefined }
}

/** Chars, bytes and lines of `original` dropped when `head` units and the last `tail` are kept. */
function referenceOmitted(original, head, tail) {
  const n = original.length
  const total = measure(original)
  const kept = (s) => Buffer.byteLength(s)
  // Lines: an input line is shown when any of its units is kept.
  const shown = new Set()
  let line = 0
  for (let i = 0; i < n; i++) {
    if (i < head || i >= n - tail) shown.add(line)
    if (original.charCodeAt(i) === 10) line++
  }
  return {
    chars: n - head - tail,
    bytes: total.bytes - kept(original.slice(0, head)) - kept(original.slice(n - tail)),
    lines: total.lines - shown.size,
  }
}

// ---------------------------------------------------------------------------------------
// The clamps
// ---------------------------------------------------------------------------------------

/** A tool-result session with one result of `text`, repaired under `limits`; the text after. */
function repaired(text, limits) {
  const dir = fs.mkdtempSync(path.join(SPILLS, 'session-'))
  const file = path.join(dir, 'session.jsonl')
  const header = { type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/' }
  const message = {
    role: 'toolResult',
    toolCallId: 'c1',
    toolName: 'find',
    content: [{ type: 'text', text }],
    isError: false,
    timestamp: 1,
  }
  const entry = { type: 'message', id: 'm1', parentId: null, timestamp: '2026-01-01T00:00:01.000Z', message }
  fs.writeFileSync(file, `${JSON.stringify(header)}\n${JSON.stringify(entry)}\n`)
  repairSessionFile(file, { ...limits, backup: false })
  const lines = fs.readFileSync(file, 'utf8').split('\n')
  return JSON.parse(lines[1]).message.content[0].text
}

const spillOption = fc.option(fc.constant({ dir: SPILLS }), { nil: undefined })
const snap = fc.constantFrom('line', 'none')
const strategy = fc.constantFrom('head', 'tail', 'headTail', 'auto')
const chars = fc.integer({ min: 200, max: 2000 })
const bytes = fc.integer({ min: 250, max: 2500 })
const lines = fc.integer({ min: 4, max: 40 })

/** Budgets, at least one of them. */
const budgets = fc
  .record({ maxChars: chars, maxBytes: bytes, maxLines: lines }, { requiredKeys: [] })
  .filter((b) => Object.keys(b).length > 0)

/** `{ name, apply(text) → text, limits }`: one clamp of the stack, `limits` its budget. */
const clamp = fc.oneof(
  fc.record({ budgets, strategy, snap, spill: spillOption }).map(({ budgets, strategy, snap, spill }) => ({
    name: `truncateText ${JSON.stringify({ ...budgets, strategy, snap, spill: spill && 'dir' })}`,
    apply: (text) => truncateText(text, { ...budgets, strategy, snap, ...(spill && { spill }) }).text,
    limits: budgets,
  })),
  fc.record({ maxBytes: bytes, maxLines: lines, strategy, spill: spillOption }).map(({ strategy, spill, ...b }) => ({
    name: `hardTruncateToolPayload ${JSON.stringify({ ...b, strategy, spill: spill && 'dir' })}`,
    apply: (text) => hardTruncateToolPayload(text, { ...b, strategy, ...(spill && { spill }) }),
    limits: b,
  })),
  fc.record({ maxBytes: bytes, maxLines: lines }).map((b) => ({
    name: `wrapToolWithHardOutputTruncate ${JSON.stringify(b)}`,
    apply: (text) => wrapToolWithHardOutputTruncate((value) => value, b)(text),
    limits: b,
  })),
  fc.record({ window: fc.integer({ min: 400, max: 3000 }), spill: spillOption, strategy }).map(({ window, spill, strategy }) => ({
    name: `clampToolResultsInMessages ${JSON.stringify({ window, strategy, spill: spill && 'dir' })}`,
    apply: (text) =>
      clampToolResultsInMessages([{ role: 'tool', tool_call_id: 'a', content: text }], {
        contextWindowTokens: window,
        strategy,
        ...(spill && { spill }),
      }).messages[0].content,
    limits: { maxBytes: Math.floor(window * 0.3) * 3 },
  })),
  // Chars only with the default notice: a text over 2,048 chars is planned through windows
  // unless it holds a notice.
  fc
    .record({ maxChars: fc.integer({ min: 200, max: 6000 }), which: fc.constantFrom('head', 'tail', 'headTail') })
    .map(({ maxChars, which }) => ({
      name: `stringTruncate ${which} ${maxChars}`,
      apply: (text) => ({ head: stringTruncateHead, tail: stringTruncateTail, headTail: stringTruncateHeadTail })[which](text, maxChars),
      limits: { maxChars },
    })),
  fc.record({ maxBytes: bytes, maxLines: lines }).map((b) => ({
    name: `repairSessionFile ${JSON.stringify(b)}`,
    apply: (text) => repaired(text, b),
    limits: b,
  })),
)

function fits(text, limits) {
  const m = measureText(text)
  return m.chars <= (limits.maxChars ?? Infinity) && m.bytes <= (limits.maxBytes ?? Infinity) && m.lines <= (limits.maxLines ?? Infinity)
}

// Output of a command: lines of words, paths, some non-ASCII, a CRLF now and then. No line
// starts with '[' (no notice of its own) and no text starts with '{' (no JSON).
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z]{1,9}$/) },
  { weight: 3, arbitrary: fc.constantFrom(' ', '/', '.', '-', ':', ' ') },
  { weight: 4, arbitrary: fc.constant('\n') },
  { weight: 1, arbitrary: fc.constantFrom('\r\n', 'é', '日本', '😀', '\t', 'ß', '\ud83d') },
  { weight: 1, arbitrary: fc.stringMatching(/^x{20,120}$/) },
)
const original = fc.array(piece, { minLength: 1, maxLength: 1500, size: 'max' }).map((p) => `a${p.join('')}`)

// ---------------------------------------------------------------------------------------
// The property
// ---------------------------------------------------------------------------------------

/** Where a text carrying one counted notice keeps the original: `{ head, tail }`. */
function keptOf(original, text, notice) {
  // A head that ended inside a line has the notice on that line, after a space.
  const headText = text.slice(0, notice.inline ? notice.start - 1 : notice.start)
  if (notice.inline) assert.ok(!headText.endsWith('\n') && headText !== '', 'an inline notice follows an open line')
  else assert.ok(headText === '' || headText.endsWith('\n'), 'a notice on its own line follows a whole line')
  const tailText = notice.end < text.length ? text.slice(notice.end + 1) : ''
  assert.ok(original.startsWith(headText), "the kept head is the original's")
  assert.ok(original.endsWith(tailText), "the kept tail is the original's")
  return { head: headText.length, tail: tailText.length }
}

function checkStack(source, clamps) {
  let text = source
  let firstPath
  let first = true
  for (const c of clamps) {
    const next = c.apply(text)
    if (next === text) continue
    assert.ok(fits(next, c.limits), `${c.name}: ${measureText(next).bytes} bytes over ${JSON.stringify(c.limits)}`)
    const notices = noticeLines(next)
    assert.equal(notices.length, 1, `${c.name}: one notice in ${JSON.stringify(next.slice(0, 400))}`)
    const said = readNotice(notices[0].line)
    // A fallback ([... truncated ...]) names no count: what follows it counts as text.
    if (said === undefined) return
    const kept = keptOf(source, next, notices[0])
    if (first) firstPath = said.spillPath
    first = false
    assert.equal(said.spillPath, firstPath, `${c.name}: the first clamp's spill file is named`)
    const truth = referenceOmitted(source, kept.head, kept.tail)
    for (const [unit, n] of Object.entries(said.counts)) {
      assert.equal(n, truth[unit], `${c.name}: ${unit} in ${notices[0].line} (kept ${kept.head}+${kept.tail} of ${source.length})`)
    }
    text = next
  }
}

test('wrapper ∘ guard ∘ repair notices true to the original: any two or three clamps in a row', () => {
  fc.assert(
    fc.property(original, fc.array(clamp, { minLength: 2, maxLength: 3 }), (source, clamps) => {
      checkStack(source, clamps)
    }),
    { numRuns: Math.max(100, Math.floor(RUNS / 20)) },
  )
})

// ---------------------------------------------------------------------------------------
// The reports
// ---------------------------------------------------------------------------------------

/**
 * A `find .` listing of at least `bytes` bytes, one path a line under `dirs` in turn; the
 * paths numbered from `from` (for `count` of them) are backup files (`~`).
 */
function findListing(bytes, dirs, { from = 0, count = 0 } = {}) {
  const lines = ['.']
  let size = 2
  for (let i = 0; size < bytes; i++) {
    const line = `./${dirs[i % dirs.length]}/${i}${i >= from && i < from + count ? '~' : ''}`
    lines.push(line)
    size += line.length + 1
  }
  return `${lines.join('\n')}\n`
}

const formatCount = (n) => n.toLocaleString('en-US')

/** The notice a head cut of `original` to `text` must end with: bytes of the original. */
function expectOriginalBytes(original, text) {
  const notices = noticeLines(text)
  assert.equal(notices.length, 1, 'one notice')
  const kept = text.slice(0, notices[0].start)
  assert.ok(original.startsWith(kept))
  const omitted = Buffer.byteLength(original) - Buffer.byteLength(kept)
  assert.equal(notices[0].line, `[... ${formatCount(omitted)} bytes truncated at the end ...]`)
  assert.equal(notices[0].end, text.length)
}

test('15.9 MB through hardTruncateToolPayload then clampToolResultsInMessages: the bytes of the original, not "8,980 bytes"', () => {
  const out = findListing(15.9e6, ['build', 'source', 'vendor', 'assets'], { from: 1450, count: 501 })
  assert.equal(out.length, 15_900_006)
  const wrapped = hardTruncateToolPayload(out)
  assert.match(wrapped, /\n\[\.\.\. [\d,]+ lines, [\d,]+ bytes truncated at the end \.\.\.\]$/)
  const { messages } = clampToolResultsInMessages([{ role: 'tool', tool_call_id: 'a', content: wrapped }], { contextWindowTokens: 20_000 })
  const text = messages[0].content
  // Counted against the wrapper's output, this was 8,980 bytes.
  assert.ok(!text.includes('8,980'), text.slice(-80))
  expectOriginalBytes(out, text)
  assert.equal(text.slice(text.lastIndexOf('\n') + 1), '[... 15,882,057 bytes truncated at the end ...]')
})

test('an 8.1 MB find through wrapToolWithHardOutputTruncate and an OpenAI Agents callModelInputFilter: the bytes of the original, not "25,671 bytes"', async () => {
  const dirs = ['node_modules/typescript/lib', 'node_modules/@types/node', 'src/components', 'node_modules/.pnpm']
  const out = findListing(8.1e6, dirs, { from: 1000, count: 16 })
  const requests = []
  const model = {
    async getResponse({ input }) {
      requests.push(input)
      const output =
        requests.length === 1
          ? [{ type: 'function_call', callId: 'call-1', name: 'find', arguments: '{}', status: 'completed' }]
          : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }]
      return { usage: new Usage(), output }
    },
    async *getStreamedResponse() {
      throw new Error('not streamed')
    },
  }
  const find = tool({
    name: 'find',
    description: 'find .',
    parameters: z.object({}),
    execute: wrapToolWithHardOutputTruncate(async () => out),
  })
  await run(new Agent({ name: 'dev', instructions: 'Look around.', model, tools: [find] }), 'go', {
    callModelInputFilter: ({ modelData }) => ({
      ...modelData,
      input: clampToolResultsInMessages(modelData.input, { contextWindowTokens: 28_400 }).messages,
    }),
  })
  const item = requests[1].find((i) => i.type === 'function_call_result')
  const text = item.output.text
  // Counted against the wrapper's output, this was 25,671 bytes.
  assert.ok(!text.includes('25,671'), text.slice(-80))
  expectOriginalBytes(out, text)
})

test('the spill file the wrapper saved is the one the guard names, and holds the original', () => {
  const out = findListing(2e6, ['src', 'lib'])
  const dir = fs.mkdtempSync(path.join(SPILLS, 'wired-'))
  const wrapped = wrapToolWithHardOutputTruncate((x) => x, { spill: { dir } })(out)
  const [saved] = PATH.exec(wrapped).slice(1)
  assert.equal(fs.readFileSync(saved, 'utf8'), out)
  // The guard saves what it was given too (reported), but its notice names the original's file.
  const { messages, results } = clampToolResultsInMessages([{ role: 'tool', tool_call_id: 'a', content: wrapped }], {
    contextWindowTokens: 20_000,
    spill: { dir },
  })
  const text = messages[0].content
  assert.notEqual(results[0].spillPath, saved)
  const notices = noticeLines(text)
  assert.equal(notices.length, 1)
  const kept = text.slice(0, notices[0].start)
  const omitted = Buffer.byteLength(out) - Buffer.byteLength(kept)
  assert.equal(notices[0].line, `[... ${formatCount(omitted)} bytes truncated at the end; full output saved to ${saved} ...]`)
})

test('truncateText twice and a head cut of a tail cut: one notice, counting the original', () => {
  const log = Array.from({ length: 1000 }, (_, i) => `step ${i} done`).join('\n')
  const once = truncateText(log, { maxLines: 100 }).text
  const twice = truncateText(once, { maxLines: 10 })
  assert.equal(twice.text.split('\n').at(-1), '[... 991 lines truncated at the end ...]')
  // The result's own counts are those of the text it was given.
  assert.equal(twice.totalLines, 100)
  assert.equal(twice.omittedLines, 91)
  const tail = truncateText(log, { maxLines: 100, strategy: 'tail' }).text
  const head = truncateText(tail, { maxLines: 10, strategy: 'head' }).text
  // Only the end of the original is there: the head cut keeps the last lines of it.
  assert.equal(head.split('\n')[0], '[... 991 lines truncated at the start ...]')
  assert.equal(head.split('\n').at(-1), 'step 999 done')
})

test('a text that only looks like it carries a notice is cut as text', () => {
  const looks = `intro\n[... 5 bytes truncated at the end ...]\n${'more\n'.repeat(50)}`
  const { text } = truncateText(looks, { maxLines: 5 })
  assert.equal(text.split('\n').at(-1), '[... 48 lines truncated at the end ...]')
  assert.equal(noticeLines(text).length, 2)
})

test("a command's output with both streams cut, clamped again: one notice for one gap", () => {
  const stdout = Array.from({ length: 3000 }, (_, i) => `ok ${i}`).join('\n')
  const stderr = Array.from({ length: 3000 }, (_, i) => `warn ${i}`).join('\n')
  const shown = formatExecOutput({ stdout, stderr, exitCode: 1 }).text
  assert.equal(noticeLines(shown).length, 2)
  const text = hardTruncateToolPayload(shown, { maxLines: 12 })
  const notices = noticeLines(text)
  assert.equal(notices.length, 1)
  // The original: both streams whole in the same layout.
  const original = formatExecOutput({ stdout, stderr, exitCode: 1 }, { stdout: Infinity, stderr: Infinity }).text
  const head = text.slice(0, notices[0].start)
  const tail = text.slice(notices[0].end + 1)
  assert.ok(original.startsWith(head) && original.endsWith(tail))
  const omitted = original.length - head.length - tail.length
  assert.equal(notices[0].line, `[... ${formatCount(omitted)} chars truncated in the middle ...]`)
  assert.ok(text.endsWith('</stderr>\nexit code: 1'))
})

test("a caller's own notice gets the original's counts; a stacked clamp with spill names the first file", () => {
  const log = Array.from({ length: 1000 }, (_, i) => `step ${i} done`).join('\n')
  const once = truncateText(log, { maxLines: 100 }).text
  const facts = []
  const { text } = truncateText(once, {
    maxLines: 10,
    notice: (f) => {
      facts.push(f)
      return `<${f.omittedLines} of ${f.totalLines} lines>`
    },
  })
  assert.equal(text.split('\n').at(-1), '<991 of 1000 lines>')
  assert.ok(facts.every((f) => f.totalLines === 1000))
  const dir = fs.mkdtempSync(path.join(SPILLS, 'twice-'))
  const first = truncateText(log, { maxLines: 100, spill: { dir } })
  const second = truncateText(first.text, { maxLines: 10, spill: { dir } })
  // The second clamp saves what it was given (reported); its notice names the original's file.
  assert.notEqual(second.spill.path, first.spill.path)
  assert.equal(fs.readFileSync(second.spill.path, 'utf8'), first.text)
  assert.equal(second.text.split('\n').at(-1), `[... 991 lines truncated at the end; full output saved to ${first.spill.path} ...]`)
})

test('a head cut inside a line, cut again: the chars of the original, not one more', () => {
  // One long line and more: the first cut ends inside the first line. With a line break
  // before its notice, the second cut read that line break as the head's own and counted
  // one char (and byte) more than the original lost.
  const original = `${'x'.repeat(300)}\n${'y'.repeat(300)}`
  const once = truncateText(original, { maxChars: 200 }).text
  assert.match(once, /^x+ \[\.\.\. [\d,]+ chars truncated at the end \.\.\.\]$/)
  const twice = truncateText(once, { maxChars: 100 }).text
  const kept = twice.slice(0, twice.indexOf(' ['))
  assert.ok(/^x+$/.test(kept))
  assert.equal(twice, `${kept} [... ${formatCount(original.length - kept.length)} chars truncated at the end ...]`)
  // The same through bytes, with a wrapper and a guard.
  const wrapped = hardTruncateToolPayload(original, { maxBytes: 250 })
  const guarded = hardTruncateToolPayload(wrapped, { maxBytes: 120 })
  const head = guarded.slice(0, guarded.indexOf(' ['))
  assert.equal(
    guarded.slice(head.length),
    ` [... ${formatCount(Buffer.byteLength(original) - Buffer.byteLength(head))} bytes truncated at the end ...]`,
  )
})

test('a long text whose notice is in its middle, through stringTruncate*: one notice, counting the original', () => {
  // Over 2,048 chars, a chars-only stringTruncate* reads a few windows of the text; the notice
  // in the middle was not among them, so the result had two counts of different texts.
  const original = Array.from({ length: 5000 }, (_, i) => `line ${i} of the build log`).join('\n')
  const once = truncateText(original, { maxChars: 6000, strategy: 'headTail', snap: 'line' }).text
  assert.ok(once.length > 2048 && noticeLines(once).length === 1)
  for (const [clamp, where] of [
    [stringTruncateHeadTail, 'in the middle'],
    [stringTruncateTail, 'at the start'],
    [stringTruncateHead, 'at the end'],
  ]) {
    const twice = clamp(once, 1000)
    assert.ok(twice.length <= 1000)
    const notices = noticeLines(twice)
    assert.equal(notices.length, 1, `${clamp.name}: one notice`)
    const { head, tail } = keptOf(original, twice, notices[0])
    assert.equal(notices[0].line, `[... ${formatCount(original.length - head - tail)} chars truncated ${where} ...]`, clamp.name)
  }
  // Without a notice the windows still plan it: the same result as the whole text's plan.
  const plain = original.slice(0, 50_000)
  assert.equal(stringTruncateTail(plain, 1000), truncateText(plain, { maxChars: 1000, strategy: 'tail' }).text)
})

test('over 262,144 chars a chars-only stringTruncate* plans through windows as the text is; truncateText reads it whole', () => {
  const original = Array.from({ length: 60_000 }, (_, i) => `line ${i} of the build log`).join('\n')
  const once = truncateText(original, { maxChars: 300_000, strategy: 'headTail', snap: 'line' }).text
  assert.ok(once.length > 262_144)
  // Windows: the notice counts what it cut of the text it was given (documented).
  const windowed = stringTruncateTail(once, 1000)
  const [notice] = noticeLines(windowed)
  const kept = windowed.length - notice.end - 1
  assert.equal(notice.line, `[... ${formatCount(once.length - kept)} chars truncated at the start ...]`)
  // truncateText reads every char: the original's count.
  const whole = truncateText(once, { maxChars: 1000, strategy: 'tail' }).text
  const [read] = noticeLines(whole)
  const wholeKept = whole.length - read.end - 1
  assert.equal(read.line, `[... ${formatCount(original.length - wholeKept)} chars truncated at the start ...]`)
})

test('a capture of output that carries a notice counts what it cut of that output; a clamp after it counts the original', () => {
  // A capture is a command's own output, streamed: it is not restacked (its head may be shown
  // before a notice arrives, and its dropped middle is never kept to read). Its notice counts
  // what it cut of the output it was given, and the earlier notice it keeps stays verbatim:
  // each tells the truth about its own layer, and a later clamp reads both as one gap.
  const original = Array.from({ length: 3000 }, (_, i) => `line ${i} of the build log`).join('\n')
  const clamped = truncateText(original, { maxBytes: 6000, strategy: 'headTail', snap: 'line' }).text
  const [earlier] = noticeLines(clamped)
  const capture = createOutputCapture({ maxBytes: 4000, strategy: 'head', snap: 'line' })
  for (let i = 0; i < clamped.length; i += 700) capture.write(clamped.slice(i, i + 700))
  const r = capture.end()
  const notices = noticeLines(r.text)
  assert.equal(notices.length, 2)
  assert.equal(notices[0].line, earlier.line, 'the earlier notice, verbatim')
  assert.equal(notices[1].line, `[... ${formatCount(r.omittedBytes)} bytes truncated at the end ...]`)
  assert.equal(r.totalBytes, Buffer.byteLength(clamped))
  const guarded = hardTruncateToolPayload(r.text, { maxBytes: 1500 })
  const [one, ...more] = noticeLines(guarded)
  assert.equal(more.length, 0)
  const head = guarded.slice(0, one.start)
  assert.ok(original.startsWith(head))
  assert.equal(one.line, `[... ${formatCount(Buffer.byteLength(original) - Buffer.byteLength(head))} bytes truncated at the end ...]`)
})
