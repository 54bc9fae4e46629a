// Every ```js, ```mjs, ```cjs and ```ts block of README.md and of every docs/*.md page runs as
// printed (each test is named page:line), from the package
// root ('toolclamp' resolves to this package by its own name), and prints exactly what its
// `console.log(...) // expected` comments say, in order (a parenthesised remark after the
// expected text is not part of it). Nothing else is printed, nothing goes to stderr, and no
// file is left in the package root. ```ts blocks are type-checked under `strict` first, and
// their compiled JS is what runs; ```js blocks are checked for names they never declare.
// Blocks in other languages (text, sh, json) are not run. Every relative link of the pages
// leads to a file that exists, and every #anchor to a heading of its page.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { docPages, readPage } from './helpers.mjs'

const require = createRequire(import.meta.url)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PAGES = docPages()

const RUN = { js: 'module', mjs: 'module', cjs: 'commonjs', ts: 'module' }
/** Tags that would look like code to a reader but escape this test: use js or ts. */
const REFUSED = new Set(['', 'javascript', 'jsx', 'node', 'typescript', 'tsx', 'mts', 'cts'])
const EXPECTED = /^[ \t]*console\.log\(.*\) \/\/ (.*?)(?: \(.*\))?$/gm

/** Every fenced block of a page: its language, code, first line and the heading above it. */
function fencedBlocks(page, markdown) {
  const blocks = []
  let open = null
  let heading = '(top)'
  for (const [i, line] of markdown.split('\n').entries()) {
    if (open === null && /^#{1,6} /.test(line)) heading = line
    const fence = /^```(.*)$/.exec(line)
    if (!fence) {
      if (open) open.lines.push(line)
      continue
    }
    if (open) {
      assert.equal(fence[1].trim(), '', `${page}:${i + 1}: a fence opens inside the block of line ${open.line}`)
      blocks.push({ page, lang: open.lang, line: open.line, heading: open.heading, code: open.lines.join('\n') + '\n' })
      open = null
    } else {
      open = { lang: fence[1].trim().split(/\s+/)[0], line: i + 1, heading, lines: [] }
    }
  }
  assert.equal(open, null, `${page}:${open?.line}: a block is never closed`)
  return blocks
}

const blocks = PAGES.flatMap((page) => fencedBlocks(page, readPage(page)))
const runnable = blocks.filter((b) => b.lang in RUN)
const name = (b) => `${b.page}:${b.line} (${b.lang}, ${b.heading.replace(/^#+ /, '')})`
/** The block's file in the work directory: its page and line, e.g. block-docs-json.md-12.mts. */
const fileOf = (b) => `block-${b.page.replace(/[^\w.]/g, '-')}-${b.line}.${{ js: 'mjs', mjs: 'mjs', cjs: 'cjs', ts: 'mts' }[b.lang]}`

test('README and docs: every fenced block is tagged, and code is tagged js, mjs, cjs or ts', () => {
  const refused = blocks.filter((b) => REFUSED.has(b.lang)).map((b) => `${b.page}:${b.line}: "${b.lang}"`)
  assert.deepEqual(refused, [], 'tag code js/ts (it is then run), or text/sh if it is not meant to run')
  assert.ok(runnable.length >= 30, `${runnable.length} runnable blocks`)
  assert.ok(
    runnable.some((b) => b.lang === 'ts'),
    'at least one ts block, so the type check is exercised',
  )
})

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading) =>
  heading
    .replace(/^#+ /, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-')

/** The anchors of a page's headings (outside code blocks), numbered as GitHub numbers repeats. */
function anchorsOf(markdown) {
  const anchors = new Set()
  let inCode = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode
    if (inCode || !/^#{1,6} /.test(line)) continue
    const base = slug(line)
    let anchor = base
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`
    anchors.add(anchor)
  }
  return anchors
}

test('README and docs: every relative link leads to a file, and every #anchor to a heading', () => {
  const broken = []
  for (const page of PAGES) {
    const prose = readPage(page).replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '')
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue
      const [path, anchor] = target.split('#')
      const file = path === '' ? page : join(dirname(page), path)
      if (!existsSync(join(ROOT, file))) broken.push(`${page}: ${target} (no such file)`)
      else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readPage(file)).has(anchor)) {
        broken.push(`${page}: ${target} (no such heading in ${file})`)
      }
    }
  }
  assert.deepEqual(broken, [])
})

// One tsc run for all blocks: ts blocks are type-checked under strict and compiled to the JS
// that runs; js blocks go through the same compiler, where only "Cannot find name" counts.
const work = {}
const UNDECLARED = new Set(['TS2304', 'TS2552', 'TS2580', 'TS2582', 'TS2583', 'TS2584', 'TS18004'])

before(() => {
  work.dir = mkdtempSync(join(ROOT, '__test__', '.readme-blocks-'))
  work.files = new Map()
  for (const b of runnable) {
    const file = fileOf(b)
    writeFileSync(join(work.dir, file), b.code)
    work.files.set(b, file)
  }
  writeFileSync(
    join(work.dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        moduleDetection: 'force',
        target: 'es2022',
        types: ['node'],
        allowJs: true,
        checkJs: true,
        skipLibCheck: true,
        outDir: 'out',
        rootDir: '.',
      },
      include: ['block-*'],
    }),
  )
  mkdirSync(join(work.dir, 'out'))
  const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], {
    cwd: work.dir,
    encoding: 'utf8',
  })
  // path(line,col): error TSnnnn: message, and indented continuation lines.
  work.diagnostics = new Map()
  for (const m of tsc.stdout.matchAll(/^(block-[\w.-]+?\.[cm][tj]s)\(\d+,\d+\): error (TS\d+): .*(?:\n[ \t]+.*)*/gm)) {
    const list = work.diagnostics.get(m[1]) ?? []
    list.push({ code: m[2], text: m[0] })
    work.diagnostics.set(m[1], list)
  }
  // Anything else tsc says (a bad tsconfig, a crash) is not about a block: fail on it.
  work.unattributed = (tsc.stdout + tsc.stderr).replace(/^block-[\w.-]+?\.[cm][tj]s\(\d+,\d+\): error .*(?:\n[ \t]+.*)*/gm, '').trim()
})

test('README and docs: tsc ran on the blocks and complained about nothing else', () => {
  assert.equal(work.unattributed, '')
})

after(() => {
  if (work.dir) rmSync(work.dir, { recursive: true, force: true })
})

/** What the block itself prints, line by line, as its comments state it. */
const expectedLines = (code) => [...code.matchAll(EXPECTED)].map((m) => m[1])

for (const b of runnable) {
  test(name(b), { timeout: 120_000 }, () => {
    const file = work.files.get(b)
    const diagnostics = work.diagnostics.get(file) ?? []
    let code = b.code
    if (b.lang === 'ts') {
      assert.deepEqual(
        diagnostics.map((d) => d.text),
        [],
        'type-checks under strict',
      )
      code = readFileSync(join(work.dir, 'out', file.replace(/\.mts$/, '.mjs')), 'utf8')
    } else {
      const undeclared = diagnostics.filter((d) => UNDECLARED.has(d.code)).map((d) => d.text)
      assert.deepEqual(undeclared, [], 'every name the block uses is declared or imported in it')
    }

    const expected = expectedLines(b.code)
    assert.ok(expected.length > 0, 'the block says what it prints: console.log(...) // expected')

    const rootBefore = readdirSync(ROOT)
    const { status, signal, stdout, stderr } = spawnSync(process.execPath, [`--input-type=${RUN[b.lang]}`, '-e', code], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    })
    assert.equal(status, 0, `exit ${status ?? signal}:\n${stderr}`)
    assert.equal(stderr, '', 'nothing on stderr')
    const printed = stdout.split('\n')
    if (printed.at(-1) === '') printed.pop()
    assert.deepEqual(printed, expected, 'prints exactly what its comments say')
    assert.deepEqual(
      readdirSync(ROOT).filter((f) => !rootBefore.includes(f)),
      [],
      'leaves no file in the package root',
    )
  })
}
