//! HTCondor's CEDAR protocol: the wire format, the security handshake and
//! authorization, as HTCondor 23.9 speaks them.
//!
//! The crate is layered like the protocol:
//!
//! * [`wire`]: packets, messages, the primitive encodings (8-byte integers,
//!   strings with and without the encrypted length prefix, doubles) and
//!   ClassAds on the wire;
//! * [`sinful`], [`command`], [`version`]: addresses, command numbers and
//!   HTCondor version strings;
//! * [`handshake`]: the server side of the command protocol and of the
//!   `DC_AUTHENTICATE` handshake (new and resumed sessions, raw and
//!   follow-on commands, `DC_SEC_QUERY`), with its session cache;
//! * [`blocking`]: the protocol on `std::net::TcpStream`, with timeouts;
//! * [`client`]: the client side of the command protocol (raw commands,
//!   new and resumed sessions, shared port) and a collector client;
//! * `tokio` (feature `tokio`): the server on tokio, one task per
//!   connection, with deadlines, a connection bound and graceful shutdown;
//! * [`crypto`]: AES-256-GCM on the stream, the ECDH P-256 key exchange and
//!   the handshake transcript digests;
//! * [`token`]: IDTOKENS (HS256 JWTs signed with the pool key) and the
//!   AKEP2-style exchange of the TOKEN method;
//! * [`policy`]: the `SEC_*` security levels and how a client's and a
//!   server's policies reconcile;
//! * [`authz`]: permission levels, `ALLOW_*`/`DENY_*` lists and the map file.
//!
//! The protocol core is sans-IO: byte buffers in, byte buffers and events
//! out. Adapters put it on blocking sockets or on tokio.

pub mod authz;
pub mod blocking;
pub mod client;
pub mod command;
pub mod crypto;
pub mod error;
pub mod handshake;
pub mod policy;
pub mod sinful;
pub mod token;
#[cfg(feature = "tokio")]
pub mod tokio;
pub mod version;
pub mod wire;

pub use error::{Error, ErrorKind};
