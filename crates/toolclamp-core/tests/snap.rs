//! `Snap::Line`: kept parts on whole lines unless that keeps under 4/5 of the exact part,
//! every result within its limits, and maximal among snapped cuts for Head and Tail with
//! the default notice (no longer snapped part fits with its own notice).

use crate::common;
use crate::reference;

use common::*;
use proptest::prelude::*;
use reference::*;
use toolclamp_core::default_notice;
use toolclamp_core::{plan_with_snap, Limits, Notice, Plan, Position, Snap, Units, UNLIMITED};
// `Strategy` is proptest's generator trait here; the core's cut strategy is `Cut`.
use toolclamp_core::Strategy as Cut;

const NL: u16 = b'\n' as u16;

fn snapped(units: &[u16], limits: &Limits, strategy: Cut) -> Option<Plan> {
    plan_with_snap(&Units::new(units), limits, strategy, &mut Notice::Default, true, Snap::Line).unwrap()
}

/// `text[..e]` ends a line.
fn ends_line(text: &[u16], e: usize) -> bool {
    e > 0 && text[e - 1] == NL
}

/// The result of keeping `text[..e]` and `text[s..]` with the default notice of that cut.
fn candidate_fits(text: &[u16], limits: &Limits, position: Position, e: usize, s: usize) -> bool {
    let facts = naive_facts(text, limits, position, e, s);
    fits(charged(text, e, &default_notice(&facts), s), limits)
}

fn check_snapped(text: &[u16], limits: &Limits, strategy: Cut) -> Result<(), TestCaseError> {
    let Some(plan) = snapped(text, limits, strategy) else {
        prop_assert!(fits(naive_measure(text), limits));
        return Ok(());
    };
    let n = text.len();
    let result = apply(text, &plan);
    prop_assert!(fits(naive_measure(&result), limits), "{:?} over {:?}", String::from_utf16_lossy(&result), limits);
    prop_assert!(is_safe_cut(text, plan.head_end) && is_safe_cut(text, plan.tail_start));
    let (e, s) = (plan.head_end, plan.tail_start);
    // The head ends a line, or its last whole line would keep under 4/5 of it.
    if e > 0 && !ends_line(text, e) {
        let last_line_end = text[..e].iter().rposition(|&c| c == NL).map_or(0, |p| p + 1);
        prop_assert!(last_line_end * 5 < e * 4, "head {} not snapped though {} keeps 4/5", e, last_line_end);
    }
    // The tail starts a line, or its first whole line would keep under 4/5 of it.
    if s < n && s > 0 && text[s - 1] != NL {
        let first_line_start = text[s..].iter().position(|&c| c == NL).map_or(n, |p| s + p + 1);
        prop_assert!(
            first_line_start == n || (n - first_line_start) * 5 < (n - s) * 4,
            "tail {} not snapped though {} keeps 4/5",
            s,
            first_line_start
        );
    }
    // Maximal among snapped cuts: the next whole line does not fit with its own notice.
    match strategy {
        Cut::Head if e == 0 || ends_line(text, e) => {
            if let Some(p) = text[e..].iter().position(|&c| c == NL) {
                let next = e + p + 1;
                if next < n {
                    prop_assert!(
                        !candidate_fits(text, limits, Position::End, next, n),
                        "head {} could grow to {}",
                        e,
                        next
                    );
                }
            }
        }
        Cut::Tail if s > 0 && (s == n || text[s - 1] == NL) => {
            let before = text[..s - 1].iter().rposition(|&c| c == NL).map_or(0, |p| p + 1);
            if before > 0 {
                prop_assert!(
                    !candidate_fits(text, limits, Position::Start, 0, before),
                    "tail {} could grow to {}",
                    s,
                    before
                );
            }
        }
        _ => {}
    }
    Ok(())
}

#[test]
fn whole_lines_are_kept_and_one_long_line_still_shows_something() {
    let text = utf16(&"line of text\n".repeat(100));
    let limits = Limits { max_chars: 200, max_bytes: UNLIMITED, max_lines: UNLIMITED };
    let plan = snapped(&text, &limits, Cut::Head).unwrap();
    assert!(ends_line(&text, plan.head_end), "{}", plan.head_end);
    let plan = snapped(&text, &limits, Cut::Tail).unwrap();
    assert_eq!(text[plan.tail_start - 1], NL);
    // One line of 10,000 chars: snapping would keep nothing, so the cut is exact.
    let one = utf16(&"x".repeat(10_000));
    let plan = snapped(&one, &limits, Cut::Head).unwrap();
    assert!(plan.head_end > 100);
    // 4/5: a head of 100 exact units snaps back to a line end at 80 or beyond, not before.
    let mut text = utf16(&"a".repeat(79));
    text.push(NL);
    text.extend(utf16(&"b".repeat(500)));
    let limits = Limits { max_chars: 130, max_bytes: UNLIMITED, max_lines: UNLIMITED };
    let exact =
        toolclamp_core::plan(&Units::new(&text[..]), &limits, Cut::Head, &mut Notice::Default, true).unwrap().unwrap();
    let plan = snapped(&text, &limits, Cut::Head).unwrap();
    if 80 * 5 >= exact.head_end * 4 {
        assert_eq!(plan.head_end, 80);
    } else {
        assert!(plan.head_end >= exact.head_end.saturating_sub(40) && !ends_line(&text, plan.head_end));
    }
}

#[test]
fn a_snapped_head_tail_keeps_both_ends_on_whole_lines() {
    let text = utf16(&(0..200).map(|i| format!("line {i}\n")).collect::<String>());
    let limits = Limits { max_chars: UNLIMITED, max_bytes: 300, max_lines: UNLIMITED };
    let plan = snapped(&text, &limits, Cut::HeadTail { head_ratio: 0.5 }).unwrap();
    assert!(ends_line(&text, plan.head_end));
    assert_eq!(text[plan.tail_start - 1], NL);
    assert!(fits(naive_measure(&apply(&text, &plan)), &limits));
}

fn limit_of(total: u64) -> BoxedStrategy<u64> {
    prop_oneof![2 => Just(UNLIMITED), 1 => 0u64..8, 4 => 0..=total + 2].boxed()
}

proptest! {
    #![proptest_config(proptest_config("tests/proptest-regressions/snap.txt", 3000))]

    #[test]
    fn snapped_plans_fit_sit_on_lines_and_are_maximal(
        (text, limits) in text(30).prop_flat_map(|t| {
            let m = naive_measure(&t);
            let limits = (limit_of(m.chars), limit_of(m.bytes), limit_of(m.lines))
                .prop_map(|(max_chars, max_bytes, max_lines)| Limits { max_chars, max_bytes, max_lines });
            (Just(t), limits)
        }),
        strategy in prop_oneof![Just(Cut::Head), Just(Cut::Tail), (0.0f64..=1.0).prop_map(|head_ratio| Cut::HeadTail { head_ratio })],
    ) {
        check_snapped(&text, &limits, strategy)?;
    }
}
