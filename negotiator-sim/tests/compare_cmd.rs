//! `negotiator-sim compare`: two policies on one workload, side by side.

use std::path::PathBuf;
use std::process::Command;

use negotiator_sim::output::csv::read_file;
use negotiator_sim::table::Column;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_negotiator-sim"))
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("compare-cmd-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A small pool that two users overload, with `bob`'s priority factor.
fn scenario(dir: &std::path::Path, name: &str, bob_factor: f64) -> PathBuf {
    scenario_with(dir, name, bob_factor, "")
}

/// [`scenario`] with more top-level settings (`extra`, TOML lines).
fn scenario_with(dir: &std::path::Path, name: &str, bob_factor: f64, extra: &str) -> PathBuf {
    let text = format!(
        r#"
seed = 7
duration = "6h"
claim_delay = "5s"
{extra}
config = """
NEGOTIATOR_INTERVAL = 60
PRIORITY_HALFLIFE = 1800
"""
[[pool.machines]]
count = 4
cpus = 4
memory = 16384
[[users]]
name = "alice"
arrival = {{ process = "poisson", mean_interval = "1m" }}
runtime = {{ distribution = "exponential", mean = "30m" }}
[[users]]
name = "bob"
priority_factor = {bob_factor}
arrival = {{ process = "poisson", mean_interval = "1m" }}
runtime = {{ distribution = "exponential", mean = "30m" }}
"#
    );
    let path = dir.join(name);
    std::fs::write(&path, text).expect("scenario written");
    path
}

/// The comparison's line for `measure` of `user` (the lines under a
/// user's heading), as its numbers.
fn row(text: &str, user: &str, measure: &str) -> Vec<f64> {
    let mut in_user = false;
    for line in text.lines() {
        if !line.starts_with(' ') {
            in_user = line.trim_end_matches(':').trim() == user;
            continue;
        }
        if in_user && line.trim_start().starts_with(measure) {
            return line.split_whitespace().filter_map(|w| w.trim_end_matches('%').parse::<f64>().ok()).collect();
        }
    }
    panic!("no {measure} line for {user} in:\n{text}");
}

#[test]
fn a_scenario_against_itself_differs_in_nothing() {
    let dir = temp("same");
    let a = scenario(&dir, "a.toml", 1.0);
    let out = bin().arg("compare").arg("--quiet").arg(&a).arg(&a).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for user in ["alice@sim", "bob@sim"] {
        let jobs = row(&text, user, "jobs");
        assert_eq!(jobs.len(), 3, "{text}");
        assert_eq!(jobs[0], jobs[1], "{text}");
        assert_eq!(jobs[2], 0.0, "{text}");
        let wait = row(&text, user, "mean wait");
        assert_eq!(wait[0], wait[1], "{text}");
    }
}

#[test]
fn a_worse_factor_makes_its_user_wait_longer() {
    let dir = temp("factor");
    let a = scenario(&dir, "a.toml", 1.0);
    let b = scenario(&dir, "b.toml", 100.0);
    let out =
        bin().arg("compare").arg("--quiet").arg("--out").arg(dir.join("out")).arg(&a).arg(&b).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    // The same workload: the same jobs in both runs.
    let jobs = row(&text, "bob@sim", "jobs");
    assert_eq!(jobs[0], jobs[1], "{text}");
    // Bob, with a factor 100 times worse, waits longer in B; alice less.
    let bob = row(&text, "bob@sim", "mean wait");
    let alice = row(&text, "alice@sim", "mean wait");
    assert!(bob[1] > bob[0], "{text}");
    assert!(alice[1] < alice[0], "{text}");
    for file in ["compare.csv", "report.html", "a/jobs.csv", "b/jobs.csv"] {
        assert!(dir.join("out").join(file).is_file(), "{file} written");
    }
    let csv = std::fs::read_to_string(dir.join("out/compare.csv")).expect("compare.csv");
    assert!(csv.starts_with("user,fair_share_error_a,"), "{csv}");
}

/// Each user's utilisation, as `compare` gives it, is the fraction of the
/// pool's slot-time its jobs held, even when the `users` table has a row
/// only every tenth cycle (`record_every`): checked against the `jobs`
/// table, where a job held its (one-core) slot from submission to its end
/// (or the end of the run), less its wait.
#[test]
fn utilisation_is_the_users_share_of_slot_time_with_record_every() {
    let dir = temp("record-every");
    let a = scenario_with(&dir, "a.toml", 1.0, r#"record_every = "10m""#);
    let out = dir.join("out");
    let run = bin().arg("compare").arg("--quiet").arg("--out").arg(&out).arg(&a).arg(&a).output().expect("runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let text = String::from_utf8_lossy(&run.stdout);
    let jobs = read_file(&out.join("a/jobs.csv")).expect("jobs.csv");
    let cycles = read_file(&out.join("a/cycles.csv")).expect("cycles.csv");
    let compare = read_file(&out.join("compare.csv")).expect("compare.csv");
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    let (Some(Column::Float(total)), Some(Column::Int(times))) = (cycles.column("total_slots"), cycles.column("time"))
    else {
        panic!("cycles: {cycles:?}")
    };
    assert!(times.len() > 300, "one cycle a minute for 6 hours: {}", times.len());
    let users = read_file(&out.join("a/users.csv")).expect("users.csv");
    assert!(users.rows() < times.len(), "users recorded every 10 minutes only: {} rows", users.rows());
    let span = 6.0 * 3600.0;
    let slots = total[0];
    let (Some(Column::Str(user)), Some(Column::Int(submit)), Some(Column::Int(end)), Some(Column::Int(wait))) =
        (jobs.column("user"), jobs.column("submit"), jobs.column("end"), jobs.column("wait"))
    else {
        panic!("jobs: {jobs:?}")
    };
    let (Some(Column::Str(rows)), Some(Column::Float(utilisation_a))) =
        (compare.column("user"), compare.column("utilisation_a"))
    else {
        panic!("compare: {compare:?}")
    };
    let mut pool = 0.0;
    for name in ["alice@sim", "bob@sim"] {
        let held: f64 = (0..user.len())
            .filter(|&i| user[i] == name)
            .map(|i| {
                let until = if end[i] >= 0 { end[i] as f64 } else { span };
                (until - submit[i] as f64 - wait[i] as f64).max(0.0)
            })
            .sum();
        let expected = held / (slots * span);
        assert!(expected > 0.05, "{name} holds some of the pool: {expected}");
        pool += expected;
        let at = rows.iter().position(|r| r == name).expect("a row per user");
        let got = utilisation_a[at];
        assert!((got - expected).abs() < 0.05, "{name}: utilisation {got}, from the jobs {expected}\n{text}");
        // The text shows the same figure, in per cent.
        let shown = row(&text, name, "utilisation");
        assert!((shown[0] - 100.0 * got).abs() < 0.051, "{name}: {shown:?} against {got}\n{text}");
        // And so does the HTML report, in the user's table.
        let cell = format!("utilisation</td><td>{:.1} %</td>", 100.0 * got);
        let heading = format!("<th colspan=\"4\">{name}</th>");
        let rows = html.split(&heading).nth(1).and_then(|rest| rest.split("<th colspan").next()).unwrap_or_default();
        assert!(rows.contains(&cell), "{name}: no {cell} under its heading in the report: {rows}");
    }
    assert!(pool > 0.9, "the two users keep the pool busy: {pool}");
    // `report --compare` on the two runs' directories gives the same figures.
    let again = dir.join("report");
    let run = bin()
        .arg("report")
        .arg(out.join("a"))
        .arg("--compare")
        .arg(out.join("b"))
        .arg("--out")
        .arg(&again)
        .arg("--no-png")
        .output()
        .expect("runs");
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let reported = read_file(&again.join("compare.csv")).expect("compare.csv");
    assert_eq!(reported.column("utilisation_a"), compare.column("utilisation_a"));
}

#[test]
fn a_missing_scenario_is_named() {
    let dir = temp("missing");
    let a = scenario(&dir, "a.toml", 1.0);
    let out = bin().arg("compare").arg(&a).arg(dir.join("nope.toml")).output().expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nope.toml"), "{err}");
}
