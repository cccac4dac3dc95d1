//! The accountant against HTCondor 23.9's own: logs written by a real
//! negotiator while users ran jobs (`tests/data/accountant/usage`, made by
//! `capture-usage.sh` there), and what `condor_userprio` printed at the same
//! moments.

use std::path::{Path, PathBuf};

use classad::{ClassAd, EvalContext, EvalOptions, Value};
use matchmaker::accountant::{Accountant, AccountantConfig, CustomerRecord, UserprioTable};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/accountant")
}

const SNAPSHOTS: [&str; 5] = ["running-1", "running-2", "running-3", "idle-1", "idle-2"];

/// The runs: `usage` (four users, no groups) and `groups` (accounting
/// groups, a nested group, a group priority factor and a nice user).
const RUNS: [&str; 2] = ["usage", "groups"];

/// A run's settings, read from the configuration the capture added to the
/// pool (a five-minute half-life).
fn config_of(run: &str) -> AccountantConfig {
    let path = data().join(run).join("override.config");
    let config = matchmaker::config::Config::from_file(&path).expect("the pool's configuration reads");
    let acct = AccountantConfig::from_config(&config).expect("accountant knobs");
    assert_eq!(acct.half_life, 300.0);
    acct
}

fn config() -> AccountantConfig {
    config_of("usage")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn epoch(dir: &Path) -> i64 {
    read(&dir.join("epoch")).trim().parse().expect("epoch")
}

#[test]
fn tables_are_condor_userprios_byte_for_byte() {
    for snap in SNAPSHOTS {
        let dir = data().join("usage").join(snap);
        let (acct, report) = Accountant::load(config(), &dir.join("Accountantnew.log")).expect("HTCondor's log loads");
        assert!(report.warnings.is_empty(), "{snap}: {:?}", report.warnings);
        let rows = acct.priority_rows();
        let now = epoch(&dir);
        let cases = [
            ("userprio-allusers.txt", UserprioTable::new(now).all_users()),
            ("userprio-allusers-all.txt", UserprioTable::new(now).all_users().all()),
            ("userprio-allusers-usage.txt", UserprioTable::new(now).all_users().usage()),
        ];
        for (file, table) in cases {
            let expected = read(&dir.join(file));
            let ours = table.render(&rows, acct.last_update());
            assert_eq!(ours, expected, "{snap}/{file}");
        }
    }
}

fn number(ad: &ClassAd, name: &str) -> f64 {
    let opts = EvalOptions::new();
    match EvalContext::new(&opts).my(ad).eval_attr(name) {
        Value::Int(i) => i as f64,
        Value::Real(r) => r,
        other => panic!("{name} = {other:?}"),
    }
}

/// Where our figures differ from those `condor_userprio -allusers -l`
/// reported (empty: none).
fn differences(acct: &Accountant, reported: &ClassAd) -> Vec<String> {
    let mut out = Vec::new();
    if number(reported, "LastUpdate") as i64 != acct.last_update() {
        out.push("LastUpdate".to_string());
    }
    let rows = acct.priority_rows();
    let count = number(reported, "NumSubmittors") as usize;
    if rows.len() != count {
        out.push(format!("{} records, HTCondor's {count}", rows.len()));
    }
    for n in 1..=count {
        let opts = EvalOptions::new();
        let name = match EvalContext::new(&opts).my(reported).eval_attr(format!("Name{n}").as_str()) {
            Value::Str(s) => s.as_str().to_string(),
            other => panic!("Name{n} = {other:?}"),
        };
        let Some(row) = rows.iter().find(|r| r.name == name) else {
            out.push(format!("no row for {name}"));
            continue;
        };
        let mut close = |attr: &str, ours: f64| {
            let theirs = number(reported, &format!("{attr}{n}"));
            if (ours - theirs).abs() > 1e-6 * theirs.abs().max(1.0) {
                out.push(format!("{name} {attr}: ours {ours}, HTCondor's {theirs}"));
            }
        };
        close("Priority", row.effective_priority);
        close("PriorityFactor", row.priority_factor);
        close("ResourcesUsed", row.resources_used as f64);
        close("WeightedResourcesUsed", row.weighted_resources_used);
        close("AccumulatedUsage", row.accumulated_usage);
        close("WeightedAccumulatedUsage", row.weighted_accumulated_usage);
        close("BeginUsageTime", row.begin_usage_time as f64);
        close("LastUsageTime", row.last_usage_time as f64);
        if !row.is_group {
            close("Ceiling", row.ceiling as f64);
            close("Floor", row.floor as f64);
        }
    }
    out
}

#[test]
fn figures_are_those_the_negotiator_reported() {
    let mut compared = 0;
    for (run, snap) in RUNS.iter().flat_map(|r| SNAPSHOTS.iter().map(move |s| (*r, *s))) {
        let dir = data().join(run).join(snap);
        if !dir.exists() {
            continue;
        }
        let text = read(&dir.join("userprio-allusers-l.txt"));
        let reported: ClassAd = classad::format::parse_ads(&text, Some(classad::format::Format::Old))
            .expect("condor_userprio -l parses")
            .into_iter()
            .next()
            .expect("one ad");
        let (mut acct, _) = Accountant::load(config_of(run), &dir.join("Accountantnew.log")).expect("loads");
        let as_logged = differences(&acct, &reported);
        if as_logged.is_empty() {
            compared += 1;
            continue;
        }
        // The negotiator rebuilds usage from the slots right after its
        // update, and the matches it adds or removes then are not synced to
        // the log at once: the copy of the log can miss them. Redo that step
        // with the slot ads taken at the snapshot.
        let slots = classad::format::parse_ads(&read(&dir.join("slots-l.txt")), None).expect("slot ads parse");
        let now = acct.last_update();
        acct.check_matches(now, &slots).expect("check matches");
        let after_check = differences(&acct, &reported);
        assert!(
            after_check.is_empty(),
            "{run} {snap}: as logged {as_logged:?}; after the cycle's matches {after_check:?}"
        );
        compared += 1;
    }
    assert!(compared >= 9, "only {compared} snapshots compared");
}

fn customers(acct: &Accountant) -> Vec<CustomerRecord> {
    let mut all = acct.customers().to_vec();
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all
}

/// Every priority update in the real negotiator's log, redone here from the
/// state just before it, gives exactly the records HTCondor wrote.
#[test]
fn every_update_in_htcondors_logs_is_reproduced() {
    for (run, last) in [("usage", "idle-2"), ("groups", "idle-1")] {
        replay_updates(run, &read(&data().join(run).join(last).join("Accountantnew.log")));
    }
}

fn replay_updates(run: &str, text: &str) {
    let config = || config_of(run);
    let marker = "103 Accountant. LastUpdateTime ";
    let mut updates = 0;
    let mut with_usage = 0;
    let mut at = 0;
    while let Some(found) = text[at..].find(marker) {
        let start = at + found;
        let line_end = start + text[start..].find('\n').expect("complete line");
        let time: i64 = text[start + marker.len()..line_end].trim().parse().expect("time");
        // The update's transaction follows the time stamp.
        let end = line_end + text[line_end..].find("\n106").expect("update committed") + 1;
        let after = end + text[end..].find('\n').expect("complete line") + 1;
        // An update that changes nothing writes no transaction.
        let after = if text[line_end + 1..].starts_with("105") { after } else { line_end + 1 };
        at = after;
        let (mut ours, _) = Accountant::from_log_text(config(), &text[..start]).expect("state before");
        if ours.last_update() == 0 {
            continue; // the first update of a new log: nothing to decay from
        }
        let (theirs, _) = Accountant::from_log_text(config(), &text[..after]).expect("state after");
        if ours.customers().iter().any(|c| c.resources_used.unwrap_or(0) > 0 || c.uncharged_time.unwrap_or(0) != 0) {
            with_usage += 1;
        }
        ours.update_priorities(time).expect("update");
        assert_eq!(customers(&ours), customers(&theirs), "{run}: the update at {time}");
        updates += 1;
    }
    assert!(updates >= 20, "{run}: only {updates} updates replayed");
    assert!(with_usage >= 15, "{run}: only {with_usage} updates with usage or uncharged time");
}

/// A log written here (by `examples/accountant_log.rs`: matches, updates,
/// edits and compactions) was loaded by HTCondor 23.9's negotiator
/// (`check_load.sh`, half-life made huge so that its start-up update changes
/// nothing); it reported the priorities, factors and ceilings we read.
#[test]
fn htcondor_loads_a_log_written_here() {
    let dir = data().join("check");
    let (acct, report) =
        Accountant::load(AccountantConfig::default(), &dir.join("classad-rs-written-input.log")).expect("loads");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let text = read(&dir.join("classad-rs-written/userprio-allusers-l.txt"));
    let reported: ClassAd = classad::format::parse_ads(&text, Some(classad::format::Format::Old))
        .expect("condor_userprio -l parses")
        .into_iter()
        .next()
        .expect("one ad");
    let users = acct.customers().iter().filter(|c| c.name.contains('@')).count();
    assert_eq!(users, 3);
    let count = number(&reported, "NumSubmittors") as usize;
    let mut seen = 0;
    for n in 1..=count {
        let opts = EvalOptions::new();
        let Value::Str(name) = EvalContext::new(&opts).my(&reported).eval_attr(format!("Name{n}").as_str()) else {
            panic!("Name{n}");
        };
        let name = name.as_str();
        if !name.contains('@') {
            continue;
        }
        seen += 1;
        let eup = number(&reported, &format!("Priority{n}"));
        assert!((acct.effective_priority(name) - eup).abs() < 1e-6 * eup, "{name}: {eup}");
        assert_eq!(acct.priority_factor(name), number(&reported, &format!("PriorityFactor{n}")), "{name}");
        assert_eq!(acct.ceiling(name).unwrap_or(-1) as f64, number(&reported, &format!("Ceiling{n}")), "{name}");
    }
    assert_eq!(seen, 3);
}
