//! The pre-tokenizer: pieces as OpenAI's patterns split them (the expected splits are those
//! of the patterns run by JavaScript's regular expressions), and the promise the exact cuts
//! rest on: a piece is the same in any text that agrees with it up to where its match read.

use proptest::prelude::*;
use toolclamp_core::{Pattern, Split, Units};

use crate::common::proptest_config;
use crate::reference::utf16;

fn pieces(pattern: Pattern, text: &str) -> Vec<String> {
    let units = utf16(text);
    Split::new(&units[..], pattern, 0).map(|p| String::from_utf16_lossy(&units[p.start..p.end])).collect()
}

#[test]
fn splits_as_the_patterns_do() {
    let cases: &[(Pattern, &str, &[&str])] = &[
        (Pattern::O200k, "Hello, world! It's 2026.", &["Hello", ",", " world", "!", " It's", " ", "202", "6", "."]),
        (Pattern::O200k, "don'T we'LL", &["don'T", " we'LL"]),
        (Pattern::O200k, "HTTPServer parseJSON", &["HTTPServer", " parse", "JSON"]),
        (Pattern::O200k, "  indented\n\n  code();\r\n", &[" ", " indented", "\n\n", " ", " code", "();\r\n"]),
        (Pattern::O200k, "12345678 ½٣", &["123", "456", "78", " ", "½٣"]),
        (Pattern::O200k, "ÉCOLE école e\u{301}cole", &["ÉCOLE", " école", " e\u{301}cole"]),
        (Pattern::O200k, "a/b//c\n/d", &["a", "/b", "//", "c", "\n", "/d"]),
        (Pattern::O200k, "trailing  \n  ", &["trailing", "  \n", "  "]),
        (Pattern::O200k, "中文字符，标点。", &["中文字符", "，标点", "。"]),
        (Pattern::O200k, "<|endoftext|>", &["<|", "endoftext", "|>"]),
        (Pattern::O200k, "\u{301}\u{301}x", &["\u{301}\u{301}x"]),
        (Pattern::O200k, "tab\t\tend", &["tab", "\t", "\tend"]),
        (Pattern::O200k, "emoji 😀👍🏽!", &["emoji", " 😀👍🏽!"]),
        (
            Pattern::Cl100k,
            "Hello, world! It's 2026.",
            &["Hello", ",", " world", "!", " It", "'s", " ", "202", "6", "."],
        ),
        (Pattern::Cl100k, "don'T we'LL", &["don", "'T", " we", "'LL"]),
        (Pattern::Cl100k, "HTTPServer parseJSON", &["HTTPServer", " parseJSON"]),
        (Pattern::Cl100k, "  indented\n\n  code();\r\n", &[" ", " indented", "\n\n", " ", " code", "();\r\n"]),
        (Pattern::Cl100k, "12345678 ½٣", &["123", "456", "78", " ", "½٣"]),
        (Pattern::Cl100k, "ÉCOLE école e\u{301}cole", &["ÉCOLE", " école", " e", "\u{301}cole"]),
        (Pattern::Cl100k, "a/b//c\n/d", &["a", "/b", "//", "c", "\n", "/d"]),
        (Pattern::Cl100k, "trailing  \n  ", &["trailing", "  \n  "]),
        (Pattern::Cl100k, "中文字符，标点。", &["中文字符", "，标点", "。"]),
        (Pattern::Cl100k, "<|endoftext|>", &["<|", "endoftext", "|>"]),
        (Pattern::Cl100k, "\u{301}\u{301}x", &["\u{301}\u{301}", "x"]),
        (Pattern::Cl100k, "tab\t\tend", &["tab", "\t", "\tend"]),
        (Pattern::Cl100k, "emoji 😀👍🏽!", &["emoji", " 😀👍🏽!"]),
    ];
    for &(pattern, text, want) in cases {
        assert_eq!(pieces(pattern, text), want, "{pattern:?} {text:?}");
    }
}

#[test]
fn white_space_is_javascripts() {
    // \s includes U+FEFF and not U+0085 (NEL), as in JavaScript.
    assert_eq!(pieces(Pattern::O200k, "a\u{FEFF}\u{FEFF}b"), ["a", "\u{FEFF}", "\u{FEFF}b"]);
    assert_eq!(pieces(Pattern::O200k, "a\u{85}\u{85}b"), ["a", "\u{85}\u{85}", "b"]);
}

#[test]
fn a_lone_surrogate_is_a_char_of_no_class() {
    let units = [b'a' as u16, 0xD800, 0xD800, b' ' as u16, 0xDC00];
    let ends: Vec<usize> = Split::new(&units[..], Pattern::O200k, 0).map(|p| p.end).collect();
    assert_eq!(ends, [1, 3, 5]);
}

#[test]
fn a_lone_high_surrogate_read_what_follows_it() {
    // Lone only because of the end (or the unit after it): a text that goes on with a low
    // surrogate pairs it, so its piece depends on that unit too.
    for pattern in [Pattern::O200k, Pattern::Cl100k] {
        let units = [0xD55C, 0xD852];
        let last = Split::new(&units[..], pattern, 0).last().unwrap();
        assert_eq!(last.seen, units.len() + 1, "{pattern:?}");
        let units = [0xD852, b'a' as u16, b'b' as u16];
        let first = Split::new(&units[..], pattern, 0).next().unwrap();
        assert!(first.seen >= 2, "{pattern:?}: {first:?}");
    }
}

#[test]
fn one_byte_strings_and_utf8_split_alike() {
    let text = "Ünïcödé façade: 12½ µs — naïve";
    let latin1: Vec<u8> = "Üñï façade: 12½ µs naïve ÿ".chars().map(|c| c as u32 as u8).collect();
    for pattern in [Pattern::O200k, Pattern::Cl100k] {
        let from_utf8: Vec<usize> =
            Split::new(text, pattern, 0).map(|p| text[..p.end].encode_utf16().count()).collect();
        let units = utf16(text);
        let from_utf16: Vec<usize> = Split::new(&units[..], pattern, 0).map(|p| p.end).collect();
        assert_eq!(from_utf8, from_utf16);
        let as_string: String = latin1.iter().map(|&b| b as char).collect();
        let one_byte: Vec<usize> = Split::new(&Units::new(&latin1[..]), pattern, 0).map(|p| p.end).collect();
        let units = utf16(&as_string);
        assert_eq!(one_byte, Split::new(&units[..], pattern, 0).map(|p| p.end).collect::<Vec<_>>());
    }
}

/// Chars that exercise every alternative of both patterns.
fn token_text() -> impl Strategy<Value = Vec<u16>> {
    let atom = prop_oneof![
        Just(" "),
        Just("  "),
        Just("\n"),
        Just("\r\n"),
        Just("\r"),
        Just("\t"),
        Just("\u{3000}"),
        Just("a"),
        Just("Ab"),
        Just("ABC"),
        Just("xyz"),
        Just("'s"),
        Just("'LL"),
        Just("'"),
        Just("1"),
        Just("2345"),
        Just("é"),
        Just("\u{301}"),
        Just("ǅ"),
        Just("ʰ"),
        Just("中"),
        Just("😀"),
        Just("/"),
        Just("."),
        Just("!?"),
    ];
    prop::collection::vec(prop_oneof![9 => atom.prop_map(utf16), 1 => any::<u16>().prop_map(|u| vec![u])], 0..40)
        .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(proptest_config("tests/proptest-regressions/tokens_split.txt", 2000))]

    /// Pieces tile the text, and each is the same in a text that agrees with it up to where
    /// its match read, whatever follows there.
    #[test]
    fn a_piece_depends_only_on_what_it_read(text in token_text(), tail in token_text(), pattern in prop_oneof![Just(Pattern::O200k), Just(Pattern::Cl100k)]) {
        let all: Vec<_> = Split::new(&text[..], pattern, 0).collect();
        let mut pos = 0;
        for piece in &all {
            prop_assert_eq!(piece.start, pos);
            prop_assert!(piece.end > piece.start && piece.seen >= piece.end);
            pos = piece.end;
        }
        prop_assert_eq!(pos, text.len());
        for piece in all.iter().filter(|p| p.seen <= text.len()) {
            let mut other = text[..piece.seen].to_vec();
            other.extend_from_slice(&tail);
            let again = Split::new(&other[..], pattern, piece.start).next().unwrap();
            prop_assert_eq!(again.end, piece.end);
        }
    }
}
