//! The `ALLOW_*`/`DENY_*` policy of a daemon and the decision for one
//! request, as `IpVerify` (`src/condor_io/condor_ipverify.cpp`) makes it.

use std::net::IpAddr;

use super::entry::{parse_list, Entry};
use super::host::canonical_ip;
use super::limit::AuthorizationLimit;
use super::perm::Permission;
use crate::error::Result;

/// The identity of a peer that did not authenticate
/// (`UNAUTHENTICATED_FQU`, `authentication.cpp` 55).
pub const UNAUTHENTICATED_USER: &str = "unauthenticated@unmapped";

/// The defaults HTCondor 23.9.6's param table gives these knobs when the
/// configuration does not (`param_info.in`; `condor_config_val -dump ALLOW`
/// with an empty configuration shows only this one).
const PARAM_DEFAULTS: &[(&str, &str)] = &[("ALLOW_CLIENT", "*")];

/// The most host names one peer may carry.
pub const MAX_PEER_HOSTNAMES: usize = 32;

/// Settings that shape how the lists are read, beyond the lists themselves.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct AuthzConfig {
    /// The daemon's subsystem (`COLLECTOR`, `NEGOTIATOR`): when set,
    /// `ALLOW_<LEVEL>_<SUBSYS>` is tried before `ALLOW_<LEVEL>` at each step
    /// of the fallback chain (`SecMan::getSecSetting`). The `<SUBSYS>.NAME`
    /// prefix form is the configuration reader's job (HTCondor's `param()`
    /// does it for every knob); see [`with_subsystem_prefix`].
    pub subsystem: Option<String>,
    /// The daemon's own addresses, for `{:local_ips:}` entries (loopback
    /// always counts).
    pub local_ips: Vec<IpAddr>,
}

impl AuthzConfig {
    /// Settings for a daemon of subsystem `subsys`.
    pub fn for_subsystem(subsys: &str) -> Self {
        AuthzConfig { subsystem: Some(subsys.to_ascii_uppercase()), local_ips: Vec::new() }
    }
}

/// Wraps a lookup so that `SUBSYS.NAME` is tried before `NAME`, the way
/// HTCondor's `param()` resolves every knob.
///
/// ```
/// use cedar::authz::with_subsystem_prefix;
/// let lookup = with_subsystem_prefix("COLLECTOR", |k: &str| match k {
///     "COLLECTOR.ALLOW_READ" => Some("10.*".to_string()),
///     "ALLOW_READ" => Some("*".to_string()),
///     _ => None,
/// });
/// assert_eq!(lookup("ALLOW_READ").as_deref(), Some("10.*"));
/// ```
pub fn with_subsystem_prefix<F>(subsys: &str, lookup: F) -> impl Fn(&str) -> Option<String>
where
    F: Fn(&str) -> Option<String>,
{
    let subsys = subsys.to_ascii_uppercase();
    move |name: &str| lookup(&format!("{subsys}.{name}")).or_else(|| lookup(name))
}

/// The peer of one request.
///
/// ```
/// use cedar::authz::Peer;
/// let peer = Peer::new("127.0.0.1".parse().unwrap()).with_user("condor@pool.example");
/// assert_eq!(peer.user(), "condor@pool.example");
/// assert_eq!(Peer::new("::1".parse().unwrap()).user(), "unauthenticated@unmapped");
/// ```
#[derive(Debug, Clone)]
pub struct Peer<'a> {
    addr: IpAddr,
    user: Option<&'a str>,
    limit: Option<&'a AuthorizationLimit>,
    hostnames: &'a [String],
}

impl<'a> Peer<'a> {
    /// An unauthenticated peer at `addr`.
    pub fn new(addr: IpAddr) -> Self {
        Peer { addr, user: None, limit: None, hostnames: &[] }
    }

    /// The peer's authenticated, mapped identity (`user@domain`, as
    /// [`Identity::fqu`](super::Identity::fqu) gives it). An empty name
    /// counts as unauthenticated, as in `Sock::setFullyQualifiedUser`.
    pub fn with_user(mut self, user: &'a str) -> Self {
        self.user = (!user.is_empty()).then_some(user);
        self
    }

    /// The session's authorization limit (CLAIMTOBE, token scopes).
    pub fn with_limit(mut self, limit: &'a AuthorizationLimit) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Host names for the peer (from the caller's own reverse lookup); the
    /// first [`MAX_PEER_HOSTNAMES`] are used. See the [host](super::HostPattern)
    /// docs for why this crate does no DNS.
    pub fn with_hostnames(mut self, hostnames: &'a [String]) -> Self {
        self.hostnames = &hostnames[..hostnames.len().min(MAX_PEER_HOSTNAMES)];
        self
    }

    /// The peer's address.
    pub fn addr(&self) -> IpAddr {
        self.addr
    }

    /// The identity the lists are checked against:
    /// `unauthenticated@unmapped` for an unauthenticated peer.
    pub fn user(&self) -> &str {
        self.user.unwrap_or(UNAUTHENTICATED_USER)
    }
}

/// The outcome of a check, with a reason fit for a log line (HTCondor's
/// wording where it has one).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// The request may proceed.
    Allowed(String),
    /// The request is refused.
    Denied(String),
}

impl Decision {
    /// Whether the request may proceed.
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allowed(_))
    }

    /// The reason.
    pub fn reason(&self) -> &str {
        match self {
            Decision::Allowed(r) | Decision::Denied(r) => r,
        }
    }

    /// The line a C++ daemon logs for this decision
    /// (`DaemonCore::Verify`, `daemon_core.cpp` 3088–3096), e.g.
    /// `PERMISSION DENIED to condor from host 127.0.0.1 for command 60021
    /// (DC_NOP_WRITE), access level WRITE: reason: …`. `what` names the
    /// operation (`command <n> (<NAME>)` in daemon core).
    ///
    /// ```
    /// use cedar::authz::{Decision, Peer, Permission};
    /// let peer = Peer::new("10.0.0.1".parse().unwrap());
    /// let d = Decision::Denied("READ authorization policy denies all access".into());
    /// assert_eq!(
    ///     d.log_line(&peer, Permission::Read, "command 5 (QUERY_STARTD_ADS)"),
    ///     "PERMISSION DENIED to unauthenticated@unmapped from host 10.0.0.1 for command 5 \
    ///      (QUERY_STARTD_ADS), access level READ: reason: READ authorization policy denies all access"
    /// );
    /// ```
    pub fn log_line(&self, peer: &Peer<'_>, perm: Permission, what: &str) -> String {
        format!(
            "PERMISSION {} to {} from host {} for {what}, access level {perm}: reason: {}",
            if self.is_allowed() { "GRANTED" } else { "DENIED" },
            peer.user(),
            canonical_ip(peer.addr),
            self.reason()
        )
    }
}

#[derive(Debug, Clone)]
enum Behavior {
    AllowAll,
    DenyAll,
    OnlyDenies,
    Table,
}

#[derive(Debug, Clone)]
struct Level {
    behavior: Behavior,
    allow: Vec<Entry>,
    deny: Vec<Entry>,
    allow_knob: Option<String>,
    deny_knob: Option<String>,
}

/// A daemon's authorization policy: for every level, its resolved `ALLOW_`
/// and `DENY_` lists.
///
/// Rules (each checked against 23.9.6, see `tests/authz_oracle.rs`):
///
/// * ALLOW-level commands always pass.
/// * A level whose `DENY_` list is `*` (or `*/*`) denies everyone.
/// * A level with **no `ALLOW_` list at all** (after the fallbacks) denies
///   everyone, except READ and WRITE, which may still be granted through a
///   level that implies them (e.g. `ALLOW_DAEMON` grants WRITE and READ).
///   With no configuration at all, every level but ALLOW is therefore
///   denied (23.9.6 ships only `ALLOW_CLIENT = *` as a default).
/// * `ALLOW_x = *` with no `DENY_x` allows everyone; with a `DENY_x`, it
///   allows everyone the deny list does not match.
/// * Otherwise a matching DENY entry denies (DENY beats ALLOW, and stops
///   the implied-level search); a matching ALLOW entry allows; when neither
///   matches, the levels that imply this one are tried in turn
///   ([`Permission::directly_implied_by`]) and the first that allows wins;
///   else the request is denied.
/// * Entries are `user/host`; a bare host means any user, authenticated or
///   not (an unauthenticated peer is `unauthenticated@unmapped`); the user
///   half takes `*` wildcards; `condor@` and `condor_pool@` are the same
///   user unless `USE_POOL_USERNAME_EQUIVALENT = false`.
///
/// ```
/// use cedar::authz::{Authorizer, AuthzConfig, Peer, Permission};
/// let cfg = |k: &str| match k {
///     "ALLOW_READ" => Some("*".to_string()),
///     "ALLOW_DAEMON" => Some("condor@pool.example/10.0.0.0/8, */127.0.0.1".to_string()),
///     "DENY_DAEMON" => Some("*/10.6.6.6".to_string()),
///     _ => None,
/// };
/// let authz = Authorizer::from_config(&cfg, &AuthzConfig::for_subsystem("COLLECTOR")).unwrap();
/// let peer = Peer::new("10.1.2.3".parse().unwrap()).with_user("condor_pool@pool.example");
/// // ADVERTISE_STARTD falls back to ALLOW_DAEMON; condor_pool@ counts as condor@.
/// assert!(authz.check(&peer, Permission::AdvertiseStartd).is_allowed());
/// let evil = Peer::new("10.6.6.6".parse().unwrap()).with_user("condor@pool.example");
/// let d = authz.check(&evil, Permission::Daemon);
/// assert_eq!(d.reason(), "DAEMON authorization policy denies IP address 10.6.6.6");
/// // No ALLOW_NEGOTIATOR (nor ALLOW_DEFAULT): nobody.
/// assert!(!authz.check(&peer, Permission::Negotiator).is_allowed());
/// ```
#[derive(Debug, Clone)]
pub struct Authorizer {
    levels: Vec<Level>,
    pool_equivalent: bool,
    local_ips: Vec<IpAddr>,
}

impl Authorizer {
    /// Reads the lists through `lookup` (knob name → value; `None` when the
    /// knob is not defined). Also reads `LEGACY_ALLOW_SEMANTICS` and
    /// `USE_POOL_USERNAME_EQUIVALENT`.
    ///
    /// For each level, the `ALLOW_` (and separately the `DENY_`) knob is
    /// the first one defined along the level's
    /// [fallback chain](Permission::config_chain), trying
    /// `ALLOW_<LEVEL>_<SUBSYS>` before `ALLOW_<LEVEL>` at each step. A knob
    /// defined as the empty string counts as undefined (HTCondor's
    /// `param()` returns no value for it). `ALLOW_CLIENT` defaults to `*`,
    /// as in HTCondor's param table; no other list has a default.
    pub fn from_config<F>(lookup: &F, cfg: &AuthzConfig) -> Result<Authorizer>
    where
        F: Fn(&str) -> Option<String> + ?Sized,
    {
        let get = |name: &str| {
            lookup(name).filter(|v| !v.trim().is_empty()).or_else(|| {
                PARAM_DEFAULTS.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.to_string())
            })
        };
        let legacy = get("LEGACY_ALLOW_SEMANTICS").and_then(|v| parse_bool(&v)).unwrap_or(false);
        let pool_equivalent = get("USE_POOL_USERNAME_EQUIVALENT").and_then(|v| parse_bool(&v)).unwrap_or(true);
        let mut levels = Vec::with_capacity(Permission::ALL.len());
        for perm in Permission::ALL {
            // Legacy order applies from DAEMON on (`perm >= DAEMON`).
            let legacy_here = legacy && perm >= Permission::Daemon;
            let find = |prefix: &str| -> Option<(String, String)> {
                for step in perm.config_chain(legacy_here) {
                    if let Some(sub) = &cfg.subsystem {
                        let name = format!("{prefix}_{}_{}", step.name(), sub);
                        if let Some(v) = get(&name) {
                            return Some((name, v));
                        }
                    }
                    let name = format!("{prefix}_{}", step.name());
                    if let Some(v) = get(&name) {
                        return Some((name, v));
                    }
                }
                None
            };
            let allow = find("ALLOW");
            let deny = find("DENY");
            let is_star =
                |v: &Option<(String, String)>| v.as_ref().is_some_and(|(_, v)| matches!(v.trim(), "*" | "*/*"));
            let behavior = if perm == Permission::Allow {
                Behavior::AllowAll
            } else if is_star(&deny) || (allow.is_none() && perm != Permission::Read && perm != Permission::Write) {
                Behavior::DenyAll
            } else if is_star(&allow) {
                if deny.is_none() {
                    Behavior::AllowAll
                } else {
                    Behavior::OnlyDenies
                }
            } else {
                Behavior::Table
            };
            let (allow_list, deny_list) = match behavior {
                Behavior::Table => (
                    allow.as_ref().map(|(_, v)| parse_list(v)).transpose()?.unwrap_or_default(),
                    deny.as_ref().map(|(_, v)| parse_list(v)).transpose()?.unwrap_or_default(),
                ),
                Behavior::OnlyDenies => {
                    (Vec::new(), deny.as_ref().map(|(_, v)| parse_list(v)).transpose()?.unwrap_or_default())
                }
                _ => (Vec::new(), Vec::new()),
            };
            levels.push(Level {
                behavior,
                allow: allow_list,
                deny: deny_list,
                allow_knob: allow.map(|(n, _)| n),
                deny_knob: deny.map(|(n, _)| n),
            });
        }
        Ok(Authorizer { levels, pool_equivalent, local_ips: cfg.local_ips.clone() })
    }

    /// The knob that supplied `perm`'s ALLOW list, if any (for logs and
    /// `condor_ping -help config`-style reports).
    pub fn allow_knob(&self, perm: Permission) -> Option<&str> {
        self.level(perm).and_then(|l| l.allow_knob.as_deref())
    }

    /// The knob that supplied `perm`'s DENY list, if any.
    pub fn deny_knob(&self, perm: Permission) -> Option<&str> {
        self.level(perm).and_then(|l| l.deny_knob.as_deref())
    }

    fn level(&self, perm: Permission) -> Option<&Level> {
        self.levels.get(usize::from(perm.number()))
    }

    /// Decides whether `peer` may use a command of level `perm`, applying
    /// the peer's authorization limit first.
    pub fn check(&self, peer: &Peer<'_>, perm: Permission) -> Decision {
        self.check_command(peer, perm, &[])
    }

    /// Like [`check`](Self::check) for a command registered with alternate
    /// levels (e.g. the negotiator's RESCHEDULE: DAEMON, else
    /// ADVERTISE_SCHEDD or ADMINISTRATOR): the limit must permit one of
    /// them, then the primary level is tried, then each alternate.
    pub fn check_command(&self, peer: &Peer<'_>, perm: Permission, alternates: &[Permission]) -> Decision {
        if let Some(limit) = peer.limit {
            if !limit.permits(perm, alternates) {
                return Decision::Denied(format!(
                    "authorization of {} is limited to {}, which does not include {}",
                    peer.user(),
                    if limit.to_attribute().is_empty() { "nothing".to_string() } else { limit.to_attribute() },
                    perm
                ));
            }
        }
        let first = self.verify(peer, perm);
        if first.is_allowed() {
            return first;
        }
        for alt in alternates {
            let d = self.verify(peer, *alt);
            if d.is_allowed() {
                return d;
            }
        }
        first
    }

    /// The list decision alone, without the limit (`IpVerify::Verify`).
    pub fn verify(&self, peer: &Peer<'_>, perm: Permission) -> Decision {
        // The implied-by search is at most two levels deep (READ <- WRITE
        // <- DAEMON); the depth bound guards against a table edit.
        self.verify_depth(peer, perm, 0)
    }

    fn verify_depth(&self, peer: &Peer<'_>, perm: Permission, depth: usize) -> Decision {
        let name = perm.name();
        let Some(level) = self.level(perm) else {
            return Decision::Denied(format!("{name} is not a permission level"));
        };
        match level.behavior {
            Behavior::AllowAll if perm == Permission::Allow => {
                return Decision::Allowed("ALLOW authorization is open to everyone".into());
            }
            Behavior::AllowAll => {
                return Decision::Allowed(format!("{name} authorization policy allows access by anyone"));
            }
            Behavior::DenyAll => {
                return Decision::Denied(format!("{name} authorization policy denies all access"));
            }
            Behavior::OnlyDenies | Behavior::Table => {}
        }
        let ip = canonical_ip(peer.addr);
        let user = peer.user();
        let ident = self.identifiers(peer, ip);
        if let Some(how) = self.find(&level.deny, peer, ip, user) {
            return Decision::Denied(format!("{name} authorization policy denies {how}"));
        }
        if let Some(how) = self.find(&level.allow, peer, ip, user) {
            return Decision::Allowed(format!(
                "{name} authorization policy allows {how}; identifiers used for this remote host: {ident}"
            ));
        }
        if let Behavior::OnlyDenies = level.behavior {
            return Decision::Allowed(format!("{name} authorization policy does not deny, so allowing"));
        }
        if depth < Permission::ALL.len() {
            for parent in perm.directly_implied_by() {
                if let Decision::Allowed(why) = self.verify_depth(peer, *parent, depth + 1) {
                    return Decision::Allowed(format!("{name} is implied by {parent}; {why}"));
                }
            }
        }
        Decision::Denied(format!(
            "{name} authorization policy contains no matching ALLOW entry for this request; \
             identifiers used for this host: {ident}, hostname size = {}, original ip address = {ip}",
            peer.hostnames.len()
        ))
    }

    fn identifiers(&self, peer: &Peer<'_>, ip: IpAddr) -> String {
        let mut s = ip.to_string();
        for h in peer.hostnames {
            s.push(',');
            s.push_str(h);
        }
        s
    }

    /// HTCondor's two passes: by IP address over every entry, then by each
    /// host name over every entry.
    fn find(&self, list: &[Entry], peer: &Peer<'_>, ip: IpAddr, user: &str) -> Option<String> {
        let users = |e: &Entry| e.user_matches(user, self.pool_equivalent);
        if list.iter().any(|e| e.host().matches_ip(ip, &self.local_ips) && users(e)) {
            return Some(format!("IP address {ip}"));
        }
        for h in peer.hostnames {
            if list.iter().any(|e| e.host().matches_name(h) && users(e)) {
                return Some(format!("hostname {h}"));
            }
        }
        None
    }

    /// The parsed entries of `perm`'s lists (allow, deny) — for reports.
    pub fn entries(&self, perm: Permission) -> (&[Entry], &[Entry]) {
        match self.level(perm) {
            Some(l) => (&l.allow, &l.deny),
            None => (&[], &[]),
        }
    }
}

/// HTCondor's boolean knob values: `true`/`false`, `t`/`f`, `yes`/`no`,
/// `1`/`0`, any case.
fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "t" | "yes" | "y" | "1" => Some(true),
        "false" | "f" | "no" | "n" | "0" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_text_kept() {
        let e = Entry::parse("a@b/host.example");
        assert_eq!(e.host_text(), "host.example");
    }
}
