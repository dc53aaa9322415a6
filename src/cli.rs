//! The command line: argv → a validated `Command` → one run. The only module that touches
//! stdin, stdout, the filesystem or the environment.
//!
//! **Invariants**
//! - On success stdout holds exactly the answer; on failure stdout is empty and stderr holds
//!   exactly one error JSON line (formats.md §1, §5.3). One exception: `catalog lint` below
//!   its `--fail-under` threshold prints the full report on stdout, then the error line.
//! - Command-line mistakes are validation errors (exit 3), never a usage dump.

use std::ffi::OsString;
use std::io::{BufRead, Read, Write};
use std::path::Path;

use crate::catalog::{Catalog, SourceFile};
use crate::error::{Error, Reason, Result};
use crate::limits::MAX_REQUEST_BYTES;
use crate::lines::Input;
use crate::retrieve::{Retriever, DEFAULT_RETRIEVER};
use crate::{eval, lint, why, wire, Engine};

const USAGE: &str = "\
toolsearch — find the right command in a tool catalog without loading the catalog

usage:
  toolsearch search  [--catalog PATH] (--request-json -|JSON | --query Q [--subquery S]... [--limit N]
                     [--candidate-limit N] [--product ID]... [--effect E]... [--exclude CANONICAL]...)
                     [--explain] [--retriever NAME]
  toolsearch inspect [--catalog PATH] (--request-json -|JSON | CANONICAL_OR_CLI_PATH
                     --expected-source-hash H1 --expected-surface-hash H2)
  toolsearch serve   [--catalog PATH] [--retriever NAME]     JSON Lines on stdin → one answer line each
  toolsearch eval    [--catalog PATH] --qrels FILE [--retriever NAME] [--param KEY=VALUE]... [--compare NAME]
                     [--json] [--worst N]
  toolsearch why     [--catalog PATH] (--query Q | --qrels FILE --case ID) [--limit N] [--retriever NAME]
                     [--param KEY=VALUE]... [TOOL]...        the ranking explained term by term
  toolsearch catalog verify|hash [--catalog PATH]
  toolsearch catalog lint [--catalog PATH] [--json] [--fail-under SHARE]   findability audit
  toolsearch catalog import --from mcp|openai --product ID [--name NAME] INPUT.json|-
                                                              MCP tools/list or OpenAI functions → catalog.v1
  toolsearch mcp     [--catalog PATH] [--retriever NAME]     MCP server on stdio: search_tools, inspect_tool
  toolsearch schema search ...                                alias of `search`
  toolsearch schema PATH --compact --expected-source-hash H1 --expected-surface-hash H2   alias of `inspect`

Without --catalog the catalog embedded at build time is used. Errors: one JSON line on stderr,
exit 3 (validation), 5 (corrupt catalog), 6 (catalog changed).
";

/// Where the catalog comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum CatalogArg {
    Embedded,
    Path(String),
}

#[derive(Debug, Default)]
struct SearchArgs {
    request_json: Option<String>,
    query: Option<String>,
    subqueries: Vec<String>,
    limit: Option<String>,
    candidate_limit: Option<String>,
    products: Vec<String>,
    effects: Vec<String>,
    excludes: Vec<String>,
    explain: bool,
}

#[derive(Debug, Default)]
struct InspectArgs {
    request_json: Option<String>,
    path: Option<String>,
    source_hash: Option<String>,
    surface_hash: Option<String>,
}

#[derive(Debug, Default)]
struct ImportArgs {
    from: Option<String>,
    product: Option<String>,
    name: Option<String>,
    input: Option<String>,
}

#[derive(Debug)]
enum Command {
    Help,
    Search(SearchArgs),
    Inspect(InspectArgs),
    Serve,
    Eval(eval::EvalArgs),
    Why(why::WhyArgs),
    CatalogVerify,
    CatalogHash,
    CatalogLint(lint::LintArgs),
    CatalogImport(ImportArgs),
    Mcp,
}

#[derive(Debug)]
struct Invocation {
    command: Command,
    catalog: CatalogArg,
    retriever: String,
}

fn transport(message: impl Into<String>) -> Error {
    Error::new(Reason::InvalidTransport, message)
}

/// A cursor over the arguments after the command words.
struct Args {
    items: Vec<String>,
    pos: usize,
}

impl Args {
    fn next(&mut self) -> Option<String> {
        let item = self.items.get(self.pos).cloned();
        self.pos += 1;
        item
    }

    /// Splits `--flag=value`; returns the flag and an inline value.
    fn split(arg: &str) -> (String, Option<String>) {
        match arg.split_once('=') {
            Some((flag, value)) if arg.starts_with("--") => {
                (flag.to_string(), Some(value.to_string()))
            }
            _ => (arg.to_string(), None),
        }
    }

    fn value(&mut self, flag: &str, inline: Option<String>) -> Result<String> {
        match inline {
            Some(value) => Ok(value),
            None => self
                .next()
                .ok_or_else(|| transport(format!("flag `{flag}` needs a value"))),
        }
    }
}

fn parse(argv: Vec<OsString>) -> Result<Invocation> {
    let mut items = Vec::with_capacity(argv.len());
    for (idx, arg) in argv.into_iter().enumerate().skip(1) {
        items.push(arg.into_string().map_err(|raw| {
            transport(format!(
                "argument {idx} is not valid UTF-8: {}",
                raw.to_string_lossy()
            ))
        })?);
    }
    let mut args = Args { items, pos: 0 };
    let mut invocation = Invocation {
        command: Command::Help,
        catalog: CatalogArg::Embedded,
        retriever: DEFAULT_RETRIEVER.to_string(),
    };
    let first = args.next();
    let command = match first.as_deref() {
        None => return Err(transport("no command given; run `toolsearch --help`")),
        Some("--help" | "-h" | "help") => return Ok(invocation),
        Some("search") => "search",
        Some("inspect") => "inspect",
        Some("serve") => "serve",
        Some("eval") => "eval",
        Some("why") => "why",
        Some("mcp") => "mcp",
        Some("catalog") => match args.next().as_deref() {
            Some("verify") => "catalog-verify",
            Some("hash") => "catalog-hash",
            Some("lint") => "catalog-lint",
            Some("import") => "catalog-import",
            other => {
                return Err(transport(format!(
                    "`catalog` needs `verify`, `hash`, `lint` or `import`, found {other:?}"
                )))
            }
        },
        Some("schema") => match args.items.get(args.pos).map(String::as_str) {
            Some("search") => {
                args.pos += 1;
                "search"
            }
            _ => "inspect",
        },
        Some(other) => {
            return Err(transport(format!(
                "unknown command `{other}`; run `toolsearch --help`"
            )))
        }
    };
    let mut search = SearchArgs::default();
    let mut inspect = InspectArgs::default();
    let mut eval_args = eval::EvalArgs::default();
    let mut lint_args = lint::LintArgs::default();
    let mut import_args = ImportArgs::default();
    let mut why_args = why::WhyArgs::default();
    while let Some(arg) = args.next() {
        let (flag, inline) = Args::split(&arg);
        let allowed = |commands: &[&str]| commands.contains(&command);
        match flag.as_str() {
            "--catalog" if command != "catalog-import" => {
                invocation.catalog = CatalogArg::Path(args.value(&flag, inline)?)
            }
            "--retriever"
                if allowed(&["search", "serve", "eval", "why", "catalog-lint", "mcp"]) =>
            {
                invocation.retriever = args.value(&flag, inline)?
            }
            "--request-json" if allowed(&["search", "inspect"]) => {
                let value = Some(args.value(&flag, inline)?);
                search.request_json.clone_from(&value);
                inspect.request_json = value;
            }
            "--query" if allowed(&["search"]) => search.query = Some(args.value(&flag, inline)?),
            "--query" if allowed(&["why"]) => why_args.query = Some(args.value(&flag, inline)?),
            "--limit" if allowed(&["why"]) => why_args.limit = Some(args.value(&flag, inline)?),
            "--subquery" if allowed(&["search"]) => {
                search.subqueries.push(args.value(&flag, inline)?)
            }
            "--limit" if allowed(&["search"]) => search.limit = Some(args.value(&flag, inline)?),
            "--candidate-limit" if allowed(&["search"]) => {
                search.candidate_limit = Some(args.value(&flag, inline)?)
            }
            "--product" if allowed(&["search"]) => search.products.push(args.value(&flag, inline)?),
            "--effect" if allowed(&["search"]) => search.effects.push(args.value(&flag, inline)?),
            "--exclude" if allowed(&["search"]) => search.excludes.push(args.value(&flag, inline)?),
            "--explain" if allowed(&["search"]) && inline.is_none() => search.explain = true,
            "--expected-source-hash" if allowed(&["inspect"]) => {
                inspect.source_hash = Some(args.value(&flag, inline)?)
            }
            "--expected-surface-hash" if allowed(&["inspect"]) => {
                inspect.surface_hash = Some(args.value(&flag, inline)?)
            }
            "--compact" if allowed(&["inspect"]) && inline.is_none() => {}
            "--qrels" if allowed(&["eval"]) => eval_args.qrels = Some(args.value(&flag, inline)?),
            "--qrels" if allowed(&["why"]) => why_args.qrels = Some(args.value(&flag, inline)?),
            "--case" if allowed(&["why"]) => why_args.case = Some(args.value(&flag, inline)?),
            "--compare" if allowed(&["eval"]) => {
                eval_args.compare = Some(args.value(&flag, inline)?)
            }
            "--json" if allowed(&["eval"]) && inline.is_none() => eval_args.json = true,
            "--json" if allowed(&["catalog-lint"]) && inline.is_none() => lint_args.json = true,
            "--fail-under" if allowed(&["catalog-lint"]) => {
                lint_args.fail_under = Some(lint::parse_threshold(&args.value(&flag, inline)?)?)
            }
            "--param" if allowed(&["eval", "why"]) => {
                let value = args.value(&flag, inline)?;
                let (key, val) = value.split_once('=').ok_or_else(|| {
                    transport(format!("`--param` needs KEY=VALUE, found `{value}`"))
                })?;
                let param = (key.to_string(), val.to_string());
                if command == "why" {
                    why_args.params.push(param);
                } else {
                    eval_args.params.push(param);
                }
            }
            "--worst" if allowed(&["eval"]) => {
                let value = args.value(&flag, inline)?;
                eval_args.worst = Some(value.parse().map_err(|_| {
                    transport(format!("`--worst` needs a whole number, found `{value}`"))
                })?);
            }
            "--from" if allowed(&["catalog-import"]) => {
                import_args.from = Some(args.value(&flag, inline)?)
            }
            "--product" if allowed(&["catalog-import"]) => {
                import_args.product = Some(args.value(&flag, inline)?)
            }
            "--name" if allowed(&["catalog-import"]) => {
                import_args.name = Some(args.value(&flag, inline)?)
            }
            _ if command == "catalog-import"
                && (arg == "-" || !arg.starts_with('-'))
                && import_args.input.is_none() =>
            {
                import_args.input = Some(arg)
            }
            "--help" | "-h" => return Ok(invocation),
            _ if command == "inspect" && !arg.starts_with('-') && inspect.path.is_none() => {
                inspect.path = Some(arg)
            }
            _ if command == "why" && !arg.starts_with('-') => why_args.tools.push(arg),
            _ => {
                return Err(transport(format!(
                    "unknown or misplaced argument `{arg}` for `{command}`"
                )))
            }
        }
    }
    invocation.command = match command {
        "search" => {
            let has_flags = search.query.is_some()
                || !search.subqueries.is_empty()
                || search.limit.is_some()
                || search.candidate_limit.is_some()
                || !search.products.is_empty()
                || !search.effects.is_empty()
                || !search.excludes.is_empty();
            if search.request_json.is_some() && has_flags {
                return Err(Error::new(
                    Reason::AmbiguousInput,
                    "give either --request-json or query flags, not both",
                ));
            }
            Command::Search(search)
        }
        "inspect" => {
            let has_flags = inspect.path.is_some()
                || inspect.source_hash.is_some()
                || inspect.surface_hash.is_some();
            if inspect.request_json.is_some() && has_flags {
                return Err(Error::new(
                    Reason::AmbiguousInput,
                    "give either --request-json or a path with hash flags, not both",
                ));
            }
            if inspect.request_json.is_none() && inspect.path.is_none() {
                return Err(transport(
                    "inspect needs a CANONICAL_OR_CLI_PATH or --request-json",
                ));
            }
            Command::Inspect(inspect)
        }
        "serve" => Command::Serve,
        "eval" => {
            if eval_args.qrels.is_none() {
                return Err(transport("eval needs --qrels FILE"));
            }
            Command::Eval(eval_args)
        }
        "why" => Command::Why(why_args),
        "catalog-verify" => Command::CatalogVerify,
        "catalog-lint" => Command::CatalogLint(lint_args),
        "catalog-import" => {
            if import_args.from.is_none() || import_args.product.is_none() {
                return Err(transport(
                    "catalog import needs --from mcp|openai and --product ID",
                ));
            }
            if import_args.input.is_none() {
                return Err(transport(
                    "catalog import needs an INPUT.json file (or `-`)",
                ));
            }
            Command::CatalogImport(import_args)
        }
        "mcp" => Command::Mcp,
        _ => Command::CatalogHash,
    };
    Ok(invocation)
}

/// Reads the catalog named on the command line (or the embedded one).
///
/// # Errors
/// `catalog_unreadable` when a file or directory cannot be read; `invalid_catalog` otherwise.
pub fn load_catalog(path: Option<&Path>) -> Result<Catalog> {
    let sources = match path {
        None => crate::embedded_sources(),
        Some(path) => read_catalog_sources(path)?,
    };
    Catalog::build_owned(sources)
}

fn unreadable(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::new(
        Reason::CatalogUnreadable,
        format!("{}: {e}", path.display()),
    )
}

/// The largest catalog file read (a 100,000-tool catalog is about 170 MB).
const MAX_CATALOG_FILE_BYTES: u64 = 1 << 30;

fn read_catalog_sources(path: &Path) -> Result<Vec<SourceFile>> {
    let metadata = std::fs::metadata(path).map_err(|e| unreadable(path, e))?;
    if !metadata.is_dir() && !metadata.is_file() {
        // A FIFO would block and a device such as /dev/zero would never end.
        return Err(unreadable(path, "not a regular file or directory"));
    }
    let files = if metadata.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(path)
            .map_err(|e| unreadable(path, e))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        files
    } else {
        vec![path.to_path_buf()]
    };
    let mut sources = Vec::with_capacity(files.len());
    for file in files {
        let mut bytes = Vec::new();
        std::fs::File::open(&file)
            .and_then(|f| f.take(MAX_CATALOG_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| unreadable(&file, e))?;
        if bytes.len() as u64 > MAX_CATALOG_FILE_BYTES {
            return Err(unreadable(
                &file,
                format!("larger than {MAX_CATALOG_FILE_BYTES} bytes"),
            ));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::new(
                Reason::InvalidCatalog,
                format!("{}: not UTF-8: {e}", file.display()),
            )
        })?;
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.display().to_string());
        sources.push(SourceFile {
            name,
            text: text.into(),
        });
    }
    Ok(sources)
}

/// Reads the request document: `-` is stdin (at most one byte over the limit is read),
/// anything else is the JSON text itself.
fn read_request(value: &str, stdin: &mut dyn BufRead) -> Result<Vec<u8>> {
    if value != "-" {
        return Ok(value.as_bytes().to_vec());
    }
    let mut bytes = Vec::new();
    stdin
        .take(MAX_REQUEST_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::new(Reason::ReadRequestFailed, format!("cannot read stdin: {e}")))?;
    Ok(bytes)
}

fn number_flag(
    value: &Option<String>,
    reason: Reason,
    flag: &str,
) -> Result<Option<serde_json::Number>> {
    match value {
        None => Ok(None),
        Some(text) => text
            .trim()
            .parse::<i64>()
            .map(|v| Some(serde_json::Number::from(v)))
            .map_err(|_| Error::new(reason, format!("`{flag}` needs an integer, found `{text}`"))),
    }
}

fn search_from_flags(args: &SearchArgs) -> Result<wire::SearchRequest> {
    let list = |values: &Vec<String>| (!values.is_empty()).then(|| values.clone());
    Ok(wire::SearchRequest {
        version: Some(wire::SEARCH_VERSION.to_string()),
        query: args.query.clone(),
        subqueries: list(&args.subqueries),
        limit: number_flag(&args.limit, Reason::InvalidLimit, "--limit")?,
        candidate_limit: number_flag(
            &args.candidate_limit,
            Reason::InvalidCandidateLimit,
            "--candidate-limit",
        )?,
        product_ids: list(&args.products),
        effects: list(&args.effects),
        exclude_canonical: list(&args.excludes),
    })
}

pub use crate::respond::error_line;

/// Answers one `serve` line: dispatch on `"version"`.
pub fn serve_line(engine: &Engine, line: &[u8]) -> String {
    let answer = (|| -> Result<String> {
        let value: serde_json::Value = crate::request::parse_document(line)?;
        match value.get("version").and_then(|v| v.as_str()) {
            Some(wire::INSPECT_VERSION) => engine.inspect_bytes(line),
            _ => engine.search_bytes(line, false),
        }
    })();
    answer.unwrap_or_else(|error| error_line(&error))
}

/// Discards input up to and including the next newline (or EOF) without keeping it, so an
/// endless line costs no memory.
fn serve(engine: &Engine, stdin: &mut dyn Input, stdout: &mut dyn Write) -> Result<()> {
    // Once a request has built the index (never before: a session of inspects builds none), a
    // second thread fills the retriever's caches while requests are answered; answers never
    // depend on it (the caches are pure functions of the catalog). It stops when input ends.
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        let mut warming = false;
        let mut start_warming = || {
            if !warming && engine.has_retriever() {
                warming = true;
                // Optional: if no thread can be started, the caches fill on first use.
                let _ = std::thread::Builder::new()
                    .spawn_scoped(scope, || Retriever::warm(engine, &stop));
            }
        };
        let served = serve_lines(engine, stdin, stdout, &mut start_warming);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        served
    })
}

/// The serve loop; `after_answer` runs after each answer is written.
fn serve_lines(
    engine: &Engine,
    stdin: &mut dyn Input,
    stdout: &mut dyn Write,
    after_answer: &mut dyn FnMut(),
) -> Result<()> {
    // Answers wait in a buffer while further requests are already read in (a pipelined client)
    // and are flushed before the server could block on its input: an interactive client
    // still gets each answer at once.
    let mut stdout = std::io::BufWriter::with_capacity(1 << 16, stdout);
    let mut line = Vec::new();
    loop {
        let read = crate::lines::read_capped(stdin, MAX_REQUEST_BYTES, &mut line).map_err(|e| {
            // What was answered is still delivered (best effort: the read error is the news).
            let _ = stdout.flush();
            Error::new(Reason::ReadRequestFailed, format!("cannot read stdin: {e}"))
        })?;
        // An oversized line holds its first limit + 1 bytes, so it is answered exactly like
        // single-shot, which reads one byte over the limit.
        let answer = match read {
            crate::lines::Line::Eof => {
                return stdout.flush().map_err(|e| {
                    Error::new(Reason::OutputFailed, format!("cannot write stdout: {e}"))
                })
            }
            crate::lines::Line::Fits | crate::lines::Line::Oversized => serve_line(engine, &line),
        };
        stdout
            .write_all(answer.as_bytes())
            .and_then(|()| {
                if stdin.has_buffered() {
                    Ok(())
                } else {
                    stdout.flush()
                }
            })
            .map_err(|e| Error::new(Reason::OutputFailed, format!("cannot write stdout: {e}")))?;
        after_answer();
    }
}

/// `catalog import`: reads the input (a file or `-` for stdin), writes the catalog.v1 to
/// stdout, then one line per skipped entry to stderr.
fn import_catalog(
    args: &ImportArgs,
    stdin: &mut dyn BufRead,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<()> {
    let invalid = |message: String| Error::new(Reason::InvalidImport, message);
    let from = args.from.as_deref().unwrap_or_default();
    let format = crate::import::Format::parse(from).ok_or_else(|| {
        transport(format!(
            "`--from` must be `mcp` or `openai`, found `{from}`"
        ))
    })?;
    let input = args.input.as_deref().unwrap_or("-");
    let mut bytes = Vec::new();
    if input == "-" {
        stdin
            .read_to_end(&mut bytes)
            .map_err(|e| invalid(format!("cannot read stdin: {e}")))?;
    } else {
        bytes = std::fs::read(input).map_err(|e| invalid(format!("cannot read {input}: {e}")))?;
    }
    let text = String::from_utf8(bytes).map_err(|e| invalid(format!("{input}: not UTF-8: {e}")))?;
    let value: serde_json::Value =
        crate::json::parse_strict(&text).map_err(|e| invalid(format!("{input}: {e}")))?;
    let imported = crate::import::import(
        &value,
        &crate::import::ImportOptions {
            format,
            product_id: args.product.as_deref().unwrap_or_default(),
            product_name: args.name.as_deref(),
        },
    )?;
    let catalog = crate::import::render(&imported.document)?;
    stdout
        .write_all(catalog.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Error::new(Reason::OutputFailed, format!("cannot write stdout: {e}")))?;
    for skipped in &imported.skipped {
        let _ = stderr.write_all(skipped.line().as_bytes());
    }
    let _ = stderr.flush();
    Ok(())
}

/// Answers one request with `engine`, then lets the engine go without freeing it: a one-shot
/// command's process ends right after, and freeing the catalog and index (thousands of small
/// allocations) would add about 0.6 ms to a 7 ms search (docs/PERFORMANCE-history.md). Only the
/// `search` and `inspect` commands use it; `serve`, `mcp`, `eval` and `lint` free as usual.
fn one_shot<T>(engine: Engine, answer: impl FnOnce(&Engine) -> Result<T>) -> Result<T> {
    let answered = answer(&engine);
    std::mem::forget(engine);
    answered
}

fn execute(
    invocation: Invocation,
    stdin: &mut dyn Input,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Option<String>> {
    match &invocation.command {
        Command::Help => return Ok(Some(USAGE.to_string())),
        // Import reads no catalog.
        Command::CatalogImport(args) => {
            return import_catalog(args, stdin, stdout, stderr).map(|()| None)
        }
        _ => {}
    }
    let catalog_path = match &invocation.catalog {
        CatalogArg::Embedded => None,
        CatalogArg::Path(path) => Some(Path::new(path)),
    };
    // `verify` and `hash` always rebuild and rehash; other commands on the embedded catalog
    // start from the prepared snapshot when it is current (see `prepared`).
    let (catalog, prepared_index) = match (&invocation.command, catalog_path) {
        (Command::CatalogVerify | Command::CatalogHash, _) | (_, Some(_)) => {
            (load_catalog(catalog_path)?, None)
        }
        (Command::Inspect(_), None) => (
            crate::prepared::load_embedded_catalog(&crate::embedded_sources())?,
            None,
        ),
        (_, None) => crate::prepared::load_embedded(&crate::embedded_sources())?,
    };
    match invocation.command {
        Command::Help => Ok(Some(USAGE.to_string())),
        Command::CatalogImport(args) => import_catalog(&args, stdin, stdout, stderr).map(|()| None),
        Command::Mcp => {
            let engine =
                Engine::with_prepared_index(catalog, &invocation.retriever, prepared_index)?;
            crate::mcp::serve(&engine, stdin, stdout)?;
            Ok(None)
        }
        Command::CatalogHash => crate::respond::encode_line(&catalog.version()).map(Some),
        Command::CatalogLint(args) => {
            let output = lint::run(catalog, &invocation.retriever, &args)?;
            match output.below_threshold {
                None => Ok(Some(output.text)),
                // Below the threshold the report still goes to stdout, then the error JSON
                // to stderr (exit 3), so a CI log shows what to fix.
                Some(error) => {
                    stdout
                        .write_all(output.text.as_bytes())
                        .and_then(|()| stdout.flush())
                        .map_err(|e| {
                            Error::new(Reason::OutputFailed, format!("cannot write stdout: {e}"))
                        })?;
                    Err(error)
                }
            }
        }
        Command::CatalogVerify => {
            let summary = serde_json::json!({
                "catalog": "valid",
                "products": catalog.products().len(),
                "tools": catalog.tools().len(),
                "source_hash": catalog.source_hash(),
                "surface_hash": catalog.surface_hash(),
            });
            crate::respond::encode_line(&summary).map(Some)
        }
        Command::Search(args) => {
            let engine =
                Engine::with_prepared_index(catalog, &invocation.retriever, prepared_index)?;
            one_shot(engine, |engine| match &args.request_json {
                Some(value) => {
                    let bytes = read_request(value, stdin)?;
                    engine.search_bytes(&bytes, args.explain).map(Some)
                }
                None => {
                    let request = search_from_flags(&args)?;
                    engine.search_request(&request, args.explain).map(Some)
                }
            })
        }
        Command::Inspect(args) => {
            let engine = Engine::new(catalog, DEFAULT_RETRIEVER)?;
            one_shot(engine, |engine| match &args.request_json {
                Some(value) => {
                    let bytes = read_request(value, stdin)?;
                    engine.inspect_bytes(&bytes).map(Some)
                }
                None => {
                    let request = wire::InspectRequest {
                        version: Some(wire::INSPECT_VERSION.to_string()),
                        canonical_path: args.path.clone(),
                        expected_source_hash: args.source_hash.clone(),
                        expected_surface_hash: args.surface_hash.clone(),
                    };
                    engine.inspect_request(&request).map(Some)
                }
            })
        }
        Command::Serve => {
            let engine =
                Engine::with_prepared_index(catalog, &invocation.retriever, prepared_index)?;
            serve(&engine, stdin, stdout)?;
            Ok(None)
        }
        Command::Eval(args) => eval::run(catalog, &invocation.retriever, &args).map(Some),
        Command::Why(args) => why::run(catalog, &invocation.retriever, &args).map(Some),
    }
}

/// Runs the program with `argv`; returns the exit code.
pub fn run(
    argv: Vec<OsString>,
    stdin: &mut dyn Input,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let result = parse(argv).and_then(|invocation| execute(invocation, stdin, stdout, stderr));
    match result {
        Ok(output) => {
            if let Some(text) = output {
                if let Err(e) = stdout
                    .write_all(text.as_bytes())
                    .and_then(|()| stdout.flush())
                {
                    // A closed pipe is the reader's choice; report it and fail.
                    let error =
                        Error::new(Reason::OutputFailed, format!("cannot write stdout: {e}"));
                    let _ = stderr.write_all(error_line(&error).as_bytes());
                    return error.exit_code();
                }
            }
            0
        }
        Err(error) => {
            let _ = stderr.write_all(error_line(&error).as_bytes());
            let _ = stderr.flush();
            error.exit_code()
        }
    }
}
