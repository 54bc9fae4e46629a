// Spill files: written only when something is cut, private, new, inside their directory
// whatever the tool name holds; named in the notice with lines readPartial can read on
// from; failures reported without losing the clamp; pruneSpillDir removes only its own.
import { test, describe, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'

import {
  truncateText,
  hardTruncateToolPayload,
  wrapToolWithHardOutputTruncate,
  formatExecOutput,
  readPartial,
  pruneSpillDir,
} from '../index.mjs'
import { truncateToolOutput } from '../presets.mjs'
import { collectWarnings } from './helpers.mjs'

const require = createRequire(import.meta.url)
const spill = require('../lib/files/spill.js')

let root
before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-spill-'))
})
after(() => fs.rmSync(root, { recursive: true, force: true }))

let dirs = 0
const freshDir = () => path.join(root, `d${++dirs}`)
const numbered = (n) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('')
const mode = (p) => fs.statSync(p).mode & 0o777
const SPILL_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}-\d{8}T\d{6}Z-[0-9a-f]{16}\.toolclamp-spill\.txt$/

describe('truncateText with spill', () => {
  test('writes the full text, private, and the notice names it with the dropped lines', () => {
    const dir = freshDir()
    const text = numbered(500)
    const r = truncateText(text, { maxLines: 100, spill: { dir, name: 'read_file' } })
    assert.equal(r.truncated, true)
    const file = r.spill.path
    assert.equal(path.dirname(file), dir)
    assert.match(path.basename(file), SPILL_NAME)
    assert.ok(path.basename(file).startsWith('read_file-'))
    assert.equal(fs.readFileSync(file, 'utf8'), text)
    assert.equal(mode(dir), 0o700)
    assert.equal(mode(file), 0o600)
    const notice = r.text.split('\n').at(-1) === '' ? r.text.split('\n').at(-2) : r.text.split('\n').at(-1)
    assert.equal(notice, `[... 401 lines truncated at the end; full output saved to ${file} (dropped: lines 100–500) ...]`)
    assert.ok(r.outputLines <= 100)
    assert.deepEqual(fs.readdirSync(dir), [path.basename(file)], 'no temporary file left')
  })

  test("the notice's line is where readPartial reads the dropped text from", () => {
    const dir = freshDir()
    const text = numbered(300)
    for (const strategy of ['head', 'tail', 'headTail']) {
      const r = truncateText(text, { maxBytes: 1000, strategy, spill: { dir } })
      const [, from, to] = r.text.match(/dropped: lines (\d+)–(\d+)/)
      const saved = fs.readFileSync(r.spill.path, 'utf8')
      // One line more for the banner.
      const view = readPartial(saved, { offset: Number(from), maxLines: Number(to) - Number(from) + 2, maxBytes: Infinity })
      // The dropped text lies within the lines named, which start at a line boundary.
      const dropped = text.slice(r.headEnd, r.tailStart)
      assert.ok(view.page.includes(dropped), strategy)
      assert.equal(view.firstLine, Number(from))
      assert.equal(view.lastLine, Number(to))
    }
  })

  test('nothing is written when nothing is cut', () => {
    const dir = freshDir()
    const r = truncateText('short', { maxChars: 100, spill: { dir } })
    assert.equal(r.truncated, false)
    assert.equal(r.spill, undefined)
    assert.equal(fs.existsSync(dir), false)
  })

  test('a custom template gets {spillPath}; a function gets facts.spillPath', () => {
    const dir = freshDir()
    const r = truncateText(numbered(50), { maxLines: 5, spill: { dir }, notice: 'see {spillPath} from {fromLine}' })
    assert.ok(r.text.endsWith(`see ${r.spill.path} from 5`))
    const seen = []
    const r2 = truncateText(numbered(50), {
      maxLines: 5,
      spill: { dir },
      notice: (facts) => {
        seen.push(facts.spillPath)
        return `@${facts.fromLine}`
      },
    })
    assert.ok(seen.includes(r2.spill.path))
  })

  test('a file path with braces stays literal in a template', () => {
    const dir = path.join(freshDir(), '{omitted}')
    const r = truncateText(numbered(50), { maxLines: 5, spill: { dir } })
    assert.ok(r.text.includes(`${dir}${path.sep}`), r.text)
  })

  test('a write failure keeps the clamp and reports the error; the notice names no file', () => {
    const blocker = path.join(freshDir(), 'file')
    fs.mkdirSync(path.dirname(blocker), { recursive: true })
    fs.writeFileSync(blocker, 'not a directory')
    const text = numbered(100)
    const r = truncateText(text, { maxLines: 10, spill: { dir: path.join(blocker, 'sub') } })
    assert.equal(r.truncated, true)
    assert.equal(r.spill.path, null)
    assert.ok(r.spill.error instanceof Error)
    assert.match(r.spill.error.code, /ENOTDIR|EEXIST/)
    assert.equal(r.text, truncateText(text, { maxLines: 10 }).text, 'the default notice, as without spill')
  })

  test('invalid spill options throw', () => {
    const cases = [
      [{ spill: 'dir' }, TypeError, 'spill must be an object with a dir, got "dir"'],
      [{ spill: {} }, TypeError, 'spill.dir must be a non-empty string, got undefined'],
      [{ spill: { dir: '' } }, TypeError, 'spill.dir must be a non-empty string, got ""'],
      [{ spill: { dir: 'a\0b' } }, TypeError, 'spill.dir must not contain a NUL character'],
      [{ spill: { dir: 'x', name: 5 } }, TypeError, 'spill.name must be a string, got 5'],
      [{ spill: { dir: 'x', onSpill() {} } }, TypeError, 'unknown option "onSpill"; expected one of dir, name'],
      [{ spill: { dir: 'x', Dir: 'y' } }, TypeError, 'unknown option "Dir"; did you mean "dir"?'],
    ]
    for (const [options, type, message] of cases) {
      assert.throws(
        () => truncateText('x', { maxChars: 5, ...options }),
        (e) => e instanceof type && e.message === message,
        message,
      )
    }
  })
})

describe('spill file names', () => {
  const hostile = [
    '../../etc/passwd',
    '/etc/passwd',
    '..',
    '.',
    '',
    'a\0b',
    'x'.repeat(300),
    '🔥💥',
    'C:\\Windows\\system32',
    'con',
    '-rf',
    '.hidden',
    'name with spaces/and\\slashes',
    '\u202Eevil',
    '%2e%2e%2f',
  ]
  test('whatever the tool name holds, the file lands directly inside dir', () => {
    const dir = freshDir()
    for (const name of hostile) {
      const r = truncateText(numbered(20), { maxLines: 2, spill: { dir, name } })
      assert.equal(path.dirname(r.spill.path), dir, JSON.stringify(name))
      assert.match(path.basename(r.spill.path), SPILL_NAME, JSON.stringify(name))
      assert.ok(fs.statSync(r.spill.path).isFile())
    }
    assert.equal(fs.readdirSync(dir).length, hostile.length, 'one new file each, none overwritten')
  })

  test('sanitizeName', () => {
    assert.equal(spill.sanitizeName('read_file'), 'read_file')
    assert.equal(spill.sanitizeName('../../etc/passwd'), '_.._etc_passwd')
    assert.equal(spill.sanitizeName('..'), 'output')
    assert.equal(spill.sanitizeName('🔥'), 'output')
    assert.equal(spill.sanitizeName('x'.repeat(300)).length, 64)
  })

  test('an existing file is never overwritten', () => {
    const dir = freshDir()
    fs.mkdirSync(dir)
    const existing = path.join(dir, 'taken.txt')
    fs.writeFileSync(existing, 'keep me')
    const report = spill.writeSpill(existing, 'new content')
    assert.equal(report.path, null)
    assert.equal(report.error.code, 'EEXIST')
    assert.equal(fs.readFileSync(existing, 'utf8'), 'keep me')
    assert.deepEqual(fs.readdirSync(dir), ['taken.txt'], 'the temporary file is removed')
  })
})

describe('spill in the other pipelines', () => {
  test('hardTruncateToolPayload: the text of all blocks, onSpill told', () => {
    const dir = freshDir()
    const reports = []
    const result = {
      content: [
        { type: 'text', text: numbered(3000) },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'text', text: 'tail\n' },
      ],
    }
    const out = hardTruncateToolPayload(result, { spill: { dir, name: 'bash', onSpill: (r) => reports.push(r) } })
    assert.equal(reports.length, 1)
    assert.equal(fs.readFileSync(reports[0].path, 'utf8'), numbered(3000) + 'tail\n')
    assert.ok(out.content[0].text.includes(reports[0].path))
    assert.equal(out.content[1], result.content[1])
    // Within limits: no file, no report.
    hardTruncateToolPayload({ content: [{ type: 'text', text: 'ok' }] }, { spill: { dir, onSpill: (r) => reports.push(r) } })
    assert.equal(reports.length, 1)
  })

  test('a throwing onSpill does not break the clamp', async () => {
    const dir = freshDir()
    let out
    const warnings = await collectWarnings(() => {
      out = hardTruncateToolPayload(numbered(3000), {
        spill: {
          dir,
          onSpill: () => {
            throw new Error('boom')
          },
        },
      })
    })
    assert.ok(out.length < numbered(3000).length)
    assert.ok(warnings.some((w) => w.message.includes('boom')))
  })

  test('the tool wrapper spills final results under the tool name, never onUpdate partials', async () => {
    const dir = freshDir()
    const tool = {
      name: 'run/../../tests',
      async execute(id, params, signal, onUpdate) {
        onUpdate?.({ content: [{ type: 'text', text: numbered(2500) }] })
        return { content: [{ type: 'text', text: numbered(3000) }] }
      },
    }
    const wrapped = wrapToolWithHardOutputTruncate(tool, { spill: { dir } })
    const updates = []
    await wrapped.execute('1', {}, undefined, (u) => updates.push(u))
    const files = fs.readdirSync(dir)
    assert.equal(files.length, 1)
    assert.ok(files[0].startsWith('run_.._.._tests-'))
    assert.ok(!updates[0].content[0].text.includes('saved to'))
  })

  test('formatExecOutput: one file per stream that is cut, Buffers saved as their bytes', () => {
    const dir = freshDir()
    const stdout = Buffer.concat([Buffer.from(numbered(2000)), Buffer.from([0xff, 0xfe, 0x0a])])
    const r = formatExecOutput({ stdout, stderr: 'warning\n', exitCode: 1 }, { spill: { dir, name: 'npm test' } })
    assert.equal(r.stderr.spill, undefined)
    assert.ok(path.basename(r.stdout.spill.path).startsWith('npm_test-stdout-'))
    assert.deepEqual(fs.readFileSync(r.stdout.spill.path), stdout)
    assert.match(r.text, /\[\.\.\. [\d,]+ chars truncated from stdout; full stdout saved to .* \(dropped: lines 1–\d+\) \.\.\.\]/)
    assert.deepEqual(fs.readdirSync(dir).length, 1)
    // A string stream too.
    const s = formatExecOutput({ stdout: '', stderr: numbered(5000) }, { spill: { dir } })
    assert.equal(fs.readFileSync(s.stderr.spill.path, 'utf8'), numbered(5000))
    assert.ok(path.basename(s.stderr.spill.path).startsWith('exec-stderr-'))
  })

  test('truncateToolOutput: named after the tool; the marker names the file', () => {
    const dir = freshDir()
    const output = numbered(1000)
    const reports = []
    const r = truncateToolOutput('search_files', output, { spill: { dir, onSpill: (report) => reports.push(report) } })
    assert.deepEqual(reports, [r.spill])
    assert.ok(path.basename(r.spill.path).startsWith('search_files-'))
    assert.equal(fs.readFileSync(r.spill.path, 'utf8'), output)
    assert.match(
      r.text,
      new RegExp(
        `\\n\\[\\.\\.\\. [\\d,]+ lines truncated at the middle; full output saved to ${r.spill.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(dropped: lines \\d+–\\d+\\) \\.\\.\\.\\]\\n`,
      ),
    )
    assert.ok(r.text.split('\n').length - 1 <= 300)
  })
})

describe('pruneSpillDir', () => {
  test('removes old spill files and nothing else', () => {
    const dir = freshDir()
    const young = truncateText(numbered(50), { maxLines: 5, spill: { dir, name: 'young' } }).spill.path
    const old = truncateText(numbered(50), { maxLines: 5, spill: { dir, name: 'old' } }).spill.path
    const oldTemp = path.join(dir, `.${path.basename(old).replace('old', 'tmp')}.0123abcd.tmp`)
    fs.writeFileSync(oldTemp, 'partial')
    const other = path.join(dir, 'notes.txt')
    fs.writeFileSync(other, 'mine')
    const lookalikeDir = path.join(dir, path.basename(old).replace('old', 'dir'))
    fs.mkdirSync(lookalikeDir)
    const target = path.join(root, 'outside.txt')
    fs.writeFileSync(target, 'outside')
    const link = path.join(dir, path.basename(old).replace('old', 'link'))
    fs.symlinkSync(target, link)
    const past = new Date(Date.now() - 3_600_000)
    for (const p of [old, oldTemp, other, lookalikeDir, target]) fs.utimesSync(p, past, past)
    fs.lutimesSync(link, past, past)

    const removed = pruneSpillDir(dir, { maxAgeMs: 60_000 })
    assert.deepEqual(removed.sort(), [old, oldTemp].sort())
    for (const p of [young, other, lookalikeDir, link, target]) assert.ok(fs.existsSync(p) || fs.lstatSync(p), p)
    assert.equal(fs.readFileSync(target, 'utf8'), 'outside')
    assert.deepEqual(pruneSpillDir(dir, { maxAgeMs: 60_000 }), [])
  })

  test('a missing directory removes nothing; bad arguments throw', () => {
    assert.deepEqual(pruneSpillDir(path.join(root, 'missing'), { maxAgeMs: 0 }), [])
    assert.throws(() => pruneSpillDir('', { maxAgeMs: 1 }), { name: 'TypeError', message: 'dir must be a non-empty string, got ""' })
    assert.throws(() => pruneSpillDir(root), { name: 'TypeError', message: 'options must be an object with maxAgeMs, got undefined' })
    assert.throws(() => pruneSpillDir(root, { maxAge: 1 }), {
      name: 'TypeError',
      message: 'unknown option "maxAge"; did you mean "maxAgeMs"?',
    })
    assert.throws(() => pruneSpillDir(root, { olderThan: 1 }), {
      name: 'TypeError',
      message: 'unknown option "olderThan"; expected one of maxAgeMs',
    })
    assert.throws(() => pruneSpillDir(root, { maxAgeMs: '1' }), { name: 'TypeError' })
    assert.throws(() => pruneSpillDir(root, { maxAgeMs: -1 }), {
      name: 'RangeError',
      message: 'maxAgeMs must be a non-negative number of milliseconds, got -1',
    })
  })
})
