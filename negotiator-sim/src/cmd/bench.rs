//! `negotiator-sim bench`: one negotiation cycle on the synthetic pool of
//! the HTCondor negotiation benchmark, timed.
//!
//! Builds the same slots, jobs and users as the benchmark script that runs
//! the real `condor_negotiator` (see [`negotiator_sim::synthetic`]), groups
//! the jobs into autoclusters, and times the cycle alone (building the
//! pool and grouping the jobs are timed apart). As in that benchmark, the
//! schedd declines every match, so jobs matched in one pie spin are
//! offered again in the next.

use std::process::ExitCode;
use std::time::Instant;

use matchmaker::accountant::AccountantConfig;
use matchmaker::autocluster::{queues, significant_attributes};
use matchmaker::config::Config;
use matchmaker::negotiator::{CycleOutcome, Negotiator};
use negotiator_sim::synthetic::{generate, Layout, Spec};

use serde_json::json;

use super::pool_args::PoolArgs;
use super::size_limits::MemoryLimit;

use super::stdout::outln;

/// Arguments of `negotiator-sim bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pool: PoolArgs,
    /// Chain each slot to an ad of what its host's slots share, and each
    /// job to one of its batch (a tenth of the memory: for very large
    /// pools).
    #[arg(long)]
    chained: bool,
    /// Cycles to run (each on a fresh accountant); the median is reported.
    #[arg(long, value_name = "N", default_value_t = 3)]
    repeat: usize,
    /// HTCondor configuration (default: HTCondor's defaults, as the
    /// benchmark's pool uses them).
    #[arg(long, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
    /// Put the users into this many accounting groups (user k in
    /// `group_{k mod N}`), each with a dynamic quota of 1/N and accepting
    /// surplus, so that the cycle negotiates with group quotas.
    #[arg(long, value_name = "N", default_value_t = 0)]
    groups: usize,
    /// Print one JSON line only.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    memory: MemoryLimit,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match bench(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("negotiator-sim bench: {message}");
            ExitCode::from(1)
        }
    }
}

fn bench(args: &Args) -> Result<(), String> {
    let progress = |m: &str| eprintln!("[bench] {m}");
    let spec = Spec { layout: if args.chained { Layout::Chained } else { Layout::Flat }, ..args.pool.spec() };
    let mut config = match &args.config {
        Some(path) => Config::from_file(path).map_err(|e| e.to_string())?,
        None => Config::default(),
    };
    args.memory.check(&negotiator_sim::footprint::bench_memory(&spec, args.groups))?;
    let timer = Instant::now();
    progress(&format!("building {} slots and {} jobs of {} users", spec.slots, spec.jobs, spec.users));
    let mut pool = generate(&spec).map_err(|e| e.to_string())?;
    if args.groups > 0 {
        pool.put_in_groups(&mut config, args.groups).map_err(|e| e.to_string())?;
    }
    let generate_s = timer.elapsed().as_secs_f64();
    let mut negotiator = Negotiator::from_config(&config).map_err(|e| e.to_string())?;
    negotiator.settings.resend_matched_jobs = true;
    let timer = Instant::now();
    let significant = significant_attributes(&pool.slots, &negotiator.expressions());
    let queues = queues(&pool.jobs, &significant);
    let autocluster_s = timer.elapsed().as_secs_f64();
    let autoclusters: usize = queues.iter().map(|q| q.requests.len()).sum();
    progress(&format!(
        "built in {generate_s:.2} s; {autoclusters} autoclusters in {autocluster_s:.2} s; running {} cycle(s)",
        args.repeat.max(1)
    ));
    let accountant_config = AccountantConfig::from_config(&config).map_err(|e| e.to_string())?;
    let mut times = Vec::new();
    let mut last: Option<CycleOutcome> = None;
    for i in 0..args.repeat.max(1) {
        let mut accountant = pool.accountant(accountant_config.clone()).map_err(|e| e.to_string())?;
        // The cycle keeps and changes its slot ads, as a negotiator does
        // with those it fetched; they are copied before the clock starts.
        let slots = pool.slots.clone();
        let timer = Instant::now();
        let outcome = negotiator.cycle_owned(&mut accountant, slots, &queues, 0).map_err(|e| e.to_string())?;
        let seconds = timer.elapsed().as_secs_f64();
        progress(&format!("cycle {}: {} matches in {seconds:.3} s", i + 1, outcome.stats.matches));
        times.push(seconds);
        last = Some(outcome);
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let Some(outcome) = last else {
        return Err("no cycle ran".to_string());
    };
    let s = &outcome.stats;
    let line = json!({
        "bench": "classad-rs-negotiation-cycle",
        "n_slots": spec.slots,
        "n_jobs": spec.jobs,
        "n_users": spec.users,
        "n_autoclusters_requested": spec.autoclusters,
        "autoclusters": autoclusters,
        "slot_attrs_mode": spec.attrs.name(),
        "layout": if args.chained { "chained" } else { "flat" },
        "groups": args.groups,
        "matches_by_group": outcome.groups.iter().map(|g| (g.name.clone(), g.matches)).collect::<std::collections::BTreeMap<_, _>>(),
        "generate_s": generate_s,
        "autocluster_s": autocluster_s,
        "cycle_s_median": median,
        "cycle_s_all": times,
        "phase2_s": s.phase2_seconds,
        "phase4_s": s.phase4_seconds,
        "Matches": s.matches,
        "Rejections": s.rejections,
        "PieSpins": s.pie_spins,
        "NumJobsConsidered": s.jobs_considered,
        "MatchLists": s.match_lists,
        "matches_by_submitter": outcome.submitters.iter().map(|r| (r.name.clone(), r.matches)).collect::<std::collections::BTreeMap<_, _>>(),
    });
    if args.json {
        outln!("{line}");
    } else {
        outln!(
            "{} slots, {} jobs, {} users, {autoclusters} autoclusters: {} matches, {} rejections, {} pie spins; cycle {:.3} s (median of {})",
            spec.slots,
            spec.jobs,
            spec.users,
            s.matches,
            s.rejections,
            s.pie_spins,
            median,
            times.len()
        );
        outln!("{line}");
    }
    Ok(())
}
