//! Terminal text written to break the normaliser: what the terminal and capture tests
//! feed it.

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
        1 => Just(b"\x1b[1K".to_vec()),
        1 => Just(b"\x1b[3D".to_vec()),
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
