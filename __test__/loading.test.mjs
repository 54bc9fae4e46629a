import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

// Every entry of the package: the root and each subpath, by the file stem of its entry files
// (index.js, index.mjs, index.d.ts, index.d.mts; conversation.js, ...).
const ENTRIES = [
  ['toolclamp', 'index'],
  ['toolclamp/conversation', 'conversation'],
  ['toolclamp/ai-sdk', 'ai-sdk'],
  ['toolclamp/pi', 'pi'],
  ['toolclamp/presets', 'presets'],
]

// The documented exports of an entry are the ones its .d.ts declares: functions, classes (an
// Error subclass) and constants (the profile table; `runtime`, a string).
function declared(stem) {
  const declarations = readFileSync(new URL(`../${stem}.d.ts`, import.meta.url), 'utf8')
  return new Map(
    [...declarations.matchAll(/^export declare (function|class|const) (\w+)(: ')?/gm)].map((m) => [
      m[2],
      m[1] !== 'const' ? 'function' : m[3] ? 'string' : 'object',
    ]),
  )
}

test('index.d.ts declares the functions the package is known for', () => {
  const root = [...declared('index').keys()]
  for (const name of [
    'stringTruncateHead',
    'stringTruncateTail',
    'stringTruncateHeadTail',
    'truncateText',
    'hardTruncateToolPayload',
    'wrapOnUpdate',
    'wrapToolWithHardOutputTruncate',
  ]) {
    assert.ok(root.includes(name), name)
  }
})

test('"exports" maps exactly these entries, each to its four files', () => {
  const subpaths = Object.keys(manifest.exports).filter((key) => key !== './package.json')
  assert.deepEqual(
    subpaths,
    ENTRIES.map(([specifier]) => specifier.replace(/^toolclamp/, '.')),
  )
  for (const [specifier, stem] of ENTRIES) {
    const key = specifier.replace(/^toolclamp/, '.')
    assert.deepEqual(manifest.exports[key], {
      import: { types: `./${stem}.d.mts`, default: `./${stem}.mjs` },
      require: { types: `./${stem}.d.ts`, default: `./${stem}.js` },
    })
    for (const file of [`${stem}.js`, `${stem}.mjs`, `${stem}.d.ts`, `${stem}.d.mts`])
      assert.ok(manifest.files.includes(file), `${file} in "files"`)
  }
})

for (const [specifier, stem] of ENTRIES) {
  const kinds = declared(stem)
  const names = [...kinds.keys()].sort()

  test(`${specifier}: CommonJS exposes exactly the functions ${stem}.d.ts declares`, () => {
    const cjs = require(`../${stem}.js`)
    assert.ok(names.length > 0)
    assert.deepEqual(Object.keys(cjs).sort(), names)
    for (const name of names) assert.equal(typeof cjs[name], kinds.get(name), name)
  })

  test(`${specifier}: ESM re-exports the very same objects`, async () => {
    const cjs = require(`../${stem}.js`)
    const esm = await import(`../${stem}.mjs`)
    for (const name of names) assert.equal(esm[name], cjs[name], name)
    assert.deepEqual(
      Object.keys(esm)
        .filter((k) => k !== 'default')
        .sort(),
      names,
    )
    assert.equal(esm.default, cjs)
  })

  test(`${specifier}: the package name resolves through "exports" for import and require`, async () => {
    // A package may import itself by name; this exercises the same map users resolve.
    const byImport = await import(specifier)
    const byRequire = require(specifier)
    const cjs = require(`../${stem}.js`)
    for (const name of names) {
      assert.equal(byImport[name], cjs[name], name)
      assert.equal(byRequire[name], cjs[name], name)
    }
  })
}

test("every entry's types type-check real usage in strict mode", { timeout: 120_000 }, () => {
  const tsc = require.resolve('typescript/bin/tsc')
  const result = spawnSync(process.execPath, [tsc, '-p', '__test__/types/tsconfig.json'], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`)
})
