//! HTCondor version strings (`$CondorVersion: 23.9.6 2024-08-08 BuildID:
//! 742617 PackageID: 23.9.6-1 $`), read and compared as `CondorVersionInfo`
//! does (`condor_ver_info.cpp` 420–472, 94–180).
//!
//! Only the three numbers take part in comparisons: C++ reduces them to
//! `major × 1,000,000 + minor × 1,000 + subminor`, and so does
//! [`Version::scalar`].
//!
//! ```
//! use cedar::version::Version;
//! let v: Version = "$CondorVersion: 23.9.6 2024-08-08 BuildID: 742617 $".parse()?;
//! assert_eq!((v.major, v.minor, v.subminor), (23, 9, 6));
//! assert_eq!(v.rest(), "2024-08-08 BuildID: 742617");
//! assert!(v.built_since(9, 9, 0));
//! assert!(!v.built_since(23, 10, 0));
//! assert!("$CondorVersion: 5.1.0 x $".parse::<Version>().is_err()); // "the world starts with Condor V6"
//! # Ok::<(), cedar::Error>(())
//! ```

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, ErrorKind, Result};

/// The prefix of every version string.
pub const PREFIX: &str = "$CondorVersion: ";

/// The longest version string read: 1,024 bytes.
pub const MAX_LEN: usize = 1024;

/// A parsed HTCondor version.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Version {
    /// The major number (at least 6).
    pub major: u32,
    /// The minor number (at most 99).
    pub minor: u32,
    /// The subminor number (at most 99).
    pub subminor: u32,
    rest: String,
}

impl Version {
    /// A version from its numbers and the rest of the string (the build
    /// date and ids), as `CondorVersionInfo(major, minor, subminor, rest)`.
    pub fn new(major: u32, minor: u32, subminor: u32, rest: impl Into<String>) -> Version {
        Version { major, minor, subminor, rest: rest.into() }
    }

    /// What follows the numbers, without the closing ` $`.
    pub fn rest(&self) -> &str {
        &self.rest
    }

    /// `major × 1,000,000 + minor × 1,000 + subminor`, C++'s `Scalar`.
    pub fn scalar(&self) -> u64 {
        u64::from(self.major) * 1_000_000 + u64::from(self.minor) * 1_000 + u64::from(self.subminor)
    }

    /// Whether this version is `major.minor.subminor` or later
    /// (`built_since_version`).
    pub fn built_since(&self, major: u32, minor: u32, subminor: u32) -> bool {
        self.scalar() >= u64::from(major) * 1_000_000 + u64::from(minor) * 1_000 + u64::from(subminor)
    }

    /// Whether the minor number is even: a stable series in HTCondor's
    /// numbering before 9.0 (`is_stable_series`).
    pub fn is_stable_series(&self) -> bool {
        self.minor.is_multiple_of(2)
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Versions order by their numbers only (`compare_versions`); two strings
/// with the same numbers but different build dates compare equal in C++,
/// and here are ordered by the rest of the string to stay consistent with
/// `Eq`.
impl Ord for Version {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.scalar().cmp(&other.scalar()).then_with(|| self.rest.cmp(&other.rest))
    }
}

impl fmt::Display for Version {
    /// The version string: `$CondorVersion: 23.9.6 <rest> $`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PREFIX}{}.{}.{} {} $", self.major, self.minor, self.subminor, self.rest)
    }
}

/// `sscanf("%d")`: optional whitespace, an optional sign, digits.
fn scan_int(s: &[u8], at: &mut usize) -> Option<i64> {
    while *at < s.len() && s[*at].is_ascii_whitespace() {
        *at += 1;
    }
    let mut neg = false;
    if *at < s.len() && (s[*at] == b'-' || s[*at] == b'+') {
        neg = s[*at] == b'-';
        *at += 1;
    }
    let start = *at;
    let mut v: i64 = 0;
    while *at < s.len() && s[*at].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add(i64::from(s[*at] - b'0'));
        *at += 1;
    }
    (*at > start).then_some(if neg { -v } else { v })
}

fn bad(s: &str) -> Error {
    let shown: String = s.chars().take(80).collect();
    Error::new(ErrorKind::Malformed, format!("not an HTCondor version string: {shown:?}"))
}

impl FromStr for Version {
    type Err = Error;

    fn from_str(s: &str) -> Result<Version> {
        if s.len() > MAX_LEN {
            return Err(Error::new(ErrorKind::LimitExceeded, format!("version string of {} bytes", s.len())));
        }
        if !s.starts_with(PREFIX) {
            return Err(bad(s));
        }
        // C++ starts after the first space of the string, the one after the
        // colon.
        let numbers = PREFIX.len();
        let b = s.as_bytes();
        let mut at = numbers;
        let major = scan_int(b, &mut at);
        let minor = (at < b.len() && b[at] == b'.').then(|| {
            at += 1;
            scan_int(b, &mut at)
        });
        let subminor = (at < b.len() && b[at] == b'.').then(|| {
            at += 1;
            scan_int(b, &mut at)
        });
        let (Some(major), Some(Some(minor)), Some(Some(subminor))) = (major, minor, subminor) else {
            return Err(bad(s));
        };
        if major < 6 || minor > 99 || subminor > 99 || minor < 0 || subminor < 0 || major > i64::from(u32::MAX) {
            return Err(bad(s));
        }
        // The next space after the numbers' start precedes the rest.
        let Some(space) = s[numbers..].find(' ') else {
            return Err(bad(s));
        };
        let rest = &s[numbers + space + 1..];
        let rest = match rest.find(" $") {
            Some(end) => &rest[..end],
            None => rest,
        };
        Ok(Version { major: major as u32, minor: minor as u32, subminor: subminor as u32, rest: rest.to_owned() })
    }
}

/// Parses a peer's `RemoteVersion`; `None` when it is missing or does not
/// parse (C++ then knows no version, and `built_since` is false for it).
pub fn parse_peer_version(s: Option<&str>) -> Option<Version> {
    s.and_then(|s| s.parse().ok())
}

/// This crate's own version string, sent as `RemoteVersion`: it claims the
/// HTCondor version whose protocol the crate speaks, since C++ peers decide
/// features (V2 private attributes, StartD daemon ads) by that number.
pub const OUR_VERSION: &str = "$CondorVersion: 23.9.6 2024-08-08 BuildID: classad-rs PackageID: cedar $";

/// The `CondorPlatform` our daemons advertise (what a 23.9 build on Debian
/// 12 says).
pub const OUR_PLATFORM: &str = "$CondorPlatform: X86_64-Debian_12 $";

/// [`OUR_VERSION`] parsed.
pub fn ours() -> Version {
    Version::new(23, 9, 6, "2024-08-08 BuildID: classad-rs PackageID: cedar")
}
