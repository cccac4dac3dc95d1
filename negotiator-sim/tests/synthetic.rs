//! The synthetic pool against what HTCondor's side of the negotiation
//! benchmark really produced:
//!
//! * lean slot ads: the ads injected into HTCondor 23.9.6's collector in the
//!   cycle snapshots of `matchmaker/tests/data/cycle` (`snap-200-200-3-6`,
//!   `snap-1000-1000-4-8`);
//! * full slot ads: the benchmark's own generator's output for 1000 slots
//!   (`tests/data/synthetic/full-1000-2.ad.gz`, made by `regen.sh` there);
//! * job ads: `condor_q -l` of the same snapshots (every attribute), and
//!   `condor_submit -dry-run` of the generator's submit files for 40 job
//!   classes (`dryrun-60-3-40.ad`: classes the snapshots do not have);
//! * users: the priority factors `condor_userprio -l` showed.
//!
//! Every value derived from the clock comes from the base time, which the
//! tests take from the captured ads (`DaemonStartTime`), so the
//! time-dependent attributes are compared too: `DaemonStartTime`,
//! `DaemonLastReconfigTime`, `EnteredCurrentState`, `EnteredCurrentActivity`,
//! `ExpectedMachine*DrainingCompletion`, `LastBenchmark`, `MonitorSelfTime`,
//! `MyCurrentTime` (slots), `QDate`, `EnteredCurrentStatus`, `GlobalJobId`
//! (jobs). Attributes left out are listed where they are left out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use classad::format::{self, Reader};
use classad::{ClassAd, Value};
use negotiator_sim::synthetic::{generate, SlotAttrs, Spec, SpecError};

fn cycle_data(snapshot: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../matchmaker/tests/data/cycle").join(snapshot)
}

fn synthetic_data(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/synthetic").join(file)
}

/// Every ad of an old-format file (gzipped or not).
fn read_ads(path: &Path) -> Vec<ClassAd> {
    let input = format::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Reader::new(input, Some(format::Format::Old))
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn int(ad: &ClassAd, name: &str) -> i64 {
    match ad.eval_attr(name) {
        Value::Int(i) => i,
        other => panic!("{name} is {other:?}"),
    }
}

/// Asserts two ads have the same attributes, in the same order, with the
/// same expressions, apart from `except`.
fn assert_same_ad(what: &str, ours: &ClassAd, theirs: &ClassAd, except: &[&str]) {
    let keep = |name: &classad::Name| !except.iter().any(|e| name.is(e));
    let ours_list: Vec<(String, String)> =
        ours.iter().filter(|(n, _)| keep(n)).map(|(n, e)| (n.as_str().to_string(), e.to_string())).collect();
    let theirs_list: Vec<(String, String)> =
        theirs.iter().filter(|(n, _)| keep(n)).map(|(n, e)| (n.as_str().to_string(), e.to_string())).collect();
    assert_eq!(ours_list, theirs_list, "{what}");
    for (name, expr) in theirs.iter().filter(|(n, _)| keep(n)) {
        let mine = ours.get(name).unwrap_or_else(|| panic!("{what}: no {name}"));
        assert!(mine.same_as(expr), "{what}: {name}: {mine} (ours) vs {expr}");
    }
}

fn lean_slots_match(snapshot: &str, file: &str, users: usize, classes: usize) {
    let captured = read_ads(&cycle_data(snapshot).join(file));
    let base_time = int(&captured[0], "DaemonStartTime");
    let spec = Spec { attrs: SlotAttrs::Lean, base_time, ..Spec::new(captured.len(), 0, users, classes) };
    let slots: Vec<ClassAd> = spec.slot_ads().expect("spec").collect();
    assert_eq!(slots.len(), captured.len());
    for (i, (ours, theirs)) in slots.iter().zip(&captured).enumerate() {
        assert_eq!(theirs.len(), 51);
        assert_same_ad(&format!("{snapshot} slot ad {i}"), ours, theirs, &[]);
    }
}

#[test]
fn lean_slots_are_the_ads_htcondor_was_given_200() {
    lean_slots_match("snap-200-200-3-6", "slots.ad", 3, 6);
}

#[test]
fn lean_slots_are_the_ads_htcondor_was_given_1000() {
    lean_slots_match("snap-1000-1000-4-8", "slots.ad.gz", 4, 8);
}

#[test]
fn full_slots_are_the_generators() {
    let captured = read_ads(&synthetic_data("full-1000-2.ad.gz"));
    assert_eq!(captured.len(), 1000);
    let base_time = int(&captured[0], "DaemonStartTime");
    let spec = Spec { base_time, ..Spec::new(1000, 1, 2, 2) };
    let slots: Vec<ClassAd> = spec.slot_ads().expect("spec").collect();
    assert_eq!(slots.len(), 1000);
    for (i, (ours, theirs)) in slots.iter().zip(&captured).enumerate() {
        assert_same_ad(&format!("full slot ad {i}"), ours, theirs, &[]);
    }
    // x86_64 hosts have 158 attributes, aarch64 ones (every 20th) 153.
    assert_eq!(slots[0].len(), 158);
    assert_eq!(slots[19 * 8].len(), 153);
}

/// Left out of the job comparison:
/// * `AutoClusterId`: the schedd numbers autoclusters in an order of its
///   own (its history and hash tables); the grouping is compared instead.
/// * `ServerTime`: when `condor_q` ran.
/// * `LastRejMatchReason`, `LastRejMatchTime`: written into the few jobs the
///   measured cycle rejected, after it ran.
const JOB_EXCEPT: [&str; 4] = ["AutoClusterId", "ServerTime", "LastRejMatchReason", "LastRejMatchTime"];

fn jobs_match(snapshot: &str, slots: usize, users: usize, classes: usize) {
    let captured = read_ads(&cycle_data(snapshot).join("jobs.ad.gz"));
    let base_time = int(&captured[0], "QDate") - 3600;
    let first_cluster = captured.iter().map(|ad| int(ad, "ClusterId")).min().expect("jobs");
    let spec =
        Spec { attrs: SlotAttrs::Lean, base_time, first_cluster, ..Spec::new(slots, captured.len(), users, classes) };
    let jobs: Vec<ClassAd> = spec.job_ads().expect("spec").collect();
    assert_eq!(jobs.len(), captured.len());
    assert_eq!(spec.classes_used(), classes);
    let mut autoclusters = BTreeMap::new();
    for (i, (ours, theirs)) in jobs.iter().zip(&captured).enumerate() {
        assert_same_ad(&format!("{snapshot} job ad {i}"), ours, theirs, &JOB_EXCEPT);
        // The same autocluster on one side is the same on the other.
        let pair = (int(ours, "AutoClusterId"), int(theirs, "AutoClusterId"));
        assert_eq!(*autoclusters.entry(pair.0).or_insert(pair.1), pair.1, "{snapshot} job ad {i}: autocluster");
    }
    let theirs: std::collections::BTreeSet<i64> = autoclusters.values().copied().collect();
    assert_eq!(theirs.len(), autoclusters.len(), "{snapshot}: autoclusters merged");
    assert_eq!(autoclusters.len(), classes);
}

#[test]
fn jobs_are_the_schedds_200() {
    jobs_match("snap-200-200-3-6", 200, 3, 6);
}

#[test]
fn jobs_are_the_schedds_1000() {
    jobs_match("snap-1000-1000-4-8", 1000, 4, 8);
}

/// Against `condor_submit -dry-run` of the generator's submit files for 60
/// jobs, 3 users and 40 classes (memory per core 512 to 2048 MB, one core
/// with extra requirements, ...). The dry-run shows what condor_submit
/// builds, before the schedd adds to it; left out: `ClusterId` (each
/// dry-run calls its cluster 1), `Owner` (the schedd sets it; undefined in
/// a dry-run), `QDate` and `EnteredCurrentStatus`
/// (the clock), `JobSubmitFile` (where the files were), and `DiskUsage`,
/// `ImageSize`, `ExecutableSize` (the schedd rounds them up: 43 becomes 45,
/// the `_RAW` attributes keep 43).
#[test]
fn jobs_are_condor_submits_for_40_classes() {
    let records = read_ads(&synthetic_data("dryrun-60-3-40.ad"));
    let spec = Spec { attrs: SlotAttrs::Lean, ..Spec::new(8, 60, 3, 40) };
    let jobs: Vec<ClassAd> = spec.job_ads().expect("spec").collect();
    let mut expected = Vec::new();
    let mut cluster = ClassAd::new();
    for record in records {
        let proc_ad = if record.contains("ClusterId") {
            cluster = record;
            cluster.clone()
        } else {
            let mut ad = cluster.clone();
            ad.update(&record);
            ad
        };
        expected.push(proc_ad);
    }
    assert_eq!(jobs.len(), 60);
    assert_eq!(expected.len(), 60);
    let except = [
        "ClusterId",
        "Owner",
        "QDate",
        "EnteredCurrentStatus",
        "JobSubmitFile",
        "DiskUsage",
        "ImageSize",
        "ExecutableSize",
        "AnchorUser",
    ];
    for (i, (ours, theirs)) in jobs.iter().zip(&expected).enumerate() {
        let what = format!("dry-run job {i}");
        let mut compared = 0;
        for (name, expr) in theirs.iter() {
            if except.iter().any(|e| name.is(e)) {
                continue;
            }
            let mine = ours.get(name).unwrap_or_else(|| panic!("{what}: no {name}"));
            assert!(mine.same_as(expr), "{what}: {name}: {mine} (ours) vs {expr}");
            compared += 1;
        }
        assert!(compared >= 55, "{what}: only {compared} attributes compared");
        let user = theirs.eval_attr("AnchorUser");
        assert_eq!(ours.eval_attr("Owner"), user, "{what}");
    }
    // The classes cover what the snapshots do not.
    let memory_per_core: std::collections::BTreeSet<i64> =
        jobs.iter().map(|j| int(j, "RequestMemory") / int(j, "RequestCpus")).collect();
    assert_eq!(memory_per_core.into_iter().collect::<Vec<_>>(), [512, 1024, 1536, 2048]);
    assert!(jobs.iter().any(|j| int(j, "RequestCpus") == 1 && int(j, "AnchorClass") % 5 == 4));
}

#[test]
fn users_have_the_factors_condor_userprio_showed() {
    let pool = generate(&Spec::new(0, 0, 4, 8)).expect("spec");
    let captured = read_ads(&cycle_data("snap-1000-1000-4-8").join("userprio.ad"));
    let (rows, _) = matchmaker::accountant::PriorityRow::from_userprio_ad(&captured[0]);
    let mut theirs: Vec<(String, f64)> =
        rows.iter().filter(|r| !r.is_group).map(|r| (r.name.clone(), r.priority_factor)).collect();
    theirs.sort_by(|a, b| a.0.cmp(&b.0));
    let ours: Vec<(String, f64)> = pool.users.iter().map(|u| (u.name.clone(), u.factor)).collect();
    assert_eq!(ours, theirs);
    assert_eq!(pool.users[0].owner, "bench01");

    let acct = pool.accountant(matchmaker::accountant::AccountantConfig::default()).expect("accountant");
    assert_eq!(acct.priority_factor("bench04@anchor.local"), 1000.004);
    // A new submitter's real priority is the minimum, 0.5.
    assert_eq!(acct.effective_priority("bench02@anchor.local"), 0.5 * 1000.002);
}

#[test]
fn jobs_spread_as_the_script_spreads_them() {
    // Fewer classes than users: users share classes, so autoclusters too.
    let spec = Spec::new(0, 10, 4, 2);
    let jobs: Vec<ClassAd> = spec.job_ads().expect("spec").collect();
    let rows: Vec<(i64, i64, i64, i64)> = jobs
        .iter()
        .map(|j| (int(j, "ClusterId"), int(j, "ProcId"), int(j, "AnchorClass"), int(j, "AutoClusterId")))
        .collect();
    assert_eq!(
        rows,
        [
            (1, 0, 0, 1),
            (1, 1, 0, 1),
            (1, 2, 0, 1),
            (2, 0, 1, 2),
            (2, 1, 1, 2),
            (2, 2, 1, 2),
            (3, 0, 0, 1),
            (3, 1, 0, 1),
            (4, 0, 1, 2),
            (4, 1, 1, 2),
        ]
    );
    assert_eq!(int(&jobs[0], "TotalSubmitProcs"), 3);
    assert_eq!(int(&jobs[9], "TotalSubmitProcs"), 2);
    assert_eq!(spec.classes_used(), 2);

    // Fewer jobs than users: the users without jobs submit no cluster.
    let spec = Spec::new(0, 2, 3, 1000);
    let jobs: Vec<ClassAd> = spec.job_ads().expect("spec").collect();
    let users: Vec<Value> = jobs.iter().map(|j| j.eval_attr("Owner")).collect();
    assert_eq!(users, [Value::from("bench01"), Value::from("bench02")]);
    assert_eq!(spec.job_ads().expect("spec").len(), 2);
    assert_eq!(spec.classes_used(), 2);

    // 100 users or more: three digits, and the startd rank names the first.
    let spec = Spec { attrs: SlotAttrs::Lean, ..Spec::new(8, 100, 100, 100) };
    let pool = generate(&spec).expect("spec");
    assert_eq!(pool.users[0].name, "bench001@anchor.local");
    assert_eq!(pool.users[99].owner, "bench100");
    let rank = classad::parse_expr("(TARGET.Owner =?= \"bench001\") * 10.0").expect("rank");
    assert!(pool.slots[0].get("Rank").is_some_and(|r| r.same_as(&rank)));
}

#[test]
fn a_pool_needs_users_and_classes() {
    assert_eq!(generate(&Spec::new(8, 8, 0, 1)).err(), Some(SpecError::NoUsers));
    assert_eq!(generate(&Spec::new(8, 8, 1, 0)).err(), Some(SpecError::NoClasses));
    assert_eq!(generate(&Spec::new(8, 8, 1_000_001, 1)).err(), Some(SpecError::TooManyUsers(1_000_001)));
    let late = Spec { base_time: i64::MAX - 3599, ..Spec::new(8, 8, 1, 1) };
    assert_eq!(late.slot_ads().err(), Some(SpecError::BaseTime(i64::MAX - 3599)));
    for first_cluster in [0, i64::from(i32::MAX)] {
        let spec = Spec { first_cluster, ..Spec::new(8, 8, 2, 1) };
        assert_eq!(spec.job_ads().err(), Some(SpecError::FirstCluster(first_cluster)));
    }
    let last = Spec { first_cluster: i64::from(i32::MAX) - 1, ..Spec::new(8, 8, 2, 1) };
    assert_eq!(last.job_ads().expect("spec").last().map(|ad| int(&ad, "ClusterId")), Some(i64::from(i32::MAX)));
    let empty = generate(&Spec::new(0, 0, 1, 1)).expect("spec");
    assert!(empty.slots.is_empty() && empty.jobs.is_empty());
    // A last host with fewer than 8 slots says so.
    let pool = generate(&Spec::new(10, 0, 1, 1)).expect("spec");
    assert_eq!(int(&pool.slots[9], "TotalSlots"), 2);
    assert_eq!(int(&pool.slots[0], "TotalSlots"), 8);
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("negotiator-sim-synthetic-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn generate_writes_the_pool_as_htcondors_tools_print_it() {
    let dir = scratch_dir("generate");
    let snapshot = cycle_data("snap-200-200-3-6");
    let captured_slots = read_ads(&snapshot.join("slots.ad"));
    let base_time = int(&captured_slots[0], "DaemonStartTime");
    let out = Command::new(env!("CARGO_BIN_EXE_negotiator-sim"))
        .args(["generate", "--slots", "200", "--jobs", "200", "--users", "3", "--autoclusters", "6", "--lean"])
        .args(["--base-time", &base_time.to_string(), "--out"])
        .arg(&dir)
        .output()
        .expect("run negotiator-sim");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("200 slots (lean), 200 jobs in 6 job classes, 3 users"), "{stderr}");

    let slots = read_ads(&dir.join("slots.ad"));
    assert_eq!(slots.len(), 200);
    for (i, (ours, theirs)) in slots.iter().zip(&captured_slots).enumerate() {
        assert_same_ad(&format!("slots.ad ad {i}"), ours, theirs, &[]);
    }
    let jobs = read_ads(&dir.join("jobs.ad"));
    let captured_jobs = read_ads(&snapshot.join("jobs.ad.gz"));
    assert_eq!(jobs.len(), 200);
    for (i, (ours, theirs)) in jobs.iter().zip(&captured_jobs).enumerate() {
        assert_same_ad(&format!("jobs.ad ad {i}"), ours, theirs, &JOB_EXCEPT);
    }

    // userprio.ad is what `negotiator-sim userprio --inputfile` reads.
    let out = Command::new(env!("CARGO_BIN_EXE_negotiator-sim"))
        .args(["userprio", "--allusers", "--json", "--inputfile"])
        .arg(dir.join("userprio.ad"))
        .output()
        .expect("run negotiator-sim");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let factors: Vec<(String, f64)> = json["submitters"]
        .as_array()
        .expect("submitters")
        .iter()
        .map(|s| (s["name"].as_str().unwrap_or_default().to_string(), s["priority_factor"].as_f64().unwrap_or(0.0)))
        .collect();
    assert_eq!(
        factors,
        [
            ("bench01@anchor.local".to_string(), 1000.001),
            ("bench02@anchor.local".to_string(), 1000.002),
            ("bench03@anchor.local".to_string(), 1000.003)
        ]
    );
    assert_eq!(json["last_update"], base_time + 3600);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generate_refuses_a_pool_without_users() {
    let dir = scratch_dir("refuse");
    let out = Command::new(env!("CARGO_BIN_EXE_negotiator-sim"))
        .args(["generate", "--slots", "8", "--jobs", "8", "--users", "0", "--out"])
        .arg(&dir)
        .output()
        .expect("run negotiator-sim");
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "negotiator-sim generate: a synthetic pool needs at least one user\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generate_makes_what_the_iterators_make() {
    // 4500 jobs per batch: more than one piece of the parallel generation;
    // 1003 slots: a last host of 3 slots.
    for attrs in [SlotAttrs::Full, SlotAttrs::Lean] {
        let spec = Spec { attrs, ..Spec::new(1003, 9000, 2, 2) };
        let pool = generate(&spec).expect("spec");
        let slots: Vec<ClassAd> = spec.slot_ads().expect("spec").collect();
        let jobs: Vec<ClassAd> = spec.job_ads().expect("spec").collect();
        assert_eq!(pool.slots.len(), 1003);
        assert_eq!(pool.jobs.len(), 9000);
        for (i, (a, b)) in pool.slots.iter().zip(&slots).enumerate() {
            assert_same_ad(&format!("slot {i}"), a, b, &[]);
        }
        for (i, (a, b)) in pool.jobs.iter().zip(&jobs).enumerate() {
            assert_same_ad(&format!("job {i}"), a, b, &[]);
        }
        assert_eq!(int(&pool.jobs[8999], "ProcId"), 4499);
        assert_eq!(int(&pool.jobs[8999], "ClusterId"), 2);
    }
}

#[test]
fn chained_ads_evaluate_as_flat_ones() {
    use negotiator_sim::synthetic::Layout;
    let flat = generate(&Spec { base_time: 1_795_592_353, ..Spec::new(203, 300, 3, 7) }).expect("spec");
    let spec = Spec { base_time: 1_795_592_353, layout: Layout::Chained, ..Spec::new(203, 300, 3, 7) };
    let chained = generate(&spec).expect("spec");
    let iterated: Vec<ClassAd> = spec.slot_ads().expect("spec").chain(spec.job_ads().expect("spec")).collect();
    let all_chained = chained.slots.iter().chain(&chained.jobs);
    for (i, ((f, c), it)) in flat.slots.iter().chain(&flat.jobs).zip(all_chained).zip(&iterated).enumerate() {
        assert_eq!(c.len(), 2, "ad {i}: own attributes");
        let parent = c.chained_parent().expect("chained");
        assert_eq!(parent.len() + 2, f.len(), "ad {i}");
        for (name, expr) in f.iter() {
            let mine = c.lookup(name).unwrap_or_else(|| panic!("ad {i}: no {name}"));
            assert!(mine.same_as(expr), "ad {i}: {name}");
            assert!(it.lookup(name).is_some_and(|e| e.same_as(expr)), "ad {i} (iterator): {name}");
        }
    }
    // The same matches either way (some jobs match some slots, not all).
    let mut matched = [0, 0];
    let opts = classad::EvalOptions::new().semantics(classad::Semantics::Old);
    for (jf, jc) in flat.jobs.iter().zip(&chained.jobs).step_by(7) {
        for (sf, sc) in flat.slots.iter().zip(&chained.slots) {
            let f = classad::EvalContext::new(&opts).my(jf).target(sf);
            let c = classad::EvalContext::new(&opts).my(jc).target(sc);
            assert_eq!(f.eval_attr("Requirements"), c.eval_attr("Requirements"));
            assert_eq!(f.eval_attr("Rank"), c.eval_attr("Rank"));
            matched[usize::from(f.attr_is_true("Requirements"))] += 1;
            let f = classad::EvalContext::new(&opts).my(sf).target(jf);
            let c = classad::EvalContext::new(&opts).my(sc).target(jc);
            assert_eq!(f.eval_attr("Requirements"), c.eval_attr("Requirements"));
            assert_eq!(f.eval_attr("Rank"), c.eval_attr("Rank"));
        }
    }
    assert!(matched[0] > 0 && matched[1] > 0, "{matched:?}");
}

#[test]
fn one_user_with_many_classes_is_quick() {
    // A million classes of one job each for one user: one cluster, whose
    // procs are numbered without going over the earlier classes each time.
    let spec = Spec::new(0, 1_000_000, 1, 1_000_000);
    let started = std::time::Instant::now();
    let mut jobs = spec.job_ads().expect("spec");
    assert_eq!(jobs.len(), 1_000_000);
    assert_eq!(spec.classes_used(), 1_000_000);
    let rows: Vec<(i64, i64, i64, i64)> = jobs
        .by_ref()
        .take(3)
        .map(|j| (int(&j, "ClusterId"), int(&j, "ProcId"), int(&j, "AnchorClass"), int(&j, "TotalSubmitProcs")))
        .collect();
    assert_eq!(rows, [(1, 0, 0, 1_000_000), (1, 1, 1, 1_000_000), (1, 2, 2, 1_000_000)]);
    assert_eq!(jobs.len(), 999_997);
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}

/// A rejection: job, submitter, reason.
type Rejection = (String, String, String);

/// HTCondor's cycle on a snapshot (`summary.txt`): the matches in all, per
/// submitter, and the rejections.
fn htcondors_cycle(dir: &Path) -> (usize, BTreeMap<String, usize>, Vec<Rejection>) {
    let text = std::fs::read_to_string(dir.join("summary.txt")).expect("summary.txt");
    let mut total = 0;
    let mut per_submitter = BTreeMap::new();
    let mut rejections = Vec::new();
    for line in text.lines() {
        match line.split('\t').collect::<Vec<_>>().as_slice() {
            ["matches_by_submitter", name, n] => {
                per_submitter.insert(name.to_string(), n.parse::<usize>().expect("count"));
            }
            ["rejected", job, name, reason] => rejections.push((job.to_string(), name.to_string(), reason.to_string())),
            _ => {
                if let Some(n) = line.strip_prefix("matches ") {
                    total = n.trim().parse().expect("total");
                }
            }
        }
    }
    (total, per_submitter, rejections)
}

/// The generated pool of a snapshot, negotiated by our negotiator with the
/// snapshot pool's configuration, gives HTCondor's outcome; chained ads the
/// same.
fn cycle_matches(name: &str, users: usize, classes: usize) {
    use matchmaker::negotiator::Negotiator;
    use negotiator_sim::synthetic::Layout;
    let dir = cycle_data(name);
    let slots = read_ads(&dir.join(if dir.join("slots.ad").exists() { "slots.ad" } else { "slots.ad.gz" }));
    let jobs = read_ads(&dir.join("jobs.ad.gz"));
    let base_time = int(&slots[0], "DaemonStartTime");
    let first_cluster = int(&jobs[0], "ClusterId");
    let (total, expected_matches, expected_rejections) = htcondors_cycle(&dir);
    assert!(total > 0);
    for layout in [Layout::Flat, Layout::Chained] {
        let spec = Spec {
            attrs: SlotAttrs::Lean,
            base_time,
            first_cluster,
            layout,
            ..Spec::new(slots.len(), jobs.len(), users, classes)
        };
        let pool = generate(&spec).expect("spec");
        let config = matchmaker::config::Loader::new()
            .subsystem("NEGOTIATOR")
            .load_file(dir.join("config-negotiator.dump"))
            .expect("config");
        let accountant_config = matchmaker::accountant::AccountantConfig::from_config(&config).expect("config");
        let accountant = pool.accountant(accountant_config).expect("accountant");
        let mut snapshot = matchmaker::snapshot::Snapshot {
            slots: pool.slots,
            jobs: pool.jobs,
            submitters: Vec::new(),
            last_update: base_time + 3600,
            config,
            accountant,
            warnings: Vec::new(),
        };
        let mut negotiator = Negotiator::from_config(&snapshot.config).expect("negotiator");
        // HTCondor's schedd declined every match (fake startds), so it
        // offered the same jobs again in the second spin.
        negotiator.settings.resend_matched_jobs = true;
        let queues = snapshot.queues(&negotiator);
        let outcome = negotiator.cycle(&mut snapshot.accountant, &snapshot.slots, &queues, 0).expect("cycle");
        let mut matches: BTreeMap<String, usize> = BTreeMap::new();
        for m in &outcome.matches {
            *matches.entry(m.submitter.clone()).or_default() += 1;
        }
        let rejections: Vec<Rejection> =
            outcome.rejections.iter().map(|r| (r.job.to_string(), r.submitter.clone(), r.reason.to_string())).collect();
        assert_eq!(outcome.matches.len(), total, "{name} {layout:?}");
        assert_eq!(matches, expected_matches, "{name} {layout:?}");
        assert_eq!(rejections, expected_rejections, "{name} {layout:?}");
    }
}

#[test]
fn a_cycle_on_the_generated_pool_is_htcondors_200() {
    cycle_matches("snap-200-200-3-6", 3, 6);
}

#[test]
fn a_cycle_on_the_generated_pool_is_htcondors_1000() {
    cycle_matches("snap-1000-1000-4-8", 4, 8);
}
