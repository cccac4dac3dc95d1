//! `SecurityPolicy::from_config` against HTCondor 23.9.6's
//! `SecMan::FillInSecurityPolicyAd`, run in the chroot on each case of
//! `tests/data/policy/config_cases.txt` (results in
//! `htcondor_config_policy.txt`; regenerate with
//! `tests/data/policy/regenerate.sh`).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::collections::HashMap;

use cedar::authz::Permission;
use cedar::policy::{AuthMethod, PolicyConfig, SecurityPolicy};

const CASES: &str = include_str!("data/policy/config_cases.txt");
const RESULTS: &str = include_str!("data/policy/htcondor_config_policy.txt");

struct Case {
    name: String,
    subsys: String,
    perm: String,
    force: bool,
    knobs: HashMap<String, String>,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut cur: Option<Case> = None;
    for line in CASES.lines().filter(|l| !l.starts_with('#')) {
        if let Some(rest) = line.strip_prefix("case ") {
            let f: Vec<&str> = rest.split_whitespace().collect();
            cur = Some(Case {
                name: f[0].into(),
                subsys: f[1].into(),
                perm: f[2].into(),
                force: f[3] == "1",
                knobs: HashMap::new(),
            });
        } else if line == "end" {
            out.push(cur.take().unwrap());
        } else if let Some((k, v)) = line.split_once('=') {
            // HTCondor knob names are case-insensitive; these cases use one spelling.
            cur.as_mut().unwrap().knobs.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    out
}

fn results() -> HashMap<String, HashMap<&'static str, &'static str>> {
    RESULTS
        .lines()
        .map(|l| {
            let m: HashMap<&str, &str> = l.split('\t').skip(1).filter_map(|kv| kv.split_once('=')).collect();
            (m["name"].to_string(), m)
        })
        .collect()
}

#[test]
fn from_config_matches_fill_in_security_policy_ad() {
    let results = results();
    let cases = cases();
    assert_eq!(cases.len(), results.len());
    for case in cases {
        let r = &results[&case.name];
        let perm = Permission::from_name(&case.perm).unwrap();
        let mut config = PolicyConfig::daemon(perm, &case.subsys);
        config.tool = case.subsys == "TOOL";
        config.force_authentication = case.force;
        // What this HTCondor build offers: no NTSSPI (Windows), and no SSL
        // for a server without a host certificate.
        let supported: Vec<AuthMethod> = AuthMethod::ALL
            .into_iter()
            .filter(|m| *m != AuthMethod::Ntsspi && (perm == Permission::Client || *m != AuthMethod::Ssl))
            .collect();
        let config = config.with_supported_auth_methods(&supported);
        let ours = SecurityPolicy::from_config(&config, |k| case.knobs.get(k).cloned());
        let name = &case.name;
        match r["ok"] {
            "0" => {
                assert!(ours.is_err(), "{name}: HTCondor refused the policy, we gave {ours:?}");
                continue;
            }
            "EXCEPT" => {
                let e = ours.expect_err(name);
                assert_eq!(e.message(), r["message"], "{name}");
                continue;
            }
            _ => {}
        }
        let p = ours.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(p.negotiation.as_str(), r["OutgoingNegotiation"], "{name}");
        assert_eq!(p.authentication.as_str(), r["Authentication"], "{name}");
        assert_eq!(p.encryption.as_str(), r["Encryption"], "{name}");
        assert_eq!(p.integrity.as_str(), r["Integrity"], "{name}");
        let terms = p.terms();
        assert_eq!(terms.auth_methods.as_deref(), r.get("AuthMethods").copied(), "{name}");
        // We offer AES alone; HTCondor's list minus BLOWFISH and 3DES.
        let cpp_aes: Option<String> =
            r.get("CryptoMethods").map(|l| l.split(',').filter(|m| *m == "AES").collect::<Vec<_>>().join(","));
        assert_eq!(terms.crypto_methods, cpp_aes.filter(|l| !l.is_empty()), "{name}");
        assert_eq!(p.session_duration.to_string(), r["SessionDuration"], "{name}");
        assert_eq!(p.session_lease.to_string(), r["SessionLease"], "{name}");
    }
}
