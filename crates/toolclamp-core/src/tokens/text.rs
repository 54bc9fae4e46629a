//! The texts a tokenizer reads: a JS string's code units (UTF-16, or Latin-1 for a string
//! of one-byte chars) or UTF-8. Positions are the text's own units; a tokenizer reads code
//! points at char starts and encodes pieces to UTF-8, a lone surrogate as U+FFFD (what
//! `TextEncoder` and `Buffer.from` make of it, and so what a model is sent).

use crate::measure::Unit;
use crate::source::Units;

/// A text read by code point.
pub trait CodeUnits {
    /// Length in units.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The code point starting at unit `i` (a char start below `len`) and its units.
    fn char_at(&self, i: usize) -> (u32, usize);

    /// Appends the UTF-8 of units `from..to` (char starts) to `out`.
    fn push_utf8(&self, from: usize, to: usize, out: &mut Vec<u8>);

    /// Appends the UTF-16 of units `from..to` (char starts) to `out`.
    fn push_utf16(&self, from: usize, to: usize, out: &mut Vec<u16>);

    /// Whether `i` starts a char (or is the end): a tokenizer cuts only there.
    fn is_char_start(&self, i: usize) -> bool;
}

/// A JS string's units, whichever way V8 stores it: one-byte strings as Latin-1 (each
/// byte is the code point), others as UTF-16.
impl<U: Unit> CodeUnits for Units<'_, U> {
    fn len(&self) -> usize {
        self.units().len()
    }

    #[inline]
    fn char_at(&self, i: usize) -> (u32, usize) {
        let units = self.units();
        let unit = units[i];
        if unit.is_high_surrogate() {
            if let Some(&low) = units.get(i + 1) {
                if low.is_low_surrogate() {
                    return (0x10000 + ((unit.code() as u32 - 0xD800) << 10) + (low.code() as u32 - 0xDC00), 2);
                }
            }
        }
        (unit.code() as u32, 1)
    }

    fn push_utf8(&self, from: usize, to: usize, out: &mut Vec<u8>) {
        if let Some(latin1) = U::as_latin1(&self.units()[from..to]) {
            for &b in latin1 {
                if b < 0x80 {
                    out.push(b);
                } else {
                    out.extend_from_slice(&[0xC0 | (b >> 6), 0x80 | (b & 0x3F)]);
                }
            }
            return;
        }
        push_utf8_of(self, from, to, out);
    }

    fn push_utf16(&self, from: usize, to: usize, out: &mut Vec<u16>) {
        out.extend(self.units()[from..to].iter().map(|u| u.code()));
    }

    fn is_char_start(&self, i: usize) -> bool {
        let units = self.units();
        i == 0 || i >= units.len() || !(units[i].is_low_surrogate() && units[i - 1].is_high_surrogate())
    }
}

/// The UTF-8 of `text[from..to]` char by char, a lone surrogate as U+FFFD.
fn push_utf8_of<T: CodeUnits + ?Sized>(text: &T, from: usize, to: usize, out: &mut Vec<u8>) {
    let mut i = from;
    while i < to {
        let (cp, width) = text.char_at(i);
        let c = char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER);
        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        i += width;
    }
}

impl CodeUnits for [u16] {
    fn len(&self) -> usize {
        <[u16]>::len(self)
    }

    #[inline]
    fn char_at(&self, i: usize) -> (u32, usize) {
        let unit = self[i] as u32;
        if unit & 0xFC00 == 0xD800 {
            if let Some(&low) = self.get(i + 1) {
                if low & 0xFC00 == 0xDC00 {
                    return (0x10000 + ((unit - 0xD800) << 10) + (low as u32 - 0xDC00), 2);
                }
            }
        }
        (unit, 1)
    }

    fn push_utf8(&self, from: usize, to: usize, out: &mut Vec<u8>) {
        push_utf8_of(self, from, to, out);
    }

    fn push_utf16(&self, from: usize, to: usize, out: &mut Vec<u16>) {
        out.extend_from_slice(&self[from..to]);
    }

    fn is_char_start(&self, i: usize) -> bool {
        i == 0 || i >= <[u16]>::len(self) || !(self[i] & 0xFC00 == 0xDC00 && self[i - 1] & 0xFC00 == 0xD800)
    }
}

impl CodeUnits for str {
    fn len(&self) -> usize {
        str::len(self)
    }

    #[inline]
    fn char_at(&self, i: usize) -> (u32, usize) {
        let c = self[i..].chars().next().expect("a char start inside the text");
        (c as u32, c.len_utf8())
    }

    fn push_utf8(&self, from: usize, to: usize, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.as_bytes()[from..to]);
    }

    fn push_utf16(&self, from: usize, to: usize, out: &mut Vec<u16>) {
        out.extend(self[from..to].encode_utf16());
    }

    fn is_char_start(&self, i: usize) -> bool {
        self.is_char_boundary(i.min(str::len(self)))
    }
}

/// A long text known only by a head and a tail window of its units (the two ends a cut
/// within tokens keeps, copied from a JS string too long to copy whole). It reads as the
/// whole text as long as every read falls inside a window. A read between them (or of a
/// char or a cut that needs a unit between them) marks the text [`Ends::strayed`] and gives
/// digits, which end every piece within three chars, so a scan that strays stops soon;
/// what was counted is then not the text's count, and the caller counts with the whole
/// text instead. A tokenizer's pieces depend only on the units their match read (see
/// [`super::Piece::seen`]), so counts that never strayed are the whole text's.
pub struct Ends<'a, U: Unit> {
    head: &'a [U],
    tail: &'a [U],
    /// Where `tail` starts in the text.
    tail_from: usize,
    len: usize,
    strayed: std::cell::Cell<bool>,
}

impl<'a, U: Unit> Ends<'a, U> {
    /// `head` is `text[..head.len()]` and `tail` is `text[len - tail.len()..]`, windows that
    /// do not overlap.
    pub fn new(head: &'a [U], tail: &'a [U], len: usize) -> Self {
        assert!(head.len() + tail.len() <= len, "windows that overlap");
        Ends { head, tail, tail_from: len - tail.len(), len, strayed: std::cell::Cell::new(false) }
    }

    /// The length of the shorter window.
    pub fn window_len(&self) -> usize {
        self.head.len().min(self.tail.len())
    }

    /// Whether a read fell between the windows.
    pub fn strayed(&self) -> bool {
        self.strayed.get()
    }

    /// The unit at `i`, if a window holds it; a unit between them is a stray read.
    fn unit(&self, i: usize) -> Option<U> {
        let unit = if i < self.head.len() {
            Some(self.head[i])
        } else if i >= self.tail_from {
            self.tail.get(i - self.tail_from).copied()
        } else {
            None
        };
        if unit.is_none() && i < self.len {
            self.strayed.set(true);
        }
        unit
    }

    /// The window that holds units `from..to` and its offset; a span that leaves the
    /// windows is a stray read.
    fn window(&self, from: usize, to: usize) -> Option<(Units<'a, U>, usize)> {
        if to <= self.head.len() {
            Some((Units::new(self.head), 0))
        } else if from >= self.tail_from {
            Some((Units::new(self.tail), self.tail_from))
        } else {
            self.strayed.set(true);
            None
        }
    }
}

impl<U: Unit> CodeUnits for Ends<'_, U> {
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn char_at(&self, i: usize) -> (u32, usize) {
        // The units of a window but its last read as the window's own; at the last, a high
        // surrogate's pair needs the unit after it.
        if i + 1 < self.head.len() {
            return Units::new(self.head).char_at(i);
        }
        if i >= self.tail_from {
            return Units::new(self.tail).char_at(i - self.tail_from);
        }
        match self.unit(i) {
            Some(unit) if unit.is_high_surrogate() => match self.unit(i + 1) {
                Some(low) if low.is_low_surrogate() => {
                    (0x10000 + ((unit.code() as u32 - 0xD800) << 10) + (low.code() as u32 - 0xDC00), 2)
                }
                _ => (unit.code() as u32, 1),
            },
            Some(unit) => (unit.code() as u32, 1),
            None => (u32::from(b'0'), 1),
        }
    }

    fn push_utf8(&self, from: usize, to: usize, out: &mut Vec<u8>) {
        if let Some((units, off)) = self.window(from, to) {
            units.push_utf8(from - off, to - off, out);
        }
    }

    fn push_utf16(&self, from: usize, to: usize, out: &mut Vec<u16>) {
        if let Some((units, off)) = self.window(from, to) {
            units.push_utf16(from - off, to - off, out);
        }
    }

    fn is_char_start(&self, i: usize) -> bool {
        if i == 0 || i >= self.len {
            return true;
        }
        match (self.unit(i - 1), self.unit(i)) {
            (Some(a), Some(b)) => !(a.is_high_surrogate() && b.is_low_surrogate()),
            _ => true,
        }
    }
}
