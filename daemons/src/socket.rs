//! The command socket: the TCP listener the master bound for us and passed
//! in `CONDOR_INHERIT`, or one we bind; and the address we advertise.

use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Mutex;

use cedar::sinful::Sinful;

/// Why a command socket could not be had.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SocketError {
    /// The descriptor is not an open socket of this process.
    #[error("inherited descriptor {fd} is not an open socket ({what})")]
    NotASocket {
        /// The descriptor.
        fd: i32,
        /// What it is instead.
        what: String,
    },
    /// The descriptor was adopted already.
    #[error("inherited descriptor {0} was adopted already")]
    AlreadyAdopted(i32),
    /// The socket is not a listening TCP socket, or binding failed.
    #[error("command socket: {0}")]
    Io(#[from] std::io::Error),
}

/// Descriptors taken over by this process, so none is owned twice.
static ADOPTED: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

/// Checks that `fd` is an open socket (Linux: `/proc/self/fd/N` links to
/// `socket:[inode]`) and claims it.
fn claim(fd: i32) -> Result<(), SocketError> {
    if fd < 0 {
        return Err(SocketError::NotASocket { fd, what: "a negative number".into() });
    }
    let link = std::fs::read_link(format!("/proc/self/fd/{fd}"))
        .map_err(|e| SocketError::NotASocket { fd, what: e.to_string() })?;
    let target = link.to_string_lossy();
    if !target.starts_with("socket:") {
        return Err(SocketError::NotASocket { fd, what: target.into_owned() });
    }
    let mut adopted = ADOPTED.lock().map_err(|_| SocketError::AlreadyAdopted(fd))?;
    if !adopted.get_or_insert_with(HashSet::new).insert(fd) {
        return Err(SocketError::AlreadyAdopted(fd));
    }
    Ok(())
}

/// Takes ownership of inherited descriptor `fd`.
fn own(fd: i32) -> Result<std::os::fd::OwnedFd, SocketError> {
    claim(fd)?;
    use std::os::fd::FromRawFd as _;
    // SAFETY: `fd` is open and a socket (checked through /proc just now),
    // it came to this process from its parent in CONDOR_INHERIT, which was
    // removed from the environment, and `claim` lets each descriptor be
    // taken once, so no other owner of it exists in the process.
    #[allow(unsafe_code)]
    let owned = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
    Ok(owned)
}

/// Adopts the TCP listener the master bound for us.
pub fn adopt_listener(fd: i32) -> Result<tokio::net::TcpListener, SocketError> {
    let listener = std::net::TcpListener::from(own(fd)?);
    // A socket that is not listening TCP fails here rather than later.
    listener.local_addr()?;
    listener.set_nonblocking(true)?;
    Ok(tokio::net::TcpListener::from_std(listener)?)
}

/// Closes an inherited socket we do not use (the UDP command socket: as
/// DaemonCore does for a daemon that wants none).
pub fn close_inherited(fd: i32) -> Result<(), SocketError> {
    drop(own(fd)?);
    Ok(())
}

/// The accept queue of a listener we bind: HTCondor's
/// `SOCKET_LISTEN_BACKLOG` default. (std's 128 is filled by a burst of
/// connections, whose clients then wait a second per SYN retransmitted:
/// 1,000 connections at once took 2 to 5 s to open with it.)
pub const LISTEN_BACKLOG: u32 = 4096;

/// Binds a command listener on `ip` (all interfaces when `None`) and
/// `port` (ephemeral when 0), with an accept queue of [`LISTEN_BACKLOG`].
pub async fn bind(ip: Option<IpAddr>, port: u16) -> Result<tokio::net::TcpListener, SocketError> {
    let ip = ip.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    let socket = if ip.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(SocketAddr::new(ip, port))?;
    Ok(socket.listen(LISTEN_BACKLOG)?)
}

/// The machine's host name (`/proc/sys/kernel/hostname`), if known.
pub fn hostname() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty() && h.len() < 256)
}

/// The address others reach a listener on `local` at: its IP, or for a
/// listener on all interfaces `preferred` (`NETWORK_INTERFACE`), else the
/// address of the default route's interface, else 127.0.0.1.
pub fn reachable_ip(local: SocketAddr, preferred: Option<IpAddr>) -> IpAddr {
    if !local.ip().is_unspecified() {
        return local.ip();
    }
    if let Some(ip) = preferred.filter(|ip| !ip.is_unspecified()) {
        return ip;
    }
    // Connecting a UDP socket sends nothing; it picks the route's source.
    std::net::UdpSocket::bind("0.0.0.0:0")
        .and_then(|s| s.connect("192.0.2.1:9").and_then(|()| s.local_addr()))
        .map(|a| a.ip())
        .ok()
        .filter(|ip| !ip.is_unspecified())
        .unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
}

/// Our sinful string, as DaemonCore writes it for a daemon without UDP:
/// `<ip:port?addrs=ip-port&alias=host&noUDP>`.
pub fn sinful(ip: IpAddr, port: u16, alias: Option<&str>) -> Sinful {
    let addrs = match ip {
        IpAddr::V4(v4) => format!("{v4}-{port}"),
        IpAddr::V6(v6) => format!("[{v6}]-{port}"),
    };
    let s = Sinful::new(ip.to_string(), port).with_param("addrs", Some(&addrs));
    let s = match alias {
        Some(a) => s.with_param("alias", Some(a)),
        None => s,
    };
    s.with_param("noUDP", None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinful_strings() {
        let s = sinful(IpAddr::from([127, 0, 0, 1]), 9618, Some("cm"));
        assert_eq!(s.to_string(), "<127.0.0.1:9618?addrs=127.0.0.1-9618&alias=cm&noUDP>");
        assert!(s.no_udp());
        assert_eq!(reachable_ip("10.1.2.3:5".parse().unwrap(), None), IpAddr::from([10, 1, 2, 3]));
        assert_eq!(
            reachable_ip("0.0.0.0:5".parse().unwrap(), Some(IpAddr::from([127, 0, 0, 1]))),
            IpAddr::from([127, 0, 0, 1])
        );
        assert!(!reachable_ip("0.0.0.0:5".parse().unwrap(), None).is_unspecified());
    }

    #[test]
    fn only_open_sockets_are_adopted_and_once() {
        assert!(matches!(adopt_listener(-1), Err(SocketError::NotASocket { .. })));
        assert!(matches!(adopt_listener(987_654), Err(SocketError::NotASocket { .. })));
        // A file is not a socket.
        let file = std::fs::File::open("/proc/self/status").unwrap();
        use std::os::fd::AsRawFd as _;
        assert!(matches!(adopt_listener(file.as_raw_fd()), Err(SocketError::NotASocket { .. })));
    }

    #[tokio::test]
    async fn an_inherited_listener_is_adopted() {
        use std::os::fd::IntoRawFd as _;
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = std_listener.local_addr().unwrap();
        let fd = std_listener.into_raw_fd();
        let listener = adopt_listener(fd).unwrap();
        assert_eq!(listener.local_addr().unwrap(), addr);
        assert!(matches!(adopt_listener(fd), Err(SocketError::AlreadyAdopted(_))));
        let (connect, accept) = tokio::join!(tokio::net::TcpStream::connect(addr), listener.accept());
        assert!(connect.is_ok() && accept.is_ok());
    }
}
