//! The capture on arbitrary bytes: split into chunks anywhere, with small limits so the
//! kept buffers leave a gap, it must plan exactly like the whole decoded (and, when asked,
//! normalised) text (cuts, glue, every count), never panic, and with normalisation keep its
//! memory bounded and its text within `MAX_GROWTH` bytes a byte plus a screen line.
//! Run: `cargo +nightly fuzz run capture` in crates/toolclamp-core.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolclamp_core::{MAX_GROWTH, WIDTH};
use toolclamp_core::{
    decode_lossy, normalize_terminal_output, plan_with_snap, Capture, CaptureOptions, Limits, Normalize, Notice, Snap,
    Source, Strategy, Units, Utf8, CAPTURE_MARGIN, UNLIMITED,
};

fuzz_target!(|data: &[u8]| {
    if data.len() < 7 {
        return;
    }
    let (head, text) = data.split_at(7);
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
    // Half the inputs are normalised, with each rule on or off.
    let bit = |i: u8| head[6] & (1 << i) == 0;
    let normalize = (head[6] & 0x10 != 0)
        .then_some(Normalize { ansi: bit(0), carriage_returns: bit(1), backspaces: bit(2), controls: bit(3) });
    let mut capture = Capture::new(CaptureOptions { limits, strategy, normalize, raw: false }).unwrap();
    // What a capture holds at most: two buffers of their cap plus slack, and when
    // normalising the line being drawn and a batch on its way.
    let reach = limits.max_bytes.min(limits.max_chars.saturating_mul(3)) as usize + CAPTURE_MARGIN;
    let memory = 2 * 2 * (reach + 64 * 1024) + 6 * 4 * WIDTH + 2 * 64 * 1024;
    // Chunks of 1..=16 bytes, their sizes taken from the text itself.
    let step = usize::from(head[5] % 16) + 1;
    for chunk in text.chunks(step) {
        capture.write_bytes(chunk);
        assert!(capture.kept_bytes() <= memory, "{} bytes kept", capture.kept_bytes());
    }
    capture.finish();
    let whole = match normalize {
        Some(options) => normalize_terminal_output(text, options),
        None => decode_lossy(text).into_owned(),
    };
    if normalize.is_some() {
        assert!(whole.len() <= MAX_GROWTH * text.len() + WIDTH, "{} bytes from {}", whole.len(), text.len());
    }
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
