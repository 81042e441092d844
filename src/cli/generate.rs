//! `kenken generate`: unique puzzles of a given size and grade, the same for the same seed.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{bad_input, Exit};
use kenken::format::{self, Notation};
use kenken::generate::{generate, puzzle_seed, GenerateError, Generated, Options};
use kenken::logic::Level;
use kenken::puzzle::Op;
use kenken::render::{render, Style};

/// Exit code: a limit was reached.
const EXIT_LIMIT: i32 = 3;

/// From this many puzzles on, a progress bar is drawn (on standard error, when standard output
/// is a terminal).
const PROGRESS_FROM: usize = 10;

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// Grid side N.
    #[arg(long)]
    size: usize,
    /// easy, normal, hard, extreme or unreasonable (Keen's scale).
    #[arg(long, default_value = "normal")]
    difficulty: Level,
    /// The operators cages may use, e.g. `+*` (one-cell cages are `=`).
    #[arg(long, default_value = "+-*/", allow_hyphen_values = true)]
    ops: String,
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
    #[arg(long, default_value_t = 1, value_parser = super::at_least_one)]
    count: usize,
    /// Output: grid, json, prolog, text or keen.
    #[arg(long, default_value = "grid", value_parser = ["grid", "json", "prolog", "text", "keen"])]
    output: String,
    /// Wall-clock bound for the whole run, in seconds (exit 3 when reached).
    #[arg(long, default_value_t = 600.0, value_parser = super::seconds)]
    timeout: f64,
    /// ASCII drawing for `--output grid`.
    #[arg(long)]
    ascii: bool,
}

/// Parses `--ops`: symbols among `+ - * /` (also `x ×  ÷ −`), each at most once.
fn parse_ops(text: &str) -> Result<Vec<Op>> {
    let mut ops = Vec::new();
    for ch in text.chars().filter(|c| !c.is_whitespace() && *c != ',') {
        match Op::from_symbol(&ch.to_string()) {
            Some(op) if Op::ARITHMETIC.contains(&op) => {
                if !ops.contains(&op) {
                    ops.push(op);
                }
            }
            _ => return Err(bad_input(format!("--ops: '{ch}' is not one of + - * /"))),
        }
    }
    if ops.is_empty() {
        return Err(bad_input("--ops: give one or more of + - * /".into()));
    }
    Ok(ops)
}

/// One generated puzzle in the notation asked for.
fn write_one(g: &Generated, output: &str, ascii: bool) -> Result<String> {
    let text = match output {
        "grid" => format!(
            "seed {}, {}x{} {}\n{}",
            g.seed,
            g.puzzle.size,
            g.puzzle.size,
            g.grade,
            render(&g.puzzle, None, Style { ascii })
        ),
        "json" => {
            let line = format::write(std::slice::from_ref(&g.puzzle), Notation::Json)
                .map_err(|e| bad_input(e.to_string()))?;
            let mut v: serde_json::Value = serde_json::from_str(line.trim())?;
            if let Some(obj) = v.as_object_mut() {
                obj.insert("solution".into(), serde_json::to_value(&g.solution)?);
                obj.insert("grade".into(), g.grade.name().into());
                obj.insert("seed".into(), g.seed.into());
            }
            format!("{}\n", serde_json::to_string(&v)?)
        }
        other => {
            let notation: Notation = other.parse().map_err(bad_input)?;
            format::write(std::slice::from_ref(&g.puzzle), notation)
                .map_err(|e| bad_input(e.to_string()))?
        }
    };
    Ok(text)
}

pub fn run(args: GenerateArgs) -> Result<i32> {
    let ops = parse_ops(&args.ops)?;
    let mut opts = Options::new(args.size, args.difficulty);
    opts.ops = ops;
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
                out.write_all(write_one(&g, &args.output, args.ascii)?.as_bytes())?;
                out.flush()?;
            }
            Err(GenerateError::Timeout { .. }) => {
                if let Some(b) = &bar {
                    b.abandon();
                }
                return Err(Exit {
                    code: EXIT_LIMIT,
                    message: format!(
                        "time limit of {}s reached after {i} of {} puzzles",
                        args.timeout, args.count
                    ),
                }
                .into());
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
    Ok(0)
}
