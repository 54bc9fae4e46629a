//! The search behind every limit in exact tokens.
//!
//! A clamp knows how to keep a text, a JSON value or a tool result within a number of
//! bytes; tokens are counted on what it keeps. So a limit in tokens is a search over the
//! byte budget: the largest budget whose result, counted as the model will read it, is
//! within the limit. Results are not strictly monotone in their budget (a cut inside a word
//! can count more tokens than a longer one), so the search only ever returns a budget whose
//! result it saw within, or the low end it was told is within.

/// The largest budget in `lo..hi` that `within` accepts, found by bisection: `lo` is taken
/// to be within (it is never asked) and `hi` over. `first`, when it lies between `lo` and
/// the first midpoint, is tried first: a caller that knows a bound (no result of more than
/// `(max + 1) × longest token` bytes is within `max` tokens) saves the steps above it.
/// `within` is asked about O(log(hi - lo)) budgets; its first error ends the search.
pub fn largest_within<E>(
    mut lo: u64,
    mut hi: u64,
    mut first: Option<u64>,
    mut within: impl FnMut(u64) -> Result<bool, E>,
) -> Result<u64, E> {
    while hi > lo && hi - lo > 1 {
        let mut mid = lo + (hi - lo) / 2;
        if let Some(bound) = first.take() {
            if bound > lo && bound < mid {
                mid = bound;
            }
        }
        if within(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

#[cfg(test)]
mod tests {
    use super::largest_within;
    use std::convert::Infallible;

    fn search(lo: u64, hi: u64, first: Option<u64>, limit: u64) -> (u64, Vec<u64>) {
        let mut asked = Vec::new();
        let found = largest_within::<Infallible>(lo, hi, first, |b| {
            asked.push(b);
            Ok(b <= limit)
        })
        .unwrap();
        (found, asked)
    }

    #[test]
    fn finds_the_edge_of_a_monotone_answer() {
        for limit in 0..40 {
            assert_eq!(search(0, 40, None, limit).0, limit.min(39));
        }
    }

    #[test]
    fn a_bound_is_asked_first_and_saves_steps() {
        let (found, asked) = search(0, 1 << 20, Some(100), 77);
        assert_eq!(found, 77);
        assert_eq!(asked[0], 100);
        assert!(asked.len() <= 8, "{asked:?}");
    }

    #[test]
    fn an_empty_range_asks_nothing() {
        assert_eq!(search(5, 6, None, 0), (5, vec![]));
        assert_eq!(search(5, 5, None, 0), (5, vec![]));
        assert_eq!(search(9, 3, None, 0), (9, vec![]));
    }

    #[test]
    fn the_answer_was_seen_within_or_is_the_low_end() {
        // Not monotone: only even budgets are within.
        let mut seen = Vec::new();
        let found = largest_within::<Infallible>(0, 1000, None, |b| {
            let ok = b % 2 == 0;
            if ok {
                seen.push(b);
            }
            Ok(ok)
        })
        .unwrap();
        assert!(found == 0 || seen.contains(&found));
    }

    #[test]
    fn an_error_ends_the_search() {
        let mut calls = 0;
        let r = largest_within(0, 1000, None, |_| {
            calls += 1;
            Err::<bool, _>("no")
        });
        assert_eq!((r, calls), (Err("no"), 1));
    }
}
