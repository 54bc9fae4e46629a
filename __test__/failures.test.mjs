// Failures at the end of output survive the default settings: tool results and errors at the
// tool layer, session guard and repair keep a failure at the end ('auto' reads the end; an
// isError result or a thrown error keeps most of its end), while an explicit strategy keeps
// its meaning. Then a corpus of real output made on this machine (failures-corpus.mjs):
// every failure line is kept under a 4 KiB budget, and successes are rarely read as failures.
import { test, describe, before } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'

import { hardTruncateToolError, hardTruncateToolPayload, measureText, wrapToolWithHardOutputTruncate } from '../index.mjs'
import { guardSessionManager, repairSessionFile } from '../pi.mjs'
import { BUDGET, buildCorpus, keepsLine, measureFailures, measureSuccesses, rates } from './failures-corpus.mjs'

const RUNS = Number(process.env.FC_RUNS ?? 10_000)
// The shell samples need a POSIX shell and its utilities.
const POSIX = process.platform !== 'win32'

const listing = (count, prefix = 'src/module') => Array.from({ length: count }, (_, i) => `${prefix}_${i}.ts\n`).join('')
const blockText = (result) => result.content.map((block) => block.text).join('')

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** What `find …; ls /nonexistent` printed, stdout and stderr merged, and its exit status. */
function findThenLs() {
  const run = spawnSync('sh', ['-c', 'exec 2>&1; find node_modules -maxdepth 4; ls /nonexistent'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, LC_ALL: 'C' },
  })
  // A shell tool reports the status after the output.
  return { text: `${run.stdout}exit code: ${run.status}`, status: run.status }
}

describe('failures at the end survive the default settings', () => {
  test('`find …; ls /nonexistent`: the ls error and the exit code are kept', { skip: !POSIX }, async () => {
    const { text, status } = findThenLs()
    // GNU: "ls: cannot access '/nonexistent': No such file or directory", exit code 2.
    const lsError = text.split('\n').at(-2)
    assert.match(lsError, /^ls: .*nonexistent.*No such file or directory$/)
    assert.notEqual(status, 0)
    const end = `${lsError}\nexit code: ${status}`
    // The output is over the default budget, so something is cut.
    assert.ok(measureText(text).bytes > 51_200 || measureText(text).lines > 2000, 'over the default budget')

    const clamped = hardTruncateToolPayload(text)
    assert.ok(clamped.endsWith(`\n${end}`), 'the ls error and the exit code')
    assert.ok(clamped.startsWith('node_modules\n'), 'and the start')
    // The wrappers: a pi tool returning content blocks, an AI SDK execute returning the text.
    const tool = wrapToolWithHardOutputTruncate({ name: 'bash', execute: async () => ({ content: [{ type: 'text', text }] }) })
    assert.ok(blockText(await tool.execute('call-1', {})).endsWith(`\n${end}`))
    assert.ok((await wrapToolWithHardOutputTruncate(async () => text)()).endsWith(`\n${end}`))
    // An explicit strategy keeps its meaning: a head cut loses them.
    const head = hardTruncateToolPayload(text, { strategy: 'head' })
    assert.ok(!head.includes('ls: cannot access') && !head.includes('exit code'))
  })

  test('an MCP isError result keeps "Permission denied", and any end, however it reads', () => {
    const denied = `${listing(5000)}rg: /srv/data/private: Permission denied (os error 13)\n`
    const result = { content: [{ type: 'text', text: denied }], isError: true }
    const clamped = hardTruncateToolPayload(result, { maxBytes: 4096 })
    assert.ok(blockText(clamped).endsWith('rg: /srv/data/private: Permission denied (os error 13)\n'))
    assert.equal(clamped.isError, true)
    // An end no signal names: an isError result still keeps it, with most of the room.
    const quota = `${listing(5000)}upload stopped: quota reached for bucket logs\n`
    const asError = blockText(hardTruncateToolPayload({ content: [{ type: 'text', text: quota }], isError: true }, { maxBytes: 4096 }))
    assert.ok(asError.endsWith('upload stopped: quota reached for bucket logs\n'))
    assert.ok(asError.startsWith('src/module_0.ts\n'))
    const tail = asError.slice(asError.indexOf('...]\n') + 5)
    assert.ok(measureText(tail).bytes > 2 * (measureText(asError).bytes - measureText(tail).bytes), '70% of the room to the end')
    // The same result that does not say it failed is cut at its end: nothing there reads as a failure.
    assert.ok(!blockText(hardTruncateToolPayload({ content: [{ type: 'text', text: quota }] }, { maxBytes: 4096 })).includes('quota'))
    // A strategy given is used as it is, failure or not.
    const head = hardTruncateToolPayload(result, { maxBytes: 4096, strategy: 'head' })
    assert.ok(!blockText(head).includes('Permission denied'))
  })

  test('hardTruncateToolError keeps "root cause: ECONNRESET" at the end of a long message', () => {
    const message = `request to https://api.example.com/v1/upload failed\n${listing(300, 'retry: attempt')}root cause: ECONNRESET`
    const error = new Error(message)
    const clamped = hardTruncateToolError(error)
    assert.notEqual(clamped, error)
    assert.ok(clamped.message.endsWith('\nroot cause: ECONNRESET'))
    assert.ok(clamped.message.startsWith('request to https://api.example.com/v1/upload failed\n'))
    assert.ok(measureText(clamped.message).lines <= 40 && measureText(clamped.message).bytes <= 4096)
    // A strategy given keeps its meaning.
    assert.ok(!hardTruncateToolError(error, { strategy: 'head' }).message.includes('ECONNRESET'))
  })

  test('a thrown error through the wrappers keeps its end', async () => {
    const message = `${listing(300, 'step')}root cause: quota reached`
    const execute = wrapToolWithHardOutputTruncate(async () => {
      throw new Error(message)
    })
    await assert.rejects(execute(), (error) => error.message.endsWith('\nroot cause: quota reached'))
    const tool = wrapToolWithHardOutputTruncate({
      name: 'upload',
      execute() {
        throw new TypeError(message)
      },
    })
    assert.throws(
      () => tool.execute('call-1', {}),
      (error) => error.name === 'TypeError' && error.message.endsWith('\nroot cause: quota reached'),
    )
    // With a strategy given to the wrapper, errors are cut by it too.
    const head = wrapToolWithHardOutputTruncate(
      async () => {
        throw new Error(message)
      },
      { strategy: 'head' },
    )
    await assert.rejects(head(), (error) => !error.message.includes('root cause'))
  })

  test('AI SDK error outputs and LangChain error messages keep most of their end', () => {
    const text = `${listing(5000)}upload stopped: quota reached\n`
    const ai = hardTruncateToolPayload({ type: 'error-text', value: text }, { maxBytes: 4096 })
    assert.ok(ai.value.endsWith('upload stopped: quota reached\n'))
    assert.ok(!hardTruncateToolPayload({ type: 'text', value: text }, { maxBytes: 4096 }).value.includes('quota'))
    const message = { lc_direct_tool_output: true, tool_call_id: 'call-1', status: 'error', content: text }
    assert.ok(hardTruncateToolPayload(message, { maxBytes: 4096 }).content.endsWith('upload stopped: quota reached\n'))
  })

  test('the session guard and repair keep the end of a failed result', (t) => {
    const failed = `${listing(5000)}upload stopped: quota reached\n`
    const killed = `${listing(5000)}Killed\n`
    const result = (id, text, isError) => ({
      role: 'toolResult',
      toolCallId: id,
      toolName: 'bash',
      content: [{ type: 'text', text }],
      isError,
      timestamp: 1,
    })
    const persisted = []
    const manager = guardSessionManager({ appendMessage: (message) => persisted.push(message) }, { maxBytes: 4096 })
    manager.appendMessage(result('a', failed, true))
    manager.appendMessage(result('b', killed, false))
    manager.appendMessage(result('c', failed, false))
    assert.ok(blockText(persisted[0]).endsWith('upload stopped: quota reached\n'), 'isError: its end')
    assert.ok(blockText(persisted[1]).endsWith('\nKilled\n'), "'auto': an end that reads as a failure")
    assert.ok(!blockText(persisted[2]).includes('quota'), "'auto': a plain end is cut")

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolclamp-failures-'))
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
    const file = path.join(dir, 'session.jsonl')
    const entry = (id, message) => JSON.stringify({ type: 'message', id, parentId: null, timestamp: '2025-06-01T10:00:00.000Z', message })
    const header = JSON.stringify({ type: 'session', version: 3, id: 's', timestamp: '2025-06-01T10:00:00.000Z', cwd: dir })
    fs.writeFileSync(file, [header, entry('a', result('a', failed, true)), entry('b', result('b', killed, false))].join('\n') + '\n')
    const report = repairSessionFile(file, { maxBytes: 4096, backup: false })
    assert.equal(report.results.length, 2)
    const repaired = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => blockText(JSON.parse(line).message))
    assert.ok(repaired[0].endsWith('upload stopped: quota reached\n'))
    assert.ok(repaired[1].endsWith('\nKilled\n'))
  })
})

describe('failure endings, as properties', () => {
  // Lines of a successful listing: nothing in them reads as a failure.
  const plainLine = fc.stringMatching(/^[a-z0-9_/]{1,60}$/).map((s) => `${s}.txt`)
  const filler = fc.array(plainLine, { minLength: 200, maxLength: 600 }).map((lines) => lines.join('\n') + '\n')
  // Real last lines of failing runs (coreutils, shells, signals, package managers, errno).
  const ending = fc.constantFrom(
    "ls: cannot access '/nonexistent': No such file or directory",
    'sh: 2: ./deploy.sh: Permission denied',
    'bash: line 1: nosuchcmd: command not found',
    'Segmentation fault (core dumped)',
    'Killed',
    'WARNING: Package(s) not found: left-pad',
    "src/main.c:3:7: warning: unused variable 'x' [-Wunused-variable]",
    'error: could not compile `app` (bin "app") due to 1 previous error',
    'Error: read ECONNRESET',
    'exit code: 2',
  )
  const budget = fc.integer({ min: 1024, max: 16_384 })
  const runs = Math.max(50, Math.floor(RUNS / 20))

  test('a failure line at the end of a long result is kept whole under the default strategy', () => {
    fc.assert(
      fc.property(filler, ending, budget, (text, last, maxBytes) => {
        const output = `${text}${last}\n`
        const clamped = hardTruncateToolPayload(output, { maxBytes })
        assert.ok(measureText(clamped).bytes <= maxBytes)
        assert.ok(keepsLine(clamped, last), last)
      }),
      { numRuns: runs },
    )
  })

  test('the last line of a failed result or a thrown error is kept whole, whatever it says', () => {
    const anyLine = fc.stringMatching(/^[ -~]{1,120}$/)
    fc.assert(
      fc.property(filler, anyLine, budget, (text, last, maxBytes) => {
        const output = `${text}${last}`
        const result = hardTruncateToolPayload({ content: [{ type: 'text', text: output }], isError: true }, { maxBytes })
        assert.ok(measureText(blockText(result)).bytes <= maxBytes)
        assert.ok(blockText(result).endsWith(`\n${last}`))
        const error = hardTruncateToolError(new Error(output))
        assert.ok(error.message.endsWith(`\n${last}`))
      }),
      { numRuns: runs },
    )
  })
})

describe('a corpus of real output made on this machine', { skip: !POSIX }, () => {
  let corpus
  let failures
  let successes
  before(async () => {
    corpus = await buildCorpus()
    failures = measureFailures(corpus)
    successes = measureSuccesses(corpus).filter((s) => s.over)
  })

  const show = (by) =>
    Object.entries(by)
      .map(([kind, [count, total]]) => `${kind} ${count}/${total}`)
      .join(', ')

  test('it is large enough to measure, and its listings alone read as successes', (t) => {
    const kinds = new Set(corpus.failures.map((f) => f.kind))
    t.diagnostic(`failing commands: ${corpus.failures.length} (${show(rates(corpus.failures))}); samples: ${failures.length}`)
    t.diagnostic(`successful outputs over 4 KiB: ${successes.length} (${show(rates(successes))})`)
    for (const { name, reason } of corpus.skipped) t.diagnostic(`skipped: ${name}: ${reason}`)
    // Minimums that hold with no more than a shell, its utilities, Node and npm (a BusyBox
    // container); a full machine has about 70 failing commands and 25 successes.
    assert.ok(corpus.failures.length >= 20, `${corpus.failures.length} failing commands`)
    assert.ok(kinds.size >= 5, [...kinds].join(', '))
    assert.equal(corpus.prefixes.length, 3, 'the three listings')
    assert.ok(successes.length >= 8, `${successes.length} successes`)
    // The failure, not the listing before it, is what is read at the end.
    for (const prefix of corpus.prefixes)
      assert.equal(
        hardTruncateToolPayload(prefix.text, BUDGET),
        hardTruncateToolPayload(prefix.text, { ...BUDGET, strategy: 'head' }),
        prefix.name,
      )
    // A head cut loses every failure: the corpus tests what it means to.
    assert.deepEqual(
      failures.filter((f) => f.keptByHead).map((f) => f.name),
      [],
    )
  })

  test('every failure line is kept under a 4 KiB budget by default, and as an isError result', (t) => {
    t.diagnostic(`kept by default: ${show(rates(failures, 'kept'))}`)
    const missed = failures
      .filter((f) => !f.kept || !f.keptAsError)
      .map((f) => `${f.name} after ${f.prefix}: ${JSON.stringify(f.failureLine)}`)
    assert.deepEqual(missed, [])
  })

  test('the output of successful commands is rarely read as a failure', (t) => {
    const misread = rates(successes, 'misread')
    t.diagnostic(`read as failures (the default clamp differs from a head cut): ${show(misread)}`)
    t.diagnostic(
      `misread: ${
        successes
          .filter((s) => s.misread)
          .map((s) => s.name)
          .join(', ') || 'none'
      }`,
    )
    // Listings, build logs and JSON: at most one in ten. A passing test run ends with its
    // summary ("fail 0"), kept on purpose; a file whose end talks about errors (source code,
    // a commit log) reads as one: both are reported, not bounded.
    const commands = successes.filter((s) => ['listing', 'build log', 'json'].includes(s.kind))
    const count = commands.filter((s) => s.misread).length
    assert.ok(commands.length >= 6, `${commands.length} command outputs`)
    assert.ok(count * 10 <= commands.length, `${count} of ${commands.length}`)
  })
})
