//! Blocking adapters over `std::net::TcpStream`: a [`Connection`] that
//! reads and writes whole messages with read and write timeouts, and a
//! [`ServerSession`] that runs the server side of the command protocol on
//! one.
//!
//! ```no_run
//! use std::sync::Arc;
//! use cedar::blocking::ServerSession;
//! use cedar::handshake::{CommandTable, ServerConfig};
//!
//! let config = Arc::new(ServerConfig::new(CommandTable::new().register(60011, cedar::authz::Permission::Allow)));
//! let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
//! let (stream, _) = listener.accept()?;
//! let mut session = ServerSession::new(stream, config, std::time::Duration::from_secs(20))?;
//! while let Some(request) = session.next_command()? {
//!     let payload = session.read_payload(&request)?;
//!     // ... decode `payload`, answer with session.connection().send(...)
//! #   let _ = payload;
//! }
//! # Ok::<(), cedar::Error>(())
//! ```

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use classad::ClassAd;

use crate::crypto::SessionKey;
use crate::error::{Error, ErrorKind, Result};
use crate::handshake::{CloseReason, CommandRequest, Output, Payload, ServerConfig, ServerConnection, Step};
use crate::wire::ad::{put_classad, PutOptions};
use crate::wire::reply::ReplyReader;
use crate::wire::{encryption, Encoder, Inbound, Message, Outbound};

/// How much is read from the socket at a time.
const READ_CHUNK: usize = 64 * 1024;

/// A CEDAR stream on a TCP socket: whole messages in and out.
#[derive(Debug)]
pub struct Connection {
    stream: TcpStream,
    inbound: Inbound,
    outbound: Outbound,
    message_deadline: Option<Duration>,
}

impl Connection {
    /// Wraps `stream`; every read and every write fails after `timeout`
    /// without progress, and a whole message must arrive within ten times
    /// `timeout` (so a peer trickling bytes cannot hold the connection).
    pub fn new(stream: TcpStream, timeout: Duration) -> Result<Connection> {
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream,
            inbound: Inbound::new(),
            outbound: Outbound::new(),
            message_deadline: timeout.checked_mul(10),
        })
    }

    /// Sends packets of at most `max` payload bytes from now on (C++ sends
    /// packets of about 4 KiB; 1 MiB by default here). Only while the
    /// writing half is unencrypted: once a sealer is set this does nothing.
    pub fn set_max_packet(&mut self, max: usize) {
        if !self.outbound.is_encrypted() {
            let outbound = std::mem::take(&mut self.outbound);
            self.outbound = outbound.with_packet_limit(max);
        }
    }

    /// Sets how long a whole message may take to arrive (`None`: as long as
    /// each read makes progress within the timeout).
    pub fn set_message_deadline(&mut self, deadline: Option<Duration>) {
        self.message_deadline = deadline;
    }

    /// The socket.
    pub fn stream(&self) -> &TcpStream {
        &self.stream
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
    /// message on ([`encryption::switch_on`]).
    pub fn start_crypto(&mut self, key: &SessionKey) -> Result<()> {
        encryption::switch_on(&mut self.inbound, &mut self.outbound, key)
    }

    /// Whether the stream is encrypted (both directions switch together).
    pub fn is_encrypted(&self) -> bool {
        self.outbound.is_encrypted()
    }

    /// The next message; `None` when the peer closed the connection between
    /// messages. EOF inside a message is an error ([`ErrorKind::Closed`]).
    pub fn read_message(&mut self) -> Result<Option<Message>> {
        let mut buf = vec![0u8; READ_CHUNK];
        let started = Instant::now();
        loop {
            if let Some(message) = self.inbound.next_message()? {
                return Ok(Some(message));
            }
            if self.message_deadline.is_some_and(|d| started.elapsed() > d) {
                return Err(Error::new(ErrorKind::Timeout, "the peer's message took too long to arrive"));
            }
            let n = match self.stream.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            if n == 0 {
                if self.inbound.buffered() == 0 {
                    return Ok(None);
                }
                return Err(Error::new(ErrorKind::Closed, "the peer closed the connection inside a message"));
            }
            self.inbound.feed(&buf[..n]);
        }
    }

    /// Reads until `reply` has taken the next packet of the message it
    /// reads ([`ReplyReader::take_packet`]): a packet already in hand is
    /// taken without reading the socket. Each packet must arrive within
    /// the message deadline; EOF is an error ([`ErrorKind::Closed`]).
    ///
    /// False, reading nothing, once the reply's last packet was taken.
    pub fn read_reply_packet(&mut self, reply: &mut ReplyReader) -> Result<bool> {
        if reply.message_ended() {
            return Ok(false);
        }
        let mut buf = vec![0u8; READ_CHUNK];
        let started = Instant::now();
        loop {
            // What an earlier read brought may hold whole packets already.
            if reply.take_packet(&mut self.inbound)? {
                return Ok(true);
            }
            if self.message_deadline.is_some_and(|d| started.elapsed() > d) {
                return Err(Error::new(ErrorKind::Timeout, "a packet of the peer's reply took too long to arrive"));
            }
            let n = match self.stream.read(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            if n == 0 {
                return Err(Error::new(ErrorKind::Closed, "the peer closed the connection inside a reply"));
            }
            self.inbound.feed(&buf[..n]);
        }
    }

    /// The next message; EOF is an error.
    pub fn expect_message(&mut self) -> Result<Message> {
        self.read_message()?.ok_or_else(|| Error::new(ErrorKind::Closed, "the peer closed the connection"))
    }

    /// An encoder for the next message, in the stream's current encryption
    /// state.
    pub fn encoder(&self) -> Encoder {
        Encoder::new(self.outbound.is_encrypted())
    }

    /// Sends `payload` as one message.
    pub fn send(&mut self, payload: &[u8]) -> Result<()> {
        let mut wire = Vec::with_capacity(payload.len() + 16);
        self.outbound.frame(payload, &mut wire)?;
        self.stream.write_all(&wire)?;
        Ok(())
    }

    /// Sends one ad as a whole message.
    pub fn send_ad(&mut self, ad: &ClassAd, opts: &PutOptions) -> Result<()> {
        let mut enc = self.encoder();
        put_classad(&mut enc, ad, opts)?;
        self.send(enc.as_bytes())
    }
}

/// The server side of one connection: the handshake, then the commands.
#[derive(Debug)]
pub struct ServerSession {
    connection: Connection,
    protocol: ServerConnection,
    closed: Option<CloseReason>,
}

impl ServerSession {
    /// Serves `stream` under `config`.
    pub fn new(stream: TcpStream, config: Arc<ServerConfig>, timeout: Duration) -> Result<ServerSession> {
        let peer = stream.peer_addr().ok().map(|a| a.ip());
        let local = stream.local_addr().ok();
        Ok(ServerSession {
            connection: Connection::new(stream, timeout)?,
            protocol: ServerConnection::new(config, peer).with_local_addr(local),
            closed: None,
        })
    }

    /// The stream, to send replies.
    pub fn connection(&mut self) -> &mut Connection {
        &mut self.connection
    }

    /// Why the connection ended, once [`next_command`](Self::next_command)
    /// gave `None`.
    pub fn close_reason(&self) -> Option<&CloseReason> {
        self.closed.as_ref()
    }

    fn flush(&mut self) -> Result<()> {
        for out in self.protocol.take_output() {
            match out {
                Output::Message(bytes) => self.connection.send(&bytes)?,
                Output::StartCrypto(key) => self.connection.start_crypto(&key)?,
            }
        }
        Ok(())
    }

    /// Runs the protocol up to the next command; `None` once the
    /// connection is over (EOF, `DC_NOP`, a refusal: see
    /// [`close_reason`](Self::close_reason)).
    pub fn next_command(&mut self) -> Result<Option<CommandRequest>> {
        loop {
            if self.closed.is_some() {
                return Ok(None);
            }
            let step = match self.connection.read_message()? {
                None => self.protocol.on_eof(),
                Some(message) => self.protocol.on_message(message)?,
            };
            self.flush()?;
            match step {
                Step::Command(request) => return Ok(Some(request)),
                Step::Continue => continue,
                Step::Close(reason) => {
                    self.closed = Some(reason);
                    return Ok(None);
                }
            }
        }
    }

    /// The payload of a command that may have none: as
    /// [`read_payload`](Self::read_payload), but a peer that hangs up
    /// instead of sending one gives an empty message (C++'s
    /// `allow_one_empty_message`). A command that takes no payload should
    /// not read at all: a client waiting for its reply sends nothing more.
    pub fn read_payload_or_empty(&mut self, request: &CommandRequest) -> Result<Message> {
        match &request.payload {
            Payload::Inline(..) => self.read_payload(request),
            Payload::NextMessage => Ok(self
                .connection
                .read_message()?
                .unwrap_or(Message { payload: Vec::new(), encrypted: self.connection.inbound.is_encrypted() })),
        }
    }

    /// The payload of `request`: its inline bytes, or the next message.
    pub fn read_payload(&mut self, request: &CommandRequest) -> Result<Message> {
        match &request.payload {
            Payload::Inline(bytes, encrypted) => Ok(Message { payload: bytes.clone(), encrypted: *encrypted }),
            Payload::NextMessage => self.connection.expect_message(),
        }
    }
}
