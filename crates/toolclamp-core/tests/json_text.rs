//! The JSON clamp on JSON texts as users write them: every kept number, string and key is
//! copied as written (`12345678901234567890`, `1e400`, `-0`, escapes, duplicate keys), the
//! result is laid out as `JSON.stringify(value, null, gap)` would lay out those tokens and
//! measures what it reports, no budget is ever exceeded (from zero up), and values can be
//! located in a text for edits that keep every other byte.

use crate::common;

use common::proptest_config;
use proptest::prelude::*;
use toolclamp_core::{
    clamp_json, clamp_json_text, locate_json, parse_json_paths, Elided, JsonError, JsonRequest, JsonText, Limits,
    Markers, Measure, PathStep, MAX_DEPTH, SHORT_MARKER, UNLIMITED,
};
// `Strategy` is proptest's generator trait here; the core's cut strategy is `Cut`.
use toolclamp_core::Strategy as Cut;

// ---------------------------------------------------------------------------------------
// A reference reading of JSON text that keeps every token as written
// ---------------------------------------------------------------------------------------

/// A JSON value as written: tokens verbatim (strings with their quotes), members in order,
/// duplicates kept, and each value's span in UTF-16 units of the text.
#[derive(Clone, Debug, PartialEq)]
enum Raw {
    Scalar(String),
    Str(String),
    Array(Vec<Node>),
    Object(Vec<(String, Node)>),
}

#[derive(Clone, Debug, PartialEq)]
struct Node {
    raw: Raw,
    span: (usize, usize),
}

/// Reads a text known to be JSON (checked with serde_json first).
fn read_raw(text: &str) -> Node {
    let chars: Vec<char> = text.chars().collect();
    // UTF-16 offset of each char, and of the end.
    let mut at = Vec::with_capacity(chars.len() + 1);
    let mut n = 0;
    for c in &chars {
        at.push(n);
        n += c.len_utf16();
    }
    at.push(n);
    let mut i = 0;
    let node = read_value(&chars, &at, &mut i);
    skip(&chars, &mut i);
    assert_eq!(i, chars.len(), "trailing text in {text:?}");
    node
}

fn skip(c: &[char], i: &mut usize) {
    while *i < c.len() && matches!(c[*i], ' ' | '\t' | '\n' | '\r') {
        *i += 1;
    }
}

fn read_string(c: &[char], i: &mut usize) -> String {
    let start = *i;
    *i += 1;
    while c[*i] != '"' {
        *i += if c[*i] == '\\' { 2 } else { 1 };
    }
    *i += 1;
    c[start..*i].iter().collect()
}

fn read_value(c: &[char], at: &[usize], i: &mut usize) -> Node {
    skip(c, i);
    let start = *i;
    let raw = match c[*i] {
        '"' => Raw::Str(read_string(c, i)),
        open @ ('[' | '{') => {
            *i += 1;
            let close = if open == '[' { ']' } else { '}' };
            let (mut items, mut members) = (Vec::new(), Vec::new());
            skip(c, i);
            if c[*i] == close {
                *i += 1;
            } else {
                loop {
                    if open == '{' {
                        skip(c, i);
                        let key = read_string(c, i);
                        skip(c, i);
                        *i += 1; // ':'
                        members.push((key, read_value(c, at, i)));
                    } else {
                        items.push(read_value(c, at, i));
                    }
                    skip(c, i);
                    *i += 1; // ',' or the close
                    if c[*i - 1] == close {
                        break;
                    }
                }
            }
            if open == '[' {
                Raw::Array(items)
            } else {
                Raw::Object(members)
            }
        }
        _ => {
            while *i < c.len() && !matches!(c[*i], ',' | ']' | '}' | ' ' | '\t' | '\n' | '\r') {
                *i += 1;
            }
            Raw::Scalar(c[start..*i].iter().collect())
        }
    };
    Node { raw, span: (at[start], at[*i]) }
}

/// `JSON.stringify(value, null, gap)` of the tokens as written.
fn render(node: &Node, gap: &str, depth: usize, out: &mut String) {
    let indent = |out: &mut String, depth: usize| {
        if !gap.is_empty() {
            out.push('\n');
            out.push_str(&gap.repeat(depth));
        }
    };
    match &node.raw {
        Raw::Scalar(t) | Raw::Str(t) => out.push_str(t),
        Raw::Array(items) if items.is_empty() => out.push_str("[]"),
        Raw::Object(members) if members.is_empty() => out.push_str("{}"),
        Raw::Array(items) => {
            out.push('[');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                indent(out, depth + 1);
                render(item, gap, depth + 1, out);
            }
            indent(out, depth);
            out.push(']');
        }
        Raw::Object(members) => {
            out.push('{');
            for (k, (key, value)) in members.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                indent(out, depth + 1);
                out.push_str(key);
                out.push_str(if gap.is_empty() { ":" } else { ": " });
                render(value, gap, depth + 1, out);
            }
            indent(out, depth);
            out.push('}');
        }
    }
}

fn rendered(node: &Node, gap: &str) -> String {
    let mut out = String::new();
    render(node, gap, 0, &mut out);
    out
}

/// Whether two values hold the same tokens (spans aside).
fn same_tokens(a: &Node, b: &Node) -> bool {
    match (&a.raw, &b.raw) {
        (Raw::Array(x), Raw::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_tokens(p, q)),
        (Raw::Object(x), Raw::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, p), (l, q))| k == l && same_tokens(p, q))
        }
        (x, y) => x == y,
    }
}

/// Chars (UTF-16 units), UTF-8 bytes and lines of a JS string, as the core counts them.
fn js_measure(s: &str) -> Measure {
    let newlines = s.bytes().filter(|&b| b == b'\n').count() as u64;
    let lines = if s.is_empty() { 0 } else { newlines + !s.ends_with('\n') as u64 };
    Measure { chars: s.encode_utf16().count() as u64, bytes: s.len() as u64, lines }
}

fn fits(m: Measure, l: &Limits) -> bool {
    m.chars <= l.max_chars && m.bytes <= l.max_bytes && m.lines <= l.max_lines
}

fn is_json(s: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok()
}

// ---------------------------------------------------------------------------------------
// The cut relation: `out` keeps tokens of `src` exactly as written
// ---------------------------------------------------------------------------------------

fn is_marker_string(token: &str) -> bool {
    let inner = &token[1..token.len() - 1];
    inner == SHORT_MARKER
        || inner.starts_with("[... ")
            && (inner.ends_with(" more items]")
                || inner.ends_with(" more keys]")
                || inner.ends_with(" bytes truncated]"))
}

fn is_marker_key(token: &str) -> bool {
    let inner = &token[1..token.len() - 1];
    !inner.is_empty() && inner.chars().all(|c| c == '…')
}

/// A string's content `cut` from `original` (both as written): the same, a prefix or a
/// suffix (markers none), or two ends around a notice.
fn string_cut(cut: &str, original: &str, markers: Markers) -> bool {
    if cut == original {
        return true;
    }
    if markers == Markers::None {
        return original.starts_with(cut) || original.ends_with(cut);
    }
    let notices = cut.match_indices("[...").map(|(at, _)| at);
    notices.into_iter().any(|at| {
        let end = cut[at..].find(']').map(|e| at + e + 1);
        end.is_some_and(|end| {
            let notice = &cut[at..end];
            (notice == SHORT_MARKER || notice.ends_with(" bytes truncated]"))
                && original.starts_with(&cut[..at])
                && original.ends_with(&cut[end..])
                && at + (cut.len() - end) < original.len()
        })
    })
}

/// `out` is a clamp of `src`: every scalar, string and key it keeps is the very token of
/// `src` at the same place, strings are cut from theirs, items and members keep their order.
fn cut_of(src: &Node, out: &Node, markers: Markers) -> Result<(), String> {
    let inline = markers == Markers::Inline;
    match (&src.raw, &out.raw) {
        (Raw::Scalar(a), Raw::Scalar(b)) if a == b => Ok(()),
        (Raw::Str(a), Raw::Str(b)) if string_cut(&b[1..b.len() - 1], &a[1..a.len() - 1], markers) => Ok(()),
        (Raw::Array(a), Raw::Array(b)) => {
            let aligned = |front: &[Node], back: &[Node]| {
                front.len() + back.len() <= a.len()
                    && front.iter().zip(a).all(|(x, y)| cut_of(y, x, markers).is_ok())
                    && back.iter().zip(&a[a.len() - back.len()..]).all(|(x, y)| cut_of(y, x, markers).is_ok())
            };
            // The marker item, if any, stands where the items were dropped (a shrunk item
            // may look like one too).
            let marker = |x: &Node| inline && matches!(&x.raw, Raw::Str(t) if is_marker_string(t));
            let ok = (0..b.len()).any(|m| marker(&b[m]) && aligned(&b[..m], &b[m + 1..]))
                || (0..=b.len()).any(|p| aligned(&b[..p], &b[p..]));
            ok.then_some(()).ok_or_else(|| format!("items of {b:?} do not align with {a:?}"))
        }
        (Raw::Object(a), Raw::Object(b)) => {
            let mut from = 0;
            for (key, value) in b {
                let marker = matches!(&value.raw, Raw::Str(t) if is_marker_string(t));
                if inline && is_marker_key(key) && marker && !a.iter().any(|(k, _)| k == key) {
                    continue;
                }
                let Some(pos) = a[from..].iter().position(|(k, _)| k == key) else {
                    return Err(format!("key {key} new or out of order"));
                };
                cut_of(&a[from + pos].1, value, markers)?;
                from += pos + 1;
            }
            Ok(())
        }
        _ => Err(format!("{:?} is not a cut of {:?}", out.raw, src.raw)),
    }
}

// ---------------------------------------------------------------------------------------
// Generators: JSON texts with the tokens a float would lose
// ---------------------------------------------------------------------------------------

fn ws() -> impl Strategy<Value = &'static str> {
    prop_oneof![8 => Just(""), 1 => Just(" "), 1 => Just("\n  "), 1 => Just("\t"), 1 => Just("\r\n")]
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => prop::sample::select(vec![
            "12345678901234567890", "-98765432109876543210", "1e400", "-1e400", "1e-400", "-0", "-0.0", "0.10",
            "1E+2", "2.50e-3", "9007199254740993",
        ])
        .prop_map(String::from),
        3 => (-1000i64..100_000).prop_map(|n| n.to_string()),
    ]
}

fn string_token() -> impl Strategy<Value = String> {
    // No `[` in the content: the cut relation finds notices by it.
    let atom = prop::sample::select(vec![
        "a",
        "b",
        "z",
        " ",
        "é",
        "中",
        "😀",
        "…",
        "\\n",
        "\\\"",
        "\\\\",
        "\\/",
        "\\u0041",
        "\\u00e9",
        "\\ud83d\\ude00",
        "\\r\\n",
        "\\t",
        "\\ud800",
    ]);
    prop_oneof![
        6 => prop::collection::vec(atom, 0..24).prop_map(|a| format!("\"{}\"", a.concat())),
        1 => (100usize..1500).prop_map(|n| format!("\"{}\"", "x".repeat(n))),
    ]
}

fn key_token() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "\"a\"",
        "\"\\u0061\"",
        "\"b\"",
        "\"id\"",
        "\"…\"",
        "\"\\u2026\"",
        "\"……\"",
        "\"a key\"",
        "\"__proto__\"",
        "\"\"",
        "\"\\\"q\\\"\"",
    ])
    .prop_map(String::from)
}

fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        3 => number(),
        1 => prop::sample::select(vec!["true", "false", "null"]).prop_map(String::from),
        4 => string_token(),
    ];
    let value = leaf.prop_recursive(5, 80, 10, |inner| {
        prop_oneof![
            prop::collection::vec((ws(), inner.clone(), ws()), 0..10).prop_map(|items| {
                let items: Vec<String> = items.into_iter().map(|(a, v, b)| format!("{a}{v}{b}")).collect();
                format!("[{}]", items.join(","))
            }),
            prop::collection::vec((ws(), key_token(), ws(), inner, ws()), 0..7).prop_map(|members| {
                let members: Vec<String> =
                    members.into_iter().map(|(a, k, b, v, c)| format!("{a}{k}{b}:{v}{c}")).collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    });
    (ws(), value, ws()).prop_map(|(a, v, b)| format!("{a}{v}{b}"))
}

fn cut_strategy() -> impl Strategy<Value = Cut> {
    prop_oneof![Just(Cut::Head), Just(Cut::Tail), (0.0f64..=1.0).prop_map(|head_ratio| Cut::HeadTail { head_ratio })]
}

fn any_limits() -> impl Strategy<Value = Limits> {
    let dim = |max: u64| prop_oneof![2 => Just(UNLIMITED), 3 => 0..max];
    (dim(2000), dim(2000), dim(40)).prop_map(|(max_chars, max_bytes, max_lines)| Limits {
        max_chars,
        max_bytes,
        max_lines,
    })
}

fn request(limits: Limits, strategy: Cut, markers: Markers, gap: &str) -> JsonRequest<'_> {
    JsonRequest { limits, strategy, markers, gap, indent: true }
}

fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// A rendered result: its text and what it elided.
type Rendered = (String, Vec<Elided<u16>>);

/// The clamp of a text, checked against every promise; the output text when it was
/// rendered.
fn check_text(text: &str, req: &JsonRequest<'_>) -> Result<Option<Rendered>, TestCaseError> {
    let input = js_measure(text);
    match clamp_json_text(&utf16(text), req).map_err(|e| TestCaseError::fail(format!("{e}: {text}")))? {
        JsonText::AsGiven { input: reported } => {
            prop_assert_eq!(reported, input);
            prop_assert!(fits(input, &req.limits));
            Ok(None)
        }
        JsonText::Rendered { input: reported, clamped } => {
            prop_assert_eq!(reported, input);
            prop_assert!(!fits(input, &req.limits));
            let out = String::from_utf16(&clamped.text).expect("no lone surrogate written raw");
            // The text written is the text measured, within the limits.
            prop_assert_eq!(js_measure(&out), clamped.output, "{}", out);
            prop_assert!(fits(clamped.output, &req.limits), "{:?} over {:?}: {}", clamped.output, req.limits, out);
            let src = read_raw(text);
            prop_assert_eq!(clamped.total, js_measure(&rendered(&src, req.gap)));
            if let [Elided::Value { total_bytes, .. }] = clamped.elided.as_slice() {
                prop_assert_eq!(*total_bytes, clamped.total.bytes);
                let marker = format!("\"{SHORT_MARKER}\"");
                let honest = match req.markers {
                    Markers::Inline => out == marker || out.is_empty() && !fits(js_measure(&marker), &req.limits),
                    Markers::None => out.is_empty(),
                };
                prop_assert!(honest, "{:?} when nothing fits {:?}", out, req.limits);
                return Ok(Some((out, clamped.elided)));
            }
            prop_assert!(is_json(&out), "not JSON: {}", out);
            let kept = read_raw(&out);
            // Laid out as JSON.stringify lays out these tokens.
            prop_assert_eq!(&out, &rendered(&kept, req.gap));
            if clamped.elided.is_empty() {
                prop_assert!(same_tokens(&src, &kept), "{} re-rendered as {}", text, out);
            } else {
                cut_of(&src, &kept, req.markers).map_err(|e| TestCaseError::fail(format!("{e}\n{text}\n{out}")))?;
                // With inline markers, no cut is silent.
                if req.markers == Markers::Inline {
                    prop_assert!(out.contains("[..."), "a silent cut: {}", out);
                }
            }
            Ok(Some((out, clamped.elided)))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Examples
// ---------------------------------------------------------------------------------------

fn bytes(n: u64) -> Limits {
    Limits { max_chars: UNLIMITED, max_bytes: n, max_lines: UNLIMITED }
}

fn clamp_text(text: &str, limits: Limits, gap: &str) -> String {
    match clamp_json_text(&utf16(text), &request(limits, Cut::Head, Markers::Inline, gap)).unwrap() {
        JsonText::AsGiven { .. } => text.to_string(),
        JsonText::Rendered { clamped, .. } => String::from_utf16(&clamped.text).unwrap(),
    }
}

#[test]
fn numbers_keys_and_escapes_are_kept_as_written() {
    let text = format!(
        r#"{{"id": 12345678901234567890, "big": 1e400, "neg": -0, "a": 1, "a": 2, "\u0061": 3, "s": "\u00e9\/", "log": "{}"}}"#,
        "x".repeat(500)
    );
    let out = clamp_text(&text, bytes(200), "");
    assert!(out.starts_with(
        r#"{"id":12345678901234567890,"big":1e400,"neg":-0,"a":1,"a":2,"\u0061":3,"s":"\u00e9\/","log":"xxx"#
    ));
    assert!(out.ends_with(" bytes truncated]\"}"), "{out}");
    assert!(out.len() <= 200);
}

#[test]
fn a_text_that_fits_is_given_back_and_one_that_does_not_is_rendered_with_the_gap() {
    let text = "{ \"a\" : [1, 2] }";
    let req = request(bytes(100), Cut::Head, Markers::Inline, "");
    assert_eq!(
        clamp_json_text(&utf16(text), &req),
        Ok(JsonText::AsGiven { input: Measure { chars: 16, bytes: 16, lines: 1 } })
    );
    // Over the limit as given, within it compact: rendered whole, nothing elided.
    let JsonText::Rendered { input, clamped } =
        clamp_json_text(&utf16(text), &request(bytes(13), Cut::Head, Markers::Inline, "")).unwrap()
    else {
        panic!("rendered")
    };
    assert_eq!(
        (input.bytes, String::from_utf16(&clamped.text).unwrap(), clamped.elided),
        (16, "{\"a\":[1,2]}".into(), vec![])
    );
    // Indented as JSON.stringify(value, null, 2) would.
    let out = clamp_text("[1,{\"k\":[]},{\"z\":\"x\"}]", bytes(100), "  ");
    assert_eq!(out, "[1,{\"k\":[]},{\"z\":\"x\"}]");
    let spaced = format!("[1,{}{{\"k\":[]}},{{\"z\":\"x\"}}]", " ".repeat(60));
    let out = clamp_text(&spaced, bytes(60), "  ");
    assert_eq!(out, "[\n  1,\n  {\n    \"k\": []\n  },\n  {\n    \"z\": \"x\"\n  }\n]");
}

#[test]
fn not_json_is_an_error_the_caller_clamps_as_text() {
    for bad in ["", " ", "not json {", "[1,]", "{\"a\"}", "\"\u{1}\"", "[1] x", "NaN", "01"] {
        let req = request(bytes(1000), Cut::Head, Markers::Inline, "");
        assert!(matches!(clamp_json_text(&utf16(bad), &req), Err(JsonError::Invalid { .. })), "{bad:?}");
    }
    // A lone surrogate written raw is JSON to JSON.parse.
    let units: Vec<u16> = [0x22, 0xD800, 0x22].into();
    assert!(clamp_json_text(&units, &request(bytes(1000), Cut::Head, Markers::Inline, "")).is_ok());
}

#[test]
fn deep_nesting_is_rendered_without_recursion_and_cut_honestly() {
    let depth = 10_000;
    let text = format!("{} \"{}\" {}", "[".repeat(depth), "x".repeat(100_000), "]".repeat(depth));
    // Whole (only the whitespace goes).
    let out = clamp_text(&text, bytes(text.len() as u64 - 1), "");
    assert_eq!(out.len(), text.len() - 2);
    // A deep value kept whole beside a cut one, indented: one line per bracket.
    let levels = 1_000;
    let beside = format!("[{}1{},\"{}\"]", "[".repeat(levels), "]".repeat(levels), "x".repeat(2_000_000));
    let out = clamp_text(&beside, bytes(1_500_000), " ");
    assert_eq!(js_measure(&out).lines, 2 * levels as u64 + 4);
    assert!(out.starts_with("[\n [\n  [\n   [\n"));
    assert!(out.ends_with("\n ],\n \"[... 1 more items]\"\n]"), "{}", &out[out.len() - 60..]);
    // Cut: the levels past MAX_DEPTH are kept whole or replaced by their marker form.
    let JsonText::Rendered { clamped, .. } =
        clamp_json_text(&utf16(&text), &request(bytes(50_000), Cut::Head, Markers::Inline, "")).unwrap()
    else {
        panic!("cut")
    };
    let out = String::from_utf16(&clamped.text).unwrap();
    assert!(out.len() <= 50_000);
    assert!(
        out.starts_with(&"[".repeat(MAX_DEPTH as usize)) && out.contains("\"[...]\""),
        "{}",
        &out[out.len() - 300..]
    );
    assert!(!clamped.elided.is_empty());
}

#[test]
fn values_are_located_by_path_the_last_duplicate_winning() {
    let text = r#"{"type":"message","message":{"content":[{"type":"text","text":"old"}],"n":1e400},"message":{"content":[{"type":"text","text":"new"}]}}"#;
    let paths = parse_json_paths(&utf16(r#"[["message","content",0,"text"],["message","n"],["nope"],[]]"#)).unwrap();
    assert_eq!(
        paths[0],
        vec![
            PathStep::Key(utf16("message")),
            PathStep::Key(utf16("content")),
            PathStep::Index(0),
            PathStep::Key(utf16("text"))
        ]
    );
    let spans = locate_json(&utf16(text), &paths).unwrap();
    let at = |span: &Option<std::ops::Range<usize>>| span.clone().map(|r| &text[r]);
    assert_eq!(at(&spans[0]), Some("\"new\""));
    // The second "message" has no "n": JSON.parse would not see the first one's either.
    assert_eq!(at(&spans[1]), None);
    assert_eq!(at(&spans[2]), None);
    assert_eq!(at(&spans[3]), Some(text));
    // Keys are compared decoded.
    let spans =
        locate_json(&utf16(r#"{"\u0061" : [ 1 , {"b":2} ]}"#), &parse_json_paths(&utf16(r#"[["a",1]]"#)).unwrap());
    assert_eq!(spans.unwrap()[0], Some(18..25));
    for bad in ["{}", "[1]", "[[-1]]", "[[1.5]]", "[[true]]"] {
        assert!(parse_json_paths(&utf16(bad)).is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

/// Every value `JSON.parse` would give a path to, with its span: for duplicate keys, the
/// last member only.
fn visible_paths(node: &Node, path: &mut Vec<PathStep>, out: &mut Vec<(Vec<PathStep>, (usize, usize))>) {
    out.push((path.clone(), node.span));
    match &node.raw {
        Raw::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(PathStep::Index(i));
                visible_paths(item, path, out);
                path.pop();
            }
        }
        Raw::Object(members) => {
            let decoded: Vec<String> = members.iter().map(|(k, _)| serde_json::from_str(k).unwrap()).collect();
            for (i, (_, value)) in members.iter().enumerate() {
                if decoded[i + 1..].contains(&decoded[i]) {
                    continue;
                }
                path.push(PathStep::Key(utf16(&decoded[i])));
                visible_paths(value, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(proptest_config("tests/proptest-regressions/json_text.txt", 2000))]

    #[test]
    fn every_kept_token_is_copied_as_written_and_the_result_fits(
        text in json_text(),
        limits in any_limits(),
        strategy in cut_strategy(),
        inline in any::<bool>(),
        gap in prop_oneof![Just(""), Just("  "), Just("\t")],
    ) {
        prop_assume!(is_json(&text));
        let markers = if inline { Markers::Inline } else { Markers::None };
        check_text(&text, &request(limits, strategy, markers, gap))?;
    }

    #[test]
    fn a_path_finds_the_value_json_parse_keeps(text in json_text(), pick in any::<prop::sample::Index>()) {
        prop_assume!(is_json(&text));
        let mut paths = Vec::new();
        visible_paths(&read_raw(&text), &mut Vec::new(), &mut paths);
        let (path, span) = pick.get(&paths).clone();
        let mut missing = path.clone();
        missing.push(PathStep::Index(1_000));
        let found = locate_json(&utf16(&text), &[path, missing]).unwrap();
        prop_assert_eq!(found[0].clone(), Some(span.0..span.1));
        prop_assert_eq!(found[1].clone(), None);
    }
}

proptest! {
    // Each case clamps at every budget from 0 up: fewer cases.
    #![proptest_config(proptest_config("tests/proptest-regressions/json_text.txt", 150))]

    #[test]
    fn from_a_budget_of_nothing_up_never_over_and_never_silent(
        text in json_text(),
        inline in any::<bool>(),
        dim in 0usize..3,
        strategy in cut_strategy(),
    ) {
        prop_assume!(is_json(&text));
        let markers = if inline { Markers::Inline } else { Markers::None };
        let most = (text.len() as u64 + 2).min(120);
        for n in 0..=most {
            let limits = match dim {
                0 => bytes(n),
                1 => Limits { max_chars: n, max_bytes: UNLIMITED, max_lines: UNLIMITED },
                _ => Limits { max_chars: UNLIMITED, max_bytes: n, max_lines: n / 8 },
            };
            if let Some((out, elided)) = check_text(&text, &request(limits, strategy, markers, ""))? {
                // Something is said whenever the short marker fits.
                if inline && n >= 7 && limits.max_lines >= 1 {
                    prop_assert!(!out.is_empty(), "nothing at {:?}", limits);
                }
                prop_assert!(elided.is_empty() || inline || !out.contains("[..."));
            }
            // The value API (compact text in, compact text out) keeps the same promise.
            let units = utf16(&text);
            let req = JsonRequest { indent: false, ..request(limits, strategy, markers, "") };
            if let (_, Some(c)) = clamp_json(&units, &req).unwrap() {
                let out = String::from_utf16(&c.text).unwrap();
                prop_assert!(fits(c.output, &limits) && js_measure(&out).bytes <= limits.max_bytes);
            }
        }
    }
}
