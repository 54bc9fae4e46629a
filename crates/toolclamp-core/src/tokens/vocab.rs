//! A byte-pair-encoding vocabulary (o200k_base, cl100k_base, …) and the merge of one piece
//! of text into its tokens, exactly as tiktoken's `_byte_pair_merge` does it.
//!
//! The tokens live in one byte arena, `offsets` gives each rank's start in it, and an
//! open-addressing table of ranks finds a token's rank from its bytes: three allocations,
//! a few MiB for o200k_base, where a map of boxed byte strings would cost one allocation
//! per token and several times the memory.
//!
//! # Why two merge paths
//!
//! tiktoken merges by keeping each part's pair rank in a vector and scanning it for the
//! lowest after every merge: O(n²) in the piece's length, and the fastest there is for the
//! short pieces that are nearly all of real text (no heap, no links, one small vector). But
//! one piece can be long — a 10 MB run of letters is one piece — and O(n²) on it would never
//! end. A piece longer than [`SHORT`] bytes is merged with a binary heap of (rank, start)
//! instead: O(n log n), with the same merges in the same order (lowest rank first, the
//! leftmost on ties, since the heap orders equal ranks by start), so the same tokens.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;

/// No rank: an empty table slot, a pair that is no token, a part that has been merged away.
const NONE: u32 = u32::MAX;

/// The most ranks [`Vocab::from_bytes`] accepts: the real vocabularies have 100k and 200k;
/// the cap keeps a corrupt table from asking for gigabytes, and a rank in 20 bits.
const MAX_RANKS: usize = 1_000_000;

/// A table slot is a rank in its low 20 bits under 12 more bits of its token's hash: a probe
/// passes over a slot of another token on those bits alone, without reading the token
/// (reading it costs two cache misses, the offsets and the arena). An empty slot, [`NONE`],
/// holds rank 2^20 - 1, above every rank.
const RANK_BITS: u32 = 20;
const RANK_MASK: u32 = (1 << RANK_BITS) - 1;
const TAG_BITS: u32 = 12;

/// The longest piece merged with the vector scan; longer ones take the heap (see the module
/// docs).
const SHORT: usize = 256;

/// Why [`Vocab::from_bytes`] refused a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VocabError {
    /// The entry of `rank` announces `needed` bytes but only `left` follow its length byte.
    Truncated { rank: usize, needed: usize, left: usize },
    /// More than 1,000,000 ranks.
    TooManyRanks,
    /// The token of `rank` is the same bytes as the token of `first`.
    Duplicate { rank: u32, first: u32 },
    /// No token is this single byte: byte-level BPE starts from every byte as a token.
    MissingByte(u8),
}

impl fmt::Display for VocabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            VocabError::Truncated { rank, needed, left } => {
                write!(f, "the vocabulary ends inside rank {rank}: its token has {needed} bytes, {left} are left")
            }
            VocabError::TooManyRanks => write!(f, "the vocabulary has more than {MAX_RANKS} ranks"),
            VocabError::Duplicate { rank, first } => write!(f, "rank {rank} is the same token as rank {first}"),
            VocabError::MissingByte(byte) => write!(f, "the vocabulary has no token for the single byte 0x{byte:02x}"),
        }
    }
}

impl std::error::Error for VocabError {}

/// A byte-level BPE vocabulary: tokens by rank and ranks by token.
pub struct Vocab {
    /// Every token's bytes, in rank order.
    arena: Vec<u8>,
    /// Rank → start of its token in `arena`, plus the arena's end: a token ends where the
    /// next rank's starts, and a hole (a rank with no token) is empty.
    offsets: Vec<u32>,
    /// Open addressing with linear probing: a power-of-two count of slots holding tagged
    /// ranks (see [`RANK_BITS`]) or [`NONE`], at most half of them used, so a probe ends after
    /// a slot or two.
    table: Vec<u32>,
    /// `64 - log2(table.len())`: a hash's top bits pick its slot (its best-mixed bits).
    shift: u32,
    max_len: usize,
}

impl fmt::Debug for Vocab {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vocab").field("ranks", &self.len()).field("max_token_len", &self.max_len).finish()
    }
}

/// FxHash's multiply-rotate, over 8-byte little-endian words (the tail zero-padded) from a
/// start that is the length, so a padded tail cannot collide with real zero bytes. Fast on
/// the 2–20 byte keys of the merge, and the multiply mixes every byte into the top bits.
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mut h = bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word.try_into().unwrap_or_default())).wrapping_mul(K);
    }
    // The tail byte by byte: a copy into a padded word would call memcpy.
    let tail = words.remainder();
    if !tail.is_empty() {
        let word = tail.iter().rev().fold(0, |word, &b| word << 8 | u64::from(b));
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    h
}

impl Vocab {
    /// Reads the raw table: the tokens in rank order, each one length byte L (1..=255) then
    /// its L bytes, a single 0 byte for a rank with no token. Every one of the 256 single
    /// bytes must be a token and no token may repeat.
    pub fn from_bytes(raw: &[u8]) -> Result<Vocab, VocabError> {
        let mut arena = Vec::with_capacity(raw.len());
        let mut offsets = Vec::new();
        let mut rest = raw;
        while let Some((&len, tail)) = rest.split_first() {
            let rank = offsets.len();
            if rank == MAX_RANKS {
                return Err(VocabError::TooManyRanks);
            }
            let (needed, left) = (usize::from(len), tail.len());
            let token = tail.get(..needed).ok_or(VocabError::Truncated { rank, needed, left })?;
            // At most 255 bytes a rank and 10^6 ranks: the arena stays far below 4 GiB.
            offsets.push(arena.len() as u32);
            arena.extend_from_slice(token);
            rest = &tail[needed..];
        }
        offsets.push(arena.len() as u32);
        arena.shrink_to_fit();
        offsets.shrink_to_fit();
        let slots = (2 * offsets.len()).next_power_of_two().max(16);
        let mut vocab =
            Vocab { arena, offsets, table: vec![NONE; slots], shift: 64 - slots.trailing_zeros(), max_len: 0 };
        for rank in 0..vocab.len() as u32 {
            vocab.insert(rank)?;
        }
        if let Some(byte) = (0..=255u8).find(|&b| vocab.rank(&[b]).is_none()) {
            return Err(VocabError::MissingByte(byte));
        }
        Ok(vocab)
    }

    fn insert(&mut self, rank: u32) -> Result<(), VocabError> {
        let Some(token) = self.token(rank) else { return Ok(()) };
        let (slot, tag) = match self.find(token) {
            Ok(first) => return Err(VocabError::Duplicate { rank, first }),
            Err(vacant) => vacant,
        };
        self.max_len = self.max_len.max(token.len());
        self.table[slot] = tag | rank;
        Ok(())
    }

    /// The rank of the token that is `bytes`, else the empty slot that ends its probe and the
    /// tag bits its entry would have.
    fn find(&self, bytes: &[u8]) -> Result<u32, (usize, u32)> {
        let h = hash(bytes);
        let tag = ((h >> (self.shift - TAG_BITS)) as u32) << RANK_BITS;
        let mask = self.table.len() - 1;
        let mut slot = (h >> self.shift) as usize;
        loop {
            let entry = self.table[slot];
            if entry == NONE {
                return Err((slot, tag));
            }
            let rank = entry & RANK_MASK;
            if entry & !RANK_MASK == tag && self.token(rank) == Some(bytes) {
                return Ok(rank);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The number of ranks, holes included: one past the highest rank.
    #[allow(clippy::len_without_is_empty)] // never empty: every single byte is a token
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The longest token, in bytes.
    pub fn max_token_len(&self) -> usize {
        self.max_len
    }

    /// The bytes of the token of `rank`; `None` past the last rank and for a hole.
    pub fn token(&self, rank: u32) -> Option<&[u8]> {
        let i = rank as usize;
        let (&start, &end) = (self.offsets.get(i)?, self.offsets.get(i + 1)?);
        (start < end).then(|| &self.arena[start as usize..end as usize])
    }

    /// The rank of the token that is exactly `bytes`, if there is one.
    pub fn rank(&self, bytes: &[u8]) -> Option<u32> {
        if bytes.is_empty() || bytes.len() > self.max_len {
            return None;
        }
        self.find(bytes).ok()
    }

    /// The heap memory the vocabulary holds, in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.arena.capacity() + (self.offsets.capacity() + self.table.capacity()) * size_of::<u32>()
    }

    /// How many tokens byte-pair encoding makes of one piece (one match of the encoding's
    /// split pattern): 1 if the whole piece is a token, else the number of parts left when
    /// merging stops, as tiktoken counts them.
    ///
    /// # Panics
    ///
    /// On a piece of 4 GiB or more (positions are `u32`; merging it would take over 100 GiB).
    pub fn count_piece(&self, piece: &[u8]) -> usize {
        let mut count = 0;
        self.pieces(piece, |_| count += 1);
        count
    }

    /// Appends the ranks of one piece's tokens to `out`: the tokens [`Vocab::count_piece`]
    /// counts, in order.
    ///
    /// # Panics
    ///
    /// As [`Vocab::count_piece`].
    pub fn encode_piece(&self, piece: &[u8], out: &mut Vec<u32>) {
        self.pieces(piece, |token| out.push(self.must_rank(token)));
    }

    /// The merge alone (no whole-piece shortcut) through the path named, for tests that
    /// check the heap path against the vector path.
    #[doc(hidden)]
    pub fn encode_piece_by(&self, piece: &[u8], heap: bool, out: &mut Vec<u32>) {
        let mut sink = |token: &[u8]| out.push(self.must_rank(token));
        if heap {
            self.merge_heap(piece, &mut sink);
        } else {
            self.merge_scan(piece, &mut sink);
        }
    }

    /// Every part a merge leaves is a token: a single byte (each is one, `from_bytes`
    /// checked) or a pair the merge found in the table.
    fn must_rank(&self, token: &[u8]) -> u32 {
        self.rank(token).expect("every part of a merge is a token")
    }

    /// Gives the tokens of `piece`, in order, to `sink`.
    fn pieces(&self, piece: &[u8], mut sink: impl FnMut(&[u8])) {
        if piece.is_empty() {
            return;
        }
        if self.rank(piece).is_some() {
            sink(piece);
        } else if piece.len() <= SHORT {
            self.merge_scan(piece, &mut sink);
        } else {
            self.merge_heap(piece, &mut sink);
        }
    }

    /// `rank`, with [`NONE`] for no token.
    fn pair_rank(&self, bytes: &[u8]) -> u32 {
        self.rank(bytes).unwrap_or(NONE)
    }

    /// tiktoken's merge: `parts[i]` is (start of part i, rank of part i joined with part i + 1),
    /// with the piece's end as a last part. Each round merges the lowest rank, the leftmost
    /// on ties; only the pairs that start at the merged part and at the one before change.
    fn merge_scan(&self, piece: &[u8], sink: &mut impl FnMut(&[u8])) {
        let n = positions(piece);
        let pair = |parts: &[(u32, u32)], i: usize| match parts.get(i + 2) {
            Some(&(end, _)) => self.pair_rank(&piece[parts[i].0 as usize..end as usize]),
            None => NONE,
        };
        let mut parts: Vec<(u32, u32)> = (0..=n).map(|i| (i, NONE)).collect();
        for i in 0..parts.len() {
            parts[i].1 = pair(&parts, i);
        }
        loop {
            let mut lowest = (NONE, 0);
            for (i, &(_, rank)) in parts.iter().enumerate() {
                // `<`, not `<=`: the first of equal ranks is the leftmost.
                if rank < lowest.0 {
                    lowest = (rank, i);
                }
            }
            let (rank, i) = lowest;
            if rank == NONE {
                break;
            }
            parts.remove(i + 1);
            parts[i].1 = pair(&parts, i);
            if i > 0 {
                parts[i - 1].1 = pair(&parts, i - 1);
            }
        }
        for w in parts.windows(2) {
            sink(&piece[w[0].0 as usize..w[1].0 as usize]);
        }
    }

    /// The same merges with a linked list of parts and a min-heap of (rank, start) keys. A
    /// key goes stale when its pair changes (either part merged with another) and is dropped
    /// when popped: a key is live exactly when `pair[start]` still holds its rank, because a
    /// pair only ever grows, and a longer pair is other bytes, so another rank (no token
    /// repeats). Each merge pushes at most two keys, so the heap never holds more than 2n.
    fn merge_heap(&self, piece: &[u8], sink: &mut impl FnMut(&[u8])) {
        let n = positions(piece);
        let len = n as usize;
        // next[i]: the start of the part after the one at i (n after the last); prev[i]: the
        // start of the part before it (NONE for the first); pair[i]: the rank of the part at
        // i joined with the next one, NONE when that is no token or i is no longer a start.
        let mut next: Vec<u32> = (1..=n).collect();
        let mut prev: Vec<u32> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let pair_at = |next: &[u32], start: u32| {
            let mid = next[start as usize];
            if mid == n {
                return NONE;
            }
            self.pair_rank(&piece[start as usize..next[mid as usize] as usize])
        };
        let mut pair: Vec<u32> = (0..n).map(|i| pair_at(&next, i)).collect();
        let key = |rank: u32, start: u32| Reverse(u64::from(rank) << 32 | u64::from(start));
        let mut heap: BinaryHeap<_> =
            pair.iter().zip(0..).filter(|&(&rank, _)| rank != NONE).map(|(&rank, i)| key(rank, i)).collect();
        heap.reserve(len);
        while let Some(Reverse(top)) = heap.pop() {
            let (rank, start) = ((top >> 32) as u32, top as u32);
            if pair[start as usize] != rank {
                continue;
            }
            // The part at `start` absorbs the next one.
            let right = next[start as usize];
            let after = next[right as usize];
            next[start as usize] = after;
            if after < n {
                prev[after as usize] = start;
            }
            pair[right as usize] = NONE;
            for at in [start, prev[start as usize]] {
                if at == NONE {
                    continue;
                }
                let rank = pair_at(&next, at);
                pair[at as usize] = rank;
                if rank != NONE {
                    heap.push(key(rank, at));
                }
            }
        }
        let mut start = 0;
        while start < len {
            let end = next[start] as usize;
            sink(&piece[start..end]);
            start = end;
        }
    }
}

/// A piece's length as a `u32` position, under [`NONE`].
fn positions(piece: &[u8]) -> u32 {
    u32::try_from(piece.len()).ok().filter(|&n| n < NONE).expect("a piece under 4 GiB")
}
