//! The functions `lib/native.js` calls. Each takes the result buffer first, writes every
//! slot of its answer there (see [`crate::layout`]), and returns at most one string: a
//! glue, a banner, or a clamped text. The signatures, in the order JS passes arguments,
//! are the `params` of [`EXPORTS`].

use std::borrow::Cow;

use napi::sys;
use toolclamp_core::{
    answer_text, chars_windows, clamp_json, clamp_json_text, classify_provider_error, decode_lossy, elision_marker,
    estimate_tokens, find_prior, locate_json, lossy_position, max_normalized_utf16, measure, measure_str,
    normalize_terminal_output, normalized_utf16_len, page_with_banner, parse_json_paths, plan_budget, plan_restacked,
    plan_tool_output, plan_with_snap, repage, BudgetRequest, JsonRequest, JsonText, JsonUnit, Limits, MarkerFacts,
    Markers, Measure, Notice, NoticeFacts, Page, PageRequest, Plan, Repage, ResultSize, Snap, Source, Strategy,
    TemplateError, Units, Utf8, Windows,
};

use crate::call::{Answer, Call, Export, StrategyArg, Thrown};
use crate::capture;
use crate::layout::{
    budget_action_code, error_kind_code, normalize_of, position_code, strategy_code, Results, Slot, Verdict,
    BUDGET_FIELDS,
};
use crate::text::{with_scratch, NoticeText, StandIns, StringUnit, LATIN1, LATIN1_WINDOWS, UTF16, UTF16_WINDOWS};

#[rustfmt::skip]
pub static EXPORTS: &[Export] = &[
    Export { name: c"checkTemplate", params: &["template"], body: check_template },
    Export {
        name: c"plan",
        params: &["out", "text", "wide", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio", "notice", "exact",
                  "snap", "restack"],
        body: plan_string,
    },
    Export {
        name: c"planList",
        params: &["out", "texts", "wide", "totalLength", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio",
                  "notice", "exact", "snap", "restack"],
        body: plan_list,
    },
    Export { name: c"charsWindows", params: &["out", "length", "strategy", "maxChars", "headRatio"], body: windows_of },
    Export {
        name: c"planWindows",
        params: &["out", "window0", "from0", "window1", "from1", "window2", "from2", "length", "wide", "strategy",
                  "maxChars", "headRatio"],
        body: plan_windows,
    },
    Export { name: c"measure", params: &["out", "text", "wide"], body: measure_string },
    Export {
        name: c"planBuffer",
        params: &["out", "bytes", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio", "notice", "snap"],
        body: plan_buffer,
    },
    Export {
        name: c"planToolOutput",
        params: &["out", "text", "wide", "maxChars", "maxLines", "headRatio", "notice"],
        body: plan_tool_output_string,
    },
    Export { name: c"planPage", params: &["out", "text", "wide", "line", "column", "maxBytes", "maxLines"], body: plan_page },
    Export {
        name: c"repage",
        params: &["out", "text", "wide", "maxChars", "maxBytes", "maxLines", "byteColumns"],
        body: repage_page,
    },
    Export {
        name: c"clampJson",
        params: &["out", "text", "wide", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio", "inlineMarkers",
                  "gap"],
        body: clamp_json_string,
    },
    Export {
        name: c"clampJsonText",
        params: &["out", "text", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio", "inlineMarkers", "gap"],
        body: clamp_json_text_string,
    },
    Export { name: c"locateJson", params: &["out", "text", "wide", "paths"], body: locate_json_string },
    Export { name: c"classifyError", params: &["out", "message", "wide", "status", "code"], body: classify_error },
    Export {
        name: c"planBudget",
        params: &["out", "sizes", "perResult", "aggregate", "minKeepChars", "protectRecent"],
        body: plan_budget_of,
    },
    Export {
        name: c"normalizeTerminal",
        params: &["out", "text", "wide", "flags", "maxLength"],
        body: normalize_terminal_string,
    },
    Export {
        name: c"normalizeTerminalBuffer",
        params: &["out", "bytes", "flags", "maxLength"],
        body: normalize_terminal_buffer,
    },
    Export { name: c"normalizedBound", params: &["out", "length", "bytes"], body: normalized_bound },
    Export { name: c"elisionMarker", params: &["out", "chars", "lines", "tokens", "spillPath"], body: elision_marker_of },
    Export {
        name: c"captureCreate",
        params: &["out", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio", "normalize", "flags", "raw"],
        body: capture::capture_create,
    },
    Export { name: c"captureWrite", params: &["out", "capture", "chunk", "wide", "echo"], body: capture::capture_write },
    Export { name: c"captureFinish", params: &["out", "capture", "echo"], body: capture::capture_finish },
    Export {
        name: c"captureResult",
        params: &["out", "capture", "final", "notice", "snap"],
        body: capture::capture_result,
    },
    Export { name: c"captureDispose", params: &["out", "capture"], body: capture::capture_dispose },
    Export {
        name: c"captureSettleHead",
        params: &["out", "capture", "notice", "snap"],
        body: capture::capture_settle_head,
    },
    Export {
        name: c"planPageBuffer",
        params: &["out", "bytes", "line", "column", "maxBytes", "maxLines"],
        body: plan_page_buffer,
    },
];

/// `checkTemplate(template)`: throws the `TypeError` a plan with this template would.
fn check_template(call: &Call) -> Answer {
    let template = call.notice_text(call.arg(0)).map_err(|e| call.naming(e, 0, "a string"))?;
    toolclamp_core::notice::check_template(&template.text)
        .map_err(|e| Thrown::Type(format!("notice template: {e}")))?;
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

    fn is_function(&self) -> bool {
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

/// Plans `src` with the notice argument; also returns the stand-ins its notices used.
pub(crate) fn plan_with<S: Source + ?Sized>(
    call: &Call,
    src: &S,
    limits: &Limits,
    strategy: Strategy,
    notice: &NoticeArg,
    exact: bool,
    snap: Snap,
) -> Result<(Option<Plan>, StandIns), Thrown> {
    with_notice(call, notice, |n| plan_with_snap(src, limits, strategy, n, exact, snap))
}

pub(crate) fn snap_of(line: bool) -> Snap {
    if line {
        Snap::Line
    } else {
        Snap::None
    }
}

/// The stand-ins of a template notice (a function's are collected while planning).
pub(crate) fn template_stand_ins(notice: NoticeArg, from_function: StandIns) -> StandIns {
    match notice {
        NoticeArg::Template(t) => t.stand_ins,
        _ => from_function,
    }
}

pub(crate) fn plan_results(p: &Plan) -> Results {
    let mut r = Results::new(Verdict::Cut);
    r.set(Slot::HeadEnd, p.head_end)
        .set(Slot::TailStart, p.tail_start)
        .set_measure(Slot::TotalChars, p.total)
        .set_measure(Slot::OutputChars, p.output)
        .set_measure(Slot::OmittedChars, p.omitted)
        .set(Slot::TruncatedBy, p.truncated_by.0);
    r
}

/// The results of a text that fits: nothing cut, both offsets at the end.
fn whole_results<S: Source + ?Sized>(src: &S) -> Results {
    let total = src.totals();
    let mut r = Results::new(Verdict::Fits);
    r.set(Slot::HeadEnd, src.len())
        .set(Slot::TailStart, src.len())
        .set_measure(Slot::TotalChars, total)
        .set_measure(Slot::OutputChars, total);
    r
}

/// Plans a string source and answers with the glue, or `null` when the text fits; the
/// strategy used (`auto` resolved) is in its slot either way.
fn answer_plan<S: Source + ?Sized>(
    call: &Call,
    src: &S,
    limits: &Limits,
    strategy: StrategyArg,
    notice: NoticeArg,
    exact: bool,
    snap: Snap,
) -> Answer {
    let strategy = strategy.resolve(src);
    let (planned, from_function) = plan_with(call, src, limits, strategy, &notice, exact, snap)?;
    answer_planned(call, src, strategy, notice, planned, from_function)
}

/// Answers a plan (or `None`: the text fits) with its glue.
fn answer_planned<S: Source + ?Sized>(
    call: &Call,
    src: &S,
    strategy: Strategy,
    notice: NoticeArg,
    planned: Option<Plan>,
    from_function: StandIns,
) -> Answer {
    match planned {
        None => {
            let mut r = whole_results(src);
            r.set(Slot::Strategy, strategy_code(strategy));
            call.answer(&r)?;
            call.null()
        }
        Some(p) => {
            let glue = call.string_from_core(&p.glue, &template_stand_ins(notice, from_function))?;
            let mut r = plan_results(&p);
            r.set(Slot::Strategy, strategy_code(strategy));
            call.answer(&r)?;
            Ok(glue)
        }
    }
}

/// How `plan` and `planList` plan a text, as their arguments say.
#[derive(Clone, Copy)]
struct TextPlan {
    limits: Limits,
    strategy: StrategyArg,
    exact: bool,
    snap: Snap,
    /// Whether a text carrying earlier notices is planned as the original they stand for.
    restack: bool,
}

impl TextPlan {
    /// The arguments from `first` on: strategy, maxChars, maxBytes, maxLines, headRatio,
    /// notice (skipped: read by the caller), exact, snap, restack.
    fn read(call: &Call, first: usize) -> Result<TextPlan, Thrown> {
        Ok(TextPlan {
            strategy: call.strategy_or_auto(first, first + 4)?,
            limits: call.limits(first + 1)?,
            exact: call.boolean(first + 6)?,
            snap: snap_of(call.boolean(first + 7)?),
            restack: call.boolean(first + 8)?,
        })
    }
}

/// [`answer_plan`] of a text's units; with `restack`, a text over its limits that carries
/// earlier notices of the library is planned as the original they stand for (see
/// [`toolclamp_core::restack`]).
fn answer_units<U: toolclamp_core::Unit>(call: &Call, units: &[U], how: &TextPlan, notice: NoticeArg) -> Answer {
    let TextPlan { limits, strategy, exact, snap, restack } = *how;
    let src = Units::new(units);
    // The scan first: most texts carry no notice, and then the plan counts them once.
    let prior = if restack { find_prior(units) } else { None };
    let prior = prior.filter(|_| !fits_limits(&src.totals(), &limits));
    let Some(prior) = prior else {
        return answer_plan(call, &src, &limits, strategy, notice, exact, snap);
    };
    let strategy = strategy.resolve(&src);
    let (planned, from_function) =
        with_notice(call, &notice, |n| plan_restacked(units, &prior, &limits, strategy, n, snap).map(Some))?;
    answer_planned(call, &src, strategy, notice, planned, from_function)
}

/// Runs `f` on the string argument `i` as a source: Latin-1 units unless `wide`.
fn with_string<R>(
    call: &Call,
    i: usize,
    wide: bool,
    f: impl FnOnce(&dyn Source) -> Result<R, Thrown>,
) -> Result<R, Thrown> {
    if wide {
        with_scratch(&UTF16, |buf| f(&Units::new(call.string_arg(i, buf)?)))
    } else {
        with_scratch(&LATIN1, |buf| f(&Units::new(call.string_arg(i, buf)?)))
    }
}

fn fits_limits(m: &Measure, limits: &Limits) -> bool {
    m.chars <= limits.max_chars && m.bytes <= limits.max_bytes && m.lines <= limits.max_lines
}

/// `plan(out, text, wide, strategy, maxChars, maxBytes, maxLines, headRatio, notice, exact,
/// snap, restack)` → the glue string, or `null` when the text fits. `wide` must be true
/// when the text has a char above U+00FF.
fn plan_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let how = TextPlan::read(call, 3)?;
    let notice = NoticeArg::read(call, 8)?;
    if wide {
        with_scratch(&UTF16, |buf| answer_units(call, call.string_arg(1, buf)?, &how, notice))
    } else {
        with_scratch(&LATIN1, |buf| answer_units(call, call.string_arg(1, buf)?, &how, notice))
    }
}

/// `planList(out, texts, wide, totalLength, strategy, maxChars, maxBytes, maxLines,
/// headRatio, notice, exact, snap, restack)`: `plan` over the concatenation of an array of
/// strings (the text blocks of a tool result), copied straight from the strings. Offsets
/// are into the concatenation.
fn plan_list(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let total = call.index(3)?;
    let how = TextPlan::read(call, 4)?;
    let notice = NoticeArg::read(call, 9)?;
    if wide {
        with_scratch(&UTF16, |buf| answer_units(call, read_list(call, total, buf)?, &how, notice))
    } else {
        with_scratch(&LATIN1, |buf| answer_units(call, read_list(call, total, buf)?, &how, notice))
    }
}

/// Copies the strings of the array argument 1, end to end, into `buf`: the units of their
/// concatenation, which JS never has to build. `total` is the sum of their lengths.
fn read_list<'b, U: StringUnit>(call: &Call, total: usize, buf: &'b mut Vec<U>) -> Result<&'b [U], Thrown> {
    let env = call.env();
    let list = call.arg(1);
    let mut is_array = false;
    // SAFETY: `env` and `list` are valid while the call runs.
    call.check(unsafe { sys::napi_is_array(env, list, &mut is_array) })?;
    if !is_array {
        return Err(call.type_error(1, "an array of strings"));
    }
    let mut count = 0u32;
    // SAFETY: as above.
    call.check(unsafe { sys::napi_get_array_length(env, list, &mut count) })?;
    buf.clear();
    buf.reserve(total);
    let mut item_units = Vec::new();
    for i in 0..count {
        let mut item = std::ptr::null_mut();
        // SAFETY: as above; `i` is below the array's length.
        call.check(unsafe { sys::napi_get_element(env, list, i, &mut item) })?;
        let units = call.units_of(item, &mut item_units).map_err(|e| call.naming(e, 1, "an array of strings"))?;
        if buf.len() + units.len() > total {
            return Err(call.range_error(3, "the sum of the strings' lengths", total));
        }
        buf.extend_from_slice(units);
    }
    if buf.len() != total {
        return Err(call.range_error(3, "the sum of the strings' lengths", total));
    }
    Ok(&buf[..])
}

/// `charsWindows(out, length, strategy, maxChars, headRatio)`: the three ranges of the
/// text a chars-only plan with the default notice reads, in the window slots, for
/// `planWindows`.
fn windows_of(call: &Call) -> Answer {
    let len = call.index(1)?;
    let strategy = call.strategy(2, 4)?;
    let max_chars = call.budget(3)?;
    let ranges = chars_windows(len, max_chars, strategy);
    let mut r = Results::new(Verdict::Windows);
    let slots = [
        (Slot::Window0From, Slot::Window0To),
        (Slot::Window1From, Slot::Window1To),
        (Slot::Window2From, Slot::Window2To),
    ];
    for ((from, to), (from_slot, to_slot)) in ranges.into_iter().zip(slots) {
        r.set(from_slot, from).set(to_slot, to);
    }
    call.answer(&r)?;
    call.null()
}

/// `planWindows(out, window0, from0, window1, from1, window2, from2, length, wide,
/// strategy, maxChars, headRatio)`: a chars-only plan of a long text seen through the
/// windows `charsWindows` named, with the default notice, so a 100 MB string costs a few
/// hundred units. Answers as `plan`.
fn plan_windows(call: &Call) -> Answer {
    let len = call.index(7)?;
    let offsets = [call.index(2)?, call.index(4)?, call.index(6)?];
    let wide = call.boolean(8)?;
    let strategy = call.strategy(9, 11)?;
    let limits = Limits { max_chars: call.budget(10)?, ..Limits::NONE };
    let check_window = |k: usize, units: usize| {
        if offsets[k].checked_add(units).is_some_and(|end| end <= len) {
            Ok(())
        } else {
            Err(call.range_error(1 + 2 * k, "a window inside the text", format!("{units} units at {}", offsets[k])))
        }
    };
    if wide {
        with_scratch(&UTF16_WINDOWS, |bufs| plan_through(call, bufs, offsets, len, check_window, &limits, strategy))
    } else {
        with_scratch(&LATIN1_WINDOWS, |bufs| plan_through(call, bufs, offsets, len, check_window, &limits, strategy))
    }
}

/// `planWindows` on windows copied as `U` units.
fn plan_through<U: StringUnit + toolclamp_core::Unit>(
    call: &Call,
    bufs: &mut [Vec<U>; 3],
    offsets: [usize; 3],
    len: usize,
    check_window: impl Fn(usize, usize) -> Result<(), Thrown>,
    limits: &Limits,
    strategy: Strategy,
) -> Answer {
    let [b0, b1, b2] = bufs;
    let units = [call.string_arg(1, b0)?, call.string_arg(3, b1)?, call.string_arg(5, b2)?];
    for (k, u) in units.iter().enumerate() {
        check_window(k, u.len())?;
    }
    let src = Windows::from_pieces([(offsets[0], units[0]), (offsets[1], units[1]), (offsets[2], units[2])], len);
    answer_plan(call, &src, limits, StrategyArg::Fixed(strategy), NoticeArg::Default, false, Snap::None)
}

/// `measure(out, text, wide)`: chars, bytes and lines in the total slots.
fn measure_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let m = if wide {
        with_scratch(&UTF16, |buf| call.string_arg::<u16>(1, buf).map(measure))?
    } else {
        with_scratch(&LATIN1, |buf| call.string_arg::<u8>(1, buf).map(measure))?
    };
    let mut r = Results::new(Verdict::Measured);
    r.set_measure(Slot::TotalChars, m).set(Slot::TotalTokens, estimate_tokens(m.bytes));
    call.answer(&r)?;
    call.null()
}

/// `planBuffer(out, bytes, strategy, maxChars, maxBytes, maxLines, headRatio, notice)` →
/// the clamped text of a `Uint8Array` of UTF-8 as a new string (the whole decoded text when
/// it fits, with the `fits` verdict). Invalid UTF-8 decodes as `buf.toString('utf8')` does:
/// each maximal invalid subpart becomes U+FFFD. Counts are of the decoded text and exact in
/// every dimension. `headEnd`/`tailStart` are byte offsets into the UTF-8 of the decoded
/// text, which are offsets into `bytes` when it is valid UTF-8.
fn plan_buffer(call: &Call) -> Answer {
    let strategy = call.strategy_or_auto(2, 6)?;
    let limits = call.limits(3)?;
    let notice = NoticeArg::read(call, 7)?;
    let snap = snap_of(call.boolean(8)?);
    let (borrowed, shared) = call.bytes(1)?;
    // A notice function runs JS while the plan reads the bytes, and JS could write to the
    // array or detach its memory; shared memory can change at any time. Plan a private
    // copy then.
    let private_copy: Vec<u8>;
    let data = if shared || notice.is_function() {
        private_copy = borrowed.to_vec();
        &private_copy[..]
    } else {
        borrowed
    };
    // Borrows valid UTF-8; allocates only to replace invalid sequences.
    let decoded = decode_lossy(data);
    let src = Utf8::new(&decoded);
    let text = src.as_bytes();
    let strategy = strategy.resolve(&src);
    let (planned, from_function) = plan_with(call, &src, &limits, strategy, &notice, true, snap)?;
    let Some(p) = planned else {
        let string = call.string_from_utf8(text, src.totals().chars as usize)?;
        let mut r = whole_results(&src);
        r.set(Slot::Strategy, strategy_code(strategy));
        call.answer(&r)?;
        return Ok(string);
    };
    let stand_ins = template_stand_ins(notice, from_function);
    let head = &text[..p.head_end];
    let tail = &text[p.tail_start..];
    let string = match stand_ins.restore(&p.glue) {
        None => {
            let mut clamped = Vec::with_capacity(head.len() + p.glue.len() + tail.len());
            clamped.extend_from_slice(head);
            clamped.extend_from_slice(p.glue.as_bytes());
            clamped.extend_from_slice(tail);
            call.string_from_utf8(&clamped, p.output.chars as usize)?
        }
        // A notice with lone surrogates: only UTF-16 can carry them.
        Some(glue) => {
            let utf16 = |bytes: &[u8]| String::from_utf8_lossy(bytes).encode_utf16().collect::<Vec<u16>>();
            let units = [utf16(head), glue, utf16(tail)].concat();
            call.string_from_utf16(&units)?
        }
    };
    let mut r = plan_results(&p);
    r.set(Slot::Strategy, strategy_code(strategy));
    call.answer(&r)?;
    Ok(string)
}

/// `planToolOutput(out, text, wide, maxChars, maxLines, headRatio, notice)` → `null` when
/// the output is within both limits, else `first + glue + last`, the indicator lines and
/// the glue in one string, split by the `firstLength` and `glueLength` slots: the view is
/// `first + text.slice(0, headEnd) + glue + last + text.slice(tailStart)`.
fn plan_tool_output_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let max_chars = call.budget(3)?;
    let max_lines = call.budget(4)?;
    let head_ratio = call.number(5)?;
    if !(0.0..=1.0).contains(&head_ratio) {
        return Err(call.range_error(5, "a number from 0 to 1", head_ratio));
    }
    let notice = NoticeArg::read(call, 6)?;
    with_string(call, 1, wide, |src| {
        let (planned, from_function) =
            with_notice(call, &notice, |n| plan_tool_output(src, max_chars, max_lines, head_ratio, n))?;
        let Some(view) = planned else {
            let mut r = whole_results(src);
            r.set(Slot::HeadLines, src.totals().lines);
            call.answer(&r)?;
            return call.null();
        };
        let pieces = [view.first.as_str(), view.plan.glue.as_str(), view.last.as_str()].concat();
        let string = call.string_from_core(&pieces, &template_stand_ins(notice, from_function))?;
        let mut r = plan_results(&view.plan);
        r.set(Slot::HeadLines, view.head_lines)
            .set(Slot::TailLines, view.tail_lines)
            .set(Slot::FirstLength, view.first.len())
            .set(Slot::GlueLength, view.plan.glue.encode_utf16().count());
        call.answer(&r)?;
        Ok(string)
    })
}

fn page_results(p: &Page, start: usize, end: usize) -> Results {
    let (next_line, next_column) = p.next.unwrap_or((0, 0));
    let mut r = Results::new(Verdict::Page);
    r.set(Slot::PageStart, start)
        .set(Slot::PageEnd, end)
        .set_measure(Slot::TotalChars, p.total)
        .set_measure(Slot::ShownChars, p.shown)
        .set(Slot::FirstLine, p.first_line)
        .set(Slot::LastLine, p.last_line)
        .set(Slot::StartByte, p.start_byte)
        .set(Slot::EndByte, p.end_byte)
        .set(Slot::NextLine, next_line)
        .set(Slot::NextColumn, next_column);
    r
}

/// The page request from arguments `first..first + 4`: line, column, maxBytes, maxLines.
fn page_request(call: &Call, first: usize) -> Result<PageRequest, Thrown> {
    Ok(PageRequest {
        line: call.index(first)? as u64,
        column: call.index(first + 1)?,
        max_bytes: call.budget(first + 2)?,
        max_lines: call.budget(first + 3)?,
    })
}

/// Pages `src` and answers with the banner of a partial page, else `null`; `map` turns page
/// positions into the caller's. A partial page and its banner line fit the budget together.
fn answer_page<S: Source + ?Sized>(call: &Call, src: &S, req: &PageRequest, map: impl Fn(usize) -> usize) -> Answer {
    let (p, banner) = page_with_banner(src, req).map_err(|e| Thrown::Range(e.to_string()))?;
    let banner = match banner {
        Some(banner) => Some(call.string_from_core(&banner, &StandIns::default())?),
        None => None,
    };
    call.answer(&page_results(&p, map(p.start), map(p.end)))?;
    banner.map_or_else(|| call.null(), Ok)
}

/// `planPage(out, text, wide, line, column, maxBytes, maxLines)` → the banner of a partial
/// page, or `null` when the page is the whole text. The page is
/// `text.slice(pageStart, pageEnd)`; columns count UTF-16 units. `banner + "\n" + page` is
/// within the budget. A line or column outside the text, or a budget too small for a banner
/// line and one character, throws a `RangeError`.
fn plan_page(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let req = page_request(call, 3)?;
    with_string(call, 1, wide, |src| answer_page(call, src, &req, |i| i))
}

/// `planPageBuffer(out, bytes, line, column, maxBytes, maxLines)`: `planPage` for a
/// `Uint8Array` of UTF-8, paged as the text `buf.toString('utf8')` decodes to. Columns,
/// counts and `startByte`/`endByte` are those of the decoded text; `pageStart`/`pageEnd`
/// are offsets into `bytes`, so the page is `bytes.subarray(pageStart, pageEnd)` decoded,
/// even when `bytes` holds invalid UTF-8 (a maximal invalid subpart is never split).
fn plan_page_buffer(call: &Call) -> Answer {
    let req = page_request(call, 2)?;
    let (borrowed, shared) = call.bytes(1)?;
    // No JS runs while paging, so only shared memory needs a private copy.
    let private_copy: Vec<u8>;
    let data = if shared {
        private_copy = borrowed.to_vec();
        &private_copy[..]
    } else {
        borrowed
    };
    match decode_lossy(data) {
        Cow::Borrowed(text) => answer_page(call, &Utf8::new(text), &req, |i| i),
        // Positions in the decoded text map back to the invalid bytes.
        Cow::Owned(text) => answer_page(call, &Utf8::new(&text), &req, |i| lossy_position(data, i)),
    }
}

/// `repage(out, text, wide, maxChars, maxBytes, maxLines, byteColumns)`: `text` cut to the
/// limits as a page under its banner line (see [`repage`]). Answers `fits` when `text` is no
/// such page; else `page` with `pageStart` (where the page starts in `text`) and `pageEnd`
/// (where the kept part ends), returning the new banner, or `null` when the limits cannot
/// hold a banner line and one character.
fn repage_page(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let limits = call.limits(3)?;
    let byte_columns = call.boolean(6)?;
    let answer = with_string(call, 1, wide, |src| Ok(repage(src, &limits, byte_columns)))?;
    let (start, end, banner) = match answer {
        Repage::NotAPage => {
            call.answer(&Results::new(Verdict::Fits))?;
            return call.null();
        }
        Repage::TooSmall { page_start } => (page_start, page_start, None),
        Repage::Cut { page_start, end, banner } => (page_start, end, Some(banner)),
    };
    let banner = match banner {
        Some(banner) => Some(call.string_from_core(&banner, &StandIns::default())?),
        None => None,
    };
    let mut r = Results::new(Verdict::Page);
    r.set(Slot::PageStart, start).set(Slot::PageEnd, end);
    call.answer(&r)?;
    banner.map_or_else(|| call.null(), Ok)
}

/// `clampJson(out, text, wide, strategy, maxChars, maxBytes, maxLines, headRatio,
/// inlineMarkers, gap)`, where `text` is `JSON.stringify(value)` → `null` when the value
/// fits as `JSON.stringify(value, null, gap)` renders it, else the elisions as a JSON array,
/// a line feed and the clamped value as compact JSON (see [`answer_text`]; the value is
/// empty when no form of it fits). The total and output measures are in their slots
/// either way.
fn clamp_json_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let (request, gap) = json_request(call, 3, false)?;
    let request = JsonRequest { gap: &gap.text, ..request };
    if wide {
        with_scratch(&UTF16, |buf| answer_json(call, call.string_arg::<u16>(1, buf)?, &request))
    } else {
        with_scratch(&LATIN1, |buf| answer_json(call, call.string_arg::<u8>(1, buf)?, &request))
    }
}

/// The request of `clampJson` and `clampJsonText` from `strategy, maxChars, maxBytes,
/// maxLines, headRatio, inlineMarkers, gap` at `first`, with the gap beside it (for the
/// request to borrow).
fn json_request(call: &Call, first: usize, indent: bool) -> Result<(JsonRequest<'static>, NoticeText), Thrown> {
    let strategy = call.strategy(first, first + 4)?;
    let limits = call.limits(first + 1)?;
    let markers = if call.boolean(first + 5)? { Markers::Inline } else { Markers::None };
    // A gap is at most ten chars (JSON.stringify's rule); lone surrogates weigh what their
    // stand-ins do.
    let gap = call.notice_text(call.arg(first + 6)).map_err(|e| call.naming(e, first + 6, "a string"))?;
    Ok((JsonRequest { limits, strategy, markers, gap: "", indent }, gap))
}

fn answer_json<U: StringUnit + JsonUnit>(call: &Call, units: &[U], request: &JsonRequest<'_>) -> Answer {
    let (total, clamped) = clamp_json(units, request).map_err(|e| Thrown::Type(format!("text: {e}")))?;
    let Some(clamped) = clamped else {
        let mut r = Results::new(Verdict::Fits);
        r.set_measure(Slot::TotalChars, total).set_measure(Slot::OutputChars, total);
        call.answer(&r)?;
        return call.null();
    };
    let answer = answer_text(&clamped);
    let text = U::string_from(call, &answer)?;
    let mut r = Results::new(Verdict::Cut);
    r.set_measure(Slot::TotalChars, clamped.total).set_measure(Slot::OutputChars, clamped.output);
    call.answer(&r)?;
    Ok(text)
}

/// `clampJsonText(out, text, strategy, maxChars, maxBytes, maxLines, headRatio,
/// inlineMarkers, gap)`, where `text` is any string → `null` when it fits as it is, else
/// the elisions as a JSON array, a line feed and the value rendered with the gap (see
/// [`clamp_json_text`]). A text that is not JSON throws a `TypeError` "text: not valid
/// JSON at position N". The total slots hold the text's measure, the output slots the
/// result's. Read as UTF-16 whatever it holds: the result may hold the gap and `…`.
fn clamp_json_text_string(call: &Call) -> Answer {
    let (request, gap) = json_request(call, 2, true)?;
    let request = JsonRequest { gap: &gap.text, ..request };
    with_scratch(&UTF16, |buf| {
        let units = call.string_arg::<u16>(1, buf)?;
        let answer = clamp_json_text(units, &request).map_err(|e| Thrown::Type(format!("text: {e}")))?;
        let (verdict, input, output, text) = match answer {
            JsonText::AsGiven { input } => (Verdict::Fits, input, input, None),
            JsonText::Rendered { input, clamped } => (Verdict::Cut, input, clamped.output, Some(answer_text(&clamped))),
        };
        let text = match text {
            Some(answer) => call.string_from_utf16(&answer)?,
            None => call.null()?,
        };
        let mut r = Results::new(verdict);
        r.set_measure(Slot::TotalChars, input).set_measure(Slot::OutputChars, output);
        call.answer(&r)?;
        Ok(text)
    })
}

/// `locateJson(out, text, wide, paths)`: where in the JSON `text` the value at each of
/// `paths` (a JSON text, see [`parse_json_paths`]) is → a JSON text `[[start,end],null,...]`
/// of offsets in the string's UTF-16 units (`null` where a path leads nowhere). A `text` or
/// `paths` that is not JSON throws a `TypeError` naming it.
fn locate_json_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let mut path_units = Vec::new();
    let path_units = call.string_arg::<u16>(3, &mut path_units)?;
    let paths = parse_json_paths(path_units).map_err(|toolclamp_core::JsonError::Invalid { at }| {
        Thrown::Type(format!("paths: not a JSON array of paths of keys and indices (at position {at})"))
    })?;
    let located = |spans: Result<Vec<Option<std::ops::Range<usize>>>, toolclamp_core::JsonError>| {
        spans.map_err(|e| Thrown::Type(format!("text: {e}")))
    };
    let spans = if wide {
        with_scratch(&UTF16, |buf| located(locate_json(call.string_arg::<u16>(1, buf)?, &paths)))
    } else {
        with_scratch(&LATIN1, |buf| located(locate_json(call.string_arg::<u8>(1, buf)?, &paths)))
    }?;
    let mut answer = String::from("[");
    for (i, span) in spans.iter().enumerate() {
        if i > 0 {
            answer.push(',');
        }
        match span {
            Some(r) => answer.push_str(&format!("[{},{}]", r.start, r.end)),
            None => answer.push_str("null"),
        }
    }
    answer.push(']');
    let text = call.string_from_utf8(answer.as_bytes(), answer.len())?;
    call.answer(&Results::new(Verdict::Located))?;
    Ok(text)
}

/// `classifyError(out, message, status, code)`: what a provider's error says, from the
/// texts JS found in it (joined), its HTTP status (-1 for none) and its code ("" for none).
/// Answers the provider's name (or `null`), with the kind and the token counts (-1 when
/// the message states none) in their slots.
fn classify_error(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let status = call.number(3)?;
    let code = call.notice_text(call.arg(4)).map_err(|e| call.naming(e, 4, "a string"))?;
    let status = (status.fract() == 0.0 && (100.0..=599.0).contains(&status)).then_some(status as u16);
    let code = (!code.text.is_empty()).then_some(code.text.as_str());
    let class = if wide {
        // Lone surrogates cannot be part of a phrase: replaced, as the UTF-16 is read.
        let units = with_scratch(&UTF16, |buf| call.string_arg::<u16>(1, buf).map(String::from_utf16_lossy))?;
        classify_provider_error(&units, status, code)
    } else {
        with_scratch(&LATIN1, |buf| {
            let units = call.string_arg::<u8>(1, buf)?;
            // ASCII (the usual error) is UTF-8 as it is; other Latin-1 is widened.
            let text = match std::str::from_utf8(units) {
                Ok(text) if units.is_ascii() => Cow::Borrowed(text),
                _ => Cow::Owned(units.iter().map(|&b| char::from(b)).collect::<String>()),
            };
            Ok::<_, Thrown>(classify_provider_error(&text, status, code))
        })?
    };
    let mut r = Results::new(Verdict::Classified);
    r.set(Slot::ErrorKind, error_kind_code(class.kind))
        .set_optional(Slot::LimitTokens, class.limit_tokens)
        .set_optional(Slot::RequestedTokens, class.requested_tokens);
    let provider = match class.provider {
        Some(name) => call.string_from_utf8(name.as_bytes(), name.len())?,
        None => call.null()?,
    };
    call.answer(&r)?;
    Ok(provider)
}

/// `planBudget(out, sizes, perResult, aggregate, minKeepChars, protectRecent)`: plans the tool
/// results of a conversation (oldest first) into token budgets. `sizes` is a `Float64Array`
/// of `LAYOUT.budgetFields` per result; each result's first two fields are overwritten with
/// its action's code (`LAYOUT.budgetActions`) and the text tokens a clamp keeps.
fn plan_budget_of(call: &Call) -> Answer {
    let request = BudgetRequest {
        per_result: call.budget(2)?,
        aggregate: call.budget(3)?,
        min_keep_chars: call.budget(4)?,
        protect_recent: call.index(5)?,
    };
    let fields = BUDGET_FIELDS.len();
    // SAFETY: no JS runs until this function returns (the plan is pure Rust and the
    // answer is written to argument 0, another buffer), and this is the only slice taken.
    let sizes = unsafe { call.f64s_mut(1)? };
    if sizes.len() % fields != 0 {
        return Err(call.range_error(1, &format!("{fields} numbers per result"), sizes.len()));
    }
    let mut results = Vec::with_capacity(sizes.len() / fields);
    for (k, f) in sizes.chunks_exact(fields).enumerate() {
        let count = |x: f64| {
            let n = x as u64;
            (n as f64 == x)
                .then_some(n)
                .ok_or_else(|| call.range_error(1, "non-negative integers", format!("{x} at {k}")))
        };
        results.push(ResultSize {
            text_tokens: count(f[0])?,
            text_chars: count(f[1])?,
            fixed_tokens: count(f[2])?,
            marker_tokens: count(f[3])?,
        });
    }
    let budget = plan_budget(&results, &request);
    for (f, &action) in sizes.chunks_exact_mut(fields).zip(&budget.actions) {
        let (code, tokens) = budget_action_code(action);
        f[0] = code;
        f[1] = tokens as f64;
    }
    let mut r = Results::new(Verdict::Budgeted);
    r.set(Slot::TokensBefore, budget.tokens_before)
        .set(Slot::TokensAfter, budget.tokens_after)
        .set(Slot::Fits, u8::from(budget.fits));
    call.answer(&r)?;
    call.undefined()
}

/// `elisionMarker(out, chars, lines, tokens, spillPath)` → the marker that stands for an
/// elided tool result (`spillPath` a string or null), with its chars, bytes, lines and
/// tokens in the total slots.
fn elision_marker_of(call: &Call) -> Answer {
    let chars = call.index(1)? as u64;
    let lines = call.index(2)? as u64;
    let tokens = call.index(3)? as u64;
    let path = match call.type_of(call.arg(4))? {
        sys::ValueType::napi_null => None,
        _ => Some(call.notice_text(call.arg(4)).map_err(|e| call.naming(e, 4, "a string or null"))?),
    };
    let marker =
        elision_marker(&MarkerFacts { chars, lines, tokens, spill_path: path.as_ref().map(|p| p.text.as_str()) });
    let m = measure_str(&marker);
    let mut r = Results::new(Verdict::Marker);
    r.set_measure(Slot::TotalChars, m).set(Slot::TotalTokens, estimate_tokens(m.bytes));
    call.answer(&r)?;
    match &path {
        Some(p) => call.string_from_core(&marker, &p.stand_ins),
        None => call.string_from_utf8(marker.as_bytes(), m.chars as usize),
    }
}

/// Flags of terminal normalisation: a whole number below 16 (bits of `LAYOUT.normalizeFlags`).
fn normalize_flags(call: &Call, i: usize) -> Result<toolclamp_core::Normalize, Thrown> {
    let flags = call.index(i)? as u64;
    if flags >= 16 {
        return Err(call.range_error(i, "a whole number below 16", flags));
    }
    Ok(normalize_of(flags))
}

/// Answers a normalised text: its measure in the total slots, the text returned, or `null`
/// when it is longer than `max_length` UTF-16 units (longer than a JS string can be).
fn answer_normalized(call: &Call, text: &str, max_length: u64) -> Answer {
    let m = measure_str(text);
    let mut r = Results::new(Verdict::Normalized);
    r.set_measure(Slot::TotalChars, m);
    call.answer(&r)?;
    if m.chars > max_length {
        return call.null();
    }
    call.string_from_utf8(text.as_bytes(), m.chars as usize)
}

/// `normalizedBound(out, length, bytes)`: the most UTF-16 units the normalised text of a
/// string of `length` units (of `length` UTF-8 bytes if `bytes`) can have, in the
/// TotalChars slot ([`max_normalized_utf16`]).
fn normalized_bound(call: &Call) -> Answer {
    let length = call.index(1)? as u64;
    let bytes = call.boolean(2)?;
    let mut r = Results::new(Verdict::Normalized);
    r.set(Slot::TotalChars, max_normalized_utf16(length, bytes));
    call.answer(&r)?;
    call.undefined()
}

/// `normalizeTerminal(out, text, wide, flags, maxLength)` → the text as a terminal would
/// finally show it (`null` if longer than `maxLength`). Lone surrogates cannot be terminal
/// output: they read as U+FFFD.
fn normalize_terminal_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let options = normalize_flags(call, 3)?;
    let max_length = call.index(4)? as u64;
    let text = if wide {
        with_scratch(&UTF16, |buf| call.string_arg::<u16>(1, buf).map(String::from_utf16_lossy))?
    } else {
        with_scratch(&LATIN1, |buf| {
            call.string_arg::<u8>(1, buf).map(|units| units.iter().map(|&b| char::from(b)).collect::<String>())
        })?
    };
    answer_normalized_of(call, text.as_bytes(), options, max_length)
}

/// Answers `text` normalised, or `null` if longer than `max_length` UTF-16 units: text that
/// might be is measured first, so that text too long is never built.
fn answer_normalized_of(call: &Call, text: &[u8], options: toolclamp_core::Normalize, max_length: u64) -> Answer {
    if max_normalized_utf16(text.len() as u64, true) > max_length {
        let length = normalized_utf16_len(text, options);
        if length > max_length {
            let mut r = Results::new(Verdict::Normalized);
            r.set(Slot::TotalChars, length);
            call.answer(&r)?;
            return call.null();
        }
    }
    answer_normalized(call, &normalize_terminal_output(text, options), max_length)
}

/// `normalizeTerminalBuffer(out, bytes, flags, maxLength)`: the same for UTF-8 bytes
/// (invalid sequences read as U+FFFD).
fn normalize_terminal_buffer(call: &Call) -> Answer {
    let options = normalize_flags(call, 2)?;
    let max_length = call.index(3)? as u64;
    let (bytes, _) = call.bytes(1)?;
    // No JS runs while the bytes are read: the normaliser is pure Rust.
    answer_normalized_of(call, bytes, options, max_length)
}
