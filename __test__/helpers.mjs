// Helpers shared by the tests: running the examples of README.md and docs/ as printed, freezing inputs, watching processes.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs, { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The pages whose examples run as printed: README.md, then every docs/*.md, by name. */
export function docPages() {
  const docs = join(ROOT, 'docs')
  const pages = existsSync(docs)
    ? readdirSync(docs)
        .filter((f) => f.endsWith('.md'))
        .sort()
    : []
  return ['README.md', ...pages.map((f) => `docs/${f}`)]
}

/** The text of a page (a path from the package root, as docPages() names it). */
export const readPage = (page) => readFileSync(join(ROOT, page), 'utf8')

/** The ```js blocks under `heading` in `page`, up to the next heading of its level or above. */
export function readmeBlocks(heading, page = 'README.md') {
  const markdown = readPage(page)
  const start = markdown.indexOf(`\n${heading}\n`)
  assert.notEqual(start, -1, `${page}: ${heading}`)
  const level = heading.match(/^#+/)[0].length
  const next = new RegExp(`\\n#{1,${level}} `)
  const body = markdown.slice(start + heading.length + 2)
  const end = body.search(next)
  const section = end === -1 ? body : body.slice(0, end)
  return [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1])
}

/**
 * Runs a block as an ES module from the package root ('toolclamp' resolves to this package by
 * its own name) and checks that the lines it printed are, in order, what the comments of its
 * `console.log(...) // expected` lines say (up to any parenthesised remark). Returns the
 * lines printed.
 */
export function runAsPrinted(code) {
  const { status, stdout, stderr } = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', cwd: ROOT })
  assert.equal(status, 0, stderr)
  const expected = [...code.matchAll(/^console\.log\(.*\) \/\/ (.*?)(?: \(.*\))?$/gm)].map((m) => m[1])
  assert.ok(expected.length > 0, 'the example says what it prints')
  const printed = stdout.split('\n').filter((line) => line !== '')
  assert.deepEqual(printed.slice(-expected.length), expected)
  return printed
}

/** Freezes a value and everything it holds, without calling getters. */
export function deepFreeze(value) {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  Object.freeze(value)
  for (const descriptor of Object.values(Object.getOwnPropertyDescriptors(value))) {
    if ('value' in descriptor) deepFreeze(descriptor.value)
  }
  return value
}

/** Whether a process is alive: a zombie nobody has reaped yet counts as dead. */
export function isAlive(pid) {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return error.code === 'EPERM'
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return process.platform !== 'linux'
  }
}

/** Waits up to `ms` for a process to be dead; whether it is. */
export async function waitUntilDead(pid, ms = 5000) {
  const deadline = Date.now() + ms
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  return !isAlive(pid)
}

/**
 * The process warnings emitted while `fn` runs (and a turn after), collected instead of
 * printed: a warning a test expects is asserted, not shown in the log of a green run.
 */
export async function collectWarnings(fn) {
  const printers = process.listeners('warning')
  process.removeAllListeners('warning')
  const warnings = []
  const onWarning = (warning) => warnings.push(warning)
  process.on('warning', onWarning)
  try {
    await fn()
    await new Promise((resolve) => setImmediate(resolve))
  } finally {
    process.off('warning', onWarning)
    for (const printer of printers) process.on('warning', printer)
  }
  return warnings
}

/**
 * Checks that the packed size the README's install table gives for the package `name` (a
 * `1.38 MB` or `737 kB` cell, decimal units) is within 10% of `bytes`, what npm packed now.
 */
export function assertReadmeSize(name, bytes) {
  const row = readPage('README.md')
    .split('\n')
    .find((line) => line.startsWith(`| \`${name}\``))
  const cell = row && /\| ([\d.]+) (kB|MB) \|/.exec(row)
  if (!cell) throw new Error(`no packed size for ${name} in the README's install table`)
  const stated = Number(cell[1]) * (cell[2] === 'MB' ? 1e6 : 1e3)
  if (Math.abs(bytes - stated) > stated / 10) {
    throw new Error(`the README says ${name} packs to ${cell[1]} ${cell[2]}; it packs to ${bytes.toLocaleString('en-US')} bytes now`)
  }
}
