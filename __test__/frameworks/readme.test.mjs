// The per-framework examples of README "Tool results" run as printed, offline, against the real
// frameworks, and print what their comments say.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

import { runAsPrinted } from '../helpers.mjs'

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8')

/** The ```js block under the README heading `heading` (up to the next heading). */
function exampleUnder(heading) {
  const start = README.indexOf(`\n${heading}\n`)
  assert.notEqual(start, -1, heading)
  const end = README.slice(start + heading.length + 2).search(/\n#{2,4} /)
  const section = README.slice(start, end === -1 ? undefined : start + heading.length + 2 + end)
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1])
  assert.equal(blocks.length, 1, `one example under ${heading}`)
  return blocks[0]
}

test('README "Tool results": the pi-agent-core example clamps to its per-tool budget and keeps details', () => {
  const [line] = runAsPrinted(exampleUnder('#### pi-agent-core / OpenClaw'))
  assert.equal(line, '500 300000')
})

test('README "Tool results": the MCP example passes the real client\'s outputSchema check and says what was shortened', () => {
  const code = exampleUnder('#### MCP (server or client)')
  assert.match(code, /outputSchema/)
  const [counts, note] = runAsPrinted(code)
  const [structured, fromText] = counts.split(' ').map(Number)
  assert.ok(structured > 100 && structured === fromText, counts)
  assert.match(note, /^\[structuredContent shortened to [\d,]+ of [\d,]+ bytes: \$\.problems: [\d,]+ of 200,000 items\]$/)
})

test('README "Tool results": the AI SDK, LangChain and OpenAI Agents examples return at most the budget', () => {
  for (const heading of ['#### Vercel AI SDK', '#### OpenAI Agents SDK']) {
    const [line] = runAsPrinted(exampleUnder(heading))
    const [bytes, exitCode] = line.split(' ').map(Number)
    assert.ok(bytes <= 51_200 && bytes > 40_000, `${heading}: ${line}`)
    assert.equal(exitCode, 1)
  }
  const [line] = runAsPrinted(exampleUnder('#### LangChain'))
  assert.equal(line, '2000 100000')
})
