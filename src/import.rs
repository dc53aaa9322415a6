//! MCP `tools/list` results and OpenAI function lists → one catalog.v1 product.
//!
//! A pure conversion: a parsed input JSON value in, a [`wire::CatalogDocument`] and the list of
//! entries that could not be imported (with their reasons) out. Nothing is dropped silently:
//! every input entry is either a tool of the document or a [`Skipped`] entry.
//!
//! **Invariants**
//! - Deterministic: the same input gives the same document, whatever the order of the tools
//!   (names do not depend on input order; tools are sorted by canonical path). Only which of
//!   two byte-identical definitions is reported as skipped depends on order.
//! - Every tool name matches `^[A-Za-z0-9][A-Za-z0-9_.-]*$` and is unique in the product; the
//!   original name is always kept verbatim in `title`, the schema verbatim in `input_schema`.
//! - The rendered document passes [`Catalog::build`] ([`render`] checks it, failing closed).
//!
//! Naming follows the convention of the shared evaluation catalogs: a name that breaks the
//! grammar has each run of other characters replaced by `_`, then leading characters that are
//! not ASCII letters or digits and trailing `_` removed; a name with nothing left becomes
//! `tool` and always gets a suffix. Tools that share a (sanitized) name all get `-` + the first
//! 6 hex digits (more only if needed) of sha256 over the canonical JSON (sorted keys, no
//! whitespace) of their input definition. An input definition that is byte-identical (in
//! canonical JSON) to an earlier one is skipped.
//!
//! Mapping: MCP `description` → `description`, `inputSchema` → `input_schema`, `title` (or
//! `annotations.title`) → `display`; `annotations.readOnlyHint: true` → effect `read`;
//! otherwise `destructiveHint: true` → `destructive`, or `readOnlyHint: false` with
//! `destructiveHint` absent → `destructive` (the MCP default of `destructiveHint` is true),
//! `destructiveHint: false` → `write`; no hints → no effect (such a tool never passes an
//! `effects` filter). `idempotentHint` → `idempotency`. OpenAI `description` →
//! `description`, `parameters` → `input_schema`.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use crate::catalog::{Catalog, SourceFile};
use crate::error::{Error, Reason, Result};
use crate::wire::{self, Effect, Idempotency};

/// The format of the input document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// An MCP `tools/list` result, or the whole JSON-RPC response carrying it.
    Mcp,
    /// An OpenAI-style function list (chat-completions `tools`, bare functions, or the
    /// Responses API's flat form).
    OpenAi,
}

impl Format {
    /// The format named on the command line (`mcp` or `openai`).
    pub fn parse(name: &str) -> Option<Format> {
        match name {
            "mcp" => Some(Format::Mcp),
            "openai" => Some(Format::OpenAi),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Mcp => "mcp",
            Format::OpenAi => "openai",
        }
    }
}

/// An input entry that did not become a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Position in the input's tool list (0-based).
    pub index: usize,
    /// The entry's name, when it has a string one.
    pub name: Option<String>,
    pub reason: String,
}

impl Skipped {
    /// The report line: `{"skipped":{"index":N,"name":"…"},"reason":"…"}` and `\n`.
    pub fn line(&self) -> String {
        let mut entry = serde_json::Map::new();
        entry.insert("index".into(), self.index.into());
        if let Some(name) = &self.name {
            entry.insert("name".into(), name.clone().into());
        }
        let line = serde_json::json!({"skipped": entry, "reason": self.reason});
        format!("{line}\n")
    }
}

/// The result of a conversion.
#[derive(Debug, Clone)]
pub struct Imported {
    pub document: wire::CatalogDocument,
    /// In input order.
    pub skipped: Vec<Skipped>,
}

/// Options of one import.
#[derive(Debug, Clone)]
pub struct ImportOptions<'a> {
    pub format: Format,
    pub product_id: &'a str,
    pub product_name: Option<&'a str>,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Reason::InvalidImport, message)
}

/// Converts `input` into one catalog.v1 product.
///
/// # Errors
/// `invalid_import` when the product id breaks its grammar, the input is not of the named
/// format, or no entry could be imported.
pub fn import(input: &serde_json::Value, options: &ImportOptions<'_>) -> Result<Imported> {
    if !is_product_id(options.product_id) {
        return Err(invalid(format!(
            "product id `{}` does not match ^[A-Za-z0-9][A-Za-z0-9_-]*$",
            options.product_id
        )));
    }
    let entries = match options.format {
        Format::Mcp => mcp_entries(input)?,
        Format::OpenAi => openai_entries(input)?,
    };
    let mut skipped = Vec::new();
    let mut drafts: Vec<Draft> = Vec::new();
    let mut seen_definitions: BTreeMap<String, usize> = BTreeMap::new();
    for (index, entry) in entries.iter().enumerate() {
        let converted = match options.format {
            Format::Mcp => convert_mcp(entry),
            Format::OpenAi => convert_openai(entry),
        };
        match converted {
            Ok(draft) => {
                if let Some(first) = seen_definitions.get(&draft.hash) {
                    skipped.push(Skipped {
                        index,
                        name: Some(draft.original_name),
                        reason: format!("identical to the definition at index {first}"),
                    });
                } else {
                    seen_definitions.insert(draft.hash.clone(), index);
                    drafts.push(draft);
                }
            }
            Err(reason) => skipped.push(Skipped {
                index,
                name: entry_name(entry, options.format),
                reason,
            }),
        }
    }
    if drafts.is_empty() {
        return Err(invalid(format!(
            "no tool could be imported ({} entries, {} skipped{})",
            entries.len(),
            skipped.len(),
            skipped
                .first()
                .map(|s| format!("; first: index {}: {}", s.index, s.reason))
                .unwrap_or_default()
        )));
    }
    let names = assign_names(&drafts)?;
    let mut tools: Vec<wire::Tool> = drafts
        .into_iter()
        .zip(names)
        .map(|(draft, name)| draft.into_tool(options.product_id, name))
        .collect();
    tools.sort_by(|a, b| a.canonical_path.cmp(&b.canonical_path));
    let product = wire::Product {
        id: options.product_id.to_string(),
        name: options.product_name.map(str::to_string),
        description: None,
        agent_summary: None,
        use_when: Vec::new(),
        avoid_when: Vec::new(),
        tools,
    };
    Ok(Imported {
        document: wire::CatalogDocument {
            version: wire::CATALOG_VERSION.to_string(),
            products: vec![product],
        },
        skipped,
    })
}

/// The document as pretty JSON and `\n`, after checking that it builds as a catalog.
///
/// # Errors
/// `invalid_catalog` (fail closed) if the document does not build — an importer defect.
pub fn render(document: &wire::CatalogDocument) -> Result<String> {
    let text = serde_json::to_string_pretty(document).map_err(|e| {
        Error::new(
            Reason::InvalidCatalog,
            format!("cannot encode the imported catalog: {e}"),
        )
    })?;
    Catalog::build(&[SourceFile {
        name: "<import>".to_string(),
        text: text.clone().into(),
    }])
    .map_err(|e| {
        Error::new(
            Reason::InvalidCatalog,
            format!("the imported catalog does not build: {}", e.message),
        )
    })?;
    Ok(text + "\n")
}

// ---------------------------------------------------------------------------------------------
// input shapes

fn list<'a>(value: &'a serde_json::Value, what: &str) -> Result<&'a [serde_json::Value]> {
    value
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| invalid(format!("{what} must be an array")))
}

/// The tool entries of an MCP `tools/list` result: `{"tools":[…]}`, the JSON-RPC response
/// `{"result":{"tools":[…]}}`, or a bare array of tools.
fn mcp_entries(input: &serde_json::Value) -> Result<&[serde_json::Value]> {
    if input.is_array() {
        return list(input, "the tool list");
    }
    let object = input
        .as_object()
        .ok_or_else(|| invalid("an MCP tools/list result must be a JSON object or array"))?;
    if let Some(error) = object.get("error") {
        return Err(invalid(format!(
            "the input is a JSON-RPC error response: {error}"
        )));
    }
    let result = match object.get("result") {
        Some(result) => result
            .as_object()
            .ok_or_else(|| invalid("`result` must be an object"))?,
        None => object,
    };
    match result.get("tools") {
        Some(tools) => list(tools, "`tools`"),
        None => Err(invalid(
            "not an MCP tools/list result: no `tools` (or `result.tools`) array",
        )),
    }
}

/// The entries of an OpenAI function list: an array, or `{"tools":[…]}` / `{"functions":[…]}`.
fn openai_entries(input: &serde_json::Value) -> Result<&[serde_json::Value]> {
    if input.is_array() {
        return list(input, "the function list");
    }
    let object = input
        .as_object()
        .ok_or_else(|| invalid("an OpenAI function list must be a JSON array or object"))?;
    match (object.get("tools"), object.get("functions")) {
        (Some(tools), None) => list(tools, "`tools`"),
        (None, Some(functions)) => list(functions, "`functions`"),
        (Some(_), Some(_)) => Err(invalid(
            "the input has both `tools` and `functions`; give one list",
        )),
        (None, None) => Err(invalid(
            "not an OpenAI function list: expected an array, `tools` or `functions`",
        )),
    }
}

/// The name of an input entry for the skip report, when it has a string one.
fn entry_name(entry: &serde_json::Value, format: Format) -> Option<String> {
    let inner = match format {
        Format::OpenAi => entry
            .get("function")
            .filter(|f| f.is_object())
            .unwrap_or(entry),
        Format::Mcp => entry,
    };
    inner
        .get("name")
        .and_then(|n| n.as_str())
        .map(str::to_string)
}

// ---------------------------------------------------------------------------------------------
// entries → drafts

/// A converted entry before its final name is known.
#[derive(Debug, Clone)]
struct Draft {
    original_name: String,
    /// The sanitized name; `None` when nothing was left (the name becomes `tool` + suffix).
    base: Option<String>,
    /// Lowercase hex sha256 of the canonical JSON of the input definition.
    hash: String,
    display: Option<String>,
    description: Option<String>,
    input_schema: Option<serde_json::Value>,
    effect: Option<Effect>,
    idempotency: Option<Idempotency>,
}

impl Draft {
    fn into_tool(self, product_id: &str, name: String) -> wire::Tool {
        wire::Tool {
            canonical_path: format!("{product_id}.{name}"),
            name,
            cli_path: None,
            primary_cli_path: None,
            aliases: Vec::new(),
            group: None,
            title: Some(self.original_name),
            display: self.display,
            agent_summary: None,
            description: self.description,
            parameters: BTreeMap::new(),
            input_schema: self.input_schema,
            effect: self.effect,
            risk: None,
            confirmation: None,
            idempotency: self.idempotency,
            availability: None,
            use_when: Vec::new(),
            avoid_when: Vec::new(),
            examples: Vec::new(),
        }
    }
}

type Entry = serde_json::Map<String, serde_json::Value>;

fn optional_string(object: &Entry, key: &str) -> Result<Option<String>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(serde_json::Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(serde_json::Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(format!("`{key}` must be a string, found {}", kind(other))),
    }
}

fn optional_object(object: &Entry, key: &str) -> Result<Option<serde_json::Value>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(value @ serde_json::Value::Object(_)) => Ok(Some(value.clone())),
        Some(other) => Err(format!("`{key}` must be an object, found {}", kind(other))),
    }
}

fn optional_bool(object: &Entry, key: &str) -> Result<Option<bool>, String> {
    match object.get(key) {
        None => Ok(None),
        Some(serde_json::Value::Bool(flag)) => Ok(Some(*flag)),
        Some(other) => Err(format!("`{key}` must be a boolean, found {}", kind(other))),
    }
}

fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

fn required_name(object: &Entry) -> Result<String, String> {
    match object.get("name") {
        Some(serde_json::Value::String(name)) if !name.trim().is_empty() => Ok(name.clone()),
        Some(serde_json::Value::String(_)) => Err("`name` is empty".to_string()),
        Some(other) => Err(format!("`name` must be a string, found {}", kind(other))),
        None => Err("no `name`".to_string()),
    }
}

fn draft(
    definition: &serde_json::Value,
    original_name: String,
    description: Option<String>,
    input_schema: Option<serde_json::Value>,
) -> Draft {
    Draft {
        base: sanitize(&original_name),
        original_name,
        hash: definition_hash(definition),
        display: None,
        description,
        input_schema,
        effect: None,
        idempotency: None,
    }
}

fn convert_mcp(entry: &serde_json::Value) -> Result<Draft, String> {
    let object = entry
        .as_object()
        .ok_or_else(|| format!("a tool must be an object, found {}", kind(entry)))?;
    let name = required_name(object)?;
    let description = optional_string(object, "description")?;
    let input_schema = optional_object(object, "inputSchema")?;
    let title = optional_string(object, "title")?;
    let annotations = optional_object(object, "annotations")?;
    let mut result = draft(entry, name, description, input_schema);
    let empty = Entry::new();
    let hints = annotations
        .as_ref()
        .and_then(|a| a.as_object())
        .unwrap_or(&empty);
    let read_only =
        optional_bool(hints, "readOnlyHint").map_err(|e| format!("annotations: {e}"))?;
    let destructive =
        optional_bool(hints, "destructiveHint").map_err(|e| format!("annotations: {e}"))?;
    let idempotent =
        optional_bool(hints, "idempotentHint").map_err(|e| format!("annotations: {e}"))?;
    let annotation_title =
        optional_string(hints, "title").map_err(|e| format!("annotations: {e}"))?;
    result.effect = match (read_only, destructive) {
        (Some(true), _) => Some(Effect::Read),
        (_, Some(true)) => Some(Effect::Destructive),
        (_, Some(false)) => Some(Effect::Write),
        // Not read-only and silent about destruction: MCP's default is destructive.
        (Some(false), None) => Some(Effect::Destructive),
        (None, None) => None,
    };
    result.idempotency = idempotent.map(|flag| {
        if flag {
            Idempotency::Idempotent
        } else {
            Idempotency::NonIdempotent
        }
    });
    result.display = title.or(annotation_title);
    Ok(result)
}

fn convert_openai(entry: &serde_json::Value) -> Result<Draft, String> {
    let object = entry
        .as_object()
        .ok_or_else(|| format!("an entry must be an object, found {}", kind(entry)))?;
    let function = match object.get("type") {
        None => entry,
        Some(serde_json::Value::String(kind)) if kind == "function" => {
            match object.get("function") {
                Some(function) => function,
                // The Responses API's flat form: the function fields sit next to `type`.
                None => entry,
            }
        }
        Some(serde_json::Value::String(other)) => {
            return Err(format!("type `{other}` is not a function tool"));
        }
        Some(other) => return Err(format!("`type` must be a string, found {}", kind(other))),
    };
    let fields = function
        .as_object()
        .ok_or_else(|| format!("`function` must be an object, found {}", kind(function)))?;
    let name = required_name(fields)?;
    let description = optional_string(fields, "description")?;
    let parameters = optional_object(fields, "parameters")?;
    Ok(draft(function, name, description, parameters))
}

// ---------------------------------------------------------------------------------------------
// names

fn is_name_char(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || matches!(ch, '_' | '.' | '-')
}

/// Returns true if and only if `name` matches `^[A-Za-z0-9][A-Za-z0-9_.-]*$`.
pub fn is_tool_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name.chars().all(is_name_char)
}

fn is_product_id(id: &str) -> bool {
    id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `name` itself when it fits the grammar; otherwise each run of other characters becomes
/// `_`, then leading non-alphanumerics and trailing `_` are dropped. `None` if nothing is left.
pub fn sanitize(name: &str) -> Option<String> {
    if is_tool_name(name) {
        return Some(name.to_string());
    }
    let mut out = String::with_capacity(name.len());
    let mut in_run = false;
    for ch in name.chars() {
        if is_name_char(ch) {
            out.push(ch);
            in_run = false;
        } else if !in_run {
            out.push('_');
            in_run = true;
        }
    }
    let trimmed = out
        .trim_start_matches(|c: char| !c.is_ascii_alphanumeric())
        .trim_end_matches('_');
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// Final names for `drafts`, in the same order.
fn assign_names(drafts: &[Draft]) -> Result<Vec<String>> {
    const FALLBACK: &str = "tool";
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (idx, draft) in drafts.iter().enumerate() {
        groups
            .entry(draft.base.as_deref().unwrap_or(FALLBACK))
            .or_default()
            .push(idx);
    }
    let needs_suffix = |base: &str, members: &[usize]| {
        members.len() > 1 || (base == FALLBACK && members.iter().any(|&i| drafts[i].base.is_none()))
    };
    let plain: BTreeSet<&str> = groups
        .iter()
        .filter(|(base, members)| !needs_suffix(base, members))
        .map(|(base, _)| *base)
        .collect();
    let mut names = vec![String::new(); drafts.len()];
    for (base, members) in &groups {
        if !needs_suffix(base, members) {
            for &i in members {
                names[i] = (*base).to_string();
            }
            continue;
        }
        // The shortest prefix (at least 6 hex digits) that makes every member unique and
        // collides with no unsuffixed name. Identical definitions were skipped, so the full
        // 64 digits always differ.
        let chosen = (6..=64).find_map(|len| {
            let candidates: Vec<String> = members
                .iter()
                .map(|&i| format!("{base}-{}", &drafts[i].hash[..len]))
                .collect();
            let distinct: BTreeSet<&str> = candidates.iter().map(String::as_str).collect();
            (distinct.len() == candidates.len()
                && distinct.iter().all(|name| !plain.contains(name)))
            .then_some(candidates)
        });
        let chosen = chosen.ok_or_else(|| {
            Error::new(
                Reason::InvalidCatalog,
                format!("cannot give the tools named `{base}` unique names"),
            )
        })?;
        for (&i, name) in members.iter().zip(chosen) {
            names[i] = name;
        }
    }
    Ok(names)
}

// ---------------------------------------------------------------------------------------------
// canonical JSON

/// Lowercase hex sha256 of the canonical JSON of `value`.
fn definition_hash(value: &serde_json::Value) -> String {
    let mut text = String::new();
    canonical_json(value, &mut text);
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Compact JSON with object keys sorted by code point at every depth (the shared evaldata
/// convention: Python's `json.dumps(v, sort_keys=True, separators=(",", ":"),
/// ensure_ascii=False)`), independent of serde_json's map features.
fn canonical_json(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (idx, key) in keys.into_iter().enumerate() {
                if idx > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(child) = map.get(key) {
                    canonical_json(child, out);
                }
            }
            out.push('}');
        }
        serde_json::Value::Array(items) => {
            out.push('[');
            for (idx, item) in items.iter().enumerate() {
                if idx > 0 {
                    out.push(',');
                }
                canonical_json(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(format: Format, input: serde_json::Value) -> Imported {
        import(
            &input,
            &ImportOptions {
                format,
                product_id: "p",
                product_name: None,
            },
        )
        .unwrap()
    }

    fn tools(imported: &Imported) -> &[wire::Tool] {
        &imported.document.products[0].tools
    }

    #[test]
    fn sanitize_follows_the_evaldata_convention() {
        assert_eq!(sanitize("get_weather").as_deref(), Some("get_weather"));
        assert_eq!(sanitize("URL解析工具_深度分析").as_deref(), Some("URL"));
        assert_eq!(sanitize("自动祝福生成器_v2").as_deref(), Some("v2"));
        assert_eq!(
            sanitize("水喝_water_intake_monitor").as_deref(),
            Some("water_intake_monitor")
        );
        assert_eq!(sanitize("a b/c").as_deref(), Some("a_b_c"));
        assert_eq!(sanitize("_private").as_deref(), Some("private"));
        assert_eq!(sanitize("婚礼饮品搭配工具"), None);
        assert_eq!(sanitize("__"), None);
        for name in ["a b", "-x", "x:y", "ümlaut"] {
            let clean = sanitize(name).unwrap();
            assert!(is_tool_name(&clean), "{name} → {clean}");
        }
    }

    #[test]
    fn suffix_matches_the_evaldata_hash() {
        // bfcl pool_30: `Music_3_PlayMedia-db2ad9` is sha256 of the upstream definition.
        let definition = json!({"name":"Music_3_PlayMedia","description":"Initiates playback of a specified music track on a designated device.","parameters":{"type":"dict","required":["track"],"properties":{"track":{"type":"string","description":"The title of the track to be played."},"artist":{"type":"string","description":"The name of the artist performing the track.","default":"Any Artist"},"device":{"type":"string","description":"The name or location of the device where the music will be played.","enum":["Living room","Kitchen","Patio"],"default":"Living room"},"album":{"type":"string","description":"The name of the album that the track is from, if applicable.","default":"Any Album"}}}});
        assert!(definition_hash(&definition).starts_with("db2ad9"));
    }

    #[test]
    fn duplicates_get_order_independent_suffixes() {
        let a = json!({"name":"x","description":"one"});
        let b = json!({"name":"x","description":"two"});
        let c = json!({"name":"y"});
        let forward = run(Format::OpenAi, json!([a, b, c]));
        let backward = run(Format::OpenAi, json!([c, b, a]));
        let names = |i: &Imported| tools(i).iter().map(|t| t.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&forward), names(&backward));
        let names = names(&forward);
        assert_eq!(names.len(), 3);
        assert!(names.contains(&"y".to_string()));
        assert!(names
            .iter()
            .filter(|n| n.starts_with("x-"))
            .all(|n| n.len() == 8));
        assert!(tools(&forward)
            .iter()
            .all(|t| t.title.as_deref() == Some(t.name.split('-').next().unwrap())));
    }

    #[test]
    fn identical_definitions_and_bad_entries_are_reported() {
        let imported = run(
            Format::Mcp,
            json!({"tools":[
                {"name":"a","inputSchema":{"type":"object"}},
                {"inputSchema":{"type":"object"},"name":"a"},
                {"description":"no name"},
                {"name":"b","annotations":{"readOnlyHint":"yes"}},
                {"name":"c","inputSchema":[]},
                7
            ]}),
        );
        assert_eq!(tools(&imported).len(), 1);
        let reasons: Vec<(usize, &str)> = imported
            .skipped
            .iter()
            .map(|s| (s.index, s.reason.as_str()))
            .collect();
        assert_eq!(
            reasons,
            vec![
                (1, "identical to the definition at index 0"),
                (2, "no `name`"),
                (
                    3,
                    "annotations: `readOnlyHint` must be a boolean, found a string"
                ),
                (4, "`inputSchema` must be an object, found an array"),
                (5, "a tool must be an object, found a number"),
            ]
        );
        let line = imported.skipped[0].line();
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
        let parsed: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            parsed,
            json!({"skipped":{"index":1,"name":"a"},"reason":"identical to the definition at index 0"})
        );
    }

    #[test]
    fn mcp_annotations_map_to_effect() {
        let imported = run(
            Format::Mcp,
            json!({"result":{"tools":[
                {"name":"r","annotations":{"readOnlyHint":true,"destructiveHint":true}},
                {"name":"d","annotations":{"destructiveHint":true}},
                {"name":"w","annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true}},
                {"name":"nd","annotations":{"readOnlyHint":false}},
                {"name":"n","title":"Nothing said","annotations":{"title":"ignored"}},
                {"name":"t","annotations":{"title":"From annotations"}}
            ]}}),
        );
        let by_name: BTreeMap<&str, &wire::Tool> = tools(&imported)
            .iter()
            .map(|t| (t.name.as_str(), t))
            .collect();
        assert_eq!(by_name["r"].effect, Some(Effect::Read));
        assert_eq!(by_name["d"].effect, Some(Effect::Destructive));
        assert_eq!(by_name["w"].effect, Some(Effect::Write));
        assert_eq!(by_name["w"].idempotency, Some(Idempotency::Idempotent));
        assert_eq!(by_name["nd"].effect, Some(Effect::Destructive));
        assert_eq!(by_name["n"].effect, None);
        assert_eq!(by_name["n"].display.as_deref(), Some("Nothing said"));
        assert_eq!(by_name["t"].display.as_deref(), Some("From annotations"));
    }

    #[test]
    fn openai_shapes_are_all_accepted() {
        let f = json!({"name":"f","description":"F","parameters":{"type":"object"}});
        for input in [
            json!([{"type":"function","function":f}]),
            json!([f]),
            json!({"tools":[{"type":"function","function":f}]}),
            json!({"functions":[f]}),
            json!([{"type":"function","name":"f","description":"F","parameters":{"type":"object"}}]),
        ] {
            let imported = run(Format::OpenAi, input.clone());
            let tool = &tools(&imported)[0];
            assert_eq!(tool.canonical_path, "p.f", "{input}");
            assert_eq!(tool.description.as_deref(), Some("F"));
            assert_eq!(tool.input_schema, Some(json!({"type":"object"})));
        }
        let imported = run(
            Format::OpenAi,
            json!([f, {"type":"web_search"}, {"type":"function","function":"x"}]),
        );
        assert_eq!(imported.skipped.len(), 2);
        assert_eq!(
            imported.skipped[0].reason,
            "type `web_search` is not a function tool"
        );
    }

    #[test]
    fn fallback_names_always_get_a_suffix_and_everything_renders() {
        let imported = run(
            Format::OpenAi,
            json!([{"name":"婚礼饮品搭配工具"},{"name":"tool"},{"name":"a b"},{"name":"a_b"}]),
        );
        let names: Vec<&str> = tools(&imported).iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.len(), 4);
        let count = |prefix: &str| names.iter().filter(|n| n.starts_with(prefix)).count();
        assert_eq!((count("tool-"), count("a_b-")), (2, 2), "{names:?}");
        assert!(names.iter().all(|n| is_tool_name(n)));
        assert!(render(&imported.document).is_ok());
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let options = ImportOptions {
            format: Format::Mcp,
            product_id: "p",
            product_name: None,
        };
        for input in [
            json!("x"),
            json!({"tools":{}}),
            json!({"jsonrpc":"2.0","id":1,"error":{"code":-1}}),
            json!({"tools":[]}),
            json!({"tools":[{"name":""}]}),
        ] {
            let err = import(&input, &options).unwrap_err();
            assert_eq!(err.reason, Reason::InvalidImport, "{input}");
        }
        let bad_product = ImportOptions {
            product_id: "bad id",
            ..options
        };
        let err = import(&json!({"tools":[{"name":"a"}]}), &bad_product).unwrap_err();
        assert_eq!(err.reason, Reason::InvalidImport);
    }
}
