//! Counting: UTF-16 code units, UTF-8 bytes and line breaks, over the two code-unit
//! representations a JS string arrives in (one-byte Latin-1 and two-byte UTF-16).
//!
//! Byte counts match `Buffer.byteLength(s, 'utf8')`: a surrogate pair is 4 bytes, a lone
//! surrogate 3 (it is written as U+FFFD). Each unit gets a weight that depends only on
//! itself and its predecessor (a low surrogate right after a high one weighs 1, the high
//! one 3), so the weights of any span that starts and ends on a safe cut add up exactly.

/// Chars, bytes and lines of a whole text, as the public API reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Measure {
    pub chars: u64,
    pub bytes: u64,
    pub lines: u64,
}

impl Measure {
    /// Every dimension within `budget` (limits are a budget: [`crate::UNLIMITED`] is the
    /// largest count).
    pub(crate) fn fits(self, budget: Measure) -> bool {
        self.chars <= budget.chars && self.bytes <= budget.bytes && self.lines <= budget.lines
    }
}

/// Additive counts over a span of units. Lines are not additive, newlines are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub chars: u64,
    pub bytes: u64,
    pub newlines: u64,
}

impl Span {
    pub const ZERO: Span = Span { chars: 0, bytes: 0, newlines: 0 };

    /// Every dimension within `budget`.
    pub fn fits(self, budget: Span) -> bool {
        self.chars <= budget.chars && self.bytes <= budget.bytes && self.newlines <= budget.newlines
    }
}

/// Saturating, per dimension.
impl std::ops::Add for Span {
    type Output = Span;

    fn add(self, o: Span) -> Span {
        Span {
            chars: self.chars.saturating_add(o.chars),
            bytes: self.bytes.saturating_add(o.bytes),
            newlines: self.newlines.saturating_add(o.newlines),
        }
    }
}

/// Saturating, per dimension (a dimension left uncounted stays 0).
impl std::ops::Sub for Span {
    type Output = Span;

    fn sub(self, o: Span) -> Span {
        Span {
            chars: self.chars.saturating_sub(o.chars),
            bytes: self.bytes.saturating_sub(o.bytes),
            newlines: self.newlines.saturating_sub(o.newlines),
        }
    }
}

/// One code unit of a JS string: `u8` for one-byte (Latin-1) strings, `u16` for two-byte ones.
pub trait Unit: Copy + Eq + Send + Sync + 'static {
    fn code(self) -> u16;

    /// The unit of an ASCII byte.
    fn from_ascii(b: u8) -> Self;

    /// The leading run of a JSON string's text with no `"` and no `\\`: its length, its
    /// UTF-8 bytes (exact when the third value is false), and whether it holds a control
    /// character (below U+0020) or a surrogate (then the caller counts it unit by unit).
    fn plain_run(units: &[Self]) -> (usize, u64, bool);

    /// Counts of `units`, where `prev` is the unit just before them (for surrogate pairing).
    fn span(units: &[Self], prev: Option<Self>) -> Span;

    /// `units` as bytes, when each unit is one byte (Latin-1): byte-level searches (memchr's
    /// vector loops) then apply to them as they are.
    #[inline]
    fn as_latin1(_units: &[Self]) -> Option<&[u8]> {
        None
    }

    #[inline]
    fn is_high_surrogate(self) -> bool {
        self.code() & 0xFC00 == 0xD800
    }

    #[inline]
    fn is_low_surrogate(self) -> bool {
        self.code() & 0xFC00 == 0xDC00
    }

    /// UTF-8 weight of one unit given its predecessor (see the module docs).
    #[inline]
    fn weight(self, prev: Option<Self>) -> u64 {
        let c = self.code();
        if c < 0x80 {
            1
        } else if c < 0x800 {
            2
        } else if self.is_low_surrogate() && prev.is_some_and(Self::is_high_surrogate) {
            1
        } else {
            3
        }
    }
}

const NL: u8 = b'\n';

impl Unit for u8 {
    #[inline]
    fn code(self) -> u16 {
        self as u16
    }

    #[inline]
    fn from_ascii(b: u8) -> u8 {
        b
    }

    #[inline]
    fn is_high_surrogate(self) -> bool {
        false
    }

    #[inline]
    fn is_low_surrogate(self) -> bool {
        false
    }

    #[inline]
    fn as_latin1(units: &[u8]) -> Option<&[u8]> {
        Some(units)
    }

    fn span(units: &[u8], _prev: Option<u8>) -> Span {
        let (newlines, high) = count_latin1(units);
        let len = units.len() as u64;
        Span { chars: len, bytes: len + high, newlines }
    }

    fn plain_run(units: &[u8]) -> (usize, u64, bool) {
        // One pass: JSON strings are mostly short, where setting up a search costs more.
        let mut high = 0u64;
        let mut control = false;
        for (k, &b) in units.iter().enumerate() {
            if b == b'"' || b == b'\\' {
                return (k, k as u64 + high, control);
            }
            high += (b >> 7) as u64;
            control |= b < 0x20;
        }
        (units.len(), units.len() as u64 + high, control)
    }
}

impl Unit for u16 {
    #[inline]
    fn code(self) -> u16 {
        self
    }

    #[inline]
    fn from_ascii(b: u8) -> u16 {
        b as u16
    }

    fn span(units: &[u16], prev: Option<u16>) -> Span {
        let (newlines, base_bytes, paired_lows) = count_utf16(units, prev);
        Span { chars: units.len() as u64, bytes: base_bytes - 2 * paired_lows, newlines }
    }

    fn plain_run(units: &[u16]) -> (usize, u64, bool) {
        let mut bytes = 0u64;
        let mut odd = false;
        for (k, &u) in units.iter().enumerate() {
            if u == b'"' as u16 || u == b'\\' as u16 {
                return (k, bytes, odd);
            }
            bytes += 1 + (u >= 0x80) as u64 + (u >= 0x800) as u64;
            odd |= u < 0x20 || u & 0xF800 == 0xD800;
        }
        (units.len(), bytes, odd)
    }
}

// The counting loops are written as lanes of small counters so the compiler vectorises
// them. Portable builds target the baseline x86-64 (SSE2); on CPUs with AVX2 the same
// loops, compiled for it, count two to four times faster, so long spans pick that copy at
// run time (the check is a cached atomic load).

/// Spans shorter than this skip the feature check: it would cost more than it saves.
#[cfg(target_arch = "x86_64")]
const DISPATCH_MIN: usize = 256;

/// The CPU can run the AVX2 copies of the counting loops.
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_avx2(len: usize) -> bool {
    len >= DISPATCH_MIN && std::is_x86_feature_detected!("avx2")
}

fn count_latin1(s: &[u8]) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2(s.len()) {
        // SAFETY: the CPU supports AVX2.
        return unsafe { count_latin1_avx2(s) };
    }
    count_latin1_lanes(s)
}

fn count_utf16(s: &[u16], prev: Option<u16>) -> (u64, u64, u64) {
    #[cfg(target_arch = "x86_64")]
    if has_avx2(s.len()) {
        // SAFETY: the CPU supports AVX2.
        return unsafe { count_utf16_avx2(s, prev) };
    }
    count_utf16_lanes(s, prev)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn count_latin1_avx2(s: &[u8]) -> (u64, u64) {
    count_latin1_lanes(s)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn count_utf16_avx2(s: &[u16], prev: Option<u16>) -> (u64, u64, u64) {
    count_utf16_lanes(s, prev)
}

/// `(newlines, units >= 0x80)` in one pass. Byte lanes that cannot overflow within 255
/// rounds let the compiler vectorise the loop; short spans take the same path.
#[inline(always)]
fn count_latin1_lanes(s: &[u8]) -> (u64, u64) {
    const LANES: usize = 32;
    let (mut newlines, mut high) = (0u64, 0u64);
    for block in s.chunks(LANES * 255) {
        let mut nl = [0u8; LANES];
        let mut hi = [0u8; LANES];
        let mut groups = block.chunks_exact(LANES);
        for g in &mut groups {
            for j in 0..LANES {
                nl[j] += (g[j] == NL) as u8;
                hi[j] += g[j] >> 7;
            }
        }
        newlines += nl.iter().map(|&x| x as u64).sum::<u64>();
        high += hi.iter().map(|&x| x as u64).sum::<u64>();
        for &b in groups.remainder() {
            newlines += (b == NL) as u64;
            high += (b >> 7) as u64;
        }
    }
    (newlines, high)
}

/// `(newlines, UTF-8 bytes counting every surrogate as 3, low surrogates paired with the
/// high surrogate before them)`.
#[inline(always)]
fn count_utf16_lanes(s: &[u16], prev: Option<u16>) -> (u64, u64, u64) {
    const LANES: usize = 16;
    // 4,096 rounds of at most 3 bytes each fit a u16 lane.
    const ROUNDS: usize = 4096;
    let (mut newlines, mut bytes, mut lows, mut highs) = (0u64, 0u64, 0u64, 0u64);
    for block in s.chunks(LANES * ROUNDS) {
        let mut nl = [0u16; LANES];
        let mut by = [0u16; LANES];
        let mut lo = [0u16; LANES];
        let mut hi = [0u16; LANES];
        let mut groups = block.chunks_exact(LANES);
        for g in &mut groups {
            for j in 0..LANES {
                let c = g[j];
                nl[j] += (c == NL as u16) as u16;
                // Masks rather than `>=`: SSE2 has no unsigned 16-bit compare, only equality.
                by[j] += 1 + (c & 0xFF80 != 0) as u16 + (c & 0xF800 != 0) as u16;
                lo[j] += (c & 0xFC00 == 0xDC00) as u16;
                hi[j] += (c & 0xFC00 == 0xD800) as u16;
            }
        }
        let sum = |a: [u16; LANES]| a.iter().map(|&x| x as u64).sum::<u64>();
        newlines += sum(nl);
        bytes += sum(by);
        lows += sum(lo);
        highs += sum(hi);
        for &c in groups.remainder() {
            newlines += (c == NL as u16) as u64;
            bytes += 1 + (c >= 0x80) as u64 + (c >= 0x800) as u64;
            lows += (c & 0xFC00 == 0xDC00) as u64;
            highs += (c & 0xFC00 == 0xD800) as u64;
        }
    }
    // Pairing needs neighbours; skip the second pass when no pair can exist.
    let prev_high = prev.is_some_and(|p| p & 0xFC00 == 0xD800);
    let paired = if lows == 0 || (highs == 0 && !prev_high) { 0 } else { count_pairs_lanes(s, prev_high) };
    (newlines, bytes, paired)
}

/// Low surrogates preceded by a high surrogate. Lanes of u16 counters, as in
/// `count_utf16`, so the loop vectorises.
#[inline(always)]
fn count_pairs_lanes(s: &[u16], prev_high: bool) -> u64 {
    const LANES: usize = 16;
    const ROUNDS: usize = 4096;
    let mut n = (prev_high && s.first().is_some_and(|&c| c & 0xFC00 == 0xDC00)) as u64;
    if s.len() < 2 {
        return n;
    }
    let (highs, lows) = (&s[..s.len() - 1], &s[1..]);
    for (hb, lb) in highs.chunks(LANES * ROUNDS).zip(lows.chunks(LANES * ROUNDS)) {
        let mut acc = [0u16; LANES];
        let mut hg = hb.chunks_exact(LANES);
        let mut lg = lb.chunks_exact(LANES);
        for (h, l) in (&mut hg).zip(&mut lg) {
            for j in 0..LANES {
                acc[j] += ((h[j] & 0xFC00 == 0xD800) & (l[j] & 0xFC00 == 0xDC00)) as u16;
            }
        }
        n += acc.iter().map(|&x| x as u64).sum::<u64>();
        for (&a, &b) in hg.remainder().iter().zip(lg.remainder()) {
            n += ((a & 0xFC00 == 0xD800) & (b & 0xFC00 == 0xDC00)) as u64;
        }
    }
    n
}

/// Lines of a text whose newline count and last unit are known: 0 for empty, else the
/// newlines plus one for an unterminated last line.
#[inline]
pub fn lines_of(newlines: u64, len: usize, last_is_newline: bool) -> u64 {
    if len == 0 {
        0
    } else {
        newlines + (!last_is_newline) as u64
    }
}

/// Chars, bytes and lines of a whole text in one pass.
pub fn measure<U: Unit>(units: &[U]) -> Measure {
    let span = U::span(units, None);
    let last_nl = units.last().is_some_and(|u| u.code() == NL as u16);
    Measure { chars: span.chars, bytes: span.bytes, lines: lines_of(span.newlines, units.len(), last_nl) }
}

/// Measure of a Rust string as a JS string would see it (used for notices).
pub fn measure_str(s: &str) -> Measure {
    // Notices are short and almost always ASCII, where chars are bytes.
    let chars = if s.is_ascii() { s.len() } else { s.encode_utf16().count() } as u64;
    let newlines = s.bytes().filter(|&b| b == NL).count() as u64;
    Measure { chars, bytes: s.len() as u64, lines: lines_of(newlines, s.len(), s.ends_with('\n')) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Units of every kind the counters tell apart, long enough for the wide loops.
    fn mixed_units(len: usize, seed: u32) -> Vec<u16> {
        const KINDS: [u16; 10] =
            [b'a' as u16, b'\n' as u16, b'\r' as u16, 0x7F, 0x80, 0x7FF, 0x800, 0xD83D, 0xDE00, 0xFFFF];
        let mut x = seed;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                KINDS[(x % KINDS.len() as u32) as usize]
            })
            .collect()
    }

    #[test]
    fn every_copy_of_the_counting_loops_agrees() {
        // On a CPU with AVX2 the dispatching functions take the AVX2 copy from 256 units;
        // the portable copy must count the same, and both must match unit by unit counting.
        for (len, seed) in [(0, 1), (1, 2), (255, 3), (256, 4), (4097, 5), (16 * 4096 + 33, 6), (200_000, 7)] {
            let units = mixed_units(len, seed);
            for prev in [None, Some(0xD83D), Some(b'a' as u16)] {
                let slow = units.iter().enumerate().fold((0u64, 0u64, 0u64), |(nl, by, pairs), (i, &c)| {
                    let before = if i == 0 { prev } else { Some(units[i - 1]) };
                    let paired = c & 0xFC00 == 0xDC00 && before.is_some_and(|p| p & 0xFC00 == 0xD800);
                    (
                        nl + (c == NL as u16) as u64,
                        by + 1 + (c >= 0x80) as u64 + (c >= 0x800) as u64,
                        pairs + paired as u64,
                    )
                });
                assert_eq!(count_utf16_lanes(&units, prev), slow, "len {len}");
                assert_eq!(count_utf16(&units, prev), slow, "len {len}");
            }
            let bytes: Vec<u8> = units.iter().map(|&c| c as u8).collect();
            let slow = (
                bytes.iter().filter(|&&b| b == NL).count() as u64,
                bytes.iter().filter(|&&b| b >= 0x80).count() as u64,
            );
            assert_eq!(count_latin1_lanes(&bytes), slow, "len {len}");
            assert_eq!(count_latin1(&bytes), slow, "len {len}");
        }
    }

    fn utf16(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn counts_match_utf8_length() {
        for s in ["", "a", "é", "€", "😀", "a\nb\n", "日本語\r\n😀x", &"é😀\n".repeat(5000)] {
            let m = measure(&utf16(s));
            assert_eq!(m.bytes, s.len() as u64, "{s:?}");
            assert_eq!(m.chars, s.encode_utf16().count() as u64);
        }
    }

    #[test]
    fn lone_surrogates_weigh_three() {
        assert_eq!(measure(&[0xD800u16]).bytes, 3);
        assert_eq!(measure(&[0xDC00u16]).bytes, 3);
        assert_eq!(measure(&[0xDC00u16, 0xD800]).bytes, 6);
        assert_eq!(measure(&[0xD800u16, 0xDC00]).bytes, 4);
        assert_eq!(measure(&[0xD800u16, 0xD800, 0xDC00]).bytes, 7);
    }

    #[test]
    fn span_with_prev_pairs_across_the_boundary() {
        assert_eq!(u16::span(&[0xDC00], Some(0xD800)).bytes, 1);
        assert_eq!(u16::span(&[0xDC00], Some(0x41)).bytes, 3);
    }

    #[test]
    fn latin1_high_bytes_are_two_bytes() {
        let s: Vec<u8> = (0..=255u8).cycle().take(20_000).collect();
        let expected: u64 = s.iter().map(|&b| if b < 0x80 { 1 } else { 2 }).sum();
        assert_eq!(measure(&s).bytes, expected);
        assert_eq!(measure(&s).lines, s.iter().filter(|&&b| b == b'\n').count() as u64 + 1);
    }

    #[test]
    fn lines_definition() {
        assert_eq!(measure::<u8>(b"").lines, 0);
        assert_eq!(measure::<u8>(b"\n").lines, 1);
        assert_eq!(measure::<u8>(b"a").lines, 1);
        assert_eq!(measure::<u8>(b"a\n").lines, 1);
        assert_eq!(measure::<u8>(b"a\r\nb").lines, 2);
        assert_eq!(measure::<u8>(b"\n\n\n").lines, 3);
    }
}
