//! Gradescope's autograder `results.json` for one submission: a test per group of cases (a
//! predicate and a kind of case: `kenken/3 spec examples`, `plain_kenken/3 random puzzles`,
//! ...) or per case, and the form check; each with its points ([`super::points`]: shares that
//! add up exactly), `passed` or `failed`, what failed and its visibility. The top-level
//! `output` says which judge and Prolog system graded it, the score, every way the file failed
//! and each way's smallest failing puzzle. A file that could not be judged gets every test the
//! suite has, each at 0.

pub use super::points::{group_names, Tests, Visibility, Weights};

use serde_json::{json, Value};

use super::points::{total, Scored};
use super::{again, system_text, Judged};
use crate::judge::CaseReport;

/// What a `results.json` says besides the judgement: who sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// The visibility of the results as a whole (Gradescope's top-level `visibility`).
    pub visibility: Visibility,
}

/// The `results.json` of one submission whose tests are scored (its [`Judged::tests`]).
pub fn results(judged: &Judged, options: &Options) -> Value {
    let mut output = format!("{}\n", super::judge_version());
    let execution_time;
    match judged.result {
        Err(e) => {
            execution_time = 0.0;
            output.push_str(&format!(
                "{} could not be judged: {e}\nNo test could run: every test scores 0.\n",
                judged.file
            ));
        }
        Ok(j) => {
            execution_time = j.elapsed_s;
            output.push_str(&format!(
                "Prolog system: {}; {} dialect; answers in {} order\n",
                system_text(j.system),
                j.dialect.name(),
                match j.order {
                    crate::judge::Order::Any => "any",
                    crate::judge::Order::Strict => "the spec's",
                }
            ));
            output.push_str(&j.summary());
            output.push('\n');
        }
    }
    let (score, max) = total(judged.tests);
    output.push_str(&format!("score: {score} of {max}\n"));
    if let Ok(j) = judged.result {
        let failures = j.failure_lines();
        if !failures.is_empty() {
            output.push_str("what failed, the most serious first:\n");
            for f in &failures {
                output.push_str(&format!("- {f}\n"));
            }
        }
        output.push_str(&again(j));
        output.push('\n');
        for n in &j.notes {
            output.push_str(&format!("note: {n}\n"));
        }
        for c in judged.counterexamples {
            output.push('\n');
            output.push_str(&c.text());
        }
    }
    let tests: Vec<Value> = judged.tests.iter().map(|t| test(judged, t)).collect();
    json!({
        "score": score.value(),
        "execution_time": execution_time.round() as u64,
        "output": output,
        "output_format": "text",
        "test_output_format": "text",
        "visibility": options.visibility.name(),
        "stdout_visibility": "hidden",
        "tests": tests,
    })
}

/// A test of `results.json`: its points, status, what failed (each case that did not pass,
/// with the smallest failing puzzle shrunk from it) and visibility.
fn test(judged: &Judged, t: &Scored) -> Value {
    let cases: Vec<&CaseReport> = match judged.result {
        Ok(j) => t.cases.iter().filter_map(|&i| j.cases.get(i)).collect(),
        Err(_) => Vec::new(),
    };
    let text = match judged.result {
        Err(e) => format!("not run: {e}"),
        Ok(j) if t.cases.is_empty() => match &j.form {
            Some(f) if !f.passed => format!("form check failed: {}", f.detail),
            Some(_) if !t.passed => "plain_kenken/3 reaches no FD solver, but passed no case: \
                                     the form check's points go with a plain_kenken/3 that \
                                     works"
                .to_string(),
            _ => "plain_kenken/3 reaches no FD solver".to_string(),
        },
        Ok(_) => {
            let failing: Vec<String> = cases
                .iter()
                .filter(|c| c.verdict != crate::judge::Verdict::Pass)
                .map(|c| line(judged, c))
                .collect();
            let mut text = if cases.len() == 1 {
                line(judged, cases[0])
            } else {
                let passed = cases.len() - failing.len();
                format!("{passed} of {} cases passed", cases.len())
            };
            if cases.len() > 1 && !failing.is_empty() {
                text.push_str(":\n");
                text.push_str(&failing.join("\n"));
            }
            text
        }
    };
    json!({
        "name": t.name,
        "score": t.score.value(),
        "max_score": t.max.value(),
        "status": if t.passed { "passed" } else { "failed" },
        "output": text,
        "visibility": t.visibility.name(),
    })
}

/// A case's line: its name, verdict and why, and the smallest failing puzzles shrunk from it.
fn line(judged: &Judged, c: &CaseReport) -> String {
    let mut l = format!("{}: {}", c.case, c.verdict);
    if !c.detail.is_empty() {
        l.push_str(&format!(": {}", c.detail));
    }
    if let Some(k) = &c.caveat {
        l.push_str(&format!(" ({k})"));
    }
    for x in judged
        .counterexamples
        .iter()
        .filter(|x| x.from_case == c.case && x.predicate == c.predicate)
    {
        l.push_str(&format!("\n\n{}", x.text()));
    }
    l
}
