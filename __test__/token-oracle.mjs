// The test oracle for exact tokens: js-tiktoken, OpenAI's tokenizer (tiktoken) ported to
// JavaScript, with special-token spellings read as the plain text they are in a tool's
// output. (gpt-tokenizer, faster, is what the benchmarks race; it differs from tiktoken on a
// few rare strings, such as "\ufeff邶ſ\u0301": 6 tokens where tiktoken counts 5.)
import { Tiktoken } from 'js-tiktoken/lite'
import o200k from 'js-tiktoken/ranks/o200k_base'
import cl100k from 'js-tiktoken/ranks/cl100k_base'

const ENCODERS = { o200k_base: new Tiktoken(o200k), cl100k_base: new Tiktoken(cl100k) }

export const ENCODINGS = Object.keys(ENCODERS)

/** The tokens of `text` in `encoding` ('o200k_base' or 'cl100k_base'). */
export function oracle(encoding, text) {
  return ENCODERS[encoding].encode(text, [], []).length
}
