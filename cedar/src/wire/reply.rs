//! A query reply read ad by ad, as its packets arrive.
//!
//! A collector answers a query with **one** message: `int 1` and an ad for
//! every result, then `int 0` (`collector.cpp` 1191–1232 at v23.9.6). For a
//! large pool that message is hundreds of megabytes (a `condor_status -l`
//! of 50,000 slots is 235 MB), more than a reader should join before
//! looking at it. [`ReplyReader`] takes the message a packet at a time
//! ([`ReplyReader::take_packet`] from an [`Inbound`]) and hands out each ad
//! as soon as its last byte is in, holding at most one ad and one packet;
//! [`ReplyLimits`] bounds the ads and the bytes of each.
//!
//! ```
//! use cedar::wire::reply::{ReplyLimits, ReplyReader};
//! use cedar::wire::{ad, Encoder, Inbound, Outbound};
//!
//! // A reply of three ads, sent in packets of 40 bytes.
//! let slot: classad::ClassAd = r#"[ Name = "slot1@h"; Cpus = 4 ]"#.parse()?;
//! let mut enc = Encoder::new(false);
//! for _ in 0..3 {
//!     enc.put_int(1);
//!     ad::put_classad(&mut enc, &slot, &ad::PutOptions::default())?;
//! }
//! enc.put_int(0);
//! let mut wire = Vec::new();
//! Outbound::with_max_packet(40).frame(enc.as_bytes(), &mut wire)?;
//!
//! let mut inbound = Inbound::new();
//! let mut reply = ReplyReader::new(ReplyLimits::default());
//! let mut ads = Vec::new();
//! for chunk in wire.chunks(7) {
//!     inbound.feed(chunk);
//!     while reply.take_packet(&mut inbound)? {
//!         while let Some(ad) = reply.next_ad()? {
//!             ads.push(ad);
//!         }
//!     }
//! }
//! assert!(reply.is_done());
//! assert_eq!(ads.len(), 3);
//! assert!(ads.iter().all(|a| a.same_as(&slot)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use classad::ClassAd;

use super::ad::{AdLimits, AdReader, SECRET_MARKER};
use super::codec::{Decoder, NULL_STRING};
use super::packet::Inbound;
use crate::error::{Error, ErrorKind, Result};

/// Bounds on a reply read with [`ReplyReader`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplyLimits {
    /// The most ads a reply may hold: 1,000,000.
    pub max_ads: usize,
    /// The most bytes one ad may take on the wire: 16 MiB.
    pub max_ad_bytes: usize,
    /// Bounds on each ad.
    pub ad: AdLimits,
}

impl Default for ReplyLimits {
    fn default() -> ReplyLimits {
        ReplyLimits { max_ads: 1_000_000, max_ad_bytes: 16 << 20, ad: AdLimits::default() }
    }
}

impl ReplyLimits {
    /// The same limits with another bound on the number of ads.
    pub fn max_ads(mut self, n: usize) -> ReplyLimits {
        self.max_ads = n;
        self
    }

    /// The same limits with another bound on one ad's bytes.
    pub fn max_ad_bytes(mut self, n: usize) -> ReplyLimits {
        self.max_ad_bytes = n;
        self
    }

    /// The same limits with other bounds on each ad.
    pub fn ad(mut self, limits: AdLimits) -> ReplyLimits {
        self.ad = limits;
        self
    }
}

/// Reads a query reply ad by ad, sans-IO; see the [module](self)
/// documentation.
#[derive(Debug)]
pub struct ReplyReader {
    limits: ReplyLimits,
    reader: AdReader,
    /// Payload bytes received and not yet used, from `start` on.
    buffer: Vec<u8>,
    start: usize,
    /// Whether the message's packets came encrypted (strings then carry a
    /// length), known from its first packet.
    encrypted: Option<bool>,
    /// The message's last packet is in.
    message_ended: bool,
    /// The final `int 0` was read.
    ended: bool,
    ads: usize,
}

impl ReplyReader {
    /// A reader of one reply within `limits`.
    pub fn new(limits: ReplyLimits) -> ReplyReader {
        ReplyReader {
            limits,
            reader: AdReader::new(limits.ad),
            buffer: Vec::new(),
            start: 0,
            encrypted: None,
            message_ended: false,
            ended: false,
            ads: 0,
        }
    }

    /// How many ads were handed out.
    pub fn ads(&self) -> usize {
        self.ads
    }

    /// True once the final `int 0` was read and the message ended there.
    pub fn is_done(&self) -> bool {
        self.ended && self.message_ended && self.start == self.buffer.len()
    }

    /// True once the reply's last packet was taken.
    pub fn message_ended(&self) -> bool {
        self.message_ended
    }

    /// How many payload bytes the reader holds (at most an ad and a
    /// packet).
    pub fn held(&self) -> usize {
        self.buffer.len()
    }

    /// Takes the next packet of the reply from `inbound` if it is complete
    /// there; false when it is not (feed `inbound` more bytes) or when the
    /// reply's last packet was taken already.
    pub fn take_packet(&mut self, inbound: &mut Inbound) -> Result<bool> {
        if self.message_ended {
            return Ok(false);
        }
        // Keep only what is not used yet: at most one incomplete ad.
        if self.start > 0 {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        let Some(packet) = inbound.next_packet(&mut self.buffer)? else { return Ok(false) };
        match self.encrypted {
            None => self.encrypted = Some(packet.encrypted),
            Some(e) if e != packet.encrypted => {
                return Err(Error::new(ErrorKind::Protocol, "encryption switched inside a reply"));
            }
            Some(_) => {}
        }
        self.message_ended = packet.end;
        Ok(true)
    }

    /// The next ad, if all of it is in; `None` when more packets are
    /// needed or the reply is over ([`is_done`](Self::is_done)).
    pub fn next_ad(&mut self) -> Result<Option<ClassAd>> {
        let encrypted = self.encrypted.unwrap_or(false);
        let rest = &self.buffer[self.start..];
        if self.ended {
            if !rest.is_empty() {
                return Err(Error::new(
                    ErrorKind::Protocol,
                    format!("{} bytes after the end of a query reply", rest.len()),
                ));
            }
            return Ok(None);
        }
        // Decode first: an ad wholly in hand (all but one per packet)
        // costs no second walk. Only when decoding fails is the item
        // walked, to tell an ad still arriving from a bad one.
        let mut dec = Decoder::new(rest, encrypted);
        let outcome = match dec.get_int() {
            Ok(0) => Ok(None),
            Ok(_) if self.ads == self.limits.max_ads => {
                return Err(Error::new(
                    ErrorKind::LimitExceeded,
                    format!("over {} ads in a query reply", self.limits.max_ads),
                ));
            }
            Ok(_) => self.reader.read(&mut dec).map(Some),
            Err(e) => Err(e),
        };
        let used = rest.len() - dec.remaining().len();
        match outcome {
            Ok(ad) if used > self.limits.max_ad_bytes.saturating_add(8) => {
                drop(ad);
                Err(Error::new(
                    ErrorKind::LimitExceeded,
                    format!("an ad of {used} bytes in a query reply (limit {})", self.limits.max_ad_bytes),
                ))
            }
            Ok(None) => {
                self.ended = true;
                self.start += used;
                self.next_ad()
            }
            Ok(Some(ad)) => {
                self.start += used;
                self.ads += 1;
                Ok(Some(ad))
            }
            Err(e) => match item_extent(rest, encrypted, &self.limits.ad)? {
                // The item is all there: it is bad.
                Some(_) => Err(e),
                None if self.message_ended => {
                    Err(Error::new(ErrorKind::Malformed, "the query reply ends inside an ad"))
                }
                None if rest.len() > self.limits.max_ad_bytes => Err(Error::new(
                    ErrorKind::LimitExceeded,
                    format!("an ad of over {} bytes in a query reply", self.limits.max_ad_bytes),
                )),
                None => Ok(None),
            },
        }
    }
}

/// The length of the next item of a reply at the start of `bytes` (the
/// `more` integer, and when it is not 0 the ad after it) when all of it is
/// there; `None` when it is not. Walks the strings without parsing them.
fn item_extent(bytes: &[u8], encrypted: bool, limits: &AdLimits) -> Result<Option<usize>> {
    let Some(more) = int_at(bytes, 0) else { return Ok(None) };
    if more == 0 {
        return Ok(Some(8));
    }
    let Some(count) = int_at(bytes, 8) else { return Ok(None) };
    if count < 0 || count as u64 > limits.max_attributes as u64 {
        // Let the decoder say what is wrong with it.
        return Ok(Some(16));
    }
    let mut at = 16;
    for _ in 0..count {
        let Some(mut end) = string_end(bytes, at, encrypted) else { return Ok(None) };
        // A secret's real string follows its marker.
        if string_body(&bytes[at..end], encrypted) == SECRET_MARKER.as_bytes() {
            at = end;
            let Some(secret) = string_end(bytes, at, encrypted) else { return Ok(None) };
            end = secret;
        }
        at = end;
    }
    // The two trailing strings (MyType and TargetType).
    for _ in 0..2 {
        let Some(end) = string_end(bytes, at, encrypted) else { return Ok(None) };
        at = end;
    }
    Ok(Some(at))
}

/// The text of a whole string on the wire, up to its first NUL, as the
/// decoder reads it.
fn string_body(string: &[u8], encrypted: bool) -> &[u8] {
    let body = if encrypted { &string[8.min(string.len())..] } else { string };
    &body[..memchr::memchr(0, body).unwrap_or(body.len())]
}

fn int_at(bytes: &[u8], at: usize) -> Option<i64> {
    let b = bytes.get(at..at + 8)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Some(i64::from_be_bytes(a))
}

/// Where the string starting at `at` ends (past its NUL, or its length),
/// if all of it is in `bytes`. A bad length ends it at once: the decoder
/// then reports it.
fn string_end(bytes: &[u8], at: usize, encrypted: bool) -> Option<usize> {
    if encrypted {
        let len = int_at(bytes, at)?;
        if len < 1 {
            return Some(at + 8);
        }
        let end = (at + 8).checked_add(usize::try_from(len).ok()?)?;
        return (end <= bytes.len()).then_some(end);
    }
    match bytes.get(at)? {
        &NULL_STRING => Some(at + 1),
        _ => memchr::memchr(0, &bytes[at..]).map(|n| at + n + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ad::{put_classad, PutOptions};
    use crate::wire::{Encoder, Outbound};

    fn reply(ads: &[ClassAd], encrypted: bool) -> Vec<u8> {
        let mut enc = Encoder::new(encrypted);
        for ad in ads {
            enc.put_int(1);
            put_classad(&mut enc, ad, &PutOptions::default()).expect("encodes");
        }
        enc.put_int(0);
        enc.into_bytes()
    }

    fn read_all(payload: &[u8], packet: usize, limits: ReplyLimits) -> Result<Vec<ClassAd>> {
        let mut wire = Vec::new();
        Outbound::with_max_packet(packet).frame(payload, &mut wire)?;
        let mut inbound = Inbound::new();
        inbound.feed(&wire);
        let mut reader = ReplyReader::new(limits);
        let mut ads = Vec::new();
        while reader.take_packet(&mut inbound)? {
            while let Some(ad) = reader.next_ad()? {
                ads.push(ad);
            }
        }
        if !reader.is_done() {
            return Err(Error::new(ErrorKind::Malformed, "not done"));
        }
        Ok(ads)
    }

    fn slots(n: usize) -> Vec<ClassAd> {
        (0..n)
            .map(|i| format!(r#"[ Name = "slot{i}@h"; Cpus = {i}; Start = KeyboardIdle > 15 * 60; Secret = "ZKM" ]"#))
            .map(|t| t.parse().expect("parses"))
            .collect()
    }

    #[test]
    fn every_packet_size_gives_the_same_ads() {
        let ads = slots(5);
        let payload = reply(&ads, false);
        for packet in [1, 2, 7, 8, 9, 50, 1 << 20] {
            let got = read_all(&payload, packet, ReplyLimits::default()).expect("reads");
            assert_eq!(got.len(), ads.len(), "packets of {packet}");
            assert!(got.iter().zip(&ads).all(|(a, b)| a.same_as(b)));
        }
    }

    #[test]
    fn bounds_hold() {
        let ads = slots(5);
        let payload = reply(&ads, false);
        let err = read_all(&payload, 64, ReplyLimits::default().max_ads(4)).expect_err("too many");
        assert_eq!(err.kind(), ErrorKind::LimitExceeded);
        let err = read_all(&payload, 64, ReplyLimits::default().max_ad_bytes(40)).expect_err("too big");
        assert_eq!(err.kind(), ErrorKind::LimitExceeded);
        assert_eq!(read_all(&payload, 64, ReplyLimits::default().max_ads(5)).expect("fits").len(), 5);
    }

    #[test]
    fn truncated_and_trailing_replies_are_errors() {
        let payload = reply(&slots(2), false);
        let err = read_all(&payload[..payload.len() - 8], 16, ReplyLimits::default()).expect_err("no end");
        assert_eq!(err.kind(), ErrorKind::Malformed);
        let err = read_all(&payload[..payload.len() - 20], 16, ReplyLimits::default()).expect_err("cut ad");
        assert_eq!(err.kind(), ErrorKind::Malformed);
        let mut longer = payload.clone();
        longer.extend_from_slice(&[1, 2, 3]);
        let err = read_all(&longer, 16, ReplyLimits::default()).expect_err("trailing bytes");
        assert_eq!(err.kind(), ErrorKind::Protocol);
    }

    #[test]
    fn encrypted_strings_are_walked_by_their_length() {
        let ads = slots(3);
        let payload = reply(&ads, true);
        let mut dec = Decoder::new(&payload, true);
        let mut reader = AdReader::new(AdLimits::default());
        while dec.get_int().expect("more") == 1 {
            let extent_ok = reader.read(&mut dec).expect("reads");
            assert_eq!(extent_ok.len(), 4);
        }
        // Walk the items as the reply reader does.
        let mut at = 0;
        let mut items = 0;
        while let Some(n) = item_extent(&payload[at..], true, &AdLimits::default()).expect("walks") {
            at += n;
            items += 1;
            if n == 8 {
                break;
            }
        }
        assert_eq!((items, at), (4, payload.len()));
    }
}
