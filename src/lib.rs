//! The Node-API binding: converts JS values, calls the core, hands back offsets.
//!
//! Functions are registered as raw Node-API callbacks rather than `#[napi]` functions:
//! napi-rs 3.16 sets up a borrow scope on every call with arguments (~150–300 ns), which
//! is more than the whole clamp of a small string. One callback ([`call::dispatch`])
//! serves every export and checks its arguments; each export copies what it reads, plans
//! with the core, writes every number of its answer into the `ArrayBuffer` of doubles its
//! caller passes first, and returns at most one string. `lib/native.js` is the only JS that calls
//! these functions, and it copies each answer into plain values at once.
//!
//! There is no state across calls but scratch buffers and the token vocabularies, which are
//! loaded once per process and never change after: a second copy of the JS module, a worker
//! thread or a re-entrant call each bring their own result array.
//!
//! Every callback runs under `catch_unwind`: a panic becomes a thrown JS `Error` instead
//! of aborting the host process. Compiled to WebAssembly, where Rust cannot unwind, a panic
//! traps instead: the call throws a `RuntimeError` (see `wasm.rs` for what else differs).

// Not a Rust library: its documentation is for the people who work on it, and links to
// the private items it is made of.
#![allow(rustdoc::private_intra_doc_links)]

mod call;
mod capture;
mod conversation;
mod exports;
mod handle;
mod json;
mod layout;
mod line;
mod notice;
mod page;
mod plan;
mod terminal;
mod text;
mod tokens;
mod wasm;

use std::ptr;

use napi::bindgen_prelude::{Env, JsValue, Object};
use napi::sys;
use napi_derive::napi;

use crate::call::dispatch;
use crate::layout::{
    BUDGET_ACTIONS, BUDGET_FIELDS, BUFFER_LENGTH, DIMS, ERROR_KINDS, FACTS_START, FACT_NAMES, FIELD_NAMES,
    MAX_STRING_LENGTH, NORMALIZE_FLAGS, POSITIONS, REQUEST_START, SLOT_NAMES, STRATEGIES, TOKENIZERS, VERDICTS,
};
use toolclamp_core::{BYTES_PER_TOKEN, MEDIA_TOKENS};

/// How many doubles the result buffer holds (also `LAYOUT.slotCount`). It is a `#[napi]`
/// item because `napi build` writes the JS loader (`binding.js`) only for a crate with one.
#[napi]
pub const SLOT_COUNT: u32 = layout::SLOT_COUNT as u32;

#[napi(module_exports)]
pub fn register(exports: Object, env: Env) -> napi::Result<()> {
    let env = env.raw();
    let exports = exports.raw();
    let js = Js(env);
    for export in exports::EXPORTS {
        let mut f = ptr::null_mut();
        let data = ptr::from_ref(export).cast_mut().cast();
        // SAFETY: `env` is the registering environment; the name is NUL-terminated; `data`
        // is a `&'static Export`, which is what `dispatch` expects.
        js.check(unsafe {
            sys::napi_create_function(
                env,
                export.name.as_ptr(),
                export.name.count_bytes() as isize,
                Some(dispatch),
                data,
                &mut f,
            )
        })?;
        // SAFETY: as above; `exports` is the module's exports object.
        js.check(unsafe { sys::napi_set_named_property(env, exports, export.name.as_ptr(), f) })?;
    }
    let layout = js.layout()?;
    // SAFETY: as above.
    js.check(unsafe { sys::napi_set_named_property(env, exports, c"LAYOUT".as_ptr(), layout) })?;
    Ok(())
}

/// Builds JS values at registration.
struct Js(sys::napi_env);

impl Js {
    fn check(&self, status: sys::napi_status) -> napi::Result<()> {
        if status == sys::Status::napi_ok {
            Ok(())
        } else {
            Err(napi::Error::from_reason(format!(
                "toolclamp: registering the binding failed (Node-API status {status})"
            )))
        }
    }

    fn object(&self, entries: &[(&str, sys::napi_value)]) -> napi::Result<sys::napi_value> {
        let mut object = ptr::null_mut();
        // SAFETY: `self.0` is the registering environment.
        self.check(unsafe { sys::napi_create_object(self.0, &mut object) })?;
        for (key, value) in entries {
            let key = std::ffi::CString::new(*key).expect("keys have no NUL");
            // SAFETY: as above; `key` is NUL-terminated.
            self.check(unsafe { sys::napi_set_named_property(self.0, object, key.as_ptr(), *value) })?;
        }
        // Frozen: the layout is read by every call and must not change under it.
        // SAFETY: as above.
        self.check(unsafe { sys::napi_object_freeze(self.0, object) })?;
        Ok(object)
    }

    fn number(&self, x: f64) -> napi::Result<sys::napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: `self.0` is the registering environment.
        self.check(unsafe { sys::napi_create_double(self.0, x, &mut v) })?;
        Ok(v)
    }

    fn string(&self, s: &str) -> napi::Result<sys::napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: `self.0` is the registering environment; `s` is live UTF-8.
        self.check(unsafe { sys::napi_create_string_utf8(self.0, s.as_ptr().cast(), s.len() as isize, &mut v) })?;
        Ok(v)
    }

    fn strings(&self, items: &[&str]) -> napi::Result<sys::napi_value> {
        let mut array = ptr::null_mut();
        // SAFETY: `self.0` is the registering environment.
        self.check(unsafe { sys::napi_create_array_with_length(self.0, items.len(), &mut array) })?;
        for (i, item) in items.iter().enumerate() {
            let v = self.string(item)?;
            // SAFETY: as above.
            self.check(unsafe { sys::napi_set_element(self.0, array, i as u32, v) })?;
        }
        // SAFETY: as above.
        self.check(unsafe { sys::napi_object_freeze(self.0, array) })?;
        Ok(array)
    }

    /// Name → index in the result array, for names from index `start` on.
    fn indices(&self, names: &[&str], start: usize) -> napi::Result<sys::napi_value> {
        let entries: Vec<_> = names
            .iter()
            .enumerate()
            .map(|(i, name)| Ok((*name, self.number((start + i) as f64)?)))
            .collect::<napi::Result<_>>()?;
        self.object(&entries)
    }

    /// `{ name: { params, request } }` of [`exports::EXPORTS`]: each export's parameters in
    /// order, and the names of the request fields it reads.
    fn signatures(&self) -> napi::Result<sys::napi_value> {
        let entries: Vec<_> = exports::EXPORTS
            .iter()
            .map(|export| {
                let request: Vec<&str> = export.request.iter().map(|&f| FIELD_NAMES[f as usize]).collect();
                let signature =
                    self.object(&[("params", self.strings(export.params)?), ("request", self.strings(&request)?)])?;
                Ok((export.name.to_str().expect("export names are ASCII"), signature))
            })
            .collect::<napi::Result<_>>()?;
        self.object(&entries)
    }

    /// `LAYOUT`: `slots` (answer slots, name → index), `slotCount`, `request` and `facts`
    /// (the request block and the notice facts, name → index in the same array),
    /// `bufferLength` (the doubles of the whole array), `exports` (see [`Js::signatures`]),
    /// `verdicts` (name → code), `strategies`, `tokenizers`, `positions`, `dims`, `errorKinds` and
    /// `budgetActions` (names by code or bit), `budgetFields`, `normalizeFlags`,
    /// `maxStringLength`, `bytesPerToken` and `mediaTokens`.
    fn layout(&self) -> napi::Result<sys::napi_value> {
        let verdicts: Vec<_> =
            VERDICTS.iter().map(|(name, v)| Ok((*name, self.number(*v as u8 as f64)?))).collect::<napi::Result<_>>()?;
        let positions: Vec<&str> = POSITIONS.iter().map(|p| p.as_str()).collect();
        let dims: Vec<&str> = DIMS.iter().map(|(name, _)| *name).collect();
        let error_kinds: Vec<&str> = ERROR_KINDS.iter().map(|(name, _)| *name).collect();
        self.object(&[
            ("slots", self.indices(SLOT_NAMES, 0)?),
            ("slotCount", self.number(layout::SLOT_COUNT as f64)?),
            ("request", self.indices(FIELD_NAMES, REQUEST_START)?),
            ("facts", self.indices(FACT_NAMES, FACTS_START)?),
            ("bufferLength", self.number(BUFFER_LENGTH as f64)?),
            ("exports", self.signatures()?),
            ("verdicts", self.object(&verdicts)?),
            ("strategies", self.strings(STRATEGIES)?),
            ("tokenizers", self.strings(TOKENIZERS)?),
            ("positions", self.strings(&positions)?),
            ("dims", self.strings(&dims)?),
            ("errorKinds", self.strings(&error_kinds)?),
            ("budgetActions", self.strings(BUDGET_ACTIONS)?),
            ("budgetFields", self.strings(BUDGET_FIELDS)?),
            ("normalizeFlags", self.strings(NORMALIZE_FLAGS)?),
            ("maxStringLength", self.number(MAX_STRING_LENGTH as f64)?),
            ("bytesPerToken", self.number(BYTES_PER_TOKEN as f64)?),
            ("mediaTokens", self.number(MEDIA_TOKENS as f64)?),
        ])
    }
}
