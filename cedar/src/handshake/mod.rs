//! The server side of CEDAR's command protocol and security handshake
//! (`daemon_command.cpp`), sans-IO.
//!
//! A [`ServerConnection`] takes each message the client sends
//! ([`ServerConnection::on_message`]) and answers with a [`Step`]:
//!
//! * a **raw** command (any integer but 60010): the command and its payload
//!   share the message; the step is [`Step::Command`] with the payload
//!   inline;
//! * **`DC_AUTHENTICATE`** (60010) and the client's security ad: the server
//!   looks the real command up, then either resumes a cached session
//!   (`UseSession`; unknown ids get `ReturnCode = "SID_NOT_FOUND"`, known
//!   ones `"AUTHORIZED"` and a nonce when the client asks with
//!   `ResumeResponse`, then the session's encryption goes on) or
//!   reconciles a new one ([`crate::policy::reconcile`] against our policy
//!   for the command's level) and sends the response ad. When the
//!   reconciliation says `Authentication = "YES"`, the authentication
//!   follows ([`Step::Continue`] until it is over, one client message at a
//!   time: the method bitmask, the method's own messages; see [`auth`]),
//!   then the ECDH key, AES-GCM in both directions, and the post-auth ad
//!   (`User`, `Sid`, `ValidCommands`, `ReturnCode`), encrypted. The
//!   session is cached with its key. The command's payload is then the
//!   next message;
//! * `DC_SEC_QUERY` (60040) is answered with `AuthorizationSucceeded`,
//!   `DC_AUTHENTICATE` as the real command only makes the session, and
//!   `DC_NOP` (and its per-level variants `DC_NOP_READ` …) hangs up: all
//!   three end the connection ([`Step::Close`]).
//!
//! Every command is authorized by the configuration's
//! [`Authorizer`](crate::authz::Authorizer) (`ALLOW_*`/`DENY_*`), for the
//! connection's identity and within its session's `LimitAuthorization`
//! (CLAIMTOBE sessions: the creating command's level and what it implies;
//! tokens: their `condor:/` scopes). A denied new session gets
//! `ReturnCode = "DENIED"` in its post-auth ad; a denied resumed or raw
//! command is closed without a word, as C++ does (`daemon_command.cpp`
//! 1706–1710 after the post-auth ad, 1811–1815 otherwise: `m_result =
//! FALSE` and no reply).
//!
//! What to send is queued as [`Output`]s: messages, already encoded for
//! the stream's state at their point, and the switch to encryption, which
//! the adapter applies after the messages before it
//! ([`crate::wire::encryption::switch_on`]). [`crate::blocking`] drives a
//! connection over a `std::net::TcpStream`.

pub mod auth;
pub mod commands;
pub mod config;
pub mod session;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use classad::{ClassAd, EvalContext, EvalOptions, Value};
use rand::RngCore as _;

use crate::authz::{AuthorizationLimit, Decision, Peer, Permission};
use crate::command::{DC_AUTHENTICATE, DC_SEC_QUERY};
use crate::crypto::{KeyExchange, SessionKey};
use crate::error::{Error, ErrorKind, Result};
use crate::policy::{reconcile, AuthMethod, PolicyTerms, Reconciled, SecurityLevel};
use crate::version::{parse_peer_version, Version};
use crate::wire::ad::{get_classad, put_classad, PutOptions};
use crate::wire::{Decoder, Encoder, Message};
pub use commands::{CommandTable, Registration};
pub use config::{allow_everyone, ServerConfig, ServerPolicies, TokenConfig};
pub use session::{Session, SessionCache};

/// The user C++ reports for a connection that did not authenticate
/// (`UNAUTHENTICATED_FQU`, `authentication.cpp` 55).
pub const UNAUTHENTICATED_USER: &str = crate::authz::UNAUTHENTICATED_USER;

/// The authentication methods this server can verify: CLAIMTOBE, FS (on
/// Unix, where a shared `/tmp` can prove a uid) and TOKEN.
#[cfg(unix)]
pub const SUPPORTED_METHODS: &[AuthMethod] = &[AuthMethod::Claimtobe, AuthMethod::Fs, AuthMethod::Token];
/// The authentication methods this server can verify: CLAIMTOBE and TOKEN
/// (FS needs Unix).
#[cfg(not(unix))]
pub const SUPPORTED_METHODS: &[AuthMethod] = &[AuthMethod::Claimtobe, AuthMethod::Token];

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
    pub permission: Permission,
    /// Where its payload is.
    pub payload: Payload,
    /// How it arrived.
    pub via: Via,
    /// The authenticated user (fully qualified when the method gives a
    /// domain); `None` without authentication.
    pub user: Option<String>,
    /// The authentication method that identified `user` (`CLAIMTOBE`,
    /// `FS`, `IDTOKENS`), `None` without authentication.
    pub method: Option<String>,
    /// The session it runs under, if any.
    pub session: Option<String>,
    /// The peer's version: known from a handshake, unknown for raw commands
    /// on a fresh connection. It decides whether V2 private attributes may
    /// be sent ([`crate::wire::ad::PutOptions::peer_version`]).
    pub peer_version: Option<Version>,
    /// The session's authorization limit (a token's scopes), if any.
    pub limit: Option<AuthorizationLimit>,
}

impl CommandRequest {
    /// The peer of this command, at `addr`, for further authorization
    /// checks (with its identity and its session's limit), as a daemon
    /// asks whether a READ client is also a NEGOTIATOR.
    ///
    /// ```
    /// # fn check(request: &cedar::handshake::CommandRequest, authz: &cedar::authz::Authorizer) -> bool {
    /// let peer = request.peer_at("127.0.0.1".parse().expect("an address"));
    /// authz.check(&peer, cedar::authz::Permission::Negotiator).is_allowed()
    /// # }
    /// ```
    pub fn peer_at(&self, addr: IpAddr) -> Peer<'_> {
        let mut peer = Peer::new(addr);
        if let Some(user) = &self.user {
            peer = peer.with_user(user);
        }
        if let Some(limit) = &self.limit {
            peer = peer.with_limit(limit);
        }
        peer
    }
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
    /// The command was not authorized (the reason, for the log).
    Denied(i32, String),
    /// The policies could not be reconciled, or need what this server
    /// cannot do.
    Policy(String),
    /// Required authentication failed (no method in common, a method's
    /// exchange failed).
    AuthenticationFailed(String),
}

/// What to do after a message.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Step {
    /// Run this command, then hand the connection's next message to
    /// [`ServerConnection::on_message`].
    Command(CommandRequest),
    /// The handshake goes on: send what is queued, then hand the next
    /// message to [`ServerConnection::on_message`].
    Continue,
    /// Send what is queued, then close the connection.
    Close(CloseReason),
}

/// Something to send, in order.
#[non_exhaustive]
pub enum Output {
    /// One whole message, encoded for the stream's state at this point.
    Message(Vec<u8>),
    /// Encrypt both directions from here on with this key
    /// ([`crate::wire::encryption::switch_on`]).
    StartCrypto(SessionKey),
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Output::Message(b) => write!(f, "Message({} bytes)", b.len()),
            Output::StartCrypto(_) => f.write_str("StartCrypto(<key>)"),
        }
    }
}

/// Who the connection authenticated as.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Authenticated {
    user: String,
    method: String,
    limit: Option<AuthorizationLimit>,
}

/// A new session being negotiated.
struct NewSession {
    real: i32,
    reg: Registration,
    reconciled: Reconciled,
    new_session: bool,
    exchange: Option<KeyExchange>,
    peer_pubkey: Option<String>,
    announced: Option<Version>,
    tried: bool,
    rounds: u32,
}

/// Where the connection is.
enum Phase {
    /// Between commands.
    Commands,
    /// Authentication: awaiting the client's method bitmask.
    Methods(Box<NewSession>),
    /// CLAIMTOBE: awaiting the claimed name.
    ClaimToBe(Box<NewSession>),
    /// FS: awaiting the client's `mkdir` result for the directory we
    /// named (`None`: we could not name one and sent an empty string).
    Fs(Box<NewSession>, Option<std::path::PathBuf>),
    /// TOKEN: awaiting the AKEP2 hello.
    TokenHello(Box<NewSession>),
    /// TOKEN: awaiting the AKEP2 confirmation.
    TokenConfirm(Box<NewSession>, Box<crate::token::akep2::Server>),
}

/// The command protocol of one connection, server side.
pub struct ServerConnection {
    config: Arc<ServerConfig>,
    peer: Option<IpAddr>,
    local: Option<SocketAddr>,
    output: Vec<Output>,
    encrypted: bool,
    auth: Option<Authenticated>,
    session: Option<String>,
    peer_version: Option<Version>,
    phase: Phase,
    closed: bool,
}

impl std::fmt::Debug for ServerConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerConnection")
            .field("peer", &self.peer)
            .field("session", &self.session)
            .field("encrypted", &self.encrypted)
            .field("closed", &self.closed)
            .finish_non_exhaustive()
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
            local: None,
            output: Vec::new(),
            encrypted: false,
            auth: None,
            session: None,
            peer_version: None,
            phase: Phase::Commands,
            closed: false,
        }
    }

    /// The same connection, knowing our end's address (the accepted
    /// socket's `getsockname`). FS binds its directory names to it, as
    /// HTCondor 24.0.22 and later do; without it FS names carry no address,
    /// which only clients before those versions accept.
    pub fn with_local_addr(mut self, local: Option<SocketAddr>) -> ServerConnection {
        self.local = local;
        self
    }

    /// What to send, in order.
    pub fn take_output(&mut self) -> Vec<Output> {
        std::mem::take(&mut self.output)
    }

    /// The peer's version, once a handshake gave it.
    pub fn peer_version(&self) -> Option<&Version> {
        self.peer_version.as_ref()
    }

    /// Whether the stream is encrypted once the queued output is applied.
    pub fn is_encrypted(&self) -> bool {
        self.encrypted
    }

    /// The authenticated user, if any.
    pub fn user(&self) -> Option<&str> {
        self.auth.as_ref().map(|a| a.user.as_str())
    }

    /// The peer went away.
    pub fn on_eof(&mut self) -> Step {
        self.closed = true;
        self.phase = Phase::Commands;
        Step::Close(CloseReason::Eof)
    }

    fn close(&mut self, reason: CloseReason) -> Result<Step> {
        self.closed = true;
        Ok(Step::Close(reason))
    }

    fn send_ad(&mut self, ad: &ClassAd) -> Result<()> {
        let mut enc = Encoder::new(self.encrypted);
        put_classad(&mut enc, ad, &PutOptions::default())?;
        self.output.push(Output::Message(enc.into_bytes()));
        Ok(())
    }

    fn send_int(&mut self, value: i64) {
        let mut enc = Encoder::new(self.encrypted);
        enc.put_int(value);
        self.output.push(Output::Message(enc.into_bytes()));
    }

    fn send_encoded(&mut self, build: impl FnOnce(&mut Encoder) -> Result<()>) -> Result<()> {
        let mut enc = Encoder::new(self.encrypted);
        build(&mut enc)?;
        self.output.push(Output::Message(enc.into_bytes()));
        Ok(())
    }

    fn start_crypto(&mut self, key: SessionKey) {
        if !self.encrypted {
            self.output.push(Output::StartCrypto(key));
            self.encrypted = true;
        }
    }

    /// Takes the next message the client sent.
    ///
    /// Errors (a message that does not decode, a bound exceeded) end the
    /// connection; nothing is queued for them.
    pub fn on_message(&mut self, message: Message) -> Result<Step> {
        if self.closed {
            return Err(Error::new(ErrorKind::Protocol, "message on a closed connection"));
        }
        if message.encrypted != self.encrypted {
            return Err(Error::new(ErrorKind::Protocol, "a message in the wrong encryption state"));
        }
        let result = match std::mem::replace(&mut self.phase, Phase::Commands) {
            Phase::Commands => self.command_message(&message),
            Phase::Methods(ns) => self.on_methods(ns, &message),
            Phase::ClaimToBe(ns) => self.on_claim(ns, &message),
            Phase::Fs(ns, dir) => self.on_fs_result(ns, dir, &message),
            Phase::TokenHello(ns) => self.on_token_hello(ns, &message),
            Phase::TokenConfirm(ns, server) => self.on_token_confirm(ns, *server, &message),
        };
        if result.is_err() {
            self.closed = true;
        }
        result
    }

    fn command_message(&mut self, message: &Message) -> Result<Step> {
        let mut dec = Decoder::new(&message.payload, message.encrypted);
        let command = dec.get_i32()?;
        if command != DC_AUTHENTICATE {
            return self.raw_command(command, dec.remaining().to_vec(), message.encrypted);
        }
        let ad = get_classad(&mut dec, &self.config.limits)?;
        dec.finish()?;
        self.authenticate(&ad)
    }

    /// The authorization decision for `reg` from this connection's peer,
    /// identity and limit.
    fn authorize(&self, reg: &Registration) -> Decision {
        let addr = self.peer.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        let mut peer = Peer::new(addr);
        if let Some(a) = &self.auth {
            peer = peer.with_user(&a.user);
            if let Some(l) = &a.limit {
                peer = peer.with_limit(l);
            }
        }
        self.config.authorizer.check_command(&peer, reg.perm, reg.alternates)
    }

    fn request(&self, command: i32, reg: &Registration, payload: Payload, via: Via) -> CommandRequest {
        CommandRequest {
            command,
            permission: reg.perm,
            payload,
            via,
            user: self.auth.as_ref().map(|a| a.user.clone()),
            method: self.auth.as_ref().map(|a| a.method.clone()),
            session: self.session.clone(),
            peer_version: self.peer_version.clone(),
            limit: self.auth.as_ref().and_then(|a| a.limit.clone()),
        }
    }

    fn raw_command(&mut self, command: i32, payload: Vec<u8>, encrypted: bool) -> Result<Step> {
        let Some(reg) = self.config.commands.get(command).copied() else {
            return self.close(CloseReason::UnknownCommand(command));
        };
        // An unauthenticated command is refused when our policy for its
        // level requires any security feature (daemon_command.cpp
        // 1430–1480).
        if self.auth.is_none() && reg.perm != Permission::Allow {
            let p = self.config.policies.for_level(reg.perm);
            if [p.negotiation, p.authentication, p.encryption, p.integrity].contains(&SecurityLevel::Required) {
                return self.close(CloseReason::Denied(
                    command,
                    format!("our policy for {} requires security, and the command is unauthenticated", reg.perm),
                ));
            }
        }
        if crate::command::is_nop(command) {
            return self.close(CloseReason::Nop);
        }
        let decision = self.authorize(&reg);
        if !decision.is_allowed() {
            return self.close(CloseReason::Denied(command, decision.reason().to_owned()));
        }
        Ok(Step::Command(self.request(command, &reg, Payload::Inline(payload, encrypted), Via::Raw)))
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
        let Some(reg) = self.config.commands.get(auth_command).copied() else {
            return self.close(CloseReason::UnknownCommand(auth_command));
        };
        if ad.lookup("Cookie").is_some() {
            // We hand out no cookies, so any cookie is invalid.
            return self.close(CloseReason::Denied(auth_command, "an unknown cookie".into()));
        }
        let announced = parse_peer_version(lookup_str(ad, "RemoteVersion").as_deref());
        if is_yes(ad, "UseSession") {
            return self.resume(ad, real, reg, announced);
        }
        self.new_session(ad, real, reg, announced)
    }

    fn resume(&mut self, ad: &ClassAd, real: i32, reg: Registration, announced: Option<Version>) -> Result<Step> {
        let Some(sid) = lookup_str(ad, "Sid") else {
            return Err(Error::new(ErrorKind::Protocol, "UseSession without a Sid"));
        };
        let resume_response = lookup_bool(ad, "ResumeResponse").unwrap_or(false);
        let found = {
            let mut cache = self.config.sessions.lock().map_err(|_| poisoned())?;
            cache.resume(&sid, Instant::now()).cloned()
        };
        let Some(session) = found else {
            if resume_response {
                let mut reply = ClassAd::new();
                reply.insert("ReturnCode", "SID_NOT_FOUND");
                self.send_ad(&reply)?;
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
            self.send_ad(&reply)?;
        }
        // The session's crypto goes on right after the reply (or at once
        // without one: the client's next packet is then its first encrypted
        // one, with a zero digest for the direction that carried nothing).
        if let (true, Some(key)) = (session.encrypted, session.key.clone()) {
            self.start_crypto(key);
        }
        // Pre-9.9.0 clients send no version when resuming; C++ then
        // records 9.8.0, which is "known but too old" for V2 attributes.
        self.peer_version = announced.or_else(|| session.peer_version.clone());
        self.auth = session.user.clone().map(|user| Authenticated {
            user,
            method: session.method.clone().unwrap_or_default(),
            limit: session.limit.clone(),
        });
        self.session = Some(session.id.clone());
        let decision = self.authorize(&reg);
        if !decision.is_allowed() {
            return self.close(CloseReason::Denied(reg.command, decision.reason().to_owned()));
        }
        self.dispatch(real, reg, Via::ResumedSession)
    }

    fn new_session(&mut self, ad: &ClassAd, real: i32, reg: Registration, announced: Option<Version>) -> Result<Step> {
        let ours = self.config.policies.for_level(reg.perm);
        let reconciled = match reconcile(&PolicyTerms::from_ad(ad), &ours.terms()) {
            Ok(r) => r,
            Err(e) => return self.close(CloseReason::Policy(e.message().to_owned())),
        };
        let new_session = is_yes(ad, "NewSession");
        let authenticate = reconciled.authentication && new_session;
        let mut response = ClassAd::new();
        reconciled.write_to(&mut response);
        let mut exchange = None;
        let mut peer_pubkey = None;
        if authenticate {
            // The first method of the list C++ knows (getCryptProtocolNameToEnum);
            // ours holds AES alone, so the shared list is AES or nothing.
            let list = reconciled.crypto_methods.clone().unwrap_or_default();
            if !crate::policy::tokens(&list).any(|m| m.eq_ignore_ascii_case("AES")) {
                return self.close(CloseReason::Policy(format!(
                    "no crypto method in common (the client offered {:?}; this server does AES only)",
                    lookup_str(ad, "CryptoMethods").unwrap_or_default()
                )));
            }
            let Some(theirs) = lookup_str(ad, "ECDHPublicKey") else {
                return self.close(CloseReason::Policy(
                    "the client sent no ECDHPublicKey (this server does not send session keys)".into(),
                ));
            };
            let kx = KeyExchange::generate();
            response.insert("ECDHPublicKey", kx.public_key_base64());
            response.insert("CryptoMethods", "AES");
            exchange = Some(kx);
            peer_pubkey = Some(theirs);
        } else {
            response.remove("CryptoMethods");
            if reconciled.encryption || reconciled.integrity {
                return self.close(CloseReason::Policy(
                    "encryption or integrity without authentication: there would be no key".into(),
                ));
            }
        }
        if let Some(td) = &self.config.trust_domain {
            response.insert("TrustDomain", td.as_str());
        }
        // IssuerKeys when our methods for this level include TOKEN
        // (UpdateAuthenticationMetadata, condor_secman.cpp 418-440);
        // ReconcileSecurityPolicyAds copies it and TrustDomain into the
        // response (938-943).
        if let (Some(tokens), true) = (&self.config.tokens, ours.auth_methods.contains(&AuthMethod::Token)) {
            let names = tokens.keys.key_names();
            if !names.is_empty() {
                response.insert("IssuerKeys", crate::token::key::issuer_keys_attr(&names));
            }
        }
        response.insert("NegotiatedSession", true);
        response.insert("RemoteVersion", self.config.version.as_str());
        if is_no(ad, "Enact") {
            self.send_ad(&response)?;
        }
        self.peer_version = announced.clone();
        let ns = Box::new(NewSession {
            real,
            reg,
            reconciled,
            new_session,
            exchange,
            peer_pubkey,
            announced,
            tried: false,
            rounds: 0,
        });
        if authenticate {
            // Authenticate(): an empty method list fails the request after
            // the response ad, required or not (daemon_command.cpp 1173–1177).
            let list = ns.reconciled.auth_methods_list.as_deref().unwrap_or("");
            if crate::policy::tokens(list).next().is_none() {
                return self.close(CloseReason::AuthenticationFailed(
                    "no authentication method in common (the reconciled AuthMethodsList is empty)".into(),
                ));
            }
            self.phase = Phase::Methods(ns);
            return Ok(Step::Continue);
        }
        self.finish_new_session(*ns, None)
    }

    /// Authorization, the post-auth ad, the session cache, then the command.
    fn finish_new_session(&mut self, ns: NewSession, key: Option<SessionKey>) -> Result<Step> {
        let decision = self.authorize(&ns.reg);
        let authorized = decision.is_allowed();
        if ns.new_session {
            let sid = format!(
                "{}:{}:{}:{}",
                self.config.hostname,
                std::process::id(),
                unix_now(),
                SESSION_COUNTER.fetch_add(1, Ordering::Relaxed) + 1
            );
            let valid = self.config.commands.valid_commands(ns.reg.perm);
            let mut post = ClassAd::new();
            // C++'s getFullyQualifiedUser() is never NULL: without
            // authentication it is "unauthenticated@unmapped" (sock.cpp
            // 2703), so User is always sent.
            post.insert("User", self.auth.as_ref().map(|a| a.user.as_str()).unwrap_or(UNAUTHENTICATED_USER));
            if ns.tried {
                post.insert("TriedAuthentication", true);
            }
            post.insert("Sid", sid.as_str());
            post.insert("ValidCommands", valid.as_str());
            post.insert("ReturnCode", if authorized { "AUTHORIZED" } else { "DENIED" });
            self.send_ad(&post)?;
            if !authorized {
                return self.close(CloseReason::Denied(ns.reg.command, decision.reason().to_owned()));
            }
            let now = Instant::now();
            let duration = Duration::from_secs(ns.reconciled.session_duration.max(0) as u64);
            let lease = ns.reconciled.session_lease.filter(|l| *l > 0).map(|l| Duration::from_secs(l as u64));
            let mut session = Session::new(sid.clone(), now, duration, lease);
            session.peer_version = ns.announced.clone();
            session.valid_commands = valid.split(',').filter_map(|c| c.parse().ok()).collect();
            session.user = self.auth.as_ref().map(|a| a.user.clone());
            session.method = self.auth.as_ref().map(|a| a.method.clone());
            session.limit = self.auth.as_ref().and_then(|a| a.limit.clone());
            session.encrypted = ns.reconciled.encryption && key.is_some();
            session.key = key;
            self.config.sessions.lock().map_err(|_| poisoned())?.insert(session, now);
            self.session = Some(sid);
        } else if !authorized {
            return self.close(CloseReason::Denied(ns.reg.command, decision.reason().to_owned()));
        }
        self.dispatch(ns.real, ns.reg, Via::NewSession)
    }

    fn dispatch(&mut self, real: i32, reg: Registration, via: Via) -> Result<Step> {
        match real {
            DC_AUTHENTICATE => self.close(CloseReason::Done),
            DC_SEC_QUERY => {
                let mut reply = ClassAd::new();
                reply.insert("AuthorizationSucceeded", true);
                self.send_ad(&reply)?;
                self.close(CloseReason::Done)
            }
            c if crate::command::is_nop(c) => self.close(CloseReason::Nop),
            _ => Ok(Step::Command(self.request(real, &reg, Payload::NextMessage, via))),
        }
    }
}

fn poisoned() -> Error {
    Error::new(ErrorKind::Protocol, "the session cache lock is poisoned")
}
