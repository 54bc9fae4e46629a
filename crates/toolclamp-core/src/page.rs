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
use crate::plan::{Limits, UNLIMITED};
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
    /// A partial page and its banner line cannot fit the budget (see [`page_with_banner`]):
    /// `max_lines` below 2, or `max_bytes` below `needed_bytes`, what the least page there
    /// (one character, or its first line whole) takes with its banner line.
    TooSmall { max_bytes: u64, max_lines: u64, needed_bytes: u64 },
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
            PageError::TooSmall { max_lines, .. } if max_lines < 2 => write!(
                f,
                "maxLines {max_lines} cannot hold a partial page: its banner takes a line of its own, so give at least 2"
            ),
            PageError::TooSmall { max_bytes, needed_bytes, .. } => write!(
                f,
                "maxBytes {max_bytes} cannot hold a partial page: the least one here takes {needed_bytes} bytes with its banner line"
            ),
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
/// that is the only page over budget. The banner is not counted: see [`page_with_banner`].
pub fn page<S: Source + ?Sized>(src: &S, req: &PageRequest) -> Result<Page, PageError> {
    let at = locate(src, req)?;
    Ok(page_from(src, req, &at, UNLIMITED, req.max_bytes, req.max_lines))
}

/// The page `req` asks for, shown under its banner line: when the page is partial,
/// `banner + "\n" + page` is within `max_bytes` and `max_lines` (the banner is one line), and
/// the page is the longest that leaves its own banner room. A text that fits whole comes
/// back whole, with no banner, under any budget. A budget too small for a banner line and one
/// character is [`PageError::TooSmall`].
pub fn page_with_banner<S: Source + ?Sized>(src: &S, req: &PageRequest) -> Result<(Page, Option<String>), PageError> {
    let at = locate(src, req)?;
    let whole = page_from(src, req, &at, UNLIMITED, req.max_bytes, req.max_lines);
    if !whole.is_partial() {
        return Ok((whole, None));
    }
    let too_small =
        |needed_bytes| PageError::TooSmall { max_bytes: req.max_bytes, max_lines: req.max_lines, needed_bytes };
    if req.max_lines < 2 {
        return Err(too_small(0));
    }
    let lines = if req.max_lines == UNLIMITED { UNLIMITED } else { req.max_lines - 1 };
    let max_end = page_end(src, at.start, UNLIMITED, req.max_bytes, lines);
    let with_banner = |end: usize| {
        let p = page_to(src, req, &at, end);
        let banner = partial_banner(&p);
        (banner.len() as u64 + 1 + p.shown.bytes <= req.max_bytes).then_some((p, banner))
    };
    if let Some((p, banner)) = longest_under_banner(src, at.start, max_end, with_banner) {
        return Ok((p, Some(banner)));
    }
    // The least a page here takes with its banner: one character, or its first line whole
    // (whose banner, naming no column, is shorter).
    let least = |end: usize| {
        let p = page_to(src, req, &at, end);
        partial_banner(&p).len() as u64 + 1 + p.shown.bytes
    };
    let one = page_end(src, at.start, UNLIMITED, 0, UNLIMITED);
    let line = page_end(src, at.start, UNLIMITED, UNLIMITED, 1);
    Err(too_small(least(one).min(least(line))))
}

/// Where a requested page starts: `start`, the start of its line, and the counts before it
/// and from it to the end of the text.
struct Start {
    start: usize,
    line_start: usize,
    before: Span,
    after: Span,
}

fn locate<S: Source + ?Sized>(src: &S, req: &PageRequest) -> Result<Start, PageError> {
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
    // Counts add up over any split (each unit's weight depends only on the unit before).
    Ok(Start { start, line_start, before: before_line + column_span, after: src.span(start, n) })
}

/// The page from `at` within `max_chars`, `max_bytes` and `max_lines`.
fn page_from<S: Source + ?Sized>(
    src: &S,
    req: &PageRequest,
    at: &Start,
    max_chars: u64,
    max_bytes: u64,
    max_lines: u64,
) -> Page {
    page_to(src, req, at, page_end(src, at.start, max_chars, max_bytes, max_lines))
}

/// The page from `at` to `end`, a safe cut that is the text's end, follows a line break, or
/// lies in the line the page starts in.
fn page_to<S: Source + ?Sized>(src: &S, req: &PageRequest, at: &Start, end: usize) -> Page {
    let n = src.len();
    let ends_with_newline = |to: usize, from: usize| to > from && src.is_newline(to - 1);
    let Start { start, line_start, before, after } = *at;
    let page = src.span(start, end);
    let total = before + after;

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
    Page {
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
    }
}

/// The longest page from `start`, ending at most at `max_end` (the page the budget holds
/// with no banner), for which `fit(end)` answers (it does when the page fits beside its
/// banner).
///
/// A page ends after a line break, at the text's end, or, holding no line break, at a safe
/// cut inside its first line. Among pages of whole lines that continue, and among cuts inside
/// the first line, the longer page takes more, banner included (its numbers only grow), so a
/// binary search finds the longest that fits; but a page cut inside its line has the longer
/// banner (it names a column), so cuts are tried only when not even the first line fits
/// whole, and the page to the text's end has the shorter one, so it is tried first.
fn longest_under_banner<S: Source + ?Sized, P>(
    src: &S,
    start: usize,
    max_end: usize,
    fit: impl Fn(usize) -> Option<P>,
) -> Option<P> {
    let n = src.len();
    // The rest of the text, when the budget reaches its end: the longest page, and its banner
    // says `End of text.`, shorter than any continuation.
    if max_end == n && max_end > start {
        if let Some(p) = fit(n) {
            return Some(p);
        }
    }
    let ends: Vec<usize> = (start..max_end).filter(|&i| src.is_newline(i)).map(|i| i + 1).filter(|&e| e < n).collect();
    if let Some(p) = last_fitting(ends.len(), |k| fit(ends[k])) {
        return Some(p);
    }
    // Cuts inside the first line: from the first safe one on, up to its line break.
    let line_end = src.first_newline(start, max_end).unwrap_or(max_end);
    let safe_at_or_before = |mut i: usize| {
        while i > start && !src.is_safe_cut(i) {
            i -= 1;
        }
        i
    };
    let cuts = line_end.saturating_sub(start);
    last_fitting(cuts, |k| {
        let end = safe_at_or_before(start + 1 + k);
        if end == start {
            None
        } else {
            fit(end)
        }
    })
}

/// `fit(k)` for the largest `k < count` it answers for, given that it answers for every `k`
/// below one that it answers for.
fn last_fitting<P>(count: usize, fit: impl Fn(usize) -> Option<P>) -> Option<P> {
    // Invariant: `fit` answers at `lo - 1` (or `lo` is 0) and not at `hi` (or `hi` is count).
    let (mut lo, mut hi) = (0, count);
    let mut best = None;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match fit(mid) {
            Some(p) => {
                best = Some(p);
                lo = mid + 1;
            }
            None => hi = mid,
        }
    }
    best
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
fn page_end<S: Source + ?Sized>(src: &S, start: usize, max_chars: u64, max_bytes: u64, max_lines: u64) -> usize {
    let n = src.len();
    let mut end = start;
    if max_lines > 0 {
        // A last line may end without `\n`, so `max_lines` lines may hold only
        // `max_lines - 1` line breaks, plus the `\n` closing the last line.
        let newlines = if max_lines == UNLIMITED { u64::MAX } else { max_lines - 1 };
        let chars = if max_chars == UNLIMITED { u64::MAX } else { max_chars };
        let (fit, used) = src.fit_forward(start, n, Span { chars, bytes: max_bytes, newlines });
        end = fit;
        // A dimension left unlimited is uncounted (0), which then fits anyway.
        if end < n && src.is_newline(end) && used.bytes < max_bytes && used.chars < chars {
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
    Banner::of(page).text()
}

/// What a banner says (see [`partial_banner`]), which [`Banner::parse`] reads back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Banner {
    pub first_line: u64,
    pub last_line: u64,
    pub total_lines: u64,
    pub start_column: usize,
    pub next: Option<(u64, usize)>,
    pub start_byte: u64,
    pub end_byte: u64,
    pub total_bytes: u64,
}

impl Banner {
    pub fn of(page: &Page) -> Banner {
        Banner {
            first_line: page.first_line,
            last_line: page.last_line,
            total_lines: page.total.lines,
            start_column: page.start_column,
            next: page.next,
            start_byte: page.start_byte,
            end_byte: page.end_byte,
            total_bytes: page.total.bytes,
        }
    }

    /// The banner line, without its line break.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(160);
        out.push_str("[PARTIAL view: ");
        if self.first_line < self.last_line {
            out.push_str("lines ");
            push_count(&mut out, self.first_line);
            out.push('–');
            push_count(&mut out, self.last_line);
        } else {
            out.push_str("line ");
            push_count(&mut out, self.first_line);
        }
        out.push_str(" of ");
        push_count(&mut out, self.total_lines);
        out.push_str(" shown");
        if self.start_column > 0 {
            out.push_str(", from column ");
            push_count(&mut out, self.start_column as u64);
            out.push_str(" of line ");
            push_count(&mut out, self.first_line);
        }
        if let Some((line, column)) = self.next.filter(|&(_, column)| column > 0) {
            out.push_str(", up to column ");
            push_count(&mut out, column as u64);
            out.push_str(" of line ");
            push_count(&mut out, line);
        }
        out.push_str(" (bytes ");
        push_count(&mut out, self.start_byte);
        out.push('–');
        push_count(&mut out, self.end_byte);
        out.push_str(" of ");
        push_count(&mut out, self.total_bytes);
        out.push_str("). ");
        match self.next {
            None => out.push_str("End of text."),
            Some((line, 0)) => out.push_str(&format!("Continue with offset={line}.")),
            Some((line, column)) => out.push_str(&format!("Continue with offset={line}, column={column}.")),
        }
        out.push(']');
        out
    }

    /// The facts of a banner line exactly as [`Banner::text`] writes it, else None.
    pub fn parse(line: &str) -> Option<Banner> {
        let mut c = Cursor(line);
        c.eat("[PARTIAL view: ")?;
        let (first_line, last_line) = if c.eat("lines ").is_some() {
            let first = c.count()?;
            c.eat("–")?;
            (first, c.count()?)
        } else {
            c.eat("line ")?;
            let first = c.count()?;
            (first, first)
        };
        c.eat(" of ")?;
        let total_lines = c.count()?;
        c.eat(" shown")?;
        let mut start_column = 0;
        if c.eat(", from column ").is_some() {
            start_column = usize::try_from(c.count()?).ok()?;
            c.eat(" of line ")?;
            c.count()?;
        }
        if c.eat(", up to column ").is_some() {
            c.count()?;
            c.eat(" of line ")?;
            c.count()?;
        }
        c.eat(" (bytes ")?;
        let start_byte = c.count()?;
        c.eat("–")?;
        let end_byte = c.count()?;
        c.eat(" of ")?;
        let total_bytes = c.count()?;
        c.eat("). ")?;
        let next = if c.eat("End of text.").is_some() {
            None
        } else {
            c.eat("Continue with offset=")?;
            let line = c.number()?;
            let column = if c.eat(", column=").is_some() { usize::try_from(c.number()?).ok()? } else { 0 };
            c.eat(".")?;
            Some((line, column))
        };
        c.eat("]")?;
        let banner =
            Banner { first_line, last_line, total_lines, start_column, next, start_byte, end_byte, total_bytes };
        // Written back, it must be the very line: the clauses and numbers agree.
        (c.0.is_empty() && banner.text() == line).then_some(banner)
    }
}

/// A reader of a banner line, clause by clause.
struct Cursor<'a>(&'a str);

impl Cursor<'_> {
    fn eat(&mut self, literal: &str) -> Option<()> {
        self.0 = self.0.strip_prefix(literal)?;
        Some(())
    }

    /// A count: digits in groups of three after thousands separators (`1,234`), so that a
    /// comma ending the clause is not read as one.
    fn count(&mut self) -> Option<u64> {
        let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let mut len = digits(self.0);
        while self.0[len..].starts_with(',') && digits(&self.0[len + 1..]) == 3 {
            len += 4;
        }
        let (number, rest) = self.0.split_at(len);
        self.0 = rest;
        let plain: String = number.chars().filter(|&c| c != ',').collect();
        if plain.is_empty() || plain.len() > 19 {
            return None;
        }
        plain.parse().ok()
    }

    /// A value to pass back: digits only.
    fn number(&mut self) -> Option<u64> {
        let len = self.0.find(|c: char| !c.is_ascii_digit()).unwrap_or(self.0.len());
        let (number, rest) = self.0.split_at(len);
        self.0 = rest;
        if number.is_empty() || number.len() > 19 {
            return None;
        }
        number.parse().ok()
    }
}

/// The longest banner line [`repage`] looks for, in positions.
const MAX_BANNER: usize = 512;

/// What [`repage`] made of a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repage {
    /// Not a partial page under its banner line, as [`page_with_banner`] shows one.
    NotAPage,
    /// A page whose banner line and one character cannot fit the limits; the page (after
    /// the banner line) starts at `page_start`.
    TooSmall { page_start: usize },
    /// The text is `banner` on its own line, then the page from `page_start` up to `end`.
    Cut { page_start: usize, end: usize, banner: String },
}

/// A shown page, `banner + "\n" + page` as [`page_with_banner`] gives it, cut further to fit
/// `limits`: whole lines from its start while they fit (else a safe cut in its first line),
/// under a banner rewritten to say what is shown now and to continue right after it, so that
/// following the continuation skips nothing. `byte_columns`: the page's source counts columns
/// in UTF-8 bytes (a page of a Buffer), not in positions. A page that fits keeps its banner.
///
/// The text is a page only when its first line is a banner exactly as [`partial_banner`]
/// writes it and the rest agrees with it: as many bytes as the banner's byte range, the
/// lines it names, and a line break at its end exactly when it continues on the next line.
pub fn repage<S: Source + ?Sized>(src: &S, limits: &Limits, byte_columns: bool) -> Repage {
    let n = src.len();
    let Some(newline) = src.first_newline(0, n.min(MAX_BANNER)) else {
        return Repage::NotAPage;
    };
    let units: Vec<u16> = (0..newline).map(|i| src.code(i)).collect();
    let Some(banner) = String::from_utf16(&units).ok().and_then(|line| Banner::parse(&line)) else {
        return Repage::NotAPage;
    };
    let page_start = newline + 1;
    if !agrees(src, page_start, &banner) {
        return Repage::NotAPage;
    }
    if limits.max_lines < 2 {
        return Repage::TooSmall { page_start };
    }
    let lines = if limits.max_lines == UNLIMITED { UNLIMITED } else { limits.max_lines - 1 };
    let max_end = page_end(src, page_start, limits.max_chars, limits.max_bytes, lines);
    let fit = |end: usize| {
        let kept = src.span(page_start, end);
        let cut = Banner {
            end_byte: banner.start_byte + kept.bytes,
            ..cut_banner(src, &banner, page_start, end, kept, byte_columns)
        };
        let text = cut.text();
        let fits = kept.chars.saturating_add(text.encode_utf16().count() as u64 + 1) <= limits.max_chars
            && kept.bytes.saturating_add(text.len() as u64 + 1) <= limits.max_bytes;
        fits.then_some((end, text))
    };
    match longest_under_banner(src, page_start, max_end, fit) {
        Some((end, banner)) => Repage::Cut { page_start, end, banner },
        None => Repage::TooSmall { page_start },
    }
}

/// The page after a banner line agrees with the banner.
fn agrees<S: Source + ?Sized>(src: &S, page_start: usize, banner: &Banner) -> bool {
    let n = src.len();
    if page_start >= n {
        return false;
    }
    let page = src.span(page_start, n);
    let ends_with_newline = src.is_newline(n - 1);
    let continues_on_next_line = match banner.next {
        None => true,
        Some((line, 0)) => ends_with_newline && line == banner.last_line + 1,
        Some((line, _)) => !ends_with_newline && page.newlines == 0 && line == banner.last_line,
    };
    continues_on_next_line
        && banner.end_byte.checked_sub(banner.start_byte) == Some(page.bytes)
        && banner.first_line + page.newlines - ends_with_newline as u64 == banner.last_line
}

/// The banner of the page `text[page_start..end]` (counted `kept`) cut from the one `banner`
/// names: `end_byte` is left for the caller.
fn cut_banner<S: Source + ?Sized>(
    src: &S,
    banner: &Banner,
    page_start: usize,
    end: usize,
    kept: Span,
    byte_columns: bool,
) -> Banner {
    if end == src.len() {
        return banner.clone();
    }
    let ends_with_newline = end > page_start && src.is_newline(end - 1);
    let last_line = banner.first_line + kept.newlines - ends_with_newline as u64;
    let next = if ends_with_newline {
        (last_line + 1, 0)
    } else {
        // Mid-line: the column of `end` in its line, from the page's own start column when
        // that line is the page's first.
        let line_start = src.last_newline(page_start, end).map_or(page_start, |p| p + 1);
        let from = if line_start == page_start { banner.start_column } else { 0 };
        let into = if byte_columns { src.span(line_start, end).bytes as usize } else { end - line_start };
        (last_line, from + into)
    };
    Banner { last_line, next: Some(next), ..banner.clone() }
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
