//! Each captured HTCondor cycle says how to replay it (`replay.sh` in its
//! directory under `matchmaker/tests/data/cycle/`): run as documented, with
//! this build's `negotiator-sim`, it gives what condor_negotiator decided
//! (its `summary.txt`): the matches of each submitter, the total and the
//! rejections in order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn snapshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../matchmaker/tests/data/cycle")
}

/// What HTCondor decided, from `summary.txt`: matches per submitter, the
/// total and the rejections (job, submitter, reason), in order.
struct Decided {
    total: usize,
    per_submitter: BTreeMap<String, u64>,
    rejections: Vec<(String, String, String)>,
}

fn decided(dir: &Path) -> Decided {
    let text = std::fs::read_to_string(dir.join("summary.txt")).expect("summary.txt");
    let mut d = Decided { total: 0, per_submitter: BTreeMap::new(), rejections: Vec::new() };
    for line in text.lines() {
        match line.split('\t').collect::<Vec<_>>().as_slice() {
            ["matches_by_submitter", name, n] => {
                d.per_submitter.insert(name.to_string(), n.parse().expect("a count"));
            }
            ["rejected", job, name, reason] => {
                d.rejections.push((job.to_string(), name.to_string(), reason.to_string()))
            }
            _ => {
                if let Some(n) = line.strip_prefix("matches ") {
                    d.total = n.trim().parse().expect("the total");
                }
            }
        }
    }
    d
}

/// Runs a snapshot's `replay.sh` as its comment says, with `--json -q`.
fn replay(dir: &Path) -> serde_json::Value {
    let out = Command::new("sh")
        .arg(dir.join("replay.sh"))
        .args(["--json", "-q"])
        .env("NEGOTIATOR_SIM", env!("CARGO_BIN_EXE_negotiator-sim"))
        .output()
        .expect("sh runs");
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    // A snapshot's configuration is a dump, read alone: no warning about
    // this machine's local files.
    assert!(out.stderr.is_empty(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Every snapshot with slots and jobs has a `replay.sh`, and replaying it
/// gives HTCondor's decisions.
#[test]
fn every_snapshot_replays_to_htcondors_decisions() {
    let mut replayed = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(snapshots())
        .expect("the snapshots")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.join("summary.txt").exists() && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("snap-"))
        })
        .collect();
    dirs.sort();
    for dir in &dirs {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        assert!(dir.join("replay.sh").exists(), "{name} has no replay.sh");
        if name == "snap-50000-50000-20-200" {
            // Only HTCondor's results were kept: its replay.sh rebuilds
            // the pool with `negotiator-sim bench`.
            bench_replays_to_htcondors_decisions(dir);
            replayed.push(name);
            continue;
        }
        let theirs = decided(dir);
        let ours = replay(dir);
        let mut per_submitter: BTreeMap<String, u64> = BTreeMap::new();
        for m in ours["matches"].as_array().expect("matches") {
            *per_submitter.entry(m["submitter"].as_str().expect("submitter").to_string()).or_default() += 1;
        }
        let rejections: Vec<(String, String, String)> = ours["rejections"]
            .as_array()
            .expect("rejections")
            .iter()
            .map(|r| {
                let text = |k: &str| r[k].as_str().unwrap_or_default().to_string();
                (text("job"), text("submitter"), text("reason"))
            })
            .collect();
        assert_eq!(per_submitter.values().sum::<u64>() as usize, theirs.total, "{name}: matches");
        if name == "snap-10000-10000-10-100" {
            // Ties broken by the collector's hash order in HTCondor's run
            // (see the matchmaker's cycle_oracle test): each submitter
            // within 5, the same number of rejections.
            for (who, n) in &theirs.per_submitter {
                let got = per_submitter.get(who).copied().unwrap_or(0);
                assert!(got.abs_diff(*n) <= 5, "{name}: {who}: ours {got}, HTCondor's {n}");
            }
            assert_eq!(rejections.len(), theirs.rejections.len(), "{name}: rejections");
        } else if name.starts_with("snap-pslot-preempt") {
            // A real schedd names an autocluster's next idle job in a later
            // spin's request, ours the first: rejections by cluster.
            assert_eq!(per_submitter, theirs.per_submitter, "{name}: matches per submitter");
            let cluster = |v: &[(String, String, String)]| -> Vec<(String, String, String)> {
                v.iter()
                    .map(|(j, s, r)| (j.split('.').next().unwrap_or_default().to_string(), s.clone(), r.clone()))
                    .collect()
            };
            assert_eq!(cluster(&rejections), cluster(&theirs.rejections), "{name}: rejections");
        } else {
            assert_eq!(per_submitter, theirs.per_submitter, "{name}: matches per submitter");
            assert_eq!(rejections, theirs.rejections, "{name}: rejections");
        }
        replayed.push(name);
    }
    assert!(replayed.len() >= 25, "{replayed:?}");
}

/// The 50,000-slot capture's `replay.sh`, run as its comment says (one
/// cycle, JSON): HTCondor's matches per submitter and its number of
/// rejections.
fn bench_replays_to_htcondors_decisions(dir: &Path) {
    let out = Command::new("sh")
        .arg(dir.join("replay.sh"))
        .args(["--json", "--repeat", "1"])
        .env("NEGOTIATOR_SIM", env!("CARGO_BIN_EXE_negotiator-sim"))
        .output()
        .expect("sh runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let theirs = decided(dir);
    let ours: BTreeMap<String, u64> = json["matches_by_submitter"]
        .as_object()
        .expect("matches_by_submitter")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
        .collect();
    assert_eq!(ours, theirs.per_submitter, "matches per submitter");
    assert_eq!(json["Matches"].as_u64(), Some(theirs.total as u64));
    assert_eq!(json["Rejections"].as_u64(), Some(theirs.rejections.len() as u64));
}

/// The bench snapshot the docs quote: 250/250/269/175 and 6 rejections.
#[test]
fn the_1000_slot_bench_cycle_replays_as_the_docs_say() {
    let json = replay(&snapshots().join("snap-1000-1000-4-8"));
    let per_user: Vec<u64> = json["submitters"]
        .as_array()
        .expect("submitters")
        .iter()
        .map(|s| s["matches"].as_u64().expect("matches"))
        .collect();
    assert_eq!(per_user, [250, 250, 269, 175]);
    assert_eq!(json["rejections"].as_array().map(Vec::len), Some(6));
}
