'use strict'

// The notices the library writes, and the rendering of templates done in JS. The templates
// are defined once, in the Rust core (crates/toolclamp-core/src/notice.rs, `templates`),
// which also reads each of them back when a clamp is stacked on another; they are read
// here once, from the binding. No other file of lib/ writes a notice template.
//
// Two placeholders are filled in here, before the core sees a template: `{spillPath}` (the
// spill file's path, or `(not saved)` when none was written) and `{stream}` (`stdout` or
// `stderr`). `{{` and `}}` stay escapes, for the core to read.

const { mustBe } = require('./errors.js')
const native = require('../native.js')
const { readNotice } = require('./options.js')

const { templates, placeholders } = native.noticeTemplates()

/** The placeholders the core fills in (`{omitted}`, `{where}`, ...). */
const PLACEHOLDERS = placeholders
/** A clamp with a spill file: where, and which lines of the file were dropped (the numbers `readPartial`'s `offset` takes). */
const SPILL_NOTICE = templates.spill
/** One stream of a command's output (`{stream}`). */
const STREAM_NOTICE = templates.stream
/** One stream of a command's output with a spill file of that stream. */
const STREAM_SPILL_NOTICE = templates.streamSpill
/** A capture whose input was cut short: its counts are of what came. */
const INTERRUPTED_NOTICE = templates.interrupted
/** INTERRUPTED_NOTICE for a capture that keeps both ends. */
const INTERRUPTED_MIDDLE_NOTICE = templates.interruptedMiddle
/** A tool result cut to fit a conversation's context window, with its spill file. */
const CONTEXT_CUT_NOTICE = templates.contextCut
/** What `{spillPath}` reads when no file was saved. */
const NOT_SAVED = '(not saved)'
/** What a caller's own notice gets when the input was cut short. */
const INTERRUPTED = ' (input interrupted; counts so far)'

/** `template` with `{name}` filled in with `value` (its braces escaped); `{{` and `}}` stay escapes. */
function fill(template, name, value) {
  const escaped = value.replace(/[{}]/g, (brace) => brace + brace)
  const placeholder = `{${name}}`
  return template.replace(/\{\{|\}\}|\{[A-Za-z]+\}/g, (match) => (match === placeholder ? escaped : match))
}

/** `{spillPath}` in a template becomes the path. */
function templateWithPath(template, file) {
  return fill(template, 'spillPath', file)
}

/** `{stream}` in a template becomes the stream's name. */
function templateFor(template, stream) {
  return fill(template, 'stream', stream)
}

/**
 * The two notices of a call that may spill: `named` names `file`; `unnamed` is used when
 * writing it failed. A template gets `{spillPath}`, a function `facts.spillPath` (null
 * when unnamed). `namedDefault` and `unnamedDefault` serve when the caller gave none.
 */
function spillNotices(notice, file, namedDefault, unnamedDefault) {
  if (notice === undefined) return { named: readNotice(templateWithPath(namedDefault, file)), unnamed: unnamedDefault }
  if (typeof notice === 'string') return { named: readNotice(templateWithPath(notice, file)), unnamed: unsavedNotice(notice) }
  if (typeof notice !== 'function') {
    throw mustBe(TypeError, `notice`, `a string or a function`, notice)
  }
  return { named: (facts) => notice({ ...facts, spillPath: file }), unnamed: unsavedNotice(notice) }
}

/** A caller's spill notice as it reads when no file was saved (`{spillPath}`: `(not saved)`). */
function unsavedNotice(notice) {
  if (typeof notice === 'string') return readNotice(templateWithPath(notice, NOT_SAVED))
  if (typeof notice === 'function') return (facts) => notice({ ...facts, spillPath: null })
  return readNotice(notice)
}

/**
 * A capture's notice as it reads when its input was interrupted: its counts are of what
 * came, and it says so (a capture's strategy says where it cuts: the middle only with
 * headTail).
 */
function interruptedNotice(notice, strategy) {
  if (notice === undefined) return strategy === 'headTail' ? INTERRUPTED_MIDDLE_NOTICE : INTERRUPTED_NOTICE
  if (typeof notice === 'function') return (facts) => `${notice(facts)}${INTERRUPTED}`
  // A caller who asked for no notice gets none.
  return notice === '' ? notice : `${notice}${INTERRUPTED}`
}

module.exports = {
  PLACEHOLDERS,
  SPILL_NOTICE,
  STREAM_NOTICE,
  STREAM_SPILL_NOTICE,
  INTERRUPTED_NOTICE,
  INTERRUPTED_MIDDLE_NOTICE,
  CONTEXT_CUT_NOTICE,
  NOT_SAVED,
  templateWithPath,
  templateFor,
  spillNotices,
  unsavedNotice,
  interruptedNotice,
}
