//! Structured `tool-search.v1` requests (always well-formed JSON, so the fuzzer spends its
//! time in validation, the exact guard, filters, retrieval, merging and the budget rather
//! than in the JSON parser).
#![no_main]

mod common;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

#[derive(Debug, Arbitrary)]
enum Limit {
    Small(u8),
    Any(i64),
    Huge(u64),
    Float(f64),
}

impl Limit {
    fn value(&self) -> Value {
        match self {
            Limit::Small(v) => json!(v % 24),
            Limit::Any(v) => json!(v),
            Limit::Huge(v) => json!(v),
            Limit::Float(v) => serde_json::Number::from_f64(*v).map_or(Value::Null, Value::Number),
        }
    }
}

#[derive(Debug, Arbitrary)]
struct Request {
    query: Option<String>,
    subqueries: Option<Vec<String>>,
    limit: Option<Limit>,
    candidate_limit: Option<Limit>,
    product_ids: Option<Vec<String>>,
    effects: Option<Vec<String>>,
    exclude_canonical: Option<Vec<String>>,
    /// Picks tools of the catalog to name in the query or the filters.
    tool_picks: Vec<u16>,
    explain: bool,
}

fuzz_target!(|input: Request| {
    let engine = common::engine();
    let tools = engine.catalog().tools();
    let pick = |n: u16| &tools[n as usize % tools.len()];
    let mut request = json!({"version": "tool-search.v1"});
    let mut query = input.query.clone();
    let mut excludes = input.exclude_canonical.clone().unwrap_or_default();
    let mut products = input.product_ids.clone().unwrap_or_default();
    for (idx, &n) in input.tool_picks.iter().take(4).enumerate() {
        let tool = pick(n);
        match idx {
            0 => {
                let key = match n % 3 {
                    0 => tool.def.canonical_path.clone(),
                    1 => tool.def.cli_path.clone().unwrap_or_default(),
                    _ => format!("dws {}", tool.primary_cli_path().unwrap_or_default()),
                };
                query = Some(match query {
                    Some(q) if n % 2 == 0 => format!("{key} {q}"),
                    _ => key,
                });
            }
            1 => excludes.push(tool.def.canonical_path.clone()),
            _ => products.push(tool.product_id.clone()),
        }
    }
    if let Some(q) = query {
        request["query"] = json!(q);
    }
    if let Some(s) = &input.subqueries {
        request["subqueries"] = json!(s);
    }
    if let Some(l) = &input.limit {
        request["limit"] = l.value();
    }
    if let Some(l) = &input.candidate_limit {
        request["candidate_limit"] = l.value();
    }
    if input.product_ids.is_some() || !products.is_empty() {
        request["product_ids"] = json!(products);
    }
    if let Some(e) = &input.effects {
        request["effects"] = json!(e);
    }
    if input.exclude_canonical.is_some() || !excludes.is_empty() {
        request["exclude_canonical"] = json!(excludes);
    }
    let bytes = serde_json::to_vec(&request).expect("encode");
    let answer = engine.search_bytes(&bytes, input.explain);
    common::check_search(&answer);
    if let Ok(line) = &answer {
        let value: Value = serde_json::from_str(line).expect("JSON");
        let mut seen = std::collections::BTreeSet::new();
        for candidate in value["candidates"].as_array().into_iter().flatten() {
            let path = candidate["canonical_path"].as_str().expect("canonical");
            assert!(seen.insert(path.to_string()), "duplicate {path}");
            assert!(
                !excludes.iter().any(|e| e.trim() == path),
                "excluded {path} returned"
            );
            let id = engine.catalog().by_canonical(path).expect("known tool");
            assert!(
                engine.catalog().tool(id).is_available(),
                "unavailable {path}"
            );
        }
    }
});
