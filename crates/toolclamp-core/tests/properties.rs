//! Property tests: random texts and limits, every plan checked against the naive reference
//! in `reference/` (see `common::check` for the list of invariants).

use crate::common;
use crate::reference;

use common::*;
use proptest::prelude::*;
use reference::*;
use toolclamp_core::render_template;
use toolclamp_core::MAX_FUNCTION_CALLS;
use toolclamp_core::{
    chars_windows, ends_reach, measure, plan, plan_with_snap, Limits, Measure, Notice, NoticeFacts, Plan, Snap, Source,
    Span, Tally, Unit, Units, Windows, UNLIMITED,
};
// `Strategy` is proptest's generator trait here; the core's cut strategy is `Cut`.
use toolclamp_core::Strategy as Cut;

// ---------------------------------------------------------------------------------------
// Generators (texts: `piece` and `text` in `common`)
// ---------------------------------------------------------------------------------------

/// A limit for a dimension whose total is `total`: often below it (so cuts happen), often
/// tiny, sometimes unlimited or absurdly large.
fn limit(total: u64) -> BoxedStrategy<u64> {
    prop_oneof![
        3 => Just(UNLIMITED),
        2 => 0u64..8,
        5 => 0..=total + 2,
        1 => Just(UNLIMITED - 1),
    ]
    .boxed()
}

fn limits_for(m: Measure) -> impl Strategy<Value = Limits> {
    (limit(m.chars), limit(m.bytes), limit(m.lines)).prop_map(|(c, b, l)| Limits {
        max_chars: c,
        max_bytes: b,
        max_lines: l,
    })
}

fn strategy() -> impl Strategy<Value = Cut> {
    prop_oneof![
        3 => Just(Cut::Head),
        3 => Just(Cut::Tail),
        1 => Just(Cut::HeadTail { head_ratio: 0.5 }),
        1 => Just(Cut::HeadTail { head_ratio: 0.0 }),
        1 => Just(Cut::HeadTail { head_ratio: 1.0 }),
        2 => (0.0f64..=1.0).prop_map(|r| Cut::HeadTail { head_ratio: r }),
    ]
}

fn case(max_pieces: usize) -> impl Strategy<Value = (Vec<u16>, Limits, Cut, bool)> {
    text(max_pieces).prop_flat_map(|t| {
        let m = naive_measure(&t);
        (Just(t), limits_for(m), strategy(), any::<bool>())
    })
}

/// Chars-only limits, usually well below the length.
fn chars_case(max_pieces: usize) -> impl Strategy<Value = (Vec<u16>, u64, Cut)> {
    text(max_pieces).prop_flat_map(|t| {
        let n = t.len() as u64;
        (Just(t), prop_oneof![1 => 0u64..8, 4 => 0..=n + 2], strategy())
    })
}

// ---------------------------------------------------------------------------------------
// Planning with the default notice
// ---------------------------------------------------------------------------------------

const REGRESSIONS: &str = "tests/proptest-regressions/properties.txt";

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 5000))]

    /// Every invariant at once; Head and Tail are diffed against the brute-force longest
    /// cut, HeadTail is checked for "neither side can grow by one safe step".
    #[test]
    fn default_notice_plans_keep_every_invariant((t, limits, strategy, exact) in case(60)) {
        check(&t, &limits, strategy, &NoticeKind::Default, exact, Maximality::Exact);
    }

    /// The kept parts never depend on `exact`; only unlimited dimensions of the report do.
    #[test]
    fn exact_only_changes_the_report((t, limits, strategy, _e) in case(30)) {
        let a = run_plan(&t, &limits, strategy, &NoticeKind::Default, false);
        let b = run_plan(&t, &limits, strategy, &NoticeKind::Default, true);
        prop_assert_eq!(a.map(|p| (p.head_end, p.tail_start, p.glue)), b.map(|p| (p.head_end, p.tail_start, p.glue)));
    }

    /// Lines-only limits stress the open-last-line and separator accounting.
    #[test]
    fn line_limits_keep_every_invariant(t in text(60), max_lines in 0u64..6, strategy in strategy(), exact: bool) {
        let limits = Limits { max_lines, ..Limits::NONE };
        check(&t, &limits, strategy, &NoticeKind::Default, exact, Maximality::Exact);
    }

    /// Tiny limits in every dimension force the fallback notices and the empty one.
    #[test]
    fn tiny_limits_keep_every_invariant(
        t in text(12), c in 0u64..12, b in 0u64..12, l in 0u64..4, strategy in strategy(), exact: bool,
    ) {
        let limits = Limits { max_chars: c, max_bytes: b, max_lines: l };
        check(&t, &limits, strategy, &NoticeKind::Default, exact, Maximality::Exact);
    }
}

// ---------------------------------------------------------------------------------------
// Templates and custom notices
// ---------------------------------------------------------------------------------------

const TEMPLATES: &[&str] = &[
    "{omittedChars} chars cut at the {where}",
    "<{omitted}>",
    "…{omittedBytes} bytes of {totalBytes}…\n",
    "[{omittedLines}/{totalLines} lines, continue at {headEnd}..{tailStart}]",
    "",
    "\n😀\n",
];

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 3000))]

    /// Templates keep every invariant, and the maximality contract of the `plan` module
    /// docs: Head and Tail keep exactly what the brute-force reference keeps (the longest
    /// part that fits with its own notice), HeadTail cannot grow by one safe step with the
    /// notice the grown cut would carry. Offset-naming templates included.
    #[test]
    fn template_notices_keep_every_invariant(
        (t, limits, strategy, exact) in case(30), which in 0..TEMPLATES.len(),
    ) {
        check(&t, &limits, strategy, &NoticeKind::Template(TEMPLATES[which]), exact, Maximality::Exact);
    }

    /// A closure whose notice length swings with every cut can never push the result past a
    /// limit: the planner either settles or falls back.
    #[test]
    fn erratic_custom_notices_never_exceed_limits((t, limits, strategy, exact) in case(30)) {
        check(&t, &limits, strategy, &NoticeKind::Erratic, exact, Maximality::Skip);
    }
}

/// Templates whose length follows the cut: line numbers and offsets grow as the head
/// grows, the omitted counts shrink, and several mix both.
const CUT_TEMPLATES: &[&str] = &[
    "{fromLine}",
    "{toLine}",
    "<{headEnd}|{tailStart}>",
    "{omitted}",
    "lines {fromLine}-{toLine}\n",
    "{headEnd} {omittedChars}",
    "[{omitted}: lines {fromLine}..{toLine}, at {headEnd}..{tailStart}]",
    "{tailStart}/{toLine}/{omittedBytes}/{omittedLines}",
];

/// Texts of many short lines, so line numbers and offsets cross 9 -> 10 and 99 -> 100.
fn lined_text() -> impl Strategy<Value = Vec<u16>> {
    let line = prop_oneof![
        6 => prop::collection::vec(b'a' as u16..=b'c' as u16, 0..3).prop_map(|mut l| { l.push(NL); l }),
        1 => Just(utf16("é\r\n")),
        1 => Just(utf16("😀")),
        1 => Just(vec![b'x' as u16; 12]),
    ];
    prop::collection::vec(line, 0..70).prop_map(|l| l.concat())
}

fn lined_case() -> impl Strategy<Value = (Vec<u16>, Limits, Cut, bool)> {
    prop_oneof![1 => text(40), 2 => lined_text()].prop_flat_map(|t| {
        let m = naive_measure(&t);
        (Just(t), limits_for(m), strategy(), any::<bool>())
    })
}

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 4000))]

    /// The longest head (Head) or tail (Tail) whose own notice fits, against the brute
    /// force over every cut; HeadTail: neither side can grow by one safe step with the
    /// notice the grown cut would carry.
    ///
    /// A function that renders the same template plans the same, within its call budget.
    #[test]
    fn notices_that_follow_the_cut_get_the_longest_part_that_fits_with_them(
        (t, limits, strategy, exact) in lined_case(), which in 0..CUT_TEMPLATES.len(),
    ) {
        let template = CUT_TEMPLATES[which];
        let p = check(&t, &limits, strategy, &NoticeKind::Template(template), exact, Maximality::Exact);
        let mut calls = 0;
        let mut f = |facts: &NoticeFacts| {
            calls += 1;
            render_template(template, facts).unwrap()
        };
        let q = plan(&Units::new(&t), &limits, strategy, &mut Notice::Custom(&mut f), exact).unwrap();
        prop_assert_eq!(p, q);
        prop_assert!(calls <= MAX_FUNCTION_CALLS, "{} calls", calls);
    }
}

// ---------------------------------------------------------------------------------------
// Representations: Latin-1 units and windows
// ---------------------------------------------------------------------------------------

/// A chars-only plan of the whole text.
fn plan_whole(t: &[u16], k: u64, strategy: Cut) -> Option<Plan> {
    let limits = Limits { max_chars: k, ..Limits::NONE };
    plan(&Units::new(t), &limits, strategy, &mut Notice::Default, false).unwrap()
}

/// The same plan through a head and a tail window `w` units wide.
fn plan_windowed(t: &[u16], k: u64, w: usize, strategy: Cut) -> Option<Plan> {
    let (n, limits) = (t.len(), Limits { max_chars: k, ..Limits::NONE });
    let w = w.min(n);
    plan(&Windows::new(&t[..w], &t[n - w..], n), &limits, strategy, &mut Notice::Default, false).unwrap()
}

/// Windows know no byte or line totals: compare what shapes the result.
fn cut_and_glue(p: Plan) -> (usize, usize, String) {
    (p.head_end, p.tail_start, p.glue)
}

fn latin1_text() -> impl Strategy<Value = Vec<u8>> {
    let unit = prop_oneof![
        6 => b'a'..=b'z',
        3 => Just(b'\n'),
        1 => Just(b'\r'),
        1 => Just(0u8),
        2 => 0x80u8..=0xFF,
        1 => Just(0xE9u8),
    ];
    prop::collection::vec(unit, 0..200)
}

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 5000))]

    /// A one-byte string and the same units widened to UTF-16 are the same JS string.
    #[test]
    fn latin1_and_utf16_plans_are_identical(
        t in latin1_text(), c in limit(150), b in limit(250), l in limit(20), strategy in strategy(), exact: bool,
    ) {
        let limits = Limits { max_chars: c, max_bytes: b, max_lines: l };
        let wide: Vec<u16> = t.iter().map(|&u| u as u16).collect();
        let narrow = plan(&Units::new(&t[..]), &limits, strategy, &mut Notice::Default, exact).unwrap();
        let widened = plan(&Units::new(&wide[..]), &limits, strategy, &mut Notice::Default, exact).unwrap();
        prop_assert_eq!(&narrow, &widened);
        prop_assert_eq!(measure(&t[..]), naive_measure(&wide));
        check(&wide, &limits, strategy, &NoticeKind::Default, exact, Maximality::Exact);
    }

    /// Windows one unit wider than `max_chars` see every unit a chars-only plan reads, so
    /// the plan matches the whole-text one exactly.
    #[test]
    fn windows_one_wider_than_the_budget_plan_like_the_whole_text((t, k, strategy) in chars_case(60)) {
        let (whole, windowed) = (plan_whole(&t, k, strategy), plan_windowed(&t, k, k as usize + 1, strategy));
        prop_assert_eq!(whole.map(cut_and_glue), windowed.map(cut_and_glue));
    }

}

/// The same plan through the pieces `chars_windows` names (what the JS side copies).
fn plan_through_chars_windows(t: &[u16], k: u64, strategy: Cut) -> Option<Plan> {
    let (n, limits) = (t.len(), Limits { max_chars: k, ..Limits::NONE });
    let pieces = chars_windows(n, k, strategy).map(|(from, to)| (from, &t[from..to]));
    plan(&Windows::from_pieces(pieces, n), &limits, strategy, &mut Notice::Default, false).unwrap()
}

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 1500))]

    /// The few hundred units `chars_windows` names are all a chars-only plan reads: planning
    /// through them matches the whole text exactly, on texts long enough that the windows
    /// leave most of it unseen.
    #[test]
    fn chars_windows_plan_like_the_whole_text(
        (t, k, strategy) in long_text().prop_flat_map(|t| {
            let n = t.len() as u64;
            (Just(t), prop_oneof![1 => 0u64..8, 4 => 0..=n + 2], strategy())
        }),
    ) {
        prop_assert_eq!(plan_whole(&t, k, strategy).map(cut_and_glue), plan_through_chars_windows(&t, k, strategy).map(cut_and_glue));
    }
}

// ---------------------------------------------------------------------------------------
// Long texts: the block loops in fit_forward / fit_backward
// ---------------------------------------------------------------------------------------

/// Long texts dense in surrogates and line breaks, so pairs and `\r\n` straddle the
/// 256-unit blocks of `fit_forward`/`fit_backward` at random offsets.
fn long_text() -> impl Strategy<Value = Vec<u16>> {
    let unit = prop_oneof![
        6 => Just(vec![b'a' as u16]),
        2 => Just(utf16("😀")),
        1 => Just(vec![0xD800]),
        1 => Just(vec![0xDFFF]),
        1 => Just(utf16("\r\n")),
        1 => Just(vec![NL]),
        1 => Just(utf16("é日")),
    ];
    prop::collection::vec(unit, 300..2500).prop_map(|p| p.concat())
}

/// Texts of about 9,000 to 18,000 units (several 4,096-unit blocks).
fn very_long_text() -> impl Strategy<Value = Vec<u16>> {
    let unit = prop_oneof![
        8 => Just(vec![b'a' as u16]),
        1 => Just(utf16("😀")),
        1 => Just(utf16("\r\n")),
        1 => Just(vec![NL]),
        1 => Just(utf16("é日")),
    ];
    prop::collection::vec(unit, 7000..12000).prop_map(|p| p.concat())
}

/// `fit_forward(lo, hi)` and `fit_backward(hi, lo)` of `src` against a unit-by-unit scan, with
/// each dimension (bit of `which`) limited to its fraction in `f` of the range's span.
fn assert_fit_matches_scan<U: Unit>(
    src: &Units<'_, U>,
    lo: usize,
    hi: usize,
    which: u8,
    f: (f64, f64, f64),
) -> Result<(), TestCaseError> {
    let prefix: Vec<Span> = std::iter::once(Span::ZERO)
        .chain((0..src.len()).scan(Span::ZERO, |acc, i| {
            *acc = *acc + src.unit_span(i);
            Some(*acc)
        }))
        .collect();
    let scan_span = |from: usize, to: usize| prefix[to] - prefix[from];
    let whole = scan_span(lo, hi);
    let pick = |bit: u8, total: u64, f: f64| if which & bit != 0 { (total as f64 * f) as u64 } else { u64::MAX };
    let budget = Span {
        chars: pick(1, whole.chars, f.0),
        bytes: pick(2, whole.bytes, f.1),
        newlines: pick(4, whole.newlines, f.2),
    };
    // Spans are exact in the limited dimensions (a source may skip counting the others).
    let limited = |s: Span| {
        let keep = |v: u64, limit: u64| if limit == u64::MAX { 0 } else { v };
        (keep(s.chars, budget.chars), keep(s.bytes, budget.bytes), keep(s.newlines, budget.newlines))
    };
    let (end, used) = src.fit_forward(lo, hi, budget);
    prop_assert_eq!(end, (lo..=hi).rev().find(|&e| scan_span(lo, e).fits(budget)).unwrap());
    prop_assert_eq!(limited(used), limited(scan_span(lo, end)));
    let (start, used) = src.fit_backward(hi, lo, budget);
    prop_assert_eq!(start, (lo..=hi).find(|&s| scan_span(s, hi).fits(budget)).unwrap());
    prop_assert_eq!(limited(used), limited(scan_span(start, hi)));
    Ok(())
}

proptest! {
    // Each case scans tens of thousands of units: fewer cases.
    #![proptest_config(proptest_config(REGRESSIONS, 120))]

    /// `fit_forward`/`fit_backward` on texts long enough for several 4,096-unit blocks, with
    /// budgets anywhere up to the whole range, against a unit-by-unit scan; one-byte
    /// (Latin-1) units too.
    #[test]
    fn fit_big_blocks_match_a_scan(
        t in very_long_text(), a in 0.0f64..1.0, b in 0.0f64..1.0, f in (0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0),
        which in 0u8..8, latin1: bool,
    ) {
        let n = t.len();
        let (x, y) = ((a * n as f64) as usize, (b * n as f64) as usize);
        let (lo, hi) = (x.min(y), x.max(y));
        if latin1 {
            let bytes: Vec<u8> = t.iter().map(|&u| u as u8).collect();
            assert_fit_matches_scan(&Units::new(&bytes[..]), lo, hi, which, f)?;
        } else {
            assert_fit_matches_scan(&Units::new(&t[..]), lo, hi, which, f)?;
        }
    }
}

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 1500))]

    #[test]
    fn long_texts_keep_every_invariant(
        t in long_text(), cf in 0.0f64..1.0, bf in 0.0f64..1.0, lf in 0.0f64..1.0, which in 0u8..8,
        strategy in strategy(), exact: bool,
    ) {
        let m = naive_measure(&t);
        // Each dimension limited or not, at a random fraction of its total.
        let pick = |bit: u8, total: u64, f: f64| if which & bit != 0 { (total as f64 * f) as u64 } else { UNLIMITED };
        let (max_chars, max_bytes, max_lines) = (pick(1, m.chars, cf), pick(2, m.bytes, bf), pick(4, m.lines, lf));
        let limits = Limits { max_chars, max_bytes, max_lines };
        check(&t, &limits, strategy, &NoticeKind::Default, exact, Maximality::OneStep);
    }

    /// `fit_forward`/`fit_backward` against a unit-by-unit scan, from arbitrary positions.
    #[test]
    fn fit_forward_and_backward_match_a_scan(
        t in long_text(), a in 0.0f64..1.0, b in 0.0f64..1.0, bytes in 0u64..3000, newlines in 0u64..40,
        chars in prop_oneof![Just(u64::MAX), 0u64..3000],
    ) {
        let src = Units::new(&t[..]);
        let n = t.len();
        let (x, y) = ((a * n as f64) as usize, (b * n as f64) as usize);
        let (lo, hi) = (x.min(y), x.max(y));
        let budget = Span { chars, bytes, newlines };
        // Spans are counted as inside the text: a unit's weight depends on the one before.
        let prefix: Vec<Span> = std::iter::once(Span::ZERO)
            .chain((0..n).scan(Span::ZERO, |acc, i| {
                *acc = *acc + src.unit_span(i);
                Some(*acc)
            }))
            .collect();
        let scan_span = |from: usize, to: usize| prefix[to] - prefix[from];
        let (end, used) = src.fit_forward(lo, hi, budget);
        let expected_end = (lo..=hi).rev().find(|&e| scan_span(lo, e).fits(budget)).unwrap();
        prop_assert_eq!(end, expected_end);
        prop_assert_eq!(used, scan_span(lo, end));
        let (start, used) = src.fit_backward(hi, lo, budget);
        let expected_start = (lo..=hi).find(|&s| scan_span(s, hi).fits(budget)).unwrap();
        prop_assert_eq!(start, expected_start);
        prop_assert_eq!(used, scan_span(start, hi));
    }

    /// `span` over any range, with the unit before it as context, against the reference.
    #[test]
    fn spans_add_up_like_the_reference(t in long_text(), a in 0.0f64..1.0, b in 0.0f64..1.0) {
        let src = Units::new(&t[..]);
        let n = t.len();
        let (x, y) = ((a * n as f64) as usize, (b * n as f64) as usize);
        let (lo, hi) = (x.min(y), x.max(y));
        let s = src.span(lo, hi);
        prop_assert_eq!(s.chars, (hi - lo) as u64);
        prop_assert_eq!(s.newlines, t[lo..hi].iter().filter(|&&c| c == NL).count() as u64);
        if is_safe_cut(&t, lo) && is_safe_cut(&t, hi) {
            prop_assert_eq!(s.bytes, naive_bytes(&t[lo..hi]));
        }
        prop_assert_eq!(measure(&t[..]), naive_measure(&t));
    }
}

/// A text of at least `min_len` units: `seed` repeated, with `tail` at the end (so the two
/// ends differ).
fn repeated_text(seed: &[u16], tail: &[u16], min_len: usize) -> Vec<u16> {
    let mut t = Vec::with_capacity(min_len + tail.len());
    let filler = if seed.is_empty() { &[b'x' as u16][..] } else { seed };
    while t.len() + tail.len() < min_len {
        t.extend_from_slice(filler);
    }
    t.extend_from_slice(tail);
    t
}

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 400))]

    /// A long text planned by bytes or chars (and lines) through a head and a tail window of
    /// `ends_reach` units, with totals counted piece by piece, plans exactly as the whole
    /// text: the binding copies a long string that way, in bounded windows.
    #[test]
    fn ends_windows_with_tallied_totals_plan_like_the_whole_text(
        seed in text(40), tail in text(40), c in limit(400), b in limit(600), l in limit(40),
        strategy in strategy(), exact: bool, line: bool, cuts in prop::collection::vec(0usize..10_000, 0..6),
    ) {
        let limits = Limits { max_chars: c, max_bytes: b, max_lines: l };
        let Some(reach) = ends_reach(&limits) else { return Ok(()) };
        let t = repeated_text(&seed, &tail, 2 * reach + 1 + cuts.len() * 7);
        let n = t.len();
        let mut tally = Tally::default();
        let mut bounds: Vec<usize> = cuts.iter().map(|&k| k % (n + 1)).collect();
        bounds.extend([0, n]);
        bounds.sort_unstable();
        for w in bounds.windows(2) {
            tally.add(&t[w[0]..w[1]]);
        }
        prop_assert_eq!(tally.len(), n);
        prop_assert_eq!(tally.totals(), measure(&t[..]));
        let open: Vec<u16> = "[... ".encode_utf16().collect();
        prop_assert_eq!(tally.holds_open(), t.windows(5).any(|w| w == &open[..]));
        let snap = if line { Snap::Line } else { Snap::None };
        let whole = plan_with_snap(&Units::new(&t), &limits, strategy, &mut Notice::Default, exact, snap).unwrap();
        let src = Windows::new(&t[..reach], &t[n - reach..], n).with_totals(tally.totals());
        let ends = plan_with_snap(&src, &limits, strategy, &mut Notice::Default, exact, snap).unwrap();
        prop_assert_eq!(whole, ends);
    }
}
