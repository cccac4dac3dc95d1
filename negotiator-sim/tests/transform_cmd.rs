//! `negotiator-sim transform` from the command line: the transform corpus
//! (`matchmaker/tests/data/transforms`) printed byte for byte as
//! HTCondor's `condor_transform_ads` printed it, in the long form and as
//! JSON; submit requirements; bad rules named by file and line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../matchmaker/tests/data/transforms")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_negotiator-sim"))
        .arg("transform")
        .args(args)
        .current_dir(corpus())
        .env_remove("CONDOR_CONFIG")
        .output()
        .expect("negotiator-sim runs")
}

fn names(dir: &str, ext: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(corpus().join(dir))
        .expect("corpus")
        .filter_map(|e| {
            let p = e.expect("entry").path();
            (p.extension()? == ext).then(|| p.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    out.sort();
    out
}

#[test]
fn corpus_output_is_condor_transform_ads_output() {
    let items = format!("ITEMS={}", corpus().join("items").display());
    let mut differ = Vec::new();
    let mut compared = 0;
    for jobs in names("jobs", "ad") {
        let job_file = format!("jobs/{jobs}.ad");
        for rules in names("rules", "xform") {
            let rules_file = format!("rules/{rules}.xform");
            let out = run(&["-rules", &rules_file, &items, "SITE=east", &job_file]);
            let expected = std::fs::read(corpus().join(format!("expected/{rules}__{jobs}.out"))).expect("expected");
            if out.stdout != expected {
                differ.push(format!("{rules} x {jobs}"));
            }
            // condor_transform_ads -out:json -
            let out = run(&["--json", "-rules", &rules_file, &items, "SITE=east", &job_file]);
            let expected = std::fs::read(corpus().join(format!("expected/{rules}__{jobs}.json"))).expect("expected");
            if out.stdout != expected {
                differ.push(format!("{rules} x {jobs} (JSON)"));
            }
            compared += 1;
        }
        for conf in names("configs", "conf") {
            let path = format!("configs/{conf}.conf");
            let text = std::fs::read_to_string(corpus().join(&path)).expect("config");
            let list = text.lines().find_map(|l| l.strip_prefix("# jobtransforms:")).expect("names").trim();
            let out = run(&["--config", &path, "-jobtransforms", list, &items, "SITE=east", &job_file]);
            let expected = std::fs::read(corpus().join(format!("expected/{conf}__{jobs}.out"))).expect("expected");
            if out.stdout != expected {
                differ.push(format!("{conf} x {jobs}"));
            }
            compared += 1;
        }
    }
    assert!(compared >= 51, "{compared} cases");
    assert!(differ.is_empty(), "output differs from condor_transform_ads for {differ:?}");
}

#[test]
fn schedd_transforms_then_submit_requirements() {
    let dir = std::env::temp_dir().join(format!("transform-cmd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let conf = dir.join("schedd.conf");
    std::fs::write(
        &conf,
        "JOB_TRANSFORM_NAMES = Cap\n\
         JOB_TRANSFORM_Cap @=end\n\
           REQUIREMENTS RequestMemory > 4096\n\
           SET RequestMemory 4096\n\
         @end\n\
         SUBMIT_REQUIREMENT_NAMES = NoGpu Project\n\
         SUBMIT_REQUIREMENT_NoGpu = WantGPU =!= true\n\
         SUBMIT_REQUIREMENT_NoGpu_REASON = strcat(\"no GPUs here, \", Owner)\n\
         SUBMIT_REQUIREMENT_Project = ProjectName isnt undefined\n\
         SUBMIT_REQUIREMENT_Project_IS_WARNING = true\n",
    )
    .expect("write config");
    let conf = conf.to_string_lossy().to_string();
    // bob wants a GPU: refused; alice has no project: warned, accepted.
    let out = run(&["--config", &conf, "--submit-requirements", "jobs/alice.ad", "jobs/bob.ad"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("Job 11.3: REFUSED: no GPUs here, bob"), "{stderr}");
    assert!(stderr.contains("Job 10.0: WARNING: Submit requirement Project not met."), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Owner = \"alice\"") && !stdout.contains("Owner = \"bob\""), "{stdout}");
    // The transform capped carol's second job before the requirements ran.
    let out = run(&["--config", &conf, "--json", "jobs/two.ad"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    assert_eq!(json[1]["RequestMemory"], 4096);
    assert_eq!(json[0]["RequestMemory"], 512);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_rules_are_named_by_file_and_line() {
    let dir = std::env::temp_dir().join(format!("transform-cmd-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let rules = dir.join("bad.xform");
    std::fs::write(&rules, "SET A 1\n\nFROB B 2\n").expect("write");
    let out = run(&["--rules", &rules.to_string_lossy(), "jobs/alice.ad"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("bad.xform, line 3: FROB is not a valid transform keyword"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn rules_and_jobtransforms_apply_in_command_line_order() {
    let dir = std::env::temp_dir().join(format!("transform-cmd-order-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let conf = dir.join("c.conf");
    std::fs::write(&conf, "JOB_TRANSFORM_T = SET X 2\n").expect("write");
    let rules = dir.join("r.xform");
    std::fs::write(&rules, "SET X 1\n").expect("write");
    let (conf, rules) = (conf.to_string_lossy().to_string(), rules.to_string_lossy().to_string());
    let out = run(&["--config", &conf, "-rules", &rules, "-jobtransforms", "T", "jobs/bob.ad"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("X = 2"));
    let out = run(&["--config", &conf, "-jobtransforms", "T", "-rules", &rules, "jobs/bob.ad"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("X = 1"));
    std::fs::remove_dir_all(&dir).ok();
}

/// The exit status says whether an error was reported, whatever its kind:
/// a configured transform that does not read (skipped), a statement that
/// fails on an ad (the rest applied), a rules file that does not read
/// (nothing made). The ads that could be made are printed all the same.
#[test]
fn every_kind_of_rule_error_exits_1() {
    let items = format!("ITEMS={}", corpus().join("items").display());
    let clean = run(&["-rules", "rules/01_set_default.xform", &items, "jobs/alice.ad"]);
    assert_eq!(clean.status.code(), Some(0), "{}", String::from_utf8_lossy(&clean.stderr));
    let skipped = run(&["--config", "configs/05_invalid.conf", "-jobtransforms", "Good Bad", "jobs/alice.ad"]);
    let stderr = String::from_utf8_lossy(&skipped.stderr);
    assert!(stderr.contains("Invalid rules file Bad"), "{stderr}");
    assert_eq!(skipped.status.code(), Some(1), "{stderr}");
    assert!(String::from_utf8_lossy(&skipped.stdout).contains("Good = true"), "the good transform applied");
    let failed = run(&["-rules", "rules/14_errors_continue.xform", &items, "jobs/alice.ad"]);
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains("ERROR: "), "{stderr}");
    assert_eq!(failed.status.code(), Some(1), "{stderr}");
    assert!(!failed.stdout.is_empty(), "the ad is printed");
    let expected = std::fs::read(corpus().join("expected/14_errors_continue__alice.out")).expect("expected");
    assert_eq!(failed.stdout, expected, "as condor_transform_ads printed it");
}

#[test]
fn submit_requirements_give_a_real_schedds_verdicts() {
    // matchmaker/tests/data/submit_requirements: what a real HTCondor
    // 23.9.6 schedd said of 120 jobs (see its README), through the command.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../matchmaker/tests/data/submit_requirements");
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(data.join("ads")).expect("ads/").map(|e| e.expect("an entry").path()).collect();
    cases.sort();
    assert!(cases.len() >= 40);
    let (config, schedd) = (data.join("schedd.conf"), data.join("schedd.ad"));
    for path in &cases {
        let case = path.file_stem().and_then(|s| s.to_str()).expect("a name");
        let out = run(&[
            "--config",
            &config.to_string_lossy(),
            "--submit-requirements",
            "--schedd-ad",
            &schedd.to_string_lossy(),
            &path.to_string_lossy(),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let recorded = std::fs::read_to_string(data.join("expected").join(format!("{case}.submit"))).expect("submit");
        let refusal =
            recorded.lines().filter_map(|l| l.strip_prefix("ERROR: ")).find(|l| !l.starts_with("Failed to commit"));
        let warnings: Vec<&str> = recorded.lines().filter_map(|l| l.strip_prefix("WARNING: QMGMT:0:")).collect();
        let ours_refusal = stderr.lines().find_map(|l| l.split_once(": REFUSED: ").map(|(_, r)| r));
        let ours_warnings: Vec<&str> =
            stderr.lines().filter_map(|l| l.split_once(": WARNING: ").map(|(_, w)| w)).collect();
        assert_eq!(ours_refusal, refusal, "{case}: {stderr}");
        assert_eq!(ours_warnings, warnings, "{case}: {stderr}");
        assert_eq!(out.status.code(), Some(if refusal.is_some() { 2 } else { 0 }), "{case}: {stderr}");
    }
}
