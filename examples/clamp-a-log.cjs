// Keep the end of a long test log, where the failures and the summary are.
//
//   node examples/clamp-a-log.cjs
//
// Prints the end of the log, after the notice:
// expected: [... 2,672 lines, 304,129 bytes truncated at the start ...]
const { readFileSync } = require('node:fs')
const path = require('node:path')
const { stringTruncateTail } = require('../index.js')

const log = readFileSync(path.join(__dirname, 'test-run.log'), 'utf8')

process.stdout.write(stringTruncateTail(log, { maxBytes: 4 * 1024, maxLines: 60 }))
