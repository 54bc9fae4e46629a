// Token cases: exact token counts and a head cut within exact tokens, against the JS
// tokenizers (gpt-tokenizer, the fastest, and js-tiktoken, OpenAI's tokenizer ported to
// JavaScript), on a mixed text of every kind a tool returns (bench/inputs.mjs `mixedText`);
// and the first use of a vocabulary, each in a fresh process. Counts are checked equal before
// anything is timed; a cut is checked to be within its tokens by js-tiktoken.

import { execFileSync } from 'node:child_process'
import { statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import toolclamp from '../index.js'
import { countTokens } from '../conversation.mjs'
import { mixedText } from './inputs.mjs'
import { formatRatio, formatTime } from './report.mjs'
import { PEAK_MIB_SOURCE } from './streams.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const MIB = 1024 * 1024
const ENCODINGS = ['o200k_base', 'cl100k_base']

// Special-token spellings such as `<|endoftext|>` in a tool's output are plain text to the
// model, and toolclamp counts them so: the peers are asked to do the same.
const NO_SPECIAL = { disallowedSpecial: new Set() }

const texts = new Map()

/** The mixed text of `bytes`, made once per run (16 MiB takes a second to build). */
function textOf(bytes) {
  if (!texts.has(bytes)) texts.set(bytes, mixedText(bytes))
  return texts.get(bytes)
}

let peers

/** A new instance of gpt-tokenizer's `encoding`, with a cache of `cacheSize` merged pieces
 * of its own (the modules it ships share one instance, and so one cache, per encoding). */
async function gptInstance(encoding, cacheSize) {
  const { GptEncoding } = await import('gpt-tokenizer/GptEncoding')
  const { default: ranks } = await import(`gpt-tokenizer/bpeRanks/${encoding}`)
  const api = GptEncoding.getEncodingApi(encoding, () => ranks)
  api.setMergeCacheSize(cacheSize)
  return api
}

/**
 * Per encoding: gpt-tokenizer as shipped, a second instance of it without its cache of
 * merged pieces, and js-tiktoken. Loaded on first use, so runs without these tables do not
 * pay for building their vocabularies.
 */
async function loadPeers() {
  if (peers) return peers
  const { Tiktoken } = await import('js-tiktoken/lite')
  peers = {}
  for (const encoding of ENCODINGS) {
    const gpt = await import(`gpt-tokenizer/encoding/${encoding}`)
    const { default: tiktokenRanks } = await import(`js-tiktoken/ranks/${encoding}`)
    peers[encoding] = { gpt, uncached: await gptInstance(encoding, 0), tiktoken: new Tiktoken(tiktokenRanks) }
  }
  return peers
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

// Results are stored here so the engine cannot drop a call whose result is never read.
// biome-ignore lint/correctness/noUnusedVariables: written on purpose, never read
let sink

/**
 * Times calls of whole seconds, where tinybench's sampling would take minutes: `calls` calls
 * of each implementation a round, the implementations taking turns (in reverse order in the
 * second round), each keeping its best round's median, as the other tables do.
 */
function timeSlow(impls, text, calls, rounds) {
  const best = {}
  for (let round = 0; round < rounds; round++) {
    const names = round % 2 === 0 ? Object.keys(impls) : Object.keys(impls).reverse()
    const times = Object.fromEntries(names.map((name) => [name, []]))
    for (let k = 0; k < calls; k++) {
      for (const name of names) {
        const t0 = performance.now()
        sink = impls[name](text)
        times[name].push(performance.now() - t0)
      }
    }
    for (const name of names) best[name] = Math.min(best[name] ?? Infinity, median(times[name]))
  }
  return best
}

// ---------------------------------------------------------------------------------------
// Counting

const COUNT_PEERS = ['gpt-tokenizer', 'gpt-tokenizer, no merge cache', 'js-tiktoken']

// js-tiktoken takes about 3 s a MiB, in proportion to the text: one call on 16 MiB takes
// most of a minute, so it is timed (and checked) up to 1 MiB only.
const TIKTOKEN_UP_TO = MIB

function countImpls(encoding, peer, bytes) {
  const impls = {
    toolclamp: (t) => countTokens(t, { tokenizer: encoding }),
    'gpt-tokenizer': (t) => peer.gpt.countTokens(t, NO_SPECIAL),
    'gpt-tokenizer, no merge cache': (t) => peer.uncached.countTokens(t, NO_SPECIAL),
  }
  if (bytes <= TIKTOKEN_UP_TO) impls['js-tiktoken'] = (t) => peer.tiktoken.encode(t, [], []).length
  return impls
}

/** The implementations whose count differs from toolclamp's (each call also warms it up). */
function countMismatches(impls, text) {
  const expected = impls.toolclamp(text)
  return Object.entries(impls).flatMap(([name, count]) => {
    const got = count(text)
    return got === expected ? [] : [`${name} counts ${got}, toolclamp ${expected}`]
  })
}

/** Checks and times the counts of the mixed text in each encoding; returns the table. */
export async function runTokenCountCases({ quick, failures }) {
  const all = await loadPeers()
  const sizes = quick ? [MIB] : [MIB, 16 * MIB]
  const rounds = quick ? 1 : 2
  const rows = []
  for (const encoding of ENCODINGS) {
    for (const bytes of sizes) {
      const label = `${encoding}, mixed text, ${bytes / MIB} MiB`
      const text = textOf(bytes)
      const impls = countImpls(encoding, all[encoding], bytes)
      const problems = countMismatches(impls, text)
      if (problems.length > 0) {
        failures.push(`countTokens, ${label}:\n  ${problems.join('\n  ')}`)
        continue
      }
      process.stderr.write(`timing countTokens, ${label}…\n`)
      const medians = timeSlow(impls, text, quick || bytes > MIB ? 1 : 3, rounds)
      const time = (name) => (medians[name] === undefined ? '—' : formatTime(medians[name]))
      rows.push([
        label,
        time('toolclamp'),
        ...COUNT_PEERS.map(time),
        ...COUNT_PEERS.map((name) => formatRatio(medians.toolclamp, medians[name])),
      ])
    }
  }
  return {
    title: 'Counting exact tokens of a mixed text',
    code: "`countTokens(text, { tokenizer: 'o200k_base' })`",
    about: `the text is blocks of prose, source code, JSON, coloured logs, CJK, emoji and base64 in a fixed pseudo-random order, fresh ids, numbers and base64 in every block; every count is checked equal to toolclamp’s before timing; ${rounds === 1 ? 'each time is one call' : 'each time is the better of two rounds’ medians (3 calls a round at 1 MiB, 1 at 16 MiB)'}`,
    columns: ['input', 'toolclamp', ...COUNT_PEERS, ...COUNT_PEERS.map((name) => `ratio vs ${name}`)],
    rows,
    headline: true,
    note: 'gpt-tokenizer is called as `countTokens(text, { disallowedSpecial: new Set() })` (special-token spellings count as the plain text they are in a tool’s output, as toolclamp counts them); as shipped it keeps a cache of 100,000 merged pieces (an LRU in a `Map`), which the timed calls find filled by the check; the column without it is a second instance with `setMergeCacheSize(0)`. js-tiktoken is `encode(text, [], []).length`, timed at 1 MiB only: it takes about 3 s a MiB, in proportion to the text, so one call on 16 MiB takes most of a minute.',
  }
}

// ---------------------------------------------------------------------------------------
// A head cut within exact tokens

const MAX_TOKENS = 10_000
const HEAD = { maxTokens: MAX_TOKENS, tokenizer: 'o200k_base' }
const HEAD_BUDGET_MS = 5
const HEAD_PEER = 'gpt-tokenizer encodeGenerator + decode'

/**
 * gpt-tokenizer's quickest way to the first `max` tokens of a text: encode it lazily, stop
 * there and decode them (`encode` would read the whole text first, and `isWithinTokenLimit`
 * says no more than whether the text fits).
 */
function firstTokens(gpt, text, max) {
  const tokens = []
  for (const piece of gpt.encodeGenerator(text, NO_SPECIAL)) {
    for (const token of piece) tokens.push(token)
    if (tokens.length >= max) break
  }
  return gpt.decode(tokens.length > max ? tokens.slice(0, max) : tokens)
}

/** What is wrong with the cuts of `text`: toolclamp's over its tokens, the peer's no start of the text. */
function headProblems(impls, text, oracle) {
  const result = impls.toolclamp(text)
  const tokens = oracle.encode(result.text, [], []).length
  const problems = []
  if (!result.truncated) problems.push('toolclamp did not cut')
  if (tokens > MAX_TOKENS) problems.push(`js-tiktoken counts toolclamp's result at ${tokens} tokens`)
  if (tokens !== result.tokens.output) problems.push(`toolclamp reports ${result.tokens.output} tokens, js-tiktoken counts ${tokens}`)
  const kept = impls[HEAD_PEER](text)
  if (kept.length === 0 || !text.startsWith(kept)) problems.push(`${HEAD_PEER} returned no start of the text`)
  return problems
}

/** Checks and times the 10,000-token head cut with `timeCase`; returns the table. */
export async function runTokenHeadCases({ timeCase, failures }) {
  const { o200k_base: peer } = await loadPeers()
  // An instance of its own, with the cache gpt-tokenizer ships: the shipped one comes out of
  // the counting table with its cache full of other pieces, which slows every lookup.
  const { DEFAULT_MERGE_CACHE_SIZE } = await import('gpt-tokenizer/constants')
  const gpt = await gptInstance('o200k_base', DEFAULT_MERGE_CACHE_SIZE)
  const impls = {
    toolclamp: (t) => toolclamp.truncateText(t, HEAD),
    [HEAD_PEER]: (t) => firstTokens(gpt, t, MAX_TOKENS),
  }
  const rows = []
  for (const bytes of [MIB, 16 * MIB]) {
    const label = `mixed text, ${bytes / MIB} MiB`
    const text = textOf(bytes)
    const problems = headProblems(impls, text, peer.tiktoken)
    if (problems.length > 0) {
      failures.push(`truncateText within ${MAX_TOKENS} tokens, ${label}:\n  ${problems.join('\n  ')}`)
      continue
    }
    process.stderr.write(`timing truncateText within ${MAX_TOKENS} tokens, ${label}…\n`)
    const medians = await timeCase({ impls }, text, bytes)
    rows.push([
      label,
      formatTime(medians.toolclamp),
      formatTime(medians[HEAD_PEER]),
      formatRatio(medians.toolclamp, medians[HEAD_PEER]),
      formatRatio(medians.toolclamp, HEAD_BUDGET_MS),
    ])
  }
  return {
    title: 'A head cut within 10,000 exact tokens',
    code: "`truncateText(text, { maxTokens: 10000, tokenizer: 'o200k_base' })`",
    about: `the mixed text of the counting table; toolclamp’s result, notice included, is checked to be ${MAX_TOKENS.toLocaleString('en-US')} tokens or fewer by js-tiktoken (and as many as it reports) before timing`,
    columns: ['input', 'toolclamp', HEAD_PEER, `ratio vs ${HEAD_PEER}`, `ratio vs ${HEAD_BUDGET_MS} ms`],
    rows,
    headline: true,
    note: `The peer column is gpt-tokenizer’s way to the same budget, not the same output (never checked equal, only to be a start of the text): \`encodeGenerator(text, { disallowedSpecial: new Set() })\` stopped at ${MAX_TOKENS.toLocaleString('en-US')} tokens, then \`decode\` of those; it runs on an instance of its own (with the cache it ships), which no other table has filled; it adds no notice and says nothing of what was dropped, and its last token may end inside a char, whose bytes \`decode\` drops. The last ratio is toolclamp’s time over ${HEAD_BUDGET_MS} ms, the time the cut should take at most.`,
  }
}

// ---------------------------------------------------------------------------------------
// First use of a vocabulary

const FIRST_USE_BUDGET_MS = 200
const FIRST_USE_BUDGET_MIB = 64

// One fresh process: loads toolclamp, then times the first count of 'x' with `how` (an
// encoding, 'estimate', or a gpt-tokenizer module, loaded by the count) and prints
// { ms, peakMiB }. The peak is the process's own (VmHWM).
const FIRST_USE = `
const path = require('node:path');
const [root, how] = process.argv.slice(1);
${PEAK_MIB_SOURCE}
const { countTokens } = require(path.join(root, 'conversation.js'));
const gpt = how.startsWith('gpt-tokenizer/') ? require.resolve(how, { paths: [root] }) : undefined;
const t0 = performance.now();
if (gpt) require(gpt).countTokens('x');
else countTokens('x', { tokenizer: how });
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, peakMiB: peakMiB() }));
`

const firstUse = (how) => JSON.parse(execFileSync(process.execPath, ['-e', FIRST_USE, ROOT, how], { encoding: 'utf8' }))

/** Median time and peak of each `how`, the processes taking turns so a burst of load spoils
 * one of each, not all of one. */
function firstUses(hows, runs) {
  const samples = Object.fromEntries(hows.map((how) => [how, []]))
  for (let k = 0; k < runs; k++) for (const how of hows) samples[how].push(firstUse(how))
  return Object.fromEntries(
    hows.map((how) => [how, { ms: median(samples[how].map((s) => s.ms)), peakMiB: median(samples[how].map((s) => s.peakMiB)) }]),
  )
}

const fileBytes = (file) => statSync(path.join(ROOT, file)).size
const showBytes = (bytes) => `${bytes.toLocaleString('en-US')} B`
const mib = (x) => `${x.toFixed(1)} MiB`

/** The addon this process loaded (there may be others in the root, built for other targets), with its size. */
function addonSizes() {
  return Object.keys(createRequire(import.meta.url).cache)
    .filter((file) => path.dirname(file) === path.resolve(ROOT) && /^toolclamp\..+\.node$/.test(path.basename(file)))
    .map((file) => `\`${path.basename(file)}\` is ${showBytes(statSync(file).size)}`)
}

/** Times the first count with each encoding in fresh processes; returns the table. */
export function runFirstUseCases({ quick }) {
  const gptModule = (encoding) => `gpt-tokenizer/encoding/${encoding}`
  const hows = ['estimate', ...ENCODINGS, ...ENCODINGS.map(gptModule)]
  process.stderr.write('timing the first use of each vocabulary…\n')
  const runs = quick ? 3 : 9
  const found = firstUses(hows, runs)
  // What the first count adds to a process that loaded toolclamp and counted with the estimate.
  const base = found.estimate
  const added = (how) => ({ ms: found[how].ms - base.ms, peakMiB: found[how].peakMiB - base.peakMiB })
  const rows = ENCODINGS.map((encoding) => {
    const mine = added(encoding)
    const gpt = added(gptModule(encoding))
    return [
      encoding,
      formatTime(mine.ms),
      mib(mine.peakMiB),
      formatTime(gpt.ms),
      mib(gpt.peakMiB),
      showBytes(fileBytes(`vocab/${encoding}.bin.br`)),
      formatRatio(mine.ms, gpt.ms),
      formatRatio(mine.ms, FIRST_USE_BUDGET_MS),
      formatRatio(mine.peakMiB, FIRST_USE_BUDGET_MIB),
    ]
  })
  return {
    title: 'The first use of a vocabulary, in a fresh process',
    code: "`countTokens('x', { tokenizer: 'o200k_base' })`",
    about: `the time of the first count and the peak resident memory (VmHWM) it adds, medians of ${runs} processes less those of a process that loads toolclamp and counts with the estimate; gpt-tokenizer’s column is \`require\` of its encoding module and its first \`countTokens\`, less the same process`,
    columns: [
      'encoding',
      'toolclamp',
      'peak RSS added',
      'gpt-tokenizer',
      'peak RSS added',
      'vocabulary file',
      'ratio vs gpt-tokenizer',
      `ratio vs ${FIRST_USE_BUDGET_MS} ms`,
      `ratio vs ${FIRST_USE_BUDGET_MIB} MiB`,
    ],
    rows,
    headline: true,
    note: `Each vocabulary ships brotli-compressed in \`vocab/\` (the file above) and is read, unpacked and indexed on its first use; the addon ${addonSizes().join(', ')}. The last two ratios are toolclamp’s time over ${FIRST_USE_BUDGET_MS} ms and its memory over ${FIRST_USE_BUDGET_MIB} MiB, the most the first use should take.`,
  }
}
