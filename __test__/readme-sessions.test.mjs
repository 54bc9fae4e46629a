// The examples of "Sessions and context overflow" (docs/conversations.md) and of the framework
// adapters (docs/frameworks.md) run as printed, offline, against the real frameworks (pi-ai's
// faux provider, the AI SDK's mock model, pi-coding-agent's SessionManager), and print what
// their comments say.
import { test } from 'node:test'
import assert from 'node:assert/strict'

import { readmeBlocks, runAsPrinted } from './helpers.mjs'

const CONVERSATIONS = 'docs/conversations.md'
const FRAMEWORKS = 'docs/frameworks.md'
const SECTION = '## Sessions and context overflow'
/** [page, heading] of each example, in the order the tests below take them. */
const HEADINGS = [
  [CONVERSATIONS, '### `clampToolResultsInMessages(messages, options)`'],
  [CONVERSATIONS, '### `withContextOverflowRecovery(send, options)`'],
  [FRAMEWORKS, '### pi-agent-core: `toolResultsContextGuard(options)`, `wrapStreamFnWithOverflowRecovery(streamFn, options?)`'],
  [FRAMEWORKS, '### Vercel AI SDK: `toolResultsMiddleware(options)`'],
  [FRAMEWORKS, '### pi-coding-agent sessions: `guardSessionManager(sessionManager, limits?)`, `repairSessionFile(path, options?)`'],
]

/** The one example under a [page, heading]. */
function exampleUnder([page, heading]) {
  const blocks = readmeBlocks(heading, page)
  assert.equal(blocks.length, 1, `one example under ${page}: ${heading}`)
  return blocks[0]
}

/** Runs an example as printed; it prints nothing but the lines its comments state. */
function runExactly(code) {
  const printed = runAsPrinted(code)
  assert.equal(printed.length, code.match(/^console\.log\(.*\) \/\/ /gm).length, printed.join('\n'))
}

test('docs "Sessions and context overflow": one example per heading, and every example of the section is tested', () => {
  const inSection = HEADINGS.filter(([page]) => page === CONVERSATIONS)
  assert.deepEqual(readmeBlocks(SECTION, CONVERSATIONS), inSection.map(exampleUnder))
  for (const entry of HEADINGS) exampleUnder(entry)
})

test('docs "Sessions and context overflow": clampToolResultsInMessages cuts the oldest result to its marker and keeps every message', () => {
  runExactly(exampleUnder(HEADINGS[0]))
})

test('docs "Sessions and context overflow": withContextOverflowRecovery gets through on the second call', () => {
  const code = exampleUnder(HEADINGS[1])
  assert.match(code, /context_length_exceeded/)
  runExactly(code)
})

test('docs "Frameworks": a pi-agent-core Agent with the guard and the stream wrapper finishes', () => {
  const code = exampleUnder(HEADINGS[2])
  assert.match(code, /transformContext: toolResultsContextGuard\(/)
  assert.match(code, /streamFn: wrapStreamFnWithOverflowRecovery\(streamSimple/)
  runExactly(code)
})

test('docs "Frameworks": generateText through toolResultsMiddleware finishes', () => {
  const code = exampleUnder(HEADINGS[3])
  assert.match(code, /wrapLanguageModel\(/)
  runExactly(code)
})

test('docs "Frameworks": a guarded SessionManager and a repaired session file hold the clamped result', () => {
  const code = exampleUnder(HEADINGS[4])
  assert.match(code, /rmSync\(dir, \{ recursive: true, force: true \}\)\n$/, 'the example removes its directory')
  runExactly(code)
})
