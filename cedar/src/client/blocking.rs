//! The client on `std::net::TcpStream`: a [`Client`] holds the
//! configuration and the session cache; [`Client::connect`] opens a
//! [`ClientConnection`] (TCP, then `SHARED_PORT_CONNECT` when the address
//! has `sock=`), which starts commands, carries their payloads and
//! replies, and takes follow-on commands until [`ClientConnection::hang_up`].
//!
//! Every connect, read and write has the configuration's timeout, and a
//! whole message must arrive within ten times that.
//!
//! ```no_run
//! use cedar::client::{Client, ClientConfig};
//! use cedar::command::QUERY_COLLECTOR_ADS;
//! use cedar::wire::ad::{get_classad, put_classad, PutOptions};
//!
//! let client = Client::new(ClientConfig::default());
//! let mut conn = client.connect(&"<127.0.0.1:9618>".parse()?)?;
//! conn.start_command(QUERY_COLLECTOR_ADS)?;
//! let query: classad::ClassAd = r#"[ MyType = "Query"; TargetType = "Collector"; Requirements = true ]"#.parse().unwrap();
//! let mut enc = conn.encoder();
//! put_classad(&mut enc, &query, &PutOptions::default())?;
//! conn.send(enc)?;
//! let reply = conn.read_message()?;
//! # let _ = reply;
//! conn.hang_up()?;
//! # Ok::<(), cedar::Error>(())
//! ```

use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use classad::ClassAd;

use super::shared_port::{connect_message, resets_stream};
use super::start::{StartCommand, Step};
use super::{ClientConfig, ClientSessionCache};
use crate::blocking::Connection;
use crate::command::DC_NOP;
use crate::error::{Error, ErrorKind, Result};
use crate::handshake::Via;
use crate::policy::SecurityLevel;
use crate::sinful::Sinful;
use crate::version::Version;
use crate::wire::ad::{put_classad, PutOptions};
use crate::wire::{Encoder, Inbound, Message, Outbound};

/// The most handshake steps one command may take before it is refused
/// (a new session takes three).
const MAX_STEPS: usize = 16;

/// A client: its configuration and its session cache, shared by every
/// connection it opens (clones share the cache).
#[derive(Clone, Debug)]
pub struct Client {
    config: Arc<ClientConfig>,
    sessions: Arc<Mutex<ClientSessionCache>>,
}

impl Client {
    /// A client with an empty session cache.
    pub fn new(config: ClientConfig) -> Client {
        Client { config: Arc::new(config), sessions: Arc::new(Mutex::new(ClientSessionCache::new())) }
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The session cache.
    pub fn sessions(&self) -> &Arc<Mutex<ClientSessionCache>> {
        &self.sessions
    }

    /// Connects to `addr`: TCP to its host and port (the first address
    /// that answers within the timeout), then, for an address with `sock=`,
    /// the `SHARED_PORT_CONNECT` message.
    pub fn connect(&self, addr: &Sinful) -> Result<ClientConnection> {
        let timeout = self.config.timeout;
        let targets: Vec<SocketAddr> = match addr.socket_addr() {
            Some(a) => vec![a],
            None => (addr.host(), addr.port()).to_socket_addrs()?.take(16).collect(),
        };
        let mut last = Error::new(ErrorKind::Io, format!("{addr} resolves to no address"));
        let mut stream = None;
        for target in targets {
            match TcpStream::connect_timeout(&target, timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = e.into(),
            }
        }
        let Some(stream) = stream else { return Err(last) };
        let mut conn = Connection::new(stream, timeout)?;
        *conn.inbound_mut() = Inbound::with_max_message(self.config.max_message);
        if let Some(id) = addr.shared_port_id() {
            let mut name = self.config.subsystem.clone();
            if let Some(sock) = &self.config.command_sock {
                name.push(' ');
                name.push_str(sock);
            }
            let deadline = i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX);
            let deadline = if deadline == 0 { -1 } else { deadline };
            conn.send(&connect_message(id, &name, deadline)?)?;
            if resets_stream(id) {
                *conn.outbound_mut() = Outbound::new();
            }
        }
        Ok(ClientConnection {
            conn,
            connect_addr: addr.to_string(),
            config: self.config.clone(),
            sessions: self.sessions.clone(),
            addr: addr.clone(),
            pending_raw: None,
            started: false,
            closed: false,
            session_id: None,
            server_version: None,
            my_remote_user: None,
            rejected: false,
            via: None,
        })
    }

    /// Connects and starts `command`, retrying once on a new connection
    /// with a new session if the server has forgotten ours and the
    /// configuration says so ([`ClientConfig::retry_rejected_session`]).
    pub fn start(&self, addr: &Sinful, command: i32) -> Result<ClientConnection> {
        let mut conn = self.connect(addr)?;
        match conn.start_command(command) {
            Err(_) if conn.session_rejected() && self.config.retry_rejected_session => {
                let mut conn = self.connect(addr)?;
                conn.start_command(command)?;
                Ok(conn)
            }
            Err(e) => Err(e),
            Ok(()) => Ok(conn),
        }
    }
}

/// One connection to a server.
#[derive(Debug)]
pub struct ClientConnection {
    conn: Connection,
    connect_addr: String,
    addr: Sinful,
    config: Arc<ClientConfig>,
    sessions: Arc<Mutex<ClientSessionCache>>,
    pending_raw: Option<i32>,
    started: bool,
    closed: bool,
    session_id: Option<String>,
    server_version: Option<Version>,
    my_remote_user: Option<String>,
    rejected: bool,
    via: Option<Via>,
}

fn poisoned() -> Error {
    Error::new(ErrorKind::Protocol, "the client session cache lock is poisoned")
}

impl ClientConnection {
    /// The address this connection went to.
    pub fn addr(&self) -> &Sinful {
        &self.addr
    }

    /// The session the connection's commands run under, if any.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// How the connection's first command started (raw, new session,
    /// resumed session); `None` before it.
    pub fn via(&self) -> Option<Via> {
        self.via
    }

    /// The server's version, when the handshake gave it.
    pub fn server_version(&self) -> Option<&Version> {
        self.server_version.as_ref()
    }

    /// Our name as the server mapped us (`unauthenticated@unmapped` without
    /// authentication), when a new session told us.
    pub fn my_remote_user(&self) -> Option<&str> {
        self.my_remote_user.as_deref()
    }

    /// Whether the last command failed because the server did not know the
    /// session we resumed (`SID_NOT_FOUND`).
    pub fn session_rejected(&self) -> bool {
        self.rejected
    }

    /// The underlying stream, for what this type does not cover.
    pub fn connection(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// Starts `command`. The first command of the connection goes through
    /// the handshake (or raw, by our policy), resuming a cached session for
    /// this address and command or making a new one; later ones are
    /// follow-on commands, the integer alone at the start of the payload's
    /// message, under the security the connection already has.
    ///
    /// After it, build the payload with [`encoder`](Self::encoder) and send
    /// it with [`send`](Self::send) (even when empty: a raw command's
    /// integer has to go).
    ///
    /// A session the server has forgotten fails the command
    /// ([`ErrorKind::Protocol`], "Server rejected our session id", and
    /// [`session_rejected`](Self::session_rejected) is true); the session is
    /// dropped from the cache and the connection is over, so the next
    /// command makes a new session.
    pub fn start_command(&mut self, command: i32) -> Result<()> {
        self.start(command, None)
    }

    /// As [`start_command`](Self::start_command) for `DC_AUTHENTICATE` or
    /// `DC_SEC_QUERY`, asking about `auth_command`'s permission level.
    pub fn start_auth_command(&mut self, command: i32, auth_command: i32) -> Result<()> {
        self.start(command, Some(auth_command))
    }

    fn start(&mut self, command: i32, auth_command: Option<i32>) -> Result<()> {
        if self.closed {
            return Err(Error::new(ErrorKind::Closed, "the connection is over"));
        }
        if self.pending_raw.is_some() {
            return Err(Error::new(ErrorKind::Protocol, "the previous command's payload was not sent"));
        }
        if self.started {
            self.pending_raw = Some(command);
            return Ok(());
        }
        self.started = true;
        let now = Instant::now();
        let mut start = {
            let mut cache = self.sessions.lock().map_err(|_| poisoned())?;
            let raw = matches!(self.config.policy.negotiation, SecurityLevel::Optional | SecurityLevel::Never);
            let cached = if raw { None } else { cache.lookup(&self.connect_addr, command, now) };
            let start = StartCommand::new(&self.config, &self.connect_addr, command, cached)
                .with_peer_addr(self.conn.stream().peer_addr().ok());
            if let Some(s) = cached {
                let sid = s.id.clone();
                cache.renew(&sid, now);
            }
            start
        };
        if let Some(sub) = auth_command {
            start = start.with_auth_command(sub);
        }
        let mut step = start.poll();
        for _ in 0..MAX_STEPS {
            match step {
                Err(e) => {
                    self.closed = true;
                    return Err(e);
                }
                Ok(Step::Send(payload)) => {
                    self.conn.send(&payload)?;
                    step = start.poll();
                }
                Ok(Step::Read) => {
                    let Some(message) = self.conn.read_message()? else {
                        self.closed = true;
                        return Err(Error::new(
                            ErrorKind::Closed,
                            "Connection closed during command authorization. Probably due to an unknown command.",
                        ));
                    };
                    step = start.on_message(message);
                }
                Ok(Step::SwitchOn(key)) => {
                    self.conn.start_crypto(&key)?;
                    step = start.poll();
                }
                Ok(Step::Rejected(sid)) => {
                    self.closed = true;
                    self.rejected = true;
                    self.sessions.lock().map_err(|_| poisoned())?.invalidate(&sid);
                    return Err(Error::new(ErrorKind::Protocol, "Server rejected our session id"));
                }
                Ok(Step::Ready(started)) => {
                    let mut started = *started;
                    if let Some(session) = started.new_session.take() {
                        self.sessions.lock().map_err(|_| poisoned())?.insert(session, Instant::now());
                    }
                    if started.raw {
                        self.pending_raw = Some(command);
                    }
                    self.via = Some(started.via);
                    self.session_id = started.session_id;
                    self.server_version = started.server_version;
                    if started.via == Via::NewSession {
                        self.my_remote_user = started.my_remote_user;
                    }
                    return Ok(());
                }
            }
        }
        self.closed = true;
        Err(Error::new(ErrorKind::Protocol, "the handshake took too many steps"))
    }

    /// An encoder for the current command's payload message: in the
    /// stream's encryption state, already holding the command integer when
    /// the command goes raw or follows on.
    pub fn encoder(&mut self) -> Encoder {
        let mut enc = self.conn.encoder();
        if let Some(command) = self.pending_raw.take() {
            enc.put_int(i64::from(command));
        }
        enc
    }

    /// Sends `enc` as one message. An empty one is not sent: after a
    /// handshake, a command without payload sends nothing (C++'s
    /// `end_of_message` on an empty buffer sends no packet).
    pub fn send(&mut self, enc: Encoder) -> Result<()> {
        if self.pending_raw.is_some() {
            return Err(Error::new(ErrorKind::Protocol, "the payload was not built with ClientConnection::encoder"));
        }
        if enc.is_empty() {
            return Ok(());
        }
        self.conn.send(enc.as_bytes())
    }

    /// Sends `ads` (each with `opts`) as the current command's payload,
    /// one message.
    pub fn send_ads(&mut self, ads: &[&ClassAd], opts: &PutOptions) -> Result<()> {
        let mut enc = self.encoder();
        for ad in ads {
            put_classad(&mut enc, ad, opts)?;
        }
        self.send(enc)
    }

    /// The server's next message; EOF is an error ([`ErrorKind::Closed`]).
    pub fn read_message(&mut self) -> Result<Message> {
        self.conn.expect_message()
    }

    /// Hangs up politely: `DC_NOP` as a follow-on command, then closes.
    pub fn hang_up(mut self) -> Result<()> {
        if self.closed || !self.started {
            return Ok(());
        }
        self.pending_raw = None;
        self.start_command(DC_NOP)?;
        let enc = self.encoder();
        self.send(enc)?;
        let _ = self.conn.stream().shutdown(std::net::Shutdown::Both);
        Ok(())
    }
}
