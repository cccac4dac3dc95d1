//! Reading a [`SecurityPolicy`] from `SEC_*` knobs, the way
//! `SecMan::FillInSecurityPolicyAd` and `SecMan::getSecSetting` do
//! (condor_secman.cpp 294–414, 456–640).

use super::level::{reconcile_dependency, SecurityLevel};
use super::methods::{filter_crypto_methods, tokens, AuthMethod, CryptoMethod, DEFAULT_CRYPTO_METHODS};
use super::SecurityPolicy;
use crate::authz::Permission;
use crate::error::Result;
use crate::{Error, ErrorKind};

/// The built-in `SEC_DEFAULT_AUTHENTICATION_METHODS` of HTCondor 23.9.6 on
/// Linux, as `condor_config_val` prints it with no configuration in the
/// anchor chroot's Debian build (param_info.cpp 53: FS, IDTOKENS, then
/// KERBEROS and SCITOKENS when built in, then SSL).
pub const DEFAULT_AUTHENTICATION_METHODS: &str = "FS,IDTOKENS,KERBEROS,SCITOKENS,SSL";

/// Default session duration of daemons: one day (condor_secman.cpp 618).
pub(crate) const DAEMON_SESSION_DURATION: i64 = 86400;
/// Default session duration of tools and condor_submit: one minute
/// (condor_secman.cpp 610).
pub(crate) const TOOL_SESSION_DURATION: i64 = 60;
/// Default session lease (condor_secman.cpp 636).
pub(crate) const DEFAULT_SESSION_LEASE: i64 = 3600;

/// Longest knob value read, in bytes; longer values are refused.
const MAX_VALUE_LEN: usize = 64 * 1024;

/// For whom a [`SecurityPolicy`] is read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PolicyConfig {
    /// The permission level whose `SEC_<LEVEL>_*` knobs are read: the
    /// command's level for a server, CLIENT for a client. The knobs fall
    /// back along [`Permission::config_chain`], as `SecMan::getSecSetting`
    /// walks `DCpermissionHierarchy::nextConfig`.
    pub permission: Permission,
    /// The subsystem (e.g. `COLLECTOR`): knobs are looked up as
    /// `<SUBSYS>.<KNOB>` first, as HTCondor's `param()` does, and the
    /// session duration also as `SEC_<SUBSYS>_<LEVEL>_SESSION_DURATION`.
    pub subsystem: Option<String>,
    /// A tool (or condor_submit): sessions default to 60 s instead of a day.
    pub tool: bool,
    /// Authentication required whatever the knobs say (HTCondor's
    /// `force_authentication`, for commands that need a mapped user).
    pub force_authentication: bool,
    /// The authentication methods the caller can do. Others are dropped
    /// from the configured list, as HTCondor drops the ones its build
    /// lacks; `None` keeps every method HTCondor knows except NTSSPI
    /// (Windows only).
    pub supported_auth_methods: Option<Vec<AuthMethod>>,
}

impl PolicyConfig {
    /// A daemon's policy at `permission`, for `subsystem` (e.g. "COLLECTOR").
    pub fn daemon(permission: Permission, subsystem: &str) -> Self {
        PolicyConfig {
            permission,
            subsystem: Some(subsystem.to_string()),
            tool: false,
            force_authentication: false,
            supported_auth_methods: None,
        }
    }

    /// A tool's policy at `permission` (usually CLIENT), with no subsystem
    /// prefix.
    pub fn tool(permission: Permission) -> Self {
        PolicyConfig {
            permission,
            subsystem: None,
            tool: true,
            force_authentication: false,
            supported_auth_methods: None,
        }
    }

    /// Restrict the authentication methods to those the caller implements.
    pub fn with_supported_auth_methods(mut self, methods: &[AuthMethod]) -> Self {
        self.supported_auth_methods = Some(methods.to_vec());
        self
    }
}

/// The configured method list, filtered like `filterAuthenticationMethods`
/// (condor_secman.cpp 3474): unknown names, GSI and NTSSPI dropped, and
/// whatever the caller does not support.
pub(crate) fn filter_auth_methods(list: &str, supported: Option<&[AuthMethod]>) -> Vec<AuthMethod> {
    AuthMethod::parse_list(list)
        .into_iter()
        .filter(|m| *m != AuthMethod::Ntsspi)
        .filter(|m| supported.is_none_or(|s| s.contains(m)))
        .collect()
}

struct Reader<'a, F> {
    lookup: F,
    config: &'a PolicyConfig,
    legacy: bool,
}

impl<F: Fn(&str) -> Option<String>> Reader<'_, F> {
    /// `param(name)`: `<SUBSYS>.<name>` first (a definition there, even an
    /// empty one, hides the plain name, as in `lookup_macro`), then
    /// `<name>`; an empty value counts as undefined.
    fn param(&self, name: &str) -> Result<Option<String>> {
        let value = match &self.config.subsystem {
            Some(sub) => match (self.lookup)(&format!("{sub}.{name}")) {
                Some(v) => Some(v),
                None => (self.lookup)(name),
            },
            None => (self.lookup)(name),
        };
        match value {
            Some(v) if v.len() > MAX_VALUE_LEN => Err(Error::new(
                ErrorKind::Policy,
                format!("SECMAN: {name} is {} bytes long (limit {MAX_VALUE_LEN})", v.len()),
            )),
            Some(v) => {
                let t = v.trim();
                Ok(if t.is_empty() { None } else { Some(t.to_string()) })
            }
            None => Ok(None),
        }
    }

    /// `getSecSetting(fmt, level)`: the first defined
    /// `fmt % <level>` along the level's chain; returns the knob name too.
    fn sec_setting(&self, fmt: &str) -> Result<Option<(String, String)>> {
        for perm in self.config.permission.config_chain(self.legacy) {
            let name = fmt.replace("%s", perm.name());
            if let Some(v) = self.param(&name)? {
                return Ok(Some((name, v)));
            }
        }
        Ok(None)
    }

    /// `sec_req_param`: a level, or the default; an invalid value is an
    /// error (HTCondor aborts the daemon with this text).
    fn level(&self, fmt: &str, default: SecurityLevel) -> Result<SecurityLevel> {
        match self.sec_setting(fmt)? {
            None => Ok(default),
            Some((name, value)) => SecurityLevel::parse(&value)
                .ok_or_else(|| Error::new(ErrorKind::Policy, format!("SECMAN: {name}={value} is invalid!"))),
        }
    }

    /// `getIntSecSetting`: an integer if the value is one, else unchanged.
    fn int(&self, fmt: &str, value: &mut i64) -> Result<()> {
        if let Some((_, v)) = self.sec_setting(fmt)? {
            if let Ok(n) = v.parse::<i64>() {
                *value = n.clamp(i64::from(i32::MIN), i64::from(i32::MAX));
            }
        }
        Ok(())
    }
}

/// HTCondor's boolean spellings (a subset of `param_boolean`, which
/// evaluates the value as a ClassAd expression).
fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "t" | "yes" | "y" | "1" => Some(true),
        "false" | "f" | "no" | "n" | "0" => Some(false),
        _ => None,
    }
}

impl SecurityPolicy {
    /// Read the policy for `config.permission` from `SEC_*` knobs through
    /// `lookup` (knob name → expanded value, `None` if undefined), with
    /// HTCondor's defaults and checks, in `FillInSecurityPolicyAd`'s order:
    ///
    /// 1. the four levels, each `SEC_<LEVEL>_<FEATURE>` along the level's
    ///    chain to DEFAULT ([`Permission::config_chain`];
    ///    `LEGACY_ALLOW_SEMANTICS` is read for DAEMON and ADVERTISE_*,
    ///    the only chains it changes);
    ///    defaults OPTIONAL, OPTIONAL, OPTIONAL and PREFERRED (negotiation);
    /// 2. the dependencies (encryption and integrity on authentication,
    ///    all three on negotiation, [`reconcile_dependency`]);
    /// 3. `SEC_<LEVEL>_AUTHENTICATION_METHODS` (default
    ///    [`DEFAULT_AUTHENTICATION_METHODS`]), filtered; if none remain,
    ///    an error if authentication is REQUIRED, else authentication,
    ///    encryption and integrity become NEVER;
    /// 4. `SEC_<LEVEL>_CRYPTO_METHODS` (default "AES,BLOWFISH,3DES"),
    ///    filtered case-sensitively as HTCondor does, then reduced to AES:
    ///    this crate refuses BLOWFISH and 3DES. If none remain, an error if
    ///    encryption or integrity is REQUIRED, else both become NEVER;
    /// 5. `SEC_<SUBSYS>_<LEVEL>_SESSION_DURATION`, then
    ///    `SEC_<LEVEL>_SESSION_DURATION`, which wins when both are set
    ///    (23.9.6's `getIntSecSetting` always returns false, so the second
    ///    lookup always runs, condor_secman.cpp 404–414, 623–624); then
    ///    `SEC_<LEVEL>_SESSION_LEASE`.
    ///
    /// Errors are [`ErrorKind::Policy`] with HTCondor's texts.
    pub fn from_config(config: &PolicyConfig, lookup: impl Fn(&str) -> Option<String>) -> Result<SecurityPolicy> {
        let mut reader = Reader { lookup, config, legacy: false };
        if config.permission.config_chain(true) != config.permission.config_chain(false) {
            reader.legacy = reader.param("LEGACY_ALLOW_SEMANTICS")?.as_deref().and_then(parse_bool).unwrap_or(false);
        }

        let mut authentication = if config.force_authentication {
            SecurityLevel::Required
        } else {
            reader.level("SEC_%s_AUTHENTICATION", SecurityLevel::Optional)?
        };
        let mut encryption = reader.level("SEC_%s_ENCRYPTION", SecurityLevel::Optional)?;
        let mut integrity = reader.level("SEC_%s_INTEGRITY", SecurityLevel::Optional)?;
        let mut negotiation = reader.level("SEC_%s_NEGOTIATION", SecurityLevel::Preferred)?;

        let ok = reconcile_dependency(&mut authentication, &mut encryption)
            && reconcile_dependency(&mut authentication, &mut integrity)
            && reconcile_dependency(&mut negotiation, &mut authentication)
            && reconcile_dependency(&mut negotiation, &mut encryption)
            && reconcile_dependency(&mut negotiation, &mut integrity);
        if !ok {
            return Err(Error::new(
                ErrorKind::Policy,
                format!(
                    "SECMAN: failure! can't resolve security policy: SEC_NEGOTIATION=\"{negotiation}\" \
                     SEC_AUTHENTICATION=\"{authentication}\" SEC_ENCRYPTION=\"{encryption}\" \
                     SEC_INTEGRITY=\"{integrity}\" (for {})",
                    config.permission
                ),
            ));
        }

        let methods = reader.sec_setting("SEC_%s_AUTHENTICATION_METHODS")?.map(|(_, v)| v);
        let auth_methods = filter_auth_methods(
            methods.as_deref().unwrap_or(DEFAULT_AUTHENTICATION_METHODS),
            config.supported_auth_methods.as_deref(),
        );
        if auth_methods.is_empty() {
            if authentication == SecurityLevel::Required {
                return Err(Error::new(
                    ErrorKind::Policy,
                    "SECMAN: no auth methods, but a feature was required! failing...",
                ));
            }
            authentication = SecurityLevel::Never;
            encryption = SecurityLevel::Never;
            integrity = SecurityLevel::Never;
        }

        let configured = reader.sec_setting("SEC_%s_CRYPTO_METHODS")?.map(|(_, v)| v);
        let filtered = filter_crypto_methods(configured.as_deref().unwrap_or(DEFAULT_CRYPTO_METHODS));
        let crypto_methods: Vec<CryptoMethod> =
            tokens(&filtered).filter_map(CryptoMethod::parse).filter(|m| *m == CryptoMethod::Aes).collect();
        if crypto_methods.is_empty() {
            if encryption == SecurityLevel::Required || integrity == SecurityLevel::Required {
                return Err(Error::new(
                    ErrorKind::Policy,
                    format!(
                        "SECMAN: no crypto methods, but it was required! failing... (configured: \"{}\"; \
                         this implementation supports AES only, not BLOWFISH or 3DES)",
                        configured.as_deref().unwrap_or(DEFAULT_CRYPTO_METHODS)
                    ),
                ));
            }
            encryption = SecurityLevel::Never;
            integrity = SecurityLevel::Never;
        }

        let mut session_duration = if config.tool { TOOL_SESSION_DURATION } else { DAEMON_SESSION_DURATION };
        if let Some(sub) = &config.subsystem {
            reader.int(&format!("SEC_{sub}_%s_SESSION_DURATION"), &mut session_duration)?;
        }
        reader.int("SEC_%s_SESSION_DURATION", &mut session_duration)?;
        let mut session_lease = DEFAULT_SESSION_LEASE;
        reader.int("SEC_%s_SESSION_LEASE", &mut session_lease)?;

        Ok(SecurityPolicy {
            authentication,
            encryption,
            integrity,
            negotiation,
            auth_methods,
            crypto_methods,
            session_duration,
            session_lease,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn read(perm: Permission, knobs: &[(&str, &str)]) -> Result<SecurityPolicy> {
        let map: HashMap<String, String> = knobs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        SecurityPolicy::from_config(&PolicyConfig::daemon(perm, "COLLECTOR"), |k| map.get(k).cloned())
    }

    #[test]
    fn blowfish_only_is_refused_when_encryption_is_required() {
        let e = read(
            Permission::Read,
            &[("SEC_DEFAULT_CRYPTO_METHODS", "BLOWFISH,3DES"), ("SEC_DEFAULT_ENCRYPTION", "REQUIRED")],
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Policy);
        assert!(e.message().starts_with("SECMAN: no crypto methods, but it was required! failing..."), "{e}");
        // Not required: encryption and integrity are switched off instead.
        let p = read(Permission::Read, &[("SEC_DEFAULT_CRYPTO_METHODS", "BLOWFISH")]).unwrap();
        assert_eq!((p.encryption, p.integrity), (SecurityLevel::Never, SecurityLevel::Never));
        assert!(p.crypto_methods.is_empty());
        assert_eq!(p.terms().crypto_methods, None);
    }

    #[test]
    fn supported_methods_filter_before_the_empty_rule() {
        let map: HashMap<&str, &str> =
            [("SEC_DEFAULT_AUTHENTICATION_METHODS", "SSL,KERBEROS"), ("SEC_DEFAULT_AUTHENTICATION", "REQUIRED")].into();
        let config = PolicyConfig::daemon(Permission::Write, "COLLECTOR").with_supported_auth_methods(&[
            AuthMethod::Fs,
            AuthMethod::Token,
            AuthMethod::Claimtobe,
        ]);
        let e = SecurityPolicy::from_config(&config, |k| map.get(k).map(|v| v.to_string())).unwrap_err();
        assert_eq!(e.message(), "SECMAN: no auth methods, but a feature was required! failing...");
    }

    #[test]
    fn oversized_values_are_refused() {
        let long = "A".repeat(MAX_VALUE_LEN + 1);
        let e = read(Permission::Read, &[("SEC_READ_AUTHENTICATION", &long)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Policy);
    }

    #[test]
    fn terms_spell_the_ad_values() {
        let p = read(
            Permission::Client,
            &[("SEC_CLIENT_AUTHENTICATION_METHODS", "idtokens, fs"), ("SEC_CLIENT_SESSION_LEASE", "0")],
        )
        .unwrap();
        let t = p.terms();
        assert_eq!(t.auth_methods.as_deref(), Some("TOKEN,FS"));
        assert_eq!(t.crypto_methods.as_deref(), Some("AES"));
        assert_eq!(t.session_duration.as_deref(), Some("86400"));
        assert_eq!(t.session_lease, Some(0));
        assert_eq!(t.authentication.as_deref(), Some("OPTIONAL"));
    }

    #[test]
    fn legacy_flag_parsing() {
        for (v, legacy) in
            [("true", true), ("TRUE", true), ("yes", true), ("1", true), ("false", false), ("junk", false)]
        {
            let p = read(
                Permission::Daemon,
                &[
                    ("LEGACY_ALLOW_SEMANTICS", v),
                    ("SEC_WRITE_AUTHENTICATION", "REQUIRED"),
                    ("SEC_DEFAULT_AUTHENTICATION_METHODS", "FS"),
                ],
            )
            .unwrap();
            let expected = if legacy { SecurityLevel::Required } else { SecurityLevel::Optional };
            assert_eq!(p.authentication, expected, "{v}");
        }
    }
}
