//! Terminal text written to break the normaliser: what the terminal and capture tests
//! feed it, and a plain reference of what the normaliser must give.
#![allow(dead_code)]

use proptest::prelude::*;
use toolclamp_core::Normalize;

/// Hostile terminal text: far moves, C1 and C0 controls (which grow when shown), cut and
/// unterminated sequences of every kind, a DCS string that a UTF-8 byte 0x9C ends in vte,
/// chars that share C1's first byte, invalid bytes, and long rows.
pub fn hostile_text() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => Just(b"\x1b[65535C".to_vec()),
        2 => Just(b"\x1b[999G".to_vec()),
        2 => "[a-z ]{1,8}".prop_map(String::into_bytes),
        2 => Just(b"x".to_vec()),
        3 => Just(b"\n".to_vec()),
        1 => Just(b"\r".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => Just(b"\x08".to_vec()),
        1 => Just(b"\t".to_vec()),
        1 => Just("\u{85}".as_bytes().to_vec()),
        1 => Just("\u{9b}31m".as_bytes().to_vec()),
        1 => Just("°é日😀".as_bytes().to_vec()),
        1 => Just(b"\x07\x00\x06\x7f".to_vec()),
        1 => Just(b"\x1b".to_vec()),
        1 => Just(b"\x1b[".to_vec()),
        1 => Just(b"\x1b[1;2".to_vec()),
        1 => Just(b"\x1b[?25h".to_vec()),
        1 => Just(b"\x1b[2K".to_vec()),
        1 => Just(b"\x1b[K".to_vec()),
        1 => Just(b"\x1b[1K".to_vec()),
        1 => Just(b"\x1b[3D".to_vec()),
        1 => Just(b"\x1b[5G".to_vec()),
        1 => Just(b"\x1b]0;title".to_vec()),
        1 => Just(b"\x1b\\".to_vec()),
        1 => Just(b"\x1bPq".to_vec()),
        1 => Just(b"\x1bP1$r".to_vec()),
        1 => Just("Ü".as_bytes().to_vec()),
        1 => Just(b"\x1bX".to_vec()),
        1 => Just(b"\x1b_".to_vec()),
        1 => Just(b"\x1b^".to_vec()),
        1 => Just(b"\x1b[38:5:1m\x1b[:7C\x1b[5:3C".to_vec()),
        1 => Just(b"\x1b[12$C\x1b[>5C\x1b[5 C".to_vec()),
        1 => Just(b"\x1b[1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16;17C".to_vec()),
        1 => Just(b"\x1b[99999999999C".to_vec()),
        1 => Just(b"\x1b(B\x1b#8".to_vec()),
        1 => Just(b"\x18\x1a".to_vec()),
        1 => prop_oneof![Just(vec![0x80]), Just(vec![0x9c]), Just(vec![0xC2]), Just(vec![0xE6, 0x97]), Just(vec![0xFF])],
        1 => (1usize..3_000).prop_map(|n| "y".repeat(n).into_bytes()),
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

pub fn options() -> impl Strategy<Value = Normalize> {
    (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(ansi, carriage_returns, backspaces, controls)| Normalize { ansi, carriage_returns, backspaces, controls },
    )
}

/// The normaliser as first written, plainly: every byte through vte, the line a `Vec` of
/// chars, blanks paid from the allowance of the module docs. What the fast paths and the
/// line kept as text must give.
pub fn reference(text: &[u8], options: Normalize) -> String {
    use toolclamp_core::{BLANKS_PER_READ, WIDTH};
    use vte::{Params, Parser, Perform};

    struct Screen {
        cells: Vec<char>,
        cursor: usize,
        out: String,
        options: Normalize,
        pending_cr: bool,
        blanks: usize,
    }

    impl Screen {
        fn earn(&mut self) {
            self.blanks = (self.blanks + BLANKS_PER_READ).min(WIDTH);
        }
        fn put(&mut self, c: char) {
            if self.cursor > self.cells.len() {
                let blanks = (self.cursor - self.cells.len()).min(self.blanks);
                self.blanks -= blanks;
                self.cells.resize(self.cells.len() + blanks, ' ');
                self.cursor = self.cells.len();
            }
            if self.cursor < self.cells.len() {
                self.cells[self.cursor] = c;
            } else {
                self.cells.push(c);
            }
            self.cursor += 1;
            if self.cursor >= WIDTH {
                self.out.extend(&self.cells);
                self.cells.clear();
                self.cursor = 0;
            }
        }
        fn end_line(&mut self) {
            self.out.extend(&self.cells);
            self.out.push('\n');
            self.cells.clear();
            self.cursor = 0;
        }
        fn flush_cr(&mut self) {
            if std::mem::take(&mut self.pending_cr) {
                self.end_line();
            }
        }
        fn visible(&mut self, c: char) {
            if !self.options.controls {
                return;
            }
            let shown = match c as u32 {
                code @ 0..=0x1f => format!("^{}", char::from_u32(code + 0x40).unwrap()),
                0x7f => "^?".to_string(),
                code => format!("<U+{code:04X}>"),
            };
            shown.chars().for_each(|c| self.put(c));
        }
    }

    impl Perform for Screen {
        fn print(&mut self, c: char) {
            self.earn();
            self.flush_cr();
            self.put(c);
        }
        fn execute(&mut self, byte: u8) {
            self.earn();
            match byte {
                b'\n' => {
                    self.pending_cr = false;
                    self.end_line();
                }
                b'\r' if self.options.carriage_returns => self.cursor = 0,
                b'\r' => {
                    self.flush_cr();
                    self.pending_cr = true;
                }
                0x08 if self.options.backspaces => {
                    self.flush_cr();
                    self.cursor = self.cursor.saturating_sub(1);
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
            self.earn();
            self.flush_cr();
            let first = params.iter().next().and_then(|p| p.first().copied()).unwrap_or(0) as usize;
            match (action, first) {
                ('K', 0) => self.cells.truncate(self.cursor),
                ('K', 1) if !self.cells.is_empty() => {
                    let end = self.cursor.min(self.cells.len() - 1);
                    self.cells[..=end].fill(' ');
                }
                ('K', 2) => self.cells.clear(),
                ('C', n) => self.cursor = (self.cursor + n.max(1)).min(WIDTH - 1),
                ('D', n) => self.cursor = self.cursor.saturating_sub(n.max(1)),
                ('G', n) => self.cursor = (n.max(1) - 1).min(WIDTH - 1),
                _ => {}
            }
        }
    }

    let decoded = String::from_utf8_lossy(text);
    let mut screen =
        Screen { cells: Vec::new(), cursor: 0, out: String::new(), options, pending_cr: false, blanks: WIDTH };
    let mut parser = Parser::new();
    if options.ansi {
        parser.advance(&mut screen, decoded.as_bytes());
    } else {
        // ESC is a control char like any other: shown, and its sequence is text.
        for (i, part) in decoded.as_bytes().split(|&b| b == 0x1b).enumerate() {
            if i > 0 {
                screen.earn();
                screen.flush_cr();
                screen.visible('\x1b');
            }
            parser.advance(&mut screen, part);
        }
    }
    screen.flush_cr();
    let cells = std::mem::take(&mut screen.cells);
    screen.out.extend(&cells);
    screen.out
}
