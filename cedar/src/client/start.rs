//! Starting a command, client side: `SecManStartCommand`
//! (condor_secman.cpp 1403–2625), sans-IO.
//!
//! A [`StartCommand`] is made for one command on a fresh connection. The
//! caller asks it what to do with [`StartCommand::poll`] — send a message,
//! read one and hand it to [`StartCommand::on_message`], or go ahead with
//! the command — until it says [`Step::Ready`] (or [`Step::Rejected`]).
//!
//! Three ways it goes, as in C++:
//!
//! * **raw**, when our `OutgoingNegotiation` is OPTIONAL or NEVER: nothing
//!   is exchanged; the command integer starts the payload's message
//!   ([`Started::raw`]);
//! * **a new session**: `int 60010` and our security ad (one message); the
//!   server's response ad; authentication when it says
//!   `Authentication = "YES"`; the key (ECDH); then the post-auth ad
//!   (`Sid`, `User`, `ValidCommands`, `ReturnCode`), and the session goes
//!   to the cache ([`Started::new_session`]);
//! * **a resumed session**: `int 60010` and the short resume ad
//!   (`UseSession`, `Sid`, `Command`, `ConnectSinful`, `Nonce`,
//!   `ResumeResponse`, `RemoteVersion`, and `AuthCommand`,
//!   `ServerCommandSock`, `CryptoMethods` when they apply); the server's
//!   answer when we asked for one (`AUTHORIZED`, or `SID_NOT_FOUND`: the
//!   command fails and the session is dropped, as C++ does).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use base64::Engine as _;
use classad::{ClassAd, Value};
use rand::RngCore as _;

use super::sessions::{ClientSession, MAX_COMMANDS_PER_SESSION};
use super::ClientConfig;
use crate::command::{DC_AUTHENTICATE, DC_SEC_QUERY};
use crate::crypto::{KeyExchange, SessionKey};
use crate::error::{Error, ErrorKind, Result};
use crate::handshake::Via;
use crate::policy::{choose_crypto_method, tokens, AuthMethod, SecurityLevel};
use crate::token::akep2::Client as TokenClient;
use crate::token::discovery::{find_token, tokens_in_text, TokenFilter};
use crate::token::jwt::Jwt;
use crate::token::key::FileCheck;
use crate::token::wire as token_wire;
use crate::version::{parse_peer_version, Version};
use crate::wire::ad::{get_classad, put_classad, PutOptions};
use crate::wire::{Decoder, Encoder, Message};

/// The longest session we keep on the client, whatever the server says:
/// ten years.
const MAX_SESSION_SECS: i64 = 10 * 365 * 86400;

/// What the caller does next.
#[derive(Debug)]
#[non_exhaustive]
pub enum Step {
    /// Send this payload as one message (unencrypted: it is the start of
    /// the connection).
    Send(Vec<u8>),
    /// Read the next message and give it to [`StartCommand::on_message`].
    Read,
    /// Turn AES-GCM on in both directions from the next message on, with
    /// this key ([`crate::wire::encryption::switch_on`]); then poll again.
    SwitchOn(SessionKey),
    /// The command may go: send its payload (prefixed with the command
    /// integer when [`Started::raw`]).
    Ready(Box<Started>),
    /// The server does not know the session we resumed
    /// (`ReturnCode = "SID_NOT_FOUND"`, condor_secman.cpp 2243–2257). C++
    /// drops the session and fails the command; the connection is over.
    /// The session id is given so the caller can drop it from its cache.
    Rejected(String),
}

/// A command that may go, and what the handshake established.
#[non_exhaustive]
pub struct Started {
    /// The command.
    pub command: i32,
    /// How it started.
    pub via: Via,
    /// The payload's message must begin with the command integer (raw
    /// commands: C++ writes the integer with no end-of-message after it).
    pub raw: bool,
    /// The session the command runs under.
    pub session_id: Option<String>,
    /// The server's version, when the handshake gave it (never for raw
    /// commands). It decides whether V2 private attributes may be sent.
    pub server_version: Option<Version>,
    /// Our name as the server sees us.
    pub my_remote_user: Option<String>,
    /// Whether the rest of the connection is encrypted.
    pub encryption: bool,
    /// The session key, when there is one.
    pub key: Option<SessionKey>,
    /// A session to cache, for a handshake that made one.
    pub new_session: Option<ClientSession>,
}

impl std::fmt::Debug for Started {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Started")
            .field("command", &self.command)
            .field("via", &self.via)
            .field("raw", &self.raw)
            .field("session_id", &self.session_id)
            .field("server_version", &self.server_version)
            .field("my_remote_user", &self.my_remote_user)
            .field("encryption", &self.encryption)
            .field("key", &self.key.as_ref().map(|_| "<secret>"))
            .field("new_session", &self.new_session)
            .finish()
    }
}

enum State {
    Begin,
    AwaitResponse,
    /// The server's `int` choice of method.
    AwaitMethod,
    /// CLAIMTOBE: the server's `int` result.
    AwaitClaimResult,
    /// FS: the path of the directory the server wants us to make.
    AwaitFsPath,
    /// FS: the server's `int` verdict on our directory.
    AwaitFsResult,
    /// TOKEN: the server's AKEP2 reply.
    AwaitTokenReply,
    /// `exchangeKey`: the server's `int` "has key".
    AwaitKeyFlag,
    AwaitResumeResponse,
    AwaitPostAuth,
    Ready,
    Done,
}

/// What a resumed session brings.
struct Resume {
    sid: String,
    key: Option<SessionKey>,
    encryption: bool,
    my_remote_user: Option<String>,
    server_version: Option<String>,
}

/// Authentication in progress.
struct Auth {
    /// The methods still to try, in the server's order.
    methods: Vec<AuthMethod>,
    /// A failed authentication fails the command (`AuthRequired`).
    required: bool,
    /// The token to offer, when TOKEN is among the methods.
    token: Option<Jwt>,
    /// The AKEP2 exchange under way.
    token_client: Option<TokenClient>,
    /// The method being tried.
    trying: Option<AuthMethod>,
    /// Rounds of the method loop so far.
    rounds: u32,
    /// FS: the directory we made, removed once the server has answered
    /// (or when the handshake is dropped).
    fs_dir: Option<FsDir>,
}

/// The longest FS path taken from a server (Linux's `PATH_MAX`).
const MAX_FS_PATH: usize = 4096;

/// A directory made for the FS method, removed when dropped.
struct FsDir(std::path::PathBuf);

impl FsDir {
    /// `mkdir(path, 0700)`, as C++'s client does for the path the server
    /// sent; only absolute paths are taken.
    #[cfg(unix)]
    fn make(path: &str) -> std::io::Result<FsDir> {
        use std::os::unix::fs::DirBuilderExt as _;
        let path = std::path::PathBuf::from(path);
        if !path.is_absolute() {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not an absolute path"));
        }
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        Ok(FsDir(path))
    }

    #[cfg(not(unix))]
    fn make(_path: &str) -> std::io::Result<FsDir> {
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "FS needs Unix"))
    }
}

impl Drop for FsDir {
    fn drop(&mut self) {
        // rmdir: only ever the empty directory we made.
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// The most rounds of the method loop (each drops a method).
const MAX_AUTH_ROUNDS: u32 = 16;

/// The terms of a new session, from the server's response ad.
#[derive(Default)]
struct Terms {
    encryption: bool,
    key: Option<SessionKey>,
    auth_method: Option<String>,
    duration: Option<i64>,
    lease: i64,
    server_version: Option<String>,
    ecdh_peer: Option<String>,
    crypto: String,
}

/// The client side of starting one command (see the [module](self) docs).
pub struct StartCommand {
    config: ClientConfig,
    command: i32,
    auth_command: Option<i32>,
    connect_addr: String,
    state: State,
    resume: Option<Resume>,
    key_exchange: Option<KeyExchange>,
    terms: Terms,
    started: Option<Box<Started>>,
    outgoing: VecDeque<Vec<u8>>,
    switch_on: Option<SessionKey>,
    auth: Option<Auth>,
    encryption: bool,
    peer: Option<std::net::SocketAddr>,
}

impl std::fmt::Debug for StartCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartCommand")
            .field("command", &self.command)
            .field("connect_addr", &self.connect_addr)
            .field("resume", &self.resume.as_ref().map(|r| r.sid.as_str()))
            .finish()
    }
}

fn string(ad: &ClassAd, name: &str) -> Option<String> {
    ad.eval_attr(name).as_str().map(str::to_owned)
}

fn yes(ad: &ClassAd, name: &str) -> Option<bool> {
    let v = string(ad, name)?;
    match v.as_bytes().first() {
        Some(b'Y' | b'y') => Some(true),
        Some(b'N' | b'n') => Some(false),
        _ => None,
    }
}

/// C's `atoi` over a duration string, clamped to what the client keeps.
fn seconds(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = (v * 10 + i64::from(b - b'0')).min(MAX_SESSION_SECS);
    }
    if neg {
        0
    } else {
        v
    }
}

fn protocol(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Protocol, message)
}

impl StartCommand {
    /// Starts `command` to the server at `connect_addr` (the sinful string
    /// we connected to, sent as `ConnectSinful` and the key of the session
    /// cache), resuming `cached` if given.
    pub fn new(
        config: &ClientConfig,
        connect_addr: &str,
        command: i32,
        cached: Option<&ClientSession>,
    ) -> StartCommand {
        let resume = cached.map(|s| Resume {
            sid: s.id.clone(),
            key: s.key.clone(),
            encryption: s.encryption,
            my_remote_user: s.my_remote_user.clone(),
            server_version: s.server_version.clone(),
        });
        StartCommand {
            config: config.clone(),
            command,
            auth_command: None,
            connect_addr: connect_addr.to_owned(),
            state: State::Begin,
            resume,
            key_exchange: None,
            terms: Terms::default(),
            started: None,
            outgoing: VecDeque::new(),
            switch_on: None,
            auth: None,
            encryption: false,
            peer: None,
        }
    }

    /// The same start, knowing the server's address as our socket sees it
    /// (`getpeername`). FS then binds the server's directory name to it,
    /// as HTCondor 24.0.22 and later clients do: a name ending in `_` gets
    /// that address appended (and the shared-port id of the address we
    /// connected to, if any), which we tell the server; any other name
    /// must start with `FS_<ip>_<port>_`. Without it, FS takes the name as
    /// sent, as 23.x does.
    pub fn with_peer_addr(mut self, peer: Option<std::net::SocketAddr>) -> StartCommand {
        self.peer = peer;
        self
    }

    /// The command whose permission level a `DC_AUTHENTICATE` or
    /// `DC_SEC_QUERY` asks about (`AuthCommand`).
    pub fn with_auth_command(mut self, command: i32) -> StartCommand {
        self.auth_command = Some(command);
        self
    }

    /// Whether this start sends the command raw (no handshake): our
    /// `OutgoingNegotiation` is OPTIONAL or NEVER (`sec_req_to_feat_act`).
    pub fn is_raw(&self) -> bool {
        matches!(self.config.policy.negotiation, SecurityLevel::Optional | SecurityLevel::Never)
    }

    /// What to do next.
    pub fn poll(&mut self) -> Result<Step> {
        if let Some(message) = self.outgoing.pop_front() {
            return Ok(Step::Send(message));
        }
        if let Some(key) = self.switch_on.take() {
            return Ok(Step::SwitchOn(key));
        }
        match self.state {
            State::Begin => self.begin(),
            State::AwaitResponse
            | State::AwaitMethod
            | State::AwaitClaimResult
            | State::AwaitFsPath
            | State::AwaitFsResult
            | State::AwaitTokenReply
            | State::AwaitKeyFlag
            | State::AwaitResumeResponse
            | State::AwaitPostAuth => Ok(Step::Read),
            State::Ready => {
                self.state = State::Done;
                self.started.take().map(Step::Ready).ok_or_else(|| protocol("the command was already started"))
            }
            State::Done => Err(protocol("the command was already started")),
        }
    }

    fn begin(&mut self) -> Result<Step> {
        if self.is_raw() {
            self.ready(Started {
                command: self.command,
                via: Via::Raw,
                raw: true,
                session_id: None,
                server_version: None,
                my_remote_user: None,
                encryption: false,
                key: None,
                new_session: None,
            });
            return self.poll();
        }
        let ad = match &self.resume {
            Some(_) => self.resume_ad(),
            None => self.new_session_ad(),
        };
        let mut enc = Encoder::new(false);
        enc.put_int(i64::from(DC_AUTHENTICATE));
        put_classad(&mut enc, &ad, &PutOptions::default())?;
        match &self.resume {
            Some(r) if !self.want_resume_response(r) => {
                // No answer comes: the command goes after this message.
                let started = self.resumed_started(None);
                self.switch_for_resume();
                self.ready(started);
            }
            Some(_) => self.state = State::AwaitResumeResponse,
            None => self.state = State::AwaitResponse,
        }
        Ok(Step::Send(enc.into_bytes()))
    }

    fn ready(&mut self, started: Started) {
        self.started = Some(Box::new(started));
        self.state = State::Ready;
    }

    /// `m_want_resume_response`: asked for unless configured off, and only
    /// of a server known to be 9.9.0 or later (condor_secman.cpp 1500–1540).
    fn want_resume_response(&self, r: &Resume) -> bool {
        self.config.resume_response
            && parse_peer_version(r.server_version.as_deref()).is_some_and(|v| v.built_since(9, 9, 0))
    }

    /// `AuthCommand` goes with `DC_AUTHENTICATE` and `DC_SEC_QUERY`.
    fn auth_command(&self) -> Option<i32> {
        (self.command == DC_AUTHENTICATE || self.command == DC_SEC_QUERY).then(|| self.auth_command.unwrap_or(0))
    }

    fn common_attrs(&self, ad: &mut ClassAd) {
        ad.insert("RemoteVersion", self.config.version.as_str());
        if let Some(sock) = &self.config.command_sock {
            ad.insert("ServerCommandSock", sock.as_str());
        }
        ad.insert("ConnectSinful", self.connect_addr.as_str());
        ad.insert("Command", i64::from(self.command));
        if let Some(sub) = self.auth_command() {
            ad.insert("AuthCommand", i64::from(sub));
        }
    }

    /// The security ad of a new session, as a 23.9.6 client fills it
    /// (`FillInSecurityPolicyAd`, `UpdateAuthenticationMetadata`,
    /// `PopulateKeyExchange`, condor_secman.cpp 418–640, 1585–1620,
    /// 1732–1750).
    fn new_session_ad(&mut self) -> ClassAd {
        let mut ad = ClassAd::new();
        // OutgoingNegotiation, Authentication, Encryption, Integrity,
        // AuthMethods, CryptoMethods, SessionDuration, SessionLease, Enact.
        self.config.policy.write_to(&mut ad);
        if !self.config.policy.auth_methods.is_empty() {
            // TrustDomain goes with a non-empty method list.
            if let Some(td) = &self.config.trust_domain {
                ad.insert("TrustDomain", td.as_str());
            }
        }
        ad.insert("Subsystem", self.config.subsystem.as_str());
        if let Some(id) = &self.config.parent_unique_id {
            ad.insert("ParentUniqueID", id.as_str());
        }
        ad.insert("ServerPid", i64::from(self.config.pid));
        let kx = KeyExchange::generate();
        ad.insert("ECDHPublicKey", kx.public_key_base64());
        self.key_exchange = Some(kx);
        ad.insert("NewSession", "YES");
        ad.insert("NegotiatedSession", true);
        self.common_attrs(&mut ad);
        ad
    }

    /// The resume ad, as C++ projects it (`m_resume_proj`,
    /// condor_secman.cpp 3263–3275).
    fn resume_ad(&self) -> ClassAd {
        let mut ad = ClassAd::new();
        let Some(r) = &self.resume else { return ad };
        ad.insert("UseSession", "YES");
        ad.insert("Sid", r.sid.as_str());
        if r.key.is_some() {
            ad.insert("CryptoMethods", "AES");
        }
        // TCP always says whether it wants an answer.
        ad.insert("ResumeResponse", self.want_resume_response(r));
        let mut nonce = [0u8; 33];
        rand::thread_rng().fill_bytes(&mut nonce);
        ad.insert("Nonce", base64::engine::general_purpose::STANDARD.encode(nonce));
        self.common_attrs(&mut ad);
        ad
    }

    fn resumed_started(&self, server_version: Option<String>) -> Started {
        let r = self.resume.as_ref();
        let version = server_version.or_else(|| r.and_then(|r| r.server_version.clone()));
        Started {
            command: self.command,
            via: Via::ResumedSession,
            raw: false,
            session_id: r.map(|r| r.sid.clone()),
            server_version: parse_peer_version(version.as_deref()),
            my_remote_user: r.and_then(|r| r.my_remote_user.clone()),
            encryption: r.is_some_and(|r| r.encryption),
            key: r.and_then(|r| r.key.clone()),
            new_session: None,
        }
    }

    /// Takes the message the last [`Step::Read`] asked for.
    pub fn on_message(&mut self, message: Message) -> Result<Step> {
        if matches!(
            self.state,
            State::AwaitMethod
                | State::AwaitClaimResult
                | State::AwaitFsPath
                | State::AwaitFsResult
                | State::AwaitTokenReply
                | State::AwaitKeyFlag
        ) {
            let r = self.on_auth_message(&message);
            if r.is_err() {
                self.state = State::Done;
            }
            r?;
            return self.poll();
        }
        let mut dec = Decoder::new(&message.payload, message.encrypted);
        let ad = get_classad(&mut dec, &self.config.limits)?;
        dec.finish()?;
        match self.state {
            State::AwaitResponse => self.on_response(&ad)?,
            State::AwaitResumeResponse => {
                let rc = string(&ad, "ReturnCode").unwrap_or_default();
                if rc == "SID_NOT_FOUND" {
                    self.state = State::Done;
                    let sid = self.resume.as_ref().map(|r| r.sid.clone()).unwrap_or_default();
                    return Ok(Step::Rejected(sid));
                }
                if !rc.is_empty() && rc != "AUTHORIZED" {
                    self.state = State::Done;
                    return Err(Error::new(ErrorKind::Denied, format!("Received \"{rc}\" from server")));
                }
                let started = self.resumed_started(string(&ad, "RemoteVersion"));
                self.switch_for_resume();
                self.ready(started);
            }
            State::AwaitPostAuth => self.on_post_auth(&ad)?,
            _ => return Err(protocol("no message was expected")),
        }
        self.poll()
    }

    /// A resumed session with a key and encryption turns AES-GCM on after
    /// the resume ad and its answer (`authenticate_inner_finish`).
    fn switch_for_resume(&mut self) {
        if let Some(r) = &self.resume {
            if r.encryption {
                self.switch_on = r.key.clone();
            }
        }
    }

    /// The server's response ad (`receiveAuthInfo_inner`, `authenticate_inner`
    /// and `authenticate_inner_finish`, condor_secman.cpp 1985–2110,
    /// 2125–2200, 2306–2395).
    fn on_response(&mut self, ad: &ClassAd) -> Result<()> {
        self.state = State::Done;
        let policy = &self.config.policy;
        let mut actions = [false; 3];
        for (i, (name, ours)) in [
            ("Authentication", policy.authentication),
            ("Encryption", policy.encryption),
            ("Integrity", policy.integrity),
        ]
        .into_iter()
        .enumerate()
        {
            let Some(theirs) = yes(ad, name) else {
                return Err(protocol("Protocol Error: Action attribute missing."));
            };
            // Stricter than C++, which does as the server says: the server
            // may not switch off what we require, nor on what we refuse.
            if (theirs && ours == SecurityLevel::Never) || (!theirs && ours == SecurityLevel::Required) {
                return Err(Error::new(
                    ErrorKind::Policy,
                    format!("the server answered {name} = {} against our {ours}", if theirs { "YES" } else { "NO" }),
                ));
            }
            actions[i] = theirs;
        }
        let [authentication, encryption, _integrity] = actions;
        let crypto = string(ad, "CryptoMethods").unwrap_or_default();
        if encryption {
            choose_crypto_method(&crypto)?;
        }
        self.terms.encryption = encryption;
        self.terms.ecdh_peer = string(ad, "ECDHPublicKey").filter(|k| !k.is_empty());
        self.terms.crypto = crypto;
        self.terms.duration = string(ad, "SessionDuration")
            .or_else(|| Some(self.config.policy.session_duration.to_string()))
            .filter(|d| !d.is_empty())
            .map(|d| seconds(&d));
        self.terms.lease = match ad.eval_attr("SessionLease") {
            Value::Int(i) => i.clamp(0, MAX_SESSION_SECS),
            _ => self.config.policy.session_lease.clamp(0, MAX_SESSION_SECS),
        };
        self.terms.server_version = string(ad, "RemoteVersion");
        if authentication {
            let methods = string(ad, "AuthMethodsList")
                .filter(|m| !m.is_empty())
                .or_else(|| string(ad, "AuthMethods"))
                .unwrap_or_default();
            if methods.is_empty() {
                return Err(protocol("Protocol Error: No auth methods."));
            }
            let required = match ad.eval_attr("AuthRequired") {
                Value::Bool(b) => b,
                Value::Int(i) => i != 0,
                _ => true,
            };
            let trust_domain = string(ad, "TrustDomain");
            let issuer_keys: Vec<String> =
                string(ad, "IssuerKeys").map(|k| tokens(&k).map(str::to_owned).collect()).unwrap_or_default();
            let mut token = None;
            let mut list = Vec::new();
            for m in tokens(&methods).filter_map(AuthMethod::parse) {
                match m {
                    AuthMethod::Claimtobe if self.config.policy.auth_methods.contains(&m) => list.push(m),
                    AuthMethod::Fs if cfg!(unix) && self.config.policy.auth_methods.contains(&m) => list.push(m),
                    AuthMethod::Token if self.config.policy.auth_methods.contains(&m) => {
                        // C++ offers TOKEN only with a token the server
                        // can check (its TrustDomain and IssuerKeys).
                        token = self.find_token(trust_domain.as_deref(), &issuer_keys);
                        if token.is_some() {
                            list.push(m);
                        }
                    }
                    _ => {}
                }
            }
            self.auth = Some(Auth {
                methods: list,
                required,
                token,
                token_client: None,
                trying: None,
                rounds: 0,
                fs_dir: None,
            });
            self.send_bitmask()?;
            self.state = State::AwaitMethod;
            return Ok(());
        }
        self.finish_auth()
    }

    /// The token to offer: the configured ones first, then the token
    /// directories, in order.
    fn find_token(&self, trust_domain: Option<&str>, issuer_keys: &[String]) -> Option<Jwt> {
        let filter = TokenFilter::new(trust_domain, issuer_keys);
        for text in &self.config.tokens {
            if let Some(t) = tokens_in_text(text.as_bytes(), &filter).next() {
                return Some(t);
            }
        }
        for dir in &self.config.token_dirs {
            if let Ok(Some(t)) = find_token(dir, Some(&self.config.subsystem), &filter, FileCheck::none()) {
                return Some(t);
            }
        }
        None
    }

    fn send_int(&mut self, value: i64) {
        let mut enc = Encoder::new(self.encryption);
        enc.put_int(value);
        self.outgoing.push_back(enc.into_bytes());
    }

    /// `Authentication::handshake`, client side: the bitmask of the
    /// methods left to try (condor_auth.h's `CAUTH_*` bits).
    fn send_bitmask(&mut self) -> Result<()> {
        let auth = self.auth.as_mut().ok_or_else(|| protocol("no authentication in progress"))?;
        auth.rounds += 1;
        if auth.rounds > MAX_AUTH_ROUNDS {
            return Err(Error::new(ErrorKind::Authentication, "too many authentication rounds"));
        }
        let mask = auth.methods.iter().fold(0u32, |m, a| m | a.bit());
        self.send_int(i64::from(mask));
        Ok(())
    }

    fn on_auth_message(&mut self, message: &Message) -> Result<()> {
        let mut dec = Decoder::new(&message.payload, message.encrypted);
        match self.state {
            State::AwaitMethod => {
                let chosen = dec.get_int()?;
                dec.finish()?;
                let auth = self.auth.as_mut().ok_or_else(|| protocol("no authentication in progress"))?;
                let method = u32::try_from(chosen)
                    .ok()
                    .and_then(AuthMethod::from_bit)
                    .filter(|m| chosen != 0 && auth.methods.contains(m));
                let Some(method) = method else {
                    if chosen != 0 {
                        return Err(protocol(format!("the server chose method {chosen}, which we did not offer")));
                    }
                    // CAUTH_NONE: "Failed to authenticate with any method".
                    if auth.required {
                        return Err(Error::new(ErrorKind::Authentication, "Failed to authenticate with any method"));
                    }
                    self.auth = None;
                    return self.finish_auth();
                };
                auth.trying = Some(method);
                match method {
                    AuthMethod::Claimtobe => {
                        let mut enc = Encoder::new(self.encryption);
                        match self.config.claim_to_be_user.as_deref() {
                            Some(name) => {
                                enc.put_int(1);
                                enc.put_str(name)?;
                            }
                            None => enc.put_int(0),
                        }
                        self.outgoing.push_back(enc.into_bytes());
                        if self.config.claim_to_be_user.is_none() {
                            return self.method_failed();
                        }
                        self.state = State::AwaitClaimResult;
                    }
                    AuthMethod::Fs => self.state = State::AwaitFsPath,
                    _ => {
                        let (client, hello) = match &auth.token {
                            Some(t) => TokenClient::start(t),
                            None => TokenClient::failed(Error::new(ErrorKind::Authentication, "no token")),
                        };
                        auth.token_client = Some(client);
                        let mut enc = Encoder::new(self.encryption);
                        token_wire::put_client_hello(&mut enc, &hello)?;
                        self.outgoing.push_back(enc.into_bytes());
                        self.state = State::AwaitTokenReply;
                    }
                }
                Ok(())
            }
            State::AwaitClaimResult => {
                let result = dec.get_int()?;
                dec.finish()?;
                if result == 1 {
                    self.method_succeeded()
                } else {
                    self.method_failed()
                }
            }
            State::AwaitFsPath => {
                let mut dec = Decoder::new(&message.payload, message.encrypted).with_max_string(MAX_FS_PATH);
                let path = dec.get_string()?;
                dec.finish()?;
                let (path, ext) = self.fs_binding(path);
                let auth = self.auth.as_mut().ok_or_else(|| protocol("no authentication in progress"))?;
                // No path: the server could not make a name, or it is not
                // bound to the server we reach.
                auth.fs_dir = path.and_then(|p| FsDir::make(&p).ok());
                let result = if auth.fs_dir.is_some() { 0 } else { -1 };
                let mut enc = Encoder::new(self.encryption);
                enc.put_int(result);
                if !ext.is_empty() {
                    enc.put_str(&ext)?;
                }
                self.outgoing.push_back(enc.into_bytes());
                self.state = State::AwaitFsResult;
                Ok(())
            }
            State::AwaitFsResult => {
                let result = dec.get_int()?;
                dec.finish()?;
                let auth = self.auth.as_mut().ok_or_else(|| protocol("no authentication in progress"))?;
                let made = auth.fs_dir.take().is_some();
                if result == 0 && made {
                    self.method_succeeded()
                } else {
                    self.method_failed()
                }
            }
            State::AwaitTokenReply => {
                let reply = token_wire::get_server_reply(&mut dec)?;
                dec.finish()?;
                let auth = self.auth.as_mut().ok_or_else(|| protocol("no authentication in progress"))?;
                let client = auth.token_client.take().ok_or_else(|| protocol("no token exchange in progress"))?;
                let (confirm, outcome) = client.receive_reply(&reply);
                let mut enc = Encoder::new(self.encryption);
                token_wire::put_client_confirm(&mut enc, &confirm)?;
                self.outgoing.push_back(enc.into_bytes());
                match outcome {
                    Ok(_) => self.method_succeeded(),
                    Err(_) => self.method_failed(),
                }
            }
            State::AwaitKeyFlag => {
                let has_key = dec.get_int()?;
                dec.finish()?;
                if has_key != 0 {
                    // Pre-ECDH key wrapping (authentication.cpp 876–968):
                    // no 23.9 server sends a key when ECDH is in play.
                    return Err(protocol("the server sent a wrapped key; only ECDH keys are supported"));
                }
                self.finish_auth()
            }
            _ => Err(protocol("no message was expected")),
        }
    }

    /// FS channel binding (see [`StartCommand::with_peer_addr`]): the path
    /// to make (`None`: none) and the extension to tell the server.
    fn fs_binding(&self, path: String) -> (Option<String>, String) {
        if path.is_empty() {
            return (None, String::new());
        }
        let Some(peer) = self.peer.filter(|_| self.config.fs_channel_binding) else {
            return (Some(path), String::new());
        };
        if path.ends_with('_') {
            let mut ext = std::net::SocketAddr::new(peer.ip().to_canonical(), peer.port()).to_string();
            let sock = self.connect_addr.parse::<crate::sinful::Sinful>().ok();
            if let Some(id) = sock.as_ref().and_then(|s| s.shared_port_id()) {
                ext.push_str("?sock=");
                ext.push_str(id);
            }
            return (Some(format!("{path}{ext}")), ext);
        }
        let prefix = format!("FS_{}_{}_", peer.ip().to_canonical(), peer.port());
        let base = path.rsplit('/').next().unwrap_or("");
        if base.starts_with(&prefix) {
            (Some(path), String::new())
        } else {
            (None, String::new())
        }
    }

    fn method_succeeded(&mut self) -> Result<()> {
        let auth = self.auth.as_ref().ok_or_else(|| protocol("no authentication in progress"))?;
        self.terms.auth_method = auth.trying.map(|m| m.as_str().to_owned());
        // exchangeKey: the server says whether a key follows.
        self.state = State::AwaitKeyFlag;
        Ok(())
    }

    /// A method failed: C++ drops it and sends the next bitmask.
    fn method_failed(&mut self) -> Result<()> {
        let auth = self.auth.as_mut().ok_or_else(|| protocol("no authentication in progress"))?;
        if let Some(m) = auth.trying.take() {
            auth.methods.retain(|x| *x != m);
        }
        self.send_bitmask()?;
        self.state = State::AwaitMethod;
        Ok(())
    }

    /// `authenticate_inner_finish`: the ECDH key, and encryption on.
    fn finish_auth(&mut self) -> Result<()> {
        if let Some(pubkey) = self.terms.ecdh_peer.take() {
            if self.terms.crypto.is_empty() {
                return Err(Error::new(ErrorKind::Policy, "No crypto methods enabled for the session"));
            }
            let kx = self.key_exchange.take().ok_or_else(|| protocol("no key exchange in progress"))?;
            self.terms.key = Some(kx.finish(&pubkey)?);
        }
        if self.terms.encryption {
            let Some(key) = self.terms.key.clone() else {
                return Err(Error::new(ErrorKind::Crypto, "Failed to establish a crypto key."));
            };
            self.switch_on = Some(key);
            self.encryption = true;
        }
        self.state = State::AwaitPostAuth;
        Ok(())
    }

    /// The post-auth ad (`receivePostAuthInfo_inner`, condor_secman.cpp
    /// 2400–2625).
    fn on_post_auth(&mut self, ad: &ClassAd) -> Result<()> {
        self.state = State::Done;
        let rc = string(ad, "ReturnCode").unwrap_or_default();
        if !rc.is_empty() && rc != "AUTHORIZED" {
            let user = string(ad, "User").unwrap_or_default();
            let method = self.terms.auth_method.as_deref();
            let message = match method {
                None => format!(
                    "Received \"{rc}\" from server for user {user} using no authentication method, which may imply \
                     host-based security. Check your ALLOW settings and IP protocols."
                ),
                Some(m) => format!("Received \"{rc}\" from server for user {user} using method {m}."),
            };
            return Err(Error::new(ErrorKind::Denied, message));
        }
        let sid =
            string(ad, "Sid").filter(|s| !s.is_empty()).ok_or_else(|| protocol("Failed to lookup session id."))?;
        let commands = string(ad, "ValidCommands")
            .filter(|s| !s.is_empty())
            .ok_or_else(|| protocol("Protocol Failure: Unable to lookup valid commands."))?;
        let valid_commands: Vec<i32> =
            crate::policy::tokens(&commands).filter_map(|c| c.parse().ok()).take(MAX_COMMANDS_PER_SESSION).collect();
        let now = Instant::now();
        let user = string(ad, "User");
        let session = ClientSession {
            id: sid.clone(),
            connect_addr: self.connect_addr.clone(),
            server_version: self.terms.server_version.clone(),
            my_remote_user: user.clone(),
            auth_method: self.terms.auth_method.clone(),
            encryption: self.terms.encryption,
            key: self.terms.key.clone(),
            valid_commands,
            expires: self.terms.duration.and_then(|d| now.checked_add(Duration::from_secs(d as u64))),
            lease: (self.terms.lease > 0).then(|| Duration::from_secs(self.terms.lease as u64)),
            last_used: now,
        };
        let key = self.terms.key.take();
        self.ready(Started {
            command: self.command,
            via: Via::NewSession,
            raw: false,
            session_id: Some(sid),
            server_version: parse_peer_version(self.terms.server_version.as_deref()),
            my_remote_user: user,
            encryption: self.terms.encryption,
            key,
            new_session: Some(session),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_like_atoi() {
        assert_eq!(seconds("60"), 60);
        assert_eq!(seconds(" 86400x"), 86400);
        assert_eq!(seconds("-5"), 0);
        assert_eq!(seconds("junk"), 0);
        assert_eq!(seconds("99999999999999999999999"), MAX_SESSION_SECS);
    }
}
