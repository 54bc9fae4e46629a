//! Terminal normalisation on arbitrary bytes: never panics, gives the same text whatever
//! the split into two chunks and whether plain text passes the parser or not, leaves no
//! escape or raw `\r`, and is never more than `MAX_GROWTH` bytes a byte plus a screen line.
//! Run: `cargo +nightly fuzz run terminal` in crates/toolclamp-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolclamp_core::{MAX_GROWTH, WIDTH};
use toolclamp_core::{normalize_terminal_output, Normalize, TerminalNormalizer};

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let (head, text) = data.split_at(2);
    let bit = |i: u8| head[1] & (1 << i) == 0;
    let options = Normalize { ansi: bit(0), carriage_returns: bit(1), backspaces: bit(2), controls: bit(3) };
    let whole = normalize_terminal_output(text, options);
    assert!(whole.len() <= MAX_GROWTH * text.len() + WIDTH, "{} bytes from {}", whole.len(), text.len());
    if options == Normalize::default() {
        assert!(!whole.contains('\x1b') && !whole.contains('\r'));
    }
    let at = usize::from(head[0]) * text.len() / 255;
    for mut n in [TerminalNormalizer::new(options), TerminalNormalizer::parser_only(options)] {
        let mut out = String::new();
        n.push(&text[..at], &mut out);
        n.push(&text[at..], &mut out);
        n.finish(&mut out);
        assert_eq!(out, whole);
    }
});
