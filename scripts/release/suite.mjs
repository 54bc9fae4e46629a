// The JS test suite on a Node of another target, with that target's addon: by default the
// whole of __test__/ on an arm64 Node under qemu-aarch64 (npm run test:arm64). It builds the
// addon first (the build is quick when nothing changed), installs what the runner needs
// (scripts/release/tools.mjs: qemu, the arm64 libraries and Node, binfmt_misc for the
// suite's child processes), and runs the suite at the root of the repository, where
// binding.js loads toolclamp.<platform>.node. FC_RUNS is 100 unless set: properties run
// about ten times slower under emulation.
//
//   npm run test:arm64
//   npm run test:arm64 -- --no-build __test__/strings.test.mjs __test__/json.test.mjs
//   node scripts/release/suite.mjs --target linux-x64-musl
//
// Prints the runner's output, then the counts, the failing tests and the wall time; exits
// with the runner's status.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { repoRoot } from './packages.mjs'
import { artifactsOf, RUNNERS, selectTargets } from './targets.mjs'
import { ensureTools } from './tools.mjs'

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    target: { type: 'string', default: 'linux-arm64-gnu' },
    'no-build': { type: 'boolean', default: false },
  },
})
const say = (line) => process.stderr.write(`suite: ${line}\n`)
const [target] = selectTargets(flags.target)
const runner = RUNNERS[target.runner]

ensureTools([...target.tools, ...runner.tools, ...runner.suiteTools], say)
if (!flags['no-build']) {
  say(`node scripts/build.mjs ${target.build.join(' ')}`)
  const build = spawnSync(process.execPath, [join(repoRoot, 'scripts/build.mjs'), ...target.build], {
    cwd: repoRoot,
    stdio: ['ignore', 2, 2],
  })
  if (build.status !== 0) process.exit(build.status ?? 1)
}
for (const file of artifactsOf(repoRoot, target)) {
  if (!existsSync(join(repoRoot, file))) throw new Error(`no ${file} at the root: build it, or run without --no-build`)
}

const files = positionals.length > 0 ? positionals : ['__test__/']
const { file, args, env } = runner.command([
  '--import',
  './__test__/setup.mjs',
  '--test',
  '--test-concurrency=2',
  '--test-reporter=spec',
  ...files,
])
say(`${runner.describe()}: ${files.join(' ')} (FC_RUNS=${process.env.FC_RUNS ?? 100})`)
const start = performance.now()
const child = spawn(file, args, {
  cwd: repoRoot,
  env: { ...process.env, FC_RUNS: process.env.FC_RUNS ?? '100', ...env },
  stdio: ['ignore', 'pipe', 'inherit'],
})
let output = ''
child.stdout.on('data', (chunk) => {
  output += chunk
  process.stdout.write(chunk)
})
child.on('close', (status, signal) => {
  const seconds = Math.round((performance.now() - start) / 1000)
  const count = (name) => output.match(new RegExp(`^ℹ ${name} (\\d+)$`, 'm'))?.[1] ?? '?'
  // The spec reporter lists the failing tests again after "✖ failing tests:".
  const failing = output.split('✖ failing tests:')[1] ?? ''
  const names = [...failing.matchAll(/^\s*✖ (.+?)(?: \([\d.]+ms\))?$/gm)].map((m) => m[1])
  console.log(`\n${target.platform} on ${runner.describe()}, ${files.join(' ')}:`)
  console.log(`tests ${count('tests')}, passed ${count('pass')}, failed ${count('fail')}, skipped ${count('skipped')}, wall ${seconds} s`)
  for (const name of names) console.log(`  failed: ${name}`)
  process.exit(status ?? (signal ? 1 : 0))
})
