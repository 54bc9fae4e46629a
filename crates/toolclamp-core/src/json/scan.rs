//! Scanning tokens: a string (counting its UTF-8 bytes as written and as decoded, and
//! rejecting what `JSON.parse` rejects), a number or literal, and `\\uXXXX` escapes.

use super::JsonError;
use crate::measure::Unit;

pub(super) const QUOTE: u16 = b'"' as u16;
pub(super) const BACKSLASH: u16 = b'\\' as u16;

fn hex(c: u16) -> Option<u16> {
    match c {
        0x30..=0x39 => Some(c - 0x30),
        0x41..=0x46 => Some(c - 0x41 + 10),
        0x61..=0x66 => Some(c - 0x61 + 10),
        _ => None,
    }
}

/// The code unit a `\uXXXX` escape at `i` (the backslash) stands for.
pub(super) fn escaped_unit<U: Unit>(units: &[U], i: usize) -> Option<u16> {
    let digits = units.get(i + 2..i + 6)?;
    digits.iter().try_fold(0u16, |acc, d| Some(acc * 16 + hex(d.code())?))
}

/// A scanned string token.
pub(super) struct Scanned {
    /// After the closing quote.
    pub(super) end: usize,
    /// UTF-8 bytes of the decoded value.
    pub(super) decoded: u64,
    /// UTF-8 bytes of the token as written, quotes included.
    pub(super) written: u64,
}

/// Scans the string token starting at `start` (a quote). Rejects control characters written
/// raw; takes lone surrogates, as `JSON.parse` does.
pub(super) fn scan_string<U: Unit>(units: &[U], start: usize) -> Result<Scanned, JsonError> {
    let mut i = start + 1;
    let mut decoded = 0u64;
    let mut written = 2u64;
    let mut pending_high = false;
    loop {
        // A run of plain units, counted in bulk.
        let (len, plain_bytes, odd) = U::plain_run(&units[i..]);
        let run_end = i + len;
        if run_end > i {
            let run = &units[i..run_end];
            let bytes = if odd { check_run(run, i)? } else { plain_bytes };
            decoded += bytes;
            written += bytes;
            pending_high = false;
            i = run_end;
        }
        let Some(&u) = units.get(i) else {
            return Err(JsonError::Invalid { at: i });
        };
        if u.code() == QUOTE {
            return Ok(Scanned { end: i + 1, decoded, written });
        }
        // A backslash.
        let e = units.get(i + 1).map_or(0, |u| u.code());
        match e {
            0x22 | 0x5C | 0x2F | 0x62 | 0x66 | 0x6E | 0x72 | 0x74 => {
                decoded += 1;
                written += 2;
                pending_high = false;
                i += 2;
            }
            0x75 => {
                let Some(x) = escaped_unit(units, i) else {
                    return Err(JsonError::Invalid { at: i });
                };
                decoded += if x < 0x80 {
                    1
                } else if x < 0x800 {
                    2
                } else if x & 0xFC00 == 0xDC00 && pending_high {
                    1
                } else {
                    3
                };
                written += 6;
                pending_high = x & 0xFC00 == 0xD800;
                i += 6;
            }
            _ => return Err(JsonError::Invalid { at: i }),
        }
    }
}

/// UTF-8 bytes of a run with no quote or backslash, checked unit by unit for control
/// characters. `at` is the run's position, for errors.
fn check_run<U: Unit>(run: &[U], at: usize) -> Result<u64, JsonError> {
    let mut bytes = 0;
    let mut k = 0;
    while k < run.len() {
        let u = run[k];
        if u.code() < 0x20 {
            return Err(JsonError::Invalid { at: at + k });
        }
        if u.is_high_surrogate() && run.get(k + 1).is_some_and(|n| n.is_low_surrogate()) {
            bytes += 4;
            k += 2;
            continue;
        }
        // A lone surrogate (JSON.parse takes it) weighs 3, as U+FFFD.
        bytes += u.weight(None);
        k += 1;
    }
    Ok(bytes)
}

/// Scans a number or literal at `i`; returns its end.
pub(super) fn scan_scalar<U: Unit>(units: &[U], start: usize) -> Result<usize, JsonError> {
    let code = |i: usize| units.get(i).map_or(0, |u| u.code());
    for literal in ["true", "false", "null"] {
        if literal.bytes().enumerate().all(|(k, b)| code(start + k) == b as u16 && start + k < units.len()) {
            return Ok(start + literal.len());
        }
    }
    let digit = |i: usize| (0x30..=0x39).contains(&code(i)) && i < units.len();
    let digits = |mut i: usize| {
        let from = i;
        while digit(i) {
            i += 1;
        }
        (i, i - from)
    };
    let mut i = start;
    if code(i) == b'-' as u16 {
        i += 1;
    }
    if code(i) == b'0' as u16 && digit(i) {
        i += 1;
    } else {
        let (end, n) = digits(i);
        if n == 0 {
            return Err(JsonError::Invalid { at: i });
        }
        i = end;
    }
    if code(i) == b'.' as u16 && i < units.len() {
        let (end, n) = digits(i + 1);
        if n == 0 {
            return Err(JsonError::Invalid { at: end });
        }
        i = end;
    }
    if matches!(code(i), 0x45 | 0x65) && i < units.len() {
        i += 1;
        if matches!(code(i), 0x2B | 0x2D) {
            i += 1;
        }
        let (end, n) = digits(i);
        if n == 0 {
            return Err(JsonError::Invalid { at: end });
        }
        i = end;
    }
    Ok(i)
}
