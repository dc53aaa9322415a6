//! Two learned verdicts on a single request's first hit, from one set of features: the first hit's
//! BM25F parts per term class and field, its multipliers and the request's evidence.
//! - **Doubt** (docs/adr/0006's learned-flag addendum, pre-registration 91): trees trained on
//!   dev's judged requests, abstain requests among them. When the model doubts the first hit, the
//!   answer is a weak match.
//! - **Sureness** (docs/adr/0018, pre-registration 93): trees trained on dev's answerable requests
//!   to say whether the first hit is judged relevant. When the answer is no weak match and the
//!   model is sure, the answer offers its first hit alone.
//!
//! The models are compiled in (`weak_model.txt` and `sure_model.txt`, written by
//! `docs/adr/0006-learned-weak/learned_weak.py export` and
//! `docs/adr/0018-sure-answer/learned_sure.py export`) and bound to the catalog they were trained
//! for by that catalog's `source_hash`: any other catalog, or an edited one, keeps ADR 0006's
//! first-hit rule and full answers. The features are the ones `features.patch` makes `toolsearch
//! why` write, in that order; `tests/it/weak.rs` holds both verdicts to the training scripts'.

use super::explain::own_idf_total;
use super::weak_model::{Node, N_FEATURES};
use super::*;

/// How many candidates the training saw: each request's first 20. Of them the features read
/// the scores of the first [`SCORES`], and whether there were 20.
pub(super) const DEPTH: usize = 20;

/// The scores the features read: the first five.
pub(super) const SCORES: usize = 5;

/// The term classes the parts are split by, in the features' order: the user's own words, the
/// user's own `#` terms (Han n-grams, word pairs, identifier shapes), lexicon expansions,
/// learned pairs, other joined terms.
const N_CLASSES: usize = 5;

mod tables {
    use super::Node;
    include!(concat!(env!("OUT_DIR"), "/weak_tables.rs"));
}

/// A compiled model: trees whose leaf values add up to a log-odds (the weak model's, that the
/// catalog cannot serve a request; the sure model's, that the first hit is relevant).
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
    static MODEL: TreeModel = TreeModel {
        source_hash: tables::WEAK_SOURCE_HASH,
        threshold: tables::WEAK_THRESHOLD,
        baseline: tables::WEAK_BASELINE,
        nodes: tables::WEAK_NODES,
        tree_starts: &tables::WEAK_TREE_STARTS,
    };
    &MODEL
}

/// The compiled sure model (`build.rs` checked it when compiling it in).
pub fn sure() -> &'static TreeModel {
    static MODEL: TreeModel = TreeModel {
        source_hash: tables::SURE_SOURCE_HASH,
        threshold: tables::SURE_THRESHOLD,
        baseline: tables::SURE_BASELINE,
        nodes: tables::SURE_NODES,
        tree_starts: &tables::SURE_TREE_STARTS,
    };
    &MODEL
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

    /// The model's probability for a request with these features (leaf values summed in tree
    /// order, as scikit-learn sums them).
    pub(super) fn probability(&self, x: &[f64; N_FEATURES]) -> f64 {
        let mut raw = self.baseline;
        for (tree, &start) in self.tree_starts.iter().enumerate() {
            let end = self
                .tree_starts
                .get(tree + 1)
                .map_or(self.nodes.len(), |&next| next as usize);
            let nodes = &self.nodes[start as usize..end];
            let mut at = 0;
            loop {
                let node = &nodes[at];
                if node.leaf {
                    raw += node.value;
                    break;
                }
                let value = x[node.feature as usize];
                let left = if value.is_nan() {
                    node.missing_left
                } else {
                    value <= node.threshold
                };
                at = if left { node.left } else { node.right } as usize;
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

impl FieldedBm25 {
    /// The features the models read of `hits` (a single request's best `searched`, or fewer when
    /// no more tools score); `None` without hits.
    pub(super) fn first_hit_features(
        &self,
        plan: &QueryPlan,
        plans: &[TermPlan<'_>],
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
        Some(self.weak_features(plan, plans, hits, first, candidates))
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

    /// The features the model reads, computed as `features.patch` and the training script
    /// compute them (ADR 0017's `features`, then `learned_weak.py`'s `request_features`): the
    /// first hit's parts per term class and field are `explain`'s [`FieldedBm25::tool_score`]
    /// on the plans scoring used; `candidates` is the count of hits the training read (at most
    /// DEPTH).
    fn weak_features(
        &self,
        plan: &QueryPlan,
        plans: &[TermPlan<'_>],
        hits: &[Hit],
        first: &Hit,
        candidates: usize,
    ) -> [f64; N_FEATURES] {
        let own_idf_total = own_idf_total(plans);
        let score = self.tool_score(plan, plans, own_idf_total, first.tool);
        let mut parts = [[0.0; N_FIELDS]; N_CLASSES];
        for (at, part) in &score.parts {
            let term = plans[*at].term;
            let class = match plan.origin_of(term) {
                Origin::Request if self.marked_terms.contains(&term) => 1,
                Origin::Request => 0,
                Origin::Lexicon => 2,
                Origin::Learned => 3,
                _ => 4,
            };
            for (sum, value) in parts[class].iter_mut().zip(part) {
                *sum += value;
            }
        }
        let covered = score.covered;
        // Every hit after the first SCORES scores below the first (`tie_reaches_last_score`),
        // so the largest score of the first DEPTH is among these.
        let scores: Vec<f64> = hits.iter().take(DEPTH).map(|hit| hit.score).collect();
        let top = match scores.iter().copied().fold(f64::NEG_INFINITY, f64::max) {
            best if best != 0.0 => best,
            _ => 1.0,
        };
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
        let effect = match self.tool_effects[first.tool as usize] {
            Some(Effect::Read) => 0,
            Some(Effect::Write) => 1,
            Some(Effect::Destructive) => 2,
            None => 3,
        };
        let flag = |on: bool| if on { 1.0 } else { 0.0 };
        let own = if own_idf_total != 0.0 {
            own_idf_total
        } else {
            1.0
        };
        x[35] = first.score / top;
        x[36] = first.score.ln_1p();
        x[37] = score.intent;
        x[38] = score.coord_factor;
        x[39] = covered / own;
        x[40] = plan.unknown_words as f64;
        x[41] = 1.0;
        x[42] = flag(plan.penalize_destructive);
        x[43] = flag(plan.read_only);
        x[44] = flag(plan.change);
        x[45 + effect] = 1.0;
        x[49] = flag(effect == 2 && plan.penalize_destructive);
        x[50] = flag(effect != 0 && plan.read_only);
        let ratio = |k: usize| match scores.get(k) {
            Some(score) if scores[0] != 0.0 => score / scores[0],
            _ => 0.0,
        };
        x[51] = scores[0].ln_1p();
        x[52] = ratio(1);
        x[53] = candidates as f64;
        x[54] = own_idf_total;
        x[55] = covered;
        x[56] = plan.unknown_words as f64;
        x[57] = ratio(SCORES - 1);
        x
    }
}

#[cfg(test)]
mod tests {
    use super::super::weak_model::parse;
    use super::*;

    #[test]
    fn the_compiled_tables_are_the_shipped_files_parsed() {
        for (text, model) in [
            (include_str!("weak_model.txt"), weak()),
            (include_str!("sure_model.txt"), sure()),
        ] {
            let parsed = parse(text).expect("a shipped model parses");
            assert_eq!(parsed.source_hash, model.source_hash);
            assert_eq!(parsed.threshold.to_bits(), model.threshold.to_bits());
            assert_eq!(parsed.baseline.to_bits(), model.baseline.to_bits());
            assert_eq!(parsed.nodes, model.nodes);
            assert_eq!(parsed.tree_starts, model.tree_starts);
        }
        assert_ne!(weak().nodes, sure().nodes);
    }

    #[test]
    fn a_tree_walk_sums_leaves_and_malformed_models_are_refused() {
        let good = "toolsearch-weak-model 1\nsource_hash h\nthreshold 0.5\nfeatures 58\ntrees 1 0.0\n3\n2 1.5 1 2 0 0.0 0\n0 0.0 0 0 1 -1.0 0\n0 0.0 0 0 1 1.0 0\n";
        let parsed = parse(good).expect("a well-formed model");
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
            assert!(parse(&bad).is_err(), "accepted:\n{bad}");
        }
    }
}
