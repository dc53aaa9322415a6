//! `toolsearch catalog lint`: the findability audit — can an agent find each tool of a
//! catalog by the tool's own words?
//!
//! For every available tool the audit searches, through the real pipeline
//! ([`request::validate_search`] → [`search::search`], exact guard included, no filters,
//! `limit` [`LINT_LIMIT`], one process, one index), its own title, its own `agent_summary`
//! and each of its `use_when` sentences (each cut to the request limits like eval's
//! [`cut_query`]), and records the tool's rank and the tools ranked above it. It also reports
//! near-duplicate titles and summaries among available tools (Jaccard similarity of the
//! default analyzer's term sets ≥ [`NEAR_DUPLICATE_THRESHOLD`]), missing `title` / `agent_summary` / `use_when` /
//! `avoid_when`, parameters without a description, and redundant or ambiguous aliases.
//!
//! **Invariants**
//! - No IO: [`lint`] is a pure function of the engine's catalog and retriever; [`run`] only
//!   formats. Tools are visited in canonical order and pairs in canonical order, so the
//!   report is byte-identical across runs.
//! - Unavailable tools are never returned by search, so they are not probed, not counted in
//!   the findability shares, and need no guidance text: only their aliases are checked
//!   (an alias still resolves for `inspect`).
//! - The `--fail-under` score is `summary.by_summary.rank1`: the share of probed tools found
//!   at rank 1 by their own `agent_summary` (a tool without one counts as not found).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::catalog::{cli_key, Catalog, ToolEntry, ToolId};
use crate::error::{Error, Reason, Result};
use crate::eval::{cut_query, ratio};
use crate::filter::Filters;
use crate::limits::MAX_LIMIT;
use crate::text::{Analyzer, AnalyzerConfig};
use crate::wire::{
    self, AliasFinding, EvalCatalog, Findability, LintReport, LintSummary, LintTool, NearDuplicate,
    Probe, ProblemCounts,
};
use crate::{request, respond, search, Engine};

/// Candidates asked for per probe: the largest `limit` a request may carry.
pub const LINT_LIMIT: usize = MAX_LIMIT as usize;
/// Two titles (or summaries) whose analyzer term sets have a Jaccard similarity at or above
/// this are near-duplicates.
pub const NEAR_DUPLICATE_THRESHOLD: f64 = 0.8;
/// How many of the tools ranked above a tool a probe lists.
const OUTRANKED_SHOWN: usize = 3;
/// "Found" for the second findability figure: within this many candidates.
const TOP: usize = 5;

/// Options of `toolsearch catalog lint`.
#[derive(Debug, Default, Clone)]
pub struct LintArgs {
    pub json: bool,
    /// Fail (exit 3, `lint_below_threshold`) when the score is below this share.
    pub fail_under: Option<f64>,
}

/// What `catalog lint` prints, and the error to exit with after printing it.
#[derive(Debug)]
pub struct LintOutput {
    pub text: String,
    pub below_threshold: Option<Error>,
}

/// Parses a `--fail-under` value: a share between 0 and 1.
///
/// # Errors
/// `invalid_transport` for anything that is not a number in `0..=1`.
pub fn parse_threshold(value: &str) -> Result<f64> {
    match value.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(Error::new(
            Reason::InvalidTransport,
            format!("`--fail-under` needs a share between 0 and 1, found `{value}`"),
        )),
    }
}

/// Runs `toolsearch catalog lint` and returns what it prints.
///
/// # Errors
/// `unknown_retriever`, `output_failed`.
pub fn run(catalog: Catalog, retriever: &str, args: &LintArgs) -> Result<LintOutput> {
    let engine = Engine::new(catalog, retriever)?;
    let report = lint(&engine);
    let text = if args.json {
        respond::encode_line(&report)?
    } else {
        human(&report, args.fail_under)
    };
    let below_threshold = args
        .fail_under
        .filter(|&threshold| report.score < threshold)
        .map(|threshold| {
            Error::new(
                Reason::LintBelowThreshold,
                format!(
                    "findability score {:.3} (share of tools found at rank 1 by their own agent_summary) is below --fail-under {threshold}",
                    report.score
                ),
            )
        });
    Ok(LintOutput {
        text,
        below_threshold,
    })
}

fn non_blank(text: Option<&str>) -> Option<&str> {
    text.filter(|t| !t.trim().is_empty())
}

/// Searches `text` through the full pipeline and locates `tool` in the answer.
fn probe(engine: &Engine, tool: ToolId, text: &str, echo: bool) -> Probe {
    let catalog = engine.catalog();
    let (query, truncated) = cut_query(text);
    let wire_request = wire::SearchRequest {
        version: Some(wire::SEARCH_VERSION.to_string()),
        query: Some(query.clone()),
        limit: Some(serde_json::Number::from(LINT_LIMIT as u64)),
        ..wire::SearchRequest::default()
    };
    let mut result = Probe {
        text: echo.then_some(query),
        rank: None,
        outranked_by: Vec::new(),
        truncated,
        error: None,
    };
    match request::validate_search(&wire_request, catalog) {
        Err(error) => result.error = Some(error.reason.as_str().to_string()),
        Ok(validated) => {
            let outcome = search::search(catalog, engine.retriever(), &validated);
            let ranked: Vec<ToolId> = outcome.candidates.iter().map(|c| c.tool).collect();
            let position = ranked.iter().position(|&t| t == tool);
            result.rank = position.map(|p| p + 1);
            result.outranked_by = ranked[..position.unwrap_or(ranked.len())]
                .iter()
                .take(OUTRANKED_SHOWN)
                .map(|&t| catalog.tool(t).def.canonical_path.clone())
                .collect();
        }
    }
    result
}

fn is_shadowed(probe: &Probe) -> bool {
    probe.rank != Some(1) && !probe.outranked_by.is_empty()
}

/// Parameter flags without a description, then `input_schema` property paths without one
/// (nested objects as `a.b`, array items as `a[]`).
fn undescribed_parameters(tool: &ToolEntry) -> Vec<String> {
    let mut out: Vec<String> = tool
        .def
        .parameters
        .iter()
        .filter(|(_, p)| non_blank(p.description.as_deref()).is_none())
        .map(|(flag, _)| flag.clone())
        .collect();
    if let Some(schema) = &tool.def.input_schema {
        walk_schema(schema, "", &mut out);
    }
    out
}

fn walk_schema(schema: &serde_json::Value, path: &str, out: &mut Vec<String>) {
    if let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) {
        // serde_json's map is ordered by key, so the walk is deterministic.
        for (name, property) in properties {
            let child = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            let described = property
                .get("description")
                .and_then(|d| d.as_str())
                .is_some_and(|d| !d.trim().is_empty());
            if !described {
                out.push(child.clone());
            }
            walk_schema(property, &child, out);
        }
    }
    if let Some(items) = schema.get("items").filter(|i| i.is_object()) {
        walk_schema(items, &format!("{path}[]"), out);
    }
}

/// Redundant aliases (same collapsed form as the CLI path, the primary CLI path or an
/// earlier alias) and ambiguous ones (their text, searched lexically without the exact
/// guard, ranks another tool first).
fn alias_findings(
    engine: &Engine,
    tool_id: ToolId,
    eligible: &[bool],
    probe_lexically: bool,
) -> Vec<AliasFinding> {
    let catalog = engine.catalog();
    let tool = catalog.tool(tool_id);
    let mut seen: BTreeSet<String> = tool
        .def
        .cli_path
        .iter()
        .chain(tool.def.primary_cli_path.iter())
        .map(|p| cli_key(p))
        .collect();
    let mut findings = Vec::new();
    for alias in &tool.def.aliases {
        if !seen.insert(cli_key(alias)) {
            findings.push(AliasFinding {
                alias: alias.clone(),
                problem: "redundant_alias".to_string(),
                lexical_rank: None,
                lexical_first: None,
            });
            continue;
        }
        if !probe_lexically {
            continue;
        }
        let (query, _) = cut_query(alias);
        let hits = engine.retriever().search(&query, eligible, LINT_LIMIT);
        if let Some(first) = hits.first().filter(|h| h.tool != tool_id) {
            findings.push(AliasFinding {
                alias: alias.clone(),
                problem: "ambiguous_alias".to_string(),
                lexical_rank: hits.iter().position(|h| h.tool == tool_id).map(|p| p + 1),
                lexical_first: Some(catalog.tool(first.tool).def.canonical_path.clone()),
            });
        }
    }
    findings
}

/// The sorted, de-duplicated analyzer terms of `text`.
fn term_set(analyzer: &Analyzer, text: &str) -> Vec<String> {
    let mut terms = analyzer.terms(text);
    terms.sort();
    terms.dedup();
    terms
}

/// Jaccard similarity of two sorted, de-duplicated term lists (0 when both are empty).
fn jaccard(a: &[String], b: &[String]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
}

/// Every pair of tools (in canonical order) whose texts are near-duplicates; `texts[i]` is
/// `None` for a tool without the text or not available (a deprecated tool may repeat its
/// successor's title: search never offers both). The size filter (a Jaccard of at least t
/// needs |small| ≥ t·|large|) skips most pairs cheaply.
fn near_duplicates(
    field: &str,
    texts: &[Option<Vec<String>>],
    catalog: &Catalog,
) -> Vec<NearDuplicate> {
    let mut out = Vec::new();
    for (a, terms_a) in texts.iter().enumerate() {
        let Some(terms_a) = terms_a.as_ref().filter(|t| !t.is_empty()) else {
            continue;
        };
        for (b, terms_b) in texts.iter().enumerate().skip(a + 1) {
            let Some(terms_b) = terms_b.as_ref().filter(|t| !t.is_empty()) else {
                continue;
            };
            let (small, large) = if terms_a.len() <= terms_b.len() {
                (terms_a.len(), terms_b.len())
            } else {
                (terms_b.len(), terms_a.len())
            };
            if (small as f64) < NEAR_DUPLICATE_THRESHOLD * large as f64 {
                continue;
            }
            let similarity = jaccard(terms_a, terms_b);
            if similarity >= NEAR_DUPLICATE_THRESHOLD {
                out.push(NearDuplicate {
                    field: field.to_string(),
                    tools: [
                        catalog.tools()[a].def.canonical_path.clone(),
                        catalog.tools()[b].def.canonical_path.clone(),
                    ],
                    similarity: respond::round_figure(similarity),
                });
            }
        }
    }
    out
}

/// Counts of one findability figure.
#[derive(Default)]
struct Tally {
    probes: usize,
    rank1: usize,
    top: usize,
    not_found: usize,
}

impl Tally {
    fn add(&mut self, rank: Option<usize>) {
        self.probes += 1;
        match rank {
            Some(1) => {
                self.rank1 += 1;
                self.top += 1;
            }
            Some(r) if r <= TOP => self.top += 1,
            Some(_) => {}
            None => self.not_found += 1,
        }
    }

    fn findability(&self) -> Findability {
        Findability {
            probes: self.probes,
            rank1: ratio(self.rank1 as f64, self.probes),
            top5: ratio(self.top as f64, self.probes),
            not_found: self.not_found,
        }
    }
}

/// The full audit of the engine's catalog.
pub fn lint(engine: &Engine) -> LintReport {
    let catalog = engine.catalog();
    let eligible = Filters::default().eligible(catalog);
    let analyzer = Analyzer::new(AnalyzerConfig::DEFAULT);

    let texts = |get: fn(&ToolEntry) -> Option<&str>| -> Vec<Option<Vec<String>>> {
        catalog
            .tools()
            .iter()
            .zip(eligible.iter())
            .map(|(t, &available)| {
                non_blank(get(t))
                    .filter(|_| available)
                    .map(|text| term_set(&analyzer, text))
            })
            .collect()
    };
    let mut duplicates = near_duplicates("title", &texts(|t| t.def.title.as_deref()), catalog);
    duplicates.extend(near_duplicates(
        "summary",
        &texts(|t| t.def.agent_summary.as_deref()),
        catalog,
    ));
    let mut duplicate_of: BTreeMap<&str, BTreeSet<&'static str>> = BTreeMap::new();
    for pair in &duplicates {
        let code = if pair.field == "title" {
            "near_duplicate_title"
        } else {
            "near_duplicate_summary"
        };
        for tool in &pair.tools {
            duplicate_of.entry(tool.as_str()).or_default().insert(code);
        }
    }

    let (mut by_title, mut by_summary, mut by_use_when) =
        (Tally::default(), Tally::default(), Tally::default());
    let mut counts = ProblemCounts::default();
    let mut unavailable_tools = 0;
    let mut tools = Vec::with_capacity(catalog.tools().len());
    for (idx, tool) in catalog.tools().iter().enumerate() {
        let tool_id = idx as ToolId;
        let available = eligible.get(idx).copied().unwrap_or(false);
        let mut problems: BTreeSet<&'static str> = duplicate_of
            .get(tool.def.canonical_path.as_str())
            .cloned()
            .unwrap_or_default();
        let title = non_blank(tool.def.title.as_deref());
        let summary = non_blank(tool.def.agent_summary.as_deref());
        let use_when: Vec<&str> = tool
            .def
            .use_when
            .iter()
            .map(String::as_str)
            .filter(|s| !s.trim().is_empty())
            .collect();
        let mut entry = LintTool {
            canonical_path: tool.def.canonical_path.clone(),
            unavailable: !available,
            title: None,
            summary: None,
            use_when: Vec::new(),
            undescribed_parameters: if available {
                undescribed_parameters(tool)
            } else {
                Vec::new()
            },
            aliases: alias_findings(engine, tool_id, &eligible, available),
            problems: Vec::new(),
        };
        if available {
            entry.title = title.map(|text| probe(engine, tool_id, text, false));
            entry.summary = summary.map(|text| probe(engine, tool_id, text, false));
            entry.use_when = use_when
                .iter()
                .map(|text| probe(engine, tool_id, text, true))
                .collect();
            by_title.add(entry.title.as_ref().and_then(|p| p.rank));
            by_summary.add(entry.summary.as_ref().and_then(|p| p.rank));
            for sentence in &entry.use_when {
                by_use_when.add(sentence.rank);
            }
        } else {
            unavailable_tools += 1;
        }
        if entry.title.as_ref().is_some_and(is_shadowed) {
            problems.insert("shadowed_title");
        }
        if entry.summary.as_ref().is_some_and(is_shadowed) {
            problems.insert("shadowed_summary");
        }
        let outside = entry
            .use_when
            .iter()
            .filter(|p| p.rank.is_none_or(|r| r > TOP))
            .count();
        counts.use_when_outside_top5 += outside;
        if outside > 0 {
            problems.insert("use_when_outside_top5");
        }
        for (missing, code) in [
            (title.is_none(), "missing_title"),
            (summary.is_none(), "missing_summary"),
            (use_when.is_empty(), "missing_use_when"),
            (
                tool.def.avoid_when.iter().all(|s| s.trim().is_empty()),
                "missing_avoid_when",
            ),
            (
                !entry.undescribed_parameters.is_empty(),
                "undescribed_parameters",
            ),
        ] {
            // A tool search never offers (deprecated, not enabled) needs no guidance text.
            if missing && available {
                problems.insert(code);
            }
        }
        for finding in &entry.aliases {
            if finding.problem == "redundant_alias" {
                counts.redundant_aliases += 1;
                problems.insert("redundant_alias");
            } else {
                counts.ambiguous_aliases += 1;
                problems.insert("ambiguous_alias");
            }
        }
        for code in &problems {
            match *code {
                "shadowed_title" => counts.shadowed_title += 1,
                "shadowed_summary" => counts.shadowed_summary += 1,
                "missing_title" => counts.missing_title += 1,
                "missing_summary" => counts.missing_summary += 1,
                "missing_use_when" => counts.missing_use_when += 1,
                "missing_avoid_when" => counts.missing_avoid_when += 1,
                "undescribed_parameters" => counts.undescribed_parameters += 1,
                _ => {}
            }
        }
        entry.problems = problems.into_iter().map(str::to_string).collect();
        tools.push(entry);
    }
    counts.near_duplicate_titles = duplicates.iter().filter(|d| d.field == "title").count();
    counts.near_duplicate_summaries = duplicates.len() - counts.near_duplicate_titles;

    let by_summary = by_summary.findability();
    LintReport {
        version: wire::LINT_VERSION.to_string(),
        catalog: EvalCatalog {
            source_hash: catalog.source_hash().to_string(),
            surface_hash: catalog.surface_hash().to_string(),
            tools: catalog.tools().len(),
        },
        retriever: engine.retriever().name().to_string(),
        limit: LINT_LIMIT,
        near_duplicate_threshold: NEAR_DUPLICATE_THRESHOLD,
        score: by_summary.rank1,
        summary: LintSummary {
            tools_probed: catalog.tools().len() - unavailable_tools,
            unavailable_tools,
            by_title: by_title.findability(),
            by_summary,
            by_use_when: by_use_when.findability(),
            problems: counts,
        },
        tools,
        near_duplicates: duplicates,
    }
}

fn rank_text(rank: Option<usize>) -> String {
    rank.map_or("-".to_string(), |r| r.to_string())
}

/// Appends `items` as an indented, comma-separated list wrapped near 100 columns.
fn wrapped_list(out: &mut String, items: &[String]) {
    let mut line = String::from("   ");
    for (idx, item) in items.iter().enumerate() {
        let piece = if idx + 1 < items.len() {
            format!(" {item},")
        } else {
            format!(" {item}")
        };
        if line.len() > 3 && line.len() + piece.len() > 100 {
            let _ = writeln!(out, "{line}");
            line = String::from("   ");
        }
        line.push_str(&piece);
    }
    if line.len() > 3 {
        let _ = writeln!(out, "{line}");
    }
}

/// The human-readable report.
fn human(report: &LintReport, fail_under: Option<f64>) -> String {
    let mut out = String::new();
    let summary = &report.summary;
    let _ = writeln!(
        out,
        "catalog lint: {} tools ({} probed, {} unavailable), retriever {}",
        report.catalog.tools, summary.tools_probed, summary.unavailable_tools, report.retriever
    );
    let _ = writeln!(out, "source {}\n", report.catalog.source_hash);
    let _ = writeln!(
        out,
        "findability: the tool's rank when searching its own text (no filters, limit {})",
        report.limit
    );
    let _ = writeln!(
        out,
        "{:<10} {:>6} {:>7} {:>7} {:>10}",
        "by", "probes", "rank 1", "top 5", "not found"
    );
    for (name, f) in [
        ("title", &summary.by_title),
        ("summary", &summary.by_summary),
        ("use_when", &summary.by_use_when),
    ] {
        let _ = writeln!(
            out,
            "{name:<10} {:>6} {:>7.3} {:>7.3} {:>10}",
            f.probes, f.rank1, f.top5, f.not_found
        );
    }
    let _ = write!(
        out,
        "\nscore (share found at rank 1 by its own summary): {:.3}",
        report.score
    );
    match fail_under {
        Some(threshold) if report.score < threshold => {
            let _ = writeln!(out, "  BELOW --fail-under {threshold}");
        }
        Some(threshold) => {
            let _ = writeln!(out, "  (--fail-under {threshold}: ok)");
        }
        None => out.push('\n'),
    }
    let p = &summary.problems;
    let _ = writeln!(out, "\nproblems");
    for (name, count, unit) in [
        ("shadowed_title", p.shadowed_title, "tools"),
        ("shadowed_summary", p.shadowed_summary, "tools"),
        (
            "use_when_outside_top5",
            p.use_when_outside_top5,
            "sentences",
        ),
        ("near_duplicate_titles", p.near_duplicate_titles, "pairs"),
        (
            "near_duplicate_summaries",
            p.near_duplicate_summaries,
            "pairs",
        ),
        ("missing_title", p.missing_title, "tools"),
        ("missing_summary", p.missing_summary, "tools"),
        ("missing_use_when", p.missing_use_when, "tools"),
        ("missing_avoid_when", p.missing_avoid_when, "tools"),
        ("undescribed_parameters", p.undescribed_parameters, "tools"),
        ("redundant_aliases", p.redundant_aliases, "aliases"),
        ("ambiguous_aliases", p.ambiguous_aliases, "aliases"),
    ] {
        let _ = writeln!(out, "  {name:<26} {count:>5} {unit}");
    }

    let shadowed: Vec<(&str, &LintTool, &Probe)> = report
        .tools
        .iter()
        .flat_map(|t| {
            [("title", &t.title), ("summary", &t.summary)]
                .into_iter()
                .filter_map(move |(field, probe)| {
                    probe
                        .as_ref()
                        .filter(|p| is_shadowed(p))
                        .map(|p| (field, t, p))
                })
        })
        .collect();
    if !shadowed.is_empty() {
        let _ = writeln!(
            out,
            "\nshadowed: another tool ranks first for the tool's own title or summary\n(`toolsearch why --query TEXT TOOL` shows which words decide it)"
        );
        for (field, tool, probe) in shadowed {
            let _ = writeln!(
                out,
                "  {field:<8} {}  rank {}  below {}",
                tool.canonical_path,
                rank_text(probe.rank),
                probe.outranked_by.join(", ")
            );
        }
    }
    if !report.near_duplicates.is_empty() {
        let _ = writeln!(
            out,
            "\nnear-duplicates (Jaccard of analyzer term sets >= {})",
            report.near_duplicate_threshold
        );
        for pair in &report.near_duplicates {
            let _ = writeln!(
                out,
                "  {:<8} {}  {}  {:.3}",
                pair.field, pair.tools[0], pair.tools[1], pair.similarity
            );
        }
    }
    let outside: Vec<(&LintTool, &Probe)> = report
        .tools
        .iter()
        .flat_map(|t| {
            t.use_when
                .iter()
                .filter(|p| p.rank.is_none_or(|r| r > TOP))
                .map(move |p| (t, p))
        })
        .collect();
    if !outside.is_empty() {
        let _ = writeln!(
            out,
            "\nuse_when sentences that miss their tool in the top 5"
        );
        for (tool, probe) in outside {
            let first = probe
                .error
                .clone()
                .or_else(|| probe.outranked_by.first().cloned())
                .unwrap_or_else(|| "nothing".to_string());
            let _ = writeln!(
                out,
                "  {}  rank {}  first {}  \"{}\"",
                tool.canonical_path,
                rank_text(probe.rank),
                first,
                probe.text.as_deref().unwrap_or_default()
            );
        }
    }
    for (code, heading) in [
        ("missing_title", "missing title"),
        ("missing_summary", "missing agent_summary"),
        ("missing_use_when", "missing use_when"),
        ("missing_avoid_when", "missing avoid_when"),
    ] {
        let tools: Vec<String> = report
            .tools
            .iter()
            .filter(|t| t.problems.iter().any(|p| p == code))
            .map(|t| t.canonical_path.clone())
            .collect();
        if !tools.is_empty() {
            let _ = writeln!(out, "\n{heading} ({})", tools.len());
            wrapped_list(&mut out, &tools);
        }
    }
    let undescribed: Vec<&LintTool> = report
        .tools
        .iter()
        .filter(|t| !t.undescribed_parameters.is_empty())
        .collect();
    if !undescribed.is_empty() {
        let _ = writeln!(out, "\nparameters without a description");
        for tool in undescribed {
            let _ = writeln!(
                out,
                "  {}  {}",
                tool.canonical_path,
                tool.undescribed_parameters.join(", ")
            );
        }
    }
    let aliases: Vec<(&LintTool, &AliasFinding)> = report
        .tools
        .iter()
        .flat_map(|t| t.aliases.iter().map(move |a| (t, a)))
        .collect();
    if !aliases.is_empty() {
        let _ = writeln!(out, "\naliases");
        for (tool, finding) in aliases {
            let detail = match &finding.lexical_first {
                Some(first) => format!(
                    "lexically first {first}, the tool at rank {}",
                    rank_text(finding.lexical_rank)
                ),
                None => "same as another CLI form of the tool".to_string(),
            };
            let _ = writeln!(
                out,
                "  {}  \"{}\"  {}: {detail}",
                tool.canonical_path, finding.alias, finding.problem
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(words: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn jaccard_of_sets() {
        assert_eq!(jaccard(&terms(&["a", "b"]), &terms(&["a", "b"])), 1.0);
        assert_eq!(jaccard(&terms(&["a", "b"]), &terms(&["b", "c"])), 1.0 / 3.0);
        assert_eq!(jaccard(&[], &[]), 0.0);
    }

    #[test]
    fn threshold_parsing() {
        assert_eq!(parse_threshold("0.8"), Ok(0.8));
        assert_eq!(parse_threshold("1"), Ok(1.0));
        for bad in ["1.5", "-0.1", "NaN", "80%", ""] {
            assert_eq!(
                parse_threshold(bad).map_err(|e| e.reason),
                Err(Reason::InvalidTransport),
                "{bad}"
            );
        }
    }

    #[test]
    fn schema_walk_finds_nested_undescribed_properties() {
        let schema = serde_json::json!({"type":"object","properties":{
            "a":{"type":"string","description":"A"},
            "b":{"type":"object","properties":{"c":{"type":"string"}}},
            "d":{"type":"array","description":"D","items":{"type":"object","properties":{"e":{"description":" "}}}}
        }});
        let mut out = Vec::new();
        walk_schema(&schema, "", &mut out);
        assert_eq!(out, vec!["b", "b.c", "d[].e"]);
    }
}
