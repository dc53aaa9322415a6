//! The checked-in JSON Schemas are generated from the wire types, and real outputs validate.
use serde_json::json;

use crate::util::*;

fn schema(name: &str) -> serde_json::Value {
    let path = repo().join("schemas").join(name);
    serde_json::from_str(
        &std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap()
}

pub fn assert_valid(schema_name: &str, instance: &serde_json::Value) {
    let validator = jsonschema::draft202012::new(&schema(schema_name)).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{schema_name}: {errors:?}\n{instance}");
}

/// Set UPDATE_SCHEMAS=1 to rewrite `schemas/` after an intended wire change.
#[test]
fn invariant_schemas_match_types() {
    let dir = repo().join("schemas");
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    for (name, value) in toolsearch::wire::json_schemas() {
        let text = serde_json::to_string_pretty(&value).unwrap() + "\n";
        let path = dir.join(name);
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == text,
            "{name} drifted from the Rust types; run UPDATE_SCHEMAS=1 cargo test --test it schemas"
        );
    }
}

#[test]
fn real_outputs_validate_against_their_schemas() {
    let mini = mini();
    let mut responses = vec![
        search_request(
            None,
            &json!({"version":"tool-search.v1","query":"撤回消息"}),
        )
        .json(),
        search_request(
            Some(&mini),
            &json!({"version":"tool-search.v1","query":"alpha.send_message_v1"}),
        )
        .json(),
        search_request(
            Some(&mini),
            &json!({"version":"tool-search.v1","subqueries":["发送消息","创建日程"]}),
        )
        .json(),
        search_request(
            Some(&mini),
            &json!({"version":"tool-search.v1","query":"zzqq"}),
        )
        .json(),
        search_request(
            Some(&mini),
            &json!({"version":"tool-search.v1","query":"frobnicate quux"}),
        )
        .json(),
    ];
    responses.push(
        ts(&["search", "--query", "删除日程", "--explain"])
            .run()
            .json(),
    );
    for response in &responses {
        assert_valid("tool-search.v1.response.schema.json", response);
    }
    let (source, surface) = hashes(Some(&mini));
    let request = json!({"version":"schema-inspect.v1","canonical_path":"beta.list_events","expected_source_hash":source,"expected_surface_hash":surface});
    assert_valid("schema-inspect.v1.request.schema.json", &request);
    let inspect = ts(&["inspect", "--catalog", &mini, "--request-json", "-"])
        .stdin(request.to_string())
        .run()
        .json();
    assert_valid("schema-inspect.v1.response.schema.json", &inspect);
    assert_valid(
        "tool-search.v1.request.schema.json",
        &json!({"version":"tool-search.v1","query":"x","limit":5,"effects":["read"]}),
    );
    let error = ts(&["search", "--query", ""]).run().error();
    assert_valid("error.schema.json", &error);
    for file in ["alpha.json", "beta.json"] {
        let catalog: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(format!("{mini}/{file}")).unwrap())
                .unwrap();
        assert_valid("catalog.v1.schema.json", &catalog);
    }
    for entry in std::fs::read_dir(repo().join("catalog")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue; // catalog/prepared.bin is the prepared snapshot, not a catalog
        }
        let catalog: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_valid("catalog.v1.schema.json", &catalog);
    }
    // A schema must also reject: an unknown key in a response is not allowed.
    let mut bad = responses[0].clone();
    bad["surprise"] = json!(1);
    let validator =
        jsonschema::draft202012::new(&schema("tool-search.v1.response.schema.json")).unwrap();
    assert!(!validator.is_valid(&bad));
}

#[test]
fn eval_report_and_qrels_validate() {
    let dir = TempDir::new("qrels");
    let qrels = json!({"version":"tool-search-qrels.v1","cases":[
        {"id":"1","query":"发送消息","language":"chinese_only","qrels":[{"canonical":"alpha.send_message","relevance":3}],"forbidden":["alpha.recall_message"]},
        {"id":"2","query":"make an event then list events","qrels":[{"canonical":"beta.create_event","relevance":3},{"canonical":"beta.list_events","relevance":3}],
         "workflow":{"required":["beta.create_event","beta.list_events"],"subqueries":["create event","list events"]}},
        {"id":"3","query":"book a flight","qrels":[],"expect":"abstain"}
    ]});
    assert_valid("tool-search-qrels.v1.schema.json", &qrels);
    let path = dir.write("q.json", &qrels.to_string());
    let report = ts(&["eval", "--catalog", &mini(), "--qrels", &path, "--json"])
        .run()
        .json();
    assert_valid("tool-search-eval.v1.schema.json", &report);
    assert_eq!(report["overall"]["cases"], 3);
    assert_eq!(report["overall"]["recall@1"], 1.0);
    assert_eq!(report["overall"]["workflow_complete@5"], 1.0);
    assert_eq!(report["overall"]["abstain_accuracy"], 1.0);
    // The only tools matching "发送消息" include the forbidden recall tool at rank 2.
    assert_eq!(report["overall"]["forbidden@1"], 0.0);
    assert_eq!(report["overall"]["forbidden@5"], 1.0);
}
