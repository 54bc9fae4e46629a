//! `strategy: 'auto'`: keep the head and the tail when the end of the text looks like it
//! matters (an error, a stack trace, an exit status, a test summary), the head otherwise.
//!
//! The rule: the last [`AUTO_WINDOW`] units of the text are read, ASCII letters folded to
//! lower case, and if any of [`AUTO_SIGNALS`] occurs there the strategy is `HeadTail` with
//! the caller's head ratio, else `Head`. Reading a bounded window keeps it O(1) in the
//! length of the text.

use crate::plan::Strategy;
use crate::source::Source;

/// How many units at the end of the text are read.
pub const AUTO_WINDOW: usize = 2048;

/// What marks an end worth keeping, matched without regard to ASCII case.
pub const AUTO_SIGNALS: &[&str] = &[
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
];

/// `HeadTail { head_ratio }` when the end of `src` holds one of [`AUTO_SIGNALS`], else `Head`.
pub fn auto_strategy<S: Source + ?Sized>(src: &S, head_ratio: f64) -> Strategy {
    let n = src.len();
    let from = n.saturating_sub(AUTO_WINDOW);
    let end: Vec<u8> = (from..n)
        .map(|i| match src.code(i) {
            c if c < 0x80 => (c as u8).to_ascii_lowercase(),
            _ => b' ',
        })
        .collect();
    let found = AUTO_SIGNALS.iter().any(|signal| end.windows(signal.len()).any(|w| w == signal.as_bytes()));
    if found {
        Strategy::HeadTail { head_ratio }
    } else {
        Strategy::Head
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Units;

    fn auto(text: &str) -> Strategy {
        let units: Vec<u16> = text.encode_utf16().collect();
        auto_strategy(&Units::new(&units), 0.3)
    }

    #[test]
    fn an_error_or_summary_at_the_end_keeps_both_ends() {
        let both = Strategy::HeadTail { head_ratio: 0.3 };
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
            assert_eq!(auto(&format!("{}{end}\n", "compiling module\n".repeat(5000))), both, "{end}");
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
}
