// Packing the main package and a platform package, and installing their tarballs into a
// fresh project as a user would: what the release dry run and the install tests
// (__test__/pack.test.mjs, __test__/install-broken.test.mjs) share.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { artifactsOf } from './targets.mjs'

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

/** PATH with node and npm but no cargo or rustc: the machine of a user without Rust. */
export function pathWithoutRust() {
  const dirs = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin']
  return [...new Set(dirs)].filter((dir) => !existsSync(join(dir, 'cargo')) && !existsSync(join(dir, 'rustc'))).join(delimiter)
}

/**
 * The environment of a user without Rust: PATH as above, and no TOOLCLAMP_RUNTIME, so the
 * build an install brings is the one that loads (npm run test:wasm sets it for the suite).
 */
export function userEnv(extra = {}) {
  const env = { ...process.env, PATH: pathWithoutRust(), ...extra }
  delete env.TOOLCLAMP_RUNTIME
  return env
}

/** Runs a command to its end; throws with its output when it fails. */
export function run(command, args, cwd, env = process.env) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 })
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.error?.message ?? result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`,
    )
  }
  return result
}

/**
 * `npm pack` of the directory `dir` into `dest`: npm's report of the tarball (`filename`,
 * `size` in bytes, `unpackedSize`, `files`), with `path` the tarball's path.
 */
export function pack(dir, dest, args = []) {
  const [report] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dest, ...args], dir).stdout)
  return { ...report, path: join(dest, report.filename) }
}

/**
 * The main package, packed as `npm publish` packs it (its prepack and postpack run), from a
 * copy of the files it ships in `dest`: package.json changes only in the copy, never under a
 * test that reads it meanwhile. `args` go to npm pack.
 */
export function packMain(dest, args = []) {
  const copy = mkdtempSync(join(dest, 'main-'))
  const [listed] = JSON.parse(run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], repoRoot).stdout)
  // The lifecycle scripts npm pack runs: prepare (which does nothing for a pack) and prepack.
  for (const file of [...listed.files.map((f) => f.path), 'scripts/prepare.mjs', 'scripts/manifest.mjs']) {
    mkdirSync(dirname(join(copy, file)), { recursive: true })
    copyFileSync(join(repoRoot, file), join(copy, file))
  }
  return pack(copy, dest, args)
}

/**
 * Fills `dir` with the platform package of `target` (`{ platform }`): the manifest and README
 * of npm/<platform>/ and the artifacts its "files" name, from the root of the repository
 * where the build writes them. `replace` maps an artifact's name to other bytes (a broken
 * binary, for a test). `dir` may be npm/<platform>/ itself. Returns `dir`.
 */
export function stagePlatform(target, dir, replace = {}) {
  const source = join(repoRoot, 'npm', target.platform)
  mkdirSync(dir, { recursive: true })
  if (resolve(dir) !== resolve(source)) {
    for (const file of ['package.json', 'README.md']) copyFileSync(join(source, file), join(dir, file))
  }
  for (const file of artifactsOf(repoRoot, target)) {
    if (file in replace) writeFileSync(join(dir, file), replace[file])
    else copyFileSync(join(repoRoot, file), join(dir, file))
  }
  return dir
}

/**
 * A new project in `dir` that depends on the main package's tarball `main`, installed by npm
 * with no Rust on PATH. `platform` (`{ name, path }`, or undefined) stands in for the
 * registry's copy of that platform package (an override), so npm picks it from the main
 * package's optionalDependencies as it would for a user: `target` (`{ os, cpu, libc }`) tells
 * npm to pick as on that platform. With `target` `{ byName: true }` the project depends on
 * `platform` itself and installs without optional dependencies (the WebAssembly package). `args` go to npm install (--omit=optional). Returns npm's
 * output.
 */
export function installProject(dir, main, platform, { target, args = [] } = {}) {
  mkdirSync(dir, { recursive: true })
  const manifest = { name: 'install-check', private: true, dependencies: { toolclamp: `file:${main}` } }
  let flags = target ? [`--os=${target.os}`, `--cpu=${target.cpu}`, `--libc=${target.libc}`] : []
  if (target?.byName) {
    manifest.dependencies[platform.name] = `file:${platform.path}`
    flags = ['--omit=optional']
  } else if (platform !== undefined) {
    manifest.overrides = { [platform.name]: `file:${platform.path}` }
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, 2))
  return run('npm', ['install', '--no-audit', '--no-fund', ...flags, ...args], dir, userEnv())
}

/** The manifest of `name` as installed in the project `dir`. */
export function installedManifest(dir, name) {
  return JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8'))
}
