//! Where a value comes from.

use std::fmt;
use std::sync::Arc;

/// The metaknob a value was set by: `use POLICY : PREEMPT_IF(...)` sets
/// `PREEMPT` on line 4 of the `PREEMPT_IF` text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaOrigin {
    /// The category as HTCondor's table spells it (`POLICY`).
    pub category: Arc<str>,
    /// The knob as HTCondor's table spells it (`PREEMPT_IF`).
    pub knob: Arc<str>,
    /// The statement's line in the knob's text, from 0.
    pub offset: u32,
}

/// Where a value was set, printed as `condor_config_val -v` prints it.
///
/// ```
/// use matchmaker::config::Config;
/// let c = Config::parse_str("A = 1\n", "site.conf")?;
/// assert_eq!(c.lookup("A").unwrap().source.to_string(), "site.conf, line 1");
/// assert_eq!(c.lookup("PRIORITY_HALFLIFE").unwrap().source.to_string(), "<Default>");
/// # Ok::<(), matchmaker::config::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Source {
    /// HTCondor's built-in default.
    Default,
    /// Found by looking around (`CONFIG_ROOT`).
    Detected,
    /// A `_CONDOR_NAME` environment variable.
    Environment,
    /// A statement of a file.
    File {
        /// The file.
        file: Arc<str>,
        /// The line (of the `use` statement for a metaknob's values).
        line: u32,
        /// The metaknob whose text set it, if one did.
        meta: Option<MetaOrigin>,
    },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("<Default>"),
            Source::Detected => f.write_str("<Detected>"),
            Source::Environment => f.write_str("<Environment>"),
            Source::File { file, line, meta } => {
                write!(f, "{file}, line {line}")?;
                if let Some(m) = meta {
                    write!(f, ", use {}:{}+{}", m.category, m.knob, m.offset)?;
                }
                Ok(())
            }
        }
    }
}
