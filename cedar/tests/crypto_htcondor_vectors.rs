//! The crypto module against values computed by HTCondor 23.9.6 itself.
//!
//! `tests/data/crypto/htcondor_vectors.txt` was written by
//! `tests/data/crypto/htcondor_vectors.cpp`, a small program that links the
//! chroot's `libcondor_utils_23_9_6.so` and calls `Condor_Crypt_Base::hkdf`,
//! `Condor_Crypt_AESGCM::encrypt`/`decrypt` and
//! `SecMan::GenerateKeyExchange`/`EncodePubkey`/`FinishKeyExchange`
//! (regenerate with `tests/data/crypto/regenerate.sh`).

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::collections::HashMap;

use cedar::crypto::{AesGcmStream, KeyExchange, SessionKey, Transcript};

const VECTORS: &str = include_str!("data/crypto/htcondor_vectors.txt");

fn records(kind: &str) -> Vec<HashMap<&'static str, &'static str>> {
    VECTORS
        .lines()
        .filter_map(|line| {
            let (k, rest) = line.split_once(' ')?;
            (k == kind).then(|| rest.split(' ').filter_map(|kv| kv.split_once('=')).collect())
        })
        .collect()
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex {s}");
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn arr<const N: usize>(s: &str) -> [u8; N] {
    unhex(s).try_into().unwrap()
}

#[test]
fn hkdf_matches_condor_crypt_base() {
    let recs = records("hkdf");
    assert_eq!(recs.len(), 3);
    for r in recs {
        let ikm = unhex(r["ikm"]);
        assert_eq!(SessionKey::derive(&ikm).as_bytes().to_vec(), unhex(r["okm"]), "{}", r["name"]);
        // The string form (non-negotiated sessions) is the same derivation.
        let text = String::from_utf8(ikm.clone()).ok().filter(|t| !t.contains('\0'));
        if let Some(text) = text {
            assert_eq!(SessionKey::from_shared_string(&text).as_bytes().to_vec(), unhex(r["okm"]));
        }
    }
}

/// Each `gcm` record is one direction of a stream sealed by HTCondor with a
/// known key and base IV, the first packet's AAD built from the digests of
/// the `sent` and `recvd` plaintext bytes.
#[test]
fn aes_gcm_packets_match_condor_crypt_aesgcm() {
    let streams = records("gcm");
    let packets = records("gcm_packet");
    assert_eq!(streams.len(), 2);
    for s in &streams {
        let name = s["name"];
        let key = SessionKey::from_bytes(arr(s["key"]));
        let base_iv: [u8; 16] = arr(s["base_iv"]);
        let sent = unhex(s["sent"]);
        let recvd = unhex(s["recvd"]);
        // Our side as the sender: the transcript saw `sent` go out and
        // `recvd` come in (each a single packet, header first).
        let mut tx_t = Transcript::new();
        tx_t.record_sent(&sent[..5], &sent[5..]);
        tx_t.record_received(&recvd[..5], &recvd[5..]);
        let mut tx = AesGcmStream::with_base_iv(&key, tx_t, base_iv);
        // Our side as the receiver: the mirror image.
        let mut rx_t = Transcript::new();
        rx_t.record_received(&sent[..5], &sent[5..]);
        rx_t.record_sent(&recvd[..5], &recvd[5..]);
        let mut rx = AesGcmStream::new(&key, rx_t);

        let mine: Vec<_> = packets.iter().filter(|p| p["name"] == name).collect();
        assert_eq!(mine.len(), 3);
        for p in mine {
            assert_eq!(p["decrypt_ok"], "1", "HTCondor could not decrypt its own packet");
            let header = unhex(p["header"]);
            let plaintext = unhex(p["plaintext"]);
            let payload = unhex(p["payload"]);
            let sealed = tx.seal(header[0], &plaintext).unwrap();
            assert_eq!(&sealed[..5], &header[..], "{name} packet {} header", p["index"]);
            assert_eq!(&sealed[5..], &payload[..], "{name} packet {} payload", p["index"]);
            assert_eq!(rx.open(&header, &payload).unwrap(), plaintext, "{name} packet {}", p["index"]);
        }
    }
}

#[test]
fn ecdh_matches_secman_finish_key_exchange() {
    let recs = records("ecdh");
    assert_eq!(recs.len(), 2);
    for r in recs {
        assert_eq!(r["ok"], "1");
        let a = KeyExchange::from_private_bytes(&arr(r["a_private"])).unwrap();
        let b = KeyExchange::from_private_bytes(&arr(r["b_private"])).unwrap();
        // Our encoding of the public key is byte for byte HTCondor's.
        assert_eq!(a.public_key_base64(), r["a_public"]);
        assert_eq!(b.public_key_base64(), r["b_public"]);
        let expected = unhex(r["key_ab"]);
        assert_eq!(a.finish(r["b_public"]).unwrap().as_bytes().to_vec(), expected);
        assert_eq!(b.finish(r["a_public"]).unwrap().as_bytes().to_vec(), expected);
        assert_eq!(r["key_ba"], r["key_ab"]);
    }
    // HTCondor also accepts a compressed point; so do we, with the same key.
    let recs = records("ecdh_compressed");
    assert_eq!(recs.len(), 2);
    for r in recs {
        assert_eq!(r["ok"], "1");
        let c = KeyExchange::from_private_bytes(&arr(r["c_private"])).unwrap();
        assert_eq!(c.finish(r["b_public_compressed"]).unwrap().as_bytes().to_vec(), unhex(r["key"]));
    }
}
