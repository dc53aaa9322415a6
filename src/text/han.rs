//! Han word segmentation: jieba's search-mode cut (no HMM), reproduced over a dictionary
//! compiled into the binary, so no process parses or builds a dictionary at start-up.
//!
//! **Invariant:** for any text, [`cut_for_search`] yields exactly the words, in the same order,
//! as `jieba_rs::Jieba::cut_for_search(text, false)` with the same dictionary loaded
//! (`tests/han_equivalence.rs` checks it on the whole catalog, the judged queries and random text).
//! The route search does the same floating-point operations in the same order, so even ties
//! resolve alike.

mod dictionary {
    include!(concat!(env!("OUT_DIR"), "/han_dictionary.rs"));

    /// Number of words.
    #[cfg(test)]
    pub fn len() -> usize {
        FREQS.len()
    }

    /// The `idx`-th word in sorted order.
    #[cfg(test)]
    pub fn word(idx: usize) -> &'static str {
        &WORD_TEXT[WORD_OFFSETS[idx] as usize..WORD_OFFSETS[idx + 1] as usize]
    }

    /// FNV-1a (32 bit), fed incrementally; `build.rs` placed every key with the same hash.
    pub const HASH_START: u32 = 0x811c_9dc5;

    pub fn hash_bytes(mut hash: u32, bytes: &[u8]) -> u32 {
        for &byte in bytes {
            hash ^= u32::from(byte);
            hash = hash.wrapping_mul(0x0100_0193);
        }
        hash
    }

    /// `a == b` for slices of equal length, 8 bytes at a time (keys are short: an inline loop
    /// beats a call to `memcmp`).
    fn same(a: &[u8], b: &[u8]) -> bool {
        let mut a8 = a.chunks_exact(8);
        let mut b8 = b.chunks_exact(8);
        for (x, y) in (&mut a8).zip(&mut b8) {
            if u64::from_ne_bytes(x.try_into().unwrap_or([0; 8]))
                != u64::from_ne_bytes(y.try_into().unwrap_or([1; 8]))
            {
                return false;
            }
        }
        a8.remainder()
            .iter()
            .zip(b8.remainder())
            .all(|(x, y)| x == y)
    }

    /// What the dictionary knows of `key` (whose FNV-1a hash is `hash`): `None` if no word
    /// starts with it, `Some(None)` if only longer words do, `Some(Some(freq))` if it is a word.
    pub fn lookup(key: &str, hash: u32) -> Option<Option<u32>> {
        let mask = KEY_SLOTS - 1;
        let mut slot = hash as usize & mask;
        loop {
            let at = slot * 8;
            let entry = u64::from_le_bytes(KEYS.get(at..at + 8)?.try_into().ok()?);
            if entry == 0 {
                return None;
            }
            let start = (entry & 0xffff_ffff) as usize;
            let len = (entry >> 56) as usize;
            if len == key.len()
                && same(
                    WORD_TEXT.as_bytes().get(start..start + len)?,
                    key.as_bytes(),
                )
            {
                let word = ((entry >> 32) & 0xff_ffff) as usize;
                return Some(word.checked_sub(1).map(|idx| FREQS[idx]));
            }
            slot = (slot + 1) & mask;
        }
    }
}

/// FNV-1a (32 bit) of `bytes`: the hash of the dictionary's key table, and of any other
/// in-memory table of strings (the term table's optional lookup).
pub fn fnv1a(bytes: &[u8]) -> u32 {
    dictionary::hash_bytes(dictionary::HASH_START, bytes)
}

/// Returns true if and only if jieba treats `ch` as part of a Han block.
fn is_jieba_han(ch: char) -> bool {
    matches!(ch,
        '\u{4E00}'..='\u{9FFF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2A6DF}'
        | '\u{2A700}'..='\u{2B73F}'
        | '\u{2B740}'..='\u{2B81F}'
        | '\u{2B820}'..='\u{2CEAF}'
        | '\u{2CEB0}'..='\u{2EBEF}'
        | '\u{2F800}'..='\u{2FA1F}')
}

/// Calls `emit` with every search-mode word of `text` (Han text; other characters come back
/// one by one), in jieba's order: the 2- and 3-character dictionary words inside a longer word
/// first, then the word itself.
pub fn cut_for_search<'a>(text: &'a str, emit: &mut dyn FnMut(&'a str)) {
    let mut start = 0;
    let mut block_is_han = None;
    for (idx, ch) in text.char_indices() {
        let han = is_jieba_han(ch);
        match block_is_han {
            Some(previous) if previous != han => {
                cut_block(&text[start..idx], previous, emit);
                start = idx;
            }
            _ => {}
        }
        block_is_han = Some(han);
    }
    if let Some(han) = block_is_han {
        cut_block(&text[start..], han, emit);
    }
}

fn cut_block<'a>(block: &'a str, han: bool, emit: &mut dyn FnMut(&'a str)) {
    if !han {
        for (idx, ch) in block.char_indices() {
            emit(&block[idx..idx + ch.len_utf8()]);
        }
        return;
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => cut_han(block, &mut scratch, emit),
        // Only if `emit` itself cuts Han text: that inner cut gets its own buffers.
        Err(_) => cut_han(block, &mut Scratch::default(), emit),
    });
}

/// The buffers of one Han block's cut, kept per thread: a warm cut allocates nothing.
#[derive(Default)]
struct Scratch {
    /// Byte offset of every character, then the block's length.
    offsets: Vec<usize>,
    /// The DAG, as compressed rows: the dictionary words starting at character `k` are
    /// `edges[edge_start[k]..edge_start[k + 1]]`, as (end character, frequency), shortest first.
    edge_start: Vec<usize>,
    edges: Vec<(usize, u32)>,
    /// The best route from each character: (log probability, end of its first word).
    route: Vec<(f64, usize)>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

fn cut_han<'a>(block: &'a str, scratch: &mut Scratch, emit: &mut dyn FnMut(&'a str)) {
    let Scratch {
        offsets,
        edge_start,
        edges,
        route,
    } = scratch;
    offsets.clear();
    offsets.extend(block.char_indices().map(|(idx, _)| idx));
    let n = offsets.len();
    offsets.push(block.len());
    let bytes = block.as_bytes();

    // The DAG: every dictionary word starting at each character, shortest first. The prefix
    // grows one character (one hash step) at a time; a prefix no word starts with ends it.
    edge_start.clear();
    edges.clear();
    for pos in 0..n {
        edge_start.push(edges.len());
        let mut hash = dictionary::HASH_START;
        for end in pos + 1..=n.min(pos + dictionary::MAX_CHARS) {
            hash = dictionary::hash_bytes(hash, &bytes[offsets[end - 1]..offsets[end]]);
            match dictionary::lookup(&block[offsets[pos]..offsets[end]], hash) {
                None => break,
                Some(Some(freq)) => edges.push((end, freq)),
                Some(None) => {}
            }
        }
    }
    edge_start.push(edges.len());
    let edges_from = |k: usize| &edges[edge_start[k]..edge_start[k + 1]];

    // The most probable route, from the end (jieba's `calc`).
    let log_total = (dictionary::TOTAL as f64).ln();
    route.clear();
    route.resize(n + 1, (0.0, n));
    for idx in (0..n).rev() {
        let mut best: Option<(f64, usize)> = None;
        for &(end, freq) in edges_from(idx) {
            let prob = f64::from(freq).ln() - log_total + route[end].0;
            best = match best {
                Some((best_prob, best_end))
                    if !(prob > best_prob || (prob == best_prob && end > best_end)) =>
                {
                    Some((best_prob, best_end))
                }
                _ => Some((prob, end)),
            };
        }
        route[idx] = best.unwrap_or((0.0 - log_total + route[idx + 1].0, idx + 1));
    }

    let mut x = 0;
    while x < n {
        let y = route[x].1;
        let chars = y - x;
        // An inner gram is a dictionary word if and only if the DAG has its edge.
        let mut gram = |i: usize, len: usize| {
            let (from, to) = (x + i, x + i + len);
            if edges_from(from).iter().any(|&(end, _)| end == to) {
                emit(&block[offsets[from]..offsets[to]]);
            }
        };
        if chars > 2 {
            for i in 0..chars - 1 {
                gram(i, 2);
            }
        }
        if chars > 3 {
            for i in 0..chars - 2 {
                gram(i, 3);
            }
        }
        emit(&block[offsets[x]..offsets[y]]);
        x = y;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        cut_for_search(text, &mut |w| out.push(w));
        out
    }

    #[test]
    fn dictionary_is_sorted_and_parallel() {
        assert_eq!(dictionary::WORD_OFFSETS.len(), dictionary::len() + 1);
        assert!((1..dictionary::len()).all(|i| dictionary::word(i - 1) < dictionary::word(i)));
    }

    fn lookup(key: &str) -> Option<Option<u32>> {
        dictionary::lookup(
            key,
            dictionary::hash_bytes(dictionary::HASH_START, key.as_bytes()),
        )
    }

    /// The key table finds every word with its frequency, every proper prefix of a word as a
    /// prefix, and nothing else.
    #[test]
    fn invariant_key_table_holds_exactly_the_words_and_their_prefixes() {
        let words: std::collections::BTreeMap<&str, u32> = (0..dictionary::len())
            .map(|idx| (dictionary::word(idx), dictionary::FREQS[idx]))
            .collect();
        for idx in 0..dictionary::len() {
            let word = dictionary::word(idx);
            assert_eq!(lookup(word), Some(Some(dictionary::FREQS[idx])), "{word}");
            for (end, _) in word.char_indices().skip(1) {
                let prefix = &word[..end];
                assert_eq!(lookup(prefix), Some(words.get(prefix).copied()), "{prefix}");
            }
            let longer = format!("{word}\u{3007}\u{3007}");
            let is_prefix = words
                .range(longer.as_str()..)
                .next()
                .is_some_and(|(w, _)| w.starts_with(&longer));
            assert_eq!(lookup(&longer).is_some(), is_prefix, "{longer}");
        }
        let occupied = dictionary::KEYS
            .chunks_exact(8)
            .filter(|c| c.iter().any(|&b| b != 0));
        let n_keys = occupied.count();
        assert!(n_keys >= dictionary::len() && n_keys * 2 <= dictionary::KEY_SLOTS);
        assert_eq!(lookup(""), None);
        assert_eq!(lookup("\u{0}\u{0}"), None);
    }

    #[test]
    fn search_mode_emits_inner_words_first() {
        assert_eq!(
            cut("中华人民共和国"),
            ["中华", "华人", "人民", "共和", "共和国", "中华人民共和国"]
        );
        assert_eq!(cut("钉钉群聊"), ["钉钉", "群聊"]);
        assert_eq!(cut(""), Vec::<&str>::new());
    }
}
