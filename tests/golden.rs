//! The golden suite: every case under `golden/` is run through the real binary and its
//! stdout, stderr and exit code are compared byte for byte with the files next to it.
//!
//! A case is a directory holding `cmd` (a JSON array of arguments, `--catalog` paths
//! relative to the repository root, which is the working directory) and optionally
//! `stdin` (bytes fed to the process) or `stdin_path` (a repository path opened as stdin,
//! e.g. a directory to make reading fail), plus the expected `stdout`, `stderr` and `exit`.
//! An optional `stdout_len` pins the exact byte length of stdout (budget cases); it is never
//! rewritten. `{{SOURCE_HASH}}` and `{{SURFACE_HASH}}` in `cmd` and `stdin` are replaced
//! by the hashes of the case's catalog (`toolsearch catalog hash`), so inspect cases survive
//! an intended catalog change.
//!
//! `UPDATE_GOLDEN=1 cargo test --test golden` rewrites the expected files (and creates them
//! for new cases); the diff is reviewed in the commit. A directory with files but no `cmd`,
//! an empty directory, an unknown file name or a case missing an expected file (outside
//! update mode) fails the suite.
//!
//! Besides the bytes, every run is checked against the process contract: success means
//! an empty stderr, failure means an empty stdout and exactly one error JSON line on stderr
//! whose `code` is the exit code, and no search answer line exceeds 8,192 bytes.

#[path = "support/timeout.rs"]
mod timeout;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_toolsearch");
const CASE_FILES: &[&str] = &[
    "cmd",
    "stdin",
    "stdin_path",
    "stdout",
    "stderr",
    "exit",
    "stdout_len",
];
const EXPECTED_FILES: &[&str] = &["stdout", "stderr", "exit"];
const TIMEOUT: Duration = Duration::from_secs(120);
const BUDGET: usize = 8_192;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn update_mode() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| !v.is_empty() && v != "0")
}

/// What one process did.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Output {
    code: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs the binary in the repository root with a cleared environment and a timeout.
fn run(args: &[String], stdin: Stdin) -> Result<Output, String> {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(repo())
        .env_clear()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let feed = match stdin {
        Stdin::Bytes(bytes) => {
            command.stdin(Stdio::piped());
            Some(bytes)
        }
        Stdin::Path(path) => {
            let file = std::fs::File::open(&path)
                .map_err(|e| format!("stdin_path {}: {e}", path.display()))?;
            command.stdin(Stdio::from(file));
            None
        }
    };
    let child = command.spawn().map_err(|e| format!("spawn {BIN}: {e}"))?;
    let output = timeout::wait_with_timeout(child, feed, TIMEOUT)?;
    Ok(Output {
        code: output.status.code().unwrap_or(-1),
        stdout: output.stdout,
        stderr: output.stderr,
    })
}

enum Stdin {
    Bytes(Vec<u8>),
    Path(PathBuf),
}

/// One case directory.
struct Case {
    name: String,
    dir: PathBuf,
}

/// Walks `golden/`; returns the cases and every structural problem found.
fn discover(root: &Path) -> (Vec<Case>, Vec<String>) {
    let mut cases = Vec::new();
    let mut problems = Vec::new();
    walk(root, root, &mut cases, &mut problems);
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    (cases, problems)
}

fn walk(root: &Path, dir: &Path, cases: &mut Vec<Case>, problems: &mut Vec<String>) {
    let rel = dir.strip_prefix(root).unwrap_or(dir).display().to_string();
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push(name);
                }
            }
        }
        Err(e) => {
            problems.push(format!("{rel}: cannot read: {e}"));
            return;
        }
    }
    files.sort();
    dirs.sort();
    let is_root = dir == root;
    if is_root {
        files.retain(|f| f != "README.md");
    }
    if files.iter().any(|f| f == "cmd") {
        if !dirs.is_empty() {
            problems.push(format!(
                "{rel}: a case directory must not hold subdirectories"
            ));
        }
        for file in &files {
            if !CASE_FILES.contains(&file.as_str()) {
                problems.push(format!("{rel}: unknown file `{file}` in a case"));
            }
        }
        if files.iter().any(|f| f == "stdin") && files.iter().any(|f| f == "stdin_path") {
            problems.push(format!("{rel}: give `stdin` or `stdin_path`, not both"));
        }
        cases.push(Case {
            name: rel,
            dir: dir.to_path_buf(),
        });
        return;
    }
    if !files.is_empty() {
        problems.push(format!(
            "{rel}: orphan files {files:?} (a case needs `cmd`; a group holds only directories)"
        ));
    }
    if dirs.is_empty() && files.is_empty() && !is_root {
        problems.push(format!("{rel}: empty directory (an incomplete case)"));
    }
    for sub in dirs {
        walk(root, &sub, cases, problems);
    }
}

/// The `--catalog` argument of a command line, if any.
fn catalog_of(args: &[String]) -> Option<String> {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--catalog" {
            return iter.next().cloned();
        }
        if let Some(value) = arg.strip_prefix("--catalog=") {
            return Some(value.to_string());
        }
    }
    None
}

/// A case's name, its failures (empty = pass) and how long it ran.
type CaseResult = (String, Vec<String>, Duration);

/// Catalog → (source_hash, surface_hash), computed once per catalog by the binary.
type HashCache = Mutex<BTreeMap<Option<String>, (String, String)>>;

fn hashes_for(catalog: &Option<String>, cache: &HashCache) -> Result<(String, String), String> {
    if let Some(found) = cache.lock().map_err(|e| e.to_string())?.get(catalog) {
        return Ok(found.clone());
    }
    let mut args = vec!["catalog".to_string(), "hash".to_string()];
    if let Some(path) = catalog {
        args.extend(["--catalog".to_string(), path.clone()]);
    }
    let output = run(&args, Stdin::Bytes(Vec::new()))?;
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "`catalog hash` for {catalog:?} did not print JSON ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    })?;
    let field = |name: &str| value[name].as_str().unwrap_or_default().to_string();
    let found = (field("source_hash"), field("surface_hash"));
    cache
        .lock()
        .map_err(|e| e.to_string())?
        .insert(catalog.clone(), found.clone());
    Ok(found)
}

fn replace_bytes(haystack: &[u8], needle: &[u8], with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack[i..].starts_with(needle) {
            out.extend_from_slice(with);
            i += needle.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}

fn has_placeholder(bytes: &[u8]) -> bool {
    bytes.windows(2).any(|w| w == b"{{")
}

fn substitute(bytes: &[u8], hashes: &(String, String)) -> Vec<u8> {
    let step = replace_bytes(bytes, b"{{SOURCE_HASH}}", hashes.0.as_bytes());
    replace_bytes(&step, b"{{SURFACE_HASH}}", hashes.1.as_bytes())
}

/// Checks the process contract that holds for every command, whatever the bytes.
fn contract_problems(args: &[String], output: &Output) -> Vec<String> {
    let mut problems = Vec::new();
    let command = args.first().map(String::as_str).unwrap_or_default();
    if output.code == 0 {
        if !output.stderr.is_empty() {
            problems.push("success with a non-empty stderr".to_string());
        }
        let is_search = command == "search"
            || (command == "schema" && args.get(1).is_some_and(|a| a == "search"));
        if is_search || command == "serve" {
            for line in output.stdout.split_inclusive(|&b| b == b'\n') {
                if line.len() > BUDGET && !line.starts_with(b"{\"version\":\"schema-inspect.v1\"") {
                    problems.push(format!("an answer line of {} bytes > {BUDGET}", line.len()));
                }
                if serde_json::from_slice::<serde_json::Value>(line).is_err() {
                    problems.push("an answer line is not JSON".to_string());
                }
            }
        }
    } else {
        if !output.stdout.is_empty() {
            problems.push(format!("exit {} with a non-empty stdout", output.code));
        }
        let lines = output.stderr.split_inclusive(|&b| b == b'\n').count();
        if lines != 1 || !output.stderr.ends_with(b"\n") {
            problems.push(format!(
                "exit {} without exactly one stderr line",
                output.code
            ));
        }
        match serde_json::from_slice::<serde_json::Value>(&output.stderr) {
            Ok(value) if value["error"]["code"].as_i64() == Some(i64::from(output.code)) => {}
            Ok(value) => problems.push(format!(
                "error code {} != exit {}",
                value["error"]["code"], output.code
            )),
            Err(e) => problems.push(format!("stderr is not one error JSON: {e}")),
        }
        if ![3, 5, 6].contains(&output.code) {
            problems.push(format!("exit code {} is not 3, 5 or 6", output.code));
        }
    }
    problems
}

/// About 200 bytes of `line` around byte `at`, on character boundaries.
fn window(line: &[u8], at: usize) -> String {
    let start = at.saturating_sub(100);
    let end = (at + 100).min(line.len());
    let text = String::from_utf8_lossy(&line[start.min(end)..end]);
    let prefix = if start > 0 { "…" } else { "" };
    let suffix = if end < line.len() { "…" } else { "" };
    format!("{prefix}{text}{suffix}")
}

/// The first line where `expected` and `actual` differ, for the report.
fn first_difference(expected: &[u8], actual: &[u8]) -> String {
    let expected: Vec<&[u8]> = expected.split(|&b| b == b'\n').collect();
    let actual: Vec<&[u8]> = actual.split(|&b| b == b'\n').collect();
    for (idx, (want, got)) in expected.iter().zip(actual.iter()).enumerate() {
        if want != got {
            let at = want
                .iter()
                .zip(got.iter())
                .position(|(a, b)| a != b)
                .unwrap_or(want.len().min(got.len()));
            return format!(
                "line {}, first difference at byte {at}:\n  expected: {}\n  actual:   {}",
                idx + 1,
                window(want, at),
                window(got, at)
            );
        }
    }
    format!(
        "line counts differ: expected {} lines, got {}",
        expected.len(),
        actual.len()
    )
}

/// Runs one case; returns its failures (empty = pass). In update mode, writes the files.
fn check_case(case: &Case, cache: &HashCache, update: bool) -> Vec<String> {
    let mut failures = Vec::new();
    let read = |name: &str| std::fs::read(case.dir.join(name)).ok();
    let Some(cmd) = read("cmd") else {
        return vec!["cannot read cmd".to_string()];
    };
    let catalog_args: Vec<String> = match serde_json::from_slice(&cmd) {
        Ok(args) => args,
        Err(e) => return vec![format!("cmd is not a JSON array of strings: {e}")],
    };
    let stdin_bytes = read("stdin").unwrap_or_default();
    let needs_hashes = has_placeholder(&cmd) || has_placeholder(&stdin_bytes);
    let (args, stdin_bytes) = if needs_hashes {
        let hashes = match hashes_for(&catalog_of(&catalog_args), cache) {
            Ok(h) => h,
            Err(e) => return vec![e],
        };
        let args = catalog_args
            .iter()
            .map(|a| String::from_utf8_lossy(&substitute(a.as_bytes(), &hashes)).into_owned())
            .collect::<Vec<_>>();
        (args, substitute(&stdin_bytes, &hashes))
    } else {
        (catalog_args, stdin_bytes)
    };
    let stdin = match read("stdin_path") {
        Some(path) => Stdin::Path(repo().join(String::from_utf8_lossy(&path).trim())),
        None => Stdin::Bytes(stdin_bytes),
    };
    let output = match run(&args, stdin) {
        Ok(output) => output,
        Err(e) => return vec![e],
    };
    failures.extend(contract_problems(&args, &output));
    if let Some(len) = read("stdout_len") {
        let want = String::from_utf8_lossy(&len).trim().to_string();
        if want != output.stdout.len().to_string() {
            failures.push(format!(
                "stdout is {} bytes; stdout_len pins {want} (regenerate the case's stdin so it stays on the boundary)",
                output.stdout.len()
            ));
        }
    }
    let actual: BTreeMap<&str, Vec<u8>> = BTreeMap::from([
        ("stdout", output.stdout.clone()),
        ("stderr", output.stderr.clone()),
        ("exit", format!("{}\n", output.code).into_bytes()),
    ]);
    for name in EXPECTED_FILES {
        let got = &actual[name];
        let path = case.dir.join(name);
        if update {
            if read(name).as_ref() != Some(got) {
                if let Err(e) = std::fs::write(&path, got) {
                    failures.push(format!("cannot write {}: {e}", path.display()));
                }
            }
            continue;
        }
        match read(name) {
            None => failures.push(format!(
                "missing `{name}` (incomplete case; UPDATE_GOLDEN=1 creates it)"
            )),
            Some(expected) if &expected != got => failures.push(format!(
                "{name} differs; {}",
                first_difference(&expected, got)
            )),
            Some(_) => {}
        }
    }
    failures
}

#[test]
fn golden() {
    let root = repo().join("golden");
    let update = update_mode();
    let (cases, problems) = discover(&root);
    assert!(
        problems.is_empty(),
        "golden/ is malformed:\n{}",
        problems.join("\n")
    );
    assert!(cases.len() >= 80, "only {} golden cases", cases.len());
    let cache: Arc<HashCache> = Arc::new(Mutex::new(BTreeMap::new()));
    let queue = Arc::new(Mutex::new(cases.into_iter().collect::<Vec<_>>()));
    let results: Arc<Mutex<Vec<CaseResult>>> = Arc::new(Mutex::new(Vec::new()));
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 4);
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let queue = Arc::clone(&queue);
            let cache = Arc::clone(&cache);
            let results = Arc::clone(&results);
            std::thread::spawn(move || loop {
                let next = queue.lock().ok().and_then(|mut q| q.pop());
                let Some(case) = next else { break };
                let start = Instant::now();
                let failures = check_case(&case, &cache, update);
                if let Ok(mut r) = results.lock() {
                    r.push((case.name, failures, start.elapsed()));
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().expect("golden worker");
    }
    let mut results = results.lock().expect("results").clone();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let failed: Vec<String> = results
        .iter()
        .filter(|(_, failures, _)| !failures.is_empty())
        .map(|(name, failures, _)| format!("golden/{name}:\n  {}", failures.join("\n  ")))
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} golden cases failed (after an intended change: UPDATE_GOLDEN=1 cargo test --test golden, then review the diff):\n\n{}",
        failed.len(),
        results.len(),
        failed.join("\n\n")
    );
}

#[test]
fn discovery_rejects_orphans_and_incomplete_cases() {
    let base = std::env::temp_dir().join(format!("toolsearch-golden-walk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let make = |rel: &str, file: Option<(&str, &str)>| {
        let dir = base.join(rel);
        std::fs::create_dir_all(&dir).expect("mkdir");
        if let Some((name, text)) = file {
            std::fs::write(dir.join(name), text).expect("write");
        }
    };
    make("area/good", Some(("cmd", "[\"--help\"]")));
    make("area/orphan", Some(("stdout", "x")));
    make("area/empty", None);
    make("area/typo", Some(("cmd", "[]")));
    make("area/typo", Some(("stdou", "x")));
    let (cases, problems) = discover(&base);
    let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["area/good", "area/typo"]);
    assert_eq!(problems.len(), 3, "{problems:?}");
    assert!(problems
        .iter()
        .any(|p| p.starts_with("area/orphan: orphan files")));
    assert!(problems
        .iter()
        .any(|p| p.starts_with("area/empty: empty directory")));
    assert!(problems.iter().any(|p| p.contains("unknown file `stdou`")));
    // A case without its expected files is incomplete outside update mode.
    let cache = Mutex::new(BTreeMap::new());
    let good = cases
        .iter()
        .find(|c| c.name == "area/good")
        .expect("good case");
    let failures = check_case(good, &cache, false);
    assert_eq!(failures.len(), 3, "{failures:?}");
    assert!(failures.iter().all(|f| f.starts_with("missing `")));
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn contract_check_catches_partial_output() {
    let args = vec!["search".to_string()];
    let bad = Output {
        code: 3,
        stdout: b"{}\n".to_vec(),
        stderr: b"{\"error\":{\"code\":3}}\n".to_vec(),
    };
    assert_eq!(
        contract_problems(&args, &bad),
        vec!["exit 3 with a non-empty stdout"]
    );
    let good = Output {
        stdout: Vec::new(),
        ..bad
    };
    assert!(contract_problems(&args, &good).is_empty());
    let noisy = Output {
        code: 0,
        stdout: b"{}\n".to_vec(),
        stderr: b"warning\n".to_vec(),
    };
    assert_eq!(
        contract_problems(&args, &noisy),
        vec!["success with a non-empty stderr"]
    );
}
