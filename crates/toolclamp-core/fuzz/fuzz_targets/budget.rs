//! The conversation budget and the provider-error classifier on arbitrary input: neither
//! panics; a budget never adds tokens, keeps one action per result, and says it fits only
//! when every result is within its cap and all within the aggregate; a classification's
//! counts come from the message. Run: `cargo +nightly fuzz run budget` in crates/toolclamp-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolclamp_core::{classify_provider_error, plan_budget, Action, BudgetRequest, ErrorKind, ResultSize};

fn tokens(s: &ResultSize, a: Action) -> u64 {
    let text = match a {
        Action::Keep => s.text_tokens,
        Action::Clamp(t) => t,
        Action::Elide => s.marker_tokens.min(s.text_tokens),
    };
    text.saturating_add(s.fixed_tokens)
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let (head, rest) = data.split_at(8);
    let n = |b: &[u8]| u64::from(u16::from_le_bytes([b[0], b[1]])) * 37;
    let request = BudgetRequest {
        per_result: n(&head[0..2]),
        aggregate: n(&head[2..4]) * 4,
        min_keep_chars: n(&head[4..6]),
        protect_recent: usize::from(head[6] % 5),
    };
    let sizes: Vec<ResultSize> = rest
        .chunks_exact(6)
        .map(|c| {
            let text_tokens = n(&c[0..2]);
            ResultSize {
                text_tokens,
                text_chars: text_tokens * u64::from(c[2] % 4),
                fixed_tokens: u64::from(c[3] % 4) * 1_600,
                marker_tokens: u64::from(c[4]) + u64::from(c[5] % 4) * 100,
            }
        })
        .collect();
    let plan = plan_budget(&sizes, &request);
    assert_eq!(plan.actions.len(), sizes.len());
    let after: u64 = sizes.iter().zip(&plan.actions).map(|(s, &a)| tokens(s, a)).sum();
    assert_eq!(plan.tokens_after, after);
    assert!(plan.tokens_after <= plan.tokens_before);
    let fits = after <= request.aggregate
        && sizes.iter().zip(&plan.actions).all(|(s, &a)| tokens(s, a) <= request.per_result);
    assert_eq!(plan.fits, fits);

    // The classifier on the bytes as text, with a status from the header.
    let message = String::from_utf8_lossy(rest);
    let status = u16::from_le_bytes([head[6], head[7]]) % 700;
    let class = classify_provider_error(&message, (100..600).contains(&status).then_some(status), None);
    if class.kind != ErrorKind::ContextOverflow {
        assert!(class.limit_tokens.is_none() && class.requested_tokens.is_none());
    }
    if let Some(limit) = class.limit_tokens {
        assert!(message.contains(&limit.to_string()) || message.replace([',', '_'], "").contains(&limit.to_string()));
    }
});
