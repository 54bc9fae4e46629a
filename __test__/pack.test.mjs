// Packs the package as npm would publish it, installs the tarball into a fresh project and
// uses it from ESM, CommonJS and TypeScript: catches files missing from "files", a broken
// "exports" map, and types that do not resolve for users.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', shell: process.platform === 'win32' })
  assert.equal(
    result.status,
    0,
    `${command} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`,
  )
  return result.stdout
}

const ESM_CHECK = `
import { truncateText, stringTruncateTail, measureText } from 'toolclamp'
import assert from 'node:assert/strict'
const r = truncateText('line\\n'.repeat(100), { maxLines: 5 })
assert.equal(r.text, 'line\\nline\\nline\\nline\\n[... 96 lines truncated at the end ...]')
assert.equal(stringTruncateTail('abcdef', 3, { notice: '' }), 'def')
assert.deepEqual(measureText('héllo\\n😀'), { chars: 8, bytes: 11, lines: 2 })
console.log('esm ok')
`

const CJS_CHECK = `
const assert = require('node:assert/strict')
const toolclamp = require('toolclamp')
assert.equal(toolclamp.stringTruncateHead('x'.repeat(100), 7), 'x\\n[...]')
assert.equal(toolclamp.stringTruncateHeadTail('short', 100), 'short')
console.log('cjs ok')
`

const TS_CHECK = `
import { truncateText, stringTruncateHead, type TruncateTextResult, type NoticeFacts } from 'toolclamp'

const notice = (facts: NoticeFacts): string => \`cut \${facts.omittedLines} lines at the \${facts.where}\`
const r: TruncateTextResult = truncateText('a\\n'.repeat(50), { maxLines: 3, strategy: 'tail', notice })
const head: string = stringTruncateHead('abc', { maxChars: 2, maxBytes: Infinity })
// @ts-expect-error unknown strategy
truncateText('abc', { maxChars: 1, strategy: 'middle' })
export { r, head }
`

test('the packed tarball installs and works from ESM, CommonJS and TypeScript', { timeout: 120_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'toolclamp-pack-'))
  try {
    // --ignore-scripts: the build is already done; "prepare" would rebuild the addon.
    const packed = JSON.parse(run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', work], repoRoot))
    const { filename, files } = packed[0]
    const paths = files.map((f) => f.path)
    for (const required of ['package.json', 'index.js', 'index.mjs', 'index.d.ts', 'binding.js']) {
      assert.ok(paths.includes(required), `${required} is packed: ${paths.join(', ')}`)
    }
    assert.ok(paths.some((p) => p.endsWith('.node')), `a native addon is packed: ${paths.join(', ')}`)
    assert.ok(!paths.some((p) => p.startsWith('__test__/') || p.startsWith('src/') || p.startsWith('target/')))

    const project = join(work, 'project')
    mkdirSync(project)
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'pack-check', private: true, type: 'module' }))
    // The tarball ships the built addon and its loader, so nothing needs to build here.
    run(npm, ['install', '--no-audit', '--no-fund', '--ignore-scripts', join(work, filename)], project)

    writeFileSync(join(project, 'esm-check.mjs'), ESM_CHECK)
    assert.equal(run(process.execPath, ['esm-check.mjs'], project).trim(), 'esm ok')
    writeFileSync(join(project, 'cjs-check.cjs'), CJS_CHECK)
    assert.equal(run(process.execPath, ['cjs-check.cjs'], project).trim(), 'cjs ok')

    writeFileSync(join(project, 'check.ts'), TS_CHECK)
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files: ['check.ts'],
      }),
    )
    run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], project)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
})
