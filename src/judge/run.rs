//! The `judge()` driver: loads a file in its backends, plans its cases and runs them.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::error::cut_error;
use super::system::{Open, SystemBackend};
use super::{
    cut, detect, form, fresh_seed, jail, path_text, suite, verdict, Case, CaseReport, Config,
    Dialect, Jail, JudgeError, Judgement, Run, Suite, System, Verdict,
};
use crate::error::Context;
use crate::process::Limits;
use crate::prolog::Predicate;
use crate::system::{Gprolog, PrologSystem, ScryerWorker, Swipl};

/// A case with more expected answers than this does not make its predicate's larger cases
/// skipped when it times out.
const SKIP_AFTER_ANSWERS: usize = 100;

/// The largest grid whose timeout is a failure ([`Verdict::Hang`]): up to 3x3 there are at
/// most 12 answers, which any correct solver gives at once.
pub(crate) const HANG_MAX_SIZE: usize = 3;

/// A file that loaded: what it printed to `user_error` meanwhile (warnings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Loaded {
    /// The loader's and the file's warnings.
    pub warnings: String,
}

/// Runs a judged file's cases: one engine, loaded once (and again after a kill).
pub(crate) trait Backend: Send {
    /// Loads the file; fails with its syntax errors or why it does not load.
    fn load(&mut self, timeout: Duration) -> Result<Loaded, JudgeError>;
    /// Runs one case, asking for at most `max` answers, within `timeout`.
    fn run(&mut self, case: &Case, max: usize, timeout: Duration) -> Run;
}

/// Judges `file` as `config` says, calling `on_case` as each case is judged (in the order they
/// finish). Fails when the file cannot be loaded (syntax errors name file and line).
pub fn judge(
    file: &Path,
    config: &Config,
    on_case: impl FnMut(&CaseReport) + Send,
) -> Result<Judgement, JudgeError> {
    judge_among(file, &[], config, on_case)
}

/// [`judge`] for a file among `others` (the other files of its class): confined, its code reads
/// none of them, whatever [`Config::read`] says.
pub fn judge_among(
    file: &Path,
    others: &[PathBuf],
    config: &Config,
    on_case: impl FnMut(&CaseReport) + Send,
) -> Result<Judgement, JudgeError> {
    judge_file(file, others, config, on_case, &|_| false).map_err(cut_error)
}

/// [`judge`] that stops once a case's report makes `stop` true: the cases not started by then
/// are not run (their reports say "not run"). The smallest failing puzzle's search runs its
/// candidates so, in order, up to the first that fails the same way.
pub(crate) fn judge_until(
    file: &Path,
    config: &Config,
    stop: &Stop,
) -> Result<Judgement, JudgeError> {
    judge_file(file, &[], config, |_| {}, stop).map_err(cut_error)
}

/// Whether a case's report ends a run ([`judge_until`]).
pub(crate) type Stop<'a> = dyn Fn(&CaseReport) -> bool + Sync + 'a;

fn judge_file(
    file: &Path,
    others: &[PathBuf],
    config: &Config,
    mut on_case: impl FnMut(&CaseReport) + Send,
    stop: &Stop,
) -> Result<Judgement, JudgeError> {
    let start = Instant::now();
    // (bounded: a regular file of at most MAX_SOURCE bytes, whatever the path is)
    let text = super::source::read(file)?;
    let (dialect, dialect_detected) = match config.dialect {
        Some(d) => (d, false),
        None => (detect(&String::from_utf8_lossy(&text)), true),
    };
    let form = config
        .predicates
        .contains(&Predicate::Plain)
        .then(|| form::check(&String::from_utf8_lossy(&text)));
    drop(text);
    let system = match config.system {
        Some(System::Gprolog) if !Gprolog::available() => return Err(JudgeError::NoGprolog),
        Some(System::Swipl) if !Swipl::available() => return Err(JudgeError::NoSwipl),
        Some(s) => s,
        None if dialect == Dialect::Gnu && Gprolog::available() => System::Gprolog,
        None => System::Scryer,
    };
    // (links resolved: confinement grants the folder the file really is in)
    let absolute = std::fs::canonicalize(file).with_context(|| path_text(file))?;
    // (a name that is no Prolog atom is loaded through a link that is one)
    let (loaded_path, _link) = super::source::nameable(&absolute)?;
    let name = path_text(file);
    let max_size = config.max_size.unwrap_or(default_max_size(system));
    let mut notes = Vec::new();
    let seed =
        matches!(config.suite, Suite::Standard).then(|| config.seed.unwrap_or_else(fresh_seed));
    let cases = plan(config, max_size, seed.unwrap_or(0), &mut notes);
    let (cases, left_out) = only(cases, config, max_size)?;
    if !config.only.is_empty() {
        notes.push(format!(
            "--only {}: {left_out} of {} cases left out",
            only_text(&config.only),
            cases.len() + left_out
        ));
    }
    // Each engine process (one per case) gets CPU seconds beyond any case's wall clock: the
    // wall clock bounds every case, this what it does not see. The same in every run (a
    // judged file can read its limits: under swipl, library(rlimit)), so that nothing tells a
    // case of the suite from a try of the smallest failing puzzle's search.
    let cpu_seconds = Limits::default()
        .cpu_seconds
        .max(config.timeout.as_secs().saturating_add(60));
    // what judged code may never read: the judge itself and the class's other files
    let mut hidden = jail::own_programs();
    hidden.extend(
        others
            .iter()
            .filter_map(|o| std::fs::canonicalize(o).ok())
            .filter(|o| *o != absolute),
    );
    let jail = match config.confine {
        true => Some(Jail {
            hidden,
            limits: Limits {
                memory: config.memory,
                scratch: config.scratch,
                cpu_seconds,
                ..Limits::default()
            },
            // (not confined, everything is readable)
            also_read: config
                .read
                .iter()
                .map(|p| {
                    std::fs::canonicalize(p)
                        .with_context(|| format!("{}: cannot be read (--read)", path_text(p)))
                })
                .collect::<Result<_, _>>()?,
        }),
        false => None,
    };
    if system == System::Swipl && dialect == Dialect::Gnu {
        notes.push(
            "the file looks written for GNU Prolog: SWI-Prolog runs it as it is, but has none \
             of GNU Prolog's FD built-ins (fd_domain/3 and the rest raise existence errors); \
             judge it with --prolog gprolog, or --prolog scryer (which has a GNU layer)"
                .into(),
        );
    }
    if let Some(j) = &jail {
        if jail::narrow(&j.also_read, &j.hidden) != j.also_read {
            notes.push(
                "--read: judged code reads neither the judge's own program nor another file of \
                 the class; those were taken out of what it may read"
                    .into(),
            );
        }
    }
    let open_system = open_system(system, jail.as_ref());
    let first = match config.predicates.first() {
        Some(&Predicate::Plain) => Predicate::Plain,
        _ => Predicate::Fd,
    };
    let open = || -> Result<Box<dyn Backend>, JudgeError> {
        Ok(Box::new(SystemBackend::new(
            open_system.clone(),
            (&loaded_path, &name),
            dialect,
            jail.clone(),
            first,
        )))
    };
    // (the first engine loads the file: its warnings, or why it cannot be loaded)
    let mut first = open()?;
    let loaded = first
        .load(config.timeout)
        .map_err(|e| read_hint(e, config.confine))
        .map_err(|e| match (system, dialect) {
            (System::Swipl, Dialect::Gnu) => gnu_hint(e),
            _ => e,
        })?;
    let mut backends = vec![first];
    for _ in 1..config.jobs.clamp(1, cases.len().max(1)) {
        backends.push(open()?);
    }
    let mut reports = run_cases(&cases, backends, config.timeout, &mut on_case, stop);
    if let Some(caveat) = super::system::plain_caveat(system, config.confine) {
        let mut marked = false;
        for r in reports
            .iter_mut()
            .filter(|r| r.predicate == Predicate::Plain.name() && r.verdict != Verdict::Skipped)
        {
            r.caveat = Some(caveat.clone());
            marked = true;
        }
        if marked {
            notes.push(format!("* every plain_kenken/3 case marked so: {caveat}"));
        }
    }
    let skipped = reports
        .iter()
        .filter(|r| r.verdict == Verdict::Skipped)
        .count();
    if skipped > 0 {
        notes.push(format!(
            "{skipped} cases skipped: their predicate timed out on a smaller grid"
        ));
    }
    Ok(Judgement {
        file: path_text(file),
        system,
        dialect,
        dialect_detected,
        max_size,
        suite: match &config.suite {
            Suite::Spec => "spec".into(),
            Suite::Standard => "standard".into(),
            Suite::Puzzles(_) => "puzzles".into(),
        },
        seed,
        warnings: cut(&loaded.warnings),
        cases: reports,
        form,
        notes,
        elapsed_s: start.elapsed().as_secs_f64(),
        rerun: None,
    })
}

/// The largest grid run under `system` when [`Config::max_size`] does not say.
fn default_max_size(system: System) -> usize {
    match system {
        System::Scryer | System::Swipl => 7,
        System::Gprolog => 9,
    }
}

/// Fails when [`Config::only`] leaves no case of the suite, planned up to
/// [`Config::max_size`] (or the largest default of the system, 9 when it is not chosen), with
/// [`JudgeError::NoCaseNamed`]: a usage error to catch before any file is judged.
pub fn check_only(config: &Config) -> Result<(), JudgeError> {
    if config.only.is_empty() {
        return Ok(());
    }
    let max_size = config.max_size.unwrap_or(match config.system {
        Some(s) => default_max_size(s),
        None => default_max_size(System::Gprolog),
    });
    let cases = plan(config, max_size, config.seed.unwrap_or(0), &mut Vec::new());
    only(cases, config, max_size).map(|_| ())
}

/// How many cases of the suite [`Config::only`] left out of `judgement` (judged with
/// `config`): the suite is planned again as it was, unfiltered.
pub fn left_out(config: &Config, judgement: &Judgement) -> usize {
    if config.only.is_empty() {
        return 0;
    }
    let planned = plan(
        config,
        judgement.max_size,
        judgement.seed.unwrap_or(0),
        &mut Vec::new(),
    );
    planned.len().saturating_sub(judgement.cases.len())
}

/// The texts of [`Config::only`], quoted, for a report: `"random" or "N = 0"`.
pub fn only_text(only: &[String]) -> String {
    only.iter()
        .map(|t| format!("{t:?}"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// How many case names [`JudgeError::NoCaseNamed`] shows.
const NAMES_SHOWN: usize = 8;

/// The cases named as [`Config::only`] says (every one when it is empty), and how many were
/// left out; fails when none is left, with a few of the suite's case names.
fn only(
    cases: Vec<Case>,
    config: &Config,
    max_size: usize,
) -> Result<(Vec<Case>, usize), JudgeError> {
    if config.only.is_empty() {
        return Ok((cases, 0));
    }
    let planned = cases.len();
    let mut names: Vec<String> = Vec::new();
    for c in &cases {
        if !names.contains(&c.name) {
            names.push(c.name.clone());
        }
    }
    let kept: Vec<Case> = cases
        .into_iter()
        .filter(|c| config.only.iter().any(|t| c.name.contains(t.as_str())))
        .collect();
    if kept.is_empty() {
        // (a few names from all over the suite: the spec's, the edge cases, the random ones)
        let step = names.len().div_ceil(NAMES_SHOWN).max(1);
        return Err(JudgeError::NoCaseNamed {
            only: config.only.clone(),
            suite: match &config.suite {
                Suite::Spec => "spec suite".into(),
                Suite::Standard => format!("standard suite up to {max_size}x{max_size}"),
                Suite::Puzzles(_) => format!("suite's puzzles up to {max_size}x{max_size}"),
            },
            count: names.len(),
            names: names.into_iter().step_by(step).collect(),
        });
    }
    let left_out = planned - kept.len();
    Ok((kept, left_out))
}

/// How to open `system` on the seam, set up as `jail` says (its limits, what it may read
/// besides the judged file, unconfined without one).
fn open_system(system: System, jail: Option<&Jail>) -> Arc<Open> {
    let setup = Jail::child_setup(jail);
    match system {
        System::Scryer if setup.confined => Arc::new(move || {
            Ok(Box::new(ScryerWorker::confined(setup.clone())?) as Box<dyn PrologSystem>)
        }),
        System::Scryer => Arc::new(|| Ok(Box::new(ScryerWorker::new()) as Box<dyn PrologSystem>)),
        System::Gprolog => {
            Arc::new(move || Ok(Box::new(Gprolog::new(setup.clone())?) as Box<dyn PrologSystem>))
        }
        System::Swipl => {
            Arc::new(move || Ok(Box::new(Swipl::new(setup.clone())?) as Box<dyn PrologSystem>))
        }
    }
}

/// A load that failed on a file it could not open, confined, says how to let it read more:
/// confined, a judged file reads only itself, and a helper file it loads is refused (GNU
/// Prolog's compiler says such a file "does not exist").
fn read_hint(e: JudgeError, confined: bool) -> JudgeError {
    match e {
        JudgeError::Load { file, why }
            if confined
                && [
                    "cannot open",
                    "does not exist",
                    "existence_error",
                    "permission_error",
                ]
                .iter()
                .any(|w| why.contains(w)) =>
        {
            JudgeError::Load {
                file,
                why: format!(
                    "{why} (a judged file may read only itself: --read PATH lets it read \
                     a file it loads)"
                ),
            }
        }
        e => e,
    }
}

/// A load under SWI-Prolog that failed on a file written for GNU Prolog says so: such a file
/// uses GNU's FD operators (`#=`), which SWI reads as syntax errors without `library(clpfd)`.
fn gnu_hint(e: JudgeError) -> JudgeError {
    let why = match &e {
        JudgeError::Syntax { .. } => e.to_string(),
        JudgeError::Load { why, .. } => why.clone(),
        _ => return e,
    };
    let file = match e {
        JudgeError::Syntax { file, .. } | JudgeError::Load { file, .. } => file,
        _ => String::new(),
    };
    JudgeError::Load {
        file,
        why: format!(
            "it looks written for GNU Prolog, whose FD operators and built-ins (fd_domain/3 and \
             the rest) SWI-Prolog does not have: judge it with --prolog gprolog, or --prolog \
             scryer (which has a GNU layer). SWI-Prolog said: {why}"
        ),
    }
}

/// The cases to judge: the suite's puzzles up to `max_size` (the standard suite's random ones
/// made from `seed`), each with the predicates that are run on it, and a note for each kind of
/// puzzle or predicate left out.
fn plan(config: &Config, max_size: usize, seed: u64, notes: &mut Vec<String>) -> Vec<Case> {
    let items = match &config.suite {
        Suite::Spec => suite::spec_items(),
        Suite::Standard => {
            let mut items = suite::spec_items();
            items.extend(suite::edge_items());
            items.extend(suite::random_items(max_size, seed));
            items
        }
        Suite::Puzzles(entries) => entries
            .iter()
            .enumerate()
            .map(|(i, e)| suite::Item {
                name: e
                    .puzzle
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("puzzle {} (line {})", i + 1, e.line)),
                puzzle: e.puzzle.clone(),
                given: Vec::new(),
            })
            .collect(),
    };
    let wanted = items.len();
    let items: Vec<_> = items
        .into_iter()
        .filter(|i| i.puzzle.size <= max_size)
        .collect();
    if items.len() < wanted {
        notes.push(format!(
            "{} puzzles larger than {max_size}x{max_size} left out (--max-size)",
            wanted - items.len()
        ));
    }
    let cases = suite::cases(&items, &config.predicates);
    if items.len() * config.predicates.len() > cases.len() {
        if config.predicates.contains(&Predicate::Plain) {
            notes.push(format!(
                "plain_kenken/3 is run on grids up to {0}x{0} (plain enumeration of larger \
                 ones may take hours)",
                suite::PLAIN_MAX_SIZE
            ));
        }
        let unlisted = items
            .iter()
            .filter(|i| suite::expected(&i.puzzle).is_none())
            .count();
        if unlisted > 0 {
            notes.push(format!(
                "{unlisted} puzzles left out: invalid, or more than {} answers",
                suite::MAX_EXPECTED
            ));
        }
    }
    cases
}

/// Runs `cases` on the backends (one thread each). A timeout on a grid up to
/// [`HANG_MAX_SIZE`] is a failure ([`Verdict::Hang`]) and skips nothing; a timeout on a larger
/// grid (N > 0, a case of at most [`SKIP_AFTER_ANSWERS`] answers) skips the predicate's cases
/// of larger grids. A report that makes `stop` true ends the run: the cases not started are
/// not run. Reports come back in the cases' order.
fn run_cases(
    cases: &[Case],
    backends: Vec<Box<dyn Backend>>,
    timeout: Duration,
    on_case: &mut (dyn FnMut(&CaseReport) + Send),
    stop: &Stop,
) -> Vec<CaseReport> {
    struct Shared<'a> {
        queue: VecDeque<usize>,
        /// Per predicate, the smallest size that timed out.
        timed_out: HashMap<Predicate, usize>,
        reports: Vec<Option<CaseReport>>,
        on_case: &'a mut (dyn FnMut(&CaseReport) + Send),
    }
    let shared = Mutex::new(Shared {
        queue: (0..cases.len()).collect(),
        timed_out: HashMap::new(),
        reports: vec![None; cases.len()],
        on_case,
    });
    std::thread::scope(|scope| {
        for mut backend in backends {
            let shared = &shared;
            scope.spawn(move || loop {
                let (i, skip) = {
                    let Ok(mut s) = shared.lock() else { return };
                    let Some(i) = s.queue.pop_front() else { return };
                    let c = &cases[i];
                    let skip = s
                        .timed_out
                        .get(&c.predicate)
                        .filter(|&&n| c.size > n)
                        .map(|&n| format!("{}/3 timed out on a {n}x{n} grid", c.predicate.name()));
                    (i, skip)
                };
                let c = &cases[i];
                let report = match skip {
                    Some(why) => CaseReport::skipped(c, why),
                    None => {
                        let run = backend.run(c, verdict::answers_wanted(c), timeout);
                        let mut report = verdict::judge(c, &run);
                        if report.verdict == Verdict::Timeout
                            && (1..=HANG_MAX_SIZE).contains(&c.size)
                        {
                            verdict::hang(&mut report);
                        }
                        report
                    }
                };
                let Ok(mut s) = shared.lock() else { return };
                // a loop on the empty grid (N = 0, often on backtracking) says nothing of
                // real grids: gprolog runs out of stack there, Scryer out of time; nor does
                // a slow enumeration of many answers (kenken(4, [], T)'s 576) say anything of
                // puzzles with few; and a hang on a small grid is a failure of its own, which
                // must not hide what the file answers on larger ones
                if report.verdict == Verdict::Timeout
                    && c.size > HANG_MAX_SIZE
                    && c.expected.len() <= SKIP_AFTER_ANSWERS
                {
                    let n = s.timed_out.entry(c.predicate).or_insert(c.size);
                    *n = (*n).min(c.size);
                }
                (s.on_case)(&report);
                if stop(&report) {
                    s.queue.clear();
                }
                s.reports[i] = Some(report);
            });
        }
    });
    let reports = shared.into_inner().map(|s| s.reports).unwrap_or_default();
    reports
        .into_iter()
        .zip(cases)
        .map(|(r, c)| r.unwrap_or_else(|| CaseReport::skipped(c, "not run".into())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{FormCheck, JudgedAnswer, RunEnd};

    #[test]
    fn a_load_refused_a_file_it_loads_says_how_to_allow_it() {
        let load = |why: &str| JudgeError::Load {
            file: "/class/ann.pl".into(),
            why: why.into(),
        };
        let refused = "gprolog's compiler refused it: /class/ann.pl:1: fatal error: cannot \
                       open file helper.pl - does not exist";
        assert!(read_hint(load(refused), true).to_string().ends_with(
            "(a judged file may read only itself: --read PATH lets it read a file it loads)"
        ));
        // not confined, or another failure: as it was
        assert_eq!(read_hint(load(refused), false), load(refused));
        let other = "loading did not end within 30 s (does a directive loop?)";
        assert_eq!(read_hint(load(other), true), load(other));
    }

    /// Times out on the cases named, answers every other one right.
    struct Fake(Vec<&'static str>);

    impl Backend for Fake {
        fn load(&mut self, _: Duration) -> Result<Loaded, JudgeError> {
            Ok(Loaded {
                warnings: String::new(),
            })
        }
        fn run(&mut self, case: &Case, _: usize, timeout: Duration) -> Run {
            let slow = self.0.contains(&case.name.as_str());
            Run {
                answers: if slow {
                    Vec::new()
                } else {
                    case.expected
                        .iter()
                        .cloned()
                        .map(JudgedAnswer::Grid)
                        .collect()
                },
                end: if slow {
                    RunEnd::Timeout
                } else {
                    RunEnd::Complete
                },
                elapsed: timeout,
            }
        }
    }

    fn verdicts(slow: Vec<&'static str>) -> Vec<(String, Verdict)> {
        let mut items = suite::spec_items();
        items.extend(suite::edge_items());
        let cases = suite::cases(&items, &[Predicate::Fd]);
        run_cases(
            &cases,
            vec![Box::new(Fake(slow))],
            Duration::from_secs(1),
            &mut |_| {},
            &|_| false,
        )
        .into_iter()
        .map(|r| (r.case, r.verdict))
        .collect()
    }

    fn verdict_of(v: &[(String, Verdict)], case: &str) -> Verdict {
        v.iter().find(|(c, _)| c == case).map(|(_, v)| *v).unwrap()
    }

    #[test]
    fn a_timeout_on_a_small_grid_is_a_failure_and_skips_nothing() {
        for slow in [
            "spec: kenken(1, [], T)",
            "spec: kenken(2, [], T)",
            "spec: kenken(3, [], T)",
        ] {
            let v = verdicts(vec![slow]);
            assert_eq!(verdict_of(&v, slow), Verdict::Hang, "{slow}");
            assert_eq!(
                verdict_of(&v, "spec 4x4 example (six answers)"),
                Verdict::Pass
            );
            assert_eq!(verdict_of(&v, "spec 6x6 testcase"), Verdict::Pass);
            assert_eq!(v.iter().filter(|(_, v)| *v == Verdict::Skipped).count(), 0);
        }
        let reports = run_cases(
            &suite::cases(&suite::spec_items(), &[Predicate::Fd]),
            vec![Box::new(Fake(vec!["spec: kenken(2, [], T)"]))],
            Duration::from_secs(1),
            &mut |_| {},
            &|_| false,
        );
        let hang = reports.iter().find(|r| r.verdict == Verdict::Hang).unwrap();
        assert_eq!(
            hang.detail,
            "no end within the time limit on a 2x2 grid (0 answers), which any correct solver \
             answers at once: a failure (the larger grids still run)"
        );
        assert!(Verdict::Hang.is_failure());
    }

    #[test]
    fn a_timeout_on_a_larger_grid_skips_the_larger_cases_unless_it_had_many_answers_or_no_grid() {
        let v = verdicts(vec!["spec 4x4 example (six answers)"]);
        assert_eq!(
            verdict_of(&v, "spec 4x4 example (six answers)"),
            Verdict::Timeout
        );
        assert_eq!(verdict_of(&v, "spec: kenken(3, [], T)"), Verdict::Pass);
        assert_eq!(verdict_of(&v, "spec 4x4 made unsatisfiable"), Verdict::Pass);
        assert_eq!(verdict_of(&v, "spec 6x6 testcase"), Verdict::Skipped);
        // 576 answers, or N = 0: the rest still runs
        for slow in ["spec: kenken(4, [], T)", "N = 0"] {
            let v = verdicts(vec![slow]);
            assert_eq!(verdict_of(&v, slow), Verdict::Timeout);
            assert_eq!(verdict_of(&v, "spec 6x6 testcase"), Verdict::Pass);
            assert_eq!(v.iter().filter(|(_, v)| *v == Verdict::Skipped).count(), 0);
        }
    }

    #[test]
    fn only_keeps_the_named_cases_of_the_whole_plan() {
        let config = |only: &[&str]| Config {
            max_size: Some(4),
            seed: Some(3),
            only: only.iter().map(|t| t.to_string()).collect(),
            ..Config::default()
        };
        let all = plan(&config(&[]), 4, 3, &mut Vec::new());
        let (kept, left_out) = only(all.clone(), &config(&["random", "N = 0"]), 4).unwrap();
        // the same cases, goals and answers as in the whole plan: filtered, not planned anew
        let named: Vec<Case> = all
            .iter()
            .filter(|c| c.name.starts_with("random ") || c.name == "N = 0")
            .cloned()
            .collect();
        assert_eq!(kept, named);
        assert_eq!(
            kept.len(),
            2 * (1 + 8),
            "N = 0 and 8 random, for both predicates"
        );
        assert_eq!(left_out, all.len() - kept.len());
        assert_eq!(
            only(all.clone(), &config(&[]), 4).unwrap(),
            (all.clone(), 0)
        );
        assert!(check_only(&config(&["spec 4x4, T"])).is_ok());
        // case-sensitive; no case left: the error names a few, from all over the suite
        let e = check_only(&config(&["Random"])).unwrap_err();
        let JudgeError::NoCaseNamed { names, count, .. } = &e else {
            panic!("{e}")
        };
        assert_eq!(*count, 21);
        assert!(names.len() <= NAMES_SHOWN && names.len() >= 4, "{names:?}");
        assert!(names.iter().any(|n| n.starts_with("random ")), "{names:?}");
        assert!(
            e.to_string().starts_with(
                "--only \"Random\": no case of the standard suite up to 4x4 has a name \
                 containing it (case-sensitive); its 21 case names include \"N = 0\", "
            ),
            "{e}"
        );
    }

    /// Loops on grids of `loops_up_to` and smaller (N > 0), answers a wrong grid on larger ones.
    struct LoopsThenWrong(usize);

    impl Backend for LoopsThenWrong {
        fn load(&mut self, _: Duration) -> Result<Loaded, JudgeError> {
            Fake(Vec::new()).load(Duration::ZERO)
        }
        fn run(&mut self, case: &Case, _: usize, timeout: Duration) -> Run {
            if (1..=self.0).contains(&case.size) {
                return Run {
                    answers: Vec::new(),
                    end: RunEnd::Timeout,
                    elapsed: timeout,
                };
            }
            Run {
                answers: vec![JudgedAnswer::Grid(vec![vec![1; case.size]; case.size])],
                end: RunEnd::Complete,
                elapsed: Duration::from_millis(1),
            }
        }
    }

    fn judgement(cases: Vec<CaseReport>, form: Option<FormCheck>) -> Judgement {
        Judgement {
            file: "f.pl".into(),
            system: System::Scryer,
            dialect: Dialect::Scryer,
            dialect_detected: true,
            max_size: 7,
            suite: "standard".into(),
            seed: Some(1),
            warnings: String::new(),
            cases,
            form,
            notes: Vec::new(),
            elapsed_s: 0.0,
            rerun: None,
        }
    }

    #[test]
    fn a_file_that_loops_on_the_smallest_grids_and_is_wrong_above_fails() {
        let mut items = suite::spec_items();
        items.extend(suite::edge_items());
        items.extend(suite::random_items(5, 1));
        let cases = suite::cases(&items, &[Predicate::Fd, Predicate::Plain]);
        for loops_up_to in [1, 3] {
            let reports = run_cases(
                &cases,
                vec![Box::new(LoopsThenWrong(loops_up_to))],
                Duration::from_secs(1),
                &mut |_| {},
                &|_| false,
            );
            let j = judgement(reports, None);
            assert_eq!(j.exit_code(), 1);
            assert_eq!(j.count(Verdict::Skipped), 0);
            assert_eq!(j.count(Verdict::Timeout), 0);
            assert!(j.count(Verdict::Hang) >= 2 * loops_up_to);
            assert!(j.count(Verdict::Wrong) > 10);
        }
        // timeouts on larger grids alone: exit 3; a form check failed: exit 1
        let reports = run_cases(
            &cases,
            vec![Box::new(Fake(vec!["random 5x5 #1"]))],
            Duration::from_secs(1),
            &mut |_| {},
            &|_| false,
        );
        assert_eq!(judgement(reports.clone(), None).exit_code(), 3);
        let fd = form::check("plain_kenken(N, C, T) :- kenken(N, C, T).\nkenken(_, _, _).");
        let j = judgement(reports, Some(fd));
        assert_eq!(j.exit_code(), 1);
        assert!(
            j.summary().contains("; form check failed ("),
            "{}",
            j.summary()
        );
        let passes = judgement(Vec::new(), Some(form::check("plain_kenken(_, _, _).")));
        assert_eq!(passes.exit_code(), 0);
    }

    #[test]
    fn a_run_told_to_stop_at_a_report_runs_no_case_after_it() {
        let cases = suite::cases(&suite::spec_items(), &[Predicate::Fd]);
        let slow = "spec: kenken(2, [], T)";
        let at = cases.iter().position(|c| c.name == slow).unwrap();
        assert!(at + 1 < cases.len());
        let mut seen = Vec::new();
        let reports = run_cases(
            &cases,
            vec![Box::new(Fake(vec![slow]))],
            Duration::from_secs(1),
            &mut |r| seen.push(r.case.clone()),
            &|r| r.verdict == Verdict::Hang,
        );
        // in order up to the first that made it true; the rest not run
        assert_eq!(seen.len(), at + 1);
        assert_eq!(reports[at].verdict, Verdict::Hang);
        assert!(reports[..at].iter().all(|r| r.verdict == Verdict::Pass));
        assert!(reports[at + 1..]
            .iter()
            .all(|r| r.verdict == Verdict::Skipped && r.detail.contains("not run")));
    }
}
