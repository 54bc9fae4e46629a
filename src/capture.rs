//! Captures as JS handles (`handle.rs`): a [`Capture`] kept between calls, fed chunk by
//! chunk, with the memory its buffers hold reported to V8.
//!
//! The one way JS can reach a capture while the binding holds it is a notice function called
//! during a plan; the `RefCell` turns such a re-entrant call into an error instead of aliasing.

use std::cell::{Ref, RefMut};

use napi::sys;
use toolclamp_core::{
    plan_head_at, token_bytes, Capture, CaptureError, CaptureOptions, Gapped, Plan, Source, Span, Strategy, Tokenizer,
    UNLIMITED,
};

use crate::call::{Answer, Call, Thrown};
use crate::handle::{self as handles, Handle};
use crate::layout::{normalize_of, Field, Results, Slot, Verdict};
use crate::notice::{template_stand_ins, with_notice, NoticeArg};
use crate::plan::{plan_results, plan_with, snap_of};
use crate::text::{with_scratch, LATIN1, UTF16};
use crate::tokens::{Counter, JsCounter, TokenLimit};

/// Marks externals made by this module (random, fixed: a handle of another build of the
/// addon with the same tag has the same layout only if it is this very code).
const TAG: sys::napi_type_tag = sys::napi_type_tag { lower: 0x5d1c_6a0e_97b2_4f31, upper: 0xc3a8_0f6e_2b19_d744 };

struct State {
    capture: Capture,
    /// Where the head shown early ends ([`settled_head`]); the final plan keeps it.
    settled: Option<usize>,
    /// A limit in exact tokens: its maximum, and the encoding that counts them (`None`: the
    /// caller's function, passed to each result).
    tokens: Option<(u64, Option<&'static Tokenizer>)>,
}

/// A capture's handle.
type CaptureHandle = Handle<Box<State>>;

/// The bytes a capture's buffers hold, reported for its handle.
fn held(state: Option<&State>) -> usize {
    state.map_or(0, |s| s.capture.kept_bytes())
}

/// The capture behind argument `i`.
fn handle(call: &Call, i: usize) -> Result<&CaptureHandle, Thrown> {
    handles::from_arg(call, i, &TAG, "a capture handle")
}

fn busy() -> Thrown {
    Thrown::Error("toolclamp: the capture is in use (called from its own notice function)".into())
}

fn disposed() -> Thrown {
    Thrown::Error("toolclamp: the capture was disposed".into())
}

/// The state of a capture that is not disposed, shared.
fn state(handle: &CaptureHandle) -> Result<Ref<'_, State>, Thrown> {
    let state = handle.state.try_borrow().map_err(|_| busy())?;
    Ref::filter_map(state, Option::as_deref).map_err(|_| disposed())
}

/// The state of a capture that is not disposed, to change.
fn state_mut(handle: &CaptureHandle) -> Result<RefMut<'_, State>, Thrown> {
    let state = handle.state.try_borrow_mut().map_err(|_| busy())?;
    RefMut::filter_map(state, Option::as_deref_mut).map_err(|_| disposed())
}

fn answer_totals(call: &Call, capture: &Capture) -> Result<(), Thrown> {
    let mut r = Results::new(Verdict::Captured);
    r.set_measure(Slot::TotalChars, capture.totals());
    call.answer(&r)
}

/// `captureCreate` → a capture handle that keeps what the request block's strategy, limits,
/// head ratio and limit in exact tokens keep (a token counter function, argument 4, is
/// only checked here: each result is passed it). `normalize` turns on terminal
/// normalisation with `flags`; `raw` keeps bytes as they came.
pub fn capture_create(call: &Call) -> Answer {
    let strategy = call.strategy()?;
    let limits = call.limits()?;
    let normalize = call.boolean(1)?;
    let flags = call.index(2)? as u64;
    if flags >= 16 {
        return Err(call.range_error(2, "a whole number below 16", flags));
    }
    let raw = call.boolean(3)?;
    let tokens = TokenLimit::read(call, 4)?.map(|t| match t.counter {
        Counter::Encoding(tokenizer) => (t.max, Some(tokenizer)),
        Counter::Function(_) => (t.max, None),
    });
    if raw && tokens.is_some() {
        return Err(Thrown::Type("toolclamp binding: a raw capture cannot count tokens".into()));
    }
    // An encoding's longest token bounds what a result within the tokens holds.
    let bound = match tokens {
        Some((max, Some(tokenizer))) => token_bytes(max, tokenizer.vocab().max_token_len() as u64),
        _ => UNLIMITED,
    };
    let options = CaptureOptions { limits, strategy, normalize: normalize.then(|| normalize_of(flags)), raw };
    let capture = Capture::within_token_bytes(options, bound).map_err(|e| match e {
        CaptureError::Unbounded => Thrown::Range(format!("toolclamp: {e}")),
    })?;
    answer_totals(call, &capture)?;
    // Nothing is kept yet, so nothing to report: the writes report what their text keeps.
    let state = Box::new(State { capture, settled: None, tokens });
    handles::create(call, &TAG, state)
}

/// `captureDispose`: frees the capture's buffers now, not when the handle is
/// collected; any later use of it throws. Idempotent. Answers the last totals (zeros once
/// disposed).
pub fn capture_dispose(call: &Call) -> Answer {
    let handle = handle(call, 1)?;
    let mut state = handle.state.try_borrow_mut().map_err(|_| busy())?;
    let mut r = Results::new(Verdict::Captured);
    if let Some(last) = state.take() {
        r.set_measure(Slot::TotalChars, last.capture.totals());
    }
    drop(state);
    handle.report(call.env(), held(None));
    call.answer(&r)?;
    call.undefined()
}

/// `captureWrite`: feeds a string (UTF-16 units if `wide`,
/// else Latin-1) or a Uint8Array. Answers the totals; returns `undefined`, or with `echo`
/// a Buffer of the text this chunk added (decoded and normalised, for a spill file).
pub fn capture_write(call: &Call) -> Answer {
    let handle = handle(call, 1)?;
    let wide = call.boolean(3)?;
    let echo = call.boolean(4)?;
    let mut state = state_mut(handle)?;
    if state.capture.is_finished() {
        return Err(Thrown::Error("toolclamp: write after end".into()));
    }
    let before = state.capture.totals().bytes;
    state.capture.set_echo(echo);
    if call.type_of(call.arg(2))? == sys::ValueType::napi_string {
        if wide {
            with_scratch(&UTF16, |buf| call.string_arg::<u16>(2, buf).map(|u| state.capture.write_utf16(u)))?;
        } else {
            with_scratch(&LATIN1, |buf| call.string_arg::<u8>(2, buf).map(|u| state.capture.write_latin1(u)))?;
        }
    } else {
        // No JS runs while the capture reads the bytes.
        let (bytes, _) = call.bytes(2)?;
        state.capture.write_bytes(bytes);
    }
    handle.report(call.env(), held(Some(&state)));
    answer_totals(call, &state.capture)?;
    if !echo {
        return call.undefined();
    }
    let added = state.capture.take_echo();
    state.capture.set_echo(false);
    debug_assert_eq!(added.len() as u64, state.capture.totals().bytes - before);
    call.buffer_copy(&added)
}

/// `captureFinish`: ends the input (a cut sequence becomes U+FFFD, the
/// normaliser's last line is counted). Idempotent. Answers the totals; returns `undefined`,
/// or with `echo` a Buffer of the text the end added.
pub fn capture_finish(call: &Call) -> Answer {
    let handle = handle(call, 1)?;
    let echo = call.boolean(2)?;
    let mut state = state_mut(handle)?;
    state.capture.set_echo(echo);
    state.capture.finish();
    let added = state.capture.take_echo();
    state.capture.set_echo(false);
    handle.report(call.env(), held(Some(&state)));
    answer_totals(call, &state.capture)?;
    if echo {
        call.buffer_copy(&added)
    } else {
        call.undefined()
    }
}

/// `captureResult` → the clamped text (a Buffer for a raw capture, else a string), with the
/// request block's snap. With `final` the capture ends first; without, the result is that
/// of a snapshot. Offsets are UTF-16 positions (bytes for a raw capture). A capture with a
/// limit in exact tokens is cut within them (a counter function is argument 4), with its
/// tokens in their slots.
pub fn capture_result(call: &Call) -> Answer {
    let snap = snap_of(call.flag(Field::Snap)?);
    let handle = handle(call, 1)?;
    let last = call.boolean(2)?;
    let notice = NoticeArg::read(call, 3)?;
    let snapshot;
    let state;
    let (capture, settled, tokens) = if last {
        {
            let mut state = state_mut(handle)?;
            state.capture.finish();
            handle.report(call.env(), held(Some(&state)));
        }
        state = self::state(handle)?;
        (&state.capture, state.settled, state.tokens)
    } else {
        let borrowed = self::state(handle)?;
        snapshot = borrowed.capture.snapshot();
        let (settled, tokens) = (borrowed.settled, borrowed.tokens);
        drop(borrowed);
        (&snapshot, settled, tokens)
    };
    if let Some(tokens) = tokens {
        return answer_tokens(call, capture, tokens, notice, snap);
    }
    let src = capture.source();
    let options = *capture.options();
    let (planned, from_function) = match settled {
        Some(head_end) => with_notice(call, &notice, |n| plan_head_at(&src, &options.limits, n, head_end))?,
        None => plan_with(call, &src, &options.limits, options.strategy, &notice, true, snap)?,
    };
    answer_planned(call, &src, options.raw, planned, template_stand_ins(notice, from_function), |_| ())
}

/// [`capture_result`] of a capture with a limit in exact tokens: the plan of
/// [`Capture::cut_within_tokens`], counted by the encoding's index of the kept text or by
/// the caller's function (argument 4). The text's tokens are exact only when the capture
/// kept it whole and the count read it all; otherwise a lower bound (or unknown, for a
/// function that never counted the whole text).
fn answer_tokens(
    call: &Call,
    capture: &Capture,
    (max, encoding): (u64, Option<&'static Tokenizer>),
    notice: NoticeArg,
    snap: toolclamp_core::Snap,
) -> Answer {
    let src = capture.source();
    let kept = capture.kept_text();
    let search = |n: &mut toolclamp_core::Notice<'_>, counter: &mut dyn toolclamp_core::CountCandidate| {
        capture.cut_within_tokens(max, n, snap, counter)
    };
    let (cut, total, from_function) = match encoding {
        Some(tokenizer) => {
            let mut index = kept.index(tokenizer, max);
            let (cut, from_function) = with_notice(call, &notice, |n| search(n, &mut index))?;
            let total = kept.total_tokens(&index, tokenizer.vocab().max_token_len() as u64);
            (cut, Some(total), from_function)
        }
        None => {
            let func = call.arg(4);
            if call.type_of(func)? != sys::ValueType::napi_function {
                return Err(call.type_error(4, "a function"));
            }
            let mut counter = JsCounter::new(call, func, &kept);
            let (cut, from_function) = with_notice(call, &notice, |n| search(n, &mut counter))?;
            if let Some(thrown) = counter.failed {
                return Err(thrown);
            }
            (cut, counter.whole.map(|t| (t, true)), from_function)
        }
    };
    let stand_ins = template_stand_ins(notice, from_function);
    answer_planned(call, &src, false, cut.plan, stand_ins, |r| {
        r.set(Slot::OutputTokens, cut.tokens)
            .set(Slot::TokensBound, cut.by_tokens as u64)
            .set_optional(Slot::TotalTokens, total.map(|(t, _)| t))
            .set(Slot::TotalTokensExact, total.is_some_and(|(_, exact)| exact) as u64);
    })
}

/// Answers a plan of a capture's text (`None`: it fits) with the clamped text; `extra`
/// adds to the results.
fn answer_planned(
    call: &Call,
    src: &Gapped<'_>,
    raw: bool,
    planned: Option<Plan>,
    stand_ins: crate::text::StandIns,
    extra: impl FnOnce(&mut Results),
) -> Answer {
    let Some(p) = planned else {
        let mut bytes = Vec::with_capacity(src.len());
        src.copy_to(0, src.len(), &mut bytes);
        let total = src.totals();
        let mut r = Results::new(Verdict::Fits);
        let end = if raw { src.len() as u64 } else { total.chars };
        r.set(Slot::HeadEnd, end)
            .set(Slot::TailStart, end)
            .set_measure(Slot::TotalChars, total)
            .set_measure(Slot::OutputChars, total);
        extra(&mut r);
        call.answer(&r)?;
        return text_of(call, &bytes, total.chars, raw);
    };
    let mut bytes = Vec::with_capacity(p.output.bytes as usize);
    src.copy_to(0, p.head_end, &mut bytes);
    let head_len = bytes.len();
    bytes.extend_from_slice(p.glue.as_bytes());
    let glue_end = bytes.len();
    src.copy_to(p.tail_start, src.len(), &mut bytes);
    let mut r = plan_results(&p);
    if !raw {
        let (head_end, tail_start) = utf16_offsets(src, &p);
        r.set(Slot::HeadEnd, head_end).set(Slot::TailStart, tail_start);
    }
    extra(&mut r);
    call.answer(&r)?;
    // A notice with lone surrogates: only UTF-16 carries them.
    match stand_ins.restore(&p.glue) {
        Some(glue) if !raw => {
            let utf16 = |b: &[u8]| String::from_utf8_lossy(b).encode_utf16().collect::<Vec<u16>>();
            let units = [utf16(&bytes[..head_len]), glue, utf16(&bytes[glue_end..])].concat();
            call.string_from_utf16(&units)
        }
        _ => text_of(call, &bytes, p.output.chars, raw),
    }
}

/// The UTF-16 offsets of a plan's cuts in the text.
fn utf16_offsets(src: &Gapped<'_>, p: &Plan) -> (u64, u64) {
    let head = src.span(0, p.head_end);
    let tail = if p.tail_start < src.len() { src.span(p.tail_start, src.len()) } else { Span::ZERO };
    (head.chars, src.totals().chars - tail.chars)
}

fn text_of(call: &Call, bytes: &[u8], chars: u64, raw: bool) -> Answer {
    if raw {
        call.buffer_copy(bytes)
    } else {
        call.string_from_utf8(bytes, chars as usize)
    }
}

/// `captureSettleHead` → `null` until the capture (strategy head) is longer than any head
/// it can keep (with the request block's snap); then the head text (a Buffer for a raw
/// capture), which the final result keeps as it is. The head is planned with totals of
/// unknown size, so the notice of the whole text (or a shorter fallback) fits after it.
pub fn capture_settle_head(call: &Call) -> Answer {
    let snap = snap_of(call.flag(Field::Snap)?);
    let handle = handle(call, 1)?;
    let notice = NoticeArg::read(call, 2)?;
    let state = state(handle)?;
    let Some(settled) = state.settled else {
        // A head within exact tokens is known only once the notice is: at the end.
        let early = state.tokens.is_none().then(|| state.capture.settled_head()).flatten();
        let Some(src) = early else {
            answer_totals(call, &state.capture)?;
            return call.null();
        };
        let options = *state.capture.options();
        let (planned, _) = plan_with(call, &src, &options.limits, Strategy::Head, &notice, true, snap)?;
        let head_end = planned.map_or(0, |p| p.head_end);
        drop(state);
        state_mut(handle)?.settled = Some(head_end);
        return capture_settle_head_text(call, handle, head_end);
    };
    drop(state);
    capture_settle_head_text(call, handle, settled)
}

fn capture_settle_head_text(call: &Call, handle: &CaptureHandle, head_end: usize) -> Answer {
    let state = state(handle)?;
    let src = state.capture.source();
    let mut bytes = Vec::with_capacity(head_end);
    src.copy_to(0, head_end, &mut bytes);
    let chars = src.span(0, head_end).chars;
    answer_totals(call, &state.capture)?;
    text_of(call, &bytes, chars, state.capture.options().raw)
}
