//! Packets and messages: joining, splitting, bounds and the transcript.

use cedar::crypto::{HandshakeDigests, DIGEST_CAP};
use cedar::wire::packet::MAX_END_FLAG;
use cedar::wire::{Inbound, Outbound, PacketHeader, PacketOpener, PacketSealer, HEADER_LEN, MAX_PACKET};
use cedar::ErrorKind;
use proptest::prelude::*;
use sha2::{Digest, Sha256};

fn sha(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The digests a half's transcript would authenticate now.
fn digests(t: &cedar::crypto::Transcript) -> HandshakeDigests {
    t.clone().freeze()
}

proptest! {
    #[test]
    fn messages_survive_any_packet_size_and_any_read_size(
        messages in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..300), 1..5),
        packet in 1usize..64,
        read in 1usize..50,
    ) {
        let mut out = Outbound::with_max_packet(packet);
        let mut wire = Vec::new();
        for m in &messages {
            out.frame(m, &mut wire).unwrap();
        }
        // The transcript is every byte sent, headers included.
        prop_assert_eq!(digests(out.transcript()), HandshakeDigests::Digests { sent: sha(&wire), received: [0; 32] });
        let mut inbound = Inbound::new();
        let mut got = Vec::new();
        for chunk in wire.chunks(read) {
            inbound.feed(chunk);
            while let Some(m) = inbound.next_message().unwrap() {
                prop_assert!(!m.encrypted);
                got.push(m.payload);
            }
        }
        prop_assert_eq!(got, messages);
        prop_assert_eq!(digests(inbound.transcript()), HandshakeDigests::Digests { sent: [0; 32], received: sha(&wire) });
        prop_assert_eq!(inbound.buffered(), 0);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut inbound = Inbound::with_max_message(100);
        inbound.feed(&bytes);
        while let Ok(Some(_)) = inbound.next_message() {}
    }
}

#[test]
fn headers_are_checked_as_cpp_does() {
    for end in 0..=MAX_END_FLAG {
        assert!(PacketHeader::decode(&[end, 0, 0, 0, 1]).is_ok());
    }
    assert_eq!(PacketHeader::decode(&[11, 0, 0, 0, 1]).unwrap_err().kind(), ErrorKind::Malformed);
    assert_eq!(PacketHeader::decode(&[1, 0, 0, 0, 0]).unwrap_err().kind(), ErrorKind::Malformed);
    let max = (MAX_PACKET as u32).to_be_bytes();
    assert!(PacketHeader::decode(&[1, max[0], max[1], max[2], max[3]]).is_ok());
    let over = (MAX_PACKET as u32 + 1).to_be_bytes();
    assert_eq!(
        PacketHeader::decode(&[1, over[0], over[1], over[2], over[3]]).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    // A header over the bound fails as soon as its 5 bytes are in, before
    // any payload arrives.
    let mut inbound = Inbound::new();
    inbound.feed(&[1, 0xff, 0xff, 0xff, 0xff]);
    assert_eq!(inbound.next_message().unwrap_err().kind(), ErrorKind::LimitExceeded);
}

#[test]
fn big_messages_split_at_one_mebibyte() {
    let payload = vec![7u8; MAX_PACKET * 2 + 10];
    let mut wire = Vec::new();
    Outbound::new().frame(&payload, &mut wire).unwrap();
    assert_eq!(wire.len(), payload.len() + 3 * HEADER_LEN);
    assert_eq!(&wire[..HEADER_LEN], &PacketHeader { end: false, len: MAX_PACKET as u32 }.encode());
    let mut inbound = Inbound::new();
    inbound.feed(&wire);
    assert_eq!(inbound.next_message().unwrap().unwrap().payload, payload);
}

#[test]
fn the_message_bound_is_enforced_across_packets() {
    let mut wire = Vec::new();
    Outbound::with_max_packet(10).frame(&[1u8; 45], &mut wire).unwrap();
    let mut inbound = Inbound::with_max_message(40);
    inbound.feed(&wire);
    assert_eq!(inbound.next_message().unwrap_err().kind(), ErrorKind::LimitExceeded);
}

#[test]
fn the_buffer_does_not_grow_with_a_long_stream() {
    let mut out = Outbound::with_max_packet(100);
    let mut wire = Vec::new();
    for _ in 0..200 {
        out.frame(&[3u8; 250], &mut wire).unwrap();
    }
    let mut inbound = Inbound::new();
    // Chunks that never end on a packet boundary.
    for chunk in wire.chunks(333) {
        inbound.feed(chunk);
        while inbound.next_message().unwrap().is_some() {}
        assert!(inbound.held() < 333 + 105 + 250, "{} bytes held", inbound.held());
    }
}

#[test]
fn wanted_says_how_far_to_read() {
    let mut inbound = Inbound::new();
    assert_eq!(inbound.wanted(), HEADER_LEN);
    inbound.feed(&[1, 0, 0]);
    assert_eq!(inbound.wanted(), 2);
    inbound.feed(&[0, 4, b'a']);
    assert_eq!(inbound.wanted(), 3);
    inbound.feed(b"bcd");
    assert_eq!(inbound.wanted(), 0);
    assert!(inbound.at_message_boundary()); // no packet taken yet
    assert_eq!(inbound.next_message().unwrap().unwrap().payload, b"abcd");
    assert!(inbound.at_message_boundary());
}

#[test]
fn an_empty_message_writes_nothing() {
    let mut wire = Vec::new();
    Outbound::new().frame(&[], &mut wire).unwrap();
    assert!(wire.is_empty());
}

#[test]
fn past_a_mebibyte_sent_the_transcript_gives_header_only_aad() {
    let mut out = Outbound::new();
    let mut wire = Vec::new();
    let big = vec![0u8; DIGEST_CAP as usize - 100];
    out.frame(&big, &mut wire).unwrap();
    assert!(matches!(digests(out.transcript()), HandshakeDigests::Digests { .. }));
    out.frame(&[1u8; 200], &mut wire).unwrap();
    assert_eq!(digests(out.transcript()), HandshakeDigests::HeaderOnly);
    assert_eq!(out.transcript().bytes_sent(), wire.len() as u64 - 2 * HEADER_LEN as u64);
}

/// A stand-in cipher for the seam (XOR with the header's end byte plus a
/// 3-byte trailer), to show where a real one plugs in. Not cryptography.
struct Toy;

impl PacketSealer for Toy {
    fn overhead(&self, _: usize) -> usize {
        3
    }
    fn max_overhead(&self) -> usize {
        3
    }
    fn seal(&mut self, header: &[u8; HEADER_LEN], plaintext: &[u8], out: &mut Vec<u8>) -> cedar::error::Result<()> {
        out.extend(plaintext.iter().map(|b| b ^ 0x5a));
        out.extend_from_slice(&[header[0], 0xaa, 0xbb]);
        Ok(())
    }
}

impl PacketOpener for Toy {
    fn open(&mut self, header: &[u8; HEADER_LEN], sealed: &[u8], out: &mut Vec<u8>) -> cedar::error::Result<()> {
        let (body, trailer) = sealed.split_at(sealed.len().saturating_sub(3));
        if trailer != [header[0], 0xaa, 0xbb] {
            return Err(cedar::Error::new(ErrorKind::Crypto, "bad trailer"));
        }
        out.extend(body.iter().map(|b| b ^ 0x5a));
        Ok(())
    }
}

#[test]
fn a_direction_switches_to_encrypted_between_messages() {
    let mut out = Outbound::with_max_packet(8);
    let mut wire = Vec::new();
    out.frame(b"plain", &mut wire).unwrap();
    let plain_len = wire.len();
    out.set_sealer(Box::new(Toy));
    out.frame(b"secret message", &mut wire).unwrap();
    // Only the plaintext part is in the transcript.
    assert_eq!(
        digests(out.transcript()),
        HandshakeDigests::Digests { sent: sha(&wire[..plain_len]), received: [0; 32] }
    );
    let mut inbound = Inbound::new();
    inbound.feed(&wire);
    let first = inbound.next_message().unwrap().unwrap();
    assert_eq!((first.payload.as_slice(), first.encrypted), (&b"plain"[..], false));
    // The encrypted message is still buffered, so the switch can happen now.
    inbound.set_opener(Box::new(Toy)).unwrap();
    let second = inbound.next_message().unwrap().unwrap();
    assert_eq!((second.payload.as_slice(), second.encrypted), (&b"secret message"[..], true));
    assert_eq!(
        digests(inbound.transcript()),
        HandshakeDigests::Digests { sent: [0; 32], received: sha(&wire[..plain_len]) }
    );
}
