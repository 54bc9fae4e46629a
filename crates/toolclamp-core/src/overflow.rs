//! Telling a provider's "the prompt is too long" from everything else: a context overflow
//! (the conversation must shrink), a request body too large (it must shrink too), a rate
//! limit or quota (waiting helps, shrinking does not), or another error.
//!
//! Providers word an overflow in many ways, so the rules read how such a message is built
//! rather than a list of messages:
//! - Only the last error counts: a retry wrapper ("Failed after 3 attempts. Last error: …")
//!   is read from its last "last error:" on.
//! - Rate limits, quotas, billing and overload ([`RATE_LIMITS`], status 429 or 529) come
//!   first: a tokens-per-minute limit answered with 413 (Groq) or "Too many tokens, please
//!   wait" (Bedrock) is never an overflow.
//! - An overflow is a sentence that relates something to a limit ("exceeds", "is too long",
//!   "is greater than", "must be <=", "overflows", `>`) and names a size (tokens, context,
//!   length, window, size), or states "maximum context length is N", or an error code such
//!   as `context_length_exceeded` (any identifier that joins "exceeded" to a context word),
//!   or the Chinese "超出 … 上下文/长度". One naming only bytes or a payload is a body too large.
//! - A statement about the completion alone (`max_tokens`, "maximum tokens you requested",
//!   "maximum output") is not an overflow: shrinking the prompt cannot fix it. Nor is one
//!   whose completion count is at least the context limit.
//! - Token counts are read where the message states them: a limit after "limit of",
//!   "maximum … is", "allowed (", "only", `<=`, `>`; the request after "requested", "total",
//!   "resulted in" (the whole request), or its input after "contains", "has", "given",
//!   "received" or left of the relation; an input plus the completion it reserves
//!   ("a + b > limit", "Given: a `inputs` tokens and b `max_new_tokens`") is the request.

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
    /// The provider whose wording matched, when it names one.
    pub provider: Option<&'static str>,
    /// The context window (or input limit) in tokens, when the message states it.
    pub limit_tokens: Option<u64>,
    /// The tokens the request needs (its input, plus the completion it reserves when the
    /// message counts that too), when the message states it.
    pub requested_tokens: Option<u64>,
}

/// Rate limits, quotas, billing, overload and throttling: waiting helps, shrinking does not.
/// Read in lower case; a hyphen is read as it is written ("per-minute" and "per minute").
pub const RATE_LIMITS: &[&str] = &[
    "rate limit",
    "rate_limit",
    "rate-limit",
    "ratelimit",
    "throttl",
    "too many requests",
    "per minute",
    "per-minute",
    "per min",
    "per second",
    "per day",
    "per-day",
    "(tpm)",
    "(rpm)",
    "quota",
    "billing",
    "insufficient balance",
    "insufficient credit",
    "insufficient funds",
    "credit balance",
    "overloaded",
    "overload",
    "capacity",
    "exhausted",
    "server busy",
    "try again later",
    "please wait",
    "retry in ",
    "retry after",
    "request limit",
    "余额不足",
    "充值",
    "频繁",
    "限流",
    "繁忙",
    "并发",
    "配额",
];

/// Phrases that tell a body too large, apart from a sentence that says so.
const PAYLOAD_TOO_LARGE: &[&str] = &["request_too_large", "entity too large", "payload too large"];

/// Names the provider whose wording an overflow (or a body too large) used: each entry is a
/// phrase and the provider, the more specific first (a provider's own wording before the
/// OpenAI-compatible one many servers copy). Naming only: the rules above classify.
pub const PROVIDER_HINTS: &[(&str, &str)] = &[
    ("model maximum context length", "fireworks"),
    ("requested token count exceeds", "fireworks"),
    ("prompt is too long", "anthropic"),
    ("exceed context limit", "anthropic"),
    ("request_too_large", "anthropic"),
    ("this endpoint's maximum context length", "openrouter"),
    ("maximum prompt length is", "xai"),
    ("too large for model with", "mistral"),
    ("input token count", "google"),
    ("request payload size exceeds", "google"),
    ("input is too long for requested model", "amazon-bedrock"),
    ("too many input tokens", "amazon-bedrock"),
    ("model_context_window_exceeded", "zai"),
    ("prompt exceeds max length", "zai"),
    ("too many tokens:", "cohere"),
    ("`max_new_tokens` must be <=", "tgi"),
    ("`inputs` must have less than", "tgi"),
    ("exceed_context_size_error", "llama.cpp"),
    ("available context size", "llama.cpp"),
    ("max context size", "llama.cpp"),
    ("context the overflows", "lm-studio"),
    ("tokens to keep from the initial prompt", "lm-studio"),
    ("n_keep", "lm-studio"),
    ("prompt token count of", "github-copilot"),
    ("model_max_prompt_tokens_exceeded", "github-copilot"),
    ("the context length currently available", "ollama"),
    ("prompt too long", "ollama"),
    ("exceeds the context length", "ollama"),
    ("truncation exceeds maximum context length", "ollama"),
    ("contextwindowexceedederror", "litellm"),
    ("exceeded model token limit", "moonshot"),
    ("context window exceeds limit", "minimax"),
    ("range of input length should be", "dashscope"),
    ("please reduce the length of the messages or completion", "groq"),
    ("is longer than the maximum model length", "vllm"),
    ("'max_completion_tokens' is too large", "vllm"),
    ("for a total of at least", "vllm"),
    ("your request has", "vllm"),
    ("your input exceeds the context window", "openai"),
    ("input tokens exceed the configured limit", "openai"),
    ("context_length_exceeded", "openai"),
    ("maximum context length is", "openai"),
];

/// The phrase tables in one automaton, so a message is read once whatever their number.
struct Phrases {
    automaton: AhoCorasick,
    /// Where each table's patterns start: [`RATE_LIMITS`], [`PAYLOAD_TOO_LARGE`], then
    /// [`PROVIDER_HINTS`].
    payload_from: usize,
    hints_from: usize,
}

fn phrases() -> &'static Phrases {
    static PHRASES: OnceLock<Phrases> = OnceLock::new();
    PHRASES.get_or_init(|| {
        let mut patterns: Vec<&str> = RATE_LIMITS.to_vec();
        let payload_from = patterns.len();
        patterns.extend(PAYLOAD_TOO_LARGE);
        let hints_from = patterns.len();
        patterns.extend(PROVIDER_HINTS.iter().map(|(phrase, _)| *phrase));
        // The text is lower-cased (ASCII) before it is read; the only non-ASCII phrases are
        // Chinese, which has no case.
        let automaton = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .build(&patterns)
            .expect("the phrase tables build an automaton");
        Phrases { automaton, payload_from, hints_from }
    })
}

/// Classifies an error from its joined texts, its HTTP status and its code.
pub fn classify_provider_error(message: &str, status: Option<u16>, code: Option<&str>) -> ErrorClass {
    let text = last_error(message).to_ascii_lowercase();
    let code = code.unwrap_or("").to_ascii_lowercase();
    let phrases = phrases();
    let mut found = vec![false; phrases.automaton.patterns_len()];
    for part in [text.as_str(), code.as_str()] {
        for m in phrases.automaton.find_overlapping_iter(part) {
            found[m.pattern().as_usize()] = true;
        }
    }
    let class = |kind, provider| ErrorClass { kind, provider, limit_tokens: None, requested_tokens: None };
    if found[..phrases.payload_from].iter().any(|&f| f) || matches!(status, Some(429 | 529)) {
        return class(ErrorKind::RateLimit, None);
    }
    let hint = found[phrases.hints_from..].iter().position(|&f| f).map(|i| PROVIDER_HINTS[i].1);
    let words = lex(&text);
    let said = Statement::read(&text, &words).or_else(|| coded(&code));
    let payload_phrase = found[phrases.payload_from..phrases.hints_from].iter().any(|&f| f);
    match said {
        Some(Said::Overflow) => overflow(&words, hint),
        Some(Said::Body) => class(ErrorKind::PayloadTooLarge, hint),
        None if payload_phrase || status == Some(413) => class(ErrorKind::PayloadTooLarge, hint),
        None => class(ErrorKind::Other, None),
    }
}

/// The part of `message` from its last "last error:" on: a retry wrapper's own words (and
/// the errors before the last) say nothing about the request.
fn last_error(message: &str) -> &str {
    const MARK: &[u8] = b"last error:";
    let bytes = message.as_bytes();
    let at = (0..bytes.len().saturating_sub(MARK.len() - 1))
        .rev()
        .find(|&i| bytes[i..i + MARK.len()].eq_ignore_ascii_case(MARK));
    // The mark is ASCII, so the byte after it starts a char.
    at.map_or(message, |i| &message[i + MARK.len()..])
}

/// An overflow, its counts read; or `Other` when the message's own counts show the
/// completion alone is past the limit.
fn overflow(words: &[Word], provider: Option<&'static str>) -> ErrorClass {
    let counts = Counts::read(words);
    let other = ErrorClass { kind: ErrorKind::Other, provider: None, limit_tokens: None, requested_tokens: None };
    if let (Some(completion), Some(limit)) = (counts.completion, counts.limit) {
        if completion >= limit {
            return other;
        }
    }
    let requested = counts.total.or(match (counts.input, counts.completion) {
        (Some(input), Some(completion)) => input.checked_add(completion),
        (input, _) => input,
    });
    ErrorClass { kind: ErrorKind::ContextOverflow, provider, limit_tokens: counts.limit, requested_tokens: requested }
}

/// What a message (or its code) says about the request's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Said {
    /// Too many tokens for the context.
    Overflow,
    /// A body over a size limit, in bytes.
    Body,
}

/// An error code that joins an exceeding word to a context word: `context_length_exceeded`,
/// `model_max_prompt_tokens_exceeded`, `exceed_context_size_error`, `request_too_large`.
fn coded(code: &str) -> Option<Said> {
    code_word(code)
}

fn code_word(word: &str) -> Option<Said> {
    if !word.contains('_') {
        return None;
    }
    let parts = || word.split('_');
    let exceeds = parts().any(|p| matches!(p, "exceed" | "exceeds" | "exceeded" | "overflow" | "overflowed"));
    let sized = parts().any(|p| matches!(p, "context" | "prompt" | "tokens" | "token" | "input" | "length" | "window"));
    if exceeds && sized && !parts().any(|p| p == "rate") {
        return Some(Said::Overflow);
    }
    let too_large = word.contains("too_large") || word.contains("too_long");
    (too_large && parts().any(|p| p == "request")).then_some(Said::Body)
}

/// One lexical item of a lower-cased message, with its sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Item {
    Word(String),
    /// A count: digits, with `,` or `_` before each group of three.
    Number(u64),
    /// `>`, `>=`, `<=`, `+`, `-`, `[`, `]`, `(`, `)`.
    Op(&'static str),
}

#[derive(Clone, Debug)]
struct Word {
    item: Item,
    sentence: usize,
}

impl Word {
    fn word(&self) -> Option<&str> {
        match &self.item {
            Item::Word(w) => Some(w),
            _ => None,
        }
    }
    fn is(&self, w: &str) -> bool {
        self.word() == Some(w)
    }
    fn op(&self) -> Option<&'static str> {
        match self.item {
            Item::Op(op) => Some(op),
            _ => None,
        }
    }
}

/// The items of `text` (lower case), URLs left out. A number glued to letters, a dot or a hyphen
/// ("gpt-4o", "v1", "2.00"), quoted ("'1261'") or tagged ("<400>") is a name or a code, not a
/// count, and is dropped. A sentence ends
/// at `.`, `;`, `!` or `?` before a space or the end, and at a line break.
fn lex(text: &str) -> Vec<Word> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut sentence = 0;
    let mut i = 0;
    let glued = |b: u8| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-';
    while i < bytes.len() {
        let b = bytes[i];
        // A URL names a place, not the request: "/v1/messages" is no prompt.
        // "<400>": a status tag, read as nothing.
        if b == b'<' {
            let digits = bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 && bytes.get(i + 1 + digits) == Some(&b'>') {
                i += digits + 2;
                continue;
            }
        }
        if bytes[i..].starts_with(b"http://") || bytes[i..].starts_with(b"https://") {
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !matches!(bytes[i], b'"' | b'\'' | b'`') {
                i += 1;
            }
            continue;
        }
        if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Word { item: Item::Word(text[start..i].to_string()), sentence });
            continue;
        }
        if b.is_ascii_digit() {
            let start = i;
            let mut value: u64 = 0;
            let mut overflowed = false;
            loop {
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    value = match value.checked_mul(10).and_then(|v| v.checked_add(u64::from(bytes[i] - b'0'))) {
                        Some(v) => v,
                        None => {
                            overflowed = true;
                            0
                        }
                    };
                    i += 1;
                }
                // A separator counts only before exactly three digits ("128,000", not "1, 2").
                let group = i + 4 <= bytes.len()
                    && matches!(bytes[i], b',' | b'_')
                    && bytes[i + 1..i + 4].iter().all(u8::is_ascii_digit)
                    && bytes.get(i + 4).is_none_or(|b| !b.is_ascii_digit());
                if !group {
                    break;
                }
                i += 1;
            }
            let before = start.checked_sub(1).map(|j| bytes[j]);
            let after = bytes.get(i).copied();
            let decimal = after == Some(b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
            // "<400>" is a status tag, "'1261'" a code written as a string.
            let quoted = matches!((before, after), (Some(b'\'' | b'"'), Some(b'\'' | b'"')));
            let named =
                before.is_some_and(glued) || after.is_some_and(|a| a.is_ascii_alphabetic() || a == b'_') || quoted;
            if !named && !decimal && !overflowed {
                out.push(Word { item: Item::Number(value), sentence });
            }
            if decimal {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
            continue;
        }
        let next = bytes.get(i + 1).copied();
        let op = match (b, next) {
            (b'>', Some(b'=')) => Some((">=", 2)),
            (b'<', Some(b'=')) => Some(("<=", 2)),
            (b'>', _) => Some((">", 1)),
            (b'+', _) => Some(("+", 1)),
            (b'-', _) if next != Some(b'-') => Some(("-", 1)),
            (b'[', _) => Some(("[", 1)),
            (b'(', _) => Some(("(", 1)),
            (b')', _) => Some((")", 1)),
            (b']', _) => Some(("]", 1)),
            _ => None,
        };
        if let Some((op, len)) = op {
            out.push(Word { item: Item::Op(op), sentence });
            i += len;
            continue;
        }
        let ends = matches!(b, b'.' | b';' | b'!' | b'?') && next.is_none_or(|n| n.is_ascii_whitespace()) || b == b'\n';
        if ends {
            sentence += 1;
        }
        // Step over the whole char: non-ASCII text is read by the Chinese rule.
        i += text[i..].chars().next().map_or(1, char::len_utf8);
    }
    out
}

/// Words that name a size in tokens.
fn token_sized(w: &str) -> bool {
    matches!(w, "token" | "tokens" | "context" | "length" | "window" | "n_ctx" | "characters" | "chars")
}

/// Words that name a size in bytes.
fn byte_sized(w: &str) -> bool {
    matches!(w, "size" | "bytes" | "payload" | "body" | "entity")
}

/// Words that name the prompt side of a request ("message" is not one: it is the key of
/// every JSON error body; nor is "request", as in "400 Bad Request").
fn input_word(w: &str) -> bool {
    matches!(
        w,
        "prompt"
            | "prompts"
            | "input"
            | "inputs"
            | "messages"
            | "query"
            | "conversation"
            | "n_keep"
            | "n_prompt_tokens"
    )
}

/// Identifiers of the completion a request reserves.
fn completion_id(w: &str) -> bool {
    matches!(w, "max_tokens" | "max_new_tokens" | "max_completion_tokens" | "max_output_tokens" | "maxtokens")
}

/// How the words of a message relate something to a limit.
struct Statement;

impl Statement {
    /// What the message says, if it states that something exceeds a size limit.
    fn read(text: &str, words: &[Word]) -> Option<Said> {
        let mut body = false;
        let mut tokens = false;
        let sentences = words.last().map_or(0, |w| w.sentence + 1);
        for sentence in 0..sentences {
            let start = words.partition_point(|w| w.sentence < sentence);
            let end = words.partition_point(|w| w.sentence <= sentence);
            let s = &words[start..end];
            let Some(sized_relation) = relation(s) else {
                if maximum_is(s) || asks_shorter(s) {
                    tokens = true;
                }
                continue;
            };
            let token = sized_relation || s.iter().any(|w| w.word().is_some_and(token_sized));
            let bytes = s.iter().any(|w| w.word().is_some_and(byte_sized));
            tokens |= token;
            body |= bytes && !token;
        }
        if !tokens && words.iter().filter_map(Word::word).any(|w| code_word(w) == Some(Said::Overflow)) {
            tokens = true;
        }
        if !tokens && !body && chinese_overflow(text) {
            tokens = true;
        }
        if tokens && completion_only(words) {
            return None;
        }
        if tokens {
            Some(Said::Overflow)
        } else {
            body.then_some(Said::Body)
        }
    }
}

/// Whether the sentence relates something to a limit: `Some(true)` when the relation itself
/// says the thing is long ("too long", "longer than", "overflows"), `Some(false)` for one
/// that needs a size word beside it ("exceeds", "too large", "greater than", `>`, "must be
/// <= N", "should be [1, N]").
fn relation(s: &[Word]) -> Option<bool> {
    let mut found = None;
    for (i, w) in s.iter().enumerate() {
        let next = s.get(i + 1);
        let next_is = |x: &str| next.is_some_and(|n| n.is(x));
        let sized = match (&w.item, w.word()) {
            (_, Some("exceed" | "exceeds" | "exceeded" | "exceeding")) => Some(false),
            (_, Some("overflow" | "overflows" | "overflowed")) => Some(true),
            (_, Some("longer")) if next_is("than") => Some(true),
            (_, Some("greater" | "larger" | "more")) if next_is("than") => Some(false),
            (_, Some("too")) if next_is("long") => Some(true),
            (_, Some("too")) if next_is("large") || next_is("big") || next_is("many") => Some(false),
            (_, Some("be" | "have")) if i > 0 && (s[i - 1].is("must") || s[i - 1].is("should")) => {
                let then = next.map(|n| &n.item);
                let bound = matches!(then, Some(Item::Op("<=" | "[")) | Some(Item::Number(_)))
                    || next_is("less") && s.get(i + 2).is_some_and(|n| n.is("than"));
                bound.then_some(false)
            }
            (Item::Op(">" | ">="), _) => Some(false),
            _ => None,
        };
        if let Some(sized) = sized {
            found = Some(found.unwrap_or(false) || sized);
        }
    }
    found
}

/// "maximum context length is N", "max prompt length: N": a message that states the limit
/// it was over.
fn maximum_is(s: &[Word]) -> bool {
    s.windows(5).any(|w| {
        (w[0].is("maximum") || w[0].is("max"))
            && w[1].word().is_some_and(|x| matches!(x, "context" | "prompt" | "input" | "model"))
            && w[2].word().is_some_and(|x| matches!(x, "length" | "window"))
            && w[3].is("is")
            && matches!(w[4].item, Item::Number(_))
    })
}

/// "Please reduce the length of the messages", "shorten the prompt", "provide a shorter
/// input": a sentence that asks for a shorter prompt says the prompt was too long.
fn asks_shorter(s: &[Word]) -> bool {
    s.iter().enumerate().any(|(i, w)| {
        let verb = w.word().is_some_and(|x| matches!(x, "reduce" | "shorten" | "decrease" | "shorter"));
        verb && s[i + 1..].iter().take(5).any(|n| n.word().is_some_and(|x| input_word(x) || x == "length"))
    })
}

/// A statement about the completion alone: it names the completion ("max_tokens", "maximum
/// tokens", "maximum output") and nothing on the prompt side.
fn completion_only(words: &[Word]) -> bool {
    let completion = words.iter().enumerate().any(|(i, w)| {
        let after = words.get(i + 1);
        w.word().is_some_and(completion_id)
            || (w.is("max") || w.is("maximum")) && after.is_some_and(|a| a.is("tokens") || a.is("output"))
    });
    completion && !words.iter().filter_map(Word::word).any(input_word)
}

/// "超出最大上下文长度", "上下文过长", "输入 token 超出限制": an exceeding word with a size word,
/// or "too long" said of the input.
fn chinese_overflow(text: &str) -> bool {
    let exceeds = ["超出", "超过", "大于"].iter().any(|p| text.contains(p));
    let sized = ["上下文", "长度", "token", "限制", "最大"].iter().any(|p| text.contains(p));
    let long = ["过长", "太长"].iter().any(|p| text.contains(p));
    exceeds && sized || long
}

/// The token counts a message states, each by where it stands.
#[derive(Default, Debug)]
struct Counts {
    limit: Option<u64>,
    /// The whole request, stated as such ("you requested", "a total of", "resulted in").
    total: Option<u64>,
    /// The prompt side alone.
    input: Option<u64>,
    /// The completion the request reserves.
    completion: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Limit,
    Total,
    Input,
    Completion,
}

impl Counts {
    fn read(words: &[Word]) -> Counts {
        let mut counts = Counts::default();
        let number = |i: usize| match words.get(i).map(|w| &w.item) {
            Some(Item::Number(n)) => Some(*n),
            _ => None,
        };
        let op = |i: usize| words.get(i).and_then(Word::op);
        let mut i = 0;
        while i < words.len() {
            let Some(n) = number(i) else {
                i += 1;
                continue;
            };
            // "a + b > limit" (Anthropic) and "(b > limit - a)" (vLLM): input, completion, limit.
            if let (Some("+"), Some(b), Some(">"), Some(c)) = (op(i + 1), number(i + 2), op(i + 3), number(i + 4)) {
                counts.set(Role::Input, n);
                counts.set(Role::Completion, b);
                counts.set(Role::Limit, c);
                i += 5;
                continue;
            }
            if let (Some(">"), Some(limit), Some("-"), Some(input)) =
                (op(i + 1), number(i + 2), op(i + 3), number(i + 4))
            {
                counts.completion = Some(n);
                counts.limit = Some(limit);
                counts.input = Some(input);
                i += 5;
                continue;
            }
            // "[1, N]": a range whose top is the limit.
            if i > 0 && op(i - 1) == Some("[") {
                if let (Some(top), Some("]")) = (number(i + 1), op(i + 2)) {
                    counts.set(Role::Limit, top);
                    i += 3;
                    continue;
                }
            }
            if let Some(role) = role(words, i) {
                counts.set(role, n);
            }
            i += 1;
        }
        counts
    }

    /// The first count of each role is the one the message states; later ones repeat it
    /// or count parts.
    fn set(&mut self, role: Role, n: u64) {
        let slot = match role {
            Role::Limit => &mut self.limit,
            Role::Total => &mut self.total,
            Role::Input => &mut self.input,
            Role::Completion => &mut self.completion,
        };
        slot.get_or_insert(n);
    }
}

/// The role of the number at `i`, from the words right around it.
fn role(words: &[Word], i: usize) -> Option<Role> {
    let sentence = words[i].sentence;
    let before = |k: usize| i.checked_sub(k).map(|j| &words[j]).filter(|w| w.sentence == sentence);
    let after = |k: usize| words.get(i + k).filter(|w| w.sentence == sentence);
    // "exceeded by N tokens": an excess, neither count.
    if before(1).is_some_and(|w| w.is("by")) {
        return None;
    }
    // "(2013)" after a word that counts nothing is an error code: "exceeds limit (2013)".
    let bare = before(1).and_then(Word::op) == Some("(") && after(1).and_then(Word::op) == Some(")");
    let counted = before(2).and_then(Word::word).is_some_and(|w| {
        token_sized(w) || matches!(w, "allowed" | "count" | "size" | "requested" | "n_keep" | "length")
    });
    if bare && !counted {
        return None;
    }
    if let Some("<=" | ">" | ">=") = before(1).and_then(Word::op) {
        return Some(Role::Limit);
    }
    let following: Vec<&Word> = (1..=4).filter_map(after).collect();
    let next = |k: usize| following.get(k).copied();
    // "4000 for the completion", "128000 output tokens", "500 `max_new_tokens`".
    if following.iter().take(3).any(|w| w.is("completion") || w.is("output") || w.word().is_some_and(completion_id)) {
        return Some(Role::Completion);
    }
    // "5000 input tokens", "182 in your prompt", "3118 in the messages".
    if next(0).is_some_and(|w| w.is("input") || w.is("inputs"))
        || next(0).is_some_and(|w| w.is("in"))
            && following[1..].iter().any(|w| w.is("prompt") || w.is("messages") || w.is("input"))
    {
        return Some(Role::Input);
    }
    // "32768 maximum context length", "200000 maximum".
    if next(0).is_some_and(|w| w.is("maximum") || w.is("max")) {
        return Some(Role::Limit);
    }
    // The left side of a relation, with only its unit between: "(4476 tokens) exceeds",
    // "208310 tokens >", "(5000 tokens) is larger than".
    let relates = |w: &&Word| {
        w.word().is_some_and(|x| matches!(x, "exceeds" | "exceed" | "exceeded" | "larger" | "greater" | "longer"))
            || matches!(w.op(), Some(">" | ">="))
    };
    let filler = |w: &&Word| w.op() == Some(")") || w.word().is_some_and(|x| matches!(x, "tokens" | "token" | "is"));
    if let Some(at) = following.iter().position(relates) {
        if following[..at].iter().all(filler) {
            return Some(Role::Input);
        }
    }
    // "less than N", "more than N": a bound.
    if before(1).is_some_and(|w| w.is("than")) {
        return Some(Role::Limit);
    }
    // The words before it, back to the previous number: a limit's cue anywhere there wins
    // ("max token count of N"); otherwise the nearest cue.
    let span: Vec<&Word> = (1..=4).map_while(|k| before(k).filter(|w| !matches!(w.item, Item::Number(_)))).collect();
    let limit = |w: &str| {
        matches!(
            w,
            "limit"
                | "maximum"
                | "max"
                | "allowed"
                | "only"
                | "n_ctx"
                | "exceed"
                | "context"
                | "window"
                | "size"
                | "up"
        )
    };
    if span.iter().any(|w| w.word().is_some_and(limit)) {
        return Some(Role::Limit);
    }
    span.iter().find_map(|w| match w.word()? {
        "requested" | "total" | "resulted" => Some(Role::Total),
        "contains" | "has" | "given" | "received" | "got" | "first" | "keep" | "n_keep" | "count" | "long"
        | "n_prompt_tokens" => Some(Role::Input),
        w if completion_id(w) => Some(Role::Completion),
        _ => None,
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
            ("input length and `max_tokens` exceed context limit: 190000 + 32000 > 200000, decrease input length or `max_tokens` and try again", Some("anthropic"), Some(200000), Some(222000)),
            ("The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).", Some("google"), Some(1048575), Some(1196265)),
            ("ValidationException: Input is too long for requested model.", Some("amazon-bedrock"), None, None),
            ("Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length", Some("mistral"), Some(131072), Some(140000)),
            ("Please reduce the length of the messages or completion. This model's maximum context length is 131072 tokens. However, your messages resulted in 140000 tokens.", Some("groq"), Some(131072), Some(140000)),
            ("This model's maximum prompt length is 131072 but the request contains 140000 tokens.", Some("xai"), Some(131072), Some(140000)),
            ("This endpoint's maximum context length is 163840 tokens. However, you requested about 170000 tokens (170000 of text input).", Some("openrouter"), Some(163840), Some(170000)),
            ("Input validation error: `inputs` tokens + `max_new_tokens` must be <= 32769. Given: 40000 `inputs` tokens and 512 `max_new_tokens`", Some("tgi"), Some(32769), Some(40512)),
            ("The prompt is too long: 140000, model maximum context length: 131072", Some("fireworks"), Some(131072), Some(140000)),
            ("Requested token count exceeds the model's maximum context length of 131072 tokens. You requested a total of 140000 tokens: 130000 tokens from the input messages and 10000 tokens for the completion.", Some("fireworks"), Some(131072), Some(140000)),
            ("too many tokens: total number of tokens in the prompt cannot exceed 128000 - received 140000. Try using a shorter prompt", Some("cohere"), Some(128000), Some(140000)),
            ("too many tokens: size limit exceeded by 1134 tokens. Try using shorter or fewer inputs", Some("cohere"), None, None),
            ("the request exceeds the available context size, try increasing it", Some("llama.cpp"), None, None),
            ("request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it", Some("llama.cpp"), Some(4096), Some(4476)),
            ("Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of only 8192 tokens", Some("lm-studio"), Some(8192), Some(9000)),
            ("The number of tokens to keep from the initial prompt is greater than the context length", Some("lm-studio"), None, None),
            ("prompt token count of 140000 exceeds the limit of 128000", Some("github-copilot"), Some(128000), Some(140000)),
            ("prompt too long; exceeded max context length by 4000 tokens", Some("ollama"), None, None),
            ("litellm.ContextWindowExceededError: This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens", Some("litellm"), Some(8192), Some(9000)),
            ("Invalid request: Your request exceeded model token limit: 262144 (requested: 269030)", Some("moonshot"), Some(262144), Some(269030)),
            ("invalid params, context window exceeds limit (2013)", Some("minimax"), None, None),
            ("Prompt exceeds max length", Some("zai"), None, None),
            ("Range of input length should be [1, 30720]", Some("dashscope"), Some(30720), None),
            ("This model's maximum context length is 4097 tokens, however you requested 10240 tokens (10000 in your prompt; 240 for the completion). Please reduce your prompt; or completion length.", Some("openai"), Some(4097), Some(10240)),
            ("The decoder prompt (length 140000) is longer than the maximum model length of 131072.", Some("vllm"), Some(131072), Some(140000)),
            ("'max_tokens' or 'max_completion_tokens' is too large: 4000. This model's maximum context length is 8192 tokens and your request has 5000 input tokens (4000 > 8192 - 5000).", Some("vllm"), Some(8192), Some(9000)),
            ("Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 300000 tokens.", Some("openai"), Some(272000), Some(300000)),
            ("请求失败：超出最大上下文长度", None, None, None),
            ("请求失败：上下文过长，请缩短输入", None, None, None),
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
            "Throttling error: Too many tokens, please wait before trying again.",
            "You exceeded your current quota, please check your plan and billing details. insufficient_quota",
            "Overloaded",
            "Resource exhausted. Please try again later.",
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
    fn a_completion_too_large_is_not_an_overflow() {
        for message in [
            "max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.",
            "The maximum tokens you requested exceeds the model limit of 32768. Try again with a maximum tokens value that is lower than 32768.",
            "too many tokens: max tokens must be less than or equal to 4096, the maximum output for this model - received 8192.",
            "Input validation error: `max_new_tokens` must be <= 512. Given: 1024",
            "'max_tokens' or 'max_completion_tokens' is too large: 10000. This model's maximum context length is 8192 tokens and your request has 12 input tokens (10000 > 8192 - 12).",
        ] {
            assert_eq!(classify_provider_error(message, None, None).kind, ErrorKind::Other, "{message}");
        }
    }

    #[test]
    fn only_the_last_error_of_a_retry_counts() {
        let retried = "Failed after 2 attempts. Last error: Overloaded. Last error: prompt is too long: 208310 tokens > 200000 maximum";
        assert_eq!(overflow(retried).requested_tokens, Some(208310));
        let overloaded = "Failed after 2 attempts. Last error: prompt is too long. Last error: Overloaded";
        assert_eq!(classify_provider_error(overloaded, None, None).kind, ErrorKind::RateLimit);
    }

    #[test]
    fn a_body_too_large_and_other_errors() {
        let anthropic =
            classify_provider_error("Request exceeds the maximum size", Some(413), Some("request_too_large"));
        assert_eq!((anthropic.kind, anthropic.provider), (ErrorKind::PayloadTooLarge, Some("anthropic")));
        let gemini =
            classify_provider_error("Request payload size exceeds the limit: 20971520 bytes.", Some(400), None);
        assert_eq!((gemini.kind, gemini.provider), (ErrorKind::PayloadTooLarge, Some("google")));
        assert_eq!(classify_provider_error("", Some(413), None).kind, ErrorKind::PayloadTooLarge);
        assert_eq!(classify_provider_error("invalid api key", Some(401), None).kind, ErrorKind::Other);
        assert_eq!(classify_provider_error("", None, None).kind, ErrorKind::Other);
        for message in [
            "internal error computing maximum context length",
            "truncate_prompt_tokens value is greater than max_model_len. Please, select a smaller truncation size.",
            "The context is large, but acceptable.",
            "the message at position 4 with role 'assistant' must not be empty",
        ] {
            assert_eq!(classify_provider_error(message, Some(400), None).kind, ErrorKind::Other, "{message}");
        }
    }

    #[test]
    fn numbers_inside_names_are_not_counts() {
        let words = lex("gpt-4o v1 2.00 gib 128,000 tokens 1, 2 n_ctx: 4096 <400> '1261' of 64000\"}");
        let numbers: Vec<u64> =
            words.iter().filter_map(|w| if let Item::Number(n) = w.item { Some(n) } else { None }).collect();
        assert_eq!(numbers, [128000, 1, 2, 4096, 64000]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// Any text, status and code: an answer, never a panic; counts only for an overflow.
        #[test]
        fn never_panics(message in "\\PC{0,200}", status in proptest::option::of(100u16..600), code in "\\PC{0,20}") {
            let c = classify_provider_error(&message, status, Some(&code));
            if c.kind != ErrorKind::ContextOverflow {
                proptest::prop_assert!(c.limit_tokens.is_none() && c.requested_tokens.is_none());
            }
        }

        /// A rate-limit phrase anywhere in the last error wins over any overflow wording.
        #[test]
        fn a_rate_limit_wins(prefix in "[a-z ]{0,40}", phrase in proptest::sample::select(RATE_LIMITS.to_vec())) {
            let message = format!("prompt is too long: 9 tokens > 8 maximum {prefix} {phrase}");
            proptest::prop_assert_eq!(classify_provider_error(&message, None, None).kind, ErrorKind::RateLimit);
        }
    }
}
