//! Hand-picked cases: the exact output for small inputs, the fallback ladder, the seams,
//! windows, and inputs that must never panic. Every plan also goes through `check`, which
//! verifies all the definitions against the naive reference.

use crate::common;
use crate::reference;

use common::*;
use reference::*;
use toolclamp_core::{
    plan, Limits, Measure, Notice, NoticeFacts, Plan, Strategy, TemplateError, Units, Utf8, Windows, UNLIMITED,
};

const HEAD: Strategy = Strategy::Head;
const TAIL: Strategy = Strategy::Tail;
const MIDDLE: Strategy = Strategy::HeadTail { head_ratio: 0.5 };
const ALL: [Strategy; 5] =
    [HEAD, TAIL, MIDDLE, Strategy::HeadTail { head_ratio: 0.0 }, Strategy::HeadTail { head_ratio: 1.0 }];

/// Plans with the default notice and checks every invariant (brute-force maximality).
fn cut(text: &str, limits: Limits, strategy: Strategy) -> Plan {
    cut_units(&utf16(text), limits, strategy)
}

fn cut_units(units: &[u16], limits: Limits, strategy: Strategy) -> Plan {
    for exact in [false, true] {
        check(units, &limits, strategy, &NoticeKind::Default, exact, Maximality::Exact);
    }
    run_plan(units, &limits, strategy, &NoticeKind::Default, true).expect("the text exceeds the limits")
}

fn result(text: &str, p: &Plan) -> String {
    String::from_utf16(&apply(&utf16(text), p)).unwrap()
}

fn chars(n: u64) -> Limits {
    limits(Some(n), None, None)
}

fn bytes(n: u64) -> Limits {
    limits(None, Some(n), None)
}

fn lines(n: u64) -> Limits {
    limits(None, None, Some(n))
}

// ---------------------------------------------------------------------------------------
// The default notice
// ---------------------------------------------------------------------------------------

const FOUR_LINES: &str = "line1\nline2\nline3\nline4\n";

#[test]
fn head_keeps_whole_lines_and_counts_the_dropped_ones() {
    let p = cut(FOUR_LINES, lines(2), HEAD);
    assert_eq!(result(FOUR_LINES, &p), "line1\n[... 3 lines truncated at the end ...]");
    assert_eq!((p.head_end, p.tail_start), (6, 24));
    assert_eq!(p.omitted, Measure { chars: 18, bytes: 18, lines: 3 });
    assert_eq!(p.output, Measure { chars: 44, bytes: 44, lines: 2 });
}

#[test]
fn tail_puts_the_notice_on_its_own_line_before_the_kept_end() {
    let p = cut(FOUR_LINES, lines(2), TAIL);
    assert_eq!(result(FOUR_LINES, &p), "[... 3 lines truncated at the start ...]\nline4\n");
    assert_eq!(p.glue, "[... 3 lines truncated at the start ...]\n");
}

#[test]
fn head_tail_keeps_both_ends() {
    let p = cut(FOUR_LINES, lines(3), MIDDLE);
    assert_eq!(result(FOUR_LINES, &p), "line1\n[... 2 lines truncated in the middle ...]\nline4\n");
}

#[test]
fn an_unterminated_head_gets_the_notice_on_its_line_after_a_space() {
    let text = utf16(&"x".repeat(1_234_600));
    check(&text, &chars(100), HEAD, &NoticeKind::Default, false, Maximality::OneStep);
    let p = run_plan(&text, &chars(100), HEAD, &NoticeKind::Default, false).unwrap();
    // 53 kept + " " + a 46-char notice = 100 chars exactly.
    assert_eq!(p.glue, " [... 1,234,547 chars truncated at the end ...]");
    assert_eq!(p.head_end, 53);
    assert_eq!(p.output.chars, 100);
}

#[test]
fn the_notice_lists_lines_then_chars_then_bytes() {
    let text = "é\n".repeat(100); // 200 chars, 300 bytes, 100 lines
    for strategy in ALL {
        let p = cut(&text, limits(Some(120), Some(150), Some(60)), strategy);
        let (l, c, b) =
            (p.glue.find(" lines, ").unwrap(), p.glue.find(" chars, ").unwrap(), p.glue.find(" bytes ").unwrap());
        assert!(l < c && c < b, "{:?}", p.glue);
    }
    // Only the limits the input exceeds are listed.
    let p = cut(&text, limits(Some(120), Some(1000), Some(1000)), HEAD);
    assert!(!p.glue.contains("line") && !p.glue.contains("byte"), "{:?}", p.glue);
}

#[test]
fn a_line_cut_in_the_middle_is_not_counted_as_omitted() {
    // One long line: HeadTail shows its start and its end, so no whole line is dropped.
    let text = "y".repeat(500);
    let p = cut(&text, chars(100), MIDDLE);
    assert_eq!(p.omitted.lines, 0);
    assert!(p.head_end > 0 && p.tail_start < 500);
}

#[test]
fn a_notice_that_comes_out_shorter_only_grows_the_cut() {
    // Reserving 53 bytes for the notice gives a cut whose notice is 52 ("9 lines" instead of
    // "10 lines"). Re-splitting the freed byte from scratch would move the head/tail split
    // and bring "10 lines" back, so the planner must grow the cut it has instead: the head
    // ends at 2, not 1 (the old planner kept 1 and left a byte unused).
    let mut t: Vec<u16> = vec![99, 110, 103, 122, 10, 10, 10, 10];
    t.extend([120; 86]);
    t.extend([122, 108, 110, 233, 10, 26085, 26412, 113, 10, 122, 13, 233, 115, 109, 115, 121, 99, 119, 10, 100]);
    t.extend([116, 101, 0, 13, 10]);
    t.extend([120; 49]);
    t.extend([13, 10, 13, 100, 98, 106, 13, 10, 55357, 26085, 26412, 0, 10]);
    let limits = limits(None, Some(64), Some(3));
    let p = cut_units(&t, limits, Strategy::HeadTail { head_ratio: 0.0 });
    assert_eq!((p.head_end, p.tail_start), (2, 177));
    assert_eq!(p.output.bytes, 64);
}

// ---------------------------------------------------------------------------------------
// Tiny limits: the fallback ladder
// ---------------------------------------------------------------------------------------

#[test]
fn tiny_char_limits_fall_back_to_shorter_notices() {
    let text = "x".repeat(100);
    // (max_chars, head_end, glue)
    let ladder = [
        (40, 0, "[... 100 chars truncated at the end ...]"),
        (39, 19, " [... truncated ...]"),
        (20, 0, "[... truncated ...]"),
        (19, 0, "[... truncated ...]"),
        (18, 12, " [...]"),
        (6, 0, "[...]"),
        (5, 0, "[...]"),
        (4, 4, ""),
        (1, 1, ""),
        (0, 0, ""),
    ];
    for (max, head_end, glue) in ladder {
        let p = cut(&text, chars(max), HEAD);
        assert_eq!((p.head_end, p.glue.as_str()), (head_end, glue), "max_chars {max}");
    }
    for max in 0..=60 {
        for strategy in ALL {
            cut(&text, chars(max), strategy);
        }
    }
}

#[test]
fn zero_lines_leave_nothing() {
    for strategy in ALL {
        let p = cut("a\nb\nc", lines(0), strategy);
        assert_eq!(p.output, Measure::default());
        assert_eq!(apply(&utf16("a\nb\nc"), &p), Vec::<u16>::new());
    }
}

#[test]
fn tiny_byte_limits_never_split_an_astral_char() {
    let text = "😀😀😀"; // 6 units, 12 bytes
    assert_eq!(cut(text, bytes(4), HEAD).head_end, 2);
    assert_eq!(cut(text, bytes(3), HEAD).head_end, 0);
    assert_eq!(cut(text, bytes(4), TAIL).tail_start, 4);
    // 7 bytes fit "[...]" but not "[...]\n😀": the notice wins over a lone emoji.
    let p = cut(text, bytes(7), TAIL);
    assert_eq!((p.tail_start, p.glue.as_str()), (6, "[...]"));
    assert_eq!(cut(text, bytes(3), TAIL).tail_start, 6);
    for b in 0..12 {
        for strategy in ALL {
            cut(text, bytes(b), strategy);
        }
    }
}

#[test]
fn crlf_is_never_split_but_a_lone_cr_may_end_a_head() {
    assert_eq!(cut("ab\r\ncd", chars(3), HEAD).head_end, 2);
    assert_eq!(cut("ab\r\ncd", chars(3), TAIL).tail_start, 4);
    assert_eq!(cut("ab\rcd", chars(3), HEAD).head_end, 3);
    assert_eq!(cut("ab\rcd", chars(3), TAIL).tail_start, 2);
}

#[test]
fn lone_surrogates_pass_through_and_weigh_three_bytes() {
    let text = [0xDC00, b'a' as u16, 0xD800, b'b' as u16, 0xD800];
    assert_eq!(naive_measure(&text).bytes, 11);
    for b in 0..11 {
        for strategy in ALL {
            cut_units(&text, bytes(b), strategy);
        }
    }
    // Keeping the lone high at the end needs its 3 bytes.
    assert_eq!(cut_units(&text, bytes(4), TAIL).tail_start, 3);
    assert_eq!(cut_units(&text, bytes(3), TAIL).tail_start, 4);
}

#[test]
fn a_u64_max_minus_one_limit_is_a_limit() {
    // head_ratio 1.0 of u64::MAX - 1 rounds up to u64::MAX in f64: it must stay limited,
    // so the planner still counts bytes and reports them exactly.
    let text = [0xD83D, b'\r' as u16];
    let limits = Limits { max_chars: 1, max_bytes: UNLIMITED - 1, max_lines: UNLIMITED - 1 };
    for strategy in ALL {
        check(&text, &limits, strategy, &NoticeKind::Default, false, Maximality::Exact);
    }
    let p = run_plan(&text, &limits, Strategy::HeadTail { head_ratio: 1.0 }, &NoticeKind::Default, false).unwrap();
    assert_eq!(p.output.bytes, naive_measure(&apply(&text, &p)).bytes);
}

// ---------------------------------------------------------------------------------------
// No notice: the head runs on into the tail
// ---------------------------------------------------------------------------------------

#[test]
fn without_a_notice_the_heads_last_line_continues_the_tails_first() {
    // 4 chars leave no room for "[...]": "ab" + "cd" is one line, so both fit in 1 line.
    let p = cut("ab\ncd", limits(Some(4), None, Some(1)), MIDDLE);
    assert_eq!((p.head_end, p.tail_start, p.glue.as_str()), (2, 3, ""));
    assert_eq!(p.output, Measure { chars: 4, bytes: 4, lines: 1 });
    let p = cut("日本\n\n", lines(1), Strategy::HeadTail { head_ratio: 0.0 });
    assert_eq!(p.output.lines, 1);
}

#[test]
fn without_a_notice_lone_surrogates_at_the_seam_pair_up() {
    // A lone high ending the head and a lone low starting the tail make one 4-byte char.
    let text = [0xD83D, NL, 0xDE00];
    let p = cut_units(&text, limits(Some(2), Some(4), Some(1)), Strategy::HeadTail { head_ratio: 0.0 });
    assert_eq!((p.head_end, p.tail_start, p.glue.as_str()), (1, 2, ""));
    assert_eq!(p.output, Measure { chars: 2, bytes: 4, lines: 1 });
    for ratio in [0.0, 0.3, 0.5, 1.0] {
        let text = [0xD800, b'a' as u16, NL, 0xDC00, 0xDC00, b'b' as u16, 0xD800, 0xDC00];
        for b in 0..14 {
            for c in [2, 3, 4, UNLIMITED] {
                cut_units(&text, limits(Some(c), Some(b), None), Strategy::HeadTail { head_ratio: ratio });
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Templates and custom notices
// ---------------------------------------------------------------------------------------

#[test]
fn templates_render_from_the_cut() {
    let text = "x".repeat(100);
    let p = run_plan(&utf16(&text), &chars(40), HEAD, &NoticeKind::Template("<{omittedChars} of {totalChars}>"), true)
        .unwrap();
    assert_eq!(p.glue, format!("\n<{} of 100>", 100 - p.head_end));
    assert_eq!(p.output.chars, 40);
}

#[test]
fn a_template_ending_in_a_line_break_gets_no_second_one() {
    let text = "a\n".repeat(50);
    let p = run_plan(&utf16(&text), &lines(4), TAIL, &NoticeKind::Template("cut {omittedLines}\n"), true).unwrap();
    assert_eq!(p.glue, "cut 47\n");
    assert_eq!(p.output.lines, 4);
}

#[test]
fn bad_templates_are_rejected_even_when_nothing_is_cut() {
    let mut notice = Notice::Template("{nope}");
    let r = plan(&Units::new(&b"short"[..]), &Limits::NONE, HEAD, &mut notice, false);
    assert_eq!(r, Err(TemplateError::UnknownPlaceholder("nope".into())));
    let mut notice = Notice::Template("{omitted");
    let r = plan(&Units::new(&b"short"[..]), &chars(1), HEAD, &mut notice, false);
    assert_eq!(r, Err(TemplateError::UnclosedBrace));
}

#[test]
fn a_custom_notice_too_long_for_the_limits_falls_back() {
    let text = utf16(&"z".repeat(1000));
    let mut huge = |_: &NoticeFacts| "!".repeat(10_000);
    let p = plan(&Units::new(&text[..]), &chars(100), HEAD, &mut Notice::Custom(&mut huge), false).unwrap().unwrap();
    assert_eq!(p.glue, " [... truncated ...]");
    assert_eq!(p.head_end, 80);
}

#[test]
fn erratic_custom_notices_stay_within_every_limit() {
    let text: Vec<u16> = utf16(&"ab\ncd😀\r\n".repeat(40));
    for c in (0..300).step_by(7) {
        for l in [0, 1, 2, 5, 30, UNLIMITED] {
            for strategy in ALL {
                let limits = limits(Some(c), Some(c + 40), Some(l));
                check(&text, &limits, strategy, &NoticeKind::Erratic, false, Maximality::Skip);
            }
        }
    }
}

/// Plans with a notice that records the line numbers of every cut it is rendered for.
fn dropped_lines(text: &str, limits: Limits, strategy: Strategy) -> (Plan, (u64, u64)) {
    let units = utf16(text);
    let mut seen = Vec::new();
    let mut f = |facts: &NoticeFacts| {
        seen.push((facts.head_end, facts.tail_start, facts.from_line, facts.to_line));
        "[cut]".to_string()
    };
    let p = plan(&Units::new(&units[..]), &limits, strategy, &mut Notice::Custom(&mut f), false).unwrap().unwrap();
    let lines = seen.iter().rev().find(|s| (s.0, s.1) == (p.head_end, p.tail_start)).map(|s| (s.2, s.3)).unwrap();
    (p, lines)
}

#[test]
fn custom_notices_get_the_first_and_last_dropped_line() {
    // Head keeps lines 1-2: lines 3 to 10 are dropped.
    let ten: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    let (p, dropped) = dropped_lines(&ten, lines(3), HEAD);
    assert_eq!((p.head_end, p.tail_start, dropped), (14, 71, (3, 10)));
    // Tail keeps lines 9-10: lines 1 to 8.
    let (p, dropped) = dropped_lines(&ten, lines(3), TAIL);
    assert_eq!((p.head_end, p.tail_start, dropped), (0, 56, (1, 8)));
    // Both ends: the lines in between.
    let (p, dropped) = dropped_lines(&ten, lines(5), MIDDLE);
    assert_eq!((p.head_end, p.tail_start, dropped), (14, 56, (3, 8)));
}

#[test]
fn a_line_cut_mid_way_is_a_dropped_line() {
    // Cut inside line 2 ("bbbb…"): the dropped text starts on line 2.
    let text = format!("a\n{}\nc\n", "b".repeat(100));
    let (p, dropped) = dropped_lines(&text, chars(30), HEAD);
    assert!(p.head_end > 2 && p.head_end < 102, "{p:?}");
    assert_eq!(dropped, (2, 3));
    // A text without line breaks is one line.
    let (_, dropped) = dropped_lines(&"x".repeat(100), chars(30), MIDDLE);
    assert_eq!(dropped, (1, 1));
    // Without a final line break, the last line still counts.
    let (p, dropped) = dropped_lines("a\nb\nc", lines(1), HEAD);
    assert_eq!((p.head_end, dropped), (0, (1, 3)));
}

#[test]
fn templates_render_line_numbers_plain() {
    let text: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    let mut notice = Notice::Template("[lines {fromLine}–{toLine} dropped]");
    let p = plan(&Units::new(text.as_bytes()), &lines(11), HEAD, &mut notice, false).unwrap().unwrap();
    assert_eq!(p.glue, "[lines 11–2500 dropped]");
    let mut notice = Notice::Template("{fromLine}-{toLine}");
    let p = plan(&Units::new(text.as_bytes()), &lines(3), TAIL, &mut notice, false).unwrap().unwrap();
    // The notice takes one of the 3 lines: the tail keeps lines 2,499 and 2,500.
    assert_eq!(p.glue, "1-2498\n");
}

#[test]
fn utf8_sources_number_lines_like_utf16() {
    let text = "é\n日本\r\n😀😀😀\nlast line here\n";
    for c in 0..40 {
        for strategy in ALL {
            let limits = chars(c);
            let mut wide = Vec::new();
            let mut f = |facts: &NoticeFacts| {
                wide.push((facts.from_line, facts.to_line));
                String::new()
            };
            plan(&Units::new(&utf16(text)[..]), &limits, strategy, &mut Notice::Custom(&mut f), false).unwrap();
            let mut narrow = Vec::new();
            let mut f = |facts: &NoticeFacts| {
                narrow.push((facts.from_line, facts.to_line));
                String::new()
            };
            plan(&Utf8::new(text), &limits, strategy, &mut Notice::Custom(&mut f), false).unwrap();
            assert_eq!(wide, narrow, "{c} {strategy:?}");
        }
    }
}

#[test]
#[should_panic(expected = "needs the whole text")]
fn windows_refuse_notices_with_line_numbers() {
    // Windows know no line totals: a template naming lines must not get made-up numbers.
    let text = utf16("ab\ncd\nef");
    let src = Windows::new(&text[..], &text[..], text.len());
    let _ = plan(&src, &chars(4), HEAD, &mut Notice::Template("{toLine}"), false);
}

// ---------------------------------------------------------------------------------------
// Windows
// ---------------------------------------------------------------------------------------

/// Plans `text` through windows `w` units wide with a chars-only limit `k`.
fn windowed(text: &[u16], k: u64, w: usize, strategy: Strategy) -> Option<Plan> {
    let n = text.len();
    let w = w.min(n);
    let src = Windows::new(&text[..w], &text[n - w..], n);
    plan(&src, &chars(k), strategy, &mut Notice::Default, false).unwrap()
}

#[test]
fn windows_of_the_char_budget_plan_like_the_whole_text() {
    let text = utf16(&"ab\ncd😀é日".repeat(40));
    for k in 0..120 {
        for strategy in ALL {
            let whole = run_plan(&text, &chars(k), strategy, &NoticeKind::Default, false);
            // Windows know no byte or line totals: compare the cut and the glue.
            let key = |p: Option<Plan>| p.map(|p| (p.head_end, p.tail_start, p.glue));
            for w in [k as usize + 1, k as usize + 7] {
                assert_eq!(key(windowed(&text, k, w, strategy)), key(whole.clone()), "k {k}, {strategy:?}");
            }
        }
    }
}

#[test]
fn windows_exactly_the_budget_wide_never_panic() {
    // What the JS side passes: windows of exactly max_chars, even 0, on a long text.
    let texts = [
        utf16(&"x".repeat(100)),
        utf16(&"ab\r\n".repeat(25)),
        utf16(&"😀".repeat(50)),
        [0xDC00u16, 0xD800].repeat(50),
        utf16(&"line\n".repeat(20)),
    ];
    for text in &texts {
        for k in 0..12 {
            for strategy in ALL {
                let p = windowed(text, k, k as usize, strategy).expect("100 units exceed the budget");
                assert!(is_safe_cut(text, p.head_end) && is_safe_cut(text, p.tail_start));
                assert!(apply(text, &p).len() as u64 <= k);
                assert_eq!(p.omitted.chars, (p.tail_start - p.head_end) as u64);
            }
        }
    }
}

#[test]
fn a_window_edge_next_to_half_a_pair_is_not_cut() {
    // With 3-unit windows the unit after "ab\r" is unknown: it might be "\n", so the plan
    // keeps "ab". The whole-text plan sees "x" and keeps "ab\r".
    let text = utf16(&format!("ab\rx{}", "y".repeat(50)));
    assert_eq!(windowed(&text, 3, 3, HEAD).unwrap().head_end, 2);
    assert_eq!(run_plan(&text, &chars(3), HEAD, &NoticeKind::Default, false).unwrap().head_end, 3);
    // One more unit of window makes them agree.
    assert_eq!(windowed(&text, 3, 4, HEAD).unwrap().head_end, 3);
    // Mirror image at the tail window's edge: a lone low surrogate might pair with the unit before.
    let mut text = utf16(&"y".repeat(50));
    text.extend([b'x' as u16, 0xDC00, b'a' as u16, b'b' as u16]);
    assert_eq!(windowed(&text, 3, 3, TAIL).unwrap().tail_start, text.len() - 2);
    assert_eq!(windowed(&text, 3, 4, TAIL).unwrap().tail_start, text.len() - 3);
}

// ---------------------------------------------------------------------------------------
// Never panics
// ---------------------------------------------------------------------------------------

const EDGE_LIMITS: [u64; 8] = [0, 1, 2, 3, 5, 64, UNLIMITED - 1, UNLIMITED];

fn plan_everything(units: &[u16], maximality: Maximality) {
    for &c in &EDGE_LIMITS {
        for &b in &EDGE_LIMITS {
            for &l in &EDGE_LIMITS {
                for strategy in ALL {
                    let limits = Limits { max_chars: c, max_bytes: b, max_lines: l };
                    check(units, &limits, strategy, &NoticeKind::Default, false, maximality);
                }
            }
        }
    }
}

#[test]
fn odd_inputs_never_panic() {
    let inputs: Vec<Vec<u16>> = vec![
        vec![],
        utf16("\n"),
        utf16(&"\n".repeat(300)),
        utf16(&"\r\n".repeat(100)),
        utf16(&"\r".repeat(100)),
        vec![0; 200],
        vec![0xD800; 100],
        vec![0xDC00; 100],
        [0xDC00, 0xD800].repeat(60),
        utf16(&"😀".repeat(80)),
        utf16(&"日本語\n".repeat(30)),
        utf16("no newline at all, just one line"),
    ];
    for units in &inputs {
        plan_everything(units, Maximality::Exact);
    }
}

#[test]
fn odd_head_ratios_never_panic() {
    let text = utf16(&"abc\n😀\n".repeat(30));
    for head_ratio in [0.0, 1.0, 0.5, -1.0, 2.0, f64::NAN, f64::INFINITY, 1e-300, 0.999_999] {
        for limits in [chars(17), bytes(40), lines(3), limits(Some(3), Some(3), Some(3))] {
            check(&text, &limits, Strategy::HeadTail { head_ratio }, &NoticeKind::Default, true, Maximality::OneStep);
        }
    }
}

#[test]
fn a_one_megabyte_line_never_panics() {
    let mut text = utf16(&"x".repeat(1 << 20));
    let cases = [
        chars(0),
        chars(3),
        chars(1000),
        bytes(4),
        bytes(1000),
        lines(0),
        lines(1),
        limits(Some(UNLIMITED - 1), Some(1 << 19), Some(UNLIMITED - 1)),
        limits(Some(500_000), Some(700_000), Some(1)),
    ];
    for limits in cases {
        for strategy in ALL {
            check(&text, &limits, strategy, &NoticeKind::Default, false, Maximality::OneStep);
        }
    }
    // The same with astral chars, lone surrogates, NULs and a final newline mixed in.
    for i in (0..text.len()).step_by(997) {
        text[i] = [0xD83D, 0xDE00, 0xDC00, 0, b'\r' as u16][i % 5];
    }
    text.push(NL);
    for limits in cases {
        for strategy in ALL {
            check(&text, &limits, strategy, &NoticeKind::Default, true, Maximality::OneStep);
        }
    }
}

#[test]
fn an_empty_text_fits_every_limit() {
    for &c in &EDGE_LIMITS {
        let limits = Limits { max_chars: c, max_bytes: 0, max_lines: 0 };
        assert_eq!(plan(&Units::new(&[] as &[u16]), &limits, HEAD, &mut Notice::Default, true), Ok(None));
        assert_eq!(plan(&Units::new(&[] as &[u8]), &limits, TAIL, &mut Notice::Default, true), Ok(None));
    }
}

#[test]
fn a_template_shortest_when_nothing_is_kept_is_used_rather_than_a_fallback() {
    // Rendered from the first estimate ({headEnd} = the length) the template is too long
    // for 7 chars, but with nothing kept it is "<0|100>", which fits exactly.
    let text = "x".repeat(100);
    let p = run_plan(&utf16(&text), &chars(7), HEAD, &NoticeKind::Template("<{headEnd}|{tailStart}>"), true)
        .expect("the text exceeds the limits");
    assert_eq!(result(&text, &p), "<0|100>");
}

#[test]
fn a_head_naming_its_offset_keeps_the_longest_cut_whose_own_notice_fits() {
    // Rendered from the estimate ({headEnd} = 100) the notice is 9 chars and the head 8;
    // "<8|100>" frees 2, but a head of 10 needs "<10|100>" and does not fit. The head of 9
    // in between fits with its own "<9|100>": 9 + 1 + 7 = 17 <= 18.
    let text = "x".repeat(100);
    let kind = NoticeKind::Template("<{headEnd}|{tailStart}>");
    for exact in [false, true] {
        let p = check(&utf16(&text), &chars(18), HEAD, &kind, exact, Maximality::Exact).unwrap();
        assert_eq!((p.head_end, p.glue.as_str()), (9, "\n<9|100>"));
    }
}

#[test]
fn a_head_naming_its_first_dropped_line_keeps_the_longest_cut_whose_own_notice_fits() {
    // truncateText('a\n'.repeat(10), { maxChars: 19, notice: '{fromLine}' }): a head of 16
    // ("9", 17 chars) leaves room for 18, whose notice "10" does not fit; 17 (an open
    // line: 17 + "\n" + "9" = 19) does.
    let text = utf16(&"a\n".repeat(10));
    let kind = NoticeKind::Template("{fromLine}");
    let p = check(&text, &chars(19), HEAD, &kind, false, Maximality::Exact).unwrap();
    assert_eq!((p.head_end, p.glue.as_str(), p.output.chars), (17, "\n9", 19));
    // Through the core API as the binding calls it.
    let mut notice = Notice::Template("{fromLine}");
    let p = plan(&Units::new(&text[..]), &chars(19), HEAD, &mut notice, false).unwrap().unwrap();
    assert_eq!(p.head_end, 17);
}

#[test]
fn a_notice_function_is_called_a_bounded_number_of_times() {
    // Any length at all, any cut: the search past the first fitting cut stops.
    let text = utf16(&"ab\ncd😀\r\n".repeat(500));
    for strategy in ALL {
        for c in [0, 10, 100, 1000, 3000] {
            let mut calls = 0;
            let mut f = |facts: &NoticeFacts| {
                calls += 1;
                "#".repeat((facts.head_end * 7 + facts.tail_start * 3) % 97)
            };
            plan(&Units::new(&text[..]), &chars(c), strategy, &mut Notice::Custom(&mut f), false).unwrap();
            assert!(calls <= toolclamp_core::MAX_FUNCTION_CALLS, "{calls} calls: {strategy:?} {c}");
        }
    }
}
