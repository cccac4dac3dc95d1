//! `negotiator-sim compare`: two scenarios (two policies on one workload)
//! simulated side by side, and how their users fared (see
//! `negotiator_sim::report::compare` and docs/simulation-results.md).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use negotiator_sim::footprint;
use negotiator_sim::output::{write_tables, Format};
use negotiator_sim::report::compare::compare as compare_runs;
use negotiator_sim::report::{build, Images};
use negotiator_sim::simulate::run::Simulation;
use negotiator_sim::simulate::scenario::{parse_duration, Scenario};
use negotiator_sim::table::Table;

use super::size_limits::{DiskLimit, MemoryLimit};
use super::stdout::out;

/// Arguments of `negotiator-sim compare`.
#[derive(clap::Args)]
pub struct Args {
    /// Scenario A (TOML).
    a: PathBuf,
    /// Scenario B (TOML): the same users and seed give the same jobs, so
    /// that only what else differs (the policy) tells the runs apart.
    b: PathBuf,
    /// The seed of both runs (default: each scenario's own).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Simulate this long instead of the scenarios' durations (`90m`,
    /// `7d`, seconds).
    #[arg(long, value_name = "DURATION")]
    until: Option<String>,
    /// Write both runs' tables (`DIR/a`, `DIR/b`, CSV), the comparison
    /// (`DIR/compare.csv`) and a report with both runs' charts
    /// (`DIR/report.html`).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
    #[command(flatten)]
    memory: MemoryLimit,
    #[command(flatten)]
    disk: DiskLimit,
}

/// Runs `negotiator-sim compare`.
pub fn run(args: Args) -> ExitCode {
    match compare(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("negotiator-sim compare: {message}");
            ExitCode::from(1)
        }
    }
}

/// One scenario's run: its result tables.
fn simulate(scenario: &Scenario, path: &Path, seed: Option<u64>, until: Option<i64>) -> Result<Vec<Table>, String> {
    let sim = Simulation::with_seed(scenario, seed.unwrap_or(scenario.seed)).map_err(|e| e.to_string())?;
    let results = sim.run(until, &mut |_| {}).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(results.tables)
}

fn compare(args: &Args) -> Result<(), String> {
    let until = match &args.until {
        Some(text) => Some(parse_duration(text).map_err(|e| format!("--until: {e}"))?.round() as i64),
        None => None,
    };
    let a = Scenario::read(&args.a).map_err(|e| e.to_string())?;
    let b = Scenario::read(&args.b).map_err(|e| e.to_string())?;
    // Both runs are in memory at once.
    let mut memory = footprint::simulation_memory(&a, until);
    memory.extend(footprint::simulation_memory(&b, until));
    args.memory.check(&memory)?;
    if let Some(dir) = &args.out {
        let mut disk = footprint::simulation_output(&a, until, 1);
        disk.extend(footprint::simulation_output(&b, until, 1));
        args.disk.check(&disk, dir)?;
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    if !args.quiet {
        eprintln!("negotiator-sim compare: simulating {} and {} side by side", args.a.display(), args.b.display());
    }
    // The runs are independent: one per thread.
    let (a, b) = std::thread::scope(|s| {
        let b = s.spawn(|| simulate(&b, &args.b, args.seed, until));
        let a = simulate(&a, &args.a, args.seed, until);
        (a, b.join().unwrap_or_else(|_| Err("the run of B failed".to_string())))
    });
    let (a, b) = (a?, b?);
    let comparison = compare_runs(&a, &b).map_err(|e| e.to_string())?;
    out!("{}", comparison.text());
    if let Some(dir) = &args.out {
        write_tables(&dir.join("a"), &a, &[Format::Csv]).map_err(|e| e.to_string())?;
        write_tables(&dir.join("b"), &b, &[Format::Csv]).map_err(|e| e.to_string())?;
        write_tables(dir, &[comparison.table()], &[Format::Csv]).map_err(|e| e.to_string())?;
        let title = format!("{} against {}", args.a.display(), args.b.display());
        let mut report = build(&title, &a).map_err(|e| e.to_string())?;
        report.add_comparison(&a, &b).map_err(|e| e.to_string())?;
        report.write(dir, Images { svg: true, png: false }).map_err(|e| e.to_string())?;
        if !args.quiet {
            eprintln!("negotiator-sim compare: wrote {}", dir.join("report.html").display());
        }
    }
    Ok(())
}
