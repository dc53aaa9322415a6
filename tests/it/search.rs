//! tool-search.v1 through the binary: validation reasons, strategies, exact guard, filters,
//! hints, subqueries, explain, truncation and the response budget.
use serde_json::json;

use crate::util::*;

fn ok(catalog: Option<&str>, request: serde_json::Value) -> serde_json::Value {
    search_request(catalog, &request).json()
}

fn reason_of(request: &str) -> String {
    ts(&["search", "--request-json", "-"])
        .stdin(request)
        .run()
        .reason()
}

#[test]
fn every_validation_reason_through_the_binary() {
    let v = r#""version":"tool-search.v1""#;
    let long_han = "发".repeat(200);
    let cases: Vec<(String, &str)> = vec![
        (format!("{{{v},\"query\":\"a\"}} {{}}"), "invalid_request_json"),
        ("[1,2]".into(), "invalid_request_json"),
        ("".into(), "invalid_request_json"),
        ("\u{feff}{}".into(), "invalid_request_json"),
        (format!("{{{v},\"query\":\"a\",\"query\":\"b\"}}"), "invalid_request_json"),
        (format!("{{{v},\"query\":\"a\",\"bogus\":1}}"), "invalid_request_json"),
        (format!("{{{v},\"query\":null}}"), "invalid_request_json"),
        (format!("{{{v},\"query\":\"a\",\"limit\":1.5}}"), "invalid_request_json"),
        (format!("{{{v},\"query\":\"a\",\"limit\":\"5\"}}"), "invalid_request_json"),
        (format!("{{{v},\"query\":7}}"), "invalid_request_json"),
        (r#"{"query":"a"}"#.into(), "unsupported_version"),
        (r#"{"version":"tool-search.v2","query":"a"}"#.into(), "unsupported_version"),
        (format!("{{{v},\"subqueries\":[\" \",\"\"]}}"), "subquery_required"),
        (format!("{{{v},\"subqueries\":[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\"]}}"), "too_many_subqueries"),
        (format!("{{{v},\"subqueries\":[\"{long_han}a\",\"{long_han}b\",\"{long_han}c\",\"{long_han}d\"]}}"), "subqueries_too_large"),
        (format!("{{{v}}}"), "query_required"),
        (format!("{{{v},\"query\":\"   \"}}"), "query_required"),
        (format!("{{{v},\"query\":\"{}\"}}", "x".repeat(257)), "query_too_long"),
        (format!("{{{v},\"query\":\"a\\u200bb\"}}"), "dangerous_query_unicode"),
        (format!("{{{v},\"query\":\"a\\u202eb\"}}"), "dangerous_query_unicode"),
        (format!("{{{v},\"query\":\"a\\u0007\"}}"), "dangerous_query_unicode"),
        (format!("{{{v},\"query\":\"a\",\"limit\":21}}"), "invalid_limit"),
        (format!("{{{v},\"query\":\"a\",\"limit\":-1}}"), "invalid_limit"),
        (format!("{{{v},\"query\":\"a\",\"candidate_limit\":101}}"), "invalid_candidate_limit"),
        (format!("{{{v},\"query\":\"a\",\"product_ids\":[\"chat\\u2066\"]}}"), "dangerous_filter_unicode"),
        (format!("{{{v},\"query\":\"a\",\"effects\":[\"execute\"]}}"), "invalid_effect"),
        (format!("{{{v},\"query\":\"a\",\"product_ids\":[\"nope\"]}}"), "unknown_product"),
        // Precedence: the first reason in contract order wins.
        (format!("{{{v},\"query\":\"a\",\"product_ids\":[\"nope\\u200b\"]}}"), "dangerous_filter_unicode"),
        (format!("{{{v},\"query\":\"{}\\u200b\",\"limit\":99}}", "x".repeat(300)), "query_too_long"),
        (format!("{{{v},\"query\":\"a\",\"limit\":99,\"effects\":[\"bad\"]}}"), "invalid_limit"),
    ];
    for (request, expected) in cases {
        assert_eq!(reason_of(&request), expected, "request: {request}");
    }
    let too_large = format!(
        "{{{v},\"query\":\"a\",\"exclude_canonical\":[\"{}\"]}}",
        "x".repeat(65_536)
    );
    assert_eq!(reason_of(&too_large), "request_too_large");
}

#[test]
fn command_line_errors_are_validation_errors() {
    assert_eq!(
        ts(&["search", "--bogus"]).run().reason(),
        "invalid_transport"
    );
    assert_eq!(
        ts(&["search", "--query"]).run().reason(),
        "invalid_transport"
    );
    assert_eq!(ts(&["frobnicate"]).run().reason(), "invalid_transport");
    assert_eq!(ts(&[]).run().reason(), "invalid_transport");
    assert_eq!(
        ts(&["search", "--request-json", "-", "--query", "x"])
            .run()
            .reason(),
        "ambiguous_input"
    );
    assert_eq!(
        ts(&["search", "--query", "x", "--limit", "abc"])
            .run()
            .reason(),
        "invalid_limit"
    );
    assert_eq!(ts(&["search"]).run().reason(), "query_required");
    // A non-UTF-8 argument.
    use std::os::unix::ffi::OsStrExt;
    let mut cmd = ts(&["search", "--query"]);
    cmd.raw().arg(std::ffi::OsStr::from_bytes(b"\xff\xfe"));
    assert_eq!(cmd.run().reason(), "invalid_transport");
}

#[test]
fn unreadable_stdin_is_read_request_failed() {
    let dir = TempDir::new("stdin-dir");
    let output = std::process::Command::new(BIN)
        .args(["search", "--request-json", "-"])
        .stdin(std::fs::File::open(dir.path()).expect("open dir"))
        .output()
        .expect("run");
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert_eq!(run.reason(), "read_request_failed");
}

#[test]
fn exact_guard_on_every_key_kind() {
    let mini = mini();
    for (query, canonical) in [
        ("alpha.send_message", "alpha.send_message"),
        ("alpha message send", "alpha.send_message"),
        ("  alpha   message\tsend ", "alpha.send_message"),
        ("dws alpha message send", "alpha.send_message"),
        ("alpha send", "alpha.send_message"),
        ("alpha history", "alpha.list_messages"),
        ("alpha message list", "alpha.list_messages"),
        ("ａｌｐｈａ．ｓｅｎｄ＿ｍｅｓｓａｇｅ", "alpha.send_message"),
        ("alpha/message/send", "alpha.send_message"),
        ("alpha.message.send", "alpha.send_message"),
        ("dws/beta/event/new", "beta.create_event"),
    ] {
        let response = ok(
            Some(&mini),
            json!({"version":"tool-search.v1","query":query}),
        );
        assert_eq!(response["strategy"], "exact_guard", "{query}");
        assert_eq!(canonicals(&response), vec![canonical], "{query}");
        let candidate = &response["candidates"][0];
        assert_eq!(candidate["matched_fields"], json!(["identity"]));
        assert_eq!(candidate["rank_sources"], json!(["exact"]));
        assert_eq!(candidate["rank"], 1);
        assert_eq!(candidate["requires_inspect"], true);
    }
    // Case-sensitive: an upper-cased canonical is not an identity.
    let response = ok(
        Some(&mini),
        json!({"version":"tool-search.v1","query":"ALPHA.SEND_MESSAGE"}),
    );
    assert_ne!(response["strategy"], "exact_guard");
}

#[test]
fn exact_filtered_has_four_reasons_and_never_falls_back() {
    let mini = mini();
    for (extra, query, reason) in [
        (
            json!({"exclude_canonical":["alpha.send_message"]}),
            "alpha.send_message",
            "excluded",
        ),
        (
            json!({"product_ids":["beta"]}),
            "alpha message send",
            "product_mismatch",
        ),
        (json!({"effects":["read"]}), "alpha send", "effect_mismatch"),
        (json!({}), "alpha.send_message_v1", "unavailable"),
        // The first failing reason wins: excluded before product_mismatch.
        (
            json!({"exclude_canonical":["alpha.send_message"],"product_ids":["beta"]}),
            "alpha.send_message",
            "excluded",
        ),
    ] {
        let mut request = json!({"version":"tool-search.v1","query":query});
        for (key, value) in extra.as_object().unwrap() {
            request[key] = value.clone();
        }
        let response = ok(Some(&mini), request);
        assert_eq!(response["strategy"], "exact_filtered", "{query}");
        assert_eq!(response["candidates"], json!([]));
        assert_eq!(response["abstained"], true);
        assert_eq!(response["exact_filtered"]["reason"], reason);
        assert!(
            response.get("hint").is_none(),
            "exact_filtered carries no hint"
        );
    }
}

#[test]
fn every_retriever_is_a_strategy_and_finds_the_obvious_tool() {
    for retriever in ["fielded_bm25", "fielded_bm25_ngram", "bm25_single_field"] {
        let run = ts(&[
            "search",
            "--retriever",
            retriever,
            "--query",
            "撤回刚发的群消息",
            "--limit",
            "3",
        ])
        .run();
        let response = run.json();
        assert_eq!(response["strategy"], retriever);
        assert!(
            canonicals(&response).contains(&"chat.recall_message".to_string()),
            "{retriever}: {response}"
        );
    }
    assert_eq!(
        ts(&["search", "--retriever", "nope", "--query", "x"])
            .run()
            .reason(),
        "unknown_retriever"
    );
}

#[test]
fn hard_filters_apply_before_scoring() {
    let response = ok(
        None,
        json!({"version":"tool-search.v1","query":"删除","effects":["READ"," read "],"limit":20}),
    );
    for candidate in response["candidates"].as_array().unwrap() {
        assert_eq!(candidate["effect"], "read", "{candidate}");
    }
    let response = ok(
        None,
        json!({"version":"tool-search.v1","query":"消息","product_ids":["todo"],"limit":20}),
    );
    assert!(canonicals(&response).iter().all(|c| c.starts_with("todo.")));
    // A tool without an effect never passes an effects filter; unavailable tools never appear.
    let mini = mini();
    let response = ok(
        Some(&mini),
        json!({"version":"tool-search.v1","query":"frobnicate quux tool","effects":["read","write","destructive"]}),
    );
    assert!(!canonicals(&response).contains(&"alpha.mystery".to_string()));
    let response = ok(
        Some(&mini),
        json!({"version":"tool-search.v1","query":"发送消息 旧版","limit":20}),
    );
    assert!(!canonicals(&response).contains(&"alpha.send_message_v1".to_string()));
    let response = ok(
        Some(&mini),
        json!({"version":"tool-search.v1","query":"发送消息","exclude_canonical":["alpha.send_message"],"limit":20}),
    );
    assert!(!canonicals(&response).contains(&"alpha.send_message".to_string()));
}

#[test]
fn abstained_and_weak_match_carry_hints() {
    let mini = mini();
    let response = ok(
        Some(&mini),
        json!({"version":"tool-search.v1","query":"zzqqxx"}),
    );
    assert_eq!(response["abstained"], true);
    assert_eq!(response["candidates"], json!([]));
    assert!(response["hint"].as_str().unwrap().contains("unsupported"));
    let response = ok(
        Some(&mini),
        json!({"version":"tool-search.v1","query":"frobnicate quux"}),
    );
    assert_eq!(response["weak_match"], true, "{response}");
    assert!(response.get("abstained").is_none());
    assert_eq!(canonicals(&response), vec!["alpha.mystery"]);
    assert_eq!(
        response["candidates"][0]["matched_fields"],
        json!(["description"])
    );
    assert!(response["hint"].as_str().unwrap().contains("weak"));
    let response = ok(
        Some(&mini),
        json!({"version":"tool-search.v1","query":"发送消息"}),
    );
    assert!(response.get("weak_match").is_none() && response.get("hint").is_none());
}

#[test]
fn subqueries_merge_round_robin_without_duplicates() {
    let mini = mini();
    let response = ok(
        Some(&mini),
        json!({"version":"tool-search.v1","subqueries":["发送消息"," 创建日程 ","发送消息",""],"limit":4}),
    );
    assert_eq!(response["strategy"], "decomposed_round_robin");
    assert_eq!(response["query"], "发送消息 + 创建日程");
    assert_eq!(response["subqueries"], json!(["发送消息", "创建日程"]));
    let got = canonicals(&response);
    assert_eq!(got[0], "alpha.send_message");
    assert_eq!(got[1], "beta.create_event");
    let mut unique = got.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), got.len(), "no duplicates: {got:?}");
    let ranks: Vec<i64> = response["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["rank"].as_i64().unwrap())
        .collect();
    assert_eq!(ranks, (1..=got.len() as i64).collect::<Vec<_>>());
    // An exact arm is merged like any other.
    let response = ok(
        Some(&mini),
        json!({"version":"tool-search.v1","subqueries":["beta.delete_event","发送消息"]}),
    );
    assert_eq!(canonicals(&response)[0], "beta.delete_event");
    assert_eq!(response["candidates"][0]["rank_sources"], json!(["exact"]));
    // An exact_filtered arm fails the whole answer closed.
    let response = ok(
        Some(&mini),
        json!({"version":"tool-search.v1","query":"two steps","subqueries":["发送消息","alpha.send_message_v1"]}),
    );
    assert_eq!(response["strategy"], "decomposed_exact_filtered");
    assert_eq!(response["abstained"], true);
    assert_eq!(response["query"], "two steps");
    assert_eq!(
        response["exact_filtered"],
        json!({"canonical_path":"alpha.send_message_v1","reason":"unavailable"})
    );
    assert_eq!(response["candidates"], json!([]));
}

#[test]
fn explain_shows_per_field_scores_only_when_asked() {
    let plain = ts(&["search", "--query", "撤回消息"]).run();
    assert!(
        !plain.stdout.contains("score"),
        "no raw score without --explain"
    );
    let explained = ts(&["search", "--query", "撤回消息", "--explain"])
        .run()
        .json();
    let breakdown = &explained["candidates"][0]["score_breakdown"];
    let fields = breakdown["fields"].as_object().unwrap();
    for field in [
        "identity",
        "summary",
        "description",
        "parameters",
        "use_when",
    ] {
        assert!(fields.contains_key(field), "{field}");
    }
    let sum: f64 = fields.values().map(|v| v.as_f64().unwrap()).sum();
    assert!((sum - breakdown["total"].as_f64().unwrap()).abs() < 1e-4);
    // Candidates are in non-increasing score order.
    let totals: Vec<f64> = explained["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["score_breakdown"]["total"].as_f64().unwrap())
        .collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "{totals:?}");
}

/// A catalog of `n` tools that all match "budget", each with an ASCII summary of `len` bytes
/// (one long token, so BM25 lengths do not change) and optionally a long title.
fn budget_catalog(n: usize, summary_len: usize, long_title: bool) -> String {
    let tools: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let title = if long_title {
                format!("budget {}", "题".repeat(300))
            } else {
                format!("budget tool {i}")
            };
            json!({
                "canonical_path": format!("b.t{i:02}"),
                "name": format!("t{i:02}"),
                "cli_path": format!("b t{i:02}"),
                "title": title,
                "agent_summary": format!("budget {}", "x".repeat(summary_len)),
                "effect": "read"
            })
        })
        .collect();
    json!({"version":"catalog.v1","products":[{"id":"b","tools":tools}]}).to_string()
}

#[test]
fn truncated_fields_cut_title_and_summary_at_256_scalars() {
    let dir = TempDir::new("cut");
    let catalog = dir.write("c.json", &budget_catalog(1, 400, true));
    let response = search_request(
        Some(&catalog),
        &json!({"version":"tool-search.v1","query":"budget"}),
    )
    .json();
    let candidate = &response["candidates"][0];
    assert_eq!(candidate["title"].as_str().unwrap().chars().count(), 256);
    assert_eq!(
        candidate["agent_summary"].as_str().unwrap().chars().count(),
        256
    );
    assert_eq!(
        candidate["truncated_fields"],
        json!(["title", "agent_summary"])
    );
}

/// A query of "budget" plus exactly `extra` more UTF-8 bytes of padding that matches no tool
/// (3-byte Han characters that appear nowhere, then ASCII).
fn padded_query(extra: usize) -> String {
    format!(
        "budget z{}{}",
        "龘".repeat(extra / 3),
        "q".repeat(extra % 3)
    )
}

#[test]
fn response_budget_boundary_is_exactly_8192_bytes() {
    let dir = TempDir::new("budget");
    let catalog = dir.write("c.json", &budget_catalog(20, 200, false));
    let request = |limit: usize, extra: usize| json!({"version":"tool-search.v1","query":padded_query(extra),"limit":limit});
    // All 20 candidates overflow the budget: whole candidates are dropped from the end.
    let overflowing = search_request(Some(&catalog), &request(20, 0));
    let overflowing_json = overflowing.json();
    assert_eq!(overflowing_json["truncated"], true);
    assert!(overflowing.stdout.len() <= 8_192);
    let kept = overflowing_json["candidates"].as_array().unwrap().len();
    assert!(kept < 20);
    // Asking for exactly `kept` fits; pad the query so the line is exactly 8,192 bytes.
    let fitting = search_request(Some(&catalog), &request(kept, 0));
    assert!(fitting.json().get("truncated").is_none());
    let extra = 8_192 - fitting.stdout.len();
    let exact = search_request(Some(&catalog), &request(kept, extra));
    assert_eq!(
        exact.stdout.len(),
        8_192,
        "response plus newline is exactly the budget"
    );
    let exact_json = exact.json();
    assert!(
        exact_json.get("truncated").is_none(),
        "8,192 bytes is within the budget"
    );
    assert_eq!(exact_json["candidates"].as_array().unwrap().len(), kept);
    // One byte more: the last candidate goes and `truncated` is set.
    let over = search_request(Some(&catalog), &request(kept, extra + 1));
    let over_json = over.json();
    assert!(over.stdout.len() <= 8_192);
    assert_eq!(over_json["truncated"], true);
    assert_eq!(
        over_json["candidates"].as_array().unwrap().len(),
        kept - 1,
        "one whole candidate dropped"
    );
    assert_eq!(
        canonicals(&over_json)[..],
        canonicals(&exact_json)[..kept - 1]
    );
}

#[test]
fn a_response_that_cannot_fit_is_request_too_large() {
    // Eight subqueries of escaped control-free but quote-heavy text are echoed twice
    // (query + subqueries); with many backslashes they cannot fit in 8,192 bytes.
    let arm = "\\".repeat(250);
    let subqueries: Vec<String> = (0..8).map(|i| format!("{arm}{i}")).collect();
    let response = search_request(
        None,
        &json!({"version":"tool-search.v1","subqueries":subqueries}),
    );
    assert_eq!(response.reason(), "request_too_large");
}
