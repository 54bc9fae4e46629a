'use strict'

// Spill files: when a clamp drops text, the full original goes to a new file and the
// notice names it, so the model (or a person) can read on.
//
// The file name is chosen before the cut is planned, because the notice that names it
// takes room in the budget. Only when the plan truncates is the file written, published
// whole as a new file (lib/files/publish.js: a private temporary file, fsynced, then
// linked to its final name, which never replaces a file). If anything fails, the caller
// re-plans with a notice that does not name a file, and the error is reported beside the
// result; the clamped result itself is never lost.

const { internal, invalid, mustBe } = require('../common/errors.js')
const fs = require('node:fs')
const path = require('node:path')
const { createHash, randomBytes } = require('node:crypto')

const { messageOf } = require('../common/format.js')
const { checkKeys, isPlainObject } = require('../common/options.js')
const notices = require('../common/notices.js')
const publish = require('./publish.js')

const SUFFIX = '.toolclamp-spill.txt'
const NAME_MAX = 64
// <name>-<UTC time>-<16 hex><SUFFIX> (or <name>-<16 hex of the content's SHA-256><SUFFIX>),
// and its temporary twin .<final>.<8 hex>.tmp
const SPILL_FILE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}-(?:\d{8}T\d{6}Z-)?[0-9a-f]{16}\.toolclamp-spill\.txt$/
const SPILL_TEMP = /^\.[A-Za-z0-9_][A-Za-z0-9._-]{0,63}-(?:\d{8}T\d{6}Z-)?[0-9a-f]{16}\.toolclamp-spill\.txt\.[0-9a-f]{8}\.tmp$/
// A `spill` object's hook, told each file's path before anything of it is written (a
// symbol: no caller's option can name it). repairSessionFile records the paths, so the
// spill files of a repair that was killed before it published can be found and removed.
const BEFORE_WRITE = Symbol('toolclamp.spill.beforeWrite')

/**
 * A file-name-safe form of a tool name: ASCII letters, digits, `.`, `_`, `-`; anything
 * else (separators, `..`, NUL, emoji) becomes `_`; at most 64 chars; never starts with
 * `.` or `-`; `output` when nothing is left.
 */
function sanitizeName(name) {
  let safe = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[.-]+/, '')
  if (safe.length > NAME_MAX) safe = safe.slice(0, NAME_MAX)
  return safe.replace(/^_+$/, '') === '' ? 'output' : safe
}

function timestamp(date) {
  const pad = (n, width = 2) => String(n).padStart(width, '0')
  return (
    `${pad(date.getUTCFullYear(), 4)}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`
  )
}

/**
 * Reads a `spill` option: `{ dir, name?, onSpill? }`. `fallbackName` names the file when
 * `name` is not given (the tool name, or a function's own name).
 */
// The keys of a `spill` option; where the result has no info object to report in, the
// caller is told through `onSpill`.
const SPILL_KEYS = ['dir', 'name']
const SPILL_KEYS_WITH_CALLBACK = ['dir', 'name', 'onSpill']

function readSpill(spill, fallbackName, allowed = SPILL_KEYS) {
  if (spill === undefined) return undefined
  if (!isPlainObject(spill)) {
    throw mustBe(TypeError, `spill`, `an object with a dir`, spill)
  }
  checkKeys(spill, allowed)
  // Each read once: a getter must not pass the checks with one value and name the file with another.
  const { dir, name, onSpill, [BEFORE_WRITE]: beforeWrite } = spill
  if (typeof dir !== 'string' || dir === '') {
    throw mustBe(TypeError, `spill.dir`, `a non-empty string`, dir)
  }
  if (dir.includes('\0')) throw invalid(TypeError, 'spill.dir must not contain a NUL character')
  if (name !== undefined && typeof name !== 'string') {
    throw mustBe(TypeError, `spill.name`, `a string`, name)
  }
  if (onSpill !== undefined && typeof onSpill !== 'function') {
    throw mustBe(TypeError, `spill.onSpill`, `a function`, onSpill)
  }
  return { dir: path.resolve(dir), name: name === undefined ? fallbackName : name, onSpill, beforeWrite }
}

/** The path a spill of this call will have, if one is written. Touches no file. */
function spillPath(spill, suffix = '') {
  const base = sanitizeName(spill.name + suffix)
  const file = `${base}-${timestamp(new Date())}-${randomBytes(8).toString('hex')}${SUFFIX}`
  const full = path.join(spill.dir, file)
  // sanitizeName leaves no separator, so this holds; checked anyway because it is the
  // guarantee the directory's owner relies on.
  if (path.dirname(full) !== spill.dir) throw internal(`spill file ${JSON.stringify(file)} escapes ${spill.dir}`)
  return full
}

/**
 * The path of a spill named by its content (`text`'s SHA-256): the same text always gets
 * the same file, so a conversation clamped before every model call saves each output once
 * and names it the same way each time (a stable prompt, which provider caches need).
 * Without `text`, a path of the same length, for sizing a notice before hashing.
 */
function contentSpillPath(spill, text) {
  const hash = text === undefined ? '0'.repeat(16) : createHash('sha256').update(text).digest('hex').slice(0, 16)
  const full = path.join(spill.dir, `${sanitizeName(spill.name)}-${hash}${SUFFIX}`)
  if (path.dirname(full) !== spill.dir) throw internal(`spill file ${JSON.stringify(full)} escapes ${spill.dir}`)
  return full
}

/**
 * writeSpill for a content-named file: one already there with the same size is the same
 * text, kept (its time is renewed, so pruneSpillDir keeps what is still in use).
 */
function writeSpillOnce(file, text) {
  const existing = (size) => {
    try {
      const stat = fs.lstatSync(file)
      if (!stat.isFile() || stat.size !== size) return false
      const now = new Date()
      fs.utimesSync(file, now, now)
      return true
    } catch {
      return false
    }
  }
  const size = Buffer.byteLength(text)
  if (existing(size)) return { path: file }
  const report = writeSpill(file, text)
  // Written meanwhile by another call with the same text.
  if (report.path === null && report.error?.code === 'EEXIST' && existing(size)) return { path: file }
  return report
}

/**
 * Creates `dir` and whichever of its parents are missing (0700). Not `mkdirSync`'s
 * `recursive`, which retries forever where a file system answers ENOENT for a directory
 * it will never create (procfs): each missing directory is created once, or the error
 * is thrown.
 */
function makeDirectory(dir) {
  const missing = []
  for (let at = dir; ; at = path.dirname(at)) {
    try {
      if (fs.statSync(at).isDirectory()) break
      throw Object.assign(new Error(`ENOTDIR: not a directory, '${at}'`), { code: 'ENOTDIR', path: at })
    } catch (error) {
      if (error.code !== 'ENOENT') throw error
    }
    missing.push(at)
    if (path.dirname(at) === at) break
  }
  for (let k = missing.length - 1; k >= 0; k--) {
    try {
      fs.mkdirSync(missing[k], { mode: 0o700 })
    } catch (error) {
      // Made meanwhile by another writer: fine, as long as it is a directory.
      if (error.code !== 'EEXIST' || !fs.statSync(missing[k]).isDirectory()) throw error
    }
  }
}

/**
 * Writes `data` (a string, written as UTF-8, or bytes) to `file`, which must not exist.
 * `beforeWrite(file)`, when given, is called first; if it throws, nothing is written.
 * Returns `{ path }`, or `{ path: null, error }` when anything failed; never throws.
 */
function writeSpill(file, data, beforeWrite) {
  try {
    if (beforeWrite !== undefined) beforeWrite(file)
    makeDirectory(path.dirname(file))
    publish.writeNewFile(file, data)
    return { path: file }
  } catch (error) {
    return { path: null, error }
  }
}

/**
 * Clamps with `plan(notice)` (which returns a result with `truncated`) and, when it cuts,
 * saves `data` whole to a new spill file in `spill.dir`. The file's name is chosen first,
 * because the notice that names it takes room in the budget; if the file cannot be
 * written, the text is planned again with the notice that names no file. The result
 * carries the report in `spill`, and `spill.onSpill` (when given) receives it last, when
 * the result is complete.
 */
function clampAndSpill(spill, nameSuffix, notice, namedDefault, unnamedDefault, data, plan) {
  const file = spill.pathFor === undefined ? spillPath(spill, nameSuffix) : spill.pathFor(nameSuffix)
  const named = notices.spillNotices(notice, file, namedDefault, unnamedDefault)
  let info = plan(named.named)
  if (!info.truncated || spill.dry) return info
  const report = writeSpill(file, data, spill.beforeWrite)
  if (report.path === null) info = plan(named.unnamed)
  info.spill = report
  reportSpill(spill.onSpill, report)
  return info
}

/**
 * A spill whose files are named once, for a clamp run many times by a search (a limit in
 * exact tokens: a notice naming another file would count other tokens). `run(dry)` gives
 * the spill for one run, which names the same files in the same order as every other run;
 * a dry run writes and reports nothing.
 */
function repeatableSpill(spill) {
  const paths = []
  let used = 0
  const pathFor = (suffix) => {
    if (used === paths.length) paths.push(spillPath(spill, suffix))
    return paths[used++]
  }
  return {
    run(dry) {
      used = 0
      return { ...spill, dry, pathFor }
    },
  }
}

/** Reports a spill to the caller's `onSpill`, which must not break the clamp. */
function reportSpill(onSpill, report) {
  if (onSpill === undefined) return
  try {
    onSpill(report)
  } catch (error) {
    process.emitWarning(`toolclamp: spill.onSpill threw: ${messageOf(error)}`)
  }
}

/** Whether `name` is a spill file's name (as spillPath and contentSpillPath make them). */
function isSpillName(name) {
  return SPILL_FILE.test(name)
}

/**
 * Removes the spill file `file` and the temporary twins (`.<name>.<8 hex>.tmp`) a write of
 * it that was killed left beside it. Never throws: what cannot be removed stays.
 */
function removeSpill(file) {
  const dir = path.dirname(file)
  const prefix = `.${path.basename(file)}.`
  const remove = (name) => {
    try {
      fs.unlinkSync(path.join(dir, name))
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  remove(path.basename(file))
  let names
  try {
    names = fs.readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    if (name.startsWith(prefix) && /^[0-9a-f]{8}\.tmp$/.test(name.slice(prefix.length))) remove(name)
  }
}

function checkMaxAge(maxAgeMs) {
  if (typeof maxAgeMs !== 'number') {
    throw mustBe(TypeError, `maxAgeMs`, `a non-negative number of milliseconds`, maxAgeMs)
  }
  if (!(maxAgeMs >= 0)) {
    throw mustBe(RangeError, `maxAgeMs`, `a non-negative number of milliseconds`, maxAgeMs)
  }
}

/**
 * Removes spill files (and temporary files a crash left behind) older than `maxAgeMs`
 * from `dir`. Anything else in `dir` (other files, symbolic links, directories) is left
 * alone. Returns the removed paths; a missing directory removes nothing.
 */
function pruneSpillDir(dir, options) {
  if (typeof dir !== 'string' || dir === '') throw mustBe(TypeError, `dir`, `a non-empty string`, dir)
  if (!isPlainObject(options)) {
    throw mustBe(TypeError, `options`, `an object with maxAgeMs`, options)
  }
  checkKeys(options, ['maxAgeMs'])
  checkMaxAge(options.maxAgeMs)
  let names
  try {
    names = fs.readdirSync(dir)
  } catch (error) {
    if (error.code === 'ENOENT') return []
    throw error
  }
  const cutoff = Date.now() - options.maxAgeMs
  const removed = []
  for (const name of names) {
    if (!SPILL_FILE.test(name) && !SPILL_TEMP.test(name)) continue
    const file = path.join(dir, name)
    let stat
    try {
      stat = fs.lstatSync(file)
    } catch {
      continue // removed meanwhile
    }
    if (!stat.isFile() || stat.mtimeMs > cutoff) continue
    try {
      fs.unlinkSync(file)
      removed.push(file)
    } catch (error) {
      if (error.code !== 'ENOENT') throw error
    }
  }
  return removed
}

module.exports = {
  repeatableSpill,
  BEFORE_WRITE,
  SPILL_KEYS_WITH_CALLBACK,
  SUFFIX,
  readSpill,
  spillPath,
  writeSpill,
  contentSpillPath,
  writeSpillOnce,
  sanitizeName,
  clampAndSpill,
  pruneSpillDir,
  // For lib/integrations/pi-session.js, which removes the spill files of a repair that did
  // not finish.
  isSpillName,
  removeSpill,
  // For lib/commands/capture.js, which writes a spill as the output arrives.
  makeDirectory,
  reportSpill,
}
