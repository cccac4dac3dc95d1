//! Rust structs to and from ads with serde (`classad::to_ad`,
//! `classad::from_ad`).

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use classad::{from_ad, to_ad, AbsTime, ClassAd, EvalOptions, Expr, RelTime, Semantics, Value};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Resources {
    #[serde(rename = "Cpus")]
    cpus: u32,
    #[serde(rename = "Memory")]
    memory: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum State {
    Unclaimed,
    Claimed { user: String },
    Draining(u32),
    Pair(i32, i32),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Slot {
    #[serde(rename = "Name")]
    name: String,
    #[serde(rename = "SlotID")]
    id: i64,
    #[serde(rename = "LoadAvg")]
    load: f64,
    #[serde(rename = "Offline")]
    offline: bool,
    #[serde(rename = "GPUs")]
    gpus: Option<u8>,
    #[serde(rename = "Tags")]
    tags: Vec<String>,
    #[serde(rename = "Resources")]
    resources: Resources,
    #[serde(rename = "State")]
    state: State,
    #[serde(rename = "Other")]
    other: State,
    #[serde(rename = "Entered")]
    entered: SystemTime,
    #[serde(rename = "Idle")]
    idle: Duration,
    #[serde(rename = "Start")]
    start: Expr,
    #[serde(rename = "Born")]
    born: AbsTime,
    #[serde(rename = "Lease")]
    lease: RelTime,
    #[serde(rename = "Pairs")]
    pairs: Vec<(String, i32)>,
}

fn slot() -> Slot {
    Slot {
        name: "slot1@wn001".into(),
        id: 1,
        load: 0.25,
        offline: false,
        gpus: None,
        tags: vec!["fast".into(), "ssd".into()],
        resources: Resources { cpus: 8, memory: 32768 },
        state: State::Claimed { user: "alice".into() },
        other: State::Unclaimed,
        entered: SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000),
        idle: Duration::from_millis(1500),
        start: "KeyboardIdle > 15 * 60".parse().expect("expression"),
        born: AbsTime::parse("2020-01-01T00:00:00Z").expect("time"),
        lease: RelTime(90.0),
        pairs: vec![("a".into(), 1)],
    }
}

#[test]
fn a_struct_becomes_an_ad_and_back() {
    let ad = to_ad(&slot()).expect("to an ad");
    assert_eq!(
        ad.to_string(),
        concat!(
            r#"[ Name = "slot1@wn001"; SlotID = 1; LoadAvg = 2.500000000000000E-01; Offline = false; "#,
            r#"Tags = { "fast","ssd" }; Resources = [ Cpus = 8; Memory = 32768 ]; "#,
            r#"State = [ Claimed = [ user = "alice" ] ]; Other = "Unclaimed"; "#,
            r#"Entered = absTime("2023-11-14T22:13:20-00:00"); Idle = relTime("1.5"); Start = KeyboardIdle > 15 * 60; "#,
            r#"Born = absTime("2020-01-01T00:00:00-00:00"); Lease = relTime("01:30"); Pairs = { { "a",1 } } ]"#
        )
    );
    assert!(!ad.contains("GPUs"), "None is an absent attribute");
    let back: Slot = from_ad(&ad).expect("from the ad");
    assert_eq!(back, slot());
}

#[test]
fn options_and_lists() {
    let with_gpus = Slot { gpus: Some(2), ..slot() };
    let ad = to_ad(&with_gpus).expect("to an ad");
    assert_eq!(ad.get("GPUs").map(ToString::to_string).as_deref(), Some("2"));
    assert_eq!(from_ad::<Slot>(&ad).expect("back").gpus, Some(2));
    // Inside a list, None is UNDEFINED, and reads back as None.
    let values = BTreeMap::from([("list", vec![Some(1), None, Some(3)])]);
    let ad = to_ad(&values).expect("to an ad");
    assert_eq!(ad.to_string(), "[ list = { 1,undefined,3 } ]");
    let back: BTreeMap<String, Vec<Option<i32>>> = from_ad(&ad).expect("back");
    assert_eq!(back["list"], vec![Some(1), None, Some(3)]);
}

#[test]
fn reading_evaluates_and_ignores_case() {
    let ad: ClassAd = r#"[
        name = "slot9"; SLOTID = 4 + 5; loadavg = 1; OFFLINE = SlotID > 100; Tags = {};
        Resources = [ Cpus = 2 * 2; Memory = Cpus * 1024 ];
        State = "Unclaimed"; Other = [ Draining = 30 ]; Entered = 1700000000; Idle = 90;
        Start = true; Born = absTime("2021-06-01T12:00:00+02:00"); Lease = 2.5; Pairs = {}
    ]"#
    .parse()
    .expect("ad");
    let slot: Slot = from_ad(&ad).expect("from the ad");
    assert_eq!(slot.name, "slot9");
    assert_eq!(slot.id, 9);
    assert_eq!(slot.load, 1.0);
    assert!(!slot.offline);
    assert_eq!(slot.resources, Resources { cpus: 4, memory: 4096 });
    assert_eq!(slot.other, State::Draining(30));
    assert_eq!(slot.entered, SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    assert_eq!(slot.idle, Duration::from_secs(90));
    assert_eq!(slot.start.to_string(), "true");
    assert_eq!(slot.born.offset, 7200);
    assert_eq!(slot.lease, RelTime(2.5));
}

#[test]
fn semantics_for_reading_are_a_choice() {
    #[derive(Deserialize)]
    struct Probe {
        #[serde(rename = "X")]
        x: i64,
    }
    // Outside a match, `MY` names the ad only with old semantics.
    let ad: ClassAd = "[ y = 5; X = MY.y ]".parse().expect("ad");
    let old = EvalOptions::new().semantics(Semantics::Old);
    assert_eq!(classad::from_ad_with::<Probe>(&ad, &old).expect("old").x, 5);
    let new = EvalOptions::new().semantics(Semantics::New);
    let error = classad::from_ad_with::<Probe>(&ad, &new).map(|p| p.x).expect_err("UNDEFINED");
    assert_eq!(error.to_string(), "attribute `X`: the value is UNDEFINED");
}

#[test]
fn maps_tuples_and_enums() {
    let map = BTreeMap::from([("b", 2.5), ("a", 1.0)]);
    let ad = to_ad(&map).expect("map");
    assert_eq!(ad.to_string(), "[ a = 1.000000000000000E+00; b = 2.500000000000000E+00 ]");
    assert_eq!(
        from_ad::<BTreeMap<String, f64>>(&ad).expect("back"),
        map.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    );

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Holder {
        pair: State,
        bytes: Vec<u8>,
        tuple: (bool, String),
        unit: (),
    }
    let holder = Holder { pair: State::Pair(-1, 2), bytes: vec![1, 2], tuple: (true, "x".into()), unit: () };
    let ad = to_ad(&holder).expect("holder");
    assert_eq!(
        ad.to_string(),
        r#"[ pair = [ Pair = { -1,2 } ]; bytes = { 1,2 }; tuple = { true,"x" }; unit = undefined ]"#
    );
    assert_eq!(from_ad::<Holder>(&ad).expect("back"), holder);
}

#[test]
fn errors_say_what_and_where() {
    let error = |ad: &str| -> String {
        let ad: ClassAd = ad.parse().expect("ad");
        from_ad::<Resources>(&ad).map(|_| ()).expect_err("an error").to_string()
    };
    assert!(error("[ Cpus = 1 ]").contains("missing field `Memory`"), "{}", error("[ Cpus = 1 ]"));
    assert!(error(r#"[ Cpus = "x"; Memory = 1 ]"#).starts_with("attribute `Cpus`: invalid type: string"));
    assert!(error("[ Cpus = -1; Memory = 1 ]").starts_with("attribute `Cpus`: invalid value: integer `-1`"));
    assert!(error("[ Cpus = 1 / 0; Memory = 1 ]").starts_with("attribute `Cpus`: the value is ERROR"));
    assert_eq!(error("[ Cpus = undefined_thing; Memory = 1 ]"), "attribute `Cpus`: the value is UNDEFINED");

    assert!(to_ad(&42).is_err());
    assert!(to_ad(&vec![1, 2]).is_err());
    assert!(to_ad(&BTreeMap::from([("a", u64::MAX)])).expect_err("too big").to_string().contains("64-bit"));
    assert!(to_ad(&BTreeMap::from([(1.5f64.to_string(), 1)])).is_ok());
    #[derive(Serialize)]
    struct Bad {
        e: Option<Expr>,
    }
    assert!(to_ad(&Bad { e: None }).expect("None is fine").is_empty());
}

#[test]
fn values_of_other_types_read_as_the_declared_type() {
    #[derive(Deserialize)]
    struct Loose {
        real_from_int: f64,
        string_list: Vec<String>,
        any: Option<Value>,
    }
    // `Value` has no Deserialize; an Option<()> stands in for "anything".
    #[derive(Deserialize)]
    struct Value {}
    let ad: ClassAd = r#"[ real_from_int = 3; string_list = { "a", strcat("b", "c") } ]"#.parse().expect("ad");
    let loose: Loose = from_ad(&ad).expect("loose");
    assert_eq!(loose.real_from_int, 3.0);
    assert_eq!(loose.string_list, ["a", "bc"]);
    assert!(loose.any.is_none());
}

#[test]
fn values_still_work_alongside() {
    let ad = to_ad(&Resources { cpus: 2, memory: 4 }).expect("ad");
    assert_eq!(ad.eval_attr("cpus"), Value::Int(2));
}
