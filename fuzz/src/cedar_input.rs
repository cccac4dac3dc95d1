//! What the cedar targets share: a reader that cuts fuzzer bytes into the
//! pieces a target needs (a selector byte, length-prefixed chunks), and
//! builders of valid framing around fuzzed payloads, so that the fuzzer
//! spends its time past the packet header and the ad count.

use cedar::wire::{Encoder, Outbound};

/// Cuts fuzzer bytes into pieces; every read succeeds (short input gives
/// zeros and empty chunks), so targets never reject an input early.
#[derive(Debug)]
pub struct Pieces<'a> {
    data: &'a [u8],
}

impl<'a> Pieces<'a> {
    /// Pieces of `data`.
    pub fn new(data: &'a [u8]) -> Pieces<'a> {
        Pieces { data }
    }

    /// One byte (0 once exhausted).
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// Whether nothing is left.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// A chunk whose length is given by the next two bytes (little-endian),
    /// cut short at the end of the input.
    pub fn chunk(&mut self) -> &'a [u8] {
        let n = usize::from(self.byte()) | usize::from(self.byte()) << 8;
        let n = n.min(self.data.len());
        let (c, rest) = self.data.split_at(n);
        self.data = rest;
        c
    }

    /// Everything up to the next `sep` byte (or the end), the separator dropped.
    pub fn until(&mut self, sep: u8) -> &'a [u8] {
        match self.data.iter().position(|&b| b == sep) {
            Some(i) => {
                let c = &self.data[..i];
                self.data = &self.data[i + 1..];
                c
            }
            None => self.rest(),
        }
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.data)
    }
}

/// `payload` framed as one message, in packets of at most `max_packet`
/// bytes (at least 1).
pub fn frame(payload: &[u8], max_packet: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut ob = Outbound::with_max_packet(max_packet.max(1));
    // Framing an in-bounds payload cannot fail; an error leaves `out` as it is.
    let _ = ob.frame(payload, &mut out);
    out
}

/// A wire ad built from `Name = value` lines (separated by `\n`), as
/// `putClassAd` sends it: the count, the strings, then the two type strings.
pub fn wire_ad(enc: &mut Encoder, lines: &[u8]) {
    let lines: Vec<&[u8]> = if lines.is_empty() { Vec::new() } else { lines.split(|&b| b == b'\n').collect() };
    enc.put_int(lines.len() as i64);
    for l in lines {
        // A line with a NUL cannot be a plaintext string; send it cut.
        let l = l.split(|&b| b == 0).next().unwrap_or_default();
        let _ = enc.put_string_bytes(l);
    }
    let _ = enc.put_str("");
    let _ = enc.put_str("");
}
