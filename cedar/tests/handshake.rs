//! The server side of the handshake, sans-IO, fed the security ads the real
//! C++ client sent (tests/data/handshake, captured from the htcondor wheel
//! by capture.py there).

use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use cedar::authz::{Authorizer, AuthzConfig, Permission};
use cedar::command::{DC_AUTHENTICATE, DC_NOP, QUERY_COLLECTOR_ADS, QUERY_STARTD_ADS, UPDATE_STARTD_AD};
use cedar::handshake::session::{Session, SessionCache, SLOP};
use cedar::handshake::{
    CloseReason, CommandTable, Output, Payload, ServerConfig, ServerConnection, ServerPolicies, Step, Via,
};
use cedar::policy::SecurityPolicy;
use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::{Decoder, Encoder, Message};
use classad::format::{parse_ads, Format};
use classad::{ClassAd, Literal};

/// The attributes a resume ad carries on the wire (the captured file is
/// the client's log of its whole cached policy).
const WIRE_RESUME_ATTRS: [&str; 7] =
    ["Command", "ConnectSinful", "Nonce", "RemoteVersion", "ResumeResponse", "Sid", "UseSession"];

/// The captured resume ad, cut to what travels.
fn resume_ad() -> ClassAd {
    let logged = data("client_resume.ad");
    let mut ad = ClassAd::new();
    for name in WIRE_RESUME_ATTRS {
        if let Some(e) = logged.lookup(name) {
            ad.insert(name, e.clone());
        }
    }
    assert_eq!(ad.len(), WIRE_RESUME_ATTRS.len());
    ad
}

fn data(name: &str) -> ClassAd {
    let path = format!("{}/tests/data/handshake/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the captured ad");
    parse_ads(&text, Some(Format::Old)).expect("an old-format ad").remove(0)
}

fn table() -> CommandTable {
    CommandTable::new()
        .register(QUERY_STARTD_ADS, Permission::Read)
        .register(QUERY_COLLECTOR_ADS, Permission::Read)
        .register(UPDATE_STARTD_AD, Permission::AdvertiseStartd)
        .register(DC_NOP, Permission::Allow)
}

/// The queued output, each message decoded as one plaintext ad.
fn outgoing(s: &mut ServerConnection) -> Vec<ClassAd> {
    s.take_output()
        .into_iter()
        .map(|o| match o {
            Output::Message(bytes) => {
                let mut dec = Decoder::new(&bytes, false);
                let ad = get_classad(&mut dec, &AdLimits::default()).expect("an ad");
                dec.finish().expect("one ad per message");
                ad
            }
            other => panic!("{other:?} in a plaintext handshake"),
        })
        .collect()
}

fn server() -> ServerConnection {
    ServerConnection::new(Arc::new(ServerConfig::new(table()).hostname("test-host")), None)
}

fn authenticate(ad: &ClassAd) -> Message {
    let mut enc = Encoder::new(false);
    enc.put_int(i64::from(DC_AUTHENTICATE));
    put_classad(&mut enc, ad, &PutOptions::new()).expect("the ad encodes");
    Message { payload: enc.into_bytes(), encrypted: false }
}

/// Each attribute of `ad` with the kind of its literal value.
fn shape(ad: &ClassAd) -> Vec<(String, &'static str)> {
    let mut v: Vec<(String, &'static str)> = ad
        .iter()
        .map(|(n, e)| {
            let kind = match e.as_literal() {
                Some(Literal::Str(_)) => "string",
                Some(Literal::Int(_)) => "int",
                Some(Literal::Bool(_)) => "bool",
                _ => "other",
            };
            (n.as_str().to_owned(), kind)
        })
        .collect();
    v.sort();
    v
}

fn text(ad: &ClassAd, name: &str) -> String {
    match ad.lookup(name).and_then(|e| e.as_literal()) {
        Some(Literal::Str(s)) => s.as_str().to_owned(),
        other => panic!("{name} is {other:?}"),
    }
}

#[test]
fn a_new_session_answers_as_the_real_client_accepted() {
    let mut s = server();
    let Step::Command(req) = s.on_message(authenticate(&data("client_new_session.ad"))).unwrap() else {
        panic!("no command")
    };
    assert_eq!((req.command, req.permission, req.via), (QUERY_COLLECTOR_ADS, Permission::Read, Via::NewSession));
    assert_eq!(req.payload, Payload::NextMessage);
    assert_eq!(req.user, None);
    assert_eq!(req.peer_version.as_ref().map(|v| v.scalar()), Some(23_010_029));
    let out = outgoing(&mut s);
    assert_eq!(out.len(), 2);
    // The response ad: the same names and types as the one the real client
    // logged (and accepted) from us.
    assert_eq!(shape(&out[0]), shape(&data("server_response.ad")));
    assert_eq!(text(&out[0], "Authentication"), "NO");
    assert_eq!(text(&out[0], "SessionDuration"), "60"); // the client's 60 beats our 86400
    assert!(out[0].lookup("CryptoMethods").is_none(), "no crypto method without authentication");
    // The post-auth ad.
    assert_eq!(shape(&out[1]), shape(&data("server_post_auth.ad")));
    assert_eq!(text(&out[1], "ReturnCode"), "AUTHORIZED");
    assert_eq!(text(&out[1], "ValidCommands"), "5,20");
    assert_eq!(text(&out[1], "User"), "unauthenticated@unmapped");
    assert!(out[1].lookup("TriedAuthentication").is_none());
    let sid = text(&out[1], "Sid");
    assert!(sid.starts_with(&format!("test-host:{}:", std::process::id())), "{sid}");
    assert_eq!(req.session.as_deref(), Some(sid.as_str()));
}

#[test]
fn resuming_a_known_session_sends_authorized_and_a_nonce() {
    let config = Arc::new(ServerConfig::new(table()));
    let mut first = ServerConnection::new(config.clone(), None);
    first.on_message(authenticate(&data("client_new_session.ad"))).unwrap();
    let sid = text(&outgoing(&mut first)[1], "Sid");

    // The real client's resume ad, pointed at the session just made.
    let mut resume = resume_ad();
    resume.insert("Sid", sid.as_str());
    let mut second = ServerConnection::new(config, None);
    let Step::Command(req) = second.on_message(authenticate(&resume)).unwrap() else { panic!("no command") };
    assert_eq!((req.command, req.via), (QUERY_STARTD_ADS, Via::ResumedSession));
    assert_eq!(req.session.as_deref(), Some(sid.as_str()));
    let out = outgoing(&mut second);
    assert_eq!(out.len(), 1);
    assert_eq!(shape(&out[0]), shape(&data("server_resume.ad")));
    assert_eq!(text(&out[0], "ReturnCode"), "AUTHORIZED");
    let nonce = base64::engine::general_purpose::STANDARD.decode(text(&out[0], "Nonce")).unwrap();
    assert_eq!(nonce.len(), 33);
}

#[test]
fn resuming_an_unknown_session_is_sid_not_found() {
    let mut s = server();
    let step = s.on_message(authenticate(&resume_ad())).unwrap();
    assert!(matches!(step, Step::Close(CloseReason::SessionNotFound)), "{step:?}");
    let out = outgoing(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(shape(&out[0]), [("ReturnCode".to_owned(), "string")]);
    assert_eq!(text(&out[0], "ReturnCode"), "SID_NOT_FOUND");
    // Without ResumeResponse (pre-9.9 clients) nothing is sent.
    let mut old = resume_ad();
    old.remove("ResumeResponse");
    let mut s = server();
    s.on_message(authenticate(&old)).unwrap();
    assert!(outgoing(&mut s).is_empty());
}

#[test]
fn dc_sec_query_answers_authorization_succeeded_and_closes() {
    let mut s = server();
    let step = s.on_message(authenticate(&data("client_sec_query.ad"))).unwrap();
    assert!(matches!(step, Step::Close(CloseReason::Done)), "{step:?}");
    let out = outgoing(&mut s);
    assert_eq!(out.len(), 3);
    assert_eq!(text(&out[1], "ValidCommands"), "5,20"); // AuthCommand 5 is READ
    assert_eq!(shape(&out[2]), [("AuthorizationSucceeded".to_owned(), "bool")]);
}

#[test]
fn unknown_commands_close_without_a_word() {
    let mut ad = data("client_new_session.ad");
    ad.insert("Command", 12345i64);
    let mut s = server();
    let step = s.on_message(authenticate(&ad)).unwrap();
    assert!(matches!(step, Step::Close(CloseReason::UnknownCommand(12345))), "{step:?}");
    assert!(outgoing(&mut s).is_empty());
    let mut raw = Encoder::new(false);
    raw.put_int(999);
    let step = server().on_message(Message { payload: raw.into_bytes(), encrypted: false }).unwrap();
    assert!(matches!(step, Step::Close(CloseReason::UnknownCommand(999))));
}

#[test]
fn a_denied_new_session_says_denied() {
    let lookup = |k: &str| match k {
        "ALLOW_READ" => Some("*".to_string()),
        "DENY_READ" => Some("*/0.0.0.0".to_string()),
        _ => None,
    };
    let authz = Authorizer::from_config(&lookup, &AuthzConfig::default()).unwrap();
    let config = ServerConfig::new(table()).authorizer(authz);
    let mut s = ServerConnection::new(Arc::new(config), None);
    let step = s.on_message(authenticate(&data("client_new_session.ad"))).unwrap();
    assert!(matches!(step, Step::Close(CloseReason::Denied(QUERY_COLLECTOR_ADS, _))), "{step:?}");
    let out = outgoing(&mut s);
    assert_eq!(text(&out[1], "ReturnCode"), "DENIED");
}

#[test]
fn a_client_requiring_authentication_gets_no_reply() {
    let mut ad = data("client_new_session.ad");
    ad.insert("Authentication", "REQUIRED");
    let mut s = server();
    let step = s.on_message(authenticate(&ad)).unwrap();
    assert!(matches!(step, Step::Close(CloseReason::Policy(_))), "{step:?}");
    assert!(outgoing(&mut s).is_empty());
}

#[test]
fn raw_commands_carry_their_payload_and_follow_on_commands_keep_the_session() {
    let config = Arc::new(ServerConfig::new(table()));
    let mut s = ServerConnection::new(config, None);
    // A raw command on a fresh connection: unknown peer version.
    let mut raw = Encoder::new(false);
    raw.put_int(i64::from(QUERY_STARTD_ADS));
    raw.put_int(42);
    let Step::Command(req) = s.on_message(Message { payload: raw.into_bytes(), encrypted: false }).unwrap() else {
        panic!()
    };
    assert_eq!(req.via, Via::Raw);
    assert_eq!(req.payload, Payload::Inline(42i64.to_be_bytes().to_vec(), false));
    assert!(req.peer_version.is_none() && req.session.is_none());
    // Then a handshake, then a follow-on raw command under its session.
    let mut update = data("client_new_session.ad");
    update.insert("Command", i64::from(UPDATE_STARTD_AD));
    let Step::Command(first) = s.on_message(authenticate(&update)).unwrap() else { panic!() };
    let mut follow = Encoder::new(false);
    follow.put_int(i64::from(UPDATE_STARTD_AD));
    let Step::Command(next) = s.on_message(Message { payload: follow.into_bytes(), encrypted: false }).unwrap() else {
        panic!()
    };
    assert_eq!(next.via, Via::Raw);
    assert_eq!(next.session, first.session);
    assert_eq!(next.peer_version.map(|v| v.scalar()), Some(23_010_029));
    // DC_NOP hangs up.
    let mut nop = Encoder::new(false);
    nop.put_int(i64::from(DC_NOP));
    let step = s.on_message(Message { payload: nop.into_bytes(), encrypted: false }).unwrap();
    assert!(matches!(step, Step::Close(CloseReason::Nop)));
    assert!(s.on_message(Message { payload: vec![0; 8], encrypted: false }).is_err());
}

#[test]
fn session_only_and_bad_messages() {
    let mut ad = data("client_new_session.ad");
    ad.insert("Command", i64::from(DC_AUTHENTICATE));
    ad.insert("AuthCommand", i64::from(QUERY_STARTD_ADS));
    let mut s = server();
    assert!(matches!(s.on_message(authenticate(&ad)).unwrap(), Step::Close(CloseReason::Done)));
    assert_eq!(outgoing(&mut s).len(), 2);
    // Bytes after the client's ad, a truncated ad, an empty message: errors.
    let mut m = authenticate(&data("client_new_session.ad"));
    m.payload.push(0);
    assert!(server().on_message(m).is_err());
    let m = authenticate(&data("client_new_session.ad"));
    let cut = Message { payload: m.payload[..m.payload.len() / 2].to_vec(), encrypted: false };
    assert!(server().on_message(cut).is_err());
    assert!(server().on_message(Message { payload: vec![], encrypted: false }).is_err());
    // A cookie we never handed out.
    let mut ad = data("client_new_session.ad");
    ad.insert("Cookie", "x");
    assert!(matches!(server().on_message(authenticate(&ad)).unwrap(), Step::Close(CloseReason::Denied(..))));
}

#[test]
fn sessions_expire_after_duration_plus_slop_and_after_their_lease() {
    let t0 = Instant::now();
    let mut cache = SessionCache::new(2);
    cache.insert(Session::new("a".into(), t0, Duration::from_secs(60), Some(Duration::from_secs(10))), t0);
    assert!(cache.resume("a", t0 + Duration::from_secs(29)).is_some()); // lease 10 + 20 slop
    assert!(cache.resume("a", t0 + Duration::from_secs(58)).is_some()); // renewed at 29
    assert!(cache.resume("a", t0 + Duration::from_secs(89)).is_none()); // past 60 + 20
    assert!(cache.is_empty());
    cache.insert(Session::new("b".into(), t0, Duration::from_secs(60), None), t0);
    assert!(cache.resume("b", t0 + Duration::from_secs(60) + SLOP - Duration::from_secs(1)).is_some());
    // The cache is bounded: a third session pushes one out.
    cache.insert(Session::new("c".into(), t0, Duration::from_secs(90), None), t0);
    cache.insert(Session::new("d".into(), t0, Duration::from_secs(90), None), t0);
    assert_eq!(cache.len(), 2);
    assert!(cache.resume("b", t0).is_none());
}

#[test]
fn huge_durations_and_leases_do_not_overflow() {
    // With a server lease of 0 the client's lease stands, whatever it is.
    let mut policy = ServerPolicies::plaintext().for_level(Permission::Read);
    policy.session_lease = 0;
    let config = Arc::new(ServerConfig::new(table()).policies(ServerPolicies::uniform(policy)));
    let mut ad = data("client_new_session.ad");
    ad.insert("SessionLease", i64::MAX);
    ad.insert("SessionDuration", "99999999999999999999");
    let mut s = ServerConnection::new(config.clone(), None);
    assert!(matches!(s.on_message(authenticate(&ad)).unwrap(), Step::Command(_)));
    let sid = text(&outgoing(&mut s)[1], "Sid");
    let mut cache = config.sessions.lock().unwrap();
    assert!(cache.resume(&sid, Instant::now() + Duration::from_secs(3600)).is_some());
}

#[test]
fn the_default_daemon_policy_against_the_real_client() {
    // HTCondor's defaults (OPTIONAL everywhere, our methods reduced to
    // IDTOKENS) against the client's PREFERRED ad offering CLAIMTOBE:
    // authentication YES with no method in common. C++ sends the response
    // ad, then fails the request (daemon_command.cpp 1173-1177).
    let config = Arc::new(ServerConfig::new(table()).policies(ServerPolicies::uniform(SecurityPolicy::default())));
    let mut s = ServerConnection::new(config, None);
    let step = s.on_message(authenticate(&data("client_new_session.ad"))).unwrap();
    assert!(matches!(step, Step::Close(CloseReason::AuthenticationFailed(_))), "{step:?}");
    let out = outgoing(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!(text(&out[0], "Authentication"), "YES");
    assert_eq!(text(&out[0], "AuthMethodsList"), "");
    assert_eq!(text(&out[0], "CryptoMethods"), "AES");
    assert!(out[0].lookup("ECDHPublicKey").is_some());
    // An OPTIONAL client: no authentication, so no key and no CryptoMethods.
    let mut ad = data("client_new_session.ad");
    ad.insert("Authentication", "OPTIONAL");
    let config = Arc::new(ServerConfig::new(table()).policies(ServerPolicies::uniform(SecurityPolicy::default())));
    let mut s = ServerConnection::new(config, None);
    assert!(matches!(s.on_message(authenticate(&ad)).unwrap(), Step::Command(_)));
    let out = outgoing(&mut s);
    assert_eq!(text(&out[0], "Authentication"), "NO");
    assert!(out[0].lookup("ECDHPublicKey").is_none() && out[0].lookup("CryptoMethods").is_none());
    assert_eq!(text(&out[0], "CryptoMethodsList"), "AES");
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    /// Security ads built from the real client's attributes with random
    /// values, and random bytes: the server answers or refuses, never panics.
    fn value() -> impl Strategy<Value = classad::Expr> {
        prop_oneof![
            any::<i64>().prop_map(classad::Expr::from),
            "[A-Za-z0-9:,$ ]{0,12}".prop_map(|s| classad::Expr::from(s.as_str())),
            any::<bool>().prop_map(classad::Expr::from),
        ]
    }

    proptest! {
        #[test]
        fn random_security_ads_never_panic(changes in proptest::collection::vec((0usize..26, value()), 0..8), drop_some in proptest::collection::vec(0usize..26, 0..5)) {
            let names = ["Command", "AuthCommand", "UseSession", "Sid", "ResumeResponse", "NewSession", "Enact",
                "Authentication", "Encryption", "Integrity", "CryptoMethods", "SessionDuration", "SessionLease",
                "RemoteVersion", "Cookie", "Nonce", "ConnectSinful", "AuthMethods", "OutgoingNegotiation",
                "Subsystem", "ServerPid", "TrustDomain", "NegotiatedSession", "ECDHPublicKey", "AuthenticationNew", "X"];
            let mut ad = data("client_new_session.ad");
            for (i, v) in changes {
                ad.insert(names[i], v);
            }
            for i in drop_some {
                ad.remove(names[i]);
            }
            let mut s = server();
            let _ = s.on_message(authenticate(&ad));
            let _ = outgoing(&mut s);
        }

        #[test]
        fn random_messages_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..100), encrypted in any::<bool>()) {
            let mut s = server();
            let _ = s.on_message(Message { payload: bytes, encrypted });
        }
    }
}
