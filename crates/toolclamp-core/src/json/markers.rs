//! The texts a clamp leaves in band with inline markers: `[... 3 more items]` and its
//! short form `[...]`, and the marker key of `…`s that no member of the object already has.

use super::scan::{escaped_unit, BACKSLASH};
use crate::measure::{Span, Unit};
use crate::notice::push_count;

/// [`super::SHORT_MARKER`] as a JSON string: the smallest honest form of a cut string, and
/// what a value becomes when not even its own smallest form fits.
pub(super) const SHORT_STRING: &str = "\"[...]\"";

/// `[... 1,234 more items]`: the long marker for `n` of `what`.
pub(super) fn count_text(n: u64, what: &str) -> String {
    let mut s = String::with_capacity(32);
    s.push_str("[... ");
    push_count(&mut s, n);
    s.push(' ');
    s.push_str(what);
    s.push(']');
    s
}

/// `s` as a JSON string (a marker text needs no escaping).
pub(super) fn json_string(s: &str) -> String {
    format!("\"{s}\"")
}

/// The fewest ellipses (from one) no key in `taken` has (see
/// [`super::parse::Open::dots_taken`]).
pub(super) fn free_dots(taken: u64) -> usize {
    (1..64).find(|&n| taken & (1 << n) == 0).unwrap_or(64)
}

/// Sets bit `n` of `taken` when the key token `key` is `n` ellipses (`n` below 64).
pub(super) fn note_dots<U: Unit>(taken: &mut u64, key: &[U]) {
    if let Some(dots) = marker_dots(key).filter(|&n| n < 64) {
        *taken |= 1 << dots;
    }
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
pub(super) fn marker_key_span(dots: usize) -> Span {
    Span { chars: dots as u64 + 2, bytes: 3 * dots as u64 + 2, newlines: 0 }
}
