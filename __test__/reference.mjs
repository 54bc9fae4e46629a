// A small pure-JS model of toolclamp's contract (index.d.ts), written for clarity, not speed.
// Tests compare the library against it; it builds every candidate result as a real string and
// measures it, so its answers do not depend on any cost arithmetic the library uses.

/** Chars (UTF-16 code units), UTF-8 bytes as Buffer counts them, and lines. */
export function measure(s) {
  let newlines = 0
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) newlines++
  const lines = s === '' ? 0 : newlines + (s.endsWith('\n') ? 0 : 1)
  return { chars: s.length, bytes: Buffer.byteLength(s, 'utf8'), lines }
}

const isHigh = (c) => c >= 0xd800 && c <= 0xdbff
const isLow = (c) => c >= 0xdc00 && c <= 0xdfff

/** A cut at `i` separates neither a surrogate pair nor `\r\n`. */
export function isSafeCut(s, i) {
  if (i <= 0 || i >= s.length) return true
  const before = s.charCodeAt(i - 1)
  const after = s.charCodeAt(i)
  if (isHigh(before) && isLow(after)) return false
  if (before === 13 && after === 10) return false
  return true
}

/** Surrogates that are not half of a pair. */
export function countLoneSurrogates(s) {
  let lone = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (isHigh(c)) {
      if (i + 1 < s.length && isLow(s.charCodeAt(i + 1))) i++
      else lone++
    } else if (isLow(c)) {
      lone++
    }
  }
  return lone
}

/** A limits object with every budget resolved: absent or undefined means Infinity. */
export function resolveLimits(limit) {
  if (typeof limit === 'number') return { maxChars: limit, maxBytes: Infinity, maxLines: Infinity }
  return {
    maxChars: limit.maxChars ?? Infinity,
    maxBytes: limit.maxBytes ?? Infinity,
    maxLines: limit.maxLines ?? Infinity,
  }
}

export function fits(s, limit) {
  const l = resolveLimits(limit)
  const m = measure(s)
  return m.chars <= l.maxChars && m.bytes <= l.maxBytes && m.lines <= l.maxLines
}

/** The limits a text exceeds, in the order chars, bytes, lines. */
export function exceededLimits(s, limit) {
  const l = resolveLimits(limit)
  const m = measure(s)
  const names = []
  if (m.chars > l.maxChars) names.push('chars')
  if (m.bytes > l.maxBytes) names.push('bytes')
  if (m.lines > l.maxLines) names.push('lines')
  return names
}

// Result layout. The notice sits on a line of its own: a '\n' goes after a kept head that does
// not already end with one, and after a notice that does not end with one when a tail follows;
// except that a notice of the library's (`[...` first) after a head that ends inside a line
// follows on that line after a space. No notice, no separators.

/** A notice that goes on the head's open line, after a space. */
export const isInline = (head, notice) => head !== '' && !head.endsWith('\n') && notice.startsWith('[...')

function headSeparator(head, notice) {
  if (head === '' || head.endsWith('\n') || notice === '') return ''
  return isInline(head, notice) ? ' ' : '\n'
}

export function layoutHead(head, notice) {
  return head + headSeparator(head, notice) + notice
}

export function layoutTail(notice, tail) {
  const sep = tail !== '' && notice !== '' && !notice.endsWith('\n') ? '\n' : ''
  return notice + sep + tail
}

export function layoutHeadTail(head, notice, tail) {
  const sep2 = tail !== '' && notice !== '' && !notice.endsWith('\n') ? '\n' : ''
  return head + headSeparator(head, notice) + notice + sep2 + tail
}

/**
 * Whether a cut fits `limit` as the library charges it: an inline notice is planned as one
 * on a line of its own, so its result is charged the line it saves.
 */
export function fitsCharged(result, head, notice, limit) {
  const l = resolveLimits(limit)
  const m = measure(result)
  const lines = m.lines + (isInline(head, notice) ? 1 : 0)
  return m.chars <= l.maxChars && m.bytes <= l.maxBytes && lines <= l.maxLines
}

/** `fitsCharged` of the layout of a cut. */
export function layoutFits(strategy, text, headEnd, tailStart, notice, limit) {
  const head = strategy === 'tail' ? '' : text.slice(0, headEnd)
  return fitsCharged(layout(strategy, text, headEnd, tailStart, notice), head, notice, limit)
}

export function layout(strategy, text, headEnd, tailStart, notice) {
  const head = text.slice(0, headEnd)
  const tail = text.slice(tailStart)
  if (strategy === 'head') return layoutHead(head, notice)
  if (strategy === 'tail') return layoutTail(notice, tail)
  return layoutHeadTail(head, notice, tail)
}

/** Line spans `[start, end)` of a text; each includes its `\n`. */
function lineSpans(s) {
  const spans = []
  let start = 0
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) === 10) {
      spans.push([start, i + 1])
      start = i + 1
    }
  }
  if (start < s.length) spans.push([start, s.length])
  return spans
}

/**
 * What dropping `text.slice(headEnd, tailStart)` omits: its chars and bytes, and the lines of
 * the input that lose every char (a line cut part-way still shows, so it is not counted).
 */
export function omittedBetween(text, headEnd, tailStart) {
  const dropped = text.slice(headEnd, tailStart)
  const lines = lineSpans(text).filter(([start, end]) => start >= headEnd && end <= tailStart).length
  return { chars: dropped.length, bytes: Buffer.byteLength(dropped, 'utf8'), lines }
}

const WHERE = { head: 'end', tail: 'start', headTail: 'middle' }

/** The facts a notice function receives for a given cut. */
export function noticeFacts(text, limit, strategy, headEnd, tailStart) {
  return factsForCuts(text, limit, strategy)(headEnd, tailStart)
}

/** `noticeFacts` for many cuts of one text: what depends only on the text is computed once. */
export function factsForCuts(text, limit, strategy) {
  const total = measure(text)
  const truncatedBy = exceededLimits(text, limit)
  const spans = lineSpans(text)
  return (headEnd, tailStart) => {
    const dropped = text.slice(headEnd, tailStart)
    return {
      where: WHERE[strategy],
      truncatedBy: [...truncatedBy],
      omittedChars: dropped.length,
      omittedBytes: Buffer.byteLength(dropped, 'utf8'),
      omittedLines: spans.filter(([start, end]) => start >= headEnd && end <= tailStart).length,
      totalChars: total.chars,
      totalBytes: total.bytes,
      totalLines: total.lines,
      headEnd,
      tailStart,
    }
  }
}

/** 12345 -> '12,345' */
export function formatCount(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}

function countWithUnit(n, unit) {
  return `${formatCount(n)} ${unit}${n === 1 ? '' : 's'}`
}

/** `370 lines, 48,113 bytes`: omitted amounts in the exceeded units, lines first. */
export function omittedPhrase(facts) {
  const parts = []
  if (facts.truncatedBy.includes('lines')) parts.push(countWithUnit(facts.omittedLines, 'line'))
  if (facts.truncatedBy.includes('chars')) parts.push(countWithUnit(facts.omittedChars, 'char'))
  if (facts.truncatedBy.includes('bytes')) parts.push(countWithUnit(facts.omittedBytes, 'byte'))
  return parts.join(', ')
}

const WHERE_PHRASE = { end: 'at the end', start: 'at the start', middle: 'in the middle' }

export function defaultNotice(facts) {
  return `[... ${omittedPhrase(facts)} truncated ${WHERE_PHRASE[facts.where]} ...]`
}

/** Renders a template the simple way: one regex over `{{`, `}}` and `{name}`. */
export function renderTemplate(template, facts) {
  const values = {
    omitted: omittedPhrase(facts),
    where: facts.where,
    omittedChars: formatCount(facts.omittedChars),
    omittedBytes: formatCount(facts.omittedBytes),
    omittedLines: formatCount(facts.omittedLines),
    totalChars: formatCount(facts.totalChars),
    totalBytes: formatCount(facts.totalBytes),
    totalLines: formatCount(facts.totalLines),
    headEnd: String(facts.headEnd),
    tailStart: String(facts.tailStart),
  }
  return template.replace(/\{\{|\}\}|\{(\w+)\}/g, (match, name) => {
    if (match === '{{') return '{'
    if (match === '}}') return '}'
    if (!(name in values)) throw new Error(`reference: unknown placeholder ${match}`)
    return values[name]
  })
}

/** The notice a caller's `notice` option produces for the given facts. */
export function renderNotice(notice, facts) {
  if (notice === undefined) return defaultNotice(facts)
  if (typeof notice === 'function') return notice(facts)
  return renderTemplate(notice, facts)
}

export const FALLBACK_NOTICES = ['[... truncated ...]', '[...]', '']

// Brute force. `notice` is either a fixed string, or a function of the cut `{ headEnd,
// tailStart }` for notices that depend on what was dropped. Returns the longest kept part
// whose whole result fits, as `{ headEnd, tailStart, notice, text }`, or null when not even
// an empty kept part fits.

const noticeAt = (notice, headEnd, tailStart) => (typeof notice === 'function' ? notice({ headEnd, tailStart }) : notice)

export function referenceHead(text, limit, notice) {
  let best = null
  for (let headEnd = 0; headEnd <= text.length; headEnd++) {
    if (!isSafeCut(text, headEnd)) continue
    const head = text.slice(0, headEnd)
    // The result contains the head, and longer heads measure at least as much: stop here.
    if (!fits(head, limit)) break
    const n = noticeAt(notice, headEnd, text.length)
    const result = layoutHead(head, n)
    if (fitsCharged(result, head, n, limit)) best = { headEnd, tailStart: text.length, notice: n, text: result }
  }
  return best
}

export function referenceTail(text, limit, notice) {
  let best = null
  for (let tailStart = text.length; tailStart >= 0; tailStart--) {
    if (!isSafeCut(text, tailStart)) continue
    const tail = text.slice(tailStart)
    if (!fits(tail, limit)) break
    const n = noticeAt(notice, 0, tailStart)
    const result = layoutTail(n, tail)
    if (fits(result, limit)) best = { headEnd: 0, tailStart, notice: n, text: result }
  }
  return best
}

/**
 * The whole contract for `'head'` and `'tail'`: the text itself when it fits; else the
 * caller's notice, rendered from each candidate cut's own facts, with the longest kept part
 * it allows; when no cut fits with it, the fallbacks in order, the last being no notice.
 */
export function referenceClamp(text, limit, strategy, notice) {
  if (fits(text, limit)) return { headEnd: text.length, tailStart: text.length, notice: null, text }
  const search = strategy === 'head' ? referenceHead : referenceTail
  const factsAt = factsForCuts(text, limit, strategy)
  const rendered = ({ headEnd, tailStart }) => renderNotice(notice, factsAt(headEnd, tailStart))
  for (const candidate of [rendered, ...FALLBACK_NOTICES]) {
    const found = search(text, limit, candidate)
    if (found) return found
  }
  throw new Error('reference: the empty notice always fits')
}
