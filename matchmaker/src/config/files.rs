//! Following a top file: `CONFIG_ROOT`, `LOCAL_CONFIG_DIR`,
//! `LOCAL_CONFIG_FILE`, `REQUIRE_LOCAL_CONFIG_FILE` and the `_CONDOR_NAME`
//! environment overrides, in HTCondor's order.

use std::io::Read;
use std::path::Path;

use super::error::ConfigError;
use super::{parse, Config, Source};

/// Reads the top file `path` and everything it leads to into `config`.
pub(crate) fn load(config: &mut Config, path: &Path) -> Result<(), ConfigError> {
    let top = path.to_string_lossy().into_owned();
    let root = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_string_lossy().into_owned(),
        _ => ".".to_string(),
    };
    config.insert("CONFIG_ROOT", root, Source::Detected, false);
    let dump = is_dump(path);
    read_file(config, &top, true)?;
    config.global_file = Some(top);
    if dump {
        // `condor_config_val -dump` output is already the whole
        // configuration: its LOCAL_CONFIG_FILE and LOCAL_CONFIG_DIR name
        // the files of the machine it was taken on, read into it already,
        // and the environment it was taken in is in it too.
        config.dump = true;
        return Ok(());
    }

    let mut files_read = 0usize;
    let dirs = param(config, "LOCAL_CONFIG_DIR")?;
    if let Some(d) = &dirs {
        read_dirs(config, d, &mut files_read)?;
    }
    read_locals(config, &mut files_read)?;
    let new_dirs = param(config, "LOCAL_CONFIG_DIR")?;
    if let Some(d) = &new_dirs {
        if dirs.as_ref() != Some(d) {
            read_dirs(config, d, &mut files_read)?;
        }
    }

    for (k, v) in config.env_vars() {
        if k.len() > 8 && k[..8].eq_ignore_ascii_case("_condor_") {
            let name = k[8..].trim_end();
            if !name.is_empty() {
                config.set(name, v.trim_start(), Source::Environment)?;
            }
        }
    }
    Ok(())
}

/// Whether `path` is `condor_config_val -dump` output: its first line is
/// the dump's header, `# Configuration from machine: HOST` (a local read)
/// or `# Configuration from negotiator on HOST <ADDRESS>` (a daemon's
/// configuration, `-negotiator`, `-schedd`, ...).
pub(crate) fn is_dump(path: &Path) -> bool {
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    if f.take(256).read_to_end(&mut head).is_err() {
        return false;
    }
    let head = String::from_utf8_lossy(&head);
    let first = head.trim_start_matches('\u{feff}').lines().next().unwrap_or_default();
    first.starts_with("# Configuration from machine: ")
        || first.strip_prefix("# Configuration from ").is_some_and(|rest| rest.contains(" on "))
}

/// The expanded value of `name`, `None` if empty or undefined.
fn param(config: &Config, name: &str) -> Result<Option<String>, ConfigError> {
    match config.raw(name) {
        None => Ok(None),
        Some(raw) => {
            let v = config.expand(raw)?;
            Ok((!v.is_empty()).then_some(v))
        }
    }
}

/// Whether local files must exist.
fn required(config: &Config) -> bool {
    param(config, "REQUIRE_LOCAL_CONFIG_FILE")
        .ok()
        .flatten()
        .map(|v| {
            let v = v.trim();
            !(v.eq_ignore_ascii_case("false")
                || v.eq_ignore_ascii_case("f")
                || v.eq_ignore_ascii_case("no")
                || v == "0")
        })
        .unwrap_or(true)
}

/// HTCondor's list splitting: commas and blanks separate, empty items go.
fn split_list(list: &str) -> Vec<String> {
    list.split(|c: char| c == ',' || c.is_ascii_whitespace()).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

fn refuse_command(config: &Config, what: &str, value: &str) -> Result<(), ConfigError> {
    if value.trim_end().ends_with('|') {
        let at = match config.lookup(what).map(|l| l.source) {
            Some(Source::File { file, line, .. }) => super::Location { file: file.to_string(), line },
            _ => super::Location { file: "<environment>".to_string(), line: 0 },
        };
        return Err(ConfigError::Include { at, statement: format!("{what} = {value}") });
    }
    Ok(())
}

fn read_locals(config: &mut Config, files_read: &mut usize) -> Result<(), ConfigError> {
    let Some(value) = param(config, "LOCAL_CONFIG_FILE")? else {
        return Ok(());
    };
    refuse_command(config, "LOCAL_CONFIG_FILE", &value)?;
    let mut current = value;
    let mut todo = split_list(&current);
    let mut done: Vec<String> = Vec::new();
    let mut i = 0;
    while i < todo.len() {
        let file = todo[i].clone();
        count(config, files_read)?;
        // Listed even when missing and not required, as condor_config_val
        // lists it among the contributing files.
        config.local_files.push(file.clone());
        let must = required(config);
        read_file(config, &file, must)?;
        done.push(file);
        i += 1;
        if let Some(new) = param(config, "LOCAL_CONFIG_FILE")? {
            if new != current {
                refuse_command(config, "LOCAL_CONFIG_FILE", &new)?;
                todo = split_list(&new).into_iter().filter(|f| !done.contains(f)).collect();
                i = 0;
                current = new;
            }
        }
    }
    Ok(())
}

fn count(config: &Config, files_read: &mut usize) -> Result<(), ConfigError> {
    *files_read += 1;
    if *files_read > config.limits.max_files {
        return Err(ConfigError::TooLarge {
            what: "the number of local configuration files".to_string(),
            limit: config.limits.max_files,
        });
    }
    Ok(())
}

fn read_dirs(config: &mut Config, dirs: &str, files_read: &mut usize) -> Result<(), ConfigError> {
    let exclude = match param(config, "LOCAL_CONFIG_DIR_EXCLUDE_REGEXP")? {
        Some(re) => Some(regex::Regex::new(&re).map_err(|e| ConfigError::BadValue {
            name: "LOCAL_CONFIG_DIR_EXCLUDE_REGEXP".to_string(),
            value: re.clone(),
            set_at: config.lookup("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP").map(|l| l.source.to_string()).unwrap_or_default(),
            message: format!("not a valid regular expression: {e}"),
        })?),
        None => None,
    };
    for dir in split_list(dirs) {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue; // as HTCondor: a missing directory is skipped
        };
        let mut files = Vec::new();
        for entry in read.flatten() {
            if entry.file_type().map(|t| t.is_dir()).unwrap_or(true) {
                continue;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if exclude.as_ref().is_some_and(|re| re.is_match(&name)) {
                continue;
            }
            files.push(Path::new(&dir).join(&name).to_string_lossy().into_owned());
        }
        files.sort();
        for file in files {
            count(config, files_read)?;
            let must = required(config);
            read_file(config, &file, must)?;
            config.local_files.push(file);
        }
    }
    Ok(())
}

/// Reads one file; a missing one is an error only if `required`.
fn read_file(config: &mut Config, file: &str, required: bool) -> Result<(), ConfigError> {
    match super::text::read_text(config, file, required)? {
        Some(text) => parse::parse_text(config, &text, file),
        None => Ok(()),
    }
}
