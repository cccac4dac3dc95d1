//! `negotiator-sim`: the command-line shell of the matchmaker.
//!
//! ```text
//! negotiator-sim config [--config FILE] [--negotiator | --subsystem NAME] [-v] [--dump] [NAME...]
//! negotiator-sim userprio [--log FILE] [--config FILE] [--now EPOCH] [--all] [--json] [edits]
//! negotiator-sim cycle --slots FILE --jobs FILE [--config FILE]... [--accountant LOG | --userprio FILE] [--json | --summary]
//! negotiator-sim bench --slots N --jobs N --users N [--autoclusters N] [--lean] [--json]
//! negotiator-sim generate --slots N --jobs N --users N [--autoclusters N] [--lean] [--base-time EPOCH] --out DIR
//! negotiator-sim policy --config FILE --job JOB.ad [--slot SLOT.ad] --trace EVENTS [--start EPOCH] [--json]
//! negotiator-sim transform [--config FILE] [--rules FILE]... [--jobtransforms NAMES]... [--submit-requirements] [--json] [KEY=VALUE]... JOBS...
//! negotiator-sim simulate SCENARIO.toml [--seed N] [--out DIR] [--until DURATION] [--quiet] [--timings]
//! negotiator-sim compare A.toml B.toml [--seed N] [--until DURATION] [--out DIR] [--quiet]
//! negotiator-sim slots [--config FILE] [--machine FILE] [--cpus N --memory MB --disk KB ...] [--claim JOBS]... [--json]
//! negotiator-sim report DIR [--out DIR] [--title TEXT] [--no-png] [--compare B_DIR]
//! ```

mod cmd;

use std::process::ExitCode;

use clap::Parser;

// Cycles and simulations allocate and free many small ads and vectors;
// mimalloc does that in well under the time of the system allocator
// (a simulated year of the 10,000-slot example spent a quarter of its
// time in glibc's malloc and free).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let given: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match cmd::Cli::try_parse_from(cmd::htcondor_spellings(given.iter().cloned())) {
        Ok(cli) => cli,
        Err(e) => cmd::exit_with_spellings(e, &given),
    };
    // The main thread is one of rayon's threads: it takes its share of a
    // parallel step instead of waiting, and no extra thread competes with
    // it for the cores between parallel steps. (Fails only when a pool
    // exists already, and then that one is used.)
    cli.install_limits();
    let _ = rayon::ThreadPoolBuilder::new().use_current_thread().build_global();
    let code = cli.command.run();
    if cmd::stdout::failed() {
        // Said on stderr when it happened.
        return ExitCode::from(1);
    }
    code
}
