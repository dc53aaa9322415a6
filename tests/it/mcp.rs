//! `toolsearch mcp`: a real conversation with the binary over pipes, one line at a time.
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::*;

/// A running `toolsearch mcp` with a line reader on its stdout.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(BIN)
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn toolsearch mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Session {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// The next response line; the server must answer before we send anything else.
    fn receive(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .expect("a response line within 30 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("response is JSON ({e}): {line}"))
    }

    fn request(&mut self, message: Value) -> Value {
        self.send(&message.to_string());
        let response = self.receive();
        assert_eq!(response["jsonrpc"], "2.0");
        assert_eq!(response["id"], message["id"], "{response}");
        response
    }

    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> (String, bool) {
        let response = self.request(json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
            "params":{"name":tool,"arguments":arguments}}));
        let content = response["result"]["content"].as_array().expect("content");
        assert_eq!(content.len(), 1, "{response}");
        assert_eq!(content[0]["type"], "text");
        (
            content[0]["text"].as_str().expect("text").to_string(),
            response["result"]["isError"] == true,
        )
    }

    /// Closes stdin and waits: the exit code and stderr.
    fn finish(mut self) -> (i32, String) {
        drop(self.stdin.take());
        let output = self.child.wait_with_output().expect("wait");
        assert!(
            self.lines.recv_timeout(Duration::from_secs(5)).is_err(),
            "no unexpected output at EOF"
        );
        (
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

fn without_newline(text: &str) -> String {
    text.strip_suffix('\n').unwrap_or(text).to_string()
}

#[test]
fn mcp_conversation_initialize_list_search_inspect_stale() {
    let mini = mini();
    let mut session = Session::start(&["--catalog", &mini]);

    let init = session.request(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"it","version":"0"}}}));
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["capabilities"], json!({"tools":{}}));
    assert_eq!(init["result"]["serverInfo"]["name"], "toolsearch");
    // A notification gets no answer: the next line answers the next request.
    session.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}).to_string());

    let list = session.request(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["search_tools", "inspect_tool"]);
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object");
        assert!(tool["description"].as_str().unwrap().len() > 40);
    }
    assert_eq!(
        tools[1]["inputSchema"]["required"],
        json!([
            "canonical_path",
            "expected_source_hash",
            "expected_surface_hash"
        ])
    );

    // search: the text is exactly what `search` prints, without the newline.
    let (text, is_error) = session.call(3, "search_tools", json!({"query":"发送消息","limit":3}));
    assert!(!is_error);
    let single = ts(&[
        "search",
        "--catalog",
        &mini,
        "--query",
        "发送消息",
        "--limit",
        "3",
    ])
    .run();
    assert_eq!(text, without_newline(&single.stdout));
    let (text, _) = session.call(4, "search_tools", json!({"query":"alpha.send_message"}));
    let search: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(search["strategy"], "exact_guard");
    let (source, surface) = response_hashes(&search);

    // inspect with the hashes from the search.
    let (text, is_error) = session.call(
        5,
        "inspect_tool",
        json!({"canonical_path":"alpha.send_message","expected_source_hash":source,"expected_surface_hash":surface}),
    );
    assert!(!is_error);
    let single = inspect_with_hashes(Some(&mini), "alpha.send_message", &source, &surface);
    assert_eq!(text, without_newline(&single.stdout));
    let spec: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(spec["tool_spec"]["canonical_path"], "alpha.send_message");

    // A stale hash: isError with exactly the error JSON `inspect` prints on stderr.
    let stale = format!("sha256:{}", "0".repeat(64));
    let (text, is_error) = session.call(
        6,
        "inspect_tool",
        json!({"canonical_path":"alpha.send_message","expected_source_hash":stale,"expected_surface_hash":surface}),
    );
    assert!(is_error);
    let single = inspect_with_hashes(Some(&mini), "alpha.send_message", &stale, &surface);
    assert_eq!(single.reason(), "catalog_changed");
    assert_eq!(text, without_newline(&single.stderr));

    // A contract error in the arguments is a tool error, not a protocol error.
    let (text, is_error) = session.call(7, "search_tools", json!({"query":"x","bogus":1}));
    assert!(is_error);
    assert!(text.contains("invalid_request_json"), "{text}");

    // Malformed and invalid messages get JSON-RPC errors; the server keeps going.
    for (line, code, id) in [
        ("{not json".to_string(), -32700, Value::Null),
        ("[]".to_string(), -32600, Value::Null),
        (
            json!({"jsonrpc":"2.0","id":null,"method":"ping"}).to_string(),
            -32600,
            Value::Null,
        ),
        (
            json!({"id":10,"method":"ping"}).to_string(),
            -32600,
            json!(10),
        ),
    ] {
        session.send(&line);
        let response = session.receive();
        assert_eq!(response["error"]["code"], code, "{line}");
        assert_eq!(response["id"], id, "{line}");
    }
    session.send("\u{7f}\u{1}\u{0}garbage");
    assert_eq!(session.receive()["error"]["code"], -32700);
    let unknown = session.request(json!({"jsonrpc":"2.0","id":"u","method":"prompts/list"}));
    assert_eq!(unknown["error"]["code"], -32601);
    let bad_params = session.request(
        json!({"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"run_shell"}}),
    );
    assert_eq!(bad_params["error"]["code"], -32602);
    let ping = session.request(json!({"jsonrpc":"2.0","id":9,"method":"ping"}));
    assert_eq!(ping["result"], json!({}));

    let (code, stderr) = session.finish();
    assert_eq!((code, stderr.as_str()), (0, ""));
}

#[test]
fn mcp_ends_at_eof_and_fails_closed_on_a_corrupt_catalog() {
    let empty = ts(&["mcp"]).run();
    assert_eq!((empty.code, empty.stdout.as_str()), (0, ""));
    let dir = TempDir::new("mcp-corrupt");
    let bad = dir.write("bad.json", "{\"version\":\"catalog.v1\",\"products\":[]}");
    let run = ts(&["mcp", "--catalog", &bad])
        .stdin("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .run();
    assert_eq!(run.reason(), "invalid_catalog");
    assert_eq!(run.code, 5);
}
