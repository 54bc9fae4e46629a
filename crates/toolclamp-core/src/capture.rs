//! Output captured as it arrives, in memory bounded by the limits, planned exactly as the
//! whole text would be.
//!
//! A [`Capture`] is fed chunks (bytes, UTF-16 or Latin-1 string units) split anywhere: inside
//! a UTF-8 sequence, a surrogate pair, a `\r\n` or an escape sequence. It decodes them as
//! the concatenation would decode (bytes as `buf.toString('utf8')`, each maximal invalid
//! subpart one U+FFFD; a lone surrogate as U+FFFD, as when a string is written to a stream),
//! optionally normalises terminal output ([`TerminalNormalizer`]), counts the totals
//! exactly, and keeps only:
//!
//! * the first `head_cap` bytes (the text a head can keep), and
//! * at least the last `tail_cap` bytes (the text a tail can keep).
//!
//! Each cap is the furthest a plan within the limits reads from its end, plus
//! [`CAPTURE_MARGIN`]. A plan reads a text only near its cuts, at its last unit, and through
//! span counts; [`Gapped`] answers all of those from the two buffers and the totals, so
//! planning a capture gives the same cuts, notice and counts as planning the whole text.
//! Nothing it would have to guess is ever asked: a cut inside the gap would keep more
//! than a limit allows. (Where a planner step scans for a line break into the gap, the
//! answer "none before the gap" only rules out candidates that could not fit.)

use std::borrow::Cow;

use crate::measure::{lines_of, Measure, Span};
use crate::notice::{Dims, Notice, TemplateError};
use crate::plan::{plan_with_snap, Limits, Snap, Strategy, UNLIMITED};
use crate::source::Source;
use crate::terminal::{Normalize, Sink, TerminalNormalizer};
use crate::tokens::{cut_to_tokens, Candidate, CodeUnits, CountCandidate, TokenCut, TokenIndex, Tokenizer};
use crate::utf8::{char_weight, count, raw_unit, Utf8, Utf8Stream, REPLACEMENT};

const NL: u8 = b'\n';
const CR: u8 = b'\r';

/// Bytes kept past what a plan within the limits can reach: the safe-cut steps around a
/// 4-byte char or `\r\n`, and the one-candidate growth steps of the search, with room to spare.
pub const CAPTURE_MARGIN: usize = 1024;

/// The last bytes kept for a head-only plan, which reads only whether the text ends a line.
const HEAD_ONLY_TAIL: usize = 8;

/// The tail buffer is trimmed back to `tail_cap` once it holds this much more.
const TAIL_SLACK: usize = 64 * 1024;

/// Normalised text is handed to the store in pieces of about this many bytes.
const BATCH: usize = 64 * 1024;

/// Totals that stand for "not known yet, at most this": wide enough for any count a
/// notice could name (16 digits), so a notice rendered from them is at least as long as the
/// notice the real totals will give.
const UNKNOWN_TOTAL: u64 = 999_999_999_999_999;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaptureError {
    /// Neither bytes nor chars are limited: memory could not be bounded.
    Unbounded,
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaptureError::Unbounded => f.write_str("a capture needs a limit in bytes or chars to bound its memory"),
        }
    }
}

impl std::error::Error for CaptureError {}

#[derive(Clone, Copy, Debug)]
pub struct CaptureOptions {
    pub limits: Limits,
    pub strategy: Strategy,
    /// Normalise terminal output before counting (see [`crate::normalize_terminal_output`]).
    pub normalize: Option<Normalize>,
    /// Keep bytes as they came, invalid UTF-8 included, never replaced: chars and lines are
    /// counted as `buf.toString()` reads the bytes (each maximal invalid subpart one char),
    /// so a char budget holds for what a reader decodes and cuts fall between the units it
    /// reads. Bytes are the raw bytes. For byte-faithful output of input that is not text;
    /// for valid UTF-8 it is the same as decoding.
    pub raw: bool,
}

/// The kept text of a capture and what it knows of the rest.
#[derive(Clone)]
struct Store {
    head: Vec<u8>,
    head_cap: usize,
    /// The last bytes written (at least the last `tail_cap` of them, when there are so many).
    tail: Vec<u8>,
    tail_cap: usize,
    len: usize,
    chars: u64,
    newlines: u64,
    last: Option<u8>,
    /// A copy of what was accepted, while the caller asks for one.
    echo: Option<Vec<u8>>,
    /// Bytes kept as they came (see [`CaptureOptions::raw`]).
    raw: bool,
}

impl Store {
    /// Valid UTF-8.
    fn accept(&mut self, bytes: &[u8]) {
        self.accept_counted(bytes, count(bytes));
    }

    /// Bytes whose decoded text weighs `span` (of which only chars and newlines are read).
    fn accept_counted(&mut self, bytes: &[u8], span: Span) {
        if bytes.is_empty() {
            return;
        }
        if let Some(echo) = &mut self.echo {
            echo.extend_from_slice(bytes);
        }
        self.chars += span.chars;
        self.newlines += span.newlines;
        self.len += bytes.len();
        self.last = bytes.last().copied();
        if self.head.len() < self.head_cap {
            let take = (self.head_cap - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
        }
        if bytes.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend_from_slice(&bytes[bytes.len() - self.tail_cap..]);
        } else {
            self.tail.extend_from_slice(bytes);
            if self.tail.len() > self.tail_cap + TAIL_SLACK.max(self.tail_cap) {
                self.tail.drain(..self.tail.len() - self.tail_cap);
            }
        }
    }

    fn source(&self, totals_known: bool) -> Gapped<'_> {
        let tail_at = self.len - self.tail.len();
        Gapped {
            head: &self.head,
            tail: &self.tail,
            tail_at,
            len: self.len,
            chars: self.chars,
            newlines: self.newlines,
            last: self.last,
            totals_known,
            raw: self.raw,
        }
    }
}

/// Output captured in bounded memory (see the module docs).
pub struct Capture {
    options: CaptureOptions,
    store: Store,
    decoder: Utf8Stream,
    /// A high surrogate that ended the last UTF-16 chunk.
    pending_high: Option<u16>,
    normalizer: Option<TerminalNormalizer>,
    /// Normalised text on its way to the store (at most [`BATCH`] bytes).
    scratch: String,
    /// UTF-8 of string chunks on its way to the decoder or normaliser.
    encoded: Vec<u8>,
    finished: bool,
    /// The most bytes a result within a limit in exact tokens can hold ([`UNLIMITED`]: no
    /// such limit, or one whose longest token is unknown).
    token_bytes: u64,
}

/// How far a plan within `limits` (and within `token_bytes`) reads from one end, in bytes.
fn reach(limits: &Limits, token_bytes: u64) -> Option<usize> {
    // A UTF-16 unit is at most 3 UTF-8 bytes.
    let by_chars = if limits.max_chars == UNLIMITED { UNLIMITED } else { limits.max_chars.saturating_mul(3) };
    let bytes = limits.max_bytes.min(by_chars).min(token_bytes);
    (bytes != UNLIMITED).then(|| usize::try_from(bytes).unwrap_or(usize::MAX))
}

/// The most bytes a result within `max_tokens` can hold when no token stands for more than
/// `max_token_bytes`: one token more than the limit's worth, the bound
/// [`cut_to_tokens`] starts its search at (so a capture plans that probe as the whole text
/// would).
pub fn token_bytes(max_tokens: u64, max_token_bytes: u64) -> u64 {
    max_tokens.saturating_add(1).saturating_mul(max_token_bytes)
}

impl Capture {
    pub fn new(options: CaptureOptions) -> Result<Capture, CaptureError> {
        Capture::within_token_bytes(options, UNLIMITED)
    }

    /// A capture for a cut within exact tokens too ([`Capture::cut_within_tokens`]):
    /// `token_bytes` ([`token_bytes`]) bounds what is kept as a byte limit would, so a limit
    /// in tokens alone bounds the memory. [`UNLIMITED`] for a counter whose longest token is
    /// unknown: the byte or char limit must bound it then.
    pub fn within_token_bytes(options: CaptureOptions, token_bytes: u64) -> Result<Capture, CaptureError> {
        let reach = reach(&options.limits, token_bytes).ok_or(CaptureError::Unbounded)?.saturating_add(CAPTURE_MARGIN);
        let (head_cap, tail_cap) = match options.strategy {
            Strategy::Head => (reach, HEAD_ONLY_TAIL),
            Strategy::Tail => (0, reach),
            Strategy::HeadTail { .. } => (reach, reach),
        };
        Ok(Capture {
            options,
            store: Store {
                head: Vec::new(),
                head_cap,
                tail: Vec::new(),
                tail_cap,
                len: 0,
                chars: 0,
                newlines: 0,
                last: None,
                echo: None,
                raw: options.raw,
            },
            decoder: Utf8Stream::default(),
            pending_high: None,
            normalizer: options.normalize.map(TerminalNormalizer::new),
            scratch: String::new(),
            encoded: Vec::new(),
            finished: false,
            token_bytes,
        })
    }

    pub fn options(&self) -> &CaptureOptions {
        &self.options
    }

    /// Feeds bytes (UTF-8, or anything with `raw`).
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        assert!(!self.finished, "write after finish");
        self.flush_surrogate();
        self.bytes_in(bytes);
    }

    /// Feeds UTF-16 code units of a JS string; a surrogate pair may be split between chunks.
    pub fn write_utf16(&mut self, units: &[u16]) {
        assert!(!self.finished, "write after finish");
        self.flush_decoder();
        let mut encoded = std::mem::take(&mut self.encoded);
        encoded.clear();
        let mut rest = units;
        if let Some(high) = self.pending_high.take() {
            match rest.first() {
                Some(&low) if low & 0xFC00 == 0xDC00 => {
                    let c = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    push_char(&mut encoded, char::from_u32(c).unwrap_or('\u{FFFD}'));
                    rest = &rest[1..];
                }
                Some(_) => encoded.extend_from_slice(REPLACEMENT),
                None => {
                    self.pending_high = Some(high);
                    self.encoded = encoded;
                    return;
                }
            }
        }
        if let Some((&last, init)) = rest.split_last() {
            if last & 0xFC00 == 0xD800 {
                self.pending_high = Some(last);
                rest = init;
            }
        }
        for c in char::decode_utf16(rest.iter().copied()) {
            push_char(&mut encoded, c.unwrap_or('\u{FFFD}'));
        }
        self.text_in(&encoded);
        self.encoded = encoded;
    }

    /// Feeds the units of a one-byte JS string (Latin-1).
    pub fn write_latin1(&mut self, units: &[u8]) {
        assert!(!self.finished, "write after finish");
        self.flush_decoder();
        self.flush_surrogate();
        if units.is_ascii() {
            return self.text_in(units);
        }
        let mut encoded = std::mem::take(&mut self.encoded);
        encoded.clear();
        encoded.extend(units.iter().flat_map(|&b| {
            let mut buf = [0u8; 2];
            let len = char::from(b).encode_utf8(&mut buf).len();
            buf.into_iter().take(len)
        }));
        self.text_in(&encoded);
        self.encoded = encoded;
    }

    /// Ends the input: cut sequences become U+FFFD and the normaliser's last line is kept.
    /// Idempotent; no write may follow.
    pub fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.flush_surrogate();
        self.flush_decoder();
        if let Some(normalizer) = self.normalizer.take() {
            let mut batch = Batch { buf: &mut self.scratch, store: &mut self.store };
            normalizer.finish_to(&mut batch);
            batch.flush();
        }
        self.finished = true;
    }

    /// With `on`, the text each write adds (decoded and normalised, as counted) is also
    /// copied aside for [`take_echo`](Self::take_echo): what a spill file of the whole
    /// output must hold so that a notice's line numbers are its lines.
    pub fn set_echo(&mut self, on: bool) {
        self.store.echo = on.then(Vec::new);
    }

    /// The text added since [`set_echo`](Self::set_echo).
    pub fn take_echo(&mut self) -> Vec<u8> {
        self.store.echo.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Bytes held in memory for the text (the two buffers and, when normalising, the line
    /// being drawn and the text on its way to the buffers), whatever the total.
    pub fn kept_bytes(&self) -> usize {
        let normalizing = self.normalizer.as_ref().map_or(0, TerminalNormalizer::held_bytes) + self.scratch.capacity();
        self.store.head.capacity() + self.store.tail.capacity() + normalizing
    }

    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The capture as if it ended now, without ending it: a copy of the kept text
    /// (O(limits)) without a char still cut off at the end (it may yet be completed) and,
    /// when normalising, with the line being drawn as it stands.
    pub fn snapshot(&self) -> Capture {
        let mut copy = Capture {
            options: self.options,
            store: Store { echo: None, ..self.store.clone() },
            // Raw bytes of a cut sequence are kept, so the snapshot counts them as the end
            // of the input would; decoded text keeps none of them.
            decoder: if self.options.raw { self.decoder.clone() } else { Utf8Stream::default() },
            pending_high: None,
            normalizer: None,
            scratch: String::new(),
            encoded: Vec::new(),
            finished: false,
            token_bytes: self.token_bytes,
        };
        if let Some(normalizer) = &self.normalizer {
            normalizer.unfinished(&mut copy.scratch);
            let line = std::mem::take(&mut copy.scratch);
            copy.store.accept(line.as_bytes());
        }
        copy.finish();
        copy
    }

    /// Totals so far (of the decoded, normalised text), exact.
    pub fn totals(&self) -> Measure {
        let s = &self.store;
        Measure { chars: s.chars, bytes: s.len as u64, lines: lines_of(s.newlines, s.len, s.last == Some(NL)) }
    }

    /// The captured text as a planner [`Source`]. Plan it only once finished (or on a
    /// [`snapshot`](Self::snapshot)): until then a cut sequence is not yet counted.
    pub fn source(&self) -> Gapped<'_> {
        self.store.source(true)
    }

    /// With the `Head` strategy, once the text is longer than any head it can keep: the
    /// text as a source whose totals are not yet known (each counted as a 16-digit number,
    /// so a notice rendered from them is at least as long as the final one). A head planned
    /// on it is final: later input changes only the totals. Plan the whole text with that
    /// head fixed with [`crate::plan::plan_head_at`] once finished.
    ///
    /// That is once the text is longer than the head can hold, or sooner, once a limited
    /// count runs past its limit by a margin (two lines, or [`CAPTURE_MARGIN`] chars or
    /// bytes): every cut a plan within the limits tries then lies in the text already here,
    /// so `head -n 10` of a slow command shows its ten lines as soon as they came.
    pub fn settled_head(&self) -> Option<Gapped<'_>> {
        let s = &self.store;
        let limits = &self.options.limits;
        let past = |count: u64, limit: u64, margin: u64| limit != UNLIMITED && count > limit.saturating_add(margin);
        let margin = CAPTURE_MARGIN as u64;
        let ready = s.len > s.head_cap
            || past(s.newlines, limits.max_lines, 2)
            || past(s.chars, limits.max_chars, margin)
            || past(s.len as u64, limits.max_bytes, margin);
        (matches!(self.options.strategy, Strategy::Head) && ready).then(|| s.source(false))
    }

    fn flush_surrogate(&mut self) {
        if self.pending_high.take().is_some() {
            self.text_in(REPLACEMENT);
        }
    }

    fn flush_decoder(&mut self) {
        if self.options.raw && self.normalizer.is_none() {
            // Its bytes are in the store already: only the U+FFFD they read as is counted.
            let mut chars = 0;
            self.decoder.finish(&mut |b: &[u8]| chars += count(b).chars);
            self.store.chars += chars;
            return;
        }
        let mut decoder = std::mem::take(&mut self.decoder);
        let mut bytes = Vec::new();
        decoder.finish(&mut |b: &[u8]| bytes.extend_from_slice(b));
        self.decoder = decoder;
        if !bytes.is_empty() {
            self.text_in(&bytes);
        }
    }

    /// Bytes of unknown validity.
    fn bytes_in(&mut self, bytes: &[u8]) {
        if self.normalizer.is_some() {
            // The normaliser decodes (and replaces) invalid sequences itself.
            return self.text_in(bytes);
        }
        if self.options.raw {
            // Kept as they came, counted as `buf.toString()` reads them: each maximal
            // invalid subpart is one char.
            let mut span = Span::ZERO;
            self.decoder.push(bytes, &mut |decoded: &[u8]| span = span + count(decoded));
            return self.store.accept_counted(bytes, span);
        }
        let mut decoder = std::mem::take(&mut self.decoder);
        let store = &mut self.store;
        decoder.push(bytes, &mut |valid: &[u8]| store.accept(valid));
        self.decoder = decoder;
    }

    /// Valid UTF-8 (or bytes for the normaliser).
    fn text_in(&mut self, bytes: &[u8]) {
        match &mut self.normalizer {
            Some(normalizer) => {
                let mut batch = Batch { buf: &mut self.scratch, store: &mut self.store };
                normalizer.push_to(bytes, &mut batch);
                batch.flush();
            }
            None => self.store.accept(bytes),
        }
    }
}

/// Cuts within exact tokens. A capture that kept the whole text is cut as the whole text
/// is. One that dropped some keeps what a plan within `token_bytes` reads, so its byte
/// limit is lowered to that bound, which costs nothing of what a result can keep: a result
/// of more bytes is over the tokens anyway (no token is longer than the encoding's longest).
/// Candidates are counted on the kept text ([`KeptText`]), where each one is whole.
impl Capture {
    /// The largest byte budget whose plan (the capture's limits and strategy, `snap`) is
    /// within `max_tokens`, as [`cut_to_tokens`] finds it for the whole text (with the byte
    /// limit lowered to `token_bytes` when text was dropped); `counter` counts candidates
    /// of [`Capture::kept_text`] (a [`TokenIndex`] of it, or a caller's counter). Plan it
    /// once finished, or on a [`snapshot`](Self::snapshot). Not for a raw capture: its
    /// bytes need not be text.
    ///
    /// `truncated_by` names bytes only when the caller's byte limit cut, and `by_tokens` is
    /// set whenever the tokens bound the cut (a plan cut by the bound of `token_bytes` was
    /// cut by the tokens).
    pub fn cut_within_tokens<C: CountCandidate + ?Sized>(
        &self,
        max_tokens: u64,
        notice: &mut Notice<'_>,
        snap: Snap,
        counter: &mut C,
    ) -> Result<TokenCut, TemplateError> {
        assert!(!self.options.raw, "a raw capture is not text to count tokens of");
        let src = self.source();
        let kept = self.kept_text();
        let totals = src.totals();
        let CaptureOptions { limits, strategy, .. } = self.options;
        // Any plan of a text kept whole can be made; of one with a gap, those within the bound.
        let bound = if kept.is_whole() { UNLIMITED } else { self.token_bytes };
        let plan_at = |bytes: u64| {
            let limits = Limits { max_bytes: limits.max_bytes.min(bytes).min(bound), ..limits };
            if totals.chars <= limits.max_chars && totals.bytes <= limits.max_bytes && totals.lines <= limits.max_lines
            {
                return Ok(None);
            }
            plan_with_snap(&src, &limits, strategy, notice, true, snap)
        };
        let mut mapped = KeptCounter { kept: &kept, inner: counter };
        let byte_cap = limits.max_bytes.min(bound);
        let mut cut = cut_to_tokens(max_tokens, byte_cap, totals.bytes, src.len(), plan_at, &mut mapped)?;
        if let Some(plan) = &mut cut.plan {
            // The bound is the tokens' limit, not the caller's.
            cut.by_tokens |= byte_cap < limits.max_bytes && plan.truncated_by.contains(Dims::BYTES);
            if cut.by_tokens && totals.bytes <= limits.max_bytes {
                plan.truncated_by = Dims(plan.truncated_by.0 & !Dims::BYTES.0);
            }
        }
        Ok(cut)
    }

    /// The kept text, for counting candidates: the whole text when the buffers hold it all,
    /// else the head's whole chars followed by the tail's. It counts as the whole text
    /// ([`KeptText::is_whole`]) only when no longer than a buffer's cap: the buffers may
    /// hold more for a while (the tail is trimmed in steps), but a result must depend on
    /// the text alone, not on how its chunks came.
    pub fn kept_text(&self) -> KeptText<'_> {
        let s = &self.store;
        let src = s.source(true);
        let whole = s.len <= s.head_cap.max(s.tail_cap);
        if src.known() {
            // The two buffers may hold parts of one char where they meet: the text is copied
            // whole (no more than they hold).
            let mut all = Vec::with_capacity(s.len);
            src.copy_to(0, s.len, &mut all);
            let text = String::from_utf8(all).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            return KeptText { head: Cow::Owned(text), tail: "", tail_at: s.len, len: s.len, whole };
        }
        let head = valid_prefix(&s.head);
        // The tail buffer may start inside a char: its whole chars are kept.
        let mut skip = 0;
        while skip < s.tail.len() && (s.tail[skip] as i8) < -64 {
            skip += 1;
        }
        let tail = valid_prefix(&s.tail[skip..]);
        KeptText { head: Cow::Borrowed(head), tail, tail_at: s.len - s.tail.len() + skip, len: s.len, whole }
    }
}

/// The longest prefix of `bytes` that is UTF-8 (a kept buffer may end inside a char).
fn valid_prefix(bytes: &[u8]) -> &str {
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("valid up to there"),
    }
}

/// The text a capture kept, as one text to count tokens of: `head` (the text's start)
/// followed by `tail` (the text's end from byte `tail_at`). Positions are its own; a
/// candidate of the whole text is one of it when its head ends in `head` and its tail
/// starts in `tail` ([`KeptText::candidate`]), which every plan the capture makes is.
/// Where the two meet it is not the text: what is counted across there is never used (a
/// piece of the head whose match read past its end is counted afresh, see [`TokenIndex`]).
pub struct KeptText<'a> {
    head: Cow<'a, str>,
    tail: &'a str,
    tail_at: usize,
    /// Bytes of the whole text.
    len: usize,
    /// Whether it stands for the whole text (see [`Capture::kept_text`]).
    whole: bool,
}

impl KeptText<'_> {
    /// Whether this stands for the whole text: a capture cuts it as the whole text is cut,
    /// and its count of tokens is the text's.
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// Whether it is the text without a gap.
    fn contiguous(&self) -> bool {
        self.head.len() == self.len
    }

    /// `candidate` of the whole text as one of this text, or `None` when a cut falls where
    /// nothing was kept.
    pub fn candidate<'g>(&self, candidate: &Candidate<'g>) -> Option<Candidate<'g>> {
        let Candidate { head_end, glue, tail_start } = *candidate;
        let tail_start = match tail_start {
            t if t >= self.tail_at => self.head.len() + (t - self.tail_at),
            t if t <= self.head.len() && self.contiguous() => t,
            _ => return None,
        };
        (head_end <= self.head.len()).then_some(Candidate { head_end, glue, tail_start })
    }

    /// An index of this text's tokens for a cut within `max_tokens`: its one count of the
    /// end stays inside the kept tail.
    pub fn index<'t>(&'t self, tokenizer: &'t Tokenizer, max_tokens: u64) -> TokenIndex<'t, Self> {
        // About 4 bytes a token, as for a whole text.
        let wanted = usize::try_from(max_tokens.saturating_mul(4)).unwrap_or(usize::MAX).saturating_add(64);
        let tail_units = if self.contiguous() { wanted } else { wanted.min(self.tail.len()) };
        TokenIndex::new(tokenizer, self, tail_units)
    }

    /// What `index` knows of the whole text's tokens, and whether it is exact. Of the whole
    /// text, what [`TokenIndex::counted`] says; otherwise a lower bound: the tokens of the
    /// start it counted, and at least one token per `max_token_bytes` of the rest.
    pub fn total_tokens(&self, index: &TokenIndex<'_, Self>, max_token_bytes: u64) -> (u64, bool) {
        if self.is_whole() {
            return index.counted();
        }
        let (end, tokens) = index.counted_before(self.head.len());
        let rest = (self.len - end) as u64;
        (tokens + rest.div_ceil(max_token_bytes.max(1)), false)
    }

    /// The part holding position `i` (the tail from the head's end on) and `i` in it.
    fn part(&self, i: usize) -> (&str, usize) {
        let h = self.head.len();
        if i < h {
            (&self.head, i)
        } else {
            (self.tail, i - h)
        }
    }

    /// Runs `f` on the pieces of `from..to` that each part holds.
    fn each_run(&self, from: usize, to: usize, mut f: impl FnMut(&str, usize, usize)) {
        let h = self.head.len();
        if from < h {
            f(&self.head, from, to.min(h));
        }
        if to > h {
            f(self.tail, from.max(h) - h, to - h);
        }
    }
}

impl CodeUnits for KeptText<'_> {
    fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    fn char_at(&self, i: usize) -> (u32, usize) {
        let (part, at) = self.part(i);
        part.char_at(at)
    }

    fn push_utf8(&self, from: usize, to: usize, out: &mut Vec<u8>) {
        self.each_run(from, to, |part, a, b| part.push_utf8(a, b, out));
    }

    fn push_utf16(&self, from: usize, to: usize, out: &mut Vec<u16>) {
        self.each_run(from, to, |part, a, b| part.push_utf16(a, b, out));
    }

    fn is_char_start(&self, i: usize) -> bool {
        let h = self.head.len();
        if i <= h {
            return self.head.is_char_start(i);
        }
        self.tail.is_char_start(i - h)
    }
}

/// Counts candidates of the whole text with a counter of its [`KeptText`].
struct KeptCounter<'k, 'a, C: ?Sized> {
    kept: &'k KeptText<'a>,
    inner: &'k mut C,
}

impl<C: CountCandidate + ?Sized> CountCandidate for KeptCounter<'_, '_, C> {
    fn count(&mut self, candidate: &Candidate<'_>, limit: u64) -> Option<u64> {
        // A cut where nothing was kept keeps more than any limit allows: over.
        let kept = self.kept.candidate(candidate)?;
        self.inner.count(&kept, limit)
    }

    fn max_token_bytes(&self) -> Option<u64> {
        self.inner.max_token_bytes()
    }
}

/// Normalised text on its way to the store: gathered into pieces of about [`BATCH`] bytes
/// (a longer piece goes straight through), so a chunk that normalises to much more text than
/// it holds still takes no more memory than a batch and a screen line.
struct Batch<'a> {
    buf: &'a mut String,
    store: &'a mut Store,
}

impl Batch<'_> {
    fn flush(&mut self) {
        self.store.accept(self.buf.as_bytes());
        self.buf.clear();
    }
}

impl Sink for Batch<'_> {
    fn text(&mut self, s: &str) {
        if self.buf.len() + s.len() > BATCH {
            self.flush();
        }
        if s.len() > BATCH {
            self.store.accept(s.as_bytes());
        } else {
            self.buf.push_str(s);
        }
    }
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// A UTF-8 text known through its first bytes, its last bytes and its exact totals (see
/// the module docs). Positions are byte offsets in the whole text.
pub struct Gapped<'a> {
    head: &'a [u8],
    tail: &'a [u8],
    /// Where `tail` starts in the text.
    tail_at: usize,
    len: usize,
    chars: u64,
    newlines: u64,
    last: Option<u8>,
    /// False while more may come: [`Source::totals`] then reports [`UNKNOWN_TOTAL`].
    totals_known: bool,
    /// Raw bytes, weighed as `buf.toString()` reads them (see [`Gapped::raw_unit_at`]).
    raw: bool,
}

impl Gapped<'_> {
    fn known(&self) -> bool {
        self.head.len() >= self.tail_at
    }

    fn byte(&self, i: usize) -> Option<u8> {
        if i < self.head.len() {
            Some(self.head[i])
        } else if i >= self.tail_at {
            self.tail.get(i - self.tail_at).copied()
        } else {
            None
        }
    }

    fn at(&self, i: usize) -> u8 {
        self.byte(i).unwrap_or_else(|| panic!("byte {i} is in the gap of a captured text ({} bytes)", self.len))
    }

    /// The bytes `from..to` that one buffer holds, up to where that buffer ends.
    fn run(&self, from: usize, to: usize) -> &[u8] {
        if from < self.head.len() {
            &self.head[from..to.min(self.head.len())]
        } else if from >= self.tail_at {
            &self.tail[from - self.tail_at..to - self.tail_at]
        } else {
            panic!("byte {from} is in the gap of a captured text ({} bytes)", self.len)
        }
    }

    /// The bytes `from..to` that one buffer holds, back from `to` to where that buffer starts.
    fn run_back(&self, from: usize, to: usize) -> &[u8] {
        if to <= self.head.len() {
            &self.head[from..to]
        } else if to > self.tail_at {
            &self.tail[from.max(self.tail_at) - self.tail_at..to - self.tail_at]
        } else {
            panic!("byte {} is in the gap of a captured text ({} bytes)", to - 1, self.len)
        }
    }

    fn gap_newlines(&self) -> u64 {
        let outside = self.counted(0, self.head.len()).newlines + self.counted(self.tail_at, self.len).newlines;
        self.newlines - outside
    }

    /// Appends `text[from..to]` (both in kept bytes) to `out`.
    pub fn copy_to(&self, from: usize, to: usize, out: &mut Vec<u8>) {
        let mut pos = from;
        while pos < to {
            let run = self.run(pos, to);
            out.extend_from_slice(run);
            pos += run.len();
        }
    }

    /// Counts over `from..to` from the buffers alone (no gap inside).
    fn counted(&self, from: usize, to: usize) -> Span {
        if self.raw {
            return self.raw_counted(from, to);
        }
        let mut pos = from;
        let mut span = Span::ZERO;
        while pos < to {
            let run = self.run(pos, to);
            span = span + count(run);
            pos += run.len();
        }
        span
    }

    fn whole(&self) -> Span {
        Span { chars: self.chars, bytes: self.len as u64, newlines: self.newlines }
    }
}

/// Raw bytes (a raw capture) are weighed as `buf.toString()` reads them: a unit is a char
/// or one maximal invalid subpart (one U+FFFD), and its UTF-16 length sits on its first
/// byte. Where a unit starts depends on at most the three bytes before (no unit is longer
/// than four bytes, and a byte that cannot continue one starts afresh), so each question is
/// answered from the bytes around it. Valid UTF-8 that starts on a unit boundary weighs
/// what [`count`] says, which keeps long valid runs as fast as in a decoded capture.
impl Gapped<'_> {
    /// The unit that starts at `i`, read from the kept bytes from there on (up to four).
    fn raw_unit_at(&self, i: usize) -> (usize, u64) {
        let mut window = [0u8; 4];
        let mut n = 0;
        while n < 4 && i + n < self.len {
            match self.byte(i + n) {
                Some(b) => window[n] = b,
                None => break,
            }
            n += 1;
        }
        raw_unit(&window[..n])
    }

    /// Whether a unit starts at `i`: reading units from three bytes before lands on it.
    fn raw_boundary(&self, i: usize) -> bool {
        if i == 0 || i >= self.len {
            return true;
        }
        // Nothing before the tail buffer is kept: its first bytes start units, as far as
        // anything here can tell (no plan cuts there; see CAPTURE_MARGIN).
        let floor = if !self.known() && i >= self.tail_at { self.tail_at } else { 0 };
        let mut j = i.saturating_sub(3).max(floor);
        while j < i {
            j += self.raw_unit_at(j).0;
        }
        j == i
    }

    fn raw_unit_span(&self, i: usize) -> Span {
        let b = self.at(i);
        let chars = if self.raw_boundary(i) { self.raw_unit_at(i).1 } else { 0 };
        Span { chars, bytes: 1, newlines: (b == NL) as u64 }
    }

    /// The end of the valid UTF-8 that starts at `pos` (a unit boundary) in `run`, which
    /// starts at `pos`: counts over `pos..` that end reach are [`count`]'s.
    fn raw_valid_prefix(run: &[u8]) -> usize {
        match simdutf8::basic::from_utf8(run) {
            Ok(_) => run.len(),
            Err(_) => std::str::from_utf8(run).map_or_else(|e| e.valid_up_to(), |_| run.len()),
        }
    }

    fn raw_counted(&self, from: usize, to: usize) -> Span {
        let mut span = Span::ZERO;
        let mut pos = from;
        while pos < to {
            let run = self.run(pos, to);
            let valid = if self.raw_boundary(pos) { Self::raw_valid_prefix(run) } else { 0 };
            if valid > 0 {
                span = span + count(&run[..valid]);
                pos += valid;
            } else {
                span = span + self.raw_unit_span(pos);
                pos += 1;
            }
        }
        span
    }

    fn raw_fit_forward(&self, from: usize, limit: usize, budget: Span) -> (usize, Span) {
        let mut pos = from;
        let mut used = Span::ZERO;
        while pos < limit {
            let run = self.run(pos, limit);
            let valid = if self.raw_boundary(pos) { Self::raw_valid_prefix(run) } else { 0 };
            if valid > 0 {
                let (end, span) = Utf8::from_validated(&run[..valid]).fit_forward(0, valid, budget - used);
                used = used + span;
                pos += end;
                if end < valid {
                    break;
                }
                continue;
            }
            let next = used + self.raw_unit_span(pos);
            if !next.fits(budget) {
                break;
            }
            used = next;
            pos += 1;
        }
        (pos, used)
    }

    fn raw_fit_backward(&self, to: usize, floor: usize, budget: Span) -> (usize, Span) {
        const BLOCK: usize = 256;
        let mut pos = to;
        let mut used = Span::ZERO;
        while pos > floor {
            // A block of whole units of valid UTF-8 that fits is taken at once.
            let run = self.run_back(pos.saturating_sub(BLOCK).max(floor), pos);
            let mut start = pos - run.len();
            while start < pos && !self.raw_boundary(start) {
                start += 1;
            }
            let block = &run[start + run.len() - pos..];
            if !block.is_empty() && simdutf8::basic::from_utf8(block).is_ok() {
                let next = used + count(block);
                if next.fits(budget) {
                    used = next;
                    pos = start;
                    continue;
                }
            }
            let next = used + self.raw_unit_span(pos - 1);
            if !next.fits(budget) {
                break;
            }
            used = next;
            pos -= 1;
        }
        (pos, used)
    }
}

impl Source for Gapped<'_> {
    fn len(&self) -> usize {
        self.len
    }

    fn code(&self, i: usize) -> u16 {
        self.at(i) as u16
    }

    fn totals(&self) -> Measure {
        if !self.totals_known {
            return Measure { chars: UNKNOWN_TOTAL, bytes: UNKNOWN_TOTAL, lines: UNKNOWN_TOTAL };
        }
        Measure {
            chars: self.chars,
            bytes: self.len as u64,
            lines: lines_of(self.newlines, self.len, self.last == Some(NL)),
        }
    }

    fn span(&self, from: usize, to: usize) -> Span {
        if from >= to {
            return Span::ZERO;
        }
        if self.known() || to <= self.head.len() || from >= self.tail_at {
            return self.counted(from, to);
        }
        // Across the gap: the whole minus what lies outside, both sides kept.
        assert!(
            from <= self.head.len() && to >= self.tail_at,
            "span {from}..{to} ends in the gap of a captured text ({} bytes)",
            self.len
        );
        self.whole() - self.counted(0, from) - self.counted(to, self.len)
    }

    fn unit_span(&self, i: usize) -> Span {
        if self.raw {
            return self.raw_unit_span(i);
        }
        let b = self.at(i);
        Span { chars: char_weight(b), bytes: 1, newlines: (b == NL) as u64 }
    }

    // Each run is searched as the UTF-8 text it is, with what the runs before left of the
    // budget: counts add up byte by byte, so the stop is the one a search of the whole finds.
    fn fit_forward(&self, from: usize, limit: usize, budget: Span) -> (usize, Span) {
        let limit = limit.min(from.saturating_add(usize::try_from(budget.bytes).unwrap_or(usize::MAX)));
        if self.raw {
            return self.raw_fit_forward(from, limit, budget);
        }
        let mut pos = from;
        let mut used = Span::ZERO;
        while pos < limit {
            let run = self.run(pos, limit);
            let (end, span) = Utf8::from_validated(run).fit_forward(0, run.len(), budget - used);
            used = used + span;
            pos += end;
            if end < run.len() {
                break;
            }
        }
        (pos, used)
    }

    fn fit_backward(&self, to: usize, floor: usize, budget: Span) -> (usize, Span) {
        let floor = floor.max(to.saturating_sub(usize::try_from(budget.bytes).unwrap_or(usize::MAX)));
        if self.raw {
            return self.raw_fit_backward(to, floor, budget);
        }
        let mut pos = to;
        let mut used = Span::ZERO;
        while pos > floor {
            let run = self.run_back(floor, pos);
            let (start, span) = Utf8::from_validated(run).fit_backward(run.len(), 0, budget - used);
            used = used + span;
            pos -= run.len() - start;
            if start > 0 {
                break;
            }
        }
        (pos, used)
    }

    /// A scan that reaches the gap with line breaks in it answers `None`: every position
    /// it could name is further from the end than a plan can keep.
    fn last_newline(&self, from: usize, to: usize) -> Option<usize> {
        let mut pos = to;
        while pos > from {
            if !self.known() && pos > self.head.len() && pos <= self.tail_at {
                if self.gap_newlines() > 0 {
                    return None;
                }
                pos = self.head.len();
                continue;
            }
            let run = self.run_back(from, pos);
            if let Some(i) = run.iter().rposition(|&b| b == NL) {
                return Some(pos - run.len() + i);
            }
            pos -= run.len();
        }
        None
    }

    /// As [`Self::last_newline`], from the other end.
    fn first_newline(&self, from: usize, to: usize) -> Option<usize> {
        let mut pos = from;
        while pos < to {
            if !self.known() && pos >= self.head.len() && pos < self.tail_at {
                return None;
            }
            let run = self.run(pos, to);
            if let Some(i) = run.iter().position(|&b| b == NL) {
                return Some(pos + i);
            }
            pos += run.len();
        }
        None
    }

    fn is_safe_cut(&self, i: usize) -> bool {
        if i == 0 || i >= self.len {
            return true;
        }
        let b = self.at(i);
        let starts_unit = if self.raw { self.raw_boundary(i) } else { (b as i8) >= -64 };
        starts_unit && !(self.at(i - 1) == CR && b == NL)
    }

    fn is_newline(&self, i: usize) -> bool {
        self.at(i) == NL
    }

    /// A capture stands for a JS string: its notices name UTF-16 offsets, as a plan of the
    /// string would.
    fn notice_offsets_in_chars(&self) -> bool {
        true
    }
}
