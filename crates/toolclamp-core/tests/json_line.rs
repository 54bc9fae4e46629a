//! A JSON text read as UTF-8 bytes without copying its long strings: on texts as users
//! write them (nested containers, duplicate keys, numbers in every spelling, every escape,
//! lone surrogates, raw non-ASCII, whitespace anywhere) the skeleton with its long strings
//! put back is the value a plain reading of the whole text gives, each string's width and
//! escape flag say what it decodes to, and ASCII strings decode in place; on broken texts
//! it refuses exactly what `JSON.parse` refuses (serde_json as the judge, where it is not
//! stricter than `JSON.parse`).

use crate::common;

use common::proptest_config;
use proptest::prelude::*;
use toolclamp_core::json_line::{
    decode_latin1, decode_units, decode_utf16, skeleton, unescape_ascii_in_place, LongString, Skeleton, Width,
};

/// No generated string holds a `#`, raw or escaped: a string value starting with it in a
/// skeleton is a marker.
const MARKER: &[u8] = b"#";

// ---------------------------------------------------------------------------------------
// A reference reading of a JSON text: strings as UTF-16 units, other tokens as written
// ---------------------------------------------------------------------------------------

/// A JSON value: strings decoded to UTF-16 units (lone surrogates kept), numbers, literals
/// and keys as written, members in order with duplicates kept.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Token(String),
    Str(Vec<u16>),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

/// A reading of `text` as `JSON.parse` reads it, and the length as written of each string
/// value's content, in order; `None` when `JSON.parse` would throw.
fn read(text: &[u8]) -> Option<(Value, Vec<usize>)> {
    let text = std::str::from_utf8(text).ok()?;
    let mut reader = RefReader { chars: text.char_indices().collect(), end: text.len(), i: 0, value_lens: Vec::new() };
    let value = reader.value()?;
    reader.ws();
    (reader.i == reader.chars.len()).then_some((value, reader.value_lens))
}

struct RefReader {
    chars: Vec<(usize, char)>,
    end: usize,
    i: usize,
    value_lens: Vec<usize>,
}

impl RefReader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).map(|&(_, c)| c)
    }

    fn offset(&self) -> usize {
        self.chars.get(self.i).map_or(self.end, |&(o, _)| o)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.ws();
        let found = self.peek() == Some(c);
        self.i += found as usize;
        found
    }

    fn value(&mut self) -> Option<Value> {
        self.ws();
        match self.peek()? {
            '[' => {
                self.i += 1;
                let mut items = Vec::new();
                if !self.eat(']') {
                    loop {
                        items.push(self.value()?);
                        if self.eat(']') {
                            break;
                        }
                        self.eat(',').then_some(())?;
                    }
                }
                Some(Value::Array(items))
            }
            '{' => {
                self.i += 1;
                let mut members = Vec::new();
                if !self.eat('}') {
                    loop {
                        self.ws();
                        let from = self.i;
                        (self.peek() == Some('"')).then_some(())?;
                        self.string()?;
                        let key: String = self.chars[from..self.i].iter().map(|&(_, c)| c).collect();
                        self.eat(':').then_some(())?;
                        members.push((key, self.value()?));
                        if self.eat('}') {
                            break;
                        }
                        self.eat(',').then_some(())?;
                    }
                }
                Some(Value::Object(members))
            }
            '"' => {
                let from = self.offset() + 1;
                let units = self.string()?;
                self.value_lens.push(self.offset() - 1 - from);
                Some(Value::Str(units))
            }
            _ => {
                let from = self.i;
                while matches!(self.peek(), Some('a'..='z' | '0'..='9' | '-' | '+' | '.' | 'E')) {
                    self.i += 1;
                }
                let token: String = self.chars[from..self.i].iter().map(|&(_, c)| c).collect();
                (matches!(token.as_str(), "true" | "false" | "null") || is_number(&token))
                    .then_some(Value::Token(token))
            }
        }
    }

    /// The string at the quote under the cursor, decoded.
    fn string(&mut self) -> Option<Vec<u16>> {
        self.i += 1;
        let mut units = Vec::new();
        loop {
            let c = self.peek()?;
            self.i += 1;
            match c {
                '"' => return Some(units),
                '\\' => {
                    let e = self.peek()?;
                    self.i += 1;
                    let simple = match e {
                        '"' | '\\' | '/' => e as u16,
                        'b' => 8,
                        'f' => 12,
                        'n' => 10,
                        'r' => 13,
                        't' => 9,
                        'u' => {
                            let hex: String = self.chars.get(self.i..self.i + 4)?.iter().map(|&(_, c)| c).collect();
                            if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
                                return None;
                            }
                            self.i += 4;
                            u16::from_str_radix(&hex, 16).ok()?
                        }
                        _ => return None,
                    };
                    units.push(simple);
                }
                c if (c as u32) < 0x20 => return None,
                c => units.extend(c.encode_utf16(&mut [0; 2]).iter()),
            }
        }
    }
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, by splitting at the parts' marks.
fn is_number(token: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let unsigned = token.strip_prefix('-').unwrap_or(token);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((int, frac)) => (int, Some(frac)),
        None => (mantissa, None),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    digits(int) && (int == "0" || !int.starts_with('0')) && frac.is_none_or(digits) && exponent_ok
}

/// `shape` (a reading of a skeleton) with each marker string put back as its long string
/// of `text`, decoded; fails on a marker out of order.
fn put_back(shape: &mut Value, text: &[u8], strings: &[LongString], next: &mut usize) -> Result<(), TestCaseError> {
    match shape {
        Value::Str(units) if units.first() == Some(&(MARKER[0] as u16)) => {
            let marker: Vec<u16> = format!("#{next}").encode_utf16().collect();
            prop_assert_eq!(&*units, &marker, "markers come in order");
            let string = strings.get(*next).ok_or_else(|| TestCaseError::fail("a marker past the last string"))?;
            *units = decode_utf16(string.content(text));
            *next += 1;
        }
        Value::Array(items) => {
            for item in items {
                put_back(item, text, strings, next)?;
            }
        }
        Value::Object(members) => {
            for (_, value) in members {
                put_back(value, text, strings, next)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Whether a string of `value` starts as a marker does (a mutation can write one).
fn mentions_marker(value: &Value) -> bool {
    match value {
        Value::Str(units) => units.first() == Some(&(MARKER[0] as u16)),
        Value::Array(items) => items.iter().any(mentions_marker),
        Value::Object(members) => members.iter().any(|(_, v)| mentions_marker(v)),
        Value::Token(_) => false,
    }
}

// ---------------------------------------------------------------------------------------
// JSON texts as users write them
// ---------------------------------------------------------------------------------------

/// What a generated text may hold beyond what every JSON reader takes.
#[derive(Clone, Copy, Debug)]
struct Kinds {
    /// `\ud800` alone (JSON.parse takes it, serde_json does not).
    lone_surrogates: bool,
    /// Numbers past f64's range such as `1e400` (JSON.parse reads Infinity, serde_json fails).
    huge_numbers: bool,
}

fn ws() -> impl Strategy<Value = &'static str> {
    prop_oneof![8 => Just(""), 2 => Just(" "), 1 => Just("\n"), 1 => Just("\t"), 1 => Just("\r\n  "), 1 => Just(" \t\r")]
}

fn hex_escape(unit: u16, upper: bool) -> String {
    if upper {
        format!("\\u{unit:04X}")
    } else {
        format!("\\u{unit:04x}")
    }
}

/// A piece of a string's content as written.
fn string_piece(kinds: Kinds) -> impl Strategy<Value = String> {
    let printable = (0x20u8..0x7f).prop_filter("a char written as itself", |&b| !matches!(b, b'"' | b'\\' | b'#'));
    let bmp = prop_oneof![0x100u16..0xD800, 0xE000u16..=0xFFFF];
    let lone = kinds.lone_surrogates;
    prop_oneof![
        6 => prop::collection::vec(printable, 1..8).prop_map(|b| String::from_utf8(b).unwrap()),
        3 => prop::sample::select(vec!["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"]).prop_map(String::from),
        2 => ((0u16..0x80).prop_filter("no #", |&u| u != b'#' as u16), any::<bool>())
            .prop_map(|(u, upper)| hex_escape(u, upper)),
        1 => prop::sample::select(vec!["\\u00e9", "\\u00E9", "\\u00ff", "\\u0080", "\\ud83d\\ude00", "\\uD83D\\uDE00"])
            .prop_map(String::from),
        1 => ((0x80u16..0x100), any::<bool>()).prop_map(|(u, upper)| hex_escape(u, upper)),
        1 => (bmp, any::<bool>()).prop_map(|(u, upper)| hex_escape(u, upper)),
        1 => (0xD800u16..0xDC00, 0xDC00u16..0xE000).prop_map(|(h, l)| format!("{}{}", hex_escape(h, false), hex_escape(l, true))),
        1 => (0xD800u16..0xE000).prop_map(move |u| if lone { hex_escape(u, u % 2 == 0) } else { "\\ud83d\\ude00".into() }),
        2 => prop::sample::select(vec!["é", "ÿ", "\u{80}", "\u{a0}", "ß", "\u{7f}", "Ā", "€", "日本", "😀", "\u{ffff}", "\u{10ffff}"])
            .prop_map(String::from),
        1 => (0x80u32..0x110000).prop_filter_map("a scalar value", char::from_u32).prop_map(String::from),
    ]
}

/// A string token, quotes included: short or long.
fn string_token(kinds: Kinds) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(string_piece(kinds), 0..4),
        1 => prop::collection::vec(string_piece(kinds), 4..24),
    ]
    .prop_map(|pieces| format!("\"{}\"", pieces.concat()))
}

fn number(kinds: Kinds) -> impl Strategy<Value = String> {
    let exponent = if kinds.huge_numbers { "[0-9]{1,3}" } else { "[0-9]{1,2}" };
    let spelled = format!("-?(0|[1-9][0-9]{{0,20}})(\\.[0-9]{{1,6}})?([eE][+-]?{exponent})?");
    let huge = kinds.huge_numbers;
    prop_oneof![
        1 => prop::sample::select(vec![
            "0", "-0", "0.0", "-0.0e0", "1e400", "-1E+400", "1e-400", "12345678901234567890", "-9223372036854775809",
            "123456789012345678901234567890", "1.00000000000000000000001", "5e-324", "1.7976931348623157e308",
        ])
        .prop_filter("within f64's range", move |n| huge || !n.contains("400")).prop_map(String::from),
        3 => proptest::string::string_regex(&spelled).expect("a number's pattern"),
    ]
}

fn key_token(kinds: Kinds) -> impl Strategy<Value = String> {
    // A few keys recur, so objects have duplicate keys.
    prop_oneof![
        2 => prop::sample::select(vec!["\"a\"", "\"k\"", "\"\"", "\"\\u0061\""]).prop_map(String::from),
        1 => string_token(kinds),
    ]
}

fn json_text(kinds: Kinds) -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        3 => number(kinds),
        1 => prop::sample::select(vec!["true", "false", "null"]).prop_map(String::from),
        4 => string_token(kinds),
    ];
    let value = leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            (prop::collection::vec((ws(), inner.clone(), ws()), 0..6), ws()).prop_map(|(items, gap)| {
                let items: Vec<String> = items.into_iter().map(|(a, v, b)| format!("{a}{v}{b}")).collect();
                format!("[{}]", if items.is_empty() { gap.to_string() } else { items.join(",") })
            }),
            (prop::collection::vec((ws(), key_token(kinds), ws(), ws(), inner, ws()), 0..6), ws()).prop_map(
                |(members, gap)| {
                    let members: Vec<String> =
                        members.into_iter().map(|(a, k, b, c, v, d)| format!("{a}{k}{b}:{c}{v}{d}")).collect();
                    format!("{{{}}}", if members.is_empty() { gap.to_string() } else { members.join(",") })
                }
            ),
        ]
    });
    (ws(), value, ws()).prop_map(|(a, v, b)| format!("{a}{v}{b}"))
}

fn min_len() -> impl Strategy<Value = usize> {
    prop_oneof![Just(0), 1usize..6, 6usize..40, Just(usize::MAX)]
}

// ---------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------

/// The smallest width holding every unit.
fn width_of(units: &[u16]) -> Width {
    match units.iter().max() {
        Some(&u) if u >= 0x100 => Width::Wide,
        Some(&u) if u >= 0x80 => Width::Latin1,
        _ => Width::Ascii,
    }
}

/// `text` with each of `strings` written as its marker.
fn with_markers(text: &[u8], strings: &[LongString]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut copied = 0;
    for (k, string) in strings.iter().enumerate() {
        out.extend_from_slice(&text[copied..string.start]);
        out.extend_from_slice(MARKER);
        out.extend_from_slice(k.to_string().as_bytes());
        copied = string.end;
    }
    out.extend_from_slice(&text[copied..]);
    out
}

/// What each decoder makes of one long string, against its units.
fn check_string(text: &[u8], string: &LongString) -> Result<(), TestCaseError> {
    let content = string.content(text);
    let units = decode_utf16(content);
    let mut streamed = Vec::new();
    decode_units(content, |u| streamed.push(u));
    prop_assert_eq!(&streamed, &units);
    prop_assert_eq!(string.width, width_of(&units), "{:?}", String::from_utf8_lossy(content));
    prop_assert_eq!(string.escaped, content.contains(&b'\\'));
    if string.width == Width::Wide {
        return Ok(());
    }
    let latin1 = decode_latin1(content);
    prop_assert_eq!(&latin1, &units.iter().map(|&u| u as u8).collect::<Vec<u8>>());
    if string.width == Width::Ascii {
        let mut copy = text.to_vec();
        let len = unescape_ascii_in_place(&mut copy, string);
        prop_assert_eq!(&copy[string.start..string.start + len], &latin1[..]);
        // Only the string's own bytes move.
        prop_assert_eq!(&copy[..string.start], &text[..string.start]);
        prop_assert_eq!(&copy[string.end..], &text[string.end..]);
    }
    Ok(())
}

/// Every promise of `skeleton` on a text `JSON.parse` takes.
fn check_text(text: &[u8], min_len: usize) -> Result<(), TestCaseError> {
    let (whole, value_lens) = read(text).ok_or_else(|| TestCaseError::fail("the text reads"))?;
    let Some(Skeleton { text: skel, strings }) = skeleton(text, min_len, MARKER) else {
        return Err(TestCaseError::fail("skeleton refused a JSON text"));
    };
    // Exactly the long string values, in order, each between its quotes.
    prop_assert_eq!(strings.len(), value_lens.iter().filter(|&&n| n >= min_len).count());
    for pair in strings.windows(2) {
        prop_assert!(pair[0].end < pair[1].start);
    }
    for string in &strings {
        prop_assert!(string.end - string.start >= min_len);
        prop_assert_eq!((text[string.start - 1], text[string.end]), (b'"', b'"'));
        check_string(text, string)?;
    }
    // The skeleton is the text with those strings as markers, and with them put back it
    // reads as the text does.
    prop_assert_eq!(&skel, &with_markers(text, &strings));
    let (mut shape, _) = read(&skel).ok_or_else(|| TestCaseError::fail("the skeleton reads"))?;
    let mut next = 0;
    put_back(&mut shape, text, &strings, &mut next)?;
    prop_assert_eq!(next, strings.len());
    prop_assert_eq!(shape, whole);
    // With no string that long, the text comes back as it is.
    let above = value_lens.iter().max().map_or(0, |&n| n + 1);
    let same = skeleton(text, above, MARKER).expect("the same text");
    prop_assert!(same.strings.is_empty());
    prop_assert_eq!(same.text, text);
    Ok(())
}

/// What serde_json refuses and `JSON.parse` takes: lone surrogates (its own messages for
/// them), numbers past f64's range, more than 128 levels of nesting.
fn stricter_than_json_parse(error: &serde_json::Error) -> bool {
    let message = error.to_string();
    ["lone leading surrogate", "unexpected end of hex escape", "number out of range", "recursion limit exceeded"]
        .iter()
        .any(|m| message.contains(m))
}

// ---------------------------------------------------------------------------------------
// Broken texts: byte-level mutations of valid ones
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Mutation {
    Delete(prop::sample::Index),
    Insert(prop::sample::Index, u8),
    Replace(prop::sample::Index, u8),
    /// A byte written twice (`0` as `00`, `"` as `""`).
    Repeat(prop::sample::Index),
    /// A raw control char right after a quote (inside a string when the quote opens one).
    ControlAfterQuote(prop::sample::Index, u8),
    /// The char after a backslash replaced.
    BreakEscape(prop::sample::Index, u8),
    /// A byte two past a backslash dropped (a `\u` escape one digit short).
    ShortenEscape(prop::sample::Index),
    Truncate(prop::sample::Index),
}

fn any_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        4 => prop::sample::select(b"{}[],:\"\\ 0123456789-+.eEtrufalsnbu/".to_vec()),
        1 => 0u8..0x20,
        1 => 0x7fu8..=0xff,
        1 => any::<u8>(),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    use prop::sample::Index;
    prop_oneof![
        (any::<Index>()).prop_map(Mutation::Delete),
        (any::<Index>(), any_byte()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<Index>(), any_byte()).prop_map(|(i, b)| Mutation::Replace(i, b)),
        (any::<Index>()).prop_map(Mutation::Repeat),
        (any::<Index>(), 0u8..0x20).prop_map(|(i, b)| Mutation::ControlAfterQuote(i, b)),
        (any::<Index>(), any_byte()).prop_map(|(i, b)| Mutation::BreakEscape(i, b)),
        (any::<Index>()).prop_map(Mutation::ShortenEscape),
        (any::<Index>()).prop_map(Mutation::Truncate),
    ]
}

impl Mutation {
    fn apply(&self, text: &mut Vec<u8>) {
        let at = |of: &[u8], byte: u8, i: &prop::sample::Index| {
            let found: Vec<usize> = of.iter().enumerate().filter(|&(_, &b)| b == byte).map(|(k, _)| k).collect();
            (!found.is_empty()).then(|| *i.get(&found))
        };
        match self {
            Mutation::Delete(i) if !text.is_empty() => {
                text.remove(i.index(text.len()));
            }
            Mutation::Insert(i, b) => text.insert(i.index(text.len() + 1), *b),
            Mutation::Replace(i, b) if !text.is_empty() => {
                let k = i.index(text.len());
                text[k] = *b;
            }
            Mutation::Repeat(i) if !text.is_empty() => {
                let k = i.index(text.len());
                text.insert(k, text[k]);
            }
            Mutation::ControlAfterQuote(i, b) => {
                if let Some(k) = at(text, b'"', i) {
                    text.insert(k + 1, *b);
                }
            }
            Mutation::BreakEscape(i, b) => {
                if let Some(k) = at(text, b'\\', i).filter(|&k| k + 1 < text.len()) {
                    text[k + 1] = *b;
                }
            }
            Mutation::ShortenEscape(i) => {
                if let Some(k) = at(text, b'\\', i).filter(|&k| k + 2 < text.len()) {
                    text.remove(k + 2);
                }
            }
            Mutation::Truncate(i) => text.truncate(i.index(text.len() + 1)),
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------
// Examples
// ---------------------------------------------------------------------------------------

#[test]
fn serde_json_is_stricter_than_json_parse_only_where_known() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    for text in [r#""\ud800""#, r#"["\udc00"]"#, r#""\ud800\n""#, r#""\ud800\u0041""#, "1e400", "-1E+400", &deep] {
        assert!(skeleton(text.as_bytes(), 0, MARKER).is_some(), "{text}");
        assert!(read(text.as_bytes()).is_some(), "{text}");
        let error = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
        assert!(stricter_than_json_parse(&error), "{error}");
    }
}

#[test]
fn nesting_as_deep_as_json_parse_takes() {
    // JSON.parse reads a million levels; the skeleton keeps no stack of calls.
    let depth = 1_000_000;
    let text = format!("{}\"a long string\"{}", "[{\"k\":".repeat(depth), "}]".repeat(depth));
    let s = skeleton(text.as_bytes(), 4, MARKER).unwrap();
    assert_eq!(s.strings.len(), 1);
    assert!(skeleton(&text.as_bytes()[..text.len() - 1], 4, MARKER).is_none());
}

#[test]
fn the_reference_reader_refuses_what_json_parse_refuses() {
    for bad in
        ["", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "+1", "1e", "\"\\x\"", "\"\\u12g4\"", "\"\u{1}\"", "[1]]"]
    {
        assert!(read(bad.as_bytes()).is_none(), "{bad:?}");
        assert!(skeleton(bad.as_bytes(), 0, MARKER).is_none(), "{bad:?}");
    }
}

#[test]
fn a_long_string_is_put_back_where_its_marker_is() {
    let text = r#" {"k": "caf\u00e9 au lait", "k": ["\ud800 lone", "short", 1e400]} "#;
    let s = skeleton(text.as_bytes(), 8, MARKER).unwrap();
    assert_eq!(String::from_utf8(s.text.into_owned()).unwrap(), r##" {"k": "#0", "k": ["#1", "short", 1e400]} "##);
    assert_eq!(s.strings.iter().map(|s| s.width).collect::<Vec<_>>(), [Width::Latin1, Width::Wide]);
    assert_eq!(decode_latin1(s.strings[0].content(text.as_bytes())), b"caf\xe9 au lait");
    assert_eq!(decode_utf16(s.strings[1].content(text.as_bytes()))[0], 0xD800);
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

const ALL: Kinds = Kinds { lone_surrogates: true, huge_numbers: true };
const PORTABLE: Kinds = Kinds { lone_surrogates: false, huge_numbers: false };

proptest! {
    #![proptest_config(proptest_config("tests/proptest-regressions/json_line.txt", 1000))]

    #[test]
    fn the_skeleton_with_its_strings_put_back_is_the_text(text in json_text(ALL), min_len in min_len()) {
        check_text(text.as_bytes(), min_len)?;
    }

    #[test]
    fn refuses_exactly_what_json_parse_refuses(
        text in json_text(PORTABLE),
        mutations in prop::collection::vec(mutation(), 0..4),
        min_len in min_len(),
    ) {
        let mut text = text.into_bytes();
        for m in &mutations {
            m.apply(&mut text);
        }
        let taken = skeleton(&text, min_len, MARKER).is_some();
        let shown = String::from_utf8_lossy(&text);
        prop_assert_eq!(taken, read(&text).is_some(), "{:?}", shown);
        match serde_json::from_slice::<serde_json::Value>(&text) {
            Ok(_) => prop_assert!(taken, "refused {:?}", shown),
            // The reference reader judged it.
            Err(error) if stricter_than_json_parse(&error) => {}
            Err(error) => prop_assert!(!taken, "took {:?} ({})", shown, error),
        }
        if taken && !read(&text).is_some_and(|(value, _)| mentions_marker(&value)) {
            check_text(&text, min_len)?;
        }
    }
}
