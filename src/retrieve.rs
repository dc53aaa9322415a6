//! Lexical retrieval behind the [`Retriever`] trait, and the registry of retrievers by name.
//!
//! The default, `fielded_bm25`, scores each tool as a weighted sum of per-field BM25 over
//! identity / summary / description / parameters (use_when is not indexed by default: see
//! docs/adr). Alternatives exist so `toolsearch eval --compare` can measure choices.
//!
//! **Invariants**
//! - A retriever never returns an ineligible tool, nor a tool with a zero score.
//! - Output is a total order: score rounded to [`SCORE_ROUNDING`] descending, then
//!   canonical path ascending (= `ToolId` ascending, as the catalog is sorted).
//! - Float sums are accumulated in a fixed order (terms sorted, fields in [`Field::ALL`]
//!   order, postings in `ToolId` order), so the same request gives the same bits.

use std::collections::{BTreeMap, HashMap};

use crate::catalog::{Catalog, ToolEntry, ToolId};
use crate::limits::SCORE_ROUNDING;
use crate::text::{Analyzer, AnalyzerConfig, HanMode};

/// The indexed fields of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    /// Canonical path, name, CLI paths, aliases, group, product id and name.
    Identity,
    /// Title, agent summary, display name.
    Summary,
    /// Description.
    Description,
    /// Parameter flags, properties, descriptions and string enums; `input_schema` likewise.
    Parameters,
    /// use_when sentences.
    UseWhen,
}

pub const N_FIELDS: usize = 5;

impl Field {
    pub const ALL: [Field; N_FIELDS] = [
        Field::Identity,
        Field::Summary,
        Field::Description,
        Field::Parameters,
        Field::UseWhen,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Field::Identity => "identity",
            Field::Summary => "summary",
            Field::Description => "description",
            Field::Parameters => "parameters",
            Field::UseWhen => "use_when",
        }
    }
}

/// A scored tool before the cut.
#[derive(Debug, Clone)]
pub struct Hit {
    pub tool: ToolId,
    /// Final score: the field sum times `multiplier`.
    pub score: f64,
    /// Weighted contribution of each field, in [`Field::ALL`] order.
    pub fields: [f64; N_FIELDS],
    pub multiplier: f64,
}

/// A lexical retriever. Its `name` is the response's `strategy`.
pub trait Retriever: Send + Sync {
    fn name(&self) -> &'static str;
    /// The best `limit` eligible tools for `query`, in the total order described above.
    fn search(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<Hit>;
}

/// The retriever used when none is named.
pub const DEFAULT_RETRIEVER: &str = "fielded_bm25";

/// Every registered retriever name.
pub const RETRIEVERS: &[&str] = &["fielded_bm25", "fielded_bm25_ngram", "bm25_single_field"];

/// Builds the named retriever over `catalog`, or `None` for an unknown name.
pub fn build(name: &str, catalog: &Catalog) -> Option<Box<dyn Retriever>> {
    let config = match name {
        "fielded_bm25" => Bm25Config::DEFAULT,
        "fielded_bm25_ngram" => Bm25Config::DWS,
        "bm25_single_field" => Bm25Config::SINGLE_FIELD,
        _ => return None,
    };
    Some(Box::new(FieldedBm25::new(
        name_static(name)?,
        config,
        catalog,
    )))
}

fn name_static(name: &str) -> Option<&'static str> {
    RETRIEVERS.iter().copied().find(|n| *n == name)
}

/// Every tuning knob of [`FieldedBm25`]; each value is justified in docs/adr.
#[derive(Debug, Clone, Copy)]
pub struct Bm25Config {
    pub analyzer: AnalyzerConfig,
    /// Weight per field in [`Field::ALL`] order; 0 = not indexed.
    pub weights: [f64; N_FIELDS],
    pub k1: f64,
    pub b: f64,
    /// Index every field's text as one field (weights[0] is its weight).
    pub single_field: bool,
}

impl Bm25Config {
    /// The default ranking (docs/adr/0003-ranking.md).
    pub const DEFAULT: Bm25Config = Bm25Config {
        analyzer: AnalyzerConfig::DEFAULT,
        weights: [8.0, 5.0, 2.0, 2.0, 0.0],
        k1: 0.9,
        b: 0.4,
        single_field: false,
    };

    /// DWS's published ranking: Han unigrams + bigrams, no stop words, no stemming.
    pub const DWS: Bm25Config = Bm25Config {
        analyzer: AnalyzerConfig {
            han: HanMode::Ngrams,
            split_identifiers: true,
            stop_words: false,
            stem_plurals: false,
        },
        weights: [8.0, 5.0, 2.0, 2.0, 0.0],
        k1: 0.9,
        b: 0.4,
        single_field: false,
    };

    /// One text blob per tool, jieba words only: the naive baseline.
    pub const SINGLE_FIELD: Bm25Config = Bm25Config {
        analyzer: AnalyzerConfig {
            han: HanMode::Words,
            split_identifiers: true,
            stop_words: false,
            stem_plurals: false,
        },
        weights: [1.0, 0.0, 0.0, 0.0, 0.0],
        k1: 1.2,
        b: 0.75,
        single_field: true,
    };
}

/// One field's inverted index.
#[derive(Debug, Default)]
struct FieldIndex {
    postings: HashMap<String, Vec<(ToolId, u32)>>,
    doc_len: Vec<u32>,
    avg_len: f64,
}

/// Weighted per-field BM25 (k1, b, idf `ln(1 + (N − df + 0.5)/(df + 0.5))`, query-term
/// weight `ln(1 + qtf)`).
pub struct FieldedBm25 {
    name: &'static str,
    config: Bm25Config,
    analyzer: Analyzer,
    fields: Vec<FieldIndex>,
    n_tools: usize,
}

impl FieldedBm25 {
    pub fn new(name: &'static str, config: Bm25Config, catalog: &Catalog) -> FieldedBm25 {
        let analyzer = Analyzer::new(config.analyzer);
        let n_tools = catalog.tools().len();
        let mut fields: Vec<FieldIndex> = (0..N_FIELDS).map(|_| FieldIndex::default()).collect();
        let mut terms = Vec::new();
        for (tool_idx, tool) in catalog.tools().iter().enumerate() {
            let texts = field_texts(tool);
            for (field_idx, index) in fields.iter_mut().enumerate() {
                terms.clear();
                if config.single_field {
                    if field_idx == 0 {
                        for text in texts.iter().flatten() {
                            analyzer.terms_into(text, &mut terms);
                        }
                    }
                } else if config.weights[field_idx] > 0.0 {
                    for text in &texts[field_idx] {
                        analyzer.terms_into(text, &mut terms);
                    }
                }
                index.doc_len.push(terms.len() as u32);
                let mut counts: BTreeMap<&str, u32> = BTreeMap::new();
                for term in &terms {
                    *counts.entry(term.as_str()).or_default() += 1;
                }
                for (term, count) in counts {
                    index
                        .postings
                        .entry(term.to_string())
                        .or_default()
                        .push((tool_idx as ToolId, count));
                }
            }
        }
        for index in &mut fields {
            let total: u64 = index.doc_len.iter().map(|&l| u64::from(l)).sum();
            index.avg_len = if n_tools == 0 {
                0.0
            } else {
                total as f64 / n_tools as f64
            };
        }
        FieldedBm25 {
            name,
            config,
            analyzer,
            fields,
            n_tools,
        }
    }
}

impl Retriever for FieldedBm25 {
    fn name(&self) -> &'static str {
        self.name
    }

    fn search(&self, query: &str, eligible: &[bool], limit: usize) -> Vec<Hit> {
        let mut query_terms: BTreeMap<String, u32> = BTreeMap::new();
        for term in self.analyzer.terms(query) {
            *query_terms.entry(term).or_default() += 1;
        }
        let mut per_tool: BTreeMap<ToolId, [f64; N_FIELDS]> = BTreeMap::new();
        let (k1, b) = (self.config.k1, self.config.b);
        let n = self.n_tools as f64;
        for (term, qtf) in &query_terms {
            let query_weight = (1.0 + f64::from(*qtf)).ln();
            for (field_idx, index) in self.fields.iter().enumerate() {
                let weight = self.config.weights[field_idx];
                if weight <= 0.0 {
                    continue;
                }
                let Some(postings) = index.postings.get(term) else {
                    continue;
                };
                let df = postings.len() as f64;
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                for &(tool, tf) in postings {
                    if !eligible.get(tool as usize).copied().unwrap_or(false) {
                        continue;
                    }
                    let tf = f64::from(tf);
                    let len_ratio = if index.avg_len > 0.0 {
                        f64::from(index.doc_len[tool as usize]) / index.avg_len
                    } else {
                        1.0
                    };
                    let tf_norm = tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len_ratio));
                    per_tool.entry(tool).or_insert([0.0; N_FIELDS])[field_idx] +=
                        weight * query_weight * idf * tf_norm;
                }
            }
        }
        let mut hits: Vec<Hit> = per_tool
            .into_iter()
            .filter_map(|(tool, fields)| {
                let sum: f64 = fields.iter().sum();
                let multiplier = 1.0;
                let score = sum * multiplier;
                (score > 0.0).then_some(Hit {
                    tool,
                    score,
                    fields,
                    multiplier,
                })
            })
            .collect();
        sort_hits(&mut hits);
        hits.truncate(limit);
        hits
    }
}

/// Sorts by score (rounded to [`SCORE_ROUNDING`]) descending, then `ToolId` ascending.
pub fn sort_hits(hits: &mut [Hit]) {
    hits.sort_by(|a, b| {
        rounded(b.score)
            .cmp(&rounded(a.score))
            .then(a.tool.cmp(&b.tool))
    });
}

fn rounded(score: f64) -> i64 {
    (score / SCORE_ROUNDING).round() as i64
}

/// The texts of each field of `tool`, in [`Field::ALL`] order.
fn field_texts(tool: &ToolEntry) -> [Vec<&str>; N_FIELDS] {
    let def = &tool.def;
    let mut identity: Vec<&str> = vec![
        def.canonical_path.as_str(),
        def.name.as_str(),
        tool.product_id.as_str(),
    ];
    identity.extend(def.cli_path.as_deref());
    if def.primary_cli_path != def.cli_path {
        identity.extend(def.primary_cli_path.as_deref());
    }
    identity.extend(def.aliases.iter().map(String::as_str));
    identity.extend(def.group.as_deref());
    identity.extend(tool.product_name.as_deref());

    let mut summary: Vec<&str> = Vec::new();
    summary.extend(def.title.as_deref());
    summary.extend(def.agent_summary.as_deref());
    summary.extend(def.display.as_deref());

    let description: Vec<&str> = def.description.as_deref().into_iter().collect();

    let mut parameters: Vec<&str> = Vec::new();
    for (flag, parameter) in &def.parameters {
        parameters.push(flag.as_str());
        parameters.extend(parameter.property.as_deref());
        parameters.extend(parameter.description.as_deref());
        if let Some(values) = &parameter.enum_values {
            parameters.extend(values.iter().filter_map(|v| v.as_str()));
        }
    }
    if let Some(schema) = &def.input_schema {
        schema_texts(schema, 0, &mut parameters);
    }

    let use_when: Vec<&str> = def.use_when.iter().map(String::as_str).collect();
    [identity, summary, description, parameters, use_when]
}

/// Property names, descriptions, titles and string enums of a JSON Schema, recursively
/// through `properties`, `items`, `additionalProperties` and the `*Of` combinators.
/// `$ref` is never followed, so a cyclic schema cannot loop.
fn schema_texts<'a>(schema: &'a serde_json::Value, depth: usize, out: &mut Vec<&'a str>) {
    const MAX_DEPTH: usize = 32;
    let Some(object) = schema.as_object() else {
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    for key in ["description", "title"] {
        if let Some(text) = object.get(key).and_then(|v| v.as_str()) {
            out.push(text);
        }
    }
    if let Some(values) = object.get("enum").and_then(|v| v.as_array()) {
        out.extend(values.iter().filter_map(|v| v.as_str()));
    }
    if let Some(properties) = object.get("properties").and_then(|v| v.as_object()) {
        for (name, property) in properties {
            out.push(name.as_str());
            schema_texts(property, depth + 1, out);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = object.get(key) {
            schema_texts(child, depth + 1, out);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(children) = object.get(key).and_then(|v| v.as_array()) {
            for child in children {
                schema_texts(child, depth + 1, out);
            }
        }
    }
}
