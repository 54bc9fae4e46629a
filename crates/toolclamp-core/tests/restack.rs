//! Clamps stacked on clamps (`restack`): whatever strategies, limits and snapping two or
//! three clamps in a row use, the last result carries one notice, within its limits, whose
//! counts are those of the ORIGINAL text in every unit it names.
//!
//! A head that ended inside a line has its notice on that line after a space, so the text
//! tells where every kept head ends: the counts are exact, with no char over.

use crate::common;
use crate::reference;

use common::*;
use proptest::prelude::*;
use reference::*;
use toolclamp_core::{find_prior, plan_restacked, plan_with_snap, Limits, Notice, Plan, Snap, Units, UNLIMITED};
// `Strategy` is proptest's generator trait here; the core's cut strategy is `Cut`.
use toolclamp_core::Strategy as Cut;

/// One clamp: strategy, limits, snapping.
#[derive(Clone, Debug)]
struct Clamp {
    strategy: Cut,
    limits: Limits,
    snap: Snap,
}

fn clamp() -> impl Strategy<Value = Clamp> {
    let strategy = prop_oneof![
        Just(Cut::Head),
        Just(Cut::Tail),
        Just(Cut::HeadTail { head_ratio: 0.5 }),
        Just(Cut::HeadTail { head_ratio: 0.3 }),
    ];
    let limit = |lo: u64, hi: u64| prop_oneof![1 => Just(UNLIMITED), 1 => lo..hi];
    (strategy, limit(30, 260), limit(30, 400), limit(2, 14), any::<bool>())
        .prop_filter("some limit", |(_, c, b, l, _)| [c, b, l].iter().any(|&&x| x != UNLIMITED))
        .prop_map(|(strategy, c, b, l, snap)| Clamp {
            strategy,
            limits: Limits { max_chars: c, max_bytes: b, max_lines: l },
            snap: if snap { Snap::Line } else { Snap::None },
        })
}

/// A text of the chain and what it keeps of the original's head: `original[..head]`.
struct Stage {
    text: Vec<u16>,
    head: usize,
}

/// The counts a notice names, read independently of the core: `(lines, chars, bytes)`.
fn named_counts(notice: &str) -> (Option<u64>, Option<u64>, Option<u64>) {
    let body = notice.strip_prefix("[... ").expect("a counted notice");
    let phrase = body.split(" truncated ").next().unwrap();
    let mut counts = (None, None, None);
    for part in phrase.split(", ") {
        let (n, unit) = part.split_once(' ').unwrap();
        let n: u64 = n.replace(',', "").parse().unwrap();
        match unit.trim_end_matches('s') {
            "line" => counts.0 = Some(n),
            "char" => counts.1 = Some(n),
            "byte" => counts.2 = Some(n),
            other => panic!("unit {other} in {notice}"),
        }
    }
    counts
}

/// A notice with counts (not a fallback).
fn counted(notice: &str) -> bool {
    notice.starts_with("[... ") && notice.as_bytes().get(5).is_some_and(u8::is_ascii_digit)
}

/// The notice of a result (its glue without the separators).
fn notice_in(text: &[u16], plan: &Plan) -> String {
    notice_of(text, plan).trim_end_matches('\n').to_string()
}

/// Applies `c` to the stage's text; `None` when the chain ends (the text fits, or the last
/// notice was a fallback that counts nothing).
fn next_stage(original: &[u16], stage: &Stage, c: &Clamp) -> Result<Option<Stage>, TestCaseError> {
    let text = &stage.text;
    let Some(prior) = find_prior(text) else {
        // The library's own notices are always read back.
        prop_assert!(false, "no notice read in {:?}", String::from_utf16_lossy(text));
        unreachable!()
    };
    prop_assert_eq!(prior.notices, 1);
    if fits(naive_measure(text), &c.limits) {
        return Ok(None);
    }
    let plan = plan_restacked(text, &prior, &c.limits, c.strategy, &mut Notice::Default, c.snap).unwrap();
    let result = apply(text, &plan);
    prop_assert!(
        fits(naive_measure(&result), &c.limits),
        "{:?} over {:?}",
        String::from_utf16_lossy(&result),
        c.limits
    );
    prop_assert!(plan.head_end <= prior.head_end && plan.tail_start >= prior.tail_start);
    let notice = notice_in(text, &plan);
    if !counted(&notice) {
        return Ok(None);
    }
    // What the new cut keeps of the original: the text before the gap is the original's head.
    prop_assert_eq!(&text[..prior.head_end], &original[..stage.head]);
    let head = plan.head_end;
    let tail = text.len() - plan.tail_start;
    check_counts(original, &notice, head, tail)?;
    let next = Stage { text: result, head };
    // One notice, read back as such.
    prop_assert_eq!(find_prior(&next.text).map(|p| p.notices), Some(1));
    Ok(Some(next))
}

/// The notice counts `original` minus `original[..head]` and its last `tail` units.
fn check_counts(original: &[u16], notice: &str, head: usize, tail: usize) -> Result<(), TestCaseError> {
    let n = original.len();
    let truth = naive_omitted(original, head, n - tail);
    let (lines, chars, bytes) = named_counts(notice);
    let context = || format!("{notice:?} for {:?} keeping {head}+{tail}", String::from_utf16_lossy(original));
    if let Some(lines) = lines {
        prop_assert_eq!(lines, truth.lines, "lines: {}", context());
    }
    if let Some(chars) = chars {
        prop_assert_eq!(chars, truth.chars, "chars: {}", context());
    }
    if let Some(bytes) = bytes {
        prop_assert_eq!(bytes, truth.bytes, "bytes: {}", context());
    }
    let place = match (head > 0, tail > 0) {
        (true, true) => Some("in the middle"),
        (true, false) => Some("at the end"),
        (false, true) => Some("at the start"),
        (false, false) => None,
    };
    if let Some(place) = place {
        prop_assert!(notice.contains(place), "{} is not {place}", context());
    }
    Ok(())
}

/// The first clamp, of the plain text.
fn first_stage(original: &[u16], c: &Clamp) -> Option<Stage> {
    let plan =
        plan_with_snap(&Units::new(original), &c.limits, c.strategy, &mut Notice::Default, true, c.snap).unwrap()?;
    let notice = notice_in(original, &plan);
    counted(&notice).then(|| Stage { text: apply(original, &plan), head: plan.head_end })
}

fn run_chain(original: &[u16], clamps: &[Clamp]) -> Result<(), TestCaseError> {
    let Some(mut stage) = first_stage(original, &clamps[0]) else { return Ok(()) };
    for c in &clamps[1..] {
        match next_stage(original, &stage, c)? {
            Some(next) => stage = next,
            None => break,
        }
    }
    Ok(())
}

/// Text with notices of every format (and near misses) anywhere in it.
fn noticed_text() -> impl Strategy<Value = Vec<u16>> {
    let notice = prop_oneof![
        Just("\n[... 5 bytes truncated at the end ...]"),
        Just(" [... 5 bytes truncated at the end ...]"),
        Just(" [... 2 chars truncated in the middle ...]\n"),
        Just(" [... 3 lines truncated at the end; full output saved to /s (dropped: lines 2–4) ...]"),
        Just("\n[... 1 line truncated in the middle ...]\n"),
        Just("[... 2 lines, 3 chars truncated at the start ...]\n"),
        Just("\n[... 4 chars truncated from stdout ...]\n"),
        Just("\n[... 7 bytes of this tool output cut to fit the context window; full output saved to /x ...]\n"),
        Just("\n[... 3 lines truncated at the end; full output saved to /s (dropped: lines 2–4) ...]"),
        Just("\n[... 9 chars, 12 bytes truncated at the middle; full output saved to (not saved) (dropped: lines 1–1) ...]\n"),
        Just("\n[... 6 lines truncated from stderr; full stderr saved to /e (dropped: lines 1–6) ...]\n"),
        Just("\n[... 8 bytes truncated in the middle; full output saved to /r ...]\n"),
        Just("\n[... truncated ...]\n"),
        Just("\n[... 5 bytes truncated at the top ...]\n"),
    ];
    prop::collection::vec(prop_oneof![4 => piece(), 1 => notice.prop_map(utf16)], 0..40).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(proptest_config("tests/proptest-regressions/restack.txt", 3000))]

    /// Whatever notices a text holds, a plan around them is within the limits, keeps text
    /// only from around their gap, and leaves one notice (or a fallback).
    #[test]
    fn any_notices_plan_within_limits(text in noticed_text(), c in clamp()) {
        let Some(prior) = find_prior(&text) else { return Ok(()) };
        prop_assert!(prior.head_end < prior.tail_start && prior.tail_start <= text.len());
        if fits(naive_measure(&text), &c.limits) {
            return Ok(());
        }
        let plan = plan_restacked(&text, &prior, &c.limits, c.strategy, &mut Notice::Default, c.snap).unwrap();
        let result = apply(&text, &plan);
        prop_assert!(fits(naive_measure(&result), &c.limits));
        prop_assert!(plan.head_end <= prior.head_end && plan.tail_start >= prior.tail_start);
        prop_assert!(is_safe_cut(&text, plan.head_end) || plan.head_end == prior.head_end);
        prop_assert!(is_safe_cut(&text, plan.tail_start) || plan.tail_start == prior.tail_start);
        prop_assert_eq!(plan.output, naive_measure(&result));
        prop_assert_eq!(plan.total, naive_measure(&text));
        if counted(&notice_in(&text, &plan)) {
            prop_assert_eq!(find_prior(&result).map(|p| p.notices), Some(1));
        }
    }

    #[test]
    fn two_clamps_count_the_original(original in text(80), a in clamp(), b in clamp()) {
        run_chain(&original, &[a, b])?;
    }

    #[test]
    fn three_clamps_count_the_original(original in text(80), a in clamp(), b in clamp(), c in clamp()) {
        run_chain(&original, &[a, b, c])?;
    }
}

/// A text made of `lines` lines of `width` ASCII chars.
fn lines_of(lines: usize, width: usize) -> Vec<u16> {
    (0..lines).flat_map(|i| format!("{:0width$}\n", i, width = width - 1).encode_utf16().collect::<Vec<_>>()).collect()
}

#[test]
fn a_head_cut_of_a_head_cut_counts_the_original() {
    let original = lines_of(1000, 10);
    let first = Clamp { strategy: Cut::Head, limits: limits(None, Some(2000), Some(100)), snap: Snap::Line };
    let stage = first_stage(&original, &first).unwrap();
    let text = String::from_utf16_lossy(&stage.text);
    assert!(text.ends_with("\n[... 901 lines, 9,010 bytes truncated at the end ...]"), "{text}");
    let second = Clamp { strategy: Cut::Head, limits: limits(None, Some(500), None), snap: Snap::Line };
    let next = next_stage(&original, &stage, &second).unwrap().unwrap();
    let text = String::from_utf16_lossy(&next.text);
    // 45 lines and the notice fit 500 bytes; the original had 10,000 bytes.
    assert!(text.ends_with("\n[... 9,550 bytes truncated at the end ...]"), "{text}");
    assert_eq!(text.matches("[... ").count(), 1);
}

#[test]
fn a_head_cut_of_a_tail_cut_keeps_the_tail_it_has() {
    let original = lines_of(1000, 10);
    let first = Clamp { strategy: Cut::Tail, limits: limits(None, None, Some(101)), snap: Snap::Line };
    let stage = first_stage(&original, &first).unwrap();
    let second = Clamp { strategy: Cut::Head, limits: limits(None, None, Some(11)), snap: Snap::Line };
    let next = next_stage(&original, &stage, &second).unwrap().unwrap();
    let text = String::from_utf16_lossy(&next.text);
    // Only the end of the original is there: the head cut keeps the last 10 lines of it.
    assert!(text.starts_with("[... 990 lines truncated at the start ...]\n000000990\n"), "{text}");
    assert!(text.ends_with("000000999\n"));
}

#[test]
fn a_wider_budget_keeps_all_the_text_around_the_gap() {
    let original = lines_of(1000, 10);
    let first =
        Clamp { strategy: Cut::HeadTail { head_ratio: 0.5 }, limits: limits(None, None, Some(21)), snap: Snap::Line };
    let stage = first_stage(&original, &first).unwrap();
    let before = String::from_utf16_lossy(&stage.text);
    assert!(before.contains("\n[... 980 lines truncated in the middle ...]\n"), "{before}");
    // The text is over 15 lines; 50 would hold the original's 1,000 no more than 21 did.
    let second = Clamp { strategy: Cut::Head, limits: limits(None, None, Some(15)), snap: Snap::Line };
    let next = next_stage(&original, &stage, &second).unwrap().unwrap();
    let text = String::from_utf16_lossy(&next.text);
    assert!(text.contains("\n[... 986 lines truncated in the middle ...]\n"), "{text}");
}

#[test]
fn the_spill_file_an_earlier_notice_named_is_named_again() {
    let head: String = (0..50).map(|i| format!("line {i}\n")).collect();
    let text = format!(
        "{head}[... 950 lines truncated at the end; full output saved to /tmp/s/find-1.toolclamp-spill.txt (dropped: lines 51–1000) ...]"
    );
    let units: Vec<u16> = text.encode_utf16().collect();
    let prior = find_prior(&units).unwrap();
    assert_eq!(prior.total.lines, 1000);
    let limits = limits(None, None, Some(11));
    let plan = plan_restacked(&units, &prior, &limits, Cut::Head, &mut Notice::Default, Snap::Line).unwrap();
    assert_eq!(
        plan.glue,
        "[... 990 lines truncated at the end; full output saved to /tmp/s/find-1.toolclamp-spill.txt ...]"
    );
    // A spill notice of the caller's own (naming a file of what it was given) gives way.
    let own = "[... {omitted} truncated at the {where}; full output saved to /tmp/s/new.txt (dropped: lines {fromLine}–{toLine}) ...]";
    let again = plan_restacked(&units, &prior, &limits, Cut::Head, &mut Notice::Template(own), Snap::Line).unwrap();
    assert_eq!(again.glue, plan.glue);
    // A template of the caller's own is rendered with the original's counts.
    let mine = plan_restacked(
        &units,
        &prior,
        &limits,
        Cut::Head,
        &mut Notice::Template("<{omittedLines} of {totalLines}>"),
        Snap::Line,
    )
    .unwrap();
    assert_eq!(mine.glue, "<990 of 1,000>");
    // The plan's own counts are those of the text given.
    assert_eq!(plan.total, naive_measure(&units));
    assert_eq!(plan.total.lines - plan.omitted.lines, 10);
}

#[test]
fn an_inline_notice_after_a_line_that_looks_like_a_notice_is_the_one_read() {
    // The head ends inside a line that held notice-like text: read from its start, that text
    // runs into the inline notice as its "path"; the notice read is the one written last.
    let text = utf16("x\nnote: [... 3 lines truncated at the end; full output saved to [... 57 bytes truncated in the middle ...]\na");
    let prior = find_prior(&text).unwrap();
    assert_eq!(prior.notices, 1);
    assert_eq!(prior.head_end, "x\nnote: [... 3 lines truncated at the end; full output saved to".len());
    // Kept: all but the space, the 42-char notice and its line break.
    assert_eq!(prior.total.bytes, text.len() as u64 - 44 + 57);
}

#[test]
fn a_kept_tail_never_starts_with_notice_like_text_from_inside_a_line() {
    // Cut just before its '[', the tail's first line would read as a second notice.
    let text =
        utf16("head\n[... 100 chars truncated in the middle ...]\nx[... 2 chars truncated in the middle ...]\nend");
    let prior = find_prior(&text).unwrap();
    for max_chars in 30..text.len() as u64 {
        let limits = limits(Some(max_chars), None, None);
        let plan = plan_restacked(&text, &prior, &limits, Cut::Tail, &mut Notice::Default, Snap::None).unwrap();
        let out = apply(&text, &plan);
        assert!(fits(naive_measure(&out), &limits));
        if counted(&notice_in(&text, &plan)) {
            assert_eq!(find_prior(&out).map(|p| p.notices), Some(1), "{:?}", String::from_utf16_lossy(&out));
        }
    }
}
