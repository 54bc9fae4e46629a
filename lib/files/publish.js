'use strict'

// Publishing a file whole. It is written under a temporary name in its final directory
// (0600, created exclusively, so no one else's file is ever written through), fsynced, and
// only then given its final name, the directory fsynced after: a reader, or a crash, finds
// no file or the complete one. A new file gets its name by a hard link, which fails instead
// of replacing a file of that name (where the file system has no hard links, by an
// exclusive copy); a file is replaced by a rename. The temporary file is removed on every
// failure, and once the file is published.
//
// Spill files (lib/files/spill.js), a capture's spill written as the output arrives
// (lib/commands/capture.js) and a session repair's new file and backup
// (lib/integrations/pi-session.js) are all written this way.
//
// fs is called through the module object (fs.linkSync, ...) so tests can fail a step.

const fs = require('node:fs')
const path = require('node:path')
const { randomBytes } = require('node:crypto')

// Errors of a file system that has no hard links (some network and FAT volumes), or none
// across these two names (EXDEV), or no more for this file (EMLINK).
const NO_LINKS = ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']
// Errors of an fsync that a directory does not take (some file systems, and platforms).
const NO_DIRECTORY_SYNC = ['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EPERM', 'EISDIR', 'EBADF']

// The chars of a string encoded at a time when it is written (see TempFile.write).
const STRING_PIECE = 1 << 20

/** The temporary name of `file` while it is written: `.<name>.<8 hex>.tmp` beside it. */
function tempPathFor(file) {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`)
}

/** Writes all of `bytes` at the file position of `fd`. */
function writeAll(fd, bytes) {
  let at = 0
  while (at < bytes.length) at += fs.writeSync(fd, bytes, at, bytes.length - at)
}

/** Removes `file` if it is there; a failure is not worth hiding the error being thrown. */
function removeQuietly(file) {
  try {
    fs.unlinkSync(file)
  } catch {
    // Already gone, or not ours to worry about now.
  }
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
    if (!NO_DIRECTORY_SYNC.includes(error.code)) throw error
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Gives the complete file `from` a second name, `to`, failing (EEXIST) rather than replacing
 * a file of that name. Returns true for a hard link; where the file system has none, `to` is
 * an exclusive copy, made private (0600), and false is returned.
 */
function linkNew(from, to) {
  try {
    fs.linkSync(from, to)
    return true
  } catch (error) {
    if (!NO_LINKS.includes(error.code)) throw error
  }
  fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL)
  try {
    fs.chmodSync(to, 0o600)
  } catch (error) {
    // The copy is ours (created exclusively): not left under the name half done.
    removeQuietly(to)
    throw error
  }
  return false
}

/**
 * A file being written under its temporary name, `path` (by default `.<name>.<8 hex>.tmp`
 * beside `file`), created exclusively and private; `fd` is open until it is finished. It
 * holds nothing of its caller, so a FinalizationRegistry may hold it to discard it.
 */
class TempFile {
  constructor(file, temp = tempPathFor(file)) {
    this.file = file
    this.path = temp
    /** Whether the file has its final name (even if a later step failed). */
    this.published = false
    this.fd = fs.openSync(temp, 'wx', 0o600)
  }

  /**
   * Appends `data`: bytes, or a string written as UTF-8, a piece at a time (a spill file may
   * hold a text of a hundred megabytes: its UTF-8 is never made whole).
   */
  write(data) {
    if (typeof data !== 'string') return writeAll(this.fd, data)
    if (data.length <= STRING_PIECE) return writeAll(this.fd, Buffer.from(data))
    // One buffer for every piece: a char is at most 3 bytes of UTF-8.
    const bytes = Buffer.allocUnsafe(3 * STRING_PIECE)
    for (let at = 0; at < data.length; ) {
      let end = Math.min(data.length, at + STRING_PIECE)
      // A surrogate pair stays in one piece (a high surrogate alone is U+FFFD in either).
      const last = data.charCodeAt(end - 1)
      if (end < data.length && last >= 0xd800 && last <= 0xdbff) end--
      writeAll(this.fd, bytes.subarray(0, bytes.write(data.slice(at, end))))
      at = end
    }
  }

  /** Closes the fd; returns the error, if any. */
  close() {
    const { fd } = this
    if (fd === undefined) return undefined
    this.fd = undefined
    try {
      fs.closeSync(fd)
      return undefined
    } catch (error) {
      return error
    }
  }

  /** fsyncs and closes the file (once): what it holds is on disk. */
  finish() {
    if (this.fd === undefined) return
    fs.fsyncSync(this.fd)
    const error = this.close()
    if (error !== undefined) throw error
  }

  /**
   * Gives the file its final name, which must be free (EEXIST otherwise), and lets the
   * temporary name go. A failure after the name was given takes the name back: the file is
   * published only if this returns.
   */
  publish() {
    this.finish()
    linkNew(this.path, this.file)
    removeQuietly(this.path)
    try {
      syncDirectory(path.dirname(this.file))
    } catch (error) {
      removeQuietly(this.file)
      throw error
    }
    this.published = true
  }

  /**
   * Gives the file its final name by a rename, replacing a file of that name. Once renamed it
   * is `published`, even if the directory's fsync then fails.
   */
  replace() {
    this.finish()
    fs.renameSync(this.path, this.file)
    this.published = true
    syncDirectory(path.dirname(this.file))
  }

  /** Gives the file up, quietly: closed and removed. */
  discard() {
    this.close()
    removeQuietly(this.path)
  }
}

/**
 * Writes `data` (bytes, or a string as UTF-8) to the new file `file`, published whole (see
 * above); throws, with nothing left behind, when anything fails, EEXIST when `file` exists.
 */
function writeNewFile(file, data) {
  const temp = new TempFile(file)
  try {
    temp.write(data)
    temp.publish()
  } catch (error) {
    temp.discard()
    throw error
  }
}

module.exports = {
  NO_LINKS,
  TempFile,
  writeNewFile,
  linkNew,
  writeAll,
  removeQuietly,
  syncDirectory,
}
