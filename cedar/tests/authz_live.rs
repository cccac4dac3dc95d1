//! Decisions of a running HTCondor 23.9.6 collector (`data/authz/live/`,
//! made by `live.sh`: one condor_collector on a private port, CLAIMTOBE,
//! `condor_ping` at seven levels, with and without
//! `SEC_CLAIMTOBE_INCLUDE_DOMAIN`, and with IDTOKENS and a scoped token),
//! replayed through `cedar::authz`.

#![allow(clippy::unwrap_used)] // test helpers; the rules allow unwrap in tests

use std::collections::HashMap;
use std::fs;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use cedar::authz::*;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/authz/live")
}

fn config(run: &str) -> HashMap<String, String> {
    let mut text = fs::read_to_string(dir().join("run1.config")).unwrap();
    if run == "run2" {
        text += &fs::read_to_string(dir().join("run2.extra")).unwrap();
    }
    parse_config(&text)
}

fn config_file(name: &str) -> HashMap<String, String> {
    parse_config(&fs::read_to_string(dir().join(name)).unwrap())
}

fn parse_config(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap();
            (k.trim().to_ascii_uppercase(), v.trim().to_string())
        })
        .collect()
}

/// `PERMISSION GRANTED to condor from host 127.0.0.1 for command 60020
/// (DC_NOP_READ), access level READ: reason: …`
fn decisions(run: &str) -> Vec<(bool, String, IpAddr, Permission)> {
    fs::read_to_string(dir().join(format!("{run}.log")))
        .unwrap()
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split(' ').collect();
            let granted = w[1] == "GRANTED";
            let level = l.split("access level ").nth(1).unwrap().split(':').next().unwrap();
            (granted, w[3].to_string(), w[6].parse().unwrap(), Permission::from_name(level).unwrap())
        })
        .collect()
}

fn check(run: &str, include_domain: bool, diverge: &[Permission]) {
    let cfg = config(run);
    let lookup = |k: &str| cfg.get(k).cloned();
    let authz = Authorizer::from_config(&lookup, &AuthzConfig::for_subsystem("COLLECTOR")).unwrap();
    let mut icfg = IdentityConfig::with_uid_domain(&cfg["UID_DOMAIN"]);
    icfg.claimtobe_include_domain = include_domain;
    // condor_ping ran as root; CLAIMTOBE claims the condor-priv user.
    let id = Identity::resolve(AuthMethod::ClaimToBe, "condor", None, &icfg).fqu();
    let ds = decisions(run);
    let logged: HashMap<Permission, String> = fs::read_to_string(dir().join(format!("{run}.log")))
        .unwrap()
        .lines()
        .map(|l| {
            let level = l.split("access level ").nth(1).unwrap().split(':').next().unwrap();
            (Permission::from_name(level).unwrap(), l.to_string())
        })
        .collect();
    assert_eq!(ds.len(), 7);
    for (granted, user, ip, perm) in ds {
        assert_eq!(user, id, "{run}: the collector's identity for the CLAIMTOBE peer");
        let limit = AuthorizationLimit::for_claimtobe(perm);
        let peer = Peer::new(ip).with_user(&user).with_limit(&limit);
        let ours = authz.check(&peer, perm);
        if diverge.contains(&perm) {
            assert_ne!(ours.is_allowed(), granted, "{run} {perm}: expected to differ (23.9.6 bug)");
        } else {
            assert_eq!(ours.is_allowed(), granted, "{run} {perm}: {}", ours.reason());
            // The log line agrees up to the DNS part of the reason.
            let line = logged.get(&perm).unwrap();
            let what = line.split(" for ").nth(1).unwrap().split(", access level").next().unwrap();
            let mine = ours.log_line(&peer, perm, what);
            let head = |s: &str| s.split("; identifiers used").next().unwrap().to_string();
            if !line.contains("cached result") && !line.contains(" is implied by ") {
                assert_eq!(head(&mine), head(line), "{run} {perm}");
            }
        }
    }
    // condor_ping's Identity column agrees with the log.
    let ping = fs::read_to_string(dir().join(format!("{run}.ping"))).unwrap();
    assert!(ping.lines().any(|l| l.trim_end().ends_with(&format!("ALLOW {id}"))), "{ping}");
}

#[test]
fn claimtobe_without_domain() {
    // ALLOW_NEGOTIATOR = */10.9.9.9 granted 127.0.0.1: the bare-address bug.
    check("run1", false, &[Permission::Negotiator]);
}

#[test]
fn claimtobe_with_domain() {
    // Also ALLOW_ADMINISTRATOR = *@authz.tes granted condor@authz.test (the
    // unanchored wildcard). WRITE agrees: HTCondor grants it through
    // ADMINISTRATOR, this crate through DAEMON (condor@authz.test/*).
    check("run2", true, &[Permission::Negotiator, Permission::Administrator]);
}

/// run3: IDTOKENS with a token for `Alice@Authz.Test` scoped to
/// `condor:/ADVERTISE_STARTD`, every list `*`, and a map file with an
/// IDTOKENS rule that 23.9.6 does not apply.
#[test]
fn token_scope_limits_and_no_mapping() {
    let cfg = config_file("run3.config");
    let lookup = |k: &str| cfg.get(k).cloned();
    let authz = Authorizer::from_config(&lookup, &AuthzConfig::for_subsystem("COLLECTOR")).unwrap();
    let map_text = fs::read_to_string(dir().join("run3.mapfile")).unwrap();
    let map = MapFile::parse(&map_text, &MapFileOptions::default()).unwrap();
    let id = Identity::resolve(
        AuthMethod::IdTokens,
        "Alice@Authz.Test",
        Some(&map),
        &IdentityConfig::with_uid_domain(&cfg["UID_DOMAIN"]),
    );
    assert_eq!(id.fqu(), "Alice@authz.test");
    let limit = AuthorizationLimit::from_token_scope("condor:/ADVERTISE_STARTD").unwrap().unwrap();
    let fqu = id.fqu();
    let peer = Peer::new("127.0.0.1".parse().unwrap()).with_user(&fqu).with_limit(&limit);
    // condor_ping's table: level, then ALLOW or FAIL.
    let ping = fs::read_to_string(dir().join("run3.ping")).unwrap();
    let mut rows = 0;
    for line in ping.lines().skip(1) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let perm = Permission::from_name(w[0]).unwrap();
        let granted = w[4] == "ALLOW";
        if granted {
            assert_eq!(w[5], fqu, "the collector's identity");
        }
        let ours = authz.check(&peer, perm);
        assert_eq!(ours.is_allowed(), granted, "{perm}: {}", ours.reason());
        rows += 1;
    }
    assert_eq!(rows, 7);
    // The collector logged the limit for each refused level.
    let log = fs::read_to_string(dir().join("run3.log")).unwrap();
    assert_eq!(log.matches("resulted in a limited authorization").count(), 5);
}

/// run4 (FS) and run5 (CLAIMTOBE) through `run4.mapfile`: the identities
/// the collector gave the peer (the client ran with condor privileges).
#[test]
fn mapped_fs_and_claimtobe_identities() {
    let cfg = config_file("run4.config");
    let map =
        MapFile::parse(&fs::read_to_string(dir().join("run4.mapfile")).unwrap(), &MapFileOptions::default()).unwrap();
    let icfg = IdentityConfig::with_uid_domain(&cfg["UID_DOMAIN"]);
    for (run, method) in [("run4", AuthMethod::Fs), ("run5", AuthMethod::ClaimToBe)] {
        let id = Identity::resolve(method, "condor", Some(&map), &icfg);
        assert!(id.is_mapped());
        let ping = fs::read_to_string(dir().join(format!("{run}.ping"))).unwrap();
        let rows: Vec<&str> = ping.lines().skip(1).collect();
        assert_eq!(rows.len(), 3);
        for row in rows {
            let w: Vec<&str> = row.split_whitespace().collect();
            assert_eq!((w[1], w[4], w[5]), (method.name(), "ALLOW", id.fqu().as_str()), "{run}");
        }
        let log = fs::read_to_string(dir().join(format!("{run}.log"))).unwrap();
        assert!(log.lines().all(|l| l.starts_with(&format!("PERMISSION GRANTED to {} ", id.fqu()))));
    }
    // Without a matching rule FS gives owner@UID_DOMAIN
    // (condor_auth_fs.cpp 408-411; not among the stored runs).
    assert_eq!(Identity::resolve(AuthMethod::Fs, "condor", None, &icfg).fqu(), "condor@authz.test");
}
