// Clamp a long test log to 4 KiB / 60 lines, keeping both ends: the start shows what ran,
// the end holds the failures and the summary.
//
//   node examples/clamp-a-log.mjs
//
// Prints the clamped log, the cut marked where it was made:
// expected: [... 2,672 lines, 304,368 bytes truncated in the middle ...]
import { readFileSync } from 'node:fs'
import { truncateText } from '../index.mjs'

const log = readFileSync(new URL('./test-run.log', import.meta.url), 'utf8')

const { text, ...info } = truncateText(log, {
  maxBytes: 4 * 1024,
  maxLines: 60,
  strategy: 'headTail',
  headRatio: 0.3,
})

process.stdout.write(text)

// What was cut, on stderr so the clamped text above stays clean to pipe.
// log.slice(info.headEnd, info.tailStart) is exactly the dropped part.
console.error('\n---')
for (const [field, value] of Object.entries(info)) {
  console.error(`${field.padEnd(14)} ${JSON.stringify(value)}`)
}
