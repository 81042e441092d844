//! Argument parsers the subcommands share: numbers with a range, and options whose values are
//! a fixed set of names (the library's own types, named by their `name()`).

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;

use kenken::engine::EngineKind;
use kenken::format::Notation;
use kenken::judge::{Dialect, System};
use kenken::prolog::Predicate;

/// `--output` of the subcommands that print text for people or JSON for programs.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TextOrJson {
    Text,
    Json,
}

/// Argument parser: a whole number of at least 1.
pub fn at_least_one(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("'{s}' is not a whole number of at least 1")),
    }
}

/// Argument parser: a number of threads, 1 to [`kenken::native::MAX_THREADS`].
pub fn threads(s: &str) -> Result<usize, String> {
    let max = kenken::native::MAX_THREADS;
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a whole number from 1 to {max}")),
    }
}

/// Argument parser: a positive, finite number of seconds.
pub fn seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t.is_finite() && t < 1e9 => Ok(t),
        _ => Err(format!("'{s}' is not a positive number of seconds")),
    }
}

/// A value parser for one of a fixed set of names, each standing for a value of `T`. The names
/// are the option's possible values: `--help` lists them, and any other word is a usage error
/// that names them (`unknown engine 'fast' for '--engines <ENGINES>'`, then the list).
#[derive(Clone)]
pub struct OneOf<T> {
    /// What a value is, for the error: `engine`.
    noun: &'static str,
    /// Each name and the value it stands for, in the order they are listed.
    values: Vec<(&'static str, T)>,
}

impl<T: Copy> OneOf<T> {
    /// The values `all`, each named by `name`.
    pub fn named(noun: &'static str, all: &[T], name: fn(T) -> &'static str) -> OneOf<T> {
        OneOf {
            noun,
            values: all.iter().map(|&v| (name(v), v)).collect(),
        }
    }
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for OneOf<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let text = value.to_string_lossy();
        if let Some((_, v)) = self.values.iter().find(|(name, _)| *name == text) {
            return Ok(v.clone());
        }
        let names: Vec<&str> = self.values.iter().map(|(name, _)| *name).collect();
        let option = arg.map_or_else(|| "...".to_string(), ToString::to_string);
        let message = format!(
            "unknown {} '{text}' for '{option}'\n  [possible values: {}]\n\n\
             For more information, try '--help'.\n",
            self.noun,
            names.join(", ")
        );
        Err(clap::Error::raw(ErrorKind::InvalidValue, message).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.values
                .iter()
                .map(|(name, _)| PossibleValue::new(*name)),
        ))
    }
}

/// `--engine`, `--engines`: the engines by the names [`EngineKind::name`] gives them.
pub fn engine() -> OneOf<EngineKind> {
    OneOf::named("engine", &EngineKind::ALL, EngineKind::name)
}

/// A notation, by [`Notation::name`].
pub fn notation() -> OneOf<Notation> {
    OneOf::named("notation", &Notation::ALL, Notation::name)
}

/// `judge --prolog`: a Prolog system, by [`System::name`].
pub fn system() -> OneOf<System> {
    OneOf::named(
        "Prolog system",
        &[System::Scryer, System::Gprolog, System::Swipl],
        System::name,
    )
}

/// `judge --dialect`: a dialect, by [`Dialect::name`].
pub fn dialect() -> OneOf<Dialect> {
    OneOf::named("dialect", &[Dialect::Gnu, Dialect::Scryer], Dialect::name)
}

/// `judge --predicates`: a predicate of `kenken.pl`, by [`Predicate::name`].
pub fn predicate() -> OneOf<Predicate> {
    OneOf::named(
        "predicate",
        &[Predicate::Fd, Predicate::Plain],
        Predicate::name,
    )
}
