//! `toolsearch mcp`: the Model Context Protocol over stdio (newline-delimited JSON-RPC 2.0),
//! exposing `search_tools` and `inspect_tool`.
//!
//! A hand-written subset of MCP: `initialize`, `ping`, `tools/list`, `tools/call`, and
//! notifications (accepted, never answered). A `tools/call` result holds exactly one text
//! item: the `tool-search.v1` / `schema-inspect.v1` document, byte-identical to what `search` /
//! `inspect` print (without the newline); a contract error is `isError: true` with the error
//! JSON document as the text.
//!
//! **Invariants**
//! - One response line per request, written and flushed before the next line is read; no
//!   response to a notification or to a client's response.
//! - Bad input never ends the server: malformed JSON is `-32700` (id `null`), a message that
//!   is not a valid request `-32600`, an unknown method `-32601`, bad params `-32602`.
//!   Only EOF (exit 0) or a failed write ends it.
//! - Stateless and deterministic: the same message gives the same response bytes.

use std::io::{BufRead, Write};

use serde_json::{json, Map, Value};

use crate::error::{Error, Reason, Result};
use crate::limits::MAX_REQUEST_BYTES;
use crate::{wire, Engine};

/// The protocol version answered when the client asks for one this server does not know.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-06-18";
/// Protocol versions whose tool subset this server speaks; a client's choice among them is
/// echoed.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-06-18", "2025-03-26", "2024-11-05"];

pub const SEARCH_TOOL: &str = "search_tools";
pub const INSPECT_TOOL: &str = "inspect_tool";

/// The largest message line read; the JSON-RPC envelope around a maximal request fits easily.
pub const MAX_MESSAGE_BYTES: usize = 4 * MAX_REQUEST_BYTES;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

const INSTRUCTIONS: &str = "Find a tool with search_tools (one natural-language query, or \
subqueries for a multi-step task), pick a candidate by its action and effect, then call \
inspect_tool with its canonical_path and both catalog hashes from the search to get the full \
contract. Search and inspect never authorize a call. On a catalog_changed error, search again.";

/// A JSON-RPC error response line (without newline).
fn error_response(id: &Value, code: i64, message: impl Into<String>) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message.into()},
    })
    .to_string()
}

fn result_response(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// Answers one message line; `None` when the message gets no response (a notification, a
/// client's response, a blank line).
pub fn handle_message(engine: &Engine, line: &[u8]) -> Option<String> {
    let null = Value::Null;
    let Ok(text) = std::str::from_utf8(line) else {
        return Some(error_response(&null, PARSE_ERROR, "parse error: not UTF-8"));
    };
    if text.trim().is_empty() {
        return None;
    }
    let message: Value = match serde_json::from_str(text) {
        Ok(message) => message,
        Err(e) => {
            return Some(error_response(
                &null,
                PARSE_ERROR,
                format!("parse error: {e}"),
            ))
        }
    };
    let Some(object) = message.as_object() else {
        let what = if message.is_array() {
            "batches are not supported; send one request per line"
        } else {
            "a request must be a JSON object"
        };
        return Some(error_response(&null, INVALID_REQUEST, what));
    };
    let id = match object.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id),
        Some(_) => {
            return Some(error_response(
                &null,
                INVALID_REQUEST,
                "`id` must be a string or a number",
            ))
        }
    };
    let reply_id = id.unwrap_or(&null);
    let method = match object.get("method") {
        Some(Value::String(method)) => method.as_str(),
        // A response from the client (we never send requests): nothing to answer.
        None if id.is_some() && (object.contains_key("result") || object.contains_key("error")) => {
            return None
        }
        _ => {
            return Some(error_response(
                reply_id,
                INVALID_REQUEST,
                "`method` must be a string",
            ))
        }
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Some(error_response(
            reply_id,
            INVALID_REQUEST,
            "`jsonrpc` must be \"2.0\"",
        ));
    }
    if let Err(e) = crate::json::parse_strict::<Value>(text) {
        return id.map(|id| error_response(id, INVALID_REQUEST, format!("invalid request: {e}")));
    }
    let params = match object.get("params") {
        None => None,
        Some(params @ (Value::Object(_) | Value::Array(_))) => Some(params),
        Some(_) => {
            return Some(error_response(
                reply_id,
                INVALID_REQUEST,
                "`params` must be an object or an array",
            ))
        }
    };
    // Notifications (`notifications/initialized`, `notifications/cancelled`, …) need no action.
    let id = id?;
    let answer = match method {
        "initialize" => initialize(params),
        "ping" => Ok(json!({})),
        "tools/list" => params_object(params).map(|_| json!({"tools": tool_definitions()})),
        "tools/call" => call_tool(engine, params),
        other => Err((METHOD_NOT_FOUND, format!("method not found: `{other}`"))),
    };
    Some(match answer {
        Ok(result) => result_response(id, result),
        Err((code, message)) => error_response(id, code, message),
    })
}

type Answer = std::result::Result<Value, (i64, String)>;

fn bad_params(message: impl Into<String>) -> (i64, String) {
    (INVALID_PARAMS, message.into())
}

/// The params object (absent = empty); an array is invalid for every method here.
fn params_object(params: Option<&Value>) -> std::result::Result<Map<String, Value>, (i64, String)> {
    match params {
        None => Ok(Map::new()),
        Some(Value::Object(map)) => Ok(map.clone()),
        Some(_) => Err(bad_params("`params` must be an object")),
    }
}

fn initialize(params: Option<&Value>) -> Answer {
    let params = params_object(params)?;
    let requested = match params.get("protocolVersion") {
        Some(Value::String(version)) => version.as_str(),
        _ => {
            return Err(bad_params(
                "initialize needs `params.protocolVersion` (a string)",
            ))
        }
    };
    let version = if PROTOCOL_VERSIONS.contains(&requested) {
        requested
    } else {
        LATEST_PROTOCOL_VERSION
    };
    Ok(json!({
        "protocolVersion": version,
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "toolsearch", "version": env!("CARGO_PKG_VERSION")},
        "instructions": INSTRUCTIONS,
    }))
}

fn string_list(description: &str) -> Value {
    json!({"type": "array", "items": {"type": "string"}, "description": description})
}

/// The two tools, with input schemas mirroring the request documents minus `version`.
pub fn tool_definitions() -> Value {
    let annotations = json!({
        "readOnlyHint": true,
        "destructiveHint": false,
        "idempotentHint": true,
        "openWorldHint": false,
    });
    let hash = |which: &str| {
        json!({
            "type": "string",
            "pattern": "^sha256:[0-9a-f]{64}$",
            "description": format!("The catalog's {which} from the search response (`catalog.{which}`)."),
        })
    };
    json!([
        {
            "name": SEARCH_TOOL,
            "title": "Search tools",
            "description": "Find the catalog tools that fit one step of a task. Give `query` \
                (natural language in Chinese or English, or an exact canonical path / CLI path) or \
                `subqueries` for a multi-step task. Answers a tool-search.v1 document: up to `limit` \
                light references ranked from 1, plus the catalog hashes. A reference never \
                authorizes a call: inspect the chosen tool with inspect_tool and both hashes. \
                `abstained` means no tool fits: report the capability as unsupported. \
                `weak_match` means only weak matches: read every candidate, and if none does the \
                step's action, report the capability as unsupported.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "maxLength": 2048,
                        "description": "Natural-language query (at most 256 characters) or an exact identity (canonical path, CLI path, alias). Required unless `subqueries` is given.",
                    },
                    "subqueries": {
                        "type": "array",
                        "items": {"type": "string"},
                        "maxItems": 8,
                        "description": "Up to 8 sub-queries of a multi-step task, each searched on its own and merged round-robin.",
                    },
                    "limit": {
                        "type": "integer", "minimum": 0, "maximum": 20,
                        "description": "Candidates to return, 1..20 (0 or absent = 5).",
                    },
                    "candidate_limit": {
                        "type": "integer", "minimum": 0, "maximum": 100,
                        "description": "Hits retrieved per query before the cut, 1..100 (0 or absent = 20).",
                    },
                    "product_ids": string_list("Only tools of these products."),
                    "effects": {
                        "type": "array",
                        "items": {"type": "string", "enum": ["read", "write", "destructive"]},
                        "description": "Only tools with one of these effects.",
                    },
                    "exclude_canonical": string_list("Never return these canonical paths."),
                },
                "additionalProperties": false,
            },
            "annotations": annotations,
        },
        {
            "name": INSPECT_TOOL,
            "title": "Inspect a tool",
            "description": "The full contract of one tool (parameters or input schema, effect, \
                risk, confirmation, examples) as a schema-inspect.v1 document. Needs both catalog \
                hashes from the search response; a `catalog_changed` error means the catalog \
                changed since that search: search again.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "canonical_path": {
                        "type": "string",
                        "description": "The chosen candidate's canonical_path (a CLI path or alias also works).",
                    },
                    "expected_source_hash": hash("source_hash"),
                    "expected_surface_hash": hash("surface_hash"),
                },
                "required": ["canonical_path", "expected_source_hash", "expected_surface_hash"],
                "additionalProperties": false,
            },
            "annotations": annotations,
        },
    ])
}

fn call_tool(engine: &Engine, params: Option<&Value>) -> Answer {
    let params = params_object(params)?;
    let name = match params.get("name") {
        Some(Value::String(name)) => name.as_str(),
        _ => return Err(bad_params("tools/call needs `params.name` (a string)")),
    };
    let mut arguments = match params.get("arguments") {
        None => Map::new(),
        Some(Value::Object(arguments)) => arguments.clone(),
        Some(_) => return Err(bad_params("`params.arguments` must be an object")),
    };
    let (version, search) = match name {
        SEARCH_TOOL => (wire::SEARCH_VERSION, true),
        INSPECT_TOOL => (wire::INSPECT_VERSION, false),
        other => return Err(bad_params(format!("unknown tool: `{other}`"))),
    };
    arguments
        .entry("version")
        .or_insert_with(|| Value::String(version.to_string()));
    let answer = serde_json::to_vec(&Value::Object(arguments))
        .map_err(|e| {
            Error::new(
                Reason::InvalidRequestJson,
                format!("cannot encode arguments: {e}"),
            )
        })
        .and_then(|request| {
            if search {
                engine.search_bytes(&request, false)
            } else {
                engine.inspect_bytes(&request)
            }
        });
    let (text, is_error) = match answer {
        Ok(line) => (line, false),
        Err(error) => (crate::respond::error_line(&error), true),
    };
    let text = text.strip_suffix('\n').unwrap_or(&text).to_string();
    Ok(json!({
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
    }))
}

/// Serves MCP on `input` / `output` until EOF.
///
/// # Errors
/// `read_request_failed` when the input cannot be read, `output_failed` when a response
/// cannot be written.
pub fn serve(engine: &Engine, input: &mut dyn BufRead, output: &mut dyn Write) -> Result<()> {
    let read_failed = |e: std::io::Error| {
        Error::new(Reason::ReadRequestFailed, format!("cannot read stdin: {e}"))
    };
    let mut line = Vec::new();
    loop {
        let answer = match crate::lines::read_capped(input, MAX_MESSAGE_BYTES, &mut line)
            .map_err(read_failed)?
        {
            crate::lines::Line::Eof => return Ok(()),
            crate::lines::Line::Oversized => Some(error_response(
                &Value::Null,
                INVALID_REQUEST,
                format!("a message line is over {MAX_MESSAGE_BYTES} bytes"),
            )),
            crate::lines::Line::Fits => handle_message(engine, &line),
        };
        if let Some(answer) = answer {
            output
                .write_all(answer.as_bytes())
                .and_then(|()| output.write_all(b"\n"))
                .and_then(|()| output.flush())
                .map_err(|e| {
                    Error::new(Reason::OutputFailed, format!("cannot write stdout: {e}"))
                })?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn engine() -> Engine {
        let catalog = crate::catalog::one_product(
            "p",
            r#"{"canonical_path":"p.a","name":"a","title":"Send a message","effect":"write"}"#,
        );
        Engine::new(catalog, crate::retrieve::DEFAULT_RETRIEVER).unwrap()
    }

    fn answer(engine: &Engine, message: &str) -> Value {
        let line = handle_message(engine, message.as_bytes()).expect("a response");
        serde_json::from_str(&line).unwrap()
    }

    #[test]
    fn invariant_tool_schemas_mirror_the_request_documents() {
        let wire_schemas: std::collections::BTreeMap<_, _> =
            wire::json_schemas().into_iter().collect();
        let tools = tool_definitions();
        for (tool, file) in [
            (0, "tool-search.v1.request.schema.json"),
            (1, "schema-inspect.v1.request.schema.json"),
        ] {
            let ours: BTreeSet<&String> = tools[tool]["inputSchema"]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .collect();
            let theirs: BTreeSet<&String> = wire_schemas[file]["properties"]
                .as_object()
                .unwrap()
                .keys()
                .filter(|k| *k != "version")
                .collect();
            assert_eq!(ours, theirs, "{file}");
        }
    }

    #[test]
    fn protocol_errors_have_their_codes() {
        let engine = engine();
        for (message, code, id) in [
            ("{not json", PARSE_ERROR, Value::Null),
            ("[]", INVALID_REQUEST, Value::Null),
            ("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", INVALID_REQUEST, Value::Null),
            ("42", INVALID_REQUEST, Value::Null),
            ("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", INVALID_REQUEST, Value::Null),
            ("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", INVALID_REQUEST, json!(1)),
            ("{\"jsonrpc\":\"2.0\",\"id\":\"a\"}", INVALID_REQUEST, json!("a")),
            ("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"method\":\"ping\"}", INVALID_REQUEST, json!(2)),
            ("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":1}", INVALID_REQUEST, json!(3)),
            ("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/list\"}", METHOD_NOT_FOUND, json!(4)),
            ("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"initialize\",\"params\":{}}", INVALID_PARAMS, json!(5)),
            ("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}", INVALID_PARAMS, json!(6)),
            ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"search_tools\",\"arguments\":[]}}", INVALID_PARAMS, json!(7)),
            ("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\",\"params\":[]}", INVALID_PARAMS, json!(8)),
        ] {
            let response = answer(&engine, message);
            assert_eq!(response["error"]["code"], code, "{message}");
            assert_eq!(response["id"], id, "{message}");
            assert_eq!(response["jsonrpc"], "2.0");
        }
    }

    #[test]
    fn notifications_and_responses_get_no_answer() {
        let engine = engine();
        for message in [
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}",
            "   ",
            "",
        ] {
            assert_eq!(
                handle_message(&engine, message.as_bytes()),
                None,
                "{message}"
            );
        }
    }

    #[test]
    fn initialize_echoes_a_known_version() {
        let engine = engine();
        for (asked, answered) in [
            ("2025-03-26", "2025-03-26"),
            ("2024-11-05", "2024-11-05"),
            ("1999-01-01", LATEST_PROTOCOL_VERSION),
        ] {
            let message = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":asked,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}});
            let response = answer(&engine, &message.to_string());
            assert_eq!(response["result"]["protocolVersion"], answered);
            assert_eq!(response["result"]["capabilities"], json!({"tools":{}}));
            assert_eq!(response["result"]["serverInfo"]["name"], "toolsearch");
        }
    }

    #[test]
    fn tool_calls_answer_the_contract_documents() {
        let engine = engine();
        let message = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"p.a"}}});
        let response = answer(&engine, &message.to_string());
        let expected = engine
            .search_bytes(br#"{"version":"tool-search.v1","query":"p.a"}"#, false)
            .unwrap();
        assert_eq!(response["result"]["isError"], false);
        assert_eq!(
            response["result"]["content"],
            json!([{"type":"text","text":expected.trim_end_matches('\n')}])
        );
        let message = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"p.a","limit":99}}});
        let response = answer(&engine, &message.to_string());
        assert_eq!(response["result"]["isError"], true);
        let text = response["result"]["content"][0]["text"].as_str().unwrap();
        let error: Value = serde_json::from_str(text).unwrap();
        assert_eq!(error["error"]["reason"], "invalid_limit");
    }
}
