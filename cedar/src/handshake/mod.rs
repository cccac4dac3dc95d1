//! The server side of CEDAR's command protocol and security handshake
//! (`daemon_command.cpp`), sans-IO, for security mode M0 (no
//! authentication, no encryption).
//!
//! A [`ServerConnection`] takes each message the client sends between
//! commands ([`ServerConnection::on_message`]) and answers with a [`Step`]:
//!
//! * a **raw** command (any integer but 60010): the command and its payload
//!   share the message; the step is [`Step::Command`] with the payload
//!   inline;
//! * **`DC_AUTHENTICATE`** (60010) and the client's security ad: the server
//!   looks the real command up, then either resumes a cached session
//!   (`UseSession`; unknown ids get `ReturnCode = "SID_NOT_FOUND"`, known
//!   ones `"AUTHORIZED"` and a nonce when the client asks with
//!   `ResumeResponse`) or reconciles a new one, sends the response ad and
//!   the post-auth ad (`User`, `Sid`, `ValidCommands`, `ReturnCode`) and caches the
//!   session. The command's payload is then the next message;
//! * `DC_SEC_QUERY` (60040) is answered with `AuthorizationSucceeded`,
//!   `DC_AUTHENTICATE` as the real command only makes the session, and
//!   `DC_NOP` (and its per-level variants `DC_NOP_READ` …) hangs up: all
//!   three end the connection ([`Step::Close`]).
//!
//! The ads to send are queued; [`ServerConnection::take_outgoing`] gives
//! them, one message each, to be sent before the step is acted on. After a
//! command the connection stays open for follow-on commands, which keep
//! the connection's session and identity, until `DC_NOP` or EOF.
//!
//! The reconciliation is a minimal stand-in ([`decide`]) to be replaced by
//! the crate's policy module; it refuses anything that would need
//! authentication or a key, so only mode M0 works for now.
//!
//! [`crate::blocking`] drives a connection over a `std::net::TcpStream`.

pub mod decide;
pub mod session;

use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use classad::{ClassAd, EvalContext, EvalOptions, Value};
use rand::RngCore as _;

use crate::command::{DC_AUTHENTICATE, DC_SEC_QUERY};
use crate::error::{Error, ErrorKind, Result};
use crate::version::{parse_peer_version, Version, OUR_VERSION};
use crate::wire::ad::{get_classad, AdLimits};
use crate::wire::{Decoder, Message};
pub use decide::{Level, ServerPolicy};
pub use session::{Session, SessionCache};

/// The user C++ reports for a connection that did not authenticate
/// (`UNAUTHENTICATED_FQU`, `authentication.cpp` 55).
pub const UNAUTHENTICATED_USER: &str = "unauthenticated@unmapped";

/// A string attribute of a handshake ad, evaluated.
pub(crate) fn lookup_str(ad: &ClassAd, name: &str) -> Option<String> {
    let expr = ad.lookup(name)?;
    match EvalContext::new(&EvalOptions::new()).my(ad).eval(expr) {
        Value::Str(s) => Some(s.as_str().to_owned()),
        _ => None,
    }
}

/// An integer attribute of a handshake ad, evaluated (reals truncate and
/// booleans count as 0 or 1, as `LookupInteger` does).
pub(crate) fn lookup_int(ad: &ClassAd, name: &str) -> Option<i64> {
    let expr = ad.lookup(name)?;
    match EvalContext::new(&EvalOptions::new()).my(ad).eval(expr) {
        Value::Int(i) => Some(i),
        Value::Real(r) if r.is_finite() => Some(r as i64),
        Value::Bool(b) => Some(i64::from(b)),
        _ => None,
    }
}

/// A boolean attribute of a handshake ad, evaluated (`LookupBool` also
/// takes integers).
pub(crate) fn lookup_bool(ad: &ClassAd, name: &str) -> Option<bool> {
    let expr = ad.lookup(name)?;
    match EvalContext::new(&EvalOptions::new()).my(ad).eval(expr) {
        Value::Bool(b) => Some(b),
        Value::Int(i) => Some(i != 0),
        _ => None,
    }
}

/// `sec_lookup_feat_act(...) == YES`: the string starts with `Y`.
fn is_yes(ad: &ClassAd, name: &str) -> bool {
    lookup_str(ad, name).is_some_and(|s| s.starts_with(['Y', 'y']))
}

/// `sec_lookup_feat_act(...) == NO`: the string starts with `N`.
fn is_no(ad: &ClassAd, name: &str) -> bool {
    lookup_str(ad, name).is_some_and(|s| s.starts_with(['N', 'n']))
}

/// The permission levels a level implies, as `DCpermissionHierarchy`
/// (`condor_perms.cpp` 144) chains them: the level itself first.
pub fn implied_levels(permission: &str) -> Vec<&'static str> {
    let next = |p: &str| -> Option<&'static str> {
        match p {
            "WRITE" | "NEGOTIATOR" | "CONFIG" | "ADVERTISE_STARTD" | "ADVERTISE_SCHEDD" | "ADVERTISE_MASTER" => {
                Some("READ")
            }
            "ADMINISTRATOR" | "DAEMON" => Some("WRITE"),
            _ => None,
        }
    };
    let mut out = Vec::new();
    let mut at: Option<&'static str> = LEVELS.iter().copied().find(|l| *l == permission);
    while let Some(p) = at {
        out.push(p);
        at = next(p);
    }
    out
}

/// The permission levels DaemonCore knows.
pub const LEVELS: [&str; 13] = [
    "ALLOW",
    "READ",
    "WRITE",
    "NEGOTIATOR",
    "ADMINISTRATOR",
    "CONFIG",
    "DAEMON",
    "SOAP",
    "DEFAULT",
    "CLIENT",
    "ADVERTISE_STARTD",
    "ADVERTISE_SCHEDD",
    "ADVERTISE_MASTER",
];

/// The server's command table: each command it answers and its permission
/// level (a name of [`LEVELS`]).
///
/// ```
/// use cedar::handshake::CommandTable;
/// let table = CommandTable::new().register(5, "READ").register(0, "ADVERTISE_STARTD").register(60011, "ALLOW");
/// assert_eq!(table.permission(5), Some("READ"));
/// // A client granted a level may also send the commands of the levels it implies.
/// assert_eq!(table.valid_commands("ADVERTISE_STARTD"), "0,5");
/// ```
#[derive(Debug, Clone, Default)]
pub struct CommandTable {
    entries: Vec<(i32, &'static str)>,
}

impl CommandTable {
    /// An empty table.
    pub fn new() -> CommandTable {
        CommandTable::default()
    }

    /// Adds (or moves) `command` at `permission`; an unknown level name is
    /// taken as ALLOW.
    pub fn register(mut self, command: i32, permission: &str) -> CommandTable {
        let level = LEVELS.iter().copied().find(|l| *l == permission).unwrap_or("ALLOW");
        self.entries.retain(|(c, _)| *c != command);
        self.entries.push((command, level));
        self
    }

    /// The level of `command`, `None` when it is not registered.
    pub fn permission(&self, command: i32) -> Option<&'static str> {
        self.entries.iter().find(|(c, _)| *c == command).map(|(_, p)| *p)
    }

    /// `GetCommandsInAuthLevel`: the commands of `permission` and of the
    /// levels it implies, comma-separated, level by level.
    pub fn valid_commands(&self, permission: &str) -> String {
        let mut out: Vec<String> = Vec::new();
        for level in implied_levels(permission) {
            for (c, p) in &self.entries {
                if *p == level {
                    out.push(c.to_string());
                }
            }
        }
        out.join(",")
    }
}

/// Decides whether a command may run (the host-based check of mode M0;
/// the crate's authz module brings `ALLOW_*`/`DENY_*` lists).
pub trait Authorizer: Send + Sync {
    /// Whether `command`, at `permission`, from `peer` (and `user` when
    /// authenticated), is allowed.
    fn authorize(&self, command: i32, permission: &str, peer: Option<IpAddr>, user: Option<&str>) -> bool;
}

/// Allows everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl Authorizer for AllowAll {
    fn authorize(&self, _: i32, _: &str, _: Option<IpAddr>, _: Option<&str>) -> bool {
        true
    }
}

impl<F> Authorizer for F
where
    F: Fn(i32, &str, Option<IpAddr>, Option<&str>) -> bool + Send + Sync,
{
    fn authorize(&self, command: i32, permission: &str, peer: Option<IpAddr>, user: Option<&str>) -> bool {
        self(command, permission, peer, user)
    }
}

/// What every connection of a server shares.
#[non_exhaustive]
pub struct ServerConfig {
    /// The commands served.
    pub commands: CommandTable,
    /// Our security policy.
    pub policy: ServerPolicy,
    /// Who may run what.
    pub authorizer: Arc<dyn Authorizer>,
    /// The session cache.
    pub sessions: Arc<Mutex<SessionCache>>,
    /// Our host name, the first part of session ids.
    pub hostname: String,
    /// Our `TRUST_DOMAIN`, sent in the response ad when set.
    pub trust_domain: Option<String>,
    /// Our `RemoteVersion`.
    pub version: String,
    /// Bounds on the ads read.
    pub limits: AdLimits,
}

impl std::fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConfig")
            .field("commands", &self.commands)
            .field("policy", &self.policy)
            .field("hostname", &self.hostname)
            .finish()
    }
}

impl ServerConfig {
    /// A server of `commands` with the M0 policy, allowing everything, with a
    /// fresh session cache.
    pub fn new(commands: CommandTable) -> ServerConfig {
        ServerConfig {
            commands,
            policy: ServerPolicy::default(),
            authorizer: Arc::new(AllowAll),
            sessions: Arc::new(Mutex::new(SessionCache::default())),
            hostname: "localhost".to_owned(),
            trust_domain: None,
            version: OUR_VERSION.to_owned(),
            limits: AdLimits::default(),
        }
    }

    /// The same configuration with another authorizer.
    pub fn authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> ServerConfig {
        self.authorizer = authorizer;
        self
    }

    /// The same configuration with another host name.
    pub fn hostname(mut self, hostname: impl Into<String>) -> ServerConfig {
        self.hostname = hostname.into();
        self
    }

    /// The same configuration with another policy.
    pub fn policy(mut self, policy: ServerPolicy) -> ServerConfig {
        self.policy = policy;
        self
    }
}

/// How a command arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Via {
    /// A raw command: no handshake on this message.
    Raw,
    /// After a `DC_AUTHENTICATE` handshake that negotiated the security
    /// terms afresh (and made a session when the client asked for one with
    /// `NewSession = "YES"`, as C++ clients always do).
    NewSession,
    /// After a `DC_AUTHENTICATE` handshake resuming a session.
    ResumedSession,
}

/// Where a command's payload is.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Payload {
    /// In the command's own message, after the command integer (raw
    /// commands); the flag says whether that message came encrypted.
    Inline(Vec<u8>, bool),
    /// In the next message (after a handshake). A command that takes no
    /// payload reads none; C++ lets such a handler read one empty message
    /// (`allow_one_empty_message`).
    NextMessage,
}

impl std::fmt::Debug for Payload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Payload::Inline(b, e) => write!(f, "Inline({} bytes, encrypted: {e})", b.len()),
            Payload::NextMessage => f.write_str("NextMessage"),
        }
    }
}

/// A command ready to run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CommandRequest {
    /// The command number.
    pub command: i32,
    /// Its permission level.
    pub permission: &'static str,
    /// Where its payload is.
    pub payload: Payload,
    /// How it arrived.
    pub via: Via,
    /// The authenticated user; `None` without authentication (mode M0).
    pub user: Option<String>,
    /// The session it runs under, if any.
    pub session: Option<String>,
    /// The peer's version: known from a handshake, unknown for raw commands
    /// on a fresh connection. It decides whether V2 private attributes may
    /// be sent ([`crate::wire::ad::PutOptions::peer_version`]).
    pub peer_version: Option<Version>,
}

/// Why a connection ends.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CloseReason {
    /// The peer closed the connection between commands.
    Eof,
    /// `DC_NOP`: the polite hang-up.
    Nop,
    /// The command was handled by the handshake itself (`DC_SEC_QUERY`,
    /// `DC_AUTHENTICATE` as the real command).
    Done,
    /// The command is not in our table; C++ closes without a word and the
    /// client reports "Connection closed during command authorization.
    /// Probably due to an unknown command."
    UnknownCommand(i32),
    /// The client resumed a session we do not know.
    SessionNotFound,
    /// The command was not authorized.
    Denied(i32),
    /// The policies could not be reconciled, or need what M0 lacks.
    Policy(String),
}

/// What to do after a message.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Step {
    /// Run this command, then hand the connection's next message to
    /// [`ServerConnection::on_message`].
    Command(CommandRequest),
    /// Send what is queued, then close the connection.
    Close(CloseReason),
}

/// The command protocol of one connection, server side.
pub struct ServerConnection {
    config: Arc<ServerConfig>,
    peer: Option<IpAddr>,
    outgoing: Vec<ClassAd>,
    user: Option<String>,
    session: Option<String>,
    peer_version: Option<Version>,
    closed: bool,
}

impl std::fmt::Debug for ServerConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConnection")
            .field("peer", &self.peer)
            .field("session", &self.session)
            .field("closed", &self.closed)
            .finish()
    }
}

static SESSION_COUNTER: AtomicU64 = AtomicU64::new(0);

fn unix_now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}

impl ServerConnection {
    /// A connection from `peer`.
    pub fn new(config: Arc<ServerConfig>, peer: Option<IpAddr>) -> ServerConnection {
        ServerConnection {
            config,
            peer,
            outgoing: Vec::new(),
            user: None,
            session: None,
            peer_version: None,
            closed: false,
        }
    }

    /// The ads to send, one message each, in order.
    pub fn take_outgoing(&mut self) -> Vec<ClassAd> {
        std::mem::take(&mut self.outgoing)
    }

    /// The peer's version, once a handshake gave it.
    pub fn peer_version(&self) -> Option<&Version> {
        self.peer_version.as_ref()
    }

    /// The peer went away between commands.
    pub fn on_eof(&mut self) -> Step {
        self.closed = true;
        Step::Close(CloseReason::Eof)
    }

    fn close(&mut self, reason: CloseReason) -> Result<Step> {
        self.closed = true;
        Ok(Step::Close(reason))
    }

    /// Takes the next message the client sent between commands.
    ///
    /// Errors (a message that does not decode, a bound exceeded) end the
    /// connection; nothing is queued for them.
    pub fn on_message(&mut self, message: Message) -> Result<Step> {
        if self.closed {
            return Err(Error::new(ErrorKind::Protocol, "message on a closed connection"));
        }
        let mut dec = Decoder::new(&message.payload, message.encrypted);
        let command = dec.get_i32()?;
        if command != DC_AUTHENTICATE {
            return self.raw_command(command, dec.remaining().to_vec(), message.encrypted);
        }
        let ad = get_classad(&mut dec, &self.config.limits)?;
        dec.finish()?;
        self.authenticate(&ad)
    }

    fn raw_command(&mut self, command: i32, payload: Vec<u8>, encrypted: bool) -> Result<Step> {
        let Some(permission) = self.config.commands.permission(command) else {
            return self.close(CloseReason::UnknownCommand(command));
        };
        // An unauthenticated command is refused when our policy requires any
        // security feature (daemon_command.cpp 1450–1480); the connection's
        // session, if it has one, makes it authenticated.
        if self.session.is_none() && permission != "ALLOW" {
            let p = &self.config.policy;
            if [p.authentication, p.encryption, p.integrity].contains(&Level::Required) {
                return self.close(CloseReason::Denied(command));
            }
        }
        if crate::command::is_nop(command) {
            return self.close(CloseReason::Nop);
        }
        if !self.config.authorizer.authorize(command, permission, self.peer, self.user.as_deref()) {
            return self.close(CloseReason::Denied(command));
        }
        Ok(Step::Command(CommandRequest {
            command,
            permission,
            payload: Payload::Inline(payload, encrypted),
            via: Via::Raw,
            user: self.user.clone(),
            session: self.session.clone(),
            peer_version: self.peer_version.clone(),
        }))
    }

    fn authenticate(&mut self, ad: &ClassAd) -> Result<Step> {
        let real = lookup_int(ad, "Command").unwrap_or(0);
        let auth_command = if real == i64::from(DC_AUTHENTICATE) || real == i64::from(DC_SEC_QUERY) {
            lookup_int(ad, "AuthCommand").unwrap_or(0)
        } else {
            real
        };
        let (Ok(real), Ok(auth_command)) = (i32::try_from(real), i32::try_from(auth_command)) else {
            return self.close(CloseReason::UnknownCommand(-1));
        };
        let Some(permission) = self.config.commands.permission(auth_command) else {
            return self.close(CloseReason::UnknownCommand(auth_command));
        };
        if ad.lookup("Cookie").is_some() {
            // We hand out no cookies, so any cookie is invalid.
            return self.close(CloseReason::Denied(auth_command));
        }
        let announced = parse_peer_version(lookup_str(ad, "RemoteVersion").as_deref());
        let now = Instant::now();
        let via;
        if is_yes(ad, "UseSession") {
            let Some(sid) = lookup_str(ad, "Sid") else {
                return Err(Error::new(ErrorKind::Protocol, "UseSession without a Sid"));
            };
            let resume_response = lookup_bool(ad, "ResumeResponse").unwrap_or(false);
            let found = {
                let mut cache = self.config.sessions.lock().map_err(|_| poisoned())?;
                cache.resume(&sid, now).cloned()
            };
            let Some(session) = found else {
                if resume_response {
                    let mut reply = ClassAd::new();
                    reply.insert("ReturnCode", "SID_NOT_FOUND");
                    self.outgoing.push(reply);
                }
                return self.close(CloseReason::SessionNotFound);
            };
            if resume_response {
                let mut nonce = [0u8; 33];
                rand::thread_rng().fill_bytes(&mut nonce);
                let mut reply = ClassAd::new();
                reply.insert("ReturnCode", "AUTHORIZED");
                reply.insert("RemoteVersion", self.config.version.as_str());
                reply.insert("Nonce", base64::engine::general_purpose::STANDARD.encode(nonce));
                self.outgoing.push(reply);
            }
            // Pre-9.9.0 clients send no version when resuming; C++ then
            // records 9.8.0, which is "known but too old" for V2 attributes.
            self.peer_version = announced.or_else(|| session.peer_version.clone());
            self.user = session.user.clone();
            self.session = Some(session.id.clone());
            if !self.config.authorizer.authorize(auth_command, permission, self.peer, self.user.as_deref()) {
                return self.close(CloseReason::Denied(auth_command));
            }
            via = Via::ResumedSession;
        } else {
            let decision = match decide::decide(ad, &self.config.policy) {
                Ok(d) => d,
                Err(e) => return self.close(CloseReason::Policy(e.message().to_owned())),
            };
            let new_session = is_yes(ad, "NewSession");
            if is_no(ad, "Enact") {
                self.outgoing.push(self.response_ad(&decision));
            }
            self.peer_version = announced.clone();
            let authorized =
                self.config.authorizer.authorize(auth_command, permission, self.peer, self.user.as_deref());
            if new_session {
                let sid = format!(
                    "{}:{}:{}:{}",
                    self.config.hostname,
                    std::process::id(),
                    unix_now(),
                    SESSION_COUNTER.fetch_add(1, Ordering::Relaxed) + 1
                );
                let valid = self.config.commands.valid_commands(permission);
                let mut post = ClassAd::new();
                // C++'s getFullyQualifiedUser() is never NULL: without
                // authentication it is "unauthenticated@unmapped" (sock.cpp
                // 2703), so User is always sent. TriedAuthentication goes
                // only when authentication was tried, never in M0.
                post.insert("User", self.user.as_deref().unwrap_or(UNAUTHENTICATED_USER));
                post.insert("Sid", sid.as_str());
                post.insert("ValidCommands", valid.as_str());
                post.insert("ReturnCode", if authorized { "AUTHORIZED" } else { "DENIED" });
                self.outgoing.push(post);
                if !authorized {
                    return self.close(CloseReason::Denied(auth_command));
                }
                let duration = Duration::from_secs(decision.duration.max(0) as u64);
                let lease = decision.lease.filter(|l| *l > 0).map(|l| Duration::from_secs(l as u64));
                let mut session = Session::new(sid.clone(), now, duration, lease);
                session.peer_version = announced;
                session.valid_commands = valid.split(',').filter_map(|c| c.parse().ok()).collect();
                self.config.sessions.lock().map_err(|_| poisoned())?.insert(session, now);
                self.session = Some(sid);
            } else if !authorized {
                return self.close(CloseReason::Denied(auth_command));
            }
            via = Via::NewSession;
        }
        match real {
            DC_AUTHENTICATE => self.close(CloseReason::Done),
            DC_SEC_QUERY => {
                let mut reply = ClassAd::new();
                reply.insert("AuthorizationSucceeded", true);
                self.outgoing.push(reply);
                self.close(CloseReason::Done)
            }
            c if crate::command::is_nop(c) => self.close(CloseReason::Nop),
            _ => Ok(Step::Command(CommandRequest {
                command: real,
                permission,
                payload: Payload::NextMessage,
                via,
                user: self.user.clone(),
                session: self.session.clone(),
                peer_version: self.peer_version.clone(),
            })),
        }
    }

    /// The server response ad of a new session, with the attribute names
    /// and types of `ReconcileSecurityPolicyAds` and `daemon_command.cpp`
    /// 900–1010 (without authentication: no crypto method, no key).
    fn response_ad(&self, d: &decide::Decision) -> ClassAd {
        let yes_no = |b: bool| if b { "YES" } else { "NO" };
        let mut ad = ClassAd::new();
        ad.insert("Authentication", yes_no(d.authentication));
        ad.insert("Encryption", yes_no(d.encryption));
        ad.insert("Integrity", yes_no(d.integrity));
        if let Some(methods) = &d.crypto_methods {
            // C++ deletes CryptoMethods when it will not authenticate, but
            // keeps the list.
            ad.insert("CryptoMethodsList", methods.as_str());
        }
        ad.insert("SessionDuration", d.duration.to_string());
        if let Some(lease) = d.lease {
            ad.insert("SessionLease", lease);
        }
        ad.insert("Enact", "YES");
        if let Some(td) = &self.config.trust_domain {
            ad.insert("TrustDomain", td.as_str());
        }
        ad.insert("NegotiatedSession", true);
        ad.insert("RemoteVersion", self.config.version.as_str());
        ad
    }
}

fn poisoned() -> Error {
    Error::new(ErrorKind::Protocol, "the session cache lock is poisoned")
}
