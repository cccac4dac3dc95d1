//! Packets and messages: CEDAR's TCP framing (ReliSock), sans-IO.
//!
//! A packet is a 5-byte header (an "end" byte, then the payload length as a
//! 4-byte big-endian integer) and the payload. A message is a run of
//! packets whose last one has a non-zero end byte. [`Inbound`] cuts bytes
//! read from a socket into messages; [`Outbound`] frames messages into
//! packets.
//!
//! # The crypto seam
//!
//! Encryption applies per packet, per direction, and switches on between
//! messages. A direction is switched with [`Inbound::set_opener`] or
//! [`Outbound::set_sealer`], given a [`PacketOpener`] or [`PacketSealer`]
//! (the AES-256-GCM implementation lives in the crate's `crypto` module).
//! The sealer sees the header it will be sent under (its length already
//! counts the sealer's overhead), so it can authenticate it as C++ does.
//!
//! Every plaintext packet, header included, also goes into a
//! [`crate::crypto::Transcript`] for as long as a direction is unencrypted
//! (the reading half records what it received, the writing half what it
//! sent): AES-GCM's first packet authenticates the SHA-256 digests of both
//! directions' plaintext since the connection started (`reli_sock.cpp`
//! 919–1000), with HTCondor's 1 MiB rule. [`crate::wire::encryption`]
//! joins the two halves' transcripts and switches a connection on.

use crate::crypto::Transcript;
use crate::error::{Error, ErrorKind, Result};

/// The length of a packet header: the end byte and a 4-byte length.
pub const HEADER_LEN: usize = 5;

/// The largest packet payload either side accepts (`MAX_MESSAGE_SIZE` in
/// `reli_sock.cpp`: 1 MiB), counted after encryption.
pub const MAX_PACKET: usize = 1 << 20;

/// The default bound on a whole message (all its packets joined): 64 MiB.
///
/// C++ has no bound of its own on a message; a collector's reply to a
/// query of a large pool is one message, so the bound is generous. Change
/// it with [`Inbound::with_max_message`].
pub const DEFAULT_MAX_MESSAGE: usize = 64 << 20;

/// The highest end byte C++ accepts; 0 means more packets follow.
pub const MAX_END_FLAG: u8 = 10;

/// A packet header.
///
/// ```
/// use cedar::wire::PacketHeader;
/// let h = PacketHeader { end: true, len: 8 };
/// assert_eq!(h.encode(), [1, 0, 0, 0, 8]);
/// assert_eq!(PacketHeader::decode(&[1, 0, 0, 0, 8])?, h);
/// assert!(PacketHeader::decode(&[0, 0, 0x10, 0, 1]).is_err()); // over 1 MiB
/// # Ok::<(), cedar::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketHeader {
    /// True for the last packet of a message.
    pub end: bool,
    /// The payload length, at most [`MAX_PACKET`].
    pub len: u32,
}

impl PacketHeader {
    /// The 5 bytes on the wire (end byte 1 or 0).
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let l = self.len.to_be_bytes();
        [u8::from(self.end), l[0], l[1], l[2], l[3]]
    }

    /// Reads a header as C++ does: an end byte of 0 to 10, a length of 1
    /// to [`MAX_PACKET`] (C++ rejects empty packets too).
    pub fn decode(bytes: &[u8; HEADER_LEN]) -> Result<PacketHeader> {
        let end = bytes[0];
        if end > MAX_END_FLAG {
            return Err(Error::new(ErrorKind::Malformed, format!("packet header with end byte {end}")));
        }
        let len = u32::from_be_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]);
        if len as usize > MAX_PACKET {
            return Err(Error::new(ErrorKind::LimitExceeded, format!("packet of {len} bytes (limit {MAX_PACKET})")));
        }
        if len == 0 {
            return Err(Error::new(ErrorKind::Malformed, "empty packet"));
        }
        Ok(PacketHeader { end: end != 0, len })
    }
}

/// Decrypts incoming packets once a direction is encrypted.
pub trait PacketOpener: Send {
    /// Opens one packet: `header` as it came (it authenticates it),
    /// `sealed` its payload; appends the plaintext to `out`.
    fn open(&mut self, header: &[u8; HEADER_LEN], sealed: &[u8], out: &mut Vec<u8>) -> Result<()>;
}

/// Encrypts outgoing packets once a direction is encrypted.
pub trait PacketSealer: Send {
    /// How many bytes sealing adds to a payload of `plaintext_len` bytes.
    fn overhead(&self, plaintext_len: usize) -> usize;
    /// The most [`overhead`](PacketSealer::overhead) can be, used to
    /// size packets so that sealed payloads stay within [`MAX_PACKET`].
    fn max_overhead(&self) -> usize;
    /// Seals one packet: `header` is what will precede it on the wire (its
    /// length is `plaintext.len() + overhead(plaintext.len())`); appends
    /// the sealed payload, of exactly that length, to `out`.
    fn seal(&mut self, header: &[u8; HEADER_LEN], plaintext: &[u8], out: &mut Vec<u8>) -> Result<()>;
}

/// A whole message: its packets' payloads joined.
#[derive(Clone, PartialEq, Eq)]
pub struct Message {
    /// The plaintext payload.
    pub payload: Vec<u8>,
    /// Whether the message came encrypted (strings then carry a length).
    pub encrypted: bool,
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Message").field("len", &self.payload.len()).field("encrypted", &self.encrypted).finish()
    }
}

/// The reading half: bytes in, messages out.
///
/// ```
/// use cedar::wire::Inbound;
/// let mut inbound = Inbound::new();
/// inbound.feed(&[0, 0, 0, 0, 2, b'h', b'i', 1, 0, 0]);
/// assert!(inbound.next_message()?.is_none()); // the second header is incomplete
/// inbound.feed(&[0, 1, b'!']);
/// assert_eq!(inbound.next_message()?.unwrap().payload, b"hi!");
/// # Ok::<(), cedar::Error>(())
/// ```
pub struct Inbound {
    buffer: Vec<u8>,
    /// Where unparsed bytes start in `buffer`.
    start: usize,
    partial: Vec<u8>,
    partial_encrypted: bool,
    max_message: usize,
    opener: Option<Box<dyn PacketOpener>>,
    transcript: Transcript,
}

impl Default for Inbound {
    fn default() -> Self {
        Inbound::new()
    }
}

impl std::fmt::Debug for Inbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbound")
            .field("buffered", &(self.buffer.len() - self.start))
            .field("partial", &self.partial.len())
            .field("encrypted", &self.opener.is_some())
            .finish()
    }
}

impl Inbound {
    /// A reader with the [`DEFAULT_MAX_MESSAGE`] bound.
    pub fn new() -> Inbound {
        Inbound::with_max_message(DEFAULT_MAX_MESSAGE)
    }

    /// A reader rejecting messages over `max` bytes.
    pub fn with_max_message(max: usize) -> Inbound {
        Inbound {
            buffer: Vec::new(),
            start: 0,
            partial: Vec::new(),
            partial_encrypted: false,
            max_message: max,
            opener: None,
            transcript: Transcript::default(),
        }
    }

    /// Adds bytes read from the peer.
    pub fn feed(&mut self, bytes: &[u8]) {
        // Drop what was parsed, so the buffer holds at most an incomplete
        // packet plus what is fed.
        if self.start > 0 {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        self.buffer.extend_from_slice(bytes);
    }

    /// How many bytes the reader holds that no message has used yet.
    pub fn buffered(&self) -> usize {
        self.buffer.len() - self.start + self.partial.len()
    }

    /// How many bytes the reader keeps in memory (parsed or not), which
    /// stays within an incomplete packet, the last bytes fed and the
    /// message being joined.
    pub fn held(&self) -> usize {
        self.buffer.len() + self.partial.len()
    }

    /// True between messages: no packet of a message has been taken yet.
    pub fn at_message_boundary(&self) -> bool {
        self.partial.is_empty()
    }

    /// How many more bytes are needed before the next packet is complete
    /// (0 when it is), for a reader that wants to read no further than the
    /// packet it waits for.
    pub fn wanted(&self) -> usize {
        let have = self.buffer.len() - self.start;
        if have < HEADER_LEN {
            return HEADER_LEN - have;
        }
        let len = u32::from_be_bytes([
            self.buffer[self.start + 1],
            self.buffer[self.start + 2],
            self.buffer[self.start + 3],
            self.buffer[self.start + 4],
        ]) as usize;
        (HEADER_LEN + len).saturating_sub(have)
    }

    /// Decrypts every packet from the next one on (call between messages).
    pub fn set_opener(&mut self, opener: Box<dyn PacketOpener>) -> Result<()> {
        if !self.partial.is_empty() {
            return Err(Error::new(ErrorKind::Protocol, "encryption switched inside a message"));
        }
        self.opener = Some(opener);
        Ok(())
    }

    /// Whether incoming packets are decrypted.
    pub fn is_encrypted(&self) -> bool {
        self.opener.is_some()
    }

    /// The plaintext received so far, while unencrypted (its `received`
    /// side; nothing is recorded as sent here).
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// The next complete message, or `None` until more bytes are fed.
    ///
    /// Errors are final: a header out of bounds, a message over the bound,
    /// a packet that does not open.
    pub fn next_message(&mut self) -> Result<Option<Message>> {
        let mut partial = std::mem::take(&mut self.partial);
        let outcome = self.join_packets(&mut partial);
        match outcome {
            Ok(true) => {
                let encrypted = std::mem::replace(&mut self.partial_encrypted, false);
                Ok(Some(Message { payload: partial, encrypted }))
            }
            Ok(false) => {
                self.partial = partial;
                Ok(None)
            }
            Err(e) => {
                self.partial = partial;
                Err(e)
            }
        }
    }

    /// Appends packets to `partial` up to the end of a message (true) or
    /// the last complete packet (false).
    fn join_packets(&mut self, partial: &mut Vec<u8>) -> Result<bool> {
        loop {
            let before = partial.len();
            let Some(packet) = self.next_packet(partial)? else { return Ok(false) };
            self.partial_encrypted |= packet.encrypted;
            if partial.len() > self.max_message {
                let n = partial.len();
                partial.truncate(before);
                return Err(Error::new(
                    ErrorKind::LimitExceeded,
                    format!("message of at least {n} bytes (limit {})", self.max_message),
                ));
            }
            if packet.end {
                return Ok(true);
            }
        }
    }

    /// The next complete packet, its (decrypted) payload appended to `out`;
    /// `None` until more bytes are fed. For a reader that takes a long
    /// message a packet at a time instead of whole
    /// ([`ReplyReader`](super::reply::ReplyReader)); the message bound does
    /// not apply (the caller bounds what it keeps). Do not mix with
    /// [`next_message`](Self::next_message) inside one message.
    ///
    /// ```
    /// use cedar::wire::Inbound;
    /// let mut inbound = Inbound::new();
    /// inbound.feed(&[0, 0, 0, 0, 2, b'h', b'i', 1, 0, 0, 0, 1, b'!']);
    /// let mut payload = Vec::new();
    /// assert!(!inbound.next_packet(&mut payload)?.unwrap().end);
    /// assert!(inbound.next_packet(&mut payload)?.unwrap().end);
    /// assert!(inbound.next_packet(&mut payload)?.is_none());
    /// assert_eq!(payload, b"hi!");
    /// # Ok::<(), cedar::Error>(())
    /// ```
    pub fn next_packet(&mut self, out: &mut Vec<u8>) -> Result<Option<Packet>> {
        let have = &self.buffer[self.start..];
        if have.len() < HEADER_LEN {
            return Ok(None);
        }
        let mut raw = [0u8; HEADER_LEN];
        raw.copy_from_slice(&have[..HEADER_LEN]);
        let header = PacketHeader::decode(&raw)?;
        let len = header.len as usize;
        if have.len() < HEADER_LEN + len {
            return Ok(None);
        }
        let body = &have[HEADER_LEN..HEADER_LEN + len];
        let encrypted = match self.opener.as_mut() {
            Some(opener) => {
                opener.open(&raw, body, out)?;
                true
            }
            None => {
                self.transcript.record_received(&raw, body);
                out.extend_from_slice(body);
                false
            }
        };
        self.start += HEADER_LEN + len;
        Ok(Some(Packet { end: header.end, encrypted }))
    }
}

/// What [`Inbound::next_packet`] took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Packet {
    /// True for the last packet of a message.
    pub end: bool,
    /// Whether it came encrypted.
    pub encrypted: bool,
}

/// The writing half: messages in, packets out.
///
/// ```
/// use cedar::wire::Outbound;
/// let mut outbound = Outbound::new();
/// let mut wire = Vec::new();
/// outbound.frame(b"hi", &mut wire)?;
/// assert_eq!(wire, [1, 0, 0, 0, 2, b'h', b'i']);
/// # Ok::<(), cedar::Error>(())
/// ```
pub struct Outbound {
    sealer: Option<Box<dyn PacketSealer>>,
    transcript: Transcript,
    max_packet: usize,
}

impl std::fmt::Debug for Outbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbound").field("encrypted", &self.sealer.is_some()).finish()
    }
}

impl Default for Outbound {
    fn default() -> Self {
        Outbound::new()
    }
}

impl Outbound {
    /// A writer making packets of up to [`MAX_PACKET`] bytes.
    pub fn new() -> Outbound {
        Outbound { sealer: None, transcript: Transcript::default(), max_packet: MAX_PACKET }
    }

    /// A writer making packets of at most `max` payload bytes (at least 1,
    /// at most [`MAX_PACKET`]): to test peers' joining of packets.
    pub fn with_max_packet(max: usize) -> Outbound {
        Outbound { max_packet: max.clamp(1, MAX_PACKET), ..Outbound::new() }
    }

    /// The same writer (its transcript and sealer kept) making packets of
    /// at most `max` payload bytes (at least 1, at most [`MAX_PACKET`]).
    pub fn with_packet_limit(mut self, max: usize) -> Outbound {
        self.max_packet = max.clamp(1, MAX_PACKET);
        self
    }

    /// Encrypts every packet from the next message on.
    pub fn set_sealer(&mut self, sealer: Box<dyn PacketSealer>) {
        self.sealer = Some(sealer);
    }

    /// Whether outgoing packets are encrypted.
    pub fn is_encrypted(&self) -> bool {
        self.sealer.is_some()
    }

    /// The plaintext sent so far, while unencrypted (its `sent` side;
    /// nothing is recorded as received here).
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// Appends `payload` to `out` as one message. An empty payload writes
    /// nothing, as C++'s `end_of_message` sends nothing for an empty buffer.
    pub fn frame(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<()> {
        if payload.is_empty() {
            return Ok(());
        }
        self.frame_part(payload, true, out)
    }

    /// Appends `payload` to `out` as packets of a message that goes on
    /// after them unless `end`: a long message written part by part, as it
    /// is made, instead of held whole. The parts of one message may be of
    /// any length (the reader joins packets up to the end flag), but the
    /// last, with `end`, must not be empty.
    ///
    /// ```
    /// use cedar::wire::{Inbound, Outbound};
    /// let mut out = Outbound::new();
    /// let mut wire = Vec::new();
    /// out.frame_part(b"first ", false, &mut wire)?;
    /// out.frame_part(b"second", true, &mut wire)?;
    /// let mut inbound = Inbound::new();
    /// inbound.feed(&wire);
    /// assert_eq!(inbound.next_message()?.expect("a message").payload, b"first second");
    /// # Ok::<(), cedar::Error>(())
    /// ```
    pub fn frame_part(&mut self, payload: &[u8], end: bool, out: &mut Vec<u8>) -> Result<()> {
        if payload.is_empty() {
            if end {
                return Err(Error::new(ErrorKind::Protocol, "the last part of a message is empty"));
            }
            return Ok(());
        }
        let room = match &self.sealer {
            Some(s) => self.max_packet.saturating_sub(s.max_overhead()),
            None => self.max_packet,
        };
        if room == 0 {
            return Err(Error::new(ErrorKind::Crypto, "the sealer's overhead leaves no room in a packet"));
        }
        let mut chunks = payload.chunks(room).peekable();
        while let Some(chunk) = chunks.next() {
            let end = end && chunks.peek().is_none();
            match self.sealer.as_mut() {
                Some(sealer) => {
                    let len = chunk.len() + sealer.overhead(chunk.len());
                    if len > MAX_PACKET {
                        return Err(Error::new(
                            ErrorKind::LimitExceeded,
                            format!("sealed packet of {len} bytes (limit {MAX_PACKET})"),
                        ));
                    }
                    let header = PacketHeader { end, len: len as u32 }.encode();
                    out.extend_from_slice(&header);
                    let at = out.len();
                    sealer.seal(&header, chunk, out)?;
                    if out.len() - at != len {
                        return Err(Error::new(ErrorKind::Crypto, "the sealer's output differs from its overhead"));
                    }
                }
                None => {
                    let header = PacketHeader { end, len: chunk.len() as u32 }.encode();
                    self.transcript.record_sent(&header, chunk);
                    out.extend_from_slice(&header);
                    out.extend_from_slice(chunk);
                }
            }
        }
        Ok(())
    }
}
