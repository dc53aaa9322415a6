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

/// Writes `value` as JSON with every object's keys in reverse order (serde_json's own maps
/// are sorted, so this is the only way to feed the binary an unusual key order).
fn reversed_json(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::Object(map) => {
            out.push_str("{ ");
            for (idx, (key, item)) in map.iter().rev().enumerate() {
                if idx > 0 {
                    out.push_str(",\n  ");
                }
                out.push_str(&serde_json::to_string(key).unwrap());
                out.push_str(" :\t");
                reversed_json(item, out);
            }
            out.push_str(" }");
        }
        serde_json::Value::Array(items) => {
            out.push('[');
            for (idx, item) in items.iter().enumerate() {
                if idx > 0 {
                    out.push_str(" , ");
                }
                reversed_json(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap()),
    }
}

/// The repository's `catalog/*.json` (the embedded catalog's source), parsed.
fn repo_catalog_documents() -> Vec<(String, serde_json::Value)> {
    catalog_documents("catalog")
}

/// The `*.json` files of the repository's directory `dir`, parsed, by file name.
fn catalog_documents(dir: &str) -> Vec<(String, serde_json::Value)> {
    let mut files: Vec<_> = std::fs::read_dir(repo().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            (name, serde_json::from_str(&text).unwrap())
        })
        .collect()
}

/// The embedded catalog rewritten: products reversed, tools within each product reversed,
/// every object's keys reversed, different whitespace, files renamed so that they sort in
/// the opposite order; returned as (directory of several files, one merged file).
fn scrambled_embedded_catalog(dir: &TempDir) -> (String, String) {
    let documents = repo_catalog_documents();
    assert!(documents.len() >= 2);
    let split = dir.path().join("split");
    std::fs::create_dir_all(&split).unwrap();
    let mut all_products = Vec::new();
    for (idx, (_, document)) in documents.iter().enumerate() {
        let mut document = document.clone();
        let products = document["products"].as_array_mut().unwrap();
        for product in products.iter_mut() {
            product["tools"].as_array_mut().unwrap().reverse();
        }
        products.reverse();
        all_products.extend(products.iter().cloned());
        let mut text = String::new();
        reversed_json(&document, &mut text);
        // z-000 for the first file, a-… for the last: the directory order is reversed.
        let name = format!("{}-{idx:03}.json", (b'z' - (idx as u8 % 26)) as char);
        std::fs::write(split.join(name), text).unwrap();
    }
    // A non-JSON file in the directory is ignored.
    std::fs::write(split.join("README.txt"), "not a catalog").unwrap();
    all_products.reverse();
    let merged = json!({"version":"catalog.v1","products":all_products});
    let mut text = String::new();
    reversed_json(&merged, &mut text);
    let merged_path = dir.write("merged.json", &text);
    (split.display().to_string(), merged_path)
}

#[test]
fn invariant_reordered_keys_and_files_hash_and_answer_like_the_embedded_catalog() {
    let dir = TempDir::new("scrambled");
    let (split, merged) = scrambled_embedded_catalog(&dir);
    let repo_dir = repo().join("catalog").display().to_string();
    let embedded = hashes(None);
    assert_eq!(hashes(Some(&repo_dir)), embedded, "catalog/ as a directory");
    assert_eq!(
        hashes(Some(&split)),
        embedded,
        "reordered keys, tools, products, files"
    );
    assert_eq!(hashes(Some(&merged)), embedded, "one merged reordered file");
    for query in QUERIES
        .iter()
        .chain(["chat.send_message", "dws calendar event create"].iter())
    {
        let request = json!({"version":"tool-search.v1","query":query,"limit":20});
        let expected = search_request(None, &request);
        assert_eq!(expected.code, 0);
        assert_eq!(search_request(Some(&split), &request), expected, "{query}");
        assert_eq!(search_request(Some(&merged), &request), expected, "{query}");
    }
}

/// Six processes, six environments (each process also draws its own std `RandomState`
/// hash seed): locale, time zone, working directory, an empty environment, and the catalog
/// given as the embedded one, as `catalog/` and as a reordered merged file. Every byte of
/// every answer (search with subqueries and filters, inspect, errors) is the same.
#[test]
fn invariant_identical_bytes_in_six_environments_and_catalog_spellings() {
    let dir = TempDir::new("six");
    let (_, merged) = scrambled_embedded_catalog(&dir);
    let repo_dir = repo().join("catalog").display().to_string();
    let (source, surface) = hashes(None);
    let requests: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["search", "--request-json", "-"],
            json!({"version":"tool-search.v1","query":"把会议纪要发到项目群 and remind everyone","limit":20}).to_string(),
        ),
        (
            vec!["search", "--request-json", "-"],
            json!({"version":"tool-search.v1","subqueries":["创建日程","发送群消息","list my todos"],"effects":["write","read"],"limit":9}).to_string(),
        ),
        (
            vec!["search", "--request-json", "-"],
            json!({"version":"tool-search.v1","query":"İSTANBUL ıi DELETE Straße","limit":10}).to_string(),
        ),
        (
            vec!["search", "--request-json", "-"],
            json!({"version":"tool-search.v1","query":"x","product_ids":["nope"]}).to_string(),
        ),
        (
            vec!["inspect", "--request-json", "-"],
            json!({"version":"schema-inspect.v1","canonical_path":"chat message recall","expected_source_hash":source,"expected_surface_hash":surface}).to_string(),
        ),
    ];
    let elsewhere = TempDir::new("six-cwd");
    for (args, request) in &requests {
        let with_catalog = |catalog: &str| {
            let mut all = args.clone();
            all.extend(["--catalog", catalog]);
            ts(&all).stdin(request)
        };
        let mut empty_env = ts(args).stdin(request);
        empty_env.raw().env_clear();
        let runs = [
            ts(args).stdin(request).run(),
            ts(args)
                .stdin(request)
                .env("LC_ALL", "C")
                .env("LANG", "C")
                .run(),
            ts(args)
                .stdin(request)
                .env("LC_ALL", "tr_TR.UTF-8")
                .env("LANG", "tr_TR.UTF-8")
                .env("TZ", "Pacific/Kiritimati")
                .run(),
            empty_env.cwd(elsewhere.path()).run(),
            with_catalog(&repo_dir).env("LC_ALL", "zh_CN.UTF-8").run(),
            with_catalog(&merged).cwd(std::path::Path::new("/")).run(),
        ];
        for (idx, run) in runs.iter().enumerate().skip(1) {
            assert_eq!(run, &runs[0], "process {idx} for {args:?} {request}");
        }
    }
}

/// `serve` answers each line with exactly the bytes single-shot `search`/`inspect` print
/// (stdout on success, the error line otherwise), on the embedded catalog.
#[test]
fn invariant_serve_equals_single_shot_on_the_embedded_catalog() {
    let (source, surface) = hashes(None);
    let mut requests: Vec<String> = QUERIES
        .iter()
        .map(|q| json!({"version":"tool-search.v1","query":q,"limit":10}).to_string())
        .collect();
    requests.extend([
        json!({"version":"tool-search.v1","subqueries":["创建日程","发送群消息"],"limit":4}).to_string(),
        json!({"version":"tool-search.v1","query":"chat.recall_message","effects":["read"]}).to_string(),
        json!({"version":"tool-search.v1","query":"删除","product_ids":["mail","calendar"],"exclude_canonical":["mail.delete_mail"]}).to_string(),
        json!({"version":"tool-search.v1","query":"x","limit":0.5}).to_string(),
        json!({"version":"schema-inspect.v1","canonical_path":"calendar rsvp","expected_source_hash":source,"expected_surface_hash":surface}).to_string(),
        json!({"version":"schema-inspect.v1","canonical_path":"calendar rsvp","expected_source_hash":surface,"expected_surface_hash":surface}).to_string(),
        json!({"version":"schema-inspect.v1","canonical_path":"calendar rsvp"}).to_string(),
    ]);
    assert_serve_equals_single_shot(None, &requests);
}

/// formats.md §2: any change of indexed or inspected content changes `source_hash` (and not
/// `surface_hash`); a change of identity changes `surface_hash`.
#[test]
fn invariant_content_changes_source_hash_identity_changes_surface_hash() {
    let mini = mini();
    let alpha = std::fs::read_to_string(format!("{mini}/alpha.json")).unwrap();
    let beta = std::fs::read_to_string(format!("{mini}/beta.json")).unwrap();
    let (source, surface) = hashes(Some(&mini));
    let variant = |tag: &str, alpha_text: &str| {
        let dir = TempDir::new(tag);
        dir.write("alpha.json", alpha_text);
        dir.write("beta.json", &beta);
        let path = dir.path().display().to_string();
        let got = hashes(Some(&path));
        drop(dir);
        got
    };
    // Content: each of these changes source_hash only.
    for (tag, from, to) in [
        (
            "description",
            "Send a text or card message.",
            "Send a text message.",
        ),
        (
            "title",
            "\"title\": \"撤回消息\"",
            "\"title\": \"撤回一条消息\"",
        ),
        (
            "param",
            "\"description\": \"消息内容\"",
            "\"description\": \"消息正文\"",
        ),
        ("effect", "\"effect\": \"read\"", "\"effect\": \"write\""),
        ("use-when", "需要通知群成员", "需要通知全体群成员"),
        (
            "availability",
            "\"availability\": \"deprecated\"",
            "\"availability\": \"retired\"",
        ),
        (
            "product-name",
            "\"name\": \"消息\"",
            "\"name\": \"消息中心\"",
        ),
    ] {
        assert!(alpha.contains(from), "{tag}: fixture lacks {from}");
        let (s, f) = variant(tag, &alpha.replacen(from, to, 1));
        assert_ne!(s, source, "{tag} must change source_hash");
        assert_eq!(f, surface, "{tag} must not change surface_hash");
    }
    // Identity: each of these changes surface_hash (and, being content, source_hash too).
    for (tag, from, to) in [
        ("alias", "\"alpha send\"", "\"alpha post\""),
        (
            "cli-path",
            "\"alpha message recall\"",
            "\"alpha message unsend\"",
        ),
        ("primary-cli-path", "\"alpha history\"", "\"alpha log\""),
        (
            "canonical",
            "\"canonical_path\": \"alpha.mystery\",\n          \"name\": \"mystery\"",
            "\"canonical_path\": \"alpha.enigma\",\n          \"name\": \"enigma\"",
        ),
        (
            "new-alias",
            "\"aliases\": [\"alpha send\"]",
            "\"aliases\": [\"alpha send\", \"alpha post\"]",
        ),
    ] {
        assert!(alpha.contains(from), "{tag}: fixture lacks {from}");
        let (s, f) = variant(tag, &alpha.replacen(from, to, 1));
        assert_ne!(f, surface, "{tag} must change surface_hash");
        assert_ne!(s, source, "{tag} must change source_hash");
    }
    // Whitespace alone changes nothing.
    let (s, f) = variant("whitespace", &alpha.replace("\n", "\n\n  "));
    assert_eq!((s, f), (source, surface));
}

/// A catalog's float literals are read exactly in every build. Test builds always get
/// serde_json's `float_roundtrip` (the jsonschema dev-dependency enables it); release builds
/// only if the library asks for it. Without it, `-3.5233447033367527e-147` was read 1 ulp
/// off by a release binary, which then printed another `source_hash` than the test binary.
#[test]
fn invariant_release_builds_read_floats_like_test_builds() {
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    let dependencies = manifest
        .split("[dependencies]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .unwrap_or_default();
    let serde_json_line = dependencies
        .lines()
        .find(|l| l.trim_start().starts_with("serde_json"))
        .unwrap_or_default();
    assert!(
        serde_json_line.contains("float_roundtrip"),
        "serde_json must keep the float_roundtrip feature: {serde_json_line:?}"
    );
    let catalog = fixture("floats/catalog.json");
    let (source, surface) = hashes(Some(&catalog));
    let spec = inspect_with_hashes(Some(&catalog), "num.scale", &source, &surface).json();
    let factor = &spec["tool_spec"]["parameters"]["factor"];
    assert_eq!(factor["default"].to_string(), "-3.5233447033367527e-147");
    assert_eq!(factor["enum"][0].to_string(), "2.638344616030823e-256");
}

/// `serve` keeps per-process caches (merged postings, lexicon phrases, WordNet's words per
/// English query word): an answer must not depend on which requests came before it. The judged
/// dev queries answered forwards and backwards give the same bytes, request by request.
#[test]
fn invariant_serve_answers_do_not_depend_on_request_order() {
    let dev: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("qrels").join("dev.json")).expect("dev.json"),
    )
    .expect("dev JSON");
    let requests: Vec<String> = dev["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .step_by(7)
        .map(|case| {
            let query: String = case["query"]
                .as_str()
                .expect("query")
                .chars()
                .take(256)
                .collect();
            json!({"version":"tool-search.v1","query":query}).to_string()
        })
        .collect();
    assert!(requests.len() > 300, "{} requests", requests.len());
    let answer = |batch: &[String]| {
        let run = ts(&["serve"]).stdin(batch.join("\n") + "\n").run();
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout.lines().map(str::to_string).collect::<Vec<_>>()
    };
    let forwards = answer(&requests);
    let reversed: Vec<String> = requests.iter().rev().cloned().collect();
    let mut backwards = answer(&reversed);
    backwards.reverse();
    assert_eq!(forwards.len(), requests.len());
    assert_eq!(forwards, backwards);
}

/// The foreign catalog, where the product prior (docs/adr/0003) and the lent `avoid_when`
/// situations (docs/adr/0012) apply: `eval --json` of its dev set gives the same bytes from its
/// directory and from one merged file with its products and their tools reversed, in another
/// locale, time zone and working directory.
#[test]
fn invariant_the_foreign_catalog_evaluates_alike_in_any_order_and_process() {
    let catalog_dir = repo().join("qrels/foreign/catalog");
    let mut products: Vec<serde_json::Value> = Vec::new();
    for (_, document) in catalog_documents("qrels/foreign/catalog").iter().rev() {
        for product in document["products"].as_array().unwrap().iter().rev() {
            let mut product = product.clone();
            if let Some(tools) = product["tools"].as_array_mut() {
                tools.reverse();
            }
            products.push(product);
        }
    }
    let dir = TempDir::new("foreign-reversed");
    let document = json!({"version":"catalog.v1","products":products});
    let merged = dir.write("foreign.json", &document.to_string());
    let qrels = repo().join("qrels/foreign/dev.json").display().to_string();
    let eval = |catalog: &str| ts(&["eval", "--catalog", catalog, "--qrels", &qrels, "--json"]);
    let first = eval(&catalog_dir.display().to_string()).run();
    assert_eq!(first.code, 0, "{first:?}");
    let elsewhere = TempDir::new("foreign-cwd");
    let second = eval(&merged)
        .env("LC_ALL", "zh_CN.UTF-8")
        .env("TZ", "Asia/Shanghai")
        .cwd(elsewhere.path())
        .run();
    assert_eq!(second, first);
}
