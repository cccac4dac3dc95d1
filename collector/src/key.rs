//! The hash keys of the collector's tables (`hashkey.cpp`).
//!
//! HTCondor compares two keys by their name part alone (the IP part it
//! computes is only logged), case-sensitively; so does this crate.

use classad::{ClassAd, EvalContext, EvalOptions, Value};

use crate::Table;

/// The key of an ad in its table.
///
/// ```
/// use collector::{key::make_key, Table};
/// let slot: classad::ClassAd = r#"[ MyType = "Machine"; Machine = "h"; SlotID = 2 ]"#.parse()?;
/// assert_eq!(make_key(&Table::Slot, &slot).as_deref(), Some("h:2"));
/// let sub: classad::ClassAd = r#"[ Name = "alice@pool"; ScheddName = "s@h"; MyAddress = "<1.2.3.4:9618>" ]"#.parse()?;
/// assert_eq!(make_key(&Table::Submitter, &sub).as_deref(), Some("alice@pools@h"));
/// // A schedd ad needs an address.
/// let no_ip: classad::ClassAd = r#"[ Name = "s@h" ]"#.parse()?;
/// assert_eq!(make_key(&Table::Schedd, &no_ip), None);
/// # Ok::<(), classad::ParseError>(())
/// ```
pub fn make_key(table: &Table, ad: &ClassAd) -> Option<String> {
    match table {
        Table::Slot | Table::StartdPrivate | Table::StartdDaemon => startd_key(ad),
        Table::Schedd | Table::Submitter => {
            let mut name = string_attr(ad, "Name").or_else(|| string_attr(ad, "Machine"))?;
            if let Some(schedd) = string_attr(ad, "ScheddName") {
                name.push_str(&schedd);
            }
            // The IP must be there (MyAddress, else ScheddIpAddr), though
            // it takes no part in the comparison.
            has_host(ad, "ScheddIpAddr").then_some(name)
        }
        Table::License => {
            let name = string_attr(ad, "Name").or_else(|| string_attr(ad, "Machine"))?;
            has_host(ad, "").then_some(name)
        }
        Table::Master | Table::Collector => string_attr(ad, "Name").or_else(|| string_attr(ad, "Machine")),
        Table::CkptSrvr => string_attr(ad, "Machine"),
        Table::Accounting => {
            let mut name = string_attr(ad, "Name")?;
            if let Some(neg) = string_attr(ad, "NegotiatorName") {
                name.push_str(&neg);
            }
            Some(name)
        }
        Table::Grid => {
            let mut name = string_attr(ad, "HashName")?;
            name.push_str(&string_attr(ad, "Owner")?);
            match string_attr(ad, "ScheddName") {
                Some(s) => name.push_str(&s),
                None => {
                    string_attr(ad, "ScheddIpAddr")?;
                }
            }
            if let Some(v) = string_attr(ad, "GridManagerSelectionValue") {
                name.push_str(&v);
            }
            Some(name)
        }
        Table::Negotiator | Table::Had | Table::Storage | Table::Generic(_) => string_attr(ad, "Name"),
    }
}

/// `makeStartdAdHashKey`: `Name`, else `Machine` with `:SlotID` appended
/// when the ad has one.
fn startd_key(ad: &ClassAd) -> Option<String> {
    if let Some(name) = string_attr(ad, "Name") {
        return Some(name);
    }
    let mut name = string_attr(ad, "Machine")?;
    if let Some(slot) = int_attr(ad, "SlotID") {
        name.push(':');
        name.push_str(&slot.to_string());
    }
    Some(name)
}

/// Whether the ad has a sinful with a host in `MyAddress`, or else in
/// `fallback` (`getIpAddr`).
fn has_host(ad: &ClassAd, fallback: &str) -> bool {
    let addr =
        string_attr(ad, "MyAddress").or_else(|| (!fallback.is_empty()).then(|| string_attr(ad, fallback)).flatten());
    addr.is_some_and(|a| match a.parse::<cedar::sinful::Sinful>() {
        Ok(s) => !s.host().is_empty(),
        // getHostFromAddr also takes a bare `host:port`.
        Err(_) => !a.is_empty() && !a.starts_with('<'),
    })
}

/// The attribute evaluated to a string, as `ClassAd::LookupString` does.
pub fn string_attr(ad: &ClassAd, name: &str) -> Option<String> {
    ad.lookup(name)?;
    match EvalContext::new(&EvalOptions::new()).my(ad).eval_attr(name) {
        Value::Str(s) => Some(s.as_str().to_owned()),
        _ => None,
    }
}

/// The attribute evaluated to an integer, as `ClassAd::LookupInteger`
/// does (a boolean counts as 0 or 1, a real is truncated).
pub fn int_attr(ad: &ClassAd, name: &str) -> Option<i64> {
    ad.lookup(name)?;
    match EvalContext::new(&EvalOptions::new()).my(ad).eval_attr(name) {
        Value::Int(i) => Some(i),
        Value::Bool(b) => Some(i64::from(b)),
        Value::Real(r) if r.is_finite() => Some(r as i64),
        _ => None,
    }
}

/// The attribute evaluated to a boolean, as `ClassAd::LookupBool` does (a
/// number counts as true when non-zero).
pub fn bool_attr(ad: &ClassAd, name: &str) -> Option<bool> {
    ad.lookup(name)?;
    match EvalContext::new(&EvalOptions::new()).my(ad).eval_attr(name) {
        Value::Bool(b) => Some(b),
        Value::Int(i) => Some(i != 0),
        Value::Real(r) => Some(r != 0.0),
        _ => None,
    }
}
