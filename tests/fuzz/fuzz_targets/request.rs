//! Raw request bytes through every entry point that takes them: `search_bytes` (with and
//! without explain), `inspect_bytes`, and one `serve` line. No panic, no hang, and every
//! answer obeys the output contract.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use toolsearch::error::Reason;

fuzz_target!(|data: &[u8]| {
    let engine = common::engine();
    let plain = engine.search_bytes(data, false);
    common::check_search(&plain);
    let explained = engine.search_bytes(data, true);
    common::check_search(&explained);
    // Explain only adds fields: it fails exactly when the plain answer fails, except that
    // the larger answer may be refused by the budget.
    match (&plain, &explained) {
        (Err(a), Err(b)) => assert_eq!(a.reason, b.reason),
        (Err(a), Ok(_)) => panic!("refused without explain ({a}) but answered with it"),
        (Ok(_), Err(b)) => assert_eq!(b.reason, Reason::RequestTooLarge, "{b}"),
        (Ok(_), Ok(_)) => {}
    }
    let inspected = engine.inspect_bytes(data);
    common::check_inspect(&inspected);
    let served = toolsearch::cli::serve_line(engine, data);
    common::check_line(&served);
    // A serve line answers exactly like the single-shot command its version selects.
    let is_inspect = serde_json::from_slice::<serde_json::Value>(data)
        .ok()
        .and_then(|v| {
            v.get("version")
                .and_then(|v| v.as_str())
                .map(str::to_string)
        })
        .is_some_and(|v| v == "schema-inspect.v1");
    let single = if is_inspect { &inspected } else { &plain };
    let single = match single {
        Ok(line) => line.clone(),
        Err(error) => toolsearch::cli::error_line(error),
    };
    assert_eq!(served, single, "serve differs from single-shot");
    // Same bytes, same answer.
    assert_eq!(engine.search_bytes(data, false), plain);
});
