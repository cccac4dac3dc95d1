//! Behaviour of the accountant against HTCondor's rules.

use super::*;
use classad::ClassAd;
use rustc_hash::FxHashMap;

fn slot(name: &str, user: &str, weight: f64, state: &str) -> ClassAd {
    format!(
        r#"[ Name = "{name}"; StartdIpAddr = "<10.0.0.1:9618>"; State = "{state}"; RemoteUser = "{user}"; SlotWeight = {weight}; Cpus = 1 ]"#
    )
    .parse()
    .expect("test slot parses")
}

fn acct(half_life: f64) -> Accountant {
    Accountant::new(AccountantConfig { half_life, ..AccountantConfig::default() })
}

#[test]
fn seed_example_100_cores_for_two_days_gives_75() {
    let mut a = acct(86_400.0);
    a.update_priorities(1).expect("update");
    a.check_matches(1, &[slot("s1@n", "u@d", 100.0, "Claimed")]).expect("check");
    a.update_priorities(1 + 48 * 3600).expect("update");
    // 75 from the usage, plus a quarter of the starting minimum of 0.5.
    let rup = a.real_priority("u@d");
    assert!((rup - 75.125).abs() < 1e-6, "{rup}");
}

#[test]
fn seed_example_priority_halves_a_day_after_jobs_stop() {
    let mut a = acct(86_400.0);
    a.set_priority("u@d", 100.0).expect("setprio");
    a.update_priorities(1000).expect("first update sets the clock");
    a.set_priority("u@d", 100.0).expect("setprio");
    a.update_priorities(1000 + 86_400).expect("update");
    assert!((a.real_priority("u@d") - 50.0).abs() < 1e-9);
}

#[test]
fn matches_between_updates_are_charged_exactly() {
    // Half-life so long that decay is negligible: RUP then tracks the
    // average usage of the interval.
    let mut a = acct(1e12);
    a.update_priorities(1000).expect("update");
    let s = slot("s1@n", "u@d", 4.0, "Claimed");
    // In use for the last 25 s of a 100 s interval: 4 × 25 / 100 = 1 slot on average.
    a.check_matches(1075, std::slice::from_ref(&s)).expect("claimed at 1075");
    let before = a.real_priority("u@d");
    a.update_priorities(1100).expect("update");
    let c = a.customer("u@d").expect("record");
    assert_eq!(c.weighted_accumulated_usage, Some(100.0));
    assert_eq!(c.accumulated_usage, Some(25.0));
    assert_eq!(c.uncharged_time, Some(0));
    // RUP moved from 0.5 toward 1 by a factor that is almost nothing.
    assert!(a.real_priority("u@d") >= before);
    // Released 40 s into the next interval: charged 40 s, not 100.
    a.check_matches::<classad::ClassAd>(1140, &[]).expect("released");
    a.update_priorities(1200).expect("update");
    let c = a.customer("u@d").expect("record");
    assert_eq!(c.weighted_accumulated_usage, Some(100.0 + 160.0));
    assert_eq!(c.resources_used, Some(0));
    assert_eq!(c.last_usage_time, Some(1200));
}

#[test]
fn group_records_follow_their_members() {
    let mut a = Accountant::new(AccountantConfig {
        groups: crate::groups::GroupTree::new(["group_a", "group_a.b"]),
        ..AccountantConfig::default()
    });
    a.update_priorities(10).expect("update");
    a.check_matches(10, &[slot("s1@n", "group_a.b.u@d", 2.0, "Claimed"), slot("s2@n", "v@d", 1.0, "Claimed")])
        .expect("check");
    assert_eq!(a.weighted_resources_used("group_a.b"), 2.0);
    assert_eq!(a.customer("group_a.b").and_then(|c| c.hier_weighted_resources_used), Some(2.0));
    assert_eq!(a.customer("group_a").and_then(|c| c.hier_weighted_resources_used), Some(2.0));
    assert_eq!(a.weighted_resources_used("<none>"), 1.0);
    a.check_matches::<classad::ClassAd>(20, &[]).expect("all released");
    assert_eq!(a.customer("group_a").and_then(|c| c.hier_weighted_resources_used), Some(0.0));
    assert_eq!(a.resources_used("<none>"), 0);
}

#[test]
fn a_slot_changing_hands_moves_its_charge() {
    let mut a = acct(86_400.0);
    a.update_priorities(10).expect("update");
    a.check_matches(10, &[slot("s1@n", "u@d", 1.0, "Claimed")]).expect("u");
    a.check_matches(20, &[slot("s1@n", "v@d", 1.0, "Claimed")]).expect("v");
    assert_eq!(a.resources_used("u@d"), 0);
    assert_eq!(a.resources_used("v@d"), 1);
    assert_eq!(a.resource("s1@n@<10.0.0.1:9618>").and_then(|r| r.remote_user.clone()), Some("v@d".into()));
    // Unclaimed and Matched: a matched slot keeps its record, an unclaimed one does not.
    a.check_matches(30, &[slot("s1@n", "v@d", 1.0, "Matched")]).expect("matched");
    assert_eq!(a.resources_used("v@d"), 1);
    a.check_matches(40, &[slot("s1@n", "v@d", 1.0, "Unclaimed")]).expect("unclaimed");
    assert_eq!(a.resources_used("v@d"), 0);
}

#[test]
fn default_factors() {
    let mut groups = FxHashMap::default();
    groups.insert("group_x".to_string(), 5.0);
    let a = Accountant::new(AccountantConfig {
        local_domain: Some("here".into()),
        groups: crate::groups::GroupTree::new(["group_x"]),
        group_prio_factors: groups,
        ..AccountantConfig::default()
    });
    assert_eq!(a.priority_factor("nice-user.bob@here"), 1e10);
    assert_eq!(a.priority_factor("group_x.bob@there"), 5.0);
    assert_eq!(a.priority_factor("bob@there"), 1e7);
    assert_eq!(a.priority_factor("bob@here"), 1000.0);
    assert_eq!(a.effective_priority("bob@here"), 500.0);
}

#[test]
fn admin_operations_validate_like_condor_userprio() {
    let mut a = acct(86_400.0);
    assert!(a.set_priority_factor("u@d", 0.5).is_err());
    assert!(a.set_priority_factor("u", 2.0).is_err());
    assert!(a.set_floor("u@d", -1).is_err());
    assert!(a.set_ceiling("u@d", -2).is_err());
    a.set_ceiling("u@d", -1).expect("-1 means no ceiling");
    assert_eq!(a.ceiling("u@d"), None);
    a.set_ceiling("u@d", 10).expect("ceiling");
    a.set_floor("u@d", 3).expect("floor");
    a.set_priority_factor("u@d", 2.0).expect("factor");
    assert_eq!((a.ceiling("u@d"), a.floor("u@d"), a.priority_factor("u@d")), (Some(10), 3, 2.0));
    a.reset_usage("u@d", 77).expect("reset");
    assert_eq!(a.customer("u@d").and_then(|c| c.begin_usage_time), Some(77));
    assert!(a.delete_record("u@d").expect("delete"));
    assert!(!a.delete_record("u@d").expect("delete again"));
    assert!(a.customer("u@d").is_none());
}

/// NaN and infinities are refused by every real edit alike, with a message
/// naming what was set, and leave the record as it was.
#[test]
fn real_edits_refuse_nan_and_infinities() {
    let mut a = acct(86_400.0);
    a.set_priority("u@d", 3.0).expect("priority");
    a.set_priority_factor("u@d", 2.0).expect("factor");
    a.set_accumulated_usage("u@d", 60.0).expect("usage");
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let err = a.set_priority("u@d", bad).expect_err("priority");
        assert!(err.to_string().contains("the priority must be a finite number"), "{err}");
        let err = a.set_priority_factor("u@d", bad).expect_err("factor");
        assert!(err.to_string().contains("the priority factor must be a finite number"), "{err}");
        let err = a.set_accumulated_usage("u@d", bad).expect_err("usage");
        assert!(err.to_string().contains("the accumulated usage must be a finite number"), "{err}");
    }
    assert_eq!((a.real_priority("u@d"), a.priority_factor("u@d")), (3.0, 2.0));
    assert_eq!(a.customer("u@d").and_then(|c| c.weighted_accumulated_usage), Some(60.0));
}

#[test]
fn log_round_trip_and_compaction() {
    let dir = std::env::temp_dir().join(format!("acct-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let path = dir.join("Accountantnew.log");
    let _ = std::fs::remove_file(&path);
    let config = AccountantConfig { half_life: 600.0, max_log_size: 4000, ..AccountantConfig::default() };
    let (mut a, report) = Accountant::open(config.clone(), &path, 100).expect("new log");
    assert!(report.warnings.is_empty());
    a.update_priorities(100).expect("update");
    a.set_priority_factor("u@d", 3.0).expect("factor");
    for t in 0..60 {
        let slots = if t % 2 == 0 { vec![slot("s1@n", "u@d", 2.0, "Claimed")] } else { vec![] };
        a.check_matches(100 + t * 60, &slots).expect("check");
        a.update_priorities(130 + t * 60).expect("update");
    }
    // The log was compacted along the way: a new generation.
    let text = std::fs::read_to_string(&path).expect("log");
    assert!(!text.starts_with("107 1 "), "{}", &text[..40]);
    let (b, report) = Accountant::load(config, &path).expect("reload");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(b.customers(), a.customers());
    assert_eq!(b.resources(), a.resources());
    assert_eq!(b.last_update(), a.last_update());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn deleting_a_record_keeps_every_other_one_findable() {
    let mut a = acct(86_400.0);
    for i in 0..40 {
        a.set_priority(&format!("u{i}@d"), f64::from(i) + 1.0).expect("setprio");
    }
    for i in (0..40).step_by(3) {
        assert!(a.delete_record(&format!("u{i}@d")).expect("delete"));
    }
    for i in 0..40 {
        let found = a.customer(&format!("u{i}@d")).and_then(|c| c.priority);
        assert_eq!(found, (i % 3 != 0).then_some(f64::from(i) + 1.0), "u{i}@d");
    }
}

#[test]
fn group_paths_walk_dotted_prefixes() {
    assert_eq!(group_path("a.b.c").collect::<Vec<_>>(), ["a.b.c", "a.b", "a"]);
    assert_eq!(group_path("group_x").collect::<Vec<_>>(), ["group_x"]);
    assert_eq!(group_path(ROOT).collect::<Vec<_>>(), [ROOT]);
}
