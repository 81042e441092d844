//! [`Limit`], the bound that stopped a search or a query: a leaf module, so that every layer
//! (`engine`, `system`, `prolog`) names it without importing another. Re-exported as
//! `kenken::Limit` and `kenken::engine::Limit`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A bound that stopped a search or a query before its end: the one way the crate says so
/// ([`Status::limit`](crate::engine::Status::limit), `prolog::End::Stopped`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// The wall-clock time limit (the request's timeout, or the query's).
    Time,
    /// The bound on Prolog inferences.
    Inferences,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Limit::Time => "time limit reached",
            Limit::Inferences => "inference limit reached",
        })
    }
}
