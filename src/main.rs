//! The `kenken` command line. All the work is in the library and `cli`.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Started as a worker process (a bounded Prolog solve or query), this serves and exits.
    kenken::worker::init();
    kenken::quiet_on_closed_stdout();
    let cli = cli::Cli::parse();
    match cli::run(cli) {
        Ok(code) => code,
        // standard output closed under us (`kenken judge ... | head`): nothing to say
        Err(e) if closed_stdout(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kenken: {e:#}");
            cli::Exit::code_of(&e)
        }
    }
}

/// Whether `e` is a write to a closed pipe.
fn closed_stdout(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::closed_stdout;

    #[test]
    fn only_a_closed_pipe_is_quiet() {
        let pipe = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        assert!(closed_stdout(
            &anyhow::Error::new(pipe).context("writing the table")
        ));
        let other = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert!(!closed_stdout(&anyhow::Error::new(other)));
        assert!(!closed_stdout(&anyhow::anyhow!("Broken pipe")));
    }
}
