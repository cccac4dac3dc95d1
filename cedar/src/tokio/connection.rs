//! A CEDAR stream on a tokio `TcpStream`: whole messages in and out, every
//! read and write under a deadline, the bytes held in memory bounded.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ::tokio::net::TcpStream;
use ::tokio::time::{timeout, timeout_at, Instant};
use classad::ClassAd;

use crate::error::{Error, ErrorKind, Result};
use crate::wire::ad::{put_classad, PutOptions};
use crate::wire::{Encoder, Inbound, Message, Outbound, HEADER_LEN, MAX_PACKET};

/// How much is read from the socket at a time. The buffer lives on the
/// stack only while bytes are copied, so an idle connection holds none.
const READ_CHUNK: usize = 16 * 1024;

/// How much of an outgoing message is written under one write deadline.
const WRITE_CHUNK: usize = 64 * 1024;

/// The deadlines of a connection.
///
/// ```
/// use std::time::Duration;
/// use cedar::tokio::Timeouts;
/// let t = Timeouts::default().read(Duration::from_secs(5)).message(Duration::from_secs(30));
/// assert_eq!(t.read, Duration::from_secs(5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeouts {
    /// How long a connection may wait, between commands, for the first
    /// byte of the next one (follow-on commands, a startd's update socket).
    pub idle: Duration,
    /// How long a new connection may take, from its accept, to its first
    /// command: the handshake included (HTCondor's
    /// `SEC_TCP_SESSION_DEADLINE`). A client that connects and says
    /// nothing is cut off here (or at `idle`, if that is shorter).
    pub first_command: Duration,
    /// How long any read inside a message, or for an expected message (a
    /// command's payload), may wait for bytes.
    pub read: Duration,
    /// How long a whole message may take from its first byte to its last,
    /// however the bytes trickle in (a slowloris peer is cut off here).
    pub message: Duration,
    /// How long the peer may take to accept each 64 KiB of what we send
    /// (a peer that stops reading is cut off here).
    pub write: Duration,
}

impl Default for Timeouts {
    /// Idle 300 s; the first command within 120 s; read 20 s (as the
    /// blocking adapter's daemons use); message 60 s; write 20 s per 64 KiB.
    fn default() -> Self {
        Timeouts {
            idle: Duration::from_secs(300),
            first_command: Duration::from_secs(120),
            read: Duration::from_secs(20),
            message: Duration::from_secs(60),
            write: Duration::from_secs(20),
        }
    }
}

impl Timeouts {
    /// The same with another idle timeout.
    pub fn idle(mut self, d: Duration) -> Timeouts {
        self.idle = d;
        self
    }
    /// The same with another deadline for a new connection's first command.
    pub fn first_command(mut self, d: Duration) -> Timeouts {
        self.first_command = d;
        self
    }
    /// The same with another read timeout.
    pub fn read(mut self, d: Duration) -> Timeouts {
        self.read = d;
        self
    }
    /// The same with another message deadline.
    pub fn message(mut self, d: Duration) -> Timeouts {
        self.message = d;
        self
    }
    /// The same with another write timeout.
    pub fn write(mut self, d: Duration) -> Timeouts {
        self.write = d;
        self
    }
}

/// A CEDAR stream on a tokio TCP socket: whole messages in and out.
///
/// The bytes it holds for the peer (an incomplete packet and the message
/// being joined) never exceed the bound given to [`AsyncConnection::new`]
/// plus one packet; a packet header announcing more than 1 MiB ends the
/// connection before anything is allocated for it.
#[derive(Debug)]
pub struct AsyncConnection {
    stream: Arc<TcpStream>,
    peer: Option<SocketAddr>,
    inbound: Inbound,
    outbound: Outbound,
    timeouts: Timeouts,
    max_message: usize,
    received: Arc<AtomicU64>,
}

impl AsyncConnection {
    /// Wraps `stream`, refusing incoming messages over `max_message` bytes.
    pub fn new(stream: TcpStream, timeouts: Timeouts, max_message: usize) -> AsyncConnection {
        // Nagle's delay would hold back each small reply message.
        let _ = stream.set_nodelay(true);
        let peer = stream.peer_addr().ok();
        AsyncConnection {
            stream: Arc::new(stream),
            peer,
            inbound: Inbound::with_max_message(max_message),
            outbound: Outbound::new(),
            timeouts,
            max_message,
            received: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Connects to `addr` within `timeouts.read` (a client's connection;
    /// the client side of the handshake is not here).
    pub async fn connect(addr: SocketAddr, timeouts: Timeouts, max_message: usize) -> Result<AsyncConnection> {
        let stream = timeout(timeouts.read, TcpStream::connect(addr))
            .await
            .map_err(|_| Error::new(ErrorKind::Timeout, format!("connecting to {addr} timed out")))??;
        Ok(AsyncConnection::new(stream, timeouts, max_message))
    }

    /// The peer's address.
    pub fn peer(&self) -> Option<SocketAddr> {
        self.peer
    }

    /// The socket.
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// The deadlines in force.
    pub fn timeouts(&self) -> Timeouts {
        self.timeouts
    }

    /// Sends packets of at most `max` payload bytes from now on, while the
    /// writing half is unencrypted (as `blocking::Connection::set_max_packet`).
    pub fn set_max_packet(&mut self, max: usize) {
        if !self.outbound.is_encrypted() {
            let outbound = std::mem::take(&mut self.outbound);
            self.outbound = outbound.with_packet_limit(max);
        }
    }

    /// The reading half, to switch it to encrypted between messages.
    pub fn inbound_mut(&mut self) -> &mut Inbound {
        &mut self.inbound
    }

    /// The writing half, to switch it to encrypted between messages.
    pub fn outbound_mut(&mut self) -> &mut Outbound {
        &mut self.outbound
    }

    /// Encrypts both directions with AES-GCM under `key` from the next
    /// message on ([`crate::wire::encryption::switch_on`]).
    pub fn start_crypto(&mut self, key: &crate::crypto::SessionKey) -> Result<()> {
        crate::wire::encryption::switch_on(&mut self.inbound, &mut self.outbound, key)
    }

    /// Whether incoming messages are decrypted.
    pub fn is_inbound_encrypted(&self) -> bool {
        self.inbound.is_encrypted()
    }

    /// How many bytes this connection holds for the peer.
    pub fn held(&self) -> usize {
        self.inbound.held()
    }

    /// The socket, shared (for a server that watches its connections).
    pub fn shared_stream(&self) -> Arc<TcpStream> {
        self.stream.clone()
    }

    /// How many bytes have been read from the peer so far, counted as
    /// they are read (shared, for a server that watches its connections'
    /// progress).
    pub fn received(&self) -> Arc<AtomicU64> {
        self.received.clone()
    }

    /// The next message of a peer that is expected to send one (a
    /// command's payload): the first bytes must come within the read
    /// timeout. `None` when the peer closed between messages.
    pub async fn read_message(&mut self) -> Result<Option<Message>> {
        let wait = self.timeouts.read;
        self.read_message_within(wait).await
    }

    /// The next message, waiting up to `first_byte` for it to start; the
    /// read timeout and the message deadline apply once it has started.
    /// `None` when the peer closed between messages; EOF inside a message
    /// is [`ErrorKind::Closed`], a deadline [`ErrorKind::Timeout`].
    pub async fn read_message_within(&mut self, first_byte: Duration) -> Result<Option<Message>> {
        let mut deadline: Option<Instant> = None;
        let first_deadline = Instant::now() + first_byte;
        loop {
            if let Some(message) = self.inbound.next_message()? {
                return Ok(Some(message));
            }
            // next_message refuses a packet over 1 MiB and a message over
            // the bound, so this holds; it is the adapter's own guarantee.
            if self.inbound.held() > self.max_message.saturating_add(HEADER_LEN + MAX_PACKET + READ_CHUNK) {
                return Err(Error::new(ErrorKind::LimitExceeded, "the peer's message outgrew the connection's buffer"));
            }
            let now = Instant::now();
            let started = self.inbound.buffered() > 0;
            if started && deadline.is_none() {
                deadline = Some(now + self.timeouts.message);
            }
            let until = match deadline {
                Some(d) => d.min(now + self.timeouts.read),
                None => first_deadline,
            };
            let ready = timeout_at(until, self.stream.readable()).await;
            match ready {
                Err(_) => {
                    let what = match deadline {
                        Some(d) if Instant::now() >= d => {
                            format!("the peer's message took too long to arrive (over {:?})", self.timeouts.message)
                        }
                        Some(_) => {
                            format!("the peer stopped sending inside a message (nothing for {:?})", self.timeouts.read)
                        }
                        None => format!("the peer sent nothing in time (within {first_byte:?})"),
                    };
                    return Err(Error::new(ErrorKind::Timeout, what));
                }
                Ok(r) => r?,
            }
            let mut buf = [0u8; READ_CHUNK];
            let n = match self.stream.try_read(&mut buf) {
                Ok(n) => n,
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted) => {
                    continue
                }
                Err(e) => return Err(e.into()),
            };
            if n == 0 {
                if self.inbound.buffered() == 0 {
                    return Ok(None);
                }
                return Err(Error::new(ErrorKind::Closed, "the peer closed the connection inside a message"));
            }
            self.received.fetch_add(n as u64, Ordering::Release);
            self.inbound.feed(&buf[..n]);
            if deadline.is_none() {
                deadline = Some(Instant::now() + self.timeouts.message);
            }
        }
    }

    /// The next message; EOF is an error.
    pub async fn expect_message(&mut self) -> Result<Message> {
        self.read_message().await?.ok_or_else(|| Error::new(ErrorKind::Closed, "the peer closed the connection"))
    }

    /// An encoder for the next message, in the stream's current encryption
    /// state.
    pub fn encoder(&self) -> Encoder {
        Encoder::new(self.outbound.is_encrypted())
    }

    /// Sends `payload` as one message; each 64 KiB must be taken by the
    /// peer within the write timeout.
    pub async fn send(&mut self, payload: &[u8]) -> Result<()> {
        if payload.is_empty() {
            return Ok(());
        }
        self.send_part(payload, true).await
    }

    /// Sends `payload` as the next packets of a message that goes on after
    /// them unless `end` (see [`Outbound::frame_part`]): a reply of any
    /// size written as it is made, each part within the write timeout.
    pub async fn send_part(&mut self, payload: &[u8], end: bool) -> Result<()> {
        let mut wire = Vec::with_capacity(payload.len() + 16);
        self.outbound.frame_part(payload, end, &mut wire)?;
        for chunk in wire.chunks(WRITE_CHUNK) {
            timeout(self.timeouts.write, write_all(&self.stream, chunk))
                .await
                .map_err(|_| Error::new(ErrorKind::Timeout, "the peer stopped reading our reply"))??;
        }
        Ok(())
    }

    /// Sends one ad as a whole message.
    pub async fn send_ad(&mut self, ad: &ClassAd, opts: &PutOptions) -> Result<()> {
        let mut enc = self.encoder();
        put_classad(&mut enc, ad, opts)?;
        self.send(enc.as_bytes()).await
    }
}

/// Writes all of `bytes` to a shared stream (`write_all` needs it alone).
async fn write_all(stream: &TcpStream, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        stream.writable().await?;
        match stream.try_write(bytes) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
