//! The library: the model, the notations and the native solver (these need no feature:
//! `cargo test --no-default-features --test library` runs them alone), and, with the `prolog`
//! feature, the cage helper and the engines in this process against an independent oracle.

#[path = "../common/mod.rs"]
mod common;

#[cfg(feature = "prolog")]
mod cage;
mod formats;
mod native;
mod native_large;
#[cfg(feature = "prolog")]
mod properties;
