// Every ```js, ```mjs, ```cjs and ```ts block of README.md runs as printed, from the package
// root ('toolclamp' resolves to this package by its own name), and prints exactly what its
// `console.log(...) // expected` comments say, in order (a parenthesised remark after the
// expected text is not part of it). Nothing else is printed, nothing goes to stderr, and no
// file is left in the package root. ```ts blocks are type-checked under `strict` first, and
// their compiled JS is what runs; ```js blocks are checked for names they never declare.
// Blocks in other languages (text, sh, json) are not run.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')

const RUN = { js: 'module', mjs: 'module', cjs: 'commonjs', ts: 'module' }
/** Tags that would look like code to a reader but escape this test: use js or ts. */
const REFUSED = new Set(['', 'javascript', 'jsx', 'node', 'typescript', 'tsx', 'mts', 'cts'])
const EXPECTED = /^[ \t]*console\.log\(.*\) \/\/ (.*?)(?: \(.*\))?$/gm

/** Every fenced block of the README: its language, code, first line and the heading above it. */
function fencedBlocks(markdown) {
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
      assert.equal(fence[1].trim(), '', `README.md:${i + 1}: a fence opens inside the block of line ${open.line}`)
      blocks.push({ lang: open.lang, line: open.line, heading: open.heading, code: open.lines.join('\n') + '\n' })
      open = null
    } else {
      open = { lang: fence[1].trim().split(/\s+/)[0], line: i + 1, heading, lines: [] }
    }
  }
  assert.equal(open, null, `README.md:${open?.line}: a block is never closed`)
  return blocks
}

const blocks = fencedBlocks(README)
const runnable = blocks.filter((b) => b.lang in RUN)
const name = (b) => `README.md:${b.line} (${b.lang}, ${b.heading.replace(/^#+ /, '')})`

test('README: every fenced block is tagged, and code is tagged js, mjs, cjs or ts', () => {
  const refused = blocks.filter((b) => REFUSED.has(b.lang)).map((b) => `${b.line}: "${b.lang}"`)
  assert.deepEqual(refused, [], 'tag code js/ts (it is then run), or text/sh if it is not meant to run')
  assert.ok(runnable.length >= 30, `${runnable.length} runnable blocks`)
  assert.ok(runnable.some((b) => b.lang === 'ts'), 'at least one ts block, so the type check is exercised')
})

// One tsc run for all blocks: ts blocks are type-checked under strict and compiled to the JS
// that runs; js blocks go through the same compiler, where only "Cannot find name" counts.
const work = {}
const UNDECLARED = new Set(['TS2304', 'TS2552', 'TS2580', 'TS2582', 'TS2583', 'TS2584', 'TS18004'])

before(() => {
  work.dir = mkdtempSync(join(ROOT, '__test__', '.readme-blocks-'))
  work.files = new Map()
  for (const b of runnable) {
    const ext = { js: 'mjs', mjs: 'mjs', cjs: 'cjs', ts: 'mts' }[b.lang]
    const file = `block-${b.line}.${ext}`
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
  for (const m of tsc.stdout.matchAll(/^(block-\d+\.\w+)\(\d+,\d+\): error (TS\d+): .*(?:\n[ \t]+.*)*/gm)) {
    const list = work.diagnostics.get(m[1]) ?? []
    list.push({ code: m[2], text: m[0] })
    work.diagnostics.set(m[1], list)
  }
  // Anything else tsc says (a bad tsconfig, a crash) is not about a block: fail on it.
  work.unattributed = (tsc.stdout + tsc.stderr)
    .replace(/^block-\d+\.\w+\(\d+,\d+\): error .*(?:\n[ \t]+.*)*/gm, '')
    .trim()
})

test('README: tsc ran on the blocks and complained about nothing else', () => {
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
      assert.deepEqual(diagnostics.map((d) => d.text), [], 'type-checks under strict')
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
    assert.deepEqual(readdirSync(ROOT).filter((f) => !rootBefore.includes(f)), [], 'leaves no file in the package root')
  })
}
