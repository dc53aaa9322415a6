//! Wire requests → validated requests: defaults, limits, Unicode rules, reason precedence.
//!
//! When several reasons apply, the first in the contract's order wins
//! (contract-dws.md; formats.md §5.2). Validation needs the catalog only for
//! `unknown_product`.

use crate::catalog::{is_well_formed_hash, Catalog};
use crate::error::{Error, Reason, Result};
use crate::filter::Filters;
use crate::json::parse_strict;
use crate::limits::*;
use crate::wire::{self, Effect};

/// A search request that passed validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchRequest {
    /// The trimmed query, if any (when absent, subqueries carry the search).
    pub query: Option<String>,
    /// Trimmed, non-empty, de-duplicated subqueries (empty = a single query search).
    pub subqueries: Vec<String>,
    pub limit: usize,
    pub candidate_limit: usize,
    pub filters: Filters,
}

impl SearchRequest {
    /// The `query` echoed in the response: the request query, else the subqueries joined by `" + "`.
    pub fn echo_query(&self) -> String {
        match &self.query {
            Some(query) => query.clone(),
            None => self.subqueries.join(" + "),
        }
    }
}

/// An inspect request that passed validation (hashes are checked by `inspect`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InspectRequest {
    pub path: String,
    pub expected_source_hash: String,
    pub expected_surface_hash: String,
}

fn fail(reason: Reason, message: impl Into<String>) -> Error {
    Error::new(reason, message)
}

/// Parses request bytes as one JSON object of type `T` (size and JSON rules).
///
/// # Errors
/// `request_too_large`, `invalid_request_json`.
pub fn parse_document<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    if bytes.len() > MAX_REQUEST_BYTES {
        return Err(fail(
            Reason::RequestTooLarge,
            format!(
                "the request is {} bytes; at most {MAX_REQUEST_BYTES} are accepted",
                bytes.len()
            ),
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        fail(
            Reason::InvalidRequestJson,
            format!("the request is not UTF-8: {e}"),
        )
    })?;
    if !text.trim_start().starts_with('{') {
        return Err(fail(
            Reason::InvalidRequestJson,
            "the request must be one JSON object",
        ));
    }
    parse_strict(text).map_err(|e| fail(Reason::InvalidRequestJson, e))
}

/// How a bad `version` value is named in an error message (cut to 64 scalars).
fn describe_version(version: Option<&str>) -> String {
    match version {
        None => "no version".to_string(),
        Some(text) => format!("\"{}\"", text.chars().take(64).collect::<String>()),
    }
}

/// Returns true if and only if `ch` is rejected in queries and filter values.
pub fn is_dangerous(ch: char) -> bool {
    let code = ch as u32;
    (code < 0x20 && ch != '\t' && ch != '\n')
        || code == 0x7f
        || (0x200b..=0x200d).contains(&code)
        || code == 0xfeff
        || (0x202a..=0x202e).contains(&code)
        || (0x2028..=0x2029).contains(&code)
        || (0x2066..=0x2069).contains(&code)
}

fn integer_field(value: Option<&serde_json::Number>, field: &str) -> Result<Option<i128>> {
    match value {
        None => Ok(None),
        Some(number) => {
            if let Some(v) = number.as_u64() {
                Ok(Some(i128::from(v)))
            } else if let Some(v) = number.as_i64() {
                Ok(Some(i128::from(v)))
            } else {
                Err(fail(
                    Reason::InvalidRequestJson,
                    format!("`{field}` must be an integer, found {number}"),
                ))
            }
        }
    }
}

/// Applies the `limit` / `candidate_limit` rule: 0 or absent = default; otherwise 1..=max.
fn check_limit(
    value: Option<i128>,
    default: u64,
    max: u64,
    reason: Reason,
    field: &str,
) -> Result<usize> {
    match value {
        None | Some(0) => Ok(default as usize),
        Some(v) if v >= 1 && v <= i128::from(max) => Ok(v as usize),
        Some(v) => Err(fail(
            reason,
            format!("`{field}` must be between 1 and {max} (0 = default {default}), found {v}"),
        )),
    }
}

fn check_query_text(text: &str, what: &str) -> Result<()> {
    let scalars = text.chars().count();
    if scalars > MAX_QUERY_SCALARS || text.len() > MAX_QUERY_BYTES {
        return Err(fail(
            Reason::QueryTooLong,
            format!(
                "{what} has {scalars} Unicode scalars / {} bytes; at most {MAX_QUERY_SCALARS} scalars and {MAX_QUERY_BYTES} bytes",
                text.len()
            ),
        ));
    }
    Ok(())
}

fn check_query_unicode(raw: &str, what: &str) -> Result<()> {
    if let Some(ch) = raw.chars().find(|&c| is_dangerous(c)) {
        return Err(fail(
            Reason::DangerousQueryUnicode,
            format!(
                "{what} contains the forbidden character U+{:04X}",
                ch as u32
            ),
        ));
    }
    Ok(())
}

/// Trims, drops empties, de-duplicates and sorts a filter list.
fn clean_list(values: &[String]) -> Vec<String> {
    let mut out: Vec<String> = values
        .iter()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Validates a `tool-search.v1` request against the contract and the catalog.
///
/// # Errors
/// Every search validation reason from `unsupported_version` on, in contract order.
pub fn validate_search(request: &wire::SearchRequest, catalog: &Catalog) -> Result<SearchRequest> {
    match request.version.as_deref() {
        Some(wire::SEARCH_VERSION) => {}
        other => {
            return Err(fail(
                Reason::UnsupportedVersion,
                format!(
                    "`version` must be \"{}\", found {}",
                    wire::SEARCH_VERSION,
                    describe_version(other)
                ),
            ))
        }
    }

    // Subqueries: trimmed, empties dropped, de-duplicated in order.
    let raw_subqueries = request.subqueries.as_deref().unwrap_or(&[]);
    let mut subqueries: Vec<String> = Vec::new();
    for raw in raw_subqueries {
        let trimmed = raw.trim();
        if !trimmed.is_empty() && !subqueries.iter().any(|s| s == trimmed) {
            subqueries.push(trimmed.to_string());
        }
    }
    if !raw_subqueries.is_empty() && subqueries.is_empty() {
        return Err(fail(
            Reason::SubqueryRequired,
            "`subqueries` holds only empty strings",
        ));
    }
    if subqueries.len() > MAX_SUBQUERIES {
        return Err(fail(
            Reason::TooManySubqueries,
            format!(
                "{} distinct subqueries; at most {MAX_SUBQUERIES}",
                subqueries.len()
            ),
        ));
    }
    let subquery_bytes: usize = subqueries.iter().map(String::len).sum();
    if subquery_bytes > MAX_SUBQUERIES_BYTES {
        return Err(fail(
            Reason::SubqueriesTooLarge,
            format!("the subqueries hold {subquery_bytes} bytes; at most {MAX_SUBQUERIES_BYTES}"),
        ));
    }

    let query = request
        .query
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .map(str::to_string);
    if query.is_none() && subqueries.is_empty() {
        return Err(fail(
            Reason::QueryRequired,
            "`query` (or `subqueries`) is required",
        ));
    }
    if let Some(query) = &query {
        check_query_text(query, "`query`")?;
    }
    for subquery in &subqueries {
        check_query_text(subquery, "a subquery")?;
    }
    if let Some(raw) = &request.query {
        check_query_unicode(raw, "`query`")?;
    }
    for raw in raw_subqueries {
        check_query_unicode(raw, "a subquery")?;
    }

    let limit = check_limit(
        integer_field(request.limit.as_ref(), "limit")?,
        DEFAULT_LIMIT,
        MAX_LIMIT,
        Reason::InvalidLimit,
        "limit",
    )?;
    let candidate_limit = check_limit(
        integer_field(request.candidate_limit.as_ref(), "candidate_limit")?,
        DEFAULT_CANDIDATE_LIMIT,
        MAX_CANDIDATE_LIMIT,
        Reason::InvalidCandidateLimit,
        "candidate_limit",
    )?
    .max(limit);

    let product_ids = request.product_ids.as_deref().unwrap_or(&[]);
    let effects = request.effects.as_deref().unwrap_or(&[]);
    let exclude = request.exclude_canonical.as_deref().unwrap_or(&[]);
    for value in product_ids.iter().chain(effects).chain(exclude) {
        if let Some(ch) = value.chars().find(|&c| is_dangerous(c)) {
            return Err(fail(
                Reason::DangerousFilterUnicode,
                format!(
                    "a filter value contains the forbidden character U+{:04X}",
                    ch as u32
                ),
            ));
        }
    }
    let mut effect_values = Vec::new();
    for effect in clean_list(effects) {
        let lowered = effect.to_lowercase();
        match Effect::ALL.iter().find(|e| e.as_str() == lowered) {
            Some(e) => effect_values.push(*e),
            None => {
                return Err(fail(
                    Reason::InvalidEffect,
                    format!("effect `{effect}` is not one of read, write, destructive"),
                ))
            }
        }
    }
    effect_values.sort();
    effect_values.dedup();
    let product_ids = clean_list(product_ids);
    if let Some(unknown) = product_ids.iter().find(|p| !catalog.has_product(p)) {
        return Err(fail(
            Reason::UnknownProduct,
            format!("product `{unknown}` is not in the catalog"),
        ));
    }

    Ok(SearchRequest {
        query,
        subqueries,
        limit,
        candidate_limit,
        filters: Filters {
            product_ids,
            effects: effect_values,
            exclude_canonical: clean_list(exclude),
        },
    })
}

/// Validates a `schema-inspect.v1` request. Hash *values* are compared by `inspect`.
///
/// # Errors
/// `unsupported_version`, `incomplete_catalog_version`, `invalid_catalog_version`,
/// `invalid_request_json` (no path).
pub fn validate_inspect(request: &wire::InspectRequest) -> Result<InspectRequest> {
    match request.version.as_deref() {
        Some(wire::INSPECT_VERSION) => {}
        other => {
            return Err(fail(
                Reason::UnsupportedVersion,
                format!(
                    "`version` must be \"{}\", found {}",
                    wire::INSPECT_VERSION,
                    describe_version(other)
                ),
            ))
        }
    }
    let (source, surface) = match (&request.expected_source_hash, &request.expected_surface_hash) {
        (Some(source), Some(surface)) => (source.clone(), surface.clone()),
        _ => {
            return Err(fail(
                Reason::IncompleteCatalogVersion,
                "both `expected_source_hash` and `expected_surface_hash` are required (take them from the search response)",
            ))
        }
    };
    for hash in [&source, &surface] {
        if !is_well_formed_hash(hash) {
            return Err(fail(
                Reason::InvalidCatalogVersion,
                format!("`{hash}` is not \"sha256:\" followed by 64 lowercase hex digits"),
            ));
        }
    }
    let path = request
        .canonical_path
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| fail(Reason::InvalidRequestJson, "`canonical_path` is required"))?;
    Ok(InspectRequest {
        path: path.to_string(),
        expected_source_hash: source,
        expected_surface_hash: surface,
    })
}
