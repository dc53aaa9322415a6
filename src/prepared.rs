//! The prepared snapshot of the embedded catalog: its hashes and its default index, computed
//! once and committed as `catalog/prepared.bin`, so a cold process neither hashes the catalog
//! nor analyses every tool before answering.
//!
//! **Invariants**
//! - The snapshot is used only when its fingerprint equals the build's fingerprint of the
//!   catalog files and every index input (`build.rs`; whole-line comments of the Rust inputs
//!   are left out), and only for the default retriever
//!   configuration; otherwise everything is built from the catalog as usual. A stale or
//!   corrupt snapshot is never used, so it can only cost time, never change an answer.
//!   (`inspect` reads only the header, fingerprint and hashes: it needs no index.)
//! - `invariant_prepared_snapshot_is_current` regenerates it and fails on any difference
//!   (`UPDATE_PREPARED=1 cargo test --test it prepared` rewrites it).

use crate::catalog::{Catalog, SourceFile};
use crate::error::Result;
use crate::index::{Index, Reader};
use crate::retrieve::Bm25Config;
use crate::text::Analyzer;

const MAGIC: &[u8] = b"toolsearch-prepared-v2\n";

/// The committed snapshot (may be stale; see the invariants).
static SNAPSHOT: &[u8] = include_bytes!("../catalog/prepared.bin");

/// What a snapshot holds besides its fingerprint.
pub struct Prepared {
    pub source_hash: &'static str,
    pub surface_hash: &'static str,
    pub index: Index,
}

fn put_str(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

fn read_str(reader: &mut Reader<'static>) -> Option<&'static str> {
    let len = reader.u32()? as usize;
    std::str::from_utf8(reader.bytes(len)?).ok()
}

/// The default index of `catalog`, as the snapshot stores it.
pub fn default_index(catalog: &Catalog) -> Index {
    let config = Bm25Config::DEFAULT;
    Index::build(
        catalog,
        &Analyzer::new(config.analyzer),
        &config.weights,
        config.single_field,
        crate::retrieve::lends(&config, catalog),
    )
}

/// Encodes a snapshot of `catalog` under `fingerprint`.
pub fn encode(fingerprint: &str, catalog: &Catalog) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    put_str(&mut out, fingerprint);
    put_str(&mut out, catalog.source_hash());
    put_str(&mut out, catalog.surface_hash());
    default_index(catalog).encode(&mut out);
    out
}

/// The snapshot's header: its hashes, if it was made for `fingerprint`; and a reader at the
/// encoded index.
fn decode_header(
    bytes: &'static [u8],
    fingerprint: &str,
) -> Option<(&'static str, &'static str, Reader<'static>)> {
    let mut reader = Reader::new(bytes);
    if reader.bytes(MAGIC.len())? != MAGIC || read_str(&mut reader)? != fingerprint {
        return None;
    }
    let source_hash = read_str(&mut reader)?;
    let surface_hash = read_str(&mut reader)?;
    Some((source_hash, surface_hash, reader))
}

/// Decodes `bytes` if it is a well-formed snapshot for `fingerprint`.
pub fn decode(bytes: &'static [u8], fingerprint: &str) -> Option<Prepared> {
    let (source_hash, surface_hash, mut reader) = decode_header(bytes, fingerprint)?;
    let index = Index::decode(&mut reader)?;
    reader.is_at_end().then_some(Prepared {
        source_hash,
        surface_hash,
        index,
    })
}

/// The committed snapshot, if it is current for this build.
pub fn embedded() -> Option<Prepared> {
    decode(SNAPSHOT, crate::EMBEDDED_FINGERPRINT)
}

/// The embedded catalog, with its hashes from the snapshot when it is current, but without
/// decoding the index (for `inspect`, which needs none).
///
/// # Errors
/// `invalid_catalog` if the embedded catalog is corrupt (a build defect).
pub fn load_embedded_catalog(sources: &[SourceFile]) -> Result<Catalog> {
    let known_hashes = decode_header(SNAPSHOT, crate::EMBEDDED_FINGERPRINT)
        .map(|(source_hash, surface_hash, _)| (source_hash, surface_hash));
    Catalog::build_with(sources, known_hashes)
}

/// The embedded catalog, with its prepared index when the snapshot is current.
///
/// # Errors
/// `invalid_catalog` if the embedded catalog is corrupt (a build defect).
pub fn load_embedded(sources: &[SourceFile]) -> Result<(Catalog, Option<Index>)> {
    match embedded() {
        Some(prepared) => {
            let catalog =
                Catalog::build_with(sources, Some((prepared.source_hash, prepared.surface_hash)))?;
            let fits = prepared
                .index
                .fields
                .iter()
                .all(|f| f.doc_len.len() == catalog.tools().len());
            Ok((catalog, fits.then_some(prepared.index)))
        }
        None => Ok((Catalog::build(sources)?, None)),
    }
}
