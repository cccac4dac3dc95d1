//! End-to-end tests of `classad eval`.

mod common;

use common::{classad, stderr, stdout, write_file};

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
    let job = write_file("job.ad", "[ RequestMemory = 1024; Requirements = TARGET.Memory >= RequestMemory ]");
    let machine = write_file("machine.ad", "[ Memory = 2048; Cpus = 4 ]");
    let (job, machine) = (job.to_string_lossy().into_owned(), machine.to_string_lossy().into_owned());
    let new = classad(&["eval", "--my", &job, "--target", &machine, "Requirements", "Cpus"]);
    assert_eq!(stdout(&new), "true\nundefined\n");
    let old = classad(&["eval", "--semantics", "old", "--my", &job, "--target", &machine, "--", "Cpus"]);
    assert_eq!(stdout(&old), "4\n");
}

#[test]
fn unreadable_ad_file_is_a_clear_error() {
    let bad = write_file("bad.ad", "[ a = ]");
    let out = classad(&["eval", "--my", &bad.to_string_lossy(), "1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("line 1, column 7"), "{err}");
}

#[test]
fn ad_files_may_be_in_any_format() {
    let job = write_file("job.long", "MyType = \"Job\"\nRequestMemory = 1024\nRequirements = TARGET.Memory >= MY.RequestMemory\n\nRequestMemory = 1\n");
    let machine = write_file("machine.json", r#"[ { "MyType": "Machine", "Memory": 2048 }, { "Memory": 1 } ]"#);
    let xml =
        write_file("machine.xml", r#"<?xml version="1.0"?><classads><c><a n="Memory"><i>512</i></a></c></classads>"#);
    let (job, machine, xml) = (job.to_string_lossy(), machine.to_string_lossy(), xml.to_string_lossy());
    // The first ad of each file is the one used.
    let out = classad(&["eval", "--my", &job, "--target", &machine, "Requirements", "TARGET.MyType"]);
    assert_eq!(stdout(&out), "true\n\"Machine\"\n");
    let out = classad(&["eval", "--my", &job, "--target", &xml, "Requirements"]);
    assert_eq!(stdout(&out), "false\n");
}

#[test]
fn an_ad_file_can_be_standard_input() {
    let out = common::classad_with_input(&["eval", "--my", "-", "Cpus * 2"], b"Cpus = 4\n");
    assert_eq!(stdout(&out), "8\n");
}

#[test]
fn an_ad_file_without_an_ad_is_an_error() {
    let empty = write_file("empty.ad", "# nothing here\n");
    let out = classad(&["eval", "--my", &empty.to_string_lossy(), "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no ad in the file"), "{}", stderr(&out));
}
