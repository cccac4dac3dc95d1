//! `condor_config_val`'s output: the answers to name queries (plain and
//! `-v`) and `-dump`, byte for byte as HTCondor 23.9 prints them.
//!
//! ```
//! use matchmaker::config::{tool, Config};
//! let c = Config::parse_str("A = $(B) one\nB = 1\n", "site.conf")?;
//! let out = tool::query(&c, &["a", "nope"], true);
//! assert_eq!(out.stdout, "A = 1 one\n # at: site.conf, line 1\n # raw: A = $(B) one\n\n\n");
//! assert_eq!(out.stderr, "Not defined: NOPE\n");
//! assert_eq!(out.exit_code, 1);
//! # Ok::<(), matchmaker::config::ConfigError>(())
//! ```

use std::fmt::Write;

use super::defaults::Defaults;
use super::lines::is_space;
use super::memo::Memo;
use super::Config;

/// What the tool prints and its exit status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit status: 1 if a name asked for is not defined or its macros
    /// cannot be expanded (a cycle), else 0.
    pub exit_code: i32,
}

/// `"NAME @=tag\n<indent>line..."`'s value part: the lines of a multi-line
/// value, each on its own line after `indent`, or `"= value"`.
fn print_value(value: &str, indent: &str, tag: Option<&str>) -> String {
    if value.contains('\n') {
        return indent_lines(value, indent, tag);
    }
    let mut s = String::new();
    if tag.is_some() {
        s.push_str("= ");
    }
    s.push_str(value);
    s
}

fn indent_lines(value: &str, indent: &str, tag: Option<&str>) -> String {
    let mut s = String::new();
    if let Some(t) = tag {
        s.push_str("@=");
        s.push_str(t);
    }
    // HTCondor's line splitting trims each line and drops empty ones.
    for line in value.split('\n').map(|l| l.trim_matches(is_space)).filter(|l| !l.is_empty()) {
        s.push('\n');
        s.push_str(indent);
        s.push_str(line);
    }
    if let Some(t) = tag {
        s.push_str("\n@");
        s.push_str(t);
    }
    s
}

/// The warnings of reading, one a line, as HTCondor prints them first.
fn warnings(config: &Config) -> String {
    config.warnings().iter().map(|w| format!("{w}\n")).collect()
}

/// `condor_config_val [-v] NAME...`: each value expanded; with `verbose`,
/// as `NAME = value` with where it was set and its raw text. A name that
/// is undefined or expands to nothing is reported on standard error and
/// makes the exit status 1, and so does one whose macros cannot be
/// expanded (`Error: expanding A: macro cycle: A -> B -> A (...)`). Warnings of reading come first on standard
/// error.
pub fn query(config: &Config, names: &[&str], verbose: bool) -> Output {
    let mut out = Output { stderr: warnings(config), ..Output::default() };
    for &asked in names {
        let (found, error) = match config.lookup_in(asked, &mut Memo::new(config)) {
            Some((l, e)) => (Some(l), e),
            None => (None, None),
        };
        let name_used = found.as_ref().map_or_else(|| asked.to_ascii_uppercase(), |l| l.name.clone());
        let value = found.as_ref().map(|l| l.value.as_str()).filter(|v| !v.is_empty());
        match value {
            None if error.is_some() => {
                if let Some(e) = &error {
                    let _ = writeln!(out.stderr, "Error: {e}");
                }
                out.exit_code = 1;
            }
            None => {
                let _ = writeln!(out.stderr, "Not defined: {name_used}");
                out.exit_code = 1;
            }
            Some(v) if verbose => {
                let _ = writeln!(out.stdout, "{name_used} {}", print_value(v, "   ", Some("end")));
            }
            Some(v) => {
                let _ = writeln!(out.stdout, "{v}");
            }
        }
        if verbose {
            if let Some(l) = &found {
                let _ = writeln!(out.stdout, " # at: {}", l.source);
                let raw = format!("{} = {}", l.name, l.raw);
                let _ = writeln!(out.stdout, " # raw: {}", print_value(&raw, " #   ", None));
            }
            out.stdout.push('\n');
        }
    }
    out
}

/// `condor_config_val -dump [-v]`: every name (HTCondor's defaults
/// included), sorted ignoring case, with its raw value; with `verbose`,
/// where each was set, its expansion and its default; without, the list of
/// files read at the end.
pub fn dump(config: &Config, verbose: bool) -> Output {
    let host = host_name(config).unwrap_or_else(|| "<unknown hostname>".to_string());
    dump_with_header(config, verbose, &format!("# Configuration from machine: {host}"))
}

/// The configuration's `FULL_HOSTNAME`, when it sets one (not empty).
pub fn host_name(config: &Config) -> Option<String> {
    config.lookup("FULL_HOSTNAME").map(|l| l.value).filter(|v| !v.is_empty())
}

/// [`dump`] with this first line (`# Configuration from machine: HOST`, or
/// `# Configuration from negotiator on HOST` for a daemon's view): the
/// header [`Loader::load_file`](super::Loader::load_file) recognizes a dump
/// by.
pub fn dump_with_header(config: &Config, verbose: bool, header: &str) -> Output {
    // One memo for the whole dump: a chain of macros is expanded once.
    dump_with_memo(config, verbose, header, &mut Memo::new(config))
}

fn dump_with_memo(config: &Config, verbose: bool, header: &str, memo: &mut Memo) -> Output {
    let mut out = Output { stderr: warnings(config), ..Output::default() };
    let _ = writeln!(out.stdout, "{}", header.lines().next().unwrap_or_default());
    for name in config.names() {
        let Some((l, error)) = config.lookup_in(&name, memo) else { continue };
        if let (true, Some(e)) = (verbose, &error) {
            let _ = writeln!(out.stderr, "Error: {e}");
        }
        let s = &mut out.stdout;
        let here = l.multi_line || l.raw.contains('\n');
        if here {
            let _ = writeln!(s, "{} @=end{}\n@end", l.name, indent_lines(&l.raw, "   ", None));
        } else {
            let _ = writeln!(s, "{} = {}", l.name, l.raw);
        }
        if verbose {
            let _ = writeln!(s, " # at: {}", l.source);
            let expanded =
                if l.value.contains('\n') { indent_lines(&l.value, " #     ", None) } else { l.value.clone() };
            let _ = writeln!(s, " # expanded: {expanded}");
            if let Some(def) = Defaults::get().value(&l.name) {
                let def = if def.contains('\n') { indent_lines(def, " #     ", None) } else { def.to_string() };
                let _ = writeln!(s, " # default: {def}");
            }
        }
    }
    if !verbose {
        let s = &mut out.stdout;
        let _ = writeln!(s, "# Contributing configuration file(s):");
        for f in config.files() {
            let _ = writeln!(s, "#\t{f}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain `A0 = x`, `A1 = $(A0)`, ... of `n` values.
    fn chain(n: usize) -> Config {
        let mut text = String::from("A0 = x\n");
        for i in 1..n {
            text.push_str(&format!("A{i} = $(A{})\n", i - 1));
        }
        Config::parse_str(&text, "chain.conf").expect("reads")
    }

    fn dump_work(n: usize) -> (Output, usize) {
        let config = chain(n);
        let mut memo = Memo::new(&config);
        let out = dump_with_memo(&config, true, "# Configuration from machine: test", &mut memo);
        (out, memo.work)
    }

    #[test]
    fn dumping_a_chain_is_linear() {
        let (_, base) = dump_work(1);
        let (out, work) = dump_work(20_000);
        // Each link expanded once (a few units each), not once per value
        // that uses it (200 million).
        let per_link = (work - base) / 20_000;
        assert!(per_link <= 8, "{per_link} units of work per link");
        let (_, work2) = dump_work(40_000);
        assert!((work2 - base) <= 2 * (work - base) + 20_000, "{work} for 20,000, {work2} for 40,000");
        // The values are those of HTCondor's expansion, within the limits:
        // A9999 takes 9,999 replacements, A10001 more than the 10,000
        // allowed.
        assert!(out.stdout.contains("A9999 = $(A9998)\n # at: chain.conf, line 10000\n # expanded: x\n"));
        assert!(out.stdout.contains("A10001 = $(A10000)\n # at: chain.conf, line 10002\n # expanded: \n"));
        assert!(out.stderr.contains("Error: expanding A10001: macro expansion does not end within the limits"));
        assert!(!out.stderr.contains("cycle"), "{}", &out.stderr[..out.stderr.len().min(500)]);
    }
}
