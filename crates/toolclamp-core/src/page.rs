//! Paging: one bounded view of a text from a given line (and column), with the handle
//! that continues it, for a reader that walks a text too large to show whole.
//!
//! A page is `text[start..end]`: at most `max_bytes` UTF-8 bytes and `max_lines` lines.
//! It ends on a line boundary whenever it holds a line break and is not the last page; a
//! line longer than a page is split at safe cuts, the continuation then naming a column.
//! Chaining pages through [`Page::next`] gives back the text exactly.
//!
//! Positions and columns are those of the [`Source`]: UTF-16 units for a string, bytes for
//! [`crate::Utf8`]. Counts follow the crate's definitions. A page reads every unit once:
//! the text before it (for the start line and byte offset), the page, and the rest (for
//! the totals). A [`crate::Windows`] source cannot be paged.

use crate::measure::{lines_of, Measure, Span};
use crate::notice::push_count;
use crate::plan::UNLIMITED;
use crate::source::Source;

/// Where a page starts and how large it may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageRequest {
    /// 1-based line the page starts on.
    pub line: u64,
    /// Positions into that line, up to its length without the `\n`.
    pub column: usize,
    /// UTF-8 bytes; [`UNLIMITED`] for none.
    pub max_bytes: u64,
    /// Lines; [`UNLIMITED`] for none.
    pub max_lines: u64,
}

/// One page of a text and where it sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// The page is `text[start..end]`.
    pub start: usize,
    pub end: usize,
    /// The whole text.
    pub total: Measure,
    /// The page.
    pub shown: Measure,
    /// 1-based lines the page touches, inclusive (0 and 0 for an empty text).
    pub first_line: u64,
    pub last_line: u64,
    /// Column of `start` in `first_line` (the request's column).
    pub start_column: usize,
    /// UTF-8 byte offsets of `start` and `end` in the whole text.
    pub start_byte: u64,
    pub end_byte: u64,
    /// The `(line, column)` to request next; `None` when the page reaches the end.
    pub next: Option<(u64, usize)>,
}

impl Page {
    /// Something of the text lies outside the page.
    pub fn is_partial(&self) -> bool {
        self.start > 0 || self.next.is_some()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageError {
    /// No such line; `total_lines` is the text's line count.
    OffsetOutOfRange { line: u64, total_lines: u64 },
    /// The column lies past the end of the line (`line_len` excludes its `\n`).
    ColumnOutOfRange { line: u64, column: usize, line_len: usize },
    /// The column falls inside a surrogate pair, a UTF-8 sequence or `\r\n`.
    ColumnSplitsCharacter { column: usize },
}

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            PageError::OffsetOutOfRange { line, total_lines } => {
                // An empty text still has a line 1 to start from.
                write!(f, "offset must be a line number from 1 to {}, got {line}", total_lines.max(1))
            }
            PageError::ColumnOutOfRange { line, column, line_len } => {
                write!(f, "column must be from 0 to {line_len} for line {line}, got {column}")
            }
            PageError::ColumnSplitsCharacter { column } => {
                write!(f, "column {column} splits a character or a \\r\\n pair")
            }
        }
    }
}

impl std::error::Error for PageError {}

/// Units counted at once while looking for a line start: long enough to amortise a count,
/// short enough that scanning the block that holds the line start is cheap.
const SCAN_BLOCK: usize = 1 << 14;

/// The page `req` asks for.
///
/// The page is the longest `text[start..]` within both budgets, then, unless it reaches
/// the end, shortened to its last line break, or (holding none) to a safe cut. A budget
/// smaller than the first character (`max_bytes` below 4 at an astral char, or
/// `max_lines` 0) still gets that one character (or `\r\n`), so paging always moves on:
/// that is the only page over budget.
pub fn page<S: Source + ?Sized>(src: &S, req: &PageRequest) -> Result<Page, PageError> {
    let n = src.len();
    let ends_with_newline = |to: usize, from: usize| to > from && src.is_newline(to - 1);
    let out_of_range = |total_newlines: u64| PageError::OffsetOutOfRange {
        line: req.line,
        total_lines: lines_of(total_newlines, n, ends_with_newline(n, 0)),
    };
    if req.line == 0 {
        return Err(out_of_range(src.span(0, n).newlines));
    }
    let (line_start, before_line) = line_start(src, req.line - 1).map_err(|all| out_of_range(all.newlines))?;
    // Past a final `\n` there is no line; an empty text has an empty line 1.
    if line_start == n && n > 0 {
        return Err(out_of_range(before_line.newlines));
    }
    let start = line_start.checked_add(req.column).filter(|&s| s <= n);
    let column_span = start.map(|s| src.span(line_start, s)).filter(|span| span.newlines == 0);
    let (Some(start), Some(column_span)) = (start, column_span) else {
        let line_len = (line_start..n).find(|&i| src.is_newline(i)).unwrap_or(n) - line_start;
        return Err(PageError::ColumnOutOfRange { line: req.line, column: req.column, line_len });
    };
    if !src.is_safe_cut(start) {
        return Err(PageError::ColumnSplitsCharacter { column: req.column });
    }
    let before = before_line + column_span;

    let end = page_end(src, start, req.max_bytes, req.max_lines);
    let page = src.span(start, end);
    let total = before + page + src.span(end, n);

    let (first_line, last_line) = if n == 0 {
        (0, 0)
    } else {
        // The line of `end - 1`: a final `\n` belongs to the line it ends.
        (req.line, req.line + page.newlines - ends_with_newline(end, start) as u64)
    };
    let next = if end == n {
        None
    } else if ends_with_newline(end, start) {
        Some((last_line + 1, 0))
    } else {
        // A page ends mid-line only when it holds no line break (see `page_end`).
        debug_assert_eq!(page.newlines, 0);
        Some((last_line, end - line_start))
    };
    Ok(Page {
        start,
        end,
        total: measure_of(total, n, ends_with_newline(n, 0)),
        shown: measure_of(page, end - start, ends_with_newline(end, start)),
        first_line,
        last_line,
        start_column: req.column,
        start_byte: before.bytes,
        end_byte: before.bytes + page.bytes,
        next,
    })
}

fn measure_of(span: Span, len: usize, last_is_newline: bool) -> Measure {
    Measure { chars: span.chars, bytes: span.bytes, lines: lines_of(span.newlines, len, last_is_newline) }
}

/// The position after the `newlines`-th `\n` and the counts before it, or, when the text
/// has fewer, the counts of the whole text. Counts block by block with the source's
/// counting kernel, and scans unit by unit only the block that holds the wanted `\n`.
fn line_start<S: Source + ?Sized>(src: &S, newlines: u64) -> Result<(usize, Span), Span> {
    let n = src.len();
    let mut pos = 0;
    let mut before = Span::ZERO;
    // Counts add up over any split: each unit's weight depends only on it and the unit before.
    while before.newlines < newlines {
        if pos == n {
            return Err(before);
        }
        let to = (pos + SCAN_BLOCK).min(n);
        let block = src.span(pos, to);
        if before.newlines + block.newlines < newlines {
            before = before + block;
            pos = to;
            continue;
        }
        let mut seen = before.newlines;
        let found = (pos..to).find(|&i| {
            seen += src.is_newline(i) as u64;
            seen == newlines
        });
        let at = found.expect("the block holds the wanted line break") + 1;
        before = before + src.span(pos, at);
        pos = at;
    }
    Ok((pos, before))
}

/// The end of the page from `start` (see [`page`]).
fn page_end<S: Source + ?Sized>(src: &S, start: usize, max_bytes: u64, max_lines: u64) -> usize {
    let n = src.len();
    let mut end = start;
    if max_lines > 0 {
        // A last line may end without `\n`, so `max_lines` lines may hold only
        // `max_lines - 1` line breaks, plus the `\n` closing the last line.
        let newlines = if max_lines == UNLIMITED { u64::MAX } else { max_lines - 1 };
        let (fit, used) = src.fit_forward(start, n, Span { chars: u64::MAX, bytes: max_bytes, newlines });
        end = fit;
        // `used.bytes` is 0 when bytes are unlimited (uncounted), which then fits anyway.
        if end < n && src.is_newline(end) && used.bytes < max_bytes {
            end += 1;
        }
    }
    if end == n {
        return end;
    }
    if let Some(p) = src.last_newline(start, end) {
        return p + 1;
    }
    while !src.is_safe_cut(end) {
        end -= 1;
    }
    if end == start {
        // Not even one character fits: show it anyway, or paging would stall.
        end += 1;
        while !src.is_safe_cut(end) {
            end += 1;
        }
    }
    end
}

/// The line above a partial page, without its line break:
///
/// `[PARTIAL view: lines 1–2,000 of 5,123 shown (bytes 0–51,200 of 310,442). Continue with offset=2001.]`
///
/// `line 7 of 10` for a page on one line; `, from column C of line A` after `shown` when
/// the page starts mid-line; `, up to column D of line B` after that when it ends
/// mid-line, and then `Continue with offset=B, column=D.`; `End of text.` for the last
/// page. Counts have thousands separators, the values to pass back have none.
pub fn partial_banner(page: &Page) -> String {
    let mut out = String::with_capacity(160);
    out.push_str("[PARTIAL view: ");
    if page.first_line < page.last_line {
        out.push_str("lines ");
        push_count(&mut out, page.first_line);
        out.push('–');
        push_count(&mut out, page.last_line);
    } else {
        out.push_str("line ");
        push_count(&mut out, page.first_line);
    }
    out.push_str(" of ");
    push_count(&mut out, page.total.lines);
    out.push_str(" shown");
    if page.start_column > 0 {
        out.push_str(", from column ");
        push_count(&mut out, page.start_column as u64);
        out.push_str(" of line ");
        push_count(&mut out, page.first_line);
    }
    if let Some((line, column)) = page.next.filter(|&(_, column)| column > 0) {
        out.push_str(", up to column ");
        push_count(&mut out, column as u64);
        out.push_str(" of line ");
        push_count(&mut out, line);
    }
    out.push_str(" (bytes ");
    push_count(&mut out, page.start_byte);
    out.push('–');
    push_count(&mut out, page.end_byte);
    out.push_str(" of ");
    push_count(&mut out, page.total.bytes);
    out.push_str("). ");
    match page.next {
        None => out.push_str("End of text."),
        Some((line, 0)) => out.push_str(&format!("Continue with offset={line}.")),
        Some((line, column)) => out.push_str(&format!("Continue with offset={line}, column={column}.")),
    }
    out.push(']');
    out
}

/// The position in `bytes` of `decoded`, a char boundary in their lossy decoding
/// ([`crate::decode_lossy`], where each maximal invalid subpart became a 3-byte U+FFFD).
/// Slicing `bytes` at such positions and decoding each piece gives the pieces of the
/// decoded text, so a caller can page invalid bytes without keeping the decoded copy.
pub fn lossy_position(bytes: &[u8], decoded: usize) -> usize {
    let (mut raw, mut dec) = (0, 0);
    loop {
        let rest = &bytes[raw..];
        let (valid, invalid) = match std::str::from_utf8(rest) {
            Ok(_) => (rest.len(), None),
            Err(e) => (e.valid_up_to(), Some(e.error_len().unwrap_or(rest.len() - e.valid_up_to()))),
        };
        if decoded <= dec + valid {
            return raw + (decoded - dec);
        }
        let Some(invalid) = invalid else {
            panic!("position {decoded} past the decoded text");
        };
        raw += valid + invalid;
        dec += valid + '\u{FFFD}'.len_utf8();
        assert!(decoded >= dec, "position {decoded} inside a replacement character");
    }
}
