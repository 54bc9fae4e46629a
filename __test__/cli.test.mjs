import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const repoRoot = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(import.meta.url)
const { parseSize, parseArgs, parseRunArgs, noticeNeedsTotals, didYouMean } = require('../bin/toolclamp.js')

const CLI = 'bin/toolclamp.js'
const SAMPLE_LOG_PATH = 'examples/test-run.log'
const sampleLog = readFileSync(new URL('../examples/test-run.log', import.meta.url), 'utf8')

function runCli(args, input) {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: repoRoot,
    input: input === undefined ? '' : input,
  })
  return {
    status: result.status,
    stdoutBytes: result.stdout,
    stdout: result.stdout.toString('utf8'),
    stderr: result.stderr.toString('utf8'),
  }
}

// Units as index.d.ts defines them.
const countChars = (text) => text.length
const countBytes = (text) => Buffer.byteLength(text, 'utf8')
function countLines(text) {
  if (text === '') return 0
  const breaks = text.split('\n').length - 1
  return text.endsWith('\n') ? breaks : breaks + 1
}

const firstLine = (text) => text.slice(0, text.indexOf('\n') + 1)
const lastLine = (text) => text.slice(text.lastIndexOf('\n', text.length - 2) + 1)

function assertOk(result) {
  assert.equal(result.stderr, '', 'nothing on stderr')
  assert.equal(result.status, 0)
}

test('the sample log is large enough to be clamped by the defaults', () => {
  assert.ok(countBytes(sampleLog) > 50 * 1024)
  assert.ok(sampleLog.endsWith('\n'))
})

test('reads the file given as argument', () => {
  const result = runCli(['--max-lines', '10', SAMPLE_LOG_PATH])
  assertOk(result)
  assert.ok(countLines(result.stdout) <= 10)
  assert.ok(result.stdout.startsWith(firstLine(sampleLog)))
  assert.notEqual(result.stdout, sampleLog)
})

test('reads stdin when no file or "-" is given, with the same result as the file', () => {
  const fromFile = runCli(['--max-lines', '10', SAMPLE_LOG_PATH])
  const fromStdin = runCli(['--max-lines', '10'], sampleLog)
  const fromDash = runCli(['--max-lines', '10', '-'], sampleLog)
  assertOk(fromStdin)
  assertOk(fromDash)
  assert.equal(fromStdin.stdout, fromFile.stdout)
  assert.equal(fromDash.stdout, fromFile.stdout)
})

test('--max-chars is honored', () => {
  const result = runCli(['--max-chars', '5000', SAMPLE_LOG_PATH])
  assertOk(result)
  assert.ok(countChars(result.stdout) <= 5000, `${countChars(result.stdout)} chars`)
  assert.ok(countChars(result.stdout) > 4000, 'most of the budget is used')
  assert.ok(result.stdout.startsWith(firstLine(sampleLog)))
})

test('--max-bytes is honored on non-ASCII text', () => {
  const text = '✅ 日本語のテスト名 passed\n'.repeat(500)
  const result = runCli(['--max-bytes', '1000'], text)
  assertOk(result)
  assert.ok(countBytes(result.stdout) <= 1000, `${countBytes(result.stdout)} bytes`)
  assert.ok(result.stdout.startsWith(firstLine(text)))
  assert.ok(!result.stdout.includes('\uFFFD'), 'no character was split')
})

test('--max-lines is honored', () => {
  const result = runCli(['--max-lines', '50', SAMPLE_LOG_PATH])
  assertOk(result)
  assert.ok(countLines(result.stdout) <= 50, `${countLines(result.stdout)} lines`)
  assert.ok(result.stdout.startsWith(sampleLog.split('\n').slice(0, 40).join('\n')))
})

test('all three limits together are honored', () => {
  const result = runCli(['--max-chars', '3000', '--max-bytes', '2500', '--max-lines', '20', SAMPLE_LOG_PATH])
  assertOk(result)
  assert.ok(countChars(result.stdout) <= 3000)
  assert.ok(countBytes(result.stdout) <= 2500)
  assert.ok(countLines(result.stdout) <= 20)
})

test('without a limit flag the default is 50 KiB and 2000 lines', () => {
  const result = runCli([SAMPLE_LOG_PATH])
  assertOk(result)
  assert.ok(countBytes(result.stdout) <= 50 * 1024)
  assert.ok(countLines(result.stdout) <= 2000)
  assert.ok(countBytes(result.stdout) > 40 * 1024, 'most of the budget is used')
})

test('--strategy tail keeps the last line of the input', () => {
  const result = runCli(['--strategy', 'tail', '--max-lines', '30', SAMPLE_LOG_PATH])
  assertOk(result)
  assert.ok(countLines(result.stdout) <= 30)
  assert.ok(result.stdout.endsWith(lastLine(sampleLog)))
  assert.ok(result.stdout.includes('Tests  2 failed'))
  assert.ok(!result.stdout.startsWith(firstLine(sampleLog)))
})

test('--strategy head-tail keeps both ends', () => {
  for (const args of [
    ['--strategy', 'head-tail'],
    ['--strategy=head-tail', '--head-ratio', '0.3'],
  ]) {
    const result = runCli([...args, '--max-bytes', '4KiB', '--max-lines', '60', SAMPLE_LOG_PATH])
    assertOk(result)
    assert.ok(countBytes(result.stdout) <= 4096)
    assert.ok(countLines(result.stdout) <= 60)
    assert.ok(result.stdout.startsWith(firstLine(sampleLog)), `${args}: starts like the input`)
    assert.ok(result.stdout.endsWith(lastLine(sampleLog)), `${args}: ends like the input`)
  }
})

test('--head-ratio shifts the budget between the ends', () => {
  const mostlyHead = runCli(['--strategy', 'head-tail', '--head-ratio', '0.9', '--max-lines', '40', '--json', SAMPLE_LOG_PATH])
  const mostlyTail = runCli(['--strategy', 'head-tail', '--head-ratio', '0.1', '--max-lines', '40', '--json', SAMPLE_LOG_PATH])
  assertOk(mostlyHead)
  assertOk(mostlyTail)
  assert.ok(JSON.parse(mostlyHead.stdout).headEnd > JSON.parse(mostlyTail.stdout).headEnd)
})

test('--json prints the result and what was cut', () => {
  const result = runCli(['--json', '--strategy', 'head-tail', '--max-bytes', '4096', SAMPLE_LOG_PATH])
  assertOk(result)
  const info = JSON.parse(result.stdout)
  const fields = [
    'text',
    'truncated',
    'truncatedBy',
    'strategy',
    'totalChars',
    'totalBytes',
    'totalLines',
    'outputChars',
    'outputBytes',
    'outputLines',
    'omittedChars',
    'omittedBytes',
    'omittedLines',
    'headEnd',
    'tailStart',
  ]
  for (const field of fields) assert.ok(Object.hasOwn(info, field), `has ${field}`)
  assert.equal(info.truncated, true)
  assert.deepEqual(info.truncatedBy, ['bytes'])
  assert.equal(info.strategy, 'headTail')
  assert.equal(info.totalChars, countChars(sampleLog))
  assert.equal(info.totalBytes, countBytes(sampleLog))
  assert.equal(info.totalLines, countLines(sampleLog))
  assert.equal(info.outputBytes, countBytes(info.text))
  assert.ok(info.outputBytes <= 4096)
  assert.ok(sampleLog.startsWith(info.text.slice(0, info.headEnd)))
  assert.ok(info.text.endsWith(sampleLog.slice(info.tailStart)))
})

test('--json on text within the limits reports nothing cut', () => {
  const result = runCli(['--json', '--max-lines', '5'], 'one\ntwo\n')
  assertOk(result)
  const info = JSON.parse(result.stdout)
  assert.equal(info.text, 'one\ntwo\n')
  assert.equal(info.truncated, false)
  assert.deepEqual(info.truncatedBy, [])
})

test('sizes accept plain numbers and suffixes, in both flag forms', () => {
  const plain = runCli(['--max-bytes', '51200', SAMPLE_LOG_PATH])
  const kilo = runCli(['--max-bytes', '50k', SAMPLE_LOG_PATH])
  const inline = runCli(['--max-bytes=50K', SAMPLE_LOG_PATH])
  assertOk(plain)
  assert.equal(kilo.stdout, plain.stdout)
  assert.equal(inline.stdout, plain.stdout)

  const lines = runCli(['--max-lines', '2000', '--max-bytes', '1MiB', SAMPLE_LOG_PATH])
  assertOk(lines)
  assert.ok(countLines(lines.stdout) <= 2000)
  assert.notEqual(lines.stdout, sampleLog)

  const roomy = runCli(['--max-bytes', '1MiB', SAMPLE_LOG_PATH])
  assertOk(roomy)
  assert.equal(roomy.stdout, sampleLog)
})

test('parseSize', () => {
  assert.equal(parseSize('2000'), 2000)
  assert.equal(parseSize('0'), 0)
  assert.equal(parseSize('50k'), 51_200)
  assert.equal(parseSize('50K'), 51_200)
  assert.equal(parseSize('50kb'), 51_200)
  assert.equal(parseSize('2m'), 2_097_152)
  assert.equal(parseSize('2M'), 2_097_152)
  assert.equal(parseSize('50Ki'), 51_200)
  assert.equal(parseSize('50KiB'), 51_200)
  assert.equal(parseSize('1MiB'), 1_048_576)
  assert.equal(parseSize('1Mi'), 1_048_576)
  assert.equal(parseSize('1GiB'), 1_073_741_824)
  for (const bad of [
    '',
    '12q',
    'k',
    '-1',
    '+5',
    '1.5k',
    '1,000',
    '1_000',
    ' 50',
    '50 k',
    '50kbb',
    '0x10',
    '1e3',
    'Infinity',
    '99999999999999999999',
  ]) {
    assert.throws(() => parseSize(bad), undefined, JSON.stringify(bad))
  }
})

test('parseArgs', () => {
  assert.deepEqual(parseArgs([]), {
    options: { maxBytes: 51_200, maxLines: 2000, strategy: 'head' },
    file: null,
    json: false,
    text: false,
    page: false,
  })
  assert.deepEqual(parseArgs(['--max-chars=8k', '--strategy', 'head-tail', '--head-ratio', '0.25', '--json', 'out.txt']), {
    options: { maxChars: 8192, strategy: 'headTail', headRatio: 0.25 },
    file: 'out.txt',
    json: true,
    text: false,
    page: false,
  })
  assert.deepEqual(parseArgs(['--notice', '', '--spill-dir', 'spills', '--text', '--normalize', 'logs/build.log']), {
    options: {
      maxBytes: 51_200,
      maxLines: 2000,
      strategy: 'head',
      notice: '',
      spill: { dir: 'spills', name: 'build.log' },
      normalize: true,
    },
    file: 'logs/build.log',
    json: false,
    text: true,
    page: false,
  })
  assert.deepEqual(parseArgs(['--spill-dir=spills']).options.spill, { dir: 'spills', name: 'stdin' })
  assert.deepEqual(parseArgs(['--offset', '7', '--column=51200', '-n', '100']), {
    options: { maxLines: 100, offset: 7, column: 51_200 },
    file: null,
    json: false,
    text: false,
    page: true,
  })
  assert.deepEqual(parseArgs(['--column', '3']).options, { offset: 1, column: 3 })
  assert.deepEqual(parseArgs(['--max-lines', '5', '-']).file, null)
  assert.deepEqual(parseArgs(['--', '--odd-name.log']).file, '--odd-name.log')
  assert.throws(() => parseArgs(['--max-bytes', 'lots']), /^CliError: --max-bytes expects a size/)
})

test('parseRunArgs: options up to the command, the command and its own arguments after', () => {
  assert.deepEqual(parseRunArgs(['--', 'npm', 'test']), { command: 'npm', args: ['test'], options: {}, json: false })
  assert.deepEqual(parseRunArgs(['-n', '200', '--timeout', '10m', 'ls', '-la', '--', '-n']), {
    command: 'ls',
    args: ['-la', '--', '-n'],
    options: { stdout: { maxLines: 200 }, stderr: { maxLines: 200 }, timeoutMs: 600_000 },
    json: false,
  })
  assert.deepEqual(
    parseRunArgs([
      '--strategy=head-tail',
      '--head-ratio',
      '0.2',
      '--notice',
      '[{stream}]',
      '--normalize',
      '--spill-dir',
      'out',
      '--json',
      '/usr/bin/make',
      'all',
    ]),
    {
      command: '/usr/bin/make',
      args: ['all'],
      options: { strategy: 'headTail', headRatio: 0.2, notice: '[{stream}]', normalize: true, spill: { dir: 'out', name: 'make' } },
      json: true,
    },
  )
  for (const [time, ms] of [
    ['1.5', 1500],
    ['500ms', 500],
    ['30s', 30_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
  ]) {
    assert.equal(parseRunArgs(['--timeout', time, 'true']).options.timeoutMs, ms)
  }
  for (const bad of ['0', '-1', 'soon', '1d', '']) {
    assert.throws(() => parseRunArgs(['--timeout', bad, 'true']), /^CliError: --timeout expects a time/)
  }
  assert.throws(() => parseRunArgs(['-n', '5']), /^CliError: run expects a command/)
})

test('a notice needs the totals unless it names only where the cut starts', () => {
  assert.equal(noticeNeedsTotals(undefined), true)
  for (const notice of ['', '[more]', '[cut at the {where}, line {fromLine}, char {headEnd}]', '{{omitted}}', '{{{where}}}']) {
    assert.equal(noticeNeedsTotals(notice), false, notice)
  }
  for (const notice of [
    '{omitted}',
    '{totalLines}',
    '{toLine}',
    '{tailStart}',
    '{omittedBytes}',
    '{spillPath}',
    '{{{omitted}}}',
    '{where',
    '{nope}',
  ]) {
    assert.equal(noticeNeedsTotals(notice), true, notice)
  }
})

test('didYouMean: a near miss by case and separators, else the one flag within two edits', () => {
  const flags = ['--max-bytes', '--max-lines', '--max-chars', '--strategy', '--json', '--notice', '-n', '-c']
  assert.equal(didYouMean('--MAX_BYTES', flags), '--max-bytes')
  assert.equal(didYouMean('--max-byte', flags), '--max-bytes')
  assert.equal(didYouMean('--stratgey', flags), '--strategy')
  assert.equal(didYouMean('--jsno', flags), '--json')
  assert.equal(didYouMean('--max-line', flags), '--max-lines')
  assert.equal(didYouMean('--max', flags), undefined)
  assert.equal(didYouMean('--max-xxxxx', flags), undefined, 'equally near to three flags')
  assert.equal(didYouMean('--js', flags), undefined, 'short flags: one edit at most')
  assert.equal(didYouMean('-x', flags), undefined)
})

test('invalid arguments exit 2 with one line on stderr', () => {
  const badCalls = [
    ['--nope'],
    ['-x'],
    ['--max-bytes'],
    ['--max-bytes', '12q'],
    ['--max-bytes=12q'],
    ['--max-chars', '1.5k'],
    ['--max-lines', '-3'],
    ['--strategy', 'middle'],
    ['--strategy'],
    ['--strategy', 'head-tail', '--head-ratio', '1.5'],
    ['--strategy', 'head-tail', '--head-ratio', 'half'],
    ['--head-ratio', '0.3'],
    ['--json=yes'],
    ['--normalize=yes'],
    ['-n'],
    ['--max-tokens', 'many'],
    [SAMPLE_LOG_PATH, SAMPLE_LOG_PATH],
  ]
  for (const args of badCalls) {
    const result = runCli(args, 'some input\n')
    const label = JSON.stringify(args)
    assert.equal(result.status, 2, `${label} exits 2`)
    assert.equal(result.stdout, '', `${label} writes nothing to stdout`)
    assert.match(result.stderr, /^toolclamp: [^\n]+\n$/, `${label} writes one line: ${result.stderr}`)
  }
})

test('a file that cannot be read exits 1, as head and tail do', () => {
  for (const [args, reason] of [
    [['no-such-file.log'], 'no such file'],
    [['examples'], 'is a directory'],
  ]) {
    const result = runCli(args)
    assert.equal(result.status, 1, JSON.stringify(args))
    assert.equal(result.stdout, '')
    assert.equal(result.stderr, `toolclamp: cannot read ${JSON.stringify(args[0])}: ${reason}\n`)
  }
})

test('a mistyped flag gets "did you mean"', () => {
  assert.equal(runCli(['--maxbytes', '3']).stderr, 'toolclamp: unknown option "--maxbytes"; did you mean --max-bytes?\n')
  assert.equal(runCli(['--Normalize']).stderr, 'toolclamp: unknown option "--Normalize"; did you mean --normalize?\n')
  assert.equal(runCli(['--nope']).stderr, 'toolclamp: unknown option "--nope" (see --help)\n')
})

test('-n and -c are --max-lines and --max-bytes; --max-tokens is 3 bytes a token; --normalize', () => {
  const numbers = Array.from({ length: 100 }, (_, i) => `${i + 1}\n`).join('')
  assert.equal(runCli(['-n', '3'], numbers).stdout, runCli(['--max-lines', '3'], numbers).stdout)
  assert.equal(runCli(['-c', '40'], numbers).stdout, runCli(['--max-bytes', '40'], numbers).stdout)
  assert.equal(runCli(['--max-tokens', '20'], numbers).stdout, runCli(['--max-bytes', '60'], numbers).stdout)
  const progress = '\x1b[32mok\x1b[0m\n10%\r55%\r100%\n'
  const shown = runCli(['--normalize'], progress)
  assert.equal(shown.status, 0)
  assert.equal(shown.stdout, 'ok\n100%\n')
  assert.equal(runCli([], progress).stdout, progress, 'off by default')
})

test('head and tail spellings: --lines=N, --bytes=N, -nN, -cN, -N, --head, --tail, --head-tail', () => {
  const numbers = Array.from({ length: 100 }, (_, i) => `${i + 1}\n`).join('')
  const lines5 = runCli(['--max-lines', '5'], numbers).stdout
  for (const args of [['--lines=5'], ['--lines', '5'], ['-n5'], ['-5']]) assert.equal(runCli(args, numbers).stdout, lines5, args.join(' '))
  const bytes20 = runCli(['--max-bytes', '20'], numbers).stdout
  for (const args of [['--bytes=20'], ['--bytes', '20'], ['-c20']]) assert.equal(runCli(args, numbers).stdout, bytes20, args.join(' '))
  for (const [flag, strategy] of [
    ['--head', 'head'],
    ['--tail', 'tail'],
    ['--head-tail', 'head-tail'],
  ]) {
    assert.equal(runCli([flag, '-n', '5'], numbers).stdout, runCli(['--strategy', strategy, '-n', '5'], numbers).stdout, flag)
  }
  assert.deepEqual(parseArgs(['-12', '--tail', '-c1k']).options, { maxLines: 12, maxBytes: 1024, strategy: 'tail' })
  assert.deepEqual(parseArgs(['--head-tail', '--head-ratio', '0.2']).options.headRatio, 0.2)
  assert.deepEqual(parseRunArgs(['-n20', '--head', 'ls']).options, { stdout: { maxLines: 20 }, stderr: { maxLines: 20 }, strategy: 'head' })
  const refused = [
    [['--head', '--tail'], 'toolclamp: --tail contradicts the strategy given before it (head)\n'],
    [['--strategy', 'tail', '--head'], 'toolclamp: --head contradicts the strategy given before it (tail)\n'],
    [['--tail=yes'], 'toolclamp: --tail does not take a value\n'],
    [['-n', '+7'], 'toolclamp: -n expects a size like 2000, 50k or 1MiB, got "+7" (--offset 7 prints the input from line 7 on)\n'],
    [
      ['-n', '-3'],
      'toolclamp: -n expects a size like 2000, 50k or 1MiB, got "-3" (toolclamp keeps at most a count, it cannot drop a count)\n',
    ],
    [['-cx'], 'toolclamp: -c expects a size like 2000, 50k or 1MiB, got "x"\n'],
    [['--heda'], 'toolclamp: unknown option "--heda"; did you mean --head?\n'],
  ]
  for (const [args, stderr] of refused) {
    const result = runCli(args, numbers)
    assert.equal(result.stderr, stderr, args.join(' '))
    assert.equal(result.status, 2, args.join(' '))
  }
})

test('run with a shell line as one argument says to use sh -c, and runs nothing', () => {
  const result = runCli(['run', 'echo hi | cat'])
  assert.equal(result.status, 2)
  assert.equal(result.stdout, '')
  assert.equal(
    result.stderr,
    'toolclamp: run starts a program without a shell, and "echo hi | cat" is a shell line, not a program: toolclamp run -- sh -c \'echo hi | cat\'\n',
  )
  assert.equal(runCli(['run', "it's *"]).stderr.endsWith(`sh -c 'it'\\''s *'\n`), true)
  // A plain name, or a path that exists, is run as a program.
  assert.match(runCli(['run', '--', 'sh', '-c', 'echo hi | cat']).stdout, /^<stdout>\nhi\n<\/stdout>\n/)
  assert.match(runCli(['run', 'no-such-program-x']).stdout, /error: command not found/)
})

test('the bad-size message names the flag and the value', () => {
  const result = runCli(['--max-bytes', '12q'])
  assert.equal(result.stderr, 'toolclamp: --max-bytes expects a size like 2000, 50k or 1MiB, got "12q"\n')
})

test('input within the limits is written back byte for byte', () => {
  const inputs = [
    '',
    'no trailing newline',
    'héllo\r\nwörld 😀\r\n✅ passed\n❌ failed\n',
    '日本語のテスト名\n\n\n',
    firstLine(sampleLog) + lastLine(sampleLog),
  ]
  for (const input of inputs) {
    const result = runCli(['--max-lines', '100'], input)
    assertOk(result)
    assert.deepEqual(result.stdoutBytes, Buffer.from(input, 'utf8'), JSON.stringify(input))
  }
  const wholeLog = runCli(['--max-bytes', '1m', '--max-lines', '10k', SAMPLE_LOG_PATH])
  assertOk(wholeLog)
  assert.deepEqual(wholeLog.stdoutBytes, readFileSync(new URL('../examples/test-run.log', import.meta.url)))
})

test('--help prints usage and exits 0', () => {
  for (const flag of ['--help', '-h']) {
    const result = runCli([flag])
    assertOk(result)
    assert.match(result.stdout, /^Usage: toolclamp/)
    assert.match(result.stdout, /--max-bytes 50KiB --max-lines 2000/)
  }
})

test('--version prints the package version', () => {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  const result = runCli(['--version'])
  assertOk(result)
  assert.equal(result.stdout, `${version}\n`)
})

test('--tokenizer counts --max-tokens exactly: piped input comes out within the tokens, a newline included', async () => {
  const { fastOracle } = await import('./token-oracle.mjs')
  const input = `${'build step 42: compiled 中文 😀 \x1b[32mok\x1b[0m in 12 ms\r\n'.repeat(3000)}done\n`
  for (const [tokenizer, encoding] of [
    ['o200k_base', 'o200k_base'],
    ['gpt-4', 'cl100k_base'],
  ]) {
    for (const strategy of ['head', 'tail', 'head-tail']) {
      const result = runCli(['--tokenizer', tokenizer, '--max-tokens', '150', '--strategy', strategy], input)
      assertOk(result)
      const tokens = fastOracle(encoding, result.stdout)
      assert.ok(tokens <= 150 && tokens > 130, `${tokenizer} ${strategy}: ${tokens} tokens`)
      assert.ok(result.stdout.endsWith('\n'), strategy)
    }
  }
  // Input within the tokens comes back whole; the estimate is the default.
  assertOk(runCli(['--tokenizer=o200k_base', '--max-tokens', '50'], 'short\n'))
  assert.equal(runCli(['--tokenizer=o200k_base', '--max-tokens', '50'], 'short\n').stdout, 'short\n')
  assert.equal(runCli(['--tokenizer', 'estimate', '--max-tokens', '20'], input).stdout, runCli(['--max-tokens', '20'], input).stdout)
  const json = JSON.parse(runCli(['--tokenizer', 'o200k_base', '--max-tokens', '40', '--json'], input).stdout)
  assert.deepEqual(Object.keys(json.tokens), ['tokenizer', 'output', 'total', 'totalExact'])
  assert.ok(json.truncatedBy.includes('tokens') && json.tokens.output <= 40)
})

test('run --tokenizer cuts each stream within the tokens', async () => {
  const { fastOracle } = await import('./token-oracle.mjs')
  const script = 'for (let i = 0; i < 5000; i++) { console.log("out " + i + " 中文"); console.error("err " + i) }'
  const result = runCli(['run', '--tokenizer', 'gpt-4o', '--max-tokens', '100', '--', process.execPath, '-e', script])
  assert.equal(result.status, 0, result.stderr)
  const [, stdout, stderr] = /^<stdout>\n([^]*)<\/stdout>\n<stderr>\n([^]*)<\/stderr>\n/.exec(result.stdout)
  for (const text of [stdout, stderr]) {
    assert.ok(fastOracle('o200k_base', text) <= 101, `${fastOracle('o200k_base', text)}: ${text.slice(0, 80)}`)
  }
  assert.deepEqual(parseRunArgs(['--max-tokens', '9', '--tokenizer', 'cl100k_base', 'ls']).options, {
    stdout: { maxTokens: 9, tokenizer: 'cl100k_base' },
    stderr: { maxTokens: 9, tokenizer: 'cl100k_base' },
  })
})

test('--tokenizer pages within exact tokens, banner included, from the offset on', async () => {
  const { fastOracle } = await import('./token-oracle.mjs')
  const input = Array.from({ length: 3000 }, (_, i) => `${i + 1} 数据 ${'QmFzZTY0'.repeat(i % 5)}`).join('\n')
  const result = runCli(['--offset', '100', '--max-tokens', '200', '--tokenizer', 'o200k_base'], input)
  assert.equal(result.status, 0, result.stderr)
  assert.ok(fastOracle('o200k_base', result.stdout) <= 200)
  const [banner, first] = result.stdout.split('\n')
  assert.match(banner, /^\[PARTIAL view: lines 100–\d+ of 3,000 shown/)
  assert.ok(first.startsWith('100 '))
})

test('--tokenizer refuses what it cannot count, with exit 2', () => {
  const refused = [
    [
      ['--tokenizer', 'claude-3', '--max-tokens', '10'],
      'toolclamp: --tokenizer expects o200k_base, cl100k_base, an OpenAI model name or estimate, got "claude-3"\n',
    ],
    [['--tokenizer'], 'toolclamp: --tokenizer expects a value\n'],
    [['--tokenizer', 'o200k_base'], 'toolclamp: --tokenizer only applies with --max-tokens\n'],
    [['run', '--tokenizer', 'o200k_base', 'ls'], 'toolclamp: --tokenizer only applies with --max-tokens\n'],
    [['--tokeniser', 'x'], 'toolclamp: unknown option "--tokeniser"; did you mean --tokenizer?\n'],
  ]
  for (const [args, stderr] of refused) {
    const result = runCli(args, 'text\n')
    assert.equal(result.stderr, stderr, args.join(' '))
    assert.equal(result.status, 2, args.join(' '))
    assert.equal(result.stdout, '')
  }
})
