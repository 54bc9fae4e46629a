//! Terminal normalisation of strings and buffers, and the bound of its output length.

use toolclamp_core::{max_normalized_utf16, measure_str, normalize_terminal_output, normalized_utf16_len};

use crate::call::{Answer, Call, Thrown};
use crate::layout::{normalize_of, Results, Slot, Verdict};
use crate::text::{with_scratch, LATIN1, UTF16};

/// Flags of terminal normalisation: a whole number below 16 (bits of `LAYOUT.normalizeFlags`).
fn normalize_flags(call: &Call, i: usize) -> Result<toolclamp_core::Normalize, Thrown> {
    let flags = call.index(i)? as u64;
    if flags >= 16 {
        return Err(call.range_error(i, "a whole number below 16", flags));
    }
    Ok(normalize_of(flags))
}

/// Answers a normalised text: its measure in the total slots, the text returned, or `null`
/// when it is longer than `max_length` UTF-16 units (longer than a JS string can be).
fn answer_normalized(call: &Call, text: &str, max_length: u64) -> Answer {
    let m = measure_str(text);
    let mut r = Results::new(Verdict::Normalized);
    r.set_measure(Slot::TotalChars, m);
    call.answer(&r)?;
    if m.chars > max_length {
        return call.null();
    }
    call.string_from_utf8(text.as_bytes(), m.chars as usize)
}

/// `normalizedBound`: the most UTF-16 units the normalised text of a
/// string of `length` units (of `length` UTF-8 bytes if `bytes`) can have, in the
/// TotalChars slot ([`max_normalized_utf16`]).
pub(crate) fn normalized_bound(call: &Call) -> Answer {
    let length = call.index(1)? as u64;
    let bytes = call.boolean(2)?;
    let mut r = Results::new(Verdict::Normalized);
    r.set(Slot::TotalChars, max_normalized_utf16(length, bytes));
    call.answer(&r)?;
    call.undefined()
}

/// `normalizeTerminal` → the text as a terminal would
/// finally show it (`null` if longer than `maxLength`). Lone surrogates cannot be terminal
/// output: they read as U+FFFD.
pub(crate) fn normalize_terminal_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let options = normalize_flags(call, 3)?;
    let max_length = call.index(4)? as u64;
    let text = if wide {
        with_scratch(&UTF16, |buf| call.string_arg::<u16>(1, buf).map(String::from_utf16_lossy))?
    } else {
        with_scratch(&LATIN1, |buf| {
            call.string_arg::<u8>(1, buf).map(|units| units.iter().map(|&b| char::from(b)).collect::<String>())
        })?
    };
    answer_normalized_of(call, text.as_bytes(), options, max_length)
}

/// Answers `text` normalised, or `null` if longer than `max_length` UTF-16 units: text that
/// might be is measured first, so that text too long is never built.
fn answer_normalized_of(call: &Call, text: &[u8], options: toolclamp_core::Normalize, max_length: u64) -> Answer {
    if max_normalized_utf16(text.len() as u64, true) > max_length {
        let length = normalized_utf16_len(text, options);
        if length > max_length {
            let mut r = Results::new(Verdict::Normalized);
            r.set(Slot::TotalChars, length);
            call.answer(&r)?;
            return call.null();
        }
    }
    answer_normalized(call, &normalize_terminal_output(text, options), max_length)
}

/// `normalizeTerminalBuffer`: the same for UTF-8 bytes
/// (invalid sequences read as U+FFFD).
pub(crate) fn normalize_terminal_buffer(call: &Call) -> Answer {
    let options = normalize_flags(call, 2)?;
    let max_length = call.index(3)? as u64;
    let (bytes, _) = call.bytes(1)?;
    // No JS runs while the bytes are read: the normaliser is pure Rust.
    answer_normalized_of(call, bytes, options, max_length)
}
