// The .d.ts files (index.d.ts and each subpath's) document every option's default where a hover
// shows it: each optional property of an options type carries one `@default` tag, or says in its
// JSDoc that it is required or has no default. And a handful of the documented defaults are the
// ones the code applies.

import { test, describe } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import ts from 'typescript'

import {
  clampJson,
  formatExecOutput,
  hardTruncateToolError,
  hardTruncateToolPayload,
  measureText,
  readPartial,
  stringTruncateHead,
  stringTruncateHeadTail,
  truncateText,
} from '../index.mjs'
import { clampToolResultsInMessages, withContextOverflowRecovery } from '../conversation.mjs'
import { formatPythonResult, TOOL_OUTPUT_PRESETS, truncateToolOutput } from '../presets.mjs'

// The root's types and each subpath's: every entry declares its own options types.
const DTS_FILES = ['index.d.ts', 'conversation.d.ts', 'ai-sdk.d.ts', 'pi.d.ts', 'presets.d.ts']
const sources = DTS_FILES.map((file) =>
  ts.createSourceFile(file, readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'), ts.ScriptTarget.Latest, true),
)

// Exported types that are results or data a caller hands in as it is, not options: their
// optional properties are facts that may be absent, with no default to document.
const NOT_OPTIONS = new Set([
  'RunCommandUpdate',
  'RunCommandResult',
  'NoticeFacts',
  'SpillReport',
  'TruncateTextResult',
  'TokenCounts',
  'TextMeasure',
  'JsonElision',
  'ClampJsonResult',
  'ClampJsonTextResult',
  'ProviderErrorClass',
  'ClampedToolResult',
  'ClampMessagesResult',
  'OverflowAttempt',
  'RepairReport',
  'TextBlock',
  'EmbeddedTextResourceBlock',
  'MediaBlock',
  'ToolResultWithContent',
  'ToolResultOutput',
  'FunctionCallOutputItem',
  'ToolPayload',
  'ExecutableTool',
  'ResolvedToolOutputLimit',
  'ToolOutputEnvelope',
  'ToolOutputPreset',
  'PythonRunResult',
  'ExecResult',
  'ExecNoticeFacts',
  'FormatExecOutputResult',
  'ResolvedToolProfile',
  'TruncateToolOutputResult',
  'PartialView',
])

const isExported = (node) => node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false

/** The exported interfaces and type aliases of every entry, by name (each declared once). */
const declarations = new Map()
for (const source of sources) {
  for (const statement of source.statements) {
    if ((ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) && isExported(statement)) {
      const name = statement.name.text
      assert.ok(
        !declarations.has(name),
        `${name} is declared in ${declarations.get(name)?.getSourceFile().fileName} and ${source.fileName}`,
      )
      declarations.set(name, statement)
    }
  }
}

/** The JSDoc comments right before `node`, as written. */
function docOf(node) {
  const text = node.getSourceFile().getFullText()
  return (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [])
    .map((range) => text.slice(range.pos, range.end))
    .filter((comment) => comment.startsWith('/**'))
    .join('\n')
}

/**
 * The property signatures of a declaration: an interface's members, and those of the object
 * types written inside them (`spill?: SpillOptions & { onSpill?: ... }`), but not of a
 * callback's parameters. `path` names each as `Interface.key.key`.
 */
function propertiesOf(declaration) {
  const found = []
  const visitType = (node, path) => {
    if (node === undefined || ts.isFunctionTypeNode(node)) return
    if (ts.isTypeLiteralNode(node)) {
      visitMembers(node.members, path)
      return
    }
    if (ts.isUnionTypeNode(node) || ts.isIntersectionTypeNode(node)) node.types.forEach((t) => visitType(t, path))
    else if (ts.isParenthesizedTypeNode(node)) visitType(node.type, path)
  }
  const visitMembers = (members, path) => {
    for (const member of members) {
      if (!ts.isPropertySignature(member)) continue
      const name = `${path}.${member.name.getText()}`
      found.push({ name, member })
      visitType(member.type, name)
    }
  }
  if (ts.isInterfaceDeclaration(declaration)) visitMembers(declaration.members, declaration.name.text)
  else visitType(declaration.type, declaration.name.text)
  return found
}

const optionDeclarations = [...declarations.values()].filter((d) => !NOT_OPTIONS.has(d.name.text))

/** The text of the `@default` tag of `Type.key`. */
function documented(type, key) {
  const declaration = declarations.get(type)
  assert.ok(declaration, `${type} is declared`)
  const property = propertiesOf(declaration).find((p) => p.name === `${type}.${key}`)
  assert.ok(property, `${type}.${key} is declared`)
  const match = /@default[ \t]+(.*?)[ \t]*(?:\*\/|\n)/.exec(docOf(property.member))
  assert.ok(match, `${type}.${key} has a @default tag`)
  return match[1]
}

/** A documented default as a value: a number, or the first quoted string of the tag. */
function documentedValue(type, key) {
  const text = documented(type, key)
  const quoted = /^'((?:[^'\\]|\\.)*)'/.exec(text)
  if (quoted) return quoted[1]
  const number = /^(\d+(?:\.\d+)?|Infinity)\b/.exec(text)
  assert.ok(number, `${type}.${key}: a number or a quoted string in "@default ${text}"`)
  return Number(number[1])
}

describe('the .d.ts files document the default of every option', () => {
  test('every optional property of an options type has one @default tag, or says it is required or has no default', () => {
    const missing = []
    const doubled = []
    for (const declaration of optionDeclarations) {
      for (const { name, member } of propertiesOf(declaration)) {
        const doc = docOf(member)
        const tags = doc.match(/@default\b/g)?.length ?? 0
        if (tags > 1) doubled.push(name)
        if (member.questionToken === undefined) continue
        if (tags === 0 && !/\brequired\b|\bno default\b/i.test(doc)) missing.push(name)
      }
    }
    assert.deepEqual(missing, [], 'optional properties with neither @default nor "required" / "no default"')
    assert.deepEqual(doubled, [], 'properties with more than one @default tag')
  })

  test('the options types checked include every one the issue names', () => {
    const checked = new Set(optionDeclarations.map((d) => d.name.text))
    for (const name of [
      'Limits',
      'NoticeOptions',
      'HeadTailOptions',
      'TruncateTextOptions',
      'SpillOptions',
      'ClampJsonOptions',
      'PayloadLimits',
      'ToolErrorLimits',
      'ToolProfile',
      'TruncateToolOutputOptions',
      'FormatExecOutputOptions',
      'ToolOutputEnvelopeOptions',
      'ResolveToolOutputLimitOptions',
      'ToolOutputConfig',
      'PythonResultOptions',
      'ReadPartialOptions',
      'ClampMessagesOptions',
      'OverflowRecoveryOptions',
      'GuardOptions',
      'RecoveryHooks',
      'StreamRecoveryOptions',
      'RepairOptions',
    ]) {
      assert.ok(checked.has(name), `${name} is checked`)
    }
    // The list of results and data names only types that exist.
    for (const name of NOT_OPTIONS) assert.ok(declarations.has(name), `${name} (NOT_OPTIONS) is declared`)
  })

  test('no "Default X." prose is left where a @default tag belongs', () => {
    const prose = []
    for (const declaration of optionDeclarations) {
      for (const { name, member } of propertiesOf(declaration)) {
        if (/(?<!@)\bDefault\b[ :]/.test(docOf(member))) prose.push(name)
      }
    }
    assert.deepEqual(prose, [])
  })
})

describe('documented defaults are the ones applied', () => {
  const lines = (count, width = 5) => Array.from({ length: count }, (_, i) => String(i).padEnd(width, 'x')).join('\n') + '\n'

  test('tool payloads: maxBytes and maxLines (PayloadLimits)', () => {
    assert.equal(measureText(hardTruncateToolPayload('y'.repeat(200_000))).bytes, documentedValue('PayloadLimits', 'maxBytes'))
    assert.equal(measureText(hardTruncateToolPayload(lines(5000))).lines, documentedValue('PayloadLimits', 'maxLines'))
  })

  test('tool errors: maxBytes and maxLines (ToolErrorLimits)', () => {
    assert.equal(
      measureText(hardTruncateToolError(new Error('y'.repeat(20_000))).message).bytes,
      documentedValue('ToolErrorLimits', 'maxBytes'),
    )
    assert.equal(measureText(hardTruncateToolError(new Error(lines(500))).message).lines, documentedValue('ToolErrorLimits', 'maxLines'))
    // A budget given keeps the other error default.
    assert.equal(
      measureText(hardTruncateToolError(new Error('y'.repeat(20_000)), { maxLines: 5 }).message).bytes,
      documentedValue('ToolErrorLimits', 'maxBytes'),
    )
  })

  test('clampJson: maxBytes and maxLines (ClampJsonOptions)', () => {
    assert.equal(clampJson({ a: 'q'.repeat(100_000) }).outputBytes, documentedValue('ClampJsonOptions', 'maxBytes'))
    const { value } = clampJson(
      Array.from({ length: 5000 }, (_, i) => i),
      { space: 2 },
    )
    assert.equal(measureText(JSON.stringify(value, null, 2)).lines, documentedValue('ClampJsonOptions', 'maxLines'))
  })

  test('readPartial: maxBytes, maxLines, offset, column (ReadPartialOptions)', () => {
    // The budgets hold for the page and its banner line together.
    assert.equal(measureText(readPartial('y'.repeat(200_000)).text).bytes, documentedValue('ReadPartialOptions', 'maxBytes'))
    const view = readPartial(lines(5000))
    assert.equal(measureText(view.text).lines, documentedValue('ReadPartialOptions', 'maxLines'))
    assert.equal(view.offset, documentedValue('ReadPartialOptions', 'offset'))
    assert.equal(view.column, documentedValue('ReadPartialOptions', 'column'))
  })

  test('formatExecOutput: 8,000 chars a stream, its end kept (FormatExecOutputOptions)', () => {
    const { stdout, stderr } = formatExecOutput({ stdout: 'y'.repeat(20_000), stderr: 'z'.repeat(20_000) })
    assert.equal(stdout.outputChars, documentedValue('FormatExecOutputOptions', 'stdout'))
    assert.equal(stderr.outputChars, documentedValue('FormatExecOutputOptions', 'stderr'))
    assert.equal(stdout.strategy, documentedValue('FormatExecOutputOptions', 'strategy'))
  })

  test('Python results: 8,000 chars of output, 16,000 in all (PythonResultOptions)', () => {
    const heading = 'Print output: (none)\n\nResult:\n'.length
    assert.equal(
      formatPythonResult({ printOutput: [], output: 'y'.repeat(20_000) }, { tags: false }).length - heading,
      documentedValue('PythonResultOptions', 'maxOutputChars'),
    )
    const both = formatPythonResult({ printOutput: ['p'.repeat(20_000)], output: 'y'.repeat(20_000) })
    assert.equal(both.length, documentedValue('PythonResultOptions', 'maxTotalChars'))
  })

  test('clampToolResultsInMessages: results share 0.3 and 0.5 of the window (ClampMessagesOptions)', () => {
    const result = (id, text) => ({ role: 'toolResult', toolCallId: id, toolName: 'bash', content: [{ type: 'text', text }] })
    const window = 10_000
    const one = clampToolResultsInMessages([result('a', 'x'.repeat(100_000))], { contextWindowTokens: window })
    assert.equal(one.tokensAfter, Math.floor(window * documentedValue('ClampMessagesOptions', 'resultShare')))
    // Three results under 0.3 each, 0.84 of the window together.
    const three = clampToolResultsInMessages(
      ['a', 'b', 'c'].map((id) => result(id, id.repeat(8400))),
      { contextWindowTokens: window },
    )
    assert.equal(three.tokensAfter, Math.floor(window * documentedValue('ClampMessagesOptions', 'aggregateShare')))
    // The newest is protected.
    assert.equal(three.results.at(-1).action, 'kept')
    assert.equal(documentedValue('ClampMessagesOptions', 'protectRecent'), 1)
  })

  test('withContextOverflowRecovery: 3 calls in all (OverflowRecoveryOptions, RecoveryHooks)', async () => {
    let calls = 0
    const messages = [{ role: 'toolResult', toolCallId: 'a', toolName: 'bash', content: [{ type: 'text', text: 'x\n'.repeat(100_000) }] }]
    const send = () => {
      calls++
      throw new Error('prompt is too long')
    }
    await assert.rejects(withContextOverflowRecovery(send, { messages, contextWindowTokens: 200_000 }), /too long/)
    assert.equal(calls, documentedValue('RecoveryHooks', 'maxAttempts'))
    assert.equal(documentedValue('OverflowRecoveryOptions', 'maxAttempts'), calls)
  })

  test('the profiles of TOOL_OUTPUT_PRESETS are the ones ToolProfile documents', () => {
    const profiles = ['read_file', 'run_command', 'list_directory', 'search_files', 'default'].map((name) => [
      name,
      TOOL_OUTPUT_PRESETS[name],
    ])
    for (const key of ['maxChars', 'maxLines']) {
      const tag = documented('ToolProfile', key)
      for (const [name, profile] of profiles) {
        if (name === 'default') assert.ok(tag.startsWith(`${profile[key]} `), `ToolProfile.${key}: ${tag}`)
        else assert.ok(tag.includes(`\`${name}\` ${profile[key]}`), `ToolProfile.${key} names ${name}'s ${profile[key]}: ${tag}`)
      }
    }
  })

  // Passing the documented default explicitly changes nothing; the other value does, so the
  // input tells the two apart.
  const same = [
    // [what, type, key, call with options, another value]
    [
      'truncateText strategy',
      'TruncateTextOptions',
      'strategy',
      (o) => truncateText(lines(300) + 'error: boom\n', { maxLines: 20, ...o }).text,
      'auto',
    ],
    ['truncateText snap', 'TruncateTextOptions', 'snap', (o) => truncateText(lines(100, 9), { maxChars: 96, ...o }).text, 'line'],
    [
      'truncateText headRatio',
      'TruncateTextOptions',
      'headRatio',
      (o) => truncateText('y'.repeat(10_000), { maxChars: 1000, strategy: 'headTail', ...o }).text,
      0.3,
    ],
    [
      'truncateText notice',
      'TruncateTextOptions',
      'notice',
      (o) => truncateText(lines(100, 9), { maxChars: 96, ...o }).text,
      '[{omitted}]',
    ],
    ['stringTruncateHead notice', 'NoticeOptions', 'notice', (o) => stringTruncateHead(lines(100, 9), 96, o), '[{omitted}]'],
    ['stringTruncateHead snap', 'NoticeOptions', 'snap', (o) => stringTruncateHead(lines(100, 9), 96, o), 'line'],
    ['stringTruncateHeadTail notice', 'HeadTailOptions', 'notice', (o) => stringTruncateHeadTail(lines(100, 9), 96, o), '[{omitted}]'],
    ['stringTruncateHeadTail headRatio', 'HeadTailOptions', 'headRatio', (o) => stringTruncateHeadTail('y'.repeat(10_000), 1000, o), 0.3],
    [
      'hardTruncateToolPayload snap',
      'PayloadLimits',
      'snap',
      (o) => hardTruncateToolPayload(lines(100, 9), { maxChars: 96, ...o }),
      'none',
    ],
    [
      'hardTruncateToolPayload strategy',
      'PayloadLimits',
      'strategy',
      (o) => hardTruncateToolPayload(lines(100, 9), { maxChars: 96, ...o }),
      'tail',
    ],
    [
      'hardTruncateToolPayload notice',
      'PayloadLimits',
      'notice',
      (o) => hardTruncateToolPayload(lines(100, 9), { maxChars: 96, ...o }),
      '[{omitted}]',
    ],
    [
      'hardTruncateToolError strategy',
      'ToolErrorLimits',
      'strategy',
      (o) => hardTruncateToolError(new Error(lines(300)), o).message,
      'head',
    ],
    [
      'hardTruncateToolError headRatio',
      'ToolErrorLimits',
      'headRatio',
      (o) => hardTruncateToolError(new Error(lines(300)), o).message,
      0.5,
    ],
    [
      'hardTruncateToolPayload responseFormat',
      'PayloadLimits',
      'responseFormat',
      (o) => hardTruncateToolPayload([lines(100, 9), 'artifact'], { maxChars: 96, ...o }),
      'content_and_artifact',
    ],
    [
      'clampJson strategy',
      'ClampJsonOptions',
      'strategy',
      (o) =>
        clampJson(
          Array.from({ length: 100 }, (_, i) => i),
          { maxBytes: 60, ...o },
        ).value,
      'tail',
    ],
    [
      'clampJson markers',
      'ClampJsonOptions',
      'markers',
      (o) =>
        clampJson(
          Array.from({ length: 100 }, (_, i) => i),
          { maxBytes: 60, ...o },
        ).value,
      'none',
    ],
    [
      'clampJson space',
      'ClampJsonOptions',
      'space',
      (o) =>
        clampJson(
          Array.from({ length: 100 }, (_, i) => i),
          { maxBytes: 60, ...o },
        ).value,
      2,
    ],
    [
      'formatExecOutput snap',
      'FormatExecOutputOptions',
      'snap',
      (o) => formatExecOutput({ stdout: lines(100, 9) }, { stdout: 96, ...o }).text,
      'none',
    ],
    [
      'formatExecOutput notice',
      'FormatExecOutputOptions',
      'notice',
      (o) => formatExecOutput({ stdout: lines(100, 9) }, { stdout: 96, ...o }).text,
      '[{omitted}]',
    ],
    [
      'formatPythonResult snap',
      'PythonResultOptions',
      'snap',
      (o) => formatPythonResult({ printOutput: [lines(100)] }, { maxPrintChars: 150, tags: false, ...o }),
      'none',
    ],
    [
      'truncateToolOutput headRatio',
      'TruncateToolOutputOptions',
      'headRatio',
      (o) => truncateToolOutput('run_command', lines(1000), o).text,
      0.5,
    ],
    [
      'truncateToolOutput notice',
      'TruncateToolOutputOptions',
      'notice',
      (o) => truncateToolOutput('run_command', lines(1000), o).text,
      '[{omitted}]',
    ],
    ['clampToolResultsInMessages strategy', 'ClampMessagesOptions', 'strategy', (o) => clampMessagesText(o), 'head'],
    ['clampToolResultsInMessages snap', 'ClampMessagesOptions', 'snap', (o) => clampMessagesText(o), 'none'],
  ]

  function clampMessagesText(options) {
    const text = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n') + '\nError: boom\n'
    const message = { role: 'toolResult', toolCallId: 'a', toolName: 'bash', content: [{ type: 'text', text }] }
    return clampToolResultsInMessages([message], { contextWindowTokens: 3000, ...options }).messages[0].content[0].text
  }

  for (const [what, type, key, call, other] of same) {
    test(`${what}: ${type}.${key}`, () => {
      const value = documentedValue(type, key)
      assert.deepEqual(call({ [key]: value }), call({}))
      assert.notDeepEqual(call({ [key]: other }), call({}), `${other} differs from the default on this input`)
    })
  }
})
