//! Running the real binary and reading its output.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_toolsearch");

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(name: &str) -> String {
    repo()
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// What one process did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        assert_eq!(self.code, 0, "expected success, got {self:?}");
        assert!(
            self.stdout.ends_with('\n'),
            "stdout must end with a newline"
        );
        assert_eq!(
            self.stdout.matches('\n').count(),
            1,
            "exactly one line on stdout"
        );
        serde_json::from_str(&self.stdout).expect("stdout is JSON")
    }

    /// The error JSON, after checking the failure contract: nothing on stdout, exactly one
    /// JSON line on stderr, exit code = error.code.
    pub fn error(&self) -> serde_json::Value {
        assert_ne!(self.code, 0, "expected failure, got {self:?}");
        assert_eq!(self.stdout, "", "stdout must be empty on failure");
        assert!(
            self.stderr.ends_with('\n') && self.stderr.matches('\n').count() == 1,
            "one stderr line: {:?}",
            self.stderr
        );
        let value: serde_json::Value = serde_json::from_str(&self.stderr).expect("stderr is JSON");
        assert_eq!(
            value["error"]["code"].as_i64(),
            Some(i64::from(self.code)),
            "code = exit code"
        );
        value
    }

    pub fn reason(&self) -> String {
        self.error()["error"]["reason"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

pub struct Cmd {
    command: Command,
    stdin: Vec<u8>,
}

pub fn ts(args: &[&str]) -> Cmd {
    let mut command = Command::new(BIN);
    command.args(args);
    Cmd {
        command,
        stdin: Vec::new(),
    }
}

impl Cmd {
    pub fn stdin(mut self, input: impl AsRef<[u8]>) -> Cmd {
        self.stdin = input.as_ref().to_vec();
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Cmd {
        self.command.env(key, value);
        self
    }

    pub fn cwd(mut self, dir: &Path) -> Cmd {
        self.command.current_dir(dir);
        self
    }

    pub fn raw(&mut self) -> &mut Command {
        &mut self.command
    }

    pub fn run(mut self) -> Run {
        let mut child = self
            .command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn toolsearch");
        if let Some(mut stdin) = child.stdin.take() {
            // The binary may stop reading early (e.g. a too-large request); ignore EPIPE.
            let _ = stdin.write_all(&self.stdin);
        }
        let output = child.wait_with_output().expect("wait for toolsearch");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }
}

/// `search --request-json -` with `request` on stdin (embedded catalog unless `catalog`).
pub fn search_request(catalog: Option<&str>, request: &serde_json::Value) -> Run {
    let mut args = vec!["search", "--request-json", "-"];
    if let Some(catalog) = catalog {
        args.extend(["--catalog", catalog]);
    }
    ts(&args).stdin(request.to_string()).run()
}

/// `inspect PATH` with both expected hashes as flags (embedded catalog unless `catalog`).
pub fn inspect_with_hashes(catalog: Option<&str>, path: &str, source: &str, surface: &str) -> Run {
    let mut args = vec![
        "inspect",
        path,
        "--expected-source-hash",
        source,
        "--expected-surface-hash",
        surface,
    ];
    if let Some(catalog) = catalog {
        args.extend(["--catalog", catalog]);
    }
    ts(&args).run()
}

/// Sends `requests` (one per line) to one `serve` process and asserts that every answer line
/// is byte-identical to the single-shot `search` / `inspect` answer of its request (stdout on
/// success, the error line on stderr otherwise).
pub fn assert_serve_equals_single_shot(catalog: Option<&str>, requests: &[String]) {
    let with_catalog = |command: &'static str| {
        let mut args = vec![command];
        if let Some(catalog) = catalog {
            args.extend(["--catalog", catalog]);
        }
        args
    };
    let served = ts(&with_catalog("serve"))
        .stdin(requests.join("\n") + "\n")
        .run();
    assert_eq!((served.code, served.stderr.as_str()), (0, ""), "{served:?}");
    let lines: Vec<&str> = served.stdout.split_inclusive('\n').collect();
    assert_eq!(lines.len(), requests.len());
    for (request, line) in requests.iter().zip(lines) {
        let command = if request.contains("schema-inspect.v1") {
            "inspect"
        } else {
            "search"
        };
        let mut args = with_catalog(command);
        args.extend(["--request-json", "-"]);
        let single = ts(&args).stdin(request).run();
        let expected = if single.code == 0 {
            single.stdout
        } else {
            single.stderr
        };
        assert_eq!(line, expected, "request: {request}");
    }
}

pub fn mini() -> String {
    fixture("mini")
}

/// The candidates' canonical paths of a search response.
pub fn canonicals(response: &serde_json::Value) -> Vec<String> {
    response["candidates"]
        .as_array()
        .map(|c| {
            c.iter()
                .map(|c| c["canonical_path"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// A fresh temporary directory under the target dir (removed at drop).
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("toolsearch-it-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn write(&self, name: &str, content: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, content).expect("write temp file");
        path.display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The (source, surface) hashes a search response carries.
pub fn response_hashes(response: &serde_json::Value) -> (String, String) {
    let hash = |key: &str| {
        response["catalog"][key]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    (hash("source_hash"), hash("surface_hash"))
}

/// The catalog hashes as the binary reports them.
pub fn hashes(catalog: Option<&str>) -> (String, String) {
    let mut args = vec!["catalog", "hash"];
    if let Some(catalog) = catalog {
        args.extend(["--catalog", catalog]);
    }
    let value = ts(&args).run().json();
    (
        value["source_hash"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        value["surface_hash"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

/// A judged case's query as a `tool-search.v1` request line asking for `limit` tools, with the
/// case's non-empty filters (what `serve` is sent in place of `eval`).
pub fn case_request_line(case: &serde_json::Value, limit: u64) -> String {
    let mut request = serde_json::json!({
        "version": "tool-search.v1",
        "query": case["query"],
        "limit": limit,
    });
    for (key, value) in case["filters"].as_object().into_iter().flatten() {
        if value.as_array().is_some_and(|v| !v.is_empty()) {
            request[key] = value.clone();
        }
    }
    format!("{request}\n")
}
