//! The notice a caller gives a plan: a template, or a JS function the binding calls with the
//! facts of the cut (see `lib/native.js`'s `bindingNotice`).

use napi::sys;
use toolclamp_core::{Notice, NoticeFacts, TemplateError};

use crate::call::{Answer, Call, Thrown};
use crate::layout::position_code;
use crate::text::{NoticeText, StandIns};

/// `checkTemplate(template)`: throws the `TypeError` a plan with this template would.
pub(crate) fn check_template(call: &Call) -> Answer {
    let template = call.notice_text(call.arg(0)).map_err(|e| call.naming(e, 0, "a string"))?;
    toolclamp_core::check_template(&template.text).map_err(|e| Thrown::Type(format!("notice template: {e}")))?;
    call.undefined()
}

/// A notice argument: `undefined` (the default), a template string, or a function JS
/// calls with the facts as positional numbers (see [`JsNotice::call`]).
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
}

/// A notice function from JS, called as `fn(where, truncatedByMask, omittedChars,
/// omittedBytes, omittedLines, totalChars, totalBytes, totalLines, headEnd, tailStart,
/// fromLine, toLine)`, where `where` is a code of `LAYOUT.positions`.
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
        let numbers = [
            position_code(f.position),
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
        let mut argv = [std::ptr::null_mut(); 12];
        for (slot, x) in argv.iter_mut().zip(numbers) {
            // SAFETY: `env` is valid while the call runs.
            call.check(unsafe { sys::napi_create_double(env, x, slot) })?;
        }
        let recv = call.undefined()?;
        let mut result = std::ptr::null_mut();
        // SAFETY: `func` is a function argument of this call; `argv` holds 12 values.
        call.check(unsafe { sys::napi_call_function(env, recv, self.func, argv.len(), argv.as_ptr(), &mut result) })?;
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
