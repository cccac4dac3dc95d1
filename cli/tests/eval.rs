//! End-to-end tests of `classad eval`.

use std::path::PathBuf;
use std::process::{Command, Output};

fn classad(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_classad")).args(args).env("TZ", "UTC").output().expect("runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn write_ad(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("classad-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write ad");
    path
}

#[test]
fn one_line_per_expression() {
    let out = classad(&["eval", "1 + 2", "1.5 * 2", "\"a\\\"b\"", "x", "1/0", "3 > 2"]);
    assert!(out.status.success());
    assert_eq!(stdout(&out), "3\n3.000000000000000E+00\n\"a\\\"b\"\nundefined\nerror\ntrue\n");
}

#[test]
fn parse_errors_are_reported_in_line_and_set_the_status() {
    let out = classad(&["eval", "1 +", "2"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("parse error: line 1, column 4:"), "{}", lines[0]);
    assert_eq!(lines[1], "2");
}

#[test]
fn negative_literal_is_not_an_option() {
    let out = classad(&["eval", "-5 + 1"]);
    assert_eq!(stdout(&out), "-4\n");
}

#[test]
fn my_and_target_ads_and_semantics() {
    let job = write_ad("job.ad", "[ RequestMemory = 1024; Requirements = TARGET.Memory >= RequestMemory ]");
    let machine = write_ad("machine.ad", "[ Memory = 2048; Cpus = 4 ]");
    let (job, machine) = (job.to_string_lossy().into_owned(), machine.to_string_lossy().into_owned());
    let new = classad(&["eval", "--my", &job, "--target", &machine, "Requirements", "Cpus"]);
    assert_eq!(stdout(&new), "true\nundefined\n");
    let old = classad(&["eval", "--semantics", "old", "--my", &job, "--target", &machine, "--", "Cpus"]);
    assert_eq!(stdout(&old), "4\n");
}

#[test]
fn unreadable_ad_file_is_a_clear_error() {
    let bad = write_ad("bad.ad", "[ a = ]");
    let out = classad(&["eval", "--my", &bad.to_string_lossy(), "1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 1, column 7"), "{err}");
}
