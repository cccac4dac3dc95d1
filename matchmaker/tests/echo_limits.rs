//! An error about a long line quotes a few hundred bytes of it, never the
//! line, and still names the file and line: configuration statements,
//! transform rules and machine descriptions.

use matchmaker::config::Config;
use matchmaker::schedd::Transform;
use matchmaker::startd::slots::Machine;

/// Bytes an error about a long line may take.
const BOUND: usize = 1000;

fn long() -> String {
    "x".repeat(500_000)
}

#[test]
fn a_configuration_error_quotes_a_part_of_the_line() {
    let text = format!("A = 1\n{}! = 1\n", long());
    let err = Config::parse_str(&text, "site.conf").expect_err("no `=`").to_string();
    assert!(err.len() < BOUND, "{} bytes", err.len());
    assert!(err.contains("site.conf") && err.contains('2'), "{err}");
    let text = format!("error : {}\n", long());
    let err = Config::parse_str(&text, "site.conf").expect_err("a command").to_string();
    assert!(err.len() < BOUND, "{} bytes", err.len());
}

#[test]
fn a_transform_error_quotes_a_part_of_the_line() {
    let text = format!("SET A 1\nFROB{}\n", long());
    let transform = Transform::parse("rules.xform", &text, "rules.xform").expect("reads");
    let err = transform.validate().expect_err("unknown keyword").to_string();
    assert!(err.len() < BOUND, "{} bytes", err.len());
    assert!(err.starts_with("rules.xform, line 2: "), "{err}");
}

#[test]
fn a_machine_error_quotes_a_part_of_the_key() {
    let text = format!("cpus = 4\n{} ! = 3\n", long());
    let err = Machine::from_toml_str(&text, "m.toml").expect_err("a bad key").to_string();
    assert!(err.len() < BOUND, "{} bytes", err.len());
    assert!(err.starts_with("m.toml, line 2:"), "{err}");
}
