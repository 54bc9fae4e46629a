//! What JS and Rust must agree on, written once: the slots of the result array (the
//! answer, then the request block JS writes, then the facts a notice function reads), the
//! answer codes, and the names behind the numeric codes that cross the boundary.
//! `register` exports all of it as `LAYOUT`, and `lib/native.js` reads its indices from
//! there.

use toolclamp_core::{Action, Dims, ErrorKind, Measure, Position, Strategy};

macro_rules! slots {
    ($($slot:ident => $name:literal,)*) => {
        /// A slot of the result array. (Some are only ever written as the second or third
        /// slot of a measure, so never named in Rust.)
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[allow(dead_code)]
        #[repr(usize)]
        pub enum Slot {
            $($slot,)*
        }

        /// The slots' names for JS, in index order.
        pub const SLOT_NAMES: &[&str] = &[$($name,)*];
    };
}

slots! {
    Verdict => "verdict",
    HeadEnd => "headEnd",
    TailStart => "tailStart",
    TotalChars => "totalChars",
    TotalBytes => "totalBytes",
    TotalLines => "totalLines",
    OutputChars => "outputChars",
    OutputBytes => "outputBytes",
    OutputLines => "outputLines",
    OmittedChars => "omittedChars",
    OmittedBytes => "omittedBytes",
    OmittedLines => "omittedLines",
    TruncatedBy => "truncatedBy",
    PageStart => "pageStart",
    PageEnd => "pageEnd",
    ShownChars => "shownChars",
    ShownBytes => "shownBytes",
    ShownLines => "shownLines",
    FirstLine => "firstLine",
    LastLine => "lastLine",
    StartByte => "startByte",
    EndByte => "endByte",
    NextLine => "nextLine",
    NextColumn => "nextColumn",
    Window0From => "window0From",
    Window0To => "window0To",
    Window1From => "window1From",
    Window1To => "window1To",
    Window2From => "window2From",
    Window2To => "window2To",
    HeadLines => "headLines",
    TailLines => "tailLines",
    FirstLength => "firstLength",
    GlueLength => "glueLength",
    Strategy => "strategy",
    ErrorKind => "errorKind",
    LimitTokens => "limitTokens",
    RequestedTokens => "requestedTokens",
    TotalTokens => "totalTokens",
    TokensBefore => "tokensBefore",
    TokensAfter => "tokensAfter",
    Fits => "fits",
    OutputTokens => "outputTokens",
    TotalTokensExact => "totalTokensExact",
    TokensBound => "tokensBound",
}

/// How many doubles of the result array hold an answer.
pub const SLOT_COUNT: usize = SLOT_NAMES.len();

macro_rules! fields {
    ($($field:ident => $name:literal,)*) => {
        /// A field of a call's request block: the arguments most calls share (strategy,
        /// limits, head ratio, flags), which JS writes into the result array after the
        /// answer slots instead of passing them one by one. Which fields an export reads is
        /// in its entry of [`crate::exports::EXPORTS`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(usize)]
        pub enum Field {
            $($field,)*
        }

        /// The fields' names for JS, in order from [`REQUEST_START`].
        pub const FIELD_NAMES: &[&str] = &[$($name,)*];
    };
}

fields! {
    Strategy => "strategy",
    MaxChars => "maxChars",
    MaxBytes => "maxBytes",
    MaxLines => "maxLines",
    HeadRatio => "headRatio",
    Exact => "exact",
    Snap => "snap",
    Restack => "restack",
    MaxTokens => "maxTokens",
    Tokenizer => "tokenizer",
}

pub const FIELD_COUNT: usize = FIELD_NAMES.len();

/// Where the request block starts in the result array: right after the answer slots.
pub const REQUEST_START: usize = SLOT_COUNT;

/// The facts of a cut a notice function reads, in order from [`FACTS_START`]: the binding
/// writes them there (see [`fact_values`]) before it calls the function with no arguments.
/// `where` is a code of [`POSITIONS`], `truncatedBy` a mask of [`DIMS`].
pub const FACT_NAMES: &[&str] = &toolclamp_core::prefixed(["where", "truncatedBy"], toolclamp_core::CUT_NUMBERS);

pub const FACT_COUNT: usize = FACT_NAMES.len();

/// Where the notice facts start in the result array: after the request block.
pub const FACTS_START: usize = REQUEST_START + FIELD_COUNT;

/// How many doubles the whole array holds: answer slots, request block, notice facts.
pub const BUFFER_LENGTH: usize = FACTS_START + FACT_COUNT;

/// The facts of a cut as a notice function reads them, in the order of [`FACT_NAMES`].
pub fn fact_values(f: &toolclamp_core::NoticeFacts) -> [f64; FACT_COUNT] {
    [
        position_code(f.position),
        f.truncated_by.0 as f64,
        f.omitted.chars as f64,
        f.omitted.bytes as f64,
        f.omitted.lines as f64,
        f.total.chars as f64,
        f.total.bytes as f64,
        f.total.lines as f64,
        f.head_end as f64,
        f.tail_start as f64,
        f.from_line as f64,
        f.to_line as f64,
    ]
}

/// What a call answered. JS clears the verdict slot before each call and accepts only the
/// verdict it expects, so a call that wrote nothing can never read as "the text fits".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Verdict {
    Fits = 1,
    Cut = 2,
    Measured = 3,
    Page = 4,
    Windows = 5,
    Classified = 6,
    Budgeted = 7,
    Marker = 8,
    Normalized = 9,
    Captured = 10,
    Located = 11,
}

pub const VERDICTS: &[(&str, Verdict)] = &[
    ("fits", Verdict::Fits),
    ("cut", Verdict::Cut),
    ("measured", Verdict::Measured),
    ("page", Verdict::Page),
    ("windows", Verdict::Windows),
    ("classified", Verdict::Classified),
    ("budgeted", Verdict::Budgeted),
    ("marker", Verdict::Marker),
    ("normalized", Verdict::Normalized),
    ("captured", Verdict::Captured),
    ("located", Verdict::Located),
];

/// The rules of terminal normalisation by bit, in a `flags` argument.
pub const NORMALIZE_FLAGS: &[&str] = &["ansi", "carriageReturns", "backspaces", "controls"];

/// The rules a `flags` argument turns on (bit `i` is `NORMALIZE_FLAGS[i]`).
pub fn normalize_of(flags: u64) -> toolclamp_core::Normalize {
    toolclamp_core::Normalize {
        ansi: flags & 1 != 0,
        carriage_returns: flags & 2 != 0,
        backspaces: flags & 4 != 0,
        controls: flags & 8 != 0,
    }
}

/// What a budget plan does with a tool result, by the code it writes; a result's fields in
/// the array `planBudget` reads and answers in, in order.
pub const BUDGET_ACTIONS: &[&str] = &["keep", "clamp", "elide"];
pub const BUDGET_FIELDS: &[&str] = &["textTokens", "textChars", "fixedTokens", "markerTokens"];

/// The code of a budget action, and the text tokens it keeps (0 but for a clamp).
pub fn budget_action_code(action: Action) -> (f64, u64) {
    match action {
        Action::Keep => (0.0, 0),
        Action::Clamp(tokens) => (1.0, tokens),
        Action::Elide => (2.0, 0),
    }
}

/// Strategy names by code: the code JS passes is the index. `auto` is resolved per text
/// ([`toolclamp_core::auto_strategy`]) to `head` or `headTail`, the code a plan answers with
/// in its `strategy` slot.
/// Tokenizer codes of the request block's `tokenizer` field: none (no exact token limit;
/// JS turns an estimated one into bytes), an encoding by name, or a JS function.
pub const TOKENIZERS: &[&str] = &["none", "o200k_base", "cl100k_base", "function"];

pub const STRATEGIES: &[&str] = &["head", "tail", "headTail", "auto"];

/// What a provider's error says, by the code in the `errorKind` slot.
pub const ERROR_KINDS: &[(&str, ErrorKind)] = &[
    ("context_overflow", ErrorKind::ContextOverflow),
    ("payload_too_large", ErrorKind::PayloadTooLarge),
    ("rate_limit", ErrorKind::RateLimit),
    ("other", ErrorKind::Other),
];

/// The code of an error kind, for the `errorKind` slot.
pub fn error_kind_code(kind: ErrorKind) -> usize {
    ERROR_KINDS.iter().position(|(_, k)| *k == kind).expect("every kind is listed")
}

/// The code of `auto` in [`STRATEGIES`].
pub const AUTO: usize = 3;

/// The code of a strategy, for the `strategy` slot.
pub fn strategy_code(strategy: Strategy) -> usize {
    match strategy {
        Strategy::Head => 0,
        Strategy::Tail => 1,
        Strategy::HeadTail { .. } => 2,
    }
}

/// The strategy of a code (an index into [`STRATEGIES`]); `head_ratio` serves `headTail`.
pub fn strategy_of(code: usize, head_ratio: f64) -> Option<Strategy> {
    match code {
        0 => Some(Strategy::Head),
        1 => Some(Strategy::Tail),
        2 => Some(Strategy::HeadTail { head_ratio }),
        _ => None,
    }
}

/// Where a notice sits, by the code a notice function receives.
pub const POSITIONS: &[Position] = &[Position::Start, Position::End, Position::Middle];

pub fn position_code(p: Position) -> f64 {
    POSITIONS.iter().position(|&q| q == p).expect("every position has a code") as f64
}

/// Dimension names by bit: bit `i` of a `truncatedBy` mask is `DIMS[i]`.
pub const DIMS: &[(&str, Dims)] = &[("chars", Dims::CHARS), ("bytes", Dims::BYTES), ("lines", Dims::LINES)];

/// The longest string V8 can make on 64-bit hosts (`v8::String::kMaxLength`, Node's
/// `buffer.constants.MAX_STRING_LENGTH`).
pub const MAX_STRING_LENGTH: u64 = (1 << 29) - 24;

/// The values of one call, written to the result array in one go, so every slot holds a
/// value of this call (zero where the call has none).
pub struct Results([f64; SLOT_COUNT]);

impl Results {
    pub fn new(verdict: Verdict) -> Self {
        let mut values = [0.0; SLOT_COUNT];
        values[Slot::Verdict as usize] = verdict as u8 as f64;
        Results(values)
    }

    pub fn set(&mut self, slot: Slot, value: impl Into<Count>) -> &mut Self {
        self.0[slot as usize] = value.into().0;
        self
    }

    /// Writes a count that may be absent: -1 for none.
    pub fn set_optional(&mut self, slot: Slot, value: Option<u64>) -> &mut Self {
        self.0[slot as usize] = value.map_or(-1.0, |n| n as f64);
        self
    }

    /// Writes chars, bytes and lines into `first` and the two slots after it.
    pub fn set_measure(&mut self, first: Slot, m: Measure) -> &mut Self {
        let i = first as usize;
        self.0[i] = m.chars as f64;
        self.0[i + 1] = m.bytes as f64;
        self.0[i + 2] = m.lines as f64;
        self
    }

    pub fn values(&self) -> &[f64; SLOT_COUNT] {
        &self.0
    }
}

/// A count as JS receives it. Counts and offsets stay far below 2^53, where `f64` is exact.
pub struct Count(f64);

impl From<usize> for Count {
    fn from(x: usize) -> Self {
        Count(x as f64)
    }
}

impl From<u64> for Count {
    fn from(x: u64) -> Self {
        Count(x as f64)
    }
}

impl From<u8> for Count {
    fn from(x: u8) -> Self {
        Count(x as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_take_three_consecutive_slots() {
        for first in [Slot::TotalChars, Slot::OutputChars, Slot::OmittedChars, Slot::ShownChars] {
            let i = first as usize;
            assert!(SLOT_NAMES[i].ends_with("Chars"));
            assert!(SLOT_NAMES[i + 1].ends_with("Bytes"));
            assert!(SLOT_NAMES[i + 2].ends_with("Lines"));
        }
    }

    #[test]
    fn strategy_codes_follow_the_names() {
        let names =
            STRATEGIES.iter().map(|name| match strategy_of(STRATEGIES.iter().position(|n| n == name).unwrap(), 0.5) {
                Some(Strategy::Head) => "head",
                Some(Strategy::Tail) => "tail",
                Some(Strategy::HeadTail { .. }) => "headTail",
                None => "auto",
            });
        assert!(names.eq(STRATEGIES.iter().copied()));
        assert_eq!(STRATEGIES[AUTO], "auto");
        assert_eq!(strategy_of(STRATEGIES.len(), 0.5), None);
        for code in 0..AUTO {
            assert_eq!(strategy_code(strategy_of(code, 0.5).unwrap()), code);
        }
    }

    #[test]
    fn budget_action_codes_follow_the_names() {
        for (action, name) in [(Action::Keep, "keep"), (Action::Clamp(7), "clamp"), (Action::Elide, "elide")] {
            assert_eq!(BUDGET_ACTIONS[budget_action_code(action).0 as usize], name);
        }
    }

    #[test]
    fn dims_are_single_bits_in_order() {
        for (i, (_, d)) in DIMS.iter().enumerate() {
            assert_eq!(d.0, 1 << i);
        }
    }
}
