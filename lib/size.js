'use strict'

// Sizes as people write them on command lines and in environment variables: `2000`, `50k`,
// `1MiB`. Shared by the CLI and by the TOOLCLAMP_MAX_TOOL_OUTPUT variable.

const SIZE_MULTIPLIERS = {
  '': 1,
  k: 1e3,
  K: 1e3,
  m: 1e6,
  M: 1e6,
  g: 1e9,
  G: 1e9,
  Ki: 2 ** 10,
  KiB: 2 ** 10,
  Mi: 2 ** 20,
  MiB: 2 ** 20,
  Gi: 2 ** 30,
  GiB: 2 ** 30,
}

/**
 * Parses a size such as `2000`, `50k` or `1MiB` into a non-negative integer.
 * Throws a plain Error on anything else (decimals, signs, separators, spaces, unknown suffixes).
 */
function parseSize(text) {
  const match = /^(\d+)([A-Za-z]*)$/.exec(String(text))
  if (match === null || !Object.hasOwn(SIZE_MULTIPLIERS, match[2])) {
    throw new Error(`not a size: ${JSON.stringify(String(text))}`)
  }
  const size = Number(match[1]) * SIZE_MULTIPLIERS[match[2]]
  if (!Number.isSafeInteger(size)) {
    throw new Error(`size too large: ${JSON.stringify(String(text))}`)
  }
  return size
}

module.exports = { parseSize }
