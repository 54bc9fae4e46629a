//! Plans of texts: strings (whole, in windows, or as a list), UTF-8 buffers, and the head/tail
//! view of a tool's output; each answer is written to the result buffer (see [`crate::layout`]).

use napi::sys;
use toolclamp_core::{
    chars_windows, cut_ends_to_tokens, cut_to_tokens, decode_lossy, end_units, ends_reach, estimate_tokens, find_prior,
    measure, plan_restacked, plan_tool_output, plan_with_snap, tell_omitted_tokens, token_ends_reach,
    with_token_totals, Candidate, CountCandidate, Dims, Ends, EndsStop, Limits, Measure, Measured, Notice, Plan, Snap,
    Source, Strategy, Tally, TokenCut, TokenIndex, Tokenizer, Units, Utf8, Windows,
};

use crate::call::{Answer, Call, StrategyArg, Thrown};
use crate::layout::{strategy_code, Field, Results, Slot, Verdict};
use crate::notice::{template_stand_ins, with_notice, NoticeArg};
use crate::text::{with_scratch, NoticeText, StandIns, StringUnit, LATIN1, LATIN1_WINDOWS, UTF16, UTF16_WINDOWS};
use crate::tokens::{Counter, JsCounter, TokenLimit};

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
    /// A limit in exact tokens.
    tokens: Option<TokenLimit>,
}

impl TextPlan {
    /// The request block's strategy, limits, head ratio, exact, snap, restack and token
    /// limit (whose counter, when a JS function, is argument `counter_at`).
    fn read(call: &Call, counter_at: usize) -> Result<TextPlan, Thrown> {
        Ok(TextPlan {
            strategy: call.strategy_or_auto()?,
            limits: call.limits()?,
            exact: call.flag(Field::Exact)?,
            snap: snap_of(call.flag(Field::Snap)?),
            restack: call.flag(Field::Restack)?,
            tokens: TokenLimit::read(call, counter_at)?,
        })
    }
}

/// [`answer_plan`] of a text's units; with `restack`, a text over its limits that carries
/// earlier notices of the library is planned as the original they stand for (see
/// [`toolclamp_core::plan_restacked`]).
fn answer_units<U: toolclamp_core::Unit>(call: &Call, units: &[U], how: &TextPlan, notice: NoticeArg) -> Answer {
    if let Some(tokens) = how.tokens {
        return answer_tokens(call, units, how, notice, tokens);
    }
    let TextPlan { limits, strategy, exact, snap, restack, .. } = *how;
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

/// [`answer_units`] under a limit in exact tokens: the plan of the largest byte budget (up to
/// the caller's) whose result is within the tokens (see [`toolclamp_core::cut_to_tokens`]),
/// restacked as [`answer_units`] would. Its tokens and the text's are in their slots; the
/// text's are a lower bound unless `totalTokensExact`.
fn answer_tokens<U: toolclamp_core::Unit>(
    call: &Call,
    units: &[U],
    how: &TextPlan,
    notice: NoticeArg,
    tokens: TokenLimit,
) -> Answer {
    let TextPlan { limits, strategy, exact, snap, restack, .. } = *how;
    let src = Units::new(units);
    // Counted once for the search's plans.
    let measured = Measured::new(&src);
    let totals = measured.totals();
    let strategy = strategy.resolve(&src);
    let prior = if restack { find_prior(units) } else { None };
    let plan_at = |n: &mut Notice<'_>, bytes: u64| {
        let limits = Limits { max_bytes: limits.max_bytes.min(bytes), ..limits };
        match &prior {
            _ if fits_limits(&totals, &limits) => Ok(None),
            Some(prior) => plan_restacked(units, prior, &limits, strategy, n, snap).map(Some),
            None => plan_with_snap(&measured, &limits, strategy, n, exact, snap),
        }
    };
    // A template naming tokens has them counted: the text's once, what each plan keeps as
    // it is made (see with_token_totals).
    let told = match &notice {
        NoticeArg::Template(t) if notice.uses_tokens() => Some(t.text.as_str()),
        _ => None,
    };
    let (cut, total, from_function) = match tokens.counter {
        Counter::Encoding(tokenizer) => {
            let mut index = TokenIndex::new(tokenizer, &src, end_units(tokens.max));
            let told = told.map(|t| Told::new(t, index.total())).transpose()?.flatten();
            let mut kept = |head_end: usize, tail_start: usize| {
                tokenizer.count(&Units::new(&units[..head_end])) + tokenizer.count(&Units::new(&units[tail_start..]))
            };
            let arg = told.as_ref().map_or(&notice, |t| &t.arg);
            let (cut, from_function) = with_notice(call, arg, |n| {
                let plan_at = |b| Ok(tell_tokens(plan_at(n, b)?, told.as_ref(), &mut kept));
                cut_to_tokens(tokens.max, limits.max_bytes, totals.bytes, units.len(), plan_at, &mut index)
            })?;
            (cut, Some(index.counted()), from_function)
        }
        Counter::Function(func) => {
            let mut counter = JsCounter::new(call, func, &src);
            // The parts a template's tokens count, by a counter of their own.
            let mut parts = JsCounter::new(call, func, &src);
            let len = units.len();
            let mut count_part = |head_end: usize, tail_start: usize| {
                parts.count(&Candidate { head_end, glue: "", tail_start }, u64::MAX).unwrap_or(0)
            };
            let told = told.map(|t| Told::new(t, count_part(len, len))).transpose()?.flatten();
            let mut kept = |head_end: usize, tail_start: usize| count_part(head_end, len) + count_part(0, tail_start);
            let arg = told.as_ref().map_or(&notice, |t| &t.arg);
            let (cut, from_function) = with_notice(call, arg, |n| {
                let plan_at = |b| Ok(tell_tokens(plan_at(n, b)?, told.as_ref(), &mut kept));
                cut_to_tokens(tokens.max, limits.max_bytes, totals.bytes, units.len(), plan_at, &mut counter)
            })?;
            if let Some(thrown) = counter.failed.or(parts.failed) {
                return Err(thrown);
            }
            (cut, counter.whole.map(|t| (t, true)), from_function)
        }
    };
    let searched = Searched { cut, total, from_function, strategy, totals };
    answer_token_cut(call, &measured, &limits, notice, searched)
}

/// What a search within exact tokens found.
struct Searched {
    cut: TokenCut,
    /// The text's tokens, and whether the count is exact (else a lower bound).
    total: Option<(u64, bool)>,
    from_function: StandIns,
    strategy: Strategy,
    totals: Measure,
}

/// Answers a cut within exact tokens of `src` as [`answer_tokens`] does.
fn answer_token_cut<S: Source + ?Sized>(
    call: &Call,
    src: &S,
    limits: &Limits,
    notice: NoticeArg,
    searched: Searched,
) -> Answer {
    let Searched { cut, total, from_function, strategy, totals } = searched;
    let glue = match &cut.plan {
        Some(p) => Some(call.string_from_core(&p.glue, &template_stand_ins(notice, from_function))?),
        None => None,
    };
    let mut r = match &cut.plan {
        Some(p) => plan_results(p),
        None => whole_results(src),
    };
    if let Some(p) = cut.plan.as_ref().filter(|_| cut.by_tokens && totals.bytes <= limits.max_bytes) {
        // The byte limit was the search's, not the caller's: tokens bound the cut instead.
        r.set(Slot::TruncatedBy, p.truncated_by.0 & !Dims::BYTES.0);
    }
    r.set(Slot::Strategy, strategy_code(strategy))
        .set(Slot::OutputTokens, cut.tokens)
        .set(Slot::TokensBound, cut.by_tokens as u64)
        .set_optional(Slot::TotalTokens, total.map(|(t, _)| t))
        .set(Slot::TotalTokensExact, total.is_some_and(|(_, exact)| exact) as u64);
    call.answer(&r)?;
    match glue {
        Some(glue) => Ok(glue),
        None => call.null(),
    }
}

/// A template naming tokens, counted exactly (see [`with_token_totals`]): the template the
/// planner takes, with the text's `total` tokens written out and a run of `stand_in` where
/// the omitted tokens go once a plan is made ([`tell_tokens`]).
struct Told {
    arg: NoticeArg,
    stand_in: char,
    total: u64,
}

impl Told {
    fn new(template: &str, total: u64) -> Result<Option<Told>, Thrown> {
        let planned = with_token_totals(template, total).map_err(|e| Thrown::Type(format!("notice template: {e}")))?;
        Ok(planned.map(|(text, stand_in)| Told {
            // The caller's stand-ins for lone surrogates are in it as they were.
            arg: NoticeArg::Template(NoticeText { text, stand_ins: StandIns::default() }),
            stand_in,
            total,
        }))
    }
}

/// `plan` with the omitted tokens written in its notice: the text's less what it keeps,
/// `kept(head_end, tail_start)`. Each stand-in and each char of a count is one byte and one
/// UTF-16 unit, and a count is never wider than its run: the plan only gets shorter.
fn tell_tokens(plan: Option<Plan>, told: Option<&Told>, kept: &mut impl FnMut(usize, usize) -> u64) -> Option<Plan> {
    let Some(t) = told else {
        return plan;
    };
    let mut p = plan?;
    let omitted = t.total.saturating_sub(kept(p.head_end, p.tail_start));
    let glue = tell_omitted_tokens(&p.glue, t.stand_in, t.total, omitted);
    let shorter = (p.glue.len() - glue.len()) as u64;
    p.output.bytes -= shorter;
    p.output.chars -= shorter;
    p.glue = glue;
    Some(p)
}

/// What a windowed plan of a long string did: answered, or handed the notice back for a
/// plan of the whole string.
enum Tried {
    Answered(sys::napi_value),
    Whole(NoticeArg),
}

/// `plan` of a string of `len` units through its ends ([`plan_tokens_long`]) when it is
/// long, is cut within the exact tokens of an encoding, and its search reads, as a rule,
/// less than half of it; otherwise (and when the ends did not suffice) the notice back.
fn try_tokens_long(call: &Call, len: usize, wide: bool, how: &TextPlan, notice: NoticeArg) -> Result<Tried, Thrown> {
    let Some(TokenLimit { max, counter: Counter::Encoding(tokenizer) }) = how.tokens else {
        return Ok(Tried::Whole(notice));
    };
    let max_token_bytes = tokenizer.vocab().max_token_len() as u64;
    let reach = token_ends_reach(&how.limits, max, max_token_bytes).filter(|&r| r < len / 2);
    match reach {
        // A notice naming tokens needs the whole text counted: no shortcut through its ends.
        Some(reach) if len >= LONG_MIN && !notice.is_function() && !notice.uses_tokens() => {
            if wide {
                with_scratch(&UTF16_WINDOWS, |bufs| {
                    plan_tokens_long(call, bufs, len, reach, how, notice, max, tokenizer)
                })
            } else {
                with_scratch(&LATIN1_WINDOWS, |bufs| {
                    plan_tokens_long(call, bufs, len, reach, how, notice, max, tokenizer)
                })
            }
        }
        _ => Ok(Tried::Whole(notice)),
    }
}

/// `plan` within exact tokens (`max_tokens` of `tokenizer`) of a string of `len` units whose
/// search reads, as a rule, at most `reach` units from either end ([`token_ends_reach`]):
/// the string is copied in windows of [`STREAM_UNITS`] to count its totals, and only its
/// two ends are kept, as [`plan_long`] does, so a 100 MB string is tokenised only near its
/// cuts and never held whole. A text that may carry notices to restack, or whose search
/// needs more than the ends ([`cut_ends_to_tokens`]), is planned whole instead, with the
/// same result.
#[allow(clippy::too_many_arguments)]
fn plan_tokens_long<U: StringUnit + toolclamp_core::Unit>(
    call: &Call,
    bufs: &mut [Vec<U>; 3],
    len: usize,
    reach: usize,
    how: &TextPlan,
    notice: NoticeArg,
    max_tokens: u64,
    tokenizer: &Tokenizer,
) -> Result<Tried, Thrown> {
    let tally = stream_ends(call, len, reach, bufs)?;
    if how.restack && tally.holds_open() {
        return Ok(Tried::Whole(notice));
    }
    let [head, tail, _] = bufs;
    let totals = tally.totals();
    let src = Windows::new(head, tail, len).with_totals(totals);
    let text = Ends::new(head, tail, len);
    let strategy = how.strategy.resolve(&src);
    let (limits, exact, snap) = (how.limits, how.exact, how.snap);
    let tail_units = end_units(max_tokens);
    let (searched, from_function) = with_notice(call, &notice, |n| {
        let plan_at = |l: &Limits| plan_with_snap(&src, l, strategy, n, exact, snap);
        match cut_ends_to_tokens(tokenizer, max_tokens, &limits, totals, &text, tail_units, plan_at) {
            Ok(found) => Ok(Some(found)),
            Err(EndsStop::Plan(e)) => Err(e),
            Err(EndsStop::Outside) => Ok(None),
        }
    })?;
    let Some((cut, total)) = searched else {
        return Ok(Tried::Whole(notice));
    };
    let searched = Searched { cut, total: Some(total), from_function, strategy, totals };
    answer_token_cut(call, &src, &limits, notice, searched).map(Tried::Answered)
}

/// Runs `f` on the string argument `i` as a source: Latin-1 units unless `wide`.
pub(crate) fn with_string<R>(
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

/// `plan`: the glue string of `text` planned as the request block says, or `null` when the
/// text fits. `wide` must be true when the text has a char above U+00FF.
pub(crate) fn plan_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let how = TextPlan::read(call, 4)?;
    let notice = NoticeArg::read(call, 3)?;
    let len = call.string_length(1)?;
    let reach = ends_reach(&how.limits).filter(|_| how.tokens.is_none());
    if let Some(reach) = reach.filter(|&r| len >= LONG_MIN && r < len / 2 && !notice.is_function()) {
        return if wide {
            with_scratch(&UTF16_WINDOWS, |bufs| plan_long(call, bufs, len, reach, &how, notice, &UTF16))
        } else {
            with_scratch(&LATIN1_WINDOWS, |bufs| plan_long(call, bufs, len, reach, &how, notice, &LATIN1))
        };
    }
    let notice = match try_tokens_long(call, len, wide, &how, notice)? {
        Tried::Answered(answer) => return Ok(answer),
        Tried::Whole(notice) => notice,
    };
    if wide {
        with_scratch(&UTF16, |buf| answer_units(call, call.string_arg(1, buf)?, &how, notice))
    } else {
        with_scratch(&LATIN1, |buf| answer_units(call, call.string_arg(1, buf)?, &how, notice))
    }
}

/// Reads the string argument 1 (`len` units) once, [`STREAM_UNITS`] at a time through the
/// third buffer: its totals counted, and its first and last `reach` units kept in the first
/// two as they pass, from the window still in cache.
fn stream_ends<U: StringUnit + toolclamp_core::Unit>(
    call: &Call,
    len: usize,
    reach: usize,
    bufs: &mut [Vec<U>; 3],
) -> Result<Tally<U>, Thrown> {
    let [head, tail, window] = bufs;
    head.clear();
    tail.clear();
    let mut tally = Tally::default();
    let tail_from = len - reach;
    let mut at = 0;
    call.stream_units(1, len, STREAM_UNITS, window, |units| {
        tally.add(units);
        let from = at;
        at += units.len();
        if from < reach {
            head.extend_from_slice(&units[..units.len().min(reach - from)]);
        }
        if at > tail_from {
            tail.extend_from_slice(&units[tail_from.saturating_sub(from)..]);
        }
    })?;
    Ok(tally)
}

/// Strings from this many units on are planned through windows when the limits allow (see
/// [`plan_long`]); shorter ones are copied whole, which costs less than the slices.
const LONG_MIN: usize = 1 << 20;

/// Units copied at a time while a long string is counted: small enough to stay in cache.
const STREAM_UNITS: usize = 1 << 18;

/// `plan` of a string of `len` units whose plan reads at most `reach` units from either end
/// ([`ends_reach`]): the string is read once in windows ([`stream_ends`]) to count its
/// totals, and only its two ends are kept, so memory stays bounded and every byte costs the
/// same whatever the length. A text that holds `[... ` (it may carry notices to restack,
/// which need the whole text) is copied whole into `whole`, as before.
fn plan_long<U: StringUnit + toolclamp_core::Unit>(
    call: &Call,
    bufs: &mut [Vec<U>; 3],
    len: usize,
    reach: usize,
    how: &TextPlan,
    notice: NoticeArg,
    whole: &'static std::thread::LocalKey<std::cell::RefCell<Vec<U>>>,
) -> Answer {
    let tally = stream_ends(call, len, reach, bufs)?;
    if how.restack && tally.holds_open() {
        return with_scratch(whole, |buf| answer_units(call, call.string_arg(1, buf)?, how, notice));
    }
    let [head, tail, _] = bufs;
    let src = Windows::new(head, tail, len).with_totals(tally.totals());
    answer_plan(call, &src, &how.limits, how.strategy, notice, how.exact, how.snap)
}

/// `planList`: `plan` over the concatenation of `texts`, an array of strings (the text
/// blocks of a tool result) whose lengths sum to `totalLength`, copied straight from the
/// strings. Offsets are into the concatenation.
pub(crate) fn plan_list(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let total = call.index(3)?;
    let how = TextPlan::read(call, 5)?;
    let notice = NoticeArg::read(call, 4)?;
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

/// `charsWindows`: the three ranges of a text of `length` units that a chars-only plan
/// (the request's strategy, maxChars and headRatio) with the default notice reads, in the
/// window slots, for `planWindows`. Answers `null`.
pub(crate) fn windows_of(call: &Call) -> Answer {
    let len = call.index(1)?;
    let strategy = call.strategy()?;
    let max_chars = call.budget_field(Field::MaxChars)?;
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

/// `planWindows`: a chars-only plan (as for `charsWindows`) of a text of `length` units
/// seen through the windows `charsWindows` named (`window0` is the text from `from0`, ...),
/// with the default notice, so a 100 MB string costs a few hundred units. Answers as `plan`.
pub(crate) fn plan_windows(call: &Call) -> Answer {
    let len = call.index(7)?;
    let offsets = [call.index(2)?, call.index(4)?, call.index(6)?];
    let wide = call.boolean(8)?;
    let strategy = call.strategy()?;
    let limits = Limits { max_chars: call.budget_field(Field::MaxChars)?, ..Limits::NONE };
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

/// `measure`: the chars, bytes, lines and estimated tokens of `text` in the total slots;
/// answers `null`.
pub(crate) fn measure_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let len = call.string_length(1)?;
    let m = if len >= LONG_MIN {
        // A long string is counted a window at a time, never copied whole.
        if wide {
            with_scratch(&UTF16_WINDOWS, |bufs| stream_ends(call, len, 0, bufs))?.totals()
        } else {
            with_scratch(&LATIN1_WINDOWS, |bufs| stream_ends(call, len, 0, bufs))?.totals()
        }
    } else if wide {
        with_scratch(&UTF16, |buf| call.string_arg::<u16>(1, buf).map(measure))?
    } else {
        with_scratch(&LATIN1, |buf| call.string_arg::<u8>(1, buf).map(measure))?
    };
    let mut r = Results::new(Verdict::Measured);
    r.set_measure(Slot::TotalChars, m).set(Slot::TotalTokens, estimate_tokens(m.bytes));
    call.answer(&r)?;
    call.null()
}

/// `planBuffer`: the clamped text of `bytes`, a `Uint8Array` of UTF-8 planned as the
/// request block says, as a new string (the whole decoded text when it fits, with the
/// `fits` verdict). Invalid UTF-8 decodes as `buf.toString('utf8')` does:
/// each maximal invalid subpart becomes U+FFFD. Counts are of the decoded text and exact in
/// every dimension. `headEnd`/`tailStart` are byte offsets into the UTF-8 of the decoded
/// text, which are offsets into `bytes` when it is valid UTF-8.
pub(crate) fn plan_buffer(call: &Call) -> Answer {
    let strategy = call.strategy_or_auto()?;
    let limits = call.limits()?;
    let snap = snap_of(call.flag(Field::Snap)?);
    let notice = NoticeArg::read(call, 2)?;
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

/// `planToolOutput`: `null` when `text` is within the request's maxChars and maxLines, else
/// `first + glue + last`, the indicator lines and the glue in one string, split by the
/// `firstLength` and `glueLength` slots: the view is `first + text.slice(0, headEnd) + glue
/// + last + text.slice(tailStart)`, cut as headRatio says.
pub(crate) fn plan_tool_output_string(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let max_chars = call.budget_field(Field::MaxChars)?;
    let max_lines = call.budget_field(Field::MaxLines)?;
    let head_ratio = call.head_ratio()?;
    let notice = NoticeArg::read(call, 3)?;
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
