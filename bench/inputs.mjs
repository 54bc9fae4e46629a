// Deterministic benchmark inputs: log-like text in two flavours.
//
// - 'ascii': realistic log lines of 40-120 chars, all ASCII (a one-byte string in V8).
// - 'cjk':   lines mixing Japanese text, emoji (surrogate pairs and BMP symbols) and some
//            ASCII (a two-byte string in V8).
//
// Sizes are UTF-8 bytes: each input is the longest run of whole characters whose UTF-8
// length is at most the target (within 3 bytes of it). The last line is usually cut short,
// so most inputs do not end with '\n'.

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
  const text = parts.join('')
  // Drop whole characters from the end until the UTF-8 length fits.
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
  // Decode from UTF-8 like real tool output: a flat string, one-byte when it is all ASCII.
  return Buffer.from(text.slice(0, end), 'utf8').toString('utf8')
}
