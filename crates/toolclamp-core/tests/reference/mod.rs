//! A tiny, obviously-correct reference for the definitions the core keeps. Everything
//! here is quadratic or worse on purpose: it trades speed for being easy to check by eye.
#![allow(dead_code)]

use toolclamp_core::{Dims, Limits, Measure, NoticeFacts, Plan, Position};

pub const NL: u16 = b'\n' as u16;
pub const CR: u16 = b'\r' as u16;

pub fn is_high(c: u16) -> bool {
    (0xD800..=0xDBFF).contains(&c)
}

pub fn is_low(c: u16) -> bool {
    (0xDC00..=0xDFFF).contains(&c)
}

pub fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// UTF-8 bytes as `Buffer.byteLength` counts them: a pair is 4, any unpaired surrogate 3.
pub fn naive_bytes(units: &[u16]) -> u64 {
    let mut bytes = 0;
    let mut i = 0;
    while i < units.len() {
        let c = units[i];
        if is_high(c) && i + 1 < units.len() && is_low(units[i + 1]) {
            bytes += 4;
            i += 2;
            continue;
        }
        bytes += match c {
            0..=0x7F => 1,
            0x80..=0x7FF => 2,
            _ => 3,
        };
        i += 1;
    }
    bytes
}

/// 0 for empty, else the `\n`s plus one if the text does not end with `\n`.
pub fn naive_lines(units: &[u16]) -> u64 {
    if units.is_empty() {
        return 0;
    }
    let newlines = units.iter().filter(|&&c| c == NL).count() as u64;
    newlines + (*units.last().unwrap() != NL) as u64
}

pub fn naive_measure(units: &[u16]) -> Measure {
    Measure { chars: units.len() as u64, bytes: naive_bytes(units), lines: naive_lines(units) }
}

pub fn fits(m: Measure, limits: &Limits) -> bool {
    m.chars <= limits.max_chars && m.bytes <= limits.max_bytes && m.lines <= limits.max_lines
}

/// A cut at `i` separates neither a surrogate pair nor `\r\n`.
pub fn is_safe_cut(units: &[u16], i: usize) -> bool {
    if i == 0 || i >= units.len() {
        return true;
    }
    let (a, b) = (units[i - 1], units[i]);
    !((is_high(a) && is_low(b)) || (a == CR && b == NL))
}

/// The separator rule: the notice goes on a line of its own, except that one of the
/// library's (`[...` first) follows a head that ends inside a line on that line, after a
/// space.
pub fn glue(head: &[u16], notice: &str, tail: &[u16]) -> Vec<u16> {
    let mut g = Vec::new();
    if notice.is_empty() {
        return g;
    }
    if !head.is_empty() && *head.last().unwrap() != NL {
        g.push(if notice.starts_with("[...") { b' ' as u16 } else { NL });
    }
    g.extend(notice.encode_utf16());
    if !tail.is_empty() && !notice.ends_with('\n') {
        g.push(NL);
    }
    g
}

/// `head + glue + tail` for a given notice.
pub fn assemble(text: &[u16], head_end: usize, notice: &str, tail_start: usize) -> Vec<u16> {
    let (head, tail) = (&text[..head_end], &text[tail_start..]);
    let mut out = head.to_vec();
    out.extend(glue(head, notice, tail));
    out.extend_from_slice(tail);
    out
}

/// The result a plan describes: `text[..head_end] + glue + text[tail_start..]`.
pub fn apply(text: &[u16], plan: &Plan) -> Vec<u16> {
    let mut out = text[..plan.head_end].to_vec();
    out.extend(plan.glue.encode_utf16());
    out.extend_from_slice(&text[plan.tail_start..]);
    out
}

/// The notice inside a plan's glue (the glue minus the separator the head forced). A
/// trailing separator is kept: with a non-empty tail it re-creates the same glue either way.
pub fn notice_of(text: &[u16], plan: &Plan) -> String {
    let head = &text[..plan.head_end];
    let mut g = plan.glue.as_str();
    if !g.is_empty() && !head.is_empty() && *head.last().unwrap() != NL {
        let separator = if g.starts_with(" [...") { ' ' } else { '\n' };
        g = g.strip_prefix(separator).expect("an unterminated head is followed by a separator");
    }
    g.to_string()
}

/// What a result is charged against the limits: its measure, with a line more when an
/// inline notice shares the head's open line (it is planned as a notice on a line of its
/// own, the layout before inline notices).
pub fn charged(text: &[u16], head_end: usize, notice: &str, tail_start: usize) -> Measure {
    let mut m = naive_measure(&assemble(text, head_end, notice, tail_start));
    let head = &text[..head_end];
    if !notice.is_empty() && notice.starts_with("[...") && !head.is_empty() && *head.last().unwrap() != NL {
        m.lines += 1;
    }
    m
}

/// The longest head `text[..e]` (safe `e`) such that `head + glue` fits, for a fixed notice.
pub fn longest_head(text: &[u16], notice: &str, limits: &Limits) -> usize {
    (0..=text.len())
        .rev()
        .filter(|&e| is_safe_cut(text, e))
        .find(|&e| fits(charged(text, e, notice, text.len()), limits))
        .expect("an empty head with the chosen notice fits")
}

/// The longest tail `text[s..]` (safe `s`) such that `glue + tail` fits, for a fixed notice.
pub fn longest_tail(text: &[u16], notice: &str, limits: &Limits) -> usize {
    (0..=text.len())
        .filter(|&s| is_safe_cut(text, s))
        .find(|&s| fits(charged(text, 0, notice, s), limits))
        .expect("an empty tail with the chosen notice fits")
}

/// The next safe cut after `i` (there are never two unsafe cuts in a row).
pub fn next_safe(text: &[u16], i: usize) -> usize {
    (i + 1..=text.len()).find(|&j| is_safe_cut(text, j)).unwrap()
}

/// The previous safe cut before `i`.
pub fn prev_safe(text: &[u16], i: usize) -> usize {
    (0..i).rev().find(|&j| is_safe_cut(text, j)).unwrap()
}

/// What was dropped, counted the slow way. Lines: an input line is shown when any of its
/// units is kept; the omitted lines are the input lines not shown at all.
pub fn naive_omitted(text: &[u16], head_end: usize, tail_start: usize) -> Measure {
    // line_of[i]: the index of the line unit `i` belongs to (the `\n`s before it).
    let line_of: Vec<usize> = text
        .iter()
        .scan(0, |line, &c| {
            let this = *line;
            *line += (c == NL) as usize;
            Some(this)
        })
        .collect();
    let mut shown = std::collections::BTreeSet::new();
    for i in (0..head_end).chain(tail_start..text.len()) {
        shown.insert(line_of[i]);
    }
    Measure {
        chars: (tail_start - head_end) as u64,
        bytes: naive_bytes(&text[head_end..tail_start]),
        lines: naive_lines(text) - shown.len() as u64,
    }
}

/// The facts a notice is told about the cut `text[..head_end]`, `text[tail_start..]`,
/// counted the slow way. `from_line` and `to_line` are the lines (1-based) holding the
/// first and the last dropped unit.
pub fn naive_facts(
    text: &[u16],
    limits: &Limits,
    position: Position,
    head_end: usize,
    tail_start: usize,
) -> NoticeFacts {
    let total = naive_measure(text);
    let mut truncated_by = Dims::default();
    for (exceeded, dim) in [
        (total.chars > limits.max_chars, Dims::CHARS),
        (total.bytes > limits.max_bytes, Dims::BYTES),
        (total.lines > limits.max_lines, Dims::LINES),
    ] {
        if exceeded {
            truncated_by.insert(dim);
        }
    }
    let line_of = |i: usize| 1 + text[..i].iter().filter(|&&c| c == NL).count() as u64;
    let from_line = line_of(head_end);
    let to_line = if tail_start > head_end { line_of(tail_start - 1) } else { from_line };
    NoticeFacts {
        position,
        truncated_by,
        omitted: naive_omitted(text, head_end, tail_start),
        total,
        head_end,
        tail_start,
        from_line,
        to_line,
    }
}

/// `12345` -> `12,345`, written independently of the core's formatter.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut groups: Vec<&str> = Vec::new();
    let mut end = s.len();
    while end > 3 {
        groups.push(&s[end - 3..end]);
        end -= 3;
    }
    groups.push(&s[..end]);
    groups.reverse();
    groups.join(",")
}

/// The default notice for a plan, written from its own `omitted` and `truncated_by`.
pub fn expected_default_notice(plan: &Plan, where_: &str) -> String {
    let unit = |n: u64, name: &str| format!("{} {}{}", thousands(n), name, if n == 1 { "" } else { "s" });
    let mut parts = Vec::new();
    if plan.truncated_by.0 & 4 != 0 {
        parts.push(unit(plan.omitted.lines, "line"));
    }
    if plan.truncated_by.0 & 1 != 0 {
        parts.push(unit(plan.omitted.chars, "char"));
    }
    if plan.truncated_by.0 & 2 != 0 {
        parts.push(unit(plan.omitted.bytes, "byte"));
    }
    format!("[... {} truncated {} ...]", parts.join(", "), where_)
}
