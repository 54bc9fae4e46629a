// A pi-agent-core Agent with toolclamp at both ends, offline (pi-ai's faux provider is the
// model, with a 32k-token window):
//
// - at the tool: wrapToolWithHardOutputTruncate bounds what a tool returns (50 KiB and
//   2,000 lines by default), its onUpdate partials and its thrown errors;
// - at the request: toolResultsContextGuard keeps the tool results of every request within
//   shares of the window, and wrapStreamFnWithOverflowRecovery retries a request the
//   provider still refuses as too long with the results cut tighter.
//
//   node examples/pi-agent-core.mjs
import { Agent } from '@mariozechner/pi-agent-core'
import { Type, fauxAssistantMessage, fauxText, fauxToolCall, registerFauxProvider, streamSimple } from '@mariozechner/pi-ai'
import { measureText, wrapToolWithHardOutputTruncate } from 'toolclamp'
import { estimateTokens } from 'toolclamp/conversation'
import { toolResultsContextGuard, wrapStreamFnWithOverflowRecovery } from 'toolclamp/pi'

// A tool that returns a 2.4 MB build log, and one that throws with a 1 MB message.
const log =
  Array.from({ length: 60_000 }, (_, i) => `step ${i + 1}: compiled src/module_${i}.ts\n`).join('') +
  'error: 1 lint warning treated as an error\n'
const readBuildLog = {
  name: 'read_build_log',
  label: 'Read build log',
  description: 'Returns the log of the last CI build',
  parameters: Type.Object({}),
  execute: async () => ({ content: [{ type: 'text', text: log }], details: { bytes: log.length } }),
}
const deploy = {
  name: 'deploy',
  label: 'Deploy',
  description: 'Deploys the last build',
  parameters: Type.Object({}),
  execute: async () => {
    throw new Error(`deploy refused:\n${'  at a stack frame of the deploy tool\n'.repeat(30_000)}`)
  },
}

// The faux model: it calls both tools, then answers; it refuses a request over its window as
// Anthropic does ("prompt is too long").
const faux = registerFauxProvider({ models: [{ id: 'faux-32k', contextWindow: 32_000 }] })
const requests = []
const respond = (context) => {
  const tokens = estimateTokens(JSON.stringify(context.messages.map((m) => m.content)))
  requests.push(tokens)
  if (tokens > 32_000) {
    const error = {
      type: 'error',
      error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > 32000 maximum` },
    }
    return fauxAssistantMessage([], { stopReason: 'error', errorMessage: `400 ${JSON.stringify(error)}` })
  }
  if (!context.messages.some((m) => m.role === 'toolResult')) {
    const calls = [fauxToolCall('read_build_log', {}, { id: 'call_1' }), fauxToolCall('deploy', {}, { id: 'call_2' })]
    return fauxAssistantMessage(calls, { stopReason: 'toolUse' })
  }
  return fauxAssistantMessage(fauxText('The build failed on a lint warning treated as an error; deploy refused it.'))
}
faux.setResponses([respond, respond, respond])

const recovered = []
const agent = new Agent({
  initialState: {
    systemPrompt: 'You investigate CI failures.',
    model: faux.getModel('faux-32k'),
    // Every tool wrapped: results within 50 KiB and 2,000 lines, errors within 4 KiB and 40 lines.
    tools: [readBuildLog, deploy].map((tool) => wrapToolWithHardOutputTruncate(tool)),
  },
  // Before every call: each tool result within 30% of the window, all of them within 50%.
  transformContext: toolResultsContextGuard({ contextWindowTokens: 32_000 }),
  // A call still refused as too long is retried with the tool results cut tighter.
  streamFn: wrapStreamFnWithOverflowRecovery(streamSimple, { onRecovered: ({ attempts }) => recovered.push(attempts.length) }),
})
const runbook = 'When a build fails, read its log before you retry it. '.repeat(1_200) // about 22k tokens
await agent.prompt(`Why did the build fail, and can we deploy? Our runbook:\n${runbook}`)
faux.unregister()

const [, , logResult, deployResult, answer] = agent.state.messages
console.log(measureText(logResult.content[0].text)) // { chars: 51183, bytes: 51183, lines: 1321 } (what the tool returned: within 50 KiB, on whole lines, the lint error at its end kept)
console.log(logResult.details.bytes) // 2437826 (details, which pi never sends to a model, stay as they were)
console.log(deployResult.isError, measureText(deployResult.content[0].text).lines) // true 40 (the thrown error, clamped)
// The requests: the tool calls; the results within their shares of the window, but over it
// with the runbook (refused); the retry, cut tighter.
console.log(requests.join(' ')) // 21629 32064 31320
console.log(recovered) // [ 2 ] (attempts)
console.log(answer.content[0].text) // The build failed on a lint warning treated as an error; deploy refused it.
