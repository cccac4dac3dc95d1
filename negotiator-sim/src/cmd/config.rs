//! `negotiator-sim config`: HTCondor's `condor_config_val` for a set of
//! configuration files, with the same output.

use std::path::PathBuf;
use std::process::ExitCode;

use matchmaker::config::{tool, Loader};

use super::stdout::out;

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
    /// Read the configuration as the negotiator reads it (the NEGOTIATOR
    /// subsystem: `NEGOTIATOR.NAME` wins over `NAME`), as
    /// `condor_config_val -negotiator` shows it. Without a running
    /// negotiator to ask, the files are read here.
    #[arg(long, conflicts_with = "subsystem")]
    negotiator: bool,
    /// Read the configuration as this subsystem (`NEGOTIATOR`, `SCHEDD`,
    /// `STARTD`, ...) reads it; the default is `TOOL`, as
    /// `condor_config_val` reads.
    #[arg(long, alias = "subsys", value_name = "NAME")]
    subsystem: Option<String>,
    /// The names to print, expanded.
    #[arg(value_name = "NAME")]
    names: Vec<String>,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    let file = args.config.or_else(|| std::env::var_os("CONDOR_CONFIG").map(PathBuf::from));
    // condor_config_val reads as the TOOL subsystem.
    let subsystem = match (&args.subsystem, args.negotiator) {
        (Some(name), _) => name.to_uppercase(),
        (None, true) => "NEGOTIATOR".to_string(),
        (None, false) => "TOOL".to_string(),
    };
    let loader = Loader::new().subsystem(&subsystem);
    let config = match &file {
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
        let host = tool::host_name(&config).or_else(local_host_name).unwrap_or_else(|| "<unknown hostname>".into());
        let header = if subsystem == "TOOL" {
            format!("# Configuration from machine: {host}")
        } else {
            format!("# Configuration from {} on {host}", subsystem.to_lowercase())
        };
        tool::dump_with_header(&config, args.verbose, &header)
    } else if args.names.is_empty() {
        eprintln!("negotiator-sim config: give names to print, or --dump");
        return ExitCode::from(2);
    } else {
        let names: Vec<&str> = args.names.iter().map(String::as_str).collect();
        tool::query(&config, &names, args.verbose)
    };
    out!("{}", out.stdout);
    eprint!("{}", out.stderr);
    ExitCode::from(u8::try_from(out.exit_code).unwrap_or(1))
}

/// This machine's name, as the kernel has it (HTCondor's dump header names
/// the machine when the configuration does not set `FULL_HOSTNAME`).
fn local_host_name() -> Option<String> {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .map(|s| s.trim().to_string())
        .find(|s| !s.is_empty() && s.len() <= 255)
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|s| !s.is_empty() && s.len() <= 255))
}
