//! Every ```console example in the README (and the agent skill) is real output of the
//! current binary. `UPDATE_DOCS=1 cargo test --test it docs` rewrites the outputs (and the
//! catalog hashes in commands) after an intended change, so the diff is reviewed.
use crate::util::*;

const ZERO_HASH: &str = "sha256:0000000000000000000000000000000000000000000000000000000000000000";

/// Splits a command line on spaces, honouring double and single quotes.
fn split_args(line: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut in_arg = false;
    for ch in line.chars() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => {
                quote = Some(ch);
                in_arg = true;
            }
            (None, ' ') => {
                if in_arg {
                    args.push(std::mem::take(&mut current));
                    in_arg = false;
                }
            }
            (None, c) => {
                current.push(c);
                in_arg = true;
            }
        }
    }
    if in_arg {
        args.push(current);
    }
    args
}

/// Runs one example command: `toolsearch ARGS` or `echo 'JSON' | toolsearch ARGS`.
fn run_example(command: &str) -> String {
    let (stdin, command) = match command.split_once(" | ") {
        Some((echo, rest)) => {
            let json = split_args(echo);
            assert_eq!(
                json[0], "echo",
                "only `echo '…' | toolsearch …` pipes are supported"
            );
            (json[1].clone() + "\n", rest)
        }
        None => (String::new(), command),
    };
    let args = split_args(command);
    assert_eq!(args[0], "toolsearch", "examples run toolsearch: {command}");
    let args: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    let run = ts(&args).stdin(stdin).run();
    if run.code == 0 {
        run.stdout
    } else {
        format!("{}[exit {}]\n", run.stderr, run.code)
    }
}

/// Replaces the catalog hashes in an example command with the current ones.
fn current_hashes(command: &str, source: &str, surface: &str) -> String {
    let mut args = split_args(command);
    for idx in 1..args.len() {
        let flag = args[idx - 1].clone();
        if args[idx] == ZERO_HASH {
            continue;
        }
        if flag == "--expected-source-hash" {
            args[idx] = source.to_string();
        } else if flag == "--expected-surface-hash" {
            args[idx] = surface.to_string();
        }
    }
    if command.contains(" | ") {
        // Hashes inside piped JSON are rewritten textually.
        let mut out = command.to_string();
        for (key, value) in [
            ("expected_source_hash", source),
            ("expected_surface_hash", surface),
        ] {
            if let Some(start) = out.find(&format!("\"{key}\":\"")) {
                let from = start + key.len() + 4;
                if let Some(len) = out[from..].find('"') {
                    if &out[from..from + len] != ZERO_HASH {
                        out.replace_range(from..from + len, value);
                    }
                }
            }
        }
        return out;
    }
    args.iter()
        .map(|a| {
            if a.contains(' ') || a.is_empty() {
                format!("\"{a}\"")
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn check_markdown(relative: &str) {
    let path = repo().join(relative);
    let text = std::fs::read_to_string(&path).unwrap();
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let (source, surface) = hashes(None);
    let mut out = String::new();
    let mut lines = text.split_inclusive('\n').peekable();
    let mut checked = 0;
    while let Some(line) = lines.next() {
        out.push_str(line);
        if line.trim_end() != "```console" {
            continue;
        }
        let command_line = lines.next().expect("a command after ```console");
        let command = command_line
            .trim_end()
            .strip_prefix("$ ")
            .expect("console blocks start with `$ `");
        let mut expected = String::new();
        for body in lines.by_ref() {
            if body.trim_end() == "```" {
                break;
            }
            expected.push_str(body);
        }
        let command = if update {
            current_hashes(command, &source, &surface)
        } else {
            command.to_string()
        };
        let actual = run_example(&command);
        if !update {
            assert_eq!(expected, actual, "{relative}: example `{command}` is stale; run UPDATE_DOCS=1 cargo test --test it docs");
        }
        out.push_str(&format!("$ {command}\n{actual}```\n"));
        checked += 1;
    }
    assert!(checked > 0, "{relative} has no console examples");
    if update {
        std::fs::write(&path, out).unwrap();
    }
}

#[test]
fn readme_examples_are_real_output() {
    check_markdown("README.md");
}

#[test]
fn skill_examples_are_real_output() {
    // An installable skill starts with YAML front matter naming and describing it.
    let text = std::fs::read_to_string(repo().join("docs/skill/SKILL.md")).unwrap();
    let front = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---\n"))
        .map(|(front, _)| front)
        .expect("SKILL.md starts with --- front matter ---");
    for key in ["name: ", "description: "] {
        assert!(
            front
                .lines()
                .any(|l| l.starts_with(key) && l.len() > key.len()),
            "front matter has `{key}`"
        );
    }
    check_markdown("docs/skill/SKILL.md");
}

/// The part of `docs/adr/README.md` between its markers: every ADR's title and every one of
/// its addenda's headings, in file order, so that an idea can be looked up before it is tried
/// again. Generated from the ADR files themselves.
fn adr_index() -> String {
    let dir = repo().join("docs/adr");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| {
            name.ends_with(".md") && name.as_bytes().first().is_some_and(u8::is_ascii_digit)
        })
        .collect();
    files.sort();
    let mut out = String::new();
    for name in files {
        let text = std::fs::read_to_string(dir.join(&name)).unwrap();
        let mut headings = text.lines();
        let Some(title) = headings.next().and_then(|l| l.strip_prefix("# ")) else {
            panic!("{name} does not start with a `# ` title");
        };
        out.push_str(&format!("- [{title}]({name})\n"));
        for heading in headings.filter_map(|l| l.strip_prefix("## Addendum")) {
            let heading = heading.trim_start_matches([' ', '—', '-', ':']).trim();
            out.push_str(&format!("  - {heading}\n"));
        }
    }
    out
}

/// `docs/adr/README.md` lists every ADR and addendum (`UPDATE_DOCS=1` rewrites the list).
#[test]
fn the_adr_index_lists_every_addendum() {
    const BEGIN: &str =
        "<!-- index: generated by tests/it/docs.rs; UPDATE_DOCS=1 cargo test --test it docs -->\n";
    const END: &str = "<!-- end of index -->\n";
    let path = repo().join("docs/adr/README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find(BEGIN).expect("the index's begin marker") + BEGIN.len();
    let end = text[start..].find(END).expect("the index's end marker") + start;
    let index = adr_index();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, format!("{}{index}{}", &text[..start], &text[end..])).unwrap();
    } else {
        assert_eq!(
            text[start..end],
            index,
            "docs/adr/README.md is stale; run UPDATE_DOCS=1 cargo test --test it docs"
        );
    }
    assert!(index.lines().count() > 100, "{index}");
}
