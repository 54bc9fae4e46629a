// Two tools an agent might have, clamped the way toolclamp suggests, and a "model" that
// uses the handles they return:
//
// - read_file pages a file with readPartial; the banner tells the model how to continue.
// - run_command runs a child process; its Buffers are clamped as bytes (never decoded
//   whole) and the full stdout is saved to a spill file the notice names, which the model
//   then reads from the line the notice gives.
//
//   node examples/agent-tools.mjs
//
// Prints, among other lines (the spill file's name changes from run to run):
// expected: [PARTIAL view: lines 1–29 of 2,731 shown (bytes 0–1,875 of 307,347). Continue with offset=30.]
// expected: [PARTIAL view: lines 30–48 of 2,731 shown (bytes 1,875–3,743 of 307,347). Continue with offset=49.]
// expected: read 165 pages
// expected: <stdout>
// expected: case 5000 ok
// expected: </stdout>
// expected: <stderr>
// expected: 1 failure
// expected: </stderr>
// expected: [PARTIAL view: lines 1–39 of 5,000 shown (bytes 0–420 of 63,893). Continue with offset=40.]
// expected: case 1 ok
// expected: case 2 ok
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readPartial, formatExecOutput } from '../index.mjs'

const artifacts = mkdtempSync(join(tmpdir(), 'toolclamp-example-'))

/** read_file({ path, offset?, column? }): at most 2 KiB and 40 lines a call, banner included. */
function readFile({ path, offset, column }) {
  return readPartial(readFileSync(path, 'utf8'), { maxBytes: 2048, maxLines: 40, offset, column }).text
}

/** run_command({ script }): node running `script`; each stream's last 600 chars. */
function runCommand({ script }) {
  const child = spawnSync(process.execPath, ['-e', script])
  return formatExecOutput(
    { stdout: child.stdout, stderr: child.stderr, exitCode: child.status, signal: child.signal },
    { stdout: 600, stderr: 600, spill: { dir: artifacts, name: 'run_command' } },
  ).text
}

// The model pages through a log, following the banner of each page.
const log = new URL('./test-run.log', import.meta.url).pathname
let call = { path: log }
let pages = 0
for (;;) {
  const page = readFile(call)
  pages++
  const banner = page.split('\n', 1)[0]
  if (pages <= 2) console.log(banner)
  const next = /Continue with offset=(\d+)(?:, column=(\d+))?\./.exec(banner)
  if (!next) break
  call = { path: log, offset: Number(next[1]), column: next[2] === undefined ? undefined : Number(next[2]) }
}
console.log(`read ${pages} pages\n`)

// A command whose output is far over budget: 5,000 numbered lines, then a failure.
const output = runCommand({
  script: "for (let i = 1; i <= 5000; i++) console.log(`case ${i} ok`); console.error('1 failure'); process.exitCode = 1",
})
console.log(output, '\n')

// The notice names the spill file and the dropped lines; read the first of them.
const [, file, from] = /saved to (.+?) \(dropped: lines (\d+)–\d+\)/.exec(output)
console.log(
  readFile({ path: file, offset: Number(from) })
    .split('\n')
    .slice(0, 3)
    .join('\n'),
)

rmSync(artifacts, { recursive: true, force: true })
