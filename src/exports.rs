//! The functions `lib/native.js` calls, and what each reads: its parameters, in the order
//! JS passes them, and the fields of the request block (strategy, limits, head ratio and
//! flags, which JS writes into the result array instead of passing them; see
//! [`crate::layout::Field`]). This table is the one place a signature is written: the
//! binding checks argument counts and names parameters in its errors from it, and
//! `register` publishes it as `LAYOUT.exports` (`{ name: { params, request } }`), which
//! `lib/native.js` and the tests read.
//!
//! Each export takes the result array first, writes every slot of its answer there (see
//! [`crate::layout`]), and returns at most one string: a glue, a banner, or a clamped text.
//! Adding an export is one row here and its body.

use crate::call::{Export, MAX_PARAMS};
use crate::capture;
use crate::conversation::{classify_error, elision_marker_of, plan_budget_of};
use crate::json::{clamp_json_string, clamp_json_text_string, locate_json_string};
use crate::layout::Field::{
    Exact, HeadRatio, MaxBytes, MaxChars, MaxLines, MaxTokens, Restack, Snap, Strategy, Tokenizer,
};
use crate::line;
use crate::notice::{check_template, notice_templates};
use crate::page::{plan_page, plan_page_buffer, repage_page};
use crate::plan::{
    measure_string, plan_buffer, plan_list, plan_string, plan_tool_output_string, plan_windows, windows_of,
};
use crate::terminal::{normalize_terminal_buffer, normalize_terminal_string, normalized_bound};
use crate::tokens::{count_tokens, encoding_of, load_tokenizer, longest_token, search_budget};

/// The request of a plan of a text: every field.
const TEXT_PLAN: &[crate::layout::Field] =
    &[Strategy, MaxChars, MaxBytes, MaxLines, HeadRatio, Exact, Snap, Restack, MaxTokens, Tokenizer];
/// What a capture or a JSON clamp keeps.
const KEEP: &[crate::layout::Field] = &[Strategy, MaxChars, MaxBytes, MaxLines, HeadRatio];
/// What a capture keeps, with its limit in exact tokens.
const CAPTURE: &[crate::layout::Field] = &[Strategy, MaxChars, MaxBytes, MaxLines, HeadRatio, MaxTokens, Tokenizer];
/// A chars-only plan.
const CHARS_ONLY: &[crate::layout::Field] = &[Strategy, MaxChars, HeadRatio];

/// Every export; its address is the one `register` hands to Node-API.
pub static EXPORTS: &[Export] = TABLE;

#[rustfmt::skip]
const TABLE: &[Export] = &[
    Export { name: c"checkTemplate", params: &["template"], request: &[], body: check_template },
    Export { name: c"noticeTemplates", params: &[], request: &[], body: notice_templates },
    Export {
        name: c"plan",
        params: &["out", "text", "wide", "notice", "tokenCounter"],
        request: TEXT_PLAN,
        body: plan_string,
    },
    Export {
        name: c"planList",
        params: &["out", "texts", "wide", "totalLength", "notice", "tokenCounter"],
        request: TEXT_PLAN,
        body: plan_list,
    },
    Export { name: c"charsWindows", params: &["out", "length"], request: CHARS_ONLY, body: windows_of },
    Export {
        name: c"planWindows",
        params: &["out", "window0", "from0", "window1", "from1", "window2", "from2", "length", "wide"],
        request: CHARS_ONLY,
        body: plan_windows,
    },
    Export { name: c"encodingOf", params: &["name"], request: &[], body: encoding_of },
    Export { name: c"loadTokenizer", params: &["out", "name", "vocab"], request: &[], body: load_tokenizer },
    Export {
        name: c"countTokens",
        params: &["out", "text", "wide", "tokenizer", "limit"],
        request: &[],
        body: count_tokens,
    },
    Export { name: c"longestToken", params: &["name"], request: &[], body: longest_token },
    Export {
        name: c"searchBudget",
        params: &["low", "high", "highCount", "max", "first", "count"],
        request: &[],
        body: search_budget,
    },
    Export { name: c"measure", params: &["out", "text", "wide"], request: &[], body: measure_string },
    Export {
        name: c"planBuffer",
        params: &["out", "bytes", "notice"],
        request: &[Strategy, MaxChars, MaxBytes, MaxLines, HeadRatio, Snap],
        body: plan_buffer,
    },
    Export {
        name: c"planToolOutput",
        params: &["out", "text", "wide", "notice"],
        request: &[MaxChars, MaxLines, HeadRatio],
        body: plan_tool_output_string,
    },
    Export {
        name: c"planPage",
        params: &["out", "text", "wide", "line", "column", "maxBytes", "maxLines"],
        request: &[],
        body: plan_page,
    },
    Export {
        name: c"repage",
        params: &["out", "text", "wide", "byteColumns"],
        request: &[MaxChars, MaxBytes, MaxLines],
        body: repage_page,
    },
    Export {
        name: c"clampJson",
        params: &["out", "text", "wide", "inlineMarkers", "gap"],
        request: KEEP,
        body: clamp_json_string,
    },
    Export {
        name: c"clampJsonText",
        params: &["out", "text", "inlineMarkers", "gap"],
        request: KEEP,
        body: clamp_json_text_string,
    },
    Export { name: c"locateJson", params: &["out", "text", "wide", "paths"], request: &[], body: locate_json_string },
    Export {
        name: c"classifyError",
        params: &["out", "message", "wide", "status", "code"],
        request: &[],
        body: classify_error,
    },
    Export {
        name: c"planBudget",
        params: &["out", "sizes", "perResult", "aggregate", "minKeepChars", "protectRecent"],
        request: &[],
        body: plan_budget_of,
    },
    Export {
        name: c"normalizeTerminal",
        params: &["out", "text", "wide", "flags", "maxLength"],
        request: &[],
        body: normalize_terminal_string,
    },
    Export {
        name: c"normalizeTerminalBuffer",
        params: &["out", "bytes", "flags", "maxLength"],
        request: &[],
        body: normalize_terminal_buffer,
    },
    Export { name: c"normalizedBound", params: &["out", "length", "bytes"], request: &[], body: normalized_bound },
    Export {
        name: c"elisionMarker",
        params: &["out", "chars", "lines", "tokens", "spillPath"],
        request: &[],
        body: elision_marker_of,
    },
    Export {
        name: c"captureCreate",
        params: &["out", "normalize", "flags", "raw", "tokenCounter"],
        request: CAPTURE,
        body: capture::capture_create,
    },
    Export {
        name: c"captureWrite",
        params: &["out", "capture", "chunk", "wide", "echo"],
        request: &[],
        body: capture::capture_write,
    },
    Export { name: c"captureFinish", params: &["out", "capture", "echo"], request: &[], body: capture::capture_finish },
    Export {
        name: c"captureResult",
        params: &["out", "capture", "final", "notice", "tokenCounter"],
        request: &[Snap],
        body: capture::capture_result,
    },
    Export { name: c"jsonLineCreate", params: &["out"], request: &[], body: line::json_line_create },
    Export { name: c"jsonLineAppend", params: &["out", "line", "chunk"], request: &[], body: line::json_line_append },
    Export {
        name: c"jsonLineScan",
        params: &["out", "line", "minLength", "marker"],
        request: &[],
        body: line::json_line_scan,
    },
    Export { name: c"jsonLineLengths", params: &["out", "line"], request: &[], body: line::json_line_lengths },
    Export { name: c"jsonLineStrings", params: &["out", "line", "inPlace"], request: &[], body: line::json_line_strings },
    Export { name: c"jsonLineBytes", params: &["out", "line"], request: &[], body: line::json_line_bytes },
    Export { name: c"jsonLineDispose", params: &["out", "line"], request: &[], body: line::json_line_dispose },
    Export { name: c"captureDispose", params: &["out", "capture"], request: &[], body: capture::capture_dispose },
    Export {
        name: c"captureSettleHead",
        params: &["out", "capture", "notice"],
        request: &[Snap],
        body: capture::capture_settle_head,
    },
    Export {
        name: c"planPageBuffer",
        params: &["out", "bytes", "line", "column", "maxBytes", "maxLines"],
        request: &[],
        body: plan_page_buffer,
    },
];

// Checked when the binding compiles (a test could not link the table without Node-API):
// every export's arguments fit the array `dispatch` reads them into, and an export that
// reads the request block takes the result array that holds it first.
const _: () = {
    let mut i = 0;
    while i < TABLE.len() {
        let export = &TABLE[i];
        assert!(export.params.len() <= MAX_PARAMS, "an export takes more than MAX_PARAMS arguments");
        assert!(export.request.is_empty() || is_out(export.params[0]), "an export reads a request without `out`");
        i += 1;
    }
};

const fn is_out(param: &str) -> bool {
    matches!(param.as_bytes(), b"out")
}
