'use strict'

// The text of a Python run (its print() calls and its result value) for a model's context,
// bounded however many prints accumulate. Every cut is stringTruncateHeadTail's: this file
// only lays the sections out and shares the budget between them.

const { invalid, mustBe } = require('../common/errors.js')
const { stringTruncateHeadTail } = require('../text/clamp.js')
const { textOf } = require('../common/format.js')
const { isPlainObject, readOptionalBudget, readHeadRatio, readOptionsObject, readSnap } = require('../common/options.js')
const { PYTHON_MAX_PRINT_CHARS, PYTHON_MAX_OUTPUT_CHARS, PYTHON_MAX_TOTAL_CHARS } = require('../common/defaults.js')

const PRINT_LABEL = 'Print output:'
const RESULT_LABEL = 'Result:'
const SECTION_SEPARATOR = '\n\n'
const OPEN_TAG = '<python_result>\n'
const CLOSE_TAG = '\n</python_result>'

const OPTIONS = ['maxPrintChars', 'maxOutputChars', 'maxTotalChars', 'headRatio', 'snap', 'tags']

function readOptions(options) {
  const { maxPrintChars, maxOutputChars, maxTotalChars, headRatio, snap, tags } = readOptionsObject(options, OPTIONS, true)
  // Checked here; stringTruncateHeadTail takes the name. Text for a model: whole lines by default.
  readSnap(snap, 'line')
  if (tags !== undefined && typeof tags !== 'boolean') throw mustBe(TypeError, `tags`, `a boolean`, tags)
  return {
    snap: snap ?? 'line',
    maxPrintChars: readOptionalBudget('maxPrintChars', maxPrintChars, PYTHON_MAX_PRINT_CHARS),
    maxOutputChars: readOptionalBudget('maxOutputChars', maxOutputChars, PYTHON_MAX_OUTPUT_CHARS),
    maxTotalChars: readOptionalBudget('maxTotalChars', maxTotalChars, PYTHON_MAX_TOTAL_CHARS),
    headRatio: readHeadRatio(headRatio),
    tags: tags ?? true,
  }
}

/** The joined prints, or undefined when nothing was printed. Other keys of `result` are ignored. */
function readPrints(result) {
  if (!isPlainObject(result)) {
    throw mustBe(TypeError, `result`, `an object with a printOutput array`, result)
  }
  const prints = result.printOutput
  if (!Array.isArray(prints)) {
    throw mustBe(TypeError, `result.printOutput`, `an array of strings`, prints)
  }
  for (let i = 0; i < prints.length; i++) {
    if (typeof prints[i] !== 'string') {
      throw mustBe(TypeError, `result.printOutput[${i}]`, `a string`, prints[i])
    }
  }
  return prints.length === 0 ? undefined : prints.join('\n')
}

/** A section's heading alone on its line, or with `(none)` / `(empty)` when there is no text. */
function sectionHead(label, text) {
  if (text === undefined) return `${label} (none)`
  if (text === '') return `${label} (empty)`
  return `${label}\n`
}

/**
 * Lays out the sections. The result value gets its budget first (it is the answer), the
 * prints get what is left; both are cut down so the whole fits `maxTotalChars`, and a
 * final clamp only binds when even the headings do not fit.
 */
function buildWithin(result, limits) {
  const printText = readPrints(result)
  const outputText = result.output === undefined ? undefined : textOf(result.output)
  const printHead = sectionHead(PRINT_LABEL, printText)
  const resultHead = sectionHead(RESULT_LABEL, outputText)
  const layoutChars = printHead.length + SECTION_SEPARATOR.length + resultHead.length
  const room = Math.max(0, limits.maxTotalChars - layoutChars)
  const clampOptions = { headRatio: limits.headRatio, snap: limits.snap }

  const output = outputText === undefined ? '' : stringTruncateHeadTail(outputText, Math.min(limits.maxOutputChars, room), clampOptions)
  const prints =
    printText === undefined ? '' : stringTruncateHeadTail(printText, Math.min(limits.maxPrintChars, room - output.length), clampOptions)

  const text = printHead + prints + SECTION_SEPARATOR + resultHead + output
  return stringTruncateHeadTail(text, limits.maxTotalChars, clampOptions)
}

/**
 * The text of a Python run, in `<python_result>` tags (for runs fed back as a user message)
 * unless `tags: false`; `maxTotalChars` bounds the whole, tags included.
 */
function formatPythonResult(result, options) {
  const limits = readOptions(options)
  if (!limits.tags) return buildWithin(result, limits)
  const wrapperChars = OPEN_TAG.length + CLOSE_TAG.length
  if (limits.maxTotalChars < wrapperChars) {
    throw invalid(
      RangeError,
      `maxTotalChars must be at least ${wrapperChars} to hold the <python_result> tags, got ${limits.maxTotalChars}`,
    )
  }
  const inner = buildWithin(result, { ...limits, maxTotalChars: limits.maxTotalChars - wrapperChars })
  return OPEN_TAG + inner + CLOSE_TAG
}

module.exports = { formatPythonResult }
