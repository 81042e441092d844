//! The shrink's tests, with fake files.
use super::*;

fn spec_6x6() -> Puzzle {
    suite::spec_items()
        .into_iter()
        .find(|i| i.name == "spec 6x6 testcase")
        .unwrap()
        .puzzle
}

#[test]
fn a_goal_gives_back_its_puzzle() {
    let p = spec_6x6();
    let cages: Vec<String> = p.cages.iter().map(prolog::cage_text).collect();
    let goal = format!("plain_kenken(6, [{}], T)", cages.join(", "));
    assert_eq!(puzzle_of_goal(&goal), Some((Predicate::Plain, p.clone())));
    let given = format!(
        "T = [_,[3,4,2,1],_,_], kenken(6, [{}], T)",
        cages.join(", ")
    );
    assert_eq!(puzzle_of_goal(&given), Some((Predicate::Fd, p)));
}

#[test]
fn candidates_are_smaller_valid_and_listable() {
    let p = spec_6x6();
    let c = candidates(&p);
    assert!(c.iter().any(|q| q.size == 1));
    assert!(c.iter().any(|q| q.size == 6 && q.cages.len() == 14));
    for q in &c {
        assert!(measure(q) < measure(&p));
        assert!(q.check().is_ok());
        assert!(suite::expected(q).is_some());
    }
    assert!(c.windows(2).all(|w| measure(&w[0]) <= measure(&w[1])));
}

/// A fake file: wrong (a grid of 1s) whenever the puzzle has a `-` cage, right otherwise.
fn wrong_on_sub(p: &Puzzle) -> CaseReport {
    let expected = suite::expected(p).unwrap();
    let case = suite::Case {
        name: "fake".into(),
        predicate: Predicate::Fd,
        size: p.size,
        goal: String::new(),
        expected: expected.clone(),
    };
    let answers = if p.cages.iter().any(|c| c.op == Op::Sub) {
        vec![vec![vec![1; p.size]; p.size]]
    } else {
        expected
    };
    let run = super::super::Run {
        answers: answers
            .into_iter()
            .map(super::super::JudgedAnswer::Grid)
            .collect(),
        end: super::super::RunEnd::Complete,
        elapsed: Duration::from_millis(1),
    };
    super::super::verdict::judge(&case, &run)
}

fn judged(p: &Puzzle) -> Judgement {
    let mut report = wrong_on_sub(p);
    let cages: Vec<String> = p.cages.iter().map(prolog::cage_text).collect();
    report.goal = format!("kenken({}, [{}], T)", p.size, cages.join(", "));
    report.case = "spec 6x6 testcase".into();
    Judgement {
        file: "f.pl".into(),
        system: super::super::System::Scryer,
        dialect: super::super::Dialect::Scryer,
        dialect_detected: true,
        max_size: 7,
        suite: "spec".into(),
        seed: None,
        warnings: String::new(),
        cases: vec![report],
        form: None,
        notes: Vec::new(),
        elapsed_s: 0.0,
        rerun: None,
    }
}

#[test]
fn a_wrong_answer_shrinks_to_one_small_cage_that_still_fails() {
    let p = spec_6x6();
    let j = judged(&p);
    // (as the judge runs a batch: in order, up to the first that fails as asked)
    let runs = std::cell::Cell::new(0usize);
    let runs = &runs;
    let mut runner = |_: Predicate| -> Box<Runner<'_>> {
        Box::new(move |ps: &[Puzzle], _, until: Option<Failure>| {
            let mut stopped = false;
            Some(
                ps.iter()
                    .map(|p| {
                        if stopped {
                            return None;
                        }
                        runs.set(runs.get() + 1);
                        let r = wrong_on_sub(p);
                        stopped = until.is_some() && Failure::of(&r) == until;
                        Some(r)
                    })
                    .collect(),
            )
        })
    };
    let c = shrink_with(
        &j,
        Duration::from_secs(1),
        Duration::from_secs(600),
        Instant::now(),
        &mut runner,
    )
    .unwrap();
    assert!(c.reproducible && c.complete, "{c:?}");
    // the tries counted are the puzzles run, not those left out after a failing one
    assert_eq!(c.tries, runs.get());
    assert_eq!(c.failure, Failure::WrongAnswer);
    assert_eq!((c.size, c.cages), (2, 1), "{}", c.text());
    assert_eq!(c.shape.cages[0].op, Op::Sub);
    assert_eq!(c.answer, Some(vec![vec![1, 1], vec![1, 1]]));
    assert!(!c.differ.is_empty());
    assert!(c
        .text()
        .contains("smallest failing puzzle: kenken/3, wrong answer (2x2, 1 cage;"));
    // the puzzle is a suite file
    let back = prolog::read(&c.puzzle).unwrap();
    assert_eq!(back[0].puzzle.bare(), c.shape);
}

#[test]
fn a_file_that_answers_differently_each_time_is_not_shrunk() {
    let p = spec_6x6();
    let j = judged(&p);
    let n = std::cell::Cell::new(0u32);
    let n = &n;
    let mut runner = |_: Predicate| -> Box<Runner<'_>> {
        Box::new(move |ps: &[Puzzle], _, _| {
            Some(
                ps.iter()
                    .map(|p| {
                        n.set(n.get() + 1);
                        let mut r = wrong_on_sub(p);
                        r.extra = vec![vec![vec![n.get(); p.size]; p.size]];
                        Some(r)
                    })
                    .collect(),
            )
        })
    };
    let c = shrink_with(
        &j,
        Duration::from_secs(1),
        Duration::from_secs(600),
        Instant::now(),
        &mut runner,
    )
    .unwrap();
    assert!(!c.reproducible);
    assert_eq!(c.size, 6);
    assert!(c.text().contains("NOT REPRODUCIBLE"));
}

/// A runner of the fake file [`wrong_on_sub`] that notes, for each batch, whether it fits
/// in the time left of `budget` since `start` (its load and every try at its limit), and
/// that passes the puzzles of a batch `passes` says it passes.
fn noting_runner<'a>(
    start: Instant,
    budget: Duration,
    over: &'a std::cell::Cell<usize>,
    passes: &'a dyn Fn(&[Puzzle], Option<Failure>) -> bool,
) -> impl FnMut(Predicate) -> Box<Runner<'a>> + 'a {
    move |_: Predicate| -> Box<Runner<'a>> {
        Box::new(
            move |ps: &[Puzzle], per_try: Duration, until: Option<Failure>| {
                if start.elapsed() + run_time(ps.len(), per_try) > budget {
                    over.set(over.get() + 1);
                }
                let pass = passes(ps, until);
                let mut stopped = false;
                Some(
                    ps.iter()
                        .map(|p| {
                            if stopped {
                                return None;
                            }
                            let mut r = wrong_on_sub(p);
                            if pass {
                                r.verdict = Verdict::Pass;
                                r.extra.clear();
                            }
                            stopped = until.is_some() && Failure::of(&r) == until;
                            Some(r)
                        })
                        .collect(),
                )
            },
        )
    }
}

#[test]
fn the_shrink_starts_no_batch_that_may_end_past_its_budget() {
    let p = spec_6x6();
    let j = judged(&p);
    for budget in [8, 12, 30] {
        let (start, budget) = (Instant::now(), Duration::from_secs(budget));
        let over = std::cell::Cell::new(0);
        let mut runner = noting_runner(start, budget, &over, &|_, _| false);
        let c = shrink_with(&j, Duration::from_secs(1), budget, start, &mut runner);
        assert_eq!(
            over.get(),
            0,
            "{budget:?}: a batch could end past the budget"
        );
        // (the three runs and the last check fit in 8 s: something is found)
        assert!(c.is_some(), "{budget:?}");
    }
}

#[test]
fn a_puzzle_that_fails_only_while_shrunk_is_not_reported() {
    let p = spec_6x6();
    let j = judged(&p);
    // the last check (two runs of one puzzle, asking for no failure): the file passes
    let last_check = |ps: &[Puzzle], until: Option<Failure>| {
        until.is_none() && ps.len() == CHECK_RUNS && ps[0] != spec_6x6()
    };
    let over = std::cell::Cell::new(0);
    let budget = Duration::from_secs(600);
    let mut runner = noting_runner(Instant::now(), budget, &over, &last_check);
    let c = shrink_with(
        &j,
        Duration::from_secs(1),
        budget,
        Instant::now(),
        &mut runner,
    )
    .unwrap();
    assert!(!c.reproducible && !c.complete, "{c:?}");
    assert_eq!((c.size, c.from_case.as_str()), (6, "spec 6x6 testcase"));
    assert!(c.text().contains("NOT REPRODUCIBLE"), "{}", c.text());

    // a puzzle the suite itself passed is no counterexample either
    let over = std::cell::Cell::new(0);
    let mut runner = noting_runner(Instant::now(), budget, &over, &|_, _| false);
    let found = shrink_with(
        &j,
        Duration::from_secs(1),
        budget,
        Instant::now(),
        &mut runner,
    )
    .unwrap();
    assert!(found.reproducible && found.size < 6, "{found:?}");
    let mut passed = j.clone();
    let mut same = wrong_on_sub(&found.shape);
    same.goal = found.goal.clone();
    same.verdict = Verdict::Pass;
    passed.cases.push(same);
    let mut runner = noting_runner(Instant::now(), budget, &over, &|_, _| false);
    let c = shrink_with(
        &passed,
        Duration::from_secs(1),
        budget,
        Instant::now(),
        &mut runner,
    )
    .unwrap();
    assert!(!c.reproducible && c.size == 6, "{c:?}");
}
