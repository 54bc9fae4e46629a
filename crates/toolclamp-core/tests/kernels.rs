//! The counting kernels at their block boundaries: `count_utf16` works in chunks of
//! 16 lanes x 4,096 rounds (65,536 units), `count_latin1` in 32 x 255 (8,160 units), and
//! `fit_forward`/`fit_backward` in 256-unit blocks measured from where they start. A pair
//! or `\r\n` straddling any of those must count exactly as elsewhere.

use crate::common;
use crate::reference;

use common::*;
use reference::*;
use toolclamp_core::{measure, Limits, Source, Span, Strategy, Unit, Units};

const CHUNK16: usize = 16 * 4096;
const CHUNK8: usize = 32 * 255;
const BLOCK: usize = 256;
/// The blocks `fit_forward`/`fit_backward` try first, while they fit.
const BIG_BLOCK: usize = 16 * BLOCK;

/// `len` units of filler with a surrogate pair whose high half sits at each of `highs`.
fn with_pairs(len: usize, filler: u16, highs: &[usize]) -> Vec<u16> {
    let mut t = vec![filler; len];
    for &h in highs {
        t[h] = 0xD83D;
        t[h + 1] = 0xDE00;
    }
    t
}

#[test]
fn pairs_straddling_the_utf16_chunk_count_four_bytes() {
    for filler in [b'a' as u16, 0xE9, 0x65E5] {
        for h in [CHUNK16 - 2, CHUNK16 - 1, CHUNK16, 2 * CHUNK16 - 1, 15, 16, 4095, 4096] {
            let t = with_pairs(2 * CHUNK16 + 5, filler, &[h]);
            assert_eq!(measure(&t[..]), naive_measure(&t), "filler {filler:#x}, pair at {h}");
            // Split right between the halves: each side counts its half as lone (3 + 3, not 4)...
            let (a, b) = t.split_at(h + 1);
            assert_eq!(measure(a).bytes + measure(b).bytes, naive_measure(&t).bytes + 2);
            // ...but `span` with the unit before as context adds up exactly.
            assert_eq!(u16::span(a, None).bytes + u16::span(b, a.last().copied()).bytes, naive_measure(&t).bytes);
        }
    }
}

#[test]
fn full_chunks_of_the_widest_units_do_not_overflow_the_lanes() {
    // Every lane at its maximum: 4,096 rounds of 3-byte units, of line breaks, of surrogates.
    for unit in [0xFFFFu16, b'\n' as u16, 0xD800, 0xDC00] {
        for len in [CHUNK16, CHUNK16 + 1, 3 * CHUNK16 - 1] {
            let t = vec![unit; len];
            assert_eq!(measure(&t[..]), naive_measure(&t), "{unit:#x} x {len}");
        }
    }
    // Alternating high/low: every low pairs, across every chunk boundary.
    let t = [0xD800u16, 0xDC00].repeat(CHUNK16 + 3);
    assert_eq!(measure(&t[..]).bytes, 4 * (CHUNK16 as u64 + 3));
    // Shifted by one, so a pair straddles each chunk boundary.
    let mut shifted = vec![b'x' as u16];
    shifted.extend(&t);
    assert_eq!(measure(&shifted[..]), naive_measure(&shifted));
}

#[test]
fn full_chunks_of_latin1_do_not_overflow_the_lanes() {
    for unit in [0xFFu8, b'\n', 0x80] {
        for len in [CHUNK8 - 1, CHUNK8, CHUNK8 + 1, 5 * CHUNK8 + 17] {
            let t = vec![unit; len];
            let wide: Vec<u16> = t.iter().map(|&u| u as u16).collect();
            assert_eq!(measure(&t[..]), naive_measure(&wide), "{unit:#x} x {len}");
        }
    }
}

/// `fit_forward` and `fit_backward` against a unit-by-unit scan, for every budget around
/// the pair's bytes and from starting points that put the pair at a block edge.
fn assert_fits_match_a_scan(t: &[u16]) {
    let src = Units::new(t);
    let n = t.len();
    let prefix: Vec<Span> = std::iter::once(Span::ZERO)
        .chain((0..n).scan(Span::ZERO, |acc, i| {
            *acc = *acc + src.unit_span(i);
            Some(*acc)
        }))
        .collect();
    let span = |a: usize, b: usize| prefix[b] - prefix[a];
    assert_eq!(span(0, n).bytes, naive_bytes(t));
    for from in [0, 1, 2, 255, 256, 257] {
        let total = span(from, n).bytes;
        for bytes in (0..=total).filter(|b| b % 97 < 6 || total - b < 8 || (b % 256) < 4) {
            let budget = Span { chars: u64::MAX, bytes, newlines: u64::MAX - 1 };
            let (end, used) = src.fit_forward(from, n, budget);
            let expected = (from..=n).rev().find(|&e| span(from, e).fits(budget)).unwrap();
            assert_eq!((end, used), (expected, span(from, expected)), "forward from {from}, {bytes} bytes");
            let to = n - from;
            let (start, used) = src.fit_backward(to, 0, budget);
            let expected = (0..=to).find(|&s| span(s, to).fits(budget)).unwrap();
            assert_eq!((start, used), (expected, span(expected, to)), "backward to {to}, {bytes} bytes");
        }
    }
}

#[test]
fn pairs_straddling_fit_blocks_are_counted_once() {
    let n = 4 * BLOCK + 3;
    for edge in [BLOCK, 2 * BLOCK, 3 * BLOCK] {
        // High half last in a block, first in the next, and one off either way; also as
        // seen from a start shifted by one and two (blocks are measured from `from`).
        for h in [edge - 3, edge - 2, edge - 1, edge, edge + 1] {
            assert_fits_match_a_scan(&with_pairs(n, b'a' as u16, &[h]));
            assert_fits_match_a_scan(&with_pairs(n, 0xE9, &[h, h + 5]));
        }
    }
    // Pairs everywhere: every block edge splits one (from an odd start) or none.
    assert_fits_match_a_scan(&utf16(&"😀".repeat(2 * BLOCK + 1)));
    assert_fits_match_a_scan(&[0xDC00, 0xD800].repeat(BLOCK + 7));
}

#[test]
fn pairs_straddling_big_fit_blocks_are_counted_once() {
    // The 4,096-unit blocks go first; the cut is then found in 256-unit blocks, then units.
    let n = 3 * BIG_BLOCK + 3;
    for edge in [BIG_BLOCK, 2 * BIG_BLOCK] {
        for h in [edge - 2, edge - 1, edge] {
            assert_fits_match_a_scan(&with_pairs(n, b'a' as u16, &[h]));
        }
    }
    let mut crlf = vec![b'b' as u16; n];
    crlf[BIG_BLOCK - 1] = b'\r' as u16;
    crlf[BIG_BLOCK] = b'\n' as u16;
    assert_fits_match_a_scan(&crlf);
}

#[test]
fn plans_cut_exactly_at_block_edges() {
    // Byte and line limits make the planner walk the blocks; the cut lands on a pair or
    // on "\r\n" at a block edge. Checked against the brute-force reference.
    let mut texts = Vec::new();
    for edge in [BLOCK, 2 * BLOCK] {
        for h in [edge - 2, edge - 1, edge] {
            texts.push(with_pairs(2 * BLOCK + 40, b'a' as u16, &[h]));
            let mut crlf = vec![b'b' as u16; 2 * BLOCK + 40];
            crlf[h] = b'\r' as u16;
            crlf[h + 1] = b'\n' as u16;
            texts.push(crlf);
        }
    }
    for t in &texts {
        let total = naive_measure(t);
        for strategy in [Strategy::Head, Strategy::Tail, Strategy::HeadTail { head_ratio: 0.5 }] {
            // Bytes around every block edge, seen from either end.
            for b in (BLOCK as u64 - 6..BLOCK as u64 + 6)
                .chain(total.bytes - BLOCK as u64 - 6..total.bytes - BLOCK as u64 + 6)
            {
                let limits = Limits { max_bytes: b, ..Limits::NONE };
                check(t, &limits, strategy, &NoticeKind::Default, false, Maximality::Exact);
                let limits = Limits { max_bytes: b, max_lines: 1, ..Limits::NONE };
                check(t, &limits, strategy, &NoticeKind::Default, true, Maximality::Exact);
            }
        }
    }
}

#[test]
fn a_span_starting_on_a_low_half_pairs_with_the_unit_before() {
    let t = utf16("a😀b");
    let src = Units::new(&t[..]);
    // Inside the text a low half after a high one weighs 1, so the pair adds up to 4.
    assert_eq!(src.span(2, 4).bytes, 2);
    assert_eq!(src.span(0, 2).bytes + src.span(2, 4).bytes, 6);
    assert_eq!(src.unit_span(1).bytes + src.unit_span(2).bytes, 4);
    assert!(!src.is_safe_cut(2) && src.is_safe_cut(1) && src.is_safe_cut(3));
}
