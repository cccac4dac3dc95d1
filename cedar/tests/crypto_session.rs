//! Whole connections through the crypto module: the plaintext handshake
//! recorded on both sides, then AES-GCM both ways, including the resume
//! case where one direction carried no plaintext.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use cedar::crypto::{AesGcmStream, HandshakeDigests, KeyExchange, Transcript};
use cedar::ErrorKind;
use proptest::prelude::*;
use sha2::{Digest, Sha256};

/// A plaintext packet as the wire layer would frame it.
fn packet(end: u8, payload: &[u8]) -> ([u8; 5], Vec<u8>) {
    let len = (payload.len() as u32).to_be_bytes();
    ([end, len[0], len[1], len[2], len[3]], payload.to_vec())
}

/// Record `payloads` as sent by `from` and received by `to`.
fn exchange(from: &mut Transcript, to: &mut Transcript, payloads: &[&[u8]]) {
    for (i, p) in payloads.iter().enumerate() {
        let (h, b) = packet(u8::from(i + 1 == payloads.len()), p);
        from.record_sent(&h, &b);
        to.record_received(&h, &b);
    }
}

#[test]
fn new_session_handshake_then_both_directions() {
    let (mut ct, mut st) = (Transcript::new(), Transcript::new());
    // DC_AUTHENTICATE and the client ad; the response ad; the auth exchange.
    exchange(&mut ct, &mut st, &[b"\0\0\0\0\0\0\xea\x6a", b"[ client ad ]"]);
    exchange(&mut st, &mut ct, &[b"[ response ad ]"]);
    exchange(&mut ct, &mut st, &[b"\0\0\0\0\0\0\0\x02"]);
    exchange(&mut st, &mut ct, &[b"\0\0\0\0\0\0\0\x02", b"\0\0\0\0\0\0\0\0"]);

    let ckx = KeyExchange::generate();
    let skx = KeyExchange::generate();
    let ckey = ckx.finish(&skx.public_key_base64()).unwrap();
    let skey = skx.finish(&ckx.public_key_base64()).unwrap();
    let mut client = AesGcmStream::new(&ckey, ct);
    let mut server = AesGcmStream::new(&skey, st);

    // The server speaks first (the post-auth ad), then they alternate.
    for round in 0..4u8 {
        let p = server.seal(1, &[round; 100]).unwrap();
        assert_eq!(client.open(&p[..5], &p[5..]).unwrap(), vec![round; 100]);
        let q = client.seal(0, b"part").unwrap();
        let r = client.seal(1, b"end").unwrap();
        assert_eq!(server.open(&q[..5], &q[5..]).unwrap(), b"part");
        assert_eq!(server.open(&r[..5], &r[5..]).unwrap(), b"end");
    }
}

#[test]
fn resume_without_response_uses_zeros_for_the_silent_direction() {
    let (mut ct, mut st) = (Transcript::new(), Transcript::new());
    exchange(&mut ct, &mut st, &[b"\0\0\0\0\0\0\xea\x6a", b"[ resume ad ]"]);
    let HandshakeDigests::Digests { sent, received } = ct.clone().freeze() else { panic!() };
    assert_eq!(received, [0; 32]);
    let mut h = Sha256::new();
    for (i, p) in [&b"\0\0\0\0\0\0\xea\x6a"[..], b"[ resume ad ]"].iter().enumerate() {
        let (hdr, body) = packet(u8::from(i == 1), p);
        h.update(hdr);
        h.update(body);
    }
    assert_eq!(sent, <[u8; 32]>::from(h.finalize()));

    let key = cedar::crypto::SessionKey::from_shared_string("session key from the cache");
    let mut client = AesGcmStream::new(&key, ct);
    let mut server = AesGcmStream::new(&key, st);
    let p = client.seal(1, b"the command's payload").unwrap();
    assert_eq!(server.open(&p[..5], &p[5..]).unwrap(), b"the command's payload");

    // Had the server wrongly hashed SHA-256("") for the silent direction,
    // the first packet would fail.
    let (mut ct2, mut st2) = (Transcript::new(), Transcript::new());
    exchange(&mut ct2, &mut st2, &[b"x"]);
    st2.record_sent(&[], &[]); // an empty record: SHA-256 of nothing, not zeros
    let mut client = AesGcmStream::new(&key, ct2);
    let mut server = AesGcmStream::new(&key, st2);
    let p = client.seal(1, b"y").unwrap();
    assert_eq!(server.open(&p[..5], &p[5..]).unwrap_err().kind(), ErrorKind::Crypto);
}

#[test]
fn wrong_key_fails_with_crypto_error() {
    let a = cedar::crypto::SessionKey::from_shared_string("a");
    let b = cedar::crypto::SessionKey::from_shared_string("b");
    let mut tx = AesGcmStream::new(&a, Transcript::new());
    let mut rx = AesGcmStream::new(&b, Transcript::new());
    let p = tx.seal(1, b"secret").unwrap();
    assert_eq!(rx.open(&p[..5], &p[5..]).unwrap_err().kind(), ErrorKind::Crypto);
}

proptest! {
    #[test]
    fn any_packets_round_trip(msgs in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..300), 1..20)) {
        let key = cedar::crypto::SessionKey::from_bytes([9; 32]);
        let mut tx = AesGcmStream::new(&key, Transcript::new());
        let mut rx = AesGcmStream::new(&key, Transcript::new());
        for m in &msgs {
            let p = tx.seal(1, m).unwrap();
            prop_assert_eq!(&rx.open(&p[..5], &p[5..]).unwrap(), m);
        }
    }

    #[test]
    fn open_never_panics(header in proptest::collection::vec(any::<u8>(), 0..8), payload in proptest::collection::vec(any::<u8>(), 0..200)) {
        let key = cedar::crypto::SessionKey::from_bytes([9; 32]);
        let mut rx = AesGcmStream::new(&key, Transcript::new());
        prop_assert!(rx.open(&header, &payload).is_err());
    }

    #[test]
    fn peer_key_parsing_never_panics(s in ".{0,200}") {
        let kx = KeyExchange::generate();
        let _ = kx.finish(&s);
    }
}
