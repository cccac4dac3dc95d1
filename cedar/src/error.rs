//! The crate's error type: one struct with a [`ErrorKind`] and a message.

/// What went wrong, as a caller would branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The underlying socket failed.
    Io,
    /// A read or write did not finish in time.
    Timeout,
    /// The peer closed the connection (EOF) where more was expected.
    Closed,
    /// Bytes that do not follow the wire format (a bad header, a string
    /// without its NUL, a ClassAd that does not parse).
    Malformed,
    /// A length, count or nesting over the bound this crate enforces.
    LimitExceeded,
    /// A well-formed message the protocol does not allow at this point.
    Protocol,
    /// A cryptographic check failed (an AES-GCM tag, a MAC, a signature).
    Crypto,
    /// The peer could not be authenticated.
    Authentication,
    /// The peer is authenticated (or not) but not authorized.
    Denied,
    /// The two security policies cannot be reconciled, or the local
    /// configuration is invalid.
    Policy,
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ErrorKind::Io => "I/O error",
            ErrorKind::Timeout => "timed out",
            ErrorKind::Closed => "connection closed",
            ErrorKind::Malformed => "malformed input",
            ErrorKind::LimitExceeded => "limit exceeded",
            ErrorKind::Protocol => "protocol error",
            ErrorKind::Crypto => "cryptographic check failed",
            ErrorKind::Authentication => "authentication failed",
            ErrorKind::Denied => "not authorized",
            ErrorKind::Policy => "security policy",
        })
    }
}

/// An error from this crate: a kind to branch on and a message for people.
///
/// ```
/// use cedar::{Error, ErrorKind};
/// let e = Error::new(ErrorKind::LimitExceeded, "packet of 2000000 bytes (limit 1048576)");
/// assert_eq!(e.kind(), ErrorKind::LimitExceeded);
/// assert_eq!(e.to_string(), "limit exceeded: packet of 2000000 bytes (limit 1048576)");
/// ```
#[derive(Debug, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct Error {
    kind: ErrorKind,
    message: String,
    #[source]
    source: Option<std::io::Error>,
}

impl Error {
    /// An error of `kind` with a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error { kind, message: message.into(), source: None }
    }

    /// What kind of error this is.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message, without the kind.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        let kind = match e.kind() {
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => ErrorKind::Timeout,
            std::io::ErrorKind::UnexpectedEof => ErrorKind::Closed,
            _ => ErrorKind::Io,
        };
        Error { kind, message: e.to_string(), source: Some(e) }
    }
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
