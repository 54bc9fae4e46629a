//! What rendering with `JSON.stringify`'s gap costs: the separators, line breaks and
//! indentation around members, as [`Span`]s, so that the parser and the clamp price a value
//! exactly as it will be written.

use crate::measure::{Measure, Span, Unit};

/// The gap and the indentation it costs.
pub(super) struct Gap {
    pub(super) span: Span,
}

impl Gap {
    pub(super) fn new(gap: &str) -> Gap {
        let s = crate::measure::measure_str(gap);
        let newlines = gap.bytes().filter(|&b| b == b'\n').count() as u64;
        Gap { span: Span { chars: s.chars, bytes: s.bytes, newlines } }
    }

    pub(super) fn indented(&self) -> bool {
        self.span.chars > 0
    }

    fn times(&self, n: u64) -> Span {
        Span { chars: self.span.chars * n, bytes: self.span.bytes * n, newlines: self.span.newlines * n }
    }

    /// What goes before each member of a container at `depth`: a comma (the first
    /// member's is taken back in [`Gap::frame`]) and, indented, a line break and the
    /// member's indentation.
    pub(super) fn per_member(&self, depth: u32) -> Span {
        if self.indented() {
            ascii(1) + NEWLINE + self.times(depth as u64 + 1)
        } else {
            ascii(1)
        }
    }

    /// Brackets, the closing line break and indentation, less one comma; for a container
    /// with at least one member.
    pub(super) fn frame(&self, depth: u32) -> Span {
        if self.indented() {
            ascii(1) + NEWLINE + self.times(depth as u64)
        } else {
            ascii(1)
        }
    }

    /// `:` or `: ` after a key.
    pub(super) fn colon(&self) -> Span {
        ascii(if self.indented() { 2 } else { 1 })
    }
}

const NEWLINE: Span = Span { chars: 1, bytes: 1, newlines: 1 };

pub(super) fn ascii(n: u64) -> Span {
    Span { chars: n, bytes: n, newlines: 0 }
}

pub(super) fn as_measure(s: Span) -> Measure {
    Measure { chars: s.chars, bytes: s.bytes, lines: s.newlines + 1 }
}

pub(super) fn push_ascii<U: Unit>(out: &mut Vec<U>, s: &str) {
    out.extend(s.bytes().map(U::from_ascii));
}
