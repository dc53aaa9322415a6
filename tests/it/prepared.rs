//! The committed prepared snapshot (`catalog/prepared.bin`) is current, and answers exactly as
//! an index built from the catalog at start-up would.
use toolsearch::{catalog::Catalog, prepared, Engine};

use crate::util::*;

/// Set UPDATE_PREPARED=1 to rewrite `catalog/prepared.bin` after changing the catalog or an
/// index input (the fingerprint in build.rs lists them).
#[test]
fn invariant_prepared_snapshot_is_current() {
    let catalog = Catalog::build(&toolsearch::embedded_sources()).unwrap();
    let expected = prepared::encode(toolsearch::EMBEDDED_FINGERPRINT, &catalog);
    let path = repo().join("catalog/prepared.bin");
    if std::env::var_os("UPDATE_PREPARED").is_some() {
        // The running binary still embeds the old file; the next build checks the new one.
        std::fs::write(&path, &expected).unwrap();
        return;
    }
    let on_disk = std::fs::read(&path).unwrap_or_default();
    assert!(
        on_disk == expected,
        "catalog/prepared.bin is stale; run UPDATE_PREPARED=1 cargo test --test it prepared"
    );
    // This binary was compiled with the file as it was then; it must decode and fit.
    let decoded = prepared::embedded().expect("the compiled-in snapshot is current");
    assert_eq!(decoded.source_hash, catalog.source_hash());
    assert_eq!(decoded.surface_hash, catalog.surface_hash());
    assert!(decoded.index == prepared::default_index(&catalog));
}

#[test]
fn invariant_prepared_and_fresh_engines_answer_alike() {
    let sources = toolsearch::embedded_sources();
    let (catalog, index) = prepared::load_embedded(&sources).unwrap();
    assert!(index.is_some(), "the snapshot is used");
    let fast = Engine::with_prepared_index(catalog, "fielded_bm25", index).unwrap();
    let fresh = Engine::new(Catalog::build(&sources).unwrap(), "fielded_bm25").unwrap();
    let qrels: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("qrels/test.json")).unwrap())
            .unwrap();
    for case in qrels["cases"].as_array().unwrap() {
        let request =
            serde_json::json!({"version":"tool-search.v1","query":case["query"],"limit":20});
        let bytes = request.to_string();
        assert_eq!(
            fast.search_bytes(bytes.as_bytes(), true),
            fresh.search_bytes(bytes.as_bytes(), true),
            "{}",
            case["id"]
        );
    }
}

/// A damaged snapshot is refused, never half-read: every truncation (sampled) and a changed
/// count decode to `None` without panicking, so the engine falls back to building its index.
#[test]
fn damaged_snapshots_are_refused() {
    let catalog = Catalog::build(&toolsearch::embedded_sources()).unwrap();
    let fingerprint = toolsearch::EMBEDDED_FINGERPRINT;
    let whole: &'static [u8] =
        Box::leak(prepared::encode(fingerprint, &catalog).into_boxed_slice());
    assert!(prepared::decode(whole, fingerprint).is_some());
    assert!(prepared::decode(whole, "another fingerprint").is_none());
    let tail = whole.len().saturating_sub(64)..whole.len();
    for len in (0..whole.len()).step_by(997).chain(tail) {
        assert!(
            prepared::decode(&whole[..len], fingerprint).is_none(),
            "{len}"
        );
    }
    // One more byte at the end is refused too.
    let mut longer = whole.to_vec();
    longer.push(0);
    assert!(prepared::decode(Box::leak(longer.into_boxed_slice()), fingerprint).is_none());
    // The last u32 is the stem groups' member count: one fewer is refused.
    let mut short_count = whole.to_vec();
    let members = stem_members(&catalog);
    let at = short_count.len() - 4 * (1 + members);
    let count = u32::from_le_bytes(short_count[at..at + 4].try_into().unwrap());
    assert_eq!(count as usize, members, "the layout this test assumes");
    short_count[at..at + 4].copy_from_slice(&(count - 1).to_le_bytes());
    assert!(prepared::decode(Box::leak(short_count.into_boxed_slice()), fingerprint).is_none());
}

/// How many term ids the stem groups of the embedded default index list.
fn stem_members(catalog: &Catalog) -> usize {
    let index = prepared::default_index(catalog);
    (0..index.terms.len() as u32)
        .filter(|&id| toolsearch::text::is_english_word(index.terms.term(id)))
        .count()
}
