//! The invariant checker shared by the example tests and the property tests: plan a text
//! and check every definition the core promises against the naive reference.
#![allow(dead_code)]

use crate::reference::*;
use toolclamp_core::{default_notice, render_template};
use toolclamp_core::{plan, Capture, Dims, Limits, Notice, Plan, Position, Source, Strategy, Units, UNLIMITED};

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

pub fn position_of(strategy: Strategy) -> Position {
    match strategy {
        Strategy::Head => Position::End,
        Strategy::Tail => Position::Start,
        Strategy::HeadTail { .. } => Position::Middle,
    }
}

/// The caller's notice for the cut `units[..head_end]`, `units[tail_start..]`, rendered
/// from the facts of that very cut as the reference counts them.
pub fn honest_notice(
    units: &[u16],
    limits: &Limits,
    strategy: Strategy,
    kind: &NoticeKind,
    head_end: usize,
    tail_start: usize,
) -> String {
    let facts = naive_facts(units, limits, position_of(strategy), head_end, tail_start);
    match kind {
        NoticeKind::Default => default_notice(&facts),
        NoticeKind::Template(t) => render_template(t, &facts).unwrap(),
        NoticeKind::Erratic => erratic_notice(facts.omitted.chars),
    }
}

/// The brute-force plan for Head and Tail, as `(head_end, tail_start, notice)`: the longest
/// kept part whose result fits with the caller's notice rendered for that very cut; when
/// no cut fits with it, the longest with the first fallback that some cut fits with.
pub fn reference_plan(units: &[u16], limits: &Limits, strategy: Strategy, kind: &NoticeKind) -> (usize, usize, String) {
    let n = units.len();
    let cut_at = |k: usize| match strategy {
        Strategy::Head => (k, n),
        Strategy::Tail => (0, n - k),
        Strategy::HeadTail { .. } => panic!("HeadTail has no single longest part"),
    };
    // Kept parts from the shortest up, while the part alone fits (the result holds it).
    let candidates: Vec<(usize, usize)> = (0..=n)
        .map(cut_at)
        .filter(|&(e, s)| is_safe_cut(units, e) && is_safe_cut(units, s))
        .take_while(|&(e, s)| fits(naive_measure(&assemble(units, e, "", s)), limits))
        .collect();
    for rung in 0..=FALLBACKS.len() {
        let notice_for = |e: usize, s: usize| match rung {
            0 => honest_notice(units, limits, strategy, kind, e, s),
            _ => FALLBACKS[rung - 1].to_string(),
        };
        let longest = candidates.iter().rev().find_map(|&(e, s)| {
            let notice = notice_for(e, s);
            fits(charged(units, e, &notice, s), limits).then_some((e, s, notice))
        });
        if let Some(found) = longest {
            return found;
        }
    }
    unreachable!("nothing kept and no notice fits every limit")
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

/// How far the kept text must reach (the contract in the `plan` module docs). `Exact` is
/// the brute-force differential check for Head and Tail ([`reference_plan`], small texts
/// only) and the one-step rule for HeadTail; `OneStep` checks the one-step rule for every
/// strategy: neither kept side can grow by one safe step and still fit, with the notice
/// the grown cut would carry (see [`check`]).
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
                assert_eq!(bare, expected_default_notice(&p, where_of(strategy)), "dishonest notice: {p:?}");
            }
            NoticeKind::Template(_) | NoticeKind::Erratic => {}
        }
    }
    let honest = |e: usize, s: usize| honest_notice(units, limits, strategy, kind, e, s);
    let glue_of = |notice: &str| glue(head, notice, tail);
    let callers = glue_of(&honest(p.head_end, p.tail_start)) == utf16(&p.glue);
    assert!(
        callers || FALLBACKS.iter().any(|f| glue_of(f) == utf16(&p.glue)),
        "the glue is neither the caller's notice for this cut nor a fallback: {p:?}"
    );

    match maximality {
        Maximality::Skip => {}
        Maximality::Exact if matches!(strategy, Strategy::Head | Strategy::Tail) => {
            let (e, s, notice) = reference_plan(units, limits, strategy, kind);
            let expected = String::from_utf16(&glue(&units[..e], &notice, &units[s..])).unwrap();
            assert_eq!(
                (p.head_end, p.tail_start, p.glue.as_str()),
                (e, s, expected.as_str()),
                "not the longest part that fits with its own notice (the reference's is {notice:?}): {p:?}"
            );
        }
        Maximality::Exact | Maximality::OneStep => {
            // A grown cut carries the caller's notice rendered for it when the plan uses
            // the caller's notice; the default notice and the fallbacks are held fixed.
            let follows_the_cut = callers && !matches!(kind, NoticeKind::Default);
            let grown_notice = |e: usize, s: usize| if follows_the_cut { honest(e, s) } else { notice.clone() };
            check_one_step(units, &p, strategy, limits, &grown_notice);
        }
    }
    Some(p)
}

/// Neither kept side can grow to the next safe cut without breaking a limit, with
/// `notice_for(head_end, tail_start)` as the grown cut's notice.
pub fn check_one_step(
    units: &[u16],
    p: &Plan,
    strategy: Strategy,
    limits: &Limits,
    notice_for: &dyn Fn(usize, usize) -> String,
) {
    // Tail keeps no head and Head no tail; HeadTail may grow either side up to the other.
    if strategy != Strategy::Tail && p.head_end < p.tail_start {
        let e = next_safe(units, p.head_end);
        if e <= p.tail_start {
            let notice = notice_for(e, p.tail_start);
            let grown = charged(units, e, &notice, p.tail_start);
            assert!(!fits(grown, limits), "head could grow to {e} with {notice:?} ({grown:?} fits {limits:?}): {p:?}");
        }
    }
    if strategy != Strategy::Head && p.head_end < p.tail_start {
        let s = prev_safe(units, p.tail_start);
        if s >= p.head_end {
            let notice = notice_for(p.head_end, s);
            let grown = charged(units, p.head_end, &notice, s);
            assert!(!fits(grown, limits), "tail could grow to {s} with {notice:?} ({grown:?} fits {limits:?}): {p:?}");
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
use proptest::test_runner::{FileFailurePersistence, RngSeed};

/// `cases` per property (times `$SOAK`, for long runs); failures are saved in
/// `regressions` for replay.
pub fn proptest_config(regressions: &'static str, cases: u32) -> ProptestConfig {
    let soak: u32 = std::env::var("SOAK").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    ProptestConfig {
        cases: cases * soak,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(regressions))),
        rng_seed: rng_seed(),
        ..ProptestConfig::default()
    }
}

/// The seed of every property run: `PROPTEST_RNG_SEED`, else a fixed one, so a run is
/// repeatable and CI cannot fail by chance; `PROPTEST_RNG_SEED=random` draws one (proptest
/// saves any failure in the regressions file).
fn rng_seed() -> RngSeed {
    match std::env::var("PROPTEST_RNG_SEED").as_deref() {
        Ok("random") => RngSeed::Random,
        Ok(seed) => RngSeed::Fixed(seed.parse().expect("PROPTEST_RNG_SEED must be a number or \"random\"")),
        Err(_) => RngSeed::Fixed(20261123),
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

// ---------------------------------------------------------------------------------------
// Tokenizers
// ---------------------------------------------------------------------------------------

/// An encoding with its committed vocabulary (`vocab/*.bin.br` at the repository's root),
/// loaded once per test run.
pub fn tokenizer(encoding: toolclamp_core::Encoding) -> &'static toolclamp_core::Tokenizer {
    use std::io::Read;
    use std::sync::OnceLock;
    use toolclamp_core::{Encoding, Tokenizer, Vocab};
    static LOADED: [OnceLock<Tokenizer>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = &LOADED[Encoding::ALL.iter().position(|&e| e == encoding).expect("a known encoding")];
    slot.get_or_init(|| {
        let path = format!("{}/../../vocab/{}.bin.br", env!("CARGO_MANIFEST_DIR"), encoding.name());
        let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut raw = Vec::new();
        brotli_decompressor::Decompressor::new(file, 1 << 16).read_to_end(&mut raw).expect("a brotli stream");
        Tokenizer::new(encoding, Vocab::from_bytes(&raw).expect("a valid vocabulary"))
    })
}

/// What a capture's `plan` keeps of it, the notice in its place (the whole when `None`).
pub fn captured(cap: &Capture, plan: &Option<Plan>) -> Vec<u8> {
    let src = cap.source();
    let mut out = Vec::new();
    match plan {
        None => src.copy_to(0, src.len(), &mut out),
        Some(p) => {
            src.copy_to(0, p.head_end, &mut out);
            out.extend_from_slice(p.glue.as_bytes());
            src.copy_to(p.tail_start, src.len(), &mut out);
        }
    }
    out
}
