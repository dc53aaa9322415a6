//! The search pipeline: exact guard → hard filters → lexical retrieval → cut → hints,
//! and the round-robin merge of subqueries. Returns a domain [`SearchOutcome`], never JSON.
//!
//! **Invariants**
//! - An identity that names a tool always answers with that tool or with `exact_filtered`;
//!   it never falls back to fuzzy retrieval.
//! - Any subquery arm that is `exact_filtered` makes the whole answer
//!   `decomposed_exact_filtered` (fail closed).
//! - No candidate appears twice; ranks follow the order of `candidates`.

use crate::catalog::{cli_key, Catalog, ToolId};
use crate::filter::FilterReason;
use crate::request::SearchRequest;
use crate::retrieve::{Field, Hit, Retriever};
use crate::text::normalize;

pub const STRATEGY_EXACT_GUARD: &str = "exact_guard";
pub const STRATEGY_EXACT_FILTERED: &str = "exact_filtered";
pub const STRATEGY_DECOMPOSED: &str = "decomposed_round_robin";
pub const STRATEGY_DECOMPOSED_EXACT_FILTERED: &str = "decomposed_exact_filtered";

pub const HINT_ABSTAINED: &str = "No tool in this catalog matches. If a specific product should have it, search once more with product_ids set to that product; otherwise tell the user the capability is unsupported. Do not probe product by product.";
pub const HINT_WEAK_MATCH: &str = "Only weak matches: no candidate matched a tool name or summary, or the best one shares too little with the request. Inspect before trusting one; if none fits, tell the user the capability is unsupported.";

/// How a candidate was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Exact,
    Lexical,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Exact => "exact",
            Source::Lexical => "lexical",
        }
    }
}

/// One returned tool, before encoding.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub tool: ToolId,
    pub source: Source,
    /// Lexical score details (absent for exact hits).
    pub hit: Option<Hit>,
}

impl Candidate {
    /// Fields with a positive contribution, by contribution descending then name.
    pub fn matched_fields(&self) -> Vec<&'static str> {
        match &self.hit {
            None => vec!["identity"],
            Some(hit) => {
                let mut fields: Vec<(f64, &'static str)> = Field::ALL
                    .iter()
                    .zip(hit.fields.iter())
                    .filter(|(_, &score)| score > 0.0)
                    .map(|(field, &score)| (score, field.as_str()))
                    .collect();
                fields.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
                fields.into_iter().map(|(_, name)| name).collect()
            }
        }
    }

    fn is_strong(&self) -> bool {
        self.hit.as_ref().is_none_or(|hit| hit.confident)
    }
}

/// The domain answer to a search.
#[derive(Debug, Clone)]
pub struct SearchOutcome {
    pub query: String,
    pub subqueries: Vec<String>,
    pub strategy: String,
    pub candidates: Vec<Candidate>,
    pub exact_filtered: Option<(ToolId, FilterReason)>,
    pub abstained: bool,
    pub weak_match: bool,
    pub hint: Option<&'static str>,
}

/// The answer of one query arm.
enum Arm {
    Exact(ToolId),
    ExactFiltered(ToolId, FilterReason),
    Lexical(Vec<Hit>),
}

/// The tool a query names exactly, if any: canonical path; CLI path / primary CLI path /
/// alias (whitespace collapsed, leading `dws` dropped); finally the query split on `.`,
/// `/` and whitespace and re-joined as a CLI path. NFKC first; case-sensitive.
pub fn resolve_identity(catalog: &Catalog, text: &str) -> Option<ToolId> {
    let normalized = normalize(text.trim());
    let normalized = normalized.trim();
    if let Some(tool) = catalog.by_canonical(normalized) {
        return Some(tool);
    }
    let key = cli_key(normalized);
    if !key.is_empty() {
        if let Some(tool) = catalog.by_cli_key(&key) {
            return Some(tool);
        }
    }
    let split: Vec<&str> = normalized
        .split(|c: char| c == '.' || c == '/' || c.is_whitespace())
        .filter(|part| !part.is_empty())
        .collect();
    let key = cli_key(&split.join(" "));
    if key.is_empty() {
        return None;
    }
    catalog.by_cli_key(&key)
}

/// One query's arm: its exact identity, or its best `depth` lexical hits (for a request without
/// subqueries, [`Retriever::search_single`]'s; for one arm of a request with subqueries,
/// [`Retriever::search_arm`]'s, which may leave out a weak tail).
fn search_arm(
    catalog: &Catalog,
    retriever: &dyn Retriever,
    eligible: &[bool],
    text: &str,
    request: &SearchRequest,
    depth: usize,
) -> Arm {
    if let Some(tool) = resolve_identity(catalog, text) {
        return match request.filters.check(catalog.tool(tool)) {
            None => Arm::Exact(tool),
            Some(reason) => Arm::ExactFiltered(tool, reason),
        };
    }
    Arm::Lexical(if request.subqueries.is_empty() {
        retriever.search_single(text, eligible, depth)
    } else {
        retriever.search_arm(text, eligible, depth)
    })
}

fn arm_candidates(arm: Arm) -> Vec<Candidate> {
    match arm {
        Arm::Exact(tool) => vec![Candidate {
            tool,
            source: Source::Exact,
            hit: None,
        }],
        Arm::ExactFiltered(..) => Vec::new(),
        Arm::Lexical(hits) => hits
            .into_iter()
            .map(|hit| Candidate {
                tool: hit.tool,
                source: Source::Lexical,
                hit: Some(hit),
            })
            .collect(),
    }
}

/// Runs a validated request against the snapshot.
pub fn search(
    catalog: &Catalog,
    retriever: &dyn Retriever,
    request: &SearchRequest,
) -> SearchOutcome {
    let eligible = request.filters.eligible(catalog);
    let mut outcome = SearchOutcome {
        query: request.echo_query(),
        subqueries: request.subqueries.clone(),
        strategy: String::new(),
        candidates: Vec::new(),
        exact_filtered: None,
        abstained: false,
        weak_match: false,
        hint: None,
    };

    if request.subqueries.is_empty() {
        let query = request.query.as_deref().unwrap_or_default();
        // Only the first `limit` hits are answered, and a retriever's best `limit` are the
        // first `limit` of its best `candidate_limit` (one total order): asking for fewer lets
        // pruning keep fewer tools (same bytes; tests/properties.rs checks it).
        match search_arm(catalog, retriever, &eligible, query, request, request.limit) {
            Arm::ExactFiltered(tool, reason) => {
                outcome.strategy = STRATEGY_EXACT_FILTERED.to_string();
                outcome.exact_filtered = Some((tool, reason));
                outcome.abstained = true;
                return outcome;
            }
            arm => {
                outcome.strategy = match arm {
                    Arm::Exact(_) => STRATEGY_EXACT_GUARD,
                    _ => retriever.name(),
                }
                .to_string();
                let mut candidates = arm_candidates(arm);
                candidates.truncate(request.limit);
                outcome.candidates = candidates;
            }
        }
    } else {
        let mut arms = Vec::with_capacity(request.subqueries.len());
        for subquery in &request.subqueries {
            // Merging skips duplicates, so an arm may be read deeper than `limit`.
            let arm = search_arm(
                catalog,
                retriever,
                &eligible,
                subquery,
                request,
                request.candidate_limit,
            );
            if let Arm::ExactFiltered(tool, reason) = arm {
                outcome.strategy = STRATEGY_DECOMPOSED_EXACT_FILTERED.to_string();
                outcome.exact_filtered = Some((tool, reason));
                outcome.abstained = true;
                return outcome;
            }
            arms.push(arm_candidates(arm));
        }
        outcome.strategy = STRATEGY_DECOMPOSED.to_string();
        outcome.candidates = round_robin(arms, request.limit);
    }

    if outcome.candidates.is_empty() {
        outcome.abstained = true;
        outcome.hint = Some(HINT_ABSTAINED);
    } else if weak(catalog, retriever, request, &outcome.candidates) {
        outcome.weak_match = true;
        outcome.hint = Some(HINT_WEAK_MATCH);
    }
    outcome
}

/// Whether an answer with `candidates` is a weak match: none of them is strong; or, where the
/// retriever has a [judge](Retriever::judge), the judge's answer to the same request is a weak
/// match or has no candidate (docs/adr/0020). An exact candidate is strong, and an answer with
/// one never asks the judge (so an exact-identity request never pays for the judge's index).
fn weak(
    catalog: &Catalog,
    retriever: &dyn Retriever,
    request: &SearchRequest,
    candidates: &[Candidate],
) -> bool {
    if candidates.iter().any(|c| c.hit.is_none()) {
        return false;
    }
    match retriever.judge() {
        Some(judge) => {
            let judged = search(catalog, judge, request);
            judged.weak_match || judged.abstained
        }
        None => !candidates.iter().any(Candidate::is_strong),
    }
}

/// Merges arms depth by depth, one candidate per arm in turn, skipping duplicates.
fn round_robin(arms: Vec<Vec<Candidate>>, limit: usize) -> Vec<Candidate> {
    let depth = arms.iter().map(Vec::len).max().unwrap_or(0);
    let mut merged: Vec<Candidate> = Vec::new();
    'outer: for level in 0..depth {
        for arm in &arms {
            if merged.len() >= limit {
                break 'outer;
            }
            if let Some(candidate) = arm.get(level) {
                if !merged.iter().any(|c| c.tool == candidate.tool) {
                    merged.push(candidate.clone());
                }
            }
        }
    }
    merged
}
