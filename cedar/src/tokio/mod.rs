//! The protocol on tokio, for the daemons: a [`Server`] with an accept loop
//! and one task per connection, each driving the same sans-IO
//! [`ServerConnection`](crate::handshake::ServerConnection) the
//! [`blocking`](crate::blocking) adapter drives, and an [`AsyncConnection`]
//! that moves whole messages between a socket and the core under deadlines.
//!
//! What a server bounds (see [`ServerOptions`] and [`Timeouts`]):
//!
//! * **time**: the wait for the next command (`idle`), every read inside a
//!   message or for an expected payload (`read`), a whole message from its
//!   first byte (`message`: a peer trickling one byte a second is cut off
//!   there), each 64 KiB of a reply (`write`: a peer that stops reading is
//!   cut off there);
//! * **connections**: at most `max_connections` at once; a connection
//!   accepted beyond that is closed at once, without a byte read (refused,
//!   not queued: a C++ client then fails fast and retries);
//! * **memory**: one incoming message (`max_inbound_message`, 16 MiB by
//!   default) plus one packet per connection; a packet header over 1 MiB
//!   ends the connection before anything is allocated for it. An idle
//!   connection holds no read buffer.
//!
//! Shutdown is graceful: [`Server::serve`] takes a future; once it
//! resolves, the server stops accepting, closes connections that wait
//! between commands, and gives running commands
//! [`ServerOptions::shutdown_grace`] to finish.
//!
//! A handler gets each command as a [`Command`]: its number, the
//! handshake's decision (user, session, permission, peer version), and the
//! means to read the payload and write reply messages:
//!
//! ```
//! use std::sync::Arc;
//! use cedar::command::DC_NOP;
//! use cedar::handshake::{CommandTable, ServerConfig};
//! use cedar::tokio::{AsyncConnection, Command, Handler, Server, Timeouts};
//!
//! /// Answers command 1 with the integer its payload carries, plus one.
//! struct AddOne;
//! impl Handler for AddOne {
//!     async fn handle(&self, command: &mut Command<'_>) -> cedar::error::Result<()> {
//!         let payload = command.read_payload().await?;
//!         let n = cedar::wire::Decoder::new(&payload.payload, payload.encrypted).get_int()?;
//!         let mut reply = command.encoder();
//!         reply.put_int(n + 1);
//!         command.send(reply.as_bytes()).await
//!     }
//! }
//!
//! # fn main() -> cedar::error::Result<()> {
//! let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! rt.block_on(async {
//!     let table = CommandTable::new().register(1, cedar::authz::Permission::Read).register(DC_NOP, cedar::authz::Permission::Allow);
//!     let config = Arc::new(ServerConfig::new(table));
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//!     let addr = listener.local_addr()?;
//!     let (stop, mut stopping) = tokio::sync::watch::channel(false);
//!     let server = tokio::spawn(Server::new(config, AddOne).serve(listener, async move {
//!         let _ = stopping.wait_for(|s| *s).await;
//!     }));
//!
//!     // A raw command: the command integer and its payload in one message.
//!     let mut client = AsyncConnection::connect(addr, Timeouts::default(), 1 << 20).await?;
//!     let mut request = client.encoder();
//!     request.put_int(1);
//!     request.put_int(41);
//!     client.send(request.as_bytes()).await?;
//!     let reply = client.expect_message().await?;
//!     assert_eq!(cedar::wire::Decoder::new(&reply.payload, false).get_int()?, 42);
//!
//!     let _ = stop.send(true);
//!     let _ = server.await;
//!     Ok(())
//! })
//! # }
//! ```

mod connection;
mod order;
mod server;

pub use connection::{AsyncConnection, Timeouts};
pub use order::{ORDER_MAX_WAIT, ORDER_WINDOW};
pub use server::{
    serve_connection, Command, Handler, Server, ServerOptions, ServerStats, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_INBOUND_MESSAGE,
};
