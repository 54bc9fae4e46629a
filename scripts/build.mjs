// Builds the native addon: `napi build --platform --release` with the JS loader and its
// types. On a Linux x64 glibc host the build links against glibc 2.17 with the prebuilt
// cross toolchain napi-rs publishes on the npm registry (`--use-napi-cross`), so the
// binary loads on every glibc Linux from 2.17 up (RHEL 7 and 8, Amazon Linux 2, Debian 10
// and 11, Ubuntu 18.04 and 20.04), as the one published in toolclamp-linux-x64-gnu does.
//
//   node scripts/build.mjs            release build (what `npm run build` runs)
//   node scripts/build.mjs --debug    debug build
//   node scripts/build.mjs --host     link against the host's glibc (no toolchain download)
//   node scripts/build.mjs --target aarch64-unknown-linux-gnu --use-napi-cross
//                                     any other napi build flags, as the release workflow passes them
//   node scripts/build.mjs --target x86_64-unknown-linux-musl -x
//                                     musl through cargo-zigbuild and zig (on PATH, or where
//                                     scripts/release/setup.mjs installs them)
//
// napi-rs's cross toolchain for aarch64 was published at another version than the one the
// pinned @napi-rs/cross-toolchain fetches: scripts/release/napi-cross.mjs puts it where napi
// build looks first.
//
// Everything napi and cargo print goes to stderr, so `npm pack --json` and the like keep a
// clean stdout.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { delimiter } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureNapiCross } from './release/napi-cross.mjs'
import { ZIG_BIN } from './release/tools.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const debug = args.includes('--debug')
const host = args.includes('--host')
// Anything else goes to napi build as it is (the release workflow passes its --target and
// cross-compilation flags); a build for a named target gets no cross toolchain of ours.
const passed = args.filter((arg) => arg !== '--debug' && arg !== '--host')
const named = passed.some((arg) => arg === '--target' || arg === '-t' || arg.startsWith('--target='))
const targetIndex = passed.findIndex((arg) => arg === '--target' || arg === '-t')
const triple = targetIndex >= 0 ? passed[targetIndex + 1] : passed.find((arg) => arg.startsWith('--target='))?.slice(9)
const say = (line) => process.stderr.write(`build: ${line}\n`)

/** Whether this is a Linux x64 host with glibc, where the glibc 2.17 toolchain runs. */
function isLinuxX64Glibc() {
  if (process.platform !== 'linux' || process.arch !== 'x64') return false
  const report = process.report?.getReport?.()
  return Boolean(report?.header?.glibcVersionRuntime)
}

// The CLI's bin, by path: its package exports no subpath for it.
const napi = fileURLToPath(new URL('../node_modules/@napi-rs/cli/dist/cli.js', import.meta.url))
const base = ['build', '--platform', '--js', 'binding.js', '--dts', 'binding.d.ts', ...(debug ? [] : ['--release'])]

// zig and cargo-zigbuild as scripts/release/setup.mjs installs them, when they are there.
const env = existsSync(ZIG_BIN) ? { ...process.env, PATH: `${ZIG_BIN}${delimiter}${process.env.PATH}` } : process.env

function napiBuild(extra) {
  const result = spawnSync(process.execPath, [napi, ...base, ...extra, ...passed], { cwd: root, env, stdio: ['ignore', 2, 2] })
  return result.status ?? 1
}

if (passed.includes('--use-napi-cross') && triple !== undefined) ensureNapiCross(triple, say)

let status
if (isLinuxX64Glibc() && !host && !named) {
  status = napiBuild(['--use-napi-cross', '--target', 'x86_64-unknown-linux-gnu'])
  if (status !== 0) {
    process.stderr.write(
      'build: the glibc 2.17 cross toolchain could not be set up or used; building against the host glibc instead\n' +
        '(the addon then needs this glibc or newer; `npm test` checks the published binary and will say so)\n',
    )
    status = napiBuild([])
  }
} else {
  status = napiBuild([])
}
process.exit(status)
