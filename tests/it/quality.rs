//! The quality floor: CI fails if ranking quality on the judged test set drops below the
//! figures recorded in docs/EVALUATION.md (minus a 0.02 margin), or if any identity case fails.
use crate::util::*;

fn eval(qrels: &str) -> serde_json::Value {
    let path = repo().join("qrels").join(qrels).display().to_string();
    ts(&["eval", "--qrels", &path, "--json"]).run().json()
}

fn metric(report: &serde_json::Value, key: &str) -> f64 {
    report["overall"][key].as_f64().unwrap_or(f64::NAN)
}

/// Fails when an overall figure of `report` is below its floor; `what` names the set.
fn assert_floors(report: &serde_json::Value, floors: &[(&str, f64)], what: &str) {
    for &(key, floor) in floors {
        let value = metric(report, key);
        assert!(
            value >= floor,
            "{key} = {value} on {what} fell below the floor {floor} (docs/EVALUATION.md)"
        );
    }
}

#[test]
fn quality_floor_on_the_test_set() {
    let report = eval("test.json");
    assert_eq!(report["overall"]["cases"], 240);
    let floors = [("recall@1", 0.829), ("recall@5", 0.952), ("mrr@10", 0.881)];
    assert_floors(&report, &floors, "the test set");
    let forbidden = metric(&report, "forbidden@5");
    assert!(
        forbidden <= 0.153,
        "forbidden@5 = {forbidden} rose above 0.153 (16 of 118 since docs/adr/0019's tail cut; the \
         ceiling is two cases above. It was 0.18 before, 19 of 118 since docs/adr/0018's sure \
         answer, 0.27 before that, raised from 0.18 in docs/adr/0004, short \
         queries, from 0.21 in docs/adr/0010, quoted spans, from 0.22 in docs/adr/0004, round-4 \
         groups, from 0.23 in docs/adr/0005, informal destructive cues, from 0.24 in docs/adr/0001, \
         stop pairs, and from 0.26 in docs/adr/0003, the coordination factor; also 0.24 between the \
         two rounds of docs/adr/0012)"
    );
    // 14 of 28 in docs/EVALUATION.md since docs/adr/0006's learned flag (pre-registration 91);
    // the floor is two cases under (0.17 before it: 6 of 28 under the first-hit rule).
    let abstain = metric(&report, "abstain_accuracy");
    assert!(
        abstain >= 0.42,
        "abstain_accuracy = {abstain} fell below the floor 0.42 (docs/adr/0006)"
    );
    // 21 of 28 in docs/EVALUATION.md; the floor is one case under (a 0.02 margin is less than a
    // case here).
    let workflows = metric(&report, "workflow_complete@5");
    assert!(
        workflows >= 0.71,
        "workflow_complete@5 = {workflows} fell below the floor 0.71 (docs/adr/0013)"
    );
}

/// The same kind of floor on the catalogs nobody tuned on (docs/EVALUATION.md, "Catalogs nobody
/// tuned on"): `qrels/foreign/` (written in Chinese) and `qrels/imported/` (imported from English
/// MCP tool lists), each test set's figures minus three of its 108 answerable cases (the foreign
/// one's since ADR 0020's English bridge, session 25: 0.555, 0.824 and 0.668 before; its R@5 0.851
/// until the bridge's synonyms, session 26; ADR 0003's product prior, session 27, moved FRB to
/// 0.611 / 0.880 / 0.725 and FEB to 0.481 / 0.731 / 0.596, and the floors were left as they were;
/// ADR 0012's `avoid_when` situations then moved FRB to 0.630 / 0.880 / 0.732), so a change
/// that only fits the embedded catalog's words cannot land unseen. Only these sets' aggregates are
/// ever read (pre-registrations 83 and 86).
#[test]
fn quality_floors_on_catalogs_nobody_tuned_on() {
    for (dir, tools, floors) in [
        (
            "foreign",
            195,
            [("recall@1", 0.601), ("recall@5", 0.861), ("mrr@10", 0.711)],
        ),
        (
            "imported",
            140,
            [("recall@1", 0.426), ("recall@5", 0.694), ("mrr@10", 0.551)],
        ),
    ] {
        let qrels = repo().join("qrels").join(dir).join("test.json");
        let catalog = repo().join("qrels").join(dir).join("catalog");
        let (qrels, catalog) = (qrels.display().to_string(), catalog.display().to_string());
        let report = ts(&["eval", "--catalog", &catalog, "--qrels", &qrels, "--json"])
            .run()
            .json();
        assert_eq!(report["overall"]["cases"], 120, "{dir}");
        assert_eq!(report["catalog"]["tools"], tools, "{dir}");
        assert_floors(&report, &floors, &format!("qrels/{dir}"));
    }
}

/// Abstain accuracy counts weak matches, so flagging every answer would score 1.0: at most 5 %
/// of the test set's answerable single requests may carry `weak_match` (8 of 184 do under
/// docs/adr/0006's learned flag; 5 under its first-hit rule), and each weak answer says why in
/// its hint.
#[test]
fn few_answerable_requests_are_weak_matches() {
    let text = std::fs::read_to_string(repo().join("qrels").join("test.json")).expect("test.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("qrels JSON");
    let mut lines = String::new();
    let mut answerable = 0;
    for case in doc["cases"].as_array().expect("cases") {
        if case.get("workflow").is_some() || case["expect"] == "abstain" {
            continue;
        }
        lines.push_str(&case_request_line(case, 10));
        answerable += 1;
    }
    let out = ts(&["serve"]).stdin(lines).run();
    assert_eq!(out.code, 0, "serve failed: {}", out.stderr);
    let mut weak = 0;
    for line in out.stdout.lines() {
        let answer: serde_json::Value = serde_json::from_str(line).expect("an answer line");
        assert!(answer.get("error").is_none(), "{answer}");
        if answer["weak_match"] == true {
            weak += 1;
            assert!(answer["hint"]
                .as_str()
                .is_some_and(|h| h.starts_with("Only weak matches")));
        }
    }
    assert_eq!(out.stdout.lines().count(), answerable);
    assert!(answerable > 150, "only {answerable} answerable requests");
    assert!(
        weak * 20 <= answerable,
        "{weak} of {answerable} answerable requests are weak matches (more than 5 %)"
    );
    // The readable eval report states the same count, so the price of abstain accuracy is seen.
    let path = repo().join("qrels").join("test.json").display().to_string();
    let report = ts(&["eval", "--qrels", &path, "--worst", "0"]).run();
    let stated = format!("answerable single requests with weak_match: {weak} of {answerable};");
    assert!(report.stdout.contains(&stated), "{}", report.stdout);
}

#[test]
fn every_identity_case_is_exact() {
    let report = eval("identity.json");
    assert_eq!(metric(&report, "recall@1"), 1.0);
    assert_eq!(metric(&report, "abstain_accuracy"), 1.0);
    for case in report["per_case"].as_array().unwrap() {
        let strategy = case["strategy"].as_str().unwrap();
        assert!(
            strategy == "exact_guard" || strategy == "exact_filtered",
            "{} answered by {strategy}",
            case["id"]
        );
    }
}

/// `eval --param` reaches the ranking (switching off ADR 0004's short-request rule, ADR 0010's
/// quoted spans, ADR 0011's identifier shapes, ADR 0001's word pairs or its stem siblings changes the answers and
/// names itself in the report), and a malformed knob is a validation error.
#[test]
fn eval_params_reach_the_ranking_and_bad_ones_are_refused() {
    let path = repo().join("qrels").join("test.json").display().to_string();
    let default = eval("test.json");
    for knob in [
        "short_query_words=0",
        "quoted_weight=1",
        "id_shapes=false",
        "shingles=false",
        "stem_weight=0",
    ] {
        let off = ts(&["eval", "--qrels", &path, "--json", "--param", knob])
            .run()
            .json();
        assert_ne!(default["per_case"], off["per_case"], "{knob}");
        assert_eq!(off["retriever"], format!("fielded_bm25[{knob}]"));
    }
    for bad in [
        "short_query_words=abc",
        "short_query_words=-1",
        "short_expansion_weight=x",
        "quoted_weight=heavy",
        "expand_quoted=maybe",
        "id_shapes=1",
        "id_shape_weight=",
        "shingles=yes",
        "shingle_weight=x",
        "stem_weight=much",
        "no_such_knob=1",
        "weights=1,2",
    ] {
        let run = ts(&["eval", "--qrels", &path, "--param", bad]).run();
        assert_eq!(run.reason(), "invalid_transport", "{bad}");
    }
}

/// `eval --param learned_pairs=FILE` ranks with that file's pairs instead of the compiled ones
/// (ADR 0015's cross-validation): the shipped file read at run time answers exactly like the
/// compiled tables, `learned_weight=0` or another file changes the answers, and a bad file is
/// a validation error with nothing on stdout.
#[test]
fn learned_pairs_can_be_read_from_a_file() {
    let path = repo().join("qrels").join("test.json").display().to_string();
    let shipped = repo()
        .join("src/text/learned_pairs.txt")
        .display()
        .to_string();
    let default = eval("test.json");
    let from_file = ts(&[
        "eval",
        "--qrels",
        &path,
        "--json",
        "--param",
        &format!("learned_pairs={shipped}"),
    ])
    .run()
    .json();
    assert_eq!(default["per_case"], from_file["per_case"]);
    assert_eq!(
        from_file["retriever"],
        format!("fielded_bm25[learned_pairs={shipped}]")
    );
    let off = ts(&[
        "eval",
        "--qrels",
        &path,
        "--json",
        "--param",
        "learned_weight=0",
    ])
    .run()
    .json();
    assert_ne!(default["per_case"], off["per_case"]);
    let dir = TempDir::new("pairs");
    let one = dir.write("one.txt", "bot | 机器人\n");
    let other = ts(&[
        "eval",
        "--qrels",
        &path,
        "--json",
        "--param",
        &format!("learned_pairs={one}"),
    ])
    .run()
    .json();
    assert_ne!(default["per_case"], other["per_case"]);
    for (name, text) in [
        ("unsorted.txt", "b | x\na | y\n"),
        ("bad.txt", "no separator\n"),
    ] {
        let bad = dir.write(name, text);
        let run = ts(&[
            "eval",
            "--qrels",
            &path,
            "--param",
            &format!("learned_pairs={bad}"),
        ])
        .run();
        assert_eq!(run.reason(), "invalid_transport", "{name}");
        assert!(run.stdout.is_empty(), "{name}");
    }
    let missing = ts(&[
        "eval",
        "--qrels",
        &path,
        "--param",
        "learned_pairs=/nonexistent/pairs.txt",
    ])
    .run();
    assert_eq!(missing.reason(), "invalid_transport");
}

/// `--worst N` bounds every per-case list of the readable report, `--compare`'s wins included,
/// and `--worst 0` prints figures only: a run on the test set need show none of its cases.
#[test]
fn worst_bounds_every_case_list_and_zero_prints_figures_only() {
    let path = repo().join("qrels").join("test.json").display().to_string();
    let report = |worst: &str| {
        let run = ts(&[
            "eval",
            "--qrels",
            &path,
            "--worst",
            worst,
            "--compare",
            "bm25_single_field",
        ])
        .run();
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    let quiet = report("0");
    assert!(quiet.contains("recall@5 A − B"), "{quiet}");
    let ids: Vec<&str> = quiet
        .split_whitespace()
        .filter(|word| {
            ["-en-", "-mx-", "-zh-", "-wf-", "-ab-"]
                .iter()
                .any(|k| word.contains(k))
        })
        .collect();
    assert!(ids.is_empty(), "case ids shown with --worst 0: {ids:?}");
    let two = report("2");
    for side in ["  A wins: ", "  B wins: "] {
        let line = two
            .lines()
            .find(|line| line.starts_with(side))
            .unwrap_or_else(|| panic!("no `{side}` line:\n{two}"));
        assert_eq!(line[side.len()..].split(' ').count(), 2, "{line}");
    }
    // The paired outcomes: a count line each, and lists bounded like the wins.
    for label in [
        "workflow complete@5: A only on ",
        "forbidden tool in the top 5: A only on ",
        "abstain answered (abstained or weak_match): A only on ",
    ] {
        assert!(
            quiet.lines().any(|line| line.starts_with(label)),
            "{label}\n{quiet}"
        );
    }
    let lists: Vec<&str> = two
        .lines()
        .filter(|l| l.starts_with("  A only: ") || l.starts_with("  B only: "))
        .collect();
    assert!(!lists.is_empty(), "{two}");
    for line in lists {
        assert!(line[10..].split(' ').count() <= 2, "{line}");
    }
}
