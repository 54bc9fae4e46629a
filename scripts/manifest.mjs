// Packing: the published manifest carries no lifecycle script. `prepare` builds from source
// in a clone; installed from the registry it would never run, yet npm lists it among the
// install scripts a user must approve. `strip` (prepack) sets the lifecycle scripts aside
// in package.json; `restore` (postpack) puts package.json back byte for byte.
import { readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const file = fileURLToPath(new URL('../package.json', import.meta.url))
const saved = `${file}.prepack`
const LIFECYCLE = ['preinstall', 'install', 'postinstall', 'prepare', 'prepublishOnly', 'prepack', 'postpack']

const mode = process.argv[2]
if (mode === 'strip') {
  const text = readFileSync(file, 'utf8')
  // A leftover from a pack that died between the two steps is the original: keep it.
  if (!existsSync(saved)) writeFileSync(saved, text)
  const manifest = JSON.parse(text)
  for (const name of LIFECYCLE) delete manifest.scripts?.[name]
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
} else if (mode === 'restore') {
  if (existsSync(saved)) renameSync(saved, file)
} else {
  process.stderr.write('usage: node scripts/manifest.mjs strip|restore\n')
  process.exit(2)
}
