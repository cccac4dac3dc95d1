//! `negotiator-sim userprio`: `condor_userprio` on an accountant's log.
//!
//! Shows the table `condor_userprio` prints (same columns, order and number
//! formats) for the priorities recorded in a log, and makes the same edits
//! (`--setprio`, `--setfactor`, ...), written to the log as HTCondor's
//! negotiator writes them. HTCondor's single-dash spellings (`-setprio`,
//! `-allusers`) are accepted too.
//!
//! An edit takes the log's lock (`flock` on `<log>.lock`) before reading
//! the log and keeps it until the edit is written: a second writer waits
//! up to `--lock-timeout` seconds (10) and then fails, naming the log. A
//! file that is not an accountant log is never written.

use std::path::PathBuf;
use std::process::ExitCode;

use matchmaker::accountant::{Accountant, AccountantConfig, PriorityRow, UserprioTable};

use super::stdout::{out, outln};

/// Arguments of `userprio`.
#[derive(clap::Args)]
pub struct Args {
    /// The accountant's log (HTCondor's `Accountantnew.log`, in its SPOOL
    /// directory). Default: ACCOUNTANT_DATABASE_FILE of `--config`, else
    /// `Accountantnew.log`.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// HTCondor configuration file with the accountant's knobs
    /// (PRIORITY_HALFLIFE, DEFAULT_PRIO_FACTOR, GROUP_NAMES, ...; default:
    /// HTCondor's defaults).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Current time, epoch seconds (default: the clock). Submitters with no
    /// usage in the day before are hidden unless `--allusers`.
    #[arg(long, value_name = "EPOCH", allow_negative_numbers = true)]
    now: Option<i64>,
    /// Every column.
    #[arg(long)]
    all: bool,
    /// Every submitter, however long inactive.
    #[arg(long)]
    allusers: bool,
    /// Usage columns.
    #[arg(long)]
    usage: bool,
    /// Priority columns only.
    #[arg(long)]
    priority: bool,
    /// The default columns (as without column options).
    #[arg(long)]
    most: bool,
    /// Only submitters active since this day's midnight.
    #[arg(long, num_args = 3, value_names = ["MONTH", "DAY", "YEAR"])]
    activefrom: Option<Vec<i64>>,
    /// Show groups and their members flat, not as a hierarchy.
    #[arg(long)]
    flat: bool,
    /// Show groups and their members as a hierarchy (the default).
    #[arg(long, alias = "heir")]
    hierarchical: bool,
    /// Groups first (no hierarchy).
    #[arg(long)]
    grouporder: bool,
    /// The groups' quota columns (effective, configured and subtree quota,
    /// surplus policy, requested); alone, only groups are listed. Quotas
    /// come from a negotiation cycle: see `cycle --userprio-out`.
    #[arg(long)]
    quotas: bool,
    /// The groups' surplus policy column.
    #[arg(long)]
    surplus: bool,
    /// The groups' sort key column (GROUP_SORT_EXPR).
    #[arg(long)]
    sortkey: bool,
    /// Read the priorities from a saved `condor_userprio -l` ad instead of
    /// an accountant's log.
    #[arg(long, value_name = "FILE")]
    inputfile: Option<PathBuf>,
    /// The accountant's report as a ClassAd (`condor_userprio -l`).
    #[arg(short = 'l', long)]
    long: bool,
    /// The rows as JSON.
    #[arg(long)]
    json: bool,
    /// Offset of the local time zone for dates, in seconds east of UTC
    /// (default: the `TZ_OFFSET` environment variable, else UTC).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    utc_offset: Option<i64>,
    /// Set a submitter's real priority.
    #[arg(long, num_args = 2, value_names = ["NAME", "VALUE"], allow_negative_numbers = true)]
    setprio: Option<Vec<String>>,
    /// Set a submitter's priority factor (at least 1).
    #[arg(long, num_args = 2, value_names = ["NAME", "VALUE"], allow_negative_numbers = true)]
    setfactor: Option<Vec<String>>,
    /// Set a submitter's floor (0: none).
    #[arg(long, num_args = 2, value_names = ["NAME", "VALUE"], allow_negative_numbers = true)]
    setfloor: Option<Vec<String>>,
    /// Set a submitter's ceiling (-1: none).
    #[arg(long, num_args = 2, value_names = ["NAME", "VALUE"], allow_negative_numbers = true)]
    setceiling: Option<Vec<String>>,
    /// Set a submitter's accumulated usage (seconds).
    #[arg(long, num_args = 2, value_names = ["NAME", "VALUE"], allow_negative_numbers = true)]
    setaccum: Option<Vec<String>>,
    /// Set when a submitter's usage began (epoch seconds).
    #[arg(long, num_args = 2, value_names = ["NAME", "VALUE"], allow_negative_numbers = true)]
    setbegin: Option<Vec<String>>,
    /// Set when a submitter's usage was last seen (epoch seconds).
    #[arg(long, num_args = 2, value_names = ["NAME", "VALUE"], allow_negative_numbers = true)]
    setlast: Option<Vec<String>>,
    /// Reset a submitter's accumulated usage.
    #[arg(long, value_name = "NAME")]
    resetusage: Option<String>,
    /// Reset every submitter's accumulated usage.
    #[arg(long)]
    resetall: bool,
    /// Delete a submitter's record.
    #[arg(long, value_name = "NAME")]
    delete: Option<String>,
    /// How long an edit waits, in seconds, for another writer of the log
    /// (another `userprio` edit, a negotiator) to release its lock before
    /// giving up.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    lock_timeout: f64,
    /// Show only these submitters (full `user@domain` names, or user names).
    names: Vec<String>,
}

/// Runs `userprio`.
pub fn run(args: Args) -> ExitCode {
    let now = args.now.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
    });
    let (mut config, log) = match settings(&args) {
        Ok(found) => found,
        Err(message) => {
            eprintln!("negotiator-sim userprio: {message}");
            return ExitCode::from(1);
        }
    };
    if !(args.lock_timeout.is_finite() && args.lock_timeout >= 0.0) {
        eprintln!("negotiator-sim userprio: --lock-timeout must be a number of seconds, at least 0");
        return ExitCode::from(1);
    }
    config.lock_timeout = std::time::Duration::from_secs_f64(args.lock_timeout.min(1e9));
    if let Some(code) = edit(&args, &log, config.clone(), now) {
        return code;
    }
    let (rows, last_update) = match &args.inputfile {
        Some(path) => match read_userprio_ad(path) {
            Ok(read) => read,
            Err(message) => {
                eprintln!("negotiator-sim userprio: {message}");
                return ExitCode::from(1);
            }
        },
        None => {
            if !log.exists() {
                eprintln!("negotiator-sim userprio: no accountant log at {} (give --log)", log.display());
                return ExitCode::from(2);
            }
            let (acct, report) = match Accountant::load(config, &log) {
                Ok(loaded) => loaded,
                Err(e) => {
                    eprintln!("negotiator-sim userprio: {e}");
                    return ExitCode::from(1);
                }
            };
            for w in &report.warnings {
                eprintln!("warning: {w}");
            }
            (acct.priority_rows(), acct.last_update())
        }
    };
    let rows: Vec<PriorityRow> = rows.into_iter().filter(|r| selected(&args.names, r)).collect();
    if args.json {
        outln!("{}", rows_json(&rows, last_update));
        return ExitCode::SUCCESS;
    }
    if args.long {
        out!("{}", matchmaker::userprio_ad::long_form(&rows, last_update));
        return ExitCode::SUCCESS;
    }
    let mut table = UserprioTable::new(now).utc_offset(
        args.utc_offset.or_else(|| std::env::var("TZ_OFFSET").ok().and_then(|v| v.parse().ok())).unwrap_or(0),
    );
    if args.all {
        table = table.all();
    }
    if args.usage {
        table = table.usage();
    }
    if args.priority {
        table = table.priority();
    }
    if args.most {
        table = table.most();
    }
    if args.quotas {
        table = table.quotas();
    }
    if args.surplus {
        table = table.surplus();
    }
    if args.sortkey {
        table = table.sort_key();
    }
    if args.allusers {
        table = table.all_users();
    }
    if let Some(date) = &args.activefrom {
        table = table.active_from_date(date[0], date[1], date[2]);
    }
    if args.grouporder {
        table = table.group_order();
    } else if args.flat && !args.hierarchical {
        table = table.flat();
    }
    if rows.is_empty() {
        // condor_userprio prints nothing for an empty accountant.
        return ExitCode::SUCCESS;
    }
    out!("{}", table.render(&rows, last_update));
    ExitCode::SUCCESS
}

/// The accountant's settings and the log's path, from `--config` and `--log`.
fn settings(args: &Args) -> Result<(AccountantConfig, PathBuf), String> {
    let Some(path) = &args.config else {
        let log = args.log.clone().unwrap_or_else(|| PathBuf::from("Accountantnew.log"));
        return Ok((AccountantConfig::default(), log));
    };
    let config =
        matchmaker::config::Loader::new().subsystem("NEGOTIATOR").load_file(path).map_err(|e| e.to_string())?;
    let accountant = AccountantConfig::from_config(&config).map_err(|e| e.to_string())?;
    let log = match &args.log {
        Some(log) => log.clone(),
        None => PathBuf::from(config.get_string("ACCOUNTANT_DATABASE_FILE").map_err(|e| e.to_string())?),
    };
    Ok((accountant, log))
}

/// Reads a saved userprio ad (`condor_userprio -l` output).
fn read_userprio_ad(path: &std::path::Path) -> Result<(Vec<PriorityRow>, i64), String> {
    let text = classad::bounded_file::read_to_string(path).map_err(|e| format!("cannot read {e}"))?;
    let ads = classad::format::parse_ads(&text, None).map_err(|e| format!("{}: {e}", path.display()))?;
    let ad = ads.into_iter().next().unwrap_or_default();
    Ok(PriorityRow::from_userprio_ad(&ad))
}

/// Whether a row is among the names asked for (all when none are).
fn selected(names: &[String], row: &PriorityRow) -> bool {
    if names.is_empty() || row.is_group {
        return names.is_empty();
    }
    names.iter().any(|n| if n.contains('@') { *n == row.name } else { row.name.split('@').next() == Some(n.as_str()) })
}

/// The number an edit's value starts with, read as C's `atof` reads it
/// (`condor_userprio` does: `12abc` is 12); a value that does not start with
/// a number is an error (`condor_userprio` would take it for 0).
fn real(text: &str) -> Result<f64, String> {
    let t = text.trim_start();
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - digits_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - frac_start;
    }
    if digits == 0 {
        return Err(format!("`{text}` is not a number"));
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    t[..i].trim_end_matches('.').parse().map_err(|_| format!("`{text}` is not a number"))
}

/// The integer an edit's value starts with, read as C's `strtol` and `atoi`
/// read it (`2.7` is 2); a value that does not start with one is an error.
fn integer(text: &str) -> Result<i64, String> {
    let t = text.trim_start();
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == start {
        return Err(format!("`{text}` is not a number"));
    }
    t[..i].parse().map_err(|_| format!("`{text}` is out of range"))
}

/// Makes the edit asked for, if any; returns the exit code then.
fn edit(args: &Args, log: &std::path::Path, config: AccountantConfig, now: i64) -> Option<ExitCode> {
    type Op = Box<dyn FnOnce(&mut Accountant) -> Result<String, String>>;
    let pair = |v: &Option<Vec<String>>| v.as_ref().map(|p| (p[0].clone(), p[1].clone()));
    let op: Op = if let Some((name, value)) = pair(&args.setprio) {
        Box::new(move |a| {
            let v = real(&value)?;
            a.set_priority(&name, v).map_err(|e| e.to_string())?;
            Ok(format!("The priority of {name} was set to {v:.6}"))
        })
    } else if let Some((name, value)) = pair(&args.setfactor) {
        Box::new(move |a| {
            let v = real(&value)?;
            a.set_priority_factor(&name, v).map_err(|e| e.to_string())?;
            Ok(format!("The priority factor of {name} was set to {v:.6}"))
        })
    } else if let Some((name, value)) = pair(&args.setfloor) {
        Box::new(move |a| {
            let v = integer(&value)?;
            a.set_floor(&name, v).map_err(|e| e.to_string())?;
            Ok(format!("The floor of {name} was set to {v}"))
        })
    } else if let Some((name, value)) = pair(&args.setceiling) {
        Box::new(move |a| {
            let v = integer(&value)?;
            a.set_ceiling(&name, v).map_err(|e| e.to_string())?;
            Ok(format!("The ceiling of {name} was set to {v}"))
        })
    } else if let Some((name, value)) = pair(&args.setaccum) {
        Box::new(move |a| {
            let v = real(&value)?;
            a.set_accumulated_usage(&name, v).map_err(|e| e.to_string())?;
            Ok(format!("The Accumulated Usage of {name} was set to {v:.6}"))
        })
    } else if let Some((name, value)) = pair(&args.setbegin) {
        Box::new(move |a| {
            let v = integer(&value)?;
            a.set_begin_time(&name, v).map_err(|e| e.to_string())?;
            Ok(format!("The Begin Usage Time of {name} was set to {v}"))
        })
    } else if let Some((name, value)) = pair(&args.setlast) {
        Box::new(move |a| {
            let v = integer(&value)?;
            a.set_last_time(&name, v).map_err(|e| e.to_string())?;
            Ok(format!("The Last Usage Time of {name} was set to {v}"))
        })
    } else if let Some(name) = args.resetusage.clone() {
        Box::new(move |a| {
            a.reset_usage(&name, now).map_err(|e| e.to_string())?;
            Ok(format!("The accumulated usage of {name} was reset"))
        })
    } else if args.resetall {
        Box::new(move |a| {
            a.reset_all_usage(now).map_err(|e| e.to_string())?;
            Ok("The accumulated usage was reset for all users".to_string())
        })
    } else if let Some(name) = args.delete.clone() {
        Box::new(move |a| {
            a.delete_record(&name).map_err(|e| e.to_string())?;
            Ok(format!("The accountant record named {name} was deleted"))
        })
    } else {
        return None;
    };
    let (mut acct, report) = match Accountant::open(config, log, now) {
        Ok(opened) => opened,
        Err(e) => {
            eprintln!("negotiator-sim userprio: {e}");
            return Some(ExitCode::from(1));
        }
    };
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    Some(match op(&mut acct) {
        Ok(message) => {
            outln!("{message}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            // As condor_userprio: a bad name is reported with the program's
            // name, a bad value without.
            if message.starts_with("You must") {
                eprintln!("negotiator-sim userprio: {message}");
            } else {
                eprintln!("{message}");
            }
            ExitCode::from(1)
        }
    })
}

fn rows_json(rows: &[PriorityRow], last_update: i64) -> String {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.name,
                "is_group": r.is_group,
                "accounting_group": r.accounting_group,
                "effective_priority": r.effective_priority,
                "real_priority": if r.priority_factor > 0.0 { r.effective_priority / r.priority_factor } else { 0.0 },
                "priority_factor": r.priority_factor,
                "ceiling": r.ceiling,
                "floor": r.floor,
                "resources_used": r.resources_used,
                "weighted_resources_used": r.weighted_resources_used,
                "accumulated_usage": r.accumulated_usage,
                "weighted_accumulated_usage": r.weighted_accumulated_usage,
                "begin_usage_time": r.begin_usage_time,
                "last_usage_time": r.last_usage_time,
            })
        })
        .collect();
    serde_json::json!({ "last_update": last_update, "submitters": rows }).to_string()
}
