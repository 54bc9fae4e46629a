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

use crate::measure::{Measure, Span, Unit};
use crate::notice::push_count;
use crate::plan::{Limits, Strategy, UNLIMITED};

/// Containers nested deeper than this are kept whole or replaced by their smallest form,
/// never cut inside (the planner recurses once per level).
pub const MAX_DEPTH: u32 = 128;

/// The marker inline markers fall back to where the long one does not fit.
pub const SHORT_MARKER: &str = "[...]";

/// [`SHORT_MARKER`] as a JSON string: the smallest honest form of a cut string, and what a
/// value becomes when not even its own smallest form fits.
const SHORT_STRING: &str = "\"[...]\"";

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
    if admits(&request.limits, total) {
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
    if admits(&request.limits, input) {
        return Ok(JsonText::AsGiven { input });
    }
    let request = JsonRequest { indent: true, ..request.clone() };
    let clamp = Clamp::new(units, &nodes, &request);
    let total = clamp.total();
    let clamped = if admits(&request.limits, total) { clamp.whole() } else { clamp.run(request.limits) };
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

fn admits(limits: &Limits, m: Measure) -> bool {
    m.chars <= limits.max_chars && m.bytes <= limits.max_bytes && m.lines <= limits.max_lines
}

// ---------------------------------------------------------------------------------------
// Locating values in a JSON text, for edits that keep every other byte of it.
// ---------------------------------------------------------------------------------------

/// One step of a path into a JSON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    /// An object member, by its key (decoded, as UTF-16).
    Key(Vec<u16>),
    /// An array item.
    Index(usize),
}

/// Where the value at each of `paths` is in the JSON text `units`: the `start..end` of its
/// token (a container's from bracket to bracket), or `None` where the path leads nowhere.
/// A key names the last member with that key, the one `JSON.parse` keeps. Splicing new
/// JSON over these spans changes nothing else of the text.
pub fn locate_json<U: Unit>(
    units: &[U],
    paths: &[Vec<PathStep>],
) -> Result<Vec<Option<std::ops::Range<usize>>>, JsonError> {
    let parsed = parse(units, &Gap::new(""), Markers::None)?;
    let nodes = &parsed.nodes;
    let children = |id: usize| {
        let mut next = id + 1;
        (0..nodes[id].count()).map(move |_| {
            let c = next;
            next = nodes[c].next();
            c
        })
    };
    let find = |path: &[PathStep]| {
        let mut id = 0;
        for step in path {
            id = match (step, nodes[id].kind) {
                (PathStep::Index(i), Kind::Array) => children(id).nth(*i)?,
                (PathStep::Key(key), Kind::Object) => {
                    children(id).filter(|&m| decode_string(&units[nodes[m].key()]) == *key).last()?
                }
                _ => return None,
            };
        }
        Some(nodes[id].span())
    };
    Ok(paths.iter().map(|path| find(path)).collect())
}

/// Paths written as JSON: an array of paths, each an array of keys (strings) and indices
/// (non-negative integers), as `JSON.stringify([["message", "content", 0, "text"]])` writes.
pub fn parse_json_paths<U: Unit>(units: &[U]) -> Result<Vec<Vec<PathStep>>, JsonError> {
    let parsed = parse(units, &Gap::new(""), Markers::None)?;
    let nodes = &parsed.nodes;
    let invalid = |id: usize| JsonError::Invalid { at: nodes[id].start as usize };
    let children = |id: usize| {
        let mut next = id + 1;
        (0..nodes[id].count()).map(move |_| {
            let c = next;
            next = nodes[c].next();
            c
        })
    };
    if nodes[0].kind != Kind::Array {
        return Err(invalid(0));
    }
    children(0)
        .map(|p| {
            if nodes[p].kind != Kind::Array {
                return Err(invalid(p));
            }
            children(p)
                .map(|s| {
                    let token = &units[nodes[s].span()];
                    match nodes[s].kind {
                        Kind::String => Ok(PathStep::Key(decode_string(token))),
                        Kind::Scalar if token.iter().all(|u| (0x30..=0x39).contains(&u.code())) => token
                            .iter()
                            .try_fold(0usize, |n, u| n.checked_mul(10)?.checked_add((u.code() - 0x30) as usize))
                            .map(PathStep::Index)
                            .ok_or_else(|| invalid(s)),
                        _ => Err(invalid(s)),
                    }
                })
                .collect()
        })
        .collect()
}

/// The UTF-16 units a string token (quotes included, already scanned) stands for.
fn decode_string<U: Unit>(token: &[U]) -> Vec<u16> {
    let content = &token[1..token.len() - 1];
    let mut out = Vec::with_capacity(content.len());
    let mut i = 0;
    while i < content.len() {
        let c = content[i].code();
        if c != BACKSLASH {
            out.push(c);
            i += 1;
            continue;
        }
        let (unit, len) = match content.get(i + 1).map_or(0, |u| u.code()) {
            0x62 => (0x08, 2),
            0x66 => (0x0C, 2),
            0x6E => (0x0A, 2),
            0x72 => (0x0D, 2),
            0x74 => (0x09, 2),
            0x75 => (escaped_unit(content, i).unwrap_or(0xFFFD), 6),
            e => (e, 2),
        };
        out.push(unit);
        i += len;
    }
    out
}

// ---------------------------------------------------------------------------------------
// Parsing: one pass, no recursion, into an arena of nodes in document order.
// ---------------------------------------------------------------------------------------

const QUOTE: u16 = b'"' as u16;
const BACKSLASH: u16 = b'\\' as u16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Scalar,
    String,
    Array,
    Object,
}

/// A value in the arena. Its children follow it: the first at `id + 1`, each next one at
/// the previous one's `next`. Positions are `u32` (a JS string holds under 2^30 units;
/// [`parse`] refuses longer input) to keep the arena small: it is most of the memory a
/// clamp touches.
#[derive(Clone, Debug)]
struct Node {
    kind: Kind,
    depth: u32,
    /// The value's token or brackets, `start..end` in the input.
    start: u32,
    end: u32,
    /// An object member's key token (with its quotes); empty otherwise.
    key_start: u32,
    key_end: u32,
    /// The index after this node's subtree.
    next: u32,
    /// Children.
    count: u32,
    /// The value as rendered at its depth.
    full: Span,
    /// Strings: UTF-8 bytes of the decoded value. Others: bytes of the smallest form that
    /// keeps the value's shape (see [`Node::min_bytes`]).
    extra: u64,
}

impl Node {
    fn span(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    fn key(&self) -> std::ops::Range<usize> {
        self.key_start as usize..self.key_end as usize
    }

    fn next(&self) -> usize {
        self.next as usize
    }

    fn count(&self) -> usize {
        self.count as usize
    }

    /// Bytes of the smallest form that keeps the value's shape (see the module docs): for
    /// a string `"[...]"` with inline markers, `""` without; containers keep theirs in
    /// `extra`.
    fn min_bytes(&self, markers: Markers) -> u64 {
        match (self.kind, markers) {
            (Kind::String, Markers::Inline) => self.full.bytes.min(SHORT_STRING.len() as u64),
            (Kind::String, Markers::None) => 2,
            _ => self.extra,
        }
    }

    /// Strings: UTF-8 bytes of the decoded value.
    fn value_bytes(&self) -> u64 {
        self.extra
    }
}

/// The gap and the indentation it costs.
struct Gap {
    span: Span,
}

impl Gap {
    fn new(gap: &str) -> Gap {
        let s = crate::measure::measure_str(gap);
        let newlines = gap.bytes().filter(|&b| b == b'\n').count() as u64;
        Gap { span: Span { chars: s.chars, bytes: s.bytes, newlines } }
    }

    fn indented(&self) -> bool {
        self.span.chars > 0
    }

    fn times(&self, n: u64) -> Span {
        Span { chars: self.span.chars * n, bytes: self.span.bytes * n, newlines: self.span.newlines * n }
    }

    /// What goes before each member of a container at `depth`: a comma (the first
    /// member's is taken back in [`Gap::frame`]) and, indented, a line break and the
    /// member's indentation.
    fn per_member(&self, depth: u32) -> Span {
        if self.indented() {
            ascii(1) + NEWLINE + self.times(depth as u64 + 1)
        } else {
            ascii(1)
        }
    }

    /// Brackets, the closing line break and indentation, less one comma; for a container
    /// with at least one member.
    fn frame(&self, depth: u32) -> Span {
        if self.indented() {
            ascii(1) + NEWLINE + self.times(depth as u64)
        } else {
            ascii(1)
        }
    }

    /// `:` or `: ` after a key.
    fn colon(&self) -> Span {
        ascii(if self.indented() { 2 } else { 1 })
    }
}

const NEWLINE: Span = Span { chars: 1, bytes: 1, newlines: 1 };

fn ascii(n: u64) -> Span {
    Span { chars: n, bytes: n, newlines: 0 }
}

fn as_measure(s: Span) -> Measure {
    Measure { chars: s.chars, bytes: s.bytes, lines: s.newlines + 1 }
}

fn push_ascii<U: Unit>(out: &mut Vec<U>, s: &str) {
    out.extend(s.bytes().map(U::from_ascii));
}

/// A container still open while parsing, and the sums over its members so far.
struct Open {
    id: usize,
    /// Bytes of the container's own key, if it is an object member.
    key_bytes: u64,
    members: Span,
    min_members: u64,
    /// Bit `n` is set when a key is `n` ellipses (see [`marker_dots`]).
    dots_taken: u64,
}

/// A parsed text: its nodes, and whether it has no whitespace between tokens (then a kept
/// container's compact text is its token as written).
struct Parsed {
    nodes: Vec<Node>,
    compact: bool,
}

fn parse<U: Unit>(units: &[U], gap: &Gap, markers: Markers) -> Result<Parsed, JsonError> {
    if units.len() >= u32::MAX as usize {
        return Err(JsonError::Invalid { at: u32::MAX as usize });
    }
    let code = |i: usize| units.get(i).map_or(0, |u| u.code());
    let spaced = std::cell::Cell::new(false);
    let skip_ws = |from: usize| {
        let mut i = from;
        while matches!(code(i), 0x20 | 0x09 | 0x0A | 0x0D) && i < units.len() {
            i += 1;
        }
        if i > from {
            spaced.set(true);
        }
        i
    };
    // About one node per 16 units in record-like JSON; pages never touched cost nothing.
    let mut nodes: Vec<Node> = Vec::with_capacity(units.len() / 16 + 1);
    let mut stack: Vec<Open> = Vec::new();
    let mut i = skip_ws(0);
    // The key of the next value (start, end, its bytes), when in an object.
    let mut key = Key::NONE;
    loop {
        // A value starts at `i`.
        let id = nodes.len();
        let mut node = Node {
            kind: Kind::Scalar,
            depth: stack.len() as u32,
            start: i as u32,
            end: i as u32,
            key_start: key.start,
            key_end: key.end,
            next: 0,
            count: 0,
            full: Span::ZERO,
            extra: 0,
        };
        let key_bytes = key.bytes;
        let c = code(i);
        let mut done = (id, key_bytes);
        if c == b'{' as u16 || c == b'[' as u16 {
            node.kind = if c == b'{' as u16 { Kind::Object } else { Kind::Array };
            nodes.push(node);
            stack.push(Open { id, key_bytes, members: Span::ZERO, min_members: 0, dots_taken: 0 });
            i = skip_ws(i + 1);
            let close = if c == b'{' as u16 { b'}' } else { b']' } as u16;
            if code(i) == close && i < units.len() {
                i += 1;
                let open = stack.pop().expect("just pushed");
                close_container(&mut nodes, open, i, gap, markers);
            } else {
                key = Key::NONE;
                if c == b'{' as u16 {
                    key = parse_key(units, &mut i, &spaced)?;
                    i = skip_ws(i);
                    take_dots(stack.last_mut(), units, key);
                }
                continue;
            }
        } else {
            if c == QUOTE && i < units.len() {
                let scanned = scan_string(units, i)?;
                node.kind = Kind::String;
                node.extra = scanned.decoded;
                node.end = scanned.end as u32;
                node.full = Span { chars: (scanned.end - i) as u64, bytes: scanned.written, newlines: 0 };
                i = scanned.end;
            } else {
                let end = scan_scalar(units, i)?;
                node.end = end as u32;
                // Numbers and literals are ASCII.
                node.full = ascii((end - i) as u64);
                node.extra = node.full.bytes;
                i = end;
            }
            node.next = id as u32 + 1;
            nodes.push(node);
        }
        // After a value: close containers, or find the next member.
        loop {
            let Some(open) = stack.last_mut() else {
                i = skip_ws(i);
                if i != units.len() {
                    return Err(JsonError::Invalid { at: i });
                }
                return Ok(Parsed { nodes, compact: !spaced.get() });
            };
            let (child_id, child_key_bytes) = done;
            let child = &nodes[child_id];
            let mut member = child.full;
            let mut min_member = child.min_bytes(Markers::None);
            if child.key_end > child.key_start {
                let key_span =
                    Span { chars: (child.key_end - child.key_start) as u64, bytes: child_key_bytes, newlines: 0 };
                member = member + key_span + gap.colon();
                min_member += key_span.bytes + gap.colon().bytes;
            }
            let per = gap.per_member(child.depth - 1);
            open.members = open.members + per + member;
            open.min_members += per.bytes + min_member;
            let parent = open.id;
            nodes[parent].count += 1;
            i = skip_ws(i);
            let c = code(i);
            let object = nodes[parent].kind == Kind::Object;
            if c == b',' as u16 && i < units.len() {
                i = skip_ws(i + 1);
                if object {
                    key = parse_key(units, &mut i, &spaced)?;
                    i = skip_ws(i);
                    take_dots(Some(open), units, key);
                } else {
                    key = Key::NONE;
                }
                break;
            }
            let close = if object { b'}' } else { b']' } as u16;
            if c != close || i >= units.len() {
                return Err(JsonError::Invalid { at: i });
            }
            i += 1;
            let open = stack.pop().expect("open");
            done = (parent, open.key_bytes);
            close_container(&mut nodes, open, i, gap, markers);
        }
    }
}

/// An object member's key token while parsing.
#[derive(Clone, Copy)]
struct Key {
    start: u32,
    end: u32,
    bytes: u64,
}

impl Key {
    const NONE: Key = Key { start: 0, end: 0, bytes: 0 };
}

/// Finishes a container's node once its closing bracket ends at `end`.
fn close_container(nodes: &mut [Node], open: Open, end: usize, gap: &Gap, markers: Markers) {
    let next = nodes.len();
    let node = &mut nodes[open.id];
    node.end = end as u32;
    node.next = next as u32;
    if node.count == 0 {
        node.full = ascii(2);
        node.extra = 2;
        return;
    }
    let frame = gap.frame(node.depth);
    node.full = frame + open.members;
    // With inline markers, the container holding only its marker: `["[...]"]` or
    // `{"…":"[...]"}` (unless it is smaller whole).
    let marked = frame.bytes + gap.per_member(node.depth).bytes + SHORT_STRING.len() as u64;
    node.extra = match (node.kind, markers) {
        (Kind::Object, Markers::None) => frame.bytes + open.min_members,
        (Kind::Array, Markers::None) => 2,
        (Kind::Array, Markers::Inline) => node.full.bytes.min(marked),
        (Kind::Object, Markers::Inline) => {
            let key = marker_key_span(free_dots(open.dots_taken));
            node.full.bytes.min(marked + key.bytes + gap.colon().bytes)
        }
        _ => unreachable!("only containers are closed"),
    };
}

/// Notes in `open` (an object) that `key` is a run of ellipses.
fn take_dots<U: Unit>(open: Option<&mut Open>, units: &[U], key: Key) {
    if let (Some(open), Some(dots)) = (open, marker_dots(&units[key.start as usize..key.end as usize])) {
        if dots < 64 {
            open.dots_taken |= 1 << dots;
        }
    }
}

/// The fewest ellipses (from one) no key in `taken` has (see [`Open::dots_taken`]).
fn free_dots(taken: u64) -> usize {
    (1..64).find(|&n| taken & (1 << n) == 0).unwrap_or(64)
}

/// `n` when the key token (with its quotes) is `n` ellipses (U+2026), raw or escaped.
fn marker_dots<U: Unit>(key: &[U]) -> Option<usize> {
    let content = key.get(1..key.len().saturating_sub(1))?;
    let (mut i, mut n) = (0, 0);
    while i < content.len() {
        if content[i].code() == 0x2026 {
            i += 1;
        } else if content[i].code() == BACKSLASH
            && escaped_unit(content, i) == Some(0x2026)
            && content.get(i + 1).map(|u| u.code()) == Some(b'u' as u16)
        {
            i += 6;
        } else {
            return None;
        }
        n += 1;
    }
    (n > 0).then_some(n)
}

/// The marker key of `dots` ellipses as rendered: `"…"` is 3 chars and 5 bytes.
fn marker_key_span(dots: usize) -> Span {
    Span { chars: dots as u64 + 2, bytes: 3 * dots as u64 + 2, newlines: 0 }
}

/// Reads `"key" :` at `*i` (after whitespace); leaves `*i` after the colon.
fn parse_key<U: Unit>(units: &[U], i: &mut usize, spaced: &std::cell::Cell<bool>) -> Result<Key, JsonError> {
    if units.get(*i).map(|u| u.code()) != Some(QUOTE) {
        return Err(JsonError::Invalid { at: *i });
    }
    let start = *i;
    let scanned = scan_string(units, start)?;
    let mut j = scanned.end;
    while j < units.len() && matches!(units[j].code(), 0x20 | 0x09 | 0x0A | 0x0D) {
        j += 1;
        spaced.set(true);
    }
    if units.get(j).map(|u| u.code()) != Some(b':' as u16) {
        return Err(JsonError::Invalid { at: j });
    }
    *i = j + 1;
    Ok(Key { start: start as u32, end: scanned.end as u32, bytes: scanned.written })
}

fn hex(c: u16) -> Option<u16> {
    match c {
        0x30..=0x39 => Some(c - 0x30),
        0x41..=0x46 => Some(c - 0x41 + 10),
        0x61..=0x66 => Some(c - 0x61 + 10),
        _ => None,
    }
}

/// The code unit a `\uXXXX` escape at `i` (the backslash) stands for.
fn escaped_unit<U: Unit>(units: &[U], i: usize) -> Option<u16> {
    let digits = units.get(i + 2..i + 6)?;
    digits.iter().try_fold(0u16, |acc, d| Some(acc * 16 + hex(d.code())?))
}

/// A scanned string token.
struct Scanned {
    /// After the closing quote.
    end: usize,
    /// UTF-8 bytes of the decoded value.
    decoded: u64,
    /// UTF-8 bytes of the token as written, quotes included.
    written: u64,
}

/// Scans the string token starting at `start` (a quote). Rejects control characters written
/// raw; takes lone surrogates, as `JSON.parse` does.
fn scan_string<U: Unit>(units: &[U], start: usize) -> Result<Scanned, JsonError> {
    let mut i = start + 1;
    let mut decoded = 0u64;
    let mut written = 2u64;
    let mut pending_high = false;
    loop {
        // A run of plain units, counted in bulk.
        let (len, plain_bytes, odd) = U::plain_run(&units[i..]);
        let run_end = i + len;
        if run_end > i {
            let run = &units[i..run_end];
            let bytes = if odd { check_run(run, i)? } else { plain_bytes };
            decoded += bytes;
            written += bytes;
            pending_high = false;
            i = run_end;
        }
        let Some(&u) = units.get(i) else {
            return Err(JsonError::Invalid { at: i });
        };
        if u.code() == QUOTE {
            return Ok(Scanned { end: i + 1, decoded, written });
        }
        // A backslash.
        let e = units.get(i + 1).map_or(0, |u| u.code());
        match e {
            0x22 | 0x5C | 0x2F | 0x62 | 0x66 | 0x6E | 0x72 | 0x74 => {
                decoded += 1;
                written += 2;
                pending_high = false;
                i += 2;
            }
            0x75 => {
                let Some(x) = escaped_unit(units, i) else {
                    return Err(JsonError::Invalid { at: i });
                };
                decoded += if x < 0x80 {
                    1
                } else if x < 0x800 {
                    2
                } else if x & 0xFC00 == 0xDC00 && pending_high {
                    1
                } else {
                    3
                };
                written += 6;
                pending_high = x & 0xFC00 == 0xD800;
                i += 6;
            }
            _ => return Err(JsonError::Invalid { at: i }),
        }
    }
}

/// UTF-8 bytes of a run with no quote or backslash, checked unit by unit for control
/// characters. `at` is the run's position, for errors.
fn check_run<U: Unit>(run: &[U], at: usize) -> Result<u64, JsonError> {
    let mut bytes = 0;
    let mut k = 0;
    while k < run.len() {
        let u = run[k];
        if u.code() < 0x20 {
            return Err(JsonError::Invalid { at: at + k });
        }
        if u.is_high_surrogate() && run.get(k + 1).is_some_and(|n| n.is_low_surrogate()) {
            bytes += 4;
            k += 2;
            continue;
        }
        // A lone surrogate (JSON.parse takes it) weighs 3, as U+FFFD.
        bytes += u.weight(None);
        k += 1;
    }
    Ok(bytes)
}

/// Scans a number or literal at `i`; returns its end.
fn scan_scalar<U: Unit>(units: &[U], start: usize) -> Result<usize, JsonError> {
    let code = |i: usize| units.get(i).map_or(0, |u| u.code());
    for literal in ["true", "false", "null"] {
        if literal.bytes().enumerate().all(|(k, b)| code(start + k) == b as u16 && start + k < units.len()) {
            return Ok(start + literal.len());
        }
    }
    let digit = |i: usize| (0x30..=0x39).contains(&code(i)) && i < units.len();
    let digits = |mut i: usize| {
        let from = i;
        while digit(i) {
            i += 1;
        }
        (i, i - from)
    };
    let mut i = start;
    if code(i) == b'-' as u16 {
        i += 1;
    }
    if code(i) == b'0' as u16 && digit(i) {
        i += 1;
    } else {
        let (end, n) = digits(i);
        if n == 0 {
            return Err(JsonError::Invalid { at: i });
        }
        i = end;
    }
    if code(i) == b'.' as u16 && i < units.len() {
        let (end, n) = digits(i + 1);
        if n == 0 {
            return Err(JsonError::Invalid { at: end });
        }
        i = end;
    }
    if matches!(code(i), 0x45 | 0x65) && i < units.len() {
        i += 1;
        if matches!(code(i), 0x2B | 0x2D) {
            i += 1;
        }
        let (end, n) = digits(i);
        if n == 0 {
            return Err(JsonError::Invalid { at: end });
        }
        i = end;
    }
    Ok(i)
}

// ---------------------------------------------------------------------------------------
// Planning and rendering: one walk, priced alone while searching, then rendered.
// ---------------------------------------------------------------------------------------

/// Where a walk writes: nowhere while pricing, the result while rendering.
trait Sink<U: Unit> {
    const RENDERS: bool;
    fn units(&mut self, units: &[U]);
    fn ascii(&mut self, s: &str);
    fn enter(&mut self, step: Step);
    fn leave(&mut self);
    fn elide(&mut self, what: Shortened);
}

#[derive(Clone, Copy)]
enum Step {
    Key { start: usize, end: usize },
    Index(usize),
}

enum Shortened {
    Items { kept: u64, total: u64 },
    Keys { kept: u64, total: u64 },
    Text { kept_bytes: u64, total_bytes: u64 },
}

struct NoSink;

impl<U: Unit> Sink<U> for NoSink {
    const RENDERS: bool = false;
    fn units(&mut self, _: &[U]) {}
    fn ascii(&mut self, _: &str) {}
    fn enter(&mut self, _: Step) {}
    fn leave(&mut self) {}
    fn elide(&mut self, _: Shortened) {}
}

struct Render<'u, U> {
    text: Vec<U>,
    elided: Vec<Elided<U>>,
    path: Vec<(Step, &'u [U])>,
}

impl<'u, U: Unit> Render<'u, U> {
    fn path_text(&self) -> Vec<U> {
        let mut out = Vec::new();
        push_ascii(&mut out, "$");
        for (step, key) in &self.path {
            match *step {
                Step::Index(i) => {
                    push_ascii(&mut out, "[");
                    push_ascii(&mut out, &i.to_string());
                    push_ascii(&mut out, "]");
                }
                Step::Key { .. } => {
                    let inner = &key[1..key.len() - 1];
                    if is_identifier(inner) {
                        push_ascii(&mut out, ".");
                        out.extend_from_slice(inner);
                    } else {
                        push_ascii(&mut out, "[");
                        out.extend_from_slice(key);
                        push_ascii(&mut out, "]");
                    }
                }
            }
        }
        out
    }
}

fn is_identifier<U: Unit>(key: &[U]) -> bool {
    let word = |c: u16| c == b'_' as u16 || c == b'$' as u16 || (c < 0x80 && (c as u8).is_ascii_alphanumeric());
    key.first().is_some_and(|u| !(0x30..=0x39).contains(&u.code())) && key.iter().all(|u| word(u.code()))
}

/// A rendering walk that knows its input, for paths.
struct Rendering<'r, 'u, U> {
    render: &'r mut Render<'u, U>,
    units: &'u [U],
}

impl<U: Unit> Sink<U> for Rendering<'_, '_, U> {
    const RENDERS: bool = true;
    fn units(&mut self, units: &[U]) {
        self.render.text.extend_from_slice(units);
    }
    fn ascii(&mut self, s: &str) {
        push_ascii(&mut self.render.text, s);
    }
    fn enter(&mut self, step: Step) {
        let key: &[U] = match step {
            Step::Key { start, end } => &self.units[start..end],
            Step::Index(_) => &[],
        };
        self.render.path.push((step, key));
    }
    fn leave(&mut self) {
        self.render.path.pop();
    }
    fn elide(&mut self, what: Shortened) {
        let path = self.render.path_text();
        self.render.elided.push(match what {
            Shortened::Items { kept, total } => Elided::Items { path, kept, total },
            Shortened::Keys { kept, total } => Elided::Keys { path, kept, total },
            Shortened::Text { kept_bytes, total_bytes } => Elided::Text { path, kept_bytes, total_bytes },
        });
    }
}

struct Clamp<'a, U> {
    units: &'a [U],
    nodes: &'a [Node],
    gap: Gap,
    markers: Markers,
    strategy: Strategy,
    /// The result is written with the gap (as measured); else compact.
    indented: bool,
    /// The gap's units, for writing indentation.
    gap_units: Vec<U>,
    /// A kept container's compact text is its token as written (no whitespace in it).
    compact_input: bool,
    /// The request's gap is empty (the measures are of the compact rendering).
    compact_measures: bool,
}

fn count_text(n: u64, what: &str) -> String {
    let mut s = String::with_capacity(32);
    s.push_str("[... ");
    push_count(&mut s, n);
    s.push(' ');
    s.push_str(what);
    s.push(']');
    s
}

fn json_string(s: &str) -> String {
    format!("\"{s}\"")
}

impl<'a, U: JsonUnit> Clamp<'a, U> {
    fn new(units: &'a [U], parsed: &'a Parsed, request: &JsonRequest<'_>) -> Self {
        let gap = Gap::new(request.gap);
        // Units that cannot hold the gap's chars write the stand-in `?` (only a Latin-1
        // caller that asked for indentation it cannot write; see JsonRequest::indent).
        let gap_units =
            request.gap.encode_utf16().map(|c| U::from_utf16(c).unwrap_or_else(|| U::from_ascii(b'?'))).collect();
        Clamp {
            units,
            nodes: &parsed.nodes,
            indented: request.indent && gap.indented(),
            gap,
            markers: request.markers,
            strategy: request.strategy,
            gap_units,
            compact_input: parsed.compact,
            compact_measures: request.gap.is_empty(),
        }
    }

    /// The whole value as rendered with the gap.
    fn total(&self) -> Measure {
        as_measure(self.nodes[0].full)
    }

    /// The whole value, rendered.
    fn whole(&self) -> JsonClamp<U> {
        self.render(self.nodes[0].full.bytes)
    }

    /// The value clamped within `limits`, which its rendering exceeds.
    fn run(&self, limits: Limits) -> JsonClamp<U> {
        match self.best_room(limits) {
            Some(room) => {
                let clamped = self.render(room);
                debug_assert!(admits(&limits, clamped.output));
                clamped
            }
            None => self.nothing_fits(limits),
        }
    }

    /// The largest room for the whole value whose result fits `limits`, from the room of
    /// its smallest form (with inline markers; from nothing without), or `None` when that
    /// does not fit.
    fn best_room(&self, limits: Limits) -> Option<u64> {
        let total = self.nodes[0].full.bytes;
        let floor = match self.markers {
            Markers::Inline => self.nodes[0].min_bytes(Markers::Inline),
            Markers::None => 0,
        };
        let fits = |room: u64| admits(&limits, as_measure(self.value(0, room, &mut NoSink)));
        // Results grow with the room in every dimension (near enough: the search keeps the
        // best room that fits, not the last one tried). A result never exceeds its room in
        // bytes and has no more chars than bytes, so a room of the byte or char limit fits
        // those two; room a result leaves unused in them (whole items and members that did
        // not fit their share) is then added back while it fits.
        let start = limits.max_bytes.min(limits.max_chars).min(total).max(floor);
        let slack = |m: Measure| {
            let room = |limit: u64, used: u64| if limit == UNLIMITED { u64::MAX } else { limit.saturating_sub(used) };
            room(limits.max_bytes, m.bytes).min(room(limits.max_chars, m.chars))
        };
        let (mut lo, mut hi);
        let at_start = as_measure(self.value(0, start, &mut NoSink));
        if admits(&limits, at_start) {
            lo = start;
            hi = total;
            let mut spare = slack(at_start);
            for _ in 0..16 {
                if spare == 0 || spare == u64::MAX {
                    break;
                }
                let next = lo.saturating_add(spare).min(total);
                if next == lo {
                    break;
                }
                let m = as_measure(self.value(0, next, &mut NoSink));
                if !admits(&limits, m) {
                    hi = next;
                    break;
                }
                lo = next;
                spare = slack(m);
            }
            if spare == 0 || hi == total && spare != u64::MAX {
                hi = lo + 1;
            }
        } else {
            if floor >= start || !fits(floor) {
                return None;
            }
            (lo, hi) = (floor, start);
        }
        // Invariant: `lo` fits; `hi` does not, or is past what is worth trying.
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    }

    /// The value rendered within `room`.
    fn render(&self, room: u64) -> JsonClamp<U> {
        let mut render = Render { text: Vec::new(), elided: Vec::new(), path: Vec::new() };
        let output = as_measure(self.value(0, room, &mut Rendering { render: &mut render, units: self.units }));
        JsonClamp { text: render.text, elided: render.elided, total: self.total(), output }
    }

    /// The result when not even the value's smallest form fits: `"[...]"` with inline
    /// markers when that fits, else the empty text.
    fn nothing_fits(&self, limits: Limits) -> JsonClamp<U> {
        let total = self.total();
        let marker = as_measure(ascii(SHORT_STRING.len() as u64));
        let (text, output) = if self.markers == Markers::Inline && admits(&limits, marker) {
            let mut text = Vec::new();
            push_ascii(&mut text, SHORT_STRING);
            (text, marker)
        } else {
            (Vec::new(), Measure { chars: 0, bytes: 0, lines: 0 })
        };
        let mut path = Vec::new();
        push_ascii(&mut path, "$");
        JsonClamp { text, elided: vec![Elided::Value { path, total_bytes: total.bytes }], total, output }
    }

    fn children(&self, id: usize) -> impl Iterator<Item = usize> + '_ {
        let n = self.nodes[id].count();
        let mut next = id + 1;
        (0..n).map(move |_| {
            let c = next;
            next = self.nodes[c].next();
            c
        })
    }

    fn token(&self, node: &Node) -> &'a [U] {
        &self.units[node.span()]
    }

    /// Renders (or prices) node `id` within `room` bytes; returns its exact cost. A node
    /// is never given less than its smallest form, except the root (whose result is then
    /// checked against the limits).
    fn value<S: Sink<U>>(&self, id: usize, room: u64, sink: &mut S) -> Span {
        let node = &self.nodes[id];
        if node.full.bytes <= room {
            if S::RENDERS {
                self.write_whole(id, sink);
            }
            return node.full;
        }
        match node.kind {
            Kind::Scalar => {
                sink.units(self.token(node));
                node.full
            }
            Kind::String => self.string(node, room, sink),
            Kind::Array | Kind::Object if node.depth >= MAX_DEPTH => self.deepest(id, room, sink),
            Kind::Array => self.array(id, room, sink),
            Kind::Object => self.object(id, room, sink),
        }
    }

    /// A container too deep to cut inside, which does not fit whole: its smallest form.
    fn deepest<S: Sink<U>>(&self, id: usize, room: u64, sink: &mut S) -> Span {
        let node = &self.nodes[id];
        let array = node.kind == Kind::Array;
        let total = node.count as u64;
        let marked = self.markers == Markers::Inline && node.count > 0 && node.min_bytes(self.markers) <= room;
        let span = if !marked {
            sink.ascii(if array { "[]" } else { "{}" });
            ascii(2)
        } else {
            let depth = node.depth;
            sink.ascii(if array { "[" } else { "{" });
            self.before_member(sink, true, depth);
            let mut span = self.gap.frame(depth) + self.gap.per_member(depth) + ascii(SHORT_STRING.len() as u64);
            if !array {
                let key = self.marker_key(id);
                self.write_marker_key(sink, key.0);
                self.write_colon(sink);
                span = span + key.1 + self.gap.colon();
            }
            sink.ascii(SHORT_STRING);
            self.close(sink, if array { "]" } else { "}" }, depth, true);
            span
        };
        sink.elide(if array { Shortened::Items { kept: 0, total } } else { Shortened::Keys { kept: 0, total } });
        span
    }

    // -- writing -------------------------------------------------------------------------

    /// Writes node `id` whole: its token as written when that is how the result lays it
    /// out, else rendered member by member (without recursion: a kept value may be nested
    /// far deeper than [`MAX_DEPTH`]).
    fn write_whole<S: Sink<U>>(&self, id: usize, sink: &mut S) {
        let node = &self.nodes[id];
        let as_written = match node.kind {
            Kind::Scalar | Kind::String => true,
            Kind::Array | Kind::Object => {
                !self.indented
                    && (self.compact_input
                        || self.compact_measures && node.full.chars == (node.end - node.start) as u64)
            }
        };
        if as_written || node.count == 0 {
            if node.count == 0 && !matches!(node.kind, Kind::Scalar | Kind::String) {
                sink.ascii(if node.kind == Kind::Array { "[]" } else { "{}" });
            } else {
                sink.units(self.token(node));
            }
            return;
        }
        // Open containers: (the node, members left to write).
        let mut open: Vec<(usize, u32)> = Vec::new();
        for k in id..node.next() {
            let n = &self.nodes[k];
            if let Some((parent, left)) = open.last_mut() {
                let p = &self.nodes[*parent];
                self.before_member(sink, *left == p.count, p.depth);
                *left -= 1;
                if p.kind == Kind::Object {
                    sink.units(&self.units[n.key()]);
                    self.write_colon(sink);
                }
            }
            match n.kind {
                Kind::Scalar | Kind::String => sink.units(self.token(n)),
                Kind::Array | Kind::Object if n.count == 0 => {
                    sink.ascii(if n.kind == Kind::Array { "[]" } else { "{}" });
                }
                Kind::Array | Kind::Object => {
                    sink.ascii(if n.kind == Kind::Array { "[" } else { "{" });
                    open.push((k, n.count));
                    continue;
                }
            }
            while let Some(&(parent, 0)) = open.last() {
                let p = &self.nodes[parent];
                self.close(sink, if p.kind == Kind::Array { "]" } else { "}" }, p.depth, true);
                open.pop();
            }
        }
    }

    /// Before a member of a container at `depth`: a comma after the first, and when
    /// indented a line break and the member's indentation.
    fn before_member<S: Sink<U>>(&self, sink: &mut S, first: bool, depth: u32) {
        if !S::RENDERS {
            return;
        }
        if !first {
            sink.ascii(",");
        }
        if self.indented {
            sink.ascii("\n");
            for _ in 0..=depth {
                sink.units(&self.gap_units);
            }
        }
    }

    /// The closing bracket of a container at `depth`, on its own line when indented and
    /// the container holds anything.
    fn close<S: Sink<U>>(&self, sink: &mut S, bracket: &str, depth: u32, nonempty: bool) {
        if S::RENDERS && self.indented && nonempty {
            sink.ascii("\n");
            for _ in 0..depth {
                sink.units(&self.gap_units);
            }
        }
        sink.ascii(bracket);
    }

    fn write_colon<S: Sink<U>>(&self, sink: &mut S) {
        sink.ascii(if self.indented { ": " } else { ":" });
    }

    /// Writes the marker key of `dots` ellipses: as the char where the units hold it (it
    /// is then measured as written), else as escapes (read back as that char).
    fn write_marker_key<S: Sink<U>>(&self, sink: &mut S, dots: usize) {
        if !S::RENDERS {
            return;
        }
        sink.ascii("\"");
        match U::from_utf16(0x2026) {
            Some(dot) => (0..dots).for_each(|_| sink.units(&[dot])),
            None => (0..dots).for_each(|_| sink.ascii("\\u2026")),
        }
        sink.ascii("\"");
    }

    // -- strings -------------------------------------------------------------------------

    fn string<S: Sink<U>>(&self, node: &Node, room: u64, sink: &mut S) -> Span {
        let content = &self.units[node.start as usize + 1..node.end as usize - 1];
        let avail = room.saturating_sub(2);
        let total = node.value_bytes();
        let cut = |budget: u64| -> (usize, usize) {
            let ratio = match (self.strategy, self.markers) {
                (Strategy::Head, _) => 1.0,
                (Strategy::Tail, _) => 0.0,
                // Schema-safe: a prefix, never two ends spliced without a word.
                (Strategy::HeadTail { .. }, Markers::None) => 1.0,
                (Strategy::HeadTail { head_ratio }, Markers::Inline) => head_ratio.clamp(0.0, 1.0),
            };
            let head_budget = (budget as f64 * ratio).floor() as u64;
            let head_end = if ratio > 0.0 { fit_head(content, head_budget.min(budget)) } else { 0 };
            let used = escaped_bytes(&content[..head_end]);
            let tail_start = if ratio < 1.0 { fit_tail(content, head_end, budget - used) } else { content.len() };
            (head_end, tail_start)
        };
        let kept_bytes = |(h, t): (usize, usize)| decoded_bytes(&content[..h]) + decoded_bytes(&content[t..]);
        let (mut parts, mut notice) = (cut(avail), String::new());
        if self.markers == Markers::Inline {
            let longest = count_text(total, "bytes truncated");
            if (longest.len() as u64) <= avail {
                // The notice for "everything" is the longest; cut with room for it, then
                // once more with room for the notice of that cut, which is no longer.
                parts = cut(avail - longest.len() as u64);
                for _ in 0..2 {
                    notice = count_text(total - kept_bytes(parts), "bytes truncated");
                    let again = cut(avail - notice.len() as u64);
                    if again == parts {
                        break;
                    }
                    let next = count_text(total - kept_bytes(again), "bytes truncated");
                    if next.len() > notice.len() {
                        break;
                    }
                    (parts, notice) = (again, next);
                }
            } else if SHORT_MARKER.len() as u64 <= avail {
                notice = SHORT_MARKER.to_string();
                parts = cut(avail - SHORT_MARKER.len() as u64);
            } else {
                parts = (0, content.len());
            }
        }
        let (head_end, tail_start) = parts;
        sink.ascii("\"");
        sink.units(&content[..head_end]);
        sink.ascii(&notice);
        sink.units(&content[tail_start..]);
        sink.ascii("\"");
        if S::RENDERS {
            sink.elide(Shortened::Text { kept_bytes: kept_bytes(parts), total_bytes: total });
        }
        let kept = U::span(&content[..head_end], None) + U::span(&content[tail_start..], None);
        ascii(2 + notice.len() as u64) + kept
    }

    // -- arrays --------------------------------------------------------------------------

    fn array<S: Sink<U>>(&self, id: usize, room: u64, sink: &mut S) -> Span {
        let node = &self.nodes[id];
        let depth = node.depth;
        let n = node.count();
        let per = self.gap.per_member(depth);
        let frame = self.gap.frame(depth);
        let avail = room.saturating_sub(frame.bytes);
        // `Head` reads no further than one item past the room (an array of a million items
        // is walked once per room tried); the other strategies need the last items too.
        let items: Vec<usize> = if self.strategy == Strategy::Head {
            let mut used = 0;
            let mut prefix = Vec::new();
            for c in self.children(id) {
                prefix.push(c);
                used += per.bytes + self.nodes[c].full.bytes;
                if used > avail {
                    break;
                }
            }
            prefix
        } else {
            self.children(id).collect()
        };
        let inline = self.markers == Markers::Inline;
        let marker = |dropped: usize| -> Option<String> {
            (inline && dropped > 0).then(|| json_string(&count_text(dropped as u64, "more items")))
        };
        // Room is kept for the long marker; the short one stands in where it does not fit.
        let marker_bytes = |dropped: usize| marker(dropped).map_or(0, |m| per.bytes + m.len() as u64);
        let cost = |i: usize| per.bytes + self.nodes[items[i]].full.bytes;
        // Whole items from the front (`head`) and the back (`tail`).
        let (mut head, mut tail, mut used) = (0usize, 0usize, 0u64);
        let take = |from_front: bool, cap: u64, head: &mut usize, tail: &mut usize, used: &mut u64| {
            while *head + *tail < n {
                let i = if from_front { *head } else { n - 1 - *tail };
                let next = *used + cost(i);
                if next + marker_bytes(n - *head - *tail - 1) > cap {
                    break;
                }
                *used = next;
                if from_front {
                    *head += 1;
                } else {
                    *tail += 1;
                }
            }
        };
        match self.strategy {
            Strategy::Head => take(true, avail, &mut head, &mut tail, &mut used),
            Strategy::Tail => take(false, avail, &mut head, &mut tail, &mut used),
            Strategy::HeadTail { head_ratio } => {
                let cap = (avail as f64 * head_ratio.clamp(0.0, 1.0)).floor() as u64;
                take(true, cap, &mut head, &mut tail, &mut used);
                take(false, avail, &mut head, &mut tail, &mut used);
                take(true, avail, &mut head, &mut tail, &mut used);
            }
        }
        // When no item fits whole, the first one (the last with `Tail`) is shrunk into the
        // room, so an array of one huge item still shows something.
        let mut partial = None;
        let dropped = n - head - tail;
        if dropped > 0 && head + tail == 0 {
            let at = if self.strategy == Strategy::Tail { n - 1 - tail } else { head };
            let left = avail.saturating_sub(used + per.bytes + marker_bytes(dropped - 1));
            if avail >= used + per.bytes + marker_bytes(dropped - 1)
                && left >= self.nodes[items[at]].min_bytes(self.markers)
            {
                partial = Some((at, left));
            }
        }
        let dropped = dropped - partial.is_some() as usize;
        // With a shrunk item the marker's room was kept; without, it may not fit, and the
        // short one may.
        let mark = marker(dropped).and_then(|long| {
            if partial.is_some() || used + per.bytes + long.len() as u64 <= avail {
                Some(long)
            } else {
                (used + per.bytes + SHORT_STRING.len() as u64 <= avail).then(|| SHORT_STRING.to_string())
            }
        });
        let members = head + tail + partial.is_some() as usize + mark.is_some() as usize;
        if members == 0 {
            sink.ascii("[]");
            if S::RENDERS {
                sink.elide(Shortened::Items { kept: 0, total: n as u64 });
            }
            return ascii(2);
        }
        let mut total = frame;
        let mut first = true;
        let mut next_member = |sink: &mut S| {
            self.before_member(sink, first, depth);
            first = false;
        };
        sink.ascii("[");
        let whole = |k: usize, sink: &mut S| {
            let item = &self.nodes[items[k]];
            if S::RENDERS {
                self.write_whole(items[k], sink);
            }
            per + item.full
        };
        let shrunk = |k: usize, left: u64, sink: &mut S| {
            sink.enter(Step::Index(k));
            let s = self.value(items[k], left, sink);
            sink.leave();
            per + s
        };
        let tail_from = n - tail;
        for k in 0..head {
            next_member(sink);
            total = total + whole(k, sink);
        }
        let partial_in_head = self.strategy != Strategy::Tail;
        if let (Some((k, left)), true) = (partial, partial_in_head) {
            next_member(sink);
            total = total + shrunk(k, left, sink);
        }
        if let Some(m) = &mark {
            next_member(sink);
            sink.ascii(m);
            total = total + per + ascii(m.len() as u64);
        }
        if let (Some((k, left)), false) = (partial, partial_in_head) {
            next_member(sink);
            total = total + shrunk(k, left, sink);
        }
        for k in tail_from..n {
            next_member(sink);
            total = total + whole(k, sink);
        }
        self.close(sink, "]", depth, true);
        if S::RENDERS && dropped > 0 {
            sink.elide(Shortened::Items { kept: (n - dropped) as u64, total: n as u64 });
        }
        total
    }

    // -- objects -------------------------------------------------------------------------

    fn object<S: Sink<U>>(&self, id: usize, room: u64, sink: &mut S) -> Span {
        let node = &self.nodes[id];
        let depth = node.depth;
        let n = node.count();
        let members: Vec<usize> = self.children(id).collect();
        let per = self.gap.per_member(depth);
        let frame = self.gap.frame(depth);
        let colon = self.gap.colon();
        let inline = self.markers == Markers::Inline;
        let key_span = |m: usize| {
            let c = &self.nodes[m];
            U::span(&self.units[c.key()], None)
        };
        let overhead = |m: usize| per + key_span(m) + colon;
        let (dots, key) = self.marker_key(id);
        let marker = |dropped: usize| -> Option<String> {
            (inline && dropped > 0).then(|| json_string(&count_text(dropped as u64, "more keys")))
        };
        let text_cost = |text: &str| per + key + colon + ascii(text.len() as u64);
        // Room is kept for the long marker; the short one stands in where it does not fit.
        let marker_cost = |dropped: usize| -> Span { marker(dropped).map_or(Span::ZERO, |m| text_cost(&m)) };
        let avail = room.saturating_sub(frame.bytes);
        // Every member in its smallest form, else the longest prefix that fits with the
        // marker for the rest.
        let smallest = |m: usize| overhead(m).bytes + self.nodes[m].min_bytes(self.markers);
        let all: u64 = members.iter().map(|&m| smallest(m)).sum();
        let (mut kept, mut fixed) = (n, all);
        if all > avail {
            (kept, fixed) = (0, 0);
            for (k, &m) in members.iter().enumerate() {
                let next = fixed + smallest(m);
                if next + marker_cost(n - k - 1).bytes > avail {
                    break;
                }
                fixed = next;
                kept += 1;
            }
        }
        let mark = marker(n - kept).and_then(|long| {
            if fixed + text_cost(&long).bytes <= avail {
                Some(long)
            } else {
                (fixed + text_cost(SHORT_STRING).bytes <= avail).then(|| SHORT_STRING.to_string())
            }
        });
        let mark_cost = mark.as_deref().map_or(Span::ZERO, text_cost);
        if kept == 0 && mark.is_none() {
            sink.ascii("{}");
            if S::RENDERS {
                sink.elide(Shortened::Keys { kept: 0, total: n as u64 });
            }
            return ascii(2);
        }
        // Water-filling: the largest level L with sum(clamp(L, min, full)) within the room
        // for values.
        let values_room = avail - members[..kept].iter().map(|&m| overhead(m).bytes).sum::<u64>() - mark_cost.bytes;
        let share = |level: u64, m: usize| {
            let c = &self.nodes[m];
            let min = c.min_bytes(self.markers);
            level.clamp(min, c.full.bytes.max(min))
        };
        let total_at = |level: u64| members[..kept].iter().map(|&m| share(level, m)).sum::<u64>();
        let (mut lo, mut hi) = (0u64, members[..kept].iter().map(|&m| self.nodes[m].full.bytes).max().unwrap_or(0));
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if total_at(mid) <= values_room {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let level = lo;
        let mut spare = values_room.saturating_sub(total_at(level));
        let mut total = frame;
        sink.ascii("{");
        for (k, &m) in members[..kept].iter().enumerate() {
            self.before_member(sink, k == 0, depth);
            let c = &self.nodes[m];
            sink.units(&self.units[c.key()]);
            self.write_colon(sink);
            let given = share(level, m) + spare;
            sink.enter(Step::Key { start: c.key_start as usize, end: c.key_end as usize });
            let used = self.value(m, given, sink);
            sink.leave();
            spare = given.saturating_sub(used.bytes);
            total = total + overhead(m) + used;
        }
        if let Some(text) = &mark {
            self.before_member(sink, kept == 0, depth);
            self.write_marker_key(sink, dots);
            self.write_colon(sink);
            sink.ascii(text);
            total = total + mark_cost;
        }
        self.close(sink, "}", depth, true);
        if S::RENDERS && kept < n {
            sink.elide(Shortened::Keys { kept: kept as u64, total: n as u64 });
        }
        total
    }

    /// The key of the dropped-keys member of object `id`: `"…"`, with more `…` while a
    /// member has it. Its dots and its span as rendered.
    fn marker_key(&self, id: usize) -> (usize, Span) {
        let mut taken = 0u64;
        for m in self.children(id) {
            if let Some(dots) = marker_dots(&self.units[self.nodes[m].key()]) {
                if dots < 64 {
                    taken |= 1 << dots;
                }
            }
        }
        let dots = free_dots(taken);
        (dots, marker_key_span(dots))
    }
}

// ---------------------------------------------------------------------------------------
// String content: atoms are a raw character (a surrogate pair is one), an escape, an
// escaped surrogate pair, or `\r\n` written as two escapes. Cuts fall between atoms.
// ---------------------------------------------------------------------------------------

/// Units of the atom starting at `i` of a string's content.
fn atom_len<U: Unit>(c: &[U], i: usize) -> usize {
    let u = c[i];
    if u.code() == BACKSLASH {
        let e = c.get(i + 1).map_or(0, |u| u.code());
        if e == b'u' as u16 {
            let x = escaped_unit(c, i).unwrap_or(0);
            if x & 0xFC00 == 0xD800
                && c.get(i + 6).map(|u| u.code()) == Some(BACKSLASH)
                && c.get(i + 7).map(|u| u.code()) == Some(b'u' as u16)
                && escaped_unit(c, i + 6).is_some_and(|y| y & 0xFC00 == 0xDC00)
            {
                return 12;
            }
            return 6;
        }
        if e == b'r' as u16
            && c.get(i + 2).map(|u| u.code()) == Some(BACKSLASH)
            && c.get(i + 3).map(|u| u.code()) == Some(b'n' as u16)
        {
            return 4;
        }
        return 2;
    }
    if u.is_high_surrogate() && c.get(i + 1).is_some_and(|n| n.is_low_surrogate()) {
        return 2;
    }
    1
}

/// The atom at `i`: its length in units, and its UTF-8 bytes as written and as decoded.
#[inline]
fn atom<U: Unit>(c: &[U], i: usize) -> (usize, u64, u64) {
    let u = c[i];
    let code = u.code();
    if code < 0x80 {
        if code != BACKSLASH {
            return (1, 1, 1);
        }
        let n = atom_len(c, i);
        let decoded = match n {
            12 => 4,
            6 => match escaped_unit(c, i).unwrap_or(0) {
                x if x < 0x80 => 1,
                x if x < 0x800 => 2,
                _ => 3,
            },
            4 => 2,
            _ => 1,
        };
        return (n, n as u64, decoded);
    }
    if u.is_high_surrogate() && c.get(i + 1).is_some_and(|n| n.is_low_surrogate()) {
        return (2, 4, 4);
    }
    let w = u.weight(None);
    (1, w, w)
}

/// Bytes of a run of whole atoms as written (escapes are ASCII).
fn escaped_bytes<U: Unit>(c: &[U]) -> u64 {
    U::span(c, None).bytes
}

/// UTF-8 bytes of the value a run of whole atoms decodes to.
fn decoded_bytes<U: Unit>(c: &[U]) -> u64 {
    let mut i = 0;
    let mut bytes = 0;
    while i < c.len() {
        let (n, _, decoded) = atom(c, i);
        bytes += decoded;
        i += n;
    }
    bytes
}

/// The end of the longest run of whole atoms from the start within `budget` bytes.
fn fit_head<U: Unit>(c: &[U], budget: u64) -> usize {
    let mut i = 0;
    let mut used = 0;
    while i < c.len() {
        let (n, written, _) = atom(c, i);
        if used + written > budget {
            break;
        }
        used += written;
        i += n;
    }
    i
}

/// The start of the longest run of whole atoms ending the content, not before `floor`,
/// within `budget` bytes.
fn fit_tail<U: Unit>(c: &[U], floor: usize, budget: u64) -> usize {
    // Walk back by units (a raw surrogate pair at once), then forward to an atom start.
    let mut j = c.len();
    let mut used = 0;
    while j > floor {
        let step = if j >= 2 && c[j - 1].is_low_surrogate() && c[j - 2].is_high_surrogate() { 2 } else { 1 };
        let w = U::span(&c[j - step..j], None).bytes;
        if used + w > budget || j - step < floor {
            break;
        }
        used += w;
        j -= step;
    }
    while j < c.len() && !is_atom_start(c, j) {
        j += 1;
    }
    j
}

/// The backslash at `i` starts an escape (an odd run of backslashes ends at it).
fn escaping<U: Unit>(c: &[U], i: usize) -> bool {
    let run = c[..=i].iter().rev().take_while(|u| u.code() == BACKSLASH).count();
    run % 2 == 1
}

/// A cut at `j` falls between atoms (see [`atom_len`]).
fn is_atom_start<U: Unit>(c: &[U], j: usize) -> bool {
    if j == 0 || j >= c.len() {
        return true;
    }
    if c[j - 1].is_high_surrogate() && c[j].is_low_surrogate() {
        return false;
    }
    // Inside `\X` or `\uXXXX`: an escaping backslash up to five units back covers `j`.
    for back in 1..=5.min(j) {
        let q = j - back;
        if c[q].code() == BACKSLASH && escaping(c, q) {
            let len = if c.get(q + 1).map(|u| u.code()) == Some(b'u' as u16) { 6 } else { 2 };
            if j < q + len {
                return false;
            }
            break;
        }
    }
    // Between the halves of an escaped surrogate pair or of `\r\n`.
    if j >= 2 && c[j - 2].code() == BACKSLASH && escaping(c, j - 2) && c[j - 1].code() == b'r' as u16 {
        return !(c[j].code() == BACKSLASH && c.get(j + 1).map(|u| u.code()) == Some(b'n' as u16));
    }
    if j >= 6 && c[j - 6].code() == BACKSLASH && escaping(c, j - 6) {
        let high = c[j - 5].code() == b'u' as u16 && escaped_unit(c, j - 6).is_some_and(|x| x & 0xFC00 == 0xD800);
        let low = c[j].code() == BACKSLASH
            && c.get(j + 1).map(|u| u.code()) == Some(b'u' as u16)
            && escaped_unit(c, j).is_some_and(|y| y & 0xFC00 == 0xDC00);
        if high && low {
            return false;
        }
    }
    true
}
