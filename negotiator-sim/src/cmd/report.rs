//! `negotiator-sim report`: the HTML report and charts of a results
//! directory (the CSV or Parquet tables a simulation wrote), and optionally its
//! comparison with another run's directory.

use std::path::PathBuf;
use std::process::ExitCode;

use negotiator_sim::output::{read_tables, write_tables, Format};
use negotiator_sim::report::{build, Images, ReportError};

use super::stdout::out;

/// The tables a report is made of.
const RESULT_TABLES: [&str; 4] = ["users", "groups", "cycles", "jobs"];

/// Arguments of `negotiator-sim report`.
#[derive(clap::Args)]
pub struct Args {
    /// The results directory: users, groups, cycles, jobs (any of them),
    /// each as NAME.csv or NAME.parquet (CSV first when both).
    dir: PathBuf,
    /// Where to write report.html and charts/ (default: DIR).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The page's title (default: the directory's name).
    #[arg(long)]
    title: Option<String>,
    /// Write no PNG images (SVG only).
    #[arg(long)]
    no_png: bool,
    /// Compare with the results of run B in this directory: print the
    /// differences, write compare.csv beside the report and add them (with
    /// charts of both runs) to the page.
    #[arg(long, value_name = "B_DIR")]
    compare: Option<PathBuf>,
}

/// Runs `negotiator-sim report`.
pub fn run(args: Args) -> ExitCode {
    match report(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("negotiator-sim report: {e}");
            ExitCode::FAILURE
        }
    }
}

fn report(args: &Args) -> Result<(), ReportError> {
    let tables = read_tables(&args.dir)?;
    if !tables.iter().any(|t| RESULT_TABLES.contains(&t.name.as_str())) {
        return Err(ReportError::NoTablesIn { dir: args.dir.clone() });
    }
    let out = args.out.clone().unwrap_or_else(|| args.dir.clone());
    let title = args.title.clone().unwrap_or_else(|| {
        let name = args.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        format!("Simulation results: {name}")
    });
    let mut report = build(&title, &tables)?;
    if let Some(b_dir) = &args.compare {
        let b = read_tables(b_dir)?;
        report.add_comparison(&tables, &b)?;
        if let Some(comparison) = &report.comparison {
            out!("{}", comparison.text());
            write_tables(&out, &[comparison.table()], &[Format::Csv])?;
            eprintln!("negotiator-sim report: wrote {}", out.join("compare.csv").display());
        }
    }
    eprintln!("negotiator-sim report: {} tables read, drawing {} charts", tables.len(), report.charts.len());
    let written = report.write(&out, Images { svg: true, png: !args.no_png })?;
    eprintln!("negotiator-sim report: wrote {} ({} files)", out.join("report.html").display(), written.len());
    Ok(())
}
