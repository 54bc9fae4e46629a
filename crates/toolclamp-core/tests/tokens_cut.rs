//! Exact token cuts: a [`TokenIndex`] counts every candidate as a plain count of the whole
//! result would, and [`cut_to_tokens`] keeps a result within the tokens where one more char
//! would not be.

use proptest::prelude::*;
use proptest::strategy::Strategy as _;
use toolclamp_core::{
    cut_ends_to_tokens, cut_to_tokens, measure, plan, plan_with_snap, token_ends_reach, Candidate, CountCandidate,
    Encoding, Ends, EndsStop, Limits, Measured, Notice, Plan, Snap, Strategy, TokenCut, TokenIndex, Units, Windows,
    UNLIMITED,
};

use crate::common::{proptest_config, tokenizer};
use crate::reference::utf16;

/// The result a candidate stands for, as a string.
fn result_of(units: &[u16], c: &Candidate<'_>) -> Vec<u16> {
    let mut out = units[..c.head_end].to_vec();
    out.extend(c.glue.encode_utf16());
    out.extend_from_slice(&units[c.tail_start..]);
    out
}

fn encoding() -> impl proptest::strategy::Strategy<Value = Encoding> {
    prop_oneof![Just(Encoding::O200kBase), Just(Encoding::Cl100kBase)]
}

/// Text whose pieces are worth cutting inside: words, numbers, runs of space and newlines,
/// punctuation, CJK, emoji, lone surrogates.
fn token_text() -> impl proptest::strategy::Strategy<Value = Vec<u16>> {
    let atom = prop_oneof![
        Just(" "),
        Just("  "),
        Just("\n"),
        Just("\r\n"),
        Just("\t"),
        Just(" the"),
        Just(" tokenizer"),
        Just("Hello"),
        Just("HTTP"),
        Just("'s"),
        Just("1234567"),
        Just("é"),
        Just("\u{301}"),
        Just("中文字"),
        Just("😀"),
        Just("/"),
        Just("();"),
        Just("{\"a\": 1}"),
        Just("aaaaaaaaaaaaaaaa"),
        Just("QUJDRA=="),
        Just("[... 3 lines truncated ...]"),
    ];
    prop::collection::vec(prop_oneof![12 => atom.prop_map(utf16), 1 => any::<u16>().prop_map(|u| vec![u])], 0..60)
        .prop_map(|parts| parts.concat())
}

fn char_start(units: &[u16], mut i: usize) -> usize {
    i = i.min(units.len());
    while i > 0 && i < units.len() && units[i] & 0xFC00 == 0xDC00 && units[i - 1] & 0xFC00 == 0xD800 {
        i -= 1;
    }
    i
}

fn head_plan(units: &[u16], max_bytes: u64, strategy: Strategy) -> Option<Plan> {
    let limits = Limits { max_chars: UNLIMITED, max_bytes, max_lines: UNLIMITED };
    plan(&Units::new(units), &limits, strategy, &mut Notice::Default, true).expect("the default notice")
}

fn bytes_of(units: &[u16]) -> u64 {
    String::from_utf16_lossy(units).len() as u64
}

proptest! {
    #![proptest_config(proptest_config("tests/proptest-regressions/tokens_cut.txt", 1500))]

    /// Counting a candidate with the index is counting its result: whatever the cuts, the
    /// notice, the limit, and the order candidates come in (the index keeps what it read).
    #[test]
    fn the_index_counts_what_a_plain_count_of_the_result_counts(
        encoding in encoding(),
        text in token_text(),
        cuts in prop::collection::vec((0.0f64..=1.0, 0.0f64..=1.0, 0usize..4, 0u64..40), 1..6),
        tail_units in 0usize..80,
    ) {
        let tokenizer = tokenizer(encoding);
        let mut index = TokenIndex::new(tokenizer, &text[..], tail_units);
        let glues = ["", "\n[... 12 bytes truncated ...]\n", " [...]", "x"];
        for (a, b, glue, limit) in cuts {
            let head_end = char_start(&text, (a * text.len() as f64) as usize);
            let tail_start = char_start(&text, head_end + (b * (text.len() - head_end) as f64) as usize).max(head_end);
            let candidate = Candidate { head_end, glue: glues[glue], tail_start };
            let whole = tokenizer.count(&result_of(&text, &candidate)[..]);
            let want = (whole <= limit).then_some(whole);
            prop_assert_eq!(index.count(&candidate, limit), want, "{:?}", candidate);
            prop_assert_eq!(index.count(&candidate, u64::MAX), Some(whole));
        }
    }

    /// A cut within `n` tokens: the result has at most `n` (counted whole), and the plan of
    /// one more byte, which keeps one more char, has more; a text within `n` is kept whole.
    #[test]
    fn a_cut_keeps_at_most_n_tokens_and_one_more_char_would_exceed(
        encoding in encoding(),
        text in token_text(),
        n in 0u64..60,
        strategy in prop_oneof![Just(Strategy::Head), Just(Strategy::Tail), Just(Strategy::HeadTail { head_ratio: 0.5 })],
    ) {
        let tokenizer = tokenizer(encoding);
        let total = tokenizer.count(&text[..]);
        let mut index = TokenIndex::new(tokenizer, &text[..], 64);
        let plan_at = |b: u64| Ok::<_, std::convert::Infallible>(head_plan(&text, b, strategy));
        let cut = cut_to_tokens(n, UNLIMITED, bytes_of(&text), text.len(), plan_at, &mut index).unwrap();
        let result = result_of(&text, &Candidate::of(cut.plan.as_ref(), text.len()));
        prop_assert_eq!(tokenizer.count(&result[..]), cut.tokens);
        let (counted, whole) = index.counted();
        prop_assert!(counted <= total && (!whole || counted == total));
        prop_assert_eq!(index.total(), total);
        prop_assert!(cut.tokens <= n);
        if total <= n {
            prop_assert!(cut.plan.is_none() && !cut.by_tokens);
            return Ok(());
        }
        let plan = cut.plan.expect("a text over its tokens is cut");
        // One more byte of budget: the next candidate the planner has (a head or tail one
        // char longer with its own notice, or a longer notice where it now fits), which is over.
        // (None: one more byte is the whole text, which is over.)
        let Some(next) = head_plan(&text, cut.budget + 1, strategy) else { return Ok(()) };
        if next.head_end != plan.head_end || next.tail_start != plan.tail_start {
            let next = result_of(&text, &Candidate::of(Some(&next), text.len()));
            prop_assert!(tokenizer.count(&next[..]) > n, "one more byte still fits: {:?}", String::from_utf16_lossy(&next));
        }
    }
}

/// A search within `n` tokens of the whole text under `limits`, and the index's count of it.
fn whole_search(units: &[u16], n: u64, limits: &Limits, strategy: Strategy) -> (TokenCut, (u64, bool)) {
    let tokenizer = tokenizer(Encoding::O200kBase);
    let src = Units::new(units);
    let measured = Measured::new(&src);
    let totals = measure(units);
    let mut index = TokenIndex::new(tokenizer, &src, 4 * n as usize + 64);
    let plan_at = |b: u64| {
        let limits = Limits { max_bytes: limits.max_bytes.min(b), ..*limits };
        if totals.chars <= limits.max_chars && totals.bytes <= limits.max_bytes && totals.lines <= limits.max_lines {
            return Ok(None);
        }
        plan_with_snap(&measured, &limits, strategy, &mut Notice::Default, true, Snap::None)
    };
    let cut = cut_to_tokens(n, limits.max_bytes, totals.bytes, units.len(), plan_at, &mut index).unwrap();
    (cut, index.counted())
}

/// The same search through a head and a tail window of `window` units each.
fn ends_search(
    units: &[u16],
    window: usize,
    n: u64,
    limits: &Limits,
    strategy: Strategy,
) -> Result<(TokenCut, (u64, bool)), EndsStop<toolclamp_core::TemplateError>> {
    let tokenizer = tokenizer(Encoding::O200kBase);
    let (head, tail) = (&units[..window], &units[units.len() - window..]);
    let totals = measure(units);
    let src = Windows::new(head, tail, units.len()).with_totals(totals);
    let text = Ends::new(head, tail, units.len());
    let plan_at = |l: &Limits| plan_with_snap(&src, l, strategy, &mut Notice::Default, true, Snap::None);
    cut_ends_to_tokens(tokenizer, n, limits, totals, &text, 4 * n as usize + 64, plan_at)
}

proptest! {
    #![proptest_config(proptest_config("tests/proptest-regressions/tokens_cut.txt", 300))]

    /// A search through two windows finds the cut and the count of a search of the whole
    /// text, or says it needs the whole text, whatever the windows.
    #[test]
    fn a_search_through_the_ends_is_the_search_of_the_whole_text(
        start in token_text(),
        middle in token_text(),
        repeat in 1usize..200,
        end in token_text(),
        n in 0u64..12,
        max_chars in prop_oneof![3 => Just(UNLIMITED), 1 => 0u64..3000],
        window in 0.0f64..=1.0,
        strategy in prop_oneof![Just(Strategy::Head), Just(Strategy::Tail), Just(Strategy::HeadTail { head_ratio: 0.3 })],
    ) {
        let units = [start, middle.repeat(repeat), end].concat();
        let limits = Limits { max_chars, ..Limits::NONE };
        let whole = whole_search(&units, n, &limits, strategy);
        let window = (window * (units.len() / 2) as f64) as usize;
        match ends_search(&units, window, n, &limits, strategy) {
            Ok(found) => prop_assert_eq!(found, whole),
            Err(stop) => prop_assert_eq!(stop, EndsStop::Outside),
        }
    }
}

#[test]
fn a_long_text_is_cut_through_its_ends() {
    let line = "2026-11-26T02:10:41Z INFO server GET /v1/items?page=3 200 12ms user=alice trace=9f2c 中文 😀\n";
    let text = utf16(&line.repeat(50_000)); // 4.7 MB
    let max_token_bytes = tokenizer(Encoding::O200kBase).vocab().max_token_len() as u64;
    for strategy in [Strategy::Head, Strategy::Tail, Strategy::HeadTail { head_ratio: 0.5 }] {
        let window = token_ends_reach(&Limits::NONE, 1000, max_token_bytes).unwrap();
        assert!(2 * window < text.len(), "{window} units at each end");
        let found = ends_search(&text, window, 1000, &Limits::NONE, strategy).expect("the ends suffice");
        assert_eq!(found, whole_search(&text, 1000, &Limits::NONE, strategy), "{strategy:?}");
        assert!(found.0.tokens <= 1000 && found.0.tokens > 990, "{}", found.0.tokens);
    }
}

#[test]
fn a_candidate_inside_one_long_piece_is_counted_as_its_result() {
    // One run of a char: every head candidate ends inside the same piece, which a count
    // under a limit proves over by its length alone.
    let tokenizer = tokenizer(Encoding::O200kBase);
    let text = utf16(&format!("{} end", "x".repeat(60_000)));
    let mut index = TokenIndex::new(tokenizer, &text[..], 64);
    for (head_end, limit) in [(20_000, 10), (20_000, 5_000), (40_000, 1), (3_000, 1_000), (text.len(), 100)] {
        let candidate = Candidate { head_end, glue: " [...]", tail_start: text.len() };
        let whole = tokenizer.count(&result_of(&text, &candidate)[..]);
        assert_eq!(index.count(&candidate, limit), (whole <= limit).then_some(whole), "{head_end} within {limit}");
    }
}

#[test]
fn a_long_text_is_read_only_near_the_cut() {
    let tokenizer = tokenizer(Encoding::O200kBase);
    let line = "2026-11-26T02:10:41Z INFO server GET /v1/items?page=3 200 12ms user=alice trace=9f2c\n";
    let text = utf16(&line.repeat(200_000)); // 17 MB
    let mut index = TokenIndex::new(tokenizer, &text[..], 4 * 1000);
    let plan_at = |b: u64| Ok::<_, std::convert::Infallible>(head_plan(&text, b, Strategy::Head));
    let cut = cut_to_tokens(1000, UNLIMITED, bytes_of(&text), text.len(), plan_at, &mut index).unwrap();
    let plan = cut.plan.unwrap();
    assert!(cut.tokens <= 1000 && cut.tokens > 990, "{}", cut.tokens);
    assert!(plan.head_end < 10_000, "kept {} units", plan.head_end);
    assert!(cut.counts < 40, "{} candidates counted", cut.counts);
}

#[test]
fn models_map_to_their_encoding() {
    for model in
        ["gpt-4o", "gpt-4o-mini", "openai/gpt-4.1", "gpt-5", "gpt-5-mini", "o1", "o3-mini", "o4-mini", "gpt-oss-120b"]
    {
        assert_eq!(Encoding::for_model(model), Some(Encoding::O200kBase), "{model}");
    }
    for model in ["gpt-4", "gpt-4-turbo", "gpt-3.5-turbo", "text-embedding-3-small"] {
        assert_eq!(Encoding::for_model(model), Some(Encoding::Cl100kBase), "{model}");
    }
    for model in ["claude-sonnet-4-5", "gemini-2.5-pro", "o10", "gpt-2", "llama-3"] {
        assert_eq!(Encoding::for_model(model), None, "{model}");
    }
}
