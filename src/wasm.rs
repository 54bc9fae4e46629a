//! Strings made exactly when the binding runs as WebAssembly.
//!
//! Compiled to `wasm32-wasip1-threads`, Node-API is emnapi's, written in JS, and three of
//! its string makers (emnapi 2.0.0-beta.2) do not always give back the text they are
//! handed:
//! - `napi_create_string_latin1` stops at the first NUL, whatever length it is told;
//! - `napi_create_string_utf8` and `napi_create_string_utf16` decode with `TextDecoder`,
//!   which drops a leading U+FEFF (a byte order mark to it), and the UTF-16 one turns each
//!   lone surrogate into U+FFFD. Up to 16 units (16 bytes of UTF-8) they decode by hand
//!   instead, exactly.
//!
//! So here text is made from UTF-16 only, in pieces that emnapi decodes exactly: long runs
//! that hold no lone surrogate and do not begin with U+FEFF, and pieces of at most 16 units
//! at each unit that would be changed. The pieces are joined with `String.prototype.concat`.
//! Text with nothing to change (nearly all of it) is made in one call.
//!
//! The splitting is plain Rust, compiled and tested on every target; only the Node-API
//! half is WebAssembly's.

#![cfg_attr(not(target_family = "wasm"), allow(dead_code))]

use std::ops::Range;

/// The longest piece emnapi decodes by hand, in UTF-16 units (32 bytes).
const EXACT_UNITS: usize = 16;

const BOM: u16 = 0xFEFF;

fn is_high(unit: u16) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

fn is_low(unit: u16) -> bool {
    (0xDC00..0xE000).contains(&unit)
}

/// Whether `units[i]` is a surrogate without its other half.
fn is_lone(units: &[u16], i: usize) -> bool {
    let unit = units[i];
    (is_high(unit) && !units.get(i + 1).copied().is_some_and(is_low))
        || (is_low(unit) && !(i > 0 && is_high(units[i - 1])))
}

/// The pieces `units` is made from: each either at most [`EXACT_UNITS`] long, or holding no
/// surrogate that is lone within it and not beginning with U+FEFF. One piece, the whole, when nothing would
/// be changed.
pub fn pieces(units: &[u16]) -> Vec<Range<usize>> {
    let n = units.len();
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < n {
        // A piece's first unit is all it begins with: a low surrogate there is alone in it.
        let end = if units[i] == BOM || is_low(units[i]) || is_lone(units, i) {
            (i + EXACT_UNITS).min(n)
        } else {
            (i + 1..n).find(|&j| is_lone(units, j)).unwrap_or(n)
        };
        pieces.push(i..end);
        i = end;
    }
    pieces
}

#[cfg(target_family = "wasm")]
pub use node::{string_from_latin1, string_from_utf16, string_from_utf8};

#[cfg(target_family = "wasm")]
mod node {
    use std::ptr;

    use napi::sys;

    use super::pieces;
    use crate::call::{Answer, Call};

    /// Latin-1 text: ASCII as UTF-8 (emnapi's Latin-1 maker stops at a NUL), the rest
    /// widened to UTF-16.
    pub fn string_from_latin1(call: &Call, units: &[u8]) -> Answer {
        if units.is_ascii() {
            return utf8(call, units);
        }
        string_from_utf16(call, &units.iter().map(|&b| u16::from(b)).collect::<Vec<_>>())
    }

    /// UTF-8 text: as it is, unless it begins with a byte order mark, which only the
    /// UTF-16 route keeps.
    pub fn string_from_utf8(call: &Call, bytes: &[u8]) -> Answer {
        if !bytes.starts_with("\u{FEFF}".as_bytes()) {
            return utf8(call, bytes);
        }
        let text = String::from_utf8_lossy(bytes);
        string_from_utf16(call, &text.encode_utf16().collect::<Vec<_>>())
    }

    /// UTF-16 text, each unit as it is: in pieces when any would be changed (see the module).
    pub fn string_from_utf16(call: &Call, units: &[u16]) -> Answer {
        let parts = pieces(units);
        if parts.len() <= 1 {
            return utf16(call, units);
        }
        let values = parts.into_iter().map(|range| utf16(call, &units[range])).collect::<Result<Vec<_>, _>>()?;
        concat(call, &values)
    }

    fn utf8(call: &Call, bytes: &[u8]) -> Answer {
        let mut v = ptr::null_mut();
        // SAFETY: `env` is valid while the call runs; `bytes` is a live slice.
        call.check(unsafe {
            sys::napi_create_string_utf8(call.env(), bytes.as_ptr().cast(), bytes.len() as isize, &mut v)
        })?;
        Ok(v)
    }

    fn utf16(call: &Call, units: &[u16]) -> Answer {
        let mut v = ptr::null_mut();
        // SAFETY: `env` is valid while the call runs; `units` is a live slice.
        call.check(unsafe { sys::napi_create_string_utf16(call.env(), units.as_ptr(), units.len() as isize, &mut v) })?;
        Ok(v)
    }

    /// `values[0].concat(...values[1..])`, a thousand arguments a call.
    fn concat(call: &Call, values: &[sys::napi_value]) -> Answer {
        let env = call.env();
        let named = |object: sys::napi_value, name: &std::ffi::CStr| {
            let mut v = ptr::null_mut();
            // SAFETY: `env` and `object` are valid while the call runs; `name` is NUL-terminated.
            call.check(unsafe { sys::napi_get_named_property(env, object, name.as_ptr(), &mut v) })?;
            Ok::<_, crate::call::Thrown>(v)
        };
        let mut global = ptr::null_mut();
        // SAFETY: `env` is valid while the call runs.
        call.check(unsafe { sys::napi_get_global(env, &mut global) })?;
        let concat = named(named(named(global, c"String")?, c"prototype")?, c"concat")?;
        let mut joined = values[0];
        for batch in values[1..].chunks(1000) {
            let mut result = ptr::null_mut();
            // SAFETY: `env` is valid while the call runs; `concat` is a function and `batch`
            // holds `batch.len()` values of this call.
            call.check(unsafe {
                sys::napi_call_function(env, joined, concat, batch.len(), batch.as_ptr(), &mut result)
            })?;
            joined = result;
        }
        Ok(joined)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text the pieces make, and whether each piece is one emnapi makes exactly.
    fn check(units: &[u16]) {
        let parts = pieces(units);
        let joined: Vec<u16> = parts.iter().flat_map(|r| units[r.clone()].iter().copied()).collect();
        assert_eq!(joined, units, "the pieces are the text, in order");
        for r in &parts {
            assert!(!r.is_empty());
            let piece = &units[r.clone()];
            // Judged within the piece: emnapi decodes each piece on its own.
            let clean = piece[0] != BOM && (0..piece.len()).all(|i| !is_lone(piece, i));
            assert!(r.len() <= EXACT_UNITS || clean, "{r:?} of {units:?}");
        }
    }

    #[test]
    fn clean_text_is_one_piece() {
        let units: Vec<u16> = "plain text, é, 中文, 😀".encode_utf16().cycle().take(500).collect();
        assert_eq!(pieces(&units), vec![0..units.len()]);
        assert!(pieces(&[]).is_empty());
    }

    #[test]
    fn a_leading_bom_and_lone_surrogates_go_in_short_pieces() {
        let mut units: Vec<u16> = vec![BOM];
        units.extend("x".repeat(40).encode_utf16());
        units.push(0xD800);
        units.extend("y".repeat(40).encode_utf16());
        units.push(0xDC00);
        check(&units);
        assert_eq!(pieces(&units), vec![0..16, 16..41, 41..57, 57..82, 82..83]);
        // A pair is no lone surrogate, wherever a piece would end.
        let pair: Vec<u16> = "😀".repeat(30).encode_utf16().collect();
        assert_eq!(pieces(&pair), vec![0..60]);
    }

    #[test]
    fn any_units_split_into_exact_pieces() {
        // Every text over a small alphabet of awkward units, up to length 6, then long ones.
        let alphabet = [0x41, 0, BOM, 0xD800, 0xDC00, 0xDBFF, 0xDFFF, 0xE9];
        let mut texts = vec![vec![]];
        for _ in 0..6 {
            texts = texts
                .iter()
                .flat_map(|t: &Vec<u16>| {
                    alphabet.iter().map(move |&u| {
                        let mut t = t.clone();
                        t.push(u);
                        t
                    })
                })
                .collect();
            texts.iter().for_each(|t| check(t));
        }
        let mut state = 12345u32;
        for _ in 0..2000 {
            let len = (state % 200) as usize;
            let units: Vec<u16> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    alphabet[(state >> 16) as usize % alphabet.len()]
                })
                .collect();
            check(&units);
        }
    }
}
