//! Terminal output as a model should read it: what a terminal would finally show, as text.
//!
//! Escape sequences are parsed by `vte` (the parser of Alacritty, a state machine for the DEC
//! ANSI model, streaming by design) and dropped: colours, cursor keys, titles (OSC),
//! hyperlinks, device controls. What changes what a line shows is applied to that line:
//! - `\r` returns to the start of the line, and what follows overwrites it (a progress bar
//!   redrawn a thousand times is its last state); `\r\n` and `\n` end the line;
//! - backspace moves back one cell, so `a\x08b` shows `b`;
//! - erase in line (`CSI K`, `CSI 1 K`, `CSI 2 K`), and cursor moves along the line (`CSI C`,
//!   `CSI D`, `CSI G`);
//! - a tab is kept as a tab; any other control char is shown visibly (`^G` for BEL, `^?`-style
//!   caret notation for C0; C1 chars as `<U+0085>`).
//!
//! The screen is [`WIDTH`] cells wide, so memory stays bounded on a line that never ends: a
//! line that fills the width wraps (its text is given out, without a line break, and `\r`
//! then returns to the start of the next row, as on a terminal), and cursor moves stop at the
//! last column. Each char takes one cell (a wide CJK char takes two on a real terminal: an overwrite of
//! half of one is rare and is not modelled). Moves to other lines (cursor up, clear screen)
//! are dropped: a multi-line redraw keeps its lines in the order they were written.
//!
//! # Blanks are paid for
//!
//! A char written past the end of the line (after `CSI C` or `CSI G`) leaves blanks between,
//! and those blanks are the one thing that is not in the input: `\x1b[65535Cx\n`, ten bytes,
//! would draw a line of 65,536 cells. So blanks are paid from an allowance: it starts at one
//! screen line ([`WIDTH`]), each char, control or CSI sequence read adds
//! [`BLANKS_PER_READ`] to it (up to one screen line again), and a char that would land
//! further than the allowance reaches lands at the end of the line plus the allowance. Output
//! that moves the cursor now and then to align columns never comes near the limit, so it
//! shows as on a terminal; a flood of far moves shows each char at most
//! [`BLANKS_PER_READ`] cells per read apart.
//!
//! Hence the bound (UTF-8 bytes; [`MAX_GROWTH`]): each input byte gives at most 4 bytes of
//! text (a C1 char, 2 bytes, is shown as 8; an invalid byte as the 3 of U+FFFD; a C0 control
//! as 2), every char of the output is one written by a read or a paid blank, and the blanks
//! are at most one screen line plus [`BLANKS_PER_READ`] per read, a read taking at least a
//! byte: the output is at most `MAX_GROWTH × input + WIDTH` bytes.
//!
//! # Speed
//!
//! Plain text (no escape, `\r`, backspace or control char other than `\n` and `\t`) read
//! while the parser is between sequences does not go through the parser: it is found a
//! block of bytes at a time, and its whole lines are given out as they are, which is what the
//! parser would make of them char by char. [`TerminalNormalizer`] follows where the parser
//! stands with `Seq`, a coarse copy of its states that only says "between sequences" when
//! the parser surely is.
//!
//! [`TerminalNormalizer`] takes bytes in chunks split anywhere (inside a UTF-8 sequence, an
//! escape sequence or a `\r\n`) and gives back finished lines; its memory is the line being
//! drawn. What has been returned never changes: a line is only returned once it ended.

use vte::{Params, Parser, Perform};

use crate::utf8::Utf8Stream;

/// What to apply. All on by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Normalize {
    /// Drop escape sequences (CSI, OSC, DCS, ESC); off keeps them as visible text.
    pub ansi: bool,
    /// Apply `\r` (return to the line start, overwrite); off keeps `\r` as a line break.
    pub carriage_returns: bool,
    /// Apply backspace; off shows it as `^H`.
    pub backspaces: bool,
    /// Show other control chars visibly; off drops them.
    pub controls: bool,
}

impl Default for Normalize {
    fn default() -> Self {
        Normalize { ansi: true, carriage_returns: true, backspaces: true, controls: true }
    }
}

/// Columns of the screen: where a line wraps and cursor moves stop.
pub const WIDTH: usize = 1 << 16;

/// Blanks a cursor move may leave for each char, control or CSI sequence read (see the
/// module docs).
pub const BLANKS_PER_READ: usize = 8;

/// Normalised text is at most this many times as long as its input, plus [`WIDTH`] (UTF-8
/// bytes both; see the module docs): 4 for the visible forms, the rest for blanks.
pub const MAX_GROWTH: usize = 4 + BLANKS_PER_READ;

/// Normalised text is at most this many UTF-16 units for each UTF-16 unit of its input, plus
/// [`WIDTH`]: a unit that is a C1 char is shown in 8 (`<U+0085>`), and each read pays for up
/// to [`BLANKS_PER_READ`] blanks.
pub const MAX_UTF16_GROWTH: usize = 8 + BLANKS_PER_READ;

/// The most UTF-16 units the normalised text of an input of `len` units can have: UTF-16
/// units of a string, or UTF-8 bytes if `bytes` (a UTF-16 unit of the output is at least a
/// byte of it, so the bound in bytes, [`MAX_GROWTH`], holds). What a caller compares with
/// the longest string it can hold before it builds the normalised text whole.
pub fn max_normalized_utf16(len: u64, bytes: bool) -> u64 {
    let growth = if bytes { MAX_GROWTH } else { MAX_UTF16_GROWTH };
    len.saturating_mul(growth as u64).saturating_add(WIDTH as u64)
}

/// Where normalised text goes, piece by piece and in order.
pub trait Sink {
    fn text(&mut self, s: &str);
}

impl Sink for String {
    fn text(&mut self, s: &str) {
        self.push_str(s);
    }
}

/// The line being drawn: its cells and a cursor. The cells are kept as text while every
/// write appended to them (the usual case: a line written left to right, its colours
/// dropped), and as chars once a write lands among them (a redraw after `\r`, a backspace,
/// an erase up to the cursor).
#[derive(Default)]
struct Line {
    /// The cells as text, unless `in_chars`.
    text: String,
    /// The cells as chars, if `in_chars`.
    chars: Vec<char>,
    in_chars: bool,
    /// Cells in the line.
    len: usize,
    cursor: usize,
}

impl Line {
    /// The cells as chars, to write among them.
    fn chars(&mut self) -> &mut Vec<char> {
        if !self.in_chars {
            self.chars.clear();
            self.chars.extend(self.text.chars());
            self.text.clear();
            self.in_chars = true;
        }
        &mut self.chars
    }

    /// Whether the cells are ASCII text, a byte a cell: an ASCII write among them is then a
    /// byte write, with no trip through chars.
    fn ascii_text(&self) -> bool {
        !self.in_chars && self.text.len() == self.len
    }

    /// Puts `c` at the cursor, which is at most at the end.
    fn put(&mut self, c: char) {
        if self.cursor < self.len {
            let cursor = self.cursor;
            if c.is_ascii() && self.ascii_text() {
                // SAFETY: an ASCII byte replaces an ASCII byte, so the text stays UTF-8.
                unsafe { self.text.as_bytes_mut()[cursor] = c as u8 };
            } else {
                self.chars()[cursor] = c;
            }
        } else {
            if self.in_chars {
                self.chars.push(c);
            } else {
                self.text.push(c);
            }
            self.len += 1;
        }
        self.cursor += 1;
    }

    /// Appends `s`, `count` chars, at the cursor, which is at the end.
    fn append(&mut self, s: &str, count: usize) {
        if self.in_chars {
            self.chars.extend(s.chars());
        } else {
            self.text.push_str(s);
        }
        self.len += count;
        self.cursor = self.len;
    }

    /// Writes ASCII `s` at the cursor, which is inside the ASCII text: over the cells there,
    /// and past the end for what is left of it.
    fn overwrite_ascii(&mut self, s: &str) {
        debug_assert!(s.is_ascii() && self.ascii_text() && self.cursor < self.len);
        let over = (self.len - self.cursor).min(s.len());
        let at = self.cursor;
        // SAFETY: ASCII bytes replace ASCII bytes, so the text stays UTF-8.
        unsafe { self.text.as_bytes_mut()[at..at + over].copy_from_slice(&s.as_bytes()[..over]) };
        self.text.push_str(&s[over..]);
        self.cursor += s.len();
        self.len = self.len.max(self.cursor);
    }

    fn push_blanks(&mut self, n: usize) {
        if self.in_chars {
            self.chars.resize(self.len + n, ' ');
        } else {
            const SPACES: &str = "                                                                ";
            let mut left = n;
            while left > 0 {
                let some = left.min(SPACES.len());
                self.text.push_str(&SPACES[..some]);
                left -= some;
            }
        }
        self.len += n;
    }

    /// Keeps the first `n` cells.
    fn truncate(&mut self, n: usize) {
        if n == 0 {
            self.clear();
        } else if n < self.len {
            if !self.in_chars && self.text.len() == self.len {
                // One byte a cell.
                self.text.truncate(n);
            } else {
                self.chars().truncate(n);
            }
            self.len = n;
        }
    }

    /// Blanks the cells up to the cursor, the cursor's included.
    fn blank_to_cursor(&mut self) {
        if self.len > 0 {
            let end = self.cursor.min(self.len - 1);
            if self.ascii_text() {
                // SAFETY: ASCII blanks replace ASCII bytes, so the text stays UTF-8.
                unsafe { self.text.as_bytes_mut()[..=end].fill(b' ') };
            } else {
                self.chars()[..=end].fill(' ');
            }
        }
    }

    /// Erases every cell (the cursor stays).
    fn clear(&mut self) {
        self.text.clear();
        self.chars.clear();
        self.in_chars = false;
        self.len = 0;
    }

    /// Appends the cells to `out`.
    fn text_to(&self, out: &mut String) {
        if self.in_chars {
            encode(&self.chars, out);
        } else {
            out.push_str(&self.text);
        }
    }
}

/// The screen between chunks: the line, and what the next char depends on.
struct Screen {
    line: Line,
    options: Normalize,
    /// A `\r` not yet applied: with `carriage_returns` off it is a line break, unless a `\n`
    /// follows (the pair is one break).
    pending_cr: bool,
    /// Blanks a char written past the end of the line may still leave (see the module docs).
    blanks: usize,
    /// A line on its way out, as UTF-8 (kept to reuse its memory).
    encoded: String,
}

impl Screen {
    fn new(options: Normalize) -> Screen {
        Screen { line: Line::default(), options, pending_cr: false, blanks: WIDTH, encoded: String::new() }
    }

    /// `reads` chars, controls or sequences were read: the blanks they pay for.
    fn earn(&mut self, reads: usize) {
        self.blanks = self.blanks.saturating_add(reads.saturating_mul(BLANKS_PER_READ)).min(WIDTH);
    }

    /// Puts a char at the cursor; a full row wraps.
    #[inline]
    fn put(&mut self, c: char, sink: &mut impl Sink) {
        let line = &mut self.line;
        if line.cursor > line.len {
            // Blanks up to the cursor, as far as the allowance reaches.
            let blanks = (line.cursor - line.len).min(self.blanks);
            self.blanks -= blanks;
            line.push_blanks(blanks);
            line.cursor = line.len;
        }
        line.put(c);
        if line.cursor >= WIDTH {
            self.give_out(false, sink);
        }
    }

    #[inline(always)]
    fn put_str(&mut self, s: &str, sink: &mut impl Sink) {
        let line = &mut self.line;
        // What surely fits in the row (no blanks, no wrap to check): appended, or written
        // over ASCII text (a column jump back into a line) byte for byte.
        if line.cursor <= line.len && line.cursor + s.len() < WIDTH {
            if line.cursor == line.len {
                let count = if s.is_ascii() { s.len() } else { s.chars().count() };
                line.append(s, count);
                return;
            }
            if line.ascii_text() && s.is_ascii() {
                line.overwrite_ascii(s);
                return;
            }
        }
        self.put_chars(s, sink);
    }

    #[inline(never)]
    fn put_chars(&mut self, s: &str, sink: &mut impl Sink) {
        for c in s.chars() {
            self.put(c, sink);
        }
    }

    /// Gives out the line (with `\n` if `newline`) and starts the next, empty.
    fn give_out(&mut self, newline: bool, sink: &mut impl Sink) {
        let line = &mut self.line;
        if line.in_chars {
            self.encoded.clear();
            encode(&line.chars, &mut self.encoded);
            if newline {
                self.encoded.push('\n');
            }
            sink.text(&self.encoded);
        } else {
            if newline {
                line.text.push('\n');
            }
            sink.text(&line.text);
        }
        line.clear();
        line.cursor = 0;
    }

    fn end_line(&mut self, sink: &mut impl Sink) {
        self.give_out(true, sink);
    }

    fn flush_cr(&mut self, sink: &mut impl Sink) {
        if self.pending_cr {
            self.pending_cr = false;
            self.end_line(sink);
        }
    }

    fn visible(&mut self, c: char, sink: &mut impl Sink) {
        if !self.options.controls {
            return;
        }
        let code = c as u32;
        match code {
            0..=0x1f => {
                self.put('^', sink);
                self.put(char::from_u32(code + 0x40).unwrap_or('?'), sink);
            }
            0x7f => self.put_str("^?", sink),
            // A C1 char, below U+0100: written at once (a flood of them is the worst input).
            _ => {
                let mut shown = *b"<U+0000>";
                for (digit, shift) in shown[3..7].iter_mut().zip([12, 8, 4, 0]) {
                    *digit = b"0123456789ABCDEF"[((code >> shift) & 0xF) as usize];
                }
                self.put_str(std::str::from_utf8(&shown).unwrap_or("<U+FFFD>"), sink);
            }
        }
    }

    fn print(&mut self, c: char, sink: &mut impl Sink) {
        self.earn(1);
        self.flush_cr(sink);
        if ('\u{80}'..='\u{9f}').contains(&c) {
            self.visible(c, sink);
        } else {
            self.put(c, sink);
        }
    }

    fn execute(&mut self, byte: u8, sink: &mut impl Sink) {
        self.earn(1);
        match byte {
            b'\n' => {
                self.pending_cr = false;
                self.end_line(sink);
            }
            b'\r' if self.options.carriage_returns => self.line.cursor = 0,
            b'\r' => {
                self.flush_cr(sink);
                self.pending_cr = true;
            }
            0x08 if self.options.backspaces => {
                self.flush_cr(sink);
                self.line.cursor = self.line.cursor.saturating_sub(1);
            }
            b'\t' => {
                self.flush_cr(sink);
                self.put('\t', sink);
            }
            _ => {
                self.flush_cr(sink);
                self.visible(char::from(byte), sink);
            }
        }
    }

    /// A char as the parser hands it on: a control to [`Self::execute`], the rest to
    /// [`Self::print`].
    fn read(&mut self, c: char, sink: &mut impl Sink) {
        match c {
            '\0'..='\x1f' | '\u{80}'..='\u{9f}' => self.execute(c as u8, sink),
            _ => self.print(c, sink),
        }
    }

    fn csi(&mut self, first: usize, action: char, sink: &mut impl Sink) {
        self.earn(1);
        self.flush_cr(sink);
        let line = &mut self.line;
        match action {
            'K' => match first {
                0 => line.truncate(line.cursor),
                1 => line.blank_to_cursor(),
                2 => line.clear(),
                _ => {}
            },
            'C' => line.cursor = line.cursor.saturating_add(first.max(1)).min(WIDTH - 1),
            'D' => line.cursor = line.cursor.saturating_sub(first.max(1)),
            'G' => line.cursor = (first.max(1) - 1).min(WIDTH - 1),
            _ => {}
        }
    }

    /// A run of plain text (see [`plain_len`]; `no_newline` if it is known to have no `\n`)
    /// read between sequences: what the parser would make of it char by char, with its whole
    /// lines given out as they are.
    fn plain(&mut self, mut run: &str, no_newline: bool, sink: &mut impl Sink) {
        // The first char may do more than land at the cursor: end the line of a pending
        // `\r`, or pay for blanks. It goes the parser's way; the rest then only appends or
        // overwrites, so what it earns can be counted at once.
        if self.pending_cr || self.line.cursor > self.line.len {
            let Some(c) = run.chars().next() else { return };
            self.read(c, sink);
            run = &run[c.len_utf8()..];
        }
        // Usually the allowance is full, as it stays unless far moves drain it.
        if self.blanks < WIDTH {
            self.earn(reads_in(run));
        }
        let bytes = run.as_bytes();
        let first = if no_newline { None } else { memchr::memchr(b'\n', bytes) };
        let Some(first) = first else {
            return self.put_str(run, sink);
        };
        let last = memchr::memrchr(b'\n', bytes).unwrap_or(first);
        let mut from = 0;
        if self.line.len > 0 || self.line.cursor > 0 {
            self.put_str(&run[..first], sink);
            self.end_line(sink);
            from = first + 1;
        }
        // Whole lines from an empty one: a row that fills wraps without a break, so the text
        // is the same.
        if from <= last {
            sink.text(&run[from..=last]);
        }
        self.put_str(&run[last + 1..], sink);
    }
}

/// Appends `cells` to `out` as UTF-8.
fn encode(cells: &[char], out: &mut String) {
    // (An OR of all, which vectorises, where `all` stops early and does not.)
    if cells.iter().fold(0, |any, &c| any | c as u32) < 0x80 {
        // SAFETY: ASCII bytes are valid UTF-8, so `out` stays a valid `String`.
        unsafe { out.as_mut_vec() }.extend(cells.iter().map(|&c| c as u8));
    } else {
        out.extend(cells);
    }
}

/// Reads in a run of plain text: its chars, as far as [`Screen::earn`] can tell them apart
/// (a run that long earns a full allowance anyway).
fn reads_in(run: &str) -> usize {
    // A char is at most 4 bytes.
    if run.len() >= 4 * WIDTH.div_ceil(BLANKS_PER_READ) {
        return run.len() / 4;
    }
    run.bytes().filter(|&b| (b as i8) >= -64).count()
}

/// A byte that may start something other than plain text: a C0 control but `\n` and `\t`
/// (ESC among them), or 0xC2, the first byte of a C1 control (and of U+00A0..U+00BF).
#[inline]
fn maybe_special(b: u8) -> bool {
    (b < 0x20) & (b != b'\n') & (b != b'\t') | (b == 0xC2)
}

/// The length of the plain text `bytes` (valid UTF-8) starts with: up to an escape, a
/// control char but `\n` and `\t`, or a C1 char. And whether it surely has no `\n`.
#[inline(always)]
fn plain_len(bytes: &[u8]) -> (usize, bool) {
    // Text between escapes is short: a look at a word of bytes at a time finds its end
    // soonest, and sees its line breaks on the way.
    let near = bytes.len().min(PLAIN_BLOCK);
    let mut newline = false;
    let mut i = 0;
    while i < near {
        let n = (near - i).min(8);
        let mut candidates = candidate_bytes(word_of(&bytes[i..i + n]));
        // Each candidate is looked at: few are not the end of the run.
        while candidates != 0 {
            let at = i + (candidates.trailing_zeros() / 8) as usize;
            match bytes[at] {
                b'\n' => newline = true,
                b'\t' => {}
                // U+00A0..U+00BF: plain.
                0xC2 if !matches!(bytes.get(at + 1), Some(0x80..=0x9F)) => {}
                _ => return (at, !newline),
            }
            candidates &= candidates - 1;
        }
        i += n;
    }
    if near == bytes.len() {
        return (near, !newline);
    }
    (long_plain_len(bytes, near), false)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Up to 8 bytes as a little-endian word, padded with spaces (plain bytes).
#[inline(always)]
fn word_of(bytes: &[u8]) -> u64 {
    if let Ok(whole) = <[u8; 8]>::try_from(bytes) {
        return u64::from_le_bytes(whole);
    }
    let mut padded = [b' '; 8];
    padded[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(padded)
}

/// The high bit of each byte of `word` that is below 0x20 or is 0xC2 (every byte
/// [`maybe_special`], and `\n` and `\t`), and no other bit. Exact for every byte: no sum
/// carries into the next byte.
#[inline(always)]
fn candidate_bytes(word: u64) -> u64 {
    // Below 0x20: its low 7 bits plus 0x60 stay below 0x80, and its high bit is clear.
    let below_space = !(((word & !HIGHS) + ONES * 0x60) | word) & HIGHS;
    if word & HIGHS == 0 {
        // ASCII: no 0xC2.
        return below_space;
    }
    let x = word ^ (ONES * 0xC2);
    let c2 = !(((x & !HIGHS) + !HIGHS) | x) & HIGHS;
    below_space | c2
}

/// Bytes [`plain_len`] looks at a word at a time before it goes by blocks.
const PLAIN_BLOCK: usize = 32;

/// [`plain_len`] of a long run, from `from` on: whole blocks without a candidate byte are
/// passed at once (the test vectorises).
#[inline(never)]
fn long_plain_len(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    loop {
        while i + PLAIN_BLOCK <= bytes.len()
            && !bytes[i..i + PLAIN_BLOCK].iter().fold(false, |any, &b| any | maybe_special(b))
        {
            i += PLAIN_BLOCK;
        }
        let Some(at) = bytes[i..].iter().position(|&b| maybe_special(b)) else {
            return bytes.len();
        };
        let at = i + at;
        if bytes[at] == 0xC2 && !matches!(bytes.get(at + 1), Some(0x80..=0x9F)) {
            i = at + 1;
            continue;
        }
        return at;
    }
}

/// Parameters of a CSI sequence [`simple_csi`] reads: vte dispatches more as ignored.
const SIMPLE_CSI_PARAMS: usize = 16;

/// The CSI sequence `bytes` starts with when it is a plain one (`ESC [`, decimal
/// parameters, a final byte; no private marker, intermediate, sub-parameter or control
/// inside, not cut by the end): its length, first parameter and final byte, as vte would
/// dispatch them. `None` for any other: vte reads those.
fn simple_csi(bytes: &[u8]) -> Option<(usize, usize, char)> {
    if bytes.get(1) != Some(&b'[') {
        return None;
    }
    let (mut first, mut params) = (0u16, 1);
    for (i, &b) in bytes.iter().enumerate().skip(2) {
        match b {
            // vte's own arithmetic: a parameter saturates at 65,535.
            b'0'..=b'9' if params == 1 => first = first.saturating_mul(10).saturating_add(u16::from(b - b'0')),
            b'0'..=b'9' => {}
            b';' if params < SIMPLE_CSI_PARAMS => params += 1,
            0x40..=0x7E => return Some((i + 1, usize::from(first), char::from(b))),
            _ => return None,
        }
    }
    None
}

/// Where vte stands, coarsely: its states grouped by what ends them. `Ground` only when vte
/// is surely there (it may be there sooner: a DCS string also ends at byte 0x9C), so plain
/// text is only ever taken past vte when vte would print it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seq {
    Ground,
    Escape,
    EscapeIntermediate,
    /// CSI entry, parameters, intermediates or ignored: a final byte ends each.
    Csi,
    /// OSC string: BEL ends it (ST starts with ESC).
    Osc,
    /// DCS, SOS, PM or APC: only ESC (of ST), CAN or SUB end them.
    String,
}

impl Seq {
    /// The state after `b`, as vte moves (see its `advance_*` functions).
    fn next(self, b: u8) -> Seq {
        match (self, b) {
            (_, 0x1B) => Seq::Escape,
            (Seq::Ground, _) | (_, 0x18 | 0x1A) => Seq::Ground,
            (Seq::Escape, 0x20..=0x2F) => Seq::EscapeIntermediate,
            (Seq::Escape, b'[') => Seq::Csi,
            (Seq::Escape, b']') => Seq::Osc,
            (Seq::Escape, b'P' | b'X' | b'^' | b'_') => Seq::String,
            (Seq::Escape | Seq::EscapeIntermediate, 0x30..=0x7E) | (Seq::Csi, 0x40..=0x7E) | (Seq::Osc, 0x07) => {
                Seq::Ground
            }
            (state, _) => state,
        }
    }

    /// Follows `bytes` until vte is surely back between sequences; the bytes read.
    fn until_ground(&mut self, bytes: &[u8]) -> usize {
        for (i, &b) in bytes.iter().enumerate() {
            *self = self.next(b);
            if *self == Seq::Ground {
                return i + 1;
            }
        }
        bytes.len()
    }
}

/// The screen as vte's performer, with where its lines go.
struct Drawing<'a, S> {
    screen: &'a mut Screen,
    sink: &'a mut S,
}

impl<S: Sink> Perform for Drawing<'_, S> {
    fn print(&mut self, c: char) {
        self.screen.print(c, self.sink);
    }

    fn execute(&mut self, byte: u8) {
        self.screen.execute(byte, self.sink);
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        if ignore || !intermediates.is_empty() {
            return;
        }
        let first = params.iter().next().and_then(|p| p.first().copied()).unwrap_or(0) as usize;
        self.screen.csi(first, action, self.sink);
    }
}

/// Normalises terminal output fed in chunks of bytes: [`push`](Self::push) returns the lines
/// each chunk finished, [`finish`](Self::finish) the last one.
pub struct TerminalNormalizer {
    parser: Parser,
    /// Where the parser stands (see [`Seq`]).
    seq: Seq,
    screen: Screen,
    /// Plain text may pass the parser (off only to test that it changes nothing).
    fast: bool,
    /// Decodes the bytes before vte sees them: invalid UTF-8 reads as U+FFFD, each maximal
    /// invalid subpart once, as `buf.toString()` reads it (vte would read some stray bytes as
    /// C1 controls, and loses a char after an invalid byte in a cut sequence), and vte is
    /// never given a cut sequence.
    decoder: Utf8Stream,
}

impl TerminalNormalizer {
    pub fn new(options: Normalize) -> Self {
        TerminalNormalizer {
            parser: Parser::new(),
            seq: Seq::Ground,
            screen: Screen::new(options),
            fast: true,
            decoder: Utf8Stream::default(),
        }
    }

    /// A normaliser that gives every byte to the parser: the same text, slower. For tests.
    #[doc(hidden)]
    pub fn parser_only(options: Normalize) -> Self {
        TerminalNormalizer { fast: false, ..Self::new(options) }
    }

    /// Bytes held for the line being drawn (its cells, and its text on the way out): at most
    /// a few screen lines, whatever the input. (The parser's own buffers and a cut UTF-8
    /// sequence are of fixed size.)
    pub fn held_bytes(&self) -> usize {
        let line = &self.screen.line;
        line.text.capacity() + line.chars.capacity() * size_of::<char>() + self.screen.encoded.capacity()
    }

    /// Feeds `bytes`; appends to `out` the lines they finished, each with its `\n`.
    pub fn push(&mut self, bytes: &[u8], out: &mut String) {
        self.push_to(bytes, out);
    }

    /// Feeds `bytes`; gives `sink` the lines they finished, each with its `\n`, in pieces
    /// of at most one screen line or one run of input.
    pub fn push_to(&mut self, bytes: &[u8], sink: &mut impl Sink) {
        let mut decoder = std::mem::take(&mut self.decoder);
        decoder.push(bytes, &mut |valid: &[u8]| self.feed(valid, sink));
        self.decoder = decoder;
    }

    /// Valid UTF-8, cut only between chars.
    fn feed(&mut self, mut bytes: &[u8], sink: &mut impl Sink) {
        while !bytes.is_empty() {
            let parsed = if self.seq != Seq::Ground {
                self.seq.until_ground(bytes)
            } else if !self.fast {
                bytes.len()
            } else {
                let (plain, no_newline) = plain_len(bytes);
                if plain > 0 {
                    debug_assert!(std::str::from_utf8(&bytes[..plain]).is_ok());
                    // SAFETY: `Utf8Stream` gives only valid UTF-8, and a run ends before an
                    // ASCII byte or a C1 char, on a char boundary.
                    let run = unsafe { std::str::from_utf8_unchecked(&bytes[..plain]) };
                    self.screen.plain(run, no_newline, sink);
                    bytes = &bytes[plain..];
                }
                // What ended the run, if anything.
                let Some(&next) = bytes.first() else { break };
                match next {
                    0x1B if !self.screen.options.ansi => 1,
                    0x1B => {
                        if let Some((len, first, action)) = simple_csi(bytes) {
                            // What vte would dispatch, without the trip through it.
                            self.screen.csi(first, action, sink);
                            bytes = &bytes[len..];
                            continue;
                        }
                        self.seq = Seq::Escape;
                        1 + self.seq.until_ground(&bytes[1..])
                    }
                    // A control char: what vte's ground state would execute.
                    0xC2 => {
                        self.screen.execute(bytes[1], sink);
                        bytes = &bytes[2..];
                        continue;
                    }
                    byte => {
                        self.screen.execute(byte, sink);
                        bytes = &bytes[1..];
                        continue;
                    }
                }
            };
            self.parse(&bytes[..parsed], sink);
            bytes = &bytes[parsed..];
        }
    }

    fn parse(&mut self, bytes: &[u8], sink: &mut impl Sink) {
        if self.screen.options.ansi {
            return self.parser.advance(&mut Drawing { screen: &mut self.screen, sink }, bytes);
        }
        // With ansi off, ESC is a control char like any other: shown, and its sequence is
        // text. The parser never sees it, so it never leaves the ground state.
        for part in bytes.split_inclusive(|&b| b == 0x1B) {
            let (text, escape) = match part.split_last() {
                Some((0x1B, text)) => (text, true),
                _ => (part, false),
            };
            self.parser.advance(&mut Drawing { screen: &mut self.screen, sink }, text);
            if escape {
                self.screen.earn(1);
                self.screen.flush_cr(sink);
                self.screen.visible('\u{1b}', sink);
            }
        }
    }

    /// Appends what [`finish`](Self::finish) would append now, leaving this normaliser as it
    /// is: the line being drawn as it stands (an escape or UTF-8 sequence still cut off by the
    /// end of the last chunk is left out).
    pub fn unfinished(&self, out: &mut String) {
        self.screen.line.text_to(out);
        if self.screen.pending_cr {
            out.push('\n');
        }
    }

    /// Ends the input: appends the unfinished line (without a `\n`), if any.
    pub fn finish(self, out: &mut String) {
        self.finish_to(out);
    }

    /// Ends the input: gives `sink` the unfinished line (without a `\n`), if any.
    pub fn finish_to(mut self, sink: &mut impl Sink) {
        // A UTF-8 sequence cut off by the end is one U+FFFD, as when decoded whole; an
        // escape sequence cut off by the end is dropped, as a terminal drops it.
        let mut decoder = std::mem::take(&mut self.decoder);
        decoder.finish(&mut |valid: &[u8]| self.feed(valid, sink));
        self.screen.flush_cr(sink);
        if self.screen.line.len > 0 {
            self.screen.give_out(false, sink);
        }
    }
}

/// The length in UTF-16 units of `text` as a terminal would finally show it, without
/// building that text: what a caller checks before it asks for text that may be longer than
/// it can hold.
pub fn normalized_utf16_len(text: &[u8], options: Normalize) -> u64 {
    struct Count(u64);
    impl Sink for Count {
        fn text(&mut self, s: &str) {
            self.0 += crate::measure::measure_str(s).chars;
        }
    }
    let mut count = Count(0);
    let mut n = TerminalNormalizer::new(options);
    n.push_to(text, &mut count);
    n.finish_to(&mut count);
    count.0
}

/// `text` as a terminal would finally show it (see the module docs).
pub fn normalize_terminal_output(text: &[u8], options: Normalize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut n = TerminalNormalizer::new(options);
    n.push(text, &mut out);
    n.finish(&mut out);
    out
}
