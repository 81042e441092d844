//! Errors of other crates, kept as the source of ours: what was being done, and the error
//! itself (`std::error::Error::source` gives it back), shared so that our errors stay `Clone`.

use std::sync::Arc;

/// An error of another crate while doing something: displayed as `doing this: the error`, with
/// the error as its [`source`](std::error::Error::source).
#[derive(Debug, thiserror::Error)]
#[error("{context}: {source}")]
pub struct WithContext<E: std::error::Error + 'static> {
    context: String,
    #[source]
    source: Arc<E>,
}

/// An I/O error while doing something.
pub type IoError = WithContext<std::io::Error>;

/// A JSON error while reading or writing something.
pub type JsonError = WithContext<serde_json::Error>;

impl<E: std::error::Error + 'static> WithContext<E> {
    /// `source` while doing `context` (`"starting gprolog"`, `"writing the driver"`).
    pub fn new(context: impl Into<String>, source: E) -> Self {
        WithContext {
            context: context.into(),
            source: Arc::new(source),
        }
    }

    /// What was being done.
    pub fn context(&self) -> &str {
        &self.context
    }

    /// The error itself.
    pub fn error(&self) -> &E {
        &self.source
    }
}

impl<E: std::error::Error + 'static> Clone for WithContext<E> {
    fn clone(&self) -> Self {
        WithContext {
            context: self.context.clone(),
            source: Arc::clone(&self.source),
        }
    }
}

/// Two errors are equal when they say the same (the other crate's error may not be comparable).
impl<E: std::error::Error + 'static> PartialEq for WithContext<E> {
    fn eq(&self, other: &Self) -> bool {
        self.context == other.context && self.source.to_string() == other.source.to_string()
    }
}

impl<E: std::error::Error + 'static> Eq for WithContext<E> {}

/// `result`'s error with what was being done.
#[cfg_attr(not(feature = "prolog"), allow(dead_code))]
pub(crate) trait Context<T, E: std::error::Error + 'static> {
    /// Adds `context` to the error.
    fn context(self, context: impl Into<String>) -> Result<T, WithContext<E>>;
    /// Adds the context `f` makes (only when there is an error).
    fn with_context<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T, WithContext<E>>;
}

impl<T, E: std::error::Error + 'static> Context<T, E> for Result<T, E> {
    fn context(self, context: impl Into<String>) -> Result<T, WithContext<E>> {
        self.map_err(|e| WithContext::new(context, e))
    }

    fn with_context<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T, WithContext<E>> {
        self.map_err(|e| WithContext::new(f(), e))
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::*;

    #[test]
    fn the_source_is_kept_and_shown() {
        let e: Result<(), IoError> = Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no such file",
        ))
        .context("reading a.pl");
        let e = e.unwrap_err();
        assert_eq!(e.to_string(), "reading a.pl: no such file");
        assert_eq!(e.context(), "reading a.pl");
        assert_eq!(e.error().kind(), std::io::ErrorKind::NotFound);
        let source = e.source().expect("a source");
        assert_eq!(source.to_string(), "no such file");
        assert_eq!(e.clone(), e);
    }
}
