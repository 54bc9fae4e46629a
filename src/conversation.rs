//! Conversations: provider errors classified, tool results budgeted, elision markers.

use std::borrow::Cow;

use napi::sys;
use toolclamp_core::{
    classify_provider_error, elision_marker, estimate_tokens, measure_str, plan_budget, BudgetRequest, MarkerFacts,
    ResultSize,
};

use crate::call::{Answer, Call, Thrown};
use crate::layout::{budget_action_code, error_kind_code, Results, Slot, Verdict, BUDGET_FIELDS};
use crate::text::{with_scratch, LATIN1, UTF16};

/// `classifyError`: what a provider's error says, from the texts JS found in it (`message`,
/// joined; `wide` when it has a char above U+00FF), its HTTP `status` (-1, or anything but
/// a whole number from 100 to 599, for none) and its `code` ("" for none).
/// Answers the provider's name (or `null`), with the kind and the token counts (-1 when
/// the message states none) in their slots.
pub(crate) fn classify_error(call: &Call) -> Answer {
    let wide = call.boolean(2)?;
    let status = call.number(3)?;
    let code = call.notice_text(call.arg(4)).map_err(|e| call.naming(e, 4, "a string"))?;
    let status = (status.fract() == 0.0 && (100.0..=599.0).contains(&status)).then_some(status as u16);
    let code = (!code.text.is_empty()).then_some(code.text.as_str());
    let class = if wide {
        // Lone surrogates cannot be part of a phrase: replaced, as the UTF-16 is read.
        let units = with_scratch(&UTF16, |buf| call.string_arg::<u16>(1, buf).map(String::from_utf16_lossy))?;
        classify_provider_error(&units, status, code)
    } else {
        with_scratch(&LATIN1, |buf| {
            let units = call.string_arg::<u8>(1, buf)?;
            // ASCII (the usual error) is UTF-8 as it is; other Latin-1 is widened.
            let text = match std::str::from_utf8(units) {
                Ok(text) if units.is_ascii() => Cow::Borrowed(text),
                _ => Cow::Owned(units.iter().map(|&b| char::from(b)).collect::<String>()),
            };
            Ok::<_, Thrown>(classify_provider_error(&text, status, code))
        })?
    };
    let mut r = Results::new(Verdict::Classified);
    r.set(Slot::ErrorKind, error_kind_code(class.kind))
        .set_optional(Slot::LimitTokens, class.limit_tokens)
        .set_optional(Slot::RequestedTokens, class.requested_tokens);
    let provider = match class.provider {
        Some(name) => call.string_from_utf8(name.as_bytes(), name.len())?,
        None => call.null()?,
    };
    call.answer(&r)?;
    Ok(provider)
}

/// `planBudget`: plans the tool results of a conversation (oldest first) into token budgets
/// (`perResult` each, `aggregate` together): a cut keeps at least `minKeepChars` chars of a
/// result or elides it, and the `protectRecent` newest are cut last
/// ([`toolclamp_core::plan_budget`]). `sizes` is a `Float64Array`
/// of `LAYOUT.budgetFields` per result; each result's first two fields are overwritten with
/// its action's code (`LAYOUT.budgetActions`) and the text tokens a clamp keeps.
pub(crate) fn plan_budget_of(call: &Call) -> Answer {
    let request = BudgetRequest {
        per_result: call.budget(2)?,
        aggregate: call.budget(3)?,
        min_keep_chars: call.budget(4)?,
        protect_recent: call.index(5)?,
    };
    let fields = BUDGET_FIELDS.len();
    // SAFETY: no JS runs until this function returns (the plan is pure Rust and the
    // answer is written to argument 0, another buffer), and this is the only slice taken.
    let sizes = unsafe { call.f64s_mut(1)? };
    if sizes.len() % fields != 0 {
        return Err(call.range_error(1, &format!("{fields} numbers per result"), sizes.len()));
    }
    let mut results = Vec::with_capacity(sizes.len() / fields);
    for (k, f) in sizes.chunks_exact(fields).enumerate() {
        let count = |x: f64| {
            let n = x as u64;
            (n as f64 == x)
                .then_some(n)
                .ok_or_else(|| call.range_error(1, "non-negative integers", format!("{x} at {k}")))
        };
        results.push(ResultSize {
            text_tokens: count(f[0])?,
            text_chars: count(f[1])?,
            fixed_tokens: count(f[2])?,
            marker_tokens: count(f[3])?,
        });
    }
    let budget = plan_budget(&results, &request);
    for (f, &action) in sizes.chunks_exact_mut(fields).zip(&budget.actions) {
        let (code, tokens) = budget_action_code(action);
        f[0] = code;
        f[1] = tokens as f64;
    }
    call.written(call.arg(1), 0, sizes.len())?;
    let mut r = Results::new(Verdict::Budgeted);
    r.set(Slot::TokensBefore, budget.tokens_before)
        .set(Slot::TokensAfter, budget.tokens_after)
        .set(Slot::Fits, u8::from(budget.fits));
    call.answer(&r)?;
    call.undefined()
}

/// `elisionMarker` → the marker that stands for an
/// elided tool result (`spillPath` a string or null), with its chars, bytes, lines and
/// tokens in the total slots.
pub(crate) fn elision_marker_of(call: &Call) -> Answer {
    let chars = call.index(1)? as u64;
    let lines = call.index(2)? as u64;
    let tokens = call.index(3)? as u64;
    let path = match call.type_of(call.arg(4))? {
        sys::ValueType::napi_null => None,
        _ => Some(call.notice_text(call.arg(4)).map_err(|e| call.naming(e, 4, "a string or null"))?),
    };
    let marker =
        elision_marker(&MarkerFacts { chars, lines, tokens, spill_path: path.as_ref().map(|p| p.text.as_str()) });
    let m = measure_str(&marker);
    let mut r = Results::new(Verdict::Marker);
    r.set_measure(Slot::TotalChars, m).set(Slot::TotalTokens, estimate_tokens(m.bytes));
    call.answer(&r)?;
    match &path {
        Some(p) => call.string_from_core(&marker, &p.stand_ins),
        None => call.string_from_utf8(marker.as_bytes(), m.chars as usize),
    }
}
