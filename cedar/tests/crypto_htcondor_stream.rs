//! The transcript and AES-GCM framing against two real HTCondor 23.9.6
//! ReliSocks.
//!
//! `tests/data/crypto/htcondor_stream.txt` was recorded by
//! `tests/data/crypto/htcondor_stream.cpp`: two `ReliSock`s from the
//! chroot's libcondor_utils, talking through a relay that logs every byte.
//! Each connection exchanges plaintext messages, then both sides call
//! `Sock::set_crypto_key` with the same AES key and exchange encrypted
//! messages, which HTCondor decrypted successfully on the other side.
//!
//! Here our `Transcript` records the plaintext packets from each side's
//! view; then our `AesGcmStream` must (1) open every encrypted packet
//! HTCondor sent, and (2) given HTCondor's base IV, seal the same plaintext
//! to exactly HTCondor's bytes. Both only hold if our digests, AAD and IV
//! arithmetic are HTCondor's.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use std::collections::HashMap;

use cedar::crypto::{AesGcmStream, SessionKey, Transcript};

const DATA: &str = include_str!("data/crypto/htcondor_stream.txt");

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// Split a recorded chunk into packets (header, payload).
fn packets(bytes: &[u8]) -> Vec<([u8; 5], Vec<u8>)> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let hdr: [u8; 5] = rest[..5].try_into().unwrap();
        let len = u32::from_be_bytes([hdr[1], hdr[2], hdr[3], hdr[4]]) as usize;
        out.push((hdr, rest[5..5 + len].to_vec()));
        rest = &rest[5 + len..];
    }
    out
}

struct Side {
    transcript: Option<Transcript>,
    stream: Option<AesGcmStream>,
    /// A second stream that re-seals what this side sent, with its IV.
    mirror: Option<AesGcmStream>,
    mirror_transcript: Option<Transcript>,
}

impl Side {
    fn new() -> Self {
        Side { transcript: Some(Transcript::new()), stream: None, mirror: None, mirror_transcript: None }
    }
    fn stream(&mut self, key: &SessionKey) -> &mut AesGcmStream {
        if self.stream.is_none() {
            let t = self.transcript.take().unwrap();
            self.mirror_transcript = Some(t.clone());
            self.stream = Some(AesGcmStream::new(key, t));
        }
        self.stream.as_mut().unwrap()
    }
}

#[test]
fn our_transcript_and_cipher_agree_with_two_htcondor_relisocks() {
    let mut lines = DATA.lines();
    let key_line = lines.next().unwrap();
    let key = SessionKey::from_bytes(unhex(key_line.strip_prefix("key\t").unwrap()).try_into().unwrap());
    let mut conns: HashMap<&str, (Side, Side)> = HashMap::new(); // (client, server)
    let mut encrypted_packets = 0;
    let mut plain_packets = 0;
    for line in lines {
        let f: HashMap<&str, &str> = line.split('\t').skip(1).filter_map(|kv| kv.split_once('=')).collect();
        if line.starts_with("received") {
            assert_eq!(f["ok"], "1", "HTCondor's own receiver failed: {line}");
            continue;
        }
        let (client, server) = conns.entry(f["conn"]).or_insert_with(|| (Side::new(), Side::new()));
        let (sender, receiver) = if f["dir"] == "c2s" { (client, server) } else { (server, client) };
        for (hdr, payload) in packets(&unhex(f["bytes"])) {
            if f["phase"] == "plain" {
                sender.transcript.as_mut().unwrap().record_sent(&hdr, &payload);
                receiver.transcript.as_mut().unwrap().record_received(&hdr, &payload);
                plain_packets += 1;
                continue;
            }
            encrypted_packets += 1;
            // (1) The receiver opens HTCondor's packet.
            let plaintext = receiver.stream(&key).open(&hdr, &payload).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(plaintext.last(), Some(&0), "{line}");
            // (2) The sender, given HTCondor's base IV, seals the same bytes.
            sender.stream(&key);
            if sender.mirror.is_none() {
                let iv: [u8; 16] = payload[..16].try_into().unwrap();
                sender.mirror = Some(AesGcmStream::with_base_iv(&key, sender.mirror_transcript.take().unwrap(), iv));
            }
            let resealed = sender.mirror.as_mut().unwrap().seal(hdr[0], &plaintext).unwrap();
            assert_eq!(&resealed[..5], &hdr, "{line}");
            assert_eq!(resealed[5..], payload[..], "{line}");
        }
    }
    assert_eq!(conns.len(), 3);
    assert_eq!(plain_packets, 5);
    assert_eq!(encrypted_packets, 8);
}

/// `htcondor_stream_cap.txt`: two real ReliSocks (two processes) where the
/// client sent `messages` plaintext messages of 60009 payload bytes (an
/// 8-byte int and a 60000-character string) before AES-GCM. Up to 17
/// messages (1,020,153 bytes) both sides decrypt each other's first
/// packet; from 18 (1,080,162 bytes, over 1 MiB) neither does. Our model
/// (one packet per message here) must give the same outcome both ways.
#[test]
fn over_one_mib_of_plaintext_breaks_aes_gcm_as_in_htcondor() {
    const CAP: &str = include_str!("data/crypto/htcondor_stream_cap.txt");
    let key = SessionKey::from_bytes([0x40; 32]);
    let mut cases = 0;
    for line in CAP.lines() {
        let f: HashMap<&str, &str> = line.split('\t').skip(1).filter_map(|kv| kv.split_once('=')).collect();
        if f["side"] != "server" {
            continue;
        }
        let messages: usize = f["messages"].parse().unwrap();
        let cpp_client_ok = f["decrypted_client"] == "1";
        let client_line =
            CAP.lines().find(|l| l.contains(&format!("total={}\t", f["total"])) && l.contains("side=client")).unwrap();
        let cpp_server_ok = client_line.ends_with("decrypted_server=1");

        let (mut ct, mut st) = (Transcript::new(), Transcript::new());
        let payload = vec![b'a'; 60009];
        let len = (payload.len() as u32).to_be_bytes();
        let hdr = [1, len[0], len[1], len[2], len[3]];
        for _ in 0..messages {
            ct.record_sent(&hdr, &payload);
            st.record_received(&hdr, &payload);
        }
        let reply = [1, 0, 0, 0, 8];
        st.record_sent(&reply, &[0, 0, 0, 0, 0, 0, 0, 1]);
        ct.record_received(&reply, &[0, 0, 0, 0, 0, 0, 0, 1]);
        let mut client = AesGcmStream::new(&key, ct);
        let mut server = AesGcmStream::new(&key, st);
        let p = client.seal(1, &[0, 0, 0, 0, 0, 0, 0, 5]).unwrap();
        assert_eq!(server.open(&p[..5], &p[5..]).is_ok(), cpp_client_ok, "{line}");
        let q = server.seal(1, &[0, 0, 0, 0, 0, 0, 0, 7]).unwrap();
        assert_eq!(client.open(&q[..5], &q[5..]).is_ok(), cpp_server_ok, "{line}");
        cases += 1;
    }
    assert_eq!(cases, 6);
}
