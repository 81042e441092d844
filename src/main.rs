//! The `kenken` command line. All the work is in the library and `cli`.

mod cli;

use clap::Parser;

fn main() {
    // Started as a worker process (a bounded Prolog solve or query), this serves and exits.
    kenken::worker::init();
    kenken::quiet_on_closed_stdout();
    let cli = cli::Cli::parse();
    let code = match cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("kenken: {e:#}");
            e.downcast_ref::<cli::Exit>()
                .map_or(cli::EXIT_BAD_INPUT, |x| x.code)
        }
    };
    std::process::exit(code);
}
