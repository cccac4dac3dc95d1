//! `negotiator-sim`: the command-line shell of the matchmaker.
//!
//! ```text
//! negotiator-sim config [--config FILE] [-v] [--dump] [NAME...]
//! negotiator-sim userprio [--log FILE] [--config FILE] [--now EPOCH] [--all] [--json] [edits]
//! negotiator-sim cycle --slots FILE --jobs FILE [--config FILE]... [--accountant LOG | --userprio FILE] [--json]
//! negotiator-sim bench --slots N --jobs N --users N [--autoclusters N] [--lean] [--json]
//! negotiator-sim generate --slots N --jobs N --users N [--autoclusters N] [--lean] [--base-time EPOCH] --out DIR
//! negotiator-sim policy --config FILE --job JOB.ad [--slot SLOT.ad] --trace EVENTS [--start EPOCH] [--json]
//! negotiator-sim transform [--config FILE] [--rules FILE]... [--jobtransforms NAMES]... [--submit-requirements] [--json] [KEY=VALUE]... JOBS...
//! negotiator-sim simulate SCENARIO.toml [--seed N] [--out DIR] [--until DURATION] [--quiet] [--timings]
//! negotiator-sim compare A.toml B.toml [--seed N] [--until DURATION] [--out DIR] [--quiet]
//! negotiator-sim slots [--config FILE] [--machine FILE] [--cpus N --memory MB --disk KB ...] [--claim JOBS]... [--json]
//! negotiator-sim report DIR [--out DIR] [--title TEXT] [--no-png] [--compare B_DIR]
//! ```

mod bench_cmd;
mod compare_cmd;
mod config_cmd;
mod cycle_cmd;
mod generate_cmd;
mod policy_cmd;
mod report_cmd;
mod simulate_cmd;
mod slots_cmd;
mod transform_cmd;
mod userprio_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

// Cycles and simulations allocate and free many small ads and vectors;
// mimalloc does that in well under the time of the system allocator
// (a simulated year of the 10,000-slot example spent a quarter of its
// time in glibc's malloc and free).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "negotiator-sim", version, about = "HTCondor's negotiator, its configuration and user priorities")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per run
enum Command {
    /// Print configuration values as condor_config_val does.
    Config(config_cmd::Args),
    /// Show and edit user priorities as condor_userprio does.
    Userprio(userprio_cmd::Args),
    /// Run one negotiation cycle on a pool snapshot.
    Cycle(cycle_cmd::Args),
    /// Write the synthetic pool of the negotiation benchmark (slots, jobs,
    /// user priorities) to files.
    Generate(generate_cmd::Args),
    /// Time one cycle on the negotiation benchmark's synthetic pool.
    Bench(bench_cmd::Args),
    /// Drive one slot through a trace of events under a startd policy and
    /// print its states, activities and actions with their causes.
    Policy(policy_cmd::Args),
    /// Transform job ads as condor_transform_ads and the schedd's
    /// JOB_TRANSFORM_NAMES do; check submit requirements.
    Transform(transform_cmd::Args),
    /// Print the slot ads a startd would advertise for a machine and a
    /// configuration (optionally after jobs claim dynamic slots).
    Slots(slots_cmd::Args),
    /// Write the HTML report and charts of a results directory (CSV
    /// tables); compare it with another run's.
    Report(report_cmd::Args),
    /// Simulate a pool over time with the real negotiation cycle.
    Simulate(simulate_cmd::Args),
    /// Simulate two scenarios (two policies on one workload) and compare
    /// how their users fared.
    Compare(compare_cmd::Args),
}

/// HTCondor's tools spell long options with one dash (`-setprio`,
/// `-allusers`, `-dump`); they are read as their `--` forms. One-letter
/// options (`-l`, `-v`) and negative numbers are left alone, and nothing
/// after `--` is touched.
fn htcondor_spellings(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
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

fn main() -> ExitCode {
    let cli = Cli::parse_from(htcondor_spellings(std::env::args_os()));
    // The main thread is one of rayon's threads: it takes its share of a
    // parallel step instead of waiting, and no extra thread competes with
    // it for the cores between parallel steps. (Fails only when a pool
    // exists already, and then that one is used.)
    let _ = rayon::ThreadPoolBuilder::new().use_current_thread().build_global();
    match cli.command {
        Command::Config(args) => config_cmd::run(args),
        Command::Userprio(args) => userprio_cmd::run(args),
        Command::Cycle(args) => cycle_cmd::run(args),
        Command::Generate(args) => generate_cmd::run(args),
        Command::Bench(args) => bench_cmd::run(args),
        Command::Policy(args) => policy_cmd::run(args),
        Command::Transform(args) => transform_cmd::run(args),
        Command::Slots(args) => slots_cmd::run(args),
        Command::Report(args) => report_cmd::run(args),
        Command::Simulate(args) => simulate_cmd::run(args),
        Command::Compare(args) => compare_cmd::run(args),
    }
}
