//! Runs too large for the machine are refused before they allocate, with
//! the estimate and the limit: 10 million machines, a burst of 10^12
//! jobs, 10^8 users, `bench` with 10^12 slots or 10^9 groups, `generate`
//! past the free disk. Each command runs under an address-space limit of
//! 512 MiB, so one that starts building instead of refusing fails here
//! (as they all did before the check) rather than filling the machine.

use std::path::{Path, PathBuf};
use std::process::Command;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("size-limits-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// `negotiator-sim ARGS` under 512 MiB of address space: exit code and stderr.
fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new("prlimit")
        .arg(format!("--as={}", 512u64 << 20))
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_negotiator-sim"))
        .args(args)
        .output()
        .expect("prlimit runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The command exited 1 with a refusal that says `needs` and how to go on.
fn refused(args: &[&str], needs: &str, flag: &str) {
    let (rc, err) = run(args);
    assert_eq!(rc, 1, "{args:?}: {err}");
    assert!(err.contains("this would need about") && err.contains(needs), "{args:?}: {err}");
    assert!(err.contains(&format!("give {flag} SIZE (or unlimited)")), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
}

fn scenario(dir: &Path, name: &str, machines: &str, users: &str) -> String {
    let path = dir.join(name);
    let text = format!(
        "duration = \"1h\"\n[[pool.machines]]\n{machines}\ncpus = 8\nmemory = 16384\n\
         [[users]]\nname = \"u\"\n{users}\nruntime = {{ distribution = \"fixed\", value = \"1h\" }}\n"
    );
    std::fs::write(&path, text).expect("scenario");
    path.display().to_string()
}

const ONE_JOB: &str = "arrival = { process = \"burst\", at = 0, jobs = 1 }";

#[test]
fn simulations_too_large_for_memory() {
    let dir = temp("simulate");
    let machines = scenario(&dir, "machines.toml", "count = 10000000", ONE_JOB);
    refused(&["simulate", &machines], "10000000 partitionable machines of about", "--max-memory");
    let burst = scenario(&dir, "burst.toml", "", "arrival = { process = \"burst\", at = 0, jobs = 1000000000000 }");
    refused(&["simulate", &burst], "1000000000000 jobs of about", "--max-memory");
    let users = scenario(&dir, "users.toml", "", &format!("count = 100000000\n{ONE_JOB}"));
    refused(&["simulate", &users], "100000000 users of about", "--max-memory");
    // A limit given is the one checked: in the message, and overridden.
    let small = scenario(&dir, "small.toml", "count = 2", ONE_JOB);
    let (rc, err) = run(&["simulate", &small, "-q", "--max-memory", "1K"]);
    assert!(rc == 1 && err.contains("more than the 1.0 KiB given by --max-memory"), "{err}");
    let (rc, err) = run(&["simulate", &small, "-q", "--max-memory", "unlimited"]);
    assert_eq!(rc, 0, "{err}");
    let (rc, err) = run(&["simulate", &small, "-q", "--max-memory", "lots"]);
    assert!(rc == 2 && err.contains("`lots` is not a size"), "{err}");
    // `compare` holds both runs at once.
    refused(&["compare", &small, &machines, "-q"], "10000000 partitionable machines", "--max-memory");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn simulation_output_past_the_disk_limit() {
    let dir = temp("out");
    let path = scenario(&dir, "s.toml", "count = 2", "arrival = { process = \"burst\", at = 0, jobs = 100000 }");
    let out = dir.join("results");
    let out_arg = out.display().to_string();
    refused(&["simulate", &path, "-q", "--out", &out_arg, "--max-disk", "1M"], "100000 rows of jobs", "--max-disk");
    assert!(!out.join("jobs.csv").exists(), "nothing is written when refused");
    let (rc, err) = run(&["simulate", &path, "-q", "--out", &out_arg, "--max-disk", "100M"]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.join("jobs.csv").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_sizes() {
    refused(
        &["bench", "--slots", "1000000000000", "--jobs", "1", "--users", "1"],
        "1000000000000 slots",
        "--max-memory",
    );
    refused(&["bench", "--slots", "10", "--jobs", "10000000000", "--users", "1", "--lean"], "jobs", "--max-memory");
    refused(
        &["bench", "--slots", "10", "--jobs", "10", "--users", "1", "--groups", "1000000000"],
        "groups",
        "--max-memory",
    );
    let (rc, err) = run(&["bench", "--slots", "10", "--jobs", "10", "--users", "1", "--json", "--max-memory", "1"]);
    assert!(rc == 1 && err.contains("more than the 1 B given by --max-memory"), "{err}");
}

#[test]
fn generate_checks_the_free_disk() {
    let dir = temp("generate");
    let out = dir.join("pool");
    let out_arg = out.display().to_string();
    // Past the file system's free space (petabytes), then past a limit given.
    refused(
        &["generate", "--slots", "1000000000000", "--jobs", "1", "--users", "1", "--out", &out_arg],
        "free on the file system",
        "--max-disk",
    );
    refused(
        &["generate", "--slots", "100", "--jobs", "100", "--users", "1", "--out", &out_arg, "--max-disk", "100K"],
        "100 slot ads",
        "--max-disk",
    );
    assert!(!out.exists(), "nothing is made when refused");
    let (rc, err) =
        run(&["generate", "--slots", "100", "--jobs", "100", "--users", "1", "--out", &out_arg, "--max-disk", "10M"]);
    assert_eq!(rc, 0, "{err}");
    let written: u64 = ["slots.ad", "jobs.ad", "userprio.ad"]
        .iter()
        .map(|f| std::fs::metadata(out.join(f)).map_or(0, |m| m.len()))
        .sum();
    // The estimate is within a factor of two of what was written.
    let estimate = 100 * 4_700 + 100 * 2_000 + 320;
    assert!(written > estimate / 2 && written < estimate * 2, "wrote {written} bytes, estimated {estimate}");
    let _ = std::fs::remove_dir_all(&dir);
}
