//! Snapping kept parts to whole lines ([`super::Snap::Line`]): a head moved back to the end
//! of its last whole line, a tail forward to the start of its first, unless that keeps less
//! than [`SNAP_MIN_SHARE`] of the part.

use super::planner::Planner;
use super::SNAP_MIN_SHARE;
use crate::measure::Span;
use crate::source::Source;

impl<S: Source + ?Sized> Planner<'_, S> {
    /// `text[..e]` ends a line (`e > 0`).
    pub(super) fn ends_line(&self, e: usize) -> bool {
        e > 0 && self.src.is_newline(e - 1)
    }

    /// `text[s..]` starts a line (`s < len`).
    pub(super) fn starts_line(&self, s: usize) -> bool {
        s < self.src.len() && (s == 0 || self.src.is_newline(s - 1))
    }

    /// Just after the first `\n` in `from..to`, or `to` when there is none.
    pub(super) fn next_line_start(&self, from: usize, to: usize) -> usize {
        self.src.first_newline(from, to).map_or(to, |i| i + 1)
    }

    /// The head `text[..e]` (counts `used`) moved back to the end of its last whole line,
    /// when that keeps at least [`SNAP_MIN_SHARE`] of it and not less than `from` (a head
    /// already kept); else as it is.
    pub(super) fn snap_head(&self, from: usize, e: usize, used: Span) -> (usize, Span) {
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
    pub(super) fn snap_tail(&self, s: usize, ceiling: usize, used: Span) -> (usize, Span) {
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
}
