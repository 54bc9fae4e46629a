//! A capture that normalises terminal output, fed hostile escapes: it plans exactly like
//! normalising the whole input and then planning, its text is never more than
//! `MAX_GROWTH` bytes a byte plus a screen line, and its memory stays bounded by the limits
//! (plus a few screen lines) however much the input would grow.

use crate::common;
use crate::hostile;

use hostile::{hostile_text, options};
use proptest::prelude::*;
use toolclamp_core::{
    normalize_terminal_output, plan_with_snap, Capture, CaptureOptions, Limits, Normalize, Notice, Snap, Source, Units,
    Utf8, CAPTURE_MARGIN, UNLIMITED,
};
use toolclamp_core::{MAX_GROWTH, WIDTH};
// `Strategy` is proptest's generator trait here; the core's cut strategy is `Cut`.
use toolclamp_core::Strategy as Cut;

/// What a capture holds at most besides its two buffers: the line being drawn (as text, as
/// chars, and encoded on its way out, each at most 4 bytes a cell, with spare capacity) and
/// a batch of text on its way to the buffers.
const NORMALIZING: usize = 6 * 4 * WIDTH + 2 * 64 * 1024;

/// The most a capture with `limits` may hold: each buffer is its cap plus slack.
fn memory_bound(limits: &Limits) -> usize {
    let reach = limits.max_bytes.min(limits.max_chars.saturating_mul(3)) as usize + CAPTURE_MARGIN;
    2 * 2 * (reach + 64 * 1024) + NORMALIZING
}

/// Feeds `text` in the chunks `at` cuts it into, checking memory after each.
fn capture(text: &[u8], at: &[usize], limits: Limits, strategy: Cut, options: Normalize) -> Capture {
    let mut cap = Capture::new(CaptureOptions { limits, strategy, normalize: Some(options), raw: false }).unwrap();
    let mut from = 0;
    for &to in at.iter().chain([&text.len()]) {
        cap.write_bytes(&text[from..to]);
        from = to;
        assert!(cap.kept_bytes() <= memory_bound(&limits), "{} bytes kept", cap.kept_bytes());
    }
    cap.finish();
    cap
}

/// The capture's result against normalising the whole text, then planning it as the JS
/// string it is (what `truncateText(text, { normalize })` gives).
fn same_as_whole(cap: &Capture, text: &[u8], limits: &Limits, strategy: Cut, options: Normalize) {
    let whole = normalize_terminal_output(text, options);
    assert_eq!(cap.totals(), Utf8::new(&whole).totals());
    let units: Vec<u16> = whole.encode_utf16().collect();
    let expected =
        plan_with_snap(&Units::new(&units), limits, strategy, &mut Notice::Default, true, Snap::None).unwrap();
    let src = cap.source();
    let got = plan_with_snap(&src, limits, strategy, &mut Notice::Default, true, Snap::None).unwrap();
    let (mut head, mut tail) = (Vec::new(), Vec::new());
    match (got, expected) {
        (None, None) => src.copy_to(0, src.len(), &mut head),
        (Some(g), Some(e)) => {
            assert_eq!((&g.glue, g.total, g.output, g.omitted), (&e.glue, e.total, e.output, e.omitted));
            src.copy_to(0, g.head_end, &mut head);
            src.copy_to(g.tail_start, src.len(), &mut tail);
            let utf16 = |b: Vec<u8>| String::from_utf8(b).unwrap().encode_utf16().collect::<Vec<_>>();
            assert_eq!(utf16(head), units[..e.head_end]);
            assert_eq!(utf16(tail), units[e.tail_start..]);
        }
        (g, e) => panic!("{g:?} vs {e:?}"),
    }
}

/// Found in review: `'\x1b[65535Cx\n'.repeat(110_000)` (1.1 MB) written at once to a
/// normalising capture asked for 4 GiB (the normalised chunk was built whole, 64 KiB a
/// line, before the capture kept its bounded part of it).
#[test]
fn a_flood_of_far_moves_keeps_a_capture_small() {
    let text = "\x1b[65535Cx\n".repeat(110_000);
    let limits = Limits { max_chars: UNLIMITED, max_bytes: 51_200, max_lines: 2_000 };
    for strategy in [Cut::Tail, Cut::Head, Cut::HeadTail { head_ratio: 0.3 }] {
        let cap = capture(text.as_bytes(), &[], limits, strategy, Normalize::default());
        same_as_whole(&cap, text.as_bytes(), &limits, strategy, Normalize::default());
        assert!(cap.totals().bytes as usize <= MAX_GROWTH * text.len() + WIDTH);
        // The same as a JS string: UTF-16 units, in one write.
        let mut cap16 =
            Capture::new(CaptureOptions { limits, strategy, normalize: Some(Normalize::default()), raw: false })
                .unwrap();
        cap16.write_utf16(&text.encode_utf16().collect::<Vec<_>>());
        assert!(cap16.kept_bytes() <= memory_bound(&limits));
        cap16.finish();
        assert_eq!(cap16.totals(), cap.totals());
    }
}

fn limits() -> impl Strategy<Value = Limits> {
    let dim = |max: u64| prop_oneof![1 => Just(UNLIMITED), 3 => 0..max];
    (dim(400), 0..900u64, dim(40)).prop_map(|(c, b, l)| Limits { max_chars: c, max_bytes: b, max_lines: l })
}

fn strategy() -> impl Strategy<Value = Cut> {
    prop_oneof![Just(Cut::Head), Just(Cut::Tail), (0.0f64..=1.0).prop_map(|r| Cut::HeadTail { head_ratio: r })]
}

proptest! {
    #![proptest_config(common::proptest_config("tests/proptest-regressions/normalize_capture.txt", 1000))]

    #[test]
    fn a_normalising_capture_plans_like_the_whole_text_in_bounded_memory(
        text in hostile_text(), options in options(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        limits in limits(), strategy in strategy(),
    ) {
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(text.len() + 1)).collect();
        at.sort_unstable();
        let cap = capture(&text, &at, limits, strategy, options);
        same_as_whole(&cap, &text, &limits, strategy, options);
        prop_assert!(cap.totals().bytes as usize <= MAX_GROWTH * text.len() + WIDTH);
    }
}
