//! The notice that replaces dropped text: what was dropped, where, and how much.

use crate::measure::Measure;

/// Which end of the text lost content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// The start was dropped (the tail was kept).
    Start,
    /// The end was dropped (the head was kept).
    End,
    /// Both ends were kept, the middle dropped.
    Middle,
}

impl Position {
    pub fn as_str(self) -> &'static str {
        match self {
            Position::Start => "start",
            Position::End => "end",
            Position::Middle => "middle",
        }
    }
}

/// A set of budget dimensions, as a bit mask that crosses into JS unchanged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dims(pub u8);

impl Dims {
    pub const CHARS: Dims = Dims(1);
    pub const BYTES: Dims = Dims(2);
    pub const LINES: Dims = Dims(4);

    pub fn contains(self, d: Dims) -> bool {
        self.0 & d.0 != 0
    }

    pub fn insert(&mut self, d: Dims) {
        self.0 |= d.0;
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// What a notice may say. Counts are in UTF-16 chars, UTF-8 bytes and lines of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoticeFacts {
    pub position: Position,
    /// The limits the input exceeds.
    pub truncated_by: Dims,
    pub omitted: Measure,
    pub total: Measure,
    /// Position where the dropped text starts (the continuation handle): a UTF-16 offset,
    /// or a byte offset for [`crate::Utf8`].
    pub head_end: usize,
    /// Position where the kept tail starts.
    pub tail_start: usize,
    /// First and last line (1-based) of the input that the dropped text touches: the line
    /// holding position `head_end` and the one holding `tail_start - 1`. They cost a
    /// newline count, so they are 0 unless the notice uses them (see [`Notice::uses_lines`]).
    pub from_line: u64,
    pub to_line: u64,
}

/// How the caller wants the notice written.
pub enum Notice<'a> {
    /// `[... 370 lines, 48,113 bytes truncated at the end ...]`
    Default,
    /// A template with `{placeholders}` (see [`PLACEHOLDERS`]); `{{` and `}}` are literal braces.
    Template(&'a str),
    /// The caller renders the notice from the facts.
    Custom(&'a mut dyn FnMut(&NoticeFacts) -> String),
}

impl Notice<'_> {
    /// Whether rendering reads [`NoticeFacts::from_line`] and [`NoticeFacts::to_line`]: a
    /// caller's function may, a template does when it names them, the default never does.
    pub fn uses_lines(&self) -> bool {
        match self {
            Notice::Default => false,
            Notice::Template(t) => template_uses_lines(t),
            Notice::Custom(_) => true,
        }
    }

    /// Whether a template names tokens (the [`TOKEN_PLACEHOLDERS`]): a caller that counts
    /// them writes them out ([`with_token_totals`]).
    pub fn uses_tokens(&self) -> bool {
        matches!(self, Notice::Template(t) if template_names_any(t, &TOKEN_PLACEHOLDERS))
    }

    /// Whether the caller's notice may change length with the cut, so that the planner
    /// searches for the longest cut that fits with its own notice (see the maximality
    /// contract in `src/plan/mod.rs`): a function may, a template does when it names a count of the dropped
    /// text, an offset or a line number. The default notice is left out: it is planned
    /// exactly without that search.
    pub fn depends_on_cut(&self) -> bool {
        match self {
            Notice::Default => false,
            Notice::Template(t) => template_names_any(t, &CUT_PLACEHOLDERS),
            Notice::Custom(_) => true,
        }
    }
}

/// The placeholders that need line numbers.
const LINE_PLACEHOLDERS: [&str; 2] = ["fromLine", "toLine"];

/// The placeholders whose value depends on where the text is cut.
const CUT_PLACEHOLDERS: [&str; 9] = [
    "omitted",
    "omittedChars",
    "omittedBytes",
    "omittedLines",
    "headEnd",
    "tailStart",
    "fromLine",
    "toLine",
    "omittedTokens",
];

fn template_uses_lines(template: &str) -> bool {
    template_names_any(template, &LINE_PLACEHOLDERS)
}

fn template_names_any(template: &str, names: &[&str]) -> bool {
    let mut uses = false;
    // A bad template renders nothing, so whether it names them does not matter.
    let _ = walk_template(template, &mut |piece| {
        uses |= matches!(piece, Piece::Placeholder(name) if names.contains(&name));
    });
    uses
}

/// The numbers of a cut a notice can name, as a template names them: a template may use each
/// as a placeholder, and a notice function reads each by this name (see [`NoticeFacts`]).
pub const CUT_NUMBERS: [&str; 10] = [
    "omittedChars",
    "omittedBytes",
    "omittedLines",
    "totalChars",
    "totalBytes",
    "totalLines",
    "headEnd",
    "tailStart",
    "fromLine",
    "toLine",
];

/// The placeholders that name tokens: `{omittedTokens}`, the input's tokens less those of
/// the text kept (each part counted on its own), and `{totalTokens}`, the input's. Exact
/// where the caller counts tokens with a tokenizer ([`with_token_totals`]); elsewhere the
/// estimate of the bytes ([`crate::estimate_tokens`]).
pub const TOKEN_PLACEHOLDERS: [&str; 2] = ["omittedTokens", "totalTokens"];

/// The placeholders a template may use: `{omitted}` (the counts in words), `{where}`, each
/// of [`CUT_NUMBERS`], and the [`TOKEN_PLACEHOLDERS`].
pub const PLACEHOLDERS: &[&str] = &{
    let cut = prefixed(["omitted", "where"], CUT_NUMBERS);
    let mut out = [""; 14];
    let mut i = 0;
    while i < cut.len() {
        out[i] = cut[i];
        i += 1;
    }
    out[12] = TOKEN_PLACEHOLDERS[0];
    out[13] = TOKEN_PLACEHOLDERS[1];
    out
};

/// `first` followed by `rest`: lists built from [`CUT_NUMBERS`] keep its one order.
pub const fn prefixed(first: [&'static str; 2], rest: [&'static str; 10]) -> [&'static str; 12] {
    let mut out = [""; 12];
    out[0] = first[0];
    out[1] = first[1];
    let mut i = 0;
    while i < rest.len() {
        out[i + 2] = rest[i];
        i += 1;
    }
    out
}

/// The notice templates the library writes, each defined here once: the JS library reads
/// them through the binding (`noticeTemplates()`, by the names of [`templates::ALL`]), and
/// [`plan_restacked`](crate::plan_restacked) reads every one of them back when a clamp is stacked on another.
///
/// Two placeholders are filled in by the JS library before the core sees a template:
/// `{spillPath}` (the spill file's path, or `(not saved)`) and `{stream}` (`stdout` or
/// `stderr`); the others are [`PLACEHOLDERS`]. Without a template, a clamp writes
/// [`default_notice`]: `[... 370 lines, 48,113 bytes truncated at the end ...]`.
pub mod templates {
    /// A clamp's notice with a spill file (`truncateText`, `hardTruncateToolPayload`, a
    /// capture, `truncateToolOutput`): the lines are those of the spill file.
    pub const SPILL: &str =
        "[... {omitted} truncated at the {where}; full output saved to {spillPath} (dropped: lines {fromLine}\u{2013}{toLine}) ...]";

    /// One stream of a command's output (`formatExecOutput`, `runCommand`).
    pub const STREAM: &str = "[... {omitted} truncated from {stream} ...]";

    /// One stream of a command's output with a spill file of that stream.
    pub const STREAM_SPILL: &str =
        "[... {omitted} truncated from {stream}; full {stream} saved to {spillPath} (dropped: lines {fromLine}\u{2013}{toLine}) ...]";

    /// A capture whose input was cut short (the CLI on Ctrl-C): its counts are of what came.
    pub const INTERRUPTED: &str = "[... {omitted} truncated at the {where} so far (input interrupted) ...]";

    /// [`INTERRUPTED`] for a capture that keeps both ends.
    pub const INTERRUPTED_MIDDLE: &str = "[... {omitted} truncated in the middle so far (input interrupted) ...]";

    /// A tool result cut to fit a conversation's context window, with its spill file
    /// (`clampToolResultsInMessages`).
    pub const CONTEXT_CUT: &str =
        "[... {omitted} of this tool output cut to fit the context window; full output saved to {spillPath} ...]";

    /// Every template by the name JS reads it under.
    pub const ALL: &[(&str, &str)] = &[
        ("spill", SPILL),
        ("stream", STREAM),
        ("streamSpill", STREAM_SPILL),
        ("interrupted", INTERRUPTED),
        ("interruptedMiddle", INTERRUPTED_MIDDLE),
        ("contextCut", CONTEXT_CUT),
    ];
}

/// Shorter notices used when the limits leave no room for the caller's one, longest first.
/// The last rung is no notice at all.
pub const FALLBACK_NOTICES: &[&str] = &["[... truncated ...]", "[...]", ""];

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateError {
    UnknownPlaceholder(String),
    UnclosedBrace,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateError::UnknownPlaceholder(name) => write!(
                f,
                "unknown placeholder {{{name}}} (known: {})",
                PLACEHOLDERS.iter().map(|p| format!("{{{p}}}")).collect::<Vec<_>>().join(", ")
            ),
            TemplateError::UnclosedBrace => {
                write!(f, "unclosed '{{' (write '{{{{' for a literal brace)")
            }
        }
    }
}

impl std::error::Error for TemplateError {}

/// `12345` → `12,345`.
pub fn format_count(n: u64) -> String {
    let mut out = String::with_capacity(26);
    push_count(&mut out, n);
    out
}

/// Appends `n` with thousands separators, without allocating.
pub fn push_count(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut len = 0;
    let mut rest = n;
    loop {
        digits[len] = b'0' + (rest % 10) as u8;
        len += 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for i in (0..len).rev() {
        out.push(digits[i] as char);
        if i > 0 && i % 3 == 0 {
            out.push(',');
        }
    }
}

fn push_count_with_unit(out: &mut String, n: u64, unit: &str) {
    push_count(out, n);
    out.push(' ');
    out.push_str(unit);
    if n != 1 {
        out.push('s');
    }
}

/// `370 lines, 48,113 bytes`: the omitted amount in each unit that bound, lines first.
pub fn omitted_phrase(facts: &NoticeFacts) -> String {
    let mut out = String::with_capacity(48);
    push_omitted_phrase(&mut out, facts);
    out
}

fn push_omitted_phrase(out: &mut String, facts: &NoticeFacts) {
    let parts = [
        (Dims::LINES, facts.omitted.lines, "line"),
        (Dims::CHARS, facts.omitted.chars, "char"),
        (Dims::BYTES, facts.omitted.bytes, "byte"),
    ];
    let mut first = true;
    for (dim, n, unit) in parts {
        if facts.truncated_by.contains(dim) {
            if !first {
                out.push_str(", ");
            }
            first = false;
            push_count_with_unit(out, n, unit);
        }
    }
}

fn where_phrase(p: Position) -> &'static str {
    match p {
        Position::Start => "at the start",
        Position::End => "at the end",
        Position::Middle => "in the middle",
    }
}

/// `[... 370 lines, 48,113 bytes truncated at the end ...]`
pub fn default_notice(facts: &NoticeFacts) -> String {
    let mut out = String::with_capacity(64);
    out.push_str("[... ");
    push_omitted_phrase(&mut out, facts);
    out.push_str(" truncated ");
    out.push_str(where_phrase(facts.position));
    out.push_str(" ...]");
    out
}

/// Checks a template without rendering it.
pub fn check_template(template: &str) -> Result<(), TemplateError> {
    walk_template(template, &mut |_| {})
}

pub fn render_template(template: &str, facts: &NoticeFacts) -> Result<String, TemplateError> {
    let mut out = String::with_capacity(template.len() + 32);
    walk_template(template, &mut |piece| match piece {
        Piece::Literal(s) => out.push_str(s),
        Piece::Placeholder(name) => out.push_str(&placeholder_value(name, facts)),
    })?;
    Ok(out)
}

fn placeholder_value(name: &str, facts: &NoticeFacts) -> String {
    match name {
        "omitted" => omitted_phrase(facts),
        "where" => facts.position.as_str().to_string(),
        "omittedChars" => format_count(facts.omitted.chars),
        "omittedBytes" => format_count(facts.omitted.bytes),
        "omittedLines" => format_count(facts.omitted.lines),
        "totalChars" => format_count(facts.total.chars),
        "totalBytes" => format_count(facts.total.bytes),
        "totalLines" => format_count(facts.total.lines),
        "headEnd" => facts.head_end.to_string(),
        "tailStart" => facts.tail_start.to_string(),
        "fromLine" => facts.from_line.to_string(),
        "toLine" => facts.to_line.to_string(),
        // Estimated: where tokens are counted, with_token_totals has written them out.
        "omittedTokens" => format_count(crate::estimate_tokens(facts.omitted.bytes)),
        "totalTokens" => format_count(crate::estimate_tokens(facts.total.bytes)),
        _ => unreachable!("walk_template only yields known placeholders"),
    }
}

/// A template whose token placeholders are counted exactly, as the planner takes it:
/// `{totalTokens}` written out as `total`, and `{omittedTokens}` as a run of the stand-in
/// char as wide as `total` is written, which no omitted count (at most the total) is wider
/// than. The planner sizes the notice with the run; once the cut is known,
/// [`tell_omitted_tokens`] writes its count in place of it. `None` when the template names
/// neither, or holds every char that could stand in (`\u{1}` to `\u{8}`).
pub fn with_token_totals(template: &str, total: u64) -> Result<Option<(String, char)>, TemplateError> {
    if !template_names_any(template, &TOKEN_PLACEHOLDERS) {
        check_template(template)?;
        return Ok(None);
    }
    let Some(stand_in) = ('\u{1}'..='\u{8}').find(|&c| !template.contains(c)) else {
        return Ok(None);
    };
    let total = format_count(total);
    let mut out = String::with_capacity(template.len() + 16);
    walk_template(template, &mut |piece| match piece {
        Piece::Literal(s) => {
            for c in s.chars() {
                if c == '{' || c == '}' {
                    out.push(c);
                }
                out.push(c);
            }
        }
        Piece::Placeholder("totalTokens") => out.push_str(&total),
        Piece::Placeholder("omittedTokens") => out.extend(std::iter::repeat_n(stand_in, total.len())),
        Piece::Placeholder(name) => {
            out.push('{');
            out.push_str(name);
            out.push('}');
        }
    })?;
    Ok(Some((out, stand_in)))
}

/// A notice planned from [`with_token_totals`] with the text's `total` tokens, with
/// `omitted` written over each run of `stand_in` (as wide as `total` is written).
pub fn tell_omitted_tokens(notice: &str, stand_in: char, total: u64, omitted: u64) -> String {
    let width = format_count(total).len();
    let count = format_count(omitted);
    let mut out = String::with_capacity(notice.len());
    let mut run = 0;
    for c in notice.chars().map(Some).chain([None]) {
        if c == Some(stand_in) {
            run += 1;
            continue;
        }
        // A run of `k` stand-ins is `k / width` counts (templates may put two side by side).
        for _ in 0..run / width.max(1) {
            out.push_str(&count);
        }
        run = 0;
        out.extend(c);
    }
    out
}

enum Piece<'t> {
    Literal(&'t str),
    Placeholder(&'t str),
}

/// Splits a template into literal runs and known placeholder names, in order.
fn walk_template<'t>(template: &'t str, visit: &mut dyn FnMut(Piece<'t>)) -> Result<(), TemplateError> {
    // Validate first so a bad template renders nothing.
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        pieces.push(Piece::Literal(&rest[..i]));
        let brace = rest.as_bytes()[i];
        let after = &rest[i + 1..];
        if after.as_bytes().first() == Some(&brace) {
            // `{{` and `}}` are literal braces.
            pieces.push(Piece::Literal(&rest[i..i + 1]));
            rest = &after[1..];
        } else if brace == b'}' {
            // A lone '}' is literal: only '{' opens a placeholder.
            pieces.push(Piece::Literal("}"));
            rest = after;
        } else {
            let close = after.find('}').ok_or(TemplateError::UnclosedBrace)?;
            let name = &after[..close];
            if !PLACEHOLDERS.contains(&name) {
                return Err(TemplateError::UnknownPlaceholder(name.to_string()));
            }
            pieces.push(Piece::Placeholder(name));
            rest = &after[close + 1..];
        }
    }
    pieces.push(Piece::Literal(rest));
    pieces.into_iter().for_each(visit);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> NoticeFacts {
        NoticeFacts {
            position: Position::End,
            truncated_by: Dims(Dims::LINES.0 | Dims::BYTES.0),
            omitted: Measure { chars: 48_000, bytes: 48_113, lines: 370 },
            total: Measure { chars: 100_000, bytes: 99_999, lines: 2370 },
            head_end: 51_200,
            tail_start: 100_000,
            from_line: 1_201,
            to_line: 2_370,
        }
    }

    #[test]
    fn token_placeholders_are_estimated_unless_counted() {
        let f = facts();
        assert_eq!(render_template("{omittedTokens} of {totalTokens}", &f).unwrap(), "16,038 of 33,333");
        assert_eq!(with_token_totals("[{omitted}]", 5).unwrap(), None);
        assert!(with_token_totals("{nope}", 5).is_err());
        let (planned, c) =
            with_token_totals("[{{{omittedTokens}}} of {totalTokens} tokens, {omitted}]", 123_456).unwrap().unwrap();
        assert_eq!(c, '\u{1}');
        assert_eq!(planned, "[{{\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}}} of 123,456 tokens, {omitted}]");
        let rendered = render_template(&planned, &f).unwrap();
        assert_eq!(rendered, "[{\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}\u{1}} of 123,456 tokens, 370 lines, 48,113 bytes]");
        assert_eq!(
            tell_omitted_tokens(&rendered, c, 123_456, 98_765),
            "[{98,765} of 123,456 tokens, 370 lines, 48,113 bytes]"
        );
        // Two side by side, and a stand-in the template already holds.
        let (planned, c) = with_token_totals("\u{1}{omittedTokens}{omittedTokens}", 99).unwrap().unwrap();
        assert_eq!(c, '\u{2}');
        assert_eq!(tell_omitted_tokens(&render_template(&planned, &f).unwrap(), c, 99, 7), "\u{1}77");
    }

    #[test]
    fn counts_get_thousands_separators() {
        assert_eq!(format_count(0), "0");
        assert_eq!(format_count(999), "999");
        assert_eq!(format_count(1000), "1,000");
        assert_eq!(format_count(12_345), "12,345");
        assert_eq!(format_count(1_234_567), "1,234,567");
    }

    #[test]
    fn default_notice_names_units_and_position() {
        assert_eq!(default_notice(&facts()), "[... 370 lines, 48,113 bytes truncated at the end ...]");
        let one = NoticeFacts {
            truncated_by: Dims::CHARS,
            omitted: Measure { chars: 1, ..Measure::default() },
            position: Position::Middle,
            ..facts()
        };
        assert_eq!(default_notice(&one), "[... 1 char truncated in the middle ...]");
    }

    #[test]
    fn templates_render_and_reject_unknown_names() {
        let f = facts();
        assert_eq!(
            render_template("{omittedLines} of {totalLines} lines cut at {where}; next {headEnd} {{x}}", &f).unwrap(),
            "370 of 2,370 lines cut at end; next 51200 {x}"
        );
        assert_eq!(render_template("({omitted})", &f).unwrap(), "(370 lines, 48,113 bytes)");
        assert_eq!(render_template("a } b", &f).unwrap(), "a } b");
        assert_eq!(check_template("{nope}"), Err(TemplateError::UnknownPlaceholder("nope".into())));
        assert_eq!(check_template("{omitted"), Err(TemplateError::UnclosedBrace));
    }

    #[test]
    fn line_numbers_render_plain_and_only_when_named() {
        assert_eq!(render_template("lines {fromLine}–{toLine}", &facts()).unwrap(), "lines 1201–2370");
        assert!(Notice::Template("{toLine}").uses_lines());
        assert!(!Notice::Template("x {fromLine").uses_lines());
        assert!(!Notice::Template("{omitted} {{fromLine}}").uses_lines());
        assert!(!Notice::Default.uses_lines());
        let mut f = |_: &NoticeFacts| String::new();
        assert!(Notice::Custom(&mut f).uses_lines());
    }

    #[test]
    fn templates_depend_on_the_cut_when_they_name_what_it_changes() {
        for t in ["{omitted}", "{omittedBytes} of {totalBytes}", "<{headEnd}|{tailStart}>", "{toLine}"] {
            assert!(Notice::Template(t).depends_on_cut(), "{t}");
        }
        for t in ["", "[cut]", "{where}: {totalChars} chars, {totalLines} lines", "{{headEnd}}", "{omitted"] {
            assert!(!Notice::Template(t).depends_on_cut(), "{t}");
        }
        assert!(!Notice::Default.depends_on_cut());
        let mut f = |_: &NoticeFacts| String::new();
        assert!(Notice::Custom(&mut f).depends_on_cut());
    }
}
