//! Integration tests through the real `toolsearch` binary, one module per area.
mod cli_errors;
mod determinism;
mod docs;
mod inspect;
mod schemas;
mod search;
mod serve;
mod util;
