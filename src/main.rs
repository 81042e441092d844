//! The `kenken` command line. All the work is in the library and `cli`.

mod cli;

use clap::Parser;

fn main() {
    // Started as a worker process (a bounded Prolog solve or query), this serves and exits.
    kenken::worker::init();
    quiet_on_closed_stdout();
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

/// Ends the program quietly when standard output is closed under it (`kenken solve ... | head`),
/// as ripgrep does: `print!` panics on a closed pipe, and this hook turns that one panic into a
/// plain exit. Every other panic is reported as usual.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
