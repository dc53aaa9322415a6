//! [`SearchOutcome`] → the exact response bytes: field cuts, the 8,192-byte budget, encoding.
//!
//! **Invariant:** a successful response plus its newline is at most
//! [`RESPONSE_BUDGET_BYTES`]; whole candidates are dropped from the end to get there
//! (`truncated: true`), and a response that cannot fit even with no candidate is the error
//! `request_too_large`.

use std::collections::BTreeMap;

use crate::catalog::Catalog;
use crate::error::{Error, Reason, Result};
use crate::limits::{MAX_REFERENCE_TEXT_SCALARS, RESPONSE_BUDGET_BYTES};
use crate::retrieve::Field;
use crate::search::SearchOutcome;
use crate::wire::{self, ExactFiltered, ScoreBreakdown, SearchResponse, ToolReference};

/// Cuts `text` to its first `max` Unicode scalars; returns whether it was cut.
fn cut(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((byte, _)) => (text[..byte].to_string(), true),
        None => (text.to_string(), false),
    }
}

/// Rounds a reported figure (explain scores, eval and lint ratios) to 1e-6, so reports stay
/// short and last-ulp differences of `ln` never show. The one place figures are rounded.
pub fn round_figure(value: f64) -> f64 {
    (value * 1e6).round() / 1e6
}

fn reference(
    catalog: &Catalog,
    outcome: &SearchOutcome,
    idx: usize,
    explain: bool,
) -> ToolReference {
    let candidate = &outcome.candidates[idx];
    let tool = catalog.tool(candidate.tool);
    let mut truncated_fields = Vec::new();
    let mut cut_field = |value: &Option<String>, name: &'static str| {
        value.as_deref().map(|text| {
            let (text, was_cut) = cut(text, MAX_REFERENCE_TEXT_SCALARS);
            if was_cut {
                truncated_fields.push(name.to_string());
            }
            text
        })
    };
    let title = cut_field(&tool.def.title, "title");
    let agent_summary = cut_field(&tool.def.agent_summary, "agent_summary");
    let score_breakdown = match (&candidate.hit, explain) {
        (Some(hit), true) => Some(ScoreBreakdown {
            total: round_figure(hit.score),
            fields: Field::ALL
                .iter()
                .zip(hit.fields.iter())
                .map(|(field, &score)| (field.as_str().to_string(), round_figure(score)))
                .collect::<BTreeMap<_, _>>(),
            multiplier: hit.multiplier,
            coverage: round_figure(hit.coverage),
        }),
        _ => None,
    };
    ToolReference {
        canonical_path: tool.def.canonical_path.clone(),
        primary_cli_path: tool.primary_cli_path().map(str::to_string),
        product_id: tool.product_id.clone(),
        title,
        agent_summary,
        effect: tool.def.effect,
        risk: tool.def.risk,
        confirmation: tool.def.confirmation,
        idempotency: tool.def.idempotency,
        rank: (idx + 1) as u32,
        matched_fields: candidate
            .matched_fields()
            .into_iter()
            .map(str::to_string)
            .collect(),
        rank_sources: vec![candidate.source.as_str().to_string()],
        truncated_fields,
        requires_inspect: true,
        score_breakdown,
    }
}

/// Encodes `value` as one JSON line (with the trailing newline).
pub fn encode_line<T: serde::Serialize>(value: &T) -> Result<String> {
    let mut line = serde_json::to_string(value).map_err(|e| {
        Error::new(
            Reason::OutputFailed,
            format!("cannot encode the response: {e}"),
        )
    })?;
    line.push('\n');
    Ok(line)
}

/// The error document line for `error` (what stderr, `serve` and `mcp` carry).
pub fn error_line(error: &Error) -> String {
    let document = wire::ErrorDocument {
        error: wire::ErrorBody {
            code: error.exit_code(),
            category: error.category().as_str().to_string(),
            message: error.message.clone(),
            reason: error.reason.as_str().to_string(),
        },
    };
    // Encoding a struct of strings and a number cannot fail; keep a fixed fallback anyway.
    encode_line(&document).unwrap_or_else(|_| {
        "{\"error\":{\"code\":5,\"category\":\"internal\",\"message\":\"cannot encode error\",\"reason\":\"output_failed\"}}\n".to_string()
    })
}

/// The response document for `outcome`, with every candidate.
pub fn response(catalog: &Catalog, outcome: &SearchOutcome, explain: bool) -> SearchResponse {
    SearchResponse {
        version: wire::SEARCH_VERSION.to_string(),
        catalog: catalog.version(),
        query: outcome.query.clone(),
        subqueries: outcome.subqueries.clone(),
        strategy: outcome.strategy.clone(),
        candidates: (0..outcome.candidates.len())
            .map(|idx| reference(catalog, outcome, idx, explain))
            .collect(),
        exact_filtered: outcome.exact_filtered.map(|(tool, reason)| ExactFiltered {
            canonical_path: catalog.tool(tool).def.canonical_path.clone(),
            reason: reason.as_str().to_string(),
        }),
        abstained: outcome.abstained,
        weak_match: outcome.weak_match,
        hint: outcome.hint.map(str::to_string),
        truncated: false,
    }
}

/// The exact bytes printed for `outcome`: one JSON document and `\n`, within the budget.
///
/// # Errors
/// `request_too_large` when even a response without candidates exceeds the budget.
pub fn render(catalog: &Catalog, outcome: &SearchOutcome, explain: bool) -> Result<String> {
    fit(catalog, outcome, explain).map(|(_, line)| line)
}

/// The response document that fits the budget, and its encoded line.
///
/// # Errors
/// As [`render`].
pub fn fit(
    catalog: &Catalog,
    outcome: &SearchOutcome,
    explain: bool,
) -> Result<(SearchResponse, String)> {
    let mut document = response(catalog, outcome, explain);
    let line = encode_line(&document)?;
    if line.len() <= RESPONSE_BUDGET_BYTES {
        return Ok((document, line));
    }
    document.truncated = true;
    while !document.candidates.is_empty() {
        document.candidates.pop();
        let line = encode_line(&document)?;
        if line.len() <= RESPONSE_BUDGET_BYTES {
            return Ok((document, line));
        }
    }
    Err(Error::new(
        Reason::RequestTooLarge,
        format!("the response cannot fit in {RESPONSE_BUDGET_BYTES} bytes even without candidates; shorten the query or subqueries"),
    ))
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn cut_counts_scalars_not_bytes() {
        assert_eq!(cut("发送消息", 2), ("发送".to_string(), true));
        assert_eq!(cut("abc", 3), ("abc".to_string(), false));
    }
}
