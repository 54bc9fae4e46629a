// The library's notice templates: defined once, in the Rust core, read by lib/common/notices.js
// and by nothing else in lib/; each one, as a clamp writes it, is read back by the next clamp,
// and so is a truncateToolOutput view with its indicator lines, whose counts stay those of
// the original output.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import fc from 'fast-check'

import { truncateText } from '../index.mjs'
import { truncateToolOutput } from '../presets.mjs'

const require = createRequire(import.meta.url)
const notices = require('../lib/common/notices.js')
const RUNS = Number(process.env.FC_RUNS ?? 1000)

const numbered = (n) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')

test('the templates come from the core, with its placeholders', () => {
  for (const name of [
    'SPILL_NOTICE',
    'STREAM_NOTICE',
    'STREAM_SPILL_NOTICE',
    'INTERRUPTED_NOTICE',
    'INTERRUPTED_MIDDLE_NOTICE',
    'CONTEXT_CUT_NOTICE',
  ]) {
    assert.match(notices[name], /^\[\.\.\. \{omitted\} .* \.\.\.\]$/, name)
  }
  assert.ok(Object.isFrozen(notices.PLACEHOLDERS))
  assert.deepEqual(notices.PLACEHOLDERS.slice(0, 2), ['omitted', 'where'])
  assert.ok(notices.PLACEHOLDERS.includes('toLine'))
})

test('no file of lib/ but common/notices.js writes a notice template', () => {
  const lib = path.join(import.meta.dirname, '..', 'lib')
  const files = fs.readdirSync(lib, { recursive: true }).filter((f) => f.endsWith('.js'))
  for (const file of files) {
    if (file === path.join('common', 'notices.js')) continue
    const source = fs.readFileSync(path.join(lib, file), 'utf8')
    assert.doesNotMatch(source, /['"`][^'"`\n]*\{omitted\}|['"`][^'"`\n]*\(not saved\)/, file)
  }
})

test('{spillPath} and {stream} are filled in with braces escaped; {{ and }} stay escapes', () => {
  assert.equal(notices.templateWithPath('{{spillPath}} {spillPath} {omitted}', '/a{b}'), '{{spillPath}} /a{{b}} {omitted}')
  assert.equal(notices.templateFor(notices.STREAM_NOTICE, 'stderr'), '[... {omitted} truncated from stderr ...]')
  assert.equal(notices.unsavedNotice('saved to {spillPath}'), 'saved to (not saved)')
})

test('every notice template of the library, as a clamp writes it, is read back by the next clamp', () => {
  const text = numbered(1000)
  for (const template of [
    notices.SPILL_NOTICE,
    notices.STREAM_NOTICE,
    notices.STREAM_SPILL_NOTICE,
    notices.INTERRUPTED_NOTICE,
    notices.INTERRUPTED_MIDDLE_NOTICE,
    notices.CONTEXT_CUT_NOTICE,
  ]) {
    const filled = notices.templateWithPath(notices.templateFor(template, 'stdout'), '/s/x.txt')
    const once = truncateText(text, { maxLines: 100, strategy: 'head', notice: filled }).text
    const twice = truncateText(once, { maxLines: 20, strategy: 'head' }).text
    const lines = twice.split('\n')
    const kept = lines.length - 1
    const named = template.includes('{spillPath}') ? '; full output saved to /s/x.txt' : ''
    assert.equal(lines.at(-1), `[... ${1000 - kept} lines truncated at the end${named} ...]`, template)
  }
})

test('a truncateToolOutput view clamped again: one notice, counting the lines of the original', () => {
  const strategies = fc.constantFrom('head', 'tail', 'headTail')
  fc.assert(
    fc.property(
      fc.integer({ min: 20, max: 400 }),
      fc.integer({ min: 4, max: 120 }),
      fc.integer({ min: 2, max: 100 }),
      strategies,
      (n, toolLines, lines, strategy) => {
        const output = numbered(n)
        const view = truncateToolOutput('t', output, { maxChars: 1e6, maxLines: toolLines }).text
        const again = truncateText(view, { maxLines: lines, strategy, snap: 'line' }).text
        const notice = again.split('\n').filter((line) => line.startsWith('[... '))
        if (again === view) return
        assert.equal(notice.length, 1, again)
        const shown = again.split('\n').filter((line) => line.startsWith('line ')).length
        const counted = /^\[\.\.\. ([\d,]+) lines? truncated/.exec(notice[0])
        assert.ok(counted, notice[0])
        assert.equal(Number(counted[1].replaceAll(',', '')) + shown, n, again)
        // An indicator kept counts the lines it stands above.
        const first = /^\[First (\d+) lines of /.exec(again)
        if (first)
          assert.equal(
            again
              .split('\n')
              .slice(1, 1 + Number(first[1]))
              .filter((l) => l.startsWith('line ')).length,
            Number(first[1]),
          )
      },
    ),
    { numRuns: Math.max(50, RUNS / 10) },
  )
})
