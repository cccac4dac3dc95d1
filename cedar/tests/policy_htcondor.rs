//! The policy module against answers from HTCondor 23.9.6's own SecMan.
//!
//! `tests/data/policy/htcondor_policy.txt` was written by
//! `tests/data/policy/htcondor_policy.cpp`, which links the chroot's
//! `libcondor_utils_23_9_6.so` and calls `ReconcileSecurityPolicyAds`,
//! `ReconcileSecurityDependency`, `sec_alpha_to_sec_req`,
//! `sec_char_to_auth_method`, `getAuthBitmask` and `filterCryptoMethods`;
//! `htcondor_defaults.txt` is `condor_config_val` with no configuration
//! (regenerate both with `tests/data/policy/regenerate.sh`).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::collections::HashMap;

use cedar::authz::Permission;
use cedar::policy::{
    auth_bitmask, filter_crypto_methods, reconcile, reconcile_dependency, AuthMethod, PolicyConfig, PolicyTerms,
    SecurityLevel, SecurityPolicy, DEFAULT_AUTHENTICATION_METHODS,
};

const DATA: &str = include_str!("data/policy/htcondor_policy.txt");
const DEFAULTS: &str = include_str!("data/policy/htcondor_defaults.txt");

fn records(kind: &str) -> Vec<HashMap<&'static str, &'static str>> {
    DATA.lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            (fields.next()? == kind).then(|| fields.filter_map(|kv| kv.split_once('=')).collect())
        })
        .collect()
}

fn level(name: &str) -> SecurityLevel {
    SecurityLevel::parse(name).unwrap()
}

fn side(r: &HashMap<&str, &str>, p: &str) -> PolicyTerms {
    let get = |k: &str| r.get(format!("{p}_{k}").as_str()).map(|v| v.to_string());
    let mut t = PolicyTerms::default();
    t.authentication = get("auth");
    t.encryption = get("enc");
    t.integrity = get("int");
    t.auth_methods = get("methods");
    t.crypto_methods = get("crypto");
    t.session_duration = get("duration");
    t.session_lease = get("lease").map(|v| v.parse().unwrap());
    t
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "YES"
    } else {
        "NO"
    }
}

#[test]
fn reconcile_matches_reconcile_security_policy_ads() {
    let recs = records("reconcile");
    assert!(recs.len() > 130, "{}", recs.len());
    let mut compared = 0;
    for r in &recs {
        let (c, s) = (side(r, "c"), side(r, "s"));
        let ours = reconcile(&c, &s);
        let line = format!("{r:?}");
        if r["result"] == "FAIL" {
            assert!(ours.is_err(), "{line}");
            continue;
        }
        let ours = ours.unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(yes_no(ours.authentication), r["r_Authentication"], "{line}");
        assert_eq!(yes_no(ours.encryption), r["r_Encryption"], "{line}");
        assert_eq!(yes_no(ours.integrity), r["r_Integrity"], "{line}");
        // AuthRequired is written (as false) only when not required.
        assert_eq!(r.get("r_AuthRequired").copied(), (!ours.auth_required).then_some("false"), "{line}");
        assert_eq!(ours.auth_methods_list.as_deref(), r.get("r_AuthMethodsList").copied(), "{line}");
        assert_eq!(ours.auth_method(), r.get("r_AuthMethods").copied(), "{line}");
        assert_eq!(ours.crypto_methods.as_deref(), r.get("r_CryptoMethods").copied(), "{line}");
        assert_eq!(ours.crypto_methods.as_deref(), r.get("r_CryptoMethodsList").copied(), "{line}");
        assert_eq!(ours.session_duration.to_string(), r["r_SessionDuration"], "{line}");
        assert_eq!(ours.session_lease.map(|l| l.to_string()).as_deref(), r.get("r_SessionLease").copied(), "{line}");
        compared += 1;
    }
    assert!(compared > 100, "{compared}");
}

#[test]
fn the_sixteen_cells_for_each_attribute() {
    // The same table from the data, cell by cell, for all three features.
    let recs = records("reconcile");
    for (attr, key) in [("auth", "r_Authentication"), ("enc", "r_Encryption"), ("int", "r_Integrity")] {
        let mut seen = 0;
        for r in &recs {
            let (Some(c), Some(s)) = (r.get(format!("c_{attr}").as_str()), r.get(format!("s_{attr}").as_str())) else {
                continue;
            };
            if r.keys().filter(|k| k.starts_with("c_") || k.starts_with("s_")).count() != 2 {
                continue; // not a pure single-attribute case
            }
            let expected = if r["result"] == "FAIL" { "FAIL" } else { r[key] };
            let got = cedar::policy::reconcile_attribute(Some(c), Some(s)).as_str();
            assert_eq!(got, expected, "{attr} client {c} server {s}");
            if ["REQUIRED", "PREFERRED", "OPTIONAL", "NEVER"].contains(c)
                && ["REQUIRED", "PREFERRED", "OPTIONAL", "NEVER"].contains(s)
            {
                seen += 1;
            }
        }
        assert_eq!(seen, 16, "{attr}");
    }
}

#[test]
fn dependency_matches_reconcile_security_dependency() {
    let recs = records("dependency");
    assert_eq!(recs.len(), 16);
    for r in recs {
        let (mut a, mut b) = (level(r["a"]), level(r["b"]));
        let ok = reconcile_dependency(&mut a, &mut b);
        assert_eq!(ok, r["ok"] == "1", "{r:?}");
        if ok {
            assert_eq!((a.as_str(), b.as_str()), (r["a_out"], r["b_out"]), "{r:?}");
        }
    }
}

#[test]
fn level_parsing_matches_sec_alpha_to_sec_req() {
    let recs = records("level");
    assert_eq!(recs.len(), 19);
    for r in recs {
        let ours = SecurityLevel::parse(r["value"]).map(|l| l.as_str()).unwrap_or("INVALID");
        assert_eq!(ours, r["req"], "{r:?}");
    }
}

#[test]
fn method_names_and_bits_match_sec_char_to_auth_method() {
    let recs = records("method");
    assert_eq!(recs.len(), 20);
    for r in recs {
        let bit = AuthMethod::parse(r["name"]).map(|m| m.bit()).unwrap_or(0);
        assert_eq!(bit.to_string(), r["bit"], "{r:?}");
    }
    for r in records("bitmask") {
        assert_eq!(auth_bitmask(r["list"]).to_string(), r["bits"], "{r:?}");
    }
    for r in records("crypto_filter") {
        assert_eq!(filter_crypto_methods(r["list"]), r["result"], "{r:?}");
    }
}

#[test]
fn defaults_match_condor_config_val() {
    let defaults: HashMap<&str, &str> = DEFAULTS.lines().filter_map(|l| l.split_once('\t')).collect();
    assert_eq!(defaults["SEC_DEFAULT_AUTHENTICATION_METHODS"], DEFAULT_AUTHENTICATION_METHODS);
    // Everything else has no param-table default: the code's defaults apply.
    for knob in [
        "SEC_DEFAULT_CRYPTO_METHODS",
        "SEC_DEFAULT_AUTHENTICATION",
        "SEC_DEFAULT_ENCRYPTION",
        "SEC_DEFAULT_INTEGRITY",
        "SEC_DEFAULT_NEGOTIATION",
        "SEC_DEFAULT_SESSION_DURATION",
        "SEC_DEFAULT_SESSION_LEASE",
        "LEGACY_ALLOW_SEMANTICS",
    ] {
        assert_eq!(defaults[knob], "<undefined>", "{knob}");
    }
    let p = SecurityPolicy::from_config(&PolicyConfig::daemon(Permission::Read, "COLLECTOR"), |_| None).unwrap();
    assert_eq!(p, SecurityPolicy::default());
    assert_eq!(
        p.auth_methods,
        [AuthMethod::Fs, AuthMethod::Token, AuthMethod::Kerberos, AuthMethod::Scitokens, AuthMethod::Ssl]
    );
}
