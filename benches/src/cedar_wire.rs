//! The `condor_status -l` reply of the `cedar_wire` benchmark: slot ads
//! from `cedar/tests/data/wire-speed/gen_slots.py`, encoded as the
//! collector sends them and decoded as a client reads them. Shared by the
//! criterion bench (`benches/cedar_wire.rs`) and the `cedar-wire-profile`
//! binary (one pass under a profiler).

use std::path::PathBuf;

use cedar::wire::ad::{get_classad, put_classad, AdLimits, PutOptions};
use cedar::wire::reply::{ReplyLimits, ReplyReader};
use cedar::wire::{Decoder, Encoder, Inbound, Outbound};
use classad::format::{Format, Reader};
use classad::ClassAd;

/// The reply is one message; 50,000 slots make about 230 MB.
pub const MAX_MESSAGE: usize = 1 << 30;

/// The slot-ad file (`CEDAR_WIRE_SLOTS`, else the generator's output,
/// written on first use with `python3`).
pub fn slots_file() -> PathBuf {
    if let Ok(p) = std::env::var("CEDAR_WIRE_SLOTS") {
        return PathBuf::from(p);
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cedar/tests/data/wire-speed");
    let file = dir.join("slots.ad");
    if !file.exists() {
        let status = std::process::Command::new("python3")
            .arg(dir.join("gen_slots.py"))
            .arg("50000")
            .arg(&file)
            .status()
            .expect("python3 runs gen_slots.py");
        assert!(status.success(), "gen_slots.py failed");
    }
    file
}

/// The first `n` slot ads.
pub fn load_ads(n: usize) -> Vec<ClassAd> {
    let text = std::fs::read(slots_file()).expect("the slot ads");
    let ads: Vec<ClassAd> = Reader::new(&text[..], Some(Format::Old)).take(n).map(|a| a.expect("a slot ad")).collect();
    assert_eq!(ads.len(), n, "the slot file holds fewer ads");
    ads
}

/// How much payload is framed at a time: a packet's worth, as the
/// collector's reply writer hands its parts to the socket.
pub const PART: usize = cedar::wire::packet::MAX_PACKET;

/// The reply as a collector writes it: the ads encoded into a payload that
/// is framed into packets and handed to `sink` every [`PART`] bytes, the
/// payload's buffer reused, so no whole-reply buffer is ever held. `sink`
/// gets the framed bytes of each part (it may take the vector).
#[inline(never)]
pub fn encode_reply_parts(ads: &[ClassAd], mut sink: impl FnMut(&mut Vec<u8>)) {
    let mut enc = Encoder::new(false);
    let mut outbound = Outbound::new();
    let opts = PutOptions::new().exclude_private(true);
    let mut wire = Vec::new();
    for ad in ads {
        enc.put_int(1);
        put_classad(&mut enc, ad, &opts).expect("the ad encodes");
        if enc.len() >= PART {
            // Whole packets go now; the rest starts the next part.
            let whole = enc.len() / PART * PART;
            wire.reserve(whole + whole / PART * cedar::wire::packet::HEADER_LEN);
            outbound.frame_part(&enc.as_bytes()[..whole], false, &mut wire).expect("the part frames");
            sink(&mut wire);
            wire.clear();
            enc.drain_front(whole);
        }
    }
    enc.put_int(0);
    outbound.frame_part(enc.as_bytes(), true, &mut wire).expect("the reply frames");
    sink(&mut wire);
}

/// The reply's packets, every one kept (each part's vector taken as it
/// is): what a reader is then given.
pub fn encode_reply_kept(ads: &[ClassAd]) -> Vec<Vec<u8>> {
    let mut parts = Vec::new();
    encode_reply_parts(ads, |wire| parts.push(std::mem::take(wire)));
    parts
}

/// The reply's packets, each part dropped once framed, as a socket takes
/// them; returns the bytes on the wire.
pub fn encode_reply_streamed(ads: &[ClassAd]) -> usize {
    let mut bytes = 0;
    encode_reply_parts(ads, |wire| bytes += std::hint::black_box(wire).len());
    bytes
}

/// The old way: the whole payload encoded first, then framed into one
/// vector (two reply-sized buffers).
pub fn encode_reply_joined(ads: &[ClassAd]) -> Vec<u8> {
    let mut enc = Encoder::new(false);
    let opts = PutOptions::new().exclude_private(true);
    for ad in ads {
        enc.put_int(1);
        put_classad(&mut enc, ad, &opts).expect("the ad encodes");
    }
    enc.put_int(0);
    let mut wire = Vec::with_capacity(enc.len() + enc.len() / PART * 5 + 5);
    Outbound::new().frame(enc.as_bytes(), &mut wire).expect("the reply frames");
    wire
}

/// The reply's packets in one vector (for the decoding benches).
pub fn encode_reply(ads: &[ClassAd]) -> Vec<u8> {
    encode_reply_kept(ads).concat()
}

/// From the first byte to the last ad, as `CollectorClient::query` reads a
/// reply: packet by packet through a `ReplyReader` (the message is never
/// joined), every ad kept in a vector.
pub fn decode_reply(wire: &[u8]) -> Vec<ClassAd> {
    let mut ads = Vec::new();
    read_reply(wire, |ad| ads.push(ad));
    ads
}

/// As [`decode_reply`], but each ad is dropped once read, as
/// `condor_status -l` frees each ad after printing it; returns how many
/// attributes there were.
pub fn decode_reply_streamed(wire: &[u8]) -> usize {
    let mut attributes = 0;
    read_reply(wire, |ad| attributes += ad.len());
    attributes
}

/// The reply read a packet at a time, each ad given to `each`.
pub fn read_reply(wire: &[u8], mut each: impl FnMut(ClassAd)) {
    let mut inbound = Inbound::with_max_message(MAX_MESSAGE);
    let mut reply = ReplyReader::new(ReplyLimits::default().max_ad_bytes(MAX_MESSAGE));
    // As a socket gives it: 64 KiB at a time.
    for chunk in wire.chunks(64 << 10) {
        inbound.feed(chunk);
        while reply.take_packet(&mut inbound).expect("a packet") {
            while let Some(ad) = reply.next_ad().expect("an ad") {
                each(ad);
            }
        }
    }
    assert!(reply.is_done(), "the reply is whole");
}

/// The old way: the packets joined into one message, then every ad
/// decoded from it with `get_classad`.
pub fn decode_reply_joined(wire: &[u8]) -> Vec<ClassAd> {
    let mut inbound = Inbound::with_max_message(MAX_MESSAGE);
    inbound.feed(wire);
    let message = inbound.next_message().expect("the reply reads").expect("the reply is whole");
    let mut dec = Decoder::new(&message.payload, message.encrypted);
    let limits = AdLimits::default();
    let mut ads = Vec::new();
    while dec.get_int().expect("the more flag") == 1 {
        ads.push(get_classad(&mut dec, &limits).expect("an ad"));
    }
    ads
}
