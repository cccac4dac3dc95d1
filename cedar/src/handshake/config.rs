//! What a server's connections share: the command table, the policies per
//! level, the authorizer, identities, the TOKEN method's keys, the session
//! cache.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::commands::CommandTable;
use super::session::SessionCache;
use super::SUPPORTED_METHODS;
use crate::authz::{Authorizer, AuthzConfig, IdentityConfig, MapFile, MapFileOptions, Permission};
use crate::error::Result;
use crate::policy::{PolicyConfig, SecurityLevel, SecurityPolicy};
use crate::token::jwt::max_age_from_param;
use crate::token::key::{FileCheck, KeyStore};
use crate::token::revocation::RevocationExpr;
use crate::version::OUR_VERSION;
use crate::wire::ad::AdLimits;

/// `FS_LOCAL_DIR`'s default: where the FS method's directories are named.
pub const DEFAULT_FS_LOCAL_DIR: &str = "/tmp";

/// Our security policy at each permission level (`SEC_<LEVEL>_*`).
#[derive(Debug, Clone)]
pub struct ServerPolicies {
    levels: Vec<(Permission, SecurityPolicy)>,
}

impl ServerPolicies {
    /// The same policy at every level.
    pub fn uniform(policy: SecurityPolicy) -> ServerPolicies {
        ServerPolicies { levels: Permission::ALL.iter().map(|p| (*p, policy.clone())).collect() }
    }

    /// Mode M0: NEVER for authentication, encryption and integrity at every
    /// level (negotiation PREFERRED, AES, a day's sessions, an hour's
    /// lease).
    pub fn plaintext() -> ServerPolicies {
        ServerPolicies::uniform(SecurityPolicy {
            authentication: SecurityLevel::Never,
            encryption: SecurityLevel::Never,
            integrity: SecurityLevel::Never,
            auth_methods: Vec::new(),
            ..SecurityPolicy::default()
        })
    }

    /// A daemon's policies from its configuration
    /// ([`SecurityPolicy::from_config`] at each level), with the
    /// authentication methods reduced to [`SUPPORTED_METHODS`].
    pub fn from_config(subsystem: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<ServerPolicies> {
        let mut levels = Vec::new();
        for perm in Permission::ALL {
            let cfg = PolicyConfig::daemon(perm, subsystem).with_supported_auth_methods(SUPPORTED_METHODS);
            levels.push((perm, SecurityPolicy::from_config(&cfg, lookup)?));
        }
        Ok(ServerPolicies { levels })
    }

    /// The policy for commands of level `perm`.
    pub fn for_level(&self, perm: Permission) -> SecurityPolicy {
        self.levels
            .iter()
            .find(|(p, _)| *p == perm)
            .or_else(|| self.levels.iter().find(|(p, _)| *p == Permission::Default))
            .map(|(_, s)| s.clone())
            .unwrap_or_default()
    }
}

/// What the TOKEN (IDTOKENS) method needs on the server side.
#[derive(Debug)]
#[non_exhaustive]
pub struct TokenConfig {
    /// The signing keys (`SEC_TOKEN_POOL_SIGNING_KEY_FILE`,
    /// `SEC_PASSWORD_DIRECTORY`); their names go out as `IssuerKeys`.
    pub keys: KeyStore,
    /// `SEC_TOKEN_MAX_AGE` as [`crate::token::jwt::max_age_from_param`]
    /// gives it.
    pub max_age: Option<i64>,
    /// `SEC_TOKEN_REVOCATION_EXPR`.
    pub revocation: Option<RevocationExpr>,
}

impl TokenConfig {
    /// Tokens signed by `keys`, with no age limit or revocation.
    pub fn new(keys: KeyStore) -> TokenConfig {
        TokenConfig { keys, max_age: None, revocation: None }
    }
}

/// What every connection of a server shares.
#[non_exhaustive]
pub struct ServerConfig {
    /// The commands served.
    pub commands: CommandTable,
    /// Our security policy per level.
    pub policies: ServerPolicies,
    /// Who may run what (`ALLOW_*`/`DENY_*`).
    pub authorizer: Authorizer,
    /// How authenticated names become identities.
    pub identity: IdentityConfig,
    /// `CERTIFICATE_MAPFILE`, if any (CLAIMTOBE and FS names; 23.9 does not
    /// map tokens).
    pub map_file: Option<MapFile>,
    /// The TOKEN method; `None` refuses it.
    pub tokens: Option<TokenConfig>,
    /// Where the FS method's directories are named (`FS_LOCAL_DIR`,
    /// default `/tmp`): a directory the clients share with us.
    pub fs_local_dir: PathBuf,
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
            .field("policies", &self.policies)
            .field("hostname", &self.hostname)
            .field("trust_domain", &self.trust_domain)
            .field("tokens", &self.tokens.is_some())
            .field("fs_local_dir", &self.fs_local_dir)
            .finish_non_exhaustive()
    }
}

/// An authorizer with `ALLOW_<LEVEL> = *` at every level.
pub fn allow_everyone() -> Authorizer {
    let lookup = |k: &str| k.starts_with("ALLOW_").then(|| "*".to_string());
    // A constant configuration: it always parses.
    Authorizer::from_config(&lookup, &AuthzConfig::default()).unwrap_or_else(|_| unreachable_authorizer())
}

fn unreachable_authorizer() -> Authorizer {
    let none = |_: &str| None;
    match Authorizer::from_config(&none, &AuthzConfig::default()) {
        Ok(a) => a,
        Err(_) => unreachable!("an empty configuration parses"),
    }
}

impl ServerConfig {
    /// A server of `commands` with the M0 policy
    /// ([`ServerPolicies::plaintext`]), allowing everyone, with a fresh
    /// session cache.
    pub fn new(commands: CommandTable) -> ServerConfig {
        ServerConfig {
            commands,
            policies: ServerPolicies::plaintext(),
            authorizer: allow_everyone(),
            identity: IdentityConfig::default(),
            map_file: None,
            tokens: None,
            fs_local_dir: PathBuf::from(DEFAULT_FS_LOCAL_DIR),
            sessions: Arc::new(Mutex::new(SessionCache::default())),
            hostname: "localhost".to_owned(),
            trust_domain: None,
            version: OUR_VERSION.to_owned(),
            limits: AdLimits::default(),
        }
    }

    /// A daemon's server configuration from HTCondor's knobs, read through
    /// `lookup` (which applies the `SUBSYS.` prefixes, as `param()` does):
    ///
    /// * the policies from `SEC_<CONTEXT>_<FEATURE>` and their
    ///   `SEC_<CONTEXT>_<FEATURE>_<SUBSYS>` forms ([`ServerPolicies::from_config`]);
    /// * `ALLOW_<LEVEL>` / `DENY_<LEVEL>` (and `_<SUBSYS>` forms) for the
    ///   authorizer;
    /// * `UID_DOMAIN`, `SEC_CLAIMTOBE_INCLUDE_DOMAIN`, `CERTIFICATE_MAPFILE`
    ///   (with `CERTIFICATE_MAPFILE_ASSUME_HASH_KEYS`);
    /// * `FS_LOCAL_DIR` for the FS method (default `/tmp`);
    /// * the TOKEN method when `SEC_TOKEN_POOL_SIGNING_KEY_FILE` or
    ///   `SEC_PASSWORD_DIRECTORY` is set, with `TRUST_DOMAIN`,
    ///   `SEC_TOKEN_MAX_AGE` and `SEC_TOKEN_REVOCATION_EXPR`; key files
    ///   are checked as HTCondor checks them (`0600`, owned by us) unless
    ///   `check` says otherwise.
    ///
    /// ```
    /// use cedar::handshake::{CommandTable, ServerConfig};
    /// use cedar::token::key::FileCheck;
    /// let knobs = |k: &str| match k {
    ///     "ALLOW_READ" => Some("*".to_string()),
    ///     "SEC_DEFAULT_AUTHENTICATION" => Some("OPTIONAL".to_string()),
    ///     _ => None,
    /// };
    /// let config = ServerConfig::from_config("COLLECTOR", CommandTable::new(), &knobs, FileCheck::none())?;
    /// assert!(config.tokens.is_none());
    /// # Ok::<(), cedar::Error>(())
    /// ```
    pub fn from_config(
        subsystem: &str,
        commands: CommandTable,
        lookup: &dyn Fn(&str) -> Option<String>,
        check: FileCheck,
    ) -> Result<ServerConfig> {
        let truthy = |k: &str| {
            lookup(k)
                .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "yes" | "1" | "t" | "y"))
        };
        let authorizer = Authorizer::from_config(&|k: &str| lookup(k), &AuthzConfig::for_subsystem(subsystem))?;
        let mut config = ServerConfig::new(commands)
            .authorizer(authorizer)
            .policies(ServerPolicies::from_config(subsystem, lookup)?);
        config = config.identity(IdentityConfig {
            uid_domain: lookup("UID_DOMAIN"),
            claimtobe_include_domain: truthy("SEC_CLAIMTOBE_INCLUDE_DOMAIN"),
        });
        if let Some(path) = lookup("CERTIFICATE_MAPFILE").filter(|p| !p.trim().is_empty()) {
            let opts = MapFileOptions::default().with_assume_hash_keys(truthy("CERTIFICATE_MAPFILE_ASSUME_HASH_KEYS"));
            config.map_file = Some(MapFile::load(std::path::Path::new(path.trim()), &opts)?);
        }
        let path = |k: &str| lookup(k).filter(|v| !v.trim().is_empty()).map(|v| PathBuf::from(v.trim()));
        if let Some(dir) = path("FS_LOCAL_DIR") {
            config.fs_local_dir = dir;
        }
        let pool = path("SEC_TOKEN_POOL_SIGNING_KEY_FILE");
        let dir = path("SEC_PASSWORD_DIRECTORY");
        if pool.is_some() || dir.is_some() {
            let mut tokens = TokenConfig::new(KeyStore::new(pool, dir, check));
            tokens.max_age = max_age_from_param(lookup("SEC_TOKEN_MAX_AGE").and_then(|v| v.trim().parse().ok()));
            if let Some(expr) = lookup("SEC_TOKEN_REVOCATION_EXPR").filter(|e| !e.trim().is_empty()) {
                tokens.revocation = Some(RevocationExpr::parse(&expr)?);
            }
            config = config.tokens(tokens, lookup("TRUST_DOMAIN").unwrap_or_default());
        }
        Ok(config)
    }

    /// The same configuration with another authorizer.
    pub fn authorizer(mut self, authorizer: Authorizer) -> ServerConfig {
        self.authorizer = authorizer;
        self
    }

    /// The same configuration with another host name.
    pub fn hostname(mut self, hostname: impl Into<String>) -> ServerConfig {
        self.hostname = hostname.into();
        self
    }

    /// The same configuration with other policies.
    pub fn policies(mut self, policies: ServerPolicies) -> ServerConfig {
        self.policies = policies;
        self
    }

    /// The same configuration with the TOKEN method and our trust domain.
    pub fn tokens(mut self, tokens: TokenConfig, trust_domain: impl Into<String>) -> ServerConfig {
        self.tokens = Some(tokens);
        self.trust_domain = Some(trust_domain.into());
        self
    }

    /// The same configuration with FS directories named under `dir`
    /// (`FS_LOCAL_DIR`).
    pub fn fs_local_dir(mut self, dir: impl Into<PathBuf>) -> ServerConfig {
        self.fs_local_dir = dir.into();
        self
    }

    /// The same configuration with other identity settings.
    pub fn identity(mut self, identity: IdentityConfig) -> ServerConfig {
        self.identity = identity;
        self
    }
}
