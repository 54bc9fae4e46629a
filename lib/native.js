'use strict'

// The only module that touches the native binding. Every call passes this module's own
// result buffer, and every answer is copied out of it into a plain object before this
// module returns, so nothing a caller's code does afterwards (a notice function, an
// onSpill callback, a getter, a second copy of this package) can change a result. The
// binding says what it answered in the verdict slot, which is cleared before each call:
// a call that answered nothing can never read as "the text fits".
//
// The slot indices and the codes that cross the boundary come from the binding's LAYOUT,
// the one place they are written (src/layout.rs). So do the signatures: LAYOUT.exports
// names each export's parameters, in order, and the fields of the request block it reads
// (src/exports.rs); __test__/binding.test.mjs checks every call here against them.
//
// The request block: the arguments most calls share (strategy, limits, head ratio and the
// exact/snap/restack flags) are written into the result array (see `request`) instead of
// being passed one by one. The binding copies the block when a call begins, before any JS
// can run, and fills it with NaN, so a field left unwritten is refused, never read stale.

const { describe } = require('./common/format.js')
const { internal, invalid } = require('./common/errors.js')

const { binding, runtime } = loadBinding()

/**
 * The addon, and which build it is: `'native'`, the platform's Node-API addon, or `'wasm'`,
 * the same crate compiled to WebAssembly (the package toolclamp-wasm32-wasi, for platforms
 * without a native build). TOOLCLAMP_RUNTIME picks one: `native` or `wasm` loads only that
 * build; unset, empty or `auto` loads the native addon and falls back to WebAssembly.
 *
 * Both come through the loader `napi build` writes, binding.js: the platform package, a
 * local build, then the WebAssembly build (a local one, then its package). When nothing loads, one error that says what
 * was looked for and what to do, instead of the loader's own guess about npm's optional
 * dependencies.
 */
function loadBinding() {
  const wanted = wantedRuntime()
  let binding
  try {
    binding = withoutWasiWarning(() => (wanted === 'wasm' ? requireWasm() : require('../binding.js')))
  } catch (error) {
    throw missingAddon(error, wanted)
  }
  // The generated loaders stamp what they loaded: a WebAssembly build as 'wasm32-wasi'.
  const runtime = String(binding.__napiBindingTarget).startsWith('wasm32-') ? 'wasm' : 'native'
  if (wanted === 'native' && runtime !== 'native') {
    throw missingAddon(new Error('only the WebAssembly build loaded'), wanted)
  }
  return { binding, runtime }
}

/** TOOLCLAMP_RUNTIME, checked: a misspelt value must not quietly load another build. */
function wantedRuntime() {
  const value = process.env.TOOLCLAMP_RUNTIME
  if (value === undefined || value === '' || value === 'auto') return 'auto'
  if (value === 'native' || value === 'wasm') return value
  throw invalid(TypeError, `TOOLCLAMP_RUNTIME must be native, wasm or auto (or unset), got ${describe(value)}`)
}

/**
 * Runs `load` without the one warning Node 20 and 22 print when node:wasi is first loaded
 * ("WASI is an experimental feature"): it warns that node:wasi's API may change, and the
 * loader pins the version it uses (preview1); a line on every agent's stderr, the CLI's
 * included, would only alarm. Any other warning passes, and emitWarning is itself again
 * when `load` returns.
 */
function withoutWasiWarning(load) {
  const emitWarning = process.emitWarning
  process.emitWarning = function (warning, ...rest) {
    const message = typeof warning === 'string' ? warning : warning?.message
    if (typeof message === 'string' && message.startsWith('WASI is an experimental feature')) return
    return emitWarning.call(this, warning, ...rest)
  }
  try {
    return load()
  } finally {
    process.emitWarning = emitWarning
  }
}

/**
 * binding.js loading only the WebAssembly build (a local one, toolclamp.wasi.cjs, then the
 * package): what the generated loader does while NAPI_RS_FORCE_WASI is `error`. The flag is
 * set for the load only. binding.js is then the WebAssembly build for the whole process,
 * as it is when it falls back to it.
 */
function requireWasm() {
  const saved = process.env.NAPI_RS_FORCE_WASI
  process.env.NAPI_RS_FORCE_WASI = 'error'
  try {
    return require('../binding.js')
  } finally {
    if (saved === undefined) delete process.env.NAPI_RS_FORCE_WASI
    else process.env.NAPI_RS_FORCE_WASI = saved
  }
}

/** The platform as napi-rs names its packages: `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`. */
function platformName() {
  const { platform, arch } = process
  if (platform === 'win32') return `win32-${arch}-msvc`
  if (platform !== 'linux') return `${platform}-${arch}`
  let glibc
  try {
    glibc = process.report?.getReport?.().header?.glibcVersionRuntime
  } catch {
    // No report: taken as musl, the libc a Linux without glibc has.
  }
  return `${platform}-${arch}-${glibc ? 'gnu' : 'musl'}`
}

/** The error for no addon; the loader's own error (its guess about npm included) is its cause. */
function missingAddon(error, wanted) {
  const WASM_PACKAGE = 'toolclamp-wasm32-wasi'
  const name = platformName()
  const libc = name.endsWith('-gnu') ? ' (glibc)' : name.endsWith('-musl') ? ' (musl)' : ''
  const where = `${process.platform}-${process.arch}${libc}`
  const broken = wanted === 'wasm' ? undefined : brokenPackage(`toolclamp-${name}`, error)
  const fromSource = 'build from source in a clone with Rust installed: npm install && npm run build. '
  let message
  if (wanted === 'wasm') {
    message =
      `toolclamp: TOOLCLAMP_RUNTIME=wasm, and the WebAssembly build did not load. ` +
      `It looked for a local build, toolclamp.wasi.cjs, and for the package ${WASM_PACKAGE}. ` +
      `Install it (npm i ${WASM_PACKAGE}), or unset TOOLCLAMP_RUNTIME to use the native addon. `
  } else if (broken !== undefined) {
    message =
      `toolclamp: the native addon for ${where} did not load. ` +
      `The package toolclamp-${name} is installed, but its binary failed to load: ${broken} ` +
      `It is damaged, or made for another CPU or libc (node_modules copied from another machine). ` +
      `Reinstall it (rm -rf node_modules/toolclamp-${name} && npm install), or ${fromSource}`
  } else {
    message =
      `toolclamp: no native addon for ${where}. ` +
      `It looked for the package toolclamp-${name} and for a local build, toolclamp.${name}.node` +
      (wanted === 'native' ? ' (TOOLCLAMP_RUNTIME=native: not for the WebAssembly build). ' : `, then for ${WASM_PACKAGE}. `) +
      `Install the package for this platform (npm i toolclamp-${name}; npm skips it when the ` +
      `lockfile was made on another platform, or with --no-optional / --omit=optional); ` +
      `on a platform without a native build, install the WebAssembly build (npm i ${WASM_PACKAGE}), ` +
      `which runs wherever Node 20 does; or ${fromSource}` +
      `Native builds: linux x64/arm64 (glibc 2.17+ and musl), macOS x64/arm64, Windows x64/arm64. `
  }
  const addon = new Error(`${message}What the loader tried is in this error's cause.`)
  addon.code = 'TOOLCLAMP_NO_ADDON'
  addon.cause = error
  return addon
}

/**
 * When the platform package `name` is installed (so its binary is what failed), the loader's
 * error for that binary, found by its path in the chain of causes; undefined when the package
 * is not there. The system's own words can mislead (glibc says "No such file or directory" of
 * a binary for another CPU), hence the sentence after it.
 */
function brokenPackage(name, error) {
  let binary
  try {
    binary = require.resolve(name, { paths: [__dirname] })
  } catch {
    return undefined
  }
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause.message.includes(binary)) return cause.message.endsWith('.') ? cause.message : `${cause.message}.`
  }
  return `${binary} (see this error's cause).`
}

// Copies of the layout: objects made by Node-API are slow to read (dictionary mode),
// plain copies read as fast as constants.
const LAYOUT = { ...binding.LAYOUT }
const SLOTS = { ...LAYOUT.slots }
const REQUEST = { ...LAYOUT.request }
const FACTS = { ...LAYOUT.facts }
const VERDICT = SLOTS.verdict
const VERDICTS = { ...LAYOUT.verdicts }
const DIMS = [...LAYOUT.dims]
const POSITIONS = [...LAYOUT.positions]
/** Strategy names; a name's index is its code. */
const STRATEGIES = Object.freeze([...LAYOUT.strategies])
const STRATEGY_CODES = new Map(STRATEGIES.map((name, code) => [name, code]))
const AUTO = STRATEGY_CODES.get('auto')
// Tokenizer codes of the request block: 0 is none (no exact token limit).
const TOKENIZER_CODES = new Map(LAYOUT.tokenizers.map((name, code) => [name, code]))

// The binding writes into the ArrayBuffer (cheaper to reach from Node-API than the typed
// array); this module reads it through `out`.
const slotBuffer = new ArrayBuffer(LAYOUT.bufferLength * Float64Array.BYTES_PER_ELEMENT)
const out = new Float64Array(slotBuffer)

// A string with a char above U+00FF must be copied as UTF-16; otherwise Latin-1 is exact
// and cheaper. V8 answers this at once for one-byte strings.
const WIDE = /[^\x00-\xff]/

function isWide(text) {
  if (!WIDE.test(text)) return false
  // A match keeps its subject alive as RegExp.input (a legacy static) until the next
  // match: point it at a constant, or a huge text would outlive the call.
  WIDE.test('\u0100')
  return true
}

// Above this length a chars-only plan copies the windows the core names (about a
// thousand units) instead of the whole string.
const WINDOWS_MIN_LENGTH = 2048
/** The longest text a chars-only plan scans for notices before planning it through windows. */
const RESTACK_SCAN_MAX = 256 * 1024

// Lengths read the way the binding reads them: a subclass's own `length` getter must not
// make JS and Rust disagree about what a Uint8Array holds.
const typedArray = Object.getPrototypeOf(Uint8Array.prototype)
const intrinsic = (name) => Object.getOwnPropertyDescriptor(typedArray, name).get
const byteLengthOf = intrinsic('byteLength')
const byteOffsetOf = intrinsic('byteOffset')
const bufferOf = intrinsic('buffer')

/** A Buffer over the bytes of a Uint8Array, found as the binding finds them. */
function bufferView(bytes) {
  return Buffer.from(bufferOf.call(bytes), byteOffsetOf.call(bytes), byteLengthOf.call(bytes))
}

/** The error for a call whose answer is not one it may give: a bug, never a result. */
function noAnswer(name) {
  const got = out[VERDICT]
  return internal(`${name} answered ${got === 0 ? 'nothing' : `with verdict ${got}`}`)
}

/** Throws unless the call just made answered with `verdict`. */
function expect(verdict, name) {
  if (out[VERDICT] !== verdict) throw noAnswer(name)
}

function codeOf(strategy) {
  const code = STRATEGY_CODES.get(strategy)
  if (code === undefined) throw invalid(TypeError, `unknown strategy ${describe(strategy)}`)
  return code
}

/** The names of the dimensions in a `truncatedBy` mask. */
function dimNames(mask) {
  const names = []
  for (let bit = 0; bit < DIMS.length; bit++) if (mask & (1 << bit)) names.push(DIMS[bit])
  return names
}

// Templates the core accepted. A bad template must fail on every call, even when the text
// fits and is never planned; the cache spares the native check on repeat calls.
const checkedTemplates = new Set()
const CHECKED_TEMPLATES_MAX = 256

/** Returns `template`, or throws the TypeError a plan with it would. */
function checkTemplate(template) {
  if (!checkedTemplates.has(template)) {
    binding.checkTemplate(template)
    if (checkedTemplates.size >= CHECKED_TEMPLATES_MAX) checkedTemplates.clear()
    checkedTemplates.add(template)
  }
  return template
}

/**
 * The notice as the binding takes it: undefined, a template, or a function the binding
 * calls with no arguments once it has written the facts of the cut into `out`.
 */
function bindingNotice(notice) {
  if (typeof notice !== 'function') return notice
  return () => {
    // Read before the caller's function runs: it may clamp again and reuse `out`.
    const text = notice(noticeFacts())
    if (typeof text !== 'string') throw invalid(TypeError, `notice function must return a string, got ${describe(text)}`)
    return text
  }
}

/**
 * The facts object a notice function receives (NoticeFacts in index.d.ts), from the facts
 * the binding wrote. A literal, not a loop over LAYOUT.facts: V8 gives it one shape, and
 * the loop made each call of a notice function about 2 µs slower. binding.test.mjs checks
 * it names every fact of LAYOUT.facts, in order.
 */
function noticeFacts() {
  return {
    where: POSITIONS[out[FACTS.where]],
    truncatedBy: dimNames(out[FACTS.truncatedBy]),
    omittedChars: out[FACTS.omittedChars],
    omittedBytes: out[FACTS.omittedBytes],
    omittedLines: out[FACTS.omittedLines],
    totalChars: out[FACTS.totalChars],
    totalBytes: out[FACTS.totalBytes],
    totalLines: out[FACTS.totalLines],
    headEnd: out[FACTS.headEnd],
    tailStart: out[FACTS.tailStart],
    fromLine: out[FACTS.fromLine],
    toLine: out[FACTS.toLine],
  }
}

/**
 * Writes the request block most calls read: a strategy code, the limits (Infinity for
 * none) and the head ratio. A call's flags (exact, snap, restack) are written beside it by
 * the caller. Written last before the call, once the limits are read from the caller's
 * object and the notice is bound, so no code of the caller's runs in between.
 */
function request(code, maxChars, maxBytes, maxLines, headRatio) {
  out[REQUEST.strategy] = code
  out[REQUEST.maxChars] = maxChars
  out[REQUEST.maxBytes] = maxBytes
  out[REQUEST.maxLines] = maxLines
  out[REQUEST.headRatio] = headRatio
}

/**
 * Writes the flags of a plan of a text into the request block, with its limit in exact
 * tokens (`tokens`: `{ max, tokenizer }` of lib/tokens/tokenizers.js, or undefined).
 */
function requestFlags(exact, snap, restack, tokens) {
  out[REQUEST.exact] = exact
  out[REQUEST.snap] = snap
  out[REQUEST.restack] = restack
  out[REQUEST.maxTokens] = tokens === undefined ? Infinity : tokens.max
  out[REQUEST.tokenizer] = tokens === undefined ? 0 : tokens.tokenizer.code
}

/** The token counter a plan passes the binding: the caller's function, checked. */
function tokenCounter(tokens) {
  return tokens === undefined ? undefined : tokens.tokenizer.count
}

/** The plan's counts in exact tokens, when it was planned under a limit in them. */
function withTokens(plan, tokens) {
  if (tokens === undefined) return plan
  plan.tokens = {
    tokenizer: tokens.tokenizer.name,
    output: out[SLOTS.outputTokens],
    total: out[SLOTS.totalTokens],
    totalExact: out[SLOTS.totalTokensExact] === 1,
  }
  // -1: the text was never counted whole (a caller's function counts only candidates).
  if (plan.tokens.total < 0) plan.tokens.total = undefined
  plan.tokensBound = out[SLOTS.tokensBound] === 1
  return plan
}

/** Chars, bytes and lines from the three slots starting at `first`. */
function measureAt(first) {
  return { chars: out[first], bytes: out[first + 1], lines: out[first + 2] }
}

/**
 * The plan the binding left in `out`, as a plain object: whether it cuts, `glue`, the
 * offsets, the `truncatedBy` mask and the `total`, `output` and `omitted` measures.
 */
function planFromOut(cut, glue) {
  return {
    cut,
    glue,
    headEnd: out[SLOTS.headEnd],
    tailStart: out[SLOTS.tailStart],
    truncatedBy: out[SLOTS.truncatedBy],
    total: measureAt(SLOTS.totalChars),
    output: measureAt(SLOTS.outputChars),
    omitted: measureAt(SLOTS.omittedChars),
  }
}

/**
 * Each UTF-16 unit is at most 3 UTF-8 bytes and at most one line: this proves a text of
 * `length` units fits `limits` without reading it.
 */
function fitsByLength(length, limits) {
  return (
    length <= limits.maxChars &&
    length * 3 <= limits.maxBytes &&
    length <= limits.maxLines &&
    (limits.tokens === undefined || fitsTokensByLength(length, limits.tokens))
  )
}

/**
 * A byte-pair encoding's token is at least one byte, so a text of `length` units (at most
 * 3 bytes each) fits `tokens` of an encoding when `3 × length` does. Nothing is known of a
 * caller's counter.
 */
function fitsTokensByLength(length, tokens) {
  return tokens.tokenizer.count === undefined && length * 3 <= tokens.max
}

/** A plan answered with its glue: a string when it cuts, null when the text fits. */
function readPlan(glue, name) {
  const verdict = out[VERDICT]
  const cut = verdict === VERDICTS.cut
  if (!(cut ? typeof glue === 'string' : verdict === VERDICTS.fits && glue === null)) throw noAnswer(name)
  return planFromOut(cut, glue)
}

/**
 * Plans the cut of `text` under `limits` ({ maxChars, maxBytes, maxLines }, Infinity for
 * none). Counts are exact in every dimension with `exact`; otherwise only in the limited
 * ones (a long chars-only plan reads a few windows of the text and knows no byte or line
 * totals). The result is `text.slice(0, headEnd) + glue + text.slice(tailStart)`.
 *
 * With `restack`, a text that carries notices of an earlier clamp is planned as the
 * original they stand for, so the one notice of the result counts the original (see
 * crates/toolclamp-core/src/restack.rs). A long chars-only plan reads only a few windows
 * of the text, too little to find them: up to RESTACK_SCAN_MAX chars it is taken only when
 * the text holds no `[... ` (how every notice that can be read starts); a longer text is
 * planned through windows as it is (see mayCarryNotice).
 */
function planText(text, strategy, limits, headRatio, notice, exact, snap = false, restack = true) {
  const code = codeOf(strategy)
  const n = text.length
  if (
    exact &&
    limits.tokens === undefined &&
    (n <= FIT_COUNT_MAX || (n <= FIT_COUNT_ONE_BYTE_MAX && !isWide(text))) &&
    fitsByLength(n, limits) &&
    code !== AUTO &&
    !(restack && mayCarryNotice(text))
  ) {
    return fitPlan(text, strategy)
  }
  return planNative(text, strategy, code, limits, headRatio, notice, exact, snap, restack)
}

// Up to this length a text whose length proves it fits is counted here: the two counts
// cost less than the call to the binding would. A one-byte string is counted here up to
// FIT_COUNT_ONE_BYTE_MAX: Buffer.byteLength of it is fast, where a two-byte string's runs
// at well under a GB/s.
const FIT_COUNT_MAX = 256
const FIT_COUNT_ONE_BYTE_MAX = 2048

/**
 * The plan of a short text that fits, as the core would answer it: nothing cut, every
 * count its total. Its rules are the core's (crates/toolclamp-core: a line is a line feed
 * or an open last line, a lone surrogate is U+FFFD's 3 bytes, as Buffer.byteLength counts
 * it); __test__/fits.test.mjs checks this plan against the binding's on random texts. Not
 * for 'auto' (which reads the text to choose) or a text that may carry a notice (restack).
 */
function fitPlan(text, strategy) {
  const n = text.length
  let newlines = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) newlines++
  const lines = n === 0 || text.charCodeAt(n - 1) === 10 ? newlines : newlines + 1
  const bytes = Buffer.byteLength(text)
  return {
    cut: false,
    glue: null,
    headEnd: n,
    tailStart: n,
    truncatedBy: 0,
    total: { chars: n, bytes, lines },
    output: { chars: n, bytes, lines },
    omitted: { chars: 0, bytes: 0, lines: 0 },
    strategy,
  }
}

/** planText through the binding (`code` is the strategy's code). */
function planNative(text, strategy, code, limits, headRatio, notice, exact, snap = false, restack = true) {
  const { maxChars, maxBytes, maxLines, tokens } = limits
  const n = text.length
  out[VERDICT] = 0
  if (
    tokens === undefined &&
    maxBytes === Infinity &&
    maxLines === Infinity &&
    notice === undefined &&
    !exact &&
    !snap &&
    code !== AUTO &&
    n > WINDOWS_MIN_LENGTH &&
    !(restack && n <= RESTACK_SCAN_MAX && mayCarryNotice(text))
  ) {
    // Only chars bind: the core names the few hundred units such a plan reads, so a long
    // string is never copied whole.
    request(code, maxChars, maxBytes, maxLines, headRatio)
    binding.charsWindows(slotBuffer, n)
    expect(VERDICTS.windows, 'charsWindows')
    const from0 = out[SLOTS.window0From]
    const from1 = out[SLOTS.window1From]
    const from2 = out[SLOTS.window2From]
    const w0 = text.slice(from0, out[SLOTS.window0To])
    const w1 = text.slice(from1, out[SLOTS.window1To])
    const w2 = text.slice(from2, out[SLOTS.window2To])
    const wide = isWide(w0) || isWide(w1) || isWide(w2)
    out[VERDICT] = 0
    request(code, maxChars, maxBytes, maxLines, headRatio)
    const plan = readPlan(binding.planWindows(slotBuffer, w0, from0, w1, from1, w2, from2, n, wide), 'planWindows')
    plan.strategy = strategy
    return plan
  }
  const wide = isWide(text)
  const bound = bindingNotice(notice)
  const counter = tokenCounter(tokens)
  request(code, maxChars, maxBytes, maxLines, headRatio)
  requestFlags(exact, snap, restack, tokens)
  return withTokens(withStrategy(readPlan(binding.plan(slotBuffer, text, wide, bound, counter), 'plan')), tokens)
}

/**
 * Whether `text` may carry a notice of an earlier clamp: it holds `[... `. V8 scans the
 * string in place, but at memchr speed for '[': about 3 ms for 16 MiB of log lines, where
 * the windows plan takes 2 µs. So only texts up to RESTACK_SCAN_MAX chars are scanned (at
 * most about 50 µs): the results of clamps, which is where notices are, are far shorter.
 */
function mayCarryNotice(text) {
  return text.indexOf('[... ') !== -1
}

/**
 * Whether a chars-only plan of `text` with the default notice must read it whole: it is
 * scanned for notices (up to RESTACK_SCAN_MAX chars) and holds one. Otherwise such a plan
 * needs only the units next to its cuts.
 */
function mustReadWhole(text) {
  return text.length <= RESTACK_SCAN_MAX && mayCarryNotice(text)
}

/**
 * Whether `text` is ASCII: its UTF-8 length is its length. A one-byte string is answered by
 * WIDE at once and counted in place by Buffer.byteLength (memory speed); a string with a
 * char above U+00FF is answered at that char, never counted. (A two-byte string of Latin-1
 * chars alone, which slicing can make, is scanned by WIDE and then counted: two passes at
 * the speed of a two-byte scan, no more than planning it in the core costs.)
 */
function isAscii(text) {
  return !isWide(text) && Buffer.byteLength(text) === text.length
}

/** The plan with the strategy the binding used (`auto` resolved to 'head' or 'headTail'). */
function withStrategy(plan) {
  plan.strategy = STRATEGIES[out[SLOTS.strategy]]
  return plan
}

/**
 * `planText` over the concatenation of `texts` (whose lengths sum to `totalLength`),
 * without building it; offsets are into the concatenation.
 */
function planTexts(texts, totalLength, strategy, limits, headRatio, notice, exact, snap = false, restack = true) {
  let wide = false
  for (let k = 0; k < texts.length && !wide; k++) wide = isWide(texts[k])
  const { maxChars, maxBytes, maxLines, tokens } = limits
  const code = codeOf(strategy)
  const bound = bindingNotice(notice)
  const counter = tokenCounter(tokens)
  out[VERDICT] = 0
  request(code, maxChars, maxBytes, maxLines, headRatio)
  requestFlags(exact, snap, restack, tokens)
  const glue = binding.planList(slotBuffer, texts, wide, totalLength, bound, counter)
  return withTokens(withStrategy(readPlan(glue, 'planList')), tokens)
}

/**
 * Plans a Uint8Array of UTF-8 as the text it decodes to, decoding only what is kept.
 * Returns the plan (offsets in bytes of the decoded text's UTF-8, counts exact) with
 * `text`, the clamped text.
 */
function planBytes(bytes, strategy, limits, headRatio, notice, snap = false) {
  // No bytes (an empty or a detached array): the empty text, as JS sees the array.
  if (byteLengthOf.call(bytes) === 0) return { ...planText('', strategy, limits, headRatio, notice, true), text: '' }
  const { maxChars, maxBytes, maxLines } = limits
  const code = codeOf(strategy)
  const bound = bindingNotice(notice)
  out[VERDICT] = 0
  request(code, maxChars, maxBytes, maxLines, headRatio)
  out[REQUEST.snap] = snap
  const text = binding.planBuffer(slotBuffer, bytes, bound)
  const verdict = out[VERDICT]
  if (typeof text !== 'string' || (verdict !== VERDICTS.cut && verdict !== VERDICTS.fits)) throw noAnswer('planBuffer')
  const plan = withStrategy(planFromOut(verdict === VERDICTS.cut, null))
  plan.text = text
  return plan
}

/**
 * The head/tail view of a tool's output with line indicators, under `maxChars` and
 * `maxLines`. The plan carries `headLines` and `tailLines`, and when it cuts the pieces
 * of `first + text.slice(0, headEnd) + glue + last + text.slice(tailStart)`.
 */
function planToolOutput(text, maxChars, maxLines, headRatio, notice) {
  const wide = isWide(text)
  const bound = bindingNotice(notice)
  out[VERDICT] = 0
  out[REQUEST.maxChars] = maxChars
  out[REQUEST.maxLines] = maxLines
  out[REQUEST.headRatio] = headRatio
  const pieces = binding.planToolOutput(slotBuffer, text, wide, bound)
  const plan = readPlan(pieces, 'planToolOutput')
  plan.headLines = out[SLOTS.headLines]
  plan.tailLines = out[SLOTS.tailLines]
  if (plan.cut) {
    const glueStart = out[SLOTS.firstLength]
    const glueEnd = glueStart + out[SLOTS.glueLength]
    plan.first = pieces.slice(0, glueStart)
    plan.glue = pieces.slice(glueStart, glueEnd)
    plan.last = pieces.slice(glueEnd)
  }
  return plan
}

/**
 * Whether the encoding `name` is loaded; with `vocab` (its raw vocabulary), after loading it.
 * Loaded once per process: every copy of this module and every worker shares it.
 */
function loadTokenizer(name, vocab) {
  return binding.loadTokenizer(slotBuffer, name, vocab)
}

/** The encoding a tokenizer name stands for (an encoding's or an OpenAI model's), or null. */
function encodingOf(name) {
  return binding.encodingOf(name)
}

/** The tokens of `text` in a loaded encoding, or undefined as soon as they are over `limit`. */
function countTokens(text, encoding, limit = Infinity) {
  out[VERDICT] = 0
  binding.countTokens(slotBuffer, text, isWide(text), TOKENIZER_CODES.get(encoding), limit)
  expect(VERDICTS.fits, 'countTokens')
  return out[SLOTS.fits] === 1 ? out[SLOTS.totalTokens] : undefined
}

/** The most UTF-8 bytes one token of the loaded encoding `name` stands for. */
function longestToken(name) {
  return binding.longestToken(name)
}

/**
 * The largest byte budget from `low` up to `high` whose result `count(budget)` finds within
 * `max` tokens, by the core's search: `low` is taken to be within, `high` over (`highCount`
 * its tokens, a lower bound, or -1 when not counted); `first` (-1: none) is a bound tried
 * first. `count` returns the result's tokens, or any number above `max` once they are
 * over. For a limit in exact tokens on a clamp that runs in JS (lib/tokens/fit.js).
 */
function searchBudget(low, high, highCount, max, first, count) {
  return binding.searchBudget(low, high, highCount, max, first, count)
}

/** Chars, bytes and lines of `text`. */
function measureText(text) {
  out[VERDICT] = 0
  binding.measure(slotBuffer, text, isWide(text))
  expect(VERDICTS.measured, 'measure')
  return measureAt(SLOTS.totalChars)
}

/** Chars, bytes, lines and estimated tokens of `text`. */
function measureTokens(text) {
  out[VERDICT] = 0
  binding.measure(slotBuffer, text, isWide(text))
  expect(VERDICTS.measured, 'measure')
  const m = measureAt(SLOTS.totalChars)
  m.tokens = out[SLOTS.totalTokens]
  return m
}

/** UTF-8 bytes per estimated token, and the estimate of one media part (src/layout.rs). */
const BYTES_PER_TOKEN = LAYOUT.bytesPerToken
const MEDIA_TOKENS = LAYOUT.mediaTokens
const BUDGET_ACTIONS = [...LAYOUT.budgetActions]

/** The estimated tokens of `bytes` UTF-8 bytes, as the core estimates them (budget.rs). */
function tokensOfBytes(bytes) {
  return Math.ceil(bytes / BYTES_PER_TOKEN)
}
const BUDGET_FIELDS = LAYOUT.budgetFields.length

/**
 * Plans the tool results of a conversation into token budgets. `sizes` lists, oldest
 * first, `{ textTokens, textChars, fixedTokens, markerTokens }`; the answer is `{ actions,
 * tokensBefore, tokensAfter, fits }`, an action per result: `{ action: 'keep' | 'clamp' |
 * 'elide', tokens }` (the text tokens a clamp keeps).
 */
function planBudget(sizes, perResult, aggregate, minKeepChars, protectRecent) {
  const fields = new Float64Array(sizes.length * BUDGET_FIELDS)
  const names = LAYOUT.budgetFields
  for (let i = 0; i < sizes.length; i++) {
    for (let f = 0; f < BUDGET_FIELDS; f++) fields[i * BUDGET_FIELDS + f] = sizes[i][names[f]]
  }
  out[VERDICT] = 0
  binding.planBudget(slotBuffer, fields, perResult, aggregate, minKeepChars, protectRecent)
  expect(VERDICTS.budgeted, 'planBudget')
  const actions = new Array(sizes.length)
  for (let i = 0; i < sizes.length; i++) {
    const action = BUDGET_ACTIONS[fields[i * BUDGET_FIELDS]]
    if (action === undefined) throw noAnswer('planBudget')
    actions[i] = { action, tokens: fields[i * BUDGET_FIELDS + 1] }
  }
  return { actions, tokensBefore: out[SLOTS.tokensBefore], tokensAfter: out[SLOTS.tokensAfter], fits: out[SLOTS.fits] === 1 }
}

/**
 * The marker that stands for an elided tool result of `chars`, `lines` and `tokens`, naming
 * `spillPath` (or saying to rerun the tool when null): `{ text, tokens }`.
 */
function elisionMarker(chars, lines, tokens, spillPath) {
  out[VERDICT] = 0
  const text = binding.elisionMarker(slotBuffer, chars, lines, tokens, spillPath)
  if (out[VERDICT] !== VERDICTS.marker || typeof text !== 'string') throw noAnswer('elisionMarker')
  return { text, tokens: out[SLOTS.totalTokens] }
}

/** The rules of terminal normalisation, by bit of a flags number. */
const NORMALIZE_FLAGS = Object.freeze([...LAYOUT.normalizeFlags])

/** The longest string a JS engine here can make (V8: 2^29 - 24 units). */
const MAX_STRING_LENGTH = require('node:buffer').constants.MAX_STRING_LENGTH

/**
 * A string or UTF-8 bytes as a terminal would finally show it, under `flags`; `undefined`
 * when that text is longer than a string can be (the core measures it before any string is
 * made).
 */
function normalizeTerminal(text, flags) {
  out[VERDICT] = 0
  const normalized =
    typeof text === 'string'
      ? binding.normalizeTerminal(slotBuffer, text, isWide(text), flags, MAX_STRING_LENGTH)
      : binding.normalizeTerminalBuffer(slotBuffer, byteLengthOf.call(text) === 0 ? Buffer.alloc(0) : text, flags, MAX_STRING_LENGTH)
  if (out[VERDICT] !== VERDICTS.normalized || !(typeof normalized === 'string' || normalized === null)) {
    throw noAnswer('normalizeTerminal')
  }
  return normalized ?? undefined
}

/**
 * Whether the normalised text of `text` (a string, or UTF-8 bytes) might be longer than a
 * string can be: the core's bound on its length (O(1), from the length alone).
 */
function normalizedMayOutgrowString(text) {
  const bytes = typeof text !== 'string'
  const length = bytes ? byteLengthOf.call(text) : text.length
  out[VERDICT] = 0
  if (binding.normalizedBound(slotBuffer, length, bytes) !== undefined) throw noAnswer('normalizedBound')
  expect(VERDICTS.normalized, 'normalizedBound')
  return out[SLOTS.totalChars] > MAX_STRING_LENGTH
}

/**
 * Clamps a JSON text (as `JSON.stringify(value)` wrote it) under `limits`, which apply to
 * `JSON.stringify(value, null, gap)`: `{ cut, answer, total, output }`, where `answer` is
 * null when it fits, else the core's elisions (a JSON array on one line), a line feed and
 * the clamped value as compact JSON, empty when no form of it fits (lib/json/json.js reads it).
 */
function planJson(text, strategy, limits, headRatio, inlineMarkers, gap) {
  const wide = isWide(text)
  requestJson(strategy, limits, headRatio)
  return jsonPlan(binding.clampJson(slotBuffer, text, wide, inlineMarkers, gap), 'clampJson')
}

/** Clears the verdict and writes the request block of a JSON clamp. */
function requestJson(strategy, limits, headRatio) {
  const { maxChars, maxBytes, maxLines } = limits
  const code = codeOf(strategy)
  out[VERDICT] = 0
  request(code, maxChars, maxBytes, maxLines, headRatio)
}

/**
 * planJson for a text a user gave: `cut` is false when the text fits as it is; otherwise
 * the value is rendered with `gap` (`total` is the text's measure, `output` the result's).
 * Throws a TypeError "text: not valid JSON at position N" for a text that is not JSON.
 */
function planJsonText(text, strategy, limits, headRatio, inlineMarkers, gap) {
  requestJson(strategy, limits, headRatio)
  return jsonPlan(binding.clampJsonText(slotBuffer, text, inlineMarkers, gap), 'clampJsonText')
}

function jsonPlan(answer, name) {
  const cut = out[VERDICT] === VERDICTS.cut
  if (!(cut ? typeof answer === 'string' : out[VERDICT] === VERDICTS.fits && answer === null)) throw noAnswer(name)
  return { cut, answer, total: measureAt(SLOTS.totalChars), output: measureAt(SLOTS.outputChars) }
}

/**
 * Where the values at `paths` (arrays of keys and indices) are in the JSON `text`: a
 * `[start, end]` of UTF-16 offsets each, or null where a path leads nowhere. A key names
 * its last member, the one JSON.parse keeps.
 */
function locateJson(text, paths) {
  out[VERDICT] = 0
  const answer = binding.locateJson(slotBuffer, text, isWide(text), JSON.stringify(paths))
  expect(VERDICTS.located, 'locateJson')
  return JSON.parse(answer)
}

const ERROR_KINDS = [...LAYOUT.errorKinds]

/**
 * What a provider's error says, from the texts found in it (joined), its HTTP status (-1
 * for none) and its code ('' for none): `{ kind, provider, limitTokens, requestedTokens }`,
 * with null where the error does not say.
 */
function classifyError(message, status, code) {
  out[VERDICT] = 0
  const provider = binding.classifyError(slotBuffer, message, isWide(message), status, code)
  if (out[VERDICT] !== VERDICTS.classified || (provider !== null && typeof provider !== 'string')) throw noAnswer('classifyError')
  const count = (slot) => (out[slot] < 0 ? null : out[slot])
  return {
    kind: ERROR_KINDS[out[SLOTS.errorKind]],
    provider,
    limitTokens: count(SLOTS.limitTokens),
    requestedTokens: count(SLOTS.requestedTokens),
  }
}

function readPage(banner, name) {
  if (out[VERDICT] !== VERDICTS.page || (banner !== null && typeof banner !== 'string')) throw noAnswer(name)
  return {
    banner,
    pageStart: out[SLOTS.pageStart],
    pageEnd: out[SLOTS.pageEnd],
    total: measureAt(SLOTS.totalChars),
    shown: measureAt(SLOTS.shownChars),
    firstLine: out[SLOTS.firstLine],
    lastLine: out[SLOTS.lastLine],
    startByte: out[SLOTS.startByte],
    endByte: out[SLOTS.endByte],
    nextLine: out[SLOTS.nextLine],
    nextColumn: out[SLOTS.nextColumn],
  }
}

/**
 * One page of `text` (a string, or a non-empty Uint8Array of UTF-8) from 1-based `line` and
 * `column`. `banner` is null when the page is the whole text; `pageStart`/`pageEnd` are
 * positions of `text` (UTF-16 units, or bytes), `nextLine` 0 when nothing follows.
 */
function pageOf(text, line, column, maxBytes, maxLines) {
  out[VERDICT] = 0
  if (typeof text === 'string') {
    return readPage(binding.planPage(slotBuffer, text, isWide(text), line, column, maxBytes, maxLines), 'planPage')
  }
  return readPage(binding.planPageBuffer(slotBuffer, text, line, column, maxBytes, maxLines), 'planPageBuffer')
}

/**
 * `text` cut to `limits` as a page under its banner line, as `readPartial` shows one (the
 * core checks the banner and the page agree). Undefined when `text` is no such page; else
 * `{ banner, pageStart, pageEnd }`: the new banner line for `text.slice(pageStart, pageEnd)`,
 * or null when the limits cannot hold a banner line and one character. `byteColumns`: the
 * page's source counts columns in UTF-8 bytes (a Buffer).
 */
function repage(text, limits, byteColumns) {
  const { maxChars, maxBytes, maxLines } = limits
  const wide = isWide(text)
  out[VERDICT] = 0
  out[REQUEST.maxChars] = maxChars
  out[REQUEST.maxBytes] = maxBytes
  out[REQUEST.maxLines] = maxLines
  const banner = binding.repage(slotBuffer, text, wide, byteColumns)
  if (out[VERDICT] === VERDICTS.fits && banner === null) return undefined
  if (out[VERDICT] !== VERDICTS.page || (banner !== null && typeof banner !== 'string')) throw noAnswer('repage')
  return { banner, pageStart: out[SLOTS.pageStart], pageEnd: out[SLOTS.pageEnd] }
}

// Captures (lib/commands/capture.js): a handle to output kept in the core, fed chunk by chunk.

/**
 * A new capture handle. `flags` 0 is no normalisation; `raw` keeps bytes as they came.
 * `limits.tokens` (a limit in exact tokens) is kept for every result.
 */
function captureCreate(strategy, limits, headRatio, flags, raw) {
  const { maxChars, maxBytes, maxLines, tokens } = limits
  const code = codeOf(strategy)
  out[VERDICT] = 0
  request(code, maxChars, maxBytes, maxLines, headRatio)
  out[REQUEST.maxTokens] = tokens === undefined ? Infinity : tokens.max
  out[REQUEST.tokenizer] = tokens === undefined ? 0 : tokens.tokenizer.code
  const handle = binding.captureCreate(slotBuffer, flags !== 0, flags, raw, tokenCounter(tokens))
  expect(VERDICTS.captured, 'captureCreate')
  return handle
}

/** The totals a capture call answered, as a plain object. */
function captureTotals(name) {
  expect(VERDICTS.captured, name)
  return { chars: out[SLOTS.totalChars], bytes: out[SLOTS.totalBytes], lines: out[SLOTS.totalLines] }
}

/**
 * Feeds a string or a non-empty Uint8Array. Returns `{ totals, added }`: `added` is, with
 * `echo`, a Buffer of the text the chunk added (decoded and normalised).
 */
function captureWrite(handle, chunk, echo) {
  out[VERDICT] = 0
  const wide = typeof chunk === 'string' && isWide(chunk)
  const added = binding.captureWrite(slotBuffer, handle, chunk, wide, echo)
  const totals = captureTotals('captureWrite')
  if (echo ? !Buffer.isBuffer(added) : added !== undefined) throw noAnswer('captureWrite')
  return { totals, added }
}

/** Ends a capture's input; as captureWrite for what the end added. */
function captureFinish(handle, echo) {
  out[VERDICT] = 0
  const added = binding.captureFinish(slotBuffer, handle, echo)
  const totals = captureTotals('captureFinish')
  if (echo ? !Buffer.isBuffer(added) : added !== undefined) throw noAnswer('captureFinish')
  return { totals, added }
}

/**
 * The plan of a capture (of a snapshot unless `last`), with `text`: the clamped text, a
 * Buffer for a raw capture. `tokens` is the limit in exact tokens it was made with.
 */
function captureResult(handle, last, notice, snap, tokens) {
  const bound = bindingNotice(notice)
  out[VERDICT] = 0
  out[REQUEST.snap] = snap
  const text = binding.captureResult(slotBuffer, handle, last, bound, tokenCounter(tokens))
  const verdict = out[VERDICT]
  if ((verdict !== VERDICTS.cut && verdict !== VERDICTS.fits) || !(typeof text === 'string' || Buffer.isBuffer(text))) {
    throw noAnswer('captureResult')
  }
  const plan = withTokens(planFromOut(verdict === VERDICTS.cut, null), tokens)
  plan.text = text
  return plan
}

/** Frees a capture's buffers now; any later call with the handle throws. Idempotent. */
function captureDispose(handle) {
  out[VERDICT] = 0
  if (binding.captureDispose(slotBuffer, handle) !== undefined) throw noAnswer('captureDispose')
  expect(VERDICTS.captured, 'captureDispose')
}

/** The head a head capture can show before its end, or null while it cannot tell yet. */
function captureSettleHead(handle, notice, snap) {
  const bound = bindingNotice(notice)
  out[VERDICT] = 0
  out[REQUEST.snap] = snap
  const head = binding.captureSettleHead(slotBuffer, handle, bound)
  expect(VERDICTS.captured, 'captureSettleHead')
  if (!(head === null || typeof head === 'string' || Buffer.isBuffer(head))) throw noAnswer('captureSettleHead')
  return head
}

// Long JSON lines (lib/mcp/long-line.js): a line's bytes kept in the binding, then read into a
// small skeleton and its long strings, so that no copy of the whole line is made in JS.

/** A new, empty line handle. */
function jsonLineCreate() {
  const handle = binding.jsonLineCreate(slotBuffer)
  if (typeof handle !== 'object' || handle === null) throw noAnswer('jsonLineCreate')
  return handle
}

/** Adds a chunk (a Uint8Array) to a line. */
function jsonLineAppend(handle, chunk) {
  if (binding.jsonLineAppend(slotBuffer, handle, chunk) !== undefined) throw noAnswer('jsonLineAppend')
}

/**
 * The line's skeleton: its text with every string value of `minLength` bytes or more written
 * `"<marker><k>"`, or null when it is not UTF-8 JSON that JSON.parse takes.
 */
function jsonLineScan(handle, minLength, marker) {
  const skeleton = binding.jsonLineScan(slotBuffer, handle, minLength, marker)
  if (skeleton !== null && typeof skeleton !== 'string') throw noAnswer('jsonLineScan')
  return skeleton
}

/** The length as written of each long string of the last scan, in order. */
function jsonLineLengths(handle) {
  const lengths = binding.jsonLineLengths(slotBuffer, handle)
  if (!Array.isArray(lengths)) throw noAnswer('jsonLineLengths')
  return lengths
}

/**
 * The long strings of the last scan, decoded, in order; those whose byte in `inPlace` (a
 * Uint8Array) is set are decoded where they were written (see src/line.rs).
 */
function jsonLineStrings(handle, inPlace) {
  const strings = binding.jsonLineStrings(slotBuffer, handle, inPlace)
  if (!Array.isArray(strings)) throw noAnswer('jsonLineStrings')
  return strings
}

/** A Buffer of the line as it came, or null once a string of it was decoded in place. */
function jsonLineBytes(handle) {
  const bytes = binding.jsonLineBytes(slotBuffer, handle)
  if (bytes !== null && !Buffer.isBuffer(bytes)) throw noAnswer('jsonLineBytes')
  return bytes
}

/** Lets a line's bytes go now. Idempotent. */
function jsonLineDispose(handle) {
  if (binding.jsonLineDispose(slotBuffer, handle) !== undefined) throw noAnswer('jsonLineDispose')
}

/**
 * The library's notice templates by name and the placeholders a template may use, as the
 * core defines them (crates/toolclamp-core/src/notice.rs): plain frozen copies.
 */
function noticeTemplates() {
  const { templates, placeholders } = binding.noticeTemplates()
  return Object.freeze({ templates: Object.freeze({ ...templates }), placeholders: Object.freeze([...placeholders]) })
}

module.exports = {
  runtime,
  jsonLineCreate,
  jsonLineAppend,
  jsonLineScan,
  jsonLineLengths,
  jsonLineStrings,
  jsonLineBytes,
  jsonLineDispose,
  STRATEGIES,
  byteLengthOf,
  bufferView,
  dimNames,
  checkTemplate,
  planText,
  fitsByLength,
  isAscii,
  mustReadWhole,
  // For __test__/fits.test.mjs: the plan of planText through the binding, with no shortcut.
  planNative,
  planTexts,
  planBytes,
  planToolOutput,
  measureText,
  measureTokens,
  TOKENIZER_CODES,
  loadTokenizer,
  encodingOf,
  countTokens,
  longestToken,
  searchBudget,
  BYTES_PER_TOKEN,
  MEDIA_TOKENS,
  tokensOfBytes,
  planBudget,
  elisionMarker,
  NORMALIZE_FLAGS,
  normalizeTerminal,
  normalizedMayOutgrowString,
  MAX_STRING_LENGTH,
  planJson,
  planJsonText,
  locateJson,
  classifyError,
  pageOf,
  repage,
  captureCreate,
  captureWrite,
  captureFinish,
  captureDispose,
  captureResult,
  captureSettleHead,
  noticeTemplates,
}
