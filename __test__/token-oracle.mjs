// The test oracles for exact tokens, special-token spellings read as the plain text they are
// in a tool's output:
// - `oracle`: js-tiktoken, OpenAI's tokenizer (tiktoken) ported to JavaScript. It merges a long
//   piece (a run of letters with no space) in quadratic time or worse, about a second for
//   1,000 letters, so it checks short texts;
// - `fastOracle`: gpt-tokenizer, which is fast on any text but differs from tiktoken on some
//   rare strings ("\ufeff邶ſ\u0301" is 6 tokens to it, 5 to tiktoken), none of which the corpus
//   holds (the corpus test checks that the two agree wherever both can count).
import { createRequire } from 'node:module'
import { Tiktoken } from 'js-tiktoken/lite'
import o200k from 'js-tiktoken/ranks/o200k_base'
import cl100k from 'js-tiktoken/ranks/cl100k_base'

const require = createRequire(import.meta.url)
const TIKTOKEN = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) }
const GPT_TOKENIZER = {
  o200k_base: require('gpt-tokenizer/encoding/o200k_base'),
  cl100k_base: require('gpt-tokenizer/encoding/cl100k_base'),
}
const PLAIN = { disallowedSpecial: new Set() }

export const ENCODINGS = Object.keys(TIKTOKEN)

/** The tokens of a short `text` in `encoding` ('o200k_base' or 'cl100k_base'), as tiktoken counts. */
export function oracle(encoding, text) {
  return TIKTOKEN[encoding].encode(text, [], []).length
}

/** The tokens of `text`, long or short, as gpt-tokenizer counts them. */
export function fastOracle(encoding, text) {
  return GPT_TOKENIZER[encoding].countTokens(text, PLAIN)
}
