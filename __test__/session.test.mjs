// pi-coding-agent sessions: guardSessionManager clamps tool results before a SessionManager
// persists them (tested against the real package); repairSessionFile rewrites a session
// file in place: originals spilled first, other lines byte for byte, atomic (a crash at any
// step leaves the original), idempotent, locked, and aborted when pi writes meanwhile.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import fc from 'fast-check'
import { constants } from 'node:buffer'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

import { SessionManager, parseSessionEntries } from '@mariozechner/pi-coding-agent'

import { measure } from './reference.mjs'
import { deepFreeze } from './helpers.mjs'
import { fastOracle } from './token-oracle.mjs'

const require = createRequire(import.meta.url)
const SESSION_MODULE = fileURLToPath(new URL('../lib/integrations/pi-session.js', import.meta.url))
const { guardSessionManager, repairSessionFile } = require(SESSION_MODULE)
const { MAX_STRING_LENGTH } = constants
const RUNS = Number(process.env.FC_RUNS ?? 1000)

// ---- Helpers

/** A fresh directory (its real path), removed when the test ends. */
function tempDir(t) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-session-')))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

const numbered = (n, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join('')
const mode = (p) => fs.statSync(p).mode & 0o777
const SPILL_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}-\d{8}T\d{6}Z-[0-9a-f]{16}\.toolclamp-spill\.txt$/
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

/** The text of a block list, joined, as the budget sees it. */
const textOf = (content) =>
  typeof content === 'string'
    ? content
    : content
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('')

/** Whether a text fits the limits (maxBytes and maxLines; maxChars when given). */
function assertFits(text, limits) {
  const size = measure(text)
  assert.ok(size.bytes <= limits.maxBytes, `${size.bytes} bytes > ${limits.maxBytes}`)
  assert.ok(size.lines <= (limits.maxLines ?? 2000), `${size.lines} lines`)
  if (limits.maxChars !== undefined) assert.ok(size.chars <= limits.maxChars)
}

/** The raw lines of a file: split on "\n", each kept as bytes (a "\r" stays in its line). */
function rawLines(bytes) {
  const lines = []
  let start = 0
  for (;;) {
    const end = bytes.indexOf(0x0a, start)
    if (end === -1) {
      lines.push(bytes.subarray(start))
      return lines
    }
    lines.push(bytes.subarray(start, end))
    start = end + 1
  }
}

const messageEntry = (id, parentId, message) => ({
  type: 'message',
  id,
  parentId,
  timestamp: '2025-06-01T10:00:00.000Z',
  message,
})

function toolResult(toolCallId, toolName, content, extra = {}) {
  return {
    role: 'toolResult',
    toolCallId,
    toolName,
    content,
    details: { exitCode: 1 },
    isError: false,
    timestamp: 3,
    ...extra,
  }
}

const HEADER = { type: 'session', version: 3, id: 'sess-1', timestamp: '2025-06-01T10:00:00.000Z', cwd: '/srv/app' }
const USER = messageEntry('e1', null, { role: 'user', content: 'Run the build and fix the failure', timestamp: 1 })
const ASSISTANT = messageEntry('e2', 'e1', {
  role: 'assistant',
  content: [{ type: 'toolCall', id: 'call-1', name: 'bash', arguments: { command: 'make all' } }],
  api: 'anthropic-messages',
  provider: 'anthropic',
  model: 'claude-sonnet-4',
  usage: {
    input: 10,
    output: 5,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 15,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: 'toolUse',
  timestamp: 2,
})
const BIG_TEXT = numbered(30_000, 'build step') // about 480 KB
const BIG = messageEntry(
  'e3',
  'e2',
  toolResult('call-1', 'bash', [
    { type: 'text', text: BIG_TEXT },
    { type: 'image', data: PNG, mimeType: 'image/png' },
  ]),
)
const MODEL_CHANGE = {
  type: 'model_change',
  id: 'e4',
  parentId: 'e3',
  timestamp: '2025-06-01T10:00:01.000Z',
  provider: 'openai',
  modelId: 'gpt-5',
}
const SMALL = messageEntry('e5', 'e4', toolResult('call-2', 'read', [{ type: 'text', text: 'short output' }]))
const COMPACTION = {
  type: 'compaction',
  id: 'e6',
  parentId: 'e5',
  timestamp: '2025-06-01T10:00:02.000Z',
  summary: 'Ran the build. ✓ größe',
  firstKeptEntryId: 'e5',
  tokensBefore: 123456,
}
const CUSTOM = {
  type: 'custom',
  customType: 'ext',
  data: { big: 'x'.repeat(100_000) },
  id: 'e7',
  parentId: 'e6',
  timestamp: '2025-06-01T10:00:03.000Z',
}
const LIMITS = { maxBytes: 4096 }

/**
 * A session file of `parts` (entries, raw strings or Buffers), each ended by `ending` or,
 * for a part given as [part, ending], by its own. Returns the path and the bytes written.
 */
function writeSession(dir, parts, name = 'session.jsonl') {
  const file = path.join(dir, name)
  const chunks = []
  for (const item of parts) {
    const [part, ending] = Array.isArray(item) ? item : [item, '\n']
    chunks.push(Buffer.isBuffer(part) ? part : Buffer.from(typeof part === 'string' ? part : JSON.stringify(part)), Buffer.from(ending))
  }
  const bytes = Buffer.concat(chunks)
  fs.writeFileSync(file, bytes)
  return { file, bytes }
}

const standardSession = (dir) => writeSession(dir, [HEADER, USER, ASSISTANT, BIG, MODEL_CHANGE, SMALL, COMPACTION, CUSTOM])

/** Lists a directory, sorted, without the files named. */
const listing = (dir) => fs.readdirSync(dir).sort()

/** A session file laid out byte by byte: entries (or raw lines) and padding to an offset. */
class Layout {
  parts = []
  size = 0
  ends = []
  add(part, ending = '\n') {
    const bytes = Buffer.from(`${typeof part === 'string' ? part : JSON.stringify(part)}${ending}`)
    this.parts.push(bytes)
    this.size += bytes.length
    this.ends.push(this.size - 1)
  }
  /** A custom entry whose line ends (its ending included) at `offset`. */
  padTo(offset, ending) {
    const empty = JSON.stringify({ type: 'custom', data: '' }).length + ending.length
    const pad = offset - this.size - empty
    assert.ok(pad >= 0, `${this.size} is past ${offset}`)
    this.add({ type: 'custom', data: 'p'.repeat(pad) }, ending)
    assert.equal(this.size, offset)
  }
  /** The multiples of `chunk` where a line ends or its ending is split. */
  edges(chunk) {
    return this.ends.filter((end) => end % chunk === 0 || (end + 1) % chunk === 0 || (end - 1) % chunk === 0)
  }
  bytes() {
    return Buffer.concat(this.parts)
  }
}

/**
 * What a repair must do to each line of `bytes`, as a reading of the whole file says: keep
 * it, clamp it (a tool result over `limits`), or report it (longer than `maxLineBytes`, its
 * ending aside, and naming a tool result in its first 64 KiB).
 */
function expectedRepair(bytes, limits, maxLineBytes = 64 * 1024 * 1024) {
  const lines = rawLines(bytes)
  return lines.map((line, i) => {
    const body = i < lines.length - 1 && line.at(-1) === 0x0d ? line.subarray(0, -1) : line
    if (body.length > maxLineBytes) {
      return body.subarray(0, 64 * 1024).includes('"toolResult"') ? { report: body.length } : 'keep'
    }
    let entry
    try {
      entry = JSON.parse(body.toString('utf8'))
    } catch {
      return 'keep'
    }
    if (entry?.type !== 'message' || entry.message?.role !== 'toolResult') return 'keep'
    const size = measure(textOf(entry.message.content))
    return size.bytes <= limits.maxBytes && size.lines <= (limits.maxLines ?? 2000) ? 'keep' : 'clamp'
  })
}

/**
 * Repairs `file` (unless `before` is given: then it was, from those bytes) and checks each
 * line against expectedRepair: kept byte for byte, clamped (the same entry with content
 * that fits, its ending kept, its original in its spill file) or reported.
 */
function assertRepairedAsWhole(file, limits, maxLineBytes, before) {
  const bytes = before ?? fs.readFileSync(file)
  const report = before === undefined ? repairSessionFile(file, { ...limits, maxLineBytes }) : undefined
  const expected = expectedRepair(bytes, limits, maxLineBytes)
  const was = rawLines(bytes)
  const now = rawLines(fs.readFileSync(file))
  assert.equal(now.length, was.length)
  const clamped = expected.flatMap((what, i) => (what === 'clamp' ? [i + 1] : []))
  if (report !== undefined) {
    assert.deepEqual(
      report.results.map((result) => result.line),
      clamped,
    )
    const reported = expected.flatMap((what, i) => (what.report === undefined ? [] : [[i + 1, what.report]]))
    assert.deepEqual(
      report.skipped.map((skip) => [skip.line, skip.reason]),
      reported.map(([line, length]) => [line, `its line is ${length} bytes, over maxLineBytes (${maxLineBytes}), so it was not read`]),
    )
  }
  for (let i = 0; i < was.length; i++) {
    if (expected[i] !== 'clamp') {
      assert.ok(now[i].equals(was[i]), `line ${i + 1} kept`)
      continue
    }
    assert.equal(now[i].at(-1) === 0x0d, was[i].at(-1) === 0x0d, `line ${i + 1} keeps its ending`)
    const entry = JSON.parse(now[i].toString('utf8'))
    const original = JSON.parse(was[i].toString('utf8'))
    assertFits(textOf(entry.message.content), limits)
    const withoutContent = (e) => ({ ...e, message: { ...e.message, content: null } })
    assert.deepEqual(withoutContent(entry), withoutContent(original))
    if (report !== undefined) {
      const { spillPath } = report.results.find((result) => result.line === i + 1)
      assert.equal(fs.readFileSync(spillPath, 'utf8'), textOf(original.message.content))
    }
  }
}

// ---- repairSessionFile

describe('repairSessionFile', () => {
  test('clamps each oversized tool result; every other line stays byte for byte, line endings too', (t) => {
    const dir = tempDir(t)
    const second = messageEntry('e8', 'e7', toolResult('call-3', 'grep', [{ type: 'text', text: numbered(5000, 'match') }]))
    // Bytes no JSON writer makes: invalid UTF-8 in an entry nobody touches.
    const invalid = Buffer.concat([Buffer.from('{"type":"custom","data":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])
    const { file, bytes } = writeSession(dir, [
      HEADER,
      [USER, '\r\n'],
      ASSISTANT,
      [BIG, '\r\n'],
      MODEL_CHANGE,
      '',
      '{"type":"message", "id": "spaced"  ,"message":{"role":"user","content":"1.0e2 \\u00e9"}}',
      invalid,
      SMALL,
      COMPACTION,
      CUSTOM,
      [second, ''],
    ])
    const report = repairSessionFile(file, LIMITS)
    assert.equal(report.changed, true)
    assert.deepEqual(
      report.results.map(({ line, toolCallId, toolName }) => ({ line, toolCallId, toolName })),
      [
        { line: 4, toolCallId: 'call-1', toolName: 'bash' },
        { line: 12, toolCallId: 'call-3', toolName: 'grep' },
      ],
    )
    const before = rawLines(bytes)
    const after = rawLines(fs.readFileSync(file))
    assert.equal(after.length, before.length)
    for (let i = 0; i < before.length; i++) {
      if (i === 3 || i === 11) continue
      assert.ok(after[i].equals(before[i]), `line ${i + 1} is byte-identical`)
    }
    // The clamped lines keep their endings: "\r\n" on line 4, none at the end of the file.
    assert.equal(after[3].at(-1), 0x0d)
    assert.equal(after[11].includes(0x0d), false)
    assert.equal(fs.readFileSync(file).at(-1), 0x7d, 'no newline added at the end')
    for (const [index, original] of [
      [3, BIG],
      [11, second],
    ]) {
      const entry = JSON.parse(after[index].toString())
      const { content, ...rest } = entry.message
      const { content: originalContent, ...originalRest } = original.message
      assert.deepEqual({ ...entry, message: rest }, { ...original, message: originalRest }, 'every other field kept')
      assertFits(textOf(content), { maxBytes: 4096 })
      assert.ok(textOf(content).length < textOf(originalContent).length)
      assert.deepEqual(
        content.filter((b) => b.type !== 'text'),
        originalContent.filter((b) => b.type !== 'text'),
        'images kept',
      )
      const result = report.results.find((r) => r.line === index + 1)
      assert.equal(result.bytesBefore, before[index].length - (index === 3 ? 1 : 0))
      assert.equal(result.bytesAfter, after[index].length - (index === 3 ? 1 : 0))
      assert.ok(result.bytesAfter < 6000)
    }
  })

  test('each original is saved whole to a private spill file beside the session, named in the notice', (t) => {
    const dir = tempDir(t)
    const { file } = standardSession(dir)
    const report = repairSessionFile(file, LIMITS)
    const spillDir = `${file}.toolclamp-spill`
    assert.equal(report.results.length, 1)
    const { spillPath } = report.results[0]
    assert.equal(path.dirname(spillPath), spillDir)
    assert.match(path.basename(spillPath), SPILL_NAME)
    assert.ok(path.basename(spillPath).startsWith('bash-'))
    assert.equal(fs.readFileSync(spillPath, 'utf8'), BIG_TEXT)
    assert.equal(mode(spillPath), 0o600)
    assert.equal(mode(spillDir), 0o700)
    const line = fs.readFileSync(file, 'utf8').split('\n')[3]
    assert.ok(textOf(JSON.parse(line).message.content).includes(`full output saved to ${spillPath}`))
    assert.deepEqual(listing(spillDir), [path.basename(spillPath)], 'no temporary file left')
  })

  test('spill.dir chooses where the originals go', (t) => {
    const dir = tempDir(t)
    const { file } = standardSession(dir)
    const spillDir = path.join(dir, 'originals', 'here')
    const report = repairSessionFile(file, { ...LIMITS, spill: { dir: spillDir } })
    assert.equal(path.dirname(report.results[0].spillPath), spillDir)
    assert.equal(fs.readFileSync(report.results[0].spillPath, 'utf8'), BIG_TEXT)
    assert.equal(fs.existsSync(`${file}.toolclamp-spill`), false)
  })

  test('the original is kept as a new private backup beside it; backup: false keeps none', (t) => {
    const dir = tempDir(t)
    const { file, bytes } = standardSession(dir)
    fs.chmodSync(file, 0o640)
    const report = repairSessionFile(file, LIMITS)
    assert.equal(path.dirname(report.backupPath), dir)
    assert.match(path.basename(report.backupPath), /^session\.jsonl\.\d{8}T\d{6}Z-[0-9a-f]{8}\.toolclamp-backup$/)
    assert.ok(fs.readFileSync(report.backupPath).equals(bytes))
    assert.equal(mode(report.backupPath), 0o600)
    assert.equal(mode(file), 0o640, 'the repaired file keeps its permissions')
    // pi lists sessions by their .jsonl name: neither the backup nor the spill directory is one.
    assert.deepEqual(
      listing(dir).filter((name) => name.endsWith('.jsonl')),
      ['session.jsonl'],
    )

    // Another repair (of a new oversized result) makes another backup; the first stays.
    fs.appendFileSync(
      file,
      `${JSON.stringify(messageEntry('e9', 'e7', toolResult('call-9', 'bash', [{ type: 'text', text: BIG_TEXT }])))}\n`,
    )
    const grown = fs.readFileSync(file)
    const again = repairSessionFile(file, LIMITS)
    assert.notEqual(again.backupPath, report.backupPath)
    assert.ok(fs.readFileSync(again.backupPath).equals(grown))
    assert.ok(fs.readFileSync(report.backupPath).equals(bytes))

    const other = tempDir(t)
    const { file: plain } = standardSession(other)
    const none = repairSessionFile(plain, { ...LIMITS, backup: false })
    assert.equal(none.changed, true)
    assert.equal(none.backupPath, null)
    assert.deepEqual(listing(other), ['session.jsonl', 'session.jsonl.toolclamp-spill'])
  })

  test('idempotent: a second run changes nothing and writes nothing', (t) => {
    const dir = tempDir(t)
    const { file } = standardSession(dir)
    assert.equal(repairSessionFile(file, LIMITS).changed, true)
    const bytes = fs.readFileSync(file)
    const stat = fs.statSync(file, { bigint: true })
    const files = listing(dir)
    const spilled = listing(`${file}.toolclamp-spill`)
    const report = repairSessionFile(file, LIMITS)
    assert.deepEqual(report, { changed: false, path: file, backupPath: null, results: [], skipped: [] })
    assert.ok(fs.readFileSync(file).equals(bytes))
    const now = fs.statSync(file, { bigint: true })
    assert.equal(now.ino, stat.ino, 'not replaced')
    assert.equal(now.mtimeNs, stat.mtimeNs)
    assert.deepEqual(listing(dir), files, 'no backup, temporary or lock file')
    assert.deepEqual(listing(`${file}.toolclamp-spill`), spilled, 'no spill file')
  })

  test('a file with nothing to clamp is left alone, and nothing is created', (t) => {
    const dir = tempDir(t)
    const { file, bytes } = writeSession(dir, [HEADER, USER, ASSISTANT, SMALL])
    assert.deepEqual(repairSessionFile(file), {
      changed: false,
      path: file,
      backupPath: null,
      results: [],
      skipped: [],
    })
    assert.ok(fs.readFileSync(file).equals(bytes))
    assert.deepEqual(listing(dir), ['session.jsonl'])
    const empty = writeSession(dir, [], 'empty.jsonl')
    assert.equal(repairSessionFile(empty.file).changed, false)
    assert.equal(fs.readFileSync(empty.file).length, 0)
  })

  test('a torn last line (a crash mid-append) and a malformed middle line are kept as they are', (t) => {
    const dir = tempDir(t)
    // The first 100 KB of an oversized tool result line, as a crash mid-append leaves it.
    const torn = JSON.stringify(BIG).slice(0, 100_000)
    const { file, bytes } = writeSession(dir, [HEADER, USER, ASSISTANT, '{"type":"message","id":"bad",', BIG, [torn, '']])
    const report = repairSessionFile(file, LIMITS)
    assert.deepEqual(
      report.results.map((r) => r.line),
      [5],
    )
    const before = rawLines(bytes)
    const after = rawLines(fs.readFileSync(file))
    assert.equal(after.length, 6)
    assert.ok(after[3].equals(before[3]), 'malformed line kept')
    assert.ok(after[5].equals(before[5]), 'torn line kept whole, with no newline added')
    assert.equal(after[5].toString(), torn)
    // pi reads the file as it did: the torn and malformed lines are skipped, the rest parse.
    assert.deepEqual(
      parseSessionEntries(fs.readFileSync(file, 'utf8')).map((e) => (e.type === 'session' ? e.type : e.id)),
      ['session', 'e1', 'e2', 'e3'],
    )
  })

  test('images are kept; text blocks share one budget and one spill file holds their text', (t) => {
    const dir = tempDir(t)
    const first = numbered(2000, 'stdout')
    const second = numbered(2000, 'stderr')
    const blocks = [
      { type: 'text', text: first },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'text', text: second },
      { type: 'image', data: PNG.repeat(2000), mimeType: 'image/jpeg' },
    ]
    const imagesOnly = messageEntry(
      'e9',
      'e3',
      toolResult('call-4', 'screenshot', [{ type: 'image', data: PNG.repeat(20_000), mimeType: 'image/png' }]),
    )
    const { file, bytes } = writeSession(dir, [
      HEADER,
      USER,
      ASSISTANT,
      messageEntry('e3', 'e2', toolResult('call-1', 'run', blocks)),
      imagesOnly,
    ])
    const report = repairSessionFile(file, LIMITS)
    assert.deepEqual(
      report.results.map((r) => r.line),
      [4],
      'a result of images only has no text to cut',
    )
    const content = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[3]).message.content
    assert.equal(content.length, 4)
    assert.deepEqual(content[1], blocks[1])
    assert.deepEqual(content[3], blocks[3])
    assertFits(textOf(content), LIMITS)
    assert.equal(fs.readFileSync(report.results[0].spillPath, 'utf8'), first + second)
    assert.ok(rawLines(fs.readFileSync(file))[4].equals(rawLines(bytes)[4]))
  })

  test('a crash at any step leaves the original file byte-identical', (t) => {
    const dir = tempDir(t)
    // Replaces one fs function with a SIGKILL of the process, as a power cut or OOM kill
    // would; with CRASH_IF, only a call naming a path that contains it.
    const preload = path.join(dir, 'crash.cjs')
    fs.writeFileSync(
      preload,
      `const fs = require('node:fs')
const real = fs[process.env.CRASH_AT]
const match = process.env.CRASH_IF
fs[process.env.CRASH_AT] = function (...args) {
  if (!match || args.some((arg) => typeof arg === 'string' && arg.includes(match))) process.kill(process.pid, 'SIGKILL')
  return real.apply(this, args)
}
`,
    )
    // The first fsyncSync is of a spill file; the backup is linked once the new file is
    // complete; renameSync is the replacement itself.
    for (const [step, match] of [
      ['fsyncSync', ''],
      ['linkSync', '.toolclamp-backup'],
      ['renameSync', ''],
    ]) {
      const sessionDir = path.join(dir, step)
      fs.mkdirSync(sessionDir)
      const { file, bytes } = standardSession(sessionDir)
      const code = `require(${JSON.stringify(SESSION_MODULE)}).repairSessionFile(${JSON.stringify(file)}, { maxBytes: 4096 })`
      const child = spawnSync(process.execPath, ['--require', preload, '-e', code], {
        env: { ...process.env, CRASH_AT: step, CRASH_IF: match },
        encoding: 'utf8',
      })
      assert.equal(child.signal, 'SIGKILL', `${step}: ${child.stderr}`)
      assert.ok(fs.readFileSync(file).equals(bytes), `${step}: the original is byte-identical`)
      const entries = parseSessionEntries(fs.readFileSync(file, 'utf8'))
      assert.equal(entries.length, 8)
      assert.equal(textOf(entries[3].message.content), BIG_TEXT)
      const leftovers = () => fs.readdirSync(sessionDir).filter((name) => /\.(tmp|journal|lock)$/.test(name))
      assert.equal(leftovers().length, 3, 'the killed run left its lock, new file and journal')
      // Its lock names a dead process: the next repair takes it over, removes what the killed
      // run left, and completes.
      const report = repairSessionFile(file, LIMITS)
      assert.equal(report.changed, true)
      assert.ok(fs.readFileSync(report.backupPath).equals(bytes))
      assert.deepEqual(leftovers(), [])
      assert.equal(listing(`${file}.toolclamp-spill`).length, 1, "the killed run's spill file is removed")
    }
  })

  test('another repair holding the lock: refused, the lock and the file untouched', (t) => {
    const dir = tempDir(t)
    const { file, bytes } = standardSession(dir)
    const lock = `${file}.lock`
    fs.writeFileSync(lock, '4242\n')
    assert.throws(() => repairSessionFile(file, LIMITS), {
      name: 'Error',
      code: 'TOOLCLAMP_SESSION_LOCKED',
      message: `${lock} exists: another process holds the lock on ${file} (pid 4242); if no repair is running, remove ${lock} and try again`,
    })
    assert.equal(fs.readFileSync(lock, 'utf8'), '4242\n')
    assert.ok(fs.readFileSync(file).equals(bytes))
    assert.deepEqual(listing(dir), ['session.jsonl', 'session.jsonl.lock'], 'no spill, backup or temporary file')
    // A proper-lockfile lock (a directory of that name) is honoured too.
    fs.unlinkSync(lock)
    fs.mkdirSync(lock)
    assert.throws(() => repairSessionFile(file, LIMITS), {
      message: `${lock} exists: another process holds the lock on ${file}; if no repair is running, remove ${lock} and try again`,
    })
    fs.rmdirSync(lock)
    assert.equal(repairSessionFile(file, LIMITS).changed, true)
    assert.equal(fs.existsSync(lock), false, 'its own lock is removed when done')
  })

  test('a spill that cannot be written: nothing is rewritten, the lock is released', (t) => {
    const dir = tempDir(t)
    const second = messageEntry('e8', 'e7', toolResult('call-3', 'grep', [{ type: 'text', text: BIG_TEXT }]))
    const { file, bytes } = writeSession(dir, [HEADER, USER, ASSISTANT, BIG, second])
    // The spill directory would have to be made inside a regular file (root can't either).
    const blocker = path.join(dir, 'not-a-dir')
    fs.writeFileSync(blocker, '')
    assert.throws(
      () => repairSessionFile(file, { ...LIMITS, spill: { dir: path.join(blocker, 'spill') } }),
      (error) => {
        assert.equal(error.code, 'TOOLCLAMP_SPILL_FAILED')
        assert.match(
          error.message,
          new RegExp(
            `^could not save the tool result on line 4 of ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} to a spill file \\(ENOTDIR: .*\\); nothing was changed$`,
          ),
        )
        assert.equal(error.cause.code, 'ENOTDIR')
        return true
      },
    )
    assert.ok(fs.readFileSync(file).equals(bytes))
    assert.deepEqual(listing(dir), ['not-a-dir', 'session.jsonl'])

    // The second result's spill fails after the first was written: that one is removed again.
    const spillDir = path.join(dir, 'spill')
    const realOpen = fs.openSync
    let spills = 0
    fs.openSync = function (file, flags, ...rest) {
      if (String(file).startsWith(spillDir) && flags === 'wx' && ++spills === 2) {
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
      }
      return realOpen.call(this, file, flags, ...rest)
    }
    try {
      assert.throws(() => repairSessionFile(file, { ...LIMITS, spill: { dir: spillDir } }), {
        code: 'TOOLCLAMP_SPILL_FAILED',
        message: `could not save the tool result on line 5 of ${file} to a spill file (ENOSPC: no space left on device); nothing was changed`,
      })
    } finally {
      fs.openSync = realOpen
    }
    assert.equal(spills, 2)
    assert.ok(fs.readFileSync(file).equals(bytes))
    assert.deepEqual(listing(spillDir), [], 'the first spill file is removed')
    assert.deepEqual(listing(dir), ['not-a-dir', 'session.jsonl', 'spill'])
  })

  test('pi appending while the repair runs: detected, nothing replaced', (t) => {
    const dir = tempDir(t)
    const { file, bytes } = standardSession(dir)
    const appended = `${JSON.stringify(messageEntry('e8', 'e7', { role: 'user', content: 'next', timestamp: 9 }))}\n`
    // pi appends (appendFileSync) after the file was read, while the repair writes.
    const realFsync = fs.fsyncSync
    fs.fsyncSync = function (fd) {
      fs.fsyncSync = realFsync
      fs.appendFileSync(file, appended)
      return realFsync.call(this, fd)
    }
    try {
      assert.throws(() => repairSessionFile(file, LIMITS), {
        code: 'TOOLCLAMP_SESSION_CHANGED',
        message: `${file} changed while it was being repaired (another process wrote to it); it was not replaced: repair it when the session is not in use`,
      })
    } finally {
      fs.fsyncSync = realFsync
    }
    assert.ok(fs.readFileSync(file).equals(Buffer.concat([bytes, Buffer.from(appended)])), 'the append is there')
    assert.deepEqual(listing(dir), ['session.jsonl', 'session.jsonl.toolclamp-spill'], 'no backup, temporary or lock file')
    assert.deepEqual(listing(`${file}.toolclamp-spill`), [], 'the spill files are removed')
    // Run again when pi is idle: repaired, the appended entry kept.
    const report = repairSessionFile(file, LIMITS)
    assert.equal(report.changed, true)
    assert.equal(fs.readFileSync(file, 'utf8').endsWith(appended), true)
  })

  test('a write landing between the check and the rename is kept in the backup and reported', (t) => {
    for (const backup of [true, false]) {
      const dir = tempDir(t)
      const { file, bytes } = standardSession(dir)
      const appended = `${JSON.stringify(messageEntry('e8', 'e7', { role: 'user', content: 'late', timestamp: 9 }))}\n`
      const realRename = fs.renameSync
      fs.renameSync = function (from, to) {
        fs.appendFileSync(file, appended)
        return realRename.call(this, from, to)
      }
      let thrown
      try {
        repairSessionFile(file, { ...LIMITS, backup })
      } catch (error) {
        thrown = error
      } finally {
        fs.renameSync = realRename
      }
      assert.equal(thrown?.code, 'TOOLCLAMP_SESSION_CHANGED')
      const [backupName] = listing(dir).filter((name) => name.endsWith('.toolclamp-backup'))
      const backupPath = path.join(dir, backupName)
      assert.equal(
        thrown.message,
        `${file} was written to while it was being replaced; the repaired file lacks what was written then, which is in ${backupPath}`,
      )
      assert.ok(fs.readFileSync(backupPath).equals(Buffer.concat([bytes, Buffer.from(appended)])), `backup: ${backup}`)
      assert.equal(mode(backupPath), 0o600)
      // The repaired file is in place, and the lock released.
      const lines = fs.readFileSync(file, 'utf8').split('\n')
      assert.ok(lines[3].length < 6000)
      assert.equal(fs.existsSync(`${file}.lock`), false)
    }
  })

  test('content that is not text and media blocks is left as it is and reported', (t) => {
    const dir = tempDir(t)
    const mixed = messageEntry('m1', 'e2', toolResult('call-5', 'query', [{ type: 'text', text: BIG_TEXT }, `bare ${BIG_TEXT}`]))
    const object = messageEntry('m2', 'm1', toolResult('call-6', 'mcp', { structuredContent: { rows: BIG_TEXT.split('\n') } }))
    const stringContent = messageEntry('m3', 'm2', toolResult('call-7', 'legacy', BIG_TEXT))
    const { file, bytes } = writeSession(dir, [HEADER, mixed, object, stringContent])
    const report = repairSessionFile(file, LIMITS)
    const reason = 'its content is not only text and media blocks, so no spill file would hold all of it'
    assert.deepEqual(report.skipped, [
      { line: 2, toolCallId: 'call-5', toolName: 'query', reason },
      { line: 3, toolCallId: 'call-6', toolName: 'mcp', reason },
    ])
    // A string is text: cut and saved whole.
    assert.deepEqual(
      report.results.map((r) => r.line),
      [4],
    )
    assert.equal(fs.readFileSync(report.results[0].spillPath, 'utf8'), BIG_TEXT)
    const before = rawLines(bytes)
    const after = rawLines(fs.readFileSync(file))
    assert.ok(after[1].equals(before[1]))
    assert.ok(after[2].equals(before[2]))
    assert.deepEqual(listing(`${file}.toolclamp-spill`), [path.basename(report.results[0].spillPath)], 'only the spill of what changed')
    // Skipped results stay skipped: nothing changes the second time.
    assert.equal(repairSessionFile(file, LIMITS).changed, false)
  })

  test('hostile lines: __proto__ keys survive, invalid UTF-8 in a result is not rewritten, deep nesting is kept', (t) => {
    const dir = tempDir(t)
    const proto = `{"type":"message","__proto__":{"polluted":1},"id":"p1","parentId":null,"timestamp":"t","message":{"role":"toolResult","__proto__":{"x":2},"toolCallId":"c","toolName":"bash","content":[{"type":"text","__proto__":{"y":3},"text":${JSON.stringify(BIG_TEXT)}}],"isError":false,"timestamp":1}}`
    const invalid = Buffer.concat([
      Buffer.from(
        `{"type":"message","id":"u1","parentId":null,"timestamp":"t","message":{"role":"toolResult","toolCallId":"c2","toolName":"cat","content":[{"type":"text","text":"`,
      ),
      Buffer.from([0xff]),
      Buffer.from(`${BIG_TEXT.replace(/\n/g, '\\n')}"}],"isError":false,"timestamp":1}}`),
    ])
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`
    const notMessages = '{"type":"message","message":null}\n{"type":"message","message":{"role":"toolResult"}}\n[1,2]\n"text"\nnull'
    const { file, bytes } = writeSession(dir, [HEADER, proto, invalid, deep, notMessages])
    const report = repairSessionFile(file, LIMITS)
    assert.deepEqual(
      report.results.map((r) => r.line),
      [2],
    )
    assert.deepEqual(report.skipped, [
      {
        line: 3,
        toolCallId: 'c2',
        toolName: 'cat',
        reason: 'its line is not valid UTF-8, so it cannot be rewritten byte for byte',
      },
    ])
    const before = rawLines(bytes)
    const after = rawLines(fs.readFileSync(file))
    for (const i of [0, 2, 3, 4, 5, 6, 7, 8]) assert.ok(after[i].equals(before[i]), `line ${i + 1}`)
    const entry = JSON.parse(after[1].toString())
    assert.deepEqual(Object.getOwnPropertyDescriptor(entry, '__proto__').value, { polluted: 1 })
    assert.deepEqual(Object.getOwnPropertyDescriptor(entry.message, '__proto__').value, { x: 2 })
    assert.deepEqual(Object.getOwnPropertyDescriptor(entry.message.content[0], '__proto__').value, { y: 3 })
    assert.equal({}.polluted, undefined)
    assertFits(entry.message.content[0].text, LIMITS)
  })

  test('a symbolic link is repaired where it points and stays a link', (t) => {
    const dir = tempDir(t)
    const { file } = standardSession(dir)
    const link = path.join(dir, 'link.jsonl')
    fs.symlinkSync(file, link)
    const report = repairSessionFile(link, LIMITS)
    assert.equal(report.path, file)
    assert.ok(fs.lstatSync(link).isSymbolicLink())
    assert.ok(fs.readFileSync(file, 'utf8').split('\n')[3].length < 6000)
  })

  test('pi opens the repaired session and sends the clamped result', (t) => {
    const dir = tempDir(t)
    // No compaction on the way: pi sends every message.
    const { file } = writeSession(dir, [HEADER, USER, ASSISTANT, BIG, MODEL_CHANGE, SMALL])
    repairSessionFile(file, { maxLines: 50, maxBytes: 100_000 })
    const manager = SessionManager.open(file, dir)
    const messages = manager.buildSessionContext().messages
    const result = messages.find((m) => m.role === 'toolResult' && m.toolCallId === 'call-1')
    assert.ok(measure(textOf(result.content)).lines <= 50)
    assert.deepEqual(result.content[1], BIG.message.content[1])
    assert.deepEqual(
      manager.getEntries().map((e) => e.id),
      ['e1', 'e2', 'e3', 'e4', 'e5'],
    )
  })

  test('limits: strategy, maxChars and a notice template apply', (t) => {
    const dir = tempDir(t)
    const { file } = standardSession(dir)
    const report = repairSessionFile(file, {
      maxChars: 2000,
      strategy: 'tail',
      notice: '[cut {omittedLines} lines; all in {spillPath}]',
    })
    const text = textOf(JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[3]).message.content)
    assert.ok(text.length <= 2000)
    assert.ok(text.endsWith('build step 30000\n'))
    assert.ok(text.includes(`all in ${report.results[0].spillPath}]`))
  })

  test('a session is read in chunks: lines across them, "\\r\\n" split between them, ends at their edges', (t) => {
    const dir = tempDir(t)
    // The repair reads 1 MiB at a time: lines are laid across and along those edges.
    const M = 1024 * 1024
    const result = (id, text) => messageEntry(id, null, toolResult(`call-${id}`, 'bash', [{ type: 'text', text }]))
    const layout = new Layout()
    layout.add(HEADER)
    layout.add(result('r1', BIG_TEXT))
    layout.padTo(M + 1, '\r\n') // its "\r" is the first chunk's last byte, its "\n" the next one's first
    layout.add(result('r2', BIG_TEXT), '\r\n')
    layout.padTo(2 * M, '\n') // ends with the second chunk
    layout.add(result('r3', numbered(90_000, 'step')), '\r\n') // starts a chunk, and spans two more
    layout.padTo(4 * M + 1, '\n') // its "\n" is a chunk's first byte
    layout.add('', '\n')
    layout.add(result('r4', BIG_TEXT), '\n')
    layout.add('{"type":"message","message":{"role":"toolResult","content":"torn\r', '')
    const file = path.join(dir, 'session.jsonl')
    fs.writeFileSync(file, layout.bytes())
    assert.ok(layout.edges(M).length >= 4, 'lines meet four chunk edges')
    assertRepairedAsWhole(file, LIMITS)
  })

  test('a line longer than maxLineBytes is copied as it is, and reported when it holds a tool result', (t) => {
    const dir = tempDir(t)
    const result = JSON.stringify(BIG).length
    const small = JSON.stringify(SMALL).length
    const M = 1024 * 1024
    // The tool result within one read chunk, or across the edge of two.
    const layouts = {
      within: (layout) => layout.add(HEADER),
      across: (layout) => layout.padTo(M - 1000, '\n'),
    }
    for (const [where, lead] of Object.entries(layouts)) {
      for (const maxLineBytes of [result, result - 1, JSON.stringify(CUSTOM).length - 1, 1]) {
        const layout = new Layout()
        lead(layout)
        // The "\r" of "\r\n" is no part of the line.
        layout.add(BIG, '\r\n')
        layout.add(CUSTOM)
        layout.add(SMALL)
        const file = path.join(dir, `${where}-${maxLineBytes}.jsonl`)
        const bytes = layout.bytes()
        fs.writeFileSync(file, bytes)
        const report = repairSessionFile(file, { ...LIMITS, maxLineBytes, backup: false })
        const over = maxLineBytes < result
        assert.equal(report.changed, !over, `${where} ${maxLineBytes}`)
        // Over the bound, a tool result is reported (SMALL too: its line is not read, so
        // whether it is over the limits is not known); other entries are not.
        const skipped = (line, length) => ({
          line,
          toolCallId: null,
          toolName: null,
          reason: `its line is ${length} bytes, over maxLineBytes (${maxLineBytes}), so it was not read`,
        })
        assert.deepEqual(report.skipped, [...(over ? [skipped(2, result)] : []), ...(small > maxLineBytes ? [skipped(4, small)] : [])])
        if (over) assert.ok(fs.readFileSync(file).equals(bytes))
        else assertRepairedAsWhole(file, LIMITS, maxLineBytes, bytes)
      }
    }
  })

  test('property: each line is kept, clamped or reported as a reading of the whole file says', async (t) => {
    const limits = { maxBytes: 200, maxLines: 8 }
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(fc.constantFrom('line\n', 'ünïcødé ', '😀', '"quoted"\\', '\r\n'), { maxLength: 200 }).map((parts) => parts.join('')),
    )
    const line = fc.oneof(
      text.map((t) => messageEntry('r', null, toolResult('c', 'bash', [{ type: 'text', text: t }]))),
      text.map((t) => ({ type: 'custom', data: t })),
      fc.constantFrom('', 'not json', '{"type":"message"', '{"role":"toolResult"}'),
    )
    const session = fc.record({
      lines: fc.array(fc.tuple(line, fc.constantFrom('\n', '\r\n')), { maxLength: 12 }),
      tail: fc.constantFrom('', '{"type":"message","message":{"role":"toolResult"', 'torn\r'),
      maxLineBytes: fc.option(fc.integer({ min: 1, max: 3000 }), { nil: undefined }),
    })
    const dir = tempDir(t)
    let run = 0
    await fc.assert(
      fc.asyncProperty(session, async ({ lines, tail, maxLineBytes }) => {
        const at = path.join(dir, String(run++))
        fs.mkdirSync(at)
        const { file } = writeSession(at, [...lines, [tail, '']])
        assertRepairedAsWhole(file, limits, maxLineBytes)
        fs.rmSync(at, { recursive: true })
      }),
      { numRuns: Math.max(20, Math.round(RUNS / 100)) },
    )
  })

  test('invalid arguments throw before anything is touched, with exact messages', (t) => {
    const dir = tempDir(t)
    const { file, bytes } = standardSession(dir)
    const cases = [
      [[undefined], TypeError, 'path must be a non-empty string, got undefined'],
      [[''], TypeError, 'path must be a non-empty string, got ""'],
      [[42], TypeError, 'path must be a non-empty string, got 42'],
      [['a\0b'], TypeError, 'path must not contain a NUL character'],
      [[dir], TypeError, `path must name a regular file, got ${JSON.stringify(dir)}`],
      [[file, null], TypeError, 'options must be an object, got null'],
      [[file, 'big'], TypeError, 'options must be an object, got "big"'],
      [[file, { maxbytes: 10 }], TypeError, 'unknown option "maxbytes"; did you mean "maxBytes"?'],
      [[file, { Backup: false }], TypeError, 'unknown option "Backup"; did you mean "backup"?'],
      [[file, { backup: 'no' }], TypeError, 'backup must be true or false, got "no"'],
      [[file, { maxBytes: -1 }], RangeError, 'maxBytes must be a non-negative integer or Infinity, got -1'],
      [[file, { maxLines: '10' }], TypeError, 'maxLines must be a number, got "10"'],
      [[file, { headRatio: 2 }], RangeError, 'headRatio must be a number from 0 to 1, got 2'],
      [[file, { snap: 'word' }], TypeError, 'snap must be "line" or "none", got "word"'],
      [[file, { spill: 'dir' }], TypeError, 'spill must be an object with a dir, got "dir"'],
      [[file, { spill: { dir: '' } }], TypeError, 'spill.dir must be a non-empty string, got ""'],
      [[file, { spill: {} }], TypeError, 'spill.dir must be a non-empty string, got undefined'],
      [[file, { spill: { dir: dir, name: 'x' } }], TypeError, 'unknown option "name"; expected one of dir'],
      [[file, { spill: { Dir: dir } }], TypeError, 'unknown option "Dir"; did you mean "dir"?'],
      [[file, { notice: 42 }], TypeError, 'notice must be a string or a function, got 42'],
      [[file, { maxLineBytes: '1' }], TypeError, 'maxLineBytes must be a number, got "1"'],
      [[file, { maxLineBytes: 0 }], RangeError, `maxLineBytes must be an integer from 1 to ${MAX_STRING_LENGTH}, got 0`],
      [[file, { maxLineBytes: 1.5 }], RangeError, `maxLineBytes must be an integer from 1 to ${MAX_STRING_LENGTH}, got 1.5`],
      [[file, { maxLineBytes: Infinity }], RangeError, `maxLineBytes must be an integer from 1 to ${MAX_STRING_LENGTH}, got Infinity`],
      [[file, { maxLinebytes: 1 }], TypeError, 'unknown option "maxLinebytes"; did you mean "maxLineBytes"?'],
    ]
    for (const [args, type, message] of cases) {
      assert.throws(
        () => repairSessionFile(...args),
        (error) => {
          assert.equal(error.constructor, type, message)
          assert.equal(error.message, message)
          return true
        },
      )
    }
    // A result format is no option here: tool result content is a block list.
    assert.throws(() => repairSessionFile(file, { responseFormat: 'content' }), {
      name: 'TypeError',
      message:
        /^unknown option "responseFormat"; expected one of maxChars, maxBytes, maxLines, .*strategy, headRatio, notice, spill, snap, backup, maxLineBytes$/,
    })
    // A template with an unknown placeholder fails even where nothing would be cut.
    assert.throws(() => repairSessionFile(file, { notice: 'cut {bogus}' }), {
      name: 'TypeError',
      message: /^notice template: unknown placeholder \{bogus\}/,
    })
    assert.throws(() => repairSessionFile(path.join(dir, 'missing.jsonl')), { code: 'ENOENT' })
    assert.ok(fs.readFileSync(file).equals(bytes))
    assert.deepEqual(listing(dir), ['session.jsonl'], 'no lock, spill or backup')
  })
})

// ---- guardSessionManager

describe('guardSessionManager', () => {
  test('a real pi SessionManager persists a tool result within exact tokens, its original spilled once', (t) => {
    const dir = tempDir(t)
    const spillDir = path.join(dir, 'spill')
    const manager = SessionManager.create('/srv/app', dir)
    const limits = { maxTokens: 3000, tokenizer: 'o200k_base', spill: { dir: spillDir } }
    const guarded = guardSessionManager(manager, limits)
    const huge = Array.from({ length: 20_000 }, (_, i) => `${i}\t${(i * 2654435761).toString(36)} 数据\n`).join('')
    const result = deepFreeze(
      toolResult('call-1', 'grep', [
        { type: 'text', text: huge },
        { type: 'text', text: 'exit 0' },
      ]),
    )
    guarded.appendMessage(deepFreeze(structuredClone(ASSISTANT.message)))
    guarded.appendMessage(result)
    const entries = fs
      .readFileSync(guarded.getSessionFile(), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    const { content } = entries.at(-1).message
    const tokens = content.reduce((sum, block) => sum + fastOracle('o200k_base', block.text), 0)
    assert.ok(tokens <= 3000 && tokens > 2500, `${tokens} tokens`)
    const spilled = listing(spillDir)
    assert.equal(spilled.length, 1)
    assert.equal(fs.readFileSync(path.join(spillDir, spilled[0]), 'utf8'), `${huge}exit 0`)
  })

  test('a real pi SessionManager persists a 5 MB tool result clamped, its original in a spill file', (t) => {
    const dir = tempDir(t)
    const spillDir = path.join(dir, 'spill')
    const manager = SessionManager.create('/srv/app', dir)
    const guarded = guardSessionManager(manager, { maxBytes: 8192, maxLines: 200, spill: { dir: spillDir } })
    assert.ok(guarded instanceof SessionManager)
    const huge = numbered(400_000, 'output').slice(0, 5 * 1024 * 1024)
    const user = deepFreeze({ role: 'user', content: [{ type: 'text', text: 'Run it' }], timestamp: 1 })
    const assistant = deepFreeze(structuredClone(ASSISTANT.message))
    const result = deepFreeze(
      toolResult(
        'call-1',
        'bash',
        [
          { type: 'text', text: huge },
          { type: 'image', data: PNG, mimeType: 'image/png' },
        ],
        { details: { truncated: false, fullOutputPath: null } },
      ),
    )
    const ids = [guarded.appendMessage(user), guarded.appendMessage(assistant), guarded.appendMessage(result)]
    assert.ok(ids.every((id) => typeof id === 'string'))

    const file = guarded.getSessionFile()
    assert.equal(file, manager.getSessionFile())
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    assert.equal(lines.length, 5, 'header, three entries, and the final newline')
    assert.equal(lines[4], '')
    const entries = lines.slice(0, 4).map((line) => JSON.parse(line))
    assert.equal(entries[0].type, 'session')
    // The other lines are exactly what pi writes for the messages given.
    for (const [index, message] of [
      [1, user],
      [2, assistant],
    ]) {
      const { type, id, parentId, timestamp } = entries[index]
      assert.equal(lines[index], JSON.stringify({ type, id, parentId, timestamp, message }))
    }
    const persisted = entries[3].message
    const { content, ...rest } = persisted
    const { content: originalContent, ...originalRest } = result
    assert.deepEqual(rest, originalRest, 'every other field kept')
    assertFits(textOf(content), { maxBytes: 8192, maxLines: 200 })
    assert.deepEqual(content[1], originalContent[1], 'the image kept')
    const [spilled] = listing(spillDir)
    assert.match(spilled, SPILL_NAME)
    assert.ok(spilled.startsWith('bash-'), 'named after the tool')
    const spillPath = path.join(spillDir, spilled)
    assert.equal(fs.readFileSync(spillPath, 'utf8'), huge)
    assert.equal(mode(spillPath), 0o600)
    assert.ok(textOf(content).includes(spillPath))
    // The caller's message is untouched (deep-frozen: a write would have thrown) and whole.
    assert.equal(result.content[0].text, huge)
    // pi's own state holds what it persisted, so a reload is the same.
    assert.deepEqual(guarded.getEntries().at(-1).message, persisted)
    const reopened = SessionManager.open(file, dir)
    assert.deepEqual(reopened.buildSessionContext().messages.at(-1), persisted)
  })

  test('other messages, and tool results that fit, pass through as they are', () => {
    const calls = []
    const manager = { appendMessage: (message) => calls.push(message) }
    const guarded = guardSessionManager(manager)
    const user = { role: 'user', content: 'x'.repeat(1_000_000) }
    const custom = { role: 'bashExecution', output: 'y'.repeat(1_000_000) }
    const fits = toolResult('c', 'read', [{ type: 'text', text: 'ok' }])
    const odd = [null, 42, 'text', undefined]
    for (const message of [user, custom, fits, ...odd]) guarded.appendMessage(message)
    assert.deepEqual(calls.length, 7)
    for (const [i, message] of [user, custom, fits, ...odd].entries()) assert.equal(calls[i], message)
  })

  test('the copy keeps every other field, its prototype, getters and non-enumerable properties', () => {
    const calls = []
    const guarded = guardSessionManager({ appendMessage: (message) => calls.push(message) }, { maxLines: 10 })
    class Message {
      get kind() {
        return 'class'
      }
    }
    const message = Object.assign(new Message(), toolResult('c', 'bash', [{ type: 'text', text: numbered(100) }], { custom: { a: [1] } }))
    Object.defineProperty(message, 'hidden', { value: 'secret', enumerable: false })
    Object.defineProperty(message, 'computed', { get: () => 'live', enumerable: true })
    guarded.appendMessage(message)
    const copy = calls[0]
    assert.notEqual(copy, message)
    assert.ok(copy instanceof Message)
    assert.equal(copy.kind, 'class')
    assert.equal(copy.hidden, 'secret')
    assert.equal(Object.getOwnPropertyDescriptor(copy, 'computed').get !== undefined, true)
    assert.deepEqual(Object.keys(copy), Object.keys(message), 'the same keys in the same order')
    assert.equal(copy.custom, message.custom)
    assert.equal(copy.details, message.details)
    assert.ok(measure(textOf(copy.content)).lines <= 10)
    assert.equal(message.content[0].text, numbered(100), 'the original is unchanged')
  })

  test('a class with #private fields keeps working through the guard; the manager is not changed', () => {
    class Manager {
      #entries = []
      #file
      constructor(file) {
        this.#file = file
      }
      appendMessage(message) {
        this.#entries.push(message)
        return `id-${this.#entries.length}`
      }
      getEntries() {
        return this.#entries
      }
      get file() {
        return this.#file
      }
      static isManager(value) {
        return #entries in value
      }
    }
    const manager = new Manager('/s.jsonl')
    const keys = Reflect.ownKeys(manager)
    const guarded = guardSessionManager(manager, { maxLines: 5 })
    assert.equal(guarded.appendMessage(toolResult('c', 'bash', [{ type: 'text', text: numbered(50) }])), 'id-1')
    assert.equal(guarded.appendMessage({ role: 'user', content: 'hi' }), 'id-2')
    assert.equal(guarded.file, '/s.jsonl')
    assert.ok(guarded instanceof Manager)
    assert.equal(guarded.getEntries, guarded.getEntries, 'methods keep their identity')
    const entries = guarded.getEntries()
    assert.equal(entries, manager.getEntries())
    assert.ok(measure(textOf(entries[0].content)).lines <= 5)
    // Writes go to the manager; the manager itself gains no property.
    guarded.label = 'main'
    assert.equal(manager.label, 'main')
    delete manager.label
    assert.deepEqual(Reflect.ownKeys(manager), keys)
    assert.equal(Manager.prototype.appendMessage.call(manager, { role: 'user' }), 'id-3', 'the class is unchanged')
    assert.equal(manager.appendMessage, Manager.prototype.appendMessage)
  })

  test('a frozen manager can be guarded', () => {
    const calls = []
    const manager = Object.freeze({ name: 'frozen', appendMessage: (message) => calls.push(message) })
    const guarded = guardSessionManager(manager, { maxLines: 3 })
    guarded.appendMessage(toolResult('c', 'bash', [{ type: 'text', text: numbered(20) }]))
    assert.ok(measure(textOf(calls[0].content)).lines <= 3)
    assert.equal(guarded.name, 'frozen')
    assert.deepEqual(Object.keys(guarded), ['name', 'appendMessage'])
  })

  test('spill files are named after each tool; onSpill hears of each', (t) => {
    const dir = tempDir(t)
    const reports = []
    const calls = []
    const guarded = guardSessionManager(
      { appendMessage: (message) => calls.push(message) },
      { maxLines: 10, spill: { dir, onSpill: (report) => reports.push(report) } },
    )
    guarded.appendMessage(toolResult('c1', 'read_file', [{ type: 'text', text: numbered(100) }]))
    guarded.appendMessage(toolResult('c2', '../../etc', [{ type: 'text', text: numbered(100) }]))
    guarded.appendMessage(toolResult('c3', undefined, [{ type: 'text', text: numbered(100) }]))
    assert.equal(reports.length, 3)
    const names = reports.map((r) => path.basename(r.path))
    assert.ok(names[0].startsWith('read_file-'))
    assert.ok(names[1].startsWith('_.._etc-'), 'no separator left in the name')
    assert.ok(names[2].startsWith('tool-result-'))
    for (const report of reports) assert.equal(path.dirname(report.path), dir)
    const named = guardSessionManager(
      { appendMessage: (message) => calls.push(message) },
      { maxLines: 10, spill: { dir, name: 'session' } },
    )
    named.appendMessage(toolResult('c4', 'read_file', [{ type: 'text', text: numbered(100) }]))
    assert.equal(listing(dir).filter((name) => name.startsWith('session-')).length, 1)
  })

  test('limits are read once, when the manager is guarded', () => {
    let reads = 0
    const limits = {
      get maxLines() {
        reads++
        return reads === 1 ? 5 : 1_000_000
      },
    }
    const calls = []
    const guarded = guardSessionManager({ appendMessage: (message) => calls.push(message) }, limits)
    for (let i = 0; i < 3; i++) guarded.appendMessage(toolResult('c', 'bash', [{ type: 'text', text: numbered(50) }]))
    assert.equal(reads, 1)
    for (const message of calls) assert.ok(measure(textOf(message.content)).lines <= 5)
  })

  test('hostile messages: an unreadable field is a clear error and nothing is persisted', () => {
    const calls = []
    const guarded = guardSessionManager({ appendMessage: (message) => calls.push(message) }, { maxLines: 5 })
    const throwing = (key) => {
      const message = toolResult('c', 'bash', [{ type: 'text', text: numbered(50) }])
      Object.defineProperty(message, key, {
        enumerable: true,
        get() {
          throw new Error('boom')
        },
      })
      return message
    }
    for (const key of ['role', 'content', 'toolName']) {
      assert.throws(() => guarded.appendMessage(throwing(key)), {
        name: 'TypeError',
        message: `the tool result message cannot be persisted: reading its ${key} threw: boom`,
      })
    }
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    assert.throws(() => guarded.appendMessage(proxy), {
      name: 'TypeError',
      message:
        /^the tool result message cannot be persisted: reading its role threw: Cannot perform 'get' on a proxy that has been revoked$/,
    })
    assert.equal(calls.length, 0)

    // A content getter that answers small, then huge: what is persisted is what was read.
    let reads = 0
    const shifty = toolResult('c', 'bash', [])
    Object.defineProperty(shifty, 'content', {
      enumerable: true,
      get: () => (reads++ === 0 ? [{ type: 'text', text: 'small' }] : [{ type: 'text', text: numbered(5000) }]),
    })
    guarded.appendMessage(shifty)
    assert.equal(calls.length, 1)
    assert.equal(JSON.stringify(calls[0].content), '[{"type":"text","text":"small"}]')
    assert.equal(reads, 1)
  })

  test('invalid arguments throw with exact messages', () => {
    const manager = { appendMessage() {} }
    const cases = [
      [[undefined], TypeError, 'sessionManager must be an object with an appendMessage method, got undefined'],
      [[null], TypeError, 'sessionManager must be an object with an appendMessage method, got null'],
      [[{}], TypeError, 'sessionManager must be an object with an appendMessage method, got an object'],
      [[{ appendMessage: 'no' }], TypeError, 'sessionManager must be an object with an appendMessage method, got an object'],
      [[manager, 5], TypeError, 'limits must be an object, got 5'],
      [[manager, { maxbytes: 1 }], TypeError, 'unknown option "maxbytes"; did you mean "maxBytes"?'],
      [[manager, { maxBytes: 1.5 }], RangeError, 'maxBytes must be a non-negative integer or Infinity, got 1.5'],
      [[manager, { strategy: 'middle' }], TypeError, /^strategy must be "head", .* got "middle"$/],
      [[manager, { spill: { dir: 'spill', bogus: 1 } }], TypeError, 'unknown option "bogus"; expected one of dir, name, onSpill'],
      [[manager, { spill: { dir: 'spill', onSpill: 1 } }], TypeError, 'spill.onSpill must be a function, got 1'],
      [[manager, { spill: {} }], TypeError, 'spill.dir must be a non-empty string, got undefined'],
      [[manager, { spill: { dir: 'spill' }, notice: 42 }], TypeError, 'notice must be a string or a function, got 42'],
      [[manager, { notice: 'cut {bogus}' }], TypeError, /^notice template: unknown placeholder \{bogus\}/],
      [
        [manager, { spill: { dir: 'spill' }, notice: 'cut {bogus} {spillPath}' }],
        TypeError,
        /^notice template: unknown placeholder \{bogus\}/,
      ],
    ]
    for (const [args, type, message] of cases) {
      assert.throws(
        () => guardSessionManager(...args),
        (error) => {
          assert.equal(error.constructor, type, String(message))
          if (typeof message === 'string') assert.equal(error.message, message)
          else assert.match(error.message, message)
          return true
        },
      )
    }
    assert.throws(() => guardSessionManager(manager, { responseFormat: 'content' }), {
      name: 'TypeError',
      message:
        /^unknown option "responseFormat"; expected one of maxChars, maxBytes, maxLines, .*strategy, headRatio, notice, spill, snap$/,
    })
    // A spill notice naming the file is fine.
    guardSessionManager(manager, { spill: { dir: 'spill' }, notice: 'cut; see {spillPath}' })
  })
})
