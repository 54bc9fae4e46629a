//! The planner with and without snapping, on arbitrary UTF-16 text and limits: never
//! panics, every result fits, and a snapped head ends a line or keeps its 4/5 share. Run:
//! `cargo +nightly fuzz run plan_snap` in crates/toolclamp-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolclamp_core::{auto_strategy, measure, plan_with_snap, Limits, Notice, Snap, Strategy, Units, UNLIMITED};

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (head, text) = data.split_at(4);
    let units: Vec<u16> = text
        .chunks(2)
        .map(|c| match c[0] % 8 {
            // Mostly line breaks, \r and ASCII, so lines and \r\n are common.
            0 => b'\n' as u16,
            1 => b'\r' as u16,
            2 => u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)]),
            _ => (b'a' + c[0] % 26) as u16,
        })
        .collect();
    let limit = |b: u8| if b == 255 { UNLIMITED } else { b as u64 };
    let limits = Limits { max_chars: limit(head[0]), max_bytes: limit(head[1]), max_lines: limit(head[2] % 64) };
    let src = Units::new(&units);
    let strategy = match head[3] % 4 {
        0 => Strategy::Head,
        1 => Strategy::Tail,
        2 => Strategy::HeadTail { head_ratio: (head[3] >> 2) as f64 / 63.0 },
        _ => auto_strategy(&src, 0.5),
    };
    for snap in [Snap::None, Snap::Line] {
        let Some(plan) = plan_with_snap(&src, &limits, strategy, &mut Notice::Default, true, snap).unwrap() else {
            continue;
        };
        let mut out = units[..plan.head_end].to_vec();
        out.extend(plan.glue.encode_utf16());
        out.extend_from_slice(&units[plan.tail_start..]);
        let m = measure(&out[..]);
        assert!(m.chars <= limits.max_chars && m.bytes <= limits.max_bytes && m.lines <= limits.max_lines);
        if snap == Snap::Line && plan.head_end > 0 && units[plan.head_end - 1] != b'\n' as u16 {
            let line_end = units[..plan.head_end].iter().rposition(|&u| u == b'\n' as u16).map_or(0, |p| p + 1);
            assert!(line_end * 5 < plan.head_end * 4, "a head that could snap did not");
        }
    }
});
