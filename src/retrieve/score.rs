//! BM25F scoring of [`FieldedBm25`]: per-term merged postings ([`CombinedPostings`]), the
//! per-thread [`Scratch`], term plans, and scoring every tool or only the candidates that
//! [`FieldedBm25::prune`] leaves, with the same operations in the same order.

use super::prune::F32_SAFE;
use super::*;

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
pub(super) struct CombinedPostings {
    pub(super) tools: Vec<ToolId>,
    /// The saturations in steps of `scale`, rounded up (at least 1, at most `u16::MAX`, which
    /// is the largest saturation): only [`FieldedBm25::prune`]'s bound reads them (6 bytes a
    /// posting to stream instead of 12); exact scores never do. A step is off by less than
    /// `scale` (and a tool with the term never reads as 0).
    pub(super) saturation: Vec<u16>,
    /// The largest saturation over `u16::MAX`.
    pub(super) scale: f64,
    /// Whether `saturation` and `tfs` are indexed by tool (see above).
    pub(super) dense: bool,
    /// The number of tools with the term.
    pub(super) df: usize,
    /// Whether every saturation lies in [`F32_SAFE`], so that `f32` arithmetic on them keeps
    /// its relative error bound (no underflow, no overflow).
    pub(super) f32_safe: bool,
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

impl CombinedPostings {
    /// Whether `tool` has a positive part of the term, for a dense term (its code is not 0).
    pub(super) fn has_dense(&self, tool: usize) -> bool {
        self.tfs.get(tool).is_some_and(|&codes| codes != 0)
    }
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

/// Per-query working memory, reused across queries of a thread: dense per-tool arrays plus
/// the list of tools touched, so only touched slots are ever cleared.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) scores: Vec<[f64; N_FIELDS]>,
    pub(super) covered: Vec<f64>,
    seen: Vec<bool>,
    pub(super) touched: Vec<ToolId>,
    matched: Vec<ToolId>,
    pub(super) own_idf_total: f64,
    /// [`FieldedBm25::prune`]'s one total per tool (all zero between queries).
    pub(super) total: Vec<f32>,
    /// [`FieldedBm25::prune`]'s covered idf per tool under the coordination factor (all zero
    /// between queries).
    pub(super) covers: Vec<f64>,
    /// Per tool, whether [`FieldedBm25::score_candidates`] scores it (all false between
    /// queries).
    is_candidate: Vec<bool>,
    /// [`FieldedBm25::score_candidates`]'s candidates with a term, and their codes.
    rows: Vec<(ToolId, u16)>,
}

impl Scratch {
    pub(super) fn reset(&mut self, n_tools: usize) {
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
    pub(super) static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
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

    /// `tool`'s row of BM25F parts for `term` (0 where a field lacks it), or `None` when no
    /// field of positive weight has it: the row [`FieldedBm25::for_each_row`] gives that tool,
    /// read as [`FieldedBm25::score_candidates`] reads it, from the term's merged `postings` (a
    /// [`TermPlan`]'s) codes (a field list is searched only for a frequency the codes cannot
    /// hold).
    fn row_in(
        &self,
        postings: &CombinedPostings,
        term: u32,
        tool: ToolId,
    ) -> Option<[f64; N_FIELDS]> {
        let codes = if postings.dense {
            postings.tfs.get(tool as usize).copied()
        } else {
            let at = postings.tools.binary_search(&tool).ok()?;
            postings.tfs.get(at).copied()
        }
        .unwrap_or(0);
        if codes == 0 {
            return None;
        }
        let mut row = [0.0; N_FIELDS];
        let mut lists: Option<FieldLists<'_>> = None;
        for (field_idx, part) in row.iter_mut().enumerate() {
            let tf = match field_code(codes, field_idx) {
                0 => continue,
                TF_IN_LIST => {
                    let list = lists.get_or_insert_with(|| self.field_lists(term))[field_idx];
                    match list.binary_search_by_key(&tool, |e| e.0) {
                        Ok(at) => list[at].1,
                        Err(_) => continue,
                    }
                }
                tf => u32::from(tf),
            };
            *part = self.part(field_idx, tool, tf);
        }
        Some(row)
    }

    /// Each of `tools`' part of each of `plans`' terms it has, as scoring computes it (the term's
    /// row through [`accumulate`]): `f(term_at, tool_at, part)`. Terms outer and tools inner, so
    /// each term's postings are read once for all the tools, and each tool's parts come in term
    /// order. `toolsearch why` (`tool_score`) and the learned models (`retrieve::weak`) read it.
    pub(super) fn for_each_part(
        &self,
        plans: &[TermPlan<'_>],
        tools: &[ToolId],
        mut f: impl FnMut(usize, usize, [f64; N_FIELDS]),
    ) {
        let k1 = self.config.k1;
        for (term_at, p) in plans.iter().enumerate() {
            for (tool_at, &tool) in tools.iter().enumerate() {
                let Some(row) = self.row_in(p.postings, p.term, tool) else {
                    continue;
                };
                let mut part = [0.0; N_FIELDS];
                accumulate(&mut part, &row, p, k1);
                f(term_at, tool_at, part);
            }
        }
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
    pub(super) fn combined_postings(&self, term: u32) -> &CombinedPostings {
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
    pub(super) fn score_terms(
        &self,
        weights: &[QueryTerm],
        has_word_terms: bool,
        eligible: &[bool],
        limit: usize,
        scale: &Scale<'_>,
        scratch: &mut Scratch,
    ) {
        let counts_for_coverage = |term: &QueryTerm| self.counts_for_coverage(term, has_word_terms);
        if self.config.bm25f {
            let plans = self.bm25f_plans(weights, &counts_for_coverage);
            self.score_plans(&plans, eligible, limit, scale, scratch);
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

    /// Whether `term`'s idf counts toward coverage. Character n-grams (`#…`) straddle word
    /// boundaries and would drown the signal in unmatched bigrams; coverage counts the user's
    /// words only, unless there are no words.
    pub(super) fn counts_for_coverage(&self, term: &QueryTerm, has_word_terms: bool) -> bool {
        term.is_own() && (!self.marked_terms.contains(&term.term) || !has_word_terms)
    }

    /// The query's terms that occur in an indexed field, in sorted term order, with their
    /// BM25F idf (one idf over the union of fields) and postings.
    pub(super) fn bm25f_plans<'a>(
        &'a self,
        weights: &[QueryTerm],
        counts_for_coverage: &dyn Fn(&QueryTerm) -> bool,
    ) -> Vec<TermPlan<'a>> {
        // Each term's postings live in a box of their own, a cache miss apiece. Reading every
        // built box's first bytes in a loop of independent loads first lets those misses
        // overlap; the loop below would take them one at a time.
        let touched = weights
            .iter()
            .filter_map(|term| self.combined.get(term.term as usize)?.get())
            .fold(0usize, |acc, combined| {
                acc ^ combined.df
                    ^ combined.tools.first().map_or(0, |&t| t as usize)
                    ^ usize::from(combined.saturation.first().copied().unwrap_or(0))
            });
        std::hint::black_box(touched);
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
}

/// [`FieldedBm25::score_candidates`] walks a term's tools when there are at most this many
/// per candidate and at most [`WALK_MAX`], and searches longer lists for each candidate (the
/// same rows either way; walking long lists slowed a 100,000-tool catalog's warm query, with
/// ~276 candidates spread over the catalog, from 2.7 to 3.1 ms).
const WALK_PER_CANDIDATE: usize = 16;
const WALK_MAX: usize = 128;

/// A term at least this share of the tools have (1/`DENSE_SHARE`) is stored densely (see
/// [`CombinedPostings`]).
const DENSE_SHARE: usize = 4;

/// One query term resolved against the BM25F index.
pub(super) struct TermPlan<'a> {
    pub(super) query_weight: f64,
    pub(super) idf: f64,
    /// Whether the term's idf counts toward coverage.
    pub(super) counts_for_coverage: bool,
    /// Its id (the field lists are looked up only for a plan that reaches a scored tool).
    pub(super) term: u32,
    pub(super) postings: &'a CombinedPostings,
}

/// What multiplies a tool's summed score: the intent and product multipliers, and the
/// coordination factor's weight for this request (0 = off).
pub(super) struct Scale<'a> {
    pub(super) multiplier: &'a dyn Fn(ToolId) -> f64,
    pub(super) coord: f64,
}

/// The coordination factor of a tool that matched `covered` of the user's words' idf
/// `own_idf_total` (at most 1, so every bound on an unscaled score still holds).
pub(super) fn coord_factor(coord: f64, covered: f64, own_idf_total: f64) -> f64 {
    if coord > 0.0 && own_idf_total > 0.0 {
        1.0 - coord + coord * (covered / own_idf_total)
    } else {
        1.0
    }
}

/// A term's BM25F contribution to a tool with pseudo term frequency `pseudo_tf`.
fn term_score(query_weight: f64, idf: f64, pseudo_tf: f64, k1: f64) -> f64 {
    query_weight * idf * pseudo_tf * (k1 + 1.0) / (pseudo_tf + k1)
}

/// Adds one term's contribution to one tool's field accumulators, split over fields by their
/// share of the pseudo term frequency. The one place BM25F arithmetic happens, for every path.
pub(super) fn accumulate(
    slot: &mut [f64; N_FIELDS],
    row: &[f64; N_FIELDS],
    plan: &TermPlan<'_>,
    k1: f64,
) {
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

    /// BM25F's scoring of a request's [`FieldedBm25::bm25f_plans`]: of the tools that can reach
    /// the cut (`prune`), or of every eligible tool.
    pub(super) fn score_plans(
        &self,
        plans: &[TermPlan<'_>],
        eligible: &[bool],
        limit: usize,
        scale: &Scale<'_>,
        scratch: &mut Scratch,
    ) {
        let candidates = if self.config.prune {
            self.prune(plans, eligible, limit, scale, scratch)
        } else {
            None
        };
        match candidates {
            Some(candidates) => self.score_candidates(plans, &candidates, scratch),
            None => self.score_all(plans, eligible, scratch),
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
