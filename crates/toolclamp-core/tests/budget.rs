//! Conversation budgets: `plan_budget` against the rules in its module docs, on random
//! conversations, and the elision marker.

use proptest::prelude::*;
use toolclamp_core::{
    bytes_for_tokens, elision_marker, estimate_tokens, plan_budget, Action, BudgetRequest, MarkerFacts, ResultSize,
    BYTES_PER_TOKEN,
};

/// Tokens a result takes under `action`, written out again here as the reference.
fn tokens(s: &ResultSize, action: Action) -> u64 {
    let text = match action {
        Action::Keep => s.text_tokens,
        Action::Clamp(t) => t,
        Action::Elide => s.marker_tokens.min(s.text_tokens),
    };
    text + s.fixed_tokens
}

/// The least a result can take: its marker (or its text, when shorter) and its media.
fn least(s: &ResultSize) -> u64 {
    s.marker_tokens.min(s.text_tokens) + s.fixed_tokens
}

fn size() -> impl Strategy<Value = ResultSize> {
    (0u64..20_000, 1u64..4, prop_oneof![3 => Just(0u64), 1 => 0u64..5_000], 10u64..120).prop_map(
        |(text_tokens, chars_per_token, fixed_tokens, marker_tokens)| ResultSize {
            text_tokens,
            text_chars: text_tokens * chars_per_token,
            fixed_tokens,
            marker_tokens,
        },
    )
}

fn request() -> impl Strategy<Value = BudgetRequest> {
    (0u64..30_000, 0u64..80_000, 0u64..5_000, 0usize..4).prop_map(
        |(per_result, aggregate, min_keep_chars, protect_recent)| BudgetRequest {
            per_result,
            aggregate,
            min_keep_chars,
            protect_recent,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    #[test]
    fn plans_keep_the_rules(sizes in prop::collection::vec(size(), 0..12), req in request()) {
        let plan = plan_budget(&sizes, &req);
        prop_assert_eq!(plan.actions.len(), sizes.len());
        let before: u64 = sizes.iter().map(|s| tokens(s, Action::Keep)).sum();
        let after: u64 = sizes.iter().zip(&plan.actions).map(|(s, &a)| tokens(s, a)).sum();
        prop_assert_eq!(plan.tokens_before, before);
        prop_assert_eq!(plan.tokens_after, after);
        prop_assert!(after <= before);

        // Nothing is cut when everything fits.
        if before <= req.aggregate && sizes.iter().all(|s| tokens(s, Action::Keep) <= req.per_result) {
            prop_assert!(plan.actions.iter().all(|&a| a == Action::Keep));
        }
        for (s, &a) in sizes.iter().zip(&plan.actions) {
            match a {
                // A clamp shortens, and keeps more than the marker would.
                Action::Clamp(t) => prop_assert!(t < s.text_tokens && t > s.marker_tokens),
                // An elision gains something.
                Action::Elide => prop_assert!(s.marker_tokens < s.text_tokens),
                Action::Keep => {}
            }
            // A result over its cap is cut to it, or as far as it goes.
            let now = tokens(s, a);
            prop_assert!(now <= req.per_result || now == least(s) || a == Action::Keep && s.text_tokens <= s.marker_tokens);
        }
        let fits = after <= req.aggregate && sizes.iter().zip(&plan.actions).all(|(s, &a)| tokens(s, a) <= req.per_result);
        prop_assert_eq!(plan.fits, fits);
        // Over the aggregate only when every result is as short as it goes.
        if after > req.aggregate {
            for (s, &a) in sizes.iter().zip(&plan.actions) {
                prop_assert_eq!(tokens(s, a), least(s));
            }
        }
        // The oldest first: an unprotected result cut below its own cap's size means every
        // older unprotected result is as short as it goes; a protected one cut that way
        // means every unprotected one is.
        let protected_from = sizes.len().saturating_sub(req.protect_recent);
        let capped = |s: &ResultSize| {
            let keep = tokens(s, Action::Keep);
            if keep <= req.per_result { keep } else { req.per_result.max(least(s)) }
        };
        for (j, (s, &a)) in sizes.iter().zip(&plan.actions).enumerate() {
            if tokens(s, a) >= capped(s) {
                continue;
            }
            let before_j: Vec<usize> = if j < protected_from { (0..j).collect() } else {
                (0..protected_from).chain(protected_from..j).collect()
            };
            for i in before_j {
                prop_assert_eq!(tokens(&sizes[i], plan.actions[i]), least(&sizes[i]), "result {} cut before {}", j, i);
            }
        }
        // No more is cut than needed: when the last result cut by the aggregate is clamped
        // (not elided), the total lands on the aggregate exactly.
        let last_cut = (0..sizes.len())
            .filter(|&i| tokens(&sizes[i], plan.actions[i]) < capped(&sizes[i]))
            .max_by_key(|&i| if i < protected_from { i } else { sizes.len() + i });
        if let Some(i) = last_cut {
            if let Action::Clamp(_) = plan.actions[i] {
                prop_assert_eq!(after, req.aggregate);
            }
        }
    }

    #[test]
    fn a_token_budget_is_a_byte_budget(bytes in 0u64..1 << 40, tokens in 0u64..1 << 38) {
        prop_assert_eq!(estimate_tokens(bytes) <= tokens, bytes <= bytes_for_tokens(tokens));
    }
}

#[test]
fn estimates_round_up() {
    assert_eq!(BYTES_PER_TOKEN, 3);
    assert_eq!(estimate_tokens(0), 0);
    assert_eq!(estimate_tokens(1), 1);
    assert_eq!(estimate_tokens(3), 1);
    assert_eq!(estimate_tokens(4), 2);
    // One CJK char, three UTF-8 bytes: one token.
    assert_eq!(estimate_tokens("上".len() as u64), 1);
    assert_eq!(bytes_for_tokens(u64::MAX), u64::MAX);
}

#[test]
fn cuts_the_oldest_first_and_protects_the_newest() {
    let r = |text_tokens| ResultSize { text_tokens, text_chars: text_tokens * 3, fixed_tokens: 0, marker_tokens: 50 };
    let sizes = [r(10_000), r(10_000), r(10_000), r(10_000)];
    let req = BudgetRequest { per_result: 20_000, aggregate: 25_000, min_keep_chars: 2_000, protect_recent: 1 };
    let plan = plan_budget(&sizes, &req);
    // 40,000 over 25,000: the oldest goes to its marker (15,000 over → it is 10,000), the
    // second is cut by the 5,050 still over.
    assert_eq!(plan.actions, [Action::Elide, Action::Clamp(4_950), Action::Keep, Action::Keep]);
    assert_eq!(plan.tokens_after, 25_000);
    assert!(plan.fits);

    // A cut that would keep fewer than 2,000 chars (667 tokens at 3 chars a token) elides
    // instead: the second would keep 550.
    let req = BudgetRequest { aggregate: 20_600, ..req };
    let plan = plan_budget(&sizes, &req);
    assert_eq!(plan.actions, [Action::Elide, Action::Elide, Action::Keep, Action::Keep]);
    assert_eq!(plan.tokens_after, 20_100);

    // The protected newest are cut only after every older one is a marker, the older first.
    let req = BudgetRequest { aggregate: 5_000, protect_recent: 2, ..req };
    let plan = plan_budget(&sizes, &req);
    assert_eq!(plan.actions, [Action::Elide, Action::Elide, Action::Elide, Action::Clamp(4_850)]);
    assert_eq!(plan.tokens_after, 5_000);
}

#[test]
fn one_result_over_its_cap_is_clamped_to_it() {
    let sizes = [ResultSize { text_tokens: 90_000, text_chars: 270_000, fixed_tokens: 1_600, marker_tokens: 40 }];
    let req = BudgetRequest { per_result: 60_000, aggregate: 100_000, min_keep_chars: 2_000, protect_recent: 1 };
    let plan = plan_budget(&sizes, &req);
    assert_eq!(plan.actions, [Action::Clamp(58_400)]);
    assert_eq!(plan.tokens_after, 60_000);
    assert!(plan.fits);
}

#[test]
fn media_alone_over_the_budget_does_not_fit() {
    let sizes = [ResultSize { text_tokens: 10, text_chars: 30, fixed_tokens: 5 * 1_600, marker_tokens: 40 }];
    let req = BudgetRequest { per_result: 1_000, aggregate: 1_000, min_keep_chars: 0, protect_recent: 0 };
    let plan = plan_budget(&sizes, &req);
    assert_eq!(plan.actions, [Action::Keep]);
    assert!(!plan.fits);
}

#[test]
fn markers_say_what_was_there_and_where_it_is() {
    let facts = MarkerFacts { chars: 48_213, lines: 1_204, tokens: 16_071, spill_path: Some("/tmp/out\n.txt") };
    assert_eq!(
        elision_marker(&facts),
        "[tool output elided to fit the context window: 48,213 chars, 1,204 lines, about 16,071 tokens; the full \
         output is saved in /tmp/out\\u000a.txt]"
    );
    let facts = MarkerFacts { chars: 1, lines: 1, tokens: 1, spill_path: None };
    assert_eq!(
        elision_marker(&facts),
        "[tool output elided to fit the context window: 1 char, 1 line, about 1 token; rerun the tool to see it again]"
    );
}
