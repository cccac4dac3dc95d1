//! The client's cache of security sessions: what `SecMan`'s
//! `session_cache` and `command_map` hold on the client side
//! (condor_secman.cpp 1425–1460, 2560–2625).
//!
//! A session is made by one `DC_AUTHENTICATE` handshake and then used for
//! every command in the server's `ValidCommands`: the cache maps
//! `(connect address, command)` to a session id, as C++'s
//! `{<sinful>,<command>}` keys do, and each id to its [`ClientSession`].

use std::collections::HashMap;
use std::time::{Duration, Instant};

use classad::{ClassAd, Value};

use crate::crypto::SessionKey;
use crate::error::{Error, ErrorKind, Result};
use crate::version::Version;

/// The most sessions the cache holds; the one expiring first is dropped to
/// make room.
pub const MAX_SESSIONS: usize = 10_000;

/// The most `(address, command)` entries one session maps (longer
/// `ValidCommands` lists are cut).
pub const MAX_COMMANDS_PER_SESSION: usize = 1_000;

/// A session the client holds with one server.
pub struct ClientSession {
    /// The server's session id (`Sid`).
    pub id: String,
    /// The address the session was made with (`ConnectSinful`).
    pub connect_addr: String,
    /// The server's `RemoteVersion` when the session was made.
    pub server_version: Option<String>,
    /// Our name as the server mapped us (`User` of the post-auth ad, kept as
    /// `MyRemoteUserName` in C++).
    pub my_remote_user: Option<String>,
    /// The authentication method used, if any.
    pub auth_method: Option<String>,
    /// Whether every message of the session is encrypted.
    pub encryption: bool,
    /// The session key, when the handshake made one (ECDH).
    pub key: Option<SessionKey>,
    /// The commands the server said the session may carry.
    pub valid_commands: Vec<i32>,
    /// When the session ends whatever its use (`SessionDuration` after it
    /// was made); `None`: never.
    pub expires: Option<Instant>,
    /// `SessionLease`: the session also ends this long after its last use.
    pub lease: Option<Duration>,
    /// The last time it was made or used.
    pub last_used: Instant,
}

impl std::fmt::Debug for ClientSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSession")
            .field("id", &self.id)
            .field("connect_addr", &self.connect_addr)
            .field("server_version", &self.server_version)
            .field("my_remote_user", &self.my_remote_user)
            .field("auth_method", &self.auth_method)
            .field("encryption", &self.encryption)
            .field("key", &self.key.as_ref().map(|_| "<secret>"))
            .field("valid_commands", &self.valid_commands.len())
            .finish()
    }
}

impl ClientSession {
    /// Whether the session is still usable at `now`: not past its duration,
    /// nor past its lease since the last use (`LookupNonExpiredSession`).
    pub fn is_live(&self, now: Instant) -> bool {
        if self.expires.is_some_and(|e| now >= e) {
            return false;
        }
        match self.lease {
            Some(lease) => now.saturating_duration_since(self.last_used) < lease,
            None => true,
        }
    }

    /// A session both sides were given without a handshake
    /// (`SecMan::CreateNonNegotiatedSecuritySession`): what a daemon
    /// started by `condor_master` inherits in `CONDOR_PRIVATE_INHERIT`, or
    /// a match-password session. `id` is the session id, `key` the shared
    /// secret string (the key is HKDF of it, as C++ derives it) and `info`
    /// the exported session attributes, `[Encryption="YES";…;]`
    /// (`ExportSecSessionInfo`): `CryptoMethods` (or `CryptoMethodsList`,
    /// `.`-separated), `SessionExpires` (a Unix time, 0 for never),
    /// `ValidCommands` and `ShortVersion`. An empty `info` is a session of
    /// no commands.
    ///
    /// With AES among the crypto methods every message of the session is
    /// encrypted (C++ turns AES-GCM on whenever it has an AES key); a
    /// session without AES is refused ([`ErrorKind::Policy`]), since
    /// this crate speaks no other cipher.
    ///
    /// ```
    /// use std::time::Instant;
    /// use cedar::client::ClientSession;
    /// let info = r#"[Encryption="NO";Integrity="YES";CryptoMethods="BLOWFISH";CryptoMethodsList="AES.BLOWFISH.3DES";ValidCommands="60008,60043";ShortVersion="23.9.6";]"#;
    /// let s = ClientSession::non_negotiated("a1b2", "<127.0.0.1:40001>", "c0ffee", info, Instant::now())?;
    /// assert_eq!(s.valid_commands, [60008, 60043]);
    /// assert!(s.encryption && s.key.is_some());
    /// assert!(s.server_version.as_deref().is_some_and(|v| v.starts_with("$CondorVersion: 23.9.6 ")));
    /// # Ok::<(), cedar::Error>(())
    /// ```
    pub fn non_negotiated(id: &str, connect_addr: &str, key: &str, info: &str, now: Instant) -> Result<ClientSession> {
        let malformed = |what: &str| Error::new(ErrorKind::Malformed, format!("exported session info: {what}"));
        if info.len() > 64 * 1024 {
            return Err(malformed("longer than 64 KiB"));
        }
        let ad: ClassAd = if info.trim().is_empty() {
            ClassAd::new()
        } else {
            if !info.starts_with('[') || !info.ends_with(']') {
                return Err(malformed("not in []"));
            }
            info.parse().map_err(|_| malformed("not a list of NAME=value;"))?
        };
        let text = |name: &str| ad.eval_attr(name).as_str().map(str::to_owned);
        let methods = text("CryptoMethodsList").map(|m| m.replace('.', ",")).or_else(|| text("CryptoMethods"));
        let aes = methods.as_deref().is_some_and(|m| m.split(',').any(|x| x.trim().eq_ignore_ascii_case("AES")));
        if !aes {
            return Err(Error::new(
                ErrorKind::Policy,
                format!("session {id} has no AES crypto method ({})", methods.as_deref().unwrap_or("none")),
            ));
        }
        let valid_commands = text("ValidCommands")
            .map(|v| v.split(',').filter_map(|c| c.trim().parse().ok()).take(MAX_COMMANDS_PER_SESSION).collect())
            .unwrap_or_default();
        let expires = match ad.eval_attr("SessionExpires") {
            Value::Int(t) if t > 0 => {
                let unix_now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
                let left = u64::try_from(t.saturating_sub(unix_now)).unwrap_or(0);
                Some(now + Duration::from_secs(left.min(10 * 365 * 86400)))
            }
            _ => None,
        };
        // ImportSecSessionInfo turns "8.9.7" into a full version string.
        let server_version = text("ShortVersion").and_then(|short| {
            let mut parts = short.split('.').map(|p| p.trim().parse::<u32>().ok());
            let (Some(Some(major)), minor, sub) = (parts.next(), parts.next(), parts.next()) else { return None };
            let v =
                Version::new(major, minor.flatten().unwrap_or(0), sub.flatten().unwrap_or(0), "ExportedSessionInfo");
            Some(v.to_string())
        });
        Ok(ClientSession {
            id: id.to_owned(),
            connect_addr: connect_addr.to_owned(),
            server_version,
            my_remote_user: None,
            auth_method: Some("FAMILY".to_owned()),
            encryption: true,
            key: Some(SessionKey::from_shared_string(key)),
            valid_commands,
            expires,
            lease: None,
            last_used: now,
        })
    }

    /// When the session ends if unused from now on.
    fn end(&self) -> Option<Instant> {
        let by_lease = self.lease.and_then(|l| self.last_used.checked_add(l));
        match (self.expires, by_lease) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Sessions by id, and session ids by `(connect address, command)`.
#[derive(Debug, Default)]
pub struct ClientSessionCache {
    sessions: HashMap<String, ClientSession>,
    commands: HashMap<(String, i32), String>,
}

impl ClientSessionCache {
    /// An empty cache.
    pub fn new() -> ClientSessionCache {
        ClientSessionCache::default()
    }

    /// How many sessions are held.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    /// Whether no session is held.
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// The live session for `command` at `connect_addr`, if any. A session
    /// found expired is dropped, with its command entries, as C++ drops the
    /// `command_map` entry of a session no longer cached.
    pub fn lookup(&mut self, connect_addr: &str, command: i32, now: Instant) -> Option<&ClientSession> {
        let key = (connect_addr.to_owned(), command);
        let sid = self.commands.get(&key)?.clone();
        let live = self.sessions.get(&sid).is_some_and(|s| s.is_live(now));
        if !live {
            self.commands.remove(&key);
            self.invalidate(&sid);
            return None;
        }
        self.sessions.get(&sid)
    }

    /// Marks the session used at `now` (C++ renews the lease when it sends a
    /// resume ad, whatever the server answers).
    pub fn renew(&mut self, sid: &str, now: Instant) {
        if let Some(s) = self.sessions.get_mut(sid) {
            s.last_used = now;
        }
    }

    /// Caches `session` for each of its valid commands at its address,
    /// replacing what those commands mapped to.
    pub fn insert(&mut self, session: ClientSession, now: Instant) {
        self.sessions.retain(|_, s| s.is_live(now));
        if self.sessions.len() >= MAX_SESSIONS && !self.sessions.contains_key(&session.id) {
            let first = self.sessions.values().min_by_key(|s| s.end()).map(|s| s.id.clone());
            if let Some(sid) = first {
                self.invalidate(&sid);
            }
        }
        for command in session.valid_commands.iter().take(MAX_COMMANDS_PER_SESSION) {
            self.commands.insert((session.connect_addr.clone(), *command), session.id.clone());
        }
        let live: std::collections::HashSet<&String> = self.sessions.keys().collect();
        let sid = session.id.clone();
        self.commands.retain(|_, s| live.contains(s) || *s == sid);
        self.sessions.insert(sid, session);
    }

    /// Drops a session and every command entry naming it (`invalidateKey`).
    pub fn invalidate(&mut self, sid: &str) {
        self.sessions.remove(sid);
        self.commands.retain(|_, s| s != sid);
    }

    /// Drops every session.
    pub fn clear(&mut self) {
        self.sessions.clear();
        self.commands.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str, commands: &[i32], now: Instant, lease: u64) -> ClientSession {
        ClientSession {
            id: id.to_owned(),
            connect_addr: "<127.0.0.1:9618>".to_owned(),
            server_version: None,
            my_remote_user: None,
            auth_method: None,
            encryption: false,
            key: None,
            valid_commands: commands.to_vec(),
            expires: Some(now + Duration::from_secs(60)),
            lease: Some(Duration::from_secs(lease)),
            last_used: now,
        }
    }

    #[test]
    fn sessions_map_their_commands_and_expire() {
        let now = Instant::now();
        let mut cache = ClientSessionCache::new();
        cache.insert(session("a", &[5, 6], now, 30), now);
        assert_eq!(cache.lookup("<127.0.0.1:9618>", 6, now).map(|s| s.id.as_str()), Some("a"));
        assert!(cache.lookup("<127.0.0.1:9618>", 0, now).is_none());
        assert!(cache.lookup("<127.0.0.1:9619>", 5, now).is_none());
        // Past the lease since the last use: gone.
        assert!(cache.lookup("<127.0.0.1:9618>", 5, now + Duration::from_secs(31)).is_none());
        assert!(cache.is_empty());
    }

    #[test]
    fn renewing_extends_the_lease_but_not_the_duration() {
        let now = Instant::now();
        let mut cache = ClientSessionCache::new();
        cache.insert(session("a", &[5], now, 30), now);
        cache.renew("a", now + Duration::from_secs(25));
        assert!(cache.lookup("<127.0.0.1:9618>", 5, now + Duration::from_secs(50)).is_some());
        assert!(cache.lookup("<127.0.0.1:9618>", 5, now + Duration::from_secs(61)).is_none());
    }

    #[test]
    fn non_negotiated_sessions_need_aes_and_bounded_info() {
        let now = Instant::now();
        let s = ClientSession::non_negotiated("id", "<127.0.0.1:1>", "k", "", now);
        assert!(matches!(s, Err(e) if e.kind() == ErrorKind::Policy));
        let s = ClientSession::non_negotiated("id", "<127.0.0.1:1>", "k", r#"[CryptoMethods="BLOWFISH";]"#, now);
        assert!(matches!(s, Err(e) if e.kind() == ErrorKind::Policy));
        let s = ClientSession::non_negotiated("id", "<127.0.0.1:1>", "k", "Encryption=YES", now);
        assert!(matches!(s, Err(e) if e.kind() == ErrorKind::Malformed));
        let long = format!("[{}]", "x".repeat(70_000));
        assert!(ClientSession::non_negotiated("id", "<127.0.0.1:1>", "k", &long, now).is_err());
        let s = ClientSession::non_negotiated(
            "id",
            "<127.0.0.1:1>",
            "k",
            r#"[CryptoMethods="AES";SessionExpires=1;]"#,
            now,
        )
        .unwrap();
        // Expired already: a Unix time in the past leaves no time.
        assert!(!s.is_live(now + Duration::from_secs(1)));
        assert_eq!(s.key, Some(SessionKey::from_shared_string("k")));
        // The cache finds it by address and command like a negotiated one.
        let s = ClientSession::non_negotiated(
            "id",
            "<127.0.0.1:1>",
            "k",
            r#"[CryptoMethods="AES";ValidCommands="60008";]"#,
            now,
        )
        .unwrap();
        let mut cache = ClientSessionCache::new();
        cache.insert(s, now);
        assert_eq!(cache.lookup("<127.0.0.1:1>", 60008, now).map(|s| s.id.as_str()), Some("id"));
    }

    #[test]
    fn invalidating_drops_the_command_entries() {
        let now = Instant::now();
        let mut cache = ClientSessionCache::new();
        cache.insert(session("a", &[5, 6], now, 30), now);
        cache.insert(session("b", &[6], now, 30), now);
        cache.invalidate("a");
        assert!(cache.lookup("<127.0.0.1:9618>", 5, now).is_none());
        assert_eq!(cache.lookup("<127.0.0.1:9618>", 6, now).map(|s| s.id.as_str()), Some("b"));
        assert_eq!(cache.len(), 1);
    }
}
