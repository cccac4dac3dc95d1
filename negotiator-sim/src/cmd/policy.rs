//! `negotiator-sim policy`: one slot under a startd policy, driven by a
//! trace of timed events; prints every change of state or activity with
//! the expression (or timer) that caused it, and the startd's actions.
//!
//! The trace is a text file, one event a line (`#` starts a comment):
//!
//! ```text
//! # time  event
//! 0       tick                  # the startd evaluates its policy
//! 10      match                 # the negotiator's match notification
//! 10      claim                 # the schedd claims for the --job ad (or: claim FILE)
//! 11      start                 # the shadow activates the claim (or: start FILE)
//! 600     set KeyboardIdle=0 LoadAvg=1.5
//! 600     run 1800              # the startd's own evaluations until 1800
//! 1800    exit                  # the job (starter) exits
//! ```
//!
//! Other events: `setjob NAME=EXPR ...` (the running job's ad changes),
//! `preempt FILE` (a preempting claim for another job),
//! `withdraw` (the preempting claim goes away), `release`, `schedd-gone`
//! (the claim lease starts running out), `suspend` and `continue`
//! (`condor_suspend`, `condor_continue`), `vacate`,
//! `vacate fast`, `drain [graceful|quick|fast] [resume]`, `cancel-drain`,
//! `benchmarks-done`, `backfill-start`, `backfill-exit`. Files are
//! relative to the trace's directory. Times are seconds from `--start`.
//! `set NAME=EXPR ...` changes attributes (an expression may contain
//! spaces: `set LoadAvg=1.0 + 0.5 KeyboardIdle=0`).
//! `set KeyboardIdle=N` (and `ConsoleIdle`) records when the keyboard was
//! last used; later evaluations see it grow with time, as on a real
//! machine. Other attributes keep the value set.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use classad::ClassAd;
use matchmaker::config::Loader;
use matchmaker::startd::{step, Event, Policy, Slot, Step};
use negotiator_sim::policy_trace::{self, Line, Verb};
use serde_json::{json, Value};

use super::stdout::outln;

/// Arguments of `policy`.
#[derive(clap::Args)]
pub struct Args {
    /// The startd's configuration (read as the STARTD subsystem).
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The job that claims the slot (an ad in old or new syntax, or JSON).
    #[arg(long, value_name = "FILE")]
    job: PathBuf,
    /// The machine's attributes (KeyboardIdle, LoadAvg, ...). Default: an
    /// idle machine (no load, keyboard idle for a day).
    #[arg(long, value_name = "FILE")]
    slot: Option<PathBuf>,
    /// The events.
    #[arg(long, value_name = "FILE")]
    trace: PathBuf,
    /// The epoch second trace time 0 stands for (for ClockMin/ClockDay,
    /// UTC).
    #[arg(long, value_name = "EPOCH", default_value_t = 0)]
    start: i64,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Most evaluations one `run` may make.
const MAX_RUN_STEPS: usize = 1_000_000;

/// An idle machine's attributes.
const DEFAULT_SLOT: &str = r#"[ Name = "slot1@example"; SlotID = 1; Cpus = 1; Memory = 2048; Disk = 1000000;
    LoadAvg = 0.0; CondorLoadAvg = 0.0; TotalLoadAvg = 0.0; KeyboardIdle = 86400; ConsoleIdle = 86400 ]"#;

fn read_ad(path: &Path) -> Result<ClassAd, String> {
    let text = classad::bounded_file::read_to_string(path).map_err(|e| e.to_string())?;
    let mut ads = classad::format::parse_ads(&text, None).map_err(|e| format!("{}: {e}", path.display()))?;
    if ads.is_empty() {
        return Err(format!("{}: no ad", path.display()));
    }
    Ok(ads.swap_remove(0))
}

/// The trace file at `path`, its files read relative to its directory.
fn parse_trace(path: &Path, job: &ClassAd) -> Result<Vec<Line>, String> {
    let text = classad::bounded_file::read_to_string(path).map_err(|e| e.to_string())?;
    let dir = path.parent().unwrap_or(Path::new("."));
    policy_trace::parse(&text, &path.display().to_string(), job, |file| read_ad(&dir.join(file)))
}

/// The machine: its attributes, and when the keyboard and console were
/// last used (so that their idle times grow).
struct Machine {
    ad: ClassAd,
    keyboard_used: Option<i64>,
    console_used: Option<i64>,
}

impl Machine {
    fn set(&mut self, changes: &ClassAd, now: i64) {
        for (name, expr) in changes.iter() {
            let idle = classad::parse_expr(&expr.to_string()).ok().and_then(|e| e.eval().as_f64());
            match (name.as_str().to_ascii_lowercase().as_str(), idle) {
                ("keyboardidle", Some(v)) => self.keyboard_used = Some(now.saturating_sub(v as i64)),
                ("consoleidle", Some(v)) => self.console_used = Some(now.saturating_sub(v as i64)),
                _ => {
                    self.ad.insert(name, expr.clone());
                }
            }
        }
    }

    fn at(&self, now: i64) -> ClassAd {
        let mut ad = self.ad.clone();
        if let Some(t) = self.keyboard_used {
            ad.insert("KeyboardIdle", now.saturating_sub(t).max(0));
        }
        if let Some(t) = self.console_used {
            ad.insert("ConsoleIdle", now.saturating_sub(t).max(0));
        }
        ad
    }
}

/// The step's transitions and actions, in the order they happened.
fn records(s: &Step, time: i64, start: i64, what: &str, out: &mut Vec<Value>) {
    let action = |a: &matchmaker::startd::Action| {
        json!({
            "time": time.saturating_sub(start),
            "event": what,
            "action": a.kind.to_string(),
            "knob": a.cause.knob(),
            "cause": a.cause.to_string(),
        })
    };
    let mut actions = s.actions.iter().peekable();
    for (i, t) in s.transitions.iter().enumerate() {
        while let Some(a) = actions.next_if(|a| a.after <= i) {
            out.push(action(a));
        }
        out.push(json!({
            "time": time.saturating_sub(start),
            "event": what,
            "from": format!("{}/{}", t.from.0, t.from.1),
            "to": format!("{}/{}", t.to.0, t.to.1),
            "transition": t.number,
            "knob": t.cause.knob(),
            "cause": t.cause.to_string(),
        }));
    }
    for a in actions {
        out.push(action(a));
    }
    for w in &s.warnings {
        out.push(json!({ "time": time.saturating_sub(start), "event": what, "warning": w }));
    }
}

fn text(record: &Value) -> String {
    let time = record["time"].as_i64().unwrap_or(0);
    let event = record["event"].as_str().unwrap_or("");
    let cause = record["cause"].as_str().unwrap_or("");
    if let Some(to) = record["to"].as_str() {
        let number = record["transition"].as_u64().map_or(String::new(), |n| format!(" (#{n})"));
        format!(
            "{time:>8}  {:<22} {} -> {to}{number}\n{:>8}  {:<22}   because {cause}",
            event,
            record["from"].as_str().unwrap_or(""),
            "",
            ""
        )
    } else if let Some(action) = record["action"].as_str() {
        format!("{time:>8}  {event:<22} action {action}: {cause}")
    } else {
        format!("{time:>8}  {event:<22} warning: {}", record["warning"].as_str().unwrap_or(""))
    }
}

fn simulate(args: &Args) -> Result<(Vec<Value>, Slot), String> {
    let config = Loader::new().subsystem("STARTD").load_file(&args.config).map_err(|e| e.to_string())?;
    let policy = Policy::from_config(&config).map_err(|e| e.to_string())?;
    let job = read_ad(&args.job)?;
    let slot_ad = match &args.slot {
        Some(p) => read_ad(p)?,
        None => DEFAULT_SLOT.parse().map_err(|e| format!("default slot ad: {e}"))?,
    };
    let lines = parse_trace(&args.trace, &job)?;
    let start = args.start;
    let mut machine = Machine { ad: slot_ad, keyboard_used: None, console_used: None };
    let mut slot = Slot::new(start.saturating_add(lines.first().map_or(0, |l| l.time)));
    let mut out = Vec::new();
    let mut next_check = slot.entered_state();
    for line in &lines {
        let now = start.saturating_add(line.time);
        match &line.verb {
            Verb::Set(changes) => machine.set(changes, now),
            Verb::Event(event) => {
                let s = step(&policy, &slot, &machine.at(now), event, now);
                records(&s, now, start, &line.text, &mut out);
                next_check = s.next_check;
                slot = s.slot;
            }
            Verb::Run(until) => {
                let until = start.saturating_add(*until);
                let mut steps = 0;
                let mut t = next_check.max(now);
                while t <= until {
                    steps += 1;
                    if steps > MAX_RUN_STEPS {
                        return Err(format!("'{}': more than {MAX_RUN_STEPS} evaluations", line.text));
                    }
                    let s = step(&policy, &slot, &machine.at(t), &Event::Tick, t);
                    records(&s, t, start, "(poll)", &mut out);
                    next_check = s.next_check.max(t.saturating_add(1));
                    if t == i64::MAX {
                        break;
                    }
                    slot = s.slot;
                    t = next_check;
                }
            }
        }
    }
    Ok((out, slot))
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    let (records, slot) = match simulate(&args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("negotiator-sim policy: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.json {
        let doc = json!({
            "records": records,
            "final": { "state": slot.state().as_str(), "activity": slot.activity().as_str() },
        });
        outln!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        for r in &records {
            outln!("{}", text(r));
        }
        outln!("final: {}/{}", slot.state(), slot.activity());
    }
    ExitCode::SUCCESS
}
