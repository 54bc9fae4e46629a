//! `strategy: 'auto'`: keep the head and the tail when the end of the text looks like it
//! matters (an error, a stack trace, a signal, an exit status, a warning, a test summary),
//! the head otherwise.
//!
//! The rule: the last [`AUTO_WINDOW`] units of the text are read, ASCII letters folded to
//! lower case (anything else not ASCII read as a space); if one of [`AUTO_SIGNALS`] occurs
//! there, not glued to a name by `-`, `_`, `/` or `.` before it (`gpg-error.h`,
//! `console.error`), or one of [`AUTO_WORD_SIGNALS`] at the start of a word, the strategy is
//! `HeadTail` with the caller's head ratio, else `Head`. Reading a bounded window keeps it
//! O(1) in the length of the text, and one automaton reads it once whatever the number of
//! signals.
//!
//! The signals were chosen on real failing output (compilers, test runners, package managers,
//! git, coreutils, shells, Node and Python, signals): each names a failure in the words the
//! programs print, and none is a common word of successful output (listings, build logs,
//! JSON). `__test__/failures.test.mjs` measures both on output made by the programs.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use crate::plan::Strategy;
use crate::source::Source;

/// How many units at the end of the text are read.
pub const AUTO_WINDOW: usize = 2048;

/// What marks an end worth keeping, matched without regard to ASCII case, also inside a word
/// (`error` is in `TypeError`, `exception` in `NullPointerException`), but not right after
/// `-`, `_`, `/` or `.`: there it is part of a file or identifier name (`provider-errors.js`,
/// `on_error`, `console.error`, `non-fatal`).
pub const AUTO_SIGNALS: &[&str] = &[
    // Errors, failures, stack traces, exit statuses and summaries.
    "error",
    "fail",
    "traceback",
    "panicked",
    "exception",
    "fatal",
    "exit code",
    "exit status",
    "exited with",
    "passed",
    "total",
    "summary",
    "err!",
    "aborted",
    // `WARNING:`, `warning: unused variable`, `DeprecationWarning` (not a log's `WARN` level).
    "warning",
    // What the C library and shells say (strerror, `sh`, `bash`).
    "not found",
    "no such",
    "denied",
    "not permitted",
    "is a directory",
    "not a directory",
    "file exists",
    "not empty",
    "timed out",
    "refused",
    "connection reset",
    "broken pipe",
    "out of memory",
    "no space left",
    "unbound variable",
    "segmentation fault",
    "core dumped",
    "illegal instruction",
    "abort trap",
    // What coreutils (GNU, BSD, BusyBox), package managers, make, git and Windows shells say.
    "cannot access",
    "cannot stat",
    "cannot remove",
    "cannot move",
    "cannot create",
    "cannot open",
    "cannot find",
    "can't open",
    "can't cd",
    "can't locate",
    "unable to",
    "could not",
    "not installed",
    "unknown command",
    "unknown option",
    "invalid option",
    "illegal option",
    "unrecognized option",
    "invalid argument",
    "invalid number",
    "is not a git command",
    "not recognized",
    "no rule to make",
];

/// What marks an end worth keeping at the start of a word only: not right after an ASCII
/// letter or digit, `-`, `_`, `/` or `.`. So `Killed` and `read ECONNRESET` count, and
/// `unskilled`, `null-terminated` and `MachinePipeliner` do not.
pub const AUTO_WORD_SIGNALS: &[&str] = &[
    "killed",
    "terminated",
    // errno names, as Node and libuv print them.
    "econnreset",
    "econnrefused",
    "econnaborted",
    "etimedout",
    "enoent",
    "eacces",
    "eperm",
    "epipe",
    "eaddrinuse",
    "enotfound",
    "enospc",
    "eexist",
    "enotdir",
    "eisdir",
    "enotempty",
    "ehostunreach",
    "enetunreach",
    "eai_again",
];

/// Both lists in one automaton: pattern ids below `AUTO_SIGNALS.len()` match anywhere.
fn automaton() -> &'static AhoCorasick {
    static AUTOMATON: OnceLock<AhoCorasick> = OnceLock::new();
    AUTOMATON.get_or_init(|| {
        // Standard semantics, so every occurrence is reported (overlapping): a word signal
        // rejected inside a word must not hide a signal that overlaps it. The window is
        // folded to lower case before it is read.
        AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(AUTO_SIGNALS.iter().chain(AUTO_WORD_SIGNALS))
            .expect("the signals build an automaton")
    })
}

/// Whether a signal right after `before` (`None`: at the start of the window) is glued to a
/// name before it.
fn glued(before: Option<u8>) -> bool {
    matches!(before, Some(b'-' | b'_' | b'/' | b'.'))
}

/// Whether a word signal may start right after `before`: not glued, not inside a word.
fn starts_word(before: Option<u8>) -> bool {
    !glued(before) && !matches!(before, Some(b) if b.is_ascii_alphanumeric())
}

/// The end of `src` as [`auto_strategy`] reads it: its last [`AUTO_WINDOW`] units, ASCII
/// folded to lower case, any other unit a space.
fn folded_end<S: Source + ?Sized>(src: &S) -> Vec<u8> {
    let n = src.len();
    (n.saturating_sub(AUTO_WINDOW)..n)
        .map(|i| match src.code(i) {
            c if c < 0x80 => (c as u8).to_ascii_lowercase(),
            _ => b' ',
        })
        .collect()
}

/// Whether `end` (folded: see [`folded_end`]) holds a signal.
fn signals(end: &[u8]) -> bool {
    automaton().find_overlapping_iter(end).any(|m| {
        let before = m.start().checked_sub(1).map(|i| end[i]);
        if m.pattern().as_usize() < AUTO_SIGNALS.len() {
            !glued(before)
        } else {
            starts_word(before)
        }
    })
}

/// `HeadTail { head_ratio }` when the end of `src` holds a signal ([`AUTO_SIGNALS`] not glued
/// to a name, [`AUTO_WORD_SIGNALS`] at a word start), else `Head`.
pub fn auto_strategy<S: Source + ?Sized>(src: &S, head_ratio: f64) -> Strategy {
    if signals(&folded_end(src)) {
        Strategy::HeadTail { head_ratio }
    } else {
        Strategy::Head
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Units;
    use proptest::strategy::Strategy as _;
    use proptest::{prop_assert_eq, prop_oneof, proptest};

    fn auto(text: &str) -> Strategy {
        let units: Vec<u16> = text.encode_utf16().collect();
        auto_strategy(&Units::new(&units), 0.3)
    }

    const BOTH: Strategy = Strategy::HeadTail { head_ratio: 0.3 };

    #[test]
    fn an_error_or_summary_at_the_end_keeps_both_ends() {
        for end in [
            "Error: ENOENT",
            "FAIL src/a.test.ts",
            "Traceback (most recent call last):",
            "thread 'main' panicked at",
            "npm ERR! code 1",
            "Tests: 3 failed, 97 passed, 100 total",
            "Process exited with code 1",
            "EXIT STATUS 2",
        ] {
            assert_eq!(auto(&format!("{}{end}\n", "compiling module\n".repeat(5000))), BOTH, "{end}");
        }
    }

    #[test]
    fn failure_endings_of_coreutils_shells_and_signals_keep_both_ends() {
        // As the programs print them (LC_ALL=C), each the last line of a run.
        for end in [
            "ls: cannot access '/nonexistent': No such file or directory",
            "sh: 2: ./deploy.sh: Permission denied",
            "bash: line 1: nosuchcmd: command not found",
            "sh: 1: nosuchcmd: not found",
            "Segmentation fault (core dumped)",
            "bash: line 1: 22943 Segmentation fault      ./a.out",
            "Killed",
            "Terminated",
            "WARNING: Package(s) not found: left-pad",
            "WARNING:root:disk almost full",
            "src/main.c:3:7: warning: unused variable 'x' [-Wunused-variable]",
            "app.py:3: DeprecationWarning: datetime.utcnow() is deprecated",
            "rm: cannot remove 'adir': Is a directory",
            "mkdir: cannot create directory 'bdir': File exists",
            "sort: unrecognized option '--no-such-option'",
            "head: invalid number of lines: 'many'",
            "sh: 2: cd: can't cd to /nonexistent",
            "bash: line 1: NO_SUCH_VAR: unbound variable",
            "make: *** No rule to make target 'all'.  Stop.",
            "git: 'sttus' is not a git command. See 'git --help'.",
            "Unknown command: \"nosuchcmd\"",
            "E: Unable to locate package left-pad",
            "dpkg-query: package 'left-pad' is not installed",
            "unzip:  cannot find or open missing.zip, missing.zip.zip or missing.zip.ZIP.",
            "root cause: ECONNRESET",
            "  code: 'EADDRINUSE',",
            // macOS and BSD.
            "Abort trap: 6",
            "Killed: 9",
            "ls: illegal option -- z",
            // Windows.
            "'nosuchcmd' is not recognized as an internal or external command,",
            "Access is denied.",
        ] {
            assert_eq!(auto(&format!("{}{end}\n", "drwxr-xr-x 2 root root 4096 src\n".repeat(3000))), BOTH, "{end}");
        }
    }

    #[test]
    fn a_plain_end_keeps_the_head_and_only_the_end_is_read() {
        assert_eq!(auto(&"a line of a file\n".repeat(5000)), Strategy::Head);
        // An error far from the end does not count.
        let text = format!("Error at the start\n{}", "ok\n".repeat(2000));
        assert_eq!(auto(&text), Strategy::Head);
        assert_eq!(auto(""), Strategy::Head);
    }

    #[test]
    fn a_word_signal_inside_a_word_does_not_count() {
        for end in [
            "/* a null-terminated string */",
            "void initializeMachinePipelinerPass();",
            "createPermille(status)",
            "unskilled",
            // A log's WARN level is no warning signal.
            "2024-05-01T12:00:00.000Z WARN [worker-0] GET /api/orders 200",
        ] {
            assert_eq!(auto(&format!("{}{end}\n", "a line of a file\n".repeat(500))), Strategy::Head, "{end}");
        }
        // ... but one that starts a word does, after any other character or at the start.
        for end in ["(killed)", "code: 'EPIPE'", "killed"] {
            assert_eq!(auto(end), BOTH, "{end}");
        }
        // A rejected word signal does not hide a signal overlapping it.
        assert_eq!(auto("x-killednot found"), BOTH);
    }

    #[test]
    fn a_signal_glued_to_a_name_does_not_count() {
        for end in [
            "/usr/include/x86_64-linux-gnu/gpg-error.h",
            "lib/conversation/provider-errors.js",
            "    console.error(message)",
            "    console.warning(message)",
            "def on_error(self):",
            "a non-fatal condition",
        ] {
            assert_eq!(auto(&format!("{}{end}\n", "a line of a file\n".repeat(500))), Strategy::Head, "{end}");
        }
        // Inside a word or after anything else, it counts.
        for end in ["TypeError: x is not a function", "java.lang.IllegalStateException", "[error] boom", "level=error"]
        {
            assert_eq!(auto(end), BOTH, "{end}");
        }
    }

    #[test]
    fn case_and_non_ascii_around_a_signal() {
        assert_eq!(auto("SEGMENTATION FAULT"), BOTH);
        assert_eq!(auto("été: Permission Denied"), BOTH);
        // Non-ASCII reads as a space, which starts a word.
        assert_eq!(auto("✖killed"), BOTH);
        assert_eq!(auto("✖ ok"), Strategy::Head);
    }

    /// The rule written out plainly: fold the last AUTO_WINDOW units, look for each signal.
    fn reference(text: &str) -> Strategy {
        let units: Vec<u16> = text.encode_utf16().collect();
        let end: Vec<u8> = units[units.len().saturating_sub(AUTO_WINDOW)..]
            .iter()
            .map(|&c| if c < 0x80 { (c as u8).to_ascii_lowercase() } else { b' ' })
            .collect();
        let at = |signal: &str| -> Vec<usize> {
            (0..end.len()).filter(|&i| end[i..].starts_with(signal.as_bytes())).collect()
        };
        let glued = |i: usize| i > 0 && b"-_/.".contains(&end[i - 1]);
        let found = AUTO_SIGNALS.iter().any(|s| at(s).into_iter().any(|i| !glued(i)))
            || AUTO_WORD_SIGNALS
                .iter()
                .any(|s| at(s).into_iter().any(|i| !glued(i) && (i == 0 || !end[i - 1].is_ascii_alphanumeric())));
        if found {
            BOTH
        } else {
            Strategy::Head
        }
    }

    /// Text made of pieces of signals, words around them and separators, so signals occur,
    /// overlap, straddle the window's start and sit inside words.
    fn texts() -> impl proptest::strategy::Strategy<Value = String> {
        let piece = prop_oneof![
            proptest::sample::select(AUTO_SIGNALS.to_vec()).prop_map(str::to_string),
            proptest::sample::select(AUTO_WORD_SIGNALS.to_vec()).prop_map(str::to_string),
            proptest::sample::select(AUTO_WORD_SIGNALS.to_vec()).prop_map(str::to_uppercase),
            proptest::sample::select(vec!["a", "x", "-", ".", "_", "/", " ", "\n", "9", "é", "✖", "'", "ok"])
                .prop_map(str::to_string),
            "[a-z .\\-]{0,12}",
            (0usize..3000).prop_map(|n| "q".repeat(n)),
        ];
        proptest::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn auto_agrees_with_the_plain_rule(text in texts()) {
            prop_assert_eq!(auto(&text), reference(&text));
        }
    }
}
