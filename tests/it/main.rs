//! Integration tests through the real `toolsearch` binary, one module per area.
mod cli_errors;
mod determinism;
mod docs;
mod hostile;
mod import;
mod inspect;
mod lint;
mod mcp;
mod prepared;
mod qrels;
mod quality;
mod schemas;
mod search;
mod serve;
#[path = "../support/timeout.rs"]
mod timeout;
mod util;
mod weak;
mod why;
