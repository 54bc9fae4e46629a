//! The JSON clamp on arbitrary input: never panics; on valid JSON every result fits (from a
//! budget of nothing up), measures what it reports, and parses unless nothing of the value
//! fits; a text given back as it is fits as it is; paths locate values inside the text.
//! Run: `cargo +nightly fuzz run json` in crates/toolclamp-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolclamp_core::{
    clamp_json, clamp_json_text, locate_json, measure, JsonRequest, JsonText, Limits, Markers, Measure, PathStep,
    Strategy, UNLIMITED,
};

fn fits(m: Measure, l: &Limits) -> bool {
    m.chars <= l.max_chars && m.bytes <= l.max_bytes && m.lines <= l.max_lines
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (head, text) = data.split_at(4);
    // Small limits are the interesting ones: 0 to 63 units, or none.
    let limit = |b: u8, scale: u64| if b == 255 { UNLIMITED } else { (b as u64 & 0x3f) * scale };
    let limits =
        Limits { max_chars: limit(head[0], 4), max_bytes: limit(head[1], 4), max_lines: limit(head[2] & 0x3f, 1) };
    let strategy = match head[3] % 3 {
        0 => Strategy::Head,
        1 => Strategy::Tail,
        _ => Strategy::HeadTail { head_ratio: (head[3] >> 2) as f64 / 63.0 },
    };
    let markers = if head[3] & 0x80 == 0 { Markers::Inline } else { Markers::None };
    let gap = if head[2] & 0x40 == 0 { "" } else { "  " };
    let request = JsonRequest { limits, strategy, markers, gap, indent: false };
    // As Latin-1 units (every byte a char) and as UTF-16 units (pairs of bytes).
    let _ = clamp_json(text, &request);
    let wide: Vec<u16> = text.chunks(2).map(|c| u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)])).collect();
    let _ = clamp_json(&wide, &request);
    let _ = clamp_json_text(&wide, &request);
    let steps: Vec<PathStep> = head.iter().map(|&b| PathStep::Index((b % 4) as usize)).collect();
    let _ = locate_json(&wide, &[steps.clone(), vec![]]);
    // Valid JSON: the result parses and fits.
    let Ok(s) = std::str::from_utf8(text) else { return };
    if serde_json::from_str::<serde::de::IgnoredAny>(s).is_err() {
        return;
    }
    let units: Vec<u16> = s.encode_utf16().collect();
    let as_string = |u: &[u16]| String::from_utf16(u).expect("no lone surrogates added");
    if let Ok((_, Some(out))) = clamp_json(&units, &request) {
        let text = as_string(&out.text);
        assert!(text.is_empty() || serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok(), "{text}");
        assert!(fits(out.output, &limits), "{:?} over {limits:?}", out.output);
    }
    match clamp_json_text(&units, &request).expect("valid JSON") {
        JsonText::AsGiven { input } => assert!(fits(input, &limits) && input == measure(&units)),
        JsonText::Rendered { input, clamped } => {
            assert!(!fits(input, &limits));
            let text = as_string(&clamped.text);
            let written: Vec<u16> = text.encode_utf16().collect();
            assert_eq!(measure(&written), clamped.output, "{text}");
            assert!(fits(clamped.output, &limits), "{:?} over {limits:?}: {text}", clamped.output);
            assert!(text.is_empty() || serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok(), "{text}");
        }
    }
    let spans = locate_json(&units, &[steps, vec![]]).expect("valid JSON");
    let whole = spans[1].clone().expect("the root");
    assert_eq!(&s[..].trim_matches([' ', '\t', '\n', '\r']), &as_string(&units[whole]));
    if let Some(span) = spans[0].clone() {
        let value = as_string(&units[span]);
        assert!(serde_json::from_str::<serde::de::IgnoredAny>(&value).is_ok(), "{value}");
    }
});
