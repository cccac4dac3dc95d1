//! Permission levels (`DCpermission`), their names, what each implies and
//! which configuration knobs each falls back to.
//!
//! Everything here is a table from HTCondor 23.9.6's
//! `src/condor_includes/condor_perms.h` and `src/condor_utils/condor_perms.cpp`,
//! checked against `condor_ping -help permheir` (see
//! `cedar/tests/data/authz/permheir.txt`).

use std::fmt;

/// A daemon-core permission level, in HTCondor's numbering.
///
/// ```
/// use cedar::authz::Permission;
/// let p = Permission::from_name("advertise_startd").unwrap();
/// assert_eq!(p, Permission::AdvertiseStartd);
/// assert_eq!(p.name(), "ADVERTISE_STARTD");
/// // A grant of ADVERTISE_STARTD also grants READ.
/// assert!(p.implied().contains(Permission::Read));
/// // ALLOW_ADVERTISE_STARTD falls back to ALLOW_DAEMON, then ALLOW_DEFAULT.
/// assert_eq!(p.config_chain(false), vec![
///     Permission::AdvertiseStartd, Permission::Daemon, Permission::Default]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Permission {
    /// `ALLOW` (0): open to everyone; never checked against a list.
    Allow = 0,
    /// `READ` (1): able to read data.
    Read = 1,
    /// `WRITE` (2): able to modify data (submit jobs).
    Write = 2,
    /// `NEGOTIATOR` (3): from the negotiator.
    Negotiator = 3,
    /// `ADMINISTRATOR` (4): administrative commands (on, off, …).
    Administrator = 4,
    /// `CONFIG` (5): changing configuration settings remotely.
    Config = 5,
    /// `DAEMON` (6): daemon-to-daemon communication.
    Daemon = 6,
    /// `SOAP` (7): deprecated; still a level with its own lists in 23.9.
    Soap = 7,
    /// `DEFAULT` (8): not a level commands use; `ALLOW_DEFAULT` and
    /// `DENY_DEFAULT` are the last fallback of every other level's lists.
    Default = 8,
    /// `CLIENT` (9): tools and client-side daemons (the lists a client
    /// checks a server against).
    Client = 9,
    /// `ADVERTISE_STARTD` (10): able to advertise a startd ad.
    AdvertiseStartd = 10,
    /// `ADVERTISE_SCHEDD` (11): able to advertise a schedd ad.
    AdvertiseSchedd = 11,
    /// `ADVERTISE_MASTER` (12): able to advertise a master ad.
    AdvertiseMaster = 12,
}

use Permission::*;

impl Permission {
    /// Every level, in HTCondor's numeric order (`FIRST_PERM`..`LAST_PERM`).
    pub const ALL: [Permission; 13] = [
        Allow,
        Read,
        Write,
        Negotiator,
        Administrator,
        Config,
        Daemon,
        Soap,
        Default,
        Client,
        AdvertiseStartd,
        AdvertiseSchedd,
        AdvertiseMaster,
    ];

    /// HTCondor's number for the level (`DCpermission`).
    pub fn number(self) -> u8 {
        self as u8
    }

    /// The level with HTCondor's number `n`, if there is one.
    pub fn from_number(n: u8) -> Option<Permission> {
        Self::ALL.get(usize::from(n)).copied()
    }

    /// The name as `PermString` prints it and as it appears in knob names
    /// (`ALLOW_<name>`), e.g. `"ADVERTISE_STARTD"`, `"CONFIG"`.
    pub fn name(self) -> &'static str {
        match self {
            Allow => "ALLOW",
            Read => "READ",
            Write => "WRITE",
            Negotiator => "NEGOTIATOR",
            Administrator => "ADMINISTRATOR",
            Config => "CONFIG",
            Daemon => "DAEMON",
            Soap => "SOAP",
            Default => "DEFAULT",
            Client => "CLIENT",
            AdvertiseStartd => "ADVERTISE_STARTD",
            AdvertiseSchedd => "ADVERTISE_SCHEDD",
            AdvertiseMaster => "ADVERTISE_MASTER",
        }
    }

    /// HTCondor's one-line description (`PermDescription`).
    pub fn description(self) -> &'static str {
        match self {
            Allow => "Open to everyone",
            Read => "Able to read data",
            Write => "Able to modify data (submit jobs)",
            Negotiator => "From the negotiator",
            Administrator => "Administrative cmds (on, off, etc)",
            Config => "Changing config settings remotely",
            Daemon => "Daemon to daemon communcation",
            Soap => "(deprecated) SOAP interface (http PUT)",
            Default => "Default config settings",
            Client => "Tools and client-side daemons",
            AdvertiseStartd => "Able to advertise a STARTD ad",
            AdvertiseSchedd => "Able to advertise a SCHEDD ad",
            AdvertiseMaster => "Able to advertise a MASTER ad",
        }
    }

    /// The level named `name`, compared without regard to ASCII case, as
    /// `getPermissionFromString` does. Only the exact names are accepted
    /// (`"CONFIG"`, not `"CONFIG_PERM"`).
    pub fn from_name(name: &str) -> Option<Permission> {
        Self::ALL.iter().copied().find(|p| p.name().eq_ignore_ascii_case(name))
    }

    /// The level this one directly implies (`aImpliedNext`): WRITE→READ,
    /// NEGOTIATOR→READ, ADMINISTRATOR→WRITE, CONFIG→READ, DAEMON→WRITE,
    /// ADVERTISE_*→READ; `None` for the others.
    pub fn next_implied(self) -> Option<Permission> {
        match self {
            Write | Negotiator | Config | AdvertiseStartd | AdvertiseSchedd | AdvertiseMaster => Some(Read),
            Administrator | Daemon => Some(Write),
            Allow | Read | Soap | Default | Client => None,
        }
    }

    /// This level and every level it implies, transitively (a grant of
    /// DAEMON is a grant of DAEMON, WRITE and READ).
    pub fn implied(self) -> PermSet {
        let mut set = PermSet::EMPTY;
        let mut next = Some(self);
        // The chain is at most three long; the bound is the table's size.
        for _ in 0..Self::ALL.len() {
            match next {
                Some(p) => {
                    set.insert(p);
                    next = p.next_implied();
                }
                None => break,
            }
        }
        set
    }

    /// This level followed by its implied chain, in order (DAEMON, WRITE,
    /// READ): what `condor_ping -help permheir` prints as "Implied perms".
    pub fn implied_chain(self) -> Vec<Permission> {
        let mut chain = Vec::with_capacity(3);
        let mut next = Some(self);
        for _ in 0..Self::ALL.len() {
            match next {
                Some(p) => {
                    chain.push(p);
                    next = p.next_implied();
                }
                None => break,
            }
        }
        chain
    }

    /// The levels that directly imply this one (`DirectlyImpliedBy`), in
    /// HTCondor's order: for READ, WRITE, NEGOTIATOR, CONFIG and the three
    /// ADVERTISE_*; for WRITE, ADMINISTRATOR and DAEMON; none otherwise.
    /// IpVerify consults these, in this order, when a level's own lists
    /// match nothing.
    pub fn directly_implied_by(self) -> &'static [Permission] {
        match self {
            Read => &[Write, Negotiator, Config, AdvertiseStartd, AdvertiseSchedd, AdvertiseMaster],
            Write => &[Administrator, Daemon],
            _ => &[],
        }
    }

    /// The level whose knobs are read next when this level's `ALLOW_`/
    /// `DENY_` knob is not defined (`DCpermissionHierarchy::nextConfig`).
    /// ADVERTISE_* fall back to DAEMON; DEFAULT is last; every other level
    /// falls back to DEFAULT. With `LEGACY_ALLOW_SEMANTICS`, DAEMON falls
    /// back to WRITE (then DEFAULT), the pre-9.0 order.
    pub fn next_config(self, legacy_allow_semantics: bool) -> Option<Permission> {
        match self {
            Default => None,
            AdvertiseStartd | AdvertiseSchedd | AdvertiseMaster => Some(Daemon),
            Daemon if legacy_allow_semantics => Some(Write),
            _ => Some(Default),
        }
    }

    /// The levels whose knobs are tried, in order: for this level's
    /// `ALLOW_`/`DENY_` lists (IpVerify) and for its `SEC_<LEVEL>_*`
    /// security settings (`SecMan::getSecSetting`), which walk the same
    /// `DCpermissionHierarchy::nextConfig` tables.
    ///
    /// ```
    /// use cedar::authz::Permission::*;
    /// assert_eq!(AdvertiseStartd.config_chain(false), vec![AdvertiseStartd, Daemon, Default]);
    /// assert_eq!(AdvertiseStartd.config_chain(true), vec![AdvertiseStartd, Daemon, Write, Default]);
    /// // LEGACY_ALLOW_SEMANTICS changes only DAEMON's step.
    /// assert_eq!(Write.config_chain(true), vec![Write, Default]);
    /// assert_eq!(Client.config_chain(true), vec![Client, Default]);
    /// ```
    pub fn config_chain(self, legacy_allow_semantics: bool) -> Vec<Permission> {
        let mut chain = Vec::with_capacity(4);
        let mut next = Some(self);
        for _ in 0..Self::ALL.len() {
            match next {
                Some(p) => {
                    chain.push(p);
                    next = p.next_config(legacy_allow_semantics);
                }
                None => break,
            }
        }
        chain
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of permission levels (a bit set over [`Permission::ALL`]).
///
/// ```
/// use cedar::authz::{PermSet, Permission};
/// let set = Permission::Daemon.implied();
/// assert_eq!(set.to_string(), "READ,WRITE,DAEMON");
/// assert!(set.contains(Permission::Write));
/// assert!(!set.contains(Permission::Negotiator));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PermSet(u16);

impl PermSet {
    /// The empty set.
    pub const EMPTY: PermSet = PermSet(0);

    /// Adds a level.
    pub fn insert(&mut self, p: Permission) {
        self.0 |= 1 << p.number();
    }

    /// Adds a level and everything it implies.
    pub fn insert_implied(&mut self, p: Permission) {
        self.0 |= p.implied().0;
    }

    /// Whether the set holds `p`.
    pub fn contains(self, p: Permission) -> bool {
        self.0 & (1 << p.number()) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The levels in the set, in numeric order.
    pub fn iter(self) -> impl Iterator<Item = Permission> {
        Permission::ALL.into_iter().filter(move |p| self.contains(*p))
    }
}

impl FromIterator<Permission> for PermSet {
    fn from_iter<I: IntoIterator<Item = Permission>>(iter: I) -> Self {
        let mut set = PermSet::EMPTY;
        for p in iter {
            set.insert(p);
        }
        set
    }
}

impl fmt::Display for PermSet {
    /// Comma-separated names in numeric order, the shape of a
    /// `LimitAuthorization` attribute.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for p in self.iter() {
            if !first {
                f.write_str(",")?;
            }
            first = false;
            f.write_str(p.name())?;
        }
        Ok(())
    }
}
