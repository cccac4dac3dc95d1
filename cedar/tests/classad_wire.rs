//! ClassAds on the wire: round trips, projections, private attributes,
//! bounds.

use cedar::version::Version;
use cedar::wire::ad::{self, get_classad, get_classad_keyed, get_classad_no_types, put_classad, AdLimits, PutOptions};
use cedar::wire::{Decoder, Encoder};
use cedar::ErrorKind;
use classad::ClassAd;
use proptest::prelude::*;

fn send(a: &ClassAd, opts: &PutOptions) -> Vec<u8> {
    let mut enc = Encoder::new(false);
    put_classad(&mut enc, a, opts).expect("the ad encodes");
    enc.into_bytes()
}

fn receive(bytes: &[u8]) -> ClassAd {
    let mut dec = Decoder::new(bytes, false);
    let got = get_classad(&mut dec, &AdLimits::default()).expect("the ad decodes");
    dec.finish().expect("nothing follows the ad");
    got
}

fn names(a: &ClassAd) -> Vec<&'static str> {
    a.names().map(|n| n.as_str()).collect()
}

/// The strings of an encoded ad, after its count.
fn lines(bytes: &[u8]) -> (i64, Vec<String>) {
    let mut dec = Decoder::new(bytes, false);
    let n = dec.get_int().expect("a count");
    let mut out = Vec::new();
    while !dec.is_empty() {
        out.push(dec.get_string().expect("a string"));
    }
    (n, out)
}

#[test]
fn the_wire_form_is_a_count_old_syntax_lines_and_two_empty_strings() {
    let a: ClassAd =
        r#"[ MyType = "Machine"; Memory = 2048; Rate = 0.5; Ok = x is undefined; S = "a\\b" ]"#.parse().unwrap();
    let (n, l) = lines(&send(&a, &PutOptions::new()));
    assert_eq!(n, 5);
    assert_eq!(
        l,
        ["MyType = \"Machine\"", "Memory = 2048", "Rate = 0.5", "Ok = x =?= undefined", "S = \"a\\b\"", "", ""]
    );
    let (n, l) = lines(&send(&a, &PutOptions::new().no_types(true).server_time(Some(17))));
    assert_eq!(n, 6);
    assert_eq!(l.last().map(String::as_str), Some("ServerTime = 17"));
    let bytes = send(&a, &PutOptions::new().no_types(true));
    let mut dec = Decoder::new(&bytes, false);
    assert!(get_classad_no_types(&mut dec, &AdLimits::default()).unwrap().same_as(&a));
    dec.finish().unwrap();
}

#[test]
fn the_trailing_strings_are_ignored_whatever_they_hold() {
    let mut enc = Encoder::new(false);
    enc.put_int(1);
    enc.put_str("A = 1").unwrap();
    enc.put_str("Machine").unwrap();
    enc.put_null_string();
    let bytes = enc.into_bytes();
    assert_eq!(names(&receive(&bytes)), ["A"]);
}

#[test]
fn lines_are_split_as_split_long_form_attr_value_does() {
    assert_eq!(ad::split_attribute("  Name   =  \"x\""), Some(("Name", "\"x\"")));
    assert_eq!(ad::split_attribute("A==1"), Some(("A", "=1")));
    assert_eq!(ad::split_attribute("= 1"), None);
    assert_eq!(ad::split_attribute("no equals"), None);
}

#[test]
fn private_attributes_v1_and_v2() {
    let a: ClassAd =
        r#"[ Name = "s"; ClaimId = "c"; capability = "k"; _condor_privKey = "p"; TransferKey = "t" ]"#.parse().unwrap();
    // Everything by default, except V2 to a peer of unknown version.
    assert_eq!(names(&receive(&send(&a, &PutOptions::new()))), ["Name", "ClaimId", "capability", "TransferKey"]);
    let old: Version = "$CondorVersion: 9.8.1 x $".parse().unwrap();
    let new: Version = "$CondorVersion: 9.9.0 x $".parse().unwrap();
    let to_old = PutOptions::new().peer_version(Some(old));
    assert_eq!(names(&receive(&send(&a, &to_old))), ["Name", "ClaimId", "capability", "TransferKey"]);
    let to_new = PutOptions::new().peer_version(Some(new.clone()));
    assert_eq!(names(&receive(&send(&a, &to_new))).len(), 5);
    let public = PutOptions::new().peer_version(Some(new)).exclude_private(true);
    assert_eq!(names(&receive(&send(&a, &public))), ["Name"]);
    // The same rules under a projection.
    let projected = PutOptions::new().exclude_private(true).projection(Some(vec!["ClaimId".into(), "Name".into()]));
    assert_eq!(names(&receive(&send(&a, &projected))), ["Name"]);
}

#[test]
fn a_secret_after_zkm_is_read_in_the_clear_on_a_keyless_stream() {
    // What the C++ client sends to a peer of unknown version (captured
    // from the htcondor wheel with SEC_CLIENT_NEGOTIATION = NEVER).
    let mut enc = Encoder::new(false);
    enc.put_int(3);
    enc.put_str("Name = \"x\"").unwrap();
    enc.put_str("MyType = \"Machine\"").unwrap();
    enc.put_str("ZKM").unwrap();
    enc.put_str("ClaimId = \"sec\"").unwrap();
    enc.put_str("").unwrap();
    enc.put_str("").unwrap();
    let bytes = enc.into_bytes();
    let got = receive(&bytes);
    assert_eq!(names(&got), ["Name", "MyType", "ClaimId"]);
    assert_eq!(got.lookup("ClaimId").map(|e| e.to_string()), Some("\"sec\"".to_owned()));
    // On a keyed but unencrypted stream the secret would be encrypted.
    let err = get_classad_keyed(&mut Decoder::new(&bytes, false), &AdLimits::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Protocol);
}

#[test]
fn projections_expand_through_references() {
    let a: ClassAd = "[ Name = \"n\"; Start = Cpus > 1 && KFlops > Floor; Cpus = Detected; Detected = 8; KFlops = 5; Floor = 1; Other = 2 ]"
        .parse()
        .unwrap();
    assert_eq!(ad::expand_projection(&a, &["Start"]), ["Cpus", "Detected", "Floor", "KFlops", "Start"]);
    // Literals add nothing; missing names are dropped; the set is sorted
    // without case and keeps one spelling of each name.
    assert_eq!(ad::expand_projection(&a, &["other", "name", "Missing", "NAME"]), ["name", "other"]);
    let got = receive(&send(&a, &PutOptions::new().projection(Some(vec!["Start".into()]))));
    assert_eq!(names(&got), ["Cpus", "Detected", "Floor", "KFlops", "Start"]);
    // A cycle does not hang.
    let cyc: ClassAd = "[ A = B; B = A ]".parse().unwrap();
    assert_eq!(ad::expand_projection(&cyc, &["A"]), ["A"]);
}

/// What HTCondor 23.9.6's condor_collector sent for this ad (advertised
/// with condor_advertise, queried with the 23.10 wheel's
/// `Collector.query(projection=...)`): references through `MY.` (in any
/// case) are followed, `TARGET.` and `other.` ones are not, and a
/// reference's own references are followed too.
#[test]
fn projections_follow_my_references_as_condor_collector_does() {
    let a: ClassAd =
        "[ A = MY.B + TARGET.C + D + other.E + my.F; B = 1; C = 2; D = G * 2; E = 5; F = 6; G = 7; H = 8 ]"
            .parse()
            .unwrap();
    assert_eq!(ad::expand_projection(&a, &["A"]), ["A", "B", "D", "F", "G"]);
    assert_eq!(ad::expand_projection(&a, &["a"]), ["a", "B", "D", "F", "G"]);
    assert_eq!(ad::expand_projection(&a, &["D"]), ["D", "G"]);
    assert_eq!(ad::expand_projection(&a, &["A", "H"]), ["A", "B", "D", "F", "G", "H"]);
}

#[test]
fn a_chained_parent_goes_first_and_the_child_wins() {
    let parent: ClassAd = "[ A = 1; B = 2 ]".parse().unwrap();
    let mut child: ClassAd = "[ B = 3 ]".parse().unwrap();
    child.chain_to(std::sync::Arc::new(parent));
    let (n, l) = lines(&send(&child, &PutOptions::new()));
    assert_eq!(n, 3);
    assert_eq!(&l[..3], ["A = 1", "B = 2", "B = 3"]);
    let got = receive(&send(&child, &PutOptions::new()));
    assert_eq!(got.lookup("B").map(|e| e.to_string()), Some("3".to_owned()));
}

#[test]
fn counts_and_lines_are_bounded() {
    let mut enc = Encoder::new(false);
    enc.put_int(1_000_000);
    let bytes = enc.into_bytes();
    let err = get_classad(&mut Decoder::new(&bytes, false), &AdLimits::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    let mut enc = Encoder::new(false);
    enc.put_int(-1);
    let bytes = enc.into_bytes();
    assert_eq!(
        get_classad(&mut Decoder::new(&bytes, false), &AdLimits::default()).unwrap_err().kind(),
        ErrorKind::Malformed
    );
    let a: ClassAd = format!("[ Long = \"{}\" ]", "x".repeat(200)).parse().unwrap();
    let bytes = send(&a, &PutOptions::new());
    let err = get_classad(&mut Decoder::new(&bytes, false), &AdLimits::default().max_line(100)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    // A declared count larger than what follows is a truncation, not a hang.
    let mut enc = Encoder::new(false);
    enc.put_int(5);
    enc.put_str("A = 1").unwrap();
    let bytes = enc.into_bytes();
    assert_eq!(
        get_classad(&mut Decoder::new(&bytes, false), &AdLimits::default()).unwrap_err().kind(),
        ErrorKind::Malformed
    );
    // Deep nesting is refused by the parser's bound.
    let deep = format!("A = {}1{}", "(".repeat(50), ")".repeat(50));
    let mut enc = Encoder::new(false);
    enc.put_int(1);
    enc.put_str(&deep).unwrap();
    enc.put_str("").unwrap();
    enc.put_str("").unwrap();
    let bytes = enc.into_bytes();
    assert!(get_classad(&mut Decoder::new(&bytes, false), &AdLimits::default()).is_ok());
    let err = get_classad(&mut Decoder::new(&bytes, false), &AdLimits::default().max_depth(10)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Malformed);
}

/// Values whose old-syntax text reads back the same.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|i| i.to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        // Old syntax prints reals as %.16G, as libclassad does, so only
        // reals with 16 significant digits or fewer come back exactly.
        (-1_000_000i32..1_000_000).prop_map(|r| format!("{:?}", f64::from(r) / 8.0)),
        "[a-zA-Z0-9 _.:@-]{0,20}".prop_map(|s| format!("{s:?}")),
        "[a-z]{1,8}".prop_filter("an operator", |n| !is_operator(n)).prop_map(|n| format!("{n} + 1")),
        Just("undefined".to_owned()),
        Just("{ 1, \"a\", [ b = 2 ] }".to_owned()),
    ]
}

/// `is` and `isnt` (in any case) are operators, not attribute names.
fn is_operator(name: &str) -> bool {
    name.eq_ignore_ascii_case("is") || name.eq_ignore_ascii_case("isnt")
}

proptest! {
    #[test]
    fn ads_round_trip(attrs in proptest::collection::btree_map("[A-Z][a-zA-Z0-9_]{0,10}".prop_filter("an operator", |n| !is_operator(n)), value(), 0..12), encrypted in any::<bool>()) {
        let text = format!("[ {} ]", attrs.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join("; "));
        let a: ClassAd = text.parse().unwrap();
        let mut enc = Encoder::new(encrypted);
        put_classad(&mut enc, &a, &PutOptions::new()).unwrap();
        let bytes = enc.into_bytes();
        let mut dec = Decoder::new(&bytes, encrypted);
        let got = get_classad(&mut dec, &AdLimits::default()).unwrap();
        dec.finish().unwrap();
        prop_assert!(got.same_as(&a), "{} came back as {}", a, got);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        let _ = get_classad(&mut Decoder::new(&bytes, false), &AdLimits::default());
        let _ = get_classad(&mut Decoder::new(&bytes, true), &AdLimits::default());
    }
}
