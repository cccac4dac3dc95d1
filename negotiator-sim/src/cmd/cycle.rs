//! `negotiator-sim cycle`: one negotiation cycle on a pool snapshot.
//!
//! Reads the slots (`condor_status -long` or `-json` output), the jobs
//! (`condor_q -allusers -long` or `-json`), the configuration and the
//! priorities, groups the idle jobs into autoclusters as a schedd does,
//! runs the cycle and prints what it decided: a table per submitter, the
//! matches and the rejections, or all of it as JSON.
//!
//! With several `--config` files, several negotiators share the pool, as
//! HTCondor's do when each has its own `NEGOTIATOR_SLOT_CONSTRAINT`,
//! `NEGOTIATOR_JOB_CONSTRAINT` or `NEGOTIATOR_SUBMITTER_CONSTRAINT`: each
//! runs its own cycle, with its own accountant, on the whole snapshot, and
//! each is reported; a slot matched by more than one (their constraints
//! overlap) is named.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use matchmaker::negotiator::{CycleOutcome, Negotiator};
use matchmaker::snapshot::{Priorities, Snapshot};
use serde_json::{json, Value};

use super::stdout;

/// Arguments of `cycle`.
#[derive(clap::Args)]
pub struct Args {
    /// Slot ads: `condor_status -long` (or `-json`) output, gzipped or not.
    #[arg(long, value_name = "FILE")]
    slots: PathBuf,
    /// Job ads: `condor_q -allusers -long` (or `-json`) output. Idle jobs
    /// (JobStatus 1) are negotiated; running ones are counted.
    #[arg(long, value_name = "FILE")]
    jobs: PathBuf,
    /// HTCondor configuration. A `condor_config_val -negotiator -dump`
    /// output (first line `# Configuration from ...`) is read alone, as the
    /// pool's whole configuration, without the local files it names on this
    /// machine. Default: HTCondor's defaults. Given more than once: one
    /// negotiator per file, side by side on the same pool.
    #[arg(long, value_name = "FILE")]
    config: Vec<PathBuf>,
    /// Priorities from the accountant's log (`Accountantnew.log`).
    #[arg(long, value_name = "FILE", conflicts_with = "userprio")]
    accountant: Option<PathBuf>,
    /// Priorities from `condor_userprio -allusers -long` output taken
    /// before the cycle (one taken after it already holds that cycle's
    /// usage, so the shares come out otherwise).
    #[arg(long, value_name = "FILE")]
    userprio: Option<PathBuf>,
    /// Submitter ads (`condor_status -submitters -long`): their
    /// `LastHeardFrom` breaks ties between equal priorities as HTCondor's
    /// negotiator does.
    #[arg(long, value_name = "FILE")]
    submitters: Option<PathBuf>,
    /// The cycle's time, epoch seconds (default: when the priorities were
    /// last updated, so that they are used as they are).
    #[arg(long, value_name = "EPOCH", allow_negative_numbers = true)]
    now: Option<i64>,
    /// The schedd offers jobs matched in an earlier spin again, as a schedd
    /// whose matches are all declined does (pools of advertised test slots).
    #[arg(long)]
    resend_matched_jobs: bool,
    /// Write the priorities after the cycle to FILE as `condor_userprio
    /// -allusers -long` prints them, with each group's quota figures from
    /// the cycle (`negotiator-sim userprio --inputfile FILE` shows them).
    /// With several `--config` files, negotiator K's go to FILE.K.
    #[arg(long, value_name = "FILE")]
    userprio_out: Option<PathBuf>,
    /// Print the outcome as JSON.
    #[arg(long)]
    json: bool,
    /// Print only the tables (per submitter, and the group tree) and the
    /// totals, not every match and rejection.
    #[arg(long, conflicts_with = "json")]
    summary: bool,
    /// No progress lines on stderr.
    #[arg(long, short)]
    quiet: bool,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match cycle(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("negotiator-sim cycle: {message}");
            ExitCode::from(1)
        }
    }
}

fn cycle(args: &Args) -> Result<(), String> {
    let progress = |message: &str| {
        if !args.quiet {
            eprintln!("[cycle] {message}");
        }
    };
    let priorities = match (&args.accountant, &args.userprio) {
        (Some(log), _) => Priorities::Log(log.clone()),
        (None, Some(file)) => Priorities::Userprio(file.clone()),
        (None, None) => Priorities::Fresh,
    };
    let configs: Vec<Option<&Path>> =
        if args.config.is_empty() { vec![None] } else { args.config.iter().map(|p| Some(p.as_path())).collect() };
    let mut outcomes = Vec::with_capacity(configs.len());
    for (k, config) in configs.iter().enumerate() {
        if configs.len() > 1 {
            progress(&format!("negotiator {}", config.map(|p| p.display().to_string()).unwrap_or_default()));
        }
        let userprio_out = args.userprio_out.as_ref().map(|file| {
            if configs.len() > 1 {
                let mut name = file.clone().into_os_string();
                name.push(format!(".{}", k + 1));
                PathBuf::from(name)
            } else {
                file.clone()
            }
        });
        outcomes.push(one_cycle(args, *config, &priorities, userprio_out.as_deref(), &progress)?);
    }
    let mut out = stdout::stdout();
    let written = if configs.len() == 1 {
        if args.json {
            to_json(&outcomes[0])
                .and_then(|v| serde_json::to_writer_pretty(&mut out, &v))
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(out))
        } else {
            out.write_all(human(&outcomes[0], !args.summary).as_bytes())
        }
    } else {
        let names: Vec<String> = args.config.iter().map(|p| p.display().to_string()).collect();
        let overlap = overlapping_slots(&outcomes);
        if args.json {
            let negotiators: Result<Vec<Value>, _> = names
                .iter()
                .zip(&outcomes)
                .map(|(name, outcome)| {
                    let mut v = to_json(outcome)?;
                    v["config"] = json!(name);
                    Ok(v)
                })
                .collect();
            let overlap: Vec<Value> =
                overlap.iter().map(|(slot, by)| json!({"slot": slot, "negotiators": by})).collect();
            negotiators
                .and_then(|negotiators| {
                    serde_json::to_writer_pretty(
                        &mut out,
                        &json!({"negotiators": negotiators, "overlapping_slots": overlap}),
                    )
                })
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(out))
        } else {
            let mut text = String::new();
            for (name, outcome) in names.iter().zip(&outcomes) {
                text.push_str(&format!("== negotiator {name}\n"));
                text.push_str(&human(outcome, !args.summary));
                text.push('\n');
            }
            if overlap.is_empty() {
                text.push_str("No slot was matched by more than one negotiator.\n");
            } else {
                text.push_str(&format!(
                    "{} slots were matched by more than one negotiator (their constraints overlap; the first claim \
                     wins):\n",
                    overlap.len()
                ));
                for (slot, by) in &overlap {
                    let by: Vec<String> = by.iter().map(|&k| names[k].clone()).collect();
                    text.push_str(&format!("  {slot}: {}\n", by.join(", ")));
                }
            }
            out.write_all(text.as_bytes())
        }
    };
    // A reader gone away (`| head`) is already no error: see `stdout`.
    written.map_err(|e| format!("writing the outcome: {e}"))
}

/// Slots matched by more than one negotiator, with the negotiators'
/// indices.
fn overlapping_slots(outcomes: &[CycleOutcome]) -> BTreeMap<String, Vec<usize>> {
    let mut by_slot: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (k, outcome) in outcomes.iter().enumerate() {
        for m in &outcome.matches {
            let by = by_slot.entry(m.slot.clone()).or_default();
            if by.last() != Some(&k) {
                by.push(k);
            }
        }
    }
    by_slot.retain(|_, by| by.len() > 1);
    by_slot
}

/// One negotiator's cycle on the snapshot, with its configuration and its
/// own accountant.
fn one_cycle(
    args: &Args,
    config: Option<&Path>,
    priorities: &Priorities,
    userprio_out: Option<&Path>,
    progress: &dyn Fn(&str),
) -> Result<CycleOutcome, String> {
    let started = Instant::now();
    progress("reading the snapshot");
    let mut snapshot = Snapshot::read(&args.slots, &args.jobs, config, priorities, args.submitters.as_deref())
        .map_err(|e| e.to_string())?;
    // Always said, even with -q: the cycle runs on what was recovered.
    for w in &snapshot.warnings {
        eprintln!("negotiator-sim cycle: warning: {w}");
    }
    let locals: Vec<&str> = snapshot.config.local_files().collect();
    if !locals.is_empty() {
        // Always said, even with -q: a snapshot's configuration that reads
        // this machine's files is rarely what was meant.
        eprintln!(
            "negotiator-sim cycle: warning: the configuration also read local files of this machine: {} (a \
             `condor_config_val -negotiator -dump` taken on the pool is read alone)",
            locals.join(", ")
        );
    }
    let mut negotiator = Negotiator::from_config(&snapshot.config).map_err(|e| e.to_string())?;
    negotiator.settings.resend_matched_jobs = args.resend_matched_jobs;
    let queues = snapshot.queues(&negotiator);
    let requests: usize = queues.iter().map(|q| q.requests.len()).sum();
    progress(&format!(
        "{} slots, {} jobs, {} submitters, {requests} autoclusters (read in {:.2} s); negotiating",
        snapshot.slots.len(),
        snapshot.jobs.len(),
        queues.len(),
        started.elapsed().as_secs_f64()
    ));
    let now = args.now.unwrap_or(snapshot.last_update);
    let timer = Instant::now();
    let outcome =
        negotiator.cycle(&mut snapshot.accountant, &snapshot.slots, &queues, now).map_err(|e| e.to_string())?;
    progress(&format!(
        "{} matches, {} rejections in {:.3} s",
        outcome.stats.matches,
        outcome.rejections.len(),
        timer.elapsed().as_secs_f64()
    ));
    if let Some(file) = userprio_out {
        let submitters: Vec<&str> = outcome.submitters.iter().map(|r| r.name.as_str()).collect();
        let rows = snapshot.accountant.priority_rows_after_cycle(&outcome.groups, &submitters);
        std::fs::write(file, matchmaker::userprio_ad::long_form(&rows, now))
            .map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(outcome)
}

/// The outcome as JSON: its `Serialize` form (matchmaker's `serde`
/// feature), keys sorted, each submitter with its `outcome` in words as
/// the table says it ([`SubmitterReport::summary`]).
///
/// [`SubmitterReport::summary`]: matchmaker::negotiator::SubmitterReport::summary
pub fn to_json(outcome: &CycleOutcome) -> Result<Value, serde_json::Error> {
    let mut value = serde_json::to_value(outcome)?;
    if let Some(submitters) = value.get_mut("submitters").and_then(Value::as_array_mut) {
        for (json, report) in submitters.iter_mut().zip(&outcome.submitters) {
            if let Some(fields) = json.as_object_mut() {
                fields.insert("outcome".to_string(), Value::String(report.summary()));
            }
        }
    }
    Ok(value)
}

/// The outcome for people: per submitter, then (with `lists`) the matches
/// and rejections.
pub fn human(outcome: &CycleOutcome, lists: bool) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let width = outcome.submitters.iter().map(|r| r.name.len()).max().unwrap_or(9).max(9);
    let _ = writeln!(
        out,
        "{:<width$} {:>12} {:>10} {:>7} {:>9} {:>9} {:>9} {:>7} {:>7} {:>6}  outcome",
        "Submitter", "EffPrio", "Factor", "Share", "Limit", "UsedNow", "UsedAfter", "Idle", "Matched", "Rejctd"
    );
    for r in &outcome.submitters {
        let _ = writeln!(
            out,
            "{:<width$} {:>12.2} {:>10.3} {:>7.4} {:>9.2} {:>9.2} {:>9.2} {:>7} {:>7} {:>6}  {}",
            r.name,
            r.eup,
            r.factor,
            r.share,
            r.limit,
            r.usage_before,
            r.usage_after,
            r.idle_jobs,
            r.matches,
            r.rejections,
            r.summary()
        );
    }
    if !outcome.groups.is_empty() {
        out.push('\n');
        out.push_str(&group_table(outcome));
    }
    let s = &outcome.stats;
    let _ = writeln!(
        out,
        "\n{} matches, {} rejections; {} slots ({} after trimming, weight {}), {} pie spins, {} requests considered",
        s.matches, s.rejections, s.total_slots, s.trimmed_slots, s.slot_weight_total, s.pie_spins, s.jobs_considered
    );
    if !lists {
        return out;
    }
    if !outcome.matches.is_empty() {
        let _ = writeln!(out, "\nMatches (spin, job, submitter, slot, how):");
        for m in &outcome.matches {
            let how = match &m.preempting {
                // ALLOW_PSLOT_PREEMPTION: a p-slot with some of its d-slots.
                Some(user) if !m.preempted_dynamic_slots.is_empty() => format!(
                    "{} of {user} on {} dynamic slots ({})",
                    m.reason(),
                    m.preempted_dynamic_slots.len(),
                    m.preempted_dynamic_slots.join(" ")
                ),
                Some(user) => format!("{} of {user}", m.reason()),
                None => m.reason().to_string(),
            };
            let _ = writeln!(out, "{:>3} {:>10} {} {} {}", m.spin, m.job.to_string(), m.submitter, m.slot, how);
        }
    }
    if !outcome.rejections.is_empty() {
        let _ = writeln!(out, "\nRejections (spin, job, submitter, reason):");
        for r in &outcome.rejections {
            let _ = writeln!(out, "{:>3} {:>10} {} {}", r.spin, r.job.to_string(), r.submitter, r.reason);
        }
    }
    out
}

/// The group tree: each group indented under its parent, with its quota
/// (configured, assigned, subtree), demand, allocation, usage and matches,
/// then why each group got what it got.
pub fn group_table(outcome: &CycleOutcome) -> String {
    use std::fmt::Write as _;
    let depth = |name: &str| if name == matchmaker::groups::ROOT { 0 } else { 1 + name.matches('.').count() };
    let label = |name: &str| format!("{}{}", "  ".repeat(depth(name)), name);
    let width = outcome.groups.iter().map(|g| label(&g.name).len()).max().unwrap_or(5).max(5);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<width$} {:>9} {:>9} {:>9} {:>8} {:>9} {:>9} {:>8} {:>8} {:>8} {:>7}",
        "Group",
        "Config",
        "Quota",
        "Subtree",
        "Surplus",
        "Demand",
        "Allocated",
        "UsedNow",
        "UsedAfter",
        "Matched",
        "Rounds"
    );
    for g in &outcome.groups {
        let config = match (g.parent.is_none(), g.static_quota) {
            (true, _) => "-".to_string(),
            (false, true) => format!("{}", g.config_quota),
            (false, false) => format!("{}d", g.config_quota),
        };
        let surplus = match (g.accept_surplus, g.autoregroup) {
            (true, true) => "yes+rg",
            (true, false) => "yes",
            (false, true) => "regroup",
            (false, false) => "no",
        };
        let _ = writeln!(
            out,
            "{:<width$} {:>9} {:>9.2} {:>9.2} {:>8} {:>9.2} {:>9.2} {:>8.2} {:>8.2} {:>8} {:>7}",
            label(&g.name),
            config,
            g.quota,
            g.subtree_quota,
            surplus,
            g.demand,
            g.allocated,
            g.usage_before,
            g.usage_after,
            g.matches,
            g.rounds.len()
        );
    }
    for t in &outcome.group_rounds {
        let _ = writeln!(
            out,
            "round {}: allocated {:.2}, used {:.2}, unallocated surplus {:.2}; order {}",
            t.round,
            t.allocated,
            t.usage,
            t.surplus,
            t.order.join(", ")
        );
    }
    out.push_str("\nWhy each group got what it got:\n");
    for g in &outcome.groups {
        let _ = writeln!(out, "  {}: {}", g.name, g.explanation);
    }
    out
}
