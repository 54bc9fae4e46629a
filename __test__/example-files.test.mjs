// Every script in examples/ runs as its header says, `node examples/<file>` from the package
// root, offline, exits 0 and prints what it says it prints. A script states that in one of two
// ways:
//
// - `console.log(...) // expected` comments, as the README's examples do: then its stdout is
//   exactly those lines, in order (a parenthesised remark after the expected text is not
//   part of it), and its stderr is empty;
// - `// expected: <line>` comment lines, for a script whose output is long or names temporary
//   files: then each of those lines is a whole line of its stdout, in that order.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { docPages, readPage } from './helpers.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const scripts = readdirSync(join(ROOT, 'examples'))
  .filter((f) => /\.(?:mjs|cjs|js)$/.test(f))
  .sort()

test('examples/ holds a script per framework the docs point at', () => {
  for (const name of ['pi-agent-core.mjs', 'ai-sdk.mjs', 'mcp-server.mjs', 'mcp-client.mjs', 'langchain.mjs', 'openai-agents.mjs']) {
    assert.ok(scripts.includes(name), name)
  }
  const docs = docPages().map(readPage).join('\n')
  for (const name of scripts) assert.ok(docs.includes(`examples/${name}`), `README.md or docs/ mentions examples/${name}`)
})

for (const name of scripts) {
  test(`node examples/${name}`, { timeout: 120_000 }, () => {
    const source = readFileSync(join(ROOT, 'examples', name), 'utf8')
    assert.ok(source.includes(`node examples/${name}`), 'the header says how to run it')
    const inline = [...source.matchAll(/^[ \t]*console\.log\(.*\) \/\/ (.*?)(?: \(.*\))?$/gm)].map((m) => m[1])
    const listed = [...source.matchAll(/^\/\/ expected: (.*)$/gm)].map((m) => m[1])
    assert.ok(inline.length > 0 !== listed.length > 0, 'says what it prints in one of the two ways')

    const rootBefore = readdirSync(ROOT)
    const { status, signal, stdout, stderr } = spawnSync(process.execPath, [join('examples', name)], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    })
    assert.equal(status, 0, `exit ${status ?? signal}:\n${stderr}`)
    assert.deepEqual(
      readdirSync(ROOT).filter((f) => !rootBefore.includes(f)),
      [],
      'leaves no file in the package root',
    )
    const printed = stdout.split('\n')
    if (printed.at(-1) === '') printed.pop()
    if (inline.length > 0) {
      assert.equal(stderr, '', 'nothing on stderr')
      assert.deepEqual(printed, inline, 'prints exactly what its comments say')
    } else {
      let at = 0
      for (const line of listed) {
        const found = printed.indexOf(line, at)
        assert.notEqual(found, -1, `prints ${JSON.stringify(line)}${at > 0 ? ` after line ${at}` : ''}`)
        at = found + 1
      }
    }
  })
}
