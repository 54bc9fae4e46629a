// `npm run docs` builds the API reference (docs/api/, git-ignored) with TypeDoc from the
// hand-written JSDoc of index.d.ts and the subpath d.ts files (typedoc.json). Here TypeDoc
// converts and validates them without writing anything (`--emit none`); typedoc.json treats
// warnings as errors, so a {@link} to a name that does not exist, or an exported type that
// names one that is not exported, fails this test.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

test('typedoc.json documents the root entry and every subpath', () => {
  const config = JSON.parse(readFileSync(new URL('../typedoc.json', import.meta.url), 'utf8'))
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  const entries = Object.values(pkg.exports)
    .filter((e) => typeof e === 'object')
    .map((e) => e.require.types.replace(/^\.\//, ''))
  assert.deepEqual(config.entryPoints, entries)
  assert.equal(config.treatWarningsAsErrors, true)
  assert.equal(pkg.scripts.docs, 'typedoc')
})

test('TypeDoc converts the d.ts files with no warning (every {@link} resolves)', { timeout: 120_000 }, () => {
  // typedoc's "exports" hides its bin: run it as npm's .bin link does.
  const typedoc = join(ROOT, 'node_modules', 'typedoc', 'bin', 'typedoc')
  const { status, stdout, stderr } = spawnSync(process.execPath, [typedoc, '--emit', 'none'], { cwd: ROOT, encoding: 'utf8' })
  assert.equal(stdout + stderr, '', 'TypeDoc says nothing')
  assert.equal(status, 0)
})
