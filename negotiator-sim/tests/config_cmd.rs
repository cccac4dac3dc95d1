//! `negotiator-sim config` against `condor_config_val`'s recorded answers
//! (the matchmaker's oracle corpus): the command prints the same bytes and
//! exits with the same status.

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../matchmaker/tests/data/config/corpus")
}

fn run(args: &[&str], condor_config: Option<&Path>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_negotiator-sim"));
    cmd.arg("config").args(args).env_clear();
    cmd.env("PATH", "/usr/bin:/bin:/usr/sbin:/sbin")
        .env("CFGTEST_VAR", "from the environment")
        .env("CFGTEST_EMPTY", "");
    if let Some(c) = condor_config {
        cmd.env("CONDOR_CONFIG", c);
    }
    let out = cmd.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn name_queries_print_what_condor_config_val_prints() {
    let mut checked = 0;
    for case in ["basic", "cond", "hold_mem", "pslot", "locals", "subsystems", "statements"] {
        let dir = corpus().join(case);
        let expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).expect("expected")).expect("json");
        let oracle_dir = expected["dir"].as_str().expect("dir");
        let here = dir.canonicalize().expect("corpus dir");
        let here = here.to_str().expect("utf-8");
        let top = Path::new(here).join("condor_config");
        for answer in expected["answers"].as_array().expect("answers") {
            let args: Vec<&str> = answer["args"].as_array().expect("args").iter().filter_map(|a| a.as_str()).collect();
            if args.contains(&"-dump") {
                continue; // compared, with the machine's values left out, by the matchmaker's test
            }
            // Half through --config, half through CONDOR_CONFIG.
            let (rc, out, err) = if checked % 2 == 0 {
                let mut with = vec!["--config", top.to_str().expect("utf-8")];
                with.extend(&args);
                run(&with, None)
            } else {
                run(&args, Some(&top))
            };
            let want = |k: &str| answer[k].as_str().expect(k).replace(oracle_dir, here);
            assert_eq!(out, want("stdout"), "{case} {args:?}");
            assert_eq!(err, want("stderr"), "{case} {args:?}");
            assert_eq!(rc as i64, answer["rc"].as_i64().expect("rc"), "{case} {args:?}");
            checked += 1;
        }
    }
    assert!(checked > 20);
}

#[test]
fn refused_files_give_one_line_and_status_1() {
    let top = corpus().join("errors_unknown_knob/condor_config");
    let (rc, out, err) = run(&["--config", top.to_str().expect("utf-8"), "A"], None);
    assert_eq!((rc, out.as_str()), (1, ""));
    assert!(err.contains("condor_config, line 3: use POLICY: does not recognise NO_SUCH_POLICY"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn without_a_file_the_defaults_answer() {
    let (rc, out, err) = run(&["-v", "PRIORITY_HALFLIFE", "IsTool"], None);
    assert_eq!(rc, 0, "{err}");
    assert_eq!(
        out,
        "PRIORITY_HALFLIFE = 86400\n # at: <Default>\n # raw: PRIORITY_HALFLIFE = 86400\n\n\
         TOOL.IsTool = true\n # at: <Default>\n # raw: TOOL.IsTool = true\n\n"
    );
    let (rc, out, _) = run(&["--dump"], None);
    assert_eq!(rc, 0);
    // The header names this machine, as condor_config_val's does.
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").expect("the kernel's host name");
    let header = format!("# Configuration from machine: {}\nABORT_ON_EXCEPTION = false\n", host.trim());
    assert!(out.starts_with(&header), "{out}");
    let (rc, _, err) = run(&[], None);
    assert_eq!(rc, 2);
    assert!(err.contains("give names"), "{err}");
}

/// `-negotiator` and `-subsystem NAME` read the configuration as that
/// daemon does (`NEGOTIATOR.NAME` wins), as the docs' `condor_config_val
/// -negotiator -dump` capture shows it; a misspelled one-dash option is
/// echoed as typed.
#[test]
fn the_negotiators_view_and_subsystems() {
    let dir = std::env::temp_dir().join(format!("negotiator-sim-config-sub-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let top = dir.join("condor_config");
    std::fs::write(
        &top,
        "FULL_HOSTNAME = cm.example.org\nPRIORITY_HALFLIFE = 100\nNEGOTIATOR.PRIORITY_HALFLIFE = 200\n",
    )
    .expect("write");
    let top = top.to_str().expect("utf-8");
    for (args, want) in [
        (vec!["--config", top, "PRIORITY_HALFLIFE"], "100\n"),
        (vec!["--config", top, "-negotiator", "PRIORITY_HALFLIFE"], "200\n"),
        (vec!["--config", top, "--negotiator", "PRIORITY_HALFLIFE"], "200\n"),
        (vec!["--config", top, "-subsystem", "negotiator", "PRIORITY_HALFLIFE"], "200\n"),
        (vec!["--config", top, "-subsystem", "SCHEDD", "PRIORITY_HALFLIFE"], "100\n"),
    ] {
        let (rc, out, err) = run(&args, None);
        assert_eq!((rc, out.as_str()), (0, want), "{args:?}: {err}");
    }
    let (rc, out, err) = run(&["--config", top, "-negotiator", "-dump"], None);
    assert_eq!(rc, 0, "{err}");
    assert!(out.starts_with("# Configuration from negotiator on cm.example.org\n"), "{out}");
    assert!(
        out.contains("\nPRIORITY_HALFLIFE = 200\n") || out.contains("\nNEGOTIATOR.PRIORITY_HALFLIFE = 200\n"),
        "{out}"
    );
    let (rc, out, _) = run(&["--config", top, "-dump"], None);
    assert_eq!(rc, 0);
    assert!(out.starts_with("# Configuration from machine: cm.example.org\n"), "{out}");
    let (rc, _, err) = run(&["--config", top, "-negotiatr", "-dump"], None);
    assert_eq!(rc, 2);
    assert!(err.contains("unexpected argument '-negotiatr'"), "{err}");
    assert!(!err.contains("'--negotiatr'"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A mistake after a one-dash option (`-negotiator -bogus`, as
/// `condor_config_val` users type them) is reported with the options as
/// they were typed, in the error, its tip and the usage line: no
/// `--negotiator` the user never wrote.
#[test]
fn an_error_echoes_the_options_as_typed() {
    let (rc, _, err) = run(&["-negotiator", "-bogus", "-dump"], None);
    assert_eq!(rc, 2);
    assert!(err.contains("unexpected argument '-bogus'"), "{err}");
    assert!(err.contains("-negotiator"), "{err}");
    assert!(!err.contains("--negotiator") && !err.contains("--bogus"), "{err}");
}

/// The configuration is evaluated as the subsystem sees it: `$(SUBSYSTEM)`
/// is `TOOL` for condor_config_val's own view and `NEGOTIATOR` with
/// `-negotiator` (HTCondor's dumps of the captured pool say `SUBSYSTEM =
/// TOOL` and `SUBSYSTEM = NEGOTIATOR`), and the dump lists it.
#[test]
fn subsystem_is_the_subsystems_name() {
    let dir = std::env::temp_dir().join(format!("negotiator-sim-config-subsys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let top = dir.join("condor_config");
    std::fs::write(&top, "LOG = /var/log/condor\nMY_LOG = $(LOG)/$(SUBSYSTEM)Log\n").expect("write");
    let top = top.to_str().expect("utf-8");
    for (view, subsystem) in
        [(vec![], "TOOL"), (vec!["-negotiator"], "NEGOTIATOR"), (vec!["-subsystem", "schedd"], "SCHEDD")]
    {
        let mut args = vec!["--config", top];
        args.extend(&view);
        let mut query = args.clone();
        query.extend(["MY_LOG", "SUBSYSTEM", "LOCALNAME"]);
        let (rc, out, err) = run(&query, None);
        assert_eq!(rc, 0, "{view:?}: {err}");
        assert_eq!(out, format!("/var/log/condor/{subsystem}Log\n{subsystem}\n{subsystem}\n"), "{view:?}");
        args.push("-dump");
        let (rc, out, err) = run(&args, None);
        assert_eq!(rc, 0, "{view:?}: {err}");
        assert!(out.contains(&format!("\nSUBSYSTEM = {subsystem}\n")), "{view:?}: {out}");
    }
    // As HTCondor's own dumps of the captured pool have it.
    let snap = Path::new(env!("CARGO_MANIFEST_DIR")).join("../matchmaker/tests/data/cycle/snap-1000-1000-4-8");
    for (file, subsystem) in [("config.dump", "TOOL"), ("config-negotiator.dump", "NEGOTIATOR")] {
        let text = std::fs::read_to_string(snap.join(file)).expect("dump");
        assert!(text.contains(&format!("\nSUBSYSTEM = {subsystem}\n")), "{file}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
