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
const { TOOL_OUTPUT_PRESETS, TOOL_PROFILE_NAMES } = require('../common/defaults.js')

/** The built-in profiles: those presets of the table keyed by tool name (`default`: any other tool). */
const BUILT_IN_PROFILES = Object.freeze(
  Object.fromEntries(
    TOOL_PROFILE_NAMES.map((name) => {
      const { maxChars, maxLines } = TOOL_OUTPUT_PRESETS[name]
      return [name, Object.freeze({ maxChars, maxLines })]
    }),
  ),
)

const OPTIONS = ['profiles', 'maxChars', 'maxLines', 'headRatio', 'notice', 'spill']
const PROFILE_KEYS = ['maxChars', 'maxLines']

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
        throw invalid(TypeError, `unknown option ${JSON.stringify(`${where}.${key}`)}; expected one of maxChars, maxLines`)
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
  const builtIn = own(BUILT_IN_PROFILES, toolName)
  const custom = own(profiles, toolName)
  const merged = { ...BUILT_IN_PROFILES.default, ...own(profiles, 'default'), ...builtIn, ...custom }
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
  // Every built-in profile splits the same way (30% / 70%): `default`'s is theirs.
  const ratio = readHeadRatio(headRatio, TOOL_OUTPUT_PRESETS.default.headRatio)
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

module.exports = { truncateToolOutput, resolveToolProfile }
