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
//! short pieces that are nearly all of real text (one small vector, no links). But one piece
//! can be long — a 10 MB run of letters is one piece — and O(n²) on it would never end. A
//! piece longer than [`SHORT`] bytes keeps the same pair ranks by start, under a segment tree
//! of block minima: O(n log n), and the same merges in the same order (the lowest rank, the
//! leftmost of equal ones), so the same tokens. A binary heap of (rank, start) with lazy
//! invalidation makes the same merges too, but was 1.6 to 4.7 times slower on pieces of 1 to
//! 10 MB (each merge also pops about two stale keys, every pop a walk down a heap larger than
//! the cache) and needs up to 28 bytes per byte of the piece, where the tree needs 12.

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

/// The longest piece merged with the vector scan; longer ones take the segment tree (see the
/// module docs).
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
    /// The rank of every two-byte token by its bytes (NONE where none), 256 KiB: a piece's
    /// merge starts by looking up each pair of adjacent bytes, and here that is one load
    /// from a table that stays in cache.
    pairs: Vec<u32>,
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
        let mut vocab = Vocab {
            arena,
            offsets,
            table: vec![NONE; slots],
            shift: 64 - slots.trailing_zeros(),
            max_len: 0,
            pairs: vec![NONE; 1 << 16],
        };
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
        let (len, two) = (token.len(), two_bytes(token));
        self.max_len = self.max_len.max(len);
        self.table[slot] = tag | rank;
        if let Some(at) = two {
            self.pairs[at] = rank;
        }
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
        if let Some(at) = two_bytes(bytes) {
            return Some(self.pairs[at]).filter(|&rank| rank != NONE);
        }
        if bytes.is_empty() || bytes.len() > self.max_len {
            return None;
        }
        self.find(bytes).ok()
    }

    /// The heap memory the vocabulary holds, in bytes.
    pub fn heap_bytes(&self) -> usize {
        let ranks = self.offsets.capacity() + self.table.capacity() + self.pairs.capacity();
        self.arena.capacity() + ranks * size_of::<u32>()
    }

    /// How many tokens byte-pair encoding makes of one piece (one match of the encoding's
    /// split pattern): 1 if the whole piece is a token, else the number of parts left when
    /// merging stops, as tiktoken counts them.
    ///
    /// # Panics
    ///
    /// On a piece of 4 GiB or more (positions are `u32`; merging it would need some 50 GiB).
    pub fn count_piece(&self, piece: &[u8]) -> usize {
        let mut count = 0;
        self.tokens_of(piece, |_| count += 1);
        count
    }

    /// Appends the ranks of one piece's tokens to `out`: the tokens [`Vocab::count_piece`]
    /// counts, in order.
    ///
    /// # Panics
    ///
    /// As [`Vocab::count_piece`].
    pub fn encode_piece(&self, piece: &[u8], out: &mut Vec<u32>) {
        self.tokens_of(piece, |token| out.push(self.must_rank(token)));
    }

    /// The merge alone (no whole-piece shortcut) through the path named (`long`: the segment
    /// tree, else the vector scan) whatever the piece's length, for tests that check one
    /// path against the other.
    #[doc(hidden)]
    pub fn encode_piece_by(&self, piece: &[u8], long: bool, out: &mut Vec<u32>) {
        let mut sink = |token: &[u8]| out.push(self.must_rank(token));
        if long {
            self.merge_tree(piece, &mut sink);
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
    fn tokens_of(&self, piece: &[u8], mut sink: impl FnMut(&[u8])) {
        if piece.is_empty() {
            return;
        }
        if self.rank(piece).is_some() {
            sink(piece);
        } else if piece.len() <= SHORT {
            self.merge_scan(piece, &mut sink);
        } else {
            self.merge_tree(piece, &mut sink);
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

    /// The same merges for a long piece: a linked list of parts, and the pair ranks by start
    /// (NONE where no part starts) with the lowest of each block of them in a segment tree,
    /// so the leftmost lowest pair is found, and a merge's three changed pairs updated, in
    /// O(log n). It is tiktoken's choice, made faster, not another rule.
    fn merge_tree(&self, piece: &[u8], sink: &mut impl FnMut(&[u8])) {
        let n = positions(piece);
        // next[i]: the start of the part after the one at i (n after the last); prev[i]: the
        // start of the part before it (NONE for the first).
        let mut next: Vec<u32> = (1..=n).collect();
        let mut prev: Vec<u32> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let pair_at = |next: &[u32], start: u32| {
            let mid = next[start as usize];
            if mid == n {
                return NONE;
            }
            self.pair_rank(&piece[start as usize..next[mid as usize] as usize])
        };
        let mut pairs = Lowest::new((0..n).map(|i| pair_at(&next, i)).collect());
        while let Some(start) = pairs.leftmost_lowest() {
            // The part at `start` absorbs the next one; the pairs at both, and at the part
            // before, change.
            let right = next[start as usize];
            let after = next[right as usize];
            next[start as usize] = after;
            if after < n {
                prev[after as usize] = start;
            }
            pairs.set(right, NONE);
            pairs.set(start, pair_at(&next, start));
            let before = prev[start as usize];
            if before != NONE {
                pairs.set(before, pair_at(&next, before));
            }
        }
        let mut start = 0;
        while start < n {
            let end = next[start as usize];
            sink(&piece[start as usize..end as usize]);
            start = end;
        }
    }
}

/// Pair ranks per block in the segment tree's leaves: a block is scanned (a few cache lines,
/// in order) where a tree over every start would be 16 times larger and slower to walk.
const BLOCK: usize = 64;

/// Pair ranks by start, and a segment tree whose leaves are the lowest rank of each block of
/// [`BLOCK`] starts: the root is the lowest rank of all, and the leftmost child that holds it
/// leads to the leftmost start that has it.
struct Lowest {
    pair: Vec<u32>,
    /// `tree[1]` is the root, `tree[k]`'s children are `tree[2k]` and `tree[2k + 1]`, and
    /// block b's leaf is `tree[leaves + b]`; leaves past the last block hold NONE.
    tree: Vec<u32>,
    leaves: usize,
}

impl Lowest {
    fn new(pair: Vec<u32>) -> Lowest {
        let leaves = pair.len().div_ceil(BLOCK).next_power_of_two();
        let mut tree = vec![NONE; 2 * leaves];
        for (leaf, block) in tree[leaves..].iter_mut().zip(pair.chunks(BLOCK)) {
            *leaf = block.iter().copied().min().unwrap_or(NONE);
        }
        for k in (1..leaves).rev() {
            tree[k] = tree[2 * k].min(tree[2 * k + 1]);
        }
        Lowest { pair, tree, leaves }
    }

    /// The start of the leftmost pair of the lowest rank; `None` when no pair is a token.
    fn leftmost_lowest(&self) -> Option<u32> {
        let lowest = self.tree[1];
        if lowest == NONE {
            return None;
        }
        let mut k = 1;
        while k < self.leaves {
            k = 2 * k + usize::from(self.tree[2 * k] != lowest);
        }
        let from = (k - self.leaves) * BLOCK;
        let at = self.pair[from..].iter().position(|&rank| rank == lowest)?;
        Some((from + at) as u32)
    }

    /// Sets the pair rank at `start` and the block and tree minima above it, up to the first
    /// that does not change.
    fn set(&mut self, start: u32, rank: u32) {
        let start = start as usize;
        self.pair[start] = rank;
        let from = start - start % BLOCK;
        let block = &self.pair[from..(from + BLOCK).min(self.pair.len())];
        let mut lowest = block.iter().copied().min().unwrap_or(NONE);
        let mut k = self.leaves + from / BLOCK;
        // `tree[0]` is unused (NONE): the root's "sibling" changes nothing.
        while k > 0 && self.tree[k] != lowest {
            self.tree[k] = lowest;
            lowest = lowest.min(self.tree[k ^ 1]);
            k /= 2;
        }
    }
}

/// The index of two bytes in [`Vocab`]'s `pairs`.
fn two_bytes(bytes: &[u8]) -> Option<usize> {
    match *bytes {
        [a, b] => Some(usize::from(a) << 8 | usize::from(b)),
        _ => None,
    }
}

/// A piece's length as a `u32` position, under [`NONE`].
fn positions(piece: &[u8]) -> u32 {
    u32::try_from(piece.len()).ok().filter(|&n| n < NONE).expect("a piece under 4 GiB")
}
