// lib/files/publish.js, the one way files are published (spill files, a capture's spill, a
// session repair's new file and backup): private temporary file, exclusive create, fsync,
// a link that never replaces a file (a copy where there are no links), the directory
// fsynced; the temporary file removed on every failure. Steps are failed through the fs
// module object, as the library calls them.
import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'

import { truncateText, createOutputCapture } from '../index.mjs'

const require = createRequire(import.meta.url)
const { TempFile, writeNewFile, linkNew } = require('../lib/files/publish.js')

function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-publish-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Runs `body` with fs[name] replaced by `fake` (given the real one). */
function withFs(name, fake, body) {
  const real = fs[name]
  fs[name] = function (...args) {
    return fake.call(this, real, ...args)
  }
  try {
    return body()
  } finally {
    fs[name] = real
  }
}

const failing = (code) => () => {
  throw Object.assign(new Error(`${code}: injected`), { code })
}

describe('writeNewFile', () => {
  test('publishes the file whole and private, fsynced before it gets its name', (t) => {
    const dir = tempDir(t)
    const file = path.join(dir, 'out.txt')
    const calls = []
    const log =
      (name) =>
      (real, ...args) => {
        calls.push([name, ...args.filter((a) => typeof a === 'string').map((a) => path.basename(a))])
        return real(...args)
      }
    withFs('fsyncSync', log('fsyncSync'), () => withFs('linkSync', log('linkSync'), () => writeNewFile(file, 'héllo')))
    assert.equal(fs.readFileSync(file, 'utf8'), 'héllo')
    if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600)
    assert.deepEqual(fs.readdirSync(dir), ['out.txt'])
    assert.equal(calls[0][0], 'fsyncSync', 'the file is synced first')
    assert.equal(calls[1][0], 'linkSync')
    assert.match(calls[1][1], /^\.out\.txt\.[0-9a-f]{8}\.tmp$/)
    assert.equal(calls[2][0], 'fsyncSync', 'then its directory')
  })

  test('a long string is written a piece at a time, each byte as Buffer.from(text) has it, pairs never split', (t) => {
    const dir = tempDir(t)
    const piece = 1 << 20
    const texts = [
      '',
      '\ud800',
      `${'x'.repeat(piece - 1)}😀y`,
      `${'x'.repeat(piece - 1)}\ud800z`,
      `${'x'.repeat(piece - 1)}\udc00`,
      `${'日'.repeat(2 * piece + 3)}\ud83d`,
      'é'.repeat(piece + 5),
    ]
    const sizes = []
    withFs(
      'writeSync',
      (real, fd, bytes, ...rest) => {
        sizes.push(bytes.length)
        return real(fd, bytes, ...rest)
      },
      () => {
        for (const [k, text] of texts.entries()) {
          const file = path.join(dir, `f${k}`)
          writeNewFile(file, text)
          assert.ok(fs.readFileSync(file).equals(Buffer.from(text)), `text ${k} written as its UTF-8`)
        }
      },
    )
    // No write was given more than a piece's UTF-8 (3 bytes a char at most).
    assert.ok(Math.max(...sizes) <= 3 * piece, `largest write ${Math.max(...sizes)}`)
  })

  test('never replaces a file: EEXIST, the file untouched, no temporary file left', (t) => {
    const dir = tempDir(t)
    const file = path.join(dir, 'out.txt')
    fs.writeFileSync(file, 'theirs')
    assert.throws(() => writeNewFile(file, 'ours'), { code: 'EEXIST' })
    assert.equal(fs.readFileSync(file, 'utf8'), 'theirs')
    assert.deepEqual(fs.readdirSync(dir), ['out.txt'])
  })

  test('a failure at any step leaves nothing behind', (t) => {
    const dir = tempDir(t)
    for (const step of ['writeSync', 'fsyncSync', 'closeSync', 'linkSync', 'chmodSync']) {
      const file = path.join(dir, `${step}.txt`)
      // chmodSync is only reached on the copy a file system without links gets.
      const noLinks = step === 'chmodSync'
      const run = () => withFs(step, failing('EIO'), () => writeNewFile(file, 'text'))
      if (noLinks) withFs('linkSync', failing('ENOTSUP'), () => assert.throws(run, { code: 'EIO' }, step))
      else assert.throws(run, { code: 'EIO' }, step)
      assert.deepEqual(fs.readdirSync(dir), [], step)
    }
  })

  test('every "no hard links" code falls back to an exclusive, private copy', (t) => {
    const dir = tempDir(t)
    for (const code of ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']) {
      const file = path.join(dir, `${code}.txt`)
      withFs('linkSync', failing(code), () => writeNewFile(file, code))
      assert.equal(fs.readFileSync(file, 'utf8'), code)
      if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600)
      // Still never a replacement.
      withFs('linkSync', failing(code), () => assert.throws(() => writeNewFile(file, 'again'), { code: 'EEXIST' }))
    }
    assert.equal(fs.readdirSync(dir).length, 6)
  })
})

describe('TempFile', () => {
  test('replace() renames over the file; published once renamed', (t) => {
    const dir = tempDir(t)
    const file = path.join(dir, 'session.jsonl')
    fs.writeFileSync(file, 'old')
    const temp = new TempFile(file, path.join(dir, '.session.jsonl.work.tmp'))
    temp.write('new')
    assert.equal(temp.published, false)
    temp.replace()
    assert.equal(temp.published, true)
    assert.equal(fs.readFileSync(file, 'utf8'), 'new')
    assert.deepEqual(fs.readdirSync(dir), ['session.jsonl'])
  })

  test('linkNew reports a link, or a copy where there are no links', (t) => {
    const dir = tempDir(t)
    const from = path.join(dir, 'a')
    fs.writeFileSync(from, 'a')
    assert.equal(linkNew(from, path.join(dir, 'b')), true)
    assert.equal(
      withFs('linkSync', failing('EMLINK'), () => linkNew(from, path.join(dir, 'c'))),
      false,
    )
    assert.equal(fs.readFileSync(path.join(dir, 'c'), 'utf8'), 'a')
  })
})

describe('the spills publish through it', () => {
  // Once, a spill file failed where hard links ran out (EMLINK), which the session repair's
  // list had and the spill's did not.
  test('truncateText: a file system out of links still gets its spill file', (t) => {
    const dir = tempDir(t)
    const text = 'line\n'.repeat(100)
    const r = withFs('linkSync', failing('EMLINK'), () => truncateText(text, { maxLines: 5, spill: { dir } }))
    assert.ok(r.spill.path, `spill: ${r.spill.error?.message}`)
    assert.equal(fs.readFileSync(r.spill.path, 'utf8'), text)
    assert.deepEqual(fs.readdirSync(dir), [path.basename(r.spill.path)])
  })

  test("a capture's spill: a file system out of links still gets its file; a failed publish leaves nothing", (t) => {
    for (const code of ['EMLINK', 'EIO']) {
      const dir = tempDir(t)
      const capture = createOutputCapture({ maxLines: 5, spill: { dir } })
      capture.write('line\n'.repeat(100))
      const r = withFs('linkSync', failing(code), () => capture.end())
      if (code === 'EMLINK') {
        assert.equal(fs.readFileSync(r.spill.path, 'utf8'), 'line\n'.repeat(100))
        assert.deepEqual(fs.readdirSync(dir), [path.basename(r.spill.path)])
      } else {
        assert.equal(r.spill.path, null)
        assert.equal(r.spill.error.code, 'EIO')
        assert.doesNotMatch(r.text, /saved to/)
        assert.deepEqual(fs.readdirSync(dir), [])
      }
    }
  })
})
