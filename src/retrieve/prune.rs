//! [`FieldedBm25::prune`]: the exact candidate cut. One cheap `f32` total per tool from
//! 16-bit saturation steps, a margin that covers its error, and only the tools that can reach
//! the cut go on to be scored field by field.

use super::*;

impl FieldedBm25 {
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
    pub(super) fn prune(
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
            * self.config.product_boost.max(1.0)
            * self.max_product_prior();
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

/// Relative margin of [`FieldedBm25::prune`], beside its `f32` totals' own: far above the
/// rounding error of summing a query's contributions in another order in `f64` (~1e-15
/// relative), far below any score gap that matters (a pruned tool is still far below the cut).
const BOUND_SLACK: f64 = 1e-9;

/// [`FieldedBm25::prune`] reads its totals in chunks of this many tools.
const PRUNE_CHUNK: usize = 64;

/// The weights and saturations [`FieldedBm25::prune`] sums in `f32`, 2^-40..=2^40: a weight
/// times a term's step (its largest saturation over `u16::MAX`) times a step count lies in
/// 2^-96..2^80, and at most [`MAX_F32_TERMS`] of them sum below 2^100, all normal `f32`
/// numbers, so every rounding is relative (`f32::EPSILON / 2` at most).
pub(super) const F32_SAFE: std::ops::RangeInclusive<f64> =
    9.094_947_017_729_282e-13..=1_099_511_627_776.0;

/// At most this many terms are summed in `f32` (a longer query scores every tool).
const MAX_F32_TERMS: usize = 1 << 20;
