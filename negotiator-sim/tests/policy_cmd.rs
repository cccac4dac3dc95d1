//! `negotiator-sim policy`: a desktop slot driven through a trace, in text
//! and JSON, and the errors of a bad trace.

use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/policy").join(name)
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_negotiator-sim")).arg("policy").args(args).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn desktop(extra: &[&str], trace: &Path) -> (i32, String, String) {
    let config = data("desktop.conf");
    let job = data("job.ad");
    let mut args = vec![
        "--config",
        config.to_str().expect("utf-8"),
        "--job",
        job.to_str().expect("utf-8"),
        "--trace",
        trace.to_str().expect("utf-8"),
    ];
    args.extend(extra);
    run(&args)
}

#[test]
fn the_desktop_trace_suspends_then_vacates() {
    let (rc, out, err) = desktop(&["--json"], &data("desktop.trace"));
    assert_eq!(rc, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("json");
    let records = doc["records"].as_array().expect("records");
    let transitions: Vec<(i64, u64, &str)> = records
        .iter()
        .filter(|r| r["to"].is_string())
        .map(|r| {
            (r["time"].as_i64().unwrap_or(-1), r["transition"].as_u64().unwrap_or(0), r["knob"].as_str().unwrap_or("-"))
        })
        .collect();
    assert_eq!(
        transitions,
        [
            (0, 1, "IsOwner"),
            (10, 6, "-"),
            (10, 9, "-"),
            (11, 11, "-"),
            (600, 14, "SUSPEND"),
            (1205, 16, "PREEMPT"),
            (1205, 18, "MaxJobRetirementTime"),
            (1310, 22, "-"),
        ]
    );
    let actions: Vec<&str> = records.iter().filter_map(|r| r["action"].as_str()).collect();
    assert_eq!(actions, ["AcceptClaim", "StartJob", "SuspendJob", "ContinueJob", "VacateJob(600 s)", "ReleaseClaim"]);
    // In the order they happened: the suspended job is resumed before it
    // retires, and vacated after it enters Preempting.
    let at_1205: Vec<String> = records
        .iter()
        .filter(|r| r["time"] == 1205)
        .map(|r| r["action"].as_str().map_or_else(|| format!("#{}", r["transition"]), str::to_string))
        .collect();
    assert_eq!(at_1205, ["ContinueJob", "#16", "#18", "VacateJob(600 s)"]);
    assert_eq!(doc["final"]["state"], "Owner");
}

#[test]
fn text_output_names_each_transition_and_its_expression() {
    let (rc, out, err) = desktop(&[], &data("desktop.trace"));
    assert_eq!(rc, 0, "{err}");
    assert!(out.contains("     600  (poll)                 Claimed/Busy -> Claimed/Suspended (#14)\n"), "{out}");
    assert!(out.contains("because SUSPEND is TRUE: ((KeyboardIdle < 60)"), "{out}");
    assert!(out.ends_with("final: Owner/Idle\n"), "{out}");
}

#[test]
fn set_takes_expressions_with_spaces() {
    let dir = std::env::temp_dir().join(format!("policy-cmd-set-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let trace = dir.join("set.trace");
    // Non-HTCondor load of 0.1 + 0.3 > 0.3 (0.1 alone is not): START is
    // false for the desktop.
    std::fs::write(&trace, "0 set LoadAvg=0.1 + 0.3 CondorLoadAvg=0.0\n0 tick\n").expect("write");
    let (rc, out, err) = desktop(&["--json"], &trace);
    assert_eq!(rc, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(doc["records"].as_array().map(Vec::len), Some(0));
    assert_eq!(doc["final"]["state"], "Owner");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_trace_line_is_reported_with_its_line() {
    let dir = std::env::temp_dir().join(format!("policy-cmd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    for (text, message) in [
        ("0 tick\n5 jump\n", "line 2: unknown event 'jump'"),
        ("0 tick\nsoon match\n", "line 2: expected a time in seconds, found 'soon'"),
        ("10 tick\n5 match\n", "line 2: time 5 is before the previous line's 10"),
        ("0 set KeyboardIdle\n", "line 1: expected NAME=EXPR, found 'KeyboardIdle'"),
        ("0 preempt\n", "line 1: 'preempt' needs the preempting job's ad file"),
        ("0 set LoadAvg=(1.0\n", "line 1: LoadAvg:"),
        ("0 set == 3\n", "line 1: expected NAME=EXPR, found '=='"),
        ("0 claim missing.ad\n", "missing.ad"),
    ] {
        let trace = dir.join("bad.trace");
        std::fs::write(&trace, text).expect("write");
        let (rc, out, err) = desktop(&[], &trace);
        assert_eq!(rc, 1, "{text}");
        assert!(out.is_empty());
        assert!(err.starts_with("negotiator-sim policy: ") && err.contains(message), "{text}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
