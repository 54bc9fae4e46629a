//! Exact token counts: OpenAI's `o200k_base` and `cl100k_base` byte-pair encodings, and
//! cuts that keep as much of a text as a number of their tokens allows.
//!
//! A [`Tokenizer`] splits a text into pieces ([`split`]) and counts the tokens of each
//! piece by byte-pair merging ([`vocab`]); the count of a text is the sum over its pieces.
//! Special-token spellings (`<|endoftext|>`) are plain text: a tool's output never holds a
//! special token. The vocabularies are not compiled in: the caller loads one from its
//! bytes ([`Vocab::from_bytes`]) the first time it is asked for.
//!
//! [`cut`] finds, for a plan of the char, byte and line planner, the largest byte budget
//! whose plan is within a number of tokens, counting each candidate exactly but reading
//! only the ends of the text it keeps. [`largest_within`] is the same search for a clamp
//! that the caller runs at each budget (a tool result, JSON, a page).

mod classes;
mod cut;
mod search;
mod split;
mod text;
mod vocab;

pub use classes::UNICODE_VERSION;
pub use cut::{
    cut_ends_to_tokens, cut_to_tokens, end_units, token_ends_reach, Candidate, CountCandidate, EndsStop, TokenCut,
    TokenIndex,
};
pub use search::largest_within;
pub use split::{Pattern, Piece, Split};
pub use text::{CodeUnits, Ends};
pub use vocab::{Vocab, VocabError};

/// An OpenAI encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5, o1, o3, o4-mini.
    O200kBase,
    /// GPT-4, GPT-3.5.
    Cl100kBase,
}

impl Encoding {
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    pub fn from_name(name: &str) -> Option<Encoding> {
        Encoding::ALL.into_iter().find(|e| e.name().eq_ignore_ascii_case(name))
    }

    /// The encoding of an OpenAI model, by its name or a provider's name for it
    /// (`openai/gpt-4o`, `gpt-4o-2024-08-06`); `None` for a model of another family or
    /// an older encoding.
    pub fn for_model(model: &str) -> Option<Encoding> {
        let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
        let is = |prefix: &str| name.starts_with(prefix);
        if is("gpt-4o") || is("chatgpt-4o") || is("gpt-4.1") || is("gpt-4.5") || is("gpt-5") || is("gpt-oss") {
            return Some(Encoding::O200kBase);
        }
        if ["o1", "o3", "o4"].iter().any(|o| name == *o || name.starts_with(&format!("{o}-"))) {
            return Some(Encoding::O200kBase);
        }
        if is("gpt-4") || is("gpt-3.5") || is("gpt-35") || is("text-embedding-3") || name == "text-embedding-ada-002" {
            return Some(Encoding::Cl100kBase);
        }
        None
    }

    /// The ranks of its vocabulary (OpenAI's rank files: no holes in either).
    pub fn ranks(self) -> usize {
        match self {
            Encoding::O200kBase => 199_998,
            Encoding::Cl100kBase => 100_256,
        }
    }

    pub fn pattern(self) -> Pattern {
        match self {
            Encoding::O200kBase => Pattern::O200k,
            Encoding::Cl100kBase => Pattern::Cl100k,
        }
    }
}

/// An encoding with its vocabulary loaded.
pub struct Tokenizer {
    encoding: Encoding,
    vocab: Vocab,
}

impl Tokenizer {
    pub fn new(encoding: Encoding, vocab: Vocab) -> Tokenizer {
        Tokenizer { encoding, vocab }
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    /// The tokens of `text`.
    pub fn count<T: CodeUnits + ?Sized>(&self, text: &T) -> u64 {
        self.count_within(text, u64::MAX).expect("no count exceeds u64::MAX")
    }

    /// The tokens of `text`, or `None` as soon as they are more than `limit`: a text far
    /// over a budget is read only as far as the budget reaches (a piece of `n` bytes has at
    /// least `n / max_token_len` tokens, so even one long piece is not encoded to learn it).
    pub fn count_within<T: CodeUnits + ?Sized>(&self, text: &T, limit: u64) -> Option<u64> {
        let mut buf = Vec::new();
        let mut total = 0u64;
        for piece in Split::new(text, self.encoding.pattern(), 0) {
            total = total.saturating_add(self.piece_within(text, piece, limit - total.min(limit), &mut buf)?);
            if total > limit {
                return None;
            }
        }
        Some(total)
    }

    /// The tokens of one piece of `text`, or `None` when they are surely more than `limit`.
    fn piece_within<T: CodeUnits + ?Sized>(
        &self,
        text: &T,
        piece: Piece,
        limit: u64,
        buf: &mut Vec<u8>,
    ) -> Option<u64> {
        buf.clear();
        text.push_utf8(piece.start, piece.end, buf);
        if buf.len() as u64 > limit.saturating_add(1).saturating_mul(self.vocab.max_token_len() as u64) {
            return None;
        }
        Some(self.vocab.count_piece(buf) as u64)
    }
}
