//! Points: what a judgement scores, test by test, counted in hundredths of a point so that the
//! shares of a group add up to the group's points exactly, and the tests to the whole. A test
//! is a group of cases (a predicate and a kind of case: `kenken/3 spec examples`,
//! `plain_kenken/3 random puzzles`, ...) or one case of it, and the form check. A group's
//! points (1 per case unless a weights file says) are shared by its cases, the hundredths that
//! do not divide evenly going one each to its first cases: 100 points over 3 cases are 33.34,
//! 33.33 and 33.33. A case that does not pass (a timeout, a case the budget did not reach)
//! earns none of its share. The form check's points go with a `plain_kenken/3` that passed a
//! case: a file without one (an empty file) earns nothing for having no FD solver in it.
//!
//! A weights file gives a group its points, and may say who sees its tests on Gradescope:
//!
//! ```text
//! # GROUP = POINTS [VISIBILITY]
//! kenken/3 spec examples = 30
//! kenken/3 random puzzles = 40 after_due_date
//! plain_kenken/3 form check = 5
//! ```

use std::fmt;

use serde::Serialize;

use super::{kind, FORM_CHECK, KINDS};
use crate::judge::{Case, Judgement, Verdict};
use crate::prolog::Predicate;

/// Points, in hundredths of a point.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Points(pub u64);

impl Points {
    /// The points as a number (`33.34`): what JSON and CSV hold.
    pub fn value(self) -> f64 {
        // (a whole number of hundredths over 100: the nearest double prints as it reads)
        self.0 as f64 / 100.0
    }
}

impl fmt::Display for Points {
    /// `100`, `33.34`, `0.5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, part) = (self.0 / 100, self.0 % 100);
        let text = match part {
            0 => whole.to_string(),
            p if p % 10 == 0 => format!("{whole}.{}", p / 10),
            p => format!("{whole}.{p:02}"),
        };
        f.pad(&text)
    }
}

impl Serialize for Points {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.value())
    }
}

/// Who sees a test's results on Gradescope.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// The student sees it at once.
    #[default]
    Visible,
    /// Never shown to the student.
    Hidden,
    /// Shown once the due date has passed.
    AfterDueDate,
    /// Shown once the grades are published.
    AfterPublished,
}

impl Visibility {
    /// Every visibility, by its name.
    pub const ALL: [Visibility; 4] = [
        Visibility::Visible,
        Visibility::Hidden,
        Visibility::AfterDueDate,
        Visibility::AfterPublished,
    ];

    /// The name Gradescope gives it: `visible`, `hidden`, `after_due_date`, `after_published`.
    pub fn name(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Hidden => "hidden",
            Visibility::AfterDueDate => "after_due_date",
            Visibility::AfterPublished => "after_published",
        }
    }

    /// The visibility named `name`.
    pub fn from_name(name: &str) -> Option<Visibility> {
        Visibility::ALL.into_iter().find(|v| v.name() == name)
    }
}

/// Every group name a weights file may give.
pub fn group_names() -> Vec<String> {
    let mut names = Vec::new();
    for p in [Predicate::Fd, Predicate::Plain] {
        for k in KINDS {
            names.push(group(p.name(), k));
        }
    }
    names.push(FORM_CHECK.to_string());
    names
}

/// A group's name: `kenken/3 spec examples`.
fn group(predicate: &str, kind: &str) -> String {
    format!("{predicate}/3 {kind}")
}

/// The group of a case of a suite (`spec`, `standard`, `puzzles`).
pub fn group_of(suite: &str, predicate: &str, case: &str) -> String {
    group(predicate, kind(suite, case))
}

/// Points (and a visibility) per group of cases, from a weights file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Weights(Vec<(String, Points, Option<Visibility>)>);

impl Weights {
    /// Reads a weights file: a `GROUP = POINTS [VISIBILITY]` line per group (see
    /// [`group_names`]; POINTS a number of 0 or more, to the hundredth; VISIBILITY one of
    /// [`Visibility::name`]), `#` comments and blank lines. Fails on an unknown group, a group
    /// given twice, points that are not such a number or an unknown visibility, naming the
    /// line.
    pub fn parse(text: &str) -> Result<Weights, String> {
        let names = group_names();
        let mut out: Vec<(String, Points, Option<Visibility>)> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = format!("line {}", i + 1);
            let (group, rest) = line
                .rsplit_once('=')
                .ok_or_else(|| format!("{at}: expected GROUP = POINTS [VISIBILITY]"))?;
            let group = group.split_whitespace().collect::<Vec<_>>().join(" ");
            if !names.contains(&group) {
                return Err(format!(
                    "{at}: unknown group \"{group}\" (groups: {})",
                    names.join(", ")
                ));
            }
            let mut words = rest.split_whitespace();
            let points = words
                .next()
                .and_then(points_of)
                .ok_or_else(|| format!("{at}: points must be a number, 0 or more"))?;
            let visibility = match words.next() {
                None => None,
                Some(v) => Some(Visibility::from_name(v).ok_or_else(|| {
                    let all: Vec<&str> = Visibility::ALL.iter().map(|v| v.name()).collect();
                    format!(
                        "{at}: unknown visibility \"{v}\" (one of {})",
                        all.join(", ")
                    )
                })?),
            };
            if let Some(extra) = words.next() {
                return Err(format!("{at}: unexpected \"{extra}\" after the points"));
            }
            if out.iter().any(|(g, _, _)| *g == group) {
                return Err(format!("{at}: group \"{group}\" given twice"));
            }
            out.push((group, points, visibility));
        }
        Ok(Weights(out))
    }

    /// The groups the file names.
    pub fn groups(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(g, _, _)| g.as_str())
    }

    /// The points of `group` with `cases` cases: as the file says, else 1 per case.
    pub fn points(&self, group: &str, cases: usize) -> Points {
        self.0
            .iter()
            .find(|(g, _, _)| g == group)
            .map_or(Points(cases as u64 * 100), |(_, p, _)| *p)
    }

    /// Who sees the tests of `group`: as the file says, else `default`.
    pub fn visibility(&self, group: &str, default: Visibility) -> Visibility {
        self.0
            .iter()
            .find(|(g, _, _)| g == group)
            .and_then(|(_, _, v)| *v)
            .unwrap_or(default)
    }
}

/// Points written as a number (`12`, `12.5`, `0.25`), rounded to the hundredth; `None` for a
/// negative number, or not a number, or one too large to count.
fn points_of(text: &str) -> Option<Points> {
    let x: f64 = text.parse().ok()?;
    (x.is_finite() && (0.0..1e12).contains(&x)).then(|| Points((x * 100.0).round() as u64))
}

/// A test per group of cases, or per case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tests {
    /// One test per predicate and kind of case (and the form check).
    PerGroup,
    /// One test per case (and the form check), sharing its group's points.
    PerCase,
}

/// One test's points.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    /// The test's name: a group (`kenken/3 spec examples`), a group and a case
    /// (`kenken/3 spec examples: spec 6x6 testcase`), or the form check.
    pub name: String,
    /// The group it is part of.
    pub group: String,
    /// The points earned.
    pub score: Points,
    /// The points it is worth.
    pub max: Points,
    /// Whether every case of it passed (the form check: it passed, and earned its points).
    pub passed: bool,
    /// Who sees it.
    pub visibility: Visibility,
    /// Its cases, as places in the cases scored (none for the form check).
    pub cases: Vec<usize>,
}

/// The cases a score is made of: a judgement's, or those a file that could not be judged
/// would have run (each failed).
#[derive(Debug, Clone, Copy)]
pub enum Scoring<'a> {
    /// A judged file.
    Judged(&'a Judgement),
    /// A file that could not be judged: the suite's cases (`suite`: `spec`, `standard` or
    /// `puzzles`), and whether the form check would have run.
    NotJudged {
        /// The cases planned.
        cases: &'a [Case],
        /// The suite's name.
        suite: &'a str,
        /// Whether `plain_kenken/3` was to be judged (and so the form check run).
        form: bool,
    },
}

impl Scoring<'_> {
    /// The suite's name.
    fn suite(&self) -> &str {
        match self {
            Scoring::Judged(j) => &j.suite,
            Scoring::NotJudged { suite, .. } => suite,
        }
    }

    /// Each case's predicate, name and whether it passed.
    fn cases(&self) -> Vec<(&str, &str, bool)> {
        match self {
            Scoring::Judged(j) => j
                .cases
                .iter()
                .map(|c| (c.predicate, c.case.as_str(), c.verdict == Verdict::Pass))
                .collect(),
            Scoring::NotJudged { cases, .. } => cases
                .iter()
                .map(|c| (c.predicate.name(), c.name.as_str(), false))
                .collect(),
        }
    }
}

/// `max` shared by `n` cases, in hundredths: each the same, the rest one each to the first.
fn shares(max: Points, n: usize) -> Vec<Points> {
    let n64 = n.max(1) as u64;
    (0..n as u64)
        .map(|i| Points(max.0 / n64 + u64::from(i < max.0 % n64)))
        .collect()
}

/// The tests of `scoring` and their points: per group or per case (`tests`), each group's
/// points as `weights` says, its visibility as `weights` says or `visibility`.
pub fn score(
    scoring: Scoring,
    weights: &Weights,
    tests: Tests,
    visibility: Visibility,
) -> Vec<Scored> {
    let cases = scoring.cases();
    let mut out = Vec::new();
    for p in [Predicate::Fd, Predicate::Plain] {
        for k in KINDS {
            let name = group(p.name(), k);
            let these: Vec<usize> = (0..cases.len())
                .filter(|&i| cases[i].0 == p.name() && kind(scoring.suite(), cases[i].1) == k)
                .collect();
            if these.is_empty() {
                continue;
            }
            let max = weights.points(&name, these.len());
            let shares = shares(max, these.len());
            let seen = weights.visibility(&name, visibility);
            let passed = |i: usize| cases[i].2;
            match tests {
                Tests::PerGroup => out.push(Scored {
                    name: name.clone(),
                    group: name.clone(),
                    score: Points(
                        these
                            .iter()
                            .zip(&shares)
                            .filter(|(&i, _)| passed(i))
                            .map(|(_, s)| s.0)
                            .sum(),
                    ),
                    max,
                    passed: these.iter().all(|&i| passed(i)),
                    visibility: seen,
                    cases: these.clone(),
                }),
                Tests::PerCase => {
                    for (&i, &share) in these.iter().zip(&shares) {
                        out.push(Scored {
                            name: format!("{name}: {}", cases[i].1),
                            group: name.clone(),
                            score: if passed(i) { share } else { Points(0) },
                            max: share,
                            passed: passed(i),
                            visibility: seen,
                            cases: vec![i],
                        });
                    }
                }
            }
        }
    }
    let form = match scoring {
        Scoring::Judged(j) => j.form.as_ref().map(|f| {
            let plain: Vec<bool> = cases
                .iter()
                .filter(|c| c.0 == Predicate::Plain.name())
                .map(|c| c.2)
                .collect();
            // (its points go with a plain_kenken/3 that works: one that passed a case)
            f.passed && (plain.is_empty() || plain.contains(&true))
        }),
        Scoring::NotJudged { form, .. } => form.then_some(false),
    };
    if let Some(passed) = form {
        let max = weights.points(FORM_CHECK, 1);
        out.push(Scored {
            name: FORM_CHECK.to_string(),
            group: FORM_CHECK.to_string(),
            score: if passed { max } else { Points(0) },
            max,
            passed,
            visibility: weights.visibility(FORM_CHECK, visibility),
            cases: Vec::new(),
        });
    }
    out
}

/// The points earned and the points possible of `tests`, added exactly.
pub fn total(tests: &[Scored]) -> (Points, Points) {
    (
        Points(tests.iter().map(|t| t.score.0).sum()),
        Points(tests.iter().map(|t| t.max.0).sum()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_the_group_exactly() {
        let s = shares(Points(10000), 3);
        assert_eq!(s, vec![Points(3334), Points(3333), Points(3333)]);
        assert_eq!(s.iter().map(|p| p.0).sum::<u64>(), 10000);
        for (max, n) in [(1, 7), (2000, 13), (5, 1), (0, 4), (12345, 100)] {
            let s = shares(Points(max), n);
            assert_eq!(s.len(), n);
            assert_eq!(s.iter().map(|p| p.0).sum::<u64>(), max, "{max} over {n}");
            assert!(s.iter().max().unwrap().0 - s.iter().min().unwrap().0 <= 1);
        }
        assert_eq!(Points(3334).to_string(), "33.34");
        assert_eq!(Points(50).to_string(), "0.5");
        assert_eq!(Points(10000).to_string(), "100");
        assert_eq!(Points(3334).value(), 33.34);
        assert_eq!(serde_json::to_string(&Points(0)).unwrap(), "0.0");
    }

    #[test]
    fn weights_files_name_known_groups_once_with_points_and_who_sees_them() {
        let w = Weights::parse(
            "# points\nkenken/3 spec examples = 30\n\n plain_kenken/3   form check=5 # five\n\
             kenken/3 random puzzles = 12.5 after_due_date\n",
        )
        .unwrap();
        assert_eq!(w.points("kenken/3 spec examples", 8), Points(3000));
        assert_eq!(w.points(FORM_CHECK, 1), Points(500));
        assert_eq!(w.points("kenken/3 edge cases", 6), Points(600));
        assert_eq!(w.points("kenken/3 random puzzles", 6), Points(1250));
        assert_eq!(
            w.visibility("kenken/3 random puzzles", Visibility::Visible),
            Visibility::AfterDueDate
        );
        assert_eq!(
            w.visibility("kenken/3 spec examples", Visibility::Hidden),
            Visibility::Hidden
        );
        assert_eq!(
            w.groups().collect::<Vec<_>>(),
            [
                "kenken/3 spec examples",
                FORM_CHECK,
                "kenken/3 random puzzles"
            ]
        );
        let e = Weights::parse("kenken/3 spec = 3").unwrap_err();
        assert!(
            e.starts_with("line 1: unknown group \"kenken/3 spec\""),
            "{e}"
        );
        let e = Weights::parse("\nkenken/3 edge cases = -1").unwrap_err();
        assert_eq!(e, "line 2: points must be a number, 0 or more");
        let e = Weights::parse("kenken/3 puzzles = 1\nkenken/3 puzzles = 2").unwrap_err();
        assert_eq!(e, "line 2: group \"kenken/3 puzzles\" given twice");
        let e = Weights::parse("kenken/3 puzzles = 1 later").unwrap_err();
        assert_eq!(
            e,
            "line 1: unknown visibility \"later\" (one of visible, hidden, after_due_date, \
             after_published)"
        );
        assert!(Weights::parse("kenken/3 puzzles = 1 hidden x").is_err());
        assert!(Weights::parse("kenken/3 puzzles").is_err());
        assert!(Weights::parse("kenken/3 puzzles = NaN").is_err());
        assert!(Weights::parse("kenken/3 puzzles = 1e300").is_err());
    }
}
