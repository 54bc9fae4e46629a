//! Captures cut within exact tokens: whatever the chunks, the result the capture gives has
//! the tokens it reports, within the limit, and is the cut of the whole text (as a string
//! is cut within tokens); and a limit in tokens alone bounds what a capture keeps.

use proptest::prelude::*;
use toolclamp_core::{
    cut_to_tokens, plan_with_snap, token_bytes, Capture, CaptureOptions, Encoding, Limits, Notice, Plan, Snap, Source,
    Strategy as Cut, TokenCut, TokenIndex, Utf8, CAPTURE_MARGIN, UNLIMITED,
};

use crate::common::{captured, proptest_config, tokenizer};

/// Text whose pieces are worth cutting inside, repeated to many times a small limit's bytes.
fn text() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        Just(" "),
        Just("\n"),
        Just("\r\n"),
        Just(" the"),
        Just(" tokenizer"),
        Just("Hello"),
        Just("'s"),
        Just("1234567"),
        Just("é"),
        Just("中文字"),
        Just("😀"),
        Just("();"),
        Just("aaaaaaaaaaaaaaaa"),
        Just("\u{1b}[31m"),
        Just("[... 3 lines truncated ...]"),
    ];
    (prop::collection::vec(atom, 0..60), 1usize..80).prop_map(|(atoms, times)| atoms.concat().repeat(times))
}

fn strategy() -> impl Strategy<Value = Cut> {
    prop_oneof![Just(Cut::Head), Just(Cut::Tail), (0.0f64..=1.0).prop_map(|r| Cut::HeadTail { head_ratio: r })]
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop_oneof![Just(Encoding::O200kBase), Just(Encoding::Cl100kBase)]
}

/// The cut of the whole text within `max_tokens`, as a string's is searched.
fn whole_cut(text: &str, limits: &Limits, strategy: Cut, snap: Snap, max_tokens: u64, encoding: Encoding) -> TokenCut {
    let src = Utf8::from_validated(text.as_bytes());
    let totals = src.totals();
    let plan_at = |bytes: u64| {
        let limits = Limits { max_bytes: limits.max_bytes.min(bytes), ..*limits };
        if totals.chars <= limits.max_chars && totals.bytes <= limits.max_bytes && totals.lines <= limits.max_lines {
            return Ok(None);
        }
        plan_with_snap(&src, &limits, strategy, &mut Notice::Default, true, snap)
    };
    let tail_units = usize::try_from(max_tokens * 4 + 64).unwrap();
    let mut index = TokenIndex::new(tokenizer(encoding), text, tail_units);
    cut_to_tokens(max_tokens, limits.max_bytes, totals.bytes, text.len(), plan_at, &mut index).unwrap()
}

fn capture(text: &str, cuts: &[usize], limits: Limits, strategy: Cut, max_tokens: u64, encoding: Encoding) -> Capture {
    let options = CaptureOptions { limits, strategy, normalize: None, raw: false };
    let bound = token_bytes(max_tokens, tokenizer(encoding).vocab().max_token_len() as u64);
    let mut cap = Capture::within_token_bytes(options, bound).expect("tokens bound the memory");
    let mut from = 0;
    for &to in cuts {
        // Chunks split anywhere, inside a char too.
        cap.write_bytes(&text.as_bytes()[from..to]);
        from = to;
    }
    cap.write_bytes(&text.as_bytes()[from..]);
    cap.finish();
    cap
}

fn result_of(cap: &Capture, plan: &Option<Plan>) -> String {
    String::from_utf8(captured(cap, plan)).expect("a capture keeps whole chars")
}

fn cut_capture(cap: &Capture, max_tokens: u64, snap: Snap, encoding: Encoding) -> (TokenCut, (u64, bool)) {
    let kept = cap.kept_text();
    let mut index = kept.index(tokenizer(encoding), max_tokens);
    let cut = cap.cut_within_tokens(max_tokens, &mut Notice::Default, snap, &mut index).unwrap();
    let total = kept.total_tokens(&index, tokenizer(encoding).vocab().max_token_len() as u64);
    (cut, total)
}

proptest! {
    #![proptest_config(proptest_config("tests/proptest-regressions/tokens_capture.txt", 300))]

    /// The capture's result has the tokens it reports, within the limit; it is the whole
    /// text's cut; and its total is exact only when it is the text's.
    #[test]
    fn a_capture_cuts_within_tokens_as_the_whole_text_is_cut(
        text in text(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6), max_tokens in 0u64..80,
        strategy in strategy(), encoding in encoding(), max_lines in prop::option::of(1u64..40), line_snap: bool,
    ) {
        let limits = Limits { max_chars: UNLIMITED, max_bytes: UNLIMITED, max_lines: max_lines.unwrap_or(UNLIMITED) };
        let snap = if line_snap { Snap::Line } else { Snap::None };
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(text.len() + 1)).collect();
        at.sort_unstable();
        let cap = capture(&text, &at, limits, strategy, max_tokens, encoding);
        let (cut, (total, exact)) = cut_capture(&cap, max_tokens, snap, encoding);
        let result = result_of(&cap, &cut.plan);
        let tokens = tokenizer(encoding).count(result.as_str());
        prop_assert_eq!(cut.tokens, tokens);
        prop_assert!(tokens <= max_tokens, "{} > {}", tokens, max_tokens);
        // A capture that dropped text cuts with its byte limit lowered to the tokens' bound.
        let bound = token_bytes(max_tokens, tokenizer(encoding).vocab().max_token_len() as u64);
        let lowered = Limits { max_bytes: if cap.kept_text().is_whole() { UNLIMITED } else { bound }, ..limits };
        let whole = whole_cut(&text, &lowered, strategy, snap, max_tokens, encoding);
        prop_assert_eq!(&cut.plan.as_ref().map(|p| (p.head_end, p.tail_start, &p.glue)),
            &whole.plan.as_ref().map(|p| (p.head_end, p.tail_start, &p.glue)));
        prop_assert_eq!(cut.tokens, whole.tokens);
        prop_assert_eq!(cut.by_tokens, whole.by_tokens || (!cap.kept_text().is_whole() && whole.plan.as_ref()
            .is_some_and(|p| p.truncated_by.0 & 2 != 0) && text.len() as u64 > bound));
        let real = tokenizer(encoding).count(text.as_str());
        if exact {
            prop_assert_eq!(total, real);
        } else {
            prop_assert!(total <= real, "{} > {}", total, real);
        }
    }
}

#[test]
fn a_limit_in_tokens_alone_bounds_what_a_capture_keeps() {
    let encoding = Encoding::O200kBase;
    let max_tokens = 100;
    let bound = token_bytes(max_tokens, tokenizer(encoding).vocab().max_token_len() as u64);
    let chunk = "log line 42: 中文 😀 \u{1b}[1mbold\u{1b}[0m and more words\n".repeat(1000);
    for strategy in [Cut::Head, Cut::Tail, Cut::HeadTail { head_ratio: 0.5 }] {
        let options = CaptureOptions { limits: Limits::NONE, strategy, normalize: None, raw: false };
        assert!(Capture::new(options).is_err(), "nothing else bounds it");
        let mut cap = Capture::within_token_bytes(options, bound).unwrap();
        let mut most = 0;
        // 64 MB in.
        for _ in 0..(64 << 20) / chunk.len() {
            cap.write_bytes(chunk.as_bytes());
            most = most.max(cap.kept_bytes());
        }
        cap.finish();
        // Two buffers of the bound and the margin, with the tail's slack and their growth.
        let reach = bound as usize + CAPTURE_MARGIN;
        assert!(most <= 4 * reach + (256 << 10), "{strategy:?} kept {most} bytes (bound {bound})");
        let (cut, (total, exact)) = cut_capture(&cap, max_tokens, Snap::None, encoding);
        let result = result_of(&cap, &cut.plan);
        assert_eq!(tokenizer(encoding).count(result.as_str()), cut.tokens);
        assert!(cut.tokens <= max_tokens && cut.tokens > max_tokens - 10, "{strategy:?}: {} tokens", cut.tokens);
        assert!(cut.by_tokens);
        assert_eq!(cut.plan.as_ref().unwrap().truncated_by.0, 0, "no limit of the caller's cut it");
        assert!(!exact && total >= (64 << 20) / bound, "a lower bound: {total}");
    }
}

#[test]
fn a_capture_kept_whole_is_counted_whole() {
    let tok = tokenizer(Encoding::Cl100kBase);
    let text = "short output, 中文 😀\n";
    let options = CaptureOptions { limits: Limits::NONE, strategy: Cut::Tail, normalize: None, raw: false };
    let mut cap = Capture::within_token_bytes(options, token_bytes(50, tok.vocab().max_token_len() as u64)).unwrap();
    // Split inside the emoji.
    cap.write_bytes(&text.as_bytes()[..20]);
    cap.write_bytes(&text.as_bytes()[20..]);
    cap.finish();
    let kept = cap.kept_text();
    assert!(kept.is_whole());
    let (cut, total) = cut_capture(&cap, 50, Snap::None, Encoding::Cl100kBase);
    assert!(cut.plan.is_none() && !cut.by_tokens);
    assert_eq!(total, (tok.count(text), true));
}
