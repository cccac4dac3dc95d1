//! The wire layer: packets and messages, the primitive encodings, and
//! ClassAds on the wire. Everything here is sans-IO: bytes in, messages
//! out, and back.
//!
//! * [`packet`]: 5-byte packet headers, [`Inbound`] (joins packets into
//!   messages, bounded by [`DEFAULT_MAX_MESSAGE`]), [`Outbound`] (frames
//!   messages), the [`PacketSealer`]/[`PacketOpener`] seam where AES-GCM
//!   goes; each half records its plaintext in a [`crate::crypto::Transcript`];
//! * [`encryption`]: switches a connection's two halves to AES-GCM;
//! * [`codec`]: [`Encoder`] and [`Decoder`] for integers, strings, doubles
//!   and raw bytes;
//! * [`ad`]: ClassAds, projections and private attributes;
//! * [`reply`]: a query reply (one message of many ads) read ad by ad as
//!   its packets arrive, without joining the message.
//!
//! A whole round trip, from an ad to bytes on the wire and back:
//!
//! ```
//! use cedar::wire::{ad, Decoder, Encoder, Inbound, Outbound};
//!
//! let query: classad::ClassAd = r#"[ MyType = "Query"; TargetType = "Machine"; Requirements = true ]"#.parse()?;
//! let mut enc = Encoder::new(false);
//! enc.put_int(5); // QUERY_STARTD_ADS, raw
//! ad::put_classad(&mut enc, &query, &ad::PutOptions::default())?;
//! let mut wire = Vec::new();
//! Outbound::with_max_packet(16).frame(enc.as_bytes(), &mut wire)?; // several packets
//!
//! let mut inbound = Inbound::new();
//! inbound.feed(&wire);
//! let message = inbound.next_message()?.expect("one whole message");
//! let mut dec = Decoder::new(&message.payload, message.encrypted);
//! assert_eq!(dec.get_int()?, 5);
//! let got = ad::get_classad(&mut dec, &ad::AdLimits::default())?;
//! dec.finish()?;
//! assert!(got.same_as(&query));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod ad;
pub mod codec;
pub mod encryption;
pub mod packet;
pub mod reply;

pub use codec::{Decoder, Encoder};
pub use packet::{
    Inbound, Message, Outbound, Packet, PacketHeader, PacketOpener, PacketSealer, DEFAULT_MAX_MESSAGE, HEADER_LEN,
    MAX_PACKET,
};
