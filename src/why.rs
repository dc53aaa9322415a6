//! `toolsearch why`: one request's lexical ranking explained term by term, for whoever tunes
//! the ranking or writes a catalog ("why is my tool not first?"). It answers the request as
//! `search` would, then prints every term the retriever weighed (and where it came from:
//! the request's own words or a join) and, for the answer's first tools and for any tool
//! named, each term's contribution per field, the multipliers and the score. A workflow case is
//! explained arm by arm, then its merged answer is listed as `eval` judges it, with the required
//! tools it lacks. Readable text, not a public document; the figures are the retriever's own
//! (`retrieve::Explanation`).

use std::fmt::Write as _;

use crate::catalog::{Catalog, ToolId};
use crate::error::{Error, Reason, Result};
use crate::retrieve::{Explanation, Field, Retriever, ToolScore};
use crate::search::{self, resolve_identity};
use crate::text::is_han;
use crate::{request, wire};

/// `toolsearch why`'s arguments.
#[derive(Debug, Default)]
pub struct WhyArgs {
    pub query: Option<String>,
    /// With `case`: a qrels file and the id of the case whose request is explained.
    pub qrels: Option<String>,
    pub case: Option<String>,
    /// How many of the answer's first tools to explain (default [`DEFAULT_LIMIT`]).
    pub limit: Option<String>,
    /// Tools to explain too, by canonical or CLI path.
    pub tools: Vec<String>,
    /// Retriever configuration overrides, as `eval --param`.
    pub params: Vec<(String, String)>,
}

/// One request to explain, with the tools it names and a note on each (how a case judged it).
struct Pending {
    /// The case and subquery it comes from (empty for `--query`).
    title: String,
    request: wire::SearchRequest,
    named: Vec<(String, String)>,
    /// For a workflow case's merged answer: its required tools (the answer is listed, not
    /// explained term by term).
    required: Option<Vec<String>>,
}

/// The answer's tools explained when `--limit` is not given.
pub const DEFAULT_LIMIT: usize = 3;

/// Runs `why` and returns its report.
///
/// # Errors
/// The request's validation reasons (as `search`), `unknown_tool` for a named tool the
/// catalog lacks, `invalid_qrels` for an unreadable qrels file or an unknown case,
/// `ambiguous_input` for both a query and a case, `unknown_retriever`, and
/// `invalid_transport` for a bad `--param` or a retriever that cannot explain its scores.
pub fn run(catalog: Catalog, retriever: &str, args: &WhyArgs) -> Result<String> {
    let limit = match &args.limit {
        None => DEFAULT_LIMIT as i64,
        Some(text) => text.parse::<i64>().map_err(|_| {
            Error::new(
                Reason::InvalidLimit,
                format!("`--limit` needs a whole number, found `{text}`"),
            )
        })?,
    };
    let mut requests: Vec<Pending> = Vec::new();
    let wire_request = |query: String, filters: Option<&wire::CaseFilters>| {
        crate::eval::case_request(query, Vec::new(), limit, filters)
    };
    let named: Vec<(String, String)> = args
        .tools
        .iter()
        .map(|tool| (tool.clone(), String::new()))
        .collect();
    if args.qrels.is_some() && args.case.is_none() {
        return Err(Error::new(
            Reason::InvalidTransport,
            "`--qrels` needs --case ID",
        ));
    }
    match (&args.query, &args.case) {
        (Some(_), Some(_)) => {
            return Err(Error::new(
                Reason::AmbiguousInput,
                "give either --query or --qrels with --case, not both",
            ))
        }
        (Some(query), None) => requests.push(Pending {
            title: String::new(),
            request: wire_request(query.clone(), None),
            named,
            required: None,
        }),
        (None, Some(id)) => {
            let path = args.qrels.as_deref().ok_or_else(|| {
                Error::new(Reason::InvalidTransport, "`--case` needs --qrels FILE")
            })?;
            let qrels = crate::eval::load_qrels(path)?;
            let case = qrels.cases.iter().find(|c| &c.id == id).ok_or_else(|| {
                Error::new(Reason::InvalidQrels, format!("{path}: no case `{id}`"))
            })?;
            // The case's judged tools (most relevant first), then its forbidden ones.
            let mut judged: Vec<(String, String)> = case
                .qrels
                .iter()
                .map(|j| (j.canonical.clone(), format!("judged {}", j.relevance)))
                .collect();
            judged.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            judged.extend(
                case.forbidden
                    .iter()
                    .map(|f| (f.clone(), "forbidden".to_string())),
            );
            judged.extend(named);
            let expect = match case.expect {
                Some(wire::Expect::Abstain) => " (expects abstain)",
                _ => "",
            };
            let arms: Vec<String> = match &case.workflow {
                Some(workflow) => workflow.subqueries.clone(),
                None => vec![case.query.clone()],
            };
            let count = arms.len();
            for (at, arm) in arms.into_iter().enumerate() {
                let (query, _) = crate::eval::cut_query(&arm);
                let title = if count > 1 {
                    format!("case {id}{expect}, subquery {} of {count}", at + 1)
                } else {
                    format!("case {id}{expect}")
                };
                // An arm is searched as a workflow searches it (its hits' confidence by ADR
                // 0006's rule, never the learned flag of a single request), and shown by its text.
                let request = if count > 1 {
                    let mut arm = crate::eval::case_request(
                        query.clone(),
                        vec![query.clone()],
                        limit,
                        case.filters.as_ref(),
                    );
                    arm.query = Some(query);
                    arm
                } else {
                    wire_request(query, case.filters.as_ref())
                };
                requests.push(Pending {
                    title,
                    request,
                    named: judged.clone(),
                    required: None,
                });
            }
            // A workflow's arms are merged into one answer, the one `eval` judges.
            if let Some(workflow) = &case.workflow {
                requests.push(Pending {
                    title: format!(
                        "case {id}, the merged answer (its {count} subqueries together, as eval asks)"
                    ),
                    request: crate::eval::judged_request(case).0,
                    named: judged,
                    required: Some(workflow.required.clone()),
                });
            }
        }
        (None, None) => {
            return Err(Error::new(
                Reason::InvalidTransport,
                "why needs --query Q, or --qrels FILE --case ID",
            ))
        }
    }
    let mut resolved = Vec::with_capacity(requests.len());
    for Pending {
        title,
        request: wire_request,
        named,
        required,
    } in requests
    {
        let validated = request::validate_search(&wire_request, &catalog)?;
        let resolve = |path: &str| {
            resolve_identity(&catalog, path).ok_or_else(|| {
                Error::new(
                    Reason::UnknownTool,
                    format!("no tool `{path}` in this catalog"),
                )
            })
        };
        let tools = named
            .iter()
            .map(|(path, note)| resolve(path).map(|tool| (tool, note.clone())))
            .collect::<Result<Vec<(ToolId, String)>>>()?;
        let required = required
            .map(|paths| {
                paths
                    .iter()
                    .map(|path| resolve(path))
                    .collect::<Result<Vec<ToolId>>>()
            })
            .transpose()?;
        resolved.push((title, validated, tools, required));
    }
    let engine = crate::eval::engine_with_params(catalog, retriever, &args.params)?;
    let mut out = String::new();
    for (at, (title, validated, named, required)) in resolved.iter().enumerate() {
        if at > 0 {
            out.push('\n');
        }
        if !title.is_empty() {
            let _ = writeln!(out, "{title}");
        }
        match required {
            Some(required) => write_merged(&mut out, &engine, validated, named, required)?,
            None => explain_request(&mut out, &engine, validated, named, &args.params)?,
        }
    }
    Ok(out)
}

/// A workflow's merged answer, as `eval` judges it: each candidate with its case note, then the
/// required tools it lacks.
fn write_merged(
    out: &mut String,
    engine: &crate::Engine,
    validated: &request::SearchRequest,
    named: &[(ToolId, String)],
    required: &[ToolId],
) -> Result<()> {
    let catalog = engine.catalog();
    let outcome = search::search(catalog, engine, validated);
    let (document, _) = crate::respond::fit(catalog, &outcome, false)?;
    let _ = writeln!(out, "answer     {}", document.strategy);
    let width = document
        .candidates
        .iter()
        .map(|c| c.canonical_path.chars().count())
        .max()
        .unwrap_or(0);
    for candidate in &document.candidates {
        let path = &candidate.canonical_path;
        let notes: Vec<&str> = named
            .iter()
            .filter(|(tool, note)| {
                !note.is_empty() && &catalog.tool(*tool).def.canonical_path == path
            })
            .map(|(_, note)| note.as_str())
            .collect();
        let line = format!(
            "  {:>2}  {path:<width$}  {}",
            candidate.rank,
            notes.join(", ")
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let missing: Vec<&str> = required
        .iter()
        .map(|&tool| catalog.tool(tool).def.canonical_path.as_str())
        .filter(|path| {
            !document
                .candidates
                .iter()
                .any(|c| c.canonical_path == *path)
        })
        .collect();
    if missing.is_empty() {
        let _ = writeln!(out, "complete   every required tool is in it");
    } else {
        let _ = writeln!(out, "missing    {}", missing.join(", "));
    }
    Ok(())
}

/// One request's report.
fn explain_request(
    out: &mut String,
    engine: &crate::Engine,
    validated: &request::SearchRequest,
    named: &[(ToolId, String)],
    params: &[(String, String)],
) -> Result<()> {
    let catalog = engine.catalog();
    let outcome = search::search(catalog, engine, validated);
    let query = validated.query.as_deref().unwrap_or_default();
    let _ = writeln!(out, "request    {query}");
    let _ = write!(
        out,
        "catalog    {} tools · retriever {}{} · answer {}",
        catalog.tools().len(),
        engine.name(),
        params_note(params),
        outcome.strategy
    );
    if outcome.weak_match {
        out.push_str(", weak_match");
    }
    if outcome.abstained {
        out.push_str(", abstained");
    }
    let bridged = crate::index::bridges(
        engine.catalog(),
        engine.config.lends(),
        engine.config.single_field,
    );
    if outcome.strategy != search::STRATEGY_EXACT_GUARD && bridged {
        // The index holds the lexicon's English bridge; the weak flag is the judge's (ADR 0020).
        out.push_str(if engine.config.lends().synonyms {
            " · English bridge and Han synonyms in the description field (docs/adr/0020)"
        } else {
            " · English bridge in the description field (docs/adr/0020)"
        });
    }
    let situated = crate::retrieve::lends(&engine.config, catalog).situations
        && !engine.config.single_field
        && crate::index::avoid_situations(catalog)
            .iter()
            .any(|lent| !lent.is_empty());
    if outcome.strategy != search::STRATEGY_EXACT_GUARD && situated {
        out.push_str(" · avoid_when clauses lent as use_when situations of the tools they name (docs/adr/0012)");
    }
    out.push('\n');
    if outcome.strategy == search::STRATEGY_EXACT_GUARD
        || outcome.strategy == search::STRATEGY_EXACT_FILTERED
    {
        let _ = writeln!(
            out,
            "\nThe request names a tool exactly (the exact guard): no lexical ranking to explain."
        );
        return Ok(());
    }

    // The whole lexical ranking, for the rank of a named tool beyond the answer.
    let eligible = validated.filters.eligible(catalog);
    if validated.subqueries.is_empty() {
        if let Some(verdict) = engine.verdict(query, &eligible) {
            let (doubt, threshold) = verdict.doubt;
            let _ = writeln!(
                out,
                "weak model {doubt:.3} that the catalog cannot serve this (a weak match above {threshold:.3}; docs/adr/0006)"
            );
            if let Some((sure, threshold)) = verdict.sure {
                let _ = writeln!(
                    out,
                    "sure model {sure:.3} that the first tool is right (offered alone above {threshold:.3} when no weak match; docs/adr/0018)"
                );
            }
            if let Some((tail, threshold)) = &verdict.tail {
                let _ = writeln!(
                    out,
                    "tail model, that a tool after the first is a tempting wrong one (dropped above {threshold:.3}; docs/adr/0019):"
                );
                for (tool, p) in tail {
                    let dropped = if verdict.tail_drops(*p) {
                        "  dropped"
                    } else {
                        ""
                    };
                    let _ = writeln!(
                        out,
                        "  {p:.3}  {}{dropped}",
                        catalog.tool(*tool).def.canonical_path
                    );
                }
            }
        }
    }
    // An arm (a request with subqueries) is ranked and explained as a workflow searches it.
    let role = if validated.subqueries.is_empty() {
        crate::retrieve::Role::Single
    } else {
        crate::retrieve::Role::Arm
    };
    let ranking = engine.rank(query, &eligible, catalog.tools().len(), role);
    let mut tools: Vec<ToolId> = outcome.candidates.iter().map(|c| c.tool).collect();
    for (tool, _) in named {
        if !tools.contains(tool) {
            tools.push(*tool);
        }
    }
    let explanation = engine.explain(query, &tools, role).ok_or_else(|| {
        Error::new(
            Reason::InvalidTransport,
            format!(
                "retriever `{}` does not score with BM25F and cannot be explained term by term",
                engine.name()
            ),
        )
    })?;
    write_terms(out, &explanation);
    for score in &explanation.tools {
        let rank = ranking.iter().position(|hit| hit.tool == score.tool);
        let notes: Vec<&str> = named
            .iter()
            .filter(|(tool, note)| *tool == score.tool && !note.is_empty())
            .map(|(_, note)| note.as_str())
            .collect();
        write_tool(out, catalog, &explanation, score, rank, &eligible, &notes);
        // A named tool that is not the answer's first: what the first one leads it by.
        if let Some(first) = explanation.tools.first().filter(|first| {
            first.tool != score.tool
                && !outcome.candidates.is_empty()
                && named.iter().any(|(tool, _)| *tool == score.tool)
                && !outcome.candidates.iter().any(|c| c.tool == score.tool)
        }) {
            write_lead(out, catalog, &explanation, first, score);
        }
    }
    Ok(())
}

/// How many terms each side of a lead lists.
const LEAD_TERMS: usize = 5;

/// The terms by which the answer's first tool leads `other` (each term's contribution times
/// its tool's multipliers, as in the scores), largest first, and those by which `other` leads.
fn write_lead(
    out: &mut String,
    catalog: &Catalog,
    explanation: &Explanation,
    first: &ToolScore,
    other: &ToolScore,
) {
    let scaled = |score: &ToolScore| {
        let scale = score.intent * score.coord_factor;
        let mut by_term = vec![0.0; explanation.terms.len()];
        for (at, part) in &score.parts {
            by_term[*at] = part.iter().sum::<f64>() * scale;
        }
        by_term
    };
    let (ahead, behind) = (scaled(first), scaled(other));
    let mut differences: Vec<(usize, f64)> = ahead
        .iter()
        .zip(&behind)
        .enumerate()
        .map(|(at, (a, b))| (at, a - b))
        .filter(|(_, d)| *d != 0.0)
        .collect();
    // Largest first; ties in term order (display only).
    differences.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let list = |items: &mut dyn Iterator<Item = &(usize, f64)>| {
        items
            .map(|(at, d)| format!("{} {:+.3}", explanation.terms[*at].text, d.abs()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let first_path = &catalog.tool(first.tool).def.canonical_path;
    let _ = writeln!(
        out,
        "  behind {first_path} by {:.3}",
        first.score - other.score
    );
    let leads = list(
        &mut differences
            .iter()
            .filter(|(_, d)| *d > 0.0)
            .take(LEAD_TERMS),
    );
    let trails = list(
        &mut differences
            .iter()
            .rev()
            .filter(|(_, d)| *d < 0.0)
            .take(LEAD_TERMS),
    );
    if !leads.is_empty() {
        let _ = writeln!(out, "    it gains most on:   {leads}");
    }
    if !trails.is_empty() {
        let _ = writeln!(out, "    this gains most on: {trails}");
    }
}

fn params_note(params: &[(String, String)]) -> String {
    if params.is_empty() {
        return String::new();
    }
    let joined: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("[{}]", joined.join(","))
}

/// The request's terms, their weights and where they came from.
fn write_terms(out: &mut String, explanation: &Explanation) {
    let own = explanation
        .terms
        .iter()
        .filter(|t| t.origin == crate::retrieve::Origin::Request)
        .count();
    let yes_no = |flag: bool| if flag { "yes" } else { "no" };
    let _ = writeln!(
        out,
        "intents    destructive tools weighed down: {} · lookup (read-only): {} · change: {} · coordination: {}",
        yes_no(explanation.penalize_destructive),
        yes_no(explanation.read_only),
        yes_no(explanation.change),
        if explanation.coord > 0.0 {
            format!("{:.2}", explanation.coord)
        } else {
            "off".to_string()
        }
    );
    if !explanation.product_prior.is_empty() {
        let lifted: Vec<String> = explanation
            .product_prior
            .iter()
            .map(|(product, prior)| format!("{product} ×{prior:.3}"))
            .collect();
        let _ = writeln!(
            out,
            "products   the product prior (docs/adr/0003) lifts {}",
            lifted.join(" · ")
        );
    }
    let _ = writeln!(
        out,
        "terms      {} the catalog uses ({own} of the request, {} joined); {} of the request's words it never uses; the user's words' idf {:.3}",
        explanation.terms.len(),
        explanation.terms.len() - own,
        explanation.unknown_words,
        explanation.own_idf_total
    );
    let _ = writeln!(out);
    let width = column_width(explanation.terms.iter().map(|t| t.text.as_str()));
    let _ = writeln!(
        out,
        "  {}  origin    weight     idf    tools  coverage  via",
        pad("term", width)
    );
    for term in &explanation.terms {
        let line = format!(
            "  {}  {:<8} {:>7.3} {:>7.3} {:>8}  {:<8}  {}",
            pad(&term.text, width),
            term.origin.name(),
            term.weight,
            term.idf,
            term.df,
            if term.counts_for_coverage { "yes" } else { "" },
            term.via.as_deref().unwrap_or("")
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// One tool's score: the totals, then each term it has, largest contribution first.
fn write_tool(
    out: &mut String,
    catalog: &Catalog,
    explanation: &Explanation,
    score: &ToolScore,
    rank: Option<usize>,
    eligible: &[bool],
    notes: &[&str],
) {
    let path = &catalog.tool(score.tool).def.canonical_path;
    let rank = match rank {
        Some(at) => format!("rank {}", at + 1),
        None if !eligible.get(score.tool as usize).copied().unwrap_or(false) => {
            "not eligible (filtered or unavailable)".to_string()
        }
        None => "unranked".to_string(),
    };
    let sum: f64 = score.fields.iter().sum();
    let _ = write!(out, "\n{rank}  {path}");
    if !notes.is_empty() {
        let _ = write!(out, "  ({})", notes.join(", "));
    }
    out.push('\n');
    if score.parts.is_empty() {
        let _ = writeln!(out, "  no term of the request occurs in this tool's fields");
        return;
    }
    let coverage = if explanation.own_idf_total > 0.0 {
        score.covered / explanation.own_idf_total
    } else {
        0.0
    };
    let _ = writeln!(
        out,
        "  score {:.3} = fields {:.3} × intents {:.3} × coordination {:.3}; coverage {:.3}",
        score.score, sum, score.intent, score.coord_factor, coverage
    );
    let width = column_width(
        score
            .parts
            .iter()
            .map(|&(at, _)| explanation.terms[at].text.as_str()),
    );
    let mut header = format!("  {}  origin    ", pad("term", width));
    let mut totals = format!("  {}            ", pad("fields", width));
    for (field, total) in Field::ALL.iter().zip(score.fields.iter()) {
        let _ = write!(header, " {:>11}", field.as_str());
        let _ = write!(totals, " {total:>11.3}");
    }
    let _ = writeln!(out, "{header}       total");
    let _ = writeln!(out, "{totals} {sum:>11.3}");
    let mut parts: Vec<&(usize, [f64; crate::retrieve::N_FIELDS])> = score.parts.iter().collect();
    // Largest first; ties in term order (display only: the sums above are in term order).
    parts.sort_by(|a, b| {
        let total = |p: &(usize, [f64; crate::retrieve::N_FIELDS])| p.1.iter().sum::<f64>();
        total(b).total_cmp(&total(a)).then(a.0.cmp(&b.0))
    });
    for (at, fields) in parts {
        let term = &explanation.terms[*at];
        let mut line = format!("  {}  {:<8}  ", pad(&term.text, width), term.origin.name());
        for part in fields {
            if *part == 0.0 {
                let _ = write!(line, " {:>11}", "·");
            } else {
                let _ = write!(line, " {part:>11.3}");
            }
        }
        let _ = writeln!(out, "{line} {:>11.3}", fields.iter().sum::<f64>());
    }
}

/// A text's width in a terminal: Han and full-width characters take two columns.
fn display_width(text: &str) -> usize {
    text.chars()
        .map(|ch| {
            if is_han(ch)
                || ('\u{ff01}'..='\u{ff60}').contains(&ch)
                || ('\u{3000}'..='\u{303f}').contains(&ch)
            {
                2
            } else {
                1
            }
        })
        .sum()
}

fn column_width<'a>(texts: impl Iterator<Item = &'a str>) -> usize {
    texts.map(display_width).max().unwrap_or(0).max(6)
}

/// `text` padded with spaces to `width` columns.
fn pad(text: &str, width: usize) -> String {
    let mut padded = text.to_string();
    for _ in display_width(text)..width {
        padded.push(' ');
    }
    padded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn han_characters_take_two_columns() {
        assert_eq!(display_width("日程"), 4);
        assert_eq!(display_width("add"), 3);
        assert_eq!(pad("日程", 6), "日程  ");
    }
}
