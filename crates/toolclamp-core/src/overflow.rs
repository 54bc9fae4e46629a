//! Telling a provider's "the prompt is too long" from everything else: a context overflow
//! (the conversation must shrink), a request body too large (it must shrink too), a rate
//! limit or quota (waiting helps, shrinking does not), or another error.
//!
//! The rule: the message (every text the caller found in the error, joined) is read
//! without regard to ASCII case; rate-limit and quota phrases are checked first, so a tokens-per-minute limit
//! answered with 413 (Groq) or "Too many tokens" from a throttle (Bedrock) never reads as an
//! overflow; then [`OVERFLOWS`], each with the provider it names and where its token counts
//! are; then a bare `request_too_large` or status 413 is a body too large, 429 a rate limit.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind};

/// What an error says about the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    ContextOverflow,
    PayloadTooLarge,
    RateLimit,
    Other,
}

/// An error, classified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorClass {
    pub kind: ErrorKind,
    /// The provider whose message matched, when it names one.
    pub provider: Option<&'static str>,
    /// The context window (or input limit) in tokens, when the message states it.
    pub limit_tokens: Option<u64>,
    /// The tokens the request held, when the message states it.
    pub requested_tokens: Option<u64>,
}

/// A known overflow message: every phrase of `all` occurs (in lower case), and the token
/// counts follow `limit_after` and `requested_after` (the first number after the phrase).
pub struct Overflow {
    pub provider: &'static str,
    pub all: &'static [&'static str],
    pub limit_after: &'static [&'static str],
    pub requested_after: &'static [&'static str],
}

const fn rule(
    provider: &'static str,
    all: &'static [&'static str],
    limit_after: &'static [&'static str],
    requested_after: &'static [&'static str],
) -> Overflow {
    Overflow { provider, all, limit_after, requested_after }
}

/// Overflow messages, the more specific first (a provider's own wording before the
/// OpenAI-compatible one many servers copy).
pub const OVERFLOWS: &[Overflow] = &[
    rule(
        "fireworks",
        &["the prompt is too long", "model maximum context length"],
        &["maximum context length: "],
        &["the prompt is too long: "],
    ),
    rule("anthropic", &["prompt is too long"], &["> "], &["prompt is too long: "]),
    rule(
        "openrouter",
        &["this endpoint's maximum context length"],
        &["maximum context length is "],
        &["requested about ", "requested "],
    ),
    rule("xai", &["maximum prompt length is"], &["maximum prompt length is "], &["request contains "]),
    rule("mistral", &["too large for model with"], &["too large for model with "], &["prompt contains "]),
    rule(
        "google",
        &["input token count", "exceeds the maximum number of tokens"],
        &["tokens allowed ("],
        &["input token count ("],
    ),
    rule("google", &["exceeds the maximum number of tokens allowed"], &["tokens allowed ("], &[]),
    rule("amazon-bedrock", &["input is too long for requested model"], &[], &[]),
    rule("amazon-bedrock", &["too many input tokens"], &[], &[]),
    rule("amazon-bedrock", &["model_context_window_exceeded"], &[], &[]),
    rule(
        "cohere",
        &["too many tokens: total number of tokens in the prompt cannot exceed"],
        &["cannot exceed "],
        &["received "],
    ),
    rule("together", &["tokens + `max_new_tokens` must be <="], &["must be <= "], &["given: "]),
    rule("llama.cpp", &["exceeds the available context size"], &["context size ("], &["request ("]),
    rule("llama.cpp", &["exceed_context_size_error"], &["n_ctx\":"], &["n_prompt_tokens\":"]),
    rule("lm-studio", &["context the overflows"], &[], &[]),
    rule("lm-studio", &["context length of only"], &["context length of only "], &[]),
    rule("ollama", &["prompt too long"], &[], &[]),
    rule("ollama", &["input length exceeds the context length"], &[], &[]),
    rule("litellm", &["contextwindowexceedederror"], &["maximum context length is "], &["resulted in "]),
    rule("moonshot", &["exceeded model token limit"], &["model token limit: "], &[]),
    rule("minimax", &["context window exceeds limit"], &[], &[]),
    rule("zai", &["prompt exceeds max length"], &[], &[]),
    rule("dashscope", &["range of input length should be"], &["should be [1, "], &[]),
    rule(
        "groq",
        &["please reduce the length of the messages or completion"],
        &["maximum context length is "],
        &["resulted in "],
    ),
    rule("openai", &["your input exceeds the context window"], &[], &[]),
    rule("openai", &["context_length_exceeded"], &["maximum context length is "], &["resulted in ", "requested "]),
    rule("openai", &["maximum context length is"], &["maximum context length is "], &["resulted in ", "requested "]),
    rule("vllm", &["is longer than the maximum model length"], &["maximum model length of "], &["prompt (length "]),
    rule("", &["context window exceeded"], &[], &[]),
    rule("", &["context length exceeded"], &[], &[]),
    rule("", &["exceeds the model's context"], &[], &[]),
    rule("", &["maximum context window"], &[], &[]),
    rule("", &["上下文过长"], &[], &[]),
    rule("", &["上下文长度超"], &[], &[]),
    rule("", &["超出最大长度"], &[], &[]),
    rule("", &["超过最大上下文"], &[], &[]),
    rule("", &["超出上下文"], &[], &[]),
    rule("", &["输入过长"], &[], &[]),
];

/// Rate limits, quotas, billing and overload: shrinking the prompt does not help.
pub const RATE_LIMITS: &[&str] = &[
    "rate limit",
    "rate_limit",
    "ratelimit",
    "tokens per min",
    "tokens per minute",
    "(tpm)",
    "requests per min",
    "throttlingexception",
    "too many requests",
    "insufficient_quota",
    "exceeded your current quota",
    "quota exceeded",
    "resource_exhausted",
    "billing",
    "overloaded",
    "请求过于频繁",
    "限流",
];

/// Phrases that tell a body too large, apart from a provider's overflow wording.
const PAYLOAD_TOO_LARGE: &[&str] = &["request_too_large", "request entity too large"];

/// Every phrase of the tables in one automaton, so a message is read once whatever the
/// number of rules (a 1 KiB message: one pass instead of a search per phrase and rule).
struct Phrases {
    automaton: AhoCorasick,
    /// The pattern ids of each table's phrases: [`RATE_LIMITS`], each rule's `all`, then
    /// [`PAYLOAD_TOO_LARGE`].
    rate_limits: Vec<usize>,
    overflows: Vec<Vec<usize>>,
    payload_too_large: Vec<usize>,
}

fn phrases() -> &'static Phrases {
    static PHRASES: OnceLock<Phrases> = OnceLock::new();
    PHRASES.get_or_init(|| {
        let mut patterns: Vec<&str> = Vec::new();
        let mut ids = |list: &[&'static str]| {
            list.iter()
                .map(|p| {
                    patterns.push(p);
                    patterns.len() - 1
                })
                .collect::<Vec<_>>()
        };
        let rate_limits = ids(RATE_LIMITS);
        let overflows = OVERFLOWS.iter().map(|o| ids(o.all)).collect();
        let payload_too_large = ids(PAYLOAD_TOO_LARGE);
        // Phrases are lower case; ASCII case is ignored by the automaton, so the message is
        // read as it is (the only non-ASCII phrases are Chinese, which has no case). A DFA:
        // the tables are small, and a message is read once per call.
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .build(&patterns)
            .expect("the phrase tables build an automaton");
        Phrases { automaton, rate_limits, overflows, payload_too_large }
    })
}

/// Classifies an error from its joined texts, its HTTP status and its code.
pub fn classify_provider_error(message: &str, status: Option<u16>, code: Option<&str>) -> ErrorClass {
    let phrases = phrases();
    let mut found = vec![false; phrases.automaton.patterns_len()];
    for text in [message, code.unwrap_or("")] {
        for m in phrases.automaton.find_overlapping_iter(text) {
            found[m.pattern().as_usize()] = true;
        }
    }
    let any = |ids: &[usize]| ids.iter().any(|&i| found[i]);
    let class = |kind, provider| ErrorClass { kind, provider, limit_tokens: None, requested_tokens: None };
    if any(&phrases.rate_limits) || status == Some(429) {
        return class(ErrorKind::RateLimit, None);
    }
    for (o, ids) in OVERFLOWS.iter().zip(&phrases.overflows) {
        if ids.iter().all(|&i| found[i]) {
            // Lower case for the counts' phrases, only for the error that matched.
            let text = message.to_lowercase();
            return ErrorClass {
                kind: ErrorKind::ContextOverflow,
                provider: (!o.provider.is_empty()).then_some(o.provider),
                limit_tokens: number_after(&text, o.limit_after),
                requested_tokens: number_after(&text, o.requested_after),
            };
        }
    }
    if any(&phrases.payload_too_large) || status == Some(413) {
        let provider = found[phrases.payload_too_large[0]].then_some("anthropic");
        return class(ErrorKind::PayloadTooLarge, provider);
    }
    class(ErrorKind::Other, None)
}

/// The first number (digits, with `,` or `_` separators) right after one of `phrases`.
fn number_after(text: &str, phrases: &[&str]) -> Option<u64> {
    phrases.iter().find_map(|phrase| {
        let at = text.find(phrase)? + phrase.len();
        let rest = text[at..].trim_start_matches([' ', '(', ':', '~']);
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == ',' || *c == '_').collect();
        let value: String = digits.chars().filter(char::is_ascii_digit).collect();
        value.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overflow(message: &str) -> ErrorClass {
        let c = classify_provider_error(message, None, None);
        assert_eq!(c.kind, ErrorKind::ContextOverflow, "{message}");
        c
    }

    /// A message, and the provider, limit and requested tokens it must give.
    type Case = (&'static str, Option<&'static str>, Option<u64>, Option<u64>);

    #[test]
    fn each_providers_overflow_message_with_its_counts() {
        let cases: &[Case] = &[
            ("This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.", Some("openai"), Some(128000), Some(130532)),
            ("Your input exceeds the context window of this model. Please adjust your input and try again.", Some("openai"), None, None),
            ("prompt is too long: 208310 tokens > 200000 maximum", Some("anthropic"), Some(200000), Some(208310)),
            ("The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).", Some("google"), Some(1048575), Some(1196265)),
            ("ValidationException: Input is too long for requested model.", Some("amazon-bedrock"), None, None),
            ("Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length", Some("mistral"), Some(131072), Some(140000)),
            ("Please reduce the length of the messages or completion. This model's maximum context length is 131072 tokens. However, your messages resulted in 140000 tokens.", Some("groq"), Some(131072), Some(140000)),
            ("This model's maximum prompt length is 131072 but the request contains 140000 tokens.", Some("xai"), Some(131072), Some(140000)),
            ("This endpoint's maximum context length is 163840 tokens. However, you requested about 170000 tokens (170000 of text input).", Some("openrouter"), Some(163840), Some(170000)),
            ("Input validation error: `inputs` tokens + `max_new_tokens` must be <= 32769. Given: 40000 `inputs` tokens and 512 `max_new_tokens`", Some("together"), Some(32769), Some(40000)),
            ("The prompt is too long: 140000, model maximum context length: 131072", Some("fireworks"), Some(131072), Some(140000)),
            ("too many tokens: total number of tokens in the prompt cannot exceed 128000 - received 140000. Try using a shorter prompt", Some("cohere"), Some(128000), Some(140000)),
            ("the request exceeds the available context size, try increasing it", Some("llama.cpp"), None, None),
            ("Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of only 8192 tokens", Some("lm-studio"), None, None),
            ("prompt too long; exceeded max context length by 4000 tokens", Some("ollama"), None, None),
            ("litellm.ContextWindowExceededError: This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens", Some("litellm"), Some(8192), Some(9000)),
            ("Invalid request: Your request exceeded model token limit: 262144", Some("moonshot"), Some(262144), None),
            ("invalid params, context window exceeds limit (2013)", Some("minimax"), None, None),
            ("Prompt exceeds max length", Some("zai"), None, None),
            ("Range of input length should be [1, 30720]", Some("dashscope"), Some(30720), None),
            ("This model's maximum context length is 65536 tokens. However, you requested 70000 tokens", Some("openai"), Some(65536), Some(70000)),
            ("The decoder prompt (length 140000) is longer than the maximum model length of 131072.", Some("vllm"), Some(131072), Some(140000)),
            ("请求失败：上下文过长，请缩短输入", None, None, None),
            ("错误：输入超出最大长度限制", None, None, None),
        ];
        for &(message, provider, limit, requested) in cases {
            let c = overflow(message);
            assert_eq!((c.provider, c.limit_tokens, c.requested_tokens), (provider, limit, requested), "{message}");
        }
        // Azure and DeepSeek answer with OpenAI's code.
        let azure = classify_provider_error("Bad request", Some(400), Some("context_length_exceeded"));
        assert_eq!(azure.kind, ErrorKind::ContextOverflow);
    }

    #[test]
    fn rate_limits_and_quotas_are_never_overflows() {
        for message in [
            "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 5000.",
            "Request too large for model `llama-3.3-70b` in organization on tokens per minute (TPM): Limit 6000, Requested 9000",
            "ThrottlingException: Too many tokens, please wait before trying again.",
            "You exceeded your current quota, please check your plan and billing details. insufficient_quota",
            "Overloaded",
            "RESOURCE_EXHAUSTED: Quota exceeded for metric generate_content_input_token_count",
        ] {
            assert_eq!(classify_provider_error(message, None, None).kind, ErrorKind::RateLimit, "{message}");
        }
        // Groq answers TPM with 413: still a rate limit.
        let groq = classify_provider_error("Request too large ... tokens per minute (TPM)", Some(413), None);
        assert_eq!(groq.kind, ErrorKind::RateLimit);
        assert_eq!(classify_provider_error("slow down", Some(429), None).kind, ErrorKind::RateLimit);
    }

    #[test]
    fn a_body_too_large_and_other_errors() {
        let anthropic =
            classify_provider_error("Request exceeds the maximum size", Some(413), Some("request_too_large"));
        assert_eq!((anthropic.kind, anthropic.provider), (ErrorKind::PayloadTooLarge, Some("anthropic")));
        assert_eq!(classify_provider_error("", Some(413), None).kind, ErrorKind::PayloadTooLarge);
        assert_eq!(classify_provider_error("invalid api key", Some(401), None).kind, ErrorKind::Other);
        assert_eq!(classify_provider_error("", None, None).kind, ErrorKind::Other);
    }
}
