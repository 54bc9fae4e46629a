import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

import * as esm from '../index.mjs'

const require = createRequire(import.meta.url)
const repoRoot = fileURLToPath(new URL('..', import.meta.url))
// The documented exports are the ones index.d.ts declares: functions, classes (an Error
// subclass) and constants (the profile table).
const declarations = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8')
const KINDS = new Map(
  [...declarations.matchAll(/^export declare (function|class|const) (\w+)/gm)].map((m) => [m[2], m[1] === 'const' ? 'object' : 'function']),
)
const EXPORTS = [...KINDS.keys()].sort()

test('index.d.ts declares the functions the package is known for', () => {
  for (const name of ['stringTruncateHead', 'stringTruncateTail', 'truncateText', 'hardTruncateToolPayload', 'wrapExecute']) {
    assert.ok(EXPORTS.includes(name), name)
  }
})

test('CommonJS exposes exactly the documented functions', () => {
  const cjs = require('../index.js')
  assert.deepEqual(Object.keys(cjs).sort(), EXPORTS)
  for (const name of EXPORTS) assert.equal(typeof cjs[name], KINDS.get(name), name)
})

test('ESM re-exports the very same function objects', () => {
  const cjs = require('../index.js')
  for (const name of EXPORTS) assert.equal(esm[name], cjs[name], name)
  const named = Object.keys(esm).filter((k) => k !== 'default').sort()
  assert.deepEqual(named, EXPORTS)
})

test('the package name resolves through "exports" for import and require', async () => {
  // A package may import itself by name; this exercises the same map users resolve.
  const byImport = await import('toolclamp')
  const byRequire = require('toolclamp')
  for (const name of EXPORTS) {
    assert.equal(byImport[name], esm[name], name)
    assert.equal(byRequire[name], esm[name], name)
  }
  assert.equal(byImport.stringTruncateHead('abcdef', 3, { notice: '' }), 'abc')
})

test('index.d.ts type-checks real usage in strict mode', { timeout: 120_000 }, () => {
  const tsc = require.resolve('typescript/bin/tsc')
  const result = spawnSync(process.execPath, [tsc, '-p', '__test__/types/tsconfig.json'], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`)
})
