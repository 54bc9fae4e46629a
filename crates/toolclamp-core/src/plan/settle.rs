//! Settling the notice: a cut is priced with room for a notice, the notice is rendered from
//! that cut's own counts, and the cut is made again while the notice's length changes.
//! Starts from an estimate of the facts that undercounts what is omitted, so the first cut
//! that fits is the longest.

use super::planner::{joints, remaining, Cut, Planner};
use super::rungs::Renderer;
use super::{Plan, Strategy, UNLIMITED};
use crate::measure::{measure_str, Measure, Span};
use crate::notice::{NoticeFacts, Position, TemplateError};
use crate::source::Source;

impl<S: Source + ?Sized> Planner<'_, S> {
    /// Finds a cut whose notice, rendered from the cut's own counts, fits the room reserved
    /// for it. Starts from an estimate and re-cuts while the notice's length changes. With
    /// `lines` the facts carry line numbers, taken from the exact counts of each cut. With
    /// `search` (a notice whose length depends on the cut) it then looks past that cut for
    /// the longest one that fits with its own notice (see the contract in the
    /// [`plan`](super) module docs).
    pub(super) fn settle(
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
            if next_size.fits(reserved) && joints(&next) == j {
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
}
