//! JSON-aware clamping: fit a JSON value into char, byte and line budgets and keep it
//! valid JSON of the same shape.
//!
//! The input is a JSON text (whitespace between tokens is allowed), as the code units of a
//! JS string (`u8` Latin-1 or `u16` UTF-16). The budgets apply to the value as
//! `JSON.stringify(value, null, gap)` renders it: compact with an empty gap, else one
//! member per line, indented by `gap` per level. The clamped value comes back as compact
//! JSON text, or rendered with the gap when [`JsonRequest::indent`] asks. Every kept
//! string, number and key is copied exactly as the input wrote it (a number is never read
//! as a float: `12345678901234567890`, `1e400` and `-0` stay as written), and every member
//! is kept, duplicate keys included.
//!
//! # What is kept: the rules
//!
//! * **Whole when it fits.** A value whose rendering fits the room its parent gives it is
//!   kept as it is.
//! * **Objects share fairly.** The room for an object's values is shared by water-filling:
//!   every member gets `min(its size, L)` for the largest level `L` the room allows, so a
//!   member smaller than `L` is kept whole and what small members leave goes to the large
//!   ones (a 5 MB `stdout` beside a 200-byte `stderr` keeps all of `stderr`). Room a member
//!   does not use passes to the members after it. A member never gets less than its
//!   smallest form (see below). When even the smallest forms do not fit, the last keys are
//!   dropped (with inline markers, a member `"…": "[... 3 more keys]"` says so).
//! * **Arrays keep whole items in order.** `Head` keeps the first items, `Tail` the last,
//!   `HeadTail` first items within `head_ratio` of the room, then last items, then first
//!   items again with what is left. When no item fits whole, the first (the last with
//!   `Tail`) is shrunk into the room if its smallest form fits, so an array of one huge
//!   item still shows something. With inline markers a string item
//!   `"[... 1,234 more items]"` stands where items were dropped.
//! * **Strings are cut at whole characters** (never inside an escape, a surrogate pair or
//!   `\r\n`): `Head` keeps the start, `Tail` the end, `HeadTail` both ends. With inline
//!   markers `[... 5,241,068 bytes truncated]` goes where the text was cut (bytes of the
//!   string's UTF-8, as `Buffer.byteLength` counts them); with none the string is only
//!   shorter (a prefix, or a suffix with `Tail`).
//! * **Markers `None`** adds nothing: only shorter arrays and strings (and, when the
//!   budget cannot hold every key, fewer keys). Every shortening is listed in
//!   [`JsonClamp::elided`] with both marker settings.
//!
//! # Smallest forms, and budgets too small for any
//!
//! With inline markers no cut is silent: when the long marker does not fit, the short one
//! [`SHORT_MARKER`] (`[...]`) takes its place, and the smallest form of a value that does
//! not fit whole says it was cut: `"[...]"` for a string, `["[...]"]` for an array,
//! `{"…":"[...]"}` for an object (a number or literal is its own smallest form). With
//! markers `None` the smallest forms are `""`, `[]`, and an object's every key with its
//! value's smallest form (so a schema's required keys stay), else `{}`.
//!
//! When the whole value's smallest form does not fit the limits, nothing of the value
//! does: the result is the JSON string `"[...]"` with inline markers, or the empty text
//! when that does not fit either (and always with markers `None`). [`Elided::Value`]
//! records it. A result is never over the limits, whatever they are.
//!
//! Sizes for sharing are UTF-8 bytes. One size, the room of the whole value, is searched
//! for: the largest whose result fits every limit (chars and lines follow from it). A
//! container deeper than [`MAX_DEPTH`] is kept whole or replaced by its smallest form.
//!
//! # Where things are
//!
//! * `scan` reads tokens (strings, numbers, literals) and checks them against the grammar;
//!   `parse` reads a whole text in one pass into the node arena of `tree`, pricing each
//!   value as rendered with the gap (`layout`) on the way.
//! * `clamp` searches for the room of the whole value and walks the tree within it, once
//!   per room tried and once more to render; the walk's pieces are `string` (cuts between
//!   whole characters), `array`, `object` (water-filling) and `write` (whole values,
//!   separators). A walk writes through a `sink`: nowhere while pricing, text and elisions
//!   while rendering. `markers` holds the texts a cut leaves in band.
//! * `locate` finds values by path, for edits that keep every other byte of the text.
//! * `line` reads a JSON text held as UTF-8 bytes without copying its long strings (the
//!   MCP proxy's big messages).

mod array;
mod clamp;
mod layout;
pub mod line;
mod locate;
mod markers;
mod object;
mod parse;
mod scan;
mod sink;
mod string;
mod tree;
mod write;

pub use locate::{locate_json, parse_json_paths, PathStep};

use crate::measure::{Measure, Unit};
use crate::plan::{Limits, Strategy};
use clamp::Clamp;
use layout::{push_ascii, Gap};
use parse::parse;
use scan::{BACKSLASH, QUOTE};

/// Containers nested deeper than this are kept whole or replaced by their smallest form,
/// never cut inside (the planner recurses once per level).
pub const MAX_DEPTH: u32 = 128;

/// The marker inline markers fall back to where the long one does not fit.
pub const SHORT_MARKER: &str = "[...]";

/// Whether a clamp says in band what it shortened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Markers {
    /// Marker items, marker keys and notices inside cut strings.
    Inline,
    /// Only shorter arrays and strings: the result still validates against the schema the
    /// original did (unless the budget cannot hold every key).
    None,
}

#[derive(Clone, Debug)]
pub struct JsonRequest<'g> {
    pub limits: Limits,
    pub strategy: Strategy,
    pub markers: Markers,
    /// `JSON.stringify`'s gap: "" for compact output, else the indentation of one level.
    pub gap: &'g str,
    /// Write the result as `JSON.stringify(value, null, gap)` would (what the limits
    /// measure), rather than compact. Needs units that can hold the gap's chars and `…`:
    /// with `u8` units a gap or marker key beyond Latin-1 is not written as measured.
    pub indent: bool,
}

/// Code units the clamp writes text in: those of the input, which may have to hold the
/// gap and the marker key `…`.
pub trait JsonUnit: Unit {
    /// The unit of a UTF-16 code unit, when this representation has one.
    fn from_utf16(code: u16) -> Option<Self>;
}

impl JsonUnit for u8 {
    fn from_utf16(code: u16) -> Option<u8> {
        u8::try_from(code).ok()
    }
}

impl JsonUnit for u16 {
    fn from_utf16(code: u16) -> Option<u16> {
        Some(code)
    }
}

/// One thing a clamp shortened, at a JSONPath-like `path` (`$`, `$.items[3]`,
/// `$["a key"]`), as code units of a JS string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elided<U> {
    /// An array keeps `kept` of its `total` items (a shrunk item counts as kept).
    Items { path: Vec<U>, kept: u64, total: u64 },
    /// An object keeps `kept` of its `total` keys.
    Keys { path: Vec<U>, kept: u64, total: u64 },
    /// A string keeps `kept_bytes` of its `total_bytes` (UTF-8 of the string's value).
    Text { path: Vec<U>, kept_bytes: u64, total_bytes: u64 },
    /// Nothing of the value is kept: not even its smallest form fits. `total_bytes` is the
    /// value as rendered with the gap.
    Value { path: Vec<U>, total_bytes: u64 },
}

/// A clamped value: JSON text and what was shortened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonClamp<U> {
    /// The clamped value as JSON: compact, or rendered with the gap when the request said
    /// [`JsonRequest::indent`]. Empty when no form of the value fits (see the module docs).
    pub text: Vec<U>,
    /// In the order of the result's text, a container after what it holds. Empty when the
    /// value is kept whole (only re-rendered).
    pub elided: Vec<Elided<U>>,
    /// The input as rendered with the gap.
    pub total: Measure,
    /// The result as rendered with the gap.
    pub output: Measure,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonError {
    /// Not JSON: the position of the first unit that does not fit the grammar.
    Invalid { at: usize },
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonError::Invalid { at } => write!(f, "not valid JSON at position {at}"),
        }
    }
}

/// Clamps the JSON text `units`: the value's measure as rendered with the gap, and the
/// clamped value, or `None` when it fits as it is. Never more than the limits, whatever
/// they are (see the module docs for budgets below the smallest form).
pub fn clamp_json<U: JsonUnit>(
    units: &[U],
    request: &JsonRequest<'_>,
) -> Result<(Measure, Option<JsonClamp<U>>), JsonError> {
    let nodes = parse(units, &Gap::new(request.gap), request.markers)?;
    let clamp = Clamp::new(units, &nodes, request);
    let total = clamp.total();
    if total.fits(request.limits.as_measure()) {
        return Ok((total, None));
    }
    Ok((total, Some(clamp.run(request.limits))))
}

/// What [`clamp_json_text`] answers for a JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonText<U> {
    /// The text fits as it is given: `input` is its measure.
    AsGiven { input: Measure },
    /// The text does not fit as given: the value rendered with the gap, whole (nothing
    /// elided) when that fits, else clamped.
    Rendered { input: Measure, clamped: JsonClamp<U> },
}

/// [`clamp_json`] for a JSON text given by a user, which comes back as text: as it is when
/// it fits, else rendered with the gap (`request.indent` is taken as set). UTF-16 units, so
/// that the gap and the marker key `…` can be written as measured.
pub fn clamp_json_text(units: &[u16], request: &JsonRequest<'_>) -> Result<JsonText<u16>, JsonError> {
    let nodes = parse(units, &Gap::new(request.gap), request.markers)?;
    let input = crate::measure::measure(units);
    if input.fits(request.limits.as_measure()) {
        return Ok(JsonText::AsGiven { input });
    }
    let request = JsonRequest { indent: true, ..request.clone() };
    let clamp = Clamp::new(units, &nodes, &request);
    let total = clamp.total();
    let clamped = if total.fits(request.limits.as_measure()) { clamp.whole() } else { clamp.run(request.limits) };
    Ok(JsonText::Rendered { input, clamped })
}

/// The answer the binding returns, as one text of code units: the elisions as a JSON array
/// `[[kind, path, kept, total], ...]` (kind "items", "keys", "text" or "value"; kept and
/// total in bytes for "text" and "value"), a line feed, then the clamped value's text. The
/// array holds no line feed: keys in paths are as the input wrote them, where a control
/// character is always escaped.
pub fn answer_text<U: Unit>(clamped: &JsonClamp<U>) -> Vec<U> {
    let mut out: Vec<U> = Vec::with_capacity(clamped.text.len() + 16 + clamped.elided.len() * 32);
    push_ascii(&mut out, "[");
    for (i, e) in clamped.elided.iter().enumerate() {
        if i > 0 {
            push_ascii(&mut out, ",");
        }
        let (kind, path, kept, total) = match e {
            Elided::Items { path, kept, total } => ("items", path, *kept, *total),
            Elided::Keys { path, kept, total } => ("keys", path, *kept, *total),
            Elided::Text { path, kept_bytes, total_bytes } => ("text", path, *kept_bytes, *total_bytes),
            Elided::Value { path, total_bytes } => ("value", path, 0, *total_bytes),
        };
        push_ascii(&mut out, "[\"");
        push_ascii(&mut out, kind);
        push_ascii(&mut out, "\",\"");
        for &u in path {
            // Paths hold keys as JSON wrote them: only their quotes and backslashes need
            // escaping again.
            if u.code() == QUOTE || u.code() == BACKSLASH {
                push_ascii(&mut out, "\\");
            }
            out.push(u);
        }
        push_ascii(&mut out, "\",");
        push_ascii(&mut out, &kept.to_string());
        push_ascii(&mut out, ",");
        push_ascii(&mut out, &total.to_string());
        push_ascii(&mut out, "]");
    }
    push_ascii(&mut out, "]\n");
    out.extend_from_slice(&clamped.text);
    out
}
