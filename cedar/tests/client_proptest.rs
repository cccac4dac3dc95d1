//! No message a server sends makes the client's handshake panic, whatever
//! state it is in: random bytes and random response ads, fed to
//! `StartCommand` after its first message, after a response ad, after an
//! authentication method was chosen.

#![allow(clippy::unwrap_used)] // test helpers; the rules allow unwrap in tests

use cedar::client::{ClientConfig, ClientSession, StartCommand, Step};
use cedar::command::QUERY_STARTD_ADS;
use cedar::policy::AuthMethod;
use cedar::wire::{Encoder, Message};
use classad::ClassAd;
use proptest::prelude::*;

fn message(ad: &ClassAd) -> Message {
    let mut enc = Encoder::new(false);
    cedar::wire::ad::put_classad(&mut enc, ad, &Default::default()).unwrap();
    Message { payload: enc.into_bytes(), encrypted: false }
}

fn int_message(v: i64) -> Message {
    let mut enc = Encoder::new(false);
    enc.put_int(v);
    Message { payload: enc.into_bytes(), encrypted: false }
}

/// Drives `start` with `messages` until it errs, is ready or runs out.
fn drive(mut start: StartCommand, messages: Vec<Message>) {
    let mut messages = messages.into_iter();
    let mut step = start.poll();
    for _ in 0..64 {
        match step {
            Ok(Step::Read) => match messages.next() {
                Some(m) => step = start.on_message(m),
                None => return,
            },
            Ok(Step::Send(_)) | Ok(Step::SwitchOn(_)) => step = start.poll(),
            _ => return,
        }
    }
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\"YES\"".to_string()),
        Just("\"NO\"".to_string()),
        Just("\"AES\"".to_string()),
        Just("\"CLAIMTOBE,TOKEN\"".to_string()),
        Just("false".to_string()),
        Just("\"AUTHORIZED\"".to_string()),
        Just("\"SID_NOT_FOUND\"".to_string()),
        Just(
            "\"BDqAOIqVQ8KiScMM7L50/PHfnSvF1FB94VFcUNSIKWFb/pweosQDpIXi8YquKF26p5UNNN2d+qj83PtUjELLCK0=\"".to_string()
        ),
        Just("\"5,6,notanumber,,\"".to_string()),
        Just("\"\"".to_string()),
        any::<i64>().prop_map(|i| i.to_string()),
        "[ -~]{0,12}".prop_map(|s| format!("{s:?}")),
    ]
}

fn ad() -> impl Strategy<Value = ClassAd> {
    let names = prop_oneof![
        Just("Authentication"),
        Just("Encryption"),
        Just("Integrity"),
        Just("AuthMethodsList"),
        Just("CryptoMethods"),
        Just("ECDHPublicKey"),
        Just("AuthRequired"),
        Just("SessionDuration"),
        Just("SessionLease"),
        Just("ReturnCode"),
        Just("Sid"),
        Just("ValidCommands"),
        Just("RemoteVersion"),
        Just("TrustDomain"),
        Just("IssuerKeys"),
    ];
    proptest::collection::vec((names, value()), 0..12).prop_map(|pairs| {
        let text: Vec<String> = pairs.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        format!("[{}]", text.join(";")).parse().unwrap_or_default()
    })
}

fn any_message() -> impl Strategy<Value = Message> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200).prop_map(|payload| Message { payload, encrypted: false }),
        ad().prop_map(|a| message(&a)),
        any::<i64>().prop_map(int_message),
        (0i64..4096).prop_map(int_message),
    ]
}

fn m1_config() -> ClientConfig {
    let mut c = ClientConfig::authenticated(&[AuthMethod::Claimtobe, AuthMethod::Token]);
    c.claim_to_be_user = Some("alice".into());
    c.tokens =
        vec![std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/token/condor.jwt")).unwrap()];
    c
}

proptest! {
    #[test]
    fn new_sessions_never_panic(messages in proptest::collection::vec(any_message(), 0..6)) {
        drive(StartCommand::new(&ClientConfig::default(), "<127.0.0.1:1>", QUERY_STARTD_ADS, None), messages.clone());
        drive(StartCommand::new(&m1_config(), "<127.0.0.1:1>", QUERY_STARTD_ADS, None), messages);
    }

    #[test]
    fn authentication_never_panics(messages in proptest::collection::vec(any_message(), 0..6)) {
        // A response that starts authentication, then anything.
        let response: ClassAd = r#"[ Authentication = "YES"; Encryption = "YES"; Integrity = "YES";
            AuthMethodsList = "CLAIMTOBE,TOKEN"; CryptoMethods = "AES"; TrustDomain = "anchor.local";
            IssuerKeys = "POOL"; ECDHPublicKey = "BDqAOIqVQ8KiScMM7L50/PHfnSvF1FB94VFcUNSIKWFb/pweosQDpIXi8YquKF26p5UNNN2d+qj83PtUjELLCK0=" ]"#
            .parse()
            .unwrap();
        for first in [2i64, 2048] {
            let mut all = vec![message(&response), int_message(first)];
            all.extend(messages.iter().cloned());
            drive(StartCommand::new(&m1_config(), "<127.0.0.1:1>", QUERY_STARTD_ADS, None), all);
        }
    }

    #[test]
    fn resumption_never_panics(messages in proptest::collection::vec(any_message(), 0..3)) {
        let now = std::time::Instant::now();
        let session = ClientSession {
            id: "s".into(),
            connect_addr: "<127.0.0.1:1>".into(),
            server_version: Some("$CondorVersion: 23.9.6 2024-08-08 BuildID: 0 $".into()),
            my_remote_user: None,
            auth_method: None,
            encryption: true,
            key: Some(cedar::crypto::SessionKey::from_bytes([1; 32])),
            valid_commands: vec![5],
            expires: None,
            lease: None,
            last_used: now,
        };
        drive(StartCommand::new(&ClientConfig::default(), "<127.0.0.1:1>", QUERY_STARTD_ADS, Some(&session)), messages);
    }
}
