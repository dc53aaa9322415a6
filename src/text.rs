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
//!    unigrams + overlapping bigrams, per [`HanMode`].
//!
//! **Invariant:** an [`Analyzer`] is a pure function of its [`AnalyzerConfig`] and the text;
//! the same config gives the same terms in any process (no hashing, no clocks).

mod han;

pub use han::fnv1a;

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
}

impl AnalyzerConfig {
    pub const DEFAULT: AnalyzerConfig = AnalyzerConfig {
        han: HanMode::WordsAndNgrams,
        split_identifiers: true,
        stop_words: true,
        stem_plurals: true,
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

    /// Calls `emit` with every term of `text` (with repetitions, in text order). The string
    /// passed to `emit` is only valid for the call, so callers that keep terms copy them once.
    pub fn each_term(&self, text: &str, emit: &mut dyn FnMut(&str)) {
        let normalized = normalize(text);
        // One buffer for every lower-cased, stemmed or n-gram term of the text.
        let mut term = String::new();
        each_run(&normalized, |run| match run {
            Run::Han(han) => self.han_terms(han, &mut term, emit),
            Run::Word(word) => self.word_terms(word, &mut term, emit),
        });
    }

    /// The terms of `text` (with repetitions, in text order).
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.each_term(text, &mut |term| out.push(term.to_string()));
        out
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

    fn word_terms(&self, word: &str, term: &mut String, emit: &mut dyn FnMut(&str)) {
        // Without a connector or an upper-case letter a word is its only piece.
        let pieces = if self.config.split_identifiers
            && word.chars().any(|c| is_connector(c) || c.is_uppercase())
        {
            identifier_pieces(word)
        } else {
            Vec::new()
        };
        let compound = pieces.len() > 1;
        lower_into(word, term);
        if compound || !self.is_stop(term) {
            self.stem(term);
            emit(term);
        }
        if compound {
            for piece in pieces {
                lower_into(piece, term);
                if !self.is_stop(term) {
                    self.stem(term);
                    emit(term);
                }
            }
        }
    }

    fn is_stop(&self, word: &str) -> bool {
        self.config.stop_words && is_listed(&ENGLISH_STOP_KEYS, word)
    }

    fn stem(&self, word: &mut String) {
        if self.config.stem_plurals {
            stem_plural_in_place(word);
        }
    }
}

/// Search-mode Han word segmentation (see [`han`]); exposed for the equivalence test.
pub fn cut_han_for_search<'a>(text: &'a str, emit: &mut dyn FnMut(&'a str)) {
    han::cut_for_search(text, emit);
}

/// NFKC, the only normalization before segmentation (case is folded per piece later,
/// after camelCase boundaries have been seen). Text the quick check proves normalized (ASCII,
/// most Han text) comes back borrowed: NFKC would return it unchanged.
pub fn normalize(text: &str) -> Cow<'_, str> {
    if is_nfkc_quick(text.chars()) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().collect())
    }
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

/// Returns true if and only if `ch` is a Han ideograph (CJK unified, extension A, compatibility).
pub fn is_han(ch: char) -> bool {
    matches!(ch as u32,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
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

/// The pieces of an identifier: split on connectors, then at camelCase boundaries
/// (`getHTTPResponse` → get, HTTP, Response) and letter/digit boundaries are kept together.
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
            if lower_to_upper || acronym_end {
                pieces.push(&part[chars[start].0..chars[idx].0]);
                start = idx;
            }
        }
        pieces.push(&part[chars[start].0..]);
    }
    pieces
}

/// Harman's S-stemmer: `-ies` → `-y`, `-es` → `-e` (not after a/e/o), `-s` → `` (not after u/s).
fn stem_plural(mut word: String) -> String {
    stem_plural_in_place(&mut word);
    word
}

/// [`stem_plural`] in place.
fn stem_plural_in_place(word: &mut String) {
    let len = word.len();
    if len <= 3 || !word.bytes().all(|b| b.is_ascii_alphabetic()) {
        return;
    }
    if word
        .strip_suffix("ies")
        .is_some_and(|stem| !stem.ends_with(['e', 'a']))
    {
        word.truncate(len - 3);
        word.push('y');
    } else if word
        .strip_suffix("es")
        .is_some_and(|stem| !stem.ends_with(['a', 'e', 'o']))
    {
        // `{stem}e`: the word without its final `s`.
        word.truncate(len - 1);
    } else if word.ends_with('s') && !word.ends_with("us") && !word.ends_with("ss") {
        word.truncate(len - 1);
    }
}

/// The query-expansion lexicon compiled into the binary (docs/adr/0004).
const LEXICON: &str = include_str!("text/lexicon.txt");

/// A phrase of the lexicon, in matchable form.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Phrase {
    /// Contains Han, or no word at all (`?`): matched as a substring of the normalized,
    /// lower-cased query.
    Han(String),
    /// ASCII words (lower-cased, plural-stemmed): matched as a contiguous word sequence.
    Words(Vec<String>),
}

/// Groups of equivalent phrases, and the cues of destructive intent.
#[derive(Debug, Default)]
pub struct Lexicon {
    groups: Vec<Vec<(Phrase, String)>>,
    /// Every distinct phrase text of the groups, in first-seen order, and per group phrase the
    /// index of its text there (so a retriever can cache each text's analysis).
    texts: Vec<String>,
    text_ids: Vec<Vec<u32>>,
    destructive: Vec<Phrase>,
    /// Cues of a question or a lookup (`!read`), and of asking for a change (`!write`).
    read: Vec<Phrase>,
    write: Vec<Phrase>,
    /// Cues of a clause that names what must stay untouched (`!keep`: 留着, keep …).
    keep: Vec<Phrase>,
    /// The phrases (of two characters or more) of every group headed by a destructive cue
    /// that are not cues themselves: destroying in other words (scrap, 不开了).
    destructive_synonyms: Vec<Phrase>,
    /// Phrases that can trigger a group (Han of ≥ 2 characters, by first character; words, by
    /// first word), as (group, phrase) — a lookup table, so matching costs the query's length,
    /// not the lexicon's.
    han_triggers: std::collections::HashMap<char, Vec<(usize, usize)>>,
    word_triggers: std::collections::HashMap<String, Vec<(usize, usize)>>,
}

/// Lower-cased, lemmatised words of normalized text (Han runs split words), for phrase
/// matching only: index terms never go through this.
fn plain_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() || is_han(c))
        .filter(|w| !w.is_empty())
        .map(|w| lemma(w.to_lowercase()))
        .collect()
}

/// A crude English lemma for lexicon matching: `-ing` / `-ed` dropped (with a doubled final
/// consonant undone, `-ied` → `-y`), then plurals folded. Both the lexicon's phrases and the
/// query go through it, so `streamed` meets `stream` and `finished` meets `finish`.
fn lemma(word: String) -> String {
    fn undouble(stem: &str) -> String {
        let bytes = stem.as_bytes();
        let n = bytes.len();
        if n >= 3 && bytes[n - 1] == bytes[n - 2] && !matches!(bytes[n - 1], b'l' | b's' | b'z') {
            stem[..n - 1].to_string()
        } else {
            stem.to_string()
        }
    }
    if !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word;
    }
    let base = if let Some(stem) = word.strip_suffix("ied").filter(|s| s.len() >= 2) {
        format!("{stem}y")
    } else if let Some(stem) = word.strip_suffix("ing").filter(|s| s.len() >= 3) {
        undouble(stem)
    } else if let Some(stem) = word.strip_suffix("ed").filter(|s| s.len() >= 3) {
        undouble(stem)
    } else {
        word
    };
    stem_plural(base)
}

fn phrase(text: &str) -> Phrase {
    let lowered = normalize(text).to_lowercase();
    if lowered.chars().any(is_han) {
        return Phrase::Han(lowered);
    }
    let words = plain_words(&lowered);
    // Text without any word (a question mark) matches as a substring, like Han text.
    if words.is_empty() {
        Phrase::Han(lowered)
    } else {
        Phrase::Words(words)
    }
}

/// A query prepared once for phrase matching.
pub struct PreparedQuery {
    lowered: String,
    words: Vec<String>,
}

impl PreparedQuery {
    pub fn new(query: &str) -> PreparedQuery {
        let lowered = normalize(query).to_lowercase();
        let words = plain_words(&lowered);
        PreparedQuery { lowered, words }
    }

    /// False when `text` is empty or its first character is not in the query: a cheap
    /// rejection before a substring search (most cues are absent from most queries).
    fn may_hold(&self, text: &str) -> bool {
        text.chars()
            .next()
            .is_some_and(|c| self.lowered.contains(c))
    }

    /// Returns true if and only if `phrase` occurs in the query at a place `accept` takes.
    /// The one matcher of phrases: Han text as a substring, words as a word sequence.
    fn occurs(&self, phrase: &Phrase, accept: impl Fn(Occurrence<'_>) -> bool) -> bool {
        match phrase {
            Phrase::Han(text) => {
                self.may_hold(text)
                    && self.lowered.match_indices(text.as_str()).any(|(at, _)| {
                        accept(Occurrence::Text {
                            cue: text,
                            before: &self.lowered[..at],
                            after: &self.lowered[at + text.len()..],
                        })
                    })
            }
            Phrase::Words(words) => {
                !words.is_empty()
                    && self
                        .words
                        .windows(words.len())
                        .enumerate()
                        .any(|(at, window)| {
                            window == words.as_slice()
                                && accept(Occurrence::Words {
                                    before: &self.words[..at],
                                })
                        })
            }
        }
    }

    /// Returns true if and only if `phrase` occurs in the query as an order: at least one
    /// occurrence is not negated (别删, don't delete), not told as something that already
    /// happened (误删, 已经删了) and not half of an A-not-A question (开没开).
    fn contains_order(&self, phrase: &Phrase) -> bool {
        self.occurs(phrase, |occurrence| match occurrence {
            Occurrence::Text { cue, before, after } => {
                !not_an_order_before(before) && !a_not_a(cue, before, after)
            }
            Occurrence::Words { before } => !negated_words(before),
        })
    }

    /// Returns true if and only if `phrase` occurs in the query. Han phrases of a single
    /// scalar only match when `allow_single` (they are too ambiguous as expansion triggers).
    fn contains(&self, phrase: &Phrase, allow_single: bool) -> bool {
        let too_short = matches!(phrase, Phrase::Han(text) if text.chars().count() < 2);
        (allow_single || !too_short) && self.occurs(phrase, |_| true)
    }
}

/// Where a phrase occurs in a query: for Han text (or a question mark) the text around it,
/// for words the words before it.
enum Occurrence<'q> {
    Text {
        cue: &'q str,
        before: &'q str,
        after: &'q str,
    },
    Words {
        before: &'q [String],
    },
}

impl Lexicon {
    /// Parses the lexicon format (see `text/lexicon.txt`).
    pub fn parse(text: &str) -> Lexicon {
        let mut lexicon = Lexicon::default();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let cue_list = [
                ("!destructive", &mut lexicon.destructive),
                ("!read", &mut lexicon.read),
                ("!write", &mut lexicon.write),
                ("!keep", &mut lexicon.keep),
            ]
            .into_iter()
            .find_map(|(prefix, list)| line.strip_prefix(prefix).map(|cues| (cues, list)));
            if let Some((cues, list)) = cue_list {
                list.extend(
                    cues.split('|')
                        .map(str::trim)
                        .filter(|c| !c.is_empty())
                        .map(phrase),
                );
                continue;
            }
            let group: Vec<(Phrase, String)> = line
                .split('|')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| (phrase(p), p.to_string()))
                .collect();
            if group.len() > 1 {
                lexicon.groups.push(group);
            }
        }
        let mut text_index: std::collections::HashMap<&str, u32> = Default::default();
        for group in &lexicon.groups {
            let ids = group
                .iter()
                .map(|(_, text)| {
                    *text_index.entry(text.as_str()).or_insert_with(|| {
                        lexicon.texts.push(text.clone());
                        (lexicon.texts.len() - 1) as u32
                    })
                })
                .collect();
            lexicon.text_ids.push(ids);
        }
        for group in &lexicon.groups {
            if group
                .first()
                .is_some_and(|(p, _)| lexicon.destructive.contains(p))
            {
                for (p, _) in group {
                    let long = !matches!(p, Phrase::Han(t) if t.chars().count() < 2);
                    if long
                        && !lexicon.destructive.contains(p)
                        && !lexicon.destructive_synonyms.contains(p)
                    {
                        lexicon.destructive_synonyms.push(p.clone());
                    }
                }
            }
        }
        for (group_idx, group) in lexicon.groups.iter().enumerate() {
            for (phrase_idx, (phrase, _)) in group.iter().enumerate() {
                match phrase {
                    Phrase::Han(text) if text.chars().count() >= 2 => {
                        if let Some(first) = text.chars().next() {
                            lexicon
                                .han_triggers
                                .entry(first)
                                .or_default()
                                .push((group_idx, phrase_idx));
                        }
                    }
                    Phrase::Words(words) => {
                        if let Some(first) = words.first() {
                            lexicon
                                .word_triggers
                                .entry(first.clone())
                                .or_default()
                                .push((group_idx, phrase_idx));
                        }
                    }
                    Phrase::Han(_) => {}
                }
            }
        }
        lexicon
    }

    /// Which groups the query touches: a group is touched when one of its phrases occurs in
    /// the query (Han phrases of one character excepted).
    fn touched_groups(&self, query: &PreparedQuery) -> Vec<bool> {
        let mut touched = vec![false; self.groups.len()];
        for (idx, ch) in query.lowered.char_indices() {
            for &(group, phrase) in self.han_triggers.get(&ch).into_iter().flatten() {
                if let Phrase::Han(text) = &self.groups[group][phrase].0 {
                    if query.lowered[idx..].starts_with(text.as_str()) {
                        touched[group] = true;
                    }
                }
            }
        }
        for (idx, word) in query.words.iter().enumerate() {
            for &(group, phrase) in self.word_triggers.get(word).into_iter().flatten() {
                if let Phrase::Words(words) = &self.groups[group][phrase].0 {
                    if query.words[idx..].starts_with(words) {
                        touched[group] = true;
                    }
                }
            }
        }
        touched
    }

    /// The lexicon compiled into the binary, parsed once per process.
    pub fn builtin() -> &'static Lexicon {
        static BUILTIN: std::sync::OnceLock<Lexicon> = std::sync::OnceLock::new();
        BUILTIN.get_or_init(|| Lexicon::parse(LEXICON))
    }

    /// The phrases of every group the query touches, other than those it already contains
    /// (in lexicon order, each phrase once), as text ids (see [`Lexicon::text`]). A retriever
    /// analyses each text on its own: the same terms as analysing them joined by spaces,
    /// since a space ends every run.
    pub fn expansion(&self, query: &PreparedQuery) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        let touched = self.touched_groups(query);
        for (group, ids) in self
            .groups
            .iter()
            .zip(&self.text_ids)
            .zip(touched)
            .filter_map(|(pair, touched)| touched.then_some(pair))
        {
            for ((p, _), &id) in group.iter().zip(ids) {
                if !out.contains(&id) && !query.contains(p, true) {
                    out.push(id);
                }
            }
        }
        out
    }

    /// How many distinct phrase texts the lexicon has (text ids run below this).
    pub fn text_count(&self) -> usize {
        self.texts.len()
    }

    /// The phrase text of a text id.
    pub fn text(&self, id: u32) -> &str {
        self.texts.get(id as usize).map_or("", String::as_str)
    }

    /// Returns true if and only if the query mentions `name` or a phrase of a group that
    /// contains `name` (so `网盘` mentions the product named `钉盘`).
    pub fn mentions(&self, query: &PreparedQuery, name: &str) -> bool {
        let target = phrase(name);
        if query.contains(&target, false) {
            return true;
        }
        self.groups
            .iter()
            .filter(|group| group.iter().any(|(p, _)| *p == target))
            .any(|group| group.iter().any(|(p, _)| query.contains(p, false)))
    }

    /// Splits a query into the text of its clauses that name what must stay untouched
    /// ("文字纪要留着", "but keep the event") and the text of all other clauses. Clauses end
    /// at sentence punctuation and before 但 / but.
    pub fn split_keep_clauses(&self, query: &str) -> (String, String) {
        let mut rest = String::new();
        let mut keep = String::new();
        for clause in clauses(query) {
            let prepared = PreparedQuery::new(clause);
            let target = if self.keep.iter().any(|p| prepared.contains(p, true)) {
                &mut keep
            } else {
                &mut rest
            };
            target.push_str(clause);
            target.push('\n');
        }
        (rest, keep)
    }

    /// Returns true if and only if the query holds a cue of a clause naming what must stay
    /// untouched (a cheap test before [`Lexicon::split_keep_clauses`]).
    pub fn has_keep_cue(&self, query: &PreparedQuery) -> bool {
        self.keep.iter().any(|p| query.contains(p, true))
    }

    /// Returns true if and only if the query contains a cue of destructive intent: a phrase of
    /// the `!destructive` line, or any phrase (of two characters or more) of a lexicon group
    /// whose first phrase is one (取消 | … | scrap | kill: its synonyms destroy too).
    pub fn has_destructive_intent(&self, query: &PreparedQuery) -> bool {
        self.destructive
            .iter()
            .chain(&self.destructive_synonyms)
            .any(|p| query.contains_order(p))
    }

    /// Returns true if and only if the query only asks to look something up: it holds a cue
    /// of reading (a question, a lookup verb) and none of writing or destroying.
    pub fn has_read_only_intent(&self, query: &PreparedQuery) -> bool {
        self.read.iter().any(|p| query.contains(p, true))
            && !self.write.iter().any(|p| query.contains_order(p))
            && !self.has_destructive_intent(query)
    }
}

/// The clauses of a text (blank ones left out): split at sentence punctuation, and before 但
/// and the word "but".
fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (at, ch) in text.char_indices() {
        let boundary = matches!(
            ch,
            '，' | ',' | '。' | '；' | ';' | '！' | '!' | '？' | '?' | '\n' | '—'
        );
        let before_but = ch == '但'
            || (text[at..]
                .get(..4)
                .is_some_and(|w| w.eq_ignore_ascii_case("but "))
                && text[..at].ends_with(' '));
        if boundary || before_but {
            if !text[start..at].trim().is_empty() {
                out.push(&text[start..at]);
            }
            start = if boundary { at + ch.len_utf8() } else { at };
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(&text[start..]);
    }
    out
}

/// What, right before a Han cue, makes it no order: a negation (别删, 不要发) or a past
/// mishap or fact (误删, 不小心删了, 已经删了, 已撤销).
const NOT_AN_ORDER_HAN: &[&str] = &[
    "别",
    "不要",
    "不用",
    "无需",
    "不必",
    "误",
    "不小心",
    "已经",
    "已",
];

/// Words that end like a marker of [`NOT_AN_ORDER_HAN`] but are none (分别发 = send to each).
const NOT_A_MARKER_HAN: &[&str] = &[
    "分别", "特别", "区别", "类别", "级别", "个别", "告别", "识别", "差别", "性别", "错误", "无误",
];

/// Returns true if and only if the text right before a Han cue makes it no order.
fn not_an_order_before(before: &str) -> bool {
    NOT_AN_ORDER_HAN.iter().any(|m| before.ends_with(m))
        && !NOT_A_MARKER_HAN.iter().any(|w| before.ends_with(w))
}

/// Returns true if and only if a Han cue is half of an A-not-A question (开没开, 发没发,
/// 删不删): asking whether, not ordering.
fn a_not_a(cue: &str, before: &str, after: &str) -> bool {
    ["没", "不"].iter().any(|not| {
        after
            .strip_prefix(not)
            .is_some_and(|rest| rest.starts_with(cue))
            || before
                .strip_suffix(not)
                .is_some_and(|rest| rest.ends_with(cue))
    })
}

/// Returns true if and only if the words right before an English cue negate it or tell it
/// as past (don't, didn't, do not, never, no need to).
fn negated_words(before: &[String]) -> bool {
    match before {
        [.., a, b] if (a == "don" || a == "didn") && b == "t" => true,
        [.., a, b] if a == "do" && b == "not" => true,
        [.., a, b, c] if a == "no" && b == "need" && c == "to" => true,
        [.., a] => a == "never",
        _ => false,
    }
}

/// English function words (sorted for binary search).
const ENGLISH_STOP_WORDS: &[&str] = &[
    "a", "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but",
    "by", "can", "could", "do", "does", "for", "from", "had", "has", "have", "he", "her", "him",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "let", "me", "my", "of",
    "on", "or", "our", "please", "she", "so", "some", "than", "that", "the", "their", "them",
    "then", "there", "these", "they", "this", "those", "to", "us", "was", "we", "were", "what",
    "when", "which", "who", "will", "with", "would", "you", "your",
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

    #[test]
    fn identifiers_are_kept_whole_and_split() {
        check(
            NGRAMS_ONLY,
            "chat.send_message",
            "chat.send_message chat send message",
        );
        check(
            NGRAMS_ONLY,
            "getWeatherData",
            "getweatherdata get weather data",
        );
        check(NGRAMS_ONLY, "MongoDBError", "mongodberror mongo db error");
        check(
            NGRAMS_ONLY,
            "dws chat message-send",
            "dws chat message-send message send",
        );
    }

    #[test]
    fn full_width_and_case_are_normalized() {
        check(NGRAMS_ONLY, "ＣＨＡＴ Send", "chat send");
    }

    #[test]
    fn stop_words_and_plurals() {
        check(
            NGRAMS_ONLY,
            "Send the messages to groups",
            "send message group",
        );
        check(NGRAMS_ONLY, "the_status", "the_status status");
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

    /// The trigger index must find exactly the groups a scan of every phrase finds.
    #[test]
    fn invariant_trigger_index_equals_full_scan() {
        let lexicon = Lexicon::builtin();
        for text in [
            "帮我看看这条群消息谁还没读",
            "Which of my tasks are overdue?",
            "把日程推迟到明天，再发个通知",
            "get rid of the Fax column",
            "clock in clock out",
            "撤回 recall 钉盘 drive",
            "",
        ] {
            let query = PreparedQuery::new(text);
            let scanned: Vec<bool> = lexicon
                .groups
                .iter()
                .map(|group| group.iter().any(|(p, _)| query.contains(p, false)))
                .collect();
            assert_eq!(lexicon.touched_groups(&query), scanned, "{text}");
        }
    }

    impl Lexicon {
        /// [`Lexicon::expansion`] as text, joined by spaces.
        fn expand(&self, query: &PreparedQuery) -> String {
            self.expansion(query)
                .into_iter()
                .map(|id| self.text(id))
                .collect::<Vec<_>>()
                .join(" ")
        }
    }

    #[test]
    fn lexicon_expands_across_languages_and_detects_destructive_intent() {
        let lexicon = Lexicon::builtin();
        let query = PreparedQuery::new("Which of my tasks are overdue?");
        let expansion = lexicon.expand(&query);
        assert!(
            expansion.contains("待办") && expansion.contains("逾期"),
            "{expansion}"
        );
        assert!(!lexicon.has_destructive_intent(&query));
        assert!(lexicon.has_destructive_intent(&PreparedQuery::new("把刚才那条撤回")));
        assert!(lexicon.has_destructive_intent(&PreparedQuery::new("get rid of the Fax column")));
        // Inflections meet their base forms on both sides.
        assert!(lexicon
            .expand(&PreparedQuery::new("it was streamed"))
            .contains("直播"));
        assert_eq!(lemma("finished".into()), "finish");
        assert_eq!(lemma("planning".into()), "plan");
        assert_eq!(lemma("copied".into()), "copy");
        // Single Han characters never trigger an expansion.
        assert_eq!(lexicon.expand(&PreparedQuery::new("发")), "");
    }

    #[test]
    fn read_only_intent_needs_a_question_and_no_order() {
        let lexicon = Lexicon::builtin();
        let read_only = |q: &str| lexicon.has_read_only_intent(&PreparedQuery::new(q));
        assert!(read_only("Which of my tasks are overdue?"));
        assert!(read_only("审批单现在卡在谁那儿了？"));
        assert!(read_only("看看钉盘项目资料文件夹下面都放了些啥"));
        // An order, even phrased as a question, is not a lookup.
        assert!(!read_only("can you move the meeting to 3pm?"));
        assert!(!read_only("能帮我把会议改到三点吗"));
        assert!(!read_only("Stop showing that calendar in my view"));
        // Destroying is never a lookup, and a bare statement asks nothing.
        assert!(!read_only("which drafts should I delete?"));
        assert!(!read_only("季度预算表"));
        // A question mark alone asks (it has no word, so it matches as text).
        assert!(read_only("季度预算表？"));
        assert!(read_only("Q3 budget sheet?"));
    }

    #[test]
    fn keep_clauses_are_split_from_the_request() {
        let lexicon = Lexicon::builtin();
        let split = |q: &str| lexicon.split_keep_clauses(q);
        assert_eq!(
            split("录像彻底删掉，文字纪要留着"),
            ("录像彻底删掉\n".to_string(), "文字纪要留着\n".to_string())
        );
        assert_eq!(
            split("Cancel the room I reserved, but keep the interview itself on the calendar"),
            (
                "Cancel the room I reserved\n".to_string(),
                "but keep the interview itself on the calendar\n".to_string()
            )
        );
        // "keeps" (goes on) and a clause without a cue keep nothing.
        assert_eq!(split("something keeps posting alerts").1, "");
        assert_eq!(split("把预算表删掉").1, "");
        assert_eq!(clauses("a,,b — c but d"), ["a", "b ", " c ", "but d"]);
        assert_eq!(clauses("但"), ["但"]);
        assert!(clauses("").is_empty());
    }

    #[test]
    fn a_negated_or_past_cue_is_no_order() {
        let lexicon = Lexicon::builtin();
        let destructive = |q: &str| lexicon.has_destructive_intent(&PreparedQuery::new(q));
        let read_only = |q: &str| lexicon.has_read_only_intent(&PreparedQuery::new(q));
        // A mishap or a fact told, and a negated order, ask to destroy nothing.
        assert!(!destructive("我好像误删了一个文件"));
        assert!(!destructive("不小心删了"));
        assert!(!destructive("已撤销的审批"));
        assert!(!destructive("别删，先留着"));
        assert!(!destructive("don't delete it, just archive"));
        assert!(!destructive("do not remove anyone"));
        assert!(read_only("回收站里都有哪些文件？我好像误删了一个"));
        assert!(read_only("周报已经发了吗？"));
        // An A-not-A question asks whether; it orders nothing.
        assert!(read_only("群主是谁，开没开入群验证？"));
        assert!(!read_only("把入群验证开了，群主是谁？"));
        // A word that merely ends like a marker masks nothing (分别 = to each).
        assert!(!read_only("分别发给张三和李四，谁还没读？"));
        assert!(destructive("识别删除"));
        // One unmasked occurrence is enough, and "can't" does not negate a wish.
        assert!(destructive("误删的那个不管，把这个删了"));
        assert!(destructive("I can't delete this file, do it for me"));
        assert!(destructive("把刚才那条撤回"));
        // The synonyms of a group headed by a destructive cue are cues too; a group that
        // merely contains one (an object group with "trash") lends nothing.
        assert!(destructive("scrap my half-written draft"));
        assert!(destructive("周二例会从下个月起就不开了"));
        assert!(!destructive("回收站里都有哪些文件？"));
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
