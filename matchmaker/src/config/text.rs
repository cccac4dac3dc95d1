//! Reading one configuration file's text, bounded: the size limit, regular
//! files only, no commands.

use std::io::Read as _;

use super::error::ConfigError;
use super::Config;

/// One file's text, within the size limit; `None` when it is missing and
/// not `required`. A name ending in `|` (a command) is refused.
pub(super) fn read_text(config: &Config, file: &str, required: bool) -> Result<Option<String>, ConfigError> {
    if file.trim_end().ends_with('|') {
        return Err(ConfigError::Include {
            at: super::Location { file: file.to_string(), line: 0 },
            statement: format!("configuration command {file}"),
        });
    }
    let f = match std::fs::File::open(file) {
        Ok(f) => f,
        Err(_) if !required => return Ok(None),
        Err(e) => return Err(ConfigError::Io { file: file.to_string(), source: e }),
    };
    // A pipe or a terminal could keep us waiting for ever: only regular
    // files (and /dev/null, which some sites name to read nothing).
    let meta = f.metadata().map_err(|e| ConfigError::Io { file: file.to_string(), source: e })?;
    if !meta.is_file() {
        if file == "/dev/null" {
            return Ok(Some(String::new()));
        }
        let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file");
        return Err(ConfigError::Io { file: file.to_string(), source: e });
    }
    let limit = config.limits.max_file;
    if meta.len() > limit as u64 {
        return Err(ConfigError::TooLarge { what: file.to_string(), limit });
    }
    let mut bytes = Vec::new();
    f.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ConfigError::Io { file: file.to_string(), source: e })?;
    if bytes.len() > limit {
        return Err(ConfigError::TooLarge { what: file.to_string(), limit });
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}
