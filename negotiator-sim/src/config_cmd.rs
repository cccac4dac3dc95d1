//! Placeholder, filled in by the module's author.

use std::process::ExitCode;

/// Arguments.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the command.
pub fn run(_args: Args) -> ExitCode {
    ExitCode::FAILURE
}
