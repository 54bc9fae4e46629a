// An MCP server whose tool results are clamped before they leave it: every handler's result goes
// through hardTruncateToolPayload, so whatever client and model read it get at most 50 KiB and
// 2,000 lines of text, and structuredContent that still matches the tool's outputSchema.
//
//   node examples/mcp-server.mjs           connects a client in memory and calls both tools
//   node examples/mcp-server.mjs --stdio   serves over stdio, for any MCP client
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { z } from 'zod'
import { hardTruncateToolPayload, measureText } from 'toolclamp'

/** A tool handler whose result is clamped (default budget: 51,200 bytes and 2,000 lines). */
const clamped =
  (handler) =>
  async (...args) =>
    hardTruncateToolPayload(await handler(...args))

const server = new McpServer({ name: 'ci', version: '1.0.0' })

// Text: a 2.4 MB build log.
server.registerTool(
  'read_build_log',
  { description: 'Returns the log of the last CI build' },
  clamped(async () => {
    const log = Array.from({ length: 60_000 }, (_, i) => `step ${i + 1}: compiled src/module_${i}.ts\n`).join('')
    return { content: [{ type: 'text', text: log }] }
  }),
)

// Structured: 200,000 lint problems, as structuredContent and as its JSON text (the MCP
// convention). The clamp keeps both within one budget and the outputSchema valid.
const outputSchema = { total: z.number(), problems: z.array(z.string()) }
server.registerTool(
  'lint',
  { description: 'Lints the workspace', outputSchema },
  clamped(async () => {
    const report = { total: 200_000, problems: Array.from({ length: 200_000 }, (_, i) => `src/m${i}.ts: unused import`) }
    return { content: [{ type: 'text', text: JSON.stringify(report) }], structuredContent: report }
  }),
)

if (process.argv.includes('--stdio')) {
  await server.connect(new StdioServerTransport())
} else {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'agent', version: '1.0.0' })
  await client.connect(clientSide)
  console.log((await client.listTools()).tools.map((t) => t.name).join(' ')) // read_build_log lint

  const log = await client.callTool({ name: 'read_build_log', arguments: {} })
  console.log(measureText(log.content[0].text)) // { chars: 51195, bytes: 51195, lines: 1369 }
  console.log(log.content[0].text.split('\n').at(-1)) // [... 58,632 lines, 2,386,649 bytes truncated at the end ...]

  const lint = await client.callTool({ name: 'lint', arguments: {} }) // validated against outputSchema by the client
  console.log(lint.structuredContent.total, lint.structuredContent.problems.length) // 200000 876
  console.log(JSON.parse(lint.content[0].text).problems.length) // 876 (the JSON text says the same, and still parses)
  console.log(lint.content[1].text) // [structuredContent shortened to 25,323 of 6,288,919 bytes: $.problems: 876 of 200,000 items]
  await client.close()
}
