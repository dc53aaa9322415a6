//! Same catalog + same request = the same bytes, in any process and environment.
use serde_json::json;

use crate::util::*;

const QUERIES: &[&str] = &[
    "帮我看看这条群消息谁还没读",
    "把 PROC-2024-118 这个 OA 审批转给 Lisa",
    "schedule a meeting with the design team on Friday",
    "删除",
    "list",
];

#[test]
fn invariant_identical_bytes_across_processes_and_environments() {
    let elsewhere = TempDir::new("cwd");
    for query in QUERIES {
        let request = json!({"version":"tool-search.v1","query":query,"limit":20}).to_string();
        let runs: Vec<Run> = vec![
            ts(&["search", "--request-json", "-"]).stdin(&request).run(),
            ts(&["search", "--request-json", "-"])
                .stdin(&request)
                .env("LC_ALL", "C")
                .env("LANG", "C")
                .run(),
            ts(&["search", "--request-json", "-"])
                .stdin(&request)
                .env("LC_ALL", "zh_CN.UTF-8")
                .env("TZ", "Asia/Shanghai")
                .run(),
            ts(&["search", "--request-json", "-"])
                .stdin(&request)
                .cwd(elsewhere.path())
                .run(),
            ts(&["search", "--request-json", "-", "--explain"])
                .stdin(&request)
                .run(),
        ];
        let first = &runs[0];
        assert_eq!(first.code, 0);
        for run in &runs[1..4] {
            assert_eq!(run, first, "query {query}");
        }
        // --explain only adds score_breakdown (so the budget may keep fewer); the order is the same.
        let explained = canonicals(&runs[4].json());
        assert!(!explained.is_empty());
        assert_eq!(explained[..], canonicals(&first.json())[..explained.len()]);
    }
}

#[test]
fn invariant_file_and_directory_catalogs_hash_and_answer_the_same() {
    let mini = mini();
    let alpha: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{mini}/alpha.json")).unwrap())
            .unwrap();
    let beta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{mini}/beta.json")).unwrap())
            .unwrap();
    // One file holding both products, in the other order, pretty-printed differently.
    let merged =
        json!({"products":[beta["products"][0], alpha["products"][0]], "version":"catalog.v1"});
    let dir = TempDir::new("merged");
    let file = dir.write("merged.json", &serde_json::to_string(&merged).unwrap());
    // A directory with the same products under file names that sort the other way.
    let renamed = TempDir::new("renamed");
    renamed.write("a.json", &serde_json::to_string_pretty(&beta).unwrap());
    renamed.write("b.json", &serde_json::to_string(&alpha).unwrap());
    let renamed_path = renamed.path().display().to_string();
    assert_eq!(hashes(Some(&mini)), hashes(Some(&file)));
    assert_eq!(hashes(Some(&mini)), hashes(Some(&renamed_path)));
    for query in ["发送消息", "list events", "alpha send"] {
        let request = json!({"version":"tool-search.v1","query":query});
        let expected = search_request(Some(&mini), &request);
        assert_eq!(search_request(Some(&file), &request), expected);
        assert_eq!(search_request(Some(&renamed_path), &request), expected);
    }
}
