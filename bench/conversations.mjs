// Conversation cases: clampToolResultsInMessages against one JSON.stringify of the same
// messages (which any agent pays to send them), and classifyProviderError against one regex
// over the message (the least a hand-written check does). No pure-JS library returns the
// same output to compare with; each result is checked before timing.

import assert from 'node:assert/strict'
import { classifyProviderError, clampToolResultsInMessages } from '../conversation.mjs'
import { formatRatio, formatTime } from './report.mjs'

const WINDOW = 200_000

/** A pi-agent-core conversation: `results` tool results of `resultBytes` each, among `count` messages. */
export function conversation(count, results, resultBytes) {
  const line = (i) => `${String(i).padStart(8, '0')} INFO  [worker-${i % 8}] request handled path=/api/v1/items status=200\n`
  const lines = Math.max(1, Math.round(resultBytes / line(0).length))
  const messages = []
  const every = Math.floor(count / results)
  for (let i = 0; messages.length < count; i++) {
    if (i % every === every - 1 && messages.filter((m) => m.role === 'toolResult').length < results) {
      const id = `call_${i}`
      messages.push({ role: 'assistant', content: [{ type: 'toolCall', id, name: 'bash', arguments: { command: 'cat log' } }] })
      let text = ''
      for (let k = 0; k < lines; k++) text += line(i * lines + k)
      messages.push({
        role: 'toolResult',
        toolCallId: id,
        toolName: 'bash',
        content: [{ type: 'text', text }],
        isError: false,
        timestamp: i,
      })
    } else {
      messages.push({ role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: `turn ${i}: what next?` }] })
    }
  }
  return messages
}

const tokensOf = (text) => Math.ceil(Buffer.byteLength(text) / 3)
const resultTokens = (messages) =>
  messages.filter((m) => m.role === 'toolResult').map((m) => m.content.reduce((sum, b) => sum + tokensOf(b.text ?? ''), 0))

export const CONVERSATION_CASES = [
  {
    label: '2,000 messages, 500 tool results, 200 MB; window 200k tokens',
    make: () => conversation(2000, 500, 400_000),
    options: { contextWindowTokens: WINDOW },
    check(messages, r) {
      assert.equal(r.changed, true)
      assert.equal(r.messages.length, messages.length)
      const after = resultTokens(r.messages)
      assert.ok(
        after.every((t) => t <= WINDOW * 0.3),
        'a result over its share',
      )
      assert.ok(after.reduce((a, b) => a + b) <= WINDOW * 0.5, 'all results over their share')
    },
  },
  {
    label: 'the same, within budget (window 1,000M tokens)',
    make: () => conversation(2000, 500, 400_000),
    options: { contextWindowTokens: 1_000_000_000 },
    check(messages, r) {
      assert.equal(r.messages, messages)
    },
  },
  {
    label: '2,000 messages, 500 tool results of 150 B, within budget',
    make: () => conversation(2000, 500, 150),
    options: { contextWindowTokens: WINDOW },
    check(messages, r) {
      assert.equal(r.messages, messages)
    },
  },
]

/** A 1 KiB provider error of each kind the classifier tells apart. */
export const ERROR_CASES = [
  {
    label: 'OpenAI context_length_exceeded, 1 KiB',
    make: () =>
      Object.assign(
        new Error(
          `400 This model's maximum context length is 128000 tokens. However, your messages resulted in 213462 tokens. Please reduce the length of the messages. ${'x'.repeat(850)}`,
        ),
        { status: 400, code: 'context_length_exceeded' },
      ),
    kind: 'context_overflow',
  },
  {
    label: 'Groq TPM rate limit (413), 1 KiB',
    make: () =>
      Object.assign(
        new Error(
          `Request too large for model llama-3.3-70b in organization org_x service tier on_demand on tokens per minute (TPM): Limit 6000, Requested 21500 ${'y'.repeat(850)}`,
        ),
        { status: 413 },
      ),
    kind: 'rate_limit',
  },
]

/** The least a hand-written check does: one case-insensitive regex over the message. */
const HAND_CHECK = /maximum context length|context_length_exceeded|too large|rate limit|tokens per minute/i

/** Checks and times the conversation cases with `timeCase`; returns their table. */
export async function runConversationCases({ timeCase, benchOptions, quick }) {
  const rows = []
  for (const c of CONVERSATION_CASES) {
    const messages = c.make()
    try {
      c.check(messages, clampToolResultsInMessages(messages, c.options))
    } catch (error) {
      // Not timed: the result is wrong. The messages are too large to print.
      throw new Error(`conversation ${c.label}: ${error.message}`)
    }
    process.stderr.write(`timing conversation ${c.label}…\n`)
    const bytes = JSON.stringify(messages).length
    const medians = await timeCase(
      {
        impls: {
          toolclamp: (m) => clampToolResultsInMessages(m, c.options),
          stringify: (m) => JSON.stringify(m),
        },
      },
      messages,
      bytes,
      quick ? benchOptions(0) : { time: 6000, warmupTime: 500, iterations: 6, warmupIterations: 2 },
    )
    rows.push([c.label, formatTime(medians.toolclamp), formatTime(medians.stringify), formatRatio(medians.toolclamp, medians.stringify)])
  }
  return {
    title: 'Clamping the tool results of a conversation, against one `JSON.stringify` of it',
    code: '`clampToolResultsInMessages(messages, { contextWindowTokens })`',
    about:
      'pi-agent-core messages; each result is checked: every tool result within 30% of the window and all within 50%, or the very same array back when nothing needs cutting',
    columns: ['input', 'toolclamp', 'JSON.stringify', 'ratio vs JSON.stringify'],
    rows,
    headline: true,
  }
}

/** Checks and times classifyProviderError on each error kind; returns its table. */
export async function runErrorCases({ timeCase }) {
  const rows = []
  for (const c of ERROR_CASES) {
    const error = c.make()
    assert.equal(classifyProviderError(error).kind, c.kind)
    assert.ok(HAND_CHECK.test(error.message), c.label)
    process.stderr.write(`timing ${c.label}…\n`)
    const medians = await timeCase(
      { impls: { toolclamp: (e) => classifyProviderError(e), regex: (e) => HAND_CHECK.test(e.message) } },
      error,
      1024,
    )
    rows.push([c.label, formatTime(medians.toolclamp), formatTime(medians.regex), formatRatio(medians.toolclamp, medians.regex)])
  }
  return {
    title: 'Telling a provider error apart, against one regex over its message',
    code: '`classifyProviderError(error)`',
    about: 'each error is checked to be classified as its kind',
    columns: ['input', 'classifyProviderError', 'one regex', 'ratio vs one regex'],
    rows,
  }
}
