//! Behaviour of the ALLOW/DENY policy, limits, identities and the map file
//! beyond what the oracle data covers (those cases cite the C++ line that
//! decides them).

#![allow(clippy::unwrap_used)] // test helpers; the rules allow unwrap in tests

use std::collections::HashMap;
use std::net::IpAddr;

use cedar::authz::Permission::*;
use cedar::authz::*;
use cedar::ErrorKind;

fn authz(pairs: &[(&str, &str)], subsys: &str) -> Authorizer {
    let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let lookup = |k: &str| map.get(k).cloned();
    Authorizer::from_config(&lookup, &AuthzConfig::for_subsystem(subsys)).unwrap()
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn undefined_lists() {
    let a = authz(&[], "COLLECTOR");
    let peer = Peer::new(ip("127.0.0.1"));
    for p in Permission::ALL {
        let d = a.check(&peer, p);
        // Only ALLOW and (by the param-table default) CLIENT pass.
        assert_eq!(d.is_allowed(), matches!(p, Allow | Client), "{p}: {}", d.reason());
    }
    assert_eq!(a.check(&peer, Daemon).reason(), "DAEMON authorization policy denies all access");
    assert!(a.check(&peer, Read).reason().starts_with("READ authorization policy contains no matching ALLOW entry"));
    assert_eq!(a.allow_knob(Client), Some("ALLOW_CLIENT"));
    assert_eq!(a.allow_knob(Read), None);
}

#[test]
fn empty_value_counts_as_undefined() {
    let a = authz(&[("ALLOW_DAEMON", "  "), ("ALLOW_DEFAULT", "*/10.0.0.0/8")], "COLLECTOR");
    assert_eq!(a.allow_knob(Daemon), Some("ALLOW_DEFAULT"));
    assert!(a.check(&Peer::new(ip("10.1.1.1")), Daemon).is_allowed());
}

#[test]
fn deny_beats_allow_and_stops_implication() {
    let a = authz(&[("ALLOW_READ", "*/10.0.0.0/8"), ("DENY_READ", "bad@x/*"), ("ALLOW_WRITE", "bad@x/*")], "COLLECTOR");
    let bad = Peer::new(ip("10.0.0.1")).with_user("bad@x");
    assert!(!a.check(&bad, Read).is_allowed());
    assert!(a.check(&bad, Write).is_allowed());
    let good = Peer::new(ip("10.0.0.1")).with_user("good@x");
    assert!(a.check(&good, Read).is_allowed());
}

#[test]
fn bare_host_means_any_user_even_unauthenticated() {
    let a = authz(&[("ALLOW_WRITE", "10.0.0.0/8")], "COLLECTOR");
    assert!(a.check(&Peer::new(ip("10.9.9.9")), Write).is_allowed());
    assert!(a.check(&Peer::new(ip("10.9.9.9")).with_user("x@y"), Write).is_allowed());
    // WRITE implies READ.
    assert!(a.check(&Peer::new(ip("10.9.9.9")), Read).is_allowed());
    assert!(!a.check(&Peer::new(ip("11.0.0.1")), Read).is_allowed());
    // Unauthenticated peers can be named.
    let a = authz(&[("ALLOW_READ", "unauthenticated@unmapped/*")], "COLLECTOR");
    assert!(a.check(&Peer::new(ip("1.1.1.1")), Read).is_allowed());
    assert!(!a.check(&Peer::new(ip("1.1.1.1")).with_user("u@d"), Read).is_allowed());
    // An empty user is no user (Sock::setFullyQualifiedUser).
    assert!(a.check(&Peer::new(ip("1.1.1.1")).with_user(""), Read).is_allowed());
}

#[test]
fn pool_username_equivalence() {
    let on = authz(&[("ALLOW_DAEMON", "condor@pool/*")], "COLLECTOR");
    let off = authz(&[("ALLOW_DAEMON", "condor@pool/*"), ("USE_POOL_USERNAME_EQUIVALENT", "False")], "COLLECTOR");
    let peer = Peer::new(ip("1.1.1.1")).with_user("condor_pool@pool");
    assert!(on.check(&peer, Daemon).is_allowed());
    assert!(!off.check(&peer, Daemon).is_allowed());
    // And the other way round.
    let on = authz(&[("ALLOW_DAEMON", "CONDOR_POOL@pool/*")], "COLLECTOR");
    assert!(on.check(&Peer::new(ip("1.1.1.1")).with_user("condor@POOL"), Daemon).is_allowed());
}

#[test]
fn subsystem_forms() {
    let pairs = [
        ("ALLOW_READ", "*/10.0.0.0/8"),
        ("ALLOW_READ_COLLECTOR", "*/192.168.0.0/16"),
        ("COLLECTOR.ALLOW_WRITE", "*/172.16.0.0/12"),
        ("ALLOW_WRITE", "*/10.0.0.0/8"),
    ];
    let map: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let plain = |k: &str| map.get(k).cloned();
    let prefixed = with_subsystem_prefix("collector", plain);
    let a = Authorizer::from_config(&prefixed, &AuthzConfig::for_subsystem("collector")).unwrap();
    assert_eq!(a.allow_knob(Read), Some("ALLOW_READ_COLLECTOR"));
    assert!(a.check(&Peer::new(ip("192.168.1.1")), Read).is_allowed());
    assert!(!a.check(&Peer::new(ip("10.1.1.1")), Read).is_allowed());
    // COLLECTOR.ALLOW_WRITE shadows ALLOW_WRITE through the prefix lookup.
    assert!(a.check(&Peer::new(ip("172.16.1.1")), Write).is_allowed());
    assert!(!a.check(&Peer::new(ip("10.1.1.1")), Write).is_allowed());
    // A negotiator does not see ALLOW_READ_COLLECTOR.
    let n = Authorizer::from_config(&plain, &AuthzConfig::for_subsystem("NEGOTIATOR")).unwrap();
    assert!(n.check(&Peer::new(ip("10.1.1.1")), Read).is_allowed());
}

#[test]
fn hostnames_only_when_supplied() {
    let a = authz(&[("ALLOW_READ", "*.example.org, other.host"), ("DENY_READ", "*/bad.example.org")], "COLLECTOR");
    let none = Peer::new(ip("10.0.0.1"));
    assert!(!a.check(&none, Read).is_allowed());
    let names = vec!["node1.example.org".to_string()];
    assert!(a.check(&Peer::new(ip("10.0.0.1")).with_hostnames(&names), Read).is_allowed());
    let bad = vec!["x".to_string(), "bad.example.org".to_string()];
    let d = a.check(&Peer::new(ip("10.0.0.1")).with_hostnames(&bad), Read);
    assert_eq!(d.reason(), "READ authorization policy denies hostname bad.example.org");
}

#[test]
fn local_ips_entry() {
    let lookup = |k: &str| (k == "ALLOW_ADMINISTRATOR").then(|| "{:local_ips:}".to_string());
    let mut cfg = AuthzConfig::for_subsystem("NEGOTIATOR");
    cfg.local_ips = vec![ip("192.0.2.7")];
    let a = Authorizer::from_config(&lookup, &cfg).unwrap();
    assert!(a.check(&Peer::new(ip("127.0.0.1")), Administrator).is_allowed());
    assert!(a.check(&Peer::new(ip("192.0.2.7")), Administrator).is_allowed());
    assert!(!a.check(&Peer::new(ip("192.0.2.8")), Administrator).is_allowed());
}

#[test]
fn ipv4_mapped_peers_are_ipv4() {
    let a = authz(&[("ALLOW_READ", "*/10.0.0.0/8")], "COLLECTOR");
    assert!(a.check(&Peer::new(ip("::ffff:10.1.2.3")), Read).is_allowed());
}

#[test]
fn netgroups_never_match() {
    let a = authz(&[("ALLOW_READ", "+admins")], "COLLECTOR");
    assert!(!a.check(&Peer::new(ip("10.0.0.1")), Read).is_allowed());
    assert!(Entry::parse("+admins").is_netgroup());
}

#[test]
fn claimtobe_limit() {
    // A CLAIMTOBE session opened by an UPDATE_STARTD_AD may run
    // ADVERTISE_STARTD and READ commands only (daemon_command.cpp 1223).
    let limit = AuthorizationLimit::for_claimtobe(AdvertiseStartd);
    assert_eq!(limit.to_attribute(), "ADVERTISE_STARTD,READ");
    let a = authz(&[("ALLOW_DAEMON", "*"), ("ALLOW_READ", "*")], "COLLECTOR");
    let peer = Peer::new(ip("127.0.0.1")).with_user("condor").with_limit(&limit);
    assert!(a.check(&peer, AdvertiseStartd).is_allowed());
    assert!(a.check(&peer, Read).is_allowed());
    let d = a.check(&peer, Daemon);
    assert!(!d.is_allowed());
    assert_eq!(
        d.reason(),
        "authorization of condor is limited to ADVERTISE_STARTD,READ, which does not include DAEMON"
    );
    // DAEMON's limit includes WRITE and READ.
    assert_eq!(AuthorizationLimit::for_claimtobe(Daemon).to_attribute(), "DAEMON,WRITE,READ");
}

#[test]
fn limit_with_alternates_and_allow() {
    let a =
        authz(&[("ALLOW_DAEMON", "*"), ("ALLOW_ADVERTISE_SCHEDD", "*"), ("ALLOW_ADMINISTRATOR", "*")], "NEGOTIATOR");
    let resched = negotiator_command(421).unwrap();
    let limit = AuthorizationLimit::parse("ADVERTISE_SCHEDD").unwrap();
    let peer = Peer::new(ip("127.0.0.1")).with_user("s@x").with_limit(&limit);
    assert!(a.check_command(&peer, resched.perm, resched.alternates).is_allowed());
    // UPDATE_OWN_SUBMITTOR_AD has ALLOW as its alternate: any limit passes.
    let own = collector_command(80).unwrap();
    let nothing = AuthorizationLimit::parse("BOGUS").unwrap();
    assert!(nothing.effective().is_empty());
    assert!(nothing.permits(own.perm, own.alternates));
    assert!(!nothing.permits(Read, &[]));
}

#[test]
fn alternates_without_limit() {
    // DAEMON denied, ADMINISTRATOR allowed: RESCHEDULE passes on its alternate.
    let a = authz(&[("ALLOW_ADMINISTRATOR", "root@x/*")], "NEGOTIATOR");
    let resched = negotiator_command(421).unwrap();
    let root = Peer::new(ip("127.0.0.1")).with_user("root@x");
    let d = a.check_command(&root, resched.perm, resched.alternates);
    assert!(d.is_allowed(), "{}", d.reason());
    let other = Peer::new(ip("127.0.0.1")).with_user("u@x");
    let d = a.check_command(&other, resched.perm, resched.alternates);
    // The primary level's reason is reported, as daemon core logs it.
    assert_eq!(d.reason(), "DAEMON authorization policy denies all access");
}

#[test]
fn token_scopes() {
    assert_eq!(AuthorizationLimit::from_token_scope("openid profile").unwrap(), None);
    assert_eq!(AuthorizationLimit::from_token_scope("").unwrap(), None);
    let l = AuthorizationLimit::from_token_scope("condor:/READ condor:/WRITE,condor:/nonsense").unwrap().unwrap();
    assert_eq!(l.to_attribute(), "READ,WRITE");
    // A condor:/ scope naming no level still limits: nothing but ALLOW.
    let l = AuthorizationLimit::from_token_scope("condor:/FOO").unwrap().unwrap();
    assert!(l.effective().is_empty());
    assert!(l.permits(Allow, &[]));
    let long = "condor:/READ ".repeat(1000);
    assert_eq!(AuthorizationLimit::from_token_scope(&long).unwrap_err().kind(), ErrorKind::LimitExceeded);
}

#[test]
fn identities() {
    let cfg = IdentityConfig::with_uid_domain("Pool.Example");
    let claim = Identity::resolve(AuthMethod::ClaimToBe, "alice", None, &cfg);
    assert_eq!((claim.fqu().as_str(), claim.domain()), ("alice", None));
    let mut inc = cfg.clone();
    inc.claimtobe_include_domain = true;
    assert_eq!(Identity::resolve(AuthMethod::ClaimToBe, "alice", None, &inc).fqu(), "alice@pool.example");
    assert_eq!(Identity::resolve(AuthMethod::ClaimToBe, "alice@Other", None, &inc).fqu(), "alice@other");
    assert_eq!(Identity::resolve(AuthMethod::Fs, "bob", None, &cfg).fqu(), "bob@pool.example");
    let tok = Identity::resolve(AuthMethod::IdTokens, "condor@Pool.Example", None, &cfg);
    assert_eq!((tok.user(), tok.domain()), ("condor", Some("pool.example")));
    assert_eq!(Identity::resolve(AuthMethod::IdTokens, "nodomain", None, &cfg).fqu(), "nodomain");
    // The map file applies to CLAIMTOBE and FS, not to IDTOKENS.
    let map =
        MapFile::parse("CLAIMTOBE (.*) \\1\nFS ^bob$ robert@Elsewhere\nIDTOKENS .* x", &MapFileOptions::default())
            .unwrap();
    let c = Identity::resolve(AuthMethod::ClaimToBe, "alice", Some(&map), &cfg);
    assert_eq!(c.fqu(), "alice@pool.example");
    assert!(c.is_mapped());
    assert_eq!(Identity::resolve(AuthMethod::Fs, "bob", Some(&map), &cfg).fqu(), "robert@elsewhere");
    let t = Identity::resolve(AuthMethod::IdTokens, "a@b", Some(&map), &cfg);
    assert!(!t.is_mapped());
    assert_eq!(AuthMethod::from_name("token"), Some(AuthMethod::IdTokens));
    assert_eq!(AuthMethod::from_name("SSL"), None);
}

#[test]
fn mapfile_parse_without_files() {
    let map = MapFile::parse("@include x\nFS a b", &MapFileOptions::default()).unwrap();
    assert_eq!(map.len(), 1);
    assert_eq!(map.skipped()[0].0, 1);
    // Lines over the bound are skipped, files over the bound refused.
    let long = format!("FS {} x\nFS a b", "a".repeat(MAX_MAPFILE_LINE_LEN));
    let map = MapFile::parse(&long, &MapFileOptions::default()).unwrap();
    assert_eq!(map.len(), 1);
    let many = "# comment\n".repeat(MAX_MAPFILE_LINES + 1);
    assert_eq!(MapFile::parse(&many, &MapFileOptions::default()).unwrap_err().kind(), ErrorKind::LimitExceeded);
}

#[test]
fn mapfile_include_directory() {
    let dir = std::env::temp_dir().join(format!("cedar-authz-{}", std::process::id()));
    let sub = dir.join("map.d");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(dir.join("main"), "@include map.d\nFS ^z$ main\n").unwrap();
    std::fs::write(sub.join("20-b"), "FS ^z$ second\n").unwrap();
    std::fs::write(sub.join("10-a"), "FS ^y$ first\n@include ../main\n").unwrap();
    std::fs::write(sub.join("30-c~"), "FS ^z$ backup\n").unwrap();
    let map = MapFile::load(&dir.join("main"), &MapFileOptions::default()).unwrap();
    assert_eq!(map.canonicalize("FS", "y").as_deref(), Some("first"));
    assert_eq!(map.canonicalize("FS", "z").as_deref(), Some("second"));
    assert!(map.skipped().iter().any(|(_, w)| w.contains("@include")));
    assert_eq!(MapFile::load(&dir.join("missing"), &MapFileOptions::default()).unwrap_err().kind(), ErrorKind::Io);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn list_bounds() {
    let many = "a@b ".repeat(MAX_LIST_ENTRIES + 1);
    assert_eq!(parse_list(&many).unwrap_err().kind(), ErrorKind::LimitExceeded);
    let long = "a".repeat(MAX_ENTRY_LEN + 1);
    assert_eq!(parse_list(&long).unwrap_err().kind(), ErrorKind::LimitExceeded);
    let lookup = |k: &str| (k == "ALLOW_READ").then(|| many.clone());
    let err = Authorizer::from_config(&lookup, &AuthzConfig::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
}

#[test]
fn entry_splitting() {
    // split_entry's cases (condor_ipverify.cpp 496-551).
    let cases = [
        ("*", "*", "*"),
        ("alice@x", "alice@x", "*"),
        ("host.example", "*", "host.example"),
        ("10.0.0.0/8", "*", "10.0.0.0/8"),
        ("*/10.0.0.1", "*", "10.0.0.1"),
        ("a@b/host", "a@b", "host"),
        ("a@b/10.0.0.0/8", "a@b", "10.0.0.0/8"),
        ("user/host", "user", "host"),
        ("x/y/z", "x", "y/z"),
        ("*/*", "*", "*"),
    ];
    for (text, user, host) in cases {
        let e = Entry::parse(text);
        assert_eq!((e.user(), e.host_text()), (user, host), "{text}");
    }
}

#[test]
fn pcre_only_syntax_is_skipped() {
    // Back-references and look-around are PCRE2 features the regex crate
    // lacks: such rules are skipped (HTCondor would use them).
    let text = "FS ^(a)\\1$ backref\nFS ^(?=x)x$ lookahead\nFS ^(?i)CASE$ ok-\\0\nFS ^x*?y$ lazy";
    let map = MapFile::parse(text, &MapFileOptions::default()).unwrap();
    assert_eq!(map.len(), 2);
    assert_eq!(map.skipped().len(), 2);
    assert_eq!(map.canonicalize("FS", "aa"), None);
    assert_eq!(map.canonicalize("FS", "case").as_deref(), Some("ok-case"));
    assert_eq!(map.canonicalize("FS", "xxy").as_deref(), Some("lazy"));
}
