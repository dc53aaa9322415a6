//! Arbitrary catalog.v1 text: the build either fails with `invalid_catalog` or yields a
//! snapshot whose hashes are well formed and stable, which answers a search and inspects
//! its own tools.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use toolsearch::catalog::{is_well_formed_hash, Catalog, SourceFile};
use toolsearch::error::Reason;
use toolsearch::Engine;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let sources = vec![SourceFile {
        name: "fuzz.json".to_string(),
        text: text.to_string().into(),
    }];
    let catalog = match Catalog::build(&sources) {
        Ok(catalog) => catalog,
        Err(error) => {
            assert_eq!(error.reason, Reason::InvalidCatalog, "{error}");
            common::check_line(&toolsearch::cli::error_line(&error));
            return;
        }
    };
    assert!(is_well_formed_hash(catalog.source_hash()));
    assert!(is_well_formed_hash(catalog.surface_hash()));
    let again = Catalog::build(&sources).expect("a catalog that built once builds again");
    assert_eq!(again.source_hash(), catalog.source_hash());
    assert_eq!(again.surface_hash(), catalog.surface_hash());
    let canonicals: Vec<String> = catalog
        .tools()
        .iter()
        .take(3)
        .map(|t| t.def.canonical_path.clone())
        .collect();
    let version = catalog.version();
    let engine = Engine::new(catalog, "fielded_bm25").expect("default retriever");
    for canonical in &canonicals {
        let request = serde_json::json!({"version":"tool-search.v1","query":canonical});
        let answer = engine.search_bytes(request.to_string().as_bytes(), false);
        common::check_search(&answer);
        let line = answer.expect("an identity query is answered");
        assert!(line.contains(canonical.as_str()));
        let inspect = serde_json::json!({"version":"schema-inspect.v1","canonical_path":canonical,
            "expected_source_hash":version.source_hash,"expected_surface_hash":version.surface_hash});
        let spec = engine.inspect_bytes(inspect.to_string().as_bytes());
        common::check_inspect(&spec);
        assert!(spec.is_ok(), "inspect of its own tool {canonical} failed");
    }
    let request = r#"{"version":"tool-search.v1","query":"send message 发送消息","limit":20}"#;
    common::check_search(&engine.search_bytes(request.as_bytes(), true));
});
