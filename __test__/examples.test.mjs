// The scripts in examples/ run as documented, so they cannot rot unnoticed.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import { measureText } from '../index.mjs'

const run = (name) => spawnSync(process.execPath, [fileURLToPath(new URL(`../examples/${name}`, import.meta.url))], { encoding: 'utf8' })

test('clamp-a-log (ESM and CommonJS): the clamped log within 4 KiB and 60 lines', () => {
  for (const name of ['clamp-a-log.mjs', 'clamp-a-log.cjs']) {
    const { status, stdout, stderr } = run(name)
    assert.equal(status, 0, stderr)
    const m = measureText(stdout)
    assert.ok(m.bytes <= 4096 && m.lines <= 60, JSON.stringify(m))
    assert.match(stdout, /truncated (at the start|in the middle)/)
    // The ESM one reports what was cut on stderr.
    if (name.endsWith('.mjs')) assert.match(stderr, /^truncated\s+true$/m)
  }
})

test('agent-tools: pages followed to the end, the spill file read from the line its notice names', () => {
  const { status, stdout, stderr } = run('agent-tools.mjs')
  assert.equal(status, 0, stderr)
  assert.match(stdout, /^\[PARTIAL view: lines 1–\d+ of 2,731 shown \(bytes 0–[\d,]+ of [\d,]+\)\. Continue with offset=\d+\.\]$/m)
  assert.ok(Number(/read (\d+) pages/.exec(stdout)[1]) > 1)
  assert.match(stdout, /full stdout saved to .*run_command-stdout-.*\.toolclamp-spill\.txt \(dropped: lines 1–\d+\)/)
  assert.match(stdout, /case 5000 ok\n<\/stdout>\n<stderr>\n1 failure\n<\/stderr>\nexit code: 1/)
  assert.match(stdout, /\[PARTIAL view: lines 1–39 of 5,000 shown .*\]\ncase 1 ok\ncase 2 ok\n$/)
})
