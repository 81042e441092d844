//! How a Prolog engine is built, and where its start goes.
//!
//! Every engine that answers the host's queries ([`super::Session`], and so every worker
//! engine and [`super::QueryWorker`]) is built here, in the same stages that
//! [`start_phases`] times: Scryer's machine, the libraries `kenken.pl` loads (`clpz` is most of
//! the start), `kenken.pl` itself, the host's wrapper (`prolog/host/`, `host_query.pl`) and the
//! libraries every goal finds, with the host's load-time rewriting of the files a person
//! consults (`host_expand.pl`). An engine that only solves puzzles is built the very same way,
//! so that a goal costs the same in each ([`stages`]).

use std::time::{Duration, Instant};

use scryer_prolog::{Machine, MachineBuilder, StreamConfig};

use super::{ALL_LIBRARIES, HOST_EXPAND_PL, HOST_PL, HOST_QUERY_PL, KENKEN_PL};

/// The libraries `kenken.pl` loads first, consulted as a stage of their own so that their
/// time shows apart (consulting them again from `kenken.pl` costs nothing).
const KENKEN_LIBRARIES: &str = "
:- use_module(library(clpz)).
:- use_module(library(lists)).
:- use_module(library(between)).
:- use_module(library(format)).
:- use_module(library(iso_ext)).
";

/// What an engine is for, which decides what it loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Any goal a person gives: the files consulted are rewritten as they load
    /// (`host_expand.pl`, a term expansion: bb_put/2 keys recorded, read/1 at the end of the
    /// input, imports replayed), as the goal typed is (`kk_halts/2` in `prolog/host/rewrite.pl`);
    /// what the engine writes to the process's standard output is kept from it.
    Queries,
    /// Only the homework's solvers, run by the host: built as [`Purpose::Queries`] is (the
    /// same code at the same addresses: see [`stages`]), its session keeping nothing of the
    /// process's standard output.
    Solving,
    /// The top level (`kenken query`, `kenken repl`): the host's top level and its rewriting,
    /// with `kenken.pl` and the libraries every goal finds unless `kenken` is false, loaded as
    /// one text (the top level loads its own predicates after).
    TopLevel {
        /// Whether `kenken.pl` (and library(clpz)) is loaded.
        kenken: bool,
    },
    /// Nothing: Scryer's machine alone, for a caller that loads what it runs (a judged file's
    /// engine, `system/scryer/judged.rs`).
    Bare,
}

/// How an engine is built: its streams, its top-level module and what it loads (its
/// [`Purpose`]). The one place the crate makes a Scryer machine.
pub(crate) struct Builder {
    builder: MachineBuilder,
    purpose: Purpose,
}

impl Builder {
    /// An engine for `purpose`, with Scryer's standard streams.
    pub(crate) fn new(purpose: Purpose) -> Builder {
        Builder {
            builder: MachineBuilder::default(),
            purpose,
        }
    }

    /// With these streams.
    pub(crate) fn streams(mut self, streams: StreamConfig) -> Builder {
        self.builder = self.builder.with_streams(streams);
        self
    }

    /// With this top-level module (Scryer's `$toplevel` by default).
    pub(crate) fn toplevel(mut self, module: &'static str) -> Builder {
        self.builder = self.builder.with_toplevel(module);
        self
    }

    /// The machine, with what its purpose loads.
    pub(crate) fn build(self) -> Machine {
        self.build_timed(&mut |_| {})
    }

    /// [`Builder::build`], with `stage` called with each stage's name as it ends.
    pub(crate) fn build_timed(self, stage: &mut dyn FnMut(&'static str)) -> Machine {
        let mut machine = self.builder.build();
        stage("Scryer's machine");
        for (name, text) in stages(self.purpose) {
            machine.consult_module_string("user", text);
            stage(name);
        }
        machine
    }
}

/// What an engine for `purpose` consults into `user`, in order, each stage named.
///
/// The engines that answer goals ([`Purpose::Queries`], [`Purpose::Solving`]) are built from
/// the very same texts in the same order, so that their code lies at the same addresses, and
/// `kenken/3` costs the same in each. This matters more than it seems: Scryer 0.10 binds an
/// attributed variable (every step of clpz's labeling) only after a search of the code
/// directory of `user` and a scan of the code it lands on, whose length depends on every
/// predicate `user` holds (docs/performance.md, "What a binding costs"): the solving engines,
/// built without `host_expand.pl`, scanned 97,024 instructions at each such binding where the
/// query engines scan 1,792, and `kenken/3` took 2 to 9 times as long there.
fn stages(purpose: Purpose) -> Vec<(&'static str, String)> {
    match purpose {
        Purpose::Bare => Vec::new(),
        Purpose::TopLevel { kenken: true } => vec![(
            "kenken.pl and the host's top level",
            format!("{KENKEN_PL}\n{HOST_PL}\n{HOST_EXPAND_PL}{ALL_LIBRARIES}"),
        )],
        Purpose::TopLevel { kenken: false } => vec![(
            "the host's top level",
            format!("{HOST_PL}\n{HOST_EXPAND_PL}"),
        )],
        // (the rewriting of consulted files, host_expand.pl, is a term expansion: it costs
        // nothing while goals run, and an engine that only solves consults no file)
        Purpose::Queries | Purpose::Solving => vec![
            (
                "the libraries kenken.pl loads (clpz, lists...)",
                KENKEN_LIBRARIES.to_string(),
            ),
            ("kenken.pl", KENKEN_PL.to_string()),
            (
                "the host's wrapper (host.pl, host_query.pl) and libraries",
                format!("{HOST_PL}\n{HOST_EXPAND_PL}\n{HOST_QUERY_PL}{ALL_LIBRARIES}"),
            ),
        ],
    }
}

/// One stage of an engine's start and the time it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartPhase {
    /// What the stage does.
    pub name: &'static str,
    /// The wall-clock time it took, in this thread.
    pub time: Duration,
}

/// Builds an engine as a worker engine's solving session does, timing each stage (in this
/// thread; a worker process adds its own process start, which this does not see).
pub fn start_phases() -> Vec<StartPhase> {
    let mut phases = Vec::new();
    let mut last = Instant::now();
    let _machine = Builder::new(Purpose::Solving).build_timed(&mut |name| {
        let now = Instant::now();
        phases.push(StartPhase {
            name,
            time: now - last,
        });
        last = now;
    });
    phases
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_staged_engine_answers_as_the_homework_says() {
        let phases = start_phases();
        assert_eq!(phases.len(), 4);
        assert!(phases[1].name.contains("clpz"));
        let mut session = super::super::Session::for_solving();
        let p = crate::format::read_auto(include_str!("../../examples/spec-6x6.pl")).unwrap();
        let s = session
            .solve(&p[0], super::super::Predicate::Fd, None, u64::MAX)
            .unwrap();
        assert_eq!(s.grids.len(), 1);
        assert!(s.complete);
    }

    /// The engines that solve and those that answer queries are built from the same texts in
    /// the same order (their code at the same addresses, so that a goal costs the same in each:
    /// see `stages`), and both carry the host's rewriting of consulted files. The probe: a
    /// consulted clause's bb_put/2 is rewritten to record its key for a restart
    /// (`kk_bb_keys`) in both.
    #[test]
    fn the_solving_and_query_engines_are_built_alike() {
        use super::super::{Query, Session};
        assert_eq!(stages(Purpose::Solving), stages(Purpose::Queries));
        let dir = std::env::temp_dir().join(format!("kenken-expand-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("p.pl");
        std::fs::write(&file, "p :- bb_put(k, v).\n").unwrap();
        let goal = Query::new("p, bb_get(kk_bb_keys, Ks), memberchk(k, Ks).");
        let count = |mut s: Session| {
            s.consult(&file).unwrap();
            s.query(&goal).unwrap().collect_all().unwrap().0.len()
        };
        let (solving, queries) = (count(Session::for_solving()), count(Session::new()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!((solving, queries), (1, 1));
    }
}
