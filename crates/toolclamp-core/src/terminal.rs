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

/// The line being drawn: cells and a cursor.
#[derive(Default)]
struct Line {
    cells: Vec<char>,
    cursor: usize,
}

impl Line {
    fn put(&mut self, c: char) {
        if self.cursor < self.cells.len() {
            self.cells[self.cursor] = c;
        } else {
            // A cursor moved past the end (CSI C, CSI G) leaves blanks behind it.
            self.cells.resize(self.cursor, ' ');
            self.cells.push(c);
        }
        self.cursor += 1;
    }
}

struct Screen<'o> {
    line: Line,
    out: &'o mut String,
    options: Normalize,
    /// A `\r` not yet applied: with `carriage_returns` off it is a line break, unless a `\n`
    /// follows (the pair is one break).
    pending_cr: bool,
}

impl Screen<'_> {
    /// Puts a char at the cursor; a full row wraps.
    fn put(&mut self, c: char) {
        self.line.put(c);
        if self.line.cursor >= WIDTH {
            self.out.extend(&self.line.cells);
            self.line = Line::default();
        }
    }

    fn put_str(&mut self, s: &str) {
        for c in s.chars() {
            self.put(c);
        }
    }

    fn end_line(&mut self) {
        self.out.extend(&self.line.cells);
        self.out.push('\n');
        self.line = Line::default();
    }

    fn flush_cr(&mut self) {
        if self.pending_cr {
            self.pending_cr = false;
            self.end_line();
        }
    }

    fn visible(&mut self, c: char) {
        if !self.options.controls {
            return;
        }
        let code = c as u32;
        match code {
            0..=0x1f => {
                self.put('^');
                self.put(char::from_u32(code + 0x40).unwrap_or('?'));
            }
            0x7f => self.put_str("^?"),
            _ => self.put_str(&format!("<U+{code:04X}>")),
        }
    }
}

impl Perform for Screen<'_> {
    fn print(&mut self, c: char) {
        self.flush_cr();
        if ('\u{80}'..='\u{9f}').contains(&c) {
            self.visible(c);
        } else {
            self.put(c);
        }
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' => {
                self.pending_cr = false;
                self.end_line();
            }
            b'\r' if self.options.carriage_returns => self.line.cursor = 0,
            b'\r' => {
                self.flush_cr();
                self.pending_cr = true;
            }
            0x08 if self.options.backspaces => {
                self.flush_cr();
                self.line.cursor = self.line.cursor.saturating_sub(1);
            }
            b'\t' => {
                self.flush_cr();
                self.put('\t');
            }
            _ => {
                self.flush_cr();
                self.visible(char::from(byte));
            }
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: char) {
        if ignore || !intermediates.is_empty() {
            return;
        }
        self.flush_cr();
        let first = params.iter().next().and_then(|p| p.first().copied()).unwrap_or(0) as usize;
        let line = &mut self.line;
        match action {
            'K' => match first {
                0 => line.cells.truncate(line.cursor),
                1 => {
                    let end = line.cursor.min(line.cells.len().saturating_sub(1));
                    if !line.cells.is_empty() {
                        line.cells[..=end].fill(' ');
                    }
                }
                2 => line.cells.clear(),
                _ => {}
            },
            'C' => line.cursor = line.cursor.saturating_add(first.max(1)).min(WIDTH - 1),
            'D' => line.cursor = line.cursor.saturating_sub(first.max(1)),
            'G' => line.cursor = (first.max(1) - 1).min(WIDTH - 1),
            _ => {}
        }
    }
}

/// Normalises terminal output fed in chunks of bytes: [`push`](Self::push) returns the lines
/// each chunk finished, [`finish`](Self::finish) the last one.
pub struct TerminalNormalizer {
    parser: Parser,
    line: Line,
    options: Normalize,
    pending_cr: bool,
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
            line: Line::default(),
            options,
            pending_cr: false,
            decoder: Utf8Stream::default(),
        }
    }

    /// Feeds `bytes`; appends to `out` the lines they finished, each with its `\n`.
    pub fn push(&mut self, bytes: &[u8], out: &mut String) {
        let mut decoder = std::mem::take(&mut self.decoder);
        decoder.push(bytes, &mut |valid: &[u8]| self.feed(valid, out));
        self.decoder = decoder;
    }

    fn feed(&mut self, bytes: &[u8], out: &mut String) {
        if !self.options.ansi {
            // Escapes kept: each byte that would start one is shown as `^[`, the rest as text.
            return self.feed_raw(bytes, out);
        }
        let mut screen =
            Screen { line: std::mem::take(&mut self.line), out, options: self.options, pending_cr: self.pending_cr };
        self.parser.advance(&mut screen, bytes);
        self.line = screen.line;
        self.pending_cr = screen.pending_cr;
    }

    fn feed_raw(&mut self, bytes: &[u8], out: &mut String) {
        // With ansi off, ESC is a control char like any other: shown, and its sequence is
        // text. The parser still decodes UTF-8 across chunks.
        let mut screen =
            Screen { line: std::mem::take(&mut self.line), out, options: self.options, pending_cr: self.pending_cr };
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            if b == 0x1b {
                self.parser.advance(&mut screen, &bytes[start..i]);
                screen.flush_cr();
                screen.visible('\u{1b}');
                start = i + 1;
            }
        }
        self.parser.advance(&mut screen, &bytes[start..]);
        self.line = screen.line;
        self.pending_cr = screen.pending_cr;
    }

    /// Appends what [`finish`](Self::finish) would append now, leaving this normaliser as it
    /// is: the line being drawn as it stands (an escape or UTF-8 sequence still cut off by the
    /// end of the last chunk is left out).
    pub fn unfinished(&self, out: &mut String) {
        if self.pending_cr {
            out.extend(&self.line.cells);
            out.push('\n');
        } else {
            out.extend(&self.line.cells);
        }
    }

    /// Ends the input: appends the unfinished line (without a `\n`), if any.
    pub fn finish(mut self, out: &mut String) {
        // A UTF-8 sequence cut off by the end is one U+FFFD, as when decoded whole; an
        // escape sequence cut off by the end is dropped, as a terminal drops it.
        let mut decoder = std::mem::take(&mut self.decoder);
        decoder.finish(&mut |valid: &[u8]| self.feed(valid, out));
        let mut screen =
            Screen { line: std::mem::take(&mut self.line), out, options: self.options, pending_cr: self.pending_cr };
        screen.flush_cr();
        if !screen.line.cells.is_empty() {
            screen.end_line();
            screen.out.pop();
        }
    }
}

/// `text` as a terminal would finally show it (see the module docs).
pub fn normalize_terminal_output(text: &[u8], options: Normalize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut n = TerminalNormalizer::new(options);
    n.push(text, &mut out);
    n.finish(&mut out);
    out
}
