//! The search behind every limit in exact tokens.
//!
//! A clamp knows how to keep a text, a JSON value or a tool result within a number of
//! bytes; tokens are counted on what it keeps. So a limit in tokens is a search over the
//! byte budget: the largest budget whose result, counted as the model will read it, is
//! within the limit. Results are not strictly monotone in their budget (a cut inside a word
//! can count more tokens than a longer one), so the search only ever returns a budget whose
//! result it saw within, or the low end it was told is within.
//!
//! Tokens grow about in proportion to bytes, so a step aims where the counts at the ends of
//! the range say the limit is crossed (the result of a clamp costs far more than the
//! arithmetic). An aim that does not halve the distance in tokens between its side of the
//! range and the limit is a miss; after two misses in a row, and once the counts at the
//! ends are a few tokens apart, the step halves the range instead. So the search takes at
//! most about twice a bisection's steps, and usually a handful.

/// What is known where the search stands: the range, and the counts at its ends.
struct Range {
    lo: u64,
    hi: u64,
    /// Tokens at `lo`, once asked (a budget of 0 keeps nothing: 0 tokens at 0).
    at_lo: Option<u64>,
    /// Tokens at `hi` (a lower bound), once known.
    at_hi: Option<u64>,
}

impl Range {
    /// The budget where the counts at the ends say `max` is crossed, strictly inside the
    /// range; `None` without a count at `hi`.
    fn aim(&self, max: u64) -> Option<u64> {
        let c_hi = self.at_hi?;
        let (b0, c0) = match self.at_lo {
            Some(c) => (self.lo, c),
            None => (0, 0),
        };
        if c_hi <= c0 {
            return None;
        }
        // Just short of the first budget over: max + 1/2 tokens.
        let per_token = (self.hi - b0) as f64 / (c_hi - c0) as f64;
        let aimed = b0 as f64 + per_token * ((max - c0.min(max)) as f64 + 0.5);
        Some((aimed as u64).clamp(self.lo + 1, self.hi - 1))
    }

    /// Whether the counts at the ends are close enough for bisection to finish.
    fn close(&self) -> bool {
        matches!((self.at_lo, self.at_hi), (Some(a), Some(b)) if b.saturating_sub(a) <= 4)
    }
}

/// The largest budget in `lo..hi` whose result `count` finds within `max` tokens: `lo` is
/// taken to be within (it is never asked) and `hi` over; `at_hi`, when known, is the count
/// at `hi` (a lower bound). `count(b)` gives the tokens of the result at budget `b`, or any
/// number above `max` once they are over (a count may stop early). `first`, when it lies
/// inside the range, is tried first: a caller that knows a bound (no result of more than
/// `(max + 1) × longest token` bytes is within `max` tokens) saves the steps above it. Its
/// first error ends the search.
pub fn largest_within<E>(
    lo: u64,
    hi: u64,
    at_hi: Option<u64>,
    max: u64,
    first: Option<u64>,
    mut count: impl FnMut(u64) -> Result<u64, E>,
) -> Result<u64, E> {
    let mut range = Range { lo, hi, at_lo: None, at_hi };
    let mut next = first.filter(|&b| b > lo && b < hi);
    let mut misses = 0;
    while range.hi > range.lo && range.hi - range.lo > 1 {
        let aimed = if next.is_some() || misses >= 2 || range.close() { None } else { range.aim(max) };
        let mid = next.take().or(aimed).unwrap_or(range.lo + (range.hi - range.lo) / 2);
        let n = count(mid)?;
        // How far the side that moves was from the limit, in tokens, and is now.
        let (before, after) = if n <= max {
            let before = range.at_lo.map(|c| max - c);
            range.lo = mid;
            range.at_lo = Some(n);
            (before, max - n)
        } else {
            let before = range.at_hi.map(|c| c - max);
            range.hi = mid;
            range.at_hi = Some(n);
            (before, n - max)
        };
        misses = match (aimed, before) {
            (Some(_), Some(before)) if after * 2 > before => misses + 1,
            // After a halving, the next aim has one chance: at most two steps a halving.
            (None, _) if misses >= 2 => 1,
            _ => 0,
        };
    }
    Ok(range.lo)
}

#[cfg(test)]
mod tests {
    use super::largest_within;
    use std::convert::Infallible;

    /// The search over counts `counts[b]` (within `max`), and the budgets it asked.
    fn search(lo: u64, hi: u64, max: u64, first: Option<u64>, counts: impl Fn(u64) -> u64) -> (u64, Vec<u64>) {
        let mut asked = Vec::new();
        let found = largest_within::<Infallible>(lo, hi, None, max, first, |b| {
            asked.push(b);
            Ok(counts(b))
        })
        .unwrap();
        (found, asked)
    }

    #[test]
    fn finds_the_edge_of_a_monotone_count() {
        for max in 0..60 {
            // Four bytes a token, and a notice of 3 tokens.
            let (found, _) = search(0, 400, max, None, |b| 3 + b / 4);
            let expected = if max < 3 { 0 } else { ((max - 3) * 4 + 3).min(399) };
            assert_eq!(found, expected, "max {max}");
        }
    }

    #[test]
    fn aiming_takes_few_steps_where_tokens_follow_bytes() {
        // 3.7 bytes a token over a megabyte, looking for 10,000 tokens.
        let count = |b: u64| (b as f64 / 3.7).ceil() as u64;
        let (found, asked) = search(10_000, 1 << 20, 10_000, None, count);
        assert!(count(found) <= 10_000 && count(found + 1) > 10_000);
        assert!(asked.len() <= 8, "{} steps: {asked:?}", asked.len());
    }

    #[test]
    fn never_more_than_twice_a_bisection() {
        // Counts that mislead the aim: flat, then a cliff.
        let count = |b: u64| if b < 900_000 { 1 } else { 1_000_000 };
        let (found, asked) = search(0, 1 << 20, 5, None, count);
        assert_eq!(found, 899_999);
        assert!(asked.len() <= 2 * 21, "{} steps", asked.len());
    }

    #[test]
    fn a_bound_is_asked_first() {
        let (found, asked) = search(0, 1 << 20, 77, Some(100), |b| b);
        assert_eq!(found, 77);
        assert_eq!(asked[0], 100);
    }

    #[test]
    fn an_empty_range_asks_nothing() {
        assert_eq!(search(5, 6, 0, None, |b| b), (5, vec![]));
        assert_eq!(search(5, 5, 0, None, |b| b), (5, vec![]));
        assert_eq!(search(9, 3, 0, None, |b| b), (9, vec![]));
    }

    #[test]
    fn the_answer_was_seen_within_or_is_the_low_end() {
        // Not monotone: only even budgets are within.
        for max in [0, 1, 7] {
            let mut seen = Vec::new();
            let found = largest_within::<Infallible>(0, 1000, None, max, None, |b| {
                let n = if b % 2 == 0 { max } else { max + 1 };
                if n <= max {
                    seen.push(b);
                }
                Ok(n)
            })
            .unwrap();
            assert!(found == 0 || seen.contains(&found));
        }
    }

    proptest::proptest! {
        /// On any count that grows with the budget (bytes per token from 1 to 200, a notice of
        /// any size): the largest budget within, in at most twice a bisection's steps.
        #[test]
        fn the_largest_within_in_few_steps(
            per_token in 1u64..200,
            notice in 0u64..50,
            max in 0u64..5_000,
            hi in 2u64..2_000_000,
            known in proptest::bool::ANY,
        ) {
            let count = |b: u64| if b == 0 { 0 } else { notice + b.div_ceil(per_token) };
            let at_hi = known.then(|| count(hi));
            let mut asked = 0;
            let found = largest_within::<Infallible>(0, hi, at_hi, max, None, |b| {
                asked += 1;
                Ok(count(b))
            })
            .unwrap();
            // `hi` is taken to be over, whatever it counts.
            let edge = if max > notice { (max - notice) * per_token } else { 0 };
            proptest::prop_assert_eq!(found, edge.min(hi - 1));
            let bisection = 64 - (hi - 1).leading_zeros();
            proptest::prop_assert!(asked <= 2 * bisection + 2, "{} steps for {}", asked, bisection);
        }
    }

    #[test]
    fn an_error_ends_the_search() {
        let mut calls = 0;
        let r = largest_within(0, 1000, None, 5, None, |_| {
            calls += 1;
            Err::<u64, _>("no")
        });
        assert_eq!((r, calls), (Err("no"), 1));
    }
}
