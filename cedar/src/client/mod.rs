//! The client side of CEDAR's command protocol: what a C++ tool or daemon
//! does when it sends a command (`Daemon::startCommand`,
//! `SecManStartCommand`, condor_secman.cpp), and a small collector client
//! on top.
//!
//! * [`start`]: the handshake of one command, sans-IO ([`StartCommand`]):
//!   raw commands, new sessions (our security ad, the server's response,
//!   the post-auth ad) and resumed ones (`UseSession`, `SID_NOT_FOUND`);
//! * [`sessions`]: the client's session cache, keyed by `(connect
//!   address, command)` as C++'s `command_map` is;
//! * [`shared_port`]: the `SHARED_PORT_CONNECT` message that reaches a
//!   daemon behind `condor_shared_port` (`sock=` in its address);
//! * [`blocking`]: all of it on `std::net::TcpStream`, with a timeout on
//!   every read and write ([`Client`], [`ClientConnection`]);
//! * [`collector`]: queries, updates and invalidations
//!   ([`CollectorClient`]).
//!
//! ```no_run
//! use cedar::client::{Client, ClientConfig, CollectorClient, Query};
//! let client = Client::new(ClientConfig::default());
//! let collector = CollectorClient::new(client, "<127.0.0.1:9618>".parse()?);
//! for ad in collector.query(&Query::startd().constraint("Cpus > 1")?.projection(["Name", "Cpus"]))? {
//!     println!("{}", ad.display(classad::Syntax::Old));
//! }
//! # Ok::<(), cedar::Error>(())
//! ```
//!
//! Security: the default policy ([`ClientConfig::default`], mode M0) is a
//! client that can authenticate with no method, so it offers
//! `Authentication`, `Encryption` and `Integrity` = `NEVER`, as a C++ client
//! with no usable method does; a server that requires any of them refuses
//! it. [`ClientConfig::authenticated`] authenticates with CLAIMTOBE (mode
//! M1), FS (a directory the server names, made with mode 0700 and removed
//! once the server has looked at it; Unix only) or TOKEN/IDTOKENS (mode
//! M2), derives the session key by ECDH and encrypts the rest of the
//! connection with AES-GCM.

pub mod blocking;
pub mod collector;
pub mod sessions;
pub mod shared_port;
pub mod start;

use std::time::Duration;

use crate::authz::Permission;
use crate::policy::{AuthMethod, PolicyConfig, SecurityLevel, SecurityPolicy};
use crate::version::OUR_VERSION;
use crate::wire::ad::AdLimits;

pub use blocking::{Client, ClientConnection};
pub use collector::{CollectorClient, Query};
pub use sessions::{ClientSession, ClientSessionCache};
pub use start::{StartCommand, Started, Step};

/// Who the client is and how it secures its commands.
#[derive(Clone)]
#[non_exhaustive]
pub struct ClientConfig {
    /// Our policy at the CLIENT level (`SEC_CLIENT_*`).
    pub policy: SecurityPolicy,
    /// `Subsystem` (C++ tools say `TOOL`).
    pub subsystem: String,
    /// `RemoteVersion`.
    pub version: String,
    /// `ServerPid`.
    pub pid: u32,
    /// `ParentUniqueID`, for a daemon started by a master.
    pub parent_unique_id: Option<String>,
    /// `TRUST_DOMAIN`, sent as `TrustDomain` when we offer a method.
    pub trust_domain: Option<String>,
    /// Our command socket's sinful string, for a daemon
    /// (`ServerCommandSock`); tools have none.
    pub command_sock: Option<String>,
    /// Ask the server to answer a resumed session
    /// (`SEC_ENABLE_RESUME_SERVER_RESPONSE`, default true).
    pub resume_response: bool,
    /// Start again with a new session, once, when the server has forgotten
    /// ours (`SID_NOT_FOUND`). C++ does not: it fails that command and the
    /// next one makes a new session. Default false.
    pub retry_rejected_session: bool,
    /// The name CLAIMTOBE claims (`SEC_CLAIMTOBE_USER`, else the user we
    /// run as: `$USER` or `$LOGNAME` by default). `None`: CLAIMTOBE fails,
    /// as C++'s does without a name.
    pub claim_to_be_user: Option<String>,
    /// FS binds the server's directory name to the server's address
    /// (`SEC_FS_ENFORCE_CHANNEL_BINDING`, default true, as in HTCondor
    /// 24.0.22 and later; see [`StartCommand::with_peer_addr`]). False takes
    /// the name as sent, as 23.x clients do (needed for 23.x servers, whose
    /// names carry no address).
    pub fs_channel_binding: bool,
    /// Tokens to offer for TOKEN/IDTOKENS, as text (one or more JWTs, one
    /// a line, as in a token file), tried before `token_dirs`.
    pub tokens: Vec<String>,
    /// Token directories (`SEC_TOKEN_DIRECTORY`, then
    /// `SEC_TOKEN_SYSTEM_DIRECTORY`), searched as HTCondor's client does
    /// ([`crate::token::discovery`]).
    pub token_dirs: Vec<std::path::PathBuf>,
    /// The timeout of the connect and of every read and write.
    pub timeout: Duration,
    /// The largest message read (a query's whole reply is one message).
    pub max_message: usize,
    /// Bounds on the ads read.
    pub limits: AdLimits,
}

impl Default for ClientConfig {
    /// A tool at mode M0: HTCondor's defaults for a client with no
    /// authentication method (authentication, encryption and integrity
    /// NEVER, negotiation PREFERRED, crypto AES, 60-second sessions with a
    /// 3600-second lease), `Subsystem = "TOOL"`, a 20-second timeout (the
    /// C++ tools' usual).
    fn default() -> Self {
        ClientConfig::from_policy(m0_policy())
    }
}

fn m0_policy() -> SecurityPolicy {
    let config = PolicyConfig::tool(Permission::Client).with_supported_auth_methods(&[]);
    SecurityPolicy::from_config(&config, |_| None).unwrap_or_else(|_| {
        // Unreachable with no knobs; the same answer by hand.
        SecurityPolicy {
            authentication: SecurityLevel::Never,
            encryption: SecurityLevel::Never,
            integrity: SecurityLevel::Never,
            auth_methods: Vec::new(),
            session_duration: 60,
            ..SecurityPolicy::default()
        }
    })
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Tokens are secrets: only their number shows.
        f.debug_struct("ClientConfig")
            .field("policy", &self.policy)
            .field("subsystem", &self.subsystem)
            .field("version", &self.version)
            .field("trust_domain", &self.trust_domain)
            .field("command_sock", &self.command_sock)
            .field("claim_to_be_user", &self.claim_to_be_user)
            .field("tokens", &self.tokens.len())
            .field("token_dirs", &self.token_dirs)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl ClientConfig {
    /// A client that authenticates with `methods` (in our order of
    /// preference; CLAIMTOBE, FS (on Unix) and TOKEN are implemented), with
    /// authentication REQUIRED, encryption and integrity OPTIONAL (the AES
    /// rule turns both on once authenticated) and crypto AES: what a C++
    /// tool sends with `SEC_CLIENT_AUTHENTICATION = REQUIRED` and
    /// `SEC_CLIENT_AUTHENTICATION_METHODS` set to the same list.
    pub fn authenticated(methods: &[AuthMethod]) -> ClientConfig {
        let mut policy = m0_policy();
        policy.authentication = SecurityLevel::Required;
        policy.encryption = SecurityLevel::Optional;
        policy.integrity = SecurityLevel::Optional;
        policy.auth_methods = methods.to_vec();
        ClientConfig::from_policy(policy)
    }

    /// The defaults with another policy.
    pub fn from_policy(policy: SecurityPolicy) -> ClientConfig {
        ClientConfig {
            policy,
            subsystem: "TOOL".to_owned(),
            version: OUR_VERSION.to_owned(),
            pid: std::process::id(),
            parent_unique_id: None,
            trust_domain: None,
            command_sock: None,
            resume_response: true,
            retry_rejected_session: false,
            claim_to_be_user: std::env::var("USER")
                .or_else(|_| std::env::var("LOGNAME"))
                .ok()
                .filter(|u| !u.is_empty()),
            fs_channel_binding: true,
            tokens: Vec::new(),
            token_dirs: Vec::new(),
            timeout: Duration::from_secs(20),
            max_message: crate::wire::DEFAULT_MAX_MESSAGE,
            limits: AdLimits::default(),
        }
    }

    /// Commands go raw, with no handshake (`SEC_CLIENT_NEGOTIATION =
    /// NEVER`).
    pub fn raw(mut self) -> ClientConfig {
        self.policy.negotiation = SecurityLevel::Never;
        self
    }

    /// Another subsystem name (e.g. `NEGOTIATOR` for a daemon).
    pub fn subsystem(mut self, name: impl Into<String>) -> ClientConfig {
        self.subsystem = name.into();
        self
    }

    /// Another timeout.
    pub fn timeout(mut self, timeout: Duration) -> ClientConfig {
        self.timeout = timeout;
        self
    }

    /// Retry once with a new session after `SID_NOT_FOUND`.
    pub fn retry_rejected_session(mut self, yes: bool) -> ClientConfig {
        self.retry_rejected_session = yes;
        self
    }
}
