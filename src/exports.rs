//! The functions `lib/native.js` calls. Each takes the result buffer first, writes every
//! slot of its answer there (see [`crate::layout`]), and returns at most one string: a
//! glue, a banner, or a clamped text. The signatures, in the order JS passes arguments,
//! are the `params` of [`EXPORTS`].

use crate::call::Export;
use crate::capture;
use crate::conversation::{classify_error, elision_marker_of, plan_budget_of};
use crate::json::{clamp_json_string, clamp_json_text_string, locate_json_string};
use crate::notice::{check_template, notice_templates};
use crate::page::{plan_page, plan_page_buffer, repage_page};
use crate::plan::{
    measure_string, plan_buffer, plan_list, plan_string, plan_tool_output_string, plan_windows, windows_of,
};
use crate::terminal::{normalize_terminal_buffer, normalize_terminal_string, normalized_bound};

#[rustfmt::skip]
pub static EXPORTS: &[Export] = &[
    Export { name: c"checkTemplate", params: &["template"], body: check_template },
    Export { name: c"noticeTemplates", params: &[], body: notice_templates },
    Export {
        name: c"plan",
        params: &["out", "text", "wide", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio", "notice", "exact",
                  "snap", "restack"],
        body: plan_string,
    },
    Export {
        name: c"planList",
        params: &["out", "texts", "wide", "totalLength", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio",
                  "notice", "exact", "snap", "restack"],
        body: plan_list,
    },
    Export { name: c"charsWindows", params: &["out", "length", "strategy", "maxChars", "headRatio"], body: windows_of },
    Export {
        name: c"planWindows",
        params: &["out", "window0", "from0", "window1", "from1", "window2", "from2", "length", "wide", "strategy",
                  "maxChars", "headRatio"],
        body: plan_windows,
    },
    Export { name: c"measure", params: &["out", "text", "wide"], body: measure_string },
    Export {
        name: c"planBuffer",
        params: &["out", "bytes", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio", "notice", "snap"],
        body: plan_buffer,
    },
    Export {
        name: c"planToolOutput",
        params: &["out", "text", "wide", "maxChars", "maxLines", "headRatio", "notice"],
        body: plan_tool_output_string,
    },
    Export { name: c"planPage", params: &["out", "text", "wide", "line", "column", "maxBytes", "maxLines"], body: plan_page },
    Export {
        name: c"repage",
        params: &["out", "text", "wide", "maxChars", "maxBytes", "maxLines", "byteColumns"],
        body: repage_page,
    },
    Export {
        name: c"clampJson",
        params: &["out", "text", "wide", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio", "inlineMarkers",
                  "gap"],
        body: clamp_json_string,
    },
    Export {
        name: c"clampJsonText",
        params: &["out", "text", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio", "inlineMarkers", "gap"],
        body: clamp_json_text_string,
    },
    Export { name: c"locateJson", params: &["out", "text", "wide", "paths"], body: locate_json_string },
    Export { name: c"classifyError", params: &["out", "message", "wide", "status", "code"], body: classify_error },
    Export {
        name: c"planBudget",
        params: &["out", "sizes", "perResult", "aggregate", "minKeepChars", "protectRecent"],
        body: plan_budget_of,
    },
    Export {
        name: c"normalizeTerminal",
        params: &["out", "text", "wide", "flags", "maxLength"],
        body: normalize_terminal_string,
    },
    Export {
        name: c"normalizeTerminalBuffer",
        params: &["out", "bytes", "flags", "maxLength"],
        body: normalize_terminal_buffer,
    },
    Export { name: c"normalizedBound", params: &["out", "length", "bytes"], body: normalized_bound },
    Export { name: c"elisionMarker", params: &["out", "chars", "lines", "tokens", "spillPath"], body: elision_marker_of },
    Export {
        name: c"captureCreate",
        params: &["out", "strategy", "maxChars", "maxBytes", "maxLines", "headRatio", "normalize", "flags", "raw"],
        body: capture::capture_create,
    },
    Export { name: c"captureWrite", params: &["out", "capture", "chunk", "wide", "echo"], body: capture::capture_write },
    Export { name: c"captureFinish", params: &["out", "capture", "echo"], body: capture::capture_finish },
    Export {
        name: c"captureResult",
        params: &["out", "capture", "final", "notice", "snap"],
        body: capture::capture_result,
    },
    Export { name: c"captureDispose", params: &["out", "capture"], body: capture::capture_dispose },
    Export {
        name: c"captureSettleHead",
        params: &["out", "capture", "notice", "snap"],
        body: capture::capture_settle_head,
    },
    Export {
        name: c"planPageBuffer",
        params: &["out", "bytes", "line", "column", "maxBytes", "maxLines"],
        body: plan_page_buffer,
    },
];
