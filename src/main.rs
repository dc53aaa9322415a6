//! The `toolsearch` binary: a thin shell over [`toolsearch::cli::run`].
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdin = std::io::stdin();
    let mut stdin = stdin.lock();
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
