//! Clamps on clamps, on arbitrary text: a plain plan of it, then a plan of that result as
//! the original it stands for (and the same for any notices the text itself holds). Never
//! panics, every result fits, kept text comes only from around the gap, and a counted notice
//! is read back as one notice. Run: `cargo +nightly fuzz run restack` in crates/toolclamp-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolclamp_core::{
    find_prior, measure, plan_restacked, plan_with_snap, Limits, Notice, Plan, Snap, Strategy, Units, UNLIMITED,
};

/// Notices of every format the library reads, and near misses.
const NOTICES: [&str; 13] = [
    "\n[... 5 bytes truncated at the end ...]",
    " [... 5 bytes truncated at the end ...]",
    " [... 2 chars truncated in the middle ...]\n",
    "[... 2 lines, 3 chars truncated at the start ...]\n",
    "\n[... 1 line truncated in the middle ...]\n",
    "\n[... 4 chars truncated from stdout ...]\n",
    "\n[... 7 bytes of this tool output cut to fit the context window; full output saved to /x ...]\n",
    "\n[... 3 lines truncated at the end; full output saved to /s (dropped: lines 2–4) ...]",
    "\n[... 8 bytes truncated in the middle; full output saved to /r ...]\n",
    "\n[... truncated ...]\n",
    "\n[... 3 lines truncated in the middle so far (input interrupted) ...]\n",
    // truncateToolOutput's indicator lines.
    "[First 2 lines of 9]\n",
    "\n[Last 1 lines of 9]\n",
];

fn limits(b: [u8; 3]) -> Limits {
    let limit = |x: u8, scale: u64| if x == 255 { UNLIMITED } else { x as u64 * scale };
    Limits { max_chars: limit(b[0], 2), max_bytes: limit(b[1], 2), max_lines: limit(b[2] % 64, 1) }
}

fn strategy(b: u8) -> Strategy {
    match b % 3 {
        0 => Strategy::Head,
        1 => Strategy::Tail,
        _ => Strategy::HeadTail { head_ratio: (b >> 2) as f64 / 63.0 },
    }
}

fn apply(units: &[u16], plan: &Plan) -> Vec<u16> {
    let mut out = units[..plan.head_end].to_vec();
    out.extend(plan.glue.encode_utf16());
    out.extend_from_slice(&units[plan.tail_start..]);
    out
}

fn fits(units: &[u16], limits: &Limits) -> bool {
    let m = measure(units);
    m.chars <= limits.max_chars && m.bytes <= limits.max_bytes && m.lines <= limits.max_lines
}

/// Plans `units` around their notices, if they hold any, and checks the result.
fn restack(units: &[u16], limits: &Limits, strategy: Strategy, snap: Snap) {
    let Some(prior) = find_prior(units) else { return };
    assert!(prior.head_end < prior.tail_start && prior.tail_start <= units.len());
    if fits(units, limits) {
        return;
    }
    let plan = plan_restacked(units, &prior, limits, strategy, &mut Notice::Default, snap).unwrap();
    assert!(plan.head_end <= prior.head_end && plan.tail_start >= prior.tail_start);
    let out = apply(units, &plan);
    assert!(fits(&out, limits), "over the limits");
    if plan.glue.trim_matches(['\n', ' ']).as_bytes().get(5).is_some_and(u8::is_ascii_digit) {
        assert_eq!(find_prior(&out).map(|p| p.notices), Some(1), "one notice read back");
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let (head, text) = data.split_at(8);
    let units: Vec<u16> = text
        .chunks(2)
        .flat_map(|c| match c[0] % 10 {
            0 => vec![b'\n' as u16],
            1 => vec![b'\r' as u16],
            2 => vec![u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)])],
            3 => NOTICES[*c.get(1).unwrap_or(&0) as usize % NOTICES.len()].encode_utf16().collect(),
            _ => vec![(b'a' + c[0] % 26) as u16],
        })
        .collect();
    let snap = if head[6] & 1 == 0 { Snap::None } else { Snap::Line };
    let (first, second) = (limits([head[0], head[1], head[2]]), limits([head[3], head[4], head[5]]));
    restack(&units, &second, strategy(head[7]), snap);
    let src = Units::new(&units);
    let Some(plan) = plan_with_snap(&src, &first, strategy(head[6] >> 1), &mut Notice::Default, true, snap).unwrap()
    else {
        return;
    };
    restack(&apply(&units, &plan), &second, strategy(head[7]), snap);
});
