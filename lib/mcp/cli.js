'use strict'

// `toolclamp mcp`: its help, its arguments, and the proxy's run (bin/toolclamp.js dispatches
// here). Exit status 2 for invalid arguments, as the rest of the CLI.

const { parseMcpArgs, McpUsageError } = require('./options.js')

const USAGE = `Usage: toolclamp mcp [options] -- <server command> [args...]

Runs an MCP server (stdio) as a child and stands between it and the client
(this process's stdin and stdout): every tools/call result is clamped to the
budget, with a notice saying what was cut; everything else passes through
byte for byte, in order. Put it in front of the server's command in any
client's configuration:

  claude mcp add big-files -- npx -y toolclamp mcp -- npx -y @modelcontextprotocol/server-filesystem /path

Budgets of each tool result (any combination):
  --max-bytes <size>     UTF-8 bytes (default 50KiB, with --max-lines 2000)
  --max-lines <size>     lines (alone, it comes with --max-bytes 50KiB)
  --max-chars <size>     UTF-16 code units
  --max-tokens <size>    tokens: estimated (3 UTF-8 bytes a token), or counted
                         with --tokenizer (o200k_base, cl100k_base, an OpenAI
                         model name, or estimate)
  Budgets given replace the default; those not given are lifted. All of a
  result shares one budget: its text blocks (and embedded resource text), its
  structuredContent as compact JSON, its other keys. Images, audio and blobs
  are kept as they are.
  A size is a whole number with an optional binary suffix: 2000, 50k, 1MiB.

  --tool <name>=<size>   the byte budget of one tool's results
  --tool <name>=off      one tool's results pass as they are
  --tool <name>:<key>=<value>
                         one setting of one tool: max-bytes, max-lines,
                         max-chars, max-tokens, strategy, head-ratio. A tool
                         given any budget has only its own budgets.
                         (repeat --tool for more tools or keys)

Where text is kept:
  --strategy <name>      auto (default): the start, and the end too when it
                         reads as a failure; head, tail or head-tail.
                         A result with isError keeps both ends.
  --head-ratio <r>       with head-tail: the start's share, 0 to 1 (0.5)
  --notice <template>    the line put where text was cut (see toolclamp --help)

structuredContent is shortened only in ways a schema allows (shorter arrays
and strings, fewer keys), then checked against the tool's outputSchema (as
tools/list gave it). If it no longer matches, the client gets an isError
result saying the result was too large (and where it is saved), rather than
one its schema check would refuse.

Files:
  --spill-dir <dir>      save what was cut, whole, in a new file in <dir>
                         (mode 0600, never replacing a file); the notice
                         names it, for the client's file tools to read

Messages:
  --max-message <size>   the longest message from the server held in memory
                         (default and most 512MiB); a longer answer to a call
                         gets an isError result instead
  --verbose              log each clamp, and the peak memory at exit, to stderr
  -h, --help             print this help

Lines from the server's stdout that are not JSON-RPC messages (stray prints)
are logged to stderr and dropped. When the server exits or crashes, each
request it did not answer gets a JSON-RPC error and the proxy exits with the
server's exit code; when the client closes stdin, the server (and every
process it started) is stopped and the proxy exits with 0.
`

/** Runs `toolclamp mcp` with `argv` (after `mcp`); resolves to `{ exitNow: code }`. */
async function main(argv, version) {
  let options
  try {
    options = parseMcpArgs(argv)
  } catch (error) {
    if (!(error instanceof McpUsageError)) throw error
    process.stderr.write(`toolclamp mcp: ${error.message}\n`)
    return { exitNow: error.exitCode }
  }
  if (options.help) {
    process.stdout.write(USAGE)
    return 0
  }
  if (options.version) return version()
  const { McpProxy } = require('./proxy.js')
  let proxy
  try {
    proxy = new McpProxy(options)
  } catch (error) {
    // An invalid budget (a tokenizer name, a notice template): the clamp's own message.
    process.stderr.write(`toolclamp mcp: ${error.message}\n`)
    return { exitNow: 2 }
  }
  return { exitNow: await proxy.run() }
}

module.exports = { main, USAGE }
