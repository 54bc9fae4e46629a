// The release dry run: everything the release workflow does for the Linux targets, on this
// machine, short of publishing. For each target it installs what the build and the runner
// need (scripts/release/tools.mjs), builds the addon (scripts/build.mjs, as the workflow
// calls it), copies the artifacts into npm/<platform>/ (as `napi artifacts` does), packs the
// main package and the platform package, installs the two tarballs into a fresh project with
// no Rust on PATH (npm told the target's os, cpu and libc; the WebAssembly package by name,
// without optional dependencies), and runs scripts/release/smoke.mjs there on a Node of that
// target: natively, under qemu-aarch64, or on a musl Node. Each
// binary must need glibc 2.17 at most, or musl's libc alone (scripts/release/binary.mjs).
// Then a table: target, built, glibc needed, packed size, smoke, runner, seconds.
//
//   npm run release:dry                                  every target
//   npm run release:dry -- --targets linux-x64-gnu,linux-arm64-gnu
//   npm run release:dry -- --no-build                    the binaries at the root as they are
//   npm run release:dry -- --no-setup                    install nothing; say what is missing
//   npm run release:dry -- --keep                        keep the temporary projects
//   npm run release:dry -- --setup-only                  install what the targets and
//                                                        npm run test:arm64 need, then stop
//
// Exits 1 when a selected target did not build, pack, install or pass its smoke check.
import { spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { checkBinary, describeBinary, hasBinutils } from './binary.mjs'
import { installProject, pack, packMain, repoRoot, stagePlatform, userEnv } from './packages.mjs'
import { artifactsOf, RUNNERS, selectTargets } from './targets.mjs'
import { ensureTools, missingTools } from './tools.mjs'

const { values: flags } = parseArgs({
  options: {
    targets: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    'no-setup': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'setup-only': { type: 'boolean', default: false },
  },
})
const say = (line) => process.stderr.write(`release:dry: ${line}\n`)
const seconds = (start) => Math.round((performance.now() - start) / 100) / 10
const SMOKE_TIMEOUT_MS = 10 * 60_000

const targets = selectTargets(flags.targets)
if (flags['setup-only']) {
  const runners = targets.map((target) => RUNNERS[target.runner])
  ensureTools([...targets.flatMap((target) => target.tools), ...runners.flatMap((runner) => [...runner.tools, ...runner.suiteTools])], say)
  say('everything is installed')
  process.exit(0)
}
const work = mkdtempSync(join(tmpdir(), 'toolclamp-release-'))
const rows = []
let main

try {
  for (const target of targets) rows.push(buildTarget(target))
  say('packing the main package')
  main = packMain(work)
  for (const row of rows) if (row.built) checkTarget(row)
} finally {
  if (flags.keep) say(`kept ${work}`)
  else rmSync(work, { recursive: true, force: true })
}

printSummary()
process.exit(rows.every((row) => row.ok) && main !== undefined ? 0 : 1)

/** Setup and build of one target: its row of the summary. */
function buildTarget(target) {
  const runner = RUNNERS[target.runner]
  const row = { target, runner, built: false, smoked: false, ok: false, note: '', buildSeconds: null, smokeSeconds: null, size: null }
  const tools = [...target.tools, ...runner.tools]
  try {
    if (flags['no-setup']) {
      const missing = missingTools(tools)
      if (missing.length > 0) throw new Error(`missing ${missing.join(', ')} (run without --no-setup to install)`)
    } else {
      ensureTools(tools, (line) => say(`${target.platform}: ${line}`))
    }
  } catch (error) {
    row.note = `setup: ${error.message}`
    return row
  }
  const artifacts = artifactsOf(repoRoot, target)
  if (!flags['no-build']) {
    say(`${target.platform}: node scripts/build.mjs ${target.build.join(' ')}`)
    const start = performance.now()
    const build = spawnSync(process.execPath, [join(repoRoot, 'scripts/build.mjs'), ...target.build], {
      cwd: repoRoot,
      stdio: ['ignore', 2, 2],
    })
    row.buildSeconds = seconds(start)
    if (build.status !== 0) {
      row.note = `build failed (${build.status ?? build.signal})`
      return row
    }
  }
  const absent = artifacts.filter((file) => !existsSync(join(repoRoot, file)))
  if (absent.length > 0) {
    row.note = `no ${absent.join(', ')} at the root`
    return row
  }
  // The release layout: the artifacts beside the platform package's manifest (git ignores them).
  stagePlatform(target, join(repoRoot, 'npm', target.platform))
  row.built = true
  // What each binary asks of the system: glibc 2.17 at most, or musl's libc alone.
  // (A WebAssembly package has no .node file and asks nothing of the system.)
  const binaries = artifacts.filter((file) => file.endsWith('.node')).map((file) => join(repoRoot, file))
  if (binaries.length > 0 && hasBinutils()) {
    row.binary = binaries.map((file) => describeBinary(file)).join(', ')
    row.problem = binaries
      .map((file) => checkBinary(file, target.install.libc))
      .filter(Boolean)
      .join('; ')
  }
  return row
}

/** Pack, install and smoke-check one built target, filling in its row. */
function checkTarget(row) {
  const { target, runner } = row
  const dir = join(work, target.platform)
  const project = join(dir, 'project')
  try {
    mkdirSync(dir)
    const platform = pack(join(repoRoot, 'npm', target.platform), dir)
    row.size = platform.size
    row.unpacked = platform.unpackedSize
    const how = target.install.byName ? 'by name, without optional dependencies' : `${target.install.cpu}, ${target.install.libc}`
    say(`${target.platform}: installing ${main.filename} and ${platform.filename} (${how})`)
    installProject(project, main.path, platform, { target: target.install })
    copyFileSync(join(repoRoot, 'scripts/release/smoke.mjs'), join(project, 'smoke.mjs'))
    say(`${target.platform}: smoke check on ${runner.describe()}`)
    const { file, args, env } = runner.command(['smoke.mjs'])
    const start = performance.now()
    const smoke = spawnSync(file, args, {
      cwd: project,
      encoding: 'utf8',
      env: userEnv(env),
      timeout: SMOKE_TIMEOUT_MS,
    })
    row.smokeSeconds = seconds(start)
    const line = smoke.stdout.split('\n').find((text) => text.startsWith('smoke ok:'))
    // The addon came from the platform package, and in the runtime the target names.
    const from = `node_modules/toolclamp-${target.platform}/`
    if (smoke.status !== 0 || line === undefined) {
      row.note = `smoke failed (${smoke.status ?? smoke.signal}): ${(smoke.stderr || smoke.stdout).trim().split('\n').slice(0, 12).join('\n')}`
    } else if (!line.includes(` ${from}`) || !line.includes(`; runtime ${target.runtime},`)) {
      row.note = `smoke loaded another addon than the ${target.runtime} one of ${from}: ${line}`
    } else {
      row.smoked = true
      row.ok = !row.problem
      row.note = row.problem ? `the binary ${row.problem}; ${line}` : line
    }
  } catch (error) {
    row.note = error.message.split('\n').slice(0, 12).join('\n')
  }
}

function printSummary() {
  const header = ['target', 'built', 'needs', 'packed bytes', 'unpacked bytes', 'smoke', 'runner', 'build s', 'smoke s']
  const table = [
    header,
    ['main (toolclamp)', '-', '-', String(main?.size ?? '-'), String(main?.unpackedSize ?? '-'), '-', '-', '-', '-'],
    ...rows.map((row) => [
      row.target.platform,
      row.built ? 'y' : 'n',
      (row.binary ?? '-').replace(/; .*/, ''),
      String(row.size ?? '-'),
      String(row.unpacked ?? '-'),
      row.smoked ? 'passed' : row.built ? 'FAILED' : '-',
      row.runner.describe(),
      String(row.buildSeconds ?? '-'),
      String(row.smokeSeconds ?? '-'),
    ]),
  ]
  const widths = header.map((_, i) => Math.max(...table.map((cells) => cells[i].length)))
  const format = (cells) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`
  console.log(format(table[0]))
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`)
  for (const cells of table.slice(1)) console.log(format(cells))
  for (const row of rows) console.log(`${row.target.platform}: ${row.note}`)
}
