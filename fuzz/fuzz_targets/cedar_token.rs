//! IDTOKENS: token parsing and the TOKEN method's AKEP2 server step.
//!
//! The first byte picks the mode:
//! * 0: the rest as a token (`Jwt::parse`, `Jwt::parse_unsigned`), as JSON,
//!   as a token file's text, and as a `SEC_TOKEN_REVOCATION_EXPR`;
//! * 1: the rest as the client's two messages on the wire (the table in the
//!   crate README), decoded and fed to the server, whose key is fixed: no
//!   confirmation the fuzzer makes may authenticate (it would need the
//!   HMAC under the token's signature);
//! * 2: a real exchange with a token minted from fuzzed claims, the client's
//!   messages then altered by fuzzed bytes: untouched messages must
//!   authenticate with the token's subject, altered MACs or nonces must not.
#![no_main]

use cedar::token::akep2::{ClientConfirm, ClientHello, Server, ServerConfig, NONCE_LEN, SERVER_ID};
use cedar::token::discovery::{tokens_in_text, TokenFilter};
use cedar::token::jwt::{Jwt, MintClaims, Validation};
use cedar::token::key::SigningKey;
use cedar::token::revocation::RevocationExpr;
use cedar::token::Client;
use cedar::wire::Decoder;
use classad_fuzz::cedar_input::Pieces;
use libfuzzer_sys::fuzz_target;

const NOW: i64 = 1_780_000_000;

fn key() -> SigningKey {
    match SigningKey::from_secret("POOL", b"fuzzing pool key, fuzzing pool key".to_vec()) {
        Ok(k) => k,
        Err(e) => panic!("the fixed key: {e}"),
    }
}

fn get_hello(d: &mut Decoder<'_>) -> cedar::error::Result<ClientHello> {
    let status = d.get_i32()?;
    let _len = d.get_int()?;
    let client_id = d.get_string()?;
    let token = d.get_string()?;
    let n = d.get_int()?;
    let ra = d.get_bytes(usize::try_from(n).unwrap_or(usize::MAX).min(NONCE_LEN))?.to_vec();
    Ok(ClientHello { status, client_id, token, ra })
}

fn get_confirm(d: &mut Decoder<'_>) -> cedar::error::Result<ClientConfirm> {
    let status = d.get_i32()?;
    let _len = d.get_int()?;
    let client_id = d.get_string()?;
    let n = d.get_int()?;
    let rb = d.get_bytes(usize::try_from(n).unwrap_or(usize::MAX).min(NONCE_LEN))?.to_vec();
    let n = d.get_int()?;
    let mac = d.get_bytes(usize::try_from(n).unwrap_or(usize::MAX).min(64))?.to_vec();
    Ok(ClientConfirm { status, client_id, rb, mac })
}

fn text_mode(data: &[u8]) {
    let _ = cedar::token::json::parse(data);
    let issuer_keys = vec!["POOL".to_string()];
    let filter = TokenFilter::new(Some("fuzz.example"), &issuer_keys);
    for jwt in tokens_in_text(data, &filter).take(100) {
        let _ = jwt.verify(&key(), &Validation::at(NOW));
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(jwt) = Jwt::parse(text) {
        let _ = (jwt.claims().scopes(), jwt.claims().authz(), jwt.key_id(), jwt.algorithm());
        let _ = jwt.verify(&key(), &Validation::at(NOW).with_max_age(Some(3600)).with_issuer("fuzz.example"));
        assert!(Jwt::parse_unsigned(jwt.signing_input()).is_ok(), "the signing input of a token does not parse");
    }
    let _ = Jwt::parse_unsigned(text);
    if let Ok(expr) = RevocationExpr::parse(text) {
        if let Ok(jwt) = Jwt::parse_unsigned("eyJhbGciOiJIUzI1NiIsImtpZCI6IlBPT0wifQ.eyJpc3MiOiJ4Iiwic3ViIjoieSJ9") {
            let _ = expr.is_revoked(jwt.claims());
        }
    }
}

fn wire_mode(data: &[u8]) {
    let key = key();
    let config = ServerConfig::new(SERVER_ID, &key, Validation::at(NOW));
    let mut d = Decoder::new(data, false).with_max_string(1 << 16);
    let Ok(hello) = get_hello(&mut d) else {
        return;
    };
    let (server, _reply) = Server::receive_hello(&hello, &config, [7; NONCE_LEN]);
    let confirm = get_confirm(&mut d).unwrap_or_else(|_| ClientConfirm::error());
    assert!(server.receive_confirm(&confirm).is_err(), "a fuzzed confirmation authenticated");
}

fn exchange_mode(data: &[u8]) {
    let mut p = Pieces::new(data);
    let subject = String::from_utf8_lossy(p.chunk()).into_owned();
    let issuer = String::from_utf8_lossy(p.chunk()).into_owned();
    let lifetime = i64::from(p.byte()) - 8;
    let scopes: Vec<String> =
        String::from_utf8_lossy(p.chunk()).split(',').filter(|s| !s.is_empty()).map(str::to_string).collect();
    let key = key();
    let Ok(token) = MintClaims::new(&issuer, &subject, NOW - 5, Some(lifetime), scopes).mint(&key) else {
        return;
    };
    let Ok(jwt) = Jwt::parse(&token) else {
        return;
    };
    let config = ServerConfig::new(SERVER_ID, &key, Validation::at(NOW));
    let mut ra = [0u8; NONCE_LEN];
    for (r, &b) in ra.iter_mut().zip(p.chunk()) {
        *r = b;
    }
    let (client, hello) = Client::new(&jwt, ra);
    let valid = jwt.verify(&key, &Validation::at(NOW)).is_ok() && hello.status == 0;
    let (server, reply) = Server::receive_hello(&hello, &config, [p.byte(); NONCE_LEN]);
    let (mut confirm, outcome) = client.receive_reply(&reply);
    if valid {
        assert!(outcome.is_ok(), "a good token failed on the client: {:?}", outcome.err());
    }
    let flips = p.rest();
    let mut altered = false;
    for (i, &f) in flips.iter().enumerate().take(64) {
        if f == 0 {
            continue;
        }
        let target = if i % 2 == 0 { &mut confirm.mac } else { &mut confirm.rb };
        if let Some(b) = target.get_mut(i / 2) {
            *b ^= f;
            altered = true;
        }
    }
    let result = server.receive_confirm(&confirm);
    if altered {
        assert!(result.is_err(), "an altered confirmation authenticated");
    } else if valid {
        match result {
            Ok(s) => assert_eq!(s.token.subject, subject),
            Err(e) => panic!("a good exchange failed on the server: {e}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    match sel % 3 {
        0 => text_mode(rest),
        1 => wire_mode(rest),
        _ => exchange_mode(rest),
    }
});
