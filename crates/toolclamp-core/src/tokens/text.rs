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
