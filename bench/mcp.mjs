// The MCP proxy: what `toolclamp mcp` adds to a small tool call, and what it does with a big
// result, against the same raw JSON-RPC client talking to the same server directly (the test
// fixture __test__/fixtures/mcp-raw-server.mjs, which answers `big` with that many MiB of log
// lines). The client reads answers as a linear line reader; each big row is a fresh proxy, whose
// peak RSS is the one it reports with --verbose.

import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { formatRatio } from './report.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const SERVER = path.join(ROOT, '__test__/fixtures/mcp-raw-server.mjs')
const BIN = path.join(ROOT, 'bin/toolclamp.js')
const INITIALIZE = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } }

/** A server, direct or behind the proxy, driven by JSON-RPC lines. */
function connect(proxied) {
  const args = proxied ? [BIN, 'mcp', '--verbose', '--', process.execPath, SERVER] : [SERVER]
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  // Lines cut from chunks linearly: a big answer costs one join.
  let parts = []
  const waiting = []
  child.stdout.on('data', (chunk) => {
    let start = 0
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
      parts.push(chunk.subarray(start, at))
      const line = parts.length === 1 ? parts[0] : Buffer.concat(parts)
      parts = []
      start = at + 1
      waiting.shift()(line)
    }
    if (start < chunk.length) parts.push(chunk.subarray(start))
  })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  let id = 0
  return {
    /** Sends a request; resolves to its answer's line, as bytes. */
    request(method, params) {
      return new Promise((resolve) => {
        waiting.push(resolve)
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })}\n`)
      })
    },
    async close() {
      child.stdin.end()
      await exited
      const peak = /peak RSS (\d+) MiB/.exec(stderr)
      return peak === null ? undefined : Number(peak[1])
    },
  }
}

async function session(proxied, run) {
  const connection = connect(proxied)
  await connection.request('initialize', INITIALIZE)
  await connection.request('tools/list', {})
  const result = await run(connection)
  const peakMiB = await connection.close()
  return { ...result, peakMiB }
}

/** Milliseconds per call of `calls` small tool calls in a row, the better of two rounds. */
async function smallCalls(proxied, calls) {
  return session(proxied, async (connection) => {
    let best = Infinity
    for (let round = 0; round < 2; round++) {
      const started = performance.now()
      for (let k = 0; k < calls; k++) await connection.request('tools/call', { name: 'echo', arguments: { message: 'hello' } })
      best = Math.min(best, (performance.now() - started) / calls)
    }
    return { ms: best }
  })
}

/** One call answered with `mib` MiB: its time, what came back, and the proxy's peak RSS. */
export async function bigCall(proxied, mib) {
  return session(proxied, async (connection) => {
    const started = performance.now()
    const line = await connection.request('tools/call', { name: 'big', arguments: { mib } })
    return { ms: performance.now() - started, bytes: line.length }
  })
}

export async function runMcpCases({ quick }) {
  const table = {
    title: 'The MCP proxy, against the same client talking to the server directly',
    headline: true,
    code: '`toolclamp mcp -- node server.mjs`',
    about:
      'a raw JSON-RPC client over stdio; small calls in a row (per call), and one call answered with a result of log lines ' +
      '(request to answer read); peak RSS is the proxy’s own',
    columns: ['case', 'toolclamp mcp', 'direct', 'added', 'ratio vs direct', 'answer', 'proxy peak RSS'],
    rows: [],
  }
  const calls = quick ? 300 : 3000
  const direct = await smallCalls(false, calls)
  const proxied = await smallCalls(true, calls)
  table.rows.push([
    'a small tools/call (per call)',
    `${(proxied.ms * 1000).toFixed(0)} µs`,
    `${(direct.ms * 1000).toFixed(0)} µs`,
    `${((proxied.ms - direct.ms) * 1000).toFixed(0)} µs`,
    formatRatio(proxied.ms, direct.ms),
    'unchanged',
    `${proxied.peakMiB} MiB`,
  ])
  for (const mib of quick ? [50] : [30, 50, 100]) {
    const directBig = await bigCall(false, mib)
    const proxiedBig = await bigCall(true, mib)
    assert.ok(proxiedBig.bytes < 60_000, `the answer is clamped: ${proxiedBig.bytes} bytes`)
    table.rows.push([
      `a ${mib} MiB result`,
      `${proxiedBig.ms.toFixed(0)} ms`,
      `${directBig.ms.toFixed(0)} ms`,
      `${(proxiedBig.ms - directBig.ms).toFixed(0)} ms`,
      formatRatio(proxiedBig.ms, directBig.ms),
      `${(directBig.bytes / 1e6).toFixed(1)} MB → ${(proxiedBig.bytes / 1000).toFixed(1)} kB`,
      `${proxiedBig.peakMiB} MiB`,
    ])
  }
  return table
}
