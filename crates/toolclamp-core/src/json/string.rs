//! Cutting a string within its room: `Head`, `Tail` or both ends, with the notice of bytes
//! cut. Cuts fall between atoms of the string as written, so no escape, surrogate pair or
//! `\r\n` is ever split.

use super::clamp::Clamp;
use super::layout::ascii;
use super::markers::count_text;
use super::scan::{escaped_unit, BACKSLASH};
use super::sink::{Shortened, Sink};
use super::tree::Node;
use super::{JsonUnit, Markers, SHORT_MARKER};
use crate::measure::{Span, Unit};
use crate::plan::Strategy;

impl<U: JsonUnit> Clamp<'_, U> {
    /// Renders (or prices) the string `node` within `room`: the ends the strategy keeps,
    /// cut between atoms, with the notice of bytes cut between them (inline markers).
    pub(super) fn string<S: Sink<U>>(&self, node: &Node, room: u64, sink: &mut S) -> Span {
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
pub(super) fn escaping<U: Unit>(c: &[U], i: usize) -> bool {
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
