//! JSON Lines input with a per-line byte cap, shared by `serve` and `mcp`: a line over the cap
//! is reported as oversized and the rest of it is skipped without being stored, so no input
//! line can make the process hold more than the cap in memory.

use std::io::{BufRead, BufReader, ErrorKind, Read};

/// Buffered input that can tell whether the next line is already in memory, so a server can
/// hold its answers back while requests are queued and flush before it would wait for more.
pub trait Input: BufRead {
    /// Returns true if and only if a read would find bytes without touching the source.
    fn has_buffered(&self) -> bool;
}

impl<R: Read> Input for BufReader<R> {
    fn has_buffered(&self) -> bool {
        !self.buffer().is_empty()
    }
}

/// One line read by [`read_capped`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// End of input; nothing was read.
    Eof,
    /// A line within the cap, without its `\n` (and a `\r` before it).
    Fits,
    /// A line over the cap: the buffer holds its first `cap + 1` bytes; the rest was skipped.
    Oversized,
}

/// Reads the next line into `line` (cleared first).
///
/// # Errors
/// The underlying read error.
pub fn read_capped(
    input: &mut dyn BufRead,
    cap: usize,
    line: &mut Vec<u8>,
) -> std::io::Result<Line> {
    line.clear();
    let read = input.take(cap as u64 + 2).read_until(b'\n', line)?;
    if read == 0 {
        return Ok(Line::Eof);
    }
    let complete = line.last() == Some(&b'\n');
    if complete {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
    }
    if !complete && line.len() > cap {
        skip_line(input)?;
        line.truncate(cap + 1);
        return Ok(Line::Oversized);
    }
    Ok(Line::Fits)
}

/// Consumes input up to and including the next `\n` (or to the end) without storing it.
fn skip_line(input: &mut dyn BufRead) -> std::io::Result<()> {
    loop {
        let (found, used) = match input.fill_buf() {
            Ok([]) => return Ok(()),
            Ok(buf) => match buf.iter().position(|&b| b == b'\n') {
                Some(idx) => (true, idx + 1),
                None => (false, buf.len()),
            },
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        input.consume(used);
        if found {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_fit_are_cut_or_end() {
        let mut input: &[u8] = b"ab\r\n0123456789\nlast";
        let mut line = Vec::new();
        assert_eq!(read_capped(&mut input, 4, &mut line).unwrap(), Line::Fits);
        assert_eq!(line, b"ab");
        assert_eq!(
            read_capped(&mut input, 4, &mut line).unwrap(),
            Line::Oversized
        );
        assert_eq!(line, b"01234");
        assert_eq!(read_capped(&mut input, 4, &mut line).unwrap(), Line::Fits);
        assert_eq!(line, b"last");
        assert_eq!(read_capped(&mut input, 4, &mut line).unwrap(), Line::Eof);
    }
}
