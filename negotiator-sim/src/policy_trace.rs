//! The event traces of `negotiator-sim policy`: one slot under a startd
//! policy, driven by timed events, one a line (`#` starts a comment):
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
//! The other events are listed in the command's documentation
//! (`negotiator-sim policy --help`). Times may not go backwards.
//!
//! ```
//! use negotiator_sim::policy_trace::{parse, Verb};
//! let job: classad::ClassAd = "[ Owner = \"a\" ]".parse()?;
//! let lines = parse("0 tick\n5 set LoadAvg=1.0 + 0.5\n9 run 60\n", "t.trace", &job, |_| Err("no files".into()))?;
//! assert!(matches!(lines[2].verb, Verb::Run(60)));
//! let err = parse("5 tick\n1 tick\n", "t.trace", &job, |_| Err("no files".into())).unwrap_err();
//! assert_eq!(err, "t.trace, line 2: time 1 is before the previous line's 5");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use classad::ClassAd;
use matchmaker::startd::{DrainHow, Event};

/// What a trace line asks for.
#[derive(Debug)]
pub enum Verb {
    /// An event for the startd.
    Event(Event),
    /// `set`: the machine's attributes change.
    Set(ClassAd),
    /// `run UNTIL`: the startd's own evaluations until that time.
    Run(i64),
}

/// One event line of a trace.
#[derive(Debug)]
pub struct Line {
    /// Its time, in seconds from the trace's start.
    pub time: i64,
    /// The line after the time, without its comment.
    pub text: String,
    /// What it asks for.
    pub verb: Verb,
}

/// Reads a trace's text (see the module's documentation); `origin` names
/// it in errors (which say the line), `read_ad` reads the ad file a
/// `claim`, `start` or `preempt` line names, and `job` is the ad a bare
/// `claim` stands for.
pub fn parse(
    text: &str,
    origin: &str,
    job: &ClassAd,
    read_ad: impl Fn(&str) -> Result<ClassAd, String>,
) -> Result<Vec<Line>, String> {
    let mut lines = Vec::new();
    let mut last = i64::MIN;
    for (i, raw) in text.lines().enumerate() {
        let at = |msg: String| format!("{origin}, line {}: {msg}", i + 1);
        let line = raw.split_once('#').map_or(raw, |(l, _)| l).trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let time_word = words.next().unwrap_or_default();
        let time: i64 =
            time_word.parse().map_err(|_| at(format!("expected a time in seconds, found '{time_word}'")))?;
        if time < last {
            return Err(at(format!("time {time} is before the previous line's {last}")));
        }
        last = time;
        let verb_word = words.next().ok_or_else(|| at("expected an event after the time".into()))?;
        let args: Vec<&str> = words.collect();
        let file_ad = |args: &[&str]| -> Result<Option<ClassAd>, String> {
            match args {
                [] => Ok(None),
                [f] => read_ad(f).map(Some).map_err(at),
                _ => Err(at(format!("'{verb_word}' takes at most one file"))),
            }
        };
        let no_args = |args: &[&str]| {
            if args.is_empty() {
                Ok(())
            } else {
                Err(at(format!("'{verb_word}' takes no arguments")))
            }
        };
        let verb = match verb_word {
            "tick" => no_args(&args).map(|()| Verb::Event(Event::Tick))?,
            "match" => no_args(&args).map(|()| Verb::Event(Event::Matched))?,
            "claim" => Verb::Event(Event::ClaimRequested { job: file_ad(&args)?.unwrap_or_else(|| job.clone()) }),
            "preempt" => match file_ad(&args)? {
                Some(job) => Verb::Event(Event::ClaimRequested { job }),
                None => return Err(at("'preempt' needs the preempting job's ad file".into())),
            },
            "withdraw" => no_args(&args).map(|()| Verb::Event(Event::PreemptingClaimWithdrawn))?,
            "start" => Verb::Event(Event::JobStarted { job: file_ad(&args)? }),
            "exit" => no_args(&args).map(|()| Verb::Event(Event::JobExited))?,
            "release" => no_args(&args).map(|()| Verb::Event(Event::ClaimReleased))?,
            "schedd-gone" => no_args(&args).map(|()| Verb::Event(Event::ScheddGone))?,
            "suspend" => no_args(&args).map(|()| Verb::Event(Event::SuspendClaim))?,
            "continue" => no_args(&args).map(|()| Verb::Event(Event::ContinueClaim))?,
            "vacate" => match args.as_slice() {
                [] => Verb::Event(Event::Vacate { fast: false }),
                ["fast"] => Verb::Event(Event::Vacate { fast: true }),
                _ => return Err(at("expected 'vacate' or 'vacate fast'".into())),
            },
            "drain" => {
                let mut how = DrainHow::Graceful;
                let mut resume = false;
                for a in &args {
                    match *a {
                        "graceful" => how = DrainHow::Graceful,
                        "quick" => how = DrainHow::Quick,
                        "fast" => how = DrainHow::Fast,
                        "resume" => resume = true,
                        other => {
                            return Err(at(format!("unknown drain option '{other}' (graceful, quick, fast, resume)")))
                        }
                    }
                }
                Verb::Event(Event::Drain { how, resume_on_completion: resume })
            }
            "cancel-drain" => no_args(&args).map(|()| Verb::Event(Event::CancelDrain))?,
            "benchmarks-done" => no_args(&args).map(|()| Verb::Event(Event::BenchmarksDone))?,
            "backfill-start" => no_args(&args).map(|()| Verb::Event(Event::BackfillStarted))?,
            "backfill-exit" => no_args(&args).map(|()| Verb::Event(Event::BackfillExited))?,
            "set" | "setjob" => {
                if args.is_empty() {
                    return Err(at(format!("'{verb_word}' needs NAME=EXPR")));
                }
                let mut ad = ClassAd::new();
                for (name, expr) in assignments(&args).map_err(at)? {
                    ad.insert_expr(name.as_str(), &expr).map_err(|e| at(format!("{name}: {e}")))?;
                }
                if verb_word == "set" {
                    Verb::Set(ad)
                } else {
                    Verb::Event(Event::JobUpdated { changes: ad })
                }
            }
            "run" => match args.as_slice() {
                [until] => Verb::Run(until.parse().map_err(|_| at(format!("expected a time, found '{until}'")))?),
                _ => return Err(at("expected 'run UNTIL'".into())),
            },
            other => return Err(at(format!("unknown event '{other}'"))),
        };
        let text = line[time_word.len()..].trim().to_string();
        lines.push(Line { time, text, verb });
    }
    Ok(lines)
}

/// `NAME=EXPR` assignments from the words of a `set` line: a word that
/// starts with a name and `=` (not `==`) begins one, other words continue
/// the expression before (`set LoadAvg=1.0 + 0.5 KeyboardIdle=0`).
fn assignments(words: &[&str]) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    for w in words {
        let starts = w.find('=').filter(|&i| {
            let name = &w[..i];
            !w[i + 1..].starts_with('=')
                && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        });
        match (starts, out.last_mut()) {
            (Some(i), _) => out.push((w[..i].to_string(), w[i + 1..].to_string())),
            (None, Some((_, expr))) => {
                expr.push(' ');
                expr.push_str(w);
            }
            (None, None) => return Err(format!("expected NAME=EXPR, found '{w}'")),
        }
    }
    Ok(out)
}
