// The install a user gets from the registry: packs the main package (with its real pack
// lifecycle) and the linux-x64-gnu platform package, installs both into a fresh project with
// no Rust toolchain on PATH, and uses them from CommonJS, ESM and TypeScript. Catches files
// missing from "files", a broken "exports" map (the root and every subpath), types that do not
// resolve in any resolution mode, a main package that ships a binary or a lifecycle script, and
// a loader that needs a build.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkBinary, hasBinutils } from '../scripts/release/binary.mjs'
import { installedManifest, installProject, pack, packMain, repoRoot, run, stagePlatform, userEnv } from '../scripts/release/packages.mjs'
import { TARGETS } from '../scripts/release/targets.mjs'
import { assertReadmeSize } from './helpers.mjs'

const require = createRequire(import.meta.url)
const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'))
const PLATFORM = 'linux-x64-gnu'
const TARGET = TARGETS.find((target) => target.platform === PLATFORM)
const isLinuxX64Glibc =
  process.platform === 'linux' && process.arch === 'x64' && Boolean(process.report.getReport().header.glibcVersionRuntime)

// Each entry, with a name it is known for (as `f`), a call of it and what that returns.
const ENTRY_CHECKS = [
  ['toolclamp', 'stringTruncateHead', "f('x'.repeat(100), 7)", 'x [...]'],
  ['toolclamp/conversation', 'estimateTokens', "f('上下左右')", 4],
  ['toolclamp/ai-sdk', 'toolResultsMiddleware', 'f({ contextWindowTokens: 1000 }).specificationVersion', 'v3'],
  ['toolclamp/pi', 'toolResultsContextGuard', 'typeof f({ contextWindowTokens: 1000 })', 'function'],
  ['toolclamp/presets', 'resolveToolProfile', "f('read_file').maxLines", 500],
]
const ENTRY_STEMS = ['index', 'conversation', 'ai-sdk', 'pi', 'presets']
const entryAsserts = (load) =>
  ENTRY_CHECKS.map(
    ([specifier, name, call, expected], i) => `{
  const f = ${load(specifier, i)}.${name}
  assert.deepEqual(${call}, ${JSON.stringify(expected)})
}`,
  ).join('\n')

const CJS_CHECK = `
const assert = require('node:assert/strict')
${entryAsserts((specifier) => `require('${specifier}')`)}
console.log('cjs ok')
`

const ESM_CHECK = `
import { truncateText, measureText } from 'toolclamp'
import { clampToolResultsInMessages } from 'toolclamp/conversation'
${ENTRY_CHECKS.map(([specifier], i) => `import * as entry${i} from '${specifier}'`).join('\n')}
import assert from 'node:assert/strict'
assert.equal(truncateText('line\\n'.repeat(100), { maxLines: 5 }).text, 'line\\nline\\nline\\nline\\n[... 96 lines truncated at the end ...]')
assert.deepEqual(measureText('héllo\\n😀'), { chars: 8, bytes: 11, lines: 2 })
const messages = [{ role: 'tool', tool_call_id: 'a', content: 'x\\n'.repeat(100_000) }]
assert.equal(clampToolResultsInMessages(messages, { contextWindowTokens: 10_000 }).results[0].action, 'clamped')
${entryAsserts((specifier, i) => `entry${i}`)}
console.log('esm ok')
`

const TS_CHECK = `
import { truncateText, stringTruncateHead, type TruncateTextResult, type NoticeFacts } from 'toolclamp'
import { estimateTokens, type ClampMessagesOptions } from 'toolclamp/conversation'
import { toolResultsMiddleware, type GuardOptions } from 'toolclamp/ai-sdk'
import { toolResultsContextGuard, type StreamRecoveryOptions } from 'toolclamp/pi'
import { resolveToolProfile, type ResolvedToolProfile } from 'toolclamp/presets'

const notice = (facts: NoticeFacts): string => \`cut \${facts.omittedLines} lines at the \${facts.where}\`
const r: TruncateTextResult = truncateText('a\\n'.repeat(50), { maxLines: 3, strategy: 'tail', notice })
const head: string = stringTruncateHead('abc', { maxChars: 2, maxBytes: Infinity })
// @ts-expect-error unknown strategy (never called: it would throw)
const typo = () => truncateText('abc', { maxChars: 1, strategy: 'middle' })
const options: ClampMessagesOptions & GuardOptions = { contextWindowTokens: 1000 }
const recovery: StreamRecoveryOptions = { maxAttempts: 2 }
const tokens: number = estimateTokens('上下左右')
const profile: ResolvedToolProfile = resolveToolProfile('read_file')
const version: 'v3' = toolResultsMiddleware(options).specificationVersion
const guard: <M>(messages: M[]) => Promise<M[]> = toolResultsContextGuard(options)
console.log(\`ts ok \${r.outputLines} \${head.length} \${typeof typo} \${tokens} \${profile.maxLines} \${version} \${typeof guard} \${recovery.maxAttempts}\`)
`
// What each resolution mode a TypeScript user may have set compiles TS_CHECK with: the
// default of a Node project (nodenext), a bundler's, and the older node10 (which ignores
// "exports" and finds each subpath's types beside its .js file).
const TS_MODES = [
  ['nodenext', { module: 'nodenext' }],
  ['bundler', { module: 'esnext', moduleResolution: 'bundler', target: 'es2022' }],
  ['node10', { module: 'commonjs', moduleResolution: 'node', target: 'es2022' }],
]

test('the main and linux-x64-gnu packages install from their tarballs without Rust and load from CJS, ESM and TypeScript', {
  timeout: 240_000,
  skip: isLinuxX64Glibc ? false : 'the platform package packed here is linux-x64-gnu',
}, () => {
  const work = mkdtempSync(join(tmpdir(), 'toolclamp-pack-'))
  try {
    // The main package, packed as `npm publish` would: prepack strips the lifecycle
    // scripts, prepare builds nothing, postpack puts package.json back as it was.
    const before = readFileSync(join(repoRoot, 'package.json'))
    const main = packMain(work)
    assert.deepEqual(readFileSync(join(repoRoot, 'package.json')), before, 'package.json restored after packing')
    const paths = main.files.map((f) => f.path)
    const entryFiles = ENTRY_STEMS.flatMap((stem) => [`${stem}.js`, `${stem}.mjs`, `${stem}.d.ts`, `${stem}.d.mts`])
    // The exact tokenizers' vocabularies (vocab/, built by scripts/build-vocab.mjs) ship too.
    const vocab = ['vocab/o200k_base.bin.br', 'vocab/cl100k_base.bin.br']
    for (const required of ['package.json', ...entryFiles, 'binding.js', 'binding.d.ts', 'lib/native.js', ...vocab]) {
      assert.ok(paths.includes(required), `${required} is packed: ${paths.join(', ')}`)
    }
    assert.ok(!paths.some((p) => p.endsWith('.node')), `the main package ships no binary: ${paths.join(', ')}`)
    assert.ok(!paths.some((p) => /^(__test__|src|crates|scripts|npm|target|docs|examples)\//.test(p)), paths.join(', '))
    // The README ships (npm shows it, resolving its relative links against the repository);
    // the docs/ pages it links to are read on GitHub, not from node_modules.
    assert.ok(paths.includes('README.md'), `README.md is packed: ${paths.join(', ')}`)

    // The platform package: its manifest from npm/, the binary the build wrote.
    const platform = pack(stagePlatform(TARGET, join(work, PLATFORM)), work)
    assert.deepEqual(platform.files.map((f) => f.path).sort(), ['README.md', 'package.json', `toolclamp.${PLATFORM}.node`])
    // The sizes the README gives are still what they pack to (within 10%).
    assertReadmeSize('toolclamp', main.size)
    assertReadmeSize(`toolclamp-${PLATFORM}`, platform.size)

    const project = join(work, 'project')
    const env = userEnv()
    assert.notEqual(spawnSync('cargo', ['--version'], { env }).status, 0, 'no cargo on the install PATH')
    const install = installProject(project, main.path, platform)
    assert.doesNotMatch(install.stderr, /EBADENGINE|ERR!|npm error/)

    // What was installed: a manifest with no lifecycle script, the platform package at the same version.
    const installed = installedManifest(project, 'toolclamp')
    for (const script of ['prepare', 'prepack', 'postpack', 'install', 'postinstall', 'preinstall']) {
      assert.equal(installed.scripts?.[script], undefined, `no ${script} script`)
    }
    assert.equal(installed.optionalDependencies[`toolclamp-${PLATFORM}`], manifest.version)
    assert.equal(installed.version, manifest.version)

    writeFileSync(join(project, 'check.cjs'), CJS_CHECK)
    assert.equal(run(process.execPath, ['check.cjs'], project, env).stdout.trim(), 'cjs ok')
    writeFileSync(join(project, 'check.mjs'), ESM_CHECK)
    assert.equal(run(process.execPath, ['check.mjs'], project, env).stdout.trim(), 'esm ok')
    writeFileSync(join(project, 'check.ts'), TS_CHECK)
    for (const [mode, options] of TS_MODES) {
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { ...options, strict: true, outDir: `out-${mode}`, skipLibCheck: false, types: [] },
          files: ['check.ts'],
        }),
      )
      run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], project, env)
    }
    // Run as CommonJS (the project has no "type"): the nodenext and node10 builds.
    for (const out of ['out-nodenext', 'out-node10']) {
      assert.equal(run(process.execPath, [`${out}/check.js`], project, env).stdout.trim(), 'ts ok 3 2 function 4 500 v3 function 2', out)
    }

    // The release's smoke check: every export of every entry, called as installed.
    copyFileSync(join(repoRoot, 'scripts/release/smoke.mjs'), join(project, 'smoke.mjs'))
    const smoke = run(process.execPath, ['smoke.mjs'], project, env).stdout
    assert.match(smoke, new RegExp(`^smoke ok: \\d+ exports of 5 entries; runtime native, node_modules/toolclamp-${PLATFORM}/`, 'm'))

    // Without the platform package: one clear error, not npm's optional-dependency bug text.
    rmSync(join(project, 'node_modules', `toolclamp-${PLATFORM}`), { recursive: true })
    const missing = spawnSync(process.execPath, ['check.cjs'], { cwd: project, encoding: 'utf8', env })
    assert.notEqual(missing.status, 0)
    assert.match(missing.stderr, /toolclamp: no native addon for linux-x64 \(glibc\)\. It looked for the package toolclamp-linux-x64-gnu/)
    assert.match(missing.stderr, /build from source in a clone with Rust installed/)
    assert.doesNotMatch(
      missing.stderr.split('\n').find((line) => line.includes('toolclamp: no native addon')),
      /npm has a bug/,
    )
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
})

const glibcSkip = !isLinuxX64Glibc ? 'a Linux x64 glibc build' : !hasBinutils() ? 'objdump and readelf (binutils) are not installed' : false

test('the linux-x64-gnu binary needs no glibc newer than 2.17, and exports the Node-API entry point', { skip: glibcSkip }, () => {
  assert.equal(checkBinary(join(repoRoot, `toolclamp.${PLATFORM}.node`), 'glibc'), '')
})

test('every platform package: napi-rs manifest, same version, listed by the main package', () => {
  const names = {
    'x86_64-unknown-linux-gnu': ['linux-x64-gnu', 'linux', 'x64', 'glibc'],
    'x86_64-unknown-linux-musl': ['linux-x64-musl', 'linux', 'x64', 'musl'],
    'aarch64-unknown-linux-gnu': ['linux-arm64-gnu', 'linux', 'arm64', 'glibc'],
    'aarch64-unknown-linux-musl': ['linux-arm64-musl', 'linux', 'arm64', 'musl'],
    'x86_64-apple-darwin': ['darwin-x64', 'darwin', 'x64'],
    'aarch64-apple-darwin': ['darwin-arm64', 'darwin', 'arm64'],
    'x86_64-pc-windows-msvc': ['win32-x64-msvc', 'win32', 'x64'],
    'aarch64-pc-windows-msvc': ['win32-arm64-msvc', 'win32', 'arm64'],
  }
  assert.deepEqual([...manifest.napi.targets].sort(), [...Object.keys(names), 'wasm32-wasip1-threads'].sort())
  assert.deepEqual(
    Object.keys(manifest.optionalDependencies).sort(),
    Object.values(names)
      .map(([name]) => `toolclamp-${name}`)
      .sort(),
  )
  for (const [name, os, cpu, libc] of Object.values(names)) {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'npm', name, 'package.json'), 'utf8'))
    assert.equal(pkg.name, `toolclamp-${name}`)
    assert.equal(pkg.version, manifest.version)
    assert.equal(manifest.optionalDependencies[pkg.name], manifest.version)
    assert.deepEqual(pkg.os, [os])
    assert.deepEqual(pkg.cpu, [cpu])
    assert.deepEqual(pkg.libc, libc === undefined ? undefined : [libc])
    assert.equal(pkg.main, `toolclamp.${name}.node`)
    assert.deepEqual(pkg.files, [`toolclamp.${name}.node`])
    assert.equal(pkg.license, manifest.license)
    assert.deepEqual(pkg.repository, manifest.repository)
  }
})

test('the WebAssembly package: installed by name on any CPU, never as an optional dependency', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'npm', 'wasm32-wasi', 'package.json'), 'utf8'))
  assert.equal(pkg.name, 'toolclamp-wasm32-wasi')
  assert.equal(pkg.version, manifest.version)
  // npm refuses a package whose cpu is not the machine's: `npm i toolclamp-wasm32-wasi` must work.
  assert.equal(pkg.cpu, undefined)
  assert.equal(pkg.os, undefined)
  assert.equal(manifest.optionalDependencies[pkg.name], undefined)
  assert.equal(pkg.main, 'toolclamp.wasi.cjs')
  assert.ok(pkg.files.includes('toolclamp.wasm32-wasi.wasm') && pkg.files.includes('wasi-worker.mjs'))
  // The runtime it needs, at the versions the build linked against.
  for (const name of ['@emnapi/core', '@emnapi/runtime']) assert.equal(pkg.dependencies[name], manifest.devDependencies[name])
  assert.equal(pkg.dependencies['@napi-rs/wasm-runtime'], `~${manifest.devDependencies['@napi-rs/wasm-runtime']}`)
  assert.equal(manifest.devDependencies.emnapi, manifest.devDependencies['@emnapi/core'])
})
