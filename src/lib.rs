//! toolsearch: exact, deterministic tool search over a hashed command catalog.
//!
//! The pipeline is plain functions over plain data (see docs/ARCHITECTURE.md):
//! request bytes → [`request`] validation → [`search::search`] (exact guard → [`filter`] →
//! [`retrieve`]) → [`respond::render`] → response bytes. [`inspect::inspect`] answers
//! `schema-inspect.v1`. [`Engine`] bundles one immutable [`catalog::Catalog`] snapshot with
//! its retriever, built once per process.

mod canonical;
pub mod catalog;
pub mod cli;
pub mod error;
pub mod eval;
pub mod filter;
pub mod import;
pub mod index;
pub mod inspect;
pub mod json;
pub mod limits;
pub mod lines;
pub mod lint;
pub mod mcp;
pub mod prepared;
pub mod request;
pub mod respond;
pub mod retrieve;
pub mod search;
pub mod text;
pub mod why;
pub mod wire;

use std::sync::OnceLock;

use catalog::{Catalog, SourceFile};
use error::{Error, Reason, Result};
use retrieve::Retriever;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_catalog.rs"));
}

/// Fingerprint of the embedded catalog and of every input of its index (see `prepared`).
pub const EMBEDDED_FINGERPRINT: &str = embedded::EMBEDDED_FINGERPRINT;

/// The catalog compiled into the binary from the repository's `catalog/` directory.
pub fn embedded_sources() -> Vec<SourceFile> {
    embedded::EMBEDDED_CATALOG
        .iter()
        .map(|(name, text)| SourceFile {
            name: format!("<embedded>/{name}"),
            text: std::borrow::Cow::Borrowed(text),
        })
        .collect()
}

/// A catalog snapshot plus its retriever (built on first use, so `inspect` never pays for
/// an index).
pub struct Engine {
    catalog: Catalog,
    retriever_name: &'static str,
    config: retrieve::Bm25Config,
    /// Learned pairs parsed at run time (`eval --param learned_pairs=FILE`), else the compiled.
    learned_pairs: Option<std::sync::Arc<text::learned::Tables>>,
    retriever: OnceLock<Box<dyn Retriever>>,
    /// For a catalog whose index holds the English bridge, the same retriever without it, which
    /// decides `weak_match` (docs/adr/0020); built on first use.
    judge: OnceLock<Option<Box<dyn Retriever>>>,
}

impl Engine {
    /// # Errors
    /// `unknown_retriever` for a name not in [`retrieve::RETRIEVERS`].
    pub fn new(catalog: Catalog, retriever_name: &str) -> Result<Engine> {
        let retriever_name = retrieve::RETRIEVERS
            .iter()
            .copied()
            .find(|n| *n == retriever_name)
            .ok_or_else(|| {
                Error::new(
                    Reason::UnknownRetriever,
                    format!(
                        "unknown retriever `{retriever_name}`; known: {}",
                        retrieve::RETRIEVERS.join(", ")
                    ),
                )
            })?;
        let config = retrieve::config_of(retriever_name).unwrap_or(retrieve::Bm25Config::DEFAULT);
        Ok(Engine {
            catalog,
            retriever_name,
            config,
            learned_pairs: None,
            retriever: OnceLock::new(),
            judge: OnceLock::new(),
        })
    }

    /// An engine whose default retriever starts from an index built earlier for this catalog
    /// (the prepared snapshot); any other retriever name builds its own.
    ///
    /// # Errors
    /// `unknown_retriever`.
    pub fn with_prepared_index(
        catalog: Catalog,
        retriever_name: &str,
        index: Option<index::Index>,
    ) -> Result<Engine> {
        let engine = Engine::new(catalog, retriever_name)?;
        if let Some(index) = index {
            if engine.retriever_name == retrieve::DEFAULT_RETRIEVER {
                let retriever: Box<dyn Retriever> = Box::new(retrieve::FieldedBm25::with_index(
                    engine.retriever_name,
                    engine.config,
                    &engine.catalog,
                    index,
                ));
                let _ = engine.retriever.set(retriever);
            }
        }
        Ok(engine)
    }

    /// An engine whose retriever configuration has `params` overridden (`eval --param`).
    ///
    /// # Errors
    /// `unknown_retriever`; `invalid_transport` for a bad parameter.
    pub fn with_params(
        catalog: Catalog,
        retriever_name: &str,
        params: &[(String, String)],
    ) -> Result<Engine> {
        let mut engine = Engine::new(catalog, retriever_name)?;
        for (key, value) in params {
            engine
                .config
                .set(key, value)
                .map_err(|message| Error::new(Reason::InvalidTransport, message))?;
        }
        Ok(engine)
    }

    /// This engine with learned pairs parsed at run time instead of the compiled ones (before
    /// its retriever is built; `eval --param learned_pairs=FILE`, docs/adr/0015).
    pub fn with_learned_pairs(mut self, tables: text::learned::Tables) -> Engine {
        self.learned_pairs = Some(std::sync::Arc::new(tables));
        self
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Returns true if and only if the retriever (and its index) exists already.
    pub fn has_retriever(&self) -> bool {
        self.retriever.get().is_some()
    }

    pub fn retriever(&self) -> &dyn Retriever {
        self.retriever
            .get_or_init(|| self.build_retriever(self.config))
            .as_ref()
    }

    /// This engine's retriever under `config` (its own, or the judge's).
    fn build_retriever(&self, config: retrieve::Bm25Config) -> Box<dyn Retriever> {
        retrieve::build_with(
            self.retriever_name,
            config,
            &self.catalog,
            self.learned_pairs.clone(),
        )
        .unwrap_or_else(|| unreachable_retriever(self.retriever_name))
    }

    /// The full answer to one `tool-search.v1` request document: the response line.
    ///
    /// # Errors
    /// Every validation reason of the contract.
    pub fn search_bytes(&self, request: &[u8], explain: bool) -> Result<String> {
        let wire_request: wire::SearchRequest = request::parse_document(request)?;
        self.search_request(&wire_request, explain)
    }

    /// Validates and answers a parsed request.
    ///
    /// # Errors
    /// Every validation reason from `unsupported_version` on.
    pub fn search_request(
        &self,
        wire_request: &wire::SearchRequest,
        explain: bool,
    ) -> Result<String> {
        let validated = request::validate_search(wire_request, &self.catalog)?;
        let outcome = search::search(&self.catalog, self, &validated);
        respond::render(&self.catalog, &outcome, explain)
    }

    /// The full answer to one `schema-inspect.v1` request document: the response line.
    ///
    /// # Errors
    /// Inspect's validation reasons, `catalog_changed`, `unknown_tool`.
    pub fn inspect_bytes(&self, request: &[u8]) -> Result<String> {
        let wire_request: wire::InspectRequest = request::parse_document(request)?;
        self.inspect_request(&wire_request)
    }

    /// # Errors
    /// As [`Engine::inspect_bytes`].
    pub fn inspect_request(&self, wire_request: &wire::InspectRequest) -> Result<String> {
        let validated = request::validate_inspect(wire_request)?;
        let response = inspect::inspect(&self.catalog, &validated)?;
        respond::encode_line(&response)
    }
}

/// The engine is itself a retriever that builds its index on the first lexical search, so an
/// exact-identity request never pays for an index.
impl Retriever for Engine {
    fn name(&self) -> &'static str {
        self.retriever_name
    }

    fn search(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<retrieve::Hit> {
        self.retriever().search(query, eligible, limit)
    }

    fn search_single(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<retrieve::Hit> {
        self.retriever().search_single(query, eligible, limit)
    }

    fn search_arm(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<retrieve::Hit> {
        self.retriever().search_arm(query, eligible, limit)
    }

    fn rank(
        &self,
        query: &str,
        eligible: &[bool],
        limit: usize,
        role: retrieve::Role,
    ) -> Vec<retrieve::Hit> {
        self.retriever().rank(query, eligible, limit, role)
    }

    fn verdict(&self, query: &str, eligible: &[bool]) -> Option<retrieve::Verdict> {
        self.judge()
            .unwrap_or(self.retriever())
            .verdict(query, eligible)
    }

    fn judge(&self) -> Option<&dyn Retriever> {
        self.judge
            .get_or_init(|| {
                let bridged =
                    index::bridges(&self.catalog, self.config.lends(), self.config.single_field);
                bridged.then(|| {
                    // The answer without the bridge, the product prior and the lent situations,
                    // as the weak flag was calibrated (pre-registrations 99, 103 and 104).
                    self.build_retriever(retrieve::Bm25Config {
                        bridge: false,
                        product_weight: 0.0,
                        avoid_situations: false,
                        ..self.config
                    })
                })
            })
            .as_deref()
    }

    fn explain(
        &self,
        query: &str,
        tools: &[crate::catalog::ToolId],
        role: retrieve::Role,
    ) -> Option<retrieve::Explanation> {
        self.retriever().explain(query, tools, role)
    }

    /// Warms the retriever's caches (building the index first if needed), then the judge's.
    fn warm(&self, stop: &std::sync::atomic::AtomicBool) {
        if !stop.load(std::sync::atomic::Ordering::Relaxed) {
            self.retriever().warm(stop);
        }
        if !stop.load(std::sync::atomic::Ordering::Relaxed) {
            if let Some(judge) = self.judge() {
                judge.warm(stop);
            }
        }
    }
}

/// `Engine::new` checked the name against the registry that `retrieve::build` matches on.
fn unreachable_retriever(name: &str) -> Box<dyn Retriever> {
    panic!("retriever `{name}` is registered but cannot be built")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A catalog whose index holds the English bridge gets a judge (docs/adr/0020), built only
    /// when a lexical answer needs its verdict: an exact-identity request never pays for its
    /// index. An English catalog, to which the bridge lends nothing, gets none.
    #[test]
    fn the_judge_is_built_only_for_a_lexical_answer_of_a_bridged_catalog() {
        // An engine over one product holding `tools` (catalog.v1 tool objects).
        let engine_of = |tools: &str| {
            Engine::new(
                catalog::one_product("p", tools),
                retrieve::DEFAULT_RETRIEVER,
            )
            .unwrap()
        };
        let request = |query: &str| format!(r#"{{"version":"tool-search.v1","query":"{query}"}}"#);
        let engine = engine_of(
            r#"{"canonical_path":"p.recall","name":"recall","title":"撤回消息","description":"撤回一条已发送的消息"},
            {"canonical_path":"p.list","name":"list","title":"列出群聊","description":"列出群"}"#,
        );
        engine
            .search_bytes(request("p.recall").as_bytes(), false)
            .unwrap();
        assert!(
            engine.judge.get().is_none(),
            "an exact request built the judge"
        );
        let answer = engine
            .search_bytes(request("unsend that message").as_bytes(), false)
            .unwrap();
        assert!(answer.contains("p.recall"), "{answer}");
        assert!(engine.judge.get().is_some_and(Option::is_some));

        // An English catalog speaks one language too, but its index holds no bridge: no judge.
        let engine = engine_of(
            r#"{"canonical_path":"p.recall","name":"recall","title":"Recall a message","description":"Take back a sent message"},
            {"canonical_path":"p.list","name":"list","title":"List chats","description":"List group chats"}"#,
        );
        let answer = engine
            .search_bytes(request("unsend that message").as_bytes(), false)
            .unwrap();
        assert!(answer.contains("p.recall"), "{answer}");
        assert!(engine.judge.get().is_some_and(Option::is_none));
    }
}
