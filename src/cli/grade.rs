//! `kenken grade`: each puzzle's difficulty on Keen's scale, with the rules its solution needs.

use std::io::Write;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::{json, Map, Value};

use super::args::{seconds, TextOrJson};
use super::input::{puzzle_name, read_puzzles, require_valid, Input};
use super::{bad_input, exit_code, EXIT_FAILED, EXIT_LIMIT};
use kenken::logic::{grade, Grade, LogicError, Rule};

/// The arguments of `kenken grade`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: Input,
    /// Output: text, or json (one object per puzzle: index (1-based), name, grade, rules).
    #[arg(long, value_enum, default_value_t = TextOrJson::Text)]
    output: TextOrJson,
    /// Wall-clock bound per puzzle, in seconds (exit 3 when reached).
    #[arg(long, default_value_t = 60.0, value_parser = seconds)]
    timeout: f64,
}

/// Grades each puzzle; exit code 1 when one has no solution, 3 when the timeout is reached.
pub fn run(args: Args) -> Result<ExitCode> {
    let puzzles = read_puzzles(&args.input)?;
    require_valid(&puzzles)?;
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        return Err(bad_input(
            "--timeout must be a positive number of seconds".into(),
        ));
    }
    let mut code = 0;
    let mut out = std::io::stdout().lock();
    for (i, p) in puzzles.iter().enumerate() {
        let deadline = Instant::now().checked_add(Duration::from_secs_f64(args.timeout.min(1e9)));
        let (name, counts) = match grade(p, deadline) {
            Ok(g) => {
                if g.verdict == Grade::NoSolution {
                    code = code.max(EXIT_FAILED);
                }
                (g.verdict.name(), g.counts)
            }
            Err(LogicError::Timeout) => {
                code = EXIT_LIMIT;
                ("timeout", [0; 9])
            }
            Err(e) => return Err(bad_input(format!("{}: {e}", puzzle_name(p, i)))),
        };
        if args.output == TextOrJson::Json {
            let rules: Map<String, Value> = Rule::ALL
                .iter()
                .map(|r| (r.name().to_string(), counts[r.index()].into()))
                .collect();
            let mut obj = json!({"index": i + 1, "size": p.size, "grade": name, "rules": rules});
            if let (Some(n), Some(o)) = (&p.name, obj.as_object_mut()) {
                o.insert("name".into(), n.clone().into());
            }
            writeln!(out, "{obj}")?;
        } else {
            let used: Vec<String> = Rule::ALL
                .iter()
                .filter(|r| counts[r.index()] > 0)
                .map(|r| format!("{} {}", r.name(), counts[r.index()]))
                .collect();
            let detail = if used.is_empty() {
                String::new()
            } else {
                format!(" ({})", used.join(", "))
            };
            writeln!(out, "{}: {name}{detail}", puzzle_name(p, i))?;
        }
    }
    Ok(exit_code(code))
}
