//! `kenken grade`: each puzzle's difficulty on Keen's scale, with the rules its solution needs.

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde_json::{json, Map, Value};

use super::{bad_input, puzzle_name, read_puzzles, require_valid, Input};
use kenken::logic::{grade, LogicError, Rule, Verdict};

#[derive(clap::Args)]
pub struct GradeArgs {
    #[command(flatten)]
    input: Input,
    /// Output: text, or json (one object per puzzle: index (1-based), name, grade, rules).
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    output: String,
    /// Wall-clock bound per puzzle, in seconds (exit 3 when reached).
    #[arg(long, default_value_t = 60.0, value_parser = super::seconds)]
    timeout: f64,
}

pub fn run(args: GradeArgs) -> Result<i32> {
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
                if g.verdict == Verdict::NoSolution {
                    code = code.max(1);
                }
                (g.verdict.name(), g.counts)
            }
            Err(LogicError::Timeout) => {
                code = 3;
                ("timeout", [0; 9])
            }
            Err(e) => return Err(bad_input(format!("{}: {e}", puzzle_name(p, i)))),
        };
        if args.output == "json" {
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
    Ok(code)
}
