//! The four `SEC_*` security levels.

/// A `SEC_*` level: how much one side wants a feature (authentication,
/// encryption, integrity, negotiation).
///
/// Ordered as HTCondor orders them (`enum sec_req`, condor_secman.h 63):
/// `Never < Optional < Preferred < Required`.
///
/// ```
/// use cedar::policy::SecurityLevel;
/// assert_eq!(SecurityLevel::parse("preferred"), Some(SecurityLevel::Preferred));
/// // Only the first letter counts, as in HTCondor: YES and TRUE mean REQUIRED.
/// assert_eq!(SecurityLevel::parse("Yes"), Some(SecurityLevel::Required));
/// assert_eq!(SecurityLevel::parse("false"), Some(SecurityLevel::Never));
/// assert_eq!(SecurityLevel::parse("maybe"), None);
/// assert!(SecurityLevel::Never < SecurityLevel::Required);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum SecurityLevel {
    /// NEVER: refuse the feature.
    Never,
    /// OPTIONAL: use it if the peer prefers or requires it.
    Optional,
    /// PREFERRED: use it unless the peer refuses it.
    Preferred,
    /// REQUIRED: fail unless it is used.
    Required,
}

impl SecurityLevel {
    /// Parse a level the way HTCondor does (`sec_alpha_to_sec_req`,
    /// condor_secman.cpp 154–175): the first character alone, ignoring
    /// case. `R`, `Y` and `T` are REQUIRED, `P` PREFERRED, `O` OPTIONAL,
    /// `F` and `N` NEVER; anything else, and the empty string, is invalid
    /// (`None`). Leading spaces are not skipped (HTCondor's config reader
    /// trims values before this point).
    pub fn parse(value: &str) -> Option<SecurityLevel> {
        match value.bytes().next()?.to_ascii_uppercase() {
            b'R' | b'Y' | b'T' => Some(SecurityLevel::Required),
            b'P' => Some(SecurityLevel::Preferred),
            b'O' => Some(SecurityLevel::Optional),
            b'F' | b'N' => Some(SecurityLevel::Never),
            _ => None,
        }
    }

    /// The name HTCondor writes into a policy ad (`sec_req_rev`,
    /// condor_secman.cpp 85).
    pub fn as_str(self) -> &'static str {
        match self {
            SecurityLevel::Never => "NEVER",
            SecurityLevel::Optional => "OPTIONAL",
            SecurityLevel::Preferred => "PREFERRED",
            SecurityLevel::Required => "REQUIRED",
        }
    }
}

impl std::fmt::Display for SecurityLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `ReconcileSecurityDependency(a, b)` (condor_secman.cpp 679–693): `b`
/// depends on `a` (encryption on authentication, everything on
/// negotiation). If `a` is NEVER, `b` becomes NEVER, or the pair fails if
/// `b` is REQUIRED; then `a` is raised to `b` if `b` is higher. Returns
/// `false` on failure, leaving both as they were.
///
/// ```
/// use cedar::policy::{reconcile_dependency, SecurityLevel::*};
/// let (mut auth, mut enc) = (Optional, Required);
/// assert!(reconcile_dependency(&mut auth, &mut enc));
/// assert_eq!((auth, enc), (Required, Required)); // encryption needs authentication
/// let (mut neg, mut auth) = (Never, Required);
/// assert!(!reconcile_dependency(&mut neg, &mut auth));
/// ```
pub fn reconcile_dependency(a: &mut SecurityLevel, b: &mut SecurityLevel) -> bool {
    if *a == SecurityLevel::Never {
        if *b == SecurityLevel::Required {
            return false;
        }
        *b = SecurityLevel::Never;
    }
    if *b > *a {
        *a = *b;
    }
    true
}
