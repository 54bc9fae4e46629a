//! Exact token counts: OpenAI's `o200k_base` and `cl100k_base` tokenizers.

mod classes;
mod split;
mod text;
mod vocab;

pub use classes::UNICODE_VERSION;
pub use split::{Pattern, Piece, Split};
pub use text::{CodeUnits, Latin1};
pub use vocab::{Vocab, VocabError};
