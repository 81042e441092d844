//! The query API tells the truth (issue #36): every answer is its own query's, answers of any
//! depth and size come back whole, a worker replaced after a timeout is kept, and how a query
//! ends is typed (`halt`, exceptions as terms, several goals in one text, an answer too large).

use kenken::prolog::{Answer, End, Query, QueryError, QueryWorker, Session, Term};
use kenken::Limit;

/// A query worker running the `kenken` binary, and the guard that keeps it the program while
/// the worker may restart.
fn query_worker() -> (std::sync::MutexGuard<'static, ()>, QueryWorker) {
    let program = crate::use_the_kenken_binary();
    (program, QueryWorker::new().unwrap())
}

/// Every answer of `goal` in the worker, and how it ended.
fn all(w: &mut QueryWorker, goal: &str) -> (Vec<Answer>, End) {
    w.query(&Query::new(goal))
        .unwrap_or_else(|e| panic!("{goal}: {e}"))
        .collect_all()
        .unwrap_or_else(|e| panic!("{goal}: {e}"))
}

/// Every answer of `goal` in the session, and how it ended.
fn all_here(s: &mut Session, goal: &str) -> (Vec<Answer>, End) {
    s.query(&Query::new(goal))
        .unwrap_or_else(|e| panic!("{goal}: {e}"))
        .collect_all()
        .unwrap_or_else(|e| panic!("{goal}: {e}"))
}

/// The value of `name` in each answer.
fn values(answers: &[Answer], name: &str) -> Vec<Term> {
    answers
        .iter()
        .map(|a| a.term(name).unwrap().clone())
        .collect()
}

fn atom(a: &str) -> Term {
    Term::Atom(a.into())
}

/// `1+2+...+n` as Prolog reads it: `+(+(...(1, 2)...), n)`, nested n - 1 deep.
fn sum_term(n: i64) -> Term {
    (2..=n).fold(Term::Integer(1), |t, i| {
        Term::Compound("+".into(), vec![t, Term::Integer(i)])
    })
}

fn sum_text(n: i64) -> String {
    (1..=n).map(|i| i.to_string()).collect::<Vec<_>>().join("+")
}

#[test]
fn a_query_worker_never_gives_another_querys_answers() {
    // Regression (#36): the middle answer failed to decode (serde_json's recursion limit), the
    // rest of its reply stayed in the pipe, and each later query got the one before's answers.
    let (_program, mut w) = query_worker();
    let goal = format!("X = 1 ; X = {} ; X = 3", sum_text(50));
    let (a, end) = all(&mut w, &goal);
    assert_eq!(end, End::Complete);
    assert_eq!(
        values(&a, "X"),
        vec![Term::Integer(1), sum_term(50), Term::Integer(3)]
    );
    let (a, _) = all(&mut w, "Y = first");
    assert_eq!(values(&a, "Y"), vec![atom("first")]);
    let (a, _) = all(&mut w, "Y = second");
    assert_eq!(values(&a, "Y"), vec![atom("second")]);

    // A reply left after an error (an answer over the cap) is never the next query's.
    let q = Query::new("X = 1 ; numlist(1, 100, X) ; X = 3").answer_cap(50);
    let mut answers = w.query(&q).unwrap();
    assert_eq!(answers.next().unwrap().unwrap().integer("X").unwrap(), 1);
    assert_eq!(
        answers.next().unwrap().unwrap_err(),
        QueryError::AnswerTooLarge { cap: 50 }
    );
    assert!(answers.next().is_none());
    assert_eq!(answers.end(), Some(&End::AnswerTooLarge(50)));
    drop(answers);
    let (a, _) = all(&mut w, "Y = after_an_error");
    assert_eq!(values(&a, "Y"), vec![atom("after_an_error")]);

    // Answers dropped after the first of many: the next query gets its own.
    let mut answers = w.query(&Query::new("repeat, X = again")).unwrap();
    assert_eq!(
        answers.next().unwrap().unwrap().term("X").unwrap(),
        &atom("again")
    );
    drop(answers);
    let (a, end) = all(&mut w, "Y = after_a_drop");
    assert_eq!(
        (values(&a, "Y"), end),
        (vec![atom("after_a_drop")], End::Complete)
    );
}

/// Whether a value is what its goal should bind.
type Check = Box<dyn Fn(&Term) -> bool>;

/// Goals whose answers are deep or long (100,000 nodes), and what each binds `X` to.
fn big_answers() -> Vec<(String, Check)> {
    const N: usize = 100_000;
    vec![
        (
            format!("numlist(1, {N}, X)"),
            Box::new(|t: &Term| {
                t.as_list().is_some_and(|l| {
                    l.len() == N && l[0] == Term::Integer(1) && l[N - 1] == Term::Integer(N as i64)
                })
            }),
        ),
        (
            format!("length(X, {N})"),
            Box::new(|t: &Term| {
                t.as_list()
                    .is_some_and(|l| l.len() == N && matches!(&l[0], Term::Var(_)) && l[0] != l[1])
            }),
        ),
        (
            // a partial list: N cells deep
            format!("length(L, {N}), append(L, _, X)"),
            Box::new(|t: &Term| {
                let mut cells = 0;
                let mut t = t;
                while let Term::Compound(f, args) = t {
                    assert_eq!(f, ".");
                    cells += 1;
                    t = &args[1];
                }
                cells == N && matches!(t, Term::Var(_))
            }),
        ),
        (
            // f(f(...f(z)...)) built by a recursive predicate
            format!(
                "assertz((kk_deep(0, z) :- !)), \
                 assertz((kk_deep(N, f(T)) :- N1 is N - 1, kk_deep(N1, T))), kk_deep({N}, X)"
            ),
            Box::new(|t: &Term| {
                let mut depth = 0;
                let mut t = t;
                while let Term::Compound(f, args) = t {
                    assert_eq!((f.as_str(), args.len()), ("f", 1));
                    depth += 1;
                    t = &args[0];
                }
                depth == N && *t == atom("z")
            }),
        ),
    ]
}

#[test]
fn answers_of_any_depth_come_back_from_a_worker() {
    // Regression (#36): nothing deeper than serde_json's recursion limit came back from a
    // worker ("recursion limit exceeded", and the error carried the whole reply).
    let (_program, mut w) = query_worker();
    for (goal, ok) in big_answers() {
        let (a, end) = all(&mut w, &goal);
        assert_eq!((a.len(), &end), (1, &End::Complete), "{goal}");
        assert!(ok(a[0].term("X").unwrap()), "{goal}");
    }
    let (a, _) = all(&mut w, &format!("X = {}", sum_text(2_000)));
    assert_eq!(values(&a, "X"), vec![sum_term(2_000)]);
}

#[test]
fn answers_of_any_depth_come_back_in_this_thread() {
    // Regression (#36): a deep answer overflowed the stack in this thread (SIGABRT: the whole
    // process), and long lists converted in quadratic time. This runs on a test thread, whose
    // stack is small (2 MiB).
    let mut s = Session::new();
    for (goal, ok) in big_answers() {
        let (a, end) = all_here(&mut s, &goal);
        assert_eq!((a.len(), &end), (1, &End::Complete), "{goal}");
        assert!(ok(a[0].term("X").unwrap()), "{goal}");
    }
    // the answer's text names the variables as its terms do
    let (a, _) = all_here(&mut s, "X = f(Y, Z, _), Z = \"ab\"");
    assert_eq!(a[0].text, "X = f(Y,[a,b],_A),\nZ = [a,b]");
    assert_eq!(
        a[0].term("X").unwrap(),
        &Term::Compound(
            "f".into(),
            vec![
                Term::Var("Y".into()),
                Term::Chars("ab".into()),
                Term::Var("_A".into())
            ]
        )
    );
    // the wrapper's own encoding cannot be forged by a value
    let (a, _) = all_here(&mut s, "X = '$kk'(v, 'Y'), Y = '$kk'(l, 1, [])");
    assert_eq!(
        values(&a, "X"),
        vec![Term::Compound("$kk".into(), vec![atom("v"), atom("Y")])]
    );
    assert_eq!(
        values(&a, "Y"),
        vec![Term::Compound(
            "$kk".into(),
            vec![atom("l"), Term::Integer(1), Term::List(vec![])]
        )]
    );
}

#[test]
fn an_answer_over_the_cap_is_a_typed_error() {
    let mut s = Session::new();
    let q = Query::new("between(1, 3, N), numlist(1, N, X)").answer_cap(4);
    let mut answers = s.query(&q).unwrap();
    // N = 1, X = [1] is 4 nodes (N, a cell, 1, []); N = 2, X = [1,2] is 6: over the cap
    assert_eq!(answers.next().unwrap().unwrap().integer("N").unwrap(), 1);
    assert_eq!(
        answers.next().unwrap(),
        Err(QueryError::AnswerTooLarge { cap: 4 })
    );
    assert!(answers.next().is_none());
    assert_eq!(answers.end(), Some(&End::AnswerTooLarge(4)));
    drop(answers);
    let (a, _) = all_here(&mut s, "X = ok");
    assert_eq!(values(&a, "X"), vec![atom("ok")]);
}

#[test]
fn a_timeout_keeps_the_replacement_worker() {
    // Regression (#36): after a timeout the replacement worker, already starting, was killed
    // when the answers ended, so the next query paid a whole start again.
    let (_program, mut w) = query_worker();
    let q = Query::new("repeat, fail").timeout(std::time::Duration::from_millis(300));
    let (a, end) = w.query(&q).unwrap().collect_all().unwrap();
    assert_eq!((a.len(), end), (0, End::Stopped(Limit::Time)));
    let replacement = w.pid();
    assert!(replacement.is_some());
    let (a, _) = all(&mut w, "X = 1");
    assert_eq!(values(&a, "X"), vec![Term::Integer(1)]);
    assert_eq!(
        w.pid(),
        replacement,
        "the next query started another worker"
    );
}

#[test]
fn halt_ends_the_query_and_the_engine_goes_on() {
    let mut s = Session::new();
    let (a, end) = all_here(&mut s, "assertz(kept(1)), (X = 1 ; halt(3))");
    assert_eq!(
        (values(&a, "X"), end),
        (vec![Term::Integer(1)], End::Halted(3))
    );
    let (a, end) = all_here(&mut s, "halt");
    assert_eq!((a.len(), end), (0, End::Halted(0)));
    // the same engine: what was asserted is still there
    let (a, _) = all_here(&mut s, "kept(X)");
    assert_eq!(values(&a, "X"), vec![Term::Integer(1)]);
    let (_program, mut w) = query_worker();
    let (a, end) = all(&mut w, "X = 1 ; halt(3)");
    assert_eq!(
        (values(&a, "X"), end),
        (vec![Term::Integer(1)], End::Halted(3))
    );
}

#[test]
fn an_exception_is_a_term_and_its_text() {
    let mut s = Session::new();
    let (_, end) = all_here(&mut s, "throw(my(X, 'a b', [1|_], f(X)))");
    let End::Exception(e) = end else {
        panic!("{end:?}")
    };
    assert_eq!(e.text, "my(_A,'a b',[1|_B],f(_A))");
    let a = Term::Var("_A".into());
    assert_eq!(
        e.term,
        Some(Term::Compound(
            "my".into(),
            vec![
                a.clone(),
                atom("a b"),
                Term::Compound(".".into(), vec![Term::Integer(1), Term::Var("_B".into())]),
                Term::Compound("f".into(), vec![a]),
            ]
        ))
    );
    let (_program, mut w) = query_worker();
    let (_, end) = all(&mut w, "X is 1/0");
    let End::Exception(e) = end else {
        panic!("{end:?}")
    };
    assert!(e.text.contains("zero_divisor"), "{e}");
    assert!(
        matches!(&e.term, Some(Term::Compound(f, args)) if f == "error" && args.len() == 2),
        "{e:?}"
    );
}

#[test]
fn a_text_of_several_goals_is_refused_whole() {
    // Only the first goal ran (`X = 1. Y = 2.` answered X = 1), and the syntax error of a
    // later one was dropped: the text is refused instead, saying why.
    let mut s = Session::new();
    for (text, count) in [("X = 1. Y = 2.", 2), ("X = 1. Y = (.", 2), ("a. b. c", 3)] {
        match s.query(&Query::new(text)).map(|_| ()) {
            Err(e @ QueryError::SeveralGoals { .. }) => {
                assert_eq!(e, QueryError::SeveralGoals { count }, "{text}");
                assert!(e.to_string().contains("a query is one goal"), "{e}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
    // one goal, with full stops inside quotes and a final one
    let (a, _) = all_here(&mut s, "X = 'a. b'.");
    assert_eq!(values(&a, "X"), vec![atom("a. b")]);
    let (_program, mut w) = query_worker();
    assert_eq!(
        w.query(&Query::new("X = 1. Y = (."))
            .map(|_| ())
            .unwrap_err(),
        QueryError::SeveralGoals { count: 2 }
    );
}

#[test]
fn a_workers_answers_can_be_read_on_another_thread() {
    // Answers from a worker are Send (they were not: one type held the in-thread engine too),
    // so they can be held across an `.await` or read elsewhere.
    fn sendable<T: Send>(_: &T) {}
    let (_program, mut w) = query_worker();
    let answers = w.query(&Query::new("X = 1 ; X = 2")).unwrap();
    sendable(&answers);
    let (a, end) = std::thread::scope(|s| {
        s.spawn(move || answers.collect_all().unwrap())
            .join()
            .unwrap()
    });
    assert_eq!(
        (values(&a, "X"), end),
        (vec![Term::Integer(1), Term::Integer(2)], End::Complete)
    );
}

#[test]
fn a_worker_start_is_bounded_by_its_deadline() {
    // Regression (#36): a worker's start blocked up to a minute with no way to bound it.
    let _program = crate::use_the_kenken_binary();
    // (no engine is ready a microsecond after it is started)
    match QueryWorker::start_within(std::time::Duration::from_micros(1)) {
        Err(QueryError::StartTimeout(t)) => assert_eq!(t, std::time::Duration::from_micros(1)),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a worker was ready at once"),
    }
    let mut w = QueryWorker::start_within(std::time::Duration::from_secs(60)).unwrap();
    let (answers, end) = all(&mut w, "X = 1");
    assert_eq!(answers.len(), 1);
    assert_eq!(end, End::Complete);
}
