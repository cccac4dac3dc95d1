//! `negotiator-sim userprio` against `condor_userprio` 23.9: the edits
//! HTCondor's tool made on a real negotiator's log
//! (`matchmaker/tests/data/accountant/admin`, made by `capture-admin.sh`
//! there), made here on a copy of the same log, in the same order, must say
//! the same and append the same records.

use std::path::{Path, PathBuf};
use std::process::Command;

fn admin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../matchmaker/tests/data/accountant/admin")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The records of a piece of log, without the transaction markers, sorted
/// (HTCondor's own order follows its hash table).
fn records(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && *l != "105" && *l != "106")
        .map(str::to_string)
        .collect();
    out.sort();
    out
}

/// The time an edit was made at, for the ones that record it.
fn edit_time(appended: &str) -> Option<String> {
    appended
        .lines()
        .find(|l| l.contains(" BeginUsageTime "))
        .and_then(|l| l.split_whitespace().last())
        .map(str::to_string)
}

/// Edits where this tool deliberately differs (`userprio-values` in
/// docs/divergences.md): a value that is not a number at all is refused;
/// `condor_userprio` reads it as 0.
const NOT_A_NUMBER: [&str; 2] = ["30-setprio-text", "36-setceiling-text"];

#[test]
fn edits_say_and_write_what_condor_userprio_did() {
    let exe = env!("CARGO_BIN_EXE_negotiator-sim");
    let dir = std::env::temp_dir().join(format!("userprio-admin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    let log = dir.join("Accountantnew.log");
    std::fs::copy(admin().join("initial.log"), &log).expect("copy the initial log");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(admin())
        .expect("cases")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("cmd").exists())
        .collect();
    cases.sort();
    let mut checked = 0;
    for case in cases {
        let name = case.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
        let cmd = read(&case.join("cmd"));
        let words: Vec<&str> = cmd.split_whitespace().skip(1).collect();
        let is_edit = words
            .first()
            .is_some_and(|w| w.starts_with("-set") || *w == "-resetusage" || *w == "-resetall" || *w == "-delete");
        if !is_edit {
            continue; // the display cases read the collector's copies, not the log
        }
        let expected_rc: i32 = read(&case.join("rc")).trim().parse().expect("rc");
        let appended = read(&case.join("log-appended"));
        let before = std::fs::metadata(&log).expect("log").len() as usize;
        let mut command = Command::new(exe);
        command.arg("userprio").arg("--log").arg(&log).args(&words);
        if let Some(time) = edit_time(&appended) {
            command.arg("--now").arg(time);
        }
        let out = command.output().expect("run negotiator-sim");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let ours = String::from_utf8_lossy(&std::fs::read(&log).expect("log")[before..]).to_string();
        if NOT_A_NUMBER.contains(&name.as_str()) {
            assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
            assert!(stderr.contains("is not a number"), "{name}: {stderr}");
            assert!(ours.is_empty(), "{name}: wrote {ours}");
            // Make HTCondor's edit, so that the logs stay alike.
            let theirs: Vec<&str> = words.iter().map(|w| if *w == "abc" { "0" } else { *w }).collect();
            let redo = Command::new(exe).arg("userprio").arg("--log").arg(&log).args(&theirs).output().expect("redo");
            assert!(redo.status.success(), "{name}: the edit with 0");
            continue;
        }
        if expected_rc != 0 {
            assert_ne!(out.status.code(), Some(0), "{name}: accepted");
            assert!(ours.is_empty(), "{name}: a refused edit wrote {ours}");
            let theirs = read(&case.join("stderr"));
            // Both refuse a value that is not a number; ours says why.
            if !theirs.starts_with("usage:") && !stderr.contains("is not a number") {
                // The same message, with this tool's name for HTCondor's.
                assert_eq!(stderr.replace("negotiator-sim userprio", "condor_userprio"), theirs, "{name}");
            }
            checked += 1;
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        assert_eq!(stdout, read(&case.join("stdout")), "{name}");
        assert_eq!(records(&ours), records(&appended), "{name}: the records written");
        checked += 1;
    }
    assert!(checked >= 35, "only {checked} edits checked");
    let _ = std::fs::remove_dir_all(&dir);
}

fn userprio(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_negotiator-sim")).arg("userprio").args(args).output().expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

/// The logs HTCondor's negotiator was given in `check/`: a torn one loads
/// with a warning naming the line (HTCondor drops the same tail); one with
/// a corrupt record inside a committed transaction is refused, naming the
/// line (HTCondor's negotiator refuses to start on it).
#[test]
fn torn_and_corrupt_logs_as_htcondor_takes_them() {
    let check = admin().join("../check");
    let torn = check.join("torn-input.log");
    let (code, stdout, stderr) = userprio(&["--log", torn.to_str().expect("path"), "-allusers"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("warning:") && stderr.contains("torn-input.log:"), "{stderr}");
    assert!(stdout.contains("Number of users: 4"), "{stdout}");
    let corrupt = check.join("corrupt-in-transaction-input.log");
    let (code, stdout, stderr) = userprio(&["--log", corrupt.to_str().expect("path"), "-allusers"]);
    assert_eq!(code, Some(1));
    assert!(stdout.is_empty());
    // HTCondor: "corrupt log record 43 ... occurred inside closed transaction".
    assert!(
        stderr.contains("corrupt-in-transaction-input.log:43: corrupt record inside a committed transaction"),
        "{stderr}"
    );
}

/// A `--log` that is not an accountant log (a text file, a file of zeros)
/// is never written: the edit fails naming the file and its line 1, and the
/// file is left byte for byte; reading it only warns.
#[test]
fn an_edit_refuses_a_file_that_is_not_an_accountant_log() {
    let dir = std::env::temp_dir().join(format!("classad-rs-userprio-notalog-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let text: String = (0..361).map(|i| format!("service{i}\t{}/tcp\t\t# a comment\n", 1000 + i)).collect();
    for (name, content) in [("services-copy", text.into_bytes()), ("zeros", vec![0u8; 8192])] {
        let path = dir.join(name);
        std::fs::write(&path, &content).expect("write");
        let p = path.to_str().expect("path");
        let (code, stdout, stderr) = userprio(&["--log", p, "--setprio", "alice@x", "5"]);
        assert_eq!(code, Some(1), "{name}: {stdout}{stderr}");
        assert!(stderr.contains(&format!("{p}:1: not an accountant log")), "{name}: {stderr}");
        assert!(stderr.contains("expected a record such as `107"), "{name}: {stderr}");
        assert_eq!(std::fs::read(&path).expect("read"), content, "{name}: the file was changed");
        let (code, _, stderr) = userprio(&["--log", p, "-allusers"]);
        assert_eq!(code, Some(0), "{name}: {stderr}");
        assert!(stderr.contains("warning:") && stderr.contains("not an accountant log"), "{name}: {stderr}");
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp") || n.contains(".corrupt"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A value too large for a double (`1e999`, infinity once read) is refused
/// by every real edit alike, as `nan` and `inf` are: nothing is set.
#[test]
fn real_edits_refuse_infinities_alike() {
    let dir = std::env::temp_dir().join(format!("classad-rs-userprio-finite-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let log = dir.join("Accountantnew.log");
    let p = log.to_str().expect("path");
    for (edit, what) in
        [("--setprio", "priority"), ("--setfactor", "priority factor"), ("--setaccum", "accumulated usage")]
    {
        for value in ["1e999", "-1e999"] {
            let (code, stdout, stderr) = userprio(&["--log", p, edit, "alice@x", value]);
            assert_eq!(code, Some(1), "{edit} {value}: {stdout}{stderr}");
            assert!(stderr.contains(&format!("the {what} must be a finite number")), "{edit} {value}: {stderr}");
        }
        for value in ["nan", "inf", "infinity"] {
            let (code, _, stderr) = userprio(&["--log", p, edit, "alice@x", value]);
            assert_eq!(code, Some(1), "{edit} {value}: {stderr}");
            assert!(stderr.contains(&format!("`{value}` is not a number")), "{edit} {value}: {stderr}");
        }
    }
    assert!(!std::fs::read_to_string(&log).unwrap_or_default().contains("alice@x"), "nothing was set");
    let _ = std::fs::remove_dir_all(&dir);
}
