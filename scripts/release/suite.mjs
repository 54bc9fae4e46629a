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
// Prints the runner's output, then the counts, the failing tests, any file that did not
// finish and the wall time; exits with the runner's status.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
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

const files = testFiles(positionals.length > 0 ? positionals : ['__test__'])
// The spec report to the terminal; to a file, a line per test with its file, which says what
// ran even when the run itself does not end.
const results = join(mkdtempSync(join(tmpdir(), 'toolclamp-suite-')), 'results.jsonl')
const reporters = [
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  `--test-reporter=${join(repoRoot, 'scripts/release/file-reporter.mjs')}`,
  `--test-reporter-destination=${results}`,
]
const { file, args, env } = runner.command(['--import', './__test__/setup.mjs', '--test', '--test-concurrency=2', ...reporters, ...files])
say(`${runner.describe()}: ${files.length} files (FC_RUNS=${process.env.FC_RUNS ?? 100}), results in ${results}`)
const start = performance.now()
const child = spawn(file, args, {
  cwd: repoRoot,
  env: { ...process.env, FC_RUNS: process.env.FC_RUNS ?? '100', ...env },
  stdio: ['ignore', 'inherit', 'inherit'],
  // A group of its own: a test that signals its whole group (kill(0)) ends the run, not this
  // script, which still reports. Ctrl-C is passed on.
  detached: true,
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.kill(-child.pid, signal))
child.on('close', (status, signal) => {
  const seconds = Math.round((performance.now() - start) / 1000)
  const ended = existsSync(results)
    ? readFileSync(results, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : []
  const tests = ended.filter((test) => !test.suite)
  const count = (result) => tests.filter((test) => test.result === result).length
  const where = (test) => relative(repoRoot, test.file ?? '?')
  console.log(`\n${target.platform} on ${runner.describe()}: ${files.length} files, the runner ended with ${signal ?? `status ${status}`}`)
  console.log(`tests ${tests.length}, passed ${count('pass')}, failed ${count('fail')}, skipped ${count('skip')}, wall ${seconds} s`)
  for (const test of tests.filter((t) => t.result === 'fail')) console.log(`  failed: ${where(test)}: ${test.name}`)
  for (const name of files.filter((name) => !ended.some((test) => where(test) === name))) console.log(`  no result from ${name}`)
  process.exit(status ?? 1)
})

/** The test files under `paths` (files, or folders searched for *.test.mjs), as node --test finds them. */
function testFiles(paths) {
  return paths.flatMap((path) =>
    statSync(join(repoRoot, path)).isDirectory()
      ? readdirSync(join(repoRoot, path), { recursive: true })
          .filter((name) => name.endsWith('.test.mjs'))
          .sort()
          .map((name) => join(path, name))
      : [path],
  )
}
