//! Property tests of `tool-search.v1` against the embedded catalog, through the library API
//! (`toolsearch::Engine::search_bytes`, the same function the binary calls per request).
//!
//! For arbitrary Unicode queries, subqueries, filters and limits: no panic; the answer is
//! either a schema-valid response or a typed validation error whose reason is the one the
//! contract's precedence order predicts (an independent oracle below) and whose exit code
//! is 3; a response is at most 8,192 bytes with its newline; ranks are 1..n; no candidate is
//! excluded, of another product or effect, or unavailable; no canonical appears twice; an
//! exact identity whose tool is filtered out yields `exact_filtered` with the right reason;
//! adding an `exclude_canonical` never brings in a candidate that the request without it
//! would not have ranked; the same request gives the same bytes twice, and from a second,
//! independently built engine; candidate pruning never changes a byte; a retriever's best
//! `k` hits are the first `k` of its best 100, bit for bit; `toolsearch why`'s explanation of
//! a hit adds up to its fields and score bit for bit; the quoted-span
//! splitter (ADR 0010) partitions any request without losing a character.
//!
//! 256 cases per property keep the suite fast; `PROPTEST_CASES=10000 cargo test --test
//! properties` runs a longer campaign.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{json, Value};
use toolsearch::catalog::{Catalog, ToolEntry};
use toolsearch::error::{Category, Error};
use toolsearch::Engine;

const BUDGET: usize = 8_192;

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let catalog = toolsearch::cli::load_catalog(None).expect("embedded catalog loads");
        Engine::new(catalog, "fielded_bm25").expect("default retriever")
    })
}

/// A second engine over a second parse of the same catalog: answers must not depend on
/// which process-local instance (hash seeds, allocation order) produced them.
fn second_engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let catalog = toolsearch::cli::load_catalog(None).expect("embedded catalog loads");
        Engine::new(catalog, "fielded_bm25").expect("default retriever")
    })
}

/// The default retriever without docs/adr/0018's sure cut (nor docs/adr/0019's tail cut, which
/// needs it): every answer offers up to `limit` tools, so answers compare as rankings.
fn uncut_engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| engine_with("learned_sure", "false"))
}

/// The default retriever over the embedded catalog with one knob set (as `eval --param`).
fn engine_with(key: &str, value: &str) -> Engine {
    let catalog = toolsearch::cli::load_catalog(None).expect("embedded catalog loads");
    Engine::with_params(catalog, "fielded_bm25", &[(key.into(), value.into())])
        .expect("default retriever")
}

/// The answer of the uncut engine, checked like any answer (a refused request is rejected).
fn uncut_answer(request: &Value) -> Result<Value, TestCaseError> {
    let bytes = serde_json::to_vec(request).expect("encode request");
    match uncut_engine().search_bytes(&bytes, false) {
        Ok(line) => check_response(request, &line),
        Err(_) => Err(TestCaseError::reject("refused request")),
    }
}

/// The default retriever with candidate pruning switched off: every eligible tool scored.
fn unpruned_engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| engine_with("prune", "false"))
}

/// The default retriever with pruning's deferred dense lists switched on at any catalog size
/// (`defer_min_tools` 0; by default only from 10,000 tools): the embedded catalog exercises
/// that path too.
fn deferring_engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| engine_with("defer_min_tools", "0"))
}

/// The explained answer of `engine` (or its error's reason).
fn explained(engine: &Engine, request: &Value) -> String {
    match engine.search_bytes(request.to_string().as_bytes(), true) {
        Ok(line) => line,
        Err(error) => format!("error {}", error.reason.as_str()),
    }
}

/// The explained answers of the pruned and the unpruned engine (or both errors' reasons).
fn explained_both(request: &Value) -> (String, String) {
    (
        explained(engine(), request),
        explained(unpruned_engine(), request),
    )
}

fn catalog() -> &'static Catalog {
    engine().catalog()
}

/// The default retriever over the embedded catalog, for checks below the request layer.
fn retriever() -> &'static dyn toolsearch::retrieve::Retriever {
    static RETRIEVER: OnceLock<Box<dyn toolsearch::retrieve::Retriever>> = OnceLock::new();
    RETRIEVER
        .get_or_init(|| toolsearch::retrieve::build("fielded_bm25", catalog()).expect("default"))
        .as_ref()
}

/// The best `depth` hits are the first `depth` of the best 100, bit for bit (the engine asks a
/// single query for only `limit` hits; subqueries for `candidate_limit`).
fn shallow_is_a_prefix_of_deep(query: &str, eligible: &[bool]) -> Result<(), TestCaseError> {
    let bits = |hits: &[toolsearch::retrieve::Hit]| -> Vec<(u32, u64, Vec<u64>, u64, u64, bool)> {
        hits.iter()
            .map(|h| {
                (
                    h.tool,
                    h.score.to_bits(),
                    h.fields.iter().map(|f| f.to_bits()).collect(),
                    h.multiplier.to_bits(),
                    h.coverage.to_bits(),
                    h.confident,
                )
            })
            .collect()
    };
    let deep = bits(&retriever().search(query, eligible, 100));
    for depth in [1, 5, 20] {
        let shallow = bits(&retriever().search(query, eligible, depth));
        prop_assert_eq!(
            &shallow[..],
            &deep[..depth.min(deep.len())],
            "{:?} depth {}",
            query,
            depth
        );
    }
    Ok(())
}

fn response_schema() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("schemas/tool-search.v1.response.schema.json");
        let schema: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("schema file"))
                .expect("schema JSON");
        jsonschema::draft202012::new(&schema).expect("schema compiles")
    })
}

fn product_ids() -> Vec<String> {
    catalog().products().iter().map(|p| p.id.clone()).collect()
}

fn canonicals() -> Vec<String> {
    catalog()
        .tools()
        .iter()
        .map(|t| t.def.canonical_path.clone())
        .collect()
}

// ------------------------------------------------------------------------------------------
// The oracle: the contract's validation rules, written independently of src/request.rs.

/// contract-dws.md: C0 controls except tab and newline, DEL, U+200B–U+200D, U+FEFF,
/// U+202A–U+202E, U+2028–U+2029, U+2066–U+2069.
fn forbidden(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}')
        || matches!(
            c,
            '\u{200b}'..='\u{200d}'
                | '\u{feff}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2028}'..='\u{2029}'
                | '\u{2066}'..='\u{2069}'
        )
}

fn too_long(text: &str) -> bool {
    text.chars().count() > 256 || text.len() > 2048
}

/// The reason the contract predicts for a well-formed JSON request object, or `None` if it
/// must be answered.
fn expected_reason(request: &Value) -> Option<&'static str> {
    if request.get("version").and_then(Value::as_str) != Some("tool-search.v1") {
        return Some("unsupported_version");
    }
    let strings = |key: &str| -> Vec<String> {
        request
            .get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|v| v.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let raw_subqueries = strings("subqueries");
    let mut subqueries: Vec<String> = Vec::new();
    for raw in &raw_subqueries {
        let trimmed = raw.trim().to_string();
        if !trimmed.is_empty() && !subqueries.contains(&trimmed) {
            subqueries.push(trimmed);
        }
    }
    if !raw_subqueries.is_empty() && subqueries.is_empty() {
        return Some("subquery_required");
    }
    if subqueries.len() > 8 {
        return Some("too_many_subqueries");
    }
    if subqueries.iter().map(String::len).sum::<usize>() > 2048 {
        return Some("subqueries_too_large");
    }
    let raw_query = request.get("query").and_then(Value::as_str);
    let query = raw_query.map(str::trim).filter(|q| !q.is_empty());
    if query.is_none() && subqueries.is_empty() {
        return Some("query_required");
    }
    if query.is_some_and(too_long) || subqueries.iter().any(|s| too_long(s)) {
        return Some("query_too_long");
    }
    if raw_query.is_some_and(|q| q.chars().any(forbidden))
        || raw_subqueries.iter().any(|s| s.chars().any(forbidden))
    {
        return Some("dangerous_query_unicode");
    }
    // Absent is fine; an integer must be 0 (default) or 1..=max; u64 beyond i64 is out of range.
    let in_range = |key: &str, max: i64| match request.get(key) {
        None => true,
        Some(v) => v.as_i64().is_some_and(|v| (0..=max).contains(&v)),
    };
    if !in_range("limit", 20) {
        return Some("invalid_limit");
    }
    if !in_range("candidate_limit", 100) {
        return Some("invalid_candidate_limit");
    }
    let products = strings("product_ids");
    let effects = strings("effects");
    let excludes = strings("exclude_canonical");
    if products
        .iter()
        .chain(&effects)
        .chain(&excludes)
        .any(|v| v.chars().any(forbidden))
    {
        return Some("dangerous_filter_unicode");
    }
    if effects
        .iter()
        .map(|e| e.trim().to_lowercase())
        .any(|e| !e.is_empty() && !["read", "write", "destructive"].contains(&e.as_str()))
    {
        return Some("invalid_effect");
    }
    let known = product_ids();
    if products
        .iter()
        .map(|p| p.trim())
        .any(|p| !p.is_empty() && !known.iter().any(|k| k == p))
    {
        return Some("unknown_product");
    }
    None
}

/// The filter reason (contract order) that makes `tool` ineligible for `request`.
fn filter_reason(tool: &ToolEntry, request: &Value) -> Option<&'static str> {
    let cleaned = |key: &str| -> Vec<String> {
        request
            .get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    if cleaned("exclude_canonical").contains(&tool.def.canonical_path) {
        return Some("excluded");
    }
    let products = cleaned("product_ids");
    if !products.is_empty() && !products.contains(&tool.product_id) {
        return Some("product_mismatch");
    }
    let effects: Vec<String> = cleaned("effects")
        .iter()
        .map(|e| e.to_lowercase())
        .collect();
    if !effects.is_empty()
        && !tool
            .def
            .effect
            .is_some_and(|e| effects.iter().any(|x| x == e.as_str()))
    {
        return Some("effect_mismatch");
    }
    if tool.def.availability.as_deref().unwrap_or("available") != "available" {
        return Some("unavailable");
    }
    None
}

// ------------------------------------------------------------------------------------------
// Checks on one answer.

fn tool_of(canonical: &str) -> &'static ToolEntry {
    let id = catalog()
        .by_canonical(canonical)
        .unwrap_or_else(|| panic!("response names unknown tool {canonical}"));
    catalog().tool(id)
}

fn candidate_paths(response: &Value) -> Vec<String> {
    response["candidates"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| c["canonical_path"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Answers `request` and checks every invariant; returns the parsed response on success.
fn answer(request: &Value) -> Result<Value, TestCaseError> {
    let bytes = serde_json::to_vec(request).expect("encode request");
    let first = engine().search_bytes(&bytes, false);
    let again = engine().search_bytes(&bytes, false);
    prop_assert_eq!(&first, &again, "same request, same bytes");
    let other = second_engine().search_bytes(&bytes, false);
    prop_assert_eq!(&first, &other, "a second engine gives the same bytes");
    let predicted = expected_reason(request);
    match first {
        Err(error) => {
            check_error(&error)?;
            let reason = error.reason.as_str();
            match predicted {
                Some(want) => prop_assert_eq!(reason, want, "{}", error.message),
                // A request the contract accepts can still be refused because its echo
                // (query + subqueries) cannot fit the response budget.
                None => {
                    prop_assert_eq!(reason, "request_too_large", "{}", error.message);
                    let echo: usize = request.to_string().len();
                    prop_assert!(echo > BUDGET / 4, "small request refused as too large");
                }
            }
            Err(TestCaseError::reject("refused request"))
        }
        Ok(line) => {
            prop_assert!(
                predicted.is_none(),
                "predicted {:?}, got an answer",
                predicted
            );
            check_response(request, &line)
        }
    }
}

fn check_error(error: &Error) -> Result<(), TestCaseError> {
    prop_assert_eq!(error.category(), Category::Validation);
    prop_assert_eq!(error.exit_code(), 3);
    prop_assert!(!error.message.is_empty());
    let line = toolsearch::cli::error_line(error);
    let value: Value = serde_json::from_str(&line).expect("error line is JSON");
    prop_assert_eq!(value["error"]["code"].as_i64(), Some(3));
    prop_assert_eq!(
        value["error"]["reason"].as_str(),
        Some(error.reason.as_str())
    );
    Ok(())
}

fn check_response(request: &Value, line: &str) -> Result<Value, TestCaseError> {
    prop_assert!(line.len() <= BUDGET, "{} bytes", line.len());
    prop_assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
    let response: Value = serde_json::from_str(line).expect("response is JSON");
    let errors: Vec<String> = response_schema()
        .iter_errors(&response)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    prop_assert!(errors.is_empty(), "schema: {:?}", errors);
    prop_assert_eq!(&response["catalog"]["source_hash"], catalog().source_hash());
    let candidates = response["candidates"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let ranks: Vec<i64> = candidates
        .iter()
        .map(|c| c["rank"].as_i64().unwrap_or(0))
        .collect();
    prop_assert_eq!(ranks, (1..=candidates.len() as i64).collect::<Vec<_>>());
    let paths = candidate_paths(&response);
    let unique: BTreeSet<&String> = paths.iter().collect();
    prop_assert_eq!(
        unique.len(),
        paths.len(),
        "duplicate canonicals {:?}",
        paths
    );
    for path in &paths {
        let reason = filter_reason(tool_of(path), request);
        prop_assert!(reason.is_none(), "{} returned although {:?}", path, reason);
    }
    for candidate in &candidates {
        prop_assert_eq!(&candidate["requires_inspect"], &json!(true));
        prop_assert!(candidate.get("score_breakdown").is_none());
    }
    let strategy = response["strategy"].as_str().unwrap_or_default();
    let limit = request
        .get("limit")
        .and_then(Value::as_u64)
        .filter(|&l| l > 0)
        .unwrap_or(5) as usize;
    prop_assert!(paths.len() <= limit);
    let abstained = response.get("abstained") == Some(&json!(true));
    match strategy {
        "exact_filtered" | "decomposed_exact_filtered" => {
            prop_assert!(paths.is_empty() && abstained);
            prop_assert!(response.get("exact_filtered").is_some());
            prop_assert!(response.get("hint").is_none());
        }
        "exact_guard" => {
            prop_assert_eq!(paths.len(), 1);
            prop_assert_eq!(&candidates[0]["rank_sources"], &json!(["exact"]));
            prop_assert_eq!(&candidates[0]["matched_fields"], &json!(["identity"]));
        }
        "fielded_bm25" | "decomposed_round_robin" => {
            prop_assert!(response.get("exact_filtered").is_none());
            prop_assert_eq!(
                abstained,
                paths.is_empty() && response.get("truncated").is_none()
            );
            let hinted = abstained || response.get("weak_match").is_some();
            prop_assert_eq!(response.get("hint").is_some(), hinted);
        }
        other => prop_assert!(false, "unknown strategy {}", other),
    }
    Ok(response)
}

// ------------------------------------------------------------------------------------------
// Generators.

/// Text drawn from everything a query might hold: catalog words, CJK, identity fragments,
/// whitespace of every kind, forbidden characters, escapes-heavy ASCII and arbitrary scalars.
fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => prop::sample::select(vec![
            "发送", "消息", "撤回", "日程", "审批", "删除", "群", "的", "会议", "文档", "chat",
            "send", "message", "list", "calendar", "event", "todo", "read", "write", "dws",
            "mail", "approval", "PROC-2024-118", "Lisa", "帮我", "一下", "OA", "1", "2024",
            "evt_77310", "what's",
        ]).prop_map(str::to_string),
        // Values that add words of their own (ADR 0011's addenda) and English words with
        // WordNet relations (ADR 0014).
        1 => prop::sample::select(vec![
            "2023-03-08", "3月8日", "March", "8th", "the 8th of May", "13912345678",
            "+86 139 1234 5678", "(415) 555-0199", "$120", "350元", "9:30", "3pm", "下午三点",
            "taxi", "children", "arranged", "tunes",
        ]).prop_map(str::to_string),
        2 => prop::sample::select(canonicals()),
        2 => prop::sample::select(vec![
            " ", "  ", "\t", "\n", "\u{3000}", "\u{a0}", ".", "/", "_", "-", "\"", "\\", "'",
            "（", "）", "，", "。", "?", "*", "#", "@", "“", "”", "「", "」", "《", "》",
        ]).prop_map(str::to_string),
        1 => prop::sample::select(vec![
            "\u{200b}", "\u{200d}", "\u{feff}", "\u{202e}", "\u{2066}", "\u{2028}", "\u{7}",
            "\u{0}", "\u{7f}", "\u{1b}", "\r",
        ]).prop_map(str::to_string),
        1 => prop::sample::select(vec![
            "ｃｈａｔ．ｓｅｎｄ＿ｍｅｓｓａｇｅ", "é", "e\u{301}", "ﬁ", "Ⅸ", "𝕏", "😀", "👩‍💻", "ß",
            "İ", "ı", "Σ", "ς", "\u{300}", "\u{fdd0}", "\u{10ffff}", "龘",
        ]).prop_map(str::to_string),
        2 => any::<char>().prop_map(|c| c.to_string()),
        1 => "[a-z]{1,12}",
    ];
    prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

/// A long text, sometimes over the 256-scalar / 2,048-byte limits.
fn long_text() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["x", "发", "𝕏", "\\", "\"", " ", "e\u{301}"]),
        0usize..700,
    )
        .prop_map(|(unit, n)| unit.repeat(n))
}

fn query_text() -> impl Strategy<Value = String> {
    prop_oneof![8 => text(), 1 => long_text()]
}

fn filter_value(known: Vec<String>) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(known),
        1 => prop::sample::select(vec!["", " ", "nope", "CHAT", "chat\u{200b}", "\u{2066}x"])
            .prop_map(str::to_string),
        1 => prop::sample::select(product_ids()).prop_map(|p| format!(" {p} ")),
        1 => text(),
    ]
}

fn effect_value() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "read",
        "write",
        "destructive",
        "READ",
        " Write ",
        "",
        "execute",
        "rea d",
        "read\u{feff}",
    ])
    .prop_map(str::to_string)
}

fn limit_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => (0i64..=22).prop_map(Value::from),
        1 => (-3i64..=0).prop_map(Value::from),
        1 => (95i64..=105).prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
    ]
}

/// A `tool-search.v1` request object with any mix of fields.
fn request() -> impl Strategy<Value = Value> {
    (
        prop::option::weighted(0.85, query_text()),
        prop::option::weighted(0.25, prop::collection::vec(query_text(), 0..10)),
        prop::option::weighted(0.5, limit_value()),
        prop::option::weighted(0.3, limit_value()),
        prop::option::weighted(0.3, prop::collection::vec(filter_value(product_ids()), 0..4)),
        prop::option::weighted(0.3, prop::collection::vec(effect_value(), 0..4)),
        prop::option::weighted(0.3, prop::collection::vec(filter_value(canonicals()), 0..4)),
        prop::bool::weighted(0.03),
    )
        .prop_map(
            |(query, subqueries, limit, candidate_limit, products, effects, excludes, bad_version)| {
                let mut request = json!({"version": if bad_version { "tool-search.v0" } else { "tool-search.v1" }});
                let mut put = |key: &str, value: Option<Value>| {
                    if let Some(value) = value {
                        request[key] = value;
                    }
                };
                put("query", query.map(Value::from));
                put("subqueries", subqueries.map(Value::from));
                put("limit", limit);
                put("candidate_limit", candidate_limit);
                put("product_ids", products.map(Value::from));
                put("effects", effects.map(Value::from));
                put("exclude_canonical", excludes.map(Value::from));
                request
            },
        )
}

/// The spellings of an identity key an agent might send: as is, `dws`-prefixed, with
/// stretched whitespace, full-width, or split on dots and slashes.
fn spell(key: &str, style: u8) -> String {
    let full_width = |s: &str| -> String {
        s.chars()
            .map(|c| match c {
                ' ' => '\u{3000}',
                '!'..='~' => char::from_u32(c as u32 - 0x21 + 0xff01).unwrap_or(c),
                other => other,
            })
            .collect()
    };
    match style % 6 {
        0 => key.to_string(),
        1 if !key.contains('.') => format!("dws {key}"),
        2 => format!("  {}\t", key.replace(' ', "   ")),
        3 => full_width(key),
        4 if !key.contains('.') => key.replace(' ', "/"),
        5 if !key.contains('.') => format!("dws/{}", key.replace(' ', ".")),
        _ => key.to_string(),
    }
}

fn proptest_config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(256),
        max_global_rejects: 100_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(proptest_config())]

    /// Any request object: a valid answer or the predicted typed error; never a panic.
    #[test]
    fn arbitrary_requests_answer_or_fail_typed(request in request()) {
        match answer(&request) {
            Ok(_) => {}
            Err(TestCaseError::Reject(_)) => {}
            Err(failure) => return Err(failure),
        }
    }

    /// Valid queries only (no forbidden characters, in-range limits): always answered.
    #[test]
    fn valid_requests_are_always_answered(
        query in text().prop_filter("answerable", |q| !q.trim().is_empty() && !q.chars().any(forbidden)),
        limit in 0i64..=20,
        candidate_limit in 0i64..=100,
        products in prop::collection::vec(prop::sample::select(product_ids()), 0..3),
        effects in prop::collection::vec(prop::sample::select(vec!["read", "write", "destructive"]), 0..3),
        excludes in prop::collection::vec(prop::sample::select(canonicals()), 0..5),
    ) {
        let request = json!({"version":"tool-search.v1","query":query,"limit":limit,
            "candidate_limit":candidate_limit,"product_ids":products,"effects":effects,
            "exclude_canonical":excludes});
        prop_assert_eq!(expected_reason(&request), None);
        answer(&request)?;
    }

    /// Any spelling of any identity key resolves exactly; if the filters exclude the tool,
    /// the answer is `exact_filtered` with the first failing reason, never a fuzzy sibling.
    #[test]
    fn exact_identity_is_answered_or_exact_filtered(
        key_idx in any::<prop::sample::Index>(),
        style in any::<u8>(),
        products in prop::collection::vec(prop::sample::select(product_ids()), 0..3),
        effects in prop::collection::vec(prop::sample::select(vec!["read", "write", "destructive"]), 0..2),
        exclude_it in prop::bool::weighted(0.2),
    ) {
        let keys: Vec<(String, u32)> = catalog()
            .identity_keys()
            .map(|(k, id)| (k.to_string(), id))
            .collect();
        let (key, tool_id) = keys[key_idx.index(keys.len())].clone();
        let tool = catalog().tool(tool_id);
        let canonical = tool.def.canonical_path.clone();
        let excludes = if exclude_it { vec![canonical.clone()] } else { Vec::new() };
        let request = json!({"version":"tool-search.v1","query":spell(&key, style),
            "product_ids":products,"effects":effects,"exclude_canonical":excludes});
        let response = answer(&request)?;
        match filter_reason(tool, &request) {
            Some(reason) => {
                prop_assert_eq!(&response["strategy"], "exact_filtered", "{}", request);
                prop_assert_eq!(&response["exact_filtered"]["canonical_path"], &json!(canonical));
                prop_assert_eq!(&response["exact_filtered"]["reason"], reason);
            }
            None => {
                prop_assert_eq!(&response["strategy"], "exact_guard", "{}", request);
                prop_assert_eq!(candidate_paths(&response), vec![canonical]);
            }
        }
    }

    /// With subqueries, any arm naming a filtered-out tool fails the whole answer closed.
    #[test]
    fn an_exact_filtered_arm_fails_the_whole_answer(
        other in prop::collection::vec(text(), 0..4),
        position in any::<prop::sample::Index>(),
        excluded in prop::sample::select(canonicals()),
    ) {
        let mut subqueries: Vec<String> = other
            .into_iter()
            .filter(|s| !s.chars().any(forbidden) && !too_long(s))
            .collect();
        let at = position.index(subqueries.len() + 1);
        subqueries.insert(at, excluded.clone());
        subqueries.truncate(8);
        prop_assume!(subqueries.contains(&excluded));
        let request = json!({"version":"tool-search.v1","subqueries":subqueries,
            "exclude_canonical":[excluded]});
        let response = answer(&request)?;
        prop_assert_eq!(&response["strategy"], "decomposed_exact_filtered");
        prop_assert_eq!(&response["abstained"], &json!(true));
        prop_assert_eq!(candidate_paths(&response), Vec::<String>::new());
        // The first arm (in order) that names a filtered-out tool is reported: ours, unless an
        // earlier arm names an unavailable tool.
        let first_filtered = subqueries.iter().find_map(|arm| {
            let tool = catalog().tool(toolsearch::search::resolve_identity(catalog(), arm)?);
            filter_reason(tool, &request).map(|reason| (tool.def.canonical_path.clone(), reason))
        });
        let (canonical, reason) = first_filtered.expect("our arm is filtered");
        prop_assert_eq!(&response["exact_filtered"]["canonical_path"], &json!(canonical));
        prop_assert_eq!(&response["exact_filtered"]["reason"], reason);
    }

    /// Excluding a tool never adds a candidate to a ranking: the uncut answer with the exclusion
    /// is the uncut answer with one more slot, minus the excluded tool (scores do not depend on
    /// eligibility). The sure cut is a verdict on the whole answer, which an exclusion may change
    /// (see the next property).
    #[test]
    fn adding_an_exclusion_never_adds_a_candidate(
        query in text().prop_filter("answerable", |q| !q.trim().is_empty() && !q.chars().any(forbidden) && !too_long(q)),
        limit in 1i64..=19,
        candidate_limit in 0i64..=99,
        pick in any::<prop::sample::Index>(),
        products in prop::collection::vec(prop::sample::select(product_ids()), 0..2),
    ) {
        let base = json!({"version":"tool-search.v1","query":query,"limit":limit + 1,
            "candidate_limit":if candidate_limit == 0 { 21 } else { candidate_limit + 1 },
            "product_ids":products});
        answer(&base)?;
        let before = uncut_answer(&base)?;
        let before_paths = candidate_paths(&before);
        // Exclude one of the candidates (or any tool if there are none).
        let all = canonicals();
        let excluded = if before_paths.is_empty() {
            all[pick.index(all.len())].clone()
        } else {
            before_paths[pick.index(before_paths.len())].clone()
        };
        let mut narrowed = base.clone();
        narrowed["limit"] = json!(limit);
        narrowed["candidate_limit"] = json!(candidate_limit);
        narrowed["exclude_canonical"] = json!([excluded.clone()]);
        answer(&narrowed)?;
        let after = uncut_answer(&narrowed)?;
        let after_paths = candidate_paths(&after);
        prop_assert!(!after_paths.contains(&excluded));
        let allowed: Vec<String> = before_paths.iter().filter(|p| **p != excluded).cloned().collect();
        // The budget may have dropped the tail of either answer; what both show must agree.
        let common = allowed.len().min(after_paths.len());
        prop_assert_eq!(&after_paths[..common], &allowed[..common], "excluding {}", excluded);
        if before.get("truncated").is_none() {
            for path in &after_paths {
                prop_assert!(allowed.contains(path), "{} appeared after excluding {}", path, excluded);
            }
            if after.get("truncated").is_none() {
                prop_assert_eq!(after_paths.len(), allowed.len().min(limit as usize));
            }
        }
    }

    /// The learned cuts only ever shorten an answer: any request's answer is the uncut answer, or
    /// (the sure cut, docs/adr/0018) the uncut ranking's first candidate alone, or (the tail cut,
    /// docs/adr/0019) the first `limit` of the uncut ranking's first five in order less some after
    /// the first; and a cut answer is never a weak match.
    #[test]
    fn a_cut_answer_keeps_the_first_of_the_full_answer_in_order(
        query in text().prop_filter("answerable", |q| !q.trim().is_empty() && !q.chars().any(forbidden) && !too_long(q)),
        limit in 1i64..=20,
        products in prop::collection::vec(prop::sample::select(product_ids()), 0..2),
        excludes in prop::collection::vec(prop::sample::select(canonicals()), 0..3),
    ) {
        let request = json!({"version":"tool-search.v1","query":query,"limit":limit,
            "product_ids":products,"exclude_canonical":excludes});
        let cut = answer(&request)?;
        let mut wide = request.clone();
        wide["limit"] = json!(limit.max(5));
        let full = uncut_answer(&wide)?;
        let (cut_paths, full_paths) = (candidate_paths(&cut), candidate_paths(&full));
        let n = full_paths.len().min(limit as usize);
        if cut_paths[..] != full_paths[..n] {
            prop_assert!(cut.get("weak_match").is_none());
            prop_assert!(cut_paths.len() <= limit as usize);
            prop_assert_eq!(cut_paths.first(), full_paths.first());
            let mut rest = full_paths[..full_paths.len().min(5)].iter();
            for path in &cut_paths {
                prop_assert!(rest.any(|p| p == path), "{:?} is not in order within {:?}", cut_paths, full_paths);
            }
        }
    }

    /// Candidate pruning is exact: with and without it, the same bytes (scores, fields and
    /// coverage included), for any query, limits and filters.
    #[test]
    fn pruning_changes_nothing(
        query in text(),
        limit in 0i64..=20,
        candidate_limit in 0i64..=100,
        products in prop::collection::vec(prop::sample::select(product_ids()), 0..2),
        effects in prop::collection::vec(prop::sample::select(vec!["read", "write", "destructive"]), 0..2),
        subqueries in prop::collection::vec(text(), 0..3),
    ) {
        let request = json!({"version":"tool-search.v1","query":query,"limit":limit,
            "candidate_limit":candidate_limit,"product_ids":products,"effects":effects,
            "subqueries":subqueries});
        let (pruned, unpruned) = explained_both(&request);
        prop_assert_eq!(&pruned, &unpruned);
        prop_assert_eq!(pruned, explained(deferring_engine(), &request));
    }
}

#[test]
fn the_oracle_agrees_with_known_cases() {
    let v = |extra: Value| {
        let mut request = json!({"version":"tool-search.v1","query":"发送消息"});
        for (key, value) in extra.as_object().expect("object") {
            request[key] = value.clone();
        }
        expected_reason(&request)
    };
    assert_eq!(v(json!({})), None);
    assert_eq!(v(json!({"query":"  "})), Some("query_required"));
    assert_eq!(v(json!({"limit":21})), Some("invalid_limit"));
    assert_eq!(
        v(json!({"product_ids":["nope\u{200b}"]})),
        Some("dangerous_filter_unicode")
    );
    assert_eq!(v(json!({"subqueries":[" "]})), Some("subquery_required"));
    assert_eq!(v(json!({"effects":[" READ "]})), None);
    for (request, reason) in [
        (
            json!({"version":"tool-search.v1","query":"a\u{2029}"}),
            "dangerous_query_unicode",
        ),
        (
            json!({"version":"tool-search.v1","query":"x","product_ids":["nope"]}),
            "unknown_product",
        ),
    ] {
        assert_eq!(expected_reason(&request), Some(reason));
        let error = engine()
            .search_bytes(request.to_string().as_bytes(), false)
            .expect_err("refused");
        assert_eq!(error.reason.as_str(), reason);
    }
}

/// Every judged query of qrels/dev.json and test.json, cut to the request limit.
fn judged_queries() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut queries = Vec::new();
    for file in ["qrels/dev.json", "qrels/test.json"] {
        queries.extend(case_texts(&root.join(file), false));
    }
    assert!(
        queries.len() >= 1_000,
        "only {} judged queries",
        queries.len()
    );
    queries
}

/// The requests of the qrels file at `path`, each cut to 256 characters as `eval` cuts them,
/// with each workflow's subqueries after its request when `subqueries`.
fn case_texts(path: &std::path::Path, subqueries: bool) -> Vec<String> {
    let qrels: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("qrels file"))
        .expect("qrels JSON");
    let mut texts = Vec::new();
    for case in qrels["cases"].as_array().expect("cases") {
        let arms = case["workflow"]["subqueries"]
            .as_array()
            .filter(|_| subqueries);
        for text in std::iter::once(&case["query"]).chain(arms.into_iter().flatten()) {
            texts.push(text.as_str().expect("text").chars().take(256).collect());
        }
    }
    texts
}

/// Pruning is exact on real queries too: every judged query, at several limits (a single
/// query is scored `limit` deep), answers the same bytes with and without it, and (at limit
/// 10, as eval asks) with its dense lists deferred.
#[test]
fn pruning_changes_nothing_on_judged_queries() {
    for query in judged_queries() {
        for limit in [1, 5, 20] {
            let request = json!({"version":"tool-search.v1","query":query,"limit":limit});
            let (pruned, unpruned) = explained_both(&request);
            assert_eq!(pruned, unpruned, "{request}");
        }
        let request = json!({"version":"tool-search.v1","query":query,"limit":10});
        assert_eq!(
            explained(engine(), &request),
            explained(deferring_engine(), &request),
            "{request}"
        );
    }
}

/// The explanation of `query`'s best 10 hits (`Retriever::explain`, which `toolsearch why`
/// prints) reproduces each hit's per-field sums, score and coverage bit for bit, and its parts
/// add up (in term order) to those sums: as a single request and as an arm.
fn explanation_adds_up(query: &str, eligible: &[bool]) -> Result<(), TestCaseError> {
    explanation_adds_up_in(retriever(), query, eligible)
}

/// [`explanation_adds_up`] for `retriever`.
fn explanation_adds_up_in(
    retriever: &dyn toolsearch::retrieve::Retriever,
    query: &str,
    eligible: &[bool],
) -> Result<(), TestCaseError> {
    use toolsearch::retrieve::Role;
    for role in [Role::Single, Role::Arm] {
        role_explanation_adds_up(retriever, query, eligible, role)?;
    }
    Ok(())
}

fn role_explanation_adds_up(
    retriever: &dyn toolsearch::retrieve::Retriever,
    query: &str,
    eligible: &[bool],
    role: toolsearch::retrieve::Role,
) -> Result<(), TestCaseError> {
    let hits = retriever.rank(query, eligible, 10, role);
    let tools: Vec<u32> = hits.iter().map(|hit| hit.tool).collect();
    let explanation = retriever
        .explain(query, &tools, role)
        .ok_or_else(|| TestCaseError::fail("the default retriever explains"))?;
    prop_assert_eq!(explanation.tools.len(), hits.len());
    for (hit, score) in hits.iter().zip(&explanation.tools) {
        prop_assert_eq!(hit.tool, score.tool);
        prop_assert_eq!(
            hit.score.to_bits(),
            score.score.to_bits(),
            "{:?} {:?}",
            query,
            hit
        );
        for field in 0..hit.fields.len() {
            prop_assert_eq!(hit.fields[field].to_bits(), score.fields[field].to_bits());
            let mut sum = 0.0;
            for (_, part) in &score.parts {
                if part[field] != 0.0 {
                    sum += part[field];
                }
            }
            // A part is the term's share of its field; summing shares in term order is how
            // the field was accumulated, so only the rounding of each share can differ.
            prop_assert!((sum - score.fields[field]).abs() <= 1e-9 * (1.0 + sum.abs()));
        }
        let coverage = if explanation.own_idf_total > 0.0 {
            score.covered / explanation.own_idf_total
        } else {
            0.0
        };
        prop_assert_eq!(hit.coverage.to_bits(), coverage.to_bits());
        prop_assert_eq!(
            hit.multiplier.to_bits(),
            (score.intent * score.coord_factor).to_bits()
        );
    }
    Ok(())
}

/// `why`'s lexicon groups are the expansion, group by group: joined in order they are the very
/// texts `Lexicon::expansion` gives, on every judged query.
#[test]
fn the_expansion_by_group_is_the_expansion_on_judged_queries() {
    let lexicon = toolsearch::text::Lexicon::builtin();
    let mut grouped_any = 0;
    for query in judged_queries() {
        let prepared = toolsearch::text::PreparedQuery::new(&query);
        let groups = lexicon.expansion_by_group(&prepared);
        grouped_any += usize::from(groups.len() > 1);
        let joined: Vec<u32> = groups.into_iter().flat_map(|(_, texts)| texts).collect();
        assert_eq!(joined, lexicon.expansion(&prepared), "{query}");
    }
    assert!(
        grouped_any > 1_000,
        "only {grouped_any} requests touch two groups"
    );
}

/// `why`'s learned-pair triggers are the learned expansion: their catalog words, sorted and
/// without repeats, are the very texts `LearnedPairs::expansion` gives, on every judged query.
#[test]
fn the_expansion_by_trigger_is_the_learned_expansion_on_judged_queries() {
    let pairs = toolsearch::text::LearnedPairs::builtin();
    let mut triggered = 0;
    for query in judged_queries() {
        let prepared = toolsearch::text::PreparedQuery::new(&query);
        let by_trigger = pairs.expansion_by_trigger(&prepared);
        triggered += usize::from(!by_trigger.is_empty());
        let mut joined: Vec<u32> = by_trigger
            .into_iter()
            .flat_map(|(_, texts)| texts.iter().copied())
            .collect();
        joined.sort_unstable();
        joined.dedup();
        assert_eq!(joined, pairs.expansion(&prepared), "{query}");
    }
    assert!(
        triggered > 1_000,
        "only {triggered} requests trigger a pair"
    );
}

/// Runs a property's check on every judged query, all tools eligible.
fn on_every_judged_query(check: fn(&str, &[bool]) -> Result<(), TestCaseError>) {
    let eligible = vec![true; catalog().tools().len()];
    for query in judged_queries() {
        if let Err(failure) = check(&query, &eligible) {
            panic!("{failure}");
        }
    }
}

/// The same on every judged query, all tools eligible.
#[test]
fn explanations_add_up_on_judged_queries() {
    on_every_judged_query(explanation_adds_up);
}

/// The product prior (pre-registration 103) applies on the foreign catalog (several products,
/// not the one the learned models were trained for). There too, on every request and
/// subquery judged over it: pruning changes no byte (also with its dense lists deferred),
/// explanations reproduce the ranking in both roles, and the prior moves answers.
#[test]
fn the_product_prior_is_exact_on_the_foreign_catalog() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("qrels/foreign");
    let with = |params: &[(&str, &str)]| {
        let catalog = toolsearch::cli::load_catalog(Some(&root.join("catalog")))
            .expect("the foreign catalog loads");
        let params: Vec<(String, String)> = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Engine::with_params(catalog, "fielded_bm25", &params).expect("default retriever")
    };
    let engine = with(&[]);
    let unpruned = with(&[("prune", "false")]);
    let deferring = with(&[("defer_min_tools", "0")]);
    let without = with(&[("product_weight", "0")]);
    let retriever =
        toolsearch::retrieve::build("fielded_bm25", engine.catalog()).expect("default retriever");
    let eligible = vec![true; engine.catalog().tools().len()];
    let mut queries = BTreeSet::new();
    for entry in std::fs::read_dir(&root).expect("qrels/foreign") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "json") {
            queries.extend(case_texts(&path, true));
        }
    }
    assert!(queries.len() >= 1_000, "only {} requests", queries.len());
    let mut moved = 0;
    for query in &queries {
        for limit in [1, 5, 20] {
            let request = json!({"version":"tool-search.v1","query":query,"limit":limit});
            assert_eq!(
                explained(&engine, &request),
                explained(&unpruned, &request),
                "{request}"
            );
        }
        let request = json!({"version":"tool-search.v1","query":query,"limit":10});
        let answer = explained(&engine, &request);
        assert_eq!(answer, explained(&deferring, &request), "{request}");
        moved += usize::from(answer != explained(&without, &request));
        if let Err(failure) = explanation_adds_up_in(retriever.as_ref(), query, &eligible) {
            panic!("{failure}");
        }
    }
    assert!(moved >= 100, "the prior moved only {moved} answers");
}

proptest! {
    #![proptest_config(proptest_config())]

    /// Any query, any subset of eligible tools: a shallow search is a prefix of a deep one.
    #[test]
    fn fewer_hits_are_a_prefix_of_more(
        query in text(),
        excluded in prop::collection::vec(any::<prop::sample::Index>(), 0..40),
    ) {
        let tools = catalog().tools().len();
        let mut eligible = vec![true; tools];
        for index in excluded {
            eligible[index.index(tools)] = false;
        }
        shallow_is_a_prefix_of_deep(&query, &eligible)?;
    }

    /// Any query: the explanation of its hits adds up to their scores.
    #[test]
    fn explanations_add_up(query in text()) {
        explanation_adds_up(&query, &vec![true; catalog().tools().len()])?;
    }

    /// `text::split_quoted` never panics and loses nothing: every character of the request is
    /// outside the spans or inside one, each span's two marks become the space left outside and
    /// the line break ending its text; no span crosses a line or exceeds 60 characters.
    #[test]
    fn quoted_spans_partition_the_request(query in text()) {
        match toolsearch::text::split_quoted(&query) {
            None => {}
            Some((outside, inside)) => {
                prop_assert!(!inside.is_empty());
                prop_assert_eq!(
                    query.chars().count(),
                    outside.chars().count() + inside.chars().count(),
                    "{:?}", query
                );
                prop_assert!(inside.ends_with('\n'));
                for span in inside.lines() {
                    prop_assert!(!span.is_empty() && span.chars().count() <= 60, "{:?}", span);
                }
            }
        }
    }
}

/// The same on every judged query, all tools eligible.
#[test]
fn fewer_hits_are_a_prefix_of_more_on_judged_queries() {
    on_every_judged_query(shallow_is_a_prefix_of_deep);
}
