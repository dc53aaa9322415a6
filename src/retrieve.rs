//! Lexical retrieval behind the [`Retriever`] trait, and the registry of retrievers by name.
//!
//! The default, `fielded_bm25`, scores each tool with BM25F over identity / summary /
//! description / parameters / use_when (weighted term frequencies summed over fields, saturated
//! once; docs/adr/0003), times intent multipliers (destructive 0005, read-only 0008).
//! Alternatives exist so `toolsearch eval --compare` can measure choices.
//!
//! Speed without a changed bit: per-term merged postings are cached ([`FieldedBm25::warm`]
//! fills them ahead); `FieldedBm25::prune` keeps only the tools that can reach the cut and
//! scores just those field by field, with the same operations in the same order.
//!
//! **Invariants**
//! - A retriever never returns an ineligible tool, nor a tool with a zero score.
//! - Output is a total order: score rounded to [`SCORE_ROUNDING`] descending, then
//!   canonical path ascending (= `ToolId` ascending, as the catalog is sorted).
//! - Float sums are accumulated in a fixed order (terms sorted, fields in [`Field::ALL`]
//!   order, postings in `ToolId` order), so the same request gives the same bits.

use crate::catalog::{Catalog, ToolId};
use crate::index::Index;
use crate::limits::SCORE_ROUNDING;
use crate::text::{
    english_stem, is_english_word, is_pair_term, split_quoted, Analyzer, AnalyzerConfig, HanMode,
    LearnedPairs, Lexicon, PreparedQuery, ID_SHAPE_MARK,
};
use crate::wire::Effect;

pub use crate::index::{Field, N_FIELDS};

/// A scored tool before the cut.
#[derive(Debug, Clone)]
pub struct Hit {
    pub tool: ToolId,
    /// Final score: the field sum times `multiplier`.
    pub score: f64,
    /// Weighted contribution of each field, in [`Field::ALL`] order.
    pub fields: [f64; N_FIELDS],
    /// The intent and product multipliers times the coordination factor.
    pub multiplier: f64,
    /// Share of the query's idf mass this tool matched (original query terms only).
    pub coverage: f64,
    /// The retriever's judgement that this hit answers the query (not a weak match).
    pub confident: bool,
}

/// A lexical retriever. Its `name` is the response's `strategy`.
pub trait Retriever: Send + Sync {
    fn name(&self) -> &'static str;
    /// The best `limit` eligible tools for `query`, in the total order described above.
    fn search(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<Hit>;
    /// Fills the retriever's query-independent caches ahead of use, until done or `stop` is
    /// set (a long-running server calls it from a second thread). Never changes an answer.
    fn warm(&self, _stop: &std::sync::atomic::AtomicBool) {}
}

/// The retriever used when none is named.
pub const DEFAULT_RETRIEVER: &str = "fielded_bm25";

/// Every registered retriever name.
pub const RETRIEVERS: &[&str] = &["fielded_bm25", "fielded_bm25_ngram", "bm25_single_field"];

/// The configuration of a registered retriever name.
pub fn config_of(name: &str) -> Option<Bm25Config> {
    match name {
        "fielded_bm25" => Some(Bm25Config::DEFAULT),
        "fielded_bm25_ngram" => Some(Bm25Config::DWS),
        "bm25_single_field" => Some(Bm25Config::SINGLE_FIELD),
        _ => None,
    }
}

/// Builds the named retriever over `catalog`, or `None` for an unknown name.
pub fn build(name: &str, catalog: &Catalog) -> Option<Box<dyn Retriever>> {
    build_with(name, config_of(name)?, catalog, None)
}

/// Builds the named retriever with an explicit (possibly overridden) configuration, and with
/// learned pairs parsed at run time when given (else the compiled ones).
pub fn build_with(
    name: &str,
    config: Bm25Config,
    catalog: &Catalog,
    learned_pairs: Option<std::sync::Arc<crate::text::learned::Tables>>,
) -> Option<Box<dyn Retriever>> {
    let retriever = FieldedBm25::new(name_static(name)?, config, catalog);
    Some(Box::new(match learned_pairs {
        Some(tables) => retriever.with_learned_pairs(tables),
        None => retriever,
    }))
}

fn name_static(name: &str) -> Option<&'static str> {
    RETRIEVERS.iter().copied().find(|n| *n == name)
}

/// How many English words `FieldedBm25` keeps their [`WordTerms`] for (a bound on the memory
/// a long-running `serve` spends on them; a word beyond it is worked out each time).
const WORD_CACHE_WORDS: usize = 50_000;

/// The term ids an English query word brings, worked out from the word alone: WordNet's
/// related words (with repetitions), its typo corrections (when it has at least
/// [`TYPO_MIN_LETTERS`] letters and the catalog lacks it) and its stem siblings (with
/// repetitions). Each list is empty when its weight is 0.
#[derive(Default)]
struct WordTerms {
    wordnet: Vec<u32>,
    typo: Vec<u32>,
    stems: Vec<u32>,
}

/// Per English query word, its [`WordTerms`] (filled on use, at most [`WORD_CACHE_WORDS`]
/// words; only looked up, never iterated, so its order cannot reach an answer). One lookup a
/// word for all three lists.
#[derive(Default)]
struct WordCache(std::sync::Mutex<std::collections::HashMap<String, WordTerms>>);

impl WordCache {
    /// Hands `word`'s terms to `read`, computing them with `compute` on a miss.
    fn with(&self, word: &str, compute: impl FnOnce() -> WordTerms, read: impl FnOnce(&WordTerms)) {
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

/// Every tuning knob of [`FieldedBm25`]; each value is justified in docs/adr.
#[derive(Debug, Clone, Copy)]
pub struct Bm25Config {
    pub analyzer: AnalyzerConfig,
    /// Weight per field in [`Field::ALL`] order; 0 = not indexed.
    pub weights: [f64; N_FIELDS],
    pub k1: f64,
    pub b: f64,
    /// Index every field's text as one field (`weights[0]` is its weight).
    pub single_field: bool,
    /// Query-term weight of lexicon expansions relative to the user's own terms (0 = off).
    pub expansion_weight: f64,
    /// A query with fewer word terms than this (analyzer terms other than Han n-grams,
    /// repeats counted) weighs its expansions `short_expansion_weight` instead: a short
    /// request is mostly its own words (docs/adr/0004; 0 = never).
    pub short_query_words: usize,
    pub short_expansion_weight: f64,
    /// Score multiplier for destructive tools when the query expresses no destructive intent
    /// (1 = off).
    pub destructive_penalty: f64,
    /// Score multiplier for tools that change something (effect write or destructive) when the
    /// query only asks to look something up (1 = off).
    pub read_only_penalty: f64,
    /// Score multiplier for tools that make something new each time (effect write,
    /// idempotency non_idempotent) when the query asks to change something that exists
    /// (1 = off).
    pub change_penalty: f64,
    /// Query-term weight multiplier for the user's terms that occur only in clauses naming
    /// what must stay untouched ("文字纪要留着"; 1 = off).
    pub keep_clause_weight: f64,
    /// Query-term weight multiplier for the user's terms that occur only inside quoted spans
    /// (a quoted name or message text, see `text::split_quoted`; 1 = off; docs/adr/0010).
    pub quoted_weight: f64,
    /// Whether lexicon expansions come from the whole query (true) or only from the text
    /// outside its quoted spans.
    pub expand_quoted: bool,
    /// Query-term weight multiplier for identifier-shape terms (`#id:evt` from `evt_77310`,
    /// see `AnalyzerConfig::id_shapes`; docs/adr/0011).
    pub id_shape_weight: f64,
    /// Query-term weight multiplier for pair terms (`AnalyzerConfig::shingles`; 1 = the
    /// weight of a word, chosen in docs/adr/0001).
    pub shingle_weight: f64,
    /// Query-term weight of stem siblings: the catalog's other English word terms with the
    /// Snowball stem of a query word ("conviction" for "convicted"; 0 = off; docs/adr/0001).
    pub stem_weight: f64,
    /// Query-term weight of the terms of "date 日期" when the request names a calendar date
    /// (`text::named_values`; 0 = off; docs/adr/0011's date addendum).
    pub date_weight: f64,
    /// Whether relative days (tomorrow, a weekday, 明天, 周三) count as dates too.
    pub date_relative: bool,
    /// Query-term weight of the terms of "phone mobile 手机 电话" when the request holds a
    /// phone number (`text::named_values`; 0 = off; docs/adr/0011's phone addendum).
    pub phone_weight: f64,
    /// Query-term weight of the terms of "amount 金额" when the request names an amount of
    /// money, and of "time 时间" when it names a time of day (`text::named_values`); 0 = off;
    /// docs/adr/0011's addendum on money and times.
    pub money_weight: f64,
    pub time_weight: f64,
    /// Query-term weight of the words WordNet relates to the request's English words
    /// (`text::each_wordnet_related`; 0 = off; docs/adr/0014).
    pub wn_weight: f64,
    /// Query-term weight of the catalog's words one edit away from an English request word
    /// of five letters or more that the catalog lacks (a typo: "calender" → "calendar"; 0 =
    /// off; docs/adr/0014's typo addendum).
    pub typo_weight: f64,
    /// Whether a request that says something stops (假不休了, 用不上了, skip, no longer; see
    /// `PreparedQuery::states_cessation`) expresses destructive intent, like a cue of the
    /// `!destructive` line (docs/adr/0005's cessation addendum).
    pub cessation: bool,
    /// A hit is confident only if it matched at least this share of the query's idf mass
    /// (0 = every hit with an identity or summary match is confident).
    pub min_coverage: f64,
    /// The answer is a weak match (no hit confident) when its first hit matched less of the
    /// idf of the user's words (those the catalog holds) than this many times the idf of a word
    /// that one tool holds, `ln(1 + (N − 0.5)/1.5)`, and either its coverage is under
    /// `weak_low_cover` or the request holds at least `weak_unknown_words` words the catalog
    /// never uses; only in a catalog where at least half of the tools have `use_when` (0 = off;
    /// docs/adr/0006's first-hit addendum).
    pub weak_first_idf: f64,
    /// See `weak_first_idf`.
    pub weak_low_cover: f64,
    /// See `weak_first_idf` (0 = that clause never holds).
    pub weak_unknown_words: usize,
    /// For a tool without an `agent_summary` (imported tools, API catalogs), a description match
    /// counts like a summary match toward a confident hit (docs/adr/0006's first-hit addendum).
    pub description_as_summary: bool,
    /// Coordination factor: in a request of at least `short_query_words` word terms, a hit's
    /// score is multiplied by `1 - coord + coord * coverage` (its share of the user's own
    /// words' idf, as for `min_coverage`), so tools matching more of what the user wrote come
    /// first (0 = off; docs/adr/0003's coordination addendum).
    pub coord: f64,
    /// Score multiplier for tools of a product the query names (1 = off).
    pub product_boost: f64,
    /// Query-term weight of the catalog words of the learned pairs whose query word the
    /// request contains (`LearnedPairs::expansion`; 0 = off; docs/adr/0015).
    pub learned_weight: f64,
    /// Combine fields BM25F-style (weighted tf summed, saturated once) instead of summing
    /// per-field BM25 scores.
    pub bm25f: bool,
    /// Skip tools that provably cannot reach the top `limit` (BM25F only; exact: the same
    /// hits and bits as scoring every tool, see `FieldedBm25::prune`). A speed switch, not a
    /// ranking knob: off only to test that it changes nothing.
    pub prune: bool,
    /// Pruning defers the dense lists of terms that do not count for coverage only in a
    /// catalog of at least this many tools (exact either way). Deferring loosens the cut, so
    /// more tools are scored exactly: at 362 tools that costs more than the pass over every
    /// tool it saves (`ab.py warm`, 9 pairs: 81.3 → 94.6 µs), at 10,000 it is even (0.238 /
    /// 0.241 ms), at 100,000 it saves (`ab.py big`, 3 pairs: 1.965 → 1.842 ms; docs/adr/0015).
    /// A speed switch like `prune`; 0 only to test that it changes nothing.
    pub defer_min_tools: usize,
}

impl Bm25Config {
    /// Overrides one knob by name (for `eval --param`); the names are the field names, with
    /// `weights` as five comma-separated numbers and `han` as words|ngrams|both.
    ///
    /// # Errors
    /// A message naming the bad key or value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let number = || {
            value
                .parse::<f64>()
                .map_err(|_| format!("`{key}` needs a number, found `{value}`"))
        };
        let flag = || {
            value
                .parse::<bool>()
                .map_err(|_| format!("`{key}` needs true|false, found `{value}`"))
        };
        let whole = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("`{key}` needs a whole number, found `{value}`"))
        };
        match key {
            "k1" => self.k1 = number()?,
            "b" => self.b = number()?,
            "expansion_weight" => self.expansion_weight = number()?,
            "short_query_words" => self.short_query_words = whole()?,
            "short_expansion_weight" => self.short_expansion_weight = number()?,
            "destructive_penalty" => self.destructive_penalty = number()?,
            "read_only_penalty" => self.read_only_penalty = number()?,
            "change_penalty" => self.change_penalty = number()?,
            "keep_clause_weight" => self.keep_clause_weight = number()?,
            "quoted_weight" => self.quoted_weight = number()?,
            "expand_quoted" => self.expand_quoted = flag()?,
            "id_shape_weight" => self.id_shape_weight = number()?,
            "id_shapes" => self.analyzer.id_shapes = flag()?,
            "shingles" => self.analyzer.shingles = flag()?,
            "stop_pairs" => self.analyzer.stop_pairs = flag()?,
            "shingle_weight" => self.shingle_weight = number()?,
            "stem_weight" => self.stem_weight = number()?,
            "date_weight" => self.date_weight = number()?,
            "date_relative" => self.date_relative = flag()?,
            "phone_weight" => self.phone_weight = number()?,
            "money_weight" => self.money_weight = number()?,
            "time_weight" => self.time_weight = number()?,
            "wn_weight" => self.wn_weight = number()?,
            "typo_weight" => self.typo_weight = number()?,
            "cessation" => self.cessation = flag()?,
            "min_coverage" => self.min_coverage = number()?,
            "weak_first_idf" => self.weak_first_idf = number()?,
            "weak_low_cover" => self.weak_low_cover = number()?,
            "weak_unknown_words" => self.weak_unknown_words = whole()?,
            "description_as_summary" => self.description_as_summary = flag()?,
            "coord" => self.coord = number()?,
            "product_boost" => self.product_boost = number()?,
            "learned_weight" => self.learned_weight = number()?,
            "single_field" => self.single_field = flag()?,
            "bm25f" => self.bm25f = flag()?,
            "prune" => self.prune = flag()?,
            "defer_min_tools" => self.defer_min_tools = whole()?,
            "split_identifiers" => self.analyzer.split_identifiers = flag()?,
            "stop_words" => self.analyzer.stop_words = flag()?,
            "stem_plurals" => self.analyzer.stem_plurals = flag()?,
            "han" => {
                self.analyzer.han = match value {
                    "words" => HanMode::Words,
                    "ngrams" => HanMode::Ngrams,
                    "both" => HanMode::WordsAndNgrams,
                    _ => return Err(format!("`han` is words|ngrams|both, found `{value}`")),
                }
            }
            "weights" => {
                let parts: Vec<f64> = value
                    .split(',')
                    .map(|p| p.trim().parse::<f64>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| format!("`weights` needs {N_FIELDS} comma-separated numbers"))?;
                self.weights = parts
                    .try_into()
                    .map_err(|_| format!("`weights` needs {N_FIELDS} comma-separated numbers"))?;
            }
            _ => return Err(format!("unknown parameter `{key}`")),
        }
        Ok(())
    }
}

impl Bm25Config {
    /// The default ranking. Every value is measured in docs/adr (0001 analysis and English
    /// word pairs, 0003 fields and BM25F, 0004 lexicon expansion, 0005 destructive-intent
    /// penalty, 0006 weak match, 0008 read-only intent, 0010 quoted spans, 0011 identifier
    /// shapes).
    pub const DEFAULT: Bm25Config = Bm25Config {
        analyzer: AnalyzerConfig::DEFAULT,
        weights: [1.0, 1.0, 1.0, 1.0, 1.0],
        k1: 1.2,
        b: 0.75,
        single_field: false,
        expansion_weight: 0.2,
        short_query_words: 12,
        short_expansion_weight: 0.1,
        destructive_penalty: 0.3,
        read_only_penalty: 0.5,
        change_penalty: 0.7,
        keep_clause_weight: 0.0,
        quoted_weight: 0.25,
        expand_quoted: true,
        id_shape_weight: 2.0,
        shingle_weight: 1.0,
        stem_weight: 0.2,
        date_weight: 0.2,
        date_relative: false,
        phone_weight: 1.0,
        money_weight: 0.2,
        time_weight: 0.2,
        wn_weight: 0.2,
        typo_weight: 0.3,
        cessation: true,
        min_coverage: 0.0,
        weak_first_idf: 1.25,
        weak_low_cover: 0.2,
        weak_unknown_words: 3,
        description_as_summary: true,
        coord: 0.3,
        product_boost: 1.0,
        learned_weight: 0.1,
        bm25f: true,
        prune: true,
        defer_min_tools: 10_000,
    };

    /// Plain per-field BM25 with every query rule off (no expansion, no intent multipliers, no
    /// clause, quote or identifier-shape weights) over plain analysis (no stop words, stemming
    /// or identifier shapes): what the baselines below share.
    const RULES_OFF: Bm25Config = Bm25Config {
        analyzer: AnalyzerConfig {
            han: HanMode::WordsAndNgrams,
            split_identifiers: true,
            stop_words: false,
            stem_plurals: false,
            id_shapes: false,
            shingles: false,
            stop_pairs: false,
        },
        weights: [1.0; N_FIELDS],
        k1: 1.2,
        b: 0.75,
        single_field: false,
        expansion_weight: 0.0,
        short_query_words: 0,
        short_expansion_weight: 0.0,
        destructive_penalty: 1.0,
        read_only_penalty: 1.0,
        change_penalty: 1.0,
        keep_clause_weight: 1.0,
        quoted_weight: 1.0,
        expand_quoted: true,
        id_shape_weight: 1.0,
        shingle_weight: 1.0,
        stem_weight: 0.0,
        date_weight: 0.0,
        date_relative: false,
        phone_weight: 0.0,
        money_weight: 0.0,
        time_weight: 0.0,
        wn_weight: 0.0,
        typo_weight: 0.0,
        cessation: false,
        min_coverage: 0.0,
        weak_first_idf: 0.0,
        weak_low_cover: 0.0,
        weak_unknown_words: 0,
        description_as_summary: false,
        coord: 0.0,
        product_boost: 1.0,
        learned_weight: 0.0,
        bm25f: false,
        prune: true,
        defer_min_tools: 10_000,
    };

    /// DWS's published ranking: Han unigrams + bigrams, no stop words, no stemming.
    pub const DWS: Bm25Config = Bm25Config {
        analyzer: AnalyzerConfig {
            han: HanMode::Ngrams,
            ..Self::RULES_OFF.analyzer
        },
        weights: [8.0, 5.0, 2.0, 2.0, 0.0],
        k1: 0.9,
        b: 0.4,
        ..Self::RULES_OFF
    };

    /// One text blob per tool, jieba words only: the naive baseline.
    pub const SINGLE_FIELD: Bm25Config = Bm25Config {
        analyzer: AnalyzerConfig {
            han: HanMode::Words,
            ..Self::RULES_OFF.analyzer
        },
        weights: [1.0, 0.0, 0.0, 0.0, 0.0],
        single_field: true,
        ..Self::RULES_OFF
    };
}

/// One term over the union of the indexed fields, as parallel arrays for
/// [`FieldedBm25::prune`]'s tight loop: every tool with the term (in `ToolId` order) and its
/// saturated pseudo term frequency `ptf · (k1 + 1) / (ptf + k1)`, where `ptf` sums the BM25F
/// parts `weight · tf / norm` of the fields (see [`FieldedBm25::for_each_row`]).
///
/// A term that at least a [`DENSE_SHARE`]th of the tools have is stored densely instead:
/// `tools` is empty and `saturation` and `tfs` hold one entry per tool (0 where the tool lacks
/// the term). Prune then adds the term's column to the totals in one pass (no indices, and
/// the compiler vectorizes it), and a candidate's entry is read at its id instead of searched
/// for (4 bytes a tool instead of 8 a posting: at most twice the sparse size).
#[derive(Debug, Default)]
struct CombinedPostings {
    tools: Vec<ToolId>,
    /// The saturations in steps of `scale`, rounded up (at least 1, at most `u16::MAX`, which
    /// is the largest saturation): only [`FieldedBm25::prune`]'s bound reads them (6 bytes a
    /// posting to stream instead of 12); exact scores never do. A step is off by less than
    /// `scale` (and a tool with the term never reads as 0).
    saturation: Vec<u16>,
    /// The largest saturation over `u16::MAX`.
    scale: f64,
    /// Whether `saturation` and `tfs` are indexed by tool (see above).
    dense: bool,
    /// The number of tools with the term.
    df: usize,
    /// Whether every saturation lies in [`F32_SAFE`], so that `f32` arithmetic on them keeps
    /// its relative error bound (no underflow, no overflow).
    f32_safe: bool,
    /// Per tool, [`TF_BITS`] bits per field (field `f` at bit `f · TF_BITS`): 0 when the
    /// field's part is 0 (it lacks the term), the field's term frequency when it is
    /// 1..[`TF_IN_LIST`], else [`TF_IN_LIST`]. [`FieldedBm25::score_candidates`] rebuilds a
    /// scored tool's row from these (most rows have one or two fields, with small
    /// frequencies) and looks up a field list only for [`TF_IN_LIST`]: a lookup per field
    /// and a search per tool saved, for 2 bytes per posting.
    tfs: Vec<u16>,
    /// The term's BM25F idf `ln(1 + (N − df + 0.5)/(df + 0.5))`, df = `tools.len()`: computed
    /// once here instead of per query (the same expression, so the same bits).
    idf: f64,
}

/// Bits per field of [`CombinedPostings::tfs`].
const TF_BITS: usize = 3;
/// The code of a field whose term frequency must be read from its list.
const TF_IN_LIST: u16 = (1 << TF_BITS) - 1;

/// The code of one field in [`CombinedPostings::tfs`], given its part and term frequency.
fn tf_code(part: f64, tf: u32) -> u16 {
    if part == 0.0 {
        0
    } else {
        match u16::try_from(tf) {
            Ok(tf) if (1..TF_IN_LIST).contains(&tf) => tf,
            _ => TF_IN_LIST,
        }
    }
}

/// Field `field_idx`'s code in a [`CombinedPostings::tfs`] entry.
fn field_code(codes: u16, field_idx: usize) -> u16 {
    codes >> (field_idx * TF_BITS) & TF_IN_LIST
}

/// A term's postings in every field (empty for a field of weight 0).
type FieldLists<'a> = [&'a [(ToolId, u32)]; N_FIELDS];

/// Weighted per-field BM25 (k1, b, idf `ln(1 + (N − df + 0.5)/(df + 0.5))`, query-term
/// weight `ln(1 + qtf)`).
pub struct FieldedBm25 {
    name: &'static str,
    config: Bm25Config,
    analyzer: Analyzer,
    index: Index,
    /// Per field, per tool: the BM25 length normalisation `1 − b + b·len/avg_len`.
    norms: Vec<Vec<f64>>,
    /// Per term, filled on first use: every tool with the term in some field and its saturated
    /// BM25F pseudo term frequency — which depend on the catalog and configuration only, never
    /// on the query. Boxed: 16 bytes a slot instead of 56, so a cold process allocates 0.26 MB
    /// for the embedded catalog's 16,000 terms instead of 0.9 MB.
    combined: Vec<std::sync::OnceLock<Box<CombinedPostings>>>,
    /// Per lexicon phrase text (see `Lexicon::text`), filled on first use: its terms' ids.
    /// Sized on the first query that expands, so a retriever that never expands allocates none.
    expansion_terms: std::sync::OnceLock<Vec<std::sync::OnceLock<Vec<u32>>>>,
    /// Per entry of `VALUE_WORDS`, its term ids, analysed on first use.
    value_terms: [std::sync::OnceLock<Vec<u32>>; 4],
    /// Per English query word, its WordNet words', typo corrections' and stem siblings' ids.
    word_terms: WordCache,
    n_tools: usize,
    /// The ids of the terms marked `#` (n-grams, pairs, identifier shapes) and of those marked
    /// [`ID_SHAPE_MARK`]: ranges, since ids follow sorted term order (a query asks about
    /// ~100 terms, each a cache miss into the term text otherwise).
    marked_terms: std::ops::Range<u32>,
    id_shape_terms: std::ops::Range<u32>,
    tool_effects: Vec<Option<Effect>>,
    /// Per tool: effect write and idempotency non_idempotent (it makes something new).
    tool_makes_new: Vec<bool>,
    /// Per tool: whether it has no `agent_summary` (imported tools, API catalogs).
    tool_lacks_summary: Vec<bool>,
    /// Whether at least half of the tools have `use_when` situations (the first-hit rule's
    /// condition).
    situated: bool,
    /// Per tool: the index of its product in `product_names`.
    tool_products: Vec<usize>,
    /// Per product: the phrases that name it (id and display name).
    product_names: Vec<Vec<String>>,
    /// Per learned text (see `LearnedPairs::text`), filled on first use: its terms' ids.
    learned_terms: std::sync::OnceLock<Vec<std::sync::OnceLock<Vec<u32>>>>,
    /// Learned pairs parsed at run time (`eval --param learned_pairs=FILE`) instead of the
    /// compiled ones.
    learned_pairs: Option<std::sync::Arc<crate::text::learned::Tables>>,
}

impl FieldedBm25 {
    pub fn new(name: &'static str, config: Bm25Config, catalog: &Catalog) -> FieldedBm25 {
        let analyzer = Analyzer::new(config.analyzer);
        let index = Index::build(catalog, &analyzer, &config.weights, config.single_field);
        FieldedBm25::with_index(name, config, catalog, index)
    }

    /// A retriever over an index built earlier (a prepared snapshot) for this same catalog
    /// and configuration.
    pub fn with_index(
        name: &'static str,
        config: Bm25Config,
        catalog: &Catalog,
        index: Index,
    ) -> FieldedBm25 {
        let analyzer = Analyzer::new(config.analyzer);
        let n_tools = catalog.tools().len();
        FieldedBm25 {
            learned_terms: std::sync::OnceLock::new(),
            learned_pairs: None,
            name,
            config,
            analyzer,
            norms: index
                .fields
                .iter()
                .map(|field| {
                    (0..n_tools)
                        .map(|tool| 1.0 - config.b + config.b * field.len_ratio(tool as ToolId))
                        .collect()
                })
                .collect(),
            combined: (0..index.terms.len())
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            expansion_terms: std::sync::OnceLock::new(),
            value_terms: Default::default(),
            word_terms: Default::default(),
            marked_terms: index.terms.prefix_range("#"),
            id_shape_terms: index.terms.prefix_range(ID_SHAPE_MARK),
            index,
            n_tools,
            tool_effects: catalog.tools().iter().map(|t| t.effect()).collect(),
            tool_makes_new: catalog
                .tools()
                .iter()
                .map(|t| {
                    t.effect() == Some(Effect::Write)
                        && t.idempotency() == Some(crate::wire::Idempotency::NonIdempotent)
                })
                .collect(),
            situated: 2 * catalog
                .tools()
                .iter()
                .filter(|t| !t.def.use_when.is_empty())
                .count()
                >= catalog.tools().len(),
            tool_lacks_summary: catalog
                .tools()
                .iter()
                .map(|t| t.def.agent_summary.is_none())
                .collect(),
            tool_products: catalog
                .tools()
                .iter()
                .map(|t| {
                    catalog
                        .products()
                        .binary_search_by(|p| p.id.as_str().cmp(&t.product_id))
                        .unwrap_or(0)
                })
                .collect(),
            product_names: catalog
                .products()
                .iter()
                .map(|p| p.name.iter().cloned().chain([p.id.clone()]).collect())
                .collect(),
        }
    }

    /// Appends the ids of `text`'s terms, as the analyzer makes them, that the catalog has
    /// (added words: lexicon phrases, value words, WordNet's words).
    fn push_term_ids(&self, text: &str, ids: &mut Vec<u32>) {
        self.analyzer
            .each_term(text, &mut |term| ids.extend(self.index.terms.id(term)));
    }

    /// The term ids of a learned text (analysed once per retriever).
    fn learned_term_ids(&self, text: u32) -> &[u32] {
        let pairs = self.learned();
        self.cached_term_ids(&self.learned_terms, pairs.text_count(), text, |id| {
            pairs.text(id)
        })
    }

    /// The learned pairs this retriever uses: parsed at run time, or the compiled ones.
    fn learned(&self) -> LearnedPairs<'_> {
        match &self.learned_pairs {
            Some(tables) => LearnedPairs::of(tables),
            None => LearnedPairs::builtin(),
        }
    }

    /// This retriever with learned pairs parsed at run time instead of the compiled ones
    /// (`eval --param learned_pairs=FILE`, to cross-validate the learner; docs/adr/0015).
    pub fn with_learned_pairs(
        mut self,
        tables: std::sync::Arc<crate::text::learned::Tables>,
    ) -> Self {
        self.learned_pairs = Some(tables);
        self
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
    fn expansion_term_ids(&self, text: u32) -> &[u32] {
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
    fn word_terms_of(&self, word: &str) -> WordTerms {
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
    fn value_term_ids(&self, kind: usize) -> &[u32] {
        self.value_terms[kind].get_or_init(|| {
            let mut ids = Vec::new();
            self.push_term_ids(VALUE_WORDS[kind], &mut ids);
            ids
        })
    }

    /// The ids (sorted) of the query's terms that occur only in its clauses naming what must
    /// stay untouched; empty when the rule is off or there is no such clause.
    fn kept_only_terms(&self, query: &str, prepared: &PreparedQuery) -> Vec<u32> {
        if self.config.keep_clause_weight == 1.0 || !Lexicon::builtin().has_keep_cue(prepared) {
            return Vec::new();
        }
        let (rest, keep) = Lexicon::builtin().split_keep_clauses(query);
        self.terms_only_in(&keep, &rest)
    }

    /// The ids (sorted, unique) of the terms of `part` that `rest` does not have.
    fn terms_only_in(&self, part: &str, rest: &str) -> Vec<u32> {
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
struct Joins {
    /// (term, offer, weight), one per distinct term of each offer.
    terms: Vec<(u32, u32, f64)>,
    offers: u32,
}

impl Joins {
    /// Offers `expanded` (term ids, with repetitions) at `weight` × ln(1 + qtf).
    fn offer(&mut self, mut expanded: Vec<u32>, weight: f64) {
        let offer = self.offers;
        self.offers += 1;
        for (term, qtf) in counted(&mut expanded) {
            self.terms
                .push((term, offer, (1.0 + f64::from(qtf)).ln() * weight));
        }
    }

    /// Adds each offered term `weights` (sorted by term) lacks, at its first offer's weight;
    /// keeps `weights` sorted.
    fn join_into(mut self, weights: &mut Vec<QueryTerm>) {
        if self.terms.is_empty() {
            return;
        }
        self.terms
            .sort_unstable_by_key(|&(term, offer, _)| (term, offer));
        self.terms.dedup_by_key(|&mut (term, _, _)| term);
        let own = std::mem::take(weights);
        weights.reserve(own.len() + self.terms.len());
        let mut own = own.into_iter().peekable();
        for (term, _, weight) in self.terms {
            while let Some(q) = own.next_if(|q| q.term < term) {
                weights.push(q);
            }
            if own.peek().is_some_and(|q| q.term == term) {
                continue;
            }
            weights.push(QueryTerm {
                term,
                weight,
                is_own: false,
            });
        }
        weights.extend(own);
    }
}

impl Retriever for FieldedBm25 {
    fn name(&self) -> &'static str {
        self.name
    }

    /// Builds the term and stem lookup tables and every term's merged postings (otherwise
    /// built on a term's first use).
    fn warm(&self, stop: &std::sync::atomic::AtomicBool) {
        self.index.terms.build_lookup();
        self.index.stems.build_lookup();
        if !self.config.bm25f {
            return;
        }
        for term in 0..self.combined.len() {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            self.combined_postings(term as u32);
        }
    }

    fn search(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<Hit> {
        // Query terms (by id; ids follow sorted term order) and their weights: the user's own
        // terms weigh ln(1 + qtf); lexicon expansions weigh `expansion_weight` times that
        // (`short_expansion_weight` in a query of few words) and never replace an own term.
        // Terms the catalog never uses cannot score and are dropped here, but a query of only
        // such words still has word terms (see coverage).
        let terms = &self.index.terms;
        let mut word_terms = 0usize;
        let mut own: Vec<u32> = Vec::new();
        // The query's English words, also those the catalog lacks ("convicted"), for stem
        // siblings and WordNet's words.
        let mut english: Vec<String> = Vec::new();
        let english_wanted = self.config.stem_weight > 0.0
            || self.config.wn_weight > 0.0
            || self.config.typo_weight > 0.0;
        let mut unknown_words = 0usize;
        self.analyzer.each_term(query, &mut |term| {
            word_terms += usize::from(!term.starts_with('#'));
            let id = terms.id(term);
            unknown_words += usize::from(!term.starts_with('#') && id.is_none());
            own.extend(id);
            if english_wanted && is_english_word(term) {
                english.push(term.to_string());
            }
        });
        let has_word_terms = word_terms > 0;
        let expansion_weight = if word_terms < self.config.short_query_words {
            self.config.short_expansion_weight
        } else {
            self.config.expansion_weight
        };
        let prepared = PreparedQuery::new(query);
        let kept_only = self.kept_only_terms(query, &prepared);
        let quoted = if self.config.quoted_weight != 1.0 || !self.config.expand_quoted {
            split_quoted(query)
        } else {
            None
        };
        let quoted_only = match &quoted {
            Some((outside, inside)) if self.config.quoted_weight != 1.0 => {
                self.terms_only_in(inside, outside)
            }
            _ => Vec::new(),
        };
        let mut weights: Vec<QueryTerm> = counted(&mut own)
            .map(|(term, qtf)| {
                let mut weight = (1.0 + f64::from(qtf)).ln();
                if kept_only.binary_search(&term).is_ok() {
                    weight *= self.config.keep_clause_weight;
                }
                if quoted_only.binary_search(&term).is_ok() {
                    weight *= self.config.quoted_weight;
                }
                if self.config.id_shape_weight != 1.0 && self.id_shape_terms.contains(&term) {
                    weight *= self.config.id_shape_weight;
                }
                if self.config.shingle_weight != 1.0 && is_pair_term(terms.term(term)) {
                    weight *= self.config.shingle_weight;
                }
                QueryTerm {
                    term,
                    weight,
                    is_own: true,
                }
            })
            .collect();
        let mut joins = Joins::default();
        if self.config.expansion_weight > 0.0 {
            let outside_quotes = match &quoted {
                Some((outside, _)) if !self.config.expand_quoted => {
                    Some(PreparedQuery::new(outside))
                }
                _ => None,
            };
            let mut expanded: Vec<u32> = Vec::new();
            for text in Lexicon::builtin().expansion(outside_quotes.as_ref().unwrap_or(&prepared)) {
                expanded.extend_from_slice(self.expansion_term_ids(text));
            }
            joins.offer(expanded, expansion_weight);
        }
        // A request naming a value wants a tool that takes one (docs/adr/0011).
        // In `VALUE_WORDS` order.
        let value_weights = [
            self.config.date_weight,
            self.config.phone_weight,
            self.config.money_weight,
            self.config.time_weight,
        ];
        if value_weights.iter().any(|&weight| weight > 0.0) {
            let named = crate::text::named_values(prepared.lowered(), self.config.date_relative);
            let found = [named.date, named.phone, named.money, named.time];
            for (kind, weight) in value_weights.into_iter().enumerate() {
                if found[kind] && weight > 0.0 {
                    joins.offer(self.value_term_ids(kind).to_vec(), weight);
                }
            }
        }
        // The request's English words bring WordNet's words, typo corrections (the catalog's
        // words one edit away from a word it lacks) and stem siblings; each joins like
        // expansions, never doubling a term the query has.
        let (mut related, mut corrected, mut siblings) = (Vec::new(), Vec::new(), Vec::new());
        for word in &english {
            self.word_terms.with(
                word,
                || self.word_terms_of(word),
                |terms| {
                    related.extend_from_slice(&terms.wordnet);
                    corrected.extend_from_slice(&terms.typo);
                    siblings.extend_from_slice(&terms.stems);
                },
            );
        }
        if self.config.wn_weight > 0.0 && !english.is_empty() {
            joins.offer(related, self.config.wn_weight);
        }
        if self.config.typo_weight > 0.0 && !english.is_empty() {
            corrected.sort_unstable();
            corrected.dedup();
            joins.offer(corrected, self.config.typo_weight);
        }
        if self.config.stem_weight > 0.0 && !english.is_empty() {
            joins.offer(siblings, self.config.stem_weight);
        }
        if self.config.learned_weight > 0.0 {
            let mut learned: Vec<u32> = Vec::new();
            for text in self.learned().expansion(&prepared) {
                learned.extend_from_slice(self.learned_term_ids(text));
            }
            learned.sort_unstable();
            learned.dedup();
            joins.offer(learned, self.config.learned_weight);
        }
        joins.join_into(&mut weights);
        // Destructive intent is asked at most once (the read-only test needs it too).
        let mut destructive_intent: Option<bool> = None;
        let mut has_destructive_intent = || {
            *destructive_intent.get_or_insert_with(|| {
                Lexicon::builtin().has_destructive_intent(&prepared)
                    || (self.config.cessation && prepared.states_cessation())
            })
        };
        let penalize_destructive =
            self.config.destructive_penalty != 1.0 && !has_destructive_intent();
        let read_only = self.config.read_only_penalty != 1.0
            && Lexicon::builtin().has_read_only_intent_with(&prepared, has_destructive_intent);
        let change =
            self.config.change_penalty != 1.0 && Lexicon::builtin().has_change_intent(&prepared);

        let named_products: Vec<bool> = if self.config.product_boost != 1.0 {
            let lexicon = Lexicon::builtin();
            self.product_names
                .iter()
                .map(|names| names.iter().any(|name| lexicon.mentions(&prepared, name)))
                .collect()
        } else {
            vec![false; self.product_names.len()]
        };
        let multiplier = |tool: ToolId| {
            let destructive = self.tool_effects[tool as usize] == Some(Effect::Destructive);
            let mut multiplier = if penalize_destructive && destructive {
                self.config.destructive_penalty
            } else {
                1.0
            };
            if read_only && self.tool_effects[tool as usize].is_some_and(|e| e != Effect::Read) {
                multiplier *= self.config.read_only_penalty;
            }
            if change && self.tool_makes_new[tool as usize] {
                multiplier *= self.config.change_penalty;
            }
            if named_products[self.tool_products[tool as usize]] {
                multiplier *= self.config.product_boost;
            }
            multiplier
        };
        // A short request is mostly its own words already (the same count as for expansions).
        let coord = if word_terms >= self.config.short_query_words {
            self.config.coord
        } else {
            0.0
        };
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let scratch = &mut *scratch;
            scratch.reset(self.n_tools);
            self.score_terms(
                &weights,
                has_word_terms,
                eligible,
                limit,
                &Scale {
                    multiplier: &multiplier,
                    coord,
                },
                scratch,
            );
            let mut touched = std::mem::take(&mut scratch.touched);
            touched.sort_unstable();
            let own_idf_total = scratch.own_idf_total;
            let mut hits: Vec<Hit> = touched
                .iter()
                .filter_map(|&tool| {
                    let fields = scratch.scores[tool as usize];
                    let covered = scratch.covered[tool as usize];
                    let sum: f64 = fields.iter().sum();
                    let multiplier = multiplier(tool) * coord_factor(coord, covered, own_idf_total);
                    let coverage = if own_idf_total > 0.0 {
                        covered / own_idf_total
                    } else {
                        0.0
                    };
                    let score = sum * multiplier;
                    let stands_in = self.config.description_as_summary
                        && self.tool_lacks_summary[tool as usize]
                        && fields[2] > 0.0;
                    // A hit found only through joined terms (expansions, learned pairs) matched
                    // none of the user's words, so it is never confident (docs/adr/0015).
                    let confident = (fields[0] > 0.0 || fields[1] > 0.0 || stands_in)
                        && covered > 0.0
                        && coverage >= self.config.min_coverage;
                    (score > 0.0).then_some(Hit {
                        tool,
                        score,
                        fields,
                        multiplier,
                        coverage,
                        confident,
                    })
                })
                .collect();
            scratch.touched = touched;
            top_hits(&mut hits, limit);
            if self.first_hit_is_weak(&hits, own_idf_total, unknown_words) {
                for hit in &mut hits {
                    hit.confident = false;
                }
            }
            hits
        })
    }
}

impl FieldedBm25 {
    /// Whether the best hit shares too little with the request to be a confident match (the
    /// request may name something the catalog lacks; docs/adr/0006's first-hit addendum): it
    /// matched less of the idf of the user's words the catalog holds (`own_idf_total` in all)
    /// than `weak_first_idf` times the idf of a word only one tool holds, and either that is
    /// under `weak_low_cover` of them or the request holds `weak_unknown_words` or more words
    /// the catalog never uses (`unknown_words`). Never in a catalog where fewer than half of the
    /// tools have `use_when`.
    fn first_hit_is_weak(&self, hits: &[Hit], own_idf_total: f64, unknown_words: usize) -> bool {
        // Without `use_when` situations answerable requests match too weakly for the threshold
        // (the addendum's catalog copies), so the rule stays off.
        if self.config.weak_first_idf <= 0.0 || !self.situated {
            return false;
        }
        let Some(first) = hits.first() else {
            return false;
        };
        let n = self.n_tools as f64;
        let one_tool_idf = (1.0 + (n - 0.5) / 1.5).ln();
        let little = first.coverage * own_idf_total < self.config.weak_first_idf * one_tool_idf;
        let unknown =
            self.config.weak_unknown_words > 0 && unknown_words >= self.config.weak_unknown_words;
        little && (first.coverage < self.config.weak_low_cover || unknown)
    }
}

/// Per-query working memory, reused across queries of a thread: dense per-tool arrays plus
/// the list of tools touched, so only touched slots are ever cleared.
#[derive(Default)]
struct Scratch {
    scores: Vec<[f64; N_FIELDS]>,
    covered: Vec<f64>,
    seen: Vec<bool>,
    touched: Vec<ToolId>,
    matched: Vec<ToolId>,
    own_idf_total: f64,
    /// [`FieldedBm25::prune`]'s one total per tool (all zero between queries).
    total: Vec<f32>,
    /// [`FieldedBm25::prune`]'s covered idf per tool under the coordination factor (all zero
    /// between queries).
    covers: Vec<f64>,
    /// Per tool, whether [`FieldedBm25::score_candidates`] scores it (all false between
    /// queries).
    is_candidate: Vec<bool>,
    /// [`FieldedBm25::score_candidates`]'s candidates with a term, and their codes.
    rows: Vec<(ToolId, u16)>,
}

impl Scratch {
    fn reset(&mut self, n_tools: usize) {
        for &tool in &self.touched {
            self.scores[tool as usize] = [0.0; N_FIELDS];
            self.covered[tool as usize] = 0.0;
            self.seen[tool as usize] = false;
        }
        self.touched.clear();
        if self.scores.len() != n_tools {
            self.scores = vec![[0.0; N_FIELDS]; n_tools];
            self.covered = vec![0.0; n_tools];
            self.seen = vec![false; n_tools];
            self.total = vec![0.0; n_tools];
            self.covers = vec![0.0; n_tools];
            self.is_candidate = vec![false; n_tools];
        }
        self.own_idf_total = 0.0;
    }

    /// The field accumulators of `tool`, recording it as touched.
    fn touch(&mut self, tool: ToolId) -> &mut [f64; N_FIELDS] {
        let slot = tool as usize;
        if !self.seen[slot] {
            self.seen[slot] = true;
            self.touched.push(tool);
        }
        &mut self.scores[slot]
    }

    fn add(&mut self, tool: ToolId, field_idx: usize, value: f64) {
        self.touch(tool)[field_idx] += value;
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl FieldedBm25 {
    /// The term's postings per field; fields of weight 0 are left empty.
    fn field_lists(&self, term: u32) -> FieldLists<'_> {
        let mut lists: FieldLists<'_> = [&[]; N_FIELDS];
        for (field_idx, index) in self.index.fields.iter().enumerate() {
            if self.config.weights[field_idx] > 0.0 {
                lists[field_idx] = index.postings(term);
            }
        }
        lists
    }

    /// A field's BM25F part for one posting: `weight · tf / norm`.
    fn part(&self, field_idx: usize, tool: ToolId, tf: u32) -> f64 {
        self.config.weights[field_idx] * f64::from(tf) / self.norms[field_idx][tool as usize]
    }

    /// Calls `f` with every tool that has the term in some field, in `ToolId` order, its
    /// row of BM25F parts (0 where the field lacks the term) and its term frequencies (0
    /// likewise): a merge of the field lists.
    fn for_each_row(
        &self,
        lists: &FieldLists<'_>,
        mut f: impl FnMut(ToolId, &[f64; N_FIELDS], &[u32; N_FIELDS]),
    ) {
        let mut heads = *lists;
        while let Some(tool) = heads.iter().filter_map(|l| l.first()).map(|e| e.0).min() {
            let mut row = [0.0; N_FIELDS];
            let mut tfs = [0u32; N_FIELDS];
            for (field_idx, list) in heads.iter_mut().enumerate() {
                if let Some((&(head, tf), rest)) = list.split_first() {
                    if head == tool {
                        row[field_idx] = self.part(field_idx, tool, tf);
                        tfs[field_idx] = tf;
                        *list = rest;
                    }
                }
            }
            f(tool, &row, &tfs);
        }
    }

    /// The term's tools and saturations over all fields, built on first use.
    fn combined_postings(&self, term: u32) -> &CombinedPostings {
        self.combined[term as usize].get_or_init(|| {
            let k1 = self.config.k1;
            let mut combined = Box::<CombinedPostings>::default();
            combined.f32_safe = true;
            let mut exact: Vec<f64> = Vec::new();
            self.for_each_row(&self.field_lists(term), |tool, row, tfs| {
                let pseudo_tf: f64 = row.iter().sum();
                let codes = (0..N_FIELDS).fold(0u16, |codes, field_idx| {
                    codes | tf_code(row[field_idx], tfs[field_idx]) << (field_idx * TF_BITS)
                });
                let saturation = pseudo_tf * (k1 + 1.0) / (pseudo_tf + k1);
                combined.f32_safe &= F32_SAFE.contains(&saturation);
                combined.tools.push(tool);
                combined.tfs.push(codes);
                exact.push(saturation);
            });
            let largest = exact.iter().copied().fold(0.0, f64::max);
            combined.scale = largest / f64::from(u16::MAX);
            combined.saturation = exact
                .iter()
                .map(|&saturation| {
                    (saturation / combined.scale)
                        .ceil()
                        .clamp(1.0, f64::from(u16::MAX)) as u16
                })
                .collect();
            let n = self.n_tools as f64;
            let df = combined.tools.len() as f64;
            combined.idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            combined.df = combined.tools.len();
            if combined.df * DENSE_SHARE >= self.n_tools {
                let mut saturation = vec![0u16; self.n_tools];
                let mut tfs = vec![0u16; self.n_tools];
                for (at, &tool) in combined.tools.iter().enumerate() {
                    saturation[tool as usize] = combined.saturation[at];
                    tfs[tool as usize] = combined.tfs[at];
                }
                combined.saturation = saturation;
                combined.tfs = tfs;
                combined.tools = Vec::new();
                combined.dense = true;
            }
            combined
        })
    }

    /// Accumulates every query term's contribution into `scratch`, terms in sorted order.
    fn score_terms(
        &self,
        weights: &[QueryTerm],
        has_word_terms: bool,
        eligible: &[bool],
        limit: usize,
        scale: &Scale<'_>,
        scratch: &mut Scratch,
    ) {
        // Character n-grams (`#…`) straddle word boundaries and would drown the signal in
        // unmatched bigrams; coverage counts the user's words only, unless there are no words.
        let counts_for_coverage = |term: &QueryTerm| {
            term.is_own && (!self.marked_terms.contains(&term.term) || !has_word_terms)
        };
        if self.config.bm25f {
            let plans = self.bm25f_plans(weights, &counts_for_coverage);
            let candidates = if self.config.prune {
                self.prune(&plans, eligible, limit, scale, scratch)
            } else {
                None
            };
            match candidates {
                Some(candidates) => self.score_candidates(&plans, &candidates, scratch),
                None => self.score_all(&plans, eligible, scratch),
            }
            return;
        }
        let k1 = self.config.k1;
        let n = self.n_tools as f64;
        let is_eligible = |tool: ToolId| eligible.get(tool as usize).copied().unwrap_or(false);
        for term in weights {
            // Coverage: a term's idf is its best (rarest) field's idf.
            let (term_id, query_weight) = (term.term, term.weight);
            let mut term_idf: f64 = f64::INFINITY;
            scratch.matched.clear();
            for (field_idx, index) in self.index.fields.iter().enumerate() {
                let weight = self.config.weights[field_idx];
                if weight <= 0.0 {
                    continue;
                }
                let postings = index.postings(term_id);
                if postings.is_empty() {
                    continue;
                }
                let df = postings.len() as f64;
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                term_idf = term_idf.min(idf);
                for &(tool, tf) in postings {
                    if !is_eligible(tool) {
                        continue;
                    }
                    let tf = f64::from(tf);
                    let tf_norm =
                        tf * (k1 + 1.0) / (tf + k1 * self.norms[field_idx][tool as usize]);
                    scratch.add(tool, field_idx, weight * query_weight * idf * tf_norm);
                    scratch.matched.push(tool);
                }
            }
            if counts_for_coverage(term) && term_idf.is_finite() {
                scratch.own_idf_total += term_idf;
                scratch.matched.sort_unstable();
                scratch.matched.dedup();
                for idx in 0..scratch.matched.len() {
                    let tool = scratch.matched[idx] as usize;
                    scratch.covered[tool] += term_idf;
                }
            }
        }
    }

    /// The query's terms that occur in an indexed field, in sorted term order, with their
    /// BM25F idf (one idf over the union of fields) and postings.
    fn bm25f_plans<'a>(
        &'a self,
        weights: &[QueryTerm],
        counts_for_coverage: &dyn Fn(&QueryTerm) -> bool,
    ) -> Vec<TermPlan<'a>> {
        let mut plans = Vec::with_capacity(weights.len());
        for term in weights {
            let combined = self.combined_postings(term.term);
            if combined.df == 0 {
                continue;
            }
            plans.push(TermPlan {
                query_weight: term.weight,
                idf: combined.idf,
                counts_for_coverage: counts_for_coverage(term),
                term: term.term,
                postings: combined,
            });
        }
        plans
    }

    /// The sorted tools that may reach the top `limit`, found with one cheap accumulator per
    /// tool, or `None` when every touched tool has to be scored anyway.
    ///
    /// Each term adds `query_weight · idf · saturation` (its whole BM25F contribution, which
    /// the exact path splits over fields) to one total per tool, approximately:
    /// - the saturation is a whole number of the term's steps (`scale`), off by less than one
    ///   step, so a total is off by less than `quantum`, the sum of every term's
    ///   `query_weight · idf · scale`;
    /// - the total is summed in `f32` (half the bytes to scatter into): with `m` terms, every
    ///   factor rounded to `f32` and every contribution non-negative, it is within
    ///   `ε = (m + 2) · f32::EPSILON` (relative) of that real sum;
    /// - the exact field sum is within ~1e-15 (relative) of the real one.
    ///
    /// So with θ the `limit`-th best total (times the tool's multiplier), a tool below θ by
    /// more than `ε / (1 − ε)` plus [`BOUND_SLACK`] (relative), plus two `quantum`s at the
    /// largest multiplier, plus two [`SCORE_ROUNDING`] steps ranks strictly below `limit`
    /// others even after rounding. In a catalog of `defer_min_tools` tools or more, dense
    /// lists of terms that do not count for coverage (expansions, learned pairs) are summed
    /// only if needed: without them every total is
    /// lower (so θ is too) and lacks at most their largest parts, `rest`, which each test
    /// adds; a tool with no total at all is below θ when `rest` is (else they are summed after
    /// all). The survivors are then scored exactly like every tool
    /// would be ([`FieldedBm25::score_candidates`]): same hits, same bits. Weights or
    /// saturations outside [`F32_SAFE`] (never with the shipped configurations) score every
    /// tool instead.
    fn prune(
        &self,
        plans: &[TermPlan<'_>],
        eligible: &[bool],
        limit: usize,
        scale: &Scale<'_>,
        scratch: &mut Scratch,
    ) -> Option<Vec<ToolId>> {
        if limit == 0 {
            return None;
        }
        let safe = |plan: &TermPlan<'_>| {
            let weight = plan.query_weight * plan.idf;
            plan.postings.f32_safe && (weight == 0.0 || F32_SAFE.contains(&weight))
        };
        if plans.len() > MAX_F32_TERMS || !plans.iter().all(safe) {
            return None;
        }
        let epsilon = (plans.len() as f64 + 2.0) * f64::from(f32::EPSILON);
        let slack = BOUND_SLACK + epsilon / (1.0 - epsilon);
        let quantum: f64 = plans
            .iter()
            .map(|plan| plan.query_weight * plan.idf * plan.postings.scale)
            .sum::<f64>()
            * (1.0 + BOUND_SLACK);
        let total = &mut scratch.total;
        let weight_of =
            |plan: &TermPlan<'_>| (plan.query_weight * plan.idf * plan.postings.scale) as f32;
        let stream = |plan: &TermPlan<'_>, total: &mut [f32]| {
            let weight = weight_of(plan);
            let postings = plan.postings;
            if postings.dense {
                // A tool without the term adds exactly +0.0: the same totals.
                for (slot, &saturation) in total.iter_mut().zip(&postings.saturation) {
                    *slot += weight * f32::from(saturation);
                }
            } else {
                for (&tool, &saturation) in postings.tools.iter().zip(&postings.saturation) {
                    if let Some(slot) = total.get_mut(tool as usize) {
                        *slot += weight * f32::from(saturation);
                    }
                }
            }
        };
        // In a large catalog (`defer_min_tools`), a joined term (an expansion or learned pair,
        // never counted for coverage) whose postings are dense costs a pass over every tool
        // for a small weight. It is summed only if its largest possible part could decide the
        // cut: until then each tool's total lacks at most `rest` (every step is at most
        // `u16::MAX`), which the tests below add.
        let deferred = |plan: &TermPlan<'_>| {
            self.n_tools >= self.config.defer_min_tools
                && plan.postings.dense
                && !plan.counts_for_coverage
        };
        for plan in plans.iter().filter(|plan| !deferred(plan)) {
            stream(plan, total);
        }
        let mut rest: f64 = plans
            .iter()
            .filter(|plan| deferred(plan))
            .map(|plan| f64::from(weight_of(plan)) * f64::from(u16::MAX))
            .sum::<f64>()
            * (1.0 + slack);
        // Under the coordination factor, each tool's covered idf (exact, in `f64`): a tool has
        // a term when its saturation step is not 0 (steps round up), and every tool with a term
        // has a positive part (fields weighted 0 have no lists), so these are the sums scoring
        // makes, in its order, and the factor is the one the tool's hit gets.
        let covers = &mut scratch.covers;
        let mut own_idf_total = 0.0;
        if scale.coord > 0.0 {
            for plan in plans.iter().filter(|plan| plan.counts_for_coverage) {
                let postings = plan.postings;
                if postings.dense {
                    for (cover, &saturation) in covers.iter_mut().zip(&postings.saturation) {
                        if saturation != 0 {
                            *cover += plan.idf;
                        }
                    }
                } else {
                    for &tool in &postings.tools {
                        if let Some(cover) = covers.get_mut(tool as usize) {
                            *cover += plan.idf;
                        }
                    }
                }
                own_idf_total += plan.idf;
            }
        }
        // A tool's multipliers and coordination factor: never above `max_multiplier` (the
        // factor is at most 1), so every bound below still holds.
        let factor = |tool: usize, covered: f64| {
            (scale.multiplier)(tool as ToolId) * coord_factor(scale.coord, covered, own_idf_total)
        };
        // Two dense passes over the totals (cheaper than tracking touched tools row by row):
        // the `limit`-th best score, then the tools close enough to it (clearing as it goes).
        // A multiplier never exceeds `max_multiplier`, so a total that cannot matter even at
        // that multiplier skips the per-tool lookup.
        let max_multiplier = self.config.destructive_penalty.max(1.0)
            * self.config.read_only_penalty.max(1.0)
            * self.config.change_penalty.max(1.0)
            * self.config.product_boost.max(1.0);
        let is_eligible = |tool: usize| eligible.get(tool).copied().unwrap_or(false);
        // In chunks: once `limit` totals are held, a chunk whose largest total cannot beat the
        // floor even at `max_multiplier` is only counted (the per-tool test below would skip
        // each of its tools the same way). Totals are never negative, so their bits order
        // them as numbers do.
        let largest =
            |chunk: &[f32]| f32::from_bits(chunk.iter().map(|v| v.to_bits()).fold(0, u32::max));
        // The `limit`-th best total times its tool's factor, and how many eligible tools have
        // a total. Without the deferred terms a total is lower, so this floor is too.
        let floor_of = |total: &[f32], covers: &[f64]| -> (f64, usize) {
            let mut best: Vec<f64> = Vec::with_capacity(limit);
            let mut floor = f64::NEG_INFINITY;
            let mut matched = 0usize;
            for (at, chunk) in total.chunks(PRUNE_CHUNK).enumerate() {
                let base = at * PRUNE_CHUNK;
                if best.len() == limit && f64::from(largest(chunk)) * max_multiplier <= floor {
                    matched += match eligible.get(base..base + chunk.len()) {
                        Some(flags) => chunk
                            .iter()
                            .zip(flags)
                            .filter(|&(&value, &flag)| value > 0.0 && flag)
                            .count(),
                        None => (base..)
                            .zip(chunk)
                            .filter(|&(tool, &value)| value > 0.0 && is_eligible(tool))
                            .count(),
                    };
                    continue;
                }
                for (tool, &value) in (base..).zip(chunk) {
                    let value = f64::from(value);
                    if value > 0.0 && is_eligible(tool) {
                        matched += 1;
                        if best.len() < limit || value * max_multiplier > floor {
                            let covered = covers.get(tool).copied().unwrap_or(0.0);
                            let score = value * factor(tool, covered);
                            if best.len() < limit {
                                best.push(score);
                                if best.len() == limit {
                                    floor = best.iter().copied().fold(f64::INFINITY, f64::min);
                                }
                            } else if score > floor {
                                if let Some(lowest) = best.iter_mut().find(|s| **s == floor) {
                                    *lowest = score;
                                }
                                floor = best.iter().copied().fold(f64::INFINITY, f64::min);
                            }
                        }
                    }
                }
            }
            (floor, matched)
        };
        let theta_of = |floor: f64| {
            floor * (1.0 - slack) - 2.0 * SCORE_ROUNDING - 2.0 * quantum * max_multiplier
        };
        let (mut floor, mut matched) = floor_of(total, covers);
        if rest > 0.0 && rest * max_multiplier * (1.0 + slack) >= theta_of(floor) {
            // The deferred terms could decide: sum them after all.
            for plan in plans.iter().filter(|plan| deferred(plan)) {
                stream(plan, total);
            }
            rest = 0.0;
            (floor, matched) = floor_of(total, covers);
        }
        let theta = theta_of(floor);
        let mut candidates: Vec<ToolId> = Vec::new();
        for (at, chunk) in total.chunks_mut(PRUNE_CHUNK).enumerate() {
            let base = at * PRUNE_CHUNK;
            // A chunk whose largest total fails the first test has no candidate.
            // A tool with no total could only reach the cut through the deferred terms, and
            // `rest` cannot (checked above).
            if matched > limit
                && (f64::from(largest(chunk)) + rest) * max_multiplier * (1.0 + slack) >= theta
            {
                for (tool, &value) in (base..).zip(&*chunk) {
                    let total = f64::from(value);
                    let value = total + rest;
                    if total > 0.0
                        && is_eligible(tool)
                        && value * max_multiplier * (1.0 + slack) >= theta
                    {
                        let covered = covers.get(tool).copied().unwrap_or(0.0);
                        if value * factor(tool, covered) * (1.0 + slack) >= theta {
                            candidates.push(tool as ToolId);
                        }
                    }
                }
            }
            chunk.fill(0.0);
            if scale.coord > 0.0 {
                if let Some(covered) = covers.get_mut(base..base + chunk.len()) {
                    covered.fill(0.0);
                }
            }
        }
        // No tool can be ruled out when no more than `limit` match.
        (matched > limit).then_some(candidates)
    }
}

/// [`FieldedBm25::score_candidates`] walks a term's tools when there are at most this many
/// per candidate and at most [`WALK_MAX`], and searches longer lists for each candidate (the
/// same rows either way; walking long lists slowed a 100,000-tool catalog's warm query, with
/// ~276 candidates spread over the catalog, from 2.7 to 3.1 ms).
const WALK_PER_CANDIDATE: usize = 16;
const WALK_MAX: usize = 128;

/// Relative margin of [`FieldedBm25::prune`], beside its `f32` totals' own: far above the
/// rounding error of summing a query's contributions in another order in `f64` (~1e-15
/// relative), far below any score gap that matters (a pruned tool is still far below the cut).
const BOUND_SLACK: f64 = 1e-9;

/// A term at least this share of the tools have (1/`DENSE_SHARE`) is stored densely (see
/// [`CombinedPostings`]).
const DENSE_SHARE: usize = 4;

/// [`FieldedBm25::prune`] reads its totals in chunks of this many tools.
const PRUNE_CHUNK: usize = 64;

/// The weights and saturations [`FieldedBm25::prune`] sums in `f32`, 2^-40..=2^40: a weight
/// times a term's step (its largest saturation over `u16::MAX`) times a step count lies in
/// 2^-96..2^80, and at most [`MAX_F32_TERMS`] of them sum below 2^100, all normal `f32`
/// numbers, so every rounding is relative (`f32::EPSILON / 2` at most).
const F32_SAFE: std::ops::RangeInclusive<f64> = 9.094_947_017_729_282e-13..=1_099_511_627_776.0;

/// At most this many terms are summed in `f32` (a longer query scores every tool).
const MAX_F32_TERMS: usize = 1 << 20;

/// A query term the catalog uses, with its query-side weight.
struct QueryTerm {
    term: u32,
    weight: f64,
    /// The user's own term (not a lexicon expansion).
    is_own: bool,
}

/// Sorts `ids` and yields each distinct id with its count.
fn counted(ids: &mut [u32]) -> impl Iterator<Item = (u32, u32)> + '_ {
    ids.sort_unstable();
    ids.chunk_by(|a, b| a == b)
        .map(|run| (run[0], run.len() as u32))
}

/// One query term resolved against the BM25F index.
struct TermPlan<'a> {
    query_weight: f64,
    idf: f64,
    /// Whether the term's idf counts toward coverage.
    counts_for_coverage: bool,
    /// Its id (the field lists are looked up only for a plan that reaches a scored tool).
    term: u32,
    postings: &'a CombinedPostings,
}

/// What multiplies a tool's summed score: the intent and product multipliers, and the
/// coordination factor's weight for this request (0 = off).
struct Scale<'a> {
    multiplier: &'a dyn Fn(ToolId) -> f64,
    coord: f64,
}

/// The coordination factor of a tool that matched `covered` of the user's words' idf
/// `own_idf_total` (at most 1, so every bound on an unscaled score still holds).
fn coord_factor(coord: f64, covered: f64, own_idf_total: f64) -> f64 {
    if coord > 0.0 && own_idf_total > 0.0 {
        1.0 - coord + coord * (covered / own_idf_total)
    } else {
        1.0
    }
}

/// A request word shorter than this is never taken for a typo (short words have too many
/// neighbours one edit away).
const TYPO_MIN_LETTERS: usize = 5;

/// Calls `f` with every lower-case word one edit from `word` (a deletion, a transposition of
/// neighbours, a substitution or an insertion of a letter a–z), possibly more than once.
fn each_one_edit_away(word: &str, f: &mut dyn FnMut(&str)) {
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

/// A term's BM25F contribution to a tool with pseudo term frequency `pseudo_tf`.
fn term_score(query_weight: f64, idf: f64, pseudo_tf: f64, k1: f64) -> f64 {
    query_weight * idf * pseudo_tf * (k1 + 1.0) / (pseudo_tf + k1)
}

/// Adds one term's contribution to one tool's field accumulators, split over fields by their
/// share of the pseudo term frequency. The one place BM25F arithmetic happens, for every path.
fn accumulate(slot: &mut [f64; N_FIELDS], row: &[f64; N_FIELDS], plan: &TermPlan<'_>, k1: f64) {
    let pseudo_tf: f64 = row.iter().sum();
    let score = term_score(plan.query_weight, plan.idf, pseudo_tf, k1);
    for (field_idx, share) in row.iter().enumerate() {
        // A field without the term would add exactly +0.0: skipped, same bits.
        if *share != 0.0 {
            slot[field_idx] += score * share / pseudo_tf;
        }
    }
}

impl FieldedBm25 {
    /// Scores every eligible tool of every term, terms in sorted order.
    fn score_all(&self, plans: &[TermPlan<'_>], eligible: &[bool], scratch: &mut Scratch) {
        let k1 = self.config.k1;
        for plan in plans {
            self.for_each_row(&self.field_lists(plan.term), |tool, row, _| {
                if eligible.get(tool as usize).copied().unwrap_or(false) {
                    accumulate(scratch.touch(tool), row, plan, k1);
                    if plan.counts_for_coverage {
                        scratch.covered[tool as usize] += plan.idf;
                    }
                }
            });
            if plan.counts_for_coverage {
                scratch.own_idf_total += plan.idf;
            }
        }
    }

    /// Scores only `candidates` (sorted, eligible), with exactly the operations, in exactly
    /// the order, that [`FieldedBm25::score_all`] applies to them: each candidate's row is
    /// looked up in the field lists instead of merged.
    fn score_candidates(
        &self,
        plans: &[TermPlan<'_>],
        candidates: &[ToolId],
        scratch: &mut Scratch,
    ) {
        let k1 = self.config.k1;
        let last = candidates.last().copied().unwrap_or(0);
        for &tool in candidates {
            scratch.is_candidate[tool as usize] = true;
        }
        for plan in plans {
            let mut cursors = [0usize; N_FIELDS];
            let postings = plan.postings;
            let tools = &postings.tools;
            // The candidates with the term and their codes, in `ToolId` order (a candidate
            // coded 0 in every field adds nothing either way). A dense term is read at each
            // candidate; a short sparse list is walked up to the last candidate (a flag test
            // per tool is cheaper than a search per candidate), a long one searched for each
            // candidate.
            let code_at = |at: usize| postings.tfs.get(at).copied().unwrap_or(0);
            let mut rows = std::mem::take(&mut scratch.rows);
            rows.clear();
            if postings.dense {
                rows.extend(
                    candidates
                        .iter()
                        .map(|&tool| (tool, code_at(tool as usize))),
                );
                rows.retain(|&(_, codes)| codes != 0);
            } else if tools.len() <= (WALK_PER_CANDIDATE * candidates.len()).min(WALK_MAX) {
                for (at, &tool) in tools.iter().enumerate() {
                    if tool > last {
                        break;
                    }
                    if scratch.is_candidate[tool as usize] {
                        rows.push((tool, code_at(at)));
                    }
                }
            } else {
                let mut at = 0usize;
                for &tool in candidates {
                    at += gallop(&tools[at.min(tools.len())..], tool, |&t| t);
                    if tools.get(at) == Some(&tool) {
                        rows.push((tool, code_at(at)));
                    }
                }
            }
            // The field lists, looked up on the first frequency the codes cannot hold.
            let mut fields: Option<FieldLists<'_>> = None;
            for &(tool, codes) in &rows {
                let mut row = [0.0; N_FIELDS];
                let mut found = false;
                for (field_idx, cursor) in cursors.iter_mut().enumerate() {
                    // A field coded 0 lacks the tool (or its part is 0): the row keeps 0
                    // there either way.
                    let tf = match field_code(codes, field_idx) {
                        0 => continue,
                        TF_IN_LIST => {
                            // Its cursor stays behind; a later search starts from it.
                            let list = fields.get_or_insert_with(|| self.field_lists(plan.term))
                                [field_idx];
                            *cursor += gallop(&list[(*cursor).min(list.len())..], tool, |e| e.0);
                            match list.get(*cursor) {
                                Some(&(head, tf)) if head == tool => tf,
                                _ => continue,
                            }
                        }
                        tf => u32::from(tf),
                    };
                    row[field_idx] = self.part(field_idx, tool, tf);
                    found = true;
                }
                if found {
                    accumulate(scratch.touch(tool), &row, plan, k1);
                    if plan.counts_for_coverage {
                        scratch.covered[tool as usize] += plan.idf;
                    }
                }
            }
            scratch.rows = rows;
            if plan.counts_for_coverage {
                scratch.own_idf_total += plan.idf;
            }
        }
        for &tool in candidates {
            scratch.is_candidate[tool as usize] = false;
        }
    }
}

/// The number of leading entries (sorted by tool) whose tool is below `tool` (exponential,
/// then binary search: cheap when the answer is near the start).
fn gallop<T>(entries: &[T], tool: ToolId, tool_of: impl Fn(&T) -> ToolId) -> usize {
    let mut bound = 1;
    while bound < entries.len() && tool_of(&entries[bound]) < tool {
        bound *= 2;
    }
    let start = bound / 2;
    let end = entries.len().min(bound + 1);
    start + entries[start..end].partition_point(|e| tool_of(e) < tool)
}

/// Sorts by score (rounded to [`SCORE_ROUNDING`]) descending, then `ToolId` ascending.
pub fn sort_hits(hits: &mut [Hit]) {
    hits.sort_by_cached_key(rank_key);
}

/// Keeps the first `limit` hits of the [`sort_hits`] order, sorted. The order is total (no two
/// hits share a tool), so selecting first and sorting the rest gives the same hits.
pub fn top_hits(hits: &mut Vec<Hit>, limit: usize) {
    if hits.len() > limit && limit > 0 {
        hits.select_nth_unstable_by_key(limit - 1, rank_key);
        hits.truncate(limit);
    } else {
        hits.truncate(limit);
    }
    sort_hits(hits);
}

fn rank_key(hit: &Hit) -> (std::cmp::Reverse<i64>, ToolId) {
    (std::cmp::Reverse(rounded(hit.score)), hit.tool)
}

fn rounded(score: f64) -> i64 {
    (score / SCORE_ROUNDING).round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::SourceFile;

    /// A catalog of one product, `product`, holding `tools` (catalog.v1 tool objects,
    /// comma-separated).
    fn catalog_of(product: &str, tools: &str) -> Catalog {
        Catalog::build(&[SourceFile {
            name: "t.json".into(),
            text: format!(
                r#"{{"version":"catalog.v1","products":[{{"id":"{product}","tools":[{tools}]}}]}}"#
            )
            .into(),
        }])
        .unwrap()
    }

    /// The canonical paths `config` finds for `query` over every tool of `catalog`.
    fn found(catalog: &Catalog, config: Bm25Config, query: &str) -> Vec<String> {
        let retriever = FieldedBm25::new("fielded_bm25", config, catalog);
        let eligible = vec![true; catalog.tools().len()];
        retriever
            .search(query, &eligible, 10)
            .iter()
            .map(|hit| catalog.tool(hit.tool).def.canonical_path.clone())
            .collect()
    }

    /// The first hit decides whether an answer is confident (docs/adr/0006's first-hit
    /// addendum): it is weak when it matched less than 1.25 single-tool words' worth of the
    /// request's idf and either under a fifth of it or the request holds three or more words
    /// the catalog never uses; in a catalog without `use_when` the rule is off.
    #[test]
    fn a_first_hit_sharing_too_little_with_the_request_makes_a_weak_match() {
        let tools = [
            ("send_message", "Send a message to a group."),
            ("recall_message", "Recall a message you sent."),
            ("create_event", "Create an event in the calendar."),
            ("delete_event", "Delete an event from the calendar."),
            ("upload_file", "Upload a file to the drive."),
            ("create_task", "Create a task in the todo list."),
        ];
        let catalog_with = |use_when: bool| {
            let tools: Vec<String> = tools
                .iter()
                .map(|(name, text)| {
                    let situations = if use_when {
                        format!(r#","use_when":["{text}"]"#)
                    } else {
                        String::new()
                    };
                    format!(
                        r#"{{"canonical_path":"office.{name}","name":"{name}","agent_summary":"{text}","description":"{text}"{situations}}}"#
                    )
                })
                .collect();
            catalog_of("office", &tools.join(","))
        };
        let confident = |catalog: &Catalog, config: Bm25Config, query: &str| {
            let eligible = vec![true; catalog.tools().len()];
            let hits =
                FieldedBm25::new("fielded_bm25", config, catalog).search(query, &eligible, 10);
            assert!(!hits.is_empty(), "{query}");
            hits.iter().any(|hit| hit.confident)
        };
        let situated = catalog_with(true);
        let on = Bm25Config::DEFAULT;
        // A word two tools hold, matched, among three words the catalog never uses.
        assert!(!confident(&situated, on, "message frobnicate quux zorp"));
        // The same word with fewer unknown words: it is all the catalog knows of the request.
        assert!(confident(&situated, on, "message frobnicate quux"));
        // A word only one tool holds, matched too: enough evidence.
        assert!(confident(
            &situated,
            on,
            "recall message frobnicate quux zorp"
        ));
        let off = Bm25Config {
            weak_first_idf: 0.0,
            ..Bm25Config::DEFAULT
        };
        assert!(confident(&situated, off, "message frobnicate quux zorp"));
        // Without `use_when` the rule does not apply.
        assert!(confident(
            &catalog_with(false),
            on,
            "message frobnicate quux zorp"
        ));
    }

    /// A tool without an `agent_summary` is summed up by its description: a description match
    /// makes it a confident hit; a tool with a summary still needs an identity or summary match.
    #[test]
    fn a_description_stands_in_for_a_missing_summary() {
        let catalog = catalog_of(
            "api",
            r#"{"canonical_path":"api.a1","name":"a1","description":"Translate a document."},
                {"canonical_path":"api.b2","name":"b2","agent_summary":"Something else.","description":"Translate a document."}"#,
        );
        let eligible = vec![true; catalog.tools().len()];
        let confidence = |config: Bm25Config| {
            let hits = FieldedBm25::new("fielded_bm25", config, &catalog).search(
                "translate",
                &eligible,
                10,
            );
            hits.iter()
                .map(|hit| (catalog.tool(hit.tool).def.name.clone(), hit.confident))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            confidence(Bm25Config::DEFAULT),
            [("a1".to_string(), true), ("b2".to_string(), false)]
        );
        let contract_only = Bm25Config {
            description_as_summary: false,
            weak_low_cover: 0.0,
            weak_unknown_words: 0,
            ..Bm25Config::DEFAULT
        };
        assert_eq!(
            confidence(contract_only),
            [("a1".to_string(), false), ("b2".to_string(), false)]
        );
    }

    /// A query word reaches a tool that only uses another word of its stem ("convicted" →
    /// "conviction"), at `stem_weight` below the tool that has the word itself.
    #[test]
    fn stem_siblings_join_the_query_below_its_own_words() {
        let catalog = catalog_of(
            "law",
            r#"{"canonical_path":"law.find_records","name":"find_records","description":"Find people by their conviction."},
                {"canonical_path":"law.list_cases","name":"list_cases","description":"Cases where someone was convicted."},
                {"canonical_path":"law.weather","name":"weather","description":"Weather forecast."}"#,
        );
        let search = |stem_weight: f64| {
            // WordNet's words (ADR 0014) would also join "convicted" to "conviction": off, so
            // only the stem siblings are measured.
            let config = Bm25Config {
                stem_weight,
                wn_weight: 0.0,
                ..Bm25Config::DEFAULT
            };
            found(&catalog, config, "who was convicted")
        };
        assert_eq!(search(0.0), ["law.list_cases"]);
        assert_eq!(search(0.2), ["law.list_cases", "law.find_records"]);
        assert_eq!(crate::text::english_stem("convicted"), "convict");
        assert_eq!(crate::text::english_stem("conviction"), "convict");
    }

    /// A misspelt English word of five letters or more that the catalog lacks reaches the
    /// tool with the word one edit away ("calender" → "calendar", "recieve" → "receive"); a
    /// shorter one ("mial") and a word the catalog has are left alone.
    #[test]
    fn typos_reach_the_words_one_edit_away() {
        let catalog = catalog_of(
            "p",
            r#"{"canonical_path":"p.cal","name":"cal","description":"Open the shared calendar."},
                {"canonical_path":"p.inbox","name":"inbox","description":"Receive mail in the inbox."},
                {"canonical_path":"p.notes","name":"notes","description":"Take notes."}"#,
        );
        let search = |typo_weight: f64, query: &str| {
            let config = Bm25Config {
                typo_weight,
                ..Bm25Config::DEFAULT
            };
            found(&catalog, config, query)
        };
        assert!(search(0.0, "my calender please").is_empty());
        assert_eq!(search(0.3, "my calender please"), ["p.cal"]);
        assert_eq!(search(0.3, "recieve it"), ["p.inbox"]);
        assert!(search(0.3, "mial").is_empty());
        // "notes" is the catalog's own word: nothing one edit away ("note", "votes") joins.
        assert_eq!(search(0.3, "notes"), ["p.notes"]);
        let mut edits = Vec::new();
        each_one_edit_away("abc", &mut |word| edits.push(word.to_string()));
        // 3 deletions, 2 swaps, 3 × 25 substitutions, 4 × 26 insertions.
        assert_eq!(edits.len(), 3 + 2 + 75 + 104);
        for expected in ["bc", "bac", "abd", "xabc", "abcz"] {
            assert!(edits.iter().any(|e| e == expected), "{expected}");
        }
    }

    /// A term frequency too large for `CombinedPostings::tfs` is read from the field's list:
    /// pruned scoring still gives every bit of scoring every tool.
    #[test]
    fn large_term_frequencies_score_like_unpruned() {
        let repeated = "export ".repeat(9);
        let catalog = catalog_of(
            "p",
            &format!(
                r#"{{"canonical_path":"p.a","name":"a","description":"{repeated} report"}},
                {{"canonical_path":"p.b","name":"b","description":"export the report twice: export"}},
                {{"canonical_path":"p.c","name":"c","description":"report export"}},
                {{"canonical_path":"p.d","name":"d","description":"{repeated}"}}"#
            ),
        );
        let hits = |prune: bool| {
            let config = Bm25Config {
                prune,
                ..Bm25Config::DEFAULT
            };
            let retriever = FieldedBm25::new("fielded_bm25", config, &catalog);
            retriever
                .search("export report", &[true; 4], 2)
                .iter()
                .map(|hit| (hit.tool, hit.score.to_bits(), hit.fields.map(f64::to_bits)))
                .collect::<Vec<_>>()
        };
        assert_eq!(hits(true).len(), 2);
        assert_eq!(hits(true), hits(false));
    }
}
