//! Several learning searches of one puzzle at once, one thread each (a portfolio), for large
//! grids on a machine with more than one core.
//!
//! On a large grid the time the learning search takes depends much on the order it happens to
//! branch in: the same puzzle can take one second or a minute. Searches that break ties
//! differently (module `learn`, a seed per search), run side by side, reach an answer sooner
//! than any one of them; the caller takes each solution from whichever search finds it first.
//!
//! The searches share what they learn: each offers its short learnt clauses (low literal-block
//! distance) to a pool, and every search but the first takes the others' in at its restarts.
//! The first search is the one-thread search going on: it takes nothing in, so its path is
//! exactly the one it would have taken alone, and a portfolio is never further from an answer
//! than one thread (but for the memory bandwidth the others use).
//!
//! What makes the union exact: each search gives every solution once; a solution that two
//! searches find is given once (the caller passes what it gave); a search that is exhausted has
//! found every solution, and its solutions came (on the one channel, in order) before the news
//! that it is exhausted, so by then every solution was given.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::learn::{Learner, Outcome, Pool};
use super::{Scratch, SearchStats, Solver, Stop};

/// A search already under way: the learner, its buffers and what it did so far.
pub(super) type Running = (Box<Learner>, Scratch, SearchStats);

/// Stack size of a search's thread.
const STACK: usize = 16 << 20;

/// Searches running on threads of their own; dropping it stops and joins them.
pub(super) struct Portfolio {
    cancel: Arc<AtomicBool>,
    events: mpsc::Receiver<Event>,
    workers: Vec<JoinHandle<()>>,
    /// Per search: its statistics as of its last report.
    stats: Vec<SearchStats>,
    /// Searches started and not yet stopped; whether one stopped at the deadline.
    running: usize,
    deadline: bool,
    /// The clauses the searches share.
    #[cfg_attr(not(test), allow(dead_code))]
    pool: Pool,
}

/// What a search reports, with its statistics at the time.
struct Event {
    search: usize,
    stats: SearchStats,
    what: What,
}

enum What {
    /// A solution's domains (every cell fixed).
    Solution(Vec<u64>),
    /// No solution is left.
    Exhausted,
    /// It stopped: the deadline, the portfolio's end, or as many solutions as it was to give.
    Stopped(Stop),
}

/// What [`Portfolio::next`] found.
pub(super) enum Next {
    /// A solution not given before (its domains).
    Solution(Vec<u64>),
    /// Every solution has been given.
    Exhausted,
    /// Every search stopped before either (the deadline, if any search saw it).
    Stopped(Stop),
}

impl Portfolio {
    /// Runs `first` on and `threads - 1` more searches from `root` (the domains the searches
    /// start from), seeded 1, 2, ...; each gives at most `solutions` solutions. When no thread
    /// can be started, `first` comes back.
    pub(super) fn start(
        solver: &Solver,
        root: &[u64],
        first: Running,
        threads: usize,
        solutions: usize,
    ) -> Result<Portfolio, Box<Running>> {
        let cancel = Arc::new(AtomicBool::new(false));
        let pool = Pool::default();
        let (tx, events) = mpsc::channel();
        let mut workers = Vec::new();
        let mut spawn = |search: usize, slot: &Arc<Mutex<Option<Running>>>| {
            let slot = Arc::clone(slot);
            let (solver, cancel, tx) = (solver.clone(), Arc::clone(&cancel), tx.clone());
            std::thread::Builder::new()
                .name(format!("kenken-search-{search}"))
                .stack_size(STACK)
                .spawn(move || {
                    let taken = slot.lock().ok().and_then(|mut s| s.take());
                    if let Some(running) = taken {
                        run(search, &solver, running, &cancel, solutions, &tx);
                    }
                })
                .map(|handle| workers.push(handle))
                .is_ok()
        };
        for search in 1..threads {
            let mut learner = Box::new(Learner::new(solver, root, 0, Some(search as u64)));
            learner.cancel_with(Some(Arc::clone(&cancel)));
            learner.share_with(Arc::clone(&pool), search, true);
            let mut scratch = solver.scratch();
            scratch.tables = first.1.tables.clone();
            let running = (learner, scratch, SearchStats::default());
            spawn(search, &Arc::new(Mutex::new(Some(running))));
        }
        let (mut learner, scratch, stats) = first;
        learner.pause_at(u64::MAX);
        learner.cancel_with(Some(Arc::clone(&cancel)));
        learner.share_with(Arc::clone(&pool), 0, false);
        let slot = Arc::new(Mutex::new(Some((learner, scratch, stats))));
        let started = spawn(0, &slot);
        let running = workers.len();
        let portfolio = Portfolio {
            cancel,
            events,
            workers,
            stats: vec![SearchStats::default(); threads],
            running,
            deadline: false,
            pool,
        };
        if started {
            return Ok(portfolio);
        }
        // The first search goes on where it was; the others stop (dropping the portfolio).
        drop(portfolio);
        let back = slot.lock().ok().and_then(|mut s| s.take());
        let mut first = back.expect("a thread that did not start left its search");
        first.0.cancel_with(None);
        first.0.stop_sharing();
        Err(Box::new(first))
    }

    /// Waits for a solution not in `given`, or for the end of the searches.
    pub(super) fn next(&mut self, given: &[Vec<u64>]) -> Next {
        loop {
            // Every sender gone without a word: a search thread died.
            let Ok(event) = self.events.recv() else {
                return Next::Stopped(Stop::Requested);
            };
            self.stats[event.search] = event.stats;
            match event.what {
                What::Solution(doms) => {
                    if !given.contains(&doms) {
                        return Next::Solution(doms);
                    }
                }
                What::Exhausted => {
                    self.finish();
                    return Next::Exhausted;
                }
                What::Stopped(stop) => {
                    self.running -= 1;
                    self.deadline |= stop == Stop::Deadline;
                    if self.running == 0 {
                        return Next::Stopped(if self.deadline { Stop::Deadline } else { stop });
                    }
                }
            }
        }
    }

    /// Stops every search and gives their work added up, to the end.
    pub(super) fn stop(mut self) -> SearchStats {
        self.cancel.store(true, Ordering::Relaxed);
        self.drain();
        self.stats()
    }

    /// Stops the other searches once one is exhausted, and takes in their last statistics.
    fn finish(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        self.running -= 1;
        self.drain();
    }

    /// Takes in the reports of the searches still running until each has stopped (after the
    /// cancel flag is set: a search looks at it at every failure and node, so this is quick).
    fn drain(&mut self) {
        while self.running > 0 {
            let Ok(event) = self.events.recv() else {
                return;
            };
            self.stats[event.search] = event.stats;
            if !matches!(event.what, What::Solution(_)) {
                self.running -= 1;
            }
        }
    }

    /// How many clauses the searches offered each other so far.
    #[cfg(test)]
    pub(super) fn offered(&self) -> usize {
        self.pool.lock().map_or(0, |p| p.len())
    }

    /// The searches' work added up, each as of its last report (a solution or its end).
    pub(super) fn stats(&self) -> SearchStats {
        self.stats
            .iter()
            .fold(SearchStats::default(), |a, s| SearchStats {
                nodes: a.nodes + s.nodes,
                failures: a.failures + s.failures,
                propagations: a.propagations + s.propagations,
                restarts: a.restarts + s.restarts,
            })
    }
}

impl Drop for Portfolio {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

/// One search's thread: reports each solution, then how it ended.
fn run(
    search: usize,
    solver: &Solver,
    (mut learner, mut scratch, mut stats): Running,
    cancel: &AtomicBool,
    solutions: usize,
    tx: &mpsc::Sender<Event>,
) {
    let mut given = 0;
    loop {
        let outcome = learner.next(solver, &mut scratch, &mut stats);
        let stats = SearchStats {
            propagations: scratch.propagations,
            ..stats
        };
        let what = match outcome {
            Outcome::Solution => {
                given += 1;
                What::Solution(learner.solution_doms().to_vec())
            }
            Outcome::Exhausted => What::Exhausted,
            Outcome::Stopped(stop) => What::Stopped(stop),
            // (Never: a search here has no pause set.)
            Outcome::Paused => What::Stopped(Stop::Requested),
        };
        let last = !matches!(what, What::Solution(_)) || given >= solutions;
        if tx
            .send(Event {
                search,
                stats,
                what,
            })
            .is_err()
            || cancel.load(Ordering::Relaxed)
        {
            return;
        }
        if last {
            if given >= solutions && matches!(outcome, Outcome::Solution) {
                let _ = tx.send(Event {
                    search,
                    stats,
                    what: What::Stopped(Stop::Requested),
                });
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::search::Phase;
    use super::super::tests::{same_solutions, sparse};
    use super::super::{Solutions, Solver};

    /// The learning search gone on as a portfolio at its first failure (two and three searches
    /// sharing clauses, restarting often, cutting their clauses often) gives exactly the
    /// solutions of the plain search, each once, whichever search finds each; so does its
    /// hand-over to the plain search after a few solutions. And an iterator dropped while the
    /// searches run stops them.
    #[test]
    fn portfolio_keeps_the_solutions_exact() {
        let (mut portfolios, mut offered) = (0, 0);
        for (n, i) in [(5, 1), (5, 2), (6, 3), (6, 4), (7, 0), (7, 3), (7, 5)] {
            let p = sparse(n, i);
            let plain = Solver::new(&p).unwrap().solve(None);
            for (threads, unit, solutions) in [(2, 1, usize::MAX), (3, 3, usize::MAX), (2, 2, 2)] {
                let what = format!("{n}/{i}/{threads}/{unit}/{solutions}");
                let mut s = Solver::new(&p).unwrap().with_threads(threads);
                (s.learn_from, s.strong_from, s.restart_unit) = (1, 1, unit);
                (s.learn_solutions, s.learn_cut, s.portfolio_after) = (solutions, 20, 0);
                let mut it = s.solutions();
                let mut grids = Vec::new();
                while let Some(g) = it.next() {
                    if let Phase::Portfolio(p) = &it.phase {
                        portfolios += 1;
                        offered += p.offered();
                    }
                    grids.push(g);
                }
                let complete = it.stopped().is_none();
                let a = Solutions {
                    grids,
                    complete,
                    timed_out: false,
                    stats: it.stats(),
                };
                same_solutions(&a, &plain, &what);
                assert!(a.grids.iter().all(|g| p.is_solution(g)), "{what}");
                // Dropped with the searches under way (two solutions of thousands asked for).
                assert_eq!(s.solutions().take(2).count(), 2.min(plain.grids.len()));
            }
        }
        assert!(
            portfolios > 100,
            "the portfolio gave solutions: {portfolios}"
        );
        assert!(offered > 100, "the searches offered clauses: {offered}");
    }
}
