//! The cut planner: given a text, limits and a strategy, where to cut and what notice to
//! put in the gap. It returns offsets, not text, so a caller holding the original string
//! builds the result with two slices and one concatenation.
//!
//! The result is `text[..head_end] + glue + text[tail_start..]`, where `glue` is the
//! notice plus the line breaks that put it on a line of its own; except that a notice of
//! the library's (one that starts with [`INLINE_OPEN`]) after a head that ends inside a
//! line goes at the end of that line, after a space (a line break there could not be told
//! from the head's own, and a later clamp reading the notice must know where the head
//! ends). The cost of each kept part includes the separator next to it, so every candidate
//! cut can be priced exactly:
//!
//! * head `H`: its chars and bytes, plus one separator (`\n`, or the inline notice's
//!   space) if it is non-empty, does not end with `\n` and a notice follows; its lines as
//!   `lines(H)`.
//! * notice `N`: its chars, bytes and `lines(N)`.
//! * tail `T`: its chars and bytes, plus one `\n` if it is non-empty and `N` is non-empty
//!   and does not end with `\n`; its lines as `lines(T)`.
//!
//! With those, `measure(result) == cost(H) + measure(N) + cost(T)` in every dimension, but
//! for an inline notice, whose result has one line less than charged: its cut is planned
//! as if the notice were on a line of its own, so it keeps what it kept before.
//!
//! One exception: with an empty notice a head and a tail run straight into each other.
//! Then an unterminated last line of `H` continues the first line of `T` (it costs no line
//! of its own), and a lone high surrogate ending `H` pairs with a lone low one starting `T`
//! (the pair is 4 bytes, not 6). `cut_head` and `cut_tail` price that seam when `run_on`.
//!
//! # How much is kept: the maximality contract
//!
//! A *candidate* is a pair of safe cuts. Its *own notice* is the notice rendered from the
//! candidate's own [`NoticeFacts`] (what it drops, its offsets, its first and last dropped
//! line), and the candidate *fits* when its result, with its own notice in the glue, is
//! within every limit. Notices are tried in order: the caller's, then each of
//! [`FALLBACK_NOTICES`], the last being none (nothing kept and no notice always fits). The
//! notice in a plan is always the one of its rung rendered for the plan's own cut.
//!
//! * **`Head` and `Tail`: exact.** The plan uses the caller's notice if any candidate fits
//!   with its own notice, else the first fallback any candidate fits with, and it keeps
//!   the longest part among the candidates that fit with their own notice of that rung.
//!   That is what a brute force over every cut finds (`reference_plan` in the core's
//!   tests, `referenceClamp` in the JS tests), to the unit: no slack for notices that
//!   change length with the cut. A part that would fit only with a shorter part's notice
//!   does not count (a head of 10 that fits with `<9|100>` but not with its own
//!   `<10|100>`), and a part that fits with its own notice counts even where the notices
//!   of shorter parts are longer (`{fromLine}`: a head of 17 ending inside line 9 fits
//!   with "9" where the head of 18 needs "10").
//! * **`HeadTail`: one step.** The room is split by `head_ratio`; then neither side can
//!   grow to its next safe cut and still fit: with the grown candidate's own notice when
//!   the plan uses a template or function notice that depends on the cut
//!   ([`Notice::depends_on_cut`]), and with the notice the plan uses otherwise (the
//!   default notice, a fixed template, a fallback).
//!
//! This holds for the default notice, every template, and a notice function that behaves
//! like one: when a count it reads (`omitted`, `head_end`, `tail_start`, `from_line`,
//! `to_line`) grows, its output never gets shorter in chars, bytes or lines, and whether
//! it is empty or ends with `\n` does not change. (Templates do: a number never loses
//! digits as it grows, and `{omitted}`'s "1 line" is never compared with "0 lines": a
//! candidate that fits omits at least one unit of every limit it exceeds.) A function
//! that does not behave so still gets an honest notice and a result within every limit;
//! how much is kept is then what the search finds within [`MAX_FUNCTION_CALLS`] calls.
//!
//! How: `Planner::settle` renders the notice from an estimate and re-cuts while its
//! length changes. The default notice's estimate undercounts every omitted amount it
//! names, so the cuts come from above and the first that fits is the longest: no further
//! render. A notice that depends on the cut then gets a search past that cut. Head and
//! Tail: every fact moves one way as the part grows, so the notice rendered from the
//! per-count minimum of two cuts' facts is at most the notice of any cut between them;
//! the longest part with room for it bounds every part that fits, and a walk down from
//! there, a safe cut at a time, stops at the first that fits with its own notice (a few
//! renders: the notice's length varies by a digit or two per count over that stretch).
//! HeadTail: each side grows a safe cut at a time while the grown cut fits with its own
//! notice.

use crate::measure::{lines_of, measure_str, Measure, Span};
use crate::notice::{
    check_template, default_notice, render_template, Dims, Notice, NoticeFacts, Position, TemplateError,
    FALLBACK_NOTICES,
};
use crate::source::Source;

/// No limit in a dimension.
pub const UNLIMITED: u64 = u64::MAX;

/// Budgets in UTF-16 chars, UTF-8 bytes and lines; [`UNLIMITED`] for none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_chars: u64,
    pub max_bytes: u64,
    pub max_lines: u64,
}

impl Limits {
    pub const NONE: Limits = Limits { max_chars: UNLIMITED, max_bytes: UNLIMITED, max_lines: UNLIMITED };

    fn as_measure(self) -> Measure {
        Measure { chars: self.max_chars, bytes: self.max_bytes, lines: self.max_lines }
    }

    /// Only `max_chars` is set: such plans never read further than `max_chars` from an end.
    pub fn chars_only(&self) -> bool {
        self.max_bytes == UNLIMITED && self.max_lines == UNLIMITED
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Strategy {
    /// Keep the start; the notice goes at the end.
    Head,
    /// Keep the end; the notice goes at the start.
    Tail,
    /// Keep both ends; `head_ratio` (0..=1) of the budget goes to the start.
    HeadTail { head_ratio: f64 },
}

impl Strategy {
    fn position(self) -> Position {
        match self {
            Strategy::Head => Position::End,
            Strategy::Tail => Position::Start,
            Strategy::HeadTail { .. } => Position::Middle,
        }
    }
}

/// Where to cut a text that exceeds its limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Keep `text[..head_end]` (a position of the source: a UTF-16 offset, or a byte offset
    /// for [`crate::Utf8`]; 0 when nothing of the start is kept).
    pub head_end: usize,
    /// Keep `text[tail_start..]` (a position as above; the length when nothing of the end is kept).
    pub tail_start: usize,
    /// What goes between the kept parts: the notice and its line breaks.
    pub glue: String,
    /// The limits the input exceeds.
    pub truncated_by: Dims,
    pub total: Measure,
    pub output: Measure,
    pub omitted: Measure,
}

/// How far a chars-only cut can land from where arithmetic alone puts it: the longest
/// default notice with its line breaks (about 62 units for a 2^53-unit text), plus the
/// safe-cut steps around a surrogate pair or `\r\n`, with room to spare.
pub const CHARS_WINDOW_MARGIN: usize = 256;

/// The ranges of a `len`-unit text that a chars-only plan with the default notice reads:
/// around the head cut, around the tail cut, and the last unit. Copying these is enough to
/// plan through [`crate::Windows::from_pieces`] exactly as through the whole text.
pub fn chars_windows(len: usize, max_chars: u64, strategy: Strategy) -> [(usize, usize); 3] {
    let head_ratio = match strategy {
        Strategy::Head => 1.0,
        Strategy::Tail => 0.0,
        Strategy::HeadTail { head_ratio } => head_ratio,
    };
    let budget = usize::try_from(max_chars).unwrap_or(usize::MAX).min(len);
    let head_point = ((budget as f64) * head_ratio.clamp(0.0, 1.0)).floor() as usize;
    let tail_point = len - budget + head_point.min(budget);
    let around = |p: usize| (p.saturating_sub(CHARS_WINDOW_MARGIN), p.saturating_add(CHARS_WINDOW_MARGIN).min(len));
    [around(head_point), around(tail_point), (len.saturating_sub(1), len)]
}

/// Where kept parts may end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Snap {
    /// At any safe cut.
    None,
    /// On whole lines: the kept head ends just after a `\n` and the kept tail starts just
    /// after one (or at the start), unless that keeps less than [`SNAP_MIN_SHARE`] of what
    /// the exact cut keeps of that part; then that part is cut exactly, so a text of one
    /// long line still shows something.
    Line,
}

/// A snapped part keeps at least this share (4/5) of the chars the exact cut keeps.
pub const SNAP_MIN_SHARE: (usize, usize) = (4, 5);

/// Plans the cut of `src`. `Ok(None)` means the text is within every limit and should be
/// returned unchanged. With `exact_measures` false, `output` and `omitted` are exact only
/// in the limited dimensions (enough for the default notice, and cheaper).
///
/// A notice that uses line numbers ([`Notice::uses_lines`]) needs a source that counts
/// lines: planning one through [`crate::Windows`], which knows only chars, panics rather
/// than report made-up line numbers.
pub fn plan<S: Source + ?Sized>(
    src: &S,
    limits: &Limits,
    strategy: Strategy,
    notice: &mut Notice<'_>,
    exact_measures: bool,
) -> Result<Option<Plan>, TemplateError> {
    plan_with_snap(src, limits, strategy, notice, exact_measures, Snap::None)
}

/// [`plan`] with kept parts snapped to whole lines (see [`Snap`]). The maximality contract
/// holds among snapped cuts: the candidates are the cuts at line boundaries (and, for a
/// part whose snapped form keeps less than [`SNAP_MIN_SHARE`], its exact cuts).
pub fn plan_with_snap<S: Source + ?Sized>(
    src: &S,
    limits: &Limits,
    strategy: Strategy,
    notice: &mut Notice<'_>,
    exact_measures: bool,
    snap: Snap,
) -> Result<Option<Plan>, TemplateError> {
    let Some((total, truncated_by)) = over_limits(src, limits, notice)? else {
        return Ok(None);
    };
    let line_numbers = notice.uses_lines();
    // A non-empty text has at least one line; a source reporting none cannot count them.
    assert!(
        !line_numbers || total.lines > 0 || src.is_empty(),
        "a notice with line numbers needs the whole text (this source knows only chars)"
    );
    let snap = snap == Snap::Line;
    let planner = Planner { src, budget: limits.as_measure(), strategy, total, truncated_by, snap, caps: None };
    run_rungs(&planner, notice, exact_measures)
}

/// The bounds of a plan of a text that carries an earlier clamp's notice (see
/// [`crate::restack`]): kept text comes only from `..head_max` and `tail_min..` (the text
/// around the earlier gap), and the notice says where the text was dropped from what is
/// kept, counting against the original's `total` in the units `named`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caps {
    pub head_max: usize,
    pub tail_min: usize,
    /// Where a notice that keeps nothing says the text was dropped.
    pub nothing_kept: Position,
    pub total: Measure,
    pub named: Dims,
}

/// Plans `src` within `caps` (see [`Caps`]): a `HeadTail` plan with `head_ratio` of the room
/// for the head. The text must exceed `limits` (the caller checks).
pub(crate) fn plan_capped<S: Source + ?Sized>(
    src: &S,
    limits: &Limits,
    head_ratio: f64,
    notice: &mut Notice<'_>,
    snap: Snap,
    caps: Caps,
) -> Result<Plan, TemplateError> {
    if let Notice::Template(t) = notice {
        check_template(t)?;
    }
    let planner = Planner {
        src,
        budget: limits.as_measure(),
        strategy: Strategy::HeadTail { head_ratio },
        total: caps.total,
        truncated_by: caps.named,
        snap: snap == Snap::Line,
        caps: Some(caps),
    };
    Ok(run_rungs(&planner, notice, true)?.expect("the empty notice always fits"))
}

/// Tries the caller's notice, then ever shorter ones; the last (none) always fits.
fn run_rungs<S: Source + ?Sized>(
    planner: &Planner<'_, S>,
    notice: &mut Notice<'_>,
    exact_measures: bool,
) -> Result<Option<Plan>, TemplateError> {
    let line_numbers = notice.uses_lines();
    let rungs = 1 + FALLBACK_NOTICES.len();
    let custom_notice = !matches!(notice, Notice::Default);
    // A notice whose length follows the cut gets the search for the longest cut that fits
    // with its own notice; a function (JS, maybe) is called a bounded number of times.
    let search = notice.depends_on_cut();
    let max_calls = if matches!(notice, Notice::Custom(_)) { MAX_FUNCTION_CALLS } else { usize::MAX };
    for rung in 0..rungs {
        let needs_all_dims = rung == 0 && custom_notice;
        // Fallback notices are fixed text: only the caller's own notice reads line numbers.
        let lines = rung == 0 && line_numbers;
        let mut render = |facts: &NoticeFacts| render_rung(notice, rung, facts);
        let mut notices = Renderer { render: &mut render, calls: 0, max_calls };
        let exact = needs_all_dims || exact_measures;
        if let Some(found) = planner.settle(&mut notices, exact, lines, rung == 0 && search)? {
            return Ok(Some(found));
        }
    }
    unreachable!("the empty notice always fits")
}

/// The notice of a rung: the caller's (rung 0), else a fallback.
fn render_rung(notice: &mut Notice<'_>, rung: usize, facts: &NoticeFacts) -> Result<String, TemplateError> {
    if rung > 0 {
        return Ok(FALLBACK_NOTICES[rung - 1].to_string());
    }
    match notice {
        Notice::Default => Ok(default_notice(facts)),
        Notice::Template(t) => render_template(t, facts),
        Notice::Custom(f) => Ok(f(facts)),
    }
}

/// The `Head` plan of `src` with the head fixed in advance at `head_end` (a safe cut), for
/// a head that was shown before the text was whole (see [`crate::Capture::settled_head`]):
/// the caller's notice rendered for this cut if the result fits every limit with it, else
/// the first fallback that fits (the empty notice always does, since the head fits alone).
/// `Ok(None)` when the text is within every limit.
pub fn plan_head_at<S: Source + ?Sized>(
    src: &S,
    limits: &Limits,
    notice: &mut Notice<'_>,
    head_end: usize,
) -> Result<Option<Plan>, TemplateError> {
    let Some((total, truncated_by)) = over_limits(src, limits, notice)? else {
        return Ok(None);
    };
    let planner = Planner {
        src,
        budget: limits.as_measure(),
        strategy: Strategy::Head,
        total,
        truncated_by,
        snap: false,
        caps: None,
    };
    let n = src.len();
    let cut = Cut { head_end, head: src.span(0, head_end), tail_start: n, tail: Span::ZERO };
    let lines = notice.uses_lines();
    for rung in 0..=FALLBACK_NOTICES.len() {
        let text = render_rung(notice, rung, &planner.facts(&cut, rung == 0 && lines))?;
        if fits(planner.charged(&cut, &text), planner.budget) {
            return Ok(Some(planner.finish(cut, text)));
        }
    }
    Ok(Some(planner.finish(cut, String::new())))
}

/// The totals of `src` and the limits they exceed, or `None` when within every limit (the
/// text is returned as it is). A bad template fails first, whether or not anything is cut.
fn over_limits<S: Source + ?Sized>(
    src: &S,
    limits: &Limits,
    notice: &Notice<'_>,
) -> Result<Option<(Measure, Dims)>, TemplateError> {
    if let Notice::Template(t) = notice {
        check_template(t)?;
    }
    let total = src.totals();
    let truncated_by = exceeded(&total, limits);
    Ok((!truncated_by.is_empty()).then_some((total, truncated_by)))
}

/// The limits `total` exceeds.
fn exceeded(total: &Measure, limits: &Limits) -> Dims {
    let mut truncated_by = Dims::default();
    if total.chars > limits.max_chars {
        truncated_by.insert(Dims::CHARS);
    }
    if total.bytes > limits.max_bytes {
        truncated_by.insert(Dims::BYTES);
    }
    if total.lines > limits.max_lines {
        truncated_by.insert(Dims::LINES);
    }
    truncated_by
}

/// The most calls of a caller's notice function in one plan (the search past the first
/// fitting cut stops there; a function that behaves like a template needs far fewer).
pub const MAX_FUNCTION_CALLS: usize = 64;

/// Renders the notice of one rung, counting the calls.
struct Renderer<'r> {
    render: &'r mut dyn FnMut(&NoticeFacts) -> Result<String, TemplateError>,
    calls: usize,
    max_calls: usize,
}

impl Renderer<'_> {
    fn render(&mut self, facts: &NoticeFacts) -> Result<String, TemplateError> {
        self.calls += 1;
        (self.render)(facts)
    }

    /// No call left for the search.
    fn spent(&self) -> bool {
        self.calls >= self.max_calls
    }
}

struct Planner<'s, S: Source + ?Sized> {
    src: &'s S,
    budget: Measure,
    strategy: Strategy,
    total: Measure,
    truncated_by: Dims,
    /// Kept parts end on whole lines (see [`Snap::Line`]).
    snap: bool,
    /// Bounds of a plan around an earlier gap (see [`Caps`]); `None` for a whole text.
    caps: Option<Caps>,
}

/// A candidate cut and the counts of its kept parts (exact in the limited dimensions).
#[derive(Clone, Copy, Debug)]
struct Cut {
    head_end: usize,
    head: Span,
    tail_start: usize,
    tail: Span,
}

/// How a notice joins its neighbours.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Joints {
    /// A separator goes between an unterminated head and the notice.
    before: u64,
    /// That separator is a space, and the notice shares the head's open line (see
    /// [`INLINE_OPEN`]); otherwise it is a `\n`.
    inline: bool,
    /// A `\n` goes between the notice and a non-empty tail.
    after: u64,
}

/// How the library's own notices start (`[... 370 lines truncated at the end ...]`, the
/// spill notices, the fallbacks). After a head that ends inside a line, a notice that starts
/// so follows on that line after a space, instead of on a line of its own: a `\n` there
/// could not be told from the head's own line break, so a later clamp of the text could
/// not tell where the kept head ends (see [`crate::restack`]). The cut is planned as for a
/// notice on a line of its own (the space is charged as the line break was, the open line
/// as a line), so the same text is kept; the result just has a line less than the cut was
/// charged, and a head that ends just before a line break takes it, as before, rather than
/// put the notice beside a line that is whole.
pub const INLINE_OPEN: &str = "[...";

fn joints(notice: &str) -> Joints {
    let present = !notice.is_empty() as u64;
    Joints { before: present, inline: notice.starts_with(INLINE_OPEN), after: present & !notice.ends_with('\n') as u64 }
}

/// `a - b` per dimension, keeping "unlimited" unlimited; `None` when `b` does not fit.
fn remaining(a: Measure, b: Measure) -> Option<Measure> {
    let one = |x: u64, y: u64| if x == UNLIMITED { Some(UNLIMITED) } else { x.checked_sub(y) };
    Some(Measure { chars: one(a.chars, b.chars)?, bytes: one(a.bytes, b.bytes)?, lines: one(a.lines, b.lines)? })
}

fn fits(m: Measure, budget: Measure) -> bool {
    m.chars <= budget.chars && m.bytes <= budget.bytes && m.lines <= budget.lines
}

/// The per-count minimum of two cuts' facts: along a Head or Tail search every count moves
/// one way, so these are at most the facts of any cut between the two.
fn lower_facts(a: &NoticeFacts, b: &NoticeFacts) -> NoticeFacts {
    let m = |x: Measure, y: Measure| Measure {
        chars: x.chars.min(y.chars),
        bytes: x.bytes.min(y.bytes),
        lines: x.lines.min(y.lines),
    };
    NoticeFacts {
        omitted: m(a.omitted, b.omitted),
        head_end: a.head_end.min(b.head_end),
        tail_start: a.tail_start.min(b.tail_start),
        from_line: a.from_line.min(b.from_line),
        to_line: a.to_line.min(b.to_line),
        ..*a
    }
}

fn scale(m: Measure, ratio: f64) -> Measure {
    // `min`: near u64::MAX the float product rounds up, and a limit must not become unlimited.
    let one = |x: u64| if x == UNLIMITED { UNLIMITED } else { ((x as f64 * ratio).floor() as u64).min(x) };
    Measure { chars: one(m.chars), bytes: one(m.bytes), lines: one(m.lines) }
}

impl<S: Source + ?Sized> Planner<'_, S> {
    /// Finds a cut whose notice, rendered from the cut's own counts, fits the room reserved
    /// for it. Starts from an estimate and re-cuts while the notice's length changes. With
    /// `lines` the facts carry line numbers, taken from the exact counts of each cut. With
    /// `search` (a notice whose length depends on the cut) it then looks past that cut for
    /// the longest one that fits with its own notice (see the module docs).
    fn settle(
        &self,
        notices: &mut Renderer<'_>,
        exact: bool,
        lines: bool,
        search: bool,
    ) -> Result<Option<Plan>, TemplateError> {
        let exact = exact || lines || search;
        let mut render = |facts: &NoticeFacts| notices.render(facts);
        let mut text = render(&self.estimated_facts(lines))?;
        let mut best: Option<(Cut, String)> = None;
        let mut tried_empty_cut = false;
        for _ in 0..6 {
            let reserved = measure_str(&text);
            let Some(room) = remaining(self.budget, reserved) else {
                // The estimate may not be the shortest rendering (a template with {headEnd}
                // is shortest when nothing is kept): try that before giving up this notice.
                if best.is_some() || tried_empty_cut {
                    break;
                }
                tried_empty_cut = true;
                let n = self.src.len();
                let nothing_kept = Cut { head_end: 0, head: Span::ZERO, tail_start: n, tail: Span::ZERO };
                text = render(&self.facts(&nothing_kept, lines))?;
                continue;
            };
            let j = joints(&text);
            // Once a cut fits, only grow it into the room a shorter notice freed: a fresh
            // split of that room between head and tail could drop what made the notice short.
            let mut cut = match &best {
                Some((fitting, _)) => self.grow(*fitting, room, j),
                None => self.cut(room, j),
            };
            if exact {
                cut = self.exact(cut);
            }
            let next = render(&self.facts(&cut, lines))?;
            let next_size = measure_str(&next);
            if fits(next_size, reserved) && joints(&next) == j {
                let settled = next_size == reserved;
                best = Some((cut, next.clone()));
                if settled {
                    break;
                }
            } else if best.is_some() {
                // A tighter reservation made the notice grow again: keep the last fitting cut.
                break;
            }
            text = next;
        }
        if search {
            best = match self.strategy {
                Strategy::Head | Strategy::Tail => self.longest_honest(best, notices, lines)?,
                Strategy::HeadTail { .. } => self.grow_honest(best, notices, lines)?,
            };
        }
        Ok(best.map(|(cut, glue_notice)| self.finish(cut, glue_notice)))
    }

    /// Head or Tail: the longest part that fits with the notice rendered from its own
    /// facts, given `found` (one that does, from [`Planner::settle`], or none).
    ///
    /// No part that fits keeps more than `upper`, the longest part with no notice at all.
    /// Between `found` (or nothing kept) and `upper` every fact moves one way as the part
    /// grows, so the notice of each of those parts is at least as long as the notice of
    /// their lower facts, the per-count minimum of the two ends' facts. The longest part
    /// with room for that notice bounds every part that fits; from there the search walks
    /// down one safe cut at a time and keeps the first that fits with its own notice. The
    /// walk is as long as the notice's length varies over the few units in between (a digit
    /// or two per count), so a handful of renders.
    fn longest_honest(
        &self,
        found: Option<(Cut, String)>,
        notices: &mut Renderer<'_>,
        lines: bool,
    ) -> Result<Option<(Cut, String)>, TemplateError> {
        let n = self.src.len();
        let nothing = Cut { head_end: 0, head: Span::ZERO, tail_start: n, tail: Span::ZERO };
        let low = found.as_ref().map_or(nothing, |(cut, _)| *cut);
        let upper = self.longest_for("", &low).expect("no notice always fits");
        if notices.spent() || self.kept(&upper) <= self.kept(&low) {
            return Ok(found);
        }
        let lower = lower_facts(&self.facts(&low, lines), &self.facts(&upper, lines));
        let shortest = notices.render(&lower)?;
        let Some(mut cut) = self.longest_for(&shortest, &low) else {
            return Ok(found);
        };
        if self.kept(&cut) > self.kept(&upper) {
            cut = upper;
        }
        loop {
            if found.is_some() && self.kept(&cut) <= self.kept(&low) {
                return Ok(found);
            }
            if notices.spent() {
                return Ok(found);
            }
            let notice = notices.render(&self.facts(&cut, lines))?;
            if fits(self.charged(&cut, &notice), self.budget) {
                return Ok(Some((cut, notice)));
            }
            if self.kept(&cut) == 0 {
                return Ok(found);
            }
            cut = self.keep_less(cut);
        }
    }

    /// HeadTail: grows either side of `found` by one safe cut while the grown cut fits with
    /// its own notice, so that neither side can grow by one more.
    fn grow_honest(
        &self,
        found: Option<(Cut, String)>,
        notices: &mut Renderer<'_>,
        lines: bool,
    ) -> Result<Option<(Cut, String)>, TemplateError> {
        let Some((mut cut, mut notice)) = found else {
            return Ok(None);
        };
        loop {
            let mut grew = false;
            for head in [true, false] {
                let step = if head { self.head_step(&cut) } else { self.tail_step(&cut) };
                let Some(grown) = step else { continue };
                if notices.spent() {
                    return Ok(Some((cut, notice)));
                }
                let next = notices.render(&self.facts(&grown, lines))?;
                if fits(self.charged(&grown, &next), self.budget) {
                    (cut, notice, grew) = (grown, next, true);
                }
            }
            if !grew {
                return Ok(Some((cut, notice)));
            }
        }
    }

    /// How much of the text a Head or Tail cut keeps, in positions.
    fn kept(&self, cut: &Cut) -> usize {
        cut.head_end + (self.src.len() - cut.tail_start)
    }

    /// A Head or Tail cut one candidate shorter (`cut` keeps something): one safe cut, or
    /// with snapping from a line boundary, one line.
    fn keep_less(&self, cut: Cut) -> Cut {
        let src = self.src;
        let n = src.len();
        match self.strategy {
            Strategy::Tail => {
                let s = cut.tail_start;
                if self.snap && self.starts_line(s) {
                    let next = self.next_line_start(s, n);
                    return Cut { tail_start: next, tail: cut.tail - src.span(s, next), ..cut };
                }
                let (tail_start, tail) = self.step_forward(cut.tail_start, cut.tail);
                Cut { tail_start, tail, ..cut }
            }
            _ => {
                let e = cut.head_end;
                if self.snap && self.ends_line(e) {
                    let previous = src.last_newline(0, e - 1).map_or(0, |p| p + 1);
                    return Cut { head_end: previous, head: cut.head - src.span(previous, e), ..cut };
                }
                let (head_end, head) = self.step_back(cut.head_end, cut.head);
                Cut { head_end, head, ..cut }
            }
        }
    }

    /// The head grown to the next candidate (the next safe cut, or with snapping from a
    /// line boundary the next one), if that still drops something (keeping the whole text
    /// never fits: it exceeds a limit).
    fn head_step(&self, cut: &Cut) -> Option<Cut> {
        // With caps the gap is always dropped: the head may grow up to its bound.
        let (limit, capped) = match self.caps {
            Some(caps) => (caps.head_max, true),
            None => (cut.tail_start, false),
        };
        let e = if self.snap && (cut.head_end == 0 || self.ends_line(cut.head_end)) {
            self.next_line_start(cut.head_end, limit)
        } else {
            let mut e = cut.head_end + 1;
            while e < limit && !self.src.is_safe_cut(e) {
                e += 1;
            }
            e
        };
        let grows = if capped { e > cut.head_end && e <= limit } else { e < limit };
        grows.then(|| Cut { head_end: e, head: cut.head + self.src.span(cut.head_end, e), ..*cut })
    }

    /// The tail grown to the previous candidate, if that still drops something.
    fn tail_step(&self, cut: &Cut) -> Option<Cut> {
        let n = self.src.len();
        let (floor, capped) = match self.caps {
            Some(caps) => (caps.tail_min, true),
            None => (cut.head_end, false),
        };
        if cut.tail_start <= floor {
            return None;
        }
        let s = if self.snap && (cut.tail_start == n || self.starts_line(cut.tail_start)) {
            // The start of the line before: just after the line break before that one.
            let end = cut.tail_start - 1;
            self.src.last_newline(floor, end).map_or(floor, |p| p + 1)
        } else {
            let mut s = cut.tail_start - 1;
            while s > floor && !self.src.is_safe_cut(s) {
                s -= 1;
            }
            s
        };
        let grows = if capped { s >= floor && s < cut.tail_start } else { s > floor };
        grows.then(|| Cut { tail_start: s, tail: cut.tail + self.src.span(s, cut.tail_start), ..*cut })
    }

    /// `text[..e]` ends a line (`e > 0`).
    fn ends_line(&self, e: usize) -> bool {
        e > 0 && self.src.is_newline(e - 1)
    }

    /// `text[s..]` starts a line (`s < len`).
    fn starts_line(&self, s: usize) -> bool {
        s < self.src.len() && (s == 0 || self.src.is_newline(s - 1))
    }

    /// Just after the first `\n` in `from..to`, or `to` when there is none.
    fn next_line_start(&self, from: usize, to: usize) -> usize {
        self.src.first_newline(from, to).map_or(to, |i| i + 1)
    }

    /// The head `text[..e]` (counts `used`) moved back to the end of its last whole line,
    /// when that keeps at least [`SNAP_MIN_SHARE`] of it and not less than `from` (a head
    /// already kept); else as it is.
    fn snap_head(&self, from: usize, e: usize, used: Span) -> (usize, Span) {
        if !self.snap || e == 0 || self.ends_line(e) {
            return (e, used);
        }
        let (num, den) = SNAP_MIN_SHARE;
        let start = match self.src.last_newline(from, e) {
            Some(p) => p + 1,
            // No line break since `from`: keep `from` if it is itself a line boundary.
            None if from == 0 || self.ends_line(from) => from,
            None => return (e, used),
        };
        // In chars, so a Buffer (positions in bytes) snaps as the string it decodes to.
        let dropped = self.src.span(start, e);
        let kept = self.src.span(0, e).chars;
        if (kept - dropped.chars) * den as u64 >= kept * num as u64 {
            (start, used - dropped)
        } else {
            (e, used)
        }
    }

    /// The tail `text[s..]` (counts `used`) moved forward to the start of its first whole
    /// line, when that keeps at least [`SNAP_MIN_SHARE`] of it and starts no later than
    /// `ceiling` (a tail already kept); else as it is.
    fn snap_tail(&self, s: usize, ceiling: usize, used: Span) -> (usize, Span) {
        let n = self.src.len();
        if !self.snap || s >= n || self.starts_line(s) {
            return (s, used);
        }
        let (num, den) = SNAP_MIN_SHARE;
        let start = self.next_line_start(s, ceiling.min(n));
        if start >= n || (start == ceiling && !self.starts_line(ceiling)) {
            return (s, used);
        }
        let dropped = self.src.span(s, start);
        let kept = self.src.span(s, n).chars;
        if (kept - dropped.chars) * den as u64 >= kept * num as u64 {
            (start, used - dropped)
        } else {
            (s, used)
        }
    }

    /// Head or Tail: the longest part with room for `notice`, counted exactly (from
    /// `known`, a cut counted exactly); `None` when the notice alone does not fit.
    fn longest_for(&self, notice: &str, known: &Cut) -> Option<Cut> {
        let room = remaining(self.budget, measure_str(notice))?;
        let cut = self.cut(room, joints(notice));
        let src = self.src;
        let (head, tail) = match self.strategy {
            Strategy::Tail => {
                let (a, b) = (known.tail_start, cut.tail_start);
                let tail = if b <= a { known.tail + src.span(b, a) } else { known.tail - src.span(a, b) };
                (Span::ZERO, tail)
            }
            _ => {
                let (a, b) = (known.head_end, cut.head_end);
                let head = if b >= a { known.head + src.span(a, b) } else { known.head - src.span(b, a) };
                (head, Span::ZERO)
            }
        };
        Some(Cut { head, tail, ..cut })
    }

    fn estimated_facts(&self, lines: bool) -> NoticeFacts {
        // The kept part is close to the budget, so the omitted amount is close to
        // total - limit; unlimited dimensions use the total as an upper bound.
        let est = |t: u64, limit: u64| if limit == UNLIMITED { t } else { t.saturating_sub(limit) };
        let n = self.src.len();
        // Line numbers at their widest, like the offsets.
        let last_line = if lines { self.total.lines } else { 0 };
        NoticeFacts {
            // Around an earlier gap the place is known only once cut: the longest phrase.
            position: if self.caps.is_some() { Position::Middle } else { self.strategy.position() },
            truncated_by: self.truncated_by,
            omitted: Measure {
                chars: est(self.total.chars, self.budget.chars),
                bytes: est(self.total.bytes, self.budget.bytes),
                lines: est(self.total.lines, self.budget.lines),
            },
            total: self.total,
            head_end: if self.src.notice_offsets_in_chars() { self.total.chars as usize } else { n },
            tail_start: if self.src.notice_offsets_in_chars() { self.total.chars as usize } else { n },
            from_line: last_line,
            to_line: last_line,
        }
    }

    fn cut(&self, room: Measure, j: Joints) -> Cut {
        let n = self.src.len();
        match self.strategy {
            Strategy::Head => {
                let (head_end, head) = self.cut_head(0, Span::ZERO, n, room, j, false);
                Cut { head_end, head, tail_start: n, tail: Span::ZERO }
            }
            Strategy::Tail => {
                let (tail_start, tail) = self.cut_tail(0, room, j.after, false);
                Cut { head_end: 0, head: Span::ZERO, tail_start, tail }
            }
            Strategy::HeadTail { head_ratio } => {
                let share = scale(room, head_ratio.clamp(0.0, 1.0));
                let (e, head) = self.cut_head(0, Span::ZERO, self.head_max(), share, j, false);
                self.fill(e, head, room, j)
            }
        }
    }

    /// A fitting cut extended into a larger `room`, keeping everything it kept.
    fn grow(&self, fitting: Cut, room: Measure, j: Joints) -> Cut {
        match self.strategy {
            // A fresh cut with more room keeps a superset.
            Strategy::Head | Strategy::Tail => self.cut(room, j),
            Strategy::HeadTail { .. } => self.fill(fitting.head_end, fitting.head, room, j),
        }
    }

    /// Given the head `text[..e]` (counts `head`), the longest tail in what the head leaves
    /// of `room`, then the longest head in what the tail leaves.
    fn fill(&self, e: usize, head: Span, room: Measure, j: Joints) -> Cut {
        let n = self.src.len();
        // No notice: the head runs on into the tail (see the module docs).
        let bare = j.before == 0;
        let head_cost = self.head_cost(e, head, j, bare);
        let tail_room = remaining(room, head_cost).expect("the head fits its room");
        let (s, tail) = self.cut_tail(e.max(self.tail_min()), tail_room, j.after, bare);
        // Whatever the tail could not use goes back to the head.
        let tail_cost = self.tail_cost(s, tail, j.after);
        let head_room = remaining(room, tail_cost).expect("the tail fits its room");
        let (head_end, head) = self.cut_head(e, head, s.min(self.head_max()), head_room, j, bare && s < n);
        Cut { head_end, head, tail_start: s, tail }
    }

    /// The furthest a kept head may reach: the whole text, or the text before an earlier gap.
    fn head_max(&self) -> usize {
        self.caps.map_or(self.src.len(), |c| c.head_max)
    }

    /// Where a kept tail may start at the earliest.
    fn tail_min(&self) -> usize {
        self.caps.map_or(0, |c| c.tail_min)
    }

    /// What the notice says was dropped from: the strategy's end, or with [`Caps`], the
    /// place between what is kept.
    fn position(&self, cut: &Cut) -> Position {
        let Some(caps) = self.caps else {
            return self.strategy.position();
        };
        match (cut.head_end > 0, cut.tail_start < self.src.len()) {
            (true, true) => Position::Middle,
            (true, false) => Position::End,
            (false, true) => Position::Start,
            (false, false) => caps.nothing_kept,
        }
    }

    /// With `run_on` an open last line is counted with the tail's first line. (An inline
    /// notice is priced as a notice on a line of its own: see [`INLINE_OPEN`].)
    fn head_cost(&self, e: usize, span: Span, j: Joints, run_on: bool) -> Measure {
        if e == 0 {
            return Measure::default();
        }
        let sep = j.before;
        let open = !self.src.is_newline(e - 1) as u64;
        let open_line = open * !run_on as u64;
        Measure { chars: span.chars + sep * open, bytes: span.bytes + sep * open, lines: span.newlines + open_line }
    }

    /// Bytes saved where a bare head ending at `e` meets a tail starting at `s`: a lone
    /// high surrogate and a lone low one (both cuts are safe) become one 4-byte pair.
    fn seam_saving(&self, e: usize, s: usize) -> u64 {
        let src = self.src;
        let pairs = e > 0 && s < src.len() && is_high(src.code(e - 1)) && is_low(src.code(s));
        2 * pairs as u64
    }

    /// Steps a head end back to the previous safe cut.
    fn step_back(&self, mut e: usize, mut used: Span) -> (usize, Span) {
        e -= 1;
        used = used - self.src.unit_span(e);
        while !self.src.is_safe_cut(e) {
            e -= 1;
            used = used - self.src.unit_span(e);
        }
        (e, used)
    }

    /// Steps a tail start forward to the next safe cut.
    fn step_forward(&self, mut s: usize, mut used: Span) -> (usize, Span) {
        used = used - self.src.unit_span(s);
        s += 1;
        while !self.src.is_safe_cut(s) {
            used = used - self.src.unit_span(s);
            s += 1;
        }
        (s, used)
    }

    fn tail_cost(&self, s: usize, span: Span, sep: u64) -> Measure {
        let n = self.src.len();
        if s >= n {
            return Measure::default();
        }
        let open = !self.src.is_newline(n - 1) as u64;
        Measure { chars: span.chars + sep, bytes: span.bytes + sep, lines: span.newlines + open }
    }

    /// The longest head `text[..e]`, `e` in `from..=limit`, whose cost fits `room`, snapped
    /// to a whole line when snapping. `text[..from]` must already fit, with counts `used`.
    /// With `run_on` the head is followed directly by the (non-empty) kept tail
    /// `text[limit..]`, with no notice.
    fn cut_head(&self, from: usize, used: Span, limit: usize, room: Measure, j: Joints, run_on: bool) -> (usize, Span) {
        let (e, kept) = self.cut_head_exact(from, used, limit, room, j, run_on);
        // A shorter head fits whatever the longer one fit: the separator too, as a snapped
        // head ends a line and needs none.
        self.snap_head(from, e, kept)
    }

    fn cut_head_exact(
        &self,
        from: usize,
        used: Span,
        limit: usize,
        room: Measure,
        j: Joints,
        run_on: bool,
    ) -> (usize, Span) {
        let src = self.src;
        let sep = j.before;
        // A seam pair could save 2 bytes: search with them, then keep them only if it forms.
        let seam = if run_on && room.bytes != UNLIMITED && is_low(src.code(limit)) { 2 } else { 0 };
        let left = Span {
            chars: keep_unlimited(room.chars, used.chars),
            bytes: keep_unlimited(room.bytes.saturating_add(seam), used.bytes),
            newlines: keep_unlimited(room.lines, used.newlines),
        };
        let (mut e, more) = src.fit_forward(from, limit, left);
        let mut used = used + more;
        while !src.is_safe_cut(e) {
            e -= 1;
            used = used - src.unit_span(e);
        }
        while seam > 0 && e > from && used.bytes > room.bytes + self.seam_saving(e, limit) {
            (e, used) = self.step_back(e, used);
        }
        // Raw counts fit; now the open last line costs a line, and a separator before the notice.
        loop {
            if e == 0 {
                return (0, Span::ZERO);
            }
            // Ending a line, or running on into the tail's first line, costs nothing more.
            if run_on || src.is_newline(e - 1) {
                return (e, used);
            }
            if room.lines != UNLIMITED && used.newlines + 1 > room.lines {
                // No room for a partial line: end at the last line break.
                return match src.last_newline(0, e) {
                    None => (0, Span::ZERO),
                    Some(p) => (p + 1, used - src.span(p + 1, e)),
                };
            }
            if used.chars.saturating_add(sep) <= room.chars && used.bytes.saturating_add(sep) <= room.bytes {
                return (e, used);
            }
            // One unit less frees the separator's char and byte.
            (e, used) = self.step_back(e, used);
        }
    }

    /// The longest tail `text[s..]`, `s >= floor`, whose cost fits `room`, snapped to a
    /// whole line when snapping. With `run_on` the tail follows the kept head
    /// `text[..floor]` directly, with no notice.
    fn cut_tail(&self, floor: usize, room: Measure, sep: u64, run_on: bool) -> (usize, Span) {
        let n = self.src.len();
        let (s, kept) = self.cut_tail_exact(floor, room, sep, run_on);
        self.snap_tail(s, n, kept)
    }

    fn cut_tail_exact(&self, floor: usize, room: Measure, sep: u64, run_on: bool) -> (usize, Span) {
        let src = self.src;
        let n = src.len();
        // No room for a single char: done without reading the text (windows may be empty).
        if floor >= n || room.chars == 0 {
            return (n, Span::ZERO);
        }
        let open = !src.is_newline(n - 1) as u64;
        let (Some(chars), Some(bytes), Some(newlines)) =
            (room_after(room.chars, sep), room_after(room.bytes, sep), room_after(room.lines, open))
        else {
            return (n, Span::ZERO);
        };
        // A seam pair could save 2 bytes: search with them, then keep them only if it forms.
        let seam = if run_on && bytes != UNLIMITED && floor > 0 && is_high(src.code(floor - 1)) { 2 } else { 0 };
        let budget = Span { chars, bytes: bytes.saturating_add(seam), newlines };
        let (mut s, mut used) = src.fit_backward(n, floor, budget);
        while !src.is_safe_cut(s) {
            used = used - src.unit_span(s);
            s += 1;
        }
        while seam > 0 && s < n && used.bytes > bytes + self.seam_saving(floor, s) {
            (s, used) = self.step_forward(s, used);
        }
        if s >= n {
            (n, Span::ZERO)
        } else {
            (s, used)
        }
    }

    /// Recounts the kept parts in every dimension.
    fn exact(&self, cut: Cut) -> Cut {
        let n = self.src.len();
        Cut { head: self.src.span(0, cut.head_end), tail: self.src.span(cut.tail_start, n), ..cut }
    }

    fn omitted(&self, cut: &Cut) -> Measure {
        let src = self.src;
        let n = src.len();
        let (e, s) = (cut.head_end, cut.tail_start);
        let head_lines = lines_of(cut.head.newlines, e, e > 0 && src.is_newline(e - 1));
        let tail_lines = lines_of(cut.tail.newlines, n - s, n > s && src.is_newline(n - 1));
        // A line cut in the middle shows at both ends but is one line of the input: the
        // head ends inside a line and the gap holds no line break. (Saturating: a windowed
        // source knows no line totals.)
        let shared = (e > 0 && s < n && !src.is_newline(e - 1) && {
            let total_newlines = self.total.lines.saturating_sub(!src.is_newline(n - 1) as u64);
            total_newlines <= cut.head.newlines + cut.tail.newlines
        }) as u64;
        // Chars from the kept counts, not from `s - e`: positions are bytes in a UTF-8 source.
        Measure {
            chars: self.total.chars.saturating_sub(cut.head.chars + cut.tail.chars),
            bytes: self.total.bytes.saturating_sub(cut.head.bytes + cut.tail.bytes),
            lines: self.total.lines.saturating_sub(head_lines + tail_lines - shared),
        }
    }

    /// With `lines`, `cut` must hold exact counts: its newlines give the line numbers.
    fn facts(&self, cut: &Cut, lines: bool) -> NoticeFacts {
        let (from_line, to_line) = if lines { self.dropped_lines(cut) } else { (0, 0) };
        // Around an earlier gap, positions of the original follow from its chars.
        let (head_end, tail_start) = if self.src.notice_offsets_in_chars() || self.caps.is_some() {
            (cut.head.chars as usize, self.total.chars.saturating_sub(cut.tail.chars) as usize)
        } else {
            (cut.head_end, cut.tail_start)
        };
        NoticeFacts {
            position: self.position(cut),
            truncated_by: self.truncated_by,
            omitted: self.omitted(cut),
            total: self.total,
            head_end,
            tail_start,
            from_line,
            to_line,
        }
    }

    /// The lines holding the first and the last dropped unit, from the kept parts' newlines
    /// (no count of its own): `text[..e]` holds `head.newlines`, and `text[..s - 1]` all
    /// newlines but the tail's and the one at `s - 1`.
    fn dropped_lines(&self, cut: &Cut) -> (u64, u64) {
        let src = self.src;
        let n = src.len();
        let from_line = 1 + cut.head.newlines;
        if cut.tail_start <= cut.head_end {
            // Nothing dropped (only while settling): no last line of its own.
            return (from_line, from_line);
        }
        // Saturating: around an earlier gap, totals the notice did not name are lower bounds.
        let total_newlines = self.total.lines.saturating_sub(!src.is_newline(n - 1) as u64);
        let last = cut.tail_start - 1;
        (from_line, (1 + total_newlines).saturating_sub(cut.tail.newlines + src.is_newline(last) as u64))
    }

    fn finish(&self, cut: Cut, notice: String) -> Plan {
        let glue = self.glue(&cut, &notice);
        let output = self.output(&cut, &glue);
        let omitted = self.omitted(&cut);
        Plan {
            head_end: cut.head_end,
            tail_start: cut.tail_start,
            glue,
            truncated_by: self.truncated_by,
            total: self.total,
            output,
            omitted,
        }
    }

    /// The notice with the line breaks that put it on a line of its own.
    fn glue(&self, cut: &Cut, notice: &str) -> String {
        let src = self.src;
        let n = src.len();
        let j = joints(notice);
        let mut glue = String::with_capacity(notice.len() + 2);
        if cut.head_end > 0 && !src.is_newline(cut.head_end - 1) && j.before == 1 {
            glue.push(if self.inline_separator(cut, notice) { ' ' } else { '\n' });
        }
        glue.push_str(notice);
        if cut.tail_start < n && j.after == 1 {
            glue.push('\n');
        }
        glue
    }

    /// What a cut with `notice` is charged against the limits: the measure of its result,
    /// with a line more for an inline notice, priced as one on a line of its own (see
    /// [`INLINE_OPEN`]).
    fn charged(&self, cut: &Cut, notice: &str) -> Measure {
        let glue = self.glue(cut, notice);
        let mut m = self.output(cut, &glue);
        m.lines += self.inline_separator(cut, notice) as u64;
        m
    }

    /// Whether the glue of `cut` with `notice` puts it on the head's open line.
    fn inline_separator(&self, cut: &Cut, notice: &str) -> bool {
        let j = joints(notice);
        cut.head_end > 0 && !self.src.is_newline(cut.head_end - 1) && j.before == 1 && j.inline
    }

    /// The measure of `text[..head_end] + glue + text[tail_start..]`, exact in the
    /// dimensions `cut` counts.
    fn output(&self, cut: &Cut, glue: &str) -> Measure {
        let src = self.src;
        let n = src.len();
        let g = measure_str(glue);
        let glue_newlines = glue.bytes().filter(|&b| b == b'\n').count() as u64;
        let newlines = cut.head.newlines + glue_newlines + cut.tail.newlines;
        let chars = cut.head.chars + g.chars + cut.tail.chars;
        let last_is_newline = if cut.tail_start < n {
            src.is_newline(n - 1)
        } else if !glue.is_empty() {
            glue.ends_with('\n')
        } else {
            cut.head_end > 0 && src.is_newline(cut.head_end - 1)
        };
        let seam = if glue.is_empty() { self.seam_saving(cut.head_end, cut.tail_start) } else { 0 };
        Measure {
            chars,
            bytes: (cut.head.bytes + g.bytes + cut.tail.bytes).saturating_sub(seam),
            lines: lines_of(newlines, chars as usize, last_is_newline),
        }
    }
}

fn is_high(c: u16) -> bool {
    c & 0xFC00 == 0xD800
}

fn is_low(c: u16) -> bool {
    c & 0xFC00 == 0xDC00
}

fn keep_unlimited(budget: u64, used: u64) -> u64 {
    if budget == UNLIMITED {
        UNLIMITED
    } else {
        budget.saturating_sub(used)
    }
}

/// `budget - cost`, or `None` when the cost does not fit.
fn room_after(budget: u64, cost: u64) -> Option<u64> {
    if budget == UNLIMITED {
        Some(UNLIMITED)
    } else {
        budget.checked_sub(cost)
    }
}
