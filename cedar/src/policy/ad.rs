//! Policy terms to and from the security ClassAds of the handshake.

use classad::{ClassAd, Value};

use super::reconcile::{PolicyTerms, Reconciled};
use super::SecurityPolicy;

/// `Authentication` (`ATTR_SEC_AUTHENTICATION`).
pub const ATTR_AUTHENTICATION: &str = "Authentication";
/// `Encryption`.
pub const ATTR_ENCRYPTION: &str = "Encryption";
/// `Integrity`.
pub const ATTR_INTEGRITY: &str = "Integrity";
/// `OutgoingNegotiation` (`ATTR_SEC_NEGOTIATION`).
pub const ATTR_NEGOTIATION: &str = "OutgoingNegotiation";
/// `AuthMethods`.
pub const ATTR_AUTH_METHODS: &str = "AuthMethods";
/// `AuthMethodsList`.
pub const ATTR_AUTH_METHODS_LIST: &str = "AuthMethodsList";
/// `CryptoMethods`.
pub const ATTR_CRYPTO_METHODS: &str = "CryptoMethods";
/// `CryptoMethodsList`.
pub const ATTR_CRYPTO_METHODS_LIST: &str = "CryptoMethodsList";
/// `AuthRequired`.
pub const ATTR_AUTH_REQUIRED: &str = "AuthRequired";
/// `SessionDuration` (a string).
pub const ATTR_SESSION_DURATION: &str = "SessionDuration";
/// `SessionLease` (an integer).
pub const ATTR_SESSION_LEASE: &str = "SessionLease";
/// `Enact`.
pub const ATTR_ENACT: &str = "Enact";

fn string_attr(ad: &ClassAd, name: &str) -> Option<String> {
    // C++ `LookupString` evaluates the attribute and takes only a string.
    ad.eval_attr(name).as_str().map(str::to_string)
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "YES"
    } else {
        "NO"
    }
}

impl PolicyTerms {
    /// The terms of a peer's policy ad: the string attributes that
    /// `ReconcileSecurityPolicyAds` looks up (a non-string value counts as
    /// absent, as `LookupString` fails on it) and the integer
    /// `SessionLease`.
    ///
    /// ```
    /// use cedar::policy::PolicyTerms;
    /// let ad: classad::ClassAd =
    ///     r#"[ Authentication = "REQUIRED"; CryptoMethods = "AES"; SessionDuration = "60"; SessionLease = 3600 ]"#
    ///         .parse()
    ///         .unwrap();
    /// let t = PolicyTerms::from_ad(&ad);
    /// assert_eq!(t.authentication.as_deref(), Some("REQUIRED"));
    /// assert_eq!(t.session_lease, Some(3600));
    /// assert_eq!(t.encryption, None);
    /// ```
    pub fn from_ad(ad: &ClassAd) -> PolicyTerms {
        PolicyTerms {
            authentication: string_attr(ad, ATTR_AUTHENTICATION),
            encryption: string_attr(ad, ATTR_ENCRYPTION),
            integrity: string_attr(ad, ATTR_INTEGRITY),
            auth_methods: string_attr(ad, ATTR_AUTH_METHODS),
            crypto_methods: string_attr(ad, ATTR_CRYPTO_METHODS),
            session_duration: string_attr(ad, ATTR_SESSION_DURATION),
            session_lease: match ad.eval_attr(ATTR_SESSION_LEASE) {
                Value::Int(i) => Some(i),
                _ => None,
            },
        }
    }
}

impl SecurityPolicy {
    /// Write the policy attributes of our side's security ad, as
    /// `FillInSecurityPolicyAd` does: `OutgoingNegotiation`,
    /// `Authentication`, `Encryption`, `Integrity` (level names),
    /// `AuthMethods` and `CryptoMethods` when not empty, `SessionDuration`
    /// (a string), `SessionLease` and `Enact = "NO"`. The identity and
    /// address attributes (`Subsystem`, `ServerPid`, `RemoteVersion`, …)
    /// are the handshake's to add.
    pub fn write_to(&self, ad: &mut ClassAd) {
        let t = self.terms();
        ad.insert(ATTR_NEGOTIATION, self.negotiation.as_str());
        ad.insert(ATTR_AUTHENTICATION, self.authentication.as_str());
        ad.insert(ATTR_ENCRYPTION, self.encryption.as_str());
        ad.insert(ATTR_INTEGRITY, self.integrity.as_str());
        if let Some(m) = t.auth_methods {
            ad.insert(ATTR_AUTH_METHODS, m);
        }
        if let Some(m) = t.crypto_methods {
            ad.insert(ATTR_CRYPTO_METHODS, m);
        }
        ad.insert(ATTR_SESSION_DURATION, self.session_duration.to_string());
        ad.insert(ATTR_SESSION_LEASE, self.session_lease);
        ad.insert(ATTR_ENACT, "NO");
    }
}

impl Reconciled {
    /// Write the reconciled terms as `ReconcileSecurityPolicyAds` writes
    /// them into the server's response ad: `Authentication`,
    /// `AuthRequired = false` (only when authenticating without either side
    /// requiring it), `Encryption`, `Integrity`, `AuthMethodsList` and
    /// `AuthMethods` (the first entry, when there is one), `CryptoMethods`
    /// and `CryptoMethodsList`, `SessionDuration` (a string),
    /// `SessionLease`, and `Enact = "YES"`.
    pub fn write_to(&self, ad: &mut ClassAd) {
        ad.insert(ATTR_AUTHENTICATION, yes_no(self.authentication));
        if self.authentication && !self.auth_required {
            ad.insert(ATTR_AUTH_REQUIRED, false);
        }
        ad.insert(ATTR_ENCRYPTION, yes_no(self.encryption));
        ad.insert(ATTR_INTEGRITY, yes_no(self.integrity));
        if let Some(list) = &self.auth_methods_list {
            ad.insert(ATTR_AUTH_METHODS_LIST, list.as_str());
            if let Some(first) = self.auth_method() {
                ad.insert(ATTR_AUTH_METHODS, first);
            }
        }
        if let Some(list) = &self.crypto_methods {
            ad.insert(ATTR_CRYPTO_METHODS, list.as_str());
            ad.insert(ATTR_CRYPTO_METHODS_LIST, list.as_str());
        }
        ad.insert(ATTR_SESSION_DURATION, self.session_duration.to_string());
        if let Some(lease) = self.session_lease {
            ad.insert(ATTR_SESSION_LEASE, lease);
        }
        ad.insert(ATTR_ENACT, "YES");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::reconcile;

    /// The ad HTCondor 23.9.6's `ReconcileSecurityPolicyAds` returned for
    /// these two ads (client `Authentication = "REQUIRED"`, `AuthMethods =
    /// "FS,TOKEN"`, `CryptoMethods = "AES,BLOWFISH"`; server `OPTIONAL`,
    /// `"IDTOKENS,FS"`, `"AES"`), unparsed by libclassad in the chroot.
    const CPP_RESULT: &str = r#"[ Enact = "YES"; Integrity = "YES"; Encryption = "YES"; AuthMethods = "TOKEN"; CryptoMethods = "AES"; Authentication = "YES"; AuthMethodsList = "TOKEN,FS"; SessionDuration = "0"; CryptoMethodsList = "AES" ]"#;

    #[test]
    fn response_ad_matches_htcondor() {
        let client: ClassAd =
            r#"[ Authentication = "REQUIRED"; AuthMethods = "FS,TOKEN"; CryptoMethods = "AES,BLOWFISH" ]"#.parse().unwrap();
        let server: ClassAd =
            r#"[ Authentication = "OPTIONAL"; AuthMethods = "IDTOKENS,FS"; CryptoMethods = "AES" ]"#.parse().unwrap();
        let r = reconcile(&PolicyTerms::from_ad(&client), &PolicyTerms::from_ad(&server)).unwrap();
        let mut ours = ClassAd::new();
        r.write_to(&mut ours);
        let cpp: ClassAd = CPP_RESULT.parse().unwrap();
        assert_eq!(ours.len(), cpp.len());
        for name in cpp.names() {
            assert_eq!(ours.eval_attr(name), cpp.eval_attr(name), "{name}");
        }
    }

    #[test]
    fn policy_ad_round_trips_through_terms() {
        let p = SecurityPolicy::default();
        let mut ad = ClassAd::new();
        p.write_to(&mut ad);
        assert_eq!(PolicyTerms::from_ad(&ad), p.terms());
        assert_eq!(ad.eval_attr(ATTR_SESSION_DURATION).as_str(), Some("86400"));
        assert_eq!(ad.eval_attr(ATTR_ENACT).as_str(), Some("NO"));
        // A non-string level counts as absent, as in C++.
        let odd: ClassAd = "[ Authentication = 5; SessionLease = \"10\" ]".parse().unwrap();
        let t = PolicyTerms::from_ad(&odd);
        assert_eq!((t.authentication, t.session_lease), (None, None));
    }
}
