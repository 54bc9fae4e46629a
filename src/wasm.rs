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
//! Bytes handed in (a Buffer) are copied by `Uint8Array.prototype.set` into memory the
//! call keeps ([`copy_bytes`]), not by emnapi, whose copy stays until V8 collects the Buffer.
//!
//! Reading a string is the other way round: emnapi copies it into the module's memory one
//! char at a time, about a microsecond each, so a long string is written straight into the
//! module's memory by `Buffer.prototype.write` ([`copy_string`]).
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
pub use node::{copy_bytes, copy_string, string_from_latin1, string_from_utf16, string_from_utf8};

#[cfg(target_family = "wasm")]
mod node {
    use std::ffi::{c_void, CStr};
    use std::ptr;

    use napi::sys;

    use super::pieces;
    use crate::call::{Answer, Call, Thrown};

    extern "C" {
        /// emnapi's own: a typed array (`kind`, 1 for Uint8Array) over `byte_length` bytes of
        /// the module's memory at `external_data`.
        fn emnapi_create_memory_view(
            env: sys::napi_env,
            kind: i32,
            external_data: *mut c_void,
            byte_length: usize,
            finalize_cb: sys::napi_finalize,
            finalize_hint: *mut c_void,
            result: *mut sys::napi_value,
        ) -> sys::napi_status;
    }

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

    /// Strings up to this many units are copied by emnapi itself: below it, the calls that
    /// make a Buffer cost more than the chars.
    const COPY_BY_HAND_MAX: usize = 256;

    /// What `napi_get_value_string_latin1` (`U` = `u8`) or `napi_get_value_string_utf16`
    /// (`u16`) does: the length of the string `value` when `buf` is null, else its first
    /// `size - 1` units (at most) into `buf` with a NUL after them. A long string is written
    /// there by Node itself ([`write_into_memory`]).
    ///
    /// # Safety
    /// As for those functions: `env` and `value` valid in the running callback; `buf` null
    /// with `size` 0, or writable for `size` units.
    pub unsafe fn copy_string<U: Copy + Default>(
        env: sys::napi_env,
        value: sys::napi_value,
        buf: *mut U,
        size: usize,
        copied: *mut usize,
        by_hand: unsafe fn(sys::napi_env, sys::napi_value, *mut U, usize, *mut usize) -> sys::napi_status,
    ) -> sys::napi_status {
        let mut len = 0;
        // SAFETY: per this function's contract; a null buffer asks for the length.
        let status = unsafe { by_hand(env, value, ptr::null_mut(), 0, &mut len) };
        if buf.is_null() || status != sys::Status::napi_ok {
            // SAFETY: as above.
            return unsafe { by_hand(env, value, buf, size, copied) };
        }
        let n = len.min(size.saturating_sub(1));
        if n <= COPY_BY_HAND_MAX {
            // SAFETY: as above.
            return unsafe { by_hand(env, value, buf, size, copied) };
        }
        let encoding = if size_of::<U>() == 1 { c"latin1" } else { c"utf16le" };
        // SAFETY: as above; `buf` has room for `n + 1` units (n < size), in the module's memory.
        unsafe { write_into_memory(env, value, encoding, buf.cast::<u8>(), n * size_of::<U>()) }.map_or_else(
            |status| status,
            |()| {
                // SAFETY: `buf` holds `size > n` units; `copied` is valid per the contract.
                unsafe {
                    buf.add(n).write(U::default());
                    if !copied.is_null() {
                        copied.write(n);
                    }
                }
                sys::Status::napi_ok
            },
        )
    }

    /// Writes the first `n` units of `value` into `out` as `buffer.write(value, 0, bytes,
    /// encoding)` does, where `buffer` is a Buffer over those `bytes` bytes of the module's
    /// own memory (an emnapi memory view): Node copies the chars there itself.
    ///
    /// # Safety
    /// `env` and `value` valid in the running callback; `out` writable for `bytes` bytes of
    /// the module's memory.
    unsafe fn write_into_memory(
        env: sys::napi_env,
        value: sys::napi_value,
        encoding: &CStr,
        out: *mut u8,
        bytes: usize,
    ) -> Result<(), sys::napi_status> {
        let ok = |status: sys::napi_status| if status == sys::Status::napi_ok { Ok(()) } else { Err(status) };
        let named = |object: sys::napi_value, name: &CStr| {
            let mut v = ptr::null_mut();
            // SAFETY: `env` and `object` are valid in the running callback.
            ok(unsafe { sys::napi_get_named_property(env, object, name.as_ptr(), &mut v) }).map(|()| v)
        };
        let number = |x: f64| {
            let mut v = ptr::null_mut();
            // SAFETY: `env` is valid in the running callback.
            ok(unsafe { sys::napi_create_double(env, x, &mut v) }).map(|()| v)
        };
        let call = |recv: sys::napi_value, f: sys::napi_value, args: &[sys::napi_value]| {
            let mut v = ptr::null_mut();
            // SAFETY: as above; `args` holds `args.len()` values of this callback.
            ok(unsafe { sys::napi_call_function(env, recv, f, args.len(), args.as_ptr(), &mut v) }).map(|()| v)
        };
        let mut view = ptr::null_mut();
        // SAFETY: `out` is writable for `bytes` bytes of the module's memory (the contract).
        ok(unsafe { emnapi_create_memory_view(env, 1, out.cast(), bytes, None, ptr::null_mut(), &mut view) })?;
        let mut global = ptr::null_mut();
        // SAFETY: `env` is valid in the running callback.
        ok(unsafe { sys::napi_get_global(env, &mut global) })?;
        let buffer_class = named(global, c"Buffer")?;
        let memory = named(view, c"buffer")?;
        let over = call(
            buffer_class,
            named(buffer_class, c"from")?,
            &[memory, number(out as usize as f64)?, number(bytes as f64)?],
        )?;
        let mut how = ptr::null_mut();
        // SAFETY: `env` is valid; `encoding` is NUL-terminated ASCII.
        ok(unsafe {
            sys::napi_create_string_latin1(env, encoding.as_ptr(), encoding.to_bytes().len() as isize, &mut how)
        })?;
        let written = call(over, named(over, c"write")?, &[value, number(0.0)?, number(bytes as f64)?, how])?;
        let mut count = 0.0;
        // SAFETY: `env` and `written` are valid in the running callback.
        ok(unsafe { sys::napi_get_value_double(env, written, &mut count) })?;
        if count as usize != bytes {
            return Err(sys::Status::napi_generic_failure);
        }
        Ok(())
    }

    /// A copy of the `length` bytes of the Uint8Array `value`, kept by the call: written by
    /// `view.set(value)`, where `view` is a Uint8Array over the copy (an emnapi memory view).
    pub fn copy_bytes(call: &Call, value: sys::napi_value, length: usize) -> Result<&[u8], Thrown> {
        let env = call.env();
        let mut copy = vec![0u8; length];
        let mut view = ptr::null_mut();
        // SAFETY: `copy` is `length` writable bytes of the module's memory.
        call.check(unsafe {
            emnapi_create_memory_view(env, 1, copy.as_mut_ptr().cast(), length, None, ptr::null_mut(), &mut view)
        })?;
        let mut set = ptr::null_mut();
        // SAFETY: `env` and `view` are valid while the call runs.
        call.check(unsafe { sys::napi_get_named_property(env, view, c"set".as_ptr(), &mut set) })?;
        let mut ignored = ptr::null_mut();
        // SAFETY: as above; `set` is Uint8Array.prototype.set, given one value of this call.
        call.check(unsafe { sys::napi_call_function(env, view, set, 1, &value, &mut ignored) })?;
        Ok(call.keep(copy))
    }

    /// `values[0].concat(...values[1..])`, a thousand arguments a call.
    fn concat(call: &Call, values: &[sys::napi_value]) -> Answer {
        let env = call.env();
        let named = |object: sys::napi_value, name: &CStr| {
            let mut v = ptr::null_mut();
            // SAFETY: `env` and `object` are valid while the call runs; `name` is NUL-terminated.
            call.check(unsafe { sys::napi_get_named_property(env, object, name.as_ptr(), &mut v) })?;
            Ok::<_, Thrown>(v)
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
