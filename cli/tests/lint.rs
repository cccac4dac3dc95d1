//! End-to-end tests of `classad lint`.

mod common;

use common::{classad, stdout, write_file};

#[test]
fn expressions_with_and_without_findings() {
    let clean = classad(&["lint", "RemoteUserPrio =?= UNDEFINED", "TARGET.Memory >= RequestMemory"]);
    assert_eq!(clean.status.code(), Some(0));
    assert_eq!(stdout(&clean), "");
    let out = classad(&["lint", "RemoteUserPrio == UNDEFINED"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "RemoteUserPrio == UNDEFINED: error undefined-comparison: `==` with UNDEFINED is always UNDEFINED, never \
         true or false; `=?=` tests whether RemoteUserPrio is UNDEFINED\n    in: RemoteUserPrio == undefined\n    \
         suggestion: RemoteUserPrio =?= undefined\n"
    );
}

#[test]
fn files_of_ads_and_reference_ads_in_json() {
    let machines =
        write_file("lint-machines.ads", "[ Memory = 2048; Arch = \"X86_64\" ]\n[ Memory = 4096; Arch = \"ARM\" ]\n");
    let job = write_file(
        "lint-job.ad",
        "[ RequestMemory = 1024; Requirements = TARGET.Memroy >= RequestMemory && TARGET.Arch == 3; Rank = 0 ]",
    );
    let out = classad(&["lint", "--json", "--against", &machines.to_string_lossy(), &job.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    let findings: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("JSON");
    let kinds: Vec<&str> =
        findings.as_array().expect("array").iter().map(|f| f["kind"].as_str().expect("kind")).collect();
    assert_eq!(kinds, ["unknown-attribute", "string-number-comparison"]);
    assert!(findings[0]["source"].as_str().expect("source").ends_with("lint-job.ad: ad 1: Requirements"));
    assert_eq!(findings[0]["suggestion"], "TARGET.Memory");
    assert_eq!(findings[1]["severity"], "error");
}

#[test]
fn bad_input() {
    assert_eq!(classad(&["lint", "1 +"]).status.code(), Some(1));
    assert_eq!(classad(&["lint", "--against", "/nonexistent/ads", "x"]).status.code(), Some(2));
}
