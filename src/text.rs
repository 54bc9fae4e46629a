//! JS strings and bytes in and out of Rust.
//!
//! A string's code units are copied into a reused per-thread scratch buffer: Latin-1 for
//! one-byte strings (JS says which), UTF-16 otherwise, never UTF-8, which V8 transcodes
//! slowly. A buffer that grew past [`RETAINED_BYTES`] for one huge input is freed after the
//! call, so memory returns to its steady state. A long string planned by chars or bytes is
//! never copied whole: [`Call::stream_units`] copies it in bounded windows (see
//! `plan::plan_long`). A call that re-enters the binding (a notice
//! function calling toolclamp) gets a fresh buffer instead of the one in use.
//!
//! Notices are planned as Rust strings, which cannot hold a lone surrogate. A caller's
//! notice with one is planned with a stand-in from the private-use area (one UTF-16 unit
//! and three UTF-8 bytes, the same weight), and the original units are put back in the
//! string handed to JS.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_void};
use std::ptr;
use std::thread::LocalKey;

use napi::sys;

use crate::call::{Answer, Call, Thrown};
use crate::layout::MAX_STRING_LENGTH;

/// Scratch capacity kept between calls: enough for a 16 MiB text, so repeated clamps of
/// large outputs do not allocate and fault in a fresh copy each time (that costs more than
/// the copy itself); a larger buffer is freed, so one huge input leaves no copy behind.
const RETAINED_BYTES: usize = 32 << 20;

thread_local! {
    pub static LATIN1: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    pub static UTF16: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
    pub static LATIN1_WINDOWS: RefCell<[Vec<u8>; 3]> = const { RefCell::new([Vec::new(), Vec::new(), Vec::new()]) };
    pub static UTF16_WINDOWS: RefCell<[Vec<u16>; 3]> = const { RefCell::new([Vec::new(), Vec::new(), Vec::new()]) };
}

pub trait Scratch: Default {
    /// Frees the memory of a buffer grown past [`RETAINED_BYTES`].
    fn trim(&mut self);
}

impl<U> Scratch for Vec<U> {
    fn trim(&mut self) {
        if self.capacity() * size_of::<U>() > RETAINED_BYTES {
            *self = Vec::new();
        }
    }
}

impl<U> Scratch for [Vec<U>; 3] {
    fn trim(&mut self) {
        self.iter_mut().for_each(Scratch::trim);
    }
}

/// Lends this thread's scratch buffer, or a fresh one when it is in use further up the stack.
pub fn with_scratch<T: Scratch, R>(cell: &'static LocalKey<RefCell<T>>, f: impl FnOnce(&mut T) -> R) -> R {
    cell.with(|c| match c.try_borrow_mut() {
        Ok(mut buf) => {
            let r = f(&mut buf);
            buf.trim();
            r
        }
        Err(_) => f(&mut T::default()),
    })
}

/// A code unit Node-API copies strings into: Latin-1 bytes or UTF-16 units.
pub trait StringUnit: Copy + Default {
    /// Node-API's own copy: `napi_get_value_string_latin1` or `napi_get_value_string_utf16`.
    ///
    /// # Safety
    /// As for those functions: `env` and `value` valid in the running callback; `buf` null
    /// with `size` 0, or writable for `size` units.
    unsafe fn napi_copy(
        env: sys::napi_env,
        value: sys::napi_value,
        buf: *mut Self,
        size: usize,
        copied: *mut usize,
    ) -> sys::napi_status;

    /// What [`Self::napi_copy`] does; as WebAssembly, a long string is copied the way
    /// `wasm.rs` says instead.
    ///
    /// # Safety
    /// As for [`Self::napi_copy`].
    unsafe fn copy(
        env: sys::napi_env,
        value: sys::napi_value,
        buf: *mut Self,
        size: usize,
        copied: *mut usize,
    ) -> sys::napi_status {
        #[cfg(target_family = "wasm")]
        // SAFETY: per this function's contract.
        return unsafe { crate::wasm::copy_string(env, value, buf, size, copied, Self::napi_copy) };
        #[cfg(not(target_family = "wasm"))]
        // SAFETY: per this function's contract.
        unsafe {
            Self::napi_copy(env, value, buf, size, copied)
        }
    }

    /// A JS string of these units.
    fn string_from(call: &Call, units: &[Self]) -> Answer;
}

impl StringUnit for u8 {
    unsafe fn napi_copy(
        env: sys::napi_env,
        value: sys::napi_value,
        buf: *mut u8,
        size: usize,
        copied: *mut usize,
    ) -> sys::napi_status {
        // SAFETY: per the trait's contract.
        unsafe { sys::napi_get_value_string_latin1(env, value, buf.cast::<c_char>(), size, copied) }
    }

    fn string_from(call: &Call, units: &[u8]) -> Answer {
        call.string_from_latin1(units)
    }
}

impl StringUnit for u16 {
    unsafe fn napi_copy(
        env: sys::napi_env,
        value: sys::napi_value,
        buf: *mut u16,
        size: usize,
        copied: *mut usize,
    ) -> sys::napi_status {
        // SAFETY: per the trait's contract.
        unsafe { sys::napi_get_value_string_utf16(env, value, buf, size, copied) }
    }

    fn string_from(call: &Call, units: &[u16]) -> Answer {
        call.string_from_utf16(units)
    }
}

impl Call {
    /// Copies the string argument `i` into `buf`: as Latin-1 (`u8`, for a string the caller
    /// knows holds no char above U+00FF) or as UTF-16 (`u16`).
    pub fn string_arg<'b, U: StringUnit>(&self, i: usize, buf: &'b mut Vec<U>) -> Result<&'b [U], Thrown> {
        self.units_of(self.arg(i), buf).map_err(|e| self.naming(e, i, "a string"))
    }

    /// Copies the string `v` into `buf`. A value that is not a string is a `Thrown::Type`
    /// with no message, for the caller to name.
    pub fn units_of<'b, U: StringUnit>(&self, v: sys::napi_value, buf: &'b mut Vec<U>) -> Result<&'b [U], Thrown> {
        let env = self.env();
        let mut len = 0;
        // SAFETY: `env` and `v` are valid while the call runs; a null buffer asks for the length.
        let status = unsafe { U::copy(env, v, ptr::null_mut(), 0, &mut len) };
        if status == sys::Status::napi_string_expected {
            return Err(Thrown::Type(String::new()));
        }
        self.check(status)?;
        // Node-API writes a terminating NUL.
        if buf.len() < len + 1 {
            buf.resize(len + 1, U::default());
        }
        let mut copied = 0;
        // SAFETY: `buf` holds `len + 1` units.
        self.check(unsafe { U::copy(env, v, buf.as_mut_ptr(), len + 1, &mut copied) })?;
        Ok(&buf[..copied])
    }

    /// The length in UTF-16 units of the string argument `i`, without copying it.
    pub fn string_length(&self, i: usize) -> Result<usize, Thrown> {
        let mut len = 0;
        // SAFETY: `env` and the argument are valid while the call runs; a null buffer asks
        // for the length.
        let status = unsafe { u16::copy(self.env(), self.arg(i), ptr::null_mut(), 0, &mut len) };
        if status == sys::Status::napi_string_expected {
            return Err(self.type_error(i, "a string"));
        }
        self.check(status)?;
        Ok(len)
    }

    /// Hands `f` the units of the string argument `i` (`len` units long) in order, `window`
    /// units at a time, copied into `buf` from slices of the string (`String.prototype.slice`
    /// shares the string's memory), so a string of any length costs `window` units of
    /// memory. Fails if the slices do not add up to `len` units.
    pub fn stream_units<U: StringUnit>(
        &self,
        i: usize,
        len: usize,
        window: usize,
        buf: &mut Vec<U>,
        mut f: impl FnMut(&[U]),
    ) -> Result<(), Thrown> {
        let env = self.env();
        let text = self.arg(i);
        let mut slice = ptr::null_mut();
        // SAFETY: `env` and `text` are valid while the call runs; a string primitive is
        // wrapped to look the property up.
        self.check(unsafe { sys::napi_get_named_property(env, text, c"slice".as_ptr(), &mut slice) })?;
        let mut from = 0;
        while from < len {
            let to = len.min(from.saturating_add(window));
            let piece = self.slice_of(text, slice, from, to)?;
            let units = self.units_of(piece, buf).map_err(|e| self.naming(e, i, "a string"))?;
            if units.len() != to - from {
                return Err(self.range_error(i, "a string whose slices keep their length", units.len()));
            }
            f(units);
            from = to;
        }
        Ok(())
    }

    /// `text.slice(from, to)` with `slice`, the string's own `slice` method.
    pub fn slice_of(
        &self,
        text: sys::napi_value,
        slice: sys::napi_value,
        from: usize,
        to: usize,
    ) -> Result<sys::napi_value, Thrown> {
        let env = self.env();
        let mut args = [ptr::null_mut(); 2];
        for (arg, n) in args.iter_mut().zip([from, to]) {
            // SAFETY: `env` is valid while the call runs; `arg` is a valid out-pointer.
            self.check(unsafe { sys::napi_create_double(env, n as f64, arg) })?;
        }
        let mut piece = ptr::null_mut();
        // SAFETY: as above; `args` holds two valid values.
        self.check(unsafe { sys::napi_call_function(env, text, slice, 2, args.as_ptr(), &mut piece) })?;
        Ok(piece)
    }

    /// A caller's notice text (a template, or what a notice function returned).
    pub fn notice_text(&self, v: sys::napi_value) -> Result<NoticeText, Thrown> {
        let mut units = Vec::new();
        let units = self.units_of::<u16>(v, &mut units)?;
        Ok(NoticeText::from_units(units))
    }

    /// The bytes of the `Uint8Array` (or `Buffer`) argument `i`, borrowed from its memory,
    /// and whether that memory is shared with other threads.
    ///
    /// The slice is valid until JS runs: JS may write to the array or detach its buffer, so
    /// a caller that lets JS run while planning must copy the bytes first.
    ///
    /// As WebAssembly the bytes are a copy the call keeps: emnapi's own copy would stay in
    /// the module's memory until V8 collects the array (see `wasm.rs`).
    pub fn bytes(&self, i: usize) -> Result<(&[u8], bool), Thrown> {
        let wasm = cfg!(target_family = "wasm");
        let array = self.typed_array(i, sys::TypedarrayType::uint8_array, "a Uint8Array or Buffer", !wasm)?;
        if array.detached {
            return Err(self.type_error(i, "a Uint8Array whose buffer is not detached"));
        }
        let shared = !array.unshared;
        if array.length == 0 {
            return Ok((&[], shared));
        }
        #[cfg(target_family = "wasm")]
        {
            Ok((crate::wasm::copy_bytes(self, self.arg(i), array.length)?, shared))
        }
        #[cfg(not(target_family = "wasm"))]
        {
            let bytes = if array.data.is_null() {
                &[][..]
            } else {
                // SAFETY: an attached Uint8Array's data points at `length` initialised bytes,
                // which stay valid until JS runs again (see the doc comment).
                unsafe { std::slice::from_raw_parts(array.data.cast::<u8>(), array.length) }
            };
            Ok((bytes, shared))
        }
    }

    /// The doubles of the `Float64Array` argument `i`, to read and overwrite in place. Its
    /// buffer must be an attached, unshared `ArrayBuffer`: only the JS that made the array
    /// (`lib/native.js`) can reach it, and no other thread can.
    ///
    /// # Safety
    ///
    /// The slice is valid until JS runs: the caller must not let JS run while it holds it,
    /// nor hold two slices of the same argument.
    // The doubles live in JS memory, not in `self`: the borrow of `self` only ties the
    // slice to the call that may reach them.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn f64s_mut(&self, i: usize) -> Result<&mut [f64], Thrown> {
        let expected = "a Float64Array over an attached ArrayBuffer";
        let array = self.typed_array(i, sys::TypedarrayType::float64_array, expected, true)?;
        if !array.unshared || array.detached {
            return Err(self.type_error(i, expected));
        }
        if array.length == 0 || array.data.is_null() {
            return Ok(&mut []);
        }
        if array.data.align_offset(align_of::<f64>()) != 0 {
            return Err(self.type_error(i, expected));
        }
        // SAFETY: an attached, unshared Float64Array's data points at `length` initialised,
        // 8-aligned (checked) doubles that no other thread can touch; the caller lets no JS
        // run while the slice lives and holds no other slice of them (# Safety).
        Ok(unsafe { std::slice::from_raw_parts_mut(array.data.cast::<f64>(), array.length) })
    }

    /// What Node-API says of the typed array argument `i`, which must be of `kind`
    /// (`expected` names it in the error otherwise); its `data` only `with_data` (null else).
    fn typed_array(
        &self,
        i: usize,
        kind: sys::napi_typedarray_type,
        expected: &str,
        with_data: bool,
    ) -> Result<TypedArray, Thrown> {
        let env = self.env();
        let v = self.arg(i);
        let mut is_typed_array = false;
        // SAFETY: `env` and `v` are valid while the call runs.
        self.check(unsafe { sys::napi_is_typedarray(env, v, &mut is_typed_array) })?;
        if !is_typed_array {
            return Err(self.type_error(i, expected));
        }
        let mut actual = 0;
        let mut length = 0;
        let mut data: *mut c_void = ptr::null_mut();
        let mut memory = ptr::null_mut();
        let mut offset = 0;
        // SAFETY: as above; every out-pointer is valid.
        self.check(unsafe {
            let data = if with_data { &mut data } else { ptr::null_mut() };
            sys::napi_get_typedarray_info(env, v, &mut actual, &mut length, data, &mut memory, &mut offset)
        })?;
        if actual != kind {
            return Err(self.type_error(i, expected));
        }
        let mut unshared = false;
        // SAFETY: `memory` is the array's buffer, valid while the call runs.
        self.check(unsafe { sys::napi_is_arraybuffer(env, memory, &mut unshared) })?;
        let mut detached = false;
        if unshared {
            // SAFETY: as above.
            self.check(unsafe { sys::napi_is_detached_arraybuffer(env, memory, &mut detached) })?;
        }
        Ok(TypedArray { length, data, unshared, detached })
    }

    pub fn check_length(&self, chars: usize) -> Result<(), Thrown> {
        if chars as u64 > MAX_STRING_LENGTH {
            return Err(Thrown::Range(format!(
                "toolclamp: the clamped text would be {chars} chars, more than the {MAX_STRING_LENGTH} a JS string \
                 can hold; set a smaller limit"
            )));
        }
        Ok(())
    }

    /// A JS string from Rust text whose UTF-16 length is `chars`.
    pub fn string_from_utf8(&self, bytes: &[u8], chars: usize) -> Answer {
        self.check_length(chars)?;
        #[cfg(target_family = "wasm")]
        {
            crate::wasm::string_from_utf8(self, bytes)
        }
        #[cfg(not(target_family = "wasm"))]
        {
            let mut v = ptr::null_mut();
            // ASCII is Latin-1, which V8 copies as it is instead of decoding.
            let status = if bytes.is_ascii() {
                // SAFETY: `env` is valid while the call runs; `bytes` is a live slice.
                unsafe {
                    sys::napi_create_string_latin1(self.env(), bytes.as_ptr().cast(), bytes.len() as isize, &mut v)
                }
            } else {
                // SAFETY: as above.
                unsafe { sys::napi_create_string_utf8(self.env(), bytes.as_ptr().cast(), bytes.len() as isize, &mut v) }
            };
            self.check(status)?;
            Ok(v)
        }
    }

    /// A new Buffer holding a copy of `bytes`.
    pub fn buffer_copy(&self, bytes: &[u8]) -> Answer {
        let mut v = ptr::null_mut();
        let mut data = ptr::null_mut();
        // SAFETY: `env` is valid while the call runs; `bytes` is a live slice that Node-API
        // copies before returning.
        self.check(unsafe {
            sys::napi_create_buffer_copy(self.env(), bytes.len(), bytes.as_ptr().cast(), &mut data, &mut v)
        })?;
        Ok(v)
    }

    pub fn string_from_latin1(&self, units: &[u8]) -> Answer {
        self.check_length(units.len())?;
        #[cfg(target_family = "wasm")]
        {
            crate::wasm::string_from_latin1(self, units)
        }
        #[cfg(not(target_family = "wasm"))]
        {
            let mut v = ptr::null_mut();
            // SAFETY: `env` is valid while the call runs; `units` is a live slice.
            self.check(unsafe {
                sys::napi_create_string_latin1(self.env(), units.as_ptr().cast(), units.len() as isize, &mut v)
            })?;
            Ok(v)
        }
    }

    pub fn string_from_utf16(&self, units: &[u16]) -> Answer {
        self.check_length(units.len())?;
        #[cfg(target_family = "wasm")]
        {
            crate::wasm::string_from_utf16(self, units)
        }
        #[cfg(not(target_family = "wasm"))]
        {
            let mut v = ptr::null_mut();
            // SAFETY: `env` is valid while the call runs; `units` is a live slice.
            self.check(unsafe {
                sys::napi_create_string_utf16(self.env(), units.as_ptr(), units.len() as isize, &mut v)
            })?;
            Ok(v)
        }
    }

    /// A string the core produced (a glue or banner), with any stood-in lone surrogates put back.
    pub fn string_from_core(&self, text: &str, stand_ins: &StandIns) -> Answer {
        match stand_ins.restore(text) {
            None => self.string_from_utf8(text.as_bytes(), text.encode_utf16().count()),
            Some(units) => self.string_from_utf16(&units),
        }
    }
}

/// Private-use chars standing in for lone surrogates, and the units they stand for.
#[derive(Default)]
pub struct StandIns(HashMap<char, u16>);

impl StandIns {
    /// `text` as UTF-16 with every stand-in replaced by its surrogate, or `None` when there
    /// is nothing to replace.
    pub fn restore(&self, text: &str) -> Option<Vec<u16>> {
        if self.0.is_empty() || !text.chars().any(|c| self.0.contains_key(&c)) {
            return None;
        }
        let mut units = Vec::with_capacity(text.len());
        let mut pair = [0u16; 2];
        for c in text.chars() {
            match self.0.get(&c) {
                Some(&unit) => units.push(unit),
                None => units.extend_from_slice(c.encode_utf16(&mut pair)),
            }
        }
        Some(units)
    }

    pub fn extend(&mut self, other: StandIns) {
        self.0.extend(other.0);
    }
}

/// A notice's text for the core, and the stand-ins it uses.
/// A typed array argument: its length in elements, its data, and whether its buffer is an
/// `ArrayBuffer` (not shared with other threads) and detached.
struct TypedArray {
    length: usize,
    data: *mut c_void,
    unshared: bool,
    detached: bool,
}

pub struct NoticeText {
    pub text: String,
    pub stand_ins: StandIns,
}

impl NoticeText {
    pub fn from_units(units: &[u16]) -> Self {
        let lone = char::decode_utf16(units.iter().copied()).any(|c| c.is_err());
        if !lone {
            let text =
                char::decode_utf16(units.iter().copied()).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)).collect();
            return NoticeText { text, stand_ins: StandIns::default() };
        }
        // Stand-ins are taken from the private-use chars the notice does not contain, so
        // restoring can never touch a char the caller wrote.
        let used: std::collections::HashSet<u16> =
            units.iter().copied().filter(|u| (0xE000..=0xF8FF).contains(u)).collect();
        let mut free = (0xE000u32..=0xF8FF).filter(|u| !used.contains(&(*u as u16))).filter_map(char::from_u32);
        let mut by_unit: HashMap<u16, char> = HashMap::new();
        let mut text = String::with_capacity(units.len() * 3);
        for c in char::decode_utf16(units.iter().copied()) {
            match c {
                Ok(c) => text.push(c),
                Err(e) => {
                    let unit = e.unpaired_surrogate();
                    // 6,400 private-use chars, at most 2,048 distinct surrogates: never runs out.
                    let stand_in =
                        *by_unit.entry(unit).or_insert_with(|| free.next().expect("a free private-use char"));
                    text.push(stand_in);
                }
            }
        }
        NoticeText { text, stand_ins: StandIns(by_unit.into_iter().map(|(unit, c)| (c, unit)).collect()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_come_back_as_they_were() {
        let units: Vec<u16> = vec![0x61, 0xD800, 0xE000, 0xDC00, 0xD83D, 0xDE00, 0xD800];
        let notice = NoticeText::from_units(&units);
        assert_eq!(notice.text.encode_utf16().count(), units.len());
        assert_eq!(notice.stand_ins.restore(&notice.text).unwrap(), units);
        // Same weight: one unit and three bytes per stand-in.
        let stand_ins = notice.text.chars().filter(|c| notice.stand_ins.0.contains_key(c)).count();
        assert_eq!(stand_ins, 3);
        assert!(!notice.stand_ins.0.contains_key(&'\u{E000}'));
    }

    #[test]
    fn text_without_lone_surrogates_needs_no_stand_ins() {
        let units: Vec<u16> = "日本😀".encode_utf16().collect();
        let notice = NoticeText::from_units(&units);
        assert_eq!(notice.text, "日本😀");
        assert!(notice.stand_ins.restore(&notice.text).is_none());
    }
}
