//! The UTF-8 source: planning a text's bytes must cut exactly like planning the JS string it
//! decodes to. Every plan of a random text is made twice, through `Utf8` and through UTF-16
//! `Units` (itself checked against the brute-force reference), and the two must agree on
//! the result text, the notice and every measure. Also: the counting kernel at its chunk
//! edges, the fit searches against a scan, lossy decoding of invalid bytes, and planning
//! bytes that were wrongly vouched for as valid.

use crate::common;
use crate::reference;

use common::*;
use proptest::prelude::*;
use reference::*;
use toolclamp_core::{
    decode_lossy, measure_utf8, plan, Limits, Measure, Notice, NoticeFacts, Plan, Source, Span, Utf8, UNLIMITED,
};
// `Strategy` is proptest's generator trait here; the core's cut strategy is `Cut`.
use toolclamp_core::Strategy as Cut;

// ---------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------

/// Chars of every UTF-8 length, line breaks of every kind, and long lines. Valid Rust
/// strings hold no lone surrogates, so neither can the decoded text of a buffer.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z ]{1,6}",
        3 => Just("\n".to_string()),
        1 => Just("\r\n".to_string()),
        1 => Just("\r".to_string()),
        2 => Just("é".to_string()),
        2 => Just("日本".to_string()),
        2 => Just("😀".to_string()),
        1 => Just("\u{FFFD}".to_string()),
        1 => Just("\0".to_string()),
        1 => (20usize..90).prop_map(|n| "x".repeat(n)),
        1 => (5usize..40).prop_map(|n| "語😀".repeat(n)),
    ]
}

fn text(max_pieces: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..max_pieces).prop_map(|p| p.concat())
}

/// Often below the total (so cuts happen), often tiny, sometimes unlimited.
fn limit(total: u64) -> BoxedStrategy<u64> {
    prop_oneof![
        3 => Just(UNLIMITED),
        2 => 0u64..8,
        5 => 0..=total + 2,
        1 => Just(UNLIMITED - 1),
    ]
    .boxed()
}

fn strategy() -> impl Strategy<Value = Cut> {
    prop_oneof![
        3 => Just(Cut::Head),
        3 => Just(Cut::Tail),
        1 => Just(Cut::HeadTail { head_ratio: 0.5 }),
        1 => Just(Cut::HeadTail { head_ratio: 0.0 }),
        1 => Just(Cut::HeadTail { head_ratio: 1.0 }),
        2 => (0.0f64..=1.0).prop_map(|r| Cut::HeadTail { head_ratio: r }),
    ]
}

/// Notices that say nothing about positions (those are bytes here, UTF-16 units there).
#[derive(Clone, Debug)]
enum Kind {
    Default,
    Template(&'static str),
    Erratic,
}

fn notice_kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        4 => Just(Kind::Default),
        2 => Just(Kind::Template("[... {omitted} truncated from stdout ...]")),
        1 => Just(Kind::Template("…{omittedBytes} of {totalBytes} bytes, {omittedChars} chars…\n")),
        1 => Just(Kind::Template("")),
        1 => Just(Kind::Template("\n😀\n")),
        1 => Just(Kind::Erratic),
    ]
}

fn case(max_pieces: usize) -> impl Strategy<Value = (String, Limits, Cut, Kind, bool)> {
    text(max_pieces).prop_flat_map(|t| {
        let m = measure_utf8(&t);
        let limits = (limit(m.chars), limit(m.bytes), limit(m.lines))
            .prop_map(|(max_chars, max_bytes, max_lines)| Limits { max_chars, max_bytes, max_lines });
        (Just(t), limits, strategy(), notice_kind(), any::<bool>())
    })
}

// ---------------------------------------------------------------------------------------
// Planning both ways
// ---------------------------------------------------------------------------------------

fn plan_with<S: Source>(src: &S, limits: &Limits, strategy: Cut, kind: &Kind, exact: bool) -> Option<Plan> {
    match kind {
        Kind::Default => plan(src, limits, strategy, &mut Notice::Default, exact).unwrap(),
        Kind::Template(t) => plan(src, limits, strategy, &mut Notice::Template(t), exact).unwrap(),
        Kind::Erratic => {
            let mut f = |facts: &NoticeFacts| erratic_notice(facts.omitted.chars);
            plan(src, limits, strategy, &mut Notice::Custom(&mut f), exact).unwrap()
        }
    }
}

fn utf16_offset(text: &str, byte_offset: usize) -> usize {
    text[..byte_offset].encode_utf16().count()
}

/// The dimensions a plan reports exactly: all of them with `exact`, else the limited ones.
fn reported(m: Measure, limits: &Limits, exact: bool) -> [Option<u64>; 3] {
    let keep = |limited: bool, x: u64| (exact || limited).then_some(x);
    [
        keep(limits.max_chars != UNLIMITED, m.chars),
        keep(limits.max_bytes != UNLIMITED, m.bytes),
        keep(limits.max_lines != UNLIMITED, m.lines),
    ]
}

/// Plans `text` as UTF-8 and as UTF-16 and checks they agree; returns the UTF-8 plan.
fn check_same_as_utf16(text: &str, limits: &Limits, strategy: Cut, kind: &Kind, exact: bool) -> Option<Plan> {
    let units = utf16(text);
    let wide = match kind {
        Kind::Default => check(&units, limits, strategy, &NoticeKind::Default, exact, Maximality::Skip),
        Kind::Template(t) => check(&units, limits, strategy, &NoticeKind::Template(t), exact, Maximality::Skip),
        Kind::Erratic => check(&units, limits, strategy, &NoticeKind::Erratic, exact, Maximality::Skip),
    };
    let narrow = plan_with(&Utf8::new(text), limits, strategy, kind, exact);
    let (Some(w), Some(n)) = (&wide, &narrow) else {
        assert_eq!(wide.is_none(), narrow.is_none(), "one of the plans cut: utf16 {wide:?}, utf8 {narrow:?}");
        return narrow;
    };
    assert!(text.is_char_boundary(n.head_end) && text.is_char_boundary(n.tail_start), "cut inside a char: {n:?}");
    assert_eq!(utf16_offset(text, n.head_end), w.head_end, "head_end: utf8 {n:?}, utf16 {w:?}");
    assert_eq!(utf16_offset(text, n.tail_start), w.tail_start, "tail_start: utf8 {n:?}, utf16 {w:?}");
    let result = format!("{}{}{}", &text[..n.head_end], n.glue, &text[n.tail_start..]);
    assert_eq!(utf16(&result), apply(&units, w), "result text");
    assert_eq!(n.glue, w.glue);
    assert_eq!(n.truncated_by, w.truncated_by);
    assert_eq!(n.total, w.total);
    assert_eq!(reported(n.output, limits, exact), reported(w.output, limits, exact), "output: utf8 {n:?}, utf16 {w:?}");
    assert_eq!(
        reported(n.omitted, limits, exact),
        reported(w.omitted, limits, exact),
        "omitted: utf8 {n:?}, utf16 {w:?}"
    );
    // The UTF-8 source counts every dimension whether limited or not.
    assert_eq!(n.output, measure_utf8(&result));
    narrow
}

const REGRESSIONS: &str = "tests/proptest-regressions/utf8.txt";

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 3000))]

    #[test]
    fn utf8_plans_cut_like_utf16_plans((t, limits, strategy, kind, exact) in case(60)) {
        check_same_as_utf16(&t, &limits, strategy, &kind, exact);
    }

    /// Tiny limits force the fallback notices and the empty one.
    #[test]
    fn tiny_limits_cut_like_utf16(
        t in text(12), c in 0u64..12, b in 0u64..16, l in 0u64..4, strategy in strategy(), kind in notice_kind(), exact: bool,
    ) {
        let limits = Limits { max_chars: c, max_bytes: b, max_lines: l };
        check_same_as_utf16(&t, &limits, strategy, &kind, exact);
    }
}

/// Long texts of multi-byte chars, so chars straddle the 256-byte blocks of the fit
/// searches and the 8,160-byte chunks of the counting kernel at random offsets.
fn long_text() -> impl Strategy<Value = String> {
    let unit = prop_oneof![
        6 => Just("a"),
        2 => Just("😀"),
        2 => Just("日"),
        1 => Just("é"),
        1 => Just("\r\n"),
        1 => Just("\n"),
    ];
    prop::collection::vec(unit, 300..4000).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 500))]

    #[test]
    fn long_texts_cut_like_utf16(
        t in long_text(), cf in 0.0f64..1.0, bf in 0.0f64..1.0, lf in 0.0f64..1.0, which in 0u8..8,
        strategy in strategy(), exact: bool,
    ) {
        let m = measure_utf8(&t);
        let pick = |bit: u8, total: u64, f: f64| if which & bit != 0 { (total as f64 * f) as u64 } else { UNLIMITED };
        let limits = Limits { max_chars: pick(1, m.chars, cf), max_bytes: pick(2, m.bytes, bf), max_lines: pick(4, m.lines, lf) };
        check_same_as_utf16(&t, &limits, strategy, &Kind::Default, exact);
    }

    /// `fit_forward`/`fit_backward` against a byte-by-byte scan, from arbitrary positions
    /// (chars inside a char's bytes included: the searches may stop there).
    #[test]
    fn fit_forward_and_backward_match_a_scan(
        t in long_text(), a in 0.0f64..1.0, b in 0.0f64..1.0, bytes in prop_oneof![Just(u64::MAX), 0u64..5000],
        newlines in prop_oneof![Just(u64::MAX), 0u64..40], chars in prop_oneof![Just(u64::MAX), 0u64..3000],
    ) {
        let src = Utf8::new(&t);
        let n = t.len();
        let (x, y) = ((a * n as f64) as usize, (b * n as f64) as usize);
        let (lo, hi) = (x.min(y), x.max(y));
        let budget = Span { chars, bytes, newlines };
        let prefix: Vec<Span> = std::iter::once(Span::ZERO)
            .chain((0..n).scan(Span::ZERO, |acc, i| {
                *acc = *acc + src.unit_span(i);
                Some(*acc)
            }))
            .collect();
        let scan_span = |from: usize, to: usize| prefix[to] - prefix[from];
        let (end, used) = src.fit_forward(lo, hi, budget);
        prop_assert_eq!(end, (lo..=hi).rev().find(|&e| scan_span(lo, e).fits(budget)).unwrap());
        prop_assert_eq!(used, scan_span(lo, end));
        let (start, used) = src.fit_backward(hi, lo, budget);
        prop_assert_eq!(start, (lo..=hi).find(|&s| scan_span(s, hi).fits(budget)).unwrap());
        prop_assert_eq!(used, scan_span(start, hi));
        prop_assert_eq!(src.span(lo, hi), scan_span(lo, hi));
    }
}

// ---------------------------------------------------------------------------------------
// Examples
// ---------------------------------------------------------------------------------------

#[test]
fn every_cut_position_in_a_multibyte_text_is_a_char_boundary() {
    let text = "a日😀é\r\n語\n😀😀x\r\n".repeat(3);
    let m = measure_utf8(&text);
    for strategy in [Cut::Head, Cut::Tail, Cut::HeadTail { head_ratio: 0.5 }] {
        for k in 0..=m.bytes + 1 {
            for limits in [
                Limits { max_chars: k, ..Limits::NONE },
                Limits { max_bytes: k, ..Limits::NONE },
                Limits { max_lines: k / 4, ..Limits::NONE },
                Limits { max_chars: k, max_bytes: k + 5, max_lines: UNLIMITED },
            ] {
                for kind in [Kind::Default, Kind::Template("({omitted} from stderr)")] {
                    check_same_as_utf16(&text, &limits, strategy, &kind, true);
                }
            }
        }
    }
}

#[test]
fn counting_kernel_is_exact_across_its_chunks() {
    // 32 lanes x 255 rounds = 8,160 bytes per chunk: put 4-byte chars and newlines across it.
    const CHUNK: usize = 32 * 255;
    for shift in 0..5 {
        let mut text = "a".repeat(CHUNK - 2 + shift);
        text.push_str("😀\n日é");
        text.push_str(&"😀".repeat(CHUNK / 3));
        text.push('\n');
        assert_eq!(measure_utf8(&text), naive_measure(&utf16(&text)), "shift {shift}");
    }
}

#[test]
fn a_long_cjk_tail_cuts_like_utf16() {
    let text = "日本語のログ行 😀 error: something\n".repeat(2_000);
    let limits = Limits { max_chars: 8000, ..Limits::NONE };
    let p = check_same_as_utf16(
        &text,
        &limits,
        Cut::Tail,
        &Kind::Template("[... {omitted} truncated from stdout ...]"),
        true,
    )
    .expect("cut");
    assert_eq!(p.head_end, 0);
    assert!(p.output.chars <= 8000);
    assert!(p.glue.starts_with("[... ") && p.glue.ends_with(" truncated from stdout ...]\n"), "{:?}", p.glue);
}

// ---------------------------------------------------------------------------------------
// Lossy decoding: what the binding feeds the source
// ---------------------------------------------------------------------------------------

/// Invalid sequences and how "U+FFFD substitution of maximal subparts" (Unicode chapter 3,
/// and the WHATWG decoder Node uses for `buf.toString('utf8')`) replaces them: a lead byte
/// followed by fewer continuation bytes than it needs is one U+FFFD; a byte that can start
/// no valid sequence, or a continuation byte out of the range its lead allows, is one each.
#[test]
fn lossy_decoding_replaces_maximal_subparts() {
    const R: &str = "\u{FFFD}";
    let cases: &[(&[u8], String)] = &[
        // Overlong encodings: C0, C1 can start nothing; E0 needs A0..BF next, F0 needs 90..BF.
        (b"\xC0\x80", R.repeat(2)),
        (b"\xC1\xBF", R.repeat(2)),
        (b"\xE0\x80\x80", R.repeat(3)),
        (b"\xE0\x9F\xBF", R.repeat(3)),
        (b"\xF0\x80\x80\x80", R.repeat(4)),
        (b"\xF0\x8F\xBF\xBF", R.repeat(4)),
        // Surrogate code points: ED needs 80..9F next.
        (b"\xED\xA0\x80", R.repeat(3)),
        (b"\xED\xBF\xBF", R.repeat(3)),
        (b"\xED\xA0\x80\xED\xB0\x80", R.repeat(6)),
        // Above U+10FFFF: F4 needs 80..8F next; F5..FF start nothing.
        (b"\xF4\x90\x80\x80", R.repeat(4)),
        (b"\xF5\x80\x80\x80", R.repeat(4)),
        (b"\xF5\xF6\xF7\xF8\xF9\xFA\xFB\xFC\xFD\xFE\xFF", R.repeat(11)),
        // Truncated sequences: one U+FFFD for the valid prefix, whatever follows.
        (b"\xC3", R.to_string()),
        (b"\xE6\x97", R.to_string()),
        (b"\xF0\x9F\x98", R.to_string()),
        (b"\xF0\x9F\x98A", format!("{R}A")),
        (b"\xE6\x97\n", format!("{R}\n")),
        (b"\xE6\xC3\xA9", format!("{R}é")),
        (b"\xF0\x9F\xE6\x97\xA5", format!("{R}日")),
        // Lone continuation bytes: one each.
        (b"\x80", R.to_string()),
        (b"\x80\xBF\x80", R.repeat(3)),
        (b"a\xBFb", format!("a{R}b")),
        // Valid neighbours survive.
        (b"\xE6\x97\xA5\xFF\xF0\x9F\x98\x80", format!("日{R}😀")),
        (b"\xEF\xBF\xBD", R.to_string()),
    ];
    for (bytes, expected) in cases {
        assert_eq!(&String::from_utf8_lossy(bytes), expected, "{bytes:x?}");
        assert_eq!(&decode_lossy(bytes), expected, "{bytes:x?}");
    }
}

/// Valid chars of every length, the invalid sequences above, and random bytes.
fn any_bytes() -> impl Strategy<Value = Vec<u8>> {
    let chunk = prop_oneof![
        6 => piece().prop_map(String::into_bytes),
        2 => prop::sample::select(vec![
            &b"\xC0\x80"[..], b"\xE0\x80\x80", b"\xED\xA0\x80", b"\xF4\x90\x80\x80", b"\xF5", b"\xFF",
            b"\xC3", b"\xE6\x97", b"\xF0\x9F\x98", b"\x80", b"\xBF\x80",
        ])
        .prop_map(<[u8]>::to_vec),
        1 => prop::collection::vec(any::<u8>(), 1..8),
    ];
    prop::collection::vec(chunk, 0..40).prop_map(|c| c.concat())
}

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 3000))]

    #[test]
    fn decode_lossy_matches_from_utf8_lossy(bytes in any_bytes()) {
        prop_assert_eq!(decode_lossy(&bytes), String::from_utf8_lossy(&bytes));
    }

    /// Bytes wrongly vouched for as valid give meaningless counts, but never a panic, an
    /// offset out of range, or a limit broken in the units the plan itself counts.
    #[test]
    fn invalid_bytes_planned_as_validated_stay_in_bounds(
        bytes in any_bytes(), c in limit(60), b in limit(120), l in limit(8), strategy in strategy(), exact: bool,
    ) {
        let limits = Limits { max_chars: c, max_bytes: b, max_lines: l };
        let src = Utf8::from_validated(&bytes);
        if let Some(p) = plan(&src, &limits, strategy, &mut Notice::Default, exact).unwrap() {
            prop_assert!(p.head_end <= p.tail_start && p.tail_start <= bytes.len());
            prop_assert!(p.output.chars <= c && p.output.bytes <= b && p.output.lines <= l);
            prop_assert_eq!(p.output.bytes, (p.head_end + p.glue.len() + bytes.len() - p.tail_start) as u64);
        }
    }

    /// Valid bytes plan the same through either constructor.
    #[test]
    fn validated_bytes_plan_like_the_str((t, limits, strategy, _kind, exact) in case(30)) {
        let from_str = plan(&Utf8::new(&t), &limits, strategy, &mut Notice::Default, exact).unwrap();
        let from_bytes = plan(&Utf8::from_validated(t.as_bytes()), &limits, strategy, &mut Notice::Default, exact).unwrap();
        prop_assert_eq!(from_str, from_bytes);
    }
}

#[test]
fn replacement_chars_count_like_the_decoded_string() {
    // U+FFFD is one char and three bytes, as `Buffer.byteLength(buf.toString())` counts it.
    let decoded = String::from_utf8_lossy(b"ok\xFF\xE6\x97\n\xF0\x9F\x98\x80");
    assert_eq!(measure_utf8(&decoded), Measure { chars: 7, bytes: 13, lines: 2 });
    assert_eq!(measure_utf8(&decoded), naive_measure(&utf16(&decoded)));
}
