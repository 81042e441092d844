//! The relay of standard input: a process that copies it to a goal that reads.

use std::io::Write;

/// The environment variable that makes the `toplevel` worker a relay of standard input.
pub(super) const RELAY_VAR: &str = "KENKEN_TOPLEVEL_RELAY";

/// The relay of standard input (see [`reads_input`](super::goals::reads_input)): copies it to standard output as it
/// comes, until its end or until its parent (the top level's engine) dies (as every worker,
/// it dies with its parent: see `crate::process::lifecycle`).
pub(super) fn relay() -> std::io::Result<()> {
    use std::io::Read;
    // (from the named pipe the parent feeds, in a piped repl; or standard input)
    let from = std::env::var_os(RELAY_VAR).filter(|v| v != "1");
    let mut input: Box<dyn Read> = match from {
        Some(fifo) => Box::new(std::fs::File::open(fifo)?),
        None => Box::new(std::io::stdin().lock()),
    };
    let mut output = std::io::stdout().lock();
    let mut buf = [0u8; 4096];
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        output.write_all(&buf[..n])?;
        output.flush()?;
    }
}
