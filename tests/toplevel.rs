//! The top level (`kenken query`, `kenken repl`) as a Prolog user meets it.
