//! A UTF-8 text as a [`Source`]: a child process's output as it arrives, before it ever
//! becomes a JS string. Positions are byte offsets into the text, but the counts are those
//! of the JS string it decodes to, so planning the bytes cuts the same text, with the same
//! notice and measures, as planning the decoded string:
//!
//! * chars are UTF-16 code units: 1 for a char of 1 to 3 bytes, 2 for a 4-byte char (a
//!   surrogate pair in JS), carried by the char's first byte; continuation bytes weigh 0;
//! * bytes are the UTF-8 bytes themselves, so a span's bytes are its length;
//! * lines as everywhere.
//!
//! A caller holding raw bytes decodes them with [`decode_lossy`], which checks them with
//! SIMD, borrows valid input, and replaces each maximal invalid subpart with U+FFFD, as
//! Node's `buf.toString('utf8')` does; [`Utf8::from_validated`] serves bytes already known
//! to be valid.

use std::borrow::Cow;

use crate::measure::{lines_of, Measure, Span};
use crate::source::{fit_blocks_backward, fit_blocks_forward, Source};

const NL: u8 = b'\n';
const CR: u8 = b'\r';

/// A whole UTF-8 text held in memory.
pub struct Utf8<'a> {
    bytes: &'a [u8],
}

impl<'a> Utf8<'a> {
    pub fn new(text: &'a str) -> Self {
        Utf8 { bytes: text.as_bytes() }
    }

    /// Bytes the caller has already checked are valid UTF-8. Nothing here relies on that
    /// for safety (no `str` is made of them, cuts are judged byte by byte): on invalid
    /// bytes the counts and cuts are merely meaningless, and slicing stays in bounds.
    pub fn from_validated(bytes: &'a [u8]) -> Self {
        Utf8 { bytes }
    }

    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    #[inline]
    fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

/// `bytes` as UTF-8, each maximal invalid subpart replaced with U+FFFD, exactly like
/// `String::from_utf8_lossy` (and so like Node's `buf.toString('utf8')`), but faster on
/// long valid runs: std's validation goes word by word through ASCII, where
/// `from_utf8_lossy` goes byte by byte. Borrows when the bytes are valid.
pub fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    // The usual case, valid output, is checked with SIMD (several times faster than std on
    // non-ASCII); std then locates the errors of invalid input.
    if let Ok(text) = simdutf8::basic::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut error = match std::str::from_utf8(bytes) {
        Ok(text) => return Cow::Borrowed(text),
        Err(e) => e,
    };
    let mut decoded = String::with_capacity(bytes.len() + 16);
    let mut rest = bytes;
    loop {
        let (valid, after) = rest.split_at(error.valid_up_to());
        // SAFETY: `from_utf8` checked the bytes up to `valid_up_to`.
        decoded.push_str(unsafe { std::str::from_utf8_unchecked(valid) });
        decoded.push(char::REPLACEMENT_CHARACTER);
        // `error_len` is the length of the maximal invalid subpart; `None` means the rest
        // is an unfinished sequence, which is one subpart.
        let Some(invalid_len) = error.error_len() else {
            return Cow::Owned(decoded);
        };
        rest = &after[invalid_len..];
        match std::str::from_utf8(rest) {
            Ok(text) => {
                decoded.push_str(text);
                return Cow::Owned(decoded);
            }
            Err(e) => error = e,
        }
    }
}

/// U+FFFD, which stands for each maximal invalid subpart.
pub(crate) const REPLACEMENT: &[u8] = "\u{FFFD}".as_bytes();

/// A UTF-8 decoder fed in pieces: the valid runs as they are, U+FFFD for each maximal
/// invalid subpart, and an unfinished sequence at the end of a piece kept for the next.
#[derive(Clone, Default)]
pub(crate) struct Utf8Stream {
    carry: Vec<u8>,
}

impl Utf8Stream {
    pub(crate) fn push(&mut self, mut input: &[u8], out: &mut impl FnMut(&[u8])) {
        // Finish (or give up) the sequence the last piece cut, a byte at a time. The carry
        // is always the start of a valid sequence, so when the next byte does not continue
        // it, the carry alone is the maximal invalid subpart, and the byte starts afresh.
        while !self.carry.is_empty() {
            let Some((&b, rest)) = input.split_first() else {
                return;
            };
            self.carry.push(b);
            match std::str::from_utf8(&self.carry) {
                Ok(_) => {
                    out(&self.carry);
                    self.carry.clear();
                    input = rest;
                }
                Err(e) if e.error_len().is_none() => input = rest,
                Err(_) => {
                    self.carry.clear();
                    out(REPLACEMENT);
                }
            }
        }
        if simdutf8::basic::from_utf8(input).is_ok() {
            out(input);
            return;
        }
        loop {
            let Err(error) = std::str::from_utf8(input) else {
                return out(input);
            };
            let (valid, after) = input.split_at(error.valid_up_to());
            out(valid);
            match error.error_len() {
                Some(n) => {
                    out(REPLACEMENT);
                    input = &after[n..];
                }
                None => {
                    self.carry.extend_from_slice(after);
                    return;
                }
            }
        }
    }

    /// Ends the input: an unfinished sequence is one invalid subpart.
    pub(crate) fn finish(&mut self, out: &mut impl FnMut(&[u8])) {
        if !self.carry.is_empty() {
            self.carry.clear();
            out(REPLACEMENT);
        }
    }
}

/// The unit `buf.toString()` reads at the start of `window` (raw bytes, on a unit
/// boundary): a char, or one maximal invalid subpart, read as one U+FFFD. Its length in
/// bytes and its UTF-16 length. A window that ends inside a sequence is read as the end of
/// the input would be: the sequence so far is one subpart. `window` is not empty.
pub(crate) fn raw_unit(window: &[u8]) -> (usize, u64) {
    let valid = match std::str::from_utf8(window) {
        Ok(text) => text,
        Err(e) if e.valid_up_to() > 0 => std::str::from_utf8(&window[..e.valid_up_to()]).unwrap_or_default(),
        Err(e) => return (e.error_len().unwrap_or(window.len()), 1),
    };
    let c = valid.chars().next().unwrap_or('\u{FFFD}');
    (c.len_utf8(), c.len_utf16() as u64)
}

/// UTF-16 units of the char a byte starts: 0 for a continuation byte (`10xxxxxx`), 2 for
/// the first byte of a 4-byte char, else 1. Only valid UTF-8 is ever weighed, where every
/// byte from 0xF0 starts a 4-byte char.
#[inline]
pub(crate) fn char_weight(b: u8) -> u64 {
    ((b as i8) >= -64) as u64 + (b >= 0xF0) as u64
}

/// Counts of a run of valid UTF-8 bytes, in one pass (with AVX2 where the CPU has it; see
/// `measure.rs`).
pub(crate) fn count(s: &[u8]) -> Span {
    #[cfg(target_arch = "x86_64")]
    if crate::measure::has_avx2(s.len()) {
        // SAFETY: the CPU supports AVX2.
        return unsafe { count_avx2(s) };
    }
    count_lanes(s)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn count_avx2(s: &[u8]) -> Span {
    count_lanes(s)
}

/// Byte lanes that cannot overflow within 255 rounds let the compiler vectorise the loop.
#[inline(always)]
fn count_lanes(s: &[u8]) -> Span {
    const LANES: usize = 32;
    let (mut starts, mut fours, mut newlines) = (0u64, 0u64, 0u64);
    for block in s.chunks(LANES * 255) {
        let mut st = [0u8; LANES];
        let mut fo = [0u8; LANES];
        let mut nl = [0u8; LANES];
        let mut groups = block.chunks_exact(LANES);
        for g in &mut groups {
            for j in 0..LANES {
                st[j] += ((g[j] as i8) >= -64) as u8;
                fo[j] += (g[j] >= 0xF0) as u8;
                nl[j] += (g[j] == NL) as u8;
            }
        }
        let sum = |a: [u8; LANES]| a.iter().map(|&x| x as u64).sum::<u64>();
        starts += sum(st);
        fours += sum(fo);
        newlines += sum(nl);
        for &b in groups.remainder() {
            starts += ((b as i8) >= -64) as u64;
            fours += (b >= 0xF0) as u64;
            newlines += (b == NL) as u64;
        }
    }
    Span { chars: starts + fours, bytes: s.len() as u64, newlines }
}

/// Chars, bytes and lines of a UTF-8 text as the JS string it decodes to would measure.
pub fn measure_utf8(text: &str) -> Measure {
    measure_bytes(text.as_bytes())
}

fn measure_bytes(bytes: &[u8]) -> Measure {
    let span = count(bytes);
    Measure {
        chars: span.chars,
        bytes: span.bytes,
        lines: lines_of(span.newlines, bytes.len(), bytes.last() == Some(&NL)),
    }
}

/// A budget in bytes bounds how far a span can reach, since a span's bytes are its length.
fn byte_reach(budget: Span) -> usize {
    usize::try_from(budget.bytes).unwrap_or(usize::MAX)
}

impl Source for Utf8<'_> {
    /// Length in bytes.
    fn len(&self) -> usize {
        self.bytes.len()
    }

    /// The byte at `i`. Bytes are below 0x100, so the planner's surrogate checks never match.
    #[inline]
    fn code(&self, i: usize) -> u16 {
        self.bytes()[i] as u16
    }

    fn totals(&self) -> Measure {
        measure_bytes(self.bytes)
    }

    fn span(&self, from: usize, to: usize) -> Span {
        count(&self.bytes()[from..to])
    }

    #[inline]
    fn unit_span(&self, i: usize) -> Span {
        let b = self.bytes()[i];
        Span { chars: char_weight(b), bytes: 1, newlines: (b == NL) as u64 }
    }

    // Chars are counted even when unlimited: positions are bytes, so unlike UTF-16 units
    // they say nothing about chars, and the planner needs the kept chars to report them.
    fn fit_forward(&self, from: usize, limit: usize, budget: Span) -> (usize, Span) {
        fit_blocks_forward(self, from, limit.min(from.saturating_add(byte_reach(budget))), budget)
    }

    fn fit_backward(&self, to: usize, floor: usize, budget: Span) -> (usize, Span) {
        fit_blocks_backward(self, to, floor.max(to.saturating_sub(byte_reach(budget))), budget)
    }

    fn last_newline(&self, from: usize, to: usize) -> Option<usize> {
        self.bytes()[from..to].iter().rposition(|&b| b == NL).map(|i| i + from)
    }

    /// On a char boundary (not before a continuation byte) and not between `\r` and `\n`.
    fn is_safe_cut(&self, i: usize) -> bool {
        if i == 0 || i >= self.len() {
            return true;
        }
        let bytes = self.bytes();
        (bytes[i] as i8) >= -64 && !(bytes[i - 1] == CR && bytes[i] == NL)
    }

    #[inline]
    fn is_newline(&self, i: usize) -> bool {
        self.bytes()[i] == NL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(bytes: &[u8], cuts: &[usize]) -> Vec<u8> {
        let mut d = Utf8Stream::default();
        let mut out = Vec::new();
        let mut last = 0;
        for &c in cuts.iter().chain(std::iter::once(&bytes.len())) {
            d.push(&bytes[last..c], &mut |b: &[u8]| out.extend_from_slice(b));
            last = c;
        }
        d.finish(&mut |b: &[u8]| out.extend_from_slice(b));
        out
    }

    /// Byte strings for the decoders: valid text, and the ways UTF-8 goes wrong (a stray
    /// continuation, a truncated sequence, an encoded surrogate, an overlong form, bytes
    /// that never start a character).
    const CASES: [&[u8]; 9] = [
        b"",
        b"plain",
        b"\xFF",
        b"a\xE6\x97",
        b"\xF0\x9F\x98\x80\xED\xA0\x80x",
        b"\xC3\xA9\x80\x80\xC3",
        b"\xE6\xC3\xA9\xF5z",
        b"\xF0\x90\x41\xE0\x80",
        "日本😀é".as_bytes(),
    ];

    #[test]
    fn decoding_in_pieces_is_decoding_whole() {
        for bytes in CASES {
            let whole = String::from_utf8_lossy(bytes).into_owned().into_bytes();
            for a in 0..=bytes.len() {
                for b in a..=bytes.len() {
                    assert_eq!(decode_in_pieces(bytes, &[a, b]), whole, "{bytes:x?} cut at {a}, {b}");
                }
            }
        }
    }

    #[test]
    fn both_copies_of_the_count_agree() {
        // From 256 bytes a CPU with AVX2 takes the AVX2 copy; the portable one counts alike.
        let text: String = "ab\né日本😀\r\n".repeat(20_000);
        for len in [0, 1, 255, 256, 1000, text.len()] {
            let end = (0..=len).rev().find(|&i| text.is_char_boundary(i)).unwrap();
            let s = &text.as_bytes()[..end];
            let slow = Span {
                chars: text[..end].encode_utf16().count() as u64,
                bytes: end as u64,
                newlines: s.iter().filter(|&&b| b == NL).count() as u64,
            };
            assert_eq!(count_lanes(s), slow, "len {len}");
            assert_eq!(count(s), slow, "len {len}");
        }
    }

    #[test]
    fn counts_match_the_decoded_js_string() {
        for s in ["", "a", "é", "€", "😀", "a\nb\n", "日本語\r\n😀x", &"é😀\n日a".repeat(5000)] {
            let m = measure_utf8(s);
            assert_eq!(m.chars, s.encode_utf16().count() as u64, "{s:?}");
            assert_eq!(m.bytes, s.len() as u64);
            assert_eq!(m, crate::measure::measure(&s.encode_utf16().collect::<Vec<u16>>()));
        }
    }

    #[test]
    fn weights_sit_on_the_first_byte() {
        let src = Utf8::new("a日😀");
        let weights: Vec<u64> = (0..src.len()).map(|i| src.unit_span(i).chars).collect();
        assert_eq!(weights, [1, 1, 0, 0, 2, 0, 0, 0]);
    }

    #[test]
    fn decode_lossy_is_from_utf8_lossy() {
        for bytes in CASES {
            assert_eq!(decode_lossy(bytes), String::from_utf8_lossy(bytes), "{bytes:x?}");
        }
        assert!(matches!(decode_lossy("日本😀".as_bytes()), Cow::Borrowed(_)));
    }

    #[test]
    fn safe_cuts_are_char_boundaries_outside_crlf() {
        let src = Utf8::new("é\r\n😀");
        let safe: Vec<usize> = (0..=src.len()).filter(|&i| src.is_safe_cut(i)).collect();
        assert_eq!(safe, [0, 2, 4, 8]);
    }
}
