// An MCP client that clamps what servers return before a model reads it. Servers you do not
// control may answer a call with megabytes; hardTruncateToolPayload keeps a CallToolResult's
// text within 50 KiB and 2,000 lines (all text blocks under one budget), leaves images and
// other media as they are, and shortens structuredContent so it still matches the outputSchema.
//
//   node examples/mcp-client.mjs
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { z } from 'zod'
import { hardTruncateToolPayload, measureText } from 'toolclamp'

// A server that does not clamp (in memory here; the client is the same over stdio or HTTP).
const server = new McpServer({ name: 'workspace', version: '1.0.0' })
const screenshot = Buffer.alloc(300_000, 7).toString('base64')
server.registerTool('search', { description: 'Searches the code', inputSchema: { query: z.string() } }, async ({ query }) => ({
  content: [
    { type: 'text', text: `${query}: src/app.ts:12\n`.repeat(100_000) },
    { type: 'image', data: screenshot, mimeType: 'image/png' },
    { type: 'text', text: 'search finished: 100,000 matches\n' },
  ],
}))
const outputSchema = { rows: z.array(z.object({ id: z.number(), status: z.string() })) }
server.registerTool('list_jobs', { description: 'Lists CI jobs', outputSchema }, async () => {
  const rows = Array.from({ length: 100_000 }, (_, id) => ({ id, status: id % 7 ? 'passed' : 'failed' }))
  return { content: [{ type: 'text', text: JSON.stringify({ rows }) }], structuredContent: { rows } }
})
const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
await server.connect(serverSide)

// The client: every result goes through the clamp on its way to the model.
const client = new Client({ name: 'agent', version: '1.0.0' })
await client.connect(clientSide)
const callTool = async (params) => hardTruncateToolPayload(await client.callTool(params))

const search = await callTool({ name: 'search', arguments: { query: 'TODO' } })
const texts = search.content.filter((block) => block.type === 'text').map((block) => block.text)
console.log(search.content.map((block) => block.type).join(' ')) // text image text
console.log(measureText(texts.join(''))) // { chars: 40040, bytes: 40040, lines: 2000 } (the text blocks share one budget)
console.log(texts[0].split('\n').at(-1)) // [... 98,002 lines, 1,960,053 bytes truncated at the end ...]
console.log(search.content[1].data === screenshot) // true (the image as it was)

const jobs = await callTool({ name: 'list_jobs', arguments: {} }) // checked against outputSchema by the client first
console.log(jobs.structuredContent.rows.length, JSON.parse(jobs.content[0].text).rows.length) // 877 877 (the JSON text block says the same, and still parses)
console.log(jobs.content.at(-1).text) // [structuredContent shortened to 25,333 of 3,088,900 bytes: $.rows: 877 of 100,000 items]
await client.close()
