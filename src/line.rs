//! Long JSON lines as JS handles (the MCP proxy's messages of megabytes): the bytes of a
//! line are appended here chunk by chunk as they come off the pipe, so JS lets each chunk go
//! at once; the line is then read by the core ([`toolclamp_core::json_line`]) into a small
//! skeleton that JS parses, and its long strings, which JS puts back where the skeleton's
//! markers are.
//!
//! Memory is the point: a long ASCII string becomes an external JS string over the line's
//! own bytes (decoded in place when the caller allows it), so the line is held once, not
//! as bytes, then text, then parsed value. Other strings are decoded into a buffer of their
//! own, also handed to V8 as an external string. Where Node-API has no external strings
//! (before Node 20.4, or as WebAssembly), strings are copied as usual.
//!
//! A line is a handle (`handle.rs`); no JS runs while the binding holds its state, so the
//! `RefCell` never meets a second borrow.

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use napi::sys;
use toolclamp_core::json_line::{decode_latin1, decode_utf16, skeleton, unescape_ascii_in_place, LongString, Width};

use crate::call::{Answer, Call, Thrown};
use crate::handle::{self as handles, Handle};
use crate::text::{with_scratch, LATIN1};

/// Marks externals made by this module (see the capture's tag).
const TAG: sys::napi_type_tag = sys::napi_type_tag { lower: 0x8e41_27c9_50ad_3b16, upper: 0x1f7b_d2e0_6c39_a58d };

struct State {
    bytes: Bytes,
    /// The long strings the last scan found.
    strings: Vec<LongString>,
    /// Some string was decoded where it was written: the bytes no longer read as they came.
    decoded_in_place: bool,
}

enum Bytes {
    /// Still being appended to, or read.
    Growing(Vec<u8>),
    /// Shared with the external strings made over it: never changed again.
    Frozen(Arc<Vec<u8>>),
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Growing(v) => v,
            Bytes::Frozen(v) => v,
        }
    }
}

/// A line's handle.
type LineHandle = Handle<State>;

/// The line behind argument `i`.
fn handle(call: &Call, i: usize) -> Result<&LineHandle, Thrown> {
    handles::from_arg(call, i, &TAG, "a JSON line handle")
}

fn with_state<R>(call: &Call, i: usize, f: impl FnOnce(&mut State) -> Result<R, Thrown>) -> Result<R, Thrown> {
    let handle = handle(call, i)?;
    let mut state =
        handle.state.try_borrow_mut().map_err(|_| Thrown::Error("toolclamp: the JSON line is in use".into()))?;
    let state = state.as_mut().ok_or_else(|| Thrown::Error("toolclamp: the JSON line was disposed".into()))?;
    let r = f(state)?;
    handle.report(call.env(), state.bytes.as_slice().len());
    Ok(r)
}

/// `jsonLineCreate` → a handle to an empty line.
pub fn json_line_create(call: &Call) -> Answer {
    let state = State { bytes: Bytes::Growing(Vec::new()), strings: Vec::new(), decoded_in_place: false };
    handles::create(call, &TAG, state)
}

/// `jsonLineAppend`: adds a chunk's bytes (a Uint8Array) to the line.
pub fn json_line_append(call: &Call) -> Answer {
    let (chunk, _) = call.bytes(2)?;
    with_state(call, 1, |state| match &mut state.bytes {
        Bytes::Growing(bytes) => {
            bytes.extend_from_slice(chunk);
            Ok(())
        }
        Bytes::Frozen(_) => Err(Thrown::Error("toolclamp: the JSON line was read already".into())),
    })?;
    call.undefined()
}

/// `jsonLineScan` → the line's skeleton, a string in which every string value of at least
/// `minLength` bytes as written is `"<marker><k>"`, or `null` when the line is not valid
/// UTF-8 or not JSON that `JSON.parse` takes. `marker` must be printable ASCII without `"`
/// or `\`.
pub fn json_line_scan(call: &Call) -> Answer {
    let min_len = call.index(2)?;
    let marker = with_scratch(&LATIN1, |buf| call.string_arg::<u8>(3, buf).map(<[u8]>::to_vec))?;
    if marker.is_empty() || !marker.iter().all(|&c| (0x20..0x7F).contains(&c) && c != b'"' && c != b'\\') {
        return Err(call.type_error(3, "printable ASCII without quotes or backslashes"));
    }
    with_state(call, 1, |state| {
        // Its long strings were decoded where they were written: the bytes are no JSON text now.
        if state.decoded_in_place {
            return Err(Thrown::Error("toolclamp: the JSON line was read already".into()));
        }
        let Some(found) = skeleton(state.bytes.as_slice(), min_len, &marker) else {
            state.strings.clear();
            return call.null();
        };
        // SAFETY: a skeleton is the valid UTF-8 it was checked as, with ASCII markers.
        let chars = unsafe { std::str::from_utf8_unchecked(&found.text) }.encode_utf16().count();
        let text = call.string_from_utf8(&found.text, chars)?;
        state.strings = found.strings;
        Ok(text)
    })
}

/// A long string, ready to become a JS string.
enum Made {
    /// ASCII at `start..start + len` of the line's bytes.
    InLine {
        start: usize,
        len: usize,
    },
    Latin1(Vec<u8>),
    Utf16(Vec<u16>),
}

/// `jsonLineLengths` → the length in bytes, as written, of each long string the last scan
/// found, in order.
pub fn json_line_lengths(call: &Call) -> Answer {
    let lengths: Vec<usize> = with_state(call, 1, |state| Ok(state.strings.iter().map(|s| s.end - s.start).collect()))?;
    let values: Vec<_> =
        lengths.into_iter().map(|length| call.number_value(length as f64)).collect::<Result<_, Thrown>>()?;
    call.array(&values)
}

/// `jsonLineStrings` → an array of the long strings the last scan found, decoded, in
/// order. An escaped ASCII string whose flag in `inPlace` (a Uint8Array, one byte a string)
/// is set is decoded where it was written, which costs no copy, and the line can no longer
/// be read as it came ([`json_line_bytes`]). The bytes are never changed after: external
/// strings read them.
pub fn json_line_strings(call: &Call) -> Answer {
    let (flags, _) = call.bytes(2)?;
    let (bytes, made) = with_state(call, 1, |state| {
        let strings = std::mem::take(&mut state.strings);
        let mut made = Vec::with_capacity(strings.len());
        if let Bytes::Growing(bytes) = &mut state.bytes {
            for (k, s) in strings.iter().enumerate() {
                let in_place = flags.get(k).is_some_and(|&f| f != 0);
                made.push(match s.width {
                    Width::Ascii if !s.escaped || in_place => {
                        state.decoded_in_place |= s.escaped;
                        Made::InLine { start: s.start, len: unescape_ascii_in_place(bytes, s) }
                    }
                    Width::Ascii | Width::Latin1 => Made::Latin1(decode_latin1(s.content(bytes))),
                    Width::Wide => Made::Utf16(decode_utf16(s.content(bytes))),
                });
            }
            state.bytes = Bytes::Frozen(Arc::new(std::mem::take(bytes)));
        } else if !strings.is_empty() {
            return Err(Thrown::Error("toolclamp: the JSON line was read already".into()));
        }
        let Bytes::Frozen(bytes) = &state.bytes else { unreachable!("frozen above") };
        Ok((Arc::clone(bytes), made))
    })?;
    let strings: Vec<_> = made
        .into_iter()
        .map(|m| match m {
            Made::InLine { start, len } => external::latin1_in(call, &bytes, start, len),
            Made::Latin1(units) => external::latin1(call, units),
            Made::Utf16(units) => external::utf16(call, units),
        })
        .collect::<Result<_, Thrown>>()?;
    call.array(&strings)
}

/// `jsonLineBytes` → a Buffer of the line as it came, or `null` once a string was decoded
/// in place.
pub fn json_line_bytes(call: &Call) -> Answer {
    let bytes = with_state(call, 1, |state| {
        if state.decoded_in_place {
            return Ok(None);
        }
        let frozen = match &mut state.bytes {
            Bytes::Growing(bytes) => Arc::new(std::mem::take(bytes)),
            Bytes::Frozen(bytes) => Arc::clone(bytes),
        };
        state.bytes = Bytes::Frozen(Arc::clone(&frozen));
        Ok(Some(frozen))
    })?;
    match bytes {
        None => call.null(),
        Some(bytes) => external::buffer(call, bytes),
    }
}

/// `jsonLineDispose`: lets the line's bytes go now (external strings made from them keep
/// what they need). Idempotent.
pub fn json_line_dispose(call: &Call) -> Answer {
    let handle = handle(call, 1)?;
    let state =
        handle.state.try_borrow_mut().map_err(|_| Thrown::Error("toolclamp: the JSON line is in use".into()))?.take();
    drop(state);
    handle.report(call.env(), 0);
    call.undefined()
}

/// Strings and Buffers over memory Rust keeps, freed by V8's finalizers; copies where
/// Node-API cannot do that.
mod external {
    use std::ffi::c_char;

    use super::*;

    /// Frees what `hint` owns: a `Box<T>` given to V8 with an external value.
    ///
    /// # Safety
    /// Called once, by Node-API, with the `hint` from `Box::into_raw(Box<T>)`.
    unsafe extern "C" fn drop_hint<T>(_env: sys::napi_env, _data: *mut c_void, hint: *mut c_void) {
        // SAFETY: per this function's contract.
        drop(unsafe { Box::from_raw(hint.cast::<T>()) });
    }

    /// `node_api_create_external_string_latin1` and `_utf16`: same shape, different units.
    type CreateExternal<U> = unsafe extern "C" fn(
        sys::napi_env,
        *mut U,
        isize,
        sys::napi_finalize,
        *mut c_void,
        *mut sys::napi_value,
        *mut bool,
    ) -> sys::napi_status;

    struct Found {
        latin1: CreateExternal<c_char>,
        utf16: CreateExternal<u16>,
    }

    /// The two functions, when the Node running has them (20.4 on): looked up at run time,
    /// so that the addon still loads where they are missing.
    #[cfg(all(unix, not(target_family = "wasm")))]
    fn found() -> Option<&'static Found> {
        static FOUND: std::sync::OnceLock<Option<Found>> = std::sync::OnceLock::new();
        FOUND
            .get_or_init(|| {
                // SAFETY: dlsym with NUL-terminated names; a non-null answer is the address of
                // the Node-API function of that name, whose signature is `CreateExternal`'s.
                unsafe {
                    let latin1 = libc::dlsym(libc::RTLD_DEFAULT, c"node_api_create_external_string_latin1".as_ptr());
                    let utf16 = libc::dlsym(libc::RTLD_DEFAULT, c"node_api_create_external_string_utf16".as_ptr());
                    if latin1.is_null() || utf16.is_null() {
                        return None;
                    }
                    Some(Found {
                        latin1: std::mem::transmute::<*mut c_void, CreateExternal<c_char>>(latin1),
                        utf16: std::mem::transmute::<*mut c_void, CreateExternal<u16>>(utf16),
                    })
                }
            })
            .as_ref()
    }

    /// Elsewhere (Windows, WebAssembly) strings are copied.
    #[cfg(not(all(unix, not(target_family = "wasm"))))]
    fn found() -> Option<&'static Found> {
        None
    }

    /// An external string of the `len` units at `data`, which `owner` keeps alive, or
    /// `owner` back where Node-API cannot make one.
    fn make<U, T>(
        call: &Call,
        create: Option<CreateExternal<U>>,
        data: *const U,
        len: usize,
        owner: T,
    ) -> Result<Result<sys::napi_value, T>, Thrown> {
        let Some(create) = create else { return Ok(Err(owner)) };
        call.check_length(len)?;
        let hint = Box::into_raw(Box::new(owner));
        let mut v = ptr::null_mut();
        let mut copied = false;
        // SAFETY: `data` holds `len` units kept alive by `*hint` until `drop_hint` runs, which
        // Node-API calls once: when V8 lets the string go, or before returning if it copied
        // the units instead.
        let status = unsafe {
            create(call.env(), data.cast_mut(), len as isize, Some(drop_hint::<T>), hint.cast(), &mut v, &mut copied)
        };
        if status != sys::Status::napi_ok {
            // SAFETY: no string was made, so the finalizer will not run; `hint` is ours again.
            return Ok(Err(*unsafe { Box::from_raw(hint) }));
        }
        Ok(Ok(v))
    }

    /// The ASCII `line[start..start + len]` as a string over the line's own bytes.
    pub fn latin1_in(call: &Call, line: &Arc<Vec<u8>>, start: usize, len: usize) -> Answer {
        let data = line[start..start + len].as_ptr().cast::<c_char>();
        match make(call, found().map(|f| f.latin1), data, len, Arc::clone(line))? {
            Ok(v) => Ok(v),
            Err(_) => call.string_from_latin1(&line[start..start + len]),
        }
    }

    pub fn latin1(call: &Call, units: Vec<u8>) -> Answer {
        let (data, len) = (units.as_ptr().cast::<c_char>(), units.len());
        match make(call, found().map(|f| f.latin1), data, len, units)? {
            Ok(v) => Ok(v),
            Err(units) => call.string_from_latin1(&units),
        }
    }

    pub fn utf16(call: &Call, units: Vec<u16>) -> Answer {
        let (data, len) = (units.as_ptr(), units.len());
        match make(call, found().map(|f| f.utf16), data, len, units)? {
            Ok(v) => Ok(v),
            Err(units) => call.string_from_utf16(&units),
        }
    }

    /// A Buffer over `bytes`, kept alive until V8 lets it go (a copy as WebAssembly, or
    /// where external buffers are not allowed).
    pub fn buffer(call: &Call, bytes: Arc<Vec<u8>>) -> Answer {
        #[cfg(not(target_family = "wasm"))]
        if !bytes.is_empty() {
            let (data, len) = (bytes.as_ptr().cast_mut().cast::<c_void>(), bytes.len());
            let hint = Box::into_raw(Box::new(Arc::clone(&bytes)));
            let mut v = ptr::null_mut();
            // SAFETY: `data` holds `len` bytes kept alive by `*hint` until `drop_hint` runs,
            // once, when V8 lets the Buffer go. JS may write to the Buffer: nothing else
            // reads these bytes after this call but the external strings made before it,
            // which are over strings this Buffer's reader never changes (see proxy.js).
            let status = unsafe {
                sys::napi_create_external_buffer(
                    call.env(),
                    len,
                    data,
                    Some(drop_hint::<Arc<Vec<u8>>>),
                    hint.cast(),
                    &mut v,
                )
            };
            if status == sys::Status::napi_ok {
                return Ok(v);
            }
            // SAFETY: no Buffer was made, so the finalizer will not run.
            drop(unsafe { Box::from_raw(hint) });
        }
        call.buffer_copy(&bytes)
    }
}
