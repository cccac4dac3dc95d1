//! Sinful strings, version strings and command numbers.

use cedar::sinful::Sinful;
use cedar::version::{Version, OUR_VERSION};
use cedar::{command, ErrorKind};
use proptest::prelude::*;

#[test]
fn sinful_strings_from_a_real_pool() {
    // As a 23.9 schedd advertises itself behind shared port.
    let text = "<127.0.0.1:9618?addrs=127.0.0.1-9618+[--1]-9618&alias=vm&noUDP&sock=schedd_1234_abcd>";
    let s: Sinful = text.parse().unwrap();
    assert_eq!((s.host(), s.port()), ("127.0.0.1", 9618));
    assert_eq!(s.shared_port_id(), Some("schedd_1234_abcd"));
    assert!(s.no_udp());
    assert_eq!(s.to_string(), text);
    // The IPv6 item in this list uses C++'s '-' for ':' and does not parse;
    // the IPv4 one does.
    assert_eq!(s.addrs(), ["127.0.0.1:9618".parse().unwrap()]);

    let v6: Sinful = "<[::1]:9618>".parse().unwrap();
    assert_eq!(v6.host(), "::1");
    assert_eq!(v6.to_string(), "<[::1]:9618>");
    assert_eq!(v6.socket_addr(), Some("[::1]:9618".parse().unwrap()));
}

#[test]
fn bad_sinful_strings_are_errors() {
    for bad in ["", "<>", "127.0.0.1:9618", "<127.0.0.1>", "<127.0.0.1:99999>", "<:9618>", "<127.0.0.1:96x18>"] {
        assert_eq!(bad.parse::<Sinful>().unwrap_err().kind(), ErrorKind::Malformed, "{bad}");
    }
    let long = format!("<h:1?{}>", "a&".repeat(5000));
    assert_eq!(long.parse::<Sinful>().unwrap_err().kind(), ErrorKind::LimitExceeded);
    let many = format!("<h:1?{}>", (0..100).map(|i| format!("k{i}")).collect::<Vec<_>>().join("&"));
    assert_eq!(many.parse::<Sinful>().unwrap_err().kind(), ErrorKind::LimitExceeded);
}

#[test]
fn sinful_parameters_are_escaped() {
    let s = Sinful::new("10.0.0.1", 1).with_param("alias", Some("a&b=c")).with_param("noUDP", None);
    assert_eq!(s.to_string(), "<10.0.0.1:1?alias=a%26b%3Dc&noUDP>");
    let back: Sinful = s.to_string().parse().unwrap();
    assert_eq!(back.alias(), Some("a&b=c"));
}

proptest! {
    #[test]
    fn sinful_parsing_never_panics(s in "\\PC{0,80}") {
        let _ = s.parse::<Sinful>();
        let _ = format!("<{s}>").parse::<Sinful>();
    }

    #[test]
    fn sinful_round_trips(a in 0u8.., b in 0u8.., port in any::<u16>(), alias in "[a-z&=%.]{0,10}", sock in proptest::option::of("[a-z0-9_]{1,10}")) {
        let mut s = Sinful::new(format!("10.{a}.{b}.1"), port).with_param("alias", Some(&alias));
        if let Some(sock) = &sock {
            s.set_param("sock", Some(sock));
        }
        let back: Sinful = s.to_string().parse().unwrap();
        prop_assert_eq!(&back, &s);
    }

    #[test]
    fn version_parsing_never_panics(s in "\\PC{0,60}") {
        let _ = s.parse::<Version>();
        let _ = format!("$CondorVersion: {s}").parse::<Version>();
    }
}

#[test]
fn versions_as_condor_version_info_reads_them() {
    let wheel: Version = "$CondorVersion: 23.10.29 2025-09-23 BuildID: UW_Python_Wheel_Build $".parse().unwrap();
    assert_eq!((wheel.major, wheel.minor, wheel.subminor), (23, 10, 29));
    assert_eq!(wheel.scalar(), 23_010_029);
    assert_eq!(wheel.rest(), "2025-09-23 BuildID: UW_Python_Wheel_Build");
    let ours: Version = OUR_VERSION.parse().unwrap();
    assert!(wheel > ours);
    assert!(ours.built_since(23, 2, 0) && ours.built_since(9, 9, 0) && !ours.built_since(23, 9, 7));
    // Printing gives the string back.
    assert_eq!(ours.to_string(), OUR_VERSION);
    // The same numbers with another build compare by number first.
    let other: Version = "$CondorVersion: 23.9.6 2024-01-01 other $".parse().unwrap();
    assert_eq!(other.scalar(), ours.scalar());
}

#[test]
fn versions_condor_version_info_refuses() {
    for bad in [
        "23.9.6",                       // no prefix
        "$CondorVersion: 5.9.6 x $",    // before Condor 6
        "$CondorVersion: 23.100.6 x $", // minor over 99
        "$CondorVersion: 23.9.100 x $", // subminor over 99
        "$CondorVersion: 23.9 x $",     // two numbers
        "$CondorVersion: 23.9.6",       // nothing after the numbers
    ] {
        assert!(bad.parse::<Version>().is_err(), "{bad}");
    }
    // sscanf's %d takes leading blanks and a sign; the rest starts after
    // the first space past the colon's, wherever it is (here inside the
    // numbers), and may lack " $".
    let v: Version = "$CondorVersion: 23.+9. 6 rest".parse().unwrap();
    assert_eq!((v.major, v.minor, v.subminor, v.rest()), (23, 9, 6, "6 rest"));
}

#[test]
fn command_numbers_of_condor_commands_h() {
    use command::*;
    let expected = [
        (UPDATE_STARTD_AD, 0),
        (QUERY_STARTD_ADS, 5),
        (QUERY_STARTD_PVT_ADS, 10),
        (UPDATE_SUBMITTOR_AD, 11),
        (INVALIDATE_SUBMITTOR_ADS, 18),
        (QUERY_ANY_ADS, 48),
        (QUERY_MULTIPLE_PVT_ADS, 54),
        (UPDATE_STARTD_AD_WITH_ACK, 60),
        (QUERY_GENERIC_ADS, 74),
        (SHARED_PORT_CONNECT, 75),
        (UPDATE_ACCOUNTING_AD, 77),
        (INVALIDATE_ACCOUNTING_ADS, 79),
        (NEGOTIATE, 416),
        (SEND_JOB_INFO, 417),
        (NO_MORE_JOBS, 418),
        (JOB_INFO, 419),
        (RESCHEDULE, 421),
        (END_NEGOTIATE, 425),
        (REJECTED, 426),
        (MATCH_INFO, 440),
        (SET_PRIORITY, 449),
        (GET_PRIORITY, 451),
        (RESET_USAGE, 458),
        (SET_PRIORITYFACTOR, 459),
        (RESET_ALL_USAGE, 460),
        (GET_RESLIST, 463),
        (PERMISSION_AND_AD, 472),
        (REJECTED_WITH_REASON, 476),
        (DELETE_USER, 482),
        (SET_ACCUMUSAGE, 494),
        (SET_BEGINTIME, 495),
        (SET_LASTTIME, 496),
        (GET_PRIORITY_ROLLUP_OLD, 512),
        (GET_PRIORITY_ROLLUP, 514),
        (SEND_RESOURCE_REQUEST_LIST, 518),
        (SET_CEILING, 525),
        (SET_FLOOR, 530),
        (DC_AUTHENTICATE, 60010),
        (DC_NOP, 60011),
        (DC_INVALIDATE_KEY, 60014),
        (DC_SEC_QUERY, 60040),
    ];
    for (got, want) in expected {
        assert_eq!(got, want, "{:?}", command::name(got));
    }
    // Names and numbers are one to one.
    for (n, name) in ALL {
        assert_eq!(command::by_name(name), Some(*n));
        assert_eq!(command::name(*n), Some(*name));
    }
}
