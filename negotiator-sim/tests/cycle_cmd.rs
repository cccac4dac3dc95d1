//! `negotiator-sim cycle` and `negotiator-sim bench` from the command line:
//! a captured HTCondor cycle's snapshot in, its decisions out (as a table
//! and as JSON); bad input named by file and line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn snapshot(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../matchmaker/tests/data/cycle").join(name)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_negotiator-sim")).args(args).output().expect("negotiator-sim runs")
}

fn cycle_args(dir: &Path) -> Vec<String> {
    let file = |n: &str| dir.join(n).to_string_lossy().into_owned();
    vec![
        "cycle".into(),
        "--slots".into(),
        file("slots.ad"),
        "--jobs".into(),
        file("jobs.ad.gz"),
        "--config".into(),
        file("config.dump"),
        "--submitters".into(),
        file("submitters.ad"),
        "--resend-matched-jobs".into(),
        "-q".into(),
    ]
}

/// The 200-slot bench cycle: HTCondor matched 67, 67 and 58 jobs of its
/// three users and rejected three requests.
#[test]
fn a_snapshot_as_json() {
    let mut args = cycle_args(&snapshot("snap-200-200-3-6"));
    args.push("--json".into());
    let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let per_user: Vec<u64> = json["submitters"]
        .as_array()
        .expect("submitters")
        .iter()
        .map(|s| s["matches"].as_u64().expect("matches"))
        .collect();
    assert_eq!(per_user, [67, 67, 58]);
    assert_eq!(json["matches"].as_array().map(Vec::len), Some(192));
    assert_eq!(json["matches"][0]["reason"], "no preemption");
    let reasons: Vec<&str> =
        json["rejections"].as_array().expect("rejections").iter().map(|r| r["reason"].as_str().unwrap_or("")).collect();
    assert_eq!(reasons, ["submitter limit exceeded", "no match found", "no match found"]);
    assert_eq!(json["stats"]["PieSpins"], 2);
}

#[test]
fn a_snapshot_as_a_table() {
    let args = cycle_args(&snapshot("snap-200-200-3-6"));
    let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or("");
    assert!(first.starts_with("Submitter"), "{first}");
    assert!(text.contains("192 matches, 3 rejections"), "{text}");
    assert!(text.lines().any(|l| l.starts_with("bench03@anchor.local") && l.contains(" 58 ")), "{text}");
}

/// A cycle with group quotas (snap-groups): the group tree as a table and
/// in JSON, with HTCondor's figures (group_a 40 + 5 surplus, group_b.sub1
/// held to 0 by group_b, `<none>` keeping 35 of 100).
#[test]
fn group_quotas_as_a_table_and_json() {
    let dir = snapshot("snap-groups");
    let file = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let mut args = vec![
        "cycle".to_string(),
        "--slots".into(),
        file("slots.ad.gz"),
        "--jobs".into(),
        file("jobs.ad.gz"),
        "--config".into(),
        file("config.dump"),
        "--userprio".into(),
        file("userprio-before.ad"),
        "--submitters".into(),
        file("submitters.ad"),
        "--resend-matched-jobs".into(),
        "-q".into(),
    ];
    let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let row =
        |name: &str| text.lines().find(|l| l.trim_start().starts_with(&format!("{name} "))).unwrap_or("").to_string();
    assert!(row("<none>").contains(" 35.00 "), "{text}");
    let a: Vec<String> = row("group_a").split_whitespace().map(str::to_string).collect();
    assert_eq!(a[..10], ["group_a", "40", "40.00", "40.00", "yes", "60.00", "45.00", "0.00", "45.00", "45"], "{text}");
    assert!(text.contains("group_b.sub1: dynamic quota 0.5 of group_b: 7.5"), "{text}");
    assert!(text.contains("round 1: allocated 107.50, used 100.00"), "{text}");
    args.push("--json".into());
    let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let groups = json["groups"].as_array().expect("groups");
    let names: Vec<&str> = groups.iter().map(|g| g["name"].as_str().unwrap_or("")).collect();
    assert_eq!(names, ["<none>", "group_a", "group_b", "group_c", "group_b.sub1"]);
    assert_eq!(groups[1]["surplus"], 5.0);
    assert_eq!(groups[4]["rounds"][0]["capped_by"], "group_b");
    assert_eq!(json["group_rounds"].as_array().map(Vec::len), Some(3));
}

/// `cycle --userprio-out` writes the priorities after the cycle with the
/// groups' quota figures, which `userprio --inputfile --quotas` shows; on
/// snap-groups they are those HTCondor's `condor_userprio` showed.
#[test]
fn group_quotas_for_userprio() {
    let dir = snapshot("snap-groups");
    let file = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let tmp = tempdir();
    let out_file = tmp.join("userprio-after.ad").to_string_lossy().into_owned();
    let out = run(&[
        "cycle",
        "--slots",
        &file("slots.ad.gz"),
        "--jobs",
        &file("jobs.ad.gz"),
        "--config",
        &file("config.dump"),
        "--userprio",
        &file("userprio-before.ad"),
        "--submitters",
        &file("submitters.ad"),
        "--resend-matched-jobs",
        "--userprio-out",
        &out_file,
        "-q",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written = std::fs::read_to_string(&out_file).expect("the userprio file");
    let real = std::fs::read_to_string(dir.join("userprio.ad")).expect("HTCondor's");
    // Each group's quota figures, by name, from one `condor_userprio -l` ad.
    let figures = |text: &str| -> Vec<(String, String, String)> {
        let attrs: std::collections::BTreeMap<&str, &str> = text.lines().filter_map(|l| l.split_once(" = ")).collect();
        let mut out = Vec::new();
        for n in 1.. {
            let Some(name) = attrs.get(format!("Name{n}").as_str()) else { break };
            for quota in ["ConfigQuota", "EffectiveQuota", "SubtreeQuota", "SurplusPolicy", "Requested"] {
                if let Some(v) = attrs.get(format!("{quota}{n}").as_str()) {
                    let v = v.parse::<f64>().map_or(v.to_string(), |f| format!("{f:.4}"));
                    out.push((name.to_string(), quota.to_string(), v));
                }
            }
        }
        out.sort();
        out
    };
    let ours = figures(&written);
    assert!(ours.len() >= 5 * 5, "{ours:?}");
    assert_eq!(ours, figures(&real));
    // Every submitter HTCondor's file has, group_b.sub1.bench03 too (it
    // got no match and had no record before the cycle), with its priority.
    let users = |text: &str| -> Vec<(String, String)> {
        let attrs: std::collections::BTreeMap<&str, &str> = text.lines().filter_map(|l| l.split_once(" = ")).collect();
        let mut out: Vec<(String, String)> = (1..)
            .map_while(|n| attrs.get(format!("Name{n}").as_str()).map(|name| (n, name)))
            .filter(|(n, _)| attrs.get(format!("IsAccountingGroup{n}").as_str()) == Some(&"false"))
            .map(|(n, name)| (name.to_string(), attrs.get(format!("Priority{n}").as_str()).unwrap_or(&"").to_string()))
            .collect();
        out.sort();
        out
    };
    assert_eq!(users(&written).len(), 5, "{written}");
    assert_eq!(users(&written), users(&real));
    let out = run(&["userprio", "--inputfile", &out_file, "--quotas", "--allusers"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8_lossy(&out.stdout);
    let row = table.lines().find(|l| l.starts_with("group_a ")).unwrap_or("");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells, ["group_a", "40.00", "40.00", "ByQuota", "40.00", "60"], "{table}");
}

/// A slot file with a syntax error is reported with its name and line,
/// and nothing else is printed.
#[test]
fn bad_input_is_named() {
    let dir = tempdir();
    let bad = dir.join("slots.ad");
    std::fs::write(&bad, "Name = \"slot1@x\"\nCpus = (1 +\n").expect("write");
    let snap = snapshot("snap-200-200-3-6");
    let out =
        run(&["cycle", "--slots", &bad.to_string_lossy(), "--jobs", &snap.join("jobs.ad.gz").to_string_lossy(), "-q"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("slots.ad") && err.contains("line 2"), "{err}");
    assert!(out.stdout.is_empty());
    let missing = run(&["cycle", "--slots", "/nonexistent/slots.ad", "--jobs", "/nonexistent/jobs.ad", "-q"]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/slots.ad"));
}

/// `bench` on the benchmark's 1,000-slot pool makes HTCondor's 944 matches.
#[test]
fn bench_makes_htcondors_matches() {
    let out = run(&[
        "bench",
        "--slots",
        "1000",
        "--jobs",
        "1000",
        "--users",
        "4",
        "--autoclusters",
        "8",
        "--lean",
        "--repeat",
        "1",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["Matches"], 944);
    assert_eq!(json["matches_by_submitter"]["bench03@anchor.local"], 269);
    assert!(String::from_utf8_lossy(&out.stderr).contains("[bench]"), "progress on stderr");
}

fn tempdir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("negotiator-sim-cycle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Two negotiators splitting the 200-slot pool by `NEGOTIATOR_SLOT_CONSTRAINT`
/// each see 100 slots and match no slot twice; with a third that sees the
/// whole pool, the slots both matched are named.
#[test]
fn several_negotiators_side_by_side() {
    let dir = tempdir().join("several");
    std::fs::create_dir_all(&dir).expect("dir");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("config written");
        path.to_string_lossy().into_owned()
    };
    let low = write("low.conf", "NEGOTIATOR_SLOT_CONSTRAINT = SlotID <= 4\n");
    let high = write("high.conf", "NEGOTIATOR_SLOT_CONSTRAINT = SlotID > 4\n");
    let all = write("all.conf", "NEGOTIATOR_SUBMITTER_CONSTRAINT = Name == \"bench01@anchor.local\"\n");
    let snap = snapshot("snap-200-200-3-6");
    let file = |n: &str| snap.join(n).to_string_lossy().into_owned();
    let base = ["cycle", "--slots", &file("slots.ad"), "--jobs", &file("jobs.ad.gz"), "-q", "--json"];
    let run_with = |configs: &[&str]| -> serde_json::Value {
        let mut args: Vec<&str> = base.to_vec();
        for c in configs {
            args.extend(["--config", c]);
        }
        let out = run(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    let json = run_with(&[&low, &high]);
    let negotiators = json["negotiators"].as_array().expect("negotiators");
    assert_eq!(negotiators.len(), 2);
    for n in negotiators {
        assert_eq!(n["stats"]["TotalSlots"], 100, "{}", n["config"]);
        assert!(n["matches"].as_array().map_or(0, Vec::len) > 0);
    }
    assert_eq!(json["overlapping_slots"].as_array().map(Vec::len), Some(0));
    let json = run_with(&[&low, &all]);
    let overlap = json["overlapping_slots"].as_array().expect("overlap");
    assert!(!overlap.is_empty());
    assert_eq!(overlap[0]["negotiators"], serde_json::json!([0, 1]));
    // As a table: each negotiator's, then the overlap.
    let mut args: Vec<&str> = base[..base.len() - 1].to_vec();
    args.extend(["--config", &low, "--config", &all]);
    let text = String::from_utf8_lossy(&run(&args).stdout).into_owned();
    assert!(text.starts_with(&format!("== negotiator {low}")), "{text}");
    assert!(text.contains("slots were matched by more than one negotiator"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `bench --groups`: the synthetic users in accounting groups, negotiated
/// with group quotas.
#[test]
fn bench_with_groups() {
    let out = run(&[
        "bench",
        "--slots",
        "200",
        "--jobs",
        "200",
        "--users",
        "4",
        "--autoclusters",
        "4",
        "--repeat",
        "1",
        "--groups",
        "2",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let by_group = json["matches_by_group"].as_object().expect("groups");
    let names: Vec<&str> = by_group.keys().map(String::as_str).collect();
    assert_eq!(names, ["<none>", "group_0", "group_1"]);
    let grouped: u64 = ["group_0", "group_1"].iter().map(|g| by_group[*g].as_u64().unwrap_or(0)).sum();
    assert_eq!(Some(grouped), json["Matches"].as_u64());
}

/// The per-submitter table says what happened in words: on the 1,000-slot
/// bench cycle bench03 got more matches than it has idle jobs (its schedd
/// offered them again) and bench04 fewer, with rejections; neither is
/// said to have got all it wanted.
#[test]
fn the_table_says_what_happened() {
    let args = cycle_args(&snapshot("snap-1000-1000-4-8"));
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    let slots = snapshot("snap-1000-1000-4-8").join("slots.ad.gz").to_string_lossy().into_owned();
    let config = snapshot("snap-1000-1000-4-8").join("config-negotiator.dump").to_string_lossy().into_owned();
    args[2] = &slots;
    args[6] = &config;
    let out = run(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().next().unwrap_or("").ends_with("  outcome"), "{text}");
    let row = |name: &str| text.lines().find(|l| l.starts_with(name)).unwrap_or("").to_string();
    assert!(row("bench01").ends_with("  all 250 idle jobs matched"), "{text}");
    assert!(
        row("bench03").ends_with(
            "  every request tried: 269 matches for 250 idle jobs (jobs matched in an earlier spin were offered \
             again), 3 requests rejected"
        ),
        "{text}"
    );
    assert!(
        row("bench04").ends_with("  every request tried: 175 of 250 idle jobs matched, 3 requests rejected"),
        "{text}"
    );
    assert!(!text.contains("got all it wanted"), "{text}");
    // `--json` gives each submitter the same words, as `outcome`.
    args.push("--json");
    let out = run(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let words: Vec<&str> = json["submitters"]
        .as_array()
        .expect("submitters")
        .iter()
        .map(|s| s["outcome"].as_str().unwrap_or("(none)"))
        .collect();
    assert_eq!(
        words,
        [
            "all 250 idle jobs matched",
            "all 250 idle jobs matched",
            "every request tried: 269 matches for 250 idle jobs (jobs matched in an earlier spin were offered again), \
             3 requests rejected",
            "every request tried: 175 of 250 idle jobs matched, 3 requests rejected",
        ]
    );
}

/// A configuration that pulls in local files of this machine (not a dump)
/// is warned about, even with -q; the dump of the same pool is not.
#[test]
fn local_files_of_this_machine_are_warned_about() {
    let dir = tempdir().join("local-files");
    std::fs::create_dir_all(&dir).expect("dir");
    let local = dir.join("condor_config.local");
    std::fs::write(&local, "NEGOTIATOR_DEBUG = D_FULLDEBUG\n").expect("write");
    let top = dir.join("condor_config");
    std::fs::write(&top, format!("LOCAL_CONFIG_FILE = {}\n", local.display())).expect("write");
    let snap = snapshot("snap-200-200-3-6");
    let mut args = cycle_args(&snap);
    args[6] = top.to_string_lossy().into_owned();
    let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: the configuration also read local files") && err.contains("condor_config.local"),
        "{err}"
    );
    let out = run(&cycle_args(&snap).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `cycle --help` names what a captured cycle's replay needs: a dump is
/// read alone, and the priorities are those taken before the cycle.
#[test]
fn help_says_how_to_give_a_snapshot() {
    let out = run(&["cycle", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    let option = |name: &str| help.lines().find(|l| l.trim_start().starts_with(name)).unwrap_or_default().to_string();
    assert!(option("--config").contains("-negotiator -dump") && option("--config").contains("read alone"), "{help}");
    assert!(option("--userprio ").contains("taken before the cycle"), "{help}");
    assert!(option("--resend-matched-jobs").contains("offers jobs matched in an earlier spin"), "{help}");
}

/// A snapshot concatenated twice (slots and jobs): each ad is used once, as
/// the collector and the schedd keep one per name, with a warning naming
/// the file; the decisions are the single snapshot's.
#[test]
fn duplicate_ads_are_used_once_with_a_warning() {
    use std::io::Read;
    let snap = snapshot("snap-200-200-3-6");
    let dir = tempdir().join("twice");
    std::fs::create_dir_all(&dir).expect("dir");
    let slots = std::fs::read_to_string(snap.join("slots.ad")).expect("slots");
    std::fs::write(dir.join("slots.ad"), format!("{slots}\n{slots}")).expect("write");
    let mut jobs = String::new();
    classad::format::open(&snap.join("jobs.ad.gz")).expect("jobs").read_to_string(&mut jobs).expect("gunzip");
    std::fs::write(dir.join("jobs.ad"), format!("{jobs}\n{jobs}")).expect("write");
    let mut args = cycle_args(&snap);
    args[2] = dir.join("slots.ad").to_string_lossy().into_owned();
    args[4] = dir.join("jobs.ad").to_string_lossy().into_owned();
    args.push("--json".into());
    let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(json["matches"].as_array().map(Vec::len), Some(192), "{err}");
    let slots_warning = format!("{}: 200 slot ads repeat an earlier ad's Name and MyAddress", args[2]);
    assert!(err.contains(&slots_warning), "{err}");
    assert!(err.contains("job ads repeat an earlier ad's GlobalJobId"), "{err}");
}

/// `--accountant` given a file that is not an accountant log, or no file,
/// is an error (not empty priorities); a torn log is used up to the tear,
/// and the warning is shown even with -q.
#[test]
fn an_accountant_log_that_is_not_one_is_refused() {
    let snap = snapshot("snap-200-200-3-6");
    let dir = tempdir().join("accountant");
    std::fs::create_dir_all(&dir).expect("dir");
    let text = dir.join("services");
    std::fs::write(&text, "ftp 21/tcp\nssh 22/tcp\n").expect("write");
    let missing = dir.join("missing.log");
    for (file, says) in [(&text, "line 1: not an accountant log"), (&missing, "no such file")] {
        let mut args = cycle_args(&snap);
        args.extend(["--accountant".into(), file.to_string_lossy().into_owned()]);
        let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("{}: {says}", file.display())), "{err}");
    }
    let torn = dir.join("torn.log");
    std::fs::write(&torn, "107 1 CreationTimestamp 1700000000\n101 Customer.alice@site * *\n103 Customer.al")
        .expect("write");
    let mut args = cycle_args(&snap);
    args.extend(["--accountant".into(), torn.to_string_lossy().into_owned()]);
    let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("negotiator-sim cycle: warning: ") && err.contains("torn.log:3"), "{err}");
}
