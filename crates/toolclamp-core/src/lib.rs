//! toolclamp's text core: measure a text in UTF-16 chars, UTF-8 bytes and lines, and plan
//! where to cut it so that the kept text plus a notice fits every budget.
//!
//! Pure Rust with no Node-API dependency: the binding copies a JS string's code units in
//! (Latin-1 bytes for one-byte strings, UTF-16 otherwise), asks for a [`Plan`], and slices
//! the original JS string by the plan's offsets. A `Buffer` is planned as UTF-8 through
//! [`Utf8`], with the same counts and cuts as the string it decodes to.
//!
//! Definitions the planner keeps (and the tests check):
//! * a char is a UTF-16 code unit; bytes are UTF-8 bytes as `Buffer.byteLength` counts
//!   them (a lone surrogate is 3); lines are 0 for `""`, else the `\n`s plus one if the
//!   text does not end with `\n`;
//! * a cut never separates a surrogate pair or `\r\n`;
//! * the result is `text[..head_end] + glue + text[tail_start..]` and fits every limit;
//! * the kept parts are as long as the limits allow with the notice each cut would carry
//!   (exactly so for `Head` and `Tail`; the contract is in the docs of the private `plan`
//!   module, `src/plan/mod.rs`).
//!
//! [`plan_tool_output`] lays out the head/tail view of a tool's output with line
//! indicators, from one such plan.
//!
//! [`plan_budget`] shares a model's context window among the tool results of a
//! conversation, in estimated tokens ([`estimate_tokens`]).
//!
//! [`page()`] serves the other way of reading a long text: one bounded page at a time, from
//! a line and column, with the handle that continues it.
//!
//! Every module is private: the API is the `pub use` list below, which is what the binding,
//! the integration tests and the fuzz targets use, the types their signatures return, and
//! the constants the docs of those name as part of a rule.

mod auto;
mod budget;
mod capture;
mod json;
mod measure;
mod notice;
mod overflow;
mod page;
mod plan;
mod restack;
mod source;
mod terminal;
mod tokens;
mod tool_output;
mod utf8;

pub use auto::{auto_strategy, AUTO_SIGNALS, AUTO_WINDOW, AUTO_WORD_SIGNALS};
pub use budget::{
    bytes_for_tokens, elision_marker, estimate_tokens, plan_budget, Action, Budget, BudgetRequest, MarkerFacts,
    ResultSize, BYTES_PER_TOKEN, MEDIA_TOKENS,
};
pub use capture::{token_bytes, Capture, CaptureError, CaptureOptions, Gapped, KeptText, CAPTURE_MARGIN};
/// A JSON text held as UTF-8 bytes, read without copying its long strings.
pub use json::line as json_line;
pub use json::{
    answer_text, clamp_json, clamp_json_text, locate_json, parse_json_paths, Elided, JsonClamp, JsonError, JsonRequest,
    JsonText, JsonUnit, Markers, PathStep, MAX_DEPTH, SHORT_MARKER,
};
pub use measure::{measure, measure_str, Measure, Span, Unit};
pub use notice::{
    check_template, default_notice, prefixed, render_template, tell_omitted_tokens, templates, with_token_totals, Dims,
    Notice, NoticeFacts, Position, TemplateError, CUT_NUMBERS, PLACEHOLDERS, TOKEN_PLACEHOLDERS,
};
pub use overflow::{classify_provider_error, ErrorClass, ErrorKind};
pub use page::{
    lossy_position, page, page_with_banner, partial_banner, repage, Banner, Page, PageError, PageRequest, Repage,
};
pub use plan::{
    chars_windows, plan, plan_head_at, plan_with_snap, Limits, Plan, Snap, Strategy, MAX_FUNCTION_CALLS,
    SNAP_MIN_SHARE, UNLIMITED,
};
pub use restack::{find_prior, plan_restacked, Prior};
pub use source::{ends_reach, Measured, Source, Tally, Units, Windows};
pub use terminal::{
    max_normalized_utf16, normalize_terminal_output, normalized_utf16_len, Normalize, TerminalNormalizer,
    BLANKS_PER_READ, MAX_GROWTH, WIDTH,
};
pub use tokens::{
    cut_ends_to_tokens, cut_to_tokens, end_units, largest_within, token_ends_reach, Candidate, CodeUnits,
    CountCandidate, Encoding, Ends, EndsStop, Pattern, Piece, Split, TokenCut, TokenIndex, Tokenizer, Vocab,
    VocabError, UNICODE_VERSION,
};
pub use tool_output::{plan_tool_output, ToolOutput};
pub use utf8::{decode_lossy, measure_utf8, Utf8};
