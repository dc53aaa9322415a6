//! The query side of [`FieldedBm25`]: the term ids a request's words and joined texts bring
//! (lexicon expansions, value words, WordNet's words, typo corrections, stem siblings, learned
//! pairs; each analysed once per retriever and cached), and how joined terms meet the
//! request's own ([`Joins`]).

use super::*;

/// How many English words `FieldedBm25` keeps their [`WordTerms`] for (a bound on the memory
/// a long-running `serve` spends on them; a word beyond it is worked out each time).
const WORD_CACHE_WORDS: usize = 50_000;

/// The term ids an English query word brings, worked out from the word alone: WordNet's
/// related words (with repetitions), its typo corrections (when it has at least
/// [`TYPO_MIN_LETTERS`] letters and the catalog lacks it) and its stem siblings (with
/// repetitions). Each list is empty when its weight is 0.
#[derive(Default)]
pub(super) struct WordTerms {
    pub(super) wordnet: Vec<u32>,
    pub(super) typo: Vec<u32>,
    pub(super) stems: Vec<u32>,
}

/// Per English query word, its [`WordTerms`] (filled on use, at most [`WORD_CACHE_WORDS`]
/// words; only looked up, never iterated, so its order cannot reach an answer). One lookup a
/// word for all three lists.
#[derive(Default)]
pub(super) struct WordCache(std::sync::Mutex<std::collections::HashMap<String, WordTerms>>);

impl WordCache {
    /// Hands `word`'s terms to `read`, computing them with `compute` on a miss.
    pub(super) fn with(
        &self,
        word: &str,
        compute: impl FnOnce() -> WordTerms,
        read: impl FnOnce(&WordTerms),
    ) {
        if let Ok(cache) = self.0.lock() {
            if let Some(terms) = cache.get(word) {
                read(terms);
                return;
            }
        }
        let terms = compute();
        read(&terms);
        if let Ok(mut cache) = self.0.lock() {
            if cache.len() < WORD_CACHE_WORDS {
                cache.insert(word.to_string(), terms);
            }
        }
    }
}

/// What a value a request names stands for (see `Bm25Config::date_weight`,
/// `Bm25Config::phone_weight`, `Bm25Config::money_weight`): a calendar date, a phone number, an
/// amount of money, a time of day.
const VALUE_WORDS: [&str; 4] = [
    "date 日期",
    "phone mobile 手机 电话",
    "amount 金额",
    "time 时间",
];

impl FieldedBm25 {
    /// Appends the ids of `text`'s terms, as the analyzer makes them, that the catalog has
    /// (added words: lexicon phrases, value words, WordNet's words).
    fn push_term_ids(&self, text: &str, ids: &mut Vec<u32>) {
        self.analyzer
            .each_term(text, &mut |term| ids.extend(self.index.terms.id(term)));
    }

    /// The term ids of a learned text (analysed once per retriever).
    pub(super) fn learned_term_ids(&self, text: u32) -> &[u32] {
        let pairs = self.learned();
        self.cached_term_ids(&self.learned_terms, pairs.text_count(), text, |id| {
            pairs.text(id)
        })
    }

    /// The term ids of text `text` of a table of `count` texts, analysed on first use into
    /// `cells` (one cell per text, sized on first use).
    fn cached_term_ids<'a>(
        &'a self,
        cells: &'a std::sync::OnceLock<Vec<std::sync::OnceLock<Vec<u32>>>>,
        count: usize,
        text: u32,
        text_of: impl Fn(u32) -> &'a str,
    ) -> &'a [u32] {
        let cells = cells.get_or_init(|| (0..count).map(|_| std::sync::OnceLock::new()).collect());
        match cells.get(text as usize) {
            Some(cell) => cell.get_or_init(|| {
                let mut ids = Vec::new();
                self.push_term_ids(text_of(text), &mut ids);
                ids
            }),
            None => &[],
        }
    }

    /// The term ids of a lexicon phrase text, in text order (analysed once per retriever).
    pub(super) fn expansion_term_ids(&self, text: u32) -> &[u32] {
        let lexicon = Lexicon::builtin();
        self.cached_term_ids(&self.expansion_terms, lexicon.text_count(), text, |id| {
            lexicon.text(id)
        })
    }

    /// The [`WordTerms`] of `word` (an English query word), uncached:
    /// - WordNet's: the term ids of the words WordNet relates to it;
    /// - typos: for a word of at least [`TYPO_MIN_LETTERS`] letters the catalog lacks, the ids
    ///   of the catalog's terms one edit away;
    /// - stems: the ids of the catalog's English word terms that share its Snowball stem but
    ///   are not the word.
    pub(super) fn word_terms_of(&self, word: &str) -> WordTerms {
        let terms = &self.index.terms;
        let mut out = WordTerms::default();
        if self.config.wn_weight > 0.0 {
            crate::text::each_wordnet_related(word, &mut |w| {
                self.push_term_ids(w, &mut out.wordnet)
            });
        }
        if self.config.typo_weight > 0.0
            && word.len() >= TYPO_MIN_LETTERS
            && terms.id(word).is_none()
        {
            each_one_edit_away(word, &mut |candidate| out.typo.extend(terms.id(candidate)));
        }
        if self.config.stem_weight > 0.0 {
            let siblings = self.index.stems.members(&english_stem(word));
            out.stems
                .extend(siblings.iter().filter(|&&id| terms.term(id) != word));
        }
        out
    }

    /// The term ids of `VALUE_WORDS[kind]`, analysed on first use.
    pub(super) fn value_term_ids(&self, kind: usize) -> &[u32] {
        self.value_terms[kind].get_or_init(|| {
            let mut ids = Vec::new();
            self.push_term_ids(VALUE_WORDS[kind], &mut ids);
            ids
        })
    }

    /// The ids (sorted) of the query's terms that occur only in its clauses naming what must
    /// stay untouched; empty when the rule is off or there is no such clause.
    pub(super) fn kept_only_terms(&self, query: &str, prepared: &PreparedQuery) -> Vec<u32> {
        if self.config.keep_clause_weight == 1.0 || !Lexicon::builtin().has_keep_cue(prepared) {
            return Vec::new();
        }
        let (rest, keep) = Lexicon::builtin().split_keep_clauses(query);
        self.terms_only_in(&keep, &rest)
    }

    /// The ids (sorted, unique) of the terms of `part` that `rest` does not have.
    pub(super) fn terms_only_in(&self, part: &str, rest: &str) -> Vec<u32> {
        if part.is_empty() {
            return Vec::new();
        }
        let terms = &self.index.terms;
        let mut in_rest: Vec<u32> = Vec::new();
        self.analyzer
            .each_term(rest, &mut |term| in_rest.extend(terms.id(term)));
        in_rest.sort_unstable();
        let mut only: Vec<u32> = Vec::new();
        self.analyzer.each_term(part, &mut |term| {
            only.extend(
                terms
                    .id(term)
                    .filter(|id| in_rest.binary_search(id).is_err()),
            );
        });
        only.sort_unstable();
        only.dedup();
        only
    }
}

/// The terms that join a query's own at lower weights (lexicon expansions, value words,
/// WordNet's words, typo corrections, stem siblings), in the order they are offered: a term
/// takes the weight of the first offer that has it and never replaces an own term. Collected
/// first and joined once (one sort instead of one per offer; the same terms and weights).
#[derive(Default)]
pub(super) struct Joins {
    /// (term, offer, weight), one per distinct term of each offer.
    terms: Vec<(u32, u32, f64)>,
    /// Per offer, where its terms came from.
    origins: Vec<Origin>,
}

impl Joins {
    /// Offers `expanded` (term ids, with repetitions) from `origin` at `weight` × ln(1 + qtf).
    pub(super) fn offer(&mut self, mut expanded: Vec<u32>, weight: f64, origin: Origin) {
        // Only joined terms are offered, so a term is the user's own iff its origin is the
        // request (`QueryTerm::is_own`).
        debug_assert_ne!(origin, Origin::Request);
        let offer = self.origins.len() as u32;
        self.origins.push(origin);
        for (term, qtf) in counted(&mut expanded) {
            self.terms
                .push((term, offer, (1.0 + f64::from(qtf)).ln() * weight));
        }
    }

    /// Adds each offered term `weights` (sorted by term) lacks, at its first offer's weight;
    /// keeps `weights` sorted.
    pub(super) fn join_into(mut self, weights: &mut Vec<QueryTerm>) {
        if self.terms.is_empty() {
            return;
        }
        self.terms
            .sort_unstable_by_key(|&(term, offer, _)| (term, offer));
        self.terms.dedup_by_key(|&mut (term, _, _)| term);
        let own = std::mem::take(weights);
        weights.reserve(own.len() + self.terms.len());
        let mut own = own.into_iter().peekable();
        for (term, offer, weight) in self.terms {
            while let Some(q) = own.next_if(|q| q.term < term) {
                weights.push(q);
            }
            if own.peek().is_some_and(|q| q.term == term) {
                continue;
            }
            weights.push(QueryTerm {
                term,
                weight,
                origin: self.origins[offer as usize],
            });
        }
        weights.extend(own);
    }
}

/// A query term the catalog uses, with its query-side weight.
pub(super) struct QueryTerm {
    pub(super) term: u32,
    pub(super) weight: f64,
    /// Where the term came from: the request's own words, or what joined them.
    pub(super) origin: Origin,
}

impl QueryTerm {
    /// The user's own term (not one that joined it: an expansion, a learned pair, ...).
    pub(super) fn is_own(&self) -> bool {
        self.origin == Origin::Request
    }
}

/// Where a query term came from: the request's own words, or what joined them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The user's own words (and their pairs, n-grams and identifier shapes).
    Request,
    /// A lexicon group one of the request's phrases belongs to (docs/adr/0004).
    Lexicon,
    /// The words of a value the request names: a date, a phone number, money, a time (0011).
    Value,
    /// WordNet's words related to an English word of the request (0014).
    WordNet,
    /// The catalog's word one edit away from an English word it lacks (0014).
    Typo,
    /// The catalog's other English words with a request word's Snowball stem (0001).
    Stem,
    /// A learned pair's catalog word (0015).
    Learned,
    /// The synonym twin of a Han word of the request: the same word as the bridge lends it to
    /// a summary that says it otherwise (0020).
    Synonym,
}

impl Origin {
    /// The name `toolsearch why` prints.
    pub fn name(self) -> &'static str {
        match self {
            Origin::Request => "request",
            Origin::Lexicon => "lexicon",
            Origin::Value => "value",
            Origin::WordNet => "wordnet",
            Origin::Typo => "typo",
            Origin::Stem => "stem",
            Origin::Learned => "learned",
            Origin::Synonym => "synonym",
        }
    }
}

/// Sorts `ids` and yields each distinct id with its count.
pub(super) fn counted(ids: &mut [u32]) -> impl Iterator<Item = (u32, u32)> + '_ {
    ids.sort_unstable();
    ids.chunk_by(|a, b| a == b)
        .map(|run| (run[0], run.len() as u32))
}

/// A request word shorter than this is never taken for a typo (short words have too many
/// neighbours one edit away).
const TYPO_MIN_LETTERS: usize = 5;

/// Calls `f` with every lower-case word one edit from `word` (a deletion, a transposition of
/// neighbours, a substitution or an insertion of a letter a–z), possibly more than once.
pub(super) fn each_one_edit_away(word: &str, f: &mut dyn FnMut(&str)) {
    let letters = word.as_bytes();
    let mut buffer: Vec<u8> = Vec::with_capacity(letters.len() + 1);
    let mut emit = |buffer: &[u8]| {
        if let Ok(candidate) = std::str::from_utf8(buffer) {
            f(candidate);
        }
    };
    for at in 0..letters.len() {
        buffer.clear();
        buffer.extend_from_slice(&letters[..at]);
        buffer.extend_from_slice(&letters[at + 1..]);
        emit(&buffer);
        if at + 1 < letters.len() {
            buffer.clear();
            buffer.extend_from_slice(letters);
            buffer.swap(at, at + 1);
            emit(&buffer);
        }
        for letter in b'a'..=b'z' {
            if letter != letters[at] {
                buffer.clear();
                buffer.extend_from_slice(letters);
                buffer[at] = letter;
                emit(&buffer);
            }
        }
    }
    for at in 0..=letters.len() {
        for letter in b'a'..=b'z' {
            buffer.clear();
            buffer.extend_from_slice(&letters[..at]);
            buffer.push(letter);
            buffer.extend_from_slice(&letters[at..]);
            emit(&buffer);
        }
    }
}
