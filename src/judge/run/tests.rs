use super::*;
use crate::judge::{FormCheck, JudgedAnswer, RunEnd};

/// The bounds of a run with a case limit of `secs` seconds, no budget, answers in the
/// spec's order.
fn limit(secs: u64) -> Bounds {
    Bounds {
        timeout: Duration::from_secs(secs),
        budget: None,
        deadline: None,
        order: Order::Strict,
    }
}

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
        &limit(1),
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
        &limit(1),
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
    assert_eq!(*count, 25);
    assert!(names.len() <= NAMES_SHOWN && names.len() >= 4, "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("random ")), "{names:?}");
    assert!(
        e.to_string().starts_with(
            "--only \"Random\": no case of the standard suite up to 4x4 has a name \
             containing it (case-sensitive); its 25 case names include \"N = 0\", "
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
        order: Order::Strict,
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
            &limit(1),
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
        &limit(1),
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

/// Never ends a case (every one times out), and keeps the limit each case was given.
struct Never(Arc<Mutex<Vec<(String, Duration)>>>);

impl Backend for Never {
    fn load(&mut self, _: Duration) -> Result<Loaded, JudgeError> {
        Fake(Vec::new()).load(Duration::ZERO)
    }
    fn run(&mut self, case: &Case, _: usize, timeout: Duration) -> Run {
        if let Ok(mut given) = self.0.lock() {
            given.push((case.name.clone(), timeout));
        }
        Run {
            answers: Vec::new(),
            end: RunEnd::Timeout,
            elapsed: timeout,
        }
    }
}

#[test]
fn a_predicate_that_hung_gets_less_time_and_its_next_timeout_skips_the_rest() {
    let cases = suite::cases(&suite::spec_items(), &[Predicate::Fd]);
    let given = Arc::new(Mutex::new(Vec::new()));
    let reports = run_cases(
        &cases,
        vec![Box::new(Never(given.clone()))],
        &limit(30),
        &mut |_| {},
        &|_| false,
    );
    let given = given.lock().unwrap().clone();
    let names: Vec<&str> = given.iter().map(|(n, _)| n.as_str()).collect();
    // 1x1 hangs with the whole limit; the rest 5 s each, up to the 4x4 grids, where a
    // timeout (kenken(4, [], T)'s 576 answers too, after a hang) skips the larger ones
    assert_eq!(
        names,
        [
            "spec: kenken(1, [], T)",
            "spec: kenken(2, [], T)",
            "spec: kenken(3, [], T)",
            "spec: kenken(4, [], T)",
            "spec 4x4 example (six answers)",
            "spec 4x4, T partly given",
            "spec 4x4 made unsatisfiable"
        ]
    );
    assert_eq!(given[0].1, Duration::from_secs(30));
    assert!(given[1..].iter().all(|(_, t)| *t == AFTER_SLOW));
    let verdicts: Vec<Verdict> = reports.iter().map(|r| r.verdict).collect();
    assert_eq!(
        &verdicts[..4],
        [
            Verdict::Hang,
            Verdict::Hang,
            Verdict::Hang,
            Verdict::Timeout
        ]
    );
    assert_eq!(reports[7].case, "spec 6x6 testcase");
    assert_eq!(reports[7].verdict, Verdict::Skipped);
    assert!(reports[1]
        .detail
        .ends_with("(it was given 5 s: kenken/3 hung on a smaller grid already)"));
    // (a timeout on a larger grid, after a hang, says why it was short too)
    assert!(reports[3]
        .detail
        .ends_with("(it was given 5 s: kenken/3 hung on a smaller grid already)"));
    assert!(!reports[0].detail.contains("it was given"));
}

#[test]
fn a_timeout_on_a_larger_grid_gives_the_other_cases_of_its_side_less_time() {
    // times out on the spec's 4x4 example, answers the rest; the limits given are kept
    type Given = Arc<Mutex<Vec<(String, Duration)>>>;
    struct SlowOn(Fake, Given);
    impl Backend for SlowOn {
        fn load(&mut self, t: Duration) -> Result<Loaded, JudgeError> {
            self.0.load(t)
        }
        fn run(&mut self, case: &Case, max: usize, timeout: Duration) -> Run {
            self.1.lock().unwrap().push((case.name.clone(), timeout));
            self.0.run(case, max, timeout)
        }
    }
    let cases = suite::cases(&suite::spec_items(), &[Predicate::Fd]);
    let given = Given::default();
    let slow = SlowOn(Fake(vec!["spec 4x4 example (six answers)"]), given.clone());
    let reports = run_cases(
        &cases,
        vec![Box::new(slow)],
        &limit(30),
        &mut |_| {},
        &|_| false,
    );
    let given = given.lock().unwrap().clone();
    let limit_of = |name: &str| given.iter().find(|(n, _)| n == name).unwrap().1;
    assert_eq!(
        limit_of("spec 4x4 example (six answers)"),
        Duration::from_secs(30)
    );
    // the 4x4 cases after it: 5 s each (and they pass); the 6x6 skipped
    assert_eq!(limit_of("spec 4x4, T partly given"), AFTER_SLOW);
    assert_eq!(limit_of("spec 4x4 made unsatisfiable"), AFTER_SLOW);
    assert_eq!(limit_of("spec: kenken(4, [], T)"), Duration::from_secs(30));
    assert!(reports
        .iter()
        .filter(|r| r.size == 4 && r.case != "spec 4x4 example (six answers)")
        .all(|r| r.verdict == Verdict::Pass));
    assert_eq!(reports.last().unwrap().verdict, Verdict::Skipped);
}

#[test]
fn a_budget_ends_a_run_in_time_the_cases_not_reached_said_so() {
    // a backend that takes its whole limit (as a file that never answers does)
    struct Sleeps;
    impl Backend for Sleeps {
        fn load(&mut self, _: Duration) -> Result<Loaded, JudgeError> {
            Fake(Vec::new()).load(Duration::ZERO)
        }
        fn run(&mut self, _: &Case, _: usize, timeout: Duration) -> Run {
            std::thread::sleep(timeout);
            Run {
                answers: Vec::new(),
                end: RunEnd::Timeout,
                elapsed: timeout,
            }
        }
    }
    let cases = suite::cases(&suite::spec_items(), &[Predicate::Fd]);
    let start = Instant::now();
    let bounds = Bounds {
        budget: Some(Duration::from_secs(2)),
        deadline: Some(start + Duration::from_secs(2)),
        ..limit(30)
    };
    let reports = run_cases(
        &cases,
        vec![Box::new(Sleeps)],
        &bounds,
        &mut |_| {},
        &|_| false,
    );
    assert!(
        start.elapsed() < Duration::from_millis(2500),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(reports.len(), cases.len());
    // the first case was given half of the budget, and stopped; none after it ran
    assert!(reports[0].detail.starts_with(
        "stopped: the judgement's time budget ran out during this case (it was given 1.0 s"
    ));
    assert!(reports[1..].iter().all(|r| r.verdict == Verdict::Skipped
        && r.detail == "not reached: the judgement's time budget ran out before it"));
    assert_eq!(
        bounds.note(&reports).unwrap(),
        "8 cases not run to the end: the judgement's time budget of 2 s ran out (they earn \
         nothing; the cases run before are judged as usual)"
    );
    assert!(bounds.note(&reports[..0]).is_none());
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
        &limit(1),
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
