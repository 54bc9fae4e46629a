//! The notice a caller gives a plan: a template, or a JS function the binding calls with the
//! facts of the cut (see `lib/native.js`'s `bindingNotice`).

use napi::sys;
use toolclamp_core::{Notice, NoticeFacts, TemplateError};

use crate::call::{Answer, Call, Thrown};
use crate::layout::fact_values;
use crate::text::{NoticeText, StandIns};

/// `checkTemplate`: throws the `TypeError` a plan with `template` would; answers `undefined`.
pub(crate) fn check_template(call: &Call) -> Answer {
    let template = call.notice_text(call.arg(0)).map_err(|e| call.naming(e, 0, "a string"))?;
    toolclamp_core::check_template(&template.text).map_err(|e| Thrown::Type(format!("notice template: {e}")))?;
    call.undefined()
}

/// `noticeTemplates()`: `{ templates, placeholders }`, the library's notice templates by
/// name (`toolclamp_core::templates::ALL`) and the placeholders a template may
/// use, both frozen. `lib/common/notices.js` reads them once.
pub(crate) fn notice_templates(call: &Call) -> Answer {
    let env = call.env();
    let string = |s: &str| {
        let mut v = std::ptr::null_mut();
        // SAFETY: `env` is valid while the call runs; `s` is live UTF-8.
        call.check(unsafe { sys::napi_create_string_utf8(env, s.as_ptr().cast(), s.len() as isize, &mut v) })?;
        Ok::<_, Thrown>(v)
    };
    let frozen = |v: sys::napi_value| {
        // SAFETY: `env` is valid while the call runs; `v` is an object of this call.
        call.check(unsafe { sys::napi_object_freeze(env, v) }).map(|()| v)
    };
    let object = |entries: &[(&str, sys::napi_value)]| {
        let mut o = std::ptr::null_mut();
        // SAFETY: `env` is valid while the call runs.
        call.check(unsafe { sys::napi_create_object(env, &mut o) })?;
        for (key, value) in entries {
            let key = std::ffi::CString::new(*key).expect("names have no NUL");
            // SAFETY: as above; `key` is NUL-terminated.
            call.check(unsafe { sys::napi_set_named_property(env, o, key.as_ptr(), *value) })?;
        }
        frozen(o)
    };
    let templates: Vec<_> = toolclamp_core::templates::ALL
        .iter()
        .map(|(name, template)| Ok((*name, string(template)?)))
        .collect::<Result<_, Thrown>>()?;
    let names: Vec<_> = toolclamp_core::PLACEHOLDERS.iter().map(|name| string(name)).collect::<Result<_, Thrown>>()?;
    let placeholders = call.array(&names)?;
    object(&[("templates", object(&templates)?), ("placeholders", frozen(placeholders)?)])
}

/// A notice argument: `undefined` (the default), a template string, or a function the
/// binding calls with the facts of each cut in the result array (see [`JsNotice::call`]).
pub(crate) enum NoticeArg {
    Default,
    Template(NoticeText),
    Function(sys::napi_value),
}

impl NoticeArg {
    pub(crate) fn read(call: &Call, i: usize) -> Result<NoticeArg, Thrown> {
        let v = call.arg(i);
        match call.type_of(v)? {
            sys::ValueType::napi_undefined => Ok(NoticeArg::Default),
            sys::ValueType::napi_string => Ok(NoticeArg::Template(call.notice_text(v)?)),
            sys::ValueType::napi_function => Ok(NoticeArg::Function(v)),
            _ => Err(call.type_error(i, "undefined, a string or a function")),
        }
    }

    pub(crate) fn is_function(&self) -> bool {
        matches!(self, NoticeArg::Function(_))
    }

    /// Whether a template names tokens (see [`toolclamp_core::with_token_totals`]).
    pub(crate) fn uses_tokens(&self) -> bool {
        matches!(self, NoticeArg::Template(t) if Notice::Template(&t.text).uses_tokens())
    }
}

/// A notice function from JS, called with no arguments once the facts of the cut are in the
/// facts block of the call's result array (`LAYOUT.facts`, written once in
/// [`crate::layout::FACT_NAMES`]). The function must read them before it runs any other
/// call into the binding, which would reuse the array.
struct JsNotice<'c> {
    call: &'c Call,
    func: sys::napi_value,
    /// The first failure; the plan is discarded once it returns.
    failed: Option<Thrown>,
    stand_ins: StandIns,
}

impl JsNotice<'_> {
    fn call(&mut self, f: &NoticeFacts) -> Result<String, Thrown> {
        let call = self.call;
        let env = call.env();
        call.write_facts(&fact_values(f))?;
        let recv = call.undefined()?;
        let mut result = std::ptr::null_mut();
        // SAFETY: `func` is a function argument of this call; no arguments are passed.
        call.check(unsafe { sys::napi_call_function(env, recv, self.func, 0, std::ptr::null(), &mut result) })?;
        if call.type_of(result)? != sys::ValueType::napi_string {
            return Err(Thrown::Type("notice function must return a string".into()));
        }
        let notice = call.notice_text(result)?;
        self.stand_ins.extend(notice.stand_ins);
        Ok(notice.text)
    }

    fn render(&mut self, facts: &NoticeFacts) -> String {
        if self.failed.is_some() {
            return String::new();
        }
        self.call(facts).unwrap_or_else(|thrown| {
            self.failed = Some(thrown);
            String::new()
        })
    }
}

/// Runs `planner` with the notice argument as a core [`Notice`]; also returns the stand-ins
/// a notice function's answers used.
pub(crate) fn with_notice<R>(
    call: &Call,
    notice: &NoticeArg,
    planner: impl FnOnce(&mut Notice<'_>) -> Result<R, TemplateError>,
) -> Result<(R, StandIns), Thrown> {
    let template_error = |e: TemplateError| Thrown::Type(format!("notice template: {e}"));
    match notice {
        NoticeArg::Default => Ok((planner(&mut Notice::Default).map_err(template_error)?, StandIns::default())),
        NoticeArg::Template(t) => {
            Ok((planner(&mut Notice::Template(&t.text)).map_err(template_error)?, StandIns::default()))
        }
        NoticeArg::Function(func) => {
            let mut js = JsNotice { call, func: *func, failed: None, stand_ins: StandIns::default() };
            let mut render = |f: &NoticeFacts| js.render(f);
            let planned = planner(&mut Notice::Custom(&mut render)).map_err(template_error)?;
            if let Some(thrown) = js.failed {
                return Err(thrown);
            }
            Ok((planned, js.stand_ins))
        }
    }
}

/// The stand-ins of a template notice (a function's are collected while planning).
pub(crate) fn template_stand_ins(notice: NoticeArg, from_function: StandIns) -> StandIns {
    match notice {
        NoticeArg::Template(t) => t.stand_ins,
        _ => from_function,
    }
}
