//! The capture on arbitrary bytes: split into chunks anywhere, with small limits so the
//! kept buffers leave a gap, it must plan exactly like the whole decoded text (cuts, glue,
//! every count) and never panic. Run: `cargo +nightly fuzz run capture` in crates/toolclamp-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolclamp_core::{
    decode_lossy, plan_with_snap, Capture, CaptureOptions, Limits, Notice, Snap, Source, Strategy, Units, Utf8, UNLIMITED,
};

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let (head, text) = data.split_at(6);
    let dim = |b: u8, scale: u64| if b == 255 { UNLIMITED } else { u64::from(b) * scale };
    let mut limits = Limits { max_chars: dim(head[0], 2), max_bytes: dim(head[1], 3), max_lines: dim(head[2], 1) / 4 };
    if limits.max_chars == UNLIMITED && limits.max_bytes == UNLIMITED {
        limits.max_bytes = 64;
    }
    let strategy = match head[3] % 3 {
        0 => Strategy::Head,
        1 => Strategy::Tail,
        _ => Strategy::HeadTail { head_ratio: f64::from(head[3]) / 255.0 },
    };
    let snap = if head[4] & 1 == 1 { Snap::Line } else { Snap::None };
    let template = ["", "[{omitted} {fromLine}-{toLine}]", "<{headEnd}|{tailStart}>"][usize::from(head[4] >> 1) % 3];
    let mut capture = Capture::new(CaptureOptions { limits, strategy, normalize: None, raw: false }).unwrap();
    // Chunks of 1..=16 bytes, their sizes taken from the text itself.
    let step = usize::from(head[5] % 16) + 1;
    for chunk in text.chunks(step) {
        capture.write_bytes(chunk);
    }
    capture.finish();
    let whole = decode_lossy(text).into_owned();
    // The capture stands for the JS string: plans of its UTF-16 units, compared by glue and
    // measures (offsets are units there, bytes here).
    let units: Vec<u16> = whole.encode_utf16().collect();
    let src = Units::new(&units);
    for mut notice in [Notice::Default, Notice::Template(template)] {
        let expected = plan_with_snap(&src, &limits, strategy, &mut notice, true, snap).unwrap();
        let got = plan_with_snap(&capture.source(), &limits, strategy, &mut notice, true, snap).unwrap();
        match (got, expected) {
            (None, None) => {}
            (Some(g), Some(e)) => {
                assert_eq!((&g.glue, g.total, g.output, g.omitted), (&e.glue, e.total, e.output, e.omitted));
                let s = capture.source();
                let (mut head, mut tail) = (Vec::new(), Vec::new());
                s.copy_to(0, g.head_end, &mut head);
                s.copy_to(g.tail_start, s.len(), &mut tail);
                assert_eq!(String::from_utf8(head).unwrap().encode_utf16().collect::<Vec<_>>(), units[..e.head_end]);
                assert_eq!(String::from_utf8(tail).unwrap().encode_utf16().collect::<Vec<_>>(), units[e.tail_start..]);
            }
            (g, e) => panic!("{g:?} vs {e:?}"),
        }
    }
    assert_eq!(capture.totals(), Utf8::new(&whole).totals());
});
