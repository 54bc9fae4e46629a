//! The head/tail view of a tool's output under a character and a line limit, with line
//! indicators (a two-stage pipeline):
//!
//! ```text
//! [First 30 lines of 500]
//! ...the first lines...
//! [... 400 lines, 31,200 chars truncated in the middle ...]
//! [Last 70 lines of 500]
//! ...the last lines...
//! ```
//!
//! Both stages are one cut of the original under both limits, so every count is a count
//! of the original. The indicator lines are priced into the budget at their longest (their
//! chars and two lines). They are shown when the view with them keeps text and loses no
//! more of it than their own room: the chars they take, or the two lines. Otherwise (a
//! single long line under three lines of budget, where they would leave room for the
//! marker alone) the view is a plain cut. The notice names only the limits the output
//! exceeds as given, even while the cut is planned with the room the indicators leave.

use crate::measure::lines_of;
use crate::notice::{check_template, default_notice, format_count, render_template, Dims, Notice, NoticeFacts};
use crate::plan::{plan, Limits, Plan, Strategy, UNLIMITED};
use crate::source::Source;
use crate::TemplateError;

/// The smallest room for kept text that makes indicator lines worth reserving.
const MIN_ROOM_WITH_INDICATORS: u64 = 64;

/// A cut tool output: `first + text[..head_end] + glue + last + text[tail_start..]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOutput {
    pub plan: Plan,
    /// `[First N lines of T]\n`, or empty.
    pub first: String,
    /// `[Last M lines of T]\n`, or empty.
    pub last: String,
    /// Lines of the kept head and of the kept tail (a line cut in two counts in both).
    pub head_lines: u64,
    pub tail_lines: u64,
}

/// Plans the view of `src` under `max_chars` and `max_lines`, `head_ratio` of each budget
/// for the head. `Ok(None)`: the output is within both limits and shown as it is.
pub fn plan_tool_output<S: Source + ?Sized>(
    src: &S,
    max_chars: u64,
    max_lines: u64,
    head_ratio: f64,
    notice: &mut Notice<'_>,
) -> Result<Option<ToolOutput>, TemplateError> {
    if let Notice::Template(t) = notice {
        check_template(t)?;
    }
    let total = src.totals();
    let mut exceeded = Dims::default();
    if total.chars > max_chars {
        exceeded.insert(Dims::CHARS);
    }
    if total.lines > max_lines {
        exceeded.insert(Dims::LINES);
    }
    if exceeded.is_empty() {
        return Ok(None);
    }
    // Each notice names the limits exceeded as given, not those of the reduced room.
    let mut render = |facts: &NoticeFacts| -> String {
        let facts = NoticeFacts { truncated_by: exceeded, ..*facts };
        match notice {
            Notice::Default => default_notice(&facts),
            Notice::Template(t) => render_template(t, &facts).expect("the template was checked"),
            Notice::Custom(f) => f(&facts),
        }
    };
    let strategy = Strategy::HeadTail { head_ratio };
    let limits = Limits { max_chars, max_bytes: UNLIMITED, max_lines };
    let plain = plan(src, &limits, strategy, &mut Notice::Custom(&mut render), true)?
        .expect("the output exceeds a limit, so it is cut");

    let count = format_count(total.lines);
    // Indicator lines at their longest; ASCII, so chars and bytes alike.
    let reserve = (format!("[First {count} lines of {count}]\n").len()
        + format!("[Last {count} lines of {count}]\n").len()) as u64;
    let headed = if max_lines >= 3 && max_chars >= reserve + MIN_ROOM_WITH_INDICATORS {
        let room = Limits { max_chars: max_chars - reserve, max_bytes: UNLIMITED, max_lines: max_lines - 2 };
        plan(src, &room, strategy, &mut Notice::Custom(&mut render), true)?
    } else {
        None
    };
    let kept_chars = |p: &Plan| p.total.chars - p.omitted.chars;
    let kept_lines = |p: &Plan| p.total.lines - p.omitted.lines;
    let (chosen, with_indicators) = match headed {
        Some(h)
            if kept_chars(&h) > 0
                && (kept_chars(&h) + reserve >= kept_chars(&plain) || kept_lines(&h) + 2 >= kept_lines(&plain)) =>
        {
            (h, true)
        }
        _ => (plain, false),
    };
    let n = src.len();
    let head_lines = lines_of(
        src.span(0, chosen.head_end).newlines,
        chosen.head_end,
        chosen.head_end > 0 && src.is_newline(chosen.head_end - 1),
    );
    let tail_lines = lines_of(
        src.span(chosen.tail_start, n).newlines,
        n - chosen.tail_start,
        n > chosen.tail_start && src.is_newline(n - 1),
    );
    let indicator = |word: &str, lines: u64| {
        if with_indicators && lines > 0 {
            format!("[{word} {} lines of {count}]\n", format_count(lines))
        } else {
            String::new()
        }
    };
    Ok(Some(ToolOutput {
        first: indicator("First", head_lines),
        last: indicator("Last", tail_lines),
        plan: chosen,
        head_lines,
        tail_lines,
    }))
}
