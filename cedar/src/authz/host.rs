//! The host half of an authorization entry: `*`, IP literals, networks
//! (`10.0.0.0/8`, `10.0.0.0/255.0.0.0`, `10.0.*`, `fe80:1:2:*`),
//! `{:local_ips:}` and host names.
//!
//! Parsing follows `condor_netaddr::from_net_string`
//! (`src/condor_utils/condor_netaddr.cpp`) and `is_ipv4_addr_implementation`
//! (`internet.cpp`), with two deliberate differences, both bugs in the
//! shipped 23.9.6 library that the oracle data confirms:
//!
//! * **`/32` and bare IPv4 addresses.** `set_mask` computes
//!   `0xffffffff >> 32`, undefined behaviour in C that x86-64 evaluates as
//!   `>> 0`, so the mask becomes 0 and `10.1.2.3`, `10.1.2.3/32` and
//!   `10.1.2.3/255.255.255.255` match **every IPv4 address** in 23.9.6
//!   (`DENY_READ = */127.0.0.66` denies everyone). This crate matches the
//!   one address, as the documentation promises.
//! * **Mask lengths over 32 (IPv4) or 128 (IPv6)** are accepted by
//!   HTCondor with undefined results; here such an entry matches nothing.
//!
//! **Host names.** HTCondor resolves a plain host name in a list to its
//! addresses when it loads the list, and matches the peer's reverse-DNS
//! names (and aliases) against wildcard patterns such as `*.example.org`.
//! This crate does no DNS: a name entry matches only the names the caller
//! supplies for the peer ([`Peer::with_hostnames`](super::Peer::with_hostnames)),
//! with the [wildcard](super::wildcard_matches) rules. A daemon that wants
//! HTCondor's behaviour resolves the peer's name itself and passes it in;
//! one that does not gets IP-only authorization, which fails closed for
//! ALLOW entries and open for DENY entries naming hosts (say so in the
//! daemon's documentation).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The longest host pattern accepted, in bytes.
pub const MAX_HOST_PATTERN_LEN: usize = 1024;

/// A parsed host pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostPattern {
    /// `*` or `*/*`: every host.
    Any,
    /// An address or network: `base` with the first `prefix` bits
    /// significant.
    Net {
        /// The network's base address.
        base: IpAddr,
        /// Significant leading bits (0–32 for IPv4, 0–128 for IPv6).
        prefix: u8,
    },
    /// `{:local_ips:}`: the daemon's own addresses (loopback, plus those
    /// given to [`AuthzConfig::local_ips`](super::AuthzConfig::local_ips)).
    LocalIps,
    /// A host name or a wildcard name pattern, matched against the names
    /// the caller supplies for the peer. Also holds anything that is
    /// neither a network nor `*` (a sinful string, a bad mask), which
    /// therefore matches no real host name.
    Name(String),
}

impl HostPattern {
    /// Parses the host half of an entry.
    ///
    /// ```
    /// use cedar::authz::HostPattern;
    /// use std::net::IpAddr;
    /// let p = HostPattern::parse("192.168.*");
    /// let ip: IpAddr = "192.168.7.1".parse().unwrap();
    /// assert!(p.matches_ip(ip, &[]));
    /// assert!(!HostPattern::parse("10.0.0.0/8").matches_ip(ip, &[]));
    /// ```
    pub fn parse(text: &str) -> HostPattern {
        if text == "*" || text == "*/*" {
            return HostPattern::Any;
        }
        if text.eq_ignore_ascii_case("{:local_ips:}") {
            return HostPattern::LocalIps;
        }
        if text.len() <= MAX_HOST_PATTERN_LEN {
            if let Some((base, prefix)) = parse_net(text) {
                return HostPattern::Net { base, prefix };
            }
        }
        HostPattern::Name(text.to_owned())
    }

    /// Whether a peer at `ip` matches by address (HTCondor's first pass,
    /// `lookup_user_ip_*`). `local_ips` are the daemon's own addresses.
    pub fn matches_ip(&self, ip: IpAddr, local_ips: &[IpAddr]) -> bool {
        let ip = canonical_ip(ip);
        match self {
            HostPattern::Any => true,
            HostPattern::Net { base, prefix } => net_contains(*base, *prefix, ip),
            HostPattern::LocalIps => ip.is_loopback() || local_ips.iter().any(|l| canonical_ip(*l) == ip),
            HostPattern::Name(_) => false,
        }
    }

    /// Whether one of the peer's host names matches (HTCondor's second
    /// pass, `lookup_user_host_*`: every host key compared as a wildcard
    /// pattern, so `*` matches too).
    pub fn matches_name(&self, hostname: &str) -> bool {
        match self {
            HostPattern::Any => true,
            HostPattern::Name(p) => super::wildcard_matches(p, hostname),
            HostPattern::Net { .. } | HostPattern::LocalIps => false,
        }
    }
}

/// IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) are treated as the IPv4
/// address, as a dual-stack socket reports IPv4 peers that way.
pub(crate) fn canonical_ip(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => ip,
        },
        v4 => v4,
    }
}

fn net_contains(base: IpAddr, prefix: u8, ip: IpAddr) -> bool {
    match (base, ip) {
        (IpAddr::V4(b), IpAddr::V4(a)) => {
            let mask = if prefix == 0 { 0 } else { u32::MAX << (32 - u32::from(prefix.min(32))) };
            u32::from(b) & mask == u32::from(a) & mask
        }
        (IpAddr::V6(b), IpAddr::V6(a)) => {
            let mask = if prefix == 0 { 0 } else { u128::MAX << (128 - u32::from(prefix.min(128))) };
            u128::from(b) & mask == u128::from(a) & mask
        }
        _ => false,
    }
}

fn parse_net(text: &str) -> Option<(IpAddr, u8)> {
    if let Some((base, mask)) = text.split_once('/') {
        let base: IpAddr = base.parse().ok()?;
        if !mask.is_empty() && mask.bytes().all(|c| c.is_ascii_digit()) {
            let bits: u32 = mask.parse().ok()?;
            let max = if base.is_ipv4() { 32 } else { 128 };
            if bits > max {
                return None;
            }
            return Some((base, u8::try_from(bits).ok()?));
        }
        // Only IPv4 takes a dotted mask, and it must be contiguous ones.
        if base.is_ipv4() {
            let m: Ipv4Addr = mask.parse().ok()?;
            let m = u32::from(m);
            let ones = m.leading_ones();
            if ones < 32 && m << ones != 0 {
                return None;
            }
            // HTCondor's converter strips trailing zeros first, then counts
            // ones, and rejects a zero mask the same way it rejects a bad one
            // only if bits remain; a zero mask means /0.
            return Some((base, u8::try_from(ones).ok()?));
        }
        return None;
    }
    if !text.contains(':') {
        return parse_ipv4_wildcard(text).map(|(a, bits)| (IpAddr::V4(a), bits));
    }
    match text.find('*') {
        None => text.parse::<Ipv6Addr>().ok().map(|a| (IpAddr::V6(a), 128)),
        Some(star) => {
            // `a:b:*`: the '*' right after the last ':' and nothing after it.
            let rcolon = text.rfind(':')?;
            if star != rcolon + 1 || star + 1 != text.len() {
                return None;
            }
            let filled = format!("{}:", &text[..star]);
            let addr: Ipv6Addr = filled.parse().ok()?;
            let groups = text.bytes().filter(|&c| c == b':').count();
            let bits = (groups * 16).min(128);
            Some((IpAddr::V6(addr), u8::try_from(bits).ok()?))
        }
    }
}

/// `a.b.c.d`, or a prefix of one to four parts optionally ending in `.*`,
/// `*` or `.` (`10.1.*`, `10.1.`, `10.1` all mean 10.1.0.0/16).
fn parse_ipv4_wildcard(text: &str) -> Option<(Ipv4Addr, u8)> {
    if text.is_empty() || text.len() > 15 {
        return None;
    }
    let mut s = text;
    if let Some(stripped) = s.strip_suffix(".*") {
        s = stripped;
    } else if let Some(stripped) = s.strip_suffix('*').or_else(|| s.strip_suffix('.')) {
        s = stripped;
    }
    if s.is_empty() {
        return None;
    }
    let mut octets = [0u8; 4];
    let mut parts = 0usize;
    for part in s.split('.') {
        if parts >= 4 || part.is_empty() || !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let v: u32 = part.parse().ok()?;
        octets[parts] = u8::try_from(v).ok()?;
        parts += 1;
    }
    let bits = u8::try_from(parts * 8).ok()?;
    Some((Ipv4Addr::from(octets), bits))
}
