//! Security policy: the `SEC_*` levels, a side's [`SecurityPolicy`], and
//! how a client's and a server's policies reconcile, as HTCondor 23.9.6
//! does it (condor_secman.cpp).
//!
//! * [`SecurityLevel`]: REQUIRED, PREFERRED, OPTIONAL, NEVER, parsed by
//!   first letter as HTCondor does;
//! * [`SecurityPolicy`]: one side's levels, method lists and session terms,
//!   read from `SEC_<LEVEL>_*` knobs through any lookup function
//!   ([`SecurityPolicy::from_config`]), so the daemons can plug in their
//!   own config reader;
//! * [`reconcile`]: the client ad's terms against the server's, giving the
//!   server's response ([`Reconciled`]), with the AES rule;
//! * [`AuthMethod`], [`CryptoMethod`]: names, aliases and bits.
//!
//! ```
//! use cedar::authz::Permission;
//! use cedar::policy::{reconcile, PolicyConfig, SecurityPolicy};
//!
//! // The pool's configuration, as a lookup function.
//! let config = |name: &str| match name {
//!     "SEC_DEFAULT_AUTHENTICATION" => Some("REQUIRED".to_string()),
//!     "SEC_DEFAULT_AUTHENTICATION_METHODS" => Some("FS, IDTOKENS".to_string()),
//!     "SEC_READ_AUTHENTICATION" => Some("OPTIONAL".to_string()),
//!     "SEC_DEFAULT_CRYPTO_METHODS" => Some("AES".to_string()),
//!     _ => None,
//! };
//! let server = SecurityPolicy::from_config(&PolicyConfig::daemon(Permission::Read, "COLLECTOR"), config)?;
//! assert_eq!(server.authentication.as_str(), "OPTIONAL");
//!
//! let client = SecurityPolicy::from_config(&PolicyConfig::tool(Permission::Client), config)?;
//! let r = reconcile(&client.terms(), &server.terms())?;
//! assert!(r.authentication && r.encryption); // AES first: encryption is forced on
//! assert_eq!(r.auth_method(), Some("FS"));
//! assert_eq!(r.session_duration, 60); // the tool's default is shorter
//! # Ok::<(), cedar::Error>(())
//! ```

mod ad;
mod config;
mod level;
mod methods;
mod reconcile;

pub use ad::{
    ATTR_AUTHENTICATION, ATTR_AUTH_METHODS, ATTR_AUTH_METHODS_LIST, ATTR_AUTH_REQUIRED, ATTR_CRYPTO_METHODS,
    ATTR_CRYPTO_METHODS_LIST, ATTR_ENACT, ATTR_ENCRYPTION, ATTR_INTEGRITY, ATTR_NEGOTIATION, ATTR_SESSION_DURATION,
    ATTR_SESSION_LEASE,
};
pub use config::{PolicyConfig, DEFAULT_AUTHENTICATION_METHODS};
pub use level::{reconcile_dependency, SecurityLevel};
pub use methods::{
    auth_bitmask, choose_crypto_method, filter_crypto_methods, tokens, AuthMethod, CryptoMethod, DEFAULT_CRYPTO_METHODS,
};
pub use reconcile::{reconcile, reconcile_attribute, reconcile_method_lists, Action, PolicyTerms, Reconciled};

/// One side's security policy for one permission level: what
/// `SecMan::FillInSecurityPolicyAd` (condor_secman.cpp 456–640) puts in
/// the policy ad.
///
/// [`SecurityPolicy::default`] is HTCondor's policy with no `SEC_*`
/// settings at all, for a daemon.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SecurityPolicy {
    /// `SEC_<LEVEL>_AUTHENTICATION` (default OPTIONAL).
    pub authentication: SecurityLevel,
    /// `SEC_<LEVEL>_ENCRYPTION` (default OPTIONAL).
    pub encryption: SecurityLevel,
    /// `SEC_<LEVEL>_INTEGRITY` (default OPTIONAL).
    pub integrity: SecurityLevel,
    /// `SEC_<LEVEL>_NEGOTIATION` (default PREFERRED).
    pub negotiation: SecurityLevel,
    /// `SEC_<LEVEL>_AUTHENTICATION_METHODS`, in preference order.
    pub auth_methods: Vec<AuthMethod>,
    /// `SEC_<LEVEL>_CRYPTO_METHODS`, reduced to what this crate implements
    /// (AES).
    pub crypto_methods: Vec<CryptoMethod>,
    /// `SEC_<LEVEL>_SESSION_DURATION`, seconds (default 86400 for daemons,
    /// 60 for tools).
    pub session_duration: i64,
    /// `SEC_<LEVEL>_SESSION_LEASE`, seconds (default 3600; 0 means none).
    pub session_lease: i64,
}

impl Default for SecurityPolicy {
    fn default() -> Self {
        SecurityPolicy {
            authentication: SecurityLevel::Optional,
            encryption: SecurityLevel::Optional,
            integrity: SecurityLevel::Optional,
            negotiation: SecurityLevel::Preferred,
            auth_methods: config::filter_auth_methods(DEFAULT_AUTHENTICATION_METHODS, None),
            crypto_methods: vec![CryptoMethod::Aes],
            session_duration: config::DAEMON_SESSION_DURATION,
            session_lease: config::DEFAULT_SESSION_LEASE,
        }
    }
}

impl SecurityPolicy {
    /// This policy as the attribute values of a policy ad, for
    /// [`reconcile`] and for the handshake to write into its ad:
    /// levels by name, methods comma-separated (absent when empty, as
    /// HTCondor leaves them out), the duration as a string.
    pub fn terms(&self) -> PolicyTerms {
        let join = |v: Vec<&str>| if v.is_empty() { None } else { Some(v.join(",")) };
        PolicyTerms {
            authentication: Some(self.authentication.as_str().to_string()),
            encryption: Some(self.encryption.as_str().to_string()),
            integrity: Some(self.integrity.as_str().to_string()),
            auth_methods: join(self.auth_methods.iter().map(|m| m.as_str()).collect()),
            crypto_methods: join(self.crypto_methods.iter().map(|m| m.as_str()).collect()),
            session_duration: Some(self.session_duration.to_string()),
            session_lease: Some(self.session_lease),
        }
    }
}
