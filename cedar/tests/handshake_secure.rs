//! The authenticated handshake (modes M1 and M2), sans-IO, against a
//! scripted client written here: the messages a C++ client sends (as
//! `authentication.cpp`, `condor_auth_claim.cpp` and the AKEP2 client
//! send them), real framing on both sides, AES-GCM switched on where C++
//! switches it, and tokens made by the real `condor_token_create`
//! (`tests/data/token/`). The same paths run against the real C++ client
//! in `tests/wheel.rs`.

#![allow(clippy::unwrap_used)] // a test: the scripted client's helpers unwrap

use std::path::PathBuf;
use std::sync::Arc;

use cedar::authz::{Authorizer, AuthzConfig, Permission};
use cedar::command::{DC_AUTHENTICATE, QUERY_COLLECTOR_ADS, QUERY_STARTD_ADS, UPDATE_SCHEDD_AD, UPDATE_STARTD_AD};
use cedar::crypto::KeyExchange;
use cedar::handshake::{
    CloseReason, CommandTable, Output, ServerConfig, ServerConnection, ServerPolicies, Step, TokenConfig, Via,
};
use cedar::policy::{AuthMethod, SecurityPolicy};
use cedar::token::akep2::Client as TokenClient;
use cedar::token::jwt::Jwt;
use cedar::token::key::{FileCheck, KeyStore};
use cedar::token::wire as token_wire;
use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::{encryption, Decoder, Encoder, Inbound, Message, Outbound};
use classad::{ClassAd, Literal};

fn token_data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/token").join(name)
}

fn table() -> CommandTable {
    CommandTable::new()
        .register(QUERY_STARTD_ADS, Permission::Read)
        .register(QUERY_COLLECTOR_ADS, Permission::Read)
        .register(UPDATE_STARTD_AD, Permission::AdvertiseStartd)
        .register(UPDATE_SCHEDD_AD, Permission::AdvertiseSchedd)
}

/// HTCondor's default daemon policy (OPTIONAL) with these methods.
fn config(methods: &[AuthMethod]) -> ServerConfig {
    let mut policy = SecurityPolicy::default();
    policy.auth_methods = methods.to_vec();
    ServerConfig::new(table()).policies(ServerPolicies::uniform(policy)).hostname("test-host")
}

fn token_config() -> ServerConfig {
    let keys = KeyStore::new(Some(token_data("keys/POOL")), None, FileCheck::none());
    config(&[AuthMethod::Token]).tokens(TokenConfig::new(keys), "anchor.local")
}

fn text(ad: &ClassAd, name: &str) -> String {
    match ad.lookup(name).and_then(|e| e.as_literal()) {
        Some(Literal::Str(s)) => s.as_str().to_owned(),
        other => panic!("{name} is {other:?}"),
    }
}

/// Both ends of one connection: the server under test and a scripted
/// client, each with its own framing halves.
struct Pair {
    server: ServerConnection,
    s_in: Inbound,
    s_out: Outbound,
    c_in: Inbound,
    c_out: Outbound,
    last: Option<Step>,
}

impl Pair {
    fn new(config: &Arc<ServerConfig>) -> Pair {
        Pair {
            server: ServerConnection::new(config.clone(), Some("127.0.0.1".parse().unwrap())),
            s_in: Inbound::new(),
            s_out: Outbound::new(),
            c_in: Inbound::new(),
            c_out: Outbound::new(),
            last: None,
        }
    }

    /// A pair whose server knows its end's address (FS binds names to it).
    #[cfg(unix)]
    fn bound(config: &Arc<ServerConfig>, local: &str) -> Pair {
        let mut p = Pair::new(config);
        p.server = ServerConnection::new(config.clone(), Some("127.0.0.1".parse().unwrap()))
            .with_local_addr(Some(local.parse().unwrap()));
        p
    }

    fn encoder(&self) -> Encoder {
        Encoder::new(self.c_out.is_encrypted())
    }

    /// The client sends one message; the server takes it and its output
    /// goes on the wire to the client.
    fn send(&mut self, enc: Encoder) -> &Step {
        let mut wire = Vec::new();
        self.c_out.frame(enc.as_bytes(), &mut wire).unwrap();
        self.s_in.feed(&wire);
        let message = self.s_in.next_message().unwrap().expect("a whole message");
        let step = self.server.on_message(message).unwrap();
        let mut back = Vec::new();
        for out in self.server.take_output() {
            match out {
                Output::Message(bytes) => self.s_out.frame(&bytes, &mut back).unwrap(),
                Output::StartCrypto(key) => {
                    // What the server has framed so far goes out first.
                    self.c_in.feed(&std::mem::take(&mut back));
                    encryption::switch_on(&mut self.s_in, &mut self.s_out, &key).unwrap();
                }
                other => panic!("{other:?}"),
            }
        }
        self.c_in.feed(&back);
        self.last = Some(step);
        self.last.as_ref().unwrap()
    }

    fn recv(&mut self) -> Message {
        self.c_in.next_message().unwrap().expect("a message from the server")
    }

    fn recv_ad(&mut self) -> ClassAd {
        let m = self.recv();
        let mut dec = Decoder::new(&m.payload, m.encrypted);
        let ad = get_classad(&mut dec, &AdLimits::default()).unwrap();
        dec.finish().unwrap();
        ad
    }

    fn recv_int(&mut self) -> i64 {
        let m = self.recv();
        let mut dec = Decoder::new(&m.payload, m.encrypted);
        let v = dec.get_int().unwrap();
        dec.finish().unwrap();
        v
    }

    fn nothing_pending(&mut self) -> bool {
        self.c_in.next_message().unwrap().is_none()
    }
}

/// A new-session ad as the 23.10 client sends it (the attributes of
/// tests/data/handshake/client_new_session.ad), requiring authentication.
fn new_session_ad(command: i32, methods: &str, pubkey: &str) -> ClassAd {
    let text = format!(
        r#"[ AuthMethods = "{methods}"; Authentication = "REQUIRED"; Command = {command}; CryptoMethods = "AES";
            ECDHPublicKey = "{pubkey}"; Enact = "NO"; Encryption = "OPTIONAL"; Integrity = "OPTIONAL";
            NegotiatedSession = true; NewSession = "YES"; OutgoingNegotiation = "PREFERRED";
            RemoteVersion = "$CondorVersion: 23.10.29 2025-09-23 BuildID: UW_Python_Wheel_Build $";
            SessionDuration = "60"; SessionLease = 3600; Subsystem = "TOOL"; TrustDomain = "anchor.local" ]"#
    );
    text.parse().unwrap()
}

fn authenticate(pair: &Pair, ad: &ClassAd) -> Encoder {
    let mut enc = pair.encoder();
    enc.put_int(i64::from(DC_AUTHENTICATE));
    put_classad(&mut enc, ad, &PutOptions::new()).unwrap();
    enc
}

fn int(pair: &Pair, v: i64) -> Encoder {
    let mut enc = pair.encoder();
    enc.put_int(v);
    enc
}

/// Runs a CLAIMTOBE handshake for `command` claiming `name`; returns the
/// pair (encrypted both ways), the post-auth ad and the session id.
fn claimtobe(config: &Arc<ServerConfig>, command: i32, name: &str) -> (Pair, ClassAd) {
    let mut p = Pair::new(config);
    let kx = KeyExchange::generate();
    let ad = new_session_ad(command, "CLAIMTOBE", &kx.public_key_base64());
    assert!(matches!(p.send(authenticate(&p, &ad)), Step::Continue));
    let response = p.recv_ad();
    assert_eq!(text(&response, "Authentication"), "YES");
    assert_eq!(text(&response, "Encryption"), "YES"); // the AES rule
    assert_eq!(text(&response, "AuthMethodsList"), "CLAIMTOBE");
    assert_eq!(text(&response, "CryptoMethods"), "AES");
    // The method bitmask: CLAIMTOBE and FS; the server picks CLAIMTOBE.
    assert!(matches!(p.send(int(&p, 2 | 4)), Step::Continue));
    assert_eq!(p.recv_int(), 2);
    let mut claim = p.encoder();
    claim.put_int(1);
    claim.put_str(name).unwrap();
    let step = p.send(claim).clone();
    assert_eq!(p.recv_int(), 1); // CLAIMTOBE's result
    assert_eq!(p.recv_int(), 0); // exchangeKey: no key travels
                                 // The client's side of the key, then crypto on, as C++ does it.
    let key = kx.finish(&text(&response, "ECDHPublicKey")).unwrap();
    encryption::switch_on(&mut p.c_in, &mut p.c_out, &key).unwrap();
    let post = p.recv();
    assert!(post.encrypted, "the post-auth ad is the server's first encrypted packet");
    let mut dec = Decoder::new(&post.payload, true);
    let post = get_classad(&mut dec, &AdLimits::default()).unwrap();
    p.last = Some(step);
    (p, post)
}

#[test]
fn m1_claimtobe_then_encrypted_commands_and_keyed_resumption() {
    let config = Arc::new(config(&[AuthMethod::Claimtobe]));
    let (mut p, post) = claimtobe(&config, QUERY_COLLECTOR_ADS, "alice");
    assert_eq!(text(&post, "ReturnCode"), "AUTHORIZED");
    assert_eq!(text(&post, "User"), "alice"); // no domain for CLAIMTOBE
    assert!(matches!(post.lookup("TriedAuthentication").and_then(|e| e.as_literal()), Some(Literal::Bool(true))));
    let Some(Step::Command(req)) = p.last.clone() else { panic!("{:?}", p.last) };
    assert_eq!(
        (req.via, req.user.as_deref(), req.method.as_deref()),
        (Via::NewSession, Some("alice"), Some("CLAIMTOBE"))
    );
    // The payload travels encrypted; a follow-on raw command too, and it
    // keeps the identity.
    let mut follow = p.encoder();
    follow.put_int(i64::from(QUERY_STARTD_ADS));
    follow.put_str("strings are length-prefixed now").unwrap();
    let Step::Command(next) = p.send(follow).clone() else { panic!() };
    assert_eq!((next.via, next.user.as_deref()), (Via::Raw, Some("alice")));
    let cedar::handshake::Payload::Inline(bytes, true) = &next.payload else { panic!("{:?}", next.payload) };
    assert_eq!(Decoder::new(bytes, true).get_string().unwrap(), "strings are length-prefixed now");
    // CLAIMTOBE is limited to READ here: a follow-on update is closed.
    let mut update = p.encoder();
    update.put_int(i64::from(UPDATE_STARTD_AD));
    assert!(matches!(p.send(update), Step::Close(CloseReason::Denied(UPDATE_STARTD_AD, _))));

    // Resumption on a new connection: AUTHORIZED in the clear, then AES.
    let sid = text(&post, "Sid");
    for resume_response in [true, false] {
        let mut q = Pair::new(&config);
        let resume: ClassAd = format!(
            r#"[ Command = {QUERY_STARTD_ADS}; UseSession = "YES"; Sid = "{sid}"; ResumeResponse = {resume_response};
                RemoteVersion = "$CondorVersion: 23.10.29 2025-09-23 BuildID: UW_Python_Wheel_Build $" ]"#
        )
        .parse()
        .unwrap();
        let Step::Command(req) = q.send(authenticate(&q, &resume)).clone() else { panic!("{:?}", q.last) };
        assert_eq!((req.via, req.user.as_deref()), (Via::ResumedSession, Some("alice")));
        if resume_response {
            let reply = q.recv_ad();
            assert_eq!(text(&reply, "ReturnCode"), "AUTHORIZED");
        }
        assert!(q.nothing_pending());
        // The key the first connection derived, found in the cache.
        let key = config.sessions.lock().unwrap().resume(&sid, std::time::Instant::now()).unwrap().key.clone().unwrap();
        encryption::switch_on(&mut q.c_in, &mut q.c_out, &key).unwrap();
        // Without a resume response the server's sent digest is zeros; the
        // client's first encrypted packet must still open.
        let mut payload = q.encoder();
        payload.put_int(7);
        let mut wire = Vec::new();
        q.c_out.frame(payload.as_bytes(), &mut wire).unwrap();
        q.s_in.feed(&wire);
        let m = q.s_in.next_message().unwrap().unwrap();
        assert!(m.encrypted);
        assert_eq!(Decoder::new(&m.payload, true).get_int().unwrap(), 7);
    }
    // A resumed READ-limited CLAIMTOBE session used for an update: C++
    // closes without a reply after AUTHORIZED (daemon_command.cpp 1811).
    let mut r = Pair::new(&config);
    let resume: ClassAd =
        format!(r#"[ Command = {UPDATE_STARTD_AD}; UseSession = "YES"; Sid = "{sid}"; ResumeResponse = true ]"#)
            .parse()
            .unwrap();
    assert!(matches!(r.send(authenticate(&r, &resume)), Step::Close(CloseReason::Denied(UPDATE_STARTD_AD, _))));
    assert_eq!(text(&r.recv_ad(), "ReturnCode"), "AUTHORIZED");
    assert!(r.nothing_pending());
}

#[test]
fn m1_denied_by_allow_lists_and_a_client_without_a_name() {
    let lookup = |k: &str| match k {
        "ALLOW_READ" => Some("*".to_string()),
        "ALLOW_ADVERTISE_STARTD" => Some("*/10.0.0.1".to_string()),
        _ => None,
    };
    let mut cfg = config(&[AuthMethod::Claimtobe]);
    cfg.authorizer = Authorizer::from_config(&lookup, &AuthzConfig::default()).unwrap();
    let cfg = Arc::new(cfg);
    let (p, post) = claimtobe(&cfg, UPDATE_STARTD_AD, "alice");
    assert_eq!(text(&post, "ReturnCode"), "DENIED");
    assert!(matches!(p.last, Some(Step::Close(CloseReason::Denied(UPDATE_STARTD_AD, _)))));
    assert!(cfg.sessions.lock().unwrap().is_empty(), "a denied session is not cached");

    // `int 0`: the client has no name. The server goes back to the method
    // bitmask; an empty one ends a required authentication.
    let mut p = Pair::new(&cfg);
    let kx = KeyExchange::generate();
    p.send(authenticate(&p, &new_session_ad(QUERY_STARTD_ADS, "CLAIMTOBE", &kx.public_key_base64())));
    p.recv_ad();
    p.send(int(&p, 2));
    assert_eq!(p.recv_int(), 2);
    assert!(matches!(p.send(int(&p, 0)), Step::Continue));
    assert!(p.nothing_pending(), "a failed CLAIMTOBE sends nothing");
    assert!(matches!(p.send(int(&p, 0)), Step::Close(CloseReason::AuthenticationFailed(_))));
    assert_eq!(p.recv_int(), 0);
}

#[test]
fn m1_refusals_before_authentication() {
    let cfg = Arc::new(config(&[AuthMethod::Claimtobe]));
    // A client with only BLOWFISH: no crypto method in common; no reply.
    let kx = KeyExchange::generate();
    let mut ad = new_session_ad(QUERY_STARTD_ADS, "CLAIMTOBE", &kx.public_key_base64());
    ad.insert("CryptoMethods", "BLOWFISH");
    let mut p = Pair::new(&cfg);
    assert!(matches!(p.send(authenticate(&p, &ad)), Step::Close(CloseReason::Policy(_))));
    assert!(p.nothing_pending());
    // No ECDHPublicKey: this server sends no keys.
    let mut ad = new_session_ad(QUERY_STARTD_ADS, "CLAIMTOBE", "");
    ad.remove("ECDHPublicKey");
    let mut p = Pair::new(&cfg);
    assert!(matches!(p.send(authenticate(&p, &ad)), Step::Close(CloseReason::Policy(_))));
    // A bad public key fails after the method.
    let mut p = Pair::new(&cfg);
    p.send(authenticate(&p, &new_session_ad(QUERY_STARTD_ADS, "CLAIMTOBE", "bm90IGEga2V5")));
    p.recv_ad();
    p.send(int(&p, 2));
    p.recv_int();
    let mut claim = p.encoder();
    claim.put_int(1);
    claim.put_str("alice").unwrap();
    assert!(matches!(p.send(claim), Step::Close(CloseReason::AuthenticationFailed(_))));
    // A name over the bound is an error, not an identity.
    let mut p = Pair::new(&cfg);
    p.send(authenticate(&p, &new_session_ad(QUERY_STARTD_ADS, "CLAIMTOBE", &kx.public_key_base64())));
    p.recv_ad();
    p.send(int(&p, 2));
    p.recv_int();
    let mut claim = p.encoder();
    claim.put_int(1);
    claim.put_str(&"x".repeat(5000)).unwrap();
    let mut wire = Vec::new();
    p.c_out.frame(claim.as_bytes(), &mut wire).unwrap();
    p.s_in.feed(&wire);
    let m = p.s_in.next_message().unwrap().unwrap();
    assert!(p.server.on_message(m).is_err());
}

/// Runs the TOKEN method with `token_file` for `command`.
fn idtokens(config: &Arc<ServerConfig>, command: i32, token_file: &str) -> (Pair, Option<ClassAd>) {
    let mut p = Pair::new(config);
    let kx = KeyExchange::generate();
    let ad = new_session_ad(command, "TOKEN", &kx.public_key_base64());
    assert!(matches!(p.send(authenticate(&p, &ad)), Step::Continue));
    let response = p.recv_ad();
    assert_eq!(text(&response, "AuthMethodsList"), "TOKEN");
    assert_eq!(text(&response, "TrustDomain"), "anchor.local");
    assert_eq!(text(&response, "IssuerKeys"), "POOL");
    p.send(int(&p, 2048));
    assert_eq!(p.recv_int(), 2048);
    let jwt = Jwt::parse(std::fs::read_to_string(token_data(token_file)).unwrap().trim()).unwrap();
    let (client, hello) = TokenClient::start(&jwt);
    let mut enc = p.encoder();
    token_wire::put_client_hello(&mut enc, &hello).unwrap();
    assert!(matches!(p.send(enc), Step::Continue));
    let m = p.recv();
    let reply = token_wire::get_server_reply(&mut Decoder::new(&m.payload, false)).unwrap();
    let (confirm, outcome) = client.receive_reply(&reply);
    let mut enc = p.encoder();
    token_wire::put_client_confirm(&mut enc, &confirm).unwrap();
    let step = p.send(enc).clone();
    if outcome.is_err() {
        return (p, None);
    }
    assert_eq!(p.recv_int(), 0);
    let key = kx.finish(&text(&response, "ECDHPublicKey")).unwrap();
    encryption::switch_on(&mut p.c_in, &mut p.c_out, &key).unwrap();
    let post = p.recv_ad();
    p.last = Some(step);
    (p, Some(post))
}

#[test]
fn m2_a_real_token_authenticates_as_its_subject() {
    let cfg = Arc::new(token_config());
    let (p, post) = idtokens(&cfg, QUERY_COLLECTOR_ADS, "condor.jwt");
    let post = post.expect("the exchange succeeds");
    assert_eq!(text(&post, "User"), "condor@anchor.local");
    assert_eq!(text(&post, "ReturnCode"), "AUTHORIZED");
    let Some(Step::Command(req)) = &p.last else { panic!("{:?}", p.last) };
    assert_eq!(req.method.as_deref(), Some("IDTOKENS"));
}

#[test]
fn m2_scopes_limit_the_session() {
    let cfg = Arc::new(token_config());
    let (_, post) = idtokens(&cfg, UPDATE_STARTD_AD, "authz.jwt");
    assert_eq!(text(&post.unwrap(), "ReturnCode"), "AUTHORIZED"); // ADVERTISE_STARTD is in scope
    let (p, post) = idtokens(&cfg, UPDATE_SCHEDD_AD, "authz.jwt");
    assert_eq!(text(&post.unwrap(), "ReturnCode"), "DENIED"); // ADVERTISE_SCHEDD is not
    assert!(matches!(p.last, Some(Step::Close(CloseReason::Denied(UPDATE_SCHEDD_AD, _)))));
}

#[test]
fn m2_a_token_of_another_key_fails_and_the_client_gives_up() {
    let cfg = Arc::new(token_config());
    // other.jwt is signed by "other", which this server does not have: its
    // reply is the error shape, the client fails, and back at the bitmask
    // an empty mask ends the required authentication.
    let (mut p, post) = idtokens(&cfg, QUERY_STARTD_ADS, "other.jwt");
    assert!(post.is_none());
    assert!(matches!(p.last, Some(Step::Continue)));
    assert!(matches!(p.send(int(&p, 0)), Step::Close(CloseReason::AuthenticationFailed(_))));
    assert_eq!(p.recv_int(), 0);
}

#[test]
fn m2_max_age_and_revocation_refuse_a_good_token() {
    // condor.jwt was issued (iat) when the fixtures were made; a maximum
    // age of one second refuses it, as does a revocation expression.
    for (max_age, revocation) in [(Some(1), None), (None, Some(r#"sub == "condor@anchor.local""#))] {
        let keys = KeyStore::new(Some(token_data("keys/POOL")), None, FileCheck::none());
        let mut tokens = TokenConfig::new(keys);
        tokens.max_age = max_age;
        tokens.revocation = revocation.map(|r| cedar::token::revocation::RevocationExpr::parse(r).unwrap());
        let cfg = Arc::new(config(&[AuthMethod::Token]).tokens(tokens, "anchor.local"));
        let (mut p, post) = idtokens(&cfg, QUERY_STARTD_ADS, "condor.jwt");
        assert!(post.is_none(), "{max_age:?} {revocation:?}");
        assert!(matches!(p.send(int(&p, 0)), Step::Close(CloseReason::AuthenticationFailed(_))));
    }
    // A revocation expression that does not match lets it through.
    let keys = KeyStore::new(Some(token_data("keys/POOL")), None, FileCheck::none());
    let mut tokens = TokenConfig::new(keys);
    tokens.revocation = Some(cedar::token::revocation::RevocationExpr::parse(r#"sub == "mallory""#).unwrap());
    let cfg = Arc::new(config(&[AuthMethod::Token]).tokens(tokens, "anchor.local"));
    assert!(idtokens(&cfg, QUERY_STARTD_ADS, "condor.jwt").1.is_some());
}

#[test]
fn m1_claimtobe_with_the_domain_knob() {
    let mut identity = cedar::authz::IdentityConfig::with_uid_domain("Pool.Example");
    identity.claimtobe_include_domain = true;
    let cfg = Arc::new(config(&[AuthMethod::Claimtobe]).identity(identity));
    // A client with the knob sends user@UID_DOMAIN; one without, the bare
    // name, which gets our UID_DOMAIN. Domains are lower-cased.
    let (_, post) = claimtobe(&cfg, QUERY_STARTD_ADS, "alice@Client.Example");
    assert_eq!(text(&post, "User"), "alice@client.example");
    let (_, post) = claimtobe(&cfg, QUERY_STARTD_ADS, "bob");
    assert_eq!(text(&post, "User"), "bob@pool.example");
}

#[test]
fn akep2_messages_on_the_wire_are_bounded() {
    use cedar::token::akep2::{ClientConfirm, STATUS_ERROR, STATUS_OK};
    // A raw length over its bound is refused before anything is read.
    let mut enc = Encoder::new(false);
    enc.put_int(0);
    enc.put_int(3);
    enc.put_str("a@b").unwrap();
    enc.put_str("token").unwrap();
    enc.put_int(1 << 40);
    assert!(token_wire::get_client_hello(&mut Decoder::new(enc.as_bytes(), false)).is_err());
    // An id over 1023 bytes is refused.
    let mut enc = Encoder::new(false);
    enc.put_int(0);
    enc.put_int(5000);
    enc.put_str(&"x".repeat(5000)).unwrap();
    assert!(token_wire::get_client_confirm(&mut Decoder::new(enc.as_bytes(), false)).is_err());
    // A confirmation whose id length lies reads as a failed one.
    let good = ClientConfirm { status: STATUS_OK, client_id: "a@b".into(), rb: vec![1; 256], mac: vec![2; 20] };
    let mut enc = Encoder::new(true);
    token_wire::put_client_confirm(&mut enc, &good).unwrap();
    let mut bytes = enc.into_bytes();
    bytes[15] = 4; // the id's announced length, 3 -> 4
    let got = token_wire::get_client_confirm(&mut Decoder::new(&bytes, true)).unwrap();
    assert_eq!((got.status, got.client_id.as_str()), (STATUS_ERROR, "a@b"));
    // Trailing bytes are an error.
    let mut enc = Encoder::new(false);
    token_wire::put_client_confirm(&mut enc, &good).unwrap();
    enc.put_int(9);
    assert!(token_wire::get_client_confirm(&mut Decoder::new(enc.as_bytes(), false)).is_err());
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Random messages at each step of the authentication: an answer or
        /// an error, never a panic.
        #[test]
        fn random_messages_in_every_phase(phase in 0usize..4, bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let cfg = Arc::new(token_config());
            let mut p = Pair::new(&cfg);
            let kx = KeyExchange::generate();
            let methods = if phase == 3 { "TOKEN" } else { "CLAIMTOBE" };
            let mut cfg2 = config(&[AuthMethod::Claimtobe]);
            cfg2.tokens = None;
            if phase != 3 {
                p = Pair::new(&Arc::new(cfg2));
            }
            p.send(authenticate(&p, &new_session_ad(QUERY_STARTD_ADS, methods, &kx.public_key_base64())));
            if phase >= 1 {
                p.send(int(&p, if phase == 3 { 2048 } else { 2 }));
            }
            let mut wire = Vec::new();
            if !bytes.is_empty() {
                p.c_out.frame(&bytes, &mut wire).unwrap();
                p.s_in.feed(&wire);
                if let Ok(Some(m)) = p.s_in.next_message() {
                    let _ = p.server.on_message(m);
                    let _ = p.server.take_output();
                }
            }
        }
    }
}

/// The FS method (`condor_auth_fs.cpp`): the server names a directory, the
/// client makes it (or not), the server `lstat`s it and names its owner.
#[cfg(unix)]
mod fs {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    use std::path::{Path, PathBuf};

    use super::*;

    /// A directory of our own for the server's names, removed at the end.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(tag: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("cedar-fs-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn user_name(uid: u32) -> Option<String> {
        nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)).unwrap().map(|u| u.name)
    }

    fn me() -> String {
        user_name(nix::unistd::geteuid().as_raw()).expect("we have a login name")
    }

    /// A server offering FS then CLAIMTOBE, naming its directories in
    /// `dir`, with UID_DOMAIN Pool.Example.
    fn fs_config(dir: &Path) -> Arc<ServerConfig> {
        let identity = cedar::authz::IdentityConfig::with_uid_domain("Pool.Example");
        Arc::new(config(&[AuthMethod::Fs, AuthMethod::Claimtobe]).identity(identity).fs_local_dir(dir))
    }

    /// The handshake up to the server's path: the new-session ad, the
    /// bitmask (FS and CLAIMTOBE), the server's choice (FS) and its path.
    fn start(config: &Arc<ServerConfig>, command: i32) -> (Pair, ClassAd, KeyExchange, String) {
        start_on(Pair::new(config), command)
    }

    /// [`start`] on a given pair.
    fn start_on(mut p: Pair, command: i32) -> (Pair, ClassAd, KeyExchange, String) {
        let kx = KeyExchange::generate();
        let ad = new_session_ad(command, "FS,CLAIMTOBE", &kx.public_key_base64());
        assert!(matches!(p.send(authenticate(&p, &ad)), Step::Continue));
        let response = p.recv_ad();
        assert_eq!(text(&response, "AuthMethodsList"), "FS,CLAIMTOBE");
        assert!(matches!(p.send(int(&p, 2 | 4)), Step::Continue));
        assert_eq!(p.recv_int(), 4, "the server chooses FS, first in its list");
        let m = p.recv();
        let mut dec = Decoder::new(&m.payload, m.encrypted);
        let path = dec.get_string().unwrap();
        dec.finish().unwrap();
        (p, response, kx, path)
    }

    /// The client's result and the address it appended.
    fn result_with(p: &Pair, result: i64, ext: &str) -> Encoder {
        let mut enc = int(p, result);
        enc.put_str(ext).unwrap();
        enc
    }

    #[test]
    fn names_are_bound_to_our_address_and_the_clients_view_of_it_is_checked() {
        let scratch = Scratch::new("bound");
        let cfg = fs_config(&scratch.0);
        let local = "127.0.0.1:9618";
        // The name: FS_<ip>_<port>_<random>_, the `_` inviting the client
        // to append its view of our address (24.0.22 and later).
        let (mut p, response, kx, path) = start_on(Pair::bound(&cfg, local), QUERY_STARTD_ADS);
        let name = Path::new(&path).file_name().unwrap().to_str().unwrap().to_owned();
        assert!(name.starts_with("FS_127.0.0.1_9618_") && name.ends_with('_'), "{name}");
        assert_eq!(name.len(), "FS_127.0.0.1_9618_".len() + 12 + 1, "{name}");
        // A 25.x client: mkdir(name + "127.0.0.1:9618"), then says so.
        let made = format!("{path}{local}");
        mkdir(Path::new(&made), 0o700);
        p.send(result_with(&p, 0, local));
        assert_eq!(p.recv_int(), 0);
        assert_eq!(text(&finish(&mut p, &response, kx), "User"), format!("{}@pool.example", me()));

        // A client that appends nothing (23.x, or one that only checks
        // the prefix) makes the name as sent; an empty extension is none.
        for empty in [false, true] {
            let (mut p, response, kx, path) = start_on(Pair::bound(&cfg, local), QUERY_STARTD_ADS);
            mkdir(Path::new(&path), 0o700);
            p.send(if empty { result_with(&p, 0, "") } else { int(&p, 0) });
            assert_eq!(p.recv_int(), 0);
            assert_eq!(text(&finish(&mut p, &response, kx), "User"), format!("{}@pool.example", me()));
        }

        // Extensions that are not our endpoint are refused, even with the
        // directory made: another port, another address, a shared-port id
        // (we have none), a directory separator, no address at all.
        for ext in ["127.0.0.1:9619", "127.0.0.2:9618", "127.0.0.1:9618?sock=collector", "/../x", "junk"] {
            let (mut p, _, _, path) = start_on(Pair::bound(&cfg, local), QUERY_STARTD_ADS);
            if !ext.contains('/') {
                mkdir(Path::new(&format!("{path}{ext}")), 0o700);
            }
            p.send(result_with(&p, 0, ext));
            assert_eq!(p.recv_int(), -1, "{ext:?}");
        }
        // Over the bound: an error, not a verdict.
        let (mut p, _, _, _) = start_on(Pair::bound(&cfg, local), QUERY_STARTD_ADS);
        let enc = result_with(&p, 0, &"1".repeat(300));
        let mut wire = Vec::new();
        p.c_out.frame(enc.as_bytes(), &mut wire).unwrap();
        p.s_in.feed(&wire);
        let m = p.s_in.next_message().unwrap().unwrap();
        assert!(p.server.on_message(m).is_err());
        // An IPv6 endpoint, written as to_ip_and_port_string writes it.
        let (mut p, _, _, path) = start_on(Pair::bound(&cfg, "[::1]:9618"), QUERY_STARTD_ADS);
        assert!(path.contains("/FS_::1_9618_"), "{path}");
        mkdir(Path::new(&format!("{path}[::1]:9618")), 0o700);
        p.send(result_with(&p, 0, "[::1]:9618"));
        assert_eq!(p.recv_int(), 0);
    }

    /// After the server's verdict 0: exchangeKey, crypto, the post-auth ad.
    fn finish(p: &mut Pair, response: &ClassAd, kx: KeyExchange) -> ClassAd {
        assert_eq!(p.recv_int(), 0); // exchangeKey: no key travels
        let key = kx.finish(&text(response, "ECDHPublicKey")).unwrap();
        encryption::switch_on(&mut p.c_in, &mut p.c_out, &key).unwrap();
        p.recv_ad()
    }

    fn mkdir(path: &Path, mode: u32) {
        std::fs::DirBuilder::new().mode(0o700).create(path).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_real_directory_is_its_owner_at_uid_domain_with_no_limit() {
        let scratch = Scratch::new("real");
        let cfg = fs_config(&scratch.0);
        let (mut p, response, kx, path) = start(&cfg, QUERY_STARTD_ADS);
        // A fresh name under FS_LOCAL_DIR that does not exist yet.
        let path = PathBuf::from(path);
        assert_eq!(path.parent(), Some(scratch.0.as_path()));
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with("FS_") && name.len() == 15, "{name}");
        assert!(std::fs::symlink_metadata(&path).is_err(), "the name is free");
        mkdir(&path, 0o700);
        let step = p.send(int(&p, 0)).clone();
        assert_eq!(p.recv_int(), 0, "the server accepts the directory");
        let post = finish(&mut p, &response, kx);
        let who = format!("{}@pool.example", me());
        assert_eq!(text(&post, "User"), who);
        assert_eq!(text(&post, "ReturnCode"), "AUTHORIZED");
        let Step::Command(req) = step else { panic!("{step:?}") };
        assert_eq!((req.user.as_deref(), req.method.as_deref()), (Some(who.as_str()), Some("FS")));
        assert!(req.limit.is_none(), "FS sessions are not limited");
        // Unlike CLAIMTOBE's, the session is not limited to READ: a
        // follow-on update on the connection is allowed.
        let mut update = p.encoder();
        update.put_int(i64::from(UPDATE_STARTD_AD));
        let Step::Command(next) = p.send(update).clone() else { panic!("{:?}", p.last) };
        assert_eq!((next.command, next.user.as_deref()), (UPDATE_STARTD_AD, Some(who.as_str())));
        // The server leaves the directory to the client, as C++ does.
        assert!(path.is_dir());
        // The session remembers the method.
        let sid = text(&post, "Sid");
        let session = cfg.sessions.lock().unwrap().resume(&sid, std::time::Instant::now()).cloned().unwrap();
        assert_eq!((session.method.as_deref(), session.limit), (Some("FS"), None));
    }

    #[test]
    fn the_map_file_sees_the_owner_name_with_method_fs() {
        let scratch = Scratch::new("map");
        let rule = format!("FS {} mapped@Elsewhere.Example", me());
        let map = cedar::authz::MapFile::parse(&rule, &cedar::authz::MapFileOptions::default()).unwrap();
        let mut cfg = config(&[AuthMethod::Fs]).fs_local_dir(&scratch.0);
        cfg.map_file = Some(map);
        let cfg = Arc::new(cfg);
        let mut p = Pair::new(&cfg);
        let kx = KeyExchange::generate();
        p.send(authenticate(&p, &new_session_ad(QUERY_STARTD_ADS, "FS", &kx.public_key_base64())));
        let response = p.recv_ad();
        p.send(int(&p, 4));
        assert_eq!(p.recv_int(), 4);
        let m = p.recv();
        let path = PathBuf::from(Decoder::new(&m.payload, false).get_string().unwrap());
        mkdir(&path, 0o700);
        p.send(int(&p, 0));
        assert_eq!(p.recv_int(), 0);
        assert_eq!(text(&finish(&mut p, &response, kx), "User"), "mapped@elsewhere.example");
    }

    /// Makes something at the server's path, says `claim`, and expects the
    /// server's -1; then the client falls back to CLAIMTOBE, as C++'s
    /// client does after a failed method.
    fn refused(tag: &str, claim: i64, make: impl FnOnce(&Path)) {
        let scratch = Scratch::new(tag);
        let cfg = fs_config(&scratch.0);
        let (mut p, response, kx, path) = start(&cfg, QUERY_STARTD_ADS);
        make(Path::new(&path));
        assert!(matches!(p.send(int(&p, claim)), Step::Continue), "{tag}");
        assert_eq!(p.recv_int(), -1, "{tag}: the server refuses");
        assert!(p.nothing_pending(), "{tag}");
        // Back at the bitmask: without FS, CLAIMTOBE.
        assert!(matches!(p.send(int(&p, 2)), Step::Continue));
        assert_eq!(p.recv_int(), 2);
        let mut claim = p.encoder();
        claim.put_int(1);
        claim.put_str("alice").unwrap();
        let step = p.send(claim).clone();
        assert_eq!(p.recv_int(), 1);
        let post = finish(&mut p, &response, kx);
        assert_eq!(text(&post, "User"), "alice", "{tag}");
        let Step::Command(req) = step else { panic!("{step:?}") };
        assert_eq!(req.method.as_deref(), Some("CLAIMTOBE"));
    }

    #[test]
    fn a_symlink_to_our_directory_is_refused() {
        refused("symlink", 0, |path| {
            let target = path.with_extension("target");
            mkdir(&target, 0o700);
            std::os::unix::fs::symlink(&target, path).unwrap();
        });
    }

    #[test]
    fn a_regular_file_is_refused() {
        refused("file", 0, |path| {
            std::fs::OpenOptions::new().write(true).create_new(true).mode(0o700).open(path).unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700)).unwrap();
        });
    }

    #[test]
    fn a_directory_of_another_mode_is_refused() {
        refused("mode", 0, |path| mkdir(path, 0o755));
        refused("mode-sticky", 0, |path| mkdir(path, 0o1700));
    }

    #[test]
    fn a_client_that_reports_failure_is_refused_even_with_a_directory() {
        // -1 is failure, whatever is at the path.
        refused("minus-one", -1, |path| mkdir(path, 0o700));
        // Claiming success without a directory: lstat fails.
        refused("lie", 0, |_| {});
    }

    #[test]
    fn another_owner_is_that_owner_and_an_unknown_uid_is_refused() {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("skipped: making a directory owned by another user needs root");
            return;
        }
        let scratch = Scratch::new("owner");
        let cfg = fs_config(&scratch.0);
        let nobody = 65534;
        let Some(name) = user_name(nobody) else {
            eprintln!("skipped: uid {nobody} has no login name here");
            return;
        };
        let (mut p, response, kx, path) = start(&cfg, QUERY_STARTD_ADS);
        mkdir(Path::new(&path), 0o700);
        std::os::unix::fs::chown(&path, Some(nobody), None).unwrap();
        p.send(int(&p, 0));
        assert_eq!(p.recv_int(), 0);
        assert_eq!(text(&finish(&mut p, &response, kx), "User"), format!("{name}@pool.example"));

        // A uid with no passwd entry: "Unable to lookup uid".
        let unknown = (3_999_000..3_999_100).find(|u| user_name(*u).is_none()).expect("a free uid");
        refused("unknown-uid", 0, |path| {
            mkdir(path, 0o700);
            std::os::unix::fs::chown(path, Some(unknown), None).unwrap();
        });
    }

    #[test]
    fn without_a_name_the_server_sends_an_empty_path_and_refuses() {
        // FS_LOCAL_DIR does not exist: no name can be made.
        let cfg = fs_config(Path::new("/nonexistent/cedar-fs"));
        let (mut p, _, _, path) = start(&cfg, QUERY_STARTD_ADS);
        assert_eq!(path, "");
        // C++'s client sends -1 for an empty name; a lying 0 is refused too.
        for claim in [-1, 0] {
            let (mut q, _, _, _) = start(&cfg, QUERY_STARTD_ADS);
            q.send(int(&q, claim));
            assert_eq!(q.recv_int(), -1);
        }
        // With nothing left to try the required authentication fails.
        p.send(int(&p, -1));
        assert_eq!(p.recv_int(), -1);
        assert!(matches!(p.send(int(&p, 0)), Step::Close(CloseReason::AuthenticationFailed(_))));
    }

    #[test]
    fn the_default_directory_is_tmp_and_from_config_reads_fs_local_dir() {
        let cfg = ServerConfig::new(table());
        assert_eq!(cfg.fs_local_dir, Path::new("/tmp"));
        let knobs = |k: &str| (k == "FS_LOCAL_DIR").then(|| "/var/tmp/fs".to_string());
        let cfg = ServerConfig::from_config("COLLECTOR", table(), &knobs, FileCheck::none()).unwrap();
        assert_eq!(cfg.fs_local_dir, Path::new("/var/tmp/fs"));
        // FS is in HTCondor's default method list, and we offer it.
        let level = cfg.policies.for_level(Permission::Read);
        assert_eq!(level.auth_methods.first(), Some(&AuthMethod::Fs));
        // A server at /tmp names /tmp/FS_…, and nothing is left there.
        let cfg = Arc::new(config(&[AuthMethod::Fs]));
        let mut p = Pair::new(&cfg);
        let kx = KeyExchange::generate();
        p.send(authenticate(&p, &new_session_ad(QUERY_STARTD_ADS, "FS", &kx.public_key_base64())));
        p.recv_ad();
        p.send(int(&p, 4));
        assert_eq!(p.recv_int(), 4);
        let m = p.recv();
        let path = PathBuf::from(Decoder::new(&m.payload, false).get_string().unwrap());
        assert_eq!(path.parent(), Some(Path::new("/tmp")));
        assert!(std::fs::symlink_metadata(&path).is_err());
    }
}
