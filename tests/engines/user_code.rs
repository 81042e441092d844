//! The user's code cannot change ours (#54 item 2): a consulted file that defines the
//! libraries' predicates (`member/2`, `append/3`, `maplist/2,3`, `bb_put/2`, ...) or one of the
//! host's own (`kk_chars/2`) leaves every later answer, consult and state replay exactly right,
//! in a `Session`, a `QueryWorker` and `kenken query`; and the host's Prolog calls nothing a
//! user can redefine (`tests/data/host_lint.pl`). Every wait is bounded: a goal that would
//! never return fails the test.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kenken::prolog::{
    Answer, ConsultError, End, Lost, Query, QueryError, QueryWorker, Session, Term,
};
use kenken::Limit;

/// The predicates the libraries the host loads export (lists, iso_ext, error, charsio, format,
/// between, process, time, dcgs), which a consulted file may define in `user`: each is defined
/// by `poison_a.pl` to throw, but `member/2` and `append/3`, defined wrong as issue #54 found
/// them (`member(x, _).` made every answer `true` and every consult a protocol error).
const LIBRARY_PREDICATES: &[&str] = &[
    "select/3",
    "append/2",
    "foldl/4",
    "foldl/5",
    "memberchk/2",
    "reverse/2",
    "length/2",
    "maplist/2",
    "maplist/3",
    "maplist/4",
    "maplist/5",
    "maplist/6",
    "maplist/7",
    "maplist/8",
    "maplist/9",
    "same_length/2",
    "nth0/3",
    "nth0/4",
    "nth1/3",
    "nth1/4",
    "sum_list/2",
    "transpose/2",
    "list_to_set/2",
    "list_max/2",
    "list_min/2",
    "permutation/2",
    "bb_b_put/2",
    "bb_get/2",
    "bb_put/2",
    "call_cleanup/2",
    "call_with_inference_limit/3",
    "call_residue_vars/2",
    "forall/2",
    "partial_string/1",
    "partial_string/3",
    "partial_string_tail/2",
    "setup_call_cleanup/3",
    "succ/2",
    "call_nth/2",
    "countall/2",
    "copy_term_nat/2",
    "copy_term/3",
    "must_be/2",
    "can_be/2",
    "domain_error/2",
    "type_error/2",
    "representation_error/1",
    "resource_error/1",
    "instantiation_error/1",
    "domain_error/3",
    "type_error/3",
    "call_with_error_context/2",
    "char_type/2",
    "chars_utf8bytes/2",
    "get_single_char/1",
    "get_n_chars/3",
    "get_line_to_chars/3",
    "read_from_chars/2",
    "read_term_from_chars/3",
    "write_term_to_chars/3",
    "chars_base64/3",
    "format_/4",
    "format/2",
    "format/3",
    "portray_clause_/3",
    "portray_clause/1",
    "portray_clause/2",
    "listing/1",
    "between/3",
    "gen_int/1",
    "gen_nat/1",
    "numlist/2",
    "numlist/3",
    "repeat/1",
    "process_create/3",
    "process_id/2",
    "process_release/1",
    "process_wait/2",
    "process_wait/3",
    "process_kill/1",
    "max_sleep_time/1",
    "sleep/1",
    "current_time/1",
    "phrase/2",
    "phrase/3",
];

/// The files the tests consult, in a fresh folder.
struct Files {
    _dir: tempfile::TempDir,
    /// `member(x, _).`, `append(_, _, _).` and every other library predicate throwing.
    poison_a: PathBuf,
    /// `append(X, L, [X|L]).` (the next goal never returned, at 1.6 GB after 10 minutes).
    poison_b: PathBuf,
    /// A clause of one of the host's own predicates, and one of the user's.
    host: PathBuf,
    /// Two facts, and a clause that calls a library qualified.
    other: PathBuf,
}

fn files() -> Files {
    let dir = tempfile::tempdir().unwrap();
    let mut a = String::from("member(x, _).\nappend(_, _, _).\n");
    for pi in LIBRARY_PREDICATES {
        let (name, arity) = pi.split_once('/').unwrap();
        let args = vec!["_"; arity.parse().unwrap()].join(", ");
        a.push_str(&format!(
            "{name}({args}) :- throw(poisoned({name}/{arity})).\n"
        ));
    }
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    Files {
        poison_a: write("poison_a.pl", &a),
        poison_b: write("poison_b.pl", "append(X, L, [X|L]).\n"),
        host: write("host.pl", "kk_chars(_, []).\nmine(1).\n"),
        other: write(
            "other.pl",
            "fact(1).\nfact(2).\nsetq(V) :- iso_ext:bb_put(fq, V), iso_ext:bb_get(fq, V).\n",
        ),
        _dir: dir,
    }
}

/// An engine under test: a `Session` or a `QueryWorker`, each query bounded.
trait Engine {
    /// Every answer of `q`, how it ended, and what the engine lost before it.
    fn run(&mut self, q: Query) -> (Vec<Answer>, End, Vec<Lost>);
    /// The first answer of `q`, its other answers dropped.
    fn first(&mut self, q: Query) -> Answer;
    fn load(&mut self, file: &Path) -> Result<(), QueryError>;
    /// The engine replaced (a Scryer panic, a timeout), to be given its state back.
    fn replace(&mut self);
}

impl Engine for Session {
    fn run(&mut self, q: Query) -> (Vec<Answer>, End, Vec<Lost>) {
        let answers = self.query(&q).unwrap_or_else(|e| panic!("{}: {e}", q.goal));
        let lost = answers.lost().to_vec();
        let (a, end) = answers.collect_all().unwrap();
        (a, end, lost)
    }

    fn first(&mut self, q: Query) -> Answer {
        self.query(&q).unwrap().next().unwrap().unwrap()
    }

    fn load(&mut self, file: &Path) -> Result<(), QueryError> {
        self.consult(file)
    }

    fn replace(&mut self) {
        // (Scryer 0.10 panics asserting a cyclic term from a user's predicate)
        let (_, end, _) = self.run(Query::new("X = f(X), keep(X)"));
        assert!(matches!(end, End::Crashed(_)), "{end:?}");
    }
}

/// Each query's bound in a worker: past it, the check fails (`End::Stopped`).
const BOUND: Duration = Duration::from_secs(60);

impl Engine for QueryWorker {
    fn run(&mut self, q: Query) -> (Vec<Answer>, End, Vec<Lost>) {
        let q = q.timeout(BOUND);
        let answers = self.query(&q).unwrap_or_else(|e| panic!("{}: {e}", q.goal));
        let lost = answers.lost().to_vec();
        let (a, end) = answers.collect_all().unwrap();
        (a, end, lost)
    }

    fn first(&mut self, q: Query) -> Answer {
        self.query(&q.timeout(BOUND))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
    }

    fn load(&mut self, file: &Path) -> Result<(), QueryError> {
        self.consult(file, BOUND)
    }

    fn replace(&mut self) {
        let before = self.pid();
        let q = Query::new("repeat, fail").timeout(Duration::from_millis(300));
        let (_, end) = self.query(&q).unwrap().collect_all().unwrap();
        assert_eq!(end, End::Stopped(Limit::Time));
        assert_ne!(self.pid(), before);
    }
}

/// The texts of the answers of `goal`, which must end as `end`, the engine having lost nothing.
fn texts(e: &mut dyn Engine, q: Query) -> Vec<String> {
    let goal = q.goal.clone();
    let (a, end, lost) = e.run(q);
    assert!(lost.is_empty(), "{goal}: {lost:?}");
    assert_eq!(end, End::Complete, "{goal}");
    a.into_iter().map(|a| a.text).collect()
}

/// The answers a goal gets whatever the user's code, and those its own definitions give:
/// `member/2` is the user's (`member(x, _).`), `append/3` the user's of `poison` (a or b).
fn check(e: &mut dyn Engine, poison: char) {
    let q = Query::new;
    assert_eq!(
        texts(e, q("X = f(Y, Z, _), Z = \"ab\"")),
        ["X = f(Y,[a,b],_A),\nZ = [a,b]"]
    );
    assert_eq!(texts(e, q("member(X, [a, b])")), ["X = x"]);
    let appended = if poison == 'a' {
        "true"
    } else {
        "X = 1,\nY = []"
    };
    assert_eq!(texts(e, q("append(X, Y, [1])")), [appended]);
    let bound = q("Z = X-Y")
        .bind("X", vec![1, 2])
        .bind("Y", Term::atom("a"));
    assert_eq!(texts(e, bound), ["Z = [1,2]-a"]);
    let (_, end, _) = e.run(q("X = g(Y), throw(e(X))"));
    let End::Exception(thrown) = end else {
        panic!("{end:?}")
    };
    assert_eq!(thrown.text, "e(g(_A))");
    let (a, end, _) = e.run(q("repeat").max_answers(2));
    assert_eq!((a.len(), end), (2, End::AnswerLimit));
    let (_, end, _) = e.run(q("repeat, fail").inferences(100_000));
    assert_eq!(end, End::Stopped(Limit::Inferences));
    let (_, end, _) = e.run(q("halt(3)"));
    assert_eq!(end, End::Halted(3));
    // (answers dropped early: the goal cut where it is; a worker's, once the rest came)
    assert_eq!(e.first(q("X = 1 ; X = 2 ; X = 3")).text, "X = 1");
    assert_eq!(texts(e, q("kk_chars(C, [a])")), ["C = [a]"]);
}

/// Changes to the state, and the answer that shows them all.
/// Changes to the state (module-qualified goals among them: `m:assertz(C)` asserts into `m`,
/// and the host's rewriting of `bb_put/2` made `iso_ext:(user:kk_bb_put(K, V))` of
/// `iso_ext:bb_put(K, V)`, an existence error), and the answer that shows them all.
const CHANGES: &str = "assertz(extra(x)), op(200, xfy, ^^), set_prolog_flag(unknown, fail), \
     bb_put(kept_key, v(1, [a])), m:assertz(mf(1)), iso_ext:bb_put(qk, 2), lists:append([a], \
     [b], L), setq(4)";
const STATE: &str = "findall(F, fact(F), Fs), extra(E), current_op(P, xfy, ^^), \
     current_prolog_flag(unknown, O), iso_ext:bb_get(kept_key, K), mine(M), m:mf(MF), \
     iso_ext:bb_get(qk, Q)";
const STATE_TEXT: &str =
    "Fs = [1,2],\nE = x,\nP = 200,\nO = fail,\nK = v(1,[a]),\nM = 1,\nMF = 1,\nQ = 2";

/// Everything a user's code must not change, in `e`.
fn exercise(e: &mut dyn Engine, f: &Files) {
    // (the Session's way to a Scryer panic: `replace`)
    texts(e, Query::new("assertz((keep(X) :- assertz(kept(X))))"));
    e.load(&f.poison_a).unwrap();
    check(e, 'a');
    // the host's own predicate is refused (and the rest of the file loaded), as a builtin is
    match e.load(&f.host) {
        Err(QueryError::Consult(ConsultError::NotLoaded { why, .. })) => assert!(
            why.contains("permission_error(modify,static_procedure,kk_chars/2)"),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
    e.load(&f.other).unwrap();
    assert_eq!(texts(e, Query::new(CHANGES)), ["L = [a,b]"]);
    assert_eq!(texts(e, Query::new(STATE)), [STATE_TEXT]);
    for poison in ['a', 'b'] {
        if poison == 'b' {
            e.load(&f.poison_b).unwrap();
            check(e, 'b');
        }
        // the state given back to a replacement: the files (the user's code among them)
        // consulted again, the host's file still refused
        e.replace();
        let (a, end, lost) = e.run(Query::new(STATE));
        assert_eq!(end, End::Complete);
        assert!(
            matches!(lost.as_slice(), [Lost::File(ConsultError::NotLoaded { file, .. })]
                if file.ends_with("host.pl")),
            "{lost:?}"
        );
        assert_eq!(a[0].text, STATE_TEXT);
        check(e, poison);
    }
}

/// Runs `f` on a thread of its own, failing if it does not return within `limit`.
fn bounded(limit: Duration, f: impl FnOnce() + Send + 'static) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            let _ = tx.send(got.map_err(|p| {
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            }));
        })
        .unwrap();
    match rx.recv_timeout(limit) {
        Ok(Ok(())) => {}
        Ok(Err(why)) => panic!("{why}"),
        Err(_) => panic!("no answer within {limit:?}: a goal never returned"),
    }
}

#[test]
fn a_users_definitions_leave_a_sessions_answers_consults_and_replays_right() {
    bounded(Duration::from_secs(300), || {
        let f = files();
        exercise(&mut Session::new(), &f);
    });
}

#[test]
fn a_users_definitions_leave_a_workers_answers_consults_and_replays_right() {
    let _program = crate::use_the_kenken_binary();
    let f = files();
    exercise(&mut QueryWorker::new().unwrap(), &f);
}

#[test]
fn a_users_definitions_leave_the_top_levels_answers_consults_and_replays_right() {
    let f = files();
    let dir = f.other.parent().unwrap();
    std::fs::write(
        dir.join("mykenken.pl"),
        "kenken(N, C, T) :- T = mine(N, C).\n",
    )
    .unwrap();
    let run = |args: &[&Path], goal: &str| {
        let mut cmd = crate::common::kenken();
        cmd.current_dir(dir).args(["query", "--timeout", "50"]);
        for a in args {
            cmd.arg("--consult").arg(a);
        }
        let out = cmd
            .arg("--")
            .arg(goal)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        // (Scryer's loader warns of each library predicate the file redefines)
        let kept: Vec<&str> = stdout
            .lines()
            .filter(|l| !l.contains("% Warning"))
            .collect();
        (kept.join("\n"), out.status.code())
    };
    let goal = "X = f(Y, _), Z = \"ab\", member(M, [a, b]), append(A, B, [1]), consult(other), \
                findall(F, fact(F), Fs), assertz(p(1)), p(P), bb_put(k, v), iso_ext:bb_get(k, V), \
                (consult(host) ; true), kk_chars(C, [a]), mine(I).";
    assert_eq!(
        run(&[&f.poison_a], goal),
        (
            "% host.pl was not loaded: error(permission_error(modify,static_procedure,\
             kk_chars/2),load/1)\nX = f(Y,_A),\nZ = \"ab\",\nM = x,\nFs = [1,2],\nP = 1,\n\
             V = v,\nC = \"a\",\nI = 1."
                .into(),
            Some(0)
        )
    );
    // a file that replaces kenken.pl: the goal runs again in a fresh engine given the state
    let goal = "consult(other), assertz(p(1)), consult(mykenken), kenken(4, [], T), \
                X = f(Y, _), member(M, [a, b]), append(A, B, [1]), p(P), findall(F, fact(F), Fs).";
    let (out, code) = run(&[&f.poison_a, &f.poison_b], goal);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.ends_with(
            "T = mine(4,[]),\nX = f(Y,_A),\nM = x,\nA = 1,\nB = [],\nP = 1,\nFs = [1,2]."
        ),
        "{out}"
    );
}

#[test]
fn the_hosts_prolog_calls_nothing_a_user_can_redefine() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("prolog/host"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in ["host_query.pl", "host_expand.pl", "host_warnings.pl"] {
        files.push(root.join("prolog").join(file));
    }
    let files: Vec<Term> = files
        .iter()
        .map(|p| Term::atom(&p.to_string_lossy()))
        .collect();
    let mut s = Session::new();
    s.consult(&root.join("tests/data/host_lint.pl")).unwrap();
    let (a, end, _) = s.run(Query::new("lint_files(Fs, Bad)").bind("Fs", files));
    assert_eq!(end, End::Complete);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].text, "Bad = []");
    // the check finds what it looks for
    let (a, _, _) = s.run(Query::new("lint_files([F], Bad)").bind(
        "F",
        Term::atom(&root.join("tests/data/host_lint.pl").to_string_lossy()),
    ));
    assert!(a[0].text.contains("user:length("), "{}", a[0].text);
}
