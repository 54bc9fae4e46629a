//! Clamps stacked on clamps: a text that already carries a toolclamp notice is planned as
//! the original it stands for, so the one notice of the result counts what was dropped from
//! the original, not from the already-cut text.
//!
//! A tool wrapper cuts an 8 MB output to 50 KiB; a conversation guard later cuts that to
//! 18 KB. Planned as plain text, the guard's notice would count only the 32 KB it dropped
//! and sit beside the wrapper's notice, which would then lie about the text after it. Here
//! the guard sees what the wrapper's notice says: the text before it and the text after it
//! are the two ends of an original whose dropped middle has the counts the notice names.
//! That is a text with a gap, like a [`crate::Gapped`] capture, and it is planned the same
//! way, as the whole text: with totals of the original, and cuts that keep text only from
//! around the gap (the gap itself cannot be kept). The result has one notice, counting
//! `original total - kept` in each unit it names, and naming the spill file the earlier
//! notice named, if any.
//!
//! # What is recognised
//!
//! A notice on a line of its own, or at the end of a line after a space (an inline notice,
//! after a head that ended inside that line), in one of the formats the library writes
//! (counts with thousands separators, `1 line` / `2 lines`, units in the order lines,
//! chars, bytes): the default notice and each of [`templates::ALL`](crate::templates::ALL):
//!
//! * `[... 370 lines, 48,113 bytes truncated at the end ...]` (also `at the start`, `in the
//!   middle`): the default notice of every clamp, `truncateToolOutput`'s included;
//! * `[... {omitted} truncated at the end; full output saved to PATH (dropped: lines 4–9) ...]`
//!   ([`templates::SPILL`](crate::templates::SPILL)): `truncateText`'s, `hardTruncateToolPayload`'s,
//!   `truncateToolOutput`'s and a capture's notice with a spill file;
//! * `[... {omitted} truncated from stdout ...]` and `[... {omitted} truncated from stdout;
//!   full stdout saved to PATH (dropped: lines 4–9) ...]` ([`templates::STREAM`](crate::templates::STREAM),
//!   [`templates::STREAM_SPILL`](crate::templates::STREAM_SPILL)): `formatExecOutput`'s and `runCommand`'s;
//! * `[... {omitted} truncated at the end so far (input interrupted) ...]`
//!   ([`templates::INTERRUPTED`](crate::templates::INTERRUPTED), [`templates::INTERRUPTED_MIDDLE`](crate::templates::INTERRUPTED_MIDDLE)): a capture's whose
//!   input was cut short;
//! * `[... {omitted} of this tool output cut to fit the context window; full output saved to
//!   PATH ...]` ([`templates::CONTEXT_CUT`](crate::templates::CONTEXT_CUT)): `clampToolResultsInMessages`'s with a spill file;
//! * `[... {omitted} truncated at the end; full output saved to PATH ...]`: the notice this
//!   module writes when the earlier one named a file (see [`restacked_notice`]).
//!
//! A `truncateToolOutput` view has indicator lines around its notice, `[First 29 lines of
//! 500]` opening the text and `[Last 68 lines of 500]` after the notice; they are read
//! when each counts the lines of the text it stands above, and they are no text of the
//! original. The Last line goes with the notice. The First line is kept only with the
//! whole head (a cut inside the head would leave it counting lines that are gone), and the
//! notice counts neither.
//!
//! `PATH` may be `(not saved)`, which names no file. Recognition is strict, so text that
//! only looks like a notice stays text: the exact format; every count at least 1, with
//! bytes between chars and three times chars when both are named; a notice that says `at
//! the start` must be the first line, one that says `at the end` the last; a notice with
//! line numbers must start its dropped lines where the text before it ends. Not recognised:
//! the fallback notices (`[... truncated ...]`, `[...]`), which name no count; a caller's
//! own template or function, which cannot be told from text; an elided result's marker and
//! the JSON clamp's in-band markers.
//!
//! # The original it stands for
//!
//! The text before the notice is the kept head and the text after it (past the notice's
//! line break) the kept tail. A kept head that ended a line has the notice on a line of its
//! own; one that ended inside a line has it at the end of that line, after a space (see
//! [`crate::plan()`]): a notice on a line of its own, after a head cut inside a line, would
//! leave the line break before it either the head's own or a separator, and no count can
//! tell which (`abc` + 4 chars dropped reads like `abc\n` + 4 chars dropped). So an inline
//! notice's head ends before its space, and a notice at the start of a line has the text
//! before it, line break and all, as its head. Texts written before inline notices (where
//! a separator `\n` went before the notice) read the same, unless the notice's line
//! numbers say the line break was the separator (`dropped: lines 4–9` starts the dropped
//! lines on the line the head's last line break opens, or on the head's last line).
//!
//! The original's total in a unit the notice names is `omitted + kept`. Units it does not
//! name are unknown (a cut by bytes also drops lines, but the notice does not say how
//! many): the new notice names only known units, those whose original total exceeds the
//! new limit, or, if none does, all the known ones. A notice at the end with line numbers
//! also gives the original's lines (its last dropped line is the last line). For a caller's
//! own notice (template or function) the counts in units the earlier notice did not name
//! are those of the text around the gap: lower bounds.
//!
//! Several notices in one text (two streams of a command's output) make one gap, from the
//! first to the last: the text between them is dropped with it, and only units all of them
//! name are known; when they share none, the text is planned as plain text.
//!
//! # The cut
//!
//! Kept text comes only from the head before the gap and the tail after it. The room is
//! shared as by the `HeadTail` strategy with the head's share 1 for `Head`, 0 for `Tail` and
//! `head_ratio` for `HeadTail`: what one side cannot use (a `Head` cut of a text whose head
//! is all kept, or that has no head, as a tail cut's result) goes to the other, so the
//! dropped text is always one stretch and the result has one notice. The notice says
//! where that stretch is: `in the middle` when both ends are kept, `at the end` when only
//! the head is, `at the start` when only the tail is (and, when nothing is kept, where the
//! strategy drops text). When the limits allow, all the text around the gap is kept.

use crate::measure::{lines_of, measure, Measure, Span, Unit};
use crate::notice::{
    check_template, default_notice, format_count, render_template, Dims, Notice, NoticeFacts, Position, TemplateError,
};
use crate::plan::{plan_capped, Caps, Limits, Plan, Snap, Strategy, UNLIMITED};
use crate::source::{Source, Units};

const NL: u16 = b'\n' as u16;
const SPACE: u16 = b' ' as u16;

/// Longest line read as a notice, in units: the longest notice with a long spill path.
const MAX_NOTICE_UNITS: usize = 16 * 1024;

/// What a text's earlier notices say about the original it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prior {
    /// The kept head is `text[..head_end]`.
    pub head_end: usize,
    /// The kept tail is `text[tail_start..]`.
    pub tail_start: usize,
    /// The units whose totals of the original are known.
    pub known: Dims,
    /// Totals of the original: exact in `known`; in the other units those of the kept
    /// head and tail, lower bounds.
    pub total: Measure,
    /// The spill file the notices name (the first one named), if any.
    pub spill_path: Option<String>,
    /// How many notices make the gap.
    pub notices: usize,
    /// Where the `[First N lines of T]` line of a `truncateToolOutput` view ends (past its
    /// line break), or 0: kept text that is no text of the original, kept only with the
    /// whole head it stands above.
    pub indicator_end: usize,
}

/// Where a notice may stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    First,
    Last,
    Anywhere,
}

/// One notice as read.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Parsed {
    omitted: Measure,
    named: Dims,
    place: Place,
    path: Option<String>,
    /// `(dropped: lines F–T)` of a clamp's spill notice: lines of the text it cut.
    lines: Option<(u64, u64)>,
}

/// A notice found in a text: it spans `start..end`, to the end of its line.
struct Found {
    start: usize,
    end: usize,
    /// It follows a head that ended inside a line, on that line after a space (the
    /// separator at `start - 1`).
    inline: bool,
    parsed: Parsed,
}

impl Found {
    /// Where the text before it ends: before the separator of an inline notice.
    fn before(&self) -> usize {
        self.start - self.inline as usize
    }
}

/// Reads the notices of `units` (see the module docs), or `None` when it carries none that
/// can be read.
pub fn find_prior<U: Unit>(units: &[U]) -> Option<Prior> {
    let (found, indicator_end) = notices_in(units);
    let first = found.first()?;
    let last = found.last()?;
    let n = units.len();
    let mut known = Dims(Dims::CHARS.0 | Dims::BYTES.0 | Dims::LINES.0);
    let mut gap = Measure::default();
    for f in &found {
        known = Dims(known.0 & f.parsed.named.0);
        gap = plus(gap, f.parsed.omitted);
    }
    // The text between notices goes with the gap.
    for pair in found.windows(2) {
        let between = after_line(pair[0].end, n);
        gap = plus(gap, measure(&units[between..pair[1].before()]));
    }
    let mut head_end = first.before();
    let tail_start = after_line(last.end, n);
    if found.len() == 1 && !first.inline {
        if let Some((from, _)) = first.parsed.lines {
            // The dropped lines start on the line after the head's last line break, or, in
            // a text written before inline notices, on the head's last line when that line
            // break was the notice's separator.
            let newlines = count_newlines(&units[indicator_end..head_end]);
            if from != newlines + 1 {
                head_end -= 1;
            }
        }
    }
    let head = measure(&units[..head_end]);
    let tail = measure(&units[tail_start..]);
    let kept = plus(head, tail);
    let mut total = plus(kept, gap);
    // A clamp's spill notice at the end names the original's last line.
    if let (1, Some((_, to)), Place::Last) = (found.len(), first.parsed.lines, first.parsed.place) {
        total.lines = to + measure(&units[..indicator_end]).lines;
        known.insert(Dims::LINES);
    }
    for (dim, value, kept_value) in [
        (Dims::CHARS, &mut total.chars, kept.chars),
        (Dims::BYTES, &mut total.bytes, kept.bytes),
        (Dims::LINES, &mut total.lines, kept.lines),
    ] {
        if !known.contains(dim) {
            *value = kept_value;
        }
    }
    if known.is_empty() {
        return None;
    }
    let spill_path = found.iter().find_map(|f| f.parsed.path.clone());
    Some(Prior { head_end, tail_start, known, total, spill_path, notices: found.len(), indicator_end })
}

fn plus(a: Measure, b: Measure) -> Measure {
    Measure { chars: a.chars + b.chars, bytes: a.bytes + b.bytes, lines: a.lines + b.lines }
}

/// Where the text after a line ending at `end` starts.
fn after_line(end: usize, n: usize) -> usize {
    if end < n {
        end + 1
    } else {
        n
    }
}

fn count_newlines<U: Unit>(units: &[U]) -> u64 {
    U::span(units, None).newlines
}

/// The notices of `units`, in order, each checked against the text around it, and where
/// the first indicator line of a `truncateToolOutput` view ends (see [`indicators`]).
fn notices_in<U: Unit>(units: &[U]) -> (Vec<Found>, usize) {
    let n = units.len();
    let mut found: Vec<Found> = Vec::new();
    let mut at = 0;
    while let Some(start) = find_open(units, at) {
        at = start + 1;
        // At the start of a line, or after the space that follows a head's open line.
        let line_start = start == 0 || units[start - 1].code() == NL;
        let inline = start >= 2 && units[start - 1].code() == SPACE && units[start - 2].code() != NL;
        if !line_start && !inline {
            continue;
        }
        let limit = n.min(start.saturating_add(MAX_NOTICE_UNITS));
        let end = units[start..limit].iter().position(|u| u.code() == NL).map_or(limit, |k| start + k);
        if end == limit && limit < n {
            continue;
        }
        let Some(line) = decode(&units[start..end]) else { continue };
        let Some(parsed) = parse_notice(&line) else { continue };
        let fits_place = match parsed.place {
            Place::First => start == 0,
            Place::Last => end == n,
            Place::Anywhere => true,
        };
        if fits_place {
            // Of two notices that end one line, the later is the one written last: an inline
            // notice after a head whose line held something like a notice (which then reads
            // as one with a path that runs into the real one).
            if found.last().is_some_and(|f| f.end == end) {
                found.pop();
            }
            found.push(Found { start, end, inline, parsed });
        }
    }
    let indicator_end = match found.as_mut_slice() {
        [only] => indicators(units, only),
        _ => 0,
    };
    // Line numbers are checked for a lone notice (those of several count other texts).
    if let [only] = found.as_slice() {
        if let Some((from, _)) = only.parsed.lines {
            let newlines = count_newlines(&units[indicator_end..only.start]);
            let own = from == newlines + 1;
            let separator = !only.inline && only.start > 0 && from == newlines;
            if !own && !separator {
                found.clear();
            }
        }
    }
    (found, indicator_end)
}

/// The indicator lines of a `truncateToolOutput` view around its lone notice `f`:
/// `[First H lines of T]` opening the text when a head is kept, `[Last N lines of T]` on
/// the line after the notice when a tail is kept, H and N the lines of the head and tail
/// they stand above, T the same in both. The Last line is no text of the original and
/// goes with the notice (`f.end` moves to its end); returns where the First line ends
/// (past its line break), or 0 when the text is no such view.
fn indicators<U: Unit>(units: &[U], f: &mut Found) -> usize {
    let n = units.len();
    let first = indicator_line(units, 0, "First");
    let last = if f.end < n { indicator_line(units, f.end + 1, "Last") } else { None };
    let head_from = first.as_ref().map_or(0, |line| line.end + 1);
    let lines = |from: usize, to: usize| (from < to).then(|| measure(&units[from..to]).lines);
    let head_fits = match &first {
        Some(line) => line.end < f.start && lines(head_from, f.before()) == Some(line.lines),
        None => f.start == 0,
    };
    let tail_fits = match &last {
        Some(line) => line.end < n && lines(line.end + 1, n) == Some(line.lines),
        None => f.end == n,
    };
    let same_total = match (&first, &last) {
        (Some(a), Some(b)) => a.total == b.total,
        (None, None) => false,
        _ => true,
    };
    if !(head_fits && tail_fits && same_total) {
        return 0;
    }
    if let Some(line) = last {
        f.end = line.end;
    }
    head_from
}

/// An indicator line `[WORD N lines of T]` starting at `start`.
struct Indicator {
    lines: u64,
    total: u64,
    /// Where its line ends (its line break).
    end: usize,
}

fn indicator_line<U: Unit>(units: &[U], start: usize, word: &str) -> Option<Indicator> {
    // `[First 18,446,744,073,709,551,615 lines of 18,446,744,073,709,551,615]` at most.
    const LONGEST: usize = 80;
    let limit = units.len().min(start + LONGEST);
    let end = start + units.get(start..limit)?.iter().position(|u| u.code() == NL)?;
    let line = decode(&units[start..end])?;
    let (lines, total) = line.strip_prefix('[')?.strip_prefix(word)?.strip_suffix(']')?.split_once(" lines of ")?;
    let count = |s: &str| {
        let n: u64 = s.replace(',', "").parse().ok()?;
        (n > 0 && format_count(n) == s).then_some(n)
    };
    let lines = count(lines.strip_prefix(' ')?)?;
    let total = count(total)?;
    (lines <= total).then_some(Indicator { lines, total, end })
}

/// How every notice starts.
const OPEN: [u16; 5] = [b'[' as u16, b'.' as u16, b'.' as u16, b'.' as u16, b' ' as u16];
const OPEN_BYTES: &[u8] = b"[... ";

/// Units tested at a time for two dots in a row, before the exact place of `[... ` is sought.
const BLOCK: usize = 256;

/// The first `[... ` at or after `from`. One-byte text is searched with memchr's substring
/// search. In two-byte text a block is first tested, without branches, for `..` anywhere in
/// it (rare in output, and it runs at the speed of the machine's vector units); only a block
/// that has it is searched for the exact place.
fn find_open<U: Unit>(units: &[U], from: usize) -> Option<usize> {
    if let Some(bytes) = U::as_latin1(units) {
        return memchr::memmem::find(bytes.get(from..)?, OPEN_BYTES).map(|i| from + i);
    }
    let starts = units.len().checked_sub(OPEN.len() - 1)?;
    let dot = OPEN[1];
    let mut s = from;
    while s < starts {
        let e = (s + BLOCK).min(starts);
        let (first, second) = (&units[s + 1..e + 1], &units[s + 2..e + 2]);
        let dots = first.iter().zip(second).fold(false, |acc, (a, b)| acc | ((a.code() == dot) & (b.code() == dot)));
        if dots {
            if let Some(i) = (s..e).find(|&i| (0..OPEN.len()).all(|k| units[i + k].code() == OPEN[k])) {
                return Some(i);
            }
        }
        s = e;
    }
    None
}

/// Whether `units` hold `[... `.
pub(crate) fn holds_open<U: Unit>(units: &[U]) -> bool {
    find_open(units, 0).is_some()
}

/// A line as text; `None` when it holds a lone surrogate (no notice does).
fn decode<U: Unit>(units: &[U]) -> Option<String> {
    char::decode_utf16(units.iter().map(|u| u.code())).collect::<Result<String, _>>().ok()
}

/// Reads one line as a notice of the library's (see the module docs).
fn parse_notice(line: &str) -> Option<Parsed> {
    let body = line.strip_prefix("[... ")?;
    let (omitted, named, rest) = parse_phrase(body)?;
    let (place, path, lines) = parse_rest(rest)?;
    Some(Parsed { omitted, named, place, path, lines })
}

/// `370 lines, 48,113 bytes` and what follows it (from the space after the last unit).
fn parse_phrase(s: &str) -> Option<(Measure, Dims, &str)> {
    let mut omitted = Measure::default();
    let mut named = Dims::default();
    let mut rest = s;
    let mut order = 0;
    loop {
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == ','))?;
        let count_text = &rest[..digits];
        let n: u64 = count_text.replace(',', "").parse().ok()?;
        if n == 0 || format_count(n) != count_text {
            return None;
        }
        rest = rest[digits..].strip_prefix(' ')?;
        let word_end = rest.find([' ', ',']).unwrap_or(rest.len());
        let (dim, rank, singular) = match &rest[..word_end] {
            "line" => (Dims::LINES, 1, true),
            "lines" => (Dims::LINES, 1, false),
            "char" => (Dims::CHARS, 2, true),
            "chars" => (Dims::CHARS, 2, false),
            "byte" => (Dims::BYTES, 3, true),
            "bytes" => (Dims::BYTES, 3, false),
            _ => return None,
        };
        if rank <= order || singular != (n == 1) {
            return None;
        }
        order = rank;
        named.insert(dim);
        match dim {
            Dims::LINES => omitted.lines = n,
            Dims::CHARS => omitted.chars = n,
            _ => omitted.bytes = n,
        }
        rest = &rest[word_end..];
        match rest.strip_prefix(", ") {
            Some(more) => rest = more,
            None => break,
        }
    }
    // A change of chars is one to three bytes each.
    if named.contains(Dims::CHARS)
        && named.contains(Dims::BYTES)
        && !(omitted.chars <= omitted.bytes && omitted.bytes <= omitted.chars.saturating_mul(3))
    {
        return None;
    }
    Some((omitted, named, rest))
}

/// Where phrases: `at the start`, `at the end`, `in the middle`.
const WHERE: [(&str, Place); 3] =
    [("at the start", Place::First), ("at the end", Place::Last), ("in the middle", Place::Anywhere)];

/// `{where}` words of a spill notice: `start`, `end`, `middle`.
const WHERE_WORDS: [(&str, Place); 3] = [("start", Place::First), ("end", Place::Last), ("middle", Place::Anywhere)];

const STREAMS: [&str; 2] = ["stdout", "stderr"];

/// How an interrupted capture's notice ends ([`templates::INTERRUPTED`](crate::templates::INTERRUPTED)).
const INTERRUPTED_END: &str = " so far (input interrupted) ...]";

type Rest = (Place, Option<String>, Option<(u64, u64)>);

/// What follows the counts: the formats of the module docs.
fn parse_rest(rest: &str) -> Option<Rest> {
    if let Some(s) = rest.strip_prefix(" of this tool output cut to fit the context window; full output saved to ") {
        return Some((Place::Anywhere, plain_path(s.strip_suffix(" ...]")?)?, None));
    }
    let s = rest.strip_prefix(" truncated ")?;
    if let Some(s) = s.strip_prefix("from ") {
        return parse_stream(s);
    }
    if let Some(phrase) = s.strip_suffix(INTERRUPTED_END) {
        // `{where}` of the template may say `at the middle`.
        let word = phrase.strip_prefix("at the ").and_then(|w| WHERE_WORDS.iter().find(|(x, _)| *x == w));
        let place = WHERE.iter().find(|(p, _)| *p == phrase).or(word)?.1;
        return Some((place, None, None));
    }
    // A spill notice's `at the {where}` shares `at the start` and `at the end`.
    if let Some(spill) = s.strip_prefix("at the ").and_then(|t| parse_spill(t, "full output")) {
        return Some(spill);
    }
    for (phrase, place) in WHERE {
        let Some(after) = s.strip_prefix(phrase) else { continue };
        if after == " ...]" {
            return Some((place, None, None));
        }
        let path = after.strip_prefix("; full output saved to ")?.strip_suffix(" ...]")?;
        return Some((place, plain_path(path)?, None));
    }
    None
}

/// The path of a notice without line numbers; one that ends like a spill notice's line
/// numbers is a spill notice that did not read.
fn plain_path(path: &str) -> Option<Option<String>> {
    if path.contains(" (dropped: lines ") {
        return None;
    }
    path_of(path)
}

/// `{where}; full output saved to PATH (dropped: lines F–T) ...]`.
fn parse_spill(s: &str, what: &str) -> Option<Rest> {
    let (word, s) = s.split_once("; ")?;
    let place = WHERE_WORDS.iter().find(|(w, _)| *w == word)?.1;
    let (path, lines) = saved_with_lines(s, what)?;
    Some((place, path, Some(lines)))
}

/// `stdout ...]` or `stdout; full stdout saved to PATH (dropped: lines F–T) ...]`.
fn parse_stream(s: &str) -> Option<Rest> {
    for stream in STREAMS {
        let Some(after) = s.strip_prefix(stream) else { continue };
        if after == " ...]" {
            return Some((Place::Anywhere, None, None));
        }
        let saved = after.strip_prefix("; ")?;
        let (path, _) = saved_with_lines(saved, &format!("full {stream}"))?;
        // A stream's line numbers are those of the stream, not of the text around it.
        return Some((Place::Anywhere, path, None));
    }
    None
}

/// `WHAT saved to PATH (dropped: lines F–T) ...]`.
fn saved_with_lines(s: &str, what: &str) -> Option<(Option<String>, (u64, u64))> {
    let s = s.strip_prefix(what)?.strip_prefix(" saved to ")?;
    let s = s.strip_suffix(") ...]")?;
    let (path, range) = s.rsplit_once(" (dropped: lines ")?;
    let (from, to) = range.split_once('\u{2013}')?;
    let (from, to) = (plain_number(from)?, plain_number(to)?);
    if from == 0 || to < from {
        return None;
    }
    Some((path_of(path)?, (from, to)))
}

fn plain_number(s: &str) -> Option<u64> {
    let canonical = !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    canonical.then(|| s.parse().ok()).flatten()
}

/// A spill path as a notice names it: `None` inside for `(not saved)`; no path at all
/// (empty) is no notice of ours.
fn path_of(path: &str) -> Option<Option<String>> {
    match path {
        "" => None,
        "(not saved)" => Some(None),
        p => Some(Some(p.to_string())),
    }
}

/// The notice this module writes: the default notice, or with a spill file
/// `[... 370 lines truncated at the end; full output saved to PATH ...]`.
pub fn restacked_notice(facts: &NoticeFacts, spill_path: Option<&str>) -> String {
    let notice = default_notice(facts);
    match spill_path {
        None => notice,
        Some(path) => {
            let open = &notice[..notice.len() - " ...]".len()];
            format!("{open}; full output saved to {path} ...]")
        }
    }
}

/// Whether a caller's template writes one of the library's own notices (a spill notice
/// with its path filled in, say): then the plan writes [`restacked_notice`] instead.
fn is_library_template(template: &str) -> bool {
    let probe = NoticeFacts {
        position: Position::End,
        truncated_by: Dims::LINES,
        omitted: Measure { chars: 2, bytes: 2, lines: 2 },
        total: Measure { chars: 4, bytes: 4, lines: 4 },
        head_end: 2,
        tail_start: 4,
        from_line: 3,
        to_line: 4,
    };
    render_template(template, &probe).is_ok_and(|text| parse_notice(&text).is_some())
}

/// A source around a gap: the cuts at its edges are safe whatever the text has there
/// (the gap's own text is what follows the head and precedes the tail).
struct AroundGap<'a, U: Unit> {
    units: Units<'a, U>,
    head_end: usize,
    tail_start: usize,
    /// The head is kept whole or not at all (it has an indicator line that counts it).
    whole_head: bool,
}

impl<U: Unit> AroundGap<'_, U> {
    /// Whether a cut just after unit `i` would fall inside a head kept whole.
    fn inside_whole_head(&self, i: usize) -> bool {
        self.whole_head && i + 1 < self.head_end
    }

    /// `[... ` starts at `i`, inside a line: a tail kept from there would start the line
    /// after the new notice with it, and text that read as no notice would read as one.
    fn opens_notice_midline(&self, i: usize) -> bool {
        i > 0
            && self.units.code(i - 1) != NL
            && i + OPEN.len() <= self.units.len()
            && (0..OPEN.len()).all(|k| self.units.code(i + k) == OPEN[k])
    }
}

impl<U: Unit> Source for AroundGap<'_, U> {
    fn len(&self) -> usize {
        self.units.len()
    }
    fn code(&self, i: usize) -> u16 {
        self.units.code(i)
    }
    fn totals(&self) -> Measure {
        self.units.totals()
    }
    fn span(&self, from: usize, to: usize) -> Span {
        self.units.span(from, to)
    }
    fn unit_span(&self, i: usize) -> Span {
        self.units.unit_span(i)
    }
    fn fit_forward(&self, from: usize, limit: usize, budget: Span) -> (usize, Span) {
        self.units.fit_forward(from, limit, budget)
    }
    fn fit_backward(&self, to: usize, floor: usize, budget: Span) -> (usize, Span) {
        self.units.fit_backward(to, floor, budget)
    }
    fn last_newline(&self, from: usize, to: usize) -> Option<usize> {
        // The last one is inside a head kept whole only when all of them are.
        self.units.last_newline(from, to).filter(|&p| !self.inside_whole_head(p))
    }
    fn is_newline(&self, i: usize) -> bool {
        // A line break inside a head kept whole is no place to snap a cut to.
        self.units.code(i) == NL && !self.inside_whole_head(i)
    }
    fn is_safe_cut(&self, i: usize) -> bool {
        if self.whole_head && 0 < i && self.inside_whole_head(i - 1) {
            return false;
        }
        i == self.head_end || i == self.tail_start || (self.units.is_safe_cut(i) && !self.opens_notice_midline(i))
    }
}

/// The limits a measure exceeds.
fn exceeded(m: &Measure, limits: &Limits) -> Dims {
    let mut dims = Dims::default();
    for (dim, value, limit) in [
        (Dims::CHARS, m.chars, limits.max_chars),
        (Dims::BYTES, m.bytes, limits.max_bytes),
        (Dims::LINES, m.lines, limits.max_lines),
    ] {
        if limit != UNLIMITED && value > limit {
            dims.insert(dim);
        }
    }
    dims
}

/// Plans `units`, which carry the notices `prior` read and exceed `limits`, as the
/// original they stand for (see the module docs). The plan's `total`, `omitted` and
/// `truncated_by` are those of `units`, as given; its notice counts the original.
pub fn plan_restacked<U: Unit>(
    units: &[U],
    prior: &Prior,
    limits: &Limits,
    strategy: Strategy,
    notice: &mut Notice<'_>,
    snap: Snap,
) -> Result<Plan, TemplateError> {
    let given = measure(units);
    let whole_head = prior.indicator_end > 0;
    let src =
        AroundGap { units: Units::new(units), head_end: prior.head_end, tail_start: prior.tail_start, whole_head };
    let over = Dims(exceeded(&prior.total, limits).0 & prior.known.0);
    let named = if over.is_empty() { prior.known } else { over };
    let head_ratio = match strategy {
        Strategy::Head => 1.0,
        Strategy::Tail => 0.0,
        Strategy::HeadTail { head_ratio } => head_ratio,
    };
    let caps = Caps {
        head_max: prior.head_end,
        tail_min: prior.tail_start,
        nothing_kept: nothing_kept(strategy),
        total: prior.total,
        named,
    };
    let library = match notice {
        Notice::Default => true,
        Notice::Template(t) => is_library_template(t),
        Notice::Custom(_) => false,
    };
    let mut plan = if library {
        let path = prior.spill_path.as_deref();
        let indicator = measure(&units[..prior.indicator_end]);
        let mut ours = |facts: &NoticeFacts| restacked_notice(&of_original(facts, indicator), path);
        plan_capped(&src, limits, head_ratio, &mut Notice::Custom(&mut ours), snap, caps)?
    } else if whole_head {
        if let Notice::Template(t) = notice {
            check_template(t)?;
        }
        let indicator = measure(&units[..prior.indicator_end]);
        let mut theirs = |facts: &NoticeFacts| {
            let facts = of_original(facts, indicator);
            match notice {
                Notice::Default => default_notice(&facts),
                Notice::Template(t) => render_template(t, &facts).expect("the template was checked"),
                Notice::Custom(f) => f(&facts),
            }
        };
        plan_capped(&src, limits, head_ratio, &mut Notice::Custom(&mut theirs), snap, caps)?
    } else {
        plan_capped(&src, limits, head_ratio, notice, snap, caps)?
    };
    plan.total = given;
    plan.truncated_by = exceeded(&given, limits);
    plan.omitted = omitted_of(units, &given, plan.head_end, plan.tail_start);
    Ok(plan)
}

/// The facts of a cut as counts of the original, when the given text's head starts with
/// `indicator`, an indicator line that is kept text but no text of the original: the
/// totals (planned with it as text, so that the kept text is measured as it is) lose it,
/// and so does the omitted text when the head, indicator and all, is dropped.
fn of_original(facts: &NoticeFacts, indicator: Measure) -> NoticeFacts {
    let less = |m: Measure| Measure {
        chars: m.chars.saturating_sub(indicator.chars),
        bytes: m.bytes.saturating_sub(indicator.bytes),
        lines: m.lines.saturating_sub(indicator.lines),
    };
    let omitted = if facts.head_end == 0 { less(facts.omitted) } else { facts.omitted };
    NoticeFacts { total: less(facts.total), omitted, ..*facts }
}

/// Where a plan that keeps nothing says the text was dropped.
fn nothing_kept(strategy: Strategy) -> Position {
    match strategy {
        Strategy::Head => Position::End,
        Strategy::Tail => Position::Start,
        Strategy::HeadTail { .. } => Position::Middle,
    }
}

/// What a cut drops of the text as given (its dropped part always holds the earlier
/// notice's line break when a tail is kept, so no line is shared).
fn omitted_of<U: Unit>(units: &[U], given: &Measure, head_end: usize, tail_start: usize) -> Measure {
    let n = units.len();
    let head = U::span(&units[..head_end], None);
    let tail = U::span(&units[tail_start..], tail_start.checked_sub(1).map(|p| units[p]));
    let head_lines = lines_of(head.newlines, head_end, head_end > 0 && units[head_end - 1].code() == NL);
    let tail_lines = lines_of(tail.newlines, n - tail_start, tail_start < n && units[n - 1].code() == NL);
    Measure {
        chars: given.chars - head.chars - tail.chars,
        bytes: given.bytes.saturating_sub(head.bytes + tail.bytes),
        lines: given.lines.saturating_sub(head_lines + tail_lines),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notice::templates;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn reads_each_format_of_the_library() {
        let parsed = |omitted: (u64, u64, u64), named: Dims, place, path: Option<&str>, lines| Parsed {
            omitted: Measure { lines: omitted.0, chars: omitted.1, bytes: omitted.2 },
            named,
            place,
            path: path.map(String::from),
            lines,
        };
        let cases = [
            (
                "[... 370 lines, 48,113 bytes truncated at the end ...]",
                parsed((370, 0, 48_113), Dims(Dims::LINES.0 | Dims::BYTES.0), Place::Last, None, None),
            ),
            ("[... 1 char truncated in the middle ...]", parsed((0, 1, 0), Dims::CHARS, Place::Anywhere, None, None)),
            (
                "[... 2 lines truncated at the start; full output saved to /t/a b.txt (dropped: lines 1–2) ...]",
                parsed((2, 0, 0), Dims::LINES, Place::First, Some("/t/a b.txt"), Some((1, 2))),
            ),
            (
                "[... 5 bytes truncated at the middle; full output saved to (not saved) (dropped: lines 3–3) ...]",
                parsed((0, 0, 5), Dims::BYTES, Place::Anywhere, None, Some((3, 3))),
            ),
            (
                "[... 12,000 chars truncated from stdout ...]",
                parsed((0, 12_000, 0), Dims::CHARS, Place::Anywhere, None, None),
            ),
            (
                "[... 9 lines truncated from stderr; full stderr saved to /x (dropped: lines 1–9) ...]",
                parsed((9, 0, 0), Dims::LINES, Place::Anywhere, Some("/x"), None),
            ),
            (
                "[... 8,980 bytes of this tool output cut to fit the context window; full output saved to /s/t.txt ...]",
                parsed((0, 0, 8_980), Dims::BYTES, Place::Anywhere, Some("/s/t.txt"), None),
            ),
            (
                "[... 3 lines truncated at the end; full output saved to /s/t.txt ...]",
                parsed((3, 0, 0), Dims::LINES, Place::Last, Some("/s/t.txt"), None),
            ),
        ];
        for (line, expected) in cases {
            assert_eq!(parse_notice(line), Some(expected), "{line}");
        }
    }

    #[test]
    fn text_that_only_looks_like_a_notice_is_text() {
        for line in [
            "[... truncated ...]",
            "[...]",
            "[... 0 lines truncated at the end ...]",
            "[... 1 lines truncated at the end ...]",
            "[... 2 line truncated at the end ...]",
            "[... 1000 bytes truncated at the end ...]",
            "[... 01 bytes truncated at the end ...]",
            "[... 5 bytes, 3 lines truncated at the end ...]",
            "[... 5 bytes, 5 bytes truncated at the end ...]",
            "[... 5 chars, 2 bytes truncated at the end ...]",
            "[... 5 chars, 16 bytes truncated at the end ...]",
            "[... 5 bytes truncated at the end ...] ",
            "[... 5 bytes truncated at the top ...]",
            "[... 5 bytes truncated from stdin ...]",
            "[... 5 bytes truncated at the end; full output saved to  ...]",
            "[... 5 bytes truncated at the end; full output saved to /x (dropped: lines 0–2) ...]",
            "[... 5 bytes truncated at the end; full output saved to /x (dropped: lines 3–2) ...]",
            "[... 5 bytes truncated from stdout; full stderr saved to /x (dropped: lines 1–2) ...]",
            "[... 5 tokens truncated at the end ...]",
        ] {
            assert_eq!(parse_notice(line), None, "{line}");
        }
    }

    #[test]
    fn a_notice_stands_on_its_own_line_where_it_says() {
        assert!(find_prior(&units("abc[... 5 bytes truncated at the end ...]")).is_none());
        assert!(find_prior(&units(" [... 5 bytes truncated at the end ...]")).is_none());
        assert!(find_prior(&units("abc\n [... 5 bytes truncated at the end ...]")).is_none());
        // Inline, after a head that ended inside its line: the space is the separator.
        let inline = find_prior(&units("ab\nabc [... 5 bytes truncated at the end ...]")).unwrap();
        assert_eq!((inline.head_end, inline.total.bytes), (6, 11));
        assert!(find_prior(&units("abc\n[... 5 bytes truncated at the end ...]\n")).is_none());
        assert!(find_prior(&units("abc\n[... 5 bytes truncated at the start ...]\nxyz")).is_none());
        assert!(find_prior(&units("[... 5 bytes truncated at the end ...]\nxyz")).is_none());
        let prior = find_prior(&units("abc\n[... 5 bytes truncated at the end ...]")).unwrap();
        assert_eq!((prior.head_end, prior.tail_start), (4, 42));
        assert_eq!(prior.known, Dims::BYTES);
        assert_eq!(prior.total.bytes, 9);
        let prior = find_prior(&units("[... 2 lines, 5 chars truncated at the start ...]\nxyz")).unwrap();
        assert_eq!((prior.head_end, prior.tail_start, prior.total.lines, prior.total.chars), (0, 50, 3, 8));
    }

    #[test]
    fn line_numbers_tell_a_separator_from_the_heads_own_line_break() {
        let notice = |from: u64| {
            format!("ab\ncd\n[... 4 chars truncated at the end; full output saved to /f (dropped: lines {from}–3) ...]")
        };
        // Dropped lines start on line 3: the head ended its second line.
        let own = find_prior(&units(&notice(3))).unwrap();
        assert_eq!((own.head_end, own.total.chars, own.total.lines), (6, 10, 3));
        assert_eq!(own.known, Dims(Dims::CHARS.0 | Dims::LINES.0));
        // On line 2: the head ended inside it, and the line break was the separator.
        let separator = find_prior(&units(&notice(2))).unwrap();
        assert_eq!((separator.head_end, separator.total.chars), (5, 9));
        assert!(find_prior(&units(&notice(1))).is_none());
        assert_eq!(own.spill_path.as_deref(), Some("/f"));
    }

    /// Plans `text` under `limits` (Head, default notice), then plans the result again,
    /// restacked: the head of the second and the notice it wrote.
    fn twice(text: &str, first: Limits, second: Limits) -> (String, String) {
        let units = units(text);
        let p = crate::plan::plan(&Units::new(&units), &first, Strategy::Head, &mut Notice::Default, true)
            .unwrap()
            .unwrap();
        let once = format!("{}{}", String::from_utf16(&units[..p.head_end]).unwrap(), p.glue);
        let again: Vec<u16> = once.encode_utf16().collect();
        let prior = find_prior(&again).expect("the first notice is read");
        let q = plan_restacked(&again, &prior, &second, Strategy::Head, &mut Notice::Default, Snap::None).unwrap();
        (String::from_utf16(&again[..q.head_end]).unwrap(), q.glue)
    }

    #[test]
    fn a_head_cut_inside_a_line_is_told_from_one_that_ended_it() {
        let limits = |chars| Limits { max_chars: chars, max_bytes: UNLIMITED, max_lines: UNLIMITED };
        // Cut after 'abcdd': the notice follows on that line, so the second cut knows the
        // head is 'abcdd' (not 'abcdd\n') and counts the original's chars.
        let inside = format!("abc{}\n{}", "d".repeat(60), "g".repeat(10));
        let (head, notice) = twice(&inside, limits(44), limits(42));
        assert_eq!(head, "ab");
        assert_eq!(notice, format!(" [... {} chars truncated at the end ...]", inside.len() - 2));
        // Cut after 'abc\n': the notice starts a line, and the head's line break is its own.
        let ended = format!("abc\n{}", "d".repeat(70));
        let (head, notice) = twice(&ended, limits(43), limits(42));
        assert_eq!(head, "ab");
        assert_eq!(notice, format!(" [... {} chars truncated at the end ...]", ended.len() - 2));
    }

    #[test]
    fn several_notices_make_one_gap() {
        let text = "<stdout>\n[... 10 chars truncated from stdout ...]\nend\n</stdout>\n<stderr>\n\
                    [... 3 lines, 20 chars truncated from stderr ...]\nlast\n</stderr>";
        let prior = find_prior(&units(text)).unwrap();
        assert_eq!(prior.notices, 2);
        assert_eq!(prior.known, Dims::CHARS);
        let head = "<stdout>\n".len();
        let between = "end\n</stdout>\n<stderr>\n".len();
        let tail = "last\n</stderr>".len();
        assert_eq!(prior.head_end, head);
        assert_eq!(prior.total.chars, (head + 10 + between + 20 + tail) as u64);
        // An inline second notice: its space is no text of the original.
        let inline = "<stdout>\n[... 10 chars truncated from stdout ...]\nend\n</stdout>\n<stderr>\nwa \
                      [... 20 chars truncated from stderr ...]\nlast";
        let prior = find_prior(&units(inline)).unwrap();
        let between = "end\n</stdout>\n<stderr>\nwa".len();
        assert_eq!(prior.total.chars, (head + 10 + between + 20 + "last".len()) as u64);
        // No unit in common: plain text.
        let disjoint = "[... 3 lines truncated from stdout ...]\nx\n[... 4 chars truncated from stderr ...]";
        assert!(find_prior(&units(disjoint)).is_none());
    }

    #[test]
    fn restacked_notices_are_read_back() {
        let facts = NoticeFacts {
            position: Position::Middle,
            truncated_by: Dims(Dims::LINES.0 | Dims::BYTES.0),
            omitted: Measure { chars: 0, bytes: 15_881_157, lines: 350_193 },
            total: Measure::default(),
            head_end: 0,
            tail_start: 0,
            from_line: 0,
            to_line: 0,
        };
        let with_path = restacked_notice(&facts, Some("/tmp/find-1.toolclamp-spill.txt"));
        assert_eq!(
            with_path,
            "[... 350,193 lines, 15,881,157 bytes truncated in the middle; full output saved to \
             /tmp/find-1.toolclamp-spill.txt ...]"
        );
        let parsed = parse_notice(&with_path).unwrap();
        assert_eq!(parsed.path.as_deref(), Some("/tmp/find-1.toolclamp-spill.txt"));
        assert_eq!(parsed.omitted, facts.omitted);
        assert_eq!(restacked_notice(&facts, None), default_notice(&facts));
    }

    #[test]
    fn every_template_of_the_library_is_read_back() {
        let facts = |position| NoticeFacts {
            position,
            truncated_by: Dims(Dims::LINES.0 | Dims::CHARS.0),
            omitted: Measure { chars: 1_200, bytes: 1_300, lines: 7 },
            total: Measure { chars: 5_000, bytes: 5_100, lines: 20 },
            head_end: 10,
            tail_start: 1_210,
            from_line: 3,
            to_line: 9,
        };
        let fill = |t: &str, path: &str| t.replace("{stream}", "stdout").replace("{spillPath}", path);
        for (name, template) in templates::ALL {
            assert!(is_library_template(&fill(template, "/s/x.txt")), "{name}");
            for position in [Position::Start, Position::End, Position::Middle] {
                for path in ["/s/a b.txt", "(not saved)"] {
                    let line = render_template(&fill(template, path), &facts(position)).unwrap();
                    let parsed = parse_notice(&line).unwrap_or_else(|| panic!("{name}: {line}"));
                    assert_eq!(parsed.omitted, Measure { chars: 1_200, bytes: 0, lines: 7 }, "{line}");
                    let named = path != "(not saved)" && template.contains("{spillPath}");
                    assert_eq!(parsed.path.as_deref(), named.then_some(path), "{line}");
                }
            }
        }
        assert_eq!(
            parse_notice("[... 3 lines truncated in the middle so far (input interrupted) ...]").map(|p| p.place),
            Some(Place::Anywhere)
        );
        assert_eq!(
            parse_notice("[... 3 lines truncated at the start so far (input interrupted) ...]").map(|p| p.place),
            Some(Place::First)
        );
        for line in [
            "[... 3 lines truncated so far (input interrupted) ...]",
            "[... 3 lines truncated at the top so far (input interrupted) ...]",
            "[... 3 lines truncated in the middle so far (input interrupted)...]",
        ] {
            assert_eq!(parse_notice(line), None, "{line}");
        }
    }

    /// `truncateToolOutput`'s view of `text`, as `lib/presets/tool-output.js` lays it out.
    fn tool_output_view(text: &str, max_chars: u64, max_lines: u64) -> String {
        let units = units(text);
        let v =
            crate::tool_output::plan_tool_output(&Units::new(&units), max_chars, max_lines, 0.3, &mut Notice::Default)
                .unwrap()
                .unwrap();
        let part = |a: usize, b: usize| String::from_utf16(&units[a..b]).unwrap();
        format!(
            "{}{}{}{}{}",
            v.first,
            part(0, v.plan.head_end),
            v.plan.glue,
            v.last,
            part(v.plan.tail_start, units.len())
        )
    }

    #[test]
    fn a_tool_output_view_is_read_without_its_indicator_lines() {
        let text: String = (1..=500).map(|i| format!("line {i}\n")).collect();
        let view = tool_output_view(&text, 100_000, 100);
        assert!(view.starts_with("[First 29 lines of 500]\n"), "{view}");
        assert!(view.contains("\n[... 403 lines truncated in the middle ...]\n[Last 68 lines of 500]\n"), "{view}");
        let prior = find_prior(&units(&view)).unwrap();
        assert_eq!(prior.indicator_end, "[First 29 lines of 500]\n".len());
        assert_eq!(&view[prior.tail_start..], &text[text.len() - (view.len() - prior.tail_start)..]);
        assert!(!view[prior.tail_start..].contains('['));
        // The head kept: the indicator stays, and the notice counts the original's lines.
        let restack = |max_lines| {
            let units = units(&view);
            let limits = Limits { max_chars: UNLIMITED, max_bytes: UNLIMITED, max_lines };
            let strategy = Strategy::HeadTail { head_ratio: 0.5 };
            let q = plan_restacked(&units, &prior, &limits, strategy, &mut Notice::Default, Snap::Line).unwrap();
            let head = String::from_utf16(&units[..q.head_end]).unwrap();
            let tail = String::from_utf16(&units[q.tail_start..]).unwrap();
            (head, q.glue, tail)
        };
        let (head, glue, tail) = restack(90);
        assert!(head.starts_with("[First 29 lines of 500]\nline 1\n") && head.ends_with("line 29\n"), "{head}");
        let kept = 29 + tail.lines().count() as u64;
        assert_eq!(glue, format!("[... {} lines truncated in the middle ...]\n", 500 - kept));
        // The head dropped, indicator and all: still the original's count.
        let (head, glue, tail) = restack(20);
        assert_eq!(head, "");
        let kept = tail.lines().count() as u64;
        assert_eq!(glue, format!("[... {} lines truncated at the start ...]\n", 500 - kept));
        // Indicators that do not count the text around them are text.
        let wrong = view.replacen("[First 29 lines", "[First 28 lines", 1);
        assert_eq!(find_prior(&units(&wrong)).unwrap().indicator_end, 0);
    }

    proptest::proptest! {
        /// A tool-output view clamped again by lines, any strategy: one notice, and it with
        /// the lines shown accounts for every line of the original; an indicator kept counts
        /// the lines it stands above.
        #[test]
        fn a_tool_output_view_restacked_counts_the_original(
            n in 20usize..300,
            tool_lines in 4u64..120,
            max_lines in 2u64..100,
            pick in 0u8..3,
        ) {
            proptest::prop_assume!(n as u64 > tool_lines);
            let text: String = (1..=n).map(|i| format!("line {i}\n")).collect();
            let view = tool_output_view(&text, 1_000_000, tool_lines);
            let units = units(&view);
            let Some(prior) = find_prior(&units) else { return Ok(()) };
            let limits = Limits { max_chars: UNLIMITED, max_bytes: UNLIMITED, max_lines };
            if measure(&units).lines <= max_lines {
                return Ok(());
            }
            let strategy = [Strategy::Head, Strategy::Tail, Strategy::HeadTail { head_ratio: 0.4 }][pick as usize];
            let q = plan_restacked(&units, &prior, &limits, strategy, &mut Notice::Default, Snap::Line).unwrap();
            let head = String::from_utf16(&units[..q.head_end]).unwrap();
            let tail = String::from_utf16(&units[q.tail_start..]).unwrap();
            let shown = |s: &str| s.lines().filter(|l| l.starts_with("line ")).count() as u64;
            let notice = parse_notice(q.glue.trim_matches(['\n', ' '])).expect("the notice reads back");
            proptest::prop_assert!(notice.named.contains(Dims::LINES));
            proptest::prop_assert_eq!(notice.omitted.lines + shown(&head) + shown(&tail), n as u64, "{}", view);
            if let Some(first) = head.lines().next().filter(|l| l.starts_with("[First ")) {
                proptest::prop_assert_eq!(first, format!("[First {} lines of {}]", shown(&head), format_count(n as u64)));
            }
            proptest::prop_assert!(!tail.contains('['));
        }
    }

    #[test]
    fn library_templates_are_told_from_a_callers_own() {
        assert!(is_library_template(
            "[... {omitted} truncated at the {where}; full output saved to /d/x.txt (dropped: lines {fromLine}–{toLine}) ...]"
        ));
        assert!(is_library_template(
            "[... {omitted} of this tool output cut to fit the context window; full output saved to /d/x.txt ...]"
        ));
        assert!(is_library_template("[... {omitted} truncated from stdout ...]"));
        assert!(!is_library_template("[... {omitted} truncated {where} ...]"));
        assert!(!is_library_template("<cut {omittedBytes} bytes>"));
        assert!(!is_library_template("{nope}"));
    }
}
