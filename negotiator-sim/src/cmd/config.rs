//! `negotiator-sim config`: HTCondor's `condor_config_val` for a set of
//! configuration files, with the same output.

use std::path::PathBuf;
use std::process::ExitCode;

use matchmaker::config::{tool, Loader};

/// Arguments of `negotiator-sim config`.
#[derive(clap::Args)]
pub struct Args {
    /// The top configuration file (default: $CONDOR_CONFIG). Without one,
    /// only HTCondor's defaults.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Show where each value was set and its raw text.
    #[arg(short, long)]
    verbose: bool,
    /// Print every value (HTCondor's defaults included), raw.
    #[arg(long, alias = "dump-all")]
    dump: bool,
    /// The names to print, expanded.
    #[arg(value_name = "NAME")]
    names: Vec<String>,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    let file = args.config.or_else(|| std::env::var_os("CONDOR_CONFIG").map(PathBuf::from));
    let loader = Loader::new().subsystem("TOOL");
    let config = match &file {
        // condor_config_val reads as the TOOL subsystem.
        Some(f) => match loader.load_file(f) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("negotiator-sim config: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => loader.defaults(),
    };
    let out = if args.dump {
        tool::dump(&config, args.verbose)
    } else if args.names.is_empty() {
        eprintln!("negotiator-sim config: give names to print, or --dump");
        return ExitCode::from(2);
    } else {
        let names: Vec<&str> = args.names.iter().map(String::as_str).collect();
        tool::query(&config, &names, args.verbose)
    };
    print!("{}", out.stdout);
    eprint!("{}", out.stderr);
    ExitCode::from(u8::try_from(out.exit_code).unwrap_or(1))
}
