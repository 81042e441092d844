//! What a judgement runs, known without running it: a suite checked before any file is judged
//! ([`check_suite`]), the cases a file is judged on ([`planned`]: the tests a file that could
//! not be judged still lists, at 0), and a judgement as far as it went when its time is up
//! ([`judgement_so_far`]: a report written before the judgement ends). The Prolog system,
//! dialect and grid size are chosen as [`judge`](super::judge) chooses them.

use std::path::Path;
use std::time::Duration;

use super::run::{default_max_size, only, plan};
use super::suite::{self, Case};
use super::{detect, form, CaseReport, Config, Dialect, JudgeError, Judgement, Suite, System};
use crate::prolog::Predicate;
use crate::system::Gprolog;

/// How `file` is judged under `config`: its dialect (and whether it was detected), system,
/// largest grid, seed and form check, as [`judge`](super::judge) chooses them (a file that
/// cannot be read is taken as an empty one).
struct Setting {
    dialect: Dialect,
    detected: bool,
    system: System,
    max_size: usize,
    seed: Option<u64>,
    form: Option<form::FormCheck>,
}

fn setting(file: &Path, config: &Config) -> Setting {
    let bytes = super::source::read(file).unwrap_or_default();
    let (text, _) = crate::source::decode(&bytes);
    let (dialect, detected) = match config.dialect {
        Some(d) => (d, false),
        None => (detect(&text), true),
    };
    let system = match config.system {
        Some(s) => s,
        None if dialect == Dialect::Gnu && Gprolog::available() => System::Gprolog,
        None => System::Scryer,
    };
    Setting {
        dialect,
        detected,
        system,
        max_size: config.max_size.unwrap_or(default_max_size(system)),
        seed: matches!(config.suite, Suite::Standard).then(|| config.seed.unwrap_or(0)),
        form: config
            .predicates
            .contains(&Predicate::Plain)
            .then(|| form::check(&text)),
    }
}

/// The cases `file` is judged on under `config` (its suite planned for the system and grid
/// sizes it would run with, as [`Config::only`] filters it): what a file that cannot be judged
/// would have run.
pub fn planned(file: &Path, config: &Config) -> Vec<Case> {
    let s = setting(file, config);
    let cases = plan(config, s.max_size, s.seed.unwrap_or(0), &mut Vec::new());
    match only(cases.clone(), config, s.max_size) {
        Ok((kept, _)) => kept,
        Err(_) => cases,
    }
}

/// Every case of the suite, planned up to [`Config::max_size`] or the largest grid a system
/// runs by default (9x9), before [`Config::only`]: the groups a weights file may give points.
pub fn suite_cases(config: &Config) -> Vec<Case> {
    let max_size = config.max_size.unwrap_or(default_max_size(System::Gprolog));
    plan(config, max_size, config.seed.unwrap_or(0), &mut Vec::new())
}

/// Checks a suite before any file is judged: each puzzle of a puzzle file is one the judge
/// can run (valid, and with at most 1000 answers, all listed by the native solver), and the
/// suite has a case to run. Fails naming the puzzle (its place, name and line) and why.
pub fn check_suite(config: &Config) -> Result<(), JudgeError> {
    if let Suite::Puzzles(entries) = &config.suite {
        for (i, e) in entries.iter().enumerate() {
            let name = e
                .puzzle
                .name
                .as_ref()
                .map_or_else(String::new, |n| format!(" \"{n}\""));
            let at = format!("puzzle {}{name} (line {})", i + 1, e.line);
            if let Err(why) = e.puzzle.check() {
                return Err(JudgeError::Failed(format!(
                    "{at} is not a valid puzzle: {why}"
                )));
            }
            if suite::expected(&e.puzzle).is_none() {
                return Err(JudgeError::Failed(format!(
                    "{at} has more than {} answers: the judge compares every answer, so a \
                     case may have at most {}",
                    suite::MAX_EXPECTED,
                    suite::MAX_EXPECTED
                )));
            }
        }
    }
    if suite_cases(config).is_empty() {
        return Err(JudgeError::Failed(
            "the suite has no case to run (its puzzles are all larger than --max-size, or \
             there are none)"
                .into(),
        ));
    }
    Ok(())
}

/// `file`'s judgement as far as it went after `elapsed`: the cases reported (`done`), and
/// every other case of its plan not reached, its time being up (`why`). For a report that must
/// be written before the judgement ends.
pub fn judgement_so_far(
    file: &Path,
    config: &Config,
    done: &[CaseReport],
    elapsed: Duration,
    why: &str,
) -> Judgement {
    let s = setting(file, config);
    let cases = planned(file, config)
        .iter()
        .map(|c| {
            done.iter()
                .find(|r| r.case == c.name && r.predicate == c.predicate.name())
                .cloned()
                .unwrap_or_else(|| CaseReport::skipped(c, format!("not reached: {why}")))
        })
        .collect();
    Judgement {
        file: super::path_text(file),
        system: s.system,
        dialect: s.dialect,
        dialect_detected: s.detected,
        max_size: s.max_size,
        suite: match &config.suite {
            Suite::Spec => "spec".into(),
            Suite::Standard => "standard".into(),
            Suite::Puzzles(_) => "puzzles".into(),
        },
        seed: s.seed,
        warnings: String::new(),
        cases,
        form: s.form,
        notes: vec![format!("the judgement did not end in time: {why}")],
        elapsed_s: elapsed.as_secs_f64(),
        order: config.order,
        rerun: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Entry;
    use crate::puzzle::{Cage, Cell, Op, Puzzle};

    fn puzzles(ps: Vec<Puzzle>) -> Config {
        Config {
            suite: Suite::Puzzles(ps.into_iter().map(|p| Entry::new(p, 3)).collect()),
            ..Config::default()
        }
    }

    #[test]
    fn a_suite_of_puzzles_the_judge_cannot_run_is_refused_before_judging() {
        let ok = Puzzle::new(
            2,
            vec![Cage::new(
                Op::Add,
                3,
                vec![Cell::new(1, 1), Cell::new(1, 2)],
            )],
        );
        assert!(check_suite(&puzzles(vec![ok.clone()])).is_ok());
        // a cage outside the grid: not valid
        let bad = Puzzle::new(
            2,
            vec![Cage::new(
                Op::Add,
                3,
                vec![Cell::new(1, 1), Cell::new(3, 2)],
            )],
        );
        let e = check_suite(&puzzles(vec![ok.clone(), bad]))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("puzzle 2 (line 3) is not a valid puzzle: "),
            "{e}"
        );
        // 5x5 with no cage: 161280 answers
        let e = check_suite(&puzzles(vec![Puzzle::new(5, Vec::new())]))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("puzzle 1 (line 3) has more than 1000 answers"),
            "{e}"
        );
        // none left to run
        let big = Config {
            max_size: Some(1),
            ..puzzles(vec![ok])
        };
        assert!(check_suite(&big)
            .unwrap_err()
            .to_string()
            .starts_with("the suite has no case to run"));
        assert!(check_suite(&Config::default()).is_ok());
    }

    #[test]
    fn a_judgement_so_far_has_every_planned_case_the_rest_not_reached() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("k.pl");
        std::fs::write(&file, "kenken(_, _, _).\n").unwrap();
        let config = Config {
            suite: Suite::Spec,
            system: Some(System::Scryer),
            ..Config::default()
        };
        let plan = planned(&file, &config);
        assert_eq!(plan.len(), 15, "8 kenken/3 cases, 7 plain_kenken/3");
        let first = CaseReport::skipped(&plan[0], "done".into());
        let j = judgement_so_far(&file, &config, &[first], Duration::from_secs(9), "time up");
        assert_eq!(j.cases.len(), plan.len());
        assert_eq!(j.cases[0].detail, "done");
        assert!(j.cases[1..]
            .iter()
            .all(|c| c.detail == "not reached: time up"));
        // (the form check reads the text: plain_kenken/3 is not defined)
        assert!(j.form_failed());
        assert_eq!(j.system, System::Scryer);
    }
}
