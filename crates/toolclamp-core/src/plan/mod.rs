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
//!
//! # Where things are
//!
//! * `rungs`: the entry points ([`plan()`], [`plan_with_snap`], [`plan_head_at`]) and the
//!   ladder of notices they try, the caller's first, then each fallback.
//! * `planner`: the state of one plan and the small arithmetic of rooms and joints.
//! * `settle`: a cut whose notice, rendered from the cut's own counts, fits beside it.
//! * `search`: past that cut, the longest one that fits with its own notice (the
//!   maximality contract above).
//! * `cut`: the longest head and tail within a room, safe cuts only, with the seam of a
//!   head that runs on into the tail; `snap` moves them to whole lines.
//! * `facts`: what a cut's notice says (omitted counts, offsets, line numbers); `output`:
//!   the plan it makes (the glue and the result's measure).
//!
//! [`INLINE_OPEN`]: planner::INLINE_OPEN
//! [`NoticeFacts`]: crate::notice::NoticeFacts
//! [`FALLBACK_NOTICES`]: crate::notice::FALLBACK_NOTICES
//! [`Notice::depends_on_cut`]: crate::notice::Notice::depends_on_cut

mod cut;
mod facts;
mod output;
mod planner;
mod rungs;
mod search;
mod settle;
mod snap;

pub use rungs::{plan, plan_head_at, plan_with_snap, MAX_FUNCTION_CALLS};
pub(crate) use rungs::{plan_capped, Caps};

use crate::measure::Measure;
use crate::notice::{Dims, Position};

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

    pub(crate) fn as_measure(self) -> Measure {
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
