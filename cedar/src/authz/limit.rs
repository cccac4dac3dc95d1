//! Limits an authentication method puts on a session's authorization
//! (`LimitAuthorization`): CLAIMTOBE sessions and tokens with scopes.
//!
//! * **CLAIMTOBE**: the server limits the session to the permission level
//!   of the command that created it and the levels that level implies
//!   (`daemon_command.cpp` 1223–1235).
//! * **TOKEN/IDTOKENS with a `scope` claim**: each space-separated scope of
//!   the form `condor:/<LEVEL>` becomes a level of the limit; scopes of any
//!   other form are ignored; a token with no `condor:/` scope carries no
//!   limit at all (`condor_auth_passwd.cpp` 2099–2129).
//! * **Enforcement** (`daemon_command.cpp` 1543–1571): every named level is
//!   widened to the levels it implies; unknown names are ignored; a command
//!   may run if its level, or one of its alternate levels, is in the set,
//!   or if its level (or an alternate) is ALLOW. Then the ordinary lists
//!   decide.

use super::perm::{PermSet, Permission};
use crate::error::Result;
use crate::{Error, ErrorKind};

/// The longest `LimitAuthorization` or `scope` string accepted, in bytes.
pub const MAX_LIMIT_LEN: usize = 8192;

/// A session's authorization limit: the levels it may use at most.
///
/// ```
/// use cedar::authz::{AuthorizationLimit, Permission};
/// let limit = AuthorizationLimit::from_token_scope("condor:/ADVERTISE_STARTD openid")
///     .unwrap()
///     .expect("a condor:/ scope");
/// assert!(limit.permits(Permission::AdvertiseStartd, &[]));
/// assert!(limit.permits(Permission::Read, &[]));          // implied
/// assert!(!limit.permits(Permission::Daemon, &[]));
/// assert!(limit.permits(Permission::Allow, &[]));         // ALLOW always passes
/// assert_eq!(limit.to_attribute(), "ADVERTISE_STARTD");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationLimit {
    /// The levels as named (what goes into the `LimitAuthorization` attribute).
    named: Vec<Permission>,
    /// The named levels and everything they imply.
    effective: PermSet,
}

impl AuthorizationLimit {
    /// A limit of exactly these levels (and what they imply).
    pub fn new(levels: impl IntoIterator<Item = Permission>) -> Self {
        let mut named = Vec::new();
        let mut effective = PermSet::EMPTY;
        for p in levels {
            if !named.contains(&p) {
                named.push(p);
            }
            effective.insert_implied(p);
        }
        AuthorizationLimit { named, effective }
    }

    /// The limit a C++ server puts on a CLAIMTOBE session opened by a
    /// command of level `command_perm`: that level and its implied chain.
    pub fn for_claimtobe(command_perm: Permission) -> Self {
        Self::new(command_perm.implied_chain())
    }

    /// Parses a `LimitAuthorization` attribute: level names separated by
    /// commas or white space, unknown names ignored.
    pub fn parse(attribute: &str) -> Result<Self> {
        check_len(attribute)?;
        Ok(Self::new(
            attribute.split([',', ' ', '\t', '\r', '\n']).filter(|t| !t.is_empty()).filter_map(Permission::from_name),
        ))
    }

    /// The limit a token's `scope` claim imposes, or `None` when the claim
    /// has no `condor:/` scope (then the token is not limited).
    pub fn from_token_scope(scope: &str) -> Result<Option<Self>> {
        check_len(scope)?;
        let mut any = false;
        let mut levels = Vec::new();
        for s in scope.split([',', ' ', '\t', '\r', '\n']).filter(|t| !t.is_empty()) {
            if let Some(name) = s.strip_prefix("condor:/") {
                any = true;
                if let Some(p) = Permission::from_name(name) {
                    levels.push(p);
                }
            }
        }
        // HTCondor sets LimitAuthorization whenever one condor:/ scope is
        // present, even if none names a known level (then nothing passes
        // but ALLOW).
        Ok(any.then(|| Self::new(levels)))
    }

    /// The named levels, comma-separated: the `LimitAuthorization` value.
    pub fn to_attribute(&self) -> String {
        self.named.iter().map(|p| p.name()).collect::<Vec<_>>().join(",")
    }

    /// The named levels and everything they imply.
    pub fn effective(&self) -> PermSet {
        self.effective
    }

    /// Whether a command of level `perm` (with alternate levels
    /// `alternates`) may be attempted under this limit.
    pub fn permits(&self, perm: Permission, alternates: &[Permission]) -> bool {
        std::iter::once(perm)
            .chain(alternates.iter().copied())
            .any(|p| p == Permission::Allow || self.effective.contains(p))
    }
}

fn check_len(s: &str) -> Result<()> {
    if s.len() > MAX_LIMIT_LEN {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!("authorization limit of {} bytes (limit {MAX_LIMIT_LEN})", s.len()),
        ));
    }
    Ok(())
}
