'use strict'

// Sizes as people write them on command lines and in environment variables: `2000`, `50k`,
// `16KB`, `1MiB`. Binary, as the seeds mean them and as nginx, the JVM, `dd` and GNU
// `head -c` read them: `16k` = `16K` = `16KB` = `16KiB` = 16,384. Shared by the CLI and
// by the TOOLCLAMP_MAX_TOOL_OUTPUT variable.

const SIZE = /^(\d+)(?:([kmg])(?:ib?|b)?|b)?$/i
const SHIFTS = { k: 10, m: 20, g: 30 }

/**
 * Parses a size such as `2000`, `50k`, `50KB` or `1MiB` into a non-negative integer (k, m
 * and g are 2^10, 2^20 and 2^30, with or without `B` or `iB`, in any case; a bare `B` is
 * bytes). Throws a plain Error on anything else (decimals, signs, separators, unknown
 * suffixes, spaces).
 */
function parseSize(text) {
  const match = SIZE.exec(String(text))
  if (match === null) throw new Error(`not a size: ${JSON.stringify(String(text))}`)
  const unit = match[2] === undefined ? 1 : 2 ** SHIFTS[match[2].toLowerCase()]
  const size = Number(match[1]) * unit
  if (!Number.isSafeInteger(size)) throw new Error(`size too large: ${JSON.stringify(String(text))}`)
  return size
}

/**
 * A plain decimal number as a command line writes one (`0.3`, `1`, `.5`), or NaN: Number()
 * alone would also take '', '0x1' and ' 1 '. The caller checks its range.
 */
function parseDecimal(text) {
  return /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN
}

/** A command line's size: `flag`'s `value` read, or the error `fail(message)` makes thrown. */
function readSizeFlag(flag, value, fail) {
  try {
    return parseSize(value)
  } catch {
    throw fail(`${flag} expects a size like 2000, 50k or 1MiB, got ${JSON.stringify(value)}`)
  }
}

module.exports = { parseDecimal, parseSize, readSizeFlag }
