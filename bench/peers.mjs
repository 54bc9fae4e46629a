// The shipped truncation functions a user would pick instead of toolclamp, called exactly as
// their packages ship them. None returns what toolclamp returns (no notice, whole lines only,
// no surrogate safety, display columns instead of UTF-16 units, …), so the bench times each on
// the nearest job and never asserts its output equal; the tables say so under them.
//
// - pi's `truncateHead`/`truncateTail` (`@mariozechner/pi-coding-agent`) and `cli-truncate` are
//   root devDependencies.
// - OpenClaw (`openclaw`) and Gemini CLI (`@google/gemini-cli-core`) install hundreds of MB
//   each, so they live in bench/peers/package.json: `npm run bench:peers` installs them.
//   Neither exports these functions from its entry, so their dist files are imported by path;
//   OpenClaw's dist names its chunks with a content hash and exports their functions under
//   one-letter names, so the chunk is found by its name and each function by its export list.

import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const PEERS = fileURLToPath(new URL('./peers/node_modules/', import.meta.url))

/** The functions `names` of the OpenClaw dist chunk whose file name matches `pattern`. */
async function openclawChunk(dist, pattern, names) {
  const file = readdirSync(dist).find((f) => pattern.test(f))
  if (!file) throw new Error(`no ${pattern} in ${dist}`)
  const source = readFileSync(path.join(dist, file), 'utf8')
  // `export { truncateUtf16Safe as r, … }`: the public name of each local function.
  const list = source.match(/export\s*\{([^}]*)\}\s*;?\s*$/)?.[1] ?? ''
  const alias = Object.fromEntries(list.split(',').map((part) => part.trim().split(/\s+as\s+/)))
  const module = await import(pathToFileURL(path.join(dist, file)).href)
  const found = {}
  for (const name of names) {
    const fn = module[alias[name] ?? name]
    if (typeof fn !== 'function') throw new Error(`${name} is not exported by ${file}`)
    found[name] = fn
  }
  return found
}

async function loadOpenclaw() {
  const dist = path.join(PEERS, 'openclaw/dist')
  if (!existsSync(dist)) return undefined
  return {
    ...(await openclawChunk(dist, /^utf16-slice-[\w-]+\.mjs$/, ['sliceUtf16Safe', 'truncateUtf16Safe'])),
    ...(await openclawChunk(dist, /^utf8-truncate-[\w-]+\.mjs$/, ['truncateUtf8Prefix', 'truncateUtf8Suffix'])),
    ...(await openclawChunk(dist, /^truncate-[\w-]+\.mjs$/, ['truncateHead', 'truncateTail'])),
  }
}

async function loadGemini() {
  const src = path.join(PEERS, '@google/gemini-cli-core/dist/src')
  if (!existsSync(path.join(src, 'utils/fileUtils.js'))) return undefined
  const { truncateProportionally, TOOL_TRUNCATION_PREFIX } = await import(pathToFileURL(path.join(src, 'context/truncation.js')).href)
  const { formatTruncatedToolOutput } = await import(pathToFileURL(path.join(src, 'utils/fileUtils.js')).href)
  return { truncateProportionally, formatTruncatedToolOutput, TOOL_TRUNCATION_PREFIX }
}

/** Every peer; `openclaw` and `gemini` are undefined until `npm run bench:peers` ran. */
export async function loadPeers() {
  const pi = await import('@mariozechner/pi-coding-agent')
  const { default: cliTruncate } = await import('cli-truncate')
  return {
    pi: { truncateHead: pi.truncateHead, truncateTail: pi.truncateTail },
    cliTruncate,
    openclaw: await loadOpenclaw(),
    gemini: await loadGemini(),
  }
}
