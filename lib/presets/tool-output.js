'use strict'

// truncateToolOutput: per-tool character and line limits, and the head/tail view of the
// two-stage pipeline (characters, then lines) with its indicators:
//
//   [First 30 lines of 500]
//   ...the first lines...
//   [... 400 lines, 31,200 chars truncated in the middle ...]
//   [Last 70 lines of 500]
//   ...the last lines...
//
// The two stages are planned as one cut of the ORIGINAL output under both limits, head
// ratio applied to each (so the kept lines split 30/70 as the line stage would split
// them), which is why every count in the indicators is a count of the original: a first
// stage that rewrote the text would leave the second counting its marker's lines.
// The core plans the cut, the indicators and the middle marker in one call (see
// crates/toolclamp-core/src/tool_output.rs); the whole view stays within both limits. The
// marker is the library's default notice, and with a spill file truncateText's spill
// notice, so a later clamp of the view reads it (and the indicators) back.

const { invalid, mustBe } = require('../common/errors.js')
const native = require('../native.js')
const spills = require('../files/spill.js')
const notices = require('../common/notices.js')
const { checkText } = require('../text/clamp.js')
const { unshared } = require('../common/format.js')
const { isPlainObject, readBudget, readHeadRatio, readNotice, readOptionsObject } = require('../common/options.js')

/** Limits per tool, as docs/presets.md lists them; `default` serves every other tool. */
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

/** A limit a profile sets: as readBudget, but a key set to undefined is an error, not "none". */
function readLimit(name, value) {
  if (value === undefined) throw invalid(TypeError, `${name} must be a number, got undefined`)
  return readBudget(name, value)
}

function checkProfiles(profiles) {
  if (!isPlainObject(profiles)) throw mustBe(TypeError, `profiles`, `an object`, profiles)
  for (const name of Object.keys(profiles)) {
    const profile = profiles[name]
    const where = `profiles[${JSON.stringify(name)}]`
    if (!isPlainObject(profile)) {
      throw mustBe(TypeError, `${where}`, `an object with maxChars and/or maxLines`, profile)
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
  if (typeof toolName !== 'string') throw mustBe(TypeError, `toolName`, `a string`, toolName)
  if (profiles !== undefined) checkProfiles(profiles)
  const own = (object, key) => (object !== undefined && Object.hasOwn(object, key) ? object[key] : undefined)
  const builtIn = own(DEFAULT_TOOL_PROFILES, toolName)
  const custom = own(profiles, toolName)
  const merged = { ...DEFAULT_TOOL_PROFILES.default, ...own(profiles, 'default'), ...builtIn, ...custom }
  const name = builtIn !== undefined || custom !== undefined ? toolName : 'default'
  return { name, maxChars: merged.maxChars, maxLines: merged.maxLines }
}

/**
 * Clamps a tool's output to its profile's limits: head and tail kept (30% / 70% by
 * default), line indicators counted on the original, and optionally the full output
 * saved to a spill file that the marker names.
 */
function truncateToolOutput(toolName, output, options) {
  if (typeof toolName !== 'string') throw mustBe(TypeError, `toolName`, `a string`, toolName)
  checkText(output)
  const given = readOptionsObject(options, OPTIONS, true)
  const { maxChars, maxLines, headRatio, notice } = given
  const profile = resolveToolProfile(toolName, given.profiles)
  if (maxChars !== undefined) profile.maxChars = readBudget('maxChars', maxChars)
  if (maxLines !== undefined) profile.maxLines = readBudget('maxLines', maxLines)
  const ratio = readHeadRatio(headRatio, DEFAULT_HEAD_RATIO)
  const spill = spills.readSpill(given.spill, toolName, spills.SPILL_KEYS_WITH_CALLBACK)
  // Read now, so a bad notice fails even when the output fits (with a spill file,
  // clampAndSpill reads it: it may name the file).
  const marker = spill === undefined ? readNotice(notice) : undefined

  const view = (planned) => {
    const plan = native.planToolOutput(output, profile.maxChars, profile.maxLines, ratio, planned)
    const cut = plan.cut
    return {
      text: cut
        ? unshared(plan.first + output.slice(0, plan.headEnd) + plan.glue + plan.last + output.slice(plan.tailStart), output.length)
        : output,
      truncated: cut,
      profile,
      totalChars: plan.total.chars,
      totalLines: plan.total.lines,
      headLines: plan.headLines,
      tailLines: plan.tailLines,
      omittedChars: plan.omitted.chars,
      omittedLines: plan.omitted.lines,
      headEnd: plan.headEnd,
      tailStart: plan.tailStart,
    }
  }
  if (spill === undefined) return view(marker)
  return spills.clampAndSpill(spill, '', notice, notices.SPILL_NOTICE, undefined, output, view)
}

module.exports = { truncateToolOutput, resolveToolProfile, DEFAULT_TOOL_PROFILES }
