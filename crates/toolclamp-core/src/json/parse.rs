//! Parsing: one pass over the text, no recursion, into the arena of [`super::tree`]. Each
//! node is priced as it closes (its rendering with the gap and its smallest form), so the
//! clamp never measures text again; keys that are runs of `…` are noted so that a marker
//! key can be chosen that no member has.

use super::layout::{ascii, Gap};
use super::markers::{free_dots, marker_key_span, note_dots, SHORT_STRING};
use super::scan::{scan_scalar, scan_string, QUOTE};
use super::tree::{Kind, Node, Parsed};
use super::{JsonError, Markers};
use crate::measure::{Span, Unit};

/// A container still open while parsing, and the sums over its members so far.
pub(super) struct Open {
    pub(super) id: usize,
    /// Bytes of the container's own key, if it is an object member.
    pub(super) key_bytes: u64,
    pub(super) members: Span,
    pub(super) min_members: u64,
    /// Bit `n` is set when a key is `n` ellipses (see [`note_dots`]).
    pub(super) dots_taken: u64,
}

impl Open {
    /// Adds a finished member (`key_bytes`: its key's, if any) to the sums.
    fn add_member(&mut self, child: &Node, key_bytes: u64, gap: &Gap) {
        let mut member = child.full;
        let mut min_member = child.min_bytes(Markers::None);
        if child.key_end > child.key_start {
            let key_span = Span { chars: (child.key_end - child.key_start) as u64, bytes: key_bytes, newlines: 0 };
            member = member + key_span + gap.colon();
            min_member += key_span.bytes + gap.colon().bytes;
        }
        let per = gap.per_member(child.depth - 1);
        self.members = self.members + per + member;
        self.min_members += per.bytes + min_member;
    }
}

/// Parses the JSON text `units` into nodes priced as rendered with `gap` (smallest forms
/// as `markers` has them), or the position of the first unit that does not fit the grammar.
pub(super) fn parse<U: Unit>(units: &[U], gap: &Gap, markers: Markers) -> Result<Parsed, JsonError> {
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
            i = scan_leaf(units, &mut node)?;
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
            open.add_member(&nodes[child_id], child_key_bytes, gap);
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

/// Scans the string, number or literal `node` starts at, and prices it; returns its end.
fn scan_leaf<U: Unit>(units: &[U], node: &mut Node) -> Result<usize, JsonError> {
    let start = node.start as usize;
    let end = if units.get(start).map(|u| u.code()) == Some(QUOTE) {
        let scanned = scan_string(units, start)?;
        node.kind = Kind::String;
        node.extra = scanned.decoded;
        node.full = Span { chars: (scanned.end - start) as u64, bytes: scanned.written, newlines: 0 };
        scanned.end
    } else {
        let end = scan_scalar(units, start)?;
        // Numbers and literals are ASCII.
        node.full = ascii((end - start) as u64);
        node.extra = node.full.bytes;
        end
    };
    node.end = end as u32;
    Ok(end)
}

/// An object member's key token while parsing.
#[derive(Clone, Copy)]
pub(super) struct Key {
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) bytes: u64,
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
    if let Some(open) = open {
        note_dots(&mut open.dots_taken, &units[key.start as usize..key.end as usize]);
    }
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
