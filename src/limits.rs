//! Every number of the contract, named once. Other modules refer to these, never to literals.

/// Largest accepted request document, in bytes (`request_too_large` above it).
pub const MAX_REQUEST_BYTES: usize = 65_536;
/// A query or subquery: at most this many Unicode scalars after trimming.
pub const MAX_QUERY_SCALARS: usize = 256;
/// A query or subquery: at most this many UTF-8 bytes after trimming.
pub const MAX_QUERY_BYTES: usize = 2_048;
/// At most this many subqueries (after trimming, dropping empties and de-duplicating).
pub const MAX_SUBQUERIES: usize = 8;
/// The subqueries together: at most this many UTF-8 bytes.
pub const MAX_SUBQUERIES_BYTES: usize = 2_048;
/// `limit`: default and range.
pub const DEFAULT_LIMIT: u64 = 5;
pub const MAX_LIMIT: u64 = 20;
/// `candidate_limit`: default and range.
pub const DEFAULT_CANDIDATE_LIMIT: u64 = 20;
pub const MAX_CANDIDATE_LIMIT: u64 = 100;
/// The encoded search response plus its trailing newline never exceeds this.
pub const RESPONSE_BUDGET_BYTES: usize = 8_192;
/// `title` and `agent_summary` in a `ToolReference` are cut to this many scalars.
pub const MAX_REFERENCE_TEXT_SCALARS: usize = 256;
/// Scores are compared after rounding to this precision, so float noise never decides a rank.
pub const SCORE_ROUNDING: f64 = 1e-9;
