//! ratel-peer CATALOG QRELS: one JSON line per case, `{"id": …, "returned": [top 10]}`, ranked
//! by the `ratel-ai-core` 0.2.0 crate over the catalog.v1 tools (name, description,
//! input_schema), each query cut to 256 Unicode scalars as formats.md §4 asks. Workflow
//! cases are searched with their query only (vs_ratel.py skips them).
use ratel_ai_core::{Tool, ToolRegistry};
use serde_json::{json, Value};

fn read(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn text(value: &Value, key: &str) -> String {
    value[key].as_str().unwrap_or("").to_string()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    assert!(args.len() == 3, "usage: ratel-peer CATALOG QRELS");
    let (catalog, qrels) = (read(&args[1]), read(&args[2]));
    let mut registry = ToolRegistry::new();
    for product in catalog["products"].as_array().into_iter().flatten() {
        for tool in product["tools"].as_array().into_iter().flatten() {
            registry.register(Tool {
                id: text(tool, "canonical_path"),
                name: text(tool, "name"),
                description: text(tool, "description"),
                input_schema: tool.get("input_schema").cloned().unwrap_or(json!({})),
                output_schema: json!({}),
            });
        }
    }
    for case in qrels["cases"].as_array().into_iter().flatten() {
        let query: String = text(case, "query").chars().take(256).collect();
        let returned: Vec<String> = registry
            .search(&query, 10)
            .into_iter()
            .map(|hit| hit.tool_id)
            .collect();
        println!("{}", json!({"id": case["id"], "returned": returned}));
    }
}
