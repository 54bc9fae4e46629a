// The targets the release dry run builds and checks on a Linux x64 host, and the runners
// that run a Node of each target here. A target names:
//   platform  its package, npm/<platform>/ (toolclamp-<platform>), whose "files" are the
//             artifacts the build writes at the root of the repository
//   build     the arguments of scripts/build.mjs (as the release workflow passes them)
//   tools     what building it needs (scripts/release/tools.mjs)
//   install   npm's --os/--cpu/--libc for an install as on that platform; or `byName`: the
//             package is a dependency of the project itself, installed without optional
//             dependencies (no native addon), as docs/install.md tells users of the
//             WebAssembly build
//   runner    a key of RUNNERS
//   runtime   the runtime the smoke check must report having loaded ('native' or 'wasm')
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ARM64_GNU_PREFIX, MUSL_ROOT, NODE_ARM64_GNU, NODE_ARM64_MUSL, NODE_X64_MUSL, VERSIONS } from './tools.mjs'

export const TARGETS = [
  {
    platform: 'linux-x64-gnu',
    build: ['--target', 'x86_64-unknown-linux-gnu', '--use-napi-cross'],
    tools: ['rust-target:x86_64-unknown-linux-gnu'],
    install: { os: 'linux', cpu: 'x64', libc: 'glibc' },
    runner: 'native',
    runtime: 'native',
  },
  {
    platform: 'linux-arm64-gnu',
    build: ['--target', 'aarch64-unknown-linux-gnu', '--use-napi-cross'],
    tools: ['rust-target:aarch64-unknown-linux-gnu'],
    install: { os: 'linux', cpu: 'arm64', libc: 'glibc' },
    runner: 'qemu-arm64-gnu',
    runtime: 'native',
  },
  {
    platform: 'linux-x64-musl',
    build: ['--target', 'x86_64-unknown-linux-musl', '-x'],
    tools: ['rust-target:x86_64-unknown-linux-musl', 'zig'],
    install: { os: 'linux', cpu: 'x64', libc: 'musl' },
    runner: 'musl-x64',
    runtime: 'native',
  },
  {
    platform: 'linux-arm64-musl',
    build: ['--target', 'aarch64-unknown-linux-musl', '-x'],
    tools: ['rust-target:aarch64-unknown-linux-musl', 'zig'],
    install: { os: 'linux', cpu: 'arm64', libc: 'musl' },
    runner: 'qemu-arm64-musl',
    runtime: 'native',
  },
  {
    platform: 'wasm32-wasi',
    build: ['--target', 'wasm32-wasip1-threads'],
    tools: ['rust-target:wasm32-wasip1-threads'],
    install: { byName: true },
    runner: 'native',
    runtime: 'wasm',
  },
]

/**
 * How to run a Node of each kind here. `command(args)` is `{ file, args, env }`: `env` is
 * added to the environment, and holds what a child process of that Node needs too.
 * `suiteTools` is what the whole test suite needs besides (its child processes).
 */
export const RUNNERS = {
  native: {
    describe: () => `host Node ${process.version}`,
    tools: [],
    suiteTools: [],
    command: (args) => ({ file: process.execPath, args, env: {} }),
  },
  // qemu-aarch64 runs the arm64 Node; its children (the same Node, by process.execPath) go
  // through binfmt_misc to qemu-aarch64, which reads the library prefix from the environment.
  'qemu-arm64-gnu': {
    describe: () => `qemu-aarch64, Node ${VERSIONS.nodeArm64Gnu} (glibc)`,
    tools: ['qemu', 'arm64-gnu-libs', 'node-arm64-gnu'],
    suiteTools: ['binfmt-aarch64'],
    command: (args) => ({
      file: 'qemu-aarch64',
      args: ['-L', ARM64_GNU_PREFIX, NODE_ARM64_GNU, ...args],
      env: { QEMU_LD_PREFIX: ARM64_GNU_PREFIX },
    }),
  },
  // An Alpine-like view for a musl Node at native speed: in a mount namespace of its own, the
  // host's musl loader is musl 1.2.5 and /usr/bin/ldd says musl (napi-rs's loader reads it).
  'musl-x64': {
    describe: () => `mount namespace, Node ${VERSIONS.nodeX64Musl} (musl)`,
    tools: ['host-musl', 'musl-root-x64', 'node-x64-musl'],
    suiteTools: [],
    command: (args) => {
      const mounts = [
        `mount --bind "$0/usr/bin/ldd" /usr/bin/ldd`,
        `mount --bind "$0/usr/lib/x86_64-linux-musl/libc.so" "$(readlink -f /lib/ld-musl-x86_64.so.1)"`,
      ]
      return {
        file: 'unshare',
        args: ['--mount', 'sh', '-c', `${mounts.join(' && ')} && exec "$@"`, MUSL_ROOT.x64, NODE_X64_MUSL, ...args],
        env: {},
      }
    },
  },
  // qemu-aarch64 with the musl root as its prefix: the loader and /usr/bin/ldd come from it.
  'qemu-arm64-musl': {
    describe: () => `qemu-aarch64, Node ${VERSIONS.nodeArm64Musl} (musl)`,
    tools: ['qemu', 'musl-root-arm64', 'node-arm64-musl'],
    suiteTools: ['binfmt-aarch64'],
    command: (args) => ({
      file: 'qemu-aarch64',
      args: ['-L', MUSL_ROOT.arm64, NODE_ARM64_MUSL, ...args],
      env: { QEMU_LD_PREFIX: MUSL_ROOT.arm64 },
    }),
  },
}

/** The targets named in `list` ("linux-x64-gnu,linux-arm64-gnu"), or all of them. */
export function selectTargets(list) {
  if (list === undefined || list === 'all') return TARGETS
  const names = list.split(',').filter(Boolean)
  const unknown = names.filter((name) => !TARGETS.some((target) => target.platform === name))
  if (unknown.length > 0) {
    throw new Error(`unknown target ${unknown.join(', ')}; known: ${TARGETS.map((target) => target.platform).join(', ')}`)
  }
  return TARGETS.filter((target) => names.includes(target.platform))
}

/** The file names the platform package of `target` ships (its manifest's "files"). */
export function artifactsOf(repoRoot, target) {
  return JSON.parse(readFileSync(join(repoRoot, 'npm', target.platform, 'package.json'), 'utf8')).files
}
