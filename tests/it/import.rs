//! `catalog import`: MCP and OpenAI dumps → catalog.v1, through the binary.
use serde_json::{json, Value};

use crate::util::*;

fn import_fixture(name: &str) -> String {
    fixture(&format!("import/{name}"))
}

fn read_json(path: &str) -> Value {
    let text = std::fs::read_to_string(path).expect("read fixture");
    serde_json::from_str(&text).expect("fixture is JSON")
}

/// `catalog import --from FROM --product PRODUCT INPUT`.
fn import(from: &str, product: &str, input: &str) -> Cmd {
    ts(&[
        "catalog",
        "import",
        "--from",
        from,
        "--product",
        product,
        input,
    ])
}

/// Imports `input`, checks success (catalog on stdout, nothing or skip lines on stderr) and
/// returns the catalog text.
fn import_ok(from: &str, product: &str, input: &str) -> Run {
    let run = import(from, product, input).run();
    assert_eq!(run.code, 0, "{run:?}");
    run
}

fn tools(catalog: &Value) -> Vec<Value> {
    catalog["products"][0]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn by_title<'a>(catalog_tools: &'a [Value], title: &str) -> Vec<&'a Value> {
    catalog_tools
        .iter()
        .filter(|t| t["title"] == title)
        .collect()
}

fn verify(catalog_path: &str) -> Value {
    let verified = ts(&["catalog", "verify", "--catalog", catalog_path])
        .run()
        .json();
    assert_eq!(verified["catalog"], "valid");
    verified
}

#[test]
fn openai_import_keeps_names_schemas_and_the_evaldata_suffixes() {
    let input = import_fixture("openai_tools.json");
    let run = import_ok("openai", "bfcl", &input);
    assert_eq!(run.stderr, "", "nothing skipped");
    let catalog: Value = serde_json::from_str(&run.stdout).expect("catalog JSON");
    assert_eq!(catalog["version"], "catalog.v1");
    assert_eq!(catalog["products"][0]["id"], "bfcl");
    let imported = tools(&catalog);
    let original = read_json(&input);
    assert_eq!(imported.len(), original.as_array().unwrap().len());
    // Every input function is a tool: original name in `title`, schema verbatim.
    for entry in original.as_array().unwrap() {
        let function = &entry["function"];
        let matches = by_title(&imported, function["name"].as_str().unwrap());
        let tool = matches
            .iter()
            .find(|t| t["description"] == function["description"])
            .unwrap_or_else(|| panic!("{} imported", function["name"]));
        assert_eq!(tool["input_schema"], function["parameters"]);
        assert_eq!(
            tool["canonical_path"],
            format!("bfcl.{}", tool["name"].as_str().unwrap())
        );
    }
    // Same names as the shared evaluation catalogs (bfcl/all, acebench/zh/all): the suffix is
    // sha256 of the upstream definition, the sanitized names follow the same rule.
    let names: Vec<&str> = imported
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for expected in [
        "get_current_weather-0613a7",
        "get_current_weather-0a0387",
        "URL",
        "v2",
        "tool-1925ce",
        "requests.get",
        "card_games.poker_determine_winner",
    ] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "tools are sorted by canonical path");
    let dir = TempDir::new("import-openai");
    let path = dir.write("bfcl.json", &run.stdout);
    assert_eq!(verify(&path)["tools"], imported.len());
}

#[test]
fn mcp_round_trip_verify_search_inspect() {
    let input = import_fixture("mcp_tools_list.json");
    let run = import_ok("mcp", "bfcl", &input);
    assert_eq!(run.stderr, "");
    let catalog: Value = serde_json::from_str(&run.stdout).unwrap();
    let imported = tools(&catalog);
    let effect = |title: &str| by_title(&imported, title)[0]["effect"].clone();
    assert_eq!(effect("requests.get"), "read");
    assert_eq!(effect("Music_3_PlayMedia"), "write");
    assert_eq!(effect("hydration_calculator"), Value::Null);
    assert_eq!(
        by_title(&imported, "list_files")[0]["idempotency"],
        "idempotent"
    );
    assert_eq!(
        by_title(&imported, "imdb.find_movies_by_actor")[0]["display"],
        "Find movies by actor"
    );
    assert_eq!(by_title(&imported, "get_current_weather").len(), 2);

    let dir = TempDir::new("import-mcp");
    let path = dir.write("bfcl.json", &run.stdout);
    let verified = verify(&path);
    assert_eq!(verified["tools"], 12);

    // An exact identity is found exactly; a natural query finds the tool among the hits.
    let exact = ts(&[
        "search",
        "--catalog",
        &path,
        "--query",
        "bfcl.imdb.find_movies_by_actor",
    ])
    .run()
    .json();
    assert_eq!(exact["strategy"], "exact_guard");
    assert_eq!(canonicals(&exact), vec!["bfcl.imdb.find_movies_by_actor"]);
    let natural = ts(&[
        "search",
        "--catalog",
        &path,
        "--query",
        "movies starring an actor",
        "--limit",
        "20",
    ])
    .run()
    .json();
    assert!(
        canonicals(&natural).contains(&"bfcl.imdb.find_movies_by_actor".to_string()),
        "{natural}"
    );
    // The effect filter sees the mapped annotations: only annotated read tools pass.
    let reads = ts(&[
        "search",
        "--catalog",
        &path,
        "--query",
        "get list find weather files movies",
        "--effect",
        "read",
        "--limit",
        "20",
    ])
    .run()
    .json();
    for candidate in reads["candidates"].as_array().unwrap() {
        assert_eq!(candidate["effect"], "read", "{candidate}");
    }

    let (source, surface) = response_hashes(&exact);
    let spec = inspect_with_hashes(
        Some(&path),
        "bfcl.imdb.find_movies_by_actor",
        &source,
        &surface,
    )
    .json();
    let original = read_json(&input);
    let entry = original["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "imdb.find_movies_by_actor")
        .unwrap()
        .clone();
    assert_eq!(spec["tool_spec"]["title"], "imdb.find_movies_by_actor");
    assert_eq!(spec["tool_spec"]["input_schema"], entry["inputSchema"]);
    assert_eq!(spec["tool_spec"]["description"], entry["description"]);
    assert_eq!(spec["tool_spec"]["effect"], "read");
}

#[test]
fn import_is_deterministic_and_independent_of_input_order() {
    let input = import_fixture("mcp_tools_list.json");
    let first = import_ok("mcp", "bfcl", &input);
    let again = import_ok("mcp", "bfcl", &input);
    assert_eq!(first, again);
    let mut reversed = read_json(&input);
    reversed["result"]["tools"]
        .as_array_mut()
        .unwrap()
        .reverse();
    let dir = TempDir::new("import-order");
    let path = dir.write("reversed.json", &reversed.to_string());
    let reordered = import_ok("mcp", "bfcl", &path);
    assert_eq!(first.stdout, reordered.stdout);
    // stdin works too.
    let piped = import("mcp", "bfcl", "-")
        .stdin(std::fs::read_to_string(&input).unwrap())
        .run();
    assert_eq!(piped, first);
}

#[test]
fn skipped_entries_are_reported_one_line_each() {
    let input = json!({"tools": [
        {"name": "ok_tool", "description": "Works.", "inputSchema": {"type": "object"}},
        {"name": "ok_tool", "description": "Works.", "inputSchema": {"type": "object"}},
        {"description": "no name at all"},
        {"name": "bad_schema", "inputSchema": "nope"},
        "not an object"
    ]});
    let dir = TempDir::new("import-skip");
    let path = dir.write("tools.json", &input.to_string());
    let run = import_ok("mcp", "demo", &path);
    let catalog: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(tools(&catalog).len(), 1);
    let lines: Vec<Value> = run
        .stderr
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let indexes: Vec<u64> = lines
        .iter()
        .map(|l| l["skipped"]["index"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, vec![1, 2, 3, 4]);
    assert!(lines.iter().all(|l| l["reason"].is_string()));
    assert_eq!(lines[0]["skipped"]["name"], "ok_tool");
    verify(&dir.write("catalog.json", &run.stdout));
}

#[test]
fn a_nested_property_description_makes_a_tool_findable() {
    let input = json!([
        {"type": "function", "function": {
            "name": "book_trip",
            "description": "Book a trip.",
            "parameters": {"type": "object", "properties": {
                "legs": {"type": "array", "items": {"type": "object", "properties": {
                    "vehicle": {"type": "object", "properties": {
                        "kind": {"type": "string", "description": "A zeppelin or a balloon."}
                    }}
                }}}
            }}
        }},
        {"type": "function", "function": {
            "name": "send_mail", "description": "Send an email.",
            "parameters": {"type": "object", "properties": {"to": {"type": "string"}}}
        }}
    ]);
    let dir = TempDir::new("import-nested");
    let path = dir.write("tools.json", &input.to_string());
    let run = import_ok("openai", "travel", &path);
    let catalog = dir.write("catalog.json", &run.stdout);
    let found = ts(&["search", "--catalog", &catalog, "--query", "zeppelin"])
        .run()
        .json();
    assert_eq!(canonicals(&found), vec!["travel.book_trip"], "{found}");
}

#[test]
fn import_failures_are_one_error_line() {
    let good = import_fixture("openai_tools.json");
    let dir = TempDir::new("import-errors");
    let malformed = dir.write("bad.json", "{\"tools\": [");
    let duplicate = dir.write("dup.json", "{\"tools\": [], \"tools\": []}");
    let nothing = dir.write("none.json", "{\"tools\": [{\"name\": 3}]}");
    let wrong_shape = dir.write("shape.json", "{\"functions\": 1}");
    let missing = dir.path().join("absent.json").display().to_string();
    // Command lines the parser refuses.
    for args in [
        vec!["catalog", "import", "--product", "p", &good],
        vec![
            "catalog",
            "import",
            "--from",
            "xml",
            "--product",
            "p",
            &good,
        ],
        vec!["catalog", "import", "--from", "openai", "--product", "p"],
        vec![
            "catalog",
            "import",
            "--from",
            "openai",
            "--product",
            "p",
            "--catalog",
            &good,
            &good,
        ],
    ] {
        let run = ts(&args).run();
        assert_eq!(run.reason(), "invalid_transport", "{args:?}");
        assert_eq!(run.code, 3, "{args:?}");
    }
    // Well-formed command lines whose product id or input is bad.
    for (from, product, input) in [
        ("openai", "bad id", good.as_str()),
        ("openai", "p", missing.as_str()),
        ("openai", "p", malformed.as_str()),
        ("mcp", "p", duplicate.as_str()),
        ("mcp", "p", nothing.as_str()),
        ("openai", "p", wrong_shape.as_str()),
    ] {
        let run = import(from, product, input).run();
        assert_eq!(run.reason(), "invalid_import", "{from} {product} {input}");
        assert_eq!(run.code, 3, "{from} {product} {input}");
    }
}

/// The imported catalog of `qrels/imported/` is what `catalog import` writes from its MCP tool
/// lists, byte for byte: the judged sets over it stay true to the importer, and an importer
/// change that would move them shows here first.
#[test]
fn the_imported_evaluation_catalog_is_reproduced_from_its_mcp_lists() {
    let dir = repo().join("qrels/imported");
    let mut products = 0;
    for entry in std::fs::read_dir(dir.join("catalog")).expect("catalog dir") {
        let path = entry.expect("an entry").path();
        let written = std::fs::read_to_string(&path).expect("catalog file");
        let product =
            &serde_json::from_str::<Value>(&written).expect("catalog JSON")["products"][0];
        let (id, name) = (
            product["id"].as_str().expect("id"),
            product["name"].as_str().expect("name"),
        );
        let source = dir
            .join("mcp")
            .join(format!("{id}.json"))
            .display()
            .to_string();
        let run = ts(&[
            "catalog",
            "import",
            "--from",
            "mcp",
            "--product",
            id,
            "--name",
            name,
            &source,
        ])
        .run();
        assert_eq!(run.code, 0, "{run:?}");
        assert_eq!(
            run.stdout,
            written,
            "{} differs from importing {source}",
            path.display()
        );
        products += 1;
    }
    assert_eq!(products, 10);
}
