'use strict'

// What the proxy does to a tool's result: hardTruncateToolPayload (lib/results/payload.js)
// with the tool's budget, and, when structuredContent was shortened, a check that it still
// matches the tool's outputSchema (learnt from the tools/list answers going by). The clamp
// keeps structuredContent schema-safe by construction (shorter arrays and strings, fewer
// keys: nothing added), which a schema with minimum lengths, required keys, patterns or
// formats can still refuse; a client that checks (the SDK's does) would then fail the call.
// Such a result fails closed: a short isError result says it was too large and names the
// file holding it whole. The check is ajv's, configured as the SDK's client configures it,
// so both agree on what is valid.

const { hardTruncateToolPayload } = require('../results/payload.js')
const spills = require('../files/spill.js')
const { formatCount } = require('../common/format.js')

/** The JSON of `value` as a file a model reads with its file tools: indented, on many lines. */
function readable(value) {
  return `${JSON.stringify(value, null, 2)}\n`
}

/** `limits` with room kept for a text block of `text`: its bytes, chars and a line. */
function reserving(limits, text) {
  const bytes = Buffer.byteLength(text)
  const less = { ...limits }
  for (const [key, need] of [
    ['maxBytes', bytes],
    ['maxChars', text.length],
    ['maxLines', 1],
    // A token is at least one byte.
    ['maxTokens', bytes],
  ]) {
    const budget = limits[key]
    if (budget === undefined || budget === Infinity) continue
    if (budget - need < need) return undefined
    less[key] = budget - need
  }
  return less
}

class ResultClamp {
  /**
   * `options`: `{ limits, tools, spillDir, log }` as parseMcpArgs gives them, and `log(text)`
   * for a line on stderr.
   */
  constructor({ limits, tools, spillDir, log }) {
    this.limits = limits
    this.tools = tools
    this.spillDir = spillDir
    this.log = log
    // Each tool's outputSchema, and its compiled validator once needed.
    this.schemas = new Map()
    this.validators = new Map()
    this.ajv = undefined
    // Every budget is checked now: a typo fails at start-up, not at the first big result.
    for (const options of [limits, ...tools.values()]) if (options !== null) hardTruncateToolPayload('', options)
  }

  /** Learns the output schemas of a tools/list result (a page of it). */
  learnTools(result) {
    const list = result?.tools
    if (!Array.isArray(list)) return
    for (const tool of list) {
      if (typeof tool?.name !== 'string') continue
      const schema = tool.outputSchema
      const known = this.schemas.get(tool.name)
      if (schema === known) continue
      this.validators.delete(tool.name)
      if (schema !== null && typeof schema === 'object') this.schemas.set(tool.name, schema)
      else this.schemas.delete(tool.name)
    }
  }

  /** The clamp's options for `tool` (a name, or undefined), or null when its results pass as they are. */
  optionsFor(tool) {
    const own = tool === undefined ? undefined : this.tools.get(tool)
    return own === undefined ? this.limits : own
  }

  /**
   * `result` (a CallToolResult) within `tool`'s budget: `{ result, changed, note }`, the very
   * same result when it fits. `rawBytes` is the size of the message it came in.
   */
  clamp(tool, result, rawBytes) {
    const options = this.optionsFor(tool)
    if (options === null || result === null || typeof result !== 'object' || Array.isArray(result)) {
      return { result, changed: false }
    }
    const name = tool ?? 'tool-result'
    const structured = result.structuredContent
    let clamped
    let note
    if (this.spillDir === undefined) {
      clamped = hardTruncateToolPayload(result, options)
    } else if (structured === undefined) {
      clamped = hardTruncateToolPayload(result, { ...options, spill: { dir: this.spillDir, name } })
    } else {
      ;({ clamped, note } = this.clampSavingStructured(name, result, options))
    }
    if (clamped === result) return { result, changed: false }
    const refused = this.refusal(tool, result, clamped)
    if (refused !== undefined)
      return { result: this.failClosed(name, result, options, rawBytes, refused), changed: true, note: 'failed closed' }
    return { result: clamped, changed: true, note }
  }

  /**
   * A result with structuredContent, with a spill directory: its text blocks are saved by
   * the clamp as usual; when structuredContent is shortened, all of it is saved too, as
   * indented JSON, and a last text block names the file, in room kept for it.
   */
  clampSavingStructured(name, result, options) {
    const structured = result.structuredContent
    const spill = { dir: this.spillDir, name }
    const probe = hardTruncateToolPayload(result, options)
    if (probe === result) return { clamped: result }
    if (probe.structuredContent === structured) return { clamped: hardTruncateToolPayload(result, { ...options, spill }) }
    const file = spills.spillPath({ dir: this.spillDir, name: `${name}.structuredContent` })
    const text = `[the whole structuredContent is saved in ${file}]`
    const room = reserving(options, text)
    if (room === undefined) return { clamped: hardTruncateToolPayload(result, { ...options, spill }) }
    const clamped = hardTruncateToolPayload(result, { ...room, spill })
    const saved = spills.writeSpill(file, readable(structured))
    if (saved.path === null) {
      this.log(`could not save the structuredContent of ${name} in ${this.spillDir}: ${saved.error.message}`)
      return { clamped: hardTruncateToolPayload(result, { ...options, spill }) }
    }
    const content = Array.isArray(clamped.content) ? clamped.content : []
    return { clamped: { ...clamped, content: [...content, { type: 'text', text }] }, note: `structuredContent saved in ${file}` }
  }

  /**
   * Why a client checking `tool`'s outputSchema would refuse the clamped result while it
   * takes the original, or undefined. The original is checked only when the clamp fails: a
   * server's own invalid result is passed on clamped, as it came (the client refuses both).
   */
  refusal(tool, result, clamped) {
    const schema = tool === undefined ? undefined : this.schemas.get(tool)
    if (schema === undefined || result.structuredContent === undefined || clamped.structuredContent === result.structuredContent) {
      return undefined
    }
    if (clamped.structuredContent === undefined) {
      // A client requires structuredContent of a tool with an outputSchema unless the result is an error.
      return result.isError === true ? undefined : 'no room was left for any structuredContent'
    }
    const validate = this.validatorFor(tool, schema)
    if (validate === undefined || validate(clamped.structuredContent)) return undefined
    const why = describeErrors(validate.errors)
    return validate(result.structuredContent) ? why : undefined
  }

  /** The compiled validator of `schema`, or undefined when ajv cannot compile it (a client could not check it either). */
  validatorFor(tool, schema) {
    if (this.validators.has(tool)) return this.validators.get(tool)
    let validate
    try {
      validate = this.validator().compile(schema)
    } catch (error) {
      this.log(`the outputSchema of ${tool} does not compile, so clamped results are not checked against it: ${error.message}`)
    }
    this.validators.set(tool, validate)
    return validate
  }

  /** ajv as the SDK's client sets it up (AjvJsonSchemaValidator), loaded on first need. */
  validator() {
    if (this.ajv === undefined) {
      const Ajv = require('ajv')
      const addFormats = require('ajv-formats')
      this.ajv = new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true })
      addFormats(this.ajv)
    }
    return this.ajv
  }

  /**
   * The isError result sent instead of one whose structuredContent cannot be shortened within
   * the budget and still match the schema: what happened, why, and where the whole result
   * is (with --spill-dir), itself within the budget.
   */
  failClosed(name, result, options, rawBytes, why) {
    let where = `Run toolclamp mcp with --spill-dir <dir> to keep such results in a file, or --tool ${name}=off to pass its results as they are.`
    if (this.spillDir !== undefined) {
      const file = spills.spillPath({ dir: this.spillDir, name: `${name}.result` })
      const saved = spills.writeSpill(file, readable(result))
      if (saved.path === null) this.log(`could not save the result of ${name} in ${this.spillDir}: ${saved.error.message}`)
      else where = `The whole result is saved in ${file}.`
    }
    const text =
      `[toolclamp: the result of ${name} (${formatCount(rawBytes)} bytes) is too large for its budget, and its ` +
      `structuredContent cannot be shortened to fit and still match the tool's outputSchema (${why}). ${where}]`
    const failed = { content: [{ type: 'text', text }], isError: true }
    const { spill, ...unsaved } = options
    return hardTruncateToolPayload(failed, unsaved)
  }
}

/** ajv's first errors, on one line. */
function describeErrors(errors) {
  if (!Array.isArray(errors) || errors.length === 0) return 'it does not validate'
  const said = errors.slice(0, 3).map((e) => `${e.instancePath === '' ? '$' : `$${e.instancePath}`} ${e.message}`)
  const more = errors.length > 3 ? `; ${errors.length - 3} more` : ''
  return `${said.join('; ')}${more}`.replace(/[\r\n]+/g, ' ')
}

module.exports = { ResultClamp, reserving }
