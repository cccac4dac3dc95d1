//! The subcommands, one module each, and the command line they are
//! chosen from. A command module builds on the libraries (this crate's,
//! `matchmaker`, `classad`), never on another command module; what two
//! commands share lives in a library, or here when it is command-line
//! only ([`pool_args`], [`size_limits`]).

mod bench;
mod compare;
mod config;
mod cycle;
mod generate;
mod policy;
mod pool_args;
mod report;
mod simulate;
mod size_limits;
mod slots;
pub mod stdout;
mod transform;
mod userprio;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "negotiator-sim", version, about = "HTCondor's negotiator, its configuration and user priorities")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Most bytes in one input file read whole (rules, traces, scenarios,
    /// machine descriptions, accountant logs, ads); 64 MiB by default.
    #[arg(long, global = true, value_name = "BYTES")]
    pub max_input_size: Option<u64>,
}

impl Cli {
    /// Puts the limits asked for in force for the process.
    pub fn install_limits(&self) {
        if let Some(max_file) = self.max_input_size {
            classad::bounded_file::FileLimits { max_file, ..classad::bounded_file::FileLimits::current() }.install();
        }
    }
}

#[derive(Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per run
pub enum Command {
    /// Print configuration values as condor_config_val does.
    Config(config::Args),
    /// Show and edit user priorities as condor_userprio does.
    Userprio(userprio::Args),
    /// Run one negotiation cycle on a pool snapshot.
    Cycle(cycle::Args),
    /// Write the synthetic pool of the negotiation benchmark (slots, jobs,
    /// user priorities) to files.
    Generate(generate::Args),
    /// Time one cycle on the negotiation benchmark's synthetic pool.
    Bench(bench::Args),
    /// Drive one slot through a trace of events under a startd policy and
    /// print its states, activities and actions with their causes.
    Policy(policy::Args),
    /// Transform job ads as condor_transform_ads and the schedd's
    /// JOB_TRANSFORM_NAMES do; check submit requirements.
    Transform(transform::Args),
    /// Print the slot ads a startd would advertise for a machine and a
    /// configuration (optionally after jobs claim dynamic slots).
    Slots(slots::Args),
    /// Write the HTML report and charts of a results directory (CSV or
    /// Parquet tables); compare it with another run's.
    Report(report::Args),
    /// Simulate a pool over time with the real negotiation cycle.
    Simulate(simulate::Args),
    /// Simulate two scenarios (two policies on one workload) and compare
    /// how their users fared.
    Compare(compare::Args),
}

/// HTCondor's tools spell long options with one dash (`-setprio`,
/// `-allusers`, `-dump`); they are read as their `--` forms. One-letter
/// options (`-l`, `-v`) and negative numbers are left alone, and nothing
/// after `--` is touched.
pub fn htcondor_spellings(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut rest_is_operands = false;
    args.map(|arg| {
        if rest_is_operands {
            return arg;
        }
        match arg.to_str() {
            Some("--") => {
                rest_is_operands = true;
                arg
            }
            Some(s) if s.len() > 2 && s.starts_with('-') && s.as_bytes()[1].is_ascii_alphabetic() => {
                format!("-{s}").into()
            }
            _ => arg,
        }
    })
    .collect()
}

/// Ends the process with clap's message for `error`, every option named in
/// it as it was typed: `-negotiatr` and `-negotiator` when the user wrote
/// one dash (which [`htcondor_spellings`] had read as `--negotiatr` and
/// `--negotiator`), in the error, its tip and the usage line alike.
pub fn exit_with_spellings(error: clap::Error, given: &[std::ffi::OsString]) -> ! {
    use clap::error::ErrorKind;
    if matches!(error.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        error.exit();
    }
    eprint!("{}", as_typed(&error.render().to_string(), given));
    std::process::exit(error.exit_code())
}

/// `text` with each option the user typed with one dash (`-negotiator`)
/// written so again where it names it in its `--` form.
fn as_typed(text: &str, given: &[std::ffi::OsString]) -> String {
    let mut text = text.to_string();
    for arg in given.iter().filter_map(|a| a.to_str()) {
        if arg.len() > 2 && arg.starts_with('-') && !arg.starts_with("--") && arg.as_bytes()[1].is_ascii_alphabetic() {
            let typed = arg.split('=').next().unwrap_or(arg);
            text = replace_option(&text, &format!("-{typed}"), typed);
        }
    }
    text
}

/// `text` with the option `from` (`--negotiator`) replaced by `to` where it
/// stands alone: not where it is the start of a longer option
/// (`--negotiator-x`) or the end of one.
fn replace_option(text: &str, from: &str, to: &str) -> String {
    let part_of_name = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + from.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(part_of_name) || after.is_some_and(part_of_name) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

impl Command {
    /// Runs the subcommand.
    pub fn run(self) -> ExitCode {
        match self {
            Command::Config(args) => config::run(args),
            Command::Userprio(args) => userprio::run(args),
            Command::Cycle(args) => cycle::run(args),
            Command::Generate(args) => generate::run(args),
            Command::Bench(args) => bench::run(args),
            Command::Policy(args) => policy::run(args),
            Command::Transform(args) => transform::run(args),
            Command::Slots(args) => slots::run(args),
            Command::Report(args) => report::run(args),
            Command::Simulate(args) => simulate::run(args),
            Command::Compare(args) => compare::run(args),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_typed_with_one_dash_are_echoed_so() {
        let given: Vec<std::ffi::OsString> =
            ["negotiator-sim", "config", "-negotiator", "-bogus", "--dump"].iter().map(|s| s.into()).collect();
        let clap = "error: unexpected argument '--bogus' found\n\n  tip: to pass '--bogus' as a value, use '-- \
                    --bogus'\n\nUsage: negotiator-sim config --negotiator --negotiator-x --dump [NAME]...\n";
        assert_eq!(
            as_typed(clap, &given),
            "error: unexpected argument '-bogus' found\n\n  tip: to pass '-bogus' as a value, use '-- -bogus'\n\n\
             Usage: negotiator-sim config -negotiator --negotiator-x --dump [NAME]...\n"
        );
    }
}
