//! `negotiator-sim generate`: the benchmark's synthetic pool written to
//! files, as HTCondor's tools print it.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use classad::format::{Format, Writer};
use matchmaker::accountant::AccountantConfig;
use negotiator_sim::synthetic::{Spec, SyntheticPool};

use super::pool_args::PoolArgs;
use super::size_limits::DiskLimit;

/// Arguments of `negotiator-sim generate`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pool: PoolArgs,
    /// When the fake startds started, epoch seconds (default: an hour ago).
    #[arg(long, value_name = "EPOCH", allow_negative_numbers = true)]
    base_time: Option<i64>,
    /// The first user's cluster id.
    #[arg(long, value_name = "ID", default_value_t = 1)]
    first_cluster: i64,
    /// The directory to write slots.ad, jobs.ad and userprio.ad in (made if
    /// missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    #[command(flatten)]
    disk: DiskLimit,
}

/// Ads between two progress lines.
const PROGRESS_EVERY: usize = 100_000;

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    let mut spec = args.pool.spec();
    if let Some(t) = args.base_time {
        spec.base_time = t;
    }
    spec.first_cluster = args.first_cluster;
    let checked = args.disk.check(&negotiator_sim::footprint::generated_files(&spec), &args.out);
    match checked.and_then(|()| write_pool(&spec, &args.out)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("negotiator-sim generate: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Writes the three files, streaming the ads (memory stays small).
fn write_pool(spec: &Spec, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let users = spec.users().map_err(|e| e.to_string())?;
    let started = Instant::now();
    let slots = spec.slot_ads().map_err(|e| e.to_string())?;
    write_ads(&dir.join("slots.ad"), slots, "slot")?;
    let jobs = spec.job_ads().map_err(|e| e.to_string())?;
    write_ads(&dir.join("jobs.ad"), jobs, "job")?;

    let pool = SyntheticPool { slots: Vec::new(), jobs: Vec::new(), users };
    let acct = pool.accountant(AccountantConfig::default()).map_err(|e| e.to_string())?;
    let text = matchmaker::userprio_ad::long_form(&acct.priority_rows(), spec.base_time + 3600);
    let path = dir.join("userprio.ad");
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!(
        "negotiator-sim generate: {} slots ({}), {} jobs in {} job classes, {} users written to {} in {:.1} s",
        spec.slots,
        spec.attrs.name(),
        spec.jobs,
        spec.classes_used(),
        spec.users,
        dir.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Writes ads in the old (long) format, with a progress line on stderr
/// every [`PROGRESS_EVERY`] ads.
fn write_ads(path: &Path, ads: impl ExactSizeIterator<Item = classad::ClassAd>, what: &str) -> Result<(), String> {
    let failed = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let file = File::create(path).map_err(failed)?;
    let total = ads.len();
    let mut writer = Writer::new(BufWriter::with_capacity(1 << 20, file), Format::Old);
    for (i, ad) in ads.enumerate() {
        writer.write(&ad).map_err(failed)?;
        if (i + 1) % PROGRESS_EVERY == 0 {
            eprintln!("negotiator-sim generate: {} of {total} {what} ads", i + 1);
        }
    }
    writer.finish().map_err(failed)?.flush().map_err(failed)
}
