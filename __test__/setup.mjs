// Loaded before every test file (`node --import`): property tests run with one seed, so a
// run is repeatable and CI cannot go red by chance. FC_SEED picks another seed;
// FC_SEED=random draws one (fast-check prints it with any counterexample).
import fc from 'fast-check'

const DEFAULT_SEED = 20261123
const given = process.env.FC_SEED
const seed = given === 'random' ? Date.now() ^ (Math.random() * 2 ** 31) : Number(given ?? DEFAULT_SEED)
if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer or "random", got ${JSON.stringify(given)}`)
fc.configureGlobal({ seed })
