// An install whose platform package is missing or broken fails at the first require with
// one clear TOOLCLAMP_NO_ADDON error, never with a crash or the loader's guess about npm:
// from tarballs installed as a user installs them (the main package, and a platform package
// whose binary is empty or made for another CPU). Slow targets (arm64, musl) are checked by
// the release dry run instead (docs/releasing.md).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { installProject, pack, packMain, repoRoot, stagePlatform, userEnv } from '../scripts/release/packages.mjs'
import { TARGETS } from '../scripts/release/targets.mjs'

const PLATFORM = 'linux-x64-gnu'
const TARGET = TARGETS.find((target) => target.platform === PLATFORM)
const BINARY = `toolclamp.${PLATFORM}.node`
const isLinuxX64Glibc =
  process.platform === 'linux' && process.arch === 'x64' && Boolean(process.report.getReport().header.glibcVersionRuntime)

/** The error of a first require in `project`, as `{ status, code, message, stderr }`. */
function firstRequire(project) {
  const script = `try { require('toolclamp') } catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); process.exit(3) }`
  const result = spawnSync(process.execPath, ['-e', script], {
    cwd: project,
    encoding: 'utf8',
    env: userEnv(),
  })
  const thrown = result.status === 3 ? JSON.parse(result.stdout) : {}
  return { status: result.status, signal: result.signal, stderr: result.stderr, ...thrown }
}

/** The binary with its ELF machine set to arm64 (0xb7): a file for another CPU. */
function otherCpu(binary) {
  const copy = Buffer.from(binary)
  assert.equal(copy.readUInt16LE(18), 0x3e, 'an x86-64 ELF file')
  copy.writeUInt16LE(0xb7, 18)
  return copy
}

test('a missing or broken platform package fails the first require with TOOLCLAMP_NO_ADDON, saying which', {
  timeout: 180_000,
  skip: isLinuxX64Glibc ? false : 'the platform package packed here is linux-x64-gnu',
}, (t) => {
  const work = mkdtempSync(join(tmpdir(), 'toolclamp-broken-'))
  t.after(() => rmSync(work, { recursive: true, force: true }))
  // --ignore-scripts: package.json stays as it is while pack.test.mjs packs it with its scripts.
  const main = packMain(work, ['--ignore-scripts'])
  const binary = readFileSync(join(repoRoot, BINARY))
  const package_ = `node_modules/toolclamp-${PLATFORM}/${BINARY}`

  // npm leaves the optional package out (--omit=optional, or a lockfile from another platform).
  const missing = join(work, 'missing')
  installProject(missing, main.path, undefined, { args: ['--omit=optional'] })
  const none = firstRequire(missing)
  assert.equal(none.code, 'TOOLCLAMP_NO_ADDON', none.stderr)
  assert.match(none.message, /^toolclamp: no native addon for linux-x64 \(glibc\)\. It looked for the package toolclamp-linux-x64-gnu /)
  assert.match(none.message, /npm i toolclamp-linux-x64-gnu/)

  // Installed, but its binary cannot load: the message says so and quotes the system's reason.
  const cases = [
    ['empty', Buffer.alloc(0), /file too short/],
    ['cut inside its ELF header', binary.subarray(0, 32), /file too short/],
    ['for another CPU', otherCpu(binary), /cannot open shared object file/],
  ]
  for (const [name, bytes, reason] of cases) {
    const dir = join(work, name.replaceAll(' ', '-'))
    const platform = pack(stagePlatform(TARGET, join(dir, 'package'), { [BINARY]: bytes }), dir)
    installProject(join(dir, 'project'), main.path, platform)
    assert.equal(readFileSync(join(dir, 'project', package_)).length, bytes.length, `${name}: installed as packed`)
    const error = firstRequire(join(dir, 'project'))
    assert.equal(error.code, 'TOOLCLAMP_NO_ADDON', `${name}: ${error.signal ?? ''} ${error.stderr}`)
    assert.ok(
      error.message.startsWith(
        'toolclamp: the native addon for linux-x64 (glibc) did not load. The package toolclamp-linux-x64-gnu is installed, but its binary failed to load: ',
      ),
      `${name}: ${error.message}`,
    )
    assert.ok(error.message.includes(join(dir, 'project', package_)), `${name}: names the file: ${error.message}`)
    assert.match(error.message, reason, name)
    assert.match(error.message, /Reinstall it \(rm -rf node_modules\/toolclamp-linux-x64-gnu && npm install\)/, name)
    assert.doesNotMatch(error.message, /npm has a bug/, name)
  }
})
