//! Hostile inputs (tests/fixtures/hostile/manifest.json) replayed through the real binary:
//! every run finishes within a timeout, never panics, and either succeeds with one valid
//! answer line or fails with the expected typed error, nothing on stdout and exactly one
//! error line on stderr. Also replays the fuzzers' regression inputs
//! (tests/fixtures/hostile/fuzz/) through the library.
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::*;

const TIMEOUT: Duration = Duration::from_secs(120);
const BUDGET: usize = 8_192;

fn hostile_dir() -> std::path::PathBuf {
    repo().join("tests/fixtures/hostile")
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(hostile_dir().join("manifest.json")).expect("manifest");
    serde_json::from_str(&text).expect("manifest is JSON")
}

#[derive(Debug)]
struct Outcome {
    code: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs the binary with `stdin`; a run that outlives [`TIMEOUT`] is killed and reported.
fn run(args: &[String], stdin: Vec<u8>) -> Result<Outcome, String> {
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let output = crate::timeout::wait_with_timeout(child, Some(stdin), TIMEOUT)?;
    Ok(Outcome {
        code: output.status.code().unwrap_or(-1),
        stdout: output.stdout,
        stderr: output.stderr,
    })
}

/// Checks the process contract; returns "ok" or the error reason.
fn outcome_of(outcome: &Outcome, is_search: bool) -> Result<String, String> {
    let stderr = String::from_utf8_lossy(&outcome.stderr);
    if stderr.contains("panicked") || outcome.code < 0 || outcome.code == 101 {
        return Err(format!("crash (exit {}): {stderr}", outcome.code));
    }
    if outcome.code == 0 {
        if !outcome.stderr.is_empty() {
            return Err(format!("success with stderr {stderr}"));
        }
        let line = &outcome.stdout;
        if !line.ends_with(b"\n") || line.iter().filter(|&&b| b == b'\n').count() != 1 {
            return Err("success without exactly one stdout line".to_string());
        }
        if is_search && line.len() > BUDGET {
            return Err(format!("answer of {} bytes", line.len()));
        }
        serde_json::from_slice::<Value>(line).map_err(|e| format!("answer is not JSON: {e}"))?;
        return Ok("ok".to_string());
    }
    if !outcome.stdout.is_empty() {
        return Err(format!(
            "exit {} with stdout {}",
            outcome.code,
            String::from_utf8_lossy(&outcome.stdout)
        ));
    }
    if !stderr.ends_with('\n') || stderr.matches('\n').count() != 1 {
        return Err(format!("not one stderr line: {stderr}"));
    }
    let error: Value =
        serde_json::from_str(&stderr).map_err(|e| format!("stderr is not JSON ({e}): {stderr}"))?;
    if error["error"]["code"].as_i64() != Some(i64::from(outcome.code))
        || ![3, 5, 6].contains(&outcome.code)
    {
        return Err(format!("exit {} with error {stderr}", outcome.code));
    }
    Ok(error["error"]["reason"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}

/// The bytes of a generated request (too big or too repetitive to commit).
fn generated_request(name: &str) -> Vec<u8> {
    let padded = |total: usize| {
        let head = r#"{"version":"tool-search.v1","query":"a","exclude_canonical":[""#;
        let tail = r#""]}"#;
        format!(
            "{head}{}{tail}",
            "x".repeat(total - head.len() - tail.len())
        )
        .into_bytes()
    };
    let subqueries = |items: Vec<String>| {
        json!({"version":"tool-search.v1","subqueries":items})
            .to_string()
            .into_bytes()
    };
    match name {
        "request_over_64k" => padded(65_537),
        "request_exactly_64k" => padded(65_536),
        "ten_thousand_distinct_subqueries" => subqueries(
            (0..10_000)
                .map(|i| {
                    let letter = |n: usize| char::from(b'a' + (n % 26) as u8);
                    format!("{}{}{}", letter(i / 676), letter(i / 26), letter(i))
                })
                .collect(),
        ),
        "ten_thousand_identical_subqueries" => subqueries(vec!["a".to_string(); 10_000]),
        "ten_thousand_empty_subqueries" => subqueries(vec![String::new(); 10_000]),
        "deep_nesting_over_64k" => "[".repeat(100_000).into_bytes(),
        "ten_megabytes" => {
            let mut bytes = br#"{"version":"tool-search.v1","query":""#.to_vec();
            bytes.resize(10 * 1024 * 1024, b'x');
            bytes.extend_from_slice(b"\"}");
            bytes
        }
        other => panic!("unknown request generator {other}"),
    }
}

/// Writes a generated catalog under `dir`; returns the `--catalog` path.
fn generated_catalog(name: &str, dir: &TempDir) -> String {
    let tool = |product: &str, name: &str, description: &str| {
        json!({"canonical_path":format!("{product}.{name}"),"name":name,
            "cli_path":format!("{product} {}", name.replace('_', "-")),"title":"发送消息 send",
            "agent_summary":"A generated tool.","description":description,"effect":"read"})
    };
    match name {
        "ten_megabyte_description" => {
            let unit = "发送消息 send the message 撤回 recall_message 2024 ";
            let description = unit.repeat(10 * 1024 * 1024 / unit.len() + 1);
            let catalog = json!({"version":"catalog.v1","products":[{"id":"big","tools":[
                tool("big", "huge", &description), tool("big", "small", "short")]}]});
            dir.write("big.json", &catalog.to_string())
        }
        "five_thousand_tools" => {
            let tools: Vec<Value> = (0..5_000)
                .map(|i| {
                    tool(
                        "many",
                        &format!("t{i:04}"),
                        &format!("tool number {i} 第{i}号"),
                    )
                })
                .collect();
            let catalog = json!({"version":"catalog.v1","products":[{"id":"many","tools":tools}]});
            dir.write("many.json", &catalog.to_string())
        }
        "product_in_two_files" => {
            let catalog = json!({"version":"catalog.v1","products":[{"id":"p","tools":[tool("p", "a", "x")]}]});
            dir.write("one.json", &catalog.to_string());
            dir.write("two.json", &catalog.to_string());
            dir.path().display().to_string()
        }
        "directory_without_json" => {
            dir.write("README.txt", "no catalog here");
            dir.path().display().to_string()
        }
        "empty_file" => dir.write("empty.json", ""),
        other => panic!("unknown catalog generator {other}"),
    }
}

/// Runs jobs on two threads; returns every failure message.
fn run_jobs(jobs: Vec<Box<dyn FnOnce() -> Vec<String> + Send>>) -> Vec<String> {
    let queue = Arc::new(Mutex::new(jobs));
    let failures = Arc::new(Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let queue = Arc::clone(&queue);
            let failures = Arc::clone(&failures);
            std::thread::spawn(move || loop {
                let job = queue.lock().expect("queue").pop();
                let Some(job) = job else { break };
                let found = job();
                failures.lock().expect("failures").extend(found);
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("worker");
    }
    let mut failures = failures.lock().expect("failures").clone();
    failures.sort();
    failures
}

/// Loads the bytes of one manifest request entry and its display name.
fn request_bytes(entry: &Value) -> (String, Vec<u8>) {
    match (entry["file"].as_str(), entry["generate"].as_str()) {
        (Some(file), _) => (
            file.to_string(),
            std::fs::read(hostile_dir().join(file)).expect("request file"),
        ),
        (None, Some(generator)) => (format!("<{generator}>"), generated_request(generator)),
        _ => panic!("manifest entry without file or generate: {entry}"),
    }
}

#[test]
fn hostile_requests_fail_typed_or_answer_and_never_crash() {
    let mini = mini();
    let manifest = manifest();
    let entries = manifest["requests"].as_array().expect("requests").clone();
    assert!(entries.len() >= 100, "the corpus shrank");
    let mut jobs: Vec<Box<dyn FnOnce() -> Vec<String> + Send>> = Vec::new();
    for entry in entries {
        let (name, bytes) = request_bytes(&entry);
        for (command, key) in [("search", "search"), ("inspect", "inspect")] {
            let expected = entry[key].as_str().map(str::to_string);
            let args: Vec<String> = [command, "--catalog", &mini, "--request-json", "-"]
                .iter()
                .map(|s| s.to_string())
                .collect();
            let name = name.clone();
            let bytes = bytes.clone();
            jobs.push(Box::new(move || {
                let result = run(&args, bytes).and_then(|o| outcome_of(&o, command == "search"));
                match (result, expected) {
                    (Err(problem), _) => vec![format!("{name} ({command}): {problem}")],
                    (Ok(got), Some(want)) if got != want => {
                        vec![format!("{name} ({command}): expected {want}, got {got}")]
                    }
                    _ => Vec::new(),
                }
            }));
        }
    }
    let failures = run_jobs(jobs);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// All hostile requests in one `serve` session: one answer line per input line, each
/// byte-identical to the single-shot answer for requests that are one line.
#[test]
fn hostile_requests_in_one_serve_session() {
    let mini = mini();
    let manifest = manifest();
    let mut session = Vec::new();
    let mut single_line_requests = Vec::new();
    for entry in manifest["requests"].as_array().expect("requests") {
        let (name, mut bytes) = request_bytes(entry);
        let one_line = !bytes.contains(&b'\n') && !bytes.ends_with(b"\r");
        if one_line {
            single_line_requests.push((name, bytes.clone()));
        }
        bytes.push(b'\n');
        session.extend(bytes);
    }
    let lines_in = session.iter().filter(|&&b| b == b'\n').count();
    let args: Vec<String> = ["serve", "--catalog", &mini]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let served = run(&args, session).expect("serve finishes");
    assert_eq!(
        served.code,
        0,
        "{}",
        String::from_utf8_lossy(&served.stderr)
    );
    assert!(served.stderr.is_empty());
    let lines: Vec<&[u8]> = served.stdout.split_inclusive(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), lines_in, "one answer per input line");
    for line in &lines {
        serde_json::from_slice::<Value>(line).expect("each answer is JSON");
    }
    // Requests without a newline map one-to-one onto answer lines, in order: compare the
    // first such requests with single-shot runs (the binary's own serve test covers the rest).
    let mut line_idx = 0;
    let mut checked = 0;
    for entry in manifest["requests"].as_array().expect("requests") {
        let (name, bytes) = request_bytes(entry);
        let lines_of_request = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
        let one_line = !bytes.contains(&b'\n') && !bytes.ends_with(b"\r");
        if one_line && checked < 40 {
            let is_inspect = bytes.windows(17).any(|w| w == b"schema-inspect.v1");
            let command = if is_inspect { "inspect" } else { "search" };
            let args: Vec<String> = [command, "--catalog", &mini, "--request-json", "-"]
                .iter()
                .map(|s| s.to_string())
                .collect();
            let single = run(&args, bytes).expect("single-shot finishes");
            let expected = if single.code == 0 {
                single.stdout
            } else {
                single.stderr
            };
            assert_eq!(
                String::from_utf8_lossy(lines[line_idx]),
                String::from_utf8_lossy(&expected),
                "{name}: serve and single-shot differ"
            );
            checked += 1;
        }
        line_idx += lines_of_request;
    }
    assert!(checked >= 40);
    assert!(!single_line_requests.is_empty());
}

/// The first tool's canonical path of a catalog file, if it parses.
fn first_canonical(path: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    value["products"][0]["tools"][0]["canonical_path"]
        .as_str()
        .map(str::to_string)
}

#[test]
fn hostile_catalogs_fail_closed_or_load_and_never_crash() {
    let manifest = manifest();
    let entries = manifest["catalogs"].as_array().expect("catalogs").clone();
    let mut jobs: Vec<Box<dyn FnOnce() -> Vec<String> + Send>> = Vec::new();
    for entry in entries {
        jobs.push(Box::new(move || {
            let dir = TempDir::new("hostile-catalog");
            let (name, path) = match (entry["file"].as_str(), entry["generate"].as_str()) {
                (Some(file), _) => (
                    file.to_string(),
                    hostile_dir().join(file).display().to_string(),
                ),
                (None, Some(generator)) => {
                    (format!("<{generator}>"), generated_catalog(generator, &dir))
                }
                _ => return vec![format!("bad manifest entry {entry}")],
            };
            let want = entry["expect"].as_str().unwrap_or("?").to_string();
            let mut failures = Vec::new();
            let args = |items: &[&str]| -> Vec<String> {
                let mut all: Vec<String> = items.iter().map(|s| s.to_string()).collect();
                all.extend(["--catalog".to_string(), path.clone()]);
                all
            };
            for (label, argv, stdin, is_search) in [
                ("verify", args(&["catalog", "verify"]), Vec::new(), false),
                (
                    "search",
                    args(&["search", "--query", "发送消息 send"]),
                    Vec::new(),
                    true,
                ),
                (
                    "serve",
                    args(&["serve"]),
                    b"{\"version\":\"tool-search.v1\",\"query\":\"x\"}\n".to_vec(),
                    false,
                ),
            ] {
                match run(&argv, stdin).and_then(|o| outcome_of(&o, is_search)) {
                    Err(problem) => failures.push(format!("{name} ({label}): {problem}")),
                    Ok(got) if got != want => {
                        failures.push(format!("{name} ({label}): expected {want}, got {got}"))
                    }
                    Ok(_) => {}
                }
            }
            // A catalog that loads answers an exact query for its own first tool.
            if want == "ok" {
                let canonical = first_canonical(&path).unwrap_or_default();
                let request = json!({"version":"tool-search.v1","query":canonical}).to_string();
                let argv = args(&["search", "--request-json", "-"]);
                match run(&argv, request.into_bytes()) {
                    Ok(o)
                        if o.code == 0
                            && String::from_utf8_lossy(&o.stdout).contains("exact_guard") => {}
                    Ok(o) => failures.push(format!(
                        "{name}: exact search for {canonical} failed: {}",
                        String::from_utf8_lossy(&o.stderr)
                    )),
                    Err(problem) => failures.push(format!("{name}: {problem}")),
                }
            }
            drop(dir);
            failures
        }));
    }
    let failures = run_jobs(jobs);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Inputs the fuzzers found interesting (crashes fixed since, slow units, corner cases),
/// replayed through the same library entry points the fuzz targets use.
#[test]
fn fuzz_regressions_replay_through_the_library() {
    let dir = hostile_dir().join("fuzz");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/hostile/fuzz")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let catalog = toolsearch::cli::load_catalog(Some(Path::new(&mini()))).expect("mini");
    let engine = toolsearch::Engine::new(catalog, "fielded_bm25").expect("engine");
    for file in files {
        let data = std::fs::read(&file).expect("read");
        let name = file.display().to_string();
        for explain in [false, true] {
            match engine.search_bytes(&data, explain) {
                Ok(line) => {
                    assert!(line.len() <= BUDGET, "{name}");
                    assert_eq!(line.matches('\n').count(), 1, "{name}");
                    serde_json::from_str::<Value>(&line).expect("JSON answer");
                }
                Err(error) => assert_eq!(error.exit_code(), 3, "{name}: {error}"),
            }
        }
        match engine.inspect_bytes(&data) {
            Ok(line) => {
                serde_json::from_str::<Value>(&line).expect("JSON answer");
            }
            Err(error) => assert!([3, 6].contains(&error.exit_code()), "{name}: {error}"),
        }
        let served = toolsearch::cli::serve_line(&engine, &data);
        assert_eq!(served.matches('\n').count(), 1, "{name}");
        serde_json::from_str::<Value>(&served).expect("JSON serve line");
    }
}

/// Catalog texts the catalog fuzzer kept (tests/fixtures/hostile/fuzz-catalog/): the build
/// fails with `invalid_catalog` or the snapshot answers an exact search for its own tools.
#[test]
fn fuzz_catalog_regressions_build_or_fail_closed() {
    let dir = hostile_dir().join("fuzz-catalog");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/hostile/fuzz-catalog")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let (mut built, mut refused) = (0, 0);
    for file in files {
        let name = file.display().to_string();
        let text = String::from_utf8_lossy(&std::fs::read(&file).expect("read")).into_owned();
        let sources = vec![toolsearch::catalog::SourceFile {
            name: "fuzz.json".to_string(),
            text: text.into(),
        }];
        match toolsearch::catalog::Catalog::build(&sources) {
            Err(error) => {
                assert_eq!(
                    error.reason,
                    toolsearch::error::Reason::InvalidCatalog,
                    "{name}"
                );
                assert_eq!(error.exit_code(), 5);
                refused += 1;
            }
            Ok(catalog) => {
                let canonical = catalog.tools()[0].def.canonical_path.clone();
                let engine = toolsearch::Engine::new(catalog, "fielded_bm25").expect("engine");
                let request = json!({"version":"tool-search.v1","query":canonical});
                let line = engine
                    .search_bytes(request.to_string().as_bytes(), false)
                    .expect("an identity query is answered");
                assert!(
                    line.contains("\"strategy\":\"exact_guard\"")
                        || line.contains("\"strategy\":\"exact_filtered\""),
                    "{name}: {line}"
                );
                built += 1;
            }
        }
    }
    assert!(built > 0 && refused > 0, "built {built}, refused {refused}");
}

/// `serve` skips the rest of an oversized line without holding it (a 32 MiB line once was
/// read whole into memory) and answers it exactly like single-shot `search` does.
#[test]
fn serve_skips_an_endless_line_and_answers_like_single_shot() {
    let mut huge = br#"{"version":"tool-search.v1","query":""#.to_vec();
    huge.resize(32 * 1024 * 1024, b'x');
    let single = run(
        &[
            "search".to_string(),
            "--request-json".to_string(),
            "-".to_string(),
        ],
        huge.clone(),
    )
    .expect("single-shot finishes");
    assert_eq!(
        outcome_of(&single, true).as_deref(),
        Ok("request_too_large")
    );
    let mut session = huge;
    session
        .extend_from_slice(b"\n{\"version\":\"tool-search.v1\",\"query\":\"chat.send_message\"}\n");
    let served = run(&["serve".to_string()], session).expect("serve finishes");
    assert_eq!(served.code, 0);
    let lines: Vec<&[u8]> = served.stdout.split_inclusive(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0],
        &single.stderr[..],
        "same error line as single-shot"
    );
    assert!(String::from_utf8_lossy(lines[1]).contains("exact_guard"));
}
