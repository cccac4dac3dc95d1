//! One entry of an `ALLOW_*`/`DENY_*` list, `user@domain/host`, split the
//! way `IpVerify::split_entry` (`condor_ipverify.cpp` 455–553) does, and a
//! whole list as `StringTokenIterator` tokenizes it.

use super::host::HostPattern;
use super::wildcard_matches;
use crate::error::Result;
use crate::{Error, ErrorKind};

/// The most entries one list may hold.
pub const MAX_LIST_ENTRIES: usize = 4096;
/// The longest list value accepted, in bytes.
pub const MAX_LIST_LEN: usize = 256 * 1024;
/// The longest single entry accepted, in bytes.
pub const MAX_ENTRY_LEN: usize = 2048;

/// One parsed list entry.
///
/// ```
/// use cedar::authz::{Entry, HostPattern};
/// let e = Entry::parse("condor@pool.example/10.0.0.0/8");
/// assert_eq!(e.user(), "condor@pool.example");
/// assert!(matches!(e.host(), HostPattern::Net { prefix: 8, .. }));
/// // A bare host means any user from that host.
/// assert_eq!(Entry::parse("10.0.0.5").user(), "*");
/// // A bare user means that user from anywhere.
/// assert_eq!(Entry::parse("alice@example.org").host(), &HostPattern::Any);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    user: String,
    host: HostPattern,
    host_text: String,
    /// `+netgroup` entries (HTCondor uses `innetgr`); never match here.
    netgroup: bool,
}

impl Entry {
    /// Splits `text` into its user and host halves:
    ///
    /// * two or more `/`: `user/net/mask`;
    /// * one `/`: `user/host` if an `@` comes before the `/` or the entry
    ///   starts with `*`; otherwise `net/mask` if it parses as a network,
    ///   else `user/host`;
    /// * no `/`: a user (host `*`) if it holds an `@`, else a host (user `*`);
    /// * a leading `+` is a netgroup, which this crate cannot look up: it
    ///   matches nothing.
    pub fn parse(text: &str) -> Entry {
        if let Some(group) = text.strip_prefix('+') {
            return Entry {
                user: "***".into(),
                host: HostPattern::Name(String::new()),
                host_text: group.into(),
                netgroup: true,
            };
        }
        let (user, host) = match text.find('/') {
            None => {
                if text.contains('@') {
                    (text, "*")
                } else {
                    ("*", text)
                }
            }
            Some(slash0) => {
                let after = &text[slash0 + 1..];
                let at_before = text.find('@').is_some_and(|at| at < slash0);
                if after.contains('/') || at_before || text.starts_with('*') {
                    (&text[..slash0], after)
                } else if matches!(HostPattern::parse(text), HostPattern::Net { .. } | HostPattern::Any) {
                    ("*", text)
                } else {
                    (&text[..slash0], after)
                }
            }
        };
        Entry { user: user.into(), host: HostPattern::parse(host), host_text: host.into(), netgroup: false }
    }

    /// The user pattern (`*` for any user).
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The host pattern.
    pub fn host(&self) -> &HostPattern {
        &self.host
    }

    /// Whether this is a `+netgroup` entry (never matches here).
    pub fn is_netgroup(&self) -> bool {
        self.netgroup
    }

    /// Whether the entry's user half matches `user` (wildcards, ASCII case
    /// ignored), taking `condor@` ≡ `condor_pool@` into account when
    /// `pool_equivalent`.
    pub(crate) fn user_matches(&self, user: &str, pool_equivalent: bool) -> bool {
        if self.netgroup {
            return false;
        }
        if wildcard_matches(&self.user, user) {
            return true;
        }
        pool_equivalent && pool_alternate(&self.user).is_some_and(|alt| wildcard_matches(&alt, user))
    }

    /// The host half as written in the entry (the netgroup name for a
    /// `+netgroup` entry).
    pub fn host_text(&self) -> &str {
        &self.host_text
    }
}

/// `condor@x` → `condor_pool@x` and back (`USE_POOL_USERNAME_EQUIVALENT`,
/// `condor_ipverify.cpp` 410–418; the prefix is compared without case).
fn pool_alternate(user: &str) -> Option<String> {
    const CONDOR: &str = "condor@";
    const POOL: &str = "condor_pool@";
    let head = |n: usize| user.get(..n).filter(|h| h.len() == n);
    if head(CONDOR.len()).is_some_and(|h| h.eq_ignore_ascii_case(CONDOR)) {
        Some(format!("{POOL}{}", &user[CONDOR.len()..]))
    } else if head(POOL.len()).is_some_and(|h| h.eq_ignore_ascii_case(POOL)) {
        Some(format!("{CONDOR}{}", &user[POOL.len()..]))
    } else {
        None
    }
}

/// Splits a list value into entries: separators are commas and white
/// space, empty tokens are skipped (`StringTokenIterator`'s defaults).
///
/// ```
/// use cedar::authz::parse_list;
/// let list = parse_list("condor@pool/*, */127.0.0.1\n  alice@x").unwrap();
/// assert_eq!(list.len(), 3);
/// ```
pub fn parse_list(value: &str) -> Result<Vec<Entry>> {
    if value.len() > MAX_LIST_LEN {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!("authorization list of {} bytes (limit {MAX_LIST_LEN})", value.len()),
        ));
    }
    let mut out = Vec::new();
    for token in value.split([',', ' ', '\t', '\r', '\n']).filter(|t| !t.is_empty()) {
        if out.len() >= MAX_LIST_ENTRIES {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("authorization list of more than {MAX_LIST_ENTRIES} entries"),
            ));
        }
        if token.len() > MAX_ENTRY_LEN {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("authorization entry of {} bytes (limit {MAX_ENTRY_LEN})", token.len()),
            ));
        }
        out.push(Entry::parse(token));
    }
    Ok(out)
}
