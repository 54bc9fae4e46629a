// The four names the package is known by, at the root, from an ES module: type-checked with the other
// type tests, and compiled and run by surface.test.mjs. Each name that moved to a subpath is
// an error at the root (left unused, so the compiled file does not import it).
import assert from 'node:assert/strict'
import { hardTruncateToolPayload, stringTruncateHeadTail, stringTruncateTail, wrapOnUpdate } from 'toolclamp'
// @ts-expect-error moved to toolclamp/conversation: the root keeps no alias
import { clampToolResultsInMessages } from 'toolclamp'
// @ts-expect-error moved to toolclamp/ai-sdk
import { toolResultsMiddleware } from 'toolclamp'
// @ts-expect-error moved to toolclamp/pi
import { repairSessionFile } from 'toolclamp'
// @ts-expect-error moved to toolclamp/presets
import { truncateToolOutput } from 'toolclamp'

const text = 'abcdefghij'.repeat(10)
const tail: string = stringTruncateTail(text, 30)
const ends: string = stringTruncateHeadTail(text, { maxChars: 40 })
assert.equal(tail, '[... truncated ...]\nabcdefghij')
assert.equal(ends, 'abcdefghi [... truncated ...]\nabcdefghij')

type Result = { content: { type: 'text'; text: string }[] }
const result: Result = { content: [{ type: 'text', text: 'line\n'.repeat(100) }] }
const clamped: Result = hardTruncateToolPayload(result, { maxLines: 3 })
assert.equal(clamped.content[0]!.text, 'line\nline\n[... 98 lines truncated at the end ...]')

const seen: Result[] = []
const onUpdate = wrapOnUpdate((partial: Result) => void seen.push(partial), { maxLines: 3 })
onUpdate(result)
assert.deepEqual(seen, [clamped])
const none: undefined = wrapOnUpdate(undefined)
assert.equal(none, undefined)

console.log('esm ok')
