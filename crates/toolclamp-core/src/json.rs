//! JSON-aware clamping: fit a JSON value into char, byte and line budgets and keep it
//! valid JSON of the same shape.
//!
//! The input is the text `JSON.stringify(value)` writes (whitespace between tokens is allowed),
//! as the code units of a JS string (`u8` Latin-1 or `u16` UTF-16). The budgets apply to the
//! value as `JSON.stringify(value, null, gap)` renders it: compact with an empty gap, else
//! one member per line, indented by `gap` per level. The clamped value comes back as compact
//! JSON text; strings, numbers and keys are copied as written.
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
//!   smallest form: `""`, `[]`, a number or literal as it is, and an object's smallest form
//!   (`{}` with inline markers; every key with its value's smallest form with no markers,
//!   so a schema's required keys stay). When even the smallest forms do not fit, the last
//!   keys are dropped (with inline markers, a member `"…": "[... 3 more keys]"` says so).
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
//! Sizes for sharing are UTF-8 bytes. One size, the room of the whole value, is searched
//! for: the largest whose result fits every limit (chars and lines follow from it). A
//! container deeper than [`MAX_DEPTH`] is kept whole or emptied.

use crate::measure::{Measure, Span, Unit};
use crate::notice::push_count;
use crate::plan::{Limits, Strategy, UNLIMITED};

/// Containers nested deeper than this are kept whole or emptied, never cut inside (the
/// planner recurses once per level).
pub const MAX_DEPTH: u32 = 128;

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
}

/// A clamped value: compact JSON text and what was shortened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonClamp<U> {
    /// The clamped value as compact JSON.
    pub text: Vec<U>,
    /// In the order of the result's text, a container after what it holds.
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
    /// No form of the value fits: the smallest result measures `smallest`.
    TooSmall { smallest: Measure },
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonError::Invalid { at } => write!(f, "not valid JSON at position {at}"),
            JsonError::TooSmall { smallest } => write!(
                f,
                "no form of this JSON value fits the limits: the smallest is {} chars, {} bytes, {} lines",
                smallest.chars, smallest.bytes, smallest.lines
            ),
        }
    }
}

/// Clamps the JSON text `units`: the value's measure as rendered with the gap, and the
/// clamped value, or `None` when it fits as it is.
pub fn clamp_json<U: Unit>(
    units: &[U],
    request: &JsonRequest<'_>,
) -> Result<(Measure, Option<JsonClamp<U>>), JsonError> {
    let gap = Gap::new(request.gap);
    let nodes = parse(units, &gap, request.markers)?;
    let clamp = Clamp { units, nodes: &nodes, gap, markers: request.markers, strategy: request.strategy };
    let total = as_measure(nodes[0].full);
    let limits = request.limits;
    let fits = |m: Measure| m.chars <= limits.max_chars && m.bytes <= limits.max_bytes && m.lines <= limits.max_lines;
    if fits(total) {
        return Ok((total, None));
    }
    let cost = |room: u64| as_measure(clamp.value(0, room, &mut NoSink));
    // The largest room whose result fits. Results grow with the room in every dimension
    // (near enough: the search keeps the best room that fits, not the last one tried). A
    // result never exceeds its room in bytes and has no more chars than bytes, so a room of
    // the byte or char limit fits those two; room a result leaves unused in them (whole
    // items and members that did not fit their share) is then added back while it fits.
    let start = limits.max_bytes.min(limits.max_chars).min(total.bytes);
    let slack = |m: Measure| {
        let room = |limit: u64, used: u64| if limit == UNLIMITED { u64::MAX } else { limit.saturating_sub(used) };
        room(limits.max_bytes, m.bytes).min(room(limits.max_chars, m.chars))
    };
    let (mut lo, mut hi);
    let at_start = cost(start);
    if fits(at_start) {
        lo = start;
        hi = total.bytes;
        let mut spare = slack(at_start);
        for _ in 0..16 {
            if spare == 0 || spare == u64::MAX {
                break;
            }
            let next = lo.saturating_add(spare).min(total.bytes);
            if next == lo {
                break;
            }
            let m = cost(next);
            if !fits(m) {
                hi = next;
                break;
            }
            lo = next;
            spare = slack(m);
        }
        if spare == 0 || hi == total.bytes && spare != u64::MAX {
            hi = lo + 1;
        }
    } else {
        if !fits(cost(0)) {
            return Err(JsonError::TooSmall { smallest: cost(0) });
        }
        (lo, hi) = (0, start);
    }
    // Invariant: `lo` fits; `hi` does not, or is past what is worth trying.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(cost(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let room = lo;
    let mut render = Render { text: Vec::new(), elided: Vec::new(), path: Vec::new() };
    let output = as_measure(clamp.value(0, room, &mut Rendering { render: &mut render, units }));
    debug_assert!(fits(output));
    Ok((total, Some(JsonClamp { text: render.text, elided: render.elided, total, output })))
}

/// The answer the binding returns, as one JSON text of code units:
/// `[value, [[kind, path, kept, total], ...]]` where kind is "items", "keys" or "text"
/// (kept and total in bytes for "text").
pub fn answer_text<U: Unit>(clamped: &JsonClamp<U>) -> Vec<U> {
    let mut out: Vec<U> = Vec::with_capacity(clamped.text.len() + 16 + clamped.elided.len() * 32);
    push_ascii(&mut out, "[");
    out.extend_from_slice(&clamped.text);
    push_ascii(&mut out, ",[");
    for (i, e) in clamped.elided.iter().enumerate() {
        if i > 0 {
            push_ascii(&mut out, ",");
        }
        let (kind, path, kept, total) = match e {
            Elided::Items { path, kept, total } => ("items", path, kept, total),
            Elided::Keys { path, kept, total } => ("keys", path, kept, total),
            Elided::Text { path, kept_bytes, total_bytes } => ("text", path, kept_bytes, total_bytes),
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
    push_ascii(&mut out, "]]");
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
    /// keeps the value's shape (see the module docs).
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

    /// Bytes of the smallest form that keeps the value's shape.
    fn min_bytes(&self) -> u64 {
        if self.kind == Kind::String {
            2
        } else {
            self.extra
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
}

fn parse<U: Unit>(units: &[U], gap: &Gap, markers: Markers) -> Result<Vec<Node>, JsonError> {
    if units.len() >= u32::MAX as usize {
        return Err(JsonError::Invalid { at: u32::MAX as usize });
    }
    let code = |i: usize| units.get(i).map_or(0, |u| u.code());
    let skip_ws = |mut i: usize| {
        while matches!(code(i), 0x20 | 0x09 | 0x0A | 0x0D) && i < units.len() {
            i += 1;
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
            stack.push(Open { id, key_bytes, members: Span::ZERO, min_members: 0 });
            i = skip_ws(i + 1);
            let close = if c == b'{' as u16 { b'}' } else { b']' } as u16;
            if code(i) == close && i < units.len() {
                i += 1;
                let open = stack.pop().expect("just pushed");
                close_container(&mut nodes, open, i, gap, markers);
            } else {
                key = Key::NONE;
                if c == b'{' as u16 {
                    key = parse_key(units, &mut i)?;
                    i = skip_ws(i);
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
                return Ok(nodes);
            };
            let (child_id, child_key_bytes) = done;
            let child = &nodes[child_id];
            let mut member = child.full;
            let mut min_member = child.min_bytes();
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
                    key = parse_key(units, &mut i)?;
                    i = skip_ws(i);
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
    node.extra = match (node.kind, markers) {
        (Kind::Object, Markers::None) => frame.bytes + open.min_members,
        _ => 2,
    };
}

/// Reads `"key" :` at `*i` (after whitespace); leaves `*i` after the colon.
fn parse_key<U: Unit>(units: &[U], i: &mut usize) -> Result<Key, JsonError> {
    if units.get(*i).map(|u| u.code()) != Some(QUOTE) {
        return Err(JsonError::Invalid { at: *i });
    }
    let start = *i;
    let scanned = scan_string(units, start)?;
    let mut j = scanned.end;
    while j < units.len() && matches!(units[j].code(), 0x20 | 0x09 | 0x0A | 0x0D) {
        j += 1;
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

/// Scans the string token starting at `start` (a quote). Rejects control characters and
/// lone surrogates written raw (as `JSON.stringify` never writes them).
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

/// UTF-8 bytes of a run with no quote or backslash, checked unit by unit: no control
/// characters, no lone surrogates. `at` is the run's position, for errors.
fn check_run<U: Unit>(run: &[U], at: usize) -> Result<u64, JsonError> {
    let mut bytes = 0;
    let mut k = 0;
    while k < run.len() {
        let u = run[k];
        if u.code() < 0x20 {
            return Err(JsonError::Invalid { at: at + k });
        }
        if u.is_high_surrogate() {
            if !run.get(k + 1).is_some_and(|n| n.is_low_surrogate()) {
                return Err(JsonError::Invalid { at: at + k });
            }
            bytes += 4;
            k += 2;
            continue;
        }
        if u.is_low_surrogate() {
            return Err(JsonError::Invalid { at: at + k });
        }
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

impl<'a, U: Unit> Clamp<'a, U> {
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
                sink.units(self.token(node));
            }
            return node.full;
        }
        match node.kind {
            Kind::Scalar => {
                sink.units(self.token(node));
                node.full
            }
            Kind::String => self.string(node, room, sink),
            Kind::Array | Kind::Object if node.depth >= MAX_DEPTH => {
                sink.ascii(if node.kind == Kind::Array { "[]" } else { "{}" });
                let total = node.count as u64;
                sink.elide(if node.kind == Kind::Array {
                    Shortened::Items { kept: 0, total }
                } else {
                    Shortened::Keys { kept: 0, total }
                });
                ascii(2)
            }
            Kind::Array => self.array(id, room, sink),
            Kind::Object => self.object(id, room, sink),
        }
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
            if avail >= used + per.bytes + marker_bytes(dropped - 1) && left >= self.nodes[items[at]].min_bytes() {
                partial = Some((at, left));
            }
        }
        let dropped = dropped - partial.is_some() as usize;
        // With a shrunk item the marker's room was kept; without, it may not fit.
        let mark = marker(dropped).filter(|_| partial.is_some() || used + marker_bytes(dropped) <= avail);
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
        let mut comma = |sink: &mut S| {
            if !first {
                sink.ascii(",");
            }
            first = false;
        };
        sink.ascii("[");
        let whole = |k: usize, sink: &mut S| {
            let item = &self.nodes[items[k]];
            sink.units(self.token(item));
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
            comma(sink);
            total = total + whole(k, sink);
        }
        let partial_in_head = self.strategy != Strategy::Tail;
        if let (Some((k, left)), true) = (partial, partial_in_head) {
            comma(sink);
            total = total + shrunk(k, left, sink);
        }
        if let Some(m) = &mark {
            comma(sink);
            sink.ascii(m);
            total = total + per + ascii(m.len() as u64);
        }
        if let (Some((k, left)), false) = (partial, partial_in_head) {
            comma(sink);
            total = total + shrunk(k, left, sink);
        }
        for k in tail_from..n {
            comma(sink);
            total = total + whole(k, sink);
        }
        sink.ascii("]");
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
        let marker_key = self.marker_key(&members);
        let marker = |dropped: usize| -> Option<String> {
            (inline && dropped > 0).then(|| json_string(&count_text(dropped as u64, "more keys")))
        };
        let marker_cost = |dropped: usize| -> Span {
            marker(dropped).map_or(Span::ZERO, |m| per + marker_key.1 + colon + ascii(m.len() as u64))
        };
        let avail = room.saturating_sub(frame.bytes);
        // Every member in its smallest form, else the longest prefix that fits with the
        // marker for the rest.
        let smallest = |m: usize| overhead(m).bytes + self.nodes[m].min_bytes();
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
        let mark = marker(n - kept).filter(|_| fixed + marker_cost(n - kept).bytes <= avail);
        let mark_cost = if mark.is_some() { marker_cost(n - kept) } else { Span::ZERO };
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
            level.clamp(c.min_bytes(), c.full.bytes.max(c.min_bytes()))
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
            if k > 0 {
                sink.ascii(",");
            }
            let c = &self.nodes[m];
            sink.units(&self.units[c.key()]);
            sink.ascii(":");
            let given = share(level, m) + spare;
            sink.enter(Step::Key { start: c.key_start as usize, end: c.key_end as usize });
            let used = self.value(m, given, sink);
            sink.leave();
            spare = given.saturating_sub(used.bytes);
            total = total + overhead(m) + used;
        }
        if let Some(text) = &mark {
            if kept > 0 {
                sink.ascii(",");
            }
            sink.ascii(&marker_key.0);
            sink.ascii(":");
            sink.ascii(text);
            total = total + mark_cost;
        }
        sink.ascii("}");
        if S::RENDERS && kept < n {
            sink.elide(Shortened::Keys { kept: kept as u64, total: n as u64 });
        }
        total
    }

    /// The key of the dropped-keys member: `"…"`, with more `…` while a member has it.
    /// Written as escapes (Latin-1 text cannot hold `…`); priced as rendered.
    fn marker_key(&self, members: &[usize]) -> (String, Span) {
        let mut dots = 1;
        loop {
            let key = format!("\"{}\"", "\\u2026".repeat(dots));
            let taken = members.iter().any(|&m| {
                let c = &self.nodes[m];
                let units = &self.units[c.key()];
                units.len() == dots + 2 && units[1..dots + 1].iter().all(|u| u.code() == 0x2026)
            });
            if !taken {
                let span = Span { chars: dots as u64 + 2, bytes: 3 * dots as u64 + 2, newlines: 0 };
                return (key, span);
            }
            dots += 1;
        }
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
