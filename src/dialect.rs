//! [`Dialect`], which Prolog a judged file is written for: a leaf module, so that `system` (which
//! runs a file in its dialect) and `judge` (which detects it: `judge::detect`) both name it
//! without importing each other. Re-exported as `kenken::judge::Dialect`.

use serde::{Deserialize, Serialize};

/// A judged file's dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// Written for GNU Prolog: run with the GNU compatibility layer, or under `gprolog`.
    Gnu,
    /// Written for Scryer or SWI-Prolog (CLP(Z)/CLP(FD) libraries): run as it is.
    Scryer,
}

impl Dialect {
    /// The dialect's name in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Gnu => "gnu",
            Dialect::Scryer => "scryer",
        }
    }
}
