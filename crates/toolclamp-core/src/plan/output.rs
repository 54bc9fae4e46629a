//! The plan a cut makes: the glue (the notice with the line breaks, or the inline space,
//! that put it in place), the result's measure, and what the cut is charged against the
//! limits.

use super::planner::{joints, Cut, Planner};
use super::Plan;
use crate::measure::{lines_of, measure_str, Measure};
use crate::source::Source;

impl<S: Source + ?Sized> Planner<'_, S> {
    pub(super) fn finish(&self, cut: Cut, notice: String) -> Plan {
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
    pub(super) fn glue(&self, cut: &Cut, notice: &str) -> String {
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
    /// [`INLINE_OPEN`](super::planner::INLINE_OPEN)).
    pub(super) fn charged(&self, cut: &Cut, notice: &str) -> Measure {
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
    pub(super) fn output(&self, cut: &Cut, glue: &str) -> Measure {
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
