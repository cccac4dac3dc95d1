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
    assert!(findings[0]["file"].as_str().expect("file").ends_with("lint-job.ad"));
    assert_eq!(findings[0]["ad"], 1);
    assert_eq!(findings[0]["attribute"], "Requirements");
    assert_eq!(findings[0]["expr"], "TARGET.Memroy");
    assert_eq!(findings[0]["suggestion"], "TARGET.Memory");
    assert_eq!(findings[1]["severity"], "error");
}

#[test]
fn expressions_have_no_file_and_cycles_are_found_in_ads() {
    let out = classad(&["lint", "--json", "1 < Cpus < 8"]);
    let findings: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("JSON");
    assert_eq!(findings[0]["kind"], "chained-comparison");
    assert_eq!(findings[0]["source"], "1 < Cpus < 8");
    assert!(findings[0]["file"].is_null() && findings[0]["ad"].is_null() && findings[0]["attribute"].is_null());
    assert_eq!(findings[0]["suggestion"], "1 < Cpus && Cpus < 8");

    let ad = write_file("lint-cycle.ad", "Start = Requirements && Cpus > 0\nRequirements = START\nCpus = 1\n");
    let out = classad(&["lint", &ad.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains(
            ": ad 1: Start: warning cyclic-reference: Start refers back to itself (Start -> Requirements -> Start)"
        ),
        "{text}"
    );
}

#[test]
fn expressions_in_the_context_of_an_ad() {
    let machines = write_file("lint-my-machines.ads", "[ Memory = 2048 ]\n");
    let job = write_file("lint-my-job.ad", "[ RequestMemory = 1024 ]\n");
    let expr = "TARGET.Memory >= RequestMemory && MY.RequestCpus > 0 && RemoteUserPrio =?= undefined";
    let args = |my: bool| {
        let mut args = vec!["lint".to_owned(), "--json".to_owned(), "--against".to_owned()];
        args.push(machines.to_string_lossy().into_owned());
        if my {
            args.push("--my".to_owned());
            args.push(job.to_string_lossy().into_owned());
        }
        args.push(expr.to_owned());
        args
    };
    let exprs = |my: bool| -> Vec<String> {
        let args = args(my);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let findings: serde_json::Value = serde_json::from_str(stdout(&classad(&args)).trim()).expect("JSON");
        findings.as_array().expect("array").iter().map(|f| f["expr"].as_str().expect("expr").to_owned()).collect()
    };
    // Without the job, RequestMemory is defined nowhere and MY is unknown.
    assert_eq!(exprs(false), ["RequestMemory"]);
    assert_eq!(exprs(true), ["MY.RequestCpus"]);
}

#[test]
fn bad_input() {
    assert_eq!(classad(&["lint", "1 +"]).status.code(), Some(1));
    assert_eq!(classad(&["lint", "--against", "/nonexistent/ads", "x"]).status.code(), Some(2));
}

#[test]
fn mixed_and_or_and_attribute_assignments() {
    let out = classad(&["lint", r#"Requirements = Memory > 1024 && OpSys == "LINUX" || Arch == "X86_64""#]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "Requirements = Memory > 1024 && OpSys == \"LINUX\" || Arch == \"X86_64\": warning mixed-and-or: `&&` binds \
         tighter than `||`, so this is (Memory > 1024 && OpSys == \"LINUX\") || Arch == \"X86_64\"; parenthesize to \
         say which grouping is meant\n    in: Memory > 1024 && OpSys == \"LINUX\" || Arch == \"X86_64\"\n    \
         suggestion: (Memory > 1024 && OpSys == \"LINUX\") || Arch == \"X86_64\"\n"
    );
    // As an attribute of an ad: cycles are found, and the attribute is named.
    let cycle = classad(&["lint", "--json", "Start = Start && x =?= undefined"]);
    assert_eq!(cycle.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&cycle)).expect("json");
    assert_eq!(json[0]["kind"], "cyclic-reference");
    assert_eq!(json[0]["attribute"], "Start");
    assert_eq!(json[0]["file"], serde_json::Value::Null);
    // In the --my ad: `MY.Memory` is known there.
    let machine = write_file("lint-assign-machine.ad", "[ Memory = 2048 ]");
    let clean = classad(&["lint", "--my", &machine.to_string_lossy(), "Start = MY.Memory > 1024", "x =?= 1"]);
    assert_eq!(clean.status.code(), Some(0), "{}", stdout(&clean));
    let unknown = classad(&["lint", "Start = MY.Memory > 1024"]);
    assert!(stdout(&unknown).contains("unknown-attribute"), "{}", stdout(&unknown));
    let bad = classad(&["lint", "Requirements = x =="]);
    assert_eq!(bad.status.code(), Some(1));
}

#[test]
fn options_after_the_items() {
    let out = classad(&["lint", "x == undefined", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json after the item");
    assert_eq!(json[0]["kind"], "undefined-comparison");
}
