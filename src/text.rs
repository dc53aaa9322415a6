//! The single analysis pipeline: how text becomes index terms, used identically for the
//! catalog at index time and for the query at search time.
//!
//! Stages (in this order, each a small function):
//! 1. **normalize** — NFKC (full-width letters and digits become ASCII), nothing else;
//! 2. **segment** — split the normalized text into runs by script: Han runs, word runs
//!    (letters, digits and the identifier connectors `_ . -` inside them), separators;
//! 3. **word runs** — an identifier such as `chat.send_message` or `getWeather` is kept
//!    whole *and* split on connectors and camelCase boundaries; every piece is lower-cased,
//!    stop words dropped, and (optionally) plural `-s` stemmed;
//! 4. **Han runs** — dictionary words (jieba, search mode, no HMM) and/or character
//!    unigrams + overlapping bigrams, per [`HanMode`];
//! 5. **word pairs** — two consecutive English word pieces of one clause also make a pair
//!    term (`#send message`), which the index does not count toward field length; with
//!    `stop_pairs`, so does a stop word with its neighbours (`#take her`, `#the invite`).
//!
//! **Invariant:** an [`Analyzer`] is a pure function of its [`AnalyzerConfig`] and the text;
//! the same config gives the same terms in any process (no hashing, no clocks).
//!
//! Beside the pipeline, query-side helpers that never touch the index: the lexicon
//! (`lexicon`), quoted spans (`quoted`), values a request names (`values`: dates, phone
//! numbers, money, times of day), English words related in WordNet (`wordnet`) and the
//! word pairs learned from judged requests (`learned`, matched by `lexicon`). What they add to
//! a query is analysed by the same pipeline.

mod forms;
mod han;
pub mod learned;
mod lexicon;
mod quoted;
mod values;
mod wordnet;

pub use forms::is_han;
pub use han::fnv1a;
pub use lexicon::{BridgePhrases, LearnedPairs, Lexicon, PreparedQuery};
pub use quoted::split_quoted;
pub use values::{named_values, NamedValues};
pub use wordnet::each_related as each_wordnet_related;

use std::borrow::Cow;

use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// How Han runs become terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HanMode {
    /// Dictionary words from jieba's search mode (words and their in-dictionary parts).
    Words,
    /// Character unigrams plus overlapping bigrams (DWS's dictionary-free scheme).
    Ngrams,
    /// Both of the above.
    WordsAndNgrams,
}

/// Every switch of the pipeline. Retrievers name a config; eval compares configs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnalyzerConfig {
    pub han: HanMode,
    /// Also emit the pieces of identifiers (`send_message` → `send`, `message`).
    pub split_identifiers: bool,
    /// Drop English and Chinese function words.
    pub stop_words: bool,
    /// Reduce English plurals (`messages` → `message`).
    pub stem_plurals: bool,
    /// Also emit `#id:<prefix>` for a word shaped like an identifier (`evt_77310` →
    /// `#id:evt`; see [`id_prefix`]).
    pub id_shapes: bool,
    /// Also emit a pair term (`#send message`) for two consecutive English word pieces of
    /// one clause (see [`PAIR_MARK`]).
    pub shingles: bool,
    /// With `shingles`, also pair a stop word with the English word right before and right
    /// after it (`take her off the invite` → `#take her`, `#the invite`; never two stop words
    /// together). Requests say a lot with stop words; the index emits these pairs only for
    /// text written in users' words (docs/adr/0001).
    pub stop_pairs: bool,
}

impl AnalyzerConfig {
    pub const DEFAULT: AnalyzerConfig = AnalyzerConfig {
        han: HanMode::WordsAndNgrams,
        split_identifiers: true,
        stop_words: true,
        stem_plurals: true,
        id_shapes: true,
        shingles: true,
        stop_pairs: true,
    };
}

/// A built pipeline. Cheap to build (the Han dictionary is a static table); `terms` is cheap.
#[derive(Debug)]
pub struct Analyzer {
    config: AnalyzerConfig,
}

impl Analyzer {
    pub fn new(config: AnalyzerConfig) -> Analyzer {
        Analyzer { config }
    }

    /// The config this analyzer was built with.
    pub fn config(&self) -> AnalyzerConfig {
        self.config
    }

    /// Calls `emit` with every term of `text` (with repetitions, in text order). The string
    /// passed to `emit` is only valid for the call, so callers that keep terms copy them once.
    pub fn each_term(&self, text: &str, emit: &mut dyn FnMut(&str)) {
        let normalized = normalize(text);
        // One buffer for every lower-cased, stemmed or n-gram term of the text.
        let mut term = String::new();
        let mut pairs = self.config.shingles.then(Pairs::default);
        each_run(&normalized, |run| match run {
            Run::Han(han) => {
                self.han_terms(han, &mut term, emit);
                if let Some(pairs) = &mut pairs {
                    pairs.break_chain();
                }
            }
            Run::Word(word) => {
                if let Some(pairs) = &mut pairs {
                    // Only spaces may separate the previous run from this one.
                    let start = word.as_ptr() as usize - normalized.as_ptr() as usize;
                    if !normalized[pairs.end..start]
                        .chars()
                        .all(char::is_whitespace)
                    {
                        pairs.break_chain();
                    }
                    pairs.end = start + word.len();
                }
                self.word_terms(word, &mut term, pairs.as_mut(), emit);
            }
        });
    }

    /// The terms of `text` (with repetitions, in text order).
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.each_term(text, &mut |term| out.push(term.to_string()));
        out
    }

    /// Calls `emit` with the `#id:<prefix>` term of every identifier-shaped word of `text`,
    /// and nothing else (for texts that only say what shape an identifier has, such as a
    /// parameter's example value). Emits nothing unless `id_shapes` is on.
    pub fn each_id_shape(&self, text: &str, emit: &mut dyn FnMut(&str)) {
        if !self.config.id_shapes {
            return;
        }
        let normalized = normalize(text);
        let mut term = String::new();
        each_run(&normalized, |run| {
            if let Run::Word(word) = run {
                id_shape_term(word, &mut term, emit);
            }
        });
    }

    fn han_terms(&self, han: &str, gram: &mut String, emit: &mut dyn FnMut(&str)) {
        let stop = self.config.stop_words;
        if matches!(self.config.han, HanMode::Words | HanMode::WordsAndNgrams) {
            han::cut_for_search(han, &mut |word| {
                if !(stop && is_listed(&HAN_STOP_KEYS, word)) {
                    emit(word);
                }
            });
        }
        if matches!(self.config.han, HanMode::Ngrams | HanMode::WordsAndNgrams) {
            // N-gram terms carry a `#` so they never merge with a dictionary word.
            let mut chars = han.chars().peekable();
            while let Some(ch) = chars.next() {
                if !(stop && HAN_STOP_CHARS.contains(&ch)) {
                    gram.clear();
                    gram.push('#');
                    gram.push(ch);
                    emit(gram);
                }
                if let Some(&next) = chars.peek() {
                    gram.clear();
                    gram.push('#');
                    gram.push(ch);
                    gram.push(next);
                    emit(gram);
                }
            }
        }
    }

    /// Emits a word run's terms: the word, and an identifier's pieces; with `pairs`, each
    /// piece (the word itself when it has no pieces) also pairs with the one before it.
    fn word_terms(
        &self,
        word: &str,
        term: &mut String,
        mut pairs: Option<&mut Pairs>,
        emit: &mut dyn FnMut(&str),
    ) {
        // Without a connector or an upper-case letter a word is its only piece, unless it is a
        // numbered word (`kr2`).
        let pieces = if self.config.split_identifiers
            && (word.chars().any(|c| is_connector(c) || c.is_uppercase())
                || numbered_word(word).is_some())
        {
            identifier_pieces(word)
        } else {
            Vec::new()
        };
        // An acronym with an inflection (`URLs`, `DINGed`) is one piece shorter than its word.
        let compound = pieces.len() > 1 || pieces.first().is_some_and(|p| p.len() != word.len());
        lower_into(word, term);
        let mut whole = String::new();
        if compound || !self.is_stop(term) {
            self.stem(term);
            emit(term);
            if compound {
                whole.clone_from(term);
            }
            if let (false, Some(pairs)) = (compound, pairs.as_deref_mut()) {
                pairs.follow(term, emit);
            }
        } else if let (true, Some(pairs)) = (self.config.stop_pairs, pairs.as_deref_mut()) {
            pairs.follow_stop(term, emit);
        }
        if compound {
            for piece in pieces {
                lower_into(piece, term);
                if !self.is_stop(term) {
                    self.stem(term);
                    // `URLs` and its piece `URL` stem alike: one term, not two.
                    if *term != whole {
                        emit(term);
                    }
                    if let Some(pairs) = pairs.as_deref_mut() {
                        pairs.follow(term, emit);
                    }
                } else if let (true, Some(pairs)) = (self.config.stop_pairs, pairs.as_deref_mut()) {
                    pairs.follow_stop(term, emit);
                }
            }
        }
        if self.config.id_shapes {
            id_shape_term(word, term, emit);
        }
    }

    fn is_stop(&self, word: &str) -> bool {
        self.config.stop_words && is_listed(&ENGLISH_STOP_KEYS, word)
    }

    fn stem(&self, word: &mut String) {
        if self.config.stem_plurals {
            forms::stem_plural_in_place(word);
        }
    }
}

/// The state of word pairs along a text: the previous piece (empty: the chain is broken),
/// where the previous word run ended, a buffer for the pair, and for stop pairs the stop word
/// right before (empty: none) and whether `previous` is right before (no stop word since).
#[derive(Default)]
struct Pairs {
    previous: String,
    end: usize,
    pair: String,
    stop: String,
    previous_adjacent: bool,
}

impl Pairs {
    /// Emits the pair of the previous piece and `piece` (a lower-cased, stemmed, non-stop
    /// word term), and makes `piece` the previous one. A piece without a letter breaks the
    /// chain instead.
    fn follow(&mut self, piece: &str, emit: &mut dyn FnMut(&str)) {
        if !piece.bytes().any(|b| b.is_ascii_alphabetic()) {
            self.break_chain();
            return;
        }
        if !self.stop.is_empty() {
            emit(pair_term(&mut self.pair, &self.stop, piece));
            self.stop.clear();
        }
        if !self.previous.is_empty() {
            emit(pair_term(&mut self.pair, &self.previous, piece));
        }
        self.previous.clear();
        self.previous.push_str(piece);
        self.previous_adjacent = true;
    }

    /// Starts a new chain (after punctuation or Han text).
    fn break_chain(&mut self) {
        self.previous.clear();
        self.stop.clear();
        self.previous_adjacent = false;
    }

    /// A stop word (lower-cased, not stemmed): pairs with the word right before it and waits
    /// to pair with the next word; the skipping chain of [`Pairs::follow`] goes on past it. Of
    /// two stop words in a row only the nearer one pairs with the next word.
    fn follow_stop(&mut self, stop: &str, emit: &mut dyn FnMut(&str)) {
        if self.previous_adjacent {
            emit(pair_term(&mut self.pair, &self.previous, stop));
        }
        self.previous_adjacent = false;
        self.stop.clear();
        self.stop.push_str(stop);
    }
}

/// Writes the pair term of `first` and `second` into `buffer` and returns it.
fn pair_term<'a>(buffer: &'a mut String, first: &str, second: &str) -> &'a str {
    buffer.clear();
    buffer.push_str(PAIR_MARK);
    buffer.push_str(first);
    buffer.push(' ');
    buffer.push_str(second);
    buffer
}

/// Search-mode Han word segmentation (module `text::han`); exposed for the equivalence test.
pub fn cut_han_for_search<'a>(text: &'a str, emit: &mut dyn FnMut(&'a str)) {
    han::cut_for_search(text, emit);
}

/// NFKC, the only normalization before segmentation (case is folded per piece later,
/// after camelCase boundaries have been seen). Text NFKC would return unchanged (ASCII, most
/// Han text) comes back borrowed.
///
/// The text is normalized one segment at a time: a segment starts at a character that never
/// interacts with what precedes it (combining class 0 and quick check Yes: it does not
/// compose backward, nothing reorders across it, and NFKC keeps it), so NFKC of the text is
/// NFKC of its segments joined (UAX #15). Segments of one such character are copied; only
/// the others (around full-width punctuation, say) go through the normalizer.
pub fn normalize(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let mut out: Option<String> = None;
    // `text[..copied]` is in `out`; the pending segment starts at `segment`, and is `dirty`
    // when it holds more than its first character (or starts the text without one).
    let (mut copied, mut segment, mut dirty) = (0, 0, false);
    for (at, ch) in text.char_indices() {
        if starts_segment(ch) {
            if dirty {
                push_normalized(&mut out, text, copied, segment, at);
                copied = at;
            }
            segment = at;
            dirty = false;
        } else {
            dirty = true;
        }
    }
    if dirty {
        push_normalized(&mut out, text, copied, segment, text.len());
        copied = text.len();
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
    }
}

/// Appends to `out` (started on first use) the text copied so far up to `segment`, then the
/// NFKC of the segment `text[segment..end]`.
fn push_normalized(
    out: &mut Option<String>,
    text: &str,
    copied: usize,
    segment: usize,
    end: usize,
) {
    let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
    out.push_str(&text[copied..segment]);
    out.extend(text[segment..end].nfkc());
}

/// Whether `ch` has an NFKC boundary before it whatever precedes it, and NFKC keeps it.
fn starts_segment(ch: char) -> bool {
    // ASCII and the CJK Unified Ideographs block (most of the catalog's text) without a
    // table lookup: all of class 0 and quick check Yes.
    ch.is_ascii()
        || ('\u{4E00}'..='\u{9FFF}').contains(&ch)
        || (unicode_normalization::char::canonical_combining_class(ch) == 0
            && is_nfkc_quick(std::iter::once(ch)) == IsNormalized::Yes)
}

/// `word.to_lowercase()`, into `out`.
fn lower_into(word: &str, out: &mut String) {
    out.clear();
    if word.is_ascii() {
        out.push_str(word);
        out.make_ascii_lowercase();
    } else {
        out.push_str(&word.to_lowercase());
    }
}

/// The prefix of an identifier-shaped word: 1 to 8 ASCII letters, then `_` or `-`, then
/// letters and digits (more connector-separated parts allowed) with at least one digit after
/// the prefix — `evt_77310` → `evt`, `PROC-2024-118` → `PROC`, `room_8F_Delta` → `room`;
/// `send_message`, `v1`, `2024-05-01` and `Q3-plan` have none.
pub fn id_prefix(word: &str) -> Option<&str> {
    let split = word.find(['_', '-'])?;
    let (prefix, rest) = (&word[..split], &word[split + 1..]);
    let shaped = (1..=8).contains(&prefix.len())
        && prefix.bytes().all(|b| b.is_ascii_alphabetic())
        && !rest.is_empty()
        && rest
            .split(['_', '-'])
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric()))
        && rest.bytes().any(|b| b.is_ascii_digit());
    shaped.then_some(prefix)
}

/// How an identifier-shape term starts (`#id:evt`); the `#` keeps it apart from words, as for
/// Han n-grams.
pub const ID_SHAPE_MARK: &str = "#id:";

/// How a pair term starts (`#send message`): marked like an n-gram, told apart from one by the
/// space (see [`is_pair_term`]).
pub const PAIR_MARK: &str = "#";

/// Returns true if and only if `term` is an English word term: lower-case ASCII letters only.
pub fn is_english_word(term: &str) -> bool {
    !term.is_empty() && term.bytes().all(|b| b.is_ascii_lowercase())
}

/// The Snowball (Porter 2) English stem of a lower-case word: "convicted" and "conviction" →
/// "convict". Not an index term: the retriever uses it to find a query word's siblings among
/// the catalog's words (docs/adr/0001).
pub fn english_stem(word: &str) -> String {
    thread_local! {
        static STEMMER: rust_stemmers::Stemmer =
            rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
    }
    STEMMER.with(|stemmer| stemmer.stem(word).into_owned())
}

/// Returns true if and only if `term` is a pair term of [`AnalyzerConfig::shingles`].
pub fn is_pair_term(term: &str) -> bool {
    term.starts_with(PAIR_MARK) && term.contains(' ')
}

/// Emits `#id:<lower-cased prefix>` if `word` is identifier-shaped.
fn id_shape_term(word: &str, term: &mut String, emit: &mut dyn FnMut(&str)) {
    if let Some(prefix) = id_prefix(word) {
        term.clear();
        term.push_str(ID_SHAPE_MARK);
        term.push_str(prefix);
        term.make_ascii_lowercase();
        emit(term);
    }
}

fn is_connector(ch: char) -> bool {
    matches!(ch, '_' | '.' | '-')
}

fn is_word_char(ch: char) -> bool {
    !is_han(ch) && ch.is_alphanumeric()
}

#[derive(Debug, PartialEq, Eq)]
enum Run<'a> {
    Han(&'a str),
    Word(&'a str),
}

/// Splits normalized text into Han runs and word runs, in text order; everything else
/// separates. A connector belongs to a word run only between two word characters.
fn each_run<'t>(text: &'t str, mut f: impl FnMut(Run<'t>)) {
    let mut chars = text.char_indices().peekable();
    while let Some((start, ch)) = chars.next() {
        let mut end = start + ch.len_utf8();
        if is_han(ch) {
            while let Some((idx, c)) = chars.next_if(|&(_, c)| is_han(c)) {
                end = idx + c.len_utf8();
            }
            f(Run::Han(&text[start..end]));
        } else if is_word_char(ch) {
            while let Some(&(idx, c)) = chars.peek() {
                if is_word_char(c) {
                    end = idx + c.len_utf8();
                    chars.next();
                } else if is_connector(c) {
                    let after = idx + c.len_utf8();
                    match text[after..].chars().next() {
                        Some(next) if is_word_char(next) => {
                            end = after + next.len_utf8();
                            chars.next();
                            chars.next();
                        }
                        _ => break,
                    }
                } else {
                    break;
                }
            }
            f(Run::Word(&text[start..end]));
        }
    }
}

/// What may follow an acronym in one word without starting a word of its own: `URLs`,
/// `DINGed`, `RSVPd`, `CCing` (ADR 0001, session 19).
const ACRONYM_INFLECTIONS: &[&str] = &["d", "ed", "er", "ers", "es", "ing", "s"];

/// The pieces of an identifier: split on connectors, then at camelCase boundaries
/// (`getHTTPResponse` → get, HTTP, Response); letter/digit boundaries are kept together, except
/// that a numbered word's piece is its word (`KR2` → KR, `rename_Sheet3` → rename, Sheet; see
/// [`numbered_word`]). An acronym that ends its part with an inflection is one piece without it
/// (`getURLs` → get, URL; `DINGed` → DING), not an acronym cut before its last letter (UR, Ls).
fn identifier_pieces(word: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    for part in word.split(is_connector) {
        if part.is_empty() {
            continue;
        }
        let chars: Vec<(usize, char)> = part.char_indices().collect();
        let mut start = 0;
        for idx in 1..chars.len() {
            let prev = chars[idx - 1].1;
            let cur = chars[idx].1;
            let next = chars.get(idx + 1).map(|c| c.1);
            let lower_to_upper = prev.is_lowercase() && cur.is_uppercase();
            let acronym_end =
                prev.is_uppercase() && cur.is_uppercase() && next.is_some_and(|n| n.is_lowercase());
            if acronym_end {
                let rest = &part[chars[idx].0 + cur.len_utf8()..];
                if ACRONYM_INFLECTIONS.contains(&rest) {
                    pieces.push(&part[chars[start].0..chars[idx].0 + cur.len_utf8()]);
                    start = chars.len();
                    break;
                }
            }
            if lower_to_upper || acronym_end {
                pieces.push(&part[chars[start].0..chars[idx].0]);
                start = idx;
            }
        }
        if let Some(&(at, _)) = chars.get(start) {
            pieces.push(&part[at..]);
        }
    }
    for piece in &mut pieces {
        *piece = numbered_word(piece).unwrap_or(piece);
    }
    pieces
}

/// The word of a numbered word: two or more ASCII letters, then one or two digits and nothing
/// else (`KR2` → `KR`, `Sheet1` → `Sheet`, `FY24` → `FY`). `v2`, `Q3`, `2FA`, `sha256` and
/// `user7745` have none: one letter names nothing, and three digits or more make an identifier,
/// not a number in a series (docs/adr/0001, numbered words).
fn numbered_word(piece: &str) -> Option<&str> {
    let letters = piece.bytes().take_while(u8::is_ascii_alphabetic).count();
    (letters >= 2
        && letters < piece.len()
        && piece.len() - letters <= 2
        && piece.bytes().skip(letters).all(|b| b.is_ascii_digit()))
    .then(|| &piece[..letters])
}

/// English function words (sorted for binary search).
const ENGLISH_STOP_WORDS: &[&str] = &[
    "a", "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but",
    "by", "can", "could", "do", "does", "for", "from", "had", "has", "have", "he", "her", "him",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "let", "me", "my", "need",
    "needed", "needs", "nice", "of", "on", "or", "our", "please", "she", "so", "some", "than",
    "that", "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "us",
    "want", "wanted", "wants", "was", "we", "were", "what", "when", "which", "who", "will", "with",
    "would", "you", "your",
];

/// A text of at most 7 bytes as one integer: its bytes big-endian, zero-padded, then its
/// length in the low byte. Distinct texts get distinct keys, and (texts without NUL bytes) in
/// the same order; longer texts get `None`.
const fn short_key(text: &str) -> Option<u64> {
    let bytes = text.as_bytes();
    if bytes.len() > 7 {
        return None;
    }
    let mut key = 0u64;
    let mut idx = 0;
    while idx < 7 {
        let byte = if idx < bytes.len() { bytes[idx] } else { 0 };
        key = key << 8 | byte as u64;
        idx += 1;
    }
    Some(key << 8 | bytes.len() as u64)
}

/// The keys of a word list (each word at most 7 bytes), in list order.
const fn short_keys<const N: usize>(words: &[&str]) -> [u64; N] {
    let mut keys = [0u64; N];
    let mut idx = 0;
    while idx < N {
        keys[idx] = match short_key(words[idx]) {
            Some(key) => key,
            None => panic!("a stop word longer than 7 bytes"),
        };
        idx += 1;
    }
    keys
}

/// Returns true if and only if `word` is in the sorted key list `keys` (integer compares: the
/// stop-word tests run once per term).
fn is_listed(keys: &[u64], word: &str) -> bool {
    short_key(word).is_some_and(|key| keys.binary_search(&key).is_ok())
}

/// [`ENGLISH_STOP_WORDS`] as [`short_key`]s (sorted, as the words are).
const ENGLISH_STOP_KEYS: [u64; ENGLISH_STOP_WORDS.len()] = short_keys(ENGLISH_STOP_WORDS);

/// [`HAN_STOP_WORDS`] as sorted [`short_key`]s.
static HAN_STOP_KEYS: std::sync::LazyLock<Vec<u64>> = std::sync::LazyLock::new(|| {
    let mut keys = short_keys::<{ HAN_STOP_WORDS.len() }>(HAN_STOP_WORDS).to_vec();
    keys.sort_unstable();
    keys
});

/// Chinese function words dropped from dictionary segmentation.
const HAN_STOP_WORDS: &[&str] = &[
    "的", "了", "吗", "呢", "吧", "啊", "我", "你", "他", "她", "们", "我们", "帮", "帮我", "请",
    "一下", "把", "给", "在", "是", "和", "与", "及", "或", "这", "那", "这个", "那个", "一个",
    "能", "能否", "可以", "怎么", "如何", "什么", "哪些", "想", "要", "需要", "看看",
];

/// Single characters dropped from the unigram stream (their bigrams stay).
const HAN_STOP_CHARS: &[char] = &[
    '的', '了', '吗', '呢', '吧', '啊', '我', '你', '把', '给', '请', '是',
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Segment-wise NFKC equals NFKC of the whole text: on hand-picked interactions (a
    /// combining mark after full-width or decomposed text, Hangul jamo, reordering, ligatures)
    /// and on 20,000 pseudo-random mixes of such characters.
    #[test]
    fn normalize_equals_whole_text_nfkc() {
        let whole = |text: &str| text.nfkc().collect::<String>();
        for text in [
            "",
            "ａ\u{301}",
            "Ａ\u{301}\u{323}，e\u{301}",
            "e\u{323}\u{301}ａ",
            "\u{301}\u{301}abc",
            "\u{1100}\u{1161}\u{11A8}，\u{AC00}\u{11A8}",
            "ﬁle：①②，㈱（株）",
            "ｶﾞｷﾞ ｶ\u{FF9E}",
            "发送消息，撤回！",
            "\u{212B}\u{FB01}\u{1E9B}\u{323}",
        ] {
            assert_eq!(normalize(text), whole(text), "{text:?}");
        }
        for ch in '\u{4E00}'..='\u{9FFF}' {
            assert_eq!(
                unicode_normalization::char::canonical_combining_class(ch),
                0
            );
            assert_eq!(is_nfkc_quick(std::iter::once(ch)), IsNormalized::Yes);
        }
        let pool: Vec<char> = "aeAZ09 .,，。！？：（）ａｚＡ０①ﬁ㈱ｶﾞﾞ\u{3000}\u{300}\u{301}\u{323}\u{345}\u{1100}\u{1161}\u{11A8}\u{AC00}\u{212B}\u{1E9B}\u{0F73}\u{0F71}\u{0F72}\u{309B}\u{3099}か發送消息é"
            .chars()
            .collect();
        // xorshift64: a fixed pseudo-random sequence.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut length = 0x2545_F491_4F6C_DD1Du64 % 12;
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..length {
                text.push(pool[(next() % pool.len() as u64) as usize]);
            }
            length = next() % 12;
            assert_eq!(normalize(&text), whole(&text), "{text:?}");
        }
    }

    fn check(config: AnalyzerConfig, text: &str, expected: &str) {
        let analyzer = Analyzer::new(config);
        assert_eq!(analyzer.terms(text).join(" "), expected, "text: {text}");
    }

    const WORDS_ONLY: AnalyzerConfig = AnalyzerConfig {
        han: HanMode::Words,
        ..AnalyzerConfig::DEFAULT
    };
    const NGRAMS_ONLY: AnalyzerConfig = AnalyzerConfig {
        han: HanMode::Ngrams,
        ..AnalyzerConfig::DEFAULT
    };
    const NO_PAIRS: AnalyzerConfig = AnalyzerConfig {
        shingles: false,
        ..NGRAMS_ONLY
    };
    const NO_STOP_PAIRS: AnalyzerConfig = AnalyzerConfig {
        stop_pairs: false,
        ..NGRAMS_ONLY
    };

    #[test]
    fn identifiers_are_kept_whole_and_split() {
        check(
            NO_PAIRS,
            "chat.send_message",
            "chat.send_message chat send message",
        );
        check(
            NO_PAIRS,
            "getWeatherData",
            "getweatherdata get weather data",
        );
        check(NO_PAIRS, "MongoDBError", "mongodberror mongo db error");
        // An acronym with an inflection: its acronym, not two stray pieces (UR, Ls).
        check(NO_PAIRS, "send the URLs", "send url");
        check(NO_PAIRS, "I DINGed them", "dinged ding");
        check(NO_PAIRS, "RSVPd", "rsvpd rsvp");
        check(NO_PAIRS, "getURLs", "geturl get url");
        check(
            NO_PAIRS,
            "getHTTPResponse",
            "gethttpresponse get http response",
        );
        check(
            NO_PAIRS,
            "dws chat message-send",
            "dws chat message-send message send",
        );
    }

    #[test]
    fn numbered_words_also_give_their_word() {
        for (piece, word) in [
            ("KR2", Some("KR")),
            ("Sheet3", Some("Sheet")),
            ("FY24", Some("FY")),
            ("win11", Some("win")),
            ("v2", None),
            ("Q3", None),
            ("2FA", None),
            ("sha256", None),
            ("user7745", None),
            ("KR", None),
            ("KR2b", None),
        ] {
            assert_eq!(numbered_word(piece), word, "{piece}");
        }
        // The whole word stays a term; the pair follows the word, not the number.
        check(NO_PAIRS, "bump KR2", "bump kr2 kr");
        check(
            NGRAMS_ONLY,
            "rename Sheet2",
            "rename sheet2 sheet #rename sheet",
        );
        check(NO_PAIRS, "tab_Sheet12", "tab_sheet12 tab sheet #id:tab");
        check(NO_PAIRS, "v2 user7745 Q3", "v2 user7745 q3");
        // The same terms in the catalog's text and in the query: `Sheet2` finds `sheet`.
        check(
            NO_PAIRS,
            "重命名Sheet2",
            "#重 #重命 #命 #命名 #名 sheet2 sheet",
        );
    }

    #[test]
    fn identifier_shapes_add_a_prefix_term() {
        for (word, prefix) in [
            ("evt_77310", Some("evt")),
            ("PROC-2024-118", Some("PROC")),
            ("room_8F_Delta", Some("room")),
            ("u_7732", Some("u")),
            ("send_message", None),
            ("v1", None),
            ("2024-05-01", None),
            ("Q3-plan", None),
            ("toolongprefix_123", None),
            ("evt_", None),
            ("evt__1", None),
            ("chat.send_1", None),
        ] {
            assert_eq!(id_prefix(word), prefix, "{word}");
        }
        check(
            NGRAMS_ONLY,
            "evt_77310 几点",
            "evt_77310 evt 77310 #id:evt #几 #几点 #点",
        );
        check(
            AnalyzerConfig {
                id_shapes: false,
                ..NGRAMS_ONLY
            },
            "evt_77310",
            "evt_77310 evt 77310",
        );
        // An example value lends only its shape, none of its words.
        let analyzer = Analyzer::new(AnalyzerConfig::DEFAULT);
        let mut shapes = Vec::new();
        analyzer.each_id_shape("PROC-EF6Y-1, evt_9Kx2 and plain words", &mut |t| {
            shapes.push(t.to_string())
        });
        assert_eq!(shapes, ["#id:proc", "#id:evt"]);
    }

    #[test]
    fn full_width_and_case_are_normalized() {
        check(NGRAMS_ONLY, "ＣＨＡＴ Send", "chat send #chat send");
    }

    #[test]
    fn stop_words_and_plurals() {
        check(
            NO_PAIRS,
            "Send the messages to groups",
            "send message group",
        );
        // A singular in -ie meets its -ies plural (Harman alone leaves "movie" but makes
        // "movies" "movy"); -ies after a consonant still becomes -y.
        check(
            NO_PAIRS,
            "movie movies calorie calories tie ties replies",
            "movy movy calory calory ty ty reply",
        );
        check(NO_PAIRS, "the_status", "the_status status");
    }

    #[test]
    fn word_pairs_join_consecutive_pieces_of_one_clause() {
        // Stop words are skipped, plurals folded; an identifier pairs its pieces.
        check(
            NO_STOP_PAIRS,
            "Send the messages to groups",
            "send message #send message group #message group",
        );
        check(
            NO_STOP_PAIRS,
            "chat.send_message",
            "chat.send_message chat send #chat send message #send message",
        );
        // Punctuation, a Han run or a piece without a letter ends the chain.
        check(NO_STOP_PAIRS, "send, message", "send message");
        check(
            NO_STOP_PAIRS,
            "send 消息 message",
            "send #消 #消息 #息 message",
        );
        check(NO_STOP_PAIRS, "send 42 message", "send 42 message");
        check(
            NO_STOP_PAIRS,
            "send\tnew  message",
            "send new #send new message #new message",
        );
        check(NO_PAIRS, "send new message", "send new message");
    }

    #[test]
    fn stop_pairs_join_a_stop_word_with_its_neighbours() {
        // Each stop word pairs with the word right before and right after it; the skipping
        // pairs stay.
        check(
            NGRAMS_ONLY,
            "take her off the invite",
            "take #take her off #her off #take off #off the invite #the invite #off invite",
        );
        // Never two stop words together: of two in a row, only the nearer pairs onwards.
        check(
            NGRAMS_ONLY,
            "a list of the files",
            "list #a list #list of file #the file #list file",
        );
        // A chain break also ends a waiting stop word.
        check(NGRAMS_ONLY, "send to, group", "send #send to group");
        check(NGRAMS_ONLY, "send to 消息", "send #send to #消 #消息 #息");
        check(NO_PAIRS, "take her off", "take off");
        // An identifier's stop piece pairs like a stop word.
        check(NGRAMS_ONLY, "the_status", "the_status status #the status");
    }

    /// The stop-word keys answer exactly as the word lists.
    #[test]
    fn invariant_stop_keys_equal_the_lists() {
        assert!(ENGLISH_STOP_KEYS.windows(2).all(|w| w[0] < w[1]));
        let mut probes: Vec<String> = ENGLISH_STOP_WORDS
            .iter()
            .chain(HAN_STOP_WORDS)
            .flat_map(|w| {
                [
                    w.to_string(),
                    format!("{w}s"),
                    format!("{w}\0"),
                    w.chars().skip(1).collect(),
                ]
            })
            .collect();
        probes.extend(["", "\0", "abcdefg", "abcdefgh", "一下子", "我们的"].map(String::from));
        for probe in &probes {
            assert_eq!(
                is_listed(&ENGLISH_STOP_KEYS, probe),
                ENGLISH_STOP_WORDS.contains(&probe.as_str()),
                "{probe:?}"
            );
            assert_eq!(
                is_listed(&HAN_STOP_KEYS, probe),
                HAN_STOP_WORDS.contains(&probe.as_str()),
                "{probe:?}"
            );
        }
    }

    #[test]
    fn han_ngrams() {
        check(NGRAMS_ONLY, "发送消息", "#发 #发送 #送 #送消 #消 #消息 #息");
    }

    #[test]
    fn han_words_use_dictionary_and_domain_words() {
        check(
            WORDS_ONLY,
            "帮我发一条钉钉群聊消息",
            "发 一条 钉钉 群聊 消息",
        );
        check(WORDS_ONLY, "审批单", "审批 审批单");
    }

    #[test]
    fn segmentation_never_panics_on_odd_text() {
        let analyzer = Analyzer::new(AnalyzerConfig::DEFAULT);
        for text in [
            "",
            "...",
            "a.",
            ".a",
            "_-_",
            "😀中文😀",
            "\u{0}\u{7f}",
            "ǅungla",
            "ﬁle",
        ] {
            let _ = analyzer.terms(text);
        }
    }
}
