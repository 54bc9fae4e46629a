// A corpus of real command output, made on this machine from the programs it has: failing
// runs (compilers, test runners, package managers, git, coreutils, shells, Node and Python,
// signals) and long successful ones (listings, build logs, passing test runs, JSON, files).
// Nothing is downloaded or stored: every sample is what a program printed just now, stdout
// and stderr merged as a shell tool hands them to a model. A program this machine lacks, or
// one that answers differently than expected, is skipped and listed as skipped.
//
// Each failure is put after a long successful output (a listing of thousands of lines), so a
// head cut loses it: the sample is that output followed by the failing command's, as
// `{ listing; failing-command; } 2>&1` prints them.
//
// `node __test__/failures-corpus.mjs` prints the measures; __test__/failures.test.mjs asserts them.

import { spawn } from 'node:child_process'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { hardTruncateToolPayload, truncateText } from '../index.mjs'

/** The budget the measures use: 4 KiB of what a model reads. */
export const BUDGET = { maxBytes: 4096 }

const ROOT = fileURLToPath(new URL('..', import.meta.url))

// ---------------------------------------------------------------------------------------
// Files the commands run on
// ---------------------------------------------------------------------------------------

const passingTests = (count) =>
  Array.from({ length: count }, (_, i) => `test('parses record ${i}', () => { assert.equal(${i} + 1, ${i + 1}) })\n`).join('')

const FILES = {
  'broken.c': '#include <stdio.h>\nint main(void) {\n  printf("hi\\n")\n  return 0;\n}\n',
  'undefined.c': 'int helper(int);\nint main(void) { return helper(1); }\n',
  'segv.c': '#include <stddef.h>\nint main(void) { volatile int *p = NULL; return *p; }\n',
  'abort.c': '#include <stdlib.h>\nint main(void) { abort(); }\n',
  'throw.cpp': '#include <stdexcept>\nint main() { throw std::runtime_error("config file is corrupt"); }\n',
  'broken.cpp': '#include <vector>\nint main() { std::vector<int> v; v.push_back("x"); }\n',
  'types.rs': 'fn main() {\n    let n: u32 = "five";\n    println!("{n}");\n}\n',
  'borrow.rs': 'fn main() {\n    let s = String::from("a");\n    let t = s;\n    println!("{s} {t}");\n}\n',
  'crate/Cargo.toml': '[package]\nname = "broken"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n',
  'crate/src/main.rs': 'fn main() {\n    let total: i32 = vec![1, 2].iter().sum::<i64>();\n}\n',
  'Main.java': 'public class Main {\n  public static void main(String[] a) {\n    int x = 1\n  }\n}\n',
  'Boom.java':
    'public class Boom {\n  public static void main(String[] a) {\n    throw new IllegalStateException("queue is closed");\n  }\n}\n',
  'Makefile.fail': 'all:\n\tcc -c missing_source.c -o missing_source.o\n',
  'syntax.py': 'def f(:\n    pass\n',
  'divide.py': 'def ratio(a, b):\n    return a / b\n\nfor b in [3, 2, 1, 0]:\n    print(ratio(6, b))\n',
  'chained.py':
    'import json\ntry:\n    json.loads("{bad")\nexcept ValueError as e:\n    raise RuntimeError("cannot load settings") from e\n',
  'test_unit_fail.py':
    'import unittest\nclass T(unittest.TestCase):\n    def test_sum(self):\n        self.assertEqual(sum([1, 2]), 4)\n    def test_ok(self):\n        self.assertTrue(True)\nunittest.main()\n',
  'test_unit_error.py':
    'import unittest\nclass T(unittest.TestCase):\n    def test_open(self):\n        open("fixtures/missing.json")\nunittest.main()\n',
  'syntax.mjs': 'const a = {\n  b: 1,,\n}\n',
  'fail.test.mjs':
    "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\n" +
    passingTests(30) +
    "test('totals the invoice', () => { assert.equal(0.1 + 0.2, 0.3) })\n",
  'npm-fail/package.json': JSON.stringify({ name: 'app', version: '1.0.0', scripts: { test: 'node --test ../fail.test.mjs' } }),
  'bad.json': '{"a": 1,, "b": 2}\n',
  'patch.diff': '--- a/none.txt\n+++ b/none.txt\n@@ -1 +1 @@\n-old\n+new\n',
  'noexec.sh': 'echo never runs\n',
  'die.pl': 'open(my $f, "<", "settings.ini") or die "Cannot open settings.ini: $!\\n";\n',
  // Successes.
  'pass.test.mjs': "import { test } from 'node:test'\nimport assert from 'node:assert/strict'\n" + passingTests(300),
  'test_unit_pass.py':
    'import unittest\nclass T(unittest.TestCase):\n' +
    Array.from({ length: 300 }, (_, i) => `    def test_case_${i}(self):\n        self.assertEqual(${i} * 2, ${i * 2})\n`).join('') +
    'unittest.main()\n',
  'ok.c': '#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n',
}

// A project tree the listings before the failures list: 1,600 files, names chosen so that
// nothing in a listing of it reads as a failure on any system.
const AREAS = ['api', 'billing', 'catalog', 'checkout', 'inventory', 'search', 'shipping', 'users']
for (const area of AREAS) {
  for (let f = 0; f < 20; f++) {
    for (let m = 0; m < 10; m++) FILES[`app/${area}/feature_${String(f).padStart(2, '0')}/module_${m}.ts`] = `export const id = ${m}\n`
  }
}

// 150 targets copied by make: a build log as make prints it.
FILES['Makefile.ok'] =
  'SRC := $(wildcard src/*.txt)\nOUT := $(patsubst src/%.txt,build/%.txt,$(SRC))\nall: $(OUT)\nbuild/%.txt: src/%.txt\n\t@mkdir -p build\n\tcp $< $@\n'
for (let i = 0; i < 150; i++) FILES[`src/module_${String(i).padStart(3, '0')}.txt`] = `module ${i}\n`
for (let i = 0; i < 200; i++) FILES[`pkg/mod_${i}.py`] = `def f_${i}(x):\n    return x + ${i}\n`

// ---------------------------------------------------------------------------------------
// The commands
// ---------------------------------------------------------------------------------------

/**
 * Failing commands: [kind, name, programs needed, command, the failure line]. The failure
 * line is the last line of the output matching the pattern: what a model must read to know
 * what went wrong.
 */
const FAILURES = [
  ['compiler', 'gcc syntax error', ['gcc'], 'gcc -c broken.c -o broken.o', /error: expected/],
  ['compiler', 'gcc undefined reference', ['gcc'], 'gcc undefined.c -o undefined', /undefined reference|ld returned|linker command failed/],
  ['compiler', 'g++ type error', ['g++'], 'g++ -c broken.cpp -o broken.o', /error: /],
  ['compiler', 'rustc type mismatch', ['rustc'], 'rustc --edition 2021 types.rs -o types', /^error/],
  ['compiler', 'rustc borrow of moved value', ['rustc'], 'rustc --edition 2021 borrow.rs -o borrow', /^error/],
  ['compiler', 'cargo build', ['cargo'], 'cd crate && CARGO_TARGET_DIR=../target cargo build --offline -q', /^error/],
  ['compiler', 'javac', ['javac'], 'javac -d classes Main.java', /error/],
  ['compiler', 'python syntax error', ['python3'], 'python3 -m py_compile syntax.py', /SyntaxError/],
  ['compiler', 'node syntax error', ['node'], 'node --check syntax.mjs', /SyntaxError/],
  ['build', 'make recipe failed', ['make', 'cc'], 'make -f Makefile.fail', /Error 1|error/],
  ['build', 'make no rule', ['make'], 'make -f Makefile.fail nosuchtarget', /No rule to make target/],
  ['test runner', 'node --test (spec)', ['node'], 'node --test --test-reporter=spec fail.test.mjs', /AssertionError|expected/],
  ['test runner', 'python unittest failure', ['python3'], 'python3 test_unit_fail.py', /^FAILED/],
  ['test runner', 'python unittest error', ['python3'], 'python3 test_unit_error.py', /^FAILED/],
  ['test runner', 'npm test failing', ['npm'], 'cd npm-fail && npm test', /^# fail [1-9]/],
  ['package manager', 'npm unknown command', ['npm'], 'npm nosuchcmd', /Unknown command/],
  ['package manager', 'npm install offline', ['npm'], 'cd npm-fail && npm install --offline --no-audit --no-fund no-such-pkg-zz9', /error/],
  ['package manager', 'pip install missing', ['pip'], 'pip install --no-index no-such-pkg-zz9', /^ERROR/],
  ['package manager', 'pip show missing', ['pip'], 'pip show no-such-pkg-zz9', /^WARNING/],
  ['package manager', 'dpkg unknown package', ['dpkg'], 'dpkg -L no-such-pkg-zz9', /not installed/],
  ['git', 'git outside a repository', ['git'], 'git -C / status', /^fatal/],
  ['git', 'git unknown command', ['git'], 'git nosuchcmd', /is not a git command/],
  ['git', 'git unknown branch', ['git'], 'git init -q repo && cd repo && git checkout no-such-branch', /^error/],
  ['git', 'git push without remote', ['git'], 'git init -q repo2 && cd repo2 && git push origin main', /^(error|fatal)/],
  ['git', 'git apply bad patch', ['git'], 'git init -q repo3 && cd repo3 && git apply ../patch.diff', /^error/],
  [
    'git',
    'git merge conflict',
    ['git'],
    'git init -q -b main m && cd m && git config user.email a@b.c && git config user.name A && echo base > f && git add f && git commit -qm base && git checkout -qb side && echo side > f && git commit -qam side && git checkout -q main && echo main > f && git commit -qam main && git merge side',
    /Automatic merge failed|CONFLICT/,
  ],
  ['coreutils', 'ls missing path', ['ls'], 'ls /nonexistent', /cannot access|No such file/],
  ['coreutils', 'cat missing file', ['cat'], 'cat missing.txt', /No such file/],
  ['coreutils', 'cp missing file', ['cp'], 'cp missing.txt copy.txt', /cannot stat|No such file/],
  ['coreutils', 'rm a directory', ['rm'], 'mkdir -p adir && rm adir', /[Ii]s a directory/],
  ['coreutils', 'mkdir existing', ['mkdir'], 'mkdir -p bdir && mkdir bdir', /File exists/],
  ['coreutils', 'mv into missing dir', ['mv'], 'touch m.txt && mv m.txt nodir/m.txt', /cannot move|No such file/],
  ['coreutils', 'cat a directory', ['cat'], 'mkdir -p cdir && cat cdir', /[Ii]s a directory/],
  ['coreutils', 'sort unknown option', ['sort'], 'sort --no-such-option', /unrecognized option ['`]/],
  ['coreutils', 'head bad count', ['head'], 'head -n many missing.txt', /invalid number/],
  ['coreutils', 'grep missing file', ['grep'], 'grep -n TODO missing.txt', /No such file/],
  ['coreutils', 'tar missing archive', ['tar'], 'tar -xf missing.tar', /Cannot open|Error is not recoverable|No such file/],
  ['coreutils', 'unzip missing archive', ['unzip'], 'unzip missing.zip', /cannot find or open|can't open/],
  ['coreutils', 'jq parse error', ['jq'], 'jq . bad.json', /error/],
  ['coreutils', 'sqlite3 missing table', ['sqlite3'], "sqlite3 :memory: 'select * from users'", /no such table/],
  ['coreutils', 'curl connection refused', ['curl'], 'curl -sS http://127.0.0.1:9/', /Failed to connect|Couldn't connect/],
  ['shell', 'sh command not found', ['sh'], 'sh -c nosuchcmd', /not found/],
  ['shell', 'bash command not found', ['bash'], 'bash -c nosuchcmd', /command not found/],
  ['shell', 'bash syntax error', ['bash'], "bash -c 'if then fi'", /syntax error/],
  ['shell', 'bash unbound variable', ['bash'], 'bash -c \'set -u; echo "$NO_SUCH_VAR"\'', /unbound variable/],
  ['shell', 'permission denied', ['sh'], 'chmod 644 noexec.sh && ./noexec.sh', /Permission denied/],
  ['shell', 'cd missing dir', ['sh'], 'cd /nonexistent', /can't cd|No such file/],
  ['signal', 'segmentation fault (C)', ['gcc'], 'gcc segv.c -o segv && ./segv', /Segmentation fault/],
  ['signal', 'segmentation fault (bash)', ['gcc', 'bash'], "gcc segv.c -o segv2 && bash -c './segv2; exit $?'", /Segmentation fault/],
  ['signal', 'segmentation fault (python)', ['python3'], 'python3 -c "import ctypes; ctypes.string_at(0)"', /Segmentation fault/],
  ['signal', 'killed', ['sh'], "sh -c 'kill -9 $$'", /Killed/],
  ['signal', 'killed (python)', ['python3'], 'python3 -c "import os; os.kill(os.getpid(), 9)"', /Killed/],
  ['signal', 'terminated', ['sh'], "sh -c 'kill -TERM $$'", /Terminated/],
  ['signal', 'aborted', ['gcc'], 'gcc abort.c -o abort && ./abort', /Aborted|Abort trap/],
  ['signal', 'uncaught C++ exception', ['g++'], 'g++ throw.cpp -o throw && ./throw', /what\(\)|Aborted/],
  [
    'node',
    'node uncaught error',
    ['node'],
    'node -e "function load() { throw new Error(\'config missing\') } load()"',
    /^Error: config missing/,
  ],
  ['node', 'node TypeError', ['node'], 'node -e "const user = undefined; console.log(user.name)"', /^TypeError/],
  ['node', 'node missing module', ['node'], 'node -e "require(\'no-such-module-zz9\')"', /Cannot find module/],
  ['node', 'node ENOENT', ['node'], "node -e \"require('fs').readFileSync('missing.json')\"", /^Error: ENOENT/],
  ['node', 'node ECONNREFUSED', ['node'], "node -e \"require('net').connect(9, '127.0.0.1')\"", /^Error: connect ECONNREFUSED/],
  ['node', 'node unhandled rejection', ['node'], 'node -e "Promise.reject(new RangeError(\'port out of range\'))"', /RangeError/],
  ['node', 'node stack overflow', ['node'], 'node -e "const f = () => f(); f()"', /Maximum call stack/],
  ['python', 'python ZeroDivisionError', ['python3'], 'python3 divide.py', /^ZeroDivisionError/],
  ['python', 'python FileNotFoundError', ['python3'], 'python3 -c "open(\'missing.csv\')"', /^FileNotFoundError/],
  ['python', 'python ModuleNotFoundError', ['python3'], 'python3 -c "import no_such_module_zz9"', /^ModuleNotFoundError/],
  ['python', 'python chained exception', ['python3'], 'python3 chained.py', /^RuntimeError/],
  ['python', 'python missing script', ['python3'], 'python3 missing.py', /can't open file/],
  ['python', 'python logging warning', ['python3'], 'python3 -c "import logging; logging.warning(\'disk almost full\')"', /^WARNING/],
  ['python', 'python sys.exit message', ['python3'], 'python3 -c "import sys; sys.exit(\'fatal: config missing\')"', /^fatal/],
  ['other', 'perl die', ['perl'], 'perl die.pl', /Cannot open/],
  ['other', 'java uncaught exception', ['java'], 'java Boom.java', /Exception in thread/],
]

/**
 * Successful commands: [kind, name, programs needed, command]. `listing` outputs also precede
 * the failures.
 */
const SUCCESSES = [
  ['listing', 'find (1,600 files)', ['find', 'sort'], 'find app | sort'],
  ['listing', 'ls -l (1,600 files)', ['ls'], 'ls -l app/*/*/*'],
  ['listing', 'tar -cv (1,600 files)', ['tar'], 'tar -cvf app.tar app'],
  ['listing', 'find /usr/include', ['find', 'sort'], 'find /usr/include -maxdepth 2 | sort'],
  ['listing', 'ls -l /usr/bin', ['ls'], 'ls -l /usr/bin'],
  ['listing', 'find /usr/share (4,000 lines)', ['find', 'sort', 'head'], 'find /usr/share -maxdepth 3 | sort | head -n 4000'],
  ['listing', 'dpkg -l', ['dpkg'], 'dpkg -l'],
  ['listing', 'tar -tv of /usr/include', ['tar'], 'tar -cf - -C /usr include 2>/dev/null | tar -tvf - | head -n 3000'],
  ['listing', 'git ls-files', ['git'], `git -C ${sh(ROOT)} ls-files`],
  ['build log', 'make (150 targets)', ['make'], 'make -f Makefile.ok'],
  ['build log', 'python compileall', ['python3'], 'python3 -m compileall -f pkg'],
  ['build log', 'tar -cvz', ['tar', 'gzip'], 'tar -cvzf out.tgz src pkg'],
  ['build log', 'gcc -v', ['gcc'], 'gcc -v ok.c -o ok && ./ok'],
  ['test pass', 'node --test (spec)', ['node'], 'node --test --test-reporter=spec pass.test.mjs'],
  ['test pass', 'python unittest -v', ['python3'], 'python3 test_unit_pass.py -v'],
  ['json', 'package-lock.json', ['cat'], `cat ${sh(join(ROOT, 'package-lock.json'))}`],
  ['json', 'jq . package-lock.json', ['jq'], `jq . ${sh(join(ROOT, 'package-lock.json'))}`],
  [
    'json',
    'sqlite3 -json',
    ['sqlite3'],
    'sqlite3 -json :memory: \'with recursive n(i) as (select 1 union all select i + 1 from n where i < 800) select i as id, printf("row %d", i) as name, i * 3 as score from n\'',
  ],
  [
    'json',
    'python json.dumps',
    ['python3'],
    "python3 -c \"import json, sys; print(json.dumps({'modules': sorted(sys.modules), 'path': sys.path}, indent=2))\"",
  ],
  [
    'json',
    'node process.config',
    ['node'],
    'node -p "JSON.stringify({ versions: process.versions, features: process.features, release: process.release, env: Object.keys(process.env).length }, null, 2).repeat(40)"',
  ],
  ['file', 'cat /usr/include/stdio.h', ['cat'], 'cat /usr/include/stdio.h'],
  ['file', 'cat /usr/include/stdlib.h', ['cat'], 'cat /usr/include/stdlib.h'],
  ['file', 'cat /usr/include/unistd.h', ['cat'], 'cat /usr/include/unistd.h'],
  ['file', 'cat /usr/include/string.h', ['cat'], 'cat /usr/include/string.h'],
  ['file', 'python os.py', ['python3'], 'cat "$(python3 -c "import os; print(os.__file__)")"'],
  ['file', 'python json/decoder.py', ['python3'], 'cat "$(python3 -c "import json.decoder as d; print(d.__file__)")"'],
  ['file', 'git log', ['git'], `git -C ${sh(ROOT)} log -n 200 --stat`],
  ['file', 'seq', ['seq'], 'seq 1 5000'],
]

/** The listings put before each failure: long, and nothing in them reads as a failure. */
const PREFIXES = ['find (1,600 files)', 'ls -l (1,600 files)', 'tar -cv (1,600 files)']

function sh(text) {
  return `'${text.replaceAll("'", "'\\''")}'`
}

// ---------------------------------------------------------------------------------------
// Running them
// ---------------------------------------------------------------------------------------

const TIMEOUT_MS = 60_000

function environment() {
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C', NO_COLOR: '1', TERM: 'dumb' }
  // A node --test run inside a test would report to this one's runner.
  delete env.NODE_TEST_CONTEXT
  delete env.NODE_OPTIONS
  delete env.FORCE_COLOR
  Object.assign(env, {
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_cache: join(tmpdir(), 'toolclamp-corpus-npm-cache'),
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    PIP_NO_INPUT: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
  })
  return env
}

/** Runs `command` in `cwd` with `sh`, stdout and stderr merged: `{ text, status, signal }`. */
function run(command, cwd, env) {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `exec 2>&1 </dev/null\n${command}`], { cwd, env, stdio: ['ignore', 'pipe', 'ignore'] })
    const chunks = []
    child.stdout.on('data', (chunk) => chunks.push(chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS)
    child.on('close', (status, signal) => {
      clearTimeout(timer)
      resolve({ text: Buffer.concat(chunks).toString('utf8'), status, signal })
    })
    child.on('error', () => {
      clearTimeout(timer)
      resolve({ text: '', status: null, signal: 'spawn failed' })
    })
  })
}

const available = new Map()
async function has(program, env) {
  if (!available.has(program)) {
    available.set(
      program,
      run(`command -v ${sh(program)} >/dev/null`, tmpdir(), env).then((r) => r.status === 0),
    )
  }
  return available.get(program)
}

/** Runs `jobs` (functions returning promises) two at a time, in order of their results' places. */
async function pool(jobs, width = 2) {
  const results = new Array(jobs.length)
  let next = 0
  const worker = async () => {
    while (next < jobs.length) {
      const at = next++
      results[at] = await jobs[at]()
    }
  }
  await Promise.all(Array.from({ length: width }, worker))
  return results
}

function lastLineMatching(text, pattern) {
  const lines = text.split('\n')
  for (let i = lines.length - 1; i >= 0; i--) if (pattern.test(lines[i])) return lines[i]
  return undefined
}

/**
 * Runs every command. Returns `{ failures, successes, prefixes, skipped }`: each failure
 * `{ kind, name, command, output, failureLine, status, signal }` (its output alone), each
 * success `{ kind, name, command, text }`, the listings by name, and `{ name, reason }` for
 * each command that was not taken.
 */
export async function buildCorpus() {
  const env = environment()
  const dir = mkdtempSync(join(tmpdir(), 'toolclamp-corpus-'))
  try {
    for (const [name, text] of Object.entries(FILES)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true })
      writeFileSync(join(dir, name), text)
    }
    const skipped = []
    const skip = (name, reason) => {
      skipped.push({ name, reason })
      return undefined
    }
    const missing = async (needs) => {
      for (const program of needs) if (!(await has(program, env))) return program
      return undefined
    }
    const failureJobs = FAILURES.map(([kind, name, needs, command, pattern]) => async () => {
      const absent = await missing(needs)
      if (absent !== undefined) return skip(name, `${absent} is not installed`)
      const { text, status, signal } = await run(command, dir, env)
      // A warning is taken from a run that succeeded; anything else must have failed.
      if (status === 0 && !/^WARNING/m.test(text)) return skip(name, 'it succeeded here')
      const failureLine = lastLineMatching(text, pattern)
      if (failureLine === undefined) return skip(name, `no line matches ${pattern}: ${JSON.stringify(text.slice(-200))}`)
      return { kind, name, command, output: text, failureLine, status, signal }
    })
    const successJobs = SUCCESSES.map(([kind, name, needs, command]) => async () => {
      const absent = await missing(needs)
      if (absent !== undefined) return skip(name, `${absent} is not installed`)
      const { text, status } = await run(command, dir, env)
      if (status !== 0) return skip(name, `exit status ${status}: ${JSON.stringify(text.slice(-200))}`)
      return { kind, name, command, text }
    })
    const [failures, successes] = await Promise.all([pool(failureJobs, 1), pool(successJobs, 1)])
    const taken = successes.filter(Boolean)
    const prefixes = taken.filter((s) => PREFIXES.includes(s.name))
    return { failures: failures.filter(Boolean), successes: taken, prefixes, skipped }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------
// Measures
// ---------------------------------------------------------------------------------------

const textOf = (result) => (typeof result === 'string' ? result : result.content.map((b) => b.text).join(''))

/** Whether `clamped` holds `line` whole, on a line of its own. */
export function keepsLine(clamped, line) {
  return `\n${clamped}\n`.includes(`\n${line}\n`)
}

/**
 * Every failure after every listing, clamped to BUDGET: by default as a tool result, as an
 * MCP `isError` result, and by a plain head cut. `{ name, kind, prefix, text, failureLine,
 * kept, keptAsError, keptByHead, strategy }` each.
 */
export function measureFailures(corpus) {
  const rows = []
  for (const failure of corpus.failures) {
    for (const prefix of corpus.prefixes) {
      const text = prefix.text + failure.output
      const asResult = hardTruncateToolPayload(text, BUDGET)
      const asError = hardTruncateToolPayload({ content: [{ type: 'text', text }], isError: true }, BUDGET)
      const byHead = hardTruncateToolPayload(text, { ...BUDGET, strategy: 'head' })
      rows.push({
        name: failure.name,
        kind: failure.kind,
        prefix: prefix.name,
        text,
        failureLine: failure.failureLine,
        kept: keepsLine(asResult, failure.failureLine),
        keptAsError: keepsLine(textOf(asError), failure.failureLine),
        keptByHead: keepsLine(byHead, failure.failureLine),
        strategy: truncateText(text, { ...BUDGET, strategy: 'auto' }).strategy,
      })
    }
  }
  return rows
}

/**
 * Each success over BUDGET, clamped by default and by a plain head cut: a false positive is
 * a success whose default clamp differs from the head cut (auto took its end as worth
 * keeping). `{ name, kind, over, misread }` each; `over` false when it fits (nothing to cut).
 */
export function measureSuccesses(corpus) {
  return corpus.successes.map(({ name, kind, text }) => {
    const over = Buffer.byteLength(text) > BUDGET.maxBytes
    const misread = over && hardTruncateToolPayload(text, BUDGET) !== hardTruncateToolPayload(text, { ...BUDGET, strategy: 'head' })
    return { name, kind, over, misread }
  })
}

/** `{ kind: [count, total] }`: the rows with `key` true (all rows without a key), by kind and in 'all'. */
export function rates(rows, key) {
  const by = {}
  for (const row of rows) {
    for (const kind of [row.kind, 'all']) {
      by[kind] ??= [0, 0]
      by[kind][1]++
      if (key === undefined || row[key]) by[kind][0]++
    }
  }
  return by
}

function percent([count, total]) {
  return `${count}/${total} (${total === 0 ? 0 : ((100 * count) / total).toFixed(1)}%)`
}

async function main() {
  const corpus = await buildCorpus()
  const failures = measureFailures(corpus)
  const successes = measureSuccesses(corpus).filter((s) => s.over)
  const kept = rates(failures, 'kept')
  const keptAsError = rates(failures, 'keptAsError')
  const keptByHead = rates(failures, 'keptByHead')
  console.log(`failing commands: ${corpus.failures.length}, listings before them: ${corpus.prefixes.length}, samples: ${failures.length}`)
  console.log('failure line kept under 4 KiB (default / as isError / plain head), by kind:')
  for (const kind of Object.keys(kept)) {
    console.log(
      `  ${kind.padEnd(16)} ${percent(kept[kind]).padEnd(18)} ${percent(keptAsError[kind]).padEnd(18)} ${percent(keptByHead[kind])}`,
    )
  }
  for (const row of failures.filter((r) => !r.kept))
    console.log(`  MISSED: ${row.name} after ${row.prefix}: ${JSON.stringify(row.failureLine)}`)
  console.log(`successful outputs over 4 KiB: ${successes.length}; misread as failures (default clamp differs from head), by kind:`)
  const misread = rates(successes, 'misread')
  for (const kind of Object.keys(misread)) console.log(`  ${kind.padEnd(16)} ${percent(misread[kind])}`)
  for (const row of successes.filter((r) => r.misread)) console.log(`  misread: ${row.name}`)
  for (const { name, reason } of corpus.skipped) console.log(`skipped: ${name}: ${reason}`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
