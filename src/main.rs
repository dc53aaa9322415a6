//! The `toolsearch` binary: a thin shell over [`toolsearch::cli::run`].
use std::process::ExitCode;

fn main() -> ExitCode {
    // Our own buffer (not the locked stdin's) so `serve` can see whether requests are queued.
    let mut stdin = std::io::BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let stdout = std::io::stdout();
    let mut stdout = stdout.lock();
    let stderr = std::io::stderr();
    let mut stderr = stderr.lock();
    ExitCode::from(toolsearch::cli::run(
        std::env::args_os().collect(),
        &mut stdin,
        &mut stdout,
        &mut stderr,
    ))
}
