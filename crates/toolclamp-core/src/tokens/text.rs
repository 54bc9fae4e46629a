//! The texts a tokenizer reads: a JS string's code units (UTF-16, or Latin-1 for a string
//! of one-byte chars) or UTF-8. Positions are the text's own units; a tokenizer reads code
//! points at char starts and encodes pieces to UTF-8, a lone surrogate as U+FFFD (what
//! `TextEncoder` and `Buffer.from` make of it, and so what a model is sent).

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

    /// Whether `i` starts a char (or is the end): a tokenizer cuts only there.
    fn is_char_start(&self, i: usize) -> bool;
}

/// A string of one-byte chars, as V8 stores it: each byte is the code point.
pub struct Latin1<'a>(pub &'a [u8]);

impl CodeUnits for Latin1<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }

    #[inline]
    fn char_at(&self, i: usize) -> (u32, usize) {
        (self.0[i] as u32, 1)
    }

    fn push_utf8(&self, from: usize, to: usize, out: &mut Vec<u8>) {
        for &b in &self.0[from..to] {
            if b < 0x80 {
                out.push(b);
            } else {
                out.extend_from_slice(&[0xC0 | (b >> 6), 0x80 | (b & 0x3F)]);
            }
        }
    }

    fn is_char_start(&self, _: usize) -> bool {
        true
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
        let mut i = from;
        while i < to {
            let (cp, width) = self.char_at(i);
            let c = char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER);
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            i += width;
        }
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

    fn is_char_start(&self, i: usize) -> bool {
        self.is_char_boundary(i.min(str::len(self)))
    }
}
