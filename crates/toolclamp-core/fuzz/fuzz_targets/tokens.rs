//! Exact tokens on arbitrary UTF-16: the split tiles the text and each piece is the same in a
//! text that agrees with it up to where its match read; the index counts every candidate as a
//! plain count of its result does; a cut within `n` tokens has at most `n`, as counted whole.
//! Run: `cargo +nightly fuzz run tokens` in crates/toolclamp-core.
#![no_main]

use std::io::Read;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use toolclamp_core::{
    cut_to_tokens, plan, Candidate, CountCandidate, Encoding, Limits, Notice, Split, Strategy, TokenIndex, Tokenizer,
    Units, Vocab, UNLIMITED,
};

fn tokenizer(encoding: Encoding) -> &'static Tokenizer {
    static LOADED: [OnceLock<Tokenizer>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = &LOADED[Encoding::ALL.iter().position(|&e| e == encoding).unwrap()];
    slot.get_or_init(|| {
        let path = format!("{}/../../../vocab/{}.bin.br", env!("CARGO_MANIFEST_DIR"), encoding.name());
        let mut raw = Vec::new();
        brotli_decompressor::Decompressor::new(std::fs::File::open(path).unwrap(), 1 << 16)
            .read_to_end(&mut raw)
            .unwrap();
        Tokenizer::new(encoding, Vocab::from_bytes(&raw).unwrap())
    })
}

fn result_of(units: &[u16], c: &Candidate<'_>) -> Vec<u16> {
    let mut out = units[..c.head_end].to_vec();
    out.extend(c.glue.encode_utf16());
    out.extend_from_slice(&units[c.tail_start..]);
    out
}

fn char_start(units: &[u16], mut i: usize) -> usize {
    i = i.min(units.len());
    while i > 0 && i < units.len() && units[i] & 0xFC00 == 0xDC00 && units[i - 1] & 0xFC00 == 0xD800 {
        i -= 1;
    }
    i
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let (head, rest) = data.split_at(6);
    let encoding = Encoding::ALL[usize::from(head[0] & 1)];
    let tokenizer = tokenizer(encoding);
    // Bytes as UTF-16 units, biased to ASCII so words and spaces are common.
    let units: Vec<u16> = rest
        .chunks(2)
        .map(|c| if c.len() == 2 && c[0] & 0x80 != 0 { u16::from_le_bytes([c[0] & 0x7F, c[1]]) } else { u16::from(c[0] & 0x7F) })
        .collect();
    let text = &units[..];

    // The split: pieces tile the text; each is the same whatever follows what its match read.
    let pieces: Vec<_> = Split::new(text, encoding.pattern(), 0).collect();
    let mut pos = 0;
    for piece in &pieces {
        assert!(piece.start == pos && piece.end > piece.start && piece.seen >= piece.end);
        pos = piece.end;
        if piece.seen <= text.len() {
            let mut other = text[..piece.seen].to_vec();
            other.extend_from_slice(&text[..text.len().min(8)]);
            assert_eq!(Split::new(&other[..], encoding.pattern(), piece.start).next().unwrap().end, piece.end);
        }
    }
    assert_eq!(pos, text.len());

    // The index against plain counts.
    let whole = tokenizer.count(text);
    let mut index = TokenIndex::new(tokenizer, text, usize::from(head[1]));
    let head_end = char_start(text, text.len() * usize::from(head[2]) / 255);
    let tail_start = char_start(text, head_end + (text.len() - head_end) * usize::from(head[3]) / 255).max(head_end);
    let glue = ["", "\n[... 9 bytes truncated ...]\n", " [...]"][usize::from(head[4] % 3)];
    let candidate = Candidate { head_end, glue, tail_start };
    let real = tokenizer.count(&result_of(text, &candidate)[..]);
    let limit = u64::from(head[5]);
    assert_eq!(index.count(&candidate, limit), (real <= limit).then_some(real));
    assert_eq!(index.count(&candidate, u64::MAX), Some(real));

    // A cut within `limit` tokens.
    let strategy = [Strategy::Head, Strategy::Tail, Strategy::HeadTail { head_ratio: 0.5 }][usize::from(head[4] % 3)];
    let bytes = String::from_utf16_lossy(text).len() as u64;
    let plan_at = |b: u64| {
        let limits = Limits { max_chars: UNLIMITED, max_bytes: b, max_lines: UNLIMITED };
        plan(&Units::new(text), &limits, strategy, &mut Notice::Default, true)
    };
    let mut index = TokenIndex::new(tokenizer, text, 64);
    let cut = cut_to_tokens(limit, UNLIMITED, bytes, text.len(), plan_at, &mut index).unwrap();
    let result = result_of(text, &Candidate::of(cut.plan.as_ref(), text.len()));
    let counted = tokenizer.count(&result[..]);
    assert!(counted <= limit);
    assert_eq!(cut.plan.is_none(), whole <= limit);
    assert_eq!(counted, cut.tokens);
});
