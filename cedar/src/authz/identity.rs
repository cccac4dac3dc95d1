//! The identity an authenticated peer gets: the method's own default,
//! then the map file, as `Authentication::authenticate_finish` and the
//! methods (`condor_auth_claim.cpp`, `condor_auth_fs.cpp`,
//! `condor_auth_passwd.cpp`, `authentication.cpp` 476–547) build it in
//! 23.9.6.
//!
//! | method | authenticated name (what the map file sees) | identity without a map |
//! |---|---|---|
//! | CLAIMTOBE | the claimed name as sent | the claimed name as sent — **no `@UID_DOMAIN` is added** unless `SEC_CLAIMTOBE_INCLUDE_DOMAIN = true` (default false); then `name@UID_DOMAIN`, or the client's own `@domain` if it sent one |
//! | FS, FS_REMOTE | the directory owner's login name | `owner@UID_DOMAIN` |
//! | IDTOKENS (TOKEN) | none: 23.9.6 never sets one, so **the map file is not consulted** | the token's `sub`, split at its first `@` |
//!
//! A mapped name without `@` gets `@UID_DOMAIN`; a name is split at its
//! first `@`; the domain part is lower-cased (`setRemoteDomain`), the user
//! part keeps its case.
//!
//! A running 23.9.6 collector confirms the CLAIMTOBE and IDTOKENS rows
//! (`tests/authz_live.rs`): a CLAIMTOBE peer claiming `condor` is `condor`
//! (and `condor@authz.test` with the domain knob), and a token for
//! `Alice@Authz.Test` is `Alice@authz.test` even with a map file rule
//! `IDTOKENS (.*) mapped-token@elsewhere`.

use super::mapfile::MapFile;

/// An authentication method, as the map file names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AuthMethod {
    /// CLAIMTOBE: the client says who it is.
    ClaimToBe,
    /// FS: a directory the client creates under /tmp.
    Fs,
    /// FS_REMOTE: FS under `FS_REMOTE_DIR`.
    FsRemote,
    /// IDTOKENS (the TOKEN method): an HS256 JWT.
    IdTokens,
}

impl AuthMethod {
    /// The method's name in map files and `AuthenticationMethod`.
    pub fn name(self) -> &'static str {
        match self {
            AuthMethod::ClaimToBe => "CLAIMTOBE",
            AuthMethod::Fs => "FS",
            AuthMethod::FsRemote => "FS_REMOTE",
            AuthMethod::IdTokens => "IDTOKENS",
        }
    }

    /// The method named `name` (any case; `TOKEN` and `TOKENS` are accepted
    /// for IDTOKENS, as in `SEC_*_AUTHENTICATION_METHODS`).
    pub fn from_name(name: &str) -> Option<AuthMethod> {
        let n = name.to_ascii_uppercase();
        Some(match n.as_str() {
            "CLAIMTOBE" => AuthMethod::ClaimToBe,
            "FS" => AuthMethod::Fs,
            "FS_REMOTE" => AuthMethod::FsRemote,
            "IDTOKENS" | "IDTOKEN" | "TOKEN" | "TOKENS" => AuthMethod::IdTokens,
            _ => return None,
        })
    }
}

/// Knobs that shape identities.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct IdentityConfig {
    /// `UID_DOMAIN`.
    pub uid_domain: Option<String>,
    /// `SEC_CLAIMTOBE_INCLUDE_DOMAIN` (default false).
    pub claimtobe_include_domain: bool,
}

impl IdentityConfig {
    /// Settings with this `UID_DOMAIN` and the other knobs at their defaults.
    pub fn with_uid_domain(uid_domain: &str) -> Self {
        IdentityConfig { uid_domain: Some(uid_domain.to_string()), claimtobe_include_domain: false }
    }
}

/// A peer's identity after authentication and mapping.
///
/// ```
/// use cedar::authz::{AuthMethod, Identity, IdentityConfig, MapFile, MapFileOptions};
/// let cfg = IdentityConfig::with_uid_domain("Pool.Example");
/// let id = Identity::resolve(AuthMethod::Fs, "alice", None, &cfg);
/// assert_eq!(id.fqu(), "alice@pool.example");
/// // CLAIMTOBE adds no domain by default.
/// assert_eq!(Identity::resolve(AuthMethod::ClaimToBe, "condor", None, &cfg).fqu(), "condor");
/// // Tokens: the subject, never mapped in 23.9.
/// let map = MapFile::parse("IDTOKENS (.*) nobody", &MapFileOptions::default()).unwrap();
/// let id = Identity::resolve(AuthMethod::IdTokens, "condor@Pool.Example", Some(&map), &cfg);
/// assert_eq!(id.fqu(), "condor@pool.example");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    user: String,
    domain: Option<String>,
    mapped: bool,
}

impl Identity {
    /// The identity of a peer that `method` authenticated as `name` (the
    /// claimed name, the directory owner, the token subject).
    pub fn resolve(method: AuthMethod, name: &str, map: Option<&MapFile>, cfg: &IdentityConfig) -> Identity {
        let uid_domain = cfg.uid_domain.as_deref();
        // The method's own result, and the name it offers for mapping.
        let (mut id, to_map) = match method {
            AuthMethod::ClaimToBe => {
                if cfg.claimtobe_include_domain {
                    let (u, d) = match name.split_once('@') {
                        Some((u, d)) if !d.is_empty() => (u, Some(d)),
                        Some((u, _)) => (u, uid_domain),
                        None => (name, uid_domain),
                    };
                    let auth_name = match d {
                        Some(d) => format!("{u}@{d}"),
                        None => u.to_string(),
                    };
                    (Identity::new(u, d), Some(auth_name))
                } else {
                    (Identity::new(name, None), Some(name.to_string()))
                }
            }
            AuthMethod::Fs | AuthMethod::FsRemote => (Identity::new(name, uid_domain), Some(name.to_string())),
            AuthMethod::IdTokens => {
                let (u, d) = match name.split_once('@') {
                    Some((u, d)) => (u, Some(d)),
                    None => (name, None),
                };
                (Identity::new(u, d), None)
            }
        };
        if let (Some(map), Some(to_map)) = (map, to_map) {
            if let Some(canon) = map.canonicalize(method.name(), &to_map) {
                let (u, d) = match canon.split_once('@') {
                    Some((u, d)) => (u.to_string(), Some(d.to_string())),
                    None => (canon.clone(), uid_domain.map(str::to_string)),
                };
                id = Identity::new(&u, d.as_deref());
                id.mapped = true;
            }
        }
        id
    }

    fn new(user: &str, domain: Option<&str>) -> Identity {
        Identity { user: user.to_string(), domain: domain.map(|d| d.to_ascii_lowercase()), mapped: false }
    }

    /// The fully qualified user, `user@domain` (or `user` when there is no
    /// domain): what the `ALLOW_*` lists are matched against.
    pub fn fqu(&self) -> String {
        match &self.domain {
            Some(d) => format!("{}@{d}", self.user),
            None => self.user.clone(),
        }
    }

    /// The user part.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The domain part, lower-cased.
    pub fn domain(&self) -> Option<&str> {
        self.domain.as_deref()
    }

    /// Whether a map-file rule produced this identity.
    pub fn is_mapped(&self) -> bool {
        self.mapped
    }
}
