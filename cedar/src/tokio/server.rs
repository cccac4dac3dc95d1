//! The accept loop, one task per connection, and the command loop of each
//! connection, driving the sans-IO [`ServerConnection`].

use std::future::Future;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use ::tokio::net::{TcpListener, TcpStream};
use ::tokio::sync::{watch, Semaphore};
use ::tokio::task::JoinSet;
use classad::ClassAd;

use super::connection::{AsyncConnection, Timeouts};
use super::order::{Arrival, Arrivals};
use crate::error::{Error, ErrorKind, Result};
use crate::handshake::{CloseReason, CommandRequest, Output, Payload, ServerConfig, ServerConnection, Step, Via};
use crate::version::Version;
use crate::wire::ad::PutOptions;
use crate::wire::{Encoder, Message};

/// The default bound on concurrent connections: 4,096.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;

/// The default bound on one incoming message: 16 MiB (updates and queries
/// are far smaller; replies, which can be large, are not bounded here).
pub const DEFAULT_MAX_INBOUND_MESSAGE: usize = 16 << 20;

/// How a [`Server`] runs its connections.
///
/// ```
/// use std::time::Duration;
/// use cedar::tokio::{ServerOptions, Timeouts};
/// let options = ServerOptions::default()
///     .max_connections(1000)
///     .timeouts(Timeouts::default().message(Duration::from_secs(10)));
/// assert_eq!(options.max_connections, 1000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerOptions {
    /// The deadlines of every connection.
    pub timeouts: Timeouts,
    /// How many connections are served at once. A connection accepted
    /// beyond this is closed at once, before a byte is read (refused, not
    /// queued), and counted in [`ServerStats::refused`].
    pub max_connections: usize,
    /// The bound on one incoming message. A connection holds at most this
    /// plus one packet (1 MiB) and one read (16 KiB) for its peer.
    pub max_inbound_message: usize,
    /// On shutdown, how long commands already running may take to finish
    /// before their tasks are aborted.
    pub shutdown_grace: Duration,
    /// Send packets of at most this many payload bytes (`None`: 1 MiB).
    pub max_packet: Option<usize>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            timeouts: Timeouts::default(),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_inbound_message: DEFAULT_MAX_INBOUND_MESSAGE,
            shutdown_grace: Duration::from_secs(10),
            max_packet: None,
        }
    }
}

impl ServerOptions {
    /// The same with other deadlines.
    pub fn timeouts(mut self, timeouts: Timeouts) -> ServerOptions {
        self.timeouts = timeouts;
        self
    }
    /// The same with another connection bound (at least 1).
    pub fn max_connections(mut self, n: usize) -> ServerOptions {
        self.max_connections = n.max(1);
        self
    }
    /// The same with another bound on incoming messages.
    pub fn max_inbound_message(mut self, n: usize) -> ServerOptions {
        self.max_inbound_message = n;
        self
    }
    /// The same with another shutdown grace period.
    pub fn shutdown_grace(mut self, d: Duration) -> ServerOptions {
        self.shutdown_grace = d;
        self
    }
    /// The same with another packet size for what is sent.
    pub fn max_packet(mut self, n: Option<usize>) -> ServerOptions {
        self.max_packet = n;
        self
    }
}

/// Counters of a running [`Server`], for logs and metrics.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct ServerStats {
    /// Connections accepted and served.
    pub accepted: AtomicU64,
    /// Connections closed at once because [`ServerOptions::max_connections`]
    /// were being served.
    pub refused: AtomicU64,
    /// Connections being served now.
    pub active: AtomicUsize,
    /// Commands handed to the handler.
    pub commands: AtomicU64,
    /// Connections cut off by a deadline.
    pub timed_out: AtomicU64,
    /// Connections ended by any other error (malformed bytes, a bound, a
    /// handler's error or panic).
    pub failed: AtomicU64,
}

/// Serves the commands the handshake lets through.
///
/// Implement it with an `async fn`:
///
/// ```
/// use cedar::tokio::{Command, Handler};
/// struct Echo;
/// impl Handler for Echo {
///     async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
///         let payload = command.read_payload().await?;
///         command.send(&payload.payload).await
///     }
/// }
/// ```
pub trait Handler: Send + Sync + 'static {
    /// Runs one command: read its payload, write the reply messages. An
    /// error ends the connection. When it returns, the connection waits
    /// for a follow-on command.
    fn handle(&self, command: &mut Command<'_>) -> impl Future<Output = Result<()>> + Send;
}

/// One command ready to run, and the connection it came on.
#[derive(Debug)]
pub struct Command<'a> {
    connection: &'a mut AsyncConnection,
    request: CommandRequest,
    payload_read: bool,
    arrival: Option<&'a Arrival>,
}

impl Command<'_> {
    /// The command number.
    pub fn number(&self) -> i32 {
        self.request.command
    }

    /// What the handshake decided: the permission level, how the command
    /// arrived, the session, the user and the peer's version.
    pub fn request(&self) -> &CommandRequest {
        &self.request
    }

    /// How the command arrived.
    pub fn via(&self) -> Via {
        self.request.via
    }

    /// The authenticated user; `None` without authentication.
    pub fn user(&self) -> Option<&str> {
        self.request.user.as_deref()
    }

    /// The session the command runs under, if any.
    pub fn session(&self) -> Option<&str> {
        self.request.session.as_deref()
    }

    /// The peer's version, when known (see [`CommandRequest::peer_version`]).
    pub fn peer_version(&self) -> Option<&Version> {
        self.request.peer_version.as_ref()
    }

    /// The peer's address.
    pub fn peer(&self) -> Option<SocketAddr> {
        self.connection.peer()
    }

    /// The connection, for commands that exchange more messages.
    pub fn connection(&mut self) -> &mut AsyncConnection {
        self.connection
    }

    /// The payload: its inline bytes (raw commands), or the next message
    /// (after a handshake), under the read deadlines. Read it once.
    pub async fn read_payload(&mut self) -> Result<Message> {
        if self.payload_read {
            return Err(Error::new(ErrorKind::Protocol, "the payload was already read"));
        }
        self.payload_read = true;
        match &mut self.request.payload {
            Payload::Inline(bytes, encrypted) => Ok(Message { payload: std::mem::take(bytes), encrypted: *encrypted }),
            Payload::NextMessage => self.connection.expect_message().await,
        }
    }

    /// As [`read_payload`](Self::read_payload), but a peer that hangs up
    /// instead of sending one gives an empty message (C++'s
    /// `allow_one_empty_message`).
    pub async fn read_payload_or_empty(&mut self) -> Result<Message> {
        if matches!(self.request.payload, Payload::NextMessage) && !self.payload_read {
            self.payload_read = true;
            let encrypted = self.connection.is_inbound_encrypted();
            return Ok(self.connection.read_message().await?.unwrap_or(Message { payload: Vec::new(), encrypted }));
        }
        self.read_payload().await
    }

    /// Waits until the connections [`Server`] accepted before this one
    /// have run the commands whose bytes had reached us (a stalled peer
    /// is waited for [`ORDER_WINDOW`](super::ORDER_WINDOW) at most), as a
    /// single-threaded C++ daemon would have: a query on a new connection
    /// then sees the updates a client sent just before it. A connection
    /// served outside a `Server` ([`serve_connection`]) does not wait.
    pub async fn wait_for_earlier_connections(&mut self) {
        if let Some(arrival) = self.arrival {
            arrival.wait_for_earlier().await;
        }
    }

    /// Another message from the peer, for commands of several exchanges.
    pub async fn read_message(&mut self) -> Result<Message> {
        self.connection.expect_message().await
    }

    /// An encoder for a reply, in the stream's encryption state.
    pub fn encoder(&self) -> Encoder {
        self.connection.encoder()
    }

    /// Sends one reply message.
    pub async fn send(&mut self, payload: &[u8]) -> Result<()> {
        self.connection.send(payload).await
    }

    /// Sends part of a reply message; the message ends with the part
    /// sent with `end` (see [`AsyncConnection::send_part`]).
    pub async fn send_part(&mut self, payload: &[u8], end: bool) -> Result<()> {
        self.connection.send_part(payload, end).await
    }

    /// Sends one ad as a reply message.
    pub async fn send_ad(&mut self, ad: &ClassAd, opts: &PutOptions) -> Result<()> {
        self.connection.send_ad(ad, opts).await
    }
}

/// Polls two futures; the first to finish wins, `a` first on a tie.
async fn race<A: Future, B: Future>(a: A, b: B) -> std::result::Result<A::Output, B::Output> {
    let mut a = pin!(a);
    let mut b = pin!(b);
    std::future::poll_fn(|cx| {
        if let Poll::Ready(x) = a.as_mut().poll(cx) {
            return Poll::Ready(Ok(x));
        }
        if let Poll::Ready(y) = b.as_mut().poll(cx) {
            return Poll::Ready(Err(y));
        }
        Poll::Pending
    })
    .await
}

/// Resolves once the shutdown flag is set (or its sender is gone).
async fn stopped(mut rx: watch::Receiver<bool>) {
    let _ = rx.wait_for(|stop| *stop).await;
}

/// A CEDAR server on tokio: accepts connections and runs each in its own
/// task, through the handshake (the same sans-IO [`ServerConnection`] the
/// blocking adapter drives) and then the handler, command after command.
///
/// ```no_run
/// use std::sync::Arc;
/// use cedar::handshake::{CommandTable, ServerConfig};
/// use cedar::tokio::{Command, Handler, Server, ServerOptions};
///
/// struct Nop;
/// impl Handler for Nop {
///     async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
///         let _payload = command.read_payload().await?;
///         Ok(())
///     }
/// }
///
/// # fn main() -> cedar::error::Result<()> {
/// let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
/// rt.block_on(async {
///     let config = Arc::new(ServerConfig::new(CommandTable::new().register(60011, cedar::authz::Permission::Allow)));
///     let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
///     let (stop, stopping) = tokio::sync::watch::channel(false);
///     let server = Server::new(config, Nop).options(ServerOptions::default());
///     let task = tokio::spawn(server.serve(listener, async move {
///         let mut stopping = stopping;
///         let _ = stopping.wait_for(|s| *s).await;
///     }));
///     // ... later: a graceful shutdown.
///     let _ = stop.send(true);
///     task.await.map_err(|e| cedar::Error::new(cedar::ErrorKind::Io, e.to_string()))?
/// })
/// # }
/// ```
#[derive(Debug)]
pub struct Server<H> {
    config: Arc<ServerConfig>,
    handler: Arc<H>,
    options: ServerOptions,
    stats: Arc<ServerStats>,
}

impl<H: Handler> Server<H> {
    /// A server of `config`'s commands, run by `handler`, with the default
    /// [`ServerOptions`].
    pub fn new(config: Arc<ServerConfig>, handler: H) -> Server<H> {
        Server { config, handler: Arc::new(handler), options: ServerOptions::default(), stats: Arc::default() }
    }

    /// The same server with other options.
    pub fn options(mut self, options: ServerOptions) -> Server<H> {
        self.options = options;
        self
    }

    /// The server's counters (shared: they move while it runs).
    pub fn stats(&self) -> Arc<ServerStats> {
        self.stats.clone()
    }

    /// Accepts and serves connections until `shutdown` resolves; then stops
    /// accepting, closes idle connections at once, lets running commands
    /// finish for [`ServerOptions::shutdown_grace`] and aborts the rest.
    /// Returns once every connection task has ended.
    pub async fn serve(self, listener: TcpListener, shutdown: impl Future<Output = ()> + Send) -> Result<()> {
        let (stop_tx, stop_rx) = watch::channel(false);
        let permits = Arc::new(Semaphore::new(self.options.max_connections));
        let arrivals = Arc::new(Arrivals::default());
        let mut tasks = JoinSet::new();
        let mut refusals = Refusals::default();
        let mut shutdown = pin!(shutdown);
        loop {
            while tasks.try_join_next().is_some() {}
            let accepted = match race(listener.accept(), shutdown.as_mut()).await {
                Ok(accepted) => accepted,
                Err(()) => break,
            };
            let (stream, peer) = match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of descriptors, or a connection reset before it
                    // was accepted: wait a little rather than spin.
                    tracing::warn!("cedar::tokio: accept failed: {e}");
                    if race(::tokio::time::sleep(Duration::from_millis(100)), shutdown.as_mut()).await.is_err() {
                        break;
                    }
                    continue;
                }
            };
            let Ok(permit) = permits.clone().try_acquire_owned() else {
                self.stats.refused.fetch_add(1, Ordering::Relaxed);
                refusals.refused(peer, self.options.max_connections);
                drop(stream);
                continue;
            };
            self.stats.accepted.fetch_add(1, Ordering::Relaxed);
            self.stats.active.fetch_add(1, Ordering::Relaxed);
            let config = self.config.clone();
            let handler = self.handler.clone();
            let stats = self.stats.clone();
            let options = self.options;
            let stop = stop_rx.clone();
            let arrival = arrivals.arrive();
            tasks.spawn(async move {
                let _permit = permit;
                let _active = ActiveGuard(stats.clone());
                let outcome = serve_in_order(stream, config, handler.as_ref(), options, stop, Some(&arrival)).await;
                if let Err(e) = outcome {
                    if e.kind() == ErrorKind::Timeout {
                        stats.timed_out.fetch_add(1, Ordering::Relaxed);
                    } else {
                        stats.failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
        drop(listener);
        let _ = stop_tx.send(true);
        let grace = ::tokio::time::sleep(self.options.shutdown_grace);
        let drained = race(async { while tasks.join_next().await.is_some() {} }, grace).await;
        if drained.is_err() {
            tasks.abort_all();
            while tasks.join_next().await.is_some() {}
        }
        Ok(())
    }
}

/// A peer's address as HTCondor's logs write it: `<ip:port>`.
struct Sinful(SocketAddr);

impl std::fmt::Display for Sinful {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<{}>", self.0)
    }
}

/// The log of refused connections, at most a line a second: a flood of
/// connections must not become a flood of log lines.
#[derive(Default)]
struct Refusals {
    /// When the last line was written.
    logged: Option<std::time::Instant>,
    /// Refusals since, not logged.
    unlogged: u64,
}

impl Refusals {
    fn refused(&mut self, peer: SocketAddr, bound: usize) {
        if self.logged.is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
            self.unlogged += 1;
            return;
        }
        let also = match self.unlogged {
            0 => String::new(),
            n => format!(" ({n} more refused since the last such line)"),
        };
        tracing::warn!(
            "Refusing the connection from {}: {bound} connections are being served, the bound{also}",
            Sinful(peer)
        );
        self.logged = Some(std::time::Instant::now());
        self.unlogged = 0;
    }
}

/// Logs why a connection from `peer` was cut off, in the daemon's log
/// (`D_ALWAYS`): a deadline, malformed or oversized bytes, a refused or
/// unknown command. A peer that hangs up, or an idle connection closed
/// after it ran commands (a persistent update socket), is not news: that
/// goes to the debug log only. No secret is in these messages: they name
/// the peer, the command and the rule, never a key, token or payload.
fn log_end(peer: Option<SocketAddr>, served: u64, outcome: &Result<Option<CloseReason>>) {
    let Some(peer) = peer.map(Sinful) else { return };
    match outcome {
        Ok(None | Some(CloseReason::Eof | CloseReason::Nop | CloseReason::Done)) => {}
        Ok(Some(CloseReason::UnknownCommand(c))) => {
            tracing::warn!("Closing the connection from {peer}: it sent command {c}, which is not registered")
        }
        Ok(Some(CloseReason::SessionNotFound)) => {
            tracing::info!("Closing the connection from {peer}: it resumed a session we do not know")
        }
        Ok(Some(CloseReason::Denied(c, why))) => {
            let name = crate::command::name(*c).unwrap_or("?");
            tracing::warn!("PERMISSION DENIED to the connection from {peer} for command {c} ({name}): {why}")
        }
        Ok(Some(CloseReason::Policy(why))) => tracing::warn!("Closing the connection from {peer}: {why}"),
        Ok(Some(CloseReason::AuthenticationFailed(why))) => {
            tracing::warn!("Closing the connection from {peer}: authentication failed: {why}")
        }
        Err(e) if e.kind() == ErrorKind::Timeout && served > 0 && e.message().contains("sent nothing") => {
            tracing::debug!("cedar::tokio: closing the idle connection from {peer} after {served} commands: {e}")
        }
        Err(e) if served == 0 => tracing::warn!("Closing the connection from {peer}: {e}"),
        Err(e) => tracing::warn!("Closing the connection from {peer} after {served} commands: {e}"),
    }
}

/// Counts a connection task out of [`ServerStats::active`], even when it
/// panics or is aborted.
struct ActiveGuard(Arc<ServerStats>);

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::Relaxed);
        if std::thread::panicking() {
            self.0.failed.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// How many commands a connection runs before it lets other tasks run.
const YIELD_EVERY: u64 = 64;

/// Serves one connection: the handshake, then command after command, until
/// the peer hangs up, a command ends it, or `stop` is set while the
/// connection waits between commands. For daemons that accept connections
/// themselves; [`Server::serve`] calls it for each connection.
pub async fn serve_connection<H: Handler>(
    stream: TcpStream,
    config: Arc<ServerConfig>,
    handler: &H,
    options: ServerOptions,
    stop: watch::Receiver<bool>,
) -> Result<Option<CloseReason>> {
    serve_in_order(stream, config, handler, options, stop, None).await
}

/// [`serve_connection`], its place in the accept order settled once its
/// first command has run.
async fn serve_in_order<H: Handler>(
    stream: TcpStream,
    config: Arc<ServerConfig>,
    handler: &H,
    options: ServerOptions,
    stop: watch::Receiver<bool>,
    arrival: Option<&Arrival>,
) -> Result<Option<CloseReason>> {
    let peer = stream.peer_addr().ok();
    let mut served: u64 = 0;
    let outcome = command_loop(stream, config, handler, options, stop, arrival, &mut served).await;
    log_end(peer, served, &outcome);
    outcome
}

/// The commands of one connection (see [`serve_in_order`]), `served`
/// counting them.
async fn command_loop<H: Handler>(
    stream: TcpStream,
    config: Arc<ServerConfig>,
    handler: &H,
    options: ServerOptions,
    stop: watch::Receiver<bool>,
    arrival: Option<&Arrival>,
    served: &mut u64,
) -> Result<Option<CloseReason>> {
    let first_deadline = ::tokio::time::Instant::now() + options.timeouts.first_command;
    let mut connection = AsyncConnection::new(stream, options.timeouts, options.max_inbound_message);
    if let Some(n) = options.max_packet {
        connection.set_max_packet(n);
    }
    // Dropped before `connection`, which closes the socket it registers.
    let _watch = arrival.map(|a| a.watch(&connection));
    let peer = connection.peer().map(|a| a.ip());
    let local = connection.stream().local_addr().ok();
    let mut protocol = ServerConnection::new(config, peer).with_local_addr(local);
    loop {
        if *stop.borrow() {
            // Shutting down: no new command starts, even one already sent.
            return Ok(None);
        }
        if let Some(arrival) = arrival {
            // A command boundary: what was read, less what is read ahead,
            // is done with (see `order`).
            arrival.report(connection.held());
        }
        // Until its first command, a connection is under the deadline
        // counted from its accept (the handshake's messages included).
        let idle = match *served {
            0 => options.timeouts.idle.min(first_deadline.saturating_duration_since(::tokio::time::Instant::now())),
            _ => options.timeouts.idle,
        };
        let next = match race(connection.read_message_within(idle), stopped(stop.clone())).await {
            Ok(Err(e))
                if *served == 0
                    && e.kind() == ErrorKind::Timeout
                    && ::tokio::time::Instant::now() >= first_deadline =>
            {
                let within = options.timeouts.first_command;
                return Err(Error::new(
                    ErrorKind::Timeout,
                    format!("the peer sent no command within {within:?} of connecting"),
                ));
            }
            Ok(next) => next?,
            // Shutting down: a connection between commands just closes.
            Err(()) => return Ok(None),
        };
        // The sans-IO core decides; what it queued is sent before acting.
        // (This is blocking::ServerSession::next_command's step.)
        let step = match next {
            None => protocol.on_eof(),
            Some(message) => protocol.on_message(message)?,
        };
        for out in protocol.take_output() {
            match out {
                Output::Message(bytes) => connection.send(&bytes).await?,
                Output::StartCrypto(key) => connection.start_crypto(&key)?,
            }
        }
        match step {
            Step::Continue => continue,
            Step::Command(request) => {
                let mut command = Command { connection: &mut connection, request, payload_read: false, arrival };
                handler.handle(&mut command).await?;
                // A peer that sends command after command (an update
                // stream) would otherwise keep its worker thread, and new
                // connections wait: every so many commands, the others get
                // a turn.
                *served += 1;
                if served.is_multiple_of(YIELD_EVERY) {
                    ::tokio::task::yield_now().await;
                }
            }
            Step::Close(reason) => return Ok(Some(reason)),
        }
    }
}
