//! `negotiator-sim simulate`: a pool over simulated time (see
//! `negotiator_sim::simulate` and docs/simulation.md).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use negotiator_sim::footprint;
use negotiator_sim::output::{csv, write_tables, Format};
use negotiator_sim::simulate::results::{JobSink, Results};
use negotiator_sim::simulate::run::{Progress, Simulation};
use negotiator_sim::simulate::scenario::{parse_duration, Scenario};
use negotiator_sim::table::{Column, Table};

use super::size_limits::{DiskLimit, MemoryLimit};

/// Arguments of `negotiator-sim simulate`.
#[derive(clap::Args)]
pub struct Args {
    /// The scenario (TOML).
    scenario: PathBuf,
    /// The seed (default: the scenario's).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Write the result tables into this directory (`users`, `groups`,
    /// `cycles`, `jobs`; `negotiator-sim report DIR` charts them).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// File formats of the tables: `csv`, `parquet`, or both
    /// (`csv,parquet`).
    #[arg(long, value_name = "LIST", default_value = "csv")]
    format: String,
    /// Simulate this long instead of the scenario's duration (`90m`,
    /// `7d`, seconds).
    #[arg(long, value_name = "DURATION")]
    until: Option<String>,
    /// No progress bar, no summary.
    #[arg(long, short)]
    quiet: bool,
    /// Also keep a `timings` table: per cycle, the wall-clock seconds since
    /// the previous one ended (not reproducible, unlike the other tables).
    #[arg(long)]
    timings: bool,
    #[command(flatten)]
    memory: MemoryLimit,
    #[command(flatten)]
    disk: DiskLimit,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match simulate(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("negotiator-sim simulate: {message}");
            ExitCode::from(1)
        }
    }
}

fn simulate(args: &Args) -> Result<(), String> {
    let scenario = Scenario::read(&args.scenario).map_err(|e| e.to_string())?;
    let until = match &args.until {
        Some(text) => Some(parse_duration(text).map_err(|e| format!("--until: {e}"))?.round() as i64),
        None => None,
    };
    if let Some(dir) = &args.out {
        // Checked before the run, so that a long run is not lost.
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut formats = Vec::new();
    for name in args.format.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        formats.push(match name {
            "csv" => Format::Csv,
            "parquet" => Format::Parquet,
            other => return Err(format!("--format: `{other}` is not csv or parquet")),
        });
    }
    args.memory.check(&footprint::simulation_memory(&scenario, until))?;
    if let Some(dir) = &args.out {
        args.disk.check(&footprint::simulation_output(&scenario, until, formats.len()), dir)?;
    }
    let started = Instant::now();
    let sim = Simulation::with_seed(&scenario, args.seed.unwrap_or(scenario.seed)).map_err(|e| e.to_string())?;
    let built = started.elapsed();
    let total = until.unwrap_or(scenario.duration).max(1) as u64;
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} simulated {msg} [{elapsed_precise}, ETA {eta}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut last_draw = Instant::now();
    let mut timings: Vec<(i64, f64, bool)> = Vec::new();
    let mut cycle_clock = Instant::now();
    let run_started = Instant::now();
    let mut on_progress = |p: &Progress| {
        if args.timings {
            timings.push((p.time, cycle_clock.elapsed().as_secs_f64(), p.after_full_cycle));
        }
        if !args.quiet && last_draw.elapsed() >= Duration::from_millis(200) {
            last_draw = Instant::now();
            let rate = p.events as f64 / run_started.elapsed().as_secs_f64().max(1e-9);
            bar.set_position(p.time.max(0) as u64);
            bar.set_message(format!(
                "{} of {}, {} cycles ({} matching), {:.0} events/s",
                human_duration(p.time),
                human_duration(p.until),
                p.cycles,
                p.full_cycles,
                rate
            ));
        }
        if args.timings {
            cycle_clock = Instant::now();
        }
    };
    let mut sim = sim;
    // With CSV alone, the jobs table is written as the run goes.
    let streamed = match &args.out {
        Some(dir) if formats == [Format::Csv] => {
            let (sink, writer) = jobs_csv(&dir.join("jobs.csv"))?;
            sim.stream_jobs(sink, 1 << 16);
            Some(writer)
        }
        _ => None,
    };
    let run = sim.run(until, &mut on_progress);
    // The run has dropped the sink: the writer has had every batch, or has
    // stopped on an error that says more than the run's.
    let streamed = match streamed {
        Some(writer) => Some(writer.join().map_err(|_| "the thread writing jobs.csv failed".to_string())??),
        None => None,
    };
    let mut results = run.map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    let wall = run_started.elapsed().as_secs_f64();
    if args.timings {
        let mut t = Table::new("timings");
        t.push("time", Column::Int(timings.iter().map(|r| r.0).collect()));
        t.push("seconds", Column::Float(timings.iter().map(|r| r.1).collect()));
        t.push("matching", Column::Int(timings.iter().map(|r| i64::from(r.2)).collect()));
        results.tables.push(t);
    }
    if !args.quiet {
        eprintln!("{}", summary(&results, built.as_secs_f64(), wall));
    }
    if let Some(dir) = &args.out {
        let written = write_tables(dir, &results.tables, &formats).map_err(|e| e.to_string())?;
        if !args.quiet {
            eprintln!("wrote {} files in {}", written.len() + usize::from(streamed.is_some()), dir.display());
        }
    }
    Ok(())
}

/// A sink writing the rows of the jobs table to the CSV file `path`
/// (replaced), the header first, on a thread of its own (formatting and
/// writing a long run's rows then costs the run nothing); the thread
/// ends when the sink is dropped, with what went wrong if anything did.
fn jobs_csv(path: &Path) -> Result<(JobSink, JoinHandle<Result<(), String>>), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    // (Two batches in flight at most: memory stays bounded.)
    let (send, batches) = std::sync::mpsc::sync_channel::<Table>(2);
    let shown = path.display().to_string();
    let writer = std::thread::Builder::new()
        .name("jobs.csv".into())
        .spawn(move || {
            let failed = |e: std::io::Error| format!("{shown}: {e}");
            let mut out = std::io::BufWriter::new(file);
            let mut header = false;
            for batch in batches {
                if !header {
                    csv::write_header(&mut out, &batch).map_err(failed)?;
                    header = true;
                }
                csv::write_rows(&mut out, &batch).map_err(failed)?;
                out.flush().map_err(failed)?;
            }
            Ok(())
        })
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let sink: JobSink =
        Box::new(move |batch: Table| send.send(batch).map_err(|_| "writing jobs.csv stopped".to_string()));
    Ok((sink, writer))
}

fn human_duration(seconds: i64) -> String {
    let s = seconds.max(0);
    if s >= 86400 {
        format!("{}d{:02}h", s / 86400, (s % 86400) / 3600)
    } else {
        format!("{:02}:{:02}:{:02}", s / 3600, (s % 3600) / 60, s % 60)
    }
}

fn ints<'a>(t: &'a Table, name: &str) -> &'a [i64] {
    match t.column(name) {
        Some(Column::Int(v)) => v,
        _ => &[],
    }
}

/// A few lines about a run, for people.
fn summary(results: &Results, build_seconds: f64, run_seconds: f64) -> String {
    let s = results.summary;
    let mut out = format!(
        "{} jobs submitted, {} finished; {} cycles ({} matching); {} events in {:.2} s ({:.0} events/s, {:.3} ms per cycle; pool built in {:.2} s)",
        s.jobs,
        s.finished,
        s.cycles,
        s.full_cycles,
        s.events,
        run_seconds,
        s.events as f64 / run_seconds.max(1e-9),
        1000.0 * run_seconds / (s.cycles.max(1) as f64),
        build_seconds
    );
    if s.started > 0 {
        let mean = s.started_wait as f64 / s.started as f64;
        out.push_str(&format!("\nmean wait of the jobs that started: {mean:.0} s"));
    }
    if s.badput > 0 {
        out.push_str(&format!("; badput {} s", s.badput));
    }
    if let Some(cycles) = results.table("cycles") {
        let p: i64 = ints(cycles, "preemptions").iter().sum();
        let m: i64 = ints(cycles, "matches").iter().sum();
        out.push_str(&format!("\n{m} matches, {p} of them preemptions"));
    }
    out
}
