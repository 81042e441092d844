//! Gradescope's autograder `results.json` for one submission: a test per group of cases (a
//! predicate and a kind of case: `kenken/3 spec examples`, `plain_kenken/3 random puzzles`,
//! ...) or per case, and the form check; each with its points, `passed` or `failed`, and what
//! failed. The points of a group are shared by its cases (a case that does not pass, timeouts
//! included, earns none of its share); by default each case is worth 1 point and the form
//! check 1 point, and a weights file sets a group's points:
//!
//! ```text
//! # GROUP = POINTS
//! kenken/3 spec examples = 30
//! kenken/3 random puzzles = 40
//! plain_kenken/3 form check = 5
//! ```

use serde_json::{json, Value};

use super::{again, kind, Judged, FORM_CHECK, KINDS};
use crate::judge::Verdict;
use crate::prolog::Predicate;

/// Points per group of cases, from a weights file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Weights(Vec<(String, f64)>);

/// Every group name a weights file may give.
pub fn group_names() -> Vec<String> {
    let mut names = Vec::new();
    for p in [Predicate::Fd, Predicate::Plain] {
        for k in KINDS {
            names.push(format!("{}/3 {k}", p.name()));
        }
    }
    names.push(FORM_CHECK.to_string());
    names
}

impl Weights {
    /// Reads a weights file: a `GROUP = POINTS` line per group (see [`group_names`]), `#`
    /// comments and blank lines. Fails on an unknown group, a group given twice, or points that
    /// are not a number of 0 or more, naming the line.
    pub fn parse(text: &str) -> Result<Weights, String> {
        let names = group_names();
        let mut out: Vec<(String, f64)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = format!("line {}", i + 1);
            let (group, points) = line
                .rsplit_once('=')
                .ok_or_else(|| format!("{at}: expected GROUP = POINTS"))?;
            let group = group.split_whitespace().collect::<Vec<_>>().join(" ");
            if !names.contains(&group) {
                return Err(format!(
                    "{at}: unknown group \"{group}\" (groups: {})",
                    names.join(", ")
                ));
            }
            let points: f64 = points
                .trim()
                .parse()
                .ok()
                .filter(|p: &f64| p.is_finite() && *p >= 0.0)
                .ok_or_else(|| format!("{at}: points must be a number, 0 or more"))?;
            if out.iter().any(|(g, _)| *g == group) {
                return Err(format!("{at}: group \"{group}\" given twice"));
            }
            out.push((group, points));
        }
        Ok(Weights(out))
    }

    /// The points of `group` with `cases` cases: as the file says, else 1 per case.
    fn points(&self, group: &str, cases: usize) -> f64 {
        self.0
            .iter()
            .find(|(g, _)| g == group)
            .map_or(cases as f64, |(_, p)| *p)
    }
}

/// A test per group of cases, or per case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tests {
    /// One test per predicate and kind of case (and the form check).
    PerGroup,
    /// One test per case (and the form check), sharing its group's points.
    PerCase,
}

/// Rounds points to hundredths (so that shares add up as a person reads them).
fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The `results.json` of one submission.
pub fn results(judged: &Judged, weights: &Weights, tests: Tests) -> Value {
    let mut out_tests: Vec<Value> = Vec::new();
    let mut output = String::new();
    let execution_time;
    match judged.result {
        Err(e) => {
            execution_time = 0.0;
            output.push_str(&format!(
                "{} could not be judged: {e}\nNo test could run: every test scores 0.\n",
                judged.file
            ));
            for g in group_names() {
                let max = weights.points(&g, 0);
                if max > 0.0 {
                    out_tests.push(test(&g, 0.0, max, false, &format!("not run: {e}")));
                }
            }
        }
        Ok(j) => {
            execution_time = j.elapsed_s;
            output.push_str(&j.summary());
            output.push('\n');
            output.push_str(&again(j));
            output.push('\n');
            for n in &j.notes {
                output.push_str(&format!("note: {n}\n"));
            }
            if let Some(c) = judged.counterexample {
                output.push('\n');
                output.push_str(&c.text());
            }
            for p in [Predicate::Fd, Predicate::Plain] {
                for k in KINDS {
                    let group = format!("{}/3 {k}", p.name());
                    let cases: Vec<_> = j
                        .cases
                        .iter()
                        .filter(|c| c.predicate == p.name() && kind(&j.suite, &c.case) == k)
                        .collect();
                    if cases.is_empty() {
                        continue;
                    }
                    let max = weights.points(&group, cases.len());
                    let share = max / cases.len() as f64;
                    let line = |c: &crate::judge::CaseReport| {
                        let mut l = format!("{}: {}", c.case, c.verdict);
                        if !c.detail.is_empty() {
                            l.push_str(&format!(": {}", c.detail));
                        }
                        if let Some(k) = &c.caveat {
                            l.push_str(&format!(" ({k})"));
                        }
                        if let Some(x) = judged
                            .counterexample
                            .filter(|x| x.from_case == c.case && x.predicate == c.predicate)
                        {
                            l.push_str(&format!("\n\n{}", x.text()));
                        }
                        l
                    };
                    match tests {
                        Tests::PerGroup => {
                            let passed = cases.iter().filter(|c| c.verdict == Verdict::Pass);
                            let n = passed.count();
                            let failing: Vec<String> = cases
                                .iter()
                                .filter(|c| c.verdict != Verdict::Pass)
                                .map(|c| line(c))
                                .collect();
                            let mut text = format!("{n} of {} cases passed", cases.len());
                            if !failing.is_empty() {
                                text.push_str(":\n");
                                text.push_str(&failing.join("\n"));
                            }
                            out_tests.push(test(
                                &group,
                                round(share * n as f64),
                                round(max),
                                n == cases.len(),
                                &text,
                            ));
                        }
                        Tests::PerCase => {
                            for c in cases {
                                let pass = c.verdict == Verdict::Pass;
                                out_tests.push(test(
                                    &format!("{group}: {}", c.case),
                                    if pass { round(share) } else { 0.0 },
                                    round(share),
                                    pass,
                                    &line(c),
                                ));
                            }
                        }
                    }
                }
            }
            if let Some(form) = &j.form {
                let max = weights.points(FORM_CHECK, 1);
                let text = if form.passed {
                    "plain_kenken/3 reaches no FD solver".to_string()
                } else {
                    format!("form check failed: {}", form.detail)
                };
                out_tests.push(test(
                    FORM_CHECK,
                    if form.passed { round(max) } else { 0.0 },
                    round(max),
                    form.passed,
                    &text,
                ));
            }
        }
    }
    let score: f64 = out_tests
        .iter()
        .filter_map(|t| t["score"].as_f64())
        .sum::<f64>();
    json!({
        "score": round(score),
        "execution_time": execution_time.round() as u64,
        "output": output,
        "output_format": "text",
        "test_output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": out_tests,
    })
}

fn test(name: &str, score: f64, max_score: f64, passed: bool, output: &str) -> Value {
    json!({
        "name": name,
        "score": score,
        "max_score": max_score,
        "status": if passed { "passed" } else { "failed" },
        "output": output,
        "visibility": "visible",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_files_name_known_groups_once_with_points() {
        let w = Weights::parse(
            "# points\nkenken/3 spec examples = 30\n\n plain_kenken/3   form check=5 # five\n",
        )
        .unwrap();
        assert_eq!(w.points("kenken/3 spec examples", 8), 30.0);
        assert_eq!(w.points(FORM_CHECK, 1), 5.0);
        assert_eq!(w.points("kenken/3 edge cases", 6), 6.0);
        let e = Weights::parse("kenken/3 spec = 3").unwrap_err();
        assert!(
            e.starts_with("line 1: unknown group \"kenken/3 spec\""),
            "{e}"
        );
        let e = Weights::parse("\nkenken/3 edge cases = -1").unwrap_err();
        assert_eq!(e, "line 2: points must be a number, 0 or more");
        let e = Weights::parse("kenken/3 puzzles = 1\nkenken/3 puzzles = 2").unwrap_err();
        assert_eq!(e, "line 2: group \"kenken/3 puzzles\" given twice");
        assert!(Weights::parse("kenken/3 puzzles").is_err());
        assert!(Weights::parse("kenken/3 puzzles = NaN").is_err());
    }
}
