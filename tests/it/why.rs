//! `toolsearch why`: the ranking explained term by term, through the binary. That its figures
//! add up to the retriever's scores bit for bit is checked in `tests/properties.rs`; here, that
//! it prints the same scores as `search --explain`, names a tool beyond the answer, and fails
//! like every other command.
use crate::util::*;

const QUERY: &str = "撤回刚才发到项目群的消息";

/// The lines of the block that explains `canonical` (from its `rank …` line to the next blank
/// line).
fn block<'a>(report: &'a str, canonical: &str) -> Vec<&'a str> {
    let mut lines = report.lines().skip_while(|line| {
        !(line.starts_with("rank ") || line.starts_with("unranked") || line.starts_with("not "))
            || !line.ends_with(&format!("  {canonical}"))
    });
    let mut block = Vec::new();
    if let Some(first) = lines.next() {
        block.push(first);
        block.extend(lines.take_while(|line| !line.is_empty()));
    }
    block
}

#[test]
fn why_prints_the_scores_search_explains_and_a_named_tool_beyond_them() {
    let search = ts(&["search", "--query", QUERY, "--limit", "2", "--explain"])
        .run()
        .json();
    let run = ts(&["why", "--query", QUERY, "--limit", "2", "ding.recall"]).run();
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{run:?}");
    let report = &run.stdout;
    assert!(
        report.starts_with(&format!("request    {QUERY}\n")),
        "{report}"
    );
    assert!(report.contains("answer fielded_bm25"), "{report}");
    // Every term line names its origin; the request's own words are among them.
    assert!(report.contains("  request  "), "{report}");
    assert!(report.contains("  lexicon  "), "{report}");
    for (at, candidate) in search["candidates"].as_array().unwrap().iter().enumerate() {
        let canonical = candidate["canonical_path"].as_str().unwrap();
        let lines = block(report, canonical);
        assert_eq!(
            lines.first().copied(),
            Some(format!("rank {}  {canonical}", at + 1).as_str()),
            "{report}"
        );
        let total = candidate["score_breakdown"]["total"].as_f64().unwrap();
        assert!(
            lines[1].starts_with(&format!("  score {total:.3} = fields ")),
            "{canonical}: {:?} against {total}",
            lines[1]
        );
    }
    // The named tool is explained after the answer's two, with its rank in the whole ranking.
    let named = block(report, "ding.recall");
    assert!(
        named.first().is_some_and(|line| line.starts_with("rank ")),
        "{report}"
    );
    let rank: usize = named[0]["rank ".len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a rank");
    assert!(rank > 2, "{report}");
    // Same request, same bytes.
    let again = ts(&["why", "--query", QUERY, "--limit", "2", "ding.recall"]).run();
    assert_eq!(again.stdout, run.stdout);
}

#[test]
fn why_says_when_a_tool_matches_nothing_and_when_identity_answers() {
    let run = ts(&[
        "why",
        "--catalog",
        &mini(),
        "--query",
        "conversation",
        "alpha.recall_message",
    ])
    .run();
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        block(&run.stdout, "alpha.recall_message"),
        [
            "unranked  alpha.recall_message",
            "  no term of the request occurs in this tool's fields"
        ],
        "{}",
        run.stdout
    );
    assert!(
        block(&run.stdout, "alpha.send_message")
            .first()
            .is_some_and(|line| *line == "rank 1  alpha.send_message"),
        "{}",
        run.stdout
    );

    let run = ts(&["why", "--catalog", &mini(), "--query", "alpha.send_message"]).run();
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("answer exact_guard"), "{}", run.stdout);
    assert!(run.stdout.contains("no lexical ranking to explain"));
}

#[test]
fn why_fails_like_every_command() {
    let cases: &[(&[&str], &str)] = &[
        (&["why"], "invalid_transport"),
        (
            &["why", "--query", "撤回消息", "no.such_tool"],
            "unknown_tool",
        ),
        (
            &["why", "--query", "撤回消息", "--limit", "x"],
            "invalid_limit",
        ),
        (&["why", "--query", "   "], "query_required"),
        (
            &[
                "why",
                "--query",
                "撤回消息",
                "--retriever",
                "fielded_bm25_ngram",
            ],
            "invalid_transport",
        ),
        (
            &["why", "--query", "撤回消息", "--param", "no_such_knob=1"],
            "invalid_transport",
        ),
        (
            &["why", "--query", "撤回消息", "--json"],
            "invalid_transport",
        ),
    ];
    for (args, reason) in cases {
        let run = ts(args).run();
        assert_eq!(run.reason(), *reason, "{args:?}: {run:?}");
    }
}
