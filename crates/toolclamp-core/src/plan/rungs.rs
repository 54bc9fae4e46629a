//! The entry points, and the ladder of notices each plan tries: the caller's notice, then
//! each of the fallbacks, the last of which (none) always fits. A text within its limits is
//! returned as it is before any of this.

use super::planner::{Cut, Planner};
use super::{Limits, Plan, Snap, Strategy};
use crate::measure::{Measure, Span};
use crate::notice::{
    check_template, default_notice, render_template, Dims, Notice, NoticeFacts, Position, TemplateError,
    FALLBACK_NOTICES,
};
use crate::source::Source;

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
/// part whose snapped form keeps less than [`SNAP_MIN_SHARE`](super::SNAP_MIN_SHARE), its
/// exact cuts).
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
        if planner.charged(&cut, &text).fits(planner.budget) {
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
pub(super) struct Renderer<'r> {
    pub(super) render: &'r mut dyn FnMut(&NoticeFacts) -> Result<String, TemplateError>,
    pub(super) calls: usize,
    pub(super) max_calls: usize,
}

impl Renderer<'_> {
    pub(super) fn render(&mut self, facts: &NoticeFacts) -> Result<String, TemplateError> {
        self.calls += 1;
        (self.render)(facts)
    }

    /// No call left for the search.
    pub(super) fn spent(&self) -> bool {
        self.calls >= self.max_calls
    }
}
