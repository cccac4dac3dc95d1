//! AES-256-GCM on a CEDAR stream, as HTCondor 23.9.6 does it
//! (condor_crypt_aesgcm.cpp, reli_sock.cpp 975–1040 and 1190–1270).

use aes_gcm::aead::generic_array::typenum::U16;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::aes::Aes256;
use aes_gcm::{AesGcm, Key, Nonce};
use rand::RngCore;
use zeroize::Zeroize;

use super::key::SessionKey;
use super::transcript::Transcript;
use crate::error::Result;
use crate::{Error, ErrorKind};

/// AES-256-GCM with HTCondor's 16-byte IV (`IV_SIZE`,
/// condor_crypt_aesgcm.cpp 30) and the usual 16-byte tag.
type Aes256Gcm16 = AesGcm<Aes256, U16>;

/// IV length: 16 bytes (condor_crypt_aesgcm.cpp 30).
pub const IV_LEN: usize = 16;
/// GCM tag length: 16 bytes (condor_crypt_aesgcm.cpp 31).
pub const TAG_LEN: usize = 16;
/// Packet header length: the end flag and a big-endian u32 length.
pub const HEADER_LEN: usize = 5;
/// Largest packet payload either side accepts, counted after encryption
/// (`max_packet_size`, reli_sock.cpp 824).
pub const MAX_PAYLOAD: usize = 1024 * 1024;
/// Packets per direction: HTCondor refuses the packet whose counter is
/// 0xffffffff (condor_crypt_aesgcm.cpp 118, 272), so 2³²−1 packets at most.
pub const MAX_PACKETS: u32 = u32::MAX;

#[derive(Default)]
struct SendSide {
    base_iv: [u8; IV_LEN],
    counter: u32,
    /// The first packet (with the handshake digests) went out.
    aad_done: bool,
}

#[derive(Default)]
struct ReceiveSide {
    /// Taken from the first packet.
    base_iv: [u8; IV_LEN],
    counter: u32,
    aad_done: bool,
}

/// The per-packet IV: the base IV with its first 4 bytes replaced by
/// (those 4 bytes as a big-endian u32) + counter, wrapping
/// (condor_crypt_aesgcm.cpp 113–125; C++ adds as int32, which wraps the
/// same way).
fn packet_iv(base: &[u8; IV_LEN], counter: u32) -> [u8; IV_LEN] {
    let mut iv = *base;
    let head = u32::from_be_bytes([base[0], base[1], base[2], base[3]]).wrapping_add(counter);
    iv[..4].copy_from_slice(&head.to_be_bytes());
    iv
}

fn header(end: u8, len: usize) -> Result<[u8; HEADER_LEN]> {
    let len = u32::try_from(len).map_err(|_| Error::new(ErrorKind::LimitExceeded, format!("packet of {len} bytes")))?;
    let b = len.to_be_bytes();
    Ok([end, b[0], b[1], b[2], b[3]])
}

/// The AES-GCM state of one connection, both directions.
///
/// * Sending: a random 16-byte base IV; packet *n* (from 0) uses the base
///   IV with its first 4 bytes plus *n*. The first packet's payload is
///   base IV ‖ ciphertext ‖ tag, later ones ciphertext ‖ tag.
/// * AAD: the first packet sent takes the transcript's sent digest ‖
///   received digest ‖ the 5-byte header; the first packet received the
///   two digests swapped; every later packet the header alone. The header
///   carries the encrypted length.
///
/// Sans-IO: [`seal`](AesGcmStream::seal) gives the bytes of a whole
/// packet (header and payload); [`open`](AesGcmStream::open) takes a
/// header and payload read from the wire. State only advances on success.
///
/// ```
/// use cedar::crypto::{AesGcmStream, SessionKey, Transcript};
///
/// let key = SessionKey::from_bytes([7; 32]);
/// // Both sides hashed the same plaintext handshake, each from its side.
/// let mut client_t = Transcript::new();
/// let mut server_t = Transcript::new();
/// client_t.record_sent(&[1, 0, 0, 0, 2], b"hi");
/// server_t.record_received(&[1, 0, 0, 0, 2], b"hi");
///
/// let mut client = AesGcmStream::new(&key, client_t);
/// let mut server = AesGcmStream::new(&key, server_t);
/// let packet = client.seal(1, b"DC_AUTHENTICATE")?;
/// assert_eq!(packet.len(), 5 + 16 + 15 + 16); // header, IV, text, tag
/// let (hdr, payload) = packet.split_at(5);
/// assert_eq!(server.open(hdr, payload)?, b"DC_AUTHENTICATE");
/// # Ok::<(), cedar::Error>(())
/// ```
pub struct AesGcmStream {
    cipher: Aes256Gcm16,
    send: SendSide,
    receive: ReceiveSide,
    transcript: Transcript,
}

impl AesGcmStream {
    /// Turn AES-GCM on with `key`, a random base IV for our direction,
    /// and the connection's plaintext `transcript` so far.
    pub fn new(key: &SessionKey, transcript: Transcript) -> Self {
        let mut iv = [0u8; IV_LEN];
        rand::rngs::OsRng.fill_bytes(&mut iv);
        Self::with_base_iv(key, transcript, iv)
    }

    /// As [`AesGcmStream::new`] with a chosen base IV: for test vectors
    /// only. Reusing a base IV with the same key breaks GCM.
    pub fn with_base_iv(key: &SessionKey, transcript: Transcript, base_iv: [u8; IV_LEN]) -> Self {
        AesGcmStream {
            cipher: {
                let mut k: Key<Aes256Gcm16> = (*key.as_bytes()).into();
                let cipher = Aes256Gcm16::new(&k);
                k[..].zeroize();
                cipher
            },
            send: SendSide { base_iv, ..SendSide::default() },
            receive: ReceiveSide::default(),
            transcript,
        }
    }

    /// The connection's transcript. While encryption is switched off on a
    /// connection that has a key, the wire layer keeps recording plaintext
    /// packets here; it has no effect once the digests are frozen.
    pub fn transcript_mut(&mut self) -> &mut Transcript {
        &mut self.transcript
    }

    /// Payload length of the next sealed packet for `plaintext_len` bytes.
    pub fn sealed_len(&self, plaintext_len: usize) -> usize {
        let iv = if self.send.counter == 0 { IV_LEN } else { 0 };
        plaintext_len.saturating_add(TAG_LEN + iv)
    }

    /// The largest plaintext the next sealed packet can carry within the
    /// 1 MiB payload limit.
    pub fn max_plaintext_len(&self) -> usize {
        MAX_PAYLOAD - self.sealed_len(0)
    }

    /// Packets sealed so far.
    pub fn packets_sent(&self) -> u32 {
        self.send.counter
    }

    /// Packets opened so far.
    pub fn packets_received(&self) -> u32 {
        self.receive.counter
    }

    /// Encrypt one packet: returns header ‖ payload, ready for the wire.
    /// `end` is the header's end flag (1 for the last packet of a message).
    ///
    /// Errors: [`ErrorKind::LimitExceeded`] if the payload would pass
    /// 1 MiB or the packet counter is exhausted.
    pub fn seal(&mut self, end: u8, plaintext: &[u8]) -> Result<Vec<u8>> {
        if self.send.counter == MAX_PACKETS {
            return Err(Error::new(ErrorKind::LimitExceeded, "hit max number of packets per connection"));
        }
        let payload_len = self.sealed_len(plaintext.len());
        if payload_len > MAX_PAYLOAD {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("encrypted packet of {payload_len} bytes (limit {MAX_PAYLOAD})"),
            ));
        }
        let hdr = header(end, payload_len)?;
        let aad = if self.send.aad_done { hdr.to_vec() } else { self.transcript.freeze().send_aad(&hdr) };
        let iv: Nonce<U16> = packet_iv(&self.send.base_iv, self.send.counter).into();
        let sealed = self
            .cipher
            .encrypt(&iv, Payload { msg: plaintext, aad: &aad })
            .map_err(|_| Error::new(ErrorKind::Crypto, "AES-GCM encryption failed"))?;
        let mut packet = Vec::with_capacity(HEADER_LEN + payload_len);
        packet.extend_from_slice(&hdr);
        if self.send.counter == 0 {
            packet.extend_from_slice(&self.send.base_iv);
        }
        packet.extend_from_slice(&sealed);
        self.send.counter += 1;
        self.send.aad_done = true;
        Ok(packet)
    }

    /// Decrypt one packet read from the wire: its 5-byte header and its
    /// payload.
    ///
    /// Errors: [`ErrorKind::Malformed`] for a header that does not match
    /// the payload or a payload too short for IV and tag,
    /// [`ErrorKind::LimitExceeded`] for a payload over 1 MiB or an
    /// exhausted counter, [`ErrorKind::Crypto`] when the tag does not
    /// verify (wrong key, tampering, or a transcript that differs from the
    /// peer's).
    pub fn open(&mut self, header: &[u8], payload: &[u8]) -> Result<Vec<u8>> {
        let hdr: [u8; HEADER_LEN] = header
            .try_into()
            .map_err(|_| Error::new(ErrorKind::Malformed, format!("packet header of {} bytes", header.len())))?;
        let declared = u32::from_be_bytes([hdr[1], hdr[2], hdr[3], hdr[4]]) as usize;
        if declared != payload.len() {
            return Err(Error::new(
                ErrorKind::Malformed,
                format!("header says {declared} bytes, payload has {}", payload.len()),
            ));
        }
        if payload.len() > MAX_PAYLOAD {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("packet of {} bytes (limit {MAX_PAYLOAD})", payload.len()),
            ));
        }
        if self.receive.counter == MAX_PACKETS {
            return Err(Error::new(ErrorKind::LimitExceeded, "hit max number of packets per connection"));
        }
        let first = self.receive.counter == 0;
        let overhead = TAG_LEN + if first { IV_LEN } else { 0 };
        if payload.len() < overhead {
            return Err(Error::new(
                ErrorKind::Malformed,
                format!("encrypted packet of {} bytes is shorter than its IV and tag", payload.len()),
            ));
        }
        let (base_iv, body) = if first {
            let mut iv = [0u8; IV_LEN];
            iv.copy_from_slice(&payload[..IV_LEN]);
            (iv, &payload[IV_LEN..])
        } else {
            (self.receive.base_iv, payload)
        };
        let aad = if self.receive.aad_done { hdr.to_vec() } else { self.transcript.freeze().receive_aad(&hdr) };
        let iv: Nonce<U16> = packet_iv(&base_iv, self.receive.counter).into();
        let plaintext = self
            .cipher
            .decrypt(&iv, Payload { msg: body, aad: &aad })
            .map_err(|_| Error::new(ErrorKind::Crypto, "AES-GCM tag check failed: failed to unwrap the packet"))?;
        self.receive.base_iv = base_iv;
        self.receive.counter += 1;
        self.receive.aad_done = true;
        Ok(plaintext)
    }
}

impl Drop for AesGcmStream {
    fn drop(&mut self) {
        // The cipher's key schedule is wiped by aes-gcm's `zeroize`
        // feature; the IVs are not secret but cost nothing to clear.
        self.send.base_iv.zeroize();
        self.receive.base_iv.zeroize();
    }
}

impl std::fmt::Debug for AesGcmStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AesGcmStream")
            .field("packets_sent", &self.send.counter)
            .field("packets_received", &self.receive.counter)
            .field("transcript", &self.transcript)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (AesGcmStream, AesGcmStream) {
        let key = SessionKey::from_bytes([3; 32]);
        let mut a = Transcript::new();
        let mut b = Transcript::new();
        a.record_sent(&[1, 0, 0, 0, 1], b"x");
        b.record_received(&[1, 0, 0, 0, 1], b"x");
        b.record_sent(&[1, 0, 0, 0, 1], b"y");
        a.record_received(&[1, 0, 0, 0, 1], b"y");
        (AesGcmStream::new(&key, a), AesGcmStream::new(&key, b))
    }

    #[test]
    fn iv_arithmetic_wraps() {
        let base = [0xff, 0xff, 0xff, 0xfe, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9];
        assert_eq!(packet_iv(&base, 0), base);
        assert_eq!(packet_iv(&base, 1)[..4], [0xff; 4]);
        assert_eq!(packet_iv(&base, 2)[..4], [0, 0, 0, 0]);
        assert_eq!(packet_iv(&base, 2)[4..], base[4..]);
    }

    #[test]
    fn both_directions_many_packets() {
        let (mut a, mut b) = pair();
        for i in 0..5u8 {
            let p = a.seal(u8::from(i == 4), &[i; 10]).unwrap();
            assert_eq!(p.len(), 5 + 10 + 16 + if i == 0 { 16 } else { 0 });
            assert_eq!(b.open(&p[..5], &p[5..]).unwrap(), vec![i; 10]);
            let q = b.seal(1, b"").unwrap();
            assert!(a.open(&q[..5], &q[5..]).unwrap().is_empty());
        }
        assert_eq!((a.packets_sent(), a.packets_received()), (5, 5));
    }

    #[test]
    fn transcript_mismatch_fails_first_packet() {
        let key = SessionKey::from_bytes([3; 32]);
        let mut a_t = Transcript::new();
        a_t.record_sent(&[1, 0, 0, 0, 1], b"x");
        let mut b_t = Transcript::new();
        b_t.record_received(&[1, 0, 0, 0, 1], b"X");
        let mut a = AesGcmStream::new(&key, a_t);
        let mut b = AesGcmStream::new(&key, b_t);
        let p = a.seal(1, b"hello").unwrap();
        assert_eq!(b.open(&p[..5], &p[5..]).unwrap_err().kind(), ErrorKind::Crypto);
        // Nothing advanced.
        assert_eq!(b.packets_received(), 0);
    }

    #[test]
    fn tampering_and_reordering_fail() {
        let (mut a, mut b) = pair();
        let p0 = a.seal(0, b"zero").unwrap();
        let p1 = a.seal(1, b"one").unwrap();
        // Out of order: p1 as the first packet.
        assert!(b.open(&p1[..5], &p1[5..]).is_err());
        let mut bad = p0.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert_eq!(b.open(&bad[..5], &bad[5..]).unwrap_err().kind(), ErrorKind::Crypto);
        // The end flag is authenticated too.
        let mut flag = p0.clone();
        flag[0] = 1;
        assert_eq!(b.open(&flag[..5], &flag[5..]).unwrap_err().kind(), ErrorKind::Crypto);
        assert_eq!(b.open(&p0[..5], &p0[5..]).unwrap(), b"zero");
        assert_eq!(b.open(&p1[..5], &p1[5..]).unwrap(), b"one");
        // Replay of an old packet fails.
        assert!(b.open(&p1[..5], &p1[5..]).is_err());
    }

    #[test]
    fn malformed_inputs() {
        let (_, mut b) = pair();
        assert_eq!(b.open(&[1, 0, 0], b"").unwrap_err().kind(), ErrorKind::Malformed);
        assert_eq!(b.open(&[1, 0, 0, 0, 9], b"short").unwrap_err().kind(), ErrorKind::Malformed);
        assert_eq!(b.open(&[1, 0, 0, 0, 20], &[0; 20]).unwrap_err().kind(), ErrorKind::Malformed);
        let big = vec![0u8; MAX_PAYLOAD + 1];
        let hdr = header(1, big.len()).unwrap();
        assert_eq!(b.open(&hdr, &big).unwrap_err().kind(), ErrorKind::LimitExceeded);
    }

    #[test]
    fn size_limit_counts_iv_and_tag() {
        let (mut a, mut b) = pair();
        assert_eq!(a.max_plaintext_len(), MAX_PAYLOAD - 32);
        let too_big = vec![0u8; MAX_PAYLOAD - 31];
        assert_eq!(a.seal(1, &too_big).unwrap_err().kind(), ErrorKind::LimitExceeded);
        let fits = vec![5u8; MAX_PAYLOAD - 32];
        let p = a.seal(1, &fits).unwrap();
        assert_eq!(p.len(), 5 + MAX_PAYLOAD);
        assert_eq!(b.open(&p[..5], &p[5..]).unwrap(), fits);
        assert_eq!(a.max_plaintext_len(), MAX_PAYLOAD - 16);
    }

    #[test]
    fn counter_exhaustion() {
        let (mut a, mut b) = pair();
        a.send.counter = MAX_PACKETS - 1;
        a.send.aad_done = true;
        assert!(a.seal(1, b"last").is_ok());
        assert_eq!(a.seal(1, b"one too many").unwrap_err().kind(), ErrorKind::LimitExceeded);
        b.receive.counter = MAX_PACKETS;
        assert_eq!(b.open(&[1, 0, 0, 0, 16], &[0; 16]).unwrap_err().kind(), ErrorKind::LimitExceeded);
    }

    #[test]
    fn debug_shows_no_key() {
        let key = SessionKey::from_bytes([0x5a; 32]);
        let s = AesGcmStream::new(&key, Transcript::new());
        let shown = format!("{s:?}");
        assert!(!shown.contains("5a") && !shown.contains("90"), "{shown}");
    }
}
