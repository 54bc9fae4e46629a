//! Terminal normalisation: what a terminal finally shows, and the same for any split of
//! the input into chunks.

use crate::hostile;

use hostile::{hostile_text, options, reference};
use proptest::prelude::*;
use toolclamp_core::{normalize_terminal_output, Normalize, TerminalNormalizer};

fn norm(text: &str) -> String {
    normalize_terminal_output(text.as_bytes(), Normalize::default())
}

#[test]
fn what_a_terminal_shows() {
    // Colours and styles are dropped.
    assert_eq!(norm("\x1b[1;31merror\x1b[0m: bad\n"), "error: bad\n");
    // A progress bar redrawn with \r is its last state.
    assert_eq!(norm("10%\r50%\r100%\ndone\n"), "100%\ndone\n");
    // An overwrite by something shorter leaves the rest, as on a terminal...
    assert_eq!(norm("downloading\rdone"), "doneloading");
    // ...unless the line is erased, as progress bars do.
    assert_eq!(norm("downloading\r\x1b[Kdone"), "done");
    assert_eq!(norm("downloading\r\x1b[2Kdone"), "done");
    assert_eq!(norm("abcdef\x1b[3D\x1b[1K!"), "   !ef");
    // \r\n is a line break; so is \n alone.
    assert_eq!(norm("a\r\nb\nc"), "a\nb\nc");
    // Backspaces.
    assert_eq!(norm("ab\x08c"), "ac");
    assert_eq!(norm("\x08\x08x"), "x");
    // Cursor moves along the line.
    assert_eq!(norm("abc\x1b[1Gz"), "zbc");
    assert_eq!(norm("a\x1b[3Cb"), "a   b");
    // OSC (titles, hyperlinks) are dropped, bell- or ST-terminated.
    assert_eq!(norm("\x1b]0;title\x07x \x1b]8;;https://e.x\x1b\\link\x1b]8;;\x1b\\ y"), "x link y");
    // Other controls are shown; tabs kept.
    assert_eq!(norm("a\x07b\tc\x00"), "a^Gb\tc^@");
    // Text that is not terminal output passes as it is.
    let plain = "héllo 日本 😀\n  indented  \n\nlast";
    assert_eq!(norm(plain), plain);
}

#[test]
fn options_turn_each_rule_off() {
    let off = |o: Normalize, text: &str| normalize_terminal_output(text.as_bytes(), o);
    let all = Normalize::default();
    assert_eq!(off(Normalize { carriage_returns: false, ..all }, "a\rb\r\nc"), "a\nb\nc");
    assert_eq!(off(Normalize { backspaces: false, ..all }, "ab\x08c"), "ab^Hc");
    assert_eq!(off(Normalize { controls: false, ..all }, "a\x07b"), "ab");
    assert_eq!(off(Normalize { ansi: false, ..all }, "\x1b[31mred"), "^[[31mred");
}

#[test]
fn invalid_utf8_is_replaced_and_a_cut_off_sequence_dropped() {
    assert_eq!(normalize_terminal_output(b"a\xffb", Normalize::default()), "a\u{fffd}b");
    assert_eq!(normalize_terminal_output(b"ok\x1b[3", Normalize::default()), "ok");
}

/// Terminal-ish text: words, escapes, \r, \n, backspaces, controls, multi-byte chars.
fn terminal_text() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just("abc".to_string()),
        Just("日本".to_string()),
        Just("😀".to_string()),
        Just("\r".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("\x08".to_string()),
        Just("\x1b[K".to_string()),
        Just("\x1b[2K".to_string()),
        Just("\x1b[1;32m".to_string()),
        Just("\x1b]0;t\x07".to_string()),
        Just("\x1b[5D".to_string()),
        Just("\x07".to_string()),
        Just("\t".to_string()),
        "[ -~]{0,6}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat().into_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3_000))]

    #[test]
    fn any_split_gives_the_same_text(text in terminal_text(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6)) {
        let whole = normalize_terminal_output(&text, Normalize::default());
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(text.len() + 1)).collect();
        at.sort_unstable();
        let mut n = TerminalNormalizer::new(Normalize::default());
        let mut out = String::new();
        let mut from = 0;
        for &to in &at {
            n.push(&text[from..to], &mut out);
            from = to;
        }
        n.push(&text[from..], &mut out);
        n.finish(&mut out);
        prop_assert_eq!(out, whole.clone());
        // No escape or raw \r survives, and it never grows past what was written plus the
        // visible forms of controls.
        prop_assert!(!whole.contains('\x1b') && !whole.contains('\r'));
    }
}

#[test]
fn a_char_cut_between_chunks_then_an_invalid_byte_loses_nothing() {
    // Found by fuzzing: vte's own carry of a cut UTF-8 sequence dropped the '(' here.
    let text = [0x28, 0xda, 0x97, 0x28, 0x97];
    let whole = normalize_terminal_output(&text, Normalize::default());
    let mut n = TerminalNormalizer::new(Normalize::default());
    let mut out = String::new();
    n.push(&text[..2], &mut out);
    n.push(&text[2..], &mut out);
    n.finish(&mut out);
    assert_eq!(out, whole);
    // A stray continuation byte reads as U+FFFD, as buf.toString() reads it (not as the C1
    // control U+0097, which only its UTF-8 form C2 97 is).
    assert_eq!(whole, "(\u{697}(\u{FFFD}");
    assert_eq!(normalize_terminal_output("(\u{97}".as_bytes(), Normalize::default()), "(<U+0097>");
}

/// A line that never ends wraps at the screen's width, so memory stays bounded; a cursor
/// move far past the end stops at the last column instead of allocating up to it.
#[test]
fn endless_lines_wrap_and_cursor_moves_stop_at_the_last_column() {
    use toolclamp_core::WIDTH;
    let row = "x".repeat(WIDTH);
    let text = format!("{row}{row}ab\rc");
    assert_eq!(normalize_terminal_output(text.as_bytes(), Normalize::default()), format!("{row}{row}cb"));
    let far = normalize_terminal_output(b"a\x1b[999999999Gz\x1b[999999999Cy", Normalize::default());
    // vte caps a parameter at 65,535: z lands one column before the last, y on the last.
    assert_eq!(far.chars().count(), WIDTH);
    assert!(far.starts_with('a') && far.ends_with("zy"));
}

/// Found in review: `\x1b[65535C` (cursor forward) drew up to 65,536 columns, so ten bytes
/// a line became 64 KiB a line (1.1 MB of input asked for gigabytes). Blanks are now paid
/// from an allowance: one screen line, then `BLANKS_PER_READ` per char, control or sequence.
#[test]
fn far_cursor_moves_do_not_amplify() {
    use toolclamp_core::{BLANKS_PER_READ, MAX_GROWTH, WIDTH};
    let input = "\x1b[65535Cx\n".repeat(110_000);
    let out = norm(&input);
    assert!(out.len() <= MAX_GROWTH * input.len() + WIDTH, "{} bytes from {}", out.len(), input.len());
    let lines: Vec<&str> = out.split_terminator('\n').collect();
    assert_eq!(lines.len(), 110_000);
    // The first move is as wide as the screen, as on a terminal that wide...
    assert_eq!(lines[0], format!("{}x", " ".repeat(WIDTH - 1)));
    // ...then each line has what its three reads (the move, `x` and the `\n` before) paid.
    assert_eq!(lines[1], format!("{}x", " ".repeat(25)));
    assert!(lines[2..].iter().all(|l| *l == format!("{}x", " ".repeat(3 * BLANKS_PER_READ))));
    // Text read since pays for a move that far again.
    let after = norm(&format!("{input}{}\x1b[300Cy", "z".repeat(40)));
    assert!(after.ends_with(&format!("{}{}y", "z".repeat(40), " ".repeat(300))));
}

/// Column moves of ordinary output (tables, aligned status) come nowhere near the limit.
#[test]
fn ordinary_column_moves_show_as_on_a_terminal() {
    let row = |i: usize| format!("name-{i}\x1b[20Gsize\x1b[40G\x1b[32mok\x1b[0m\r\n");
    let text: String = (0..5_000).map(row).collect();
    let expected: String = (0..5_000).map(|i| format!("{:<19}{:<20}ok\n", format!("name-{i}"), "size")).collect();
    assert_eq!(norm(&text), expected);
    assert_eq!(norm("\x1b[200Cfar"), format!("{}far", " ".repeat(200)));
}

fn run(mut n: TerminalNormalizer, text: &[u8], at: &[usize]) -> String {
    let mut out = String::new();
    let mut from = 0;
    for &to in at {
        n.push(&text[from..to], &mut out);
        from = to;
    }
    n.push(&text[from..], &mut out);
    n.finish(&mut out);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Plain text passes the parser; what it gives is what the parser gives, char by char,
    /// and what the plain reference gives, for any split, and never more than `MAX_GROWTH`
    /// bytes a byte plus a screen line.
    #[test]
    fn the_fast_path_gives_what_the_parser_gives_and_output_is_bounded(
        text in hostile_text(), options in options(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        use toolclamp_core::{MAX_GROWTH, WIDTH};
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(text.len() + 1)).collect();
        at.sort_unstable();
        let expected = reference(&text, options);
        prop_assert_eq!(&run(TerminalNormalizer::parser_only(options), &text, &[]), &expected);
        prop_assert_eq!(&run(TerminalNormalizer::new(options), &text, &at), &expected);
        prop_assert_eq!(&normalize_terminal_output(&text, options), &expected);
        prop_assert!(expected.len() <= MAX_GROWTH * text.len() + WIDTH, "{} bytes from {}", expected.len(), text.len());
        if options.ansi {
            prop_assert!(!expected.contains('\x1b'));
        }
    }
}

/// The bound is reached from below by the worst inputs, and the output of each stays
/// under it: C1 chars shown as `<U+0085>`, invalid bytes as U+FFFD, and moves paid in full.
#[test]
fn the_bound_holds_for_the_worst_inputs() {
    use toolclamp_core::{MAX_GROWTH, WIDTH};
    let worst: [Vec<u8>; 5] = [
        "\u{85}".repeat(50_000).into_bytes(),
        vec![0xFF; 100_000],
        b"\x07".repeat(100_000),
        format!("{}\x1b[65535Cx", "z".repeat(8_192)).repeat(20).into_bytes(),
        b"\x1b[9Cx".repeat(50_000),
    ];
    for text in worst {
        for options in [Normalize::default(), Normalize { ansi: false, ..Normalize::default() }] {
            let out = normalize_terminal_output(&text, options);
            assert!(out.len() <= MAX_GROWTH * text.len() + WIDTH, "{} bytes from {}", out.len(), text.len());
        }
    }
}

/// The length bound a caller checks before it builds normalised text whole: for a string's
/// UTF-16 units (16 a unit: a C1 char shown in 8, and 8 blanks a read) and for UTF-8 bytes
/// (12 a byte), each plus a screen line; reached from below by the worst inputs.
#[test]
fn the_utf16_bound_holds_and_the_length_is_measured_without_the_text() {
    use toolclamp_core::{max_normalized_utf16, normalized_utf16_len, WIDTH};
    assert_eq!(max_normalized_utf16(0, false), WIDTH as u64);
    assert_eq!(max_normalized_utf16(10, false), 160 + WIDTH as u64);
    assert_eq!(max_normalized_utf16(10, true), 120 + WIDTH as u64);
    assert_eq!(max_normalized_utf16(u64::MAX, false), u64::MAX, "saturates");
    let c1 = "\u{85}".repeat(10_000);
    let shown = normalize_terminal_output(c1.as_bytes(), Normalize::default());
    assert_eq!(shown.encode_utf16().count(), 80_000);
    assert_eq!(normalized_utf16_len(c1.as_bytes(), Normalize::default()), 80_000);
    assert!(80_000 <= max_normalized_utf16(10_000, false));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn normalised_utf16_length_is_measured_exactly_and_bounded(text in hostile_text(), options in options()) {
        use toolclamp_core::{max_normalized_utf16, normalized_utf16_len};
        let shown = normalize_terminal_output(&text, options);
        let units = shown.encode_utf16().count() as u64;
        prop_assert_eq!(normalized_utf16_len(&text, options), units);
        prop_assert!(units <= max_normalized_utf16(text.len() as u64, true));
        // As a JS string: its UTF-16 units.
        let string = String::from_utf8_lossy(&text);
        let from_string = normalize_terminal_output(string.as_bytes(), options).encode_utf16().count() as u64;
        prop_assert!(from_string <= max_normalized_utf16(string.encode_utf16().count() as u64, false));
    }
}
