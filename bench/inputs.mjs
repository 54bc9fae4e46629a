// Deterministic benchmark inputs: log-like text in two flavours.
//
// - 'ascii': realistic log lines of 40-120 chars, all ASCII (a one-byte string in V8).
// - 'cjk':   lines mixing Japanese text, emoji (surrogate pairs and BMP symbols) and some
//            ASCII (a two-byte string in V8).
//
// Sizes are UTF-8 bytes: each input is the longest run of whole characters whose UTF-8
// length is at most the target (within 3 bytes of it). The last line is usually cut short,
// so most inputs do not end with '\n'.
//
// `mixedText` is a third input, for token counts: blocks of what a tool returns one after the
// other (prose, source code, JSON, coloured logs, CJK, emoji, base64).

export const KINDS = ['ascii', 'cjk']

export const SIZES = [
  { label: '100 B', bytes: 100 },
  { label: '1 KiB', bytes: 1024 },
  { label: '64 KiB', bytes: 64 * 1024 },
  { label: '1 MiB', bytes: 1024 * 1024 },
  { label: '16 MiB', bytes: 16 * 1024 * 1024 },
]

/** mulberry32: a small, fast, seeded PRNG returning floats in [0, 1). */
function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const LEVELS = ['INFO ', 'INFO ', 'INFO ', 'DEBUG', 'WARN ', 'ERROR']
const WORDS = [
  'request',
  'handled',
  'cache',
  'miss',
  'hit',
  'user',
  'servlet',
  'retry',
  'timeout',
  'connected',
  'closed',
  'upstream',
  'payload',
  'compiled',
  'module',
  'test',
  'passed',
  'failed',
  'queue',
  'flushed',
  'worker',
  'ready',
  'shutdown',
  'config',
  'loaded',
  'from',
  'disk',
  'bytes',
  'written',
  'checksum',
  'ok',
]
const PATHS = ['/api/v1/items', '/api/v1/users', '/healthz', '/static/app.js', '/api/v2/search', '/login']
const JA = [
  'テスト',
  '成功',
  '失敗',
  'ユーザー',
  '設定',
  'を読み込みました',
  'ファイル',
  '接続',
  'しました',
  'エラーが発生しました',
  '処理中',
  '完了',
  '日本語',
  'のテキスト',
  '再試行',
  'タイムアウト',
  'サーバー',
  '東京',
  '更新',
  '確認してください',
  '出力',
  '結果',
  'キャッシュ',
  '削除',
]
const EMOJI = ['😀', '✅', '❌', '🚀', '🔥', '⚠️', '📦', '🎉', '👍', '💡', '⏱️', '🐛']

function pick(rand, list) {
  return list[Math.floor(rand() * list.length)]
}

function pad2(n) {
  return n < 10 ? '0' + n : String(n)
}

function timestamp(rand, i) {
  const s = Math.floor(i / 7)
  return `2025-03-14T${pad2(8 + (((s / 3600) | 0) % 12))}:${pad2(((s / 60) | 0) % 60)}:${pad2(s % 60)}.${String(Math.floor(rand() * 1000)).padStart(3, '0')}Z`
}

/** One ASCII log line of 40-120 chars, without its '\n'. */
function asciiLine(rand, i) {
  const target = 40 + Math.floor(rand() * 81)
  let line
  if (rand() < 0.3) {
    line = `${timestamp(rand, i)} ${pick(rand, LEVELS)} GET ${pick(rand, PATHS)}/${Math.floor(rand() * 100000)} ${rand() < 0.9 ? 200 : 500} ${Math.floor(rand() * 900)}ms`
  } else {
    line = `${timestamp(rand, i)} ${pick(rand, LEVELS)} [worker-${Math.floor(rand() * 8)}]`
  }
  while (line.length < target) line += ' ' + pick(rand, WORDS)
  return line.slice(0, target)
}

/** One line of 40-120 UTF-16 units mixing Japanese, emoji and ASCII, without its '\n'. */
function cjkLine(rand, i) {
  const target = 40 + Math.floor(rand() * 81)
  let line = `[${timestamp(rand, i).slice(11, 19)}] ${pick(rand, EMOJI)} `
  while (line.length < target) {
    const r = rand()
    if (r < 0.6) line += pick(rand, JA)
    else if (r < 0.75) line += pick(rand, EMOJI)
    else if (r < 0.9) line += ' ' + pick(rand, WORDS) + ' '
    else line += `(id=${Math.floor(rand() * 10000)})`
  }
  // Cut at or before the target without splitting a surrogate pair.
  let end = target
  const c = line.charCodeAt(end - 1)
  if (c >= 0xd800 && c <= 0xdbff) end -= 1
  return line.slice(0, end)
}

/** The input of `kind` whose UTF-8 length is `bytes` (or up to 3 less). */
export function makeInput(kind, bytes) {
  const rand = mulberry32(kind === 'ascii' ? 0x7001c1a4 : 0x7001c1a5)
  const line = kind === 'ascii' ? asciiLine : cjkLine
  const parts = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const l = line(rand, i) + '\n'
    parts.push(l)
    size += Buffer.byteLength(l, 'utf8')
  }
  return cutToBytes(parts.join(''), size, bytes)
}

/** `text` (of `size` UTF-8 bytes) without the whole characters past `bytes`, decoded from
 * UTF-8 like real tool output: a flat string, one-byte when it is all ASCII. */
function cutToBytes(text, size, bytes) {
  let end = text.length
  while (size > bytes) {
    const c = text.charCodeAt(end - 1)
    if (c >= 0xdc00 && c <= 0xdfff) {
      end -= 2
      size -= 4
    } else {
      end -= 1
      size -= c < 0x80 ? 1 : c < 0x800 ? 2 : 3
    }
  }
  return Buffer.from(text.slice(0, end), 'utf8').toString('utf8')
}

// ---------------------------------------------------------------------------------------
// Mixed text for token counts. Every block draws fresh ids, numbers and base64 from the
// generator, so a long text keeps meeting pieces it has not seen (a tokenizer's cache of
// merged pieces helps it as much as on real output, not more).

const PROSE = (
  'the a of and to in is that for it as was with be by on not this are or from at which but have an they you were ' +
  'there been one all we their has would when if so more no who about what out up into them can some only other time ' +
  'than then its over also new after first two may server request file build test change user data value error result'
).split(' ')
const HAN =
  '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回'
const ZWJ = ['👍🏽', '👨‍👩‍👧‍👦', '🧑🏿‍💻', '🇯🇵', '❤️', '🏳️‍🌈']
const ANSI_LEVELS = [
  ['INFO', 32],
  ['WARN', 33],
  ['ERROR', 31],
  ['DEBUG', 2],
]

const int = (rand, n) => Math.floor(rand() * n)
const repeat = (n, make) => Array.from({ length: n }, make).join('')
/** A camelCase name such as `userCache3`. */
function ident(rand) {
  const word = pick(rand, WORDS)
  return `${pick(rand, PROSE)}${word[0].toUpperCase()}${word.slice(1)}${int(rand, 10)}`
}

function proseBlock(rand) {
  const sentence = () => {
    const words = Array.from({ length: 6 + int(rand, 16) }, () => (rand() < 0.05 ? String(int(rand, 2000)) : pick(rand, PROSE)))
    if (rand() < 0.3) words[int(rand, words.length)] += ','
    const s = words.join(' ')
    return `${s[0].toUpperCase()}${s.slice(1)}. `
  }
  return repeat(3 + int(rand, 6), sentence)
}

function codeBlock(rand) {
  const [fn, arg, field] = [ident(rand), ident(rand), pick(rand, WORDS)]
  const n = int(rand, 1000)
  switch (int(rand, 3)) {
    case 0:
      return `export async function ${fn}(${arg}: string, limit = ${n}): Promise<number> {\n  const ${field} = await read(${arg}, { limit })\n  if (!${field}.ok) throw new Error(\`${fn} failed: \${${field}.status}\`)\n  return ${field}.items.filter((x) => x.${pick(rand, WORDS)} > ${n}).length\n}\n`
    case 1:
      return `def ${fn}(${arg}, limit=${n}):\n    rows = [r for r in ${arg} if r["${field}"] > limit]\n    for i, row in enumerate(rows):\n        print(f"{i}: {row['${field}']}")\n    return len(rows)\n`
    default:
      return `fn ${fn}(${arg}: &[u8]) -> Result<usize, Error> {\n    let mut ${field} = Vec::with_capacity(${n});\n    for (i, b) in ${arg}.iter().enumerate() {\n        if *b == b'\\n' { ${field}.push(i); }\n    }\n    Ok(${field}.len())\n}\n`
  }
}

function jsonBlock(rand) {
  const records = Array.from({ length: 2 + int(rand, 6) }, () => ({
    id: int(rand, 1e7),
    name: ident(rand),
    ok: rand() < 0.8,
    score: Number(rand().toFixed(4)),
    tags: [pick(rand, WORDS), pick(rand, WORDS)],
    at: timestamp(rand, int(rand, 1e6)),
  }))
  return `${rand() < 0.5 ? JSON.stringify(records) : JSON.stringify(records, null, 2)}\n`
}

function ansiLogBlock(rand) {
  return repeat(4 + int(rand, 12), (_, i) => {
    const [level, colour] = pick(rand, ANSI_LEVELS)
    const words = Array.from({ length: 2 + int(rand, 8) }, () => pick(rand, WORDS)).join(' ')
    return `\x1b[2m${timestamp(rand, i)}\x1b[0m \x1b[${colour}m${level.padEnd(5)}\x1b[0m [\x1b[36mworker-${int(rand, 16)}\x1b[39m] ${words} took \x1b[1m${int(rand, 900)}ms\x1b[22m\n`
  })
}

function cjkBlock(rand) {
  const clause = () =>
    rand() < 0.5 ? repeat(1 + int(rand, 4), () => pick(rand, JA)) : repeat(4 + int(rand, 12), () => HAN[int(rand, HAN.length)])
  const sentence = () => `${clause()}、${clause()}${rand() < 0.2 ? ` ${pick(rand, WORDS)} ${int(rand, 100)} ` : ''}${clause()}。`
  return `${repeat(2 + int(rand, 5), sentence)}\n`
}

function emojiBlock(rand) {
  const emoji = () => (rand() < 0.3 ? pick(rand, ZWJ) : pick(rand, EMOJI))
  return repeat(
    2 + int(rand, 6),
    () => `${emoji()} ${pick(rand, WORDS)} ${pick(rand, WORDS)} ${emoji()}${rand() < 0.3 ? emoji() : ''} ${pick(rand, JA)}\n`,
  )
}

function base64Block(rand) {
  const bytes = Buffer.alloc(57 * (2 + int(rand, 10)))
  for (let i = 0; i < bytes.length; i++) bytes[i] = int(rand, 256)
  return `${bytes.toString('base64').replace(/.{76}/g, '$&\n')}\n`
}

const BLOCKS = [proseBlock, codeBlock, jsonBlock, ansiLogBlock, cjkBlock, emojiBlock, base64Block]

/** Blocks of every kind in a seeded order, `bytes` UTF-8 bytes of them (or up to 3 less). */
export function mixedText(bytes) {
  const rand = mulberry32(0x7001c1a6)
  const parts = []
  let size = 0
  while (size < bytes) {
    const block = `${pick(rand, BLOCKS)(rand)}\n`
    parts.push(block)
    size += Buffer.byteLength(block, 'utf8')
  }
  return cutToBytes(parts.join(''), size, bytes)
}
