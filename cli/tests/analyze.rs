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
MyType = \"Machine\"\nOpSys = \"LINUX\"\nMemory = 1024\nRequirements = TARGET.Missing =?= undefined\n";

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
    assert_eq!(report["missing_from_job"][0]["name"], "Missing");
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
        "Missing (referred to by the Requirements of 1 machine)",
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
