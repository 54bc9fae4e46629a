//! The line numbers a notice gets (`fromLine`, `toLine`): for every cut a notice is
//! rendered for, the lines holding the first and the last dropped unit, counted the slow way.

use crate::common;
use crate::reference;

use common::*;
use proptest::prelude::*;
use reference::*;
use toolclamp_core::{plan, Limits, Measure, Notice, NoticeFacts, Source, Units, Utf8, UNLIMITED};
// `Strategy` is proptest's generator trait here; the core's cut strategy is `Cut`.
use toolclamp_core::Strategy as Cut;

fn limit(total: u64) -> BoxedStrategy<u64> {
    prop_oneof![2 => Just(UNLIMITED), 2 => 0u64..8, 5 => 0..=total + 2].boxed()
}

fn limits_for(m: Measure) -> impl Strategy<Value = Limits> {
    (limit(m.chars), limit(m.bytes), limit(m.lines)).prop_map(|(c, b, l)| Limits {
        max_chars: c,
        max_bytes: b,
        max_lines: l,
    })
}

fn strategy() -> impl Strategy<Value = Cut> {
    prop_oneof![Just(Cut::Head), Just(Cut::Tail), (0.0f64..=1.0).prop_map(|r| Cut::HeadTail { head_ratio: r })]
}

/// What a notice saw: `(head_end, tail_start, from_line, to_line)` of each rendering.
type Seen = Vec<(usize, usize, u64, u64)>;

/// Plans with a notice of varying length that records what it was given.
fn plan_recording<S: Source + ?Sized>(src: &S, limits: &Limits, strategy: Cut) -> Seen {
    let mut seen = Vec::new();
    let mut f = |facts: &NoticeFacts| {
        seen.push((facts.head_end, facts.tail_start, facts.from_line, facts.to_line));
        "#".repeat(facts.omitted.chars as usize % 13)
    };
    plan(src, limits, strategy, &mut Notice::Custom(&mut f), false).unwrap();
    seen
}

/// The line holding unit `i`, 1-based.
fn line_of(is_newline: impl Fn(usize) -> bool, i: usize) -> u64 {
    1 + (0..i).filter(|&j| is_newline(j)).count() as u64
}

fn check_seen(seen: &Seen, len: usize, total_lines: u64, is_newline: impl Fn(usize) -> bool) {
    for &(head_end, tail_start, from, to) in seen {
        if head_end >= tail_start {
            // The first estimate, before any cut: the widest numbers.
            assert_eq!((head_end, tail_start, from, to), (len, len, total_lines, total_lines));
            continue;
        }
        let expected = (line_of(&is_newline, head_end), line_of(&is_newline, tail_start - 1));
        assert_eq!((from, to), expected, "cut {head_end}..{tail_start}");
        assert!(1 <= from && from <= to && to <= total_lines);
    }
}

const REGRESSIONS: &str = "tests/proptest-regressions/notice_lines.txt";

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 1000))]

    #[test]
    fn custom_notices_get_the_lines_the_dropped_text_touches(
        (t, limits) in text(50).prop_flat_map(|t| { let m = naive_measure(&t); (Just(t), limits_for(m)) }),
        strategy in strategy(),
    ) {
        let seen = plan_recording(&Units::new(&t), &limits, strategy);
        check_seen(&seen, t.len(), naive_lines(&t), |i| t[i] == NL);
    }

    #[test]
    fn templates_render_the_same_lines(
        (t, limits) in text(50).prop_flat_map(|t| { let m = naive_measure(&t); (Just(t), limits_for(m)) }),
        strategy in strategy(),
    ) {
        let mut notice = Notice::Template("<{fromLine}|{toLine}>");
        let Some(p) = plan(&Units::new(&t), &limits, strategy, &mut notice, false).unwrap() else {
            return Ok(());
        };
        let line = |i: usize| line_of(|j| t[j] == NL, i);
        let expected = format!("<{}|{}>", line(p.head_end), line(p.tail_start - 1));
        // Unless a fallback replaced it, the notice is the template for this very cut.
        if p.glue.contains('<') {
            prop_assert_eq!(p.glue.trim_matches('\n'), expected);
        }
    }

    #[test]
    fn utf8_sources_give_the_same_lines(
        s in prop::collection::vec(prop_oneof![4 => "[a-z]{1,5}", 3 => Just("\n".to_string()), 1 => Just("\r\n".to_string()), 1 => Just("é日😀".to_string())], 0..40).prop_map(|p| p.concat()),
        c in 0u64..60,
        l in prop_oneof![Just(UNLIMITED), 0u64..6],
        strategy in strategy(),
    ) {
        let limits = Limits { max_chars: c, max_bytes: UNLIMITED, max_lines: l };
        let bytes = s.as_bytes();
        let seen = plan_recording(&Utf8::new(&s), &limits, strategy);
        check_seen(&seen, bytes.len(), naive_lines(&utf16(&s)), |i| bytes[i] == b'\n');
        let wide: Vec<(u64, u64)> = plan_recording(&Units::new(&utf16(&s)), &limits, strategy).iter().map(|s| (s.2, s.3)).collect();
        prop_assert_eq!(seen.iter().map(|s| (s.2, s.3)).collect::<Vec<_>>(), wide);
    }
}
