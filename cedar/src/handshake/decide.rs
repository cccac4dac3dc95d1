//! A minimal, TEMPORARY reconciliation of the client's security ad with the
//! server's policy, enough for mode M0 (no authentication, no encryption).
//!
//! REPLACE with the crate's `policy` module once it lands: that one carries
//! the full `ReconcileSecurityPolicyAds` (method lists, the AES rule, per
//! permission levels). This one implements the per-feature table of
//! `ReconcileSecurityAttribute` (`condor_secman.cpp` 696–805) and refuses
//! whatever would need authentication or a key.

use classad::ClassAd;

use super::{lookup_int, lookup_str};
use crate::error::{Error, ErrorKind, Result};

/// A `SEC_*` level (REQUIRED, PREFERRED, OPTIONAL, NEVER).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Level {
    /// `NEVER`.
    Never,
    /// `OPTIONAL`.
    Optional,
    /// `PREFERRED`.
    Preferred,
    /// `REQUIRED`.
    Required,
}

impl Level {
    /// Reads a level as `sec_alpha_to_sec_req` does, by its first letter
    /// (`Y` counts as REQUIRED); an empty or missing value is NEVER.
    pub fn parse(s: Option<&str>) -> Option<Level> {
        match s.and_then(|s| s.bytes().next()).map(|b| b.to_ascii_uppercase()) {
            None => Some(Level::Never),
            Some(b'R' | b'Y') => Some(Level::Required),
            Some(b'P') => Some(Level::Preferred),
            Some(b'O') => Some(Level::Optional),
            Some(b'N') => Some(Level::Never),
            Some(_) => None,
        }
    }

    /// The name C++ uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Never => "NEVER",
            Level::Optional => "OPTIONAL",
            Level::Preferred => "PREFERRED",
            Level::Required => "REQUIRED",
        }
    }
}

/// `ReconcileSecurityAttribute`: `Some(true)` for YES, `Some(false)` for NO,
/// `None` for FAIL.
pub fn reconcile(client: Level, server: Level) -> Option<bool> {
    use Level::*;
    match (client, server) {
        (Required, Never) | (Never, Required) => None,
        (Required, _) => Some(true),
        (Preferred, Never) => Some(false),
        (Preferred, _) => Some(true),
        (Optional, Required | Preferred) => Some(true),
        (Optional, _) | (Never, _) => Some(false),
    }
}

/// The server's side of the reconciliation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerPolicy {
    /// `SEC_<level>_AUTHENTICATION`.
    pub authentication: Level,
    /// `SEC_<level>_ENCRYPTION`.
    pub encryption: Level,
    /// `SEC_<level>_INTEGRITY`.
    pub integrity: Level,
    /// `SEC_<level>_CRYPTO_METHODS`, in our order of preference.
    pub crypto_methods: Vec<String>,
    /// `SEC_<level>_SESSION_DURATION` in seconds.
    pub session_duration: i64,
    /// `SEC_<level>_SESSION_LEASE` in seconds (0: no lease).
    pub session_lease: i64,
}

impl Default for ServerPolicy {
    /// Mode M0: NEVER for all three, AES, C++'s default duration (a day)
    /// and lease (an hour).
    fn default() -> Self {
        ServerPolicy {
            authentication: Level::Never,
            encryption: Level::Never,
            integrity: Level::Never,
            crypto_methods: vec!["AES".to_owned()],
            session_duration: 86400,
            session_lease: 3600,
        }
    }
}

/// What was decided for a new session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Decision {
    /// Authenticate?
    pub authentication: bool,
    /// Encrypt?
    pub encryption: bool,
    /// Integrity-check?
    pub integrity: bool,
    /// The shared crypto methods, in the server's order.
    pub crypto_methods: Option<String>,
    /// The session duration in seconds (the shorter of the two).
    pub duration: i64,
    /// The lease in seconds (`None` if either side gave none).
    pub lease: Option<i64>,
}

/// `ReconcileMethodLists`: the server's methods the client also lists, in
/// the server's order, compared without case.
pub fn reconcile_methods(client: &str, server: &[String]) -> String {
    let client: Vec<&str> = client.split([',', ' ']).map(str::trim).filter(|m| !m.is_empty()).collect();
    server.iter().filter(|s| client.iter().any(|c| c.eq_ignore_ascii_case(s))).cloned().collect::<Vec<_>>().join(",")
}

/// Reconciles `client` (the client's security ad) with `ours`. Anything that
/// would need authentication, encryption or integrity is refused with
/// [`ErrorKind::Policy`] (not implemented here: mode M0 only).
pub fn decide(client: &ClassAd, ours: &ServerPolicy) -> Result<Decision> {
    let feature = |attr: &str, server: Level| -> Result<bool> {
        let value = lookup_str(client, attr);
        let level = Level::parse(value.as_deref())
            .ok_or_else(|| Error::new(ErrorKind::Policy, format!("client's {attr} is {value:?}")))?;
        reconcile(level, server).ok_or_else(|| {
            Error::new(
                ErrorKind::Policy,
                format!("client's {attr} = {} cannot be reconciled with ours, {}", level.as_str(), server.as_str()),
            )
        })
    };
    let authentication = feature("Authentication", ours.authentication)?;
    let encryption = feature("Encryption", ours.encryption)?;
    let integrity = feature("Integrity", ours.integrity)?;
    if authentication || encryption || integrity {
        return Err(Error::new(
            ErrorKind::Policy,
            "the reconciled policy needs authentication, encryption or integrity, which this server does not do yet",
        ));
    }
    let crypto_methods = lookup_str(client, "CryptoMethods").map(|c| reconcile_methods(&c, &ours.crypto_methods));
    let client_duration = lookup_str(client, "SessionDuration").map(|d| atoi(&d)).unwrap_or(0);
    let duration = client_duration.min(ours.session_duration);
    let lease = lookup_int(client, "SessionLease").map(|cli| {
        let (cli, srv) = match (cli, ours.session_lease) {
            (0, s) => (s, s),
            (c, 0) => (c, c),
            (c, s) => (c, s),
        };
        cli.min(srv)
    });
    Ok(Decision { authentication, encryption, integrity, crypto_methods, duration, lease })
}

/// C's `atoi`: leading whitespace, a sign, digits; anything else stops it.
pub fn atoi(s: &str) -> i64 {
    let s = s.trim_start();
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add(i64::from(b - b'0'));
    }
    if neg {
        -v
    } else {
        v
    }
}
