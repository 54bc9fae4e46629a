//! The invariant checker shared by the example tests and the property tests: plan a text
//! and check every definition the core promises against the naive reference.
#![allow(dead_code)]

use crate::reference::*;
use toolclamp_core::{plan, Dims, Limits, Notice, Plan, Strategy, Units, UNLIMITED};

pub const FALLBACKS: [&str; 3] = ["[... truncated ...]", "[...]", ""];

/// Which notice to plan with.
#[derive(Clone, Debug)]
pub enum NoticeKind {
    Default,
    Template(&'static str),
    /// A closure whose output length swings with the omitted chars.
    Erratic,
}

pub fn where_of(strategy: Strategy) -> &'static str {
    match strategy {
        Strategy::Head => "at the end",
        Strategy::Tail => "at the start",
        Strategy::HeadTail { .. } => "in the middle",
    }
}

/// A notice whose length depends wildly on the cut: 0 to 54 chars, sometimes with line
/// breaks and astral chars, so re-planning never settles on a stable length.
pub fn erratic_notice(omitted_chars: u64) -> String {
    match omitted_chars % 7 {
        0 => String::new(),
        1 => "😀".repeat(9),
        2 => "cut\n".to_string(),
        3 => "x".repeat(54),
        4 => "\nmiddle\nlines\n".to_string(),
        5 => "é".into(),
        _ => format!("[{omitted_chars} dropped]"),
    }
}

pub fn run_plan(units: &[u16], limits: &Limits, strategy: Strategy, kind: &NoticeKind, exact: bool) -> Option<Plan> {
    match kind {
        NoticeKind::Default => plan(&Units::new(units), limits, strategy, &mut Notice::Default, exact).unwrap(),
        NoticeKind::Template(t) => plan(&Units::new(units), limits, strategy, &mut Notice::Template(t), exact).unwrap(),
        NoticeKind::Erratic => {
            let mut f = |facts: &toolclamp_core::NoticeFacts| erratic_notice(facts.omitted.chars);
            plan(&Units::new(units), limits, strategy, &mut Notice::Custom(&mut f), exact).unwrap()
        }
    }
}

/// How far the kept text must reach. `Exact` is the brute-force differential check (small
/// texts only); `OneStep` checks that neither kept side can grow by one safe step.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Maximality {
    Exact,
    OneStep,
    Skip,
}

/// Plans `units` and checks every invariant. Returns the plan for further checks.
pub fn check(
    units: &[u16],
    limits: &Limits,
    strategy: Strategy,
    kind: &NoticeKind,
    exact: bool,
    maximality: Maximality,
) -> Option<Plan> {
    let n = units.len();
    let total = naive_measure(units);
    let p = run_plan(units, limits, strategy, kind, exact);

    // Identity exactly when the input is within every limit.
    let Some(p) = p else {
        assert!(fits(total, limits), "the input exceeds {limits:?} ({total:?}) but no cut was planned");
        return None;
    };
    assert!(!fits(total, limits), "the input fits {limits:?} ({total:?}) but a cut was planned: {p:?}");
    assert_eq!(p.total, total, "total");
    let mut by = Dims::default();
    if total.chars > limits.max_chars {
        by.insert(Dims::CHARS);
    }
    if total.bytes > limits.max_bytes {
        by.insert(Dims::BYTES);
    }
    if total.lines > limits.max_lines {
        by.insert(Dims::LINES);
    }
    assert_eq!(p.truncated_by, by, "truncated_by");

    // Faithful: an unmodified prefix and suffix around the glue.
    assert!(p.head_end <= p.tail_start && p.tail_start <= n, "offsets out of order: {p:?}");
    match strategy {
        Strategy::Head => assert_eq!(p.tail_start, n, "Head keeps no tail"),
        Strategy::Tail => assert_eq!(p.head_end, 0, "Tail keeps no head"),
        Strategy::HeadTail { .. } => {}
    }

    // Safe cuts.
    assert!(is_safe_cut(units, p.head_end), "head_end {} splits a pair or \\r\\n", p.head_end);
    assert!(is_safe_cut(units, p.tail_start), "tail_start {} splits a pair or \\r\\n", p.tail_start);

    // Hard clamp, measured on the real result.
    let result = apply(units, &p);
    let out = naive_measure(&result);
    assert!(fits(out, limits), "result {out:?} exceeds {limits:?}: {p:?}");

    // Separator rule.
    let notice = notice_of(units, &p);
    let (head, tail) = (&units[..p.head_end], &units[p.tail_start..]);
    assert_eq!(glue(head, &notice, tail), utf16(&p.glue), "glue breaks the separator rule: {p:?}");

    // Reported measures: exact in every dimension when asked, else in the limited ones.
    let omitted = naive_omitted(units, p.head_end, p.tail_start);
    let dims = [
        (exact || limits.max_chars != UNLIMITED, "chars", out.chars, p.output.chars, omitted.chars, p.omitted.chars),
        (exact || limits.max_bytes != UNLIMITED, "bytes", out.bytes, p.output.bytes, omitted.bytes, p.omitted.bytes),
        (exact || limits.max_lines != UNLIMITED, "lines", out.lines, p.output.lines, omitted.lines, p.omitted.lines),
    ];
    for (checked, name, out_naive, out_plan, om_naive, om_plan) in dims {
        if checked {
            assert_eq!(out_plan, out_naive, "output {name}: {p:?}");
            assert_eq!(om_plan, om_naive, "omitted {name}: {p:?}");
        }
    }

    // Honest notice: the caller's notice rendered from this very cut, or a fallback.
    // (With a tail, the glue's trailing line break may be the separator, not the notice.)
    let bare = notice.strip_suffix('\n').unwrap_or(&notice);
    if !FALLBACKS.contains(&bare) {
        match kind {
            NoticeKind::Default => {
                assert_eq!(bare, expected_default_notice(&p, where_of(strategy)), "dishonest notice: {p:?}")
            }
            NoticeKind::Template(_) | NoticeKind::Erratic => {}
        }
    }

    match maximality {
        Maximality::Skip => {}
        Maximality::Exact if strategy == Strategy::Head => {
            assert_eq!(p.head_end, longest_head(units, &notice, limits), "head not maximal: {p:?}");
        }
        Maximality::Exact if strategy == Strategy::Tail => {
            assert_eq!(p.tail_start, longest_tail(units, &notice, limits), "tail not maximal: {p:?}");
        }
        Maximality::Exact | Maximality::OneStep => check_one_step(units, &p, strategy, &notice, limits),
    }
    Some(p)
}

/// Neither kept side can grow to the next safe cut without breaking a limit.
pub fn check_one_step(units: &[u16], p: &Plan, strategy: Strategy, notice: &str, limits: &Limits) {
    // Tail keeps no head and Head no tail; HeadTail may grow either side up to the other.
    if strategy != Strategy::Tail && p.head_end < p.tail_start {
        let e = next_safe(units, p.head_end);
        if e <= p.tail_start {
            let grown = naive_measure(&assemble(units, e, notice, p.tail_start));
            assert!(!fits(grown, limits), "head could grow to {e} ({grown:?} fits {limits:?}): {p:?}");
        }
    }
    if strategy != Strategy::Head && p.head_end < p.tail_start {
        let s = prev_safe(units, p.tail_start);
        if s >= p.head_end {
            let grown = naive_measure(&assemble(units, p.head_end, notice, s));
            assert!(!fits(grown, limits), "tail could grow to {s} ({grown:?} fits {limits:?}): {p:?}");
        }
    }
}

/// Convenience for example tests: limits from optional values.
pub fn limits(chars: Option<u64>, bytes: Option<u64>, lines: Option<u64>) -> Limits {
    Limits {
        max_chars: chars.unwrap_or(UNLIMITED),
        max_bytes: bytes.unwrap_or(UNLIMITED),
        max_lines: lines.unwrap_or(UNLIMITED),
    }
}

// ---------------------------------------------------------------------------------------
// Property-test settings and generators, shared by every property suite
// ---------------------------------------------------------------------------------------

use proptest::prelude::{prop, prop_oneof, Just, ProptestConfig};
use proptest::strategy::Strategy as _;
use proptest::test_runner::FileFailurePersistence;

/// `cases` per property (times `$SOAK`, for long runs); failures are saved in
/// `regressions` for replay.
pub fn proptest_config(regressions: &'static str, cases: u32) -> ProptestConfig {
    let soak: u32 = std::env::var("SOAK").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    ProptestConfig {
        cases: cases * soak,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(regressions))),
        ..ProptestConfig::default()
    }
}

/// One piece of text; the mix is what makes cuts interesting. Adjacent pieces combine:
/// a lone high before a lone low makes a pair, `\r` before `\n` makes `\r\n`.
pub fn piece() -> impl proptest::strategy::Strategy<Value = Vec<u16>> {
    prop_oneof![
        4 => prop::collection::vec(b'a' as u16..=b'z' as u16, 1..6),
        3 => Just(vec![NL]),
        1 => Just(utf16("\r\n")),
        1 => Just(vec![CR]),
        1 => Just(utf16("日本")),
        1 => Just(utf16("é")),
        1 => Just(utf16("😀")),
        1 => Just(vec![0xD83D]), // lone high surrogate
        1 => Just(vec![0xDE00]), // lone low surrogate
        1 => Just(vec![0]),
        1 => (20usize..90).prop_map(|n| vec![b'x' as u16; n]), // a long line
    ]
}

/// Up to `max_pieces` pieces, end to end.
pub fn text(max_pieces: usize) -> impl proptest::strategy::Strategy<Value = Vec<u16>> {
    prop::collection::vec(piece(), 0..max_pieces).prop_map(|p| p.concat())
}
