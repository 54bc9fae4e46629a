//! A JSON text held as UTF-8 bytes, on arbitrary bytes: the skeleton never panics; when it
//! takes a text, every long string lies inside it between quotes, the skeleton is the text
//! with exactly those strings written as markers, every decoder takes them, widths and
//! escape flags say what the decoded units hold, an ASCII string decodes in place to what
//! `decode_latin1` gives, and serde_json agrees on which texts are JSON except where it is
//! stricter than `JSON.parse` (lone surrogates, numbers out of f64 range, deep nesting).
//! Run: `cargo +nightly fuzz run json_line` in crates/toolclamp-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolclamp_core::json_line::{
    decode_latin1, decode_units, decode_utf16, skeleton, unescape_ascii_in_place, LongString, Width,
};

const MARKER: &[u8] = b"#@";

/// What serde_json refuses and `JSON.parse` takes.
fn stricter_than_json_parse(error: &serde_json::Error) -> bool {
    let message = error.to_string();
    ["lone leading surrogate", "unexpected end of hex escape", "number out of range", "recursion limit exceeded"]
        .iter()
        .any(|m| message.contains(m))
}

fn check_string(text: &[u8], string: &LongString) {
    let content = string.content(text);
    let units = decode_utf16(content);
    let mut streamed = Vec::new();
    decode_units(content, |u| streamed.push(u));
    assert_eq!(streamed, units);
    let width = match units.iter().max() {
        Some(&u) if u >= 0x100 => Width::Wide,
        Some(&u) if u >= 0x80 => Width::Latin1,
        _ => Width::Ascii,
    };
    assert_eq!(string.width, width, "{content:?}");
    assert_eq!(string.escaped, content.contains(&b'\\'), "{content:?}");
    if width == Width::Wide {
        return;
    }
    let latin1 = decode_latin1(content);
    assert_eq!(latin1, units.iter().map(|&u| u as u8).collect::<Vec<u8>>());
    if width == Width::Ascii {
        let mut copy = text.to_vec();
        let len = unescape_ascii_in_place(&mut copy, string);
        assert_eq!(&copy[string.start..string.start + len], &latin1[..]);
        assert_eq!(&copy[..string.start], &text[..string.start]);
        assert_eq!(&copy[string.end..], &text[string.end..]);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, text)) = data.split_first() else { return };
    let min_len = if first == 255 { usize::MAX } else { (first % 32) as usize };
    let serde = serde_json::from_slice::<serde_json::Value>(text);
    let Some(skel) = skeleton(text, min_len, MARKER) else {
        assert!(serde.is_err(), "serde_json took what JSON.parse refuses: {:?}", String::from_utf8_lossy(text));
        return;
    };
    if let Err(error) = &serde {
        assert!(stricter_than_json_parse(error), "{error}: {:?}", String::from_utf8_lossy(text));
    }
    // The skeleton is the text with each long string (in order, apart) as its marker.
    let mut expected = Vec::with_capacity(text.len());
    let mut copied = 0;
    for (k, string) in skel.strings.iter().enumerate() {
        assert!(copied < string.start && string.start <= string.end && string.end < text.len());
        assert_eq!((text[string.start - 1], text[string.end]), (b'"', b'"'));
        assert!(string.end - string.start >= min_len);
        expected.extend_from_slice(&text[copied..string.start]);
        expected.extend_from_slice(MARKER);
        expected.extend_from_slice(k.to_string().as_bytes());
        copied = string.end;
        check_string(text, string);
    }
    expected.extend_from_slice(&text[copied..]);
    assert_eq!(skel.text, expected);
    // The skeleton is itself a text JSON.parse takes.
    let again = skeleton(&skel.text, usize::MAX, MARKER).expect("the skeleton reads");
    assert!(again.strings.is_empty() && again.text == skel.text);
});
