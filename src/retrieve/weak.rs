//! Three learned verdicts on a single request's answer, from one set of features per hit: the hit's
//! BM25F parts per term class and field, its multipliers and the request's evidence.
//! - **Doubt** (docs/adr/0006's learned-flag addendum, pre-registration 91): trees trained on
//!   dev's judged requests, abstain requests among them. When the model doubts the first hit, the
//!   answer is a weak match.
//! - **Sureness** (docs/adr/0018, pre-registration 93): trees trained on dev's answerable requests
//!   to say whether the first hit is judged relevant. When the answer is no weak match and the
//!   model is sure, the answer offers its first hit alone.
//! - **Temptation** (docs/adr/0019, pre-registration 94): trees trained on the hits at ranks 2–5
//!   of dev's answerable requests that have forbidden tools, to say whether a hit is one of them.
//!   When the answer is no weak match and the sure model is fairly sure of the first hit, but not
//!   sure enough to offer it alone, the answer is its first five hits less those the tail model
//!   finds tempting.
//!
//! The models are compiled in (`weak_model.txt`, `sure_model.txt` and `tail_model.txt`, written
//! by `docs/adr/0006-learned-weak/learned_weak.py export`,
//! `docs/adr/0018-sure-answer/learned_sure.py export` and
//! `docs/adr/0019-tempting-tail/learned_tail.py export`). The sure and tail models are bound to
//! the catalog they were trained for by that catalog's `source_hash`: any other catalog, or an
//! edited one, gets full answers. The weak model also judges any other catalog where at least
//! half of the tools have `use_when` (docs/adr/0006's situated-catalogs addendum,
//! pre-registration 97); a catalog without them keeps ADR 0006's first-hit rule. The features
//! are the ones `features.patch` makes `toolsearch why` write, in that order; `tests/it/weak.rs`
//! holds the verdicts to the training scripts'.

use super::explain::own_idf_total;
use super::weak_model::{Node, LEAF, N_FEATURES, N_TAIL_FEATURES};
use super::*;

/// How many candidates the training saw: each request's first 20. Of them the features read
/// the scores of the first [`SCORES`], and whether there were 20.
pub(super) const DEPTH: usize = 20;

/// The scores the features read: the first five. They are also the hits the tail model judges
/// (ranks 2 to 5).
pub(super) const SCORES: usize = 5;

/// The features of a hit's own, before the request's (ADR 0017's 51).
const HIT_FEATURES: usize = 51;

/// The term classes the parts are split by, in the features' order: the user's own words, the
/// user's own `#` terms (Han n-grams, word pairs, identifier shapes), lexicon expansions,
/// learned pairs, other joined terms.
const N_CLASSES: usize = 5;

mod tables {
    use super::{Node, TreeModel};
    include!(concat!(env!("OUT_DIR"), "/weak_tables.rs"));
}

/// A compiled model: trees whose leaf values add up to a log-odds (the weak model's, that the
/// catalog cannot serve a request; the sure model's, that the first hit is relevant; the tail
/// model's, that a later hit is a tempting wrong tool).
pub struct TreeModel {
    source_hash: &'static str,
    /// The model's verdict holds when its probability exceeds this.
    threshold: f64,
    baseline: f64,
    nodes: &'static [Node],
    tree_starts: &'static [u32],
}

/// The compiled weak model (`build.rs` checked it when compiling it in).
pub fn weak() -> &'static TreeModel {
    &tables::WEAK
}

/// The compiled sure model (`build.rs` checked it when compiling it in).
pub fn sure() -> &'static TreeModel {
    &tables::SURE
}

/// The compiled tail model (`build.rs` checked it, for [`N_TAIL_FEATURES`], when compiling it
/// in).
pub fn tail() -> &'static TreeModel {
    &tables::TAIL
}

impl TreeModel {
    /// The model's verdict holds when its probability exceeds this.
    pub fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Whether this model was trained for `catalog`.
    pub fn fits(&self, catalog: &Catalog) -> bool {
        self.source_hash == catalog.source_hash()
    }

    /// The model's probability for these features (leaf values summed in tree order, as
    /// scikit-learn sums them). `x` holds as many features as the model was parsed for
    /// ([`N_FEATURES`], or [`N_TAIL_FEATURES`] for the tail model), so every split's feature is
    /// in it.
    pub(super) fn probability(&self, x: &[f64]) -> f64 {
        let mut raw = self.baseline;
        for &start in self.tree_starts {
            let nodes = &self.nodes[start as usize..];
            let mut at = 0;
            loop {
                let node = &nodes[at];
                if node.feature == LEAF {
                    raw += node.value;
                    break;
                }
                let value = x[usize::from(node.feature)];
                let left = if value.is_nan() {
                    node.missing_left
                } else {
                    value <= node.value
                };
                at = usize::from(if left { node.left } else { node.right });
            }
        }
        1.0 / (1.0 + (-raw).exp())
    }
}

/// Whether the first score's tie (by the rounded score that orders hits) reaches the last of the
/// first [`SCORES`] hits. Then it may run on past them, and the largest raw score of the tie, which
/// the features divide by, can only be read from the whole first [`DEPTH`]; otherwise every hit
/// after the first `SCORES` scores below the first.
pub(super) fn tie_reaches_last_score(hits: &[Hit]) -> bool {
    match (hits.first(), hits.get(SCORES - 1)) {
        (Some(first), Some(last)) => rounded(first.score) == rounded(last.score),
        _ => false,
    }
}

/// What the features of every hit of one request share: each plan's term class, the idf of the
/// user's words, and the best score of the first DEPTH hits, which the parts are divided by.
pub(super) struct FeatureScale {
    /// Per plan, in the plans' order: 0 the user's own words, 1 their own `#` terms, 2 lexicon
    /// expansions, 3 learned pairs, 4 other joined terms.
    classes: Vec<usize>,
    own_idf_total: f64,
    top: f64,
}

impl FieldedBm25 {
    /// The features' shared part for the request `plans` was made from and its `hits`.
    pub(super) fn feature_scale(
        &self,
        plan: &QueryPlan,
        plans: &[TermPlan<'_>],
        hits: &[Hit],
    ) -> FeatureScale {
        // `plans` follow `plan.terms` (both sorted by term id; a plan is dropped only for a term
        // no tool has), so one walk finds each plan's origin, as `QueryPlan::origin_of` would.
        let mut at = 0;
        let classes = plans
            .iter()
            .map(|p| {
                while plan.terms.get(at).is_some_and(|t| t.term < p.term) {
                    at += 1;
                }
                let origin = match plan.terms.get(at) {
                    Some(t) if t.term == p.term => t.origin,
                    _ => plan.origin_of(p.term),
                };
                match origin {
                    Origin::Request if self.marked_terms.contains(&p.term) => 1,
                    Origin::Request => 0,
                    Origin::Lexicon => 2,
                    Origin::Learned => 3,
                    _ => 4,
                }
            })
            .collect();
        // Every hit after the first SCORES scores below the first (`tie_reaches_last_score`),
        // so the largest score of the first DEPTH is among these.
        let top = match hits
            .iter()
            .take(DEPTH)
            .map(|hit| hit.score)
            .fold(f64::NEG_INFINITY, f64::max)
        {
            best if best != 0.0 => best,
            _ => 1.0,
        };
        FeatureScale {
            classes,
            own_idf_total: own_idf_total(plans),
            top,
        }
    }

    /// The features the weak and sure models read of `hits` (a single request's best
    /// `searched`, or fewer when no more tools score), computed as `features.patch` and the
    /// training script compute them (ADR 0017's `features`, then `learned_weak.py`'s
    /// `request_features`): the first hit's own, then the request's. `None` without hits.
    pub(super) fn first_hit_features(
        &self,
        plan: &QueryPlan,
        plans: &[TermPlan<'_>],
        scale: &FeatureScale,
        eligible: &[bool],
        hits: &[Hit],
        searched: usize,
    ) -> Option<[f64; N_FEATURES]> {
        let first = hits.first()?;
        // The training counted each request's candidates up to DEPTH: every scoring tool is in
        // `hits` when they are fewer than were searched for.
        let candidates = if hits.len() < searched || hits.len() >= DEPTH {
            hits.len().min(DEPTH)
        } else {
            self.scoring_tools_up_to(plans, eligible, DEPTH)
        };
        let parts = self.hit_parts(plans, scale, std::slice::from_ref(first));
        let covered = parts[0].covered;
        let mut x = self.hit_features(plan, scale, first, 1, &parts[0]);
        let scores: Vec<f64> = hits.iter().take(DEPTH).map(|hit| hit.score).collect();
        let ratio = |k: usize| match scores.get(k) {
            Some(score) if scores[0] != 0.0 => score / scores[0],
            _ => 0.0,
        };
        x[51] = scores[0].ln_1p();
        x[52] = ratio(1);
        x[53] = candidates as f64;
        x[54] = scale.own_idf_total;
        x[55] = covered;
        x[56] = plan.unknown_words as f64;
        x[57] = ratio(SCORES - 1);
        Some(x)
    }

    /// How many eligible tools score above 0, counted up to `cap`: a tool scores when it has a
    /// term of positive weight (every part, idf and multiplier is positive then; a
    /// keep-clause term weighs 0). It stops at `cap`, which a common term reaches at once.
    fn scoring_tools_up_to(&self, plans: &[TermPlan<'_>], eligible: &[bool], cap: usize) -> usize {
        let mut seen = vec![false; self.n_tools];
        let mut count = 0;
        for plan in plans.iter().filter(|p| p.query_weight > 0.0) {
            let mut see = |tool: usize| {
                if eligible.get(tool).copied().unwrap_or(false) && !seen[tool] {
                    seen[tool] = true;
                    count += 1;
                }
            };
            let postings = plan.postings;
            if postings.dense {
                (0..self.n_tools)
                    .filter(|&tool| postings.has_dense(tool))
                    .for_each(&mut see);
            } else {
                postings.tools.iter().for_each(|&tool| see(tool as usize));
            }
            if count >= cap {
                return cap;
            }
        }
        count
    }

    /// The features the tail model reads of each hit at ranks 2 to [`SCORES`]: the features the
    /// other models would read of it, with the request's part taken from `first` (the first
    /// hit's), then whether it shares the first hit's product and its effect, and its rank
    /// (`learned_tail.py`'s `candidate_features`).
    pub(super) fn tail_features(
        &self,
        plan: &QueryPlan,
        plans: &[TermPlan<'_>],
        scale: &FeatureScale,
        hits: &[Hit],
        first: &[f64; N_FEATURES],
    ) -> Vec<[f64; N_TAIL_FEATURES]> {
        let Some((lead, later)) = hits[..hits.len().min(SCORES)].split_first() else {
            return Vec::new();
        };
        let parts = self.hit_parts(plans, scale, later);
        later
            .iter()
            .zip(&parts)
            .enumerate()
            .map(|(at, (hit, parts))| {
                let rank = at + 2;
                let own = self.hit_features(plan, scale, hit, rank, parts);
                let mut x = [0.0; N_TAIL_FEATURES];
                x[..HIT_FEATURES].copy_from_slice(&own[..HIT_FEATURES]);
                x[HIT_FEATURES..N_FEATURES].copy_from_slice(&first[HIT_FEATURES..]);
                let (tool, lead) = (hit.tool as usize, lead.tool as usize);
                x[N_FEATURES] = flag(self.tool_products[tool] == self.tool_products[lead]);
                x[N_FEATURES + 1] = flag(self.tool_effects[tool] == self.tool_effects[lead]);
                x[N_FEATURES + 2] = rank as f64;
                x
            })
            .collect()
    }

    /// Each hit's BM25F parts per term class and field, and the idf it covers: every term's
    /// part as scoring computes it ([`FieldedBm25::for_each_part`], all the hits in one pass),
    /// summed in term order per hit.
    fn hit_parts(
        &self,
        plans: &[TermPlan<'_>],
        scale: &FeatureScale,
        hits: &[Hit],
    ) -> Vec<HitParts> {
        let tools: Vec<ToolId> = hits.iter().map(|hit| hit.tool).collect();
        let mut out = vec![HitParts::default(); hits.len()];
        self.for_each_part(plans, &tools, |at, slot, part| {
            let slot = &mut out[slot];
            for (sum, value) in slot.parts[scale.classes[at]].iter_mut().zip(part) {
                *sum += value;
            }
            if plans[at].counts_for_coverage {
                slot.covered += plans[at].idf;
            }
        });
        out
    }

    /// The first [`HIT_FEATURES`] features of `hit` at `rank` (ADR 0017's `features`) from its
    /// `parts`, the rest 0.
    fn hit_features(
        &self,
        plan: &QueryPlan,
        scale: &FeatureScale,
        hit: &Hit,
        rank: usize,
        parts: &HitParts,
    ) -> [f64; N_FEATURES] {
        let (covered, parts) = (parts.covered, &parts.parts);
        let top = scale.top;
        let mut x = [0.0; N_FEATURES];
        for class in 0..N_CLASSES {
            for field in 0..N_FIELDS {
                x[class * N_FIELDS + field] = parts[class][field] / top;
            }
        }
        for class in 0..N_CLASSES {
            let sum = parts[class].iter().fold(0.0, |total, v| total + v);
            x[25 + class] = sum / top;
        }
        for field in 0..N_FIELDS {
            let sum = parts.iter().fold(0.0, |total, class| total + class[field]);
            x[30 + field] = sum / top;
        }
        let effect = match self.tool_effects[hit.tool as usize] {
            Some(Effect::Read) => 0,
            Some(Effect::Write) => 1,
            Some(Effect::Destructive) => 2,
            None => 3,
        };
        let own = if scale.own_idf_total != 0.0 {
            scale.own_idf_total
        } else {
            1.0
        };
        x[35] = hit.score / top;
        x[36] = hit.score.ln_1p();
        x[37] = self.intent_multiplier(plan, hit.tool);
        x[38] = coord_factor(plan.coord, covered, scale.own_idf_total);
        x[39] = covered / own;
        x[40] = plan.unknown_words as f64;
        x[41] = 1.0 / rank as f64;
        x[42] = flag(plan.penalize_destructive);
        x[43] = flag(plan.read_only);
        x[44] = flag(plan.change);
        x[45 + effect] = 1.0;
        x[49] = flag(effect == 2 && plan.penalize_destructive);
        x[50] = flag(effect != 0 && plan.read_only);
        x
    }
}

/// A yes/no feature as the training writes it.
fn flag(on: bool) -> f64 {
    if on {
        1.0
    } else {
        0.0
    }
}

/// One hit's BM25F parts per term class and field, and the idf of the user's words it covers.
#[derive(Clone, Default)]
struct HitParts {
    parts: [[f64; N_FIELDS]; N_CLASSES],
    covered: f64,
}

#[cfg(test)]
mod tests {
    use super::super::weak_model::parse;
    use super::*;

    #[test]
    fn the_compiled_tables_are_the_shipped_files_parsed() {
        for (text, model, features) in [
            (include_str!("weak_model.txt"), weak(), N_FEATURES),
            (include_str!("sure_model.txt"), sure(), N_FEATURES),
            (include_str!("tail_model.txt"), tail(), N_TAIL_FEATURES),
        ] {
            let parsed = parse(text, features).expect("a shipped model parses");
            assert_eq!(parsed.source_hash, model.source_hash);
            assert_eq!(parsed.threshold.to_bits(), model.threshold.to_bits());
            assert_eq!(parsed.baseline.to_bits(), model.baseline.to_bits());
            assert_eq!(parsed.nodes, model.nodes);
            assert_eq!(parsed.tree_starts, model.tree_starts);
        }
        assert_ne!(weak().nodes, sure().nodes);
        assert_ne!(sure().nodes, tail().nodes);
        assert!(parse(include_str!("tail_model.txt"), N_FEATURES).is_err());
    }

    #[test]
    fn a_tree_walk_sums_leaves_and_malformed_models_are_refused() {
        let good = "toolsearch-weak-model 1\nsource_hash h\nthreshold 0.5\nfeatures 58\ntrees 1 0.0\n3\n2 1.5 1 2 0 0.0 0\n0 0.0 0 0 1 -1.0 0\n0 0.0 0 0 1 1.0 0\n";
        let parsed = parse(good, N_FEATURES).expect("a well-formed model");
        let model = TreeModel {
            source_hash: "h",
            threshold: parsed.threshold,
            baseline: parsed.baseline,
            nodes: Box::leak(parsed.nodes.into_boxed_slice()),
            tree_starts: Box::leak(parsed.tree_starts.into_boxed_slice()),
        };
        let mut x = [0.0; N_FEATURES];
        assert!(model.probability(&x) < 0.5);
        x[2] = 2.0;
        assert!(model.probability(&x) > 0.5);
        x[2] = f64::NAN;
        assert!(
            model.probability(&x) > 0.5,
            "a NaN goes right unless missing_go_to_left"
        );
        for bad in [
            good.replace("toolsearch-weak-model 1", "toolsearch-weak-model 2"),
            good.replace("features 58", "features 51"),
            good.replace("2 1.5 1 2 0", "99 1.5 1 2 0"),
            good.replace("2 1.5 1 2 0", "2 1.5 0 2 0"),
            good.replace("2 1.5 1 2 0", "2 1.5 1 7 0"),
            good.replace("2 1.5 1 2 0", "2 inf 1 2 0"),
            good.replace("threshold 0.5", "threshold x"),
            good.replace("0 0.0 0 0 1 -1.0 0", "0 0.0 0 0 1 -1.0"),
            format!("{good}extra\n"),
            good.replace("trees 1", "trees 2"),
        ] {
            assert!(parse(&bad, N_FEATURES).is_err(), "accepted:\n{bad}");
        }
    }
}
