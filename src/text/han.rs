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
    pub fn word(idx: usize) -> &'static str {
        &WORD_TEXT[WORD_OFFSETS[idx] as usize..WORD_OFFSETS[idx + 1] as usize]
    }

    /// The first index in `lo..hi` whose word is not less than `key` (`lo..hi` sorted).
    pub fn lower_bound(mut lo: usize, mut hi: usize, key: &str) -> usize {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if word(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The first index in `lo..hi` whose word does not start with `prefix` (words in `lo..hi`
    /// that start with it come first).
    pub fn prefix_end(mut lo: usize, mut hi: usize, prefix: &str) -> usize {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if word(mid).starts_with(prefix) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
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

/// The range of dictionary indexes whose words start with `ch`.
fn first_char_range(ch: char) -> (usize, usize) {
    match dictionary::FIRST.binary_search_by(|entry| entry.0.cmp(&ch)) {
        Ok(idx) => (
            dictionary::FIRST[idx].1 as usize,
            dictionary::FIRST[idx].2 as usize,
        ),
        Err(_) => (0, 0),
    }
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
    let offsets: Vec<usize> = block.char_indices().map(|(idx, _)| idx).collect();
    let n = offsets.len();
    let at = |k: usize| offsets.get(k).copied().unwrap_or(block.len());

    // The DAG: every dictionary word starting at each character, shortest first. The range of
    // words sharing the current prefix narrows as the prefix grows; an empty range ends it.
    let mut edges: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    for (pos, slot) in edges.iter_mut().enumerate() {
        let first = block[at(pos)..].chars().next().unwrap_or('\0');
        let (mut lo, mut hi) = first_char_range(first);
        for end in pos + 1..=n.min(pos + dictionary::MAX_CHARS) {
            if lo == hi {
                break;
            }
            let prefix = &block[at(pos)..at(end)];
            let start = dictionary::lower_bound(lo, hi, prefix);
            let stop = dictionary::prefix_end(start, hi, prefix);
            if start < stop && dictionary::word(start) == prefix {
                slot.push((end, dictionary::FREQS[start]));
            }
            lo = start;
            hi = stop;
        }
    }

    // The most probable route, from the end (jieba's `calc`).
    let log_total = (dictionary::TOTAL as f64).ln();
    let mut route: Vec<(f64, usize)> = vec![(0.0, n); n + 1];
    for idx in (0..n).rev() {
        let mut best: Option<(f64, usize)> = None;
        for &(end, freq) in &edges[idx] {
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
            if edges[from].iter().any(|&(end, _)| end == to) {
                emit(&block[at(from)..at(to)]);
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
        emit(&block[at(x)..at(y)]);
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
