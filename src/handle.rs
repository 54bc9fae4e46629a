//! State the binding keeps between calls, as a JS handle: the state boxed in a Node-API
//! external, tagged so that no other external (or a handle of another family, or of another
//! copy of the addon whose layout may differ) is ever read as one. Captures (`capture.rs`)
//! and long JSON lines (`line.rs`) are kept this way.
//!
//! A handle is used from one JS thread (an external belongs to its environment). The memory
//! its state holds is reported to V8 (`napi_adjust_external_memory`) as it changes, and given
//! back when the state is dropped or the handle collected: V8 sees a handle of a few words of
//! its own heap, so without the report it would not know to collect handles that keep
//! megabytes alive.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::ptr;

use napi::sys;

use crate::call::{Answer, Call, Thrown};

/// What is reported, in steps of this many bytes: the GC needs the order of magnitude, and a
/// handle that keeps a few KiB reports nothing, so that a loop making many small ones is not
/// slowed by a GC step per call (collecting them would not free their memory before the loop
/// yields: Node-API runs finalizers from the event loop).
const REPORT_STEP: usize = 64 * 1024;

pub struct Handle<T> {
    /// `None` once disposed: the state is freed, the handle stays until it is collected.
    pub state: RefCell<Option<T>>,
    /// The bytes reported to V8 for this handle, so far.
    reported: Cell<i64>,
}

impl<T> Handle<T> {
    /// Tells V8 that the handle now holds `bytes` (in whole steps).
    pub fn report(&self, env: sys::napi_env, bytes: usize) {
        let now = (bytes / REPORT_STEP * REPORT_STEP) as i64;
        let change = now - self.reported.get();
        if change == 0 {
            return;
        }
        let mut total = 0;
        // SAFETY: `env` is the environment of the running call or finalizer. The report only
        // informs the GC's heuristics: a failure changes nothing else, so its status is ignored.
        unsafe { sys::napi_adjust_external_memory(env, change, &mut total) };
        self.reported.set(now);
    }
}

/// Frees a handle once JS can no longer reach it, and gives its memory back.
///
/// # Safety
/// Node-API calls it once, with the `data` given to `napi_create_external` in [`create`]: a
/// pointer from `Box::into_raw(Box<Handle<T>>)`.
unsafe extern "C" fn finalize<T>(env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: per this function's contract, `data` is an unfreed `Box<Handle<T>>` given up once.
    let handle = unsafe { Box::from_raw(data.cast::<Handle<T>>()) };
    handle.report(env, 0);
}

/// A new handle to `state`, tagged `tag`. Nothing is reported yet: the calls that make the
/// state grow report it.
pub fn create<T>(call: &Call, tag: &sys::napi_type_tag, state: T) -> Answer {
    let data = Box::into_raw(Box::new(Handle { state: RefCell::new(Some(state)), reported: Cell::new(0) }));
    let mut v = ptr::null_mut();
    // SAFETY: `env` is valid while the call runs; `finalize` frees `data` exactly once.
    let status =
        unsafe { sys::napi_create_external(call.env(), data.cast(), Some(finalize::<T>), ptr::null_mut(), &mut v) };
    if status != sys::Status::napi_ok {
        // SAFETY: the external was not made, so nothing else owns `data`.
        drop(unsafe { Box::from_raw(data) });
        call.check(status)?;
    }
    // SAFETY: `v` is the external just made.
    call.check(unsafe { sys::napi_type_tag_object(call.env(), v, tag) })?;
    Ok(v)
}

/// The handle behind argument `i`, if it is one tagged `tag`; else a TypeError saying it must
/// be `what`.
pub fn from_arg<'c, T>(
    call: &'c Call,
    i: usize,
    tag: &sys::napi_type_tag,
    what: &str,
) -> Result<&'c Handle<T>, Thrown> {
    let v = call.arg(i);
    if call.type_of(v)? != sys::ValueType::napi_external {
        return Err(call.type_error(i, what));
    }
    let mut ours = false;
    // SAFETY: `env` and `v` are valid while the call runs.
    call.check(unsafe { sys::napi_check_object_type_tag(call.env(), v, tag, &mut ours) })?;
    if !ours {
        return Err(call.type_error(i, what));
    }
    let mut data: *mut c_void = ptr::null_mut();
    // SAFETY: as above; `v` is an external.
    call.check(unsafe { sys::napi_get_value_external(call.env(), v, &mut data) })?;
    // SAFETY: an external with this tag was made by `create` from a `Box<Handle<T>>` (each
    // family has its own tag, so `T` is the family's state), which lives until its finalizer
    // runs; that cannot happen while the value is an argument of the running call, and the
    // borrow lives no longer than `call`, which ends with the call.
    Ok(unsafe { &*data.cast::<Handle<T>>() })
}
