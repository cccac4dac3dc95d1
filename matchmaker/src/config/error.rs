//! Errors of reading and querying a configuration.

use std::fmt;

use super::cycle::CycleLink;

/// Where a statement is: the file (or the name given to
/// [`Config::parse_str`](super::Config::parse_str)) and its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file's path as given, or the text's name.
    pub file: String,
    /// The line, from 1 (the last line of a continued statement); 0 for
    /// the file as a whole, shown without a line.
    pub line: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Line 0 is no line: the file as a whole (a LOCAL_CONFIG_FILE
        // command, the environment).
        match self.line {
            0 => write!(f, "{}", self.file),
            line => write!(f, "{}, line {line}", self.file),
        }
    }
}

/// An error reading a configuration or converting one of its values.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A statement that cannot be read: a line without `=`, an invalid
    /// name, an `if` without `endif`, an unknown metaknob, a line over the
    /// size limit, an `error :` statement, ...
    #[error("{at}: {}", classad::excerpt::quote(message))]
    Syntax {
        /// The statement.
        at: Location,
        /// What is wrong.
        message: String,
    },
    /// `include command : CMD`, or a configuration file named `CMD |`:
    /// this reader runs no commands.
    #[error(
        "{at}: '{}' refused: configuration commands are not run (write their output to a file and include that)",
        classad::excerpt::quote(statement)
    )]
    Include {
        /// The statement.
        at: Location,
        /// The statement's text.
        statement: String,
    },
    /// A file that cannot be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file, or a value after expansion, over its size limit.
    #[error("{what} is larger than the limit of {limit} bytes")]
    TooLarge {
        /// What was too large.
        what: String,
        /// The limit.
        limit: usize,
    },
    /// A name neither the files nor HTCondor's defaults define.
    #[error("{name} is not defined")]
    Undefined {
        /// The name asked for.
        name: String,
    },
    /// Macro expansion that does not end within the limits or grows past
    /// them (a cycle is [`ConfigError::Cycle`]).
    #[error("expanding {}: {}", classad::excerpt::quote(name), classad::excerpt::quote(message))]
    Expansion {
        /// The name being expanded.
        name: String,
        /// What went wrong.
        message: String,
    },
    /// Macros that refer back to themselves (`A = $(B)`, `B = $(A)`): the
    /// chain, from a name back to itself, each with where it is set.
    /// HTCondor expands such a value for ever.
    #[error("expanding {}: macro cycle: {}", classad::excerpt::quote(name), super::cycle::describe(chain))]
    Cycle {
        /// The name (or text) being expanded.
        name: String,
        /// The names of the cycle, in order; the last refers to the first.
        chain: Vec<CycleLink>,
    },
    /// A value that is not of the type asked for.
    #[error(
        "{} = {} (set at {set_at}): {}",
        classad::excerpt::quote(name),
        classad::excerpt::quote(value),
        classad::excerpt::quote(message)
    )]
    BadValue {
        /// The name.
        name: String,
        /// Its expanded value.
        value: String,
        /// Where it was set: `file, line N`, `<Default>`, ...
        set_at: String,
        /// What was expected.
        message: String,
    },
}

impl ConfigError {
    pub(crate) fn syntax(at: Location, message: impl Into<String>) -> ConfigError {
        ConfigError::Syntax { at, message: message.into() }
    }
}
