// The token estimate against real tokenizers: docs/tokens.md states, for each kind of
// content, how many real tokens OpenAI's o200k_base and cl100k_base count per estimated
// token. Here that table is measured again on the same texts (__test__/token-corpus.mjs,
// made from fixed seeds) with gpt-tokenizer (token-oracle.mjs), and must be what the page says; and no page
// may call the estimate safe.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'

import { estimateTokens } from '../conversation.mjs'
import { CORPUS } from './token-corpus.mjs'
import { ENCODINGS, fastOracle } from './token-oracle.mjs'

const read = (file) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')

/** The rows of the page's table: { kind: { o200k_base, cl100k_base } } as written. */
function pageTable() {
  const rows = {}
  for (const line of read('docs/tokens.md').split('\n')) {
    const cells = line.split('|').map((c) => c.trim())
    if (cells.length !== 5 || !/^\d+\.\d\d$/.test(cells[2])) continue
    rows[cells[1]] = { o200k_base: cells[2], cl100k_base: cells[3] }
  }
  return rows
}

test('docs/tokens.md gives, for every kind of content, the ratio the tokenizers count', () => {
  const measured = {}
  for (const [kind, text] of Object.entries(CORPUS)) {
    const estimate = estimateTokens(text)
    measured[kind] = Object.fromEntries(ENCODINGS.map((name) => [name, (fastOracle(name, text) / estimate).toFixed(2)]))
  }
  assert.deepEqual(pageTable(), measured)
})

test('the ratios the page reads from are real: prose under the estimate, base64 about twice it', () => {
  const ratio = (kind) => fastOracle('o200k_base', CORPUS[kind]) / estimateTokens(CORPUS[kind])
  assert.ok(ratio('English prose') < 1)
  assert.ok(ratio('base64') > 1.8)
})

test('no page says the estimate is on the safe side', () => {
  const pages = [
    'README.md',
    ...readdirSync(new URL('../docs/', import.meta.url))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ]
  const typings = readdirSync(new URL('..', import.meta.url)).filter((f) => /\.d\.m?ts$/.test(f))
  for (const file of [...pages, ...typings]) assert.doesNotMatch(read(file), /safe side/i, file)
})
