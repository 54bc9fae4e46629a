//! Where the planner reads text from. The planner only asks a [`Source`] for units near a
//! cut, for counts over spans, and for the furthest position a budget reaches, so the same
//! planner serves a whole string, a string seen through two bounded windows, and UTF-8
//! bytes ([`crate::Utf8`]).

use crate::measure::{Measure, Span, Unit};

const NL: u16 = b'\n' as u16;
const CR: u16 = b'\r' as u16;

pub trait Source {
    /// Length in positions: UTF-16 code units, or bytes for [`crate::Utf8`].
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The UTF-16 code unit at `i` (for [`crate::Utf8`], the byte, which is never a surrogate).
    fn code(&self, i: usize) -> u16;

    /// Totals of the whole text. A windowed source knows only `chars`.
    fn totals(&self) -> Measure;

    /// Counts over `from..to`, exact when both are safe cuts.
    fn span(&self, from: usize, to: usize) -> Span;

    /// Counts of the single unit at `i`, as it weighs inside the text.
    fn unit_span(&self, i: usize) -> Span;

    /// The largest `end` in `from..=limit` with `span(from..end)` within `budget`, and that
    /// span. `end` may fall inside a surrogate pair or `\r\n`; callers move it to a safe cut.
    /// Dimensions whose budget is `u64::MAX` may be left uncounted (reported as 0).
    fn fit_forward(&self, from: usize, limit: usize, budget: Span) -> (usize, Span);

    /// The smallest `start` in `floor..=to` with `span(start..to)` within `budget`.
    fn fit_backward(&self, to: usize, floor: usize, budget: Span) -> (usize, Span);

    /// Index of the last `\n` in `from..to`.
    fn last_newline(&self, from: usize, to: usize) -> Option<usize>;

    /// Index of the first `\n` in `from..to`.
    fn first_newline(&self, from: usize, to: usize) -> Option<usize> {
        (from..to).find(|&i| self.is_newline(i))
    }

    /// A cut at `i` separates neither a surrogate pair nor `\r\n`.
    fn is_safe_cut(&self, i: usize) -> bool {
        if i == 0 || i >= self.len() {
            return true;
        }
        let (a, b) = (self.code(i - 1), self.code(i));
        !((a & 0xFC00 == 0xD800 && b & 0xFC00 == 0xDC00) || (a == CR && b == NL))
    }

    fn is_newline(&self, i: usize) -> bool {
        self.code(i) == NL
    }

    /// Notices name `headEnd` and `tailStart` in UTF-16 units (counted from the kept chars)
    /// rather than in positions: for a UTF-8 source that stands for a JS string.
    fn notice_offsets_in_chars(&self) -> bool {
        false
    }
}

/// Only `chars` is limited: positions follow from arithmetic alone.
fn chars_only(budget: Span) -> bool {
    budget.bytes == u64::MAX && budget.newlines == u64::MAX
}

const BLOCK: usize = 256;
/// Counting a span has a fixed cost (summing its lanes) that a block of [`BLOCK`] units
/// does not repay on long cuts: whole blocks this long go first, while they fit.
const BIG_BLOCK: usize = 16 * BLOCK;

/// [`Source::fit_forward`] by counting: whole blocks of [`BLOCK`] units while they fit, then
/// unit by unit inside the block that does not. For sources whose `span` of a block is cheap.
pub(crate) fn fit_blocks_forward<S: Source + ?Sized>(
    src: &S,
    from: usize,
    limit: usize,
    budget: Span,
) -> (usize, Span) {
    let mut pos = from;
    let mut used = Span::ZERO;
    while limit.saturating_sub(pos) >= BIG_BLOCK {
        let next = used + src.span(pos, pos + BIG_BLOCK);
        if !next.fits(budget) {
            break;
        }
        used = next;
        pos += BIG_BLOCK;
    }
    while pos < limit {
        let end = (pos + BLOCK).min(limit);
        let next = used + src.span(pos, end);
        if next.fits(budget) {
            used = next;
            pos = end;
            continue;
        }
        while pos < end {
            let next = used + src.unit_span(pos);
            if !next.fits(budget) {
                return (pos, used);
            }
            used = next;
            pos += 1;
        }
    }
    (pos, used)
}

/// [`Source::fit_backward`] by counting, blocks first as [`fit_blocks_forward`]. A block's
/// span is counted as inside the text (a low surrogate at its start pairs with the unit
/// before); a UTF-8 continuation byte weighs no chars, and the first byte of its char then
/// carries them, so a stop inside a char is moved to its end by the caller.
pub(crate) fn fit_blocks_backward<S: Source + ?Sized>(src: &S, to: usize, floor: usize, budget: Span) -> (usize, Span) {
    let mut pos = to;
    let mut used = Span::ZERO;
    while pos.saturating_sub(floor) >= BIG_BLOCK {
        let next = used + src.span(pos - BIG_BLOCK, pos);
        if !next.fits(budget) {
            break;
        }
        used = next;
        pos -= BIG_BLOCK;
    }
    while pos > floor {
        let start = pos.saturating_sub(BLOCK).max(floor);
        let next = used + src.span(start, pos);
        if next.fits(budget) {
            used = next;
            pos = start;
            continue;
        }
        while pos > start {
            let next = used + src.unit_span(pos - 1);
            if !next.fits(budget) {
                return (pos, used);
            }
            used = next;
            pos -= 1;
        }
    }
    (pos, used)
}

/// A whole text held in memory.
pub struct Units<'a, U: Unit> {
    units: &'a [U],
}

impl<'a, U: Unit> Units<'a, U> {
    pub fn new(units: &'a [U]) -> Self {
        Units { units }
    }

    pub fn units(&self) -> &'a [U] {
        self.units
    }

    #[inline]
    fn prev(&self, i: usize) -> Option<U> {
        if i == 0 {
            None
        } else {
            Some(self.units[i - 1])
        }
    }
}

impl<U: Unit> Source for Units<'_, U> {
    fn len(&self) -> usize {
        self.units.len()
    }

    #[inline]
    fn code(&self, i: usize) -> u16 {
        self.units[i].code()
    }

    fn totals(&self) -> Measure {
        crate::measure::measure(self.units)
    }

    fn span(&self, from: usize, to: usize) -> Span {
        U::span(&self.units[from..to], self.prev(from))
    }

    #[inline]
    fn unit_span(&self, i: usize) -> Span {
        let u = self.units[i];
        Span { chars: 1, bytes: u.weight(self.prev(i)), newlines: (u.code() == NL) as u64 }
    }

    fn fit_forward(&self, from: usize, limit: usize, budget: Span) -> (usize, Span) {
        let reach = from.saturating_add(usize::try_from(budget.chars).unwrap_or(usize::MAX));
        let limit = limit.min(reach);
        if chars_only(budget) {
            return (limit, Span { chars: (limit - from) as u64, ..Span::ZERO });
        }
        fit_blocks_forward(self, from, limit, budget)
    }

    fn fit_backward(&self, to: usize, floor: usize, budget: Span) -> (usize, Span) {
        let reach = to.saturating_sub(usize::try_from(budget.chars).unwrap_or(usize::MAX));
        let floor = floor.max(reach);
        if chars_only(budget) {
            return (floor, Span { chars: (to - floor) as u64, ..Span::ZERO });
        }
        fit_blocks_backward(self, to, floor, budget)
    }

    fn last_newline(&self, from: usize, to: usize) -> Option<usize> {
        self.units[from..to].iter().rposition(|u| u.code() == NL).map(|i| i + from)
    }
}

/// A source whose totals are counted once: planning one text under many budgets (the search
/// for a cut within exact tokens) then costs what each cut reads, not a count of the whole
/// text per plan.
pub struct Measured<'a, S: ?Sized> {
    src: &'a S,
    totals: Measure,
}

impl<'a, S: Source + ?Sized> Measured<'a, S> {
    pub fn new(src: &'a S) -> Self {
        Measured { src, totals: src.totals() }
    }
}

impl<S: Source + ?Sized> Source for Measured<'_, S> {
    fn len(&self) -> usize {
        self.src.len()
    }

    #[inline]
    fn code(&self, i: usize) -> u16 {
        self.src.code(i)
    }

    fn totals(&self) -> Measure {
        self.totals
    }

    fn span(&self, from: usize, to: usize) -> Span {
        self.src.span(from, to)
    }

    #[inline]
    fn unit_span(&self, i: usize) -> Span {
        self.src.unit_span(i)
    }

    fn fit_forward(&self, from: usize, limit: usize, budget: Span) -> (usize, Span) {
        self.src.fit_forward(from, limit, budget)
    }

    fn fit_backward(&self, to: usize, floor: usize, budget: Span) -> (usize, Span) {
        self.src.fit_backward(to, floor, budget)
    }

    fn last_newline(&self, from: usize, to: usize) -> Option<usize> {
        self.src.last_newline(from, to)
    }

    fn first_newline(&self, from: usize, to: usize) -> Option<usize> {
        self.src.first_newline(from, to)
    }

    fn is_safe_cut(&self, i: usize) -> bool {
        self.src.is_safe_cut(i)
    }

    fn is_newline(&self, i: usize) -> bool {
        self.src.is_newline(i)
    }

    fn notice_offsets_in_chars(&self) -> bool {
        self.src.notice_offsets_in_chars()
    }
}

/// A text known only through a few windows of its units, for plans bounded by `maxChars`
/// alone. Such a plan cuts at positions that follow from arithmetic (see
/// [`crate::plan::chars_windows`]) and reads only the units next to its cuts and the last unit, so a
/// caller can copy a few hundred units of a 100 MB string instead of all of it.
pub struct Windows<'a, U: Unit> {
    pieces: [(usize, &'a [U]); 3],
    len: usize,
    /// The totals of the whole text when the caller counted them (see [`Tally`]): then the
    /// text can be planned by bytes and lines too, within [`ends_reach`] of its ends.
    totals: Option<Measure>,
}

impl<'a, U: Unit> Windows<'a, U> {
    /// `head` is `text[..head.len()]`, `tail` is `text[len - tail.len()..]`.
    pub fn new(head: &'a [U], tail: &'a [U], len: usize) -> Self {
        assert!(head.len() <= len && tail.len() <= len, "windows longer than the text");
        Windows { pieces: [(0, head), (len - tail.len(), tail), (0, &[])], len, totals: None }
    }

    /// Windows `text[offset..offset + units.len()]` of a `len`-unit text, in any order.
    pub fn from_pieces(pieces: [(usize, &'a [U]); 3], len: usize) -> Self {
        for (offset, units) in pieces {
            assert!(offset + units.len() <= len, "window {offset}+{} outside a {len}-unit text", units.len());
        }
        Windows { pieces, len, totals: None }
    }

    /// The windows of a text whose `totals` the caller counted ([`Tally`]): it can then be
    /// planned under any limits whose [`ends_reach`] the head and tail windows cover.
    pub fn with_totals(mut self, totals: Measure) -> Self {
        assert_eq!(totals.chars, self.len as u64, "totals of another text");
        self.totals = Some(totals);
        self
    }

    fn unit(&self, i: usize) -> Option<U> {
        self.pieces.iter().find_map(|&(off, units)| i.checked_sub(off).and_then(|j| units.get(j).copied()))
    }

    /// The unit at `i`, if a window holds it.
    fn get(&self, i: usize) -> Option<u16> {
        self.unit(i).map(Unit::code)
    }

    fn slice(&self, from: usize, to: usize) -> (&[U], Option<U>) {
        let (off, units) = self
            .pieces
            .iter()
            .copied()
            .find(|&(off, units)| off <= from && to <= off + units.len())
            .unwrap_or_else(|| panic!("span {from}..{to} outside the windows of a {}-unit text", self.len));
        let prev = from.checked_sub(1).and_then(|p| self.unit(p));
        (&units[from - off..to - off], prev)
    }
}

impl<U: Unit> Source for Windows<'_, U> {
    fn len(&self) -> usize {
        self.len
    }

    fn code(&self, i: usize) -> u16 {
        self.get(i).unwrap_or_else(|| panic!("unit {i} outside the windows of a {}-unit text", self.len))
    }

    /// At a window's inner edge one side of the cut is unknown: the cut counts as safe only
    /// if the known unit cannot be half of a surrogate pair or of `\r\n`. (So a plan
    /// through windows of exactly `max_chars` units may give up such an edge cut where a
    /// whole-text plan keeps it; windows one unit wider plan exactly like the whole text.)
    fn is_safe_cut(&self, i: usize) -> bool {
        if i == 0 || i >= self.len {
            return true;
        }
        let high = |c: u16| c & 0xFC00 == 0xD800;
        let low = |c: u16| c & 0xFC00 == 0xDC00;
        match (self.get(i - 1), self.get(i)) {
            (Some(a), Some(b)) => !((high(a) && low(b)) || (a == CR && b == NL)),
            (Some(a), None) => !(high(a) || a == CR),
            (None, Some(b)) => !(low(b) || b == NL),
            (None, None) => panic!("cut {i} outside the windows of a {}-unit text", self.len),
        }
    }

    fn totals(&self) -> Measure {
        self.totals.unwrap_or(Measure { chars: self.len as u64, bytes: 0, lines: 0 })
    }

    fn span(&self, from: usize, to: usize) -> Span {
        let (units, prev) = self.slice(from, to);
        U::span(units, prev)
    }

    fn unit_span(&self, i: usize) -> Span {
        self.span(i, i + 1)
    }

    fn fit_forward(&self, from: usize, limit: usize, budget: Span) -> (usize, Span) {
        if self.totals.is_some() && !chars_only(budget) {
            // Every unit weighs at least a byte: the blocks stop where the bytes run out.
            let reach = from.saturating_add(usize::try_from(budget.chars.min(budget.bytes)).unwrap_or(usize::MAX));
            return fit_blocks_forward(self, from, limit.min(reach), budget);
        }
        assert!(chars_only(budget), "a windowed text can only be planned by chars");
        let reach = from.saturating_add(usize::try_from(budget.chars).unwrap_or(usize::MAX));
        let end = limit.min(reach);
        (end, Span { chars: (end - from) as u64, ..Span::ZERO })
    }

    fn fit_backward(&self, to: usize, floor: usize, budget: Span) -> (usize, Span) {
        if self.totals.is_some() && !chars_only(budget) {
            let reach = to.saturating_sub(usize::try_from(budget.chars.min(budget.bytes)).unwrap_or(usize::MAX));
            return fit_blocks_backward(self, to, floor.max(reach), budget);
        }
        assert!(chars_only(budget), "a windowed text can only be planned by chars");
        let start = floor.max(to.saturating_sub(usize::try_from(budget.chars).unwrap_or(usize::MAX)));
        (start, Span { chars: (to - start) as u64, ..Span::ZERO })
    }

    fn last_newline(&self, from: usize, to: usize) -> Option<usize> {
        (from..to).rev().find(|&i| self.code(i) == NL)
    }
}

/// How far from either end of a text a plan under `limits` can read, in units, or `None`
/// when neither chars nor bytes bind (a lines-only plan may keep any length). A kept piece
/// holds at most `min(maxChars, maxBytes)` units (each unit is a char and weighs at least a
/// byte); the planner also reads a block of 256 units past a fit, the unit after a
/// cut, and the last [`crate::AUTO_WINDOW`] units for `auto`. A text longer than twice this
/// plans the same through a head and a tail window of this many units
/// ([`Windows::with_totals`]) as whole.
pub fn ends_reach(limits: &crate::Limits) -> Option<usize> {
    let kept = limits.max_chars.min(limits.max_bytes);
    if kept == crate::UNLIMITED {
        return None;
    }
    let margin = (2 * BLOCK + crate::AUTO_WINDOW + 8) as u64;
    usize::try_from(kept.checked_add(margin)?).ok()
}

/// Totals of a text counted piece by piece as it streams past (a long JS string copied in
/// bounded windows), and whether it holds `[... `, how every notice of the library starts
/// (so restacking, see [`crate::find_prior`], has nothing to find when it does not).
pub struct Tally<U: Unit> {
    span: Span,
    len: usize,
    /// The last units seen (up to four), for a pair or a `[... ` across pieces.
    last: Vec<U>,
    open: bool,
}

impl<U: Unit> Default for Tally<U> {
    fn default() -> Self {
        Tally { span: Span::ZERO, len: 0, last: Vec::with_capacity(8), open: false }
    }
}

impl<U: Unit> Tally<U> {
    /// Counts the next piece of the text.
    pub fn add(&mut self, piece: &[U]) {
        if piece.is_empty() {
            return;
        }
        self.span = self.span + U::span(piece, self.last.last().copied());
        self.len += piece.len();
        if !self.open {
            let head = &piece[..piece.len().min(4)];
            let seam: Vec<U> = self.last.iter().chain(head).copied().collect();
            self.open = crate::restack::holds_open(&seam) || crate::restack::holds_open(piece);
        }
        self.last.extend_from_slice(&piece[piece.len() - piece.len().min(4)..]);
        let extra = self.last.len().saturating_sub(4);
        self.last.drain(..extra);
    }

    /// Units counted so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no unit was counted.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the text counted holds `[... `.
    pub fn holds_open(&self) -> bool {
        self.open
    }

    /// The totals of the text counted, as [`crate::measure`] gives them.
    pub fn totals(&self) -> Measure {
        let last_nl = self.last.last().is_some_and(|u| u.code() == NL);
        Measure {
            chars: self.span.chars,
            bytes: self.span.bytes,
            lines: crate::measure::lines_of(self.span.newlines, self.len, last_nl),
        }
    }
}
