'use strict'

// pi-coding-agent sessions. A session is a JSONL file: a header line, then one entry a
// line, appended by SessionManager with appendFileSync(JSON.stringify(entry) + '\n').
//
// guardSessionManager clamps each tool result message before the manager persists it.
//
// repairSessionFile rewrites a session file so no tool result in it exceeds the limits:
//   - the text each cut result held is saved whole to a spill file (0600), fsynced, before
//     anything is rewritten; if a spill cannot be written, nothing is rewritten;
//   - in the lines of clamped results only the cut texts are rewritten (every other value
//     keeps its exact text: ids, usage numbers, timestamps, unknown fields); every other
//     line (the header, other entries, malformed lines, a torn last line) is copied byte
//     for byte, with its line ending;
//   - the new file is written to a temporary file beside it (0600, exclusive), fsynced,
//     renamed over the original, and the directory fsynced: a crash leaves the original or
//     the repaired file, never a mix;
//   - `<file>.lock` (created exclusively) keeps two repairs apart. pi's SessionManager takes
//     no lock on session files (proper-lockfile guards only its settings and auth files), so
//     the file's identity, size and mtime are compared with what was read just before the
//     rename: a change aborts the repair. The original is hard-linked to the backup name
//     before the rename, so a write landing between that check and the rename is kept in
//     the backup, and reported;
//   - a second run finds nothing to clamp and writes nothing.
//
// fs is called through the module object (fs.renameSync, ...) so tests can fail a step.

const fs = require('node:fs')
const path = require('node:path')
const { randomBytes } = require('node:crypto')
const { isUtf8 } = require('node:buffer')

const { hardTruncateToolPayload, PAYLOAD_OPTIONS } = require('./payload.js')
const { replaceJsonValue } = require('./json.js')
const spills = require('./spill.js')
const { describe, isArray, messageOf } = require('./format.js')
const { checkKeys, isPlainObject, readNotice, readOptionsObject } = require('./options.js')

// The payload limits that apply to a tool result message (its content is a block list, so
// responseFormat does not apply).
const LIMIT_OPTIONS = PAYLOAD_OPTIONS.filter((key) => key !== 'responseFormat')
const REPAIR_OPTIONS = [...LIMIT_OPTIONS, 'backup']
const GUARD_SPILL_KEYS = ['dir', 'name', 'onSpill']
const REPAIR_SPILL_KEYS = ['dir']
const DEFAULT_SPILL_NAME = 'tool-result'
const SPILL_DIR_SUFFIX = '.toolclamp-spill'
const BACKUP_SUFFIX = '.toolclamp-backup'

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
    if (!isPlainObject(given)) throw new TypeError(`spill must be an object with a dir, got ${describe(given)}`)
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
  if (spilled) readNotice(typeof notice === 'string' ? spills.templateWithPath(notice, '/') : notice)
  // Resolved now: the process may change directory before a result is cut.
  if (spill !== undefined) spill.dir = path.resolve(spill.dir)
  return { limits, spill }
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
  return new TypeError(`the tool result message cannot be persisted: reading its ${key} threw: ${messageOf(error)}`, {
    cause: error,
  })
}

/** `message[key]`, or a clear error saying which field could not be read. */
function readField(message, key) {
  try {
    return message[key]
  } catch (error) {
    throw unreadable(key, error)
  }
}

/** Whether `message.content` is an own data property holding `content` (no getter to ask again). */
function holdsContent(message, content) {
  try {
    const descriptor = Object.getOwnPropertyDescriptor(message, 'content')
    return descriptor !== undefined && 'value' in descriptor && descriptor.value === content
  } catch {
    return false
  }
}

/**
 * A copy of `message` with `content`: every other own property (getters, non-enumerable
 * ones) and the prototype kept, so it serializes as the original does but for its content.
 */
function withContent(message, content) {
  let descriptors
  let prototype
  try {
    descriptors = Object.getOwnPropertyDescriptors(message)
    prototype = Object.getPrototypeOf(message)
  } catch (error) {
    throw unreadable('properties', error)
  }
  descriptors.content = { value: content, writable: true, enumerable: true, configurable: true }
  return Object.create(prototype, descriptors)
}

/**
 * The message to persist: a tool result's copy with its content clamped, or the message
 * itself (any other message, or a tool result that fits). Each field is read once; one
 * that cannot be read is an error, never a result persisted unclamped.
 */
function guardMessage(message, options) {
  if (typeof message !== 'object' || message === null) return message
  if (readField(message, 'role') !== 'toolResult') return message
  const content = readField(message, 'content')
  const toolName = readField(message, 'toolName')
  const clamped = hardTruncateToolPayload(content, limitsFor(options, toolName))
  // A content getter could answer differently when the manager serializes it: the copy
  // holds the value read here.
  if (clamped === content && holdsContent(message, content)) return message
  return withContent(message, clamped)
}

/** `object[key]`, undefined when reading throws. */
function readOrUndefined(object, key) {
  try {
    return object[key]
  } catch {
    return undefined
  }
}

/**
 * A manager like `sessionManager` whose appendMessage clamps tool results first. Neither
 * the manager nor the messages are changed. Every other property is the manager's: read
 * from it, written to it, and its methods run on it (bound), so classes with #private
 * fields work; `instanceof` sees its class. The proxy's target is an empty object, so a
 * frozen manager can be guarded too.
 */
function guardSessionManager(sessionManager, limits) {
  const append =
    typeof sessionManager === 'object' && sessionManager !== null
      ? readOrUndefined(sessionManager, 'appendMessage')
      : undefined
  if (typeof append !== 'function') {
    throw new TypeError(
      `sessionManager must be an object with an appendMessage method, got ${describe(sessionManager)}`,
    )
  }
  if (limits !== undefined) {
    if (!isPlainObject(limits)) throw new TypeError(`limits must be an object, got ${describe(limits)}`)
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
  if (typeof value !== 'boolean') throw new TypeError(`backup must be true or false, got ${describe(value)}`)
  return value
}

function stamp() {
  const iso = new Date().toISOString() // 2025-06-01T10:00:00.000Z
  return iso.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
}

/** Takes `<file>.lock`, or throws saying who holds it. */
function takeLock(file) {
  const lock = `${file}.lock`
  let fd
  try {
    fd = fs.openSync(lock, 'wx', 0o600)
  } catch (error) {
    if (error.code !== 'EEXIST') throw error
    let holder = ''
    try {
      const pid = fs.readFileSync(lock, 'utf8').trim()
      if (/^\d+$/.test(pid)) holder = ` (pid ${pid})`
    } catch {
      // A lock directory (proper-lockfile), or gone meanwhile: no pid to name.
    }
    throw sessionError(
      `${lock} exists: another process holds the lock on ${file}${holder}; if no repair is running, remove ${lock} and try again`,
      'TOOLCLAMP_SESSION_LOCKED',
    )
  }
  try {
    fs.writeSync(fd, `${process.pid}\n`)
  } finally {
    fs.closeSync(fd)
  }
  return lock
}

/** Removes `file` if it is there; a failure is not worth hiding the error being thrown. */
function removeQuietly(file) {
  try {
    fs.unlinkSync(file)
  } catch {
    // Already gone, or not ours to worry about now.
  }
}

/** All of the file open at `fd`, which must still be `size` bytes; undefined when it is not. */
function readAll(fd, size) {
  const data = Buffer.allocUnsafe(size)
  let at = 0
  while (at < size) {
    const n = fs.readSync(fd, data, at, size - at, at)
    if (n === 0) return undefined
    at += n
  }
  // One byte more means it grew while being read.
  return fs.readSync(fd, Buffer.alloc(1), 0, 1, size) === 0 ? data : undefined
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

function writeAll(fd, buffer) {
  let at = 0
  while (at < buffer.length) at += fs.writeSync(fd, buffer, at, buffer.length - at)
}

/** fsync of a directory, where the platform has one (Windows cannot open a directory). */
function syncDirectory(dir) {
  let fd
  try {
    fd = fs.openSync(dir, 'r')
  } catch {
    return
  }
  try {
    fs.fsyncSync(fd)
  } catch (error) {
    if (!['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EPERM', 'EISDIR', 'EBADF'].includes(error.code)) throw error
  } finally {
    fs.closeSync(fd)
  }
}

function syncFile(file) {
  const fd = fs.openSync(file, 'r+')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * The lines of `data` as byte ranges [start, end), each without its ending ("\n" or
 * "\r\n"), which stays outside the range and so is kept when a line is replaced. The last
 * line may have no ending.
 */
function splitLines(data) {
  const lines = []
  let start = 0
  while (start < data.length) {
    const newline = data.indexOf(0x0a, start)
    const end = newline === -1 ? data.length : newline
    const cr = newline !== -1 && end > start && data[end - 1] === 0x0d ? 1 : 0
    lines.push({ start, end: end - cr })
    start = end + 1
  }
  return lines
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
  if (!isPlainObject(message) || message.role !== 'toolResult') return undefined
  return entry
}

// Block types whose text the payload clamp cuts (and saves to one spill file, joined).
const TEXT_BLOCKS = new Set(['text', 'input_text', 'output_text'])

function blockText(block) {
  if (!isPlainObject(block)) return undefined
  if (TEXT_BLOCKS.has(block.type)) return typeof block.text === 'string' ? block.text : undefined
  if (block.type === 'resource' && isPlainObject(block.resource)) {
    return typeof block.resource.text === 'string' ? block.resource.text : undefined
  }
  return undefined
}

/**
 * The text the clamp saved to its spill file when it changed `before` into `after` in no
 * other way than by cutting text blocks (or a string); undefined when it changed anything
 * else (data among the blocks, cut as JSON, which no spill file holds).
 */
function spilledText(before, after) {
  if (typeof before === 'string') return typeof after === 'string' ? before : undefined
  if (!isArray(before) || !isArray(after) || before.length !== after.length) return undefined
  let text = ''
  for (let i = 0; i < before.length; i++) {
    const a = before[i]
    const b = after[i]
    const kept = blockText(a)
    if (kept !== undefined) text += kept
    if (a === b) continue
    if (kept === undefined || !isPlainObject(b) || b.type !== a.type || blockText(b) === undefined) return undefined
  }
  return text
}

/**
 * Clamps the tool results of `data`, spilling each cut text. Returns the changes and the
 * results left as they were; the spill files written go to `written` as they are made (to
 * be removed if the repair stops).
 */
function planRepair(file, data, options, written) {
  const changes = []
  const skipped = []
  const lines = splitLines(data)
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]
    const entry = toolResultEntry(data, line)
    if (entry === undefined) continue
    const message = entry.message
    const { content, toolCallId, toolName } = message
    const reports = []
    const clamped = hardTruncateToolPayload(
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
    changes.push({
      line,
      bytes,
      result: { ...about, bytesBefore: line.end - line.start, bytesAfter: bytes.length, spillPath: saved },
    })
  }
  return { changes, skipped }
}

/** The file with each change applied; everything between changes copied as it is. */
function rebuild(data, changes) {
  const parts = []
  let at = 0
  for (const { line, bytes } of changes) {
    parts.push(data.subarray(at, line.start), bytes)
    at = line.end
  }
  parts.push(data.subarray(at))
  return Buffer.concat(parts)
}

/**
 * Gives the file `file` is now a second name beside it (the backup), failing rather than
 * replacing a file. A hard link keeps the original inode, so a write landing in it after
 * the check is kept too; where there are no links, an exclusive copy.
 */
function linkBackup(file) {
  const backup = `${file}.${stamp()}-${randomBytes(4).toString('hex')}${BACKUP_SUFFIX}`
  try {
    fs.linkSync(file, backup)
    return { path: backup, linked: true }
  } catch (error) {
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'].includes(error.code)) throw error
  }
  fs.copyFileSync(file, backup, fs.constants.COPYFILE_EXCL)
  fs.chmodSync(backup, 0o600)
  return { path: backup, linked: false }
}

/**
 * Rewrites the pi session file at `file` so no tool result in it exceeds the limits.
 * Returns `{ changed, path, backupPath, results, skipped }`.
 */
function repairSessionFile(file, options) {
  if (typeof file !== 'string' || file === '') {
    throw new TypeError(`path must be a non-empty string, got ${describe(file)}`)
  }
  if (file.includes('\0')) throw new TypeError('path must not contain a NUL character')
  // Every option is checked before anything is touched.
  const given = readOptionsObject(options, REPAIR_OPTIONS, true)
  const backup = readBackup(given.backup)
  const { limits, spill } = readLimitOptions(given, REPAIR_SPILL_KEYS, true)
  // A symbolic link is repaired where it points; the link stays a link.
  const real = fs.realpathSync(path.resolve(file))
  if (!fs.statSync(real).isFile()) throw new TypeError(`path must name a regular file, got ${JSON.stringify(file)}`)
  const lock = takeLock(real)
  try {
    return repairLocked(real, { limits, spill: spill ?? { dir: `${real}${SPILL_DIR_SUFFIX}` } }, backup)
  } finally {
    removeQuietly(lock)
  }
}

/**
 * Removes the temporary files a killed repair of `file` left beside it. Called holding the
 * lock, so none of them is being written.
 */
function removeLeftovers(file) {
  const dir = path.dirname(file)
  const prefix = `.${path.basename(file)}.toolclamp-`
  let names
  try {
    names = fs.readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    if (name.startsWith(prefix) && /^[0-9a-f]{8}\.tmp$/.test(name.slice(prefix.length))) {
      removeQuietly(path.join(dir, name))
    }
  }
}

function repairLocked(file, options, keepBackup) {
  removeLeftovers(file)
  const fd = fs.openSync(file, 'r')
  let written = []
  let replaced = false
  try {
    const before = fs.fstatSync(fd, { bigint: true })
    const data = readAll(fd, Number(before.size))
    if (data === undefined) throw changedError(file)
    const plan = planRepair(file, data, options, written)
    const report = {
      changed: plan.changes.length > 0,
      path: file,
      backupPath: null,
      results: plan.changes.map((change) => change.result),
      skipped: plan.skipped,
    }
    if (!report.changed) {
      // Spill files of results that were not rewritten hold nothing the file lacks.
      for (const spilled of written) removeQuietly(spilled)
      written = []
      return report
    }
    // The originals are on disk before the file that no longer holds them.
    const kept = new Set(report.results.map((result) => result.spillPath))
    for (const spilled of written) if (!kept.has(spilled)) removeQuietly(spilled)
    written = [...kept]
    for (const spilled of written) syncFile(spilled)
    syncDirectory(options.spill.dir)

    const dir = path.dirname(file)
    const temp = path.join(dir, `.${path.basename(file)}.toolclamp-${randomBytes(4).toString('hex')}.tmp`)
    const out = fs.openSync(temp, 'wx', 0o600)
    let backup
    try {
      try {
        writeAll(out, rebuild(data, plan.changes))
        // The repaired file keeps the original's permissions and, where allowed, its owner.
        fs.fchmodSync(out, Number(before.mode) & 0o7777)
        try {
          fs.fchownSync(out, Number(before.uid), Number(before.gid))
        } catch {
          // Only a privileged process may give a file away; ours is the user's own anyway.
        }
        fs.fsyncSync(out)
      } finally {
        fs.closeSync(out)
      }
      backup = linkBackup(file)
      if (!sameFile(before, fs.statSync(file, { bigint: true }))) throw changedError(file)
      fs.renameSync(temp, file)
      replaced = true
    } catch (error) {
      if (!replaced) {
        removeQuietly(temp)
        if (backup !== undefined) removeQuietly(backup.path)
      }
      throw error
    }
    syncDirectory(dir)
    // Written between the check and the rename: kept in the backup, which stays.
    const after = fs.fstatSync(fd, { bigint: true })
    if (after.size !== before.size || after.mtimeNs !== before.mtimeNs) {
      if (!backup.linked) fs.writeFileSync(backup.path, fs.readFileSync(fd))
      fs.chmodSync(backup.path, 0o600)
      throw sessionError(
        `${file} was written to while it was being replaced; the repaired file lacks what was written then, which is in ${backup.path}`,
        'TOOLCLAMP_SESSION_CHANGED',
      )
    }
    if (keepBackup) {
      // The old file is the backup's alone now: private.
      fs.chmodSync(backup.path, 0o600)
      report.backupPath = backup.path
    } else {
      fs.unlinkSync(backup.path)
    }
    return report
  } catch (error) {
    // Nothing was replaced: the spill files hold nothing the file lacks.
    if (!replaced) for (const spilled of written) removeQuietly(spilled)
    throw error
  } finally {
    fs.closeSync(fd)
  }
}

module.exports = {
  guardSessionManager,
  repairSessionFile,
}
