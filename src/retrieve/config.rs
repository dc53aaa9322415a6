//! [`Bm25Config`]: every tuning knob of [`FieldedBm25`] with its reason (docs/adr), the named
//! presets (`DEFAULT`, `RULES_OFF`, `DWS`, `SINGLE_FIELD`) and `eval --param`'s overrides by name.

use super::*;

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
    /// `weak_first_idf` for a request holding a Han character (Chinese and mixed requests):
    /// their answerable requests fall under the same threshold less often than English ones, so
    /// theirs is higher (docs/adr/0006's Han-threshold addendum, pre-registration 82).
    pub weak_first_idf_han: f64,
    /// See `weak_first_idf`.
    pub weak_low_cover: f64,
    /// See `weak_first_idf` (0 = that clause never holds).
    pub weak_unknown_words: usize,
    /// For a tool without an `agent_summary` (imported tools, API catalogs), a description match
    /// counts like a summary match toward a confident hit (docs/adr/0006's first-hit addendum).
    pub description_as_summary: bool,
    /// On the catalog the compiled weak model was trained for (its `source_hash`), and on any
    /// other where at least half of the tools have `use_when` (pre-registration 97), a single
    /// request's answer is a weak match exactly when that model doubts its first hit, instead of
    /// the `weak_first_idf` rule and the hits' own confidence (`retrieve::weak`; docs/adr/0006's
    /// learned-flag and situated-catalogs addenda). Elsewhere, and for workflow arms, the rule
    /// stays.
    pub learned_weak: bool,
    /// With `learned_weak`, on the catalog the compiled sure model was trained for, a single
    /// request's confident answer keeps only its first hit when that model is sure the hit is
    /// relevant (`retrieve::weak`; docs/adr/0018, pre-registration 93).
    pub learned_sure: bool,
    /// With `learned_sure`, on the catalog the compiled tail model was trained for, a single
    /// request's confident answer whose first hit the sure model gives a probability above
    /// `tail_floor` (but not above its own threshold) is its first five hits less each hit at
    /// ranks 2–5 the tail model finds a tempting wrong tool (`retrieve::weak`; docs/adr/0019,
    /// pre-registration 94).
    pub learned_tail: bool,
    /// See `learned_tail`: how sure of the first hit the sure model must be before the tail model
    /// judges the hits after it.
    pub tail_floor: f64,
    /// In a request with subqueries, an arm keeps only the hits scoring at least this share of
    /// its best hit's score, so a sure arm leaves the merged slots to the other arms' deeper
    /// hits (0 = keep all; docs/adr/0013's arm-floor addendum, pre-registration 92).
    pub arm_floor: f64,
    /// In a catalog that speaks one language (see [`crate::index::speaks_one_language`]), each
    /// tool whose summary is written in Han characters also holds, in its description field,
    /// the English phrases of the lexicon groups its summary touches (docs/adr/0020).
    pub bridge: bool,
    /// With `bridge`, each such summary also lends its touched groups' Han phrases it does not
    /// hold, as synonym terms outside the field's length that only a single request's own Han
    /// words meet: each brings its synonym twin (`index::SYNONYM_MARK`) at this weight ×
    /// ln(1 + qtf), as a joined term; a workflow's arm brings none (0 = nothing lent;
    /// docs/adr/0020's synonym addenda, pre-registration 102).
    pub synonym_weight: f64,
    /// Each `avoid_when` clause that names tools of the catalog is lent, those names blanked
    /// out, as a `use_when` sentence of each tool it names (`index::avoid_situations`;
    /// docs/adr/0012's thin-catalog addendum, pre-registration 104). Not on the catalog the
    /// learned models were trained for (`retrieve::lends`).
    pub avoid_situations: bool,
    /// Coordination factor: in a request of at least `short_query_words` word terms, a hit's
    /// score is multiplied by `1 - coord + coord * coverage` (its share of the user's own
    /// words' idf, as for `min_coverage`), so tools matching more of what the user wrote come
    /// first (0 = off; docs/adr/0003's coordination addendum).
    pub coord: f64,
    /// Score multiplier for tools of a product the query names (1 = off).
    pub product_boost: f64,
    /// The product prior (docs/adr/0003's product-prior addendum, pre-registration 103): in a
    /// catalog of several products, the request is also scored against one document per
    /// product (its name, description, agent_summary and use_when, which no tool field holds),
    /// and each tool's multiplier gets `1 + product_weight × S(p) / max S`, `p` its product
    /// (0 = off). Not on the catalog the learned models were trained for (`FieldedBm25::new`).
    pub product_weight: f64,
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
    /// What the index lends a catalog that speaks one language (docs/adr/0020), and any
    /// catalog's `avoid_when` situations (for a catalog, `retrieve::lends` decides the last).
    pub fn lends(&self) -> crate::index::Bridge {
        crate::index::Bridge {
            english: self.bridge,
            synonyms: self.bridge && self.synonym_weight > 0.0,
            situations: self.avoid_situations,
        }
    }

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
            "weak_first_idf_han" => self.weak_first_idf_han = number()?,
            "weak_low_cover" => self.weak_low_cover = number()?,
            "weak_unknown_words" => self.weak_unknown_words = whole()?,
            "description_as_summary" => self.description_as_summary = flag()?,
            "learned_weak" => self.learned_weak = flag()?,
            "learned_sure" => self.learned_sure = flag()?,
            "learned_tail" => self.learned_tail = flag()?,
            "tail_floor" => self.tail_floor = number()?,
            "arm_floor" => self.arm_floor = number()?,
            "synonym_weight" => self.synonym_weight = number()?,
            "avoid_situations" => self.avoid_situations = flag()?,
            "bridge" => self.bridge = flag()?,
            "coord" => self.coord = number()?,
            "product_boost" => self.product_boost = number()?,
            "product_weight" => self.product_weight = number()?,
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
        weak_first_idf_han: 1.6,
        weak_low_cover: 0.2,
        weak_unknown_words: 3,
        description_as_summary: true,
        learned_weak: true,
        learned_sure: true,
        learned_tail: true,
        tail_floor: 0.8,
        arm_floor: 0.6,
        bridge: true,
        synonym_weight: 0.5,
        avoid_situations: true,
        coord: 0.3,
        product_boost: 1.0,
        product_weight: 0.3,
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
        weak_first_idf_han: 0.0,
        weak_low_cover: 0.0,
        weak_unknown_words: 0,
        description_as_summary: false,
        learned_weak: false,
        learned_sure: false,
        learned_tail: false,
        tail_floor: 0.8,
        arm_floor: 0.0,
        bridge: false,
        synonym_weight: 0.0,
        avoid_situations: false,
        coord: 0.0,
        product_boost: 1.0,
        product_weight: 0.0,
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
