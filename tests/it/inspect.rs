//! schema-inspect.v1 through the binary.
use serde_json::json;

use crate::util::*;

fn inspect(catalog: &str, request: serde_json::Value) -> Run {
    ts(&["inspect", "--catalog", catalog, "--request-json", "-"])
        .stdin(request.to_string())
        .run()
}

#[test]
fn search_then_inspect_by_canonical_cli_path_and_alias() {
    let mini = mini();
    let search = search_request(
        Some(&mini),
        &json!({"version":"tool-search.v1","query":"发送消息"}),
    )
    .json();
    let (source, surface) = response_hashes(&search);
    for path in [
        "alpha.send_message",
        "alpha message send",
        "alpha send",
        "dws alpha send",
    ] {
        let response = inspect(
            &mini,
            json!({"version":"schema-inspect.v1","canonical_path":path,"expected_source_hash":source,"expected_surface_hash":surface}),
        )
        .json();
        assert_eq!(response["version"], "schema-inspect.v1");
        assert_eq!(response["catalog"], search["catalog"]);
        let spec = &response["tool_spec"];
        assert_eq!(spec["canonical_path"], "alpha.send_message", "{path}");
        assert_eq!(spec["product_id"], "alpha");
        assert_eq!(spec["primary_cli_path"], "alpha message send");
        assert_eq!(spec["parameters"]["conversation-id"]["required"], true);
        assert_eq!(
            spec["parameters"]["conversation-id"]["property"],
            "conversationId"
        );
        assert_eq!(spec["effect"], "write");
        assert_eq!(spec["availability"], "available");
        assert_eq!(
            spec["examples"][0],
            "dws alpha message send --conversation-id c1 --text hi"
        );
    }
    // Flag form and DWS's `schema PATH --compact` spelling give the same bytes.
    let by_json = inspect(
        &mini,
        json!({"version":"schema-inspect.v1","canonical_path":"beta.list_events","expected_source_hash":source,"expected_surface_hash":surface}),
    );
    let by_flags = inspect_with_hashes(Some(&mini), "beta.list_events", &source, &surface);
    let by_schema = ts(&[
        "schema",
        "beta.list_events",
        "--compact",
        "--catalog",
        &mini,
        "--expected-source-hash",
        &source,
        "--expected-surface-hash",
        &surface,
    ])
    .run();
    assert_eq!(by_json, by_flags);
    assert_eq!(by_json, by_schema);
    assert_eq!(
        by_json.json()["tool_spec"]["input_schema"]["properties"]["window"]["enum"],
        json!(["today", "week"])
    );
}

#[test]
fn stale_hash_is_catalog_changed_with_no_tool_spec() {
    let mini = mini();
    let (source, surface) = hashes(Some(&mini));
    let stale = format!("sha256:{}", "0".repeat(64));
    for (src, srf) in [
        (stale.as_str(), surface.as_str()),
        (source.as_str(), stale.as_str()),
    ] {
        let run = inspect(
            &mini,
            json!({"version":"schema-inspect.v1","canonical_path":"alpha.send_message","expected_source_hash":src,"expected_surface_hash":srf}),
        );
        assert_eq!(run.code, 6);
        let error = run.error();
        assert_eq!(error["error"]["reason"], "catalog_changed");
        assert_eq!(error["error"]["category"], "discovery");
    }
    // Hashes are checked before the path: a stale hash with an unknown path is still catalog_changed.
    let run = inspect(
        &mini,
        json!({"version":"schema-inspect.v1","canonical_path":"no.such","expected_source_hash":stale,"expected_surface_hash":surface}),
    );
    assert_eq!(run.reason(), "catalog_changed");
}

#[test]
fn inspect_validation_errors() {
    let mini = mini();
    let (source, surface) = hashes(Some(&mini));
    let cases = [
        (
            json!({"version":"schema-inspect.v1","canonical_path":"alpha.send_message"}),
            "incomplete_catalog_version",
        ),
        (
            json!({"version":"schema-inspect.v1","canonical_path":"alpha.send_message","expected_source_hash":source}),
            "incomplete_catalog_version",
        ),
        (
            json!({"version":"schema-inspect.v1","canonical_path":"alpha.send_message","expected_source_hash":"sha256:ABC","expected_surface_hash":surface}),
            "invalid_catalog_version",
        ),
        (
            json!({"version":"schema-inspect.v1","canonical_path":"alpha.nope","expected_source_hash":source,"expected_surface_hash":surface}),
            "unknown_tool",
        ),
        (
            json!({"version":"schema-inspect.v2","canonical_path":"alpha.send_message","expected_source_hash":source,"expected_surface_hash":surface}),
            "unsupported_version",
        ),
        (
            json!({"version":"schema-inspect.v1","canonical_path":"alpha.send_message","expected_source_hash":source,"expected_surface_hash":surface,"x":1}),
            "invalid_request_json",
        ),
    ];
    for (request, reason) in cases {
        let run = inspect(&mini, request.clone());
        assert_eq!(run.code, 3, "{request}");
        assert_eq!(run.reason(), reason, "{request}");
    }
    assert_eq!(
        ts(&["inspect", "--catalog", &mini, "alpha.send_message"])
            .run()
            .reason(),
        "incomplete_catalog_version"
    );
    assert_eq!(ts(&["inspect"]).run().reason(), "invalid_transport");
}

#[test]
fn inspect_on_the_embedded_catalog() {
    let (source, surface) = hashes(None);
    let response = inspect_with_hashes(None, "chat message send", &source, &surface).json();
    assert_eq!(response["tool_spec"]["canonical_path"], "chat.send_message");
    assert!(response["tool_spec"]["parameters"]
        .as_object()
        .is_some_and(|p| !p.is_empty()));
}
