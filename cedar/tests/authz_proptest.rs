//! No input makes the authorization code panic, and a few invariants hold
//! for arbitrary lists, peers and map files.

#![allow(clippy::unwrap_used)] // test helpers; the rules allow unwrap in tests

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use cedar::authz::*;
use proptest::prelude::*;

fn entry_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[*a-z@._/0-9:+{}-]{0,40}",
        (0u8..=255, 0u8..=255, 0u8..=40).prop_map(|(a, b, m)| format!("*/{a}.{b}.0.0/{m}")),
        "[a-z*]{0,6}@[a-z*.]{0,10}/[0-9*.]{0,15}",
        any::<String>(),
    ]
}

fn peer_ip() -> impl Strategy<Value = IpAddr> {
    prop_oneof![
        any::<u32>().prop_map(|v| IpAddr::V4(Ipv4Addr::from(v))),
        any::<u128>().prop_map(|v| IpAddr::V6(Ipv6Addr::from(v))),
        Just(IpAddr::V4(Ipv4Addr::LOCALHOST)),
    ]
}

proptest! {
    #[test]
    fn no_panic_on_any_policy(
        allow in proptest::collection::vec(entry_text(), 0..6),
        deny in proptest::collection::vec(entry_text(), 0..3),
        level in 0u8..13,
        ip in peer_ip(),
        user in proptest::option::of("[a-zA-Z_*@.]{0,20}"),
        names in proptest::collection::vec("[a-z.*]{0,20}", 0..3),
        scope in proptest::option::of("[a-zA-Z:/_ ,]{0,40}"),
    ) {
        let allow = allow.join(", ");
        let deny = deny.join(" ");
        let perm = Permission::from_number(level).unwrap();
        let knob_allow = format!("ALLOW_{}", perm.name());
        let knob_deny = format!("DENY_{}", perm.name());
        let lookup = |k: &str| {
            if k == knob_allow { Some(allow.clone()) } else if k == knob_deny { Some(deny.clone()) } else { None }
        };
        let a = Authorizer::from_config(&lookup, &AuthzConfig::for_subsystem("COLLECTOR")).unwrap();
        let limit = scope.as_deref().and_then(|s| AuthorizationLimit::from_token_scope(s).unwrap());
        let mut peer = Peer::new(ip).with_hostnames(&names);
        if let Some(u) = user.as_deref() { peer = peer.with_user(u); }
        if let Some(l) = limit.as_ref() { peer = peer.with_limit(l); }
        for p in Permission::ALL {
            let d = a.check(&peer, p);
            prop_assert!(!d.reason().is_empty());
            // ALLOW-level commands always pass, whatever the lists or limit.
            if p == Permission::Allow { prop_assert!(d.is_allowed()); }
        }
    }

    #[test]
    fn deny_star_denies_everyone(ip in peer_ip(), user in "[a-z@.]{0,12}", level in 1u8..13) {
        let perm = Permission::from_number(level).unwrap();
        let knob = format!("DENY_{}", perm.name());
        let lookup = |k: &str| (k == knob || k.starts_with("ALLOW_")).then(|| "*".to_string());
        let a = Authorizer::from_config(&lookup, &AuthzConfig::default()).unwrap();
        prop_assert!(!a.check(&Peer::new(ip).with_user(&user), perm).is_allowed());
    }

    #[test]
    fn host_patterns_never_panic(text in any::<String>(), ip in peer_ip(), name in any::<String>()) {
        let p = HostPattern::parse(&text);
        let _ = p.matches_ip(ip, &[]);
        let _ = p.matches_name(&name);
        let _ = Entry::parse(&text);
    }

    #[test]
    fn wildcards(pattern in "[a-c*]{0,8}", name in "[a-c]{0,10}") {
        let anchored = wildcard_matches(&pattern, &name);
        let quirk = wildcard_matches_htcondor_23_9(&pattern, &name);
        // The anchored matcher accepts a subset of what 23.9.6 accepts.
        prop_assert!(!anchored || quirk, "{pattern} {name}");
        if !pattern.contains('*') { prop_assert_eq!(anchored, pattern == name); }
        prop_assert!(wildcard_matches("*", &name));
    }

    #[test]
    fn networks_contain_their_base(a in any::<u32>(), bits in 0u8..=32) {
        let base = Ipv4Addr::from(a);
        let p = HostPattern::parse(&format!("{base}/{bits}"));
        prop_assert!(p.matches_ip(IpAddr::V4(base), &[]));
        // Flipping a bit inside the prefix leaves the network.
        if bits > 0 {
            let flipped = Ipv4Addr::from(a ^ (1 << (32 - u32::from(bits))));
            prop_assert!(!p.matches_ip(IpAddr::V4(flipped), &[]));
        }
    }

    #[test]
    fn mapfiles_never_panic(text in proptest::collection::vec("[A-Za-z\" \\\\/()*.^$@0-9]{0,30}", 0..8), name in "[a-z@.]{0,12}", hash in any::<bool>()) {
        let opts = MapFileOptions::default().with_assume_hash_keys(hash);
        let map = MapFile::parse(&text.join("\n"), &opts).unwrap();
        for m in ["FS", "CLAIMTOBE", "IDTOKENS"] {
            if let Some(c) = map.canonicalize(m, &name) {
                prop_assert!(c.len() <= MAX_CANONICAL_LEN + 4);
            }
        }
    }

    #[test]
    fn limits_never_panic(s in any::<String>()) {
        let _ = AuthorizationLimit::parse(&s);
        let _ = AuthorizationLimit::from_token_scope(&s);
    }
}
