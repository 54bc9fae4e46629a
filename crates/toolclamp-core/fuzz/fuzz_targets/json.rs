//! The JSON clamp on arbitrary input: never panics; on valid JSON every result parses and
//! fits. Run: `cargo +nightly fuzz run json` in crates/toolclamp-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolclamp_core::{clamp_json, JsonRequest, Limits, Markers, Strategy, UNLIMITED};

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (head, text) = data.split_at(4);
    let limit = |b: u8| if b == 255 { UNLIMITED } else { b as u64 * 4 };
    let limits = Limits { max_chars: limit(head[0]), max_bytes: limit(head[1]), max_lines: limit(head[2] & 0x3f) };
    let strategy = match head[3] % 3 {
        0 => Strategy::Head,
        1 => Strategy::Tail,
        _ => Strategy::HeadTail { head_ratio: (head[3] >> 2) as f64 / 63.0 },
    };
    let markers = if head[3] & 0x80 == 0 { Markers::Inline } else { Markers::None };
    let gap = if head[2] & 0x40 == 0 { "" } else { "  " };
    let request = JsonRequest { limits, strategy, markers, gap };
    // As Latin-1 units (every byte a char) and as UTF-16 units (pairs of bytes).
    let _ = clamp_json(text, &request);
    let wide: Vec<u16> = text.chunks(2).map(|c| u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)])).collect();
    let _ = clamp_json(&wide, &request);
    // Valid JSON: the result parses and fits.
    if let Ok(s) = std::str::from_utf8(text) {
        if serde_json::from_str::<serde_json::Value>(s).is_ok() {
            let units: Vec<u16> = s.encode_utf16().collect();
            if let Ok((_, Some(out))) = clamp_json(&units, &request) {
                let text = String::from_utf16(&out.text).expect("no lone surrogates added");
                serde_json::from_str::<serde_json::Value>(&text).expect("the result parses");
                assert!(out.output.bytes <= limits.max_bytes && out.output.chars <= limits.max_chars);
                assert!(out.output.lines <= limits.max_lines);
            }
        }
    }
});
