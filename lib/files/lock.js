'use strict'

// A lock file. `<file>.lock` keeps two writers of a file apart (two session repairs, say).
// It holds one JSON line naming its owner,
//   { id, pid, host, boot, pidns, start, since }
// and is complete when it gets its name: written as `<file>.lock.<id>.new`, then hard-linked
// to the lock's name, which fails where that name exists. `id` (8 hex) is the owner's, and
// may name its other files too. On Linux `boot` (the boot id), `pidns` (the pid namespace)
// and `start` (the process's start time, from /proc/<pid>/stat) make the pid checkable: the
// owner is dead when the machine booted since, when no process has its pid, when that
// process is a zombie, or when it started at another time (its pid was reused). Elsewhere
// only the pid is asked (process.kill(pid, 0)). A lock of another host or pid namespace, a bare pid (an older
// lock), a directory (proper-lockfile) or anything unreadable is never judged dead: the
// lock is refused, naming the holder.
//
// A dead owner's lock is taken over under a claim, `<file>.lock.<its id>.claim`, made the
// same way: of all who find the same dead lock, one alone gets the claim. The claimer reads
// the lock again (the same id? no one else may remove it now) and removes it, then links its
// own like anyone, where the exclusive link decides. A claim whose claimer died is taken
// over the same way (a claim is a lock on the claim's name), to a bounded depth. Claims and
// `.new` files left by killed takers are removed by the next owner of the lock: once the lock
// is someone's, a claim on any other id is on a lock that is gone.

// fs is called through the module object (fs.linkSync, ...) so tests can fail a step.

const fs = require('node:fs')
const os = require('node:os')
const { invalid } = require('../common/errors.js')
const { isPlainObject } = require('../common/options.js')
const { NO_LINKS, removeQuietly, writeAll } = require('./publish.js')

const LOCK_ID = /^[0-9a-f]{8}$/
const MAX_CLAIM_DEPTH = 3
const LOCK_ATTEMPTS = 8

/** A file's text, or null when it cannot be read (no /proc, a directory, gone). */
function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

let place
/** Where this process runs: its host name and, on Linux, the boot id and pid namespace. */
function here() {
  if (place === undefined) {
    let pidns = null
    try {
      pidns = fs.readlinkSync('/proc/self/ns/pid')
    } catch {
      // Not Linux: the pid alone is checked.
    }
    place = { host: os.hostname(), boot: readText('/proc/sys/kernel/random/boot_id')?.trim() ?? null, pidns }
  }
  return place
}

/** The state and start time (clock ticks after boot) of process `pid`; null without /proc. */
function processStat(pid) {
  const stat = readText(`/proc/${pid}/stat`)
  if (stat === null) return null
  // The command name may hold spaces and parentheses: the fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { state: fields[0], start: fields[19] ?? null }
}

function ownerRecord(id) {
  const { host, boot, pidns } = here()
  const start = processStat(process.pid)?.start ?? null
  return { id, pid: process.pid, host, boot, pidns, start, since: new Date().toISOString() }
}

const nullOrString = (value) => value === null || typeof value === 'string'

/**
 * The owner a lock's text names: a record, `{ pid }` alone for a bare pid (an older lock),
 * or `{}` when it names none that can be read.
 */
function parseOwner(text) {
  if (/^\d+\n?$/.test(text)) return { pid: text.trim() }
  let owner
  try {
    owner = JSON.parse(text)
  } catch {
    return {}
  }
  const valid =
    isPlainObject(owner) &&
    typeof owner.id === 'string' &&
    LOCK_ID.test(owner.id) &&
    Number.isSafeInteger(owner.pid) &&
    owner.pid > 0 &&
    typeof owner.host === 'string' &&
    typeof owner.since === 'string' &&
    [owner.boot, owner.pidns, owner.start].every(nullOrString)
  return valid ? owner : {}
}

/** The owner of the lock (or claim) `name`; undefined when there is none by that name. */
function readOwner(name) {
  let text
  try {
    text = fs.readFileSync(name, 'utf8')
  } catch (error) {
    return error.code === 'ENOENT' ? undefined : {}
  }
  return parseOwner(text)
}

/** Whether a lock's owner is certainly dead (see above); false when that cannot be told. */
function ownerDead(owner) {
  if (owner.id === undefined) return false
  const { host, boot, pidns } = here()
  if (owner.host !== host) return false
  if (owner.boot !== null && boot !== null && owner.boot !== boot) return true
  if (owner.pidns !== pidns) return false
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    // EPERM: a process of another user has the pid, alive.
    if (error.code === 'ESRCH') return true
  }
  const stat = processStat(owner.pid)
  if (stat === null) return false
  return stat.state === 'Z' || stat.state === 'X' || (owner.start !== null && stat.start !== owner.start)
}

/** Who holds a lock, for a message: ` (pid 12 on host since <time>)`, or '' when unknown. */
function holderText(owner) {
  if (owner.pid === undefined) return ''
  if (owner.id === undefined) return ` (pid ${owner.pid})`
  return ` (pid ${owner.pid} on ${owner.host} since ${owner.since})`
}

/**
 * The owner record as a complete file, `<lock>.<id>.new`, from which locks and
 * claims are linked (or, without hard links, written exclusively).
 */
function makeIdentity(lock, id) {
  const bytes = Buffer.from(`${JSON.stringify(ownerRecord(id))}\n`)
  const identity = { path: `${lock}.${id}.new`, bytes, linked: true }
  fs.writeFileSync(identity.path, identity.bytes, { flag: 'wx', mode: 0o600 })
  return identity
}

/** Gives `identity` the name `name`; false when the name exists. */
function linkExclusive(identity, name, retried = false) {
  try {
    if (identity.linked) {
      fs.linkSync(identity.path, name)
    } else {
      const fd = fs.openSync(name, 'wx', 0o600)
      try {
        writeAll(fd, identity.bytes)
      } finally {
        fs.closeSync(fd)
      }
    }
    return true
  } catch (error) {
    if (error.code === 'EEXIST') return false
    if (identity.linked && NO_LINKS.includes(error.code)) {
      identity.linked = false
      return linkExclusive(identity, name, retried)
    }
    // The lock's next owner removed our `.new` (we had lost already): made again, once.
    if (error.code === 'ENOENT' && !retried && !fs.existsSync(identity.path)) {
      fs.writeFileSync(identity.path, identity.bytes, { flag: 'wx', mode: 0o600 })
      return linkExclusive(identity, name, true)
    }
    throw error
  }
}

/**
 * Takes the name `name` (the lock, or a claim on a lock) for `identity`, from a dead owner
 * if need be. Returns null when taken, else the owner holding it (or a claim on it).
 */
function acquire(lock, name, identity, depth) {
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    if (linkExclusive(identity, name)) return null
    const owner = readOwner(name)
    if (owner === undefined) continue // released meanwhile
    if (depth >= MAX_CLAIM_DEPTH || !ownerDead(owner)) return owner
    const claim = `${lock}.${owner.id}.claim`
    const claimant = acquire(lock, claim, identity, depth + 1)
    if (claimant !== null) return claimant
    try {
      // Only the claim's holder removes the lock it claims: if it is still that one, it goes.
      if (readOwner(name)?.id === owner.id) fs.unlinkSync(name)
    } finally {
      removeQuietly(claim)
    }
  }
  return readOwner(name) ?? {}
}

/**
 * Takes `<file>.lock` for the owner `id` (8 hex). Returns `{ lock, holder }`: `holder` is null
 * when the lock is taken, else the owner who holds it (or a claim on it; `{}` when it names
 * none that can be read, see holderText).
 */
function takeLock(file, id) {
  if (!LOCK_ID.test(id)) throw invalid(TypeError, `a lock id is 8 hex digits, got ${JSON.stringify(id)}`)
  const lock = `${file}.lock`
  const identity = makeIdentity(lock, id)
  try {
    return { lock, holder: acquire(lock, lock, identity, 0) }
  } finally {
    removeQuietly(identity.path)
  }
}

/** Removes the lock if it is still owner `id`'s. */
function releaseLock(lock, id) {
  if (readOwner(lock)?.id === id) removeQuietly(lock)
}

// A taker's files beside the locked file: `<name>.lock.<id>.claim` and `<name>.lock.<id>.new`.
const TAKER_FILE = /^([0-9a-f]{8})\.(?:claim|new)$/

/**
 * The id of the taker whose claim or owner record `name` is, for the file named `base`;
 * undefined for any other name. Whoever holds the lock may remove those of other ids: a
 * claim on any other id is on a lock that is gone, and a record is of a taker that lost or
 * was killed.
 */
function takerOf(name, base) {
  const prefix = `${base}.lock.`
  return name.startsWith(prefix) ? TAKER_FILE.exec(name.slice(prefix.length))?.[1] : undefined
}

module.exports = { takeLock, releaseLock, holderText, takerOf }
