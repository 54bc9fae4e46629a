// The WebAssembly build as a user on a platform without a native build gets it: the main
// package and toolclamp-wasm32-wasi, packed, installed into a fresh project with no Rust on
// PATH and without optional dependencies (so no native addon), and every quick start of the
// README run there, printing what its comments say. It needs the WebAssembly build in the
// package root: npm run build:wasm (.ci/run builds it).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { pack, packMain, run, userEnv } from '../scripts/release/packages.mjs'
import { assertReadmeSize } from './helpers.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const WASM_PACKAGE = join(ROOT, 'npm', 'wasm32-wasi')
const EXPECTED = /^[ \t]*console\.log\(.*\) \/\/ (.*?)(?: \(.*\))?$/gm

/** The js blocks under the README's "Quick start" heading. */
function quickStarts() {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('\n## Quick start\n'), readme.indexOf('\n## ', readme.indexOf('\n## Quick start\n') + 1))
  return [...section.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1])
}

const files = JSON.parse(readFileSync(join(WASM_PACKAGE, 'package.json'), 'utf8')).files
const missing = files.filter((file) => !existsSync(join(ROOT, file)))

test('main package + toolclamp-wasm32-wasi only: every README quick start runs on the WebAssembly build', { timeout: 300_000 }, (t) => {
  assert.deepEqual(missing, [], 'the WebAssembly build is in the package root (npm run build:wasm)')
  const work = mkdtempSync(join(tmpdir(), 'toolclamp-wasm-'))
  t.after(() => rmSync(work, { recursive: true, force: true }))
  const staged = join(work, 'wasm32-wasi')
  mkdirSync(staged)
  for (const file of ['package.json', 'README.md']) copyFileSync(join(WASM_PACKAGE, file), join(staged, file))
  for (const file of files) copyFileSync(join(ROOT, file), join(staged, file))
  const main = packMain(work).path
  const packed = pack(staged, work)
  assertReadmeSize('toolclamp-wasm32-wasi', packed.size)
  const wasm = packed.path
  const project = join(work, 'project')
  mkdirSync(project)
  const manifest = {
    name: 'wasm-check',
    private: true,
    type: 'module',
    dependencies: { toolclamp: `file:${main}`, 'toolclamp-wasm32-wasi': `file:${wasm}` },
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2))
  const env = userEnv()
  run('npm', ['install', '--no-audit', '--no-fund', '--omit=optional'], project, env)
  assert.ok(!existsSync(join(project, 'node_modules', 'toolclamp-linux-x64-gnu')), 'no native addon installed')

  const which = run(
    process.execPath,
    ['--input-type=module', '-e', "import { runtime } from 'toolclamp'; console.log(runtime)"],
    project,
    env,
  )
  assert.equal(which.stdout, 'wasm\n', 'the loader fell back to the WebAssembly build by itself')
  assert.equal(which.stderr, '', 'and said nothing on stderr')

  const blocks = quickStarts()
  assert.ok(blocks.length >= 3, `${blocks.length} quick starts`)
  for (const [i, code] of blocks.entries()) {
    const file = join(project, `quick-start-${i + 1}.mjs`)
    writeFileSync(file, code)
    const { stdout, stderr } = run(process.execPath, [file], project, env)
    assert.equal(stderr, '', `quick start ${i + 1}: nothing on stderr`)
    const printed = stdout.split('\n')
    if (printed.at(-1) === '') printed.pop()
    assert.deepEqual(
      printed,
      [...code.matchAll(EXPECTED)].map((m) => m[1]),
      `quick start ${i + 1} prints what its comments say`,
    )
  }
})
