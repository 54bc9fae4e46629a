//! The Node-API binding: converts JS values, calls the core, hands back offsets.
//!
//! Functions are registered as raw Node-API callbacks rather than `#[napi]` functions:
//! napi-rs 3.16 sets up a borrow scope on every call with arguments (~150–300 ns), which
//! is more than the whole clamp of a small string. Each callback copies the string's code
//! units into a reused per-thread buffer (Latin-1 for one-byte strings, UTF-16 otherwise,
//! never UTF-8, which V8 transcodes slowly), plans the cut, writes the numbers into a
//! `Float64Array` shared with `index.js`, and returns only the notice. `index.js` builds
//! the result with `slice`, so the kept text is never copied back.
//!
//! A `Uint8Array` (or `Buffer`) of UTF-8 is read in place, planned as bytes, and only the
//! kept text becomes a JS string (`planBuffer`): a child process's 16 MiB of output is
//! never decoded whole.
//!
//! `planPage` and `planPageBuffer` find one page of a long text for `readPartial`, the
//! same way: positions in the shared array, the banner as the only string returned.
//!
//! Every callback runs under `catch_unwind`: a panic becomes a thrown JS `Error` instead
//! of aborting the host process.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use napi::bindgen_prelude::{Env, JsValue, Object};
use napi::sys;
use napi_derive::napi;
use toolclamp_core::{
    decode_lossy, lossy_position, measure, page, partial_banner, plan, Limits, Measure, Notice, NoticeFacts, Page,
    PageRequest, Plan, Position, Source, Strategy, Units, Utf8, Windows, UNLIMITED,
};

/// Slots of the shared `Float64Array` (mirrored in `lib/clamp.js` and `lib/partial.js`).
mod slot {
    pub const HEAD_END: usize = 0;
    pub const TAIL_START: usize = 1;
    pub const TOTAL: usize = 2; // chars, bytes, lines
    pub const OUTPUT: usize = 5; // chars, bytes, lines
    pub const OMITTED: usize = 8; // chars, bytes, lines
    pub const TRUNCATED_BY: usize = 11;

    // After `planPage`/`planPageBuffer` (TOTAL as above).
    pub const PAGE_START: usize = 0;
    pub const PAGE_END: usize = 1;
    pub const SHOWN: usize = 5; // chars, bytes, lines
    pub const FIRST_LINE: usize = 8;
    pub const LAST_LINE: usize = 9;
    pub const START_BYTE: usize = 10;
    pub const END_BYTE: usize = 11;
    pub const NEXT_LINE: usize = 12; // 0: no next page
    pub const NEXT_COLUMN: usize = 13;

    pub const LEN: usize = 14;
}

/// How many doubles the result array passed to `init` must hold.
#[napi]
pub const RESULT_SLOTS: u32 = slot::LEN as u32;

thread_local! {
    /// The shared result array of this thread's JS environment (one per worker thread).
    static OUT: Cell<*mut f64> = const { Cell::new(ptr::null_mut()) };
    static LATIN1: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static UTF16: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
    static UTF16_WINDOWS: RefCell<[Vec<u16>; 3]> = const { RefCell::new([Vec::new(), Vec::new(), Vec::new()]) };
    static LATIN1_WINDOWS: RefCell<[Vec<u8>; 3]> = const { RefCell::new([Vec::new(), Vec::new(), Vec::new()]) };
}

/// A JS exception to throw, or one already pending.
enum Thrown {
    Type(String),
    Range(String),
    Pending,
}

/// The constructor of a thrown error.
#[derive(Clone, Copy)]
enum ErrorKind {
    Error,
    Type,
    Range,
}

type CallResult = Result<sys::napi_value, Thrown>;

#[napi(module_exports)]
pub fn register(exports: Object, env: Env) -> napi::Result<()> {
    let env = env.raw();
    let exports = exports.raw();
    let functions: [(&[u8], RawCallback); 10] = [
        (b"init\0", init),
        (b"checkTemplate\0", check_template),
        (b"plan\0", plan_string),
        (b"planList\0", plan_list),
        (b"charsWindows\0", chars_windows),
        (b"planWindows\0", plan_windows),
        (b"measure\0", measure_string),
        (b"planBuffer\0", plan_buffer),
        (b"planPage\0", plan_page),
        (b"planPageBuffer\0", plan_page_buffer),
    ];
    for (name, callback) in functions {
        let mut f = ptr::null_mut();
        unsafe {
            check(sys::napi_create_function(env, name.as_ptr().cast(), (name.len() - 1) as isize, Some(callback), ptr::null_mut(), &mut f))?;
            check(sys::napi_set_named_property(env, exports, name.as_ptr().cast(), f))?;
        }
    }
    Ok(())
}

type RawCallback = unsafe extern "C" fn(sys::napi_env, sys::napi_callback_info) -> sys::napi_value;

fn check(status: sys::napi_status) -> napi::Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(napi::Error::from_reason(format!("Node-API call failed with status {status}")))
    }
}

/// Runs a callback body, turning panics and errors into JS exceptions.
unsafe fn guarded(env: sys::napi_env, body: impl FnOnce() -> CallResult) -> sys::napi_value {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(v)) => v,
        Ok(Err(Thrown::Pending)) => ptr::null_mut(),
        Ok(Err(Thrown::Type(msg))) => {
            throw(env, &msg, ErrorKind::Type);
            ptr::null_mut()
        }
        Ok(Err(Thrown::Range(msg))) => {
            throw(env, &msg, ErrorKind::Range);
            ptr::null_mut()
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            throw(env, &format!("toolclamp internal error: {what}"), ErrorKind::Error);
            ptr::null_mut()
        }
    }
}

unsafe fn throw(env: sys::napi_env, msg: &str, kind: ErrorKind) {
    let mut pending = false;
    sys::napi_is_exception_pending(env, &mut pending);
    if pending {
        return;
    }
    let msg = std::ffi::CString::new(msg.replace('\0', " ")).unwrap_or_default();
    match kind {
        ErrorKind::Error => sys::napi_throw_error(env, ptr::null(), msg.as_ptr()),
        ErrorKind::Type => sys::napi_throw_type_error(env, ptr::null(), msg.as_ptr()),
        ErrorKind::Range => sys::napi_throw_range_error(env, ptr::null(), msg.as_ptr()),
    };
}

fn ok(status: sys::napi_status) -> Result<(), Thrown> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Thrown::Pending)
    }
}

unsafe fn args<const N: usize>(env: sys::napi_env, info: sys::napi_callback_info) -> Result<[sys::napi_value; N], Thrown> {
    let mut argv = [ptr::null_mut(); N];
    let mut argc = N;
    ok(sys::napi_get_cb_info(env, info, &mut argc, argv.as_mut_ptr(), ptr::null_mut(), ptr::null_mut()))?;
    Ok(argv)
}

unsafe fn get_f64(env: sys::napi_env, v: sys::napi_value) -> Result<f64, Thrown> {
    let mut x = 0.0;
    ok(sys::napi_get_value_double(env, v, &mut x))?;
    Ok(x)
}

/// Budgets from three JS numbers (`Infinity` for none).
unsafe fn get_limits(env: sys::napi_env, chars: sys::napi_value, bytes: sys::napi_value, lines: sys::napi_value) -> Result<Limits, Thrown> {
    Ok(Limits { max_chars: limit(get_f64(env, chars)?), max_bytes: limit(get_f64(env, bytes)?), max_lines: limit(get_f64(env, lines)?) })
}

unsafe fn get_bool(env: sys::napi_env, v: sys::napi_value) -> Result<bool, Thrown> {
    let mut x = false;
    ok(sys::napi_get_value_bool(env, v, &mut x))?;
    Ok(x)
}

/// A limit from JS: `Infinity` (validated in `index.js`) is no limit.
fn limit(x: f64) -> u64 {
    if x.is_finite() {
        x as u64
    } else {
        UNLIMITED
    }
}

fn strategy(code: f64, head_ratio: f64) -> Strategy {
    match code as u32 {
        0 => Strategy::Head,
        1 => Strategy::Tail,
        _ => Strategy::HeadTail { head_ratio },
    }
}

unsafe fn undefined(env: sys::napi_env) -> CallResult {
    let mut v = ptr::null_mut();
    ok(sys::napi_get_undefined(env, &mut v))?;
    Ok(v)
}

/// Copies a one-byte string's units (the caller checked it holds no char above U+00FF).
unsafe fn read_latin1(env: sys::napi_env, v: sys::napi_value, buf: &mut Vec<u8>) -> Result<&[u8], Thrown> {
    let mut len = 0;
    ok(sys::napi_get_value_string_latin1(env, v, ptr::null_mut(), 0, &mut len))?;
    // Node-API writes a terminating NUL.
    if buf.len() < len + 1 {
        buf.resize(len + 1, 0);
    }
    let mut copied = 0;
    ok(sys::napi_get_value_string_latin1(env, v, buf.as_mut_ptr().cast::<c_char>(), len + 1, &mut copied))?;
    Ok(&buf[..copied])
}

unsafe fn read_utf16(env: sys::napi_env, v: sys::napi_value, buf: &mut Vec<u16>) -> Result<&[u16], Thrown> {
    let mut len = 0;
    ok(sys::napi_get_value_string_utf16(env, v, ptr::null_mut(), 0, &mut len))?;
    if buf.len() < len + 1 {
        buf.resize(len + 1, 0);
    }
    let mut copied = 0;
    ok(sys::napi_get_value_string_utf16(env, v, buf.as_mut_ptr(), len + 1, &mut copied))?;
    Ok(&buf[..copied])
}

unsafe fn make_string(env: sys::napi_env, s: &str) -> CallResult {
    let mut v = ptr::null_mut();
    if s.is_ascii() {
        ok(sys::napi_create_string_latin1(env, s.as_ptr().cast(), s.len() as isize, &mut v))?;
    } else {
        ok(sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, &mut v))?;
    }
    Ok(v)
}

unsafe fn read_utf8_string(env: sys::napi_env, v: sys::napi_value) -> Result<String, Thrown> {
    let mut len = 0;
    ok(sys::napi_get_value_string_utf8(env, v, ptr::null_mut(), 0, &mut len))?;
    let mut buf = vec![0u8; len + 1];
    let mut copied = 0;
    ok(sys::napi_get_value_string_utf8(env, v, buf.as_mut_ptr().cast(), len + 1, &mut copied))?;
    buf.truncate(copied);
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

unsafe fn type_of(env: sys::napi_env, v: sys::napi_value) -> Result<sys::napi_valuetype, Thrown> {
    let mut t = 0;
    ok(sys::napi_typeof(env, v, &mut t))?;
    Ok(t)
}

/// Lends this thread's reusable buffer, or a fresh one when a notice function re-entered
/// the binding while the buffer is in use.
fn with_buffer<T: Default, R>(cell: &'static std::thread::LocalKey<RefCell<T>>, f: impl FnOnce(&mut T) -> R) -> R {
    cell.with(|c| match c.try_borrow_mut() {
        Ok(mut buf) => f(&mut buf),
        Err(_) => f(&mut T::default()),
    })
}

fn write_out(values: &[(usize, f64)]) -> Result<(), Thrown> {
    let out = OUT.with(Cell::get);
    if out.is_null() {
        return Err(Thrown::Type("toolclamp: binding used before init()".into()));
    }
    for &(i, x) in values {
        assert!(i < slot::LEN);
        // SAFETY: `init` checked the array holds `slot::LEN` doubles and keeps it alive.
        unsafe { *out.add(i) = x };
    }
    Ok(())
}

fn write_plan(p: &Plan) -> Result<(), Thrown> {
    let m = |i: usize, x: toolclamp_core::Measure| [(i, x.chars as f64), (i + 1, x.bytes as f64), (i + 2, x.lines as f64)];
    let mut values = vec![(slot::HEAD_END, p.head_end as f64), (slot::TAIL_START, p.tail_start as f64)];
    values.extend(m(slot::TOTAL, p.total));
    values.extend(m(slot::OUTPUT, p.output));
    values.extend(m(slot::OMITTED, p.omitted));
    values.push((slot::TRUNCATED_BY, p.truncated_by.0 as f64));
    write_out(&values)
}

/// `init(out: Float64Array)`: remembers the array results are written to.
unsafe extern "C" fn init(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, || {
        let [array] = args::<1>(env, info)?;
        let mut kind = 0;
        let mut length = 0;
        let mut data: *mut c_void = ptr::null_mut();
        let mut buffer = ptr::null_mut();
        let mut offset = 0;
        ok(sys::napi_get_typedarray_info(env, array, &mut kind, &mut length, &mut data, &mut buffer, &mut offset))?;
        if kind != sys::TypedarrayType::float64_array || length < slot::LEN {
            return Err(Thrown::Type(format!("init expects a Float64Array of {} elements", slot::LEN)));
        }
        // Keep the array alive for as long as the environment lives.
        let mut reference = ptr::null_mut();
        ok(sys::napi_create_reference(env, array, 1, &mut reference))?;
        OUT.with(|o| o.set(data.cast()));
        undefined(env)
    })
}

/// A notice function from JS, called as `fn(where, truncatedByMask, omittedChars,
/// omittedBytes, omittedLines, totalChars, totalBytes, totalLines, headEnd, tailStart,
/// fromLine, toLine)`;
/// `index.js` wraps the user's function and checks it returns a string.
struct JsNotice {
    env: sys::napi_env,
    func: sys::napi_value,
    failed: bool,
}

impl JsNotice {
    unsafe fn call(&mut self, f: &NoticeFacts) -> Result<String, Thrown> {
        let env = self.env;
        let position = match f.position {
            Position::Start => 0.0,
            Position::End => 1.0,
            Position::Middle => 2.0,
        };
        let numbers = [
            position,
            f.truncated_by.0 as f64,
            f.omitted.chars as f64,
            f.omitted.bytes as f64,
            f.omitted.lines as f64,
            f.total.chars as f64,
            f.total.bytes as f64,
            f.total.lines as f64,
            f.head_end as f64,
            f.tail_start as f64,
            f.from_line as f64,
            f.to_line as f64,
        ];
        let mut argv = [ptr::null_mut(); 12];
        for (slot, x) in argv.iter_mut().zip(numbers) {
            ok(sys::napi_create_double(env, x, slot))?;
        }
        let recv = undefined(env)?;
        let mut result = ptr::null_mut();
        ok(sys::napi_call_function(env, recv, self.func, argv.len(), argv.as_ptr(), &mut result))?;
        if type_of(env, result)? != sys::ValueType::napi_string {
            return Err(Thrown::Type("notice function must return a string".into()));
        }
        read_utf8_string(env, result)
    }

    fn render(&mut self, facts: &NoticeFacts) -> String {
        if self.failed {
            return String::new();
        }
        match unsafe { self.call(facts) } {
            Ok(s) => s,
            Err(_) => {
                // The exception stays pending; the plan is discarded after it returns.
                self.failed = true;
                String::new()
            }
        }
    }
}

/// Plans `src` with the notice given as a JS value (undefined, template string or function).
unsafe fn plan_js_notice<S: Source + ?Sized>(
    env: sys::napi_env,
    src: &S,
    limits: &Limits,
    strategy: Strategy,
    notice: sys::napi_value,
    exact: bool,
) -> Result<Option<Plan>, Thrown> {
    let planned = match type_of(env, notice)? {
        sys::ValueType::napi_string => {
            let template = read_utf8_string(env, notice)?;
            plan(src, limits, strategy, &mut Notice::Template(&template), exact)
        }
        sys::ValueType::napi_function => {
            let mut js = JsNotice { env, func: notice, failed: false };
            let mut render = |f: &NoticeFacts| js.render(f);
            let planned = plan(src, limits, strategy, &mut Notice::Custom(&mut render), exact);
            if js.failed {
                return Err(Thrown::Pending);
            }
            planned
        }
        _ => plan(src, limits, strategy, &mut Notice::Default, exact),
    };
    planned.map_err(|e| Thrown::Type(format!("notice template: {e}")))
}

/// [`plan_js_notice`], returning the glue, or `undefined` when the text fits (totals are
/// still written).
unsafe fn plan_with_notice<S: Source + ?Sized>(
    env: sys::napi_env,
    src: &S,
    limits: &Limits,
    strategy: Strategy,
    notice: sys::napi_value,
    exact: bool,
) -> CallResult {
    match plan_js_notice(env, src, limits, strategy, notice, exact)? {
        None => {
            let total = src.totals();
            write_out(&[(slot::TOTAL, total.chars as f64), (slot::TOTAL + 1, total.bytes as f64), (slot::TOTAL + 2, total.lines as f64)])?;
            undefined(env)
        }
        Some(p) => {
            write_plan(&p)?;
            make_string(env, &p.glue)
        }
    }
}

/// Copies the strings of a JS array, end to end, into `buf`: the units of their
/// concatenation, which JS never has to build. `total` is the sum of their lengths.
unsafe fn read_list<U: Copy + Default>(
    env: sys::napi_env,
    list: sys::napi_value,
    total: usize,
    buf: &mut Vec<U>,
    copy: unsafe fn(sys::napi_env, sys::napi_value, *mut U, usize, *mut usize) -> sys::napi_status,
) -> Result<usize, Thrown> {
    let mut count = 0u32;
    ok(sys::napi_get_array_length(env, list, &mut count))?;
    // Node-API writes a terminating NUL after each copy.
    if buf.len() < total + 1 {
        buf.resize(total + 1, U::default());
    }
    let mut at = 0;
    for i in 0..count {
        let mut item = ptr::null_mut();
        ok(sys::napi_get_element(env, list, i, &mut item))?;
        let mut copied = 0;
        ok(copy(env, item, buf.as_mut_ptr().add(at), total + 1 - at, &mut copied))?;
        at += copied;
    }
    if at != total {
        return Err(Thrown::Type(format!("planList: the strings hold {at} units, not {total}")));
    }
    Ok(at)
}

unsafe fn copy_latin1(env: sys::napi_env, v: sys::napi_value, to: *mut u8, size: usize, copied: *mut usize) -> sys::napi_status {
    sys::napi_get_value_string_latin1(env, v, to.cast::<c_char>(), size, copied)
}

unsafe fn copy_utf16(env: sys::napi_env, v: sys::napi_value, to: *mut u16, size: usize, copied: *mut usize) -> sys::napi_status {
    sys::napi_get_value_string_utf16(env, v, to, size, copied)
}

/// `planList(texts, wide, totalLength, strategy, maxChars, maxBytes, maxLines, headRatio,
/// notice, exact)`: `plan` over the concatenation of an array of strings (the text blocks
/// of a tool result), copied straight from the strings: joining many blocks in JS would
/// allocate one more large string. Offsets are into the concatenation.
unsafe extern "C" fn plan_list(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, || {
        let [texts, wide, total, strat, max_chars, max_bytes, max_lines, ratio, notice, exact] = args::<10>(env, info)?;
        let total = get_f64(env, total)? as usize;
        let limits = get_limits(env, max_chars, max_bytes, max_lines)?;
        let strategy = strategy(get_f64(env, strat)?, get_f64(env, ratio)?);
        let exact = get_bool(env, exact)?;
        if get_bool(env, wide)? {
            with_buffer(&UTF16, |buf| {
                let len = read_list(env, texts, total, buf, copy_utf16)?;
                plan_with_notice(env, &Units::new(&buf[..len]), &limits, strategy, notice, exact)
            })
        } else {
            with_buffer(&LATIN1, |buf| {
                let len = read_list(env, texts, total, buf, copy_latin1)?;
                plan_with_notice(env, &Units::new(&buf[..len]), &limits, strategy, notice, exact)
            })
        }
    })
}

/// `plan(text, wide, strategy, maxChars, maxBytes, maxLines, headRatio, notice, exact)`
/// → the glue string, or `undefined` when the text fits (totals are still written).
/// `wide` is false only for strings with no char above U+00FF.
unsafe extern "C" fn plan_string(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, || {
        let [text, wide, strat, max_chars, max_bytes, max_lines, ratio, notice, exact] = args::<9>(env, info)?;
        let limits = get_limits(env, max_chars, max_bytes, max_lines)?;
        let strategy = strategy(get_f64(env, strat)?, get_f64(env, ratio)?);
        let exact = get_bool(env, exact)?;
        if get_bool(env, wide)? {
            with_buffer(&UTF16, |buf| {
                let units = read_utf16(env, text, buf)?;
                plan_with_notice(env, &Units::new(units), &limits, strategy, notice, exact)
            })
        } else {
            with_buffer(&LATIN1, |buf| {
                let units = read_latin1(env, text, buf)?;
                plan_with_notice(env, &Units::new(units), &limits, strategy, notice, exact)
            })
        }
    })
}

/// `charsWindows(length, strategy, maxChars, headRatio)`: writes the three ranges
/// `[from, to)` a chars-only plan reads into slots 0..6, for `planWindows`.
unsafe extern "C" fn chars_windows(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, || {
        let [length, strat, max_chars, ratio] = args::<4>(env, info)?;
        let len = get_f64(env, length)? as usize;
        let strategy = strategy(get_f64(env, strat)?, get_f64(env, ratio)?);
        let ranges = toolclamp_core::chars_windows(len, limit(get_f64(env, max_chars)?), strategy);
        let mut values = [(0, 0.0); 6];
        for (i, (from, to)) in ranges.into_iter().enumerate() {
            values[2 * i] = (2 * i, from as f64);
            values[2 * i + 1] = (2 * i + 1, to as f64);
        }
        write_out(&values)?;
        undefined(env)
    })
}

/// `planWindows(w0, from0, w1, from1, w2, from2, length, wide, strategy, maxChars, headRatio)`:
/// a chars-only plan of a long text seen through the windows `charsWindows` named, so a
/// 100 MB string costs no more than a few hundred units. Default notice only.
unsafe extern "C" fn plan_windows(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, || {
        let [w0, f0, w1, f1, w2, f2, length, wide, strat, max_chars, ratio] = args::<11>(env, info)?;
        let len = get_f64(env, length)? as usize;
        let offsets = [get_f64(env, f0)? as usize, get_f64(env, f1)? as usize, get_f64(env, f2)? as usize];
        let windows = [w0, w1, w2];
        let limits = Limits { max_chars: limit(get_f64(env, max_chars)?), ..Limits::NONE };
        let strategy = strategy(get_f64(env, strat)?, get_f64(env, ratio)?);
        let undef = undefined(env)?;
        if get_bool(env, wide)? {
            with_buffer(&UTF16_WINDOWS, |bufs| {
                let [b0, b1, b2] = bufs;
                let units = [read_utf16(env, windows[0], b0)?, read_utf16(env, windows[1], b1)?, read_utf16(env, windows[2], b2)?];
                let src = Windows::from_pieces([(offsets[0], units[0]), (offsets[1], units[1]), (offsets[2], units[2])], len);
                plan_with_notice(env, &src, &limits, strategy, undef, false)
            })
        } else {
            with_buffer(&LATIN1_WINDOWS, |bufs| {
                let [b0, b1, b2] = bufs;
                let units = [read_latin1(env, windows[0], b0)?, read_latin1(env, windows[1], b1)?, read_latin1(env, windows[2], b2)?];
                let src = Windows::from_pieces([(offsets[0], units[0]), (offsets[1], units[1]), (offsets[2], units[2])], len);
                plan_with_notice(env, &src, &limits, strategy, undef, false)
            })
        }
    })
}

/// `checkTemplate(template)`: throws the `TypeError` a plan with this template would.
unsafe extern "C" fn check_template(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, || {
        let [template] = args::<1>(env, info)?;
        let template = read_utf8_string(env, template)?;
        toolclamp_core::notice::check_template(&template).map_err(|e| Thrown::Type(format!("notice template: {e}")))?;
        undefined(env)
    })
}

/// `measure(text, wide)`: writes chars, bytes and lines to the total slots.
unsafe extern "C" fn measure_string(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, || {
        let [text, wide] = args::<2>(env, info)?;
        let m = if get_bool(env, wide)? {
            with_buffer(&UTF16, |buf| read_utf16(env, text, buf).map(measure))?
        } else {
            with_buffer(&LATIN1, |buf| read_latin1(env, text, buf).map(measure))?
        };
        write_out(&[(slot::TOTAL, m.chars as f64), (slot::TOTAL + 1, m.bytes as f64), (slot::TOTAL + 2, m.lines as f64)])?;
        undefined(env)
    })
}

/// The bytes of a `Uint8Array` (a `Buffer` is one), borrowed from its memory, and whether
/// that memory is a `SharedArrayBuffer`'s, which other threads may write at any time.
unsafe fn read_uint8_array<'a>(
    env: sys::napi_env,
    v: sys::napi_value,
    caller: &str,
) -> Result<(&'a [u8], bool), Thrown> {
    let mut is_typed_array = false;
    ok(sys::napi_is_typedarray(env, v, &mut is_typed_array))?;
    let not_bytes = || Thrown::Type(format!("{caller} expects a Uint8Array or Buffer"));
    if !is_typed_array {
        return Err(not_bytes());
    }
    let mut kind = 0;
    let mut length = 0;
    let mut data: *mut c_void = ptr::null_mut();
    let mut memory = ptr::null_mut();
    let mut offset = 0;
    ok(sys::napi_get_typedarray_info(env, v, &mut kind, &mut length, &mut data, &mut memory, &mut offset))?;
    if kind != sys::TypedarrayType::uint8_array {
        return Err(not_bytes());
    }
    let mut is_array_buffer = false;
    ok(sys::napi_is_arraybuffer(env, memory, &mut is_array_buffer))?;
    // An empty or detached array may have no memory at all.
    let bytes = if length == 0 || data.is_null() { &[][..] } else { std::slice::from_raw_parts(data.cast::<u8>(), length) };
    Ok((bytes, !is_array_buffer))
}

/// Writes the slots of a text that fits: nothing cut, offsets at the end.
fn write_whole(total: Measure) -> Result<(), Thrown> {
    let m = |i: usize| [(i, total.chars as f64), (i + 1, total.bytes as f64), (i + 2, total.lines as f64)];
    let mut values = vec![(slot::HEAD_END, total.bytes as f64), (slot::TAIL_START, total.bytes as f64)];
    values.extend(m(slot::TOTAL));
    values.extend(m(slot::OUTPUT));
    values.extend([(slot::OMITTED, 0.0), (slot::OMITTED + 1, 0.0), (slot::OMITTED + 2, 0.0), (slot::TRUNCATED_BY, 0.0)]);
    write_out(&values)
}

/// `planBuffer(bytes, strategy, maxChars, maxBytes, maxLines, headRatio, notice, knownValid)`
/// → the clamped text of a `Uint8Array` of UTF-8 as a new string (the whole decoded text
/// when it fits). Invalid UTF-8 decodes as `buf.toString('utf8')` does: each maximal
/// invalid subpart becomes U+FFFD. Counts are of the decoded text and exact in every
/// dimension; every slot is written, also when the text fits (then `truncatedBy` is 0).
/// `headEnd`/`tailStart` are BYTE offsets into the UTF-8 of the decoded text, which are
/// offsets into `bytes` when it is valid UTF-8.
///
/// `knownValid`: the caller checked the bytes with `buffer.isUtf8` (SIMD, several times
/// faster than Rust's std validation on non-ASCII) just before the call. The bytes are then
/// planned without being validated again; no `str` is made of them, so a wrong claim gives
/// wrong counts, never undefined behaviour. Ignored for shared memory, which another
/// thread may have changed since.
unsafe extern "C" fn plan_buffer(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, || {
        let [bytes, strat, max_chars, max_bytes, max_lines, ratio, notice, known_valid] = args::<8>(env, info)?;
        let limits = get_limits(env, max_chars, max_bytes, max_lines)?;
        let strategy = strategy(get_f64(env, strat)?, get_f64(env, ratio)?);
        let known_valid = get_bool(env, known_valid)?;
        let (borrowed, shared) = read_uint8_array(env, bytes, "planBuffer")?;
        // A notice function runs JS while the plan holds the bytes, and JS could write to
        // the array or detach its memory; shared memory can change at any time. Plan a
        // private copy then.
        let private_copy: Vec<u8>;
        let data = if shared || type_of(env, notice)? == sys::ValueType::napi_function {
            private_copy = borrowed.to_vec();
            &private_copy[..]
        } else {
            borrowed
        };
        let decoded;
        let src = if known_valid && !shared {
            Utf8::from_validated(data)
        } else {
            // Borrows valid UTF-8; allocates only to replace invalid sequences.
            decoded = decode_lossy(data);
            Utf8::new(&decoded)
        };
        let text = src.as_bytes();
        match plan_js_notice(env, &src, &limits, strategy, notice, true)? {
            None => {
                write_whole(src.totals())?;
                make_string_from_utf8(env, text)
            }
            Some(p) => {
                write_plan(&p)?;
                let tail = &text[p.tail_start..];
                let mut clamped = Vec::with_capacity(p.head_end + p.glue.len() + tail.len());
                clamped.extend_from_slice(&text[..p.head_end]);
                clamped.extend_from_slice(p.glue.as_bytes());
                clamped.extend_from_slice(tail);
                make_string_from_utf8(env, &clamped)
            }
        }
    })
}

/// A JS string from UTF-8 bytes (V8 would replace any invalid sequence with U+FFFD).
unsafe fn make_string_from_utf8(env: sys::napi_env, bytes: &[u8]) -> CallResult {
    let mut v = ptr::null_mut();
    // ASCII is Latin-1, which V8 copies as is instead of decoding.
    if bytes.is_ascii() {
        ok(sys::napi_create_string_latin1(env, bytes.as_ptr().cast(), bytes.len() as isize, &mut v))?;
    } else {
        ok(sys::napi_create_string_utf8(env, bytes.as_ptr().cast(), bytes.len() as isize, &mut v))?;
    }
    Ok(v)
}

/// Writes a page's slots (`start`/`end` as given: they may be mapped to raw bytes).
fn write_page(p: &Page, start: usize, end: usize) -> Result<(), Thrown> {
    let m = |i: usize, x: Measure| [(i, x.chars as f64), (i + 1, x.bytes as f64), (i + 2, x.lines as f64)];
    let (next_line, next_column) = p.next.unwrap_or((0, 0));
    let mut values = vec![(slot::PAGE_START, start as f64), (slot::PAGE_END, end as f64)];
    values.extend(m(slot::TOTAL, p.total));
    values.extend(m(slot::SHOWN, p.shown));
    values.extend([
        (slot::FIRST_LINE, p.first_line as f64),
        (slot::LAST_LINE, p.last_line as f64),
        (slot::START_BYTE, p.start_byte as f64),
        (slot::END_BYTE, p.end_byte as f64),
        (slot::NEXT_LINE, next_line as f64),
        (slot::NEXT_COLUMN, next_column as f64),
    ]);
    write_out(&values)
}

/// The page request from JS numbers (validated in `lib/partial.js`; `Infinity` is no limit).
unsafe fn page_request(
    env: sys::napi_env,
    line: sys::napi_value,
    column: sys::napi_value,
    max_bytes: sys::napi_value,
    max_lines: sys::napi_value,
) -> Result<PageRequest, Thrown> {
    Ok(PageRequest {
        line: get_f64(env, line)? as u64,
        column: get_f64(env, column)? as usize,
        max_bytes: limit(get_f64(env, max_bytes)?),
        max_lines: limit(get_f64(env, max_lines)?),
    })
}

/// Pages `src` and writes the slots, `map` turning page positions into the caller's.
/// Returns the banner of a partial page, else `undefined`.
unsafe fn page_with_banner<S: Source + ?Sized>(
    env: sys::napi_env,
    src: &S,
    req: &PageRequest,
    map: impl Fn(usize) -> usize,
) -> CallResult {
    let p = page(src, req).map_err(|e| Thrown::Range(e.to_string()))?;
    write_page(&p, map(p.start), map(p.end))?;
    if p.is_partial() {
        make_string(env, &partial_banner(&p))
    } else {
        undefined(env)
    }
}

/// `planPage(text, wide, line, column, maxBytes, maxLines)` → the banner of a partial page,
/// or `undefined` when the page is the whole text. Writes the page slots; the page is
/// `text.slice(pageStart, pageEnd)`, `column` and the next column count UTF-16 units.
/// A line or column outside the text throws a `RangeError`.
unsafe extern "C" fn plan_page(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, || {
        let [text, wide, line, column, max_bytes, max_lines] = args::<6>(env, info)?;
        let req = page_request(env, line, column, max_bytes, max_lines)?;
        if get_bool(env, wide)? {
            with_buffer(&UTF16, |buf| {
                let units = read_utf16(env, text, buf)?;
                page_with_banner(env, &Units::new(units), &req, |i| i)
            })
        } else {
            with_buffer(&LATIN1, |buf| {
                let units = read_latin1(env, text, buf)?;
                page_with_banner(env, &Units::new(units), &req, |i| i)
            })
        }
    })
}

/// `planPageBuffer(bytes, knownValid, line, column, maxBytes, maxLines)`: `planPage` for a
/// `Uint8Array` of UTF-8, paged as the text `buf.toString('utf8')` decodes to. Columns,
/// counts and `startByte`/`endByte` are those of the decoded text (bytes of its UTF-8);
/// `pageStart`/`pageEnd` are offsets into `bytes`, so the page is
/// `bytes.subarray(pageStart, pageEnd).toString('utf8')` even when `bytes` holds invalid
/// UTF-8 (each maximal invalid subpart is one U+FFFD, never split). `knownValid` as for
/// `planBuffer`.
unsafe extern "C" fn plan_page_buffer(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    guarded(env, || {
        let [bytes, known_valid, line, column, max_bytes, max_lines] = args::<6>(env, info)?;
        let req = page_request(env, line, column, max_bytes, max_lines)?;
        let known_valid = get_bool(env, known_valid)?;
        let (borrowed, shared) = read_uint8_array(env, bytes, "planPageBuffer")?;
        // No JS runs while paging, so only shared memory needs a private copy.
        let private_copy: Vec<u8>;
        let data = if shared {
            private_copy = borrowed.to_vec();
            &private_copy[..]
        } else {
            borrowed
        };
        if known_valid && !shared {
            return page_with_banner(env, &Utf8::from_validated(data), &req, |i| i);
        }
        match decode_lossy(data) {
            Cow::Borrowed(text) => page_with_banner(env, &Utf8::new(text), &req, |i| i),
            // Positions in the decoded text map back to the invalid bytes.
            Cow::Owned(text) => page_with_banner(env, &Utf8::new(&text), &req, |i| lossy_position(data, i)),
        }
    })
}
