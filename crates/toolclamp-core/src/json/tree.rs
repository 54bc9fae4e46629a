//! The parsed value: an arena of nodes in document order, each with its size as rendered
//! with the gap and the size of its smallest form. [`parse()`](super::parse::parse) builds
//! it in one pass; the clamp and [`super::locate`] walk it without recursion.

use super::markers::SHORT_STRING;
use super::Markers;
use crate::measure::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Scalar,
    String,
    Array,
    Object,
}

/// A value in the arena. Its children follow it: the first at `id + 1`, each next one at
/// the previous one's `next`. Positions are `u32` (a JS string holds under 2^30 units;
/// [`parse()`](super::parse::parse) refuses longer input) to keep the arena small: it is
/// most of the memory a clamp touches.
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) kind: Kind,
    pub(super) depth: u32,
    /// The value's token or brackets, `start..end` in the input.
    pub(super) start: u32,
    pub(super) end: u32,
    /// An object member's key token (with its quotes); empty otherwise.
    pub(super) key_start: u32,
    pub(super) key_end: u32,
    /// The index after this node's subtree.
    pub(super) next: u32,
    /// Children.
    pub(super) count: u32,
    /// The value as rendered at its depth.
    pub(super) full: Span,
    /// Strings: UTF-8 bytes of the decoded value. Others: bytes of the smallest form that
    /// keeps the value's shape (see [`Node::min_bytes`]).
    pub(super) extra: u64,
}

impl Node {
    pub(super) fn span(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub(super) fn key(&self) -> std::ops::Range<usize> {
        self.key_start as usize..self.key_end as usize
    }

    pub(super) fn next(&self) -> usize {
        self.next as usize
    }

    pub(super) fn count(&self) -> usize {
        self.count as usize
    }

    /// Bytes of the smallest form that keeps the value's shape (see the [`json`](super)
    /// module docs): for a string `"[...]"` with inline markers, `""` without; containers
    /// keep theirs in `extra`.
    pub(super) fn min_bytes(&self, markers: Markers) -> u64 {
        match (self.kind, markers) {
            (Kind::String, Markers::Inline) => self.full.bytes.min(SHORT_STRING.len() as u64),
            (Kind::String, Markers::None) => 2,
            _ => self.extra,
        }
    }

    /// Strings: UTF-8 bytes of the decoded value.
    pub(super) fn value_bytes(&self) -> u64 {
        self.extra
    }
}

/// A parsed text: its nodes, and whether it has no whitespace between tokens (then a kept
/// container's compact text is its token as written).
pub(super) struct Parsed {
    pub(super) nodes: Vec<Node>,
    pub(super) compact: bool,
}

/// The children of node `id`, in order: the first at `id + 1`, each next one at the
/// previous one's `next`.
pub(super) fn children(nodes: &[Node], id: usize) -> impl Iterator<Item = usize> + '_ {
    let mut next = id + 1;
    (0..nodes[id].count()).map(move |_| {
        let c = next;
        next = nodes[c].next();
        c
    })
}
