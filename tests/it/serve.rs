//! `serve`: JSON Lines, each answer byte-identical to the single-shot one.
use serde_json::json;

use crate::util::*;

#[test]
fn serve_answers_every_line_like_single_shot() {
    let mini = mini();
    let (source, surface) = hashes(Some(&mini));
    let requests = vec![
        json!({"version":"tool-search.v1","query":"发送消息"}).to_string(),
        json!({"version":"tool-search.v1","query":"alpha.send_message_v1"}).to_string(),
        "{not json".to_string(),
        json!({"version":"tool-search.v1","query":"list events","limit":50}).to_string(),
        json!({"version":"schema-inspect.v1","canonical_path":"alpha send","expected_source_hash":source,"expected_surface_hash":surface}).to_string(),
        json!({"version":"schema-inspect.v1","canonical_path":"alpha send","expected_source_hash":format!("sha256:{}", "1".repeat(64)),"expected_surface_hash":surface}).to_string(),
        String::new(),
        json!({"version":"tool-search.v1","subqueries":["发送消息","创建日程"],"limit":3}).to_string(),
        json!({"version":"nope"}).to_string(),
    ];
    assert_serve_equals_single_shot(Some(&mini), &requests);
}

#[test]
fn serve_survives_an_oversized_line_and_ends_at_eof() {
    let big = format!(
        "{{\"version\":\"tool-search.v1\",\"query\":\"{}\"}}",
        "x".repeat(70_000)
    );
    let input = format!(
        "{big}\n{}\n",
        json!({"version":"tool-search.v1","query":"chat.send_message"})
    );
    let served = ts(&["serve"]).stdin(&input).run();
    assert_eq!(served.code, 0);
    let lines: Vec<&str> = served.stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].contains("request_too_large"));
    assert!(lines[1].contains("exact_guard"));
    let empty = ts(&["serve"]).stdin("").run();
    assert_eq!((empty.code, empty.stdout.as_str()), (0, ""));
}

/// Answers queued behind further requests may be batched, but an answer is never held back
/// while the server waits for input: a client that sends one line and waits gets its answer.
#[test]
fn serve_answers_an_interactive_client_line_by_line() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    use std::sync::mpsc::channel;
    use std::time::Duration;

    let mut child = ts(&["serve"])
        .raw()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolsearch serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (sender, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if sender.send(line.expect("read an answer")).is_err() {
                break;
            }
        }
    });
    for query in ["发送消息", "list events", "撤回那条消息"] {
        let request = json!({"version":"tool-search.v1","query":query}).to_string() + "\n";
        stdin.write_all(request.as_bytes()).expect("send");
        stdin.flush().expect("flush");
        let answer = lines
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no answer to `{query}` while the client waits"));
        assert!(answer.contains("\"strategy\""), "{answer}");
    }
    drop(stdin);
    assert!(child.wait().expect("wait").success());
}
