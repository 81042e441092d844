//! Argument parsers the subcommands share: numbers with a range, and options whose values are
//! a fixed set of names (the library's own types, named by their `name()`).

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;

use kenken::engine::EngineKind;
use kenken::format::Notation;
use kenken::judge::report::points::Visibility;
use kenken::judge::{Dialect, Order, System};
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

/// `judge --order`: the order answers must come in, by [`Order::name`].
pub fn order() -> OneOf<Order> {
    OneOf::named("order", &[Order::Any, Order::Strict], Order::name)
}

/// `judge --visibility`: who sees a Gradescope result, by [`Visibility::name`].
pub fn visibility() -> OneOf<Visibility> {
    OneOf::named("visibility", &Visibility::ALL, Visibility::name)
}

/// Argument parser: a seed, as a number (a report's) or any other text, made a number the same
/// way every time (`--seed cs131-hw4`: one seed per assignment, the same cases for every
/// submission and resubmission): its FNV-1a hash, 48 bits of it (a seed a report shows).
pub fn seed(s: &str) -> Result<u64, String> {
    if let Ok(n) = s.trim().parse::<u64>() {
        return Ok(n);
    }
    if s.trim().is_empty() {
        return Err("a seed is a number or a word, not nothing".into());
    }
    let hash = s.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    Ok(hash & ((1 << 48) - 1))
}

#[cfg(test)]
mod tests {
    use super::seed;

    #[test]
    fn a_seed_is_a_number_or_a_word_made_one_number() {
        assert_eq!(seed("141974800354145"), Ok(141974800354145));
        let word = seed("cs131-hw4-fall").unwrap();
        assert_eq!(seed("cs131-hw4-fall"), Ok(word));
        assert_ne!(seed("cs131-hw4-spring"), Ok(word));
        assert!(word < 1 << 48);
        // (FNV-1a of "a", cut to 48 bits)
        assert_eq!(seed("a"), Ok(0xaf63dc4c8601ec8c & ((1 << 48) - 1)));
        assert!(seed(" ").is_err());
    }
}
