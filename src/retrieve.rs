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
//! Layout: this file holds the trait, the registry, `FieldedBm25` and its `search` (the
//! pipeline of one request: terms, joins, intent multipliers, scoring, the confidence rule);
//! `config` the knobs (`Bm25Config`), `query` the terms a request's words and joined texts
//! bring, `score` BM25F over the postings (and the per-thread scratch), `prune` the exact
//! candidate cut, `explain` the same scores term by term for `toolsearch why`.
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
    english_stem, is_english_word, is_han, is_pair_term, split_quoted, Analyzer, AnalyzerConfig,
    HanMode, LearnedPairs, Lexicon, PreparedQuery, ID_SHAPE_MARK,
};
use crate::wire::Effect;

pub use crate::index::{Field, N_FIELDS};

mod config;
mod explain;
mod prune;
mod query;
mod score;
mod weak;
// `weak_model::parse` runs in `build.rs` (which compiles the model in) and in tests.
#[cfg_attr(not(test), allow(dead_code))]
mod weak_model;

pub use config::Bm25Config;
pub use explain::{ExplainedTerm, Explanation, ToolScore};
pub use query::Origin;
use query::*;
use score::*;

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

/// What the learned models say of a single request's answer, each as its probability and the
/// threshold above which its verdict holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The weak model's: the catalog cannot serve the request (a weak match).
    pub doubt: (f64, f64),
    /// The sure model's, where it judges: the first hit is relevant (offered alone).
    pub sure: Option<(f64, f64)>,
    /// The tail model's, where it judges (see `Bm25Config::learned_tail`): for each hit at ranks
    /// 2–5 in order, that it is a tempting wrong tool (dropped from the answer).
    pub tail: Option<(Vec<(ToolId, f64)>, f64)>,
}

impl Verdict {
    /// Whether the answer is a weak match.
    fn doubted(&self) -> bool {
        self.doubt.0 > self.doubt.1
    }

    /// Whether the answer offers its first hit alone.
    fn sure(&self) -> bool {
        !self.doubted() && self.sure.is_some_and(|(p, threshold)| p > threshold)
    }

    /// Whether the tail model drops a hit it judged `p` (a tempting wrong tool): the one place
    /// that reads the tail threshold, for the answer and for `toolsearch why`.
    pub fn tail_drops(&self, p: f64) -> bool {
        self.tail
            .as_ref()
            .is_some_and(|(_, threshold)| p > *threshold)
    }

    /// The hits the tail model drops from the answer, where it judges.
    fn tempting(&self) -> Option<Vec<ToolId>> {
        let (tail, _) = self.tail.as_ref()?;
        Some(
            tail.iter()
                .filter(|(_, p)| self.tail_drops(*p))
                .map(|(tool, _)| *tool)
                .collect(),
        )
    }
}

/// Whether a query is a request on its own or one arm of a request with subqueries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Single,
    /// An arm's own Han words do not meet the bridge's synonyms (docs/adr/0020's synonym
    /// addendum): its ranking is the one it had before them.
    Arm,
}

/// A lexical retriever. Its `name` is the response's `strategy`.
pub trait Retriever: Send + Sync {
    fn name(&self) -> &'static str;
    /// The best `limit` eligible tools for `query`, in the total order described above.
    fn search(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<Hit>;
    /// [`Retriever::search`] for a request on its own (not one arm of a workflow): the same
    /// hits, whose confidence a retriever may judge differently when it knows that. Required,
    /// so a wrapping retriever cannot forget to pass it on.
    fn search_single(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<Hit>;
    /// One arm of a request with subqueries: the hits of [`Retriever::rank`] for
    /// [`Role::Arm`] in its order, less the tail a retriever judges too weak to spend a merged
    /// slot on, so a sure arm leaves its slots to the other arms. Required, like
    /// `search_single`.
    fn search_arm(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<Hit>;
    /// The best `limit` eligible tools for `query` in `role`: [`Retriever::search`] for a
    /// single request; an arm's may differ where the index holds the bridge's synonyms.
    fn rank(&self, query: &str, eligible: &[bool], limit: usize, _role: Role) -> Vec<Hit> {
        self.search(query, eligible, limit)
    }
    /// For a single request, what the learned models say of its answer (`toolsearch why`);
    /// `None` where no such model judges (docs/adr/0006's learned-flag addendum, docs/adr/0018,
    /// docs/adr/0019).
    fn verdict(&self, query: &str, eligible: &[bool]) -> Option<Verdict>;
    /// The retriever whose answer to the same request decides `weak_match` instead of this
    /// one's, if any: for a bridged index, the same ranking without the bridge, so the bridge
    /// moves the ranking and never the weak flag (docs/adr/0020).
    fn judge(&self) -> Option<&dyn Retriever> {
        None
    }
    /// Fills the retriever's query-independent caches ahead of use, until done or `stop` is
    /// set (a long-running server calls it from a second thread). Never changes an answer.
    fn warm(&self, _stop: &std::sync::atomic::AtomicBool) {}
    /// How `query` scores `tools`, term by term (`toolsearch why`); `None` when this
    /// retriever cannot say.
    fn explain(&self, _query: &str, _tools: &[ToolId], _role: Role) -> Option<Explanation> {
        None
    }
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

/// How many of the best-matching products the product prior lifts: every product of each
/// catalog it was measured on (13, 10 and 20 products), and a bound on its cost in a catalog of
/// thousands (docs/adr/0003's product-prior addendum: all 5,525 products of the 100,000-tool
/// benchmark cost 1.3 ms a query).
pub const PRIOR_PRODUCTS: usize = 20;

/// What `config`'s index of `catalog` is lent ([`Bm25Config::lends`]): the `avoid_when`
/// situations not on the catalog the learned models were trained for, whose scores they read
/// as trained (pre-registration 104).
pub fn lends(config: &Bm25Config, catalog: &Catalog) -> crate::index::Bridge {
    let mut lends = config.lends();
    lends.situations &= !weak::weak().fits(catalog);
    lends
}

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
    /// The ids of the synonym terms the bridge lent (`index::SYNONYM_MARK`; empty when none).
    synonym_terms: std::ops::Range<u32>,
    id_shape_terms: std::ops::Range<u32>,
    tool_effects: Vec<Option<Effect>>,
    /// Per tool: effect write and idempotency non_idempotent (it makes something new).
    tool_makes_new: Vec<bool>,
    /// Per tool: whether it has no `agent_summary` (imported tools, API catalogs).
    tool_lacks_summary: Vec<bool>,
    /// Whether at least half of the tools have `use_when` situations (the first-hit rule's
    /// condition, and the weak model's on a catalog other than its own).
    situated: bool,
    /// Per tool: the index of its product in `product_names`.
    tool_products: Vec<usize>,
    /// Per product: the phrases that name it (id and display name).
    product_names: Vec<Vec<String>>,
    /// The product prior's retriever: this configuration over one document per product
    /// (`Catalog::products_as_tools`, its tools in product order), where `product_weight`
    /// applies (docs/adr/0003's product-prior addendum).
    products: Option<Box<FieldedBm25>>,
    /// Per learned text (see `LearnedPairs::text`), filled on first use: its terms' ids.
    learned_terms: std::sync::OnceLock<Vec<std::sync::OnceLock<Vec<u32>>>>,
    /// Learned pairs parsed at run time (`eval --param learned_pairs=FILE`) instead of the
    /// compiled ones.
    learned_pairs: Option<std::sync::Arc<crate::text::learned::Tables>>,
    /// The compiled weak model, when `learned_weak` is on and it was trained for this catalog or
    /// the catalog is `situated`.
    weak_model: Option<&'static weak::TreeModel>,
    /// Whether the weak model was trained for this catalog: then its features are computed
    /// exactly as the training computed them, ties past the fifth hit included (see
    /// `search_judged`).
    trained_for: bool,
    /// The compiled sure model, when `learned_sure` is on with the weak model, and it was trained
    /// for this catalog.
    sure_model: Option<&'static weak::TreeModel>,
    /// The compiled tail model, when `learned_tail` is on with the sure model, and it was trained
    /// for this catalog.
    tail_model: Option<&'static weak::TreeModel>,
}

impl FieldedBm25 {
    pub fn new(name: &'static str, config: Bm25Config, catalog: &Catalog) -> FieldedBm25 {
        let analyzer = Analyzer::new(config.analyzer);
        let index = Index::build(
            catalog,
            &analyzer,
            &config.weights,
            config.single_field,
            lends(&config, catalog),
        );
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
        let situated = 2 * catalog
            .tools()
            .iter()
            .filter(|t| !t.def.use_when.is_empty())
            .count()
            >= n_tools;
        let trained_for = weak::weak().fits(catalog);
        // The product prior (docs/adr/0003's product-prior addendum, pre-registration 103):
        // with a weight, in a catalog of several products (`products_as_tools`), and not on the
        // catalog the learned models were trained for, whose scores they read as trained.
        // (No closure here: one that builds a `Bm25Config` by update crashes rustc's MIR check.)
        let mut products = None;
        if config.product_weight > 0.0 && !trained_for {
            if let Some(documents) = catalog.products_as_tools() {
                let product_config = Bm25Config {
                    product_weight: 0.0,
                    learned_weak: false,
                    learned_sure: false,
                    learned_tail: false,
                    ..config
                };
                products = Some(Box::new(FieldedBm25::new(name, product_config, &documents)));
            }
        }
        let sure_model = Some(weak::sure()).filter(|model| {
            config.learned_sure && config.learned_weak && config.bm25f && model.fits(catalog)
        });
        FieldedBm25 {
            learned_terms: std::sync::OnceLock::new(),
            learned_pairs: None,
            trained_for,
            // The weak model also judges other catalogs with situations (docs/adr/0006's
            // situated-catalogs addendum, pre-registration 97); the sure and tail models serve
            // only the catalog they were trained for.
            weak_model: Some(weak::weak())
                .filter(|_| config.learned_weak && config.bm25f && (trained_for || situated)),
            sure_model,
            // The tail model judges only where the sure model does (`search_judged`).
            tail_model: sure_model
                .and(Some(weak::tail()))
                .filter(|model| config.learned_tail && model.fits(catalog)),
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
            synonym_terms: index
                .terms
                .prefix_range(crate::index::SYNONYM_MARK.encode_utf8(&mut [0; 4])),
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
            situated,
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
            products,
        }
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
        if let Some(products) = &self.products {
            products.warm(stop);
        }
    }

    fn search(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<Hit> {
        self.rank(query, eligible, limit, Role::Single)
    }

    fn rank(&self, query: &str, eligible: &[bool], limit: usize, role: Role) -> Vec<Hit> {
        self.search_planned(&self.plan_query(query, role), None, query, eligible, limit)
    }

    /// With the weak model (docs/adr/0006's learned-flag addendum), the model judges the first
    /// hit, and its verdict is every answered hit's confidence, whatever `limit` (the first
    /// `limit` of a longer list are the best `limit`; see `search_judged`). With the sure model
    /// too (docs/adr/0018), a confident answer whose first hit that model is sure of keeps only
    /// that hit; with the tail model (docs/adr/0019), one it judges keeps its first five hits
    /// less the tempting ones. Either way the answer for `limit` is the first `limit` of the
    /// answer for 5.
    fn search_single(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<Hit> {
        if self.weak_model.is_none() {
            return self.search(query, eligible, limit);
        }
        let (mut hits, verdict) = self.search_judged(query, eligible, limit);
        let confident = verdict.as_ref().is_none_or(|v| !v.doubted());
        for hit in &mut hits {
            hit.confident = confident;
        }
        if verdict.as_ref().is_some_and(Verdict::sure) {
            hits.truncate(1);
        } else if let Some(tempting) = verdict.as_ref().and_then(Verdict::tempting) {
            hits.truncate(weak::SCORES);
            hits.retain(|hit| !tempting.contains(&hit.tool));
        }
        hits.truncate(limit);
        hits
    }

    /// Keeps the hits scoring at least `arm_floor` times the arm's best (docs/adr/0013's
    /// arm-floor addendum, pre-registration 92).
    fn search_arm(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<Hit> {
        let mut hits = self.rank(query, eligible, limit, Role::Arm);
        let floor = hits
            .first()
            .map_or(0.0, |best| best.score * self.config.arm_floor);
        hits.retain(|hit| hit.score >= floor);
        hits
    }

    fn verdict(&self, query: &str, eligible: &[bool]) -> Option<Verdict> {
        self.search_judged(query, eligible, 1).1
    }

    fn explain(&self, query: &str, tools: &[ToolId], role: Role) -> Option<Explanation> {
        self.explain_terms(query, tools, role)
    }
}

impl FieldedBm25 {
    /// At least the best `limit` hits of a single request, and what the learned models say of
    /// them (`None` without hits or without the weak model). The features read the first five
    /// hits' scores, so at least those are scored, or the first twenty when the first score's tie
    /// runs to the fifth (`weak::tie_reaches_last_score`).
    fn search_judged(
        &self,
        query: &str,
        eligible: &[bool],
        limit: usize,
    ) -> (Vec<Hit>, Option<Verdict>) {
        let plan = self.plan_query(query, Role::Single);
        // Scoring and the models read the same plans (built once).
        let plans = self.bm25f_plans(&plan.terms, &|term| {
            self.counts_for_coverage(term, plan.has_word_terms)
        });
        let mut searched = limit.max(weak::SCORES);
        let mut hits = self.search_planned(&plan, Some(&plans), query, eligible, searched);
        // The features divide by the largest score of the first DEPTH hits, as the training read
        // them. When the first score's tie runs to the fifth hit, that score may lie past the
        // hits found, so the catalog the model was trained for searches again, deeper. Another
        // catalog takes the largest of the hits found: it differs from the tie's by less than
        // `SCORE_ROUNDING`, and a catalog full of ties (the 100,000-tool benchmark's copies)
        // would pay a second search on most requests (docs/PERFORMANCE.md).
        if self.trained_for && searched < weak::DEPTH && weak::tie_reaches_last_score(&hits) {
            searched = limit.max(weak::DEPTH);
            hits = self.search_planned(&plan, Some(&plans), query, eligible, searched);
        }
        let Some(model) = self.weak_model.filter(|_| !hits.is_empty()) else {
            return (hits, None);
        };
        // The models were trained without the product prior: they read the hits as the ranking
        // without it would order them, each score without its factor (and
        // `intent_multiplier`).
        let mut unlifted: Vec<Hit>;
        let judged = if plan.product_prior.is_empty() {
            &hits
        } else {
            unlifted = hits
                .iter()
                .map(|hit| {
                    let prior = self.prior_of(&plan, hit.tool);
                    Hit {
                        score: hit.score / prior,
                        multiplier: hit.multiplier / prior,
                        ..hit.clone()
                    }
                })
                .collect::<Vec<Hit>>();
            sort_hits(&mut unlifted);
            &unlifted
        };
        let scale = self.feature_scale(&plan, &plans, judged);
        let Some(x) = self.first_hit_features(&plan, &plans, &scale, eligible, judged, searched)
        else {
            return (hits, None);
        };
        let mut verdict = Verdict {
            doubt: (model.probability(&x), model.threshold()),
            sure: self
                .sure_model
                .map(|sure| (sure.probability(&x), sure.threshold())),
            tail: None,
        };
        // The tail model judges where the sure model is fairly sure, but not sure enough to
        // offer the first hit alone, and there is no weak match.
        let fairly_sure = verdict
            .sure
            .is_some_and(|(p, threshold)| p > self.config.tail_floor && p <= threshold);
        if let Some(tail) = self
            .tail_model
            .filter(|_| fairly_sure && !verdict.doubted())
        {
            let judged = self
                .tail_features(&plan, &plans, &scale, judged, &x)
                .iter()
                .zip(&hits[1..])
                .map(|(features, hit)| (hit.tool, tail.probability(features)))
                .collect();
            verdict.tail = Some((judged, tail.threshold()));
        }
        (hits, Some(verdict))
    }

    /// The best `limit` eligible tools for the request `plan` was made from (`query`), scoring
    /// `plans` when given (its [`FieldedBm25::bm25f_plans`], under BM25F).
    fn search_planned(
        &self,
        plan: &QueryPlan,
        plans: Option<&[TermPlan<'_>]>,
        query: &str,
        eligible: &[bool],
        limit: usize,
    ) -> Vec<Hit> {
        let multiplier = |tool: ToolId| self.multiplier(plan, tool);
        let scale = Scale {
            multiplier: &multiplier,
            coord: plan.coord,
        };
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let scratch = &mut *scratch;
            scratch.reset(self.n_tools);
            match plans {
                Some(plans) => self.score_plans(plans, eligible, limit, &scale, scratch),
                None => self.score_terms(
                    &plan.terms,
                    plan.has_word_terms,
                    eligible,
                    limit,
                    &scale,
                    scratch,
                ),
            }
            let mut touched = std::mem::take(&mut scratch.touched);
            touched.sort_unstable();
            let own_idf_total = scratch.own_idf_total;
            let mut hits: Vec<Hit> = touched
                .iter()
                .filter_map(|&tool| {
                    let fields = scratch.scores[tool as usize];
                    let covered = scratch.covered[tool as usize];
                    let sum: f64 = fields.iter().sum();
                    let multiplier =
                        multiplier(tool) * coord_factor(plan.coord, covered, own_idf_total);
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
            if self.first_hit_is_weak(query, &hits, own_idf_total, plan.unknown_words) {
                for hit in &mut hits {
                    hit.confident = false;
                }
            }
            hits
        })
    }
}

/// What one request asks of the index, worked out once before scoring: its weighted terms
/// and what decides its multipliers.
pub(crate) struct QueryPlan {
    /// The request's own terms and the joined ones, sorted by term id.
    terms: Vec<QueryTerm>,
    /// Whether the request has word terms (not only marked `#` ones).
    has_word_terms: bool,
    /// The request's words the catalog never uses.
    unknown_words: usize,
    /// Destructive tools are weighed down (no destructive intent).
    penalize_destructive: bool,
    /// A lookup question: tools that do not only read are weighed down.
    read_only: bool,
    /// A request to change what exists: tools that make something new are weighed down.
    change: bool,
    /// Per product: whether the request names it.
    named_products: Vec<bool>,
    /// Per product: its product-prior multiplier, `1 + product_weight × S(p) / max S` (empty
    /// where the prior does not apply).
    product_prior: Vec<f64>,
    /// The coordination factor's weight (0 = off).
    coord: f64,
}

impl QueryPlan {
    /// Where `term` came from (`terms` is sorted by term id; a term it lacks reads as the
    /// request's own).
    fn origin_of(&self, term: u32) -> Origin {
        self.terms
            .binary_search_by_key(&term, |t| t.term)
            .map_or(Origin::Request, |at| self.terms[at].origin)
    }
}

impl FieldedBm25 {
    /// The intent and product multipliers of `tool` under `plan`, the product prior's included
    /// (the coordination factor apart).
    fn multiplier(&self, plan: &QueryPlan, tool: ToolId) -> f64 {
        self.intent_multiplier(plan, tool) * self.prior_of(plan, tool)
    }

    /// The product-prior factor of `tool` under `plan` (1 where the prior does not apply).
    fn prior_of(&self, plan: &QueryPlan, tool: ToolId) -> f64 {
        plan.product_prior
            .get(self.tool_products[tool as usize])
            .copied()
            .unwrap_or(1.0)
    }

    /// The intent multipliers and the named-product lift of `tool` under `plan`: its multiplier
    /// without the product prior, as the weak model reads it (it was trained without one).
    fn intent_multiplier(&self, plan: &QueryPlan, tool: ToolId) -> f64 {
        let destructive = self.tool_effects[tool as usize] == Some(Effect::Destructive);
        let mut multiplier = if plan.penalize_destructive && destructive {
            self.config.destructive_penalty
        } else {
            1.0
        };
        if plan.read_only && self.tool_effects[tool as usize].is_some_and(|e| e != Effect::Read) {
            multiplier *= self.config.read_only_penalty;
        }
        if plan.change && self.tool_makes_new[tool as usize] {
            multiplier *= self.config.change_penalty;
        }
        if plan.named_products[self.tool_products[tool as usize]] {
            multiplier *= self.config.product_boost;
        }
        multiplier
    }

    /// The request's text outside its quoted spans when the lexicon expands only that
    /// (`expand_quoted` off and `quoted` the request's spans); `None` when it expands the whole.
    fn unexpanded_quotes<'q>(&self, quoted: &'q Option<(String, String)>) -> Option<&'q str> {
        match quoted {
            Some((outside, _)) if !self.config.expand_quoted => Some(outside),
            _ => None,
        }
    }

    /// One request's terms, joins and intents.
    fn plan_query(&self, query: &str, role: Role) -> QueryPlan {
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
        // The synonym twins of a single request's Han words, where the bridge lent synonyms.
        let twins_wanted = role == Role::Single
            && !self.synonym_terms.is_empty()
            && self.config.synonym_weight > 0.0;
        let mut twins: Vec<u32> = Vec::new();
        let mut twin = String::new();
        self.analyzer.each_term(query, &mut |term| {
            word_terms += usize::from(!term.starts_with('#'));
            let id = terms.id(term);
            unknown_words += usize::from(!term.starts_with('#') && id.is_none());
            own.extend(id);
            if twins_wanted && !term.starts_with('#') && term.chars().any(crate::text::is_han) {
                twin.clear();
                twin.push(crate::index::SYNONYM_MARK);
                twin.push_str(term);
                twins.extend(terms.id(&twin));
            }
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
                    origin: Origin::Request,
                }
            })
            .collect();
        let mut joins = Joins::default();
        if !twins.is_empty() {
            joins.offer(twins, self.config.synonym_weight, Origin::Synonym);
        }
        if self.config.expansion_weight > 0.0 {
            let outside_quotes = self.unexpanded_quotes(&quoted).map(PreparedQuery::new);
            let mut expanded: Vec<u32> = Vec::new();
            for text in Lexicon::builtin().expansion(outside_quotes.as_ref().unwrap_or(&prepared)) {
                expanded.extend_from_slice(self.expansion_term_ids(text));
            }
            joins.offer(expanded, expansion_weight, Origin::Lexicon);
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
                    joins.offer(self.value_term_ids(kind).to_vec(), weight, Origin::Value);
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
            joins.offer(related, self.config.wn_weight, Origin::WordNet);
        }
        if self.config.typo_weight > 0.0 && !english.is_empty() {
            corrected.sort_unstable();
            corrected.dedup();
            joins.offer(corrected, self.config.typo_weight, Origin::Typo);
        }
        if self.config.stem_weight > 0.0 && !english.is_empty() {
            joins.offer(siblings, self.config.stem_weight, Origin::Stem);
        }
        if self.config.learned_weight > 0.0 {
            let mut learned: Vec<u32> = Vec::new();
            for text in self.learned().expansion(&prepared) {
                learned.extend_from_slice(self.learned_term_ids(text));
            }
            learned.sort_unstable();
            learned.dedup();
            joins.offer(learned, self.config.learned_weight, Origin::Learned);
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
        // A short request is mostly its own words already (the same count as for expansions).
        let coord = if word_terms >= self.config.short_query_words {
            self.config.coord
        } else {
            0.0
        };
        QueryPlan {
            terms: weights,
            has_word_terms,
            unknown_words,
            penalize_destructive,
            read_only,
            change,
            named_products,
            product_prior: self.product_prior(query, role),
            coord,
        }
    }

    /// The largest product-prior multiplier any tool can get (1 where the prior does not
    /// apply), for pruning's bounds.
    pub(super) fn max_product_prior(&self) -> f64 {
        if self.products.is_some() {
            1.0 + self.config.product_weight.max(0.0)
        } else {
            1.0
        }
    }

    /// Per product, its product-prior multiplier for `query` (docs/adr/0003's product-prior
    /// addendum): the products' documents ranked as this role ranks tools, each of the best
    /// [`PRIOR_PRODUCTS`] scores over the best; 1 for the others. Empty where the prior does not
    /// apply; all 1 when no product scores.
    fn product_prior(&self, query: &str, role: Role) -> Vec<f64> {
        let Some(products) = &self.products else {
            return Vec::new();
        };
        let n_products = self.product_names.len();
        let mut prior = vec![1.0; n_products];
        let all = vec![true; products.n_tools];
        let hits = products.rank(query, &all, n_products.min(PRIOR_PRODUCTS), role);
        let best = hits.first().map_or(0.0, |hit| hit.score);
        if best > 0.0 {
            for hit in &hits {
                if let Some(slot) = prior.get_mut(hit.tool as usize) {
                    *slot = 1.0 + self.config.product_weight * hit.score / best;
                }
            }
        }
        prior
    }
}

impl FieldedBm25 {
    /// Whether the best hit shares too little with the request to be a confident match (the
    /// request may name something the catalog lacks; docs/adr/0006's first-hit addendum): it
    /// matched less of the idf of the user's words the catalog holds (`own_idf_total` in all)
    /// than `weak_first_idf` (`weak_first_idf_han` for a request with a Han character) times
    /// the idf of a word only one tool holds, and either that is
    /// under `weak_low_cover` of them or the request holds `weak_unknown_words` or more words
    /// the catalog never uses (`unknown_words`). Never in a catalog where fewer than half of the
    /// tools have `use_when`.
    fn first_hit_is_weak(
        &self,
        query: &str,
        hits: &[Hit],
        own_idf_total: f64,
        unknown_words: usize,
    ) -> bool {
        let threshold = if query.chars().any(is_han) {
            self.config.weak_first_idf_han
        } else {
            self.config.weak_first_idf
        };
        // Without `use_when` situations answerable requests match too weakly for the threshold
        // (the addendum's catalog copies), so the rule stays off.
        if threshold <= 0.0 || !self.situated {
            return false;
        }
        let Some(first) = hits.first() else {
            return false;
        };
        let n = self.n_tools as f64;
        let one_tool_idf = (1.0 + (n - 0.5) / 1.5).ln();
        let little = first.coverage * own_idf_total < threshold * one_tool_idf;
        let unknown =
            self.config.weak_unknown_words > 0 && unknown_words >= self.config.weak_unknown_words;
        little && (first.coverage < self.config.weak_low_cover || unknown)
    }
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
    use crate::catalog::one_product;

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
            one_product("office", &tools.join(","))
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
        // Two words two tools hold: enough under `weak_first_idf` (1.25 words one tool holds),
        // not under the higher `weak_first_idf_han` of a request with a Han character.
        assert!(confident(
            &situated,
            on,
            "create event frobnicate quux zorp"
        ));
        assert!(!confident(
            &situated,
            on,
            "create event frobnicate quux zorp 嘛"
        ));
        let same = Bm25Config {
            weak_first_idf_han: on.weak_first_idf,
            ..on
        };
        assert!(confident(
            &situated,
            same,
            "create event frobnicate quux zorp 嘛"
        ));
    }

    /// A tool without an `agent_summary` is summed up by its description: a description match
    /// makes it a confident hit; a tool with a summary still needs an identity or summary match.
    #[test]
    fn a_description_stands_in_for_a_missing_summary() {
        let catalog = one_product(
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
        let catalog = one_product(
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

    /// A single request's own Han word meets the synonym the bridge lent a summary that says
    /// it otherwise ("收回" → 撤回消息's `~收回`), at `synonym_weight`; a joined Han phrase never
    /// does (an English request's lexicon group brings 收回 too, but no twin), nor does an arm.
    #[test]
    fn own_han_words_meet_the_lent_synonyms() {
        let catalog = one_product(
            "im",
            r#"{"canonical_path":"im.recall","name":"recall","title":"撤回消息","description":"撤回一条已发送的消息"},
                {"canonical_path":"im.list","name":"list","title":"列出群聊","description":"列出群"}"#,
        );
        let synonym_terms = |synonym_weight: f64, query: &str, role: Role| {
            let config = Bm25Config {
                synonym_weight,
                ..Bm25Config::DEFAULT
            };
            let retriever = FieldedBm25::new("fielded_bm25", config, &catalog);
            let explained = retriever.explain_terms(query, &[], role).unwrap();
            explained
                .terms
                .iter()
                .filter(|t| t.origin == Origin::Synonym)
                .map(|t| (t.text.clone(), t.weight, t.via.clone()))
                .collect::<Vec<_>>()
        };
        let twin = synonym_terms(0.5, "把那条收回", Role::Single);
        assert_eq!(twin.len(), 1, "{twin:?}");
        assert_eq!(twin[0].0, "~收回");
        assert!((twin[0].1 - 0.5 * 2f64.ln()).abs() < 1e-12);
        assert_eq!(twin[0].2.as_deref(), Some("收回"));
        assert_eq!(synonym_terms(0.5, "把那条收回", Role::Arm), []);
        assert_eq!(synonym_terms(0.0, "把那条收回", Role::Single), []);
        assert_eq!(
            synonym_terms(0.5, "take back that message", Role::Single),
            []
        );
        assert_eq!(
            found(&catalog, Bm25Config::DEFAULT, "把那条收回"),
            ["im.recall"]
        );
        // Each role's explanation reproduces that role's scores bit for bit, and the twin is
        // what sets the two apart.
        let retriever = FieldedBm25::new("fielded_bm25", Bm25Config::DEFAULT, &catalog);
        let eligible = vec![true; catalog.tools().len()];
        let scores = |role: Role| {
            let hits = retriever.rank("把那条收回", &eligible, 10, role);
            let tools: Vec<ToolId> = hits.iter().map(|hit| hit.tool).collect();
            let explained = retriever.explain("把那条收回", &tools, role).unwrap();
            for (hit, score) in hits.iter().zip(&explained.tools) {
                assert_eq!(hit.score.to_bits(), score.score.to_bits(), "{role:?}");
            }
            hits.iter()
                .map(|hit| hit.score.to_bits())
                .collect::<Vec<_>>()
        };
        assert_ne!(scores(Role::Single), scores(Role::Arm));
    }

    /// A misspelt English word of five letters or more that the catalog lacks reaches the
    /// tool with the word one edit away ("calender" → "calendar", "recieve" → "receive"); a
    /// shorter one ("mial") and a word the catalog has are left alone.
    #[test]
    fn typos_reach_the_words_one_edit_away() {
        let catalog = one_product(
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
        let catalog = one_product(
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

    /// A workflow arm keeps the first hits of `search`, down to `arm_floor` times the best
    /// score (docs/adr/0013's arm-floor addendum); 0 keeps them all.
    #[test]
    fn an_arm_drops_the_hits_below_its_floor() {
        let catalog = one_product(
            "p",
            r#"{"canonical_path":"p.a","name":"a","agent_summary":"Export the quarterly report.","description":"Export the quarterly report as a file."},
                {"canonical_path":"p.b","name":"b","agent_summary":"Share a report.","description":"Share a report with a colleague."},
                {"canonical_path":"p.c","name":"c","agent_summary":"Export contacts.","description":"Export the address book."},
                {"canonical_path":"p.d","name":"d","agent_summary":"Print the quarterly numbers.","description":"Print a page of numbers."}"#,
        );
        let eligible = [true; 4];
        let query = "export the quarterly report";
        let arm = |floor: f64| {
            let config = Bm25Config {
                arm_floor: floor,
                ..Bm25Config::DEFAULT
            };
            let retriever = FieldedBm25::new("fielded_bm25", config, &catalog);
            let all = retriever.search(query, &eligible, 10);
            let kept = retriever.search_arm(query, &eligible, 10);
            assert_eq!(
                all[..kept.len()].iter().map(|h| h.tool).collect::<Vec<_>>(),
                kept.iter().map(|h| h.tool).collect::<Vec<_>>()
            );
            let best = all[0].score;
            assert!(kept.iter().all(|h| h.score >= floor * best));
            assert!(all[kept.len()..].iter().all(|h| h.score < floor * best));
            (all.len(), kept.len())
        };
        let (all, kept) = arm(0.0);
        assert_eq!((all, kept), (4, 4));
        let (all, kept) = arm(Bm25Config::DEFAULT.arm_floor);
        assert!(0 < kept && kept < all, "kept {kept} of {all}");
        assert_eq!(arm(1.0).1, 1);
    }

    /// Two tools alike but for their product: the product prior (pre-registration 103) puts
    /// first the one whose product's own text the request meets, by `1 + product_weight` at
    /// most; without it they tie and the canonical path decides. One product gets no prior.
    #[test]
    fn the_product_prior_lifts_the_tools_of_the_product_the_request_is_about() {
        let tool = |product: &str| {
            format!(
                r#"{{"canonical_path":"{product}.export","name":"export","agent_summary":"Export the report as a spreadsheet."}}"#
            )
        };
        let catalog = Catalog::build(&[crate::catalog::SourceFile {
            name: "t.json".into(),
            text: format!(
                r#"{{"version":"catalog.v1","products":[
                    {{"id":"books","name":"Bookkeeping","agent_summary":"Ledgers, invoices and tax returns.","tools":[{}]}},
                    {{"id":"crm","name":"Customers","description":"Leads, deals and the sales pipeline.","use_when":["a customer's deal moves on"],"tools":[{}]}}]}}"#,
                tool("books"),
                tool("crm")
            )
            .into(),
        }])
        .unwrap();
        let query = "export the sales pipeline report";
        let eligible = [true; 2];
        let scores = |weight: f64| {
            let config = Bm25Config {
                product_weight: weight,
                ..Bm25Config::DEFAULT
            };
            let retriever = FieldedBm25::new("fielded_bm25", config, &catalog);
            retriever
                .search(query, &eligible, 10)
                .iter()
                .map(|hit| (catalog.tool(hit.tool).def.canonical_path.clone(), hit.score))
                .collect::<Vec<_>>()
        };
        let without = scores(0.0);
        assert_eq!(without[0].0, "books.export");
        assert_eq!(without[0].1, without[1].1);
        let with = scores(Bm25Config::DEFAULT.product_weight);
        assert_eq!(with[0].0, "crm.export");
        // The request meets only the crm product's text: its tools get the whole prior.
        let lift = with[0].1 / without[0].1;
        assert!((lift - (1.0 + Bm25Config::DEFAULT.product_weight)).abs() < 1e-9);
        assert_eq!(with[1].1, without[1].1);
        // One product: nothing to choose between, no prior.
        let one = one_product("crm", &tool("crm"));
        let retriever = FieldedBm25::new("fielded_bm25", Bm25Config::DEFAULT, &one);
        assert!(retriever.products.is_none());
    }
}
