//! Every document that crosses the process boundary: serde + schemars types, nothing else.
//!
//! This is the only module that derives `Serialize`, `Deserialize` or `JsonSchema`.
//! Field order in the response structs is the wire order of the contract (serde keeps
//! declaration order). Version strings are the constants below. The JSON Schemas under
//! `schemas/` are generated from these types (`toolsearch` test `invariant_schemas_match_types`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

pub const SEARCH_VERSION: &str = "tool-search.v1";
pub const INSPECT_VERSION: &str = "schema-inspect.v1";
pub const CATALOG_VERSION: &str = "catalog.v1";
pub const QRELS_VERSION: &str = "tool-search-qrels.v1";
pub const EVAL_VERSION: &str = "tool-search-eval.v1";
pub const LINT_VERSION: &str = "catalog-lint.v1";

/// Deserializes a present field; an explicit `null` is a type error (formats.md §5.2).
fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

fn is_false(value: &bool) -> bool {
    !*value
}

// ---------------------------------------------------------------------------------------------
// tool-search.v1

/// A `tool-search.v1` request, as sent on stdin or as one `serve` line.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// Exactly `"tool-search.v1"`.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub version: Option<String>,
    /// Natural-language query or an exact identity (canonical path, CLI path, alias).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String", length(max = 2048))]
    pub query: Option<String>,
    /// Up to 8 sub-queries of a multi-step task, each searched on its own and merged round-robin.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Vec<String>")]
    pub subqueries: Option<Vec<String>>,
    /// Candidates to return, 1..=20 (0 = default 5).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "u32", range(max = 20))]
    pub limit: Option<serde_json::Number>,
    /// Hits retrieved per query before the cut, 1..=100 (0 = default 20).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "u32", range(max = 100))]
    pub candidate_limit: Option<serde_json::Number>,
    /// Only tools of these products.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Vec<String>")]
    pub product_ids: Option<Vec<String>>,
    /// Only tools with one of these effects (`read`, `write`, `destructive`).
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Vec<String>")]
    pub effects: Option<Vec<String>>,
    /// Never return these canonical paths.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "Vec<String>")]
    pub exclude_canonical: Option<Vec<String>>,
}

/// The hashes of the loaded catalog snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatalogVersion {
    pub source_hash: String,
    pub surface_hash: String,
}

/// A `tool-search.v1` response.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchResponse {
    pub version: String,
    pub catalog: CatalogVersion,
    pub query: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1))]
    pub subqueries: Vec<String>,
    /// `exact_guard`, `exact_filtered`, a retriever name, `decomposed_round_robin` or
    /// `decomposed_exact_filtered`.
    pub strategy: String,
    pub candidates: Vec<ToolReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact_filtered: Option<ExactFiltered>,
    /// No candidate survived (or an exact command was filtered out); `hint` says what to do.
    #[serde(default, skip_serializing_if = "is_false")]
    pub abstained: bool,
    /// Candidates exist, but none is a confident match: none matched a tool name or summary (a
    /// tool without a summary: its description), or, in a catalog whose tools have `use_when`,
    /// the first one shares too little with the request (docs/adr/0006). The ranking is the
    /// same either way; read every candidate before picking one.
    #[serde(default, skip_serializing_if = "is_false")]
    pub weak_match: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub truncated: bool,
}

/// A light reference to one tool: enough to choose, never enough to call (inspect first).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolReference {
    pub canonical_path: String,
    /// Omitted only for tools that have no CLI path (imported MCP/OpenAI tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_cli_path: Option<String>,
    pub product_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Confirmation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency: Option<Idempotency>,
    #[schemars(range(min = 1))]
    pub rank: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matched_fields: Vec<String>,
    pub rank_sources: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub truncated_fields: Vec<String>,
    /// Always `true`: search never authorizes a call.
    pub requires_inspect: bool,
    /// Only with `--explain`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_breakdown: Option<ScoreBreakdown>,
}

/// Why an exactly named tool was not returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExactFiltered {
    pub canonical_path: String,
    /// `excluded`, `product_mismatch`, `effect_mismatch` or `unavailable`.
    pub reason: String,
}

/// `--explain` only: the weighted BM25 contribution of each field and their sum.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScoreBreakdown {
    pub total: f64,
    pub fields: BTreeMap<String, f64>,
    /// Multiplier applied after the field sum (1 unless a ranking rule such as the
    /// destructive-intent penalty or, in a long request, the coordination factor applied).
    pub multiplier: f64,
    /// Share of the query's idf mass the tool matched (the weak-match signal).
    pub coverage: f64,
}

// ---------------------------------------------------------------------------------------------
// schema-inspect.v1

/// A `schema-inspect.v1` request.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InspectRequest {
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub version: Option<String>,
    /// Canonical path, CLI path or alias.
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub canonical_path: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub expected_source_hash: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[schemars(with = "String")]
    pub expected_surface_hash: Option<String>,
}

/// A `schema-inspect.v1` response: the full contract of one tool.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InspectResponse {
    pub version: String,
    pub catalog: CatalogVersion,
    pub tool_spec: ToolSpec,
}

/// Everything an agent needs to build a call, in catalog.v1 field names, plus `product_id`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    pub product_id: String,
    pub canonical_path: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_cli_path: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub parameters: BTreeMap<String, Parameter>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Confirmation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency: Option<Idempotency>,
    /// `available`, or why the tool cannot be executed.
    pub availability: String,
    pub use_when: Vec<String>,
    pub avoid_when: Vec<String>,
    pub examples: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// error document

/// The document written to stderr on any failure.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorDocument {
    pub error: ErrorBody,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ErrorBody {
    /// The process exit code: 3 validation, 5 internal, 6 discovery.
    pub code: u8,
    /// `validation`, `discovery` or `internal`.
    pub category: String,
    pub message: String,
    pub reason: String,
}

// ---------------------------------------------------------------------------------------------
// catalog.v1

/// A `catalog.v1` document: products and their tools.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatalogDocument {
    /// Exactly `"catalog.v1"`.
    pub version: String,
    pub products: Vec<Product>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Product {
    /// `^[A-Za-z0-9][A-Za-z0-9_-]*$`
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_summary: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub use_when: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub avoid_when: Vec<String>,
    #[serde(default)]
    pub tools: Vec<Tool>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// `<product id>.<name>`
    pub canonical_path: String,
    /// `^[A-Za-z0-9][A-Za-z0-9_.-]*$`
    pub name: String,
    /// Tokens `^[A-Za-z0-9][A-Za-z0-9_-]*$` separated by single spaces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli_path: Option<String>,
    /// Defaults to `cli_path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary_cli_path: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Keyed by CLI flag name.
    // Boxed: a map node holds eleven slots, and a 200-byte parameter inline in each made a
    // 100,000-tool catalog 150 MB larger in memory (docs/PERFORMANCE-history.md).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parameters: BTreeMap<String, Box<Parameter>>,
    /// A JSON Schema of the arguments (imported MCP / OpenAI tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk: Option<Risk>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation: Option<Confirmation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency: Option<Idempotency>,
    /// `available` (the default); anything else means not executable by an agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub availability: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub use_when: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub avoid_when: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
}

/// One CLI flag of a tool.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Vec<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// RPC / JSON property name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub property: Option<String>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    Read,
    Write,
    Destructive,
}

impl Effect {
    pub const ALL: [Effect; 3] = [Effect::Read, Effect::Write, Effect::Destructive];

    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
            Effect::Destructive => "destructive",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Risk {
    Low,
    Medium,
    High,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Confirmation {
    NotRequired,
    UserRequired,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Idempotency {
    Idempotent,
    NonIdempotent,
    Unknown,
}

// ---------------------------------------------------------------------------------------------
// tool-search-qrels.v1

/// A judged query set.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct QrelsDocument {
    /// Exactly `"tool-search-qrels.v1"`.
    pub version: String,
    pub cases: Vec<QrelsCase>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct QrelsCase {
    pub id: String,
    pub query: String,
    /// Computed from the query when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
    #[serde(default)]
    pub qrels: Vec<Judgement>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forbidden: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow: Option<Workflow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<CaseFilters>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Judgement {
    pub canonical: String,
    /// 3 = the dedicated tool, 2 = a compatible entry point, 1 = partially useful.
    pub relevance: u8,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Workflow {
    pub required: Vec<String>,
    #[serde(default)]
    pub subqueries: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct CaseFilters {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub product_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_canonical: Vec<String>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    ChineseOnly,
    MixedChineseAscii,
    English,
}

impl Language {
    pub const ALL: [Language; 3] = [
        Language::ChineseOnly,
        Language::MixedChineseAscii,
        Language::English,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Language::ChineseOnly => "chinese_only",
            Language::MixedChineseAscii => "mixed_chinese_ascii",
            Language::English => "english",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Expect {
    Answer,
    Abstain,
}

// ---------------------------------------------------------------------------------------------
// tool-search-eval.v1

/// The report of `toolsearch eval --json`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvalReport {
    pub version: String,
    pub catalog: EvalCatalog,
    pub retriever: String,
    pub overall: Metrics,
    pub slices: BTreeMap<String, Metrics>,
    pub per_case: Vec<CaseResult>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvalCatalog {
    pub source_hash: String,
    pub surface_hash: String,
    pub tools: usize,
}

/// Metric values over a set of cases (formats.md §4 definitions).
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Metrics {
    pub cases: usize,
    #[serde(rename = "recall@1")]
    pub recall_at_1: f64,
    #[serde(rename = "recall@3")]
    pub recall_at_3: f64,
    #[serde(rename = "recall@5")]
    pub recall_at_5: f64,
    #[serde(rename = "recall@10")]
    pub recall_at_10: f64,
    #[serde(rename = "mrr@10")]
    pub mrr_at_10: f64,
    #[serde(rename = "ndcg@5")]
    pub ndcg_at_5: f64,
    #[serde(rename = "ndcg@10")]
    pub ndcg_at_10: f64,
    #[serde(rename = "forbidden@1")]
    pub forbidden_at_1: f64,
    #[serde(rename = "forbidden@5")]
    pub forbidden_at_5: f64,
    pub zero_result_rate: f64,
    pub abstain_accuracy: f64,
    #[serde(rename = "workflow_complete@5")]
    pub workflow_complete_at_5: f64,
    #[serde(rename = "workflow_recall@5")]
    pub workflow_recall_at_5: f64,
    /// Cases per kind behind the ratios above.
    pub answerable_cases: usize,
    pub forbidden_cases: usize,
    pub abstain_cases: usize,
    pub workflow_cases: usize,
    /// Queries cut to the request limits before searching (overall only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated_queries: Option<usize>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseResult {
    pub id: String,
    pub language: Language,
    /// 1-based rank of the first relevant tool in the returned list, if any.
    pub rank_of_first_relevant: Option<usize>,
    pub returned: Vec<String>,
    pub strategy: String,
    /// The answer's `abstained` (see the search response).
    #[serde(default, skip_serializing_if = "is_false")]
    pub abstained: bool,
    /// The answer's `weak_match` (see the search response).
    #[serde(default, skip_serializing_if = "is_false")]
    pub weak_match: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// catalog-lint.v1

/// The report of `toolsearch catalog lint --json`: can each tool be found by its own words?
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LintReport {
    /// Exactly `"catalog-lint.v1"`.
    pub version: String,
    pub catalog: EvalCatalog,
    pub retriever: String,
    /// Candidates asked for per probe query (a tool ranked below this is "not found").
    pub limit: usize,
    /// Term-set Jaccard similarity at or above which two titles or summaries are near-duplicates.
    pub near_duplicate_threshold: f64,
    /// The figure `--fail-under` compares: the share of available tools found at rank 1 by
    /// their own `agent_summary` (`summary.by_summary.rank1`).
    pub score: f64,
    pub summary: LintSummary,
    /// Every tool, in canonical order.
    pub tools: Vec<LintTool>,
    /// Pairs of available tools (in canonical order) whose titles or summaries are
    /// near-duplicates.
    pub near_duplicates: Vec<NearDuplicate>,
}

/// Findability shares and problem counts over the whole catalog.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LintSummary {
    /// Tools probed (available tools; unavailable ones are never returned by search).
    pub tools_probed: usize,
    pub unavailable_tools: usize,
    pub by_title: Findability,
    pub by_summary: Findability,
    /// Over every use_when sentence of the probed tools.
    pub by_use_when: Findability,
    pub problems: ProblemCounts,
}

/// How often the tool was found by one kind of probe.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Findability {
    /// The denominator: probed tools (title, summary; a tool without the text counts as not
    /// found) or use_when sentences.
    pub probes: usize,
    /// Share found at rank 1.
    pub rank1: f64,
    /// Share found within the first 5.
    pub top5: f64,
    /// How many were not within `limit` (or had no text to search).
    pub not_found: usize,
}

/// How many tools (or pairs, sentences, aliases) have each problem.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProblemCounts {
    /// Tools for whose own title another tool ranks first.
    pub shadowed_title: usize,
    /// Tools for whose own agent_summary another tool ranks first.
    pub shadowed_summary: usize,
    /// use_when sentences that do not find their tool within the first 5.
    pub use_when_outside_top5: usize,
    /// Pairs of tools with near-duplicate titles.
    pub near_duplicate_titles: usize,
    /// Pairs of tools with near-duplicate agent summaries.
    pub near_duplicate_summaries: usize,
    pub missing_title: usize,
    pub missing_summary: usize,
    pub missing_use_when: usize,
    pub missing_avoid_when: usize,
    /// Tools with at least one parameter (or input_schema property) without a description.
    pub undescribed_parameters: usize,
    /// Aliases equal (in collapsed CLI form) to the tool's CLI path, primary CLI path or
    /// another of its aliases.
    pub redundant_aliases: usize,
    /// Aliases whose text, searched lexically (without the exact guard), ranks another tool first.
    pub ambiguous_aliases: usize,
}

/// One tool's findability and problems.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LintTool {
    pub canonical_path: String,
    /// Present (true) only for tools that are not available; they are not probed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub unavailable: bool,
    /// Search by the tool's own title (absent without a title or when unavailable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Probe>,
    /// Search by the tool's own agent_summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Probe>,
    /// Search by each use_when sentence, in catalog order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub use_when: Vec<Probe>,
    /// Parameter flags (or input_schema property paths) without a description.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undescribed_parameters: Vec<String>,
    /// Aliases with a problem.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<AliasFinding>,
    /// The problem codes of this tool, sorted: `shadowed_title`, `shadowed_summary`,
    /// `use_when_outside_top5`, `near_duplicate_title`, `near_duplicate_summary`,
    /// `missing_title`, `missing_summary`, `missing_use_when`, `missing_avoid_when`,
    /// `undescribed_parameters`, `redundant_alias`, `ambiguous_alias`.
    pub problems: Vec<String>,
}

/// The result of searching one text of a tool.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    /// The query searched (use_when probes only; cut to the request limits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// 1-based rank of the tool; `null` when it is not within `limit`.
    pub rank: Option<usize>,
    /// Up to 3 tools ranked above it, best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outranked_by: Vec<String>,
    /// The query was cut to the request limits (256 scalars, 2,048 bytes).
    #[serde(default, skip_serializing_if = "is_false")]
    pub truncated: bool,
    /// The reason code when the text is not a valid query (e.g. `dangerous_query_unicode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// An alias that is redundant or ambiguous.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AliasFinding {
    pub alias: String,
    /// `redundant_alias` or `ambiguous_alias`.
    pub problem: String,
    /// Lexical rank of the tool for the alias text (ambiguous aliases; absent when not within
    /// `limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lexical_rank: Option<usize>,
    /// The tool the alias text ranks first lexically (ambiguous aliases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lexical_first: Option<String>,
}

/// Two tools whose titles or summaries are near-duplicates.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NearDuplicate {
    /// `title` or `summary`.
    pub field: String,
    /// The two canonical paths, in canonical order.
    pub tools: [String; 2],
    /// Jaccard similarity of their analyzer term sets, rounded to 1e-6.
    pub similarity: f64,
}

// ---------------------------------------------------------------------------------------------
// generated JSON Schemas

/// Every published document's JSON Schema (draft 2020-12), by file name under `schemas/`.
pub fn json_schemas() -> Vec<(&'static str, serde_json::Value)> {
    fn schema<T: JsonSchema>() -> serde_json::Value {
        serde_json::to_value(schemars::schema_for!(T)).unwrap_or(serde_json::Value::Null)
    }
    vec![
        (
            "tool-search.v1.request.schema.json",
            schema::<SearchRequest>(),
        ),
        (
            "tool-search.v1.response.schema.json",
            schema::<SearchResponse>(),
        ),
        (
            "schema-inspect.v1.request.schema.json",
            schema::<InspectRequest>(),
        ),
        (
            "schema-inspect.v1.response.schema.json",
            schema::<InspectResponse>(),
        ),
        ("error.schema.json", schema::<ErrorDocument>()),
        ("catalog.v1.schema.json", schema::<CatalogDocument>()),
        (
            "tool-search-qrels.v1.schema.json",
            schema::<QrelsDocument>(),
        ),
        ("tool-search-eval.v1.schema.json", schema::<EvalReport>()),
        ("catalog-lint.v1.schema.json", schema::<LintReport>()),
    ]
}
