//! catalog.v1 documents → one immutable, validated, hashed [`Catalog`] snapshot.
//!
//! **Invariants**
//! - Immutable after [`Catalog::build`]; tools are stored sorted by canonical path and
//!   addressed by a dense [`ToolId`] (never serialized).
//! - `source_hash` / `surface_hash` do not depend on file order, product order, tool order,
//!   JSON key order or whitespace (formats.md §5.1).
//! - Identity keys (canonical paths; CLI paths, primary CLI paths and aliases in their
//!   collapsed form) are unique across the catalog, or the build fails (`invalid_catalog`,
//!   exit 5). The identity table is built here, once, and never changes.

use std::borrow::Cow;
use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use crate::canonical;
use crate::error::{Error, Reason, Result};
use crate::json::parse_strict;
use crate::wire::{self, CatalogDocument, Effect};

/// Dense index of a tool in [`Catalog::tools`] (sorted by canonical path).
pub type ToolId = u32;

/// One catalog source: a name for error messages and its JSON text (borrowed for the catalog
/// compiled into the binary, so a cold process does not copy it).
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: Cow<'static, str>,
}

/// A product of the snapshot (without its tools).
#[derive(Debug, Clone)]
pub struct ProductInfo {
    pub id: String,
    pub name: Option<String>,
    /// The product's own text, which no tool's fields hold: the product prior reads it
    /// ([`Catalog::products_as_tools`]).
    pub description: Option<String>,
    pub agent_summary: Option<String>,
    pub use_when: Vec<String>,
}

/// A tool of the snapshot: its catalog.v1 definition plus the product it belongs to.
#[derive(Debug, Clone)]
pub struct ToolEntry {
    pub product_id: String,
    pub product_name: Option<String>,
    pub def: wire::Tool,
}

impl ToolEntry {
    /// Returns true if and only if an agent may execute the tool (`availability` absent or
    /// `"available"`).
    pub fn is_available(&self) -> bool {
        self.def
            .availability
            .as_deref()
            .is_none_or(|a| a == "available")
    }

    pub fn effect(&self) -> Option<Effect> {
        self.def.effect
    }

    pub fn idempotency(&self) -> Option<crate::wire::Idempotency> {
        self.def.idempotency
    }

    /// The CLI path shown in references: `primary_cli_path`, else `cli_path`.
    pub fn primary_cli_path(&self) -> Option<&str> {
        self.def
            .primary_cli_path
            .as_deref()
            .or(self.def.cli_path.as_deref())
    }
}

/// The immutable snapshot every request runs against.
#[derive(Debug, Clone)]
pub struct Catalog {
    products: Vec<ProductInfo>,
    tools: Vec<ToolEntry>,
    source_hash: String,
    surface_hash: String,
    canonical_keys: BTreeMap<String, ToolId>,
    cli_keys: BTreeMap<String, ToolId>,
    /// Per tool: [`ToolEntry::is_available`] (the eligibility of a request without filters).
    available: Vec<bool>,
}

impl Catalog {
    /// Parses and validates catalog.v1 sources and builds the snapshot.
    ///
    /// # Errors
    /// `invalid_catalog` for any malformed document, grammar violation, duplicate or
    /// colliding identity.
    pub fn build(sources: &[SourceFile]) -> Result<Catalog> {
        Catalog::build_with(sources, None)
    }

    /// As [`Catalog::build`], but each source's text is dropped as soon as it is parsed, so a
    /// large catalog's text and its hashing never hold memory at the same time.
    ///
    /// # Errors
    /// As [`Catalog::build`].
    pub fn build_owned(sources: Vec<SourceFile>) -> Result<Catalog> {
        let products = parse_sources(sources.into_iter().map(|s| (s.name, s.text)), false)?;
        Catalog::from_products(products, None)
    }

    /// As [`Catalog::build`], but for sources already verified by an identical build (the
    /// prepared snapshot of the embedded catalog): the duplicate-key pass and the hashing are
    /// skipped and `known_hashes` (source, surface) are used. Every other check still runs.
    ///
    /// # Errors
    /// As [`Catalog::build`].
    pub fn build_with(
        sources: &[SourceFile],
        known_hashes: Option<(&str, &str)>,
    ) -> Result<Catalog> {
        let products = parse_sources(
            sources.iter().map(|s| (s.name.as_str(), s.text.as_ref())),
            known_hashes.is_some(),
        )?;
        Catalog::from_products(products, known_hashes)
    }

    fn from_products(
        mut products: Vec<wire::Product>,
        known_hashes: Option<(&str, &str)>,
    ) -> Result<Catalog> {
        products.sort_by(|a, b| a.id.cmp(&b.id));
        for product in &mut products {
            validate_product(product)?;
            product
                .tools
                .sort_by(|a, b| a.canonical_path.cmp(&b.canonical_path));
        }
        // Hash before the tools move into the snapshot (no deep copy of the catalog).
        let (source_hash, surface_hash) = match known_hashes {
            Some((source, surface)) => (source.to_string(), surface.to_string()),
            None => (hash_source(&products)?, hash_surface(&products)?),
        };
        let mut tools = Vec::new();
        let mut product_infos = Vec::with_capacity(products.len());
        for product in products {
            for tool in product.tools {
                tools.push(ToolEntry {
                    product_id: product.id.clone(),
                    product_name: product.name.clone(),
                    def: tool,
                });
            }
            product_infos.push(ProductInfo {
                id: product.id,
                name: product.name,
                description: product.description,
                agent_summary: product.agent_summary,
                use_when: product.use_when,
            });
        }
        if tools.is_empty() {
            return Err(invalid("the catalog has no tools"));
        }
        tools.sort_by(|a, b| a.def.canonical_path.cmp(&b.def.canonical_path));
        if tools.len() > ToolId::MAX as usize {
            return Err(invalid("too many tools"));
        }

        let mut canonical_keys = BTreeMap::new();
        let mut cli_keys: BTreeMap<String, ToolId> = BTreeMap::new();
        for (tool_idx, tool) in tools.iter().enumerate() {
            let tool_id = tool_idx as ToolId;
            let canonical = &tool.def.canonical_path;
            if canonical_keys.insert(canonical.clone(), tool_id).is_some() {
                return Err(invalid(format!(
                    "canonical path `{canonical}` is defined twice"
                )));
            }
            let cli_forms = tool
                .def
                .cli_path
                .iter()
                .chain(tool.def.primary_cli_path.iter())
                .chain(tool.def.aliases.iter());
            for cli in cli_forms {
                let key = cli_key(cli);
                if key.is_empty() {
                    return Err(invalid(format!(
                        "{canonical}: CLI path `{cli}` is empty without its `dws` prefix"
                    )));
                }
                if let Some(&other) = cli_keys.get(&key) {
                    if other != tool_id {
                        return Err(invalid(format!(
                            "CLI path or alias `{key}` names both `{}` and `{canonical}`",
                            tools[other as usize].def.canonical_path
                        )));
                    }
                }
                cli_keys.insert(key, tool_id);
            }
        }

        Ok(Catalog {
            products: product_infos,
            available: tools.iter().map(ToolEntry::is_available).collect(),
            tools,
            source_hash,
            surface_hash,
            canonical_keys,
            cli_keys,
        })
    }

    /// A catalog of one document per product, for the product prior (docs/adr/0003's
    /// product-prior addendum): the product's name as title, its `agent_summary` (else its
    /// description, else its name) as summary, its description and its `use_when`
    /// (`avoid_when` says what it is not for, so it is left out). Its tools are in the order
    /// of [`Catalog::products`] (`p.<id>`, the ids sorted). `None` for fewer than two products.
    pub fn products_as_tools(&self) -> Option<Catalog> {
        if self.products.len() < 2 {
            return None;
        }
        let tools = self
            .products
            .iter()
            .map(|product| {
                let title = product.name.clone().unwrap_or_else(|| product.id.clone());
                wire::Tool {
                    canonical_path: format!("p.{}", product.id),
                    name: product.id.clone(),
                    title: Some(title.clone()),
                    agent_summary: Some(
                        product
                            .agent_summary
                            .clone()
                            .or_else(|| product.description.clone())
                            .unwrap_or(title),
                    ),
                    description: product.description.clone(),
                    use_when: product.use_when.clone(),
                    effect: Some(Effect::Read),
                    ..wire::Tool::default()
                }
            })
            .collect();
        let product = wire::Product {
            id: "p".into(),
            name: None,
            description: None,
            agent_summary: None,
            use_when: Vec::new(),
            avoid_when: Vec::new(),
            tools,
        };
        Catalog::from_products(vec![product], None).ok()
    }

    pub fn tools(&self) -> &[ToolEntry] {
        &self.tools
    }

    pub fn tool(&self, tool_id: ToolId) -> &ToolEntry {
        &self.tools[tool_id as usize]
    }

    /// One flag per tool (by `ToolId`): true if and only if it is available.
    pub fn availability(&self) -> &[bool] {
        &self.available
    }

    pub fn products(&self) -> &[ProductInfo] {
        &self.products
    }

    /// Returns true if and only if a product with this id exists.
    pub fn has_product(&self, product_id: &str) -> bool {
        self.products
            .binary_search_by(|p| p.id.as_str().cmp(product_id))
            .is_ok()
    }

    pub fn source_hash(&self) -> &str {
        &self.source_hash
    }

    pub fn surface_hash(&self) -> &str {
        &self.surface_hash
    }

    pub fn version(&self) -> wire::CatalogVersion {
        wire::CatalogVersion {
            source_hash: self.source_hash.clone(),
            surface_hash: self.surface_hash.clone(),
        }
    }

    /// The tool whose canonical path is exactly `key`.
    pub fn by_canonical(&self, key: &str) -> Option<ToolId> {
        self.canonical_keys.get(key).copied()
    }

    /// The tool whose collapsed CLI path, primary CLI path or alias is exactly `key`
    /// (already in [`cli_key`] form).
    pub fn by_cli_key(&self, key: &str) -> Option<ToolId> {
        self.cli_keys.get(key).copied()
    }

    /// Every identity key with its tool, canonical keys first (for tests and lint).
    pub fn identity_keys(&self) -> impl Iterator<Item = (&str, ToolId)> {
        self.canonical_keys
            .iter()
            .chain(self.cli_keys.iter())
            .map(|(k, &v)| (k.as_str(), v))
    }
}

/// The collapsed form of a CLI path: whitespace runs become one space, a leading `dws`
/// token is dropped.
pub fn cli_key(path: &str) -> String {
    let mut tokens: Vec<&str> = path.split_whitespace().collect();
    if tokens.first() == Some(&"dws") {
        tokens.remove(0);
    }
    tokens.join(" ")
}

/// Parses catalog.v1 documents (name, text) into their products, sorted by id; a product id
/// defined twice is an error. `trusted` texts (verified by an identical earlier build) skip the
/// duplicate-key pass. Each text is dropped once parsed.
fn parse_sources<N, T>(
    sources: impl ExactSizeIterator<Item = (N, T)>,
    trusted: bool,
) -> Result<Vec<wire::Product>>
where
    N: AsRef<str>,
    T: AsRef<str>,
{
    if sources.len() == 0 {
        return Err(invalid("no catalog.v1 documents found"));
    }
    let mut products: BTreeMap<String, (wire::Product, String)> = BTreeMap::new();
    for (name, text) in sources {
        let name = name.as_ref();
        let document: CatalogDocument = if trusted {
            serde_json::from_str(text.as_ref()).map_err(|e| e.to_string())
        } else {
            parse_strict(text.as_ref())
        }
        .map_err(|e| invalid(format!("{name}: {e}")))?;
        drop(text);
        if document.version != wire::CATALOG_VERSION {
            return Err(invalid(format!(
                "{name}: version must be \"{}\", found {:?}",
                wire::CATALOG_VERSION,
                document.version
            )));
        }
        for product in document.products {
            if let Some((_, first)) = products.get(&product.id) {
                return Err(invalid(format!(
                    "{name}: product `{}` is already defined in {first}",
                    product.id
                )));
            }
            products.insert(product.id.clone(), (product, name.to_string()));
        }
    }
    Ok(products.into_values().map(|(p, _)| p).collect())
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(Reason::InvalidCatalog, message)
}

fn is_id(text: &str, extra: &[char]) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || extra.contains(&c))
}

/// Returns true if and only if `path` is tokens of `[A-Za-z0-9][A-Za-z0-9_-]*` joined by single spaces.
fn is_cli_path(path: &str) -> bool {
    path.split(' ').all(|token| is_id(token, &[]))
}

fn validate_product(product: &wire::Product) -> Result<()> {
    if !is_id(&product.id, &[]) {
        return Err(invalid(format!(
            "product id `{}` does not match ^[A-Za-z0-9][A-Za-z0-9_-]*$",
            product.id
        )));
    }
    for tool in &product.tools {
        let canonical = &tool.canonical_path;
        if !is_id(&tool.name, &['.']) {
            return Err(invalid(format!(
                "{canonical}: name `{}` does not match ^[A-Za-z0-9][A-Za-z0-9_.-]*$",
                tool.name
            )));
        }
        if *canonical != format!("{}.{}", product.id, tool.name) {
            return Err(invalid(format!(
                "{canonical}: canonical_path must be `{}.{}`",
                product.id, tool.name
            )));
        }
        let paths = tool
            .cli_path
            .iter()
            .chain(tool.primary_cli_path.iter())
            .chain(tool.aliases.iter());
        for path in paths {
            if !is_cli_path(path) {
                return Err(invalid(format!(
                    "{canonical}: CLI path or alias `{path}` must be tokens [A-Za-z0-9][A-Za-z0-9_-]* separated by single spaces"
                )));
            }
        }
        for flag in tool.parameters.keys() {
            if !is_id(flag, &['.']) {
                return Err(invalid(format!(
                    "{canonical}: parameter flag `{flag}` is not a valid flag name"
                )));
            }
        }
        if tool.availability.as_deref() == Some("") {
            return Err(invalid(format!(
                "{canonical}: availability must not be empty"
            )));
        }
    }
    Ok(())
}

fn sha256_hex(bytes: &[u8]) -> String {
    digest_hex(&Sha256::digest(bytes))
}

fn digest_hex(digest: &[u8]) -> String {
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest.iter() {
        out.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        out.push(char::from_digit(u32::from(byte & 0xf), 16).unwrap_or('0'));
    }
    out
}

/// Returns true if and only if `hash` is `sha256:` followed by 64 lowercase hex digits.
pub fn is_well_formed_hash(hash: &str) -> bool {
    hash.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

fn encoding_failed(e: serde_json::Error) -> Error {
    invalid(format!("cannot encode the catalog for hashing: {e}"))
}

/// The canonical JSON of `value`: object keys sorted (serde_json's `Value` maps are ordered),
/// no whitespace.
fn canonical_json<T: serde::Serialize>(value: &T) -> Result<Vec<u8>> {
    let value = serde_json::to_value(value).map_err(encoding_failed)?;
    serde_json::to_vec(&value).map_err(encoding_failed)
}

/// Feeds the canonical JSON of `products`, comma-separated, to `sink` one product at a time
/// (one buffer, reused).
fn each_canonical_product(products: &[wire::Product], sink: &mut dyn FnMut(&[u8])) -> Result<()> {
    let mut buffer = Vec::new();
    for (idx, product) in products.iter().enumerate() {
        buffer.clear();
        if idx > 0 {
            buffer.push(b',');
        }
        canonical::write_product(&mut buffer, product).map_err(encoding_failed)?;
        sink(&buffer);
    }
    Ok(())
}

/// The canonical JSON of `products`, comma-separated, as one buffer.
fn canonical_products(products: &[wire::Product]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    each_canonical_product(products, &mut |bytes| out.extend_from_slice(bytes))?;
    Ok(out)
}

/// From this many tools on, the second half of the catalog is serialized for hashing on a
/// thread of its own while the first half is hashed.
const PARALLEL_HASH_MIN_TOOLS: usize = 2_000;

/// sha256 of the canonical JSON of the whole catalog: products sorted by id, tools by
/// canonical path, object keys sorted, no whitespace.
///
/// The document is never built whole: its frame is the canonical JSON of the document without
/// products, `{"products":[],"version":"catalog.v1"}`, and the products are hashed between its
/// brackets, one at a time (`canonical::write_product`): the same bytes as serializing the
/// whole document. A large catalog's second half is serialized on another thread meanwhile
/// and hashed after the first.
fn hash_source(products: &[wire::Product]) -> Result<String> {
    let frame = canonical_json(&CatalogDocument {
        version: wire::CATALOG_VERSION.to_string(),
        products: Vec::new(),
    })?;
    const EMPTY: &[u8] = b"\"products\":[]";
    let split = frame
        .windows(EMPTY.len())
        .position(|w| w == EMPTY)
        .map(|at| at + EMPTY.len() - 1)
        .ok_or_else(|| invalid("cannot encode the catalog for hashing: no product list"))?;
    let mut hasher = Sha256::new();
    hasher.update(&frame[..split]);
    let n_tools: usize = products.iter().map(|p| p.tools.len()).sum();
    if n_tools < PARALLEL_HASH_MIN_TOOLS || products.len() < 2 {
        each_canonical_product(products, &mut |bytes| hasher.update(bytes))?;
    } else {
        // Split where half the tools are before.
        let mut before = 0;
        let half = products
            .iter()
            .position(|p| {
                before += p.tools.len();
                before * 2 >= n_tools
            })
            .map_or(products.len(), |idx| idx + 1)
            .min(products.len() - 1);
        let (first, second) = products.split_at(half);
        let late = std::thread::scope(|scope| {
            let later = std::thread::Builder::new()
                .spawn_scoped(scope, || canonical_products(second))
                .ok();
            each_canonical_product(first, &mut |bytes| hasher.update(bytes))?;
            // A thread that could not start, or failed, is redone here.
            later
                .and_then(|handle| handle.join().ok())
                .unwrap_or_else(|| canonical_products(second))
        })?;
        hasher.update(b",");
        hasher.update(&late);
    }
    hasher.update(&frame[split..]);
    Ok(digest_hex(&hasher.finalize()))
}

/// sha256 of the identity surface only: product ids and, per tool, canonical path, CLI path,
/// primary CLI path and sorted aliases.
fn hash_surface(products: &[wire::Product]) -> Result<String> {
    let mut surface = Vec::new();
    for product in products {
        let mut tools = Vec::new();
        for tool in &product.tools {
            let mut aliases = tool.aliases.clone();
            aliases.sort();
            tools.push(serde_json::json!([
                tool.canonical_path,
                tool.cli_path,
                tool.primary_cli_path,
                aliases
            ]));
        }
        surface.push(serde_json::json!([product.id, tools]));
    }
    let bytes = serde_json::to_vec(&surface).map_err(encoding_failed)?;
    Ok(sha256_hex(&bytes))
}

/// A catalog of one product, `product`, holding `tools` (catalog.v1 tool objects,
/// comma-separated): the small catalogs other modules' tests are built on.
#[cfg(test)]
pub(crate) fn one_product(product: &str, tools: &str) -> Catalog {
    Catalog::build(&[SourceFile {
        name: "t.json".into(),
        text: format!(
            r#"{{"version":"catalog.v1","products":[{{"id":"{product}","tools":[{tools}]}}]}}"#
        )
        .into(),
    }])
    .unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The product prior's documents: one per product, in product order, with the product's
    /// own text and its fallbacks; none for a catalog of one product.
    #[test]
    fn products_become_one_document_each() {
        let catalog = Catalog::build(&source(
            r#"{"version":"catalog.v1","products":[
                {"id":"zeta","name":"Zeta","description":"Z things.","agent_summary":"Zeta summary.","use_when":["z"],"avoid_when":["not z"],"tools":[{"canonical_path":"zeta.a","name":"a"}]},
                {"id":"alpha","description":"Alpha things.","tools":[{"canonical_path":"alpha.a","name":"a"}]}]}"#,
        ))
        .unwrap();
        let documents = catalog.products_as_tools().unwrap();
        let tools: Vec<_> = documents.tools().iter().map(|t| &t.def).collect();
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].canonical_path, "p.alpha");
        assert_eq!(tools[0].title.as_deref(), Some("alpha"));
        assert_eq!(tools[0].agent_summary.as_deref(), Some("Alpha things."));
        assert_eq!(tools[1].canonical_path, "p.zeta");
        assert_eq!(tools[1].title.as_deref(), Some("Zeta"));
        assert_eq!(tools[1].agent_summary.as_deref(), Some("Zeta summary."));
        assert_eq!(tools[1].description.as_deref(), Some("Z things."));
        assert_eq!(tools[1].use_when, vec!["z".to_string()]);
        assert!(tools[1].avoid_when.is_empty());
        let one = Catalog::build(&source(TWO_TOOLS)).unwrap();
        assert!(one.products_as_tools().is_none());
    }

    fn source(text: &str) -> Vec<SourceFile> {
        vec![SourceFile {
            name: "test.json".into(),
            text: text.to_string().into(),
        }]
    }

    const TWO_TOOLS: &str = r#"{"version":"catalog.v1","products":[{"id":"p","tools":[
        {"canonical_path":"p.a","name":"a","cli_path":"p a","aliases":["p x"]},
        {"canonical_path":"p.b","name":"b","cli_path":"p b","description":"B"}]}]}"#;

    #[test]
    fn cli_key_collapses_whitespace_and_dws() {
        assert_eq!(cli_key("  dws   chat  send "), "chat send");
        assert_eq!(cli_key("chat dws"), "chat dws");
        assert_eq!(cli_key("dws"), "");
    }

    #[test]
    fn invariant_hashes_ignore_order_and_whitespace() {
        let a = Catalog::build(&source(TWO_TOOLS)).unwrap();
        let reordered = r#"{"products":[{"tools":[{"description":"B","name":"b","cli_path":"p b","canonical_path":"p.b"},
            {"aliases":["p x"],"name":"a","canonical_path":"p.a","cli_path":"p a"}],"id":"p"}],"version":"catalog.v1"}"#;
        let b = Catalog::build(&source(reordered)).unwrap();
        assert_eq!(a.source_hash(), b.source_hash());
        assert_eq!(a.surface_hash(), b.surface_hash());
        assert!(is_well_formed_hash(a.source_hash()));
    }

    /// The source hash is sha256 of the canonical JSON of the whole document, however it is
    /// computed (here: many products, so in two halves).
    #[test]
    fn invariant_source_hash_is_that_of_the_whole_canonical_document() {
        let mut products = Vec::new();
        for p in 0..40 {
            let tools: Vec<String> = (0..60)
                .map(|t| {
                    format!(
                        r#"{{"canonical_path":"p{p}.t{t}","name":"t{t}","description":"é \" {t}","parameters":{{"b":{{"type":"string"}},"a":{{"type":"integer","example":1.5e300}}}}}}"#
                    )
                })
                .collect();
            products.push(format!(
                r#"{{"id":"p{p}","name":"P {p}","tools":[{}]}}"#,
                tools.join(",")
            ));
        }
        let text = format!(
            r#"{{"version":"catalog.v1","products":[{}]}}"#,
            products.join(",")
        );
        let mut document: CatalogDocument = serde_json::from_str(&text).unwrap();
        document.products.sort_by(|a, b| a.id.cmp(&b.id));
        for product in &mut document.products {
            product
                .tools
                .sort_by(|a, b| a.canonical_path.cmp(&b.canonical_path));
        }
        let whole = serde_json::to_vec(&serde_json::to_value(&document).unwrap()).unwrap();
        let catalog = Catalog::build(&source(&text)).unwrap();
        assert_eq!(catalog.source_hash(), sha256_hex(&whole));
        let one = Catalog::build(&source(TWO_TOOLS)).unwrap();
        let document: CatalogDocument = serde_json::from_str(TWO_TOOLS).unwrap();
        let whole = serde_json::to_vec(&serde_json::to_value(&document).unwrap()).unwrap();
        assert_eq!(one.source_hash(), sha256_hex(&whole));
    }

    #[test]
    fn content_changes_source_hash_only() {
        let a = Catalog::build(&source(TWO_TOOLS)).unwrap();
        let b = Catalog::build(&source(&TWO_TOOLS.replace("\"B\"", "\"C\""))).unwrap();
        assert_ne!(a.source_hash(), b.source_hash());
        assert_eq!(a.surface_hash(), b.surface_hash());
        let c = Catalog::build(&source(&TWO_TOOLS.replace("p x", "p y"))).unwrap();
        assert_ne!(a.surface_hash(), c.surface_hash());
    }

    #[test]
    fn corrupt_catalogs_fail_closed() {
        for (text, needle) in [
            (TWO_TOOLS.replace("p x", "p b"), "names both"),
            (
                TWO_TOOLS.replace("\"p.b\"", "\"p.a\""),
                "canonical_path must be",
            ),
            (
                TWO_TOOLS.replace("\"name\":\"b\"", "\"name\":\"b\",\"bogus\":1"),
                "unknown field",
            ),
            (TWO_TOOLS.replace("\"p b\"", "\"p  b\""), "single spaces"),
            (
                TWO_TOOLS.replace("catalog.v1", "catalog.v2"),
                "version must be",
            ),
            (
                TWO_TOOLS.replace(
                    "\"description\":\"B\"",
                    "\"description\":\"B\",\"description\":\"C\"",
                ),
                "duplicate",
            ),
        ] {
            let err = Catalog::build(&source(&text)).unwrap_err();
            assert_eq!(err.reason, Reason::InvalidCatalog);
            assert!(err.message.contains(needle), "{needle}: {}", err.message);
        }
    }
}
