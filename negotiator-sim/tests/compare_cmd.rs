//! `negotiator-sim compare`: two policies on one workload, side by side.

use std::path::PathBuf;
use std::process::Command;

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
    let text = format!(
        r#"
seed = 7
duration = "6h"
claim_delay = "5s"
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

#[test]
fn a_missing_scenario_is_named() {
    let dir = temp("missing");
    let a = scenario(&dir, "a.toml", 1.0);
    let out = bin().arg("compare").arg(&a).arg(dir.join("nope.toml")).output().expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nope.toml"), "{err}");
}
