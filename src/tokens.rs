//! Exact tokens in the binding: the vocabularies JS loads on first use (read-only from then
//! on, and shared by every thread and every copy of the module in the process), counts of
//! strings, and the counters a cut within `maxTokens` uses: the core's index of the text,
//! or the caller's JS function.

use std::sync::OnceLock;

use napi::sys;
use toolclamp_core::{largest_within, Candidate, CodeUnits, CountCandidate, Encoding, Tokenizer, Units, Vocab};

use crate::call::{Answer, Call, Thrown};
use crate::layout::{Field, Results, Slot, Verdict, TOKENIZERS};
use crate::text::{with_scratch, LATIN1, UTF16};

/// The loaded encodings, by their place in [`Encoding::ALL`].
static LOADED: [OnceLock<Tokenizer>; 2] = [OnceLock::new(), OnceLock::new()];

fn slot_of(encoding: Encoding) -> &'static OnceLock<Tokenizer> {
    &LOADED[Encoding::ALL.iter().position(|&e| e == encoding).expect("every encoding has a slot")]
}

/// The code of a tokenizer in the request block: an index into [`TOKENIZERS`].
fn encoding_of_code(code: usize) -> Option<Encoding> {
    TOKENIZERS.get(code).and_then(|name| Encoding::from_name(name))
}

/// The [`TOKENIZERS`] code of a JS counter function.
const FUNCTION: usize = 3;

/// `loadTokenizer(out, name, vocab)`: whether the encoding `name` is loaded, after loading
/// it from `vocab` (the raw vocabulary: the decompressed `vocab/<name>.bin.br`) when it is
/// not and `vocab` is given. Damaged bytes throw.
pub(crate) fn load_tokenizer(call: &Call) -> Answer {
    let name = call.notice_text(call.arg(1)).map_err(|e| call.naming(e, 1, "a string"))?.text;
    let Some(encoding) = Encoding::from_name(&name) else {
        return Err(call.range_error(1, "an encoding's name", format!("{name:?}")));
    };
    // The bytes are checked even when the encoding is loaded: whether a call is right does
    // not depend on what this process loaded before.
    let bytes = match call.type_of(call.arg(2))? {
        sys::ValueType::napi_undefined => None,
        // Memory another thread can write is copied before it is read.
        _ => Some(match call.bytes(2)? {
            (bytes, false) => std::borrow::Cow::Borrowed(bytes),
            (bytes, true) => std::borrow::Cow::Owned(bytes.to_vec()),
        }),
    };
    let slot = slot_of(encoding);
    if let (None, Some(bytes)) = (slot.get(), bytes) {
        let damaged =
            |e: &dyn std::fmt::Display| Thrown::Error(format!("toolclamp: the {name} vocabulary is damaged: {e}"));
        let vocab = Vocab::from_bytes(&bytes).map_err(|e| damaged(&e))?;
        // Another encoding's vocabulary is well formed too, but counts wrong for ever after.
        if vocab.len() != encoding.ranks() {
            let what = format!("it has {} ranks where {name} has {}", vocab.len(), encoding.ranks());
            return Err(damaged(&what));
        }
        // Another thread may have loaded it meanwhile: either copy is the same.
        let _ = slot.set(Tokenizer::new(encoding, vocab));
    }
    call.boolean_value(slot.get().is_some())
}

/// `encodingOf(name)`: the encoding a tokenizer name stands for, an encoding's own name or
/// an OpenAI model's (`gpt-4o` is `o200k_base`), or `null`.
pub(crate) fn encoding_of(call: &Call) -> Answer {
    let name = call.notice_text(call.arg(0)).map_err(|e| call.naming(e, 0, "a string"))?.text;
    match Encoding::from_name(&name).or_else(|| Encoding::for_model(&name)) {
        Some(encoding) => call.string_from_utf8(encoding.name().as_bytes(), encoding.name().len()),
        None => call.null(),
    }
}

/// `countTokens(out, text, wide, tokenizer, limit)`: the tokens of `text` with the loaded
/// encoding of code `tokenizer`, in the `totalTokens` slot, with `fits` 1; or `fits` 0 as
/// soon as they are more than `limit` (a budget).
pub(crate) fn count_tokens(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let code = call.index(3)?;
    let limit = call.budget(4)?;
    let Some(encoding) = encoding_of_code(code) else {
        return Err(call.range_error(3, "the code of an encoding", code));
    };
    // The text is read before the encoding is looked up: a wrong argument is refused
    // whatever this process loaded.
    let counted = if wide {
        with_scratch(&UTF16, |buf| {
            let text = Units::new(call.string_arg(1, buf)?);
            Ok(loaded(encoding)?.count_within(&text, limit))
        })?
    } else {
        with_scratch(&LATIN1, |buf| {
            let text = Units::new(call.string_arg(1, buf)?);
            Ok(loaded(encoding)?.count_within(&text, limit))
        })?
    };
    let mut r = Results::new(Verdict::Fits);
    r.set(Slot::Fits, counted.is_some() as u64).set_optional(Slot::TotalTokens, counted);
    call.answer(&r)?;
    call.undefined()
}

/// `longestToken(name)`: the most UTF-8 bytes one token of the loaded encoding `name`
/// stands for. A result of more than `(max + 1) × longest` bytes is surely over `max`
/// tokens, which bounds every search in them.
pub(crate) fn longest_token(call: &Call) -> Answer {
    let name = call.notice_text(call.arg(0)).map_err(|e| call.naming(e, 0, "a string"))?.text;
    let Some(encoding) = Encoding::from_name(&name) else {
        return Err(call.range_error(0, "an encoding's name", format!("{name:?}")));
    };
    call.number_value(loaded(encoding)?.vocab().max_token_len() as f64)
}

/// `searchBudget(low, high, highCount, max, first, count)`: the largest byte budget from
/// `low` up to `high` whose result the JS function `count(budget)` finds within `max`
/// tokens, by the core's search ([`largest_within`]): `low` is taken to be within, `high`
/// over (`highCount` its tokens, a lower bound, or -1 when not counted), and `first` (-1
/// for none) is a bound tried first. `count` returns the tokens of the result
/// at that budget, or any number above `max` once they are over. For the clamps whose cut
/// runs in JS (tool results, JSON, pages): each count is that clamp at one budget.
pub(crate) fn search_budget(call: &Call) -> Answer {
    let lo = call.index(0)? as u64;
    let hi = call.index(1)? as u64;
    let optional = |i: usize| -> Result<Option<u64>, Thrown> {
        match call.number(i)? {
            -1.0 => Ok(None),
            _ => Ok(Some(call.index(i)? as u64)),
        }
    };
    let at_hi = optional(2)?;
    let max = call.index(3)? as u64;
    let first = optional(4)?;
    let count = call.arg(5);
    if call.type_of(count)? != sys::ValueType::napi_function {
        return Err(call.type_error(5, "a function"));
    }
    let found = largest_within(lo, hi, at_hi, max, first, |budget| {
        let arg = call.number_value(budget as f64)?;
        let recv = call.undefined()?;
        let mut result = std::ptr::null_mut();
        // SAFETY: `count` is a function argument of this call; one argument is passed.
        call.check(unsafe { sys::napi_call_function(call.env(), recv, count, 1, &arg, &mut result) })?;
        let kind = call.type_of(result)?;
        let mut n = f64::NAN;
        if kind == sys::ValueType::napi_number {
            // SAFETY: `env` and `result` are valid while the call runs; `result` is a number.
            call.check(unsafe { sys::napi_get_value_double(call.env(), result, &mut n) })?;
        }
        if !(n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0) {
            let got = if kind == sys::ValueType::napi_number { n.to_string() } else { type_name(kind).to_string() };
            return Err(Thrown::Type(format!(
                "toolclamp binding: {}: count must return a non-negative integer, got {got}",
                call.name()
            )));
        }
        Ok(n as u64)
    })?;
    call.number_value(found as f64)
}

/// The loaded `encoding`, or the error that says to load it.
fn loaded(encoding: Encoding) -> Result<&'static Tokenizer, Thrown> {
    slot_of(encoding).get().ok_or_else(|| {
        Thrown::Error(format!("toolclamp internal error: the {} vocabulary is not loaded", encoding.name()))
    })
}

/// How a plan counts tokens, from the request block's `maxTokens` and `tokenizer`.
#[derive(Clone, Copy)]
pub(crate) struct TokenLimit {
    pub max: u64,
    pub counter: Counter,
}

#[derive(Clone, Copy)]
pub(crate) enum Counter {
    Encoding(&'static Tokenizer),
    /// A JS function `(text) => number`, already checked by `lib/native.js`.
    Function(sys::napi_value),
}

impl TokenLimit {
    /// The token limit of the request block, if any: `tokenizer` 0 is none; the function of
    /// code [`FUNCTION`] is argument `function_at`.
    pub(crate) fn read(call: &Call, function_at: usize) -> Result<Option<TokenLimit>, Thrown> {
        let code = call.code_field(Field::Tokenizer, TOKENIZERS)?;
        // Read with no tokenizer too: a field JS left unwritten is refused, never ignored.
        let max = call.budget_field(Field::MaxTokens)?;
        if code == 0 {
            return Ok(None);
        }
        let counter = if code == FUNCTION {
            let f = call.arg(function_at);
            if call.type_of(f)? != sys::ValueType::napi_function {
                return Err(call.type_error(function_at, "a function"));
            }
            Counter::Function(f)
        } else {
            let encoding = encoding_of_code(code).expect("every code but none and function is an encoding's");
            Counter::Encoding(loaded(encoding)?)
        };
        Ok(Some(TokenLimit { max, counter }))
    }
}

/// Counts candidates of `text` with a caller's JS function, called with each candidate's
/// text. Its first failure ends the counting (every later candidate is "over") and is
/// thrown once the search returns.
pub(crate) struct JsCounter<'c, T: CodeUnits + ?Sized> {
    pub call: &'c Call,
    pub func: sys::napi_value,
    pub text: &'c T,
    pub failed: Option<Thrown>,
    /// The count of the whole text, if the function was asked for it.
    pub whole: Option<u64>,
    scratch: Vec<u16>,
}

impl<'c, T: CodeUnits + ?Sized> JsCounter<'c, T> {
    pub(crate) fn new(call: &'c Call, func: sys::napi_value, text: &'c T) -> Self {
        JsCounter { call, func, text, failed: None, whole: None, scratch: Vec::new() }
    }

    fn call_js(&mut self, c: &Candidate<'_>) -> Result<u64, Thrown> {
        let call = self.call;
        let text = &mut self.scratch;
        text.clear();
        self.text.push_utf16(0, c.head_end, text);
        text.extend(c.glue.encode_utf16());
        self.text.push_utf16(c.tail_start, self.text.len(), text);
        let arg = call.string_from_utf16(text)?;
        let recv = call.undefined()?;
        let mut result = std::ptr::null_mut();
        // SAFETY: `func` is a function argument of this call; one argument is passed.
        call.check(unsafe { sys::napi_call_function(call.env(), recv, self.func, 1, &arg, &mut result) })?;
        // lib/native.js hands over a function that returns a count or throws; anything else
        // is a wrong call, refused as a notice function's wrong answer is.
        let wrong = |got: &dyn std::fmt::Display| {
            Thrown::Type(format!(
                "toolclamp binding: {}: tokenCounter must return a non-negative integer, got {got}",
                call.name()
            ))
        };
        let kind = call.type_of(result)?;
        if kind != sys::ValueType::napi_number {
            return Err(wrong(&type_name(kind)));
        }
        let mut n = f64::NAN;
        // SAFETY: `env` and `result` are valid while the call runs; `result` is a number.
        call.check(unsafe { sys::napi_get_value_double(call.env(), result, &mut n) })?;
        if !(n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0) {
            return Err(wrong(&n));
        }
        Ok(n as u64)
    }
}

impl<T: CodeUnits + ?Sized> CountCandidate for JsCounter<'_, T> {
    fn count(&mut self, c: &Candidate<'_>, limit: u64) -> Option<u64> {
        // After a failure nothing more is called, and every candidate counts as within: the
        // search then ends on the plan it has, which the caller discards to throw the
        // failure. ("Over" would send it down to the plan of 0 bytes, which keeps nothing
        // and which the search takes to be within.)
        if self.failed.is_some() {
            return Some(0);
        }
        let empty = c.head_end == 0 && c.glue.is_empty() && c.tail_start == self.text.len();
        match self.call_js(c) {
            Ok(n) if n > limit && empty => {
                // No result is within: the function counts tokens even for none.
                let expected = format!("at least {n}, what tokenCounter counts for an empty text");
                self.failed = Some(self.call.field_range_error(Field::MaxTokens, &expected, limit));
                Some(0)
            }
            Ok(n) => {
                if c.head_end == self.text.len() && c.glue.is_empty() {
                    self.whole = Some(n);
                }
                (n <= limit).then_some(n)
            }
            Err(thrown) => {
                self.failed = Some(thrown);
                Some(0)
            }
        }
    }

    fn max_token_bytes(&self) -> Option<u64> {
        None
    }
}

/// How a value of type `kind` is named in an error.
fn type_name(kind: sys::napi_valuetype) -> &'static str {
    match kind {
        sys::ValueType::napi_undefined => "undefined",
        sys::ValueType::napi_null => "null",
        sys::ValueType::napi_boolean => "a boolean",
        sys::ValueType::napi_number => "a number",
        sys::ValueType::napi_string => "a string",
        sys::ValueType::napi_symbol => "a symbol",
        sys::ValueType::napi_bigint => "a bigint",
        sys::ValueType::napi_function => "a function",
        _ => "an object",
    }
}
