//! Terminal normalisation on arbitrary bytes: never panics, gives the same text whatever
//! the split into two chunks, and leaves no escape or raw `\r`.
//! Run: `cargo +nightly fuzz run terminal` in crates/toolclamp-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolclamp_core::{normalize_terminal_output, Normalize, TerminalNormalizer};

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    let (head, text) = data.split_at(1);
    let whole = normalize_terminal_output(text, Normalize::default());
    assert!(!whole.contains('\x1b') && !whole.contains('\r'));
    let at = usize::from(head[0]) * text.len() / 255;
    let mut n = TerminalNormalizer::new(Normalize::default());
    let mut out = String::new();
    n.push(&text[..at], &mut out);
    n.push(&text[at..], &mut out);
    n.finish(&mut out);
    assert_eq!(out, whole);
});
