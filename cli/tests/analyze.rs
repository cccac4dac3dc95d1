//! End-to-end tests of `classad analyze`.

mod common;

use common::{classad, classad_with_input, stderr, stdout, write_file};

const JOB: &str = r#"[ MyType = "Job"; ClusterId = 121; ProcId = 0; Owner = "alice"; RequestMemory = 4096;
    Requirements = (TARGET.OpSys == "LINUX") && (TARGET.Memory >= RequestMemory) ]"#;

/// Old-format machine ads (as `condor_status -l` prints them) mixed with
/// a job ad, which is not a machine.
const MACHINES: &str = "MyType = \"Machine\"\nOpSys = \"LINUX\"\nMemory = 2048\nRequirements = true\n\n\
MyType = \"Machine\"\nOpSys = \"LINUX\"\nMemory = 8192\nRequirements = true\n\n\
MyType = \"Job\"\nRequirements = true\n\n\
MyType = \"Machine\"\nOpSys = \"WINDOWS\"\nMemory = 8192\nRequirements = true\n\n\
MyType = \"Machine\"\nOpSys = \"LINUX\"\nMemory = 16384\nRequirements = TARGET.Owner == \"bob\"\n\n\
MyType = \"Machine\"\nOpSys = \"LINUX\"\nMemory = 1024\nName = \"slot1@small\"\nMachine = \"small\"\n\
Requirements = TARGET.Missing =?= undefined || TARGET.Other > 1\n";

#[test]
fn json_counts_are_disjoint() {
    let job = write_file("analyze-job.ad", JOB);
    let machines = write_file("analyze-machines.ads", MACHINES);
    let out =
        classad(&["analyze", "--job", &job.to_string_lossy(), "--machines", &machines.to_string_lossy(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON object");
    let n = |k: &str| report[k].as_u64().expect(k);
    assert_eq!((n("machines"), n("rejected_by_job"), n("rejected_by_machine"), n("matching")), (5, 3, 1, 1));
    assert_eq!(report["conditions"][0]["condition"], "(TARGET.Memory >= RequestMemory)");
    assert_eq!(report["conditions"][0]["machines_matched"], 3);
    assert_eq!(report["suggestions"][0]["replacement"], "TARGET.Memory >= 1024");
    assert_eq!(report["suggestions"][0]["more_matches"], 2);
    // Missing is tested for UNDEFINED: only Other is missing.
    assert_eq!(report["missing_from_job"].as_array().map(Vec::len), Some(1));
    assert_eq!(report["missing_from_job"][0]["name"], "Other");
    // The machine side: the machine that rejects the job, and why.
    assert_eq!(report["machine_conditions"][0]["condition"], "TARGET.Owner == \"bob\"");
    assert_eq!(report["machine_conditions"][0]["machines_rejecting"], 1);
    assert_eq!(report["slots"], serde_json::Value::Null);
}

#[test]
fn one_machine_condition_by_condition() {
    let job = write_file("analyze-job4.ad", JOB);
    let machines = write_file("analyze-machines4.ads", MACHINES);
    let (job, machines) = (job.to_string_lossy().into_owned(), machines.to_string_lossy().into_owned());
    // By slot name or machine name; options in any order.
    for name in ["slot1@small", "small"] {
        let out = classad(&["analyze", "--json", "--machines", &machines, "--machine", name, "--job", &job]);
        assert!(out.status.success(), "{}", stderr(&out));
        let report: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON object");
        assert_eq!(report["machines"], 1);
        assert_eq!(report["rejected_by_job"], 1);
        assert_eq!(report["slots"][0]["name"], "slot1@small");
        assert_eq!(report["slots"][0]["conditions"][0]["condition"], "TARGET.Missing is undefined || TARGET.Other > 1");
        assert_eq!(report["slots"][0]["conditions"][0]["value"], "true");
    }
    let text = stdout(&classad(&["analyze", "-job", &job, "-machines", &machines, "-machine", "slot1@small"]));
    assert!(text.contains("The Requirements of slot slot1@small, condition by condition, for your job:"), "{text}");
    assert!(text.contains("    true       TARGET.Missing is undefined || TARGET.Other > 1"), "{text}");
    let none = classad(&["analyze", "--job", &job, "--machines", &machines, "--machine", "nowhere"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(stderr(&none).contains("no ad has Name or Machine \"nowhere\""), "{}", stderr(&none));
}

#[test]
fn report_for_a_person() {
    let job = write_file("analyze-job2.ad", JOB);
    let out = classad_with_input(&["analyze", "--job", &job.to_string_lossy(), "--machines", "-"], MACHINES.as_bytes());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("Job 121.000: run analysis summary. Of 5 machines,\n"), "{text}");
    for line in [
        "  3 are rejected by your job's requirements",
        "  1 reject your job because of their own requirements",
        "  1 match and are available to run your job",
        "MODIFY TO TARGET.Memory >= 1024",
        "Changing (TARGET.Memory >= RequestMemory) to TARGET.Memory >= 1024 would let 2 more machines match.",
        "Other (referred to by the Requirements of 1 machine)",
        "The machine that rejects your job by its own requirements does so on:",
        "                     1  TARGET.Owner == \"bob\"",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}

#[test]
fn unreadable_inputs_are_reported() {
    let out = classad(&["analyze", "--job", "/nonexistent/job.ad", "--machines", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read /nonexistent/job.ad"), "{}", stderr(&out));
    let job = write_file("analyze-job3.ad", JOB);
    let bad = classad_with_input(&["analyze", "--job", &job.to_string_lossy(), "--machines", "-"], b"[ a = ; ]");
    assert_eq!(bad.status.code(), Some(1));
}
