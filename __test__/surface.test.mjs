// The public surface, pinned: the root exports exactly what a tool author calls, each subpath
// exactly its list, so no entry grows (or loses a name) without this list changing with it.
// And the four names the package is known by (stringTruncateTail, stringTruncateHeadTail,
// hardTruncateToolPayload, wrapOnUpdate) work from the root in CommonJS, ESM and TypeScript.
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const ROOT = fileURLToPath(new URL('..', import.meta.url))

const SURFACE = {
  toolclamp: [
    'stringTruncateHead',
    'stringTruncateTail',
    'stringTruncateHeadTail',
    'truncateText',
    'measureText',
    'clampJson',
    'clampJsonText',
    'hardTruncateToolPayload',
    'hardTruncateToolError',
    'wrapOnUpdate',
    'wrapToolWithHardOutputTruncate',
    'readPartial',
    'formatExecOutput',
    'createOutputCapture',
    'runCommand',
    'pruneSpillDir',
    'runtime',
  ],
  'toolclamp/conversation': [
    'estimateTokens',
    'countTokens',
    'clampToolResultsInMessages',
    'withContextOverflowRecovery',
    'classifyProviderError',
    'isContextOverflowError',
  ],
  'toolclamp/ai-sdk': ['toolResultsMiddleware'],
  'toolclamp/pi': [
    'toolResultsContextGuard',
    'wrapStreamFnWithOverflowRecovery',
    'guardSessionManager',
    'repairSessionFile',
    'toolResultsExtension',
  ],
  'toolclamp/presets': [
    'TOOL_OUTPUT_PRESETS',
    'truncateToolOutput',
    'resolveToolProfile',
    'formatToolOutputEnvelope',
    'resolveToolOutputLimit',
    'formatPythonResult',
  ],
}
// The design card's names (docs/design.md): they stay, at the root, whatever the verb rule says.
const DESIGN_CARD = [
  'stringTruncateTail',
  'stringTruncateHeadTail',
  'hardTruncateToolPayload',
  'hardTruncateToolError',
  'wrapOnUpdate',
  'wrapToolWithHardOutputTruncate',
]

for (const [specifier, names] of Object.entries(SURFACE)) {
  test(`${specifier} exports exactly its ${names.length} names, from require and import`, async () => {
    assert.deepEqual(Object.keys(require(specifier)).sort(), [...names].sort())
    const esm = await import(specifier)
    assert.deepEqual(
      Object.keys(esm)
        .filter((k) => k !== 'default')
        .sort(),
      [...names].sort(),
    )
  })
}

test('the root stays small, and a name lives in one entry only', () => {
  // Sixteen functions, and `runtime`, the one value: which build of the addon runs.
  const functions = SURFACE.toolclamp.filter((name) => name !== 'runtime')
  assert.ok(functions.length <= 16, `${functions.length} functions at the root`)
  assert.ok(['native', 'wasm'].includes(require('toolclamp').runtime))
  const all = Object.values(SURFACE).flat()
  assert.equal(new Set(all).size, all.length)
  for (const name of DESIGN_CARD) assert.ok(SURFACE.toolclamp.includes(name), name)
})

test('the four names the package is known by work from the root in CommonJS and ESM', async () => {
  const text = 'abcdefghij'.repeat(10)
  const result = { content: [{ type: 'text', text: 'line\n'.repeat(100) }] }
  const clamped = { content: [{ type: 'text', text: 'line\nline\n[... 98 lines truncated at the end ...]' }] }
  for (const root of [require('toolclamp'), await import('toolclamp')]) {
    assert.equal(root.stringTruncateTail(text, 30), '[... truncated ...]\nabcdefghij')
    assert.equal(root.stringTruncateHeadTail(text, { maxChars: 40 }), 'abcdefghi [... truncated ...]\nabcdefghij')
    assert.deepEqual(root.hardTruncateToolPayload(result, { maxLines: 3 }), clamped)
    const seen = []
    root.wrapOnUpdate((partial) => seen.push(partial), { maxLines: 3 })(result)
    assert.deepEqual(seen, [clamped])
    assert.equal(root.wrapOnUpdate(undefined), undefined)
  }
})

// __test__/types/surface.{mts,cts} compiled as a user's TypeScript is, then run: inside the
// package, so 'toolclamp' resolves to it by its own name.
const work = mkdtempSync(join(ROOT, '__test__', '.surface-'))
after(() => rmSync(work, { recursive: true, force: true }))

test('the four names the package is known by work from the root in TypeScript, ESM and CommonJS', { timeout: 120_000 }, () => {
  const types = join(ROOT, '__test__', 'types')
  writeFileSync(
    join(work, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        types: ['node'],
        outDir: 'out',
        rootDir: types,
      },
      files: [join(types, 'surface.mts'), join(types, 'surface.cts')],
    }),
  )
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: work, encoding: 'utf8' })
  assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr)
  for (const [file, printed] of [
    ['surface.mjs', 'esm ok'],
    ['surface.cjs', 'cjs ok'],
  ]) {
    const run = spawnSync(process.execPath, [join(work, 'out', file)], { cwd: work, encoding: 'utf8' })
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stdout.trim(), printed)
    assert.equal(run.stderr, '')
  }
})
