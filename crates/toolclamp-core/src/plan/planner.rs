//! The state of one plan ([`Planner`]), a candidate cut ([`Cut`]), how a notice joins the
//! kept parts ([`Joints`]), and the arithmetic of rooms that keeps "unlimited" unlimited.

use super::rungs::Caps;
use super::{Strategy, UNLIMITED};
use crate::measure::{Measure, Span};
use crate::notice::Dims;
use crate::source::Source;

/// One plan in the making: the text, the budget it must fit, how to cut it, its totals and
/// the limits they exceed (what the notice names).
pub(super) struct Planner<'s, S: Source + ?Sized> {
    pub(super) src: &'s S,
    pub(super) budget: Measure,
    pub(super) strategy: Strategy,
    pub(super) total: Measure,
    pub(super) truncated_by: Dims,
    /// Kept parts end on whole lines (see [`Snap::Line`](super::Snap::Line)).
    pub(super) snap: bool,
    /// Bounds of a plan around an earlier gap (see [`Caps`]); `None` for a whole text.
    pub(super) caps: Option<Caps>,
}

/// A candidate cut and the counts of its kept parts (exact in the limited dimensions).
#[derive(Clone, Copy, Debug)]
pub(super) struct Cut {
    pub(super) head_end: usize,
    pub(super) head: Span,
    pub(super) tail_start: usize,
    pub(super) tail: Span,
}

/// How a notice joins its neighbours.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Joints {
    /// A separator goes between an unterminated head and the notice.
    pub(super) before: u64,
    /// That separator is a space, and the notice shares the head's open line (see
    /// [`INLINE_OPEN`]); otherwise it is a `\n`.
    pub(super) inline: bool,
    /// A `\n` goes between the notice and a non-empty tail.
    pub(super) after: u64,
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
pub(super) const INLINE_OPEN: &str = "[...";

/// The joints of `notice`: none around an empty one; no `\n` after one that ends a line.
pub(super) fn joints(notice: &str) -> Joints {
    let present = !notice.is_empty() as u64;
    Joints { before: present, inline: notice.starts_with(INLINE_OPEN), after: present & !notice.ends_with('\n') as u64 }
}

/// `a - b` per dimension, keeping "unlimited" unlimited; `None` when `b` does not fit.
pub(super) fn remaining(a: Measure, b: Measure) -> Option<Measure> {
    let one = |x: u64, y: u64| if x == UNLIMITED { Some(UNLIMITED) } else { x.checked_sub(y) };
    Some(Measure { chars: one(a.chars, b.chars)?, bytes: one(a.bytes, b.bytes)?, lines: one(a.lines, b.lines)? })
}

pub(super) fn scale(m: Measure, ratio: f64) -> Measure {
    // `min`: near u64::MAX the float product rounds up, and a limit must not become unlimited.
    let one = |x: u64| if x == UNLIMITED { UNLIMITED } else { ((x as f64 * ratio).floor() as u64).min(x) };
    Measure { chars: one(m.chars), bytes: one(m.bytes), lines: one(m.lines) }
}

impl<S: Source + ?Sized> Planner<'_, S> {
    /// The furthest a kept head may reach: the whole text, or the text before an earlier gap.
    pub(super) fn head_max(&self) -> usize {
        self.caps.map_or(self.src.len(), |c| c.head_max)
    }

    /// Where a kept tail may start at the earliest.
    pub(super) fn tail_min(&self) -> usize {
        self.caps.map_or(0, |c| c.tail_min)
    }

    /// Recounts the kept parts in every dimension.
    pub(super) fn exact(&self, cut: Cut) -> Cut {
        let n = self.src.len();
        Cut { head: self.src.span(0, cut.head_end), tail: self.src.span(cut.tail_start, n), ..cut }
    }
}

pub(super) fn is_high(c: u16) -> bool {
    c & 0xFC00 == 0xD800
}

pub(super) fn is_low(c: u16) -> bool {
    c & 0xFC00 == 0xDC00
}

pub(super) fn keep_unlimited(budget: u64, used: u64) -> u64 {
    if budget == UNLIMITED {
        UNLIMITED
    } else {
        budget.saturating_sub(used)
    }
}

/// `budget - cost`, or `None` when the cost does not fit.
pub(super) fn room_after(budget: u64, cost: u64) -> Option<u64> {
    if budget == UNLIMITED {
        Some(UNLIMITED)
    } else {
        budget.checked_sub(cost)
    }
}
