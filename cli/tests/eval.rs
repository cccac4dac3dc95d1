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

const JOB: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/job.ad");
const MACHINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/machine.ad");

#[test]
fn options_after_the_expressions_are_options() {
    let first = classad(&["eval", "--semantics", "old", "--my", JOB, "--target", MACHINE, "Requirements", "Rank"]);
    let last = classad(&["eval", "Requirements", "Rank", "--semantics", "old", "--my", JOB, "--target", MACHINE]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(last.status.success(), "{}", stderr(&last));
    assert_eq!(stdout(&first), "true\n1750\n");
    assert_eq!(stdout(&last), stdout(&first));
    // HTCondor's single-dash spelling, and options between expressions.
    let mixed = classad(&["eval", "Requirements", "-my", JOB, "Rank", "-semantics", "old"]);
    assert_eq!(stdout(&mixed), "undefined\nundefined\n");
    // After `--`, everything is an expression (`-(-semantics)` here).
    let escaped = classad(&["eval", "1", "--", "--semantics", "old"]);
    assert!(escaped.status.success(), "{}", stderr(&escaped));
    assert_eq!(stdout(&escaped), "1\nundefined\nundefined\n");
}

#[test]
fn unknown_options_are_errors() {
    let typo = classad(&["eval", "--semantic", "old", "1"]);
    assert_eq!(typo.status.code(), Some(2));
    assert_eq!(stdout(&typo), "");
    assert!(stderr(&typo).contains("unexpected argument '--semantic'"), "{}", stderr(&typo));
    assert!(stderr(&typo).contains("--semantics"), "{}", stderr(&typo));
    // `-x` looks like an option; as an expression it goes after `--`.
    let dash = classad(&["eval", "-x"]);
    assert_eq!(dash.status.code(), Some(2));
    assert!(stderr(&dash).contains("-- -x"), "{}", stderr(&dash));
    let negated = classad(&["eval", "--", "-x"]);
    assert_eq!(stdout(&negated), "undefined\n");
}

#[test]
fn negative_numbers_and_expressions_starting_with_a_minus() {
    let out = classad(&["eval", "-1", "-2.5", "-(1 + 2)", "--semantics", "old"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "-1\n-2.500000000000000E+00\n-3\n");
}

#[test]
fn labels_print_each_expression_with_its_value() {
    let machine = write_file("labels-machine.ad", "[ Memory = 2048; Cpus = 4 ]");
    let machine = machine.to_string_lossy().into_owned();
    let out = classad(&["eval", "--labels", "Memory * 2", "Cpus", "x", "--my", &machine]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Memory * 2 = 4096\nCpus = 4\nx = undefined\n");
    let short = classad(&["eval", "-v", "1 + 2", "\"a\""]);
    assert_eq!(stdout(&short), "1 + 2 = 3\n\"a\" = \"a\"\n");
}
