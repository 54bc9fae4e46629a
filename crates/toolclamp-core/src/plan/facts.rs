//! What a cut's notice says: where the text was dropped from, how much, the offsets of the
//! kept parts and the lines of the first and last dropped unit.

use super::planner::{Cut, Planner};
use crate::measure::{lines_of, Measure};
use crate::notice::{NoticeFacts, Position};
use crate::source::Source;

impl<S: Source + ?Sized> Planner<'_, S> {
    /// What the notice says was dropped from: the strategy's end, or with
    /// [`Caps`](super::Caps), the place between what is kept.
    pub(super) fn position(&self, cut: &Cut) -> Position {
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

    pub(super) fn omitted(&self, cut: &Cut) -> Measure {
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
    pub(super) fn facts(&self, cut: &Cut, lines: bool) -> NoticeFacts {
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
}
