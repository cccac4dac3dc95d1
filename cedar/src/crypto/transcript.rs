//! The plaintext transcript of a connection, whose digests bind the
//! handshake to the first AES-GCM packet of each direction.
//!
//! What HTCondor 23.9.6 hashes (reli_sock.cpp, `SndMsg::snd_packet`
//! 1160–1188 and `RcvMsg::rcv_packet` 919–971):
//!
//! * every plaintext packet, **header (5 bytes, with the plaintext
//!   length) and payload**, sent or received on the socket while
//!   encryption is off, in the order they travel;
//! * one SHA-256 per direction, created lazily on the first packet: a
//!   direction that never carried a hashed packet contributes 32 zero
//!   bytes, not SHA-256 of nothing (reli_sock.cpp 993–996, 1011–1014,
//!   1223–1226, 1241–1244);
//! * both digests are frozen together when the first encrypted packet is
//!   sent or received, whichever comes first (`m_final_mds`), and hashing
//!   stops;
//! * `ReliSock::resetHeaderMD` (after a shared-port or CCB hand-off,
//!   shared_port_client.cpp 169) starts both digests again; the byte
//!   counters below are not reset.
//!
//! The 1 MiB cap is not a truncation. HTCondor counts payload bytes
//! (`_bytes_sent` when a message is put, `_bytes_recvd` when it is read;
//! headers not included):
//!
//! * a sent packet is hashed only while `_bytes_sent`, which already
//!   includes that packet, is below 1 MiB (snd_packet 1160);
//! * a received packet is hashed only while `_bytes_recvd`, which covers
//!   the earlier packets, is below 1 MiB (rcv_packet 919, 964);
//! * once `_bytes_sent` is over 1 MiB, the socket drops **both** digest
//!   contexts and marks both directions finished (reli_sock.cpp
//!   1046–1051, 1276–1280; note the receive side tests `_bytes_sent`
//!   too), so the first encrypted packets then carry the 5-byte header
//!   alone as AAD.
//!
//! [`Transcript`] follows these rules packet by packet. Its counts match
//! HTCondor's exactly for whole messages; within a message over 1 MiB,
//! HTCondor's counts depend on where its buffer split the message, so a
//! peer that sent more than 1 MiB of plaintext before encryption may
//! disagree with us by one packet. Two HTCondor peers disagree in that
//! case too (one side falls back to header-only AAD, the other does not),
//! so such connections cannot start AES-GCM in HTCondor either. Two real
//! 23.9.6 ReliSocks confirm this: after 17 messages of 60009 bytes
//! (1,020,153) both first encrypted packets decrypt, after 18 (1,080,162)
//! neither does (`tests/crypto_htcondor_stream.rs`). A real handshake is a
//! few kilobytes.

use sha2::{Digest, Sha256};

/// The 1 MiB cap on the plaintext counted into the digests
/// (`MAX_MESSAGE_SIZE`, reli_sock.cpp 47).
pub const DIGEST_CAP: u64 = 1024 * 1024;

/// What the first encrypted packet of a direction authenticates besides
/// its header.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum HandshakeDigests {
    /// The normal case: SHA-256 of all plaintext sent (or 32 zeros) and of
    /// all plaintext received (or 32 zeros), from this side's view.
    Digests {
        /// Digest of the plaintext this side sent.
        sent: [u8; 32],
        /// Digest of the plaintext this side received.
        received: [u8; 32],
    },
    /// More than 1 MiB was sent in plaintext: HTCondor dropped the digests
    /// and the first packets carry the header alone.
    HeaderOnly,
}

impl HandshakeDigests {
    /// The AAD of the first packet this side **sends**: sent digest ‖
    /// received digest ‖ header (69 bytes), or the header alone.
    pub fn send_aad(&self, header: &[u8; 5]) -> Vec<u8> {
        self.aad(header, true)
    }

    /// The AAD of the first packet this side **receives**: the same digests
    /// in the other order (received ‖ sent ‖ header), which is the sender's
    /// view of them.
    pub fn receive_aad(&self, header: &[u8; 5]) -> Vec<u8> {
        self.aad(header, false)
    }

    fn aad(&self, header: &[u8; 5], sending: bool) -> Vec<u8> {
        match self {
            HandshakeDigests::Digests { sent, received } => {
                let (first, second) = if sending { (sent, received) } else { (received, sent) };
                let mut aad = Vec::with_capacity(69);
                aad.extend_from_slice(first);
                aad.extend_from_slice(second);
                aad.extend_from_slice(header);
                aad
            }
            HandshakeDigests::HeaderOnly => header.to_vec(),
        }
    }
}

#[derive(Clone, Default)]
struct Direction {
    /// `None` until the first hashed packet (the "32 zeros" case).
    hasher: Option<Sha256>,
    /// Payload bytes counted the way HTCondor counts them.
    payload_bytes: u64,
}

impl Direction {
    fn hash(&mut self, header: &[u8], payload: &[u8]) {
        let h = self.hasher.get_or_insert_with(Sha256::new);
        h.update(header);
        h.update(payload);
    }

    fn digest(&self) -> [u8; 32] {
        match &self.hasher {
            Some(h) => h.clone().finalize().into(),
            None => [0u8; 32],
        }
    }
}

/// Records the plaintext packets of one connection, both directions, and
/// gives the digests for the first AES-GCM packets.
///
/// The wire layer feeds it every packet it sends or receives while
/// encryption is off: the 5-byte header as it went on the wire, then the
/// payload.
///
/// ```
/// use cedar::crypto::{HandshakeDigests, Transcript};
/// use sha2::{Digest, Sha256};
///
/// let mut t = Transcript::new();
/// t.record_sent(&[1, 0, 0, 0, 3], b"abc");
/// let HandshakeDigests::Digests { sent, received } = t.freeze() else { unreachable!() };
/// assert_eq!(sent, <[u8; 32]>::from(Sha256::digest(b"\x01\x00\x00\x00\x03abc")));
/// assert_eq!(received, [0u8; 32]); // nothing received: zeros, not SHA-256("")
/// ```
#[derive(Clone, Default)]
pub struct Transcript {
    sent: Direction,
    received: Direction,
    /// Over the cap: both digests were dropped (header-only AAD).
    abandoned: bool,
    frozen: Option<HandshakeDigests>,
}

impl Transcript {
    /// An empty transcript for a new connection.
    pub fn new() -> Self {
        Self::default()
    }

    /// Record a plaintext packet we sent: its header and payload.
    pub fn record_sent(&mut self, header: &[u8], payload: &[u8]) {
        self.sent.payload_bytes = self.sent.payload_bytes.saturating_add(payload.len() as u64);
        if self.frozen.is_none() && !self.abandoned && self.sent.payload_bytes < DIGEST_CAP {
            self.sent.hash(header, payload);
        }
        self.check_cap();
    }

    /// Record a plaintext packet we received: its header and payload.
    pub fn record_received(&mut self, header: &[u8], payload: &[u8]) {
        if self.frozen.is_none() && !self.abandoned && self.received.payload_bytes < DIGEST_CAP {
            self.received.hash(header, payload);
        }
        self.received.payload_bytes = self.received.payload_bytes.saturating_add(payload.len() as u64);
        self.check_cap();
    }

    fn check_cap(&mut self) {
        if self.frozen.is_none() && self.sent.payload_bytes > DIGEST_CAP {
            self.abandoned = true;
            self.sent.hasher = None;
            self.received.hasher = None;
        }
    }

    /// One connection's transcript from its two halves: the `sent` side of
    /// `sent_half` (the writer's record) and the `received` side of
    /// `received_half` (the reader's). The 1 MiB rule depends on the bytes
    /// sent alone, so a writer over the cap gives header-only AAD, as one
    /// transcript recording both directions would. A frozen half keeps its
    /// digests.
    ///
    /// ```
    /// use cedar::crypto::Transcript;
    /// let (mut writer, mut reader, mut both) = (Transcript::new(), Transcript::new(), Transcript::new());
    /// writer.record_sent(&[1, 0, 0, 0, 1], b"a");
    /// both.record_sent(&[1, 0, 0, 0, 1], b"a");
    /// reader.record_received(&[1, 0, 0, 0, 1], b"b");
    /// both.record_received(&[1, 0, 0, 0, 1], b"b");
    /// assert_eq!(Transcript::join(&writer, &reader).freeze(), both.freeze());
    /// ```
    pub fn join(sent_half: &Transcript, received_half: &Transcript) -> Transcript {
        let mut t = Transcript {
            sent: sent_half.sent.clone(),
            received: received_half.received.clone(),
            abandoned: sent_half.abandoned,
            frozen: None,
        };
        if let (Some(HandshakeDigests::Digests { sent, .. }), Some(HandshakeDigests::Digests { received, .. })) =
            (sent_half.frozen, received_half.frozen)
        {
            t.frozen = Some(HandshakeDigests::Digests { sent, received });
        } else if sent_half.frozen == Some(HandshakeDigests::HeaderOnly) {
            t.frozen = Some(HandshakeDigests::HeaderOnly);
        }
        t
    }

    /// Start both digests again, as `ReliSock::resetHeaderMD` does after a
    /// shared-port or CCB hand-off. The byte counts carry on, as
    /// HTCondor's do.
    pub fn reset(&mut self) {
        self.sent.hasher = None;
        self.received.hasher = None;
        self.abandoned = false;
        self.frozen = None;
    }

    /// The digests, frozen at the first call: later records do not change
    /// them (HTCondor's `m_final_mds`).
    pub fn freeze(&mut self) -> HandshakeDigests {
        if let Some(d) = self.frozen {
            return d;
        }
        let d = if self.abandoned {
            HandshakeDigests::HeaderOnly
        } else {
            HandshakeDigests::Digests { sent: self.sent.digest(), received: self.received.digest() }
        };
        self.frozen = Some(d);
        d
    }

    /// Whether [`Transcript::freeze`] has been called.
    pub fn is_frozen(&self) -> bool {
        self.frozen.is_some()
    }

    /// Payload bytes sent so far, as HTCondor counts them.
    pub fn bytes_sent(&self) -> u64 {
        self.sent.payload_bytes
    }

    /// Payload bytes received so far, as HTCondor counts them.
    pub fn bytes_received(&self) -> u64 {
        self.received.payload_bytes
    }
}

impl std::fmt::Debug for Transcript {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transcript")
            .field("bytes_sent", &self.sent.payload_bytes)
            .field("bytes_received", &self.received.payload_bytes)
            .field("abandoned", &self.abandoned)
            .field("frozen", &self.frozen.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(parts: &[&[u8]]) -> [u8; 32] {
        let mut h = Sha256::new();
        for p in parts {
            h.update(p);
        }
        h.finalize().into()
    }

    #[test]
    fn both_directions_in_order_with_headers() {
        let mut t = Transcript::new();
        t.record_sent(&[0, 0, 0, 0, 2], b"ab");
        t.record_received(&[1, 0, 0, 0, 1], b"x");
        t.record_sent(&[1, 0, 0, 0, 1], b"c");
        let d = t.freeze();
        let sent = sha(&[&[0, 0, 0, 0, 2], b"ab", &[1, 0, 0, 0, 1], b"c"]);
        let received = sha(&[&[1, 0, 0, 0, 1], b"x"]);
        assert_eq!(d, HandshakeDigests::Digests { sent, received });
        let hdr = [1, 0, 0, 0, 40];
        let aad = d.send_aad(&hdr);
        assert_eq!(aad.len(), 69);
        assert_eq!(&aad[..32], &sent);
        assert_eq!(&aad[32..64], &received);
        assert_eq!(&aad[64..], &hdr);
        let raad = d.receive_aad(&hdr);
        assert_eq!(&raad[..32], &received);
        assert_eq!(&raad[32..64], &sent);
    }

    #[test]
    fn empty_directions_give_zeros() {
        let mut t = Transcript::new();
        assert_eq!(t.freeze(), HandshakeDigests::Digests { sent: [0; 32], received: [0; 32] });
        // An empty payload still hashes the header: not zeros.
        let mut t = Transcript::new();
        t.record_received(&[1, 0, 0, 0, 0], b"");
        let HandshakeDigests::Digests { received, .. } = t.freeze() else { panic!() };
        assert_eq!(received, sha(&[&[1, 0, 0, 0, 0]]));
    }

    #[test]
    fn frozen_digests_do_not_move() {
        let mut t = Transcript::new();
        t.record_sent(&[1, 0, 0, 0, 1], b"a");
        let first = t.freeze();
        t.record_sent(&[1, 0, 0, 0, 1], b"b");
        t.record_received(&[1, 0, 0, 0, 1], b"c");
        assert_eq!(t.freeze(), first);
        assert!(t.is_frozen());
    }

    #[test]
    fn reset_restarts_digests_but_keeps_counts() {
        let mut t = Transcript::new();
        t.record_sent(&[1, 0, 0, 0, 1], b"a");
        t.record_received(&[1, 0, 0, 0, 1], b"b");
        t.reset();
        t.record_sent(&[1, 0, 0, 0, 1], b"z");
        assert_eq!(t.bytes_sent(), 2);
        assert_eq!(t.freeze(), HandshakeDigests::Digests { sent: sha(&[&[1, 0, 0, 0, 1], b"z"]), received: [0; 32] });
    }

    #[test]
    fn received_cap_counts_earlier_packets_only() {
        let mut t = Transcript::new();
        let big = vec![7u8; (DIGEST_CAP - 1) as usize];
        t.record_received(&[0, 0, 0x0f, 0xff, 0xff], &big);
        // Count before this packet is 1 MiB - 1 < cap: hashed.
        t.record_received(&[1, 0, 0, 0, 2], b"yz");
        // Count is now over the cap: not hashed.
        t.record_received(&[1, 0, 0, 0, 1], b"q");
        let HandshakeDigests::Digests { received, sent } = t.freeze() else { panic!() };
        assert_eq!(received, sha(&[&[0, 0, 0x0f, 0xff, 0xff], &big, &[1, 0, 0, 0, 2], b"yz"]));
        assert_eq!(sent, [0; 32]);
    }

    #[test]
    fn sent_cap_includes_current_packet_and_then_drops_everything() {
        let mut t = Transcript::new();
        t.record_received(&[1, 0, 0, 0, 1], b"r");
        let almost = vec![1u8; (DIGEST_CAP - 1) as usize];
        t.record_sent(&[0, 0, 0x0f, 0xff, 0xff], &almost); // count 1 MiB - 1: hashed
        t.record_sent(&[0, 0, 0, 0, 1], b"x"); // count exactly 1 MiB: not hashed, not over
        let HandshakeDigests::Digests { sent, .. } = t.clone().freeze() else { panic!() };
        assert_eq!(sent, sha(&[&[0, 0, 0x0f, 0xff, 0xff], &almost]));
        t.record_sent(&[1, 0, 0, 0, 1], b"y"); // count over 1 MiB: both digests dropped
        assert_eq!(t.freeze(), HandshakeDigests::HeaderOnly);
        assert_eq!(HandshakeDigests::HeaderOnly.send_aad(&[1, 2, 3, 4, 5]), vec![1, 2, 3, 4, 5]);
    }
}
