//! Cuts within a number of tokens.
//!
//! The char, byte and line planner already knows how to cut a text, where to put the
//! notice and what it says; tokens add one more limit. [`cut_to_tokens`] searches for the
//! largest byte budget whose plan is within `max_tokens` (with the caller's other limits
//! kept), counting each candidate result, notice included, as the model will read it. A
//! cut inside a word changes that word's tokens, so a candidate's tokens are counted, never
//! summed from the whole text's. The search ends at a budget whose plan fits where one
//! more byte's plan does not: keeping one more char (head) or starting one char earlier
//! (tail) would go over.
//!
//! Counting a candidate costs little with a [`TokenIndex`]: the pieces of the text's start
//! are counted once, and a candidate's head is the sum of the pieces that its end cannot
//! change (those whose match read only chars before it, see [`Piece::seen`]) plus a fresh
//! count of the last few and the notice; its tail is a fresh count from its start until
//! the pieces meet those of one count of the text's end, whose sum then stands for the
//! rest. A count stops as soon as it is over the limit, so a head cut of 100 MB under
//! 10,000 tokens reads about 10,000 tokens' worth of text.

use super::split::{Piece, Split};
use super::text::{CodeUnits, Ends};
use super::Tokenizer;
use crate::measure::{Measure, Unit};
use crate::plan::{Limits, Plan};
use crate::source::ends_reach;

/// A candidate result: `text[..head_end] + glue + text[tail_start..]`.
#[derive(Clone, Copy, Debug)]
pub struct Candidate<'a> {
    pub head_end: usize,
    pub glue: &'a str,
    pub tail_start: usize,
}

impl<'a> Candidate<'a> {
    /// The result of `plan`, or the whole text of `len` units when there is no plan.
    pub fn of(plan: Option<&'a Plan>, len: usize) -> Candidate<'a> {
        match plan {
            Some(p) => Candidate { head_end: p.head_end, glue: &p.glue, tail_start: p.tail_start },
            None => Candidate { head_end: len, glue: "", tail_start: len },
        }
    }
}

/// What counts the tokens of candidates: a [`TokenIndex`], or a caller's own counter.
pub trait CountCandidate {
    /// The tokens of `candidate`, or `None` when they are more than `limit`. The result of
    /// the plan of 0 bytes keeps nothing and must be within. (A counter that can fail keeps
    /// the failure for its caller and answers `Some` from then on: the search then ends
    /// without counting more, on a plan the caller discards.)
    fn count(&mut self, candidate: &Candidate<'_>, limit: u64) -> Option<u64>;

    /// The most UTF-8 bytes one token can stand for, when known: a result of `n` bytes then
    /// has at least `n / max` tokens, and at most `n` (no token is empty).
    fn max_token_bytes(&self) -> Option<u64>;
}

/// The plan within `max_tokens`, and its tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenCut {
    /// `None`: the whole text fits.
    pub plan: Option<Plan>,
    /// Tokens of the result, notice included.
    pub tokens: u64,
    /// Whether tokens bound the cut (the plan of the caller's own limits was over).
    pub by_tokens: bool,
    /// The byte budget `plan` was planned with; with tokens binding, the plan of one byte
    /// more is over `max_tokens`.
    pub budget: u64,
    /// Candidates counted.
    pub counts: usize,
}

/// The plan of the largest byte budget up to `byte_cap` whose result is within
/// `max_tokens`. `plan_at(b)` plans the text (of `len` units, `total_bytes` UTF-8 bytes)
/// under the caller's limits with the byte limit lowered to `b`; a plan of 0 bytes keeps
/// nothing, so the search always ends with a plan that fits.
pub fn cut_to_tokens<E, P, C>(
    max_tokens: u64,
    byte_cap: u64,
    total_bytes: u64,
    len: usize,
    mut plan_at: P,
    counter: &mut C,
) -> Result<TokenCut, E>
where
    P: FnMut(u64) -> Result<Option<Plan>, E>,
    C: CountCandidate + ?Sized,
{
    let max_token_bytes = counter.max_token_bytes();
    let mut counts = 0;
    let mut try_budget = |bytes: u64, counts: &mut usize| -> Result<(Option<Plan>, Option<u64>), E> {
        let plan = plan_at(bytes)?;
        *counts += 1;
        let tokens = counter.count(&Candidate::of(plan.as_ref(), len), max_tokens);
        Ok((plan, tokens))
    };
    let (first, tokens) = try_budget(byte_cap, &mut counts)?;
    if let Some(tokens) = tokens {
        return Ok(TokenCut { plan: first, tokens, by_tokens: false, budget: byte_cap, counts });
    }
    // Over at `hi`, within at `lo` (0 bytes keeps nothing); a result of more than
    // `max_tokens × max_token_bytes` bytes is surely over, which bounds the first step.
    let mut hi = byte_cap.min(total_bytes);
    let mut lo = 0;
    let mut best = None;
    let mut bound = max_token_bytes.map(|m| surely_over(max_tokens, m));
    while hi - lo > 1 {
        let mut mid = lo + (hi - lo) / 2;
        if let Some(b) = bound.take() {
            if b > lo && b < mid {
                mid = b;
            }
        }
        match try_budget(mid, &mut counts)? {
            (plan, Some(tokens)) => {
                lo = mid;
                best = Some((plan, tokens));
            }
            (_, None) => hi = mid,
        }
    }
    let (plan, tokens) = match best {
        Some(found) => found,
        None => match try_budget(lo, &mut counts)? {
            (plan, Some(tokens)) => (plan, tokens),
            (_, None) => unreachable!("a plan of 0 bytes keeps nothing"),
        },
    };
    Ok(TokenCut { plan, tokens, by_tokens: true, budget: lo, counts })
}

/// A result of more bytes than this has more than `max_tokens` tokens, each of at most
/// `max_token_bytes`: the first budget the search tries after the caller's.
fn surely_over(max_tokens: u64, max_token_bytes: u64) -> u64 {
    max_tokens.saturating_add(1).saturating_mul(max_token_bytes)
}

/// How many units at each end of a text a cut within `max_tokens` (under the caller's
/// `limits`) reads, as a rule: what a plan of the search's largest usual budget reads
/// ([`ends_reach`]). A text longer than twice this can be cut through windows of it
/// ([`cut_ends_to_tokens`]); `None` when the caller's limits let a plan keep any length.
/// (The count of the text's end a tail cut starts from, [`end_units`], is read too.)
pub fn token_ends_reach(limits: &Limits, max_tokens: u64, max_token_bytes: u64) -> Option<usize> {
    let bytes = limits.max_bytes.min(surely_over(max_tokens, max_token_bytes));
    let plans = ends_reach(&Limits { max_bytes: bytes, ..*limits })?;
    Some(plans.max(end_units(max_tokens).saturating_add(FIRST_TAIL_READ)))
}

/// How many units at the text's end one count of a [`TokenIndex`] for a cut within
/// `max_tokens` covers: about 4 units a token, so that it holds most tail cuts.
pub fn end_units(max_tokens: u64) -> usize {
    usize::try_from(max_tokens.saturating_mul(4)).unwrap_or(usize::MAX).saturating_add(64)
}

/// Why a search through two windows stopped early.
#[derive(Debug, PartialEq, Eq)]
pub enum EndsStop<E> {
    /// The planner's error.
    Plan(E),
    /// The search needed a unit between the windows: search the whole text instead.
    Outside,
}

/// [`cut_to_tokens`] of a text known by its two ends: `text` holds its head and tail
/// windows, `totals` are the whole text's. `plan_at(limits)` plans the text (through the
/// same windows) under the caller's `limits` with the byte limit lowered; it is called only
/// for limits the text is over and whose plan reads within the windows ([`ends_reach`]),
/// and any other plan or a count that reads between the windows stops the search with
/// [`EndsStop::Outside`]. Otherwise the cut and the index's count of the text
/// ([`TokenIndex::counted`]) are those of a search with the whole text.
pub fn cut_ends_to_tokens<U: Unit, E>(
    tokenizer: &Tokenizer,
    max_tokens: u64,
    limits: &Limits,
    totals: Measure,
    text: &Ends<'_, U>,
    tail_units: usize,
    mut plan_at: impl FnMut(&Limits) -> Result<Option<Plan>, E>,
) -> Result<(TokenCut, (u64, bool)), EndsStop<E>> {
    let window = text.window_len();
    let mut index = TokenIndex::new(tokenizer, text, tail_units);
    let plan_within = |bytes: u64| {
        let limits = Limits { max_bytes: limits.max_bytes.min(bytes), ..*limits };
        if totals.chars <= limits.max_chars && totals.bytes <= limits.max_bytes && totals.lines <= limits.max_lines {
            return Ok(None);
        }
        match ends_reach(&limits) {
            Some(reach) if reach <= window => plan_at(&limits).map_err(EndsStop::Plan),
            _ => Err(EndsStop::Outside),
        }
    };
    let cut = cut_to_tokens(max_tokens, limits.max_bytes, totals.bytes, text.len(), plan_within, &mut index)?;
    if text.strayed() {
        return Err(EndsStop::Outside);
    }
    Ok((cut, index.counted()))
}

/// One piece of the text's start, counted.
#[derive(Clone, Copy, Debug)]
struct Counted {
    end: usize,
    /// The furthest any piece up to this one read.
    seen: usize,
    /// Tokens from the text's start to `end`.
    tokens: u64,
}

/// Counts candidates of one text with a [`Tokenizer`], reading only what they keep near
/// each cut (see the module docs).
pub struct TokenIndex<'a, T: CodeUnits + ?Sized> {
    tokenizer: &'a Tokenizer,
    text: &'a T,
    /// The pieces of the text's start counted so far, in order.
    head: Vec<Counted>,
    /// One count of the text's end, of about `tail_units` units: the pieces of
    /// `text[tail_from..]` (read as a text of its own) by start, with the tokens from each
    /// start to the end. Made when a candidate first keeps a tail: a head cut never reads
    /// the end.
    tail_units: usize,
    tail_from: usize,
    tail: Option<Vec<(usize, u64)>>,
    /// Scratch: a candidate's units around a cut, and a piece's UTF-8.
    units: Vec<u16>,
    utf8: Vec<u8>,
}

/// How many units a fresh count of a tail reads at first, past where the count of the text's
/// end starts (it doubles while the pieces do not meet).
const FIRST_TAIL_READ: usize = 256;

/// Units a token of a candidate's tail is taken to span when a fresh count reads towards a
/// count of the end far away: it stops sooner, once over its limit, so its first read need
/// not reach that count. (Only the first read; a wrong guess costs a doubling.)
const UNITS_PER_TOKEN: usize = 4;

impl<'a, T: CodeUnits + ?Sized> TokenIndex<'a, T> {
    /// `tail_units`: how many units at the end one count covers (a tail cut is found with
    /// the fewest fresh reads when it falls inside them; about 4 units per token of the
    /// budget covers most texts).
    pub fn new(tokenizer: &'a Tokenizer, text: &'a T, tail_units: usize) -> Self {
        TokenIndex {
            tokenizer,
            text,
            head: Vec::new(),
            tail_units,
            tail_from: text.len(),
            tail: None,
            units: Vec::new(),
            utf8: Vec::new(),
        }
    }

    /// What the index knows of the whole text's tokens: the tokens of the start it counted,
    /// and whether that start is the whole text (then the count is exact; otherwise it is a
    /// lower bound).
    pub fn counted(&self) -> (u64, bool) {
        match self.head.last() {
            Some(c) => (c.tokens, c.end == self.text.len()),
            None => (0, self.text.is_empty()),
        }
    }

    /// The end of the counted pieces of the start whose matches read only chars before
    /// `at`, and their tokens: what is known of `text[..at]` without counting more.
    pub fn counted_before(&self, at: usize) -> (usize, u64) {
        let n = self.head.partition_point(|c| c.seen <= at && c.end <= at);
        n.checked_sub(1).map_or((0, 0), |i| (self.head[i].end, self.head[i].tokens))
    }

    /// The tokens of the whole text (counting what is left of it).
    pub fn total(&mut self) -> u64 {
        self.extend_head(self.text.len(), u64::MAX);
        self.counted().0
    }

    /// Counts the text's end the first time a candidate keeps a tail.
    fn count_end_once(&mut self) {
        if self.tail.is_none() {
            self.count_end(self.tail_units);
        }
    }

    fn count_end(&mut self, units: usize) {
        let len = self.text.len();
        let mut from = len.saturating_sub(units);
        while !self.text.is_char_start(from) {
            from -= 1;
        }
        let mut pieces = Vec::new();
        for piece in Split::new(self.text, self.tokenizer.encoding().pattern(), from) {
            let tokens = self.count_piece_of_text(piece);
            pieces.push((piece.start, tokens));
        }
        let mut rest = 0u64;
        for entry in pieces.iter_mut().rev() {
            rest += entry.1;
            entry.1 = rest;
        }
        self.tail_from = from;
        self.tail = Some(pieces);
    }

    fn count_piece_of_text(&mut self, piece: Piece) -> u64 {
        self.utf8.clear();
        self.text.push_utf8(piece.start, piece.end, &mut self.utf8);
        self.tokenizer.vocab().count_piece(&self.utf8) as u64
    }

    /// Counts pieces of the start until one ends at or after `until` or the tokens before
    /// `until` are over `limit`.
    fn extend_head(&mut self, until: usize, limit: u64) {
        let (mut pos, mut seen, mut tokens) = self.head.last().map_or((0, 0, 0), |c| (c.end, c.seen, c.tokens));
        let pattern = self.tokenizer.encoding().pattern();
        while pos < until && pos < self.text.len() && !(seen <= until && tokens > limit) {
            let piece = Split::new(self.text, pattern, pos).next().expect("pos is inside the text");
            tokens += self.count_piece_of_text(piece);
            seen = seen.max(piece.seen);
            pos = piece.end;
            self.head.push(Counted { end: pos, seen, tokens });
        }
    }

    /// Where a head ending at `head_end` starts to differ from the text's own pieces, and
    /// the tokens before it: the end of the last piece whose match (and every earlier one)
    /// read only chars before `head_end`.
    fn stable_before(&mut self, head_end: usize, limit: u64) -> (usize, u64) {
        self.extend_head(head_end, limit);
        let n = self.head.partition_point(|c| c.seen <= head_end && c.end <= head_end);
        n.checked_sub(1).map_or((0, 0), |i| (self.head[i].end, self.head[i].tokens))
    }
}

/// The tokens of `units` (a candidate's units from its stable start on: the head's end, the
/// notice, and the tail's UTF-16 from `joint` on), until a piece that ends in the tail ends
/// where a piece of the count of the text's end starts (`text_at` names the text's position
/// `joint + d` stands for, or `None` inside a char): that count's rest then follows.
/// `Ok(None)` when more than `limit`; `Err(())` when the units ran out (a piece read their
/// end, which is not the text's) before the pieces met.
fn count_fresh(
    tokenizer: &Tokenizer,
    tail: &[(usize, u64)],
    units: &[u16],
    (joint, complete): (usize, bool),
    text_at: &mut dyn FnMut(usize) -> Option<usize>,
    limit: u64,
    utf8: &mut Vec<u8>,
) -> Result<Option<u64>, ()> {
    let mut total = 0u64;
    for piece in Split::new(units, tokenizer.encoding().pattern(), 0) {
        if !complete && piece.seen > units.len() {
            return Err(());
        }
        utf8.clear();
        units.push_utf8(piece.start, piece.end, utf8);
        // A piece of more bytes than the tokens left times the longest token is over them:
        // a long run (a line of one char, minified code) is not merged to learn it.
        let left = limit - total;
        if utf8.len() as u64 > left.saturating_mul(tokenizer.vocab().max_token_len() as u64) {
            return Ok(None);
        }
        total += tokenizer.vocab().count_piece(utf8) as u64;
        if total > limit {
            return Ok(None);
        }
        if let Some(at) = (piece.end >= joint).then(|| text_at(piece.end - joint)).flatten() {
            if let Ok(i) = tail.binary_search_by_key(&at, |&(start, _)| start) {
                total += tail[i].1;
                return Ok((total <= limit).then_some(total));
            }
        }
    }
    // Every piece read only these units, but there is more text after them.
    if complete {
        Ok(Some(total))
    } else {
        Err(())
    }
}

/// Whether `units` split into more than `limit` pieces that read only them (all of them when
/// `complete`). No piece is empty, so each is at least a token: a tail far from the count of
/// the end is proved over its limit by its split alone, which costs a fraction of merging
/// its pieces.
fn more_pieces(tokenizer: &Tokenizer, units: &[u16], complete: bool, limit: u64) -> bool {
    let mut pieces = 0u64;
    for piece in Split::new(units, tokenizer.encoding().pattern(), 0) {
        if !complete && piece.seen > units.len() {
            return false;
        }
        pieces += 1;
        if pieces > limit {
            return true;
        }
    }
    false
}

impl<T: CodeUnits + ?Sized> CountCandidate for TokenIndex<'_, T> {
    fn count(&mut self, candidate: &Candidate<'_>, limit: u64) -> Option<u64> {
        let Candidate { head_end, glue, tail_start } = *candidate;
        let len = self.text.len();
        let (stable, before) = self.stable_before(head_end, limit);
        if before > limit {
            return None;
        }
        let limit = limit - before;
        if tail_start < len {
            self.count_end_once();
        }
        let tail = self.tail.as_deref().unwrap_or(&[]);
        // A tail far from the count of the end is over its limit long before it gets there
        // (the search tries such tails first); reading each time from 256 units on would
        // count its start again at every doubling.
        let to_end_count = self.tail_from.saturating_sub(tail_start);
        let over_within =
            usize::try_from(limit).unwrap_or(usize::MAX).saturating_add(1).saturating_mul(UNITS_PER_TOKEN);
        let mut read = to_end_count.min(over_within).saturating_add(FIRST_TAIL_READ);
        loop {
            let tail_read = if tail_start >= self.tail_from {
                len
            } else {
                // Read on to where the count of the end starts, or further.
                let mut to = tail_start.saturating_add(read).min(len);
                while !self.text.is_char_start(to) {
                    to += 1;
                }
                to
            };
            self.units.clear();
            self.text.push_utf16(stable, head_end, &mut self.units);
            self.units.extend(glue.encode_utf16());
            let joint = self.units.len();
            self.text.push_utf16(tail_start, tail_read, &mut self.units);
            if tail_start < self.tail_from && more_pieces(self.tokenizer, &self.units, tail_read == len, limit) {
                return None;
            }
            // The text's units need not be UTF-16 (UTF-8 counts bytes): the tail's positions
            // are found by walking its chars, forward only, as the pieces' ends come.
            let text = self.text;
            let (mut utf16, mut at) = (0, tail_start);
            let mut text_at = |d: usize| {
                while utf16 < d && at < len {
                    let (cp, width) = text.char_at(at);
                    utf16 += if cp >= 0x10000 { 2 } else { 1 };
                    at += width;
                }
                (utf16 == d).then_some(at)
            };
            let parts = (joint, tail_read == len);
            match count_fresh(self.tokenizer, tail, &self.units, parts, &mut text_at, limit, &mut self.utf8) {
                Ok(tokens) => return tokens.map(|t| t + before),
                Err(()) => read = read.saturating_mul(2),
            }
        }
    }

    fn max_token_bytes(&self) -> Option<u64> {
        Some(self.tokenizer.vocab().max_token_len() as u64)
    }
}
