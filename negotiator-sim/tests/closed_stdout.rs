//! Every command on a standard output nobody reads (`| head` that has
//! exited, a closed pipe): it ends quietly, with the exit status it would
//! have had, and still writes its files.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("closed-stdout-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs the command with its standard output a pipe whose reading end is
/// closed before it starts (every write fails with EPIPE), in `dir`; the
/// exit status and what it said on stderr.
fn run_unread(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_negotiator-sim"))
        .args(args)
        .current_dir(dir)
        .env_remove("CONDOR_CONFIG")
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("negotiator-sim runs");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn assert_quiet(what: &str, (code, err): (Option<i32>, String)) {
    assert_eq!(code, Some(0), "{what}: exit status; stderr: {err}");
    for word in ["Broken pipe", "panicked", "failed printing", "error"] {
        assert!(!err.contains(word), "{what}: stderr says {word:?}: {err}");
    }
}

#[test]
fn every_printing_command_ends_quietly() {
    let dir = temp("print");
    let policy = root().join("tests/data/policy");
    let p = |n: &str| policy.join(n).to_string_lossy().into_owned();
    let transforms = root().join("../matchmaker/tests/data/transforms");
    let t = |n: &str| transforms.join(n).to_string_lossy().into_owned();
    let cycle = root().join("../matchmaker/tests/data/cycle/snap-200-200-3-6");
    let c = |n: &str| cycle.join(n).to_string_lossy().into_owned();
    let config = dir.join("condor_config");
    std::fs::write(&config, "A = 1\nB = $(A) 2\nNEGOTIATOR_INTERVAL = 20\n").expect("config");
    let config = config.to_string_lossy().into_owned();

    assert_quiet("config --dump", run_unread(&dir, &["config", "--config", &config, "--dump"]));
    assert_quiet("config NAME", run_unread(&dir, &["config", "--config", &config, "B"]));
    let policy_args = ["policy", "--config", &p("desktop.conf"), "--job", &p("job.ad"), "--trace", &p("desktop.trace")];
    assert_quiet("policy", run_unread(&dir, &policy_args));
    assert_quiet("policy --json", run_unread(&dir, &[&policy_args[..], &["--json"]].concat()));
    assert_quiet("slots", run_unread(&dir, &["slots", "--cpus", "4", "--memory", "4096"]));
    assert_quiet("slots --json", run_unread(&dir, &["slots", "--cpus", "4", "--json"]));
    let rules = t("rules/01_set_default.xform");
    assert_quiet("transform", run_unread(&dir, &["transform", "--rules", &rules, &t("jobs/alice.ad")]));
    assert_quiet("transform --json", run_unread(&dir, &["transform", "--json", "--rules", &rules, &t("jobs/two.ad")]));
    let cycle_args =
        ["cycle", "--slots", &c("slots.ad"), "--jobs", &c("jobs.ad.gz"), "--config", &c("config.dump"), "-q"];
    assert_quiet("cycle", run_unread(&dir, &cycle_args));
    assert_quiet("cycle --json", run_unread(&dir, &[&cycle_args[..], &["--json"]].concat()));
    assert_quiet("bench", run_unread(&dir, &["bench", "--slots", "20", "--jobs", "20", "--users", "2"]));
}

#[test]
fn userprio_edits_and_listings_still_write_the_log() {
    let dir = temp("userprio");
    let log = dir.join("Accountantnew.log");
    let log_arg = log.to_string_lossy().into_owned();
    assert_quiet(
        "userprio --setfactor",
        run_unread(&dir, &["userprio", "--log", &log_arg, "--setfactor", "alice@site", "7"]),
    );
    let text = std::fs::read_to_string(&log).expect("the edit wrote the log");
    assert!(text.contains("alice@site") && text.contains("PriorityFactor"), "{text}");
    for listing in [&["--all"][..], &["--json"], &["-l"]] {
        let args = [&["userprio", "--log", &log_arg][..], listing].concat();
        assert_quiet(&format!("userprio {listing:?}"), run_unread(&dir, &args));
    }
}

#[test]
fn simulate_and_compare_still_write_their_files() {
    let dir = temp("simulate");
    let example = root().join("examples/two-users.toml").to_string_lossy().into_owned();
    let out = dir.join("run").to_string_lossy().into_owned();
    assert_quiet("simulate --out", run_unread(&dir, &["simulate", "-q", "--until", "2h", "--out", &out, &example]));
    assert!(dir.join("run/users.csv").is_file(), "simulate wrote its tables");
    let cmp = dir.join("cmp").to_string_lossy().into_owned();
    assert_quiet(
        "compare --out",
        run_unread(&dir, &["compare", "--quiet", "--until", "2h", "--out", &cmp, &example, &example]),
    );
    assert!(dir.join("cmp/report.html").is_file(), "compare wrote its report");
}

/// A standard output that cannot be written for another reason (a full
/// disk) is an error, said once: exit status 1.
#[test]
fn a_full_disk_under_stdout_is_an_error_said_once() {
    let dir = temp("full");
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let out = Command::new(env!("CARGO_BIN_EXE_negotiator-sim"))
        .args(["config", "--dump"])
        .current_dir(&dir)
        .env_remove("CONDOR_CONFIG")
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .expect("negotiator-sim runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("writing standard output: No space left on device").count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
}
