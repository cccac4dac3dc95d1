//! Reaching a daemon behind `condor_shared_port`: the `SHARED_PORT_CONNECT`
//! message (`SharedPortClient::sendSharedPortID`,
//! shared_port_client.cpp 100–176 at v23.9.6).
//!
//! The client connects to the shared port's address and sends one message:
//! `int 75`, the endpoint's name (the sinful's `sock=`), a name for
//! itself (for the daemon's log), an integer deadline in seconds and
//! `int 0` ("more args"). The shared port daemon passes the socket on
//! without answering; the daemon behind it starts a **fresh** CEDAR
//! stream, so the client resets its handshake digests after this message
//! (`resetHeaderMD`), except towards the endpoint `self` (the shared port
//! daemon itself), which sees the whole conversation.
//!
//! ```
//! use cedar::client::shared_port::connect_message;
//! use cedar::wire::Decoder;
//! let payload = connect_message("schedd_123_4", "TOOL", 20)?;
//! let mut dec = Decoder::new(&payload, false);
//! assert_eq!(dec.get_int()?, 75);
//! assert_eq!(dec.get_string()?, "schedd_123_4");
//! assert_eq!(dec.get_string()?, "TOOL");
//! assert_eq!(dec.get_int()?, 20);
//! assert_eq!(dec.get_int()?, 0);
//! dec.finish()?;
//! # Ok::<(), cedar::Error>(())
//! ```

use crate::command::SHARED_PORT_CONNECT;
use crate::error::{Error, ErrorKind, Result};
use crate::wire::Encoder;

/// The longest endpoint name sent.
pub const MAX_ID_LEN: usize = 1024;

/// Whether `id` is a name HTCondor accepts for an endpoint
/// (`SharedPortIdIsValid`, shared_port_client.cpp 193–207: ASCII letters,
/// digits, `.`, `-` and `_`; a name without a `/` cannot leave the
/// daemon's socket directory). C++ also accepts the empty name; this does
/// not.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The payload of the `SHARED_PORT_CONNECT` message for endpoint `id`.
/// `client_name` is who we say we are (C++ sends its subsystem name and
/// public address); `deadline` is the seconds the daemon has to answer,
/// -1 for none (C++ sends the socket's timeout, or -1 when it has none).
pub fn connect_message(id: &str, client_name: &str, deadline: i64) -> Result<Vec<u8>> {
    if !is_valid_id(id) {
        return Err(Error::new(ErrorKind::Malformed, format!("invalid shared port id {id:?}")));
    }
    let mut enc = Encoder::new(false);
    enc.put_int(i64::from(SHARED_PORT_CONNECT));
    enc.put_str(id)?;
    enc.put_str(client_name)?;
    enc.put_int(deadline);
    enc.put_int(0);
    Ok(enc.into_bytes())
}

/// Whether the stream's digests start afresh after the connect message:
/// always, except towards the shared port daemon itself (`self`).
pub fn resets_stream(id: &str) -> bool {
    id != "self"
}
