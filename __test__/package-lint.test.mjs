// The package as users' tools see it: publint (exports, files, types conditions) and
// @arethetypeswrong/cli (types resolve for CommonJS, ESM, bundlers and node10, for the root and
// every subpath), on the tarball npm pack makes. Both must find nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { publint } from 'publint'
import { packMain } from '../scripts/release/packages.mjs'

const require = createRequire(import.meta.url)
const repoRoot = fileURLToPath(new URL('..', import.meta.url))

test('publint finds nothing', async () => {
  const { messages } = await publint({ pkgDir: repoRoot, level: 'suggestion', strict: true })
  assert.deepEqual(messages, [])
})

test('are the types wrong: no problem for any resolution mode', { timeout: 120_000 }, (t) => {
  // The tarball packed from a copy: package.json in the repository stays as it is.
  const work = mkdtempSync(join(tmpdir(), 'toolclamp-attw-'))
  t.after(() => rmSync(work, { recursive: true, force: true }))
  const tarball = packMain(work).path
  // Its bin, by path: the package exports no subpath for it.
  const attw = join(dirname(require.resolve('@arethetypeswrong/cli/package.json')), 'dist/index.js')
  const result = spawnSync(process.execPath, [attw, tarball, '--format', 'json'], { cwd: repoRoot, encoding: 'utf8' })
  assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`)
  const report = JSON.parse(result.stdout)
  assert.deepEqual(report.analysis.problems, [])
  assert.deepEqual(report.problems, {})
  // The root and every subpath: node10 (which ignores "exports" and finds each entry's files at
  // the top of the package), node16 from CJS and from ESM, and bundlers all find its types.
  const entrypoints = report.analysis.entrypoints
  assert.deepEqual(Object.keys(entrypoints).sort(), ['.', './ai-sdk', './conversation', './package.json', './pi', './presets'])
  for (const [entrypoint, { resolutions }] of Object.entries(entrypoints)) {
    if (entrypoint === './package.json') continue
    const modes = Object.entries(resolutions).filter(([, r]) => r.resolution?.isTypeScript)
    assert.deepEqual(
      modes.map(([mode]) => mode).sort(),
      ['bundler', 'node10', 'node16-cjs', 'node16-esm'],
      `${entrypoint}: every resolution mode finds TypeScript types`,
    )
  }
})
