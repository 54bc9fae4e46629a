//! The BPE vocabularies and the merge of one piece: both committed vocabularies load, give
//! gpt-tokenizer's token ids for known pieces, and the segment-tree merge (long pieces)
//! makes the same tokens as tiktoken's vector scan (short pieces) and a brute-force
//! reference.

use crate::common::{proptest_config, tokenizer};

use proptest::prelude::*;
use toolclamp_core::{Encoding, Vocab, VocabError};

fn o200k() -> &'static Vocab {
    tokenizer(Encoding::O200kBase).vocab()
}

fn cl100k() -> &'static Vocab {
    tokenizer(Encoding::Cl100kBase).vocab()
}

fn encode(vocab: &Vocab, piece: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    vocab.encode_piece(piece, &mut out);
    out
}

fn encode_by(vocab: &Vocab, piece: &[u8], long: bool) -> Vec<u32> {
    let mut out = Vec::new();
    vocab.encode_piece_by(piece, long, &mut out);
    out
}

/// The merge by its definition, slowly: join the adjacent parts whose join has the lowest
/// rank, the leftmost of equal ranks, until no join is a token.
fn reference(vocab: &Vocab, piece: &[u8]) -> Vec<u32> {
    let mut parts: Vec<Vec<u8>> = piece.iter().map(|&b| vec![b]).collect();
    loop {
        let lowest =
            (1..parts.len()).filter_map(|i| vocab.rank(&[&parts[i - 1][..], &parts[i]].concat()).map(|r| (r, i))).min();
        let Some((_, i)) = lowest else { break };
        let right = parts.remove(i);
        parts[i - 1].extend(right);
    }
    parts.iter().map(|part| vocab.rank(part).expect("a part is a token")).collect()
}

#[test]
fn both_vocabularies_load_with_every_rank_and_a_few_mib() {
    for (vocab, ranks) in [(o200k(), Encoding::O200kBase.ranks()), (cl100k(), Encoding::Cl100kBase.ranks())] {
        assert_eq!(vocab.len(), ranks);
        assert_eq!(vocab.max_token_len(), 128);
        for rank in 0..ranks as u32 {
            let token = vocab.token(rank).expect("no holes in these vocabularies");
            assert_eq!(vocab.rank(token), Some(rank));
        }
        assert_eq!(vocab.token(ranks as u32), None);
        assert_eq!(vocab.rank(b""), None);
        assert_eq!(vocab.rank(&[b'a'; 129]), None);
    }
    // One arena, offsets and a table of u32 ranks: about 4 MiB, where a map of boxed tokens
    // would take several times that.
    assert!(o200k().heap_bytes() < 16 << 20, "{} bytes", o200k().heap_bytes());
}

/// Pieces as the pre-tokenizer gives them, with their ids from gpt-tokenizer 4.0.0
/// (`encode(text)` of each text, a single piece under both split patterns; the invalid
/// UTF-8 bytes through its byte-pair merge directly): o200k_base ids, then cl100k_base ids.
fn oracle() -> Vec<(Vec<u8>, Vec<u32>, Vec<u32>)> {
    let word = "thequickbrownfoxjumpsoverthelazydog".repeat(9);
    let crab = " 🦀🦀".as_bytes().to_vec();
    let invalid = vec![0xff, 0xfe, 0x80, 0x80, 0xe4, 0xb8, 0x20, 0xc3, 0x28, 0xa0, 0xa1, 0xf0, 0x9f, 0xa6];
    let gothic = "𝔘𝔫𝔦𝔠𝔬𝔡𝔢".as_bytes().to_vec();
    let gothic_o = [[43120, 242, 246], [43120, 242, 104], [43120, 242, 99], [43120, 242, 254]];
    let gothic_o: Vec<u32> =
        gothic_o.concat().into_iter().chain([43120, 242, 105, 43120, 242, 94, 43120, 242, 95]).collect();
    let gothic_c: Vec<u32> = gothic_o.iter().map(|&id| if id == 43120 { 57352 } else { id }).collect();
    let mut a95 = vec![b' '];
    a95.extend([b'a'; 94]);
    vec![
        (b" hello".to_vec(), vec![40617], vec![24748]),
        (b" internationalization".to_vec(), vec![7544, 2860], vec![6625, 2065]),
        (
            b"Pneumonoultramicroscopicsilicovolcanoconiosis".to_vec(),
            vec![47, 611, 394, 263, 9826, 371, 26169, 2199, 47750, 1541, 112176, 47186, 6929, 29452, 156038],
            vec![47, 818, 372, 263, 11206, 99040, 2823, 2445, 454, 1233, 321, 292, 869, 337, 69377, 444, 91260],
        ),
        (crab, vec![9552, 99, 222, 4103, 99, 222], vec![11410, 99, 222, 9468, 99, 222]),
        (gothic, gothic_o, gothic_c),
        (
            invalid,
            vec![187, 186, 222, 222, 624, 1474, 7, 254, 94, 4103, 99],
            vec![187, 186, 222, 222, 3574, 1717, 7, 254, 94, 9468, 99],
        ),
        (a95, [&[261][..], &[117525; 11], &[45037, 64]].concat(), [&[264][..], &[70540; 11], &[29558, 64]].concat()),
        // Longer than the vector scan takes: these go through the segment tree.
        (
            word.into_bytes(),
            [3086, 46003, 152168, 19947, 79879, 786, 2339, 4161, 1071, 3859, 479].repeat(9),
            [1820, 28863, 65561, 15361, 44396, 708, 424, 339, 301, 13933, 18964].repeat(9),
        ),
        (vec![b'a'; 3000], vec![117525; 375], vec![70540; 375]),
    ]
}

#[test]
fn pieces_get_gpt_tokenizers_ids() {
    for (piece, o200k_ids, cl100k_ids) in oracle() {
        for (vocab, ids) in [(o200k(), o200k_ids), (cl100k(), cl100k_ids)] {
            let text = String::from_utf8_lossy(&piece);
            assert_eq!(encode(vocab, &piece), ids, "{text:?}");
            assert_eq!(vocab.count_piece(&piece), ids.len(), "{text:?}");
            // Both merge paths, whatever the length.
            if ids.len() > 1 {
                assert_eq!(encode_by(vocab, &piece, false), ids, "scan: {text:?}");
                assert_eq!(encode_by(vocab, &piece, true), ids, "tree: {text:?}");
            }
        }
    }
}

#[test]
fn an_empty_piece_is_no_token_and_a_piece_that_is_a_token_is_one() {
    for vocab in [o200k(), cl100k()] {
        assert_eq!(vocab.count_piece(b""), 0);
        assert_eq!(encode(vocab, b""), Vec::<u32>::new());
        for byte in 0..=255u8 {
            assert_eq!(vocab.count_piece(&[byte]), 1);
        }
        let longest = (0..vocab.len() as u32).filter_map(|r| vocab.token(r)).max_by_key(|t| t.len()).unwrap();
        assert_eq!(vocab.count_piece(longest), 1);
    }
}

/// Bytes of any value, and text that merges a lot: runs of a few letters and repeated words
/// (runs over 256 bytes take the long path in `count_piece`).
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..40),
        prop::collection::vec(prop::sample::select(b"etaoinshrdlu ".to_vec()), 0..400),
        prop::collection::vec(
            prop::sample::select(vec!["the", "ing", "tion", "a", "aa", " ", "é", "🦀", "\u{3042}"]),
            0..120
        )
        .prop_map(|words| words.concat().into_bytes()),
        (1usize..600).prop_map(|n| vec![b'a'; n]),
    ]
}

proptest! {
    #![proptest_config(proptest_config("tests/proptest-regressions/tokens_vocab.txt", 300))]

    #[test]
    fn the_long_merge_is_the_vector_merge_and_the_reference(piece in bytes(), cl in any::<bool>()) {
        let vocab = if cl { cl100k() } else { o200k() };
        let scan = encode_by(vocab, &piece, false);
        prop_assert_eq!(&encode_by(vocab, &piece, true), &scan);
        if piece.len() <= 200 {
            prop_assert_eq!(&reference(vocab, &piece), &scan);
        }
        // The tokens spell the piece; the public count and encoding agree with each other.
        let spelled: Vec<u8> = scan.iter().flat_map(|&r| vocab.token(r).unwrap().to_vec()).collect();
        prop_assert_eq!(spelled, piece.clone());
        let public = encode(vocab, &piece);
        prop_assert_eq!(vocab.count_piece(&piece), public.len());
        if vocab.rank(&piece).is_none() {
            prop_assert_eq!(public, scan);
        }
    }
}

/// A small vocabulary over "ab": the 256 single bytes, then distinct strings of 2 to 6 of
/// those letters in any order, so a long token can rank below the pairs it is made of,
/// which the real vocabularies also do and tiktoken's merge must handle.
fn small_vocab() -> impl Strategy<Value = Vocab> {
    prop::collection::vec(prop::collection::vec(prop::sample::select(b"ab".to_vec()), 2..7), 0..40).prop_map(|extra| {
        let mut tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        for token in extra {
            if !tokens.contains(&token) {
                tokens.push(token);
            }
        }
        let tokens: Vec<Option<&[u8]>> = tokens.iter().map(|t| Some(&t[..])).collect();
        Vocab::from_bytes(&raw(&tokens)).expect("a valid vocabulary")
    })
}

proptest! {
    #![proptest_config(proptest_config("tests/proptest-regressions/tokens_vocab.txt", 300))]

    #[test]
    fn under_any_small_vocabulary_both_merges_are_the_reference(
        vocab in small_vocab(),
        piece in prop::collection::vec(prop::sample::select(b"ab".to_vec()), 0..200),
    ) {
        let expected = reference(&vocab, &piece);
        prop_assert_eq!(&encode_by(&vocab, &piece, false), &expected);
        prop_assert_eq!(&encode_by(&vocab, &piece, true), &expected);
    }

    #[test]
    fn any_bytes_load_or_are_refused_without_a_panic(tail in prop::collection::vec(any::<u8>(), 0..300)) {
        let mut table = raw(&all_bytes().iter().map(|b| Some(&b[..])).collect::<Vec<_>>());
        table.extend(tail);
        if let Ok(vocab) = Vocab::from_bytes(&table) {
            let piece: Vec<u8> = (0..200u8).map(|i| i.wrapping_mul(37) % 7).collect();
            prop_assert_eq!(encode_by(&vocab, &piece, true), encode_by(&vocab, &piece, false));
        }
    }
}

/// A raw table: each token as its length byte and bytes, `None` as a hole.
fn raw(tokens: &[Option<&[u8]>]) -> Vec<u8> {
    let mut out = Vec::new();
    for token in tokens {
        match token {
            Some(bytes) => {
                out.push(bytes.len() as u8);
                out.extend_from_slice(bytes);
            }
            None => out.push(0),
        }
    }
    out
}

fn all_bytes() -> Vec<[u8; 1]> {
    (0..=255u8).map(|b| [b]).collect()
}

fn message(raw: &[u8]) -> String {
    Vocab::from_bytes(raw).unwrap_err().to_string()
}

#[test]
fn a_table_with_holes_loads_and_skips_them() {
    let bytes = all_bytes();
    let mut tokens: Vec<Option<&[u8]>> = vec![None];
    tokens.extend(bytes.iter().map(|b| Some(&b[..])));
    tokens.extend([None, Some(&b"ab"[..]), None]);
    let vocab = Vocab::from_bytes(&raw(&tokens)).unwrap();
    assert_eq!((vocab.len(), vocab.max_token_len()), (260, 2));
    assert_eq!((vocab.token(0), vocab.token(257), vocab.token(259)), (None, None, None));
    assert_eq!((vocab.rank(b"a"), vocab.rank(b"ab"), vocab.token(258)), (Some(98), Some(258), Some(&b"ab"[..])));
    assert_eq!((vocab.rank(b"ba"), vocab.rank(b"abc")), (None, None));
    assert_eq!(vocab.count_piece(b"abab"), 2);
    assert_eq!(vocab.count_piece(b"ba"), 2);
}

#[test]
fn a_bad_table_is_refused_with_what_is_wrong() {
    let bytes = all_bytes();
    let singles: Vec<Option<&[u8]>> = bytes.iter().map(|b| Some(&b[..])).collect();

    // The last entry announces 3 bytes; 2 follow.
    let mut cut = raw(&singles);
    cut.extend([3, b'a', b'b']);
    assert_eq!(Vocab::from_bytes(&cut).unwrap_err(), VocabError::Truncated { rank: 256, needed: 3, left: 2 });
    assert_eq!(message(&cut), "the vocabulary ends inside rank 256: its token has 3 bytes, 2 are left");
    assert_eq!(message(&[5]), "the vocabulary ends inside rank 0: its token has 5 bytes, 0 are left");

    let mut missing = singles.clone();
    missing[0x41] = None;
    assert_eq!(message(&raw(&missing)), "the vocabulary has no token for the single byte 0x41");
    assert_eq!(message(&[]), "the vocabulary has no token for the single byte 0x00");

    let mut twice = singles.clone();
    twice.extend([Some(&b"ab"[..]), Some(&b"a"[..])]);
    assert_eq!(Vocab::from_bytes(&raw(&twice)).unwrap_err(), VocabError::Duplicate { rank: 257, first: 97 });
    assert_eq!(message(&raw(&twice)), "rank 257 is the same token as rank 97");

    // Holes count as ranks: a million and one of them is too many, before anything else.
    assert_eq!(message(&vec![0; 1_000_001]), "the vocabulary has more than 1000000 ranks");
    let mut full = raw(&singles);
    full.resize(1_000_000 + 256, 0);
    assert_eq!(Vocab::from_bytes(&full).unwrap().len(), 1_000_000);
}
