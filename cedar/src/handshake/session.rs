//! The server's session cache: what a client may resume with `UseSession`.
//!
//! A session is created by a successful new-session handshake and stored
//! under its id (`Sid`). It expires `SessionDuration` + 20 s after creation
//! (`SEC_SESSION_DURATION_SLOP`), and, when it has a lease, once unused for
//! the lease + 20 s (`daemon_command.cpp` 1720–1740). Each resumption renews
//! the lease.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::authz::AuthorizationLimit;
use crate::crypto::SessionKey;
use crate::version::Version;

/// The slop added to a session's duration and lease on the server side.
pub const SLOP: Duration = Duration::from_secs(20);

/// The longest duration or lease a session is given (a year), so that no
/// peer-supplied number overflows a clock.
pub const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 3600);

/// The default bound on the number of cached sessions: 100,000.
pub const DEFAULT_MAX_SESSIONS: usize = 100_000;

/// What the server remembers of a session.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Session {
    /// The session id, `host:pid:time:counter`.
    pub id: String,
    /// The authenticated user, `None` without authentication.
    pub user: Option<String>,
    /// The authentication method used, if any.
    pub method: Option<String>,
    /// The peer's `RemoteVersion` when the session was made.
    pub peer_version: Option<Version>,
    /// The commands the session was granted (`ValidCommands`).
    pub valid_commands: Vec<i32>,
    /// Whether the session's traffic is encrypted.
    pub encrypted: bool,
    /// The session key; `None` in plaintext sessions (mode M0).
    pub key: Option<SessionKey>,
    /// The session's `LimitAuthorization` (CLAIMTOBE, token scopes).
    pub limit: Option<AuthorizationLimit>,
    expires: Instant,
    lease: Option<Duration>,
    last_used: Instant,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("user", &self.user)
            .field("method", &self.method)
            .field("encrypted", &self.encrypted)
            .field("limit", &self.limit)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl Session {
    /// A session made at `now`, lasting `duration` (plus [`SLOP`]), with an
    /// optional lease (plus [`SLOP`]); both are capped at [`MAX_DURATION`].
    pub fn new(id: String, now: Instant, duration: Duration, lease: Option<Duration>) -> Session {
        Session {
            id,
            user: None,
            method: None,
            peer_version: None,
            valid_commands: Vec::new(),
            encrypted: false,
            key: None,
            limit: None,
            expires: now + duration.min(MAX_DURATION) + SLOP,
            lease: lease.map(|l| l.min(MAX_DURATION) + SLOP),
            last_used: now,
        }
    }

    /// Whether the session is still usable at `now`.
    pub fn is_live(&self, now: Instant) -> bool {
        now < self.expires && self.lease.is_none_or(|l| now < self.last_used + l)
    }
}

/// Sessions by id, bounded.
#[derive(Debug)]
pub struct SessionCache {
    sessions: HashMap<String, Session>,
    max: usize,
}

impl Default for SessionCache {
    fn default() -> Self {
        SessionCache::new(DEFAULT_MAX_SESSIONS)
    }
}

impl SessionCache {
    /// An empty cache holding at most `max` sessions.
    pub fn new(max: usize) -> SessionCache {
        SessionCache { sessions: HashMap::new(), max: max.max(1) }
    }

    /// How many sessions are held (live or not yet swept).
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// True when no session is held.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Stores a session; when full, expired sessions are swept first and,
    /// if still full, the one closest to expiring is dropped.
    pub fn insert(&mut self, session: Session, now: Instant) {
        if self.sessions.len() >= self.max && !self.sessions.contains_key(&session.id) {
            self.sweep(now);
            if self.sessions.len() >= self.max {
                if let Some(oldest) = self.sessions.values().min_by_key(|s| s.expires).map(|s| s.id.clone()) {
                    self.sessions.remove(&oldest);
                }
            }
        }
        self.sessions.insert(session.id.clone(), session);
    }

    /// The live session `id`, with its lease renewed; an expired one is
    /// removed and not returned.
    pub fn resume(&mut self, id: &str, now: Instant) -> Option<&Session> {
        let live = self.sessions.get(id).is_some_and(|s| s.is_live(now));
        if !live {
            self.sessions.remove(id);
            return None;
        }
        let session = self.sessions.get_mut(id)?;
        session.last_used = now;
        Some(session)
    }

    /// Removes a session (`DC_INVALIDATE_KEY`).
    pub fn remove(&mut self, id: &str) -> Option<Session> {
        self.sessions.remove(id)
    }

    /// Drops every session that has expired at `now`.
    pub fn sweep(&mut self, now: Instant) {
        self.sessions.retain(|_, s| s.is_live(now));
    }
}
