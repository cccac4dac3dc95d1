//! `analysis::analyze` on a hand-checked pool, and its three counts
//! against libclassad's answers for the pool sample.

mod common;

use classad::analysis::analyze;
use classad::format::Reader;
use classad::{ClassAd, EvalOptions, Semantics};
use serde_json::Value as Json;

fn ads(text: &str) -> Vec<ClassAd> {
    Reader::new(text.as_bytes(), None).collect::<Result<_, _>>().expect("ads read")
}

const JOB: &str = r#"[ MyType = "Job"; Owner = "alice"; DiskUsage = 100000; ImageSize = 100000;
    FileSystemDomain = "cs.wisc.edu";
    Requirements = ((TARGET.Arch == "X86_64" || TARGET.Arch == "INTEL") && (TARGET.Group == "TestPool"))
        && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= DiskUsage) && ((TARGET.Memory * 1024) >= ImageSize)
        && (TARGET.FileSystemDomain == MY.FileSystemDomain) ]"#;

/// Eight machines and a job ad that is not one. Which condition each
/// machine fails is in its name.
const POOL: &str = r#"
[ MyType = "Machine"; Name = "m0-matches"; Arch = "X86_64"; Group = "TestPool"; OpSys = "LINUX"; Disk = 200000;
  Memory = 2048; FileSystemDomain = "cs.wisc.edu"; Requirements = true ]
[ MyType = "Machine"; Name = "m1-rejects-the-job"; Arch = "INTEL"; Group = "TestPool"; OpSys = "LINUX";
  Disk = 200000; Memory = 1024; FileSystemDomain = "cs.wisc.edu"; Requirements = TARGET.Owner == "bob" ]
[ MyType = "Machine"; Name = "m2-group"; Arch = "X86_64"; Group = "Other"; OpSys = "LINUX"; Disk = 200000;
  Memory = 2048; FileSystemDomain = "cs.wisc.edu"; Requirements = true ]
[ MyType = "Machine"; Name = "m3-opsys"; Arch = "X86_64"; Group = "TestPool"; OpSys = "WINDOWS"; Disk = 200000;
  Memory = 2048; FileSystemDomain = "cs.wisc.edu"; Requirements = TARGET.CheckpointPlatform =!= "x" ]
[ MyType = "Machine"; Name = "m4-disk"; Arch = "X86_64"; Group = "TestPool"; OpSys = "LINUX"; Disk = 50000;
  Memory = 2048; FileSystemDomain = "cs.wisc.edu"; Requirements = RequestGPUs =?= undefined || RequestGPUs == 0 ]
[ MyType = "Machine"; Name = "m5-arch-and-group"; Arch = "ARM"; OpSys = "LINUX"; Disk = 200000;
  Memory = 2048; FileSystemDomain = "cs.wisc.edu"; Requirements = true ]
[ MyType = "Machine"; Name = "m6-disk-and-domain"; Arch = "X86_64"; Group = "TestPool"; OpSys = "LINUX";
  Disk = 80000; Memory = 2048; FileSystemDomain = "other.edu"; Requirements = true ]
[ MyType = "Job"; Name = "not-a-machine"; Requirements = true ]
[ MyType = "Machine"; Name = "m8-disk"; Arch = "X86_64"; Group = "TestPool"; OpSys = "LINUX"; Disk = 60000;
  Memory = 2048; FileSystemDomain = "cs.wisc.edu"; Requirements = true ]
"#;

#[test]
fn hand_checked_pool() {
    let job = &ads(JOB)[0];
    let pool = ads(POOL);
    let options = EvalOptions::new().semantics(Semantics::Old);
    let report = analyze(&options, job, &pool);

    assert_eq!((report.machines, report.rejected_by_job, report.rejected_by_machine, report.matching), (8, 6, 1, 1));
    let flattened: Vec<String> = report.conditions.iter().map(|c| c.flattened.to_string()).collect();
    assert_eq!(
        flattened,
        [
            "(TARGET.Disk >= 100000)",
            r#"(TARGET.Group == "TestPool")"#,
            r#"(TARGET.Arch == "X86_64" || TARGET.Arch == "INTEL")"#,
            r#"(TARGET.OpSys == "LINUX")"#,
            r#"(TARGET.FileSystemDomain == "cs.wisc.edu")"#,
            // As in the seed manual's condor_q example: the constant first.
            "((1024 * TARGET.Memory) >= 100000)",
        ]
    );
    let conditions: Vec<(usize, String, usize)> =
        report.conditions.iter().map(|c| (c.position, c.expr.to_string(), c.satisfied)).collect();
    assert_eq!(
        conditions,
        [
            (3, "(TARGET.Disk >= DiskUsage)".to_owned(), 5),
            (1, r#"(TARGET.Group == "TestPool")"#.to_owned(), 6),
            (0, r#"(TARGET.Arch == "X86_64" || TARGET.Arch == "INTEL")"#.to_owned(), 7),
            (2, r#"(TARGET.OpSys == "LINUX")"#.to_owned(), 7),
            (5, "(TARGET.FileSystemDomain == MY.FileSystemDomain)".to_owned(), 7),
            (4, "((TARGET.Memory * 1024) >= ImageSize)".to_owned(), 8),
        ]
    );
    let suggestions: Vec<(usize, Option<String>, usize)> = report
        .suggestions
        .iter()
        .map(|s| (s.position, s.replacement.as_ref().map(ToString::to_string), s.more_matches))
        .collect();
    assert_eq!(
        suggestions,
        [
            (3, Some("TARGET.Disk >= 50000".to_owned()), 2),
            (1, Some(r#"TARGET.Group == "Other""#.to_owned()), 1),
            (2, Some(r#"TARGET.OpSys == "WINDOWS""#.to_owned()), 1),
        ]
    );
    let missing: Vec<(&str, bool, usize)> =
        report.missing_from_job.iter().map(|m| (m.name.as_str(), m.by_job, m.by_machines)).collect();
    // m4's unscoped `RequestGPUs` is not reported: under old semantics it
    // would be the job's, but such names are mostly optional machine
    // settings. m3's `TARGET.CheckpointPlatform =!= "x"` is written for jobs
    // without it.
    assert_eq!(missing, []);
    // m1 rejects the job on its only condition.
    let machine_side: Vec<(String, usize)> =
        report.machine_conditions.iter().map(|c| (c.expr.to_string(), c.rejecting)).collect();
    assert_eq!(machine_side, [(r#"TARGET.Owner == "bob""#.to_owned(), 1)]);
}

/// The machine side: the machines' `Requirements` unfolded through `START`
/// and the like, the conditions that reject the job counted over the
/// machines that reject it; attributes tested for UNDEFINED are not
/// missing, others are.
#[test]
fn machine_side_conditions_and_missing_attributes() {
    let job = &ads(r#"[ Owner = "alice"; RequestCpus = 2; RequestMemory = 4096; Requirements = true ]"#)[0];
    let pool = ads(r#"
[ Name = "small"; Cpus = 1; Memory = 8192; KeyboardIdle = 900;
  START = KeyboardIdle > 600 && (TARGET.Owner != "bob") && (isUndefined(TARGET.Image) || TARGET.Image == "x");
  Limits = TARGET.RequestCpus <= Cpus && (TARGET.RequestMemory <= Memory);
  Requirements = START && (Limits) ]
[ Name = "tiny"; Cpus = 1; Memory = 1024; KeyboardIdle = 900;
  START = KeyboardIdle > 600 && (TARGET.Owner != "bob") && TARGET.Project =?= undefined;
  Limits = TARGET.RequestCpus <= Cpus && (TARGET.RequestMemory <= Memory);
  Requirements = START && (Limits) ]
[ Name = "busy"; Cpus = 8; Memory = 8192; KeyboardIdle = 10; START = KeyboardIdle > 600 && TARGET.Group == "physics";
  Requirements = MY.START && true ]
[ Name = "loop"; A = B && TARGET.Owner == "carol"; B = A; Requirements = A ]
[ Name = "open"; Requirements = true ]
"#);
    let options = EvalOptions::new().semantics(Semantics::Old);
    let report = analyze(&options, job, &pool);
    assert_eq!((report.machines, report.rejected_by_job, report.rejected_by_machine, report.matching), (5, 0, 4, 1));
    let machine_side: Vec<(String, usize)> =
        report.machine_conditions.iter().map(|c| (c.expr.to_string(), c.rejecting)).collect();
    assert_eq!(
        machine_side,
        [
            ("TARGET.RequestCpus <= Cpus".to_owned(), 2),
            ("(TARGET.RequestMemory <= Memory)".to_owned(), 1),
            // A cycle ends: B is A again, which is not unfolded twice.
            ("A".to_owned(), 1),
            ("KeyboardIdle > 600".to_owned(), 1),
            (r#"TARGET.Group == "physics""#.to_owned(), 1),
            (r#"TARGET.Owner == "carol""#.to_owned(), 1),
        ]
    );
    let missing: Vec<(&str, bool, usize)> =
        report.missing_from_job.iter().map(|m| (m.name.as_str(), m.by_job, m.by_machines)).collect();
    // Image and Project are tested for UNDEFINED; Group is not.
    assert_eq!(missing, [("Group", false, 1)]);
    // One slot's conditions with their values.
    let tiny = pool.iter().find(|ad| ad.get("Name").is_some_and(|n| n.to_string() == "\"tiny\"")).expect("tiny");
    let values: Vec<(String, String)> = classad::analysis::machine_conditions(&options, job, tiny)
        .into_iter()
        .map(|(c, v)| (c.to_string(), v.to_string()))
        .collect();
    assert_eq!(
        values,
        [
            ("KeyboardIdle > 600".to_owned(), "true".to_owned()),
            (r#"(TARGET.Owner != "bob")"#.to_owned(), "true".to_owned()),
            ("TARGET.Project is undefined".to_owned(), "true".to_owned()),
            ("TARGET.RequestCpus <= Cpus".to_owned(), "false".to_owned()),
            ("(TARGET.RequestMemory <= Memory)".to_owned(), "false".to_owned()),
        ]
    );
}

/// The machine side on the (refreshed) pool sample: the machines that
/// reject each test job, and the conditions of their `Requirements` that
/// do, counted as libclassad evaluates them
/// (`data/matching/machine_conditions_refreshed.jsonl`).
#[test]
fn machine_conditions_agree_with_libclassad_on_the_pool_sample() {
    let mut stream = common::pool_sample();
    for ad in &mut stream {
        if ad.contains("GLIDEIN_ToRetire") || ad.contains("GLIDEIN_ToDie") {
            ad.insert("GLIDEIN_ToRetire", 4_102_444_800i64);
            ad.insert("GLIDEIN_ToDie", 4_102_531_200i64);
        }
    }
    let jobs = ads(include_str!("data/matching/jobs.ads"));
    let options = EvalOptions::new().semantics(Semantics::Old);
    let mut lines = 0;
    for line in include_str!("data/matching/machine_conditions_refreshed.jsonl").lines() {
        let oracle: Json = serde_json::from_str(line).expect("JSON line");
        let j = oracle["job"].as_u64().expect("job") as usize;
        let report = analyze(&options, &jobs[j], &stream);
        assert_eq!(report.rejected_by_machine as u64, oracle["rejected_by_machine"].as_u64().expect("count"));
        // libclassad's text of each condition, in our canonical form.
        let mut expected: Vec<(String, u64)> = oracle["conditions"]
            .as_array()
            .expect("conditions")
            .iter()
            .map(|pair| {
                let text = pair[0].as_str().expect("text");
                let expr = classad::parse_expr(text).unwrap_or_else(|e| panic!("{text}: {e}"));
                (expr.to_string(), pair[1].as_u64().expect("count"))
            })
            .collect();
        let mut ours: Vec<(String, u64)> =
            report.machine_conditions.iter().map(|c| (c.expr.to_string(), c.rejecting as u64)).collect();
        expected.sort();
        ours.sort();
        assert_eq!(ours, expected, "job {j}");
        lines += 1;
    }
    assert_eq!(lines, jobs.len());
}

#[test]
fn a_job_without_requirements_rejects_everything() {
    let job: ClassAd = "[ Owner = \"x\" ]".parse().expect("ad");
    let pool = ads(POOL);
    let report = analyze(&EvalOptions::new(), &job, &pool);
    assert_eq!((report.machines, report.rejected_by_job, report.matching), (8, 8, 0));
    assert!(report.conditions.is_empty() && report.suggestions.is_empty());
}

/// The three counts for each test job against the refreshed pool sample
/// follow from libclassad's pair-by-pair answers.
#[test]
fn counts_agree_with_libclassad_on_the_pool_sample() {
    // The whole stream, Machine ads and others: analyze picks the machines.
    let mut stream = common::pool_sample();
    for ad in &mut stream {
        if ad.contains("GLIDEIN_ToRetire") || ad.contains("GLIDEIN_ToDie") {
            ad.insert("GLIDEIN_ToRetire", 4_102_444_800i64);
            ad.insert("GLIDEIN_ToDie", 4_102_531_200i64);
        }
    }
    let jobs = ads(include_str!("data/matching/jobs.ads"));
    let oracle: Vec<Json> = include_str!("data/matching/pool_matches_refreshed.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let options = EvalOptions::new().semantics(Semantics::Old);
    for (j, job) in jobs.iter().enumerate() {
        let pairs: Vec<&Json> = oracle.iter().filter(|r| r["job"].as_u64() == Some(j as u64)).collect();
        let flag = |r: &Json, k: &str| r[k].as_bool().expect("bool");
        let by_job = pairs.iter().filter(|r| !flag(r, "job_accepts")).count();
        let by_machine = pairs.iter().filter(|r| flag(r, "job_accepts") && !flag(r, "machine_accepts")).count();
        let matching = pairs.iter().filter(|r| flag(r, "symmetric")).count();
        let report = analyze(&options, job, &stream);
        assert_eq!(
            (report.machines, report.rejected_by_job, report.rejected_by_machine, report.matching),
            (pairs.len(), by_job, by_machine, matching),
            "job {j}"
        );
    }
}
