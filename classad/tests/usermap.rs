//! `userMap()` over registered maps, against HTCondor's libclassad.
//!
//! `tests/data/functions/usermap.jsonl` (written by `usermap_cases.py`)
//! names the maps the oracle process loaded from its configuration and
//! gives libclassad's value for each case. Here the same maps are loaded
//! with `classad::usermap` (leniently: HTCondor skips the bad lines that
//! `groups.map` and `included.map` hold on purpose) and every case must
//! give the same value, except those in `usermap_divergences.jsonl`, each
//! tagged with a section of `docs/divergences.md`.

use std::collections::HashMap;
use std::path::Path;

use classad::usermap::{self, MapFile, MapFileError, MapOptions, MapProblem};
use classad::{parse_expr, Value};
use serde_json::Value as Json;

const CASES: &str = include_str!("data/functions/usermap.jsonl");
const DIVERGENCES: &str = include_str!("data/functions/usermap_divergences.jsonl");
const DIVERGENCES_DOC: &str = include_str!("../../docs/divergences.md");

fn records(text: &str) -> Vec<Json> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("bad JSON line {line}: {e}")))
        .collect()
}

fn field<'j>(record: &'j Json, name: &str) -> &'j str {
    record.get(name).and_then(Json::as_str).unwrap_or_else(|| panic!("no string {name} in {record}"))
}

/// Registers the maps the header names; returns how many lines each
/// skipped.
fn register_maps(header: &Json) -> HashMap<String, usize> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/functions");
    let mut skipped = HashMap::new();
    for map in header["maps"].as_array().expect("maps in the header") {
        let name = field(map, "name");
        let options =
            MapOptions { prefix: map["prefix"].as_bool().unwrap_or(false), lenient: true, ..MapOptions::default() };
        let loaded = match map.get("file") {
            Some(file) => MapFile::load_with(data.join(file.as_str().expect("file name")), &options),
            None => MapFile::parse_with(field(map, "text"), &options),
        }
        .unwrap_or_else(|e| panic!("map {name}: {e}"));
        skipped.insert(name.to_string(), loaded.skipped().len());
        usermap::register(name, loaded);
    }
    skipped
}

#[test]
fn usermap_matches_libclassad() {
    let records = records(CASES);
    let (header, cases) = records.split_first().expect("a header line");
    let skipped = register_maps(header);
    // groups.map: a line without a value, a pattern that does not compile;
    // included.map: a nested @include.
    assert_eq!(skipped["groups"], 2);
    assert_eq!(skipped["incl"], 1);
    assert_eq!(skipped["prefix"], 0);

    let divergence_records = records_of(DIVERGENCES);
    let divergences: HashMap<&str, (&str, &str)> =
        divergence_records.iter().map(|r| (field(r, "expr"), (field(r, "ours"), field(r, "reason")))).collect();
    assert!(cases.len() >= 400, "only {} cases", cases.len());
    for expr in divergences.keys() {
        assert!(cases.iter().any(|c| field(c, "expr") == *expr), "divergence {expr} is not a case");
    }
    let mut failures = Vec::new();
    for case in cases {
        let expr = field(case, "expr");
        let expected = field(case, "expected");
        let ours = match parse_expr(expr) {
            Ok(e) => e.eval().to_string(),
            Err(e) => format!("PARSE_ERROR {e}"),
        };
        let wanted = divergences.get(expr).map_or(expected, |(ours, _)| ours);
        if ours != wanted {
            failures.push(format!("{expr}\n    libclassad: {expected}\n    wanted: {wanted}\n    ours: {ours}"));
        }
    }
    assert!(failures.is_empty(), "{} cases differ:\n{}", failures.len(), failures.join("\n"));
}

fn records_of(text: &'static str) -> Vec<Json> {
    records(text).into_iter().filter(|r| r.get("oracle").is_none()).collect()
}

#[test]
fn usermap_divergences_are_documented() {
    for record in records_of(DIVERGENCES) {
        let heading = format!("\n## {}\n", field(&record, "reason"));
        assert!(DIVERGENCES_DOC.contains(&heading), "docs/divergences.md has no section {heading:?}");
    }
}

#[test]
fn strict_loading_reports_the_first_bad_line() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/functions/usermap");
    let err = MapFile::load(data.join("groups.map")).expect_err("groups.map has bad lines");
    match &err {
        MapFileError::Line { origin: Some(path), line: 16, column: 10, problem: MapProblem::MissingValue } => {
            assert!(path.ends_with("groups.map"));
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().ends_with("groups.map: line 16, column 10: missing value"), "{err}");
    let err = MapFile::load(data.join("include.map")).expect_err("included.map includes again");
    assert!(
        matches!(&err, MapFileError::Line { origin: Some(p), line: 2, problem: MapProblem::IncludeNotAllowed, .. } if p.ends_with("included.map")),
        "{err:?}"
    );
    let err = MapFile::load(data.join("no-such.map")).expect_err("missing file");
    assert!(matches!(err, MapFileError::Io { .. }), "{err:?}");
}

#[test]
fn registry_and_home_lookup() {
    assert_eq!(usermap::lookup("registry_test", "a"), None);
    let map = MapFile::parse("* a 1\n").expect("map");
    assert!(usermap::register("Registry_Test", map).is_none());
    assert!(usermap::names().iter().any(|n| n == "Registry_Test"));
    assert_eq!(usermap::lookup("REGISTRY_TEST", "a").as_deref(), Some("1"));
    let replaced = usermap::register("registry_test", MapFile::parse("* a 2\n").expect("map"));
    assert_eq!(replaced.map(|m| m.len()), Some(1));
    assert_eq!(usermap::lookup("registry_test.*", "a").as_deref(), Some("2"));
    assert!(usermap::remove("registry_test").is_some());
    assert!(usermap::get("registry_test").is_none());

    usermap::set_home_lookup(|user| (user == "alice").then(|| "/home/alice".to_string()));
    let eval = |text: &str| parse_expr(text).expect("parses").eval();
    assert_eq!(eval(r#"userHome("alice")"#), Value::from("/home/alice"));
    assert_eq!(eval(r#"userHome("alice", "/tmp")"#), Value::from("/home/alice"));
    assert_eq!(eval(r#"userHome("bob")"#), Value::Undefined);
    assert_eq!(eval(r#"userHome("bob", "/tmp")"#), Value::from("/tmp"));
    assert_eq!(eval(r#"userHome("bob", "")"#), Value::Undefined);
    assert_eq!(eval(r#"userHome(1)"#), Value::Error);
    usermap::set_home_lookup(|_| None);
    assert_eq!(eval(r#"userHome("alice", "/tmp")"#), Value::from("/tmp"));
    usermap::reset_home_lookup();
}
