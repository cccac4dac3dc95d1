//! `negotiator-sim`: the command-line shell of the matchmaker.
//!
//! ```text
//! negotiator-sim config [--config FILE] [-v] [--dump] [NAME...]
//! negotiator-sim userprio [--log FILE] [--config FILE] [--now EPOCH] [--all] [--json] [edits]
//! ```

mod config_cmd;
mod userprio_cmd;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "negotiator-sim", version, about = "HTCondor's negotiator, its configuration and user priorities")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print configuration values as condor_config_val does.
    Config(config_cmd::Args),
    /// Show and edit user priorities as condor_userprio does.
    Userprio(userprio_cmd::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Config(args) => config_cmd::run(args),
        Command::Userprio(args) => userprio_cmd::run(args),
    }
}
