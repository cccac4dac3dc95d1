//! `condor_userprio`'s commands, negotiator side, without a network:
//! payloads encoded as HTCondor's clients encode them, decoded, applied to
//! an accountant, and the replies encoded and read back as the clients
//! read them (the priority report through
//! `PriorityRow::from_userprio_ad`, what `condor_userprio` parses).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use cedar::authz::{MapFile, Permission, NEGOTIATOR_COMMANDS};
use cedar::command as c;
use cedar::version::Version;
use cedar::wire::ad::{get_classad, get_classad_no_types, AdLimits};
use cedar::wire::{Decoder, Encoder, Message};
use classad::ClassAd;
use matchmaker::accountant::{Accountant, AccountantConfig, PriorityRow};
use matchmaker::groups::GroupTree;
use negotiator::userprio::{
    carries_payload, priority_report, register, resource_list, FactorMap, Reply, Request, UserprioError, CODE_INVALID,
    COMMANDS,
};

const NOW: i64 = 1_700_000_000;

/// A payload as `condor_userprio` sends it: the name, then the value.
fn payload(name: Option<&str>, value: Option<Value>) -> Message {
    payload_with(name, value, false)
}

fn payload_with(name: Option<&str>, value: Option<Value>, encrypted: bool) -> Message {
    let mut enc = Encoder::new(encrypted);
    if let Some(name) = name {
        enc.put_str(name).unwrap();
    }
    match value {
        Some(Value::Real(v)) => enc.put_double(v),
        Some(Value::Int(v)) => enc.put_int(v),
        None => {}
    }
    Message { payload: enc.into_bytes(), encrypted }
}

#[derive(Clone, Copy)]
enum Value {
    Real(f64),
    Int(i64),
}

fn decode(command: i32, name: Option<&str>, value: Option<Value>) -> Request {
    Request::decode(command, &payload(name, value)).unwrap()
}

fn run(acct: &mut Accountant, command: i32, name: Option<&str>, value: Option<Value>) -> Reply {
    decode(command, name, value).apply(acct, NOW)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6 * b.abs().max(1.0)
}

#[test]
fn the_table_is_matchmaker_cpps_registration() {
    for spec in COMMANDS {
        let cpp = NEGOTIATOR_COMMANDS
            .iter()
            .find(|r| i64::from(r.command) == i64::from(spec.number))
            .unwrap_or_else(|| panic!("{} is not registered by condor_negotiator", spec.name));
        assert_eq!((cpp.name, cpp.perm), (spec.name, spec.permission), "{}", spec.name);
        assert_eq!(c::name(spec.number), Some(spec.name));
    }
    // Every condor_userprio command condor_negotiator registers is here.
    for cpp in NEGOTIATOR_COMMANDS {
        let served = COMMANDS.iter().any(|s| i64::from(s.number) == i64::from(cpp.command));
        let other = ["RESCHEDULE", "QUERY_NEGOTIATOR_ADS", "QUERY_ACCOUNTING_ADS"].contains(&cpp.name);
        assert!(served != other, "{}", cpp.name);
    }
    let table = register(cedar::handshake::CommandTable::new());
    assert_eq!(table.permission(c::SET_PRIORITYFACTOR), Some(Permission::Write));
    assert_eq!(table.permission(c::RESET_ALL_USAGE), Some(Permission::Administrator));
    assert_eq!(table.permission(c::GET_PRIORITY_ROLLUP_OLD), Some(Permission::Read));
    // Nothing follows the handshake for these: condor_userprio waits for the reply.
    for n in [c::GET_PRIORITY, c::GET_PRIORITY_ROLLUP, c::GET_PRIORITY_ROLLUP_OLD, c::RESET_ALL_USAGE] {
        assert!(!carries_payload(n), "{n}");
    }
    for n in [c::GET_RESLIST, c::RESET_USAGE, c::DELETE_USER, c::SET_PRIORITY, c::SET_FLOOR, c::SET_LASTTIME] {
        assert!(carries_payload(n), "{n}");
    }
    assert!(!carries_payload(c::RESCHEDULE));
}

#[test]
fn every_command_decodes_as_its_handler_reads_it() {
    let name = Some("alice@site");
    let cases = [
        (
            c::SET_PRIORITY,
            Some(Value::Real(2.5)),
            Request::SetPriority { submitter: "alice@site".into(), priority: 2.5 },
        ),
        (
            c::SET_ACCUMUSAGE,
            Some(Value::Real(3600.0)),
            Request::SetAccumulatedUsage { submitter: "alice@site".into(), usage: 3600.0 },
        ),
        (c::SET_CEILING, Some(Value::Int(12)), Request::SetCeiling { submitter: "alice@site".into(), ceiling: 12 }),
        (c::SET_FLOOR, Some(Value::Int(3)), Request::SetFloor { submitter: "alice@site".into(), floor: 3 }),
        (
            c::SET_BEGINTIME,
            Some(Value::Int(NOW - 10)),
            Request::SetBeginTime { submitter: "alice@site".into(), time: (NOW - 10) as i32 },
        ),
        (
            c::SET_LASTTIME,
            Some(Value::Int(NOW)),
            Request::SetLastTime { submitter: "alice@site".into(), time: NOW as i32 },
        ),
        (c::RESET_USAGE, None, Request::ResetUsage { submitter: "alice@site".into() }),
        (c::DELETE_USER, None, Request::DeleteUser { submitter: "alice@site".into() }),
        (c::GET_RESLIST, None, Request::GetResourceList { submitter: "alice@site".into() }),
    ];
    for (command, value, want) in cases {
        let got = decode(command, name, value);
        match (&got, &want) {
            // CEDAR's doubles keep 31 bits of mantissa.
            (Request::SetPriority { priority: a, .. }, Request::SetPriority { priority: b, .. })
            | (Request::SetAccumulatedUsage { usage: a, .. }, Request::SetAccumulatedUsage { usage: b, .. }) => {
                assert!(close(*a, *b), "{a} {b}")
            }
            _ => assert_eq!(got, want),
        }
        assert_eq!(got.command(), command);
        assert_eq!(got.submitter(), Some("alice@site"));
        // The same on an encrypted stream (strings carry their length).
        let encrypted = Request::decode(command, &payload_with(name, value, true)).unwrap();
        assert_eq!(encrypted.command(), command);
    }
    assert_eq!(decode(c::GET_PRIORITY, None, None), Request::GetPriority { rollup: false });
    assert_eq!(decode(c::GET_PRIORITY_ROLLUP, None, None), Request::GetPriority { rollup: true });
    assert_eq!(decode(c::GET_PRIORITY_ROLLUP_OLD, None, None), Request::GetPriority { rollup: true });
    assert_eq!(decode(c::RESET_ALL_USAGE, None, None), Request::ResetAllUsage);
    assert!(!Request::GetPriority { rollup: true }.is_edit());
    assert!(Request::ResetAllUsage.is_edit());
}

#[test]
fn payloads_that_condor_negotiator_would_not_read_are_refused() {
    let malformed = |command: i32, message: Message| {
        matches!(Request::decode(command, &message), Err(UserprioError::Malformed { .. }))
    };
    // No value after the name.
    assert!(malformed(c::SET_PRIORITY, payload(Some("a@b"), None)));
    // Nothing at all.
    assert!(malformed(c::RESET_USAGE, payload(None, None)));
    // Bytes left over (end_of_message fails).
    assert!(malformed(c::GET_PRIORITY, payload(Some("a@b"), None)));
    assert!(malformed(c::DELETE_USER, payload(Some("a@b"), Some(Value::Int(1)))));
    // An `int` that does not fit 32 bits.
    assert!(malformed(c::SET_CEILING, payload(Some("a@b"), Some(Value::Int(1 << 40)))));
    assert!(malformed(c::SET_BEGINTIME, payload(Some("a@b"), Some(Value::Int(-(1 << 33))))));
    // A string without its NUL.
    assert!(malformed(c::RESET_USAGE, Message { payload: b"a@b".to_vec(), encrypted: false }));
    assert!(matches!(
        Request::decode(c::RESCHEDULE, &payload(None, None)),
        Err(UserprioError::UnknownCommand(n)) if n == c::RESCHEDULE
    ));
}

#[test]
fn edits_change_the_accountant() {
    let mut acct = Accountant::new(AccountantConfig::default());
    let alice = Some("alice@site");
    assert_eq!(run(&mut acct, c::SET_PRIORITY, alice, Some(Value::Real(12.0))), Reply::Nothing);
    assert!(close(acct.real_priority("alice@site"), 12.0));
    assert_eq!(
        run(&mut acct, c::SET_PRIORITYFACTOR, alice, Some(Value::Real(50.0))),
        Reply::Status { code: 0, message: None }
    );
    assert!(close(acct.priority_factor("alice@site"), 50.0));
    assert!(close(acct.effective_priority("alice@site"), 600.0));
    run(&mut acct, c::SET_CEILING, alice, Some(Value::Int(20)));
    assert_eq!(acct.ceiling("alice@site"), Some(20));
    run(&mut acct, c::SET_FLOOR, alice, Some(Value::Int(4)));
    assert_eq!(acct.floor("alice@site"), 4);
    run(&mut acct, c::SET_ACCUMUSAGE, alice, Some(Value::Real(7200.0)));
    run(&mut acct, c::SET_BEGINTIME, alice, Some(Value::Int(NOW - 100)));
    run(&mut acct, c::SET_LASTTIME, alice, Some(Value::Int(NOW - 5)));
    let record = acct.customer("alice@site").unwrap().clone();
    assert!(close(record.weighted_accumulated_usage.unwrap(), 7200.0));
    assert_eq!((record.begin_usage_time, record.last_usage_time), (Some(NOW - 100), Some(NOW - 5)));

    // RESET_USAGE: usage to zero, beginning now.
    run(&mut acct, c::RESET_USAGE, alice, None);
    let record = acct.customer("alice@site").unwrap();
    assert_eq!(record.weighted_accumulated_usage, Some(0.0));
    assert_eq!(record.accumulated_usage, Some(0.0));
    assert_eq!(record.begin_usage_time, Some(NOW));

    // RESET_ALL_USAGE: every record.
    run(&mut acct, c::SET_ACCUMUSAGE, alice, Some(Value::Real(10.0)));
    run(&mut acct, c::SET_ACCUMUSAGE, Some("bob@site"), Some(Value::Real(20.0)));
    assert_eq!(Request::ResetAllUsage.apply(&mut acct, NOW + 60), Reply::Nothing);
    for name in ["alice@site", "bob@site"] {
        let r = acct.customer(name).unwrap();
        assert_eq!((r.weighted_accumulated_usage, r.begin_usage_time), (Some(0.0), Some(NOW + 60)), "{name}");
    }

    // DELETE_USER.
    run(&mut acct, c::DELETE_USER, Some("bob@site"), None);
    assert!(acct.customer("bob@site").is_none());
    assert!(acct.customer("alice@site").is_some());
    // Deleting what is not there changes nothing and is no error.
    assert!(Request::DeleteUser { submitter: "nobody@site".into() }.try_apply(&mut acct, NOW).is_ok());
}

#[test]
fn values_out_of_range_are_stored_as_htcondor_reads_them_or_refused() {
    let mut acct = Accountant::new(AccountantConfig::default());
    let alice = Some("alice@site");
    // A factor below 1 is stored as 1 (Accountant::SetPriorityFactor), with success.
    let reply = run(&mut acct, c::SET_PRIORITYFACTOR, alice, Some(Value::Real(0.5)));
    assert_eq!(reply, Reply::Status { code: 0, message: None });
    assert_eq!(acct.customer("alice@site").unwrap().priority_factor, Some(1.0));
    // A ceiling below -1 is no ceiling, a floor below 0 no floor.
    run(&mut acct, c::SET_CEILING, alice, Some(Value::Int(5)));
    run(&mut acct, c::SET_CEILING, alice, Some(Value::Int(-7)));
    assert_eq!(acct.ceiling("alice@site"), None);
    assert_eq!(acct.customer("alice@site").unwrap().ceiling, Some(-1));
    run(&mut acct, c::SET_FLOOR, alice, Some(Value::Int(-3)));
    assert_eq!(acct.customer("alice@site").unwrap().floor, Some(0));

    // condor_userprio's refusals: negative usage and times.
    for (command, value) in
        [(c::SET_ACCUMUSAGE, Value::Real(-1.0)), (c::SET_BEGINTIME, Value::Int(-1)), (c::SET_LASTTIME, Value::Int(-5))]
    {
        let request = decode(command, alice, Some(value));
        assert!(matches!(request.try_apply(&mut acct, NOW), Err(UserprioError::Invalid(_))), "{command}");
        assert_eq!(request.apply(&mut acct, NOW), Reply::Nothing);
    }
    let r = acct.customer("alice@site").unwrap();
    assert_eq!((r.weighted_accumulated_usage, r.begin_usage_time, r.last_usage_time), (None, None, None));

    // Names without `@` are refused, and nothing is created.
    for command in [c::SET_PRIORITY, c::SET_ACCUMUSAGE] {
        let request = decode(command, Some("alice"), Some(Value::Real(3.0)));
        let err = request.try_apply(&mut acct, NOW).unwrap_err();
        assert!(err.to_string().contains("full name of the submittor"), "{err}");
    }
    for command in [c::RESET_USAGE, c::DELETE_USER] {
        assert!(decode(command, Some("group_a"), None).try_apply(&mut acct, NOW).is_err());
    }
    assert!(acct.customer("alice").is_none());
    // SET_PRIORITYFACTOR says why in its status.
    let request = decode(c::SET_PRIORITYFACTOR, Some("alice"), Some(Value::Real(3.0)));
    let Reply::Status { code, message } = request.apply(&mut acct, NOW) else { panic!("a status") };
    assert_eq!(code, CODE_INVALID);
    assert!(message.unwrap().contains("full name"));
    // Not a number.
    let request = Request::SetPriority { submitter: "alice@site".into(), priority: f64::INFINITY };
    assert!(matches!(request.try_apply(&mut acct, NOW), Err(UserprioError::Invalid(_))));
}

#[test]
fn setting_a_factor_needs_an_administrator_or_the_authorization_map() {
    let request = decode(c::SET_PRIORITYFACTOR, Some("group_physics.alice@site"), Some(Value::Real(2.0)));
    let code = |r: Result<(), UserprioError>| match r {
        Ok(()) => 0,
        Err(UserprioError::NotAuthorized { code, .. }) => code,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(code(request.authorize(true, None, &FactorMap::Unset)), 0);
    assert_eq!(code(request.authorize(false, Some("alice@site"), &FactorMap::Unset)), 1);
    assert_eq!(code(request.authorize(false, Some("alice@site"), &FactorMap::NotListed)), 2);
    let map =
        MapFile::parse("* alice@site group_chem.,group_physics.\n* ^admin-(.*)@site$ \\1.\n", &Default::default())
            .unwrap();
    let map = FactorMap::Map(&map);
    assert_eq!(code(request.authorize(false, None, &map)), 3);
    assert_eq!(code(request.authorize(false, Some("unauthenticated@unmapped"), &map)), 3);
    assert_eq!(code(request.authorize(false, Some("alice@site"), &map)), 0);
    assert_eq!(code(request.authorize(false, Some("admin-group_physics@site"), &map)), 0);
    assert_eq!(code(request.authorize(false, Some("admin-group_bio@site"), &map)), 4);
    assert_eq!(code(request.authorize(false, Some("eve@site"), &map)), 4);
    let Err(refused) = request.authorize(false, Some("eve@site"), &map) else { panic!("refused") };
    assert_eq!(
        refused.to_string(),
        "Client eve@site requested to set the priority factor of group_physics.alice@site but is not authorized."
    );
    assert_eq!(request.refusal(&refused), Reply::Status { code: 4, message: Some(refused.to_string()) });
    // Only SET_PRIORITYFACTOR is checked here; the others by the table.
    let other = decode(c::SET_PRIORITY, Some("alice@site"), Some(Value::Real(2.0)));
    assert!(other.authorize(false, None, &FactorMap::Unset).is_ok());
}

fn read_reply(reply: &Reply, version: Option<&Version>) -> Option<ClassAd> {
    let mut enc = Encoder::new(false);
    if !reply.encode(&mut enc, version).unwrap() {
        assert!(enc.is_empty());
        return None;
    }
    let bytes = enc.into_bytes();
    let mut dec = Decoder::new(&bytes, false);
    let ad = match reply {
        Reply::Ad(_) => get_classad_no_types(&mut dec, &AdLimits::default()).unwrap(),
        _ => get_classad(&mut dec, &AdLimits::default()).unwrap(),
    };
    dec.finish().unwrap();
    Some(ad)
}

#[test]
fn replies_are_encoded_as_the_clients_read_them() {
    let v23 = Version::new(23, 10, 29, "");
    let ok = Reply::Status { code: 0, message: None };
    let ad = read_reply(&ok, Some(&v23)).unwrap();
    assert_eq!(ad.lookup_integer("ErrorCode"), Some(0));
    assert!(ad.lookup("ErrorString").is_none());
    // Peers before 8.9.9, and raw commands, read no status.
    assert!(read_reply(&ok, Some(&Version::new(8, 9, 8, ""))).is_none());
    assert!(read_reply(&ok, None).is_none());
    let refused = Reply::Status { code: 4, message: Some("not you".into()) };
    let ad = read_reply(&refused, Some(&Version::new(8, 9, 9, ""))).unwrap();
    assert_eq!(ad.lookup_string("ErrorString").as_deref(), Some("not you"));
    assert!(read_reply(&Reply::Nothing, Some(&v23)).is_none());
    // Ads go without the type strings, whatever the version.
    let report: ClassAd = "[ LastUpdate = 5; NumSubmittors = 0 ]".parse().unwrap();
    let back = read_reply(&Reply::Ad(report.clone()), None).unwrap();
    assert_eq!(back.lookup_integer("LastUpdate"), Some(5));
    assert_eq!(back.len(), report.len());
}

/// An accountant with groups, usage in them and out of them.
fn pool() -> Accountant {
    let mut config = AccountantConfig::default();
    config.groups = GroupTree::new(["group_a", "group_a.b", "group_c"]);
    let mut acct = Accountant::new(config);
    let slot = |n: u32, user: &str| -> ClassAd {
        format!(
            r#"[ Name = "slot{n}@node"; StartdIpAddr = "<10.0.0.1:9618>"; State = "Claimed";
                RemoteUser = "{user}"; AccountingGroup = "{user}"; SlotWeight = 2 ]"#
        )
        .parse()
        .unwrap()
    };
    let slots = [
        slot(1, "group_a.b.alice@site"),
        slot(2, "group_a.b.alice@site"),
        slot(3, "group_a.carl@site"),
        slot(4, "bob@site"),
    ];
    acct.update_priorities(NOW - 7200).unwrap();
    acct.check_matches(NOW - 7200, &slots).unwrap();
    acct.update_priorities(NOW - 3600).unwrap();
    acct.update_priorities(NOW).unwrap();
    acct.set_priority_factor("bob@site", 7.0).unwrap();
    acct.set_ceiling("bob@site", 9).unwrap();
    acct.set_floor("bob@site", 1).unwrap();
    acct
}

fn report(acct: &mut Accountant, rollup: bool) -> ClassAd {
    let reply = Request::GetPriority { rollup }.apply(acct, NOW);
    assert!(matches!(reply, Reply::Ad(_)));
    read_reply(&reply, Some(&Version::new(23, 9, 6, ""))).unwrap()
}

#[test]
fn the_priority_report_reads_back_as_the_accountants_rows() {
    let mut acct = pool();
    let ad = report(&mut acct, false);
    let (rows, last_update) = PriorityRow::from_userprio_ad(&ad);
    assert_eq!(last_update, NOW);
    let want = acct.priority_rows();
    assert!(want.iter().any(|r| r.is_group && r.name == "group_a.b"), "{want:?}");
    assert_eq!(rows.len(), want.len());
    for (got, want) in rows.iter().zip(&want) {
        assert_eq!(got, want, "{}", want.name);
    }
    // Groups first, numbered breadth first; submitters after every
    // configured group (<none>, group_a, group_c, group_a.b).
    assert_eq!(ad.lookup_string("Name1").as_deref(), Some("<none>"));
    assert_eq!(ad.lookup_string("AccountingGroup1").as_deref(), Some("<none>"));
    let submitters = acct.customers().iter().filter(|c| c.name.contains('@')).count() as i64;
    assert_eq!(ad.lookup_integer("NumSubmittors"), Some(4 + submitters));
    for n in 5..=4 + submitters {
        assert_eq!(ad.lookup_bool(format!("IsAccountingGroup{n}").as_str()), Some(false), "{n}");
        assert_eq!(ad.lookup_float(format!("SubmitterShare{n}").as_str()), Some(0.0));
        assert_eq!(ad.lookup_float(format!("SubmitterLimit{n}").as_str()), Some(0.0));
    }
    let bob = (5..=4 + submitters)
        .find(|n| ad.lookup_string(format!("Name{n}").as_str()).as_deref() == Some("bob@site"))
        .expect("bob is reported");
    assert_eq!(ad.lookup_integer(format!("Ceiling{bob}").as_str()), Some(9));
    assert_eq!(ad.lookup_integer(format!("Floor{bob}").as_str()), Some(1));
    assert_eq!(ad.lookup_float(format!("PriorityFactor{bob}").as_str()), Some(7.0));
    assert_eq!(ad.lookup_integer(format!("ResourcesUsed{bob}").as_str()), Some(1));
    assert_eq!(ad.lookup_float(format!("WeightedResourcesUsed{bob}").as_str()), Some(2.0));
    // A group has quotas and no ceiling.
    let a = (1..=4).find(|n| ad.lookup_string(format!("Name{n}").as_str()).as_deref() == Some("group_a")).unwrap();
    assert!(ad.lookup(format!("SurplusPolicy{a}").as_str()).is_some());
    assert!(ad.lookup(format!("Ceiling{a}").as_str()).is_none());
    // An accountant loaded from the report holds the same priorities.
    let loaded = Accountant::from_userprio_ad(AccountantConfig::default(), &ad).unwrap();
    for name in ["bob@site", "group_a.carl@site", "group_a.b.alice@site"] {
        assert!(close(loaded.real_priority(name), acct.real_priority(name)), "{name}");
    }
}

#[test]
fn the_rollup_sums_subgroups_into_their_parents() {
    let mut acct = pool();
    let plain = report(&mut acct, false);
    let rolled = report(&mut acct, true);
    let index = |ad: &ClassAd, name: &str| {
        (1..=4).find(|n| ad.lookup_string(format!("Name{n}").as_str()).as_deref() == Some(name)).unwrap()
    };
    let get = |ad: &ClassAd, attr: &str, group: &str| {
        ad.lookup_float(format!("{attr}{}", index(ad, group)).as_str()).unwrap_or_else(|| panic!("{attr} {group}"))
    };
    for attr in ["ResourcesUsed", "WeightedResourcesUsed", "AccumulatedUsage", "WeightedAccumulatedUsage"] {
        let own_a = get(&plain, attr, "group_a");
        let own_b = get(&plain, attr, "group_a.b");
        let own_root = get(&plain, attr, "<none>");
        assert!(own_b > 0.0, "{attr}");
        assert_eq!(get(&rolled, attr, "group_a.b"), own_b, "{attr}");
        assert!(close(get(&rolled, attr, "group_a"), own_a + own_b), "{attr}");
        assert!(close(get(&rolled, attr, "<none>"), own_root + own_a + own_b), "{attr}");
    }
    assert_eq!(get(&plain, "ResourcesUsed", "group_a.b"), 2.0);
    assert_eq!(get(&rolled, "ResourcesUsed", "group_a"), 3.0);
    // Rolled up, a group's priority is 0 and its factor its record's.
    assert_eq!(get(&rolled, "Priority", "group_a"), 0.0);
    assert!(get(&plain, "Priority", "group_a") > 0.0);
    let recorded = acct.customer("group_a").and_then(|c| c.priority_factor).unwrap_or(0.0);
    assert_eq!(get(&rolled, "PriorityFactor", "group_a"), recorded);
    // Submitters are the same either way.
    let (plain_rows, _) = PriorityRow::from_userprio_ad(&plain);
    let (rolled_rows, _) = PriorityRow::from_userprio_ad(&rolled);
    let users = |rows: &[PriorityRow]| rows.iter().filter(|r| !r.is_group).cloned().collect::<Vec<_>>();
    assert_eq!(users(&plain_rows), users(&rolled_rows));
    // The same through the old rollup number.
    let old = decode(c::GET_PRIORITY_ROLLUP_OLD, None, None).apply(&mut acct, NOW);
    assert_eq!(old, Request::GetPriority { rollup: true }.apply(&mut acct, NOW));
    assert_eq!(old, Reply::Ad(priority_report(&acct, true)));
}

#[test]
fn the_resource_list_names_a_submitters_slots() {
    let mut acct = pool();
    let reply = run(&mut acct, c::GET_RESLIST, Some("group_a.b.alice@site"), None);
    let ad = read_reply(&reply, None).unwrap();
    let mut names: Vec<String> =
        (1..=2).map(|n| ad.lookup_string(format!("Name{n}").as_str()).expect("two slots")).collect();
    names.sort();
    assert_eq!(names, ["slot1@node@<10.0.0.1:9618>", "slot2@node@<10.0.0.1:9618>"]);
    assert_eq!(ad.lookup_integer("StartTime1"), Some(NOW - 7200));
    assert_eq!(ad.len(), 4);
    assert!(resource_list(&acct, "nobody@site").is_empty());
    // A group's list is empty, as HTCondor's is.
    assert!(resource_list(&acct, "group_a.b").is_empty());
}
