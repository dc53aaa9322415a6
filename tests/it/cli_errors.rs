//! Catalog failures fail closed (exit 5) and never print a partial answer.
use crate::util::*;

#[test]
fn corrupt_catalogs_fail_closed_with_exit_5() {
    let dir = TempDir::new("corrupt");
    let good_tool = r#"{"canonical_path":"p.a","name":"a","cli_path":"p a"}"#;
    let cases = [
        ("truncated.json", r#"{"version":"catalog.v1","products":[{"id":"p","tools":["#.to_string()),
        ("unknown-key.json", format!(r#"{{"version":"catalog.v1","products":[{{"id":"p","colour":"red","tools":[{good_tool}]}}]}}"#)),
        ("collision.json", r#"{"version":"catalog.v1","products":[{"id":"p","tools":[{"canonical_path":"p.a","name":"a","cli_path":"p a"},{"canonical_path":"p.b","name":"b","aliases":["p a"]}]}]}"#.to_string()),
        ("dup-canonical.json", format!(r#"{{"version":"catalog.v1","products":[{{"id":"p","tools":[{good_tool},{good_tool}]}}]}}"#)),
        ("bad-name.json", r#"{"version":"catalog.v1","products":[{"id":"p","tools":[{"canonical_path":"p.a b","name":"a b"}]}]}"#.to_string()),
        ("bad-effect.json", r#"{"version":"catalog.v1","products":[{"id":"p","tools":[{"canonical_path":"p.a","name":"a","effect":"explode"}]}]}"#.to_string()),
        ("dup-key.json", r#"{"version":"catalog.v1","products":[{"id":"p","tools":[{"canonical_path":"p.a","name":"a","parameters":{"x":{},"x":{}}}]}]}"#.to_string()),
        ("empty.json", r#"{"version":"catalog.v1","products":[]}"#.to_string()),
    ];
    for (name, text) in cases {
        let path = dir.write(name, &text);
        for args in [
            vec!["search", "--catalog", &path, "--query", "x"],
            vec!["catalog", "verify", "--catalog", &path],
            vec!["serve", "--catalog", &path],
        ] {
            let run = ts(&args).run();
            assert_eq!(run.code, 5, "{name} {args:?}: {run:?}");
            let error = run.error();
            assert_eq!(error["error"]["category"], "internal");
            assert_eq!(error["error"]["reason"], "invalid_catalog", "{name}");
        }
    }
    let missing = ts(&[
        "search",
        "--catalog",
        "/nonexistent/catalog.json",
        "--query",
        "x",
    ])
    .run();
    assert_eq!(missing.code, 5);
    assert_eq!(missing.reason(), "catalog_unreadable");
}

#[test]
fn special_files_are_refused_not_read_forever() {
    for path in ["/dev/zero", "/dev/null"] {
        let run = ts(&["search", "--catalog", path, "--query", "x"]).run();
        assert_eq!(run.code, 5, "{path}: {run:?}");
        assert_eq!(run.reason(), "catalog_unreadable", "{path}");
    }
}

#[test]
fn a_product_defined_in_two_files_is_an_error() {
    let dir = TempDir::new("twice");
    let text = r#"{"version":"catalog.v1","products":[{"id":"p","tools":[{"canonical_path":"p.a","name":"a"}]}]}"#;
    dir.write("one.json", text);
    dir.write("two.json", text);
    let run = ts(&[
        "catalog",
        "verify",
        "--catalog",
        &dir.path().display().to_string(),
    ])
    .run();
    assert_eq!(run.code, 5);
    assert!(run.error()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("already defined"));
}

#[test]
fn help_and_verify_succeed() {
    let help = ts(&["--help"]).run();
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("toolsearch search"));
    let verify = ts(&["catalog", "verify"]).run().json();
    assert_eq!(verify["catalog"], "valid");
    assert!(verify["tools"].as_u64().unwrap() >= 300);
    assert!(verify["products"].as_u64().unwrap() >= 15);
}
