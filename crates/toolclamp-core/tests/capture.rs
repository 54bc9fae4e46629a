//! The capture: fed a text in chunks split anywhere, it must plan exactly like the whole text
//! (as `Utf8`, itself checked against UTF-16 plans and the brute-force reference), while
//! keeping only O(limits) of it. Each case plans both ways with the same options and
//! compares the plans (cuts, glue, every measure) and the kept bytes.

use crate::common;

use proptest::prelude::*;
use toolclamp_core::{
    decode_lossy, normalize_terminal_output, plan_head_at, plan_with_snap, Capture, CaptureOptions, Limits, Normalize,
    Notice, NoticeFacts, Plan, Snap, Source, Units, Utf8, CAPTURE_MARGIN, UNLIMITED,
};
// `Strategy` is proptest's generator trait here; the core's cut strategy is `Cut`.
use toolclamp_core::Strategy as Cut;

fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => "[a-z ]{1,6}".prop_map(String::into_bytes),
        3 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => Just(b"\r".to_vec()),
        2 => Just("é".as_bytes().to_vec()),
        2 => Just("日本".as_bytes().to_vec()),
        2 => Just("😀".as_bytes().to_vec()),
        1 => Just(b"\x1b[1;31m".to_vec()),
        1 => Just(b"\x08".to_vec()),
        // Invalid UTF-8: stray continuation, cut sequences, overlongs, surrogates.
        1 => prop_oneof![Just(vec![0x80]), Just(vec![0xE6, 0x97]), Just(vec![0xF0, 0x9F]), Just(vec![0xC0, 0xAF]),
                          Just(vec![0xED, 0xA0, 0x80]), Just(vec![0xFF])],
        1 => (20usize..300).prop_map(|n| "x".repeat(n).into_bytes()),
        1 => (5usize..60).prop_map(|n| "語😀\n".repeat(n).into_bytes()),
    ]
}

fn text() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(piece(), 0..80).prop_map(|p| p.concat())
}

fn strategy() -> impl Strategy<Value = Cut> {
    prop_oneof![
        3 => Just(Cut::Head),
        3 => Just(Cut::Tail),
        1 => Just(Cut::HeadTail { head_ratio: 0.5 }),
        2 => (0.0f64..=1.0).prop_map(|r| Cut::HeadTail { head_ratio: r }),
    ]
}

#[derive(Clone, Debug)]
enum Kind {
    Default,
    Template(&'static str),
    Erratic,
}

fn notice_kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        4 => Just(Kind::Default),
        1 => Just(Kind::Template("[... {omitted} dropped; lines {fromLine}-{toLine} ...]")),
        1 => Just(Kind::Template("<{headEnd}|{tailStart}> of {totalBytes}")),
        1 => Just(Kind::Template("")),
        1 => Just(Kind::Erratic),
    ]
}

/// Limits small enough that most texts leave a gap between the kept buffers.
fn limits() -> impl Strategy<Value = Limits> {
    let dim = |max: u64| prop_oneof![1 => Just(UNLIMITED), 3 => 0..max];
    (dim(400), dim(900), dim(40)).prop_map(|(c, b, l)| Limits { max_chars: c, max_bytes: b, max_lines: l })
}

fn run(src: &dyn SourceDyn, limits: &Limits, strategy: Cut, kind: &Kind, snap: Snap) -> Option<Plan> {
    src.plan(limits, strategy, kind, snap)
}

/// Object-safe planning over either source.
trait SourceDyn {
    fn plan(&self, limits: &Limits, strategy: Cut, kind: &Kind, snap: Snap) -> Option<Plan>;
}

impl<S: Source> SourceDyn for S {
    fn plan(&self, limits: &Limits, strategy: Cut, kind: &Kind, snap: Snap) -> Option<Plan> {
        match kind {
            Kind::Default => plan_with_snap(self, limits, strategy, &mut Notice::Default, true, snap).unwrap(),
            Kind::Template(t) => plan_with_snap(self, limits, strategy, &mut Notice::Template(t), true, snap).unwrap(),
            Kind::Erratic => {
                let mut f = |facts: &NoticeFacts| common::erratic_notice(facts.omitted.chars);
                plan_with_snap(self, limits, strategy, &mut Notice::Custom(&mut f), true, snap).unwrap()
            }
        }
    }
}

fn split(len: usize, cuts: &[prop::sample::Index]) -> Vec<usize> {
    let mut at: Vec<usize> = cuts.iter().map(|i| i.index(len + 1)).collect();
    at.sort_unstable();
    at.push(len);
    at
}

fn kept(whole: &[u8], plan: &Option<Plan>) -> Vec<u8> {
    match plan {
        None => whole.to_vec(),
        Some(p) => [&whole[..p.head_end], p.glue.as_bytes(), &whole[p.tail_start..]].concat(),
    }
}

/// The plan of the JS string the text decodes to, and the result text: what truncateText
/// gives. Offsets are UTF-16 units there and bytes in a capture, so plans are compared by
/// their text and measures.
fn string_plan(whole: &[u8], limits: &Limits, strategy: Cut, kind: &Kind, snap: Snap) -> (Option<Plan>, Vec<u8>) {
    let units: Vec<u16> = String::from_utf8_lossy(whole).encode_utf16().collect();
    let plan = run(&Units::new(&units), limits, strategy, kind, snap);
    let text = match &plan {
        None => units.clone(),
        Some(p) => {
            [&units[..p.head_end], &p.glue.encode_utf16().collect::<Vec<_>>()[..], &units[p.tail_start..]].concat()
        }
    };
    (plan, String::from_utf16(&text).unwrap().into_bytes())
}

fn same_plan(got: &Option<Plan>, expected: &Option<Plan>) -> Result<(), TestCaseError> {
    match (got, expected) {
        (None, None) => {}
        (Some(g), Some(e)) => {
            prop_assert_eq!(&g.glue, &e.glue);
            prop_assert_eq!(
                (g.total, g.output, g.omitted, g.truncated_by),
                (e.total, e.output, e.omitted, e.truncated_by)
            );
        }
        _ => prop_assert!(false, "one plan cuts, the other does not: {got:?} vs {expected:?}"),
    }
    Ok(())
}

fn check(
    input: &[u8],
    cuts: &[usize],
    limits: Limits,
    strategy: Cut,
    kind: &Kind,
    snap: Snap,
    normalize: bool,
) -> Result<(), TestCaseError> {
    let whole: Vec<u8> = if normalize {
        normalize_terminal_output(input, Normalize::default()).into_bytes()
    } else {
        decode_lossy(input).into_owned().into_bytes()
    };
    let options = CaptureOptions { limits, strategy, normalize: normalize.then(Normalize::default), raw: false };
    let Ok(mut cap) = Capture::new(options) else {
        prop_assert!(limits.max_bytes == UNLIMITED && limits.max_chars == UNLIMITED);
        return Ok(());
    };
    let mut from = 0;
    for &to in cuts {
        cap.write_bytes(&input[from..to]);
        from = to;
    }
    cap.finish();
    let src = Utf8::from_validated(&whole);
    let (expected, text) = string_plan(&whole, &limits, strategy, kind, snap);
    let got = run(&cap.source(), &limits, strategy, kind, snap);
    same_plan(&got, &expected)?;
    prop_assert_eq!(common::captured(&cap, &got), text);
    prop_assert_eq!(cap.totals(), src.totals());
    Ok(())
}

proptest! {
    #![proptest_config(common::proptest_config("tests/proptest-regressions/capture.txt", 3000))]

    #[test]
    fn any_split_plans_like_the_whole_text(
        input in text(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8), limits in limits(),
        strategy in strategy(), kind in notice_kind(), line_snap: bool, normalize in prop::bool::weighted(0.2),
    ) {
        let snap = if line_snap { Snap::Line } else { Snap::None };
        check(&input, &split(input.len(), &cuts), limits, strategy, &kind, snap, normalize)?;
    }

    /// Raw bytes are kept as they came and weighed as they decode: under char and line
    /// limits (bytes differ: an invalid subpart is 1 to 3 bytes raw, 3 as U+FFFD), the raw
    /// plan keeps the bytes that decode to the string plan's text, with its counts.
    #[test]
    fn raw_bytes_plan_like_the_decoded_string(
        input in text(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        max_chars in 0u64..400, max_lines in prop_oneof![Just(UNLIMITED), 0u64..40],
        strategy in strategy(), erratic: bool,
    ) {
        let limits = Limits { max_chars, max_bytes: UNLIMITED, max_lines };
        let kind = if erratic { Kind::Erratic } else { Kind::Template("[cut {omittedChars} chars, {omittedLines} lines of {totalChars}]") };
        let mut cap = Capture::new(CaptureOptions { limits, strategy, normalize: None, raw: true }).unwrap();
        let mut from = 0;
        for to in split(input.len(), &cuts) {
            cap.write_bytes(&input[from..to]);
            from = to;
        }
        cap.finish();
        let whole = decode_lossy(&input).into_owned().into_bytes();
        let (expected, text) = string_plan(&whole, &limits, strategy, &kind, Snap::None);
        let got = run(&cap.source(), &limits, strategy, &kind, Snap::None);
        match (&got, &expected) {
            (None, None) => prop_assert_eq!(common::captured(&cap, &got), input.clone()),
            (Some(g), Some(e)) => {
                prop_assert_eq!(&g.glue, &e.glue);
                prop_assert_eq!((g.total.chars, g.total.lines, g.output.chars, g.output.lines), (e.total.chars, e.total.lines, e.output.chars, e.output.lines));
                prop_assert_eq!((g.omitted.chars, g.omitted.lines), (e.omitted.chars, e.omitted.lines));
            }
            _ => prop_assert!(false, "one plan cuts, the other does not: {got:?} vs {expected:?}"),
        }
        let kept = common::captured(&cap, &got);
        prop_assert_eq!(decode_lossy(&kept).into_owned().into_bytes(), text);
        prop_assert_eq!(cap.totals().chars, Utf8::from_validated(&whole).totals().chars);
        prop_assert_eq!(cap.totals().bytes, input.len() as u64);
    }

    /// Strings arrive as UTF-16 chunks that may split a surrogate pair; lone surrogates
    /// become U+FFFD.
    #[test]
    fn utf16_chunks_plan_like_the_string(
        input in text(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8), limits in limits(),
        strategy in strategy(), lone in prop::option::of(any::<prop::sample::Index>()),
    ) {
        let mut units: Vec<u16> = String::from_utf8_lossy(&input).encode_utf16().collect();
        if let Some(at) = lone {
            units.insert(at.index(units.len() + 1), 0xD83D);
        }
        let whole = String::from_utf16_lossy(&units).into_bytes();
        let Ok(mut cap) = Capture::new(CaptureOptions { limits, strategy, normalize: None, raw: false }) else {
            return Ok(());
        };
        let mut from = 0;
        for to in split(units.len(), &cuts) {
            cap.write_utf16(&units[from..to]);
            from = to;
        }
        cap.finish();
        let (expected, text) = string_plan(&whole, &limits, strategy, &Kind::Default, Snap::None);
        let got = run(&cap.source(), &limits, strategy, &Kind::Default, Snap::None);
        same_plan(&got, &expected)?;
        prop_assert_eq!(common::captured(&cap, &got), text);
    }

    /// A snapshot is the capture of what was written so far, finished.
    #[test]
    fn snapshots_plan_like_the_prefix(input in text(), at in any::<prop::sample::Index>(), limits in limits(), strategy in strategy()) {
        let at = at.index(input.len() + 1);
        let Ok(mut cap) = Capture::new(CaptureOptions { limits, strategy, normalize: None, raw: false }) else {
            return Ok(());
        };
        cap.write_bytes(&input[..at]);
        let snap = cap.snapshot();
        // A char cut off by the end of the prefix is left out of the snapshot.
        let mut rest = &input[..at];
        let valid = loop {
            match std::str::from_utf8(rest) {
                Ok(_) => break at,
                Err(e) => match e.error_len() {
                    Some(n) => rest = &rest[e.valid_up_to() + n..],
                    None => break at - (rest.len() - e.valid_up_to()),
                },
            }
        };
        let prefix = decode_lossy(&input[..valid]).into_owned().into_bytes();
        let (expected, text) = string_plan(&prefix, &limits, strategy, &Kind::Default, Snap::None);
        let got = run(&snap.source(), &limits, strategy, &Kind::Default, Snap::None);
        same_plan(&got, &expected)?;
        prop_assert_eq!(common::captured(&snap, &got), text);
        // The capture goes on unchanged.
        cap.write_bytes(&input[at..]);
        cap.finish();
        prop_assert_eq!(cap.totals(), Utf8::from_validated(&decode_lossy(&input).into_owned().into_bytes()).totals());
    }

    /// A head settled before the end keeps what it showed, and the final result (that head
    /// with the notice of the whole text, or a shorter fallback) is within every limit.
    #[test]
    fn a_settled_head_is_kept_and_fits(input in text(), at in any::<prop::sample::Index>(), limits in limits()) {
        let Ok(mut cap) = Capture::new(CaptureOptions { limits, strategy: Cut::Head, normalize: None, raw: false }) else {
            return Ok(());
        };
        let at = at.index(input.len() + 1);
        cap.write_bytes(&input[..at]);
        let Some(early) = cap.settled_head() else { return Ok(()) };
        let early = plan_with_snap(&early, &limits, Cut::Head, &mut Notice::Default, true, Snap::None).unwrap().unwrap();
        cap.write_bytes(&input[at..]);
        cap.finish();
        let plan = plan_head_at(&cap.source(), &limits, &mut Notice::Default, early.head_end).unwrap().unwrap();
        prop_assert_eq!(plan.head_end, early.head_end);
        let whole = decode_lossy(&input).into_owned().into_bytes();
        let out = kept(&whole, &Some(plan.clone()));
        let m = Utf8::from_validated(&out).totals();
        prop_assert!(m.chars <= limits.max_chars && m.bytes <= limits.max_bytes && m.lines <= limits.max_lines);
        prop_assert_eq!(m, plan.output);
        // The head shown early is the one the final plan keeps, whole.
        prop_assert_eq!(&out[..plan.head_end], &whole[..plan.head_end]);
    }
}

/// A long stream keeps O(limits): a 64 MiB text through 64 KiB chunks.
#[test]
fn memory_is_bounded_by_the_limits() {
    let limits = Limits { max_chars: UNLIMITED, max_bytes: 50_000, max_lines: 2_000 };
    for strategy in [Cut::Head, Cut::Tail, Cut::HeadTail { head_ratio: 0.3 }] {
        let mut cap = Capture::new(CaptureOptions { limits, strategy, normalize: None, raw: false }).unwrap();
        let chunk = "line of output 😀\n".repeat(64 * 1024 / 20);
        let mut peak = 0;
        for _ in 0..1024 {
            cap.write_bytes(chunk.as_bytes());
            peak = peak.max(cap.kept_bytes());
        }
        cap.finish();
        assert!(peak <= 2 * (50_000 + CAPTURE_MARGIN) + 2 * 64 * 1024, "{strategy:?} kept {peak} bytes");
        assert_eq!(cap.totals().bytes, 1024 * chunk.len() as u64);
        assert_eq!(cap.totals().lines, 1024 * (64 * 1024 / 20));
    }
}
