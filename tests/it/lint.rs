//! `toolsearch catalog lint`: the findability audit, through the binary, on a fixture whose
//! problems are known (tests/fixtures/lint) and on the embedded catalog.
use serde_json::Value;

use crate::util::*;

fn lint_fixture() -> String {
    fixture("lint")
}

fn tool<'a>(report: &'a Value, canonical: &str) -> &'a Value {
    report["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["canonical_path"] == canonical))
        .unwrap_or_else(|| panic!("{canonical} is in the report"))
}

fn problems(report: &Value, canonical: &str) -> Vec<String> {
    tool(report, canonical)["problems"]
        .as_array()
        .map(|p| {
            p.iter()
                .map(|c| c.as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn assert_valid_report(report: &Value) {
    let path = repo().join("schemas/catalog-lint.v1.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::draft202012::new(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(report)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn lint_finds_the_known_problems_of_the_fixture() {
    let run = ts(&["catalog", "lint", "--catalog", &lint_fixture(), "--json"]).run();
    assert_eq!(run.stderr, "");
    let report = run.json();
    assert_valid_report(&report);
    assert_eq!(report["version"], "catalog-lint.v1");
    assert_eq!(report["catalog"]["tools"], 6);
    assert_eq!(report["limit"], 20);
    assert_eq!(report["summary"]["tools_probed"], 5);
    assert_eq!(report["summary"]["unavailable_tools"], 1);
    assert_eq!(report["summary"]["by_use_when"]["probes"], 4);

    // Identical summaries: a near-duplicate pair (the deprecated copy is not counted), and
    // whichever of the two wins its own summary shadows the other.
    assert_eq!(
        report["near_duplicates"],
        serde_json::json!([{"field":"summary","tools":["demo.add_note","demo.create_note"],"similarity":1.0}])
    );
    let shadowed: Vec<&str> = ["demo.add_note", "demo.create_note"]
        .into_iter()
        .filter(|t| problems(&report, t).contains(&"shadowed_summary".to_string()))
        .collect();
    assert_eq!(shadowed.len(), 1, "exactly one of the twins is shadowed");
    let loser = shadowed[0];
    let winner = if loser == "demo.add_note" {
        "demo.create_note"
    } else {
        "demo.add_note"
    };
    assert_eq!(tool(&report, loser)["summary"]["outranked_by"][0], winner);
    assert_eq!(tool(&report, winner)["summary"]["rank"], 1);
    for twin in [loser, winner] {
        assert!(problems(&report, twin).contains(&"near_duplicate_summary".to_string()));
    }
    assert_eq!(report["summary"]["problems"]["near_duplicate_summaries"], 1);
    assert_eq!(report["summary"]["problems"]["shadowed_summary"], 1);
    // The score is the share found at rank 1 by its own summary: one of five misses.
    assert_eq!(report["score"], report["summary"]["by_summary"]["rank1"]);
    assert!(report["score"].as_f64().unwrap() <= 0.8);

    // Missing guidance, an undescribed flag, a redundant alias.
    let list = problems(&report, "demo.list_notes");
    for code in [
        "missing_use_when",
        "missing_avoid_when",
        "undescribed_parameters",
        "redundant_alias",
    ] {
        assert!(list.contains(&code.to_string()), "{code} in {list:?}");
    }
    assert_eq!(
        tool(&report, "demo.list_notes")["undescribed_parameters"],
        serde_json::json!(["limit"])
    );
    assert_eq!(
        tool(&report, "demo.list_notes")["aliases"][0],
        serde_json::json!({"alias":"dws demo note list","problem":"redundant_alias"})
    );

    // An alias that reads like another tool's name is ambiguous: searched lexically, one of
    // the note-creating tools comes first.
    let delete = tool(&report, "demo.delete_note");
    assert_eq!(delete["aliases"][0]["alias"], "demo create note");
    assert_eq!(delete["aliases"][0]["problem"], "ambiguous_alias");
    let first = delete["aliases"][0]["lexical_first"]
        .as_str()
        .unwrap_or_default();
    assert!(
        ["demo.create_note", "demo.add_note"].contains(&first),
        "{first}"
    );
    assert!(problems(&report, "demo.delete_note").contains(&"ambiguous_alias".to_string()));

    // A tool with distinct words and full guidance is found first by each of its texts.
    let weather = tool(&report, "demo.get_weather");
    assert_eq!(weather["title"]["rank"], 1);
    assert_eq!(weather["summary"]["rank"], 1);
    assert_eq!(weather["use_when"][0]["rank"], 1);
    assert_eq!(weather["use_when"][0]["text"], "用户问某城市明天会不会下雨");
    assert_eq!(weather["problems"], serde_json::json!([]));

    // The deprecated tool is listed but not probed and needs no guidance.
    let deprecated = tool(&report, "demo.create_note_v1");
    assert_eq!(deprecated["unavailable"], true);
    assert!(deprecated.get("summary").is_none());
    assert_eq!(deprecated["problems"], serde_json::json!([]));
}

#[test]
fn lint_human_report_names_the_problems() {
    let run = ts(&["catalog", "lint", "--catalog", &lint_fixture()]).run();
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stderr, "");
    for needle in [
        "catalog lint: 6 tools (5 probed, 1 unavailable)",
        "score (share found at rank 1 by its own summary)",
        "near-duplicates",
        "summary  demo.add_note  demo.create_note  1.000",
        "missing use_when (1)",
        "demo.list_notes  limit",
        "\"dws demo note list\"  redundant_alias",
    ] {
        assert!(run.stdout.contains(needle), "{needle:?} in\n{}", run.stdout);
    }
}

#[test]
fn lint_is_deterministic_across_processes() {
    let args = ["catalog", "lint", "--catalog", &lint_fixture(), "--json"];
    let first = ts(&args).run();
    let second = ts(&args).env("LC_ALL", "C").run();
    assert_eq!(first, second);
}

#[test]
fn fail_under_prints_the_report_then_fails_with_one_error_line() {
    let catalog = lint_fixture();
    let pass = ts(&[
        "catalog",
        "lint",
        "--catalog",
        &catalog,
        "--fail-under",
        "0",
    ])
    .run();
    assert_eq!(pass.code, 0, "{pass:?}");
    assert!(pass.stdout.contains("(--fail-under 0: ok)"));

    // One of the twin summaries cannot be rank 1, so a perfect score is impossible.
    let fail = ts(&[
        "catalog",
        "lint",
        "--catalog",
        &catalog,
        "--json",
        "--fail-under=1",
    ])
    .run();
    assert_eq!(fail.code, 3, "{fail:?}");
    let report: Value = serde_json::from_str(&fail.stdout).expect("the report is on stdout");
    assert_eq!(report["version"], "catalog-lint.v1");
    assert_eq!(fail.stderr.matches('\n').count(), 1, "one stderr line");
    let error: Value = serde_json::from_str(&fail.stderr).expect("stderr is the error JSON");
    assert_eq!(error["error"]["reason"], "lint_below_threshold");
    assert_eq!(error["error"]["category"], "validation");
    assert_eq!(error["error"]["code"], 3);

    let human = ts(&[
        "catalog",
        "lint",
        "--catalog",
        &catalog,
        "--fail-under",
        "1",
    ])
    .run();
    assert_eq!(human.code, 3);
    assert!(human.stdout.contains("BELOW --fail-under 1"));

    for bad in ["1.5", "-1", "high", "NaN"] {
        let run = ts(&[
            "catalog",
            "lint",
            "--catalog",
            &catalog,
            "--fail-under",
            bad,
        ])
        .run();
        assert_eq!(run.reason(), "invalid_transport", "{bad}");
    }
    let run = ts(&["catalog", "lint", "--query", "x"]).run();
    assert_eq!(run.reason(), "invalid_transport");
}

#[test]
fn lint_audits_the_embedded_catalog() {
    let verify = ts(&["catalog", "verify"]).run().json();
    let report = ts(&["catalog", "lint", "--json"]).run().json();
    assert_valid_report(&report);
    assert_eq!(report["catalog"]["tools"], verify["tools"]);
    assert_eq!(report["catalog"]["source_hash"], verify["source_hash"]);
    let tools = report["tools"].as_array().unwrap();
    assert_eq!(tools.len(), verify["tools"].as_u64().unwrap() as usize);
    let probed = report["summary"]["tools_probed"].as_u64().unwrap() as usize;
    assert_eq!(
        probed,
        tools
            .iter()
            .filter(|t| t.get("unavailable").is_none())
            .count()
    );
    // Every probed tool has a summary probe, every share is a share.
    assert_eq!(report["summary"]["by_summary"]["probes"], probed);
    for by in ["by_title", "by_summary", "by_use_when"] {
        let f = &report["summary"][by];
        let (rank1, top5) = (f["rank1"].as_f64().unwrap(), f["top5"].as_f64().unwrap());
        assert!(
            (0.0..=1.0).contains(&rank1) && rank1 <= top5 && top5 <= 1.0,
            "{by}: {f}"
        );
    }
}
