//! One Node-API callback serves every export: it finds the export in the callback's data,
//! checks the argument count, runs the body under `catch_unwind`, and turns every failure
//! into a thrown JS error. Nothing a body returns early can leave JS with `undefined`.
//!
//! Argument readers check types and ranges and name the parameter they read, so a wrong
//! call fails with a `TypeError` or `RangeError` saying what was wrong; a failed Node-API
//! call throws with the status and message Node-API gives for it.

use std::ffi::{c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use napi::sys;
use toolclamp_core::{auto_strategy, Limits, Source, Strategy, UNLIMITED};

use crate::layout::{
    strategy_of, Field, Results, AUTO, BUFFER_LENGTH, FACTS_START, FACT_COUNT, FIELD_COUNT, FIELD_NAMES, REQUEST_START,
    SLOT_COUNT,
};

/// A JS exception to throw, or one already pending.
pub enum Thrown {
    Type(String),
    Range(String),
    Error(String),
    Pending,
}

pub type Answer = Result<sys::napi_value, Thrown>;

/// A strategy argument: a strategy, or `auto`, resolved once the text is read.
#[derive(Clone, Copy, Debug)]
pub enum StrategyArg {
    Fixed(Strategy),
    Auto { head_ratio: f64 },
}

impl StrategyArg {
    pub fn resolve<S: Source + ?Sized>(self, src: &S) -> Strategy {
        match self {
            StrategyArg::Fixed(strategy) => strategy,
            StrategyArg::Auto { head_ratio } => auto_strategy(src, head_ratio),
        }
    }
}

/// One exported function: its name, its parameters in the order JS passes them (for the
/// count check and messages), the fields of the request block it reads (see
/// [`crate::layout::Field`]), and its body. `register` publishes the names as
/// `LAYOUT.exports`, which `lib/native.js` and the tests read.
pub struct Export {
    pub name: &'static CStr,
    pub params: &'static [&'static str],
    pub request: &'static [Field],
    pub body: fn(&Call) -> Answer,
}

/// The most parameters an export takes.
pub const MAX_PARAMS: usize = 9;

/// The arguments of one call into the binding. Exists only inside [`dispatch`], so its
/// `env` and values are valid for as long as it lives.
pub struct Call {
    env: sys::napi_env,
    export: &'static Export,
    argv: [sys::napi_value; MAX_PARAMS],
    /// The request block as it was when the call began, before any JS (a notice function)
    /// could run and reuse the array.
    request: [f64; FIELD_COUNT],
    /// As WebAssembly, the copies of JS bytes the call reads (`crate::wasm::copy_bytes`),
    /// kept until it returns.
    #[cfg(target_family = "wasm")]
    kept: std::cell::UnsafeCell<Vec<Vec<u8>>>,
}

/// The callback registered for every export.
///
/// # Safety
/// Node-API calls it with a valid `env` and `info`, on the JS thread, and the function's
/// data is the `&'static Export` given to `napi_create_function` in `register`.
pub unsafe extern "C" fn dispatch(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // One slot more than any export takes, so a call with too many arguments is seen.
    let mut argv = [ptr::null_mut(); MAX_PARAMS + 1];
    let mut argc = argv.len();
    let mut data: *mut c_void = ptr::null_mut();
    // SAFETY: `env` and `info` are this callback's; `argv` has room for `argc` values.
    let status = unsafe { sys::napi_get_cb_info(env, info, &mut argc, argv.as_mut_ptr(), ptr::null_mut(), &mut data) };
    if status != sys::Status::napi_ok || data.is_null() {
        // SAFETY: `env` is this callback's.
        unsafe {
            throw(env, &Thrown::Error(format!("toolclamp: reading a call's arguments failed (status {status})")));
        };
        return ptr::null_mut();
    }
    // SAFETY: `register` passes a `&'static Export` as every function's data.
    let export: &'static Export = unsafe { &*data.cast::<Export>() };
    let name = || export.name.to_string_lossy();
    let answer = if argc != export.params.len() {
        Err(Thrown::Type(format!(
            "toolclamp binding: {}({}) takes {} arguments, got {argc}",
            name(),
            export.params.join(", "),
            export.params.len()
        )))
    } else {
        let mut args = [ptr::null_mut(); MAX_PARAMS];
        args[..argc].copy_from_slice(&argv[..argc]);
        let mut call = Call {
            env,
            export,
            argv: args,
            request: [f64::NAN; FIELD_COUNT],
            #[cfg(target_family = "wasm")]
            kept: Default::default(),
        };
        let run = || {
            if !export.request.is_empty() {
                call.request = call.take_request()?;
            }
            (export.body)(&call)
        };
        catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(ToString::to_string)
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Thrown::Error(format!("toolclamp internal error in {}: {what}", name())))
        })
    };
    match answer {
        Ok(value) if !value.is_null() => value,
        Ok(_) => {
            let error = Thrown::Error(format!("toolclamp internal error: {} produced no value", name()));
            // SAFETY: `env` is this callback's.
            unsafe { throw(env, &error) };
            ptr::null_mut()
        }
        Err(thrown) => {
            // SAFETY: `env` is this callback's.
            unsafe { throw(env, &thrown) };
            ptr::null_mut()
        }
    }
}

/// Throws `thrown` unless an exception is already pending (which then propagates).
///
/// # Safety
/// `env` must be the environment of the callback that is running.
unsafe fn throw(env: sys::napi_env, thrown: &Thrown) {
    let mut pending = false;
    // SAFETY: per this function's contract.
    unsafe { sys::napi_is_exception_pending(env, &mut pending) };
    let (message, throw_fn): (&str, unsafe extern "C" fn(_, _, _) -> _) = match thrown {
        Thrown::Type(m) => (m, sys::napi_throw_type_error),
        Thrown::Range(m) => (m, sys::napi_throw_range_error),
        Thrown::Error(m) => (m, sys::napi_throw_error),
        Thrown::Pending if pending => return,
        Thrown::Pending => ("toolclamp: a Node-API call failed and left no exception", sys::napi_throw_error),
    };
    if pending {
        return;
    }
    let message = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: per this function's contract; the message is NUL-terminated.
    unsafe { throw_fn(env, ptr::null(), message.as_ptr()) };
}

impl Call {
    pub fn env(&self) -> sys::napi_env {
        self.env
    }

    pub fn arg(&self, i: usize) -> sys::napi_value {
        self.argv[i]
    }

    /// Keeps `bytes` until the call returns, and lends them for as long.
    #[cfg(target_family = "wasm")]
    pub fn keep(&self, bytes: Vec<u8>) -> &[u8] {
        // SAFETY: `kept` is reached only here, on the JS thread, and only ever pushed to: no
        // other reference to it exists while this one lives.
        let kept = unsafe { &mut *self.kept.get() };
        kept.push(bytes);
        let last = &kept[kept.len() - 1];
        // SAFETY: a pushed Vec is neither changed nor dropped before the call is, and its heap
        // buffer does not move when `kept` grows, so the bytes stay valid as long as `self`.
        unsafe { std::slice::from_raw_parts(last.as_ptr(), last.len()) }
    }

    fn param(&self, i: usize) -> &'static str {
        self.export.params[i]
    }

    pub fn name(&self) -> std::borrow::Cow<'static, str> {
        self.export.name.to_string_lossy()
    }

    pub fn type_error(&self, i: usize, expected: &str) -> Thrown {
        Thrown::Type(format!("toolclamp binding: {}: {} must be {expected}", self.name(), self.param(i)))
    }

    /// A reader's bare `Thrown::Type` (the value had the wrong type) as the `TypeError` that
    /// names argument `i`; any other failure as it is.
    pub fn naming(&self, thrown: Thrown, i: usize, expected: &str) -> Thrown {
        match thrown {
            Thrown::Type(_) => self.type_error(i, expected),
            other => other,
        }
    }

    pub fn range_error(&self, i: usize, expected: &str, got: impl std::fmt::Display) -> Thrown {
        self.range_error_of(self.param(i), expected, got)
    }

    /// A `RangeError` for the parameter or request field `what`.
    fn range_error_of(&self, what: &str, expected: &str, got: impl std::fmt::Display) -> Thrown {
        Thrown::Range(format!("toolclamp binding: {}: {what} must be {expected}, got {got}", self.name()))
    }

    /// `Ok` for `napi_ok`; otherwise the pending exception, or an `Error` with the status and
    /// Node-API's own message for it.
    #[inline(always)]
    pub fn check(&self, status: sys::napi_status) -> Result<(), Thrown> {
        if status == sys::Status::napi_ok {
            Ok(())
        } else {
            Err(self.failure(status))
        }
    }

    #[cold]
    #[inline(never)]
    fn failure(&self, status: sys::napi_status) -> Thrown {
        let mut info: *const sys::napi_extended_error_info = ptr::null();
        // SAFETY: `env` is valid while the call runs. Read before any other Node-API call,
        // which would reset the last error.
        unsafe { sys::napi_get_last_error_info(self.env, &mut info) };
        // SAFETY: Node-API returns a valid info struct whose message is NUL-terminated or null.
        let message = unsafe { info.as_ref() }
            .filter(|info| !info.error_message.is_null())
            .map(|info| unsafe { CStr::from_ptr(info.error_message) }.to_string_lossy().into_owned())
            .unwrap_or_else(|| "no message".into());
        let mut pending = false;
        // SAFETY: `env` is valid while the call runs.
        unsafe { sys::napi_is_exception_pending(self.env, &mut pending) };
        if pending {
            return Thrown::Pending;
        }
        Thrown::Error(format!("toolclamp binding: {}: Node-API failed: {message} (status {status})", self.name()))
    }

    /// Checks a status from reading argument `i`: `expected_status` means the argument has
    /// the wrong type.
    pub fn check_arg(
        &self,
        status: sys::napi_status,
        i: usize,
        expected_status: sys::napi_status,
        expected: &str,
    ) -> Result<(), Thrown> {
        if status == expected_status {
            return Err(self.type_error(i, expected));
        }
        self.check(status)
    }

    pub fn type_of(&self, value: sys::napi_value) -> Result<sys::napi_valuetype, Thrown> {
        let mut t = 0;
        // SAFETY: `env` and `value` are valid while the call runs.
        self.check(unsafe { sys::napi_typeof(self.env, value, &mut t) })?;
        Ok(t)
    }

    pub fn number(&self, i: usize) -> Result<f64, Thrown> {
        let mut x = 0.0;
        // SAFETY: `env` and the argument are valid while the call runs.
        let status = unsafe { sys::napi_get_value_double(self.env, self.argv[i], &mut x) };
        self.check_arg(status, i, sys::Status::napi_number_expected, "a number")?;
        Ok(x)
    }

    pub fn boolean(&self, i: usize) -> Result<bool, Thrown> {
        let mut x = false;
        // SAFETY: `env` and the argument are valid while the call runs.
        let status = unsafe { sys::napi_get_value_bool(self.env, self.argv[i], &mut x) };
        self.check_arg(status, i, sys::Status::napi_boolean_expected, "a boolean")?;
        Ok(x)
    }

    /// A budget: a non-negative integer, or `Infinity` for none.
    pub fn budget(&self, i: usize) -> Result<u64, Thrown> {
        self.budget_of(self.number(i)?, self.param(i))
    }

    fn budget_of(&self, x: f64, what: &str) -> Result<u64, Thrown> {
        if x == f64::INFINITY {
            return Ok(UNLIMITED);
        }
        whole(x).ok_or_else(|| self.range_error_of(what, "a non-negative integer or Infinity", x))
    }

    /// A position or length: a non-negative safe integer.
    pub fn index(&self, i: usize) -> Result<usize, Thrown> {
        let x = self.number(i)?;
        whole(x).map(|n| n as usize).ok_or_else(|| self.range_error(i, "a non-negative integer", x))
    }

    /// The attached `ArrayBuffer` of argument 0 (the result array) as a pointer to its
    /// doubles, checked each time: JS may have run since the call began.
    fn result_array(&self) -> Result<*mut f64, Thrown> {
        let mut data: *mut c_void = ptr::null_mut();
        let mut length = 0;
        // SAFETY: `env` and the argument are valid while the call runs; the out-pointers are
        // valid. Anything but an ArrayBuffer (a SharedArrayBuffer too) fails with a status
        // and no exception; a detached one reports length 0.
        let status = unsafe { sys::napi_get_arraybuffer_info(self.env, self.argv[0], &mut data, &mut length) };
        let size = BUFFER_LENGTH * size_of::<f64>();
        // emnapi's napi_get_arraybuffer_info takes a SharedArrayBuffer too; Node's does not.
        #[cfg(target_family = "wasm")]
        let status = if status == sys::Status::napi_ok && !self.is_arraybuffer(self.argv[0]) {
            sys::Status::napi_arraybuffer_expected
        } else {
            status
        };
        if status != sys::Status::napi_ok || length < size || data.is_null() || data.align_offset(8) != 0 {
            return Err(self.type_error(0, &format!("an attached ArrayBuffer of {size} bytes")));
        }
        Ok(data.cast::<f64>())
    }

    /// Whether `value` is an `ArrayBuffer` (a `SharedArrayBuffer` is not).
    #[cfg(target_family = "wasm")]
    fn is_arraybuffer(&self, value: sys::napi_value) -> bool {
        let mut is = false;
        // SAFETY: `env` and `value` are valid while the call runs.
        let status = unsafe { sys::napi_is_arraybuffer(self.env, value, &mut is) };
        status == sys::Status::napi_ok && is
    }

    /// Copies the request block out of the result array and fills it with NaN, so a field
    /// JS forgot to write for the next call is refused, not read stale.
    fn take_request(&self) -> Result<[f64; FIELD_COUNT], Thrown> {
        let data = self.result_array()?;
        let mut request = [0.0; FIELD_COUNT];
        // SAFETY: `data` points at BUFFER_LENGTH doubles of a live, attached, 8-aligned
        // ArrayBuffer (checked), of which the request block is a part. No JS runs here, and
        // no Rust reference to that memory exists.
        unsafe {
            let block = data.add(REQUEST_START);
            ptr::copy_nonoverlapping(block, request.as_mut_ptr(), FIELD_COUNT);
            for k in 0..FIELD_COUNT {
                block.add(k).write(f64::NAN);
            }
        }
        self.written(self.argv[0], REQUEST_START, FIELD_COUNT)?;
        Ok(request)
    }

    /// Makes the doubles `start..start + count` that the binding wrote into the JS buffer or
    /// typed array `value` visible to JS. Natively Node-API hands out the buffer's own
    /// memory and there is nothing to do. Compiled to WebAssembly, Node-API (emnapi) hands
    /// out a copy of the buffer inside the module's memory, fresh at each request for it,
    /// and what was written there reaches JS only when copied back.
    #[cfg(not(target_family = "wasm"))]
    #[inline(always)]
    pub fn written(&self, _value: sys::napi_value, _start: usize, _count: usize) -> Result<(), Thrown> {
        Ok(())
    }

    /// See the native build's `written`.
    #[cfg(target_family = "wasm")]
    pub fn written(&self, value: sys::napi_value, start: usize, count: usize) -> Result<(), Thrown> {
        extern "C" {
            /// emnapi's own: copies `length` bytes at `byte_offset` between the JS buffer
            /// and its copy in the module's memory (`js_to_wasm` false: to JS).
            fn emnapi_sync_memory(
                env: sys::napi_env,
                js_to_wasm: bool,
                arraybuffer_or_view: *mut sys::napi_value,
                byte_offset: usize,
                length: usize,
            ) -> sys::napi_status;
        }
        if count == 0 {
            // Nothing written; an empty buffer has no copy to copy from.
            return Ok(());
        }
        let mut value = value;
        // From the buffer's start: emnapi 2.0.0-beta.2 applies an offset to the JS side of the
        // copy only, not to the module's side, so only a range from 0 lands where it belongs.
        // The result buffer is a few hundred bytes, and the other arrays are copied whole.
        let length = (start + count) * size_of::<f64>();
        // SAFETY: `env` and `value` are valid while the call runs; emnapi checks that the
        // range lies within both the buffer and its copy.
        self.check(unsafe { emnapi_sync_memory(self.env, false, &mut value, 0, length) })
    }

    /// A field of the request block; the export must list it.
    fn field(&self, field: Field) -> f64 {
        debug_assert!(self.export.request.contains(&field), "{} reads {field:?}, which it does not list", self.name());
        self.request[field as usize]
    }

    fn field_name(field: Field) -> &'static str {
        FIELD_NAMES[field as usize]
    }

    /// A budget field: a non-negative integer, or `Infinity` for none.
    pub fn budget_field(&self, field: Field) -> Result<u64, Thrown> {
        self.budget_of(self.field(field), Self::field_name(field))
    }

    /// A code field: a whole number that indexes `names`.
    pub fn code_field(&self, field: Field, names: &[&str]) -> Result<usize, Thrown> {
        let x = self.field(field);
        let name = Self::field_name(field);
        match whole(x) {
            Some(n) if n < names.len() as u64 => Ok(n as usize),
            _ => Err(self.range_error_of(name, &format!("a {name} code from 0 to {}", names.len() - 1), x)),
        }
    }

    /// A `RangeError` for the request field `field`.
    pub fn field_range_error(&self, field: Field, expected: &str, got: impl std::fmt::Display) -> Thrown {
        self.range_error_of(Self::field_name(field), expected, got)
    }

    /// A yes/no field: 1 or 0 (JS writes a boolean into the array).
    pub fn flag(&self, field: Field) -> Result<bool, Thrown> {
        match self.field(field) {
            1.0 => Ok(true),
            0.0 => Ok(false),
            x => Err(self.range_error_of(Self::field_name(field), "1 or 0 (a boolean)", x)),
        }
    }

    /// The three budgets of the request block: chars, bytes, lines.
    pub fn limits(&self) -> Result<Limits, Thrown> {
        Ok(Limits {
            max_chars: self.budget_field(Field::MaxChars)?,
            max_bytes: self.budget_field(Field::MaxBytes)?,
            max_lines: self.budget_field(Field::MaxLines)?,
        })
    }

    /// The head ratio of the request block: a number from 0 to 1.
    pub fn head_ratio(&self) -> Result<f64, Thrown> {
        let head_ratio = self.field(Field::HeadRatio);
        if !(0.0..=1.0).contains(&head_ratio) {
            return Err(self.range_error_of("headRatio", "a number from 0 to 1", head_ratio));
        }
        Ok(head_ratio)
    }

    /// The strategy code of the request block (an index into
    /// [`crate::layout::STRATEGIES`]), which may be `auto`, with the head ratio.
    pub fn strategy_or_auto(&self) -> Result<StrategyArg, Thrown> {
        let head_ratio = self.head_ratio()?;
        let c = self.field(Field::Strategy);
        match whole(c) {
            Some(n) if n == AUTO as u64 => Ok(StrategyArg::Auto { head_ratio }),
            Some(n) if n < AUTO as u64 => {
                Ok(StrategyArg::Fixed(strategy_of(n as usize, head_ratio).expect("a code below AUTO")))
            }
            _ => Err(self.range_error_of("strategy", &format!("a strategy code from 0 to {AUTO}"), c)),
        }
    }

    /// The strategy of the request block, where `auto` is not taken.
    pub fn strategy(&self) -> Result<Strategy, Thrown> {
        let head_ratio = self.head_ratio()?;
        let c = self.field(Field::Strategy);
        match whole(c).and_then(|code| strategy_of(code as usize, head_ratio)) {
            Some(strategy) => Ok(strategy),
            _ => Err(self.range_error_of("strategy", &format!("a strategy code from 0 to {}", AUTO - 1), c)),
        }
    }

    /// Writes the facts of a cut where a notice function reads them (see
    /// [`crate::layout::FACT_NAMES`]).
    pub fn write_facts(&self, facts: &[f64; FACT_COUNT]) -> Result<(), Thrown> {
        let data = self.result_array()?;
        // SAFETY: as in `take_request`; the facts block is part of the checked array.
        unsafe { ptr::copy_nonoverlapping(facts.as_ptr(), data.add(FACTS_START), FACT_COUNT) };
        self.written(self.argv[0], FACTS_START, FACT_COUNT)
    }

    /// Writes `results` to the result buffer (argument 0, the `ArrayBuffer` of the caller's
    /// `Float64Array`), checked when written: JS may have run since the call began.
    pub fn answer(&self, results: &Results) -> Result<(), Thrown> {
        let data = self.result_array()?;
        // SAFETY: `data` points at BUFFER_LENGTH writable doubles (checked), of which the
        // answer slots come first. No JS runs during the copy, and no Rust reference to that
        // memory exists.
        unsafe { ptr::copy_nonoverlapping(results.values().as_ptr(), data, SLOT_COUNT) };
        self.written(self.argv[0], 0, SLOT_COUNT)
    }

    pub fn null(&self) -> Answer {
        let mut v = ptr::null_mut();
        // SAFETY: `env` is valid while the call runs.
        self.check(unsafe { sys::napi_get_null(self.env, &mut v) })?;
        Ok(v)
    }

    pub fn boolean_value(&self, b: bool) -> Answer {
        let mut v = ptr::null_mut();
        // SAFETY: `env` is valid while the call runs.
        self.check(unsafe { sys::napi_get_boolean(self.env, b, &mut v) })?;
        Ok(v)
    }

    /// A JS array of `items`, made in this call.
    pub fn array(&self, items: &[sys::napi_value]) -> Answer {
        let mut array = ptr::null_mut();
        // SAFETY: `env` is valid while the call runs.
        self.check(unsafe { sys::napi_create_array_with_length(self.env, items.len(), &mut array) })?;
        for (i, &v) in items.iter().enumerate() {
            // SAFETY: as above; `array` and `v` are values of this call.
            self.check(unsafe { sys::napi_set_element(self.env, array, i as u32, v) })?;
        }
        Ok(array)
    }

    pub fn number_value(&self, x: f64) -> Answer {
        let mut v = ptr::null_mut();
        // SAFETY: `env` is valid while the call runs.
        self.check(unsafe { sys::napi_create_double(self.env, x, &mut v) })?;
        Ok(v)
    }

    pub fn undefined(&self) -> Answer {
        let mut v = ptr::null_mut();
        // SAFETY: `env` is valid while the call runs.
        self.check(unsafe { sys::napi_get_undefined(self.env, &mut v) })?;
        Ok(v)
    }
}

/// `Number.MAX_SAFE_INTEGER`: above it, doubles no longer count one by one.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// `x` as a count: a whole number from 0 to `MAX_SAFE_INTEGER` (`-0` is 0), else `None`.
#[inline]
fn whole(x: f64) -> Option<u64> {
    // The cast saturates (NaN becomes 0), so the round trip holds only for whole numbers in range.
    let n = x as u64;
    (n as f64 == x && x <= MAX_SAFE_INTEGER).then_some(n)
}
