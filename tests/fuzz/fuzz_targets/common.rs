//! Shared by the fuzz targets: one engine over the embedded catalog, and the output checks
//! every answer must pass (the same contract the binary promises).
#![allow(dead_code)] // each target uses a subset

use std::sync::OnceLock;

use toolsearch::error::{Category, Error};
use toolsearch::Engine;

pub const BUDGET: usize = 8_192;

pub fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let catalog = toolsearch::cli::load_catalog(None).expect("embedded catalog");
        let engine = Engine::new(catalog, "fielded_bm25").expect("default retriever");
        engine.retriever();
        engine
    })
}

/// One JSON document and its newline, nothing else.
pub fn check_line(line: &str) -> serde_json::Value {
    assert!(line.ends_with('\n'), "answer without newline: {line:?}");
    assert_eq!(
        line.matches('\n').count(),
        1,
        "answer of several lines: {line:?}"
    );
    serde_json::from_str(line).expect("answer is JSON")
}

pub fn check_search(result: &Result<String, Error>) {
    match result {
        Ok(line) => {
            assert!(line.len() <= BUDGET, "{} bytes > budget", line.len());
            let value = check_line(line);
            assert_eq!(value["version"], "tool-search.v1");
            let candidates = value["candidates"].as_array().expect("candidates");
            for (idx, candidate) in candidates.iter().enumerate() {
                assert_eq!(candidate["rank"].as_u64(), Some(idx as u64 + 1));
            }
        }
        Err(error) => check_error(error, &[Category::Validation]),
    }
}

pub fn check_inspect(result: &Result<String, Error>) {
    match result {
        Ok(line) => {
            let value = check_line(line);
            assert_eq!(value["version"], "schema-inspect.v1");
        }
        Err(error) => check_error(error, &[Category::Validation, Category::Discovery]),
    }
}

pub fn check_error(error: &Error, categories: &[Category]) {
    assert!(
        categories.contains(&error.category()),
        "unexpected category for {error}"
    );
    let value = check_line(&toolsearch::cli::error_line(error));
    assert_eq!(
        value["error"]["code"].as_u64(),
        Some(u64::from(error.exit_code()))
    );
}
