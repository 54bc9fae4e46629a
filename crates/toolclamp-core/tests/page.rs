//! Paging: every page against a brute-force reference written from the definitions (whole
//! lines while they fit, else the longest safe prefix of the line, else one character),
//! chains of pages that must give back the text exactly, the errors, and the banner.

use crate::common;
use crate::reference;

use common::*;
use proptest::prelude::*;
use reference::*;
use toolclamp_core::{
    decode_lossy, lossy_position, page, page_with_banner, partial_banner, repage, Banner, Limits, Measure, Page,
    PageError, PageRequest, Repage, Source, Units, Utf8, UNLIMITED,
};

fn req(line: u64, column: usize, max_bytes: u64, max_lines: u64) -> PageRequest {
    PageRequest { line, column, max_bytes, max_lines }
}

fn page_of(text: &str, r: PageRequest) -> Result<Page, PageError> {
    page(&Units::new(&utf16(text)), &r)
}

fn banner_of(text: &str, r: PageRequest) -> String {
    partial_banner(&page_of(text, r).unwrap())
}

/// The pages of `units` from the first, following `next`.
fn chain<S: Source + ?Sized>(src: &S, max_bytes: u64, max_lines: u64) -> Vec<Page> {
    let mut pages = Vec::new();
    let mut at = Some((1, 0));
    while let Some((line, column)) = at {
        let p = page(src, &req(line, column, max_bytes, max_lines)).unwrap();
        assert!(p.end > p.start || p.end == src.len(), "paging stalled at {p:?}");
        at = p.next;
        pages.push(p);
        assert!(pages.len() <= src.len() + 1, "more pages than units");
    }
    pages
}

// ---------------------------------------------------------------------------------------
// The reference
// ---------------------------------------------------------------------------------------

fn newlines(units: &[u16]) -> u64 {
    units.iter().filter(|&&c| c == NL).count() as u64
}

/// Where the page from `start` ends.
fn reference_end(t: &[u16], start: usize, max_bytes: u64, max_lines: u64) -> usize {
    let n = t.len();
    if start == n {
        return n;
    }
    if max_lines == 0 {
        return next_safe(t, start);
    }
    // Whole lines (the first from `start`) while they fit.
    let (mut end, mut lines) = (start, 0);
    while end < n {
        let line_end = t[end..].iter().position(|&c| c == NL).map_or(n, |i| end + i + 1);
        if naive_bytes(&t[start..line_end]) > max_bytes || lines + 1 > max_lines {
            break;
        }
        (end, lines) = (line_end, lines + 1);
    }
    if end > start {
        return end;
    }
    // A line longer than the page: its longest safe prefix within the bytes, else one char.
    let mut best = start;
    for e in start + 1..=n {
        if t[e - 1] == NL || naive_bytes(&t[start..e]) > max_bytes {
            break;
        }
        if is_safe_cut(t, e) {
            best = e;
        }
    }
    if best > start {
        best
    } else {
        next_safe(t, start)
    }
}

/// Where line `line` starts, if the text has that line (an empty text has line 1).
fn reference_line_start(t: &[u16], line: u64) -> Option<usize> {
    if line == 0 || line > naive_lines(t).max(1) {
        return None;
    }
    if line == 1 {
        return Some(0);
    }
    let breaks = t.iter().enumerate().filter(|&(_, &c)| c == NL);
    breaks.map(|(i, _)| i + 1).nth(line as usize - 2)
}

/// The whole page `r` asks of `t`, or its error, the slow way.
fn reference_page(t: &[u16], r: &PageRequest) -> Result<Page, PageError> {
    let n = t.len();
    let Some(line_start) = reference_line_start(t, r.line) else {
        return Err(PageError::OffsetOutOfRange { line: r.line, total_lines: naive_lines(t) });
    };
    let line_len = t[line_start..].iter().position(|&c| c == NL).unwrap_or(n - line_start);
    if r.column > line_len {
        return Err(PageError::ColumnOutOfRange { line: r.line, column: r.column, line_len });
    }
    let start = line_start + r.column;
    if !is_safe_cut(t, start) {
        return Err(PageError::ColumnSplitsCharacter { column: r.column });
    }
    let end = reference_end(t, start, r.max_bytes, r.max_lines);
    let line_of = |i: usize| 1 + newlines(&t[..i]);
    let next = (end < n).then(|| {
        let line = line_of(end);
        let line_start = t[..end].iter().rposition(|&c| c == NL).map_or(0, |i| i + 1);
        (line, end - line_start)
    });
    Ok(Page {
        start,
        end,
        total: naive_measure(t),
        shown: naive_measure(&t[start..end]),
        first_line: if n == 0 { 0 } else { line_of(start) },
        last_line: if n == 0 { 0 } else { line_of(end.max(start + 1) - 1) },
        start_column: r.column,
        start_byte: naive_bytes(&t[..start]),
        end_byte: naive_bytes(&t[..end]),
        next,
    })
}

/// Pages `t` from the start and checks every page and the chain.
fn check_chain(t: &[u16], max_bytes: u64, max_lines: u64) -> Vec<Page> {
    let pages = chain(&Units::new(t), max_bytes, max_lines);
    let mut rebuilt = Vec::new();
    let mut at = (1, 0);
    for (i, p) in pages.iter().enumerate() {
        let expected = reference_page(t, &req(at.0, at.1, max_bytes, max_lines)).unwrap();
        assert_eq!(p, &expected, "page {i} of {pages:?}");
        assert!(is_safe_cut(t, p.start) && is_safe_cut(t, p.end));
        let within = p.shown.bytes <= max_bytes && p.shown.lines <= max_lines;
        // Over budget only to move on by one character.
        assert!(within || p.end == next_safe(t, p.start), "page {i} over budget: {p:?}");
        // Pages end on a line boundary whenever they hold one, except the last.
        if p.next.is_some() && t[p.start..p.end].contains(&NL) {
            assert_eq!(t[p.end - 1], NL, "page {i} ends mid-line: {p:?}");
        }
        assert_eq!(p.start, rebuilt.len(), "pages are contiguous");
        rebuilt.extend_from_slice(&t[p.start..p.end]);
        if let Some(next) = p.next {
            at = next;
        }
    }
    assert_eq!(rebuilt, t, "the pages give back the text");
    pages
}

// ---------------------------------------------------------------------------------------
// Lines and columns
// ---------------------------------------------------------------------------------------

const TEN: &str = "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\n";

#[test]
fn a_page_of_whole_lines_continues_on_the_next_line() {
    let p = page_of(TEN, req(1, 0, UNLIMITED, 3)).unwrap();
    assert_eq!((p.start, p.end), (0, 21));
    assert_eq!((p.first_line, p.last_line, p.next), (1, 3, Some((4, 0))));
    assert_eq!(p.shown, Measure { chars: 21, bytes: 21, lines: 3 });
    assert_eq!(p.total, Measure { chars: 71, bytes: 71, lines: 10 });
    assert_eq!((p.start_byte, p.end_byte), (0, 21));
    let last = page_of(TEN, req(9, 0, UNLIMITED, 3)).unwrap();
    assert_eq!((last.start, last.end, last.first_line, last.last_line, last.next), (56, 71, 9, 10, None));
}

#[test]
fn bytes_bind_at_the_last_whole_line() {
    // 20 bytes reach into line 3: the page stops after line 2.
    let p = page_of(TEN, req(1, 0, 20, UNLIMITED)).unwrap();
    assert_eq!((p.end, p.last_line, p.next), (14, 2, Some((3, 0))));
    // Exactly three lines' worth ends after the third line break.
    assert_eq!(page_of(TEN, req(1, 0, 21, UNLIMITED)).unwrap().end, 21);
}

#[test]
fn the_last_line_may_lack_its_line_break() {
    let p = page_of("a\nb\nc", req(2, 0, UNLIMITED, 2)).unwrap();
    assert_eq!((p.start, p.end, p.first_line, p.last_line, p.next), (2, 5, 2, 3, None));
    assert_eq!(p.shown.lines, 2);
    // One line allowed: "b\n" is a whole line, and so is the final "c".
    let p = page_of("a\nb\nc", req(2, 0, UNLIMITED, 1)).unwrap();
    assert_eq!((p.end, p.next), (4, Some((3, 0))));
    let p = page_of("a\nb\nc", req(3, 0, UNLIMITED, 1)).unwrap();
    assert_eq!((p.start, p.end, p.next), (4, 5, None));
}

#[test]
fn a_long_line_is_split_at_safe_cuts_and_continued_by_column() {
    let text = "ab😀cd\nx";
    // 4 bytes: "ab" then the astral char would make 6.
    let p = page_of(text, req(1, 0, 4, UNLIMITED)).unwrap();
    assert_eq!((p.end, p.next), (2, Some((1, 2))));
    let p = page_of(text, req(1, 2, 4, UNLIMITED)).unwrap();
    assert_eq!((p.start, p.end, p.next, p.start_byte, p.end_byte), (2, 4, Some((1, 4)), 2, 6));
    let p = page_of(text, req(1, 4, 3, UNLIMITED)).unwrap();
    assert_eq!((p.end, p.next), (7, Some((2, 0))), "\"cd\\n\" is the rest of line 1");
}

#[test]
fn a_page_never_ends_between_cr_and_lf() {
    // Line 1 is "abc\r": 4 bytes hold "abc\r" but not its "\n".
    let p = page_of("abc\r\nz", req(1, 0, 4, UNLIMITED)).unwrap();
    assert_eq!((p.end, p.next), (3, Some((1, 3))));
    let p = page_of("abc\r\nz", req(1, 3, 2, UNLIMITED)).unwrap();
    assert_eq!((p.start, p.end, p.next), (3, 5, Some((2, 0))));
}

#[test]
fn a_budget_below_one_character_still_moves_on() {
    // The only pages over budget: one astral char with 3 bytes, one char with no lines.
    let p = page_of("😀a", req(1, 0, 3, UNLIMITED)).unwrap();
    assert_eq!((p.end, p.shown.bytes, p.next), (2, 4, Some((1, 2))));
    let p = page_of("\r\nb", req(1, 0, 1, UNLIMITED)).unwrap();
    assert_eq!((p.end, p.next), (2, Some((2, 0))));
    let p = page_of("ab", req(1, 0, UNLIMITED, 0)).unwrap();
    assert_eq!((p.end, p.next), (1, Some((1, 1))));
    for t in ["😀😀\r\n\r\n日", "\u{10FFFF}\n\n", ""] {
        for max_bytes in 0..5 {
            for max_lines in [0, 1, UNLIMITED] {
                check_chain(&utf16(t), max_bytes, max_lines);
            }
        }
    }
}

#[test]
fn an_empty_text_is_one_empty_page_on_line_1() {
    let p = page_of("", req(1, 0, 10, 10)).unwrap();
    assert_eq!((p.start, p.end, p.first_line, p.last_line, p.next), (0, 0, 0, 0, None));
    assert_eq!((p.total, p.shown), (Measure::default(), Measure::default()));
    assert!(!p.is_partial());
}

#[test]
fn a_page_may_start_at_the_end_of_its_line() {
    // Column = line length: at the line break, or at the end of an unterminated last line.
    let p = page_of("ab\ncd", req(1, 2, UNLIMITED, 1)).unwrap();
    assert_eq!((p.start, p.end, p.first_line, p.last_line, p.next), (2, 3, 1, 1, Some((2, 0))));
    let p = page_of("ab\ncd", req(2, 2, UNLIMITED, 1)).unwrap();
    assert_eq!((p.start, p.end, p.first_line, p.last_line, p.next), (5, 5, 2, 2, None));
}

#[test]
fn offsets_out_of_range_name_the_valid_lines() {
    let err = |text: &str, line| page_of(text, req(line, 0, 10, 10)).unwrap_err().to_string();
    assert_eq!(err(TEN, 11), "offset must be a line number from 1 to 10, got 11");
    assert_eq!(err(TEN, 0), "offset must be a line number from 1 to 10, got 0");
    // Past a final line break there is no line; without one, the last line counts.
    assert_eq!(err("a\n", 2), "offset must be a line number from 1 to 1, got 2");
    assert!(page_of("a\nb", req(2, 0, 10, 10)).is_ok());
    assert_eq!(err("", 2), "offset must be a line number from 1 to 1, got 2");
    assert_eq!(err("\n\n", 3), "offset must be a line number from 1 to 2, got 3");
    assert_eq!(err(TEN, u64::MAX), format!("offset must be a line number from 1 to 10, got {}", u64::MAX));
    assert_eq!(page_of("a\nb", req(3, 0, 1, 1)), Err(PageError::OffsetOutOfRange { line: 3, total_lines: 2 }));
}

#[test]
fn columns_stay_inside_their_line_and_between_characters() {
    let err = |text: &str, line, column| page_of(text, req(line, column, 10, 10)).unwrap_err().to_string();
    assert_eq!(err(TEN, 2, 7), "column must be from 0 to 6 for line 2, got 7");
    assert_eq!(err("abc", 1, 4), "column must be from 0 to 3 for line 1, got 4");
    assert_eq!(err("abc", 1, usize::MAX), format!("column must be from 0 to 3 for line 1, got {}", usize::MAX));
    assert_eq!(err("", 1, 1), "column must be from 0 to 0 for line 1, got 1");
    assert_eq!(err("a😀b", 1, 2), "column 2 splits a character or a \\r\\n pair");
    // A `\r` before the `\n` is part of the line, but the column may not split the pair.
    assert_eq!(err("ab\r\ncd", 1, 3), "column 3 splits a character or a \\r\\n pair");
    assert_eq!(err("ab\r\ncd", 1, 5), "column must be from 0 to 3 for line 1, got 5");
    assert_eq!(page_of("ab\r\ncd", req(1, 2, 10, 10)).unwrap().start, 2);
    // Lone surrogates are characters of their own.
    assert_eq!(page(&Units::new(&[0xDC00u16, 0xD800, b'x' as u16]), &req(1, 1, 10, 10)).unwrap().start, 1);
}

// ---------------------------------------------------------------------------------------
// The banner
// ---------------------------------------------------------------------------------------

/// `n` lines of 48 bytes: "000001 xxx…x\n".
fn numbered(n: usize, width: usize) -> String {
    (1..=n).map(|i| format!("{i:06} {}\n", "x".repeat(width))).collect()
}

#[test]
fn banner_of_a_first_page() {
    let text = numbered(5123, 10); // 18 bytes a line
    assert_eq!(
        banner_of(&text, req(1, 0, 51_200, 2000)),
        "[PARTIAL view: lines 1–2,000 of 5,123 shown (bytes 0–36,000 of 92,214). Continue with offset=2001.]"
    );
}

#[test]
fn banner_of_a_middle_and_a_last_page() {
    let text = numbered(100, 10);
    assert_eq!(
        banner_of(&text, req(21, 0, UNLIMITED, 10)),
        "[PARTIAL view: lines 21–30 of 100 shown (bytes 360–540 of 1,800). Continue with offset=31.]"
    );
    assert_eq!(
        banner_of(&text, req(91, 0, UNLIMITED, 10)),
        "[PARTIAL view: lines 91–100 of 100 shown (bytes 1,620–1,800 of 1,800). End of text.]"
    );
    assert_eq!(
        banner_of(&text, req(100, 0, UNLIMITED, 10)),
        "[PARTIAL view: line 100 of 100 shown (bytes 1,782–1,800 of 1,800). End of text.]"
    );
    assert_eq!(
        banner_of(&text, req(5, 0, UNLIMITED, 1)),
        "[PARTIAL view: line 5 of 100 shown (bytes 72–90 of 1,800). Continue with offset=6.]"
    );
}

#[test]
fn banner_of_pages_that_start_or_end_mid_line() {
    let text = format!("{}\n{}\nshort\n", "a".repeat(100_000), "b".repeat(60_000));
    // Ends mid-line.
    assert_eq!(
        banner_of(&text, req(1, 0, 51_200, UNLIMITED)),
        "[PARTIAL view: line 1 of 3 shown, up to column 51,200 of line 1 (bytes 0–51,200 of 160,008). \
         Continue with offset=1, column=51200.]"
    );
    // Starts and ends mid-line.
    assert_eq!(
        banner_of(&text, req(1, 1000, 2000, UNLIMITED)),
        "[PARTIAL view: line 1 of 3 shown, from column 1,000 of line 1, up to column 3,000 of line 1 \
         (bytes 1,000–3,000 of 160,008). Continue with offset=1, column=3000.]"
    );
    // Starts mid-line, ends on a line boundary.
    assert_eq!(
        banner_of(&text, req(1, 51_200, 200_000, UNLIMITED)),
        "[PARTIAL view: lines 1–3 of 3 shown, from column 51,200 of line 1 (bytes 51,200–160,008 of 160,008). \
         End of text.]"
    );
    assert_eq!(
        banner_of(&text, req(1, 90_000, 10_002, UNLIMITED)),
        "[PARTIAL view: line 1 of 3 shown, from column 90,000 of line 1 (bytes 90,000–100,001 of 160,008). \
         Continue with offset=2.]"
    );
    // Starts mid-line on a later line and ends mid-line on it.
    assert_eq!(
        banner_of(&text, req(2, 10, 5, UNLIMITED)),
        "[PARTIAL view: line 2 of 3 shown, from column 10 of line 2, up to column 15 of line 2 \
         (bytes 100,011–100,016 of 160,008). Continue with offset=2, column=15.]"
    );
}

#[test]
fn banner_columns_and_bytes_differ_on_wide_text() {
    // Columns are UTF-16 units of a string, bytes are UTF-8.
    let text = format!("{}\n", "é".repeat(10));
    assert_eq!(
        banner_of(&text, req(1, 2, 6, UNLIMITED)),
        "[PARTIAL view: line 1 of 1 shown, from column 2 of line 1, up to column 5 of line 1 \
         (bytes 4–10 of 21). Continue with offset=1, column=5.]"
    );
    // Through UTF-8, columns are bytes.
    let p = page(&Utf8::new(&text), &req(1, 4, 6, UNLIMITED)).unwrap();
    assert_eq!(
        partial_banner(&p),
        "[PARTIAL view: line 1 of 1 shown, from column 4 of line 1, up to column 10 of line 1 \
         (bytes 4–10 of 21). Continue with offset=1, column=10.]"
    );
}

// ---------------------------------------------------------------------------------------
// Large texts
// ---------------------------------------------------------------------------------------

#[test]
fn a_ten_megabyte_line_pages_back_whole() {
    let line: Vec<u16> = utf16("é😀abc日").into_iter().cycle().take(10 << 20).collect();
    let mut t = utf16("first\n");
    t.extend_from_slice(&line);
    t.extend(utf16("\nlast"));
    let src = Units::new(&t);
    // Every page counts the whole text, so a few large pages keep the test quick.
    let pages = chain(&src, 1 << 20, 2000);
    assert_eq!(pages.iter().map(|p| p.end - p.start).sum::<usize>(), t.len());
    for w in pages.windows(2) {
        assert_eq!(w[0].end, w[1].start);
        assert_eq!(w[0].end_byte, w[1].start_byte);
    }
    assert!(pages.iter().all(|p| p.shown.bytes <= 1 << 20 && is_safe_cut(&t, p.end)));
    assert_eq!(pages[1].first_line, 2);
    assert!(pages[1].next.unwrap().1 > 0);
    let last = pages.last().unwrap();
    assert_eq!((last.last_line, last.end_byte, last.total.bytes), (3, naive_bytes(&t), naive_bytes(&t)));
}

#[test]
fn a_deep_page_of_a_large_text_counts_what_precedes_it() {
    // 16 MiB in 64-byte lines, with wide chars so bytes and units differ.
    let unit = utf16("ab日😀cdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVW\n");
    let lines = (16 << 20) / unit.len();
    let t: Vec<u16> = unit.iter().copied().cycle().take(unit.len() * lines).collect();
    let line_bytes = naive_bytes(&unit);
    let src = Units::new(&t);
    let target = lines as u64 - 1000;
    let p = page(&src, &req(target, 0, 51_200, 2000)).unwrap();
    assert_eq!(p.start, (target as usize - 1) * unit.len());
    assert_eq!(p.start_byte, (target - 1) * line_bytes);
    assert_eq!(p.total, Measure { chars: t.len() as u64, bytes: lines as u64 * line_bytes, lines: lines as u64 });
    assert_eq!(p.shown.lines, 51_200 / line_bytes);
    // The same through Latin-1 and UTF-8.
    let narrow: Vec<u8> = b"abcdefghijklmnopqrstuvwxyz\xe9\n".iter().copied().cycle().take(16 << 20).collect();
    let p8 = page(&Units::new(&narrow), &req(500_000, 3, 100, 2000)).unwrap();
    assert_eq!((p8.start, p8.start_byte), (499_999 * 28 + 3, 499_999 * 29 + 3));
    let s: String = narrow.iter().map(|&b| b as char).collect();
    let pu = page(&Utf8::new(&s), &req(500_000, 3, 100, 2000)).unwrap();
    assert_eq!((pu.start, pu.start_byte, pu.total), (499_999 * 29 + 3, 499_999 * 29 + 3, p8.total));
}

// ---------------------------------------------------------------------------------------
// UTF-8 and Latin-1 sources
// ---------------------------------------------------------------------------------------

/// The same pages through UTF-8 as through UTF-16, with positions converted.
fn check_utf8_like_utf16(text: &str, max_bytes: u64, max_lines: u64) {
    let units = utf16(text);
    let wide = check_chain(&units, max_bytes, max_lines);
    let narrow = chain(&Utf8::new(text), max_bytes, max_lines);
    assert_eq!(wide.len(), narrow.len(), "page count");
    let to_units = |byte: usize| text[..byte].encode_utf16().count();
    for (w, u) in wide.iter().zip(&narrow) {
        assert_eq!((to_units(u.start), to_units(u.end)), (w.start, w.end));
        assert_eq!((u.start, u.end), (u.start_byte as usize, u.end_byte as usize), "UTF-8 positions are bytes");
        assert_eq!((u.total, u.shown, u.first_line, u.last_line), (w.total, w.shown, w.first_line, w.last_line));
        assert_eq!((u.start_byte, u.end_byte), (w.start_byte, w.end_byte));
        let line_start = |p: &Page, text_start: usize| text_start - p.start_column;
        let (wl, ul) = (line_start(w, w.start), line_start(u, u.start));
        assert_eq!(to_units(ul), wl, "the same line start");
        match (w.next, u.next) {
            (Some((wl_, wc)), Some((ul_, uc))) => {
                assert_eq!(wl_, ul_);
                // Columns: units of the line before the cut, in each encoding.
                let next_line_start = u.end - uc;
                assert_eq!(text[next_line_start..u.end].encode_utf16().count(), wc);
            }
            (None, None) => {}
            other => panic!("next differs: {other:?}"),
        }
        if w.is_partial() {
            let banner = |p: &Page| without_numbers(&partial_banner(p));
            assert_eq!(banner(w), banner(u), "banners differ only in columns");
        }
    }
}

/// Each run of digits and separators as one `#`.
fn without_numbers(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let digit = c.is_ascii_digit() || c == ',';
        if !digit {
            out.push(c);
        } else if !out.ends_with('#') {
            out.push('#');
        }
    }
    out
}

#[test]
fn utf8_pages_like_utf16() {
    for text in ["", "a", "é\n", "日本\r\n😀x\n\nend", &"語😀\n".repeat(50), &"x".repeat(300)] {
        for max_bytes in [0, 3, 4, 5, 7, 20, UNLIMITED] {
            for max_lines in [0, 1, 2, UNLIMITED] {
                check_utf8_like_utf16(text, max_bytes, max_lines);
            }
        }
    }
}

#[test]
fn utf8_columns_must_fall_on_char_boundaries() {
    let src = Utf8::new("a日b");
    assert_eq!(page(&src, &req(1, 2, 10, 10)), Err(PageError::ColumnSplitsCharacter { column: 2 }));
    assert_eq!(page(&src, &req(1, 4, 10, 10)).unwrap().start, 4);
    assert_eq!(page(&src, &req(1, 6, 10, 10)).unwrap_err().to_string(), "column must be from 0 to 5 for line 1, got 6");
}

#[test]
fn lossy_positions_map_back_to_the_raw_bytes() {
    let cases: [&[u8]; 6] = [
        b"",
        b"plain",
        b"\xFF",
        b"a\xE6\x97\nb",
        b"\xF0\x9F\x98\x80\xED\xA0\x80x\xC3",
        b"\xC3\xA9\x80\x80\xC3\n\xFF\xFE",
    ];
    for bytes in cases {
        let decoded = decode_lossy(bytes);
        for (p, _) in decoded.char_indices().chain([(decoded.len(), ' ')]) {
            let raw = lossy_position(bytes, p);
            // Decoding the raw pieces gives the decoded pieces.
            assert_eq!(String::from_utf8_lossy(&bytes[..raw]), &decoded[..p], "{bytes:x?} at {p}");
            assert_eq!(String::from_utf8_lossy(&bytes[raw..]), &decoded[p..], "{bytes:x?} at {p}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Pages under their banner
// ---------------------------------------------------------------------------------------

/// What a page under its banner takes: its banner line (and line break) and the page.
fn shown_with_banner(p: &Page, banner: &str) -> (u64, u64) {
    (banner.len() as u64 + 1 + p.shown.bytes, 1 + p.shown.lines)
}

#[test]
fn a_page_and_its_banner_fit_the_budget_together() {
    let text = numbered(5123, 50); // 58 bytes a line
    let (p, banner) = page_with_banner(&Units::new(&utf16(&text)), &req(1, 0, 51_200, 2000)).unwrap();
    let banner = banner.unwrap();
    assert_eq!(
        banner,
        "[PARTIAL view: lines 1–881 of 5,123 shown (bytes 0–51,098 of 297,134). Continue with offset=882.]"
    );
    let (bytes, lines) = shown_with_banner(&p, &banner);
    assert!(bytes <= 51_200 && bytes > 51_200 - 58, "{bytes} bytes");
    assert!(lines <= 2000);
    // Lines bind: the banner takes one of them.
    let (p, banner) = page_with_banner(&Units::new(&utf16(&text)), &req(1, 0, UNLIMITED, 10)).unwrap();
    assert_eq!((p.shown.lines, p.next), (9, Some((10, 0))));
    assert_eq!(shown_with_banner(&p, &banner.unwrap()).1, 10);
}

#[test]
fn a_text_that_fits_comes_back_whole_with_no_banner_under_any_budget() {
    let (p, banner) = page_with_banner(&Units::new(&utf16("ab\n")), &req(1, 0, 4, 1)).unwrap();
    assert_eq!((p.start, p.end, banner), (0, 3, None));
}

#[test]
fn budgets_too_small_for_a_banner_are_errors_that_say_what_it_takes() {
    let text = utf16(&numbered(100, 10));
    let err = |b, l| page_with_banner(&Units::new(&text), &req(1, 0, b, l)).unwrap_err();
    assert_eq!(
        err(51_200, 1).to_string(),
        "maxLines 1 cannot hold a partial page: its banner takes a line of its own, so give at least 2"
    );
    let e = err(4, 2000);
    // The least a page here takes: its first line (18 bytes) under its banner and line break,
    // less than one character under the longer banner of a page that ends mid-line.
    let line = "[PARTIAL view: line 1 of 100 shown (bytes 0–18 of 1,800). Continue with offset=2.]";
    let needed = line.len() as u64 + 1 + 18;
    assert_eq!(e, PageError::TooSmall { max_bytes: 4, max_lines: 2000, needed_bytes: needed });
    assert_eq!(
        e.to_string(),
        format!("maxBytes 4 cannot hold a partial page: the least one here takes {needed} bytes with its banner line")
    );
    // Exactly that much is enough.
    let (p, banner) = page_with_banner(&Units::new(&text), &req(1, 0, needed, 2000)).unwrap();
    assert_eq!((p.end, banner.as_deref()), (18, Some(line)));
    assert!(matches!(err(needed - 1, 2000), PageError::TooSmall { .. }));
}

#[test]
fn banners_parse_back_exactly_and_nothing_else_does() {
    let text = format!("{}\n{}\nshort\n", "a".repeat(100_000), "b".repeat(60_000));
    for r in [
        req(1, 0, 51_200, UNLIMITED),
        req(1, 1000, 2000, UNLIMITED),
        req(1, 51_200, UNLIMITED, 2),
        req(3, 0, UNLIMITED, 1),
    ] {
        let p = page_of(&text, r).unwrap();
        assert_eq!(Banner::parse(&partial_banner(&p)), Some(Banner::of(&p)));
    }
    let good = "[PARTIAL view: lines 21–30 of 100 shown (bytes 360–540 of 1,800). Continue with offset=31.]";
    assert!(Banner::parse(good).is_some());
    for bad in [
        "[PARTIAL view: lines 21–30 of 100 shown (bytes 360–540 of 1800). Continue with offset=31.]",
        "[PARTIAL view: lines 21–30 of 100 shown (bytes 360–540 of 1,800). Continue with offset=31.] ",
        "[PARTIAL view: lines 30–30 of 100 shown (bytes 360–540 of 1,800). Continue with offset=31.]",
        "[PARTIAL view: lines 21–30 of 100 shown (bytes 360–540 of 1,800). Continue with offset=31, column=0.]",
        "[PARTIAL view: lines 21-30 of 100 shown (bytes 360-540 of 1,800). Continue with offset=31.]",
        "PARTIAL view: lines 21–30 of 100 shown (bytes 360–540 of 1,800). Continue with offset=31.]",
    ] {
        assert_eq!(Banner::parse(bad), None, "{bad}");
    }
}

/// The text a tool shows of a page: its banner line, then the page.
fn shown_text(t: &[u16], p: &Page, banner: &str) -> Vec<u16> {
    let mut shown = utf16(banner);
    shown.push(NL);
    shown.extend_from_slice(&t[p.start..p.end]);
    shown
}

#[test]
fn a_page_cut_further_says_where_to_continue() {
    let text = utf16(&numbered(5000, 50));
    let (p, banner) = page_with_banner(&Units::new(&text), &req(1, 0, 51_200, 2000)).unwrap();
    let shown = shown_text(&text, &p, &banner.unwrap());
    let limits = Limits { max_chars: UNLIMITED, max_bytes: UNLIMITED, max_lines: 500 };
    let Repage::Cut { page_start, end, banner } = repage(&Units::new(&shown), &limits, false) else { panic!() };
    assert_eq!(
        banner,
        "[PARTIAL view: lines 1–499 of 5,000 shown (bytes 0–28,942 of 290,000). Continue with offset=500.]"
    );
    assert_eq!(&shown[page_start..end], &text[..499 * 58]);
    // Mid-line, in positions or in bytes.
    let wide = utf16(&format!("{}\nnext\n", "é".repeat(1000)));
    let (p, banner) = page_with_banner(&Units::new(&wide), &req(1, 0, 1000, UNLIMITED)).unwrap();
    let shown = shown_text(&wide, &p, &banner.unwrap());
    let limits = Limits { max_chars: UNLIMITED, max_bytes: 300, max_lines: UNLIMITED };
    for (bytes, width) in [(false, 1), (true, 2)] {
        let Repage::Cut { page_start, end, banner } = repage(&Units::new(&shown), &limits, bytes) else { panic!() };
        let column = (end - page_start) * width;
        assert!(banner.ends_with(&format!("Continue with offset=1, column={column}.]")), "{banner}");
    }
    // Not a page: no banner, a banner the page disagrees with, or no room for one.
    let tampered = [&shown[..shown.len() - 1], &[b'x' as u16]].concat();
    assert_eq!(repage(&Units::new(&tampered), &limits, false), Repage::NotAPage);
    assert_eq!(repage(&Units::new(&utf16("just text\n")), &limits, false), Repage::NotAPage);
    let one_line = Limits { max_lines: 1, ..limits };
    assert!(matches!(repage(&Units::new(&shown), &one_line, false), Repage::TooSmall { .. }));
}

/// Where line `line`, column `column` lies in `t`.
fn position_of(t: &[u16], line: u64, column: usize) -> usize {
    reference_line_start(t, line).unwrap() + column
}

/// Pages `t` under banners from `(line, column)` and checks each page: it fits with its
/// banner, the longest that does, and the chain gives back the text from there.
fn check_banner_chain(t: &[u16], max_bytes: u64, max_lines: u64) {
    let src = Units::new(t);
    let mut at = Some((1, 0));
    let mut rebuilt = Vec::new();
    while let Some((line, column)) = at {
        let r = req(line, column, max_bytes, max_lines);
        let (p, banner) = match page_with_banner(&src, &r) {
            Ok(answer) => answer,
            Err(PageError::TooSmall { needed_bytes, .. }) => {
                // Truly too small: no room for a banner line, or for it and one character,
                // or it and the first line.
                let least = |p: Page| partial_banner(&p).len() as u64 + 1 + p.shown.bytes;
                let one = least(page(&src, &req(line, column, 0, UNLIMITED)).unwrap());
                let first = least(page(&src, &req(line, column, UNLIMITED, 1)).unwrap());
                assert!(max_lines < 2 || needed_bytes > max_bytes);
                assert!(max_lines < 2 || needed_bytes == one.min(first));
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert_eq!(p.start, rebuilt.len());
        let Some(banner) = banner else {
            assert!(!p.is_partial() && p.start == 0 && p.end == t.len());
            rebuilt.extend_from_slice(t);
            break;
        };
        assert_eq!(banner, partial_banner(&p));
        let (bytes, lines) = shown_with_banner(&p, &banner);
        assert!(bytes <= max_bytes && lines <= max_lines, "{bytes} bytes, {lines} lines: {banner}");
        // The longest page that fits with its own banner, among the pages of every room.
        let lines_left = if max_lines == UNLIMITED { UNLIMITED } else { max_lines - 1 };
        let rooms: Vec<u64> = if max_bytes == UNLIMITED { vec![UNLIMITED] } else { (0..=max_bytes).collect() };
        let longest = rooms
            .into_iter()
            .map(|room| reference_page(t, &req(line, column, room, lines_left)).unwrap())
            .filter(|q| shown_with_banner(q, &partial_banner(q)).0 <= max_bytes)
            .map(|q| q.end)
            .max();
        assert_eq!(Some(p.end), longest, "{banner}");
        rebuilt.extend_from_slice(&t[p.start..p.end]);
        at = p.next;
    }
    assert_eq!(rebuilt, t);
}

fn limits_strategy() -> impl Strategy<Value = Limits> {
    let budget = |lo: u64, hi: u64| prop_oneof![4 => lo..hi, 1 => Just(UNLIMITED)];
    (budget(0, 400), budget(0, 500), prop_oneof![4 => 0u64..8, 1 => Just(UNLIMITED)])
        .prop_map(|(max_chars, max_bytes, max_lines)| Limits { max_chars, max_bytes, max_lines })
}

/// The longest cut of the page `shown[page_start..]` under `banner` that fits `limits` with
/// its own banner, the slow way: every end a page may have (a line end, the page's end, or a
/// safe cut inside its first line), its banner written from the definitions.
fn reference_repage(
    shown: &[u16],
    page_start: usize,
    banner: &Banner,
    limits: &Limits,
    bytes: bool,
) -> Option<(usize, String)> {
    let n = shown.len();
    let first_newline = shown[page_start..].iter().position(|&c| c == NL).map(|i| page_start + i);
    let mut best = None;
    for end in page_start + 1..=n {
        let line_end = shown[end - 1] == NL;
        if !is_safe_cut(shown, end) || !(end == n || line_end || first_newline.is_none_or(|p| end <= p)) {
            continue;
        }
        let kept = &shown[page_start..end];
        let text = if end == n {
            banner.text()
        } else {
            let last_line = banner.first_line + newlines(kept) - line_end as u64;
            let next = if line_end {
                (last_line + 1, 0)
            } else {
                let from = kept.iter().rposition(|&c| c == NL).map_or(0, |i| i + 1);
                let base = if from == 0 { banner.start_column } else { 0 };
                let into = if bytes { naive_bytes(&kept[from..]) as usize } else { kept.len() - from };
                (last_line, base + into)
            };
            Banner { last_line, next: Some(next), end_byte: banner.start_byte + naive_bytes(kept), ..banner.clone() }
                .text()
        };
        let out = [&utf16(&text)[..], &[NL], kept].concat();
        let m = naive_measure(&out);
        if m.chars <= limits.max_chars && m.bytes <= limits.max_bytes && m.lines <= limits.max_lines {
            best = Some((end, text));
        }
    }
    best
}

/// A page of `t` (UTF-16 positions, or UTF-8 bytes when `bytes`) cut by `repage` under
/// `limits`: the longest cut that fits with its banner (the reference's), and its banner
/// continues exactly where the kept part ends.
fn check_repage(text: &str, r: PageRequest, limits: &Limits, bytes: bool) {
    let units = utf16(text);
    let (p, banner) = if bytes {
        page_with_banner(&Utf8::new(text), &r).unwrap()
    } else {
        page_with_banner(&Units::new(&units), &r).unwrap()
    };
    let Some(banner) = banner else { return };
    let to_units = |i: usize| if bytes { text[..i].encode_utf16().count() } else { i };
    let (start, end) = (to_units(p.start), to_units(p.end));
    let shown = [&utf16(&banner)[..], &[NL], &units[start..end]].concat();
    let page_start = banner.encode_utf16().count() + 1;
    let facts = Banner::parse(&banner).unwrap();
    let expected =
        if limits.max_lines < 2 { None } else { reference_repage(&shown, page_start, &facts, limits, bytes) };
    match (repage(&Units::new(&shown), limits, bytes), expected) {
        (Repage::TooSmall { page_start: at }, None) => assert_eq!(at, page_start),
        (Repage::Cut { page_start: at, end: kept_end, banner: cut }, Some((want_end, want_banner))) => {
            assert_eq!((at, kept_end, &cut), (page_start, want_end, &want_banner));
            let kept = kept_end - page_start;
            let Some((line, column)) = Banner::parse(&cut).expect("the new banner parses").next else {
                return assert_eq!(kept, end - start);
            };
            if kept == end - start {
                return assert_eq!(cut, banner);
            }
            if bytes {
                let line_start =
                    if line == 1 { 0 } else { text.match_indices('\n').nth(line as usize - 2).unwrap().0 + 1 };
                assert_eq!(to_units(line_start + column), start + kept, "{cut}");
            } else {
                assert_eq!(position_of(&units, line, column), start + kept, "{cut}");
            }
        }
        (got, want) => panic!("repage gave {got:?}, the reference {want:?}"),
    }
}

#[test]
fn repaging_a_page_of_a_buffer_counts_columns_in_bytes() {
    let text = format!("{}\n日本語 text\n", "é😀ab".repeat(300));
    let limits = Limits { max_chars: UNLIMITED, max_bytes: 250, max_lines: UNLIMITED };
    check_repage(&text, req(1, 0, 1000, UNLIMITED), &limits, true);
    check_repage(&text, req(1, 0, 1000, UNLIMITED), &limits, false);
    check_repage(&text, req(1, 210, 1000, UNLIMITED), &limits, true);
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

fn max_bytes() -> impl Strategy<Value = u64> {
    prop_oneof![3 => 4u64..120, 1 => 0u64..4, 1 => Just(UNLIMITED)]
}

fn max_lines() -> impl Strategy<Value = u64> {
    prop_oneof![3 => 1u64..12, 1 => Just(0u64), 1 => Just(UNLIMITED)]
}

/// Valid UTF-8 texts of the same mix (no lone surrogates).
fn str_text(max_pieces: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-z ]{1,6}",
        3 => Just("\n".to_string()),
        1 => Just("\r\n".to_string()),
        1 => Just("\r".to_string()),
        2 => Just("é".to_string()),
        2 => Just("日本".to_string()),
        2 => Just("😀".to_string()),
        1 => (20usize..90).prop_map(|n| "x".repeat(n)),
    ];
    prop::collection::vec(piece, 0..max_pieces).prop_map(|p| p.concat())
}

const REGRESSIONS: &str = "tests/proptest-regressions/page.txt";

proptest! {
    #![proptest_config(proptest_config(REGRESSIONS, 1500))]

    #[test]
    fn pages_chain_back_to_the_text_and_match_the_reference(t in text(60), b in max_bytes(), l in max_lines()) {
        check_chain(&t, b, l);
    }

    #[test]
    fn any_request_gives_the_reference_page_or_error(
        t in text(40),
        line in 0u64..12,
        column in 0usize..40,
        b in max_bytes(),
        l in max_lines(),
    ) {
        let r = req(line, column, b, l);
        let got = page(&Units::new(&t), &r);
        prop_assert_eq!(&got, &reference_page(&t, &r));
        if let Ok(p) = got {
            if p.is_partial() {
                let banner = partial_banner(&p);
                prop_assert!(banner.starts_with("[PARTIAL view: ") && banner.ends_with(".]"), "{}", banner);
                prop_assert!(!banner.contains('\n'));
            }
        }
    }

    #[test]
    fn pages_under_banners_fit_and_chain_back_to_the_text(t in text(60), b in prop_oneof![4 => 0u64..400, 1 => Just(UNLIMITED)], l in max_lines()) {
        check_banner_chain(&t, b, l);
    }

    #[test]
    fn banners_parse_back_to_their_facts(t in text(40), line in 1u64..6, column in 0usize..10, b in max_bytes(), l in max_lines()) {
        if let Ok(p) = page(&Units::new(&t), &req(line, column, b, l)) {
            if p.is_partial() {
                prop_assert_eq!(Banner::parse(&partial_banner(&p)), Some(Banner::of(&p)));
            }
        }
    }

    #[test]
    fn a_repaged_page_fits_and_continues_where_it_stops(
        t in str_text(60),
        line in 1u64..5,
        b in prop_oneof![3 => 200u64..600, 1 => Just(UNLIMITED)],
        l in prop_oneof![3 => 2u64..12, 1 => Just(UNLIMITED)],
        limits in limits_strategy(),
        bytes in any::<bool>(),
    ) {
        let lines = t.split_inclusive('\n').count().max(1) as u64;
        check_repage(&t, req(line.min(lines), 0, b, l), &limits, bytes);
    }

    #[test]
    fn latin1_pages_like_utf16(t in prop::collection::vec(prop_oneof![4 => 0x20u8..0x7f, 2 => Just(b'\n'), 1 => Just(b'\r'), 1 => 0x80u8..=0xff], 0..300), b in max_bytes(), l in max_lines()) {
        let wide: Vec<u16> = t.iter().map(|&c| c as u16).collect();
        prop_assert_eq!(chain(&Units::new(&t), b, l), check_chain(&wide, b, l));
    }

    #[test]
    fn utf8_pages_like_utf16_everywhere(t in str_text(60), b in max_bytes(), l in max_lines()) {
        check_utf8_like_utf16(&t, b, l);
    }

    #[test]
    fn lossy_positions_split_like_the_decoding(bytes in prop::collection::vec(prop_oneof![
        3 => 0x20u8..0x7f, 1 => Just(b'\n'), 2 => 0x80u8..=0xff, 1 => Just(0xE6u8), 1 => Just(0xF0u8), 1 => Just(0xC3u8)
    ], 0..60)) {
        let decoded = decode_lossy(&bytes);
        for (p, _) in decoded.char_indices() {
            let raw = lossy_position(&bytes, p);
            prop_assert_eq!(String::from_utf8_lossy(&bytes[..raw]), &decoded[..p]);
            prop_assert_eq!(String::from_utf8_lossy(&bytes[raw..]), &decoded[p..]);
        }
        prop_assert_eq!(lossy_position(&bytes, decoded.len()), bytes.len());
    }
}
