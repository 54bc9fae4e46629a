//! The search past a settled cut, for a notice whose length depends on the cut: Head and
//! Tail find the longest part that fits with its own notice, HeadTail grows each side while
//! the grown cut still does (see the maximality contract in the [`plan`](super) module
//! docs). A candidate is one safe cut, or with snapping one line, from the next.

use super::planner::{joints, remaining, Cut, Planner};
use super::rungs::Renderer;
use super::Strategy;
use crate::measure::{measure_str, Measure, Span};
use crate::notice::{NoticeFacts, TemplateError};
use crate::source::Source;

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

impl<S: Source + ?Sized> Planner<'_, S> {
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
    pub(super) fn longest_honest(
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
            if self.charged(&cut, &notice).fits(self.budget) {
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
    pub(super) fn grow_honest(
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
                if self.charged(&grown, &next).fits(self.budget) {
                    (cut, notice, grew) = (grown, next, true);
                }
            }
            if !grew {
                return Ok(Some((cut, notice)));
            }
        }
    }

    /// How much of the text a Head or Tail cut keeps, in positions.
    pub(super) fn kept(&self, cut: &Cut) -> usize {
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
}
