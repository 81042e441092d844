//! `judge`'s reports for a course: each file's tests and points ([`scored`]), Gradescope's
//! `results.json`, JUnit XML and the HTML page ([`write_course`]), the time budget of a
//! file's judgement ([`Budget`]), and the watchdog that writes a `results.json` by the
//! budget's end whatever the judgement is doing ([`Watchdog`]).

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{confinement_text, only_heading, Args, GradeBy, Output};
use kenken::judge::class::Row;
use kenken::judge::report::gradescope::{self, Options};
use kenken::judge::report::points::{self, Scored, Scoring, Tests, Weights};
use kenken::judge::report::{html, junit, Judged, FORM_CHECK};
use kenken::judge::{
    judgement_so_far, planned, suite_cases, CaseReport, Config, JudgeError, Judgement, Suite,
};
use kenken::prolog::Predicate;

/// The budget `--output gradescope` takes when `--budget` does not say: Gradescope's default
/// limit is 10 minutes, and a container's start and the setup take some of it.
pub(super) const GRADESCOPE_BUDGET: f64 = 540.0;

/// The time budget of a file's judgement: when it started and how long it may take in all,
/// its cases, the shrink of its failures and the report (`None`: no budget).
#[derive(Debug, Clone, Copy)]
pub(super) struct Budget {
    start: Instant,
    total: Option<Duration>,
}

impl Budget {
    /// The budget `--budget` gives (`0`: none; not given: [`GRADESCOPE_BUDGET`] with
    /// `--output gradescope`, else none), from now.
    pub(super) fn of(args: &Args) -> Budget {
        let secs = match args.budget {
            Some(b) => b,
            None if args.output == Output::Gradescope => GRADESCOPE_BUDGET,
            None => 0.0,
        };
        Budget {
            start: Instant::now(),
            total: (secs > 0.0).then(|| Duration::from_secs_f64(secs)),
        }
    }

    /// What the budget keeps for the report after the judgement and the shrink: a twentieth,
    /// from 1 to 15 s.
    fn margin(total: Duration) -> Duration {
        (total / 20).clamp(Duration::from_secs(1), Duration::from_secs(15))
    }

    /// The judgement's own budget ([`Config::budget`]): the total less the margin.
    pub(super) fn judgement(&self) -> Option<Duration> {
        self.total.map(|t| t.saturating_sub(Budget::margin(t)))
    }

    /// The time the shrink may take: `wanted`, or what is left before the margin.
    pub(super) fn shrink(&self, wanted: Duration) -> Duration {
        match self.judgement() {
            Some(j) => wanted.min(j.saturating_sub(self.start.elapsed())),
            None => wanted,
        }
    }

    /// When the watchdog writes the report, if the judgement has not: half the margin before
    /// the budget's end.
    fn watchdog_at(&self) -> Option<Instant> {
        self.total.map(|t| self.start + t - Budget::margin(t) / 2)
    }

    /// The budget in words, for a note.
    fn text(&self) -> String {
        format!(
            "the judgement's time budget of {} s ran out (--budget)",
            self.total.unwrap_or_default().as_secs_f64()
        )
    }
}

/// A test per group or per case, as `--grade-by` says.
fn tests(args: &Args) -> Tests {
    match args.grade_by {
        GradeBy::Group => Tests::PerGroup,
        GradeBy::Case => Tests::PerCase,
    }
}

/// The suite's name as judgements give it (`spec`, `standard`, `puzzles`).
fn suite_name(suite: &Suite) -> &'static str {
    match suite {
        Suite::Spec => "spec",
        Suite::Standard => "standard",
        Suite::Puzzles(_) => "puzzles",
    }
}

/// The tests of `file` and their points: its judgement's, or, when it could not be judged,
/// every test its suite would have had, each at 0.
pub(super) fn scored(
    file: &Path,
    result: &Result<Judgement, JudgeError>,
    config: &Config,
    weights: &Weights,
    args: &Args,
) -> Vec<Scored> {
    match result {
        Ok(j) => scored_judgement(j, weights, args),
        Err(_) => {
            let cases = planned(file, config);
            let scoring = Scoring::NotJudged {
                cases: &cases,
                suite: suite_name(&config.suite),
                form: config.predicates.contains(&Predicate::Plain),
            };
            points::score(scoring, weights, tests(args), args.visibility)
        }
    }
}

/// The tests of a judgement and their points.
pub(super) fn scored_judgement(j: &Judgement, weights: &Weights, args: &Args) -> Vec<Scored> {
    points::score(Scoring::Judged(j), weights, tests(args), args.visibility)
}

/// Fails when `weights` gives points to a group the suite has no case of (its points would be
/// lost for every file): the groups it names that are not the suite's, and the suite's.
pub(super) fn check_weights(weights: &Weights, config: &Config) -> Result<(), String> {
    let whole = Config {
        only: Vec::new(),
        ..config.clone()
    };
    let mut groups: Vec<String> = Vec::new();
    for c in suite_cases(&whole) {
        let g = points::group_of(suite_name(&config.suite), c.predicate.name(), &c.name);
        if !groups.contains(&g) {
            groups.push(g);
        }
    }
    if config.predicates.contains(&Predicate::Plain) {
        groups.push(FORM_CHECK.to_string());
    }
    let missing: Vec<String> = weights
        .groups()
        .filter(|g| !groups.iter().any(|s| s == g))
        .map(|g| format!("\"{g}\" ({} points)", weights.points(g, 0)))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the suite has no case of {}: its points would be lost for every file (the {} suite's \
         groups: {})",
        missing.join(", "),
        suite_name(&config.suite),
        groups.join(", ")
    ))
}

/// Writes a course report (Gradescope, JUnit or HTML) of judged files, with their rows.
pub(super) fn write_course(
    out: &mut impl Write,
    args: &Args,
    files: &[Judged],
    rows: &[Row],
    config: &Config,
) -> Result<()> {
    match args.output {
        Output::Gradescope => {
            let Some(one) = files.first() else {
                return Ok(());
            };
            let options = Options {
                visibility: args.visibility,
            };
            let results = gradescope::results(one, &options);
            writeln!(out, "{}", serde_json::to_string_pretty(&results)?)?;
        }
        Output::Junit => write!(out, "{}", junit::document(files))?,
        _ => {
            let title = format!(
                "{} {}, {} suite{}; {}",
                rows.len(),
                if rows.len() == 1 { "file" } else { "files" },
                args.suite,
                only_heading(config, None),
                confinement_text(config)
            );
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            write!(
                out,
                "{}",
                html::page(files, rows, &title, &html::utc_date(now))
            )?;
        }
    }
    Ok(())
}

/// What the watchdog and the judgement share: the cases judged so far, and whether the report
/// was written.
#[derive(Default)]
struct Shared {
    done: Vec<CaseReport>,
    written: bool,
}

/// Writes Gradescope's `results.json` by the budget's end if the judgement has not: from the
/// cases judged so far (the rest not reached, scored 0), then ends the process (its engines
/// die with it). A judgement keeps to its budget on its own; this is for what it cannot
/// bound (an engine that does not start, a machine that stalls).
#[derive(Clone)]
pub(super) struct Watchdog {
    shared: Arc<Mutex<Shared>>,
}

impl Watchdog {
    /// The watchdog of `file`'s judgement, started when there is a budget.
    pub(super) fn start(
        file: &Path,
        config: &Config,
        weights: &Weights,
        args: &Args,
        budget: Budget,
    ) -> Watchdog {
        let dog = Watchdog {
            shared: Arc::new(Mutex::new(Shared::default())),
        };
        let Some(at) = budget.watchdog_at() else {
            return dog;
        };
        let shared = dog.shared.clone();
        let (file, config, weights) = (file.to_path_buf(), config.clone(), weights.clone());
        let visibility = args.visibility;
        let by = tests(args);
        std::thread::spawn(move || {
            std::thread::sleep(at.saturating_duration_since(Instant::now()));
            let Ok(mut s) = shared.lock() else { return };
            if s.written {
                return;
            }
            let why = budget.text();
            let j = judgement_so_far(&file, &config, &s.done, budget.start.elapsed(), &why);
            let tests = points::score(Scoring::Judged(&j), &weights, by, visibility);
            let code = j.exit_code();
            let name = file.display().to_string();
            let result = Ok(j);
            let judged = Judged {
                file: &name,
                result: &result,
                counterexamples: &[],
                tests: &tests,
            };
            let results = gradescope::results(&judged, &Options { visibility });
            let mut out = std::io::stdout().lock();
            if let Ok(text) = serde_json::to_string_pretty(&results) {
                let _ = writeln!(out, "{text}");
                let _ = out.flush();
            }
            s.written = true;
            eprintln!("kenken judge: {why}: results.json written from the cases judged so far");
            std::process::exit(code);
        });
        dog
    }

    /// Keeps a case's report, for a report written before the judgement ends.
    pub(super) fn judged(&self, report: &CaseReport) {
        if let Ok(mut s) = self.shared.lock() {
            s.done.push(report.clone());
        }
    }

    /// Runs `write` unless the watchdog has written the report already (and then ends the
    /// process: this waits for it).
    pub(super) fn write(&self, write: impl FnOnce() -> Result<()>) -> Result<()> {
        let Ok(mut s) = self.shared.lock() else {
            return write();
        };
        s.written = true;
        write()
    }
}
