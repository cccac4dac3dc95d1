//! `negotiator-sim slots`: the slot ads a `condor_startd` would advertise
//! for a machine and a configuration, optionally after jobs claim dynamic
//! slots, in `condor_status -long` form or as JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use classad::format::{Format, Writer};
use matchmaker::config::Loader;
use matchmaker::snapshot::read_ads;
use matchmaker::startd::slots::{Machine, Startd};

use super::stdout;

/// Arguments of `negotiator-sim slots`.
#[derive(clap::Args)]
pub struct Args {
    /// The startd's configuration file (without one, HTCondor's defaults).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The machine: a TOML description (name, cpus, memory, disk, swap,
    /// [resources], [attributes]). The flags below override its values.
    #[arg(long, value_name = "FILE")]
    machine: Option<PathBuf>,
    /// Host name.
    #[arg(long)]
    name: Option<String>,
    /// Detected CPUs.
    #[arg(long)]
    cpus: Option<u32>,
    /// Detected memory, MB.
    #[arg(long)]
    memory: Option<i64>,
    /// Free disk of the execute directory, KB.
    #[arg(long)]
    disk: Option<i64>,
    /// Swap, KB.
    #[arg(long)]
    swap: Option<i64>,
    /// A detected device resource, `NAME=id1,id2,...` or `NAME=COUNT`
    /// (repeatable).
    #[arg(long = "resource", value_name = "NAME=IDS")]
    resources: Vec<String>,
    /// Job ads (`condor_q -long` or new-syntax files): each job claims a
    /// dynamic slot of the first partitionable slot that takes it, in order.
    #[arg(long = "claim", value_name = "FILE")]
    claims: Vec<PathBuf>,
    /// Print the ads as JSON (`condor_status -json`).
    #[arg(long)]
    json: bool,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("negotiator-sim slots: {message}");
    ExitCode::FAILURE
}

fn machine(args: &Args) -> Result<Machine, String> {
    let mut m = match &args.machine {
        Some(path) => {
            let text = classad::bounded_file::read_to_string(path).map_err(|e| e.to_string())?;
            Machine::from_toml_str(&text, &path.display().to_string()).map_err(|e| e.to_string())?
        }
        None => Machine::default(),
    };
    if let Some(n) = &args.name {
        m.name = n.clone();
    }
    if let Some(c) = args.cpus {
        m.cpus = c;
    }
    if let Some(v) = args.memory {
        m.memory = v;
    }
    if let Some(v) = args.disk {
        m.disk = v;
    }
    if let Some(v) = args.swap {
        m.swap = v;
    }
    for r in &args.resources {
        let (name, value) =
            r.split_once('=').ok_or_else(|| format!("--resource {r}: expected NAME=IDS or NAME=COUNT"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("--resource {r}: no resource name"));
        }
        match value.trim().parse::<u32>() {
            Ok(n) => {
                m.counts.insert(name.to_string(), f64::from(n));
            }
            Err(_) => {
                let ids = value.split([',', ' ']).filter(|s| !s.is_empty()).map(str::to_string).collect();
                m.resources.insert(name.to_string(), ids);
            }
        }
    }
    Ok(m)
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    let machine = match machine(&args) {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    let loader = Loader::new().subsystem("STARTD");
    let config = match &args.config {
        Some(f) => match loader.load_file(f) {
            Ok(c) => c,
            Err(e) => return fail(e),
        },
        None => loader.defaults(),
    };
    let mut startd = match Startd::new(machine, &config) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    for path in &args.claims {
        let jobs = match read_ads(path) {
            Ok(j) => j,
            Err(e) => return fail(e),
        };
        for (i, job) in jobs.iter().enumerate() {
            let parents: Vec<String> = startd
                .layout()
                .slots
                .iter()
                .filter(|s| s.kind == matchmaker::startd::slots::SlotKind::Partitionable)
                .map(|s| startd.slot_name(s))
                .collect();
            let mut last_err = None;
            let mut claimed = false;
            for p in &parents {
                match startd.claim(p, job) {
                    Ok(_) => {
                        claimed = true;
                        break;
                    }
                    Err(e) => last_err = Some(e),
                }
            }
            if !claimed {
                let why = last_err.map_or_else(|| "no partitionable slot".to_string(), |e| e.to_string());
                return fail(format!("{}, job {}: {why}", path.display(), i + 1));
            }
        }
    }
    let ads = startd.ads();
    for w in startd.warnings() {
        eprintln!("negotiator-sim slots: warning: {w}");
    }
    let mut writer = Writer::new(stdout::stdout(), if args.json { Format::Json } else { Format::Old });
    for ad in &ads {
        if let Err(e) = writer.write(ad) {
            return fail(e);
        }
    }
    match writer.finish() {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}
