// `prepare`, run by `npm install` in a clone (and for a git dependency): builds the native
// addon from source, then shows a short demo. It never runs for the published package,
// whose manifest has no lifecycle scripts (scripts/manifest.mjs strips them when packing).
// Everything goes to stderr: npm keeps stdout for its own output (`npm pack --json`).
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const say = (text) => process.stderr.write(`${text}\n`)

// `npm pack` and `npm publish` run prepare too: they package what was built, nothing to do.
const command = process.env.npm_command
if (command === 'pack' || command === 'publish') process.exit(0)

if (!existsSync(`${root}/Cargo.toml`)) process.exit(0)
if (spawnSync('cargo', ['--version'], { stdio: 'ignore' }).status !== 0) {
  say('toolclamp: no Rust toolchain (cargo) on PATH, so the native addon was not built from source.')
  say('Install Rust (https://rustup.rs) and run `npm run build`, or install the published package: npm i toolclamp')
  process.exit(0)
}

const built = spawnSync(process.execPath, [`${root}/scripts/build.mjs`], { cwd: root, stdio: ['ignore', 2, 2] })
if (built.status !== 0) process.exit(built.status ?? 1)

// The demo: a generated test log of about 300 KB, clamped as a tool result would be.
const { truncateText } = await import('../index.mjs')
const lines = []
for (let i = 0, bytes = 0; bytes < 300_000; i++) {
  const line = ` ✓ src/module_${String(i).padStart(4, '0')}.test.ts > renders case ${i % 97} (${(i * 37) % 900} ms)`
  lines.push(line)
  bytes += Buffer.byteLength(line) + 1
}
lines.push('', ` Test Files  ${lines.length} passed`, ' Duration  41.2s')
const log = `${lines.join('\n')}\n`
const result = truncateText(log, { maxBytes: 4096, maxLines: 40, strategy: 'headTail', snap: 'line' })
say('')
say(`demo: a ${Math.round(Buffer.byteLength(log) / 1000)} KB test log clamped to 4 KiB / 40 lines (toolclamp built and working):`)
for (const line of result.text.trimEnd().split('\n')) say(`  │ ${line}`)
say('')
