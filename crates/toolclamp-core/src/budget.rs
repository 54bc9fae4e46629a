//! Token budgets across a conversation: how much of a model's context window the tool
//! results in it may take, and which of them to shorten when they take more.
//!
//! Tokens are estimated, never counted by a model's tokenizer: [`estimate_tokens`] is one
//! token per [`BYTES_PER_TOKEN`] UTF-8 bytes, rounded up. Three bytes is what a common CJK
//! char takes in UTF-8 and about what one costs in OpenAI's o200k_base; ASCII costs a token
//! per 3 chars, more than prose and source code take. Dense content takes more than the
//! estimate: base64, hex, rare CJK and terminal output with colour codes up to two or three
//! times (docs/tokens.md has the table a test measures). A budget of `n` tokens is exactly a
//! budget of `3n` bytes ([`bytes_for_tokens`]), which the byte planner keeps. Media (an image, an audio clip) counts [`MEDIA_TOKENS`].
//!
//! [`plan_budget`] decides, for the tool results of a conversation in order (oldest first),
//! which are kept, which are clamped to how many tokens and which are elided to a marker:
//! 1. every result above its own cap (`per_result` tokens, media included) is clamped to it;
//! 2. while all results together exceed `aggregate`, the oldest are cut first: a result is
//!    clamped by just what is still over, unless that would leave it fewer than its share
//!    of `min_keep_chars`, in which case it is elided; the newest `protect_recent` results
//!    are cut last, the same way.
//!
//! A result is never removed: the least it becomes is its marker, and its media stays.
//! [`elision_marker`] writes that marker, which says what was there and how to get it back.

use crate::notice::push_count;

/// UTF-8 bytes per estimated token.
pub const BYTES_PER_TOKEN: u64 = 3;

/// The estimate for one media part (an image, audio, a file): Anthropic bills an image at
/// about (width × height) / 750 tokens and scales images down to about 1.15 megapixels, so
/// at most about 1,600 tokens; OpenAI's high-detail images cost at most a few hundred more
/// per tile pair. The data itself (base64) is never counted as text.
pub const MEDIA_TOKENS: u64 = 1_600;

/// The estimated tokens of a text of `bytes` UTF-8 bytes.
#[inline]
pub fn estimate_tokens(bytes: u64) -> u64 {
    bytes.div_ceil(BYTES_PER_TOKEN)
}

/// The UTF-8 bytes a budget of `tokens` estimated tokens allows: a text fits `tokens`
/// exactly when its bytes fit this.
#[inline]
pub fn bytes_for_tokens(tokens: u64) -> u64 {
    tokens.saturating_mul(BYTES_PER_TOKEN)
}

/// One tool result as the plan sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResultSize {
    /// Estimated tokens of its text (what can be cut).
    pub text_tokens: u64,
    /// UTF-16 chars of its text, to tell how many tokens `min_keep_chars` chars take.
    pub text_chars: u64,
    /// Estimated tokens of what is kept whatever happens: media parts.
    pub fixed_tokens: u64,
    /// Estimated tokens of its elision marker.
    pub marker_tokens: u64,
}

/// The budgets of a plan, in estimated tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetRequest {
    /// What one result may take, media included.
    pub per_result: u64,
    /// What all results together may take.
    pub aggregate: u64,
    /// A cut keeps at least this many chars of a result's text, else the result is elided.
    pub min_keep_chars: u64,
    /// The newest results cut last.
    pub protect_recent: usize,
}

/// What becomes of one result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Left as it is.
    Keep,
    /// Its text clamped to at most this many estimated tokens (notice included).
    Clamp(u64),
    /// Its text replaced by its marker; media kept.
    Elide,
}

/// A plan for the tool results of a conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    /// One action per result, in the order given.
    pub actions: Vec<Action>,
    /// Estimated tokens of all results before.
    pub tokens_before: u64,
    /// Estimated tokens of all results after (an upper bound: a clamp may keep less).
    pub tokens_after: u64,
    /// Whether every result is within `per_result` and all within `aggregate`. False only
    /// when markers and media alone are over: nothing left to cut.
    pub fits: bool,
}

impl ResultSize {
    /// Tokens of text a cut to `min_keep_chars` chars keeps at most, at this text's own
    /// tokens per char (rounded up).
    fn min_keep_tokens(&self, min_keep_chars: u64) -> u64 {
        if self.text_chars == 0 {
            return 0;
        }
        let tokens = (min_keep_chars as u128 * self.text_tokens as u128).div_ceil(self.text_chars as u128);
        tokens.min(self.text_tokens as u128) as u64
    }

    fn tokens_with(&self, action: Action) -> u64 {
        let text = match action {
            Action::Keep => self.text_tokens,
            Action::Clamp(t) => t.min(self.text_tokens),
            Action::Elide => self.marker_tokens.min(self.text_tokens),
        };
        text.saturating_add(self.fixed_tokens)
    }
}

/// The text budget of a result cut down to `tokens` of text: a clamp, or its marker when
/// the cut would keep fewer than `min_keep` tokens or no more than the marker takes (and as
/// it is when even the marker is no shorter).
fn cut_to(size: &ResultSize, tokens: u64, min_keep: u64) -> Action {
    if tokens >= size.text_tokens || size.text_tokens <= size.marker_tokens {
        Action::Keep
    } else if tokens < min_keep || tokens <= size.marker_tokens {
        Action::Elide
    } else {
        Action::Clamp(tokens)
    }
}

/// Plans the tool results `sizes` (oldest first) into `request`'s budgets.
pub fn plan_budget(sizes: &[ResultSize], request: &BudgetRequest) -> Budget {
    let tokens_before = sizes.iter().fold(0u64, |sum, s| sum.saturating_add(s.tokens_with(Action::Keep)));
    // 1. Each result within its own cap. No minimum applies: the cap is the rule.
    let mut actions: Vec<Action> = sizes
        .iter()
        .map(|s| {
            if s.tokens_with(Action::Keep) <= request.per_result {
                Action::Keep
            } else {
                cut_to(s, request.per_result.saturating_sub(s.fixed_tokens), 0)
            }
        })
        .collect();
    let mut total = sizes.iter().zip(&actions).fold(0u64, |sum, (s, &a)| sum.saturating_add(s.tokens_with(a)));
    // 2. The oldest first, the protected newest last.
    let protected_from = sizes.len().saturating_sub(request.protect_recent);
    let order = (0..protected_from).chain(protected_from..sizes.len());
    for i in order {
        if total <= request.aggregate {
            break;
        }
        let size = &sizes[i];
        let now = size.tokens_with(actions[i]);
        let over = total - request.aggregate;
        let text_now = now - size.fixed_tokens;
        let next = if over >= text_now {
            cut_to(size, 0, 0)
        } else {
            match cut_to(size, text_now - over, size.min_keep_tokens(request.min_keep_chars)) {
                // Already at or under the marker: nothing to gain.
                Action::Keep => actions[i],
                cut => cut,
            }
        };
        if size.tokens_with(next) < now {
            actions[i] = next;
            total = total - now + size.tokens_with(next);
        }
    }
    let fits =
        total <= request.aggregate && sizes.iter().zip(&actions).all(|(s, &a)| s.tokens_with(a) <= request.per_result);
    Budget { actions, tokens_before, tokens_after: total, fits }
}

/// What an elision marker says about the text it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarkerFacts<'a> {
    pub chars: u64,
    pub lines: u64,
    pub tokens: u64,
    /// Where the full text was saved, if it was.
    pub spill_path: Option<&'a str>,
}

/// The text that stands for an elided tool result: `[tool output elided to fit the context
/// window: 48,213 chars, 1,204 lines, about 16,071 tokens; the full output is saved in
/// /tmp/x.txt]`, or `...; rerun the tool to see it again]` when nothing was saved. A path
/// is shown on one line, whatever it holds.
pub fn elision_marker(facts: &MarkerFacts) -> String {
    let mut out = String::with_capacity(160);
    out.push_str("[tool output elided to fit the context window: ");
    push_count(&mut out, facts.chars);
    out.push_str(if facts.chars == 1 { " char, " } else { " chars, " });
    push_count(&mut out, facts.lines);
    out.push_str(if facts.lines == 1 { " line, about " } else { " lines, about " });
    push_count(&mut out, facts.tokens);
    out.push_str(if facts.tokens == 1 { " token; " } else { " tokens; " });
    match facts.spill_path {
        Some(path) => {
            out.push_str("the full output is saved in ");
            for c in path.chars() {
                if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    out.push(c);
                }
            }
        }
        None => out.push_str("rerun the tool to see it again"),
    }
    out.push(']');
    out
}
