//! The tool-output view: it fits both limits with its indicators, counts the original,
//! names only the limits exceeded as given, and the indicators never cost the kept text
//! more than their own room.

use crate::common;
use crate::reference;

use common::*;
use proptest::prelude::*;
use reference::*;
use toolclamp_core::{plan_tool_output, Notice, ToolOutput, Units, UNLIMITED};

const REGRESSIONS: &str = "tests/proptest-regressions/tool_output.txt";

fn view(units: &[u16], max_chars: u64, max_lines: u64, head_ratio: f64, notice: &mut Notice) -> Option<ToolOutput> {
    plan_tool_output(&Units::new(units), max_chars, max_lines, head_ratio, notice).unwrap()
}

/// `first + head + glue + last + tail`.
fn assemble_view(units: &[u16], v: &ToolOutput) -> Vec<u16> {
    [
        utf16(&v.first),
        units[..v.plan.head_end].to_vec(),
        utf16(&v.plan.glue),
        utf16(&v.last),
        units[v.plan.tail_start..].to_vec(),
    ]
    .concat()
}

#[test]
fn a_long_line_under_three_lines_keeps_what_two_lines_keep() {
    let text = utf16(&"x".repeat(5000));
    let kept = |max_lines| {
        let v = view(&text, 1313, max_lines, 0.3, &mut Notice::Default).unwrap();
        let out = naive_measure(&assemble_view(&text, &v));
        assert!(out.chars <= 1313 && out.lines <= max_lines, "{max_lines}: {out:?}");
        v.plan.head_end + text.len() - v.plan.tail_start
    };
    let (two, three, four) = (kept(2), kept(3), kept(4));
    assert!(two > 1200);
    assert!(three >= two, "{three} < {two}");
    assert!(four + 41 >= three, "{four} vs {three}");
}

#[test]
fn the_seed_shape_with_counts_of_the_original() {
    let text: String = (1..=500).map(|i| format!("line {i} {}\n", "x".repeat(30))).collect();
    let units = utf16(&text);
    let v = view(&units, 10_000, 100, 0.3, &mut Notice::Template("... [{omitted} truncated] ...")).unwrap();
    let shown = String::from_utf16(&assemble_view(&units, &v)).unwrap();
    assert!(shown.starts_with(&format!("[First {} lines of 500]\nline 1 ", v.head_lines)), "{shown}");
    assert!(shown.contains(&format!("\n[Last {} lines of 500]\n", v.tail_lines)));
    assert_eq!(v.head_lines + v.plan.omitted.lines + v.tail_lines, 500);
    // The output exceeds both limits (20,000 chars, 500 lines): both are named.
    assert!(shown.contains(" lines, ") && shown.contains(" chars truncated]"));
    let m = naive_measure(&utf16(&shown));
    assert!(m.chars <= 10_000 && m.lines <= 100);
}

#[test]
fn the_marker_names_only_what_the_output_exceeds() {
    let text = utf16(&(0..34).map(|i| format!("l{i}")).collect::<Vec<_>>().join("\n"));
    let v = view(&text, 1000, 10, 0.3, &mut Notice::Default).unwrap();
    assert!(v.plan.glue.contains(" lines truncated") && !v.plan.glue.contains("char"), "{}", v.plan.glue);
}

fn output() -> impl Strategy<Value = Vec<u16>> {
    text(60)
}

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 2000))]

    #[test]
    fn views_fit_and_count_the_original(
        units in output(),
        max_chars in prop_oneof![Just(UNLIMITED), 0u64..400],
        max_lines in prop_oneof![Just(UNLIMITED), 0u64..30],
        ratio in 0.0f64..=1.0,
    ) {
        let total = naive_measure(&units);
        let Some(v) = view(&units, max_chars, max_lines, ratio, &mut Notice::Default) else {
            prop_assert!(total.chars <= max_chars && total.lines <= max_lines);
            return Ok(());
        };
        prop_assert!(total.chars > max_chars || total.lines > max_lines);
        let out = naive_measure(&assemble_view(&units, &v));
        prop_assert!(out.chars <= max_chars && out.lines <= max_lines, "{out:?} over {max_chars}/{max_lines}: {v:?}");
        prop_assert!(is_safe_cut(&units, v.plan.head_end) && is_safe_cut(&units, v.plan.tail_start));
        prop_assert_eq!(v.head_lines, naive_lines(&units[..v.plan.head_end]));
        prop_assert_eq!(v.tail_lines, naive_lines(&units[v.plan.tail_start..]));
        prop_assert_eq!(v.plan.omitted, naive_omitted(&units, v.plan.head_end, v.plan.tail_start));
        // The default notice names chars only when the output has more than the limit.
        let glue = &v.plan.glue;
        if !FALLBACKS.contains(&glue.trim_matches(|c| c == '\n' || c == ' ')) {
            prop_assert_eq!(glue.contains(" char"), total.chars > max_chars, "{}", glue);
        }
    }
}
