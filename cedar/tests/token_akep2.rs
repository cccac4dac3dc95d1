//! The TOKEN method's AKEP2 exchange: a Rust client against a Rust server,
//! with the real HTCondor tokens and keys of tests/data/token, every
//! failure path, and the byte layouts recomputed here from the primitives.

// Test helpers unwrap: a fixture that fails to load is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use cedar::token::akep2::{
    session_key, Client, ClientConfirm, ClientHello, Keys, Server, ServerConfig, ServerReply, MAC_LEN, NONCE_LEN,
    SERVER_ID, STATUS_ERROR, STATUS_OK,
};
use cedar::token::jwt::{Jwt, Validation};
use cedar::token::key::{read_key_file, FileCheck, KeyStore, SigningKey};
use cedar::ErrorKind;
use hmac::{Hmac, Mac};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/token")
}

fn jwt(name: &str) -> Jwt {
    Jwt::parse(std::fs::read_to_string(data().join(format!("{name}.jwt"))).unwrap().trim_end()).unwrap()
}

fn store() -> KeyStore {
    let dir = data().join("keys");
    KeyStore::new(Some(dir.join("POOL")), Some(dir), FileCheck::none())
}

fn at(j: &Jwt) -> Validation<'static> {
    Validation::at(j.claims().issued_at.unwrap() + 5)
}

const RA: [u8; NONCE_LEN] = [0xa5; NONCE_LEN];
const RB: [u8; NONCE_LEN] = [0x5a; NONCE_LEN];

#[test]
fn round_trip_with_real_tokens_and_keys() {
    let keys = store();
    for name in ["condor", "authz", "other"] {
        let token = jwt(name);
        let (client, hello) = Client::start(&token);
        assert_eq!(hello.status, STATUS_OK);
        assert_eq!(hello.client_id, "condor@anchor.local");
        assert_eq!(hello.token, token.signing_input());
        assert_eq!(hello.ra.len(), NONCE_LEN);
        let config = ServerConfig::new(SERVER_ID, &keys, at(&token).with_issuer("anchor.local"));
        let (server, reply) = Server::start(&hello, &config);
        assert_eq!(reply.status, STATUS_OK, "{name}");
        assert_eq!(reply.mac.len(), MAC_LEN);
        let (confirm, client_side) = client.receive_reply(&reply);
        let client_side = client_side.unwrap();
        assert_eq!(confirm.status, STATUS_OK);
        assert_eq!(client_side.server_id(), SERVER_ID);
        let server_side = server.receive_confirm(&confirm).unwrap();
        assert_eq!(server_side.token.subject, "condor@anchor.local");
        assert_eq!(client_side.session_key(), server_side.session_key());
        if name == "authz" {
            assert_eq!(server_side.token.limit_authorization().as_deref(), Some("READ,ADVERTISE_STARTD"));
        } else {
            assert!(server_side.token.authz.is_empty());
        }
    }
}

type HmacSha1 = Hmac<sha1::Sha1>;

/// K from the primitives, with the seed's first and last bytes as
/// setup_seed writes them, to pin the salt layout (seed ‖ header.payload).
#[test]
fn byte_layouts_match_the_cpp() {
    let token = jwt("condor");
    let keys = Keys::derive(token.signature(), token.signing_input());

    // The signature is the token's third part, decoded: 32 bytes of HS256.
    assert_eq!(token.signature().len(), 32);

    let client_id = "condor@anchor.local";
    let mut buf = Vec::new();
    buf.extend_from_slice(format!("{client_id} {SERVER_ID}\0").as_bytes());
    buf.extend_from_slice(&RA);
    buf.extend_from_slice(&RB);
    assert_eq!(buf.len(), client_id.len() + 1 + SERVER_ID.len() + 1 + 2 * NONCE_LEN);
    let mut m = <HmacSha1 as Mac>::new_from_slice(keys.k()).unwrap();
    m.update(&buf);
    assert_eq!(keys.server_mac(client_id, SERVER_ID, &RA, &RB)[..], m.finalize().into_bytes()[..]);

    let mut buf = Vec::new();
    buf.extend_from_slice(format!("{client_id}\0").as_bytes());
    buf.extend_from_slice(&RB);
    let mut m = <HmacSha1 as Mac>::new_from_slice(keys.k()).unwrap();
    m.update(&buf);
    assert_eq!(keys.client_mac(client_id, &RB)[..], m.finalize().into_bytes()[..]);

    let mut w = [0u8; 32];
    hkdf::Hkdf::<sha2::Sha256>::new(Some(b"session key"), &RB).expand(b"htcondor", &mut w).unwrap();
    assert_eq!(session_key(&RB), w);

    // K and K' depend on both the signature and the header.payload text,
    // and differ from each other.
    assert_ne!(keys.k(), keys.k_prime());
    let other = Keys::derive(token.signature(), &(token.signing_input().to_string() + "x"));
    assert_ne!(keys.k(), other.k());
    let mut sig = token.signature().to_vec();
    sig[0] ^= 1;
    assert_ne!(keys.k(), Keys::derive(&sig, token.signing_input()).k());

    // The server derives the same K from the key alone (it never sees the
    // signature): its MAC is the one the client computes.
    let pool = read_key_file("POOL", &data().join("keys/POOL"), FileCheck::none()).unwrap();
    let recomputed = pool.sign(token.signing_input().as_bytes());
    assert_eq!(recomputed[..], token.signature()[..]);
}

fn exchange(hello: &ClientHello, keys: &KeyStore, v: Validation<'_>) -> (Server, ServerReply) {
    let config = ServerConfig::new(SERVER_ID, keys, v);
    Server::receive_hello(hello, &config, RB)
}

fn assert_error_shape(reply: &ServerReply) {
    assert_eq!(reply.status, STATUS_ERROR);
    assert!(reply.client_id.is_empty() && reply.server_id.is_empty());
    assert!(reply.ra.is_empty() && reply.rb.is_empty() && reply.mac.is_empty());
}

#[test]
fn server_refusals_keep_the_shape_and_say_why() {
    let keys = store();
    let token = jwt("condor");
    let (_, good) = Client::new(&token, RA);

    let cases: Vec<(&str, ClientHello, Validation<'static>, &str)> = vec![
        ("error status", ClientHello { status: STATUS_ERROR, ..good.clone() }, at(&token), "client reported an error"),
        ("short rA", ClientHello { ra: vec![1; 10], ..good.clone() }, at(&token), "rA of 10 bytes"),
        ("no token", ClientHello { token: String::new(), ..good.clone() }, at(&token), "no token"),
        ("wrong id", ClientHello { client_id: "root@anchor.local".into(), ..good.clone() }, at(&token), "subject"),
        ("expired", jwt_hello("short"), Validation::at(i64::MAX / 2), "expired"),
        ("too old", good.clone(), at(&token).with_max_age(Some(1)), "MAX_AGE"),
        ("wrong issuer", good.clone(), at(&token).with_issuer("elsewhere"), "trust domain"),
        ("garbage token", ClientHello { token: "not.a-token".into(), ..good.clone() }, at(&token), "JSON"),
    ];
    for (what, hello, v, needle) in cases {
        let (server, reply) = exchange(&hello, &keys, v);
        assert_error_shape(&reply);
        // The client answers an error reply with an error confirmation...
        let (client, _) = Client::new(&token, RA);
        let (confirm, outcome) = client.receive_reply(&reply);
        assert_eq!(confirm, ClientConfirm::error(), "{what}");
        assert!(outcome.unwrap_err().message().contains("refused"), "{what}");
        // ...and the server reports its own reason.
        let e = server.receive_confirm(&confirm).unwrap_err();
        assert!(e.message().contains(needle), "{what}: {e}");
    }

    // A key the server does not have.
    let empty = KeyStore::new(None, None, FileCheck::none());
    let (server, reply) = exchange(&good, &empty, at(&token));
    assert_error_shape(&reply);
    assert_eq!(server.receive_confirm(&ClientConfirm::error()).unwrap_err().kind(), ErrorKind::Policy);
}

fn jwt_hello(name: &str) -> ClientHello {
    Client::new(&jwt(name), RA).1
}

#[test]
fn a_client_without_the_signature_is_caught_by_the_server_mac_check() {
    // The client knows header.payload but forges the signature: the server's
    // reply MAC (under the true K) does not verify on the client, and the
    // client's MAC (under its false K) would not verify on the server.
    let keys = store();
    let token = jwt("condor");
    let forged = format!("{}.{}", token.signing_input(), "A".repeat(43));
    let forged = Jwt::parse(&forged).unwrap();
    let (client, hello) = Client::new(&forged, RA);
    let (server, reply) = exchange(&hello, &keys, at(&token));
    assert_eq!(reply.status, STATUS_OK, "the server cannot tell before message 3");
    let (confirm, outcome) = client.receive_reply(&reply);
    assert_eq!(outcome.unwrap_err().kind(), ErrorKind::Crypto);
    assert_eq!(confirm, ClientConfirm::error());
    assert!(server.receive_confirm(&confirm).is_err());

    // A client that ignores the bad server MAC and sends its own anyway.
    let (_, hello) = Client::new(&forged, RA);
    let (server, reply) = exchange(&hello, &keys, at(&token));
    let false_k = Keys::derive(forged.signature(), forged.signing_input());
    let confirm = ClientConfirm {
        status: STATUS_OK,
        client_id: hello.client_id.clone(),
        rb: reply.rb.clone(),
        mac: false_k.client_mac(&hello.client_id, &reply.rb).to_vec(),
    };
    let e = server.receive_confirm(&confirm).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Crypto);
    assert!(e.message().contains("does not hold this token's signature"), "{e}");
}

/// A named change to a message.
type Tamper<M> = (&'static str, fn(&mut M));

#[test]
fn tampered_messages_are_refused() {
    let keys = store();
    let token = jwt("authz");
    let good_run = || {
        let (client, hello) = Client::new(&token, RA);
        let (server, reply) = exchange(&hello, &keys, at(&token));
        (client, server, reply)
    };

    // Server reply: each field changed.
    let tamper: Vec<Tamper<ServerReply>> = vec![
        ("client id", |r| r.client_id.push('x')),
        ("server id", |r| r.server_id.push('x')),
        ("rA", |r| r.ra[0] ^= 1),
        ("rB", |r| r.rb[255] ^= 1),
        ("mac", |r| r.mac[19] ^= 1),
        ("short mac", |r| r.mac.truncate(10)),
        ("long rB", |r| r.rb.push(0)),
        ("status", |r| r.status = 7),
    ];
    for (what, f) in tamper {
        let (client, _, mut reply) = good_run();
        f(&mut reply);
        let (confirm, outcome) = client.receive_reply(&reply);
        assert!(outcome.is_err(), "{what}");
        assert_eq!(confirm, ClientConfirm::error(), "{what}");
    }

    // Client confirmation: each field changed.
    let tamper: Vec<Tamper<ClientConfirm>> = vec![
        ("client id", |c| c.client_id.push('x')),
        ("rB", |c| c.rb[0] ^= 1),
        ("mac", |c| c.mac[0] ^= 1),
        ("empty mac", |c| c.mac.clear()),
        ("status", |c| c.status = STATUS_ERROR),
    ];
    for (what, f) in tamper {
        let (client, server, reply) = good_run();
        let (mut confirm, outcome) = client.receive_reply(&reply);
        assert!(outcome.is_ok());
        f(&mut confirm);
        assert!(server.receive_confirm(&confirm).is_err(), "{what}");
    }
}

#[test]
fn a_token_without_subject_makes_an_error_hello() {
    let key = SigningKey::from_secret("POOL", b"k".to_vec()).unwrap();
    use base64::Engine;
    let e = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let input = format!("{}.{}", e.encode(r#"{"alg":"HS256","kid":"POOL"}"#), e.encode(r#"{"iss":"x"}"#));
    let sig = key.sign(input.as_bytes());
    let token = Jwt::parse(&format!("{input}.{}", e.encode(sig))).unwrap();
    let (client, hello) = Client::new(&token, RA);
    assert_eq!(hello.status, STATUS_ERROR);
    assert!(hello.client_id.is_empty() && hello.ra.is_empty());
    let config = ServerConfig::new(SERVER_ID, &key, Validation::at(0));
    let (_, reply) = Server::receive_hello(&hello, &config, RB);
    assert_error_shape(&reply);
    let (confirm, outcome) = client.receive_reply(&reply);
    assert_eq!(confirm, ClientConfirm::error());
    assert!(outcome.unwrap_err().message().contains("no subject"));
}

#[test]
fn messages_do_not_leak_secrets_in_debug() {
    let token = jwt("condor");
    let (client, hello) = Client::new(&token, RA);
    let keys = store();
    let (server, reply) = exchange(&hello, &keys, at(&token));
    let (confirm, session) = client.receive_reply(&reply);
    let session = session.unwrap();
    let all = format!("{hello:?}{reply:?}{confirm:?}{session:?}{server:?}{token:?}{keys:?}");
    assert!(!all.contains("condor@anchor.local"), "{all}");
    assert!(!all.contains(token.signing_input()), "{all}");
    assert!(!all.contains("165, 165"), "{all}");
}

/// A token whose alg is not HS256 is refused before any key is derived.
/// (HTCondor 23.9.6's server leaves the signature empty for an alg other
/// than HS256/384/512 and derives K from it; see the crate README.)
#[test]
fn unsigned_algorithms_are_refused_by_the_server() {
    use base64::Engine;
    let e = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let keys = store();
    let payload = e.encode(r#"{"iat":1796186947,"iss":"anchor.local","sub":"condor@anchor.local"}"#);
    for alg in ["none", "HS1", "RS256", "HS384"] {
        let input = format!("{}.{payload}", e.encode(format!(r#"{{"alg":"{alg}","kid":"POOL"}}"#)));
        let hello = ClientHello {
            status: STATUS_OK,
            client_id: "condor@anchor.local".into(),
            token: input.clone(),
            ra: RA.to_vec(),
        };
        let (server, reply) = exchange(&hello, &keys, Validation::at(1796186950));
        assert_error_shape(&reply);
        // What an attacker would send if the server had derived K from an empty signature.
        let empty_k = Keys::derive(b"", &input);
        let confirm = ClientConfirm {
            status: STATUS_OK,
            client_id: hello.client_id.clone(),
            rb: RB.to_vec(),
            mac: empty_k.client_mac(&hello.client_id, &RB).to_vec(),
        };
        let err = server.receive_confirm(&confirm).unwrap_err();
        assert!(err.message().contains("is not HS256"), "{alg}: {err}");
    }
}
