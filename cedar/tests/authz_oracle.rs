//! The authorization module against answers HTCondor 23.9.6 itself gave
//! (`tests/data/authz/gen.sh`: `condor_ping`, `condor_config_val`, and
//! `oracle.cpp` calling `SecMan::Verify`, `MapFile` and the matchers in the
//! chroot's `libcondor_utils`).
//!
//! Every answer must agree, except the cases listed in
//! `data/authz/divergences.txt`, where this crate deliberately fixes a
//! 23.9.6 bug (see the `host` and `wildcard` module docs); the test fails
//! if a listed case starts agreeing or an unlisted one differs.

#![allow(clippy::unwrap_used)] // test helpers; the rules allow unwrap in tests

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use cedar::authz::*;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/authz")
}

fn read_config(path: &Path) -> HashMap<String, String> {
    let mut cfg = HashMap::new();
    for line in fs::read_to_string(path).unwrap().lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (k, v) = line.split_once('=').unwrap();
        cfg.insert(k.trim().to_ascii_uppercase(), v.trim().to_string());
    }
    cfg
}

fn authorizer(cfg: &HashMap<String, String>, subsys: &str) -> Authorizer {
    let lookup = |k: &str| cfg.get(&k.to_ascii_uppercase()).cloned();
    Authorizer::from_config(&lookup, &AuthzConfig::for_subsystem(subsys)).unwrap()
}

fn divergences() -> BTreeSet<String> {
    fs::read_to_string(data().join("divergences.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The reason up to HTCondor's "identifiers used" tail, which lists the
/// reverse-DNS names HTCondor looked up (this crate does no DNS).
fn reason_head(r: &str) -> &str {
    r.split("; identifiers used").next().unwrap_or(r)
}

#[test]
fn verify_matches_htcondor() {
    let mut differ = BTreeSet::new();
    let mut compared = 0;
    let mut reasons_differ = Vec::new();
    let dir = data().join("scenarios");
    let mut outs: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "out"))
        .collect();
    outs.sort();
    assert!(outs.len() >= 10, "scenario outputs missing: {outs:?}");
    for out in outs {
        let stem = out.file_stem().unwrap().to_str().unwrap().to_string();
        let (scenario, subsys) = stem.rsplit_once('-').unwrap();
        let cfg = read_config(&dir.join(format!("{scenario}.config")));
        let authz = authorizer(&cfg, subsys);
        for line in fs::read_to_string(&out).unwrap().lines() {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f[0], "VERIFY", "{line}");
            let perm = Permission::from_name(f[1]).unwrap();
            let ip: IpAddr = f[2].parse().unwrap();
            let peer = Peer::new(ip).with_user(f[3]);
            let ours = authz.check(&peer, perm);
            let theirs_allowed = f[4] == "ALLOW";
            compared += 1;
            if ours.is_allowed() != theirs_allowed {
                differ.insert(format!("{stem}\t{}\t{}\t{}", f[1], f[2], f[3]));
            } else if perm != Permission::Allow
                // IpVerify caches per (ip, user, level); a cached answer
                // reports no reason of its own.
                && !f[5].starts_with("cached result")
                && reason_head(ours.reason()) != reason_head(f[5])
            {
                reasons_differ.push(format!("{line}\n   ours: {}", ours.reason()));
            }
        }
    }
    assert!(compared > 4000, "only {compared} answers");
    let expected: BTreeSet<String> = divergences().into_iter().filter(|l| !l.starts_with("match\t")).collect();
    let unexpected: Vec<_> = differ.difference(&expected).collect();
    let vanished: Vec<_> = expected.difference(&differ).collect();
    assert!(
        unexpected.is_empty() && vanished.is_empty(),
        "unexpected: {unexpected:#?}\nno longer differ: {vanished:#?}"
    );
    // HTCondor leaves the reason of a denial it inherits from a deny
    // match in an implying level unchanged; everything else agrees word
    // for word up to the DNS part.
    assert!(reasons_differ.is_empty(), "{} reasons differ:\n{}", reasons_differ.len(), reasons_differ.join("\n"));
}

#[test]
fn matchers_match_htcondor() {
    let expected: BTreeSet<String> =
        divergences().into_iter().filter_map(|l| l.strip_prefix("match\t").map(str::to_string)).collect();
    let mut differ = BTreeSet::new();
    let mut quirk_agrees = 0;
    for line in fs::read_to_string(data().join("match.out")).unwrap().lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let theirs = f[3] == "MATCH";
        let ours = match f[0] {
            "WILD" => {
                // The quirk-compatible matcher must agree everywhere.
                assert_eq!(wildcard_matches_htcondor_23_9(f[1], f[2]), theirs, "{line}");
                quirk_agrees += 1;
                wildcard_matches(f[1], f[2])
            }
            "NET" => {
                let ip: IpAddr = f[2].parse().unwrap();
                HostPattern::parse(f[1]).matches_ip(ip, &[])
            }
            other => panic!("unknown query {other}"),
        };
        if ours != theirs {
            differ.insert(format!("{}\t{}\t{}", f[0], f[1], f[2]));
        }
    }
    assert!(quirk_agrees > 20);
    assert_eq!(differ, expected);
}

fn check_mapfile(map: &MapFile, out: &str) {
    let mut n = 0;
    for line in fs::read_to_string(data().join(out)).unwrap().lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "MAPFILE" => assert_eq!(f[2], "parse=0"),
            "MAP" if f.len() == 5 => {
                let ours = map.canonicalize(f[1], f[2]);
                let theirs = (f[3] == "MAPPED").then(|| f[4].to_string());
                assert_eq!(ours, theirs, "{line}");
                n += 1;
            }
            _ => {} // BADQUERY lines (a query holding a tab)
        }
    }
    assert!(n >= 10, "{out}: only {n} answers");
}

#[test]
fn mapfile_matches_htcondor() {
    let map = MapFile::load(&data().join("test.mapfile"), &MapFileOptions::default()).unwrap();
    check_mapfile(&map, "mapfile.out");
    // The nested @include and the two bad lines are reported.
    assert!(map.skipped().iter().any(|(_, why)| why.contains("@include")));
    assert!(map.skipped().iter().any(|(_, why)| why.contains("regular expression")));
    assert!(map.skipped().iter().any(|(_, why)| why.contains("missing")));
}

#[test]
fn mapfile_hash_keys_match_htcondor() {
    let opts = MapFileOptions::default().with_assume_hash_keys(true);
    let map = MapFile::load(&data().join("test-hash.mapfile"), &opts).unwrap();
    check_mapfile(&map, "mapfile-hash.out");
}

/// `condor_ping -help permheir` sections as name lists, `_PERM` dropped.
fn permheir_section(text: &str, title: &str) -> Vec<(String, Vec<String>)> {
    let mut rows = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.trim_end().ends_with(':') && !line.starts_with('\t') {
            inside = line.split_whitespace().collect::<Vec<_>>().join(" ") == title;
            continue;
        }
        if !inside || !line.starts_with('\t') {
            continue;
        }
        let name = line.split("/*").nth(1).unwrap().split("*/").next().unwrap().trim().to_string();
        let body = line.split('{').nth(1).unwrap().split('}').next().unwrap();
        let items = body
            .split(',')
            .map(|s| s.replace("/**/", "").trim().trim_end_matches("_PERM").to_string())
            .filter(|s| !s.is_empty())
            .collect();
        rows.push((name, items));
    }
    rows
}

fn names(perms: impl IntoIterator<Item = Permission>) -> Vec<String> {
    perms.into_iter().map(|p| p.name().to_string()).collect()
}

fn check_permheir(file: &str, legacy: bool) {
    let text = fs::read_to_string(data().join(file)).unwrap();
    let config_title = if legacy { "Legacy nextConfig perms:" } else { "nextConfig perms:" };
    let sections = [config_title, "Implied perms:", "Implied by:"];
    for title in sections {
        let rows = permheir_section(&text, title);
        assert_eq!(rows.len(), 13, "{file}: {title}");
        for (name, items) in rows {
            let p = Permission::from_name(&name).unwrap();
            let ours = match title {
                "Implied perms:" => names(p.implied_chain()),
                "Implied by:" => names(p.directly_implied_by().iter().copied()),
                // Legacy order applies from DAEMON on, as getSecSetting does.
                _ => names(p.config_chain(legacy && p >= Permission::Daemon)),
            };
            assert_eq!(ours, items, "{file} {title} {name}");
        }
    }
}

#[test]
fn permission_hierarchy_matches_condor_ping() {
    check_permheir("permheir.txt", false);
}

#[test]
fn legacy_hierarchy_matches_condor_ping() {
    check_permheir("permheir-legacy.txt", true);
}

#[test]
fn level_names_and_descriptions_match_condor_ping() {
    let text = fs::read_to_string(data().join("levels.txt")).unwrap();
    let mut seen = 0;
    for line in text.lines().skip(1) {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (name, desc) = line.split_once(' ').unwrap();
        let p = Permission::from_name(name).unwrap();
        assert_eq!(p.description(), desc.trim(), "{name}");
        seen += 1;
    }
    // condor_ping hides SOAP.
    assert_eq!(seen, 12);
}

/// `condor_ping -help config -type SUBSYS`: for every level, the knob the
/// list came from.
#[test]
fn knob_fallbacks_match_condor_ping() {
    let mut checked = 0;
    for scenario in ["fallback", "legacy"] {
        for subsys in ["COLLECTOR", "NEGOTIATOR"] {
            let cfg = read_config(&data().join(format!("scenarios/{scenario}.config")));
            let authz = authorizer(&cfg, subsys);
            let text = fs::read_to_string(data().join(format!("secconfig-{scenario}-{subsys}.txt"))).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                let Some((knob, _)) = line.split_once(" = ") else { continue };
                let (kind, rest) = knob.split_once('_').unwrap();
                let level = rest.strip_suffix(&format!("_{subsys}")).unwrap();
                let perm = Permission::from_name(level).unwrap();
                let from = lines.get(i + 1).and_then(|l| l.trim().strip_prefix("# from: ")).unwrap_or(knob);
                let ours = if kind == "ALLOW" { authz.allow_knob(perm) } else { authz.deny_knob(perm) };
                assert_eq!(ours, Some(from), "{scenario} {subsys} {knob}");
                checked += 1;
            }
        }
    }
    assert!(checked > 40, "{checked}");
}

#[test]
fn defaults_match_condor_config_val() {
    let text = fs::read_to_string(data().join("defaults.txt")).unwrap();
    // The only ALLOW_<level>/DENY_<level> knob with a default.
    let lists: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.split_once(" = ").is_some_and(|(k, _)| {
                let level = k.split_once('_').map(|(_, r)| r).unwrap_or("");
                Permission::from_name(level).is_some()
            })
        })
        .collect();
    assert_eq!(lists, ["ALLOW_CLIENT = *"]);
    assert!(text.contains("USE_POOL_USERNAME_EQUIVALENT: Not defined"));
    assert!(text.contains("CERTIFICATE_MAPFILE: Not defined"));
    assert!(text.contains("SEC_CLAIMTOBE_INCLUDE_DOMAIN: false"));
}
