// docs/design.md "Errors" lists every TOOLCLAMP_ code an error or a warning carries: exactly the
// codes the source gives (lib/, src/, bin/), no more, no fewer. And the codes a call can give
// cheaply are given by the calls the table names.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { createOutputCapture, readPartial, truncateText, wrapToolWithHardOutputTruncate } from '../index.mjs'
import { resolveToolOutputLimit } from '../presets.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
// Names the source reads from the environment: documented as variables, not codes.
const ENVIRONMENT_VARIABLES = new Set([
  'TOOLCLAMP_MAX_TOOL_OUTPUT',
  // The pi extension's settings (lib/integrations/pi-extension.js).
  'TOOLCLAMP_MAX_BYTES',
  'TOOLCLAMP_MAX_LINES',
  'TOOLCLAMP_SPILL_DIR',
  'TOOLCLAMP_SPILL_DAYS',
  'TOOLCLAMP_RESULT_SHARE',
  'TOOLCLAMP_AGGREGATE_SHARE',
  'TOOLCLAMP_DISABLE',
])

function sourceFiles(dir) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(js|mjs|cjs|rs)$/.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
}

/** Every TOOLCLAMP_ name quoted in the source, as a string literal. */
function namesInSource() {
  const names = new Set()
  for (const file of ['lib', 'src', 'bin'].flatMap(sourceFiles)) {
    for (const match of readFileSync(file, 'utf8').matchAll(/['"`](TOOLCLAMP_[A-Z0-9_]+)['"`]/g)) names.add(match[1])
  }
  return names
}

/** The codes of the table under "## Errors" in docs/design.md, in order. */
function codesInTable() {
  const page = readFileSync(join(ROOT, 'docs', 'design.md'), 'utf8')
  const section = page.slice(page.indexOf('\n## Errors\n'))
  const end = section.indexOf('\n## ', 1)
  return [...(end === -1 ? section : section.slice(0, end)).matchAll(/^\| `(TOOLCLAMP_[A-Z0-9_]+)` \|/gm)].map((m) => m[1])
}

test('the Errors table lists exactly the codes the source gives, each once', () => {
  const table = codesInTable()
  assert.equal(new Set(table).size, table.length, 'no code twice')
  const codes = [...namesInSource()].filter((name) => !ENVIRONMENT_VARIABLES.has(name))
  assert.deepEqual([...table].sort(), codes.sort())
  const design = readFileSync(join(ROOT, 'docs', 'design.md'), 'utf8')
  // Each variable is named in the paragraph that says they are variables.
  const paragraph = design.slice(design.indexOf('`TOOLCLAMP_MAX_TOOL_OUTPUT` is an environment variable')).split('\n\n')[0]
  for (const name of ENVIRONMENT_VARIABLES) assert.ok(paragraph.includes(`\`${name}\``), name)
})

test('the calls the table names give their codes', () => {
  const code = (fn) => {
    try {
      fn()
    } catch (error) {
      return error.code
    }
    return 'nothing thrown'
  }
  assert.equal(
    code(() => truncateText(42, { maxChars: 1 })),
    'TOOLCLAMP_INVALID_ARGUMENT',
  )
  assert.equal(
    code(() => truncateText('x', { maxchars: 1 })),
    'TOOLCLAMP_INVALID_ARGUMENT',
    'an unknown option',
  )
  assert.equal(
    code(() => truncateText('x', {})),
    'TOOLCLAMP_INVALID_ARGUMENT',
    'no budget',
  )
  assert.equal(
    code(() => wrapToolWithHardOutputTruncate(42)),
    'TOOLCLAMP_INVALID_ARGUMENT',
  )
  assert.equal(
    code(() => truncateText('x', { maxChars: -1 })),
    'TOOLCLAMP_OUT_OF_RANGE',
  )
  const long = 'a line of text\n'.repeat(100)
  assert.equal(
    code(() => readPartial(long, { maxBytes: 40 })),
    'TOOLCLAMP_PAGE_TOO_SMALL',
  )
  assert.equal(
    code(() => readPartial(long, { maxLines: 10, onOverflow: 'error' })),
    'TOOLCLAMP_TOOL_OUTPUT_TOO_LARGE',
  )
  const ended = createOutputCapture({ maxBytes: 10 })
  ended.end()
  assert.equal(
    code(() => ended.write('x')),
    'TOOLCLAMP_CAPTURE_ENDED',
  )
  const disposed = createOutputCapture({ maxBytes: 10 })
  disposed.dispose()
  assert.equal(
    code(() => disposed.write('x')),
    'TOOLCLAMP_CAPTURE_DISPOSED',
  )
  let inner
  const reentrant = createOutputCapture({
    maxBytes: 10,
    notice: () => {
      inner = code(() => reentrant.snapshot())
      return '[cut]'
    },
  })
  reentrant.write('z'.repeat(100))
  reentrant.end()
  assert.equal(inner, 'TOOLCLAMP_REENTRANT_CALL')
})

test('a bad TOOLCLAMP_MAX_TOOL_OUTPUT warns with its code, once, and never throws', async () => {
  const warnings = []
  const listen = (warning) => warnings.push(warning)
  process.on('warning', listen)
  try {
    const value = 'sixteen kilobytes, error-codes test'
    assert.equal(resolveToolOutputLimit({ env: { TOOLCLAMP_MAX_TOOL_OUTPUT: value } }).source, 'default')
    assert.equal(resolveToolOutputLimit({ env: { TOOLCLAMP_MAX_TOOL_OUTPUT: value } }).source, 'default')
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(
      warnings.map((w) => w.code),
      ['TOOLCLAMP_INVALID_MAX_TOOL_OUTPUT'],
    )
  } finally {
    process.off('warning', listen)
  }
})
