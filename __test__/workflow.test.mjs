// The release workflow cannot run here; this keeps it valid YAML and true to the package:
// a build for every target in package.json's napi.targets, each binary tested on its OS and
// CPU on Node 20 and 22 (the WebAssembly build with TOOLCLAMP_RUNTIME=wasm), and a publish job that needs them all and publishes the platform
// packages (napi prepublish, run by npm publish) after moving the artifacts into npm/.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'

const workflow = parse(readFileSync(new URL('../.github/workflows/CI.yml', import.meta.url), 'utf8'))
const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const { jobs } = workflow

const stepRuns = (job) => job.steps.map((step) => step.run ?? '').join('\n')

test('the workflow parses, runs on pushes to main and pull requests, and has the template jobs', () => {
  assert.equal(workflow.name, 'CI')
  assert.deepEqual(workflow.on.push.branches, ['main'])
  assert.ok('pull_request' in workflow.on)
  assert.equal(workflow.env.APP_NAME, manifest.napi.binaryName)
  assert.deepEqual(Object.keys(jobs).sort(), ['build', 'lint', 'publish', 'test-linux-binding', 'test-macOS-windows-binding', 'test-wasi'])
  for (const [name, job] of Object.entries(jobs)) {
    assert.ok(Array.isArray(job.steps) && job.steps.length > 0, name)
    assert.ok(
      job.steps.every((step) => typeof step.uses === 'string' || typeof step.run === 'string'),
      `${name}: every step uses or runs`,
    )
    assert.equal(job.steps[0].uses, 'actions/checkout@v5', `${name} checks out first`)
  }
})

test('a build for every napi target, on a host that can link it, uploading the binary and its loader', () => {
  const builds = jobs.build.strategy.matrix.settings
  assert.deepEqual(builds.map((b) => b.target).sort(), [...manifest.napi.targets].sort())
  for (const { host, target, build } of builds) {
    assert.match(build, new RegExp(`^npm run build -- --target ${target}\\b`), target)
    if (target.endsWith('-linux-gnu')) assert.match(build, /--use-napi-cross/, `${target} links glibc 2.17`)
    if (target.endsWith('-musl')) assert.match(build, / -x$/, `${target} builds with cargo-zigbuild`)
    if (target.startsWith('wasm32-')) assert.equal(build, `npm run build -- --target ${target}`)
    const os = target.includes('apple') ? 'macos' : target.includes('windows') ? 'windows' : 'ubuntu'
    assert.ok(host.startsWith(os), `${target} on ${host}`)
  }
  const upload = jobs.build.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))
  assert.equal(upload.with.name, 'bindings-${{ matrix.settings.target }}')
  assert.match(upload.with.path, /\$\{\{ env\.APP_NAME \}\}\.\*\.node/)
  assert.match(upload.with.path, /binding\.js/)
  // The WebAssembly build travels with the loaders napi build writes for it.
  for (const pattern of ['${{ env.APP_NAME }}.*.wasm', '*.wasi*.cjs', 'wasi-worker*.mjs']) {
    assert.ok(upload.with.path.split('\n').includes(pattern), pattern)
  }
})

test('every binary is tested on Node 20 and 22 on its own OS and CPU', () => {
  const desktop = jobs['test-macOS-windows-binding'].strategy.matrix
  const linux = jobs['test-linux-binding'].strategy.matrix
  assert.deepEqual(desktop.node, ['20', '22'])
  assert.deepEqual(linux.node, ['20', '22'])
  const wasi = jobs['test-wasi']
  assert.deepEqual(wasi.strategy.matrix.node, ['20', '22'])
  const wasiDownload = wasi.steps.find((s) => s.uses?.startsWith('actions/download-artifact'))
  const wasiTarget = wasiDownload.with.name.replace('bindings-', '')
  assert.equal(wasi.steps.find((s) => s.run === 'npm run test:js').env.TOOLCLAMP_RUNTIME, 'wasm')
  const tested = [...desktop.settings.map((s) => s.target), ...linux.target, wasiTarget].sort()
  assert.deepEqual(tested, [...manifest.napi.targets].sort())
  for (const job of [jobs['test-macOS-windows-binding'], jobs['test-linux-binding'], wasi]) {
    assert.deepEqual(job.needs, ['build'])
    assert.ok(job.steps.some((s) => s.uses?.startsWith('actions/download-artifact')))
    const runs = `${stepRuns(job)}\n${job.steps.map((s) => s.with?.run ?? '').join('\n')}`
    assert.match(runs, /npm run test:js/)
    assert.match(runs, /npm ci --ignore-scripts/)
  }
  assert.ok(manifest.scripts['test:js'], 'the test jobs run a script the package has')
})

test('publish needs every test, moves the artifacts into npm/ and publishes with provenance', () => {
  const { publish } = jobs
  assert.deepEqual([...publish.needs].sort(), ['lint', 'test-linux-binding', 'test-macOS-windows-binding', 'test-wasi'])
  assert.equal(publish.permissions['id-token'], 'write')
  const runs = stepRuns(publish)
  assert.match(runs, /napi create-npm-dirs/)
  assert.match(runs, /npm run artifacts/)
  assert.match(runs, /npm config set provenance true/)
  assert.match(runs, /npm publish --access public/)
  // npm publish runs prepublishOnly, which publishes the platform packages first.
  assert.match(manifest.scripts.prepublishOnly, /^napi prepublish -t npm/)
  assert.match(manifest.scripts.artifacts, /^napi artifacts/)
})
