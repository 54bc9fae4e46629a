//! The JSON clamp, checked against serde_json: every result parses, measures exactly what
//! the clamp reports when rendered as `JSON.stringify` would, fits, and keeps the input's
//! shape; fair sharing between an object's members; no input makes it panic.

use crate::common;

use common::proptest_config;
use proptest::prelude::*;
use serde::Serialize;
use serde_json::ser::{PrettyFormatter, Serializer};
use serde_json::{Map, Value};
use toolclamp_core::{
    answer_text, clamp_json, Elided, JsonClamp, JsonError, JsonRequest, JsonUnit, Limits, Markers, Measure,
    SHORT_MARKER, UNLIMITED,
};
// `Strategy` is proptest's generator trait here; the core's cut strategy is `Cut`.
use toolclamp_core::Strategy as Cut;

/// `JSON.stringify(value, null, gap)`.
fn render(v: &Value, gap: &str) -> String {
    if gap.is_empty() {
        return serde_json::to_string(v).unwrap();
    }
    let mut out = Vec::new();
    let mut ser = Serializer::with_formatter(&mut out, PrettyFormatter::with_indent(gap.as_bytes()));
    v.serialize(&mut ser).unwrap();
    String::from_utf8(out).unwrap()
}

/// Chars (UTF-16 units), UTF-8 bytes and lines of a JS string.
fn js_measure(s: &str) -> Measure {
    let newlines = s.bytes().filter(|&b| b == b'\n').count() as u64;
    Measure { chars: s.encode_utf16().count() as u64, bytes: s.len() as u64, lines: newlines + !s.is_empty() as u64 }
}

fn fits(m: Measure, l: &Limits) -> bool {
    m.chars <= l.max_chars && m.bytes <= l.max_bytes && m.lines <= l.max_lines
}

fn limits(bytes: u64) -> Limits {
    Limits { max_chars: UNLIMITED, max_bytes: bytes, max_lines: UNLIMITED }
}

fn request(limits: Limits, strategy: Cut, markers: Markers, gap: &str) -> JsonRequest<'_> {
    JsonRequest { limits, strategy, markers, gap, indent: false }
}

/// Clamps `text` as the binding would: Latin-1 units when every char fits one, else UTF-16.
/// An elision with its path as a Rust string: (kind, path, kept, total).
type Gone = (&'static str, String, u64, u64);

fn gone(kind: &'static str, path: &str, kept: u64, total: u64) -> Gone {
    (kind, path.to_string(), kept, total)
}

type Clamped = (String, Vec<Gone>, Measure, Measure);

fn clamp(text: &str, req: &JsonRequest<'_>) -> Result<Option<Clamped>, JsonError> {
    fn owned<U: Copy>(c: JsonClamp<U>, s: &impl Fn(&[U]) -> String) -> Clamped {
        let elided = c
            .elided
            .iter()
            .map(|e| match e {
                Elided::Items { path, kept, total } => ("items", s(path), *kept, *total),
                Elided::Keys { path, kept, total } => ("keys", s(path), *kept, *total),
                Elided::Text { path, kept_bytes, total_bytes } => ("text", s(path), *kept_bytes, *total_bytes),
                Elided::Value { path, total_bytes } => ("value", s(path), 0, *total_bytes),
            })
            .collect();
        (s(&c.text), elided, c.total, c.output)
    }
    /// Clamps `units` and checks the answer the binding would return: the elisions as a
    /// JSON array, a line feed, the value's text.
    fn units_clamp<U: JsonUnit>(
        units: &[U],
        req: &JsonRequest<'_>,
        s: impl Fn(&[U]) -> String,
    ) -> Result<Option<Clamped>, JsonError> {
        let (total, out) = clamp_json(units, req)?;
        assert_eq!(out.as_ref().map_or(total, |c| c.total), total);
        if let Some(c) = &out {
            let answer = s(&answer_text(c));
            let (elided, text) = answer.split_once('\n').expect("a line feed after the elisions");
            let elided: Value = serde_json::from_str(elided).expect("the elisions parse");
            assert_eq!(elided.as_array().unwrap().len(), c.elided.len());
            assert_eq!(text, s(&c.text));
        }
        Ok(out.map(|c| owned(c, &s)))
    }
    if text.chars().all(|c| (c as u32) < 0x100) {
        let units: Vec<u8> = text.chars().map(|c| c as u8).collect();
        units_clamp(&units, req, |u: &[u8]| u.iter().map(|&b| b as char).collect::<String>())
    } else {
        let units: Vec<u16> = text.encode_utf16().collect();
        units_clamp(&units, req, |u: &[u16]| String::from_utf16(u).expect("no lone surrogates"))
    }
}

fn is_items_marker(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s == SHORT_MARKER || s.starts_with("[... ") && s.ends_with(" more items]"))
}

fn is_keys_marker(key: &str) -> bool {
    !key.is_empty() && key.chars().all(|c| c == '…')
}

/// A string cut from `original`: a prefix, a suffix, or both around a notice.
fn is_cut_of(cut: &str, original: &str, markers: Markers) -> bool {
    if cut == original {
        return true;
    }
    if markers == Markers::None {
        return original.starts_with(cut) || original.ends_with(cut);
    }
    if cut.is_empty() {
        return true;
    }
    // The short marker: the two ends around it (tried at each place it appears).
    let short = cut.match_indices(SHORT_MARKER).any(|(at, m)| {
        let (head, tail) = (&cut[..at], &cut[at + m.len()..]);
        original.starts_with(head) && original.ends_with(tail) && head.len() + tail.len() < original.len()
    });
    if short {
        return true;
    }
    let Some(open) = cut.find("[... ") else { return false };
    let Some(close) = cut[open..].find(" bytes truncated]") else { return false };
    let (head, tail) = (&cut[..open], &cut[open + close + " bytes truncated]".len()..]);
    let omitted: u64 = cut[open + 5..open + close].replace(',', "").parse().unwrap();
    original.starts_with(head)
        && original.ends_with(tail)
        && head.len() + tail.len() <= original.len()
        && omitted == (original.len() - head.len() - tail.len()) as u64
}

/// `out` keeps the shape of `v`: same types, keys of `v` in its order (plus a marker key),
/// array items aligned with `v`'s first and last items, strings cut from `v`'s.
fn check_shape(v: &Value, out: &Value, strategy: Cut, markers: Markers) -> Result<(), String> {
    match (v, out) {
        (Value::String(a), Value::String(b)) => {
            if is_cut_of(b, a, markers) {
                Ok(())
            } else {
                Err(format!("{b:?} is not a cut of {a:?}"))
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            let aligned = |front: &[Value], back: &[Value]| -> Result<(), String> {
                if front.len() + back.len() > a.len() {
                    return Err(format!("{} items from {}", front.len() + back.len(), a.len()));
                }
                for (i, item) in front.iter().enumerate() {
                    check_shape(&a[i], item, strategy, markers)?;
                }
                for (i, item) in back.iter().enumerate() {
                    check_shape(&a[a.len() - back.len() + i], item, strategy, markers)?;
                }
                Ok(())
            };
            let marker = b.iter().position(is_items_marker).filter(|_| markers == Markers::Inline);
            match (marker, strategy) {
                (Some(m), _) => aligned(&b[..m], &b[m + 1..]),
                (None, Cut::Head) => aligned(b, &[]),
                (None, Cut::Tail) => aligned(&[], b),
                // No marker to say where the gap is: some split must align.
                (None, Cut::HeadTail { .. }) => (0..=b.len())
                    .map(|p| aligned(&b[..p], &b[p..]))
                    .find(Result::is_ok)
                    .unwrap_or_else(|| Err(format!("{out} does not align with {v}"))),
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            let keys: Vec<&String> = a.keys().collect();
            let mut at = 0;
            for (k, value) in b {
                if markers == Markers::Inline && is_keys_marker(k) && !a.contains_key(k) {
                    continue;
                }
                let Some(pos) = keys[at..].iter().position(|x| *x == k) else {
                    return Err(format!("key {k:?} out of order or new"));
                };
                at += pos + 1;
                check_shape(&a[k], value, strategy, markers)?;
            }
            if markers == Markers::None && b.len() < a.len() && b.keys().any(|k| !a.contains_key(k)) {
                return Err("a marker key with markers none".into());
            }
            Ok(())
        }
        (a, b) if a == b => Ok(()),
        (a, b) => Err(format!("{b} is not {a}")),
    }
}

/// Every key the original has, recursively: with markers none the result drops none of
/// them unless the budget cannot hold them all.
fn all_keys_kept(v: &Value, out: &Value) -> bool {
    match (v, out) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| all_keys_kept(x, y)))
        }
        (Value::Array(a), Value::Array(b)) => b.iter().zip(a).all(|(y, x)| all_keys_kept(x, y)),
        _ => true,
    }
}

/// Checks one clamp against every promise; returns the result value when it cut.
fn check(v: &Value, req: &JsonRequest<'_>) -> Result<Option<Value>, TestCaseError> {
    let text = serde_json::to_string(v).unwrap();
    let total = js_measure(&render(v, req.gap));
    match clamp(&text, req) {
        Ok(None) => {
            prop_assert!(fits(total, &req.limits), "fits reported for {total:?} over {:?}", req.limits);
            Ok(None)
        }
        Ok(Some((out, elided, reported_total, output))) => {
            prop_assert_eq!(reported_total, total);
            prop_assert!(!fits(total, &req.limits));
            prop_assert!(fits(output, &req.limits), "{:?} over {:?}: {}", output, req.limits, out);
            if let [("value", path, 0, bytes)] = elided.as_slice() {
                // Nothing of the value fits: the short marker, or nothing.
                prop_assert_eq!(path.as_str(), "$");
                prop_assert_eq!(*bytes, total.bytes);
                prop_assert_eq!(js_measure(&out), output);
                let marker = format!("\"{SHORT_MARKER}\"");
                match req.markers {
                    Markers::Inline => {
                        prop_assert!(out == marker || out.is_empty() && !fits(js_measure(&marker), &req.limits));
                    }
                    Markers::None => prop_assert!(out.is_empty()),
                }
                return Ok(None);
            }
            let parsed: Value = serde_json::from_str(&out).map_err(|e| TestCaseError::fail(format!("{e}: {out}")))?;
            let rendered = js_measure(&render(&parsed, req.gap));
            prop_assert_eq!(rendered, output, "reported measure of {}", out);
            prop_assert!(fits(output, &req.limits), "{:?} over {:?}: {}", output, req.limits, out);
            check_shape(v, &parsed, req.strategy, req.markers).map_err(TestCaseError::fail)?;
            prop_assert!(!elided.is_empty() || parsed == *v, "cut with nothing elided: {}", out);
            Ok(Some(parsed))
        }
        Err(e) => Err(TestCaseError::fail(format!("{e} for {text}"))),
    }
}

// ---------------------------------------------------------------------------------------
// Examples
// ---------------------------------------------------------------------------------------

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

fn run(v: &Value, bytes: u64, strategy: Cut, markers: Markers) -> (Value, Vec<Gone>) {
    let req = request(limits(bytes), strategy, markers, "");
    check(v, &req).unwrap();
    let (out, elided, _, _) = clamp(&serde_json::to_string(v).unwrap(), &req).unwrap().expect("cut");
    (json(&out), elided)
}

#[test]
fn a_value_that_fits_is_not_cut() {
    let req = request(limits(100), Cut::Head, Markers::Inline, "");
    assert_eq!(clamp(r#"{"a":[1,2,3],"b":"text"}"#, &req), Ok(None));
    // Whitespace in the input does not count: the budget is for the rendering.
    assert_eq!(clamp("  {\n \"a\" : [ 1 , 2 ] }  ", &request(limits(13), Cut::Head, Markers::Inline, "")), Ok(None));
}

#[test]
fn a_huge_field_does_not_starve_its_siblings() {
    let stdout = "x".repeat(5 << 20);
    let stderr = "e".repeat(200);
    let v = json(&format!(r#"{{"command":"npm test","stdout":"{stdout}","stderr":"{stderr}","exitCode":1}}"#));
    for markers in [Markers::Inline, Markers::None] {
        let (out, elided) = run(&v, 51_200, Cut::Head, markers);
        assert_eq!(out["stderr"], v["stderr"]);
        assert_eq!(out["exitCode"], 1);
        assert_eq!(out["command"], "npm test");
        let kept = out["stdout"].as_str().unwrap();
        assert!(kept.len() > 50_000 && kept.len() < 51_200, "{}", kept.len());
        assert_eq!(elided, vec![gone("text", "$.stdout", kept.bytes().filter(|&b| b == b'x').count() as u64, 5 << 20)]);
        if markers == Markers::Inline {
            assert!(kept.ends_with(" bytes truncated]"), "{}", &kept[kept.len() - 40..]);
        } else {
            assert!(kept.bytes().all(|b| b == b'x'));
        }
    }
}

#[test]
fn fair_shares_are_equal_among_fields_larger_than_the_level() {
    let v =
        json(&format!(r#"{{"a":"{}","b":"{}","c":"{}"}}"#, "a".repeat(10_000), "b".repeat(300), "c".repeat(10_000)));
    let (out, _) = run(&v, 3_000, Cut::Head, Markers::None);
    assert_eq!(out["b"], v["b"]);
    let (a, c) = (out["a"].as_str().unwrap().len(), out["c"].as_str().unwrap().len());
    assert!(a.abs_diff(c) <= 1, "{a} vs {c}");
    assert!(a + c + 300 + 19 >= 2_990, "{a} + {c}");
}

#[test]
fn arrays_keep_first_items_and_say_how_many_were_dropped() {
    let records: Vec<String> = (0..1000).map(|i| format!(r#"{{"id":{i},"msg":"request {i} handled"}}"#)).collect();
    let v = json(&format!(r#"{{"items":[{}],"next":"cursor-2"}}"#, records.join(",")));
    let (out, elided) = run(&v, 1_000, Cut::Head, Markers::Inline);
    let items = out["items"].as_array().unwrap();
    let marker = items.last().unwrap().as_str().unwrap();
    let kept = items.len() - 1;
    assert_eq!(marker, format!("[... {} more items]", 1000 - kept));
    for (i, item) in items[..kept].iter().enumerate() {
        assert_eq!(item, &v["items"][i]);
    }
    assert_eq!(out["next"], "cursor-2");
    assert_eq!(elided, vec![gone("items", "$.items", kept as u64, 1000)]);
    // Schema-safe: only a shorter array.
    let (out, _) = run(&v, 1_000, Cut::Head, Markers::None);
    let items = out["items"].as_array().unwrap();
    assert!(items.iter().enumerate().all(|(i, x)| x == &v["items"][i]), "{out}");
    // The first item is shrunk when no item fits whole, so a one-item array shows something.
    let one = json(&format!(r#"[{{"log":"{}"}},1,2]"#, "x".repeat(1000)));
    let (out, elided) = run(&one, 100, Cut::Head, Markers::Inline);
    assert!(out[0]["log"].as_str().unwrap().starts_with("xxx"));
    assert_eq!(out[1], "[... 2 more items]");
    assert_eq!(elided[1], gone("items", "$", 1, 3));
    // Head and tail.
    let (out, _) = run(&v, 1_000, Cut::HeadTail { head_ratio: 0.5 }, Markers::Inline);
    let items = out["items"].as_array().unwrap();
    assert_eq!(items[0], v["items"][0]);
    assert_eq!(items[items.len() - 1], v["items"][999]);
    assert!(items.iter().any(is_items_marker));
}

#[test]
fn dropped_keys_are_counted_under_a_marker_key_that_is_not_taken() {
    let mut members = vec![format!(r#""…":"{}""#, "x".repeat(100))];
    members.extend((1..10).map(|i| format!(r#""k{i}":"{}""#, "y".repeat(100))));
    let v = json(&format!("{{{}}}", members.join(",")));
    let (out, elided) = run(&v, 60, Cut::Head, Markers::Inline);
    assert_eq!(out, json(r#"{"…":"xx[...]","k1":"y[...]","……":"[... 8 more keys]"}"#));
    assert_eq!(elided, vec![gone("text", r#"$["…"]"#, 2, 100), gone("text", "$.k1", 1, 100), gone("keys", "$", 2, 10)]);
    // No room for a member in its smallest form ("[...]") beside the marker: only the marker.
    let (out, elided) = run(&v, 40, Cut::Head, Markers::Inline);
    assert_eq!(out, json(r#"{"……":"[... 10 more keys]"}"#));
    assert_eq!(elided, vec![gone("keys", "$", 0, 10)]);
    // No room for the long marker: the short one.
    let (out, elided) = run(&v, 20, Cut::Head, Markers::Inline);
    assert_eq!(out, json(r#"{"……":"[...]"}"#));
    assert_eq!(elided, vec![gone("keys", "$", 0, 10)]);
    // Every key in its smallest form when they all fit, with no marker.
    let (out, _) = run(&v, 135, Cut::Head, Markers::Inline);
    assert_eq!(out.as_object().unwrap().len(), 10, "{out}");
}

#[test]
fn paths_name_keys_and_indices() {
    let v = json(&format!(r#"{{"a key":[{{"log":"{}"}}]}}"#, "z".repeat(500)));
    let (_, elided) = run(&v, 100, Cut::Head, Markers::Inline);
    assert_eq!(elided[0], gone("text", r#"$["a key"][0].log"#, 53, 500));
}

#[test]
fn strings_are_cut_between_escapes_and_surrogate_pairs() {
    let v = Value::String("a\"\\😀\r\n\u{1}é".repeat(100));
    for bytes in 2..60 {
        for strategy in [Cut::Head, Cut::Tail, Cut::HeadTail { head_ratio: 0.5 }] {
            for markers in [Markers::Inline, Markers::None] {
                check(&v, &request(limits(bytes), strategy, markers, "")).unwrap();
            }
        }
    }
}

#[test]
fn indentation_and_lines_are_budgeted_as_rendered() {
    let v = json(r#"{"a":[1,2,3,4,5,6,7,8,9,10],"b":{"c":"text","d":[true,false,null]}}"#);
    for lines in 1..20 {
        for gap in ["", "  ", "\t", "--"] {
            let req = request(
                Limits { max_chars: UNLIMITED, max_bytes: UNLIMITED, max_lines: lines },
                Cut::Head,
                Markers::Inline,
                gap,
            );
            check(&v, &req).unwrap();
        }
    }
}

#[test]
fn below_the_smallest_form_the_short_marker_or_nothing() {
    let value = |text: &str, bytes: u64, markers: Markers| {
        let (out, elided, total, output) =
            clamp(text, &request(limits(bytes), Cut::Head, markers, "")).unwrap().expect("cut");
        assert_eq!(elided, vec![gone("value", "$", 0, total.bytes)]);
        assert_eq!(output, js_measure(&out));
        out
    };
    // `["[...]"]` is 9 bytes: below it, the string marker; below that, nothing.
    assert_eq!(value(r#"["abc","def"]"#, 8, Markers::Inline), r#""[...]""#);
    assert_eq!(value(r#"["abc","def"]"#, 7, Markers::Inline), r#""[...]""#);
    assert_eq!(value(r#"["abc","def"]"#, 6, Markers::Inline), "");
    assert_eq!(value(r#"["abc","def"]"#, 1, Markers::None), "");
    // A number cannot be cut.
    assert_eq!(value("123456", 3, Markers::Inline), "");
    assert_eq!(value("12345678901234567890", 10, Markers::Inline), r#""[...]""#);
    assert_eq!(value("12345678901234567890", 10, Markers::None), "");
    // Lines count too: no text of one line fits in none.
    let none = Limits { max_chars: UNLIMITED, max_bytes: UNLIMITED, max_lines: 0 };
    let (out, _, _, output) = clamp("[1,2]", &request(none, Cut::Head, Markers::Inline, "")).unwrap().unwrap();
    assert_eq!((out.as_str(), output), ("", Measure { chars: 0, bytes: 0, lines: 0 }));
    // The smallest forms that say they were cut.
    let (out, elided) = run(&json(r#"["abc","def"]"#), 9, Cut::Head, Markers::Inline);
    assert_eq!((out, elided), (json(r#"["[...]"]"#), vec![gone("items", "$", 0, 2)]));
    let (out, _) = run(&json(r#"{"a":"bcdefgh","i":[1,2,3]}"#), 15, Cut::Head, Markers::Inline);
    assert_eq!(out, json(r#"{"…":"[...]"}"#));
    let (out, _) = run(&json(r#""abcdefgh""#), 7, Cut::Head, Markers::Inline);
    assert_eq!(out, json(r#""[...]""#));
    let (out, _) = run(&json(r#""abcdefghijk""#), 10, Cut::Head, Markers::Inline);
    assert_eq!(out, json(r#""abc[...]""#));
}

#[test]
fn invalid_json_is_an_error() {
    for bad in ["", "[", "{\"a\"}", "[1,]", "01", "\"\u{1}\"", "tru", "[1] x", "{\"a\":1,}", "\"\\x\"", "-", "1.", "1e"]
    {
        let req = request(limits(1), Cut::Head, Markers::Inline, "");
        assert!(matches!(clamp(bad, &req), Err(JsonError::Invalid { .. })), "{bad:?}");
    }
}

#[test]
fn deep_nesting_does_not_recurse_without_bound() {
    let depth = 100_000;
    let text = format!("{}\"{}\"{}", "[".repeat(depth), "x".repeat(100), "]".repeat(depth));
    let req = request(limits(depth as u64), Cut::Head, Markers::Inline, "");
    let units: Vec<u8> = text.bytes().collect();
    let out = clamp_json(&units, &req).unwrap().1.unwrap();
    assert!(out.output.bytes <= depth as u64 && out.text.len() <= depth);
    // Levels below MAX_DEPTH are emptied rather than cut inside.
    assert!(out.text.starts_with(&[b'['; 64]));
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z ]{0,40}",
        2 => "[a-z\"\\\\\n\r\t\u{1}é😀中]{0,30}",
        1 => "x{200,2000}",
    ]
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1000i64..100_000).prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 120, 12, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(Value::Array),
            prop::collection::vec(("[a-z…]{0,4}", inner), 0..8)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

fn cut_strategy() -> impl Strategy<Value = Cut> {
    prop_oneof![Just(Cut::Head), Just(Cut::Tail), (0.0f64..=1.0).prop_map(|head_ratio| Cut::HeadTail { head_ratio })]
}

fn any_limits() -> impl Strategy<Value = Limits> {
    let dim = |max: u64| prop_oneof![2 => Just(UNLIMITED), 3 => 0..max];
    (dim(3000), dim(3000), dim(60)).prop_map(|(max_chars, max_bytes, max_lines)| Limits {
        max_chars,
        max_bytes,
        max_lines,
    })
}

proptest! {
    #![proptest_config(proptest_config("tests/proptest-regressions/json.txt", 3000))]

    #[test]
    fn every_result_parses_fits_and_keeps_the_shape(
        v in value(),
        limits in any_limits(),
        strategy in cut_strategy(),
        inline in any::<bool>(),
        gap in prop_oneof![Just(""), Just("  "), Just("\t"), Just("→")],
    ) {
        let markers = if inline { Markers::Inline } else { Markers::None };
        check(&v, &request(limits, strategy, markers, gap))?;
    }

    #[test]
    fn with_markers_none_every_key_stays_while_the_smallest_forms_fit(
        v in value(),
        bytes in 0u64..3000,
    ) {
        let req = request(limits(bytes), Cut::Head, Markers::None, "");
        if let Some(out) = check(&v, &req)? {
            // The smallest form keeping every key: every string empty, every array empty.
            fn skeleton(v: &Value) -> Value {
                match v {
                    Value::String(_) => Value::String(String::new()),
                    Value::Array(_) => Value::Array(vec![]),
                    Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), skeleton(x))).collect()),
                    x => x.clone(),
                }
            }
            if (render(&skeleton(&v), "").len() as u64) <= bytes {
                prop_assert!(all_keys_kept(&v, &out), "{} from {}", out, v);
            }
        }
    }

    #[test]
    fn a_member_no_larger_than_an_equal_share_is_kept_whole(
        sizes in prop::collection::vec(0usize..400, 1..8),
        bytes in 0u64..2000,
    ) {
        let members: Map<String, Value> =
            sizes.iter().enumerate().map(|(i, &n)| (format!("k{i}"), Value::String("v".repeat(n)))).collect();
        let v = Value::Object(members);
        let req = request(limits(bytes), Cut::Head, Markers::Inline, "");
        if let Some(out) = check(&v, &req)? {
            let keys = v.as_object().unwrap();
            let overhead: u64 = 2 + keys.keys().map(|k| k.len() as u64 + 4).sum::<u64>() - 1;
            // Every member's smallest form: whole, or "[...]" (7 bytes).
            let smallest: u64 = keys.values().map(|x| (render(x, "").len() as u64).min(7)).sum();
            if overhead + smallest <= bytes {
                let share = (bytes - overhead) / keys.len() as u64;
                for (k, x) in keys {
                    if render(x, "").len() as u64 <= share {
                        prop_assert_eq!(&out[k], x, "{} (share {})", k, share);
                    }
                }
            }
        }
    }

    #[test]
    fn no_text_makes_it_panic(text in "[\\[\\]{}\",:0-9a-z\\\\. \u{1}é😀-]{0,60}", bytes in 0u64..40) {
        let _ = clamp(&text, &request(limits(bytes), Cut::Head, Markers::Inline, ""));
        let units: Vec<u16> = text.encode_utf16().chain([0xD800, 0x22]).collect();
        let _ = clamp_json(&units, &request(limits(bytes), Cut::Tail, Markers::None, " "));
    }
}
