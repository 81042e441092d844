//! `kenken generate`: unique puzzles of a given size and grade, the same for the same seed.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::args::{at_least_one, seconds};
use super::{bad_input, limit_reached};
use kenken::format::{self, Notation};
use kenken::generate::{generate, puzzle_seed, GenerateError, Generated, Options};
use kenken::logic::Level;
use kenken::puzzle::Op;
use kenken::render::{render, Style};

/// From this many puzzles on, a progress bar is drawn (on standard error, when standard output
/// is a terminal).
const PROGRESS_FROM: usize = 10;

/// The arguments of `kenken generate`.
#[derive(clap::Args)]
pub struct Args {
    /// Grid side N.
    #[arg(long)]
    size: usize,
    /// easy, normal, hard, extreme or unreasonable (Keen's scale).
    #[arg(long, default_value = "normal")]
    difficulty: Level,
    /// The operators cages may use, e.g. `+*` (one-cell cages are `=`).
    #[arg(long, default_value = "+-*/", allow_hyphen_values = true, value_parser = parse_ops)]
    ops: Ops,
    /// The most cells in a cage (default 6 up to 9x9, 5 above).
    #[arg(long)]
    max_cage: Option<usize>,
    /// Allow one-cell cages (`=`, a given value).
    #[arg(long)]
    singletons: bool,
    /// Seed of the run (default: from the clock); puzzle i uses a seed derived from it, printed
    /// with `--output json`, and `--seed THAT --count 1` makes that puzzle again.
    #[arg(long)]
    seed: Option<u64>,
    /// How many puzzles.
    #[arg(long, default_value_t = 1, value_parser = at_least_one)]
    count: usize,
    /// Output: grid, json, prolog, text or keen.
    #[arg(long, value_enum, default_value_t = Output::Grid)]
    output: Output,
    /// Wall-clock bound for the whole run, in seconds (exit 3 when reached).
    #[arg(long, default_value_t = 600.0, value_parser = seconds)]
    timeout: f64,
    /// ASCII drawing for `--output grid`.
    #[arg(long)]
    ascii: bool,
}

/// What `generate` prints for each puzzle.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Output {
    Grid,
    Json,
    Prolog,
    Text,
    Keen,
}

/// The operators of `--ops`, each once.
#[derive(Clone)]
struct Ops(Vec<Op>);

/// Argument parser of `--ops`: symbols among `+ - * /` (also `x ×  ÷ −`), each at most once.
fn parse_ops(text: &str) -> Result<Ops, String> {
    let mut ops = Vec::new();
    for ch in text.chars().filter(|c| !c.is_whitespace() && *c != ',') {
        match Op::from_symbol(&ch.to_string()) {
            Some(op) if Op::ARITHMETIC.contains(&op) => {
                if !ops.contains(&op) {
                    ops.push(op);
                }
            }
            _ => return Err(format!("'{ch}' is not one of + - * /")),
        }
    }
    if ops.is_empty() {
        return Err("give one or more of + - * /".into());
    }
    Ok(Ops(ops))
}

/// One generated puzzle in the notation asked for.
fn write_one(g: &Generated, output: Output, ascii: bool) -> Result<String> {
    let notation = match output {
        Output::Grid => {
            return Ok(format!(
                "seed {}, {}x{} {}\n{}",
                g.seed,
                g.puzzle.size,
                g.puzzle.size,
                g.grade,
                render(&g.puzzle, None, Style { ascii })
            ))
        }
        Output::Json => {
            let line = format::write(std::slice::from_ref(&g.puzzle), Notation::Json)
                .map_err(|e| bad_input(e.to_string()))?;
            let mut v: serde_json::Value = serde_json::from_str(line.trim())?;
            if let Some(obj) = v.as_object_mut() {
                obj.insert("solution".into(), serde_json::to_value(&g.solution)?);
                obj.insert("grade".into(), g.grade.name().into());
                obj.insert("seed".into(), g.seed.into());
            }
            return Ok(format!("{}\n", serde_json::to_string(&v)?));
        }
        Output::Prolog => Notation::Prolog,
        Output::Text => Notation::Text,
        Output::Keen => Notation::Keen,
    };
    format::write(std::slice::from_ref(&g.puzzle), notation).map_err(|e| bad_input(e.to_string()))
}

/// Generates `--count` puzzles and prints each as it is made; exit code 3 when the timeout
/// is reached first.
pub fn run(args: Args) -> Result<ExitCode> {
    let mut opts = Options::new(args.size, args.difficulty);
    opts.ops = args.ops.0;
    opts.singletons = args.singletons;
    if let Some(k) = args.max_cage {
        opts.max_cage = k;
    }
    opts.check().map_err(|e| bad_input(e.to_string()))?;
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        return Err(bad_input(
            "--timeout must be a positive number of seconds".into(),
        ));
    }
    let deadline = Instant::now().checked_add(Duration::from_secs_f64(args.timeout.min(1e9)));
    let run_seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let bar = (args.count >= PROGRESS_FROM && std::io::stdout().is_terminal())
        .then(|| indicatif::ProgressBar::new(args.count as u64));
    let mut out = std::io::stdout().lock();
    for i in 0..args.count {
        let seed = puzzle_seed(run_seed, i as u64);
        match generate(&opts, seed, deadline) {
            Ok(g) => {
                out.write_all(write_one(&g, args.output, args.ascii)?.as_bytes())?;
                out.flush()?;
            }
            Err(GenerateError::Timeout { .. }) => {
                if let Some(b) = &bar {
                    b.abandon();
                }
                return Err(limit_reached(format!(
                    "time limit of {}s reached after {i} of {} puzzles",
                    args.timeout, args.count
                )));
            }
            Err(e) => return Err(bad_input(e.to_string())),
        }
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(ExitCode::SUCCESS)
}
