//! Cutting within a room: the longest head and the longest tail whose cost (with the
//! separators next to the notice) fits, at safe cuts only; HeadTail splits the room by
//! `head_ratio`, and what the tail leaves goes back to the head. With no notice a head runs
//! on into the tail, and the seam is priced as the result will measure.

use super::planner::{is_high, is_low, keep_unlimited, remaining, room_after, scale, Cut, Joints, Planner};
use super::{Strategy, UNLIMITED};
use crate::measure::{Measure, Span};
use crate::source::Source;

impl<S: Source + ?Sized> Planner<'_, S> {
    pub(super) fn cut(&self, room: Measure, j: Joints) -> Cut {
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
    pub(super) fn grow(&self, fitting: Cut, room: Measure, j: Joints) -> Cut {
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
        // No notice: the head runs on into the tail (see the [`plan`](super) module docs).
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

    /// With `run_on` an open last line is counted with the tail's first line. (An inline
    /// notice is priced as a notice on a line of its own: see [`INLINE_OPEN`].)
    ///
    /// [`INLINE_OPEN`]: super::planner::INLINE_OPEN
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
    pub(super) fn seam_saving(&self, e: usize, s: usize) -> u64 {
        let src = self.src;
        let pairs = e > 0 && s < src.len() && is_high(src.code(e - 1)) && is_low(src.code(s));
        2 * pairs as u64
    }

    /// Steps a head end back to the previous safe cut.
    pub(super) fn step_back(&self, mut e: usize, mut used: Span) -> (usize, Span) {
        e -= 1;
        used = used - self.src.unit_span(e);
        while !self.src.is_safe_cut(e) {
            e -= 1;
            used = used - self.src.unit_span(e);
        }
        (e, used)
    }

    /// Steps a tail start forward to the next safe cut.
    pub(super) fn step_forward(&self, mut s: usize, mut used: Span) -> (usize, Span) {
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
    pub(super) fn cut_head(
        &self,
        from: usize,
        used: Span,
        limit: usize,
        room: Measure,
        j: Joints,
        run_on: bool,
    ) -> (usize, Span) {
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
    pub(super) fn cut_tail(&self, floor: usize, room: Measure, sep: u64, run_on: bool) -> (usize, Span) {
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
}
