//! Pre-tokenisation: the split of a text into the pieces that byte-pair encoding then
//! encodes one by one, as OpenAI's patterns for `o200k_base` and `cl100k_base` split it.
//!
//! The patterns are regular expressions run left to right, each match starting where the
//! last ended; the first alternative that matches wins, and quantifiers are greedy and
//! give back what they must (JavaScript's semantics, with the `u` flag: a lone surrogate is
//! a code point of no class, `\s` includes U+FEFF and not U+0085). Each alternative is
//! written out here as the scan a backtracking engine makes, which is faster than a regex
//! crate, needs no Unicode tables but the classes in [`super::classes`], and knows which
//! chars a match read: a piece's [`Piece::seen`] is the end of what its match looked at
//! (the end of the text counts as a position), so a piece is the same in any text that
//! agrees up to there. The exact cuts rely on that.
//!
//! o200k_base:
//! ```text
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'s|'t|'re|'ve|'m|'ll|'d)?
//! |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'s|'t|'re|'ve|'m|'ll|'d)?
//! |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//! ```
//! cl100k_base:
//! ```text
//! '(?:s|t|re|ve|m|ll|d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*
//! |\s+$|\s*[\r\n]|\s+(?!\S)|\s
//! ```
//! (The contractions match either case of each letter: `'S`, `'Ll`.)

use super::classes::RUNS;
use super::text::CodeUnits;

/// Which pattern splits the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    O200k,
    Cl100k,
}

/// One piece of a split: units `start..end` of the text. Its match read the text up to
/// `seen` (exclusive; `len + 1` when it read the end of the text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub start: usize,
    pub end: usize,
    pub seen: usize,
}

// Classes of code points, as numbered in `classes::RUNS`.
const OTHER: u8 = 0;
const UPPER: u8 = 1;
const LOWER: u8 = 2;
const LETTER: u8 = 3;
const MARK: u8 = 4;
const NUMBER: u8 = 5;
const NEWLINE: u8 = 6;
const SPACE: u8 = 7;

/// A set of classes.
type Set = u8;
const fn set(classes: &[u8]) -> Set {
    let mut s = 0;
    let mut i = 0;
    while i < classes.len() {
        s |= 1 << classes[i];
        i += 1;
    }
    s
}
/// `\p{L}`.
const L: Set = set(&[UPPER, LOWER, LETTER]);
/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`: what may open an o200k word.
const A: Set = set(&[UPPER, LETTER, MARK]);
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`: what may close one.
const B: Set = set(&[LOWER, LETTER, MARK]);
/// `[^\r\n\p{L}\p{N}]`: the one char that may lead a word.
const LEAD: Set = set(&[OTHER, MARK, SPACE]);
/// `[^\s\p{L}\p{N}]`: punctuation and symbols.
const PUNCT: Set = set(&[OTHER, MARK]);
/// `\s`.
const WHITE: Set = set(&[NEWLINE, SPACE]);
const NUM: Set = set(&[NUMBER]);

/// The class of a code point.
#[inline]
pub(super) fn class_of(cp: u32) -> u8 {
    if cp < 128 {
        return ASCII[cp as usize];
    }
    let after = RUNS.partition_point(|&run| run >> 3 <= cp);
    (RUNS[after - 1] & 7) as u8
}

const ASCII: [u8; 128] = {
    let mut table = [OTHER; 128];
    let mut run = 0;
    while RUNS[run] >> 3 < 128 {
        let end = if RUNS[run + 1] >> 3 < 128 { RUNS[run + 1] >> 3 } else { 128 };
        let mut cp = RUNS[run] >> 3;
        while cp < end {
            table[cp as usize] = (RUNS[run] & 7) as u8;
            cp += 1;
        }
        run += 1;
    }
    table
};

/// The pieces of `text`, in order, from `from` (a char start) on.
pub struct Split<'t, T: CodeUnits + ?Sized> {
    scan: Scan<'t, T>,
    pattern: Pattern,
    pos: usize,
}

impl<'t, T: CodeUnits + ?Sized> Split<'t, T> {
    pub fn new(text: &'t T, pattern: Pattern, from: usize) -> Self {
        Split { scan: Scan { text, len: text.len(), seen: 0 }, pattern, pos: from }
    }
}

impl<T: CodeUnits + ?Sized> Iterator for Split<'_, T> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        let start = self.pos;
        if start >= self.scan.len {
            return None;
        }
        self.scan.seen = start;
        let end = match self.pattern {
            Pattern::O200k => self.scan.o200k(start),
            Pattern::Cl100k => self.scan.cl100k(start),
        };
        debug_assert!(end > start);
        self.pos = end;
        Some(Piece { start, end, seen: self.scan.seen })
    }
}

/// Reads chars and remembers how far it read.
struct Scan<'t, T: ?Sized> {
    text: &'t T,
    len: usize,
    seen: usize,
}

/// A char as the patterns see it.
#[derive(Clone, Copy)]
struct Char {
    class: u8,
    cp: u32,
    width: usize,
}

impl Char {
    fn is(self, set: Set) -> bool {
        set & (1 << self.class) != 0
    }
}

impl<T: CodeUnits + ?Sized> Scan<'_, T> {
    /// The char at `i`, or `None` at the end of the text (which is read as much as a char is).
    #[inline]
    fn at(&mut self, i: usize) -> Option<Char> {
        if i >= self.len {
            self.seen = self.seen.max(self.len + 1);
            return None;
        }
        let (cp, width) = self.text.char_at(i);
        // A lone high surrogate is lone because of the unit after it (or the end), which
        // was read to tell: another text could pair it there.
        let read = if (0xD800..0xDC00).contains(&cp) { i + 2 } else { i + width };
        self.seen = self.seen.max(read.min(self.len + 1));
        Some(Char { class: class_of(cp), cp, width })
    }

    fn is(&mut self, i: usize, set: Set) -> bool {
        self.at(i).is_some_and(|c| c.is(set))
    }

    /// The end of the run of chars in `set` from `i`.
    fn run(&mut self, mut i: usize, set: Set) -> usize {
        while let Some(c) = self.at(i) {
            if !c.is(set) {
                break;
            }
            i += c.width;
        }
        i
    }

    fn o200k(&mut self, p: usize) -> usize {
        let first = self.at(p).expect("p is inside the text");
        let after = p + first.width;
        // [^\r\n\p{L}\p{N}]? A* B+ contraction?  (with the leading char, then without)
        if first.is(LEAD) {
            if let Some(end) = self.upper_then_lower(after) {
                return self.contraction(end);
            }
        }
        if let Some(end) = self.upper_then_lower(p) {
            return self.contraction(end);
        }
        // [^\r\n\p{L}\p{N}]? A+ B* contraction?
        if first.is(LEAD) {
            if let Some(end) = self.upper_run(after) {
                return self.contraction(end);
            }
        }
        if let Some(end) = self.upper_run(p) {
            return self.contraction(end);
        }
        if first.is(NUM) {
            return self.digits(p);
        }
        if let Some(end) = self.punctuation(p, first, true) {
            return end;
        }
        // \s*[\r\n]+ | \s+(?!\S) | \s+ : the text at p is white space.
        let white = self.white(p);
        if let Some(end) = white.after_last_newline {
            return end;
        }
        white.end_before_next_word(p, self.len).unwrap_or(white.end)
    }

    fn cl100k(&mut self, p: usize) -> usize {
        let first = self.at(p).expect("p is inside the text");
        let after = p + first.width;
        if first.cp == '\'' as u32 {
            if let Some(end) = self.contraction_at(p) {
                return end;
            }
        }
        // [^\r\n\p{L}\p{N}]?\p{L}+
        if first.is(LEAD) && self.is(after, L) {
            return self.run(after, L);
        }
        if first.is(L) {
            return self.run(p, L);
        }
        if first.is(NUM) {
            return self.digits(p);
        }
        if let Some(end) = self.punctuation(p, first, false) {
            return end;
        }
        // \s+$ | \s*[\r\n] | \s+(?!\S) | \s : the text at p is white space.
        let white = self.white(p);
        if white.end == self.len {
            return white.end;
        }
        if let Some(end) = white.after_last_newline {
            return end;
        }
        white.end_before_next_word(p, self.len).unwrap_or(after)
    }

    /// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+` from `i`. The first part
    /// takes all it can; when no closing char follows, it gives back chars until the last
    /// one it took that can close (Lm, Lo, M), which is then the whole second part.
    fn upper_then_lower(&mut self, i: usize) -> Option<usize> {
        let mut pos = i;
        let mut after_last_closer = None;
        while let Some(c) = self.at(pos) {
            if !c.is(A) {
                break;
            }
            pos += c.width;
            if c.is(B) {
                after_last_closer = Some(pos);
            }
        }
        if self.is(pos, B) {
            return Some(self.run(pos, B));
        }
        after_last_closer
    }

    /// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*` from `i`.
    fn upper_run(&mut self, i: usize) -> Option<usize> {
        let end = self.run(i, A);
        (end > i).then(|| self.run(end, B))
    }

    /// `\p{N}{1,3}` from `p`, where a number is.
    fn digits(&mut self, p: usize) -> usize {
        let mut end = p;
        for _ in 0..3 {
            match self.at(end) {
                Some(c) if c.is(NUM) => end += c.width,
                _ => break,
            }
        }
        end
    }

    /// An optional contraction after a word: its end, or `end`.
    fn contraction(&mut self, end: usize) -> usize {
        self.contraction_at(end).unwrap_or(end)
    }

    /// `'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE])` at `i`.
    fn contraction_at(&mut self, i: usize) -> Option<usize> {
        let lower = |c: Option<Char>| c.map_or(0, |c| if c.cp < 128 { (c.cp as u8).to_ascii_lowercase() } else { 0 });
        let quote = self.at(i)?;
        if quote.cp != '\'' as u32 {
            return None;
        }
        let one = self.at(i + 1);
        match lower(one) {
            b's' | b'd' | b'm' | b't' => Some(i + 2),
            pair @ (b'l' | b'v' | b'r') => {
                let want = if pair == b'l' { b'l' } else { b'e' };
                (lower(self.at(i + 2)) == want).then_some(i + 3)
            }
            _ => None,
        }
    }

    /// ` ?[^\s\p{L}\p{N}]+[\r\n]*` (o200k: `[\r\n/]*`) from `p`.
    fn punctuation(&mut self, p: usize, first: Char, slash: bool) -> Option<usize> {
        let start = if first.cp == ' ' as u32 && self.is(p + 1, PUNCT) { p + 1 } else { p };
        if !self.is(start, PUNCT) {
            return None;
        }
        let mut end = self.run(start, PUNCT);
        while let Some(c) = self.at(end) {
            if !(c.class == NEWLINE || (slash && c.cp == '/' as u32)) {
                break;
            }
            end += c.width;
        }
        Some(end)
    }

    /// The run of white space from `p`.
    fn white(&mut self, p: usize) -> White {
        let mut pos = p;
        let mut last_start = p;
        let mut after_last_newline = None;
        while let Some(c) = self.at(pos) {
            if !c.is(WHITE) {
                break;
            }
            last_start = pos;
            pos += c.width;
            if c.class == NEWLINE {
                after_last_newline = Some(pos);
            }
        }
        White { end: pos, last_start, after_last_newline }
    }
}

/// A run of white space.
struct White {
    end: usize,
    /// Where its last char starts.
    last_start: usize,
    /// The end of its last `\r` or `\n`, if it has one.
    after_last_newline: Option<usize>,
}

impl White {
    /// `\s+(?!\S)` from `p`: the whole run at the end of the text, else all but its last char
    /// (which then leads the next piece), if that leaves any.
    fn end_before_next_word(&self, p: usize, len: usize) -> Option<usize> {
        if self.end == len {
            Some(self.end)
        } else {
            (self.last_start > p).then_some(self.last_start)
        }
    }
}
