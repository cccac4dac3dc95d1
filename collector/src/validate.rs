//! What an update must pass before it is stored: HTCondor's
//! `CollectorEngine::ValidateClassAd` (`COLLECTOR_REQUIREMENTS`, the
//! address consistency it implies, and the owner check of
//! `UPDATE_OWN_SUBMITTOR_AD`).
//!
//! The C++ collector checks, in this order, and only when
//! `COLLECTOR_REQUIREMENTS` is set or the command is
//! `UPDATE_OWN_SUBMITTOR_AD`:
//!
//! 1. an ad that carries its daemon's `<SUBSYS>IpAddr` (`StartdIpAddr` for
//!    the startd commands, `ScheddIpAddr` for schedd and submitter ads,
//!    `MasterIpAddr`, `NegotiatorIpAddr`, `CollectorIpAddr`) must carry
//!    the same string as `MyAddress` ("advertises inconsistent IP
//!    addresses"), since administrators filter on `MyAddress`;
//! 2. for `UPDATE_OWN_SUBMITTOR_AD`, the connection's user (the part of the
//!    authenticated identity before its `@`; `unauthenticated` without
//!    authentication) must not be `unmapped` and must equal the submitter
//!    ad's `Name` less everything from its `@` and up to its last `.`
//!    (`group.alice@pool` is `alice`'s);
//! 3. `COLLECTOR_REQUIREMENTS`, evaluated in an ad of its own (MY) against
//!    the update (TARGET): an unscoped name missing from MY is looked up in
//!    the update, `TARGET.x` is the update's, `MY.x` is undefined. True or
//!    a non-zero number accepts; anything else refuses (a result that is
//!    not a boolean or a number is logged as such).

use cedar::command as c;
use classad::{ClassAd, EvalContext, EvalOptions, Semantics, Value};

use crate::key::string_attr;

/// The knob, and the name of the attribute it is evaluated as.
pub const COLLECTOR_REQUIREMENTS: &str = "COLLECTOR_REQUIREMENTS";

/// A parsed `COLLECTOR_REQUIREMENTS`.
///
/// ```
/// use collector::validate::Requirements;
/// let req = Requirements::parse(r#"TARGET.Name =!= "bad" && MyType =!= "Junk""#)?;
/// let good: classad::ClassAd = r#"[ MyType = "DaemonMaster"; Name = "good" ]"#.parse()?;
/// let bad: classad::ClassAd = r#"[ MyType = "DaemonMaster"; Name = "bad" ]"#.parse()?;
/// assert!(req.check(&good).is_ok());
/// assert!(req.check(&bad).is_err());
/// assert!(Requirements::parse("Name ==").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Requirements {
    source: String,
    /// `[ COLLECTOR_REQUIREMENTS = <expr> ]`: the MY ad of the evaluation.
    ad: ClassAd,
}

impl PartialEq for Requirements {
    fn eq(&self, other: &Requirements) -> bool {
        self.source == other.source
    }
}

impl Eq for Requirements {}

impl Requirements {
    /// Parses the expression (the C++ collector refuses to start, or to
    /// take a reconfig, when it does not parse).
    pub fn parse(source: &str) -> Result<Requirements, classad::ParseError> {
        let expr = classad::parse_expr(source)?;
        let mut ad = ClassAd::new();
        ad.insert(COLLECTOR_REQUIREMENTS, expr);
        Ok(Requirements { source: source.to_owned(), ad })
    }

    /// The expression as configured.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether `ad` satisfies the expression.
    pub fn check(&self, ad: &ClassAd) -> Result<(), Refusal> {
        let opts = EvalOptions::new().semantics(Semantics::Old);
        let value = EvalContext::new(&opts).my(&self.ad).target(ad).eval_attr(COLLECTOR_REQUIREMENTS);
        match value {
            Value::Bool(true) => Ok(()),
            Value::Bool(false) => Err(Refusal::Requirements),
            Value::Int(i) if i != 0 => Ok(()),
            Value::Real(r) if r != 0.0 => Ok(()),
            Value::Int(_) | Value::Real(_) => Err(Refusal::Requirements),
            _ => Err(Refusal::NotBoolean),
        }
    }
}

/// Why an update was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// `<SUBSYS>IpAddr` is not `MyAddress`.
    #[error("COLLECTOR_REQUIREMENTS VIOLATION: the ad advertises inconsistent IP addresses: {attr}={value}, MyAddress={my_address}")]
    InconsistentAddress {
        /// The daemon's address attribute (`StartdIpAddr`, …).
        attr: &'static str,
        /// Its value.
        value: String,
        /// `MyAddress` (empty when the ad has none).
        my_address: String,
    },
    /// `UPDATE_OWN_SUBMITTOR_AD` of a submitter ad whose `Name` is not the
    /// authenticated user's (or from a connection without a user).
    #[error("UPDATE_OWN_SUBMITTOR_AD: the submitter ad's Name {name:?} is not owned by {owner:?}")]
    NotOwner {
        /// The ad's `Name` (empty when it has none).
        name: String,
        /// The connection's user.
        owner: String,
    },
    /// `COLLECTOR_REQUIREMENTS` is false (or zero).
    #[error("COLLECTOR_REQUIREMENTS VIOLATION: requirements do not match the ad")]
    Requirements,
    /// `COLLECTOR_REQUIREMENTS` is neither a boolean nor a number.
    #[error("COLLECTOR_REQUIREMENTS did not evaluate to a boolean result; refusing the ad")]
    NotBoolean,
}

/// The `<SUBSYS>IpAddr` attribute of the ads of `command`.
fn address_attr(command: i32) -> Option<&'static str> {
    Some(match command {
        c::MERGE_STARTD_AD | c::UPDATE_STARTD_AD | c::UPDATE_STARTD_AD_WITH_ACK => "StartdIpAddr",
        c::UPDATE_OWN_SUBMITTOR_AD | c::UPDATE_SCHEDD_AD | c::UPDATE_SUBMITTOR_AD => "ScheddIpAddr",
        c::UPDATE_MASTER_AD => "MasterIpAddr",
        c::UPDATE_NEGOTIATOR_AD => "NegotiatorIpAddr",
        c::UPDATE_COLLECTOR_AD => "CollectorIpAddr",
        _ => return None,
    })
}

/// The owner a submitter ad's `Name` names: less everything from the
/// first `@`, then less everything up to the last `.` (an accounting
/// group's prefix).
///
/// ```
/// assert_eq!(collector::validate::submitter_owner("group_a.alice@pool"), "alice");
/// assert_eq!(collector::validate::submitter_owner("bob"), "bob");
/// ```
pub fn submitter_owner(name: &str) -> &str {
    let name = name.split_once('@').map_or(name, |(before, _)| before);
    name.rsplit_once('.').map_or(name, |(_, after)| after)
}

/// Checks update `command` of `ad` (stamped with the connection's
/// identity already) from `user` (the authenticated identity, `None`
/// without authentication) as `ValidateClassAd` does; see the module
/// documentation.
///
/// ```
/// use cedar::command::{UPDATE_MASTER_AD, UPDATE_OWN_SUBMITTOR_AD};
/// use collector::validate::{validate, Refusal};
/// let sub: classad::ClassAd = r#"[ MyType = "Submitter"; Name = "alice@pool"; ScheddName = "s@h"; MyAddress = "<10.0.0.1:9618>" ]"#.parse()?;
/// assert!(validate(UPDATE_OWN_SUBMITTOR_AD, &sub, Some("alice@pool"), None).is_ok());
/// assert!(matches!(validate(UPDATE_OWN_SUBMITTOR_AD, &sub, Some("bob@pool"), None), Err(Refusal::NotOwner { .. })));
/// // Without COLLECTOR_REQUIREMENTS other commands are not checked at all.
/// let odd: classad::ClassAd = r#"[ MyType = "DaemonMaster"; Name = "m"; MasterIpAddr = "<10.0.0.2:1>" ]"#.parse()?;
/// assert!(validate(UPDATE_MASTER_AD, &odd, None, None).is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn validate(
    command: i32,
    ad: &ClassAd,
    user: Option<&str>,
    requirements: Option<&Requirements>,
) -> Result<(), Refusal> {
    if requirements.is_none() && command != c::UPDATE_OWN_SUBMITTOR_AD {
        return Ok(());
    }
    if let Some(attr) = address_attr(command) {
        if let Some(value) = string_attr(ad, attr) {
            let my_address = string_attr(ad, "MyAddress").unwrap_or_default();
            if value != my_address {
                return Err(Refusal::InconsistentAddress { attr, value, my_address });
            }
        }
    }
    if command == c::UPDATE_OWN_SUBMITTOR_AD {
        let owner = match user {
            Some(user) => user.split_once('@').map_or(user, |(u, _)| u),
            // The user part of `unauthenticated@unmapped`, as `getOwner`
            // gives it.
            None => "unauthenticated",
        };
        let name = string_attr(ad, "Name");
        let refused = || Refusal::NotOwner { name: name.clone().unwrap_or_default(), owner: owner.to_owned() };
        if owner.is_empty() || owner == "unmapped" {
            return Err(refused());
        }
        match name.as_deref() {
            Some(n) if submitter_owner(n) == owner => {}
            _ => return Err(refused()),
        }
    }
    match requirements {
        Some(r) => r.check(ad),
        None => Ok(()),
    }
}
