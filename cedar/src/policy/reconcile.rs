//! How a client's and a server's policies reconcile
//! (`SecMan::ReconcileSecurityPolicyAds`, condor_secman.cpp 807–960).

use super::level::SecurityLevel;
use super::methods::tokens;
use crate::error::Result;
use crate::{Error, ErrorKind};

/// One side's security terms as they appear in its policy ad: the raw
/// attribute values, `None` where the attribute is absent.
///
/// The handshake reads these from the peer's ClassAd, and
/// [`SecurityPolicy::terms`](super::SecurityPolicy::terms) gives our own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PolicyTerms {
    /// `Authentication` (a level name).
    pub authentication: Option<String>,
    /// `Encryption` (a level name).
    pub encryption: Option<String>,
    /// `Integrity` (a level name).
    pub integrity: Option<String>,
    /// `AuthMethods` (a method list).
    pub auth_methods: Option<String>,
    /// `CryptoMethods` (a method list).
    pub crypto_methods: Option<String>,
    /// `SessionDuration` (a string holding seconds).
    pub session_duration: Option<String>,
    /// `SessionLease` (an integer, seconds; 0 means no lease).
    pub session_lease: Option<i64>,
}

/// What one of Authentication, Encryption, Integrity comes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Action {
    /// "YES".
    Yes,
    /// "NO".
    No,
    /// The sides cannot agree: the handshake fails.
    Fail,
}

impl Action {
    /// "YES", "NO" or "FAIL" (`sec_feat_act_rev`).
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Yes => "YES",
            Action::No => "NO",
            Action::Fail => "FAIL",
        }
    }
}

/// `ReconcileSecurityAttribute` (condor_secman.cpp 696–805) on the raw ad
/// values. A missing or empty value counts as NEVER; an invalid one (see
/// [`SecurityLevel::parse`]) makes a client fail and, on the server side,
/// falls through the client's row as C++ does.
///
/// | client \ server | R | P | O | N |
/// |---|---|---|---|---|
/// | **R** | YES | YES | YES | FAIL |
/// | **P** | YES | YES | YES | NO |
/// | **O** | YES | YES | NO | NO |
/// | **N** | FAIL | NO | NO | NO |
///
/// ```
/// use cedar::policy::{reconcile_attribute, Action};
/// assert_eq!(reconcile_attribute(Some("OPTIONAL"), Some("PREFERRED")), Action::Yes);
/// assert_eq!(reconcile_attribute(None, Some("REQUIRED")), Action::Fail); // missing = NEVER
/// ```
pub fn reconcile_attribute(client: Option<&str>, server: Option<&str>) -> Action {
    let level = |v: Option<&str>| match v {
        None | Some("") => Some(SecurityLevel::Never),
        Some(s) => SecurityLevel::parse(s),
    };
    use SecurityLevel::*;
    let server = level(server);
    match level(client) {
        Some(Required) => {
            if server == Some(Never) {
                Action::Fail
            } else {
                Action::Yes
            }
        }
        Some(Preferred) => {
            if server == Some(Never) {
                Action::No
            } else {
                Action::Yes
            }
        }
        Some(Optional) => {
            if matches!(server, Some(Required | Preferred)) {
                Action::Yes
            } else {
                Action::No
            }
        }
        Some(Never) => {
            if server == Some(Required) {
                Action::Fail
            } else {
                Action::No
            }
        }
        None => Action::Fail,
    }
}

/// `ReconcileMethodLists` (condor_secman.cpp 3215–3250): the methods of
/// both lists, in the server's order, spelled as the **client** spelled
/// them; an empty string if none match.
///
/// The server's TOKENS, IDTOKEN and IDTOKENS become TOKEN before the
/// comparison. The client's do **not**: 23.9.6 assigns the canonical name
/// to its loop variable instead of the compared string (l. 3235), so
/// a client that offers IDTOKENS matches nothing, not even a server's
/// IDTOKENS. HTCondor's own clients always send TOKEN, so this only bites
/// other implementations. Duplicates multiply, as in C++.
///
/// ```
/// use cedar::policy::reconcile_method_lists;
/// assert_eq!(reconcile_method_lists("FS,TOKEN", "IDTOKENS,FS"), "TOKEN,FS");
/// assert_eq!(reconcile_method_lists("fs, claimtobe", "CLAIMTOBE,FS"), "claimtobe,fs");
/// assert_eq!(reconcile_method_lists("IDTOKENS", "IDTOKENS"), ""); // the C++ quirk
/// ```
pub fn reconcile_method_lists(client: &str, server: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for sm in tokens(server) {
        let sm =
            if ["TOKENS", "IDTOKENS", "IDTOKEN"].iter().any(|t| t.eq_ignore_ascii_case(sm)) { "TOKEN" } else { sm };
        for cm in tokens(client) {
            if sm.eq_ignore_ascii_case(cm) {
                out.push(cm);
            }
        }
    }
    out.join(",")
}

/// The reconciled terms of a new session: what the server puts in its
/// response ad.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reconciled {
    /// `Authentication`: YES or NO.
    pub authentication: bool,
    /// `AuthRequired`: false only when authentication happens but neither
    /// side required it (then a failed authentication is not fatal).
    /// HTCondor writes the attribute only in that case.
    pub auth_required: bool,
    /// `Encryption`, after the AES rule.
    pub encryption: bool,
    /// `Integrity`, after the AES rule.
    pub integrity: bool,
    /// `AuthMethodsList`, present when both sides sent `AuthMethods` (it
    /// can be empty).
    pub auth_methods_list: Option<String>,
    /// `CryptoMethods` (= `CryptoMethodsList`), present when both sides
    /// sent one (it can be empty).
    pub crypto_methods: Option<String>,
    /// `SessionDuration`, seconds: the shorter of the two, a missing or
    /// unparsable side counting as 0 (written back as a string).
    pub session_duration: i64,
    /// `SessionLease`, when both sides sent one: the shorter, a 0 taking
    /// the other side's value.
    pub session_lease: Option<i64>,
}

impl Reconciled {
    /// `AuthMethods`: the first entry of the list, absent if the list is
    /// absent or empty.
    pub fn auth_method(&self) -> Option<&str> {
        self.auth_methods_list.as_deref().and_then(|l| tokens(l).next())
    }
}

/// C's `atoi`, saturated to `i32` (C++ stores the result in an `int`):
/// leading white space, an optional sign, digits up to the first other
/// character; 0 if there are none.
fn atoi(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        v = (v * 10 + i64::from(b - b'0')).min(i64::from(i32::MAX) + 1);
    }
    let v = if neg { -v } else { v };
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX))
}

/// `ReconcileSecurityPolicyAds`: reconcile each feature with the table of
/// [`reconcile_attribute`], the method lists with
/// [`reconcile_method_lists`], then apply the **AES rule**: if
/// authentication is YES and the first reconciled crypto method is
/// exactly `AES` (case-sensitive, condor_secman.cpp 885), encryption and
/// integrity are both YES.
///
/// Fails with [`ErrorKind::Policy`] when any feature is FAIL.
///
/// ```
/// use cedar::policy::{reconcile, PolicyTerms};
/// let mut client = PolicyTerms::default();
/// client.authentication = Some("REQUIRED".into());
/// client.crypto_methods = Some("AES,BLOWFISH,3DES".into());
/// client.session_duration = Some("86400".into());
/// let mut server = PolicyTerms::default();
/// server.authentication = Some("OPTIONAL".into());
/// server.encryption = Some("OPTIONAL".into());
/// server.crypto_methods = Some("AES".into());
/// server.session_duration = Some("3600".into());
/// let r = reconcile(&client, &server)?;
/// assert!(r.authentication && r.encryption && r.integrity); // the AES rule
/// assert_eq!(r.crypto_methods.as_deref(), Some("AES"));
/// assert_eq!(r.session_duration, 3600);
/// # Ok::<(), cedar::Error>(())
/// ```
pub fn reconcile(client: &PolicyTerms, server: &PolicyTerms) -> Result<Reconciled> {
    let authentication = reconcile_attribute(client.authentication.as_deref(), server.authentication.as_deref());
    let encryption = reconcile_attribute(client.encryption.as_deref(), server.encryption.as_deref());
    let integrity = reconcile_attribute(client.integrity.as_deref(), server.integrity.as_deref());
    for (name, action) in [("Authentication", authentication), ("Encryption", encryption), ("Integrity", integrity)] {
        if action == Action::Fail {
            return Err(Error::new(
                ErrorKind::Policy,
                format!(
                    "security policies cannot be reconciled: {name} is {} on the client and {} on the server",
                    side_value(client, name),
                    side_value(server, name)
                ),
            ));
        }
    }
    let required = |v: &Option<String>| {
        v.as_deref().filter(|s| !s.is_empty()).and_then(SecurityLevel::parse) == Some(SecurityLevel::Required)
    };
    let authentication = authentication == Action::Yes;
    let auth_required = !authentication || required(&client.authentication) || required(&server.authentication);
    let mut encryption = encryption == Action::Yes;
    let mut integrity = integrity == Action::Yes;

    let auth_methods_list = match (&client.auth_methods, &server.auth_methods) {
        (Some(c), Some(s)) => Some(reconcile_method_lists(c, s)),
        _ => None,
    };
    let crypto_methods = match (&client.crypto_methods, &server.crypto_methods) {
        (Some(c), Some(s)) => Some(reconcile_method_lists(c, s)),
        _ => None,
    };
    if let Some(list) = &crypto_methods {
        if authentication && list.split(',').next() == Some("AES") {
            encryption = true;
            integrity = true;
        }
    }

    let duration = |v: &Option<String>| v.as_deref().map(atoi).unwrap_or(0);
    let session_duration = duration(&client.session_duration).min(duration(&server.session_duration));
    let session_lease = match (client.session_lease, server.session_lease) {
        (Some(c), Some(s)) => {
            let c2 = if c == 0 { s } else { c };
            let s2 = if s == 0 { c } else { s };
            Some(c2.min(s2))
        }
        _ => None,
    };
    Ok(Reconciled {
        authentication,
        auth_required,
        encryption,
        integrity,
        auth_methods_list,
        crypto_methods,
        session_duration,
        session_lease,
    })
}

fn side_value<'a>(t: &'a PolicyTerms, name: &str) -> &'a str {
    let v = match name {
        "Authentication" => &t.authentication,
        "Encryption" => &t.encryption,
        _ => &t.integrity,
    };
    match v.as_deref() {
        None | Some("") => "missing (NEVER)",
        Some(s) => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atoi_like_c() {
        assert_eq!(atoi("86400"), 86400);
        assert_eq!(atoi("  200"), 200);
        assert_eq!(atoi("100x"), 100);
        assert_eq!(atoi("abc"), 0);
        assert_eq!(atoi("-5"), -5);
        assert_eq!(atoi(""), 0);
        assert_eq!(atoi("99999999999999999999"), i64::from(i32::MAX));
        assert_eq!(atoi("-99999999999999999999"), i64::from(i32::MIN));
    }
}
