'use strict'

// truncateToolOutput: per-tool character and line limits, and the head/tail view of the
// two-stage pipeline (characters, then lines) with its indicators:
//
//   [First 30 lines of 500]
//   ...the first lines...
//   ... [400 lines, 31,200 chars truncated] ...
//   [Last 70 lines of 500]
//   ...the last lines...
//
// The two stages are planned as one cut of the ORIGINAL output under both limits, head
// ratio applied to each (so the kept lines split 30/70 as the line stage would split
// them), which is why every count in the indicators is a count of the original: a first
// stage that rewrote the text would leave the second counting its marker's lines.
// The core plans the cut and renders the middle marker; the two header lines are priced
// into the budget here before planning, so the whole view stays within both limits.

const native = require('./native.js')
const spills = require('./spill.js')
const { checkText, truncateWith } = require('./clamp.js')
const { describe, formatCount, unshared } = require('./format.js')
const { isPlainObject, readBudget, readHeadRatio, readNotice, readOptionsObject } = require('./options.js')

/** Limits per tool, from the seed; `default` serves every other tool. */
const DEFAULT_TOOL_PROFILES = Object.freeze({
  read_file: Object.freeze({ maxChars: 50000, maxLines: 500 }),
  run_command: Object.freeze({ maxChars: 20000, maxLines: 200 }),
  list_directory: Object.freeze({ maxChars: 10000, maxLines: 100 }),
  search_files: Object.freeze({ maxChars: 30000, maxLines: 300 }),
  default: Object.freeze({ maxChars: 20000, maxLines: 200 }),
})

const OPTIONS = ['profiles', 'maxChars', 'maxLines', 'headRatio', 'notice', 'spill']
const PROFILE_KEYS = ['maxChars', 'maxLines']
const DEFAULT_HEAD_RATIO = 0.3
const MARKER = '... [{omitted} truncated] ...'
const SPILL_MARKER = '... [{omitted} truncated — full output saved to {spillPath}; dropped lines {fromLine}–{toLine}] ...'

/** A limit a profile sets: as readBudget, but a key set to undefined is an error, not "none". */
function readLimit(name, value) {
  if (value === undefined) throw new TypeError(`${name} must be a number, got undefined`)
  return readBudget(name, value)
}

function checkProfiles(profiles) {
  if (!isPlainObject(profiles)) throw new TypeError(`profiles must be an object, got ${describe(profiles)}`)
  for (const name of Object.keys(profiles)) {
    const profile = profiles[name]
    const where = `profiles[${JSON.stringify(name)}]`
    if (!isPlainObject(profile)) {
      throw new TypeError(`${where} must be an object with maxChars and/or maxLines, got ${describe(profile)}`)
    }
    for (const key of Object.keys(profile)) {
      if (!PROFILE_KEYS.includes(key)) {
        throw new TypeError(`unknown option ${JSON.stringify(`${where}.${key}`)}; expected one of maxChars, maxLines`)
      }
      readLimit(`${where}.${key}`, profile[key])
    }
  }
}

/**
 * The limits for `toolName`, layered: the built-in default, the caller's `default`, the
 * built-in profile of the tool, the caller's profile of the tool; each layer overrides
 * only the keys it sets (`{ read_file: { maxLines: 1000 } }` keeps 50,000 chars).
 */
function resolveToolProfile(toolName, profiles) {
  if (typeof toolName !== 'string') throw new TypeError(`toolName must be a string, got ${describe(toolName)}`)
  if (profiles !== undefined) checkProfiles(profiles)
  const own = (object, key) => (object !== undefined && Object.hasOwn(object, key) ? object[key] : undefined)
  const builtIn = own(DEFAULT_TOOL_PROFILES, toolName)
  const custom = own(profiles, toolName)
  const merged = { ...DEFAULT_TOOL_PROFILES.default, ...own(profiles, 'default'), ...builtIn, ...custom }
  const name = builtIn !== undefined || custom !== undefined ? toolName : 'default'
  return { name, maxChars: merged.maxChars, maxLines: merged.maxLines }
}

const count = formatCount

/**
 * Clamps a tool's output to its profile's limits: head and tail kept (30% / 70% by
 * default), line indicators counted on the original, and optionally the full output
 * saved to a spill file that the marker names.
 */
function truncateToolOutput(toolName, output, options) {
  if (typeof toolName !== 'string') throw new TypeError(`toolName must be a string, got ${describe(toolName)}`)
  checkText(output)
  options = readOptionsObject(options, OPTIONS, true)
  const profile = resolveToolProfile(toolName, options.profiles)
  if (options.maxChars !== undefined) profile.maxChars = readBudget('maxChars', options.maxChars)
  if (options.maxLines !== undefined) profile.maxLines = readBudget('maxLines', options.maxLines)
  const headRatio = options.headRatio === undefined ? DEFAULT_HEAD_RATIO : readHeadRatio(options.headRatio)
  // Read now, so a bad notice fails even when the output fits.
  const marker = readNotice(options.notice ?? MARKER)
  const spill = spills.readSpill(options.spill, toolName, spills.SPILL_KEYS_WITH_CALLBACK)

  const limits = { maxChars: profile.maxChars, maxBytes: Infinity, maxLines: profile.maxLines }
  const n = output.length
  const totalLines = native.measureText(output).lines
  if (n <= limits.maxChars && n <= limits.maxLines) return fitting(output, profile, n, totalLines)
  if (n <= limits.maxChars && totalLines <= limits.maxLines) return fitting(output, profile, n, totalLines)

  // Room for the two indicator lines, at their longest; without it, the marker alone.
  const firstLongest = `[First ${count(totalLines)} lines of ${count(totalLines)}]\n`
  const lastLongest = `[Last ${count(totalLines)} lines of ${count(totalLines)}]\n`
  const reserve = firstLongest.length + lastLongest.length
  const headed = limits.maxLines >= 3 && limits.maxChars >= reserve + 64
  const planned = headed
    ? { maxChars: limits.maxChars - reserve, maxBytes: Infinity, maxLines: limits.maxLines - 2 }
    : limits

  const plan = (notice) => truncateWith(output, planned, 'headTail', headRatio, notice)
  const info =
    spill === undefined ? plan(marker) : spills.clampAndSpill(spill, '', options.notice, SPILL_MARKER, marker, output, plan)
  if (!info.truncated) return fitting(output, profile, n, totalLines)

  const head = output.slice(0, info.headEnd)
  const tail = output.slice(info.tailStart)
  const glue = info.text.slice(head.length, info.text.length - tail.length)
  const headLines = native.measureText(head).lines
  const tailLines = native.measureText(tail).lines
  let text = info.text
  if (headed) {
    const first = headLines > 0 ? `[First ${count(headLines)} lines of ${count(totalLines)}]\n` : ''
    const last = tailLines > 0 ? `[Last ${count(tailLines)} lines of ${count(totalLines)}]\n` : ''
    text = unshared(first + head + glue + last + tail, n)
  }
  const result = {
    text,
    truncated: true,
    profile,
    totalChars: n,
    totalLines,
    headLines,
    tailLines,
    omittedChars: info.omittedChars,
    omittedLines: info.omittedLines,
    headEnd: info.headEnd,
    tailStart: info.tailStart,
  }
  if (info.spill !== undefined) result.spill = info.spill
  return result
}

function fitting(output, profile, totalChars, totalLines) {
  return {
    text: output,
    truncated: false,
    profile,
    totalChars,
    totalLines,
    headLines: totalLines,
    tailLines: 0,
    omittedChars: 0,
    omittedLines: 0,
    headEnd: totalChars,
    tailStart: totalChars,
  }
}

module.exports = { truncateToolOutput, resolveToolProfile, DEFAULT_TOOL_PROFILES }
