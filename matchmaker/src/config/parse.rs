//! Statements: `NAME = value`, `NAME @=tag` ... `@tag`, `use CAT : KNOB`,
//! `if` ... `endif`, `error :`, `warning :` and `include [ifexist] : FILE`
//! (`include command :` refused: no commands are run), read as HTCondor
//! 23.9 reads them.
//!
//! A name ends at the first blank, `=` or `:`; words between it and the
//! operator are ignored, as HTCondor does (so `A += b` sets `A` to `b`).
//! The name may hold macros, expanded when the statement is read. A value
//! refers to its own previous value through `$(NAME)`; that reference is
//! expanded at once, all others when the value is asked for. A value equal
//! to HTCondor's default for a name not set before is not stored (it
//! stays `<Default>`, as in `condor_config_val -v`).

use std::sync::Arc;

use super::conditional::IfStack;
use super::error::{ConfigError, Location};
use super::expand::{expand, Mode};
use super::lines::{is_space, LineReader};
use super::metaknobs;
use super::source::{MetaOrigin, Source};
use super::Config;

/// How deep metaknobs may use metaknobs.
const MAX_DEPTH: usize = 20;

/// Where the statements being read come from.
#[derive(Clone)]
struct Origin {
    file: Arc<str>,
    /// The line of the statement (of the top-level `use` inside a metaknob).
    line: u32,
    meta: Option<MetaOrigin>,
}

impl Origin {
    fn location(&self) -> Location {
        Location { file: self.file.to_string(), line: self.line }
    }
    fn source(&self) -> Source {
        Source::File { file: self.file.clone(), line: self.line, meta: self.meta.clone() }
    }
}

/// Reads the statements of a file's text into `config`.
pub(crate) fn parse_text(config: &mut Config, text: &str, file: &str) -> Result<(), ConfigError> {
    parse_text_at(config, text, file, 0)
}

/// [`parse_text`] for a file `depth` includes deep.
fn parse_text_at(config: &mut Config, text: &str, file: &str, depth: usize) -> Result<(), ConfigError> {
    let mut origin = Origin { file: Arc::from(file), line: 0, meta: None };
    let mut reader = LineReader::new(text, config.limits.max_line);
    let mut state = State::default();
    loop {
        let line = match reader.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => {
                return Err(ConfigError::syntax(
                    Location { file: file.to_string(), line: e.line },
                    format!("line longer than the limit of {} bytes", config.limits.max_line),
                ))
            }
        };
        origin.line = reader.line();
        statement(config, &mut state, &line, &origin, depth, false)?;
    }
    origin.line = reader.line();
    state.finish(&origin)
}

/// What a reader keeps between statements.
#[derive(Default)]
struct State {
    ifs: IfStack,
    /// An open `NAME @=tag`: name, tag, lines so far.
    here: Option<(String, String, String)>,
}

impl State {
    fn finish(&self, origin: &Origin) -> Result<(), ConfigError> {
        if let Some((_, tag, _)) = &self.here {
            return Err(ConfigError::syntax(origin.location(), format!("end of file while looking for '@{tag}'")));
        }
        if self.ifs.inside() {
            return Err(ConfigError::syntax(origin.location(), "endif(s) not found before end-of-file"));
        }
        Ok(())
    }
}

/// Reads one statement.
fn statement(
    config: &mut Config,
    state: &mut State,
    line: &str,
    origin: &Origin,
    depth: usize,
    in_meta: bool,
) -> Result<(), ConfigError> {
    if line.starts_with('#') || line.trim_matches(is_space).is_empty() {
        return Ok(());
    }
    if let Some((name, tag, data)) = &mut state.here {
        if line.strip_prefix('@') == Some(tag.as_str()) {
            let (name, _, data) = state.here.take().unwrap_or_default();
            let value = self_expand(config, &data, &name, origin)?;
            config.insert(&name, value, origin.source(), false);
        } else {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(line);
            if data.len() > config.limits.max_value {
                return Err(ConfigError::syntax(
                    origin.location(),
                    format!("value of {name} longer than the limit of {} bytes", config.limits.max_value),
                ));
            }
        }
        return Ok(());
    }
    let mut line = line;
    if let Some(rest) = line.strip_prefix(':') {
        // HTCondor strips the ':' of a line inside an if, and of ':if'
        // (lower case only) anywhere, so old readers skip those lines.
        let is_if = rest.starts_with("if") && rest[2..].chars().next().is_none_or(is_space);
        if state.ifs.inside() || is_if {
            line = rest;
        }
    }
    let mut warnings = Vec::new();
    if let Some(result) = state.ifs.handle(line, config, &mut warnings) {
        config.warn_all(warnings, &origin.location());
        return result.map_err(|m| ConfigError::syntax(origin.location(), m));
    }
    if !state.ifs.enabled() {
        return Ok(());
    }

    // The name: up to a blank, '=' or ':'.
    let b = line.as_bytes();
    let mut p = 0;
    while p < b.len() && !(b[p].is_ascii_whitespace() || b[p] == b'=' || b[p] == b':') {
        p += 1;
    }
    if p == b.len() {
        if line.starts_with('[') {
            return Ok(()); // a Windows .ini section header: ignored
        }
        return Err(ConfigError::syntax(origin.location(), format!("no '=' or ':' in '{}'", shorten(line))));
    }
    let name_part = &line[..p];
    let mut before_op = name_part.to_string();
    let mut op = b[p];
    let mut q = p;
    if op.is_ascii_whitespace() {
        // Skip to the operator; words on the way are ignored.
        while q < b.len() && !(b[q] == b'=' || b[q] == b':' || (b[q] == b'@' && b.get(q + 1) == Some(&b'='))) {
            q += 1;
        }
        if q == b.len() {
            return Err(ConfigError::syntax(origin.location(), format!("no '=' or ':' in '{}'", shorten(line))));
        }
        before_op = line[..q].to_string();
        op = b[q];
        if op == b'@' {
            q += 1;
        }
    }
    let rhs = line[q + 1..].trim_start_matches(is_space);

    let has_at = name_part.starts_with('@');
    let keyword = &name_part[usize::from(has_at)..];
    if op == b':' && keyword.eq_ignore_ascii_case("include") {
        return include(config, &before_op[has_at as usize + 7..], rhs, origin, depth, in_meta, line);
    }
    if op == b':' && (keyword.eq_ignore_ascii_case("error") || keyword.eq_ignore_ascii_case("warning")) {
        let mut warnings = Vec::new();
        let msg =
            expand(config, rhs, Mode::All, &mut warnings).map_err(|m| ConfigError::syntax(origin.location(), m))?;
        if keyword.eq_ignore_ascii_case("error") {
            return Err(ConfigError::syntax(origin.location(), format!("error: {msg}")));
        }
        config.warnings.push(format!("Config source Warning \"{}\", Line {}: {msg}", origin.file, origin.line));
        return Ok(());
    }
    if op == b':' && keyword.eq_ignore_ascii_case("use") {
        // The category is the text between 'use' and ':'.
        let category_text = before_op[has_at as usize + 3..].trim_matches(is_space);
        let mut warnings = Vec::new();
        let category = if in_meta {
            category_text.to_string()
        } else {
            expand(config, category_text, Mode::All, &mut warnings)
                .map_err(|m| ConfigError::syntax(origin.location(), m))?
        };
        config.warn_all(warnings, &origin.location());
        return use_metaknobs(config, &category, rhs, origin, depth);
    }

    if op == b':' && !in_meta && !name_part.eq_ignore_ascii_case("RunBenchmarks") {
        // Accepted as '=', with HTCondor's warning.
        config.warnings.push(format!(
            "Config source Warning \"{}\", Line {}: obsolete use of ':' for parameter assignment at {name_part} : {rhs}",
            origin.file, origin.line
        ));
    }
    let name = if in_meta || !name_part.contains('$') {
        name_part.to_string()
    } else {
        let mut warnings = Vec::new();
        let n = expand(config, name_part, Mode::All, &mut warnings)
            .map_err(|m| ConfigError::syntax(origin.location(), m))?;
        config.warn_all(warnings, &origin.location());
        n
    };
    if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/')) {
        return Err(ConfigError::syntax(origin.location(), format!("illegal name <{name}>")));
    }
    if op == b'@' {
        state.here = Some((name, rhs.to_string(), String::new()));
        return Ok(());
    }
    if rhs.len() > config.limits.max_value {
        return Err(ConfigError::syntax(
            origin.location(),
            format!("value of {name} longer than the limit of {} bytes", config.limits.max_value),
        ));
    }
    let value = self_expand(config, rhs, &name, origin)?;
    config.insert(&name, value, origin.source(), false);
    Ok(())
}

fn self_expand(config: &Config, value: &str, name: &str, origin: &Origin) -> Result<String, ConfigError> {
    let mut warnings = Vec::new();
    expand(config, value, Mode::SelfOnly(name), &mut warnings).map_err(|m| ConfigError::syntax(origin.location(), m))
}

/// `use CATEGORY : KNOB(args), ...`.
fn use_metaknobs(
    config: &mut Config,
    category: &str,
    rhs: &str,
    origin: &Origin,
    depth: usize,
) -> Result<(), ConfigError> {
    if category.is_empty() {
        return Err(ConfigError::syntax(origin.location(), format!("use needs a category before ':' ({rhs})")));
    }
    if !metaknobs::is_category(category) {
        return Err(ConfigError::syntax(origin.location(), format!("use {category}: no such metaknob category")));
    }
    if depth >= MAX_DEPTH {
        return Err(ConfigError::syntax(origin.location(), format!("use {category}:{rhs}: metaknobs nested too deep")));
    }
    for (knob_name, args) in metaknobs::split_uses(rhs) {
        let Some(knob) = metaknobs::find(category, &knob_name) else {
            return Err(ConfigError::syntax(
                origin.location(),
                format!("use {category}: does not recognise {knob_name}"),
            ));
        };
        let text = if !args.is_empty() || metaknobs::has_args(&knob.text) {
            metaknobs::substitute_args(&knob.text, &args)
        } else {
            knob.text.clone()
        };
        let mut state = State::default();
        let mut inner = origin.clone();
        let mut offset = 0u32;
        for raw in text.split('\n') {
            let line = raw.trim_matches(is_space);
            if line.is_empty() {
                continue;
            }
            inner.meta = Some(MetaOrigin { category: knob.category.clone(), knob: knob.name.clone(), offset });
            offset += 1;
            statement(config, &mut state, line, &inner, depth + 1, true).map_err(|e| match e {
                ConfigError::Syntax { at, message } => {
                    ConfigError::Syntax { at, message: format!("in use {}:{}: {message}", knob.category, knob.name) }
                }
                other => other,
            })?;
        }
        state.finish(&inner)?;
    }
    Ok(())
}

/// The first 80 characters of a statement, for messages.
fn shorten(line: &str) -> String {
    match line.char_indices().nth(80) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}

/// `include [ifexist] : FILE`: the file's statements, read here. A missing
/// file is an error unless `ifexist`; `include command :` (and `output`)
/// would run a command, and are refused.
fn include(
    config: &mut Config,
    options: &str,
    rhs: &str,
    origin: &Origin,
    depth: usize,
    in_meta: bool,
    line: &str,
) -> Result<(), ConfigError> {
    let mut words = options.split(is_space).filter(|w| !w.is_empty()).peekable();
    let if_exists = words.next_if(|w| *w == "ifexist" || *w == "ifexists").is_some();
    match words.next() {
        None => {}
        Some("command" | "output") => {
            return Err(ConfigError::Include { at: origin.location(), statement: shorten(line) });
        }
        Some(other) => {
            return Err(ConfigError::syntax(origin.location(), format!("unexpected '{other}' in '{}'", shorten(line))));
        }
    }
    if in_meta {
        return Err(ConfigError::syntax(origin.location(), "include inside a metaknob"));
    }
    let mut warnings = Vec::new();
    let file = expand(config, rhs.trim_end_matches(is_space), Mode::All, &mut warnings)
        .map_err(|m| ConfigError::syntax(origin.location(), m))?;
    config.warn_all(warnings, &origin.location());
    if file.is_empty() {
        return Err(ConfigError::syntax(origin.location(), "include of an empty file name"));
    }
    if depth + 1 >= MAX_DEPTH {
        return Err(ConfigError::syntax(
            origin.location(),
            format!("includes nested too deep (more than {MAX_DEPTH})"),
        ));
    }
    match super::text::read_text(config, &file, !if_exists)? {
        Some(text) => {
            config.local_files.push(file.clone());
            parse_text_at(config, &text, &file, depth + 1)
        }
        None => Ok(()),
    }
}
