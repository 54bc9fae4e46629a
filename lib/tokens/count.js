'use strict'

// countTokens: the tokens of a text, as the estimate or an exact tokenizer counts them.

const { mustBe } = require('../common/errors.js')
const { readOptionsObject } = require('../common/options.js')
const { countWith, readTokenizer } = require('./tokenizers.js')

const COUNT_OPTIONS = ['tokenizer']

function countTokens(text, options) {
  if (typeof text !== 'string') throw mustBe(TypeError, `text`, `a string`, text)
  const tokenizer = options === undefined ? undefined : readOptionsObject(options, COUNT_OPTIONS).tokenizer
  return countWith(readTokenizer(tokenizer), text)
}

module.exports = { countTokens }
