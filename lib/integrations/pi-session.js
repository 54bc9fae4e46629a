'use strict'

// pi-coding-agent sessions. A session is a JSONL file: a header line, then one entry a
// line, appended by SessionManager with appendFileSync(JSON.stringify(entry) + '\n').
//
// guardSessionManager clamps each tool result message before the manager persists it. It
// takes no lock: pi appends to a session file without one, and a repair notices an append.
//
// repairSessionFile rewrites a session file so no tool result in it exceeds the limits:
//   - the file is read and the new one written a chunk at a time, never whole: memory is
//     bounded by the longest line read whole (maxLineBytes; a longer line is copied as
//     it is, and reported when it seems to hold a tool result);
//   - the text each cut result held is saved whole to a spill file (0600), fsynced, before
//     the file is replaced; if a spill cannot be written, nothing is replaced;
//   - in the lines of clamped results only the cut texts are rewritten (every other value
//     keeps its exact text: ids, usage numbers, timestamps, unknown fields); every other
//     line (the header, other entries, malformed lines, a torn last line) is copied byte
//     for byte, with its line ending;
//   - the new file is written to a temporary file beside it (0600, exclusive), fsynced,
//     renamed over the original, and the directory fsynced: a crash leaves the original or
//     the repaired file, never a mix;
//   - `<file>.lock` keeps two repairs apart; one whose owner is dead is taken over (see
//     "The lock"), and what a killed repair left is finished by the next (see "A repair's
//     files"). pi's SessionManager takes no lock on session files (proper-lockfile guards
//     only its settings and auth files), so the file's identity, size and mtime are compared
//     with what was read just before the rename: a change aborts the repair. The original
//     is hard-linked to the backup name before the rename, so a write landing between that
//     check and the rename is kept in the backup, and reported;
//   - a second run finds nothing to clamp and writes nothing.
//
// fs is called through the module object (fs.renameSync, ...) so tests can fail a step.

const { failure, invalid, mustBe } = require('../common/errors.js')
const fs = require('node:fs')
const path = require('node:path')
const { randomBytes } = require('node:crypto')
const {
  isUtf8,
  constants: { MAX_STRING_LENGTH },
} = require('node:buffer')

const { hardTruncateToolPayload, hardTruncateFailedPayload, PAYLOAD_OPTIONS } = require('../results/payload.js')
const { replaceJsonValue } = require('../json/json.js')
const spills = require('../files/spill.js')
const locks = require('../files/lock.js')
const { TempFile, linkNew, removeQuietly, writeAll } = require('../files/publish.js')
const notices = require('../common/notices.js')
const { messageOf, read, readSafely } = require('../common/format.js')
const { holdsOwn, partsOf, piResultOf, shapeOf, withProperty } = require('../results/shapes.js')
const { checkKeys, isPlainObject, readNotice, readOptionsObject } = require('../common/options.js')

// The payload limits that apply to a tool result message (its content is a block list, so
// responseFormat does not apply).
const LIMIT_OPTIONS = PAYLOAD_OPTIONS.filter((key) => key !== 'responseFormat')
const REPAIR_OPTIONS = [...LIMIT_OPTIONS, 'backup', 'maxLineBytes']
const GUARD_SPILL_KEYS = ['dir', 'name', 'onSpill']
const REPAIR_SPILL_KEYS = ['dir']
const DEFAULT_SPILL_NAME = 'tool-result'
const SPILL_DIR_SUFFIX = '.toolclamp-spill'
const BACKUP_SUFFIX = '.toolclamp-backup'
// A repair reads and writes a session a chunk at a time. A line is read whole (its JSON
// parsed, its text cut and spilled, which takes about five times its size) unless it is
// longer than maxLineBytes: then it is copied as it is, a chunk at a time.
const CHUNK = 1024 * 1024
const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024
// Of a line longer than that, the start searched for a tool result to report.
const HEAD_BYTES = 64 * 1024

/** The name spill files of a tool's results get: the tool name, when it is one. */
function spillName(toolName) {
  return typeof toolName === 'string' && toolName !== '' ? toolName : DEFAULT_SPILL_NAME
}

/**
 * The payload limits of `options` (keys checked), each read once into a plain object that
 * hardTruncateToolPayload takes, and the spill option read once into `spill` (or
 * undefined). Checked in full now, so a bad option fails here and not at the first cut;
 * `spilling` when results are spilled even with no spill option (a default directory).
 */
function readLimitOptions(options, spillKeys, spilling = false) {
  const limits = {}
  for (const key of LIMIT_OPTIONS) {
    if (key === 'spill') continue
    const value = options[key]
    if (value !== undefined) limits[key] = value
  }
  const given = options.spill
  let spill
  if (given !== undefined) {
    if (!isPlainObject(given)) throw mustBe(TypeError, `spill`, `an object with a dir`, given)
    checkKeys(given, spillKeys)
    spill = {}
    for (const key of spillKeys) {
      const value = given[key]
      if (value !== undefined) spill[key] = value
    }
  }
  // The limits as hardTruncateToolPayload reads them (it throws on a bad one); the directory
  // is only named, nothing is written.
  const spilled = spill !== undefined || spilling
  const named = { name: DEFAULT_SPILL_NAME, ...(spill ?? { dir: '.' }) }
  hardTruncateToolPayload('', spilled ? { ...limits, spill: named } : limits)
  // With a spill file the notice is read at the cut, where it may name the file: checked
  // here as it will be filled in.
  const notice = limits.notice
  if (spilled) readNotice(typeof notice === 'string' ? notices.templateWithPath(notice, '/') : notice)
  // Resolved now: the process may change directory before a result is cut.
  if (spill !== undefined) spill.dir = path.resolve(spill.dir)
  return { limits, spill }
}

/** The clamp of a tool result message: a failed one (`isError`) keeps most of its end. */
function clampFor(failed) {
  return failed ? hardTruncateFailedPayload : hardTruncateToolPayload
}

/** `limits` for a result of `toolName`: its spill files are named after the tool. */
function limitsFor({ limits, spill }, toolName, onSpill) {
  if (spill === undefined) return limits
  return {
    ...limits,
    spill: { ...spill, name: spill.name ?? spillName(toolName), ...(onSpill === undefined ? {} : { onSpill }) },
  }
}

// ---------------------------------------------------------------------------------------
// guardSessionManager
// ---------------------------------------------------------------------------------------

function unreadable(key, error) {
  const message = `the tool result message cannot be persisted: reading its ${key} threw: ${messageOf(error)}`
  return failure(TypeError, message, 'TOOLCLAMP_INVALID_ARGUMENT', { cause: error })
}

/** `message[key]`, or a clear error saying which field could not be read. */
function readField(message, key) {
  return readSafely(message, key, (error) => {
    throw unreadable(key, error)
  })
}

/**
 * The message to persist: a tool result's copy with its content clamped, or the message
 * itself (any other message, or a tool result that fits). Each field is read once; one
 * that cannot be read is an error, never a result persisted unclamped. A copy keeps every
 * other own property (getters, non-enumerable ones) and the prototype, so it serializes as
 * the original does but for its content.
 */
function guardMessage(message, options) {
  const result = piResultOf(message, readField)
  if (result === undefined) return message
  const { content, toolName, failed } = result
  const clamped = clampFor(failed)(content, limitsFor(options, toolName))
  // A content getter could answer differently when the manager serializes it: the copy
  // holds the value read here.
  if (clamped === content && holdsOwn(message, 'content', content)) return message
  return withProperty(message, 'content', clamped, (error) => {
    throw unreadable('properties', error)
  })
}

/**
 * A manager like `sessionManager` whose appendMessage clamps tool results first. Neither
 * the manager nor the messages are changed. Every other property is the manager's: read
 * from it, written to it, and its methods run on it (bound), so classes with #private
 * fields work; `instanceof` sees its class. The proxy's target is an empty object, so a
 * frozen manager can be guarded too.
 */
function guardSessionManager(sessionManager, limits) {
  const append = typeof sessionManager === 'object' && sessionManager !== null ? read(sessionManager, 'appendMessage') : undefined
  if (typeof append !== 'function') {
    throw mustBe(TypeError, `sessionManager`, `an object with an appendMessage method`, sessionManager)
  }
  if (limits !== undefined) {
    if (!isPlainObject(limits)) throw mustBe(TypeError, `limits`, `an object`, limits)
    checkKeys(limits, LIMIT_OPTIONS)
  }
  const options = readLimitOptions(limits ?? {}, GUARD_SPILL_KEYS)
  const manager = sessionManager
  const bound = new WeakMap()
  function appendMessage(message) {
    const persisted = guardMessage(message, options)
    // The manager's appendMessage as it is now (a subclass's, or one replaced since).
    return Reflect.apply(manager.appendMessage, manager, [persisted])
  }
  const methodOf = (value) => {
    let method = bound.get(value)
    if (method === undefined) {
      method = value.bind(manager)
      bound.set(value, method)
    }
    return method
  }
  return new Proxy(Object.create(null), {
    get(_, key) {
      if (key === 'appendMessage') return appendMessage
      const value = Reflect.get(manager, key, manager)
      return typeof value === 'function' && key !== 'constructor' ? methodOf(value) : value
    },
    set: (_, key, value) => Reflect.set(manager, key, value, manager),
    has: (_, key) => Reflect.has(manager, key),
    deleteProperty: (_, key) => Reflect.deleteProperty(manager, key),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(manager, key, descriptor),
    ownKeys: () => Reflect.ownKeys(manager),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(manager, key)
      // The target has no such property: a proxy may not report it non-configurable.
      if (descriptor !== undefined) descriptor.configurable = true
      return descriptor
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(manager),
    setPrototypeOf: (_, prototype) => Reflect.setPrototypeOf(manager, prototype),
    preventExtensions: () => false,
  })
}

// ---------------------------------------------------------------------------------------
// repairSessionFile
// ---------------------------------------------------------------------------------------

function sessionError(message, code, cause) {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code })
}

function readBackup(value) {
  if (value === undefined) return true
  if (typeof value !== 'boolean') throw mustBe(TypeError, `backup`, `true or false`, value)
  return value
}

function stamp() {
  const iso = new Date().toISOString() // 2025-06-01T10:00:00.000Z
  return iso.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
}

// ---- The lock
//
// `<file>.lock` (lib/files/lock.js) keeps two repairs of a file apart; the lock id names the
// repair's own files too. A lock whose owner is dead is taken over; one that cannot be
// judged dead is refused, naming its holder.

/** Takes `<file>.lock` for the repair `id`, or throws saying who holds it. */
function takeLock(file, id) {
  const { lock, holder } = locks.takeLock(file, id)
  if (holder !== null) {
    throw sessionError(
      `${lock} exists: another process holds the lock on ${file}${locks.holderText(holder)}; if no repair is running, remove ${lock} and try again`,
      'TOOLCLAMP_SESSION_LOCKED',
    )
  }
  return lock
}

/** Whether two stats (bigint) are of the same file with the same size and mtime. */
function sameFile(a, b) {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs
}

function changedError(file) {
  return sessionError(
    `${file} changed while it was being repaired (another process wrote to it); it was not replaced: repair it when the session is not in use`,
    'TOOLCLAMP_SESSION_CHANGED',
  )
}

/**
 * The lines of the first `size` bytes of the file open at `fd`, read CHUNK bytes at a time
 * (never the whole file), each as `{ index, offset, data, line }`: `line` ({ start, end },
 * without its "\n" or "\r\n", which stays outside and so is kept when a line is replaced)
 * is a range of `data`, whose first byte is at `offset` in the file. `data` holds until the
 * next line is asked for (it may be the read buffer). A line longer than `maxLineBytes` (its
 * ending aside) is not kept whole: it comes with `data` undefined, its `length` (its ending
 * aside) and its first HEAD_BYTES in `head`.
 * The last line may have no ending. A file shorter than `size` has changed: an error.
 */
function* readLines(fd, size, maxLineBytes, file) {
  const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, size)))
  let pieces = [] // the line so far (copies), when it started in an earlier chunk
  let length = 0
  let head // set once the line is over maxLineBytes; pieces are then dropped
  let last = -1 // its last byte
  let start = 0 // where it starts in the file
  let index = 0
  const take = (piece) => {
    // One byte past the bound is kept: it may be the "\r" of the line's ending.
    if (head === undefined && length + piece.length > maxLineBytes + 1) {
      head = Buffer.concat([...pieces, piece], Math.min(HEAD_BYTES, length + piece.length))
      pieces = []
    } else if (head === undefined) {
      pieces.push(Buffer.from(piece)) // a copy: the chunk is read into again
    }
    length += piece.length
    if (piece.length > 0) last = piece[piece.length - 1]
  }
  const finish = (ended) => {
    const bytes = length - (ended && length > 0 && last === 0x0d ? 1 : 0)
    let line
    if (head === undefined && bytes <= maxLineBytes) {
      line = { index, offset: start, data: Buffer.concat(pieces, length), line: { start: 0, end: bytes } }
    } else {
      const first = head ?? Buffer.concat(pieces).subarray(0, HEAD_BYTES)
      line = { index, offset: start, data: undefined, length: bytes, head: first }
    }
    index++
    pieces = []
    length = 0
    head = undefined
    last = -1
    return line
  }
  for (let at = 0; at < size; ) {
    const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, size - at), at)
    if (n === 0) throw changedError(file)
    for (let from = 0; from < n; ) {
      const found = chunk.indexOf(0x0a, from)
      const ended = found !== -1 && found < n
      const end = ended ? found : n
      const cr = ended && end > from && chunk[end - 1] === 0x0d ? 1 : 0
      if (ended && length === 0 && end - cr - from <= maxLineBytes) {
        // The whole line is in this chunk (the common case): given where it lies.
        yield { index: index++, offset: at, data: chunk, line: { start: from, end: end - cr } }
      } else {
        take(chunk.subarray(from, end))
        if (ended) yield finish(true)
      }
      if (ended) start = at + end + 1
      from = end + 1
    }
    at += n
  }
  if (length > 0) yield finish(false)
}

/** Copies bytes [from, to) of the file open at `fd` to the repair's new file. */
function copyRange(work, fd, from, to) {
  work.buffer ??= Buffer.allocUnsafe(CHUNK)
  for (let at = from; at < to; ) {
    const n = fs.readSync(fd, work.buffer, 0, Math.min(CHUNK, to - at), at)
    if (n === 0) throw changedError(work.file)
    work.out.write(work.buffer.subarray(0, n))
    at += n
  }
}

/** The parsed entry of a line holding a tool result message, or undefined. */
function toolResultEntry(data, line) {
  if (line.end === line.start) return undefined
  let entry
  try {
    entry = JSON.parse(data.toString('utf8', line.start, line.end))
  } catch {
    // Malformed, or torn by a crash mid-append: kept as it is.
    return undefined
  }
  if (!isPlainObject(entry) || entry.type !== 'message') return undefined
  const message = entry.message
  if (!isPlainObject(message) || piResultOf(message) === undefined) return undefined
  return entry
}

/**
 * The text the clamp saved to its spill file when it changed `before` into `after` in no
 * other way than by cutting text (a string, or the text blocks of a list: their texts
 * joined); undefined when it changed anything else (data among the blocks, cut as JSON,
 * which no spill file holds). Both are read through the one visitor (shapes.js).
 */
function spilledText(before, after) {
  const shape = shapeOf(before).shape
  if ((shape !== 'string' && shape !== 'blocks') || shapeOf(after).shape !== shape) return undefined
  const was = partsOf(before)
  const now = partsOf(after)
  if (was.length !== now.length) return undefined
  let text = ''
  for (let i = 0; i < was.length; i++) {
    const [kind, part] = was[i]
    const cut = kind === 'text' || shape === 'string'
    if (now[i][0] !== kind || (!cut && now[i][1] !== part)) return undefined
    if (cut) text += part
  }
  return text
}

/**
 * A line too long to be read whole (over maxLineBytes) is copied as it is; if it seems to
 * hold a tool result (its start names one), it is reported.
 */
function unreadLine(index, length, head, maxLineBytes) {
  if (!head.includes('"toolResult"')) return undefined
  return {
    line: index + 1,
    toolCallId: null,
    toolName: null,
    reason: `its line is ${length} bytes, over maxLineBytes (${maxLineBytes}), so it was not read`,
  }
}

/**
 * Clamps the tool results of the session open at `fd` (its first `size` bytes), a line at a
 * time, spilling each cut text. Each change (a clamped line's new bytes, and the range of
 * the file they replace) goes to `change` as it is found. Returns the results left as they
 * were; the spill files written go to `written` as they are made (to be removed if the
 * repair stops).
 */
function planRepair(file, fd, size, options, written, change) {
  const skipped = []
  for (const { index, offset, data, line, length, head } of readLines(fd, size, options.maxLineBytes, file)) {
    if (data === undefined) {
      const skip = unreadLine(index, length, head, options.maxLineBytes)
      if (skip !== undefined) skipped.push(skip)
      continue
    }
    const entry = toolResultEntry(data, line)
    if (entry === undefined) continue
    const message = entry.message
    const { content, toolName, failed: isError } = piResultOf(message)
    const toolCallId = message.toolCallId
    const reports = []
    const clamped = clampFor(isError)(
      content,
      limitsFor(options, toolName, (report) => reports.push(report)),
    )
    for (const report of reports) if (report.path !== null) written.push(report.path)
    if (clamped === content) continue
    const about = {
      line: index + 1,
      toolCallId: typeof toolCallId === 'string' ? toolCallId : null,
      toolName: typeof toolName === 'string' ? toolName : null,
    }
    const failed = reports.find((report) => report.path === null)
    if (failed !== undefined) {
      throw sessionError(
        `could not save the tool result on line ${about.line} of ${file} to a spill file (${messageOf(failed.error)}); nothing was changed`,
        'TOOLCLAMP_SPILL_FAILED',
        failed.error,
      )
    }
    const text = spilledText(content, clamped)
    const saved = reports.length === 1 ? reports[0].path : undefined
    if (text === undefined || saved === undefined || fs.statSync(saved).size !== Buffer.byteLength(text)) {
      skipped.push({
        ...about,
        reason: 'its content is not only text and media blocks, so no spill file would hold all of it',
      })
      continue
    }
    if (!isUtf8(data.subarray(line.start, line.end))) {
      skipped.push({ ...about, reason: 'its line is not valid UTF-8, so it cannot be rewritten byte for byte' })
      continue
    }
    // Only the cut texts are written anew: every other byte of the line stays as it was.
    const original = data.toString('utf8', line.start, line.end)
    const bytes = Buffer.from(replaceJsonValue(original, ['message', 'content'], content, clamped))
    change({
      start: offset + line.start,
      end: offset + line.end,
      bytes,
      result: { ...about, bytesBefore: line.end - line.start, bytesAfter: bytes.length, spillPath: saved },
    })
  }
  return skipped
}

/** A new name for a backup of `file`, beside it. */
function backupName(file) {
  return `${file}.${stamp()}-${randomBytes(4).toString('hex')}${BACKUP_SUFFIX}`
}

/**
 * Gives the file `file` is now a second name, `backup`, failing rather than replacing a
 * file. A hard link keeps the original inode, so a write landing in it after the check is
 * kept too; where there are no links, an exclusive copy.
 */
function linkBackup(file, backup) {
  return { path: backup, linked: linkNew(file, backup) }
}

/** maxLineBytes: the longest line read whole (see DEFAULT_MAX_LINE_BYTES). */
function readMaxLineBytes(value) {
  if (value === undefined) return DEFAULT_MAX_LINE_BYTES
  if (typeof value !== 'number') throw mustBe(TypeError, `maxLineBytes`, `a number`, value)
  if (!Number.isInteger(value) || value < 1 || value > MAX_STRING_LENGTH) {
    throw mustBe(RangeError, `maxLineBytes`, `an integer from 1 to ${MAX_STRING_LENGTH}`, value)
  }
  return value
}

/**
 * Rewrites the pi session file at `file` so no tool result in it exceeds the limits.
 * Returns `{ changed, path, backupPath, results, skipped }`.
 */
function repairSessionFile(file, options) {
  if (typeof file !== 'string' || file === '') {
    throw mustBe(TypeError, `path`, `a non-empty string`, file)
  }
  if (file.includes('\0')) throw invalid(TypeError, 'path must not contain a NUL character')
  // Every option is checked before anything is touched.
  const given = readOptionsObject(options, REPAIR_OPTIONS, true)
  const backup = readBackup(given.backup)
  const maxLineBytes = readMaxLineBytes(given.maxLineBytes)
  const { limits, spill } = readLimitOptions(given, REPAIR_SPILL_KEYS, true)
  // A symbolic link is repaired where it points; the link stays a link.
  const real = fs.realpathSync(path.resolve(file))
  if (!fs.statSync(real).isFile()) throw invalid(TypeError, `path must name a regular file, got ${JSON.stringify(file)}`)
  const id = randomBytes(4).toString('hex')
  const lock = takeLock(real, id)
  try {
    removeLeftovers(real, id)
    const spillTo = spill ?? { dir: `${real}${SPILL_DIR_SUFFIX}` }
    return repairLocked(startWork(real, id), { limits, spill: spillTo, maxLineBytes }, backup)
  } finally {
    locks.releaseLock(lock, id)
  }
}

// ---- A repair's files, and those a killed repair left
//
// A repair's own files are named after its lock id: its new file `.<name>.toolclamp-<id>.tmp`
// and its journal `.<name>.toolclamp-<id>.journal`, both beside the session file. Both are
// made before its first spill file, the new file first. The journal gets each spill file's
// path, and the backup's, before that file is made, and is removed last: once the new file
// is published (renamed over the session file) and the backup settled, or once all else
// was removed. So the next repair, holding the lock, finds a killed repair by its leftover
// journal or new file and knows whether it published: its new file is still there exactly
// when it did not. Then its spill files and backup hold nothing the session file lacks:
// removed, the new file last. Published, they are the session's: the backup is settled as
// that repair asked, and the journal removed.
// The journal is not fsynced entry by entry (a sync per spill file would cost more than
// the repair): after a power cut, a spill file it lost is left to pruneSpillDir.

const WORK_FILE = /^([0-9a-f]{8})\.(?:tmp|journal)$/
const BACKUP_NAME = /^\d{8}T\d{6}Z-[0-9a-f]{8}\.toolclamp-backup$/

function workPaths(file, id) {
  const base = path.join(path.dirname(file), `.${path.basename(file)}.toolclamp-${id}`)
  return { temp: `${base}.tmp`, journal: `${base}.journal` }
}

/**
 * A repair of `file`: its files' paths and descriptors (undefined until made, null once
 * closed), how far the original is copied, the spill files it was to write, its backup.
 */
function startWork(file, id) {
  return {
    file,
    ...workPaths(file, id),
    out: undefined,
    log: undefined,
    buffer: undefined,
    copied: 0,
    spilled: [],
    backup: undefined,
    published: false,
  }
}

/** Makes the new file and the journal, in that order (see above). */
function begin(work) {
  work.out = new TempFile(work.file, work.temp)
  work.log = fs.openSync(work.journal, 'wx', 0o600)
}

/** Records `entry` in the journal, before the file it names is made. */
function note(work, entry) {
  if (work.log === undefined) begin(work)
  writeAll(work.log, Buffer.from(`${JSON.stringify(entry)}\n`))
}

/** Writes the original up to a change, then the change. */
function writeChange(work, fd, change) {
  if (work.out === undefined) begin(work)
  copyRange(work, fd, work.copied, change.start)
  work.out.write(change.bytes)
  work.copied = change.end
}

/** The rest of the original; the original's permissions and, where allowed, its owner; synced. */
function completeNewFile(work, fd, size, before) {
  copyRange(work, fd, work.copied, size)
  fs.fchmodSync(work.out.fd, Number(before.mode) & 0o7777)
  try {
    fs.fchownSync(work.out.fd, Number(before.uid), Number(before.gid))
  } catch {
    // Only a privileged process may give a file away; ours is the user's own anyway.
  }
  work.out.finish()
}

function closeQuietly(work, key) {
  const fd = work[key]
  if (fd instanceof TempFile) {
    fd.close()
    return
  }
  if (typeof fd !== 'number') return
  work[key] = null
  try {
    fs.closeSync(fd)
  } catch {
    // Closing fails only for a descriptor already closed.
  }
}

/** Removes all a repair that did not publish made: spill files, backup, journal, new file. */
function abandon(work) {
  closeQuietly(work, 'out')
  closeQuietly(work, 'log')
  for (const spilled of work.spilled) removeQuietly(spilled)
  if (work.backup !== undefined) removeQuietly(work.backup.path)
  removeQuietly(work.journal)
  removeQuietly(work.temp)
}

/** The entries of a journal; a torn last line (a repair killed mid-write) is left out. */
function readJournal(journal) {
  let text
  try {
    text = fs.readFileSync(journal, 'utf8')
  } catch {
    return []
  }
  const entries = []
  for (const line of text.split('\n')) {
    try {
      const entry = JSON.parse(line)
      if (isPlainObject(entry)) entries.push(entry)
    } catch {
      // The torn last line, or the empty one after the last "\n".
    }
  }
  return entries
}

/** The spill files and backup a journal names: only paths with such files' names. */
function journalFiles(file, entries) {
  const spilled = []
  let backup
  for (const entry of entries) {
    const { spill, backup: named } = entry
    if (typeof spill === 'string' && path.isAbsolute(spill) && spills.isSpillName(path.basename(spill))) {
      spilled.push(spill)
    }
    if (typeof named === 'string' && named.startsWith(`${file}.`) && BACKUP_NAME.test(named.slice(file.length + 1))) {
      backup = entry
    }
  }
  return { spilled, backup }
}

/**
 * A published repair's backup as it asked: kept private, or removed, unless a write landed
 * in it between that repair's check and its rename (then it alone holds that write).
 */
function settleBackup({ backup, keep, size, mtimeNs }) {
  let stat
  try {
    stat = fs.statSync(backup, { bigint: true })
  } catch {
    return
  }
  if (keep === false && String(stat.size) === size && String(stat.mtimeNs) === mtimeNs) {
    removeQuietly(backup)
    return
  }
  try {
    fs.chmodSync(backup, 0o600)
  } catch {
    // Kept as it is.
  }
}

/** Finishes what the killed repair `id` of `file` left (see above). */
function finishKilled(file, id) {
  const { temp, journal } = workPaths(file, id)
  const { spilled, backup } = journalFiles(file, readJournal(journal))
  if (fs.existsSync(temp)) {
    // Only the last spill file can have been in the middle of its write.
    for (const [i, spill] of spilled.entries()) {
      if (i === spilled.length - 1) spills.removeSpill(spill)
      else removeQuietly(spill)
    }
    if (backup !== undefined) removeQuietly(backup.backup)
    removeQuietly(journal)
    removeQuietly(temp)
  } else {
    if (backup !== undefined) settleBackup(backup)
    removeQuietly(journal)
  }
}

/** The id in `name` when it is `prefix`, then what `pattern` matches; else undefined. */
function idAfter(name, prefix, pattern) {
  return name.startsWith(prefix) ? pattern.exec(name.slice(prefix.length))?.[1] : undefined
}

/**
 * Removes what killed repairs of `file`, and killed takers of its lock, left beside it.
 * Called holding the lock (repair `id`'s), so none of it is in use.
 */
function removeLeftovers(file, id) {
  const dir = path.dirname(file)
  const base = path.basename(file)
  let names
  try {
    names = fs.readdirSync(dir)
  } catch {
    return
  }
  const killed = new Set()
  for (const name of names) {
    const repair = idAfter(name, `.${base}.toolclamp-`, WORK_FILE)
    if (repair !== undefined && repair !== id) killed.add(repair)
    // Claims on a lock that is gone, and the records of takers that lost it or were killed.
    const taker = locks.takerOf(name, base)
    if (taker !== undefined && taker !== id) removeQuietly(path.join(dir, name))
  }
  for (const other of killed) finishKilled(file, other)
}

/** Copies all of the file open at `fd` to `to`, a chunk at a time. */
function copyOut(fd, to) {
  const out = fs.openSync(to, 'w', 0o600)
  const buffer = Buffer.allocUnsafe(CHUNK)
  try {
    for (let at = 0, n; (n = fs.readSync(fd, buffer, 0, CHUNK, at)) > 0; at += n) writeAll(out, buffer.subarray(0, n))
  } finally {
    fs.closeSync(out)
  }
}

/**
 * Backs the original up, checks it is as it was read, and renames the complete new file
 * over it; then settles the backup and removes the journal.
 */
function publish(work, fd, before, keepBackup, report) {
  const file = work.file
  const backup = backupName(file)
  note(work, { backup, keep: keepBackup, size: String(before.size), mtimeNs: String(before.mtimeNs) })
  work.backup = linkBackup(file, backup)
  if (!sameFile(before, fs.statSync(file, { bigint: true }))) throw changedError(file)
  try {
    try {
      work.out.replace()
    } finally {
      // Renamed over the original, even if the directory's fsync then failed.
      work.published = work.out.published
    }
    // Written between the check and the rename: kept in the backup, which stays.
    const after = fs.fstatSync(fd, { bigint: true })
    if (after.size !== before.size || after.mtimeNs !== before.mtimeNs) {
      if (!work.backup.linked) copyOut(fd, backup)
      fs.chmodSync(backup, 0o600)
      throw sessionError(
        `${file} was written to while it was being replaced; the repaired file lacks what was written then, which is in ${backup}`,
        'TOOLCLAMP_SESSION_CHANGED',
      )
    }
    if (keepBackup) {
      // The old file is the backup's alone now: private.
      fs.chmodSync(backup, 0o600)
      report.backupPath = backup
    } else {
      fs.unlinkSync(backup)
    }
  } finally {
    // Not published: abandon() removes the journal last but for the new file.
    if (work.published) {
      closeQuietly(work, 'log')
      removeQuietly(work.journal)
    }
  }
}

function repairLocked(work, options, keepBackup) {
  const file = work.file
  // Each spill file is in the journal before it is made.
  const beforeWrite = (spilled) => {
    note(work, { spill: spilled })
    work.spilled.push(spilled)
  }
  options.spill = { ...options.spill, [spills.BEFORE_WRITE]: beforeWrite }
  const fd = fs.openSync(file, 'r')
  const written = []
  try {
    const before = fs.fstatSync(fd, { bigint: true })
    const size = Number(before.size)
    const results = []
    const skipped = planRepair(file, fd, size, options, written, (change) => {
      writeChange(work, fd, change)
      results.push(change.result)
    })
    // One byte more means it grew while being read.
    if (fs.readSync(fd, Buffer.alloc(1), 0, 1, size) !== 0) throw changedError(file)
    const report = { changed: results.length > 0, path: file, backupPath: null, results, skipped }
    if (!report.changed) {
      // Spill files of results that were not rewritten hold nothing the file lacks.
      abandon(work)
      return report
    }
    const kept = new Set(results.map((result) => result.spillPath))
    for (const spilled of written) if (!kept.has(spilled)) removeQuietly(spilled)
    // The originals are on disk before the file that no longer holds them: each spill file
    // was published whole (fsynced, and its directory).
    completeNewFile(work, fd, size, before)
    publish(work, fd, before, keepBackup, report)
    return report
  } catch (error) {
    // Nothing was replaced: what the repair made holds nothing the file lacks.
    if (!work.published) abandon(work)
    throw error
  } finally {
    closeQuietly(work, 'out')
    closeQuietly(work, 'log')
    fs.closeSync(fd)
  }
}

module.exports = {
  guardSessionManager,
  repairSessionFile,
}
