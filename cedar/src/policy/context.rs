//! The permission level whose `SEC_<LEVEL>_*` knobs apply, and how
//! HTCondor falls back from one level to another when reading them.

/// The permission levels HTCondor reads `SEC_<LEVEL>_*` settings for
/// (`DCpermission`, condor_perms.cpp 28–44). A server uses the level of the
/// command; a client uses CLIENT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SecurityContext {
    /// ALLOW.
    Allow,
    /// READ.
    Read,
    /// WRITE.
    Write,
    /// NEGOTIATOR.
    Negotiator,
    /// ADMINISTRATOR.
    Administrator,
    /// CONFIG.
    Config,
    /// DAEMON.
    Daemon,
    /// SOAP (deprecated).
    Soap,
    /// DEFAULT: the last resort of every chain.
    Default,
    /// CLIENT: outgoing connections.
    Client,
    /// ADVERTISE_STARTD.
    AdvertiseStartd,
    /// ADVERTISE_SCHEDD.
    AdvertiseSchedd,
    /// ADVERTISE_MASTER.
    AdvertiseMaster,
}

impl SecurityContext {
    /// The level's name in knob names (`PermString`).
    pub fn as_str(self) -> &'static str {
        match self {
            SecurityContext::Allow => "ALLOW",
            SecurityContext::Read => "READ",
            SecurityContext::Write => "WRITE",
            SecurityContext::Negotiator => "NEGOTIATOR",
            SecurityContext::Administrator => "ADMINISTRATOR",
            SecurityContext::Config => "CONFIG",
            SecurityContext::Daemon => "DAEMON",
            SecurityContext::Soap => "SOAP",
            SecurityContext::Default => "DEFAULT",
            SecurityContext::Client => "CLIENT",
            SecurityContext::AdvertiseStartd => "ADVERTISE_STARTD",
            SecurityContext::AdvertiseSchedd => "ADVERTISE_SCHEDD",
            SecurityContext::AdvertiseMaster => "ADVERTISE_MASTER",
        }
    }

    /// The level from its name, ignoring case.
    pub fn parse(name: &str) -> Option<SecurityContext> {
        const ALL: [SecurityContext; 13] = [
            SecurityContext::Allow,
            SecurityContext::Read,
            SecurityContext::Write,
            SecurityContext::Negotiator,
            SecurityContext::Administrator,
            SecurityContext::Config,
            SecurityContext::Daemon,
            SecurityContext::Soap,
            SecurityContext::Default,
            SecurityContext::Client,
            SecurityContext::AdvertiseStartd,
            SecurityContext::AdvertiseSchedd,
            SecurityContext::AdvertiseMaster,
        ];
        ALL.into_iter().find(|c| c.as_str().eq_ignore_ascii_case(name))
    }

    /// Whether the level is at or after DAEMON in HTCondor's enum, the
    /// only ones `LEGACY_ALLOW_SEMANTICS` can affect (condor_secman.cpp
    /// 370).
    fn at_or_after_daemon(self) -> bool {
        matches!(
            self,
            SecurityContext::Daemon
                | SecurityContext::Soap
                | SecurityContext::Default
                | SecurityContext::Client
                | SecurityContext::AdvertiseStartd
                | SecurityContext::AdvertiseSchedd
                | SecurityContext::AdvertiseMaster
        )
    }

    /// The next level to try (`DCpermissionHierarchy::nextConfig`,
    /// condor_perms.cpp 103–139): ADVERTISE_* fall back to DAEMON, DEFAULT
    /// ends the chain, everything else falls back to DEFAULT, except that
    /// with `LEGACY_ALLOW_SEMANTICS` DAEMON falls back to WRITE first.
    pub fn next_config(self, legacy: bool) -> Option<SecurityContext> {
        match self {
            SecurityContext::Default => None,
            SecurityContext::AdvertiseStartd | SecurityContext::AdvertiseSchedd | SecurityContext::AdvertiseMaster => {
                Some(SecurityContext::Daemon)
            }
            SecurityContext::Daemon if legacy => Some(SecurityContext::Write),
            _ => Some(SecurityContext::Default),
        }
    }

    /// The chain of levels HTCondor reads for this one, most specific
    /// first, ending with DEFAULT. `legacy` is `LEGACY_ALLOW_SEMANTICS`,
    /// consulted only for DAEMON and the levels after it, as in
    /// `getSecSetting`.
    ///
    /// ```
    /// use cedar::policy::SecurityContext::*;
    /// assert_eq!(AdvertiseStartd.config_chain(false), vec![AdvertiseStartd, Daemon, Default]);
    /// assert_eq!(AdvertiseStartd.config_chain(true), vec![AdvertiseStartd, Daemon, Write, Default]);
    /// assert_eq!(Write.config_chain(true), vec![Write, Default]);
    /// ```
    pub fn config_chain(self, legacy: bool) -> Vec<SecurityContext> {
        let legacy = legacy && self.at_or_after_daemon();
        let mut chain = vec![self];
        let mut cur = self;
        while let Some(next) = cur.next_config(legacy) {
            chain.push(next);
            cur = next;
        }
        chain
    }
}

impl std::fmt::Display for SecurityContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
