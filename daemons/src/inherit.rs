//! What a daemon inherits from a DaemonCore parent (`condor_master`):
//! `CONDOR_INHERIT` and `CONDOR_PRIVATE_INHERIT`, read and removed from the
//! environment as `DaemonCore::Inherit` does (daemon_core.cpp, 23.9).
//!
//! `CONDOR_INHERIT` is space-separated (`Create_Process`):
//!
//! ```text
//! <parent pid> <parent sinful> [1|2 <socket>]... 0 [SharedPort:<endpoint>] [1 <tcp socket> [2 <udp socket>]]... 0
//! ```
//!
//! The first list holds sockets passed for the child's own use (rare for
//! daemons); the second, the child's *command* sockets, which the master
//! binds for it (for the collector, on the pool's port) — `1` a TCP
//! listener (`ReliSock`), `2` a UDP socket (`SafeSock`). A socket is its
//! serialized state, `*`-separated, whose first field is the descriptor
//! number, which the child has at the same number.
//!
//! `CONDOR_PRIVATE_INHERIT` holds the security sessions the parent made
//! for the child, each `SessionKey:<claim id>` (a session with the parent,
//! mapped to the parent's address) or `FamilySessionKey:<claim id>` (the
//! session shared by the master's whole family). A claim id is
//! `<session id>#[<exported session info>]<key>` (`ClaimIdParser`).
//!
//! ```
//! use daemons::inherit::{Inherit, SocketKind};
//! let env = "4242 <127.0.0.1:35871?addrs=127.0.0.1-35871&alias=cm&noUDP> 0 1 7*0*0*0*0*0***0*<0.0.0.0:0>*0*0*0*0*0*0*0* 2 8*0*0*0*0*0***0*0* 0";
//! let inherit = Inherit::parse(env)?;
//! assert_eq!(inherit.parent_pid, 4242);
//! assert_eq!(inherit.parent_sinful.as_deref(), Some("<127.0.0.1:35871?addrs=127.0.0.1-35871&alias=cm&noUDP>"));
//! assert_eq!(inherit.command_sockets.len(), 2);
//! assert_eq!((inherit.command_sockets[0].kind, inherit.command_sockets[0].fd), (SocketKind::Tcp, 7));
//! # Ok::<(), daemons::inherit::InheritError>(())
//! ```

use std::time::Instant;

use cedar::client::ClientSession;

/// The environment variable of sockets and the parent's address.
pub const ENV_INHERIT: &str = "CONDOR_INHERIT";
/// The environment variable of the parent's security sessions.
pub const ENV_PRIVATE: &str = "CONDOR_PRIVATE_INHERIT";

/// The longest variable read (C++ has no bound; a real one is well under
/// 1 KiB per socket).
pub const MAX_LEN: usize = 64 * 1024;
/// The most sockets taken from either list (`MAX_SOCKS_INHERITED` is 4 in
/// C++; more are refused there too).
pub const MAX_SOCKETS: usize = 16;

/// Why an inherited variable was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InheritError {
    /// Longer than [`MAX_LEN`].
    #[error("{var} is longer than {MAX_LEN} bytes")]
    TooLong {
        /// The variable.
        var: &'static str,
    },
    /// The parent pid is not a number.
    #[error("CONDOR_INHERIT: the parent pid '{0}' is not a number")]
    BadPid(String),
    /// A socket entry is not `1` or `2` followed by a serialized socket
    /// whose first field is a descriptor number.
    #[error("CONDOR_INHERIT: bad socket entry '{0}'")]
    BadSocket(String),
    /// More sockets than [`MAX_SOCKETS`].
    #[error("CONDOR_INHERIT: more than {MAX_SOCKETS} sockets")]
    TooManySockets,
    /// A claim id that is not `id#[info]key`.
    #[error("CONDOR_PRIVATE_INHERIT: a {0} that is not a claim id")]
    BadClaimId(&'static str),
}

/// The kind of an inherited socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SocketKind {
    /// `1`: a TCP socket (`ReliSock`); a command socket is a listener.
    Tcp,
    /// `2`: a UDP socket (`SafeSock`).
    Udp,
}

/// One inherited socket.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InheritedSocket {
    /// TCP or UDP.
    pub kind: SocketKind,
    /// The descriptor, open in this process at the same number.
    pub fd: i32,
    /// The socket's serialized state, as the parent wrote it.
    pub serialized: String,
}

/// `CONDOR_INHERIT`, parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Inherit {
    /// The parent's pid.
    pub parent_pid: u32,
    /// The parent's command address, where `DC_CHILDALIVE` goes.
    pub parent_sinful: Option<String>,
    /// Sockets passed for the child's own use.
    pub sockets: Vec<InheritedSocket>,
    /// A shared-port endpoint (`SharedPort:…`), serialized, when the master
    /// gave us one instead of command sockets (`USE_SHARED_PORT`).
    pub shared_port: Option<String>,
    /// Our command sockets, bound by the parent.
    pub command_sockets: Vec<InheritedSocket>,
    /// The variable as read (it holds no secret; DaemonCore logs it too).
    pub raw: String,
}

fn socket(kind: &str, serialized: Option<&str>) -> Result<InheritedSocket, InheritError> {
    let kind = match kind {
        "1" => SocketKind::Tcp,
        "2" => SocketKind::Udp,
        other => return Err(InheritError::BadSocket(other.chars().take(40).collect())),
    };
    let serialized = serialized.ok_or_else(|| InheritError::BadSocket("(missing)".into()))?;
    let fd = serialized.split('*').next().and_then(|f| f.parse::<i32>().ok()).filter(|fd| *fd >= 0);
    let fd = fd.ok_or_else(|| InheritError::BadSocket(serialized.chars().take(40).collect()))?;
    Ok(InheritedSocket { kind, fd, serialized: serialized.to_owned() })
}

impl Inherit {
    /// Parses a `CONDOR_INHERIT` value. An empty value is an empty
    /// [`Inherit`] (no parent).
    pub fn parse(value: &str) -> Result<Inherit, InheritError> {
        if value.len() > MAX_LEN {
            return Err(InheritError::TooLong { var: ENV_INHERIT });
        }
        let mut words = value.split(' ').filter(|w| !w.is_empty()).peekable();
        let mut out = Inherit { raw: value.to_owned(), ..Inherit::default() };
        let Some(pid) = words.next() else { return Ok(out) };
        out.parent_pid = pid.parse().map_err(|_| InheritError::BadPid(pid.chars().take(40).collect()))?;
        // The parent's sinful; C++ writes "" when it has none, and its
        // tokenizer then takes the next word. Only an address is taken here.
        if words.peek().is_some_and(|w| w.starts_with('<')) {
            out.parent_sinful = words.next().map(str::to_owned);
        }
        // The first list, up to its "0".
        while let Some(w) = words.next() {
            if w.starts_with('0') {
                break;
            }
            if out.sockets.len() >= MAX_SOCKETS {
                return Err(InheritError::TooManySockets);
            }
            out.sockets.push(socket(w, words.next())?);
        }
        if let Some(w) = words.peek() {
            if let Some(endpoint) = w.strip_prefix("SharedPort:") {
                out.shared_port = Some(endpoint.to_owned());
                words.next();
            }
        }
        // The command sockets, up to their "0".
        while let Some(w) = words.next() {
            if w.starts_with('0') {
                break;
            }
            if out.command_sockets.len() >= MAX_SOCKETS {
                return Err(InheritError::TooManySockets);
            }
            out.command_sockets.push(socket(w, words.next())?);
        }
        Ok(out)
    }

    /// Whether a parent is known.
    pub fn has_parent(&self) -> bool {
        self.parent_pid != 0
    }

    /// The inherited TCP command listener's descriptor, if any.
    pub fn command_listener_fd(&self) -> Option<i32> {
        self.command_sockets.iter().find(|s| s.kind == SocketKind::Tcp).map(|s| s.fd)
    }
}

/// A session exported by the parent: `id#[info]key`.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportedSession {
    /// The session id.
    pub id: String,
    /// The exported session attributes, `[…]` (may be empty).
    pub info: String,
    key: String,
}

impl std::fmt::Debug for ExportedSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExportedSession").field("id", &self.id).field("info", &self.info).finish_non_exhaustive()
    }
}

impl ExportedSession {
    /// Splits a claim id as `ClaimIdParser` does: the id is everything
    /// before the last `#`; the info is the `[…]` right after it, up to the
    /// last `]`; the key is what follows.
    pub fn parse(claim_id: &str, what: &'static str) -> Result<ExportedSession, InheritError> {
        let (id, tail) = claim_id.rsplit_once('#').ok_or(InheritError::BadClaimId(what))?;
        let (info, key) = match (tail.starts_with('['), tail.rfind(']')) {
            (true, Some(end)) => (&tail[..=end], &tail[end + 1..]),
            _ => ("", tail),
        };
        if id.is_empty() || key.is_empty() {
            return Err(InheritError::BadClaimId(what));
        }
        Ok(ExportedSession { id: id.to_owned(), info: info.to_owned(), key: key.to_owned() })
    }

    /// The session as a client-side session with the peer at
    /// `connect_addr`, for cedar's session cache (see
    /// [`ClientSession::non_negotiated`]).
    pub fn client_session(&self, connect_addr: &str) -> cedar::error::Result<ClientSession> {
        ClientSession::non_negotiated(&self.id, connect_addr, &self.key, &self.info, Instant::now())
    }

    /// The session as the server side of it, for the daemon's own session
    /// cache, with `user` as the peer's name (`condor@family` for the
    /// family session, `condor@parent` for the parent's, as DaemonCore
    /// names them). A C++ daemon started by the same master tries the
    /// family session first with any local peer, so a server that does not
    /// know it costs each of them a failed command.
    pub fn server_session(&self, user: &str) -> cedar::error::Result<cedar::handshake::Session> {
        let now = Instant::now();
        let client = self.client_session("")?;
        let duration =
            client.expires.map_or(cedar::handshake::session::MAX_DURATION, |e| e.saturating_duration_since(now));
        let mut session = cedar::handshake::Session::new(self.id.clone(), now, duration, None);
        session.user = Some(user.to_owned());
        session.method = Some("FAMILY".to_owned());
        session.encrypted = client.encryption;
        session.key = client.key;
        session.valid_commands = client.valid_commands;
        session.peer_version = cedar::version::parse_peer_version(client.server_version.as_deref());
        Ok(session)
    }

    /// The shared secret. Never log it.
    pub fn key(&self) -> &str {
        &self.key
    }
}

/// `CONDOR_PRIVATE_INHERIT`, parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PrivateInherit {
    /// `SessionKey:` — the session with the parent, for commands to it
    /// (`DC_CHILDALIVE`, `DC_SET_READY`).
    pub parent_session: Option<ExportedSession>,
    /// `FamilySessionKey:` — the master's family session.
    pub family_session: Option<ExportedSession>,
}

impl PrivateInherit {
    /// The sessions a server of ours should know (see
    /// [`ExportedSession::server_session`]): the family session and the
    /// parent's. Sessions this crate cannot use (no AES) are left out.
    pub fn server_sessions(&self) -> Vec<cedar::handshake::Session> {
        let family = self.family_session.as_ref().map(|s| s.server_session("condor@family"));
        let parent = self.parent_session.as_ref().map(|s| s.server_session("condor@parent"));
        [family, parent].into_iter().flatten().filter_map(Result::ok).collect()
    }

    /// Parses a `CONDOR_PRIVATE_INHERIT` value; unknown words are ignored,
    /// as C++ ignores them.
    pub fn parse(value: &str) -> Result<PrivateInherit, InheritError> {
        if value.len() > MAX_LEN {
            return Err(InheritError::TooLong { var: ENV_PRIVATE });
        }
        let mut out = PrivateInherit::default();
        for word in value.split(' ').filter(|w| !w.is_empty()) {
            if let Some(claim) = word.strip_prefix("SessionKey:") {
                out.parent_session = Some(ExportedSession::parse(claim, "SessionKey")?);
            } else if let Some(claim) = word.strip_prefix("FamilySessionKey:") {
                out.family_session = Some(ExportedSession::parse(claim, "FamilySessionKey")?);
            }
        }
        Ok(out)
    }
}

/// Reads both variables and removes them from the environment, as
/// `DaemonCore::Inherit` does (so a process we start does not inherit
/// them). Call it before any thread is started: the environment is not
/// safe to change while other threads read it.
pub fn take_from_env() -> Result<(Inherit, PrivateInherit), InheritError> {
    let inherit = std::env::var(ENV_INHERIT).unwrap_or_default();
    let private = std::env::var(ENV_PRIVATE).unwrap_or_default();
    std::env::remove_var(ENV_INHERIT);
    std::env::remove_var(ENV_PRIVATE);
    Ok((Inherit::parse(&inherit)?, PrivateInherit::parse(&private)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A relisock as `ReliSock::serialize` writes a listener: fd, state,
    /// timeout, tried-auth, fqu and version lengths, fqu, version, special
    /// state, peer, crypto, message info, MD.
    const TCP: &str = "9*2*0*0*0*0***0*<0.0.0.0:0>*0*0*0*0*0*0*0*";

    #[test]
    fn the_masters_variable_for_a_collector() {
        let env = format!("12345 <127.0.0.1:9620?addrs=127.0.0.1-9620&alias=host> 0 1 {TCP} 2 10*0*0*0*0*0***0* 0");
        let i = Inherit::parse(&env).unwrap();
        assert_eq!(i.parent_pid, 12345);
        assert!(i.sockets.is_empty() && i.shared_port.is_none());
        assert_eq!(i.command_listener_fd(), Some(9));
        assert_eq!(i.command_sockets[1].kind, SocketKind::Udp);
        assert_eq!(i.command_sockets[1].fd, 10);
    }

    #[test]
    fn what_a_real_23_9_6_master_wrote() {
        // Logged by the noop daemon started by condor_master 23.9.6 (the
        // anchor chroot, USE_SHARED_PORT = False, DC_DAEMON_LIST = +NOOP).
        let env = "1605 <127.0.0.1:34491?addrs=127.0.0.1-34491&alias=vm> 0 1 12*6*0*0*0*0***1**0*0*0*0*0*0*0* 2 13*2*0*0*0*0***0** 0";
        let i = Inherit::parse(env).unwrap();
        assert_eq!(i.parent_pid, 1605);
        assert_eq!(i.parent_sinful.as_deref(), Some("<127.0.0.1:34491?addrs=127.0.0.1-34491&alias=vm>"));
        assert!(i.sockets.is_empty() && i.shared_port.is_none());
        assert_eq!(i.command_listener_fd(), Some(12));
        assert_eq!((i.command_sockets[1].kind, i.command_sockets[1].fd), (SocketKind::Udp, 13));
        assert_eq!(i.raw, env);
    }

    #[test]
    fn shared_port_and_child_sockets() {
        let env = format!("7 <127.0.0.1:9618> 1 {TCP} 0 SharedPort:collector*/var/lock/condor/daemon_sock*11* 0");
        let i = Inherit::parse(&env).unwrap();
        assert_eq!(i.sockets.len(), 1);
        assert_eq!(i.shared_port.as_deref(), Some("collector*/var/lock/condor/daemon_sock*11*"));
        assert!(i.command_sockets.is_empty());
        assert_eq!(i.command_listener_fd(), None);
    }

    #[test]
    fn no_parent_sinful_and_empty() {
        assert_eq!(Inherit::parse("").unwrap(), Inherit::default());
        assert!(!Inherit::parse("").unwrap().has_parent());
        let i = Inherit::parse("55 0 0").unwrap();
        assert_eq!((i.parent_pid, i.parent_sinful.clone()), (55, None));
    }

    #[test]
    fn bad_input_is_refused_not_a_panic() {
        assert!(matches!(Inherit::parse("x <a:1> 0 0"), Err(InheritError::BadPid(_))));
        assert!(matches!(Inherit::parse("1 <a:1> 0 3 x 0"), Err(InheritError::BadSocket(_))));
        assert!(matches!(Inherit::parse("1 <a:1> 0 1"), Err(InheritError::BadSocket(_))));
        assert!(matches!(Inherit::parse("1 <a:1> 0 1 x*1* 0"), Err(InheritError::BadSocket(_))));
        assert!(matches!(Inherit::parse("1 <a:1> 0 1 -3*1* 0"), Err(InheritError::BadSocket(_))));
        let many = format!("1 <a:1> 0 {} 0", "1 3*0* ".repeat(MAX_SOCKETS + 1));
        assert_eq!(Inherit::parse(&many), Err(InheritError::TooManySockets));
        let long = "1".repeat(MAX_LEN + 1);
        assert!(matches!(Inherit::parse(&long), Err(InheritError::TooLong { .. })));
        for cut in 0..40 {
            let env = format!("12345 <127.0.0.1:9620> 0 1 {TCP} 0");
            let _ = Inherit::parse(&env[..cut.min(env.len())]);
        }
    }

    #[test]
    fn private_sessions_as_create_process_writes_them() {
        let info = r#"[Encryption="NO";Integrity="YES";CryptoMethods="BLOWFISH";CryptoMethodsList="AES.BLOWFISH.3DES";ValidCommands="60008,60043,60000";ShortVersion="23.9.6";]"#;
        let env = format!(
            " SessionKey:4a5b6c7d8e9f#{info}0123456789abcdef0123456789abcdef FamilySessionKey:family:feedbeef#{info}fedcba98"
        );
        let p = PrivateInherit::parse(&env).unwrap();
        let parent = p.parent_session.as_ref().unwrap();
        assert_eq!(parent.id, "4a5b6c7d8e9f");
        assert_eq!(parent.info, info);
        assert_eq!(parent.key(), "0123456789abcdef0123456789abcdef");
        let family = p.family_session.as_ref().unwrap();
        assert_eq!(family.id, "family:feedbeef");
        assert_eq!(family.key(), "fedcba98");
        // The key never shows in Debug output.
        assert!(!format!("{p:?}").contains("0123456789abcdef"));
        let servers = p.server_sessions();
        assert_eq!(servers.len(), 2);
        assert_eq!((servers[0].id.as_str(), servers[0].user.as_deref()), ("family:feedbeef", Some("condor@family")));
        assert_eq!(servers[1].user.as_deref(), Some("condor@parent"));
        assert!(
            servers[0].encrypted && servers[0].key == Some(cedar::crypto::SessionKey::from_shared_string("fedcba98"))
        );
        assert!(servers[0].is_live(Instant::now()));
        let s = parent.client_session("<127.0.0.1:9620>").unwrap();
        assert_eq!(s.valid_commands, [60008, 60043, 60000]);
        assert_eq!(s.key, Some(cedar::crypto::SessionKey::from_shared_string("0123456789abcdef0123456789abcdef")));
    }

    #[test]
    fn claim_ids_without_info_and_bad_ones() {
        let s = ExportedSession::parse("abc#key", "SessionKey").unwrap();
        assert_eq!((s.id.as_str(), s.info.as_str(), s.key()), ("abc", "", "key"));
        assert!(ExportedSession::parse("nohash", "SessionKey").is_err());
        assert!(ExportedSession::parse("#key", "SessionKey").is_err());
        assert!(ExportedSession::parse("id#[a=1;]", "SessionKey").is_err());
        assert!(PrivateInherit::parse("SessionKey:bad").is_err());
        assert_eq!(PrivateInherit::parse("Other:x").unwrap(), PrivateInherit::default());
    }
}
