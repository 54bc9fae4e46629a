// A node:test reporter for scripts/release/suite.mjs: one JSON line per test that ended, with
// its file, so a run that ends early still tells what ran, what failed and which files never
// reported anything.
export default async function* fileReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const { name, file, skip, todo, details } = event.data
    const result = event.type === 'test:fail' ? 'fail' : skip !== undefined || todo !== undefined ? 'skip' : 'pass'
    yield `${JSON.stringify({ result, name, file, suite: details?.type === 'suite' })}\n`
  }
}
