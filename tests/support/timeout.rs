//! Shared by the golden and hostile-input tests: wait for a spawned `toolsearch` with a
//! deadline, so a hang fails the test instead of stalling it.
use std::io::Write;
use std::process::{Child, Command, Output};
use std::sync::mpsc;
use std::time::Duration;

/// Feeds `stdin` (if any) on a thread — the binary may stop reading early, so a broken pipe
/// is fine — and waits for `child` at most `timeout`; a child that outlives it is killed.
pub fn wait_with_timeout(
    mut child: Child,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
) -> Result<Output, String> {
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let pid = child.id();
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(child.wait_with_output());
    });
    match receive.recv_timeout(timeout) {
        Ok(Ok(output)) => Ok(output),
        Ok(Err(e)) => Err(format!("wait: {e}")),
        Err(_) => {
            // Only the process this test started, by its id.
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            Err(format!("hang: no answer within {timeout:?}"))
        }
    }
}
