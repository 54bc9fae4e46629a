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
//!   (exactly so for `Head` and `Tail`; the contract is in the [`mod@plan`] module docs).
//!
//! [`plan_tool_output`] lays out the head/tail view of a tool's output with line
//! indicators, from one such plan.
//!
//! [`plan_budget`] shares a model's context window among the tool results of a
//! conversation, in estimated tokens ([`estimate_tokens`]).
//!
//! [`page()`] serves the other way of reading a long text: one bounded page at a time, from
//! a line and column, with the handle that continues it.

pub mod auto;
pub mod budget;
pub mod capture;
pub mod json;
pub mod measure;
pub mod notice;
pub mod overflow;
pub mod page;
pub mod plan;
pub mod restack;
pub mod source;
pub mod terminal;
pub mod tool_output;
pub mod utf8;

pub use auto::{auto_strategy, AUTO_SIGNALS, AUTO_WINDOW, AUTO_WORD_SIGNALS};
pub use budget::{
    bytes_for_tokens, elision_marker, estimate_tokens, plan_budget, Action, Budget, BudgetRequest, MarkerFacts,
    ResultSize, BYTES_PER_TOKEN, MEDIA_TOKENS,
};
pub use capture::{Capture, CaptureError, CaptureOptions, Gapped, CAPTURE_MARGIN};
pub use json::{
    answer_text, clamp_json, clamp_json_text, locate_json, parse_json_paths, Elided, JsonClamp, JsonError, JsonRequest,
    JsonText, JsonUnit, Markers, PathStep, MAX_DEPTH, SHORT_MARKER,
};
pub use measure::{measure, measure_str, Measure, Span, Unit};
pub use notice::{format_count, Dims, Notice, NoticeFacts, Position, TemplateError, PLACEHOLDERS};
pub use overflow::{classify_provider_error, ErrorClass, ErrorKind, PROVIDER_HINTS, RATE_LIMITS};
pub use page::{
    lossy_position, page, page_with_banner, partial_banner, repage, Banner, Page, PageError, PageRequest, Repage,
};
pub use plan::{
    chars_windows, plan, plan_head_at, plan_with_snap, Limits, Plan, Snap, Strategy, CHARS_WINDOW_MARGIN, INLINE_OPEN,
    SNAP_MIN_SHARE, UNLIMITED,
};
pub use restack::{find_prior, plan_restacked, restacked_notice, Prior};
pub use source::{Source, Units, Windows};
pub use terminal::{
    max_normalized_utf16, normalize_terminal_output, normalized_utf16_len, Normalize, TerminalNormalizer,
};
pub use tool_output::{plan_tool_output, ToolOutput};
pub use utf8::{decode_lossy, measure_utf8, Utf8};
