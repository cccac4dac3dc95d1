//! Errors of reading and applying transforms and submit requirements.

use std::fmt;

/// Where a transform statement is: the file or configuration value it was
/// read from, and its line there (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    /// The rules file, or `JOB_TRANSFORM_<name>` for a transform read from
    /// the configuration.
    pub source: String,
    /// The line within that file or value.
    pub line: u32,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, line {}", self.source, self.line)
    }
}

/// An error reading or applying a transform.
///
/// ```
/// use matchmaker::schedd::{Macros, Transform, TransformError};
/// let t = Transform::parse("x", "SET A 1\nFROB B\n", "rules.xform")?;
/// let err = t.apply(&mut classad::ClassAd::new(), &mut Macros::new(), None).unwrap_err();
/// assert!(matches!(err, TransformError::Syntax { ref at, .. } if at.line == 2));
/// assert_eq!(err.to_string(), "rules.xform, line 2: FROB is not a valid transform keyword");
/// # Ok::<(), TransformError>(())
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransformError {
    /// A statement that cannot be read: an unknown keyword, a command
    /// without its arguments, a bad `if`, a bad `TRANSFORM` statement or
    /// `REQUIREMENTS` expression, ...
    #[error("{at}: {message}")]
    Syntax {
        /// The statement.
        at: At,
        /// What is wrong.
        message: String,
    },
    /// A `$(...)` expansion that fails: a macro function this reader does
    /// not support, a cycle, a value over the size limit.
    #[error("{at}: {message}")]
    Expansion {
        /// The statement.
        at: At,
        /// What went wrong.
        message: String,
    },
    /// A transform written as a ClassAd (the old form) that does not parse.
    #[error("{source_name}: the transform is not a valid ClassAd: {error}")]
    ClassAd {
        /// `JOB_TRANSFORM_<name>` or the file.
        source_name: String,
        /// The parser's message.
        error: classad::ParseError,
    },
    /// A rules or items file that cannot be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A rules or items file over the process's
    /// [`FileLimits`](classad::bounded_file::FileLimits), or not UTF-8.
    #[error(transparent)]
    File(classad::bounded_file::FileError),
    /// A configuration value that cannot be read.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
}

impl TransformError {
    /// A statement that cannot be read; a message quoting a long statement
    /// is cut (the line number says where it is).
    pub(crate) fn syntax(source: &str, line: u32, message: impl Into<String>) -> TransformError {
        TransformError::Syntax { at: At { source: source.to_string(), line }, message: bounded(message.into()) }
    }

    /// An expansion that fails; the message is cut as in [`Self::syntax`].
    pub(crate) fn expansion(source: &str, line: u32, message: impl Into<String>) -> TransformError {
        TransformError::Expansion { at: At { source: source.to_string(), line }, message: bounded(message.into()) }
    }
}

/// `message` cut to a few hundred bytes when it quotes a long input.
fn bounded(message: String) -> String {
    match classad::excerpt::quote(&message) {
        std::borrow::Cow::Borrowed(_) => message,
        std::borrow::Cow::Owned(cut) => cut,
    }
}
