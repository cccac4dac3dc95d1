//! `negotiator-sim simulate` as a user runs it: files written, identical
//! from run to run, errors that name the place.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_negotiator-sim"))
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("simulate-cmd-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/two-users.toml")
}

#[test]
fn two_runs_write_identical_files() {
    let dir = temp("twice");
    for run in ["a", "b"] {
        let out = bin()
            .args(["simulate", "--quiet", "--until", "8h", "--format", "csv,parquet", "--out"])
            .arg(dir.join(run))
            .arg(example())
            .output()
            .expect("runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stderr.is_empty(), "--quiet prints nothing: {}", String::from_utf8_lossy(&out.stderr));
    }
    for table in ["users", "groups", "cycles", "jobs"] {
        for ext in ["csv", "parquet"] {
            let a = std::fs::read(dir.join("a").join(format!("{table}.{ext}"))).expect("written");
            let b = std::fs::read(dir.join("b").join(format!("{table}.{ext}"))).expect("written");
            assert_eq!(a, b, "{table}.{ext}");
        }
    }
    let jobs = std::fs::read_to_string(dir.join("a/jobs.csv")).expect("jobs");
    assert!(jobs.starts_with("job,user,group,submit,start,end,wait,run,badput,preemptions,slot\n"));
    assert!(jobs.lines().count() > 100);
    // Another seed, other jobs.
    let out = bin()
        .args(["simulate", "-q", "--until", "8h", "--seed", "99", "--out"])
        .arg(dir.join("c"))
        .arg(example())
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert_ne!(std::fs::read(dir.join("c/jobs.csv")).expect("written"), jobs.as_bytes());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn summary_and_errors() {
    let out = bin().args(["simulate", "--until", "2h"]).arg(example()).output().expect("runs");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("jobs submitted") && err.contains("cycles"), "{err}");

    let dir = temp("bad");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "seed = 1\n[[pool.machines]]\ncpus = 4\nmemory = 4096\nflavour = 2\n").expect("writes");
    let out = bin().arg("simulate").arg(&bad).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml:5:1: ") && err.contains("flavour"), "{err}");

    let out = bin().args(["simulate", "--until", "soon"]).arg(example()).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--until"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pool_from_condor_status_and_an_swf_trace() {
    let dir = temp("dump");
    // Two static slots and a partitionable one, as condor_status -long
    // prints them (trimmed).
    std::fs::write(
        dir.join("slots.ad"),
        "MyType = \"Machine\"\nName = \"slot1@a.site\"\nMachine = \"a.site\"\nCpus = 1\nMemory = 2048\nDisk = 1000000\n\
         SlotWeight = Cpus\nState = \"Claimed\"\nRemoteUser = \"x@y\"\nStart = true\nRequirements = START\nRank = 0\n\n\
         MyType = \"Machine\"\nName = \"slot2@a.site\"\nMachine = \"a.site\"\nCpus = 1\nMemory = 2048\nDisk = 1000000\n\
         SlotWeight = Cpus\nState = \"Unclaimed\"\nStart = true\nRequirements = START\nRank = 0\n\n\
         MyType = \"Machine\"\nName = \"slot1@b.site\"\nMachine = \"b.site\"\nPartitionableSlot = true\nCpus = 2\n\
         TotalSlotCpus = 4\nTotalSlotMemory = 8192\nTotalSlotDisk = 4000000\nMemory = 4096\nDisk = 2000000\nArch = \"X86_64\"\n\n",
    )
    .expect("writes");
    std::fs::write(
        dir.join("log.swf"),
        "; UnixStartTime: 0\n1 0 5 600 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n2 10 5 600 2 -1 -1 2 -1 -1 1 2 1 -1 1 -1 -1 -1\n\
         3 20 5 600 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n4 30 5 600 64 -1 -1 64 -1 -1 1 3 1 -1 1 -1 -1 -1\n",
    )
    .expect("writes");
    std::fs::write(
        dir.join("s.toml"),
        "duration = \"1h\"\nconfig = \"NEGOTIATOR_INTERVAL = 60\"\npool.condor_status = \"slots.ad\"\n[trace]\nfile = \"log.swf\"\n",
    )
    .expect("writes");
    let out =
        bin().args(["simulate", "-q", "--out"]).arg(dir.join("out")).arg(dir.join("s.toml")).output().expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let jobs = std::fs::read_to_string(dir.join("out/jobs.csv")).expect("jobs");
    let rows: Vec<Vec<&str>> = jobs.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4);
    // The three small jobs start at the first cycle after their submission
    // (0 and 60); the 64-CPU one never finds a slot.
    let starts: Vec<&str> = rows.iter().map(|r| r[4]).collect();
    assert_eq!(starts, ["0", "60", "60", "-1"]);
    assert!(rows[..3].iter().all(|r| r[7] == "600"));
    let cycles = std::fs::read_to_string(dir.join("out/cycles.csv")).expect("cycles");
    // 1 + 1 static CPUs and the 4 of the partitionable slot, however split.
    let totals: Vec<&str> = cycles.lines().skip(1).map(|l| l.split(',').nth(7).unwrap_or("")).collect();
    assert_eq!(totals.len(), 61);
    assert!(totals.iter().all(|t| *t == "6.0"), "{cycles}");
    let _ = std::fs::remove_dir_all(&dir);
}
