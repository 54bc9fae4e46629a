// Keep the end of a long test log, where the failures and the summary are.
//
//   node examples/clamp-a-log.cjs
const { readFileSync } = require('node:fs')
const path = require('node:path')
const { stringTruncateTail } = require('../index.js')

const log = readFileSync(path.join(__dirname, 'test-run.log'), 'utf8')

process.stdout.write(stringTruncateTail(log, { maxBytes: 4 * 1024, maxLines: 60 }))
