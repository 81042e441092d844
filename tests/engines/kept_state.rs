//! The state a replaced engine gets back (#54 item 3): one clause the state cannot read no
//! longer wipes the others, and a clause written SWI's way (`assertz((m:h(X) :- B))`, a clause
//! of `(:)/2` in `user` for Scryer 0.10) is kept; what cannot be kept is named in `lost()`.

use std::time::Duration;

use kenken::prolog::{End, Query, QueryWorker, Session};
use kenken::Limit;

/// Facts, a clause `(M:H :- B)`, a module's fact, and what shows them.
const CHANGES: &str = "assertz(f(1)), assertz(f(2)), assertz((other:rule(X) :- X > 1)), \
     assertz((m3:g(Y) :- Y > 0)), assertz(m4:h(4))";
const LOOK: &str = "findall(F, f(F), Fs), m4:h(H), \
     findall(M-Hd-B, ( retract((M:Hd :- B)), assertz((M:Hd :- B)) ), Cs)";
const LOOKED: &str = "Fs = [1,2],\nH = 4,\nCs = [other-rule(_A)-(_A>1),m3-g(_B)-(_B>0)]";

fn look(answers: Vec<kenken::prolog::Answer>, end: End) {
    assert_eq!(end, End::Complete);
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0].text, LOOKED);
}

#[test]
fn a_clause_written_swis_way_keeps_the_state_of_a_session() {
    // Regression (#54 item 3): after assertz((other:rule(X) :- X > 1)), the state's reading of
    // the clauses threw (clause/2 of (:)/2), and every asserted fact was lost, lost() empty.
    let mut s = Session::new();
    let run =
        |s: &mut Session, goal: &str| s.query(&Query::new(goal)).unwrap().collect_all().unwrap();
    run(&mut s, "assertz((keep(X) :- assertz(kept(X))))");
    let (_, end) = run(&mut s, CHANGES);
    assert_eq!(end, End::Complete);
    let (a, end) = run(&mut s, LOOK);
    look(a, end);
    let (_, end) = run(&mut s, "X = f(X), keep(X)");
    assert!(matches!(end, End::Crashed(_)), "{end:?}");
    let answers = s.query(&Query::new(LOOK)).unwrap();
    assert!(answers.lost().is_empty(), "{:?}", answers.lost());
    let (a, end) = answers.collect_all().unwrap();
    look(a, end);
    assert_eq!(s.engines_built(), 2);
}

#[test]
fn a_clause_written_swis_way_keeps_the_state_of_a_worker() {
    let _program = crate::use_the_kenken_binary();
    let mut w = QueryWorker::new().unwrap();
    let minute = Duration::from_secs(60);
    let run = |w: &mut QueryWorker, goal: &str| {
        let answers = w.query(&Query::new(goal).timeout(minute)).unwrap();
        let lost = answers.lost().to_vec();
        let (a, end) = answers.collect_all().unwrap();
        (a, end, lost)
    };
    let (_, end, _) = run(&mut w, CHANGES);
    assert_eq!(end, End::Complete);
    let q = Query::new("repeat, fail").timeout(Duration::from_millis(300));
    let (_, end) = w.query(&q).unwrap().collect_all().unwrap();
    assert_eq!(end, End::Stopped(Limit::Time));
    let (a, end, lost) = run(&mut w, LOOK);
    assert!(lost.is_empty(), "{lost:?}");
    look(a, end);
}

#[test]
fn a_predicate_that_cannot_be_read_is_named_and_the_others_kept() {
    // The state is taken predicate by predicate: one that throws is named (Lost::Predicate
    // once given back), the others are written.
    let mut s = Session::new();
    let answers = s
        .query(&Query::new(
            "assertz(f(1)), kk_pred_texts([f/1, bad/x], Ts, Ls), length(Ts, N)",
        ))
        .unwrap();
    let (a, _) = answers.collect_all().unwrap();
    assert_eq!(a.len(), 1);
    assert!(
        a[0].text
            .ends_with("Ls = [predicate(bad/x)-'error(type_error(integer,x),functor/3)'],\nN = 1"),
        "{}",
        a[0].text
    );
    // given back, it is told (Lost::Predicate: src/prolog/query/consult.rs)
    let state = "kk_restore(([]),([]),([]),[],([]),([]),([predicate(bad/x)-'why']),([]))";
    let q = Query::new(&format!("kk_query_restore({}, L)", quoted(state)));
    let (a, end) = s.query(&q).unwrap().collect_all().unwrap();
    assert_eq!(end, End::Complete);
    assert_eq!(a[0].text, "L = [predicate('bad/x',why)]");
}

/// `text .` as a Prolog string (the state's text, as the host sends it).
fn quoted(text: &str) -> String {
    format!("\"{} .\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}
