// What a built addon asks of the system, read from its ELF file with binutils: the newest
// glibc symbol version it needs, the libraries it links, and whether it exports the Node-API
// entry point. The release dry run checks every Linux binary with it; pack.test.mjs the
// linux-x64-gnu one.
import { spawnSync } from 'node:child_process'

const tool = (command, args) => {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.error?.message ?? result.stderr}`)
  return result.stdout
}

const versionText = (version) => `GLIBC_${version.slice(0, version[2] === 0 ? 2 : 3).join('.')}`

/** Whether objdump and readelf (binutils) are there. */
export const hasBinutils = () => spawnSync('objdump', ['--version']).status === 0 && spawnSync('readelf', ['--version']).status === 0

/**
 * `{ glibc, needed, napi }`: the newest GLIBC_ version the binary's symbols need (`[2, 17, 0]`,
 * or null for none), the libraries it links (DT_NEEDED) and whether it exports
 * napi_register_module_v1.
 */
export function elfFacts(file) {
  const versions = [...tool('objdump', ['-T', file]).matchAll(/GLIBC_(\d+)\.(\d+)(?:\.(\d+))?/g)].map((m) => [
    Number(m[1]),
    Number(m[2]),
    Number(m[3] ?? 0),
  ])
  const glibc = versions.sort((a, b) => b[0] - a[0] || b[1] - a[1] || b[2] - a[2])[0] ?? null
  const needed = [...tool('readelf', ['-d', file]).matchAll(/\(NEEDED\)\s+Shared library: \[(.+?)\]/g)].map((m) => m[1])
  const napi = /\snapi_register_module_v1$/m.test(tool('readelf', ['--dyn-syms', '-W', file]))
  return { glibc, needed, napi }
}

/**
 * What is wrong with the binary for a target of `libc` ('glibc' or 'musl'), or '' when
 * nothing is: glibc up to 2.17, or no glibc at all and only musl's libc; the entry point.
 */
export function checkBinary(file, libc) {
  const { glibc, needed, napi } = elfFacts(file)
  const problems = []
  if (!napi) problems.push('no napi_register_module_v1 export')
  if (libc === 'glibc' && (glibc === null || glibc[0] > 2 || (glibc[0] === 2 && glibc[1] > 17))) {
    problems.push(`needs ${glibc === null ? 'no glibc at all' : versionText(glibc)} (at most GLIBC_2.17)`)
  }
  if (libc === 'musl' && glibc !== null) problems.push(`needs ${versionText(glibc)}`)
  if (libc === 'musl' && needed.some((name) => name !== 'libc.so')) problems.push(`links ${needed.join(', ')} (musl's libc.so only)`)
  return problems.join('; ')
}

/** A short description for the summary: "GLIBC_2.17, libgcc_s.so.1 libpthread.so.0 libc.so.6". */
export function describeBinary(file) {
  const { glibc, needed } = elfFacts(file)
  return `${glibc === null ? 'no glibc' : versionText(glibc)}; ${needed.join(' ')}`
}
