//! Sinful strings: HTCondor's daemon addresses, such as
//! `<127.0.0.1:9618?addrs=127.0.0.1-9618&alias=host&noUDP&sock=schedd_123_4>`.
//!
//! The host and port come first; then, after `?`, parameters separated by
//! `&`, each `key` or `key=value` with `%XX` escapes in values (as C++'s
//! `Sinful` class writes them). The parameters this crate acts on have
//! accessors: `addrs` (every address of the daemon, `ip-port` joined with
//! `+`), `alias`, `noUDP`, `sock` (the shared-port endpoint) and `CCBID`.
//! Parameters are kept in order, so printing gives back what was read.
//!
//! ```
//! use cedar::sinful::Sinful;
//! let s: Sinful = "<127.0.0.1:9618?addrs=127.0.0.1-9618&alias=host&noUDP&sock=schedd_123_4>".parse()?;
//! assert_eq!(s.host(), "127.0.0.1");
//! assert_eq!(s.port(), 9618);
//! assert!(s.no_udp());
//! assert_eq!(s.shared_port_id(), Some("schedd_123_4"));
//! assert_eq!(s.alias(), Some("host"));
//! assert_eq!(s.addrs(), ["127.0.0.1:9618".parse::<std::net::SocketAddr>().unwrap()]);
//! assert_eq!(s.to_string(), "<127.0.0.1:9618?addrs=127.0.0.1-9618&alias=host&noUDP&sock=schedd_123_4>");
//!
//! let ours = Sinful::new("127.0.0.1", 9618).with_param("noUDP", None);
//! assert_eq!(ours.to_string(), "<127.0.0.1:9618?noUDP>");
//! # Ok::<(), cedar::Error>(())
//! ```

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use crate::error::{Error, ErrorKind, Result};

/// The longest sinful string read: 4,096 bytes.
pub const MAX_LEN: usize = 4096;

/// The most parameters read: 64.
pub const MAX_PARAMS: usize = 64;

/// A daemon address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sinful {
    host: String,
    port: u16,
    params: Vec<(String, Option<String>)>,
}

impl Sinful {
    /// `<host:port>` with no parameters (an IPv6 host is bracketed when
    /// printed).
    pub fn new(host: impl Into<String>, port: u16) -> Sinful {
        Sinful { host: host.into(), port, params: Vec::new() }
    }

    /// The address of a socket.
    pub fn from_addr(addr: SocketAddr) -> Sinful {
        Sinful::new(addr.ip().to_string(), addr.port())
    }

    /// This address with a parameter added (or replaced).
    pub fn with_param(mut self, key: &str, value: Option<&str>) -> Sinful {
        self.set_param(key, value);
        self
    }

    /// Sets a parameter, replacing one of the same key.
    pub fn set_param(&mut self, key: &str, value: Option<&str>) {
        let value = value.map(str::to_owned);
        match self.params.iter_mut().find(|(k, _)| k == key) {
            Some(p) => p.1 = value,
            None => self.params.push((key.to_owned(), value)),
        }
    }

    /// The host as written (without brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The host and port as a socket address, when the host is an IP.
    pub fn socket_addr(&self) -> Option<SocketAddr> {
        self.host.parse::<IpAddr>().ok().map(|ip| SocketAddr::new(ip, self.port))
    }

    /// The parameters in order; a key with no `=` has no value.
    pub fn params(&self) -> &[(String, Option<String>)] {
        &self.params
    }

    /// A parameter's value (`Some(None)` for a bare key such as `noUDP`).
    pub fn param(&self, key: &str) -> Option<Option<&str>> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_deref())
    }

    /// Whether `noUDP` is set: peers must use TCP for everything.
    pub fn no_udp(&self) -> bool {
        self.param("noUDP").is_some()
    }

    /// The shared-port endpoint (`sock=`).
    pub fn shared_port_id(&self) -> Option<&str> {
        self.param("sock").flatten()
    }

    /// The `alias=` host name.
    pub fn alias(&self) -> Option<&str> {
        self.param("alias").flatten()
    }

    /// The CCB contact (`CCBID=`).
    pub fn ccb_id(&self) -> Option<&str> {
        self.param("CCBID").flatten()
    }

    /// Every address listed in `addrs=` (`ip-port` items joined by `+`,
    /// IPv6 ones bracketed); items that do not parse are skipped.
    pub fn addrs(&self) -> Vec<SocketAddr> {
        let Some(Some(list)) = self.param("addrs") else { return Vec::new() };
        list.split('+')
            .filter_map(|item| {
                let (ip, port) = item.rsplit_once('-')?;
                let ip = ip.strip_prefix('[').and_then(|i| i.strip_suffix(']')).unwrap_or(ip);
                Some(SocketAddr::new(ip.parse().ok()?, port.parse().ok()?))
            })
            .collect()
    }
}

fn bad(s: &str, why: &str) -> Error {
    let shown: String = s.chars().take(80).collect();
    Error::new(ErrorKind::Malformed, format!("sinful string {shown:?}: {why}"))
}

/// Undoes `%XX` escapes; a `%` not followed by two hex digits stays.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(v) = hex {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Escapes what would break the parameter syntax.
fn escape(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' | '=' | '>' | '%' | '<' | '?' => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
            _ => out.push(c),
        }
    }
}

impl FromStr for Sinful {
    type Err = Error;

    fn from_str(s: &str) -> Result<Sinful> {
        if s.len() > MAX_LEN {
            return Err(Error::new(ErrorKind::LimitExceeded, format!("sinful string of {} bytes", s.len())));
        }
        let inner =
            s.strip_prefix('<').and_then(|t| t.strip_suffix('>')).ok_or_else(|| bad(s, "not enclosed in < >"))?;
        let (addr, query) = match inner.split_once('?') {
            Some((a, q)) => (a, Some(q)),
            None => (inner, None),
        };
        let (host, port) = if let Some(rest) = addr.strip_prefix('[') {
            let (h, p) = rest.split_once("]:").ok_or_else(|| bad(s, "bad bracketed host"))?;
            (h, p)
        } else {
            addr.rsplit_once(':').ok_or_else(|| bad(s, "no port"))?
        };
        // Brackets only enclose a host; one inside it would print as a
        // string that reads back differently (found by fuzz/cedar_sinful).
        if host.is_empty() || host.contains(['<', '>', '?', '&', '[', ']']) {
            return Err(bad(s, "bad host"));
        }
        let port: u16 = port.parse().map_err(|_| bad(s, "bad port"))?;
        let mut params = Vec::new();
        if let Some(q) = query {
            for item in q.split('&').filter(|i| !i.is_empty()) {
                if params.len() == MAX_PARAMS {
                    return Err(Error::new(ErrorKind::LimitExceeded, format!("over {MAX_PARAMS} sinful parameters")));
                }
                let (k, v) = match item.split_once('=') {
                    Some((k, v)) => (unescape(k), Some(unescape(v))),
                    None => (unescape(item), None),
                };
                params.push((k, v));
            }
        }
        Ok(Sinful { host: host.to_owned(), port, params })
    }
}

impl fmt::Display for Sinful {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::from("<");
        if self.host.contains(':') {
            out.push('[');
            out.push_str(&self.host);
            out.push(']');
        } else {
            out.push_str(&self.host);
        }
        out.push(':');
        out.push_str(&self.port.to_string());
        for (i, (k, v)) in self.params.iter().enumerate() {
            out.push(if i == 0 { '?' } else { '&' });
            escape(k, &mut out);
            if let Some(v) = v {
                out.push('=');
                escape(v, &mut out);
            }
        }
        out.push('>');
        f.write_str(&out)
    }
}
