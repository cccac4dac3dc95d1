//! No input panics the token code: random bytes and mutated real tokens
//! into the JWT parser, the token-file reader and both AKEP2 roles.

// Test helpers unwrap: a fixture that fails to load is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use cedar::token::akep2::{
    Client, ClientConfirm, ClientHello, Server, ServerConfig, ServerReply, NONCE_LEN, SERVER_ID,
};
use cedar::token::discovery::{tokens_in_text, TokenFilter};
use cedar::token::json;
use cedar::token::jwt::{Jwt, Validation};
use cedar::token::key::{read_key_file, FileCheck, SigningKey};
use proptest::prelude::*;

fn real_token() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/token/authz.jwt");
    std::fs::read_to_string(p).unwrap().trim_end().to_string()
}

fn pool() -> SigningKey {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/token/keys/POOL");
    read_key_file("POOL", &p, FileCheck::none()).unwrap()
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,80}",
        "[A-Za-z0-9_.-]{0,120}",
        proptest::collection::vec(any::<u8>(), 0..200).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![proptest::collection::vec(any::<u8>(), 0..=max), Just(vec![7u8; NONCE_LEN]),]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn jwt_parser_never_panics(s in text()) {
        if let Ok(j) = Jwt::parse(&s) {
            let _ = j.verify(&pool(), &Validation::at(0));
        }
        let _ = Jwt::parse_unsigned(&s);
        let _ = json::parse(s.as_bytes());
    }

    #[test]
    fn mutated_real_tokens_never_verify_wrongly(i in 0usize..400, c in any::<u8>()) {
        let real = real_token();
        let mut b = real.clone().into_bytes();
        let i = i % b.len();
        b[i] = c;
        if let Ok(s) = String::from_utf8(b) {
            if let Ok(j) = Jwt::parse(&s) {
                let v = j.verify(&pool(), &Validation::at(1_800_000_000));
                // Only the untouched token (or one differing in unused
                // trailing signature bits) can pass.
                if v.is_ok() {
                    let original = Jwt::parse(&real).unwrap();
                    prop_assert_eq!(j.signing_input(), original.signing_input());
                }
            }
        }
    }

    #[test]
    fn token_file_reader_never_panics(b in proptest::collection::vec(any::<u8>(), 0..400)) {
        let f = TokenFilter::new(Some("anchor.local"), &[]);
        let _ = tokens_in_text(&b, &f).count();
    }

    #[test]
    fn server_never_panics(status in -3i32..3, id in text(), token in text(), ra in bytes(300),
                           cstatus in -3i32..3, cid in text(), rb in bytes(300), mac in bytes(80)) {
        let key = pool();
        let config = ServerConfig::new(SERVER_ID, &key, Validation::at(1_800_000_000));
        let hello = ClientHello { status, client_id: id, token, ra };
        let (server, reply) = Server::receive_hello(&hello, &config, [3; NONCE_LEN]);
        let _ = reply.check_bounds();
        let confirm = ClientConfirm { status: cstatus, client_id: cid, rb, mac };
        prop_assert!(server.receive_confirm(&confirm).is_err());
    }

    #[test]
    fn client_never_panics(status in -3i32..3, cid in text(), sid in text(), ra in bytes(300), rb in bytes(300), mac in bytes(80)) {
        let j = Jwt::parse(&real_token()).unwrap();
        let (client, _) = Client::new(&j, [1; NONCE_LEN]);
        let reply = ServerReply { status, client_id: cid, server_id: sid, ra, rb, mac };
        let (_, outcome) = client.receive_reply(&reply);
        prop_assert!(outcome.is_err());
    }

    #[test]
    fn key_bytes_never_panic(kid in text(), file in proptest::collection::vec(any::<u8>(), 0..300)) {
        if let Ok(k) = SigningKey::from_file_bytes(&kid, &file) {
            let _ = k.jwt_key();
        }
    }
}
