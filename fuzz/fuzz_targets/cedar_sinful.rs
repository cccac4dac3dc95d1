//! Sinful strings and HTCondor version strings on arbitrary text. A
//! sinful that parses prints to a string that parses back equal; a version
//! that parses prints to one that parses back equal and compares the same.
#![no_main]

use cedar::sinful::Sinful;
use cedar::version::{parse_peer_version, Version};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(s) = text.parse::<Sinful>() {
        let printed = s.to_string();
        let back: Sinful = match printed.parse() {
            Ok(b) => b,
            Err(e) => panic!("{text:?} printed as {printed:?}, which does not parse: {e}"),
        };
        assert_eq!(back, s, "{text:?} -> {printed:?}");
        let _ = (s.socket_addr(), s.addrs(), s.shared_port_id(), s.ccb_id(), s.alias(), s.no_udp());
    }
    if let Ok(v) = text.parse::<Version>() {
        let printed = v.to_string();
        if let Ok(back) = printed.parse::<Version>() {
            assert_eq!(back.scalar(), v.scalar(), "{text:?} -> {printed:?}");
            assert_eq!(back.built_since(23, 9, 6), v.built_since(23, 9, 6));
        }
        let _ = v.is_stable_series();
    }
    let _ = parse_peer_version(Some(text));
});
