//! `toolsearch eval`: run a judged query set through the real search path and report the
//! metrics of formats.md §4, overall and per language slice, plus the worst cases.
//!
//! Cases go through request validation, [`search::search`] and [`respond::fit`] exactly as a
//! live request would (one process, one index). Metric sums run in case order, so the report
//! is byte-identical across runs. `--compare` runs a second retriever and reports per-case
//! wins/losses (by first relevant rank, and the workflows, forbidden tools and abstain cases only
//! one side gets right) and a paired bootstrap confidence interval for the recall@5 difference.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::catalog::Catalog;
use crate::error::{Error, Reason, Result};
use crate::json::parse_strict;
use crate::limits::{MAX_QUERY_BYTES, MAX_QUERY_SCALARS};
use crate::text::is_han;
use crate::wire::{
    self, CaseResult, EvalReport, Expect, Language, Metrics, QrelsCase, QrelsDocument,
};
use crate::{request, respond, search, Engine};

/// Options of `toolsearch eval`.
#[derive(Debug, Default, Clone)]
pub struct EvalArgs {
    pub qrels: Option<String>,
    pub compare: Option<String>,
    pub json: bool,
    /// How many cases each list of the table shows: the worst cases, the abstain cases
    /// answered confidently and, with `--compare`, each side's wins and outcomes (default 15; 0 prints
    /// figures only, e.g. for a run on the test set that must not show its cases).
    pub worst: Option<usize>,
    /// Retriever configuration overrides, `key=value` (see `Bm25Config::set`).
    pub params: Vec<(String, String)>,
}

/// Evaluation asks for 10 candidates, 5 for workflows (formats.md §4).
const EVAL_LIMIT: i64 = 10;
const WORKFLOW_LIMIT: i64 = 5;
const BOOTSTRAP_SAMPLES: usize = 10_000;

/// The language slice of a query: Han and no ASCII letter → chinese_only; Han and ASCII
/// letters → mixed; no Han → english.
pub fn language_of(query: &str) -> Language {
    let han = query.chars().any(is_han);
    let ascii = query.chars().any(|c| c.is_ascii_alphabetic());
    match (han, ascii) {
        (true, false) => Language::ChineseOnly,
        (true, true) => Language::MixedChineseAscii,
        (false, _) => Language::English,
    }
}

/// Cuts a query to the request limits on a scalar boundary; returns whether it was cut.
pub fn cut_query(query: &str) -> (String, bool) {
    let trimmed = query.trim();
    let mut out = String::new();
    for (count, ch) in trimmed.chars().enumerate() {
        if count >= MAX_QUERY_SCALARS || out.len() + ch.len_utf8() > MAX_QUERY_BYTES {
            return (out, true);
        }
        out.push(ch);
    }
    (out, false)
}

/// The search request of a judged case: its (cut) query, or its subqueries when it has any,
/// with its filters; an empty list stays absent. Shared by `eval` and `why`.
pub fn case_request(
    query: String,
    subqueries: Vec<String>,
    limit: i64,
    filters: Option<&wire::CaseFilters>,
) -> wire::SearchRequest {
    let non_empty = |v: &[String]| (!v.is_empty()).then(|| v.to_vec());
    let filters = filters.cloned().unwrap_or_default();
    wire::SearchRequest {
        version: Some(wire::SEARCH_VERSION.to_string()),
        query: subqueries.is_empty().then_some(query),
        subqueries: non_empty(&subqueries),
        limit: Some(serde_json::Number::from(limit)),
        candidate_limit: None,
        product_ids: non_empty(&filters.product_ids),
        effects: non_empty(&filters.effects),
        exclude_canonical: non_empty(&filters.exclude_canonical),
    }
}

/// Reads and checks a qrels document.
///
/// # Errors
/// `invalid_qrels` for unreadable or malformed files.
pub fn load_qrels(path: &str) -> Result<QrelsDocument> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::new(Reason::InvalidQrels, format!("{path}: {e}")))?;
    let document: QrelsDocument = parse_strict(&text)
        .map_err(|e| Error::new(Reason::InvalidQrels, format!("{path}: {e}")))?;
    if document.version != wire::QRELS_VERSION {
        return Err(Error::new(
            Reason::InvalidQrels,
            format!(
                "{path}: version must be \"{}\", found {:?}",
                wire::QRELS_VERSION,
                document.version
            ),
        ));
    }
    let mut ids = BTreeSet::new();
    for case in &document.cases {
        if !ids.insert(case.id.as_str()) {
            return Err(Error::new(
                Reason::InvalidQrels,
                format!("{path}: case id `{}` appears twice", case.id),
            ));
        }
    }
    Ok(document)
}

/// What one case returned.
#[derive(Debug, Clone)]
struct Outcome {
    result: CaseResult,
    truncated_query: bool,
}

/// The request `eval` sends for a judged case: its query, or its subqueries for a workflow
/// (each cut to the request limits), at 10 candidates or 5 for a workflow, with its filters; and
/// whether any text was cut. Shared by `eval` and `why`.
pub fn judged_request(case: &QrelsCase) -> (wire::SearchRequest, bool) {
    let (query, mut truncated_query) = cut_query(&case.query);
    let workflow_subqueries = case
        .workflow
        .as_ref()
        .map(|w| w.subqueries.clone())
        .unwrap_or_default();
    let is_workflow = case.workflow.is_some();
    let mut subqueries = Vec::new();
    for subquery in &workflow_subqueries {
        let (cut, was_cut) = cut_query(subquery);
        truncated_query |= was_cut;
        subqueries.push(cut);
    }
    let limit = if is_workflow {
        WORKFLOW_LIMIT
    } else {
        EVAL_LIMIT
    };
    (
        case_request(query, subqueries, limit, case.filters.as_ref()),
        truncated_query,
    )
}

fn run_case(engine: &Engine, case: &QrelsCase) -> Outcome {
    let language = case.language.unwrap_or_else(|| language_of(&case.query));
    let (wire_request, truncated_query) = judged_request(case);
    let answer = request::validate_search(&wire_request, engine.catalog()).and_then(|validated| {
        let outcome = search::search(engine.catalog(), engine, &validated);
        respond::fit(engine.catalog(), &outcome, false).map(|(document, _)| document)
    });
    let relevant: BTreeSet<&str> = case
        .qrels
        .iter()
        .filter(|q| q.relevance >= 1)
        .map(|q| q.canonical.as_str())
        .collect();
    let result = match answer {
        Ok(document) => {
            let returned: Vec<String> = document
                .candidates
                .iter()
                .map(|c| c.canonical_path.clone())
                .collect();
            let rank = returned
                .iter()
                .position(|c| relevant.contains(c.as_str()))
                .map(|i| i + 1);
            CaseResult {
                id: case.id.clone(),
                language,
                rank_of_first_relevant: rank,
                returned,
                strategy: document.strategy,
                abstained: document.abstained,
                weak_match: document.weak_match,
                error: None,
            }
        }
        Err(error) => CaseResult {
            id: case.id.clone(),
            language,
            rank_of_first_relevant: None,
            returned: Vec::new(),
            strategy: String::new(),
            abstained: false,
            weak_match: false,
            error: Some(error.reason.as_str().to_string()),
        },
    };
    Outcome {
        result,
        truncated_query,
    }
}

/// Per-case metric values, so slices and bootstrap can re-aggregate them.
#[derive(Debug, Clone, Default)]
struct CaseScores {
    answerable: bool,
    recall: [bool; 4], // @1 @3 @5 @10
    rr: f64,
    ndcg5: f64,
    ndcg10: f64,
    has_forbidden: bool,
    forbidden1: bool,
    forbidden5: bool,
    zero: bool,
    abstain_case: bool,
    abstain_ok: bool,
    workflow: bool,
    workflow_complete: bool,
    workflow_recall: f64,
}

fn dcg(gains: impl Iterator<Item = u8>) -> f64 {
    gains
        .enumerate()
        .map(|(idx, rel)| (2f64.powi(i32::from(rel)) - 1.0) / ((idx + 2) as f64).log2())
        .sum()
}

fn ndcg(case: &QrelsCase, returned: &[String], k: usize) -> f64 {
    let relevance: BTreeMap<&str, u8> = case
        .qrels
        .iter()
        .map(|q| (q.canonical.as_str(), q.relevance))
        .collect();
    let gains = returned
        .iter()
        .take(k)
        .map(|c| relevance.get(c.as_str()).copied().unwrap_or(0));
    let mut ideal: Vec<u8> = case.qrels.iter().map(|q| q.relevance).collect();
    ideal.sort_by(|a, b| b.cmp(a));
    let ideal_dcg = dcg(ideal.into_iter().take(k));
    if ideal_dcg > 0.0 {
        dcg(gains) / ideal_dcg
    } else {
        0.0
    }
}

fn score_case(case: &QrelsCase, result: &CaseResult) -> CaseScores {
    let abstain_case = case.expect == Some(Expect::Abstain);
    let answerable = !abstain_case && case.qrels.iter().any(|q| q.relevance >= 1);
    let rank = result.rank_of_first_relevant;
    let within = |k: usize| rank.is_some_and(|r| r <= k);
    let forbidden: BTreeSet<&str> = case.forbidden.iter().map(String::as_str).collect();
    let forbidden_within = |k: usize| {
        result
            .returned
            .iter()
            .take(k)
            .any(|c| forbidden.contains(c.as_str()))
    };
    let (workflow, workflow_complete, workflow_recall) = match &case.workflow {
        Some(w) if !w.required.is_empty() => {
            let top: BTreeSet<&str> = result.returned.iter().take(5).map(String::as_str).collect();
            let found = w
                .required
                .iter()
                .filter(|r| top.contains(r.as_str()))
                .count();
            (
                true,
                found == w.required.len(),
                found as f64 / w.required.len() as f64,
            )
        }
        _ => (false, false, 0.0),
    };
    CaseScores {
        answerable,
        recall: [within(1), within(3), within(5), within(10)],
        rr: rank.filter(|&r| r <= 10).map_or(0.0, |r| 1.0 / r as f64),
        ndcg5: ndcg(case, &result.returned, 5),
        ndcg10: ndcg(case, &result.returned, 10),
        has_forbidden: !forbidden.is_empty(),
        forbidden1: forbidden_within(1),
        forbidden5: forbidden_within(5),
        zero: result.returned.is_empty(),
        abstain_case,
        abstain_ok: result.abstained || result.weak_match,
        workflow,
        workflow_complete,
        workflow_recall,
    }
}

/// `numerator / denominator` as reported (rounded by [`respond::round_figure`]); 0 when there
/// is nothing to divide by.
pub(crate) fn ratio(numerator: f64, denominator: usize) -> f64 {
    if denominator == 0 {
        0.0
    } else {
        respond::round_figure(numerator / denominator as f64)
    }
}

fn aggregate<'a>(scores: impl Iterator<Item = &'a CaseScores>) -> Metrics {
    let mut cases = 0;
    let (mut answerable, mut forbidden_cases, mut abstain_cases, mut workflow_cases) = (0, 0, 0, 0);
    let mut recall = [0.0; 4];
    let (mut rr, mut ndcg5, mut ndcg10, mut f1, mut f5, mut zero, mut abstain_ok, mut wc, mut wr) =
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for s in scores {
        cases += 1;
        if s.answerable {
            answerable += 1;
            for (slot, hit) in recall.iter_mut().zip(s.recall) {
                *slot += f64::from(u8::from(hit));
            }
            rr += s.rr;
            ndcg5 += s.ndcg5;
            ndcg10 += s.ndcg10;
            zero += f64::from(u8::from(s.zero));
        }
        if s.has_forbidden {
            forbidden_cases += 1;
            f1 += f64::from(u8::from(s.forbidden1));
            f5 += f64::from(u8::from(s.forbidden5));
        }
        if s.abstain_case {
            abstain_cases += 1;
            abstain_ok += f64::from(u8::from(s.abstain_ok));
        }
        if s.workflow {
            workflow_cases += 1;
            wc += f64::from(u8::from(s.workflow_complete));
            wr += s.workflow_recall;
        }
    }
    Metrics {
        cases,
        recall_at_1: ratio(recall[0], answerable),
        recall_at_3: ratio(recall[1], answerable),
        recall_at_5: ratio(recall[2], answerable),
        recall_at_10: ratio(recall[3], answerable),
        mrr_at_10: ratio(rr, answerable),
        ndcg_at_5: ratio(ndcg5, answerable),
        ndcg_at_10: ratio(ndcg10, answerable),
        forbidden_at_1: ratio(f1, forbidden_cases),
        forbidden_at_5: ratio(f5, forbidden_cases),
        zero_result_rate: ratio(zero, answerable),
        abstain_accuracy: ratio(abstain_ok, abstain_cases),
        workflow_complete_at_5: ratio(wc, workflow_cases),
        workflow_recall_at_5: ratio(wr, workflow_cases),
        answerable_cases: answerable,
        forbidden_cases,
        abstain_cases,
        workflow_cases,
        truncated_queries: None,
    }
}

/// A full evaluation of one retriever: the report and the per-case scores.
struct Run {
    report: EvalReport,
    scores: Vec<CaseScores>,
}

fn evaluate(engine: &Engine, qrels: &QrelsDocument) -> Run {
    let mut results = Vec::with_capacity(qrels.cases.len());
    let mut scores = Vec::with_capacity(qrels.cases.len());
    let mut truncated = 0;
    for case in &qrels.cases {
        let outcome = run_case(engine, case);
        truncated += usize::from(outcome.truncated_query);
        scores.push(score_case(case, &outcome.result));
        results.push(outcome.result);
    }
    let mut overall = aggregate(scores.iter());
    overall.truncated_queries = Some(truncated);
    let mut slices = BTreeMap::new();
    for language in Language::ALL {
        let slice = aggregate(
            scores
                .iter()
                .zip(&results)
                .filter(|(_, r)| r.language == language)
                .map(|(s, _)| s),
        );
        slices.insert(language.as_str().to_string(), slice);
    }
    let catalog = engine.catalog();
    Run {
        report: EvalReport {
            version: wire::EVAL_VERSION.to_string(),
            catalog: wire::EvalCatalog {
                source_hash: catalog.source_hash().to_string(),
                surface_hash: catalog.surface_hash().to_string(),
                tools: catalog.tools().len(),
            },
            retriever: engine.retriever().name().to_string(),
            overall,
            slices,
            per_case: results,
        },
        scores,
    }
}

/// Runs `toolsearch eval` and returns what it prints.
///
/// # Errors
/// `invalid_qrels`, `unknown_retriever`.
/// An engine with `--param` overrides: `learned_pairs=FILE` names learned pairs to use instead
/// of the compiled ones (to cross-validate the learner, docs/adr/0015); every other key is a
/// `Bm25Config` knob. Shared by `eval` and `why`.
///
/// # Errors
/// `unknown_retriever`; `invalid_transport` for a bad parameter or an unreadable pairs file.
pub fn engine_with_params(
    catalog: Catalog,
    retriever: &str,
    params: &[(String, String)],
) -> Result<Engine> {
    let (pairs, params): (Vec<_>, Vec<_>) = params
        .iter()
        .cloned()
        .partition(|(key, _)| key == "learned_pairs");
    let mut engine = Engine::with_params(catalog, retriever, &params)?;
    if let Some((_, file)) = pairs.last() {
        let bad =
            |message: String| Error::new(Reason::InvalidTransport, format!("{file}: {message}"));
        let text = std::fs::read_to_string(file).map_err(|e| bad(e.to_string()))?;
        engine = engine.with_learned_pairs(crate::text::learned::parse(&text).map_err(bad)?);
    }
    Ok(engine)
}

pub fn run(catalog: Catalog, retriever: &str, args: &EvalArgs) -> Result<String> {
    let path = args.qrels.as_deref().unwrap_or_default();
    let qrels = load_qrels(path)?;
    let engine = engine_with_params(catalog, retriever, &args.params)?;
    let mut run = evaluate(&engine, &qrels);
    if !args.params.is_empty() {
        let params: Vec<String> = args
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        run.report.retriever = format!("{}[{}]", run.report.retriever, params.join(","));
    }
    let comparison = match &args.compare {
        Some(other) => {
            let other_engine = Engine::new(engine.catalog().clone(), other)?;
            Some(evaluate(&other_engine, &qrels))
        }
        None => None,
    };
    if args.json {
        return respond::encode_line(&run.report);
    }
    let worst = args.worst.unwrap_or(15);
    let mut out = table(&run, &qrels, worst);
    if let Some(other) = comparison {
        out.push_str(&compare_table(&run, &other, &qrels, worst));
    }
    Ok(out)
}

fn metric_row(out: &mut String, name: &str, m: &Metrics) {
    let _ = writeln!(
        out,
        "{name:<20} {:>5} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3}",
        m.cases,
        m.recall_at_1,
        m.recall_at_5,
        m.recall_at_10,
        m.mrr_at_10,
        m.ndcg_at_5,
        m.forbidden_at_5,
        m.abstain_accuracy,
        m.workflow_complete_at_5,
        m.zero_result_rate,
    );
}

fn table(run: &Run, qrels: &QrelsDocument, worst: usize) -> String {
    let report = &run.report;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "retriever {}  catalog {} tools  source {}\n",
        report.retriever, report.catalog.tools, report.catalog.source_hash
    );
    let _ = writeln!(
        out,
        "{:<20} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "slice", "cases", "R@1", "R@5", "R@10", "MRR10", "nDCG5", "Forb@5", "Abst", "WF@5", "Zero"
    );
    metric_row(&mut out, "overall", &report.overall);
    for (name, metrics) in &report.slices {
        if metrics.cases > 0 {
            metric_row(&mut out, name, metrics);
        }
    }
    let _ = writeln!(
        out,
        "\n(answerable {}, forbidden {}, abstain {}, workflow {}; queries cut to the request limits: {})",
        report.overall.answerable_cases,
        report.overall.forbidden_cases,
        report.overall.abstain_cases,
        report.overall.workflow_cases,
        report.overall.truncated_queries.unwrap_or(0)
    );
    // Abstain accuracy counts flags on abstain cases only; what they cost is the share of
    // answerable single requests that carry one too.
    let (weak, singles) = weak_answerable(run, qrels, None);
    if singles > 0 {
        let slices: Vec<String> = Language::ALL
            .into_iter()
            .map(|language| (language, weak_answerable(run, qrels, Some(language))))
            .filter(|&(_, (_, n))| n > 0)
            .map(|(language, (weak, n))| format!("{} {weak} of {n}", language.as_str()))
            .collect();
        let _ = writeln!(
            out,
            "(answerable single requests with weak_match: {weak} of {singles}; {})",
            slices.join(", ")
        );
    }
    // Worst cases: answerable cases ranked by how far the first relevant tool is (missing first).
    let mut misses: Vec<(usize, &CaseResult, &QrelsCase)> = report
        .per_case
        .iter()
        .zip(&qrels.cases)
        .filter(|(_, c)| c.expect != Some(Expect::Abstain) && !c.qrels.is_empty())
        .filter(|(r, _)| r.rank_of_first_relevant.is_none_or(|rank| rank > 1))
        .map(|(r, c)| (r.rank_of_first_relevant.unwrap_or(usize::MAX), r, c))
        .collect();
    misses.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.id.cmp(&b.1.id)));
    let failed_abstains: Vec<&CaseResult> = report
        .per_case
        .iter()
        .zip(&qrels.cases)
        .filter(|(r, c)| c.expect == Some(Expect::Abstain) && !(r.abstained || r.weak_match))
        .map(|(r, _)| r)
        .collect();
    if worst > 0 && !misses.is_empty() {
        let _ = writeln!(
            out,
            "\nworst cases (first relevant rank; '-' = not in the list):"
        );
        for (_, result, case) in misses.iter().take(worst) {
            let rank = result
                .rank_of_first_relevant
                .map_or("-".to_string(), |r| r.to_string());
            let expected: Vec<&str> = case.qrels.iter().map(|q| q.canonical.as_str()).collect();
            let got: Vec<&str> = result.returned.iter().take(3).map(String::as_str).collect();
            let query: String = case.query.chars().take(60).collect();
            let _ = writeln!(
                out,
                "  {:>3}  {}  {query}\n       want {}  got {}",
                rank,
                case.id,
                expected.join(","),
                if got.is_empty() {
                    result.error.as_deref().unwrap_or("nothing").to_string()
                } else {
                    got.join(",")
                }
            );
        }
    }
    if worst > 0 && !failed_abstains.is_empty() {
        let _ = writeln!(out, "\nabstain cases answered confidently:");
        for result in failed_abstains.iter().take(worst) {
            let got: Vec<&str> = result.returned.iter().take(3).map(String::as_str).collect();
            let _ = writeln!(out, "  {}  got {}", result.id, got.join(","));
        }
    }
    out
}

/// (weak_match, all) over the answerable cases (as the metrics count them) that are not
/// workflows, of one language slice or of all.
fn weak_answerable(run: &Run, qrels: &QrelsDocument, language: Option<Language>) -> (usize, usize) {
    run.report
        .per_case
        .iter()
        .zip(&run.scores)
        .zip(&qrels.cases)
        .filter(|((result, scores), case)| {
            scores.answerable
                && case.workflow.is_none()
                && language.is_none_or(|l| result.language == l)
        })
        .fold((0, 0), |(weak, n), ((result, _), _)| {
            (weak + usize::from(result.weak_match), n + 1)
        })
}

/// A small deterministic generator (xorshift64*) for the bootstrap.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// A case's yes/no outcome under `--compare`, `None` where it does not apply.
type PairedOutcome = fn(&CaseScores) -> Option<bool>;

fn compare_table(base: &Run, other: &Run, qrels: &QrelsDocument, listed: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\ncompare {} (A) vs {} (B)",
        base.report.retriever, other.report.retriever
    );
    let _ = writeln!(
        out,
        "{:<20} {:>5} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "B slice",
        "cases",
        "R@1",
        "R@5",
        "R@10",
        "MRR10",
        "nDCG5",
        "Forb@5",
        "Abst",
        "WF@5",
        "Zero"
    );
    metric_row(&mut out, "overall", &other.report.overall);
    for (name, metrics) in &other.report.slices {
        if metrics.cases > 0 {
            metric_row(&mut out, name, metrics);
        }
    }
    // Paired per-case recall@5 over answerable cases.
    let pairs: Vec<(f64, f64)> = base
        .scores
        .iter()
        .zip(&other.scores)
        .filter(|(a, _)| a.answerable)
        .map(|(a, b)| {
            (
                f64::from(u8::from(a.recall[2])),
                f64::from(u8::from(b.recall[2])),
            )
        })
        .collect();
    let (mut wins, mut losses) = (Vec::new(), Vec::new());
    for ((a, b), case) in base
        .report
        .per_case
        .iter()
        .zip(&other.report.per_case)
        .zip(&qrels.cases)
    {
        let rank_a = a.rank_of_first_relevant.unwrap_or(usize::MAX);
        let rank_b = b.rank_of_first_relevant.unwrap_or(usize::MAX);
        if case.qrels.is_empty() {
            continue;
        }
        match rank_a.cmp(&rank_b) {
            std::cmp::Ordering::Less => wins.push(&case.id),
            std::cmp::Ordering::Greater => losses.push(&case.id),
            std::cmp::Ordering::Equal => {}
        }
    }
    let n = pairs.len();
    let diff = |sample: &mut dyn Iterator<Item = usize>| {
        let mut total = 0.0;
        for idx in sample {
            total += pairs[idx].0 - pairs[idx].1;
        }
        total / n as f64
    };
    if n > 0 {
        let observed = diff(&mut (0..n));
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut samples: Vec<f64> = (0..BOOTSTRAP_SAMPLES)
            .map(|_| {
                let mut draw = (0..n)
                    .map(|_| (rng.next() % n as u64) as usize)
                    .collect::<Vec<_>>()
                    .into_iter();
                diff(&mut draw)
            })
            .collect();
        samples.sort_by(f64::total_cmp);
        let low = samples[BOOTSTRAP_SAMPLES * 25 / 1000];
        let high = samples[BOOTSTRAP_SAMPLES * 975 / 1000 - 1];
        let _ = writeln!(
            out,
            "\nrecall@5 A − B = {observed:+.4}  (95% paired bootstrap CI {low:+.4} .. {high:+.4}, {BOOTSTRAP_SAMPLES} resamples, {n} answerable cases)"
        );
    }
    let _ = writeln!(
        out,
        "first-relevant rank: A better on {} cases, B better on {} cases",
        wins.len(),
        losses.len()
    );
    let show = |ids: &[&String]| {
        ids.iter()
            .take(listed)
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    if listed > 0 && !wins.is_empty() {
        let _ = writeln!(out, "  A wins: {}", show(&wins));
    }
    if listed > 0 && !losses.is_empty() {
        let _ = writeln!(out, "  B wins: {}", show(&losses));
    }
    // The outcomes a rank does not show, case by case: which side alone completes a workflow,
    // shows a forbidden tool, or answers an abstain case right.
    let outcomes: [(&str, PairedOutcome); 3] = [
        ("workflow complete@5", |s| {
            s.workflow.then_some(s.workflow_complete)
        }),
        ("forbidden tool in the top 5", |s| {
            s.has_forbidden.then_some(s.forbidden5)
        }),
        ("abstain answered (abstained or weak_match)", |s| {
            s.abstain_case.then_some(s.abstain_ok)
        }),
    ];
    for (label, outcome) in outcomes {
        let (mut only_a, mut only_b) = (Vec::new(), Vec::new());
        for ((a, b), case) in base.scores.iter().zip(&other.scores).zip(&qrels.cases) {
            match (outcome(a), outcome(b)) {
                (Some(true), Some(false)) => only_a.push(&case.id),
                (Some(false), Some(true)) => only_b.push(&case.id),
                _ => {}
            }
        }
        let _ = writeln!(
            out,
            "{label}: A only on {} cases, B only on {} cases",
            only_a.len(),
            only_b.len()
        );
        if listed > 0 && !only_a.is_empty() {
            let _ = writeln!(out, "  A only: {}", show(&only_a));
        }
        if listed > 0 && !only_b.is_empty() {
            let _ = writeln!(out, "  B only: {}", show(&only_b));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_slices() {
        assert_eq!(language_of("帮我发消息"), Language::ChineseOnly);
        assert_eq!(language_of("发DING消息"), Language::MixedChineseAscii);
        assert_eq!(language_of("send a message 123"), Language::English);
    }

    #[test]
    fn cut_query_respects_scalars() {
        let long = "发".repeat(300);
        let (cut, was_cut) = cut_query(&long);
        assert!(was_cut);
        assert_eq!(cut.chars().count(), MAX_QUERY_SCALARS);
    }

    #[test]
    fn ndcg_of_perfect_list_is_one() {
        let case = QrelsCase {
            id: "x".into(),
            query: "q".into(),
            language: None,
            qrels: vec![wire::Judgement {
                canonical: "a.b".into(),
                relevance: 3,
            }],
            forbidden: vec![],
            workflow: None,
            expect: None,
            filters: None,
        };
        assert!((ndcg(&case, &["a.b".to_string()], 5) - 1.0).abs() < 1e-12);
        assert!(ndcg(&case, &["x.y".to_string(), "a.b".to_string()], 5) < 1.0);
    }
}
