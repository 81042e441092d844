//! The `kenken` command line, run as a user runs it: every subcommand's output and exit codes,
//! hostile input, `judge` (with hostile judged files), and the top level through a
//! pseudo-terminal.

#[path = "../common/mod.rs"]
mod common;

mod basics;
mod generate;
mod grade;
mod hint;
mod hostile;
mod judge;
mod judge_course;
mod judge_grades;
mod judge_verdicts;
mod lifecycle;
mod toplevel;
mod toplevel_stop;
