//! SWI-Prolog as a child: the real `swipl`, one confined process per goal, driven by
//! `prolog/swi_driver.pl`; the homework is `prolog/swi_kenken.pl` (which includes
//! `prolog/kenken.pl` under `library(clpfd)`).
//!
//! swipl consults source directly (no compiler step, unlike gprolog): each goal's process
//! loads the driver, reads its request (the nonce, the program to load, the goal) from
//! standard input, then loads the program and runs the goal, answering in frames
//! ([`super::child`]). It runs confined as gprolog does: it reads only its home (`PLBASE`, as
//! `swipl --dump-runtime-variables` says), the system's libraries and its scratch folder
//! (a private tmpfs holding the driver and the homework), writes only there, starts nothing,
//! opens no socket, within [`Limits`](crate::process::Limits); no init file, no history, no
//! signal handling, no terminal, no packs.
//!
//! A [`Program::File`] (a judged file) loads with a folder of libraries of ours put first in
//! the `library` search path, read-only: `library(clpz)` there is `library(clpfd)`
//! re-exported, `library(lists)` is SWI's with Scryer's `list_max/2` and `list_min/2`, and
//! `library(between)`, `library(format)`, `library(iso_ext)` and
//! `library(dcgs)` are empty (SWI has their predicates built in), so that a file written for
//! Scryer loads as it is. Loaded with `fd: false` (a judged `plain_kenken/3`), the folder's
//! `library(clpfd)` is `prolog/swi_no_fd.pl`, loaded before the file: every constraint throws
//! `kk_judge_no_fd(Name/Arity)`, and the real library cannot be loaded into its module. A
//! file written for GNU Prolog loads as it is: SWI-Prolog has most of its built-ins, but not
//! its FD solver (`fd_domain/3` and the rest raise existence errors).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::child::{self, quoted_atom};
use super::{
    Answer, ChildSetup, Clock, Goal, Loaded, Outcome, Program, PrologSystem, Reach, SystemError,
};
use crate::process::{find_program, random_hex, Child, Ticket};

/// The driver: runs one goal of a loaded program, answering in frames.
const DRIVER_PL: &str = include_str!("../../prolog/swi_driver.pl");
/// The homework for SWI-Prolog (it includes `kenken.pl`, written beside it).
const SWI_KENKEN_PL: &str = include_str!("../../prolog/swi_kenken.pl");
/// `library(clpfd)` where no FD solver is to be reached.
const NO_FD_PL: &str = include_str!("../../prolog/swi_no_fd.pl");
/// `library(clpz)` for a file written for Scryer: `library(clpfd)` (whichever the folder
/// gives).
const CLPZ_PL: &str = ":- module(clpz, []).\n:- reexport(library(clpfd)).\n";
/// `library(clp/clpfd)` and `library(clp/bounds)` where no FD solver is to be reached: the
/// stub `library(clpfd)` under those names (the real files are not readable there).
const CLP_ALIAS_PL: &str = ":- module(kk_no_fd_alias, []).\n:- reexport(library(clpfd)).\n";
/// `library(lists)` for a file written for Scryer: SWI-Prolog's, and the two predicates
/// Scryer's has that SWI names otherwise.
const LISTS_PL: &str = "\
:- module(kk_scryer_lists, [list_max/2, list_min/2]).
:- reexport(swi(library/lists)).
list_max(Xs, Max) :- max_list(Xs, Max).
list_min(Xs, Min) :- min_list(Xs, Min).
";
/// Scryer's libraries whose predicates SWI-Prolog has built in.
const BUILT_IN: [&str; 4] = ["between", "format", "iso_ext", "dcgs"];

/// How long `swipl --dump-runtime-variables` may take.
const ASK_TIMEOUT: Duration = Duration::from_secs(20);

/// The system's name.
const NAME: &str = "swipl";

/// Where SWI-Prolog is installed.
#[derive(Debug, Clone)]
struct Install {
    /// The program, links resolved.
    swipl: PathBuf,
    /// Its home (`PLBASE`): the boot file and the libraries.
    home: PathBuf,
}

/// SWI-Prolog, one confined `swipl` per goal.
pub struct Swipl {
    install: Install,
    setup: ChildSetup,
    scratch: crate::process::TempFolder,
    /// The libraries of a judged file: `fd/` with the FD solver, `plain/` without.
    libraries: crate::process::TempFolder,
    /// The driver's module and names start with this (`kk_drv_` and a random part).
    prefix: String,
    /// The program loaded and the folder of libraries it loads with, as the driver is told.
    program: Option<(PathBuf, Option<PathBuf>)>,
    /// What the setup hides, before a program without FD solver hid more.
    hidden: Vec<PathBuf>,
    /// The constraint libraries hidden from the program loaded (without FD solver).
    solvers: Vec<PathBuf>,
}

impl Swipl {
    /// Whether `swipl` is on the `PATH`.
    pub fn available() -> bool {
        find_program(NAME).is_some()
    }

    /// SWI-Prolog as installed (`swipl` on the `PATH`), started as `setup` says; fails when it
    /// is not installed. It runs confined, which a worker of this program does for it: the
    /// program must call [`crate::worker::init`] first thing in `main`.
    pub fn new(setup: ChildSetup) -> Result<Swipl, SystemError> {
        let swipl = find_program(NAME).ok_or(SystemError::NotInstalled {
            system: "SWI-Prolog",
            install: "install it (Debian and Ubuntu: apt-get install swi-prolog-nox) so that \
                      swipl is on the PATH",
        })?;
        let folder = |prefix: &str| {
            crate::process::TempFolder::new(prefix)
                .map_err(|e| SystemError::Io(format!("making a scratch folder for swipl: {e}")))
        };
        let scratch = folder("kenken-swipl-")?;
        let libraries = folder("kenken-swipl-lib-")?;
        for (dir, clpfd) in [("fd", None), ("plain", Some(NO_FD_PL))] {
            let dir = libraries.path().join(dir);
            let mut files: Vec<(&str, &str)> = vec![("clpz", CLPZ_PL), ("lists", LISTS_PL)];
            if let Some(t) = clpfd {
                // (the real libraries' own paths give the stub too: their files cannot be read)
                files.extend([
                    ("clpfd", t),
                    ("clp/clpfd", CLP_ALIAS_PL),
                    ("clp/bounds", CLP_ALIAS_PL),
                ]);
            }
            let empty: Vec<String> = BUILT_IN
                .iter()
                .map(|l| format!(":- module({l}, []).\n"))
                .collect();
            files.extend(BUILT_IN.iter().zip(&empty).map(|(l, t)| (*l, t.as_str())));
            std::fs::create_dir_all(dir.join("clp"))
                .and_then(|()| {
                    files
                        .iter()
                        .try_for_each(|(n, t)| std::fs::write(dir.join(format!("{n}.pl")), t))
                })
                .map_err(|e| SystemError::Io(format!("writing swipl's libraries: {e}")))?;
        }
        // (bin/ARCH/swipl in its home: where it reads until it says otherwise)
        let guess = swipl
            .ancestors()
            .nth(3)
            .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
        let mut system = Swipl {
            install: Install { swipl, home: guess },
            hidden: setup.hidden.clone(),
            solvers: Vec::new(),
            setup,
            scratch,
            libraries,
            prefix: format!("kk_drv_{}_", &random_hex()[..16]),
            program: None,
        };
        if let Some(home) = system.ask_home()? {
            system.install.home = home;
        }
        let driver = DRIVER_PL.replace("kk_drv_", &system.prefix);
        system.write("driver.pl", &driver)?;
        Ok(system)
    }

    /// `PLBASE`, as `swipl --dump-runtime-variables` says (confined, reading its guessed home).
    fn ask_home(&self) -> Result<Option<PathBuf>, SystemError> {
        let args: Vec<OsString> = vec!["--dump-runtime-variables".into()];
        let mut child = self.start(&args)?;
        child.close_stdin();
        let (lines, _) = child.collect(Instant::now() + ASK_TIMEOUT);
        let stderr = child.stderr_text();
        if let Some(why) = child::cannot_confine(&lines, &stderr) {
            return Err(SystemError::CannotConfine(why));
        }
        Ok(lines.iter().find_map(|l| {
            let value = l.strip_prefix("PLBASE=\"")?.strip_suffix("\";")?;
            std::fs::canonicalize(value).ok()
        }))
    }

    fn write(&self, name: &str, text: &str) -> Result<PathBuf, SystemError> {
        let path = self.scratch.path().join(name);
        std::fs::write(&path, text)
            .map_err(|e| SystemError::Io(format!("writing {}: {e}", path.display())))?;
        Ok(path)
    }

    /// What a swipl reads of its own: its home, its scratch folder and its libraries.
    fn own_reads(&self) -> Vec<PathBuf> {
        vec![
            self.install.home.clone(),
            self.scratch.path().to_path_buf(),
            self.libraries.path().to_path_buf(),
        ]
    }

    /// Starts `swipl` with `args`, as the setup says (confined unless told otherwise).
    fn start(&self, args: &[OsString]) -> Result<Child, SystemError> {
        Ok(child::start(
            &self.setup,
            &self.install.swipl,
            args,
            self.scratch.path(),
            self.own_reads(),
            true,
        )?)
    }

    /// Runs `goal` in a fresh swipl that loads `program` (with the libraries of `library`
    /// first, when given).
    fn run_in(
        &self,
        (program, library): &(PathBuf, Option<PathBuf>),
        goal: &Goal,
        answer: &mut dyn FnMut(Answer),
    ) -> Result<child::Framed, SystemError> {
        let clock = Clock::start();
        let main = format!("{0}:{0}main", self.prefix);
        let args: Vec<OsString> = [
            "-q",
            "-f",
            "none",
            "-F",
            "none",
            "--no-tty",
            "--no-signals",
            "--no-packs",
            "--no-pce",
            "--no-debug",
            "-g",
            &main,
            "-t",
            "halt(3)",
            "driver.pl",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let mut child = self.start(&args)?;
        let ticket = Ticket::new(1);
        let request = format!(
            "kk_request({}, \"{}\", {}, {}, T, ({}), {}).",
            ticket.id(),
            ticket.nonce(),
            quoted_atom(program),
            library.as_deref().map_or_else(|| "[]".into(), quoted_atom),
            goal.bare(),
            child::max_answers(goal),
        );
        // (a swipl that died at once is seen by the reader)
        let _ = child.send(&request);
        child.close_stdin();
        child::read_run(
            child,
            &ticket,
            goal,
            clock,
            &|s, e| child::death_end(s, e, &is_fatal),
            answer,
        )
    }
}

/// The constraint solvers of SWI-Prolog's home `home`: every file and folder of
/// `library/clp/` but its autoload index `INDEX.pl` (clpfd, bounds, clpb, clpq, clpr,
/// simplex, inclpr... whatever a version ships there), the SICStus 4 dialect's `clpfd.pl`,
/// and inclpr's foreign library (`lib/ARCH/inclpr.so`).
pub(crate) fn constraint_libraries(home: &Path) -> Vec<PathBuf> {
    let entries = |dir: PathBuf| -> Vec<PathBuf> {
        std::fs::read_dir(dir)
            .map(|es| es.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    let mut hidden: Vec<PathBuf> = entries(home.join("library/clp"))
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "INDEX.pl"))
        .collect();
    hidden.push(home.join("library/dialect/sicstus4/clpfd.pl"));
    for arch in entries(home.join("lib")) {
        hidden.push(arch.join("inclpr.so"));
    }
    hidden
}

/// The syntax errors swipl reported while loading `file` (its standard error, where it goes on
/// loading after each): (line, message).
fn syntax_errors(file: &Path, stderr: &str) -> Vec<(usize, String)> {
    let name = file.display().to_string();
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("ERROR: ")?.strip_prefix(name.as_str())?;
            let (line, rest) = rest.strip_prefix(':')?.split_once(':')?;
            let message = rest.split_once("Syntax error: ")?.1.trim().to_string();
            Some((line.parse().ok()?, message))
        })
        .collect()
}

/// Whether a line of swipl's standard error says it died (not that it halted).
fn is_fatal(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    l.contains("fatal") || l.contains("out of memory") || l.contains("could not allocate")
}

impl PrologSystem for Swipl {
    fn name(&self) -> &'static str {
        NAME
    }

    fn load(&mut self, program: &Program, timeout: Duration) -> Result<Loaded, SystemError> {
        self.program = None;
        let loading = match program {
            Program::Homework => {
                self.write("kenken.pl", crate::prolog::KENKEN_PL)?;
                (self.write("swi_kenken.pl", SWI_KENKEN_PL)?, None)
            }
            Program::File { path, fd, .. } => {
                if !self.setup.read.contains(path) {
                    self.setup.read.push(path.clone());
                }
                // without FD solver, no constraint library can be read at all (the stub
                // clpfd.pl aside): neither loaded over the stub nor read as text
                self.solvers = if *fd {
                    Vec::new()
                } else {
                    let mut solvers = constraint_libraries(&self.install.home);
                    solvers.push(self.libraries.path().join("fd"));
                    solvers
                };
                self.setup.hidden = self.hidden.clone();
                self.setup.hidden.extend(self.solvers.iter().cloned());
                let library = self.libraries.path().join(if *fd { "fd" } else { "plain" });
                (path.clone(), Some(library))
            }
        };
        // (a goal that does nothing: the program loads, or says why not)
        let mut probe = Goal::new("T = []", 0);
        probe.max_answers = Some(1);
        probe.deadline = Instant::now().checked_add(timeout);
        let run = self.run_in(&loading, &probe, &mut |_| {})?;
        let mut said = run.printed_before_loading;
        said.extend(run.stderr.lines().map(str::to_string));
        let warnings = said
            .iter()
            .map(|l| l.trim_end())
            .filter(|l| !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        let errors = match program {
            Program::File { path, .. } => syntax_errors(path, &run.stderr),
            Program::Homework => Vec::new(),
        };
        if !errors.is_empty() {
            return Err(SystemError::Syntax {
                file: loading.0.display().to_string(),
                errors,
            });
        }
        if !run.loaded {
            let why = match run.outcome.end {
                super::End::Stopped(super::Bound::Time) => format!(
                    "loading did not end within {} s (does a directive loop?)",
                    timeout.as_secs_f64()
                ),
                _ => format!("swipl stopped while loading it: {warnings}"),
            };
            return Err(SystemError::Load(why));
        }
        self.program = Some(loading);
        Ok(Loaded { warnings })
    }

    fn run(&mut self, goal: &Goal, answer: &mut dyn FnMut(Answer)) -> Result<Outcome, SystemError> {
        let program = self.program.as_ref().ok_or(SystemError::NotLoaded(NAME))?;
        Ok(self.run_in(program, goal, answer)?.outcome)
    }

    fn reach(&self) -> Option<Reach> {
        child::reach(&self.setup, self.scratch.path(), self.own_reads())
    }

    fn hidden_solvers(&self) -> Vec<PathBuf> {
        if self.setup.confined {
            self.solvers.clone()
        } else {
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_are_read_from_what_swipl_says() {
        let said = "ERROR: /t/a.pl:2:12: Syntax error: Unbalanced operator\n\
                    Warning: /t/a.pl:3:\n\
                    ERROR: /t/b.pl:4:8: Syntax error: Operator expected\n\
                    ERROR: /t/a.pl:4:8: Syntax error: Operator expected\n";
        assert_eq!(
            syntax_errors(Path::new("/t/a.pl"), said),
            vec![
                (2, "Unbalanced operator".to_string()),
                (4, "Operator expected".to_string())
            ]
        );
    }
}
